import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatPin, locationSelects, pinnedTargets, workloadPinOf } from '../../../src/multicluster/decisions/workload-pin.js';

describe('workload pins (decisions/workload-pin.ts)', () => {
  const labels: Record<string, Record<string, string>> = { 'st-a': { region: 'west' }, 'st-b': { region: 'east' }, 'st-c': { region: 'west' } };
  const labelsOf = (t: string) => labels[t] ?? {};
  const west = { instanceSelector: { matchLabels: { region: 'west' } } };

  it('reads the pin from the labels; the cluster label wins', () => {
    assert.equal(workloadPinOf({ metadata: { labels: {} } }), undefined);
    assert.deepEqual(workloadPinOf({ metadata: { labels: { 'scheduling.atrium.io/cluster': 'st-b' } } }), { cluster: 'st-b' });
    assert.deepEqual(workloadPinOf({ metadata: { labels: { 'scheduling.atrium.io/location': 'west' } } }), { location: 'west' });
    assert.deepEqual(workloadPinOf({ metadata: { labels: { 'scheduling.atrium.io/location': 'west', 'scheduling.atrium.io/cluster': 'st-b' } } }), { cluster: 'st-b' });
    assert.equal(formatPin({ cluster: 'st-b' }), 'st-b');
    assert.equal(formatPin({ location: 'west' }), 'location/west');
  });

  const cases: [string, Parameters<typeof pinnedTargets>[0], ReturnType<typeof pinnedTargets>][] = [
    ['no pin: every cluster of the namespace', { assigned: ['st-a', 'st-b'], pin: undefined, labelsOf }, { targets: ['st-a', 'st-b'] }],
    ['a cluster of the namespace', { assigned: ['st-a', 'st-b'], pin: { cluster: 'st-b' }, labelsOf }, { targets: ['st-b'] }],
    ['a Location: the namespace\'s clusters it selects', { assigned: ['st-a', 'st-b', 'st-c'], pin: { location: 'west' }, labelsOf, location: west }, { targets: ['st-a', 'st-c'] }],
    [
      'a cluster the namespace does not run on: not honoured, said so',
      { assigned: ['st-a'], pin: { cluster: 'st-b' }, labelsOf },
      { targets: ['st-a'], unhonoured: 'the pin to st-b names none of its namespace\'s clusters (its namespace runs on "st-a" only); it runs on its namespace\'s clusters' },
    ],
    [
      'a Location that does not exist: not honoured, said so',
      { assigned: ['st-a'], pin: { location: 'north' }, labelsOf },
      { targets: ['st-a'], unhonoured: 'the pin to location/north names none of its namespace\'s clusters (no Location "north" exists in the namespace\'s location workspace); it runs on its namespace\'s clusters' },
    ],
    ['a Location selecting none of the namespace\'s clusters: not honoured', { assigned: ['st-b'], pin: { location: 'west' }, labelsOf, location: west }, { targets: ['st-b'], unhonoured: 'the pin to location/west names none of its namespace\'s clusters (its namespace runs on "st-b" only); it runs on its namespace\'s clusters' }],
    ['a namespace without clusters: nothing to choose from', { assigned: [], pin: { cluster: 'st-b' }, labelsOf }, { targets: [] }],
  ];
  for (const [title, input, want] of cases) it(title, () => assert.deepEqual(pinnedTargets(input), want));

  it('a Location without a selector, or with an invalid one, selects nothing', () => {
    assert.equal(locationSelects(undefined, { region: 'west' }), false);
    assert.equal(locationSelects({ matchExpressions: [{ key: 'region', operator: 'Bogus' as never }] }, { region: 'west' }), false);
    assert.equal(locationSelects({}, { region: 'west' }), true);
  });
});
