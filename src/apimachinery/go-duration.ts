/** Go's time.Duration syntax (time.ParseDuration), used by query parameters and command-line flags. */

const units: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

function quote(s: string): string {
  return JSON.stringify(s);
}

/** Go's time.ParseDuration, in milliseconds; throws Go's error text. */
export function parseGoDuration(orig: string): number {
  let s = orig;
  let neg = false;
  if (s && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') throw new Error(`time: invalid duration ${quote(orig)}`);
  let total = 0;
  while (s !== '') {
    if (!(s[0] === '.' || (s[0]! >= '0' && s[0]! <= '9'))) throw new Error(`time: invalid duration ${quote(orig)}`);
    const m = /^(\d*)(?:\.(\d*))?/.exec(s)!;
    const pre = m[1]!.length > 0;
    const post = m[2] !== undefined && m[2].length > 0;
    if (!pre && !post) throw new Error(`time: invalid duration ${quote(orig)}`);
    s = s.slice(m[0].length);
    let i = 0;
    while (i < s.length && s[i] !== '.' && !(s[i]! >= '0' && s[i]! <= '9')) i++;
    if (i === 0) throw new Error(`time: missing unit in duration ${quote(orig)}`);
    const u = s.slice(0, i);
    s = s.slice(i);
    const unit = units[u];
    if (unit === undefined) throw new Error(`time: unknown unit ${quote(u)} in duration ${quote(orig)}`);
    total += Number(`${m[1] || '0'}.${m[2] || '0'}`) * unit;
  }
  if (total > 9223372036854.775) throw new Error(`time: invalid duration ${quote(orig)}`);
  return neg ? -total : total;
}

/**
 * A duration given on the command line (what pflag's DurationVar accepts: Go's syntax, `1s`, `500ms`, `1m30s`, `0`)
 * in milliseconds; negative durations are refused. Throws a message that says what to type instead.
 */
export function parseFlagDuration(text: string): number {
  let ms: number;
  try {
    ms = parseGoDuration(text.trim());
  } catch {
    ms = NaN;
  }
  if (!(ms >= 0)) throw new Error(`invalid duration "${text}": use a number with a unit, such as 1s, 500ms or 1m30s`);
  return ms;
}
