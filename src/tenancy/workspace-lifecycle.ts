/**
 * The workspace lifecycle controller (kcp's workspace scheduler + logicalcluster initializer + deletion, folded into
 * one reconciler because atrium has one shard):
 *   Scheduling   → chooses a Shard of root as kcp does (spec.location.selector; see shard-scheduling.ts) and, while
 *                  none fits, leaves the workspace in Scheduling with WorkspaceScheduled False (Unschedulable) until
 *                  the Shards or the Workspace change; then picks a logical cluster name, creates its LogicalCluster
 *                  `cluster`, sets spec.cluster and spec.URL (from the shard's externalURL) and, in the same round,
 *                  creates the bootstrap objects (namespaces, the owner's `workspace-admin` binding, every registered
 *                  initializer such as RBAC). Every logical cluster is stored here whichever Shard was chosen: atrium
 *                  is one server, and a Shard other than its own is only labels and a URL to it;
 *   Initializing → waits for the WorkspaceType initializers (kcp's: every type in the chain with
 *                  `initializer: true` adds `<logical cluster of the type>:<name>` to the LogicalCluster's
 *                  spec.initializers and status.initializers); whoever initializes removes its entry from the
 *                  LogicalCluster's status.initializers, and once none is left the workspace turns Ready. Also seen
 *                  after a crash mid-way: re-runs the idempotent bootstrap;
 *   Ready        → nothing to do;
 *   Terminating  → deletes the logical cluster of the workspace and of every workspace below it, then drops the
 *                  finalizer so the Workspace object goes away.
 * It is driven by one wildcard watch over all workspaces (not one per workspace) and keeps no per-workspace state
 * beyond queue entries.
 */
import { setKcpCondition, type StatusCondition } from '../apimachinery/conditions.js';
import type { KubeObject } from '../apimachinery/object.js';
import { nowRFC3339 } from '../apimachinery/object.js';
import { StatusError } from '../apimachinery/status.js';
import { ControllerGate } from '../controllers/controller-gate.js';
import { logger } from '../logging/logger.js';
import { immortalNamespaces } from '../registry/builtin/core.js';
import { LOGICAL_CLUSTER_FINALIZER } from './resources.js';
import { NO_CHANGE, type GenericStore } from '../registry/generic/store.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import type { RequestContext } from '../registry/rest.js';
import { deleteClusterTree } from './logical-cluster-content.js';
import { joinPath, newLogicalClusterName } from './paths.js';
import type { WorkspaceIndex } from './workspace-index.js';
import { OWNER_ANNOTATION, type WorkspaceOwner, ownerOf, workspaceAdminBinding } from './workspace-owner.js';
import { SHARD_ANNOTATION, UNSCHEDULABLE_REASON, applyShardToWorkspace, chooseShard, workspaceURL } from './shard-scheduling.js';
import { PATH_ANNOTATION, TYPE_ANNOTATION, WorkspaceTypeError, qualifiedTypeName, type ResolvedType, type TypeReference, type WorkspaceTypeResolver } from './workspace-types.js';

/**
 * kcp's initialization.InitializerForType: the initializer a WorkspaceType with `initializer: true` puts on the
 * workspaces of its type (and of types extending it), `<logical cluster the type lives in>:<type name>` — the
 * cluster's name, not its path (`root:universal` for root's types, `2x8k…:slow` for a type of root:org).
 */
export function initializerForType(typeCluster: string, typeName: string): string {
  return `${typeCluster}:${typeName}`;
}

/** Creates a new workspace's bootstrap objects in its logical cluster (e.g. RBAC); runs during Initializing. */
export type WorkspaceInitializer = (cluster: string, workspace: KubeObject) => Promise<void>;

/** Who the controller acts as: privileged, like kcp's controllers. */
export function systemContext(cluster: string): RequestContext {
  return { cluster, user: { username: 'system:kcp:tenancy', groups: ['system:masters'] } };
}

/**
 * The same namespaces bootstrapNamespaces creates, created concurrently so they share one durable flush with the
 * other first-round writes (bootstrapNamespaces creates them one after another: three flushes).
 */
async function createDefaultNamespaces(registry: ResourceRegistry, cluster: string): Promise<void> {
  const namespaces = registry.lookup(cluster, '', 'v1', 'namespaces')!;
  await Promise.all(
    immortalNamespaces.map(async (name) => {
      try {
        await namespaces.create(systemContext(cluster), '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { dryRun: false });
      } catch (err) {
        if (!(err instanceof StatusError && err.reason === 'AlreadyExists')) throw err;
      }
    }),
  );
}

function statusOf(o: KubeObject): Record<string, any> {
  return o.status && typeof o.status === 'object' ? (o.status as Record<string, any>) : {};
}
function specOf(o: KubeObject): Record<string, any> {
  return o.spec && typeof o.spec === 'object' ? (o.spec as Record<string, any>) : {};
}

export class WorkspaceLifecycle {
  private readonly pending = new Set<string>();
  private readonly running = new Set<string>();
  private readonly dirty = new Set<string>();
  private active = 0;
  private stopped = false;
  private readonly idleWaiters: (() => void)[] = [];
  readonly initializers: WorkspaceInitializer[] = [];
  /** Resolves a workspace's type chain for its WorkspaceType initializers; without it no workspace waits for any. */
  typeResolver: WorkspaceTypeResolver | undefined;
  /**
   * The Shards of root as last observed (an informer's cache); without it every workspace is scheduled here, on no
   * particular Shard, whatever its spec.location.
   */
  shards: (() => Iterable<KubeObject>) | undefined;
  /**
   * Workspaces (`parent/name`) waiting for a Shard, kcp's `unschedulable` index: re-queued when the Shards change.
   * A key goes in before the Shards are read, so a change landing during that reconcile re-runs it.
   */
  private readonly waitingForShard = new Set<string>();

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly index: WorkspaceIndex,
    private readonly workspaces: GenericStore,
    private readonly logicalClusters: GenericStore,
    private readonly baseURL: () => string,
    private readonly gate: ControllerGate = new ControllerGate(),
    private readonly concurrency = 4,
  ) {}

  /**
   * Queues the Workspace `name` in logical cluster `parent` for reconciliation (deduplicated); nothing while the gate
   * is closed (another replica leads), retries included.
   */
  enqueue(parent: string, name: string): void {
    if (this.stopped || !this.gate.isOpen()) return;
    const key = `${parent}/${name}`;
    if (this.running.has(key)) {
      this.dirty.add(key);
      return;
    }
    this.pending.add(key);
    this.pump();
  }

  stop(): void {
    this.stopped = true;
    this.pending.clear();
  }

  /** The Shards changed (one added, relabelled, annotated, removed): the workspaces waiting for one try again. */
  shardsChanged(): void {
    for (const key of this.waitingForShard) {
      const slash = key.indexOf('/');
      this.enqueue(key.slice(0, slash), key.slice(slash + 1));
    }
  }

  /** Drops queued work (this replica stopped leading); reconciles already running finish. */
  clearPending(): void {
    this.pending.clear();
    this.dirty.clear();
    if (this.active === 0) for (const w of this.idleWaiters.splice(0)) w();
  }

  /** Resolves once nothing is queued or running (tests, benchmarks). */
  idle(): Promise<void> {
    if (this.active === 0 && this.pending.size === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  private pump(): void {
    while (this.active < this.concurrency && this.pending.size > 0 && !this.stopped && this.gate.isOpen()) {
      const key = this.pending.values().next().value as string;
      this.pending.delete(key);
      this.running.add(key);
      this.active++;
      const slash = key.indexOf('/');
      void this.reconcile(key.slice(0, slash), key.slice(slash + 1))
        .catch((err) => {
          logger.error('workspace reconcile failed', { key, error: (err as Error).stack });
          // Retry later rather than hot-looping on a persistent failure.
          setTimeout(() => this.enqueue(key.slice(0, slash), key.slice(slash + 1)), 1000).unref();
        })
        .finally(() => {
          this.running.delete(key);
          this.active--;
          if (this.dirty.delete(key)) this.pending.add(key);
          this.pump();
          if (this.active === 0 && this.pending.size === 0) for (const w of this.idleWaiters.splice(0)) w();
        });
    }
  }

  private async get(parent: string, name: string): Promise<KubeObject | undefined> {
    try {
      return await this.workspaces.get(systemContext(parent), '', name);
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return undefined;
      throw err;
    }
  }

  /** Brings one workspace one or more steps towards its goal; idempotent. */
  async reconcile(parent: string, name: string): Promise<void> {
    const key = `${parent}/${name}`;
    let ws = await this.get(parent, name);
    if (!ws || ws.metadata?.deletionTimestamp || specOf(ws).mount || specOf(ws).cluster) this.waitingForShard.delete(key);
    if (!ws) return;
    if (ws.metadata?.deletionTimestamp) return this.terminate(parent, ws);
    if (specOf(ws).mount) return; // mounted workspaces are served elsewhere; nothing to schedule
    if (!specOf(ws).cluster) {
      let shard: KubeObject | undefined;
      if (this.shards) {
        this.waitingForShard.add(key);
        const choice = chooseShard(ws, this.shards());
        if ('unschedulable' in choice) return this.markUnschedulable(parent, ws, choice.unschedulable);
        this.waitingForShard.delete(key);
        shard = choice.shard;
      }
      await this.schedule(parent, ws, shard);
      return;
    }
    const phase = statusOf(ws).phase;
    if (phase === 'Scheduling' || phase === 'Initializing') await this.initialize(parent, ws);
  }

  /**
   * Scheduling and initialization in two rounds of independent writes issued together, so the storage's group
   * commit turns each round into one durable flush: (1) the LogicalCluster (Initializing), spec.cluster/spec.URL,
   * the default namespaces, the owner's `workspace-admin` binding and the registered initializers; (2) phase Ready
   * on both objects. The Workspace goes from Scheduling straight to Ready (no separate Initializing write): a crash
   * in between leaves spec.cluster set with phase Scheduling, which reconcile() finishes through initialize().
   */
  private async schedule(parent: string, ws: KubeObject, shard: KubeObject | undefined): Promise<void> {
    const name = ws.metadata!.name!;
    const cluster = newLogicalClusterName();
    const initializers = await this.typeInitializers(parent, ws);
    const lc = this.logicalClusterOf(parent, ws, initializers, shard?.metadata?.name);
    const url = shard ? workspaceURL(shard, lc.metadata!.annotations![PATH_ANNOTATION]!) : (lc.status as { URL: string }).URL;
    let scheduledElsewhere = false;
    const results = await Promise.allSettled([
      this.logicalClusters.create(systemContext(cluster), '', lc, { dryRun: false }),
      this.workspaces.guaranteedUpdate(systemContext(parent), '', name, (cur) => {
        // Another reconcile (e.g. a replica that led a moment ago) scheduled it first: its cluster stands.
        const existing = specOf(cur!).cluster;
        if (existing && existing !== cluster) {
          scheduledElsewhere = true;
          throw new Error(`workspace already scheduled to ${existing}`);
        }
        cur!.spec = { ...specOf(cur!), cluster, URL: url };
        if (shard) applyShardToWorkspace(cur!, shard, cluster);
        return cur!;
      }, { dryRun: false }),
      this.bootstrapContent(cluster, ws),
    ]);
    if (scheduledElsewhere) {
      // What this attempt created for its own cluster belongs to nobody: remove it, then finish the winner's.
      await deleteClusterTree(this.registry, cluster);
      if (this.gate.isOpen()) await this.reconcile(parent, name);
      return;
    }
    for (const r of results) if (r.status === 'rejected') throw r.reason;
    this.indexCluster(parent, name, cluster, lc);
    if (initializers.length > 0) await this.markInitializing(parent, name, initializers);
    else await this.markReady(parent, name, cluster);
  }

  /**
   * No Shard takes the workspace (kcp: none selected, every selected one unschedulable, or the selector is invalid): it
   * stays in Scheduling with WorkspaceScheduled False, kcp's reason and message; an unchanged condition is not
   * rewritten.
   */
  private async markUnschedulable(parent: string, ws: KubeObject, message: string): Promise<void> {
    const wanted = { type: 'WorkspaceScheduled', status: 'False', reason: UNSCHEDULABLE_REASON, severity: 'Error', message };
    const same = (st: Record<string, any>) => {
      const c = ((st.conditions ?? []) as StatusCondition[]).find((x) => x.type === wanted.type);
      return st.phase === 'Scheduling' && c?.status === wanted.status && c.reason === wanted.reason && c.severity === wanted.severity && c.message === wanted.message;
    };
    if (same(statusOf(ws))) return;
    await this.workspaces.guaranteedUpdate(systemContext(parent), '', ws.metadata!.name!, (cur) => {
      // Scheduled meanwhile (another replica's reconcile): its status stands.
      if (!cur || specOf(cur).cluster || same(statusOf(cur))) return NO_CHANGE;
      const st = statusOf(cur);
      cur.status = { ...st, phase: 'Scheduling', conditions: setKcpCondition<StatusCondition>(st.conditions ?? [], wanted, nowRFC3339()) };
      return cur;
    }, { dryRun: false }, 'status');
  }

  /**
   * The initializers of the workspace's type chain (kcp's LogicalClustersInitializers): for the type and each type it
   * extends, in kcp's order (bases depth-first, the type itself last), those with `spec.initializer: true`.
   */
  private async typeInitializers(parent: string, ws: KubeObject): Promise<string[]> {
    const ref = (specOf(ws).type ?? { name: 'universal', path: 'root' }) as TypeReference;
    return this.initializersOfType(this.index.cluster(parent)?.path ?? parent, ref, ws.metadata?.name ?? '');
  }

  /**
   * The initializers of the type `ref` as seen from the workspace path `from` (kcp's LogicalClustersInitializers);
   * `what` names the workspace in the log line of a type that no longer resolves. Also used for home clusters.
   */
  async initializersOfType(from: string, ref: TypeReference, what: string): Promise<string[]> {
    if (!this.typeResolver) return [];
    let aliases: ResolvedType[];
    try {
      aliases = await this.typeResolver.aliases(await this.typeResolver.resolveRef(from, ref));
    } catch (err) {
      // Admission resolved the type when the workspace was created; one deleted since has nobody left to initialize.
      if (!(err instanceof WorkspaceTypeError)) throw err;
      logger.warn('workspace type no longer resolves; scheduling without its initializers', { from, workspace: what, error: err.message });
      return [];
    }
    const out: string[] = [];
    for (const alias of aliases) {
      if ((alias.object.spec as { initializer?: unknown } | undefined)?.initializer !== true) continue;
      const init = initializerForType(this.index.resolve(alias.path) ?? alias.path, alias.name);
      if (!out.includes(init)) out.push(init);
    }
    return out;
  }

  /**
   * Records the new cluster and its link in the index before Ready is written, so whoever sees Ready can use the
   * workspace at once, whatever the storage's watch latency (the watches would record the same a moment later).
   */
  private indexCluster(parent: string, name: string, cluster: string, lc: KubeObject): void {
    const annotations = lc.metadata!.annotations!;
    this.index.upsertCluster({ name: cluster, path: annotations[PATH_ANNOTATION]!, type: annotations[TYPE_ANNOTATION]!, phase: 'Initializing' });
    this.index.linkChild(parent, name, cluster);
  }

  /**
   * The LogicalCluster `cluster` of a new workspace (phase Initializing), carrying path, type, owner and the type
   * initializers (in spec and, as kcp's admission copies them on entering Initializing, in status).
   */
  private logicalClusterOf(parent: string, ws: KubeObject, initializers: string[], shard: string | undefined): KubeObject {
    const name = ws.metadata!.name!;
    const path = joinPath(this.index.cluster(parent)?.path ?? parent, name);
    const type = qualifiedTypeName((specOf(ws).type ?? { name: 'universal', path: 'root' }) as TypeReference);
    const annotations: Record<string, string> = { [PATH_ANNOTATION]: path, [TYPE_ANNOTATION]: type };
    if (shard) annotations[SHARD_ANNOTATION] = shard;
    const owner = ws.metadata?.annotations?.[OWNER_ANNOTATION];
    if (owner) annotations[OWNER_ANNOTATION] = owner;
    const spec: Record<string, unknown> = { owner: { apiVersion: 'tenancy.kcp.io/v1alpha1', resource: 'workspaces', name, cluster: parent, uid: ws.metadata!.uid! } };
    const status: Record<string, unknown> = { phase: 'Initializing', URL: `${this.baseURL()}/clusters/${path}` };
    if (initializers.length > 0) {
      spec.initializers = [...initializers];
      status.initializers = [...initializers];
    }
    return { apiVersion: 'core.kcp.io/v1alpha1', kind: 'LogicalCluster', metadata: { name: 'cluster', annotations }, spec, status };
  }

  /**
   * The objects every new logical cluster starts with; each step is idempotent and they run concurrently. `ws` is
   * the Workspace (or, for a home, a stand-in carrying the owner annotation and spec.type).
   */
  async bootstrapContent(cluster: string, ws: KubeObject): Promise<void> {
    const owner = ownerOf(ws);
    await Promise.all([
      createDefaultNamespaces(this.registry, cluster),
      owner ? this.createOwnerBinding(cluster, owner) : undefined,
      ...this.initializers.map((init) => init(cluster, ws)),
    ]);
  }

  /** The owner's `workspace-admin` ClusterRoleBinding; an existing one (kept by an admin's edits) is left alone. */
  private async createOwnerBinding(cluster: string, owner: WorkspaceOwner): Promise<void> {
    const bindings = this.registry.lookup(cluster, 'rbac.authorization.k8s.io', 'v1', 'clusterrolebindings');
    if (!bindings) return;
    try {
      await bindings.create(systemContext(cluster), '', workspaceAdminBinding(owner), { dryRun: false });
    } catch (err) {
      if (!(err instanceof StatusError && err.reason === 'AlreadyExists')) throw err;
    }
  }

  /**
   * A workspace found Scheduling/Initializing with a cluster: waiting for its type initializers (re-run whenever its
   * LogicalCluster changes), or left mid-way by a crash. Re-runs the idempotent bootstrap, then reports the
   * initializers still on the LogicalCluster's status, or turns Ready when none is left.
   */
  private async initialize(parent: string, ws: KubeObject): Promise<void> {
    const cluster = String(specOf(ws).cluster);
    const name = ws.metadata!.name!;
    let lc: KubeObject;
    try {
      lc = await this.logicalClusters.get(systemContext(cluster), '', 'cluster');
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404)) throw err;
      // A crash right after spec.cluster was written may have lost the LogicalCluster of the same round.
      lc = this.logicalClusterOf(parent, ws, await this.typeInitializers(parent, ws), ws.metadata?.annotations?.[SHARD_ANNOTATION]);
      try {
        await this.logicalClusters.create(systemContext(cluster), '', lc, { dryRun: false });
      } catch (e) {
        if (!(e instanceof StatusError && e.reason === 'AlreadyExists')) throw e;
        lc = await this.logicalClusters.get(systemContext(cluster), '', 'cluster');
      }
    }
    await this.bootstrapContent(cluster, ws);
    this.indexCluster(parent, name, cluster, lc);
    const lcStatus = statusOf(lc);
    const pending = Array.isArray(lcStatus.initializers) ? (lcStatus.initializers as unknown[]).map(String) : [];
    if (lcStatus.phase !== 'Ready' && pending.length > 0) await this.markInitializing(parent, name, pending);
    else await this.markReady(parent, name, cluster);
  }

  /**
   * The Workspace waits in Initializing with the LogicalCluster's initializers mirrored into status.initializers and
   * WorkspaceInitialized False (kcp's reason InitializerExists and message); an unchanged status is not rewritten.
   */
  private async markInitializing(parent: string, name: string, initializers: string[]): Promise<void> {
    await this.workspaces.guaranteedUpdate(systemContext(parent), '', name, (cur) => {
      const st = statusOf(cur!);
      const now = nowRFC3339();
      let conditions = setKcpCondition<StatusCondition>(st.conditions ?? [], { type: 'WorkspaceScheduled', status: 'True' }, now);
      conditions = setKcpCondition(conditions, {
        type: 'WorkspaceInitialized',
        status: 'False',
        reason: 'InitializerExists',
        severity: 'Info',
        message: `Initializers still exist: [${initializers.join(' ')}]`,
      }, now);
      cur!.status = { ...st, phase: 'Initializing', initializers: [...initializers], conditions };
      return cur!;
    }, { dryRun: false }, 'status');
  }

  private async markReady(parent: string, name: string, cluster: string): Promise<void> {
    await Promise.all([
      this.logicalClusters.guaranteedUpdate(systemContext(cluster), '', 'cluster', (cur) => {
        cur!.status = { ...statusOf(cur!), phase: 'Ready' };
        return cur!;
      }, { dryRun: false }, 'status'),
      this.workspaces.guaranteedUpdate(systemContext(parent), '', name, (cur) => {
        const st = statusOf(cur!);
        const now = nowRFC3339();
        let conditions = setKcpCondition<StatusCondition>(st.conditions ?? [], { type: 'WorkspaceScheduled', status: 'True' }, now);
        conditions = setKcpCondition(conditions, { type: 'WorkspaceInitialized', status: 'True' }, now);
        const { initializers: _done, ...rest } = st;
        cur!.status = { ...rest, phase: 'Ready', conditions };
        return cur!;
      }, { dryRun: false }, 'status'),
    ]);
    const entry = this.index.cluster(cluster);
    if (entry) this.index.upsertCluster({ ...entry, phase: 'Ready' });
  }

  private async terminate(parent: string, ws: KubeObject): Promise<void> {
    const name = ws.metadata!.name!;
    const cluster = specOf(ws).cluster as string | undefined;
    if (cluster) {
      const removed = await deleteClusterTree(this.registry, cluster);
      for (const c of removed) this.index.removeCluster(c);
    }
    this.index.unlinkChild(parent, name);
    try {
      await this.workspaces.guaranteedUpdate(systemContext(parent), '', name, (cur) => {
        if (!cur) throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 404, reason: 'NotFound' });
        const meta = cur.metadata!;
        meta.finalizers = (meta.finalizers ?? []).filter((f) => f !== LOGICAL_CLUSTER_FINALIZER);
        if (meta.finalizers.length === 0) delete meta.finalizers;
        return cur;
      }, { dryRun: false });
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404)) throw err;
    }
  }
}
