/** Create/get/update/delete of the built-in resources over real HTTPS, with kube-apiserver's status codes and texts. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { assertStatus, createConfigMap, createNamespace } from './support.js';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const rfc3339Seconds = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const subdomainDetail =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

interface Kind {
  resource: string;
  /** The collection path under a namespace. */
  path: (ns: string) => string;
  body: (name: string) => Record<string, unknown>;
  /** How the resource appears in error messages. */
  qualified: string;
  group: string;
  /** A change to make on update, and how to see it. */
  mutate: (obj: any) => void;
  changed: (obj: any) => boolean;
}

const kinds: Kind[] = [
  {
    resource: 'configmaps',
    path: (ns) => `/api/v1/namespaces/${ns}/configmaps`,
    body: (name) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } }),
    qualified: 'configmaps',
    group: '',
    mutate: (o) => (o.data = { a: '2' }),
    changed: (o) => o.data.a === '2',
  },
  {
    resource: 'secrets',
    path: (ns) => `/api/v1/namespaces/${ns}/secrets`,
    body: (name) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, data: { a: 'MQ==' } }),
    qualified: 'secrets',
    group: '',
    mutate: (o) => (o.data = { a: 'Mg==' }),
    changed: (o) => o.data.a === 'Mg==',
  },
  {
    resource: 'serviceaccounts',
    path: (ns) => `/api/v1/namespaces/${ns}/serviceaccounts`,
    body: (name) => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } }),
    qualified: 'serviceaccounts',
    group: '',
    mutate: (o) => (o.automountServiceAccountToken = false),
    changed: (o) => o.automountServiceAccountToken === false,
  },
  {
    resource: 'leases',
    path: (ns) => `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`,
    body: (name) => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name }, spec: { holderIdentity: 'a', leaseDurationSeconds: 15 } }),
    qualified: 'leases.coordination.k8s.io',
    group: 'coordination.k8s.io',
    mutate: (o) => (o.spec.holderIdentity = 'b'),
    changed: (o) => o.spec.holderIdentity === 'b',
  },
  {
    resource: 'events',
    path: (ns) => `/api/v1/namespaces/${ns}/events`,
    body: (name) => ({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name },
      involvedObject: { kind: 'ConfigMap', name: 'c', apiVersion: 'v1' },
      reason: 'Testing',
      message: 'hello',
      type: 'Normal',
      count: 1,
      source: { component: 'tester' },
    }),
    qualified: 'events',
    group: '',
    mutate: (o) => (o.count = 2),
    changed: (o) => o.count === 2,
  },
  {
    resource: 'events.events.k8s.io',
    path: (ns) => `/apis/events.k8s.io/v1/namespaces/${ns}/events`,
    body: (name) => ({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name },
      eventTime: '2025-01-01T00:00:00.000000Z',
      reportingController: 'example.com/tester',
      reportingInstance: 'tester-1',
      action: 'Test',
      reason: 'Testing',
      regarding: { kind: 'ConfigMap', name: 'c', apiVersion: 'v1' },
      note: 'hello',
      type: 'Normal',
    }),
    qualified: 'events.events.k8s.io',
    group: 'events.k8s.io',
    mutate: (o) => (o.note = 'changed'),
    changed: (o) => o.note === 'changed',
  },
];

describe('CRUD', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer();
  });
  after(async () => {
    await ts?.stop();
  });

  for (const k of kinds) {
    it(`${k.resource}: create, get, update, conflict, unconditional update, delete, not found`, async () => {
      const ns = await createNamespace(ts, 'crud');
      const created = await ts.request('POST', k.path(ns), k.body('one'));
      assert.equal(created.status, 201, created.text);
      assert.equal(created.headers['content-type'], 'application/json');
      const meta = created.json.metadata;
      assert.match(meta.uid, uuid);
      assert.match(meta.creationTimestamp, rfc3339Seconds);
      assert.match(meta.resourceVersion, /^\d+$/);
      assert.equal(meta.namespace, ns);
      assert.equal(meta.generation, undefined, 'built-ins without generation do not get one');

      const got = await ts.request('GET', `${k.path(ns)}/one`);
      assert.equal(got.status, 200);
      assert.deepEqual(got.json, created.json);

      const dup = await ts.request('POST', k.path(ns), k.body('one'));
      assertStatus(dup, 409, 'AlreadyExists', `${k.qualified} "one" already exists`);
      assert.deepEqual(dup.json.details, { name: 'one', ...(k.group ? { group: k.group } : {}), kind: k.resource.split('.')[0] });

      const edited = structuredClone(created.json);
      k.mutate(edited);
      const updated = await ts.request('PUT', `${k.path(ns)}/one`, edited);
      assert.equal(updated.status, 200, updated.text);
      assert.ok(k.changed(updated.json));
      assert.equal(updated.json.metadata.uid, meta.uid);
      assert.equal(updated.json.metadata.creationTimestamp, meta.creationTimestamp);
      assert.ok(Number(updated.json.metadata.resourceVersion) > Number(meta.resourceVersion));

      // The old resourceVersion is stale now.
      const stale = await ts.request('PUT', `${k.path(ns)}/one`, edited);
      assertStatus(
        stale,
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${k.qualified} "one": the object has been modified; please apply your changes to the latest version and try again`,
      );

      // Core types allow an unconditional PUT (no resourceVersion).
      const unconditional = structuredClone(updated.json);
      delete unconditional.metadata.resourceVersion;
      unconditional.metadata.labels = { x: 'y' };
      const u2 = await ts.request('PUT', `${k.path(ns)}/one`, unconditional);
      assert.equal(u2.status, 200, u2.text);
      assert.deepEqual(u2.json.metadata.labels, { x: 'y' });

      const del = await ts.request('DELETE', `${k.path(ns)}/one`);
      assert.equal(del.status, 200, del.text);
      // ServiceAccounts' upstream store sets ReturnDeletedObject.
      if (k.resource === 'serviceaccounts') {
        assert.equal(del.json.kind, 'ServiceAccount');
        assert.equal(del.json.metadata.uid, meta.uid);
      } else {
        assert.deepEqual(del.json, {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Success',
          details: { name: 'one', ...(k.group ? { group: k.group } : {}), kind: k.resource.split('.')[0], uid: meta.uid },
        });
      }

      // A Lease or an Event is created by a PUT (their upstream strategies allow create on update; test/differential
      // checks it).
      const createsOnPut = k.resource === 'leases' || k.resource.split('.')[0] === 'events';
      const missing: [string, unknown][] = [['GET', undefined], ['DELETE', undefined], ...(createsOnPut ? [] : [['PUT', k.body('one')] as [string, unknown]])];
      for (const [method, body] of missing) {
        const r = await ts.request(method, `${k.path(ns)}/one`, body);
        assertStatus(r, 404, 'NotFound', `${k.qualified} "one" not found`);
        assert.deepEqual(r.json.details, { name: 'one', ...(k.group ? { group: k.group } : {}), kind: k.resource.split('.')[0] });
      }
      if (createsOnPut) assert.equal((await ts.request('PUT', `${k.path(ns)}/one`, k.body('one'))).status, 201);
    });
  }

  it('an update cannot change uid or creationTimestamp and a URL/body name mismatch is 400', async () => {
    const ns = await createNamespace(ts, 'crud');
    const cm = await createConfigMap(ts, ns, 'keep');
    const forged = structuredClone(cm);
    forged.metadata.uid = '00000000-0000-4000-8000-000000000000';
    // A uid in the body is a precondition (rest.defaultUpdatedObjectInfo.Preconditions), checked against storage.
    const r = await ts.request('PUT', `/api/v1/namespaces/${ns}/configmaps/keep`, forged);
    assertStatus(r, 409, 'Conflict', /^Operation cannot be fulfilled on configmaps "keep": .*Precondition failed: UID in precondition: 00000000-0000-4000-8000-000000000000, UID in object meta: /);
    const moved = structuredClone(cm);
    moved.metadata.creationTimestamp = '2001-01-01T00:00:00Z';
    const t = await ts.request('PUT', `/api/v1/namespaces/${ns}/configmaps/keep`, moved);
    assert.equal(t.status, 200, t.text);
    assert.equal(t.json.metadata.creationTimestamp, cm.metadata.creationTimestamp, 'creationTimestamp changes are ignored');
    const renamed = structuredClone(cm);
    renamed.metadata.name = 'other';
    const m = await ts.request('PUT', `/api/v1/namespaces/${ns}/configmaps/keep`, renamed);
    assertStatus(m, 400, 'BadRequest', 'the name of the object (other) does not match the name on the URL (keep)');
  });

  it('generateName gives the prefix plus five characters from the upstream alphabet', async () => {
    const ns = await createNamespace(ts, 'crud');
    const names = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const r = await ts.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { generateName: 'gen-' } });
      assert.equal(r.status, 201, r.text);
      assert.match(r.json.metadata.name, /^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      assert.equal(r.json.metadata.generateName, 'gen-');
      names.add(r.json.metadata.name);
    }
    assert.equal(names.size, 3);
  });

  it('a missing name is 422 "name or generateName is required"', async () => {
    const ns = await createNamespace(ts, 'crud');
    const r = await ts.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: {} });
    assertStatus(r, 422, 'Invalid', 'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required');
  });

  it('an invalid name is 422 with causes, and every error is collected', async () => {
    const ns = await createNamespace(ts, 'crud');
    const r = await ts.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'X_Y' } });
    assertStatus(r, 422, 'Invalid', `ConfigMap "X_Y" is invalid: metadata.name: Invalid value: "X_Y": ${subdomainDetail}`);
    assert.deepEqual(r.json.details, {
      name: 'X_Y',
      kind: 'ConfigMap',
      causes: [{ reason: 'FieldValueInvalid', message: `Invalid value: "X_Y": ${subdomainDetail}`, field: 'metadata.name' }],
    });

    const two = await ts.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'X_Y' }, data: { 'bad key': 'v' } });
    assert.equal(two.status, 422);
    assert.match(two.json.message, /^ConfigMap "X_Y" is invalid: \[metadata\.name: Invalid value: "X_Y": .*, data\[bad key\]: Invalid value: "bad key": a valid config key must consist of/);
    assert.deepEqual(two.json.details.causes.map((c: any) => c.field), ['metadata.name', 'data[bad key]']);
  });

  it('a namespace must be a DNS label', async () => {
    const r = await ts.request('POST', '/api/v1/namespaces', { metadata: { name: 'has_underscore' } });
    assert.equal(r.status, 422);
    assert.match(r.json.message, /^Namespace "has_underscore" is invalid: metadata\.name: Invalid value: "has_underscore": a lowercase RFC 1123 label must consist of/);
    // A valid subdomain that is not a label says why (validation.IsDNS1123Label).
    const dotted = await ts.request('POST', '/api/v1/namespaces', { metadata: { name: 'has.dot' } });
    assertStatus(dotted, 422, 'Invalid', 'Namespace "has.dot" is invalid: metadata.name: Invalid value: "has.dot": must not contain dots');
  });

  it('a body namespace that differs from the URL is 400; a matching one is fine', async () => {
    const ns = await createNamespace(ts, 'crud');
    const r = await ts.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'c', namespace: 'default' } });
    assertStatus(r, 400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
    const ok = await ts.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'c', namespace: ns } });
    assert.equal(ok.status, 201);
  });

  it('creating in a namespace that does not exist is 404 namespaces "x" not found', async () => {
    const r = await ts.request('POST', '/api/v1/namespaces/does-not-exist/configmaps', { metadata: { name: 'c' } });
    assertStatus(r, 404, 'NotFound', 'namespaces "does-not-exist" not found');
    assert.deepEqual(r.json.details, { name: 'does-not-exist', kind: 'namespaces' });
  });

  it('the system namespaces exist and cannot be deleted', async () => {
    for (const name of ['default', 'kube-system', 'kube-public']) {
      const r = await ts.request('GET', `/api/v1/namespaces/${name}`);
      assert.equal(r.status, 200, `${name}: ${r.text}`);
      assert.equal(r.json.status.phase, 'Active');
      const d = await ts.request('DELETE', `/api/v1/namespaces/${name}`);
      assertStatus(d, 403, 'Forbidden', `namespaces "${name}" is forbidden: this namespace may not be deleted`);
    }
  });

  it('a new namespace gets the name label, the kubernetes finalizer and phase Active', async () => {
    const ns = await createNamespace(ts, 'crud');
    const r = await ts.request('GET', `/api/v1/namespaces/${ns}`);
    assert.equal(r.json.apiVersion, 'v1');
    assert.equal(r.json.kind, 'Namespace');
    assert.deepEqual(r.json.metadata.labels, { 'kubernetes.io/metadata.name': ns });
    assert.deepEqual(r.json.spec, { finalizers: ['kubernetes'] });
    assert.deepEqual(r.json.status, { phase: 'Active' });
    assert.equal(r.json.metadata.namespace, undefined);
  });

  it('deleting a namespace marks it Terminating and refuses new content', async () => {
    const ns = await createNamespace(ts, 'crud');
    const d = await ts.request('DELETE', `/api/v1/namespaces/${ns}`);
    assert.equal(d.status, 200, d.text);
    assert.equal(d.json.kind, 'Namespace');
    assert.ok(d.json.metadata.deletionTimestamp);
    assert.equal(d.json.status.phase, 'Terminating');
    const c = await ts.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'late' } });
    assertStatus(c, 403, 'Forbidden', `configmaps "late" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`);
    assert.equal(c.json.details.causes[0].reason, 'NamespaceTerminating');
  });

  it('secret stringData is folded into base64 data and not stored', async () => {
    const ns = await createNamespace(ts, 'crud');
    const r = await ts.request('POST', `/api/v1/namespaces/${ns}/secrets`, {
      metadata: { name: 's' },
      data: { a: 'YQ==' },
      stringData: { b: 'hello', a: 'over' },
    });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json.data, { a: Buffer.from('over').toString('base64'), b: Buffer.from('hello').toString('base64') });
    assert.equal(r.json.stringData, undefined);
    assert.equal(r.json.type, 'Opaque');
    const got = await ts.request('GET', `/api/v1/namespaces/${ns}/secrets/s`);
    assert.equal(got.json.stringData, undefined);
  });

  it('a ConfigMap or Secret holding more than 1 MiB of values is 422 and nothing is stored (core.MaxSecretSize)', async () => {
    const ns = await createNamespace(ts, 'crud');
    const half = 'x'.repeat(512 * 1024);
    // data and binaryData count together; binaryData by its decoded bytes.
    const big = await ts.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'big' }, data: { a: half }, binaryData: { b: Buffer.from(half + 'y').toString('base64') } });
    assertStatus(big, 422, 'Invalid', 'ConfigMap "big" is invalid: []: Too long: may not be more than 1048576 bytes');
    assert.deepEqual(big.json.details.causes, [{ reason: 'FieldValueTooLong', message: 'Too long: may not be more than 1048576 bytes', field: '[]' }]);
    assert.equal((await ts.request('GET', `/api/v1/namespaces/${ns}/configmaps/big`)).status, 404);
    // Exactly the limit is fine, and an update past it is refused without losing the stored object.
    const fits = await createConfigMap(ts, ns, 'fits', { data: { a: half, b: half } });
    const grown = structuredClone(fits);
    grown.data.c = 'z';
    assertStatus(await ts.request('PUT', `/api/v1/namespaces/${ns}/configmaps/fits`, grown), 422, 'Invalid', 'ConfigMap "fits" is invalid: []: Too long: may not be more than 1048576 bytes');
    assert.equal((await ts.request('GET', `/api/v1/namespaces/${ns}/configmaps/fits`)).json.data.c, undefined);
    // A Secret's data counts decoded, stringData folded in first; reported on `data`.
    const s = await ts.request('POST', `/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 'big' }, data: { a: Buffer.from(half).toString('base64') }, stringData: { b: half + 'y' } });
    assertStatus(s, 422, 'Invalid', 'Secret "big" is invalid: data: Too long: may not be more than 1048576 bytes');
    const ok = await ts.request('POST', `/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 'ok' }, data: { a: Buffer.from(half).toString('base64') }, stringData: { b: half } });
    assert.equal(ok.status, 201, ok.text);
  });

  it('an immutable configmap refuses data changes but can be deleted', async () => {
    const ns = await createNamespace(ts, 'crud');
    const cm = await createConfigMap(ts, ns, 'frozen', { data: { a: '1' }, immutable: true });
    const edit = structuredClone(cm);
    edit.data.a = '2';
    const r = await ts.request('PUT', `/api/v1/namespaces/${ns}/configmaps/frozen`, edit);
    assertStatus(r, 422, 'Invalid', 'ConfigMap "frozen" is invalid: data: Forbidden: field is immutable when `immutable` is set');
    const unfreeze = structuredClone(cm);
    unfreeze.immutable = false;
    const u = await ts.request('PUT', `/api/v1/namespaces/${ns}/configmaps/frozen`, unfreeze);
    assertStatus(u, 422, 'Invalid', 'ConfigMap "frozen" is invalid: immutable: Forbidden: field is immutable when `immutable` is set');
    // Metadata may still change.
    const labelled = structuredClone(cm);
    labelled.metadata.labels = { a: 'b' };
    assert.equal((await ts.request('PUT', `/api/v1/namespaces/${ns}/configmaps/frozen`, labelled)).status, 200);
    assert.equal((await ts.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/frozen`)).status, 200);
  });

  it('a namespaced resource addressed without a namespace lists across all namespaces', async () => {
    const a = await createNamespace(ts, 'crud');
    const b = await createNamespace(ts, 'crud');
    await createConfigMap(ts, a, 'across', {}, { across: 'yes' });
    await createConfigMap(ts, b, 'across', {}, { across: 'yes' });
    const r = await ts.request('GET', '/api/v1/configmaps?labelSelector=across%3Dyes');
    assert.equal(r.status, 200);
    assert.deepEqual(r.json.items.map((i: any) => i.metadata.namespace).sort(), [a, b].sort());
  });

  it('POST to an item path is 405 MethodNotAllowed and creates nothing', async () => {
    const ns = await createNamespace(ts, 'crud');
    const r = await ts.request('POST', `/api/v1/namespaces/${ns}/configmaps/x`, { metadata: { name: 'x' } });
    assertStatus(r, 405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
    assert.equal((await ts.request('GET', `/api/v1/namespaces/${ns}/configmaps/x`)).status, 404);
  });

  it('the all-namespaces path takes only list and watch: DELETE there is 405 and deletes nothing', async () => {
    const ns = await createNamespace(ts, 'crud');
    await createConfigMap(ts, ns, 'survivor');
    const methodNotAllowed = 'the server does not allow this method on the requested resource';
    assertStatus(await ts.request('DELETE', '/api/v1/configmaps'), 405, 'MethodNotAllowed', methodNotAllowed);
    assertStatus(await ts.request('POST', '/api/v1/configmaps', { metadata: { name: 'x', namespace: ns } }), 405, 'MethodNotAllowed', methodNotAllowed);
    assert.equal((await ts.request('GET', `/api/v1/namespaces/${ns}/configmaps/survivor`)).status, 200, 'nothing was deleted');
    assert.equal((await ts.request('GET', '/api/v1/configmaps/survivor')).status, 404, 'an item needs its namespace');
    // Collections take no PUT or PATCH.
    assertStatus(
      await ts.request('PUT', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'x' } }),
      405,
      'MethodNotAllowed',
      methodNotAllowed,
    );
    assertStatus(
      await ts.request('PATCH', '/api/v1/namespaces', { metadata: { labels: { a: 'b' } } }, { headers: { 'Content-Type': 'application/merge-patch+json' } }),
      405,
      'MethodNotAllowed',
      methodNotAllowed,
    );
  });
});
