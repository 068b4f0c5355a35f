/**
 * Using another workspace's compute needs permission there: a Placement whose spec.locationWorkspace names another
 * workspace is admitted only for users with `bind` on locations.scheduling.kcp.io in that workspace (atrium's stand-in
 * for kcp's bind on the compute APIExport). Real server over HTTPS, bearer-token users.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type HttpResponse, type TestServer } from '../helpers/harness.js';
import { waitForWorkspace } from '../helpers/workspaces.js';
import { multiclusterServerOptions } from '../../src/multicluster/server-options.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const WS = '/apis/tenancy.kcp.io/v1alpha1/workspaces';
const PLACEMENTS = '/apis/scheduling.kcp.io/v1alpha1/placements';
const MERGE = { 'Content-Type': 'application/merge-patch+json' };
const LOCATION_CLUSTER = 'scheduling.atrium.io/location-cluster';

let ts: TestServer;
const admin = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => ts.request(method, path, body, { headers });
const asDave = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => ts.request(method, path, body, { token: 'dave-token', headers });

const placement = (name: string, locationWorkspace?: string) => ({
  apiVersion: 'scheduling.kcp.io/v1alpha1',
  kind: 'Placement',
  metadata: { name },
  spec: { locationSelectors: [{}], namespaceSelector: {}, locationResource: { group: 'workload.kcp.io', resource: 'synctargets', version: 'v1alpha1' }, ...(locationWorkspace === undefined ? {} : { locationWorkspace }) },
});

function assertForbidden(r: HttpResponse, workspace: string): void {
  assert.equal(r.status, 403, r.text);
  assert.equal(r.json.reason, 'Forbidden');
  assert.match(r.json.message, new RegExp(`user "dave" cannot use the compute of location workspace "${workspace}": it needs "bind" on locations.scheduling.kcp.io there`));
}

describe('Placement admission: another workspace\'s compute needs bind on its Locations', () => {
  before(async () => {
    ts = await startTestServer({ tokens: ['dave-token,dave,uid-dave,"tenants"'], server: multiclusterServerOptions({}) });
    const created = async (p: Promise<HttpResponse>) => {
      const r = await p;
      assert.equal(r.status, 201, r.text);
    };
    // dave may create workspaces in root (and so owns root:team); root:compute is the admin's.
    await created(admin('POST', `${RBAC}/clusterroles`, { metadata: { name: 'ws-creator' }, rules: [{ apiGroups: ['tenancy.kcp.io'], resources: ['workspaces'], verbs: ['create', 'get'] }, { nonResourceURLs: ['/'], verbs: ['access'] }] }));
    await created(admin('POST', `${RBAC}/clusterrolebindings`, { metadata: { name: 'dave-ws' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'ws-creator' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'dave' }] }));
    await created(admin('POST', WS, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: 'compute' } }));
    await created(asDave('POST', WS, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: 'team' } }));
    for (const name of ['compute', 'team']) await waitForWorkspace(ts, 'root', name, { timeoutMs: 30_000, intervalMs: 20 });
  });
  after(async () => {
    await ts?.stop();
  });

  it('the setup is real: dave administers root:team and may create Placements there on its own compute', async () => {
    assert.equal((await asDave('POST', `/clusters/root:team${PLACEMENTS}`, placement('own'))).status, 201);
    assert.equal((await asDave('POST', `/clusters/root:team${PLACEMENTS}`, placement('own-by-path', 'root:team'))).status, 201);
    assert.equal((await asDave('GET', `/clusters/root:compute/api/v1/namespaces`)).status, 403, 'dave has no rights in root:compute');
  });

  it('a Placement needs spec.locationResource and a Location spec.resource, as kcp\'s schemas require (422, nothing stored)', async () => {
    const noResource = await asDave('POST', `/clusters/root:team${PLACEMENTS}`, { apiVersion: 'scheduling.kcp.io/v1alpha1', kind: 'Placement', metadata: { name: 'bare' }, spec: { locationSelectors: [{}], namespaceSelector: {} } });
    assert.equal(noResource.status, 422, noResource.text);
    assert.equal(noResource.json.message, 'Placement.scheduling.kcp.io "bare" is invalid: spec.locationResource: Required value');
    assert.equal((await asDave('GET', `/clusters/root:team${PLACEMENTS}/bare`)).status, 404);
    const partial = await asDave('POST', `/clusters/root:team${PLACEMENTS}`, { apiVersion: 'scheduling.kcp.io/v1alpha1', kind: 'Placement', metadata: { name: 'partial' }, spec: { locationResource: { group: 'workload.kcp.io' } } });
    assert.equal(partial.status, 422, partial.text);
    assert.deepEqual(partial.json.details.causes.map((c: { field: string }) => c.field), ['spec.locationResource.version', 'spec.locationResource.resource']);
    const location = await asDave('POST', '/clusters/root:team/apis/scheduling.kcp.io/v1alpha1/locations', { apiVersion: 'scheduling.kcp.io/v1alpha1', kind: 'Location', metadata: { name: 'bare' }, spec: { instanceSelector: {} } });
    assert.equal(location.status, 422, location.text);
    assert.equal(location.json.message, 'Location.scheduling.kcp.io "bare" is invalid: spec.resource: Required value');
  });

  it('refuses root:compute without bind there, and a workspace that does not exist with the same answer', async () => {
    assertForbidden(await asDave('POST', `/clusters/root:team${PLACEMENTS}`, placement('compute', 'root:compute')), 'root:compute');
    assertForbidden(await asDave('POST', `/clusters/root:team${PLACEMENTS}`, placement('nowhere', 'root:nowhere')), 'root:nowhere');
    // Pointing an existing Placement elsewhere is the same request.
    assertForbidden(await asDave('PATCH', `/clusters/root:team${PLACEMENTS}/own`, { spec: { locationWorkspace: 'root:compute' } }, MERGE), 'root:compute');
    // system:masters (atrium's controllers, the admin) is not asked.
    assert.equal((await admin('POST', `/clusters/root:team${PLACEMENTS}`, placement('by-admin', 'root:compute'))).status, 201);
  });

  it('admits it once an admin of root:compute grants bind on locations (and access to the workspace); edits that keep the workspace need nothing more', async () => {
    const inCompute = `/clusters/root:compute${RBAC}`;
    assert.equal((await admin('POST', `${inCompute}/clusterroles`, { metadata: { name: 'compute-user' }, rules: [{ apiGroups: ['scheduling.kcp.io'], resources: ['locations'], verbs: ['bind'] }, { nonResourceURLs: ['/'], verbs: ['access'] }] })).status, 201);
    assert.equal((await admin('POST', `${inCompute}/clusterrolebindings`, { metadata: { name: 'dave' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'compute-user' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'dave' }] })).status, 201);
    const r = await asDave('POST', `/clusters/root:team${PLACEMENTS}`, placement('compute', 'root:compute'));
    assert.equal(r.status, 201, r.text);
    // The admitted logical cluster is recorded, and only admission writes it: a forged value is put back.
    const computeCluster = (await admin('GET', `${WS}/compute`)).json.spec.cluster;
    assert.equal(r.json.metadata.annotations?.[LOCATION_CLUSTER], computeCluster);
    const forged = await asDave('PATCH', `/clusters/root:team${PLACEMENTS}/compute`, { metadata: { annotations: { [LOCATION_CLUSTER]: 'someone-else' } } }, MERGE);
    assert.equal(forged.status, 200, forged.text);
    assert.equal(forged.json.metadata.annotations?.[LOCATION_CLUSTER], computeCluster);
    const own = await asDave('POST', `/clusters/root:team${PLACEMENTS}`, { ...placement('own-forged'), metadata: { name: 'own-forged', annotations: { [LOCATION_CLUSTER]: computeCluster } } });
    assert.equal(own.status, 201, own.text);
    assert.equal(own.json.metadata.annotations?.[LOCATION_CLUSTER], undefined, 'a Placement on its own workspace carries no record');
    assert.equal((await admin('DELETE', `${inCompute}/clusterrolebindings/dave`)).status, 200);
    const relabelled = await asDave('PATCH', `/clusters/root:team${PLACEMENTS}/compute`, { metadata: { labels: { team: 'a' } } }, MERGE);
    assert.equal(relabelled.status, 200, relabelled.text);
    assertForbidden(await asDave('PATCH', `/clusters/root:team${PLACEMENTS}/own`, { spec: { locationWorkspace: 'root:compute' } }, MERGE), 'root:compute');
  });
});
