/**
 * Name and key validators with the exact messages of k8s.io/apimachinery pkg/util/validation
 * (validation.go), pkg/api/validation/path (name.go) and pkg/api/validation (generic.go).
 *
 * Every `is*` function returns a list of problem texts, empty when the value is fine. They never
 * stop at the first problem, because the API server reports all of them (e.g. a name that is both
 * too long and badly formed gets two messages). Lengths are counted in UTF-8 bytes, as Go's len() does.
 */

export const DNS1123_LABEL_MAX_LENGTH = 63;
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
export const DNS1035_LABEL_MAX_LENGTH = 63;
export const QUALIFIED_NAME_MAX_LENGTH = 63;
export const LABEL_VALUE_MAX_LENGTH = 63;

// The regex sources are part of the messages, so they are kept in the exact upstream spelling.
const qnameCharFmt = '[A-Za-z0-9]';
const qnameExtCharFmt = '[-A-Za-z0-9_.]';
const qualifiedNameFmt = `(${qnameCharFmt}${qnameExtCharFmt}*)?${qnameCharFmt}`;
const qualifiedNameErrMsg =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueFmt = `(${qualifiedNameFmt})?`;
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123LabelErrMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainErrMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035LabelErrMsg =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const configMapKeyFmt = '[-._a-zA-Z0-9]+';
const configMapKeyErrMsg = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";

const anchored = (fmt: string): RegExp => new RegExp(`^(?:${fmt})$`);
const qualifiedNameRegexp = anchored(qualifiedNameFmt);
const labelValueRegexp = anchored(labelValueFmt);
const dns1123LabelRegexp = anchored(dns1123LabelFmt);
const dns1123SubdomainRegexp = anchored(dns1123SubdomainFmt);
const dns1035LabelRegexp = anchored(dns1035LabelFmt);
const configMapKeyRegexp = anchored(configMapKeyFmt);

/** Length as Go's len(string): UTF-8 bytes, not UTF-16 code units. */
export function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** `must be no more than N characters` (upstream says characters although it counts bytes). */
export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

/** `must be non-empty`. */
export function emptyError(): string {
  return 'must be non-empty';
}

/**
 * A regex failure explained the upstream way:
 * `msg (e.g. 'a',  or 'b', regex used for validation is 'fmt')`. The doubled space after each
 * comma between examples is part of the upstream text and clients may match it.
 */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  let s = `${msg} (e.g. `;
  examples.forEach((ex, i) => {
    if (i > 0) s += ' or ';
    s += `'${ex}', `;
  });
  return `${s}regex used for validation is '${fmt}')`;
}

/**
 * A qualified name: an optional DNS-1123 subdomain prefix and '/', then a name part of at most 63
 * alphanumerics, '-', '_' or '.' that starts and ends alphanumeric. Used for label keys, annotation
 * keys (lower-cased first) and finalizers. More than one '/' yields the single "a qualified name ..."
 * message; otherwise prefix and name problems are all listed.
 */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`);
    else for (const m of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${m}`);
  } else {
    return [
      `a qualified name ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`);
  else if (byteLength(name) > QUALIFIED_NAME_MAX_LENGTH) errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX_LENGTH)}`);
  if (!qualifiedNameRegexp.test(name)) {
    errs.push(`name part ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

/** A label value: empty, or at most 63 alphanumerics, '-', '_' or '.' starting and ending alphanumeric. */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!labelValueRegexp.test(value)) errs.push(regexError(labelValueErrMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  return errs;
}

/**
 * A DNS-1123 label (namespaces): at most 63 lower-case alphanumerics or '-', starting and ending
 * alphanumeric. A value that would be a valid subdomain gets the shorter `must not contain dots`.
 */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!dns1123LabelRegexp.test(value)) {
    if (dns1123SubdomainRegexp.test(value)) errs.push('must not contain dots');
    else errs.push(regexError(dns1123LabelErrMsg, dns1123LabelFmt, 'my-name', '123-abc'));
  }
  return errs;
}

/** A DNS-1123 subdomain (most object names): at most 253 chars of dot-separated DNS-1123 labels. */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!dns1123SubdomainRegexp.test(value)) errs.push(regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, 'example.com'));
  return errs;
}

const wildcardDNS1123SubdomainFmt = `\\*\\.${dns1123SubdomainFmt}`;
const wildcardDNS1123SubdomainErrMsg =
  "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character";
const wildcardDNS1123SubdomainRegexp = anchored(wildcardDNS1123SubdomainFmt);

/** A wildcard DNS-1123 subdomain (Ingress hosts, TLS hosts): `*.` followed by a DNS-1123 subdomain. */
export function isWildcardDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!wildcardDNS1123SubdomainRegexp.test(value)) errs.push(regexError(wildcardDNS1123SubdomainErrMsg, wildcardDNS1123SubdomainFmt, '*.example.com'));
  return errs;
}

/** A DNS-1035 label: like a DNS-1123 label but must start with a letter. */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1035_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1035_LABEL_MAX_LENGTH));
  if (!dns1035LabelRegexp.test(value)) errs.push(regexError(dns1035LabelErrMsg, dns1035LabelFmt, 'my-name', 'abc-123'));
  return errs;
}

/** A ConfigMap/Secret data key: at most 253 of [-._a-zA-Z0-9], and not '.', '..' or starting with '..'. */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!configMapKeyRegexp.test(value)) errs.push(regexError(configMapKeyErrMsg, configMapKeyFmt, 'key.name', 'KEY_NAME', 'key-name'));
  if (value === '.') errs.push("must not be '.'");
  else if (value === '..') errs.push("must not be '..'");
  else if (value.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

/**
 * A name that is safe as one URL path segment (the weakest rule, used e.g. by RBAC objects):
 * not '.' or '..', and no '/' or '%'. '.' and '..' short-circuit; the two "contain" checks both report.
 */
export function isValidPathSegmentName(name: string): string[] {
  for (const illegal of ['.', '..']) if (name === illegal) return [`may not be '${illegal}'`];
  return isValidPathSegmentPrefix(name);
}

/** The generateName form of isValidPathSegmentName: only the '/' and '%' checks apply. */
export function isValidPathSegmentPrefix(name: string): string[] {
  const errs: string[] = [];
  for (const illegal of ['/', '%']) if (name.includes(illegal)) errs.push(`may not contain '${illegal}'`);
  return errs;
}

/**
 * Validates a name, or with `prefix` a generateName (whose random suffix is still to come). Returns
 * upstream messages; an empty name is not checked here (ObjectMeta validation reports it as required).
 */
export type NameValidator = (name: string, prefix: boolean) => string[];

/**
 * For prefixes, a trailing '-' is fine because a suffix follows. Upstream masks it by cutting the
 * last TWO characters and appending 'a'; we keep that quirk so the same generateNames pass or fail.
 */
function maskTrailingDash(name: string): string {
  if (name.length > 1 && name.endsWith('-')) return `${name.slice(0, name.length - 2)}a`;
  return name;
}

/** NameIsDNSSubdomain: the validator for most kinds (ConfigMap, Secret, Lease, CRDs, ...). */
export const nameIsDNSSubdomain: NameValidator = (name, prefix) => isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);

/** NameIsDNSLabel: the validator for Namespace names (and namespaces referenced by objects). */
export const nameIsDNSLabel: NameValidator = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);

/** NameIsDNS1035Label: used by Services. */
export const nameIsDNS1035Label: NameValidator = (name, prefix) => isDNS1035Label(prefix ? maskTrailingDash(name) : name);

/** ValidatePathSegmentName: the validator for RBAC roles and bindings. */
export const nameIsPathSegment: NameValidator = (name, prefix) => (prefix ? isValidPathSegmentPrefix(name) : isValidPathSegmentName(name));

/** ValidateNamespaceName is NameIsDNSLabel. */
export const validateNamespaceName: NameValidator = nameIsDNSLabel;

/** Picks a validator by the short names used in resource descriptors. */
export function nameValidatorFor(kind: 'subdomain' | 'label' | 'path' | 'dns1035'): NameValidator {
  switch (kind) {
    case 'subdomain':
      return nameIsDNSSubdomain;
    case 'label':
      return nameIsDNSLabel;
    case 'path':
      return nameIsPathSegment;
    case 'dns1035':
      return nameIsDNS1035Label;
  }
}
