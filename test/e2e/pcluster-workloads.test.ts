/**
 * `atrium pcluster --nodes 3` with the real kubectl and every workload controller: a StatefulSet with
 * volumeClaimTemplates, `kubectl rollout status|restart sts/...`, a DaemonSet on every node and `rollout status
 * ds/...`, a Job waited for with `kubectl wait --for=condition=complete`, a failing Job (BackoffLimitExceeded), a
 * CronJob on the sped-up clock creating Jobs, an HPA scaling a Deployment up on high simulated CPU, and a PDB with
 * status.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pluginBinDir, runKubectl } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { Proc } from '../helpers/processes.js';
import { kubectlJson, kubectlOk, rowWhere, tableRows } from './support/kubectl-run.js';

let pcluster: Proc;
let rootDir: string;
const k = { kubectl: (args: string[], opts?: { input?: string }) => runKubectl(join(rootDir, 'admin.kubeconfig'), args, opts) };

before(async () => {
  rootDir = mkdtempSync(join(tmpdir(), 'atrium-pcluster-workloads-e2e-'));
  const kubeconfig = join(rootDir, 'admin.kubeconfig');
  pcluster = new Proc(
    'pcluster wl',
    () => [
      join(pluginBinDir, 'atrium'), 'pcluster', '--name', 'wl', '--root-dir', rootDir, '--nodes', '3', '--ready-delay', '300ms',
      '--job-duration', '1s', '--job-backoff', '500ms', '--cronjob-time-scale', '60',
      '--horizontal-pod-autoscaler-sync-period', '1s', '--horizontal-pod-autoscaler-downscale-stabilization', '30s',
    ],
    (out) => out.includes('is serving at') && existsSync(kubeconfig),
  );
  await pcluster.start(30_000);
  await eventually('3 nodes Ready', async () => tableRows(await kubectlOk(k, ['get', 'nodes'])).filter((r) => r[1] === 'Ready').length === 3, 30_000, 200);
});

after(async () => {
  await pcluster?.kill('SIGTERM');
  rmSync(rootDir, { recursive: true, force: true });
});

const statefulSet = (name: string, claims: boolean) => `apiVersion: v1
kind: Service
metadata: {name: ${name}}
spec:
  clusterIP: None
  selector: {app: ${name}}
  ports: [{port: 80}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: ${name}}
spec:
  serviceName: ${name}
  replicas: 3
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: main
        image: nginx:1.27
${claims ? `        volumeMounts: [{name: data, mountPath: /data}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
` : ''}`;

describe('atrium pcluster workload controllers with kubectl', () => {
  it('runs a StatefulSet with volumeClaimTemplates: claims per ordinal, created before their pods', async (t) => {
    await kubectlOk(k, ['apply', '-f', '-'], { input: statefulSet('web', true) });
    const claim = await eventually('claim data-web-0', async () => (await kubectlJson(k, ['get', 'pvc'])).items.find((c: any) => c.metadata.name === 'data-web-0'), 30_000, 200);
    assert.deepEqual(claim.spec.resources, { requests: { storage: '1Gi' } });
    const pod = await kubectlJson(k, ['get', 'pod', 'web-0']);
    assert.deepEqual(pod.spec.volumes[0], { name: 'data', persistentVolumeClaim: { claimName: 'data-web-0' } });
    assert.ok(Date.parse(claim.metadata.creationTimestamp) <= Date.parse(pod.metadata.creationTimestamp), 'the claim is created before its pod');

    // Whether the claims bind depends on a volume provisioner in the cluster, and whether pods wait for unbound
    // claims on the kubelet stand-in: say which case this run is in, and check what it implies.
    const bound = await eventually('claim Bound (or not)', async () => {
      const c = await kubectlJson(k, ['get', 'pvc', 'data-web-0']);
      return c.status?.phase === 'Bound' ? 'Bound' : undefined;
    }, 10_000, 250).catch(() => 'Pending');
    if (bound === 'Pending') {
      t.diagnostic('the claims stay Pending: no volume provisioner binds them in this cluster');
      const p0 = await kubectlJson(k, ['get', 'pod', 'web-0']);
      if (p0.status.phase !== 'Running') {
        t.diagnostic('web-0 waits for its unbound claim: OrderedReady holds web-1 and web-2 back, so no rollout here');
        const names = (await kubectlJson(k, ['get', 'pods', '-l', 'app=web'])).items.map((p: any) => p.metadata.name);
        assert.deepEqual(names, ['web-0']);
        return;
      }
      t.diagnostic('the kubelet stand-in runs pods without waiting for their claims to bind');
    }
    assert.match(await kubectlOk(k, ['rollout', 'status', 'sts/web', '--timeout=90s']), /partitioned roll out complete: 3 new pods have been updated/);
    const claims = tableRows(await kubectlOk(k, ['get', 'pvc']));
    for (const i of [0, 1, 2]) rowWhere(claims, `data-web-${i}`);
  });

  it('kubectl rollout status and rollout restart sts/...', async () => {
    await kubectlOk(k, ['apply', '-f', '-'], { input: statefulSet('cache', false) });
    assert.match(await kubectlOk(k, ['rollout', 'status', 'sts/cache', '--timeout=90s']), /partitioned roll out complete: 3 new pods have been updated/);
    const row = rowWhere(tableRows(await kubectlOk(k, ['get', 'sts'])), 'cache');
    assert.equal(row[1], '3/3');
    const before = (await kubectlJson(k, ['get', 'pods', '-l', 'app=cache'])).items.map((p: any) => p.metadata.uid).sort();
    const s0 = await kubectlJson(k, ['get', 'sts', 'cache']);
    assert.match(await kubectlOk(k, ['rollout', 'restart', 'sts/cache']), /statefulset.apps\/cache restarted/);
    await kubectlOk(k, ['rollout', 'status', 'sts/cache', '--timeout=120s']);
    const s = await eventually('restart complete', async () => {
      const x = await kubectlJson(k, ['get', 'sts', 'cache']);
      return x.status.currentRevision === x.status.updateRevision && x.status.updateRevision !== s0.status.updateRevision && x.status.readyReplicas === 3 ? x : undefined;
    }, 60_000, 250);
    const after = (await kubectlJson(k, ['get', 'pods', '-l', 'app=cache'])).items;
    assert.equal(after.length, 3);
    for (const p of after) {
      assert.ok(!before.includes(p.metadata.uid), `${p.metadata.name} was replaced`);
      assert.equal(p.metadata.labels['controller-revision-hash'], s.status.updateRevision);
      assert.ok(p.metadata.annotations['kubectl.kubernetes.io/restartedAt']);
    }
    const history = await kubectlOk(k, ['rollout', 'history', 'sts/cache']);
    assert.match(history, /^REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/m);
  });

  it('runs a DaemonSet pod on each of the 3 nodes; kubectl rollout status and restart ds/...', async () => {
    await kubectlOk(k, ['apply', '-f', '-'], {
      input: `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
    spec:
      containers: [{name: agent, image: fluentd:1}]
`,
    });
    assert.match(await kubectlOk(k, ['rollout', 'status', 'ds/agent', '--timeout=60s']), /daemon set "agent" successfully rolled out/);
    const ds = tableRows(await kubectlOk(k, ['get', 'ds']));
    assert.deepEqual(ds[0], ['NAME', 'DESIRED', 'CURRENT', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'NODE', 'SELECTOR', 'AGE']);
    assert.deepEqual(rowWhere(ds, 'agent').slice(1, 7), ['3', '3', '3', '3', '3', '<none>']);
    const nodes = (await kubectlJson(k, ['get', 'pods', '-l', 'app=agent'])).items.map((p: any) => p.spec.nodeName).sort();
    assert.deepEqual(nodes, ['wl-node-1', 'wl-node-2', 'wl-node-3']);
    assert.match(await kubectlOk(k, ['rollout', 'restart', 'ds/agent']), /daemonset.apps\/agent restarted/);
    assert.match(await kubectlOk(k, ['rollout', 'status', 'ds/agent', '--timeout=90s']), /daemon set "agent" successfully rolled out/);
    const pods = (await kubectlJson(k, ['get', 'pods', '-l', 'app=agent'])).items;
    assert.equal(pods.length, 3);
    for (const p of pods) assert.equal(p.metadata.labels['pod-template-generation'], '2');
  });

  it('runs a Job to completion: kubectl wait --for=condition=complete', async () => {
    await kubectlOk(k, ['create', 'job', 'hello', '--image=busybox']);
    assert.match(await kubectlOk(k, ['wait', '--for=condition=complete', 'job/hello', '--timeout=60s']), /job.batch\/hello condition met/);
    const row = rowWhere(tableRows(await kubectlOk(k, ['get', 'jobs'])), 'hello');
    assert.deepEqual(row.slice(1, 3), ['Complete', '1/1']);
    const pods = tableRows(await kubectlOk(k, ['get', 'pods', '-l', 'job-name=hello']));
    assert.deepEqual(pods[1]!.slice(1, 4), ['0/1', 'Completed', '0']);
  });

  it('fails a Job whose pods fail: BackoffLimitExceeded', async () => {
    await kubectlOk(k, ['apply', '-f', '-'], {
      input: `apiVersion: batch/v1
kind: Job
metadata: {name: boom}
spec:
  backoffLimit: 1
  template:
    metadata:
      annotations: {sim.atrium.io/exit-code: "1"}
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
`,
    });
    assert.match(await kubectlOk(k, ['wait', '--for=condition=failed', 'job/boom', '--timeout=60s']), /job.batch\/boom condition met/);
    assert.equal(await kubectlOk(k, ['get', 'job', 'boom', '-o', 'jsonpath={.status.conditions[?(@.type=="Failed")].reason}']), 'BackoffLimitExceeded');
    assert.deepEqual(rowWhere(tableRows(await kubectlOk(k, ['get', 'jobs'])), 'boom').slice(1, 3), ['Failed', '0/1']);
    const pods = tableRows(await kubectlOk(k, ['get', 'pods', '-l', 'job-name=boom']));
    assert.equal(pods.length, 3);
    for (const p of pods.slice(1)) assert.equal(p[2], 'Error');
  });

  it('runs a CronJob on the sped-up clock: Jobs named by their scheduled minute', async () => {
    await kubectlOk(k, ['create', 'cronjob', 'tick', '--image=busybox', '--schedule=* * * * *']);
    const jobs = await eventually('two jobs from tick', async () => {
      const items = (await kubectlJson(k, ['get', 'jobs'])).items.filter((j: any) => j.metadata.ownerReferences?.[0]?.name === 'tick');
      return items.length >= 2 ? items : undefined;
    }, 30_000, 250);
    for (const j of jobs) {
      assert.match(j.metadata.name, /^tick-\d+$/);
      assert.match(j.metadata.annotations['batch.kubernetes.io/cronjob-scheduled-timestamp'], /^\d{4}-\d\d-\d\dT\d\d:\d\d:00Z$/);
    }
    const cj = rowWhere(tableRows(await kubectlOk(k, ['get', 'cronjobs'])), 'tick');
    // NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE: the schedule has spaces, so count from the end.
    assert.notEqual(cj.at(-2), '<none>', 'LAST SCHEDULE is set');
    await kubectlOk(k, ['patch', 'cronjob', 'tick', '-p', '{"spec":{"suspend":true}}']);
  });

  it('scales a Deployment up with an HPA on high simulated CPU', async () => {
    await kubectlOk(k, ['apply', '-f', '-'], {
      input: `apiVersion: apps/v1
kind: Deployment
metadata: {name: busy}
spec:
  replicas: 2
  selector:
    matchLabels: {app: busy}
  template:
    metadata:
      labels: {app: busy}
      annotations: {sim.atrium.io/cpu-utilization: "150"}
    spec:
      containers:
      - name: main
        image: nginx
        resources: {requests: {cpu: 100m}}
`,
    });
    await kubectlOk(k, ['rollout', 'status', 'deployment/busy', '--timeout=60s']);
    await kubectlOk(k, ['autoscale', 'deployment', 'busy', '--cpu-percent=80', '--min=1', '--max=5']);
    const row = await eventually('hpa at 5 replicas', async () => {
      const r = rowWhere(tableRows(await kubectlOk(k, ['get', 'hpa'])), 'busy');
      return r.at(-2) === '5' ? r : undefined;
    }, 60_000, 500);
    // NAME REFERENCE TARGETS(cpu: 150%/80%) MINPODS MAXPODS REPLICAS AGE
    assert.deepEqual(row.slice(1, 7), ['Deployment/busy', 'cpu:', '150%/80%', '1', '5', '5']);
    await kubectlOk(k, ['rollout', 'status', 'deployment/busy', '--timeout=60s']);
    assert.equal((await kubectlJson(k, ['get', 'deploy', 'busy'])).status.readyReplicas, 5);
    const described = await kubectlOk(k, ['describe', 'hpa', 'busy']);
    assert.match(described, /SuccessfulRescale\s+.*New size: \d+; reason: cpu resource utilization \(percentage of request\) above target/);
  });

  it('reports a PodDisruptionBudget with status', async () => {
    await kubectlOk(k, ['create', 'pdb', 'busy', '--selector=app=busy', '--min-available=2']);
    const row = await eventually('pdb allows 3', async () => {
      const r = rowWhere(tableRows(await kubectlOk(k, ['get', 'pdb'])), 'busy');
      return r[3] === '3' ? r : undefined;
    }, 30_000, 250);
    assert.deepEqual(tableRows(await kubectlOk(k, ['get', 'pdb']))[0], ['NAME', 'MIN', 'AVAILABLE', 'MAX', 'UNAVAILABLE', 'ALLOWED', 'DISRUPTIONS', 'AGE']);
    assert.deepEqual(row.slice(1, 4), ['2', 'N/A', '3']);
    const pdb = await kubectlJson(k, ['get', 'pdb', 'busy']);
    assert.deepEqual([pdb.status.expectedPods, pdb.status.currentHealthy, pdb.status.desiredHealthy], [5, 5, 2]);
    assert.deepEqual([pdb.status.conditions[0].type, pdb.status.conditions[0].status, pdb.status.conditions[0].reason], ['DisruptionAllowed', 'True', 'SufficientPods']);
  });

  it('kubectl drain evicts through pods/eviction and honours the PodDisruptionBudget', async () => {
    const pods = await kubectlJson(k, ['get', 'pods', '-l', 'app=busy']);
    const node = pods.items[0].spec.nodeName as string;
    const onNode = (pods.items as { spec: { nodeName: string } }[]).filter((p) => p.spec.nodeName === node).length;
    // A budget no eviction fits: drain keeps retrying and says why.
    await kubectlOk(k, ['patch', 'pdb', 'busy', '--type=merge', '-p', '{"spec":{"minAvailable":5}}']);
    await eventually('no disruption allowed', async () => (await kubectlJson(k, ['get', 'pdb', 'busy'])).status.disruptionsAllowed === 0, 30_000, 250);
    const blocked = await k.kubectl(['drain', node, '--ignore-daemonsets', '--delete-emptydir-data', '--pod-selector=app=busy', '--timeout=4s']);
    assert.notEqual(blocked.code, 0, blocked.stdout);
    assert.match(blocked.stderr + blocked.stdout, /Cannot evict pod as it would violate the pod's disruption budget\./);
    assert.equal((await kubectlJson(k, ['get', 'pods', '-l', 'app=busy'])).items.filter((p: { spec: { nodeName: string } }) => p.spec.nodeName === node).length, onNode, 'nothing evicted');
    // Room for it: the node's busy pods are evicted and the Deployment runs them elsewhere.
    await kubectlOk(k, ['patch', 'pdb', 'busy', '--type=merge', '-p', '{"spec":{"minAvailable":2}}']);
    await eventually('disruptions allowed again', async () => (await kubectlJson(k, ['get', 'pdb', 'busy'])).status.disruptionsAllowed > 0, 30_000, 250);
    const drained = await k.kubectl(['drain', node, '--ignore-daemonsets', '--delete-emptydir-data', '--pod-selector=app=busy', '--timeout=60s']);
    assert.equal(drained.code, 0, drained.stderr);
    assert.match(drained.stdout, /evicted/);
    await kubectlOk(k, ['rollout', 'status', 'deployment/busy', '--timeout=60s']);
    assert.equal((await kubectlJson(k, ['get', 'pods', '-l', 'app=busy'])).items.filter((p: { spec: { nodeName: string } }) => p.spec.nodeName === node).length, 0);
    await kubectlOk(k, ['uncordon', node]);
  });
});
