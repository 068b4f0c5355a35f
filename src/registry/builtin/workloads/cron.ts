/**
 * The cron syntax of CronJob schedules, as kube-apiserver checks it with robfig/cron/v3's ParseStandard: five fields
 * (minute, hour, day of month, month, day of week) of numbers, names (jan-dec, sun-sat), ranges, steps, lists and `*`
 * or `?`, or a descriptor (@yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly, @every <duration>),
 * optionally after a TZ= or CRON_TZ= prefix. Errors carry robfig's texts, which kube-apiserver returns verbatim.
 *
 * A parsed schedule also answers robfig's Schedule.Next (what the CronJob controller asks): the first activation
 * strictly after a time, in the schedule's time zone (TZ= prefix, else the zone given, else UTC).
 */
import { parseGoDuration } from '../../../apimachinery/go-duration.js';

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const months: Bounds = {
  min: 1,
  max: 12,
  names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 },
};
const daysOfWeek: Bounds = { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } };
const fieldBounds: Bounds[] = [{ min: 0, max: 59 }, { min: 0, max: 23 }, { min: 1, max: 31 }, months, daysOfWeek];

const MAX_INT64 = 9223372036854775807n;

/** strconv.Atoi plus robfig's negative check (mustParseInt). */
function mustParseInt(expr: string): number {
  if (!/^[+-]?[0-9]+$/.test(expr)) throw new Error(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`);
  const big = BigInt(expr);
  if (big > MAX_INT64 || big < -MAX_INT64 - 1n) throw new Error(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: value out of range`);
  const num = Number(big);
  if (num < 0) throw new Error(`negative number (${num}) not allowed: ${expr}`);
  return num;
}

function parseIntOrName(expr: string, names: Record<string, number> | undefined): number {
  const named = names?.[expr.toLowerCase()];
  return named !== undefined ? named : mustParseInt(expr);
}

/** The values one field allows, and whether it was a bare `*`/`?` (robfig's starBit, which day matching reads). */
interface FieldSet {
  values: Set<number>;
  star: boolean;
}

/** getRange: one `start[-end][/step]` or `*`/`?` expression within its bounds, added to `into`. */
function checkRange(expr: string, r: Bounds, into?: FieldSet): void {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0]!.split('-');
  const singleDigit = lowAndHigh.length === 1;
  let start: number;
  let end: number;
  let star = false;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = r.min;
    end = r.max;
    star = true;
  } else {
    start = parseIntOrName(lowAndHigh[0]!, r.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1]!, r.names);
    else throw new Error(`too many hyphens: ${expr}`);
  }
  let step: number;
  if (rangeAndStep.length === 1) step = 1;
  else if (rangeAndStep.length === 2) {
    step = mustParseInt(rangeAndStep[1]!);
    if (singleDigit) end = r.max;
    if (step > 1) star = false;
  } else throw new Error(`too many slashes: ${expr}`);
  if (start < r.min) throw new Error(`beginning of range (${start}) below minimum (${r.min}): ${expr}`);
  if (end > r.max) throw new Error(`end of range (${end}) above maximum (${r.max}): ${expr}`);
  if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new Error(`step of range should be a positive number: ${expr}`);
  if (into) {
    for (let v = start; v <= end; v += step) into.values.add(v);
    if (star) into.star = true;
  }
}

/** Go's %v of a []string: `[a b c]`. */
function goStrings(fields: string[]): string {
  return `[${fields.join(' ')}]`;
}

/** A time zone name Go's time.LoadLocation knows (the IANA database, case-sensitive, plus UTC and Local). */
export function isKnownTimeZone(name: string): boolean {
  if (name === '' || name === 'UTC' || name === 'Local') return true;
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
    // Intl matches names case-insensitively; Go reads the zoneinfo file of exactly that name.
    return resolved === name || resolved.toLowerCase() !== name.toLowerCase();
  } catch {
    return false;
  }
}

/** A parsed schedule: robfig's Schedule. */
export interface CronSchedule {
  /** The first activation strictly after `after` (undefined when none within five years, as robfig's zero time). */
  next(after: Date): Date | undefined;
  /** The schedule's time zone (an IANA name; `UTC` when none was given). */
  readonly timeZone: string;
}

const descriptors: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/**
 * robfig/cron ParseStandard: throws an Error with robfig's message when `spec` is not a valid schedule; returns the
 * schedule otherwise. `timeZone` is the zone when the spec has no TZ= prefix (the CronJob's spec.timeZone); UTC by
 * default.
 */
export function parseCronSchedule(input: string, timeZone = 'UTC'): CronSchedule {
  let spec = input;
  let zone = timeZone || 'UTC';
  if (spec.length === 0) throw new Error('empty spec string');
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const i = spec.indexOf(' ');
    const eq = spec.indexOf('=');
    zone = i < 0 ? spec.slice(eq + 1) : spec.slice(eq + 1, i);
    if (!isKnownTimeZone(zone)) throw new Error(`provided bad location ${zone}: unknown time zone ${zone}`);
    spec = i < 0 ? '' : spec.slice(i).trim();
  }
  if (zone === 'Local' || zone === '') zone = 'UTC';
  if (spec.startsWith('@')) {
    const expanded = descriptors[spec];
    if (expanded !== undefined) spec = expanded;
    else if (spec.startsWith('@every ')) {
      let ms: number;
      try {
        ms = parseGoDuration(spec.slice('@every '.length));
      } catch (err) {
        throw new Error(`failed to parse duration ${spec}: ${(err as Error).message}`);
      }
      return constantDelay(ms, zone);
    } else throw new Error(`unrecognized descriptor: ${spec}`);
  }
  const fields = spec.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5) throw new Error(`expected exactly 5 fields, found ${fields.length}: ${goStrings(fields)}`);
  const sets: FieldSet[] = fields.map((field, i) => {
    const set: FieldSet = { values: new Set(), star: false };
    for (const expr of field.split(',').filter((e) => e !== '')) checkRange(expr, fieldBounds[i]!, set);
    return set;
  });
  return specSchedule(sets, zone);
}

/** ConstantDelaySchedule (@every): the next whole second `delay` after, the delay rounded down to seconds, at least 1 s. */
function constantDelay(delayMs: number, zone: string): CronSchedule {
  const delay = Math.max(1000, Math.floor(delayMs / 1000) * 1000);
  return { timeZone: zone, next: (after) => new Date(Math.floor(after.getTime() / 1000) * 1000 + delay) };
}

const wallFormatters = new Map<string, Intl.DateTimeFormat>();

/** The wall-clock time of `instant` in `zone`, as epoch milliseconds of the same wall time in UTC. */
export function wallTime(instant: number, zone: string): number {
  if (zone === 'UTC') return instant;
  let f = wallFormatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    wallFormatters.set(zone, f);
  }
  const parts: Record<string, number> = {};
  for (const p of f.formatToParts(new Date(instant))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!) + (((instant % 1000) + 1000) % 1000);
}

/**
 * The instant whose wall time in `zone` is `wall` (time.Date): of two (a repeated hour), the earlier; for a wall time
 * that does not exist (a skipped hour), the instant the zone's earlier offset gives, which lies after the gap.
 */
export function instantOfWallTime(wall: number, zone: string): number {
  if (zone === 'UTC') return wall;
  const offsetAt = (instant: number) => wallTime(instant, zone) - instant;
  const candidates = [wall - offsetAt(wall - 86_400_000), wall - offsetAt(wall + 86_400_000), wall - offsetAt(wall)];
  const exact = candidates.filter((c) => wallTime(c, zone) === wall).sort((a, b) => a - b);
  if (exact.length) return exact[0]!;
  return Math.max(...candidates);
}

/** SpecSchedule.Next, on wall-clock fields in the schedule's zone. */
function specSchedule(sets: FieldSet[], zone: string): CronSchedule {
  const [minute, hour, dom, month, dow] = sets as [FieldSet, FieldSet, FieldSet, FieldSet, FieldSet];
  const dayMatches = (t: Date) => {
    const domMatch = dom.values.has(t.getUTCDate());
    const dowMatch = dow.values.has(t.getUTCDay());
    return dom.star || dow.star ? domMatch && dowMatch : domMatch || dowMatch;
  };
  /** The next matching wall time after `wall` (both UTC-encoded wall times), or undefined within five years. */
  const nextWall = (wall: number): number | undefined => {
    // Start at the earliest possible time: the upcoming second (robfig), then the upcoming minute (seconds are 0).
    let t = new Date(Math.floor(wall / 1000) * 1000 + 1000);
    let added = false;
    const yearLimit = t.getUTCFullYear() + 5;
    wrap: for (;;) {
      if (t.getUTCFullYear() > yearLimit) return undefined;
      while (!month.values.has(t.getUTCMonth() + 1)) {
        if (!added) {
          added = true;
          t = new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), 1));
        }
        t = new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth() + 1, t.getUTCDate(), t.getUTCHours(), t.getUTCMinutes(), t.getUTCSeconds()));
        if (t.getUTCMonth() === 0) continue wrap;
      }
      while (!dayMatches(t)) {
        if (!added) {
          added = true;
          t = new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate()));
        }
        t = new Date(t.getTime() + 86_400_000);
        if (t.getUTCDate() === 1) continue wrap;
      }
      while (!hour.values.has(t.getUTCHours())) {
        if (!added) {
          added = true;
          t = new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate(), t.getUTCHours()));
        }
        t = new Date(t.getTime() + 3_600_000);
        if (t.getUTCHours() === 0) continue wrap;
      }
      while (!minute.values.has(t.getUTCMinutes())) {
        if (!added) {
          added = true;
          t = new Date(Math.floor(t.getTime() / 60_000) * 60_000);
        }
        t = new Date(t.getTime() + 60_000);
        if (t.getUTCMinutes() === 0) continue wrap;
      }
      while (t.getUTCSeconds() !== 0) {
        if (!added) {
          added = true;
          t = new Date(Math.floor(t.getTime() / 1000) * 1000);
        }
        t = new Date(t.getTime() + 1000);
        if (t.getUTCSeconds() === 0) continue wrap;
      }
      return t.getTime();
    }
  };
  return {
    timeZone: zone,
    next(after) {
      let wall = wallTime(after.getTime(), zone);
      // A wall time that repeats (the hour clocks are set back) may map to an instant not after `after`, and one in
      // the hour skipped when they are set forward does not exist (robfig never fires then): look further.
      for (let i = 0; i < 64; i++) {
        const w = nextWall(wall);
        if (w === undefined) return undefined;
        const instant = instantOfWallTime(w, zone);
        if (instant > after.getTime() && wallTime(instant, zone) === w) return new Date(instant);
        wall = w;
      }
      return undefined;
    },
  };
}
