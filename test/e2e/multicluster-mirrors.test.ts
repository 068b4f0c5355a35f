/**
 * What runs is visible where the user works (issue #14): in a workspace with compute over two simulated clusters
 * (push mode), an app of a split Deployment, a StatefulSet, a Job, a DaemonSet and a CronJob. The syncers mirror the
 * pods the clusters' controllers make (src/multicluster/syncer/workspace-mirrors.ts), the Jobs of the CronJob, and
 * the clusters' Events about synced objects and mirrored pods; real kubectl reads them: `get pods -o wide` with
 * `<cluster>--<node>`, label selectors, `describe` and `events` with the cluster named, `delete pod` restarting a pod,
 * mirrors following scale-down and deletion, rollout history and undo, and users refused when writing a mirror.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runKubectl } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { fastScheduling, startFleet, type FleetClusterSpec, type InProcessFleet } from '../helpers/fleet.js';
import type { RestClient } from '../../src/client/rest-client.js';
import { locatorOf, syncTargetKey } from '../../src/multicluster/api/keys.js';
import { MIRROR_CLUSTER_LABEL, MIRROR_LABEL, mirrorSourceOf } from '../../src/multicluster/api/mirrors.js';
import type { KubeObject } from '../../src/apimachinery/object.js';

const gvr = (group: string, version: string, resource: string) => ({ group, version, resource });
const G = {
  ns: gvr('', 'v1', 'namespaces'),
  pods: gvr('', 'v1', 'pods'),
  pvc: gvr('', 'v1', 'persistentvolumeclaims'),
  events: gvr('', 'v1', 'events'),
  deploy: gvr('apps', 'v1', 'deployments'),
  rs: gvr('apps', 'v1', 'replicasets'),
  sts: gvr('apps', 'v1', 'statefulsets'),
  ds: gvr('apps', 'v1', 'daemonsets'),
  jobs: gvr('batch', 'v1', 'jobs'),
  cronjobs: gvr('batch', 'v1', 'cronjobs'),
};
const CLUSTERS: FleetClusterSpec[] = [
  { name: 'st-a', nodes: 1, jobDurationMs: 1500, cronJobTimeScale: 15 },
  { name: 'st-b', nodes: 1, jobDurationMs: 1500, cronJobTimeScale: 15 },
];
const TARGETS = CLUSTERS.map((c) => c.name);
const NS = 'shop';

const controllerOf = (o: KubeObject | undefined) => (o?.metadata?.ownerReferences as { uid?: string; controller?: boolean; kind?: string; name?: string }[] | undefined)?.find((r) => r.controller);
const container = (image: string) => ({ name: 'c', image });

const manifest = {
  apiVersion: 'v1',
  kind: 'List',
  items: [
    { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 4, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web', tier: 'front' } }, spec: { containers: [container('nginx:1.27')] } } } },
    { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db' }, spec: { replicas: 2, serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: { metadata: { labels: { app: 'db' } }, spec: { containers: [container('postgres:16')] } }, volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }] } },
    // Pinned to one cluster: synced whole, not split; its ReplicaSets are the cluster's, mirrored up.
    { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'solo', labels: { 'workload.kcp.io/cluster': 'st-a' } }, spec: { replicas: 2, selector: { matchLabels: { app: 'solo' } }, template: { metadata: { labels: { app: 'solo' } }, spec: { containers: [container('nginx:1.27')] } } } },
    // Crash-loops on its cluster (the pcluster's simulated exit code).
    { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'crash', labels: { 'workload.kcp.io/cluster': 'st-b' } }, spec: { replicas: 1, selector: { matchLabels: { app: 'crash' } }, template: { metadata: { labels: { app: 'crash' }, annotations: { 'sim.atrium.io/exit-code': '1', 'sim.atrium.io/run-seconds': '1' } }, spec: { containers: [container('busybox')] } } } },
    { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'once' }, spec: { template: { metadata: { labels: { app: 'once' }, annotations: { 'sim.atrium.io/run-seconds': '600' } }, spec: { restartPolicy: 'Never', containers: [container('busybox')] } } } },
    { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'agent' }, spec: { selector: { matchLabels: { app: 'agent' } }, template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [container('agent:1')] } } } },
    { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'tick' }, spec: { schedule: '* * * * *', successfulJobsHistoryLimit: 1, jobTemplate: { metadata: { labels: { app: 'tick' } }, spec: { template: { metadata: { labels: { app: 'tick' } }, spec: { restartPolicy: 'Never', containers: [container('busybox')] } } } } } },
  ],
};

/** `kubectl get pods -o wide --no-headers` rows: name, node, and the cluster label column when asked for. */
function rows(stdout: string): { name: string; status: string; node: string; cluster?: string }[] {
  return stdout
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      // RESTARTS may read `3 (25s ago)` (kubectl names the last restart's age): one cell, three words.
      const f = l.trim().replace(/^(\S+\s+\S+\s+\S+\s+\d+) \([^)]*\)/, '$1').split(/\s+/);
      // NAME READY STATUS RESTARTS AGE IP NODE NOMINATED-NODE READINESS-GATES [CLUSTER]
      return { name: f[0]!, status: f[2]!, node: f[6]!, cluster: f[9] };
    });
}

describe('mirrors of the pods, Jobs and Events the clusters run for a workspace', { timeout: 420_000 }, () => {
  let fleet: InProcessFleet;
  let up: RestClient;
  const scope = { namespace: NS };
  const k = (args: string[], input?: string) => runKubectl(fleet.kubeconfig, args, input === undefined ? {} : { input });
  const ok = async (args: string[], input?: string) => {
    const r = await k(args, input);
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stdout}\n${r.stderr}`);
    return r.stdout;
  };
  const keyOf = (t: string) => syncTargetKey('root', t);
  const downNs = async (t: string) => (await fleet.cluster(t).client.list(G.ns)).items.find((n) => locatorOf(n)?.namespace === NS && locatorOf(n)?.cluster === 'root')?.metadata?.name;
  const podRows = async (selector?: string) => rows(await ok(['get', 'pods', '-n', NS, '-o', 'wide', '--no-headers', '-L', MIRROR_CLUSTER_LABEL, ...(selector ? ['-l', selector] : [])]));
  const mirrorsOf = async (kind: string, name: string) => {
    const owner = (await up.list(kind === 'StatefulSet' ? G.sts : kind === 'DaemonSet' ? G.ds : kind === 'Job' ? G.jobs : G.rs, scope)).items.find((o) => o.metadata?.name === name);
    return (await up.list(G.pods, scope)).items.filter((p) => controllerOf(p)?.uid === owner?.metadata?.uid);
  };

  before(async () => {
    fleet = await startFleet({ name: 'mirrors', clusters: CLUSTERS, multicluster: fastScheduling(), server: { builtinControllers: true }, bindCompute: true });
    up = fleet.up;
    await fleet.waitReady(undefined, { resources: ['deployments', 'replicasets', 'statefulsets', 'daemonsets', 'jobs', 'cronjobs', 'pods', 'persistentvolumeclaims'], timeoutMs: 60_000 });
    await up.create(G.ns, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    await eventually(`${NS} placed on both clusters`, async () => {
      const labels = (await up.get(G.ns, NS)).metadata?.labels ?? {};
      return TARGETS.every((t) => labels[`state.workload.kcp.io/${keyOf(t)}`] === 'Sync');
    });
    await ok(['apply', '-n', NS, '-f', '-'], JSON.stringify(manifest));
  });

  after(async () => {
    await fleet?.stop();
  });

  it('kubectl get pods -o wide lists every pod the clusters run, named apart, with <cluster>--<node> and the cluster label', async () => {
    const all = await eventually('web ×4, db ×2, once, agent on both clusters mirrored and Running', async () => {
      const r = await podRows();
      const of = (re: RegExp) => r.filter((p) => re.test(p.name) && p.status === 'Running');
      return of(/^web--st-[ab]-/).length === 4 && of(/^db-[01]$/).length === 2 && of(/^once-/).length === 1 && of(/^agent--st-[ab]-/).length === 2 && r;
    }, 120_000);
    assert.equal(new Set(all.map((p) => p.name)).size, all.length, 'no two rows share a name');
    // Every running pod shows its node (a CronJob's pod just made may still be unbound: `<none>`, as on any cluster).
    for (const p of all.filter((r) => r.status === 'Running')) {
      assert.match(p.node, /^st-[ab]--\S+$/, `${p.name}: NODE is <cluster>--<node>`);
      assert.equal(p.cluster, p.node.split('--')[0], `${p.name}: the cluster label names the node's cluster`);
    }
    // Each web pod is mirrored from the cluster its name says; the split is 2 + 2.
    for (const t of TARGETS) assert.equal(all.filter((p) => p.name.startsWith(`web--${t}-`) && p.cluster === t).length, 2, `two web pods on ${t}`);
    assert.deepEqual(new Set(all.filter((p) => p.name.startsWith('agent--')).map((p) => p.cluster)), new Set(TARGETS), 'the DaemonSet runs a pod on every cluster');

    // Cheap: with nothing changing on the clusters, nothing is written (a steady pod's mirror keeps its resourceVersion).
    const before = (await up.get(G.pods, 'db-0', scope)).metadata?.resourceVersion;
    await new Promise((r) => setTimeout(r, 2000));
    assert.equal((await up.get(G.pods, 'db-0', scope)).metadata?.resourceVersion, before, 'a steady mirror is not rewritten');

    // Selectors: the Deployment's own selector finds its pods; template labels work as any label.
    assert.equal((await podRows('app=web')).length, 4);
    assert.equal((await podRows('tier=front,app=web')).length, 4);
    assert.equal((await podRows(`${MIRROR_CLUSTER_LABEL}=st-a,app=agent`)).length, 1);
  });

  it('owner references point at the upstream owners: the revision-history ReplicaSet, the StatefulSet, the Job, the DaemonSet', async () => {
    const rs = (await up.list(G.rs, scope)).items.filter((r) => controllerOf(r)?.kind === 'Deployment' && controllerOf(r)?.name === 'web');
    assert.equal(rs.length, 1, 'one revision-history ReplicaSet for web');
    assert.equal((await mirrorsOf('ReplicaSet', rs[0]!.metadata!.name!)).length, 4, 'the 4 web pods are owned by it');
    assert.equal((await mirrorsOf('StatefulSet', 'db')).length, 2);
    assert.equal((await mirrorsOf('Job', 'once')).length, 1);
    assert.equal((await mirrorsOf('DaemonSet', 'agent')).length, 2);
    // Each mirror names its original, and the original exists on that cluster.
    const pod = (await up.list(G.pods, scope)).items.find((p) => p.metadata?.name === 'db-0')!;
    const source = mirrorSourceOf(pod)!;
    assert.equal(source.name, 'db-0');
    assert.equal(source.namespace, await downNs(source.syncTargetName));
    assert.equal((await fleet.cluster(source.syncTargetName).client.get(G.pods, 'db-0', { namespace: source.namespace })).metadata?.name, 'db-0');
    // describe rs lists the pods by selector; the Deployment's own pods status reads them.
    const described = await ok(['describe', 'rs', rs[0]!.metadata!.name!, '-n', NS]);
    assert.match(described, /Controlled By:\s+Deployment\/web/);
  });

  it('a CronJob\'s Jobs appear upstream, owned by the CronJob, with their pods', async () => {
    const job = await eventually('a tick Job mirrored, owned by the CronJob, with a mirrored pod', async () => {
      const cj = await up.get(G.cronjobs, 'tick', scope);
      const jobs = (await up.list(G.jobs, scope)).items.filter((j) => controllerOf(j)?.uid === cj.metadata?.uid && j.metadata?.labels?.[MIRROR_LABEL] === 'true');
      for (const j of jobs) if ((await mirrorsOf('Job', j.metadata!.name!)).length > 0) return j;
      return undefined;
    }, 90_000);
    assert.match(job.metadata!.name!, /^tick-\d+$/);
    const out = await ok(['get', 'jobs', '-n', NS, '--no-headers']);
    assert.match(out, /^tick-\d+\s/m, 'kubectl get jobs lists the CronJob\'s Jobs');
  });

  it('kubectl describe and kubectl events show the clusters\' events, the cluster named', async () => {
    await eventually('describe pod db-0 shows its Scheduled event from its cluster', async () => {
      const out = await ok(['describe', 'pod', 'db-0', '-n', NS]);
      return /Scheduled\s.*\[st-[ab]\] Successfully assigned shop\/db-0 to st-[ab]-/.test(out) || undefined;
    }, 60_000);
    // The cluster's namespace (kcp-…) never shows: messages name the workspace's.
    assert.doesNotMatch(await ok(['get', 'events', '-n', NS, '-o', 'jsonpath={.items[*].message}']), /kcp-/);
    let described = '';
    await eventually('describe pod db-0 shows the kubelet starting its container on its cluster', async () => {
      described = await ok(['describe', 'pod', 'db-0', '-n', NS]);
      return /Started\s.*kubelet\s+\[st-[ab]\] Started container c/.test(described) || undefined;
    }, 60_000).catch((err: Error) => {
      throw new Error(`${err.message}\n${described}`);
    });
    await eventually('describe rs of web shows its pods created on both clusters', async () => {
      const rs = (await up.list(G.rs, scope)).items.find((r) => controllerOf(r)?.name === 'web')!;
      const out = await ok(['describe', 'rs', rs.metadata!.name!, '-n', NS]);
      return (/SuccessfulCreate\s.*\[st-a\] Created pod: web--st-a-/.test(out) && /\[st-b\] Created pod: web--st-b-/.test(out)) || undefined;
    }, 60_000);
    await eventually('describe statefulset db shows SuccessfulCreate from its cluster', async () => {
      const out = await ok(['describe', 'statefulset', 'db', '-n', NS]);
      return /SuccessfulCreate\s.*\[st-[ab]\] create Pod db-0/.test(out) || undefined;
    }, 60_000);
    await eventually('kubectl events lists events of both clusters', async () => {
      const out = await ok(['events', '-n', NS]);
      return (/\[st-a\]/.test(out) && /\[st-b\]/.test(out)) || undefined;
    }, 60_000);
    const ev = (await up.list(G.events, scope)).items.find((e) => e.metadata?.labels?.[MIRROR_LABEL] === 'true')!;
    assert.ok(mirrorSourceOf(ev), 'a mirrored event names its original');
  });

  it('users may not create or change mirrors, and are told why', async () => {
    await ok(['create', 'clusterrolebinding', 'alice-admin', '--clusterrole=cluster-admin', '--user=alice']);
    // Labels and annotations are written through to the original (below); anything else of a mirror is the cluster's.
    let r = await k(['patch', 'pod', 'db-0', '-n', NS, '--as=alice', '-p', '{"spec":{"activeDeadlineSeconds":60}}']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /Forbidden.*read-only mirrors of objects on a physical cluster/);
    r = await k(['label', 'pod', 'db-0', `${MIRROR_LABEL}-`, '-n', NS, '--as=alice']);
    assert.match(r.stderr, /Forbidden.*may not be unmarked/);
    r = await k(['create', '-n', NS, '--as=alice', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'fake', labels: { [MIRROR_LABEL]: 'true' } }, spec: { containers: [container('x')] } }));
    assert.match(r.stderr, /Forbidden.*may not be created/);
    // Editing the workload itself is allowed, of course.
    await ok(['label', 'statefulset', 'db', 'owner=alice', '-n', NS, '--as=alice']);
  });

  it('a Deployment pinned to one cluster: its ReplicaSets are mirrored, so describe, rollout history and undo work', async () => {
    const solo = await up.get(G.deploy, 'solo', scope);
    const first = await eventually('solo\'s ReplicaSet mirrored, owning its 2 pods', async () => {
      const rs = (await up.list(G.rs, scope)).items.filter((r) => controllerOf(r)?.uid === solo.metadata?.uid);
      if (rs.length !== 1 || rs[0]!.metadata?.labels?.[MIRROR_LABEL] !== 'true') return undefined;
      return (await mirrorsOf('ReplicaSet', rs[0]!.metadata!.name!)).length === 2 && rs[0]!;
    }, 90_000);
    assert.equal(first.metadata?.labels?.[MIRROR_CLUSTER_LABEL], 'st-a');
    assert.equal(first.metadata?.labels?.['scheduling.atrium.io/revision-history'], undefined, 'the cluster\'s ReplicaSet, not a revision-history one');
    assert.equal(first.metadata?.annotations?.['deployment.kubernetes.io/revision'], '1');
    assert.match(first.metadata!.name!, /^solo-[a-z0-9]+$/, 'named as on the cluster');
    let described = '';
    await eventually('describe deploy solo: NewReplicaSet and ScalingReplicaSet from st-a', async () => {
      described = await ok(['describe', 'deploy', 'solo', '-n', NS]);
      return (new RegExp(`NewReplicaSet:\\s+${first.metadata!.name} \\(2/2 replicas created\\)`).test(described) && new RegExp(`ScalingReplicaSet\\s.*\\[st-a\\] Scaled up replica set ${first.metadata!.name} from 0 to 2`).test(described)) || undefined;
    }, 60_000).catch((err: Error) => {
      throw new Error(`${err.message}\n${described}`);
    });
    // Read-only like every mirror.
    const r = await k(['scale', 'rs', first.metadata!.name!, '--replicas=5', '-n', NS, '--as=alice']);
    assert.match(r.stderr, /Forbidden.*read-only mirrors/);

    await ok(['set', 'image', 'deployment/solo', 'c=nginx:1.28', '-n', NS]);
    await ok(['rollout', 'status', 'deployment/solo', '-n', NS, '--timeout=120s']);
    await eventually('solo\'s pods run nginx:1.28, owned by its second ReplicaSet', async () => {
      const pods = (await up.list(G.pods, scope)).items.filter((p) => p.metadata?.labels?.app === 'solo');
      return (pods.length === 2 && pods.every((p) => (p.spec as { containers: { image: string }[] }).containers[0]!.image === 'nginx:1.28' && controllerOf(p)?.name !== first.metadata!.name)) || undefined;
    }, 90_000);
    const history = await ok(['rollout', 'history', 'deployment/solo', '-n', NS]);
    assert.match(history, /^1\s/m);
    assert.match(history, /^2\s/m);
    described = await ok(['describe', 'deploy', 'solo', '-n', NS]);
    assert.match(described, new RegExp(`OldReplicaSets:\\s+${first.metadata!.name} \\(0/0 replicas created\\)`));
    await ok(['rollout', 'undo', 'deployment/solo', '-n', NS]);
    // The cluster rolls back; its ReplicaSet of the restored template (revision 3) is mirrored and owns the pods.
    // (The cluster may make that ReplicaSet anew rather than reuse the first: the template kubectl patches back comes
    // from the upstream mirror, whose defaulting can differ from the cluster's; either way revision 3 runs 1.27.)
    await eventually('after undo, solo\'s pods run nginx:1.27 again, owned by the mirrored ReplicaSet of revision 3', async () => {
      const pods = (await up.list(G.pods, scope)).items.filter((p) => p.metadata?.labels?.app === 'solo');
      const rs = (await up.list(G.rs, scope)).items.find((x) => controllerOf(x)?.uid === solo.metadata?.uid && x.metadata?.annotations?.['deployment.kubernetes.io/revision'] === '3');
      return (pods.length === 2 && rs?.metadata?.labels?.[MIRROR_LABEL] === 'true' && pods.every((p) => (p.spec as { containers: { image: string }[] }).containers[0]!.image === 'nginx:1.27' && controllerOf(p)?.uid === rs.metadata?.uid)) || undefined;
    }, 120_000);
    assert.match(await ok(['rollout', 'history', 'deployment/solo', '-n', NS]), /^3\s/m);
    // Never both: no revision-history ReplicaSet for a Deployment synced whole; the split one has no mirrored ones.
    const all = (await up.list(G.rs, scope)).items;
    assert.deepEqual(all.filter((x) => controllerOf(x)?.uid === solo.metadata?.uid && x.metadata?.labels?.[MIRROR_LABEL] !== 'true').map((x) => x.metadata?.name), []);
    const web = await up.get(G.deploy, 'web', scope);
    assert.deepEqual(all.filter((x) => controllerOf(x)?.uid === web.metadata?.uid && x.metadata?.labels?.[MIRROR_LABEL] === 'true').map((x) => x.metadata?.name), []);
  });

  it('kubectl get pvc lists the StatefulSet\'s claims, Bound, read-only, never synced down', async () => {
    const out = await eventually('data-db-0 and data-db-1 Bound upstream', async () => {
      const o = await ok(['get', 'pvc', '-n', NS, '--no-headers']);
      return (/^data-db-0\s+Bound\s+pvc-\S+\s+1Gi\s+RWO/m.test(o) && /^data-db-1\s+Bound\s/m.test(o) && o) || undefined;
    }, 90_000);
    assert.ok(out);
    const claim = await up.get(G.pvc, 'data-db-0', scope);
    const source = mirrorSourceOf(claim)!;
    assert.equal(claim.metadata?.labels?.[MIRROR_LABEL], 'true');
    assert.deepEqual(claim.metadata?.ownerReferences ?? [], [], 'kube 1.32 sets no owner without a retention policy');
    assert.equal(source.namespace, await downNs(source.syncTargetName));
    const described = await ok(['describe', 'pvc', 'data-db-0', '-n', NS]);
    assert.match(described, /Status:\s+Bound/);
    assert.match(described, /Capacity:\s+1Gi/);
    assert.match(described, /Used By:\s+db-0/);
    assert.match(described, /Labels:[\s\S]*scheduling\.atrium\.io\/cluster=st-[ab]/);
    const r = await k(['label', 'pvc', 'data-db-0', 'x=y', '-n', NS, '--as=alice']);
    assert.match(r.stderr, /Forbidden.*read-only mirrors/);
    // The other cluster never gets a copy of the mirror; its own cluster keeps its claim, untouched.
    const other = TARGETS.find((t) => t !== source.syncTargetName)!;
    const otherNs = await downNs(other);
    const copies = (await fleet.cluster(other).client.list(G.pvc, { namespace: otherNs })).items.filter((c) => c.metadata?.name?.startsWith('data-db-'));
    const stsThere = (await fleet.cluster(other).client.list(G.sts, { namespace: otherNs })).items.map((o) => o.metadata?.name);
    assert.equal(copies.length, 0, `claims on ${other} (${otherNs}), StatefulSets there ${JSON.stringify(stsThere)}: ${JSON.stringify(copies.map((c) => ({ name: c.metadata?.name, created: c.metadata?.creationTimestamp })))}`);
    assert.equal((await fleet.cluster(source.syncTargetName).client.get(G.pvc, 'data-db-0', { namespace: source.namespace })).metadata?.uid, claim.metadata?.annotations?.['scheduling.atrium.io/downstream-uid']);
  });

  it('a crash-looping container: CrashLoopBackOff in get pods, BackOff on describe pod, counted not repeated', async () => {
    let described = '';
    const pod = await eventually('crash\'s pod mirrored in CrashLoopBackOff', async () => {
      const r = (await podRows('app=crash')).find((p) => p.status === 'CrashLoopBackOff');
      return r;
    }, 90_000);
    await eventually('describe pod shows the kubelet\'s BackOff from st-b, with the workspace\'s namespace', async () => {
      described = await ok(['describe', 'pod', pod.name, '-n', NS]);
      return new RegExp(`Warning\\s+BackOff\\s.*kubelet\\s+\\[st-b\\] Back-off restarting failed container c in pod ${pod.name}_${NS}\\(`).test(described) || undefined;
    }, 60_000).catch((err: Error) => {
      throw new Error(`${err.message}\n${described}`);
    });
    assert.match(described, /Last State:\s+Terminated\s+Reason:\s+Error\s+Exit Code:\s+1/);
    const backOffs = (await up.list(G.events, scope)).items.filter((e) => (e as { reason?: string }).reason === 'BackOff' && (e as { involvedObject?: { name?: string } }).involvedObject?.name === pod.name);
    assert.equal(backOffs.length, 1, 'one event, counted');
  });

  it('kubectl delete pod of a mirror restarts the pod: the original goes, its controller makes a new one, which is mirrored', async () => {
    const victim = (await podRows('app=web')).find((p) => p.name.startsWith('web--st-a-'))!;
    const mirror = await up.get(G.pods, victim.name, scope);
    const source = mirrorSourceOf(mirror)!;
    await ok(['delete', 'pod', victim.name, '-n', NS, '--as=alice']);
    await eventually('the original is gone from st-a', async () => {
      const pods = (await fleet.cluster('st-a').client.list(G.pods, { namespace: source.namespace })).items;
      return !pods.some((p) => p.metadata?.name === source.name && !p.metadata?.deletionTimestamp) || undefined;
    }, 30_000);
    await eventually('a replacement is mirrored; web has 4 pods again', async () => {
      const r = await podRows('app=web');
      return (r.length === 4 && !r.some((p) => p.name === victim.name) && r.filter((p) => p.name.startsWith('web--st-a-')).length === 2) || undefined;
    }, 60_000);
  });

  it('kubectl label and annotate of a mirror change the original; relabelled out of its selector, a pod is released and replaced, and stays visible until deleted', async () => {
    const victim = (await podRows('app=web')).find((p) => p.name.startsWith('web--st-b-'))!;
    const source = mirrorSourceOf(await up.get(G.pods, victim.name, scope))!;
    const original = () => fleet.cluster('st-b').client.get(G.pods, source.name, { namespace: source.namespace });
    await ok(['label', 'pod', victim.name, 'debug=true', '-n', NS, '--as=alice']);
    await ok(['annotate', 'pod', victim.name, 'note=looking at it', '-n', NS, '--as=alice']);
    // Read your write: the mirror has both at once, and the original on st-b has them.
    const mirror = await up.get(G.pods, victim.name, scope);
    assert.equal(mirror.metadata?.labels?.debug, 'true');
    assert.equal(mirror.metadata?.annotations?.note, 'looking at it');
    assert.equal((await original()).metadata?.labels?.debug, 'true');
    assert.equal((await original()).metadata?.annotations?.note, 'looking at it');
    assert.deepEqual((await podRows('debug=true')).map((p) => p.name), [victim.name]);
    // The familiar quarantine: out of the ReplicaSet's selector, the pod is released there and a replacement made.
    await ok(['label', 'pod', victim.name, 'app=quarantine', '--overwrite', '-n', NS, '--as=alice']);
    await eventually('the released pod mirrored without an owner, and web at 4 pods again', async () => {
      const released = await up.get(G.pods, victim.name, scope).catch(() => undefined);
      const web = await podRows('app=web');
      return (released && controllerOf(released) === undefined && released.metadata?.labels?.app === 'quarantine' && web.length === 4 && !web.some((p) => p.name === victim.name)) || undefined;
    }, 60_000);
    assert.equal(controllerOf(await original()), undefined, 'released on its cluster');
    assert.deepEqual((await podRows('app=quarantine')).map((p) => [p.name, p.cluster]), [[victim.name, 'st-b']]);
    // A bookkeeping label is not a user's to change, through any path.
    const r = await k(['label', 'pod', victim.name, `${MIRROR_CLUSTER_LABEL}=st-a`, '--overwrite', '-n', NS, '--as=alice']);
    assert.match(r.stderr, /Forbidden/);
    // Deleted, it goes from its cluster too.
    await ok(['delete', 'pod', victim.name, '-n', NS, '--as=alice']);
    await eventually('the released pod is gone from st-b and from the workspace', async () => {
      const gone = await original().then(() => false, (e: { code?: number }) => e.code === 404);
      return (gone && (await podRows('app=quarantine')).length === 0) || undefined;
    }, 30_000);
  });

  it('rollout history and undo of the split Deployment still work, and mirrors follow the new template', async () => {
    await ok(['set', 'image', 'deployment/web', 'c=nginx:1.28', '-n', NS]);
    await ok(['rollout', 'status', 'deployment/web', '-n', NS, '--timeout=120s']);
    await eventually('web\'s mirrored pods run nginx:1.28', async () => {
      const pods = (await up.list(G.pods, { ...scope })).items.filter((p) => p.metadata?.labels?.app === 'web');
      return (pods.length === 4 && pods.every((p) => (p.spec as { containers: { image: string }[] }).containers[0]!.image === 'nginx:1.28')) || undefined;
    }, 90_000);
    const history = await ok(['rollout', 'history', 'deployment/web', '-n', NS]);
    assert.match(history, /^1\s/m);
    assert.match(history, /^2\s/m);
    await ok(['rollout', 'undo', 'deployment/web', '-n', NS]);
    await eventually('after undo, web\'s mirrored pods run nginx:1.27 again, owned by the first ReplicaSet', async () => {
      const pods = (await up.list(G.pods, { ...scope })).items.filter((p) => p.metadata?.labels?.app === 'web');
      return (pods.length === 4 && pods.every((p) => (p.spec as { containers: { image: string }[] }).containers[0]!.image === 'nginx:1.27' && controllerOf(p)?.kind === 'ReplicaSet')) || undefined;
    }, 120_000);
  });

  it('mirrors vanish when a workload is scaled down or deleted', async () => {
    await ok(['scale', 'statefulset/db', '--replicas=1', '-n', NS]);
    await eventually('db-1\'s mirror is gone', async () => (await podRows('app=db')).map((p) => p.name).join() === 'db-0' || undefined, 60_000);
    await ok(['delete', 'daemonset', 'agent', '-n', NS]);
    await eventually('the agent mirrors are gone', async () => (await podRows('app=agent')).length === 0 || undefined, 60_000);
  });
  it('kubectl logs and exec of a workload (job/, deployment/, statefulset/) find its pods among the mirrors', async () => {
    // kubectl picks a pod by the workload's selector: for a Job the one upstream generated from the upstream uid.
    for (const ref of ['job/once', 'deployment/web', 'statefulset/db']) {
      const logs = await k(['logs', ref, '-n', NS]);
      assert.equal(logs.code, 0, `kubectl logs ${ref}: ${logs.stderr}`);
      assert.match(logs.stdout, /starting container c /, `kubectl logs ${ref}`);
    }
    const exec = await k(['exec', 'deployment/web', '-n', NS, '--', 'echo', 'hi']);
    assert.equal(exec.code, 0, exec.stderr);
    assert.equal(exec.stdout.trim(), 'hi');
  });

  it('a pod with an init container and a sidecar: READY counts the sidecar, logs -c and describe reach both through the workspace', async () => {
    const shipped = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'shipped', labels: { 'workload.kcp.io/cluster': 'st-b' } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'shipped' } },
        template: {
          metadata: { labels: { app: 'shipped' } },
          spec: {
            initContainers: [{ name: 'setup', image: 'busybox:1.37' }, { name: 'shipper', image: 'alpine:3.20', restartPolicy: 'Always' }],
            containers: [container('nginx:1.27')],
          },
        },
      },
    };
    await ok(['apply', '-n', NS, '-f', '-'], JSON.stringify(shipped));
    await ok(['rollout', 'status', 'deployment/shipped', '-n', NS, '--timeout=90s']);
    const row = await eventually('shipped\'s pod mirrored, 2/2 Running', async () => {
      const line = (await ok(['get', 'pods', '-n', NS, '-l', 'app=shipped', '--no-headers'])).trim().split('\n').find((l) => /\s2\/2\s+Running\s/.test(l));
      return line?.split(/\s+/);
    }, 60_000);
    const name = row[0]!;
    const logs = await ok(['logs', name, '-n', NS, '-c', 'shipper']);
    assert.match(logs, /starting container shipper/);
    const described = await ok(['describe', 'pod', name, '-n', NS]);
    assert.match(described, /^Init Containers:\n\s+setup:[^]*State:\s+Terminated\n\s+Reason:\s+Completed[^]*\n\s+shipper:[^]*State:\s+Running/m, described);
    await ok(['delete', 'deployment', 'shipped', '-n', NS]);
  });

  it('a pods quota counts the mirrors but never refuses them (they record what runs); a user\'s pod is refused', async () => {
    await ok(['create', 'quota', 'pods', '--hard=pods=1', '-n', NS]);
    await ok(['scale', 'deployment/web', '--replicas=6', '-n', NS]);
    await eventually('six web pods mirrored despite the quota', async () => (await podRows('app=web')).filter((p) => p.status === 'Running').length === 6 || undefined, 120_000);
    const used = await eventually('the quota counts the mirrors', async () => {
      const q = JSON.parse(await ok(['get', 'quota', 'pods', '-n', NS, '-o', 'json']));
      const n = Number(q.status?.used?.pods ?? 0);
      return n >= 6 ? n : undefined;
    }, 30_000);
    assert.ok(used >= 6);
    const r = await k(['run', 'extra', '--image=nginx', '-n', NS]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /exceeded quota: pods, requested: pods=1, used: pods=\d+, limited: pods=1/);
  });
});
