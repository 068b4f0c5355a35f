/**
 * resource.Quantity as quota accounting needs it: exact arithmetic (a sum of `100m` and `200m` is `300m`, never
 * 0.30000000000000004) and the canonical text Quantity.String() prints (`1536Mi`, `500m`, `2k`, `1`), which the quota
 * messages and ResourceQuota status carry. Values are held as whole nano-units (BigInt); like ParseQuantity, anything
 * finer than 1n is rounded up.
 */

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export interface ExactQuantity {
  readonly nanos: bigint;
  /** How String() prints it: the format of the text it was parsed from (Quantity.Format). */
  readonly format: QuantityFormat;
}

const quantityPattern = /^([+-]?)(\d*)(?:\.(\d*))?(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?)$/;
const binaryPowers: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const decimalExponents: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const NANO = 10n ** 9n;

/** Upstream's text for a string that is not a quantity (resource.ErrFormatWrong). */
export const quantityFormatError = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

export const zeroQuantity: ExactQuantity = { nanos: 0n, format: 'DecimalSI' };

/** Parses a quantity (a JSON string or number); throws Error(quantityFormatError) when it is not one. */
export function parseExactQuantity(value: unknown): ExactQuantity {
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : typeof value === 'string' ? value.trim() : undefined;
  const m = text === undefined ? null : quantityPattern.exec(text);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw new Error(quantityFormatError);
  const [, sign, whole, frac = '', exponent, suffix = ''] = m;
  let numerator = BigInt((whole || '0') + frac) * NANO;
  let denominator = 10n ** BigInt(frac.length);
  let format: QuantityFormat = 'DecimalSI';
  if (exponent) {
    format = 'DecimalExponent';
    const e = Number(exponent.slice(1));
    if (e >= 0) numerator *= 10n ** BigInt(e);
    else denominator *= 10n ** BigInt(-e);
  } else if (suffix in binaryPowers) {
    format = 'BinarySI';
    numerator *= 1024n ** BigInt(binaryPowers[suffix]!);
  } else {
    const e = decimalExponents[suffix]!;
    if (e >= 0) numerator *= 10n ** BigInt(e);
    else denominator *= 10n ** BigInt(-e);
  }
  const nanos = (numerator + denominator - 1n) / denominator;
  return { nanos: sign === '-' ? -nanos : nanos, format };
}

/** Whether the value parses as a quantity. */
export function isExactQuantity(value: unknown): boolean {
  try {
    parseExactQuantity(value);
    return true;
  } catch {
    return false;
  }
}

/** The whole number n (cores, bytes, objects) as a DecimalSI quantity, as resource.NewQuantity(n, DecimalSI). */
export function quantityOf(n: number | bigint, format: QuantityFormat = 'DecimalSI'): ExactQuantity {
  return { nanos: BigInt(n) * NANO, format };
}

/** q + other, printed in q's format unless q is zero (Quantity.Add). */
export function addQuantity(q: ExactQuantity, other: ExactQuantity): ExactQuantity {
  return { nanos: q.nanos + other.nanos, format: q.nanos === 0n ? other.format : q.format };
}

/** q - other, in q's format (Quantity.Sub). */
export function subtractQuantity(q: ExactQuantity, other: ExactQuantity): ExactQuantity {
  return { nanos: q.nanos - other.nanos, format: q.nanos === 0n ? other.format : q.format };
}

export function compareQuantity(a: ExactQuantity, b: ExactQuantity): number {
  return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
}

/** Quantity.Value(): whole units, rounded up. */
export function quantityValue(q: ExactQuantity): bigint {
  return q.nanos >= 0n ? (q.nanos + NANO - 1n) / NANO : q.nanos / NANO;
}

/** Quantity.MilliValue(): thousandths, rounded up. */
export function quantityMilliValue(q: ExactQuantity): bigint {
  const per = 10n ** 6n;
  return q.nanos >= 0n ? (q.nanos + per - 1n) / per : q.nanos / per;
}

const binarySuffixes = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
const decimalSuffixes: Record<number, string> = { [-9]: 'n', [-6]: 'u', [-3]: 'm', 0: '', 3: 'k', 6: 'M', 9: 'G', 12: 'T', 15: 'P', 18: 'E' };

/**
 * The canonical text (Quantity.String / CanonicalizeBytes): BinarySI as the largest power of 1024 that divides the
 * value exactly, unless it is below 1024 or fractional (then DecimalSI, as upstream, to avoid rounding); DecimalSI as
 * the largest power of 1000 that keeps the mantissa whole; DecimalExponent likewise with `e<n>`.
 */
export function formatQuantity(q: ExactQuantity): string {
  if (q.nanos === 0n) return '0';
  const negative = q.nanos < 0n;
  const abs = negative ? -q.nanos : q.nanos;
  const sign = negative ? '-' : '';
  if (q.format === 'BinarySI' && abs >= 1024n * NANO && abs % NANO === 0n) {
    let units = abs / NANO;
    let power = 0;
    while (power < 6 && units % 1024n === 0n) {
      units /= 1024n;
      power++;
    }
    return `${sign}${units}${binarySuffixes[power]}`;
  }
  let exponent = -9;
  let mantissa = abs;
  while (exponent < 18 && mantissa % 1000n === 0n) {
    mantissa /= 1000n;
    exponent += 3;
  }
  if (q.format === 'DecimalExponent') return `${sign}${mantissa}${exponent === 0 ? '' : `e${exponent}`}`;
  return `${sign}${mantissa}${decimalSuffixes[exponent]}`;
}

/** The canonical text of a quantity's text: what kube-apiserver stores and answers for it (`1000m` → `1`). */
export function canonicalQuantity(value: unknown): string {
  return formatQuantity(parseExactQuantity(value));
}
