/**
 * Built-in type descriptors for rbac.authorization.k8s.io/v1: JSON names, protobuf field numbers (k8s.io generated.proto, v1.32),
 * merge/apply semantics from the Go struct tags and markers, and short descriptions for kubectl explain.
 */
import type { BuiltinTypeSpec } from './builtin-type.js';
import { META_V1, OBJECT_META_FIELD, RBAC_V1, STRING, TYPE_META_FIELDS, list, ref } from './field-types.js';

export const rbacV1Types: readonly BuiltinTypeSpec[] = [
  {
    name: RBAC_V1 + '.Role',
    description: 'A namespaced set of permissions.',
    gvk: [{ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'rules', proto: 2, type: list(ref(RBAC_V1, 'PolicyRule')), listType: 'atomic', emitZero: true, description: 'The permissions the role grants.' },
    ],
  },
  {
    name: RBAC_V1 + '.PolicyRule',
    description: 'One permission: verbs allowed on resources or non-resource URLs.',
    fields: [
      { name: 'verbs', proto: 1, type: list(STRING), required: true, listType: 'atomic', emitZero: true, description: 'Allowed verbs, or "*" for all.' },
      { name: 'apiGroups', proto: 2, type: list(STRING), listType: 'atomic', description: 'API groups of the resources; "" is the core group and "*" all groups.' },
      { name: 'resources', proto: 3, type: list(STRING), listType: 'atomic', description: 'Resources the rule applies to, or "*" for all.' },
      { name: 'resourceNames', proto: 4, type: list(STRING), listType: 'atomic', description: 'Restricts the rule to these object names.' },
      { name: 'nonResourceURLs', proto: 5, type: list(STRING), listType: 'atomic', description: 'URL paths (non-resource requests) the rule applies to; only meaningful in cluster roles.' },
    ],
  },
  {
    name: RBAC_V1 + '.ClusterRole',
    description: 'A cluster-wide set of permissions.',
    gvk: [{ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'rules', proto: 2, type: list(ref(RBAC_V1, 'PolicyRule')), listType: 'atomic', emitZero: true, description: 'The permissions the role grants.' },
      { name: 'aggregationRule', proto: 3, type: ref(RBAC_V1, 'AggregationRule'), description: 'When set, rules are filled in by the controller from the matching cluster roles.' },
    ],
  },
  {
    name: RBAC_V1 + '.AggregationRule',
    description: 'How a cluster role collects rules from other cluster roles.',
    fields: [
      { name: 'clusterRoleSelectors', proto: 1, type: list(ref(META_V1, 'LabelSelector')), listType: 'atomic', description: 'Cluster roles matching any of these selectors contribute their rules.' },
    ],
  },
  {
    name: RBAC_V1 + '.RoleBinding',
    description: 'Grants a role\'s permissions to subjects within a namespace.',
    gvk: [{ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'RoleBinding' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'subjects', proto: 2, type: list(ref(RBAC_V1, 'Subject')), listType: 'atomic', description: 'Users, groups or service accounts granted the role.' },
      { name: 'roleRef', proto: 3, type: ref(RBAC_V1, 'RoleRef'), required: true, description: 'The Role or ClusterRole granted; cannot be changed after creation.' },
    ],
  },
  {
    name: RBAC_V1 + '.Subject',
    description: 'A user, group or service account that a binding applies to.',
    mapType: 'atomic',
    fields: [
      { name: 'kind', proto: 1, type: STRING, required: true, emitZero: true, description: 'User, Group or ServiceAccount.' },
      { name: 'apiGroup', proto: 2, type: STRING, description: 'API group of the subject kind: "" for ServiceAccount, rbac.authorization.k8s.io for users and groups.' },
      { name: 'name', proto: 3, type: STRING, required: true, emitZero: true, description: 'Name of the subject.' },
      { name: 'namespace', proto: 4, type: STRING, description: 'Namespace of a ServiceAccount subject.' },
    ],
  },
  {
    name: RBAC_V1 + '.RoleRef',
    description: 'The role a binding grants.',
    mapType: 'atomic',
    fields: [
      { name: 'apiGroup', proto: 1, type: STRING, required: true, emitZero: true, description: 'API group of the role.' },
      { name: 'kind', proto: 2, type: STRING, required: true, emitZero: true, description: 'Role or ClusterRole.' },
      { name: 'name', proto: 3, type: STRING, required: true, emitZero: true, description: 'Name of the role.' },
    ],
  },
  {
    name: RBAC_V1 + '.ClusterRoleBinding',
    description: 'Grants a cluster role\'s permissions to subjects across the cluster.',
    gvk: [{ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRoleBinding' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'subjects', proto: 2, type: list(ref(RBAC_V1, 'Subject')), listType: 'atomic', description: 'Users, groups or service accounts granted the role.' },
      { name: 'roleRef', proto: 3, type: ref(RBAC_V1, 'RoleRef'), required: true, description: 'The ClusterRole granted; cannot be changed after creation.' },
    ],
  },
];
