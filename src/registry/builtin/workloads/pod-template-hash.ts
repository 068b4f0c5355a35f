/**
 * Shared by the simulated cluster's deployment controller (src/pcluster) and the control plane's revision history of
 * split Deployments (src/multicluster/splitter/revision-history.ts).
 *
 * The pod-template-hash label value of a Deployment's ReplicaSets (controller.ComputeHash): a 32-bit FNV-1a hash of
 * the pod template (plus the collision count, when set), written with the "safe" alphabet that avoids vowels and
 * look-alike characters. The hash input is the template's canonical JSON rather than Go's object dump, so values
 * differ from a real cluster's; what matters is that equal templates hash equally (null members count as absent).
 */
import { type JsonObject, deepCopy, isPlainObject, jsonEqual } from '../../../apimachinery/object.js';

/** The label a Deployment's ReplicaSets and their pods carry: the hash of the pod template. */
export const podTemplateHashLabel = 'pod-template-hash';

const safeAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (isPlainObject(v)) {
    const keys = Object.keys(v).filter((k) => v[k] !== undefined && v[k] !== null).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

function fnv32a(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** rand.SafeEncodeString over the decimal form of the hash. */
function safeEncode(s: string): string {
  return [...s].map((c) => safeAlphabet[c.charCodeAt(0) % safeAlphabet.length]).join('');
}

/** The pod-template-hash for `template` and the Deployment's status.collisionCount. */
export function computeTemplateHash(template: JsonObject, collisionCount?: number): string {
  let input = canonicalJson(template);
  if (collisionCount !== undefined && collisionCount !== null) input += `#${collisionCount}`;
  return safeEncode(String(fnv32a(input)));
}

/** `v` without null members of objects, at any depth: Go decodes them as the zero value, the same as absent. */
function withoutNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutNulls);
  if (isPlainObject(v)) return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null && x !== undefined).map(([k, x]) => [k, withoutNulls(x)]));
  return v;
}

/**
 * Whether a ReplicaSet's template is the Deployment's, ignoring the pod-template-hash label (EqualIgnoreHash). Null
 * members count as absent, as in Go's typed comparison: `kubectl rollout undo` patches the template back with
 * `metadata.creationTimestamp: null`.
 */
export function templateMatches(rsTemplate: JsonObject | undefined, template: JsonObject | undefined): boolean {
  const a = withoutNulls(deepCopy(rsTemplate ?? {})) as JsonObject;
  const labels = isPlainObject(a.metadata) && isPlainObject(a.metadata.labels) ? a.metadata.labels : undefined;
  if (labels) {
    delete labels[podTemplateHashLabel];
    if (Object.keys(labels).length === 0) delete (a.metadata as JsonObject).labels;
  }
  return jsonEqual(a, withoutNulls(template ?? {}));
}
