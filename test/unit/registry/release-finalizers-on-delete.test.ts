/**
 * ResourceRegistry.releaseFinalizersOnDelete over a real store (SQLite in memory): a DELETE removes the finalizers a
 * plugin declared released with the object (multi-cluster's syncer finalizers, decisions/deletion.ts), so the object
 * is gone at once; other finalizers still hold it; Pods stay held by theirs, as a pod stays Terminating on one cluster.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineBuiltin } from '../../../src/registry/builtin/define.js';
import { ResourceRegistry } from '../../../src/registry/resource-registry.js';
import type { GenericStore } from '../../../src/registry/generic/store.js';
import { WatchCache } from '../../../src/storage/cacher/watch-cache.js';
import { SqliteStore } from '../../../src/storage/sqlite/sqlite-store.js';
import { releasedOnDelete } from '../../../src/multicluster/decisions/deletion.js';

const ctx = { cluster: 'ws', user: { username: 'admin', groups: ['system:masters'] } };
const SYNCER = 'workload.kcp.io/syncer-2x8s9dk1';

describe('releaseFinalizersOnDelete', () => {
  let storage: SqliteStore;
  let configMaps: GenericStore;
  let pods: GenericStore;

  before(() => {
    storage = SqliteStore.open(':memory:');
    const registry = new ResourceRegistry(storage, new WatchCache(storage, { historySize: 50 }));
    configMaps = registry.registerBuiltin(defineBuiltin({ group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, definitionName: 'test.configmaps' }));
    pods = registry.registerBuiltin(defineBuiltin({ group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true, definitionName: 'test.pods' }));
    registry.releaseFinalizersOnDelete(releasedOnDelete);
  });

  after(async () => {
    await storage.close();
  });

  const make = (store: GenericStore, kind: string, name: string, finalizers: string[]) =>
    store.create(ctx, 'ns', { apiVersion: 'v1', kind, metadata: { name, namespace: 'ns', finalizers } }, { dryRun: false });

  it('removes an object held only by released finalizers at once', async () => {
    await make(configMaps, 'ConfigMap', 'only-syncer', [SYNCER, 'workload.kcp.io/syncer-other']);
    const r = await configMaps.delete(ctx, 'ns', 'only-syncer', { dryRun: false });
    assert.equal(r.deleted, true);
    await assert.rejects(configMaps.get(ctx, 'ns', 'only-syncer'), (err: { code?: number }) => err.code === 404);
  });

  it('keeps the other finalizers holding the object, without the released ones', async () => {
    await make(configMaps, 'ConfigMap', 'mixed', [SYNCER, 'example.com/hold']);
    const r = await configMaps.delete(ctx, 'ns', 'mixed', { dryRun: false });
    assert.equal(r.deleted, false);
    const held = await configMaps.get(ctx, 'ns', 'mixed');
    assert.deepEqual(held.metadata?.finalizers, ['example.com/hold']);
    assert.ok(held.metadata?.deletionTimestamp);
  });

  it('a dry run answers as the DELETE would and writes nothing', async () => {
    await make(configMaps, 'ConfigMap', 'dry', [SYNCER]);
    const r = await configMaps.delete(ctx, 'ns', 'dry', { dryRun: true });
    assert.equal(r.deleted, true);
    assert.deepEqual((await configMaps.get(ctx, 'ns', 'dry')).metadata?.finalizers, [SYNCER]);
  });

  it('a Pod stays held by its syncer finalizer (Terminating until its copy is gone)', async () => {
    await make(pods, 'Pod', 'p', [SYNCER]);
    const r = await pods.delete(ctx, 'ns', 'p', { dryRun: false });
    assert.equal(r.deleted, false);
    const held = await pods.get(ctx, 'ns', 'p');
    assert.deepEqual(held.metadata?.finalizers, [SYNCER]);
    assert.ok(held.metadata?.deletionTimestamp);
  });

  it('releasedOnDelete: syncer finalizers only, never of Pods, PersistentVolumeClaims or split children', () => {
    assert.equal(releasedOnDelete({ group: 'apps', resource: 'deployments' }, SYNCER), true);
    assert.equal(releasedOnDelete({ group: 'example.com', resource: 'widgets' }, SYNCER), true);
    assert.equal(releasedOnDelete({ group: 'apps', resource: 'deployments' }, 'kubernetes.io/pvc-protection'), false);
    assert.equal(releasedOnDelete({ group: 'apps', resource: 'deployments' }, 'foregroundDeletion'), false);
    assert.equal(releasedOnDelete({ group: '', resource: 'pods' }, SYNCER), false);
    assert.equal(releasedOnDelete({ group: '', resource: 'persistentvolumeclaims' }, SYNCER), false);
    const child = { metadata: { name: 'web--east', labels: { 'scheduling.atrium.io/split-from': 'web' } } };
    assert.equal(releasedOnDelete({ group: 'apps', resource: 'deployments' }, SYNCER, child), false, 'a split child stays until its copy is gone');
    assert.equal(releasedOnDelete({ group: 'apps', resource: 'deployments' }, SYNCER, { metadata: { name: 'web' } }), true);
  });
});
