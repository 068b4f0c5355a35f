/**
 * What a DELETE in a workspace does with the syncer finalizers (`workload.kcp.io/syncer-<key>`), which mark the
 * clusters an object has copies on.
 *
 * kcp keeps a deleted object until every syncer removed its copy and released its finalizer; a user sees it linger
 * with a deletionTimestamp, so `kubectl delete` followed at once by a list (or a re-create of the same name) finds it
 * still there, which never happens on one cluster for a Deployment, a Service or a ConfigMap. We differ on purpose:
 * the DELETE releases them with the object (ResourceRegistry.releaseFinalizersOnDelete), and each syncer then deletes
 * the copy whose upstream object is gone, as it already does for a copy it finds orphaned after a restart.
 *
 * Except where one cluster keeps a deleted object too: a Pod stays Terminating until its kubelet has stopped it (here:
 * until its copy is gone from the cluster), and a PersistentVolumeClaim stays while its protection finalizer holds it,
 * which on the cluster it does for as long as a pod uses it. And a split Deployment's children (SPLIT_FROM_LABEL),
 * atrium's own objects that the splitter deletes: they stay until their copies are gone, because the splitter counts
 * a deleted child's replicas (and status) for as long as they still run on its cluster, make before break.
 */
import type { KubeObject } from '../../apimachinery/object.js';
import { SYNCER_FINALIZER_PREFIX } from '../api/types.js';
import { SPLIT_FROM_LABEL } from '../scheduling/types.js';

/** Kinds whose deleted objects stay until their copies are gone, as they stay on one cluster until it is done. */
const HELD_UNTIL_GONE = new Set(['/pods', '/persistentvolumeclaims']);

/** Whether a DELETE of `obj` (of `resource`) releases `finalizer` by itself. */
export function releasedOnDelete(resource: { group: string; resource: string }, finalizer: string, obj?: KubeObject): boolean {
  if (!finalizer.startsWith(SYNCER_FINALIZER_PREFIX) || HELD_UNTIL_GONE.has(`${resource.group}/${resource.resource}`)) return false;
  return obj?.metadata?.labels?.[SPLIT_FROM_LABEL] === undefined;
}
