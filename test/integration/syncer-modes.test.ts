/**
 * Pull/none mode: `kubectl atrium workload sync` registers a cluster and prints the manifest; the syncer runs as a
 * separate `atrium syncer` process with the in-manifest ServiceAccount kubeconfig (what the pull-mode Deployment
 * mounts), so it works with exactly the RBAC the plugin granted.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { startPcluster, type RunningPcluster } from '../../src/pcluster/pcluster.js';
import { multiclusterServerOptions } from '../../src/multicluster/server-options.js';
import { RestClient } from '../../src/client/rest-client.js';
import { locatorOf } from '../../src/multicluster/api/keys.js';
import { eventually as eventuallyPoll } from '../helpers/eventually.js';

const configMapsGVR = { group: '', version: 'v1', resource: 'configmaps' };
const syncTargetsGVR = { group: 'workload.kcp.io', version: 'v1alpha1', resource: 'synctargets' };

function runNode(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (b) => (stdout += b));
    p.stderr.on('data', (b) => (stderr += b));
    p.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const eventually = <T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> => eventuallyPoll(what, probe, timeoutMs, 100);

describe('syncer: registered with kubectl atrium workload sync, run as a separate process', () => {
  let atrium: TestServer;
  let pc: RunningPcluster;
  let up: RestClient;
  let down: RestClient;
  let syncer: ChildProcess | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'atrium-syncer-modes-'));

  before(async () => {
    atrium = await startTestServer({ server: multiclusterServerOptions({ heartbeatThresholdMs: 5000 }) });
    pc = await startPcluster({ name: 'pcx', rootDir: join(dir, 'pc'), bindAddress: '127.0.0.1', securePort: 0, readyDelayMs: 100 });
    up = new RestClient({ url: atrium.url, ca: atrium.server.caPem, token: atrium.server.adminToken });
    down = new RestClient({ url: pc.url, ca: pc.caPem, token: pc.adminToken });
  });

  after(async () => {
    syncer?.kill('SIGTERM');
    up?.close();
    down?.close();
    await atrium?.stop();
    await pc?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints a manifest whose credentials let a syncer process sync with the granted RBAC only', async () => {
    const manifestPath = join(dir, 'syncer.yaml');
    // Asynchronously: the server answering the plugin runs in this process.
    const r = await runNode(['bin/kubectl-atrium', 'workload', 'sync', 'pcx', '--kubeconfig', atrium.kubeconfig, '-o', manifestPath]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /Creating synctarget "pcx"/);
    // It returns once the workspace serves the workload types its SyncTarget gives it.
    assert.match(r.stderr, /^Waiting for the workspace to serve deployments\.apps \.\.\. done$/m);
    assert.equal((await atrium.request('GET', '/apis/apps/v1/namespaces/default/deployments')).status, 200);
    const docs = YAML.parseAllDocuments(readFileSync(manifestPath, 'utf8')).map((d) => d.toJSON());
    assert.deepEqual(docs.map((d) => d.kind), ['Namespace', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Secret', 'Deployment']);
    const secret = docs.find((d) => d.kind === 'Secret');
    const upstreamKc = join(dir, 'upstream.kubeconfig');
    writeFileSync(upstreamKc, secret.stringData.kubeconfig);
    assert.match(docs.find((d) => d.kind === 'Deployment').spec.template.spec.containers[0].args.join(' '), /--sync-target-name=pcx/);

    syncer = spawn(process.execPath, ['bin/atrium', 'syncer', '--from-kubeconfig', upstreamKc, '--to-kubeconfig', pc.kubeconfigPath, '--sync-target-name', 'pcx', '--heartbeat-interval', '500ms', '--import-poll-interval', '500ms'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let errText = '';
    syncer.stderr!.on('data', (b) => (errText += b));
    syncer.stdout!.on('data', (b) => (errText += b));
    await eventually('pcx Ready', async () => {
      const st = await up.get(syncTargetsGVR, 'pcx');
      return (st.status as any)?.conditions?.find((c: any) => c.type === 'Ready')?.status === 'True';
    }).catch((e) => {
      throw new Error(`${e.message}\n${errText.slice(-3000)}`);
    });
    await up.create({ group: '', version: 'v1', resource: 'namespaces' }, { metadata: { name: 'apps', labels: { 'workload.kcp.io/cluster': 'pcx' } } });
    await up.create(configMapsGVR, { metadata: { name: 'settings', namespace: 'apps' }, data: { k: 'v' } });
    const ns = await eventually('downstream namespace', async () => (await down.list({ group: '', version: 'v1', resource: 'namespaces' })).items.find((n) => locatorOf(n)?.namespace === 'apps')?.metadata?.name);
    const cm = await eventually('configmap downstream', () => down.get(configMapsGVR, 'settings', { namespace: ns })).catch((e) => {
      throw new Error(`${e.message}\n${errText.slice(-3000)}`);
    });
    assert.deepEqual(cm.data, { k: 'v' });
  });
});
