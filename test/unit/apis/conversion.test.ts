/**
 * apis.kcp.io v1alpha1 ⇄ v1alpha2 conversion (kcp's types_apiexport_conversion.go, types_apibinding_conversion.go) as
 * table tests: each case converts one way, checks the result, and converts back to the original.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { apiBindingToV1alpha1, apiBindingToV1alpha2, apiExportToV1alpha1, apiExportToV1alpha2 } from '../../../src/apis/conversion.js';
import { base62Sha224, exportLabelValue, identityHashOf } from '../../../src/apis/types.js';

const meta = { name: 'widgets' };

describe('APIExport conversion', () => {
  const cases = [
    {
      name: 'CRD-backed resources become latestResourceSchemas; wildcard claims lose their verbs',
      v2: { metadata: meta, spec: { resources: [{ name: 'widgets', group: 'example.io', schema: 'v1.widgets.example.io', storage: { crd: {} } }], permissionClaims: [{ resource: 'configmaps', verbs: ['*'] }] } },
      v1: { metadata: meta, spec: { latestResourceSchemas: ['v1.widgets.example.io'], permissionClaims: [{ resource: 'configmaps' }] } },
    },
    {
      name: 'a claim with other verbs is kept in an annotation',
      v2: { metadata: meta, spec: { permissionClaims: [{ group: 'apps', resource: 'deployments', verbs: ['get', 'list'] }] } },
      v1: {
        metadata: { ...meta, annotations: { 'apis.v1alpha2.kcp.io/permission-claims': '[{"group":"apps","resource":"deployments","verbs":["get","list"]}]' } },
        spec: { permissionClaims: [{ group: 'apps', resource: 'deployments' }] },
      },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const down = apiExportToV1alpha1(c.v2 as any);
      assert.deepEqual(down, c.v1);
      const up = apiExportToV1alpha2(down);
      // A v1alpha1 claim travels back with its v1alpha1 form in an annotation (kcp does the same).
      delete up.metadata?.annotations?.['apis.v1alpha2.kcp.io/v1alpha1-permission-claims'];
      if (up.metadata?.annotations && Object.keys(up.metadata.annotations).length === 0) delete up.metadata.annotations;
      assert.deepEqual(up, c.v2);
    });
  }
});

describe('APIBinding conversion', () => {
  it('a matchAll, wildcard claim is `all` in v1alpha1; a label selector is kept in an annotation', () => {
    const v2 = {
      metadata: meta,
      spec: {
        reference: { export: { path: 'root:provider', name: 'widgets' } },
        permissionClaims: [
          { resource: 'configmaps', verbs: ['*'], selector: { matchAll: true }, state: 'Accepted' },
          { resource: 'secrets', verbs: ['*'], selector: { matchLabels: { a: 'b' } }, state: 'Rejected' },
        ],
      },
    };
    const down = apiBindingToV1alpha1(v2 as any);
    assert.deepEqual((down.spec as any).permissionClaims, [
      { resource: 'configmaps', all: true, state: 'Accepted' },
      { resource: 'secrets', state: 'Rejected' },
    ]);
    assert.ok(down.metadata?.annotations?.['apis.v1alpha2.kcp.io/acceptable-permission-claims']);
    const up = apiBindingToV1alpha2(down);
    assert.deepEqual((up.spec as any).permissionClaims, v2.spec.permissionClaims);
  });
});

describe('hashes', () => {
  it('identity hash is the hex SHA-256 of the key; export labels are base62 SHA-224', () => {
    assert.equal(identityHashOf('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    assert.match(base62Sha224('root:widgets'), /^[0-9a-zA-Z]{36,38}$/);
    assert.equal(exportLabelValue('root', 'widgets'), base62Sha224('root:widgets'));
  });
});
