import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtinCatalog, builtinProtobufHints } from '../../../src/apimachinery/schema/builtin/index.js';
import { dropEmptyOmitted } from '../../../src/apimachinery/schema/omit-empty.js';

const drop = (obj: unknown, type: string, check = false) => dropEmptyOmitted(obj, builtinCatalog, type, builtinProtobufHints.emitZero, check);

describe('dropEmptyOmitted (the typed round trip of empty lists and maps)', () => {
  it('drops empty and null omitempty lists and maps, through nested types, list items and map values', () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', labels: {}, annotations: null, finalizers: [], ownerReferences: [] }, data: {}, binaryData: { k: '' } };
    assert.equal(drop(cm, 'io.k8s.api.core.v1.ConfigMap'), true);
    assert.deepEqual(cm, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, binaryData: { k: '' } });
    const role = { rules: [{ verbs: [], apiGroups: [], resources: ['pods'], resourceNames: [] }, {}] };
    drop(role, 'io.k8s.api.rbac.v1.Role');
    // verbs has no omitempty; list items stay even when empty.
    assert.deepEqual(role, { rules: [{ verbs: [], resources: ['pods'] }, {}] });
  });

  it('keeps the lists and maps Go always writes, and leaves managedFields to the field manager', () => {
    const role = { metadata: { managedFields: [] }, rules: [] };
    assert.equal(drop(role, 'io.k8s.api.rbac.v1.Role'), false);
    assert.deepEqual(role, { metadata: { managedFields: [] }, rules: [] });
  });

  it('walks CRD schemas, a list of schemas in items included', () => {
    const crd = {
      spec: {
        versions: [{ name: 'v1', schema: { openAPIV3Schema: { type: 'object', required: [], properties: { a: { type: 'array', items: [{ type: 'string', enum: [] }] } } } } }],
      },
    };
    drop(crd, 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition');
    assert.deepEqual(crd.spec.versions[0]!.schema.openAPIV3Schema, { type: 'object', properties: { a: { type: 'array', items: [{ type: 'string' }] } } });
  });

  it('with check, only answers whether anything would go', () => {
    const cm = { metadata: { name: 'x' }, data: { a: 'b' }, binaryData: {} };
    assert.equal(drop(cm, 'io.k8s.api.core.v1.ConfigMap', true), true);
    assert.deepEqual(cm.binaryData, {});
    assert.equal(drop({ metadata: { name: 'x' }, data: { a: 'b' } }, 'io.k8s.api.core.v1.ConfigMap', true), false);
  });
});
