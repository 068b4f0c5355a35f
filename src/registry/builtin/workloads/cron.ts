/**
 * The cron syntax of CronJob schedules, as kube-apiserver checks it with robfig/cron/v3's ParseStandard: five fields
 * (minute, hour, day of month, month, day of week) of numbers, names (jan-dec, sun-sat), ranges, steps, lists and `*`
 * or `?`, or a descriptor (@yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly, @every <duration>),
 * optionally after a TZ= or CRON_TZ= prefix. Errors carry robfig's texts, which kube-apiserver returns verbatim.
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

/** getRange: one `start[-end][/step]` or `*`/`?` expression within its bounds. */
function checkRange(expr: string, r: Bounds): void {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0]!.split('-');
  const singleDigit = lowAndHigh.length === 1;
  let start: number;
  let end: number;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = r.min;
    end = r.max;
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
  } else throw new Error(`too many slashes: ${expr}`);
  if (start < r.min) throw new Error(`beginning of range (${start}) below minimum (${r.min}): ${expr}`);
  if (end > r.max) throw new Error(`end of range (${end}) above maximum (${r.max}): ${expr}`);
  if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new Error(`step of range should be a positive number: ${expr}`);
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

/** robfig/cron ParseStandard: throws an Error with robfig's message when `spec` is not a valid schedule. */
export function parseCronSchedule(input: string): void {
  let spec = input;
  if (spec.length === 0) throw new Error('empty spec string');
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const i = spec.indexOf(' ');
    const eq = spec.indexOf('=');
    const zone = i < 0 ? spec.slice(eq + 1) : spec.slice(eq + 1, i);
    if (!isKnownTimeZone(zone)) throw new Error(`provided bad location ${zone}: unknown time zone ${zone}`);
    spec = i < 0 ? '' : spec.slice(i).trim();
  }
  if (spec.startsWith('@')) {
    switch (spec) {
      case '@yearly':
      case '@annually':
      case '@monthly':
      case '@weekly':
      case '@daily':
      case '@midnight':
      case '@hourly':
        return;
    }
    if (spec.startsWith('@every ')) {
      try {
        parseGoDuration(spec.slice('@every '.length));
      } catch (err) {
        throw new Error(`failed to parse duration ${spec}: ${(err as Error).message}`);
      }
      return;
    }
    throw new Error(`unrecognized descriptor: ${spec}`);
  }
  const fields = spec.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5) throw new Error(`expected exactly 5 fields, found ${fields.length}: ${goStrings(fields)}`);
  fields.forEach((field, i) => {
    for (const expr of field.split(',').filter((e) => e !== '')) checkRange(expr, fieldBounds[i]!);
  });
}
