import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { metadataOnlyPatch, metadataOnlyUpdate, withMetadataOf } from '../../../src/multicluster/streams/mirror-pod-metadata.js';

const MERGE = 'application/merge-patch+json';
const SMP = 'application/strategic-merge-patch+json';
const JSONP = 'application/json-patch+json';

describe('metadataOnlyPatch: which patches of a mirror pod go to its original', () => {
  it('merge and strategic merge patches of labels and annotations, with their preconditions', () => {
    assert.deepEqual(metadataOnlyPatch(MERGE, { metadata: { labels: { debug: 'true', app: null } } }), { labels: ['debug', 'app'], annotations: [] });
    assert.deepEqual(metadataOnlyPatch(SMP, { metadata: { annotations: { note: 'x' }, resourceVersion: '42', uid: 'u' } }), { labels: [], annotations: ['note'], resourceVersion: '42', uid: 'u' });
    assert.deepEqual(metadataOnlyPatch(MERGE, { metadata: { labels: null } }), { labels: null, annotations: [] });
  });

  it('JSON patches whose operations name labels or annotations', () => {
    assert.deepEqual(metadataOnlyPatch(JSONP, [{ op: 'test', path: '/metadata/resourceVersion', value: '1' }, { op: 'add', path: '/metadata/labels/a~1b', value: 'c' }, { op: 'remove', path: '/metadata/annotations/n' }]), { labels: ['a/b'], annotations: ['n'] });
    assert.deepEqual(metadataOnlyPatch(JSONP, [{ op: 'replace', path: '/metadata/labels', value: { x: 'y' } }]), { labels: null, annotations: [] });
  });

  it('anything else stays with the generic store: other fields, bookkeeping keys, nothing at all, other shapes', () => {
    assert.equal(metadataOnlyPatch(MERGE, { metadata: { labels: { a: 'b' }, ownerReferences: [] } }), undefined);
    assert.equal(metadataOnlyPatch(MERGE, { spec: { activeDeadlineSeconds: 5 } }), undefined);
    assert.equal(metadataOnlyPatch(MERGE, { metadata: { labels: { 'scheduling.atrium.io/cluster': 'x' } } }), undefined);
    assert.equal(metadataOnlyPatch(MERGE, { metadata: { annotations: { 'internal.workload.kcp.io/x': 'y' } } }), undefined);
    assert.equal(metadataOnlyPatch(MERGE, { metadata: { resourceVersion: '3' } }), undefined);
    assert.equal(metadataOnlyPatch(MERGE, { metadata: { labels: 'x' } }), undefined);
    assert.equal(metadataOnlyPatch(MERGE, [1]), undefined);
    assert.equal(metadataOnlyPatch(JSONP, [{ op: 'add', path: '/spec/x', value: 1 }]), undefined);
    assert.equal(metadataOnlyPatch(JSONP, [{ op: 'move', from: '/metadata/labels/a', path: '/metadata/labels/b' }]), undefined);
    assert.equal(metadataOnlyPatch(JSONP, [{ op: 'replace', path: '/metadata/labels', value: { 'scheduling.atrium.io/mirror': 'false' } }]), undefined);
    assert.equal(metadataOnlyPatch(JSONP, []), undefined);
  });
});

describe('withMetadataOf: the mirror after its original took the patch', () => {
  const mirror = { metadata: { name: 'p', labels: { app: 'web', 'scheduling.atrium.io/mirror': 'true', 'pod-template-hash': 'up' }, annotations: { 'scheduling.atrium.io/downstream': 'ns/p', old: '1' } } };
  const original = { metadata: { name: 'p', labels: { app: 'quarantine', 'pod-template-hash': 'down', debug: 'true' }, annotations: { note: 'n' } } };

  it('takes the named keys from the original (removed where it has none) and keeps the rest', () => {
    const out = withMetadataOf(mirror, original, { labels: ['app', 'debug'], annotations: ['old'] });
    assert.deepEqual(out.metadata!.labels, { app: 'quarantine', 'scheduling.atrium.io/mirror': 'true', 'pod-template-hash': 'up', debug: 'true' });
    assert.deepEqual(out.metadata!.annotations, { 'scheduling.atrium.io/downstream': 'ns/p' });
  });

  it('a whole map replaced: every key but the bookkeeping ones as the original has it', () => {
    const out = withMetadataOf(mirror, original, { labels: [], annotations: null });
    assert.deepEqual(out.metadata!.annotations, { 'scheduling.atrium.io/downstream': 'ns/p', note: 'n' });
    assert.deepEqual(out.metadata!.labels, mirror.metadata.labels);
  });

  it('drops the syncer\'s content hash, so its next look at the original rewrites the mirror whole', () => {
    const hashed = { metadata: { ...mirror.metadata, annotations: { ...mirror.metadata.annotations, 'scheduling.atrium.io/mirror-hash': 'h' } } };
    assert.equal(withMetadataOf(hashed, original, { labels: ['app'], annotations: [] }).metadata!.annotations!['scheduling.atrium.io/mirror-hash'], undefined);
  });

  it('orphaned: the owner references go while the original has no controller, and stay when it was adopted again', () => {
    const owned = { metadata: { ...mirror.metadata, ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'j', uid: 'w', controller: true }] } };
    assert.equal(withMetadataOf(owned, original, { labels: [], annotations: [], orphan: true }).metadata!.ownerReferences, undefined);
    const adopted = { metadata: { ...original.metadata, ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'j', uid: 'c', controller: true }] } };
    assert.deepEqual(withMetadataOf(owned, adopted, { labels: [], annotations: [], orphan: true }).metadata!.ownerReferences, owned.metadata.ownerReferences);
  });
});

describe('metadataOnlyUpdate: a PUT of a mirror pod as the merge patch it amounts to', () => {
  const mirror = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', uid: 'u1', resourceVersion: '7', labels: { name: 'rc', 'scheduling.atrium.io/mirror': 'true' }, annotations: { 'scheduling.atrium.io/downstream': 'd/p' }, ownerReferences: [{ uid: 'o' }] }, spec: { containers: [{ name: 'c', image: 'x' }] }, status: { phase: 'Running' } };
  const relabelled = (labels: Record<string, string>, more: Record<string, unknown> = {}) => ({ ...mirror, ...more, metadata: { ...mirror.metadata, labels, ...((more.metadata as object | undefined) ?? {}) } });

  it('a relabelled pod as read: the changed keys, set or removed, with the preconditions', () => {
    const got = metadataOnlyUpdate(mirror, relabelled({ name: 'other', extra: 'y', 'scheduling.atrium.io/mirror': 'true' }));
    assert.deepEqual(got, { patch: { labels: ['name', 'extra'], annotations: [], resourceVersion: '7', uid: 'u1' }, body: { metadata: { labels: { name: 'other', extra: 'y' } } } });
    const removed = metadataOnlyUpdate(mirror, relabelled({ 'scheduling.atrium.io/mirror': 'true' }));
    assert.deepEqual(removed?.body, { metadata: { labels: { name: null } } });
    // Labels set whole, as upstream's e2e does (pod.Labels = {...}): the bookkeeping left out is kept.
    assert.deepEqual(metadataOnlyUpdate(mirror, relabelled({ name: 'not-matching-name' }))?.body, { metadata: { labels: { name: 'not-matching-name' } } });
  });

  it('owner references left out (pod.OwnerReferences = nil): the original is orphaned, with or without a relabel', () => {
    const { ownerReferences: _o, ...unowned } = mirror.metadata;
    assert.deepEqual(metadataOnlyUpdate(mirror, { ...mirror, metadata: unowned }), { patch: { labels: [], annotations: [], orphan: true, resourceVersion: '7', uid: 'u1' }, body: { metadata: { ownerReferences: null } } });
    assert.deepEqual(metadataOnlyUpdate(mirror, { ...mirror, metadata: { ...mirror.metadata, labels: { name: 'x' }, ownerReferences: [] } })?.body, { metadata: { ownerReferences: null, labels: { name: 'x' } } });
  });

  it('not taken: a spec change, another owner, a bookkeeping key, nothing changed', () => {
    assert.equal(metadataOnlyUpdate(mirror, relabelled({ name: 'x', 'scheduling.atrium.io/mirror': 'true' }, { spec: { containers: [{ name: 'c', image: 'y' }] } })), undefined);
    assert.equal(metadataOnlyUpdate(mirror, { ...mirror, metadata: { ...mirror.metadata, labels: { name: 'x', 'scheduling.atrium.io/mirror': 'true' }, ownerReferences: [{ uid: 'other' }] } }), undefined);
    assert.equal(metadataOnlyUpdate(mirror, relabelled({ name: 'x', 'scheduling.atrium.io/mirror': 'false' })), undefined);
    assert.equal(metadataOnlyUpdate(mirror, mirror), undefined);
    // The syncer's rewrite of a mirror: new labels and a new content hash. It stays the generic store's.
    const synced = { ...mirror, metadata: { ...mirror.metadata, labels: { ...mirror.metadata.labels, extra: 'y' }, annotations: { ...mirror.metadata.annotations, 'scheduling.atrium.io/mirror-hash': 'new' } } };
    assert.equal(metadataOnlyUpdate({ ...mirror, metadata: { ...mirror.metadata, annotations: { ...mirror.metadata.annotations, 'scheduling.atrium.io/mirror-hash': 'old' } } }, synced), undefined);
  });
});
