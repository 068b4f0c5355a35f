/**
 * Bound APIs survive a restart: the server loads every export, schema and binding before it listens, so a bound
 * resource is served from the first request, and its objects (stored under the export's identity) are all there.
 * kubectl reads them as for any CRD (printer columns from the schema).
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { waitForWorkspace } from '../helpers/workspaces.js';

const WS = '/apis/tenancy.kcp.io/v1alpha1/workspaces';
let ts: TestServer | undefined;
let rootDir = '';

describe('bound APIs across a restart', () => {
  after(async () => {
    await ts?.stop();
    if (rootDir) rmSync(rootDir, { recursive: true, force: true });
  });

  it('serves the bound resource and its objects right after a restart', async () => {
    ts = await startTestServer({ keepRootDir: true });
    rootDir = ts.rootDir;
    for (const name of ['provider', 'tenant']) {
      assert.equal((await ts.request('POST', `/clusters/root${WS}`, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name }, spec: {} })).status, 201);
      await waitForWorkspace(ts, 'root', name);
    }
    let r = await ts.request('POST', '/clusters/root:provider/apis/apis.kcp.io/v1alpha1/apiresourceschemas', {
      apiVersion: 'apis.kcp.io/v1alpha1', kind: 'APIResourceSchema', metadata: { name: 'today.gadgets.example.io' },
      spec: { group: 'example.io', scope: 'Cluster', names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList', shortNames: ['gd'] },
        versions: [{ name: 'v1', served: true, storage: true, additionalPrinterColumns: [{ name: 'Color', type: 'string', jsonPath: '.spec.color' }],
          schema: { type: 'object', properties: { spec: { type: 'object', properties: { color: { type: 'string' } } } } } }] },
    });
    assert.equal(r.status, 201, r.text);
    r = await ts.request('POST', '/clusters/root:provider/apis/apis.kcp.io/v1alpha1/apiexports', { apiVersion: 'apis.kcp.io/v1alpha1', kind: 'APIExport', metadata: { name: 'gadgets' }, spec: { latestResourceSchemas: ['today.gadgets.example.io'] } });
    assert.equal(r.status, 201, r.text);
    await eventually('identity', async () => (await ts!.request('GET', '/clusters/root:provider/apis/apis.kcp.io/v1alpha2/apiexports/gadgets')).json?.status?.identityHash, 10_000, 20);
    r = await ts.request('POST', '/clusters/root:tenant/apis/apis.kcp.io/v1alpha1/apibindings', { apiVersion: 'apis.kcp.io/v1alpha1', kind: 'APIBinding', metadata: { name: 'gadgets' }, spec: { reference: { export: { path: 'root:provider', name: 'gadgets' } } } });
    assert.equal(r.status, 201, r.text);
    await eventually('Bound', async () => (await ts!.request('GET', '/clusters/root:tenant/apis/apis.kcp.io/v1alpha1/apibindings/gadgets')).json?.status?.phase === 'Bound', 10_000, 20);
    r = await ts.request('POST', '/clusters/root:tenant/apis/example.io/v1/gadgets', { apiVersion: 'example.io/v1', kind: 'Gadget', metadata: { name: 'g1' }, spec: { color: 'red' } });
    assert.equal(r.status, 201, r.text);
    await ts.stop();

    ts = await startTestServer({ rootDir });
    r = await ts.request('GET', '/clusters/root:tenant/apis/example.io/v1/gadgets/g1');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.spec.color, 'red');
    // kubectl, pointed at the tenant workspace: short name, the schema's printer column.
    const out = await ts.kubectl(['--server', `${ts.url}/clusters/root:tenant`, 'get', 'gd']);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /^NAME\s+COLOR\ng1\s+red\n$/);
  });
});
