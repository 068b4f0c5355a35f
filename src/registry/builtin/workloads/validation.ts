/**
 * Validation of the workload types (core/v1 Pod, Service; apps/v1 Deployment, ReplicaSet) covering what clients
 * actually trip over: missing or mismatched selectors, pods without containers or images, negative replicas,
 * immutable fields. Field paths and detail texts are upstream's (pkg/apis/apps/validation, pkg/apis/core/validation).
 */
import * as fe from '../../../apimachinery/field-errors.js';
import { type FieldError, FieldPath } from '../../../apimachinery/field-errors.js';
import { fromLabelSelector, type LabelSelectorSpec } from '../../../apimachinery/labels/selector.js';
import { type JsonObject, isPlainObject, jsonEqual } from '../../../apimachinery/object.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../../../apimachinery/validation/names.js';
import { validateAnnotations, validateLabels, validateObjectMetaUpdate } from '../../../apimachinery/validation/object-meta.js';
import { isQuantity } from '../../../apimachinery/quantity.js';
import { goLabelSelectorValue, selectorMismatch } from './go-values.js';
import { validateContainers, validateContainersOnlyForPod, validateEphemeralContainers, validateInitContainers } from './container-validation.js';
import { validatePodAnnotations } from './pod-annotation-validation.js';
import { validatePodLevelFields } from './pod-level-validation.js';
import { validatePodSpecUpdateRules } from './pod-update-validation.js';
import { isSet } from './pod-validation-helpers.js';
import { validateVolumes } from './pod-spec-validation.js';

function asObject(v: unknown): JsonObject {
  return isPlainObject(v) ? v : {};
}

function nonNegative(value: unknown, path: string): FieldError[] {
  if (value === undefined || value === null) return [];
  if (typeof value !== 'number' || !Number.isInteger(value)) return [fe.invalid(path, value, 'must be an integer')];
  return value < 0 ? [fe.invalid(path, value, 'must be greater than or equal to 0')] : [];
}

/**
 * A PodSpec at `path`, in ValidatePodSpec's order: volumes (pod-spec-validation.ts), containers, init containers and
 * ephemeral containers (container-validation.ts), then the pod-level fields (pod-level-validation.ts).
 */
export function validatePodSpec(spec: unknown, path: string): FieldError[] {
  const s = asObject(spec);
  const volumes = validateVolumes(s.volumes, `${path}.volumes`);
  const gracePeriod = typeof s.terminationGracePeriodSeconds === 'number' ? s.terminationGracePeriodSeconds : undefined;
  const containerContext = { volumes: volumes.names, blockVolumes: volumes.blockNames, gracePeriod };
  const errs = [
    ...volumes.errors,
    ...validateContainers(s.containers, `${path}.containers`, containerContext),
    ...validateInitContainers(s.initContainers, s.containers, `${path}.initContainers`, containerContext),
    ...validateEphemeralContainers(s.ephemeralContainers, s.containers, s.initContainers, `${path}.ephemeralContainers`, containerContext),
  ];
  // Then the pod-level fields (restartPolicy, dnsPolicy, ... nodeName, ... os), in upstream's order.
  errs.push(...validatePodLevelFields(s, path));
  return errs;
}

/**
 * ValidatePodTemplateSpec: a pod template's labels and annotations, its pod-specific annotations, its spec, and no
 * ephemeral containers.
 */
export function validatePodTemplateSpec(template: unknown, path: string): FieldError[] {
  const t = asObject(template);
  const meta = asObject(t.metadata);
  const at = FieldPath.root(path);
  const errs = [
    ...validateLabels(isPlainObject(meta.labels) ? (meta.labels as Record<string, string>) : undefined, at.child('labels')),
    ...validateAnnotations(isPlainObject(meta.annotations) ? (meta.annotations as Record<string, string>) : undefined, at.child('annotations')),
    ...validatePodAnnotations(meta.annotations, t.spec, `${path}.annotations`),
    ...validatePodSpec(t.spec, `${path}.spec`),
  ];
  const ephemeral = asObject(t.spec).ephemeralContainers;
  if (Array.isArray(ephemeral) && ephemeral.length > 0) errs.push(fe.forbidden(`${path}.spec.ephemeralContainers`, 'ephemeral containers not allowed in pod template'));
  return errs;
}

/**
 * The selector/template pair of a Deployment or ReplicaSet: the selector is required and non-empty, valid, and
 * must select the template's labels; the template restarts Always.
 */
function validateSelectorAndTemplate(spec: JsonObject, kind: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!isPlainObject(spec.selector)) {
    // A missing selector converts to labels.Nothing(), which the template's labels do not match either.
    errs.push(fe.required('spec.selector'));
    if (isPlainObject(spec.template)) errs.push(selectorMismatch('spec.template.metadata.labels', asObject(asObject(spec.template).metadata).labels));
  } else {
    const sel = spec.selector as LabelSelectorSpec;
    if (Object.keys(sel.matchLabels ?? {}).length + (sel.matchExpressions ?? []).length === 0) {
      // ValidateReplicaSetSpec words it as the Deployment's does (upstream's copy of the message).
      errs.push({ ...fe.invalid('spec.selector', sel, `empty selector is invalid for ${kind === 'replicaset' ? 'deployment' : kind}`), renderedValue: goLabelSelectorValue(sel) });
    } else {
      try {
        const labels = asObject(asObject(asObject(spec.template).metadata).labels) as Record<string, string>;
        if (!fromLabelSelector(sel).matches(labels)) errs.push(selectorMismatch('spec.template.metadata.labels', asObject(asObject(spec.template).metadata).labels));
      } catch (err) {
        errs.push(fe.invalid('spec.selector', sel, (err as Error).message));
      }
    }
  }
  if (!isPlainObject(spec.template)) errs.push(fe.required('spec.template'));
  else {
    const podSpec = asObject(spec.template).spec;
    errs.push(...validatePodTemplateSpec(spec.template, 'spec.template'));
    const rp = asObject(podSpec).restartPolicy;
    if (rp !== undefined && rp !== 'Always') errs.push(fe.notSupported('spec.template.spec.restartPolicy', rp, ['Always']));
    if (isSet(asObject(podSpec).activeDeadlineSeconds)) errs.push(fe.forbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in ReplicaSet is not Supported'));
  }
  return errs;
}

/** An int-or-percent at `path`: a non-negative integer or "N%". */
function validateIntOrPercent(v: unknown, path: string): FieldError[] {
  if (v === undefined || v === null) return [];
  if (typeof v === 'number') return nonNegative(v, path);
  if (typeof v === 'string' && /^\d+%$/.test(v)) return Number(v.slice(0, -1)) > 100 ? [fe.invalid(path, v, 'must not be greater than 100%')] : [];
  return [fe.invalid(path, v, "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')")];
}

function isZeroIntOrPercent(v: unknown): boolean {
  return v === 0 || v === '0%' || v === '0';
}

/** ValidateDeploymentSpec's checks that matter here. */
export function validateDeployment(obj: JsonObject): FieldError[] {
  const spec = asObject(obj.spec);
  const errs = [...nonNegative(spec.replicas, 'spec.replicas'), ...validateSelectorAndTemplate(spec, 'deployment')];
  const strategy = asObject(spec.strategy);
  if (strategy.type !== undefined && !['Recreate', 'RollingUpdate'].includes(String(strategy.type))) {
    errs.push(fe.notSupported('spec.strategy.type', strategy.type, ['Recreate', 'RollingUpdate']));
  }
  if (strategy.type === 'Recreate' && strategy.rollingUpdate !== undefined) {
    errs.push(fe.forbidden('spec.strategy.rollingUpdate', 'may not be specified when strategy `type` is \'Recreate\''));
  }
  if (strategy.type === 'RollingUpdate') {
    const ru = asObject(strategy.rollingUpdate);
    errs.push(...validateIntOrPercent(ru.maxUnavailable, 'spec.strategy.rollingUpdate.maxUnavailable'), ...validateIntOrPercent(ru.maxSurge, 'spec.strategy.rollingUpdate.maxSurge'));
    if (isZeroIntOrPercent(ru.maxUnavailable) && isZeroIntOrPercent(ru.maxSurge)) {
      errs.push(fe.invalid('spec.strategy.rollingUpdate.maxUnavailable', ru.maxUnavailable, 'may not be 0 when `maxSurge` is 0'));
    }
  }
  errs.push(...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'), ...nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  if (typeof spec.progressDeadlineSeconds === 'number') {
    // minReadySeconds is a plain int32 upstream: absent is 0.
    errs.push(...nonNegative(spec.progressDeadlineSeconds, 'spec.progressDeadlineSeconds'));
    if (spec.progressDeadlineSeconds <= (typeof spec.minReadySeconds === 'number' ? spec.minReadySeconds : 0)) {
      errs.push(fe.invalid('spec.progressDeadlineSeconds', spec.progressDeadlineSeconds, 'must be greater than minReadySeconds'));
    }
  }
  return errs;
}

/** ValidateReplicaSetSpec's checks that matter here. */
export function validateReplicaSet(obj: JsonObject): FieldError[] {
  const spec = asObject(obj.spec);
  return [...nonNegative(spec.replicas, 'spec.replicas'), ...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'), ...validateSelectorAndTemplate(spec, 'replicaset')];
}

/** apps/v1 selectors cannot change once set. */
export function validateSelectorImmutable(obj: JsonObject, old: JsonObject): FieldError[] {
  const sel = asObject(obj.spec).selector;
  return jsonEqual(sel, asObject(old.spec).selector) ? [] : [fe.invalid('spec.selector', sel, 'field is immutable')];
}

/**
 * A Pod: its pod-specific annotations, then its spec, then (as validatePodMetadataAndSpec) the container checks
 * upstream applies to Pods but not templates.
 */
export function validatePod(obj: JsonObject, old?: JsonObject): FieldError[] {
  const annotations = (o: JsonObject): unknown => asObject(o.metadata).annotations;
  const spec = asObject(obj.spec);
  return [
    ...validatePodAnnotations(annotations(obj), obj.spec, 'metadata.annotations', old && (annotations(old) ?? {})),
    ...validatePodSpec(spec, 'spec'),
    ...validateContainersOnlyForPod(spec.containers, 'spec.containers'),
    ...validateContainersOnlyForPod(spec.initContainers, 'spec.initContainers'),
  ];
}

/** ValidatePodCreate: the spec, then what only a new Pod may not have (ephemeral containers, a node while gated). */
export function validatePodCreate(obj: JsonObject): FieldError[] {
  const errs = validatePod(obj);
  const spec = asObject(obj.spec);
  if (Array.isArray(spec.ephemeralContainers) && spec.ephemeralContainers.length > 0) errs.push(fe.forbidden('spec.ephemeralContainers', 'cannot be set on create'));
  if (spec.nodeName && Array.isArray(spec.schedulingGates) && spec.schedulingGates.length > 0) {
    errs.push(fe.forbidden('spec.nodeName', 'cannot be set until all schedulingGates have been cleared'));
  }
  return errs;
}

const podUpdateForbidden =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/**
 * Pod specs are immutable but for images, activeDeadlineSeconds, tolerations and scheduling gates, within the rules of
 * pod-update-validation.ts. Binding an unbound pod (spec.nodeName from empty to a node) is also allowed here, because
 * this server's scheduler binds through an update rather than the pods/binding subresource.
 */
export function validatePodUpdate(obj: JsonObject, old: JsonObject): FieldError[] {
  const errs = validatePod(obj, old);
  const rules = validatePodSpecUpdateRules(asObject(obj.spec), asObject(old.spec));
  errs.push(...rules.errors);
  if (rules.stop) return errs;
  const mutable = (spec: unknown, oldNodeName: unknown): JsonObject => {
    const s = structuredClone(asObject(spec));
    for (const key of ['containers', 'initContainers']) {
      if (Array.isArray(s[key])) s[key] = (s[key] as unknown[]).map((c) => ({ ...asObject(c), image: undefined }));
    }
    delete s.activeDeadlineSeconds;
    delete s.tolerations;
    delete s.schedulingGates;
    if (!oldNodeName) delete s.nodeName;
    return s;
  };
  const oldNode = asObject(old.spec).nodeName;
  if (!jsonEqual(mutable(obj.spec, oldNode), mutable(old.spec, oldNode))) errs.push(fe.forbidden('spec', podUpdateForbidden));
  return errs;
}

/**
 * ValidatePodEphemeralContainersUpdate, for the pods/ephemeralcontainers subresource: the metadata update and the
 * whole pod as any pod is validated; a static pod (kubernetes.io/config.mirror) takes none; an ephemeral container
 * once added may be neither removed nor changed. Where upstream appends go-cmp's diff of a changed container to the
 * message, atrium names the changed fields instead (a deliberate difference: that diff's text is go-cmp's own).
 */
export function validatePodEphemeralContainersUpdate(obj: JsonObject, old: JsonObject): FieldError[] {
  const errs = [...validateObjectMetaUpdate(obj.metadata as never, old.metadata as never), ...validatePod(obj, old)];
  if (asObject(asObject(old.metadata).annotations)['kubernetes.io/config.mirror'] !== undefined) {
    return [fe.forbidden('', 'static pods do not support ephemeral containers')];
  }
  const byName = new Map<string, JsonObject>();
  for (const c of Array.isArray(asObject(obj.spec).ephemeralContainers) ? (asObject(obj.spec).ephemeralContainers as unknown[]) : []) byName.set(String(asObject(c).name ?? ''), asObject(c));
  for (const raw of Array.isArray(asObject(old.spec).ephemeralContainers) ? (asObject(old.spec).ephemeralContainers as unknown[]) : []) {
    const before = asObject(raw);
    const name = String(before.name ?? '');
    const after = byName.get(name);
    if (!after) errs.push(fe.forbidden('spec.ephemeralContainers', `existing ephemeral containers ${JSON.stringify(name)} may not be removed\n`));
    else if (!jsonEqual(before, after)) {
      const changed = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => !jsonEqual(before[k], after[k])).sort();
      errs.push(fe.forbidden('spec.ephemeralContainers', `existing ephemeral containers ${JSON.stringify(name)} may not be changed\nchanged: ${changed.join(', ')}`));
    }
  }
  return errs;
}

/** Services: ports well-formed, type known, clusterIP immutable once allocated. */
export function validateService(obj: JsonObject, old?: JsonObject): FieldError[] {
  const spec = asObject(obj.spec);
  const errs: FieldError[] = [];
  const types = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'];
  if (spec.type !== undefined && !types.includes(String(spec.type))) errs.push(fe.notSupported('spec.type', spec.type, types));
  const ports = Array.isArray(spec.ports) ? spec.ports : [];
  if (spec.type !== 'ExternalName' && spec.clusterIP !== 'None' && ports.length === 0) errs.push(fe.required('spec.ports'));
  ports.forEach((raw, i) => {
    const p = asObject(raw);
    if (typeof p.port !== 'number' || p.port < 1 || p.port > 65535) errs.push(fe.invalid(`spec.ports[${i}].port`, p.port, 'must be between 1 and 65535, inclusive'));
    if (ports.length > 1 && !p.name) errs.push(fe.required(`spec.ports[${i}].name`));
    if ((spec.type ?? 'ClusterIP') === 'ClusterIP' && typeof p.nodePort === 'number' && p.nodePort !== 0) {
      errs.push(fe.forbidden(`spec.ports[${i}].nodePort`, "may not be used when `type` is 'ClusterIP'"));
    }
  });
  // validateServiceExternalTrafficPolicy: a health check port only where one is needed (apiservice.NeedsHealthCheck).
  const needsHealthCheck = spec.type === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local';
  if (!needsHealthCheck && typeof spec.healthCheckNodePort === 'number' && spec.healthCheckNodePort !== 0) {
    errs.push(fe.invalid('spec.healthCheckNodePort', spec.healthCheckNodePort, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"));
  }
  if (old) {
    const oldIP = asObject(old.spec).clusterIP;
    if (oldIP && spec.clusterIP !== oldIP) errs.push(fe.invalid('spec.clusterIPs[0]', spec.clusterIP ?? '', 'may not change once set'));
  }
  return errs;
}
