/**
 * Write-path answers that must match kube-apiserver 1.32 on the wire: custom-resource generation without a status
 * subresource, PUT of a missing custom resource without a resourceVersion, and built-in Secret/Lease validation.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { installCRD } from './crd-support.js';
import { createNamespace } from './support.js';

function crd(plural: string, kind: string, withStatus: boolean) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.ex.com` },
    spec: {
      group: 'ex.com',
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          ...(withStatus ? { subresources: { status: {} } } : {}),
        },
      ],
    },
  };
}

const MERGE = { headers: { 'Content-Type': 'application/merge-patch+json' } };
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

describe('upstream parity of write answers', () => {
  let ts: TestServer;
  let ns: string;
  before(async () => {
    ts = await startTestServer();
    ns = await createNamespace(ts, 'parity');
    await installCRD(ts, crd('widgets', 'Widget', false));
    await installCRD(ts, crd('gadgets', 'Gadget', true));
  });
  after(async () => {
    await ts?.stop();
  });

  const widgets = () => `/apis/ex.com/v1/namespaces/${ns}/widgets`;
  const gadgets = () => `/apis/ex.com/v1/namespaces/${ns}/gadgets`;

  it('a status change bumps generation of a custom resource without a status subresource', async () => {
    const c = await ts.request('POST', widgets(), { apiVersion: 'ex.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { a: 1 } });
    assert.equal(c.status, 201, c.text);
    assert.equal(c.json.metadata.generation, 1);
    const put = await ts.request('PUT', `${widgets()}/w1`, { ...c.json, status: { ready: true } });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.json.status, { ready: true });
    assert.equal(put.json.metadata.generation, 2);
    const patch = await ts.request('PATCH', `${widgets()}/w1`, { status: { ready: false } }, MERGE);
    assert.equal(patch.status, 200, patch.text);
    assert.equal(patch.json.metadata.generation, 3);
    // Metadata-only changes still leave it alone.
    const label = await ts.request('PATCH', `${widgets()}/w1`, { metadata: { labels: { x: 'y' } } }, MERGE);
    assert.equal(label.status, 200, label.text);
    assert.equal(label.json.metadata.generation, 3);
  });

  it('a status write leaves generation alone when the status subresource exists', async () => {
    const c = await ts.request('POST', gadgets(), { apiVersion: 'ex.com/v1', kind: 'Gadget', metadata: { name: 'g1' }, spec: { a: 1 } });
    assert.equal(c.status, 201, c.text);
    const st = await ts.request('PUT', `${gadgets()}/g1/status`, { ...c.json, status: { ready: true } });
    assert.equal(st.status, 200, st.text);
    assert.equal(st.json.metadata.generation, 1);
    const spec = await ts.request('PATCH', `${gadgets()}/g1`, { spec: { a: 2 } }, MERGE);
    assert.equal(spec.json.metadata.generation, 2);
  });

  it('PUT of a missing custom resource without a resourceVersion is NotFound', async () => {
    const r = await ts.request('PUT', `${widgets()}/nope`, { apiVersion: 'ex.com/v1', kind: 'Widget', metadata: { name: 'nope' }, spec: {} });
    assert.equal(r.status, 404, r.text);
    assert.equal(r.json.reason, 'NotFound');
    assert.equal(r.json.message, 'widgets.ex.com "nope" not found');
  });

  it('PUT of an existing custom resource without a resourceVersion names the resource and prints 0x0', async () => {
    const c = await ts.request('POST', widgets(), { apiVersion: 'ex.com/v1', kind: 'Widget', metadata: { name: 'norv' }, spec: {} });
    assert.equal(c.status, 201, c.text);
    const r = await ts.request('PUT', `${widgets()}/norv`, { apiVersion: 'ex.com/v1', kind: 'Widget', metadata: { name: 'norv' }, spec: { b: 1 } });
    assert.equal(r.status, 422, r.text);
    assert.equal(r.json.reason, 'Invalid');
    assert.equal(r.json.message, 'widgets.ex.com "norv" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update');
    assert.equal(r.json.details.kind, 'widgets');
    assert.equal(r.json.details.group, 'ex.com');
    assert.deepEqual(r.json.details.causes, [
      { reason: 'FieldValueInvalid', message: 'Invalid value: 0x0: must be specified for an update', field: 'metadata.resourceVersion' },
    ]);
  });

  it('kubectl replace of a missing custom resource reports NotFound', async () => {
    const manifest = JSON.stringify({ apiVersion: 'ex.com/v1', kind: 'Widget', metadata: { name: 'ghost', namespace: ns }, spec: {} });
    const r = await ts.kubectl(['replace', '-f', '-'], { input: manifest });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /widgets\.ex\.com "ghost" not found/);
  });

  const secrets = () => `/api/v1/namespaces/${ns}/secrets`;
  async function rejectSecret(name: string, body: Record<string, unknown>, message: string) {
    const r = await ts.request('POST', secrets(), { metadata: { name }, ...body });
    assert.equal(r.status, 422, r.text);
    assert.equal(r.json.reason, 'Invalid');
    assert.equal(r.json.message, `Secret "${name}" is invalid: ${message}`);
  }

  it('rejects a service-account-token Secret without the account name annotation', async () => {
    await rejectSecret(
      'sat',
      { type: 'kubernetes.io/service-account-token' },
      'metadata.annotations[kubernetes.io/service-account.name]: Required value',
    );
    const ok = await ts.request('POST', secrets(), {
      metadata: { name: 'sat-ok', annotations: { 'kubernetes.io/service-account.name': 'default' } },
      type: 'kubernetes.io/service-account-token',
    });
    assert.equal(ok.status, 201, ok.text);
  });

  it('rejects a basic-auth Secret with neither username nor password', async () => {
    await rejectSecret('ba', { type: 'kubernetes.io/basic-auth', data: { other: b64('x') } }, '[data[username]: Required value, data[password]: Required value]');
    const ok = await ts.request('POST', secrets(), { metadata: { name: 'ba-ok' }, type: 'kubernetes.io/basic-auth', data: { password: '' } });
    assert.equal(ok.status, 201, ok.text);
  });

  it('rejects an ssh-auth Secret without a private key', async () => {
    await rejectSecret('ssh', { type: 'kubernetes.io/ssh-auth', data: { 'ssh-privatekey': '' } }, 'data[ssh-privatekey]: Required value');
  });

  it('rejects docker config Secrets whose content is not JSON', async () => {
    await rejectSecret(
      'dcj',
      { type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('{') } },
      'data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": unexpected end of JSON input',
    );
    await rejectSecret(
      'dcfg',
      { type: 'kubernetes.io/dockercfg', data: { '.dockercfg': b64('}') } },
      `data[.dockercfg]: Invalid value: "<secret contents redacted>": invalid character '}' looking for beginning of value`,
    );
    await rejectSecret(
      'dcj-literal',
      { type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('not-json') } },
      `data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": invalid character 'o' in literal null (expecting 'u')`,
    );
    await rejectSecret(
      'dcj-array',
      { type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('[]') } },
      'data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}',
    );
    await rejectSecret(
      'dcj-pair',
      { type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('{"a":1 "b":2}') } },
      `data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": invalid character '"' after object key:value pair`,
    );
    const ok = await ts.request('POST', secrets(), {
      metadata: { name: 'dcj-ok' },
      type: 'kubernetes.io/dockerconfigjson',
      data: { '.dockerconfigjson': b64('{"auths":{}}') },
    });
    assert.equal(ok.status, 201, ok.text);
  });

  it('rejects Leases with a non-positive duration or negative transitions', async () => {
    const leases = `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`;
    const bad = await ts.request('POST', leases, { metadata: { name: 'l1' }, spec: { leaseDurationSeconds: 0, leaseTransitions: -1 } });
    assert.equal(bad.status, 422, bad.text);
    assert.equal(
      bad.json.message,
      'Lease.coordination.k8s.io "l1" is invalid: [spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0, spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0]',
    );
    const ok = await ts.request('POST', leases, { metadata: { name: 'l2' }, spec: { leaseDurationSeconds: 15, leaseTransitions: 0 } });
    assert.equal(ok.status, 201, ok.text);
    const upd = await ts.request('PUT', `${leases}/l2`, { ...ok.json, spec: { leaseDurationSeconds: -5 } });
    assert.equal(upd.status, 422, upd.text);
    assert.match(upd.json.message, /spec\.leaseDurationSeconds: Invalid value: -5: must be greater than 0/);
  });

  it('DELETE of a ServiceAccount answers with the deleted object', async () => {
    const sas = `/api/v1/namespaces/${ns}/serviceaccounts`;
    const c = await ts.request('POST', sas, { metadata: { name: 'robot' } });
    assert.equal(c.status, 201, c.text);
    const d = await ts.request('DELETE', `${sas}/robot`);
    assert.equal(d.status, 200, d.text);
    assert.equal(d.json.kind, 'ServiceAccount');
    assert.equal(d.json.apiVersion, 'v1');
    assert.equal(d.json.metadata.name, 'robot');
    assert.equal(d.json.metadata.uid, c.json.metadata.uid);
    assert.equal((await ts.request('GET', `${sas}/robot`)).status, 404);
  });

  it('DELETE of a Namespace answers with the namespace', async () => {
    const other = await createNamespace(ts, 'parity-gone');
    const d = await ts.request('DELETE', `/api/v1/namespaces/${other}`);
    assert.equal(d.status, 200, d.text);
    assert.equal(d.json.kind, 'Namespace');
    assert.equal(d.json.metadata.name, other);
  });
});
