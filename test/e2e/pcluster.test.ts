/**
 * `atrium pcluster` with the real kubectl: the CLI starts a 2-node cluster, kubectl creates and applies Deployments,
 * `kubectl rollout status` waits for them, `kubectl get` shows the real columns, `kubectl scale` scales, an image
 * change rolls out a new ReplicaSet, and an oversized pod stays Pending as Unschedulable.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pluginBinDir, runKubectl } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { Proc } from '../helpers/processes.js';
import { kubectlJson, kubectlOk, tableRows } from './support/kubectl-run.js';

let pcluster: Proc;
let rootDir: string;
const k = { kubectl: (args: string[], opts?: { input?: string }) => runKubectl(join(rootDir, 'admin.kubeconfig'), args, opts) };

before(async () => {
  rootDir = mkdtempSync(join(tmpdir(), 'atrium-pcluster-e2e-'));
  const kubeconfig = join(rootDir, 'admin.kubeconfig');
  pcluster = new Proc(
    'pcluster east',
    () => [join(pluginBinDir, 'atrium'), 'pcluster', '--name', 'east', '--root-dir', rootDir, '--nodes', '2', '--node-capacity', 'cpu=4,memory=16Gi,pods=110', '--ready-delay', '500ms'],
    (out) => out.includes('is serving at') && existsSync(kubeconfig),
  );
  await pcluster.start(20_000);
  assert.match(pcluster.stdout, /^pcluster east is serving at https:\/\/127\.0\.0\.1:\d+ with 2 node\(s\)/);
});

after(async () => {
  await pcluster?.kill('SIGTERM');
  rmSync(rootDir, { recursive: true, force: true });
});

describe('atrium pcluster with kubectl', () => {
  it('lists Ready nodes with the node columns', async () => {
    const out = await eventually('nodes Ready', async () => {
      const o = await kubectlOk(k, ['get', 'nodes']);
      return tableRows(o).filter((r) => r[1] === 'Ready').length === 2 ? o : undefined;
    }, 30_000, 200);
    const rows = tableRows(out);
    assert.deepEqual(rows[0], ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']);
    assert.deepEqual(rows.slice(1).map((r) => [r[0], r[1], r[2], r[4]]), [
      ['east-node-1', 'Ready', '<none>', 'v1.32.0'],
      ['east-node-2', 'Ready', '<none>', 'v1.32.0'],
    ]);
  });

  it('creates a deployment that rolls out, with the real columns for deploy, rs and pods', async () => {
    await kubectlOk(k, ['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=3']);
    const status = await kubectlOk(k, ['rollout', 'status', 'deployment/web', '--timeout=60s']);
    assert.match(status, /deployment "web" successfully rolled out/);

    const deploy = tableRows(await kubectlOk(k, ['get', 'deploy']));
    assert.deepEqual(deploy[0], ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
    assert.deepEqual(deploy[1]!.slice(0, 4), ['web', '3/3', '3', '3']);

    const rs = tableRows(await kubectlOk(k, ['get', 'rs']));
    assert.deepEqual(rs[0], ['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE']);
    assert.match(rs[1]![0]!, /^web-[a-z0-9]+$/);
    assert.deepEqual(rs[1]!.slice(1, 4), ['3', '3', '3']);

    const pods = tableRows(await kubectlOk(k, ['get', 'pods']));
    assert.deepEqual(pods[0], ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    assert.equal(pods.length, 4);
    for (const p of pods.slice(1)) assert.deepEqual(p.slice(1, 4), ['1/1', 'Running', '0']);

    const wide = tableRows(await kubectlOk(k, ['get', 'pods', '-o', 'wide']));
    assert.deepEqual(wide[0], ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED', 'NODE', 'READINESS', 'GATES']);
    const deployWide = tableRows(await kubectlOk(k, ['get', 'deploy', 'web', '-o', 'wide']));
    assert.deepEqual(deployWide[1]!.slice(5), ['nginx', 'nginx:1.27', 'app=web']);
  });

  it('scales up and down with kubectl scale', async () => {
    for (const replicas of [5, 1]) {
      assert.match(await kubectlOk(k, ['scale', 'deployment/web', `--replicas=${replicas}`]), /deployment.apps\/web scaled/);
      await kubectlOk(k, ['rollout', 'status', 'deployment/web', '--timeout=60s']);
      const pods = await eventually(`${replicas} pods`, async () => {
        const items = (await kubectlJson(k, ['get', 'pods', '-l', 'app=web', '-o', 'json'])).items;
        return items.length === replicas ? items : undefined;
      }, 30_000, 200);
      assert.equal(pods.length, replicas);
      const d = await kubectlJson(k, ['get', 'deploy', 'web', '-o', 'json']);
      assert.equal(d.status.readyReplicas, replicas);
    }
  });

  it('rolls an image change out to a new ReplicaSet', async () => {
    const before = (await kubectlJson(k, ['get', 'rs', '-o', 'json'])).items.map((rs: any) => rs.metadata.name);
    await kubectlOk(k, ['set', 'image', 'deployment/web', 'nginx=nginx:1.28']);
    await kubectlOk(k, ['rollout', 'status', 'deployment/web', '--timeout=60s']);
    const rs = (await kubectlJson(k, ['get', 'rs', '-o', 'json'])).items;
    const fresh = rs.filter((r: any) => !before.includes(r.metadata.name));
    assert.equal(fresh.length, 1);
    assert.equal(fresh[0].spec.template.spec.containers[0].image, 'nginx:1.28');
    assert.equal(fresh[0].status.readyReplicas, 1);
    for (const old of rs.filter((r: any) => before.includes(r.metadata.name))) assert.equal(old.spec.replicas, 0);
    const history = await kubectlOk(k, ['rollout', 'history', 'deployment/web']);
    assert.match(history, /^REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/m);
  });

  it('applies a Deployment manifest and re-applies a change (strategic merge by container name)', async () => {
    const manifest = (image: string, replicas: number) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      containers:
      - name: api
        image: ${image}
        ports: [{containerPort: 8080}]
        resources: {requests: {cpu: 100m, memory: 64Mi}}
      - name: sidecar
        image: busybox:1.36
`;
    assert.match(await kubectlOk(k, ['apply', '-f', '-'], { input: manifest('example/api:v1', 3) }), /deployment.apps\/api created/);
    await kubectlOk(k, ['rollout', 'status', 'deployment/api', '--timeout=60s']);
    assert.match(await kubectlOk(k, ['apply', '-f', '-'], { input: manifest('example/api:v2', 3) }), /deployment.apps\/api configured/);
    await kubectlOk(k, ['rollout', 'status', 'deployment/api', '--timeout=60s']);
    const d = await kubectlJson(k, ['get', 'deploy', 'api', '-o', 'json']);
    assert.deepEqual(d.spec.template.spec.containers.map((c: any) => [c.name, c.image]), [['api', 'example/api:v2'], ['sidecar', 'busybox:1.36']]);
    assert.equal(d.status.updatedReplicas, 3);
    assert.equal(d.status.availableReplicas, 3);
  });

  it('keeps a pod with requests bigger than any node Pending as Unschedulable', async () => {
    const pod = `apiVersion: v1
kind: Pod
metadata: {name: huge}
spec:
  containers:
  - name: c
    image: busybox
    resources: {requests: {cpu: "8"}}
`;
    await kubectlOk(k, ['apply', '-f', '-'], { input: pod });
    const cond = await eventually('Unschedulable condition', async () => {
      const p = await kubectlJson(k, ['get', 'pod', 'huge', '-o', 'json']);
      return p.status.conditions?.find((c: any) => c.type === 'PodScheduled');
    }, 30_000, 200);
    assert.deepEqual([cond.status, cond.reason, cond.message], ['False', 'Unschedulable', '0/2 nodes are available: 2 Insufficient cpu.']);
    const row = tableRows(await kubectlOk(k, ['get', 'pod', 'huge']))[1]!;
    assert.deepEqual(row.slice(0, 3), ['huge', '0/1', 'Pending']);
  });

  it('explains the workload types from the served OpenAPI', async () => {
    const out = await kubectlOk(k, ['explain', 'deployment.spec']);
    assert.match(out, /GROUP:\s+apps/);
    assert.match(out, /replicas\s+<integer>/);
    assert.match(out, /strategy\s+<DeploymentStrategy>/);
    assert.match(out, /template\s+<PodTemplateSpec> -required-|template\s+<PodTemplateSpec>/);
  });

  it('deleting a deployment removes its ReplicaSets and pods (garbage collection)', async () => {
    await kubectlOk(k, ['delete', 'deployment', 'web']);
    await eventually('web pods gone', async () => {
      const items = (await kubectlJson(k, ['get', 'pods', '-l', 'app=web', '-o', 'json'])).items;
      const rs = (await kubectlJson(k, ['get', 'rs', '-l', 'app=web', '-o', 'json'])).items;
      return items.length === 0 && rs.length === 0 ? true : undefined;
    }, 30_000, 200);
  });
  it('has the kubernetes Service, Endpoints and EndpointSlice pointing at the cluster\'s API server', async () => {
    const port = Number((await kubectlOk(k, ['config', 'view', '--minify', '-o', 'jsonpath={.clusters[0].cluster.server}'])).trim().split(':').pop());
    // The advertised address is the host's first non-internal IPv4 (Endpoints refuse loopback), as kube-apiserver's.
    const ip = Object.values(networkInterfaces()).flatMap((a) => a ?? []).find((a) => a.family === 'IPv4' && !a.internal)?.address;
    if (ip === undefined) {
      assert.equal((await k.kubectl(['get', 'endpoints', 'kubernetes', '-n', 'default'])).code, 1, 'no routable address: no Endpoints');
    } else {
      const ep = await eventually('default/kubernetes Endpoints', async () => {
        const r = await k.kubectl(['get', 'endpoints', 'kubernetes', '-n', 'default', '-o', 'json']);
        return r.code === 0 ? JSON.parse(r.stdout) : undefined;
      }, 20_000, 200);
      assert.deepEqual(ep.subsets, [{ addresses: [{ ip }], ports: [{ name: 'https', port, protocol: 'TCP' }] }]);
      assert.equal(ep.metadata.labels['endpointslice.kubernetes.io/skip-mirror'], 'true');
      const slice = await kubectlJson(k, ['get', 'endpointslices.discovery.k8s.io', 'kubernetes', '-n', 'default']);
      assert.equal(slice.addressType, 'IPv4');
      assert.deepEqual(slice.endpoints, [{ addresses: [ip], conditions: { ready: true } }]);
      assert.deepEqual(slice.ports, [{ name: 'https', port, protocol: 'TCP' }]);
    }
    const svc = await kubectlJson(k, ['get', 'service', 'kubernetes', '-n', 'default']);
    assert.equal(svc.spec.clusterIP, '10.96.0.1');
    assert.deepEqual(svc.spec.ports, [{ name: 'https', port: 443, protocol: 'TCP', targetPort: port }]);
  });
});
