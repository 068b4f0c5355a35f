/**
 * JSON renderings of the Kubernetes "well-known" protobuf messages (metav1.Time, MicroTime, Duration,
 * intstr.IntOrString, resource.Quantity, runtime.RawExtension / apiextensions JSON / FieldsV1), matching what
 * their Go MarshalJSON methods print, and the inverse conversions used by the test encoder.
 */

const MIN_RFC3339_SECONDS = -62167219200n; // 0000-01-01T00:00:00Z
const MAX_RFC3339_SECONDS = 253402300799n; // 9999-12-31T23:59:59Z

function isoSeconds(seconds: bigint): string {
  if (seconds < MIN_RFC3339_SECONDS || seconds > MAX_RFC3339_SECONDS) {
    throw new Error(`timestamp ${seconds}s since the epoch is outside the years 0000-9999 that RFC 3339 can express`);
  }
  // toISOString always prints milliseconds; callers replace them with the precision they need.
  return new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
}

/** metav1.Time: RFC 3339 in UTC with whole seconds ("2006-01-02T15:04:05Z"); sub-second parts are dropped, as Go's JSON does. */
export function formatTime(seconds: bigint): string {
  return `${isoSeconds(seconds)}Z`;
}

/**
 * metav1.MicroTime: RFC 3339 in UTC with exactly six fractional digits. Nanoseconds are truncated toward zero
 * to microseconds first (as MicroTime's protobuf unmarshaller does), then normalised into [0, 1s).
 */
export function formatMicroTime(seconds: bigint, nanos: number): string {
  const micros = seconds * 1_000_000n + BigInt(Math.trunc(nanos / 1000));
  let wholeSeconds = micros / 1_000_000n;
  let fraction = micros % 1_000_000n;
  if (fraction < 0n) {
    fraction += 1_000_000n;
    wholeSeconds -= 1n;
  }
  return `${isoSeconds(wholeSeconds)}.${fraction.toString().padStart(6, '0')}Z`;
}

/** Parses an RFC 3339 timestamp into whole seconds and nanoseconds since the epoch (test encoder helper). */
export function parseTimestamp(text: string): { seconds: bigint; nanos: number } {
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/.exec(text);
  if (!match) throw new Error(`"${text}" is not an RFC 3339 timestamp`);
  const millis = Date.parse(`${match[1]}${match[3]}`);
  if (Number.isNaN(millis)) throw new Error(`"${text}" is not a valid date`);
  return { seconds: BigInt(millis / 1000), nanos: Number((match[2] ?? '').padEnd(9, '0')) };
}

function fraction(value: bigint, digits: number): string {
  if (value === 0n) return '';
  return `.${value.toString().padStart(digits, '0').replace(/0+$/, '')}`;
}

/** metav1.Duration: Go's time.Duration.String() form, e.g. "1h0m0s", "1m30s", "1.5s", "250ms", "0s". */
export function formatDuration(nanoseconds: bigint): string {
  if (nanoseconds === 0n) return '0s';
  const sign = nanoseconds < 0n ? '-' : '';
  const n = nanoseconds < 0n ? -nanoseconds : nanoseconds;
  if (n < 1_000n) return `${sign}${n}ns`;
  if (n < 1_000_000n) return `${sign}${n / 1_000n}${fraction(n % 1_000n, 3)}µs`;
  if (n < 1_000_000_000n) return `${sign}${n / 1_000_000n}${fraction(n % 1_000_000n, 6)}ms`;
  const totalSeconds = n / 1_000_000_000n;
  let text = `${totalSeconds % 60n}${fraction(n % 1_000_000_000n, 9)}s`;
  const totalMinutes = totalSeconds / 60n;
  if (totalMinutes > 0n) {
    text = `${totalMinutes % 60n}m${text}`;
    const hours = totalMinutes / 60n;
    if (hours > 0n) text = `${hours}h${text}`;
  }
  return sign + text;
}

const DURATION_UNITS: Record<string, number> = { ns: 1, us: 1e3, µs: 1e3, μs: 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** Parses a Go duration string ("1h30m", "1.5s", "-2ms") into nanoseconds (test encoder helper). */
export function parseDuration(text: string): bigint {
  if (text === '0') return 0n;
  const match = /^([+-]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/.exec(text);
  if (!match) throw new Error(`"${text}" is not a Go duration`);
  let total = 0;
  for (const part of text.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) {
    total += Number(part[1]) * DURATION_UNITS[part[2]!]!;
  }
  return BigInt(Math.round(match[1] === '-' ? -total : total));
}

/**
 * Parses the bytes of a raw JSON value (runtime.RawExtension, apiextensions JSON, metav1.FieldsV1).
 * Empty bytes mean "no value" (Go marshals them as null) and yield undefined. Throws on malformed JSON.
 */
export function parseRawJson(raw: Uint8Array): unknown {
  if (raw.length === 0) return undefined;
  const text = new TextDecoder('utf-8').decode(raw);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`raw bytes are not valid JSON (${(err as Error).message})`);
  }
}
