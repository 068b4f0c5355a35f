import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/apimachinery/object.js';
import { claimsOf, decideMove, MOVE_POLICY_ANNOTATION, MOVING_ANNOTATION } from '../../../src/multicluster/decisions/move-policy.js';
import { placeNamespace, type PlaceNamespaceInput, type PlacedObject } from '../../../src/multicluster/decisions/place-namespace.js';
import { kindPlacementOf } from '../../../src/multicluster/api/kind-placement.js';
import type { Acceptance } from '../../../src/multicluster/decisions/choose-cluster.js';

const tpl = (spec: Record<string, unknown> = {}) => ({ metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'x' }], ...spec } });
const sts = (policy?: string, claims = true): KubeObject => ({
  metadata: { name: 'db', uid: 'uid-db', labels: { 'state.workload.kcp.io/ka': 'Sync' }, ...(policy ? { annotations: { [MOVE_POLICY_ANNOTATION]: policy } } : {}) },
  spec: { replicas: 2, template: tpl(), ...(claims ? { volumeClaimTemplates: [{ metadata: { name: 'data' } }] } : {}) },
});
const job = (status?: unknown, policy?: string): KubeObject => ({
  metadata: { name: 'j', uid: 'uid-j', labels: { 'state.workload.kcp.io/ka': 'Sync' }, ...(policy ? { annotations: { [MOVE_POLICY_ANNOTATION]: policy } } : {}) },
  spec: { template: tpl() },
  ...(status ? { status } : {}),
});
const complete = { conditions: [{ type: 'Complete', status: 'True' }] };

describe('decideMove: what may leave a cluster that left the namespace', () => {
  it('claims: the per-replica claims of volumeClaimTemplates and the mounted claims', () => {
    assert.deepEqual(claimsOf('StatefulSet', sts()), ['data-db-0', 'data-db-1']);
    assert.deepEqual(claimsOf('Pod', { metadata: { name: 'p' }, spec: { containers: [], volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'c1' } }] } }), ['c1']);
    assert.deepEqual(claimsOf('StatefulSet', sts(undefined, false)), []);
  });

  it('a StatefulSet with claims is refused by default while its cluster is alive, with the annotation named', () => {
    const v = decideMove({ kind: 'StatefulSet', obj: sts(), from: { name: 'a', state: 'Alive' }, to: 'b' });
    assert.equal(v.place, 'from');
    assert.equal(v.condition?.status, 'False');
    assert.equal(v.condition?.reason, 'DataWouldBeLost');
    assert.match(v.condition!.message, /"a".*"b".*data-db-0, data-db-1.*new, empty claims.*scheduling\.atrium\.io\/move-policy=AllowDataLoss/);
  });

  it('AllowDataLoss moves it and says the new claims are empty', () => {
    const v = decideMove({ kind: 'StatefulSet', obj: sts('AllowDataLoss'), from: { name: 'a', state: 'Alive' }, to: 'b' });
    assert.equal(v.place, 'to');
    assert.equal(v.condition?.reason, 'MovedWithoutData');
    assert.match(v.condition!.message, /on "b" start new and empty/);
  });

  it('allowed but nowhere to go: it stays (never break before make); a deleted cluster: nowhere', () => {
    assert.equal(decideMove({ kind: 'StatefulSet', obj: sts('AllowDataLoss'), from: { name: 'a', state: 'Alive' } }).place, 'from');
    assert.equal(decideMove({ kind: 'StatefulSet', obj: sts('AllowDataLoss'), from: { name: 'a', state: 'Deleted' } }).place, 'none');
  });

  it('a lost cluster: not failed over unless allowed; the condition says what was lost', () => {
    const lost = decideMove({ kind: 'StatefulSet', obj: sts(), from: { name: 'a', state: 'NotReady' }, to: 'b' });
    assert.equal(lost.place, 'from');
    assert.equal(lost.condition?.reason, 'ClusterLost');
    assert.match(lost.condition!.message, /heartbeat is lost.*data-db-0/);
    const gone = decideMove({ kind: 'StatefulSet', obj: sts(), from: { name: 'a', state: 'Deleted' }, to: 'b' });
    assert.equal(gone.place, 'none');
    assert.match(gone.condition!.message, /gone, and with it the data of its claims/);
    const allowed = decideMove({ kind: 'StatefulSet', obj: sts('AllowDataLoss'), from: { name: 'a', state: 'NotReady' }, to: 'b' });
    assert.equal(allowed.place, 'to');
    assert.match(allowed.condition!.message, /lost to it/);
  });

  it('a StatefulSet without claims, a CronJob: move as before, without a condition', () => {
    assert.deepEqual(decideMove({ kind: 'StatefulSet', obj: sts(undefined, false), from: { name: 'a', state: 'Alive' }, to: 'b' }), { place: 'to' });
    assert.deepEqual(decideMove({ kind: 'CronJob', obj: { metadata: { name: 'c' }, spec: { jobTemplate: {} } }, from: { name: 'a', state: 'Alive' }, to: 'b' }), { place: 'to' });
  });

  it('a running Job stays unless Recreate or AllowDataLoss asks; a lost cluster restarts it elsewhere', () => {
    const v = decideMove({ kind: 'Job', obj: job({ active: 1 }), from: { name: 'a', state: 'Alive' }, to: 'b' });
    assert.equal(v.place, 'from');
    assert.equal(v.condition?.reason, 'JobRunning');
    assert.match(v.condition!.message, /move-policy=Recreate/);
    for (const policy of ['Recreate', 'AllowDataLoss']) {
      const r = decideMove({ kind: 'Job', obj: job({ active: 1 }, policy), from: { name: 'a', state: 'Alive' }, to: 'b' });
      assert.equal(r.place, 'to');
      assert.equal(r.condition?.reason, 'Recreated');
    }
    const lost = decideMove({ kind: 'Job', obj: job({ active: 1 }), from: { name: 'a', state: 'NotReady' }, to: 'b' });
    assert.equal(lost.place, 'to');
    assert.equal(lost.condition?.reason, 'FailedOver');
  });

  it('a finished Job is never run again, whatever the policy', () => {
    for (const policy of [undefined, 'Recreate', 'AllowDataLoss']) {
      const v = decideMove({ kind: 'Job', obj: job(complete, policy), from: { name: 'a', state: 'Alive' }, to: 'b' });
      assert.equal(v.place, 'from');
      assert.equal(v.condition?.reason, 'JobFinished');
    }
    assert.equal(decideMove({ kind: 'Job', obj: job({ conditions: [{ type: 'Failed', status: 'True' }] }), from: { name: 'a', state: 'NotReady' }, to: 'b' }).place, 'from');
    assert.equal(decideMove({ kind: 'Job', obj: job(complete), from: { name: 'a', state: 'Deleted' }, to: 'b' }).place, 'none');
  });
});

describe('placeNamespace with move policies', () => {
  const kind = (resource: string, group = '') => kindPlacementOf(group, resource)!;
  const p = (resource: string, group: string, o: KubeObject): PlacedObject => ({ kind: kind(resource, group), obj: o });
  const all: Record<string, { name: string; key: string; ready: boolean }> = { ka: { name: 'a', key: 'ka', ready: true }, kb: { name: 'b', key: 'kb', ready: true } };
  const input = (objects: PlacedObject[], aReady = true): PlaceNamespaceInput => ({
    objects,
    targets: [all.kb!],
    acceptance: () => ({ acceptance: 'Accepted' as Acceptance }),
    nameOfKey: (k) => all[k]?.name,
    target: (k) => (k === 'ka' ? { ...all.ka!, ready: aReady } : all[k]),
  });
  const placed = (r: ReturnType<typeof placeNamespace>, name: string) => r.placements.find((x) => x.obj.metadata?.name === name);

  it('the StatefulSet with claims stays on a (which left), its ConfigMap with it; the allowed one goes to b', () => {
    const withConfig = sts();
    (withConfig.spec as { template: unknown }).template = tpl({ volumes: [{ name: 'c', configMap: { name: 'cfg' } }] });
    const r = placeNamespace(input([p('statefulsets', 'apps', withConfig), p('configmaps', '', { metadata: { name: 'cfg', uid: 'u' } })]));
    assert.deepEqual(placed(r, 'db')?.clusters, ['a']);
    assert.equal(placed(r, 'db')?.moving?.reason, 'DataWouldBeLost');
    assert.deepEqual(placed(r, 'cfg')?.clusters, ['a'], 'what it uses stays with it');
    assert.deepEqual(r.kept.map((t) => t.name), ['a']);
    const allowed = placeNamespace(input([p('statefulsets', 'apps', sts('AllowDataLoss'))]));
    assert.deepEqual(placed(allowed, 'db')?.clusters, ['b']);
    assert.equal(placed(allowed, 'db')?.moving?.reason, 'MovedWithoutData');
  });

  it('a standing condition is removed once the object runs on a namespace cluster again; a record of a move is kept', () => {
    const back = sts();
    back.metadata!.labels = { 'state.workload.kcp.io/kb': 'Sync' };
    back.metadata!.annotations = { [MOVING_ANNOTATION]: JSON.stringify({ type: 'Moving', status: 'False', reason: 'DataWouldBeLost', message: 'x' }) };
    assert.equal(placed(placeNamespace(input([p('statefulsets', 'apps', back)])), 'db')?.moving, null);
    back.metadata!.annotations = { [MOVING_ANNOTATION]: JSON.stringify({ type: 'Moving', status: 'False', reason: 'MovedWithoutData', message: 'x' }) };
    assert.equal(placed(placeNamespace(input([p('statefulsets', 'apps', back)])), 'db')?.moving, undefined);
  });
});
