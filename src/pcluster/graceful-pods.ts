/**
 * Pods deleted gracefully, as on a cluster with kubelets (pod strategy CheckGracefulDelete): a DELETE of a pod bound to
 * a node and still running only marks it — deletionTimestamp now + the grace period (the one asked for, else the pod's
 * terminationGracePeriodSeconds), deletionGracePeriodSeconds — and `kubectl get pods` shows it Terminating until its
 * kubelet has stopped the containers and deletes it again with no grace period (controllers/kubelet.ts). A pod never
 * scheduled, or already finished, goes at once; a negative grace period counts as 1 s.
 *
 * Only the simulated cluster serves pods this way: a workspace's pods have no kubelet of their own (their copies on
 * the clusters are deleted gracefully there), so deleting them there stays immediate.
 */
import { type KubeObject, isPlainObject } from '../apimachinery/object.js';
import { pods } from '../registry/builtin/workloads/resources.js';
import type { ResourceDefinition } from '../registry/rest.js';

/** CheckGracefulDelete's grace period for deleting `pod` when `requested` (or none) is asked for. */
export function podGracePeriod(pod: KubeObject, requested: number | undefined): number {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  const status = isPlainObject(pod.status) ? pod.status : {};
  let period = requested ?? (typeof spec.terminationGracePeriodSeconds === 'number' ? spec.terminationGracePeriodSeconds : 0);
  if (!spec.nodeName) period = 0;
  if (status.phase === 'Failed' || status.phase === 'Succeeded') period = 0;
  return period < 0 ? 1 : period;
}

/** The pods resource, deleted gracefully. */
export const gracefullyDeletedPods: ResourceDefinition = Object.assign(Object.create(Object.getPrototypeOf(pods)) as object, pods, {
  strategy: { ...pods.strategy, gracefulDeletePeriod: podGracePeriod },
}) as ResourceDefinition;
