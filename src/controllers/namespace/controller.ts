/**
 * The namespace controller: finishes the deletion of Terminating namespaces in every logical cluster. For a namespace
 * with a deletionTimestamp and the `kubernetes` finalizer it deletes all namespaced content, reports progress in
 * status.conditions, and once nothing remains PUTs /finalize without the `kubernetes` finalizer, after which the
 * server removes the namespace. While content remains (e.g. held by finalizers) the key is requeued with backoff.
 */
import { deepCopy, nowRFC3339, type KubeObject } from '../../apimachinery/object.js';
import { StatusError } from '../../apimachinery/status.js';
import type { GroupVersionResource } from '../../client/resource.js';
import { formatObjectKey, parseObjectKey, clusterOf } from '../../client/store.js';
import { Controller, type ReconcileResult } from '../runtime/controller.js';
import type { ControllerContext, ControllerInstaller, RunningController } from '../runtime/context.js';
import { stripClusterAnnotation } from '../runtime/committer.js';
import { failingConditions, mergeNamespaceConditions, type NamespaceCondition } from './conditions.js';
import { deleteAllContent } from './content-deleter.js';

export const namespacesGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'namespaces' };
const finalizerToken = 'kubernetes';

/**
 * How long after a namespace is seen deleting its content removal starts (upstream namespaceDeletionGracePeriod):
 * lets last-moment creates land and be deleted too, and keeps a Terminating namespace observable for a moment,
 * as clients and tests written against real clusters expect.
 */
export const namespaceDeletionGracePeriodMs = 5_000;

interface Namespace extends KubeObject {
  spec?: { finalizers?: string[] };
  status?: { phase?: string; conditions?: NamespaceCondition[] };
}

/** An error that carries the "content remains" outcome: requeue, but it is not a failure worth a warning. */
const contentRemains: ReconcileResult = { requeue: true };

export const namespaceControllerInstaller: ControllerInstaller = {
  name: 'namespace',
  install(ctx: ControllerContext): RunningController {
    const { client } = ctx;
    const informer = ctx.informers.informerFor<Namespace>(namespacesGVR, { cluster: '*' });

    const reconcile = async (key: string): Promise<ReconcileResult | void> => {
      const { cluster, name } = parseObjectKey(key);
      // Several actors edit a terminating namespace; start from the live object, as upstream does.
      let ns: Namespace;
      try {
        ns = await client.get<Namespace>(namespacesGVR, name, { cluster });
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) return;
        throw err;
      }
      if (!ns.metadata?.deletionTimestamp) return;
      // Deliberately unlike upstream (whose deleter returns early for a namespace already finalized): a namespace
      // deleted after its spec.finalizers were emptied is still emptied, then deleted again, which removes it; upstream
      // it stays Terminating until someone deletes it again, and its content is left behind.
      const finalized = (ns.spec?.finalizers ?? []).length === 0;
      if (!finalized && !(ns.spec?.finalizers ?? []).includes(finalizerToken)) return;

      const outcome = await deleteAllContent(client, cluster, name);
      const now = nowRFC3339();
      const merged = mergeNamespaceConditions(ns.status?.conditions ?? [], failingConditions(outcome, now), now);
      if (merged.changed) {
        const next = deepCopy(ns);
        next.status = { ...(next.status ?? {}), conditions: merged.conditions };
        ns = await client.updateStatus(namespacesGVR, next, { cluster });
      }
      const failed =
        outcome.discoveryError !== undefined ||
        (outcome.failedGroups?.size ?? 0) > 0 ||
        (outcome.unparsableGroupVersions?.length ?? 0) > 0 ||
        outcome.contentErrors.length > 0;
      if (failed) throw new Error(`namespace ${cluster}|${name}: content deletion incomplete: ${outcome.contentErrors.join('; ') || outcome.discoveryError || 'discovery failed'}`);
      if (outcome.remainingByResource.size > 0) return contentRemains;

      if (finalized) {
        try {
          await client.delete(namespacesGVR, name, { cluster }, { preconditions: { uid: ns.metadata?.uid } });
        } catch (err) {
          if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
          throw err;
        }
        return;
      }
      const finalize = stripClusterAnnotation(deepCopy(ns));
      finalize.spec = { ...(finalize.spec ?? {}), finalizers: (ns.spec?.finalizers ?? []).filter((f) => f !== finalizerToken) };
      try {
        await client.updateSubresource(namespacesGVR, finalize, 'finalize', { cluster });
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) return;
        throw err;
      }
    };

    // Backoff while content remains: start fast so `kubectl delete ns` returns promptly, cap low so a namespace
    // waiting on a finalizer is re-checked every few seconds (upstream waits estimate/2 = 7.5 s).
    const controller = new Controller<string>({ name: 'namespace', reconcile, workers: 2, rateLimiter: { baseDelayMs: 50, maxDelayMs: 5_000 } });
    const enqueueIfDeleting = (ns: Namespace) => {
      if (!ns.metadata?.deletionTimestamp) return;
      controller.queue.addAfter(formatObjectKey({ cluster: clusterOf(ns), namespace: '', name: ns.metadata.name ?? '' }), graceRemainingMs(ns.metadata.deletionTimestamp));
    };
    // A namespace deleted long ago (e.g. before a restart) is not made to wait again.
    const graceRemainingMs = (deletionTimestamp: string) => {
      const since = Date.now() - Date.parse(deletionTimestamp);
      return Number.isFinite(since) ? Math.max(0, Math.min(namespaceDeletionGracePeriodMs, namespaceDeletionGracePeriodMs - since)) : namespaceDeletionGracePeriodMs;
    };
    informer.addEventHandler({ add: enqueueIfDeleting, update: (_old, ns) => enqueueIfDeleting(ns) });
    return {
      name: 'namespace',
      start: () => controller.start(),
      stop: () => controller.stop(),
    };
  },
};
