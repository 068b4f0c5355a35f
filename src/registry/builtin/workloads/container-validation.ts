/**
 * A pod spec's containers and init containers, validated as kube-apiserver 1.32's validateContainers,
 * validateInitContainers and validateContainerCommon do, with their messages and order: per container its name,
 * image, terminationMessagePolicy, ports, env, envFrom, volumeMounts, volumeDevices, imagePullPolicy, resources and
 * securityContext; then its name's uniqueness, lifecycle and probes (sidecars — init containers with restartPolicy
 * Always — get the same checks, other init containers may not set them); host ports must not collide. The image-whitespace rule
 * applies to Pods only (validateContainersOnlyForPod), after the whole spec, as upstream keeps templates lenient.
 *
 * Ephemeral containers (validateEphemeralContainers) get the common checks and the image-whitespace rule, a name unique
 * across every container of the pod, a targetContainerName naming a regular or init container, and none of the fields
 * upstream's allow list leaves out (ports, resources, probes, lifecycle, ...) nor a volume subPath.
 *
 * Not checked: resizePolicy, as kube-apiserver 1.32 drops it while InPlacePodVerticalScaling is off.
 */
import * as fe from '../../../apimachinery/field-errors.js';
import type { FieldError } from '../../../apimachinery/field-errors.js';
import { type JsonObject, isPlainObject } from '../../../apimachinery/object.js';
import { isDNS1123Label } from '../../../apimachinery/validation/names.js';
import { validateEnv, validateEnvFrom } from './container-env-validation.js';
import { validateContainerResources } from './container-resources-validation.js';
import { validateLifecycle, validateProbes } from './container-probe-validation.js';
import { validateSecurityContext } from './container-security-validation.js';
import { pathsByName, validateContainerPorts, validateVolumeDevices, validateVolumeMounts } from './pod-spec-validation.js';

/** What the containers of one pod spec are checked against. */
export interface ContainerContext {
  /** The names of the pod's volumes that validated (only those can be mounted). */
  volumes: ReadonlySet<string>;
  /** Those of them a volumeDevice may name (claims and generic ephemeral volumes). */
  blockVolumes: ReadonlySet<string>;
  /** The pod's terminationGracePeriodSeconds, the upper bound of a sleep hook. */
  gracePeriod: number | undefined;
}

const present = (v: unknown): v is JsonObject => isPlainObject(v);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

const TERMINATION_MESSAGE_POLICIES = ['File', 'FallbackToLogsOnError'];
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];

/** A policy field that defaulting normally fills: required when empty, else one of `supported`. */
function policy(value: unknown, supported: string[], path: string): FieldError[] {
  const v = text(value);
  if (!v) return [fe.required(path)];
  return supported.includes(v) ? [] : [fe.notSupported(path, v, supported)];
}

/** validateContainerCommon: the checks every kind of container gets, in upstream's order. */
function validateContainerCommon(c: JsonObject, path: string, ctx: ContainerContext): FieldError[] {
  const errs: FieldError[] = [];
  const name = text(c.name);
  if (!name) errs.push(fe.required(`${path}.name`));
  else for (const msg of isDNS1123Label(name)) errs.push(fe.invalid(`${path}.name`, name, msg));
  // Only an empty image is missing; a blank one passes here (templates use " " as a placeholder) and is caught for
  // Pods by validateContainersOnlyForPod.
  if (!text(c.image)) errs.push(fe.required(`${path}.image`));
  errs.push(...policy(c.terminationMessagePolicy, TERMINATION_MESSAGE_POLICIES, `${path}.terminationMessagePolicy`));
  errs.push(...validateContainerPorts(c.ports, `${path}.ports`));
  errs.push(...validateEnv(c.env, `${path}.env`));
  errs.push(...validateEnvFrom(c.envFrom, `${path}.envFrom`));
  const devices = pathsByName(c.volumeDevices, 'devicePath');
  const privileged = present(c.securityContext) && c.securityContext.privileged === true;
  errs.push(...validateVolumeMounts(c.volumeMounts, ctx.volumes, `${path}.volumeMounts`, { devices, privileged }));
  errs.push(...validateVolumeDevices(c.volumeDevices, ctx.volumes, ctx.blockVolumes, pathsByName(c.volumeMounts, 'mountPath'), `${path}.volumeDevices`));
  errs.push(...policy(c.imagePullPolicy, PULL_POLICIES, `${path}.imagePullPolicy`));
  errs.push(...validateContainerResources(c.resources, `${path}.resources`));
  errs.push(...validateSecurityContext(c.securityContext, `${path}.securityContext`));
  return errs;
}

/**
 * checkHostPortConflicts: a protocol/hostIP/hostPort triple used twice is a duplicate. `base` is the list's path and
 * the index counts from the first container given — so for an init container (checked alone, as init containers
 * run one at a time) upstream names it `initContainers[0]` whatever its index; we keep that.
 */
function hostPortConflicts(containers: JsonObject[], base: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  containers.forEach((c, ci) => {
    (Array.isArray(c.ports) ? c.ports : []).forEach((raw, pi) => {
      const port = present(raw) ? raw : {};
      const hostPort = typeof port.hostPort === 'number' ? port.hostPort : 0;
      if (hostPort === 0) return;
      const key = `${text(port.protocol)}/${text(port.hostIP)}/${hostPort}`;
      if (seen.has(key)) errs.push(fe.duplicate(`${base}[${ci}].ports[${pi}].hostPort`, key));
      else seen.add(key);
    });
  });
  return errs;
}

const asObjects = (list: unknown): JsonObject[] => (Array.isArray(list) ? list.map((c) => (present(c) ? c : {})) : []);

/** validateContainers: at least one; each container's common checks, unique name, hooks and probes; no restartPolicy. */
export function validateContainers(list: unknown, path: string, ctx: ContainerContext): FieldError[] {
  const containers = asObjects(list);
  if (containers.length === 0) return [fe.required(path)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  containers.forEach((c, i) => {
    const p = `${path}[${i}]`;
    errs.push(...validateContainerCommon(c, p, ctx));
    // An empty name counts too: two unnamed containers are also a duplicate.
    const name = text(c.name);
    if (names.has(name)) errs.push(fe.duplicate(`${p}.name`, name));
    names.add(name);
    if (present(c.lifecycle)) errs.push(...validateLifecycle(c.lifecycle, ctx.gracePeriod, `${p}.lifecycle`));
    errs.push(...validateProbes(c, ctx.gracePeriod, p));
    if (c.restartPolicy !== undefined && c.restartPolicy !== null) errs.push(fe.forbidden(`${p}.restartPolicy`, 'may not be set for non-init containers'));
  });
  return [...errs, ...hostPortConflicts(containers, path)];
}

const PROBE_FIELDS = ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe'];

/**
 * validateInitContainers: the common checks; restartPolicy only Always (a sidecar); names unique among the regular
 * and earlier init containers; host ports unique within the container; hooks and probes checked for sidecars and
 * forbidden for the others.
 */
export function validateInitContainers(list: unknown, regular: unknown, path: string, ctx: ContainerContext): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set(asObjects(regular).map((c) => text(c.name)));
  asObjects(list).forEach((c, i) => {
    const p = `${path}[${i}]`;
    errs.push(...validateContainerCommon(c, p, ctx));
    const restartPolicy = c.restartPolicy;
    const sidecar = restartPolicy === 'Always';
    if (restartPolicy !== undefined && restartPolicy !== null && !sidecar) errs.push(fe.notSupported(`${p}.restartPolicy`, restartPolicy, ['Always']));
    const name = text(c.name);
    if (names.has(name)) errs.push(fe.duplicate(`${p}.name`, name));
    else if (name) names.add(name);
    errs.push(...hostPortConflicts([c], path));
    if (sidecar) {
      if (present(c.lifecycle)) errs.push(...validateLifecycle(c.lifecycle, ctx.gracePeriod, `${p}.lifecycle`));
      errs.push(...validateProbes(c, ctx.gracePeriod, p));
    } else {
      for (const field of PROBE_FIELDS) {
        if (present(c[field])) errs.push(fe.forbidden(`${p}.${field}`, 'may not be set for init containers without restartPolicy=Always'));
      }
    }
  });
  return errs;
}

/** validateContainersOnlyForPod: a Pod's (not a template's) images may not have leading or trailing whitespace. */
export function validateContainersOnlyForPod(list: unknown, path: string): FieldError[] {
  return asObjects(list).flatMap((c, i) => {
    const image = text(c.image);
    return image !== image.trim() ? [fe.invalid(`${path}[${i}].image`, image, 'must not have leading or trailing whitespace')] : [];
  });
}

/**
 * EphemeralContainerCommon's fields upstream's allowedEphemeralContainerFields leaves out, in the struct's order: set
 * (anything but Go's zero value: an empty list or map decoded from JSON is not nil, so it counts) they are forbidden.
 */
const EPHEMERAL_FORBIDDEN_FIELDS = ['ports', 'resources', 'resizePolicy', 'restartPolicy', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle'];

/** Whether a field holds something other than Go's zero value of its type (absent, null, or `resources: {}`). */
function setForEphemeral(field: string, v: unknown): boolean {
  if (v === undefined || v === null) return false;
  // ResourceRequirements is a struct: `{}` (what Go always writes) is its zero value; any member makes it set.
  if (field === 'resources') return present(v) && Object.values(v).some((x) => x !== undefined && x !== null);
  return true;
}

/**
 * validateEphemeralContainers: for each, the common checks and the Pod-only image rule, a name unique across the
 * regular, init and earlier ephemeral containers, a targetContainerName among the regular and init containers, the
 * allow list of fields, and no subPath or subPathExpr in its mounts.
 */
export function validateEphemeralContainers(list: unknown, regular: unknown, init: unknown, path: string, ctx: ContainerContext): FieldError[] {
  const ephemeral = asObjects(list);
  if (ephemeral.length === 0) return [];
  const others = new Set([...asObjects(regular), ...asObjects(init)].map((c) => text(c.name)));
  const all = new Set(others);
  const errs: FieldError[] = [];
  ephemeral.forEach((c, i) => {
    const p = `${path}[${i}]`;
    errs.push(...validateContainerCommon(c, p, ctx));
    // validateContainerOnlyForPod, here for templates too (upstream checks ephemeral containers alike everywhere).
    const image = text(c.image);
    if (image !== image.trim()) errs.push(fe.invalid(`${p}.image`, image, 'must not have leading or trailing whitespace'));
    const name = text(c.name);
    if (all.has(name)) errs.push(fe.duplicate(`${p}.name`, name));
    else all.add(name);
    const target = text(c.targetContainerName);
    if (target && !others.has(target)) errs.push(fe.notFound(`${p}.targetContainerName`, target));
    for (const field of EPHEMERAL_FORBIDDEN_FIELDS) if (setForEphemeral(field, c[field])) errs.push(fe.forbidden(`${p}.${field}`, 'cannot be set for an Ephemeral Container'));
    asObjects(c.volumeMounts).forEach((m, j) => {
      if (text(m.subPath)) errs.push(fe.forbidden(`${p}.volumeMounts[${j}].subPath`, 'cannot be set for an Ephemeral Container'));
      if (text(m.subPathExpr)) errs.push(fe.forbidden(`${p}.volumeMounts[${j}].subPathExpr`, 'cannot be set for an Ephemeral Container'));
    });
  });
  return errs;
}
