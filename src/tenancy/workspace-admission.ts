/**
 * Admission for tenancy.kcp.io workspaces, combining kcp's `tenancy.kcp.io/Workspace` and
 * `tenancy.kcp.io/WorkspaceTypeExists` plugins: on create, the owner annotation, the default type from the parent's
 * type, type resolution and the allowed parent/child rules; on update, immutability of spec.type and the system-only
 * fields. Refusals are 403 Forbidden with kcp's texts (`workspaces.tenancy.kcp.io "x" is forbidden: ...`).
 */
import type { KubeObject } from '../apimachinery/object.js';
import { errors, StatusError } from '../apimachinery/status.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../apiserver/admission/admission.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import type { UserInfo } from '../apimachinery/user.js';
import { resourceAttributes } from '../apiserver/authorization.js';
import type { Authorizer } from '../apiserver/authorization.js';
import { splitPath } from './paths.js';
import { OWNER_ANNOTATION } from './workspace-owner.js';
import type { WorkspaceIndex } from './workspace-index.js';
import {
  TYPE_ANNOTATION,
  WorkspaceTypeError,
  type ResolvedType,
  type TypeReference,
  type WorkspaceTypeResolver,
  qualifiedTypeName,
  validateAllowedChildren,
  validateAllowedParents,
} from './workspace-types.js';

export { OWNER_ANNOTATION } from './workspace-owner.js';

const workspacesGR = { group: 'tenancy.kcp.io', resource: 'workspaces' };

/** Whether the user may bypass tenancy restrictions (kcp's SystemPrivilegedGroup). */
export function isSystemPrivileged(user: UserInfo): boolean {
  return user.groups.includes('system:masters');
}

/** The owner annotation value: Go's json.Marshal of authenticationv1.UserInfo (empty fields omitted). */
export function ownerAnnotationValue(user: UserInfo): string {
  const info: Record<string, unknown> = {};
  if (user.username) info.username = user.username;
  if (user.uid) info.uid = user.uid;
  if (user.groups.length) info.groups = user.groups;
  if (user.extra && Object.keys(user.extra).length) info.extra = user.extra;
  return JSON.stringify(info);
}

function specOf(o: KubeObject | undefined): Record<string, any> {
  const s = o?.spec;
  return s && typeof s === 'object' && !Array.isArray(s) ? (s as Record<string, any>) : {};
}

function typeRefOf(o: KubeObject | undefined): TypeReference | undefined {
  const t = specOf(o).type;
  if (!t || typeof t !== 'object' || !t.name) return undefined;
  return { name: String(t.name), path: t.path ? String(t.path) : undefined };
}

export class WorkspaceAdmission implements AdmissionPlugin {
  readonly name = 'tenancy.kcp.io/Workspace';

  constructor(
    private readonly index: WorkspaceIndex,
    private readonly types: WorkspaceTypeResolver,
    private readonly registry: ResourceRegistry,
    /** Decides the `use` check on WorkspaceTypes; without one (unit tests) the check is skipped. */
    private readonly authorizer?: Authorizer,
  ) {}

  async admit(a: AdmissionAttributes): Promise<void> {
    if (a.def.group !== 'tenancy.kcp.io' || a.def.resource !== 'workspaces' || !a.object) return;
    const forbidden = (msg: string) => errors.forbidden(workspacesGR, a.name || a.object?.metadata?.name || '', msg);
    try {
      if (a.operation === 'CREATE') await this.admitCreate(a, a.object);
      else if (a.operation === 'UPDATE') await this.admitUpdate(a, a.object);
    } catch (err) {
      if (err instanceof WorkspaceTypeError) throw forbidden(err.message);
      throw err;
    }
  }

  private async admitCreate(a: AdmissionAttributes, ws: KubeObject): Promise<void> {
    const privileged = isSystemPrivileged(a.ctx.user);
    const spec = specOf(ws);
    ws.spec = spec;
    if (spec.cluster && !privileged) throw new WorkspaceTypeError('spec.Cluster can only be set by system privileged users');
    if (spec.URL && !privileged) throw new WorkspaceTypeError('spec.URL can only be set by system privileged users');
    const meta = ws.metadata!;
    if (!privileged) meta.annotations = { ...(meta.annotations ?? {}), [OWNER_ANNOTATION]: ownerAnnotationValue(a.ctx.user) };

    const parent = this.index.cluster(a.ctx.cluster);
    if (!parent) throw new WorkspaceTypeError('workspace type cannot be resolved: logicalclusters.core.kcp.io "cluster" not found');
    const parentTypeName = parent.type;
    const { parent: parentTypePath, base: parentTypeBase } = splitPath(parentTypeName);
    if (!parentTypePath) throw new WorkspaceTypeError(`annotation ${TYPE_ANNOTATION} on LogicalCluster must be in the form of cluster:name`);
    const parentType = await this.types.get(parentTypePath, parentTypeBase);
    if (!parentType) throw new WorkspaceTypeError(`parent type cannot be resolved: workspacetypes.tenancy.kcp.io "${parentTypeBase}" not found`);

    let ref = typeRefOf(ws);
    if (!ref) {
      const def = specOf(parentType.object).defaultChildWorkspaceType as TypeReference | undefined;
      if (!def?.name) throw new WorkspaceTypeError(`spec.defaultChildWorkspaceType of workspace type ${parentTypeName} must be set`);
      ref = { name: def.name, path: def.path };
    }
    ref = { name: ref.name.toLowerCase(), path: ref.path };
    const type = await this.types.resolveRef(parent.path, ref);
    spec.type = { name: ref.name, path: ref.path || type.path };
    const extraLabels = specOf(type.object).additionalWorkspaceLabels as Record<string, string> | undefined;
    if (extraLabels && typeof extraLabels === 'object') meta.labels = { ...extraLabels, ...(meta.labels ?? {}) };

    const childAliases = await this.types.aliases(type);
    this.checkUse(a.ctx.user, childAliases);
    const parentAliases = await this.types.aliases(parentType);
    const childTypeName = qualifiedTypeName(spec.type as TypeReference);
    const refusal =
      validateAllowedParents(parentAliases, childAliases, parentTypeName, childTypeName) ??
      validateAllowedChildren(parentAliases, childAliases, parentTypeName, childTypeName);
    if (refusal) throw new WorkspaceTypeError(refusal);
  }

  /**
   * kcp's `use` check: the creator needs the verb `use` on the WorkspaceType, and on every type it extends, in the
   * workspace that defines each of them (authorized there, so that workspace's RBAC decides).
   */
  private checkUse(user: UserInfo, aliases: ResolvedType[]): void {
    if (!this.authorizer || isSystemPrivileged(user)) return;
    for (const alias of aliases) {
      const cluster = this.index.resolve(alias.path);
      const attrs = resourceAttributes(user, { verb: 'use', apiGroup: 'tenancy.kcp.io', apiVersion: 'v1alpha1', resource: 'workspacetypes', name: alias.name });
      if (!cluster || this.authorizer.authorize(cluster, attrs).decision !== 'Allow') {
        throw new WorkspaceTypeError(`unable to use workspace type ${alias.path}:${alias.name}: missing verb='use' permission on workspacetype`);
      }
    }
  }

  private async admitUpdate(a: AdmissionAttributes, ws: KubeObject): Promise<void> {
    const store = this.registry.lookup(a.ctx.cluster, 'tenancy.kcp.io', 'v1alpha1', 'workspaces');
    let old = a.oldObject;
    if (!old && store) {
      try {
        old = await store.get(a.ctx, '', a.name);
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) return; // the store answers NotFound itself
        throw err;
      }
    }
    if (!old) return;
    const privileged = isSystemPrivileged(a.ctx.user);
    const next = specOf(ws);
    const prev = specOf(old);
    if (prev.cluster && !next.cluster) throw new WorkspaceTypeError('spec.cluster cannot be unset');
    if ((prev.cluster ?? '') !== (next.cluster ?? '') && !privileged) throw new WorkspaceTypeError('spec.cluster can only be changed by system privileged users');
    if ((prev.URL ?? '') !== (next.URL ?? '') && !privileged) throw new WorkspaceTypeError('spec.URL can only be changed by system privileged users');
    const pt = typeRefOf(old);
    const nt = typeRefOf(ws);
    if ((pt?.name ?? '') !== (nt?.name ?? '') || (pt?.path ?? '') !== (nt?.path ?? '')) throw new WorkspaceTypeError('spec.type is immutable');
  }
}
