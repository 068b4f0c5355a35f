/**
 * Bad ownerReferences get kube-apiserver's exact 422 Status (apimachinery ValidateOwnerReferences: errors name the
 * list path without an index), on create, update and patch alike; what upstream accepts (any non-empty uid, an owner
 * in another namespace, an owner that does not exist) is accepted here too.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { createNamespace } from './support.js';

/**
 * kube-apiserver's 422: every cause listed, the message naming each distinct one once (field.ErrorList.ToAggregate
 * drops repeated messages; bracketed only when more than one remains).
 */
const invalidStatus = (kind: string, name: string, causes: [field: string, body: string][], group = '') => {
  const distinct = [...new Set(causes.map(([f, b]) => `${f}: ${b}`))];
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `${group ? `${kind}.${group}` : kind} "${name}" is invalid: ${distinct.length === 1 ? distinct[0] : `[${distinct.join(', ')}]`}`,
    reason: 'Invalid',
    code: 422,
    details: { name, ...(group ? { group } : {}), kind, causes: causes.map(([field, message]) => ({ reason: 'FieldValueInvalid', message, field })) },
  };
};

const cases: { name: string; refs: Record<string, unknown>[]; causes: [string, string][] }[] = [
  {
    name: 'empty uid',
    refs: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: '' }],
    causes: [['metadata.ownerReferences.uid', 'Invalid value: "": uid must not be empty']],
  },
  {
    name: 'missing uid and apiVersion',
    refs: [{ kind: 'ConfigMap', name: 'owner' }],
    causes: [
      ['metadata.ownerReferences.apiVersion', 'Invalid value: "": version must not be empty'],
      ['metadata.ownerReferences.uid', 'Invalid value: "": uid must not be empty'],
    ],
  },
  {
    name: 'malformed apiVersion, empty kind and name',
    refs: [{ apiVersion: 'a/b/c', kind: '', name: '', uid: 'u-1' }],
    causes: [
      ['metadata.ownerReferences.apiVersion', 'Invalid value: "a/b/c": version must not be empty'],
      ['metadata.ownerReferences.kind', 'Invalid value: "": kind must not be empty'],
      ['metadata.ownerReferences.name', 'Invalid value: "": name must not be empty'],
    ],
  },
  {
    name: 'group without version',
    refs: [{ apiVersion: 'apps/', kind: 'Deployment', name: 'd', uid: 'u-2' }],
    causes: [['metadata.ownerReferences.apiVersion', 'Invalid value: "apps/": version must not be empty']],
  },
  {
    name: 'errors of two references are all reported, in order',
    refs: [
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'a', uid: '' },
      { apiVersion: 'v1', kind: 'ConfigMap', name: '', uid: 'u-3' },
    ],
    causes: [
      ['metadata.ownerReferences.uid', 'Invalid value: "": uid must not be empty'],
      ['metadata.ownerReferences.name', 'Invalid value: "": name must not be empty'],
    ],
  },
];

describe('ownerReferences validation', () => {
  let ts: TestServer;
  let ns: string;
  before(async () => {
    ts = await startTestServer();
    ns = await createNamespace(ts, 'ownerrefs');
  });
  after(async () => {
    await ts?.stop();
  });

  for (const c of cases) {
    it(`create: ${c.name}`, async () => {
      const r = await ts.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'bad', ownerReferences: c.refs } });
      assert.equal(r.status, 422, r.text);
      assert.deepEqual(r.json, invalidStatus('ConfigMap', 'bad', c.causes));
    });
  }

  // Upstream's update checks the new metadata four times: rest.BeforeUpdate (ValidateObjectMetaAccessor and
  // ...AccessorUpdate), then ConfigMap's ValidateUpdate (ValidateObjectMetaUpdate, then ValidateConfigMap), so the
  // cause is listed four times while the message names it once (test/differential checks this against kube-apiserver).
  it('update and merge patch are validated the same way', async () => {
    const created = await ts.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'target' } });
    assert.equal(created.status, 201, created.text);
    const refs = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: '' }];
    const cause: [string, string] = ['metadata.ownerReferences.uid', 'Invalid value: "": uid must not be empty'];
    const expected = invalidStatus('ConfigMap', 'target', [cause, cause, cause, cause]);
    const put = await ts.request('PUT', `/api/v1/namespaces/${ns}/configmaps/target`, { ...created.json, metadata: { ...created.json.metadata, ownerReferences: refs } });
    assert.equal(put.status, 422, put.text);
    assert.deepEqual(put.json, expected);
    const patch = await ts.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/target`, JSON.stringify({ metadata: { ownerReferences: refs } }), {
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    assert.equal(patch.status, 422, patch.text);
    assert.deepEqual(patch.json, expected);
  });

  it('cluster-scoped objects get the same Status, named by their group-qualified kind', async () => {
    const r = await ts.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: 'bad-owner-ref', ownerReferences: [{ apiVersion: 'v1', kind: 'Namespace', name: 'n', uid: '' }] }, rules: [] });
    assert.equal(r.status, 422, r.text);
    assert.deepEqual(r.json, invalidStatus('ClusterRole', 'bad-owner-ref', [['metadata.ownerReferences.uid', 'Invalid value: "": uid must not be empty']], 'rbac.authorization.k8s.io'));
  });

  const accepted: { name: string; ref: Record<string, unknown> }[] = [
    // Upstream checks only that a uid is present, not its form.
    { name: 'a uid that is not a UUID', ref: { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'not-a-uuid' } },
    // Owners are not looked up on write: a missing owner is the garbage collector's business.
    { name: 'an owner that does not exist', ref: { apiVersion: 'example.com/v1', kind: 'Widget', name: 'ghost', uid: '0b6f0f7e-0000-4000-8000-000000000000' } },
  ];
  for (const c of accepted) {
    it(`accepts ${c.name}`, async () => {
      const name = `ok-${accepted.indexOf(c)}`;
      const r = await ts.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name, ownerReferences: [c.ref] } });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(r.json.metadata.ownerReferences, [c.ref]);
    });
  }

  it('accepts an owner in another namespace (the API does not check; the garbage collector treats it as absent)', async () => {
    const other = await createNamespace(ts, 'ownerrefs-other');
    const owner = await ts.request('POST', `/api/v1/namespaces/${other}/configmaps`, { metadata: { name: 'owner' } });
    assert.equal(owner.status, 201, owner.text);
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.json.metadata.uid };
    const r = await ts.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'cross-ns', ownerReferences: [ref] } });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json.metadata.ownerReferences, [ref]);
  });
});
