/**
 * WorkspaceTypes: the built-in ones (root, universal, organization, team and home, as kcp v0.32.3's config/root with
 * the workspace-types battery), resolving a type reference the way kcp's workspacetypeexists admission does (walk up the
 * workspace path, root last), the transitive `extend.with` aliases, and the allowed parent/child checks with kcp's
 * exact messages.
 */
import type { KubeObject } from '../apimachinery/object.js';
import { StatusError } from '../apimachinery/status.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import type { RequestContext } from '../registry/rest.js';
import { ROOT_CLUSTER, joinPath, splitPath } from './paths.js';
import type { WorkspaceIndex } from './workspace-index.js';

/** A type reference as it appears in specs: `{name, path}`. */
export interface TypeReference {
  name: string;
  path?: string;
}

/** A WorkspaceType as loaded, with the canonical path of the workspace that defines it. */
export interface ResolvedType {
  object: KubeObject;
  name: string;
  /** Canonical path of the workspace holding the type (kcp.io/path). */
  path: string;
}

/** `path:name` of a type, as kcp prints it (logicalcluster.NewPath(path).Join(name)). */
export function qualifiedTypeName(ref: TypeReference): string {
  return joinPath(ref.path ?? '', ref.name);
}

/** The annotation on a LogicalCluster naming its workspace type, `root:universal`. */
export const TYPE_ANNOTATION = 'internal.tenancy.kcp.io/type';
/** The annotation carrying the canonical path of a LogicalCluster or WorkspaceType. */
export const PATH_ANNOTATION = 'kcp.io/path';

const universalRef = { name: 'universal', path: ROOT_CLUSTER };

/** The WorkspaceTypes bootstrapped into root. */
export function builtinWorkspaceTypes(): KubeObject[] {
  const make = (name: string, spec: Record<string, unknown>): KubeObject => ({
    apiVersion: 'tenancy.kcp.io/v1alpha1',
    kind: 'WorkspaceType',
    metadata: { name, annotations: { [PATH_ANNOTATION]: ROOT_CLUSTER } },
    spec,
  });
  return [
    make('root', {
      defaultChildWorkspaceType: { name: 'organization', path: ROOT_CLUSTER },
      limitAllowedParents: { none: true },
      extend: { with: [universalRef] },
    }),
    make('universal', { defaultChildWorkspaceType: universalRef }),
    make('organization', {
      extend: { with: [universalRef] },
      defaultChildWorkspaceType: universalRef,
      limitAllowedChildren: { types: [universalRef] },
      limitAllowedParents: { types: [{ name: 'root', path: ROOT_CLUSTER }] },
    }),
    make('team', {
      extend: { with: [universalRef] },
      defaultChildWorkspaceType: universalRef,
      limitAllowedParents: {
        types: [
          { name: 'organization', path: ROOT_CLUSTER },
          { name: 'team', path: ROOT_CLUSTER },
        ],
      },
    }),
    // Home workspaces (home-workspaces.ts): parentless logical clusters, never a Workspace anywhere. kcp dropped the
    // bucket types homeroot and homebucket; data dirs from atrium's bucketed releases keep them for their old homes.
    make('home', {
      extend: { with: [universalRef] },
      defaultChildWorkspaceType: universalRef,
      limitAllowedParents: { none: true },
    }),
  ];
}

/**
 * root's grant of the `use` verb on its public WorkspaceTypes to every authenticated user (kcp's
 * config/root `system:kcp:universal-workspacetype-use` role and its binding). Types defined elsewhere need their
 * own grants in the workspace that defines them.
 */
export function workspaceTypeUsePolicy(): { role: KubeObject; binding: KubeObject } {
  const name = 'system:kcp:universal-workspacetype-use';
  return {
    role: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name },
      rules: [{ apiGroups: ['tenancy.kcp.io'], resources: ['workspacetypes'], resourceNames: ['universal', 'organization', 'team'], verbs: ['use'] }],
    },
    binding: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'system:kcp:authenticated:universal-workspacetype-use' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:authenticated' }],
    },
  };
}

/**
 * root's grant of read access to the tenancy objects to every authenticated user (kcp's bootstrap ClusterRole
 * `system:kcp:tenancy:reader` and config/root's `system:kcp:authenticated:tenancy:reader` binding): get/list/watch
 * on workspaces, workspacetypes and logicalclusters. It is bound in root only, so it lets a signed-in user see root's
 * children (`kubectl get workspaces`, `kubectl ws tree`, "not found" rather than "denied" for a missing child) and
 * grants nothing in any other workspace.
 */
export function tenancyReaderPolicy(): { role: KubeObject; binding: KubeObject } {
  const name = 'system:kcp:tenancy:reader';
  const read = ['get', 'list', 'watch'];
  return {
    role: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name },
      rules: [
        { apiGroups: ['tenancy.kcp.io'], resources: ['workspaces'], verbs: read },
        { apiGroups: ['tenancy.kcp.io'], resources: ['workspacetypes'], verbs: read },
        { apiGroups: ['core.kcp.io'], resources: ['logicalclusters'], verbs: read },
      ],
    },
    binding: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'system:kcp:authenticated:tenancy:reader' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:authenticated' }],
    },
  };
}

/** A plain Error whose message is what kcp puts after `is forbidden: `. */
export class WorkspaceTypeError extends Error {}

const systemCtx = (cluster: string): RequestContext => ({ cluster, user: { username: 'system:kcp:tenancy', groups: ['system:masters'] } });

function refsOf(v: unknown): TypeReference[] {
  return Array.isArray(v) ? (v.filter((r) => r && typeof r === 'object' && typeof r.name === 'string') as TypeReference[]) : [];
}

function selectorOf(t: ResolvedType, field: 'limitAllowedChildren' | 'limitAllowedParents'): { none: boolean; types: TypeReference[] } | undefined {
  const spec = (t.object.spec ?? {}) as Record<string, unknown>;
  const sel = spec[field] as { none?: boolean; types?: unknown } | undefined;
  if (!sel || typeof sel !== 'object') return undefined;
  return { none: sel.none === true, types: refsOf(sel.types) };
}

/** Looks WorkspaceTypes up by workspace path and name, through the workspace index and the registry. */
export class WorkspaceTypeResolver {
  constructor(
    private readonly index: WorkspaceIndex,
    private readonly registry: ResourceRegistry,
  ) {}

  /** The type `name` defined in the workspace at `path`; undefined when the workspace or the type does not exist. */
  async get(path: string, name: string): Promise<ResolvedType | undefined> {
    const cluster = this.index.resolve(path);
    if (!cluster) return undefined;
    const store = this.registry.lookup(cluster, 'tenancy.kcp.io', 'v1alpha1', 'workspacetypes');
    if (!store) return undefined;
    try {
      const object = await store.get(systemCtx(cluster), '', name);
      return { object, name, path: this.index.cluster(cluster)?.path ?? path };
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return undefined;
      throw err;
    }
  }

  /**
   * Resolves a reference from a workspace at `workspacePath`: an explicit path is looked up as is; without one, the
   * type is searched in the workspace, then each ancestor, root last (kcp's resolveTypeRef).
   */
  async resolveRef(workspacePath: string, ref: TypeReference): Promise<ResolvedType> {
    if (ref.path) {
      const t = await this.get(ref.path, ref.name);
      if (!t) throw new WorkspaceTypeError(`Internal error occurred: workspacetypes.tenancy.kcp.io "${ref.name}" not found`);
      return t;
    }
    let path = workspacePath;
    for (;;) {
      const t = await this.get(path, ref.name);
      if (t) return t;
      const { parent } = splitPath(path);
      if (parent) path = parent;
      else if (path !== ROOT_CLUSTER) path = ROOT_CLUSTER;
      else throw new WorkspaceTypeError(`workspace type "${qualifiedTypeName(ref)}" cannot be resolved`);
    }
  }

  /** The type and every type it extends, transitively (the type itself last); cycles and missing bases are errors. */
  async aliases(t: ResolvedType): Promise<ResolvedType[]> {
    const seen = new Set<string>();
    const out: ResolvedType[] = [];
    const walk = async (cur: ResolvedType, trail: string[]): Promise<void> => {
      const qualified = joinPath(cur.path, cur.name);
      seen.add(qualified);
      const onTrail = [...trail, qualified];
      const spec = (cur.object.spec ?? {}) as { extend?: { with?: unknown } };
      for (const base of refsOf(spec.extend?.with)) {
        const q = qualifiedTypeName(base);
        const i = onTrail.indexOf(q);
        if (i >= 0) throw new WorkspaceTypeError(`circular dependency detected in workspace type ${q}: ${onTrail.slice(i).join(' -> ')}`);
        if (seen.has(q)) continue;
        const resolved = await this.get(base.path ?? '', base.name);
        if (!resolved) throw new WorkspaceTypeError(`unable to find inherited workspace type ${q}`);
        out.push(resolved);
        await walk(resolved, onTrail);
      }
    };
    await walk(t, []);
    out.push(t);
    return out;
  }
}

function qualified(t: ResolvedType): string {
  return joinPath(t.path, t.name);
}

function anyAliasAllowed(aliases: ResolvedType[], allowed: TypeReference[]): boolean {
  const set = new Set(allowed.map(qualifiedTypeName));
  return aliases.some((a) => set.has(qualified(a)));
}

/** Go's fmt %v of a sorted []string. */
function goList(items: Iterable<string>): string {
  return `[${[...new Set(items)].sort().join(' ')}]`;
}

/** Go's utilerrors.NewAggregate(...).Error(): one message alone, several in brackets. */
function aggregate(msgs: string[]): string | undefined {
  if (msgs.length === 0) return undefined;
  return msgs.length === 1 ? msgs[0] : `[${msgs.join(', ')}]`;
}

/** Whether a child of type `childType` (with its aliases) may live under a parent of `parentType`; else kcp's message. */
export function validateAllowedParents(parentAliases: ResolvedType[], childAliases: ResolvedType[], parentType: string, childType: string): string | undefined {
  const errs: string[] = [];
  for (const childAlias of childAliases) {
    const sel = selectorOf(childAlias, 'limitAllowedParents');
    if (sel?.none) {
      errs.push(`workspace type ${childType} cannot have any parent`);
      continue;
    }
    if (!sel || sel.types.length === 0) continue;
    if (anyAliasAllowed(parentAliases, sel.types)) continue;
    const q = qualified(childAlias);
    const extending = q !== childType ? ` extends ${q}, which` : '';
    errs.push(
      `workspace type ${childType}${extending} only allows ${goList(sel.types.map(qualifiedTypeName))} parent workspaces, but parent type ${parentType} only implements ${goList(parentAliases.map(qualified))}`,
    );
  }
  return aggregate(errs);
}

/** Whether a parent of `parentType` (with its aliases) accepts a child of `childType`; else kcp's message. */
export function validateAllowedChildren(parentAliases: ResolvedType[], childAliases: ResolvedType[], parentType: string, childType: string): string | undefined {
  const errs: string[] = [];
  for (const parentAlias of parentAliases) {
    const sel = selectorOf(parentAlias, 'limitAllowedChildren');
    if (sel?.none) {
      errs.push(`workspace type ${parentType} cannot have any child`);
      continue;
    }
    if (!sel || sel.types.length === 0) continue;
    if (anyAliasAllowed(childAliases, sel.types)) continue;
    const q = qualified(parentAlias);
    const extending = q !== parentType ? ` extends ${q}, which` : '';
    errs.push(
      `workspace type ${parentType}${extending} only allows ${goList(sel.types.map(qualifiedTypeName))} child workspaces, but child type ${childType} only implements ${goList(childAliases.map(qualified))}`,
    );
  }
  return aggregate(errs);
}
