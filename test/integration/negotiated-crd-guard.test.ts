/**
 * The negotiation annotation (`apiresource.kcp.io/negotiated`) waives the "spec.group should be a domain with at least
 * one dot" rule so that negotiation can publish built-in groups such as `apps` as CRDs. Only system:masters (what the
 * negotiation controller authenticates as) may write a CRD carrying it: a user allowed to create and edit CRDs — even
 * a workspace's own cluster-admin — may not set it on create, add it by any kind of update or patch, or drop it from
 * a negotiated CRD. Every route is tried against a real server over HTTPS with bearer-token users.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type HttpResponse, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { waitForWorkspace } from '../helpers/workspaces.js';

const ANNOTATION = 'apiresource.kcp.io/negotiated';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const WS = '/apis/tenancy.kcp.io/v1alpha1/workspaces';
const MERGE = { 'Content-Type': 'application/merge-patch+json' };
const JSON_PATCH = { 'Content-Type': 'application/json-patch+json' };
const APPLY = { 'Content-Type': 'application/apply-patch+yaml' };

let ts: TestServer;

const admin = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => ts.request(method, path, body, { headers });
/** carol may create, read, update and patch CRDs in root, and nothing more. */
const asCarol = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => ts.request(method, path, body, { token: 'carol-token', headers });
/** alice owns workspace root:team-a (and so is its cluster-admin). */
const asAlice = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => ts.request(method, path, body, { token: 'alice-token', headers });

function crd(group: string, plural: string, kind: string, annotations?: Record<string, string>): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}`, ...(annotations ? { annotations } : {}) },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
}

/** The guard's refusal: 403 Forbidden naming the CRD and the annotation, and telling the user what to do. */
function assertGuardRefused(r: HttpResponse, name: string, what: string): void {
  assert.equal(r.status, 403, `${what}: expected 403, got ${r.status}: ${r.text}`);
  assert.equal(r.json?.kind, 'Status', what);
  assert.equal(r.json?.reason, 'Forbidden', what);
  assert.equal(r.json?.details?.name, name, what);
  assert.equal(r.json?.details?.group, 'apiextensions.k8s.io', what);
  assert.equal(r.json?.details?.kind, 'customresourcedefinitions', what);
  assert.ok(r.json.message.startsWith(`customresourcedefinitions.apiextensions.k8s.io "${name}" is forbidden: `), `${what}: ${r.json.message}`);
  assert.ok(r.json.message.includes(`"${ANNOTATION}"`), `${what}: the message names the annotation: ${r.json.message}`);
  assert.ok(r.json.message.includes('system:masters'), `${what}: the message says who may: ${r.json.message}`);
}

async function annotationsOf(name: string): Promise<Record<string, string>> {
  const r = await admin('GET', `${CRDS}/${name}`);
  assert.equal(r.status, 200, r.text);
  return r.json.metadata.annotations ?? {};
}

describe('only the negotiation controller (system:masters) may write negotiated CRDs', () => {
  before(async () => {
    ts = await startTestServer({ tokens: ['carol-token,carol,uid-carol,"crd-editors"', 'alice-token,alice,uid-alice,"tenants"'] });
    const created = async (r: Promise<HttpResponse>) => assert.equal((await r).status, 201, (await r).text);
    await created(
      admin('POST', `${RBAC}/clusterroles`, {
        metadata: { name: 'crd-editor' },
        rules: [
          { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions', 'customresourcedefinitions/status'], verbs: ['create', 'get', 'list', 'update', 'patch'] },
          { apiGroups: ['tenancy.kcp.io'], resources: ['workspaces'], verbs: ['create', 'get'] },
          { nonResourceURLs: ['/'], verbs: ['access'] },
        ],
      }),
    );
    await created(
      admin('POST', `${RBAC}/clusterrolebindings`, {
        metadata: { name: 'crd-editors' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'crd-editor' },
        subjects: ['carol', 'alice'].map((name) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name })),
      }),
    );
    await created(asAlice('POST', `/clusters/root${WS}`, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: 'team-a' } }));
    await waitForWorkspace(ts, 'root', 'team-a', { timeoutMs: 30_000, intervalMs: 20 });
    // What the negotiation controller writes: a negotiated CRD in a built-in group, as system:masters.
    await created(admin('POST', CRDS, crd('apps', 'deployments', 'Deployment', { [ANNOTATION]: 'true' })));
    // carol's own, ordinary CRD, which she may edit.
    await created(asCarol('POST', CRDS, crd('example.com', 'gadgets', 'Gadget')));
  });
  after(async () => {
    await ts?.stop();
  });

  it('the setup is real: carol can create and edit ordinary CRDs, and a non-dotted group still needs the annotation', async () => {
    assert.equal((await asCarol('POST', CRDS, crd('carol.example.com', 'widgets', 'Widget'))).status, 201);
    const edited = await asCarol('PATCH', `${CRDS}/gadgets.example.com`, { metadata: { annotations: { 'example.com/owner': 'carol' } } }, MERGE);
    assert.equal(edited.status, 200, edited.text);
    // Without the annotation the upstream rule applies, for carol and the admin alike.
    for (const who of [asCarol, admin]) {
      const r = await who('POST', CRDS, crd('batch', 'jobs', 'Job'));
      assert.equal(r.status, 422, r.text);
      assert.match(r.json.message, /spec\.group: Invalid value: "batch": should be a domain with at least one dot/);
    }
  });

  const createCases: { what: string; body: Record<string, unknown>; query?: string; apply?: boolean }[] = [
    { what: 'a built-in group (apps)', body: crd('apps', 'statefulsets', 'StatefulSet', { [ANNOTATION]: 'true' }) },
    { what: 'a core-looking group (batch)', body: crd('batch', 'jobs', 'Job', { [ANNOTATION]: 'true' }) },
    { what: 'a dotted group', body: crd('carol.example.com', 'sprockets', 'Sprocket', { [ANNOTATION]: 'true' }) },
    { what: 'any value of the annotation', body: crd('carol.example.com', 'cogs', 'Cog', { [ANNOTATION]: 'false' }) },
    { what: 'a dry run', body: crd('apps', 'daemonsets', 'DaemonSet', { [ANNOTATION]: 'true' }), query: '?dryRun=All' },
    { what: 'server-side apply creating the CRD', body: crd('apps', 'replicasets', 'ReplicaSet', { [ANNOTATION]: 'true' }), apply: true },
  ];
  for (const c of createCases) {
    it(`carol may not create a CRD carrying the annotation: ${c.what}`, async () => {
      const name = (c.body.metadata as { name: string }).name;
      const r = c.apply
        ? await asCarol('PATCH', `${CRDS}/${name}?fieldManager=carol`, c.body, APPLY)
        : await asCarol('POST', `${CRDS}${c.query ?? ''}`, c.body);
      assertGuardRefused(r, name, c.what);
      assert.match(r.json.message, /remove the annotation and use a spec\.group with at least one dot/);
      assert.equal((await admin('GET', `${CRDS}/${name}`)).status, 404, `${c.what}: nothing was stored`);
    });
  }

  const addCases: { what: string; send: () => Promise<HttpResponse> }[] = [
    {
      what: 'PUT',
      send: async () => {
        const cur = (await asCarol('GET', `${CRDS}/gadgets.example.com`)).json;
        cur.metadata.annotations = { ...(cur.metadata.annotations ?? {}), [ANNOTATION]: 'true' };
        return asCarol('PUT', `${CRDS}/gadgets.example.com`, cur);
      },
    },
    { what: 'merge patch', send: () => asCarol('PATCH', `${CRDS}/gadgets.example.com`, { metadata: { annotations: { [ANNOTATION]: 'true' } } }, MERGE) },
    { what: 'JSON patch', send: () => asCarol('PATCH', `${CRDS}/gadgets.example.com`, [{ op: 'add', path: '/metadata/annotations/apiresource.kcp.io~1negotiated', value: 'true' }], JSON_PATCH) },
    {
      what: 'server-side apply',
      send: () =>
        asCarol('PATCH', `${CRDS}/gadgets.example.com?fieldManager=carol&force=true`, { ...crd('example.com', 'gadgets', 'Gadget', { [ANNOTATION]: 'true' }) }, APPLY),
    },
    { what: 'a dry-run merge patch', send: () => asCarol('PATCH', `${CRDS}/gadgets.example.com?dryRun=All`, { metadata: { annotations: { [ANNOTATION]: 'true' } } }, MERGE) },
  ];
  for (const c of addCases) {
    it(`carol may not add the annotation to her own CRD by ${c.what}`, async () => {
      assertGuardRefused(await c.send(), 'gadgets.example.com', c.what);
      assert.equal((await annotationsOf('gadgets.example.com'))[ANNOTATION], undefined, `${c.what}: the annotation was not stored`);
    });
  }

  it('nor through the status subresource, which keeps the stored metadata', async () => {
    const r = await asCarol('PATCH', `${CRDS}/gadgets.example.com/status`, { metadata: { annotations: { [ANNOTATION]: 'true' } } }, MERGE);
    assert.ok(r.status === 200 || r.status === 403, r.text);
    assert.equal((await annotationsOf('gadgets.example.com'))[ANNOTATION], undefined);
  });

  const negotiatedCases: { what: string; send: () => Promise<HttpResponse> }[] = [
    {
      what: 'edit its spec by PUT',
      send: async () => {
        const cur = (await asCarol('GET', `${CRDS}/deployments.apps`)).json;
        cur.spec.names.shortNames = ['dp'];
        return asCarol('PUT', `${CRDS}/deployments.apps`, cur);
      },
    },
    { what: 'edit it by merge patch', send: () => asCarol('PATCH', `${CRDS}/deployments.apps`, { spec: { names: { categories: ['all'] } } }, MERGE) },
    { what: 'remove the annotation by merge patch', send: () => asCarol('PATCH', `${CRDS}/deployments.apps`, { metadata: { annotations: { [ANNOTATION]: null } } }, MERGE) },
    { what: 'remove the annotation by JSON patch', send: () => asCarol('PATCH', `${CRDS}/deployments.apps`, [{ op: 'remove', path: '/metadata/annotations/apiresource.kcp.io~1negotiated' }], JSON_PATCH) },
    {
      what: 'remove the annotation by PUT',
      send: async () => {
        const cur = (await asCarol('GET', `${CRDS}/deployments.apps`)).json;
        delete cur.metadata.annotations[ANNOTATION];
        return asCarol('PUT', `${CRDS}/deployments.apps`, cur);
      },
    },
    { what: 'change the annotation value', send: () => asCarol('PATCH', `${CRDS}/deployments.apps`, { metadata: { annotations: { [ANNOTATION]: 'false' } } }, MERGE) },
  ];
  for (const c of negotiatedCases) {
    it(`carol may not touch a negotiated CRD: ${c.what}`, async () => {
      const before = (await admin('GET', `${CRDS}/deployments.apps`)).json;
      assertGuardRefused(await c.send(), 'deployments.apps', c.what);
      const now = (await admin('GET', `${CRDS}/deployments.apps`)).json;
      assert.equal(now.metadata.resourceVersion, before.metadata.resourceVersion, `${c.what}: nothing was written`);
      assert.equal(now.metadata.annotations[ANNOTATION], 'true');
    });
  }

  it("a workspace's own cluster-admin may not publish a negotiated CRD in it either", async () => {
    const base = '/clusters/root:team-a';
    const r = await asAlice('POST', `${base}${CRDS}`, crd('apps', 'deployments', 'Deployment', { [ANNOTATION]: 'true' }));
    assertGuardRefused(r, 'deployments.apps', 'workspace owner');
    // She administers the workspace: an ordinary CRD is fine.
    assert.equal((await asAlice('POST', `${base}${CRDS}`, crd('a.example.com', 'vaults', 'Vault'))).status, 201);
  });

  it('nor by impersonating system:masters, which RBAC in her workspace would otherwise allow', async () => {
    const base = '/clusters/root:team-a';
    // She holds `impersonate` on groups there (cluster-admin): plain group impersonation works...
    const devs = await asAlice('GET', `${base}/api/v1/namespaces`, undefined, { 'Impersonate-User': 'alice', 'Impersonate-Group': 'devs' });
    assert.equal(devs.status, 200, devs.text);
    // ...but not of a group more privileged than her own.
    const body = crd('apps', 'deployments', 'Deployment', { [ANNOTATION]: 'true' });
    for (const headers of [{ 'Impersonate-User': 'alice', 'Impersonate-Group': 'system:masters' }, { 'Impersonate-User': 'admin', 'Impersonate-Group': 'devs, system:masters' }]) {
      const r = await asAlice('POST', `${base}${CRDS}`, body, headers);
      assert.equal(r.status, 403, r.text);
      assert.equal(r.json.reason, 'Forbidden');
      assert.equal(r.json.message, 'forbidden: impersonation is not allowed for the requestor');
    }
    assert.equal((await admin('GET', `${base}${CRDS}/deployments.apps`)).status, 404);
    // system:masters itself may impersonate system:masters.
    const r = await admin('GET', `${base}${CRDS}`, undefined, { 'Impersonate-User': 'bob', 'Impersonate-Group': 'system:masters' });
    assert.equal(r.status, 200, r.text);
  });

  it('system:masters (the negotiation controller) may still create and update negotiated CRDs', async () => {
    const created = await admin('POST', CRDS, crd('apps', 'controllerrevisions', 'ControllerRevision', { [ANNOTATION]: 'true' }));
    assert.equal(created.status, 201, created.text);
    const updated = await admin('PATCH', `${CRDS}/controllerrevisions.apps`, { metadata: { annotations: { 'apiresource.kcp.io/negotiated-spec-hash': 'x' } } }, MERGE);
    assert.equal(updated.status, 200, updated.text);
    await eventually('the negotiated type to be served', async () => (await admin('GET', '/apis/apps/v1/namespaces/default/controllerrevisions')).status === 200, 10_000, 20);
  });
});
