import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FieldDescriptor, FieldType } from '../../../src/apimachinery/schema/types.js';
import {
  WELL_KNOWN_DEFINITIONS,
  catalogClosure,
  collectSchemaRefs,
  schemaClosure,
  schemaForField,
  schemaForFieldType,
  schemaForType,
  schemasFromCatalog,
  wellKnownSchemas,
} from '../../../src/apiserver/openapi/schema-from-catalog.js';
import { fixtureCatalog } from './fixture-catalog.js';

const V3 = '#/components/schemas/';
const V2 = '#/definitions/';
/** The fixture catalog's own descriptions are under test here (upstream-descriptions.test.ts covers Kubernetes'). */
const OWN = { upstreamDescriptions: false };

test('schemaForFieldType maps every FieldType as upstream publishes it', () => {
  const cases: { type: FieldType; v3: object; v2: object }[] = [
    { type: { scalar: 'string' }, v3: { type: 'string' }, v2: { type: 'string' } },
    { type: { scalar: 'boolean' }, v3: { type: 'boolean' }, v2: { type: 'boolean' } },
    { type: { scalar: 'int32' }, v3: { type: 'integer', format: 'int32' }, v2: { type: 'integer', format: 'int32' } },
    { type: { scalar: 'int64' }, v3: { type: 'integer', format: 'int64' }, v2: { type: 'integer', format: 'int64' } },
    { type: { scalar: 'double' }, v3: { type: 'number', format: 'double' }, v2: { type: 'number', format: 'double' } },
    { type: { scalar: 'bytes' }, v3: { type: 'string', format: 'byte' }, v2: { type: 'string', format: 'byte' } },
    { type: { scalar: 'duration' }, v3: { type: 'string' }, v2: { type: 'string' } },
    { type: { scalar: 'time' }, v3: { $ref: `${V3}${WELL_KNOWN_DEFINITIONS.time}` }, v2: { $ref: `${V2}${WELL_KNOWN_DEFINITIONS.time}` } },
    { type: { scalar: 'microTime' }, v3: { $ref: `${V3}${WELL_KNOWN_DEFINITIONS.microTime}` }, v2: { $ref: `${V2}${WELL_KNOWN_DEFINITIONS.microTime}` } },
    { type: { scalar: 'intOrString' }, v3: { $ref: `${V3}${WELL_KNOWN_DEFINITIONS.intOrString}` }, v2: { $ref: `${V2}${WELL_KNOWN_DEFINITIONS.intOrString}` } },
    { type: { scalar: 'quantity' }, v3: { $ref: `${V3}${WELL_KNOWN_DEFINITIONS.quantity}` }, v2: { $ref: `${V2}${WELL_KNOWN_DEFINITIONS.quantity}` } },
    { type: { scalar: 'rawExtension' }, v3: { $ref: `${V3}${WELL_KNOWN_DEFINITIONS.rawExtension}` }, v2: { $ref: `${V2}${WELL_KNOWN_DEFINITIONS.rawExtension}` } },
    { type: { scalar: 'json' }, v3: { $ref: `${V3}${WELL_KNOWN_DEFINITIONS.json}` }, v2: { $ref: `${V2}${WELL_KNOWN_DEFINITIONS.json}` } },
    { type: { ref: 'a.B' }, v3: { $ref: `${V3}a.B` }, v2: { $ref: `${V2}a.B` } },
    { type: { list: { scalar: 'int32' } }, v3: { type: 'array', items: { type: 'integer', format: 'int32' } }, v2: { type: 'array', items: { type: 'integer', format: 'int32' } } },
    { type: { map: { ref: 'a.B' } }, v3: { type: 'object', additionalProperties: { $ref: `${V3}a.B` } }, v2: { type: 'object', additionalProperties: { $ref: `${V2}a.B` } } },
    {
      type: { map: { list: { scalar: 'bytes' } } },
      v3: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string', format: 'byte' } } },
      v2: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string', format: 'byte' } } },
    },
  ];
  for (const c of cases) {
    assert.deepEqual(schemaForFieldType(c.type, 'v3'), c.v3, JSON.stringify(c.type));
    assert.deepEqual(schemaForFieldType(c.type, 'v2'), c.v2, JSON.stringify(c.type));
  }
});

test('well-known scalar definitions match upstream shapes', () => {
  const v3 = wellKnownSchemas('v3', OWN);
  const v2 = wellKnownSchemas('v2', OWN);
  assert.deepEqual(
    { type: v3[WELL_KNOWN_DEFINITIONS.time].type, format: v3[WELL_KNOWN_DEFINITIONS.time].format },
    { type: 'string', format: 'date-time' },
  );
  assert.equal(v3[WELL_KNOWN_DEFINITIONS.microTime].format, 'date-time');
  const ios3 = v3[WELL_KNOWN_DEFINITIONS.intOrString];
  assert.equal(ios3.format, 'int-or-string');
  assert.equal(ios3['x-kubernetes-int-or-string'], true);
  assert.deepEqual(ios3.oneOf, [{ type: 'integer' }, { type: 'string' }]);
  const ios2 = v2[WELL_KNOWN_DEFINITIONS.intOrString];
  assert.equal(ios2.type, 'string');
  assert.equal(ios2.format, 'int-or-string');
  assert.equal(ios2.oneOf, undefined, 'swagger 2.0 has no oneOf');
  assert.deepEqual(v3[WELL_KNOWN_DEFINITIONS.quantity].oneOf, [{ type: 'string' }, { type: 'number' }]);
  assert.equal(v2[WELL_KNOWN_DEFINITIONS.quantity].type, 'string');
  assert.equal(v2[WELL_KNOWN_DEFINITIONS.rawExtension].type, 'object');
  assert.equal(v2[WELL_KNOWN_DEFINITIONS.json].type, undefined, 'JSON admits any type');
});

test('schemaForField: siblings of a $ref are wrapped in allOf for v3 and kept beside it for v2', () => {
  const metadata: FieldDescriptor = { name: 'metadata', type: { ref: 'm.ObjectMeta' }, description: 'meta' };
  assert.deepEqual(schemaForField(metadata, 'v3'), { allOf: [{ $ref: `${V3}m.ObjectMeta` }], description: 'meta' });
  assert.deepEqual(schemaForField(metadata, 'v2'), { $ref: `${V2}m.ObjectMeta`, description: 'meta' });
  const bare: FieldDescriptor = { name: 'metadata', type: { ref: 'm.ObjectMeta' } };
  assert.deepEqual(schemaForField(bare, 'v3'), { $ref: `${V3}m.ObjectMeta` });
  const time: FieldDescriptor = { name: 't', type: { scalar: 'time' }, description: 'd' };
  assert.deepEqual(schemaForField(time, 'v3'), { allOf: [{ $ref: `${V3}${WELL_KNOWN_DEFINITIONS.time}` }], description: 'd' });
});

test('schemaForField carries enum, default and every x-kubernetes extension', () => {
  const f: FieldDescriptor = {
    name: 'conditions',
    type: { list: { ref: 'c.Condition' } },
    description: 'conds',
    patchStrategy: 'merge',
    patchMergeKey: 'type',
    listType: 'map',
    listMapKeys: ['type'],
  };
  assert.deepEqual(schemaForField(f, 'v3'), {
    type: 'array',
    items: { $ref: `${V3}c.Condition` },
    description: 'conds',
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['type'],
    'x-kubernetes-patch-merge-key': 'type',
    'x-kubernetes-patch-strategy': 'merge',
  });
  assert.deepEqual(schemaForField({ name: 'm', type: { scalar: 'string' }, enum: ['A', 'B'], default: 'A' }, 'v2'), {
    type: 'string',
    default: 'A',
    enum: ['A', 'B'],
  });
  assert.deepEqual(schemaForField({ name: 's', type: { map: { scalar: 'string' } }, mapType: 'atomic' }, 'v3'), {
    type: 'object',
    additionalProperties: { type: 'string' },
    'x-kubernetes-map-type': 'atomic',
  });
});

test('schemaForType: object with sorted properties, required, GVK and map-type extensions', () => {
  const cm = schemaForType(fixtureCatalog.get('io.k8s.api.core.v1.ConfigMap')!, 'v3', OWN);
  assert.equal(cm.type, 'object');
  assert.equal(cm.description, 'ConfigMap holds configuration data for pods to consume.');
  assert.deepEqual(Object.keys(cm.properties as object), ['apiVersion', 'binaryData', 'data', 'immutable', 'kind', 'metadata']);
  assert.deepEqual(cm['x-kubernetes-group-version-kind'], [{ group: '', kind: 'ConfigMap', version: 'v1' }]);
  assert.equal(cm.required, undefined);
  const props = cm.properties as Record<string, object>;
  assert.deepEqual(props.binaryData, { type: 'object', additionalProperties: { type: 'string', format: 'byte' } });

  const widget = schemaForType(fixtureCatalog.get('dev.atrium.example.v1alpha1.Widget')!, 'v2', OWN);
  assert.deepEqual(widget.required, ['mode']);
  const wp = widget.properties as Record<string, Record<string, unknown>>;
  assert.deepEqual(wp.count, { type: 'integer', format: 'int32', default: 1 });
  assert.deepEqual(wp.port, { $ref: `${V2}${WELL_KNOWN_DEFINITIONS.intOrString}`, description: 'Port number or name.' });
  assert.deepEqual(wp.tags, { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' });

  const owner = schemaForType(fixtureCatalog.get('io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference')!, 'v3', OWN);
  assert.equal(owner['x-kubernetes-map-type'], 'atomic');
  assert.deepEqual(owner.required, ['uid', 'kind'], 'required keeps declaration order');
});

test('catalogClosure follows refs and well-known scalars, and rejects dangling refs', () => {
  const closure = catalogClosure(fixtureCatalog, ['io.k8s.api.core.v1.ConfigMap']).sort();
  assert.deepEqual(closure, [
    WELL_KNOWN_DEFINITIONS.time,
    'io.k8s.api.core.v1.ConfigMap',
    'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    'io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference',
  ].sort());
  const broken = new Map(fixtureCatalog);
  broken.set('x.Broken', { name: 'x.Broken', fields: [{ name: 'a', type: { list: { ref: 'x.Missing' } } }] });
  assert.throws(() => catalogClosure(broken, ['x.Broken']), /x\.Missing is referenced but not in the type catalog/);
});

test('schemasFromCatalog converts a closure or everything, using well-known definitions for scalars', () => {
  const some = schemasFromCatalog(fixtureCatalog, 'v3', ['dev.atrium.example.v1alpha1.Widget'], OWN);
  for (const name of Object.values(WELL_KNOWN_DEFINITIONS)) assert.ok(some[name], `${name} present`);
  assert.equal(some['io.k8s.api.core.v1.ConfigMap'], undefined);
  assert.deepEqual(Object.keys(some), [...Object.keys(some)].sort(), 'sorted by name');

  const all = schemasFromCatalog(fixtureCatalog, 'v2', undefined, OWN);
  assert.equal(Object.keys(all).length, fixtureCatalog.size + Object.keys(WELL_KNOWN_DEFINITIONS).length);
  // Every $ref in the full set resolves within it.
  for (const ref of collectSchemaRefs(all, 'v2')) assert.ok(all[ref], `dangling ${ref}`);
});

test('schemaClosure keeps exactly what is reachable via $ref', () => {
  const all = schemasFromCatalog(fixtureCatalog, 'v3', undefined, OWN);
  const closure = schemaClosure(all, ['io.k8s.api.core.v1.NamespaceList'], 'v3');
  assert.deepEqual(Object.keys(closure), [
    WELL_KNOWN_DEFINITIONS.time,
    'io.k8s.api.core.v1.Namespace',
    'io.k8s.api.core.v1.NamespaceCondition',
    'io.k8s.api.core.v1.NamespaceList',
    'io.k8s.api.core.v1.NamespaceSpec',
    'io.k8s.api.core.v1.NamespaceStatus',
    'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    'io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference',
  ].sort());
  assert.deepEqual(schemaClosure(all, ['does.not.Exist'], 'v3'), {});
});
