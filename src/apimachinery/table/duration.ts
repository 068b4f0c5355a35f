/**
 * Human-readable durations exactly as k8s.io/apimachinery/pkg/util/duration prints them; kubectl
 * shows these strings verbatim in AGE and LAST SEEN columns. Inputs are milliseconds; like Go, every
 * step truncates toward zero.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
/** Go's zero time.Time, which metav1.Time marshals for an unset timestamp; it means "unset" too. */
const GO_ZERO_TIME = Date.parse('0001-01-01T00:00:00Z');

/**
 * duration.HumanDuration: more precision for short spans, coarser as they grow.
 * Below -1s → `<invalid>` (clock skew); (-2s, 0) → `0s`; <2m → `Ns`; <10m → `XmYs` (or `Xm`);
 * <3h → `Xm`; <8h → `XhYm` (or `Xh`); <48h → `Xh`; <8d → `XdYh` (or `Xd`); <2y → `Xd`;
 * <8y → `XyYd` (or `Xy`, years of 365 days); otherwise `Xy`.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    const days = Math.trunc(hours / 24);
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.trunc(hours / 24);
    const dy = days % 365;
    const years = Math.trunc(days / 365);
    return dy === 0 ? `${years}y` : `${years}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/**
 * duration.ShortHumanDuration: a single unit. Below -1s → `<invalid>`; (-2s, 0) → `0s`; <60s → `Ns`;
 * <60m → `Nm`; <24h → `Nh`; <365d → `Nd`; otherwise `Ny`.
 */
export function shortHumanDuration(ms: number): string {
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 24) return `${hours}h`;
  if (hours < 24 * 365) return `${Math.trunc(hours / 24)}d`;
  return `${Math.trunc(ms / HOUR / 24 / 365)}y`;
}

/** True for a missing, unparseable or Go-zero (`0001-01-01T00:00:00Z`) timestamp, which printers treat as unset. */
export function isZeroTimestamp(timestamp: string | null | undefined): boolean {
  if (!timestamp) return true;
  const t = Date.parse(timestamp);
  return Number.isNaN(t) || t <= GO_ZERO_TIME;
}

/**
 * translateTimestampSince from the printers: `<unknown>` for a missing/zero/unparseable timestamp,
 * otherwise humanDuration(now - timestamp).
 */
export function translateTimestampSince(timestamp: string | null | undefined, now: number | Date): string {
  if (isZeroTimestamp(timestamp)) return '<unknown>';
  const nowMs = typeof now === 'number' ? now : now.getTime();
  return humanDuration(nowMs - Date.parse(timestamp!));
}
