/**
 * Restarting on a root dir written by atrium's bucketed releases (homes at root:users:<bucket>:<bucket>:<user>, types
 * root:homeroot and root:homebucket, the home-creator grant under atrium's old names): nothing acknowledged is lost.
 * The old home keeps serving its owner at its old path, the grant keeps its subjects under kcp's names, `home` gets
 * kcp v0.32.3's spec, and `~` now means the new parentless home.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';

const WS = '/apis/tenancy.kcp.io/v1alpha1/workspaces';
const TYPES = '/apis/tenancy.kcp.io/v1alpha1/workspacetypes';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const OLD_HOME = 'root:users:ss:xx:alice';
const tokens = ['alice-token,alice,uid-alice,"devs"', 'bob-token,bob,uid-bob'];
const root = { name: 'root', path: 'root' };
const universal = { name: 'universal', path: 'root' };
const homebucket = { name: 'homebucket', path: 'root' };

describe('home workspaces after an upgrade from the bucketed layout', () => {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-home-upgrade-'));
  let ts: TestServer | undefined;
  after(async () => {
    await ts?.stop();
    rmSync(rootDir, { recursive: true, force: true });
  });

  it('keeps old homes at their old paths and the creator grant as the admin left it', async () => {
    ts = await startTestServer({ rootDir, tokens });
    const admin = (method: string, path: string, body?: unknown) => ts!.request(method, path, body);
    const ok = async (p: Promise<{ status: number; text: string; json: any }>) => {
      const r = await p;
      assert.ok(r.status >= 200 && r.status < 300, `${r.status} ${r.text}`);
      return r.json;
    };
    // What a bucketed release had bootstrapped (its `home` type, homeroot, homebucket, the grant narrowed to devs)...
    const home = await ok(admin('GET', `${TYPES}/home`));
    home.spec = { extend: { with: [universal] }, defaultChildWorkspaceType: universal, limitAllowedParents: { types: [homebucket] } };
    await ok(admin('PUT', `${TYPES}/home`, home));
    await ok(admin('POST', TYPES, { metadata: { name: 'homeroot' }, spec: { limitAllowedChildren: { types: [homebucket] }, limitAllowedParents: { types: [root] } } }));
    await ok(admin('POST', TYPES, { metadata: { name: 'homebucket' }, spec: { limitAllowedChildren: { types: [homebucket, { name: 'home', path: 'root' }] }, limitAllowedParents: { types: [{ name: 'homeroot', path: 'root' }, homebucket] } } }));
    await ok(admin('POST', `${RBAC}/clusterroles`, { metadata: { name: 'system:kcp:tenancy:home-workspace-creator' }, rules: [{ apiGroups: ['tenancy.kcp.io'], resources: ['workspaces'], resourceNames: ['~'], verbs: ['create'] }] }));
    await ok(admin('POST', `${RBAC}/clusterrolebindings`, {
      metadata: { name: 'system:kcp:authenticated:home-workspace-creator' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:kcp:tenancy:home-workspace-creator' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'devs' }],
    }));
    await ok(admin('DELETE', `${RBAC}/clusterrolebindings/system:kcp:configured-group:home-clusterworkspace-create`));
    await ok(admin('DELETE', `${RBAC}/clusterroles/system:kcp:home-clusterworkspace-create`));
    // ...and alice's home, as it made them: root:users, two buckets, then the home she owns.
    const levels: [string, string, string][] = [['root', 'users', 'homeroot'], ['root:users', 'ss', 'homebucket'], ['root:users:ss', 'xx', 'homebucket']];
    for (const [parent, name, type] of levels) {
      await ok(admin('POST', `/clusters/${parent}${WS}`, { metadata: { name }, spec: { type: { name: type, path: 'root' } } }));
      await eventually(`${parent}:${name} Ready`, async () => (await admin('GET', `/clusters/${parent}${WS}/${name}`)).json.status?.phase === 'Ready', 5_000, 25);
    }
    const owner = JSON.stringify({ username: 'alice', uid: 'uid-alice', groups: ['devs', 'system:authenticated'] });
    await ok(admin('POST', `/clusters/root:users:ss:xx${WS}`, { metadata: { name: 'alice', annotations: { 'experimental.tenancy.kcp.io/owner': owner } }, spec: { type: { name: 'home', path: 'root' } } }));
    await eventually('old home Ready', async () => (await admin('GET', `/clusters/root:users:ss:xx${WS}/alice`)).json.status?.phase === 'Ready', 5_000, 25);
    await ok(ts.request('POST', `/clusters/${OLD_HOME}/api/v1/namespaces/default/configmaps`, { metadata: { name: 'old-notes' }, data: { k: 'v' } }, { token: 'alice-token' }));
    await ts.stop();
    ts = undefined;

    ts = await startTestServer({ rootDir, tokens });
    const alice = (method: string, path: string) => ts!.request(method, path, undefined, { token: 'alice-token' });
    // The old home serves its owner at its old path, with what she had stored, and nobody else.
    const notes = await alice('GET', `/clusters/${OLD_HOME}/api/v1/namespaces/default/configmaps/old-notes`);
    assert.equal(notes.status, 200, notes.text);
    assert.deepEqual(notes.json.data, { k: 'v' });
    assert.equal((await ts.request('GET', `/clusters/${OLD_HOME}/api/v1/namespaces`, undefined, { token: 'bob-token' })).status, 403);
    // The bucket types stay for the old workspaces; `home` has kcp v0.32.3's spec.
    const types = (await ts.request('GET', TYPES)).json.items;
    assert.deepEqual(types.map((t: any) => t.metadata.name).sort(), ['home', 'homebucket', 'homeroot', 'organization', 'root', 'team', 'universal']);
    assert.deepEqual(types.find((t: any) => t.metadata.name === 'home').spec.limitAllowedParents, { none: true });
    // The grant moved to kcp's names with the admin's subjects; the old names are gone.
    const binding = await ts.request('GET', `${RBAC}/clusterrolebindings/system:kcp:configured-group:home-clusterworkspace-create`);
    assert.deepEqual(binding.json.subjects, [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'devs' }]);
    assert.equal((await ts.request('GET', `${RBAC}/clusterrolebindings/system:kcp:authenticated:home-workspace-creator`)).status, 404);
    assert.equal((await ts.request('GET', `${RBAC}/clusterroles/system:kcp:tenancy:home-workspace-creator`)).status, 404);
    assert.equal((await ts.request('GET', `${RBAC}/clusterroles/system:kcp:home-clusterworkspace-create`)).status, 200);
    // `~` is the new home now (empty), which only devs may have made.
    const fresh = await alice('GET', `${WS}/~`);
    assert.equal(fresh.status, 200, fresh.text);
    assert.equal(fresh.json.spec.cluster, 'v1u4alow0iv9');
    assert.equal((await alice('GET', '/clusters/user:alice/api/v1/namespaces/default/configmaps/old-notes')).status, 404);
    assert.equal((await ts.request('GET', `${WS}/~`, undefined, { token: 'bob-token' })).status, 403);
  });
});
