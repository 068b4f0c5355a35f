/**
 * Go's time.Parse errors for the two layouts metav1.Time (RFC 3339) and metav1.MicroTime (RFC 3339 with exactly six
 * fractional digits) decode with, worded as Go's time.ParseError words them:
 *   parsing time "notatime" as "2006-01-02T15:04:05Z07:00": cannot parse "notatime" as "2006"
 *   parsing time "2024-13-01T00:00:00Z": month out of range
 * Only what these layouts need of Go's layout-driven parser is here: each element in turn, the remaining input
 * reported where an element does not match, and the range checks Go makes.
 */

export const RFC3339 = '2006-01-02T15:04:05Z07:00';
export const RFC3339_MICRO = '2006-01-02T15:04:05.000000Z07:00';

type Element = { lit: string } | { std: 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'tz' } | { frac: number };

const ELEMENTS: Record<string, { elements: Element[]; names: string[] }> = {
  [RFC3339]: layout(false),
  [RFC3339_MICRO]: layout(true),
};

function layout(micro: boolean): { elements: Element[]; names: string[] } {
  const elements: Element[] = [
    { std: 'year' }, { lit: '-' }, { std: 'month' }, { lit: '-' }, { std: 'day' }, { lit: 'T' },
    { std: 'hour' }, { lit: ':' }, { std: 'minute' }, { lit: ':' }, { std: 'second' },
    ...(micro ? [{ frac: 6 }] : []), { std: 'tz' },
  ];
  const std: Record<string, string> = { year: '2006', month: '01', day: '02', hour: '15', minute: '04', second: '05', tz: 'Z07:00' };
  const names = elements.map((e) => ('lit' in e ? e.lit : 'std' in e ? std[e.std]! : `.${'0'.repeat(e.frac)}`));
  return { elements, names };
}

/** time's quote: ASCII printable as is (with " and \ escaped), every byte of anything else as \xNN. */
function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c >= 0x80 || c < 0x20) {
      for (const b of Buffer.from(ch, 'utf8')) out += `\\x${b.toString(16).padStart(2, '0')}`;
    } else {
      if (ch === '"' || ch === '\\') out += '\\';
      out += ch;
    }
  }
  return out + '"';
}

const isDigit = (s: string, i: number) => i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57;

/** time.getnum: one or two digits (exactly two when fixed). */
function getnum(s: string, fixed: boolean): [number, string] | undefined {
  if (!isDigit(s, 0)) return undefined;
  if (!isDigit(s, 1)) return fixed ? undefined : [Number(s[0]), s.slice(1)];
  return [Number(s.slice(0, 2)), s.slice(2)];
}

function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) ? 29 : 28;
  return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 31;
}

/** The error time.Parse(layout, value) returns, as text, or undefined when it parses. */
export function goTimeParseError(layoutText: string, value: string): string | undefined {
  const spec = ELEMENTS[layoutText];
  if (!spec) throw new Error(`unsupported layout ${layoutText}`);
  const cannot = (elem: string, rest: string) => `parsing time ${goQuote(value)} as ${goQuote(layoutText)}: cannot parse ${goQuote(rest)} as ${goQuote(elem)}`;
  const outOfRange = (what: string) => `parsing time ${goQuote(value)}: ${what} out of range`;
  let rest = value;
  let year = 0;
  let month = 0;
  let day = 0;
  for (let i = 0; i < spec.elements.length; i++) {
    const el = spec.elements[i]!;
    const name = spec.names[i]!;
    if ('lit' in el) {
      if (!rest.startsWith(el.lit)) return cannot(name, rest);
      rest = rest.slice(el.lit.length);
      continue;
    }
    const hold = rest;
    if ('frac' in el) {
      const n = 1 + el.frac;
      if (rest.length < n || (rest[0] !== '.' && rest[0] !== ',') || !/^[0-9]+$/.test(rest.slice(1, n))) return cannot(name, hold);
      rest = rest.slice(n);
      continue;
    }
    let range = '';
    let bad = false;
    switch (el.std) {
      case 'year':
        if (rest.length < 4 || !/^[0-9]{4}$/.test(rest.slice(0, 4))) bad = true;
        else {
          year = Number(rest.slice(0, 4));
          rest = rest.slice(4);
        }
        break;
      case 'month':
      case 'day':
      case 'minute': {
        const got = getnum(rest, true);
        if (!got) bad = true;
        else {
          if (el.std === 'month') month = got[0];
          if (el.std === 'day') day = got[0];
          rest = got[1];
          if (el.std === 'month' && (got[0] <= 0 || got[0] > 12)) range = 'month';
          if (el.std === 'minute' && got[0] >= 60) range = 'minute';
        }
        break;
      }
      case 'hour': {
        const got = getnum(rest, false);
        if (!got) bad = true;
        else {
          rest = got[1];
          if (got[0] >= 24) range = 'hour';
        }
        break;
      }
      case 'second': {
        const got = getnum(rest, true);
        if (!got) {
          bad = true;
          break;
        }
        rest = got[1];
        if (got[0] >= 60) {
          range = 'second';
          break;
        }
        // A fractional second the layout does not have is read anyway.
        const next = spec.elements[i + 1];
        if (rest.length >= 2 && (rest[0] === '.' || rest[0] === ',') && isDigit(rest, 1) && !(next && 'frac' in next)) {
          let n = 2;
          while (n < rest.length && isDigit(rest, n)) n++;
          rest = rest.slice(n);
        }
        break;
      }
      case 'tz': {
        if (rest.startsWith('Z')) {
          rest = rest.slice(1);
          break;
        }
        if (rest.length < 6 || rest[3] !== ':') {
          bad = true;
          break;
        }
        const hh = getnum(rest.slice(1, 3), true);
        const mm = hh ? getnum(rest.slice(4, 6), true) : undefined;
        // Go checks the ranges (over 24 hours, 60 minutes) before it looks at the error or the sign.
        if ((hh?.[0] ?? 0) > 24) range = 'time zone offset hour';
        if ((mm?.[0] ?? 0) > 60) range = 'time zone offset minute';
        if (!hh || !mm || (rest[0] !== '+' && rest[0] !== '-')) bad = true;
        rest = rest.slice(6);
        break;
      }
    }
    if (range) return outOfRange(range);
    if (bad) return cannot(name, hold);
  }
  if (rest.length > 0) return `parsing time ${goQuote(value)}: extra text: ${goQuote(rest)}`;
  if (day < 1 || day > daysIn(month, year)) return outOfRange('day');
  return undefined;
}
