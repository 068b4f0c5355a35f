/** Request bodies over real HTTPS: malformed JSON, YAML, size limit, protobuf from client-go/kubectl. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { assertStatus, createConfigMap, createNamespace } from './support.js';
import { decodeKubernetesProtobuf } from '../../src/apimachinery/protobuf/decode.js';

/** `kubectl create ns foo` as kubectl 1.32 sends it (k8s-api.md §8): "k8s\0" + runtime.Unknown{TypeMeta{v1, Namespace}, raw Namespace{metadata{name: foo}}}. */
const kubectlCreateNamespaceFoo = Buffer.from(
  '6b3873000a0f0a02763112094e616d657370616365121b0a130a03666f6f12001a0022002a0032003800420012001a020a001a002200',
  'hex',
);
/** A typed client's DeleteOptions{propagationPolicy: Background} in protobuf. */
const protobufDeleteOptionsBackground = Buffer.from('6b3873000a130a027631120d44656c6574654f7074696f6e73120c220a4261636b67726f756e641a002200', 'hex');
const protobuf = 'application/vnd.kubernetes.protobuf';

describe('request bodies', () => {
  let ts: TestServer;
  let ns: string;
  before(async () => {
    ts = await startTestServer();
    ns = await createNamespace(ts, 'bodies');
  });
  after(async () => {
    await ts?.stop();
  });

  const cms = () => `/api/v1/namespaces/${ns}/configmaps`;

  // Unparseable JSON never reveals a kind, so upstream's transformDecodeError uses its "unrecognized" form.
  const unparseable: [string, string][] = [
    ['truncated JSON', '{"metadata": {"name": "x"'],
    ['not JSON at all', 'hello'],
  ];
  for (const [what, body] of unparseable) {
    it(`${what} is 400 "the object provided is unrecognized"`, async () => {
      const r = await ts.request('POST', cms(), body);
      assertStatus(r, 400, 'BadRequest', /^the object provided is unrecognized \(must be of type ConfigMap\): couldn't get version\/kind; json parse error: /);
    });
  }
  for (const [what, body] of [['a JSON array', '[1,2]'], ['a JSON string', '"configmap"']]) {
    it(`${what} is 400`, async () => {
      const r = await ts.request('POST', cms(), body!);
      assertStatus(r, 400, 'BadRequest');
    });
  }

  it('an empty body is 400', async () => {
    const r = await ts.request('POST', cms(), '');
    assertStatus(r, 400, 'BadRequest');
  });

  it('a body of another kind or version is 400', async () => {
    const kind = await ts.request('POST', cms(), { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'k' } });
    assertStatus(kind, 400, 'BadRequest');
    const version = await ts.request('POST', cms(), { apiVersion: 'v2', kind: 'ConfigMap', metadata: { name: 'k' } });
    assertStatus(version, 400, 'BadRequest');
  });

  it('a YAML body is accepted', async () => {
    const yaml = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\n  labels:\n    a: "1"\ndata:\n  key: |\n    line one\n    line two\n`;
    const r = await ts.request('POST', cms(), yaml, { headers: { 'Content-Type': 'application/yaml' } });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json.metadata.labels, { a: '1' });
    assert.equal(r.json.data.key, 'line one\nline two\n');
    const bad = await ts.request('POST', cms(), 'metadata: [unclosed', { headers: { 'Content-Type': 'application/yaml' } });
    assertStatus(bad, 400, 'BadRequest');
  });

  it('an unsupported body Content-Type is 415', async () => {
    const r = await ts.request('POST', cms(), '<configmap/>', { headers: { 'Content-Type': 'application/xml' } });
    assertStatus(r, 415, 'UnsupportedMediaType', /^the body of the request was in an unknown format - accepted media types include: application\/json, application\/yaml, application\/vnd\.kubernetes\.protobuf/);
  });

  it('a body over 3 MiB is 413 and a body just under is accepted', async () => {
    const big = { metadata: { name: 'big' }, data: { blob: 'x'.repeat(3 * 1024 * 1024) } };
    const r = await ts.request('POST', cms(), big);
    assertStatus(r, 413, 'RequestEntityTooLarge', /^Request entity too large: limit is 3145728$/);
    // Just under the limit passes the body check (the object itself may still be valid: ConfigMaps allow 1 MiB of data).
    const small = await ts.request('POST', cms(), { metadata: { name: 'smallish' }, data: { blob: 'x'.repeat(512 * 1024) } });
    assert.equal(small.status, 201, small.text.slice(0, 300));
    // The server is still healthy after refusing a huge body.
    assert.equal((await ts.request('GET', `${cms()}/smallish`)).status, 200);
  });

  it('a chunked body (no Content-Length) that grows past 3 MiB is 413; a body cut off midway creates nothing', async () => {
    const pki = join(ts.rootDir, 'pki');
    const tls = { ca: readFileSync(join(pki, 'ca.crt')), cert: readFileSync(join(pki, 'admin.crt')), key: readFileSync(join(pki, 'admin.key')) };
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpsRequest(new URL(cms(), ts.url), { method: 'POST', headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' }, ...tls }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.write('{"metadata":{"name":"chunky"},"data":{"blob":"');
      const chunk = 'x'.repeat(256 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < 16) {
          sent++;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        req.end('"}}');
      };
      pump();
    });
    assert.equal(answer.status, 413, answer.body);
    assert.match(JSON.parse(answer.body).message, /^Request entity too large: limit is 3145728$/);

    // A client that declares 4 KB, sends half and goes away.
    await new Promise<void>((resolve) => {
      const req = httpsRequest(new URL(cms(), ts.url), { method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Length': '4096' }, ...tls });
      req.on('error', () => resolve());
      req.write(`{"metadata":{"name":"cut-off"},"data":{"a":"${'y'.repeat(2000)}`, () => setTimeout(() => req.destroy(), 50));
      req.on('close', () => resolve());
    });
    assert.equal((await ts.request('GET', `${cms()}/cut-off`)).status, 404);
    assert.equal((await ts.request('GET', `${cms()}/chunky`)).status, 404);
    assert.equal((await ts.request('GET', cms())).status, 200, 'the server serves on');
  });

  it('a value of the wrong JSON type is refused with 400 and the Go decoding error, as kube-apiserver does', async () => {
    const cases: [string, string, unknown, string][] = [
      ['ConfigMap data value', cms(), { metadata: { name: 'typed' }, data: { replicas: 3 } }, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string'],
      ['label value', cms(), { metadata: { name: 'typed', labels: { on: true } } }, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string'],
      ['metadata not an object', cms(), { metadata: 'x' }, ''],
      ['rules not a list', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, { metadata: { name: 'r' }, rules: { verbs: ['get'] } }, 'Role in version "v1" cannot be handled as a Role: json: cannot unmarshal object into Go struct field Role.rules of type []v1.PolicyRule'],
      ['int32 as a string', `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`, { metadata: { name: 'l' }, spec: { leaseDurationSeconds: '15' } }, 'Lease in version "v1" cannot be handled as a Lease: json: cannot unmarshal string into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32'],
    ];
    for (const [what, path, body, message] of cases) {
      const r = await ts.request('POST', path, body);
      assert.equal(r.status, 400, `${what}: ${r.text}`);
      if (message) assert.equal(r.json.message, message, what);
    }
    // Nothing was stored, and well-typed bodies pass.
    assert.equal((await ts.request('GET', `${cms()}/typed`)).status, 404);
    assert.equal((await ts.request('POST', cms(), { metadata: { name: 'typed', labels: { on: 'true' } }, data: { replicas: '3' } })).status, 201);
  });

  it('a protobuf body (kubectl create ns foo) creates the namespace', async () => {
    const r = await ts.request('POST', '/api/v1/namespaces', kubectlCreateNamespaceFoo, {
      headers: { 'Content-Type': protobuf, Accept: `${protobuf}, application/json` },
    });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.headers['content-type'], protobuf, 'answers in protobuf, as kube-apiserver');
    const created = decodeKubernetesProtobuf(r.raw).object as any;
    assert.equal(created.kind, 'Namespace');
    assert.equal(created.metadata.name, 'foo');
    assert.equal(created.status.phase, 'Active');
    assert.deepEqual(created.spec.finalizers, ['kubernetes']);
    const again = await ts.request('POST', '/api/v1/namespaces', kubectlCreateNamespaceFoo, { headers: { 'Content-Type': protobuf } });
    assertStatus(again, 409, 'AlreadyExists', 'namespaces "foo" already exists');
  });

  it('a protobuf DeleteOptions body is accepted', async () => {
    await createConfigMap(ts, ns, 'pb-delete');
    const r = await ts.request('DELETE', `${cms()}/pb-delete`, protobufDeleteOptionsBackground, { headers: { 'Content-Type': protobuf } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.status, 'Success');
  });

  it('garbage after the protobuf magic is 400', async () => {
    const r = await ts.request('POST', '/api/v1/namespaces', Buffer.from('6b387300ffffffff', 'hex'), { headers: { 'Content-Type': protobuf } });
    assertStatus(r, 400, 'BadRequest');
  });
});
