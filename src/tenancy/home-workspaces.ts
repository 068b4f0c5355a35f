/**
 * Home workspaces (kcp's bucketed scheme, `--enable-home-workspaces` with its defaults): every authenticated user
 * has a private workspace at `root:users:<bucket>:<bucket>:<user>`, created the first time they go there.
 *   - `root:users` has type `root:homeroot`, the two bucket levels `root:homebucket`, the home itself `root:home`.
 *     The buckets are two letters each, derived from the SHA-1 of the user name, so homes spread over at most
 *     26^4 leaves and no list grows with the number of users;
 *   - going home means `GET /clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces/~` (what `kubectl ws ~` sends,
 *     answered with the home Workspace whose spec.URL the plugin follows) or any request under `/clusters/~`
 *     (served from the home workspace);
 *   - creating a missing home needs `create` on `workspaces` named `~` in root (granted to system:authenticated,
 *     kcp's default home-creator group); the user becomes the owner, so the lifecycle controller binds them to
 *     cluster-admin there and nobody else gets in;
 *   - a home whose owner is somebody else (two names sanitized to the same segment) is refused with 403.
 * Nothing exists per user until that user goes home; `root:users` and the buckets appear on first use too.
 * Unlike kcp, which answers 429 with Retry-After while the home initializes, the request waits here until the home
 * is Ready: atrium initializes a workspace within the same request round trip, so there is nothing to retry.
 */
import { createHash } from 'node:crypto';
import type { KubeObject } from '../apimachinery/object.js';
import { StatusError, errors } from '../apimachinery/status.js';
import type { RequestInfo } from '../apiserver/request-info.js';
import { resourceAttributes } from '../apiserver/authorization.js';
import type { Authorizer } from '../apiserver/authorization.js';
import type { GenericStore } from '../registry/generic/store.js';
import type { UserInfo } from '../apimachinery/user.js';
import { ROOT_CLUSTER, joinPath, splitPath } from './paths.js';
import { WORKSPACE_ACCESS_NOT_PERMITTED, authorizationDenied } from './request-cluster.js';
import { isSystemPrivileged, ownerAnnotationValue } from './workspace-admission.js';
import { CLUSTER_NAME_EXTRA } from '../apimachinery/user.js';
import type { WorkspaceIndex } from './workspace-index.js';
import { systemContext } from './workspace-lifecycle.js';
import { OWNER_ANNOTATION, parseOwnerAnnotation } from './workspace-owner.js';

/** The workspace holding every home, below root (kcp's `--home-workspaces-root-prefix` default). */
export const HOME_ROOT_PATH = 'root:users';
/** kcp's defaults: two bucket levels of two letters each. */
const BUCKET_LEVELS = 2;
const BUCKET_SIZE = 2;
/** The name a request uses for "my home workspace". */
export const HOME_ALIAS = '~';
/** How long a request waits for a new home (and its buckets) to become Ready. */
const READY_TIMEOUT_MS = 60_000;

/**
 * The path of `username`'s home workspace, e.g. `root:users:zu:yc:kcp-admin` (kcp's getHomeLogicalClusterName).
 * Bucket i takes the big-endian uint32 at byte i of SHA-1(username) and spells it in base 26 (`a`..`z`), least
 * significant letter first. The last segment is the user name with every character outside `[a-z0-9-]` replaced by
 * `-` (upper case included, as in kcp), then stripped of leading digits/punctuation and trailing dashes; it is ''
 * when nothing is left (such a user has no home).
 */
export function homeWorkspacePath(username: string): string {
  const digest = createHash('sha1').update(username, 'utf8').digest();
  let path = HOME_ROOT_PATH;
  for (let level = 0; level < BUCKET_LEVELS; level++) {
    let n = digest.readUInt32BE(level);
    let bucket = '';
    for (let i = 0; i < BUCKET_SIZE; i++) {
      bucket += String.fromCharCode(97 + (n % 26));
      n = Math.floor(n / 26);
    }
    path = joinPath(path, bucket);
  }
  return joinPath(path, homeSegment(username));
}

/** The user-name part of a home path (see homeWorkspacePath); '' when the name has no usable characters. */
export function homeSegment(username: string): string {
  let s = username.replace(/[^a-z0-9-]/g, '-');
  // kcp trims every leading rune <= '9' (digits, '-', and the ASCII punctuation before them).
  let start = 0;
  while (start < s.length && s.charCodeAt(start) <= 57) start++;
  s = s.slice(start);
  return s.replace(/-+$/, '');
}

/** The workspace type of the level `path` sits at below root (root:users → homeroot, buckets, then home). */
function typeAt(path: string): string {
  const depth = path.split(':').length - HOME_ROOT_PATH.split(':').length;
  if (depth === 0) return 'homeroot';
  return depth <= BUCKET_LEVELS ? 'homebucket' : 'home';
}

/** Whether the request is `GET .../workspaces/~` in root, kcp's "where is my home" question. */
export function isGetHomeWorkspaceRequest(info: RequestInfo): boolean {
  return (
    info.cluster === ROOT_CLUSTER &&
    info.isResourceRequest &&
    info.verb === 'get' &&
    info.apiGroup === 'tenancy.kcp.io' &&
    info.resource === 'workspaces' &&
    !info.subresource &&
    info.name === HOME_ALIAS
  );
}

/** Whether the request addresses `/clusters/~` or `/clusters/~:<child path>`. */
export function isHomeClusterRequest(info: RequestInfo): boolean {
  return info.cluster === HOME_ALIAS || info.cluster.startsWith(`${HOME_ALIAS}:`);
}

export class HomeWorkspaces {
  /** Creations under way, by user name, so concurrent first requests share one. */
  private readonly inFlight = new Map<string, Promise<KubeObject>>();

  constructor(
    private readonly index: WorkspaceIndex,
    private readonly workspaces: GenericStore,
    /** Decides the `create workspaces ~` check; without one (no authorization at all) everyone may go home. */
    private readonly authorizer?: Authorizer,
  ) {}

  /**
   * Handles the two home forms before the request's cluster is resolved: for `/clusters/~[:rest]` it rewrites
   * `info.cluster` to the home path (plus rest) and returns undefined, so the request proceeds as one to that
   * workspace; for `GET workspaces/~` in root it returns the home Workspace object to answer with. Other requests
   * are left alone (undefined). Throws 403 when the user may not have a home, or the home belongs to someone else.
   */
  async intercept(info: RequestInfo, user: UserInfo): Promise<KubeObject | undefined> {
    if (isGetHomeWorkspaceRequest(info)) return this.ensure(info, user);
    if (!isHomeClusterRequest(info)) return undefined;
    await this.ensure(info, user);
    info.cluster = homeWorkspacePath(user.username) + info.cluster.slice(HOME_ALIAS.length);
    return undefined;
  }

  /** The user's home Workspace, created (with any missing parents) and Ready. */
  async ensure(info: RequestInfo, user: UserInfo): Promise<KubeObject> {
    const denied = () =>
      authorizationDenied(
        { ...info, isResourceRequest: true, verb: 'create', apiGroup: 'tenancy.kcp.io', resource: 'workspaces', subresource: '', namespace: '', name: HOME_ALIAS },
        user,
        WORKSPACE_ACCESS_NOT_PERMITTED,
      );
    const path = homeWorkspacePath(user.username);
    if (!user.username || !splitPath(path).base) throw denied();
    // A ServiceAccount is a credential of its own workspace only: it has no home (and must not create one in root,
    // where its token is not valid, nor take over another workspace's namesake's).
    if (user.username.startsWith('system:serviceaccount:') || user.extra?.[CLUSTER_NAME_EXTRA] !== undefined) throw denied();
    const existing = await this.getHome(path);
    if (existing) {
      this.checkOwner(existing, user, denied);
      if (this.index.resolve(path) !== undefined && (existing.status as { phase?: string } | undefined)?.phase === 'Ready') return existing;
    } else if (!this.mayCreate(user)) {
      throw denied();
    }
    let pending = this.inFlight.get(user.username);
    if (!pending) {
      pending = this.create(path, user).finally(() => this.inFlight.delete(user.username));
      this.inFlight.set(user.username, pending);
    }
    const home = await pending;
    this.checkOwner(home, user, denied);
    return home;
  }

  private mayCreate(user: UserInfo): boolean {
    if (!this.authorizer || isSystemPrivileged(user)) return true;
    const attrs = resourceAttributes(user, { verb: 'create', apiGroup: 'tenancy.kcp.io', apiVersion: 'v1alpha1', resource: 'workspaces', name: HOME_ALIAS });
    return this.authorizer.authorize(ROOT_CLUSTER, attrs).decision === 'Allow';
  }

  /** kcp's collision check: a home owned by another user (or by nobody) is not this user's. */
  private checkOwner(home: KubeObject, user: UserInfo, denied: () => StatusError): void {
    const owner = parseOwnerAnnotation(home.metadata?.annotations?.[OWNER_ANNOTATION]);
    if (!owner || owner.username !== user.username) throw denied();
  }

  /** The Workspace object at `path` read from its parent, or undefined when the parent or the workspace is missing. */
  private async getHome(path: string): Promise<KubeObject | undefined> {
    const { parent, base } = splitPath(path);
    const parentCluster = this.index.resolve(parent);
    if (parentCluster === undefined) return undefined;
    try {
      return await this.workspaces.get(systemContext(parentCluster), '', base);
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return undefined;
      throw err;
    }
  }

  /** Creates each missing level from root:users down to the home, waiting for each to be Ready before its child. */
  private async create(homePath: string, user: UserInfo): Promise<KubeObject> {
    const segments = homePath.split(':');
    const first = HOME_ROOT_PATH.split(':').length;
    for (let i = first; i <= segments.length; i++) {
      const path = segments.slice(0, i).join(':');
      if (this.readyCluster(path) !== undefined) continue;
      const { parent, base } = splitPath(path);
      const parentCluster = this.index.resolve(parent);
      if (parentCluster === undefined) throw errors.internal(`home workspace parent ${JSON.stringify(parent)} is missing`);
      const type = typeAt(path);
      const annotations: Record<string, string> = type === 'home' ? { [OWNER_ANNOTATION]: ownerAnnotationValue(user) } : {};
      const ws: KubeObject = {
        apiVersion: 'tenancy.kcp.io/v1alpha1',
        kind: 'Workspace',
        metadata: { name: base, annotations },
        spec: { type: { name: type, path: ROOT_CLUSTER } },
      };
      try {
        await this.workspaces.create(systemContext(parentCluster), '', ws, { dryRun: false });
      } catch (err) {
        if (!(err instanceof StatusError && err.reason === 'AlreadyExists')) throw err;
      }
      await this.waitReady(path);
    }
    const home = await this.getHome(homePath);
    if (!home) throw errors.internal('home workspace creation failed');
    return home;
  }

  private readyCluster(path: string): string | undefined {
    const name = this.index.resolve(path);
    return name !== undefined && this.index.cluster(name)?.phase === 'Ready' ? name : undefined;
  }

  /** Polls the in-memory index (no storage reads) until `path` resolves to a Ready logical cluster. */
  private async waitReady(path: string): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (this.readyCluster(path) === undefined) {
      if (Date.now() > deadline) throw errors.internal('home workspace creation timeout');
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}

/**
 * root's grant that lets every authenticated user have a home created (kcp's default
 * `--home-workspaces-home-creator-groups=system:authenticated`): `create` on `workspaces` named `~`.
 */
export function homeCreatorPolicy(): { role: KubeObject; binding: KubeObject } {
  const name = 'system:kcp:tenancy:home-workspace-creator';
  return {
    role: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name },
      rules: [{ apiGroups: ['tenancy.kcp.io'], resources: ['workspaces'], resourceNames: [HOME_ALIAS], verbs: ['create'] }],
    },
    binding: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'system:kcp:authenticated:home-workspace-creator' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:authenticated' }],
    },
  };
}
