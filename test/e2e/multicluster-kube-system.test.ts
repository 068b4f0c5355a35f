/**
 * Workloads in a workspace's kube-system are placed like any other namespace's (scheduling/types.ts
 * UNSCHEDULED_NAMESPACES), with the real kubectl against two simulated clusters (in process, push mode, compute
 * bound): a log-agent DaemonSet in the style of the Kubernetes documentation's fluentd example (with the ConfigMap
 * it mounts) and a Deployment, both `kubectl apply`'d into kube-system, run on both clusters with their status back
 * upstream and their pods mirrored (`kubectl get pods -n kube-system`). Downstream they live in the hashed namespace
 * of the workspace's kube-system, never in the cluster's own kube-system, and so does a ConfigMap no pod names (its
 * agents may read it through the API); what is not a placed workload's (a Secret no pod names, a Lease,
 * kube-root-ca.crt) reaches no cluster; kube-node-lease is never placed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runKubectl } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { fastScheduling, startFleet, type InProcessFleet } from '../helpers/fleet.js';
import { locatorOf } from '../../src/multicluster/api/keys.js';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { tableRows } from './support/kubectl-run.js';

const NS = 'kube-system';
const gvr = (group: string, version: string, resource: string) => ({ group, version, resource });
const G = {
  ns: gvr('', 'v1', 'namespaces'),
  pods: gvr('', 'v1', 'pods'),
  cm: gvr('', 'v1', 'configmaps'),
  secrets: gvr('', 'v1', 'secrets'),
  leases: gvr('coordination.k8s.io', 'v1', 'leases'),
  ds: gvr('apps', 'v1', 'daemonsets'),
  deploy: gvr('apps', 'v1', 'deployments'),
};
const NODES: Record<string, number> = { 'cluster-1': 1, 'cluster-2': 2 };

const MANIFESTS = `
apiVersion: v1
kind: ConfigMap
metadata:
  name: fluentd-config
  namespace: kube-system
data:
  fluent.conf: "<match **>\\n  @type stdout\\n</match>\\n"
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: agent-settings
  namespace: kube-system
data:
  a: b
---
apiVersion: v1
kind: Secret
metadata:
  name: unused-settings
  namespace: kube-system
stringData:
  a: b
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: fluentd-elasticsearch
  namespace: kube-system
  labels:
    k8s-app: fluentd-logging
spec:
  selector:
    matchLabels:
      name: fluentd-elasticsearch
  template:
    metadata:
      labels:
        name: fluentd-elasticsearch
    spec:
      tolerations:
      - key: node-role.kubernetes.io/control-plane
        operator: Exists
        effect: NoSchedule
      containers:
      - name: fluentd-elasticsearch
        image: quay.io/fluentd_elasticsearch/fluentd:v2.5.2
        resources:
          limits:
            memory: 200Mi
          requests:
            cpu: 100m
            memory: 200Mi
        volumeMounts:
        - name: config
          mountPath: /etc/fluent
      volumes:
      - name: config
        configMap:
          name: fluentd-config
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: metrics-relay
  namespace: kube-system
spec:
  replicas: 3
  selector:
    matchLabels:
      app: metrics-relay
  template:
    metadata:
      labels:
        app: metrics-relay
    spec:
      containers:
      - name: relay
        image: nginx:1.27
`;

describe('workloads in kube-system are placed', { timeout: 300_000 }, () => {
  let fleet: InProcessFleet;
  const k = (args: string[], input?: string) => runKubectl(fleet.kubeconfig, args, input !== undefined ? { input } : {});
  const ok = async (args: string[], input?: string) => {
    const r = await k(args, input);
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stdout}\n${r.stderr}`);
    return r.stdout;
  };
  /** The downstream namespace of the workspace's kube-system on cluster `c`, if created. */
  const downstreamNs = async (c: string) =>
    ((await fleet.cluster(c).client.list(G.ns)).items as KubeObject[]).find((n) => locatorOf(n)?.namespace === NS)?.metadata?.name;
  const names = async (c: string, r: typeof G.pods, namespace: string) =>
    ((await fleet.cluster(c).client.list(r, { namespace })).items as KubeObject[]).filter((o) => !o.metadata?.deletionTimestamp).map((o) => o.metadata!.name!).sort();

  before(async () => {
    fleet = await startFleet({
      name: 'kubesystem',
      clusters: Object.entries(NODES).map(([name, nodes]) => ({ name, nodes })),
      multicluster: fastScheduling(),
      server: { builtinControllers: true },
      bindCompute: true,
      waitReady: { resources: ['deployments', 'daemonsets', 'configmaps', 'secrets'], timeoutMs: 60_000 },
    });
  });

  after(async () => {
    await fleet?.stop();
  });

  it('kube-system is placed; kube-node-lease is not', async () => {
    await ok(['create', 'namespace', 'kube-node-lease']);
    await eventually('kube-system placed', async () => {
      const ns = await fleet.up.get<KubeObject>(G.ns, NS);
      return ns.metadata?.annotations?.['scheduling.kcp.io/placement'] === 'default' && Object.keys(ns.metadata?.labels ?? {}).filter((l) => l.startsWith('state.workload.kcp.io/')).length === 2;
    }, 30_000, 200);
    // default is placed by the same Placement, in the same pass as kube-node-lease would be.
    await eventually('default placed', async () => (await fleet.up.get<KubeObject>(G.ns, 'default')).metadata?.annotations?.['scheduling.kcp.io/placement'] === 'default', 30_000, 200);
    const lease = await fleet.up.get<KubeObject>(G.ns, 'kube-node-lease');
    assert.equal(lease.metadata?.annotations?.['scheduling.kcp.io/placement'], undefined);
    assert.deepEqual(Object.keys(lease.metadata?.labels ?? {}).filter((l) => l.startsWith('state.workload.kcp.io/')), []);
  });

  it('a DaemonSet and a Deployment applied into kube-system run on both clusters with status back', async () => {
    await ok(['apply', '-f', '-'], MANIFESTS);
    await fleet.up.create(G.leases, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'agent-leader' }, spec: { holderIdentity: 'me' } }, { namespace: NS });
    const total = Object.values(NODES).reduce((a, b) => a + b, 0);
    const r = await k(['-n', NS, 'rollout', 'status', 'daemonset/fluentd-elasticsearch', '--timeout=120s']);
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    assert.equal((await k(['-n', NS, 'rollout', 'status', 'deployment/metrics-relay', '--timeout=120s'])).code, 0);
    const ds = await eventually('DaemonSet status summed upstream', async () => {
      const o = await fleet.up.get<KubeObject>(G.ds, 'fluentd-elasticsearch', { namespace: NS });
      const s = o.status as Record<string, number> | undefined;
      return s?.numberReady === total && s.desiredNumberScheduled === total && s.observedGeneration === o.metadata?.generation && o;
    }, 60_000, 200);
    assert.ok(ds);
    const d = await eventually('Deployment status upstream', async () => {
      const o = await fleet.up.get<KubeObject>(G.deploy, 'metrics-relay', { namespace: NS });
      const s = o.status as Record<string, number> | undefined;
      return s?.readyReplicas === 3 && s.availableReplicas === 3 && o;
    }, 60_000, 200);
    assert.ok(d);

    for (const c of Object.keys(NODES)) {
      const down = await downstreamNs(c);
      assert.ok(down, `${c}: a downstream namespace for kube-system`);
      assert.match(down!, /^kcp-[0-9a-z]{12}$/);
      // The DaemonSet's pods: one per node of this cluster, in the hashed namespace.
      const pods = ((await fleet.cluster(c).client.list(G.pods, { namespace: down! })).items as KubeObject[]).filter((p) => p.metadata?.labels?.name === 'fluentd-elasticsearch');
      assert.deepEqual(pods.map((p) => (p.spec as { nodeName?: string }).nodeName).sort(), fleet.cluster(c).pcluster!.nodeNames, `${c}: a fluentd pod per node`);
      // The ConfigMap the DaemonSet mounts followed it, and so did the one no pod names (read through the API); the
      // unused Secret, the Lease and kube-root-ca.crt's copy did not.
      const cms = await names(c, G.cm, down!);
      assert.ok(cms.includes('fluentd-config'), `${c}: ${cms}`);
      await eventually(`${c}: agent-settings followed the workloads`, async () => (await names(c, G.cm, down!)).includes('agent-settings'), 30_000, 200);
      assert.ok(!(await names(c, G.secrets, down!)).includes('unused-settings'), `${c}: the unused Secret stays upstream`);
      const copied = ((await fleet.cluster(c).client.list(G.cm, { namespace: down! })).items as KubeObject[]).find((o) => o.metadata?.name === 'kube-root-ca.crt');
      assert.ok(!copied || copied.metadata?.labels?.['internal.workload.kcp.io/cluster'] === undefined, `${c}: kube-root-ca.crt is the cluster's own`);
      assert.deepEqual(await names(c, G.leases, down!), [], `${c}: no Lease synced`);
      // Nothing of the workspace's landed in the cluster's own kube-system.
      assert.deepEqual((await names(c, G.ds, NS)).filter((n) => n === 'fluentd-elasticsearch'), [], `${c}: real kube-system untouched`);
      assert.deepEqual((await names(c, G.deploy, NS)).filter((n) => n.startsWith('metrics-relay')), [], `${c}: real kube-system untouched`);
      assert.deepEqual((await names(c, G.cm, NS)).filter((n) => n === 'fluentd-config' || n === 'agent-settings'), [], `${c}: real kube-system untouched`);
      assert.deepEqual((await names(c, G.secrets, NS)).filter((n) => n === 'unused-settings'), [], `${c}: real kube-system untouched`);
    }
  });

  it('kubectl get pods -n kube-system shows the mirrors of their pods, Running', async () => {
    const total = Object.values(NODES).reduce((a, b) => a + b, 0);
    await eventually('mirrors of every pod', async () => {
      const rows = tableRows(await ok(['-n', NS, 'get', 'pods'])).slice(1);
      const running = (prefix: string) => rows.filter((r) => r[0]!.startsWith(prefix) && r[2] === 'Running' && r[1] === '1/1').length;
      return running('fluentd-elasticsearch-') === total && running('metrics-relay-') === 3;
    }, 60_000, 300);
    const wide = tableRows(await ok(['-n', NS, 'get', 'pods', '-l', 'name=fluentd-elasticsearch', '-o', 'wide'])).slice(1);
    assert.equal(wide.length, total);
  });
});
