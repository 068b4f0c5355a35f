/**
 * Workspaces for the API server, in one object: the workspace index (path → logical cluster), request-path
 * resolution, the Workspace admission plugin, the lifecycle controller, and bootstrapping of root (its LogicalCluster
 * and the built-in WorkspaceTypes).
 *
 * Lifecycle: construct it once the registry has the tenancy built-ins and root's Shards (so `admission` can join the
 * chain), then `start(baseURL)` once the server's URL is known, and `stop()` on shutdown. Two wildcard watches
 * (workspaces and logicalclusters) keep the index current whoever writes; the controller also updates it synchronously
 * for its own writes, so a workspace is resolvable the moment it reports Ready. A third watch, on root's Shards, keeps
 * the cache the controller schedules from and re-queues the workspaces waiting for a Shard when one changes.
 */
import type { KubeObject } from '../apimachinery/object.js';
import { StatusError } from '../apimachinery/status.js';
import type { RequestInfo } from '../apiserver/request-info.js';
import type { Authorizer } from '../apiserver/authorization.js';
import { ControllerGate } from '../controllers/controller-gate.js';
import { logger } from '../logging/logger.js';
import type { GenericStore, WatchEventType } from '../registry/generic/store.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import type { UserInfo } from '../apimachinery/user.js';
import type { WatchHandle } from '../storage/interface.js';
import { rewriteUserPath } from './home-cluster.js';
import { upgradeBucketedHomes } from './home-upgrade.js';
import { HOME_TYPE, HomeWorkspaces, homeCreatorPolicy, type HomeAnswer } from './home-workspaces.js';
import { ROOT_CLUSTER } from './paths.js';
import { resolveRequestCluster } from './request-cluster.js';
import { ensureRootShard } from './root-shard.js';
import { WorkspaceAdmission } from './workspace-admission.js';
import { WorkspaceIndex } from './workspace-index.js';
import { WorkspaceLifecycle, systemContext, type WorkspaceInitializer } from './workspace-lifecycle.js';
import { PATH_ANNOTATION, TYPE_ANNOTATION, WorkspaceTypeResolver, builtinWorkspaceTypes, tenancyReaderPolicy, workspaceTypeUsePolicy } from './workspace-types.js';

const CLUSTER_ANNOTATION = 'kcp.io/cluster';

function annotation(o: KubeObject, key: string): string {
  return o.metadata?.annotations?.[key] ?? '';
}

export class Tenancy {
  /** Paths `user:<name>[:rest]` resolve from that user's home cluster, as kcp's index rewrites them. */
  readonly index = new WorkspaceIndex([rewriteUserPath]);
  readonly types: WorkspaceTypeResolver;
  readonly admission: WorkspaceAdmission;
  /** `~`: each user's home logical cluster, created on first use (see home-workspaces.ts). */
  readonly homes: HomeWorkspaces;
  private lifecycle: WorkspaceLifecycle | undefined;
  private readonly pendingInitializers: WorkspaceInitializer[] = [];
  private readonly watches: WatchHandle[] = [];
  private readonly workspaces: GenericStore;
  private readonly logicalClusters: GenericStore;
  private readonly shards: GenericStore;
  /** root's Shards by name, as last observed: what the controller schedules from. */
  private readonly shardCache = new Map<string, KubeObject>();
  private baseURL = '';
  private readonly gate: ControllerGate;
  private stopGate?: () => void;

  /**
   * `authorizer` decides kcp's `use` check on WorkspaceTypes during Workspace admission (omit it only where no
   * authorization runs at all). The lifecycle controller reconciles only while `gate` is open (the replica holding
   * the controller Lease); the index is kept on every replica.
   */
  constructor(
    private readonly registry: ResourceRegistry,
    opts: { authorizer?: Authorizer; gate?: ControllerGate } = {},
  ) {
    this.gate = opts.gate ?? new ControllerGate();
    const ws = registry.lookup(ROOT_CLUSTER, 'tenancy.kcp.io', 'v1alpha1', 'workspaces');
    const lc = registry.lookup(ROOT_CLUSTER, 'core.kcp.io', 'v1alpha1', 'logicalclusters');
    const shards = registry.lookup(ROOT_CLUSTER, 'core.kcp.io', 'v1alpha1', 'shards');
    if (!ws || !lc || !shards) throw new Error('tenancy resources are not registered');
    this.workspaces = ws;
    this.logicalClusters = lc;
    this.shards = shards;
    this.types = new WorkspaceTypeResolver(this.index, registry);
    this.admission = new WorkspaceAdmission(this.index, this.types, registry, opts.authorizer);
    this.homes = new HomeWorkspaces(this.index, lc, opts.authorizer);
    // root always exists, so requests to it resolve even before start() has loaded the rest of the tree.
    this.index.upsertCluster({ name: ROOT_CLUSTER, path: ROOT_CLUSTER, type: 'root:root', phase: 'Ready' });
  }

  /**
   * Adds a step every new workspace runs while Initializing (after its namespaces exist), e.g. bootstrapping RBAC.
   * Registering after start applies to workspaces initialized from then on.
   */
  addInitializer(init: WorkspaceInitializer): void {
    if (this.lifecycle) this.lifecycle.initializers.push(init);
    else this.pendingInitializers.push(init);
  }

  /** Bootstraps root, loads the index from storage, starts the watches and the controller. */
  async start(baseURL: string): Promise<void> {
    this.baseURL = baseURL;
    await this.bootstrapRoot();
    const sys = systemContext(ROOT_CLUSTER);
    const lcs = await this.logicalClusters.list(sys, '', { selection: {} }, true);
    for (const o of lcs.items) this.observeLogicalCluster('ADDED', o);
    // The Shards before any workspace is scheduled from them.
    const shards = await this.shards.list(sys, '', { selection: {} });
    for (const o of shards.items) this.observeShard('ADDED', o);
    const wss = await this.workspaces.list(sys, '', { selection: {} }, true);
    this.lifecycle = new WorkspaceLifecycle(this.registry, this.index, this.workspaces, this.logicalClusters, () => this.baseURL, this.gate);
    this.lifecycle.initializers.push(...this.pendingInitializers.splice(0));
    this.lifecycle.typeResolver = this.types;
    this.lifecycle.shards = () => this.shardCache.values();
    const lifecycle = this.lifecycle;
    this.homes.provisioner = {
      baseURL: () => this.baseURL,
      bootstrap: (cluster, workspace) => lifecycle.bootstrapContent(cluster, workspace),
      initializers: (type) => lifecycle.initializersOfType(ROOT_CLUSTER, type, 'home'),
    };
    for (const o of wss.items) this.observeWorkspace('ADDED', o);
    const watchOpts = (rv: string) => ({ selection: {}, resourceVersion: rv, allowBookmarks: false });
    this.watches.push(
      await this.logicalClusters.watch(sys, '', watchOpts(lcs.resourceVersion), this.sink((t, o) => this.observeLogicalCluster(t, o)), true),
      await this.workspaces.watch(sys, '', watchOpts(wss.resourceVersion), this.sink((t, o) => this.observeWorkspace(t, o)), true),
      await this.shards.watch(sys, '', watchOpts(shards.resourceVersion), this.sink((t, o) => this.observeShard(t, o))),
    );
    // Opening: workspaces created or deleted while another replica (or nobody) ran the controller are picked up from a
    // fresh list; closing: queued work is dropped (a reconcile already running finishes).
    this.stopGate = this.gate.onChange((open) => {
      if (!open) return this.lifecycle?.clearPending();
      void this.workspaces
        .list(sys, '', { selection: {} }, true)
        .then((list) => {
          for (const o of list.items) this.observeWorkspace('MODIFIED', o);
        })
        .catch((err: unknown) => logger.error('tenancy: listing workspaces on becoming leader failed', { error: String(err) }));
    });
  }

  stop(): void {
    this.stopGate?.();
    for (const w of this.watches.splice(0)) w.stop();
    this.lifecycle?.stop();
  }

  /** Resolves once the controller has nothing queued (tests and benchmarks wait on it). */
  idle(): Promise<void> {
    return this.lifecycle?.idle() ?? Promise.resolve();
  }

  /**
   * `GET workspaces/~` in root, before resolveRequestCluster: the caller's home Workspace to answer with (made on
   * first use), or kcp's 429 while it initializes; undefined for any other request (see home-workspaces.ts).
   */
  interceptHome(info: RequestInfo, user: UserInfo): Promise<HomeAnswer | undefined> {
    return this.homes.intercept(info, user);
  }

  /** The logical cluster a workspace path (`root:org`) or cluster name names; undefined when unknown. */
  resolvePath(pathOrName: string): string | undefined {
    return this.index.resolve(pathOrName);
  }

  /** The logical cluster a request addresses; throws the 400/403/404 to answer otherwise (see request-cluster.ts). */
  resolveRequestCluster(info: RequestInfo, user: UserInfo): string {
    return resolveRequestCluster(this.index, info, user);
  }

  private sink(handle: (type: WatchEventType, o: KubeObject) => void) {
    return {
      event: (type: WatchEventType, o: KubeObject) => {
        if (type !== 'BOOKMARK') handle(type, o);
        return true;
      },
      error: (err: StatusError) => logger.error('tenancy watch ended', { error: err.message }),
    };
  }

  private observeLogicalCluster(type: WatchEventType, o: KubeObject): void {
    const cluster = annotation(o, CLUSTER_ANNOTATION);
    if (!cluster || o.metadata?.name !== 'cluster') return;
    if (type === 'DELETED') {
      this.index.removeCluster(cluster);
      this.registry.endWatchesIn(cluster);
      return;
    }
    const status = (o.status ?? {}) as { phase?: string };
    this.index.upsertCluster({
      name: cluster,
      path: annotation(o, PATH_ANNOTATION) || cluster,
      type: annotation(o, TYPE_ANNOTATION),
      phase: o.metadata?.deletionTimestamp ? 'Terminating' : (status.phase ?? 'Scheduling'),
    });
    // A LogicalCluster still initializing: its workspace moves on once the last initializer is removed from it; a
    // home (no owning Workspace) turns Ready itself then.
    const owner = (o.spec as { owner?: { cluster?: string; name?: string } } | undefined)?.owner;
    if (type === 'ADDED' || status.phase !== 'Initializing' || !this.gate.isOpen()) return;
    if (owner?.cluster && owner.name) this.lifecycle?.enqueue(owner.cluster, owner.name);
    else if (!owner && annotation(o, TYPE_ANNOTATION) === `${HOME_TYPE.path}:${HOME_TYPE.name}` && !((o.status as { initializers?: unknown[] }).initializers?.length)) {
      void this.homes.finishInitializing(cluster).catch((err: unknown) => logger.error('tenancy: finishing a home failed', { cluster, error: String(err) }));
    }
  }

  /**
   * Keeps the Shard cache, and on any change after the initial list (kcp's shard event handler) re-queues the
   * workspaces waiting for a Shard: a new one, new labels or a lifted unschedulable annotation may take them.
   */
  private observeShard(type: WatchEventType, o: KubeObject): void {
    const name = o.metadata?.name;
    if (!name) return;
    if (type === 'DELETED') this.shardCache.delete(name);
    else this.shardCache.set(name, o);
    // Undefined while start() lists them: no workspace has been examined yet.
    this.lifecycle?.shardsChanged();
  }

  private observeWorkspace(type: WatchEventType, o: KubeObject): void {
    const parent = annotation(o, CLUSTER_ANNOTATION);
    const name = o.metadata?.name;
    if (!parent || !name) return;
    if (type === 'DELETED') {
      this.index.unlinkChild(parent, name);
      return;
    }
    const cluster = (o.spec as { cluster?: string } | undefined)?.cluster;
    if (cluster) this.index.linkChild(parent, name, cluster);
    const phase = (o.status as { phase?: string } | undefined)?.phase;
    if ((phase !== 'Ready' || o.metadata?.deletionTimestamp) && this.gate.isOpen()) this.lifecycle?.enqueue(parent, name);
  }

  /** root's LogicalCluster and the built-in WorkspaceTypes; idempotent. */
  private async bootstrapRoot(): Promise<void> {
    const ctx = systemContext(ROOT_CLUSTER);
    const rootLC: KubeObject = {
      apiVersion: 'core.kcp.io/v1alpha1',
      kind: 'LogicalCluster',
      metadata: { name: 'cluster', annotations: { [PATH_ANNOTATION]: ROOT_CLUSTER, [TYPE_ANNOTATION]: 'root:root' } },
      spec: {},
      status: { phase: 'Ready', URL: `${this.baseURL}/clusters/${ROOT_CLUSTER}` },
    };
    await createIfMissing(this.logicalClusters, ctx, rootLC);
    // The URL changes when the server restarts on another port or base URL; a replica started with the configured
    // base leaves it alone (replicas on one etcd share --shard-base-url, so none overwrites another's).
    const rootURL = `${this.baseURL}/clusters/${ROOT_CLUSTER}`;
    const existing = await this.logicalClusters.get(ctx, '', 'cluster').catch(() => undefined);
    const st = (existing?.status ?? {}) as { phase?: string; URL?: string };
    if (st.URL !== rootURL || st.phase !== 'Ready') await this.logicalClusters.guaranteedUpdate(ctx, '', 'cluster', (cur) => {
      cur!.status = { ...((cur!.status ?? {}) as object), phase: 'Ready', URL: rootURL };
      return cur!;
    }, { dryRun: false }, 'status');
    this.index.upsertCluster({ name: ROOT_CLUSTER, path: ROOT_CLUSTER, type: 'root:root', phase: 'Ready' });
    // This server's own Shard, which workspaces are scheduled to (its URLs follow the base URL, as root's status.URL).
    await ensureRootShard(this.shards, ctx, this.baseURL);
    const types = this.registry.lookup(ROOT_CLUSTER, 'tenancy.kcp.io', 'v1alpha1', 'workspacetypes')!;
    for (const t of builtinWorkspaceTypes()) await createIfMissing(types, ctx, t);
    const roles = this.registry.lookup(ROOT_CLUSTER, 'rbac.authorization.k8s.io', 'v1', 'clusterroles');
    const bindings = this.registry.lookup(ROOT_CLUSTER, 'rbac.authorization.k8s.io', 'v1', 'clusterrolebindings');
    if (roles && bindings) {
      // Before the defaults below, so an old grant's subjects are what kcp's binding starts with.
      await upgradeBucketedHomes({ types, roles, bindings }, ctx);
      for (const { role, binding } of [workspaceTypeUsePolicy(), tenancyReaderPolicy(), homeCreatorPolicy()]) {
        await createIfMissing(roles, ctx, role);
        await createIfMissing(bindings, ctx, binding);
      }
    }
  }
}

async function createIfMissing(store: GenericStore, ctx: ReturnType<typeof systemContext>, obj: KubeObject): Promise<void> {
  try {
    await store.create(ctx, '', obj, { dryRun: false });
  } catch (err) {
    if (err instanceof StatusError && err.reason === 'AlreadyExists') return;
    throw err;
  }
}

