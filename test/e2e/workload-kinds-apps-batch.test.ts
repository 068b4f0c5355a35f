/**
 * The StatefulSet, DaemonSet, Job, CronJob, PodDisruptionBudget and HorizontalPodAutoscaler kinds of `atrium
 * pcluster` with the real kubectl: `kubectl apply` of one of each, `kubectl get all` lists them, `kubectl get
 * sts,ds,cj,pdb,hpa` and `kubectl get jobs` print kube-apiserver 1.32's columns, `kubectl scale sts` scales, and
 * `kubectl explain statefulset.spec.updateStrategy` explains from the published OpenAPI.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runKubectl } from '../helpers/harness.js';
import { upstreamFieldDescription } from '../../src/apiserver/openapi/upstream-descriptions.js';
import { freshAge, kubectlJson, kubectlOk, sleep } from './support/kubectl-run.js';

let child: ChildProcess;
let rootDir: string;
const k = { kubectl: (args: string[], opts?: { input?: string }) => runKubectl(join(rootDir, 'admin.kubeconfig'), args, opts) };

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

/**
 * The tables of a kubectl get output, one per blank-line-separated block, each as rows of cells keyed by header. Cells
 * are cut at the header's column positions, so headers with spaces (NODE SELECTOR) and empty cells (DURATION) work.
 */
function tables(stdout: string): { headers: string[]; rows: Record<string, string>[] }[] {
  return stdout
    .split(/\n\s*\n/)
    .map((block) => block.split('\n').filter((l) => l.trim() !== ''))
    .filter((lines) => lines.length > 0)
    .map(([header, ...lines]) => {
      const starts: number[] = [];
      const headers: string[] = [];
      for (const m of header!.matchAll(/\S+(?: \S+)*/g)) {
        starts.push(m.index!);
        headers.push(m[0]);
      }
      const rows = lines.map((line) => Object.fromEntries(headers.map((h, i) => [h, line.slice(starts[i], starts[i + 1]).trim()])));
      return { headers, rows };
    });
}

const manifests = `
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
  labels: {app.kubernetes.io/name: db, app.kubernetes.io/managed-by: Helm}
spec:
  serviceName: db-headless
  replicas: 2
  selector:
    matchLabels: {app.kubernetes.io/name: db}
  template:
    metadata:
      labels: {app.kubernetes.io/name: db}
    spec:
      containers:
      - name: postgres
        image: postgres:16.3
        ports: [{name: tcp-postgres, containerPort: 5432}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 8Gi}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels: {app.kubernetes.io/name: agent}
  template:
    metadata:
      labels: {app.kubernetes.io/name: agent}
    spec:
      nodeSelector: {kubernetes.io/os: linux}
      containers:
      - name: fluent-bit
        image: cr.fluentbit.io/fluent/fluent-bit:3.0.7
---
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: migrate
        image: ghcr.io/shop/migrate:2.3.0
---
apiVersion: batch/v1
kind: CronJob
metadata:
  name: backup
spec:
  schedule: "30 2 * * *"
  timeZone: Europe/Berlin
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
          - name: backup
            image: ghcr.io/shop/backup:1.0.1
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: db
spec:
  minAvailable: 1
  selector:
    matchLabels: {app.kubernetes.io/name: db}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: StatefulSet, name: db}
  minReplicas: 2
  maxReplicas: 6
  metrics:
  - type: Resource
    resource:
      name: cpu
      target: {type: Utilization, averageUtilization: 70}
`;

before(async () => {
  rootDir = mkdtempSync(join(tmpdir(), 'atrium-kinds-e2e-'));
  const bin = join(process.cwd(), 'bin', 'atrium');
  // The API as kube-apiserver serves it, without a controller manager: no workload controller writes status here.
  child = spawn(process.execPath, [bin, 'pcluster', '--name', 'kinds', '--root-dir', rootDir, '--nodes', '1', '--ready-delay', '200ms', '--controllers', '-*'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', () => {});
  await until('pcluster to serve', async () => (out.includes('is serving at') && existsSync(join(rootDir, 'admin.kubeconfig')) ? true : undefined), 20_000);
});

after(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  rmSync(rootDir, { recursive: true, force: true });
});

describe('the apps, batch, policy and autoscaling kinds with kubectl', () => {
  it('kubectl apply creates one of each, and applying again changes nothing', async () => {
    const out = await kubectlOk(k, ['apply', '-f', '-'], { input: manifests });
    assert.deepEqual(out.trim().split('\n'), [
      'statefulset.apps/db created',
      'daemonset.apps/agent created',
      'job.batch/migrate created',
      'cronjob.batch/backup created',
      'poddisruptionbudget.policy/db created',
      'horizontalpodautoscaler.autoscaling/web created',
    ]);
    // kubectl re-sends what it cannot diff, as against kube-apiserver: the atomic volumeClaimTemplates list (read back
    // with apiVersion, kind, volumeMode and status) and the PDB selector (patch strategy "replace"). The server finds
    // nothing changed: generations stay at 1.
    const again = await kubectlOk(k, ['apply', '-f', '-'], { input: manifests });
    assert.deepEqual(again.trim().split('\n'), [
      'statefulset.apps/db configured',
      'daemonset.apps/agent unchanged',
      'job.batch/migrate unchanged',
      'cronjob.batch/backup unchanged',
      'poddisruptionbudget.policy/db configured',
      'horizontalpodautoscaler.autoscaling/web unchanged',
    ]);
    for (const kind of ['sts/db', 'pdb/db', 'ds/agent', 'job/migrate', 'cj/backup']) {
      assert.equal((await kubectlJson(k, ['get', kind])).metadata.generation, 1, kind);
    }
  });

  it('kubectl get all lists them', async () => {
    const out = await kubectlOk(k, ['get', 'all']);
    const names = tables(out).flatMap((t) => t.rows.map((r) => r.NAME));
    for (const name of ['daemonset.apps/agent', 'statefulset.apps/db', 'horizontalpodautoscaler.autoscaling/web', 'cronjob.batch/backup', 'job.batch/migrate']) {
      assert.ok(names.includes(name), `${name} in\n${out}`);
    }
    assert.ok(!names.some((n) => n.startsWith('poddisruptionbudget')), 'PodDisruptionBudgets are not in the all category');
  });

  it('kubectl get sts,ds,cj,pdb,hpa prints the columns kube-apiserver prints', async () => {
    const out = await kubectlOk(k, ['get', 'sts,ds,cj,pdb,hpa']);
    const [sts, ds, cj, pdb, hpa] = tables(out);
    assert.deepEqual(sts!.headers, ['NAME', 'READY', 'AGE']);
    assert.deepEqual([sts!.rows[0]!.NAME, sts!.rows[0]!.READY], ['statefulset.apps/db', '0/2']);
    assert.match(sts!.rows[0]!.AGE!, freshAge);
    assert.deepEqual(ds!.headers, ['NAME', 'DESIRED', 'CURRENT', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'NODE SELECTOR', 'AGE']);
    assert.deepEqual(Object.values(ds!.rows[0]!).slice(0, 7), ['daemonset.apps/agent', '0', '0', '0', '0', '0', 'kubernetes.io/os=linux']);
    assert.deepEqual(cj!.headers, ['NAME', 'SCHEDULE', 'TIMEZONE', 'SUSPEND', 'ACTIVE', 'LAST SCHEDULE', 'AGE']);
    assert.deepEqual(Object.values(cj!.rows[0]!).slice(0, 6), ['cronjob.batch/backup', '30 2 * * *', 'Europe/Berlin', 'False', '0', '<none>']);
    assert.deepEqual(pdb!.headers, ['NAME', 'MIN AVAILABLE', 'MAX UNAVAILABLE', 'ALLOWED DISRUPTIONS', 'AGE']);
    assert.deepEqual(Object.values(pdb!.rows[0]!).slice(0, 4), ['poddisruptionbudget.policy/db', '1', 'N/A', '0']);
    assert.deepEqual(hpa!.headers, ['NAME', 'REFERENCE', 'TARGETS', 'MINPODS', 'MAXPODS', 'REPLICAS', 'AGE']);
    assert.deepEqual(Object.values(hpa!.rows[0]!).slice(0, 6), ['horizontalpodautoscaler.autoscaling/web', 'StatefulSet/db', 'cpu: <unknown>/70%', '2', '6', '0']);

    const wide = tables(await kubectlOk(k, ['get', 'sts', '-o', 'wide']))[0]!;
    assert.deepEqual(wide.headers, ['NAME', 'READY', 'AGE', 'CONTAINERS', 'IMAGES']);
    assert.deepEqual([wide.rows[0]!.CONTAINERS, wide.rows[0]!.IMAGES], ['postgres', 'postgres:16.3']);
  });

  it('kubectl get jobs shows the 1.32 STATUS column', async () => {
    const [jobs] = tables(await kubectlOk(k, ['get', 'jobs']));
    assert.deepEqual(jobs!.headers, ['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE']);
    assert.deepEqual([jobs!.rows[0]!.NAME, jobs!.rows[0]!.STATUS, jobs!.rows[0]!.COMPLETIONS, jobs!.rows[0]!.DURATION], ['migrate', 'Running', '0/1', '']);
    const wide = tables(await kubectlOk(k, ['get', 'job', 'migrate', '-o', 'wide']))[0]!;
    assert.match(wide.rows[0]!.SELECTOR!, /^batch\.kubernetes\.io\/controller-uid=[0-9a-f-]{36}$/);
  });

  it('kubectl scale sts/db --replicas=3 scales through /scale', async () => {
    assert.equal((await kubectlOk(k, ['scale', 'sts/db', '--replicas=3'])).trim(), 'statefulset.apps/db scaled');
    const db = await kubectlJson(k, ['get', 'sts', 'db']);
    assert.deepEqual([db.spec.replicas, db.metadata.generation], [3, 2]);
    const [sts] = tables(await kubectlOk(k, ['get', 'sts', 'db']));
    assert.equal(sts!.rows[0]!.READY, '0/3');
  });

  it('kubectl explain statefulset.spec.updateStrategy explains the field', async () => {
    const out = await kubectlOk(k, ['explain', 'statefulset.spec.updateStrategy']);
    assert.match(out, /^GROUP:\s+apps$/m);
    assert.match(out, /^KIND:\s+StatefulSet$/m);
    assert.match(out, /^VERSION:\s+v1$/m);
    assert.match(out, /^FIELD: updateStrategy <StatefulSetUpdateStrategy>$/m);
    assert.match(out, /^\s+rollingUpdate\s+<RollingUpdateStatefulSetStrategy>$/m);
    assert.match(out, /^\s+type\s+<string>$/m);
    // The description is Kubernetes' own, as kubernetes-types 1.30.0 publishes it (kubectl wraps it over lines).
    const published = upstreamFieldDescription('io.k8s.api.apps.v1.StatefulSetSpec', 'updateStrategy');
    assert.ok(published, 'kubernetes-types describes StatefulSetSpec.updateStrategy');
    assert.ok(out.replace(/\s+/g, ' ').includes(published.split(/\s+/).slice(0, 10).join(' ')), out);
  });

  it('kubectl reads the HPA through autoscaling/v1 too', async () => {
    const v1 = await kubectlJson(k, ['get', 'horizontalpodautoscalers.v1.autoscaling', 'web']);
    assert.equal(v1.apiVersion, 'autoscaling/v1');
    assert.equal(v1.spec.targetCPUUtilizationPercentage, 70);
  });
});
