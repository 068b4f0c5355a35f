/**
 * Bootstrap ClusterRoles are reconciled at every start as kube-apiserver does (additively, unless annotated
 * `rbac.authorization.kubernetes.io/autoupdate: "false"`): a root dir written by an older atrium, whose roles lack
 * rules a newer one grants, gets them back, and the aggregated view/edit/admin follow.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/harness.js';

const rolePath = (name: string) => `/apis/rbac.authorization.k8s.io/v1/clusterroles/${name}`;
const grantsServices = (role: any) => (role.rules ?? []).some((r: any) => (r.resources ?? []).includes('services') && (r.verbs ?? []).includes('list'));

describe('bootstrap ClusterRoles are reconciled on start', () => {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-rbac-reconcile-'));
  let ts: TestServer | undefined;
  after(async () => {
    await ts?.stop();
    rmSync(rootDir, { recursive: true, force: true });
  });

  it('missing rules and labels come back unless the role opted out', async () => {
    ts = await startTestServer({ rootDir });
    // Stand in for roles an older release wrote: aggregate-to-view without services, a label gone, and an opted-out
    // role that must stay as its owner left it.
    const toView = (await ts.request('GET', rolePath('system:aggregate-to-view'))).json;
    assert.ok(grantsServices(toView), 'this release grants services to view');
    toView.rules = toView.rules.filter((r: any) => !(r.resources ?? []).includes('services'));
    delete toView.metadata.labels['kubernetes.io/bootstrapping'];
    assert.equal((await ts.request('PUT', rolePath('system:aggregate-to-view'), toView)).status, 200);
    const toEdit = (await ts.request('GET', rolePath('system:aggregate-to-edit'))).json;
    toEdit.metadata.annotations['rbac.authorization.kubernetes.io/autoupdate'] = 'false';
    toEdit.rules = [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }];
    assert.equal((await ts.request('PUT', rolePath('system:aggregate-to-edit'), toEdit)).status, 200);
    await ts.stop();
    ts = undefined;

    ts = await startTestServer({ rootDir });
    const reconciled = (await ts.request('GET', rolePath('system:aggregate-to-view'))).json;
    assert.ok(grantsServices(reconciled), 'the services rule is back');
    assert.equal(reconciled.metadata.labels['kubernetes.io/bootstrapping'], 'rbac-defaults');
    assert.equal(reconciled.metadata.labels['rbac.authorization.k8s.io/aggregate-to-view'], 'true');
    const view = (await ts.request('GET', rolePath('view'))).json;
    assert.ok(grantsServices(view), 'view aggregates it again');
    const optedOut = (await ts.request('GET', rolePath('system:aggregate-to-edit'))).json;
    assert.deepEqual(optedOut.rules, [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]);
  });
});
