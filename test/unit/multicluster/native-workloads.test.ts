/**
 * The workload types a workspace with compute serves natively, and negotiation enforcing their built-in schema (from
 * the type catalog) on what the clusters report, instead of publishing a CRD; negotiated CRDs of other types carry
 * the clusters' short names and categories.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { builtinCatalog } from '../../../src/apimachinery/schema/builtin/index.js';
import { schemasFromCatalog } from '../../../src/apiserver/openapi/schema-from-catalog.js';
import { workloadResources } from '../../../src/registry/builtin/workloads/resources.js';
import { workspaceWorkloadResource, workspaceWorkloadResources } from '../../../src/multicluster/api/workload-resources.js';
import { builtinStructuralSchema } from '../../../src/multicluster/schema/builtin-schema.js';
import { structuralSchemaFromOpenAPI } from '../../../src/multicluster/schema/from-openapi.js';
import { negotiate, negotiatedCRD } from '../../../src/multicluster/controllers/negotiation.js';
import { deploymentsWithSchemaVariant } from '../../../src/pcluster/schema-variants.js';
import type { APIResourceImport } from '../../../src/multicluster/api/types.js';

const DEPLOYMENT = 'io.k8s.api.apps.v1.Deployment';

function imported(name: string, schema: Record<string, unknown>, extra: Partial<APIResourceImport['spec']> = {}): APIResourceImport {
  return {
    apiVersion: 'apiresource.kcp.io/v1alpha1',
    kind: 'APIResourceImport',
    metadata: { name },
    spec: { location: name, groupVersion: { group: 'apps', version: 'v1' }, plural: 'deployments', kind: 'Deployment', scope: 'Namespaced', openAPIV3Schema: schema, ...extra },
  };
}

describe('workspace workload types', () => {
  it('are the registry\'s workload list without Nodes, PersistentVolumes, RuntimeClasses, the CSI kinds and the Services served everywhere', () => {
    const names = workspaceWorkloadResources.map((d) => `${d.group}/${d.resource}`);
    assert.ok(names.includes('apps/deployments') && names.includes('apps/replicasets') && names.includes('/pods') && names.includes('storage.k8s.io/storageclasses'), names.join(','));
    const csi = ['csidrivers', 'csinodes', 'csistoragecapacities', 'volumeattachments'];
    for (const gone of ['/nodes', '/persistentvolumes', '/services', 'node.k8s.io/runtimeclasses', ...csi.map((r) => `storage.k8s.io/${r}`)]) assert.ok(!names.includes(gone), gone);
    const notServed = (d: { group: string; resource: string }) =>
      (d.group === '' && ['nodes', 'persistentvolumes', 'services'].includes(d.resource)) ||
      (d.group === 'node.k8s.io' && d.resource === 'runtimeclasses') ||
      (d.group === 'storage.k8s.io' && csi.includes(d.resource));
    assert.equal(workspaceWorkloadResources.length, workloadResources.filter((d) => !notServed(d)).length);
    assert.equal(workspaceWorkloadResource('apps', 'deployments')?.shortNames[0], 'deploy');
    assert.equal(workspaceWorkloadResource('', 'services'), undefined);
    assert.equal(workspaceWorkloadResource('example.com', 'widgets'), undefined);
  });

  it('the built-in schema is what a standard cluster publishes: accepted', () => {
    const cluster = structuralSchemaFromOpenAPI(schemasFromCatalog(builtinCatalog, 'v3', [DEPLOYMENT]) as Record<string, unknown>, DEPLOYMENT);
    const d = negotiate([imported('pc1', cluster)], { version: 'v1', schema: builtinStructuralSchema(DEPLOYMENT) });
    assert.deepEqual([...d.verdicts], [['pc1', undefined]]);
  });

  it('a cluster publishing spec.replicas as a string is Incompatible with the exact field path; a version the workspace does not serve too', () => {
    const variant = deploymentsWithSchemaVariant('replicas-as-string').openAPISchemas!.v3;
    const schemas = { ...(schemasFromCatalog(builtinCatalog, 'v3', [DEPLOYMENT]) as Record<string, unknown>), ...variant };
    const d = negotiate(
      [imported('pc3', structuralSchemaFromOpenAPI(schemas, DEPLOYMENT)), imported('old', builtinStructuralSchema(DEPLOYMENT), { groupVersion: { group: 'apps', version: 'v1beta2' } })],
      { version: 'v1', schema: builtinStructuralSchema(DEPLOYMENT) },
    );
    assert.equal(d.verdicts.get('pc3'), 'spec.replicas: type "string" in the cluster does not accept "integer"');
    assert.equal(d.verdicts.get('old'), 'the cluster serves version v1beta2, the workspace serves v1');
  });

  it('a negotiated CRD of another type carries the short names and categories the cluster gives', () => {
    const imp = imported('pc1', { type: 'object' }, { groupVersion: { group: 'example.com', version: 'v1' }, plural: 'widgets', kind: 'Widget', shortNames: ['wd'], categories: ['all', 'example'] });
    const crd = negotiatedCRD(imp, { type: 'object' }, ['status']);
    assert.deepEqual((crd.spec as { names: unknown }).names, { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'], categories: ['all', 'example'] });
  });
});
