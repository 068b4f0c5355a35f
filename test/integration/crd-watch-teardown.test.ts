/**
 * A custom resource's open watches end when it stops being served, as upstream's crdHandler tears down the storage
 * of a removed CRD or version (removeDeadStorage/tearDown: the cacher stops, watchers' result channels close): the
 * HTTP stream finishes cleanly and a client that re-lists gets 404. CRD updates that keep the version served leave
 * its watches open. Likewise a workspace's watches end when it is deleted (its logical cluster is gone).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { waitForWorkspace } from '../helpers/workspaces.js';
import { cronTabCRD } from './crd-fixtures.js';
import { installCRD, waitForCRD } from './crd-support.js';
import { openWatch } from './support.js';

let ts: TestServer;
before(async () => {
  ts = await startTestServer();
});
after(async () => {
  await ts?.stop();
});

const CT = (v: string) => `/apis/stable.example.com/${v}/namespaces/default/crontabs`;

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms).unref())]);
}

test('watches on a custom resource end when its version stops being served and when its CRD is deleted', async () => {
  const crd = await installCRD(ts, cronTabCRD());
  const name = crd.metadata.name;
  const c = await ts.request('POST', CT('v1'), { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'one' }, spec: { cronSpec: '* * * * *' } });
  assert.equal(c.status, 201, c.text);
  const v1 = await openWatch(ts, `${CT('v1')}?watch=1`);
  const v1beta1 = await openWatch(ts, `${CT('v1beta1')}?watch=1`);
  assert.equal((await v1.next()).type, 'ADDED');
  assert.equal((await v1beta1.next()).type, 'ADDED');

  // A CRD update that keeps both versions served (a label) leaves both watches open.
  const p = await ts.request('PATCH', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`, { metadata: { labels: { touched: 'yes' } } }, { headers: { 'Content-Type': 'application/merge-patch+json' } });
  assert.equal(p.status, 200, p.text);
  await waitForCRD(ts, name, (x) => x?.metadata?.labels?.touched === 'yes');

  // v1beta1 stops being served: its watch ends, v1's stays open and still sees changes.
  const cur = (await ts.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`)).json;
  for (const v of cur.spec.versions) if (v.name === 'v1beta1') v.served = false;
  const u = await ts.request('PUT', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`, cur);
  assert.equal(u.status, 200, u.text);
  await within(v1beta1.ended, 5000, 'the v1beta1 watch did not end');
  const m = await ts.request('PATCH', `${CT('v1')}/one`, { spec: { image: 'x' } }, { headers: { 'Content-Type': 'application/merge-patch+json' } });
  assert.equal(m.status, 200, m.text);
  assert.equal((await v1.next()).type, 'MODIFIED');

  // The CRD is deleted: the v1 watch sees its object go, then ends; a re-list gets 404.
  const d = await ts.request('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
  assert.ok(d.status === 200 || d.status === 202, d.text);
  await within(v1.ended, 10_000, 'the v1 watch did not end');
  assert.ok(v1.events.some((e) => e.type === 'DELETED'), JSON.stringify(v1.events.map((e) => e.type)));
  assert.ok(!v1.events.some((e) => e.type === 'ERROR'), JSON.stringify(v1.events));
  assert.equal((await ts.request('GET', CT('v1'))).status, 404);
});

test('watches in a workspace end when the workspace is deleted, so a client re-resolves its path', async () => {
  const WS = '/apis/tenancy.kcp.io/v1alpha1/workspaces';
  const r = await ts.request('POST', `/clusters/root${WS}`, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: 'gone' }, spec: {} });
  assert.equal(r.status, 201, r.text);
  await waitForWorkspace(ts, 'root', 'gone', { timeoutMs: 5_000, intervalMs: 25 });
  const w = await openWatch(ts, '/clusters/root:gone/api/v1/namespaces/default/configmaps?watch=1');
  const d = await ts.request('DELETE', `/clusters/root${WS}/gone`);
  assert.ok(d.status === 200 || d.status === 202, d.text);
  await within(w.ended, 10_000, 'the watch in the deleted workspace did not end');
});
