import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/apimachinery/object.js';
import { currentReplicaSetStatus, planRevisionHistory, revisionOf, type RevisionHistoryPlan } from '../../../src/multicluster/splitter/revision-history.js';
import { REVISION_HISTORY_LABEL, isClusterLocal } from '../../../src/multicluster/api/kind-placement.js';
import { computeTemplateHash, templateMatches } from '../../../src/registry/builtin/workloads/pod-template-hash.js';

const template = (image: string) => ({ metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image }] } });

function deployment(image: string, extra: { replicas?: number; limit?: number; annotations?: Record<string, string>; status?: Record<string, unknown>; generation?: number; paused?: boolean } = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', uid: 'uid-1', generation: extra.generation ?? 1, annotations: extra.annotations ?? {} },
    spec: {
      replicas: extra.replicas ?? 3,
      selector: { matchLabels: { app: 'web' } },
      template: template(image),
      ...(extra.limit !== undefined ? { revisionHistoryLimit: extra.limit } : {}),
      ...(extra.paused ? { paused: true } : {}),
    },
    status: extra.status ?? {},
  };
}

/** Applies a plan as the controller would: the kept objects (with their statuses) are what exists afterwards. */
function applied(plan: RevisionHistoryPlan): KubeObject[] {
  return plan.keep.map((k, i) => ({ ...k.object, metadata: { ...k.object.metadata, creationTimestamp: `2024-01-01T00:00:${String(i).padStart(2, '0')}Z` }, status: k.status ?? k.object.status }));
}

describe('revision history of a split Deployment', () => {
  it('a first template gets ReplicaSet <name>-<hash> at revision 1, shaped as kube names and labels it', () => {
    const d = deployment('nginx:1', { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}', 'kubernetes.io/change-cause': 'first', 'kcp.io/cluster': 'ws' } });
    const plan = planRevisionHistory(d, []);
    const hash = computeTemplateHash(template('nginx:1'));
    assert.equal(plan.keep.length, 1);
    const rs = plan.keep[0]!.object;
    assert.equal(plan.keep[0]!.exists, false);
    assert.equal(rs.metadata?.name, `web-${hash}`);
    assert.deepEqual(rs.metadata?.labels, { app: 'web', 'pod-template-hash': hash, [REVISION_HISTORY_LABEL]: 'true' });
    assert.deepEqual(rs.metadata?.annotations, {
      'kubernetes.io/change-cause': 'first',
      'deployment.kubernetes.io/desired-replicas': '3',
      'deployment.kubernetes.io/max-replicas': '4',
      'deployment.kubernetes.io/revision': '1',
    });
    assert.deepEqual(rs.metadata?.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'uid-1', controller: true, blockOwnerDeletion: true }]);
    const spec = rs.spec as { replicas: number; selector: unknown; template: { metadata: { labels: Record<string, string> } } };
    assert.equal(spec.replicas, 3);
    assert.deepEqual(spec.selector, { matchLabels: { app: 'web', 'pod-template-hash': hash } });
    assert.deepEqual(spec.template.metadata.labels, { app: 'web', 'pod-template-hash': hash });
    assert.ok(templateMatches(spec.template as never, template('nginx:1')));
    assert.equal(plan.revision, '1');
    assert.ok(isClusterLocal('replicasets', rs), 'never placed nor synced');
  });

  it('a new template gets a new ReplicaSet at max+1; the old one is scaled to 0 with a zero status', () => {
    let existing = applied(planRevisionHistory(deployment('nginx:1'), []));
    const plan = planRevisionHistory(deployment('nginx:2', { generation: 2 }), existing);
    assert.equal(plan.revision, '2');
    const [cur, old] = plan.keep;
    assert.equal(cur!.exists, false);
    assert.equal(cur!.object.metadata?.name, `web-${computeTemplateHash(template('nginx:2'))}`);
    assert.equal(revisionOf(cur!.object), 2);
    assert.equal(old!.object.metadata?.name, existing[0]!.metadata?.name);
    assert.equal((old!.object.spec as { replicas: number }).replicas, 0);
    assert.equal(revisionOf(old!.object), 1);
    assert.deepEqual(old!.status, { replicas: 0, fullyLabeledReplicas: 0, readyReplicas: 0, availableReplicas: 0 });
    existing = applied(plan);
    // Nothing changes on a second pass with the same state (but for the unknown status: kept).
    const again = planRevisionHistory(deployment('nginx:2', { generation: 2 }), existing);
    assert.equal(again.revision, '2');
    assert.ok(again.keep.every((k) => k.exists));
    assert.deepEqual(again.delete, []);
  });

  it('going back to an old template reuses its ReplicaSet, which gets max+1', () => {
    let existing = applied(planRevisionHistory(deployment('nginx:1'), []));
    existing = applied(planRevisionHistory(deployment('nginx:2'), existing));
    const first = existing.find((rs) => revisionOf(rs) === 1)!;
    const plan = planRevisionHistory(deployment('nginx:1'), existing);
    assert.equal(plan.revision, '3');
    const cur = plan.keep[0]!;
    assert.equal(cur.exists, true);
    assert.equal(cur.object.metadata?.name, first.metadata?.name);
    assert.equal(revisionOf(cur.object), 3);
    assert.equal((cur.object.spec as { replicas: number }).replicas, 3);
    existing = applied(plan);
    assert.deepEqual(existing.map(revisionOf).sort(), [2, 3]);
    assert.equal(existing.length, 2);
  });

  it('kubectl rollout undo patches the template back with metadata.creationTimestamp: null: still the same template', () => {
    const existing = applied(planRevisionHistory(deployment('nginx:1'), []));
    const d = deployment('nginx:1');
    (d.spec as { template: { metadata: Record<string, unknown> } }).template.metadata.creationTimestamp = null;
    const plan = planRevisionHistory(d, existing);
    assert.equal(plan.keep.length, 1);
    assert.equal(plan.keep[0]!.exists, true);
    assert.equal(computeTemplateHash((d.spec as { template: never }).template), computeTemplateHash(template('nginx:1')));
  });

  it('revisionHistoryLimit: the lowest revisions beyond it are deleted', () => {
    let existing: KubeObject[] = [];
    for (const v of [1, 2, 3, 4, 5]) {
      const plan = planRevisionHistory(deployment(`nginx:${v}`, { limit: 2 }), existing);
      existing = applied(plan);
      assert.ok(existing.length <= 3);
    }
    assert.deepEqual(existing.map(revisionOf).sort(), [3, 4, 5]);
    const plan = planRevisionHistory(deployment('nginx:6', { limit: 0 }), existing);
    assert.deepEqual(plan.delete.sort(), existing.map((r) => r.metadata!.name!).sort());
    assert.equal(plan.keep.length, 1);
    assert.equal(plan.revision, '6');
  });

  it('a name taken by a ReplicaSet it does not control is tried with the next collision count', () => {
    const taken = `web-${computeTemplateHash(template('nginx:1'))}`;
    const plan = planRevisionHistory(deployment('nginx:1'), [], (n) => n === taken);
    assert.equal(plan.keep[0]!.object.metadata?.name, `web-${computeTemplateHash(template('nginx:1'), 1)}`);
  });

  it('status: from the aggregated status once observed, pods of older templates not counted as ready', () => {
    assert.equal(currentReplicaSetStatus(deployment('x', { generation: 2, status: { observedGeneration: 1, replicas: 3, updatedReplicas: 3, readyReplicas: 3 } })), undefined);
    assert.deepEqual(currentReplicaSetStatus(deployment('x', { generation: 2, status: { observedGeneration: 2, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3 } })), { replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 3, availableReplicas: 3 });
    // Mid-rollout: 4 pods, 2 of the new template, 3 ready: at least 1 new one is ready.
    assert.deepEqual(currentReplicaSetStatus(deployment('x', { generation: 2, status: { observedGeneration: 2, replicas: 4, updatedReplicas: 2, readyReplicas: 3, availableReplicas: 2 } })), { replicas: 2, fullyLabeledReplicas: 2, readyReplicas: 1, availableReplicas: 0 });
    // A new ReplicaSet before the clusters observed its template: zero; an existing one keeps what it had.
    const plan = planRevisionHistory(deployment('x', { generation: 2, status: { observedGeneration: 1 } }), []);
    assert.deepEqual(plan.keep[0]!.status, { replicas: 0, fullyLabeledReplicas: 0, readyReplicas: 0, availableReplicas: 0 });
  });

  it('paused: no new ReplicaSet and no revision bump; the last revision stays as it is', () => {
    const existing = applied(planRevisionHistory(deployment('nginx:1'), []));
    const plan = planRevisionHistory(deployment('nginx:2', { paused: true }), existing);
    assert.equal(plan.revision, undefined);
    assert.equal(plan.keep.length, 1);
    assert.equal(plan.keep[0]!.object.metadata?.name, existing[0]!.metadata?.name);
    assert.equal((plan.keep[0]!.object.spec as { replicas: number }).replicas, 3);
  });
});
