/**
 * Smaller pod-level checks of kube-apiserver 1.32's ValidatePodSpec: dnsConfig (and dnsPolicy None needing it),
 * hostAliases, overhead quantities, and the pod OS with the fields a Linux or Windows pod may not set. Messages are
 * upstream's.
 */
import * as fe from '../../../apimachinery/field-errors.js';
import type { FieldError } from '../../../apimachinery/field-errors.js';
import { canonicalQuantity } from '../../../apimachinery/exact-quantity.js';
import { type JsonObject, isPlainObject } from '../../../apimachinery/object.js';
import { isQuantity, parseQuantity } from '../../../apimachinery/quantity.js';
import { isDNS1123Subdomain } from '../../../apimachinery/validation/names.js';
import { validateIP } from '../../../apimachinery/validation/network.js';
import { isSet, list, obj, str } from './pod-validation-helpers.js';

const MAX_NAMESERVERS = 3;
const MAX_SEARCH_PATHS = 32;
const MAX_SEARCH_CHARS = 2048;

/** How Go's %#v prints a []string, the value upstream shows for a too-long nameserver or search list. */
function goStrings(values: string[]): string {
  return `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
}

/** validatePodDNSConfig: with dnsPolicy None a config with a nameserver is required; then the config's limits. */
export function validatePodDNSConfig(config: unknown, dnsPolicy: string, path: string): FieldError[] {
  if (dnsPolicy === 'None') {
    if (!isPlainObject(config)) return [fe.required(path, 'must provide `dnsConfig` when `dnsPolicy` is None')];
    if (list(config.nameservers).length === 0) return [fe.required(`${path}.nameservers`, 'must provide at least one DNS nameserver when `dnsPolicy` is None')];
  }
  if (!isPlainObject(config)) return [];
  const errs: FieldError[] = [];
  const nameservers = list(config.nameservers).map(str);
  if (nameservers.length > MAX_NAMESERVERS) {
    errs.push({ ...fe.invalid(`${path}.nameservers`, nameservers, `must not have more than ${MAX_NAMESERVERS} nameservers`), renderedValue: goStrings(nameservers) });
  }
  nameservers.forEach((ns, i) => errs.push(...validateIP(ns, `${path}.nameservers[${i}]`)));
  const searches = list(config.searches).map(str);
  if (searches.length > MAX_SEARCH_PATHS) {
    errs.push({ ...fe.invalid(`${path}.searches`, searches, `must not have more than ${MAX_SEARCH_PATHS} search paths`), renderedValue: goStrings(searches) });
  }
  if (searches.join(' ').length > MAX_SEARCH_CHARS) {
    errs.push({ ...fe.invalid(`${path}.searches`, searches, `must not have more than ${MAX_SEARCH_CHARS} characters (including spaces) in the search list`), renderedValue: goStrings(searches) });
  }
  searches.forEach((s, i) => {
    // A fully qualified search domain's trailing dot is allowed.
    const trimmed = s.endsWith('.') ? s.slice(0, -1) : s;
    errs.push(...isDNS1123Subdomain(trimmed).map((m) => fe.invalid(`${path}.searches[${i}]`, trimmed, m)));
  });
  list(config.options).forEach((o, i) => {
    if (str(obj(o).name) === '') errs.push(fe.required(`${path}.options[${i}]`, 'must not be empty'));
  });
  return errs;
}

/** ValidateHostAliases: an IP and DNS-1123 subdomain host names. */
export function validateHostAliases(aliases: unknown, path: string): FieldError[] {
  return list(aliases).flatMap((raw, i) => {
    const a = obj(raw);
    return [
      ...validateIP(str(a.ip), `${path}[${i}].ip`),
      ...list(a.hostnames).flatMap((h, j) => isDNS1123Subdomain(str(h)).map((m) => fe.invalid(`${path}[${i}].hostnames[${j}]`, str(h), m))),
    ];
  });
}

/**
 * validateOverhead reuses the container limits check; of it only the sign of each quantity is checked here (resource
 * names and huge pages are not), reported at `overhead.limits[name]` as upstream's reuse makes it.
 */
export function validateOverhead(overhead: unknown, path: string): FieldError[] {
  return Object.entries(obj(overhead)).flatMap(([name, q]) =>
    (typeof q === 'string' || typeof q === 'number') && isQuantity(q) && parseQuantity(q) < 0
      ? [fe.invalid(`${path}.limits[${name}]`, canonicalQuantity(q), 'must be greater than or equal to 0')]
      : [],
  );
}

/** Every container of the spec with its path, in upstream's visiting order (init containers, then containers). */
function containersWithPaths(spec: JsonObject, path: string): [JsonObject, string][] {
  return [
    ...list(spec.initContainers).map((c, i): [JsonObject, string] => [obj(c), `${path}.initContainers[${i}]`]),
    ...list(spec.containers).map((c, i): [JsonObject, string] => [obj(c), `${path}.containers[${i}]`]),
    ...list(spec.ephemeralContainers).map((c, i): [JsonObject, string] => [obj(c), `${path}.ephemeralContainers[${i}]`]),
  ];
}

const WINDOWS = 'cannot be set for a windows pod';

/** validateWindows: the Linux-only pod and container fields a Windows pod may not set. */
function validateWindowsPod(spec: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const sc = obj(spec.securityContext);
  const scPath = `${path}.securityContext`;
  if (isPlainObject(spec.securityContext)) {
    const checks: [boolean, string][] = [
      [isSet(sc.appArmorProfile), `${scPath}.appArmorProfile`],
      [isSet(sc.seLinuxOptions), `${scPath}.seLinuxOptions`],
      [isSet(spec.hostUsers), `${path}.hostUsers`],
      [spec.hostPID === true, `${path}.hostPID`],
      [spec.hostIPC === true, `${path}.hostIPC`],
      [isSet(sc.seccompProfile), `${scPath}.seccompProfile`],
      [isSet(sc.fsGroup), `${scPath}.fsGroup`],
      [isSet(sc.fsGroupChangePolicy), `${scPath}.fsGroupChangePolicy`],
      [list(sc.sysctls).length > 0, `${scPath}.sysctls`],
      [isSet(spec.shareProcessNamespace), `${path}.shareProcessNamespace`],
      [isSet(sc.runAsUser), `${scPath}.runAsUser`],
      [isSet(sc.runAsGroup), `${scPath}.runAsGroup`],
      [isSet(sc.supplementalGroups), `${scPath}.supplementalGroups`],
      [isSet(sc.supplementalGroupsPolicy), `${scPath}.supplementalGroupsPolicy`],
      [isSet(sc.seLinuxChangePolicy), `${scPath}.seLinuxChangePolicy`],
    ];
    for (const [bad, p] of checks) if (bad) errs.push(fe.forbidden(p, WINDOWS));
  }
  for (const [c, cPath] of containersWithPaths(spec, path)) {
    if (!isPlainObject(c.securityContext)) continue;
    const csc = c.securityContext;
    for (const field of ['appArmorProfile', 'seLinuxOptions', 'seccompProfile', 'capabilities', 'readOnlyRootFilesystem', 'privileged', 'allowPrivilegeEscalation', 'procMount', 'runAsUser', 'runAsGroup']) {
      if (isSet(csc[field])) errs.push(fe.forbidden(`${cPath}.securityContext.${field}`, WINDOWS));
    }
  }
  return errs;
}

/** validateLinux: a Linux pod may not set Windows options, at pod or container level. */
function validateLinuxPod(spec: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const forbidden = 'windows options cannot be set for a linux pod';
  if (isSet(obj(spec.securityContext).windowsOptions)) errs.push(fe.forbidden(`${path}.securityContext.windowsOptions`, forbidden));
  for (const [c, cPath] of containersWithPaths(spec, path)) {
    if (isSet(obj(c.securityContext).windowsOptions)) errs.push(fe.forbidden(`${cPath}.securityContext.windowsOptions`, forbidden));
  }
  return errs;
}

/** validateOS, then the OS's own restrictions when the name is valid. */
export function validatePodOS(spec: JsonObject, path: string): FieldError[] {
  const name = str(obj(spec.os).name);
  if (name === '') return [fe.required(`${path}.os.name`, 'cannot be empty')];
  if (name === 'linux') return validateLinuxPod(spec, path);
  if (name === 'windows') return validateWindowsPod(spec, path);
  return [fe.notSupported(`${path}.os`, name, ['linux', 'windows'])];
}
