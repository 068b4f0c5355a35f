/** Restarting on the same root dir keeps objects, credentials and a forward-moving resourceVersion. */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { createConfigMap, createNamespace } from './support.js';

describe('restart', () => {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-restart-'));
  let ts: TestServer | undefined;
  after(async () => {
    await ts?.stop();
    rmSync(rootDir, { recursive: true, force: true });
  });

  it('objects survive a restart and resourceVersions keep increasing', async () => {
    ts = await startTestServer({ rootDir });
    const token = readFileSync(join(rootDir, 'admin.token'), 'utf8');
    const ns = await createNamespace(ts, 'restart');
    const cm = await createConfigMap(ts, ns, 'kept', { data: { a: '1' } });
    const edit = structuredClone(cm);
    edit.data.a = '2';
    const updated = (await ts.request('PUT', `/api/v1/namespaces/${ns}/configmaps/kept`, edit)).json;
    await createConfigMap(ts, ns, 'gone');
    assert.equal((await ts.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/gone`)).status, 200);
    const listBefore = await ts.request('GET', `/api/v1/namespaces/${ns}/configmaps`);
    await ts.stop();
    ts = undefined;

    ts = await startTestServer({ rootDir });
    assert.equal(readFileSync(join(rootDir, 'admin.token'), 'utf8'), token, 'the admin token is kept');
    const got = await ts.request('GET', `/api/v1/namespaces/${ns}/configmaps/kept`);
    assert.equal(got.status, 200, got.text);
    assert.deepEqual(got.json, updated, 'same uid, data and resourceVersion');
    assert.equal((await ts.request('GET', `/api/v1/namespaces/${ns}/configmaps/gone`)).status, 404);
    assert.equal((await ts.request('GET', `/api/v1/namespaces/${ns}`)).json.status.phase, 'Active');
    for (const name of ['default', 'kube-system', 'kube-public']) {
      assert.equal((await ts.request('GET', `/api/v1/namespaces/${name}`)).status, 200);
    }

    const listAfter = await ts.request('GET', `/api/v1/namespaces/${ns}/configmaps`);
    assert.ok(Number(listAfter.json.metadata.resourceVersion) >= Number(listBefore.json.metadata.resourceVersion));
    const fresh = await createConfigMap(ts, ns, 'after-restart');
    assert.ok(Number(fresh.metadata.resourceVersion) > Number(listBefore.json.metadata.resourceVersion), 'resourceVersion moves forward');

    // A watch from a pre-restart resourceVersion still works (or says 410 in-band): it must not hang or 500.
    const w = await ts.request('GET', `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${updated.metadata.resourceVersion}&timeoutSeconds=1`);
    assert.equal(w.status, 200, w.text);
    const events = w.text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const types = events.map((e) => e.type);
    if (types.includes('ERROR')) assert.equal(events.find((e) => e.type === 'ERROR').object.code, 410);
    else assert.ok(events.some((e) => e.type === 'ADDED' && e.object.metadata.name === 'after-restart'), JSON.stringify(types));
  });
});
