/**
 * RBAC escalation prevention (kubernetes pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/policybased
 * and validation.ConfirmNoEscalation), as an admission plugin because it needs the requesting user:
 * - a Role/ClusterRole may be written by a user who has `escalate` on it, or who already holds every rule it grants;
 * - a RoleBinding/ClusterRoleBinding by a user who has `bind` on the referenced role, or who holds all its rules.
 * `system:masters` is exempt. Refusals are 403 with upstream's exact text.
 */
import { errors, type StatusError } from '../../apimachinery/status.js';
import { jsonEqual } from '../../apimachinery/object.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../../apiserver/admission/admission.js';
import type { UserInfo } from '../../registry/rest.js';
import { resourceAttributes } from './attributes.js';
import { type Authorizer, SYSTEM_MASTERS } from './authorizer.js';
import { type PolicyRule, type RoleRef, compactRules, compactString, covers, goQuotedList, rulesOf } from './policy-rule.js';
import { roleRefRules } from './rbac-authorizer.js';
import { RBAC_GROUP } from './rbac-index.js';

/** What an aggregating ClusterRole may come to hold: everything, so only full authority may create one. */
const fullAuthority: PolicyRule[] = [
  { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
  { nonResourceURLs: ['*'], verbs: ['*'] },
];

/** The escalation error body: which user, their groups, and the compacted missing rules in sorted order. */
export function escalationMessage(user: UserInfo, missing: PolicyRule[], resolutionErrors: string[]): string {
  const lines = [...new Set(compactRules(missing).map(compactString))].sort();
  let msg = `user ${JSON.stringify(user.username)} (groups=${goQuotedList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
  if (resolutionErrors.length) msg += `; resolution errors: [${resolutionErrors.join(' ')}]`;
  return msg;
}

export class RbacEscalationAdmission implements AdmissionPlugin {
  readonly name = 'RBACEscalation';

  constructor(private readonly authorizer: Authorizer) {}

  admit(attrs: AdmissionAttributes): void {
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
        if (attrs.oldObject && jsonEqual(attrs.oldObject.rules ?? [], obj.rules ?? []) && jsonEqual(attrs.oldObject.aggregationRule, obj.aggregationRule)) return;
        const check = resourceAttributes(user, { verb: 'escalate', apiGroup: RBAC_GROUP, resource: attrs.def.resource, namespace: attrs.namespace, name });
        if (this.authorizer.authorize(cluster, check).decision === 'Allow') return;
        const requested = obj.aggregationRule ? fullAuthority : rulesOf(obj);
        this.confirmNoEscalation(cluster, user, attrs.namespace, requested, gr, name);
        return;
      }
      case 'rolebindings':
      case 'clusterrolebindings': {
        const ref = obj.roleRef as RoleRef | undefined;
        if (!ref?.name) return; // validation reports it
        const bindResource = ref.kind === 'Role' ? 'roles' : 'clusterroles';
        const check = resourceAttributes(user, { verb: 'bind', apiGroup: RBAC_GROUP, resource: bindResource, namespace: attrs.namespace, name: ref.name });
        if (this.authorizer.authorize(cluster, check).decision === 'Allow') return;
        const { rules, error } = roleRefRules(this.authorizer.rules.policyOf(cluster), ref, attrs.namespace);
        if (error !== undefined) throw errors.notFound({ group: RBAC_GROUP, resource: ref.kind === 'Role' ? 'role' : 'clusterrole' }, ref.name);
        this.confirmNoEscalation(cluster, user, attrs.namespace, rules!, gr, name);
        return;
      }
    }
  }

  private confirmNoEscalation(cluster: string, user: UserInfo, namespace: string, requested: PolicyRule[], gr: { group: string; resource: string }, name: string): void {
    const owner = this.authorizer.rules.rulesFor(cluster, user, namespace);
    const { covered, missing } = covers(owner.rules, requested);
    if (covered) return;
    throw errors.forbidden(gr, name, escalationMessage(user, missing, owner.errors)) as StatusError;
  }
}
