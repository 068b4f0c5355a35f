import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decideDependentAction, patchedOwnerReferences, type OwnerState } from '../../../src/controllers/garbagecollector/owner-references.js';
import { failingConditions, mergeNamespaceConditions, type DeletionOutcome } from '../../../src/controllers/namespace/conditions.js';
import { gvrString } from '../../../src/controllers/namespace/content-deleter.js';
import { OwnershipGraph } from '../../../src/controllers/garbagecollector/graph.js';

const o = (uid: string, state: OwnerState, blocks = false) => ({ uid, state, blocks });

describe('decideDependentAction', () => {
  const table: { name: string; owners: ReturnType<typeof o>[]; dep?: { hasDependents: boolean; finalizers: string[]; aDependentWaits?: boolean }; want: unknown }[] = [
    { name: 'no owners', owners: [], want: { action: 'none' } },
    { name: 'solid owner', owners: [o('a', 'solid')], want: { action: 'none' } },
    { name: 'all owners gone', owners: [o('a', 'dangling'), o('b', 'dangling')], want: { action: 'delete', propagationPolicy: 'Background' } },
    { name: 'one gone, one solid: drop the dangling ref', owners: [o('a', 'dangling'), o('b', 'solid')], want: { action: 'patch', removeOwnerUids: ['a'], unblockOwnerUids: [] } },
    { name: 'solid + waiting blocker: unblock', owners: [o('a', 'waiting', true), o('b', 'solid')], want: { action: 'patch', removeOwnerUids: [], unblockOwnerUids: ['a'] } },
    { name: 'solid + waiting non-blocker: nothing', owners: [o('a', 'waiting', false), o('b', 'solid')], want: { action: 'none' } },
    { name: 'unresolvable owner: never delete', owners: [o('a', 'unresolvable'), o('b', 'dangling')], want: { action: 'none' } },
    { name: 'owner waiting, dependent has dependents: foreground', owners: [o('a', 'waiting', true)], dep: { hasDependents: true, finalizers: [] }, want: { action: 'delete', propagationPolicy: 'Foreground' } },
    {
      name: 'owner waiting, a dependent waits too (a possible cycle): unblock, then foreground',
      owners: [o('a', 'waiting', true)],
      dep: { hasDependents: true, finalizers: [], aDependentWaits: true },
      want: { action: 'delete', propagationPolicy: 'Foreground', unblockOwnersFirst: true },
    },
    { name: 'a dependent waits, but no reference blocks: plain foreground', owners: [o('a', 'waiting', false)], dep: { hasDependents: true, finalizers: [], aDependentWaits: true }, want: { action: 'delete', propagationPolicy: 'Foreground' } },
    { name: 'owner waiting, leaf dependent: background', owners: [o('a', 'waiting', true)], want: { action: 'delete', propagationPolicy: 'Background' } },
    { name: 'existing orphan finalizer is honoured', owners: [o('a', 'dangling')], dep: { hasDependents: false, finalizers: ['orphan'] }, want: { action: 'delete', propagationPolicy: 'Orphan' } },
    { name: 'existing foreground finalizer is honoured', owners: [o('a', 'dangling')], dep: { hasDependents: false, finalizers: ['foregroundDeletion'] }, want: { action: 'delete', propagationPolicy: 'Foreground' } },
  ];
  for (const tc of table) {
    it(tc.name, () => assert.deepEqual(decideDependentAction(tc.owners, tc.dep ?? { hasDependents: false, finalizers: [] }), tc.want));
  }

  it('patchedOwnerReferences removes and unblocks, or reports no change', () => {
    const refs = [
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'a', uid: 'a', blockOwnerDeletion: true },
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'b', uid: 'b', blockOwnerDeletion: true },
    ];
    assert.deepEqual(patchedOwnerReferences(refs, ['a'], ['b']), [{ ...refs[1], blockOwnerDeletion: false }]);
    assert.equal(patchedOwnerReferences(refs, [], []), undefined);
  });
});

describe('OwnershipGraph', () => {
  it('tracks dependents by owner uid through updates and removals', () => {
    const g = new OwnershipGraph();
    g.upsert('cm#root|ns/d', { metadata: { uid: 'd', ownerReferences: [{ uid: 'o1' }, { uid: 'o2' }] as any } });
    g.upsert('cm#root|ns/o1', { metadata: { uid: 'o1' } });
    assert.deepEqual(g.dependentsOf('o1'), ['cm#root|ns/d']);
    assert.equal(g.nodeOfUid('o1'), 'cm#root|ns/o1');
    assert.deepEqual(g.upsert('cm#root|ns/d', { metadata: { uid: 'd', ownerReferences: [{ uid: 'o2' }] as any } }), ['o1', 'o2']);
    assert.deepEqual(g.dependentsOf('o1'), []);
    assert.deepEqual(g.remove('cm#root|ns/d'), ['o2']);
    assert.deepEqual(g.dependentsOf('o2'), []);
  });
});

describe('namespace conditions', () => {
  const empty = (): DeletionOutcome => ({ contentErrors: [], remainingByResource: new Map(), remainingByFinalizer: new Map() });
  const now = '2024-01-01T00:00:00Z';
  const table: { name: string; outcome: DeletionOutcome; want: { type: string; reason: string; message: string }[] }[] = [
    { name: 'all fine', outcome: empty(), want: [] },
    {
      name: 'content held by finalizers',
      outcome: { ...empty(), remainingByResource: new Map([['configmaps.', 2], ['widgets.example.com', 1]]), remainingByFinalizer: new Map([['b/f', 1], ['a/f', 2]]) },
      want: [
        { type: 'NamespaceContentRemaining', reason: 'SomeResourcesRemain', message: 'Some resources are remaining: configmaps. has 2 resource instances, widgets.example.com has 1 resource instances' },
        { type: 'NamespaceFinalizersRemaining', reason: 'SomeFinalizersRemain', message: 'Some content in the namespace has finalizers remaining: a/f in 2 resource instances, b/f in 1 resource instances' },
      ],
    },
    {
      name: 'content errors are sorted and counted',
      outcome: { ...empty(), contentErrors: ['z failed', 'a failed'] },
      want: [{ type: 'NamespaceDeletionContentFailure', reason: 'ContentDeletionFailed', message: 'Failed to delete all resource types, 2 remaining: a failed, z failed' }],
    },
    {
      name: 'partial discovery failure',
      outcome: { ...empty(), failedGroups: new Map([['example.com/v1', 'boom']]) },
      want: [
        {
          type: 'NamespaceDeletionDiscoveryFailure',
          reason: 'DiscoveryFailed',
          message: 'Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: example.com/v1: boom',
        },
      ],
    },
  ];
  for (const tc of table) {
    it(tc.name, () => {
      const got = failingConditions(tc.outcome, now).map(({ type, reason, message, status }) => {
        assert.equal(status, 'True');
        return { type, reason, message };
      });
      assert.deepEqual(got, tc.want);
    });
  }

  it('merge appends in canonical order, keeps foreign conditions, moves lastTransitionTime only on status flips', () => {
    const first = mergeNamespaceConditions([{ type: 'Other', status: 'True', reason: 'x', message: 'y', lastTransitionTime: 'T0' }], [], 'T1');
    assert.equal(first.changed, true);
    assert.deepEqual(first.conditions.map((c) => c.type), [
      'Other',
      'NamespaceDeletionDiscoveryFailure',
      'NamespaceDeletionGroupVersionParsingFailure',
      'NamespaceDeletionContentFailure',
      'NamespaceContentRemaining',
      'NamespaceFinalizersRemaining',
    ]);
    assert.equal(mergeNamespaceConditions(first.conditions, [], 'T2').changed, false);
    const remaining = failingConditions({ ...empty(), remainingByResource: new Map([['configmaps.', 1]]) }, 'T3');
    const second = mergeNamespaceConditions(first.conditions, remaining, 'T3');
    const c = second.conditions.find((x) => x.type === 'NamespaceContentRemaining')!;
    assert.equal(c.status, 'True');
    assert.equal(c.lastTransitionTime, 'T3');
    assert.equal(second.conditions.find((x) => x.type === 'NamespaceDeletionDiscoveryFailure')!.lastTransitionTime, 'T1');
  });

  it('formats a GroupVersionResource as Go does', () => {
    assert.equal(gvrString({ group: '', version: 'v1', resource: 'pods' }), '/v1, Resource=pods');
    assert.equal(gvrString({ group: 'apps', version: 'v1', resource: 'deployments' }), 'apps/v1, Resource=deployments');
  });
});
