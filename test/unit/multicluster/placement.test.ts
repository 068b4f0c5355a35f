import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { locationStatus } from '../../../src/multicluster/decisions/location-status.js';
import { placementStatus } from '../../../src/multicluster/decisions/placement-status.js';
import { selectTargets, type SelectTargetsInput, type TargetSelection } from '../../../src/multicluster/decisions/select-targets.js';
import type { ClusterSpread, LocationLike, PlacementLike, SyncTargetLike } from '../../../src/multicluster/decisions/types.js';

const NOW = new Date('2025-01-01T12:00:00Z');
const GVR = { group: 'workload.kcp.io', version: 'v1alpha1', resource: 'synctargets' };

function location(name: string, labels: Record<string, string>, instanceSelector: LocationLike['spec']['instanceSelector'] = { matchLabels: { region: name } }): LocationLike {
  return { metadata: { name, labels }, spec: { resource: GVR, instanceSelector } };
}

interface TargetOptions {
  region?: string;
  ready?: boolean;
  cordoned?: boolean;
  evictAfter?: string;
  deployments?: 'Accepted' | 'Pending' | 'Incompatible';
}

function target(name: string, o: TargetOptions = {}): SyncTargetLike {
  return {
    metadata: { name, labels: { region: o.region ?? 'east' } },
    spec: { unschedulable: o.cordoned ?? false, evictAfter: o.evictAfter ?? null },
    status: {
      conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }],
      syncedResources: o.deployments ? [{ group: 'apps', resource: 'deployments', state: o.deployments }] : [],
    },
  };
}

function placement(o: { selectors?: PlacementLike['spec']['locationSelectors']; spread?: ClusterSpread; selected?: string; phase?: 'Pending' | 'Unbound' | 'Bound' } = {}): PlacementLike {
  return {
    metadata: { name: 'default' },
    spec: { locationSelectors: o.selectors === undefined ? [{}] : o.selectors, locationResource: GVR, clusterSpread: o.spread ?? null },
    status: { phase: o.phase ?? 'Pending', selectedLocation: o.selected ? { path: 'root:compute', locationName: o.selected } : null },
  };
}

const EAST = location('east', { region: 'east', cloud: 'gcp' });
const WEST = location('west', { region: 'west', cloud: 'aws' });

function input(overrides: Partial<SelectTargetsInput>): SelectTargetsInput {
  return { placement: placement(), locations: [EAST], syncTargets: [], locationWorkspace: 'root:compute', now: NOW, ...overrides };
}

interface Case {
  name: string;
  in: Partial<SelectTargetsInput>;
  location?: string | null;
  failure?: string;
  targets: string[];
  removed?: string[];
  rejected?: Record<string, string>;
  stale?: boolean;
}

describe('selectTargets', () => {
  const table: Case[] = [
    { name: 'no Location in the workspace', in: { locations: [] }, location: null, failure: 'LocationNotFound', targets: [] },
    { name: 'no Location matches the selectors', in: { placement: placement({ selectors: [{ matchLabels: { cloud: 'azure' } }] }) }, location: null, failure: 'LocationNoMatch', targets: [] },
    { name: 'an empty selector list selects no Location (kcp)', in: { placement: placement({ selectors: [] }) }, location: null, failure: 'LocationNoMatch', targets: [] },
    { name: 'selectors are ORed', in: { locations: [EAST, WEST], syncTargets: [target('w1', { region: 'west' })], placement: placement({ selectors: [{ matchLabels: { cloud: 'azure' } }, { matchLabels: { cloud: 'aws' } }] }) }, location: 'west', targets: ['w1'] },
    { name: 'a Location for another resource is ignored', in: { locations: [{ ...EAST, spec: { ...EAST.spec, resource: { group: 'x.io', version: 'v1', resource: 'things' } } }] }, location: null, failure: 'LocationNoMatch', targets: [] },
    {
      name: 'the Location with the most usable targets wins',
      in: { locations: [EAST, WEST], syncTargets: [target('e1', { ready: false }), target('w1', { region: 'west' })] },
      location: 'west',
      targets: ['w1'],
    },
    { name: 'a Location without instanceSelector has no targets', in: { locations: [location('east', { region: 'east' }, null)], syncTargets: [target('e1')] }, location: 'east', targets: [] },
    { name: 'One: the first target by name', in: { syncTargets: [target('e2'), target('e1')] }, location: 'east', targets: ['e1'], rejected: { e2: 'NotNeeded' } },
    { name: 'One: the target with the most room first', in: { syncTargets: [target('e1'), target('e2')], availableReplicas: { e1: 3, e2: 9 } }, location: 'east', targets: ['e2'], rejected: { e1: 'NotNeeded' } },
    { name: 'Count 2', in: { placement: placement({ spread: { mode: 'Count', count: 2 } }), syncTargets: [target('e3'), target('e1'), target('e2')] }, location: 'east', targets: ['e1', 'e2'], rejected: { e3: 'NotNeeded' } },
    {
      name: 'All: every usable target, the others with their reason',
      in: {
        placement: placement({ spread: { mode: 'All' } }),
        syncTargets: [target('ok1'), target('ok2'), target('down', { ready: false }), target('cordoned', { cordoned: true }), target('full'), target('drained', { evictAfter: '2025-01-01T11:00:00Z' })],
        availableReplicas: { full: 0 },
      },
      location: 'east',
      targets: ['ok1', 'ok2'],
      rejected: { cordoned: 'Cordoned', down: 'NotReady', drained: 'Draining', full: 'NoCapacity' },
    },
    { name: 'a future evictAfter does not drain yet', in: { syncTargets: [target('e1', { evictAfter: '2025-01-01T13:00:00Z' })] }, location: 'east', targets: ['e1'] },
    { name: 'stable: the current target is kept though another has more room', in: { syncTargets: [target('e1'), target('e2')], availableReplicas: { e1: 1, e2: 100 }, current: ['e1'] }, location: 'east', targets: ['e1'], rejected: { e2: 'NotNeeded' } },
    { name: 'rebalance chooses afresh', in: { syncTargets: [target('e1'), target('e2')], availableReplicas: { e1: 1, e2: 100 }, current: ['e1'], rebalance: true }, location: 'east', targets: ['e2'], rejected: { e1: 'NotNeeded' } },
    { name: 'a NotReady current target keeps its work (failover decides)', in: { syncTargets: [target('e1', { ready: false }), target('e2')], current: ['e1'] }, location: 'east', targets: ['e1'], rejected: { e2: 'NotNeeded' } },
    { name: 'a cordoned current target keeps its work', in: { syncTargets: [target('e1', { cordoned: true }), target('e2')], current: ['e1'] }, location: 'east', targets: ['e1'], rejected: { e2: 'NotNeeded' } },
    { name: 'a full current target keeps its work', in: { syncTargets: [target('e1'), target('e2')], current: ['e1'], availableReplicas: { e1: 0 } }, location: 'east', targets: ['e1'], rejected: { e2: 'NotNeeded' } },
    { name: 'a draining current target is replaced', in: { syncTargets: [target('e1', { evictAfter: '2025-01-01T00:00:00Z' }), target('e2')], current: ['e1'] }, location: 'east', targets: ['e2'], removed: ['e1'], rejected: { e1: 'Draining' } },
    { name: 'an evacuating current target is replaced', in: { syncTargets: [target('e1', { ready: false }), target('e2')], current: ['e1'], evacuating: ['e1'] }, location: 'east', targets: ['e2'], removed: ['e1'], rejected: { e1: 'Evacuating' } },
    {
      name: 'API: Incompatible drops even a current target; Pending only blocks new work',
      in: {
        placement: placement({ spread: { mode: 'All' } }),
        syncTargets: [target('bad', { deployments: 'Incompatible' }), target('pending', { deployments: 'Pending' }), target('unknown'), target('good', { deployments: 'Accepted' }), target('kept', { deployments: 'Pending' })],
        requiredResources: [{ group: 'apps', resource: 'deployments' }],
        current: ['bad', 'kept'],
      },
      location: 'east',
      targets: ['good', 'kept'],
      removed: ['bad'],
      rejected: { bad: 'APIIncompatible', pending: 'APIIncompatible', unknown: 'APIIncompatible' },
    },
    { name: 'a target relabelled out of the Location is removed', in: { syncTargets: [target('e1', { region: 'west' }), target('e2')], current: ['e1'] }, location: 'east', targets: ['e2'], removed: ['e1'] },
    {
      name: 'a lowered count keeps the first current targets by name',
      in: { placement: placement({ spread: { mode: 'Count', count: 1 } }), syncTargets: [target('e1'), target('e2')], current: ['e2', 'e1'] },
      location: 'east',
      targets: ['e1'],
      removed: ['e2'],
      rejected: { e2: 'NotNeeded' },
    },
    {
      name: 'the selected Location is kept while it matches',
      in: { locations: [EAST, WEST], placement: placement({ selected: 'east' }), syncTargets: [target('w1', { region: 'west' }), target('w2', { region: 'west' })] },
      location: 'east',
      targets: [],
    },
    {
      name: 'a Bound Placement keeps its Location after the selectors moved on (stale)',
      in: { locations: [EAST, WEST], placement: placement({ selected: 'east', phase: 'Bound', selectors: [{ matchLabels: { cloud: 'aws' } }] }), syncTargets: [target('e1'), target('w1', { region: 'west' })] },
      location: 'east',
      targets: ['e1'],
      stale: true,
    },
    {
      name: 'an Unbound Placement follows its selectors to another Location',
      in: { locations: [EAST, WEST], placement: placement({ selected: 'east', phase: 'Unbound', selectors: [{ matchLabels: { cloud: 'aws' } }] }), syncTargets: [target('e1'), target('w1', { region: 'west' })] },
      location: 'west',
      targets: ['w1'],
    },
    {
      name: 'a deleted selected Location is replaced',
      in: { locations: [WEST], placement: placement({ selected: 'east', phase: 'Bound' }), syncTargets: [target('w1', { region: 'west' })], current: ['e1'] },
      location: 'west',
      targets: ['w1'],
      removed: ['e1'],
    },
  ];
  for (const tc of table) {
    it(tc.name, () => {
      const got = selectTargets(input(tc.in));
      assert.equal(got.selectedLocation?.locationName ?? null, tc.location ?? null);
      if (got.selectedLocation) assert.equal(got.selectedLocation.path, 'root:compute');
      assert.equal(got.locationFailure, tc.failure);
      assert.deepEqual(got.targets, tc.targets);
      assert.deepEqual(got.removed, tc.removed ?? []);
      assert.deepEqual(got.added, tc.targets.filter((n) => !(tc.in.current ?? []).includes(n) || tc.in.rebalance));
      assert.deepEqual(Object.fromEntries(got.rejected.map((r) => [r.name, r.reason])), tc.rejected ?? {});
      assert.equal(got.locationStale, tc.stale ?? false);
    });
  }

  it('is a pure function of its input: same answer for shuffled SyncTargets', () => {
    const targets = [target('a1'), target('b2'), target('c3'), target('d4', { ready: false })];
    const spread: ClusterSpread = { mode: 'Count', count: 2 };
    const first = selectTargets(input({ syncTargets: targets, placement: placement({ spread }) }));
    const second = selectTargets(input({ syncTargets: [...targets].reverse(), placement: placement({ spread }) }));
    assert.deepEqual(first, second);
  });
});

describe('locationStatus', () => {
  it('counts instances and the Ready, schedulable ones', () => {
    const targets = [target('e1'), target('e2', { ready: false }), target('e3', { cordoned: true }), target('w1', { region: 'west' })];
    assert.deepEqual(locationStatus(EAST, targets), { instances: 3, availableInstances: 1 });
    assert.deepEqual(locationStatus(location('none', {}, null), targets), { instances: 0, availableInstances: 0 });
    assert.deepEqual(locationStatus(location('all', {}, {}), targets), { instances: 4, availableInstances: 2 });
  });
});

describe('placementStatus', () => {
  const base: TargetSelection = { selectedLocation: { path: 'root:compute', locationName: 'east' }, locationStale: false, targets: ['e1'], added: [], removed: [], rejected: [] };
  const table: { name: string; sel: TargetSelection; bound: number; phase: string; ready: [string, string?]; scheduled: [string, string?]; message?: RegExp }[] = [
    { name: 'no Location in the workspace', sel: { ...base, selectedLocation: null, locationFailure: 'LocationNotFound', targets: [] }, bound: 0, phase: 'Pending', ready: ['False', 'LocationNotFound'], scheduled: ['False', 'ScheduleLocationNotFound'] },
    { name: 'no Location matches', sel: { ...base, selectedLocation: null, locationFailure: 'LocationNoMatch', targets: [] }, bound: 3, phase: 'Pending', ready: ['False', 'LocationNoMatch'], scheduled: ['False', 'ScheduleLocationNotFound'] },
    { name: 'Location chosen, no namespace yet', sel: base, bound: 0, phase: 'Unbound', ready: ['True', 'LocationSelected'], scheduled: ['True', 'TargetsSelected'], message: /^Scheduled to SyncTarget "e1"$/ },
    { name: 'namespaces bound', sel: { ...base, targets: ['e1', 'e2'] }, bound: 2, phase: 'Bound', ready: ['True', 'LocationSelected'], scheduled: ['True', 'TargetsSelected'], message: /^Scheduled to SyncTargets "e1", "e2"$/ },
    { name: 'stale Location of a Bound Placement', sel: { ...base, locationStale: true }, bound: 1, phase: 'Bound', ready: ['False', 'LocationInvalid'], scheduled: ['True', 'TargetsSelected'] },
    { name: 'a Location without SyncTargets', sel: { ...base, targets: [] }, bound: 1, phase: 'Bound', ready: ['True', 'LocationSelected'], scheduled: ['False', 'NoValidTarget'], message: /^Location "east" has no SyncTargets$/ },
    {
      name: 'no ready or compatible target: the reasons are counted',
      sel: {
        ...base,
        targets: [],
        rejected: [
          { name: 'a', reason: 'NotReady', message: '' },
          { name: 'b', reason: 'Cordoned', message: '' },
          { name: 'c', reason: 'NotReady', message: '' },
          { name: 'd', reason: 'APIIncompatible', message: '' },
        ],
      },
      bound: 1,
      phase: 'Bound',
      ready: ['True', 'LocationSelected'],
      scheduled: ['False', 'NoValidTarget'],
      message: /^No valid SyncTarget in Location "east": 2 NotReady \(a, c\), 1 APIIncompatible \(d\), 1 Cordoned \(b\)$/,
    },
  ];
  for (const tc of table) {
    it(tc.name, () => {
      const got = placementStatus({ selection: tc.sel, boundNamespaces: tc.bound, now: NOW });
      assert.equal(got.phase, tc.phase);
      assert.deepEqual(got.selectedLocation ?? null, tc.sel.selectedLocation);
      const [ready, scheduled] = got.conditions;
      assert.deepEqual([ready!.type, ready!.status, ready!.reason], ['Ready', ...tc.ready]);
      assert.deepEqual([scheduled!.type, scheduled!.status, scheduled!.reason], ['Scheduled', ...tc.scheduled]);
      if (tc.message) assert.match(scheduled!.message!, tc.message);
    });
  }

  it('keeps lastTransitionTime while the state holds and moves it when status, reason, severity or message change (kcp conditions.Set)', () => {
    const earlier = '2024-12-31T00:00:00Z';
    const ready = placementStatus({ selection: base, boundNamespaces: 1, now: NOW }).conditions.find((c) => c.type === 'Ready')!;
    const previous = [
      { ...ready, lastTransitionTime: earlier },
      { type: 'Scheduled', status: 'True' as const, lastTransitionTime: earlier },
      { type: 'Other', status: 'True' as const, lastTransitionTime: earlier },
    ];
    const got = placementStatus({ selection: { ...base, targets: [] }, boundNamespaces: 1, previousConditions: previous, now: NOW });
    assert.deepEqual(got.conditions.map((c) => [c.type, c.lastTransitionTime]), [
      ['Ready', earlier],
      ['Other', earlier],
      ['Scheduled', '2025-01-01T12:00:00Z'],
    ]);
    // Same status, another message: a new state for kcp.
    const moved = placementStatus({ selection: { ...base, targets: ['e1', 'e2'] }, boundNamespaces: 1, previousConditions: placementStatus({ selection: base, boundNamespaces: 1, now: new Date(earlier) }).conditions, now: NOW });
    assert.deepEqual(moved.conditions.map((c) => [c.type, c.lastTransitionTime]), [
      ['Ready', earlier],
      ['Scheduled', '2025-01-01T12:00:00Z'],
    ]);
  });
});
