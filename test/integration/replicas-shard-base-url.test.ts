/**
 * --shard-base-url (kcp's flag of the same name): replicas on one etcd stamp the same base into Workspaces'
 * spec.URL and LogicalClusters' status.URL, whichever replica created the workspace or held the controller lease;
 * root's LogicalCluster carries it too and a replica started with it does not rewrite it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { startEtcd, type EtcdCluster } from '../helpers/etcd.js';
import { waitForWorkspace } from '../helpers/workspaces.js';

const WS = '/apis/tenancy.kcp.io/v1alpha1/workspaces';
const BASE = 'https://atrium.example.test:6443';
const dirs: string[] = [];
const servers: TestServer[] = [];
let etcd: EtcdCluster | undefined;

after(async () => {
  for (const s of servers) await s.stop().catch(() => {});
  await etcd?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function replica(): Promise<TestServer> {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-shard-url-'));
  dirs.push(rootDir);
  const ts = await startTestServer({
    rootDir,
    server: {
      builtinControllers: true,
      shardBaseURL: `${BASE}/`,
      etcd: { endpoints: etcd!.endpoints },
      leaderElection: { leaseDurationSeconds: 3, renewDeadlineMs: 2000, retryPeriodMs: 300 },
    },
  });
  servers.push(ts);
  return ts;
}

const waitURL = async (ts: TestServer, name: string): Promise<string> => (await waitForWorkspace(ts, 'root', name, { timeoutMs: 15_000, intervalMs: 50 })).spec.URL;

test('replicas sharing --shard-base-url stamp the same workspace and root URLs', { timeout: 90_000 }, async () => {
  etcd = await startEtcd();
  const a = await replica();
  const b = await replica();
  assert.notEqual(a.url, b.url);
  for (const [ts, name] of [[a, 'via-a'], [b, 'via-b']] as const) {
    const r = await ts.request('POST', `/clusters/root${WS}`, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name }, spec: {} });
    assert.equal(r.status, 201, r.text);
  }
  for (const name of ['via-a', 'via-b']) {
    for (const ts of [a, b]) assert.equal(await waitURL(ts, name), `${BASE}/clusters/root:${name}`);
    const lc = await a.request('GET', `/clusters/root:${name}/apis/core.kcp.io/v1alpha1/logicalclusters/cluster`);
    assert.equal(lc.status, 200, lc.text);
    assert.equal(lc.json.status.URL, `${BASE}/clusters/root:${name}`);
  }
  const root = await b.request('GET', '/clusters/root/apis/core.kcp.io/v1alpha1/logicalclusters/cluster');
  assert.equal(root.json.status.URL, `${BASE}/clusters/root`);
  // A third replica with the same base leaves root's LogicalCluster untouched.
  const rv = root.json.metadata.resourceVersion;
  const c = await replica();
  const again = await c.request('GET', '/clusters/root/apis/core.kcp.io/v1alpha1/logicalclusters/cluster');
  assert.equal(again.json.metadata.resourceVersion, rv);
  assert.equal(again.json.status.URL, `${BASE}/clusters/root`);
});
