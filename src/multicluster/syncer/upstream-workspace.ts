/**
 * One upstream workspace a syncer syncs: the SyncTarget's own workspace, or a consumer workspace whose Placement
 * names the SyncTarget's workspace as its locationWorkspace (listed by the scheduler in CONSUMER_CLUSTERS_ANNOTATION).
 * Each has its own namespace mapper (locators carry the workspace, so downstream namespaces never collide) and one
 * ResourceSyncer per synced resource; the downstream informers are shared by all of them (one watch per resource,
 * selected by the SyncTarget's key).
 *
 * Consumer workspaces sync namespaced resources only: a cluster-scoped object has no namespace locator that would
 * tell which workspace it came from.
 */
import type { KubeObject } from '../../apimachinery/object.js';
import { StatusError } from '../../apimachinery/status.js';
import type { InformerFactory } from '../../client/informer-factory.js';
import type { EventHandler } from '../../client/informer.js';
import type { GroupVersionResource } from '../../client/resource.js';
import type { RestClient } from '../../client/rest-client.js';
import { logger } from '../../logging/logger.js';
import { followerResources, parseGroupResource, type NamespaceMapping } from '../api/types.js';
import { NamespaceMapper } from './namespace-mapper.js';
import { DependencyGate } from './dependency-gate.js';
import { ResourceSyncer } from './resource-syncer.js';
import { DownstreamPriorityClasses } from './priority-classes.js';
import { DownstreamVolumes } from './workspace-volumes.js';
import { WorkspaceMirrors } from './workspace-mirrors.js';

export interface UpstreamWorkspaceDeps {
  /** The workspace's logical cluster name. */
  cluster: string;
  /** Whether this is the SyncTarget's own workspace (cluster-scoped resources sync only from there). */
  own: boolean;
  upstream: RestClient;
  downstream: RestClient;
  upstreamInformers: InformerFactory;
  downstreamInformers: InformerFactory;
  syncTarget: { cluster: string; name: string; uid: string };
  key: string;
  mapping: NamespaceMapping;
  workersPerResource?: number;
  recordWarning(cluster: string, gvr: GroupVersionResource, obj: KubeObject, reason: string, message: string): void;
  onSynced?(direction: 'down' | 'up', gvr: GroupVersionResource, upstream: KubeObject): void;
}

export class UpstreamWorkspace {
  readonly mapper: NamespaceMapper;
  private readonly resources = new Map<string, ResourceSyncer>();
  /** The resources the last ensure() was told are to be synced, accepted or not yet (some have no syncer yet). */
  private upcoming: ReadonlySet<string> = new Set();
  private started = false;
  /** Tearing down: resource syncers (also those created later) delete or release, and never sync anything new. */
  private draining = false;
  private orphanOnDrain = false;
  private readonly namespaceHandler: EventHandler<KubeObject>;
  /** The handlers re-examining followers, per workload resource syncer (on an informer that may be shared). */
  private readonly pokes = new Map<ResourceSyncer, EventHandler<KubeObject>>();
  /** The last ensure() started a syncer for every wanted resource (a drain can only finish after that). */
  private complete = false;
  /** The mirrors of what the cluster runs for this workspace (pods, a CronJob's Jobs, events). */
  private readonly mirrors: WorkspaceMirrors;

  /** The workspace's PriorityClasses its synced pods name, made on the cluster (one per workspace: shared cache). */
  private readonly priorityClasses: DownstreamPriorityClasses;
  /** The copies of the workspace's own volumes its synced claims are bound to. */
  private readonly volumes: DownstreamVolumes;

  constructor(private readonly deps: UpstreamWorkspaceDeps) {
    this.priorityClasses = new DownstreamPriorityClasses(deps.upstream, deps.cluster, deps.downstream);
    this.volumes = new DownstreamVolumes(deps.upstream, deps.cluster, deps.downstream, deps.key, deps.syncTarget.name);
    this.mapper = new NamespaceMapper({
      upstreamCluster: deps.cluster,
      logicalCluster: deps.cluster,
      downstream: deps.downstream,
      upstreamInformers: deps.upstreamInformers,
      downstreamInformers: deps.downstreamInformers,
      syncTarget: deps.syncTarget,
      key: deps.key,
      mapping: deps.mapping,
    });
    this.mirrors = new WorkspaceMirrors({
      upstream: deps.upstream,
      upstreamCluster: deps.cluster,
      downstream: deps.downstream,
      upstreamInformers: deps.upstreamInformers,
      downstreamInformers: deps.downstreamInformers,
      namespaces: this.mapper,
      cluster: { name: deps.syncTarget.name, key: deps.key, ...(deps.own ? {} : { syncTargetCluster: deps.syncTarget.cluster }) },
      cached: (resource) => this.resources.get(resource)?.cachedUpstream(),
    });
    const onNamespace = (ns: KubeObject) => {
      for (const r of this.resources.values()) r.enqueueAll(ns.metadata?.name);
    };
    // Only what assignment reads of a namespace (isAssigned, awaitsPlacement, wants): its labels, whether it is
    // placed, whether it is going. Other annotations (the splitter's children mark) change nothing here, and each
    // update re-examined every object of the namespace in every resource.
    this.namespaceHandler = { add: onNamespace, update: (o, n) => (assignmentFacts(o) === assignmentFacts(n) ? undefined : onNamespace(n)) };
    this.mapper.upstream.addEventHandler(this.namespaceHandler);
  }

  get cluster(): string {
    return this.deps.cluster;
  }

  /** Starts the namespace informer (the factories start informers created after they started). */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.mapper.upstream.start();
    this.mapper.downstream.start();
  }

  /** Names of the resources being synced (`deployments.apps`, ...). */
  syncing(): string[] {
    return [...this.resources.keys()];
  }

  /**
   * Starts a ResourceSyncer for every wanted resource this workspace serves and stops those no longer wanted.
   * `upcoming` names the resources the target is to sync once accepted (the wanted ones among them): a workload waits
   * for the syncer of a follower resource it names while that is still coming (dependency-gate.ts).
   * Returns true when a wanted resource is not served here yet (the caller looks again shortly).
   */
  async ensure(wanted: ReadonlyMap<string, { version: string }>, upcoming: ReadonlySet<string> = new Set(wanted.keys())): Promise<boolean> {
    this.complete = false;
    this.upcoming = upcoming;
    let retry = false;
    for (const [name, { version }] of wanted) {
      if (this.resources.has(name)) continue;
      const gvr = { ...parseGroupResource(name), version };
      const served = await this.serves(gvr);
      if (!served) {
        retry = true;
        continue;
      }
      if (!served.namespaced && !this.deps.own) continue;
      const syncer = new ResourceSyncer({
        gvr,
        namespaced: served.namespaced,
        hasStatus: served.hasStatus,
        upstream: this.deps.upstream,
        upstreamCluster: this.deps.cluster,
        downstream: this.deps.downstream,
        upstreamInformers: this.deps.upstreamInformers,
        downstreamInformers: this.deps.downstreamInformers,
        target: { name: this.deps.syncTarget.name, key: this.deps.key, consumer: !this.deps.own },
        namespaces: this.mapper,
        workloadAssignedIn: (ns) => [...this.resources.values()].some((r) => !followerResources.has(r.resource) && r.hasAssignedIn(ns)),
        recordWarning: (obj, reason, message) => this.deps.recordWarning(this.deps.cluster, gvr, obj, reason, message),
        onSynced: this.deps.onSynced ? (d, o) => this.deps.onSynced!(d, gvr, o) : undefined,
        workers: this.deps.workersPerResource,
        priorityClasses: this.priorityClasses,
        volumes: this.volumes,
        dependencies: followerResources.has(gvr.resource) ? undefined : new DependencyGate(name, (resource) => this.resources.get(resource) ?? (this.upcoming.has(resource) ? 'starting' : undefined)),
      });
      if (!followerResources.has(gvr.resource)) {
        // A workload changing assignment may pull its namespace's ConfigMaps, Secrets and ServiceAccounts along.
        const poke = (o: KubeObject) => {
          // In a placed namespace followers carry their own decision (the placement controller's state labels), so a
          // workload's change there moves none of them.
          const ns = o.metadata?.namespace ? this.mapper.upstreamNamespace(o.metadata.namespace) : undefined;
          if (ns?.metadata?.annotations?.[SPLIT_WORKLOADS_ANNOTATION] === 'true') return;
          for (const r of this.resources.values()) if (followerResources.has(r.resource)) r.enqueueAll(o.metadata?.namespace);
        };
        const handler: EventHandler<KubeObject> = { add: poke, update: (_o, n) => poke(n), delete: poke };
        syncer.upstreamInformer.addEventHandler(handler);
        this.pokes.set(syncer, handler);
      }
      this.resources.set(name, syncer);
      syncer.draining = this.draining;
      syncer.orphanOnDrain = this.orphanOnDrain;
      syncer.start();
      logger.info('syncer: syncing resource', { syncTarget: this.deps.syncTarget.name, workspace: this.deps.cluster, resource: name, version });
    }
    for (const [name, r] of this.resources) {
      if (wanted.has(name)) continue;
      await this.stopResource(r);
      this.resources.delete(name);
      logger.info('syncer: stopped syncing resource', { syncTarget: this.deps.syncTarget.name, workspace: this.deps.cluster, resource: name });
    }
    // Mirrors need the types served upstream: pods (and events with them) once pods sync, a CronJob's Jobs once
    // jobs and cronjobs do, a whole Deployment's ReplicaSets once deployments and replicasets do (and pods, which they
    // own), a StatefulSet's claims once persistentvolumeclaims and statefulsets do.
    const has = (r: string) => this.resources.has(r);
    await this.mirrors.ensure({
      pods: has('pods'),
      jobs: has('jobs.batch') && has('cronjobs.batch'),
      replicaSets: has('pods') && has('deployments.apps') && has('replicasets.apps'),
      claims: has('persistentvolumeclaims') && has('statefulsets.apps'),
    });
    this.complete = !retry;
    return retry;
  }

  /**
   * Tears down what was synced from this workspace: every resource stops syncing new objects and deletes (or, with
   * `orphan`, releases) its downstream copies, releasing the upstream finalizers. Returns true once nothing is left.
   */
  drain(orphan: boolean): boolean {
    this.draining = true;
    this.orphanOnDrain = orphan;
    for (const r of this.resources.values()) {
      if (!r.draining) {
        r.draining = true;
        r.orphanOnDrain = orphan;
        r.enqueueAll();
      }
    }
    // Mirrors go too: the cluster no longer runs anything for this workspace.
    const mirrorsLeft = !this.mirrors.drain(true);
    // Done only when every wanted resource has a syncer whose caches are complete and hold nothing of ours: counting
    // on a cache that has not listed yet (or a resource not started) would end the drain with finalizers left upstream.
    return (
      this.complete &&
      !mirrorsLeft &&
      [...this.resources.values()].every((r) => {
        if (!r.synced()) return false;
        const left = r.remaining();
        return left.downstream === 0 && left.upstreamFinalized === 0;
      })
    );
  }

  /** Whether some object of this workspace is held here by its own assignment alone (transform.ts heldOver). */
  holdsOver(): boolean {
    return [...this.resources.values()].some((r) => r.holdsOver());
  }

  /** Whether a drain was started (and not called off by resume()). */
  get isDraining(): boolean {
    return this.draining;
  }

  /** Calls a drain off (the workspace is placed here again): every resource syncs as before. */
  resume(): void {
    if (!this.draining) return;
    this.draining = false;
    this.mirrors.drain(false);
    for (const r of this.resources.values()) {
      r.draining = false;
      r.orphanOnDrain = false;
      r.enqueueAll();
    }
  }

  async stop(): Promise<void> {
    await this.mirrors.stop();
    await Promise.all([...this.resources.values()].map((r) => this.stopResource(r)));
    this.resources.clear();
    // The upstream factory may be shared (push mode): the namespace informer is given back, not left to a stop of
    // the factory, and without this workspace's handler.
    this.mapper.upstream.removeEventHandler(this.namespaceHandler);
    await this.deps.upstreamInformers.drop(this.mapper.upstream);
  }

  /** Stops one resource syncer, and its follower handler with it. */
  private async stopResource(r: ResourceSyncer): Promise<void> {
    const poke = this.pokes.get(r);
    if (poke) r.upstreamInformer.removeEventHandler(poke);
    this.pokes.delete(r);
    await r.stop();
  }

  /**
   * Whether atrium serves `gvr` in this workspace yet (a negotiated CRD may still be establishing; the workload types
   * are served once the workspace has compute).
   */
  private async serves(gvr: GroupVersionResource): Promise<{ namespaced: boolean; hasStatus: boolean } | undefined> {
    const path = `/clusters/${this.deps.cluster}` + (gvr.group ? `/apis/${gvr.group}/${gvr.version}` : `/api/${gvr.version}`);
    try {
      const list = (await this.deps.upstream.call('GET', path)) as { resources?: { name: string; namespaced: boolean }[] };
      const main = list.resources?.find((r) => r.name === gvr.resource);
      if (!main) return undefined;
      return { namespaced: main.namespaced, hasStatus: !!list.resources?.some((r) => r.name === `${gvr.resource}/status`) };
    } catch (err) {
      if (err instanceof StatusError && (err.code === 404 || err.code === 403 || err.code === 401)) return undefined;
      throw err;
    }
  }
}

const SPLIT_WORKLOADS_ANNOTATION = 'scheduling.atrium.io/split-workloads';

/** What of an upstream namespace decides its objects' assignment here. */
function assignmentFacts(ns: KubeObject): string {
  return JSON.stringify([ns.metadata?.labels ?? {}, ns.metadata?.annotations?.[SPLIT_WORKLOADS_ANNOTATION], ns.metadata?.deletionTimestamp]);
}
