/**
 * The pod-level security context, as kube-apiserver 1.32's validatePodSpecSecurityContext checks it: user and group
 * ids in range, shareProcessNamespace against hostPID, sysctl names (and namespaced ones against host namespaces),
 * fsGroupChangePolicy, the seccomp profile, Windows options (pod-windows-validation.ts) and the AppArmor profile.
 *
 * In v1 hostNetwork, hostPID, hostIPC and shareProcessNamespace sit on the PodSpec; upstream's internal type keeps
 * them in the security context, which is why its messages name `securityContext.shareProcessNamespace`.
 */
import * as fe from '../../../apimachinery/field-errors.js';
import type { FieldError } from '../../../apimachinery/field-errors.js';
import { type JsonObject, isPlainObject } from '../../../apimachinery/object.js';
import { isSet, list, num, obj, str } from './pod-validation-helpers.js';
import { validateWindowsOptions } from './pod-windows-validation.js';

const ID_RANGE = 'must be between 0 and 2147483647, inclusive';
const validId = (v: number): boolean => Number.isInteger(v) && v >= 0 && v <= 2147483647;

const SYSCTL_MAX_LENGTH = 253;
const SYSCTL_SEGMENT = '[a-z0-9]([-_a-z0-9]*[a-z0-9])?';
const SYSCTL_FORMAT = `^(${SYSCTL_SEGMENT}[\\./])*${SYSCTL_SEGMENT}$`;
const sysctlRegexp = new RegExp(SYSCTL_FORMAT);

/** The kernel namespace a sysctl belongs to ("" when neither), after turning a `/`-separated name into dotted form. */
function sysctlNamespace(name: string): 'Net' | 'IPC' | '' {
  const sep = name.search(/[./]/);
  let n = sep >= 0 && name[sep] === '/' ? name.replace(/[./]/g, (c) => (c === '.' ? '/' : '.')) : name;
  const star = n.indexOf('*');
  if (star >= 0) n = n.slice(0, star);
  const ipcNames = ['kernel.sem', 'kernel.shmall', 'kernel.shmmax', 'kernel.shmmni', 'kernel.shm_rmid_forced', 'kernel.shm', 'kernel.msgmax', 'kernel.msgmnb', 'kernel.msgmni', 'kernel.msg'];
  if (ipcNames.includes(n)) return 'IPC';
  if (n.startsWith('net.')) return 'Net';
  if (n.startsWith('fs.mqueue.')) return 'IPC';
  return '';
}

function validateSysctls(spec: JsonObject, sysctls: unknown[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  sysctls.forEach((raw, i) => {
    const name = str(obj(raw).name);
    const p = `${path}[${i}].name`;
    if (name === '') errs.push(fe.required(p));
    else if (name.length > SYSCTL_MAX_LENGTH || !sysctlRegexp.test(name)) {
      errs.push(fe.invalid(p, name, `must have at most ${SYSCTL_MAX_LENGTH} characters and match regex ${SYSCTL_FORMAT}`));
    } else if (names.has(name)) errs.push(fe.duplicate(p, name));
    // A namespaced sysctl cannot be set in a namespace the pod shares with the host.
    const ns = sysctlNamespace(name);
    if (spec.hostNetwork === true && ns === 'Net') errs.push(fe.invalid(p, name, "may not be specified when 'hostNetwork' is true"));
    else if (spec.hostIPC === true && ns === 'IPC') errs.push(fe.invalid(p, name, "may not be specified when 'hostIPC' is true"));
    names.add(name);
  });
  return errs;
}

/** A path below the node's seccomp root: relative, without `..` elements. */
function localDescendingPath(target: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (target.startsWith('/')) errs.push(fe.invalid(path, target, 'must be a relative path'));
  if (target.split('/').includes('..')) errs.push(fe.invalid(path, target, "must not contain '..'"));
  return errs;
}

/** validateSeccompProfileField. */
export function validateSeccompProfile(sp: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(sp.type);
  if (type === '') errs.push(fe.required(`${path}.type`, 'type is required when seccompProfile is set'));
  else if (!['Localhost', 'RuntimeDefault', 'Unconfined'].includes(type)) errs.push(fe.notSupported(`${path}.type`, type, ['Localhost', 'RuntimeDefault', 'Unconfined']));
  if (type === 'Localhost') {
    if (!isSet(sp.localhostProfile)) errs.push(fe.required(`${path}.localhostProfile`, 'must be set when seccomp type is Localhost'));
    else errs.push(...localDescendingPath(str(sp.localhostProfile), `${path}.localhostProfile`));
  } else if (isSet(sp.localhostProfile)) {
    // Upstream prints the whole profile struct here.
    errs.push({ ...fe.invalid(`${path}.localhostProfile`, sp, 'can only be set when seccomp type is Localhost'), renderedValue: seccompGoValue(sp) });
  }
  return errs;
}

/**
 * How upstream prints the profile struct (`%#v`); its localhostProfile pointer shows as a memory address, which no
 * client can rely on, so a fixed one stands in for it.
 */
function seccompGoValue(sp: JsonObject): string {
  return `core.SeccompProfile{Type:${JSON.stringify(str(sp.type))}, LocalhostProfile:(*string)(0xc000000000)}`;
}

/** ValidateAppArmorProfileField. */
export function validateAppArmorProfile(p: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(p.type);
  if (type === 'Localhost') {
    if (!isSet(p.localhostProfile)) errs.push(fe.required(`${path}.localhostProfile`, 'must be set when AppArmor type is Localhost'));
    else {
      const profile = str(p.localhostProfile);
      if (profile.trim() !== profile) errs.push(fe.invalid(`${path}.localhostProfile`, profile, 'must not be padded with whitespace'));
      else if (profile === '') errs.push(fe.required(`${path}.localhostProfile`, 'must be set when AppArmor type is Localhost'));
      if (Buffer.byteLength(profile) > 4095) errs.push(fe.tooLong(`${path}.localhostProfile`, '', 4095));
    }
  } else if (type === 'RuntimeDefault' || type === 'Unconfined') {
    if (isSet(p.localhostProfile)) errs.push(fe.invalid(`${path}.localhostProfile`, str(p.localhostProfile), 'can only be set when AppArmor type is Localhost'));
  } else if (type === '') errs.push(fe.required(`${path}.type`, 'type is required when appArmorProfile is set'));
  else errs.push(fe.notSupported(`${path}.type`, type, ['Localhost', 'RuntimeDefault', 'Unconfined']));
  return errs;
}

/** validatePodSpecSecurityContext for the spec `spec` at `path` (the security context is `path.securityContext`). */
export function validatePodSecurityContext(spec: JsonObject, path: string): FieldError[] {
  if (!isPlainObject(spec.securityContext)) return [];
  const sc = spec.securityContext;
  const p = `${path}.securityContext`;
  const errs: FieldError[] = [];
  for (const field of ['fsGroup', 'runAsUser', 'runAsGroup']) {
    if (isSet(sc[field]) && !validId(num(sc[field]))) errs.push(fe.invalid(`${p}.${field}`, num(sc[field]), ID_RANGE));
  }
  list(sc.supplementalGroups).forEach((g, i) => {
    if (!validId(num(g))) errs.push(fe.invalid(`${p}.supplementalGroups[${i}]`, num(g), ID_RANGE));
  });
  if (spec.shareProcessNamespace === true && spec.hostPID === true) {
    errs.push(fe.invalid(`${p}.shareProcessNamespace`, true, 'ShareProcessNamespace and HostPID cannot both be enabled'));
  }
  const sysctls = list(sc.sysctls);
  if (sysctls.length) errs.push(...validateSysctls(spec, sysctls, `${p}.sysctls`));
  if (isSet(sc.fsGroupChangePolicy) && !['Always', 'OnRootMismatch'].includes(str(sc.fsGroupChangePolicy))) {
    errs.push(fe.notSupported(`${p}.fsGroupChangePolicy`, str(sc.fsGroupChangePolicy), ['Always', 'OnRootMismatch']));
  }
  if (isPlainObject(sc.seccompProfile)) errs.push(...validateSeccompProfile(sc.seccompProfile, `${p}.seccompProfile`));
  if (isPlainObject(sc.windowsOptions)) errs.push(...validateWindowsOptions(sc.windowsOptions, `${p}.windowsOptions`));
  if (isPlainObject(sc.appArmorProfile)) errs.push(...validateAppArmorProfile(sc.appArmorProfile, `${p}.appArmorProfile`));
  return errs;
}
