/**
 * Moves without disruption (issue #15), in process: atrium and two simulated clusters whose pods take a second to
 * become Ready. A 30-replica Deployment (maxSurge 6, maxUnavailable 3) with a Service and a PodDisruptionBudget is
 * moved between the clusters by changing one attribute, its namespace's `workload.kcp.io/cluster` label, while a
 * sampler reads the clusters' pods and endpoints and the upstream status every 100 ms: ready pods never fall below
 * replicas − maxUnavailable, the Service always has ready endpoints on some cluster, and the upstream ready count is
 * never above what the clusters run.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fastScheduling, startFleet, type InProcessFleet } from '../helpers/fleet.js';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { eventually } from '../helpers/eventually.js';
import { formatSamples, MoveSampler, sumOf, type MoveSample } from '../helpers/move-sampler.js';
import { kubectlAtrium } from '../helpers/processes.js';
import { cordonSyncTarget } from '../../src/multicluster/scheduling/cordon.js';
import { syncTargetKey } from '../../src/multicluster/api/keys.js';

const deploymentsGVR = { group: 'apps', version: 'v1', resource: 'deployments' };
const namespacesGVR = { group: '', version: 'v1', resource: 'namespaces' };
const servicesGVR = { group: '', version: 'v1', resource: 'services' };
const pdbsGVR = { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets' };

const REPLICAS = 30;
const MAX_UNAVAILABLE = 3;

function app(name: string, replicas: number, strategy?: unknown): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas,
      ...(strategy ? { strategy } : {}),
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    },
  };
}
const web = () => app('web', REPLICAS, { type: 'RollingUpdate', rollingUpdate: { maxSurge: 6, maxUnavailable: MAX_UNAVAILABLE } });
/** The second app: Deployment defaults (25%: maxUnavailable 2 of 10). */
const API_REPLICAS = 10;

/** Checks the samples of a move; returns a description of the first violation, or undefined. */
export function violations(samples: readonly MoveSample[], floor: number): string | undefined {
  for (const s of samples) {
    const ready = sumOf(s.ready);
    if (ready < floor) return `${ready} ready pods at ${s.t} ms (floor ${floor})`;
    if (Object.keys(s.endpoints).length > 0 && sumOf(s.endpoints) === 0) return `no ready endpoint on any cluster at ${s.t} ms`;
    if (s.upstreamReady > ready) return `upstream claims ${s.upstreamReady} ready at ${s.t} ms, the clusters run ${ready}`;
  }
  return undefined;
}

describe('moves: make before break, visible in status', { timeout: 300_000 }, () => {
  let fleet: InProcessFleet;

  before(async () => {
    fleet = await startFleet({
      name: 'moves',
      clusters: [
        { name: 'st-a', nodes: 2, readyDelayMs: 1000 },
        { name: 'st-b', nodes: 2, readyDelayMs: 1000 },
      ],
      // Heartbeats judged over 20 s: on a loaded machine a 3 s threshold made both clusters flap NotReady (a lost
    // cluster is failed over at once, which is not what a move measures).
    multicluster: { ...fastScheduling(), heartbeatThresholdMs: 20_000, scheduling: { tolerationSeconds: 5, heartbeatThresholdSeconds: 20, resyncMs: 300 } },
      bindCompute: true,
      waitReady: { resources: ['deployments', 'services', 'poddisruptionbudgets'], timeoutMs: 90_000 },
    });
    const up = fleet.up;
    await up.create(namespacesGVR, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop', labels: { 'workload.kcp.io/cluster': 'st-a' } } });
    await eventually('the Deployment API in shop', () => up.list(deploymentsGVR, { namespace: 'shop' }));
    await up.create(deploymentsGVR, web(), { namespace: 'shop' });
    await up.create(deploymentsGVR, app('api', API_REPLICAS), { namespace: 'shop' });
    await up.create(servicesGVR, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } }, { namespace: 'shop' });
    await up.create(servicesGVR, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'api' }, spec: { selector: { app: 'api' }, ports: [{ port: 80 }] } }, { namespace: 'shop' });
    await up.create(pdbsGVR, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web' }, spec: { maxUnavailable: MAX_UNAVAILABLE, selector: { matchLabels: { app: 'web' } } } }, { namespace: 'shop' });
  });

  after(async () => {
    await fleet?.stop();
  });

  const sampler = (name = 'web') =>
    new MoveSampler({ up: fleet.up, namespace: 'shop', deployment: name, selector: `app=${name}`, service: name, clusters: fleet.clusters.map((c) => ({ name: c.name, client: c.client })) });
  const childrenOf = async () => (await fleet.up.list(deploymentsGVR, { namespace: 'shop' })).items.map((d) => d.metadata!.name!).sort();

  it('runs the pinned namespace on st-a only', async () => {
    const s = sampler();
    let seen: MoveSample | undefined;
    await eventually('30 ready on st-a, the Service with endpoints there', async () => {
      seen = await s.sample();
      return seen.ready['st-a'] === REPLICAS && seen.ready['st-b'] === 0 && seen.endpoints['st-a'] === REPLICAS && seen.upstreamReady === REPLICAS && seen;
    }, 120_000).catch((e) => {
      throw new Error(`${(e as Error).message}; last sample ${JSON.stringify(seen)}`);
    });
    const a = sampler('api');
    await eventually('10 api ready on st-a', async () => ((seen = await a.sample()).ready['st-a'] === API_REPLICAS && seen.upstreamReady === API_REPLICAS) || false, 120_000).catch((e) => {
      throw new Error(`${(e as Error).message}; last sample ${JSON.stringify(seen)}`);
    });
  });

  it('kubectl atrium move namespace --to st-b: progress until done, never below replicas − maxUnavailable ready', async () => {
    const s = sampler().start();
    const started = Date.now();
    const moved = await kubectlAtrium(fleet.kubeconfig, ['move', 'namespace', 'shop', '--to', 'st-b', '--timeout', '240s']);
    const took = Date.now() - started;
    assert.equal(moved.code, 0, `${moved.stdout}\n${moved.stderr}\n${formatSamples(s.samples)}`);
    const lines = moved.stdout.trim().split('\n');
    assert.equal(lines[0], 'namespace/shop moving to st-b');
    assert.ok(lines.some((l) => /^Waiting for deployment "web" to move to "st-b": \d+ of 30 ready there/.test(l)), moved.stdout);
    assert.ok(lines.includes('deployment "web" moved: 30 of 30 ready on "st-b"'), moved.stdout);
    assert.equal(lines.at(-1), 'namespace "shop" moved to "st-b"');
    let last: MoveSample | undefined;
    await eventually('30 ready on st-b, none left on st-a', async () => {
      last = s.samples.at(-1);
      const kids = (await fleet.up.list(deploymentsGVR, { namespace: 'shop' })).items.map((d) => d.metadata!.name!);
      return last && last.ready['st-b'] === REPLICAS && last.ready['st-a'] === 0 && !kids.includes('web--st-a') && last.upstreamReady === REPLICAS;
    }, 120_000).catch((e) => {
      throw new Error(`${(e as Error).message}\n${formatSamples(s.samples)}`);
    });
    const samples = await s.stop();
    const bad = violations(samples, REPLICAS - MAX_UNAVAILABLE);
    assert.equal(bad, undefined, `${bad}\n${formatSamples(samples, 200)}`);
    assert.ok(samples.some((x) => x.conditions.includes('Moving=True/MakeBeforeBreak')), `no Moving condition seen\n${formatSamples(samples, 200)}`);
    console.log(`move of 30 replicas: ${took} ms; min ready ${Math.min(...samples.map((x) => sumOf(x.ready)))} (floor ${REPLICAS - MAX_UNAVAILABLE})`);
  });

  it('the break-glass label: refused when it would do nothing, honoured in a workspace using another workspace\'s compute', async () => {
    const up = fleet.up;
    const refusal = async (scope: { cluster?: string }, name: string, label: string): Promise<string> => {
      try {
        await up.create(namespacesGVR, { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'workload.kcp.io/cluster': label } } }, scope);
      } catch (err) {
        assert.equal((err as { code?: number }).code, 403, (err as Error).message);
        return (err as Error).message;
      }
      throw new Error(`namespace ${name} labelled ${label} was accepted`);
    };
    // A SyncTarget the location workspace does not have.
    assert.match(await refusal({}, 'lost', 'nowhere'), /would do nothing: namespace "lost" is placed by Placement "default" .*no SyncTarget "nowhere" \(it has: st-a, st-b\); use one of those \(kubectl atrium move namespace lost --to <synctarget>\)/);
    // Changing an existing namespace's label is checked the same way.
    await assert.rejects(up.patch(namespacesGVR, 'shop', 'merge', { metadata: { labels: { 'workload.kcp.io/cluster': 'st-z' } } }), /no SyncTarget "st-z"/);
    // A workspace without compute.
    const bare = await fleet.createWorkspace('bare');
    assert.match(await refusal({ cluster: bare.cluster }, 'app', 'st-a'), /this workspace has no compute; bind some first \(kubectl atrium bind compute <location-workspace>\)/);
    // A workspace bound to root's compute: the label picks that SyncTarget of root.
    const team = await fleet.createWorkspace('team');
    await fleet.bindCompute({ cluster: team.cluster, locationWorkspace: 'root' });
    assert.match(await refusal({ cluster: team.cluster }, 'wrong', 'st-c'), /no SyncTarget "st-c" \(it has: st-a, st-b\)/);
    await up.create(namespacesGVR, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'pinned', labels: { 'workload.kcp.io/cluster': 'st-b' } } }, { cluster: team.cluster });
    const state = (t: string) => `state.workload.kcp.io/${syncTargetKey('root', t)}`;
    let labels: Record<string, string> = {};
    await eventually('team\'s pinned namespace assigned to root\'s st-b only', async () => {
      labels = (await up.get(namespacesGVR, 'pinned', { cluster: team.cluster })).metadata?.labels ?? {};
      return labels[state('st-b')] === 'Sync' && labels[state('st-a')] === undefined;
    }, 60_000).catch((e) => {
      throw new Error(`${(e as Error).message}; labels ${JSON.stringify(labels)}`);
    });
    await up.patch(namespacesGVR, 'pinned', 'merge', { metadata: { labels: { 'workload.kcp.io/cluster': 'st-a' } } }, { cluster: team.cluster });
    await eventually('team\'s namespace moved to st-a', async () => {
      labels = (await up.get(namespacesGVR, 'pinned', { cluster: team.cluster })).metadata?.labels ?? {};
      return labels[state('st-a')] === 'Sync' && labels[state('st-b')] === undefined;
    }, 60_000).catch((e) => {
      throw new Error(`${(e as Error).message}; labels ${JSON.stringify(labels)}`);
    });
  });
  it('draining st-b moves both apps back to st-a, each within its own budget, Services always served', async () => {
    const web = sampler('web').start();
    const api = sampler('api').start();
    await cordonSyncTarget(fleet.up, 'root', 'st-b', 'drain');
    let seen = '';
    await eventually('both apps on st-a only', async () => {
      const w = web.samples.at(-1);
      const a = api.samples.at(-1);
      const kids = await childrenOf();
      seen = `web ${JSON.stringify(w)} api ${JSON.stringify(a)} children ${kids}`;
      return w?.ready['st-a'] === REPLICAS && w.ready['st-b'] === 0 && a?.ready['st-a'] === API_REPLICAS && a.ready['st-b'] === 0 && !kids.includes('web--st-b') && !kids.includes('api--st-b');
    }, 180_000).catch((e) => {
      throw new Error(`${(e as Error).message}; last seen ${seen}`);
    });
    const ws = await web.stop();
    const as = await api.stop();
    assert.equal(violations(ws, REPLICAS - MAX_UNAVAILABLE), undefined, formatSamples(ws, 200));
    assert.equal(violations(as, API_REPLICAS - 2), undefined, formatSamples(as, 200));
  });
});
