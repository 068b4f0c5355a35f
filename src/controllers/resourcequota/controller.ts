/**
 * The quota controller (pkg/controller/resourcequota): keeps every ResourceQuota's status.hard equal to spec.hard and
 * status.used equal to what its namespace holds, in every logical cluster, promptly:
 *
 * - a quota is recalculated when it is created, when its spec.hard changes, and when its status.hard stops matching
 *   spec.hard (upstream waits for the next full resync for the last; see below);
 * - when an object a quota accounts is created, changed or deleted (replenishment): the quota's cluster gets one
 *   informer per resource its quotas account (`count/widgets.example.com` → widgets in that cluster), metadata-only
 *   for plain counts, full objects for pods, services and claims;
 * - and every quota at a full resync period (upstream: 5 minutes; status.used edited by hand is put right then).
 *
 * Per logical cluster, as kcp runs a quota controller per workspace: informers are per cluster, and only in clusters
 * that have quotas, so a workspace without quotas costs nothing. A resource a cluster does not serve (pods without
 * compute, a custom resource whose CRD does not exist yet) counts zero until it is served; the cluster is looked at
 * again at the next resync. Charges between recalculations come from the ResourceQuota admission plugin.
 *
 * Releases wait a moment: admission charges a quota before the object is stored, so a count taken in between is
 * short by the objects in flight. A recalculation that would lower status.used is written only when it still holds
 * RELEASE_DELAY_MS later and no charge came in meanwhile (the quota's resourceVersion is the same); otherwise a
 * recount could free a unit that an admitted create is about to take, and let one more create through than the quota
 * allows. Upstream writes at once and has that race.
 *
 * Where we differ: a status write that makes status.hard differ from spec.hard is reset at once rather than at the
 * next full resync (upstream ignores every status-only update).
 */
import { type KubeObject, deepCopy, isPlainObject, jsonEqual } from '../../apimachinery/object.js';
import { StatusError } from '../../apimachinery/status.js';
import type { Informer } from '../../client/informer.js';
import type { GroupVersionResource } from '../../client/resource.js';
import { clusterOf, keyOf, parseObjectKey } from '../../client/store.js';
import { logger } from '../../logging/logger.js';
import { Controller } from '../runtime/controller.js';
import type { ControllerContext, ControllerInstaller, RunningController } from '../runtime/context.js';
import { computeStatus, groupResourcesOfQuota, releases, statusIsCurrent } from './usage.js';

const quotasGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'resourcequotas' };
/** Full recalculation of every quota, and a fresh look at resources a cluster did not serve. */
export const QUOTA_RESYNC_MS = 60_000;
/** Resources whose usage needs the whole object (compute, ports, storage), not only that it exists. */
const needsFullObjects = new Set(['/pods', '/services', '/persistentvolumeclaims']);
const NAMESPACE_INDEX = 'namespace';
/** How long a release waits for creates admitted before it to be stored. */
export const RELEASE_DELAY_MS = 1_000;

interface Monitor {
  /** Undefined: the cluster does not serve the resource. */
  informer?: Informer;
}

export const resourceQuotaControllerInstaller: ControllerInstaller = {
  name: 'resourcequota',
  install(ctx: ControllerContext): RunningController {
    const quotas = ctx.informers.informerFor(quotasGVR, { cluster: '*' });
    const byNamespace = (cluster: string, namespace: string) => `${cluster}|${namespace}`;
    quotas.addIndexer('cluster-namespace', (q) => [byNamespace(clusterOf(q), q.metadata?.namespace ?? '')]);
    /** `<cluster>|<group>/<resource>` → its monitor. */
    const monitors = new Map<string, Promise<Monitor>>();

    const quotasIn = (cluster: string, namespace: string) => quotas.lister.byIndex('cluster-namespace', byNamespace(cluster, namespace));

    /** Replenishment: an object of `gr` changed in cluster/namespace; recalculate the quotas there that account it. */
    const replenish = (cluster: string, gr: string, obj: KubeObject) => {
      const namespace = obj.metadata?.namespace ?? '';
      for (const q of quotasIn(cluster, namespace)) if (groupResourcesOfQuota(q).includes(gr)) controller.enqueue(keyOf(q));
    };

    const startMonitor = async (cluster: string, gr: string): Promise<Monitor> => {
      const [group, resource] = gr.split('/') as [string, string];
      const version = await servedVersion(ctx, cluster, group, resource);
      if (!version) return {};
      const informer = ctx.informers.informerFor({ group, version, resource }, { cluster, metadataOnly: !needsFullObjects.has(gr) });
      informer.addIndexer(NAMESPACE_INDEX, (o) => [o.metadata?.namespace ?? '']);
      informer.addEventHandler({
        add: (o) => replenish(cluster, gr, o),
        update: (old, o) => {
          // A count changes only on add and delete; pods, services and claims also when their spec or status does.
          if (needsFullObjects.has(gr) && (!jsonEqual(old.spec, o.spec) || !jsonEqual(old.status, o.status) || old.metadata?.deletionTimestamp !== o.metadata?.deletionTimestamp)) replenish(cluster, gr, o);
        },
        delete: (o) => replenish(cluster, gr, o),
      });
      await informer.waitForSync();
      return { informer };
    };

    const monitorFor = (cluster: string, gr: string): Promise<Monitor> => {
      const id = `${cluster}|${gr}`;
      let m = monitors.get(id);
      if (!m) {
        m = startMonitor(cluster, gr);
        monitors.set(id, m);
        // A failed start (or an unserved resource) is tried again later.
        m.then(
          (r) => !r.informer && setTimeout(() => monitors.get(id) === m && monitors.delete(id), QUOTA_RESYNC_MS).unref(),
          () => monitors.delete(id),
        );
      }
      return m;
    };

    const hardDiffers = (q: KubeObject) => !jsonEqual(isPlainObject(q.spec) ? (q.spec.hard ?? {}) : {}, isPlainObject(q.status) ? (q.status.hard ?? {}) : {});
    /** Quota key → the resourceVersion at which a release was first computed (see the module comment). */
    const pendingReleases = new Map<string, string>();

    const controller = new Controller<string>({
      name: 'resourcequota',
      workers: 4,
      async reconcile(key) {
        const quota = quotas.lister.get(key);
        if (!quota) return;
        const { cluster, namespace } = parseObjectKey(key);
        const served = new Map<string, KubeObject[] | undefined>();
        for (const gr of groupResourcesOfQuota(quota)) {
          const m = await monitorFor(cluster, gr);
          served.set(gr, m.informer?.lister.byIndex(NAMESPACE_INDEX, namespace ?? ''));
        }
        const status = computeStatus(quota, (gr) => served.get(gr));
        if (statusIsCurrent(quota, status)) {
          pendingReleases.delete(key);
          return;
        }
        const rv = quota.metadata?.resourceVersion ?? '';
        if (!hardDiffers(quota) && releases(quota, status) && pendingReleases.get(key) !== rv) {
          pendingReleases.set(key, rv);
          return { requeueAfterMs: RELEASE_DELAY_MS };
        }
        pendingReleases.delete(key);
        const next = deepCopy(quota);
        next.status = status;
        try {
          await ctx.client.updateStatus(quotasGVR, next, { cluster, namespace });
        } catch (err) {
          if (err instanceof StatusError && err.code === 404) return;
          throw err;
        }
      },
    });

    quotas.addEventHandler({
      add: (q) => controller.enqueue(keyOf(q)),
      update: (old, q) => {
        const specChanged = !jsonEqual(isPlainObject(old.spec) ? old.spec.hard : undefined, isPlainObject(q.spec) ? q.spec.hard : undefined);
        if (specChanged || hardDiffers(q)) controller.enqueue(keyOf(q));
      },
    });

    let resync: NodeJS.Timeout | undefined;
    return {
      name: 'resourcequota',
      start() {
        controller.start();
        resync = setInterval(() => {
          for (const key of quotas.lister.keys()) controller.enqueue(key);
        }, QUOTA_RESYNC_MS);
        resync.unref();
      },
      async stop() {
        if (resync) clearInterval(resync);
        await controller.stop();
      },
    };
  },
};

/**
 * The version a logical cluster serves a resource in (its group's preferred version), or undefined when it does not
 * serve it there.
 */
async function servedVersion(ctx: ControllerContext, cluster: string, group: string, resource: string): Promise<string | undefined> {
  const prefix = `/clusters/${encodeURIComponent(cluster)}`;
  try {
    let groupVersion = 'v1';
    if (group !== '') {
      const g = (await ctx.client.call('GET', `${prefix}/apis/${group}`)) as { preferredVersion?: { groupVersion?: string } };
      groupVersion = g.preferredVersion?.groupVersion ?? '';
      if (!groupVersion) return undefined;
    }
    const list = (await ctx.client.call('GET', group === '' ? `${prefix}/api/v1` : `${prefix}/apis/${groupVersion}`)) as { resources?: { name: string; verbs?: string[] }[] };
    const found = (list.resources ?? []).find((r) => r.name === resource);
    if (!found || !found.verbs?.includes('list') || !found.verbs.includes('watch')) return undefined;
    return groupVersion.includes('/') ? groupVersion.split('/')[1] : groupVersion;
  } catch (err) {
    if (err instanceof StatusError && err.code === 404) return undefined;
    logger.warn('resourcequota: discovery failed', { cluster, group, resource, error: String(err) });
    throw err;
  }
}
