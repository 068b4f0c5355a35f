/**
 * The RBAC index over real SQLite storage: identical roles in many clusters share one copy of their rules, the
 * compact records keep what authorization reads, and updates and deletes stay exact (no stale or leaked rules).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../../../src/storage/sqlite/sqlite-store.js';
import { RbacIndex } from '../../../src/auth/authz/rbac-index.js';

const role = (name: string, verbs: string[]) =>
  JSON.stringify({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name, uid: `${name}-${Math.random()}`, creationTimestamp: '2026-01-01T00:00:00Z', labels: { a: 'b' } },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs }],
  });
const key = (cluster: string, name: string) => `/registry/rbac.authorization.k8s.io/clusterroles/${cluster}/${name}`;

test('identical roles across clusters share their rules; updates and deletes are exact', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'atrium-rbac-index-'));
  const storage = SqliteStore.open(join(dir, 'db'));
  const index = new RbacIndex(storage);
  try {
    await storage.create(key('c1', 'reader'), role('reader', ['get']));
    await index.start();
    await storage.create(key('c2', 'reader'), role('reader', ['get']));
    await storage.create(key('c3', 'reader'), role('reader', ['get', 'list']));
    const r1 = index.policy('c1').clusterroles.get('reader')!;
    const r2 = index.policy('c2').clusterroles.get('reader')!;
    const r3 = index.policy('c3').clusterroles.get('reader')!;
    assert.equal(r1.rules, r2.rules, 'identical rules are one shared value');
    assert.notEqual(r1.rules, r3.rules);
    assert.deepEqual(r1, { metadata: { name: 'reader', labels: { a: 'b' } }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] });
    assert.ok(Object.isFrozen(r1.rules));
    assert.equal(r1.metadata!.labels, r2.metadata!.labels, 'labels are shared too');

    const cur = await storage.get(key('c2', 'reader'));
    await storage.update(key('c2', 'reader'), role('reader', ['get', 'list']), cur!.modRevision);
    assert.equal(index.policy('c2').clusterroles.get('reader')!.rules, r3.rules, 'an update moves to the new shared value');
    assert.equal(index.policy('c1').clusterroles.get('reader')!.rules, r1.rules, 'other clusters keep theirs');

    await storage.delete(key('c1', 'reader'));
    assert.equal(index.policy('c1').clusterroles.size, 0);
    // Re-creating after every holder is gone yields a fresh, equal value.
    await storage.create(key('c1', 'reader'), role('reader', ['get']));
    assert.deepEqual(index.policy('c1').clusterroles.get('reader')!.rules, [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]);
  } finally {
    index.stop();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
