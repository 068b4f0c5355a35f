/**
 * SyncTarget (workload.kcp.io/v1alpha1) and APIResourceImport (apiresource.kcp.io/v1alpha1) as built-in,
 * cluster-scoped resources with a status subresource, served in every workspace of a server started with the
 * multicluster options. Built-ins rather than CRDs because SyncTargets must exist in any workspace without an
 * installation step, and their schemas are atrium's own. Also the native Service type: a negotiated type is published
 * as a CRD, and CRDs cannot live in the core group, so atrium serves core/v1 Services itself.
 */
import type { KubeObject } from '../../apimachinery/object.js';
import { defineBuiltin, statusOnly } from '../../registry/builtin/define.js';
import { services } from '../../registry/builtin/workloads/resources.js';
import type { ResourceDefinition } from '../../registry/rest.js';
import { SYNC_TARGET_FINALIZER } from './types.js';

type Schema = Record<string, unknown>;

function keepStatus(obj: KubeObject, old: KubeObject): void {
  if (old.status === undefined) delete obj.status;
  else obj.status = old.status;
}

function objectSchema(definitionName: string, group: string, kind: string, description: string): { v2: Record<string, Schema>; v3: Record<string, Schema> } {
  const open = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const schema = (metaRef: string): Schema => ({
    description,
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { $ref: metaRef },
      spec: open,
      status: open,
    },
    'x-kubernetes-group-version-kind': [{ group, version: 'v1alpha1', kind }],
  });
  return {
    v2: { [definitionName]: schema('#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta') },
    v3: { [definitionName]: schema('#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta') },
  };
}

/** SyncTarget: a physical cluster's registration. New SyncTargets get the SyncTarget finalizer. */
export const syncTargets: ResourceDefinition = Object.assign(
  defineBuiltin({
    group: 'workload.kcp.io',
    version: 'v1alpha1',
    resource: 'synctargets',
    kind: 'SyncTarget',
    namespaced: false,
    categories: ['kcp'],
    definitionName: 'io.kcp.workload.v1alpha1.SyncTarget',
    strategy: {
      tracksGeneration: true,
      prepareForCreate(o) {
        o.status = {};
        if (!o.spec || typeof o.spec !== 'object') o.spec = {};
        const meta = o.metadata!;
        const fins = meta.finalizers ?? [];
        if (!fins.includes(SYNC_TARGET_FINALIZER)) meta.finalizers = [...fins, SYNC_TARGET_FINALIZER];
      },
      prepareForUpdate: keepStatus,
    },
    subresources: [{ name: 'status', kind: 'SyncTarget', verbs: ['get', 'patch', 'update'], strategy: statusOnly }],
  }),
  { strategicMergePatch: false, openAPISchemas: objectSchema('io.kcp.workload.v1alpha1.SyncTarget', 'workload.kcp.io', 'SyncTarget', 'A physical cluster registered for workloads.') },
);

/** APIResourceImport: one resource's schema as one SyncTarget's cluster serves it. */
export const apiResourceImports: ResourceDefinition = Object.assign(
  defineBuiltin({
    group: 'apiresource.kcp.io',
    version: 'v1alpha1',
    resource: 'apiresourceimports',
    kind: 'APIResourceImport',
    namespaced: false,
    categories: ['kcp'],
    definitionName: 'io.kcp.apiresource.v1alpha1.APIResourceImport',
    strategy: {
      prepareForCreate(o) {
        o.status = {};
      },
      prepareForUpdate: keepStatus,
    },
    subresources: [{ name: 'status', kind: 'APIResourceImport', verbs: ['get', 'patch', 'update'], strategy: statusOnly }],
  }),
  { strategicMergePatch: false, openAPISchemas: objectSchema('io.kcp.apiresource.v1alpha1.APIResourceImport', 'apiresource.kcp.io', 'APIResourceImport', 'A resource schema imported from a physical cluster.') },
);

/** What a server needs to serve for multi-cluster workloads. */
export const multiclusterResources: ResourceDefinition[] = [syncTargets, apiResourceImports, services];
