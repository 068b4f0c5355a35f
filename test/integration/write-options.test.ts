/** dryRun and fieldValidation on every write verb, over real HTTPS. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { assertStatus, createConfigMap, createNamespace } from './support.js';

function warnings(h: string | string[] | undefined): string[] {
  if (h === undefined) return [];
  // node joins repeated headers with ", " for unknown header names; split on the code prefix.
  const joined = Array.isArray(h) ? h.join(', ') : h;
  return joined.split(/,\s*(?=299 )/);
}

describe('write options', () => {
  let ts: TestServer;
  let ns: string;
  before(async () => {
    ts = await startTestServer();
    ns = await createNamespace(ts, 'opts');
  });
  after(async () => {
    await ts?.stop();
  });

  const cms = () => `/api/v1/namespaces/${ns}/configmaps`;

  it('dryRun=All create answers like a create but stores nothing', async () => {
    const r = await ts.request('POST', `${cms()}?dryRun=All`, { metadata: { name: 'dry' }, data: { a: '1' } });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.metadata.name, 'dry');
    assert.ok(r.json.metadata.uid);
    assert.ok(r.json.metadata.creationTimestamp);
    assert.equal(r.json.metadata.resourceVersion, undefined, 'a dry-run create has no resourceVersion');
    assertStatus(await ts.request('GET', `${cms()}/dry`), 404, 'NotFound');
    // Validation still runs.
    const bad = await ts.request('POST', `${cms()}?dryRun=All`, { metadata: { name: 'Bad_Name' } });
    assert.equal(bad.status, 422);
    // And so do existence checks.
    await createConfigMap(ts, ns, 'exists');
    assertStatus(await ts.request('POST', `${cms()}?dryRun=All`, { metadata: { name: 'exists' } }), 409, 'AlreadyExists');
  });

  it('dryRun=All update, patch and delete change nothing', async () => {
    const cm = await createConfigMap(ts, ns, 'keep', { data: { a: '1' } });
    const edit = structuredClone(cm);
    edit.data.a = '2';
    const u = await ts.request('PUT', `${cms()}/keep?dryRun=All`, edit);
    assert.equal(u.status, 200, u.text);
    assert.equal(u.json.data.a, '2');
    const p = await ts.request('PATCH', `${cms()}/keep?dryRun=All`, '{"data":{"a":"3"}}', { headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(p.status, 200, p.text);
    assert.equal(p.json.data.a, '3');
    const d = await ts.request('DELETE', `${cms()}/keep?dryRun=All`);
    assert.equal(d.status, 200, d.text);
    const dBody = await ts.request('DELETE', `${cms()}/keep`, { dryRun: ['All'] });
    assert.equal(dBody.status, 200, dBody.text);

    const got = await ts.request('GET', `${cms()}/keep`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.json, cm, 'nothing changed, not even the resourceVersion');
  });

  it('an unsupported dryRun value is rejected with the options kind in the message', async () => {
    const create = await ts.request('POST', `${cms()}?dryRun=true`, { metadata: { name: 'x' } });
    assertStatus(create, 422, 'Invalid', 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"true"}: supported values: "All"');
    const cm = await createConfigMap(ts, ns, 'dryrun-values');
    const update = await ts.request('PUT', `${cms()}/dryrun-values?dryRun=All&dryRun=Some`, cm);
    assertStatus(update, 422, 'Invalid', 'UpdateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"All", "Some"}: supported values: "All"');
    const del = await ts.request('DELETE', `${cms()}/dryrun-values?dryRun=yes`);
    assertStatus(del, 422, 'Invalid', /^DeleteOptions\.meta\.k8s\.io "" is invalid: dryRun: Unsupported value/);
    assert.equal((await ts.request('GET', `${cms()}/dryrun-values`)).status, 200);
  });

  it('fieldValidation=Strict rejects unknown fields with a strict decoding error', async () => {
    const r = await ts.request('POST', `${cms()}?fieldValidation=Strict`, { metadata: { name: 'strict', foo: 1 }, data: { a: '1' }, bogus: true });
    assertStatus(r, 400, 'BadRequest', /^ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "(bogus|metadata\.foo)", unknown field "(bogus|metadata\.foo)"$/);
    assert.equal((await ts.request('GET', `${cms()}/strict`)).status, 404);
    const dup = await ts.request('POST', `${cms()}?fieldValidation=Strict`, '{"metadata":{"name":"dup"},"data":{"a":"1"},"data":{"b":"2"}}');
    assertStatus(dup, 400, 'BadRequest', /strict decoding error: .*duplicate field "data"/);
    // Go's strict decoder reports unknown and duplicate fields of a built-in kind in the order it meets them (the
    // duplicate where its second occurrence stands), as kube-apiserver v1.32.4 answers these bodies.
    for (const [body, want] of [
      ['{"metadata":{"name":"o1"},"data":{"x":"1"},"unk":1,"data":{"y":"2"}}', 'unknown field "unk", duplicate field "data"'],
      ['{"metadata":{"name":"o2"},"data":{"x":"1"},"data":{"y":"2"},"unk":1}', 'duplicate field "data", unknown field "unk"'],
      ['{"metadata":{"name":"o3","zz":1,"name":"b"},"unk":1,"data":{"x":"1","x":"2"}}', 'unknown field "metadata.zz", duplicate field "metadata.name", unknown field "unk", duplicate field "data.x"'],
    ]) {
      const r = await ts.request('POST', `${cms()}?fieldValidation=Strict`, body);
      assertStatus(r, 400, 'BadRequest', new RegExp(`^ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: ${want!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    }
  });

  it('fieldValidation=Warn (and the default) stores the object and sends Warning headers', async () => {
    for (const [name, query] of [['warn', '?fieldValidation=Warn'], ['default', '']] as const) {
      const r = await ts.request('POST', `${cms()}${query}`, { metadata: { name }, data: { a: '1' }, bogus: true });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(warnings(r.headers.warning), ['299 - "unknown field \\"bogus\\""']);
      assert.equal(r.json.bogus, undefined, 'unknown fields are dropped');
      const got = await ts.request('GET', `${cms()}/${name}`);
      assert.equal(got.json.bogus, undefined);
    }
  });

  it('fieldValidation=Ignore drops unknown fields silently', async () => {
    const r = await ts.request('POST', `${cms()}?fieldValidation=Ignore`, { metadata: { name: 'ignore' }, bogus: true });
    assert.equal(r.status, 201);
    assert.equal(r.headers.warning, undefined);
    assert.equal(r.json.bogus, undefined);
  });

  it('fieldValidation applies to updates and patches too', async () => {
    const cm = await createConfigMap(ts, ns, 'fv', { data: { a: '1' } });
    const put = await ts.request('PUT', `${cms()}/fv?fieldValidation=Strict`, { ...cm, extra: 1 });
    assertStatus(put, 400, 'BadRequest', /strict decoding error: unknown field "extra"/);
    const patch = await ts.request('PATCH', `${cms()}/fv?fieldValidation=Strict`, '{"extra":1}', { headers: { 'Content-Type': 'application/merge-patch+json' } });
    // A patch's result fails as the 422 patch error (handlers/patch.go), not the create/update 400.
    assertStatus(patch, 422, 'Invalid', /^ "" is invalid: patch: Invalid value: ".*": strict decoding error: unknown field "extra"$/);
    const warned = await ts.request('PATCH', `${cms()}/fv`, '{"extra":1}', { headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(warned.status, 200, warned.text);
    assert.deepEqual(warnings(warned.headers.warning), ['299 - "unknown field \\"extra\\""']);
  });

  it('an unsupported fieldValidation value is rejected', async () => {
    const r = await ts.request('POST', `${cms()}?fieldValidation=Loose`, { metadata: { name: 'loose' } });
    assertStatus(r, 422, 'Invalid', 'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loose": supported values: "", "Ignore", "Strict", "Warn"');
    const p = await ts.request('PATCH', `${cms()}/loose?fieldValidation=Loose`, '{}', { headers: { 'Content-Type': 'application/merge-patch+json' } });
    assertStatus(p, 422, 'Invalid', /^PatchOptions\.meta\.k8s\.io "" is invalid: fieldValidation: Unsupported value: "Loose"/);
    assert.equal((await ts.request('GET', `${cms()}/loose`)).status, 404);
  });

  it('a fieldManager over 128 characters is 422', async () => {
    const r = await ts.request('POST', `${cms()}?fieldManager=${'m'.repeat(129)}`, { metadata: { name: 'fm' } });
    assertStatus(r, 422, 'Invalid', 'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes');
  });
});
