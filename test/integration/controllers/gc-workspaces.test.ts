/**
 * The garbage collector in non-root workspaces: custom resources whose CRD exists only in one workspace (so root's
 * discovery, which `/clusters/*` answers with, does not list them) are still collected, in Background and
 * Foreground, and a built-in owner in a workspace still owns custom-resource dependents there. Objects in a sibling
 * workspace with the same names are left alone.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../helpers/harness.js';
import { cronTabCRD } from '../crd-fixtures.js';
import { installCRD } from '../crd-support.js';
import { sleep } from '../support.js';
import { eventuallyGone, ownerRef, staysPresent } from './support.js';
import { waitForWorkspace } from '../../helpers/workspaces.js';

const WS = '/apis/tenancy.kcp.io/v1alpha1/workspaces';
const group = 'gc.example.com';

describe('garbage collector in non-root workspaces (custom resources)', () => {
  let ts: TestServer;
  const a = '/clusters/root:gc-a';
  const b = '/clusters/root:gc-b';
  const crontabs = (prefix: string) => `${prefix}/apis/${group}/v1/namespaces/default/crontabs`;

  async function workspace(name: string): Promise<void> {
    const r = await ts.request('POST', `/clusters/root${WS}`, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name }, spec: {} });
    assert.equal(r.status, 201, r.text);
    await waitForWorkspace(ts, 'root', name, { timeoutMs: 15_000, intervalMs: 50 });
  }
  async function crontab(prefix: string, name: string, meta: Record<string, unknown> = {}): Promise<any> {
    const r = await ts.request('POST', crontabs(prefix), { apiVersion: `${group}/v1`, kind: 'CronTab', metadata: { name, ...meta }, spec: { cronSpec: '* * * * *' } });
    assert.equal(r.status, 201, r.text);
    return r.json;
  }

  before(async () => {
    ts = await startTestServer({ server: { builtinControllers: true } });
    await workspace('gc-a');
    await workspace('gc-b');
    await installCRD(ts, cronTabCRD({ group }), a);
    await installCRD(ts, cronTabCRD({ group }), b);
    // The CRD is not served in root: wildcard discovery cannot see it.
    assert.equal((await ts.request('GET', `/apis/${group}/v1`)).status, 404);
  });
  after(async () => {
    await ts?.stop();
  });

  it('Background: a custom-resource dependent of a deleted custom-resource owner is deleted', async () => {
    const owner = await crontab(a, 'owner');
    await crontab(a, 'dependent', { ownerReferences: [ownerRef(owner)] });
    // Same names in the sibling workspace, owned by its own owner: untouched throughout.
    const siblingOwner = await crontab(b, 'owner');
    await crontab(b, 'dependent', { ownerReferences: [ownerRef(siblingOwner)] });
    // Give the collector a moment to have (possibly) discovered the workspace's resources before the delete.
    await sleep(200);
    assert.equal((await ts.request('DELETE', `${crontabs(a)}/owner`, { propagationPolicy: 'Background' })).status, 200);
    await eventuallyGone(ts, `${crontabs(a)}/dependent`);
    await staysPresent(ts, `${crontabs(b)}/dependent`, 500);
    assert.equal((await ts.request('GET', `${crontabs(b)}/owner`)).status, 200);
  });

  it('Foreground: the owner waits for its blocking custom-resource dependents, then goes', async () => {
    const owner = await crontab(a, 'fg-owner');
    await crontab(a, 'fg-dep', { ownerReferences: [ownerRef(owner, { blockOwnerDeletion: true })] });
    assert.equal((await ts.request('DELETE', `${crontabs(a)}/fg-owner`, { propagationPolicy: 'Foreground' })).status, 200);
    await eventuallyGone(ts, `${crontabs(a)}/fg-dep`);
    await eventuallyGone(ts, `${crontabs(a)}/fg-owner`);
  });

  it('a built-in owner in the workspace owns custom-resource dependents there', async () => {
    const r = await ts.request('POST', `${a}/api/v1/namespaces/default/configmaps`, { metadata: { name: 'cm-owner' } });
    assert.equal(r.status, 201, r.text);
    await crontab(a, 'cm-dep', { ownerReferences: [ownerRef({ apiVersion: 'v1', kind: 'ConfigMap', ...r.json })] });
    assert.equal((await ts.request('DELETE', `${a}/api/v1/namespaces/default/configmaps/cm-owner`)).status, 200);
    await eventuallyGone(ts, `${crontabs(a)}/cm-dep`);
  });

  it('a CRD installed later in another workspace is picked up without any restart', async () => {
    await workspace('gc-c');
    const c = '/clusters/root:gc-c';
    await installCRD(ts, cronTabCRD({ group }), c);
    const owner = await crontab(c, 'late-owner');
    await crontab(c, 'late-dep', { ownerReferences: [ownerRef(owner)] });
    assert.equal((await ts.request('DELETE', `${crontabs(c)}/late-owner`)).status, 200);
    await eventuallyGone(ts, `${crontabs(c)}/late-dep`);
  });
});
