/**
 * Network-value validators with the exact messages of k8s.io/apimachinery pkg/util/validation (IPs, CIDRs, port
 * numbers and names, fully qualified domain names) and of kube-apiserver's ValidateNonSpecialIP. IP addresses are
 * parsed as netutils.ParseIPSloppy does: dotted-quad IPv4 (leading zeros allowed) or any IPv6 form, including
 * IPv4-mapped addresses, which are then treated as their IPv4 address.
 */
import { type FieldError, invalid, required } from '../field-errors.js';
import { isDNS1123Label, isDNS1123Subdomain, maxLenError } from './names.js';

/** An address as 4 (IPv4) or 16 (IPv6) bytes, or undefined when it is not an IP. */
export function parseIP(value: string): number[] | undefined {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(value)) {
    const parts = value.split('.').map(Number);
    return parts.every((p) => p <= 255) ? parts : undefined;
  }
  if (!value.includes(':')) return undefined;
  return parseIPv6(value);
}

function parseIPv6(value: string): number[] | undefined {
  let text = value;
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    const v4 = parseIP(text.slice(lastColon + 1));
    if (!v4 || v4.length !== 4) return undefined;
    tail = v4;
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (s: string): number[] | undefined => {
    if (s === '') return [];
    const out: number[] = [];
    for (const g of s.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  if (!head || !rest) return undefined;
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const words = [...head, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...rest];
  const bytes = words.flatMap((w) => [w >> 8, w & 255]);
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** The IPv4 bytes of an IPv4 or IPv4-mapped IPv6 address (Go's To4), else undefined. */
function to4(ip: number[]): number[] | undefined {
  if (ip.length === 4) return ip;
  const mapped = ip.slice(0, 10).every((b) => b === 0) && ip[10] === 255 && ip[11] === 255;
  return mapped ? ip.slice(12) : undefined;
}

/** validation.IsValidIP. */
export function validateIP(value: string, path: string): FieldError[] {
  return parseIP(value) ? [] : [invalid(path, value, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')];
}

/** validation.IsValidIPv4Address. */
export function validateIPv4Address(value: string, path: string): FieldError[] {
  const ip = parseIP(value);
  return ip && to4(ip) ? [] : [invalid(path, value, 'must be a valid IPv4 address')];
}

/** validation.IsValidIPv6Address. */
export function validateIPv6Address(value: string, path: string): FieldError[] {
  const ip = parseIP(value);
  return ip && !to4(ip) ? [] : [invalid(path, value, 'must be a valid IPv6 address')];
}

/** Parses `ip/prefix` as netutils.ParseCIDRSloppy; returns the address bytes and prefix length. */
export function parseCIDR(value: string): { ip: number[]; bits: number } | undefined {
  const slash = value.indexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIP(value.slice(0, slash));
  const prefix = value.slice(slash + 1);
  if (!ip || !/^\d{1,3}$/.test(prefix)) return undefined;
  const bits = Number(prefix);
  return bits <= ip.length * 8 ? { ip, bits } : undefined;
}

/** validation.IsValidCIDR. */
export function validateCIDR(value: string, path: string): FieldError[] {
  return parseCIDR(value) ? [] : [invalid(path, value, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)')];
}

/** Whether `inner` is a strictly smaller sub-range of `outer` (NetworkPolicy ipBlock.except). */
export function cidrStrictlyContains(outer: { ip: number[]; bits: number }, inner: { ip: number[]; bits: number }): boolean {
  if (outer.ip.length !== inner.ip.length || outer.bits >= inner.bits) return false;
  for (let bit = 0; bit < outer.bits; bit++) {
    const mask = 0x80 >> bit % 8;
    if ((outer.ip[bit >> 3]! & mask) !== (inner.ip[bit >> 3]! & mask)) return false;
  }
  return true;
}

/** ValidateNonSpecialIP (Endpoints, EndpointSlices): not unspecified, loopback or link-local. */
export function validateNonSpecialIP(value: string, path: string): FieldError[] {
  const parsed = parseIP(value);
  if (!parsed) return [invalid(path, value, 'must be a valid IP address')];
  const v4 = to4(parsed);
  const errs: FieldError[] = [];
  const is = (test4: (b: number[]) => boolean, test6: (b: number[]) => boolean): boolean => (v4 ? test4(v4) : test6(parsed));
  if (is((b) => b.every((x) => x === 0), (b) => b.every((x) => x === 0))) errs.push(invalid(path, value, `may not be unspecified (${value})`));
  if (is((b) => b[0] === 127, (b) => b.slice(0, 15).every((x) => x === 0) && b[15] === 1)) {
    errs.push(invalid(path, value, 'may not be in the loopback range (127.0.0.0/8, ::1/128)'));
  }
  if (is((b) => b[0] === 169 && b[1] === 254, (b) => b[0] === 0xfe && (b[1]! & 0xc0) === 0x80)) {
    errs.push(invalid(path, value, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'));
  }
  if (is((b) => b[0] === 224 && b[1] === 0 && b[2] === 0, (b) => b[0] === 0xff && (b[1]! & 0x0f) === 0x02)) {
    errs.push(invalid(path, value, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'));
  }
  return errs;
}

/** validation.IsValidPortNum: 1-65535. */
export function isValidPortNum(port: unknown): string[] {
  return typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : ['must be between 1 and 65535, inclusive'];
}

/** validation.IsValidPortName: an IANA_SVC_NAME (at most 15 lower-case alphanumerics and '-', with a letter). */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (port.length > 15) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(port)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens');
  if (port.length > 0 && (port.startsWith('-') || port.endsWith('-'))) errs.push('must not begin or end with a hyphen');
  return errs;
}

/** validation.IsFullyQualifiedDomainName (EndpointSlice FQDN addresses). */
export function validateFullyQualifiedDomainName(value: string, path: string): FieldError[] {
  if (value.length === 0) return [required(path)];
  const name = value.endsWith('.') ? value.slice(0, -1) : value;
  const subdomain = isDNS1123Subdomain(name);
  if (subdomain.length) return [invalid(path, name, subdomain.join(','))];
  const labels = name.split('.');
  if (labels.length < 2) return [invalid(path, name, 'should be a domain with at least two segments separated by dots')];
  for (const label of labels) {
    const errs = isDNS1123Label(label);
    if (errs.length) return [invalid(path, label, errs.join(','))];
  }
  return [];
}
