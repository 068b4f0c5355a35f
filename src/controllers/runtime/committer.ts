/**
 * The committer: writes what a reconcile changed, and only that. Metadata/spec changes go through the main resource
 * (PUT with the resourceVersion the reconcile started from, so a concurrent change yields 409 and a retry), status
 * changes through the status subresource in a separate request: spec and status are never written together.
 */
import { deepCopy, jsonEqual, type KubeObject } from '../../apimachinery/object.js';
import type { GroupVersionResource, RequestScope } from '../../client/resource.js';
import type { RestClient } from '../../client/rest-client.js';

export interface CommitOptions {
  /** The resource has a status subresource (default true); without one, status is written with the main PUT. */
  hasStatusSubresource?: boolean;
}

/**
 * Persists the difference between `old` (as read from the cache) and `next` (after reconcile). Returns the latest
 * object the server returned, or `old` when nothing changed. StatusErrors propagate (409 → the loop retries).
 */
export async function commit<T extends KubeObject>(
  client: RestClient,
  gvr: GroupVersionResource,
  old: T,
  next: T,
  scope: RequestScope,
  opts: CommitOptions = {},
): Promise<T> {
  const hasStatus = opts.hasStatusSubresource ?? true;
  const { status: oldStatus, ...oldRest } = old;
  const { status: newStatus, ...newRest } = next;
  const mainChanged = !jsonEqual(oldRest, newRest) || (!hasStatus && !jsonEqual(oldStatus, newStatus));
  const statusChanged = hasStatus && !jsonEqual(oldStatus, newStatus);
  let latest: T = old;
  if (mainChanged) {
    latest = await client.update(gvr, stripClusterAnnotation(next), scope);
  }
  if (statusChanged) {
    const body = deepCopy(latest === old ? next : { ...latest, status: newStatus });
    latest = await client.updateStatus(gvr, stripClusterAnnotation(body), scope);
  }
  return latest;
}

/** Objects read through a wildcard informer carry `kcp.io/cluster`; it is not part of the stored object. */
export function stripClusterAnnotation<T extends KubeObject>(obj: T): T {
  const ann = obj.metadata?.annotations;
  if (!ann || !('kcp.io/cluster' in ann)) return obj;
  const { ['kcp.io/cluster']: _dropped, ...rest } = ann;
  void _dropped;
  const metadata: NonNullable<KubeObject['metadata']> = { ...obj.metadata };
  if (Object.keys(rest).length === 0) delete metadata.annotations;
  else metadata.annotations = rest;
  return { ...obj, metadata };
}
