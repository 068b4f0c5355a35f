/**
 * What makes two servers' answers differ without either being wrong: uids, timestamps, resourceVersions, the random
 * suffix of generated names, continue tokens, the server's version. `normalise` replaces each with a placeholder so
 * the rest can be compared exactly; `differences` lists the JSON paths where two normalised answers differ.
 */
import type { HttpResponse } from '../helpers/harness.js';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

export interface Answer {
  status: number;
  /** Warning headers, in order, without the `299 - ` prefix. */
  warnings: string[];
  body: unknown;
}

function warningsOf(r: HttpResponse): string[] {
  const h = r.headers['warning'];
  const list = h === undefined ? [] : Array.isArray(h) ? h : splitWarnings(h);
  return list.map((w) => w.replace(/^299 - "/, '').replace(/"$/, '').replace(/\\"/g, '"'));
}

/** Node joins repeated headers with ", "; a warning is `299 - "text"`, so split before each `299 - "`. */
function splitWarnings(h: string): string[] {
  return h.split(/, (?=299 - ")/);
}

export function normaliseResponse(r: HttpResponse, generated: Map<string, string>): Answer {
  const body = r.json === undefined ? (r.text.length > 0 ? { nonJSON: r.text.trim() } : null) : normaliseValue(r.json, generated, []);
  return { status: r.status, warnings: warningsOf(r).map((w) => normaliseString(w, generated)), body };
}

function normaliseString(s: string, generated: Map<string, string>): string {
  // Go's %#v prints pointers as addresses: (*bool)(0xc000123456).
  let out = s
    .replace(UUID, '<uid>')
    .replace(/\(0x[0-9a-f]+\)/g, '(<pointer>)')
    .replace(/ResourceVersion in record \(\d+\)/g, 'ResourceVersion in record (<rv>)')
    .replace(/current: \d+/g, 'current: <rv>')
    .replace(/too old resource version: (\d+) \(\d+\)/g, 'too old resource version: $1 (<rv>)')
    // an object quoted as JSON inside a message (a patched object's Invalid value)
    .replace(/(\\?"resourceVersion\\?":\\?")\d+/g, '$1<rv>')
    .replace(/(\\?"(?:creationTimestamp|time)\\?":\\?")\d{4}-\d\d-\d\dT[\d:.]+Z/g, '$1<time>');
  for (const [name, placeholder] of generated) out = out.split(name).join(placeholder);
  return out;
}

/**
 * Records `metadata.name` of an object created from a generateName (`<prefix><5 random characters>`), so every later
 * mention of it — in this answer and the following ones of the same case — reads as `<prefix><generated-N>`.
 */
export function recordGeneratedNames(json: unknown, generated: Map<string, string>, sentGenerateName?: string): void {
  // A refused create names the generated name in its message (and a Status has no metadata.name to record it from):
  // the prefix followed by the 5 random characters.
  if (sentGenerateName && isObject(json) && json.kind === 'Status' && typeof json.message === 'string') {
    const escaped = sentGenerateName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    for (const m of json.message.matchAll(new RegExp(`${escaped}[a-z0-9]{5}`, 'g'))) {
      if (!generated.has(m[0])) generated.set(m[0], `${sentGenerateName}<generated-${generated.size + 1}>`);
    }
  }
  const items = isObject(json) && Array.isArray(json.items) ? json.items : [json];
  for (const o of items) {
    if (!isObject(o) || !isObject(o.metadata)) continue;
    const { name, generateName } = o.metadata as Record<string, unknown>;
    if (typeof name === 'string' && typeof generateName === 'string' && name.startsWith(generateName) && name !== generateName && !generated.has(name)) {
      generated.set(name, `${generateName}<generated-${generated.size + 1}>`);
    }
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const TIME_KEYS = new Set(['creationTimestamp', 'deletionTimestamp', 'time', 'lastTransitionTime', 'lastPhaseTransitionTime', 'startTime', 'lastUpdateTime', 'lastProbeTime']);

function normaliseValue(v: unknown, generated: Map<string, string>, path: string[]): unknown {
  if (Array.isArray(v)) return v.map((x, i) => normaliseValue(x, generated, [...path, String(i)]));
  if (typeof v === 'string') return normaliseString(v, generated);
  if (!isObject(v)) return v;
  const out: Record<string, unknown> = {};
  const parent = path[path.length - 1];
  for (const [k, x] of Object.entries(v)) {
    if (parent === 'metadata' || parent === undefined || path.length === 0) {
      if (k === 'resourceVersion' && typeof x === 'string') {
        out[k] = x === '' ? '' : '<rv>';
        continue;
      }
      if (k === 'continue' && typeof x === 'string' && x !== '') {
        out[k] = '<continue>';
        continue;
      }
    }
    if (k === 'uid' && typeof x === 'string') {
      out[k] = x.replace(UUID, '<uid>');
      continue;
    }
    if (TIME_KEYS.has(k) && typeof x === 'string' && RFC3339.test(x)) {
      out[k] = '<time>';
      continue;
    }
    if (k === 'managedFields' && parent === 'metadata' && Array.isArray(x)) {
      out[k] = sortManagedFields(x.map((e, i) => normaliseValue(e, generated, [...path, k, String(i)])));
      continue;
    }
    // managedFields name list items by key, an owner reference by its uid (`k:{"uid":"..."}`)
    out[k.replace(UUID, '<uid>')] = normaliseValue(x, generated, [...path, k]);
  }
  return out;
}

/**
 * Both servers order managedFields by operation, then the entry's time in whole seconds, then manager, API version
 * and subresource. Times are not compared (two writes may fall in one second on one server and in two on the other),
 * so neither is their order: entries are put in the order the servers would give them were their times equal.
 */
function sortManagedFields(entries: unknown[]): unknown[] {
  const key = (e: unknown) => {
    const m = (isObject(e) ? e : {}) as Record<string, unknown>;
    return [m.operation, m.manager, m.apiVersion, m.subresource].map((x) => String(x ?? '')).join('\u0000');
  };
  return [...entries].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** Paths (a.b.0.c) at which a and b differ, at most `limit` of them. */
export function differences(a: unknown, b: unknown, limit = 8, path = ''): string[] {
  const out: string[] = [];
  walk(a, b, path, out, limit);
  return out;
}

function walk(a: unknown, b: unknown, path: string, out: string[], limit: number): void {
  if (out.length >= limit) return;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) out.push(`${path || '.'}: length ${a.length} vs ${b.length}`);
    for (let i = 0; i < Math.min(a.length, b.length); i++) walk(a[i], b[i], `${path}.${i}`, out, limit);
    return;
  }
  if (isObject(a) && isObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of [...keys].sort()) {
      if (!(k in a)) out.push(`${path}.${k}: missing in the reference`);
      else if (!(k in b)) out.push(`${path}.${k}: missing here`);
      else walk(a[k], b[k], `${path}.${k}`, out, limit);
      if (out.length >= limit) return;
    }
    return;
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push(`${path || '.'}: ${short(a)} vs ${short(b)}`);
}

function short(v: unknown): string {
  const s = JSON.stringify(v) ?? 'undefined';
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
}
