/**
 * A container's securityContext, validated as kube-apiserver 1.32's ValidateSecurityContext does, with its messages
 * and order. What 1.32 does not check by default is not checked here either:
 * - `privileged: true` is allowed (clusters run kube-apiserver with --allow-privileged=true; kind and kubeadm do);
 * - `procMount` is dropped before validation while the ProcMountType gate is off (its 1.32 default), so any value
 *   passes.
 * Two errors print the whole Go struct (`core.SecurityContext{...}`) with pointer addresses; we print the same shape,
 * with addresses of our own (upstream's differ on every request anyway).
 */
import * as fe from '../../../apimachinery/field-errors.js';
import type { FieldError } from '../../../apimachinery/field-errors.js';
import { type JsonObject, isPlainObject } from '../../../apimachinery/object.js';
import { isDNS1123Subdomain } from '../../../apimachinery/validation/names.js';
import { localDescendingPath } from './pod-spec-validation.js';

const present = (v: unknown): v is JsonObject => isPlainObject(v);
const isSet = (v: unknown): boolean => v !== undefined && v !== null;
const MAX_ID = 2147483647;

/** A Go pointer as %#v prints it: `(*T)(nil)` or `(*T)(0x…)`; the address only has to look like one. */
function goPointer(type: string, v: unknown, slot: number): string {
  return isSet(v) ? `(*${type})(0xc000${(0x10000 + slot * 8).toString(16)})` : `(*${type})(nil)`;
}

/** core.SecurityContext as %#v prints it, field by field in the struct's order. */
function renderSecurityContext(sc: JsonObject): string {
  const fields: [string, string, unknown][] = [
    ['Capabilities', 'core.Capabilities', sc.capabilities],
    ['Privileged', 'bool', sc.privileged],
    ['SELinuxOptions', 'core.SELinuxOptions', sc.seLinuxOptions],
    ['WindowsOptions', 'core.WindowsSecurityContextOptions', sc.windowsOptions],
    ['RunAsUser', 'int64', sc.runAsUser],
    ['RunAsGroup', 'int64', sc.runAsGroup],
    ['RunAsNonRoot', 'bool', sc.runAsNonRoot],
    ['ReadOnlyRootFilesystem', 'bool', sc.readOnlyRootFilesystem],
    ['AllowPrivilegeEscalation', 'bool', sc.allowPrivilegeEscalation],
    // Always nil: the ProcMountType gate (off in 1.32) drops it before validation.
    ['ProcMount', 'core.ProcMountType', undefined],
    ['SeccompProfile', 'core.SeccompProfile', sc.seccompProfile],
    ['AppArmorProfile', 'core.AppArmorProfile', sc.appArmorProfile],
  ];
  return `core.SecurityContext{${fields.map(([name, type, v], i) => `${name}:${goPointer(type, v, i)}`).join(', ')}}`;
}

const PROFILE_TYPES = ['Localhost', 'RuntimeDefault', 'Unconfined'];

/** validateSeccompProfileField: a known type; a localhost profile exactly when the type is Localhost. */
function seccompProfile(sp: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = typeof sp.type === 'string' ? sp.type : '';
  if (!type) errs.push(fe.required(`${path}.type`, 'type is required when seccompProfile is set'));
  else if (!PROFILE_TYPES.includes(type)) errs.push(fe.notSupported(`${path}.type`, type, PROFILE_TYPES));
  const profile = sp.localhostProfile;
  if (type === 'Localhost') {
    if (typeof profile !== 'string') errs.push(fe.required(`${path}.localhostProfile`, 'must be set when seccomp type is Localhost'));
    else errs.push(...localDescendingPath(profile, `${path}.localhostProfile`));
  } else if (isSet(profile)) {
    const rendered = `core.SeccompProfile{Type:${JSON.stringify(type)}, LocalhostProfile:${goPointer('string', profile, 0)}}`;
    errs.push({ ...fe.invalid(`${path}.localhostProfile`, sp, 'can only be set when seccomp type is Localhost'), renderedValue: rendered });
  }
  return errs;
}

/** ValidateAppArmorProfileField: a known type; a non-blank, unpadded localhost profile exactly when Localhost. */
function appArmorProfile(ap: JsonObject, path: string): FieldError[] {
  const type = typeof ap.type === 'string' ? ap.type : '';
  const profile = ap.localhostProfile;
  const at = `${path}.localhostProfile`;
  if (type === 'Localhost') {
    if (typeof profile !== 'string') return [fe.required(at, 'must be set when AppArmor type is Localhost')];
    const errs: FieldError[] = [];
    if (profile.trim() !== profile) errs.push(fe.invalid(at, profile, 'must not be padded with whitespace'));
    else if (profile === '') errs.push(fe.required(at, 'must be set when AppArmor type is Localhost'));
    if (Buffer.byteLength(profile) > 4095) errs.push(fe.tooLong(at, '', 4095));
    return errs;
  }
  if (type === 'RuntimeDefault' || type === 'Unconfined') return isSet(profile) ? [fe.invalid(at, profile, 'can only be set when AppArmor type is Localhost')] : [];
  if (!type) return [fe.required(`${path}.type`, 'type is required when appArmorProfile is set')];
  return [fe.notSupported(`${path}.type`, type, PROFILE_TYPES)];
}

/** validateWindowsSecurityContextOptions: the GMSA spec name and contents, and a well-formed DOMAIN\user name. */
function windowsOptions(wo: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof wo.gmsaCredentialSpecName === 'string') {
    for (const msg of isDNS1123Subdomain(wo.gmsaCredentialSpecName)) errs.push(fe.invalid(`${path}.gmsaCredentialSpecName`, wo.gmsaCredentialSpecName, msg));
  }
  if (typeof wo.gmsaCredentialSpec === 'string') {
    const spec = wo.gmsaCredentialSpec;
    if (spec.length === 0) errs.push(fe.invalid(`${path}.gmsaCredentialSpec`, spec, 'gmsaCredentialSpec cannot be an empty string'));
    else if (Buffer.byteLength(spec) > 64 * 1024) errs.push(fe.invalid(`${path}.gmsaCredentialSpec`, spec, 'gmsaCredentialSpec size must be under 64 KiB'));
  }
  if (typeof wo.runAsUserName === 'string') errs.push(...runAsUserName(wo.runAsUserName, `${path}.runAsUserName`));
  return errs;
}

/** The runAsUserName rules: no control characters, at most one backslash, a NetBIOS or DNS domain, a sane user. */
function runAsUserName(name: string, path: string): FieldError[] {
  const bad = (msg: string): FieldError => fe.invalid(path, name, msg);
  if (name.length === 0) return [bad('runAsUserName cannot be an empty string')];
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(name)) return [bad('runAsUserName cannot contain control characters')];
  const parts = name.split('\\');
  if (parts.length > 2) return [bad('runAsUserName cannot contain more than one backslash')];
  const [domain, user] = parts.length === 2 ? [parts[0]!, parts[1]!] : ['', parts[0]!];
  const errs: FieldError[] = [];
  if (domain.length >= 256) errs.push(bad("runAsUserName's Domain length must be under 256 characters"));
  const netBios = /^[^\\/:*?"<>|.][^\\/:*?"<>|]{0,14}$/;
  const label = '[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?';
  const dns = new RegExp(`^${label}(?:\\.${label})*$`);
  if (parts.length === 2 && !(netBios.test(domain) || dns.test(domain))) errs.push(bad("runAsUserName's Domain doesn't match the NetBios nor the DNS format"));
  if (user.length === 0) errs.push(bad("runAsUserName's User cannot be empty"));
  else if (user.length > 104) errs.push(bad("runAsUserName's User length must not be longer than 104 characters"));
  if (/^[. ]+$/.test(user)) errs.push(bad("runAsUserName's User cannot contain only periods or spaces"));
  if (/["/\\:;|=,+*?<>@[\]]/.test(user)) errs.push(bad('runAsUserName\'s User cannot contain the following characters: "/\\:;|=,+*?<>@[]'));
  return errs;
}

function idRange(v: unknown, path: string): FieldError[] {
  return typeof v === 'number' && (v < 0 || v > MAX_ID) ? [fe.invalid(path, v, `must be between 0 and ${MAX_ID}, inclusive`)] : [];
}

/** ValidateSecurityContext for a container, in upstream's order. */
export function validateSecurityContext(value: unknown, path: string): FieldError[] {
  if (!present(value)) return [];
  const sc = value;
  const errs = [...idRange(sc.runAsUser, `${path}.runAsUser`), ...idRange(sc.runAsGroup, `${path}.runAsGroup`)];
  if (present(sc.seccompProfile)) errs.push(...seccompProfile(sc.seccompProfile, `${path}.seccompProfile`));
  if (sc.allowPrivilegeEscalation === false) {
    const invalidCombination = (detail: string): FieldError => ({ ...fe.invalid(path, sc, detail), renderedValue: renderSecurityContext(sc) });
    if (sc.privileged === true) errs.push(invalidCombination('cannot set `allowPrivilegeEscalation` to false and `privileged` to true'));
    const add = present(sc.capabilities) && Array.isArray(sc.capabilities.add) ? sc.capabilities.add : [];
    for (const cap of add) if (cap === 'CAP_SYS_ADMIN') errs.push(invalidCombination('cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN'));
  }
  if (present(sc.windowsOptions)) errs.push(...windowsOptions(sc.windowsOptions, `${path}.windowsOptions`));
  if (present(sc.appArmorProfile)) errs.push(...appArmorProfile(sc.appArmorProfile, `${path}.appArmorProfile`));
  return errs;
}
