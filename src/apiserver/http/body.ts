import type { IncomingMessage } from 'node:http';
import { parseAllDocuments } from 'yaml';
import { errors, StatusError } from '../../apimachinery/status.js';
import { isPlainObject } from '../../apimachinery/object.js';
import { decodeKubernetesProtobuf } from '../../apimachinery/protobuf/decode.js';
import { bareMediaType } from './negotiation.js';
import { goJSONSyntaxError } from '../../apimachinery/go-json-syntax.js';

/** kube-apiserver's default limit on request bodies (MaxRequestBodyBytes, 3 MiB). */
export const maxRequestBodyBytes = 3 * 1024 * 1024;

/**
 * Reads the request body, refusing (413) to buffer more than the limit. Listens for data/end directly: an async
 * iterator over the request costs several microseconds of stream plumbing per request on the create path.
 */
/** Bodies read before the handler that serves the request (keepBody), by request. */
const keptBodies = new WeakMap<IncomingMessage, Buffer>();

/**
 * Hands a body already read back to whoever reads the request next: a connect handler's accepts() that had to look at
 * the body to decide, and declined, leaves it for the generic handler.
 */
export function keepBody(req: IncomingMessage, body: Buffer): void {
  keptBodies.set(req, body);
}

export function readBody(req: IncomingMessage, limit = maxRequestBodyBytes): Promise<Buffer> {
  const kept = keptBodies.get(req);
  if (kept) return Promise.resolve(kept);
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) {
    req.resume();
    return Promise.reject(errors.requestEntityTooLarge(`limit is ${limit}`));
  }
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  // The client may have gone while earlier steps (authentication, a home workspace) were awaited: its close event
  // has passed, and listeners attached now would wait forever.
  if (req.destroyed) return Promise.reject(new Error('request body aborted before it ended'));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        done();
        req.resume(); // drain the rest so the connection can answer
        reject(errors.requestEntityTooLarge(`limit is ${limit}`));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    };
    const onError = (err: Error) => {
      done();
      reject(err);
    };
    // The client went away before the body ended (the iterator this replaces failed the same way). After a normal
    // end the listeners are gone, so this only runs for a request destroyed first.
    const onClose = () => {
      done();
      reject(new Error('request body aborted before it ended'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

export type BodyFormat = 'json' | 'yaml' | 'protobuf';

export function bodyFormat(contentType: string | undefined): BodyFormat | undefined {
  const t = bareMediaType(contentType);
  if (t === '' || t === 'application/json') return 'json';
  if (t === 'application/yaml' || t === 'application/x-yaml' || t === 'text/yaml') return 'yaml';
  if (t === 'application/vnd.kubernetes.protobuf') return 'protobuf';
  return undefined;
}

export interface DecodedBody {
  object: Record<string, unknown>;
  format: BodyFormat;
  /** Keys that appeared twice in a JSON body (for fieldValidation Strict/Warn). */
  duplicateFields: string[];
  /** The JSON text, kept only when it has duplicate fields (to order them among the unknown fields). */
  text?: string;
}

/**
 * Decodes a request body into a JSON object. `what` names the expected kind for error messages, e.g. "ConfigMap" in
 * version "v1". Malformed input is a 400 with upstream's wording.
 */
export function decodeBody(buf: Buffer, contentType: string | undefined, what: { kind: string; version: string }): DecodedBody {
  const format = bodyFormat(contentType);
  if (!format) {
    throw errors.unsupportedMediaType(String(contentType), ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf']);
  }
  const prefix = `${what.kind} in version "${what.version}" cannot be handled as a ${what.kind}`;
  if (buf.length === 0) throw errors.badRequest(`${prefix}: the request body is empty`);
  if (format === 'protobuf') {
    try {
      const decoded = decodeKubernetesProtobuf(buf);
      return { object: decoded.object, format, duplicateFields: [] };
    } catch (err) {
      if (err instanceof StatusError) throw err;
      throw errors.badRequest(`${prefix}: ${(err as Error).message}`);
    }
  }
  if (format === 'yaml') {
    let docs;
    try {
      docs = parseAllDocuments(buf.toString('utf8'), { intAsBigInt: false, uniqueKeys: true });
    } catch (err) {
      throw errors.badRequest(`${prefix}: error converting YAML to JSON: ${(err as Error).message}`);
    }
    const list = Array.isArray(docs) ? docs : [docs];
    const doc = list[0];
    if (!doc || doc.errors.length) {
      throw errors.badRequest(`${prefix}: error converting YAML to JSON: ${doc?.errors[0]?.message ?? 'empty document'}`);
    }
    const value = doc.toJS();
    if (!isPlainObject(value)) throw errors.badRequest(`${prefix}: the body is not a YAML mapping`);
    return { object: value, format, duplicateFields: [] };
  }
  const text = buf.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Upstream cannot even read apiVersion/kind from such a body, so it does not name a kind it was handled as
    // (endpoints/handlers transformDecodeError): "the object provided is unrecognized (must be of type X)".
    throw errors.badRequest(
      `the object provided is unrecognized (must be of type ${what.kind}): couldn't get version/kind; json parse error: ${describeJsonError(text)} (${summarizeBody(buf)})`,
    );
  }
  if (!isPlainObject(value)) throw errors.badRequest(`${prefix}: json: cannot unmarshal ${jsonTypeName(value)} into Go value of type struct`);
  // The serializer first reads apiVersion and kind into an anonymous struct of two strings (json.SimpleMetaFactory):
  // either of another JSON type (null aside) is its first saved type error, and the kind is not known yet.
  for (const key of Object.keys(value)) {
    if ((key === 'apiVersion' || key === 'kind') && value[key] !== null && typeof value[key] !== 'string') {
      throw errors.badRequest(
        `the object provided is unrecognized (must be of type ${what.kind}): couldn't get version/kind; json parse error: ` +
          `json: cannot unmarshal ${jsonTypeName(value[key])} into Go struct field .${key} of type string (${summarizeBody(buf)})`,
      );
    }
  }
  // JSON.parse keeps one value per repeated key, so a body without duplicates has exactly as many keys in its text as
  // in the parsed value: counting both is a few µs, the path-tracking scan an order more, so it runs only on a mismatch.
  const duplicateFields = countTextKeys(text) === countParsedKeys(value) ? [] : findDuplicateKeys(text);
  return { object: value, format, duplicateFields, ...(duplicateFields.length ? { text } : {}) };
}

/** Object keys written in JSON text: strings followed (after whitespace) by a colon. */
export function countTextKeys(text: string): number {
  let keys = 0;
  let i = text.indexOf('"');
  const n = text.length;
  while (i >= 0 && i < n) {
    // Find the closing quote: one preceded by an even number of backslashes.
    let j = i + 1;
    for (;;) {
      const q = text.indexOf('"', j);
      if (q < 0) return keys;
      let b = q - 1;
      while (b > i && text.charCodeAt(b) === 92) b--;
      if ((q - 1 - b) % 2 === 0) {
        j = q;
        break;
      }
      j = q + 1;
    }
    let k = j + 1;
    while (k < n) {
      const c = text.charCodeAt(k);
      if (c !== 32 && c !== 9 && c !== 10 && c !== 13) break;
      k++;
    }
    if (text.charCodeAt(k) === 58) keys++;
    i = text.indexOf('"', k);
  }
  return keys;
}

/**
 * Keys of every object in a parsed JSON value. Iterative with an explicit stack: JSON.parse accepts nesting far deeper
 * than the call stack allows (a body of 100k nested arrays parses fine), and such a body must get an answer, not a
 * RangeError.
 */
function countParsedKeys(value: unknown): number {
  let n = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) {
      for (const item of v) if (typeof item === 'object' && item !== null) pending.push(item);
      continue;
    }
    for (const k in v) {
      n++;
      const child = (v as Record<string, unknown>)[k];
      if (typeof child === 'object' && child !== null) pending.push(child);
    }
  }
  return n;
}

function jsonTypeName(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  return typeof v === 'string' ? 'string' : typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'bool' : typeof v;
}

/** summarizeData: the first 30 bytes, as text when the body looks like a JSON object and in hex otherwise. */
function summarizeBody(buf: Buffer, max = 30): string {
  const head = buf.subarray(0, max);
  const more = buf.length > max ? ' ...' : '';
  return buf[0] === 0x7b ? head.toString('utf8') + more : head.toString('hex') + more;
}

/** Go encoding/json's wording of the syntax error (V8's message is never shown). */
function describeJsonError(text: string): string {
  return goJSONSyntaxError(text) ?? 'unexpected end of JSON input';
}

/**
 * Finds keys that appear twice within the same JSON object ("duplicate field" in strict decoding). A small scanner,
 * because JSON.parse silently keeps the last value.
 */
export function findDuplicateKeys(text: string): string[] {
  const dups: string[] = [];
  scanKeys(text, (path, duplicate) => {
    if (duplicate) dups.push(path);
  });
  return dups;
}

/**
 * The strict decoding problems of a built-in kind's body in the order Go's decoder meets them (it reports an unknown
 * field where it reads it, a duplicate where it reads the second occurrence): `problems` are `unknown field "p"` and
 * `duplicate field "p"` texts, reordered by where their key stands in `text`. A problem whose key is not found keeps
 * its place after the others.
 */
export function inDocumentOrder(text: string, problems: string[]): string[] {
  const firstSeen = new Map<string, number>();
  const duplicateSeen = new Map<string, number[]>();
  let n = 0;
  scanKeys(text, (path, duplicate) => {
    if (duplicate) duplicateSeen.set(path, [...(duplicateSeen.get(path) ?? []), n]);
    else if (!firstSeen.has(path)) firstSeen.set(path, n);
    n++;
  });
  const taken = new Map<string, number>();
  const position = (problem: string): number => {
    const m = /^(unknown|duplicate) field "(.*)"$/.exec(problem);
    if (!m) return Infinity;
    if (m[1] === 'unknown') return firstSeen.get(m[2]!) ?? Infinity;
    const k = taken.get(m[2]!) ?? 0;
    taken.set(m[2]!, k + 1);
    return duplicateSeen.get(m[2]!)?.[k] ?? Infinity;
  };
  return problems
    .map((p, i) => ({ p, i, at: position(p) }))
    .sort((a, b) => a.at - b.at || a.i - b.i)
    .map((x) => x.p);
}

/** Calls `onKey` with the path (`a.b[2].c`) of every object key in `text`, in order, and whether it repeats one. */
function scanKeys(text: string, onKey: (path: string, duplicate: boolean) => void): void {
  if (!text.includes('"')) return;
  const stack: { keys: Set<string>; path: string; isArray: boolean; index: number }[] = [];
  let i = 0;
  let pendingKey: string | undefined;
  const n = text.length;
  const pathOf = (key: string) => {
    const top = stack[stack.length - 1];
    return top && top.path ? `${top.path}.${key}` : key;
  };
  while (i < n) {
    const c = text[i]!;
    if (c === '"') {
      // Jump from quote to quote (a string value of a kilobyte is one indexOf, not a kilobyte of concatenation);
      // a quote preceded by an odd number of backslashes is escaped and does not end the string.
      let j = i + 1;
      let escaped = false;
      for (;;) {
        const q = text.indexOf('"', j);
        if (q < 0) {
          j = n;
          break;
        }
        let b = q - 1;
        while (b > i && text.charCodeAt(b) === 92) b--;
        if ((q - 1 - b) % 2 === 0) {
          j = q;
          break;
        }
        escaped = true;
        j = q + 1;
      }
      const str = text.slice(i + 1, j);
      i = j + 1;
      while (i < n && /\s/.test(text[i]!)) i++;
      const top = stack[stack.length - 1];
      if (text[i] === ':' && top && !top.isArray) {
        let key = str;
        if (escaped || str.includes('\\')) {
          try {
            key = JSON.parse(`"${str}"`) as string;
          } catch {
            /* keep raw */
          }
        }
        onKey(pathOf(key), top.keys.has(key));
        top.keys.add(key);
        pendingKey = key;
        i++;
      }
      continue;
    }
    if (c === '{' || c === '[') {
      const top = stack[stack.length - 1];
      let path = '';
      if (top) path = top.isArray ? `${top.path}[${top.index}]` : pendingKey !== undefined ? pathOf(pendingKey) : top.path;
      stack.push({ keys: new Set(), path, isArray: c === '[', index: 0 });
      pendingKey = undefined;
    } else if (c === '}' || c === ']') {
      stack.pop();
    } else if (c === ',') {
      const top = stack[stack.length - 1];
      if (top?.isArray) top.index++;
      pendingKey = undefined;
    }
    i++;
  }
}
