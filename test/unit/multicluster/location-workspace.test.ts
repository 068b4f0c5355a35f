/** Resolving Placement spec.locationWorkspace against the LogicalCluster directory, and the conditions it yields. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/apimachinery/object.js';
import { directoryOf, LOCATION_CLUSTER_ANNOTATION, resolveLocationWorkspace, resolvePlacementLocation } from '../../../src/multicluster/scheduling/location-workspace.js';
import { placementStatus } from '../../../src/multicluster/decisions/placement-status.js';

const lc = (cluster: string, path?: string): KubeObject => ({ metadata: { name: 'cluster', annotations: { 'kcp.io/cluster': cluster, ...(path ? { 'kcp.io/path': path } : {}) } } });
const directory = directoryOf([lc('root', 'root'), lc('k7compute', 'root:compute'), lc('zteam', 'root:org:team'), lc('nopath')], (o) => o.metadata!.annotations!['kcp.io/cluster']!);

describe('resolveLocationWorkspace', () => {
  const cases: [string, string | undefined, string, ReturnType<typeof resolveLocationWorkspace>][] = [
    ['empty means the own workspace, reported by path', undefined, 'zteam', { found: true, cluster: 'zteam', path: 'root:org:team' }],
    ['a path names another workspace', 'root:compute', 'zteam', { found: true, cluster: 'k7compute', path: 'root:compute' }],
    ['the own path', 'root:org:team', 'zteam', { found: true, cluster: 'zteam', path: 'root:org:team' }],
    ['a logical cluster name, reported by its path', 'k7compute', 'zteam', { found: true, cluster: 'k7compute', path: 'root:compute' }],
    ['root by name', 'root', 'zteam', { found: true, cluster: 'root', path: 'root' }],
    ['the own name without a known path', 'solo', 'solo', { found: true, cluster: 'solo', path: 'solo' }],
    ['an unknown path', 'root:nowhere', 'zteam', { found: false, path: 'root:nowhere' }],
    ['an unknown name', 'ghost', 'zteam', { found: false, path: 'ghost' }],
    ['a LogicalCluster without kcp.io/path is not addressable by name', 'nopath', 'zteam', { found: false, path: 'nopath' }],
  ];
  for (const [title, ws, own, want] of cases) it(title, () => assert.deepEqual(resolveLocationWorkspace(ws, own, directory), want));
});

describe('resolvePlacementLocation: another workspace counts only as admitted', () => {
  const placement = (locationWorkspace: string | undefined, admitted?: string) => ({ spec: { locationWorkspace }, metadata: { annotations: (admitted ? { [LOCATION_CLUSTER_ANNOTATION]: admitted } : {}) as Record<string, string> } });
  const cases: [string, ReturnType<typeof placement>, ReturnType<typeof resolveLocationWorkspace>][] = [
    ['the own workspace needs no record', placement(undefined), { found: true, cluster: 'zteam', path: 'root:org:team' }],
    ['the own path needs no record', placement('root:org:team'), { found: true, cluster: 'zteam', path: 'root:org:team' }],
    ['another workspace as admitted', placement('root:compute', 'k7compute'), { found: true, cluster: 'k7compute', path: 'root:compute' }],
    ['another workspace never admitted (no record)', placement('root:compute'), { found: false, path: 'root:compute' }],
    ['the path now names another logical cluster (deleted and created again)', placement('root:compute', 'k1oldcompute'), { found: false, path: 'root:compute' }],
    ['an unknown path stays unknown', placement('root:nowhere', 'k7compute'), { found: false, path: 'root:nowhere' }],
  ];
  for (const [name, p, want] of cases) {
    it(name, () => assert.deepEqual(resolvePlacementLocation(p, 'zteam', directory), want));
  }
});

describe('placementStatus for location workspace failures', () => {
  const none = { selectedLocation: null, locationStale: false, targets: [], added: [], removed: [], rejected: [] };
  const now = new Date('2026-01-01T00:00:00Z');
  const cases: [string, 'LocationWorkspaceNotFound' | 'LocationNotFound' | 'LocationNoMatch', string][] = [
    ['missing workspace', 'LocationWorkspaceNotFound', 'The location workspace "root:x" does not exist'],
    ['no Location', 'LocationNotFound', 'No Location exists in location workspace "root:x"'],
    ['no match', 'LocationNoMatch', 'No Location in location workspace "root:x" matches spec.locationSelectors'],
  ];
  for (const [title, failure, message] of cases) {
    it(title, () => {
      const s = placementStatus({ selection: { ...none, locationFailure: failure }, locationWorkspace: 'root:x', boundNamespaces: 1, now });
      const ready = s.conditions.find((c) => c.type === 'Ready')!;
      assert.equal(s.phase, 'Pending');
      assert.deepEqual([ready.status, ready.reason, ready.message], ['False', failure === 'LocationNoMatch' ? 'LocationNoMatch' : 'LocationNotFound', message]);
      assert.equal(s.conditions.find((c) => c.type === 'Scheduled')?.reason, 'ScheduleLocationNotFound');
    });
  }
});
