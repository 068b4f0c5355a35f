/**
 * defineBuiltin for a kind outside the built-in catalog (an embedder's): its printer becomes the Table convertor, its
 * schema the OpenAPI v2 and v3 definitions, and it is patched as a custom resource unless told otherwise.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineBuiltin } from '../../../src/registry/builtin/define.js';
import { printerForColumns } from '../../../src/apiextensions/serving/printer-columns.js';
import { printerFor } from '../../../src/apimachinery/table/builtin-printers.js';

const base = { group: 'example.dev', version: 'v1', resource: 'things', kind: 'Thing', namespaced: true, definitionName: 'dev.example.v1.Thing' };

describe('defineBuiltin', () => {
  it("a catalog kind keeps the defaults: strategic merge patch, the kind's built-in printer, no schema of its own", () => {
    const def = defineBuiltin(base);
    assert.equal(def.strategicMergePatch, true);
    assert.equal(def.tableConvertor, printerFor(base.group, base.resource));
    assert.equal(def.openAPISchemas, undefined);
    assert.equal(def.listKind, 'ThingList');
  });

  it('printer becomes the Table convertor', () => {
    const printer = printerForColumns([{ name: 'N', type: 'integer', jsonPath: '.spec.n' }]);
    const def = defineBuiltin({ ...base, printer });
    assert.equal(def.tableConvertor, printer);
    assert.deepEqual(printer.row({ metadata: { name: 'a' }, spec: { n: 2 } }, 0), ['a', 2]);
  });

  it('schema becomes the OpenAPI definitions, and the kind takes no strategic merge patch', () => {
    const spec = { type: 'object', properties: { n: { type: 'integer' } } };
    const def = defineBuiltin({ ...base, schema: { description: 'A thing.', spec } });
    assert.equal(def.strategicMergePatch, false);
    const v3 = def.openAPISchemas!.v3['dev.example.v1.Thing']!;
    assert.deepEqual(v3, {
      description: 'A thing.',
      type: 'object',
      properties: {
        apiVersion: { type: 'string', description: 'The versioned schema of this representation of an object.' },
        kind: { type: 'string', description: 'The REST resource this object represents.' },
        metadata: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
        spec,
        status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
      'x-kubernetes-group-version-kind': [{ group: 'example.dev', version: 'v1', kind: 'Thing' }],
    });
    const v2 = def.openAPISchemas!.v2['dev.example.v1.Thing'] as { properties: { metadata: unknown } };
    assert.deepEqual(v2.properties.metadata, { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' });
    assert.equal(defineBuiltin({ ...base, schema: {}, strategicMergePatch: true }).strategicMergePatch, true);
  });
});
