/**
 * The `fieldPath` of a validation rule (apiextensions-apiserver schema/cel ValidFieldPath): a JSON path relative to
 * the rule's schema node made of `.field` and `['key']` steps (and `[n]` list indexes), e.g. `.spec.ports['http']`.
 * It is checked against the schema when the CRD is validated and turned into the field.Path string that is appended
 * to the node's path when the rule fails.
 */
import { FieldPath } from '../../../apimachinery/field-errors.js';
import type { Structural } from '../structural.js';

export interface ParsedRuleFieldPath {
  /** The path to append with FieldPath.child(), e.g. `spec.ports[http]`; undefined when invalid. */
  normalized?: string;
  error?: string;
}

const identifier = /^[A-Za-z_$][A-Za-z0-9_$-]*/;

/** Parses and checks `path` against schema node `s`. */
export function parseRuleFieldPath(path: string, s: Structural): ParsedRuleFieldPath {
  let rest = path.trim();
  let p = FieldPath.root();
  let node: Structural | undefined = s;
  if (rest === '') return { error: 'must be non-empty' };
  while (rest.length > 0) {
    if (rest.startsWith('.')) {
      const m = identifier.exec(rest.slice(1));
      if (!m) return { error: `expected a field name at ${JSON.stringify(rest)}` };
      const name = m[0];
      rest = rest.slice(1 + name.length);
      const step = stepInto(node, name);
      if (!step) return { error: `does not refer to a valid field: ${name}` };
      p = step.isKey ? p.key(name) : p.child(name);
      node = step.schema;
    } else if (rest.startsWith("['")) {
      let i = 2;
      let key = '';
      while (i < rest.length && rest[i] !== "'") {
        if (rest[i] === '\\' && i + 1 < rest.length) {
          key += rest[i + 1];
          i += 2;
        } else key += rest[i++];
      }
      if (rest.slice(i, i + 2) !== "']") return { error: 'unterminated map key' };
      rest = rest.slice(i + 2);
      const step = stepInto(node, key);
      if (!step) return { error: `does not refer to a valid field: ${key}` };
      p = step.isKey ? p.key(key) : p.child(key);
      node = step.schema;
    } else if (/^\[\d+\]/.test(rest)) {
      const m = /^\[(\d+)\]/.exec(rest)!;
      if (node?.type !== 'array') return { error: 'index into non-array' };
      rest = rest.slice(m[0].length);
      p = p.index(Number(m[1]));
      node = node.items;
    } else {
      return { error: `unexpected character at ${JSON.stringify(rest)}` };
    }
  }
  return { normalized: p.toString() };
}

function stepInto(s: Structural | undefined, name: string): { schema?: Structural; isKey: boolean } | undefined {
  if (!s) return undefined;
  const prop = s.properties?.get(name);
  if (prop) return { schema: prop, isKey: false };
  if (s.additionalProperties) return { schema: s.additionalProperties.schema, isKey: true };
  if (s.preserveUnknownFields) return { isKey: false };
  return undefined;
}
