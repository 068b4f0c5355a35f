/**
 * Every workload kind placed on the clusters of a Placement, with its status back upstream, over a fleet of two
 * simulated clusters (in process, push mode) and the default Placement (spread All), checked with the real kubectl
 * where a user would use it:
 *
 * - a StatefulSet goes whole to one cluster (recorded as its state label, kept on later changes), with the ConfigMap
 *   it mounts (a ConfigMap nothing uses goes nowhere); its status comes up and `kubectl rollout status` works;
 * - a DaemonSet runs on both clusters and its status is summed, observedGeneration only once both observed it;
 * - a Job goes to one cluster without the control plane's generated selector (the cluster generates its own), the
 *   PVC it mounts follows it (its volumeName the cluster's, mirrored up), and `kubectl wait --for=condition=complete`
 *   works upstream; a finished Job is not run again when its copy goes (and goes upstream too after its TTL); a
 *   CronJob's active Jobs are named in the upstream namespace;
 * - a Service selecting the split Deployment goes to both clusters, one selecting the StatefulSet (and a NetworkPolicy)
 *   only to its cluster; LoadBalancer and Ingress addresses are the union of both clusters';
 * - a PodDisruptionBudget's minAvailable is apportioned over the clusters and its status summed;
 * - an HPA upstream scales the split Deployment from the metrics both clusters' observe-only copies measure;
 * - an object no cluster can take gets Scheduled=False (NoClusters, Incompatible) and a Warning Event.
 *
 * The simulated clusters run no StatefulSet, DaemonSet, Job, CronJob, PV, load-balancer, Ingress, PDB or HPA
 * controllers yet: where one is missing the test writes the downstream status as that controller would, and checks
 * that it comes up.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runKubectl } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { fastScheduling, startFleet, type InProcessFleet } from '../helpers/fleet.js';
import type { RestClient } from '../../src/client/rest-client.js';
import { locatorOf, syncTargetKey } from '../../src/multicluster/api/keys.js';
import { defaultSyncedResources } from '../../src/multicluster/api/types.js';
import type { KubeObject } from '../../src/apimachinery/object.js';

const gvr = (group: string, version: string, resource: string) => ({ group, version, resource });
const G = {
  ns: gvr('', 'v1', 'namespaces'),
  cm: gvr('', 'v1', 'configmaps'),
  svc: gvr('', 'v1', 'services'),
  pvc: gvr('', 'v1', 'persistentvolumeclaims'),
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
const TARGETS = ['st-a', 'st-b'];
const NS = 'shop';
const SCHEDULED = 'scheduling.atrium.io/scheduled';

const podSpec = (extra: Record<string, unknown> = {}) => ({ containers: [{ name: 'c', image: 'nginx:1.27' }], ...extra });
const template = (app: string, extra: Record<string, unknown> = {}) => ({ metadata: { labels: { app } }, spec: podSpec(extra) });

describe('every workload kind placed on the clusters, its status back upstream', { timeout: 300_000 }, () => {
  let fleet: InProcessFleet;
  let up: RestClient;
  const scope = { namespace: NS };
  const k = (args: string[]) => runKubectl(fleet.kubeconfig, args);
  const keyOf = (t: string) => syncTargetKey('root', t);
  const down = (t: string) => fleet.cluster(t).client;

  /** The downstream namespace of `shop` in cluster `t`. */
  const downNs = async (t: string) => {
    const ns = (await down(t).list(G.ns)).items.find((n) => locatorOf(n)?.namespace === NS && locatorOf(n)?.cluster === 'root');
    return ns?.metadata?.name;
  };
  const downGet = async (t: string, g: typeof G.cm, name: string) => {
    const ns = await downNs(t);
    return ns ? down(t).get(g, name, { namespace: ns }).catch(() => undefined) : undefined;
  };
  /** The clusters holding a copy of `name`. */
  const where = async (g: typeof G.cm, name: string) => {
    const out: string[] = [];
    for (const t of TARGETS) if (await downGet(t, g, name)) out.push(t);
    return out;
  };
  /** The clusters an upstream object's own state labels name. */
  const placedOn = (o: KubeObject | undefined) => TARGETS.filter((t) => o?.metadata?.labels?.[`state.workload.kcp.io/${keyOf(t)}`] === 'Sync');
  const scheduled = (o: KubeObject | undefined) => JSON.parse(o?.metadata?.annotations?.[SCHEDULED] ?? 'null') as { status: string; reason: string; message: string } | null;
  /** Writes `status` on the downstream copy of `name` in `t` (as that cluster's controller would). */
  const writeDownStatus = async (t: string, g: typeof G.cm, name: string, status: (obj: KubeObject) => Record<string, unknown>) => {
    const ns = (await downNs(t))!;
    const obj = await down(t).get(g, name, { namespace: ns });
    await down(t).patch(g, name, 'merge', { status: status(obj) }, { namespace: ns, subresource: 'status' });
  };
  const settle = (ms = 1500) => new Promise((r) => setTimeout(r, ms));

  before(async () => {
    fleet = await startFleet({ name: 'kinds', clusters: TARGETS, multicluster: { ...fastScheduling(), placement: { hpaSyncMs: 500 } }, server: { builtinControllers: true }, bindCompute: true });
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

  it('a StatefulSet goes whole to one cluster with the ConfigMap it mounts; its status comes up and kubectl rollout status works', async () => {
    await up.create(G.cm, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'db-config' }, data: { mode: 'primary' } }, scope);
    await up.create(G.cm, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'unused' }, data: { a: '1' } }, scope);
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
    const sts = await eventually('db placed on one cluster', async () => {
      const o = await up.get(G.sts, 'db', scope);
      return placedOn(o).length === 1 && scheduled(o)?.status === 'True' && o;
    });
    dbCluster = placedOn(sts)[0]!;
    await eventually(`db only in ${dbCluster}`, async () => (await where(G.sts, 'db')).join() === dbCluster);
    await eventually(`db-config only in ${dbCluster}`, async () => (await where(G.cm, 'db-config')).join() === dbCluster);
    await settle();
    assert.deepEqual(await where(G.cm, 'unused'), [], 'a ConfigMap no workload uses goes nowhere');
    const unused = scheduled(await up.get(G.cm, 'unused', scope));
    assert.deepEqual([unused?.status, unused?.reason, unused?.message], ['False', 'NotUsed', 'no workload placed in the namespace uses it']);
    assert.deepEqual(await where(G.sts, 'db'), [dbCluster]);
    assert.equal(((await down(dbCluster).list(G.pvc, { namespace: (await downNs(dbCluster))! })).items.length), 0, 'volumeClaimTemplates claims are the cluster StatefulSet controller\'s to create');

    // The cluster's StatefulSet controller (written by the test: the simulated cluster has none yet).
    await writeDownStatus(dbCluster, G.sts, 'db', (o) => ({ observedGeneration: o.metadata!.generation, replicas: 2, readyReplicas: 2, currentReplicas: 2, updatedReplicas: 2, availableReplicas: 2, currentRevision: 'db-5d4f', updateRevision: 'db-5d4f', collisionCount: 0 }));
    const status = await eventually('db status up', async () => {
      const o = await up.get(G.sts, 'db', scope);
      const s = o.status as { readyReplicas?: number; observedGeneration?: number } | undefined;
      return s?.readyReplicas === 2 && s.observedGeneration === o.metadata?.generation && s;
    });
    assert.equal((status as { currentRevision?: string }).currentRevision, 'db-5d4f');
    const r = await k(['rollout', 'status', 'statefulset/db', '-n', NS, '--timeout=20s']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /partitioned roll out complete|roll out complete/);

    // Sticky: a change of the StatefulSet does not move it.
    await up.patch(G.sts, 'db', 'merge', { spec: { replicas: 3 } }, scope);
    await eventually('the cluster copy scaled to 3', async () => ((await downGet(dbCluster, G.sts, 'db'))?.spec as { replicas?: number } | undefined)?.replicas === 3);
    assert.deepEqual(placedOn(await up.get(G.sts, 'db', scope)), [dbCluster]);
  });

  it('a DaemonSet runs on both clusters; its status is summed, observedGeneration once both observed it', async () => {
    await up.create(G.ds, { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'agent' }, spec: { selector: { matchLabels: { app: 'agent' } }, template: template('agent') } }, scope);
    await eventually('agent on both clusters', async () => (await where(G.ds, 'agent')).join() === TARGETS.join());
    const dsStatus = (o: KubeObject) => ({ observedGeneration: o.metadata!.generation, desiredNumberScheduled: 2, currentNumberScheduled: 2, numberReady: 2, updatedNumberScheduled: 2, numberAvailable: 2, numberMisscheduled: 0 });
    await writeDownStatus('st-a', G.ds, 'agent', dsStatus);
    const partial = await eventually('st-a counted', async () => {
      const s = (await up.get(G.ds, 'agent', scope)).status as { numberReady?: number; observedGeneration?: number } | undefined;
      return s?.numberReady === 2 && s;
    });
    assert.equal(partial.observedGeneration, undefined, 'not observed by st-b yet');
    await writeDownStatus('st-b', G.ds, 'agent', dsStatus);
    const s = await eventually('both counted', async () => {
      const o = await up.get(G.ds, 'agent', scope);
      const st = o.status as Record<string, number> | undefined;
      return st?.numberReady === 4 && st.observedGeneration === o.metadata?.generation && st;
    });
    assert.deepEqual({ ...s, observedGeneration: 0 }, { observedGeneration: 0, desiredNumberScheduled: 4, currentNumberScheduled: 4, numberReady: 4, updatedNumberScheduled: 4, numberAvailable: 4, numberMisscheduled: 0, numberUnavailable: 0 });
    const r = await k(['rollout', 'status', 'daemonset/agent', '-n', NS, '--timeout=20s']);
    assert.equal(r.code, 0, r.stderr);
  });

  it('a Job goes to one cluster without the control plane\'s selector, its PVC follows it, and kubectl wait --for=condition=complete works upstream', async () => {
    await up.create(G.pvc, { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'scratch' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }, scope);
    const job: KubeObject = await up.create<KubeObject>(
      G.job,
      { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'pi' }, spec: { template: { spec: podSpec({ restartPolicy: 'Never', volumes: [{ name: 'scratch', persistentVolumeClaim: { claimName: 'scratch' } }] }) } } },
      scope,
    );
    const upUid = job.metadata!.uid!;
    const placed = await eventually('pi placed on one cluster', async () => {
      const o = await up.get(G.job, 'pi', scope);
      return placedOn(o).length === 1 && placedOn(o)[0];
    });
    const copy = await eventually(`pi in ${placed}`, () => downGet(placed, G.job, 'pi'));
    const selector = (copy.spec as { selector?: { matchLabels?: Record<string, string> } }).selector?.matchLabels ?? {};
    assert.equal(selector['batch.kubernetes.io/controller-uid'], copy.metadata?.uid, 'the cluster generated its own selector');
    assert.notEqual(copy.metadata?.uid, upUid);
    const labels = (copy.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
    assert.equal(labels['controller-uid'], copy.metadata?.uid);
    assert.equal(Object.values(labels).includes(upUid), false, 'no label carries the upstream uid');
    assert.deepEqual(await where(G.job, 'pi'), [placed]);

    // The PVC it mounts follows it; the cluster binds it to its own volume, and the volume name is mirrored up.
    await eventually(`scratch in ${placed} only`, async () => (await where(G.pvc, 'scratch')).join() === placed);
    const ns = (await downNs(placed))!;
    await down(placed).patch(G.pvc, 'scratch', 'merge', { spec: { volumeName: 'pv-0001' } }, { namespace: ns, fieldManager: 'persistent-volume-binder' });
    await writeDownStatus(placed, G.pvc, 'scratch', () => ({ phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } }));
    await eventually('scratch Bound upstream, volumeName mirrored', async () => {
      const o = await up.get(G.pvc, 'scratch', scope);
      return (o.status as { phase?: string } | undefined)?.phase === 'Bound' && (o.spec as { volumeName?: string }).volumeName === 'pv-0001';
    });

    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    await writeDownStatus(placed, G.job, 'pi', () => ({
      startTime: now,
      completionTime: now,
      succeeded: 1,
      ready: 0,
      terminating: 0,
      uncountedTerminatedPods: {},
      conditions: [
        { type: 'SuccessCriteriaMet', status: 'True', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods', lastProbeTime: now, lastTransitionTime: now },
        { type: 'Complete', status: 'True', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods', lastProbeTime: now, lastTransitionTime: now },
      ],
    }));
    const r = await k(['wait', '--for=condition=complete', 'job/pi', '-n', NS, '--timeout=20s']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /job.batch\/pi condition met/);
    const st = (await up.get(G.job, 'pi', scope)).status as { succeeded?: number; completionTime?: string };
    assert.equal(st.succeeded, 1);
    assert.equal(st.completionTime, now);

    // A finished Job is never run again because its copy is gone (the cluster's pod and job clean-up) ...
    await down(placed).delete(G.job, 'pi', { namespace: ns });
    await eventually('the copy gone', async () => (await downGet(placed, G.job, 'pi')) === undefined);
    await settle();
    assert.equal(await downGet(placed, G.job, 'pi'), undefined, 'not recreated');
    assert.equal((await up.get(G.job, 'pi', scope)).metadata?.deletionTimestamp, undefined, 'still there upstream');
    // ... and one with ttlSecondsAfterFinished goes upstream too once the cluster's TTL controller deleted it.
    await up.create(G.job, { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'short' }, spec: { ttlSecondsAfterFinished: 5, template: { spec: podSpec({ restartPolicy: 'Never' }) } } }, scope);
    const shortAt = await eventually('short placed and synced', async () => {
      const t = placedOn(await up.get(G.job, 'short', scope))[0];
      return t !== undefined && (await downGet(t, G.job, 'short')) !== undefined && t;
    });
    await writeDownStatus(shortAt, G.job, 'short', () => ({ startTime: now, completionTime: now, succeeded: 1, conditions: [{ type: 'SuccessCriteriaMet', status: 'True', lastTransitionTime: now }, { type: 'Complete', status: 'True', lastTransitionTime: now }] }));
    await eventually('short Complete upstream', async () => ((await up.get(G.job, 'short', scope)).status as { succeeded?: number } | undefined)?.succeeded === 1);
    await down(shortAt).delete(G.job, 'short', { namespace: (await downNs(shortAt))! });
    await eventually('short gone upstream as well', async () => (await up.get(G.job, 'short', scope).catch((e: { code?: number }) => e.code)) === 404);
  });

  it('a CronJob goes to one cluster; its active Jobs are named in the upstream namespace', async () => {
    await up.create(G.cron, { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'tick' }, spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: podSpec({ restartPolicy: 'OnFailure' }) } } } } }, scope);
    const placed = await eventually('tick placed on one cluster', async () => {
      const o = await up.get(G.cron, 'tick', scope);
      return placedOn(o).length === 1 && placedOn(o)[0];
    });
    await eventually(`tick in ${placed}`, () => downGet(placed, G.cron, 'tick'));
    const ns = (await downNs(placed))!;
    const t = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    await writeDownStatus(placed, G.cron, 'tick', () => ({ lastScheduleTime: t, active: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'tick-29000000', namespace: ns, uid: '0c1d7c6a-1111-2222-3333-444455556666', resourceVersion: '123' }] }));
    const st = await eventually('tick status up', async () => {
      const s = (await up.get(G.cron, 'tick', scope)).status as { active?: Record<string, unknown>[]; lastScheduleTime?: string } | undefined;
      return s?.lastScheduleTime !== undefined && s;
    });
    assert.equal(st.lastScheduleTime, t);
    assert.deepEqual(st.active, [{ apiVersion: 'batch/v1', kind: 'Job', name: 'tick-29000000', namespace: NS }]);
  });

  it('Services and NetworkPolicies follow the pods they select; LoadBalancer and Ingress addresses are the union of the clusters\'', async () => {
    await up.create(G.deploy, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 4, selector: { matchLabels: { app: 'web' } }, template: template('web') } }, scope);
    await up.create(G.svc, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { type: 'LoadBalancer', selector: { app: 'web' }, ports: [{ port: 80 }] } }, scope);
    await up.create(G.svc, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'db' }, spec: { clusterIP: 'None', selector: { app: 'db' }, ports: [{ port: 5432 }] } }, scope);
    await up.create(G.netpol, { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'db-only-web' }, spec: { podSelector: { matchLabels: { app: 'db' } }, ingress: [{ from: [{ podSelector: { matchLabels: { app: 'web' } } }] }] } }, scope);
    await up.create(G.ing, { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'web' }, spec: { rules: [{ host: 'shop.example', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }] } }, scope);
    await eventually('Service web on both clusters', async () => (await where(G.svc, 'web')).join() === TARGETS.join());
    await eventually('Ingress web on both clusters', async () => (await where(G.ing, 'web')).join() === TARGETS.join());
    await eventually(`Service db on ${dbCluster} only`, async () => (await where(G.svc, 'db')).join() === dbCluster);
    assert.equal(((await downGet(dbCluster, G.svc, 'db'))!.spec as { clusterIP?: string }).clusterIP, 'None', 'a headless Service stays headless');
    await eventually(`NetworkPolicy db-only-web on ${dbCluster} only`, async () => (await where(G.netpol, 'db-only-web')).join() === dbCluster);

    // The clusters' endpoints controllers copy a Service's labels (the syncer's own among them) onto the Endpoints they
    // make for it: those stay the clusters', the syncer does not take them for orphaned copies.
    const endpointsGVR = gvr('', 'v1', 'endpoints');
    for (const t of TARGETS) {
      const svc = (await downGet(t, G.svc, 'web'))!;
      await down(t).create(endpointsGVR, { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web', namespace: svc.metadata!.namespace, labels: svc.metadata!.labels }, subsets: [{ addresses: [{ ip: '10.244.0.7' }], ports: [{ port: 80 }] }] });
    }
    await settle();
    assert.deepEqual(await where(endpointsGVR, 'web'), TARGETS, 'the clusters\' Endpoints are left alone');
    await writeDownStatus('st-a', G.svc, 'web', () => ({ loadBalancer: { ingress: [{ ip: '198.51.100.10', ipMode: 'VIP' }] } }));
    await writeDownStatus('st-b', G.svc, 'web', () => ({ loadBalancer: { ingress: [{ ip: '203.0.113.20', ipMode: 'VIP' }] } }));
    await eventually('both load balancer addresses on the Service upstream', async () => {
      const ips = (((await up.get(G.svc, 'web', scope)).status as { loadBalancer?: { ingress?: { ip: string }[] } } | undefined)?.loadBalancer?.ingress ?? []).map((i) => i.ip);
      return ips.join() === '198.51.100.10,203.0.113.20';
    });
    await writeDownStatus('st-a', G.ing, 'web', () => ({ loadBalancer: { ingress: [{ ip: '198.51.100.11' }] } }));
    await writeDownStatus('st-b', G.ing, 'web', () => ({ loadBalancer: { ingress: [{ hostname: 'lb-b.example' }] } }));
    await eventually('both clusters\' addresses on the Ingress upstream', async () => {
      const ing = ((await up.get(G.ing, 'web', scope)).status as { loadBalancer?: { ingress?: unknown[] } } | undefined)?.loadBalancer?.ingress;
      return JSON.stringify(ing) === JSON.stringify([{ ip: '198.51.100.11' }, { hostname: 'lb-b.example' }]);
    });
    const r = await k(['get', 'ingress', 'web', '-n', NS]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /198\.51\.100\.11,lb-b\.example/);
  });

  it('a PodDisruptionBudget over the split Deployment is apportioned per cluster and its status summed', async () => {
    await up.create(G.pdb, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web' }, spec: { minAvailable: 3, selector: { matchLabels: { app: 'web' } } } }, scope);
    const shares = await eventually('a PDB share on each cluster', async () => {
      const copies = await Promise.all(TARGETS.map((t) => downGet(t, G.pdb, 'web')));
      if (copies.some((c) => !c)) return false;
      return copies.map((c) => (c!.spec as { minAvailable: number }).minAvailable);
    });
    assert.deepEqual([...shares].sort(), [1, 2], 'minAvailable 3 over 2 + 2 pods');
    for (const [i, t] of TARGETS.entries()) {
      await writeDownStatus(t, G.pdb, 'web', (o) => ({ observedGeneration: o.metadata!.generation, currentHealthy: 2, desiredHealthy: shares[i], expectedPods: 2, disruptionsAllowed: 2 - shares[i]!, conditions: [{ type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), observedGeneration: o.metadata!.generation }] }));
    }
    const s = await eventually('PDB status summed upstream', async () => {
      const o = await up.get(G.pdb, 'web', scope);
      const st = o.status as { currentHealthy?: number; observedGeneration?: number } | undefined;
      return st?.currentHealthy === 4 && st.observedGeneration === o.metadata?.generation && st;
    });
    assert.equal((s as { desiredHealthy?: number }).desiredHealthy, 3);
    assert.equal((s as { disruptionsAllowed?: number }).disruptionsAllowed, 1);
    assert.equal((s as { expectedPods?: number }).expectedPods, 4);
  });

  it('an HPA upstream scales the split Deployment from the metrics the clusters measure', async () => {
    await up.create(
      G.hpa,
      { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 10, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }] } },
      scope,
    );
    // Each cluster gets an observe-only copy on its share (scaling disabled both ways).
    for (const t of TARGETS) {
      const copy = await eventually(`observe-only HPA in ${t}`, () => downGet(t, G.hpa, 'web'));
      const spec = copy.spec as { scaleTargetRef: { name: string }; behavior: { scaleUp: { selectPolicy: string }; scaleDown: { selectPolicy: string } } };
      assert.equal(spec.scaleTargetRef.name, `web--${t}`);
      assert.equal(spec.behavior.scaleUp.selectPolicy, 'Disabled');
      assert.equal(spec.behavior.scaleDown.selectPolicy, 'Disabled');
    }
    // The clusters' HPA controllers measure 100% of the requested CPU on their two pods each.
    for (const t of TARGETS) {
      await writeDownStatus(t, G.hpa, 'web', () => ({ currentReplicas: 2, desiredReplicas: 2, currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 100, averageValue: '100m' } } }] }));
    }
    await eventually('web scaled to 8 upstream and re-split 4 + 4', async () => {
      const list = (await up.list(G.deploy, scope)).items;
      const replicas = (name: string) => (list.find((d) => d.metadata?.name === name)?.spec as { replicas?: number } | undefined)?.replicas;
      return replicas('web') === 8 && replicas('web--st-a') === 4 && replicas('web--st-b') === 4;
    });
    const hpa = await eventually('the HPA status upstream', async () => {
      const s = (await up.get(G.hpa, 'web', scope)).status as { desiredReplicas?: number; currentMetrics?: { resource: { current: { averageUtilization: number } } }[]; lastScaleTime?: string } | undefined;
      return s?.desiredReplicas === 8 && s;
    });
    assert.equal(hpa.currentMetrics?.[0]?.resource.current.averageUtilization, 100);
    assert.ok(hpa.lastScaleTime);
    const r = await k(['get', 'hpa', 'web', '-n', NS]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /cpu: 100%\/50%/);
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
