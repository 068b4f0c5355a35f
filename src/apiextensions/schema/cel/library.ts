/**
 * The Kubernetes CEL library functions that @marcbachmann/cel-js does not ship (k8s.io/apiserver pkg/cel/library):
 * list helpers (isSorted, sum, min, max, indexOf, lastIndexOf), regex find/findAll, string replace/charAt/reverse,
 * quantity(), url(), ip() and cidr(). Built-in already: lowerAscii, upperAscii, trim, split, join, indexOf,
 * lastIndexOf, substring, matches, timestamps, durations, optionals.
 */
import { type Environment, EvaluationError } from '@marcbachmann/cel-js';
import { compilePattern } from '../pattern.js';

type Scalar = bigint | number | string | boolean;

function compare(a: unknown, b: unknown): number {
  if ((typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number')) {
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof Quantity && b instanceof Quantity) return a.compareTo(b);
  throw new EvaluationError('no such overload');
}

function equal(a: unknown, b: unknown): boolean {
  try {
    return compare(a, b) === 0;
  } catch {
    return JSON.stringify(a, bigintReplacer) === JSON.stringify(b, bigintReplacer);
  }
}

const bigintReplacer = (_: string, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v);

function regex(pattern: string): RegExp {
  const c = compilePattern(pattern);
  if (!c.regex) throw new EvaluationError(`invalid regex: ${c.error}`);
  return new RegExp(c.regex.source, c.regex.flags.includes('g') ? c.regex.flags : c.regex.flags + 'g');
}

const binarySI: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const decimalSI: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };
const quantityPattern = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;

/** A resource.Quantity as CEL sees it. Values are held as float64, enough for comparisons and arithmetic in rules. */
export class Quantity {
  constructor(readonly value: number) {}
  static parse(s: string): Quantity | undefined {
    const m = quantityPattern.exec(s);
    if (!m) return undefined;
    const suffix = m[2] ?? '';
    const mult = binarySI[suffix] ?? decimalSI[suffix] ?? (/^[eE]/.test(suffix) ? 10 ** Number(suffix.slice(1)) : undefined);
    return mult === undefined ? undefined : new Quantity(Number(m[1]) * mult);
  }
  compareTo(o: Quantity): number {
    return this.value < o.value ? -1 : this.value > o.value ? 1 : 0;
  }
}

/** A parsed URL as returned by url(). */
export class KubeURL {
  constructor(readonly url: URL) {}
}

/** An IP address as returned by ip(). */
export class KubeIP {
  constructor(
    readonly text: string,
    readonly family: 4 | 6,
  ) {}
}

/** A CIDR as returned by cidr(). */
export class KubeCIDR {
  constructor(
    readonly ip: KubeIP,
    readonly prefix: number,
  ) {}
}

const ipv4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

function parseIP(s: string): KubeIP | undefined {
  if (ipv4.test(s)) return new KubeIP(s, 4);
  if (s.includes(':') && !s.includes('%') && ipv6Bytes(s)) return new KubeIP(s, 6);
  return undefined;
}

function ipv6Bytes(s: string): number[] | undefined {
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const part = (h: string) => (h === '' ? [] : h.split(':'));
  const head = part(halves[0]!);
  const tail = halves.length === 2 ? part(halves[1]!) : [];
  const groups = [...head, ...tail];
  if (!groups.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return undefined;
  if (halves.length === 1 ? groups.length !== 8 : groups.length > 7) return undefined;
  const fill = new Array(8 - groups.length).fill('0');
  return [...head, ...fill, ...tail].flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
}

function ipBytes(ip: KubeIP): number[] {
  return ip.family === 4 ? ip.text.split('.').map(Number) : ipv6Bytes(ip.text)!;
}

function parseCIDR(s: string): KubeCIDR | undefined {
  const [addr, bits, extra] = s.split('/');
  if (extra !== undefined || bits === undefined || !/^\d{1,3}$/.test(bits)) return undefined;
  const ip = parseIP(addr!);
  if (!ip || Number(bits) > (ip.family === 4 ? 32 : 128)) return undefined;
  return new KubeCIDR(ip, Number(bits));
}

function cidrContains(c: KubeCIDR, ip: KubeIP): boolean {
  if (c.ip.family !== ip.family) return false;
  const a = ipBytes(c.ip);
  const b = ipBytes(ip);
  for (let bit = 0; bit < c.prefix; bit++) {
    const byte = bit >> 3;
    const mask = 0x80 >> (bit & 7);
    if ((a[byte]! & mask) !== (b[byte]! & mask)) return false;
  }
  return true;
}

function sumOf(l: Scalar[]): Scalar {
  if (l.length === 0) return 0n;
  let acc: unknown = l[0];
  for (let i = 1; i < l.length; i++) {
    const v = l[i];
    if (typeof acc === 'bigint' && typeof v === 'bigint') acc = acc + v;
    else if (typeof acc === 'number' && typeof v === 'number') acc = acc + v;
    else throw new EvaluationError('no such overload');
  }
  return acc as Scalar;
}

function extreme(l: Scalar[], sign: 1 | -1): Scalar {
  if (l.length === 0) throw new EvaluationError('min/max on an empty list');
  let best = l[0]!;
  for (const v of l) if (compare(v, best) * sign > 0) best = v;
  return best;
}

/** Registers the Kubernetes library on `env`. Call once per environment. */
export function registerKubernetesLibrary(env: Environment): void {
  env
    .registerFunction('list<dyn>.isSorted(): bool', (l: unknown[]) => l.every((v, i) => i === 0 || compare(l[i - 1], v) <= 0))
    .registerFunction('list<dyn>.sum(): dyn', (l: Scalar[]) => sumOf(l))
    .registerFunction('list<dyn>.min(): dyn', (l: Scalar[]) => extreme(l, -1))
    .registerFunction('list<dyn>.max(): dyn', (l: Scalar[]) => extreme(l, 1))
    .registerFunction('list<dyn>.indexOf(dyn): int', (l: unknown[], v: unknown) => BigInt(l.findIndex((x) => equal(x, v))))
    .registerFunction('list<dyn>.lastIndexOf(dyn): int', (l: unknown[], v: unknown) => {
      for (let i = l.length - 1; i >= 0; i--) if (equal(l[i], v)) return BigInt(i);
      return -1n;
    })
    .registerFunction('string.find(string): string', (s: string, p: string) => regex(p).exec(s)?.[0] ?? '')
    .registerFunction('string.findAll(string): list<string>', (s: string, p: string) => [...s.matchAll(regex(p))].map((m) => m[0]))
    .registerFunction('string.findAll(string, int): list<string>', (s: string, p: string, n: bigint) => {
      const all = [...s.matchAll(regex(p))].map((m) => m[0]);
      return n < 0n ? all : all.slice(0, Number(n));
    })
    .registerFunction('string.replace(string, string): string', (s: string, a: string, b: string) => s.split(a).join(b))
    .registerFunction('string.replace(string, string, int): string', (s: string, a: string, b: string, n: bigint) => {
      if (n < 0n) return s.split(a).join(b);
      let out = s;
      let from = 0;
      for (let i = 0n; i < n; i++) {
        const at = out.indexOf(a, from);
        if (at < 0) break;
        out = out.slice(0, at) + b + out.slice(at + a.length);
        from = at + b.length;
      }
      return out;
    })
    .registerFunction('string.charAt(int): string', (s: string, i: bigint) => {
      const chars = [...s];
      if (i < 0n || i > BigInt(chars.length)) throw new EvaluationError(`index out of range: ${i}`);
      return chars[Number(i)] ?? '';
    })
    .registerFunction('string.reverse(): string', (s: string) => [...s].reverse().join(''))
    .registerType('Quantity', Quantity)
    .registerFunction('isQuantity(string): bool', (s: string) => Quantity.parse(s) !== undefined)
    .registerFunction('quantity(string): Quantity', (s: string) => {
      const q = Quantity.parse(s);
      if (!q) throw new EvaluationError('quantities must match the regular expression');
      return q;
    })
    .registerFunction('Quantity.isGreaterThan(Quantity): bool', (a: Quantity, b: Quantity) => a.compareTo(b) > 0)
    .registerFunction('Quantity.isLessThan(Quantity): bool', (a: Quantity, b: Quantity) => a.compareTo(b) < 0)
    .registerFunction('Quantity.compareTo(Quantity): int', (a: Quantity, b: Quantity) => BigInt(a.compareTo(b)))
    .registerFunction('Quantity.add(Quantity): Quantity', (a: Quantity, b: Quantity) => new Quantity(a.value + b.value))
    .registerFunction('Quantity.add(int): Quantity', (a: Quantity, b: bigint) => new Quantity(a.value + Number(b)))
    .registerFunction('Quantity.sub(Quantity): Quantity', (a: Quantity, b: Quantity) => new Quantity(a.value - b.value))
    .registerFunction('Quantity.sub(int): Quantity', (a: Quantity, b: bigint) => new Quantity(a.value - Number(b)))
    .registerFunction('Quantity.sign(): int', (a: Quantity) => BigInt(Math.sign(a.value)))
    .registerFunction('Quantity.isInteger(): bool', (a: Quantity) => Number.isInteger(a.value))
    .registerFunction('Quantity.asInteger(): int', (a: Quantity) => {
      if (!Number.isInteger(a.value)) throw new EvaluationError('cannot convert value to integer');
      return BigInt(a.value);
    })
    .registerFunction('Quantity.asApproximateFloat(): double', (a: Quantity) => a.value)
    .registerType('URL', KubeURL)
    .registerFunction('isURL(string): bool', (s: string) => URL.canParse(s))
    .registerFunction('url(string): URL', (s: string) => {
      if (!URL.canParse(s)) throw new EvaluationError(`URL parse error during conversion from string: ${s}`);
      return new KubeURL(new URL(s));
    })
    .registerFunction('URL.getScheme(): string', (u: KubeURL) => u.url.protocol.replace(/:$/, ''))
    .registerFunction('URL.getHost(): string', (u: KubeURL) => u.url.host)
    .registerFunction('URL.getHostname(): string', (u: KubeURL) => u.url.hostname.replace(/^\[(.*)\]$/, '$1'))
    .registerFunction('URL.getPort(): string', (u: KubeURL) => u.url.port)
    .registerFunction('URL.getEscapedPath(): string', (u: KubeURL) => u.url.pathname)
    .registerFunction('URL.getQuery(): map<string, list<string>>', (u: KubeURL) => {
      const out: Record<string, string[]> = {};
      for (const [k, v] of u.url.searchParams) (out[k] ??= []).push(v);
      return out;
    })
    .registerType('IP', KubeIP)
    .registerFunction('isIP(string): bool', (s: string) => parseIP(s) !== undefined)
    .registerFunction('ip(string): IP', (s: string) => {
      const ip = parseIP(s);
      if (!ip) throw new EvaluationError(`IP Address ${JSON.stringify(s)} parse error during conversion from string`);
      return ip;
    })
    .registerFunction('IP.family(): int', (ip: KubeIP) => BigInt(ip.family))
    .registerFunction('IP.isLoopback(): bool', (ip: KubeIP) => (ip.family === 4 ? ip.text.startsWith('127.') : ipBytes(ip).every((b, i) => b === (i === 15 ? 1 : 0))))
    .registerFunction('IP.isUnspecified(): bool', (ip: KubeIP) => ipBytes(ip).every((b) => b === 0))
    .registerType('CIDR', KubeCIDR)
    .registerFunction('isCIDR(string): bool', (s: string) => parseCIDR(s) !== undefined)
    .registerFunction('cidr(string): CIDR', (s: string) => {
      const c = parseCIDR(s);
      if (!c) throw new EvaluationError(`network address ${JSON.stringify(s)} parse error during conversion from string`);
      return c;
    })
    .registerFunction('CIDR.containsIP(string): bool', (c: KubeCIDR, s: string) => {
      const ip = parseIP(s);
      if (!ip) throw new EvaluationError(`IP Address ${JSON.stringify(s)} parse error during conversion from string`);
      return cidrContains(c, ip);
    })
    .registerFunction('CIDR.containsIP(IP): bool', (c: KubeCIDR, ip: KubeIP) => cidrContains(c, ip))
    .registerFunction('CIDR.prefixLength(): int', (c: KubeCIDR) => BigInt(c.prefix))
    .registerFunction('CIDR.ip(): IP', (c: KubeCIDR) => c.ip);
}
