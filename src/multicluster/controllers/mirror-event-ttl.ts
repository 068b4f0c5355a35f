/**
 * The lifetime of mirrored Events (issue #14), in atrium: a mirrored event (MIRROR_LABEL) is deleted once it was last
 * seen on its cluster more than EVENT_TTL_MS ago (decisions/mirror-objects.ts: kube's --event-ttl, 1 h). Each syncer
 * does so for its own mirrors (syncer/workspace-mirrors.ts), and drains them with its other mirrors when its
 * SyncTarget goes; this controller is the bound when no syncer is left to do it (a cluster that went away, a pull-mode
 * syncer that never came back), so a workspace never accumulates the events of a cluster.
 *
 * Cheap: one informer over the mirrored events of every workspace (a label selector: no other event is watched), one
 * queue key per event, looked at once when it expires (the work queue keeps the earliest time per key).
 */
import type { KubeObject } from '../../apimachinery/object.js';
import { StatusError } from '../../apimachinery/status.js';
import type { GroupVersionResource } from '../../client/resource.js';
import { clusterOf, formatObjectKey, parseObjectKey } from '../../client/store.js';
import { Controller } from '../../controllers/runtime/controller.js';
import type { ControllerInstaller } from '../../controllers/runtime/context.js';
import { MIRROR_LABEL } from '../api/mirrors.js';
import { EVENT_TTL_MS, eventExpiresAtMs } from '../decisions/mirror-objects.js';

const eventsGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'events' };

export interface MirrorEventTtlOptions {
  /** How long a mirrored event lives after it was last seen (default EVENT_TTL_MS; tests shorten it). */
  ttlMs?: number;
}

export function mirrorEventTtlControllerInstaller(opts: MirrorEventTtlOptions = {}): ControllerInstaller {
  const ttlMs = opts.ttlMs ?? EVENT_TTL_MS;
  return {
    name: 'mirror-event-ttl',
    install(ctx) {
      const events = ctx.informers.informerFor<KubeObject>(eventsGVR, { cluster: '*', labelSelector: `${MIRROR_LABEL}=true` });
      const keyOf = (e: KubeObject) => formatObjectKey({ cluster: clusterOf(e), namespace: e.metadata?.namespace ?? '', name: e.metadata?.name ?? '' });
      const controller = new Controller({
        name: 'mirror-event-ttl',
        workers: 1,
        reconcile: async (key) => {
          if (!events.hasSynced()) return { requeueAfterMs: 500 };
          const e = events.lister.get(key);
          if (!e) return;
          const expires = eventExpiresAtMs(e, ttlMs);
          if (expires === undefined) return;
          const left = expires - Date.now();
          if (left > 0) return { requeueAfterMs: left + 1000 };
          const k = parseObjectKey(key);
          try {
            await ctx.client.delete(eventsGVR, k.name, { cluster: k.cluster, namespace: k.namespace }, { preconditions: { uid: e.metadata!.uid! } });
          } catch (err) {
            if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
          }
        },
      });
      const enqueue = (e: KubeObject) => controller.enqueue(keyOf(e));
      events.addEventHandler({ add: enqueue, update: (_o, n) => enqueue(n) });
      return { name: 'mirror-event-ttl', start: () => controller.start(), stop: () => controller.stop() };
    },
  };
}
