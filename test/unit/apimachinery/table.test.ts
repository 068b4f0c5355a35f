import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildTable, parseIncludeObject } from '../../../src/apimachinery/table/table.js';
import { defaultPrinter, printerFor } from '../../../src/apimachinery/table/builtin-printers.js';
import type { JsonObject } from '../../../src/apimachinery/object.js';

const now = Date.parse('2024-01-10T00:00:00Z');
const created = '2024-01-05T00:00:00Z';
const meta = (name: string, extra: JsonObject = {}): JsonObject => ({ name, creationTimestamp: created, uid: `uid-${name}`, ...extra });

describe('printer columns', () => {
  const cases: Array<[string, string, Array<[string, string, string, number]>]> = [
    ['', 'namespaces', [['Name', 'string', 'name', 0], ['Status', 'string', '', 0], ['Age', 'string', '', 0]]],
    ['', 'configmaps', [['Name', 'string', 'name', 0], ['Data', 'string', '', 0], ['Age', 'string', '', 0]]],
    ['', 'secrets', [['Name', 'string', 'name', 0], ['Type', 'string', '', 0], ['Data', 'string', '', 0], ['Age', 'string', '', 0]]],
    ['', 'serviceaccounts', [['Name', 'string', 'name', 0], ['Secrets', 'string', '', 0], ['Age', 'string', '', 0]]],
    ['coordination.k8s.io', 'leases', [['Name', 'string', 'name', 0], ['Holder', 'string', '', 0], ['Age', 'string', '', 0]]],
    [
      'rbac.authorization.k8s.io',
      'rolebindings',
      [['Name', 'string', 'name', 0], ['Role', 'string', '', 0], ['Age', 'string', '', 0], ['Users', 'string', '', 1], ['Groups', 'string', '', 1], ['ServiceAccounts', 'string', '', 1]],
    ],
    [
      'rbac.authorization.k8s.io',
      'clusterrolebindings',
      [['Name', 'string', 'name', 0], ['Role', 'string', '', 0], ['Age', 'string', '', 0], ['Users', 'string', '', 1], ['Groups', 'string', '', 1], ['ServiceAccounts', 'string', '', 1]],
    ],
    ...(['', 'events.k8s.io'] as const).map(
      (g) =>
        [
          g,
          'events',
          [
            ['Last Seen', 'string', '', 0],
            ['Type', 'string', '', 0],
            ['Reason', 'string', '', 0],
            ['Object', 'string', '', 0],
            ['Subobject', 'string', '', 1],
            ['Source', 'string', '', 1],
            ['Message', 'string', '', 0],
            ['First Seen', 'string', '', 1],
            ['Count', 'string', '', 1],
            ['Name', 'string', 'name', 1],
          ],
        ] as [string, string, Array<[string, string, string, number]>],
    ),
    ['rbac.authorization.k8s.io', 'roles', [['Name', 'string', 'name', 0], ['Created At', 'date', '', 0]]],
    ['rbac.authorization.k8s.io', 'clusterroles', [['Name', 'string', 'name', 0], ['Created At', 'date', '', 0]]],
    ['apiextensions.k8s.io', 'customresourcedefinitions', [['Name', 'string', 'name', 0], ['Created At', 'date', '', 0]]],
    ['example.com', 'widgets', [['Name', 'string', 'name', 0], ['Created At', 'date', '', 0]]],
  ];
  for (const [group, resource, expected] of cases) {
    it(`${group || 'core'}/${resource}`, () => {
      const p = printerFor(group, resource);
      assert.deepEqual(
        p.columns.map((c) => [c.name, c.type, c.format, c.priority]),
        expected,
      );
      for (const c of p.columns) assert.ok(c.description.length > 0, `${c.name} has a description`);
    });
  }
  it('descriptions say what each column shows', () => {
    const cols = printerFor('', 'configmaps').columns;
    assert.match(cols[0]!.description, /^The name of the object/);
    assert.match(cols[2]!.description, /^When the server created the object/);
    assert.equal(printerFor('', 'namespaces').columns[1]!.description, 'The status of the namespace');
    assert.equal(printerFor('rbac.authorization.k8s.io', 'rolebindings').columns[4]!.description, 'Groups in the roleBinding');
    assert.equal(printerFor('rbac.authorization.k8s.io', 'clusterrolebindings').columns[3]!.description, 'Users in the clusterRoleBinding');
  });
});

describe('printer rows', () => {
  const cases: Array<[string, string, JsonObject, unknown[]]> = [
    ['', 'namespaces', { metadata: meta('ns1'), status: { phase: 'Terminating' } }, ['ns1', 'Terminating', '5d']],
    ['', 'namespaces', { metadata: { name: 'fresh' } }, ['fresh', '', '<unknown>']],
    ['', 'configmaps', { metadata: meta('cm'), data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } }, ['cm', 3, '5d']],
    ['', 'configmaps', { metadata: meta('empty') }, ['empty', 0, '5d']],
    ['', 'secrets', { metadata: meta('s'), type: 'Opaque', data: { a: 'YQ==' } }, ['s', 'Opaque', 1, '5d']],
    ['', 'serviceaccounts', { metadata: meta('sa'), secrets: [{ name: 'tok' }] }, ['sa', 1, '5d']],
    ['', 'serviceaccounts', { metadata: meta('default') }, ['default', 0, '5d']],
    ['coordination.k8s.io', 'leases', { metadata: meta('l'), spec: { holderIdentity: 'me_1' } }, ['l', 'me_1', '5d']],
    ['coordination.k8s.io', 'leases', { metadata: meta('l'), spec: {} }, ['l', '', '5d']],
    [
      'rbac.authorization.k8s.io',
      'rolebindings',
      {
        metadata: meta('rb'),
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' },
        subjects: [
          { kind: 'User', name: 'alice' },
          { kind: 'Group', name: 'devs' },
          { kind: 'ServiceAccount', namespace: 'ns', name: 'sa' },
          { kind: 'User', name: 'bob' },
          { kind: 'Robot', namespace: 'x', name: 'r2' },
        ],
      },
      ['rb', 'ClusterRole/admin', '5d', 'alice, bob', 'devs', 'ns/sa'],
    ],
    ['rbac.authorization.k8s.io', 'clusterrolebindings', { metadata: meta('crb'), roleRef: { kind: 'ClusterRole', name: 'view' } }, ['crb', 'ClusterRole/view', '5d', '', '', '']],
    [
      '',
      'events',
      {
        metadata: meta('e1'),
        involvedObject: { kind: 'Pod', name: 'p1', fieldPath: 'spec.containers{c}' },
        source: { component: 'kubelet', host: 'node1' },
        reason: 'Started',
        type: 'Normal',
        message: ' started container \n',
        firstTimestamp: '2024-01-09T23:00:00Z',
        lastTimestamp: '2024-01-09T23:59:00Z',
        count: 3,
      },
      ['60s', 'Normal', 'Started', 'pod/p1', 'spec.containers{c}', 'kubelet, node1', 'started container', '60m', 3, 'e1'],
    ],
    [
      '',
      'events',
      {
        metadata: meta('e2'),
        involvedObject: { kind: 'Node' },
        reportingComponent: 'ctrl',
        reportingInstance: 'ctrl-0',
        eventTime: '2024-01-09T23:57:59.876543Z',
        type: 'Warning',
        reason: 'X',
        message: 'm',
      },
      ['2m', 'Warning', 'X', 'node', '', 'ctrl, ctrl-0', 'm', '2m', 1, 'e2'],
    ],
    [
      'events.k8s.io',
      'events',
      {
        metadata: meta('ev'),
        regarding: { kind: 'Deployment', name: 'web' },
        note: 'Scaled up',
        reason: 'ScalingReplicaSet',
        type: 'Normal',
        reportingController: 'deployment-controller',
        eventTime: '2024-01-09T23:58:00.000000Z',
        series: { count: 5, lastObservedTime: '2024-01-09T23:59:30.000000Z' },
      },
      ['30s', 'Normal', 'ScalingReplicaSet', 'deployment/web', '', 'deployment-controller', 'Scaled up', '2m', 5, 'ev'],
    ],
    [
      'events.k8s.io',
      'events',
      {
        metadata: meta('old'),
        regarding: { kind: 'Pod', name: 'p' },
        note: 'n',
        deprecatedSource: { component: 'kubelet' },
        deprecatedFirstTimestamp: '2024-01-09T00:00:00Z',
        deprecatedLastTimestamp: '2024-01-09T12:00:00Z',
        deprecatedCount: 7,
      },
      ['12h', '', '', 'pod/p', '', 'kubelet', 'n', '24h', 7, 'old'],
    ],
    ['rbac.authorization.k8s.io', 'roles', { metadata: meta('r') }, ['r', '2024-01-05T00:00:00Z']],
    ['example.com', 'widgets', { metadata: { name: 'w', creationTimestamp: '2024-01-05T01:00:00+01:00' } }, ['w', '2024-01-05T00:00:00Z']],
    ['example.com', 'widgets', { metadata: { name: 'nots' } }, ['nots', '0001-01-01T00:00:00Z']],
  ];
  for (const [group, resource, object, expected] of cases) {
    it(`${group || 'core'}/${resource} ${(object.metadata as JsonObject).name}`, () => {
      const p = printerFor(group, resource);
      const cells = p.row(object, now);
      assert.deepEqual(cells, expected);
      assert.equal(cells.length, p.columns.length);
    });
  }
  it('default printer is the fallback', () => {
    assert.equal(printerFor('', 'pods'), defaultPrinter);
  });
});

describe('buildTable', () => {
  const cm: JsonObject = { kind: 'ConfigMap', apiVersion: 'v1', metadata: meta('cm', { namespace: 'default', labels: { a: 'b' } }), data: { k: 'v' } };
  const p = printerFor('', 'configmaps');
  const rows = [{ cells: p.row(cm, now), object: cm }];

  it('defaults to PartialObjectMetadata rows and drops empty list metadata', () => {
    const t = buildTable([...p.columns], rows, { resourceVersion: '42', continue: '' });
    assert.equal(t.kind, 'Table');
    assert.equal(t.apiVersion, 'meta.k8s.io/v1');
    assert.deepEqual(t.metadata, { resourceVersion: '42' });
    assert.equal(t.columnDefinitions?.length, 3);
    assert.deepEqual(t.rows, [
      { cells: ['cm', 1, '5d'], object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: cm.metadata } },
    ]);
    // Serializes to what kubectl expects: all five column fields present.
    const wire = JSON.parse(JSON.stringify(t));
    assert.deepEqual(Object.keys(wire.columnDefinitions[1]).sort(), ['description', 'format', 'name', 'priority', 'type']);
  });

  const modes: Array<['None' | 'Metadata' | 'Object', unknown]> = [
    ['None', null],
    ['Object', cm],
    ['Metadata', { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1beta1', metadata: cm.metadata }],
  ];
  for (const [mode, expected] of modes) {
    it(`includeObject=${mode}`, () => {
      const t = buildTable([...p.columns], rows, { continue: 'tok', remainingItemCount: 0 }, mode, { apiVersion: 'meta.k8s.io/v1beta1' });
      assert.deepEqual(t.rows[0]!.object, expected);
      assert.deepEqual(t.metadata, { continue: 'tok', remainingItemCount: 0 });
      assert.equal(t.apiVersion, 'meta.k8s.io/v1beta1');
    });
  }

  it('noHeaders serializes columnDefinitions as null', () => {
    const t = buildTable([...p.columns], rows, {}, 'Metadata', { noHeaders: true });
    assert.equal(t.columnDefinitions, null);
  });

  it('parseIncludeObject', () => {
    assert.equal(parseIncludeObject(undefined), 'Metadata');
    assert.equal(parseIncludeObject(''), 'Metadata');
    assert.equal(parseIncludeObject('Object'), 'Object');
    assert.equal(parseIncludeObject('None'), 'None');
    assert.equal(parseIncludeObject('bogus'), undefined);
  });
});
