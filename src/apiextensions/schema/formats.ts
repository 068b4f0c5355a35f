/**
 * The string formats a CRD schema can validate (apiextensions-apiserver validation/formats.go: every other format is
 * stripped before validation, including int32/int64/float/double, which therefore check nothing). Checks follow
 * kube-openapi strfmt. Names are normalised as go-openapi does: `date-time` and `datetime` are the same format.
 */
const uuid = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const uuid3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const uuid4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const uuid5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const hostname =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;
const email = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+$/;
const fullDate = /^(\d{4})-(\d{2})-(\d{2})$/;
const dateTime = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?$/;
const mac = /^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$|^([0-9a-fA-F]{2}[:-]){7}[0-9a-fA-F]{2}$|^([0-9a-fA-F]{4}\.){2}[0-9a-fA-F]{4}$/;
const hexColor = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const rgbColor = /^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$/;
const ssn = /^\d{3}[- ]?\d{2}[- ]?\d{4}$/;
const bsonObjectId = /^[0-9a-fA-F]{24}$/;
const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const goDuration = /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$|^0$/;
const scalaDuration = /^(\d+)\s*(ns|us|µs|ms|s|m|h|d|w|nanoseconds?|microseconds?|milliseconds?|seconds?|minutes?|hours?|days?|weeks?)$/;
const creditCard =
  /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/;

function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const days = [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
  return d <= days;
}

function isIPv4(s: string): boolean {
  const parts = s.split('.');
  return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255);
}

function isIPv6(s: string): boolean {
  if (s.includes('.')) {
    const i = s.lastIndexOf(':');
    if (i < 0 || !isIPv4(s.slice(i + 1))) return false;
    s = `${s.slice(0, i)}:0:0`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return false;
  const groups = (h: string) => (h === '' ? [] : h.split(':'));
  const all = halves.flatMap(groups);
  if (!all.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return false;
  return halves.length === 2 ? all.length < 8 : all.length === 8;
}

function isISBN10(s: string): boolean {
  const d = s.replace(/[\s-]/g, '');
  if (!/^\d{9}[\dX]$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 10; i++) sum += (d[i] === 'X' ? 10 : Number(d[i])) * (10 - i);
  return sum % 11 === 0;
}

function isISBN13(s: string): boolean {
  const d = s.replace(/[\s-]/g, '');
  if (!/^\d{13}$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 13; i++) sum += Number(d[i]) * (i % 2 === 0 ? 1 : 3);
  return sum % 10 === 0;
}

function isURI(s: string): boolean {
  // Go's url.ParseRequestURI: an absolute URI or an absolute path, no fragment handling beyond that.
  if (s.startsWith('/')) return !/\s/.test(s);
  return /^[a-zA-Z][a-zA-Z0-9+.-]*:[^\s]*$/.test(s);
}

const checks: Record<string, (s: string) => boolean> = {
  bsonobjectid: (s) => bsonObjectId.test(s),
  uri: isURI,
  email: (s) => email.test(s),
  hostname: (s) => s.length <= 255 && hostname.test(s),
  ipv4: isIPv4,
  ipv6: isIPv6,
  cidr: (s) => {
    const [ip, bits, extra] = s.split('/');
    if (extra !== undefined || bits === undefined || !/^\d{1,3}$/.test(bits)) return false;
    if (isIPv4(ip!)) return Number(bits) <= 32;
    return isIPv6(ip!) && Number(bits) <= 128;
  },
  mac: (s) => mac.test(s),
  uuid: (s) => uuid.test(s),
  uuid3: (s) => uuid3.test(s),
  uuid4: (s) => uuid4.test(s),
  uuid5: (s) => uuid5.test(s),
  isbn: (s) => isISBN10(s) || isISBN13(s),
  isbn10: isISBN10,
  isbn13: isISBN13,
  creditcard: (s) => creditCard.test(s.replace(/\D/g, '')),
  ssn: (s) => ssn.test(s),
  hexcolor: (s) => hexColor.test(s),
  rgbcolor: (s) => rgbColor.test(s),
  byte: (s) => base64.test(s.replace(/\s/g, '')),
  password: () => true,
  date: (s) => {
    const m = fullDate.exec(s);
    return m !== null && validDate(Number(m[1]), Number(m[2]), Number(m[3]));
  },
  duration: (s) => goDuration.test(s) || scalaDuration.test(s),
  datetime: (s) => {
    const m = dateTime.exec(s);
    if (!m || !validDate(Number(m[1]), Number(m[2]), Number(m[3]))) return false;
    return Number(m[4]) <= 23 && Number(m[5]) <= 59 && Number(m[6]) <= 60;
  },
};

/** The normalised name of a format Kubernetes validates, or undefined when the format is ignored. */
export function supportedFormat(format: string | undefined): string | undefined {
  if (!format) return undefined;
  const normalized = format.replace(/-/g, '');
  return normalized in checks ? normalized : undefined;
}

/** Whether `value` is valid for the supported (normalised) format `format`. */
export function checkFormat(format: string, value: string): boolean {
  return checks[format]?.(value) ?? true;
}
