/** List semantics over real HTTPS: selectors, paging, resourceVersion/resourceVersionMatch, option errors. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { assertStatus, createConfigMap, createNamespace, openWatch } from './support.js';
import { parse as yamlParse } from 'yaml';
import { installCRD } from './crd-support.js';
import { cronTabCRD } from './crd-fixtures.js';
import { encodeKubernetesProtobufList } from '../../src/apimachinery/protobuf/encode.js';

const q = encodeURIComponent;

describe('list', () => {
  let ts: TestServer;
  let labelled: string;
  before(async () => {
    ts = await startTestServer();
    labelled = await createNamespace(ts, 'labels');
    const objs: [string, Record<string, string>][] = [
      ['a', { app: 'web', tier: 'front' }],
      ['b', { app: 'web', tier: 'back' }],
      ['c', { app: 'db' }],
      ['d', {}],
      ['e', { app: 'cache', version: '3' }],
    ];
    for (const [name, labels] of objs) await createConfigMap(ts, labelled, name, {}, labels);
  });
  after(async () => {
    await ts?.stop();
  });

  async function names(path: string): Promise<string[]> {
    const r = await ts.request('GET', path);
    assert.equal(r.status, 200, r.text);
    return r.json.items.map((i: any) => i.metadata.name).sort();
  }

  it('a list is a ConfigMapList with resourceVersion; its items carry no apiVersion/kind (a typed list)', async () => {
    const r = await ts.request('GET', `/api/v1/namespaces/${labelled}/configmaps`);
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'application/json');
    assert.equal(r.json.kind, 'ConfigMapList');
    assert.equal(r.json.apiVersion, 'v1');
    assert.match(r.json.metadata.resourceVersion, /^\d+$/);
    assert.equal(r.json.metadata.continue, undefined);
    assert.deepEqual(r.json.items.map((i: any) => i.metadata.name), ['a', 'b', 'c', 'd', 'e'], 'items sorted by name');
    for (const i of r.json.items) {
      assert.equal('kind' in i, false, JSON.stringify(i));
      assert.equal('apiVersion' in i, false, JSON.stringify(i));
    }
  });

  it("a typed list's items lack apiVersion/kind in every list form; Table and metadata forms, watch events and custom resources keep them", async () => {
    const ns = await createNamespace(ts, 'typemeta');
    await createConfigMap(ts, ns, 'one', { data: { k: 'v' } });
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    // Twice each: the first answer fills the per-item encoding cache, the second is served from it.
    for (let round = 0; round < 2; round++) {
      const json = await ts.request('GET', path);
      assert.deepEqual(Object.keys(json.json.items[0]).sort(), ['data', 'metadata'], json.text);
      assert.equal(json.json.kind, 'ConfigMapList');
      // A resourceVersion=0 read and a limited read take other paths through the store.
      for (const query of ['?resourceVersion=0', '?limit=1', '?labelSelector=x!=y']) {
        const r = await ts.request('GET', path + query);
        assert.equal(r.status, 200, r.text);
        assert.deepEqual(Object.keys(r.json.items[0]).sort(), ['data', 'metadata'], `${query}: ${r.text}`);
      }
      const yaml = await ts.request('GET', path, undefined, { headers: { Accept: 'application/yaml' } });
      const yamlList = yamlParse(yaml.text);
      assert.equal(yamlList.kind, 'ConfigMapList');
      assert.deepEqual(Object.keys(yamlList.items[0]).sort(), ['data', 'metadata'], yaml.text);
      const pb = await ts.request('GET', path, undefined, { headers: { Accept: 'application/vnd.kubernetes.protobuf' } });
      assert.ok(pb.raw.equals(Buffer.from(encodeKubernetesProtobufList('v1', 'ConfigMapList', 'ConfigMap', json.json.metadata, json.json.items))));
      const partial = await ts.request('GET', path, undefined, { headers: { Accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1' } });
      assert.equal(partial.status, 200, partial.text);
      assert.equal(partial.json.items[0].kind, 'PartialObjectMetadata');
      assert.equal(partial.json.items[0].apiVersion, 'meta.k8s.io/v1');
      const table = await ts.request('GET', `${path}?includeObject=Object`, undefined, { headers: { Accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' } });
      assert.equal(table.status, 200, table.text);
      assert.equal(table.json.rows[0].object.kind, 'ConfigMap');
      assert.equal(table.json.rows[0].object.apiVersion, 'v1');
      const tableMeta = await ts.request('GET', path, undefined, { headers: { Accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' } });
      assert.equal(tableMeta.json.rows[0].object.kind, 'PartialObjectMetadata');
    }
    // A PUT of a list item as listed (no apiVersion/kind) is decoded as the URL's kind.
    const listed = (await ts.request('GET', path)).json.items[0];
    const put = await ts.request('PUT', `${path}/one`, { ...listed, data: { k: 'w' } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.json.kind, 'ConfigMap');
    // Watch events carry apiVersion/kind, the initial ADDED events included.
    const w = await openWatch(ts, `${path}?watch=true&resourceVersion=0`);
    try {
      const ev = await w.next();
      assert.equal(ev.type, 'ADDED');
      assert.equal(ev.object.kind, 'ConfigMap');
      assert.equal(ev.object.apiVersion, 'v1');
    } finally {
      w.close();
    }
    // A custom resource's list is unstructured: its items keep apiVersion/kind.
    await installCRD(ts, cronTabCRD());
    const crPath = `/apis/stable.example.com/v1/namespaces/${ns}/crontabs`;
    const made = await ts.request('POST', crPath, { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'c' }, spec: { cronSpec: '* * * * *', image: 'x' } });
    assert.equal(made.status, 201, made.text);
    for (let round = 0; round < 2; round++) {
      const crs = await ts.request('GET', crPath);
      assert.equal(crs.status, 200, crs.text);
      assert.equal(crs.json.items[0].kind, 'CronTab');
      assert.equal(crs.json.items[0].apiVersion, 'stable.example.com/v1');
    }
  });

  const labelCases: [string, string[]][] = [
    ['app=web', ['a', 'b']],
    ['app==web', ['a', 'b']],
    ['app!=web', ['c', 'd', 'e']],
    ['app in (web,db)', ['a', 'b', 'c']],
    ['app notin (web,db)', ['d', 'e']],
    ['tier', ['a', 'b']],
    ['!tier', ['c', 'd', 'e']],
    ['app=web,tier=front', ['a']],
    ['app,!tier', ['c', 'e']],
    ['version>2', ['e']],
    ['version<2', []],
    ['app=nothing', []],
  ];
  for (const [selector, expected] of labelCases) {
    it(`labelSelector ${selector}`, async () => {
      assert.deepEqual(await names(`/api/v1/namespaces/${labelled}/configmaps?labelSelector=${q(selector)}`), expected);
    });
  }

  for (const bad of ['app in web', 'app=(x', '=x']) {
    it(`a malformed labelSelector ${JSON.stringify(bad)} is 400`, async () => {
      const r = await ts.request('GET', `/api/v1/namespaces/${labelled}/configmaps?labelSelector=${q(bad)}`);
      assertStatus(r, 400, 'BadRequest');
    });
  }

  it('fieldSelector metadata.name and metadata.namespace', async () => {
    assert.deepEqual(await names(`/api/v1/namespaces/${labelled}/configmaps?fieldSelector=${q('metadata.name=c')}`), ['c']);
    assert.deepEqual(await names(`/api/v1/namespaces/${labelled}/configmaps?fieldSelector=${q('metadata.name!=c')}`), ['a', 'b', 'd', 'e']);
    assert.deepEqual(await names(`/api/v1/configmaps?fieldSelector=${q(`metadata.namespace=${labelled},metadata.name=a`)}`), ['a']);
    assert.deepEqual(
      await names(`/api/v1/namespaces/${labelled}/configmaps?fieldSelector=${q('metadata.name!=c')}&labelSelector=${q('app=web')}`),
      ['a', 'b'],
    );
  });

  it('namespaces by status.phase', async () => {
    const doomed = await createNamespace(ts, 'doomed');
    assert.equal((await ts.request('DELETE', `/api/v1/namespaces/${doomed}`)).status, 200);
    const active = await names(`/api/v1/namespaces?fieldSelector=${q('status.phase=Active')}`);
    assert.ok(active.includes(labelled) && active.includes('default'));
    assert.ok(!active.includes(doomed));
    const terminating = await names(`/api/v1/namespaces?fieldSelector=${q('status.phase=Terminating')}`);
    assert.ok(terminating.includes(doomed));
    assert.ok(!terminating.includes(labelled));
  });

  it('secrets by type', async () => {
    const ns = await createNamespace(ts, 'secrets');
    const tls = { 'tls.crt': Buffer.from('c').toString('base64'), 'tls.key': Buffer.from('k').toString('base64') };
    assert.equal((await ts.request('POST', `/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 'opaque' } })).status, 201);
    const t = await ts.request('POST', `/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 'tls' }, type: 'kubernetes.io/tls', data: tls });
    assert.equal(t.status, 201, t.text);
    assert.deepEqual(await names(`/api/v1/namespaces/${ns}/secrets?fieldSelector=${q('type=kubernetes.io/tls')}`), ['tls']);
    assert.deepEqual(await names(`/api/v1/namespaces/${ns}/secrets?fieldSelector=${q('type=Opaque')}`), ['opaque']);
    assert.deepEqual(await names(`/api/v1/namespaces/${ns}/secrets?fieldSelector=${q('type!=Opaque')}`), ['tls']);
  });

  it('events by involvedObject.*, reason, type and source (what kubectl describe asks)', async () => {
    const ns = await createNamespace(ts, 'events');
    const event = (name: string, objName: string, kind: string, uid: string, reason: string) => ({
      metadata: { name },
      involvedObject: { kind, name: objName, namespace: ns, uid, apiVersion: 'v1' },
      reason,
      type: 'Normal',
      source: { component: 'tester' },
      message: 'm',
    });
    for (const e of [event('e1', 'c1', 'ConfigMap', 'u1', 'Created'), event('e2', 'c2', 'ConfigMap', 'u2', 'Updated'), event('e3', 'c1', 'Secret', 'u3', 'Created')]) {
      const r = await ts.request('POST', `/api/v1/namespaces/${ns}/events`, e);
      assert.equal(r.status, 201, r.text);
    }
    const base = `/api/v1/namespaces/${ns}/events?fieldSelector=`;
    assert.deepEqual(await names(base + q('involvedObject.name=c1')), ['e1', 'e3']);
    assert.deepEqual(await names(base + q(`involvedObject.name=c1,involvedObject.namespace=${ns},involvedObject.kind=ConfigMap,involvedObject.uid=u1`)), ['e1']);
    assert.deepEqual(await names(base + q('reason=Created')), ['e1', 'e3']);
    assert.deepEqual(await names(base + q('type=Normal,source=tester')), ['e1', 'e2', 'e3']);
    assert.deepEqual(await names(base + q('involvedObject.apiVersion=v2')), []);
  });

  it('an unsupported field selector is 400 with the upstream text for each kind', async () => {
    const cm = await ts.request('GET', `/api/v1/namespaces/${labelled}/configmaps?fieldSelector=${q('data.a=1')}`);
    assertStatus(cm, 400, 'BadRequest', '"data.a" is not a known field selector: only "metadata.name", "metadata.namespace"');
    const secret = await ts.request('GET', `/api/v1/namespaces/${labelled}/secrets?fieldSelector=${q('foo=bar')}`);
    assertStatus(secret, 400, 'BadRequest', 'field label not supported: foo');
    const ns = await ts.request('GET', `/api/v1/namespaces?fieldSelector=${q('spec.finalizers=x')}`);
    assertStatus(ns, 400, 'BadRequest', 'field label not supported: spec.finalizers');
    const watch = await ts.request('GET', `/api/v1/namespaces/${labelled}/configmaps?watch=true&fieldSelector=${q('data.a=1')}`);
    assertStatus(watch, 400, 'BadRequest', '"data.a" is not a known field selector: only "metadata.name", "metadata.namespace"');
  });

  it('limit/continue pages through a consistent snapshot with remainingItemCount', async () => {
    const ns = await createNamespace(ts, 'paging');
    for (const n of ['p1', 'p2', 'p3', 'p4', 'p5']) await createConfigMap(ts, ns, n);
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const first = await ts.request('GET', `${base}?limit=2`);
    assert.equal(first.status, 200);
    assert.deepEqual(first.json.items.map((i: any) => i.metadata.name), ['p1', 'p2']);
    assert.ok(first.json.metadata.continue);
    assert.equal(first.json.metadata.remainingItemCount, 3);
    const snapshotRV = first.json.metadata.resourceVersion;

    // Changes after the first page do not show up in later pages.
    await createConfigMap(ts, ns, 'p6');
    assert.equal((await ts.request('DELETE', `${base}/p5`)).status, 200);

    const second = await ts.request('GET', `${base}?limit=2&continue=${q(first.json.metadata.continue)}`);
    assert.equal(second.status, 200, second.text);
    assert.deepEqual(second.json.items.map((i: any) => i.metadata.name), ['p3', 'p4']);
    assert.equal(second.json.metadata.remainingItemCount, 1);
    assert.equal(second.json.metadata.resourceVersion, snapshotRV);
    const third = await ts.request('GET', `${base}?limit=2&continue=${q(second.json.metadata.continue)}`);
    assert.deepEqual(third.json.items.map((i: any) => i.metadata.name), ['p5']);
    assert.equal(third.json.metadata.continue, undefined);
    assert.equal(third.json.metadata.remainingItemCount, undefined);

    // A fresh list sees the changes.
    assert.deepEqual(await names(base), ['p1', 'p2', 'p3', 'p4', 'p6']);
  });

  it('limit with a label selector pages over matching items only (no remainingItemCount)', async () => {
    const base = `/api/v1/namespaces/${labelled}/configmaps?labelSelector=${q('app')}&limit=2`;
    const first = await ts.request('GET', base);
    assert.deepEqual(first.json.items.map((i: any) => i.metadata.name), ['a', 'b']);
    assert.ok(first.json.metadata.continue);
    assert.equal(first.json.metadata.remainingItemCount, undefined);
    const second = await ts.request('GET', `${base}&continue=${q(first.json.metadata.continue)}`);
    assert.deepEqual(second.json.items.map((i: any) => i.metadata.name), ['c', 'e']);
  });

  it('a bad continue token is 400', async () => {
    for (const token of ['garbage!!', Buffer.from('{"x":1}').toString('base64')]) {
      const r = await ts.request('GET', `/api/v1/namespaces/${labelled}/configmaps?limit=1&continue=${q(token)}`);
      assertStatus(r, 400, 'BadRequest', /^invalid continue token/);
    }
  });

  it('continue beside a resourceVersion: 400 after the token is read; beside resourceVersionMatch: 422', async () => {
    const base = `/api/v1/namespaces/${labelled}/configmaps`;
    const first = await ts.request('GET', `${base}?limit=1`);
    const token = q(first.json.metadata.continue);
    const withRv = await ts.request('GET', `${base}?limit=1&continue=${token}&resourceVersion=5`);
    assertStatus(withRv, 400, 'BadRequest', 'specifying resource version is not allowed when using continue');
    assert.equal(withRv.json.details, undefined);
    // A bad token is reported first, as upstream decodes it before looking at resourceVersion.
    const badToken = await ts.request('GET', `${base}?limit=1&continue=garbage!!&resourceVersion=5`);
    assertStatus(badToken, 400, 'BadRequest', /^invalid continue token/);
    const withMatch = await ts.request('GET', `${base}?limit=1&continue=${token}&resourceVersion=5&resourceVersionMatch=NotOlderThan`);
    assertStatus(
      withMatch,
      422,
      'Invalid',
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided',
    );
  });

  it('every ListOptions problem is reported, with upstream\'s list of supported matches', async () => {
    const r = await ts.request('GET', `/api/v1/namespaces/${labelled}/configmaps?resourceVersionMatch=Foo`);
    assertStatus(
      r,
      422,
      'Invalid',
      'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, resourceVersionMatch: Unsupported value: "Foo": supported values: "Exact", "NotOlderThan", ""]',
    );
    assert.equal(r.json.details.causes.length, 2);
  });

  it('resourceVersion with Exact lists the old state; NotOlderThan and GET see the newest', async () => {
    const ns = await createNamespace(ts, 'rv');
    const cm = await createConfigMap(ts, ns, 'v', { data: { a: '1' } });
    const rv1 = cm.metadata.resourceVersion;
    const edit = structuredClone(cm);
    edit.data.a = '2';
    const updated = await ts.request('PUT', `/api/v1/namespaces/${ns}/configmaps/v`, edit);
    assert.equal(updated.status, 200);
    const rv2 = updated.json.metadata.resourceVersion;

    const exact = await ts.request('GET', `/api/v1/namespaces/${ns}/configmaps?resourceVersion=${rv1}&resourceVersionMatch=Exact`);
    assert.equal(exact.status, 200, exact.text);
    assert.equal(exact.json.metadata.resourceVersion, rv1);
    assert.equal(exact.json.items[0].data.a, '1');
    assert.equal(exact.json.items[0].metadata.resourceVersion, rv1);

    const notOlder = await ts.request('GET', `/api/v1/namespaces/${ns}/configmaps?resourceVersion=${rv1}&resourceVersionMatch=NotOlderThan`);
    assert.equal(notOlder.json.items[0].data.a, '2');
    assert.ok(Number(notOlder.json.metadata.resourceVersion) >= Number(rv2));

    const plain = await ts.request('GET', `/api/v1/namespaces/${ns}/configmaps?resourceVersion=${rv1}`);
    assert.equal(plain.json.items[0].data.a, '2', 'resourceVersion without a match means NotOlderThan');
    const any = await ts.request('GET', `/api/v1/namespaces/${ns}/configmaps?resourceVersion=0`);
    assert.equal(any.status, 200);

    // GET with a resourceVersion is "not older than", never a read of history.
    const get = await ts.request('GET', `/api/v1/namespaces/${ns}/configmaps/v?resourceVersion=${rv1}`);
    assert.equal(get.status, 200, get.text);
    assert.equal(get.json.data.a, '2');
    assert.equal(get.json.metadata.resourceVersion, rv2);
  });

  it('resourceVersionMatch without resourceVersion is 422 on ListOptions', async () => {
    const r = await ts.request('GET', `/api/v1/namespaces/${labelled}/configmaps?resourceVersionMatch=NotOlderThan`);
    assertStatus(r, 422, 'Invalid', 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
    assert.equal(r.json.details.group, 'meta.k8s.io');
    assert.equal(r.json.details.kind, 'ListOptions');
    const bad = await ts.request('GET', `/api/v1/namespaces/${labelled}/configmaps?resourceVersion=1&resourceVersionMatch=Newest`);
    assertStatus(bad, 422, 'Invalid', /resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan"/);
    const exact0 = await ts.request('GET', `/api/v1/namespaces/${labelled}/configmaps?resourceVersion=0&resourceVersionMatch=Exact`);
    assert.equal(exact0.status, 422);
    const sie = await ts.request('GET', `/api/v1/namespaces/${labelled}/configmaps?sendInitialEvents=true`);
    assertStatus(sie, 422, 'Invalid', /sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list/);
  });

  it('a resourceVersion from the future times out with 504 ResourceVersionTooLarge', async () => {
    const r = await ts.request('GET', `/api/v1/namespaces/${labelled}/configmaps?resourceVersion=999999999`);
    assertStatus(r, 504, 'Timeout', /^Timeout: Too large resource version: 999999999, current: \d+$/);
    assert.equal(r.json.details.causes[0].reason, 'ResourceVersionTooLarge');
  });

  it("a non-numeric resourceVersion is the storage's plain 500, or 400 for an exact read, as kube-apiserver answers", async () => {
    const parse = 'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax';
    const base = `/api/v1/namespaces/${labelled}/configmaps`;
    for (const path of [`${base}?resourceVersion=abc`, `${base}/x?resourceVersion=abc`, `${base}?resourceVersion=abc&watch=1`]) {
      const r = await ts.request('GET', path);
      assert.equal(r.status, 500, `${path}: ${r.text}`);
      assert.deepEqual(r.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: parse, code: 500 });
    }
    for (const path of [`${base}?resourceVersion=abc&limit=1`, `${base}?resourceVersion=abc&resourceVersionMatch=Exact`]) {
      const r = await ts.request('GET', path);
      assertStatus(r, 400, 'BadRequest', new RegExp(`^invalid resource version: ${parse.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    }
  });

  it('a list after a write shows the new object, in JSON and protobuf (the shared read cache keys by revision)', async () => {
    const ns = await createNamespace(ts, 'cached');
    for (const name of ['p', 'q', 'r']) await createConfigMap(ts, ns, name, { data: { v: '1' } });
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const pb = { headers: { Accept: 'application/vnd.kubernetes.protobuf' } };
    const first = await ts.request('GET', path);
    const firstPb = await ts.request('GET', path, undefined, pb);
    // Read again from the cache: the same bytes.
    assert.equal((await ts.request('GET', path)).text, first.text);
    assert.ok((await ts.request('GET', path, undefined, pb)).raw.equals(firstPb.raw));
    const q = first.json.items.find((i: any) => i.metadata.name === 'q');
    const put = await ts.request('PUT', `${path}/q`, { ...q, data: { v: '2' } });
    assert.equal(put.status, 200, put.text);
    assert.equal((await ts.request('DELETE', `${path}/r`)).status, 200);
    const after = await ts.request('GET', path);
    assert.deepEqual(
      after.json.items.map((i: any) => [i.metadata.name, i.data.v, i.metadata.resourceVersion]),
      [['p', '1', first.json.items[0].metadata.resourceVersion], ['q', '2', put.json.metadata.resourceVersion]],
    );
    // The protobuf answer is exactly the JSON answer's list encoded afresh.
    const afterPb = (await ts.request('GET', path, undefined, pb)).raw;
    const want = encodeKubernetesProtobufList('v1', 'ConfigMapList', 'ConfigMap', after.json.metadata, after.json.items);
    assert.ok(afterPb.equals(Buffer.from(want)));
    // An Exact read of the old revision still lists the old objects.
    const old = await ts.request('GET', `${path}?resourceVersion=${first.json.metadata.resourceVersion}&resourceVersionMatch=Exact`);
    assert.deepEqual(old.json.items.map((i: any) => [i.metadata.name, i.data.v]), [['p', '1'], ['q', '1'], ['r', '1']]);
  });

  it('YAML output when asked for', async () => {
    const r = await ts.request('GET', `/api/v1/namespaces/${labelled}/configmaps/a`, undefined, { headers: { Accept: 'application/yaml' } });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'application/yaml');
    assert.match(r.text, /^apiVersion: v1\nkind: ConfigMap\nmetadata:\n/m);
  });
});
