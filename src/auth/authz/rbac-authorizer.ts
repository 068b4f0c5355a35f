/**
 * RBAC over one logical cluster's policy (kubernetes plugin/pkg/auth/authorizer/rbac and
 * pkg/registry/rbac/validation DefaultRuleResolver): the rules that apply to a user come from every
 * ClusterRoleBinding and from the RoleBindings of the namespace in question. There is no deny; a binding to a
 * missing role is skipped and reported as a resolution error.
 */
import type { KubeObject } from '../../apimachinery/object.js';
import type { UserInfo } from '../../apimachinery/user.js';
import type { AuthorizationAttributes, AuthorizationResult } from '../../apiserver/authorization.js';
import { type PolicyRule, type RoleRef, type Subject, ruleAllows, rulesOf } from './policy-rule.js';
import type { ClusterPolicy, RbacIndex } from './rbac-index.js';
import { effectiveUsers } from './scope.js';


/** Where a rule came from, for the "allowed by" reason. */
type RuleSource = { binding: KubeObject; subject: Subject; clusterScoped: boolean };
/** Return false to stop visiting. */
type RuleVisitor = (source: RuleSource | undefined, rule: PolicyRule | undefined, err: string | undefined) => boolean;

const SA_PREFIX = 'system:serviceaccount:';

/** Whether a binding subject names this user (bindingNamespace defaults a ServiceAccount subject's namespace). */
export function subjectMatches(subject: Subject, user: UserInfo, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.username === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const ns = subject.namespace || bindingNamespace;
      if (!ns) return false;
      return user.username === `${SA_PREFIX}${ns}:${subject.name}`;
    }
    default:
      return false;
  }
}

/** validation.describeSubject: a ServiceAccount as `name/namespace` (its own namespace, else the binding's). */
function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') return `${s.kind} ${JSON.stringify(`${s.name}/${s.namespace || bindingNamespace}`)}`;
  return `${s.kind} ${JSON.stringify(s.name)}`;
}

function describeSource(src: RuleSource): string {
  const b = src.binding;
  const ref = b.roleRef as RoleRef;
  const ns = b.metadata?.namespace ?? '';
  if (src.clusterScoped) return `ClusterRoleBinding ${JSON.stringify(b.metadata?.name)} of ${ref.kind} ${JSON.stringify(ref.name)} to ${describeSubject(src.subject, '')}`;
  return `RoleBinding ${JSON.stringify(`${b.metadata?.name}/${ns}`)} of ${ref.kind} ${JSON.stringify(ref.name)} to ${describeSubject(src.subject, ns)}`;
}

/**
 * Where a missing role is reported from, which decides its text: the authorizer reads informer listers
 * (`clusterrole.rbac.authorization.k8s.io "x" not found`), escalation checks read the registry
 * (`clusterroles.rbac.authorization.k8s.io "x" not found`).
 */
export type RoleSource = 'lister' | 'registry';

/** The rules a role reference grants in a cluster; undefined (with an error text) when the role does not exist. */
export function roleRefRules(policy: ClusterPolicy, ref: RoleRef, namespace: string, source: RoleSource = 'lister'): { rules?: PolicyRule[]; error?: string } {
  const plural = source === 'registry' ? 's' : '';
  if (ref.kind === 'ClusterRole') {
    const role = policy.clusterroles.get(ref.name);
    return role ? { rules: rulesOf(role) } : { error: `clusterrole${plural}.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found` };
  }
  if (ref.kind === 'Role') {
    const role = policy.roles.get(`${namespace}/${ref.name}`);
    return role ? { rules: rulesOf(role) } : { error: `role${plural}.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found` };
  }
  return { error: `unsupported role reference kind: ${JSON.stringify(ref.kind)}` };
}

function visitRulesFor(policy: ClusterPolicy, users: readonly UserInfo[], namespace: string, visit: RuleVisitor, source: RoleSource = 'lister'): void {
  for (const b of policy.clusterrolebindings.values()) {
    const subject = ((b.subjects as Subject[] | undefined) ?? []).find((s) => users.some((user) => subjectMatches(s, user, '')));
    if (!subject) continue;
    const { rules, error } = roleRefRules(policy, b.roleRef as RoleRef, '', source);
    if (error !== undefined) {
      if (!visit(undefined, undefined, error)) return;
      continue;
    }
    const src = { binding: b, subject, clusterScoped: true };
    for (const r of rules!) if (!visit(src, r, undefined)) return;
  }
  if (!namespace) return;
  const prefix = `${namespace}/`;
  for (const [key, b] of policy.rolebindings) {
    if (!key.startsWith(prefix)) continue;
    const subject = ((b.subjects as Subject[] | undefined) ?? []).find((s) => users.some((user) => subjectMatches(s, user, namespace)));
    if (!subject) continue;
    const { rules, error } = roleRefRules(policy, b.roleRef as RoleRef, namespace, source);
    if (error !== undefined) {
      if (!visit(undefined, undefined, error)) return;
      continue;
    }
    const src = { binding: b, subject, clusterScoped: false };
    for (const r of rules!) if (!visit(src, r, undefined)) return;
  }
}

/** RBAC decisions and rule listings for any logical cluster, read from the RbacIndex. */
export class RbacAuthorizer {
  constructor(private readonly index: RbacIndex) {}

  /** The current RBAC objects of a cluster. */
  policyOf(cluster: string): ClusterPolicy {
    return this.index.policy(cluster);
  }

  authorize(cluster: string, attrs: AuthorizationAttributes): AuthorizationResult {
    let allowedBy: RuleSource | undefined;
    const errs: string[] = [];
    visitRulesFor(this.index.policy(cluster), effectiveUsers(attrs.user, cluster), attrs.namespace, (src, rule, err) => {
      if (err !== undefined) errs.push(err);
      if (rule && ruleAllows(attrs, rule)) {
        allowedBy = src;
        return false;
      }
      return true;
    });
    if (allowedBy) return { decision: 'Allow', reason: `RBAC: allowed by ${describeSource(allowedBy)}` };
    // A binding to a missing role is only explained in the reason: RBAC's Authorize returns no error.
    return { decision: 'NoOpinion', reason: errs.length === 0 ? '' : `RBAC: ${aggregateText(errs)}` };
  }

  /**
   * Every rule that applies to the user in the namespace (cluster-wide rules included), plus resolution errors
   * (texts as `source` reports a missing role).
   */
  rulesFor(cluster: string, user: UserInfo, namespace: string, source: RoleSource = 'lister'): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    visitRulesFor(
      this.index.policy(cluster),
      effectiveUsers(user, cluster),
      namespace,
      (_src, rule, err) => {
        if (rule) rules.push(rule);
        if (err !== undefined) errors.push(err);
        return true;
      },
      source,
    );
    return { rules, errors };
  }
}

/** utilerrors.NewAggregate's text: one error as is, several as `[a, b]`. */
export function aggregateText(errs: readonly string[]): string {
  return errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]`;
}
