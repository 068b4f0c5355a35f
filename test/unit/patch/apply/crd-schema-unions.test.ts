/**
 * Server-side apply of a CustomResourceDefinition whose schema uses the apiextensions unions: `items`,
 * `additionalProperties`, `additionalItems` and `dependencies` have no type in upstream's OpenAPI, so smd deduces
 * them from the value. Found by applying OPA Gatekeeper's CRDs (`kubectl apply --server-side -f gatekeeper.yaml`),
 * which atrium refused with `.spec.versions[0]...items.description: field not declared in schema`.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { builtinCatalog } from '../../../../src/apimachinery/schema/builtin/index.js';
import { BuiltinSsaTypes } from '../../../../src/patch/apply/builtin-schema.js';
import { configurationTypeErrors } from '../../../../src/patch/apply/validate-config.js';
import { FieldManager } from '../../../../src/patch/apply/field-manager.js';
import type { KubeObject } from '../../../../src/apimachinery/object.js';

const root = new BuiltinSsaTypes(builtinCatalog).schemaFor('io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition')!.root;

const crd = (items: Record<string, unknown>): KubeObject => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'things.example.com' },
  spec: {
    group: 'example.com',
    names: { kind: 'Thing', plural: 'things' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  kinds: { type: 'array', items },
                  labels: { type: 'object', additionalProperties: { type: 'string', description: 'a value' } },
                  open: { type: 'object', additionalProperties: true },
                },
              },
            },
          },
        },
      },
    ],
  },
});

describe('server-side apply of CRD schemas with items and additionalProperties', () => {
  it('accepts any JSONSchemaProps field under items and additionalProperties, and booleans', () => {
    const obj = crd({ description: 'one kind', type: 'object', properties: { group: { type: 'string' } }, required: ['group'] });
    assert.equal(configurationTypeErrors(obj, root), '');
  });

  it('applies and re-applies such a CRD (spec.versions is one atomic leaf, as upstream)', () => {
    let tick = 0;
    const fm = new FieldManager({ root, apiVersion: 'apiextensions.k8s.io/v1', subresource: '', now: () => `2025-01-01T00:00:0${tick++ % 10}Z` });
    const first = fm.apply(null, crd({ description: 'one kind', type: 'object' }), 'kubectl', false);
    assert.match(JSON.stringify(first.metadata!.managedFields![0]!.fieldsV1), /"f:versions":\{\}/);
    const second = fm.apply(first, crd({ description: 'changed', type: 'object' }), 'kubectl', false);
    const items = (second.spec as any).versions[0].schema.openAPIV3Schema.properties.spec.properties.kinds.items;
    assert.deepEqual(items, { description: 'changed', type: 'object' });
  });
});
