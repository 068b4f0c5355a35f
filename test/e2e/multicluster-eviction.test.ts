/**
 * pods/eviction in a workspace with compute (two simulated clusters, push mode, compute bound), with the real
 * API: a MIRRORED pod of a split Deployment is evicted by its cluster, whose share of the
 * PodDisruptionBudget decides (the workspace's status only sums the shares) — refused with the cluster's 429 while the
 * share allows nothing, evicted once it does, the mirror gone with the pod and the replacement mirrored; a bare Pod
 * SYNCED from the workspace is evicted there, and its copy goes with it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/eventually.js';
import { fastScheduling, startFleet, type InProcessFleet } from '../helpers/fleet.js';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { StatusError } from '../../src/apimachinery/status.js';
import { resourcePath } from '../../src/client/resource.js';
import { isMirror } from '../../src/multicluster/api/mirrors.js';
import { locatorOf, syncTargetKey } from '../../src/multicluster/api/keys.js';

const pods = { group: '', version: 'v1', resource: 'pods' };
const deployments = { group: 'apps', version: 'v1', resource: 'deployments' };
const pdbs = { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets' };
const namespaces = { group: '', version: 'v1', resource: 'namespaces' };
const TARGETS = ['ev-a', 'ev-b'];
const NS = 'shop';

describe('pods/eviction in a workspace', { timeout: 240_000 }, () => {
  let fleet: InProcessFleet;
  const evict = (name: string) =>
    fleet.up.call('POST', resourcePath(pods, { cluster: fleet.workspace.cluster, namespace: NS, name, subresource: 'eviction' }), { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: NS } });
  const runningMirrors = async () =>
    ((await fleet.up.list(pods, { namespace: NS })).items as KubeObject[]).filter(
      (p) => isMirror(p) && p.metadata?.labels?.app === 'web' && !p.metadata?.deletionTimestamp && ((p.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
    );

  before(async () => {
    fleet = await startFleet({ name: 'eviction', clusters: TARGETS, multicluster: fastScheduling(), server: { builtinControllers: true }, bindCompute: true });
    await fleet.waitReady(undefined, { resources: ['deployments', 'pods', 'poddisruptionbudgets'], timeoutMs: 60_000 });
    await fleet.up.create(namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    await eventually('shop placed on both clusters', async () => {
      const labels = (await fleet.up.get(namespaces, NS)).metadata?.labels ?? {};
      return TARGETS.every((t) => labels[`state.workload.kcp.io/${syncTargetKey('root', t)}`] === 'Sync');
    });
  });

  after(async () => {
    await fleet?.stop();
  });

  it("a mirrored pod is evicted by its cluster, under that cluster's share of the budget", async () => {
    await fleet.up.create(deployments, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 4, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } }, { namespace: NS });
    // 4 healthy pods must stay: each cluster's share is 2 of its 2 pods, so neither may lose one.
    await fleet.up.create(pdbs, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web' }, spec: { minAvailable: 4, selector: { matchLabels: { app: 'web' } } } }, { namespace: NS });
    const mirrors = await eventually('4 ready mirrors', async () => {
      const m = await runningMirrors();
      return m.length === 4 && m;
    }, 90_000);
    await eventually('each cluster\'s budget observed with its share', async () => {
      for (const t of TARGETS) {
        const ns = ((await fleet.cluster(t).client.list(namespaces)).items as KubeObject[]).find((n) => locatorOf(n)?.namespace === NS)?.metadata?.name;
        if (!ns) return false;
        const pdb = await fleet.cluster(t).client.get(pdbs, 'web', { namespace: ns }).catch(() => undefined);
        const s = pdb?.status as { observedGeneration?: number; currentHealthy?: number } | undefined;
        if (!pdb || s?.observedGeneration !== pdb.metadata?.generation || s?.currentHealthy !== 2) return false;
      }
      return true;
    }, 60_000);
    const victim = mirrors[0]!;
    const refused = await evict(victim.metadata!.name!).then(
      () => assert.fail('evicted although the cluster\'s share allows no disruption'),
      (err: unknown) => err as StatusError,
    );
    assert.ok(refused instanceof StatusError, String(refused));
    assert.equal(refused.code, 429);
    assert.equal(refused.status.message, "Cannot evict pod as it would violate the pod's disruption budget.");
    assert.equal(refused.status.details?.causes?.[0]?.message, 'The disruption budget web needs 2 healthy pods and has 2 currently');

    // Room for one disruption per cluster: the eviction goes through on the pod's cluster.
    await fleet.up.patch(pdbs, 'web', 'merge', { spec: { minAvailable: 2 } }, { namespace: NS });
    await eventually('the eviction allowed', async () => {
      try {
        await evict(victim.metadata!.name!);
        return true;
      } catch (err) {
        if (err instanceof StatusError && err.code === 429) return false;
        throw err;
      }
    }, 60_000);
    await eventually('the mirror gone with its pod', async () => (await fleet.up.get(pods, victim.metadata!.name!, { namespace: NS }).then(() => false, (err: unknown) => err instanceof StatusError && err.code === 404)), 30_000);
    await eventually('4 ready mirrors again (the replacement)', async () => (await runningMirrors()).length === 4, 60_000);
  });

  it('a bare Pod synced from the workspace is evicted there, and its copy goes', async () => {
    await fleet.up.create(pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'solo', labels: { app: 'solo' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }, { namespace: NS });
    await eventually('solo running', async () => ((await fleet.up.get(pods, 'solo', { namespace: NS })).status as { phase?: string } | undefined)?.phase === 'Running', 60_000);
    const r = await evict('solo');
    assert.equal((r as { status?: string }).status, 'Success');
    await eventually('solo gone upstream and on its cluster', async () => {
      const upGone = await fleet.up.get(pods, 'solo', { namespace: NS }).then(() => false, (err: unknown) => err instanceof StatusError && err.code === 404);
      if (!upGone) return false;
      for (const t of TARGETS) {
        const copies = ((await fleet.cluster(t).client.list(pods, {})).items as KubeObject[]).filter((p) => p.metadata?.name === 'solo');
        if (copies.length > 0) return false;
      }
      return true;
    }, 30_000);
  });
});
