/**
 * The pure decisions of the syncer's mirrors (src/multicluster/decisions/mirror-objects.ts) and who may write them
 * (src/multicluster/api/mirror-admission.ts maySyncMirror).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { claimMirror, EVENT_TTL_MS, eventExpiresAtMs, eventMirror, isSyncedCopy, jobMirror, mirrorChanges, mirrorPodName, podMirror, replicaSetMirror, rewriteNamespace, splitReplicaSetName, type MirrorCluster } from '../../../src/multicluster/decisions/mirror-objects.js';
import { MIRROR_CLUSTER_LABEL, MIRROR_HASH_ANNOTATION, MIRROR_LABEL, MIRROR_SOURCE_UID_ANNOTATION, MIRROR_SYNC_TARGET_CLUSTER_ANNOTATION, mirrorSourceOf } from '../../../src/multicluster/api/mirrors.js';
import { maySyncMirror } from '../../../src/multicluster/api/mirror-admission.js';
import type { KubeObject } from '../../../src/apimachinery/object.js';

const cluster: MirrorCluster = { name: 'pc1', key: 'k1' };
const owner = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-abc', uid: 'up-rs' };
const pod = (name: string, controller?: { kind: string; name: string }, extra: Partial<KubeObject> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name,
    namespace: 'kcp-x',
    uid: `uid-${name}`,
    labels: { app: 'web', 'internal.workload.kcp.io/cluster': 'k1', 'state.workload.kcp.io/k1': 'Sync', 'workload.kcp.io/cluster': 'pc1' },
    ownerReferences: controller ? [{ apiVersion: 'apps/v1', ...controller, uid: 'down-owner', controller: true }] : [],
    generateName: 'x-',
    finalizers: ['f'],
  },
  spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'nginx' }] },
  status: { phase: 'Running', podIP: '10.0.0.1' },
  ...extra,
});

describe('mirror names', () => {
  it('keeps names already unique to the cluster, and puts the cluster after a DaemonSet\'s name', () => {
    assert.equal(mirrorPodName(pod('web--pc1-abc-x1'), 'pc1'), 'web--pc1-abc-x1');
    assert.equal(mirrorPodName(pod('db-0', { kind: 'StatefulSet', name: 'db' }), 'pc1'), 'db-0');
    assert.equal(mirrorPodName(pod('once-q2w3e', { kind: 'Job', name: 'once' }), 'pc1'), 'once-q2w3e');
    assert.equal(mirrorPodName(pod('agent-7xk2p', { kind: 'DaemonSet', name: 'agent' }), 'pc1'), 'agent--pc1-7xk2p');
    // A DaemonSet pod named otherwise (by hand) keeps its name.
    assert.equal(mirrorPodName(pod('other', { kind: 'DaemonSet', name: 'agent' }), 'pc1'), 'other');
  });

  it('splits a Deployment\'s ReplicaSet name into the Deployment and the hash', () => {
    assert.deepEqual(splitReplicaSetName('web--pc1-7b99b6d6d4'), { deployment: 'web--pc1', hash: '7b99b6d6d4' });
    assert.equal(splitReplicaSetName('plain'), undefined);
    assert.equal(splitReplicaSetName('trailing-'), undefined);
  });
});

describe('pod mirrors', () => {
  it('carry spec and status as downstream, the node as <cluster>--<node>, the mirror labels and annotations, the upstream owner', () => {
    const m = podMirror(pod('web--pc1-abc-x1', { kind: 'ReplicaSet', name: 'web--pc1-abc' }), 'shop', owner, cluster);
    assert.equal(m.metadata?.namespace, 'shop');
    assert.equal((m.spec as { nodeName: string }).nodeName, 'pc1--node-1');
    assert.deepEqual(m.status, { phase: 'Running', podIP: '10.0.0.1' });
    assert.deepEqual(m.metadata?.labels, { app: 'web', [MIRROR_LABEL]: 'true', [MIRROR_CLUSTER_LABEL]: 'pc1' });
    assert.deepEqual(m.metadata?.ownerReferences, [{ ...owner, controller: true, blockOwnerDeletion: true }]);
    assert.equal(m.metadata?.finalizers, undefined);
    assert.equal(m.metadata?.generateName, undefined);
    assert.equal(m.metadata?.annotations?.[MIRROR_SOURCE_UID_ANNOTATION], 'uid-web--pc1-abc-x1');
    assert.deepEqual(mirrorSourceOf(m), { syncTargetName: 'pc1', syncTargetKey: 'k1', namespace: 'kcp-x', name: 'web--pc1-abc-x1' });
  });

  it('name the SyncTarget\'s workspace when it is not the mirror\'s own', () => {
    const m = podMirror(pod('db-0', { kind: 'StatefulSet', name: 'db' }), 'shop', owner, { ...cluster, syncTargetCluster: 'infra' });
    assert.equal(m.metadata?.annotations?.[MIRROR_SYNC_TARGET_CLUSTER_ANNOTATION], 'infra');
    assert.equal(mirrorSourceOf(m)?.syncTargetCluster, 'infra');
  });

  it('of a synced Job\'s pods carry the controller-uid its upstream selector requires, and only the labels the pod has', () => {
    const p = pod('once-q2w3e', { kind: 'Job', name: 'once' });
    p.metadata!.labels = { ...p.metadata!.labels, 'batch.kubernetes.io/controller-uid': 'down-job', 'controller-uid': 'down-job', 'batch.kubernetes.io/job-name': 'once', 'job-name': 'once' };
    const job = { apiVersion: 'batch/v1', kind: 'Job', name: 'once', uid: 'up-job', podSelectorLabels: { 'batch.kubernetes.io/controller-uid': 'up-job', 'controller-uid': 'up-job', absent: 'x' } };
    const m = podMirror(p, 'shop', job, cluster);
    assert.deepEqual(m.metadata?.labels, { app: 'web', 'batch.kubernetes.io/controller-uid': 'up-job', 'controller-uid': 'up-job', 'batch.kubernetes.io/job-name': 'once', 'job-name': 'once', [MIRROR_LABEL]: 'true', [MIRROR_CLUSTER_LABEL]: 'pc1' });
    assert.deepEqual(m.metadata?.ownerReferences, [{ apiVersion: 'batch/v1', kind: 'Job', name: 'once', uid: 'up-job', controller: true, blockOwnerDeletion: true }], 'no selector labels in the ownerReference');
  });

  it('leave an unscheduled pod\'s node empty', () => {
    const p = pod('db-0', { kind: 'StatefulSet', name: 'db' });
    delete (p.spec as { nodeName?: string }).nodeName;
    assert.equal((podMirror(p, 'shop', owner, cluster).spec as { nodeName?: string }).nodeName, undefined);
  });

  it('change only when the original did: status churn is a status change, not a content change', () => {
    const p = pod('db-0', { kind: 'StatefulSet', name: 'db' });
    const first = podMirror(p, 'shop', owner, cluster);
    const same = podMirror(p, 'shop', owner, cluster);
    assert.deepEqual(mirrorChanges(first, same), { content: false, status: false });
    const ready = podMirror({ ...p, status: { phase: 'Running', podIP: '10.0.0.2' } }, 'shop', owner, cluster);
    assert.deepEqual(mirrorChanges(first, ready), { content: false, status: true });
    const relabelled = podMirror({ ...p, metadata: { ...p.metadata, labels: { app: 'db', extra: 'x' } } }, 'shop', owner, cluster);
    assert.deepEqual(mirrorChanges(first, relabelled).content, true);
    assert.notEqual(first.metadata?.annotations?.[MIRROR_HASH_ANNOTATION], relabelled.metadata?.annotations?.[MIRROR_HASH_ANNOTATION]);
  });

  it('are not made of the syncer\'s own copies', () => {
    assert.equal(isSyncedCopy(pod('bare')), false);
    const copy = pod('bare');
    copy.metadata!.annotations = { 'internal.workload.kcp.io/spec-hash': 'h' };
    assert.equal(isSyncedCopy(copy), true);
  });
});

describe('Job mirrors', () => {
  it('keep the cluster\'s selector and labels, with manualSelector so upstream takes them', () => {
    const job: KubeObject = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'tick-1', namespace: 'kcp-x', uid: 'j1' }, spec: { selector: { matchLabels: { 'controller-uid': 'j1' } }, template: { metadata: { labels: { 'controller-uid': 'j1' } } } }, status: { active: 1 } };
    const m = jobMirror(job, 'shop', { apiVersion: 'batch/v1', kind: 'CronJob', name: 'tick', uid: 'cj' }, cluster);
    assert.equal((m.spec as { manualSelector: boolean }).manualSelector, true);
    assert.deepEqual((m.spec as { selector: unknown }).selector, { matchLabels: { 'controller-uid': 'j1' } });
    assert.deepEqual(m.status, { active: 1 });
    assert.equal(m.metadata?.name, 'tick-1');
  });
});

describe('Event mirrors', () => {
  const event = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'db-0.17f', namespace: 'kcp-x', uid: 'e1' },
    involvedObject: { kind: 'Pod', apiVersion: 'v1', name: 'db-0', namespace: 'kcp-x', uid: 'down-pod', fieldPath: 'spec.containers{c}' },
    reason: 'Scheduled',
    message: 'Successfully assigned kcp-x/db-0 to node-1',
    type: 'Normal',
    source: { component: 'default-scheduler' },
    count: 3,
    firstTimestamp: '2025-01-01T00:00:00Z',
    lastTimestamp: '2025-01-01T00:01:00Z',
    reportingInstance: '',
  } as KubeObject;

  it('are about the upstream object, name the cluster, and keep count and times', () => {
    const m = eventMirror(event, 'shop', { apiVersion: 'v1', kind: 'Pod', name: 'db-0', uid: 'up-pod' }, cluster) as KubeObject & Record<string, unknown>;
    assert.equal(m.metadata?.name, 'db-0.17f.pc1');
    assert.deepEqual(m.involvedObject, { kind: 'Pod', apiVersion: 'v1', name: 'db-0', namespace: 'shop', uid: 'up-pod', fieldPath: 'spec.containers{c}' });
    assert.equal(m.message, '[pc1] Successfully assigned shop/db-0 to node-1');
    assert.deepEqual(m.source, { component: 'default-scheduler', host: 'pc1' });
    assert.equal(m.count, 3);
    assert.equal(m.lastTimestamp, '2025-01-01T00:01:00Z');
    assert.equal(m.metadata?.labels?.[MIRROR_CLUSTER_LABEL], 'pc1');
    const again = eventMirror({ ...event, count: 4 } as KubeObject, 'shop', { apiVersion: 'v1', kind: 'Pod', name: 'db-0', uid: 'up-pod' }, cluster);
    assert.equal(mirrorChanges(m, again).content, true, 'a repeat (count) rewrites the mirror');
  });
});

describe('who writes mirrors', () => {
  const mirror = podMirror(pod('db-0', { kind: 'StatefulSet', name: 'db' }), 'shop', owner, cluster);
  const tokenOf = (cluster: string) => ({ 'authentication.kubernetes.io/cluster-name': [cluster] });
  it('system:masters (push and none mode) and the pull-mode syncer of the mirror\'s cluster, a ServiceAccount of this workspace', () => {
    assert.equal(maySyncMirror({ username: 'admin', groups: ['system:masters'] }, mirror, 'ws'), true);
    assert.equal(maySyncMirror({ username: 'system:serviceaccount:default:atrium-syncer-pc1-ab12cd34', groups: [], extra: tokenOf('ws') }, mirror, 'ws'), true);
  });
  it('not another cluster\'s syncer, one of the same name in another workspace, a look-alike user or anyone else', () => {
    assert.equal(maySyncMirror({ username: 'system:serviceaccount:default:atrium-syncer-pc2-ab12cd34', groups: [], extra: tokenOf('ws') }, mirror, 'ws'), false);
    assert.equal(maySyncMirror({ username: 'system:serviceaccount:default:atrium-syncer-pc1-ab12cd34', groups: [], extra: tokenOf('elsewhere') }, mirror, 'ws'), false);
    assert.equal(maySyncMirror({ username: 'system:serviceaccount:default:atrium-syncer-pc1-ab12cd34', groups: [] }, mirror, 'ws'), false);
    assert.equal(maySyncMirror({ username: 'atrium-syncer-pc1-ab12cd34', groups: [] }, mirror, 'ws'), false);
    assert.equal(maySyncMirror({ username: 'alice', groups: ['system:authenticated'] }, mirror, 'ws'), false);
  });
});

describe('mirrors of a whole Deployment\'s ReplicaSets, of a StatefulSet\'s claims, and event lifetimes', () => {
  const deploy = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'solo', uid: 'up-solo' };
  const rs: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: 'solo-7c9f', namespace: 'kcp-x', uid: 'down-rs', labels: { app: 'solo', 'pod-template-hash': '7c9f' }, annotations: { 'deployment.kubernetes.io/revision': '2' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'solo', uid: 'down-solo', controller: true }] },
    spec: { replicas: 2, selector: { matchLabels: { app: 'solo', 'pod-template-hash': '7c9f' } }, template: { metadata: { labels: { app: 'solo', 'pod-template-hash': '7c9f' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    status: { replicas: 2, readyReplicas: 2 },
  };

  it('a ReplicaSet mirror keeps name, spec, status and the revision annotation, owned by the upstream Deployment', () => {
    const m = replicaSetMirror(rs, 'shop', deploy, cluster);
    assert.equal(m.metadata?.name, 'solo-7c9f');
    assert.equal(m.metadata?.namespace, 'shop');
    assert.deepEqual(m.metadata?.ownerReferences, [{ ...deploy, controller: true, blockOwnerDeletion: true }]);
    assert.equal(m.metadata?.annotations?.['deployment.kubernetes.io/revision'], '2');
    assert.equal(m.metadata?.labels?.[MIRROR_LABEL], 'true');
    assert.equal(m.metadata?.labels?.[MIRROR_CLUSTER_LABEL], 'pc1');
    assert.deepEqual(m.spec, rs.spec);
    assert.deepEqual(m.status, rs.status);
    assert.equal(mirrorSourceOf(m)?.name, 'solo-7c9f');
    // A scale on the cluster is a content change (spec), a readiness change a status one only.
    const scaled = replicaSetMirror({ ...rs, spec: { ...(rs.spec as object), replicas: 3 } }, 'shop', deploy, cluster);
    assert.deepEqual(mirrorChanges(m, scaled), { content: true, status: false });
    const unready = replicaSetMirror({ ...rs, status: { replicas: 2, readyReplicas: 1 } }, 'shop', deploy, cluster);
    assert.deepEqual(mirrorChanges(m, unready), { content: false, status: true });
  });

  it('a claim mirror keeps spec and status; its owners are the cluster\'s, resolved, with their flags', () => {
    const pvc: KubeObject = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data-db-0', namespace: 'kcp-x', uid: 'down-pvc', labels: { app: 'db' }, finalizers: ['kubernetes.io/pvc-protection'] },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeName: 'pvc-down-pvc', storageClassName: 'standard' },
      status: { phase: 'Bound', capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'] },
    };
    const m = claimMirror(pvc, 'shop', [], cluster);
    assert.equal(m.metadata?.ownerReferences, undefined, 'no owner without a retention policy (kube 1.32)');
    assert.equal(m.metadata?.finalizers, undefined, 'no finalizers: nothing upstream would remove them');
    assert.deepEqual(m.status, pvc.status);
    assert.equal((m.spec as { volumeName?: string }).volumeName, 'pvc-down-pvc');
    assert.equal(m.metadata?.annotations?.[MIRROR_SOURCE_UID_ANNOTATION], 'down-pvc');
    const sts = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', uid: 'up-db' };
    const owned = claimMirror(pvc, 'shop', [{ ref: sts, controller: true, blockOwnerDeletion: true }], cluster);
    assert.deepEqual(owned.metadata?.ownerReferences, [{ ...sts, controller: true, blockOwnerDeletion: true }]);
    const plain = claimMirror(pvc, 'shop', [{ ref: sts }], cluster);
    assert.deepEqual(plain.metadata?.ownerReferences, [sts], 'flags only as the cluster set them');
  });

  it('rewriteNamespace replaces the cluster\'s namespace as a whole name only', () => {
    assert.equal(rewriteNamespace('Successfully assigned kcp-x1/db-0 to pc1-node-1', 'kcp-x1', 'shop'), 'Successfully assigned shop/db-0 to pc1-node-1');
    assert.equal(rewriteNamespace('Back-off restarting failed container c in pod db-0_kcp-x1(u-1)', 'kcp-x1', 'shop'), 'Back-off restarting failed container c in pod db-0_shop(u-1)');
    assert.equal(rewriteNamespace('claim "kcp-x1/data" and kcp-x12/other', 'kcp-x1', 'shop'), 'claim "shop/data" and kcp-x12/other');
    assert.equal(rewriteNamespace('nothing here', 'kcp-x1', 'shop'), 'nothing here');
    assert.equal(rewriteNamespace('a.b kcp.x', 'kcp.x', 'shop'), 'a.b shop', 'regex characters are literal');
  });

  it('a mirrored event names the workspace\'s namespace in its message and fieldPath', () => {
    const e: KubeObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'db-0.17f', namespace: 'kcp-x' },
      involvedObject: { apiVersion: 'v1', kind: 'Pod', name: 'db-0', namespace: 'kcp-x', uid: 'down', fieldPath: 'spec.containers{c}' },
      reason: 'Scheduled',
      message: 'Successfully assigned kcp-x/db-0 to pc1-node-1',
      source: { component: 'default-scheduler' },
      count: 1,
    } as KubeObject;
    const m = eventMirror(e, 'shop', { apiVersion: 'v1', kind: 'Pod', name: 'db-0', uid: 'up' }, cluster) as KubeObject & { message: string; involvedObject: { fieldPath?: string } };
    assert.equal(m.message, '[pc1] Successfully assigned shop/db-0 to pc1-node-1');
    assert.equal(m.involvedObject.fieldPath, 'spec.containers{c}');
  });

  it('an event expires an hour after it was last seen (series, lastTimestamp, eventTime, firstTimestamp, creation)', () => {
    const t = (iso: string) => Date.parse(iso);
    const base = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e', creationTimestamp: '2025-01-01T00:00:00Z' } };
    assert.equal(EVENT_TTL_MS, 3_600_000);
    assert.equal(eventExpiresAtMs(base), t('2025-01-01T01:00:00Z'));
    assert.equal(eventExpiresAtMs({ ...base, firstTimestamp: '2025-01-01T00:10:00Z', lastTimestamp: '2025-01-01T00:30:00Z' } as KubeObject), t('2025-01-01T01:30:00Z'), 'a repeat extends its life');
    assert.equal(eventExpiresAtMs({ ...base, eventTime: '2025-01-01T00:05:00.000000Z', series: { count: 3, lastObservedTime: '2025-01-01T00:40:00.000000Z' } } as KubeObject), t('2025-01-01T01:40:00Z'));
    assert.equal(eventExpiresAtMs({ ...base, lastTimestamp: '2025-01-01T00:30:00Z' } as KubeObject, 60_000), t('2025-01-01T00:31:00Z'));
    assert.equal(eventExpiresAtMs({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' } }), undefined);
  });
});
