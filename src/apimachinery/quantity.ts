/**
 * resource.Quantity values as the scheduler needs them: "500m" CPU, "16Gi" memory, "110" pods. Only reading is
 * supported; quantities are never re-serialized here, so the stored text is always what the client sent.
 */

const binarySuffixes: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const decimalSuffixes: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

const quantityPattern = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?)$/;

/** Whether `value` is a quantity resource.ParseQuantity accepts (number plus at most one suffix or exponent). */
export function isQuantity(value: unknown): boolean {
  return typeof value === 'number' ? Number.isFinite(value) : typeof value === 'string' && quantityPattern.test(value.trim());
}

/**
 * The numeric value of a quantity in base units (cores, bytes, count). Throws on text that is not a quantity, with
 * upstream's message ("quantities must match the regular expression ...").
 */
export function parseQuantity(value: string | number): number {
  if (typeof value === 'number') return value;
  const m = quantityPattern.exec(value.trim());
  if (!m) throw new Error("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  const base = Number(m[1]);
  if (m[2]) return base * 10 ** Number(m[2].slice(1));
  const suffix = m[3] ?? '';
  return base * (binarySuffixes[suffix] ?? decimalSuffixes[suffix] ?? 1);
}

/** The quantity in thousandths, rounded up as Quantity.MilliValue does (CPU accounting is in millicores). */
export function milliValue(value: string | number): number {
  return Math.ceil(Math.round(parseQuantity(value) * 1e9) / 1e6);
}

/** The quantity as a whole number of base units, rounded up as Quantity.Value does (bytes, pod counts). */
export function integerValue(value: string | number): number {
  return Math.ceil(Math.round(parseQuantity(value) * 1e3) / 1e3);
}
