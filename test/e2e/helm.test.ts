/**
 * A real Helm 3 against a workspace with compute: `helm install --wait`, `helm status`, `helm upgrade --wait` with
 * changed values, `helm rollback --wait`, `helm history` and `helm uninstall --wait` of the chart in
 * test/e2e/charts/shop (a Deployment, a StatefulSet with a claim template, Services, a ConfigMap, a Secret, an
 * Ingress, an HPA, a PDB and a pre-install/pre-upgrade hook Job), through `helm --kubeconfig <workspace kubeconfig>`.
 * After each release every object of its manifest (`helm get manifest`) is ready as on one cluster (the checks of
 * the app corpus, test/e2e/support/workloads.ts) and the clusters run what the release says.
 *
 * Helm is the one .ci/run builds into $HOME/.cache/atrium/bin/helm (helm.sh/helm/v3 v3.17.4, client-go v0.32, as
 * kubectl 1.32), or else `helm` on PATH; the suite fails when neither exists.
 *
 * The fleet: `atrium start` and two `atrium pcluster` processes (2 nodes each, pods ready 200 ms after scheduling),
 * registered as SyncTargets of root:helm in push mode, compute bound.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import YAML from 'yaml';
import { startFleet, type ProcessFleet } from '../helpers/fleet.js';
import { eventually } from '../helpers/eventually.js';
import { assertReady, diagnose, downstreamCopies, downstreamNamespace, gvr, jobComplete, readinessChecks, selectorString, upstream, namespaceOf, type Manifest, type Target } from './support/workloads.js';

const chart = resolve(import.meta.dirname, '..', '..', '..', 'test', 'e2e', 'charts', 'shop');
const NS = 'shop';
const NODES = 4;

/** The helm binary .ci/run builds, else the first `helm` on PATH; undefined when there is none. */
function findHelm(): string | undefined {
  const candidates = [join(homedir(), '.cache', 'atrium', 'bin', 'helm'), ...(process.env.PATH ?? '').split(delimiter).filter(Boolean).map((d) => join(d, 'helm'))];
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      // next
    }
  }
  return undefined;
}

describe('helm install, upgrade and rollback into a workspace with compute', { timeout: 600_000 }, () => {
  let fleet: ProcessFleet;
  let t: Target;
  let helmBin: string;
  let helmEnv: Record<string, string>;

  const helm = (args: string[], timeoutMs = 240_000) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      const p = spawn(helmBin, [...args, '--kubeconfig', t.kubeconfig], { env: { ...process.env, ...helmEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (b) => (stdout += b));
      p.stderr.on('data', (b) => (stderr += b));
      const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
      p.on('error', (err) => done({ code: -1, stdout, stderr: stderr + String(err) }));
      p.on('close', (code) => {
        clearTimeout(timer);
        done({ code: code ?? -1, stdout, stderr });
      });
    });
  const web = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'shop-web', namespace: NS } } as Manifest;
  const db = { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'shop-db', namespace: NS } } as Manifest;
  const migrate = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'shop-migrate', namespace: NS } } as Manifest;
  const config = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shop', namespace: NS } } as Manifest;
  /**
   * Asserts helm exited 0; on failure prints what it said (with --debug, its wait log: which object it found not
   * ready) and the state of the chart's workloads upstream and on the clusters.
   */
  const helmOk = async (args: string[]) => {
    const r = await helm(args);
    if (r.code !== 0) {
      const diags = await Promise.all([web, db, migrate].map(async (o) => `${o.kind} ${NS}/${o.metadata.name}:\n${await diagnose(t, o)}`));
      const log = r.stderr.split('\n').filter((l) => /ready\.go|wait\.go|client\.go|Error|error|not ready|hook/.test(l) && !/^\s/.test(l)).slice(-25).join('\n');
      assert.fail(`helm ${args.join(' ')} exited ${r.code}\nstdout: ${r.stdout.slice(-1500)}\nhelm's log: ${log}\n${diags.join('\n')}`);
    }
    return r.stdout;
  };
  /** Every object of the release's manifest is ready as on one cluster. */
  const releaseReady = async () => {
    const manifest = YAML.parseAllDocuments(await helmOk(['get', 'manifest', 'shop', '-n', NS])).map((d) => d.toJSON() as Manifest).filter(Boolean);
    assert.ok(manifest.length >= 9, `helm get manifest lists the chart's objects: ${manifest.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}`);
    const objects = manifest.map((o) => ({ ...o, metadata: { ...o.metadata, namespace: o.metadata.namespace ?? NS } }));
    const failures: string[] = [];
    await Promise.all(objects.flatMap((o) => readinessChecks(o, objects, NODES)).map((c) => assertReady(t, c, 90_000).catch((e: Error) => failures.push(e.message))));
    assert.deepEqual(failures, [], failures.join('\n\n'));
  };
  const podsOf = async (o: Manifest) => {
    const cur = await upstream(t, o);
    const out: any[] = [];
    for (const d of t.downstream) {
      const dns = await downstreamNamespace(t, d.client, NS);
      if (!dns) continue;
      out.push(...((await d.client.list(gvr('Pod'), { namespace: dns }, { labelSelector: selectorString(cur?.spec?.selector) })).items as any[]).filter((p) => !p.metadata.deletionTimestamp));
    }
    return out;
  };
  const clustersRun = async (image: string, replicas: number) => {
    let seen: string[] = [];
    await eventually(`${replicas} shop-web pods running ${image} on the clusters`, async () => {
      const pods = await podsOf(web);
      seen = pods.map((p) => `${p.metadata.name}:${p.spec.containers[0].image}:${p.status?.phase}`);
      return pods.length === replicas && pods.every((p) => p.spec.containers[0].image === image && p.status?.phase === 'Running');
    }, 60_000, 1000).catch(async (e: Error) => assert.fail(`${e.message.split(';')[0]}; pods seen: ${seen.join(', ') || 'none'}\n${await diagnose(t, web)}`));
  };
  const data = async (o: Manifest) => (await upstream(t, o))?.data ?? {};
  const image = async () => (await upstream(t, web))?.spec?.template?.spec?.containers?.[0]?.image;

  before(async () => {
    const found = findHelm();
    assert.ok(found, `helm is missing: neither ${join(homedir(), '.cache', 'atrium', 'bin', 'helm')} nor helm on PATH exists. Build it as .ci/run does: GOBIN=$HOME/.cache/atrium/bin go install helm.sh/helm/v3/cmd/helm@v3.17.4`);
    helmBin = found;
    fleet = await startFleet({
      name: 'helm',
      processes: {},
      clusters: ['cluster-1', 'cluster-2'].map((name) => ({ name, nodes: NODES / 2, nodeCapacity: { cpu: '8', memory: '32Gi', pods: '110' }, readyDelayMs: 200 })),
      workspace: 'root:helm',
      bindCompute: true,
      waitReady: { resources: ['deployments'], timeoutMs: 60_000 },
    });
    const kc = YAML.parse(readFileSync(fleet.kubeconfig, 'utf8')) as { clusters: { cluster: { server: string } }[] };
    for (const c of kc.clusters) c.cluster.server = `${new URL(c.cluster.server).origin}/clusters/${fleet.workspace.path}`;
    const kubeconfig = join(fleet.dir, 'helm.kubeconfig');
    writeFileSync(kubeconfig, YAML.stringify(kc), { mode: 0o600 });
    t = { kubeconfig, up: fleet.up, cluster: fleet.workspace.cluster, downstream: fleet.clusters.map((c) => ({ name: c.name, client: c.client })) };
    // Helm's state and kubectl's discovery cache in the fleet's temp dir, not the user's.
    const home = join(fleet.dir, 'helm-home');
    mkdirSync(home, { recursive: true });
    helmEnv = { HOME: home, HELM_CACHE_HOME: join(home, 'cache'), HELM_CONFIG_HOME: join(home, 'config'), HELM_DATA_HOME: join(home, 'data'), KUBECONFIG: '' };
  });

  after(async () => {
    await fleet?.stop();
  });

  it('helm version runs', async () => {
    const r = await helm(['version', '--short']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^v3\./);
  });

  it('helm install --wait: the hook Job ran first, the release is deployed, every object is ready', async () => {
    const out = await helmOk(['install', 'shop', chart, '-n', NS, '--create-namespace', '--wait', '--timeout', '90s', '--debug']);
    assert.match(out, /^STATUS: deployed$/m);
    assert.match(out, /^REVISION: 1$/m);
    assert.match(out, /The shop 1\.25\.5 is installed as shop-web in shop\./);
    await assertReady(t, jobComplete(migrate), 10_000);
    await releaseReady();
    await clustersRun('nginx:1.25.5', 2);
  });

  it('helm status reports the release deployed at revision 1', async () => {
    const out = await helmOk(['status', 'shop', '-n', NS]);
    assert.match(out, /^NAME: shop$/m);
    assert.match(out, /^NAMESPACE: shop$/m);
    assert.match(out, /^STATUS: deployed$/m);
    assert.match(out, /^REVISION: 1$/m);
  });

  it('helm upgrade --wait with new values: the hook ran again, the new image and configuration run', async () => {
    const hookBefore = (await upstream(t, migrate))?.metadata?.uid;
    const out = await helmOk(['upgrade', 'shop', chart, '-n', NS, '-f', join(chart, 'values-v2.yaml'), '--wait', '--timeout', '90s', '--debug']);
    assert.match(out, /has been upgraded/);
    assert.match(out, /^REVISION: 2$/m);
    const hook = await upstream(t, migrate);
    assert.ok(hook && hook.metadata.uid !== hookBefore, 'the pre-upgrade hook Job was created anew (hook-delete-policy before-hook-creation)');
    await assertReady(t, jobComplete(migrate), 10_000);
    assert.equal(await image(), 'nginx:1.27.1');
    assert.equal((await upstream(t, web))?.spec?.replicas, 3);
    assert.equal((await data(config)).GREETING, 'hello from v2');
    assert.equal((await upstream(t, { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'shop-web', namespace: NS } } as Manifest))?.spec?.minReplicas, 3);
    await releaseReady();
    await clustersRun('nginx:1.27.1', 3);
    // The ConfigMap reached the clusters with the new data.
    for (const d of t.downstream) {
      const { copies } = await downstreamCopies(t, d.client, config);
      for (const c of copies) assert.equal(c.data?.GREETING, 'hello from v2', `${d.name} holds the upgraded ConfigMap`);
    }
  });

  it('helm rollback --wait to revision 1: the first image, replicas and configuration are back', async () => {
    const r = await helmOk(['rollback', 'shop', '1', '-n', NS, '--wait', '--timeout', '90s', '--debug']);
    assert.match(r, /Rollback was a success/);
    const status = await helmOk(['status', 'shop', '-n', NS]);
    assert.match(status, /^STATUS: deployed$/m);
    assert.match(status, /^REVISION: 3$/m);
    assert.equal(await image(), 'nginx:1.25.5');
    // The HPA governs shop-web's replicas: rev 1's minReplicas is back, and, as on Kubernetes, its scale-down
    // stabilization window may keep the recent recommendation (3) rather than rev 1's replicaCount (2).
    const hpa = await upstream(t, { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'shop-web', namespace: NS } } as Manifest);
    assert.deepEqual([hpa?.spec?.minReplicas, hpa?.spec?.maxReplicas], [2, 4]);
    const replicas = (await upstream(t, web))?.spec?.replicas as number;
    assert.ok(replicas >= 2 && replicas <= 4, `shop-web replicas ${replicas} within the HPA's 2..4`);
    assert.equal((await data(config)).GREETING, 'hello from v1');
    await releaseReady();
    await clustersRun('nginx:1.25.5', (await upstream(t, web))?.spec?.replicas as number);
  });

  it('helm history lists install, upgrade and rollback', async () => {
    const out = await helmOk(['history', 'shop', '-n', NS, '-o', 'json']);
    const history = (JSON.parse(out) as { revision: number; status: string; description: string }[]).map((h) => [h.revision, h.status, h.description]);
    assert.deepEqual(history, [
      [1, 'superseded', 'Install complete'],
      [2, 'superseded', 'Upgrade complete'],
      [3, 'deployed', 'Rollback to 1'],
    ]);
  });

  it('helm uninstall --wait removes the release and its objects, upstream and on the clusters', async () => {
    const out = await helmOk(['uninstall', 'shop', '-n', NS, '--wait', '--timeout', '90s']);
    assert.match(out, /release "shop" uninstalled/);
    assert.equal(await upstream(t, web), undefined, 'the Deployment is gone upstream');
    await eventually('the Deployment copies gone from the clusters', async () => {
      for (const d of t.downstream) if ((await downstreamCopies(t, d.client, web)).copies.length) return false;
      return true;
    }, 60_000, 1000);
    assert.equal(namespaceOf(web), NS);
  });
});
