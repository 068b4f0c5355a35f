/**
 * The negotiation controller reuses a decision while its inputs keep the same signature. A status write must not
 * change the signature; a new spec generation must, and so must an import or enforcing CRD that was deleted and
 * created again under the same name (it starts over at generation 1 with another uid).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/apimachinery/object.js';
import type { APIResourceImport } from '../../../src/multicluster/api/types.js';
import { decisionSignature } from '../../../src/multicluster/controllers/negotiation.js';

function imp(name: string, uid: string, generation: number | undefined, resourceVersion = '10'): APIResourceImport {
  return {
    apiVersion: 'apiresource.kcp.io/v1alpha1',
    kind: 'APIResourceImport',
    metadata: { name, uid, resourceVersion, ...(generation === undefined ? {} : { generation }) },
    spec: { location: 'pc1', groupVersion: { group: 'example.com', version: 'v1' }, plural: 'widgets', kind: 'Widget', scope: 'Namespaced', openAPIV3Schema: { type: 'object' } },
  };
}

function crd(uid: string, generation: number, resourceVersion = '20'): KubeObject {
  return { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com', uid, generation, resourceVersion } };
}

type Inputs = [readonly APIResourceImport[], KubeObject | undefined, boolean];
const base: Inputs = [[imp('pc1', 'u-imp', 1), imp('pc2', 'u-imp2', 3)], crd('u-crd', 1), true];

describe('decisionSignature', () => {
  const cases: { what: string; inputs: Inputs; same: boolean }[] = [
    { what: 'identical inputs', inputs: [[imp('pc1', 'u-imp', 1), imp('pc2', 'u-imp2', 3)], crd('u-crd', 1), true], same: true },
    { what: 'status writes (new resourceVersions, same generations)', inputs: [[imp('pc1', 'u-imp', 1, '11'), imp('pc2', 'u-imp2', 3, '12')], crd('u-crd', 1, '21'), true], same: true },
    { what: 'an import re-created at generation 1', inputs: [[imp('pc1', 'u-imp-new', 1), imp('pc2', 'u-imp2', 3)], crd('u-crd', 1), true], same: false },
    { what: 'the enforcing CRD re-created at generation 1', inputs: [[imp('pc1', 'u-imp', 1), imp('pc2', 'u-imp2', 3)], crd('u-crd-new', 1), true], same: false },
    { what: 'a new import spec generation', inputs: [[imp('pc1', 'u-imp', 2), imp('pc2', 'u-imp2', 3)], crd('u-crd', 1), true], same: false },
    { what: 'a new CRD generation', inputs: [[imp('pc1', 'u-imp', 1), imp('pc2', 'u-imp2', 3)], crd('u-crd', 2), true], same: false },
    { what: 'another import order', inputs: [[imp('pc2', 'u-imp2', 3), imp('pc1', 'u-imp', 1)], crd('u-crd', 1), true], same: false },
    { what: 'a native schema instead of the CRD', inputs: [[imp('pc1', 'u-imp', 1), imp('pc2', 'u-imp2', 3)], undefined, true], same: false },
    { what: 'nothing enforced', inputs: [[imp('pc1', 'u-imp', 1), imp('pc2', 'u-imp2', 3)], undefined, false], same: false },
  ];
  for (const c of cases) {
    it(`${c.same ? 'keeps' : 'changes'} the signature for ${c.what}`, () => {
      assert.equal(decisionSignature(...c.inputs) === decisionSignature(...base), c.same);
    });
  }

  it('falls back to the resourceVersion of an object without a generation, and still tells re-created ones apart', () => {
    const a = decisionSignature([imp('pc1', 'u1', undefined, '5')], undefined, false);
    assert.notEqual(a, decisionSignature([imp('pc1', 'u1', undefined, '6')], undefined, false));
    assert.notEqual(a, decisionSignature([imp('pc1', 'u2', undefined, '5')], undefined, false));
  });
});
