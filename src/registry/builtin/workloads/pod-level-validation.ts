/**
 * The pod-level fields of a PodSpec — everything kube-apiserver 1.32's ValidatePodSpec checks after the containers —
 * validated in upstream's order with upstream's messages and field paths (recorded from kube-apiserver v1.32.4; see
 * test/integration/pod-level-validation.test.ts). Defaults are applied before this runs (defaults.ts), as upstream
 * does, so the "Required" answers for an empty dnsPolicy or restartPolicy are never given; they are kept so the
 * checks read as upstream's. Admission plugins kube-apiserver runs before validation (Priority, RuntimeClass,
 * DefaultTolerationSeconds) are not emulated: a Pod's unknown priorityClassName is a 403 there, not checked here.
 */
import * as fe from '../../../apimachinery/field-errors.js';
import type { FieldError } from '../../../apimachinery/field-errors.js';
import { type JsonObject, isPlainObject } from '../../../apimachinery/object.js';
import { validateLabelSelector } from '../../../apimachinery/validation/label-selector.js';
import { isDNS1123Label, isDNS1123Subdomain, isValidLabelValue } from '../../../apimachinery/validation/names.js';
import { validateLabelName, validateLabels } from '../../../apimachinery/validation/object-meta.js';
import { validatePodAffinity, validateNodeAffinity } from './pod-affinity-validation.js';
import { at, isSet, list, num, obj, str } from './pod-validation-helpers.js';
import { validateWindowsHostProcessPod } from './pod-windows-validation.js';
import { validatePodSecurityContext } from './pod-security-context-validation.js';
import { validateHostAliases, validateOverhead, validatePodDNSConfig, validatePodOS } from './pod-misc-validation.js';

const INT32_MAX = 2147483647;

/** One Invalid error per message of a name validator, as upstream's `for _, msg := range Validate…Name` loops. */
function nameErrors(value: string, path: string, check: (v: string) => string[]): FieldError[] {
  return check(value).map((msg) => fe.invalid(path, value, msg));
}

/** An enum field: Required when empty, else Unsupported unless one of `valid` (upstream's own value order). */
function enumField(value: unknown, path: string, valid: string[]): FieldError[] {
  const v = str(value);
  if (v === '') return [fe.required(path)];
  return valid.includes(v) ? [] : [fe.notSupported(path, v, valid)];
}

/** validatePodHostNetworkDeps: with hostNetwork a set host port must equal the container port (Pods default it to it). */
function validateHostNetworkPorts(s: JsonObject, path: string): FieldError[] {
  if (s.hostNetwork !== true) return [];
  const errs: FieldError[] = [];
  list(s.containers).forEach((c, i) => {
    list(obj(c).ports).forEach((p, j) => {
      const hp = num(obj(p).hostPort);
      if (hp !== 0 && hp !== num(obj(p).containerPort)) {
        errs.push(fe.invalid(`${path}.containers[${i}].ports[${j}].hostPort`, hp, 'must match `containerPort` when `hostNetwork` is true'));
      }
    });
  });
  return errs;
}

/** validateReadinessGates: each condition type is a qualified name. */
function validateReadinessGates(gates: unknown, path: string): FieldError[] {
  return list(gates).flatMap((g, i) => validateLabelName(str(obj(g).conditionType), at(`${path}[${i}].conditionType`)));
}

/** validateSchedulingGates: qualified names, no duplicates (the error is on the entry itself, not its name). */
function validateSchedulingGates(gates: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  list(gates).forEach((g, i) => {
    const name = str(obj(g).name);
    errs.push(...validateLabelName(name, at(`${path}[${i}]`)));
    if (seen.has(name)) errs.push(fe.duplicate(`${path}[${i}]`, name));
    seen.add(name);
  });
  return errs;
}

/** validateTopologySpreadConstraints, per constraint in upstream's order. */
function validateTopologySpreadConstraints(constraints: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const all = list(constraints).map(obj);
  all.forEach((c, i) => {
    const p = `${path}[${i}]`;
    const when = str(c.whenUnsatisfiable);
    if (num(c.maxSkew) <= 0) errs.push(fe.invalid(`${p}.maxSkew`, num(c.maxSkew), 'must be greater than zero'));
    if (str(c.topologyKey) === '') errs.push(fe.required(`${p}.topologyKey`, 'can not be empty'));
    if (!['DoNotSchedule', 'ScheduleAnyway'].includes(when)) errs.push(fe.notSupported(`${p}.whenUnsatisfiable`, when, ['DoNotSchedule', 'ScheduleAnyway']));
    // {topologyKey, whenUnsatisfiable} identifies a constraint: the earlier of two equal ones is reported.
    if (all.slice(i + 1).some((o) => str(o.topologyKey) === str(c.topologyKey) && str(o.whenUnsatisfiable) === when)) {
      errs.push(fe.duplicate(`${p}.{topologyKey, whenUnsatisfiable}`, `{${str(c.topologyKey)}, ${when}}`));
    }
    if (isSet(c.minDomains)) {
      const min = num(c.minDomains);
      if (min <= 0) errs.push(fe.invalid(`${p}.minDomains`, min, 'must be greater than zero'));
      if (when !== 'DoNotSchedule') errs.push(fe.invalid(`${p}.minDomains`, min, `can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${when}`));
    }
    for (const policy of ['nodeAffinityPolicy', 'nodeTaintsPolicy']) {
      if (isSet(c[policy]) && !['Honor', 'Ignore'].includes(str(c[policy]))) errs.push(fe.notSupported(`${p}.${policy}`, str(c[policy]), ['Honor', 'Ignore']));
    }
    errs.push(...validateSpreadMatchLabelKeys(c.matchLabelKeys, c.labelSelector, `${p}.matchLabelKeys`));
    errs.push(...validateLabelSelector(c.labelSelector, at(`${p}.labelSelector`)));
  });
  return errs;
}

/** validateMatchLabelKeysInTopologySpread: label names, needing a selector, not repeating one of its keys. */
function validateSpreadMatchLabelKeys(keys: unknown, selector: unknown, path: string): FieldError[] {
  const ks = list(keys);
  if (ks.length === 0) return [];
  const errs: FieldError[] = [];
  const selectorKeys = new Set<string>();
  if (isPlainObject(selector)) {
    for (const k of Object.keys(obj(selector.matchLabels))) selectorKeys.add(k);
    for (const e of list(selector.matchExpressions)) selectorKeys.add(str(obj(e).key));
  } else errs.push(fe.forbidden(path, 'must not be specified when labelSelector is not set'));
  ks.forEach((k, i) => {
    errs.push(...validateLabelName(str(k), at(`${path}[${i}]`)));
    if (selectorKeys.has(str(k))) errs.push(fe.invalid(`${path}[${i}]`, str(k), 'exists in both matchLabelKeys and labelSelector'));
  });
  return errs;
}

/** ValidateTolerations: key a label name; empty key needs Exists; tolerationSeconds needs NoExecute; operator/value/effect. */
export function validateTolerations(tolerations: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  list(tolerations).forEach((raw, i) => {
    const t = obj(raw);
    const p = `${path}[${i}]`;
    const key = str(t.key);
    const op = str(t.operator);
    const value = str(t.value);
    const effect = str(t.effect);
    if (key) errs.push(...validateLabelName(key, at(`${p}.key`)));
    if (!key && op !== 'Exists') errs.push(fe.invalid(`${p}.operator`, op, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    if (isSet(t.tolerationSeconds) && effect !== 'NoExecute') errs.push(fe.invalid(`${p}.effect`, effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    if (op === 'Equal' || op === '') {
      // Upstream reports a bad value at `operator`, all messages joined with ";".
      const msgs = isValidLabelValue(value);
      if (msgs.length) errs.push(fe.invalid(`${p}.operator`, value, msgs.join(';')));
    } else if (op === 'Exists') {
      if (value) errs.push(fe.invalid(`${p}.operator`, value, "value must be empty when `operator` is 'Exists'"));
    } else errs.push(fe.notSupported(`${p}.operator`, op, ['Equal', 'Exists']));
    if (effect && !['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(effect)) {
      errs.push(fe.notSupported(`${p}.effect`, effect, ['NoSchedule', 'PreferNoSchedule', 'NoExecute']));
    }
  });
  return errs;
}

/**
 * Every check of ValidatePodSpec that follows the containers, in its order, for the (defaulted) spec `s` at `path`.
 * Not checked here: ephemeral containers, pod-level resources, resource claims, overhead resource names.
 */
export function validatePodLevelFields(s: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [...validateHostNetworkPorts(s, path)];
  errs.push(...enumField(s.restartPolicy, `${path}.restartPolicy`, ['Always', 'OnFailure', 'Never']));
  errs.push(...enumField(s.dnsPolicy, `${path}.dnsPolicy`, ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None']));
  errs.push(...validateLabels(obj(s.nodeSelector) as Record<string, string>, at(`${path}.nodeSelector`)));
  errs.push(...validatePodSecurityContext(s, path));
  // imagePullSecrets: upstream rejects entries with fields besides `name`, but v1 has no other field to set.
  if (isPlainObject(s.affinity)) {
    const a = s.affinity;
    if (isPlainObject(a.nodeAffinity)) errs.push(...validateNodeAffinity(a.nodeAffinity, `${path}.affinity.nodeAffinity`));
    if (isPlainObject(a.podAffinity)) errs.push(...validatePodAffinity(a.podAffinity, `${path}.affinity.podAffinity`));
    if (isPlainObject(a.podAntiAffinity)) errs.push(...validatePodAffinity(a.podAntiAffinity, `${path}.affinity.podAntiAffinity`));
  }
  errs.push(...validatePodDNSConfig(s.dnsConfig, str(s.dnsPolicy), `${path}.dnsConfig`));
  errs.push(...validateReadinessGates(s.readinessGates, `${path}.readinessGates`));
  errs.push(...validateSchedulingGates(s.schedulingGates, `${path}.schedulingGates`));
  errs.push(...validateTopologySpreadConstraints(s.topologySpreadConstraints, `${path}.topologySpreadConstraints`));
  errs.push(...validateWindowsHostProcessPod(s, path));
  if (str(s.serviceAccountName)) errs.push(...nameErrors(str(s.serviceAccountName), `${path}.serviceAccountName`, isDNS1123Subdomain));
  if (str(s.nodeName)) errs.push(...nameErrors(str(s.nodeName), `${path}.nodeName`, isDNS1123Subdomain));
  if (isSet(s.activeDeadlineSeconds)) {
    const v = num(s.activeDeadlineSeconds);
    if (v < 1 || v > INT32_MAX) errs.push(fe.invalid(`${path}.activeDeadlineSeconds`, v, `must be between 1 and ${INT32_MAX}, inclusive`));
  }
  if (str(s.hostname)) errs.push(...nameErrors(str(s.hostname), `${path}.hostname`, isDNS1123Label));
  if (str(s.subdomain)) errs.push(...nameErrors(str(s.subdomain), `${path}.subdomain`, isDNS1123Label));
  errs.push(...validateTolerations(s.tolerations, `${path}.tolerations`));
  errs.push(...validateHostAliases(s.hostAliases, `${path}.hostAliases`));
  if (str(s.priorityClassName)) errs.push(...nameErrors(str(s.priorityClassName), `${path}.priorityClassName`, isDNS1123Subdomain));
  if (isSet(s.runtimeClassName)) errs.push(...nameErrors(str(s.runtimeClassName), `${path}.runtimeClassName`, isDNS1123Subdomain));
  if (isSet(s.preemptionPolicy)) errs.push(...enumField(s.preemptionPolicy, `${path}.preemptionPolicy`, ['PreemptLowerPriority', 'Never']));
  if (isSet(s.overhead)) errs.push(...validateOverhead(s.overhead, `${path}.overhead`));
  if (isSet(s.os)) errs.push(...validatePodOS(s, path));
  return errs;
}
