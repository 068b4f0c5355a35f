/**
 * The Kubernetes workload types served natively in a workspace with compute, checked with the real kubectl and the
 * real `kubectl-atrium`: atrium with the multicluster options and simulated physical clusters (pc1 and pc2 standard,
 * pc3 publishing DeploymentSpec.replicas as a string, as `atrium pcluster --deployment-schema replicas-as-string`),
 * all in push mode. Workspace root:fleet holds pc1 and pc2 and binds its own compute; root:plain has none.
 *
 * Covered: `bind compute` waits until Deployments are served (a `kubectl apply` right after works), `kubectl get
 * deploy` (short name) and `kubectl get all` (category), `kubectl scale` through the scale subresource (the splitter
 * re-splits), `kubectl patch` with a strategic merge by container name (reaching the clusters), `kubectl rollout
 * status` on the aggregated root, `kubectl explain` from the served OpenAPI, a Pod created directly in the workspace
 * (placed whole on one cluster, its status from there),
 * a workspace without compute not serving Deployments, and an incompatible cluster marked with the exact field path
 * while the type stays served natively and the cluster gets no work.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { runKubectl, startTestServer, type TestServer } from '../helpers/harness.js';
import { eventually as eventuallyPoll } from '../helpers/eventually.js';
import { startPcluster, type RunningPcluster } from '../../src/pcluster/pcluster.js';
import { multiclusterServerOptions } from '../../src/multicluster/server-options.js';
import { RestClient } from '../../src/client/rest-client.js';
import { locatorOf } from '../../src/multicluster/api/keys.js';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { tableRows } from './support/kubectl-run.js';

const deploymentsGVR = { group: 'apps', version: 'v1', resource: 'deployments' };
const namespacesGVR = { group: '', version: 'v1', resource: 'namespaces' };
const syncTargetsGVR = { group: 'workload.kcp.io', version: 'v1alpha1', resource: 'synctargets' };
const workspacesGVR = { group: 'tenancy.kcp.io', version: 'v1alpha1', resource: 'workspaces' };
const bin = join(process.cwd(), 'bin');

const eventually = <T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> => eventuallyPoll(what, probe, timeoutMs, 100);

const manifest = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 4
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: c
        image: nginx:1
      - name: sidecar
        image: busybox:1
`;

describe('the workload types served natively in a workspace with compute', { timeout: 300_000 }, () => {
  let atrium: TestServer;
  let up: RestClient;
  const pclusters: RunningPcluster[] = [];
  const dirs: string[] = [];
  let fleet: { cluster: string };
  let fleetConfig: string;
  let plainConfig: string;

  const kubectl = (config: string, args: string[], input?: string) => runKubectl(config, args, { input });
  const ok = async (config: string, args: string[], input?: string) => {
    const r = await kubectl(config, args, input);
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stdout}\n${r.stderr}`);
    return r.stdout;
  };
  const plugin = (args: string[], config: string) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(process.execPath, [join(bin, 'kubectl-atrium'), ...args], { env: { ...process.env, KUBECONFIG: config } }, (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      ),
    );
  /** The admin kubeconfig pointed into a workspace by path, as `kubectl ws use` leaves it. */
  const configFor = (path: string) => {
    const kc = YAML.parse(readFileSync(atrium.kubeconfig, 'utf8')) as { clusters: { cluster: { server: string } }[] };
    for (const c of kc.clusters) c.cluster.server = `${new URL(c.cluster.server).origin}/clusters/${path}`;
    const file = join(atrium.rootDir, `${path.replace(/:/g, '_')}.kubeconfig`);
    writeFileSync(file, YAML.stringify(kc));
    return file;
  };
  const workspace = async (name: string) => {
    await up.create(workspacesGVR, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name }, spec: {} });
    const ws = await eventually(`workspace ${name} Ready`, async () => {
      const w = await up.get(workspacesGVR, name);
      return (w.status as { phase?: string } | undefined)?.phase === 'Ready' && w;
    });
    return { cluster: (ws.spec as { cluster: string }).cluster };
  };
  const register = (i: number) =>
    up.create(syncTargetsGVR, { apiVersion: 'workload.kcp.io/v1alpha1', kind: 'SyncTarget', metadata: { name: `pc${i}` }, spec: { kubeconfig: readFileSync(pclusters[i - 1]!.kubeconfigPath, 'utf8') } }, fleet);
  const deploymentsIn = async () => (await up.list(deploymentsGVR, { ...fleet, namespace: 'default' })).items;
  const shares = async () =>
    Object.fromEntries(
      (await deploymentsIn()).filter((d) => d.metadata?.labels?.['scheduling.atrium.io/split-from'] === 'web').map((d) => [d.metadata!.name!, (d.spec as { replicas: number }).replicas]),
    );
  const rootOf = async () => (await deploymentsIn()).find((d) => d.metadata?.name === 'web');
  /** The copy of `name` on physical cluster `i`, in the namespace located in root:fleet's `default`. */
  const downstreamCopy = async (i: number, name: string): Promise<KubeObject | undefined> => {
    const down = new RestClient({ url: pclusters[i - 1]!.url, ca: pclusters[i - 1]!.caPem, token: pclusters[i - 1]!.adminToken });
    try {
      const ns = (await down.list(namespacesGVR)).items.find((n) => locatorOf(n)?.cluster === fleet.cluster && locatorOf(n)?.namespace === 'default');
      return ns ? await down.get(deploymentsGVR, name, { namespace: ns.metadata!.name! }).catch(() => undefined) : undefined;
    } finally {
      down.close();
    }
  };

  before(async () => {
    atrium = await startTestServer({
      server: {
        builtinControllers: true,
        ...multiclusterServerOptions({
          heartbeatThresholdMs: 3000,
          pushSyncer: { heartbeatIntervalMs: 300, importPollIntervalMs: 300 },
          scheduling: { tolerationSeconds: 1, resyncMs: 300 },
          splitter: { resyncMs: 300 },
        }),
      },
    });
    up = new RestClient({ url: atrium.url, ca: atrium.server.caPem, token: atrium.server.adminToken });
    for (const [i, variant] of [[1, undefined], [2, undefined], [3, 'replicas-as-string']] as const) {
      const rootDir = mkdtempSync(join(tmpdir(), `atrium-native-pc${i}-`));
      dirs.push(rootDir);
      pclusters.push(await startPcluster({ name: `pc${i}`, rootDir, bindAddress: '127.0.0.1', securePort: 0, nodes: 2, readyDelayMs: 100, deploymentSchema: variant }));
    }
    fleet = await workspace('fleet');
    await workspace('plain');
    fleetConfig = configFor('root:fleet');
    plainConfig = configFor('root:plain');
    await register(1);
    await register(2);
    for (const t of ['pc1', 'pc2']) {
      await eventually(`${t} Ready with Deployments Accepted`, async () => {
        const st = (await up.get(syncTargetsGVR, t, fleet)).status as { conditions?: { type: string; status: string }[]; syncedResources?: { resource: string; state: string }[] } | undefined;
        return st?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') && st.syncedResources?.find((r) => r.resource === 'deployments')?.state === 'Accepted';
      });
    }
  });

  after(async () => {
    up?.close();
    await atrium?.stop();
    for (const pc of pclusters) await pc.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('a workspace without compute does not serve Deployments or Pods', async () => {
    const r = await kubectl(plainConfig, ['get', 'deploy']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /error: the server doesn't have a resource type "deploy"/);
    const resources = await ok(plainConfig, ['api-resources', '-o', 'name']);
    assert.ok(!/^deployments\.apps$/m.test(resources) && !/^pods$/m.test(resources), resources);
    assert.match(resources, /^services$/m, 'Services stay built in everywhere');
  });

  it('bind compute waits until the workspace serves Deployments: kubectl apply works right after', async () => {
    const bound = await plugin(['bind', 'compute', 'root:fleet'], fleetConfig);
    assert.deepEqual(bound, { code: 0, stdout: 'placement.scheduling.kcp.io/default created (location workspace root:fleet)\n', stderr: 'Waiting for the workspace to serve deployments.apps ... done\n' });
    assert.equal((await ok(fleetConfig, ['apply', '-f', '-'], manifest)).trim(), 'deployment.apps/web created');
    await eventually('web split 2 + 2 and 4/4 ready', async () => {
      const s = await shares();
      return s['web--pc1'] === 2 && s['web--pc2'] === 2 && ((await rootOf())?.status as { readyReplicas?: number } | undefined)?.readyReplicas === 4;
    }, 60_000);
  });

  it('kubectl get deploy (short name) prints the built-in columns; kubectl get all (category) lists the workloads', async () => {
    const rows = tableRows(await ok(fleetConfig, ['get', 'deploy']));
    assert.deepEqual(rows[0], ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
    assert.deepEqual(rows.find((r) => r[0] === 'web')?.slice(1, 4), ['4/4', '4', '4']);
    assert.deepEqual(rows.slice(1).map((r) => r[0]).sort(), ['web', 'web--pc1', 'web--pc2']);
    await ok(fleetConfig, ['create', 'service', 'clusterip', 'web', '--tcp=80:80']);
    const all = await ok(fleetConfig, ['get', 'all', '-o', 'name']);
    for (const name of ['deployment.apps/web', 'deployment.apps/web--pc1', 'deployment.apps/web--pc2', 'service/web']) assert.match(all, new RegExp(`^${name.replace(/[./]/g, '\\$&')}$`, 'm'), all);
  });

  it('kubectl scale goes through the scale subresource and the splitter re-splits', async () => {
    assert.equal((await ok(fleetConfig, ['scale', 'deploy/web', '--replicas=5'])).trim(), 'deployment.apps/web scaled');
    assert.equal(((await rootOf())?.spec as { replicas: number }).replicas, 5);
    const s = await eventually('5 re-split as 3 + 2', async () => {
      const s = await shares();
      return Object.values(s).sort().join(',') === '2,3' && s;
    });
    assert.deepEqual(Object.keys(s).sort(), ['web--pc1', 'web--pc2']);
    // --raw takes the path from the host: the workspace is named in it.
    const scale = JSON.parse(await ok(fleetConfig, ['get', '--raw', '/clusters/root:fleet/apis/apps/v1/namespaces/default/deployments/web/scale']));
    assert.equal(scale.kind, 'Scale');
    assert.equal(scale.spec.replicas, 5);
  });

  it('kubectl patch merges strategically by container name, and the change reaches the clusters', async () => {
    const out = await ok(fleetConfig, ['patch', 'deploy', 'web', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"nginx:2"}]}}}}']);
    assert.equal(out.trim(), 'deployment.apps/web patched');
    const containers = ((await rootOf())!.spec as { template: { spec: { containers: { name: string; image: string }[] } } }).template.spec.containers;
    assert.deepEqual(containers.map((c) => [c.name, c.image]), [['c', 'nginx:2'], ['sidecar', 'busybox:1']], 'the sidecar is kept: a merge by name, not a replacement');
    for (const i of [1, 2]) {
      await eventually(`pc${i} runs nginx:2 next to the sidecar`, async () => {
        const copy = await downstreamCopy(i, `web--pc${i}`);
        const cs = (copy?.spec as { template: { spec: { containers: { name: string; image: string }[] } } } | undefined)?.template.spec.containers ?? [];
        return cs.map((c) => `${c.name}=${c.image}`).join(',') === 'c=nginx:2,sidecar=busybox:1';
      });
    }
  });

  it('kubectl rollout status waits for the whole fleet', async () => {
    assert.match(await ok(fleetConfig, ['rollout', 'status', 'deploy/web', '--timeout=90s']), /deployment "web" successfully rolled out/);
    const status = (await rootOf())!.status as { readyReplicas?: number; updatedReplicas?: number };
    assert.deepEqual([status.readyReplicas, status.updatedReplicas], [5, 5]);
  });

  it('kubectl explain reads the Deployment schema from the served OpenAPI', async () => {
    const out = await ok(fleetConfig, ['explain', 'deployment.spec.strategy']);
    assert.match(out, /GROUP:\s+apps/);
    assert.match(out, /KIND:\s+Deployment/);
    assert.match(out, /FIELD: strategy <DeploymentStrategy>/);
    assert.match(out, /rollingUpdate\s+<RollingUpdateDeployment>/);
  });

  it('a Pod created directly in the workspace is stored and served', async () => {
    assert.equal((await ok(fleetConfig, ['run', 'solo', '--image=nginx', '--restart=Never'])).trim(), 'pod/solo created');
    const rows = tableRows(await ok(fleetConfig, ['get', 'po']));
    assert.deepEqual(rows[0], ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    assert.ok(['Pending', 'ContainerCreating', 'Running'].includes(rows.find((r) => r[0] === 'solo')?.[2] ?? ''), JSON.stringify(rows));
    const pod = JSON.parse(await ok(fleetConfig, ['get', 'pod', 'solo', '-o', 'json']));
    // The cluster binds its copy; once it did, the workspace's Pod shows where, as `<cluster>--<node>` (as the mirrors of
    // controllers' pods do, docs/multicluster.md "What runs, visible in the workspace").
    assert.ok(pod.spec.nodeName === undefined || /^pc[12]--pc[12]-node-\d+$/.test(pod.spec.nodeName), `nodeName ${pod.spec.nodeName}`);
    // A bare Pod runs whole on one cluster of the Placement, and its status comes from there.
    const running = await eventually('solo Running, from its cluster', async () => {
      const row = tableRows(await ok(fleetConfig, ['get', 'po', 'solo'])).find((r) => r[0] === 'solo');
      return row?.[1] === '1/1' && row[2] === 'Running' && row;
    });
    assert.equal(running[3], '0');
    const placed = JSON.parse(await ok(fleetConfig, ['get', 'pod', 'solo', '-o', 'json']));
    assert.equal(Object.keys(placed.metadata.labels ?? {}).filter((l) => l.startsWith('state.workload.kcp.io/')).length, 1);
    assert.equal(placed.status.qosClass, 'BestEffort');
  });

  it('an incompatible cluster is marked with the exact field path; the type stays served natively and the cluster gets no work', async () => {
    await register(3);
    const state = await eventually('deployments Incompatible on pc3', async () => {
      const st = (await up.get(syncTargetsGVR, 'pc3', fleet)).status as { syncedResources?: { resource: string; state: string; message?: string }[] } | undefined;
      const r = st?.syncedResources?.find((x) => x.resource === 'deployments');
      return r?.state === 'Incompatible' && r;
    });
    assert.equal(state.message, 'spec.replicas: type "string" in the cluster does not accept "integer"');
    assert.match(await ok(fleetConfig, ['explain', 'deployment.spec.replicas']), /FIELD: replicas <integer>/);
    await eventually('pc3 Ready', async () => (((await up.get(syncTargetsGVR, 'pc3', fleet)).status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'));
    await new Promise((r) => setTimeout(r, 1500)); // a few scheduler and splitter passes
    assert.deepEqual(Object.keys(await shares()).sort(), ['web--pc1', 'web--pc2']);
    assert.equal(await downstreamCopy(3, 'web--pc3'), undefined);
    const rows = tableRows(await ok(fleetConfig, ['get', 'deploy']));
    assert.deepEqual(rows.find((r) => r[0] === 'web')?.slice(1, 2), ['5/5']);
  });
});
