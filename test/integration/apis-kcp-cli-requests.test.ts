/**
 * kcp v0.32.3's own client tools against atrium, as the requests they send: `kubectl ws` (kubectl-ws), `kubectl
 * create-workspace`, `kubectl kcp bind apiexport` and `kubectl kcp claims` (github.com/kcp-dev/cli pkg/workspace,
 * pkg/bind, pkg/claims, pkg/helpers/apis). Each step below names the command and sends the request the tool sends,
 * with the body its typed client marshals (Go's encoding: `creationTimestamp: null`, empty `status`, `verbs` and
 * `selector` always present on claims). Before atrium served apis.kcp.io every `kubectl ws` printed
 * `error checking APIBindings: the server could not find the requested resource (get apibindings.apis.kcp.io)`.
 *
 * The tools work from a kubeconfig whose server is `<host>/clusters/<path>` (pluginhelpers.ParseClusterURL fails on
 * any other URL); admin.kubeconfig is written that way.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import YAML from 'yaml';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';

let ts: TestServer;
const JSON_HEADERS = { headers: { Accept: 'application/json, */*', 'Content-Type': 'application/json' } };

describe("kcp's kubectl plugins: the requests they send", () => {
  before(async () => {
    ts = await startTestServer();
  });
  after(async () => {
    await ts?.stop();
  });

  it('admin.kubeconfig points at /clusters/root, as kcp\'s does', () => {
    const kc = YAML.parse(readFileSync(ts.kubeconfig, 'utf8'));
    assert.equal(kc.clusters[0].cluster.server, `${ts.url}/clusters/root`);
  });

  it('kubectl create-workspace provider --enter, then kubectl ws use: workspace calls and the APIBinding check', async () => {
    // create-workspace: POST the Workspace (typed client body), then GET it until Ready.
    let r = await ts.request('POST', '/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces', {
      kind: 'Workspace',
      apiVersion: 'tenancy.kcp.io/v1alpha1',
      metadata: { name: 'provider', creationTimestamp: null },
      spec: {},
      status: {},
    }, JSON_HEADERS);
    assert.equal(r.status, 201, r.text);
    await eventually('provider Ready', async () => (await ts.request('GET', '/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces/provider')).json?.status?.phase === 'Ready', 10_000, 20);
    // --enter / `kubectl ws use provider`: the parent's Workspace, then the APIBindings of the new current workspace
    // (getAPIBindings: ApisV1alpha2().APIBindings().List); a 404 here was the "error checking APIBindings".
    r = await ts.request('GET', '/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces/provider');
    assert.equal(r.status, 200, r.text);
    r = await ts.request('GET', '/clusters/root:provider/apis/apis.kcp.io/v1alpha2/apibindings');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.kind, 'APIBindingList');
    assert.deepEqual(r.json.items, []);
    // `kubectl ws tree` / `kubectl ws .`: list child workspaces.
    r = await ts.request('GET', '/clusters/root:provider/apis/tenancy.kcp.io/v1alpha1/workspaces');
    assert.equal(r.status, 200, r.text);
    // `kubectl ws ~`: the home workspace.
    r = await ts.request('GET', '/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces/~');
    assert.equal(r.status, 200, r.text);
  });

  it('kubectl kcp bind apiexport root:provider:widgets --accept-permission-claim configmaps.core, then kubectl kcp claims', async () => {
    // The provider's API (what a provider applies with kubectl).
    let r = await ts.request('POST', '/clusters/root:provider/apis/apis.kcp.io/v1alpha1/apiresourceschemas', {
      apiVersion: 'apis.kcp.io/v1alpha1', kind: 'APIResourceSchema', metadata: { name: 'v1.widgets.example.io' },
      spec: { group: 'example.io', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' }, scope: 'Namespaced',
        versions: [{ name: 'v1', served: true, storage: true, schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }] },
    });
    assert.equal(r.status, 201, r.text);
    r = await ts.request('POST', '/clusters/root:provider/apis/apis.kcp.io/v1alpha1/apiexports', {
      apiVersion: 'apis.kcp.io/v1alpha1', kind: 'APIExport', metadata: { name: 'widgets' },
      spec: { latestResourceSchemas: ['v1.widgets.example.io'], permissionClaims: [{ group: '', resource: 'configmaps' }] },
    });
    assert.equal(r.status, 201, r.text);
    await eventually('identity', async () => (await ts.request('GET', '/clusters/root:provider/apis/apis.kcp.io/v1alpha2/apiexports/widgets')).json?.status?.identityHash, 10_000, 20);

    // bind: PreferredVersion(apibindings.apis.kcp.io) from discovery of the current workspace.
    r = await ts.request('GET', '/clusters/root/apis', undefined, { headers: { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json' } });
    assert.equal(r.status, 200, r.text);
    const apis = r.json.items.find((g: any) => g.metadata.name === 'apis.kcp.io');
    assert.equal(apis.versions[0].version, 'v1alpha2');
    assert.ok(apis.versions[0].resources.some((x: any) => x.resource === 'apibindings'));
    // --accept-permission-claim: the export's claims read as v1alpha1 (ApisV1alpha1().APIExports().Get).
    r = await ts.request('GET', '/clusters/root:provider/apis/apis.kcp.io/v1alpha1/apiexports/widgets');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.spec.permissionClaims, [{ resource: 'configmaps' }]);
    // Create (v1alpha2), as the typed client marshals it; then GET every 500 ms until phase Bound.
    r = await ts.request('POST', '/clusters/root/apis/apis.kcp.io/v1alpha2/apibindings', {
      kind: 'APIBinding',
      apiVersion: 'apis.kcp.io/v1alpha2',
      metadata: { name: 'widgets', creationTimestamp: null },
      spec: {
        reference: { export: { path: 'root:provider', name: 'widgets' } },
        permissionClaims: [{ resource: 'configmaps', verbs: ['*'], selector: { matchAll: true }, state: 'Accepted' }],
      },
      status: {},
    }, JSON_HEADERS);
    assert.equal(r.status, 201, r.text);
    const bound = await eventually('Bound', async () => {
      const g = await ts.request('GET', '/clusters/root/apis/apis.kcp.io/v1alpha2/apibindings/widgets');
      return g.json?.status?.phase === 'Bound' ? g.json : undefined;
    }, 10_000, 20);
    assert.deepEqual(bound.status.exportPermissionClaims, [{ resource: 'configmaps', verbs: ['*'] }]);
    assert.deepEqual(bound.status.appliedPermissionClaims, [{ resource: 'configmaps', verbs: ['*'], selector: { matchAll: true } }]);

    // claims get apibinding: the list (or one) in the preferred version.
    r = await ts.request('GET', '/clusters/root/apis/apis.kcp.io/v1alpha2/apibindings');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.items.length, 1);
    // claims reject widgets --resource configmaps.core: GET, flip the state, PUT the whole object back.
    const current = (await ts.request('GET', '/clusters/root/apis/apis.kcp.io/v1alpha2/apibindings/widgets')).json;
    current.spec.permissionClaims[0].state = 'Rejected';
    r = await ts.request('PUT', '/clusters/root/apis/apis.kcp.io/v1alpha2/apibindings/widgets', current, JSON_HEADERS);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.status.phase, 'Bound', 'an update keeps the status');
    await eventually('claim no longer applied', async () => {
      const g = await ts.request('GET', '/clusters/root/apis/apis.kcp.io/v1alpha2/apibindings/widgets');
      return g.json?.status?.appliedPermissionClaims === undefined;
    }, 10_000, 20);
    // A v1alpha1 client sees the same binding (claims without verbs, `all` from matchAll).
    r = await ts.request('GET', '/clusters/root/apis/apis.kcp.io/v1alpha1/apibindings/widgets');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.spec.permissionClaims, [{ resource: 'configmaps', all: true, state: 'Rejected' }]);
  });
});
