/**
 * How the workload types are served in workspaces with compute, in process and without physical clusters (SyncTargets
 * without a kubeconfig, whose syncer never runs, and Placements give workspaces compute):
 *
 * - a negotiated `deployments.apps` CRD left from an older version: the native type hides it wherever both exist (one
 *   entry in discovery, the same objects since the storage keys are the same), negotiation enforces the built-in
 *   schema and leaves the CRD untouched, and the CRD serves the type again once compute is gone;
 * - when compute goes, open watches on the types in that workspace end and the objects stay stored;
 * - `/clusters/*` lists the types across workspaces, so the garbage collector sees them (foreground deletion of a
 *   Deployment owning a Pod completes);
 * - a deleted Placement's cleanup finalizer is released by the scheduler;
 * - deleting a workspace removes the objects of the types even when it no longer served them.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { eventually as eventuallyPoll } from '../helpers/eventually.js';
import { multiclusterServerOptions } from '../../src/multicluster/server-options.js';
import { RestClient } from '../../src/client/rest-client.js';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { builtinStructuralSchema } from '../../src/multicluster/schema/builtin-schema.js';
import { openWatch } from './support.js';

const deploymentsGVR = { group: 'apps', version: 'v1', resource: 'deployments' };
const podsGVR = { group: '', version: 'v1', resource: 'pods' };
const syncTargetsGVR = { group: 'workload.kcp.io', version: 'v1alpha1', resource: 'synctargets' };
const placementsGVR = { group: 'scheduling.kcp.io', version: 'v1alpha1', resource: 'placements' };
const importsGVR = { group: 'apiresource.kcp.io', version: 'v1alpha1', resource: 'apiresourceimports' };
const crdsGVR = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };
const workspacesGVR = { group: 'tenancy.kcp.io', version: 'v1alpha1', resource: 'workspaces' };
const NEGOTIATED = 'apiresource.kcp.io/negotiated';

const eventually = <T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> => eventuallyPoll(what, probe, timeoutMs, 50);

function deployment(name: string, replicas?: number): KubeObject {
  const app = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: { ...(replicas === undefined ? {} : { replicas }), selector: { matchLabels: app }, template: { metadata: { labels: app }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  };
}

/** The negotiated CRD an older atrium published for Deployments (loose schema, status subresource). */
const legacyCRD: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'deployments.apps', annotations: { [NEGOTIATED]: 'true', 'apiresource.kcp.io/negotiated-spec-hash': 'old' } },
  spec: {
    group: 'apps',
    scope: 'Namespaced',
    names: { plural: 'deployments', singular: 'deployment', kind: 'Deployment', listKind: 'DeploymentList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } },
        subresources: { status: {} },
      },
    ],
  },
};

describe('native workload types: serving details', () => {
  let atrium: TestServer;
  let up: RestClient;

  async function workspace(name: string): Promise<{ cluster: string }> {
    await up.create(workspacesGVR, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name }, spec: {} });
    const ws = await eventually(`workspace ${name} Ready`, async () => {
      const w = await up.get(workspacesGVR, name);
      return (w.status as { phase?: string } | undefined)?.phase === 'Ready' && w;
    });
    return { cluster: (ws.spec as { cluster: string }).cluster };
  }
  const serves = async (path: string) => ((await atrium.request('GET', `/clusters/${path}/apis/apps/v1`)).json?.resources ?? []).filter((r: { name: string }) => r.name === 'deployments');
  /** A SyncTarget no syncer serves: deleting it means dropping its finalizer by hand. */
  const removeTarget = async (scope: { cluster: string }, name: string) => {
    await up.delete(syncTargetsGVR, name, scope);
    await up.patch(syncTargetsGVR, name, 'merge', { metadata: { finalizers: null } }, scope).catch(() => undefined);
    await eventually(`SyncTarget ${name} gone`, async () => (await up.get(syncTargetsGVR, name, scope).catch((e: { code?: number }) => e.code)) === 404);
  };

  before(async () => {
    atrium = await startTestServer({ server: { builtinControllers: true, ...multiclusterServerOptions({ scheduling: { resyncMs: 200 } }) } });
    up = new RestClient({ url: atrium.url, ca: atrium.server.caPem, token: atrium.server.adminToken });
  });
  after(async () => {
    up?.close();
    await atrium?.stop();
  });

  it('the native type hides a negotiated CRD left from an older version; negotiation enforces the built-in schema and leaves the CRD alone', async () => {
    const legacy = await workspace('legacy');
    await up.create(crdsGVR, legacyCRD, legacy);
    await eventually('the legacy CRD serves deployments', async () => (await serves('root:legacy')).length === 1);
    // Stored through the CRD, as older versions did: no defaulting, no spec.replicas.
    await up.create(deploymentsGVR, deployment('old'), { ...legacy, namespace: 'default' });
    assert.deepEqual((await serves('root:legacy'))[0].shortNames, undefined, 'the CRD has no short names');

    await up.create(syncTargetsGVR, { apiVersion: 'workload.kcp.io/v1alpha1', kind: 'SyncTarget', metadata: { name: 'st' }, spec: {} }, legacy);
    const [native, ...more] = await eventually('the native type served', async () => {
      const s = await serves('root:legacy');
      return s[0]?.shortNames?.[0] === 'deploy' && s;
    });
    assert.deepEqual(more, [], 'one entry in discovery');
    assert.deepEqual([native.categories, native.verbs.includes('deletecollection')], [['all'], true]);
    const scale = await atrium.request('GET', '/clusters/root:legacy/apis/apps/v1/namespaces/default/deployments/old/scale');
    assert.equal(scale.status, 200, 'the same object, served natively (with /scale)');
    // Objects stored through the CRD are defaulted as built-ins on their next write (not on read).
    await up.patch(deploymentsGVR, 'old', 'merge', { spec: { replicas: 2 } }, { ...legacy, namespace: 'default', subresource: 'scale' });
    await up.patch(deploymentsGVR, 'old', 'merge', { metadata: { labels: { touched: 'yes' } } }, { ...legacy, namespace: 'default' });
    const old = await up.get(deploymentsGVR, 'old', { ...legacy, namespace: 'default' });
    assert.deepEqual([(old.spec as { replicas: number }).replicas, (old.spec as { strategy?: { type?: string } }).strategy?.type], [2, 'RollingUpdate']);

    // What a syncer would report for the cluster: enforced against the built-in schema, with no CRD written.
    const crdBefore = await up.get(crdsGVR, 'deployments.apps', legacy);
    const spec = { location: 'st', groupVersion: { group: 'apps', version: 'v1' }, plural: 'deployments', singular: 'deployment', kind: 'Deployment', scope: 'Namespaced', shortNames: ['deploy'], categories: ['all'], subResources: ['status', 'scale'] };
    await up.create(importsGVR, { apiVersion: 'apiresource.kcp.io/v1alpha1', kind: 'APIResourceImport', metadata: { name: 'deployments.st.v1.apps' }, spec: { ...spec, openAPIV3Schema: builtinStructuralSchema('io.k8s.api.apps.v1.Deployment') } }, legacy);
    const conditions = await eventually('the import Compatible and Available (Enforced)', async () => {
      const c = ((await up.get(importsGVR, 'deployments.st.v1.apps', legacy)).status as { conditions?: { type: string; status: string; reason?: string }[] } | undefined)?.conditions ?? [];
      return c.find((x) => x.type === 'Available')?.reason === 'Enforced' && c;
    });
    assert.equal(conditions.find((x) => x.type === 'Compatible')?.status, 'True');
    const loose = structuredClone(builtinStructuralSchema('io.k8s.api.apps.v1.Deployment')) as { properties: { spec: { properties: Record<string, unknown> } } };
    loose.properties.spec.properties.minReadySeconds = { type: 'string' };
    await up.create(importsGVR, { apiVersion: 'apiresource.kcp.io/v1alpha1', kind: 'APIResourceImport', metadata: { name: 'deployments.st2.v1.apps' }, spec: { ...spec, location: 'st2', openAPIV3Schema: loose } }, legacy);
    await up.create(syncTargetsGVR, { apiVersion: 'workload.kcp.io/v1alpha1', kind: 'SyncTarget', metadata: { name: 'st2' }, spec: {} }, legacy);
    const compatible = await eventually('st2 Incompatible with the field path', async () => {
      const c = ((await up.get(importsGVR, 'deployments.st2.v1.apps', legacy)).status as { conditions?: { type: string; status: string; message?: string }[] } | undefined)?.conditions ?? [];
      return c.find((x) => x.type === 'Compatible' && x.status === 'False');
    });
    assert.equal(compatible.message, 'spec.minReadySeconds: type "string" in the cluster does not accept "integer"');
    const crdAfter = await up.get(crdsGVR, 'deployments.apps', legacy);
    assert.deepEqual([crdAfter.metadata?.resourceVersion, crdAfter.metadata?.deletionTimestamp], [crdBefore.metadata?.resourceVersion, undefined], 'the legacy CRD is neither updated nor deleted');

    // Compute gone: the CRD serves the type again, with the same object.
    await removeTarget(legacy, 'st');
    await removeTarget(legacy, 'st2');
    await eventually('the CRD serves deployments again', async () => {
      const s = await serves('root:legacy');
      return s.length === 1 && s[0].shortNames === undefined;
    });
    assert.equal((await up.get(deploymentsGVR, 'old', { ...legacy, namespace: 'default' })).metadata?.name, 'old');
  });

  it('when compute goes, open watches in the workspace end and the objects stay; they are served again when it returns', async () => {
    const w = await workspace('watched');
    await up.create(placementsGVR, { apiVersion: 'scheduling.kcp.io/v1alpha1', kind: 'Placement', metadata: { name: 'p' }, spec: { locationWorkspace: '', locationSelectors: [{}], locationResource: { group: 'workload.kcp.io', version: 'v1alpha1', resource: 'synctargets' } } }, w);
    await eventually('deployments served', async () => (await serves('root:watched')).length === 1);
    await up.create(deploymentsGVR, deployment('kept', 2), { ...w, namespace: 'default' });
    const watch = await openWatch(atrium, '/clusters/root:watched/apis/apps/v1/namespaces/default/deployments?watch=1');
    const other = await openWatch(atrium, '/clusters/root:watched/api/v1/namespaces/default/configmaps?watch=1');
    // The Placement holds the cleanup finalizer (a Placement without it, as from older versions, gets it back), which
    // the scheduler releases on deletion (nothing was placed, nothing to undo).
    assert.deepEqual((await up.get(placementsGVR, 'p', w)).metadata?.finalizers, ['scheduling.atrium.io/release-compute']);
    await up.patch(placementsGVR, 'p', 'merge', { metadata: { finalizers: null } }, w);
    await eventually('the finalizer added again', async () => (await up.get(placementsGVR, 'p', w)).metadata?.finalizers?.[0] === 'scheduling.atrium.io/release-compute');
    await up.delete(placementsGVR, 'p', w);
    await eventually('the Placement gone', async () => (await up.get(placementsGVR, 'p', w).catch((e: { code?: number }) => e.code)) === 404);
    await Promise.race([watch.ended, new Promise((_, reject) => setTimeout(() => reject(new Error('the deployments watch did not end')), 10_000).unref())]);
    assert.deepEqual(await serves('root:watched'), []);
    assert.equal((await atrium.request('GET', '/clusters/root:watched/apis/apps/v1/namespaces/default/deployments/kept')).status, 404);
    assert.equal((await atrium.request('GET', '/clusters/root:watched/api/v1/namespaces/default/pods')).status, 404);
    let otherEnded = false;
    void other.ended.then(() => (otherEnded = true));
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(otherEnded, false, 'watches on other resources stay open');
    other.close();

    await up.create(syncTargetsGVR, { apiVersion: 'workload.kcp.io/v1alpha1', kind: 'SyncTarget', metadata: { name: 'back' }, spec: {} }, w);
    const kept = await eventually('served again, with the object', async () => up.get(deploymentsGVR, 'kept', { ...w, namespace: 'default' }).catch(() => undefined));
    assert.equal((kept.spec as { replicas: number }).replicas, 2);
  });

  it('/clusters/* lists the types across workspaces, and the garbage collector completes a foreground deletion', async () => {
    const gc = await workspace('gc');
    await up.create(syncTargetsGVR, { apiVersion: 'workload.kcp.io/v1alpha1', kind: 'SyncTarget', metadata: { name: 'st' }, spec: {} }, gc);
    await eventually('deployments served', async () => (await serves('root:gc')).length === 1);
    const owner = await up.create(deploymentsGVR, deployment('owner', 1), { ...gc, namespace: 'default' });
    await up.create(podsGVR, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'owned', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'owner', uid: owner.metadata!.uid!, blockOwnerDeletion: true }] }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }, { ...gc, namespace: 'default' });
    const all = await atrium.request('GET', '/clusters/*/apis/apps/v1/deployments');
    assert.equal(all.status, 200, all.text);
    assert.ok(all.json.items.some((d: KubeObject) => d.metadata?.name === 'owner' && d.metadata.annotations?.['kcp.io/cluster'] === gc.cluster), 'the wildcard list has the workspace\'s Deployment');
    const del = await atrium.request('DELETE', '/clusters/root:gc/apis/apps/v1/namespaces/default/deployments/owner', { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' });
    assert.ok(del.status === 200 || del.status === 202, del.text);
    await eventually('the owned Pod and then the owner gone', async () => {
      const pod = await up.get(podsGVR, 'owned', { ...gc, namespace: 'default' }).catch((e: { code?: number }) => e.code);
      const d = await up.get(deploymentsGVR, 'owner', { ...gc, namespace: 'default' }).catch((e: { code?: number }) => e.code);
      return pod === 404 && d === 404;
    }, 30_000);
  });

  it('deleting a workspace removes the objects of the types, also after its compute was unbound', async () => {
    const gone = await workspace('gone');
    await up.create(syncTargetsGVR, { apiVersion: 'workload.kcp.io/v1alpha1', kind: 'SyncTarget', metadata: { name: 'st' }, spec: {} }, gone);
    await eventually('deployments served', async () => (await serves('root:gone')).length === 1);
    await up.create(deploymentsGVR, deployment('leftover', 1), { ...gone, namespace: 'default' });
    await removeTarget(gone, 'st');
    const inStore = async () => ((await atrium.request('GET', '/clusters/*/apis/apps/v1/deployments')).json.items as KubeObject[]).some((d) => d.metadata?.annotations?.['kcp.io/cluster'] === gone.cluster);
    assert.equal(await inStore(), true, 'unserved, but still stored');
    await up.delete(workspacesGVR, 'gone');
    await eventually('the leftover Deployment removed with the workspace', async () => !(await inStore()));
  });
});
