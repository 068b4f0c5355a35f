/**
 * Field selectors as k8s.io/apimachinery/pkg/fields parses, prints and matches them.
 *
 * A selector is comma-separated terms `field=value`, `field==value` or `field!=value`. In values,
 * `\`, `,` and `=` must be escaped with a backslash. Nothing is trimmed: `a = b` selects field `a `
 * for value ` b`, as upstream does. Parse errors carry the exact upstream text.
 */

export interface FieldTerm {
  readonly field: string;
  readonly value: string;
  /** `!=` rather than `=`/`==`. */
  readonly negated: boolean;
}

/** A field selector string that cannot be parsed. */
export class FieldSelectorParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FieldSelectorParseError';
  }
}

/** A selector that names a field the resource cannot be selected by (the API server answers 400). */
export class FieldLabelNotSupportedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FieldLabelNotSupportedError';
  }
}

/** Reads a field's value from an object; a missing field reads as the empty string. */
export type FieldGetter = ((field: string) => string | undefined) | Readonly<Record<string, string>>;

function readField(getter: FieldGetter, field: string): string {
  const v = typeof getter === 'function' ? getter(field) : Object.prototype.hasOwnProperty.call(getter, field) ? getter[field] : undefined;
  return v ?? '';
}

/** Escapes `\`, `,` and `=` in a value (fields.EscapeValue). */
export function escapeValue(s: string): string {
  return s.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/**
 * fields.UnescapeValue. Errors: `invalid field selector: invalid escape sequence: \x` and
 * `invalid field selector: unescaped character in value: 61` (Go prints the rune as its number).
 */
export function unescapeValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c === '\\' || c === ',' || c === '=') out += c;
      else throw new FieldSelectorParseError(`invalid field selector: invalid escape sequence: \\${c}`);
      inSlash = false;
      continue;
    }
    if (c === '\\') inSlash = true;
    else if (c === ',' || c === '=') throw new FieldSelectorParseError(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    else out += c;
  }
  if (inSlash) throw new FieldSelectorParseError('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** The AND of its terms, kept in the order upstream produces (terms sorted as raw text before parsing). */
export class FieldSelector {
  constructor(readonly terms: readonly FieldTerm[]) {}

  /** Matches every object. */
  static everything(): FieldSelector {
    return new FieldSelector([]);
  }

  /** A missing field reads as '', so `f!=x` matches objects without `f` and `f=` matches them too. */
  matches(getter: FieldGetter): boolean {
    return this.terms.every((t) => (readField(getter, t.field) === t.value) !== t.negated);
  }

  isEmpty(): boolean {
    return this.terms.length === 0;
  }

  /** The value the first `=`/`==` term on `field` requires, or undefined (a `!=` term never pins a value). */
  requiresExactMatch(field: string): string | undefined {
    return this.terms.find((t) => !t.negated && t.field === field)?.value;
  }

  /** Canonical text: `f=v` / `f!=v` with values escaped, joined by ','. `==` prints as `=`. */
  toString(): string {
    return this.terms.map((t) => `${t.field}${t.negated ? '!=' : '='}${escapeValue(t.value)}`).join(',');
  }

  /**
   * Selector.Transform: rewrites every term through `fn`, which may rename the field, change the
   * value or throw. A result with empty field and empty value drops the term.
   */
  transform(fn: (field: string, value: string) => { field: string; value: string }): FieldSelector {
    const next: FieldTerm[] = [];
    for (const t of this.terms) {
      const r = fn(t.field, t.value);
      if (r.field.length === 0 && r.value.length === 0) continue;
      next.push({ field: r.field, value: r.value, negated: t.negated });
    }
    return new FieldSelector(next);
  }
}

/** Splits on commas that are not escaped; a backslash protects the following character. */
function splitTerms(selector: string): string[] {
  if (selector.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

/** The first operator occurrence, trying `!=`, `==`, `=` at each position in turn. */
function splitTerm(term: string): { lhs: string; op: string; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of ['!=', '==', '=']) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

/** Go byte-wise order, as sort.StringSlice uses. */
function compareGoStrings(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * fields.ParseSelector. Empty terms are skipped, terms are sorted as raw text, a term without an
 * operator fails with `invalid selector: '<selector>'; can't understand '<term>'`, values are
 * unescaped, and terms with an empty field and empty value (a bare `=`) are dropped.
 */
export function parseFieldSelector(selector: string): FieldSelector {
  const parts = splitTerms(selector).sort(compareGoStrings);
  const terms: FieldTerm[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const split = splitTerm(part);
    if (!split) throw new FieldSelectorParseError(`invalid selector: '${selector}'; can't understand '${part}'`);
    const value = unescapeValue(split.rhs);
    terms.push({ field: split.lhs, value, negated: split.op === '!=' });
  }
  return new FieldSelector(terms).transform((field, value) => ({ field, value }));
}

/** fields.SelectorFromSet: one `=` term per entry. */
export function fieldSelectorFromSet(set: Record<string, string>): FieldSelector {
  return new FieldSelector(Object.entries(set).map(([field, value]) => ({ field, value, negated: false })));
}
