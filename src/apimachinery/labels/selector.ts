/**
 * Label selectors as k8s.io/apimachinery/pkg/labels parses, prints and matches them.
 *
 * Grammar (comma = AND): `key`, `!key`, `key=value`, `key==value`, `key!=value`,
 * `key in (v1,v2)`, `key notin (v1,v2)`, `key>N`, `key<N`. Parse errors carry the exact upstream text
 * (`unable to parse requirement: ...`, `found 'x', expected: ...`); the API server returns them as the
 * message of a 400 BadRequest.
 */
import { isQualifiedName, isValidLabelValue } from '../validation/names.js';

/** selection.Operator values, spelled as upstream. */
export type LabelOperator = '!' | '=' | '==' | 'in' | '!=' | 'notin' | 'exists' | 'gt' | 'lt';

/** Upstream's binaryOperators order, which appears verbatim in an error message. */
const binaryOperators: LabelOperator[] = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  /** Parsed selectors hold sorted, de-duplicated values; fromLabelSelector keeps the given order. */
  readonly values: readonly string[];
}

/** A selector string or metav1.LabelSelector that cannot be turned into a selector. */
export class LabelSelectorParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LabelSelectorParseError';
  }
}

export type Labels = Readonly<Record<string, string>> | undefined | null;

/** metav1.LabelSelector. */
export interface LabelSelectorSpec {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] | null }> | null;
}

/** Go's strconv.ParseInt(s, 10, 64), or undefined when it would fail. */
function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  if (n > 9223372036854775807n || n < -9223372036854775808n) return undefined;
  return n;
}

/** Go byte-wise string order (sort.Strings), not UTF-16 order. */
function compareGoStrings(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function hasLabel(labels: Labels, key: string): boolean {
  return !!labels && Object.prototype.hasOwnProperty.call(labels, key);
}

/** True when the labels satisfy one requirement (a missing key fails `in`/`=`/gt/lt and passes `notin`/`!=`). */
export function requirementMatches(r: LabelRequirement, labels: Labels): boolean {
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return hasLabel(labels, r.key) && r.values.includes(labels![r.key]!);
    case 'notin':
    case '!=':
      return !hasLabel(labels, r.key) || !r.values.includes(labels![r.key]!);
    case 'exists':
      return hasLabel(labels, r.key);
    case '!':
      return !hasLabel(labels, r.key);
    case 'gt':
    case 'lt': {
      if (!hasLabel(labels, r.key)) return false;
      const actual = parseInt64(labels![r.key]!);
      if (actual === undefined || r.values.length !== 1) return false;
      const wanted = parseInt64(r.values[0]!);
      if (wanted === undefined) return false;
      return r.operator === 'gt' ? actual > wanted : actual < wanted;
    }
  }
}

/** Requirement.String(): `!k`, `k`, `k=v`, `k in (a,b)`; multiple values are printed sorted. */
export function requirementToString(r: LabelRequirement): string {
  let s = r.operator === '!' ? `!${r.key}` : r.key;
  switch (r.operator) {
    case '=':
      s += '=';
      break;
    case '==':
      s += '==';
      break;
    case '!=':
      s += '!=';
      break;
    case 'in':
      s += ' in ';
      break;
    case 'notin':
      s += ' notin ';
      break;
    case 'gt':
      s += '>';
      break;
    case 'lt':
      s += '<';
      break;
    case 'exists':
    case '!':
      return s;
  }
  const open = r.operator === 'in' || r.operator === 'notin';
  const values = r.values.length === 1 ? r.values[0]! : [...r.values].sort(compareGoStrings).join(',');
  return open ? `${s}(${values})` : s + values;
}

/** A parsed selector: the AND of its requirements, sorted by key. */
export class LabelSelector {
  private constructor(
    readonly requirements: readonly LabelRequirement[],
    /** The Nothing() selector matches no object at all (a nil metav1.LabelSelector). */
    private readonly nothing = false,
  ) {}

  /** Matches every object; prints as the empty string. */
  static everything(): LabelSelector {
    return new LabelSelector([]);
  }

  /** Matches no object; prints as the empty string. */
  static nothing(): LabelSelector {
    return new LabelSelector([], true);
  }

  /** Builds a selector from requirements, sorting them by key (stable, so equal keys keep their order). */
  static of(requirements: LabelRequirement[]): LabelSelector {
    return new LabelSelector([...requirements].sort((a, b) => compareGoStrings(a.key, b.key)));
  }

  matches(labels: Labels): boolean {
    if (this.nothing) return false;
    return this.requirements.every((r) => requirementMatches(r, labels));
  }

  /** True for Everything() (no requirements); false for Nothing(). */
  isEmpty(): boolean {
    return !this.nothing && this.requirements.length === 0;
  }

  /** True only for the Nothing() selector. */
  isNothing(): boolean {
    return this.nothing;
  }

  /** Canonical text: requirements joined by ',' in key order, e.g. `a=b,c in (d,e),!f`. */
  toString(): string {
    return this.requirements.map(requirementToString).join(',');
  }

  /**
   * The single value the first requirement on `key` pins it to (`=`, `==`, or `in` with one value),
   * so a store can narrow a scan; undefined otherwise.
   */
  requiresExactMatch(key: string): string | undefined {
    const r = this.requirements.find((req) => req.key === key);
    if (!r) return undefined;
    if ((r.operator === '=' || r.operator === '==' || r.operator === 'in') && r.values.length === 1) return r.values[0];
    return undefined;
  }
}

/** Go's %#v of a []string, used when a values list is the bad value of a field error. */
function goStringSlice(values: readonly string[] | null): string {
  if (values === null) return '[]string(nil)';
  return `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
}

/** field.Error.Error() for an Invalid error: `<path>: Invalid value: <value>: <detail>`. */
function invalidText(path: string, renderedValue: string, detail: string): string {
  return `${path}: Invalid value: ${renderedValue}: ${detail}`;
}

/** utilerrors.NewAggregate(...).Error(): duplicates dropped, several wrapped in [a, b]. */
function aggregate(messages: string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

/**
 * Upstream validates the key against a nil field path inside the parser, which prints as `<nil>`:
 * `<nil>: Invalid value: "a/b/c": a qualified name must ...`.
 */
function keyError(key: string, path: string): string | undefined {
  const errs = isQualifiedName(key);
  return errs.length ? invalidText(path, JSON.stringify(key), errs.join('; ')) : undefined;
}

/**
 * labels.NewRequirement: validates key, operator arity and values and returns the requirement, or
 * throws LabelSelectorParseError with every problem aggregated. `values` null stands for a Go nil
 * slice (only visible in the text of an error).
 */
export function newRequirement(key: string, operator: LabelOperator, values: readonly string[] | null): LabelRequirement {
  const errs: string[] = [];
  const vals = values ?? [];
  const ke = keyError(key, 'key');
  if (ke) errs.push(ke);
  switch (operator) {
    case 'in':
    case 'notin':
      if (vals.length === 0) errs.push(invalidText('values', goStringSlice(values), "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (vals.length !== 1) errs.push(invalidText('values', goStringSlice(values), 'exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (vals.length !== 0) errs.push(invalidText('values', goStringSlice(values), 'values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (vals.length !== 1) errs.push(invalidText('values', goStringSlice(values), "for 'Gt', 'Lt' operators, exactly one value is required"));
      vals.forEach((v, i) => {
        if (parseInt64(v) === undefined) errs.push(invalidText(`values[${i}]`, JSON.stringify(v), "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
    default: {
      const supported = [...binaryOperators, 'exists', '!'].map((o) => JSON.stringify(o)).join(', ');
      errs.push(`operator: Unsupported value: ${JSON.stringify(operator)}: supported values: ${supported}`);
    }
  }
  vals.forEach((v, i) => {
    const ve = isValidLabelValue(v);
    if (ve.length) errs.push(invalidText(`values[${i}][${key}]`, JSON.stringify(v), ve.join('; ')));
  });
  if (errs.length) throw new LabelSelectorParseError(aggregate(errs));
  return { key, operator, values: [...vals] };
}

// ---- lexer -------------------------------------------------------------------------------------

type Token =
  | 'Error'
  | 'EndOfString'
  | 'ClosedPar'
  | 'Comma'
  | 'DoesNotExist'
  | 'DoubleEquals'
  | 'Equals'
  | 'GreaterThan'
  | 'Identifier'
  | 'In'
  | 'LessThan'
  | 'NotEquals'
  | 'NotIn'
  | 'OpenPar';

const literalTokens: Record<string, Token> = {
  ')': 'ClosedPar',
  ',': 'Comma',
  '!': 'DoesNotExist',
  '==': 'DoubleEquals',
  '=': 'Equals',
  '>': 'GreaterThan',
  in: 'In',
  '<': 'LessThan',
  '!=': 'NotEquals',
  notin: 'NotIn',
  '(': 'OpenPar',
};

const lookupToken = (s: string): Token | undefined => (Object.prototype.hasOwnProperty.call(literalTokens, s) ? literalTokens[s] : undefined);

const isWhitespace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecialSymbol = (ch: string): boolean => '=!(),><'.includes(ch) && ch.length === 1;
// Upstream's reader returns byte 0 at the end of input, so an embedded NUL also ends the input.
const END = '\u0000';

interface ScannedItem {
  tok: Token;
  literal: string;
}

class Lexer {
  private pos = 0;
  constructor(private readonly s: string) {}

  private read(): string {
    if (this.pos < this.s.length) return this.s[this.pos++]!;
    return END;
  }

  private unread(): void {
    this.pos--;
  }

  private scanIdOrKeyword(): ScannedItem {
    let buf = '';
    for (;;) {
      const ch = this.read();
      if (ch === END) break;
      if (isSpecialSymbol(ch) || isWhitespace(ch)) {
        this.unread();
        break;
      }
      buf += ch;
    }
    return { tok: lookupToken(buf) ?? 'Identifier', literal: buf };
  }

  /** Longest run of special symbols that forms a known token (`!=` rather than `!` then `=`). */
  private scanSpecialSymbol(): ScannedItem {
    let last: ScannedItem | undefined;
    let buf = '';
    for (;;) {
      const ch = this.read();
      if (ch === END) break;
      if (isSpecialSymbol(ch)) {
        buf += ch;
        const tok = lookupToken(buf);
        if (tok) {
          last = { tok, literal: buf };
        } else if (last) {
          this.unread();
          break;
        }
      } else {
        this.unread();
        break;
      }
    }
    return last ?? { tok: 'Error', literal: `error expected: keyword found '${buf}'` };
  }

  lex(): ScannedItem {
    let ch = this.read();
    while (isWhitespace(ch)) ch = this.read();
    if (ch === END) return { tok: 'EndOfString', literal: '' };
    this.unread();
    return isSpecialSymbol(ch) ? this.scanSpecialSymbol() : this.scanIdOrKeyword();
  }
}

// ---- parser ------------------------------------------------------------------------------------

type Context = 'KeyAndOperator' | 'Values';

class Parser {
  private items: ScannedItem[] = [];
  private position = 0;

  constructor(input: string) {
    const lexer = new Lexer(input);
    for (;;) {
      const item = lexer.lex();
      this.items.push(item);
      if (item.tok === 'EndOfString') break;
    }
  }

  /** In value position the keywords `in`/`notin` are ordinary identifiers. */
  private static inContext(item: ScannedItem, ctx: Context): ScannedItem {
    if (ctx === 'Values' && (item.tok === 'In' || item.tok === 'NotIn')) return { tok: 'Identifier', literal: item.literal };
    return item;
  }

  private lookahead(ctx: Context): ScannedItem {
    return Parser.inContext(this.items[this.position]!, ctx);
  }

  private consume(ctx: Context): ScannedItem {
    return Parser.inContext(this.items[this.position++]!, ctx);
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const { tok, literal } = this.lookahead('Values');
      if (tok === 'Identifier' || tok === 'DoesNotExist') {
        let r: LabelRequirement;
        try {
          r = this.parseRequirement();
        } catch (e) {
          throw new LabelSelectorParseError(`unable to parse requirement: ${(e as Error).message}`);
        }
        requirements.push(r);
        const next = this.consume('Values');
        if (next.tok === 'EndOfString') return requirements;
        if (next.tok === 'Comma') {
          const after = this.lookahead('Values');
          if (after.tok !== 'Identifier' && after.tok !== 'DoesNotExist') {
            throw new LabelSelectorParseError(`found '${after.literal}', expected: identifier after ','`);
          }
          continue;
        }
        throw new LabelSelectorParseError(`found '${next.literal}', expected: ',' or 'end of string'`);
      }
      if (tok === 'EndOfString') return requirements;
      throw new LabelSelectorParseError(`found '${literal}', expected: !, identifier, or 'end of string'`);
    }
  }

  private parseRequirement(): LabelRequirement {
    const { key, operator } = this.parseKeyAndInferOperator();
    if (operator === 'exists' || operator === '!') return newRequirement(key, operator, []);
    const op = this.parseOperator();
    const values = op === 'in' || op === 'notin' ? this.parseValues() : this.parseExactValue();
    return newRequirement(key, op, [...values].sort(compareGoStrings));
  }

  private parseKeyAndInferOperator(): { key: string; operator: LabelOperator | '' } {
    let operator: LabelOperator | '' = '';
    let item = this.consume('Values');
    if (item.tok === 'DoesNotExist') {
      operator = '!';
      item = this.consume('Values');
    }
    if (item.tok !== 'Identifier') throw new Error(`found '${item.literal}', expected: identifier`);
    const ke = keyError(item.literal, '<nil>');
    if (ke) throw new Error(ke);
    const next = this.lookahead('Values').tok;
    if ((next === 'EndOfString' || next === 'Comma') && operator !== '!') operator = 'exists';
    return { key: item.literal, operator };
  }

  private parseOperator(): LabelOperator {
    const { tok, literal } = this.consume('KeyAndOperator');
    switch (tok) {
      case 'In':
        return 'in';
      case 'Equals':
        return '=';
      case 'DoubleEquals':
        return '==';
      case 'GreaterThan':
        return 'gt';
      case 'LessThan':
        return 'lt';
      case 'NotIn':
        return 'notin';
      case 'NotEquals':
        return '!=';
      default:
        throw new Error(`found '${literal}', expected: ${binaryOperators.join(', ')}`);
    }
  }

  private parseValues(): Set<string> {
    const open = this.consume('Values');
    if (open.tok !== 'OpenPar') throw new Error(`found '${open.literal}' expected: '('`);
    const { tok, literal } = this.lookahead('Values');
    if (tok === 'Identifier' || tok === 'Comma') {
      const s = this.parseIdentifiersList();
      if (this.consume('Values').tok !== 'ClosedPar') throw new Error(`found '${literal}', expected: ')'`);
      return s;
    }
    if (tok === 'ClosedPar') {
      this.consume('Values');
      return new Set(['']);
    }
    throw new Error(`found '${literal}', expected: ',', ')' or identifier`);
  }

  /** Values between parentheses; empty slots (`(,a)`, `(a,)`, `(a,,b)`) count as the empty value. */
  private parseIdentifiersList(): Set<string> {
    const s = new Set<string>();
    for (;;) {
      const { tok, literal } = this.consume('Values');
      if (tok === 'Identifier') {
        s.add(literal);
        const next = this.lookahead('Values');
        if (next.tok === 'Comma') continue;
        if (next.tok === 'ClosedPar') return s;
        throw new Error(`found '${next.literal}', expected: ',' or ')'`);
      } else if (tok === 'Comma') {
        if (s.size === 0) s.add('');
        const next = this.lookahead('Values').tok;
        if (next === 'ClosedPar') {
          s.add('');
          return s;
        }
        if (next === 'Comma') {
          this.consume('Values');
          s.add('');
        }
      } else {
        throw new Error(`found '${literal}', expected: ',', or identifier`);
      }
    }
  }

  /** The value after `=`, `==`, `!=`, `>` or `<`; nothing (end or ',') means the empty value. */
  private parseExactValue(): Set<string> {
    const ahead = this.lookahead('Values').tok;
    if (ahead === 'EndOfString' || ahead === 'Comma') return new Set(['']);
    const { tok, literal } = this.consume('Values');
    if (tok === 'Identifier') return new Set([literal]);
    throw new Error(`found '${literal}', expected: identifier`);
  }
}

/**
 * labels.Parse: the empty string gives Everything(). Throws LabelSelectorParseError with the
 * upstream message on any syntax or validation problem.
 */
export function parseLabelSelector(selector: string): LabelSelector {
  return LabelSelector.of(new Parser(selector).parse());
}

/**
 * metav1.ParseToLabelSelector: a selector string as a LabelSelector object (what `--location-selector` or
 * `--selector` flags send): `k=v` / `k==v` into matchLabels, `in`, `notin`, `k` and `!k` into matchExpressions in the
 * order written (values sorted); `!=`, `>` and `<` have no LabelSelector form. Empty maps and lists are left out, as
 * Go's omitempty leaves them.
 */
export function parseToLabelSelectorSpec(selector: string): LabelSelectorSpec {
  const matchLabels: Record<string, string> = {};
  const matchExpressions: NonNullable<LabelSelectorSpec['matchExpressions']> = [];
  const operators: Partial<Record<LabelOperator, string>> = { in: 'In', notin: 'NotIn', exists: 'Exists', '!': 'DoesNotExist' };
  let requirements: LabelRequirement[];
  try {
    requirements = new Parser(selector).parse();
  } catch (err) {
    throw new LabelSelectorParseError(`couldn't parse the selector string "${selector}": ${(err as Error).message}`);
  }
  for (const r of requirements) {
    if (r.operator === '=' || r.operator === '==') {
      if (r.values.length !== 1) throw new LabelSelectorParseError('equals operator must have exactly one value');
      matchLabels[r.key] = r.values[0]!;
      continue;
    }
    const op = operators[r.operator];
    if (!op) throw new LabelSelectorParseError(`${JSON.stringify(r.operator)} isn't supported in label selectors`);
    matchExpressions.push({ key: r.key, operator: op, values: [...r.values] });
  }
  const spec: LabelSelectorSpec = {};
  if (Object.keys(matchLabels).length) spec.matchLabels = matchLabels;
  if (matchExpressions.length) spec.matchExpressions = matchExpressions.map((e) => (e.values?.length ? e : { key: e.key, operator: e.operator }));
  return spec;
}

/** SelectorFromSet: `k=v` for every entry (not validated), Everything() for an empty set. */
export function selectorFromSet(labels: Record<string, string> | undefined | null): LabelSelector {
  return LabelSelector.of(Object.entries(labels ?? {}).map(([key, v]) => ({ key, operator: '=' as const, values: [v] })));
}

/**
 * metav1.LabelSelectorAsSelector: null/undefined → Nothing(); no matchLabels and no
 * matchExpressions → Everything(); otherwise `=` per matchLabels entry plus In/NotIn/Exists/
 * DoesNotExist per expression, all validated. Throws LabelSelectorParseError for an unknown
 * operator (`"Foo" is not a valid label selector operator`) or an invalid key/value.
 */
export function fromLabelSelector(spec: LabelSelectorSpec | null | undefined): LabelSelector {
  if (spec === null || spec === undefined) return LabelSelector.nothing();
  const matchLabels = Object.entries(spec.matchLabels ?? {});
  const expressions = spec.matchExpressions ?? [];
  if (matchLabels.length + expressions.length === 0) return LabelSelector.everything();
  const reqs: LabelRequirement[] = matchLabels.map(([k, v]) => newRequirement(k, '=', [v]));
  for (const expr of expressions) {
    let op: LabelOperator;
    switch (expr.operator) {
      case 'In':
        op = 'in';
        break;
      case 'NotIn':
        op = 'notin';
        break;
      case 'Exists':
        op = 'exists';
        break;
      case 'DoesNotExist':
        op = '!';
        break;
      default:
        throw new LabelSelectorParseError(`${JSON.stringify(expr.operator)} is not a valid label selector operator`);
    }
    const values = expr.values && expr.values.length ? [...expr.values] : null;
    reqs.push(newRequirement(expr.key, op, values));
  }
  return LabelSelector.of(reqs);
}

/**
 * metav1.FormatLabelSelector, used by printers: `<none>` for an empty selector, `<error>` when it
 * cannot be converted, otherwise the canonical string.
 */
export function formatLabelSelector(spec: LabelSelectorSpec | null | undefined): string {
  let s: string;
  try {
    s = fromLabelSelector(spec).toString();
  } catch {
    return '<error>';
  }
  return s.length === 0 ? '<none>' : s;
}
