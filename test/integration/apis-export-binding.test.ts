/**
 * API sharing between workspaces (kcp's apis.kcp.io) against a real server over HTTPS: a provider workspace exports a
 * `widgets` API (an APIResourceSchema and an APIExport with a claim on ConfigMaps), tenants bind it and get it served
 * with CRD semantics, storage is separate per export identity, `bind` is required, overlaps are refused, and the
 * APIExport virtual workspace reaches every binding workspace.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { waitForWorkspace } from '../helpers/workspaces.js';
import { openWatch } from './support.js';

const WS = '/apis/tenancy.kcp.io/v1alpha1/workspaces';
const APIS = '/apis/apis.kcp.io/v1alpha2';
const APIS_V1 = '/apis/apis.kcp.io/v1alpha1';
const MERGE = { headers: { 'Content-Type': 'application/merge-patch+json' } };

let ts: TestServer;
const clusters: Record<string, string> = {};

async function createWorkspace(name: string): Promise<void> {
  const r = await ts.request('POST', `/clusters/root${WS}`, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name }, spec: {} });
  assert.equal(r.status, 201, r.text);
  clusters[name] = (await waitForWorkspace(ts, 'root', name)).spec.cluster;
}

function widgetSchema(prefix: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'apis.kcp.io/v1alpha1',
    kind: 'APIResourceSchema',
    metadata: { name: `${prefix}.widgets.example.io` },
    spec: {
      group: 'example.io',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
          schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: { size: { type: 'integer', minimum: 1 }, color: { type: 'string', default: 'blue' } },
                'x-kubernetes-validations': [{ rule: 'self.size <= 100', message: 'size must be at most 100' }],
              },
              status: { type: 'object', properties: { phase: { type: 'string' } } },
            },
            ...extra,
          },
        },
      ],
    },
  };
}

async function exportWidgets(ws: string, exportName: string, schemaPrefix: string): Promise<string> {
  let r = await ts.request('POST', `/clusters/root:${ws}${APIS_V1}/apiresourceschemas`, widgetSchema(schemaPrefix));
  assert.equal(r.status, 201, r.text);
  r = await ts.request('POST', `/clusters/root:${ws}${APIS}/apiexports`, {
    apiVersion: 'apis.kcp.io/v1alpha2',
    kind: 'APIExport',
    metadata: { name: exportName },
    spec: {
      resources: [{ name: 'widgets', group: 'example.io', schema: `${schemaPrefix}.widgets.example.io`, storage: { crd: {} } }],
      permissionClaims: [{ group: '', resource: 'configmaps', verbs: ['*'] }],
    },
  });
  assert.equal(r.status, 201, r.text);
  const ex = await eventually(`export ${ws}:${exportName} identity`, async () => {
    const g = await ts.request('GET', `/clusters/root:${ws}${APIS}/apiexports/${exportName}`);
    return g.json?.status?.identityHash ? g.json : undefined;
  }, 10_000, 20);
  return ex.status.identityHash as string;
}

async function bind(ws: string, name: string, exportPath: string, exportName: string, opts: { token?: string; claims?: unknown[] } = {}) {
  return ts.request(
    'POST',
    `/clusters/root:${ws}${APIS}/apibindings`,
    { apiVersion: 'apis.kcp.io/v1alpha2', kind: 'APIBinding', metadata: { name }, spec: { reference: { export: { path: exportPath, name: exportName } }, ...(opts.claims ? { permissionClaims: opts.claims } : {}) } },
    opts.token ? { token: opts.token } : undefined,
  );
}

function waitBinding(ws: string, name: string, pred: (b: any) => boolean, what: string): Promise<any> {
  return eventually(`binding ${ws}:${name} ${what}`, async () => {
    const g = await ts.request('GET', `/clusters/root:${ws}${APIS}/apibindings/${name}`);
    return g.status === 200 && pred(g.json) ? g.json : undefined;
  }, 10_000, 20);
}

const bound = (b: any) => b.status?.phase === 'Bound';
const widget = (name: string, size: number, labels?: Record<string, string>) => ({ apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name, ...(labels ? { labels } : {}) }, spec: { size } });

describe('APIExport and APIBinding (apis.kcp.io)', () => {
  let identity: string;
  let otherIdentity: string;

  before(async () => {
    ts = await startTestServer({ tokens: ['nobind-token,nobind,nobind-uid'] });
    for (const w of ['provider', 'provider2', 't1', 't2', 't3']) await createWorkspace(w);
    identity = await exportWidgets('provider', 'widgets', 'v1');
    otherIdentity = await exportWidgets('provider2', 'widgets', 'v2');
  });
  after(async () => {
    await ts?.stop();
  });

  it('serves the apis.kcp.io types in both versions, v1alpha2 preferred', async () => {
    const g = await ts.request('GET', '/clusters/root:t1/apis/apis.kcp.io');
    assert.equal(g.status, 200, g.text);
    assert.equal(g.json.preferredVersion.version, 'v1alpha2');
    const v1 = await ts.request('GET', `/clusters/root:t1${APIS_V1}`);
    assert.deepEqual(v1.json.resources.filter((r: any) => !r.name.includes('/')).map((r: any) => r.name).sort(), ['apibindings', 'apiexportendpointslices', 'apiexports', 'apiresourceschemas']);
    // The export read as v1alpha1: latestResourceSchemas and claims without verbs.
    const ex = await ts.request('GET', `/clusters/root:provider${APIS_V1}/apiexports/widgets`);
    assert.equal(ex.status, 200, ex.text);
    assert.deepEqual(ex.json.spec.latestResourceSchemas, ['v1.widgets.example.io']);
    assert.deepEqual(ex.json.spec.permissionClaims, [{ resource: 'configmaps' }]);
    assert.equal(ex.json.spec.identity.secretRef.namespace, 'kcp-system');
  });

  it('validates APIResourceSchemas (name, versions as a CRD) and keeps them immutable', async () => {
    const bad = widgetSchema('v9');
    (bad.metadata as any).name = 'v9.gadgets.example.io';
    let r = await ts.request('POST', `/clusters/root:provider${APIS_V1}/apiresourceschemas`, bad);
    assert.equal(r.status, 422, r.text);
    assert.match(r.json.message, /metadata.name: Invalid value: "v9.gadgets.example.io": must end in .widgets.example.io/);
    r = await ts.request('PATCH', `/clusters/root:provider${APIS_V1}/apiresourceschemas/v1.widgets.example.io`, { spec: { scope: 'Cluster' } }, MERGE);
    assert.equal(r.status, 422, r.text);
    assert.match(r.json.message, /spec: Invalid value: .*: is immutable/);
  });

  it('creates the endpoint slice with the virtual workspace URL', async () => {
    const slice = await eventually('endpoint slice', async () => {
      const g = await ts.request('GET', `/clusters/root:provider${APIS_V1}/apiexportendpointslices/widgets`);
      return g.json?.status?.endpoints?.length ? g.json : undefined;
    }, 10_000, 20);
    assert.deepEqual(slice.spec.export, { path: 'root:provider', name: 'widgets' });
    assert.equal(slice.status.endpoints[0].url, `${ts.url}/services/apiexport/${clusters.provider}/widgets`);
  });

  it('refuses a binding without bind on the export, with kcp\'s message', async () => {
    // nobind administers t1, but has no rights in root:provider.
    const crb = await ts.request('POST', '/clusters/root:t1/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'nobind-admin' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'nobind' }],
    });
    assert.equal(crb.status, 201, crb.text);
    const r = await bind('t1', 'nope', 'root:provider', 'widgets', { token: 'nobind-token' });
    assert.equal(r.status, 403, r.text);
    assert.equal(r.json.message, 'apibindings.apis.kcp.io "nope" is forbidden: unable to create APIBinding: no permission to bind to export root:provider:widgets');
    const missing = await bind('t1', 'nope', 'root:nowhere', 'widgets');
    assert.equal(missing.status, 403, missing.text);
  });

  it('binds: phase Bound, boundResources with the identity, the API served with CRD semantics', async () => {
    for (const t of ['t1', 't2', 't3']) assert.equal((await bind(t, 'widgets', 'root:provider', 'widgets')).status, 201);
    const b = await waitBinding('t1', 'widgets', bound, 'Bound');
    assert.equal(b.status.apiExportClusterName, clusters.provider);
    assert.deepEqual(b.status.boundResources, [{ group: 'example.io', resource: 'widgets', schema: { name: 'v1.widgets.example.io', UID: b.status.boundResources[0].schema.UID, identityHash: identity }, storageVersions: ['v1'] }]);
    for (const type of ['APIExportValid', 'BindingUpToDate', 'InitialBindingCompleted', 'Ready']) {
      assert.equal(b.status.conditions.find((c: any) => c.type === type)?.status, 'True', type);
    }
    assert.ok(b.metadata.finalizers.includes('apis.kcp.io/apibinding-finalizer'));
    assert.ok(b.metadata.labels['internal.apis.kcp.io/export']);
    await waitBinding('t2', 'widgets', bound, 'Bound');
    await waitBinding('t3', 'widgets', bound, 'Bound');

    const disc = await ts.request('GET', '/clusters/root:t1/apis/example.io/v1');
    assert.equal(disc.status, 200, disc.text);
    assert.deepEqual(disc.json.resources.map((r: any) => r.name).sort(), ['widgets', 'widgets/status']);
    let r = await ts.request('POST', '/clusters/root:t1/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default2' } });
    assert.equal(r.status, 201, r.text);
    r = await ts.request('POST', '/clusters/root:t1/apis/example.io/v1/namespaces/default/widgets', widget('w0', 0));
    assert.equal(r.status, 422, r.text);
    assert.match(r.json.message, /spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1/);
    r = await ts.request('POST', '/clusters/root:t1/apis/example.io/v1/namespaces/default/widgets', widget('w0', 101));
    assert.equal(r.status, 422, r.text);
    assert.match(r.json.message, /size must be at most 100/);
    r = await ts.request('POST', '/clusters/root:t1/apis/example.io/v1/namespaces/default/widgets', { ...widget('w1', 3), status: { phase: 'ignored' } });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.spec.color, 'blue', 'defaulted');
    assert.equal(r.json.status, undefined, 'status is a subresource');
    r = await ts.request('GET', '/clusters/root:t1/apis/example.io/v1/namespaces/default/widgets', undefined, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    assert.deepEqual(r.json.columnDefinitions.map((c: any) => c.name), ['Name', 'Size']);
    // Server-side apply works as for a CRD.
    r = await ts.request('PATCH', '/clusters/root:t1/apis/example.io/v1/namespaces/default/widgets/w2?fieldManager=test', widget('w2', 5), { headers: { 'Content-Type': 'application/apply-patch+yaml' } });
    assert.equal(r.status, 201, r.text);
    r = await ts.request('GET', '/clusters/root:t1/apis/example.io/v1/namespaces/default/widgets');
    assert.deepEqual(r.json.items.map((i: any) => i.metadata.name), ['w1', 'w2']);
    // A workspace that bound nothing serves nothing of it.
    r = await ts.request('GET', '/clusters/root:provider2/apis/example.io/v1/namespaces/default/widgets');
    assert.equal(r.status, 404);
  });

  it('keeps two exports of the same group and resource apart (storage under the identity)', async () => {
    assert.notEqual(identity, otherIdentity);
    await createWorkspace('t4');
    assert.equal((await bind('t4', 'widgets', 'root:provider2', 'widgets')).status, 201);
    await waitBinding('t4', 'widgets', bound, 'Bound');
    let r = await ts.request('POST', '/clusters/root:t4/apis/example.io/v1/namespaces/default/widgets', widget('other', 7));
    assert.equal(r.status, 201, r.text);
    const vw1 = await ts.request('GET', `/services/apiexport/root:provider/widgets/clusters/*/apis/example.io/v1/widgets`);
    assert.equal(vw1.status, 200, vw1.text);
    assert.ok(!vw1.json.items.some((i: any) => i.metadata.name === 'other'));
    const vw2 = await ts.request('GET', `/services/apiexport/root:provider2/widgets/clusters/*/apis/example.io/v1/widgets`);
    assert.deepEqual(vw2.json.items.map((i: any) => i.metadata.name), ['other']);
    // Binding the second export beside the first is a naming conflict.
    r = await bind('t1', 'widgets2', 'root:provider2', 'widgets');
    assert.equal(r.status, 201, r.text);
    const conflicted = await waitBinding('t1', 'widgets2', (b) => b.status?.conditions?.some((c: any) => c.type === 'BindingUpToDate' && c.status === 'False'), 'conflict');
    const c = conflicted.status.conditions.find((x: any) => x.type === 'BindingUpToDate');
    assert.equal(c.reason, 'NamingConflicts');
    assert.equal(c.message, 'Unable to bind APIs: naming conflict with APIBinding "widgets" bound to APIExport root:provider:widgets: spec.names.plural=widgets is forbidden');
    assert.equal(conflicted.status.phase, 'Binding');
    r = await ts.request('DELETE', `/clusters/root:t1${APIS}/apibindings/widgets2`);
    assert.equal(r.status, 200, r.text);
  });

  it('refuses a CRD over a bound resource (crdnooverlappinggvr)', async () => {
    const r = await ts.request('POST', '/clusters/root:t1/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.io' },
      spec: { group: 'example.io', names: { plural: 'widgets', kind: 'Widget' }, scope: 'Namespaced', versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }] },
    });
    assert.equal(r.status, 403, r.text);
    assert.equal(r.json.message, 'customresourcedefinitions.apiextensions.k8s.io "widgets.example.io" is forbidden: cannot create because resource is bound by APIBinding "widgets"');
  });

  it('the virtual workspace lists and watches across bindings, reaches one, and claimed ConfigMaps only where accepted', async () => {
    for (const t of ['t2', 't3']) {
      const r = await ts.request('POST', `/clusters/root:${t}/apis/example.io/v1/namespaces/default/widgets`, widget(`w-${t}`, 2, { team: t }));
      assert.equal(r.status, 201, r.text);
    }
    const base = `/services/apiexport/root:provider/widgets`;
    const list = await ts.request('GET', `${base}/clusters/*/apis/example.io/v1/widgets`);
    assert.equal(list.status, 200, list.text);
    const byName = Object.fromEntries(list.json.items.map((i: any) => [i.metadata.name, i.metadata.annotations['kcp.io/cluster']]));
    assert.deepEqual(byName, { w1: clusters.t1, w2: clusters.t1, 'w-t2': clusters.t2, 'w-t3': clusters.t3 });
    // Discovery at /clusters/* (what a controller-runtime manager reads first).
    const disc = await ts.request('GET', `${base}/clusters/*/apis`);
    assert.ok(disc.json.groups.some((g: any) => g.name === 'example.io'));
    // One workspace by logical cluster name: every verb.
    const one = `${base}/clusters/${clusters.t2}/apis/example.io/v1/namespaces/default/widgets`;
    let r = await ts.request('PATCH', `${one}/w-t2/status`, { status: { phase: 'Reconciled' } }, MERGE);
    assert.equal(r.status, 200, r.text);
    r = await ts.request('GET', `/clusters/root:t2/apis/example.io/v1/namespaces/default/widgets/w-t2`);
    assert.equal(r.json.status.phase, 'Reconciled');
    r = await ts.request('PUT', `${base}/clusters/*/apis/example.io/v1/namespaces/default/widgets/w-t2`, {});
    assert.equal(r.status, 405, r.text);

    // Claims: t1 accepts, t2 rejects, t3 says nothing.
    const claim = (state: string) => [{ group: '', resource: 'configmaps', verbs: ['*'], selector: { matchAll: true }, state }];
    for (const [t, state] of [['t1', 'Accepted'], ['t2', 'Rejected']] as const) {
      r = await ts.request('PATCH', `/clusters/root:${t}${APIS}/apibindings/widgets`, { spec: { permissionClaims: claim(state) } }, MERGE);
      assert.equal(r.status, 200, r.text);
    }
    await waitBinding('t1', 'widgets', (b) => b.status?.appliedPermissionClaims?.length === 1, 'claim applied');
    await waitBinding('t2', 'widgets', (b) => b.status?.conditions?.some((c: any) => c.type === 'PermissionClaimsApplied'), 'claims looked at');
    for (const t of ['t1', 't2', 't3']) {
      r = await ts.request('POST', `/clusters/root:${t}/api/v1/namespaces/default/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${t}` } });
      assert.equal(r.status, 201, r.text);
    }
    const cms = await ts.request('GET', `${base}/clusters/*/api/v1/configmaps`);
    assert.equal(cms.status, 200, cms.text);
    assert.deepEqual([...new Set(cms.json.items.map((i: any) => i.metadata.annotations['kcp.io/cluster']))], [clusters.t1]);
    r = await ts.request('POST', `${base}/clusters/${clusters.t1}/api/v1/namespaces/default/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-provider' } });
    assert.equal(r.status, 201, r.text);
    r = await ts.request('POST', `${base}/clusters/${clusters.t2}/api/v1/namespaces/default/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-provider' } });
    assert.equal(r.status, 404, r.text);

    // A watch across every binding sees a new widget with its cluster.
    const w = await openWatch(ts, `${base}/clusters/*/apis/example.io/v1/widgets?watch=true&resourceVersion=${list.json.metadata.resourceVersion}`);
    try {
      r = await ts.request('POST', `/clusters/root:t3/apis/example.io/v1/namespaces/default/widgets`, widget('late', 4));
      assert.equal(r.status, 201, r.text);
      let ev = await w.next(5_000);
      // Earlier changes since the list come first (the status written through the virtual workspace).
      while (ev.object.metadata.name !== 'late') ev = await w.next(5_000);
      assert.equal(ev.type, 'ADDED');
      assert.equal(ev.object.metadata.name, 'late');
      assert.equal(ev.object.metadata.annotations['kcp.io/cluster'], clusters.t3);
    } finally {
      w.close();
    }
  });

  it('the virtual workspace needs the content subresource of the export', async () => {
    const r = await ts.request('GET', `/services/apiexport/root:provider/widgets/clusters/*/apis/example.io/v1/widgets`, undefined, { token: 'nobind-token' });
    assert.equal(r.status, 403, r.text);
    const none = await ts.request('GET', `/services/apiexport/root:provider/nothing/clusters/*/apis/example.io/v1/widgets`);
    assert.equal(none.status, 404);
  });

  it('maximalPermissionPolicy.local: the export\'s workspace RBAC bounds what binders may do (users prefixed apis.kcp.io:binding:)', async () => {
    let r = await ts.request('POST', `/clusters/root:provider${APIS}/apiexports`, {
      apiVersion: 'apis.kcp.io/v1alpha2', kind: 'APIExport', metadata: { name: 'limited' },
      spec: { resources: [{ name: 'widgets', group: 'example.io', schema: 'v1.widgets.example.io', storage: { crd: {} } }], maximalPermissionPolicy: { local: {} } },
    });
    assert.equal(r.status, 201, r.text);
    await createWorkspace('t5');
    const rbac = '/apis/rbac.authorization.k8s.io/v1';
    r = await ts.request('POST', `/clusters/root:t5${rbac}/clusterrolebindings`, {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'nobind-admin' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'nobind' }],
    });
    assert.equal(r.status, 201, r.text);
    await eventually('identity', async () => (await ts.request('GET', `/clusters/root:provider${APIS}/apiexports/limited`)).json?.status?.identityHash, 10_000, 20);
    assert.equal((await bind('t5', 'limited', 'root:provider', 'limited')).status, 201);
    await waitBinding('t5', 'limited', bound, 'Bound');
    const list = '/clusters/root:t5/apis/example.io/v1/namespaces/default/widgets';
    r = await ts.request('GET', list, undefined, { token: 'nobind-token' });
    assert.equal(r.status, 403, r.text);
    assert.equal(r.json.message, 'widgets.example.io is forbidden: User "nobind" cannot list resource "widgets" in API group "example.io" in the namespace "default": access denied by the maximal permission policy of APIExport root:provider:limited');
    // The provider allows binders to read widgets.
    r = await ts.request('POST', `/clusters/root:provider${rbac}/clusterroles`, {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'widgets-reader' },
      rules: [{ apiGroups: ['example.io'], resources: ['widgets'], verbs: ['get', 'list', 'watch'] }],
    });
    assert.equal(r.status, 201, r.text);
    r = await ts.request('POST', `/clusters/root:provider${rbac}/clusterrolebindings`, {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'binders-read-widgets' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'widgets-reader' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'apis.kcp.io:binding:system:authenticated' }],
    });
    assert.equal(r.status, 201, r.text);
    await eventually('list allowed', async () => (await ts.request('GET', list, undefined, { token: 'nobind-token' })).status === 200, 5_000, 20);
    r = await ts.request('POST', list, widget('denied', 1), { token: 'nobind-token' });
    assert.equal(r.status, 403, r.text);
    // The admin (system:masters) is not bounded.
    r = await ts.request('POST', list, widget('admin-made', 1));
    assert.equal(r.status, 201, r.text);
  });

  it('WorkspaceType defaultAPIBindings: a new workspace of the type gets the binding and serves the API', async () => {
    let r = await ts.request('POST', '/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspacetypes', {
      apiVersion: 'tenancy.kcp.io/v1alpha1',
      kind: 'WorkspaceType',
      metadata: { name: 'widgety' },
      spec: { extend: { with: [{ name: 'universal', path: 'root' }] }, defaultAPIBindings: [{ path: 'root:provider', export: 'widgets' }] },
    });
    assert.equal(r.status, 201, r.text);
    r = await ts.request('POST', `/clusters/root${WS}`, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: 'typed' }, spec: { type: { name: 'widgety', path: 'root' } } });
    assert.equal(r.status, 201, r.text);
    await waitForWorkspace(ts, 'root', 'typed');
    const b = await waitBinding('typed', 'widgets', bound, 'Bound');
    assert.deepEqual(b.spec.reference, { export: { path: 'root:provider', name: 'widgets' } });
    r = await ts.request('POST', '/clusters/root:typed/apis/example.io/v1/namespaces/default/widgets', widget('first', 1));
    assert.equal(r.status, 201, r.text);
  });

  it('deleting a binding deletes its objects, then the binding, and the API is no longer served', async () => {
    let r = await ts.request('DELETE', `/clusters/root:t3${APIS}/apibindings/widgets`);
    assert.equal(r.status, 200, r.text);
    await eventually('binding gone', async () => (await ts.request('GET', `/clusters/root:t3${APIS}/apibindings/widgets`)).status === 404, 10_000, 20);
    r = await ts.request('GET', '/clusters/root:t3/apis/example.io/v1/namespaces/default/widgets');
    assert.equal(r.status, 404);
    const list = await ts.request('GET', `/services/apiexport/root:provider/widgets/clusters/*/apis/example.io/v1/widgets`);
    assert.ok(!list.json.items.some((i: any) => i.metadata.annotations['kcp.io/cluster'] === clusters.t3));
  });

  it('deleting an export leaves its bindings Bound and serving, with APIExportValid False (APIExportNotFound)', async () => {
    let r = await ts.request('DELETE', `/clusters/root:provider2${APIS}/apiexports/widgets`);
    assert.equal(r.status, 200, r.text);
    const b = await waitBinding('t4', 'widgets', (x) => x.status?.conditions?.some((c: any) => c.type === 'APIExportValid' && c.status === 'False'), 'export gone');
    const c = b.status.conditions.find((x: any) => x.type === 'APIExportValid');
    assert.equal(c.reason, 'APIExportNotFound');
    assert.equal(c.message, 'APIExport root:provider2|widgets not found');
    assert.equal(b.status.phase, 'Bound');
    r = await ts.request('GET', '/clusters/root:t4/apis/example.io/v1/namespaces/default/widgets/other');
    assert.equal(r.status, 200, r.text);
  });
});
