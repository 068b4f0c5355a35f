/**
 * Workspaces over HTTPS: the tree of logical clusters, path resolution, isolation, WorkspaceType rules with kcp's
 * messages, the privileged wildcard, and deletion of a whole subtree.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { assertStatus, openWatch, sleep } from './support.js';
import { eventually } from '../helpers/eventually.js';
import { waitForWorkspace } from '../helpers/workspaces.js';
import type { RequestInfo } from '../../src/apiserver/request-info.js';
import { parseRequestInfo } from '../../src/apiserver/request-info.js';

const WS = '/apis/tenancy.kcp.io/v1alpha1/workspaces';

let ts: TestServer;

async function createWorkspace(parentPath: string, name: string, type?: { name: string; path?: string }): Promise<any> {
  const body: any = { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name }, spec: {} };
  if (type) body.spec.type = type;
  const r = await ts.request('POST', `/clusters/${parentPath}${WS}`, body);
  assert.equal(r.status, 201, r.text);
  return waitReady(parentPath, name);
}

const waitReady = (parentPath: string, name: string): Promise<any> => waitForWorkspace(ts, parentPath, name, { timeoutMs: 2_000, intervalMs: 10 });

function configMap(name: string): any {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: name } };
}

describe('workspaces', () => {
  let org: any;
  let team: any;
  let leaf: any;

  before(async () => {
    ts = await startTestServer();
    org = await createWorkspace('root', 'org');
    team = await createWorkspace('root:org', 'team', { name: 'team' });
    leaf = await createWorkspace('root:org:team', 'leaf');
  });
  after(async () => {
    await ts.stop();
  });

  it('bootstraps root: its LogicalCluster and the built-in WorkspaceTypes', async () => {
    const lc = await ts.request('GET', '/clusters/root/apis/core.kcp.io/v1alpha1/logicalclusters/cluster');
    assert.equal(lc.status, 200);
    assert.equal(lc.json.status.phase, 'Ready');
    assert.equal(lc.json.metadata.annotations['kcp.io/path'], 'root');
    const types = await ts.request('GET', '/apis/tenancy.kcp.io/v1alpha1/workspacetypes');
    assert.deepEqual(types.json.items.map((t: any) => t.metadata.name).sort(), ['home', 'organization', 'root', 'team', 'universal']);
  });

  it('schedules a workspace: type defaulted from the parent, a logical cluster, spec.URL, phase Ready with conditions', () => {
    assert.deepEqual(org.spec.type, { name: 'organization', path: 'root' });
    assert.match(org.spec.cluster, /^[a-z][a-z0-9]{15}$/);
    assert.ok(org.spec.URL.endsWith('/clusters/root:org'), org.spec.URL);
    assert.ok(org.spec.URL.startsWith(ts.url));
    assert.deepEqual(org.status.conditions.map((c: any) => `${c.type}=${c.status}`).sort(), ['WorkspaceInitialized=True', 'WorkspaceScheduled=True']);
    assert.deepEqual(team.spec.type, { name: 'team', path: 'root' });
    assert.deepEqual(leaf.spec.type, { name: 'universal', path: 'root' });
    assert.ok(leaf.spec.URL.endsWith('/clusters/root:org:team:leaf'));
  });

  it('serves each workspace under its path and under its logical cluster name, with its own LogicalCluster', async () => {
    for (const [path, ws, type] of [
      ['root:org', org, 'root:organization'],
      ['root:org:team', team, 'root:team'],
      ['root:org:team:leaf', leaf, 'root:universal'],
    ] as const) {
      for (const prefix of [path, ws.spec.cluster]) {
        const r = await ts.request('GET', `/clusters/${prefix}/apis/core.kcp.io/v1alpha1/logicalclusters/cluster`);
        assert.equal(r.status, 200, `${prefix}: ${r.text}`);
        assert.equal(r.json.metadata.annotations['kcp.io/path'], path);
        assert.equal(r.json.metadata.annotations['internal.tenancy.kcp.io/type'], type);
        assert.equal(r.json.status.phase, 'Ready');
        assert.equal(r.json.spec.owner.name, path.split(':').pop());
      }
    }
  });

  it('gives a new workspace its default namespaces', async () => {
    const r = await ts.request('GET', '/clusters/root:org:team/api/v1/namespaces');
    assert.deepEqual(r.json.items.map((n: any) => n.metadata.name).sort(), ['default', 'kube-public', 'kube-system']);
  });

  it('addresses the same workspace when the path escapes its colons (/clusters/root%3Aorg)', async () => {
    const created = await ts.request('POST', '/clusters/root%3Aorg%3Ateam/api/v1/namespaces/default/configmaps', configMap('escaped-path'));
    assert.equal(created.status, 201, created.text);
    const r = await ts.request('GET', '/clusters/root:org:team/api/v1/namespaces/default/configmaps/escaped-path');
    assert.equal(r.status, 200, r.text);
    await ts.request('DELETE', '/clusters/root:org:team/api/v1/namespaces/default/configmaps/escaped-path');
  });

  it('keeps objects of one workspace invisible in its siblings, parent and children', async () => {
    const created = await ts.request('POST', '/clusters/root:org/api/v1/namespaces/default/configmaps', configMap('only-in-org'));
    assert.equal(created.status, 201, created.text);
    for (const other of ['root', 'root:org:team', 'root:org:team:leaf']) {
      const r = await ts.request('GET', `/clusters/${other}/api/v1/namespaces/default/configmaps/only-in-org`);
      assertStatus(r, 404, 'NotFound', 'configmaps "only-in-org" not found');
    }
    const same = await ts.request('GET', `/clusters/${org.spec.cluster}/api/v1/namespaces/default/configmaps/only-in-org`);
    assert.equal(same.status, 200);
  });

  it('refuses types not allowed under a parent, with kcp messages', async () => {
    const cases: [string, string, { name: string; path?: string } | undefined, string][] = [
      [
        'root',
        'bad-team',
        { name: 'team' },
        'workspaces.tenancy.kcp.io "bad-team" is forbidden: workspace type root:team only allows [root:organization root:team] parent workspaces, but parent type root:root only implements [root:root root:universal]',
      ],
      [
        'root:org',
        'nested-org',
        { name: 'organization' },
        'workspaces.tenancy.kcp.io "nested-org" is forbidden: workspace type root:organization only allows [root:root] parent workspaces, but parent type root:organization only implements [root:organization root:universal]',
      ],
      ['root', 'typo', { name: 'nope' }, 'workspaces.tenancy.kcp.io "typo" is forbidden: workspace type "nope" cannot be resolved'],
      [
        'root',
        'typo2',
        { name: 'nope', path: 'root' },
        'workspaces.tenancy.kcp.io "typo2" is forbidden: Internal error occurred: workspacetypes.tenancy.kcp.io "nope" not found',
      ],
    ];
    for (const [parent, name, type, message] of cases) {
      const r = await ts.request('POST', `/clusters/${parent}${WS}`, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name }, spec: { type } });
      assertStatus(r, 403, 'Forbidden', message);
    }
  });

  it('rejects a name that clashes and a change of spec.type', async () => {
    const dup = await ts.request('POST', `/clusters/root${WS}`, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: 'org' }, spec: {} });
    assertStatus(dup, 409, 'AlreadyExists', 'workspaces.tenancy.kcp.io "org" already exists');
    const patch = await ts.request('PATCH', `/clusters/root${WS}/org`, { spec: { type: { name: 'universal', path: 'root' } } }, { headers: { 'Content-Type': 'application/merge-patch+json' } });
    assertStatus(patch, 403, 'Forbidden', 'workspaces.tenancy.kcp.io "org" is forbidden: spec.type is immutable');
    const badName = await ts.request('POST', `/clusters/root${WS}`, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: 'a.b' }, spec: {} });
    assert.equal(badName.status, 422, badName.text);
  });

  it('answers malformed and unknown cluster paths consistently', async () => {
    const bad = await ts.request('GET', '/clusters/Root_X/api/v1/namespaces');
    assertStatus(bad, 400, 'BadRequest', 'invalid cluster: "Root_X" does not match the regex');
    const unknownPath = await ts.request('GET', '/clusters/root:nope/api/v1/namespaces');
    assertStatus(unknownPath, 404, 'NotFound');
    const unknownDiscovery = await ts.request('GET', '/clusters/root:org:nope/apis');
    assert.equal(unknownDiscovery.status, 404);
  });

  it('answers an unprivileged user the same for a workspace that does not exist as for any other denial', () => {
    const alice = { username: 'alice', groups: ['system:authenticated'] };
    const attempt = (path: string, method = 'GET'): { code: number; message: string } => {
      const u = new URL(path, 'https://x');
      const info: RequestInfo = parseRequestInfo(method, u.pathname, u.searchParams);
      try {
        ts.server.tenancy.resolveRequestCluster(info, alice);
        return { code: 200, message: '' };
      } catch (err: any) {
        return { code: err.code, message: err.status.message };
      }
    };
    assert.deepEqual(attempt('/clusters/root:nope/api/v1/namespaces/default/configmaps'), {
      code: 403,
      message: 'configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "default": workspace access not permitted',
    });
    assert.deepEqual(attempt('/clusters/zzzzzzzzzzzzzzzz/apis'), { code: 403, message: 'forbidden: User "alice" cannot get path "/apis": workspace access not permitted' });
    assert.equal(attempt('/clusters/system:admin/api').code, 403);
    assert.equal(attempt('/clusters/*/api/v1/configmaps').code, 403);
    // Existing workspaces resolve (authorization proper is the authorizer's business).
    assert.equal(attempt('/clusters/root:org:team/api/v1/namespaces').code, 200);
  });

  it('lists and watches across all workspaces under /clusters/*, annotating each object with kcp.io/cluster', async () => {
    const watch = await openWatch(ts, '/clusters/*/api/v1/configmaps?watch=1&resourceVersion=0');
    try {
      await ts.request('POST', '/clusters/root:org:team/api/v1/namespaces/default/configmaps', configMap('in-team'));
      await ts.request('POST', '/clusters/root:org:team:leaf/api/v1/namespaces/default/configmaps', configMap('in-leaf'));
      const seen = new Map<string, string>();
      const deadline = Date.now() + 5000;
      while ((!seen.has('in-team') || !seen.has('in-leaf')) && Date.now() < deadline) {
        const ev = await watch.next(deadline - Date.now());
        if (ev?.object?.metadata?.name) seen.set(ev.object.metadata.name, ev.object.metadata.annotations?.['kcp.io/cluster']);
      }
      assert.equal(seen.get('in-team'), team.spec.cluster);
      assert.equal(seen.get('in-leaf'), leaf.spec.cluster);
      assert.equal(seen.get('only-in-org'), org.spec.cluster);
    } finally {
      watch.close();
    }
    const list = await ts.request('GET', '/clusters/*/api/v1/configmaps');
    assert.equal(list.status, 200);
    const byName = new Map(list.json.items.map((i: any) => [i.metadata.name, i.metadata.annotations['kcp.io/cluster']]));
    assert.equal(byName.get('in-team'), team.spec.cluster);
    assert.equal(byName.get('only-in-org'), org.spec.cluster);
    // Everything but list and watch is refused there, with kcp's WithWildcardListWatchGuard message.
    const create = await ts.request('POST', '/clusters/*/api/v1/namespaces/default/configmaps', configMap('nope'));
    assertStatus(create, 405, 'MethodNotAllowed');
    assert.equal(create.json.message, 'create is not supported on resources of kind "configmaps" in the `*` logical cluster');
    const get = await ts.request('GET', '/clusters/*/api/v1/namespaces/default/configmaps/in-team');
    assertStatus(get, 405, 'MethodNotAllowed');
    assert.equal(get.json.message, 'get is not supported on resources of kind "configmaps" in the `*` logical cluster');
    assert.deepEqual(get.json.details, { kind: 'configmaps' });
    const del = await ts.request('DELETE', '/clusters/*/apis/tenancy.kcp.io/v1alpha1/workspaces/org');
    assertStatus(del, 405, 'MethodNotAllowed');
    assert.equal(del.json.message, 'delete is not supported on resources of kind "workspaces.tenancy.kcp.io" in the `*` logical cluster');
  });

  it('deletes a workspace with its whole subtree and every object in it', async () => {
    const other = await createWorkspace('root', 'other');
    await ts.request('POST', '/clusters/root:other/api/v1/namespaces/default/configmaps', configMap('survivor'));
    const del = await ts.request('DELETE', `/clusters/root${WS}/org`);
    assert.ok(del.status === 200 || del.status === 202, del.text);
    assertStatus(await eventually('root:org gone', async () => {
      const r = await ts.request('GET', `/clusters/root${WS}/org`);
      return r.status === 404 && r;
    }, 3_000, 10), 404, 'NotFound');
    for (const ws of [org, team, leaf]) {
      const prefix = (await import('../../src/registry/generic/keys.js')).collectionPrefix('', 'configmaps', ws.spec.cluster, '');
      assert.equal(await ts.server.registry.storage.count(prefix), 0, `configmaps left in ${ws.spec.cluster}`);
      const nsPrefix = (await import('../../src/registry/generic/keys.js')).collectionPrefix('', 'namespaces', ws.spec.cluster, '');
      assert.equal(await ts.server.registry.storage.count(nsPrefix), 0);
      assert.equal(ts.server.tenancy.index.cluster(ws.spec.cluster), undefined);
    }
    assertStatus(await ts.request('GET', '/clusters/root:org:team/api/v1/namespaces'), 404, 'NotFound');
    const survivor = await ts.request('GET', '/clusters/root:other/api/v1/namespaces/default/configmaps/survivor');
    assert.equal(survivor.status, 200);
    assert.equal(other.status.phase, 'Ready');
  });
});
