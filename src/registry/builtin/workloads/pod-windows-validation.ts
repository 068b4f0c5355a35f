/**
 * Windows security options and host-process pods, as kube-apiserver 1.32 validates them
 * (validateWindowsSecurityContextOptions, validateWindowsHostProcessPod), with upstream's messages. The reference
 * kube-apiserver runs with --allow-privileged=true and atrium has no such policy, so host-process containers are
 * never "disallowed by cluster policy" here.
 */
import * as fe from '../../../apimachinery/field-errors.js';
import type { FieldError } from '../../../apimachinery/field-errors.js';
import { type JsonObject, isPlainObject } from '../../../apimachinery/object.js';
import { isDNS1123Subdomain } from '../../../apimachinery/validation/names.js';
import { isSet, list, obj, str } from './pod-validation-helpers.js';

const MAX_CREDENTIAL_SPEC_KIB = 64;
const MAX_DOMAIN_LENGTH = 256;
const MAX_USER_LENGTH = 104;
// A NetBIOS domain: 1-15 characters, none of \ / : * ? " < > |, not starting with a dot.
const netBiosDomain = /^[^\\/:*?"<>|.][^\\/:*?"<>|]{0,14}$/;
// A DNS domain: dot-separated labels of letters, digits and inner dashes (either case).
const dnsDomain = /^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
// eslint-disable-next-line no-control-regex
const controlChars = /[\x00-\x1f\x7f]/;
const badUserChars = /["/\\:;|=,+*?<>@[\]]/;
const onlyDotsOrSpaces = /^[. ]+$/;

/** The problems of a runAsUserName (`DOMAIN\user` or `user`), in upstream's order. */
function runAsUserNameErrors(name: string): string[] {
  if (name.length === 0) return ['runAsUserName cannot be an empty string'];
  if (controlChars.test(name)) return ['runAsUserName cannot contain control characters'];
  const parts = name.split('\\');
  if (parts.length > 2) return ['runAsUserName cannot contain more than one backslash'];
  const [domain, user] = parts.length === 1 ? ['', parts[0]!] : [parts[0]!, parts[1]!];
  const msgs: string[] = [];
  if (domain.length >= MAX_DOMAIN_LENGTH) msgs.push(`runAsUserName's Domain length must be under ${MAX_DOMAIN_LENGTH} characters`);
  if (parts.length === 2 && !netBiosDomain.test(domain) && !dnsDomain.test(domain)) msgs.push("runAsUserName's Domain doesn't match the NetBios nor the DNS format");
  if (user.length === 0) msgs.push("runAsUserName's User cannot be empty");
  else if (user.length > MAX_USER_LENGTH) msgs.push(`runAsUserName's User length must not be longer than ${MAX_USER_LENGTH} characters`);
  if (onlyDotsOrSpaces.test(user)) msgs.push("runAsUserName's User cannot contain only periods or spaces");
  if (badUserChars.test(user)) msgs.push('runAsUserName\'s User cannot contain the following characters: "/\\:;|=,+*?<>@[]');
  return msgs;
}

/** validateWindowsSecurityContextOptions for the options at `path` (a pod's or a container's). */
export function validateWindowsOptions(options: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (isSet(options.gmsaCredentialSpecName)) {
    const name = str(options.gmsaCredentialSpecName);
    errs.push(...isDNS1123Subdomain(name).map((m) => fe.invalid(`${path}.gmsaCredentialSpecName`, name, m)));
  }
  if (isSet(options.gmsaCredentialSpec)) {
    const spec = str(options.gmsaCredentialSpec);
    if (spec.length === 0) errs.push(fe.invalid(`${path}.gmsaCredentialSpec`, spec, 'gmsaCredentialSpec cannot be an empty string'));
    else if (Buffer.byteLength(spec) > MAX_CREDENTIAL_SPEC_KIB * 1024) {
      errs.push(fe.invalid(`${path}.gmsaCredentialSpec`, spec, `gmsaCredentialSpec size must be under ${MAX_CREDENTIAL_SPEC_KIB} KiB`));
    }
  }
  if (isSet(options.runAsUserName)) {
    const name = str(options.runAsUserName);
    errs.push(...runAsUserNameErrors(name).map((m) => fe.invalid(`${path}.runAsUserName`, name, m)));
  }
  return errs;
}

/** The hostProcess a container sets, if any. */
const hostProcessOf = (sc: unknown): boolean | undefined => {
  const v = obj(obj(sc).windowsOptions).hostProcess;
  return typeof v === 'boolean' ? v : undefined;
};

/**
 * validateWindowsHostProcessPod: pod and container hostProcess settings agree, and a pod with any host-process
 * container has only such containers and uses the host network.
 */
export function validateWindowsHostProcessPod(spec: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const podHostProcess = hostProcessOf(spec.securityContext);
  let containers = 0;
  let hostProcessContainers = 0;
  const visit = (key: string): void => {
    list(spec[key]).forEach((raw, i) => {
      containers++;
      const c = obj(raw);
      const own = isPlainObject(c.securityContext) ? hostProcessOf(c.securityContext) : undefined;
      if (podHostProcess !== undefined && own !== undefined && podHostProcess !== own) {
        errs.push(fe.invalid(`${path}.${key}[${i}].securityContext.windowsOptions.hostProcess`, own, `pod hostProcess value must be identical if both are specified, was ${podHostProcess}`));
      }
      if (own === true || (own === undefined && podHostProcess === true)) hostProcessContainers++;
    });
  };
  // Upstream's visiting order: init containers, containers, ephemeral containers.
  for (const key of ['initContainers', 'containers', 'ephemeralContainers']) visit(key);
  if (hostProcessContainers > 0) {
    if (hostProcessContainers !== containers) errs.push(fe.invalid(path, '', 'If pod contains any hostProcess containers then all containers must be HostProcess containers'));
    if (spec.hostNetwork !== true) errs.push(fe.invalid(`${path}.hostNetwork`, false, 'hostNetwork must be true if pod contains any hostProcess containers'));
  }
  return errs;
}
