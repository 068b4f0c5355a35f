/**
 * `kubectl rollout history` and `kubectl rollout undo` of StatefulSets and DaemonSets in a workspace with compute, over
 * a fleet of two simulated clusters (in process, push mode) running their own StatefulSet and DaemonSet controllers.
 * The clusters make the ControllerRevisions; the syncer mirrors those of each synced object up
 * (src/multicluster/syncer/revision-mirror.ts) owned by the upstream object, so kubectl finds them; an undo patches
 * the upstream template, which goes down and the cluster rolls back. Mirrors are never synced down, and the garbage
 * collector removes them with their object.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runKubectl } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { fastScheduling, startFleet, type FleetClusterSpec, type InProcessFleet } from '../helpers/fleet.js';
import type { RestClient } from '../../src/client/rest-client.js';
import { locatorOf, syncTargetKey } from '../../src/multicluster/api/keys.js';
import { DOWNSTREAM_CLUSTER_LABEL } from '../../src/multicluster/api/types.js';
import { REVISION_MIRROR_LABEL } from '../../src/multicluster/api/kind-placement.js';
import type { KubeObject } from '../../src/apimachinery/object.js';

const gvr = (group: string, version: string, resource: string) => ({ group, version, resource });
type GVR = ReturnType<typeof gvr>;
const G = {
  ns: gvr('', 'v1', 'namespaces'),
  pods: gvr('', 'v1', 'pods'),
  sts: gvr('apps', 'v1', 'statefulsets'),
  ds: gvr('apps', 'v1', 'daemonsets'),
  cr: gvr('apps', 'v1', 'controllerrevisions'),
};
const CLUSTERS: FleetClusterSpec[] = [
  { name: 'st-a', nodes: 1 },
  { name: 'st-b', nodes: 1 },
];
const TARGETS = CLUSTERS.map((c) => c.name);
const NS = 'roll';

type Rev = KubeObject & { revision?: number; data?: unknown };
const controllerOf = (o: KubeObject) => (o.metadata?.ownerReferences as { uid?: string; controller?: boolean; kind?: string; name?: string; apiVersion?: string; blockOwnerDeletion?: boolean }[] | undefined)?.find((r) => r.controller);
const imageOf = (o: KubeObject | undefined) => (o?.spec as { containers?: { image: string }[] } | undefined)?.containers?.[0]?.image;
const templateImage = (o: KubeObject | undefined) => (o?.spec as { template?: { spec?: { containers?: { image: string }[] } } } | undefined)?.template?.spec?.containers?.[0]?.image;

describe('kubectl rollout history and undo of StatefulSets and DaemonSets placed on clusters', { timeout: 240_000 }, () => {
  let fleet: InProcessFleet;
  let up: RestClient;
  const scope = { namespace: NS };
  const k = (args: string[]) => runKubectl(fleet.kubeconfig, args);
  const keyOf = (t: string) => syncTargetKey('root', t);
  const down = (t: string) => fleet.cluster(t).client;
  const downNsNames = new Map<string, string>();
  const downNs = async (t: string) => {
    if (downNsNames.has(t)) return downNsNames.get(t);
    const ns = (await down(t).list(G.ns)).items.find((n) => locatorOf(n)?.namespace === NS && locatorOf(n)?.cluster === 'root');
    if (ns?.metadata?.name) downNsNames.set(t, ns.metadata.name);
    return ns?.metadata?.name;
  };
  const downGet = async (t: string, g: GVR, name: string) => {
    const ns = await downNs(t);
    return ns ? down(t).get(g, name, { namespace: ns }).catch(() => undefined) : undefined;
  };
  const downList = async (t: string, g: GVR) => {
    const ns = await downNs(t);
    return ns ? (await down(t).list(g, { namespace: ns })).items : [];
  };
  const placedOn = (o: KubeObject | undefined) => TARGETS.filter((t) => o?.metadata?.labels?.[`state.workload.kcp.io/${keyOf(t)}`] === 'Sync');
  /** Upstream revisions controlled by the object (what kubectl's controlledHistories keeps). */
  const mirrors = async (uid: string) => ((await up.list(G.cr, scope)).items as Rev[]).filter((r) => controllerOf(r)?.uid === uid);
  /** The images the pods of `name`'s copy run in cluster `t`. */
  const podImages = async (t: string, g: GVR, name: string) => {
    const copy = await downGet(t, g, name);
    if (!copy) return [];
    return (await downList(t, G.pods)).filter((p) => controllerOf(p)?.uid === copy.metadata?.uid && !p.metadata?.deletionTimestamp).map(imageOf);
  };
  const historyRevisions = (stdout: string) =>
    stdout
      .split('\n')
      .map((l) => /^\s*(\d+)\s/.exec(l)?.[1])
      .filter((x): x is string => !!x)
      .map(Number)
      .sort((a, b) => a - b);
  const rolloutStatus = async (what: string) => {
    const r = await k(['rollout', 'status', what, '-n', NS, '--timeout=90s']);
    assert.equal(r.code, 0, `${what}: ${r.stdout}\n${r.stderr}`);
  };

  before(async () => {
    fleet = await startFleet({ name: 'rollhist', clusters: CLUSTERS, multicluster: fastScheduling(), server: { builtinControllers: true }, bindCompute: true });
    up = fleet.up;
    await fleet.waitReady(undefined, { resources: ['statefulsets', 'daemonsets', 'pods'], timeoutMs: 60_000 });
    await up.create(G.ns, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    await eventually('roll placed on both clusters', async () => {
      const labels = (await up.get(G.ns, NS)).metadata?.labels ?? {};
      return TARGETS.every((t) => labels[`state.workload.kcp.io/${keyOf(t)}`] === 'Sync');
    });
  });

  after(async () => {
    await fleet?.stop();
  });

  const template = (app: string, image: string) => ({ metadata: { labels: { app } }, spec: { containers: [{ name: 'c', image }] } });

  it('a StatefulSet: history lists the cluster\'s revisions, undo brings the first image back on its cluster', async () => {
    await up.create(G.sts, { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'web' }, spec: { replicas: 2, serviceName: 'web', selector: { matchLabels: { app: 'web' } }, template: template('web', 'nginx:1.27') } }, scope);
    const sts = await eventually('web placed on one cluster', async () => {
      const o = await up.get(G.sts, 'web', scope);
      return placedOn(o).length === 1 && o;
    }, 60_000);
    const cluster = placedOn(sts)[0]!;
    const uid = sts.metadata!.uid!;
    await rolloutStatus('statefulset/web');
    await eventually('web\'s first revision mirrored', async () => (await mirrors(uid)).length === 1, 30_000);

    let r = await k(['set', 'image', 'statefulset/web', 'c=nginx:1.28', '-n', NS]);
    assert.equal(r.code, 0, r.stderr);
    await eventually(`web's pods run nginx:1.28 in ${cluster}`, async () => {
      const images = await podImages(cluster, G.sts, 'web');
      return images.length === 2 && images.every((i) => i === 'nginx:1.28');
    }, 90_000);
    await rolloutStatus('statefulset/web');
    const two = await eventually('web\'s two revisions mirrored', async () => {
      const m = await mirrors(uid);
      return m.length === 2 && m;
    }, 30_000);
    // Each mirror is the cluster's revision, owned by the upstream object.
    const copy = (await downGet(cluster, G.sts, 'web'))!;
    const downRevs = ((await downList(cluster, G.cr)) as Rev[]).filter((x) => controllerOf(x)?.uid === copy.metadata?.uid);
    assert.deepEqual(two.map((m) => [m.metadata?.name, m.revision]).sort(), downRevs.map((d) => [d.metadata?.name, d.revision]).sort());
    for (const m of two) {
      const d = downRevs.find((x) => x.metadata?.name === m.metadata?.name)!;
      assert.deepEqual(m.data, d.data);
      assert.equal(m.metadata?.labels?.[REVISION_MIRROR_LABEL], 'true');
      assert.equal(m.metadata?.labels?.app, 'web');
      assert.equal(m.metadata?.labels?.[DOWNSTREAM_CLUSTER_LABEL], undefined);
      assert.deepEqual(controllerOf(m), { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid, controller: true, blockOwnerDeletion: true });
    }

    r = await k(['rollout', 'history', 'statefulset/web', '-n', NS]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(historyRevisions(r.stdout), [1, 2], r.stdout);

    r = await k(['rollout', 'undo', 'statefulset/web', '-n', NS]);
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /rolled back/);
    assert.equal(templateImage(await up.get(G.sts, 'web', scope)), 'nginx:1.27', 'kubectl patched the upstream template');
    await eventually(`web's pods run nginx:1.27 again in ${cluster}`, async () => {
      const images = await podImages(cluster, G.sts, 'web');
      return images.length === 2 && images.every((i) => i === 'nginx:1.27');
    }, 90_000);
    await rolloutStatus('statefulset/web');
    // The first template's revision is reused, renumbered 3 upstream as on the cluster.
    await eventually('the reused revision renumbered upstream', async () => {
      const m = await mirrors(uid);
      return m.length === 2 && m.map((x) => x.revision).sort().join() === '2,3';
    }, 30_000);
    r = await k(['rollout', 'history', 'statefulset/web', '-n', NS]);
    assert.deepEqual(historyRevisions(r.stdout), [2, 3], r.stdout);
  });

  it('a DaemonSet: one history for both clusters, undo rolls both back', async () => {
    await up.create(G.ds, { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'agent' }, spec: { selector: { matchLabels: { app: 'agent' } }, template: template('agent', 'nginx:1.27') } }, scope);
    const uid = (await up.get(G.ds, 'agent', scope)).metadata!.uid!;
    await eventually('agent on both clusters', async () => (await Promise.all(TARGETS.map((t) => downGet(t, G.ds, 'agent')))).every(Boolean), 60_000);
    await rolloutStatus('daemonset/agent');
    let r = await k(['set', 'image', 'daemonset/agent', 'c=nginx:1.28', '-n', NS]);
    assert.equal(r.code, 0, r.stderr);
    await eventually('agent runs nginx:1.28 on both clusters', async () => {
      for (const t of TARGETS) {
        const images = await podImages(t, G.ds, 'agent');
        if (images.length !== 1 || images[0] !== 'nginx:1.28') return false;
      }
      return true;
    }, 90_000);
    await rolloutStatus('daemonset/agent');
    const two = await eventually('agent\'s two revisions mirrored, each once', async () => {
      const m = await mirrors(uid);
      return m.length === 2 && m;
    }, 30_000);
    // The same revisions on both clusters.
    for (const t of TARGETS) {
      const copy = (await downGet(t, G.ds, 'agent'))!;
      const names = ((await downList(t, G.cr)) as Rev[]).filter((x) => controllerOf(x)?.uid === copy.metadata?.uid).map((x) => x.metadata?.name).sort();
      assert.deepEqual(names, two.map((m) => m.metadata?.name).sort(), t);
    }
    r = await k(['rollout', 'history', 'daemonset/agent', '-n', NS]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(historyRevisions(r.stdout), [1, 2], r.stdout);

    r = await k(['rollout', 'undo', 'daemonset/agent', '-n', NS]);
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    await eventually('agent runs nginx:1.27 again on both clusters', async () => {
      for (const t of TARGETS) {
        const images = await podImages(t, G.ds, 'agent');
        if (images.length !== 1 || images[0] !== 'nginx:1.27') return false;
      }
      return true;
    }, 90_000);
    await rolloutStatus('daemonset/agent');
    await eventually('agent\'s history renumbered', async () => (await mirrors(uid)).map((x) => x.revision).sort().join() === '2,3', 30_000);
  });

  it('no mirror is synced down; deleting the StatefulSet removes its mirrors', async () => {
    for (const t of TARGETS) {
      const revs = await downList(t, G.cr);
      assert.deepEqual(revs.filter((x) => x.metadata?.labels?.[REVISION_MIRROR_LABEL] !== undefined || x.metadata?.labels?.[DOWNSTREAM_CLUSTER_LABEL] !== undefined).map((x) => x.metadata?.name), [], t);
    }
    const uid = (await up.get(G.sts, 'web', scope)).metadata!.uid!;
    assert.equal((await mirrors(uid)).length, 2);
    await up.delete(G.sts, 'web', scope);
    await eventually('web\'s mirrored revisions gone upstream', async () => (await mirrors(uid)).length === 0, 60_000);
    // The DaemonSet's stay.
    const ds = await up.get(G.ds, 'agent', scope);
    assert.equal((await mirrors(ds.metadata!.uid!)).length, 2);
  });
});
