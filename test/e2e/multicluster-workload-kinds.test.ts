/**
 * Every workload kind placed on the clusters of a Placement, with its status back upstream, over a fleet of two
 * simulated clusters (in process, push mode; st-a with two nodes, st-b with one) and the default Placement (spread
 * All), checked with the real kubectl where a user would use it. The clusters run their own controllers (StatefulSet,
 * DaemonSet, Job, CronJob, volume provisioning, endpoints, load balancers, ingress): what comes up is what they did.
 *
 * - a StatefulSet goes whole to one cluster (recorded as its state label, kept on later changes), with the ConfigMap
 *   it mounts (a ConfigMap nothing uses goes nowhere); the cluster's StatefulSet controller creates the claims of its
 *   volumeClaimTemplates there (they are not synced from upstream) and its provisioner binds them; the status comes up
 *   and `kubectl rollout status` works;
 * - a DaemonSet runs on every node of both clusters and its status is summed, observedGeneration only once both
 *   observed it;
 * - a Job goes to one cluster without the control plane's generated selector (the cluster generates its own), the
 *   PVC it mounts follows it (bound to the cluster's volume, its volumeName mirrored up), it runs to completion there
 *   and `kubectl wait --for=condition=complete` works upstream; a finished Job is not run again when its copy goes
 *   (and goes upstream too once the cluster's TTL controller deleted it);
 * - a CronJob (the clusters' CronJob clock sped up) goes to one cluster, which creates its Jobs; its active Jobs are
 *   named in the upstream namespace;
 * - a Service selecting the split Deployment goes to both clusters, one selecting the StatefulSet (and a NetworkPolicy)
 *   only to its cluster; the clusters' Endpoints stay theirs; LoadBalancer and Ingress addresses are the union of
 *   both clusters' (each from its own address pool);
 * - a PodDisruptionBudget's minAvailable is apportioned over the clusters and its status summed;
 * - an HPA upstream scales the split Deployment from the metrics both clusters' observe-only copies measure (the
 *   pods' simulated CPU usage);
 * - an object no cluster can take gets Scheduled=False (NoClusters, Incompatible) and a Warning Event.
 * */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runKubectl } from '../helpers/harness.js';
import { eventually, type Probe } from '../helpers/eventually.js';
import { fastScheduling, startFleet, type FleetClusterSpec, type InProcessFleet } from '../helpers/fleet.js';
import type { RestClient } from '../../src/client/rest-client.js';
import { locatorOf, syncTargetKey } from '../../src/multicluster/api/keys.js';
import { defaultSyncedResources, DOWNSTREAM_CLUSTER_LABEL, SPEC_HASH_ANNOTATION } from '../../src/multicluster/api/types.js';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { MIRROR_CLUSTER_LABEL, MIRROR_LABEL } from '../../src/multicluster/api/mirrors.js';

const gvr = (group: string, version: string, resource: string) => ({ group, version, resource });
type GVR = ReturnType<typeof gvr>;
const G = {
  ns: gvr('', 'v1', 'namespaces'),
  cm: gvr('', 'v1', 'configmaps'),
  secret: gvr('', 'v1', 'secrets'),
  svc: gvr('', 'v1', 'services'),
  pvc: gvr('', 'v1', 'persistentvolumeclaims'),
  pods: gvr('', 'v1', 'pods'),
  endpoints: gvr('', 'v1', 'endpoints'),
  slices: gvr('discovery.k8s.io', 'v1', 'endpointslices'),
  events: gvr('', 'v1', 'events'),
  deploy: gvr('apps', 'v1', 'deployments'),
  sts: gvr('apps', 'v1', 'statefulsets'),
  ds: gvr('apps', 'v1', 'daemonsets'),
  job: gvr('batch', 'v1', 'jobs'),
  cron: gvr('batch', 'v1', 'cronjobs'),
  ing: gvr('networking.k8s.io', 'v1', 'ingresses'),
  netpol: gvr('networking.k8s.io', 'v1', 'networkpolicies'),
  pdb: gvr('policy', 'v1', 'poddisruptionbudgets'),
  hpa: gvr('autoscaling', 'v2', 'horizontalpodautoscalers'),
  st: gvr('workload.kcp.io', 'v1alpha1', 'synctargets'),
  placement: gvr('scheduling.kcp.io', 'v1alpha1', 'placements'),
};
/**
 * The clusters: unequal node counts (a DaemonSet's desired count is theirs summed), Job pods that run 1.5 s, and a
 * CronJob clock 60 times faster than real time (`* * * * *` fires every second).
 */
const CLUSTERS: FleetClusterSpec[] = [
  { name: 'st-a', nodes: 2, jobDurationMs: 1500, cronJobTimeScale: 60 },
  { name: 'st-b', nodes: 1, jobDurationMs: 1500, cronJobTimeScale: 60 },
];
const TARGETS = CLUSTERS.map((c) => c.name);
const NS = 'shop';
const SCHEDULED = 'scheduling.atrium.io/scheduled';

const podSpec = (extra: Record<string, unknown> = {}) => ({ containers: [{ name: 'c', image: 'nginx:1.27' }], ...extra });
const template = (app: string, extra: Record<string, unknown> = {}) => ({ metadata: { labels: { app } }, spec: podSpec(extra) });
const conditionTrue = (o: KubeObject | undefined, type: string) => ((o?.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some((c) => c.type === type && c.status === 'True');
const controllerOf = (o: KubeObject) => o.metadata?.ownerReferences?.find((r) => r.controller);

describe('every workload kind placed on the clusters, its status back upstream', { timeout: 300_000 }, () => {
  let fleet: InProcessFleet;
  let up: RestClient;
  const scope = { namespace: NS };
  const k = (args: string[]) => runKubectl(fleet.kubeconfig, args);
  const keyOf = (t: string) => syncTargetKey('root', t);
  const down = (t: string) => fleet.cluster(t).client;

  /** The downstream namespace of `shop` in cluster `t`. */
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
  /** The clusters holding a copy of `name`. */
  const where = async (g: GVR, name: string) => {
    const out: string[] = [];
    for (const t of TARGETS) if (await downGet(t, g, name)) out.push(t);
    return out;
  };
  /** The clusters an upstream object's own state labels name. */
  const placedOn = (o: KubeObject | undefined) => TARGETS.filter((t) => o?.metadata?.labels?.[`state.workload.kcp.io/${keyOf(t)}`] === 'Sync');
  const scheduled = (o: KubeObject | undefined) => JSON.parse(o?.metadata?.annotations?.[SCHEDULED] ?? 'null') as { status: string; reason: string; message: string } | null;
  const nodesOf = (t: string) => fleet.cluster(t).pcluster!.nodeNames.length;
  const settle = (ms = 1500) => new Promise((r) => setTimeout(r, ms));

  // --- Failure messages: the objects involved, upstream and in every cluster, and the Events around them.
  const brief = (o: KubeObject | undefined) => {
    if (!o) return 'absent';
    const { managedFields: _mf, ...metadata } = o.metadata ?? {};
    void _mf;
    return JSON.stringify({ metadata, spec: o.spec, status: o.status });
  };
  const eventLines = (items: KubeObject[]) =>
    items
      .map((e) => e as KubeObject & { type?: string; reason?: string; message?: string; involvedObject?: { kind?: string; name?: string }; lastTimestamp?: string })
      .slice(-25)
      .map((e) => `  ${e.lastTimestamp ?? ''} ${e.type} ${e.reason} ${e.involvedObject?.kind}/${e.involvedObject?.name}: ${e.message}`)
      .join('\n');
  /** `about`: [resource, name] pairs (name '*': every object of the namespace) to print upstream and downstream. */
  const describeState = async (about: [GVR, string][]) => {
    const out: string[] = [];
    for (const [g, name] of about) {
      if (name === '*') {
        out.push(`--- ${g.resource} upstream: ${(await up.list(g, scope).catch(() => ({ items: [] }))).items.map(brief).join('\n    ') || 'none'}`);
        for (const t of TARGETS) out.push(`--- ${g.resource} in ${t}: ${(await downList(t, g).catch(() => [])).map(brief).join('\n    ') || 'none'}`);
        continue;
      }
      out.push(`--- ${g.resource}/${name} upstream: ${brief(await up.get(g, name, scope).catch(() => undefined))}`);
      for (const t of TARGETS) out.push(`--- ${g.resource}/${name} in ${t}: ${brief(await downGet(t, g, name))}`);
    }
    out.push(`--- Events upstream in ${NS}:\n${eventLines((await up.list(G.events, scope).catch(() => ({ items: [] }))).items)}`);
    for (const t of TARGETS) out.push(`--- Events in ${t} (${await downNs(t)}):\n${eventLines(await downList(t, G.events).catch(() => []))}`);
    return out.join('\n');
  };
  /** eventually(), whose failure message goes on with the state of the objects in `about`. */
  const waitFor = async <T,>(what: string, probe: Probe<T>, about: [GVR, string][], timeoutMs = 60_000): Promise<T> => {
    try {
      return await eventually(what, probe, timeoutMs);
    } catch (err) {
      const state = await describeState(about).catch((e: Error) => `(could not describe the state: ${e.message})`);
      throw new Error(`${(err as Error).message}\n${state}`, { cause: err });
    }
  };
  /** An assertion whose failure message goes on with the state of the objects in `about`. */
  const check = async (ok: boolean, message: string, about: [GVR, string][]) => {
    if (!ok) assert.fail(`${message}\n${await describeState(about)}`);
  };

  before(async () => {
    fleet = await startFleet({ name: 'kinds', clusters: CLUSTERS, multicluster: { ...fastScheduling(), placement: { hpaSyncMs: 500 } }, server: { builtinControllers: true }, bindCompute: true });
    up = fleet.up;
    await fleet.waitReady(undefined, { resources: ['deployments', 'statefulsets', 'daemonsets', 'jobs', 'cronjobs', 'services', 'configmaps', 'persistentvolumeclaims', 'ingresses', 'networkpolicies', 'poddisruptionbudgets', 'horizontalpodautoscalers'], timeoutMs: 60_000 });
    await up.create(G.ns, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    await eventually('shop placed on both clusters', async () => {
      const labels = (await up.get(G.ns, NS)).metadata?.labels ?? {};
      return TARGETS.every((t) => labels[`state.workload.kcp.io/${keyOf(t)}`] === 'Sync');
    });
  });

  after(async () => {
    await fleet?.stop();
  });

  let dbCluster = '';

  it('a StatefulSet goes whole to one cluster with the ConfigMap it mounts (and one no pod names: read through the API); the cluster creates and binds its claims; its status comes up and kubectl rollout status works', async () => {
    await up.create(G.cm, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'db-config' }, data: { mode: 'primary' } }, scope);
    await up.create(G.cm, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'unreferenced' }, data: { a: '1' } }, scope);
    const unusedSecret: KubeObject = await up.create(G.secret, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'unused' }, stringData: { token: 'x' } }, scope);
    await up.create(
      G.sts,
      {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        metadata: { name: 'db' },
        spec: {
          replicas: 2,
          serviceName: 'db',
          selector: { matchLabels: { app: 'db' } },
          template: template('db', { volumes: [{ name: 'cfg', configMap: { name: 'db-config' } }] }),
          volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
        },
      },
      scope,
    );
    const about: [GVR, string][] = [[G.sts, 'db'], [G.cm, 'db-config'], [G.pvc, '*'], [G.pods, '*']];
    const sts = await waitFor('db placed on one cluster', async () => {
      const o = await up.get(G.sts, 'db', scope);
      return placedOn(o).length === 1 && scheduled(o)?.status === 'True' && o;
    }, about);
    dbCluster = placedOn(sts)[0]!;
    await waitFor(`db only in ${dbCluster}`, async () => (await where(G.sts, 'db')).join() === dbCluster, about);
    await waitFor(`db-config only in ${dbCluster}`, async () => (await where(G.cm, 'db-config')).join() === dbCluster, about);

    // The cluster's StatefulSet controller creates the claims of volumeClaimTemplates (data-db-<ordinal>) and its
    // provisioner binds them to volumes of its own: they are the cluster's objects, not copies of upstream ones.
    const claims = ['data-db-0', 'data-db-1'];
    const bound = await waitFor(`${claims.join(', ')} Bound in ${dbCluster}`, async () => {
      const got = await Promise.all(claims.map((c) => downGet(dbCluster, G.pvc, c)));
      return got.every((c) => (c?.status as { phase?: string } | undefined)?.phase === 'Bound') && (got as KubeObject[]);
    }, about);
    for (const c of bound) {
      assert.equal(c.metadata?.labels?.[DOWNSTREAM_CLUSTER_LABEL], undefined, `${c.metadata?.name} is not a synced copy`);
      assert.equal(c.metadata?.annotations?.[SPEC_HASH_ANNOTATION], undefined, `${c.metadata?.name} is not a synced copy`);
      assert.match(String((c.spec as { volumeName?: string }).volumeName), /^pvc-/, `${c.metadata?.name} bound to a provisioned volume`);
    }
    // Upstream they are read-only mirrors of the cluster's claims (issue #14), never copies synced down again.
    const upClaims = await waitFor('the claims mirrored up, Bound', async () => {
      const got = (await up.list(G.pvc, scope)).items.filter((c) => c.metadata?.name?.startsWith('data-db-'));
      return got.length === 2 && got.every((c) => (c.status as { phase?: string } | undefined)?.phase === 'Bound') && got;
    }, about);
    for (const c of upClaims) {
      assert.equal(c.metadata?.labels?.[MIRROR_LABEL], 'true', `${c.metadata?.name} upstream is a mirror`);
      assert.equal(c.metadata?.labels?.[MIRROR_CLUSTER_LABEL], dbCluster, `${c.metadata?.name} names its cluster`);
    }
    for (const c of claims) assert.deepEqual(await where(G.pvc, c), [dbCluster], `${c} only where db runs`);

    await settle();
    // A ConfigMap no pod template names may be read by name through the API: it goes where the namespace's workloads
    // run (db alone so far). A Secret no pod names goes nowhere: credentials are not spread by guess.
    await waitFor(`unreferenced ConfigMap in ${dbCluster}`, async () => (await where(G.cm, 'unreferenced')).join() === dbCluster, about);
    assert.deepEqual(await where(G.secret, 'unused'), [], 'a Secret no workload uses goes nowhere');
    // Nothing writes it either (no Scheduled mark: an update with the object its create returned still succeeds).
    const unusedNow = await up.get(G.secret, 'unused', scope);
    assert.ok(!scheduled(unusedNow), 'a Secret nothing uses carries no mark');
    assert.equal(unusedNow.metadata?.resourceVersion, unusedSecret.metadata?.resourceVersion, 'nothing wrote the Secret nothing uses');
    assert.deepEqual(await where(G.sts, 'db'), [dbCluster]);
    for (const c of claims) await check((await downGet(dbCluster, G.pvc, c)) !== undefined, `${c} left alone by the syncer`, about);

    // The cluster's controller reports both replicas Ready; that comes up with the upstream generation.
    const status = await waitFor('db status up: 2 ready, observed', async () => {
      const o = await up.get(G.sts, 'db', scope);
      const s = o.status as { readyReplicas?: number; observedGeneration?: number } | undefined;
      return s?.readyReplicas === 2 && s.observedGeneration === o.metadata?.generation && s;
    }, about);
    const downStatus = (await downGet(dbCluster, G.sts, 'db'))!.status as { currentRevision?: string; updateRevision?: string };
    const upStatus = status as { currentRevision?: string; updateRevision?: string; currentReplicas?: number; updatedReplicas?: number };
    assert.match(String(upStatus.currentRevision), /^db-/, 'the revision the cluster\'s controller made');
    assert.equal(upStatus.currentRevision, downStatus.currentRevision);
    assert.equal(upStatus.updateRevision, downStatus.updateRevision);
    assert.equal(upStatus.updatedReplicas, 2);
    const r = await k(['rollout', 'status', 'statefulset/db', '-n', NS, '--timeout=60s']);
    assert.equal(r.code, 0, `${r.stderr}\n${await describeState(about)}`);
    assert.match(r.stdout, /partitioned roll out complete|roll out complete|rolling update complete/);

    // Sticky: a change of the StatefulSet does not move it; the cluster makes the third pod and its claim.
    await up.patch(G.sts, 'db', 'merge', { spec: { replicas: 3 } }, scope);
    await waitFor('the cluster copy scaled to 3', async () => ((await downGet(dbCluster, G.sts, 'db'))?.spec as { replicas?: number } | undefined)?.replicas === 3, about);
    await waitFor(`data-db-2 Bound in ${dbCluster}`, async () => ((await downGet(dbCluster, G.pvc, 'data-db-2'))?.status as { phase?: string } | undefined)?.phase === 'Bound', about);
    await waitFor('db status up: 3 ready, observed', async () => {
      const o = await up.get(G.sts, 'db', scope);
      const s = o.status as { readyReplicas?: number; observedGeneration?: number } | undefined;
      return s?.readyReplicas === 3 && s.observedGeneration === o.metadata?.generation;
    }, about);
    assert.deepEqual(placedOn(await up.get(G.sts, 'db', scope)), [dbCluster]);
    assert.deepEqual(await where(G.sts, 'db'), [dbCluster]);
  });

  it('a DaemonSet runs on both clusters; its status is summed, observedGeneration once both observed it', async () => {
    const about: [GVR, string][] = [[G.ds, 'agent'], [G.pods, '*']];
    const nodes = TARGETS.map(nodesOf);
    const total = nodes.reduce((a, b) => a + b, 0);
    // While the clusters roll it out, an upstream status that claims the current generation must be backed by both
    // clusters having observed their copy's current generation (a copy's observedGeneration only moves forward, so
    // reading the copies after the upstream object can only see more, as long as the spec did not change meanwhile).
    // Sampled in the background throughout. The real clusters observe within milliseconds of each other, so this
    // catches a premature observedGeneration only when it lasts; the rule itself, with a cluster behind, has its
    // table test (test/unit/multicluster/aggregate-kind-status.test.ts).
    const violations: string[] = [];
    let samples = 0;
    // A copy whose hold was just flipped (decisions/staged-rollout.ts: its updateStrategy alone changes, the upstream
    // generation does not) is not yet observed on its cluster for a moment, while what the upstream generation asks
    // (its template) is: such a copy is left out of a sample for a while.
    const strategyOf = (c: KubeObject | undefined) => (c?.spec as { updateStrategy?: { type?: string } } | undefined)?.updateStrategy?.type;
    const lastStrategy = new Map<string, { type: string | undefined; changedAt: number }>();
    const flipped = (t: string, copy: KubeObject | undefined) => {
      const seen = lastStrategy.get(t);
      const type = strategyOf(copy);
      if (!seen || seen.type !== type) lastStrategy.set(t, { type, changedAt: seen ? Date.now() : 0 });
      return Date.now() - (lastStrategy.get(t)!.changedAt) < 2000;
    };
    const observe = async () => {
      const o = await up.get(G.ds, 'agent', scope).catch(() => undefined);
      const s = o?.status as { observedGeneration?: number } | undefined;
      if (!o || s?.observedGeneration === undefined || s.observedGeneration < o.metadata!.generation!) return;
      const copies = await Promise.all(TARGETS.map((t) => downGet(t, G.ds, 'agent')));
      // A sample spanning a spec change (the copies may already hold the next generation) tells nothing.
      if ((await up.get(G.ds, 'agent', scope)).metadata?.generation !== o.metadata!.generation) return;
      samples++;
      for (const [i, t] of TARGETS.entries()) {
        const copy = copies[i];
        if (flipped(t, copy)) continue;
        const observed = (copy?.status as { observedGeneration?: number } | undefined)?.observedGeneration;
        if (!copy || observed === undefined || observed < copy.metadata!.generation!) violations.push(`upstream generation ${o.metadata!.generation} shown observed (${JSON.stringify(s)}) while ${t} had observed ${observed} of ${copy?.metadata?.generation}`);
      }
    };
    /** Runs `f` while sampling. */
    const sampled = async <T,>(f: () => Promise<T>): Promise<T> => {
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          await observe().catch(() => undefined);
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      try {
        return await f();
      } finally {
        sampling = false;
        await sampler;
      }
    };
    const settled = (image: string) => async () => {
      const o = await up.get(G.ds, 'agent', scope);
      const st = o.status as Record<string, number> | undefined;
      const copies = await Promise.all(TARGETS.map((t) => downGet(t, G.ds, 'agent')));
      const rolled = copies.every((c) => (c?.spec as { template: { spec: { containers: { image: string }[] } } } | undefined)?.template.spec.containers[0]!.image === image);
      return rolled && st?.numberReady === total && st.updatedNumberScheduled === total && st.observedGeneration === o.metadata?.generation && st;
    };

    const s = await sampled(async () => {
      await up.create(G.ds, { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'agent' }, spec: { selector: { matchLabels: { app: 'agent' } }, template: template('agent') } }, scope);
      await waitFor('agent on both clusters', async () => (await where(G.ds, 'agent')).join() === TARGETS.join(), about);
      return waitFor(`agent ready on all ${total} nodes, observed`, settled('nginx:1.27'), about);
    });
    // numberUnavailable is omitempty in Go: at 0 it is not written, as kube-apiserver answers.
    assert.deepEqual({ ...s, observedGeneration: 0 }, { observedGeneration: 0, desiredNumberScheduled: total, currentNumberScheduled: total, numberReady: total, updatedNumberScheduled: total, numberAvailable: total, numberMisscheduled: 0 });
    // Each cluster ran one pod per node of its own.
    for (const [i, t] of TARGETS.entries()) {
      const copy = (await downGet(t, G.ds, 'agent'))!;
      assert.equal((copy.status as { desiredNumberScheduled?: number }).desiredNumberScheduled, nodes[i], `${t} has ${nodes[i]} nodes`);
      const pods = (await downList(t, G.pods)).filter((p) => controllerOf(p)?.uid === copy.metadata?.uid);
      assert.deepEqual(pods.map((p) => (p.spec as { nodeName?: string }).nodeName).sort(), fleet.cluster(t).pcluster!.nodeNames, `${t}: a pod per node`);
    }
    let r = await k(['rollout', 'status', 'daemonset/agent', '-n', NS, '--timeout=60s']);
    assert.equal(r.code, 0, `${r.stderr}\n${await describeState(about)}`);

    // A new generation: observed upstream only once both clusters rolled it out and observed it.
    // One cluster at a time (decisions/staged-rollout.ts): the second cluster's pods are not replaced before the first
    // one's all are (whichever was released first).
    const before = (await up.get(G.ds, 'agent', scope)).metadata!.generation!;
    const overlaps: string[] = [];
    let first: number | undefined;
    let rolling = true;
    const order = (async () => {
      while (rolling) {
        const [a, b] = await Promise.all(TARGETS.map((t) => downGet(t, G.ds, 'agent').catch(() => undefined)));
        const updatedPods = async (t: string, copy: KubeObject | undefined) => {
          const pods = copy ? (await downList(t, G.pods)).filter((p) => controllerOf(p)?.uid === copy.metadata?.uid && !p.metadata?.deletionTimestamp) : [];
          return pods.filter((p) => (p.spec as { containers: { image: string }[] }).containers[0]!.image === 'nginx:1.28').length;
        };
        const updated = [await updatedPods(TARGETS[0]!, a), await updatedPods(TARGETS[1]!, b)];
        first ??= updated[0]! > 0 ? 0 : updated[1]! > 0 ? 1 : undefined;
        if (first !== undefined) {
          const second = 1 - first;
          if (updated[second]! > 0 && updated[first]! < nodes[first]!) overlaps.push(`${TARGETS[second]} had ${updated[second]} pod(s) of the new template while ${TARGETS[first]} had ${updated[first]} of ${nodes[first]}`);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const s2 = await sampled(async () => {
      await up.patch(G.ds, 'agent', 'merge', { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:1.28' }] } } } }, scope);
      return waitFor(`agent rolled out to nginx:1.28 on all ${total} nodes, observed`, settled('nginx:1.28'), about);
    }).finally(() => (rolling = false));
    await order;
    assert.deepEqual(overlaps, [], 'the clusters rolled one after the other');
    // Every copy but one is held (OnDelete); the DaemonSet's own strategy is upstream's.
    const strategies = await Promise.all(TARGETS.map(async (t) => ((await downGet(t, G.ds, 'agent'))!.spec as { updateStrategy?: { type?: string } }).updateStrategy?.type));
    assert.deepEqual([...strategies].sort(), ['OnDelete', 'RollingUpdate']);
    assert.equal(((await up.get(G.ds, 'agent', scope)).spec as { updateStrategy?: { type?: string } }).updateStrategy?.type, 'RollingUpdate');
    assert.equal(s2.observedGeneration, before + 1);
    assert.equal(s2.desiredNumberScheduled, total);
    assert.deepEqual(violations, [], `observedGeneration shown upstream before both clusters observed it (${samples} samples)`);
    r = await k(['rollout', 'status', 'daemonset/agent', '-n', NS, '--timeout=60s']);
    assert.equal(r.code, 0, `${r.stderr}\n${await describeState(about)}`);
    assert.match(r.stdout, /daemon set "agent" successfully rolled out/);
  });

  it('a Job goes to one cluster without the control plane\'s selector, its PVC follows it, it runs to completion there, and kubectl wait --for=condition=complete works upstream', async () => {
    const about: [GVR, string][] = [[G.job, 'pi'], [G.pvc, 'scratch'], [G.pods, '*']];
    await up.create(G.pvc, { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'scratch' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }, scope);
    const job: KubeObject = await up.create<KubeObject>(
      G.job,
      { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'pi' }, spec: { template: { spec: podSpec({ restartPolicy: 'Never', volumes: [{ name: 'scratch', persistentVolumeClaim: { claimName: 'scratch' } }] }) } } },
      scope,
    );
    const upUid = job.metadata!.uid!;
    const placed = await waitFor('pi placed on one cluster', async () => {
      const o = await up.get(G.job, 'pi', scope);
      return placedOn(o).length === 1 && placedOn(o)[0];
    }, about);
    const copy = await waitFor(`pi in ${placed}`, () => downGet(placed, G.job, 'pi'), about);
    const selector = (copy.spec as { selector?: { matchLabels?: Record<string, string> } }).selector?.matchLabels ?? {};
    assert.equal(selector['batch.kubernetes.io/controller-uid'], copy.metadata?.uid, 'the cluster generated its own selector');
    assert.notEqual(copy.metadata?.uid, upUid);
    const labels = (copy.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
    assert.equal(labels['controller-uid'], copy.metadata?.uid);
    assert.equal(Object.values(labels).includes(upUid), false, 'no label carries the upstream uid');
    assert.deepEqual(await where(G.job, 'pi'), [placed]);

    // The PVC it mounts follows it; the cluster binds it to a volume of its own once the Job's pod is scheduled
    // (WaitForFirstConsumer), and the volume name is mirrored up.
    await waitFor(`scratch in ${placed} only`, async () => (await where(G.pvc, 'scratch')).join() === placed, about);
    const claim = await waitFor(`scratch Bound in ${placed}`, async () => {
      const c = await downGet(placed, G.pvc, 'scratch');
      return (c?.status as { phase?: string } | undefined)?.phase === 'Bound' && c;
    }, about);
    const volumeName = (claim.spec as { volumeName?: string }).volumeName;
    assert.match(String(volumeName), /^pvc-/, 'a volume the cluster provisioned');
    await waitFor('scratch Bound upstream, volumeName mirrored', async () => {
      const o = await up.get(G.pvc, 'scratch', scope);
      return (o.status as { phase?: string } | undefined)?.phase === 'Bound' && (o.spec as { volumeName?: string }).volumeName === volumeName;
    }, about);

    // The cluster's Job controller runs its pod to completion (1.5 s); upstream sees it complete.
    const r = await k(['wait', '--for=condition=complete', 'job/pi', '-n', NS, '--timeout=60s']);
    assert.equal(r.code, 0, `${r.stderr}\n${await describeState(about)}`);
    assert.match(r.stdout, /job.batch\/pi condition met/);
    const downJob = await waitFor(`pi complete in ${placed}`, async () => {
      const c = await downGet(placed, G.job, 'pi');
      return conditionTrue(c, 'Complete') && c;
    }, about);
    const st = (await up.get(G.job, 'pi', scope)).status as { succeeded?: number; completionTime?: string; startTime?: string };
    assert.equal(st.succeeded, 1);
    assert.ok(st.completionTime, 'a completion time');
    assert.equal(st.completionTime, (downJob.status as { completionTime?: string }).completionTime, 'the cluster\'s completion time');
    const ns = (await downNs(placed))!;
    const pods = (await downList(placed, G.pods)).filter((p) => controllerOf(p)?.uid === downJob.metadata?.uid);
    assert.deepEqual(pods.map((p) => (p.status as { phase?: string }).phase), ['Succeeded'], 'one pod, run to completion in the cluster');

    // A finished Job is never run again because its copy is gone (the cluster's pod and job clean-up) ...
    await down(placed).delete(G.job, 'pi', { namespace: ns });
    await waitFor('the copy gone', async () => (await downGet(placed, G.job, 'pi')) === undefined, about);
    await settle();
    assert.equal(await downGet(placed, G.job, 'pi'), undefined, 'not recreated');
    assert.equal((await up.get(G.job, 'pi', scope)).metadata?.deletionTimestamp, undefined, 'still there upstream');

    // ... and one with ttlSecondsAfterFinished goes upstream too once the cluster's TTL-after-finished controller
    // deleted it.
    const aboutShort: [GVR, string][] = [[G.job, 'short'], [G.pods, '*']];
    await up.create(G.job, { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'short' }, spec: { ttlSecondsAfterFinished: 3, template: { spec: podSpec({ restartPolicy: 'Never' }) } } }, scope);
    const shortAt = await waitFor('short placed and synced', async () => {
      const t = placedOn(await up.get(G.job, 'short', scope))[0];
      return t !== undefined && (await downGet(t, G.job, 'short')) !== undefined && t;
    }, aboutShort);
    let completeUpstream = false;
    await waitFor('short Complete upstream, then gone upstream as well', async () => {
      const o = await up.get(G.job, 'short', scope).catch((e: { code?: number }) => e.code);
      if (typeof o === 'object') completeUpstream ||= (o.status as { succeeded?: number } | undefined)?.succeeded === 1 && conditionTrue(o, 'Complete');
      return o === 404;
    }, aboutShort);
    assert.ok(completeUpstream, 'short was seen Complete upstream before it went');
    assert.equal(await downGet(shortAt, G.job, 'short'), undefined, 'not run again');
  });

  it('a CronJob goes to one cluster, which creates its Jobs; its active Jobs are named in the upstream namespace', async () => {
    const about: [GVR, string][] = [[G.cron, 'tick'], [G.job, '*']];
    // `* * * * *` fires every second on the clusters' sped-up clock; each Job's pod runs for a long while and the
    // CronJob forbids concurrent runs, so its first Job stays the one active Job.
    await up.create(
      G.cron,
      {
        apiVersion: 'batch/v1',
        kind: 'CronJob',
        metadata: { name: 'tick' },
        spec: { schedule: '* * * * *', concurrencyPolicy: 'Forbid', jobTemplate: { spec: { template: { metadata: { annotations: { 'sim.atrium.io/run-seconds': '600' } }, spec: podSpec({ restartPolicy: 'OnFailure' }) } } } },
      },
      scope,
    );
    const placed = await waitFor('tick placed on one cluster', async () => {
      const o = await up.get(G.cron, 'tick', scope);
      return placedOn(o).length === 1 && placedOn(o)[0];
    }, about);
    const copy = await waitFor(`tick in ${placed}`, () => downGet(placed, G.cron, 'tick'), about);
    assert.deepEqual(await where(G.cron, 'tick'), [placed]);

    // The cluster's CronJob controller creates a Job `tick-<scheduled minute>` and lists it as active.
    const [downStatus, downJob] = await waitFor(`a Job of tick active in ${placed}`, async () => {
      const c = await downGet(placed, G.cron, 'tick');
      const s = c?.status as { active?: { name: string; uid: string; namespace: string }[]; lastScheduleTime?: string } | undefined;
      if (!s?.active?.length || !s.lastScheduleTime) return false;
      const j = await downGet(placed, G.job, s.active[0]!.name);
      return j !== undefined && ([s, j] as const);
    }, about);
    assert.equal(controllerOf(downJob)?.uid, copy.metadata?.uid, 'the Job is the cluster CronJob\'s');
    assert.equal(downJob.metadata?.name, `tick-${Date.parse(downStatus.lastScheduleTime!) / 60_000}`);
    assert.equal(downJob.metadata?.labels?.[DOWNSTREAM_CLUSTER_LABEL], undefined, 'the Job is the cluster\'s own, not a synced copy');

    // Upstream: the same schedule time, and the active Job named in the upstream namespace, without the cluster's
    // uid and resourceVersion.
    const st = await waitFor('tick status up', async () => {
      const s = (await up.get(G.cron, 'tick', scope)).status as { active?: Record<string, unknown>[]; lastScheduleTime?: string } | undefined;
      return s !== undefined && s.lastScheduleTime === downStatus.lastScheduleTime && (s.active?.length ?? 0) > 0 && s;
    }, about);
    assert.deepEqual(st.active, [{ apiVersion: 'batch/v1', kind: 'Job', name: downJob.metadata!.name!, namespace: NS }]);
    // The cluster's Jobs stay the cluster's: mirrored up read-only (owned by the upstream CronJob; see
    // test/e2e/multicluster-mirrors.test.ts), never synced back down as a copy, not removed by the syncer.
    await settle();
    const mirrored = await waitFor('the Job mirrored upstream', () => up.get(G.job, downJob.metadata!.name!, scope).catch(() => undefined), about);
    assert.equal(mirrored.metadata?.labels?.['scheduling.atrium.io/mirror'], 'true', 'the Job upstream is a mirror');
    assert.equal(controllerOf(mirrored)?.uid, (await up.get(G.cron, 'tick', scope)).metadata?.uid, 'owned by the upstream CronJob');
    await check((await downGet(placed, G.job, downJob.metadata!.name!))?.metadata?.uid === downJob.metadata?.uid, 'the cluster\'s Job is left alone', about);
    assert.deepEqual(await where(G.job, downJob.metadata!.name!), [placed]);

    // Deleted upstream: the copy goes, and with it (the cluster's garbage collector) its Jobs.
    await up.delete(G.cron, 'tick', scope);
    await waitFor(`tick and its Jobs gone from ${placed}`, async () => (await downGet(placed, G.cron, 'tick')) === undefined && (await downList(placed, G.job)).every((j) => controllerOf(j)?.kind !== 'CronJob'), about);
  });

  it('Services and NetworkPolicies follow the pods they select; LoadBalancer and Ingress addresses are the union of the clusters\'', async () => {
    const about: [GVR, string][] = [[G.svc, '*'], [G.ing, 'web'], [G.netpol, 'db-only-web'], [G.endpoints, '*']];
    // web's pods use all the CPU they request (the clusters' simulated usage, what their HPAs measure later on).
    const webTemplate = { metadata: { labels: { app: 'web' }, annotations: { 'sim.atrium.io/cpu-utilization': '100' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.27', resources: { requests: { cpu: '100m' } } }] } };
    await up.create(G.deploy, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 4, selector: { matchLabels: { app: 'web' } }, template: webTemplate } }, scope);
    await up.create(G.svc, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { type: 'LoadBalancer', selector: { app: 'web' }, ports: [{ port: 80 }] } }, scope);
    await up.create(G.svc, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'db' }, spec: { clusterIP: 'None', selector: { app: 'db' }, ports: [{ port: 5432 }] } }, scope);
    await up.create(G.netpol, { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'db-only-web' }, spec: { podSelector: { matchLabels: { app: 'db' } }, ingress: [{ from: [{ podSelector: { matchLabels: { app: 'web' } } }] }] } }, scope);
    await up.create(G.ing, { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'web' }, spec: { rules: [{ host: 'shop.example', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }] } }, scope);
    await waitFor('Service web on both clusters', async () => (await where(G.svc, 'web')).join() === TARGETS.join(), about);
    await waitFor('Ingress web on both clusters', async () => (await where(G.ing, 'web')).join() === TARGETS.join(), about);
    await waitFor(`Service db on ${dbCluster} only`, async () => (await where(G.svc, 'db')).join() === dbCluster, about);
    assert.equal(((await downGet(dbCluster, G.svc, 'db'))!.spec as { clusterIP?: string }).clusterIP, 'None', 'a headless Service stays headless');
    await waitFor(`NetworkPolicy db-only-web on ${dbCluster} only`, async () => (await where(G.netpol, 'db-only-web')).join() === dbCluster, about);

    // The clusters' endpoints controllers make Endpoints for the Services from the pods each cluster runs, copying a
    // Service's labels (the syncer's own among them): those stay the clusters', the syncer does not take them for
    // orphaned copies.
    const readyAddresses = (e: KubeObject | undefined) => ((e as { subsets?: { addresses?: unknown[] }[] } | undefined)?.subsets ?? []).reduce((n, s) => n + (s.addresses?.length ?? 0), 0);
    for (const t of TARGETS) {
      const webPods = (await waitFor(`web's pods in ${t}`, async () => {
        const d = (await up.list(G.deploy, scope)).items.find((x) => x.metadata?.name === `web--${t}`);
        const want = (d?.spec as { replicas?: number } | undefined)?.replicas;
        return want !== undefined && want > 0 && want;
      }, about));
      await waitFor(`Endpoints web in ${t} with its ${webPods} ready pods`, async () => {
        const e = await downGet(t, G.endpoints, 'web');
        return readyAddresses(e) === webPods && e?.metadata?.labels?.[DOWNSTREAM_CLUSTER_LABEL] === keyOf(t);
      }, about);
    }
    const dbReplicas = (await up.get(G.sts, 'db', scope)).spec as { replicas: number };
    await waitFor(`Endpoints db in ${dbCluster} with the ${dbReplicas.replicas} db pods`, async () => readyAddresses(await downGet(dbCluster, G.endpoints, 'db')) === dbReplicas.replicas, about);
    const endpointUids = await Promise.all(TARGETS.map(async (t) => (await downGet(t, G.endpoints, 'web'))?.metadata?.uid));
    await settle();
    assert.deepEqual(await where(G.endpoints, 'web'), TARGETS, 'the clusters\' Endpoints are left alone');
    assert.deepEqual(await Promise.all(TARGETS.map(async (t) => (await downGet(t, G.endpoints, 'web'))?.metadata?.uid)), endpointUids, 'and not recreated');

    // In the workspace, web's Endpoints and EndpointSlice list the ready web pods of both clusters (their mirrors' IPs
    // and nodes), as one cluster lists its own: `kubectl get endpoints` shows them. They stay in the workspace.
    type Address = { ip: string; nodeName?: string; targetRef?: { name?: string } };
    const webPods = async () => (await up.list(G.pods, scope)).items.filter((p) => p.metadata?.labels?.app === 'web' && (p.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
    const upEndpoints = await waitFor('Endpoints web in the workspace listing the ready web pods of both clusters', async () => {
      const e = await up.get(G.endpoints, 'web', scope).catch(() => undefined);
      const addresses = ((e?.subsets ?? []) as { addresses?: Address[] }[]).flatMap((x) => x.addresses ?? []);
      const pods = await webPods();
      const want = pods.map((p) => `${(p.status as { podIP?: string }).podIP}/${p.metadata?.name}/${(p.spec as { nodeName?: string }).nodeName}`).sort();
      return pods.length === 4 && JSON.stringify(addresses.map((a) => `${a.ip}/${a.targetRef?.name}/${a.nodeName}`).sort()) === JSON.stringify(want) && addresses;
    }, about);
    assert.deepEqual([...new Set(upEndpoints.map((a) => a.nodeName!.split('--')[0]))].sort(), TARGETS, 'pods of both clusters, on the workspace\'s node names');
    assert.equal(new Set(upEndpoints.map((a) => a.ip)).size, 4, 'the clusters\' pod networks differ: four addresses');
    const slices = (await up.list(G.slices, scope, { labelSelector: 'kubernetes.io/service-name=web' })).items;
    assert.equal(slices.length, 1);
    assert.equal(slices[0]!.metadata?.labels?.['endpointslice.kubernetes.io/managed-by'], 'endpointslice-controller.k8s.io');
    assert.deepEqual(((slices[0] as { endpoints?: { addresses: string[] }[] }).endpoints ?? []).map((x) => x.addresses[0]).sort(), upEndpoints.map((a) => a.ip).sort());
    const got = await k(['get', 'endpoints', 'web', '-n', NS]);
    assert.equal(got.code, 0, got.stderr);
    for (const a of upEndpoints.slice(0, 3)) assert.match(got.stdout, new RegExp(`${a.ip.replaceAll('.', '\\.')}:80`));
    await settle();
    assert.deepEqual(await Promise.all(TARGETS.map(async (t) => (await downGet(t, G.endpoints, 'web'))?.metadata?.uid)), endpointUids, 'the workspace\'s Endpoints are not synced: each cluster keeps its own');

    // Each cluster's load balancer gives the Service an address from its own pool; upstream shows them all.
    const lbOf = async (t: string, g: GVR) => ((await downGet(t, g, 'web'))?.status as { loadBalancer?: { ingress?: Record<string, unknown>[] } } | undefined)?.loadBalancer?.ingress ?? [];
    const svcAddresses = await waitFor('a load balancer address on web in every cluster', async () => {
      const all = await Promise.all(TARGETS.map((t) => lbOf(t, G.svc)));
      return all.every((a) => a.length > 0) && all;
    }, about);
    const svcIPs = svcAddresses.flat().map((a) => String(a.ip));
    assert.equal(new Set(svcIPs).size, TARGETS.length, `one address per cluster, each its own: ${svcIPs.join(', ')}`);
    for (const [i, t] of TARGETS.entries()) assert.ok(svcIPs[i]!.startsWith(fleet.cluster(t).pcluster!.loadBalancerCIDR.split('.').slice(0, 3).join('.') + '.'), `${t}'s address ${svcIPs[i]} is from its pool ${fleet.cluster(t).pcluster!.loadBalancerCIDR}`);
    await waitFor(`both load balancer addresses on the Service upstream: ${JSON.stringify(svcAddresses.flat())}`, async () => {
      const ingress = ((await up.get(G.svc, 'web', scope)).status as { loadBalancer?: { ingress?: unknown[] } } | undefined)?.loadBalancer?.ingress;
      return JSON.stringify(ingress) === JSON.stringify(svcAddresses.flat());
    }, about);

    // Each cluster's ingress controller gives the Ingress its address; upstream shows both.
    const ingAddresses = TARGETS.map((t) => ({ ip: fleet.cluster(t).pcluster!.ingressAddress }));
    assert.notEqual(ingAddresses[0]!.ip, ingAddresses[1]!.ip);
    await waitFor('every cluster\'s ingress address on its copy', async () => {
      const all = await Promise.all(TARGETS.map((t) => lbOf(t, G.ing)));
      return all.every((a, i) => JSON.stringify(a) === JSON.stringify([ingAddresses[i]]));
    }, about);
    await waitFor(`both clusters' addresses on the Ingress upstream: ${JSON.stringify(ingAddresses)}`, async () => {
      const ing = ((await up.get(G.ing, 'web', scope)).status as { loadBalancer?: { ingress?: unknown[] } } | undefined)?.loadBalancer?.ingress;
      return JSON.stringify(ing) === JSON.stringify(ingAddresses);
    }, about);
    const r = await k(['get', 'ingress', 'web', '-n', NS]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(ingAddresses.map((a) => a.ip.replaceAll('.', '\\.')).join(',')));
  });

  it('a PodDisruptionBudget over the split Deployment is apportioned per cluster and its status summed', async () => {
    const about: [GVR, string][] = [[G.pdb, 'web'], [G.pods, '*']];
    await up.create(G.pdb, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web' }, spec: { minAvailable: 3, selector: { matchLabels: { app: 'web' } } } }, scope);
    const shares = await waitFor('a PDB share on each cluster', async () => {
      const copies = await Promise.all(TARGETS.map((t) => downGet(t, G.pdb, 'web')));
      if (copies.some((c) => !c)) return false;
      return copies.map((c) => (c!.spec as { minAvailable: number }).minAvailable);
    }, about);
    assert.deepEqual([...shares].sort(), [1, 2], 'minAvailable 3 over 2 + 2 pods');
    // Each cluster's disruption controller counts the two web pods it runs against its share.
    for (const [i, t] of TARGETS.entries()) {
      await waitFor(`the PDB status of ${t}'s disruption controller`, async () => {
        const c = await downGet(t, G.pdb, 'web');
        const st = c?.status as Record<string, unknown> | undefined;
        return st?.observedGeneration === c?.metadata?.generation && st?.currentHealthy === 2 && st?.desiredHealthy === shares[i] && st?.expectedPods === 2 && st?.disruptionsAllowed === 2 - shares[i]!;
      }, about);
    }
    const s = await waitFor('PDB status summed upstream', async () => {
      const o = await up.get(G.pdb, 'web', scope);
      const st = o.status as { currentHealthy?: number; observedGeneration?: number } | undefined;
      return st?.currentHealthy === 4 && st.observedGeneration === o.metadata?.generation && st;
    }, about);
    assert.equal((s as { desiredHealthy?: number }).desiredHealthy, 3);
    assert.equal((s as { disruptionsAllowed?: number }).disruptionsAllowed, 1);
    assert.equal((s as { expectedPods?: number }).expectedPods, 4);
    const allowed = ((s as { conditions?: { type: string; status: string }[] }).conditions ?? []).find((c) => c.type === 'DisruptionAllowed');
    assert.equal(allowed?.status, 'True');
  });

  it('a PodDisruptionBudget that selects nothing running is placed nowhere and still processed, as for a budget without pods', async () => {
    const about: [GVR, string][] = [[G.pdb, 'nothing']];
    await up.create(G.pdb, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'nothing' }, spec: { minAvailable: 2, selector: { matchLabels: { app: 'absent' } } } }, scope);
    const o = await waitFor('the unplaced PDB processed upstream', async () => {
      const x = await up.get(G.pdb, 'nothing', scope);
      return (x.status as { observedGeneration?: number } | undefined)?.observedGeneration === x.metadata?.generation && x;
    }, about);
    const st = o.status as Record<string, unknown>;
    assert.deepEqual([st.disruptionsAllowed, st.currentHealthy, st.desiredHealthy, st.expectedPods], [0, 0, 2, 0]);
    const allowed = ((st.conditions as { type: string; status: string; reason: string }[] | undefined) ?? []).find((c) => c.type === 'DisruptionAllowed');
    assert.deepEqual([allowed?.status, allowed?.reason], ['False', 'InsufficientPods']);
    for (const t of TARGETS) assert.equal(await downGet(t, G.pdb, 'nothing'), undefined, `not on ${t}`);
  });

  it('an HPA upstream scales the split Deployment from the metrics the clusters measure', async () => {
    const about: [GVR, string][] = [[G.hpa, 'web'], [G.deploy, '*']];
    // At 100% of the requested CPU against a 50% target the recommendation doubles whatever runs: maxReplicas 8
    // keeps it at 4 -> 8.
    await up.create(
      G.hpa,
      { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 8, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }] } },
      scope,
    );
    // Each cluster gets an observe-only copy on its share (scaling disabled both ways) ...
    for (const t of TARGETS) {
      const copy = await waitFor(`observe-only HPA in ${t}`, () => downGet(t, G.hpa, 'web'), about);
      const spec = copy.spec as { scaleTargetRef: { name: string }; behavior: { scaleUp: { selectPolicy: string }; scaleDown: { selectPolicy: string } } };
      assert.equal(spec.scaleTargetRef.name, `web--${t}`);
      assert.equal(spec.behavior.scaleUp.selectPolicy, 'Disabled');
      assert.equal(spec.behavior.scaleDown.selectPolicy, 'Disabled');
    }
    // ... whose HPA controller measures 100% of the requested CPU on the pods of its share.
    for (const t of TARGETS) {
      await waitFor(`${t}'s HPA controller measured web--${t}`, async () => {
        const s = (await downGet(t, G.hpa, 'web'))?.status as { currentMetrics?: { resource?: { current?: { averageUtilization?: number } } }[] } | undefined;
        return s?.currentMetrics?.[0]?.resource?.current?.averageUtilization === 100;
      }, about);
    }
    await waitFor('web scaled to 8 upstream and re-split 4 + 4', async () => {
      const list = (await up.list(G.deploy, scope)).items;
      const replicas = (name: string) => (list.find((d) => d.metadata?.name === name)?.spec as { replicas?: number } | undefined)?.replicas;
      return replicas('web') === 8 && replicas('web--st-a') === 4 && replicas('web--st-b') === 4;
    }, about);
    const hpa = await waitFor('the HPA status upstream', async () => {
      const s = (await up.get(G.hpa, 'web', scope)).status as { desiredReplicas?: number; currentMetrics?: { resource: { current: { averageUtilization: number } } }[]; lastScaleTime?: string } | undefined;
      return s?.desiredReplicas === 8 && s;
    }, about);
    assert.equal(hpa.currentMetrics?.[0]?.resource.current.averageUtilization, 100);
    assert.ok(hpa.lastScaleTime);
    const r = await k(['get', 'hpa', 'web', '-n', NS]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /cpu: 100%\/50%/);
  });

  it('pods pinned to a workspace node by name run on that node: a bare Pod by nodeName, a StatefulSet by the hostname selector, a split Deployment by node affinity; nodes of two clusters are refused', async () => {
    const nodes = (await up.list(gvr('', 'v1', 'nodes'))).items.map((n) => n.metadata!.name!).sort();
    const onA = nodes.filter((n) => n.startsWith('st-a--'));
    const onB = nodes.filter((n) => n.startsWith('st-b--'));
    assert.equal(onA.length, 2);
    assert.equal(onB.length, 1);
    const nodeOf = (o: KubeObject | undefined) => (o?.spec as { nodeName?: string } | undefined)?.nodeName;
    await up.create(G.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pinned' }, spec: podSpec({ nodeName: onA[1] }) }, scope);
    await up.create(G.sts, { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'cache' }, spec: { replicas: 2, selector: { matchLabels: { app: 'cache' } }, template: template('cache', { nodeSelector: { 'kubernetes.io/hostname': onB[0] } }) } }, scope);
    const affinity = (...values: string[]) => ({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values }] }] } } });
    await up.create(G.deploy, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'edge' }, spec: { replicas: 3, selector: { matchLabels: { app: 'edge' } }, template: template('edge', { affinity: affinity(onA[0]!) }) } }, scope);
    await up.create(G.job, { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'straddle' }, spec: { template: template('straddle', { restartPolicy: 'Never', affinity: affinity(onA[0]!, onB[0]!) }) } }, scope);

    const pod = await eventually('the pinned Pod running on its node', async () => {
      const p = await up.get(G.pods, 'pinned', scope);
      return (p.status as { phase?: string } | undefined)?.phase === 'Running' && p;
    });
    assert.equal(nodeOf(pod), onA[1]);
    assert.deepEqual(placedOn(pod), ['st-a']);
    await eventually('the StatefulSet ready on st-b', async () => ((await up.get(G.sts, 'cache', scope)).status as { readyReplicas?: number } | undefined)?.readyReplicas === 2);
    assert.deepEqual(placedOn(await up.get(G.sts, 'cache', scope)), ['st-b']);
    const cachePods = (await up.list(G.pods, scope, { labelSelector: 'app=cache' })).items;
    assert.deepEqual(cachePods.map(nodeOf), [onB[0], onB[0]]);
    await eventually('the Deployment ready, every replica on its node', async () => {
      const d = await up.get(G.deploy, 'edge', scope);
      const pods = (await up.list(G.pods, scope, { labelSelector: 'app=edge' })).items.filter((p) => !p.metadata?.deletionTimestamp);
      return (d.status as { readyReplicas?: number } | undefined)?.readyReplicas === 3 && pods.length === 3 && pods.every((p) => nodeOf(p) === onA[0]);
    });
    const r = await k(['rollout', 'status', 'deployment/edge', '-n', NS, '--timeout=30s']);
    assert.equal(r.code, 0, r.stderr);
    const refused = await eventually('the straddling Job unscheduled', async () => scheduled(await up.get(G.job, 'straddle', scope)));
    assert.deepEqual([refused.status, refused.reason, refused.message], ['False', 'NodeNotInPlacement', `its pods are pinned to nodes "${onA[0]}", "${onB[0]}", which are not all of one cluster`]);
    for (const [g, name] of [[G.pods, 'pinned'], [G.sts, 'cache'], [G.deploy, 'edge'], [G.job, 'straddle']] as const) await up.delete(g, name, scope);
  });

  it('a ReplicaSet created over a bare Pod it matches goes to the pod\'s cluster and adopts it (owned upstream too); relabelled, the pod is released', async () => {
    const rsGVR = gvr('apps', 'v1', 'replicasets');
    await up.create(G.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'stray', labels: { name: 'stray' } }, spec: podSpec() }, scope);
    const pod = await eventually('the bare Pod running', async () => {
      const p = await up.get(G.pods, 'stray', scope);
      return (p.status as { phase?: string } | undefined)?.phase === 'Running' && p;
    });
    const podCluster = placedOn(pod);
    assert.equal(podCluster.length, 1);
    const rs: KubeObject = await up.create<KubeObject>(rsGVR, { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'stray' }, spec: { replicas: 1, selector: { matchLabels: { name: 'stray' } }, template: { metadata: { labels: { name: 'stray' } }, spec: podSpec() } } }, scope);
    const adopted = await eventually('the pod owned by the ReplicaSet upstream', async () => {
      const p = await up.get(G.pods, 'stray', scope);
      return p.metadata?.ownerReferences?.some((r) => r.controller && r.uid === rs.metadata?.uid) && p;
    });
    assert.deepEqual(placedOn(await up.get(rsGVR, 'stray', scope)), podCluster, 'placed where its orphan runs');
    assert.deepEqual(adopted.metadata?.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'stray', uid: rs.metadata!.uid!, controller: true, blockOwnerDeletion: true }]);
    await eventually('the ReplicaSet ready with the adopted pod alone', async () => ((await up.get(rsGVR, 'stray', scope)).status as { readyReplicas?: number } | undefined)?.readyReplicas === 1);
    assert.deepEqual((await up.list(G.pods, scope, { labelSelector: 'name=stray' })).items.map((p) => p.metadata?.name), ['stray'], 'no second pod');

    await up.patch(G.pods, 'stray', 'merge', { metadata: { labels: { name: 'not-matching' } } }, scope);
    await eventually('the pod released upstream', async () => !(await up.get(G.pods, 'stray', scope)).metadata?.ownerReferences?.length);
    await eventually('a new pod of the ReplicaSet', async () => (await up.list(G.pods, scope, { labelSelector: 'name=stray' })).items.some((p) => p.metadata?.ownerReferences?.some((r) => r.kind === 'ReplicaSet' && r.name === 'stray')));
    await up.delete(rsGVR, 'stray', scope);
    await up.delete(G.pods, 'stray', scope);
  });

  it('an object no cluster can take gets Scheduled=False and a Warning Event: NoClusters, Incompatible', async () => {
    // A Placement whose Location selector matches nothing: its namespace is placed, on no cluster.
    await up.create(G.placement, { apiVersion: 'scheduling.kcp.io/v1alpha1', kind: 'Placement', metadata: { name: 'nowhere' }, spec: { locationSelectors: [{ matchLabels: { region: 'mars' } }], namespaceSelector: { matchLabels: { placement: 'nowhere' } }, locationResource: { group: 'workload.kcp.io', version: 'v1alpha1', resource: 'synctargets' } } });
    await up.create(G.ns, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'lost', labels: { placement: 'nowhere' }, annotations: { 'scheduling.atrium.io/placement': 'nowhere' } } });
    await up.create(G.sts, { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'orphan' }, spec: { selector: { matchLabels: { app: 'orphan' } }, template: template('orphan') } }, { namespace: 'lost' });
    const c = await eventually('orphan Scheduled=False NoClusters', async () => scheduled(await up.get(G.sts, 'orphan', { namespace: 'lost' })));
    assert.equal(c.status, 'False');
    assert.equal(c.reason, 'NoClusters');
    await eventually('a Warning Event NoClusters on orphan', async () => (await up.list(G.events, { namespace: 'lost' })).items.some((e) => (e as { reason?: string; type?: string; involvedObject?: { name?: string } }).reason === 'NoClusters' && (e as { type?: string }).type === 'Warning' && (e as { involvedObject?: { name?: string } }).involvedObject?.name === 'orphan'));

    // No cluster syncs CronJobs any more.
    for (const t of TARGETS) await up.patch(G.st, t, 'merge', { spec: { resources: defaultSyncedResources.filter((r) => r !== 'cronjobs.batch') } });
    await up.create(G.cron, { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'nightly' }, spec: { schedule: '0 3 * * *', jobTemplate: { spec: { template: { spec: podSpec({ restartPolicy: 'OnFailure' }) } } } } }, scope);
    const inc = await eventually('nightly Scheduled=False Incompatible', async () => {
      const s = scheduled(await up.get(G.cron, 'nightly', scope));
      return s?.reason === 'Incompatible' && s;
    });
    assert.equal(inc.status, 'False');
    assert.match(inc.message, /no SyncTarget of the namespace accepts cronjobs\.batch: st-a: the SyncTarget does not sync cronjobs\.batch/);
    const ev = await eventually('a Warning Event Incompatible on nightly', async () =>
      (await up.list(G.events, scope)).items.find((e) => (e as { reason?: string }).reason === 'Incompatible' && (e as { involvedObject?: { name?: string } }).involvedObject?.name === 'nightly'),
    );
    assert.equal((ev as { type?: string }).type, 'Warning');
    const d = await k(['describe', 'cronjob', 'nightly', '-n', NS]);
    assert.match(d.stdout, /Warning\s+Incompatible/);
    assert.deepEqual(placedOn(await up.get(G.cron, 'nightly', scope)), []);
  });

  it('after atrium restarts nothing moves and nothing is duplicated', async () => {
    const snapshot = async () => {
      const out: Record<string, string[]> = {};
      for (const [what, g] of [['sts', G.sts], ['ds', G.ds], ['job', G.job], ['svc', G.svc], ['cm', G.cm], ['pvc', G.pvc], ['pdb', G.pdb], ['hpa', G.hpa], ['deploy', G.deploy]] as const) {
        for (const t of TARGETS) {
          const ns = await downNs(t);
          out[`${what}/${t}`] = ns ? (await down(t).list(g, { namespace: ns })).items.map((o) => o.metadata!.name!).sort() : [];
        }
      }
      return out;
    };
    const before = await snapshot();
    await fleet.stopAtrium();
    await fleet.startAtrium();
    up = fleet.up;
    await fleet.waitReady(undefined, { timeoutMs: 60_000 });
    await settle(3000);
    assert.deepEqual(placedOn(await up.get(G.sts, 'db', scope)), [dbCluster]);
    assert.deepEqual(await snapshot(), before);
  });
});
