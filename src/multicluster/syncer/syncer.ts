/**
 * The syncer: connects one SyncTarget (upstream, in an atrium workspace) with one physical cluster (downstream).
 * The same code runs in three places: inside atrium (push mode), as `atrium syncer` (none), or as a Deployment in the
 * cluster (pull). It
 *
 * - heartbeats: patches `status.lastSyncerHeartbeatTime`, capacity and allocatable (summed over the cluster's nodes);
 * - imports APIs: reports the cluster's schemas for the SyncTarget's resources as APIResourceImports, periodically;
 * - syncs every resource the SyncTarget lists as Accepted (one ResourceSyncer each; see resource-syncer.ts);
 * - on SyncTarget deletion drains: deletes (or orphans, by spec.deletionPolicy) what it created downstream, releases
 *   its upstream finalizers, then marks the SyncTarget with CLEANUP_DONE_ANNOTATION so atrium can let it go.
 *
 * Everything it decides comes from API state (labels, locators, finalizers), so any restart resumes where it was.
 */
import type { KubeObject } from '../../apimachinery/object.js';
import { nowRFC3339 } from '../../apimachinery/object.js';
import { StatusError } from '../../apimachinery/status.js';
import { InformerFactory } from '../../client/informer-factory.js';
import type { GroupVersionResource } from '../../client/resource.js';
import type { RestClient } from '../../client/rest-client.js';
import { formatObjectKey } from '../../client/store.js';
import { Controller } from '../../controllers/runtime/controller.js';
import { logger } from '../../logging/logger.js';
import { DOWNSTREAM_CLUSTER_LABEL, eventsGVR, followerResources, namespacesGVR, nodesGVR, parseGroupResource, resourcesOf, SYNC_TARGET_KEY_LABEL, syncTargetsGVR, type SyncTarget } from '../api/types.js';
import { readDownstreamImports, reconcileImports } from './api-importer.js';
import { sumNodeResources } from './capacity.js';
import { NamespaceMapper } from './namespace-mapper.js';
import { ResourceSyncer } from './resource-syncer.js';
import { contentHash } from './transform.js';

/**
 * Every how many import polls the upstream APIResourceImports are re-listed even though the cluster's schemas did
 * not change (repairs an import someone deleted or edited upstream). In between, an unchanged poll costs atrium
 * nothing: with 100 syncers, listing every import of the workspace (each carrying a full schema) every 30 s was
 * about a third of atrium's idle CPU (bench/scheduling.ts, scale part).
 */
const IMPORT_FULL_RECONCILE_EVERY = 10;

/** Set by the syncer on its SyncTarget once a drain finished. */
export const CLEANUP_DONE_ANNOTATION = 'workload.kcp.io/syncer-cleanup-done';

export interface SyncerOptions {
  /** Client for atrium with the syncer's credentials. */
  upstream: RestClient;
  /** The SyncTarget's logical cluster (name, as in `/clusters/<name>`). */
  upstreamCluster: string;
  /** Client for the physical cluster. */
  downstream: RestClient;
  syncTargetName: string;
  /** Default 20 s, as kcp. */
  heartbeatIntervalMs?: number;
  /** How often the cluster's schemas are re-read (default 30 s). */
  importPollIntervalMs?: number;
  /**
   * Concurrent reconciles per synced resource (default 16). Each one mostly waits on two API servers, so a deep
   * pool is what keeps a burst of writes from queueing (measured by bench/syncer.ts: 4 workers left a 1,000-object
   * burst's p99 in the tens of seconds).
   */
  workersPerResource?: number;
  /** Observes successful writes (benchmarks). */
  onSynced?(direction: 'down' | 'up', gvr: GroupVersionResource, upstream: KubeObject): void;
}

export class Syncer {
  private upstreamInformers: InformerFactory;
  private downstreamInformers: InformerFactory;
  private readonly resources = new Map<string, ResourceSyncer>();
  private mapper?: NamespaceMapper;
  private key = '';
  private uid = '';
  private timers: NodeJS.Timeout[] = [];
  private readonly targetLoop: Controller;
  private stopped = false;
  private readonly warned = new Set<string>();
  /** Hash of the import specs last reconciled upstream successfully, and polls since the last full reconcile. */
  private lastImportHash = '';
  private importPollsSinceFull = 0;

  constructor(readonly opts: SyncerOptions) {
    this.upstreamInformers = new InformerFactory(opts.upstream);
    this.downstreamInformers = new InformerFactory(opts.downstream);
    this.targetLoop = new Controller({ name: `syncer-target-${opts.syncTargetName}`, reconcile: () => this.reconcileTarget() });
  }

  /**
   * The informer of this syncer's own SyncTarget. Selected by name: a workspace with many SyncTargets heartbeating
   * would otherwise stream every one of their status patches to every syncer (100 syncers: 100× the events).
   */
  private targetInformer() {
    return this.upstreamInformers.informerFor<SyncTarget>(syncTargetsGVR, { cluster: this.opts.upstreamCluster, fieldSelector: `metadata.name=${this.opts.syncTargetName}` });
  }

  /** The SyncTarget from the cache. */
  private target(): SyncTarget | undefined {
    return this.targetInformer().lister.get(formatObjectKey({ cluster: this.opts.upstreamCluster, namespace: '', name: this.opts.syncTargetName }));
  }

  /**
   * Waits for the SyncTarget to exist and carry its key label (set by atrium), then starts heartbeats, imports and
   * syncing. Resolves once started; failures after that are retried in the background.
   */
  async start(): Promise<void> {
    const { upstream, upstreamCluster, syncTargetName } = this.opts;
    for (let attempt = 0; !this.stopped; attempt++) {
      try {
        const st = await upstream.get<SyncTarget>(syncTargetsGVR, syncTargetName, { cluster: upstreamCluster });
        const key = st.metadata?.labels?.[SYNC_TARGET_KEY_LABEL];
        if (key) {
          this.key = key;
          this.uid = st.metadata!.uid!;
          break;
        }
      } catch (err) {
        if (attempt % 20 === 0) logger.warn('syncer: waiting for the SyncTarget', { syncTarget: syncTargetName, error: (err as Error).message });
      }
      await new Promise((r) => setTimeout(r, Math.min(2000, 100 * 2 ** Math.min(attempt, 5))));
    }
    if (this.stopped) return;
    const st = this.targetInformer();
    const mine = (o: KubeObject) => o.metadata?.name === syncTargetName;
    st.addEventHandler({ add: (o) => mine(o) && this.targetLoop.enqueue('target'), update: (_o, n) => mine(n) && this.targetLoop.enqueue('target'), delete: (o) => mine(o) && this.targetLoop.enqueue('target') });
    this.mapper = new NamespaceMapper({
      upstreamCluster,
      logicalCluster: upstreamCluster,
      downstream: this.opts.downstream,
      upstreamInformers: this.upstreamInformers,
      downstreamInformers: this.downstreamInformers,
      syncTarget: { cluster: upstreamCluster, name: syncTargetName, uid: this.uid },
      key: this.key,
      mapping: (await upstream.get<SyncTarget>(syncTargetsGVR, syncTargetName, { cluster: upstreamCluster })).spec?.namespaceMapping ?? 'Hashed',
    });
    this.mapper.upstream.addEventHandler({ update: (_o, n) => this.onNamespaceChange(n), add: (n) => this.onNamespaceChange(n) });
    this.upstreamInformers.start();
    this.downstreamInformers.start();
    this.targetLoop.start();
    const every = (ms: number, fn: () => Promise<void>) => {
      let running = false;
      const tick = () => {
        if (running || this.stopped) return;
        running = true;
        fn()
          .catch((err) => logger.warn('syncer: periodic task failed', { syncTarget: syncTargetName, error: (err as Error).message }))
          .finally(() => (running = false));
      };
      tick();
      const t = setInterval(tick, ms);
      t.unref?.();
      this.timers.push(t);
    };
    every(this.opts.heartbeatIntervalMs ?? 20_000, () => this.heartbeat());
    every(this.opts.importPollIntervalMs ?? 30_000, () => this.importAPIs());
    logger.info('syncer started', { syncTarget: syncTargetName, cluster: upstreamCluster, key: this.key });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    await this.targetLoop.stop();
    await Promise.all([...this.resources.values()].map((r) => r.stop()));
    await this.upstreamInformers.stop();
    await this.downstreamInformers.stop();
  }

  /** Names of the resources being synced now (`deployments.apps`, ...). */
  syncing(): string[] {
    return [...this.resources.keys()].sort();
  }

  private onNamespaceChange(ns: KubeObject): void {
    for (const r of this.resources.values()) r.enqueueAll(ns.metadata?.name);
  }

  private async heartbeat(): Promise<void> {
    const nodes = await this.opts.downstream.list(nodesGVR);
    const { capacity, allocatable } = sumNodeResources(nodes.items);
    await this.opts.upstream.patch(
      syncTargetsGVR,
      this.opts.syncTargetName,
      'json',
      [
        { op: 'test', path: '/metadata/uid', value: this.uid },
        { op: 'add', path: '/status/lastSyncerHeartbeatTime', value: nowRFC3339() },
        { op: 'add', path: '/status/capacity', value: capacity },
        { op: 'add', path: '/status/allocatable', value: allocatable },
      ],
      { cluster: this.opts.upstreamCluster, subresource: 'status' },
    );
  }

  private async importAPIs(): Promise<void> {
    // The first poll runs at start, before the SyncTarget informer has listed: without this wait the first import
    // (and so type negotiation and syncing) would only happen one poll interval (30 s) later.
    await this.targetInformer().waitForSync();
    const st = this.target();
    if (!st || st.metadata?.deletionTimestamp) return;
    const specs = await readDownstreamImports(this.opts.downstream, this.opts.syncTargetName, resourcesOf(st));
    const hash = contentHash([st.metadata?.uid, specs]);
    if (hash === this.lastImportHash && ++this.importPollsSinceFull < IMPORT_FULL_RECONCILE_EVERY) return;
    this.lastImportHash = '';
    await reconcileImports({ upstream: this.opts.upstream, upstreamCluster: this.opts.upstreamCluster, downstream: this.opts.downstream, syncTargetName: this.opts.syncTargetName, syncTargetUID: this.uid, syncTargetKey: this.key }, specs);
    this.lastImportHash = hash;
    this.importPollsSinceFull = 0;
  }

  private async reconcileTarget(): Promise<{ requeueAfterMs: number } | void> {
    const st = this.target();
    if (!st) return;
    if (st.metadata?.deletionTimestamp) return this.drain(st);
    const wanted = new Map<string, { version: string }>();
    for (const r of st.status?.syncedResources ?? []) {
      const name = r.group ? `${r.resource}.${r.group}` : r.resource;
      if (r.state === 'Accepted' && resourcesOf(st).includes(name) && r.versions[0]) wanted.set(name, { version: r.versions[0] });
    }
    let retry = false;
    for (const [name, { version }] of wanted) {
      if (this.resources.has(name)) continue;
      const gr = parseGroupResource(name);
      const gvr = { ...gr, version };
      const served = await this.upstreamServes(gvr);
      if (!served) {
        retry = true;
        continue;
      }
      const syncer = new ResourceSyncer({
        gvr,
        namespaced: served.namespaced,
        hasStatus: served.hasStatus,
        upstream: this.opts.upstream,
        upstreamCluster: this.opts.upstreamCluster,
        downstream: this.opts.downstream,
        upstreamInformers: this.upstreamInformers,
        downstreamInformers: this.downstreamInformers,
        target: { name: this.opts.syncTargetName, key: this.key },
        namespaces: this.mapper!,
        workloadAssignedIn: (ns) => [...this.resources.values()].some((r) => !followerResources.has(r.resource) && r.hasAssignedIn(ns)),
        recordWarning: (obj, reason, message) => void this.recordWarning(gvr, obj, reason, message),
        onSynced: this.opts.onSynced ? (d, o) => this.opts.onSynced!(d, gvr, o) : undefined,
        workers: this.opts.workersPerResource,
      });
      if (!followerResources.has(gr.resource)) {
        // A workload changing assignment may pull its namespace's ConfigMaps, Secrets and ServiceAccounts along.
        const poke = (o: KubeObject) => {
          for (const r of this.resources.values()) if (followerResources.has(r.resource)) r.enqueueAll(o.metadata?.namespace);
        };
        syncer.upstreamInformer.addEventHandler({ add: poke, update: (_o, n) => poke(n), delete: poke });
      }
      this.resources.set(name, syncer);
      syncer.start();
      logger.info('syncer: syncing resource', { syncTarget: this.opts.syncTargetName, resource: name, version });
    }
    for (const [name, r] of this.resources) {
      if (wanted.has(name)) continue;
      await r.stop();
      this.resources.delete(name);
      logger.info('syncer: stopped syncing resource', { syncTarget: this.opts.syncTargetName, resource: name });
    }
    if (retry) return { requeueAfterMs: 500 };
  }

  /** Whether atrium serves `gvr` in the workspace yet (a negotiated CRD may still be establishing). */
  private async upstreamServes(gvr: GroupVersionResource): Promise<{ namespaced: boolean; hasStatus: boolean } | undefined> {
    const path = `/clusters/${this.opts.upstreamCluster}` + (gvr.group ? `/apis/${gvr.group}/${gvr.version}` : `/api/${gvr.version}`);
    try {
      const list = (await this.opts.upstream.call('GET', path)) as { resources?: { name: string; namespaced: boolean }[] };
      const main = list.resources?.find((r) => r.name === gvr.resource);
      if (!main) return undefined;
      return { namespaced: main.namespaced, hasStatus: !!list.resources?.some((r) => r.name === `${gvr.resource}/status`) };
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return undefined;
      throw err;
    }
  }

  /** Deletion of the SyncTarget: tear down (or orphan) downstream, release upstream finalizers, then report. */
  private async drain(st: SyncTarget): Promise<{ requeueAfterMs: number } | void> {
    if (st.metadata?.annotations?.[CLEANUP_DONE_ANNOTATION]) return;
    const orphan = st.spec?.deletionPolicy === 'Orphan';
    for (const r of this.resources.values()) {
      if (!r.draining) {
        r.draining = true;
        r.orphanOnDrain = orphan;
        r.enqueueAll();
      }
    }
    const left = [...this.resources.values()].map((r) => r.remaining());
    if (left.some((l) => l.downstream > 0 || l.upstreamFinalized > 0)) return { requeueAfterMs: 300 };
    // Downstream namespaces we created: deleted with their content, or left in place without our label.
    const namespaces = await this.opts.downstream.list(namespacesGVR, {}, { labelSelector: `${DOWNSTREAM_CLUSTER_LABEL}=${this.key}` });
    for (const ns of namespaces.items) {
      try {
        if (orphan) {
          const labels = { ...(ns.metadata?.labels ?? {}) };
          delete labels[DOWNSTREAM_CLUSTER_LABEL];
          await this.opts.downstream.update(namespacesGVR, { ...ns, metadata: { ...ns.metadata, labels } });
        } else await this.opts.downstream.delete(namespacesGVR, ns.metadata!.name!);
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 404)) throw err;
      }
    }
    await this.opts.upstream.patch(syncTargetsGVR, this.opts.syncTargetName, 'merge', { metadata: { annotations: { [CLEANUP_DONE_ANNOTATION]: nowRFC3339() } } }, { cluster: this.opts.upstreamCluster });
    logger.info('syncer: drained', { syncTarget: this.opts.syncTargetName, policy: orphan ? 'Orphan' : 'Delete' });
  }

  private async recordWarning(gvr: GroupVersionResource, obj: KubeObject, reason: string, message: string): Promise<void> {
    const dedupe = `${obj.metadata?.uid}|${reason}|${message}`;
    if (this.warned.has(dedupe)) return;
    this.warned.add(dedupe);
    const ns = obj.metadata?.namespace ?? 'default';
    const now = nowRFC3339();
    try {
      await this.opts.upstream.create(
        eventsGVR,
        {
          apiVersion: 'v1',
          kind: 'Event',
          // Named as client-go's recorder names them (`<object>.<unique hex>`); a generateName ending in '.' is invalid.
          metadata: { name: `${obj.metadata?.name}.${(Date.now() * 1000 + Math.floor(Math.random() * 1000)).toString(16)}`, namespace: ns },
          involvedObject: { apiVersion: gvr.group ? `${gvr.group}/${gvr.version}` : gvr.version, kind: obj.kind, name: obj.metadata?.name, namespace: obj.metadata?.namespace, uid: obj.metadata?.uid },
          reason,
          message: `${message} (SyncTarget ${this.opts.syncTargetName})`,
          type: 'Warning',
          source: { component: `syncer-${this.opts.syncTargetName}` },
          firstTimestamp: now,
          lastTimestamp: now,
          count: 1,
        },
        { cluster: this.opts.upstreamCluster },
      );
    } catch (err) {
      logger.warn('syncer: could not record event', { error: (err as Error).message });
    }
  }
}
