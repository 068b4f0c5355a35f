/**
 * A status a controller computes is compared with the stored object the way its Go counterpart compares (goEqual):
 * the store keeps built-in objects in Go's round-trip form, which leaves zero counts out and writes an unset
 * metav1.Time as null, so comparing JSON as computed wrote a split Deployment's status again on every pass.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { deepCopy, goEqual, jsonEqual, type KubeObject } from '../../../src/apimachinery/object.js';
import { aggregateDeploymentStatus } from '../../../src/multicluster/decisions/aggregate-status.js';
import { builtinCodec } from '../../../src/registry/builtin/builtin-codec.js';

const at = '2026-11-28T10:00:00Z';
const ready = {
  observedGeneration: 1,
  replicas: 2,
  updatedReplicas: 2,
  readyReplicas: 2,
  availableReplicas: 2,
  conditions: [
    { type: 'Available', status: 'True' as const, reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.', lastTransitionTime: at, lastUpdateTime: at },
    { type: 'Progressing', status: 'True' as const, reason: 'NewReplicaSetAvailable', message: 'ReplicaSet "web-1" has successfully progressed.', lastTransitionTime: at, lastUpdateTime: at },
  ],
};

/** What the store keeps of a Deployment carrying `status`: the typed round trip of apps/v1 Deployment. */
function stored(status: unknown): unknown {
  const codec = builtinCodec('io.k8s.api.apps.v1.Deployment', {}, undefined, true);
  const obj = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } }, status: deepCopy(status) } as KubeObject;
  codec.roundTrip!(obj);
  return obj.status;
}

describe('a computed status against what the store keeps of it', () => {
  it('a ready split Deployment: the stored status differs as JSON (zero count left out, null lastUpdateTime) and is goEqual', () => {
    const status = aggregateDeploymentStatus({ generation: 1, replicas: 2, minAvailable: 2, clusters: [{ target: 'a', syncedGeneration: 1, generation: 1, status: ready }] });
    assert.equal(status.unavailableReplicas, 0);
    const kept = stored(status);
    assert.equal(jsonEqual(kept, status), false, 'the round trip changes the computed status (else this test shows nothing)');
    assert.equal((kept as { unavailableReplicas?: number }).unavailableReplicas, undefined);
    assert.ok(goEqual(kept, status));
    assert.ok(goEqual(status, kept));
  });

  it('goEqual still sees every real difference', () => {
    const base = stored(ready) as Record<string, unknown>;
    assert.equal(goEqual(base, { ...ready, readyReplicas: 1 }), false);
    assert.equal(goEqual(base, { ...ready, unavailableReplicas: 1 }), false, 'a non-zero value against an absent one');
    assert.equal(goEqual({ ...ready, unavailableReplicas: 1 }, base), false);
    assert.equal(goEqual(base, { ...ready, conditions: ready.conditions.slice(0, 1) }), false);
    assert.equal(goEqual(base, { ...ready, conditions: [{ ...ready.conditions[0]!, status: 'False' }, ready.conditions[1]] }), false);
    assert.equal(goEqual({ a: [] }, { a: [0] }), false);
    assert.equal(goEqual({ a: '0' }, { a: 0 }), false);
    assert.ok(goEqual({ a: [], b: {}, c: '', d: false, e: null, f: { g: 0 } }, {}));
  });
});
