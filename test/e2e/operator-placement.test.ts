/**
 * "Operators are useful": a controller-runtime operator that knows nothing about clusters reconciles its custom
 * resource into bare Pods, a Service and a Job in a workspace, and those are placed on the workspace's clusters and
 * report back as if the workspace were one cluster.
 *
 * The operator is real Go: TestOperatorWebApp in test/clients/go/operator_test.go (client-go and controller-runtime,
 * a typed WebApp, `For(WebApp).Owns(Pod).Owns(Service).Owns(Job)`, owner references by SetControllerReference, status
 * through the status subresource). This suite compiles the client suite's test binary (`go test -c`, which only links
 * when .ci/run has compiled it before) and runs it as a long-lived process with a plain admin kubeconfig whose server
 * is the workspace (`https://.../clusters/root:shop`); closing its stdin stops it.
 *
 * The fleet: atrium with the multi-cluster controllers and the built-in ones (the garbage collector), two simulated
 * clusters (cluster-1, cluster-2, two nodes each) registered in push mode as SyncTargets of root:shop, which binds its
 * own compute (Placement `default`, spread over All). The CRD (test/clients/go/testdata) is installed in root:shop.
 *
 * One WebApp `store` (replicas 3, migrate: true) in namespace `web`, then, in order:
 * 1. the operator creates Pods store-0..2, Service store and Job store-migrate in the workspace, each with one
 *    controller owner reference to the WebApp;
 * 2. they are placed: every Pod and the Job whole on exactly one cluster (a downstream copy with the same containers,
 *    the Job with the same completions and parallelism), the Service on every cluster that runs one of its Pods;
 * 3. status comes back up: the upstream Pods turn Ready, the upstream Job Complete with succeeded 1, and from those
 *    (through its Owns watches) the operator writes status.readyPods 3, jobSucceeded true and Ready=True;
 * 4. deleting the WebApp garbage-collects the Pods, the Service and the Job in the workspace and on the clusters.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { startFleet, fastScheduling, type InProcessFleet } from '../helpers/fleet.js';
import { eventuallyWith, GiveUp } from '../helpers/eventually.js';
import { locatorOf } from '../../src/multicluster/api/keys.js';
import type { KubeObject } from '../../src/apimachinery/object.js';
import type { RestClient } from '../../src/client/rest-client.js';

/** The checkout root: the nearest ancestor of this file (source or dist/) that holds package.json. */
function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the checkout root above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
  return dir;
}

const GO_DIR = join(repoRoot(), 'test', 'clients', 'go');
const CRD_FILE = join(GO_DIR, 'testdata', 'webapps.example.atrium.dev.yaml');

const podsGVR = { group: '', version: 'v1', resource: 'pods' };
const servicesGVR = { group: '', version: 'v1', resource: 'services' };
const jobsGVR = { group: 'batch', version: 'v1', resource: 'jobs' };
const namespacesGVR = { group: '', version: 'v1', resource: 'namespaces' };
const crdsGVR = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };
const webAppsGVR = { group: 'example.atrium.dev', version: 'v1', resource: 'webapps' };

const CLUSTERS = ['cluster-1', 'cluster-2'];
const NS = 'web';
const APP = 'store';
const POD_NAMES = [0, 1, 2].map((i) => `${APP}-${i}`);
const JOB_NAME = `${APP}-migrate`;

const eventually = eventuallyWith({ timeoutMs: 60_000, intervalMs: 200 });

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
}
const condition = (o: KubeObject | undefined, type: string): Condition | undefined => ((o?.status as { conditions?: Condition[] } | undefined)?.conditions ?? []).find((c) => c.type === type);
const containersOf = (podSpec: unknown) => ((podSpec as { containers?: { name: string; image: string; command?: string[] }[] } | undefined)?.containers ?? []).map((c) => ({ name: c.name, image: c.image, command: c.command }));

/** The operator process: the client suite's test binary running TestOperatorWebApp. */
class Operator {
  output = '';
  private child?: ChildProcess;

  /** Compiles the client suite's test binary into `dir` (only links when the build cache has it, as after .ci/run). */
  static async build(dir: string): Promise<string> {
    const binary = join(dir, 'clients.test');
    const r = await run('go', ['test', '-c', '-o', binary, '.'], GO_DIR, 10 * 60_000);
    assert.equal(r.code, 0, `go test -c in test/clients/go exited ${r.code}:\n${r.output}`);
    return binary;
  }

  /** Starts the operator against `kubeconfig` and waits until its caches are synced. */
  async start(binary: string, kubeconfig: string): Promise<void> {
    const child = spawn(binary, ['-test.run', '^TestOperatorWebApp$', '-test.v', '-test.count=1', '-test.timeout=30m'], {
      cwd: GO_DIR,
      env: { ...process.env, ATRIUM_KUBECONFIG: kubeconfig, ATRIUM_OPERATOR: 'run' },
      stdio: ['pipe', 'pipe', 'pipe'], // stdin stays open: closing it stops the operator
    });
    this.child = child;
    child.stdout!.on('data', (b) => (this.output += b));
    child.stderr!.on('data', (b) => (this.output += b));
    await eventually('the WebApp operator to start (caches synced)', () => {
      if (child.exitCode !== null) throw new GiveUp(`the operator exited ${child.exitCode}:\n${this.output}`);
      return this.output.includes('webapp-operator: caches synced');
    });
  }

  /** Closes its stdin (it stops its manager and exits) and waits; SIGKILL after 15 s. */
  async stop(): Promise<void> {
    const c = this.child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.stdin!.end();
    const timer = setTimeout(() => c.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }

  tail(n = 4000): string {
    return `--- operator output (last ${n} chars)\n${this.output.slice(-n)}`;
  }
}

function run(command: string, args: string[], cwd: string, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, GOFLAGS: `${process.env.GOFLAGS ?? ''} -mod=mod`.trim() }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d));
    child.stderr.on('data', (d: Buffer) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`${command} could not be started (${err.message}): the operator test needs the Go toolchain (1.26 or newer) on PATH`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('a controller-runtime operator in a workspace: its Pods, Service and Job are placed on the clusters and report back', { timeout: 15 * 60_000 }, () => {
  let fleet: InProcessFleet;
  let ws: { path: string; cluster: string };
  const operator = new Operator();
  let webApp: KubeObject;
  let binDir: string | undefined;
  /** Set once every Pod and the Job had a downstream copy: the downstream half of the deletion test needs it. */
  let placedSeen = false;

  const up = (): RestClient => fleet.up;
  const inWs = (namespace?: string) => ({ cluster: ws.cluster, ...(namespace ? { namespace } : {}) });
  const getUp = (gvr: typeof podsGVR, name: string) => up().get(gvr, name, inWs(NS)).catch((e: { code?: number }) => (e.code === 404 ? undefined : Promise.reject(e)));

  /** The namespace on cluster `name` that holds root:shop's `web` (undefined while there is none). */
  const downstreamNs = async (name: string): Promise<string | undefined> =>
    (await fleet.cluster(name).client.list(namespacesGVR)).items.find((n) => locatorOf(n)?.cluster === ws.cluster && locatorOf(n)?.namespace === NS)?.metadata?.name;

  /** What each cluster holds of the WebApp's objects: the downstream copies by name. */
  const downstream = async () => {
    const out: Record<string, { pods: Map<string, KubeObject>; services: Map<string, KubeObject>; jobs: Map<string, KubeObject> }> = {};
    for (const name of CLUSTERS) {
      const ns = await downstreamNs(name);
      const c = fleet.cluster(name).client;
      const byName = async (gvr: typeof podsGVR) => new Map(ns ? (await c.list(gvr, { namespace: ns })).items.map((o) => [o.metadata!.name!, o] as const) : []);
      out[name] = { pods: await byName(podsGVR), services: await byName(servicesGVR), jobs: await byName(jobsGVR) };
    }
    return out;
  };
  const describeDownstream = async () =>
    JSON.stringify(
      Object.fromEntries(
        Object.entries(await downstream()).map(([c, d]) => [c, { pods: [...d.pods.keys()], services: [...d.services.keys()].filter((s) => s !== 'kubernetes'), jobs: [...d.jobs.keys()] }]),
      ),
    );
  /** The syncers' Synced conditions (annotations `synced.workload.kcp.io/<key>`) on the workspace objects, for failure messages. */
  const describeSyncState = async () => {
    const objects = await Promise.all([...POD_NAMES.map((n) => getUp(podsGVR, n)), getUp(servicesGVR, APP), getUp(jobsGVR, JOB_NAME)]);
    return objects
      .filter((o): o is KubeObject => o !== undefined)
      .map((o) => {
        const conditions = Object.entries(o.metadata!.annotations ?? {})
          .filter(([k]) => k.startsWith('synced.workload.kcp.io/'))
          .map(([, v]) => {
            const c = JSON.parse(v) as Condition;
            return `${c.reason}${c.message ? `: ${c.message.slice(0, 300)}` : ''}`;
          });
        return `${o.kind} ${o.metadata!.name}: ${conditions.length ? conditions.join(' | ') : 'no Synced condition (no syncer took it)'}`;
      })
      .join('\n');
  };

  before(async () => {
    // The Go binary first: a broken toolchain or module fails here, before the fleet starts.
    binDir = mkdtempSync(join(tmpdir(), 'atrium-operator-bin-'));
    const binary = await Operator.build(binDir);
    fleet = await startFleet({
      name: 'operator',
      clusters: CLUSTERS.map((name) => ({ name, nodes: 2 })),
      workspace: 'root:shop',
      multicluster: fastScheduling(),
      server: { builtinControllers: true },
      bindCompute: true,
      waitReady: { resources: ['deployments', 'services'], timeoutMs: 60_000 },
    });
    ws = fleet.workspace;

    // The CRD, as a user would `kubectl apply` it into the workspace.
    await up().create(crdsGVR, YAML.parse(readFileSync(CRD_FILE, 'utf8')), inWs());
    await eventually('the WebApp CRD Established', async () => condition(await up().get(crdsGVR, 'webapps.example.atrium.dev', inWs()), 'Established')?.status === 'True');
    await up().create(namespacesGVR, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }, inWs());

    // The operator's kubeconfig: atrium's admin kubeconfig with the workspace as its server, nothing else.
    const kc = YAML.parse(readFileSync(fleet.kubeconfig, 'utf8')) as { clusters: { cluster: { server: string } }[] };
    for (const c of kc.clusters) c.cluster.server = `${new URL(c.cluster.server).origin}/clusters/${ws.path}`;
    const operatorKubeconfig = join(fleet.dir, 'shop.kubeconfig');
    writeFileSync(operatorKubeconfig, YAML.stringify(kc));
    await operator.start(binary, operatorKubeconfig);

    webApp = await up().create(
      webAppsGVR,
      { apiVersion: 'example.atrium.dev/v1', kind: 'WebApp', metadata: { name: APP }, spec: { replicas: 3, image: 'registry.example/store:1.4', migrate: true } },
      inWs(NS),
    );
  });

  after(async () => {
    await operator.stop();
    await fleet?.stop();
    if (binDir) rmSync(binDir, { recursive: true, force: true });
  });

  it('the operator creates the Pods, the Service and the Job in the workspace, owned by the WebApp', async () => {
    const objects = await eventually('Pods store-0..2, Service store and Job store-migrate in the workspace', async () => {
      const found = await Promise.all([...POD_NAMES.map((n) => getUp(podsGVR, n)), getUp(servicesGVR, APP), getUp(jobsGVR, JOB_NAME)]);
      return found.every((o) => o !== undefined) && (found as KubeObject[]);
    }).catch((e: Error) => assert.fail(`${e.message}\n${operator.tail()}`));
    for (const o of objects) {
      assert.deepEqual(
        o.metadata!.ownerReferences,
        [{ apiVersion: 'example.atrium.dev/v1', kind: 'WebApp', name: APP, uid: webApp.metadata!.uid, controller: true, blockOwnerDeletion: true }],
        `${o.kind} ${o.metadata!.name} is owned by the WebApp`,
      );
    }
    const pods = objects.slice(0, 3);
    assert.deepEqual(pods.map((p) => p.metadata!.labels?.app), [APP, APP, APP]);
    assert.deepEqual((objects[3]!.spec as { selector?: Record<string, string> }).selector, { app: APP }, 'the Service selects the Pods');
  });

  it('each Pod and the Job run whole on exactly one cluster, the Service on every cluster that runs its Pods', async () => {
    const upstreamJob = (await getUp(jobsGVR, JOB_NAME))!;
    const upstreamPods = new Map((await Promise.all(POD_NAMES.map((n) => getUp(podsGVR, n)))).map((p, i) => [POD_NAMES[i]!, p!]));
    const placed = await eventually('a downstream copy of every Pod and of the Job', async () => {
      const d = await downstream();
      const all = Object.values(d);
      return POD_NAMES.every((n) => all.some((c) => c.pods.has(n))) && all.some((c) => c.jobs.has(JOB_NAME)) && d;
    }).catch(async (e: Error) => assert.fail(`${e.message}\ndownstream now: ${await describeDownstream()}\nsync state in the workspace:\n${await describeSyncState()}`));
    placedSeen = true;

    for (const name of POD_NAMES) {
      const holders = CLUSTERS.filter((c) => placed[c]!.pods.has(name));
      assert.equal(holders.length, 1, `Pod ${name} runs on exactly one cluster, not ${JSON.stringify(holders)}`);
      const copy = placed[holders[0]!]!.pods.get(name)!;
      assert.deepEqual(containersOf(copy.spec), containersOf(upstreamPods.get(name)!.spec), `the copy of Pod ${name} on ${holders[0]} has the workspace Pod's containers`);
    }
    const jobHolders = CLUSTERS.filter((c) => placed[c]!.jobs.has(JOB_NAME));
    assert.equal(jobHolders.length, 1, `Job ${JOB_NAME} runs on exactly one cluster, not ${JSON.stringify(jobHolders)}`);
    const jobCopy = placed[jobHolders[0]!]!.jobs.get(JOB_NAME)!.spec as { completions?: number; parallelism?: number; template?: { spec?: unknown } };
    const jobUp = upstreamJob.spec as typeof jobCopy;
    assert.deepEqual([jobCopy.completions, jobCopy.parallelism], [jobUp.completions, jobUp.parallelism], 'the Job is not split: same completions and parallelism as in the workspace');
    assert.deepEqual(containersOf(jobCopy.template?.spec), containersOf(jobUp.template?.spec), 'the Job copy runs the workspace Job\'s containers');

    const podClusters = CLUSTERS.filter((c) => POD_NAMES.some((n) => placed[c]!.pods.has(n)));
    await eventually(`Service ${APP} on every cluster that runs its Pods (${podClusters.join(', ')})`, async () => {
      const d = await downstream();
      return podClusters.every((c) => d[c]!.services.has(APP));
    }).catch(async (e: Error) => assert.fail(`${e.message}\ndownstream now: ${await describeDownstream()}`));
  });

  it('pod readiness and the Job\'s completion come back up, and the operator reports them in the WebApp status', async () => {
    await eventually('the workspace Pods Ready', async () => {
      const pods = await Promise.all(POD_NAMES.map((n) => getUp(podsGVR, n)));
      return pods.every((p) => condition(p, 'Ready')?.status === 'True');
    }).catch(async (e: Error) => assert.fail(`${e.message}\ndownstream now: ${await describeDownstream()}`));
    const job = await eventually('the workspace Job Complete', async () => {
      const j = await getUp(jobsGVR, JOB_NAME);
      return condition(j, 'Complete')?.status === 'True' && j;
    }).catch(async (e: Error) => assert.fail(`${e.message}\nworkspace Job status: ${JSON.stringify((await getUp(jobsGVR, JOB_NAME))?.status)}\ndownstream now: ${await describeDownstream()}`));
    assert.equal((job.status as { succeeded?: number }).succeeded, 1);

    const app = await eventually('WebApp status readyPods 3, jobSucceeded, Ready=True', async () => {
      const a = await up().get(webAppsGVR, APP, inWs(NS));
      const s = a.status as { readyPods?: number; jobSucceeded?: boolean } | undefined;
      return s?.readyPods === 3 && s.jobSucceeded === true && condition(a, 'Ready')?.status === 'True' && a;
    }).catch(async (e: Error) => assert.fail(`${e.message}\nWebApp status: ${JSON.stringify((await up().get(webAppsGVR, APP, inWs(NS))).status)}\n${operator.tail()}`));
    const ready = condition(app, 'Ready')!;
    assert.equal(ready.reason, 'AllReady');
    assert.equal(ready.observedGeneration, app.metadata!.generation);
    assert.equal((app.status as { observedGeneration?: number }).observedGeneration, app.metadata!.generation);
  });

  it('deleting the WebApp garbage-collects its Pods, Service and Job in the workspace and on the clusters', async () => {
    await up().delete(webAppsGVR, APP, inWs(NS));
    await eventually('the Pods, the Service and the Job gone from the workspace', async () => {
      const left = await Promise.all([...POD_NAMES.map((n) => getUp(podsGVR, n)), getUp(servicesGVR, APP), getUp(jobsGVR, JOB_NAME)]);
      return left.every((o) => o === undefined);
    }).catch(async (e: Error) => {
      const left = await Promise.all([...POD_NAMES.map((n) => getUp(podsGVR, n)), getUp(servicesGVR, APP), getUp(jobsGVR, JOB_NAME)]);
      assert.fail(`${e.message}\nstill in the workspace: ${JSON.stringify(left.filter((o) => o).map((o) => ({ kind: o!.kind, name: o!.metadata!.name, finalizers: o!.metadata!.finalizers, deletionTimestamp: o!.metadata!.deletionTimestamp })))}`);
    });
    assert.ok(placedSeen, 'the Pods and the Job were never placed on a cluster (see the placement test), so their removal downstream cannot be checked');
    await eventually('the downstream copies gone from both clusters', async () => {
      const d = await downstream();
      return Object.values(d).every((c) => POD_NAMES.every((n) => !c.pods.has(n)) && !c.services.has(APP) && !c.jobs.has(JOB_NAME));
    }).catch(async (e: Error) => assert.fail(`${e.message}\ndownstream now: ${await describeDownstream()}`));
  });
});
