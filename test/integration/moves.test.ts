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

const deploymentsGVR = { group: 'apps', version: 'v1', resource: 'deployments' };
const namespacesGVR = { group: '', version: 'v1', resource: 'namespaces' };
const servicesGVR = { group: '', version: 'v1', resource: 'services' };
const pdbsGVR = { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets' };

const REPLICAS = 30;
const MAX_UNAVAILABLE = 3;

function web(): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      replicas: REPLICAS,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 6, maxUnavailable: MAX_UNAVAILABLE } },
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    },
  };
}

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
      multicluster: fastScheduling(),
      bindCompute: true,
      waitReady: { resources: ['deployments', 'services', 'poddisruptionbudgets'], timeoutMs: 90_000 },
    });
    const up = fleet.up;
    await up.create(namespacesGVR, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop', labels: { 'workload.kcp.io/cluster': 'st-a' } } });
    await eventually('the Deployment API in shop', () => up.list(deploymentsGVR, { namespace: 'shop' }));
    await up.create(deploymentsGVR, web(), { namespace: 'shop' });
    await up.create(servicesGVR, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } }, { namespace: 'shop' });
    await up.create(pdbsGVR, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web' }, spec: { maxUnavailable: MAX_UNAVAILABLE, selector: { matchLabels: { app: 'web' } } } }, { namespace: 'shop' });
  });

  after(async () => {
    await fleet?.stop();
  });

  const sampler = () =>
    new MoveSampler({ up: fleet.up, namespace: 'shop', deployment: 'web', selector: 'app=web', service: 'web', clusters: fleet.clusters.map((c) => ({ name: c.name, client: c.client })) });

  it('runs the pinned namespace on st-a only', async () => {
    const s = sampler();
    let seen: MoveSample | undefined;
    await eventually('30 ready on st-a, the Service with endpoints there', async () => {
      seen = await s.sample();
      return seen.ready['st-a'] === REPLICAS && seen.ready['st-b'] === 0 && seen.endpoints['st-a'] === REPLICAS && seen.upstreamReady === REPLICAS && seen;
    }, 120_000).catch((e) => {
      throw new Error(`${(e as Error).message}; last sample ${JSON.stringify(seen)}`);
    });
  });

  it('moves to st-b by relabelling the namespace, never below replicas − maxUnavailable ready', async () => {
    const s = sampler().start();
    await fleet.up.patch(namespacesGVR, 'shop', 'merge', { metadata: { labels: { 'workload.kcp.io/cluster': 'st-b' } } });
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
  });
});
