/**
 * The /scale subresource of a custom resource (apiextensions registry/customresource: scaleFromCustomResource and the
 * scale update): an autoscaling/v1 Scale view built from specReplicasPath, statusReplicasPath and labelSelectorPath,
 * and writes that set only the spec replicas.
 */
import { FieldPath, invalid } from '../../apimachinery/field-errors.js';
import { type KubeObject, metaOf } from '../../apimachinery/object.js';
import { errors } from '../../apimachinery/status.js';
import type { SubresourceStrategy } from '../../registry/rest.js';
import type { CRDScale } from '../crd/types.js';
import { getSimplePath, setSimplePath } from './jsonpath.js';

const SCALE_DEFINITION = 'io.k8s.api.autoscaling.v1.Scale';

/** `validate` checks the parent after the replicas were written (the CR's own schema and rules still apply). */
export function scaleSubresource(scale: CRDScale, validate: SubresourceStrategy['validate']): SubresourceStrategy {
  const specPath = scale.specReplicasPath ?? '.spec.replicas';
  const statusPath = scale.statusReplicasPath ?? '.status.replicas';
  return {
    view(parent: KubeObject): KubeObject {
      const meta = metaOf(parent);
      const metadata: Record<string, unknown> = { name: meta.name };
      if (meta.namespace) metadata.namespace = meta.namespace;
      metadata.uid = meta.uid;
      metadata.resourceVersion = meta.resourceVersion;
      metadata.creationTimestamp = meta.creationTimestamp;
      const specReplicas = getSimplePath(parent, specPath);
      const statusReplicas = getSimplePath(parent, statusPath);
      const spec: Record<string, unknown> = {};
      if (typeof specReplicas === 'number' && specReplicas !== 0) spec.replicas = specReplicas;
      const status: Record<string, unknown> = { replicas: typeof statusReplicas === 'number' ? statusReplicas : 0 };
      if (scale.labelSelectorPath) {
        const sel = getSimplePath(parent, scale.labelSelectorPath);
        if (typeof sel === 'string' && sel) status.selector = sel;
      }
      return { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata, spec, status };
    },
    viewDefinitionName: SCALE_DEFINITION,
    apply(incoming: KubeObject, current: KubeObject): KubeObject {
      const spec = (incoming.spec ?? {}) as { replicas?: unknown };
      const replicas = spec.replicas ?? 0;
      const name = metaOf(current).name ?? '';
      if (typeof replicas !== 'number' || !Number.isInteger(replicas)) {
        throw errors.invalid('autoscaling', 'Scale', name, [invalid(FieldPath.root('spec').child('replicas').toString(), replicas, 'must be an integer')]);
      }
      if (replicas < 0) {
        throw errors.invalid('autoscaling', 'Scale', name, [invalid('spec.replicas', replicas, 'must be greater than or equal to 0')]);
      }
      setSimplePath(current, specPath, replicas);
      return current;
    },
    validate,
  };
}
