/**
 * Home workspaces as kcp v0.32.3 has them (pkg/server/home_workspaces.go): every authenticated user may have a
 * private logical cluster, made the first time they ask where it is.
 *   - A home is a logical cluster of its own with no Workspace object and no parent: its name is homeClusterName(user)
 *     (home-cluster.ts), its LogicalCluster `cluster` carries the type `root:home`, the canonical path `user:<name>`
 *     and the owner (annotation and spec.createdBy). It is reached at `/clusters/<name>`, or through the alias
 *     `/clusters/user:<name>[:rest]` that path resolution rewrites (workspace-index.ts, kcp's UserRewriter).
 *   - `GET /clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces/~` (what `kubectl ws` and `kubectl ws ~` send) is
 *     answered with a Workspace made up from that LogicalCluster: metadata.name `cluster` (the LogicalCluster's own
 *     name) and its creationTimestamp, spec.cluster, spec.URL (the LogicalCluster's status.URL,
 *     `<shard>/clusters/<name>`), and status phase, conditions and initializers. Only root answers `~`; anywhere else
 *     the request goes on like any other (and finds no Workspace named `~`).
 *   - A missing home is created only if the caller may `create` `workspaces` named `~` (checked in root, where
 *     ClusterRole `system:kcp:home-clusterworkspace-create` grants it to system:authenticated); an existing one is
 *     answered without any check, as in kcp (whose name only its owner's name hashes to).
 *   - While Scheduling, the home gets what every new workspace starts with (lifecycle bootstrapContent: namespaces,
 *     RBAC, default APIBindings) and the owner's ClusterRoleBinding `workspace-admin` (cluster-admin), then turns
 *     Initializing (its type's initializers, none for root's built-in types) or Ready. Nobody else gets in unless the
 *     owner grants it there.
 * Deliberate differences:
 *   - kcp answers 429 `Creating the home workspace` (Retry-After: 1) to the request that creates the home and to every
 *     one while it initializes; atrium does its own bootstrap within the request and answers the Ready home at once.
 *     Only a home waiting for WorkspaceType initializers that somebody else removes gets kcp's 429 (and, after a
 *     minute, kcp's 500 `home workspace creation timeout`).
 *   - A ServiceAccount (or any identity bound to one workspace) gets no home and creates none. Deliberately unlike
 *     kcp, whose home is keyed by the user name alone: every workspace's `system:serviceaccount:<ns>:<name>` would
 *     share one home.
 *   - kcp's older releases also served `/clusters/~[:rest]`; v0.32.3 does not (`~` is no valid path: 400), nor does
 *     atrium any more. `/clusters/user:<name>` is the way to address a home by its owner's name.
 * Upgrading from atrium's earlier bucketed layout (`root:users:<bucket>:<bucket>:<user>`, types root:homeroot and
 * root:homebucket): nothing is moved or deleted. Those homes stay ordinary workspaces at their old paths, with their
 * owners still cluster-admin there, their types kept in storage; `~` now means the new home, created empty on first
 * use, as kcp did when it dropped the buckets. Moving an old home's content would change every URL pointing into it.
 * Bootstrap brings root's own objects up to date (home-upgrade.ts).
 */
import type { KubeObject } from '../apimachinery/object.js';
import { StatusError, errors } from '../apimachinery/status.js';
import type { RequestInfo } from '../apiserver/request-info.js';
import { resourceAttributes } from '../apiserver/authorization.js';
import type { Authorizer } from '../apiserver/authorization.js';
import { NO_CHANGE, type GenericStore } from '../registry/generic/store.js';
import type { UserInfo } from '../apimachinery/user.js';
import { CLUSTER_NAME_EXTRA } from '../apimachinery/user.js';
import { homeCanonicalPath, homeClusterName } from './home-cluster.js';
import { ROOT_CLUSTER } from './paths.js';
import { WORKSPACE_ACCESS_NOT_PERMITTED, authorizationDenied } from './request-cluster.js';
import { isSystemPrivileged, ownerAnnotationValue } from './workspace-admission.js';
import type { WorkspaceIndex } from './workspace-index.js';
import { systemContext } from './workspace-lifecycle.js';
import { OWNER_ANNOTATION } from './workspace-owner.js';
import { PATH_ANNOTATION, TYPE_ANNOTATION, type TypeReference } from './workspace-types.js';

/** The name a request uses for "my home workspace". */
export const HOME_ALIAS = '~';
/** The WorkspaceType of every home (kcp's config/root/workspacetype-home.yaml). */
export const HOME_TYPE: TypeReference = { name: 'home', path: ROOT_CLUSTER };
/** kcp's creationTimeout: a home still initializing this long after it was created is reported as failed. */
const CREATION_TIMEOUT_MS = 60_000;

/** What the lifecycle controller lends the homes: the bootstrap of a new cluster and a type's initializers. */
export interface HomeProvisioner {
  /** The shard's external base URL, for the LogicalCluster's status.URL. */
  baseURL(): string;
  bootstrap(cluster: string, workspace: KubeObject): Promise<void>;
  initializers(type: TypeReference): Promise<string[]>;
}

/** The answer to `GET workspaces/~`: the home Workspace, or kcp's "come back in a second" while it initializes. */
export type HomeAnswer = { kind: 'workspace'; object: KubeObject } | { kind: 'creating' };

/**
 * Whether the request is `GET .../workspaces/~` in root, kcp's "where is my home" question (isGetHomeWorkspaceRequest:
 * like kcp, a subresource does not matter).
 */
export function isGetHomeWorkspaceRequest(info: RequestInfo): boolean {
  return (
    info.cluster === ROOT_CLUSTER &&
    info.isResourceRequest &&
    info.verb === 'get' &&
    info.apiGroup === 'tenancy.kcp.io' &&
    info.resource === 'workspaces' &&
    info.name === HOME_ALIAS
  );
}

type LogicalClusterStatus = { phase?: string; URL?: string; conditions?: unknown[]; initializers?: string[] };

function statusOf(lc: KubeObject): LogicalClusterStatus {
  return lc.status && typeof lc.status === 'object' ? (lc.status as LogicalClusterStatus) : {};
}

/** kcp's CreatedByFromUserInfo: who asked for the home, empty fields left out. */
function createdBy(user: UserInfo): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (user.username) out.username = user.username;
  if (user.groups.length) out.groups = [...user.groups];
  if (user.uid) out.uid = user.uid;
  if (user.extra && Object.keys(user.extra).length) out.extra = user.extra;
  return out;
}

/** The Workspace kcp answers `~` with, made from the home's LogicalCluster (nothing else: no uid, no type). */
export function homeWorkspaceFrom(cluster: string, lc: KubeObject): KubeObject {
  const st = statusOf(lc);
  const spec: Record<string, unknown> = { cluster };
  if (st.URL) spec.URL = st.URL;
  const status: Record<string, unknown> = {};
  if (st.phase) status.phase = st.phase;
  if (st.conditions?.length) status.conditions = st.conditions;
  if (st.initializers?.length) status.initializers = st.initializers;
  const metadata: Record<string, unknown> = { name: lc.metadata?.name ?? 'cluster' };
  if (lc.metadata?.creationTimestamp) metadata.creationTimestamp = lc.metadata.creationTimestamp;
  return { kind: 'Workspace', apiVersion: 'tenancy.kcp.io/v1alpha1', metadata, spec, status };
}

export class HomeWorkspaces {
  /** Provisioning under way, by home cluster name, so concurrent first requests share one. */
  private readonly inFlight = new Map<string, Promise<KubeObject>>();
  /** Set once the lifecycle controller exists (Tenancy.start); a home cannot be made before. */
  provisioner: HomeProvisioner | undefined;

  constructor(
    private readonly index: WorkspaceIndex,
    private readonly logicalClusters: GenericStore,
    /** Decides the `create workspaces ~` check; without one (no authorization at all) everyone may have a home. */
    private readonly authorizer?: Authorizer,
  ) {}

  /** Answers `GET workspaces/~` in root (see the module comment); undefined for any other request. */
  async intercept(info: RequestInfo, user: UserInfo): Promise<HomeAnswer | undefined> {
    if (!isGetHomeWorkspaceRequest(info)) return undefined;
    return this.ensure(info, user);
  }

  /** The user's home, created and bootstrapped first if need be. */
  async ensure(info: RequestInfo, user: UserInfo): Promise<HomeAnswer> {
    const denied = () =>
      authorizationDenied(
        { ...info, isResourceRequest: true, verb: 'create', apiGroup: 'tenancy.kcp.io', resource: 'workspaces', subresource: '', namespace: '', name: HOME_ALIAS },
        user,
        WORKSPACE_ACCESS_NOT_PERMITTED,
      );
    if (!user.username) throw denied();
    // A ServiceAccount belongs to its workspace: it has no home (kcp would give every workspace's account of that
    // namespace and name one shared home).
    if (user.username.startsWith('system:serviceaccount:') || user.extra?.[CLUSTER_NAME_EXTRA] !== undefined) throw denied();
    const name = homeClusterName(user.username);
    let lc = await this.getLogicalCluster(name);
    if (!lc && !this.mayCreate(user)) throw denied();
    const phase = lc ? statusOf(lc).phase : undefined;
    if (!lc || !phase || phase === 'Scheduling') lc = await this.provisionOnce(name, user);
    else if (phase === 'Initializing' && !statusOf(lc).initializers?.length) lc = await this.finishInitializing(name);
    if (statusOf(lc).phase === 'Initializing') {
      const created = Date.parse(String(lc.metadata?.creationTimestamp ?? ''));
      if (Date.now() - created > CREATION_TIMEOUT_MS) throw errors.internal('home workspace creation timeout');
      return { kind: 'creating' };
    }
    return { kind: 'workspace', object: homeWorkspaceFrom(name, lc) };
  }

  /**
   * Moves a home whose last initializer is gone from Initializing to Ready (kcp's logicalcluster controller does so
   * for every LogicalCluster); a home in any other state is left alone. Returns the LogicalCluster as it then is.
   */
  async finishInitializing(name: string): Promise<KubeObject> {
    const { object } = await this.logicalClusters.guaranteedUpdate(systemContext(name), '', 'cluster', (cur) => {
      if (!cur) throw errors.internal('home workspace disappeared');
      const st = statusOf(cur);
      if (st.phase !== 'Initializing' || st.initializers?.length) return NO_CHANGE;
      const { initializers: _done, ...rest } = st;
      cur.status = { ...rest, phase: 'Ready' };
      return cur;
    }, { dryRun: false }, 'status');
    this.record(name, object);
    return object;
  }

  private mayCreate(user: UserInfo): boolean {
    if (!this.authorizer || isSystemPrivileged(user)) return true;
    // kcp authorizes these attributes in root (the request's cluster): no API version, no namespace.
    const attrs = resourceAttributes(user, { verb: 'create', apiGroup: 'tenancy.kcp.io', resource: 'workspaces', name: HOME_ALIAS });
    return this.authorizer.authorize(ROOT_CLUSTER, attrs).decision === 'Allow';
  }

  private async getLogicalCluster(name: string): Promise<KubeObject | undefined> {
    try {
      return await this.logicalClusters.get(systemContext(name), '', 'cluster');
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return undefined;
      throw err;
    }
  }

  private provisionOnce(name: string, user: UserInfo): Promise<KubeObject> {
    let pending = this.inFlight.get(name);
    if (!pending) {
      pending = this.provision(name, user).finally(() => this.inFlight.delete(name));
      this.inFlight.set(name, pending);
    }
    return pending;
  }

  /**
   * Creates the LogicalCluster (phase Scheduling) unless it exists, bootstraps its content, then writes Initializing
   * (type initializers pending) or Ready. Every step is idempotent: a crash leaves a Scheduling home that the next
   * `~` request finishes.
   */
  private async provision(name: string, user: UserInfo): Promise<KubeObject> {
    const provisioner = this.provisioner;
    if (!provisioner) throw errors.internal('home workspaces are not started yet');
    let lc = await this.getLogicalCluster(name);
    if (!lc) {
      const initializers = await provisioner.initializers(HOME_TYPE);
      const spec: Record<string, unknown> = { createdBy: createdBy(user) };
      if (initializers.length > 0) spec.initializers = initializers;
      const fresh: KubeObject = {
        apiVersion: 'core.kcp.io/v1alpha1',
        kind: 'LogicalCluster',
        metadata: {
          name: 'cluster',
          annotations: {
            [OWNER_ANNOTATION]: ownerAnnotationValue(user),
            [TYPE_ANNOTATION]: `${HOME_TYPE.path}:${HOME_TYPE.name}`,
            [PATH_ANNOTATION]: homeCanonicalPath(user.username),
          },
        },
        spec,
        // kcp's URL reconciler writes `<shard external URL>/clusters/<logical cluster name>`.
        status: { phase: 'Scheduling', URL: `${provisioner.baseURL()}/clusters/${name}` },
      };
      try {
        lc = await this.logicalClusters.create(systemContext(name), '', fresh, { dryRun: false });
      } catch (err) {
        if (!(err instanceof StatusError && err.reason === 'AlreadyExists')) throw err;
        lc = await this.logicalClusters.get(systemContext(name), '', 'cluster');
      }
    }
    const st = statusOf(lc);
    if (!st.phase || st.phase === 'Scheduling') {
      this.record(name, lc);
      // The bootstrap reads the owner from the annotation and the type from spec.type, as it would on a Workspace.
      const standIn: KubeObject = {
        apiVersion: 'tenancy.kcp.io/v1alpha1',
        kind: 'Workspace',
        metadata: { name, annotations: { ...(lc.metadata?.annotations ?? {}) } },
        spec: { type: { ...HOME_TYPE } },
      };
      await provisioner.bootstrap(name, standIn);
      ({ object: lc } = await this.logicalClusters.guaranteedUpdate(systemContext(name), '', 'cluster', (cur) => {
        if (!cur) throw errors.internal('home workspace disappeared');
        const now = statusOf(cur);
        if (now.phase && now.phase !== 'Scheduling') return NO_CHANGE;
        const pending = ((cur.spec as { initializers?: string[] } | undefined)?.initializers ?? []).map(String);
        cur.status = pending.length > 0 ? { ...now, phase: 'Initializing', initializers: pending } : { ...now, phase: 'Ready' };
        return cur;
      }, { dryRun: false }, 'status'));
    }
    this.record(name, lc);
    return lc;
  }

  /** Puts the home in the index now, so the caller can use it at once whatever the watch's latency. */
  private record(name: string, lc: KubeObject): void {
    const annotations = lc.metadata?.annotations ?? {};
    this.index.upsertCluster({
      name,
      path: annotations[PATH_ANNOTATION] || name,
      type: annotations[TYPE_ANNOTATION] ?? '',
      phase: lc.metadata?.deletionTimestamp ? 'Terminating' : (statusOf(lc).phase ?? 'Scheduling'),
    });
  }
}

/**
 * root's grant that lets every authenticated user have a home made (kcp's config/root
 * clusterrole-workspace-home-create.yaml and its binding, with the default `--home-workspaces-home-creator-groups`
 * system:authenticated): `get` and `create` on `workspaces` named `~`.
 */
export function homeCreatorPolicy(): { role: KubeObject; binding: KubeObject } {
  const name = 'system:kcp:home-clusterworkspace-create';
  return {
    role: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name },
      rules: [{ apiGroups: ['tenancy.kcp.io'], resources: ['workspaces'], resourceNames: [HOME_ALIAS], verbs: ['get', 'create'] }],
    },
    binding: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'system:kcp:configured-group:home-clusterworkspace-create' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:authenticated' }],
    },
  };
}
