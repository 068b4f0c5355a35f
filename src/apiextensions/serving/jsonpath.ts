/**
 * The subset of kubectl's JSONPath that CRD printer columns use (k8s.io/client-go/util/jsonpath): `.a.b`, `['a.b']`,
 * `[n]` (negative from the end), `[*]`, `..`-free filters `[?(@.type=="Ready")]` with ==, != and bare existence, and
 * a leading `$`. A path is parsed once into steps and then evaluated many times.
 */
type Step =
  | { kind: 'field'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'wildcard' }
  | { kind: 'filter'; path: Step[]; op?: '==' | '!='; value?: unknown };

export interface CompiledJSONPath {
  /** Every value the path reaches (a filter or wildcard can reach several; a missing field reaches none). */
  find(root: unknown): unknown[];
}

/** Parses `path` (with or without `{}` braces). Throws an Error with a readable message for unsupported syntax. */
export function compileJSONPath(path: string): CompiledJSONPath {
  let p = path.trim();
  if (p.startsWith('{') && p.endsWith('}')) p = p.slice(1, -1).trim();
  if (p.startsWith('$')) p = p.slice(1);
  const steps = parseSteps(p);
  return { find: (root) => evaluate(steps, [root]) };
}

function parseSteps(src: string): Step[] {
  const steps: Step[] = [];
  let i = 0;
  while (i < src.length) {
    const ch = src[i]!;
    if (ch === '.') {
      i++;
      let j = i;
      while (j < src.length && src[j] !== '.' && src[j] !== '[') j++;
      const name = src.slice(i, j);
      if (name === '*') steps.push({ kind: 'wildcard' });
      else if (name) steps.push({ kind: 'field', name });
      i = j;
    } else if (ch === '[') {
      const close = matchingBracket(src, i);
      const inner = src.slice(i + 1, close).trim();
      i = close + 1;
      if (inner === '*') steps.push({ kind: 'wildcard' });
      else if (/^-?\d+$/.test(inner)) steps.push({ kind: 'index', index: Number(inner) });
      else if (/^'.*'$|^".*"$/.test(inner)) steps.push({ kind: 'field', name: inner.slice(1, -1) });
      else if (inner.startsWith('?(') && inner.endsWith(')')) steps.push(parseFilter(inner.slice(2, -1).trim()));
      else throw new Error(`unsupported JSONPath segment [${inner}]`);
    } else {
      let j = i;
      while (j < src.length && src[j] !== '.' && src[j] !== '[') j++;
      steps.push({ kind: 'field', name: src.slice(i, j) });
      i = j;
    }
  }
  return steps;
}

function matchingBracket(src: string, open: number): number {
  let depth = 0;
  let quote = '';
  for (let i = open; i < src.length; i++) {
    const c = src[i]!;
    if (quote) {
      if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '[') depth++;
    else if (c === ']' && --depth === 0) return i;
  }
  throw new Error(`unclosed [ in JSONPath ${src}`);
}

function parseFilter(expr: string): Step {
  const m = /^@((?:\.[^\s=!]+)*)\s*(==|!=)\s*(.+)$/.exec(expr);
  if (m) {
    const raw = m[3]!.trim();
    let value: unknown;
    if (/^'.*'$/.test(raw)) value = raw.slice(1, -1);
    else {
      try {
        value = JSON.parse(raw);
      } catch {
        value = raw;
      }
    }
    return { kind: 'filter', path: parseSteps(m[1]!), op: m[2] as '==' | '!=', value };
  }
  const e = /^@((?:\.[^\s=!]+)*)$/.exec(expr);
  if (e) return { kind: 'filter', path: parseSteps(e[1]!) };
  throw new Error(`unsupported JSONPath filter ${expr}`);
}

function evaluate(steps: Step[], start: unknown[]): unknown[] {
  let current = start;
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of current) {
      switch (step.kind) {
        case 'field':
          if (v && typeof v === 'object' && !Array.isArray(v) && Object.hasOwn(v, step.name)) next.push((v as Record<string, unknown>)[step.name]);
          break;
        case 'index':
          if (Array.isArray(v)) {
            const i = step.index < 0 ? v.length + step.index : step.index;
            if (i >= 0 && i < v.length) next.push(v[i]);
          }
          break;
        case 'wildcard':
          if (Array.isArray(v)) next.push(...v);
          else if (v && typeof v === 'object') next.push(...Object.values(v));
          break;
        case 'filter': {
          const items = Array.isArray(v) ? v : v && typeof v === 'object' ? Object.values(v) : [];
          for (const item of items) {
            const found = evaluate(step.path, [item]);
            if (step.op === undefined ? found.length > 0 : found.some((f) => (step.op === '==' ? looseEqual(f, step.value) : !looseEqual(f, step.value)))) next.push(item);
          }
          break;
        }
      }
    }
    current = next;
  }
  return current;
}

function looseEqual(a: unknown, b: unknown): boolean {
  if (typeof a === typeof b) return a === b;
  return String(a) === String(b);
}

/** Splits a simple `.a.b.c` path (scale subresource paths) into its field names. */
export function simplePathFields(path: string): string[] {
  return path.split('.').filter((s) => s !== '');
}

/** Reads a simple `.a.b` path; undefined when any step is missing. */
export function getSimplePath(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const f of simplePathFields(path)) {
    if (!cur || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[f];
  }
  return cur;
}

/** Writes a simple `.a.b` path, creating intermediate objects. */
export function setSimplePath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const fields = simplePathFields(path);
  let cur: Record<string, unknown> = obj;
  for (const f of fields.slice(0, -1)) {
    const next = cur[f];
    if (!next || typeof next !== 'object' || Array.isArray(next)) cur[f] = {};
    cur = cur[f] as Record<string, unknown>;
  }
  cur[fields[fields.length - 1]!] = value;
}
