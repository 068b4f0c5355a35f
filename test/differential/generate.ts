/**
 * The generated cases: each a short request sequence sent to every target in the same order. Families are generated
 * from the type catalog (every field of a kind under test, with its JSON type, enum values, required marker) and a
 * seeded PRNG (the wrong value of each type, valid strings), so a seed gives the same cases every run; the case id
 * (family/kind/field path) does not depend on the seed, so the ratchet's entries stay valid when it changes.
 */
import type { FieldDescriptor, FieldType } from '../../src/apimachinery/schema/types.js';
import type { HttpResponse } from '../helpers/harness.js';
import { generateScenarios } from './scenarios.js';
import { KINDS, NS, collectionPath, objectPath, storedName, typeOf, type KindUnderTest } from './kinds.js';

export interface Step {
  method: string;
  /** The path, or a function of this target's earlier answers in the same case (e.g. a generated name). */
  path: string | ((earlier: HttpResponse[]) => string);
  /** Repeat this request (up to 15 s) until the answer satisfies it; the last answer is compared. */
  until?: (r: HttpResponse) => boolean;
  /** A string is sent as is (raw JSON with numbers JavaScript cannot hold); a function builds it from this target's earlier answers. */
  body?: unknown;
  /** A watch: the answer's body is compared as the list of its events (newline-delimited JSON). */
  events?: true;
  headers?: Record<string, string>;
}

export interface Case {
  id: string;
  family: string;
  steps: Step[];
}

/** mulberry32: a small seeded PRNG. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Seg = string | number;

function clone<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

/** Sets `value` at `path`, creating objects and one-item lists on the way (a list item is index 0). */
function setPath(obj: Record<string, any>, path: Seg[], value: unknown): void {
  let cur: any = obj;
  for (let i = 0; i < path.length - 1; i++) {
    const seg = path[i]!;
    const next = path[i + 1]!;
    if (cur[seg] === undefined || cur[seg] === null || typeof cur[seg] !== 'object') cur[seg] = typeof next === 'number' ? [{}] : {};
    if (typeof next === 'number' && cur[seg].length === 0) cur[seg].push({});
    cur = cur[seg];
  }
  cur[path[path.length - 1]!] = value;
}

function hasPath(obj: unknown, path: Seg[]): boolean {
  let cur: any = obj;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object' || !(seg in cur)) return false;
    cur = cur[seg];
  }
  return true;
}

function deletePath(obj: Record<string, any>, path: Seg[]): void {
  let cur: any = obj;
  for (const seg of path.slice(0, -1)) cur = cur[seg];
  delete cur[path[path.length - 1]!];
}

interface VisitedField {
  path: Seg[];
  field: FieldDescriptor;
}

/** Every field of `typeName` to `depth` levels, through refs, list items (index 0) and map values (key `k`); a type is not entered twice on one path. */
function fieldsOf(typeName: string, depth: number, prefix: Seg[] = [], seen: string[] = []): VisitedField[] {
  const out: VisitedField[] = [];
  const t = typeOf(typeName);
  for (const f of t.fields) {
    if (f.name === 'managedFields') continue;
    const path = [...prefix, f.name];
    out.push({ path, field: f });
    if (depth <= 1) continue;
    let inner: FieldType = f.type;
    const sub = [...path];
    if ('list' in inner) {
      inner = inner.list;
      sub.push(0);
    } else if ('map' in inner) {
      inner = inner.map;
      sub.push('k');
    }
    if ('ref' in inner && !seen.includes(inner.ref) && typeOf(inner.ref).fields.length > 0) {
      out.push(...fieldsOf(inner.ref, depth - 1, sub, [...seen, typeName]));
    }
  }
  return out;
}

function wrongValues(t: FieldType, rnd: () => number): unknown[] {
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  if ('list' in t) return [{ not: 'a list' }];
  if ('map' in t) return [pick(['not a map', ['a']])];
  if ('ref' in t) {
    // Unions whose JSON is a schema, an array or a boolean: a number is wrong for each of them.
    if (/JSONSchemaPropsOr/.test(t.ref)) return [7];
    return [pick(['not an object', 7, [{}]])];
  }
  switch (t.scalar) {
    case 'string':
      return [pick([42, true, { a: 1 }])];
    case 'boolean':
      return [pick(['true', 1])];
    case 'int32':
    case 'int64':
    case 'double':
      return [pick(['12', true])];
    case 'bytes':
      return [pick([12, 'not base64!'])];
    case 'time':
    case 'microTime':
      return [pick([1700000000, 'yesterday'])];
    case 'duration':
      return [12];
    case 'intOrString':
      return [true];
    case 'quantity':
      return [pick([true, { a: 1 }, 'lots'])];
    default:
      return []; // json, rawExtension: any JSON is the right type
  }
}

const INT32_EDGES = ['2147483647', '2147483648', '-2147483648', '-2147483649', '-1', '0', '1.5', '1e3'];
const INT64_EDGES = ['9223372036854775807', '9223372036854775808', '-9223372036854775808', '-1', '0', '2.5'];

/** A body whose value at `path` is the raw JSON number text `num`. */
function withRawNumber(obj: Record<string, any>, path: Seg[], num: string): string {
  const o = clone(obj);
  setPath(o, path, '__RAW_NUMBER__');
  return JSON.stringify(o).replace('"__RAW_NUMBER__"', num);
}

const established = (r: HttpResponse): boolean =>
  Array.isArray(r.json?.status?.conditions) && r.json.status.conditions.some((c: any) => c.type === 'Established' && c.status === 'True');

export interface Generator {
  cases: Case[];
}

export function generateCases(seed: number): Case[] {
  const rnd = prng(seed);
  const cases: Case[] = [];
  let n = 0;
  const fresh = () => `d${(n++).toString().padStart(4, '0')}`;
  const word = (len: number) => Array.from({ length: len }, () => 'abcdefghijklmnopqrstuvwxyz0123456789'[Math.floor(rnd() * 36)]).join('');

  /** POST `body` then GET the object back (the stored object). */
  const createAndRead = (id: string, family: string, k: KindUnderTest, name: string, body: unknown, query = ''): void => {
    cases.push({
      id,
      family,
      steps: [
        { method: 'POST', path: collectionPath(k) + query, body },
        { method: 'GET', path: objectPath(k, storedName(k, name)) },
      ],
    });
  };

  for (const k of KINDS) {
    const depth = k.kind === 'CustomResourceDefinition' ? 6 : 4;
    const fields = fieldsOf(k.type, depth);

    // valid objects as written
    {
      const name = fresh();
      createAndRead(`valid/${k.kind}`, 'valid', k, name, k.valid(name));
    }

    // every field with a value of the wrong JSON type
    for (const { path, field } of fields) {
      for (const v of wrongValues(field.type, rnd)) {
        const name = fresh();
        const obj = k.valid(name);
        if (path[0] === 'metadata' && (path[1] === 'name' || path[1] === 'namespace')) {
          // the name the object is read back by stays valid in the URL
        }
        setPath(obj, path, v);
        createAndRead(`wrong-type/${k.kind}/${path.join('.')}`, 'wrong-type', k, name, obj);
      }
    }

    // enum fields: a value outside the enum
    for (const { path, field } of fields) {
      if (!field.enum) continue;
      const name = fresh();
      const obj = k.valid(name);
      setPath(obj, path, `Bogus${word(3)}`);
      createAndRead(`enum/${k.kind}/${path.join('.')}`, 'bounds', k, name, obj);
    }

    // int32 and int64 edges
    for (const { path, field } of fields) {
      if (!('scalar' in field.type) || (field.type.scalar !== 'int32' && field.type.scalar !== 'int64')) continue;
      if (path[0] === 'metadata' || path[0] === 'status') continue;
      for (const num of field.type.scalar === 'int32' ? INT32_EDGES : INT64_EDGES) {
        const name = fresh();
        createAndRead(`int-edge/${k.kind}/${path.join('.')}=${num}`, 'bounds', k, name, withRawNumber(k.valid(name), path, num));
      }
    }

    // required fields missing (those present in the valid object)
    for (const { path, field } of fields) {
      if (!field.required) continue;
      const name = fresh();
      const obj = k.valid(name);
      if (!hasPath(obj, path)) continue;
      deletePath(obj, path);
      createAndRead(`required/${k.kind}/${path.join('.')}`, 'required', k, name, obj);
    }

    // the same fields set to their zero value ("" or [] or {})
    for (const { path, field } of fields) {
      if (!field.required) continue;
      const name = fresh();
      const obj = k.valid(name);
      if (!hasPath(obj, path)) continue;
      const zero = 'scalar' in field.type ? (field.type.scalar === 'string' ? '' : field.type.scalar === 'boolean' ? false : 0) : 'list' in field.type ? [] : {};
      setPath(obj, path, zero);
      createAndRead(`zero/${k.kind}/${path.join('.')}`, 'required', k, name, obj);
    }

    if (k.kind !== 'CustomResourceDefinition') {
      // name lengths and characters
      const nameLimit = k.kind === 'Namespace' ? 63 : 253;
      for (const [label, name] of [
        [`len-${nameLimit}`, `n${word(nameLimit - 1)}`],
        [`len-${nameLimit + 1}`, `n${word(nameLimit)}`],
        ['uppercase', `N${word(5)}`],
        ['dots', `a.${word(4)}.b`],
        ['trailing-dash', `${word(4)}-`],
        ['colon', `a:${word(3)}`],
        ['percent', `a%25${word(3)}`],
      ] as const) {
        const obj = k.valid(name);
        obj.metadata.name = decodeURIComponent(name);
        createAndRead(`name/${k.kind}/${label}`, 'bounds', k, name, obj);
      }
    }
  }

  // metadata bounds, on ConfigMaps (ObjectMeta validation is shared by every kind)
  const cm = KINDS.find((k) => k.kind === 'ConfigMap')!;
  const metaCases: [string, (o: Record<string, any>) => void][] = [
    ['label-key-63', (o) => (o.metadata.labels = { [`k${word(62)}`]: 'v' })],
    ['label-key-64', (o) => (o.metadata.labels = { [`k${word(63)}`]: 'v' })],
    ['label-prefix-253', (o) => (o.metadata.labels = { [`p${word(252)}/k`]: 'v' })],
    ['label-prefix-254', (o) => (o.metadata.labels = { [`p${word(253)}/k`]: 'v' })],
    ['label-value-63', (o) => (o.metadata.labels = { k: `v${word(62)}` })],
    ['label-value-64', (o) => (o.metadata.labels = { k: `v${word(63)}` })],
    ['label-value-chars', (o) => (o.metadata.labels = { k: '-bad-' })],
    ['label-key-empty', (o) => (o.metadata.labels = { '': 'v' })],
    ['label-key-slashes', (o) => (o.metadata.labels = { 'a/b/c': 'v' })],
    ['annotation-key-bad', (o) => (o.metadata.annotations = { 'no spaces': 'v' })],
    ['annotations-256KiB', (o) => (o.metadata.annotations = { a: 'x'.repeat(256 * 1024 - 1) })],
    ['annotations-256KiB+1', (o) => (o.metadata.annotations = { a: 'x'.repeat(256 * 1024) })],
    ['finalizer-qualified', (o) => (o.metadata.finalizers = ['example.com/cleanup'])],
    ['finalizer-unqualified', (o) => (o.metadata.finalizers = ['cleanup'])],
    ['finalizer-bad', (o) => (o.metadata.finalizers = ['a/b/c'])],
    ['finalizer-duplicate', (o) => (o.metadata.finalizers = ['example.com/x', 'example.com/x'])],
    ['owner-valid', (o) => (o.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: '6f1c3d7e-0000-4000-8000-000000000001' }])],
    ['owner-no-uid', (o) => (o.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner' }])],
    ['owner-no-apiversion', (o) => (o.metadata.ownerReferences = [{ kind: 'ConfigMap', name: 'owner', uid: '6f1c3d7e-0000-4000-8000-000000000002' }])],
    ['owner-two-controllers', (o) => (o.metadata.ownerReferences = [
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'o1', uid: '6f1c3d7e-0000-4000-8000-000000000003', controller: true },
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'o2', uid: '6f1c3d7e-0000-4000-8000-000000000004', controller: true },
    ])],
    ['owner-bad-apiversion', (o) => (o.metadata.ownerReferences = [{ apiVersion: 'a/b/c', kind: 'X', name: 'o', uid: '6f1c3d7e-0000-4000-8000-000000000005' }])],
    ['owner-namespace-kind', (o) => (o.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'Namespace', name: 'o', uid: '6f1c3d7e-0000-4000-8000-000000000006' }])],
    ['namespace-mismatch', (o) => (o.metadata.namespace = 'other')],
    ['uid-set', (o) => (o.metadata.uid = '6f1c3d7e-0000-4000-8000-000000000007')],
    ['resourceversion-set', (o) => (o.metadata.resourceVersion = '12')],
    ['generation-set', (o) => (o.metadata.generation = 5)],
    ['creationtimestamp-set', (o) => (o.metadata.creationTimestamp = '2020-01-01T00:00:00Z')],
    ['deletiontimestamp-set', (o) => (o.metadata.deletionTimestamp = '2020-01-01T00:00:00Z')],
    ['selflink-set', (o) => (o.metadata.selfLink = '/api/v1/x')],
    ['kind-mismatch', (o) => (o.kind = 'Secret')],
    // Another registered kind that decodes cleanly: the conversion into the expected type fails.
    ['kind-other-decodes', (o) => Object.assign(o, { kind: 'Secret', data: { a: 'MQ==' }, binaryData: undefined })],
    ['kind-other-group', (o) => Object.assign(o, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', data: undefined, binaryData: undefined })],
    ['kind-other-no-apiversion', (o) => Object.assign(o, { apiVersion: undefined, kind: 'Secret', data: { a: 'MQ==' }, binaryData: undefined })],
    ['kind-unregistered', (o) => (o.kind = 'NoSuchKind')],
    ['apiversion-mismatch', (o) => (o.apiVersion = 'v2')],
    ['kind-missing', (o) => delete o.kind],
    ['unknown-field', (o) => (o.spec = { x: 1 })],
  ];
  for (const [label, edit] of metaCases) {
    const name = fresh();
    const obj = cm.valid(name);
    edit(obj);
    createAndRead(`metadata/${label}`, 'metadata', cm, name, obj);
  }
  // ConfigMap/Secret keys
  for (const k of KINDS.filter((x) => x.kind === 'ConfigMap' || x.kind === 'Secret')) {
    for (const [label, key] of [['key-253', `k${word(252)}`], ['key-254', `k${word(253)}`], ['key-slash', 'a/b'], ['key-dotdot', '..'], ['key-empty', '']] as const) {
      const name = fresh();
      const obj = k.valid(name);
      obj.data = { [key]: k.kind === 'Secret' ? Buffer.from('x').toString('base64') : 'x' };
      createAndRead(`data-key/${k.kind}/${label}`, 'bounds', k, name, obj);
    }
  }

  // generateName
  for (const k of KINDS.filter((x) => x.kind !== 'CustomResourceDefinition')) {
    const obj = k.valid('unused');
    delete obj.metadata.name;
    obj.metadata.generateName = 'gen-';
    cases.push({
      id: `generate-name/${k.kind}`,
      family: 'metadata',
      steps: [
        { method: 'POST', path: collectionPath(k), body: obj },
        { method: 'GET', path: (earlier) => objectPath(k, earlier[0]?.json?.metadata?.name ?? 'missing') },
      ],
    });
    const bad = k.valid('unused');
    delete bad.metadata.name;
    bad.metadata.generateName = 'Bad_';
    createAndRead(`generate-name-invalid/${k.kind}`, 'metadata', k, 'unused-x', bad);
  }

  // `kubectl get`: the object as a Table (server-side printing: columns and cells), and with includeObject=Object
  const TABLE = { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
  for (const k of KINDS.filter((x) => x.kind !== 'CustomResourceDefinition')) {
    const name = fresh();
    cases.push({
      id: `table/${k.kind}`,
      family: 'table',
      steps: [
        { method: 'POST', path: collectionPath(k), body: k.valid(name) },
        { method: 'GET', path: objectPath(k, name), headers: TABLE },
        { method: 'GET', path: `${objectPath(k, name)}?includeObject=Object`, headers: TABLE },
      ],
    });
  }

  // dry run and field validation modes, on every kind
  for (const k of KINDS) {
    const name = fresh();
    const plural = storedName(k, name);
    createAndRead(`dry-run/${k.kind}`, 'dry-run', k, name, k.valid(name), '?dryRun=All');
    const bad = fresh();
    createAndRead(`dry-run-bogus/${k.kind}`, 'dry-run', k, bad, k.valid(bad), '?dryRun=Bogus');
    for (const mode of ['Strict', 'Warn', 'Ignore', 'Bogus']) {
      const nm = fresh();
      const obj = k.valid(nm);
      obj.unknownTop = 1;
      obj.metadata.unknownMeta = 'x';
      createAndRead(`field-validation/${k.kind}/${mode}`, 'field-validation', k, nm, obj, `?fieldValidation=${mode}`);
    }
    {
      // duplicate field in raw JSON
      const nm = fresh();
      const raw = JSON.stringify(k.valid(nm)).replace(/^\{/, '{"kind":"Dup",');
      for (const mode of ['Strict', 'Warn']) {
        const nm2 = fresh();
        createAndRead(`duplicate-field/${k.kind}/${mode}`, 'field-validation', k, nm2, raw.split(nm).join(nm2), `?fieldValidation=${mode}`);
      }
    }
    void plural;
  }

  // deletion: finalizers hold an object, preconditions, options
  for (const k of KINDS.filter((x) => x.kind !== 'CustomResourceDefinition' && x.kind !== 'Namespace')) {
    const name = fresh();
    const obj = k.valid(name);
    obj.metadata.finalizers = ['example.com/hold'];
    const p = objectPath(k, name);
    cases.push({
      id: `delete-finalizer/${k.kind}`,
      family: 'deletion',
      steps: [
        { method: 'POST', path: collectionPath(k), body: obj },
        { method: 'DELETE', path: p },
        { method: 'GET', path: p },
        { method: 'PATCH', path: p, body: { metadata: { labels: { late: 'change' } } }, headers: { 'Content-Type': 'application/merge-patch+json' } },
        { method: 'PATCH', path: p, body: { metadata: { finalizers: ['example.com/new'] } }, headers: { 'Content-Type': 'application/merge-patch+json' } },
        { method: 'PATCH', path: p, body: { metadata: { finalizers: null } }, headers: { 'Content-Type': 'application/merge-patch+json' } },
        { method: 'GET', path: p },
      ],
    });
    const n2 = fresh();
    cases.push({
      id: `delete-preconditions/${k.kind}`,
      family: 'deletion',
      steps: [
        { method: 'POST', path: collectionPath(k), body: k.valid(n2) },
        { method: 'DELETE', path: objectPath(k, n2), body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: '6f1c3d7e-0000-4000-8000-0000000000aa' } } },
        { method: 'DELETE', path: objectPath(k, n2), body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { resourceVersion: '1' } } },
        { method: 'DELETE', path: objectPath(k, n2), body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Sideways' } },
        { method: 'DELETE', path: objectPath(k, n2), body: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: -5 } },
        { method: 'DELETE', path: `${objectPath(k, n2)}?dryRun=All` },
        { method: 'GET', path: objectPath(k, n2) },
        { method: 'DELETE', path: objectPath(k, n2) },
        { method: 'DELETE', path: objectPath(k, n2) },
        { method: 'GET', path: objectPath(k, n2) },
      ],
    });
  }
  // updates: metadata rules on update (validated by rest.BeforeUpdate and again by the kind's strategy), immutable
  // fields, a name that does not match the URL
  const MERGE = { 'Content-Type': 'application/merge-patch+json' };
  for (const k of KINDS) {
    const edits: [string, unknown][] = [
      ['label-invalid', { metadata: { labels: { '-bad': 'x' } } }],
      ['owner-no-uid', { metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: '' }] } }],
      ['finalizer-unqualified', { metadata: { finalizers: ['cleanup'] } }],
      ['generation-decrement', { metadata: { generation: -1 } }],
      ['creationtimestamp', { metadata: { creationTimestamp: '2020-01-01T00:00:00Z' } }],
      ['annotation-key-bad', { metadata: { annotations: { 'no spaces': 'v' } } }],
    ];
    const immutable: Record<string, [string, unknown][]> = {
      ConfigMap: [['immutable', { immutable: true }], ['data-after-immutable', { data: { a: 'changed' } }], ['mutable-again', { immutable: false }]],
      Secret: [['type', { type: 'kubernetes.io/tls' }], ['immutable', { immutable: true }], ['data-after-immutable', { data: { a: 'Y2hhbmdlZA==' } }]],
      RoleBinding: [['roleref', { roleRef: { name: 'other' } }]],
      ClusterRoleBinding: [['roleref', { roleRef: { kind: 'Role' } }]],
      CustomResourceDefinition: [['scope', { spec: { scope: 'Cluster' } }], ['group', { spec: { group: 'other.example.com' } }]],
      Namespace: [['spec-finalizers', { spec: { finalizers: [] } }], ['status', { status: { phase: 'Terminating' } }]],
      Lease: [['holder', { spec: { holderIdentity: 'h2', leaseTransitions: -1 } }]],
    };
    for (const [label, patch] of [...edits, ...(immutable[k.kind] ?? [])]) {
      const n2 = fresh();
      const p2 = objectPath(k, storedName(k, n2));
      cases.push({
        id: `update/${k.kind}/${label}`,
        family: 'update',
        steps: [
          { method: 'POST', path: collectionPath(k), body: k.valid(n2) },
          // A CRD's immutable fields depend on it being Established, which each server's controller decides a moment later.
          ...(k.kind === 'CustomResourceDefinition' ? [{ method: 'GET', path: p2, until: established }] : []),
          { method: 'PATCH', path: p2, body: patch, headers: MERGE },
          { method: 'GET', path: p2 },
        ],
      });
    }
    const n3 = fresh();
    const mismatch = k.valid(n3);
    cases.push({
      id: `update/${k.kind}/put-name-mismatch`,
      family: 'update',
      steps: [
        { method: 'POST', path: collectionPath(k), body: k.valid(n3) },
        { method: 'PUT', path: objectPath(k, storedName(k, n3)), body: { ...mismatch, metadata: { ...mismatch.metadata, name: storedName(k, `${n3}x`) } } },
        { method: 'PUT', path: objectPath(k, storedName(k, `${n3}y`)), body: k.valid(`${n3}y`) },
      ],
    });
  }
  // list options and resourceVersion semantics, each case in a namespace of its own holding three ConfigMaps
  const listQueries: [string, string][] = [
    ['all', ''],
    ['label-equals', '?labelSelector=x%3D1'],
    ['label-set', '?labelSelector=x+in+(1,2)'],
    ['label-exists-not', '?labelSelector=!y'],
    ['label-invalid', '?labelSelector=x%3D(%3D'],
    ['label-bad-value', '?labelSelector=x%3D-bad-'],
    ['field-name', '?fieldSelector=metadata.name%3Da'],
    ['field-namespace', '?fieldSelector=metadata.namespace!%3Dother'],
    ['field-unsupported', '?fieldSelector=data.a%3D1'],
    ['field-invalid', '?fieldSelector=%3D%3D'],
    ['limit-2', '?limit=2'],
    ['limit-negative', '?limit=-1'],
    ['limit-text', '?limit=abc'],
    ['continue-garbage', '?limit=1&continue=bm90LWEtdG9rZW4'],
    ['rv-0', '?resourceVersion=0'],
    // served by the watch cache upstream, which ignores the limit at resourceVersion 0
    ['rv-0-limit', '?resourceVersion=0&limit=1'],
    ['rv-0-notolderthan-limit', '?resourceVersion=0&resourceVersionMatch=NotOlderThan&limit=2'],
    ['rv-notolderthan-limit', '?resourceVersion=1&resourceVersionMatch=NotOlderThan&limit=2'],
    ['limit-label', '?limit=1&labelSelector=x+in+(2,3)'],
    ['rv-text', '?resourceVersion=abc'],
    ['rv-future', '?resourceVersion=99999999'],
    ['rvmatch-exact-without-rv', '?resourceVersionMatch=Exact'],
    ['rvmatch-notolderthan-without-rv', '?resourceVersionMatch=NotOlderThan'],
    ['rvmatch-bogus', '?resourceVersionMatch=Bogus&resourceVersion=1'],
    ['rvmatch-exact-limit', '?resourceVersionMatch=Exact&resourceVersion=1&limit=1'],
    ['timeout-negative', '?timeoutSeconds=-1'],
    ['send-initial-events-no-watch', '?sendInitialEvents=true'],
    ['watch-bookmarks-no-watch', '?allowWatchBookmarks=true'],
  ];
  const staleAllowed = (query: string) => /resourceVersion=(0|1&resourceVersionMatch=NotOlderThan)(&|$)/.test(query);
  for (const [label, query] of listQueries) {
    const ns = `l${fresh()}`;
    const cmPath = `/api/v1/namespaces/${ns}/configmaps`;
    const cmBody = (name: string, x: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { x } }, data: { a: x } });
    cases.push({
      id: `list/ConfigMap/${label}`,
      family: 'list',
      steps: [
        { method: 'POST', path: '/api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } },
        { method: 'POST', path: cmPath, body: cmBody('a', '1') },
        { method: 'POST', path: cmPath, body: cmBody('b', '2') },
        { method: 'POST', path: cmPath, body: cmBody('c', '3') },
        // A read the watch cache may serve as it stands (resourceVersion=0, NotOlderThan an old one) can trail the
        // writes just made, on either server, as both are allowed to. A consistent LIST first waits on both until
        // their caches hold those writes, so the read compared next is deterministic.
        ...(staleAllowed(query) ? [{ method: 'GET', path: cmPath }] : []),
        { method: 'GET', path: cmPath + query },
        // the next page, from this server's own continue token
        ...(label === 'limit-2' ? [{ method: 'GET', path: (earlier: HttpResponse[]) => `${cmPath}?limit=2&continue=${encodeURIComponent(earlier[4]?.json?.metadata?.continue ?? '')}` }] : []),
      ],
    });
  }
  void NS;
  cases.push(...generateScenarios(rnd));
  return cases;
}
