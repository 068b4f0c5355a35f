/**
 * Cost of CEL rules, in the spirit of cel-go's cost estimator as Kubernetes uses it: every operation costs about 1,
 * string operations cost a tenth of the string length, and a comprehension costs its body once per element. Sizes
 * come from the schema (maxItems, maxLength, maxProperties) or, when unbounded, from the largest request
 * (3 MiB) divided by the smallest serialized element, as upstream does.
 *
 * The same walk gives the runtime cost when values are known: sizes are then the actual sizes (for comprehension
 * variables, the largest element), which is how the per-call limit and the per-request budget are enforced without
 * instrumenting the interpreter.
 */
import type { ASTNode } from '@marcbachmann/cel-js';
import type { Structural } from '../structural.js';

/** Upstream limits (k8s.io/apiserver pkg/apis/cel/config.go and apiextensions validation). */
export const PerCallLimit = 1_000_000;
export const RuntimeCELCostBudget = 10_000_000;
export const StaticEstimatedCostLimit = 10_000_000;
export const StaticEstimatedCRDCostLimit = 100_000_000;
export const MaxRequestSizeBytes = 3 * 1024 * 1024;

/** What the estimator knows about a sub-expression. */
export interface Sym {
  schema?: Structural;
  /** True when `value` holds the actual runtime value. */
  known?: boolean;
  value?: unknown;
  /** An explicit size bound (e.g. the result of map()). */
  size?: number;
  /** The element of a list result whose elements are not described by a schema. */
  elem?: Sym;
  /** Derived from `self`/`oldSelf` in a static probe (see valueIndependentCost). */
  input?: boolean;
}

/** Set while valueIndependentCost probes a rule: records whether the cost consulted anything about the values. */
let probe: { dependent: boolean } | undefined;

/** Notes, during a probe, that the cost of the expression depends on the value behind `sym`. */
function consult(sym: Sym | undefined): void {
  if (probe && sym?.input) probe.dependent = true;
}

const unknownSym: Sym = {};

function minSerializedSize(s: Structural | undefined): number {
  if (!s) return 1;
  let size: number;
  switch (s.type) {
    case 'boolean':
      size = 4;
      break;
    case 'string':
    case 'object':
    case 'array':
      size = 2;
      break;
    default:
      size = 1;
  }
  return s.nullable ? Math.min(size, 4) : size;
}

/** How many elements an unbounded list or map of `elem` can have in a request of the maximum size. */
export function unboundedCardinality(elem: Structural | undefined): number {
  return Math.floor((MaxRequestSizeBytes - 2) / (minSerializedSize(elem) + 1));
}

function actualSize(v: unknown): number {
  if (typeof v === 'string') return v.length;
  if (Array.isArray(v)) return v.length;
  if (v instanceof Uint8Array) return v.length;
  if (v !== null && typeof v === 'object') return Object.keys(v).length;
  return 0;
}

/** The largest size the value of `sym` can have (string length, list length or map entries). */
export function maxSize(sym: Sym): number {
  consult(sym);
  if (sym.size !== undefined) return sym.size;
  if (sym.known) return actualSize(sym.value);
  const s = sym.schema;
  if (!s) return MaxRequestSizeBytes;
  if (s.type === 'array') return s.maxItems ?? unboundedCardinality(s.items);
  if (s.type === 'string') return s.maxLength ?? MaxRequestSizeBytes;
  if (s.type === 'object' && s.additionalProperties) return s.maxProperties ?? unboundedCardinality(s.additionalProperties.schema);
  if (s.type === 'object') return s.properties?.size ?? MaxRequestSizeBytes;
  return s.intOrString ? MaxRequestSizeBytes : 1;
}

function elementOf(sym: Sym): Sym {
  if (sym.elem) return sym.elem;
  if (sym.known) {
    const v = sym.value;
    const schema = sym.schema?.items ?? sym.schema?.additionalProperties?.schema;
    if (Array.isArray(v)) {
      let best: unknown = undefined;
      for (const e of v) if (best === undefined || actualSize(e) > actualSize(best)) best = e;
      return { schema: sym.schema?.items, known: v.length > 0, value: best };
    }
    if (v !== null && typeof v === 'object') {
      // Map comprehensions iterate keys.
      const keys = Object.keys(v);
      const longest = keys.reduce((a, k) => (k.length > a.length ? k : a), '');
      return { known: true, value: longest };
    }
    return { schema };
  }
  const s = sym.schema;
  if (s?.type === 'array') return { schema: s.items, input: sym.input };
  return sym.input ? { input: true } : unknownSym;
}

function select(sym: Sym, field: string): Sym {
  const s = sym.schema;
  const sub = s?.properties?.get(field) ?? s?.additionalProperties?.schema;
  if (sym.known) {
    const v = sym.value;
    const value = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>)[field] : undefined;
    return { schema: sub, known: true, value };
  }
  if (sym.input) return { schema: sub, input: true };
  return sub ? { schema: sub } : unknownSym;
}

function index(sym: Sym, key: unknown): Sym {
  const s = sym.schema;
  const sub = s?.items ?? s?.additionalProperties?.schema;
  if (sym.known) {
    const v = sym.value;
    let value: unknown;
    if (Array.isArray(v) && typeof key === 'bigint') value = v[Number(key)];
    else if (v !== null && typeof v === 'object' && typeof key === 'string') value = (v as Record<string, unknown>)[key];
    else return elementOf(sym);
    return { schema: sub, known: true, value };
  }
  if (sym.input) return { schema: sub, input: true };
  return sub ? { schema: sub } : elementOf(sym);
}

const macros = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);
const stringTraversals = new Set([
  'contains',
  'startsWith',
  'endsWith',
  'indexOf',
  'lastIndexOf',
  'split',
  'replace',
  'lowerAscii',
  'upperAscii',
  'trim',
  'charAt',
  'substring',
  'reverse',
  'quantity',
  'isQuantity',
  'url',
  'isURL',
  'ip',
  'isIP',
  'cidr',
  'isCIDR',
  'timestamp',
  'duration',
  'string',
  'int',
  'double',
  'bytes',
]);
const regexFunctions = new Set(['matches', 'find', 'findAll']);
const listTraversals = new Set(['isSorted', 'sum', 'min', 'max', 'indexOf', 'lastIndexOf', 'join']);

const traversal = (n: number): number => Math.ceil(0.1 * n);

interface Result {
  cost: number;
  sym: Sym;
}

/**
 * Estimates the cost of `ast` with `self`/`oldSelf` described by `self` (a schema for the static estimate, or the
 * actual value with `known: true` for the runtime cost). Other identifiers resolve through `scope`.
 */
export function estimateCost(ast: ASTNode, self: Sym, oldSelf: Sym = self): number {
  const scope = new Map<string, Sym>([
    ['self', self],
    ['oldSelf', oldSelf],
  ]);
  return Math.min(walk(ast, scope).cost, Number.MAX_SAFE_INTEGER);
}

/**
 * The runtime cost of `ast` when it is the same for every value of `self`/`oldSelf` described by `schema` (the
 * expression never looks at a size or a dynamic type, e.g. `self.minReplicas <= self.maxReplicas` on integers), so
 * it can be computed once at compile time; undefined when the cost depends on the values.
 */
export function valueIndependentCost(ast: ASTNode, schema: Structural): number | undefined {
  const outer = probe;
  probe = { dependent: false };
  try {
    const input: Sym = { schema, input: true };
    const cost = estimateCost(ast, input, input);
    return probe.dependent ? undefined : cost;
  } finally {
    probe = outer;
  }
}

function walk(n: ASTNode, scope: Map<string, Sym>): Result {
  switch (n.op) {
    case 'value':
      return { cost: 0, sym: { known: true, value: n.args } };
    case 'id':
      return { cost: 1, sym: scope.get(n.args) ?? unknownSym };
    case '.':
    case '.?': {
      const [obj, field] = n.args;
      const r = walk(obj, scope);
      return { cost: r.cost + 1, sym: select(r.sym, field) };
    }
    case '[]':
    case '[?]': {
      const [obj, key] = n.args;
      const r = walk(obj, scope);
      const k = walk(key, scope);
      return { cost: r.cost + k.cost + 1, sym: index(r.sym, k.sym.known ? k.sym.value : undefined) };
    }
    case '!_':
    case '-_': {
      const r = walk(n.args, scope);
      return { cost: r.cost + 1, sym: unknownSym };
    }
    case '&&':
    case '||': {
      const [a, b] = n.args;
      return { cost: walk(a, scope).cost + walk(b, scope).cost, sym: unknownSym };
    }
    case '?:': {
      const [c, a, b] = n.args;
      const ra = walk(a, scope);
      const rb = walk(b, scope);
      return { cost: walk(c, scope).cost + Math.max(ra.cost, rb.cost), sym: ra.cost >= rb.cost ? ra.sym : rb.sym };
    }
    case 'list': {
      let cost = 10;
      let elem: Sym = unknownSym;
      for (const e of n.args) {
        const r = walk(e, scope);
        cost += r.cost;
        elem = r.sym;
      }
      return { cost, sym: { size: n.args.length, elem } };
    }
    case 'map': {
      let cost = 30;
      for (const [k, v] of n.args) cost += walk(k, scope).cost + walk(v, scope).cost;
      return { cost, sym: { size: n.args.length } };
    }
    case 'call':
      return call(n.args[0], undefined, n.args[1], scope);
    case 'rcall':
      return call(n.args[0], n.args[1], n.args[2], scope);
    case 'in': {
      const [a, b] = n.args;
      const ra = walk(a, scope);
      const rb = walk(b, scope);
      return { cost: ra.cost + rb.cost + 1 + maxSize(rb.sym), sym: unknownSym };
    }
    default: {
      // Binary operators: comparisons and arithmetic; strings and lists cost by their size.
      const [a, b] = n.args as [ASTNode, ASTNode];
      const ra = walk(a, scope);
      const rb = walk(b, scope);
      // Sides not derived from self/oldSelf are looked at first, so that `self.name != ''` (an empty literal bounds
      // the traversal to 0 whatever the name) stays a value-independent cost.
      const [first, second] = ra.sym.input ? [rb.sym, ra.sym] : [ra.sym, rb.sym];
      const sized = isSized(first) || isSized(second);
      let extra = 0;
      if (sized) {
        const firstSize = maxSize(first);
        extra = traversal(firstSize === 0 ? 0 : Math.min(firstSize, maxSize(second)));
      }
      const sym: Sym = n.op === '+' && sized ? { size: maxSize(ra.sym) + maxSize(rb.sym), elem: elementOf(ra.sym) } : unknownSym;
      return { cost: ra.cost + rb.cost + 1 + extra, sym };
    }
  }
}

function isSized(sym: Sym): boolean {
  if (sym.size !== undefined) return true;
  if (sym.known) return typeof sym.value === 'string' || Array.isArray(sym.value) || (typeof sym.value === 'object' && sym.value !== null);
  const t = sym.schema?.type;
  // A declared number or boolean is never sized whatever its value (or absence); anything else may be.
  if (sym.input && !((t === 'integer' || t === 'number' || t === 'boolean') && !sym.schema?.intOrString)) consult(sym);
  return t === 'string' || t === 'array' || t === 'object';
}

function call(name: string, receiver: ASTNode | undefined, args: ASTNode[], scope: Map<string, Sym>): Result {
  if (receiver && macros.has(name) && args.length >= 2 && args[0]!.op === 'id') {
    const r = walk(receiver, scope);
    const count = maxSize(r.sym);
    const inner = new Map(scope);
    const elem = elementOf(r.sym);
    inner.set(args[0]!.args as string, elem);
    let body = 0;
    let last: Result = { cost: 0, sym: unknownSym };
    for (const a of args.slice(1)) {
      last = walk(a, inner);
      body += last.cost;
    }
    const result: Sym = name === 'map' ? { size: count, elem: last.sym } : name === 'filter' ? { size: count, elem } : unknownSym;
    const build = name === 'map' || name === 'filter' ? count : 0;
    return { cost: r.cost + count * (body + 1) + build, sym: result };
  }
  if (name === 'bind' && receiver?.op === 'id' && receiver.args === 'cel' && args.length === 3 && args[0]!.op === 'id') {
    const init = walk(args[1]!, scope);
    const inner = new Map(scope);
    inner.set(args[0]!.args as string, init.sym);
    const body = walk(args[2]!, inner);
    return { cost: init.cost + body.cost, sym: body.sym };
  }
  let cost = 1;
  let recv: Result | undefined;
  if (receiver) {
    recv = walk(receiver, scope);
    cost += recv.cost;
  }
  const argResults = args.map((a) => walk(a, scope));
  for (const a of argResults) cost += a.cost;
  const subject = recv?.sym ?? argResults[0]?.sym ?? unknownSym;
  if (name === 'has' || name === 'size') return { cost, sym: unknownSym };
  if (regexFunctions.has(name)) {
    const pattern = argResults[receiver ? 0 : 1]?.sym;
    consult(pattern);
    const patternLength = pattern?.known && typeof pattern.value === 'string' ? pattern.value.length : 16;
    cost += traversal(maxSize(subject)) * Math.max(1, Math.ceil(patternLength / 4));
    return { cost, sym: name === 'findAll' ? { size: maxSize(subject), elem: { size: maxSize(subject) } } : { size: maxSize(subject) } };
  }
  if (receiver && listTraversals.has(name)) consult(subject);
  if (receiver && listTraversals.has(name) && (subject.schema?.type === 'array' || Array.isArray(subject.value) || subject.elem)) {
    cost += maxSize(subject);
    return { cost, sym: name === 'join' ? unknownSym : elementOf(subject) };
  }
  if (stringTraversals.has(name)) {
    cost += traversal(maxSize(subject));
    return { cost, sym: name === 'split' ? { size: maxSize(subject), elem: { size: maxSize(subject) } } : unknownSym };
  }
  return { cost, sym: unknownSym };
}
