/**
 * The RBAC objects every logical cluster starts with (kubernetes plugin/pkg/auth/authorizer/rbac/bootstrappolicy,
 * trimmed to the resources atrium serves (core Services included, as `atrium start` serves them), plus kcp's
 * workspace access role): cluster-admin, the aggregated admin/edit/view,
 * system:discovery, system:basic-user, system:public-info-viewer, and their bindings. In `root` every authenticated
 * user may enter (system:kcp:workspace:access bound to system:authenticated); other workspaces admit only those bound.
 */
import { StatusError } from '../../apimachinery/status.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { ResourceRegistry } from '../../registry/resource-registry.js';
import { aggregateClusterRoles, aggregatedRules } from './aggregation.js';
import { compactRules, covers, rulesOf, type PolicyRule } from './policy-rule.js';
import { NO_CHANGE } from '../../registry/generic/store.js';
import { deepCopy } from '../../apimachinery/object.js';
import { RBAC_GROUP } from './rbac-index.js';

export const WORKSPACE_ACCESS_ROLE = 'system:kcp:workspace:access';

const read = ['get', 'list', 'watch'];
const write = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const all = [...write, 'get', 'list', 'watch'];

const bootstrapLabels = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };
const autoupdate = { 'rbac.authorization.kubernetes.io/autoupdate': 'true' };

function clusterRole(name: string, rules: PolicyRule[], extra: { labels?: Record<string, string>; aggregateFrom?: string } = {}): KubeObject {
  const role: KubeObject = {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRole',
    metadata: { name, labels: { ...bootstrapLabels, ...(extra.labels ?? {}) }, annotations: { ...autoupdate } },
    rules,
  };
  if (extra.aggregateFrom) {
    role.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [`rbac.authorization.k8s.io/${extra.aggregateFrom}`]: 'true' } }] };
  }
  return role;
}

function groupBinding(name: string, role: string, groups: string[]): KubeObject {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name, labels: { ...bootstrapLabels }, annotations: { ...autoupdate } },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: role },
    subjects: groups.map((g) => ({ apiGroup: RBAC_GROUP, kind: 'Group', name: g })),
  };
}

/** The bootstrap ClusterRoles. */
export function bootstrapClusterRoles(): KubeObject[] {
  return [
    clusterRole('cluster-admin', [
      { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      { nonResourceURLs: ['*'], verbs: ['*'] },
    ]),
    clusterRole('admin', [], { aggregateFrom: 'aggregate-to-admin' }),
    clusterRole('edit', [], { aggregateFrom: 'aggregate-to-edit', labels: { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' } }),
    clusterRole('view', [], { aggregateFrom: 'aggregate-to-view', labels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' } }),
    clusterRole(
      'system:aggregate-to-admin',
      [
        { apiGroups: [RBAC_GROUP], resources: ['rolebindings', 'roles'], verbs: all },
        { apiGroups: ['authorization.k8s.io'], resources: ['localsubjectaccessreviews'], verbs: ['create'] },
      ],
      { labels: { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' } },
    ),
    clusterRole(
      'system:aggregate-to-edit',
      [
        { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['impersonate'] },
        { apiGroups: [''], resources: ['configmaps', 'events', 'secrets', 'serviceaccounts', 'services'], verbs: write },
        { apiGroups: [''], resources: ['secrets'], verbs: read },
        { apiGroups: [''], resources: ['serviceaccounts/token'], verbs: ['create'] },
        { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: all },
      ],
      { labels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' } },
    ),
    clusterRole(
      'system:aggregate-to-view',
      [
        { apiGroups: [''], resources: ['configmaps', 'serviceaccounts', 'services', 'services/status'], verbs: read },
        { apiGroups: [''], resources: ['events', 'namespaces/status'], verbs: read },
        { apiGroups: [''], resources: ['namespaces'], verbs: read },
        { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: read },
        { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: read },
      ],
      { labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } },
    ),
    clusterRole('system:discovery', [
      {
        nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'],
        verbs: ['get'],
      },
    ]),
    clusterRole('system:basic-user', [
      { apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'], verbs: ['create'] },
      { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] },
    ]),
    clusterRole('system:public-info-viewer', [{ nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'], verbs: ['get'] }]),
    clusterRole(WORKSPACE_ACCESS_ROLE, [{ nonResourceURLs: ['/'], verbs: ['access'] }]),
  ];
}

/** The bootstrap ClusterRoleBindings of a cluster; `root` also lets every authenticated user in. */
export function bootstrapClusterRoleBindings(cluster: string): KubeObject[] {
  const out = [
    groupBinding('cluster-admin', 'cluster-admin', ['system:masters']),
    groupBinding('system:discovery', 'system:discovery', ['system:authenticated']),
    groupBinding('system:basic-user', 'system:basic-user', ['system:authenticated']),
    groupBinding('system:public-info-viewer', 'system:public-info-viewer', ['system:authenticated', 'system:unauthenticated']),
  ];
  if (cluster === 'root') out.push(groupBinding(`${WORKSPACE_ACCESS_ROLE}:authenticated`, WORKSPACE_ACCESS_ROLE, ['system:authenticated']));
  return out;
}

/**
 * Creates the bootstrap RBAC objects in a logical cluster (existing ones are left alone, so it is idempotent and
 * keeps admins' edits), then fills in the aggregated roles. Call it whenever a logical cluster is initialised.
 * The aggregating roles are created with their rules already aggregated from the bootstrap set and every object is
 * written concurrently, so a fresh cluster costs one round of writes (one group-commit flush) rather than one per
 * object; only when some role already existed does a full aggregation pass follow.
 */
export async function bootstrapRbac(registry: ResourceRegistry, cluster: string): Promise<void> {
  const ctx = { cluster, user: { username: 'system:apiserver', groups: ['system:masters'] } };
  const roles = registry.lookup(cluster, RBAC_GROUP, 'v1', 'clusterroles')!;
  const bindings = registry.lookup(cluster, RBAC_GROUP, 'v1', 'clusterrolebindings')!;
  let existed = false;
  const create = async (store: typeof roles, obj: KubeObject) => {
    try {
      await store.create(ctx, '', obj, { dryRun: false });
    } catch (err) {
      if (!(err instanceof StatusError && err.reason === 'AlreadyExists')) throw err;
      existed = true;
    }
  };
  const bootstrapRoles = bootstrapClusterRoles();
  // Aggregating roles feed each other (view → edit → admin): iterate to the fixed point, as the controller would.
  for (let pass = 0, changed = true; changed && pass < 5; pass++) {
    changed = false;
    for (const r of bootstrapRoles) {
      if (!r.aggregationRule) continue;
      const rules = aggregatedRules(r, bootstrapRoles);
      if (JSON.stringify(rules) !== JSON.stringify(r.rules)) (r.rules = rules), (changed = true);
    }
  }
  await Promise.all([...bootstrapRoles.map((r) => create(roles, r)), ...bootstrapClusterRoleBindings(cluster).map((b) => create(bindings, b))]);
  if (existed) {
    await Promise.all(bootstrapRoles.map((r) => reconcileBootstrapRole(roles, ctx, r)));
    await aggregateClusterRoles(registry, cluster);
  }
}

/**
 * The additive reconcile kube-apiserver runs on its bootstrap roles at every start (rbac/reconciliation
 * computeReconciledRole, without removing extra permissions): a stored role not opted out with
 * `rbac.authorization.kubernetes.io/autoupdate: "false"` gets the rules, labels and annotations it lacks, so roles
 * written by an older atrium learn what a newer one serves. Aggregated roles keep the rules their aggregation gives.
 */
async function reconcileBootstrapRole(roles: NonNullable<ReturnType<ResourceRegistry['lookup']>>, ctx: Parameters<typeof roles.create>[0], expected: KubeObject): Promise<void> {
  await roles.guaranteedUpdate(
    ctx,
    '',
    expected.metadata!.name!,
    async (current) => {
      if (!current || current.metadata?.annotations?.['rbac.authorization.kubernetes.io/autoupdate'] === 'false') return NO_CHANGE;
      const next = deepCopy(current);
      const meta = next.metadata!;
      let changed = false;
      for (const [field, wanted] of [['labels', expected.metadata?.labels], ['annotations', expected.metadata?.annotations]] as const) {
        for (const [k, v] of Object.entries(wanted ?? {})) {
          if (meta[field]?.[k] !== undefined) continue;
          meta[field] = { ...(meta[field] ?? {}), [k]: v };
          changed = true;
        }
      }
      if (!expected.aggregationRule) {
        const have = rulesOf(next);
        const { missing } = covers(have, rulesOf(expected));
        if (missing.length > 0) {
          next.rules = [...have, ...compactRules(missing)];
          changed = true;
        }
      }
      return changed ? next : NO_CHANGE;
    },
    { dryRun: false },
  );
}
