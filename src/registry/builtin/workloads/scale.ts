/**
 * The /scale subresource of Deployments and ReplicaSets: reads and writes an autoscaling/v1 Scale that mirrors
 * spec.replicas, status.replicas and the selector (what `kubectl scale` and autoscalers use).
 */
import * as fe from '../../../apimachinery/field-errors.js';
import { fromLabelSelector, type LabelSelectorSpec } from '../../../apimachinery/labels/selector.js';
import { type KubeObject, isPlainObject, metaOf } from '../../../apimachinery/object.js';
import { errors } from '../../../apimachinery/status.js';
import type { SubresourceStrategy } from '../../rest.js';

function selectorString(spec: LabelSelectorSpec | undefined): string {
  try {
    return fromLabelSelector(spec).toString();
  } catch {
    return '';
  }
}

/** The Scale view of a replicated object. */
export function scaleOf(parent: KubeObject): KubeObject {
  const meta = metaOf(parent);
  const spec = isPlainObject(parent.spec) ? parent.spec : {};
  const status = isPlainObject(parent.status) ? parent.status : {};
  const scaleMeta: Record<string, unknown> = { name: meta.name, namespace: meta.namespace, uid: meta.uid, resourceVersion: meta.resourceVersion, creationTimestamp: meta.creationTimestamp };
  const scaleStatus: Record<string, unknown> = { replicas: typeof status.replicas === 'number' ? status.replicas : 0 };
  const selector = selectorString(spec.selector as LabelSelectorSpec | undefined);
  if (selector) scaleStatus.selector = selector;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: scaleMeta,
    spec: { replicas: typeof spec.replicas === 'number' ? spec.replicas : 0 },
    status: scaleStatus,
  };
}

/**
 * Applies an incoming Scale to the parent: only spec.replicas changes, and a change bumps metadata.generation as a
 * spec write through the main endpoint would (the controllers compare it with status.observedGeneration).
 */
export const scaleSubresource: SubresourceStrategy = {
  view: scaleOf,
  viewDefinitionName: 'io.k8s.api.autoscaling.v1.Scale',
  apply(incoming, current) {
    const name = metaOf(current).name ?? '';
    const incomingSpec = isPlainObject(incoming.spec) ? incoming.spec : {};
    const replicas = incomingSpec.replicas ?? 0;
    if (typeof replicas !== 'number' || !Number.isInteger(replicas)) {
      throw errors.invalid('autoscaling', 'Scale', name, [fe.invalid('spec.replicas', replicas, 'must be an integer')]);
    }
    if (replicas < 0) throw errors.invalid('autoscaling', 'Scale', name, [fe.invalid('spec.replicas', replicas, 'must be greater than or equal to 0')]);
    const spec = isPlainObject(current.spec) ? current.spec : {};
    if (spec.replicas !== replicas) {
      spec.replicas = replicas;
      const meta = metaOf(current);
      meta.generation = (meta.generation ?? 1) + 1;
    }
    current.spec = spec;
    return current;
  },
};
