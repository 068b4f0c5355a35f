/**
 * Location and Placement (scheduling.kcp.io/v1alpha1) as built-in, cluster-scoped resources with a status subresource,
 * served next to SyncTarget by servers started with the multicluster options. Their schemas are in the type catalog
 * (apimachinery/schema/builtin/scheduling-v1alpha1.ts); kcp served them as CRDs, atrium serves them in every workspace
 * without an installation step.
 */
import { required, type FieldError } from '../../apimachinery/field-errors.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { defineBuiltin, statusOnly } from '../../registry/builtin/define.js';
import type { ResourceDefinition } from '../../registry/rest.js';
import { PLACEMENT_CLEANUP_FINALIZER } from './types.js';

function keepStatus(obj: KubeObject, old: KubeObject): void {
  if (old.status === undefined) delete obj.status;
  else obj.status = old.status;
}

/**
 * The GroupVersionResource fields kcp's CRD schemas require (Location spec.resource, Placement spec.locationResource:
 * version and resource required, group optional), reported as the schema validation of kcp's CRDs reports them.
 */
function requiredResource(o: KubeObject, field: 'resource' | 'locationResource'): FieldError[] {
  const gvr = (o.spec as Record<string, unknown> | undefined)?.[field] as { version?: unknown; resource?: unknown } | undefined;
  if (gvr === undefined || gvr === null) return [required(`spec.${field}`)];
  const errs: FieldError[] = [];
  if (gvr.version === undefined) errs.push(required(`spec.${field}.version`));
  if (gvr.resource === undefined) errs.push(required(`spec.${field}.resource`));
  return errs;
}

function schedulingResource(resource: string, kind: string, gvrField: 'resource' | 'locationResource', finalizer?: string): ResourceDefinition {
  return Object.assign(
    defineBuiltin({
      group: 'scheduling.kcp.io',
      version: 'v1alpha1',
      resource,
      kind,
      namespaced: false,
      categories: ['kcp'],
      definitionName: `io.kcp.scheduling.v1alpha1.${kind}`,
      strategy: {
        tracksGeneration: true,
        prepareForCreate(o) {
          o.status = {};
          if (!o.spec || typeof o.spec !== 'object') o.spec = {};
          const fins = o.metadata!.finalizers ?? [];
          if (finalizer && !fins.includes(finalizer)) o.metadata!.finalizers = [...fins, finalizer];
        },
        prepareForUpdate: keepStatus,
        validate: (o) => requiredResource(o, gvrField),
        validateUpdate: (o) => requiredResource(o, gvrField),
      },
      subresources: [{ name: 'status', kind, verbs: ['get', 'patch', 'update'], strategy: statusOnly }],
    }),
    { strategicMergePatch: false },
  );
}

/** Location: a named group of SyncTargets picked by spec.instanceSelector. */
export const locations: ResourceDefinition = schedulingResource('locations', 'Location', 'resource');
/**
 * Placement: which Location the namespaces it selects are scheduled to. New Placements get the cleanup finalizer
 * (PLACEMENT_CLEANUP_FINALIZER), released by the scheduler.
 */
export const placements: ResourceDefinition = schedulingResource('placements', 'Placement', 'locationResource', PLACEMENT_CLEANUP_FINALIZER);

export const schedulingResources: ResourceDefinition[] = [locations, placements];
