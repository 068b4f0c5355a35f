import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { builtinCatalog } from '../../../../src/apimachinery/schema/builtin/index.js';
import type { KubeObject } from '../../../../src/apimachinery/object.js';
import { StatusError } from '../../../../src/apimachinery/status.js';
import { BuiltinSsaTypes } from '../../../../src/patch/apply/builtin-schema.js';
import { FieldManager } from '../../../../src/patch/apply/field-manager.js';
import { decodeManagedFields } from '../../../../src/patch/apply/managed-fields.js';

const root = new BuiltinSsaTypes(builtinCatalog).schemaFor('io.k8s.api.core.v1.ConfigMap')!.root;
let tick = 0;
const fm = new FieldManager({ root, apiVersion: 'v1', subresource: '', now: () => `2025-01-01T00:00:${String(tick++ % 60).padStart(2, '0')}Z` });

function cm(data: Record<string, string>, extra: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns', ...extra }, data };
}

/** manager → FieldsV1 for compact assertions. */
function owners(obj: KubeObject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const e of obj.metadata?.managedFields ?? []) out[`${e.manager}/${e.operation}`] = e.fieldsV1;
  return out;
}

function conflictOf(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  assert.fail('expected a conflict');
}

describe('FieldManager.update', () => {
  it('create owns everything it sets, with "." for new maps', () => {
    const created = fm.update(null, cm({ a: '1' }, { labels: { x: 'y' } }), 'kubectl-create');
    assert.deepEqual(owners(created), { 'kubectl-create/Update': { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } } } });
    const entry = created.metadata!.managedFields![0]!;
    assert.deepEqual(Object.keys(entry), ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1']);
  });

  it('an update takes changed fields from other managers and keeps its own entry per manager', () => {
    const created = fm.update(null, cm({ a: '1', b: '2' }), 'creator');
    const updated = fm.update(created, { ...created, data: { a: '9', b: '2', c: '3' } }, 'editor');
    assert.deepEqual(owners(updated), {
      'creator/Update': { 'f:data': { '.': {}, 'f:b': {} } },
      'editor/Update': { 'f:data': { 'f:a': {}, 'f:c': {} } },
    });
  });

  it('a manager left owning nothing loses its entry, and an object whose managers all own nothing its managedFields', () => {
    const created = fm.update(null, cm({ a: '1' }, { labels: { x: 'y' } }), 'creator');
    const edited = fm.update(created, { ...created, data: { b: '2' } }, 'editor');
    // The map itself stays (now b's), so creator keeps owning it; as stored without data, nobody does.
    assert.deepEqual(owners(edited), { 'creator/Update': { 'f:data': {}, 'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } } }, 'editor/Update': { 'f:data': { 'f:b': {} } } });
    const { data: _data, ...withoutData } = edited;
    const emptied = fm.update(edited, withoutData, 'third');
    assert.deepEqual(owners(emptied), { 'creator/Update': { 'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } } } });
    const { labels: _labels, ...metaWithoutLabels } = emptied.metadata!;
    const unlabelled = fm.update(emptied, { ...emptied, metadata: metaWithoutLabels }, 'third');
    assert.equal(unlabelled.metadata!.managedFields, undefined);
    for (const e of decodeManagedFields(edited.metadata!.managedFields)!) assert.equal(e.fields.isEmpty(), false);
  });

  it('a no-op update changes nothing, including times', () => {
    const created = fm.update(null, cm({ a: '1' }), 'creator');
    assert.deepEqual(fm.update(created, created, 'other').metadata!.managedFields, created.metadata!.managedFields);
  });

  it('managedFields: [{}] resets, and later updates are not tracked until an apply', () => {
    const created = fm.update(null, cm({ a: '1' }), 'creator');
    const reset = fm.update(created, { ...created, metadata: { ...created.metadata, managedFields: [{}] } }, 'resetter');
    assert.equal(reset.metadata!.managedFields, undefined);
    assert.equal(fm.update(reset, { ...reset, data: { a: '2' } }, 'later').metadata!.managedFields, undefined);
  });

  it('managedFields sent in an update replace the live ones (kubectl csaupgrade)', () => {
    const created = fm.update(null, cm({ a: '1' }), 'creator');
    const sent = [{ manager: 'kubectl', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } }];
    const out = fm.update(created, { ...created, metadata: { ...created.metadata, managedFields: sent } }, 'kubectl');
    assert.deepEqual(owners(out), { 'kubectl/Apply': { 'f:data': { 'f:a': {} } } });
  });
});

describe('FieldManager.apply', () => {
  it('creates and owns only the leaves it applied', () => {
    const out = fm.apply(null, cm({ a: '1' }), 'mgr', false);
    assert.deepEqual(out.data, { a: '1' });
    assert.deepEqual(owners(out), { 'mgr/Apply': { 'f:data': { 'f:a': {} } } });
  });

  const conflictCases: { name: string; apply: Record<string, string>; want?: string; causes?: string[] }[] = [
    { name: 'same value shares ownership', apply: { a: '1' } },
    { name: 'different value conflicts', apply: { a: '2' }, want: 'Apply failed with 1 conflict: conflict with "creator" using v1: .data.a', causes: ['.data.a'] },
    {
      name: 'several conflicts are listed per manager',
      apply: { a: '2', b: '3' },
      want: 'Apply failed with 2 conflicts: conflicts with "creator" using v1:\n- .data.a\n- .data.b',
      causes: ['.data.a', '.data.b'],
    },
    { name: 'fields nobody owns are free', apply: { z: '1' } },
  ];
  for (const c of conflictCases) {
    it(c.name, () => {
      const live = fm.update(null, cm({ a: '1', b: '2' }), 'creator');
      if (!c.want) {
        fm.apply(live, cm(c.apply), 'applier', false);
        return;
      }
      const err = conflictOf(() => fm.apply(live, cm(c.apply), 'applier', false));
      assert.equal(err.code, 409);
      assert.equal(err.reason, 'Conflict');
      assert.equal(err.status.message, c.want);
      assert.deepEqual(err.status.details, {
        causes: c.causes!.map((f) => ({ reason: 'FieldManagerConflict', message: 'conflict with "creator" using v1', field: f })),
      });
    });
  }

  it('conflicts with another applier name no version', () => {
    const live = fm.apply(null, cm({ a: '1' }), 'first', false);
    const err = conflictOf(() => fm.apply(live, cm({ a: '2' }), 'second', false));
    assert.equal(err.status.message, 'Apply failed with 1 conflict: conflict with "first": .data.a');
  });

  it('force takes ownership away from the other manager', () => {
    const live = fm.update(null, cm({ a: '1', b: '2' }), 'creator');
    const out = fm.apply(live, cm({ a: '2' }), 'applier', true);
    assert.deepEqual(out.data, { a: '2', b: '2' });
    assert.deepEqual(owners(out), { 'applier/Apply': { 'f:data': { 'f:a': {} } }, 'creator/Update': { 'f:data': { '.': {}, 'f:b': {} } } });
  });

  it('fields applied before and now omitted are removed unless someone else owns them', () => {
    let live = fm.apply(null, cm({ a: '1', b: '2' }, { labels: { l: 'v' } }), 'mgr', false);
    live = fm.apply(live, cm({ b: '2' }, { labels: { l: 'v' } }), 'other', false); // shares b and the label
    const out = fm.apply(live, cm({}), 'mgr', false);
    assert.deepEqual(out.data, { b: '2' });
    assert.deepEqual(out.metadata!.labels, { l: 'v' });
    const gone = fm.apply(fm.apply(null, cm({ a: '1' }, { labels: { l: 'v' } }), 'solo', false), cm({}), 'solo', false);
    assert.equal(gone.data, undefined, 'the emptied data map goes too');
    assert.equal(gone.metadata!.labels, undefined);
  });

  it('an unchanged apply keeps the entry time', () => {
    const live = fm.apply(null, cm({ a: '1' }), 'mgr', false);
    const again = fm.apply(live, cm({ a: '1' }), 'mgr', false);
    assert.deepEqual(again.metadata!.managedFields, live.metadata!.managedFields);
  });

  describe('an apply that changes nothing hands back the live object itself', () => {
    const stored = (extra: Record<string, unknown> = {}) => ({ ...fm.apply(null, cm({ a: '1' }, { labels: { l: 'v' } }), 'mgr', false), ...extra });
    const withMeta = (obj: KubeObject, meta: Record<string, unknown>) => ({ ...obj, metadata: { ...obj.metadata, ...meta } });
    const cases: { name: string; live: () => KubeObject; config: KubeObject; manager?: string; same: boolean }[] = [
      { name: 'same configuration', live: () => stored(), config: cm({ a: '1' }, { labels: { l: 'v' } }), same: true },
      { name: 'same configuration of a stored revision', live: () => withMeta(stored(), { uid: 'u1', resourceVersion: '7' }), config: cm({ a: '1' }, { labels: { l: 'v' } }), same: true },
      { name: 'a changed value', live: () => stored(), config: cm({ a: '2' }, { labels: { l: 'v' } }), same: false },
      { name: 'a field dropped (pruned)', live: () => stored(), config: cm({ a: '1' }), same: false },
      { name: 'a field added', live: () => stored(), config: cm({ a: '1', b: '2' }, { labels: { l: 'v' } }), same: false },
      { name: 'another manager', live: () => stored(), config: cm({ a: '1' }, { labels: { l: 'v' } }), manager: 'other', same: false },
      { name: 'kubectl (its last-applied annotation is synced)', live: () => fm.apply(null, cm({ a: '1' }), 'kubectl', false), config: cm({ a: '1' }), manager: 'kubectl', same: false },
      {
        name: 'managedFields not in canonical order',
        live: () => {
          const two = fm.update(stored(), { ...stored(), data: { a: '1', z: '9' } }, 'editor');
          return withMeta(two, { managedFields: [...two.metadata!.managedFields!].reverse() });
        },
        config: cm({ a: '1' }, { labels: { l: 'v' } }),
        same: false,
      },
    ];
    for (const c of cases) {
      it(c.name, () => {
        const live = c.live();
        const before = JSON.stringify(live);
        const out = fm.apply(live, c.config, c.manager ?? 'mgr', false);
        assert.equal(out === live, c.same);
        assert.equal(JSON.stringify(live), before, 'the live object is not mutated');
      });
    }

    it('a cached revision is not trusted for an object that only reuses its uid and resourceVersion', () => {
      const first = withMeta(stored(), { uid: 'u2', resourceVersion: '3' });
      assert.equal(fm.apply(first, cm({ a: '1' }, { labels: { l: 'v' } }), 'mgr', false), first);
      const other = withMeta(fm.update(stored(), { ...stored(), data: { a: '1', z: '9' } }, 'editor'), { uid: 'u2', resourceVersion: '3' });
      const out = fm.apply(other, cm({ a: '1' }, { labels: { l: 'v' } }), 'mgr', false);
      assert.deepEqual(Object.keys(owners(out)).sort(), ['editor/Update', 'mgr/Apply']);
      assert.equal((out.data as Record<string, string>).z, '9');
    });
  });

  it('an object without managedFields is owned by before-first-apply', () => {
    const err = conflictOf(() => fm.apply(cm({ a: '1' }), cm({ a: '2' }), 'mgr', false));
    assert.equal(err.status.message, 'Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .data.a');
  });

  it('kubectl may take over fields its last-applied annotation lists (client-side to server-side apply)', () => {
    const lastApplied = JSON.stringify(cm({ a: '1', legacy: 'x' }));
    const live = fm.update(null, cm({ a: '1', legacy: 'x' }, { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied } }), 'kubectl-client-side-apply');
    const out = fm.apply(live, cm({ a: '2', legacy: 'x' }), 'kubectl', false);
    assert.equal((out.data as Record<string, string>).a, '2');
    const annotation = JSON.parse(out.metadata!.annotations!['kubectl.kubernetes.io/last-applied-configuration']!);
    assert.deepEqual(annotation.data, { a: '2', legacy: 'x' }, 'the annotation follows the new configuration');
    assert.throws(() => fm.apply(live, cm({ a: '2' }), 'other', false), /conflict/);
  });

  it('decodes what it encodes', () => {
    const out = fm.apply(null, cm({ a: '1' }), 'mgr', false);
    const entries = decodeManagedFields(out.metadata!.managedFields)!;
    assert.equal(entries.length, 1);
    assert.deepEqual(entries[0]!.fields.pathStrings(), ['.data.a']);
  });
});
