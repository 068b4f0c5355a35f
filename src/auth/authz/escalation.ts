/**
 * RBAC escalation prevention (kubernetes pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/policybased
 * and validation.ConfirmNoEscalation), as an admission plugin because it needs the requesting user:
 * - a Role/ClusterRole may be written by a user who has `escalate` on it, or who already holds every rule it grants;
 *   a ClusterRole that aggregates (now or before the update) also needs full authority;
 * - a RoleBinding/ClusterRoleBinding by a user who has `bind` on the referenced role, or who holds all its rules.
 * Every create and update is checked, except an update that changes only ownerReferences and finalizers.
 * `system:masters` is exempt. Refusals are 403 with upstream's exact text.
 */
import { errors, type StatusError } from '../../apimachinery/status.js';
import { type KubeObject, jsonEqual } from '../../apimachinery/object.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../../apiserver/admission/admission.js';
import type { RequestContext, ResourceDefinition } from '../../registry/rest.js';
import type { UserInfo } from '../../apimachinery/user.js';
import { resourceAttributes } from '../../apiserver/authorization.js';
import { type ClusterAuthorizer } from './authorizer.js';
import { SYSTEM_MASTERS } from '../../apimachinery/user.js';
import { type PolicyRule, type RoleRef, compactRules, compactString, covers, goQuotedList, rulesOf } from './policy-rule.js';
import { aggregateText, roleRefRules } from './rbac-authorizer.js';
import { RBAC_GROUP } from './rbac-index.js';

/** What an aggregating ClusterRole may come to hold: everything, so only full authority may create one. */
const fullAuthority: PolicyRule[] = [
  { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
  { nonResourceURLs: ['*'], verbs: ['*'] },
];

/** Whether a ClusterRole aggregates: an aggregationRule with at least one selector. */
function hasAggregationRule(role: KubeObject | undefined): boolean {
  const selectors = (role?.aggregationRule as { clusterRoleSelectors?: unknown[] } | undefined)?.clusterRoleSelectors;
  return Array.isArray(selectors) && selectors.length > 0;
}

/** The escalation error body: which user, their groups, and the compacted missing rules in sorted order. */
export function escalationMessage(user: UserInfo, missing: PolicyRule[], resolutionErrors: string[]): string {
  const lines = [...new Set(compactRules(missing).map(compactString))].sort();
  let msg = `user ${JSON.stringify(user.username)} (groups=${goQuotedList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
  // Upstream prints a one-element []error holding RulesFor's aggregate: `[a]`, or `[[a, b]]` for several.
  if (resolutionErrors.length) msg += `; resolution errors: [${aggregateText(resolutionErrors)}]`;
  return msg;
}

/** Reads the stored object a PUT replaces (a PUT's admission brings no old object). */
export interface StoredObjectReader {
  storeFor(def: ResourceDefinition): { get(ctx: RequestContext, namespace: string, name: string): Promise<KubeObject> };
}

/** Drops what Go's semantic equality cannot tell from absent: null, and empty lists and maps (nil vs empty). */
function semanticForm(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(semanticForm);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    const n = semanticForm(x);
    if (n === undefined || n === null) continue;
    if (Array.isArray(n) && n.length === 0) continue;
    if (typeof n === 'object' && !Array.isArray(n) && Object.keys(n as object).length === 0) continue;
    out[k] = n;
  }
  return out;
}

/**
 * rbacregistry.IsOnlyMutatingGCFields: whether an update changes nothing but what the garbage collector writes
 * (ownerReferences, finalizers; selfLink is never stored). Labels, annotations and everything else count as changes:
 * a relabelled ClusterRole can join an aggregation and hand its rules to every holder of the aggregating role.
 */
export function isOnlyMutatingGCFields(obj: KubeObject, old: KubeObject | undefined): boolean {
  if (!old) return false;
  const strip = (o: KubeObject): unknown => {
    const { ownerReferences: _o, finalizers: _f, selfLink: _s, ...meta } = (o.metadata ?? {}) as Record<string, unknown>;
    return semanticForm({ ...o, metadata: meta });
  };
  return jsonEqual(strip(obj), strip(old));
}

export class RbacEscalationAdmission implements AdmissionPlugin {
  readonly name = 'RBACEscalation';

  constructor(
    private readonly authorizer: ClusterAuthorizer,
    private readonly stored?: StoredObjectReader,
  ) {}

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.def.group !== RBAC_GROUP || !attrs.object || attrs.subresource) return;
    if (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return;
    const user = attrs.ctx.user;
    if (user.groups.includes(SYSTEM_MASTERS)) return;
    const cluster = attrs.ctx.cluster;
    const obj = attrs.object;
    const name = attrs.name || obj.metadata?.name || '';
    const gr = { group: RBAC_GROUP, resource: attrs.def.resource };
    switch (attrs.def.resource) {
      case 'roles':
      case 'clusterroles': {
        // RoleEscalationAuthorized asks with the request's name, which a create (POST to the collection) has not:
        // `escalate` restricted by resourceNames never covers a create.
        const requestName = attrs.operation === 'CREATE' ? '' : name;
        const check = resourceAttributes(user, { verb: 'escalate', apiGroup: RBAC_GROUP, resource: attrs.def.resource, namespace: attrs.namespace, name: requestName });
        if (this.authorizer.authorize(cluster, check).decision === 'Allow') return;
        // Only an update that touches nothing but the garbage collector's fields skips the check (upstream's
        // policybased storage); a relabel or annotation change is checked like any other write.
        const old = attrs.operation === 'UPDATE' ? await this.oldObject(attrs, name) : undefined;
        if (attrs.operation === 'UPDATE' && isOnlyMutatingGCFields(obj, old)) return;
        // The role's own rules first, then (clusterroles/policybased): an aggregationRule on the new or the old object
        // can gather anything or stop a role from tightening, so setting, keeping or removing one needs * on *.
        this.confirmNoEscalation(cluster, user, attrs.namespace, rulesOf(obj), gr, name);
        if (attrs.def.resource === 'clusterroles' && (hasAggregationRule(obj) || hasAggregationRule(old))) {
          const owner = this.authorizer.rules.rulesFor(cluster, user, attrs.namespace, 'registry');
          if (!covers(owner.rules, fullAuthority).covered) throw errors.forbidden(gr, name, 'must have cluster-admin privileges to use the aggregationRule');
        }
        return;
      }
      case 'rolebindings':
      case 'clusterrolebindings': {
        const ref = obj.roleRef as RoleRef | undefined;
        if (!ref?.name) return; // validation reports it
        if (attrs.operation === 'UPDATE' && isOnlyMutatingGCFields(obj, await this.oldObject(attrs, name))) return;
        const bindResource = ref.kind === 'Role' ? 'roles' : 'clusterroles';
        const check = resourceAttributes(user, { verb: 'bind', apiGroup: RBAC_GROUP, resource: bindResource, namespace: attrs.namespace, name: ref.name });
        if (this.authorizer.authorize(cluster, check).decision === 'Allow') return;
        const { rules, error } = roleRefRules(this.authorizer.rules.policyOf(cluster), ref, attrs.namespace, 'registry');
        // The registry's NotFound for the role (GetRoleReferenceRules reads roles through their storage).
        if (error !== undefined) throw errors.notFound({ group: RBAC_GROUP, resource: ref.kind === 'Role' ? 'roles' : 'clusterroles' }, ref.name);
        this.confirmNoEscalation(cluster, user, attrs.namespace, rules!, gr, name);
        return;
      }
    }
  }

  /** The object an update replaces: the patch's or apply's old object, or the stored one for a PUT. */
  private async oldObject(attrs: AdmissionAttributes, name: string): Promise<KubeObject | undefined> {
    if (attrs.oldObject) return attrs.oldObject;
    if (!this.stored) return undefined;
    try {
      return await this.stored.storeFor(attrs.def).get(attrs.ctx, attrs.namespace, name);
    } catch (err) {
      if ((err as { code?: number }).code === 404) return undefined; // a PUT that creates
      throw err;
    }
  }

  private confirmNoEscalation(cluster: string, user: UserInfo, namespace: string, requested: PolicyRule[], gr: { group: string; resource: string }, name: string): void {
    const owner = this.authorizer.rules.rulesFor(cluster, user, namespace, 'registry');
    const { covered, missing } = covers(owner.rules, requested);
    if (covered) return;
    throw errors.forbidden(gr, name, escalationMessage(user, missing, owner.errors)) as StatusError;
  }
}
