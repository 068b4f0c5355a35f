/**
 * The syncer's skip rule for split roots and the replicated-workload predicate it shares with the splitter: a root
 * created without spec.replicas (Kubernetes defaults it to 1) must be skipped exactly like one with replicas set.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/apimachinery/object.js';
import { isAssigned } from '../../../src/multicluster/syncer/transform.js';
import { isReplicatedWorkload } from '../../../src/multicluster/splitter/replicated-workload.js';

const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
const obj = (apiVersion: string | undefined, kind: string | undefined, spec: Record<string, unknown>, labels: Record<string, string> = {}): KubeObject => ({
  ...(apiVersion ? { apiVersion } : {}),
  ...(kind ? { kind } : {}),
  metadata: { name: 'web', namespace: 'apps', labels },
  spec,
});

describe('isReplicatedWorkload', () => {
  const cases: [string, KubeObject, boolean][] = [
    ['Deployment with replicas', obj('apps/v1', 'Deployment', { replicas: 3, template }), true],
    ['Deployment without replicas (defaults to 1)', obj('apps/v1', 'Deployment', { template }), true],
    ['Deployment with replicas 0', obj('apps/v1', 'Deployment', { replicas: 0, template }), true],
    ['StatefulSet without replicas', obj('apps/v1', 'StatefulSet', { template }), true],
    ['ReplicaSet without replicas', obj('apps/v1', 'ReplicaSet', { template }), true],
    ['ReplicationController without replicas', obj('v1', 'ReplicationController', { template }), true],
    ['DaemonSet (no replicas at all)', obj('apps/v1', 'DaemonSet', { template }), false],
    ['a Deployment kind of another group', obj('example.com/v1', 'Deployment', { template }), false],
    ['Service', obj('v1', 'Service', { ports: [] }), false],
    ['custom resource with replicas', obj('example.com/v1', 'Widget', { replicas: 2 }), true],
    ['no type meta, replicas set', obj(undefined, undefined, { replicas: 2 }), true],
    ['no type meta, no replicas', obj(undefined, undefined, { template }), false],
  ];
  for (const [title, o, want] of cases) it(title, () => assert.equal(isReplicatedWorkload(o), want));
});

describe('syncer skip rule: roots with and without spec.replicas behave alike', () => {
  const target = { name: 't', key: 'k' };
  const ns = (annotations: Record<string, string>): KubeObject => ({ metadata: { name: 'apps', labels: { 'state.workload.kcp.io/k': 'Sync' }, annotations } });
  const split = ns({ 'scheduling.atrium.io/split-workloads': 'true' });
  const plain = ns({});
  const cases: [string, KubeObject, KubeObject, boolean][] = [
    ['root with replicas: 1 is skipped', obj('apps/v1', 'Deployment', { replicas: 1, template }), split, false],
    ['root without spec.replicas is skipped like replicas: 1', obj('apps/v1', 'Deployment', { template }), split, false],
    ['root without spec.replicas in an unsplit namespace syncs', obj('apps/v1', 'Deployment', { template }), plain, true],
    ['child without spec.replicas labelled to the target syncs', obj('apps/v1', 'Deployment', { template }, { 'workload.kcp.io/cluster': 't' }), split, true],
    ['child labelled to another target does not', obj('apps/v1', 'Deployment', { template }, { 'workload.kcp.io/cluster': 'u' }), split, false],
    ['a DaemonSet in a split namespace follows the namespace', obj('apps/v1', 'DaemonSet', { template }), split, true],
    ['a ConfigMap in a split namespace follows the namespace', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'apps' }, data: {} }, split, true],
  ];
  for (const [title, o, n, want] of cases) it(title, () => assert.equal(isAssigned(o, n, target), want));
});
