/** Pure parts of CRD serving: JSONPath for printer columns, printer rows, naming decisions, CRD validation paths. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileJSONPath, getSimplePath, setSimplePath } from '../../../src/apiextensions/serving/jsonpath.js';
import { printerForColumns } from '../../../src/apiextensions/serving/printer-columns.js';
import { calculateNames } from '../../../src/apiextensions/controller/naming.js';
import { validateCRD } from '../../../src/apiextensions/crd/validation.js';
import { defaultCRD } from '../../../src/apiextensions/crd/defaults.js';
import { crDefinitionName } from '../../../src/apiextensions/serving/openapi.js';
import { deprecationWarningOf } from '../../../src/apiextensions/serving/custom-resource.js';
import type { CustomResourceDefinition } from '../../../src/apiextensions/crd/types.js';

const doc = {
  metadata: { name: 'x', creationTimestamp: '2020-01-01T00:00:00Z' },
  spec: { replicas: 3, list: [{ n: 'a' }, { n: 'b' }], 'dotted.key': 'v' },
  status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'Synced', status: 'False' }] },
};

describe('JSONPath', () => {
  const cases: [string, unknown[]][] = [
    ['.spec.replicas', [3]],
    ['{.spec.replicas}', [3]],
    ['$.spec.list[1].n', ['b']],
    ['.spec.list[-1].n', ['b']],
    ['.spec.list[*].n', ['a', 'b']],
    [".spec['dotted.key']", ['v']],
    ['.status.conditions[?(@.type=="Ready")].status', ['True']],
    ['.status.conditions[?(@.status!="True")].type', ['Synced']],
    ['.status.conditions[?(@.reason)].type', []],
    ['.spec.missing', []],
  ];
  for (const [path, want] of cases) it(path, () => assert.deepEqual(compileJSONPath(path).find(doc), want));
  it('rejects unsupported syntax', () => assert.throws(() => compileJSONPath('.a[1:2:x]')));
  it('simple paths read and write', () => {
    const o: Record<string, unknown> = {};
    setSimplePath(o, '.spec.replicas', 4);
    assert.deepEqual(o, { spec: { replicas: 4 } });
    assert.equal(getSimplePath(o, '.spec.replicas'), 4);
    assert.equal(getSimplePath(o, '.spec.nope.deeper'), undefined);
  });
});

describe('printer columns', () => {
  it('typed cells, null for missing or mistyped values, Name first', () => {
    const p = printerForColumns([
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
      { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      { name: 'Missing', type: 'string', jsonPath: '.spec.nothing' },
      { name: 'NotInt', type: 'integer', jsonPath: '.metadata.name' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', priority: 1 },
    ]);
    assert.deepEqual(p.columns.map((c) => [c.name, c.type, c.format, c.priority]), [
      ['Name', 'string', 'name', 0],
      ['Replicas', 'integer', '', 0],
      ['Ready', 'string', '', 0],
      ['Missing', 'string', '', 0],
      ['NotInt', 'integer', '', 0],
      ['Age', 'date', '', 1],
    ]);
    assert.deepEqual(p.row(doc, Date.parse('2020-01-03T00:00:00Z')), ['x', 3, 'True', null, null, '2d']);
  });
  it('defaults to a single Age column', () => {
    assert.deepEqual(printerForColumns(undefined).columns.map((c) => c.name), ['Name', 'Age']);
  });
});

function crd(name: string, group: string, names: Record<string, unknown>, accepted?: Record<string, unknown>): CustomResourceDefinition {
  return { metadata: { name }, spec: { group, scope: 'Namespaced', names, versions: [] }, status: accepted ? { acceptedNames: accepted } : {} } as CustomResourceDefinition;
}

describe('naming', () => {
  const existing = crd('foos.a.io', 'a.io', {}, { plural: 'foos', singular: 'foo', shortNames: ['f'], kind: 'Foo', listKind: 'FooList' });
  const cases: [string, Record<string, unknown>, string, string, string][] = [
    ['no conflict', { plural: 'bars', singular: 'bar', kind: 'Bar', listKind: 'BarList' }, 'True', 'NoConflicts', 'no conflicts found'],
    ['plural taken', { plural: 'foos', singular: 'bar', kind: 'Bar', listKind: 'BarList' }, 'False', 'NameConflict', '"foos" is already in use'],
    ['short name taken', { plural: 'bars', singular: 'bar', shortNames: ['f'], kind: 'Bar', listKind: 'BarList' }, 'False', 'NameConflict', '"f" is already in use'],
    ['kind taken', { plural: 'bars', singular: 'bar', kind: 'Foo', listKind: 'BarList' }, 'False', 'KindConflict', '"Foo" is already in use'],
  ];
  for (const [what, names, status, reason, message] of cases) {
    it(what, () => {
      const r = calculateNames(crd('bars.a.io', 'a.io', names), [existing]);
      assert.deepEqual([r.namesAccepted.status, r.namesAccepted.reason, r.namesAccepted.message], [status, reason, message]);
    });
  }
  it('other groups do not compete', () => {
    const r = calculateNames(crd('foos.b.io', 'b.io', { plural: 'foos', singular: 'foo', kind: 'Foo', listKind: 'FooList' }), [existing]);
    assert.equal(r.namesAccepted.status, 'True');
    assert.equal(r.acceptedNames.plural, 'foos');
  });
});

describe('CRD validation', () => {
  const good = (): CustomResourceDefinition => {
    const c = {
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', kind: 'Widget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
      },
      status: { storedVersions: ['v1'] },
    } as unknown as CustomResourceDefinition;
    defaultCRD(c);
    return c;
  };
  it('accepts a minimal CRD and defaults singular/listKind/conversion', () => {
    const c = good();
    assert.deepEqual(validateCRD(c), []);
    assert.deepEqual([c.spec.names.singular, c.spec.names.listKind, c.spec.conversion?.strategy], ['widget', 'WidgetList', 'None']);
  });
  const bad: [string, (c: any) => void, string][] = [
    ['kind equals listKind', (c) => (c.spec.names.listKind = 'Widget'), 'spec.names.listKind'],
    ['bad short name', (c) => (c.spec.names.shortNames = ['Bad_Name']), 'spec.names.shortNames[0]'],
    ['no schema', (c) => delete c.spec.versions[0].schema, 'spec.versions[0].schema.openAPIV3Schema'],
    ['duplicate version', (c) => c.spec.versions.push({ ...c.spec.versions[0], storage: false }), 'spec.versions'],
    ['deprecationWarning without deprecated', (c) => (c.spec.versions[0].deprecationWarning = 'x'), 'spec.versions[0].deprecationWarning'],
    ['storedVersions without the storage version', (c) => (c.status.storedVersions = ['v0']), 'status.storedVersions'],
    ['status subresource with a non-object root', (c) => { c.spec.versions[0].subresources = { status: {} }; c.spec.versions[0].schema.openAPIV3Schema.type = 'string'; }, 'spec.validation.openAPIV3Schema.type'],
  ];
  for (const [what, mutate, field] of bad) {
    it(`rejects ${what} at ${field}`, () => {
      const c = good();
      mutate(c);
      const errs = validateCRD(c);
      assert.ok(errs.some((e) => e.field === field), JSON.stringify(errs));
    });
  }
});

describe('naming helpers', () => {
  it('definition names reverse the group', () => assert.equal(crDefinitionName('stable.example.com', 'v1', 'CronTab'), 'com.example.stable.v1.CronTab'));
  it('deprecation warning: own text or the default', () => {
    const c = { spec: { group: 'g.io', names: { kind: 'K' } } } as CustomResourceDefinition;
    assert.equal(deprecationWarningOf(c, { name: 'v1', served: true, storage: true, deprecated: true }), 'g.io/v1 K is deprecated');
    assert.equal(deprecationWarningOf(c, { name: 'v1', served: true, storage: true, deprecated: true, deprecationWarning: 'use v2' }), 'use v2');
    assert.equal(deprecationWarningOf(c, { name: 'v1', served: true, storage: true }), undefined);
  });
});
