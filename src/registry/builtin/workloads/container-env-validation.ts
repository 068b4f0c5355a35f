/**
 * A container's `env` and `envFrom`, validated as kube-apiserver 1.32 does (ValidateEnv, ValidateEnvFrom and the
 * selectors they reach), with its messages and order. 1.32 turns RelaxedEnvironmentVariableValidation on by default,
 * so a variable name (or envFrom prefix) may be any printable ASCII but '=' — names like `my var` or `1ST` that 1.31
 * rejected are accepted.
 */
import * as fe from '../../../apimachinery/field-errors.js';
import type { FieldError } from '../../../apimachinery/field-errors.js';
import { type JsonObject, isPlainObject } from '../../../apimachinery/object.js';
import { canonicalQuantity } from '../../../apimachinery/exact-quantity.js';
import { isConfigMapKey, isQualifiedName, nameIsDNSSubdomain } from '../../../apimachinery/validation/names.js';

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const present = (v: unknown): v is JsonObject => isPlainObject(v);

/** IsRelaxedEnvVarName for a non-empty name: printable ASCII (space included) other than '='. */
function relaxedEnvVarName(name: string): string[] {
  return /^[\x20-\x3c\x3e-\x7e]*$/.test(name) ? [] : ["a valid environment variable name must consist only of printable ASCII characters other than '='"];
}

/** The pod fields a container's env may read through fieldRef (the downward API's env subset). */
const ENV_FIELD_PATHS = ['metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName', 'spec.serviceAccountName', 'status.hostIP', 'status.hostIPs', 'status.podIP', 'status.podIPs'];

/** Every field label a v1 pod's downward API knows (ConvertDownwardAPIFieldLabel); the env subset is checked after. */
const POD_FIELD_LABELS = new Set([
  'metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName', 'spec.restartPolicy',
  'spec.serviceAccountName', 'spec.schedulerName', 'status.phase', 'status.hostIP', 'status.hostIPs', 'status.podIP', 'status.podIPs',
]);

/** `path['key']` split into path and key (fieldpath.SplitMaybeSubscriptedPath); undefined when not subscripted. */
function splitSubscript(fieldPath: string): [string, string] | undefined {
  if (!fieldPath.endsWith("']")) return undefined;
  const s = fieldPath.slice(0, -2);
  const at = s.indexOf("['");
  return at > 0 ? [s.slice(0, at), s.slice(at + 2)] : undefined;
}

/** ConvertDownwardAPIFieldLabel: the internal field path, or the conversion error's text. */
function convertFieldLabel(apiVersion: string, label: string): { path: string } | { error: string } {
  if (apiVersion !== 'v1') return { error: `unsupported pod version: ${apiVersion}` };
  const sub = splitSubscript(label);
  if (sub) return sub[0] === 'metadata.annotations' || sub[0] === 'metadata.labels' ? { path: label } : { error: `field label does not support subscript: ${label}` };
  // Old v1 clients send spec.host for the node name.
  if (label === 'spec.host') return { path: 'spec.nodeName' };
  return POD_FIELD_LABELS.has(label) ? { path: label } : { error: `field label not supported: ${label}` };
}

/** validateObjectFieldSelector for env: apiVersion and fieldPath required, the path one env may read. */
function objectFieldSelector(ref: JsonObject, path: string): FieldError[] {
  const apiVersion = text(ref.apiVersion);
  const fieldPath = text(ref.fieldPath);
  if (!apiVersion) return [fe.required(`${path}.apiVersion`)];
  if (!fieldPath) return [fe.required(`${path}.fieldPath`)];
  const converted = convertFieldLabel(apiVersion, fieldPath);
  if ('error' in converted) return [fe.invalid(`${path}.fieldPath`, fieldPath, `error converting fieldPath: ${converted.error}`)];
  const sub = splitSubscript(converted.path);
  if (sub) {
    // Annotation keys are matched case-insensitively, so their subscript is checked lower-cased.
    const key = sub[0] === 'metadata.annotations' ? sub[1].toLowerCase() : sub[1];
    return isQualifiedName(key).map((msg) => fe.invalid(path, key, msg));
  }
  return ENV_FIELD_PATHS.includes(converted.path) ? [] : [fe.notSupported(`${path}.fieldPath`, converted.path, ENV_FIELD_PATHS)];
}

const CONTAINER_RESOURCES = ['limits.cpu', 'limits.ephemeral-storage', 'limits.memory', 'requests.cpu', 'requests.ephemeral-storage', 'requests.memory'];
const BYTE_DIVISORS = ['1', '1k', '1M', '1G', '1T', '1P', '1E', '1Ki', '1Mi', '1Gi', '1Ti', '1Pi', '1Ei'];
const isHugePages = (resource: string): boolean => resource.startsWith('requests.hugepages-') || resource.startsWith('limits.hugepages-');

/** validateContainerResourceDivisor: a set, non-zero divisor is one the resource's unit allows (compared canonically). */
function resourceDivisor(resource: string, divisor: unknown, path: string): FieldError[] {
  if (divisor === undefined || divisor === null) return [];
  let canonical: string;
  try {
    canonical = canonicalQuantity(divisor);
  } catch {
    return [];
  }
  if (canonical === '0') return [];
  const errs: FieldError[] = [];
  const bad = (unit: string, allowed: string[]): void => {
    if (!allowed.includes(canonical)) errs.push(fe.invalid(`${path}.divisor`, resource, `only divisor's values ${allowed.join(', ')} are supported with the ${unit}`));
  };
  if (resource === 'limits.cpu' || resource === 'requests.cpu') {
    if (!['1m', '1'].includes(canonical)) errs.push(fe.invalid(`${path}.divisor`, resource, "only divisor's values 1m and 1 are supported with the cpu resource"));
  } else if (resource === 'limits.memory' || resource === 'requests.memory') bad('memory resource', BYTE_DIVISORS);
  else if (resource === 'limits.ephemeral-storage' || resource === 'requests.ephemeral-storage') bad('local ephemeral storage resource', BYTE_DIVISORS);
  if (isHugePages(resource)) bad('hugepages resource', BYTE_DIVISORS);
  return errs;
}

/** validateContainerResourceFieldSelector for env (no containerName needed: it defaults to the container itself). */
function resourceFieldSelector(ref: JsonObject, path: string): FieldError[] {
  const resource = text(ref.resource);
  const errs: FieldError[] = [];
  if (!resource) errs.push(fe.required(`${path}.resource`));
  else if (!CONTAINER_RESOURCES.includes(resource) && !isHugePages(resource)) errs.push(fe.notSupported(`${path}.resource`, resource, CONTAINER_RESOURCES));
  errs.push(...resourceDivisor(resource, ref.divisor, path));
  return errs;
}

/** validateConfigMapKeySelector / validateSecretKeySelector: a valid object name (even empty) and a required key. */
function keySelector(ref: JsonObject, path: string): FieldError[] {
  const name = text(ref.name);
  const key = text(ref.key);
  const errs = nameIsDNSSubdomain(name, false).map((msg) => fe.invalid(`${path}.name`, name, msg));
  if (!key) errs.push(fe.required(`${path}.key`));
  else for (const msg of isConfigMapKey(key)) errs.push(fe.invalid(`${path}.key`, key, msg));
  return errs;
}

/** validateEnvVarValueFrom: each source's fields, then exactly one source and no `value` beside it. */
function valueFrom(env: JsonObject, path: string): FieldError[] {
  const from = env.valueFrom;
  if (!present(from)) return [];
  const errs: FieldError[] = [];
  let sources = 0;
  const checks: [string, (ref: JsonObject, p: string) => FieldError[]][] = [
    ['fieldRef', objectFieldSelector],
    ['resourceFieldRef', resourceFieldSelector],
    ['configMapKeyRef', keySelector],
    ['secretKeyRef', keySelector],
  ];
  for (const [field, check] of checks) {
    const ref = from[field];
    if (!present(ref)) continue;
    sources++;
    errs.push(...check(ref, `${path}.${field}`));
  }
  if (sources === 0) errs.push(fe.invalid(path, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
  else if (text(env.value)) errs.push(fe.invalid(path, '', 'may not be specified when `value` is not empty'));
  else if (sources > 1) errs.push(fe.invalid(path, '', 'may not have more than one field specified at a time'));
  return errs;
}

/** ValidateEnv: each variable's name, then its valueFrom. */
export function validateEnv(list: unknown, path: string): FieldError[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((raw, i) => {
    const env = present(raw) ? raw : {};
    const p = `${path}[${i}]`;
    const name = text(env.name);
    const errs = name ? relaxedEnvVarName(name).map((msg) => fe.invalid(`${p}.name`, name, msg)) : [fe.required(`${p}.name`)];
    return [...errs, ...valueFrom(env, `${p}.valueFrom`)];
  });
}

/** validateConfigMapEnvSource / validateSecretEnvSource: a required name, checked as a generateName would be. */
function envSourceName(ref: JsonObject, path: string): FieldError[] {
  const name = text(ref.name);
  if (!name) return [fe.required(`${path}.name`)];
  return nameIsDNSSubdomain(name, true).map((msg) => fe.invalid(`${path}.name`, name, msg));
}

/**
 * ValidateEnvFrom: the prefix, each source's name, then exactly one source — the count errors name the whole list
 * (`envFrom`, not `envFrom[i]`), as upstream's do.
 */
export function validateEnvFrom(list: unknown, path: string): FieldError[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((raw, i) => {
    const source = present(raw) ? raw : {};
    const p = `${path}[${i}]`;
    const prefix = text(source.prefix);
    const errs = prefix ? relaxedEnvVarName(prefix).map((msg) => fe.invalid(`${p}.prefix`, prefix, msg)) : [];
    let sources = 0;
    for (const field of ['configMapRef', 'secretRef']) {
      const ref = source[field];
      if (!present(ref)) continue;
      sources++;
      errs.push(...envSourceName(ref, `${p}.${field}`));
    }
    if (sources === 0) errs.push(fe.invalid(path, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (sources > 1) errs.push(fe.invalid(path, '', 'may not have more than one field specified at a time'));
    return errs;
  });
}
