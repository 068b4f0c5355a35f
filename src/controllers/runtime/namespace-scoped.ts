/**
 * Helpers for controllers that keep something present in every live namespace (default ServiceAccount,
 * kube-root-ca.crt): namespace keys across logical clusters, and "is this namespace still accepting content".
 */
import type { KubeObject } from '../../apimachinery/object.js';
import { StatusError } from '../../apimachinery/status.js';
import { clusterOf, formatObjectKey } from '../../client/store.js';

/** The queue key of a namespace: `<cluster>|/<name>`. */
export function namespaceKey(ns: KubeObject): string {
  return formatObjectKey({ cluster: clusterOf(ns), namespace: '', name: ns.metadata?.name ?? '' });
}

/** The queue key of the namespace an object lives in. */
export function namespaceKeyOfObject(obj: KubeObject): string {
  return formatObjectKey({ cluster: clusterOf(obj), namespace: '', name: obj.metadata?.namespace ?? '' });
}

/** False for namespaces being deleted: nothing may be created in them. */
export function namespaceIsActive(ns: KubeObject | undefined): boolean {
  if (!ns || ns.metadata?.deletionTimestamp) return false;
  return (ns.status as { phase?: string } | undefined)?.phase !== 'Terminating';
}

/**
 * True for create failures that mean "nothing to do": it exists already (someone beat us), the namespace is gone, or
 * it is terminating (NamespaceLifecycle answers 403).
 */
export function isBenignCreateError(err: unknown): boolean {
  return err instanceof StatusError && (err.code === 409 || err.code === 404 || (err.code === 403 && err.reason === 'Forbidden' && /being terminated/.test(err.message)));
}
