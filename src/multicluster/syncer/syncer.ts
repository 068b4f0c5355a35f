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
import type { EventHandler, Informer } from '../../client/informer.js';
import type { GroupVersionResource } from '../../client/resource.js';
import type { RestClient } from '../../client/rest-client.js';
import { formatObjectKey } from '../../client/store.js';
import { Controller } from '../../controllers/runtime/controller.js';
import { logger } from '../../logging/logger.js';
import { locatorOf } from '../api/keys.js';
import { CONSUMER_CLUSTERS_ANNOTATION, DOWNSTREAM_CLUSTER_LABEL, eventsGVR, namespacesGVR, nodesGVR, resourcesOf, SYNC_TARGET_KEY_LABEL, syncTargetsGVR, type NamespaceMapping, type SyncTarget } from '../api/types.js';
import { readDownstreamImports, reconcileImports } from './api-importer.js';
import { sumNodeResources } from './capacity.js';
import { UpstreamWorkspace } from './upstream-workspace.js';
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
  /**
   * Upstream informers shared with others over the same `upstream` client (push mode: atrium's controllers and the
   * other push syncers), already started; the syncer takes its informers from it and gives them back on stop, and
   * never stops it. Without it the syncer has its own. Shared, N push syncers of a workspace cost one watch per
   * resource instead of N (each event encoded, sent and parsed once, each object cached once).
   */
  upstreamInformers?: InformerFactory;
}

export class Syncer {
  private upstreamInformers: InformerFactory;
  /** The upstream informers are someone else's (SyncerOptions.upstreamInformers): given back, never stopped. */
  private readonly sharedUpstream: boolean;
  private stInformer?: Informer<SyncTarget>;
  private stHandler?: EventHandler<SyncTarget>;
  private downstreamInformers: InformerFactory;
  /** The upstream workspaces synced: the SyncTarget's own, and consumer workspaces placed onto it. */
  private readonly workspaces = new Map<string, UpstreamWorkspace>();
  /** Workspaces whose last attempt failed, and when to try them again. */
  private readonly failingWorkspaces = new Map<string, { failures: number; retryAt: number }>();
  private mapping: NamespaceMapping = 'Hashed';
  private key = '';
  private uid = '';
  private timers: NodeJS.Timeout[] = [];
  private readonly targetLoop: Controller;
  private stopped = false;
  private readonly warned = new Set<string>();
  /** Hash of the import specs last reconciled upstream successfully, and polls since the last full reconcile. */
  private lastImportHash = '';
  /** Hash of what the last import read from: the SyncTarget's identity and resources, the cluster's OpenAPI root. */
  private lastImportInputs = '';
  private importPollsSinceFull = 0;

  constructor(readonly opts: SyncerOptions) {
    this.sharedUpstream = opts.upstreamInformers !== undefined;
    this.upstreamInformers = opts.upstreamInformers ?? new InformerFactory(opts.upstream);
    this.downstreamInformers = new InformerFactory(opts.downstream);
    this.targetLoop = new Controller({ name: `syncer-target-${opts.syncTargetName}`, reconcile: () => this.reconcileTarget() });
  }

  /**
   * The informer of this syncer's own SyncTarget. Selected by name: a workspace with many SyncTargets heartbeating
   * would otherwise stream every one of their status patches to every syncer (100 syncers: 100× the events).
   */
  private targetInformer(): Informer<SyncTarget> {
    // Asked for once: each informerFor() is a hold the factory counts until it is given back.
    return (this.stInformer ??= this.upstreamInformers.informerFor<SyncTarget>(syncTargetsGVR, { cluster: this.opts.upstreamCluster, fieldSelector: `metadata.name=${this.opts.syncTargetName}` }));
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
    this.stHandler = { add: (o) => mine(o) && this.targetLoop.enqueue('target'), update: (_o, n) => mine(n) && this.targetLoop.enqueue('target'), delete: (o) => mine(o) && this.targetLoop.enqueue('target') };
    st.addEventHandler(this.stHandler);
    this.mapping = (await upstream.get<SyncTarget>(syncTargetsGVR, syncTargetName, { cluster: upstreamCluster })).spec?.namespaceMapping ?? 'Hashed';
    const own = this.workspace(upstreamCluster);
    // Downstream namespaces name the workspace they came from: a restarted syncer finds consumer workspaces it still
    // has copies of (to finish syncing or cleaning them up) even if the SyncTarget no longer lists them.
    own.mapper.downstream.addEventHandler({ add: () => this.targetLoop.enqueue('target'), delete: () => this.targetLoop.enqueue('target') });
    if (!this.sharedUpstream) this.upstreamInformers.start();
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
    await Promise.all([...this.workspaces.values()].map((w) => w.stop()));
    if (this.stInformer && this.stHandler) this.stInformer.removeEventHandler(this.stHandler);
    if (this.sharedUpstream) {
      if (this.stInformer) await this.upstreamInformers.drop(this.stInformer as unknown as Informer);
    } else await this.upstreamInformers.stop();
    this.stInformer = undefined;
    await this.downstreamInformers.stop();
  }

  /** Names of the resources being synced now from the SyncTarget's own workspace (`deployments.apps`, ...). */
  syncing(): string[] {
    return (this.workspaces.get(this.opts.upstreamCluster)?.syncing() ?? []).sort();
  }

  /** The logical clusters synced now: the SyncTarget's own first, then consumer workspaces. */
  syncedWorkspaces(): string[] {
    return [...this.workspaces.keys()];
  }

  /** The unit for an upstream workspace, created (and started) on first use. */
  private workspace(cluster: string): UpstreamWorkspace {
    let w = this.workspaces.get(cluster);
    if (!w) {
      w = new UpstreamWorkspace({
        cluster,
        own: cluster === this.opts.upstreamCluster,
        upstream: this.opts.upstream,
        downstream: this.opts.downstream,
        upstreamInformers: this.upstreamInformers,
        downstreamInformers: this.downstreamInformers,
        syncTarget: { cluster: this.opts.upstreamCluster, name: this.opts.syncTargetName, uid: this.uid },
        key: this.key,
        mapping: this.mapping,
        workersPerResource: this.opts.workersPerResource,
        recordWarning: (c, gvr, obj, reason, message) => void this.recordWarning(c, gvr, obj, reason, message),
        onSynced: this.opts.onSynced,
      });
      this.workspaces.set(cluster, w);
      w.start();
    }
    return w;
  }

  /**
   * Consumer workspaces to sync: those the scheduler lists on the SyncTarget, plus those downstream namespaces still
   * come from (copies left to clean up after a workspace stopped placing work here, also across restarts).
   */
  private consumerWorkspaces(st: SyncTarget): { listed: Set<string>; leftovers: Set<string> } {
    const listed = new Set<string>();
    const annotation = st.metadata?.annotations?.[CONSUMER_CLUSTERS_ANNOTATION];
    if (annotation && this.mapping === 'SameName') {
      // Same-name namespace mapping cannot keep workspaces apart downstream (two workspaces' `prod` would be one
      // namespace there): such a SyncTarget syncs its own workspace only.
      if (!this.warned.has('same-name-consumers')) {
        this.warned.add('same-name-consumers');
        logger.warn('syncer: other workspaces are placed here, but namespaceMapping SameName cannot keep them apart; syncing the own workspace only', { syncTarget: this.opts.syncTargetName });
      }
    } else if (annotation) {
      try {
        const value = JSON.parse(annotation) as unknown;
        if (Array.isArray(value)) for (const c of value) if (typeof c === 'string' && c && c !== this.opts.upstreamCluster) listed.add(c);
      } catch {
        logger.warn('syncer: unreadable consumer list on the SyncTarget', { syncTarget: this.opts.syncTargetName, annotation: CONSUMER_CLUSTERS_ANNOTATION });
      }
    }
    const leftovers = new Set<string>();
    const own = this.workspaces.get(this.opts.upstreamCluster);
    for (const ns of own?.mapper.downstream.lister.list() ?? []) {
      const l = ns.metadata?.deletionTimestamp ? undefined : locatorOf(ns);
      if (l && l.syncTarget.name === this.opts.syncTargetName && l.cluster !== this.opts.upstreamCluster && !listed.has(l.cluster)) leftovers.add(l.cluster);
    }
    return { listed, leftovers };
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
    // The cluster's OpenAPI v3 root lists every group-version with the hash of its document: while neither it nor
    // what the SyncTarget asks for changed, the schemas are what was imported last time, and reading discovery and
    // every schema again (most of an idle syncer's CPU, and of its cluster's) can wait for the next full reconcile.
    const inputs = contentHash([st.metadata?.uid, resourcesOf(st), await this.openAPIRoot()]);
    if (inputs === this.lastImportInputs && this.lastImportHash && ++this.importPollsSinceFull < IMPORT_FULL_RECONCILE_EVERY) return;
    const specs = await readDownstreamImports(this.opts.downstream, this.opts.syncTargetName, resourcesOf(st));
    const hash = contentHash([st.metadata?.uid, specs]);
    if (hash === this.lastImportHash && ++this.importPollsSinceFull < IMPORT_FULL_RECONCILE_EVERY) {
      this.lastImportInputs = inputs;
      return;
    }
    this.lastImportHash = '';
    await reconcileImports({ upstream: this.opts.upstream, upstreamCluster: this.opts.upstreamCluster, downstream: this.opts.downstream, syncTargetName: this.opts.syncTargetName, syncTargetUID: this.uid, syncTargetKey: this.key }, specs);
    this.lastImportHash = hash;
    this.lastImportInputs = inputs;
    this.importPollsSinceFull = 0;
  }

  /** The cluster's OpenAPI v3 root (group-version → document URL with its hash); undefined if it serves none. */
  private async openAPIRoot(): Promise<unknown> {
    try {
      return ((await this.opts.downstream.call('GET', '/openapi/v3')) as { paths?: unknown }).paths;
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return undefined;
      throw err;
    }
  }

  private async reconcileTarget(): Promise<{ requeueAfterMs: number } | void> {
    const st = this.target();
    if (!st) return;
    if (st.metadata?.deletionTimestamp) return this.drain(st);
    const wanted = new Map<string, { version: string }>();
    // What is still to be accepted (not refused as Incompatible): workloads wait for those followers' syncers too
    // (dependency-gate.ts).
    const upcoming = new Set(resourcesOf(st));
    for (const r of st.status?.syncedResources ?? []) {
      const name = r.group ? `${r.resource}.${r.group}` : r.resource;
      if (r.state === 'Accepted' && resourcesOf(st).includes(name) && r.versions[0]) wanted.set(name, { version: r.versions[0] });
      if (r.state === 'Incompatible') upcoming.delete(name);
    }
    let retry = false;
    const { listed, leftovers } = this.consumerWorkspaces(st);
    const now = Date.now();
    for (const cluster of [this.opts.upstreamCluster, ...listed]) {
      const failing = this.failingWorkspaces.get(cluster);
      if (failing && failing.retryAt > now) {
        retry = true;
        continue;
      }
      try {
        const w = this.workspace(cluster);
        w.resume(); // placed here again while its drain was under way
        if (await w.ensure(wanted, upcoming)) retry = true;
        this.failingWorkspaces.delete(cluster);
      } catch (err) {
        // One workspace failing (e.g. credentials that do not reach it: a pull-mode ServiceAccount token is valid in
        // its own workspace only) does not stop the others; it is tried again with a growing delay, up to a minute.
        const failures = (failing?.failures ?? 0) + 1;
        this.failingWorkspaces.set(cluster, { failures, retryAt: now + Math.min(60_000, 500 * 2 ** Math.min(failures, 7)) });
        if (failures === 1 || failures % 10 === 0) logger.warn('syncer: cannot sync workspace yet', { syncTarget: this.opts.syncTargetName, workspace: cluster, failures, error: (err as Error).message });
        retry = true;
      }
    }
    // Workspaces no longer placed here: their copies are removed (their objects are no longer assigned), then the
    // downstream namespaces made for them, then the unit goes.
    for (const [cluster, w] of this.workspaces) {
      if (cluster === this.opts.upstreamCluster || listed.has(cluster)) continue;
      leftovers.delete(cluster);
      // The workspace's last namespace here is moving away, but what it moves (a split child being scaled down, the
      // Services it uses) is still held here until the new cluster runs it (transform.ts heldOver): the workspace
      // keeps syncing, so those copies stay, and is drained once nothing is held any more.
      if (!w.isDraining && w.holdsOver()) {
        retry = true;
        continue;
      }
      if (!w.drain(false)) {
        retry = true;
        continue;
      }
      if (!(await this.deleteDownstreamNamespaces(cluster, false))) {
        retry = true;
        continue;
      }
      await w.stop();
      this.workspaces.delete(cluster);
      logger.info('syncer: stopped syncing workspace', { syncTarget: this.opts.syncTargetName, workspace: cluster });
    }
    for (const cluster of leftovers) {
      // Copies from a workspace not listed (any more), found through the locators of downstream namespaces (e.g.
      // after a restart): its unit only ever tears down — draining before any resource syncer exists, so nothing of
      // that workspace is synced on the word of a namespace in the physical cluster.
      try {
        const w = this.workspace(cluster);
        w.drain(false);
        await w.ensure(wanted);
        retry = true;
      } catch (err) {
        logger.warn('syncer: cannot clean up workspace yet', { syncTarget: this.opts.syncTargetName, workspace: cluster, error: (err as Error).message });
        retry = true;
      }
    }
    if (retry) return { requeueAfterMs: 500 };
  }

  /**
   * Deletes (or, with `orphan`, unlabels) the downstream namespaces this syncer made for `cluster` (every workspace
   * when undefined). Returns true once none is left.
   */
  private async deleteDownstreamNamespaces(cluster: string | undefined, orphan: boolean): Promise<boolean> {
    const namespaces = await this.opts.downstream.list(namespacesGVR, {}, { labelSelector: `${DOWNSTREAM_CLUSTER_LABEL}=${this.key}` });
    let left = 0;
    for (const ns of namespaces.items) {
      if (cluster !== undefined && locatorOf(ns)?.cluster !== cluster) continue;
      left++;
      try {
        if (orphan) {
          const labels = { ...(ns.metadata?.labels ?? {}) };
          delete labels[DOWNSTREAM_CLUSTER_LABEL];
          await this.opts.downstream.update(namespacesGVR, { ...ns, metadata: { ...ns.metadata, labels } });
          left--;
        } else if (!ns.metadata?.deletionTimestamp) await this.opts.downstream.delete(namespacesGVR, ns.metadata!.name!);
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 404)) throw err;
        left--;
      }
    }
    return left === 0;
  }

  /** Deletion of the SyncTarget: tear down (or orphan) downstream, release upstream finalizers, then report. */
  private async drain(st: SyncTarget): Promise<{ requeueAfterMs: number } | void> {
    if (st.metadata?.annotations?.[CLEANUP_DONE_ANNOTATION]) return;
    const orphan = st.spec?.deletionPolicy === 'Orphan';
    const drained = [...this.workspaces.values()].map((w) => w.drain(orphan));
    if (drained.some((done) => !done)) return { requeueAfterMs: 300 };
    // Downstream namespaces we created: deleted with their content, or left in place without our label.
    await this.deleteDownstreamNamespaces(undefined, orphan);
    await this.opts.upstream.patch(syncTargetsGVR, this.opts.syncTargetName, 'merge', { metadata: { annotations: { [CLEANUP_DONE_ANNOTATION]: nowRFC3339() } } }, { cluster: this.opts.upstreamCluster });
    logger.info('syncer: drained', { syncTarget: this.opts.syncTargetName, policy: orphan ? 'Orphan' : 'Delete' });
  }

  private async recordWarning(cluster: string, gvr: GroupVersionResource, obj: KubeObject, reason: string, message: string): Promise<void> {
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
        { cluster },
      );
    } catch (err) {
      logger.warn('syncer: could not record event', { error: (err as Error).message });
    }
  }
}
