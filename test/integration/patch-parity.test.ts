/**
 * PATCH (and the create/update decoding it shares) against kube-apiserver 1.32's exact answers: type errors in a
 * patch's result, base64 bytes, metadata and identity, fieldValidation on patches, duplicate owner references,
 * malformed JSON and time fields.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { assertStatus, createConfigMap, createNamespace } from './support.js';

const merge = 'application/merge-patch+json';
const jsonPatch = 'application/json-patch+json';
const strategic = 'application/strategic-merge-patch+json';

describe('patch parity with kube-apiserver', () => {
  let ts: TestServer;
  let ns: string;
  before(async () => {
    ts = await startTestServer();
    ns = await createNamespace(ts, 'pparity');
  });
  after(async () => {
    await ts?.stop();
  });

  const patch = (path: string, contentType: string, body: unknown, query = '') =>
    ts.request('PATCH', path + query, typeof body === 'string' ? body : JSON.stringify(body), { headers: { 'Content-Type': contentType } });
  const cmPath = (name: string) => `/api/v1/namespaces/${ns}/configmaps/${name}`;
  const nsPath = (resource: string, name = '') => `/api/v1/namespaces/${ns}/${resource}${name ? `/${name}` : ''}`;

  /** A 422 ` "" is invalid: patch: Invalid value: "<value>": <detail>` with the one cause upstream gives. */
  function assertPatchInvalid(r: { status: number; text: string; json: any; headers: any }, detail: string, value?: string): void {
    assertStatus(r as any, 422, 'Invalid');
    const message: string = r.json.message;
    assert.ok(message.startsWith(' "" is invalid: patch: Invalid value: "'), message);
    assert.ok(message.endsWith(`": ${detail}`), message);
    assert.deepEqual(Object.keys(r.json.details), ['causes']);
    assert.equal(r.json.details.causes.length, 1);
    assert.equal(r.json.details.causes[0].reason, 'FieldValueInvalid');
    assert.equal(r.json.details.causes[0].field, 'patch');
    if (value !== undefined) assert.equal(message, ` "" is invalid: patch: Invalid value: ${JSON.stringify(value)}: ${detail}`);
  }

  describe('patch results are decoded into the Go type (bug 1)', () => {
    it('merge patch with a number in ConfigMap data is 422 naming the patched document; nothing is stored', async () => {
      const cm = await createConfigMap(ts, ns, 'tc1', { data: { a: 'b' } });
      const r = await patch(cmPath('tc1'), merge, { data: { a: 1 } });
      assertPatchInvalid(r, 'json: cannot unmarshal number into Go struct field ConfigMap.data of type string');
      // The value is the whole patched object as JSON, top-level keys sorted as Go marshals them.
      const value = JSON.parse(JSON.parse(r.json.message.slice(' "" is invalid: patch: Invalid value: '.length, r.json.message.lastIndexOf('": json:') + 1)));
      assert.deepEqual(Object.keys(value), ['apiVersion', 'data', 'kind', 'metadata']);
      assert.deepEqual(value.data, { a: 1 });
      assert.equal(value.metadata.uid, cm.metadata.uid);
      const got = await ts.request('GET', cmPath('tc1'));
      assert.deepEqual(got.json.data, { a: 'b' });
    });

    it('the patched document is JSON as Go marshals it: HTML characters escaped', async () => {
      await createConfigMap(ts, ns, 'tc4', { data: { html: '<a&b>' } });
      const r = await patch(cmPath('tc4'), merge, { data: { n: 1 } });
      assertPatchInvalid(r, 'json: cannot unmarshal number into Go struct field ConfigMap.data of type string');
      assert.ok(r.json.message.includes('\\"html\\":\\"\\\\u003ca\\\\u0026b\\\\u003e\\"'), r.json.message);
    });

    it('JSON patch adding a bool to ConfigMap data is 422', async () => {
      await createConfigMap(ts, ns, 'tc2', { data: { a: 'b' } });
      const r = await patch(cmPath('tc2'), jsonPatch, [{ op: 'add', path: '/data/x', value: true }]);
      assertPatchInvalid(r, 'json: cannot unmarshal bool into Go struct field ConfigMap.data of type string');
    });

    it('strategic merge patch with a bool label is 422 with the patch map in Go %+v form and the converter wording', async () => {
      await createConfigMap(ts, ns, 'tc3', { data: { a: 'b' } });
      const r = await patch(cmPath('tc3'), strategic, { metadata: { labels: { l: true } } });
      assertPatchInvalid(r, 'unrecognized type: string', 'map[metadata:map[labels:map[l:true]]]');
      const n = await patch(cmPath('tc3'), strategic, { data: { a: 1 } });
      assertPatchInvalid(n, 'cannot convert int64 to string', 'map[data:map[a:1]]');
    });

    it('ServiceAccount secrets as an object (SMP), Role verbs number (JSON patch), Lease duration string (merge), Secret stringData number', async () => {
      const sa = await ts.request('POST', nsPath('serviceaccounts'), { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'tsa' } });
      assert.equal(sa.status, 201, sa.text);
      assertPatchInvalid(await patch(nsPath('serviceaccounts', 'tsa'), strategic, { secrets: { name: 'x' } }), 'cannot restore slice from map', 'map[secrets:map[name:x]]');

      const role = await ts.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'trole' },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
      });
      assert.equal(role.status, 201, role.text);
      assertPatchInvalid(
        await patch(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles/trole`, jsonPatch, [{ op: 'add', path: '/rules/0/verbs/-', value: 5 }]),
        'json: cannot unmarshal number into Go struct field PolicyRule.rules.verbs of type string',
      );

      const lease = await ts.request('POST', `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`, {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'tlease' },
        spec: { leaseDurationSeconds: 10 },
      });
      assert.equal(lease.status, 201, lease.text);
      assertPatchInvalid(
        await patch(`/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/tlease`, merge, { spec: { leaseDurationSeconds: '10' } }),
        'json: cannot unmarshal string into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32',
      );

      const secret = await ts.request('POST', nsPath('secrets'), { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'tsec' }, data: { a: 'Yg==' } });
      assert.equal(secret.status, 201, secret.text);
      assertPatchInvalid(await patch(nsPath('secrets', 'tsec'), merge, { stringData: { z: 5 } }), 'json: cannot unmarshal number into Go struct field Secret.stringData of type string');
      const got = await ts.request('GET', nsPath('secrets', 'tsec'));
      assert.deepEqual(got.json.data, { a: 'Yg==' });
    });
  });

  describe('base64 bytes in Secret data and ConfigMap binaryData (bug 2)', () => {
    const cannot = (kind: string, detail: string) => `${kind} in version "v1" cannot be handled as a ${kind}: ${detail}`;

    it('Secret create and update with bad or unpadded base64 are 400 with base64.StdEncoding\'s error', async () => {
      const create = (name: string, data: Record<string, string>) =>
        ts.request('POST', nsPath('secrets'), { apiVersion: 'v1', kind: 'Secret', metadata: { name }, data });
      assertStatus(await create('b64a', { a: '!!x' }), 400, 'BadRequest', cannot('Secret', 'illegal base64 data at input byte 0'));
      assertStatus(await create('b64b', { a: 'YQ' }), 400, 'BadRequest', cannot('Secret', 'illegal base64 data at input byte 0'));
      assertStatus(await create('b64c', { a: 'YWJjYQ' }), 400, 'BadRequest', cannot('Secret', 'illegal base64 data at input byte 4'));
      assertStatus(await create('b64d', { a: 'YWJj!A==' }), 400, 'BadRequest', cannot('Secret', 'illegal base64 data at input byte 4'));
      assertStatus(await create('b64e', { a: 'YQ==YQ==' }), 400, 'BadRequest', cannot('Secret', 'illegal base64 data at input byte 4'));
      assertStatus(await create('b64f', { a: 'YQ=' }), 400, 'BadRequest', cannot('Secret', 'illegal base64 data at input byte 3'));
      const ok = await create('b64ok', { a: 'YQ==', b: '' });
      assert.equal(ok.status, 201, ok.text);
      const put = await ts.request('PUT', nsPath('secrets', 'b64ok'), { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'b64ok' }, data: { a: 'YQ' } });
      assertStatus(put, 400, 'BadRequest', cannot('Secret', 'illegal base64 data at input byte 0'));
    });

    it('ConfigMap binaryData is checked like Secret data', async () => {
      const r = await ts.request('POST', nsPath('configmaps'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bin1' }, binaryData: { a: '!!x' } });
      assertStatus(r, 400, 'BadRequest', cannot('ConfigMap', 'illegal base64 data at input byte 0'));
      const unpadded = await ts.request('POST', nsPath('configmaps'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bin2' }, binaryData: { a: 'YQ' } });
      assertStatus(unpadded, 400, 'BadRequest', cannot('ConfigMap', 'illegal base64 data at input byte 0'));
    });

    it('a patch that leaves bad base64 is the 422 patch error, for every patch type', async () => {
      const s = await ts.request('POST', nsPath('secrets'), { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'b64p' }, data: { a: 'YQ==' } });
      assert.equal(s.status, 201, s.text);
      assertPatchInvalid(await patch(nsPath('secrets', 'b64p'), merge, { data: { a: '!!x' } }), 'illegal base64 data at input byte 0');
      assertPatchInvalid(await patch(nsPath('secrets', 'b64p'), jsonPatch, [{ op: 'add', path: '/data/b', value: 'YQ' }]), 'illegal base64 data at input byte 0');
      assertPatchInvalid(await patch(nsPath('secrets', 'b64p'), strategic, { data: { a: 'YQ' } }), 'illegal base64 data at input byte 0', 'map[data:map[a:YQ]]');
      await createConfigMap(ts, ns, 'binp', { binaryData: { a: 'YQ==' } });
      assertPatchInvalid(await patch(cmPath('binp'), merge, { binaryData: { a: '!!x' } }), 'illegal base64 data at input byte 0');
    });
  });

  describe('patches that break metadata or the name (bug 3)', () => {
    it('metadata made a string is the 422 patch error; labels survive', async () => {
      await createConfigMap(ts, ns, 'meta1', { data: { a: 'b' } }, { keep: 'me' });
      assertPatchInvalid(await patch(cmPath('meta1'), merge, { metadata: 'x' }), 'json: cannot unmarshal string into Go struct field ConfigMap.metadata of type v1.ObjectMeta');
      assertPatchInvalid(await patch(cmPath('meta1'), strategic, { metadata: 'x' }), 'cannot restore struct from: string', 'map[metadata:x]');
      const got = await ts.request('GET', cmPath('meta1'));
      assert.deepEqual(got.json.metadata.labels, { keep: 'me' });
    });

    it('removing the name or all of metadata is 400: the name is undeterminable', async () => {
      await createConfigMap(ts, ns, 'meta2', { data: { a: 'b' } }, { keep: 'me' });
      const undeterminable = 'the name of the object (meta2 based on URL) was undeterminable: name must be provided';
      assertStatus(await patch(cmPath('meta2'), jsonPatch, [{ op: 'remove', path: '/metadata/name' }]), 400, 'BadRequest', undeterminable);
      assertStatus(await patch(cmPath('meta2'), merge, { metadata: null }), 400, 'BadRequest', undeterminable);
      assertStatus(await patch(cmPath('meta2'), merge, { metadata: { name: null } }), 400, 'BadRequest', undeterminable);
      assertStatus(await patch(cmPath('meta2'), strategic, { metadata: null }), 400, 'BadRequest', undeterminable);
      assertStatus(
        await patch(cmPath('meta2'), merge, { metadata: { name: 'other' } }),
        400,
        'BadRequest',
        'the name of the object (other) does not match the name on the URL (meta2)',
      );
      const got = await ts.request('GET', cmPath('meta2'));
      assert.deepEqual(got.json.metadata.labels, { keep: 'me' });
    });

    it('a create body whose metadata is not an object is refused with Go\'s decoding error', async () => {
      const r = await ts.request('POST', nsPath('configmaps'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: 'x' });
      assertStatus(r, 400, 'BadRequest', 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal string into Go struct field ConfigMap.metadata of type v1.ObjectMeta');
    });
  });

  describe('fieldValidation on patches (bug 4)', () => {
    const warningsOf = (h: string | string[] | undefined) => (h === undefined ? [] : Array.isArray(h) ? h : [h]);

    it('Strict: unknown fields in the result are the 422 patch error', async () => {
      await createConfigMap(ts, ns, 'fv1', { data: { a: 'b' } });
      const m = await patch(cmPath('fv1'), merge, { foo: 1, metadata: { bar: 2 } }, '?fieldValidation=Strict');
      assertPatchInvalid(m, 'strict decoding error: unknown field "foo", unknown field "metadata.bar"');
      const j = await patch(cmPath('fv1'), jsonPatch, [{ op: 'add', path: '/foo', value: 1 }], '?fieldValidation=Strict');
      assertPatchInvalid(j, 'strict decoding error: unknown field "foo"');
      // The unstructured converter sorts its unknown fields; the value is the patch map.
      const smp = await patch(cmPath('fv1'), strategic, { zeta: 1, alpha: 2 }, '?fieldValidation=Strict');
      assertPatchInvalid(smp, 'strict decoding error: unknown field "alpha", unknown field "zeta"', 'map[alpha:2 zeta:1]');
      const dup = await patch(cmPath('fv1'), merge, '{"data":{"a":"x","a":"y"}}', '?fieldValidation=Strict');
      assertPatchInvalid(dup, 'strict decoding error: duplicate field "data.a"');
      const got = await ts.request('GET', cmPath('fv1'));
      assert.deepEqual(got.json.data, { a: 'b' });
      assert.equal(got.json.foo, undefined);
    });

    it('a type error trumps strict errors', async () => {
      await createConfigMap(ts, ns, 'fv2', { data: { a: 'b' } });
      const r = await patch(cmPath('fv2'), merge, { foo: 1, data: { a: 1 } }, '?fieldValidation=Strict');
      assertPatchInvalid(r, 'json: cannot unmarshal number into Go struct field ConfigMap.data of type string');
    });

    it('Warn (the default) answers 200 with the problems as warnings and drops unknown fields', async () => {
      await createConfigMap(ts, ns, 'fv3', { data: { a: 'b' } });
      const r = await patch(cmPath('fv3'), merge, '{"foo":1,"data":{"a":"x","a":"y"}}');
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(warningsOf(r.headers.warning).join(', '), '299 - "duplicate field \\"data.a\\"", 299 - "unknown field \\"foo\\""');
      assert.equal(r.json.foo, undefined);
      assert.deepEqual(r.json.data, { a: 'y' });
      const ignored = await patch(cmPath('fv3'), merge, { foo: 1 }, '?fieldValidation=Ignore');
      assert.equal(ignored.status, 200, ignored.text);
      assert.equal(ignored.headers.warning, undefined);
    });
  });

  describe('duplicate owner references (bug 5)', () => {
    const owner = (uid: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: `o-${uid}`, uid, ...extra });
    const warning = (uids: string, after = false) =>
      `299 - ".metadata.ownerReferences contains duplicate entries${after ? ' after mutating admission happens' : ''}; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: ${uids}"`;

    it('create and update drop exact duplicates (same UID, equal entry) and warn; differing entries with one UID stay', async () => {
      const refs = [owner('u1'), owner('u2'), owner('u1'), owner('u2', { controller: true }), owner('u1')];
      const c = await ts.request('POST', nsPath('configmaps'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'own1', ownerReferences: refs } });
      assert.equal(c.status, 201, c.text);
      assert.equal(c.headers.warning, warning('u1, u1'));
      assert.deepEqual(c.json.metadata.ownerReferences, [owner('u1'), owner('u2'), owner('u2', { controller: true })]);

      const put = await ts.request('PUT', cmPath('own1'), { ...c.json, metadata: { ...c.json.metadata, ownerReferences: [owner('u3'), owner('u3')] } });
      assert.equal(put.status, 200, put.text);
      assert.equal(put.headers.warning, warning('u3'));
      assert.deepEqual(put.json.metadata.ownerReferences, [owner('u3')]);
    });

    it('a patch dedups after admission, with that wording', async () => {
      await createConfigMap(ts, ns, 'own2', { data: { a: 'b' } });
      const r = await patch(cmPath('own2'), merge, { metadata: { ownerReferences: [owner('u4'), owner('u4'), owner('u5')] } });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.headers.warning, warning('u4', true));
      assert.deepEqual(r.json.metadata.ownerReferences, [owner('u4'), owner('u5')]);
      const got = await ts.request('GET', cmPath('own2'));
      assert.deepEqual(got.json.metadata.ownerReferences, [owner('u4'), owner('u5')]);
    });
  });

  describe('malformed JSON bodies get encoding/json\'s words (bug 6)', () => {
    it('PATCH: the prefix depends on the patch type and fieldValidation', async () => {
      await createConfigMap(ts, ns, 'mal1', { data: { a: 'b' } });
      const bad = '{"a":}';
      const lookingFor = "invalid character '}' looking for beginning of value";
      assertStatus(await patch(cmPath('mal1'), merge, bad), 400, 'BadRequest', `error decoding patch: ${lookingFor}`);
      assertStatus(await patch(cmPath('mal1'), merge, ''), 400, 'BadRequest', 'error decoding patch: unexpected end of JSON input');
      assertStatus(await patch(cmPath('mal1'), merge, bad, '?fieldValidation=Ignore'), 400, 'BadRequest', 'Invalid JSON Patch');
      assertStatus(await patch(cmPath('mal1'), jsonPatch, '[{"op":"add",}]'), 400, 'BadRequest', 'error decoding patch: invalid character \'}\' looking for beginning of object key string');
      assertStatus(await patch(cmPath('mal1'), jsonPatch, '[1 2]', '?fieldValidation=Ignore'), 400, 'BadRequest', "invalid character '2' after array element");
      assertStatus(await patch(cmPath('mal1'), strategic, bad), 400, 'BadRequest', lookingFor);
      assertStatus(await patch(cmPath('mal1'), strategic, '{"a":tru}'), 400, 'BadRequest', "invalid character '}' in literal true (expecting 'e')");
      assertStatus(await patch(cmPath('mal1'), strategic, '{"a":1} x', '?fieldValidation=Ignore'), 400, 'BadRequest', "invalid character 'x' after top-level value");
    });

    it('create: the object is unrecognized, with Go\'s parse error and the summarized body', async () => {
      const r = await ts.request('POST', nsPath('configmaps'), '{"metadata":{"name":"x"},"data":{"a":}}', { headers: { 'Content-Type': 'application/json' } });
      assertStatus(
        r,
        400,
        'BadRequest',
        'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: invalid character \'}\' looking for beginning of value ({"metadata":{"name":"x"},"data ...)',
      );
      const truncated = await ts.request('POST', nsPath('configmaps'), '{"metadata":', { headers: { 'Content-Type': 'application/json' } });
      assertStatus(
        truncated,
        400,
        'BadRequest',
        'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: unexpected end of JSON input ({"metadata":)',
      );
    });
  });

  describe('patching uid, kind and apiVersion (bug 7)', () => {
    it('a patched uid is immutable (422), not a failed precondition; a PUT body uid still is one (409)', async () => {
      const cm = await createConfigMap(ts, ns, 'id1', { data: { a: 'b' } });
      const r = await patch(cmPath('id1'), jsonPatch, [{ op: 'replace', path: '/metadata/uid', value: 'abc' }]);
      assertStatus(r, 422, 'Invalid', 'ConfigMap "id1" is invalid: metadata.uid: Invalid value: "abc": field is immutable');
      const m = await patch(cmPath('id1'), merge, { metadata: { uid: 'abc' } });
      assertStatus(m, 422, 'Invalid', 'ConfigMap "id1" is invalid: metadata.uid: Invalid value: "abc": field is immutable');
      const put = await ts.request('PUT', cmPath('id1'), { ...cm, metadata: { ...cm.metadata, uid: 'abc' } });
      assertStatus(put, 409, 'Conflict', `Operation cannot be fulfilled on configmaps "id1": Precondition failed: UID in precondition: abc, UID in object meta: ${cm.metadata.uid}`);
      const same = await patch(cmPath('id1'), merge, { metadata: { uid: cm.metadata.uid }, data: { a: 'c' } });
      assert.equal(same.status, 200, same.text);
    });

    it('a removed kind or apiVersion is defaulted from the type: the patch succeeds', async () => {
      await createConfigMap(ts, ns, 'id2', { data: { a: 'b' } });
      const r = await patch(cmPath('id2'), merge, { kind: null, data: { a: 'c' } });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.kind, 'ConfigMap');
      assert.deepEqual(r.json.data, { a: 'c' });
      const v = await patch(cmPath('id2'), jsonPatch, [{ op: 'remove', path: '/apiVersion' }]);
      assert.equal(v.status, 200, v.text);
      assert.equal(v.json.apiVersion, 'v1');
      const empty = await patch(cmPath('id2'), merge, { apiVersion: '', kind: '' });
      assert.equal(empty.status, 200, empty.text);
      assert.equal(empty.json.apiVersion, 'v1');
      assert.equal(empty.json.kind, 'ConfigMap');
      // A strategic merge patch's result is converted into a ConfigMap whatever it says.
      const smp = await patch(cmPath('id2'), strategic, { apiVersion: 'v2', kind: 'Widget', data: { a: 'd' } });
      assert.equal(smp.status, 200, smp.text);
      assert.equal(smp.json.apiVersion, 'v1');
      assert.equal(smp.json.kind, 'ConfigMap');
      assert.deepEqual(smp.json.data, { a: 'd' });
    });

    it('an unknown version or kind fails decoding: the 422 patch error', async () => {
      await createConfigMap(ts, ns, 'id3', { data: { a: 'b' } });
      assertPatchInvalid(
        await patch(cmPath('id3'), merge, { apiVersion: 'v2' }),
        'no kind "ConfigMap" is registered for version "v2" in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"',
      );
      assertPatchInvalid(
        await patch(cmPath('id3'), jsonPatch, [{ op: 'replace', path: '/kind', value: 'Widget' }]),
        'no kind "Widget" is registered for version "v1" in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"',
      );
      assertPatchInvalid(await patch(cmPath('id3'), merge, { kind: 5 }), "couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string");
      const got = await ts.request('GET', cmPath('id3'));
      assert.equal(got.json.apiVersion, 'v1');
      assert.equal(got.json.kind, 'ConfigMap');
    });
  });

  describe('time fields are parsed as Go parses them (bug 8)', () => {
    const leases = () => `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`;
    const lease = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name }, spec });
    const cannot = (detail: string) => `Lease in version "v1" cannot be handled as a Lease: ${detail}`;
    const micro = '2006-01-02T15:04:05.000000Z07:00';

    it('a MicroTime that is not one is 400 with time.Parse\'s error', async () => {
      assertStatus(
        await ts.request('POST', leases(), lease('t1', { renewTime: 'notatime' })),
        400,
        'BadRequest',
        cannot(`parsing time "notatime" as "${micro}": cannot parse "notatime" as "2006"`),
      );
      // MicroTime's layout wants exactly six fractional digits.
      assertStatus(
        await ts.request('POST', leases(), lease('t2', { acquireTime: '2024-01-01T00:00:00Z' })),
        400,
        'BadRequest',
        cannot(`parsing time "2024-01-01T00:00:00Z" as "${micro}": cannot parse "Z" as ".000000"`),
      );
      assertStatus(await ts.request('POST', leases(), lease('t3', { renewTime: '2024-13-01T00:00:00.000000Z' })), 400, 'BadRequest', cannot('parsing time "2024-13-01T00:00:00.000000Z": month out of range'));
      assertStatus(await ts.request('POST', leases(), lease('t4', { renewTime: 5 })), 400, 'BadRequest', cannot('json: cannot unmarshal number into Go struct field LeaseSpec.spec.renewTime of type string'));
      const ok = await ts.request('POST', leases(), lease('t5', { renewTime: '2024-01-01T00:00:00.123456Z', acquireTime: null }));
      assert.equal(ok.status, 201, ok.text);
    });

    it('a time error wins over an earlier type mismatch, as encoding/json returns it at once', async () => {
      const r = await ts.request('POST', leases(), lease('t6', { leaseDurationSeconds: 'x', renewTime: 'bad' }));
      assertStatus(r, 400, 'BadRequest', cannot(`parsing time "bad" as "${micro}": cannot parse "bad" as "2006"`));
    });

    it('metav1.Time (RFC 3339) in ObjectMeta, on create and in a patch', async () => {
      const r = await ts.request('POST', nsPath('configmaps'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'tt1', creationTimestamp: 'yesterday' } });
      assertStatus(r, 400, 'BadRequest', 'ConfigMap in version "v1" cannot be handled as a ConfigMap: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"');
      const created = await ts.request('POST', leases(), lease('t7', { leaseDurationSeconds: 10 }));
      assert.equal(created.status, 201, created.text);
      assertPatchInvalid(
        await ts.request('PATCH', `${leases()}/t7`, JSON.stringify({ spec: { renewTime: '2024-01-01T00:00:00Z' } }), { headers: { 'Content-Type': merge } }),
        `parsing time "2024-01-01T00:00:00Z" as "${micro}": cannot parse "Z" as ".000000"`,
      );
      assertPatchInvalid(
        await ts.request('PATCH', `${leases()}/t7`, JSON.stringify({ spec: { renewTime: 'soon' } }), { headers: { 'Content-Type': strategic } }),
        `parsing time "soon" as "${micro}": cannot parse "soon" as "2006"`,
        'map[spec:map[renewTime:soon]]',
      );
    });
  });
});
