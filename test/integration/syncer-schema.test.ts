/** Type negotiation's pure parts: lowest common denominator, enforcement, and key/namespace naming. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkAccepts, formatIncompatibility, lowestCommonDenominator } from '../../src/multicluster/schema/compat.js';
import { downstreamNamespace, syncTargetKey } from '../../src/multicluster/api/keys.js';
import { isAssigned } from '../../src/multicluster/syncer/transform.js';

const obj = (props: Record<string, unknown>) => ({ type: 'object', properties: props });

describe('lowestCommonDenominator', () => {
  const cases: { name: string; a: any; b: any; schema?: any; issues?: string[] }[] = [
    { name: 'keeps common fields only', a: obj({ x: { type: 'string' }, y: { type: 'integer' } }), b: obj({ x: { type: 'string' } }), schema: obj({ x: { type: 'string' } }) },
    { name: 'integer and number narrow to integer', a: obj({ n: { type: 'number' } }), b: obj({ n: { type: 'integer' } }), schema: obj({ n: { type: 'integer' } }) },
    { name: 'type clash reports the path', a: obj({ spec: obj({ replicas: { type: 'integer' } }) }), b: obj({ spec: obj({ replicas: { type: 'string' } }) }), issues: ['spec.replicas: type "string" is incompatible with "integer"'] },
    { name: 'array items path', a: obj({ l: { type: 'array', items: obj({ p: { type: 'integer' } }) } }), b: obj({ l: { type: 'array', items: obj({ p: { type: 'boolean' } }) } }), issues: ['l[*].p: type "boolean" is incompatible with "integer"'] },
    { name: 'enum intersection', a: obj({ e: { type: 'string', enum: ['A', 'B'] } }), b: obj({ e: { type: 'string', enum: ['B', 'C'] } }), schema: obj({ e: { type: 'string', enum: ['B'] } }) },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = lowestCommonDenominator(c.a, c.b);
      assert.deepEqual(r.incompatibilities.map(formatIncompatibility), c.issues ?? []);
      if (c.schema) assert.deepEqual(r.schema, c.schema);
    });
  }
});

describe('checkAccepts', () => {
  it('flags fields the cluster lacks and narrower types', () => {
    const enforced = obj({ data: { type: 'object', additionalProperties: { type: 'string' } }, extra: { type: 'string' }, n: { type: 'number' } });
    const cluster = obj({ data: { type: 'object', additionalProperties: { type: 'string' } }, n: { type: 'integer' } });
    assert.deepEqual(checkAccepts(enforced, cluster).map(formatIncompatibility), ['extra: field is not known to the cluster', 'n: type "integer" in the cluster does not accept "number"']);
    assert.deepEqual(checkAccepts(cluster, enforced), []);
  });
});

describe('naming and assignment', () => {
  it('derives stable keys and collision-free namespaces', () => {
    assert.equal(syncTargetKey('root', 'a'), syncTargetKey('root', 'a'));
    assert.notEqual(syncTargetKey('root', 'a'), syncTargetKey('org', 'a'));
    const l = (cluster: string) => ({ syncTarget: { cluster: 'root', name: 'a', uid: 'u' }, cluster, namespace: 'default' });
    assert.match(downstreamNamespace(l('ws1')), /^kcp-[0-9a-z]{12}$/);
    assert.notEqual(downstreamNamespace(l('ws1')), downstreamNamespace(l('ws2')));
    assert.equal(downstreamNamespace(l('ws1'), 'SameName'), 'default');
    // The cluster's own system namespaces are never a workspace's, SameName or not.
    const sys = (namespace: string) => ({ syncTarget: { cluster: 'root', name: 'a', uid: 'u' }, cluster: 'ws1', namespace });
    for (const n of ['kube-system', 'kube-public', 'kube-node-lease']) {
      assert.match(downstreamNamespace(sys(n), 'SameName'), /^kcp-[0-9a-z]{12}$/, n);
      assert.equal(downstreamNamespace(sys(n), 'SameName'), downstreamNamespace(sys(n)), n);
    }
  });
  it('object labels win over namespace labels', () => {
    const t = { name: 'a', key: 'K' };
    const ns = { metadata: { labels: { 'workload.kcp.io/cluster': 'a' } } };
    assert.equal(isAssigned({ metadata: {} }, ns, t), true);
    assert.equal(isAssigned({ metadata: { labels: { 'workload.kcp.io/cluster': 'b' } } }, ns, t), false);
    assert.equal(isAssigned({ metadata: { labels: { 'state.workload.kcp.io/K': 'Sync' } } }, undefined, t), true);
    assert.equal(isAssigned({ metadata: {} }, undefined, t), false);
  });
});
