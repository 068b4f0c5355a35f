/** The negotiated-CRD printer hook: only CRDs marked negotiated use a registered printer for their group and kind. */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { customResourceDefinitions, SchemaCache } from '../../../src/apiextensions/serving/custom-resource.js';
import { registerNegotiatedPrinter, unregisterNegotiatedPrinter } from '../../../src/apiextensions/serving/negotiated-printers.js';
import type { CustomResourceDefinition } from '../../../src/apiextensions/crd/types.js';
import { deploymentPrinter } from '../../../src/registry/builtin/workloads/printers.js';

const crd = (negotiated: boolean | 'false', group = 'apps', kind = 'Deployment'): CustomResourceDefinition =>
  ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `deployments.${group}`, uid: `uid-${group}-${String(negotiated)}`, generation: 1, resourceVersion: '1', ...(negotiated !== false ? { annotations: { 'apiresource.kcp.io/negotiated': String(negotiated) } } : {}) },
    spec: { group, scope: 'Namespaced', names: { plural: 'deployments', kind }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
    status: { conditions: [{ type: 'Established', status: 'True' }], acceptedNames: { plural: 'deployments', kind, singular: 'deployment', listKind: `${kind}List` } },
  }) as unknown as CustomResourceDefinition;

describe('negotiated CRD printers', () => {
  registerNegotiatedPrinter('apps', 'Deployment', deploymentPrinter);
  after(() => unregisterNegotiatedPrinter('apps', 'Deployment'));
  const columns = (c: CustomResourceDefinition) => customResourceDefinitions(c, new SchemaCache())[0]!.tableConvertor.columns.map((x) => x.name);

  const cases: { name: string; crd: CustomResourceDefinition; want: string[] }[] = [
    { name: 'negotiated Deployment uses the built-in printer', crd: crd(true), want: ['Name', 'Ready', 'Up-to-date', 'Available', 'Age', 'Containers', 'Images', 'Selector'] },
    { name: 'an unmarked CRD keeps its columns', crd: crd(false), want: ['Name', 'Age'] },
    { name: 'annotation other than "true" does not count', crd: crd('false'), want: ['Name', 'Age'] },
    { name: 'another group with the same kind is not matched', crd: crd(true, 'example.com'), want: ['Name', 'Age'] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(columns(c.crd), c.want));

  it('rows print READY as ready/desired', () => {
    const row = customResourceDefinitions(crd(true), new SchemaCache())[0]!.tableConvertor.row({ metadata: { name: 'web', creationTimestamp: new Date().toISOString() }, spec: { replicas: 15 }, status: { readyReplicas: 15, updatedReplicas: 15, availableReplicas: 15 } }, Date.now());
    assert.deepEqual(row.slice(0, 4), ['web', '15/15', 15, 15]);
  });
});
