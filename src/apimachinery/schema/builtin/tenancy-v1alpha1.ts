/**
 * Type descriptors for kcp's tenancy API: tenancy.kcp.io/v1alpha1 Workspace and WorkspaceType, and
 * core.kcp.io/v1alpha1 LogicalCluster and Shard. kcp serves these as CRDs, so they have no protobuf field numbers and their
 * OpenAPI names follow the CRD convention (reversed group + version + kind). JSON names are those of kcp's Go types
 * (github.com/kcp-dev/sdk apis/tenancy/v1alpha1, apis/core/v1alpha1); descriptions are our own words.
 */
import type { BuiltinTypeSpec } from './builtin-type.js';
import { BOOLEAN, INT_OR_STRING, META_V1, OBJECT_META_FIELD, STRING, TIME, TYPE_META_FIELDS, list, map, ref } from './field-types.js';

export const TENANCY_V1ALPHA1 = 'io.kcp.tenancy.v1alpha1';
export const CORE_KCP_V1ALPHA1 = 'io.kcp.core.v1alpha1';
const CONDITIONS = 'io.kcp.conditions.v1alpha1';

const phases = ['Scheduling', 'Initializing', 'Ready', 'Unavailable', 'Inactive', 'Terminating', 'Deleting'];

const typeReference = ref(TENANCY_V1ALPHA1, 'WorkspaceTypeReference');
const conditionsField = {
  name: 'conditions',
  type: list(ref(CONDITIONS, 'Condition')),
  description: 'The latest observations of the object\'s state, one per condition type.',
};

export const tenancyV1alpha1Types: readonly BuiltinTypeSpec[] = [
  {
    name: CONDITIONS + '.Condition',
    description: 'One observation of an object\'s state (kcp\'s conditions type, with a severity).',
    fields: [
      { name: 'type', type: STRING, required: true, description: 'The kind of observation, in CamelCase.' },
      { name: 'status', type: STRING, required: true, description: 'True, False or Unknown.' },
      { name: 'severity', type: STRING, description: 'How bad a False condition is: Error, Warning or Info.' },
      { name: 'lastTransitionTime', type: TIME, description: 'When the status last changed.' },
      { name: 'reason', type: STRING, description: 'A CamelCase word for why the condition last changed.' },
      { name: 'message', type: STRING, description: 'A human readable explanation of the last change.' },
    ],
  },
  {
    name: TENANCY_V1ALPHA1 + '.Workspace',
    description: 'A Kubernetes-cluster-like endpoint with its own discovery, OpenAPI and resources, nested in a parent workspace.',
    gvk: [{ group: 'tenancy.kcp.io', version: 'v1alpha1', kind: 'Workspace' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', type: ref(TENANCY_V1ALPHA1, 'WorkspaceSpec'), required: true, description: 'What workspace is wanted.' },
      { name: 'status', type: ref(TENANCY_V1ALPHA1, 'WorkspaceStatus'), description: 'What the system observed about the workspace.' },
    ],
  },
  {
    name: TENANCY_V1ALPHA1 + '.WorkspaceSpec',
    description: 'The desired state of a Workspace.',
    fields: [
      { name: 'type', type: typeReference, description: 'The WorkspaceType; defaults to the parent type\'s default child type. Immutable.' },
      { name: 'location', type: ref(TENANCY_V1ALPHA1, 'WorkspaceLocation'), description: 'Constraints on where the workspace is scheduled.' },
      { name: 'cluster', type: STRING, description: 'The logical cluster name that stores the workspace; set by the system.' },
      { name: 'URL', type: STRING, description: 'The address that serves the workspace; set by the system.' },
      { name: 'mount', type: ref(TENANCY_V1ALPHA1, 'Mount'), description: 'An object that serves the workspace instead of a logical cluster.' },
    ],
  },
  {
    name: TENANCY_V1ALPHA1 + '.WorkspaceTypeReference',
    description: 'A fully qualified reference to a WorkspaceType: its name and the path of the workspace that defines it.',
    fields: [
      { name: 'name', type: STRING, required: true, description: 'The name of the WorkspaceType.' },
      { name: 'path', type: STRING, description: 'The absolute path of the workspace that owns the type, e.g. root:org.' },
    ],
  },
  {
    name: TENANCY_V1ALPHA1 + '.WorkspaceLocation',
    description: 'Where a workspace may be scheduled.',
    fields: [{ name: 'selector', type: ref(META_V1, 'LabelSelector'), description: 'Selects the shards the workspace may land on.' }],
  },
  {
    name: TENANCY_V1ALPHA1 + '.Mount',
    description: 'A reference to an object that serves a mounted workspace.',
    fields: [{ name: 'ref', type: ref(TENANCY_V1ALPHA1, 'ObjectReference'), required: true, description: 'The mounted object.' }],
  },
  {
    name: TENANCY_V1ALPHA1 + '.ObjectReference',
    description: 'A reference to an object by API version, kind, name and namespace.',
    fields: [
      { name: 'apiVersion', type: STRING, required: true, description: 'Group and version of the object.' },
      { name: 'kind', type: STRING, required: true, description: 'Kind of the object.' },
      { name: 'name', type: STRING, required: true, description: 'Name of the object.' },
      { name: 'namespace', type: STRING, description: 'Namespace of the object, if namespaced.' },
    ],
  },
  {
    name: TENANCY_V1ALPHA1 + '.WorkspaceStatus',
    description: 'The observed state of a Workspace.',
    fields: [
      { name: 'phase', type: STRING, enum: phases, default: 'Scheduling', description: 'Scheduling, Initializing, Ready or Terminating.' },
      conditionsField,
      { name: 'initializers', type: list(STRING), description: 'Controllers that must finish before the workspace is ready.' },
      { name: 'terminators', type: list(STRING), description: 'Controllers that must finish before the workspace is removed.' },
    ],
  },
  {
    name: TENANCY_V1ALPHA1 + '.WorkspaceType',
    description: 'The behaviour of workspaces of one type: allowed parents and children, default child type, initialization.',
    gvk: [{ group: 'tenancy.kcp.io', version: 'v1alpha1', kind: 'WorkspaceType' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', type: ref(TENANCY_V1ALPHA1, 'WorkspaceTypeSpec'), description: 'The type\'s rules.' },
      { name: 'status', type: ref(TENANCY_V1ALPHA1, 'WorkspaceTypeStatus'), description: 'What the system observed about the type.' },
    ],
  },
  {
    name: TENANCY_V1ALPHA1 + '.WorkspaceTypeSpec',
    description: 'The rules of a WorkspaceType.',
    fields: [
      { name: 'initializer', type: BOOLEAN, description: 'Whether a controller named after the type initializes its workspaces.' },
      { name: 'terminator', type: BOOLEAN, description: 'Whether a controller named after the type cleans up its workspaces.' },
      { name: 'extend', type: ref(TENANCY_V1ALPHA1, 'WorkspaceTypeExtension'), description: 'Types this type also counts as.' },
      { name: 'additionalWorkspaceLabels', type: map(STRING), description: 'Labels added to every new workspace of this type.' },
      { name: 'defaultChildWorkspaceType', type: typeReference, description: 'The type of child workspaces created without one.' },
      { name: 'limitAllowedChildren', type: ref(TENANCY_V1ALPHA1, 'WorkspaceTypeSelector'), description: 'The types child workspaces may have.' },
      { name: 'limitAllowedParents', type: ref(TENANCY_V1ALPHA1, 'WorkspaceTypeSelector'), description: 'The types a parent workspace may have.' },
      { name: 'defaultAPIBindings', type: list(ref(TENANCY_V1ALPHA1, 'APIExportReference')), description: 'APIs bound in new workspaces of this type.' },
      { name: 'defaultAPIBindingLifecycle', type: STRING, enum: ['InitializeOnly', 'Maintain'], description: 'Whether default bindings are kept up to date.' },
      { name: 'authenticationConfigurations', type: list(ref(TENANCY_V1ALPHA1, 'AuthenticationConfigurationReference')), description: 'Extra authentication for workspaces of this type.' },
    ],
  },
  {
    name: TENANCY_V1ALPHA1 + '.WorkspaceTypeExtension',
    description: 'Other types a WorkspaceType extends.',
    fields: [{ name: 'with', type: list(typeReference), description: 'The extended types.' }],
  },
  {
    name: TENANCY_V1ALPHA1 + '.WorkspaceTypeSelector',
    description: 'A set of workspace types: none, or the listed ones (and types extending them).',
    fields: [
      { name: 'none', type: BOOLEAN, description: 'No type matches.' },
      { name: 'types', type: list(typeReference), description: 'The matching types.' },
    ],
  },
  {
    name: TENANCY_V1ALPHA1 + '.APIExportReference',
    description: 'An APIExport by workspace path and name.',
    fields: [
      { name: 'path', type: STRING, description: 'The workspace holding the export; empty means the current one.' },
      { name: 'export', type: STRING, required: true, description: 'The name of the APIExport.' },
    ],
  },
  {
    name: TENANCY_V1ALPHA1 + '.AuthenticationConfigurationReference',
    description: 'A WorkspaceAuthenticationConfiguration by name.',
    fields: [{ name: 'name', type: STRING, required: true, description: 'Its name.' }],
  },
  {
    name: TENANCY_V1ALPHA1 + '.WorkspaceTypeStatus',
    description: 'The observed state of a WorkspaceType.',
    fields: [
      conditionsField,
      { name: 'virtualWorkspaces', type: list(ref(TENANCY_V1ALPHA1, 'VirtualWorkspace')), description: 'Initialization endpoints for the type.' },
    ],
  },
  {
    name: TENANCY_V1ALPHA1 + '.VirtualWorkspace',
    description: 'A virtual workspace endpoint.',
    fields: [{ name: 'url', type: STRING, required: true, description: 'Its URL.' }],
  },
  {
    name: CORE_KCP_V1ALPHA1 + '.LogicalCluster',
    description: 'The singleton (always named "cluster") that describes the logical cluster it lives in.',
    gvk: [{ group: 'core.kcp.io', version: 'v1alpha1', kind: 'LogicalCluster' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', type: ref(CORE_KCP_V1ALPHA1, 'LogicalClusterSpec'), description: 'The desired state.' },
      { name: 'status', type: ref(CORE_KCP_V1ALPHA1, 'LogicalClusterStatus'), description: 'The observed state.' },
    ],
  },
  {
    name: CORE_KCP_V1ALPHA1 + '.LogicalClusterSpec',
    description: 'The desired state of a LogicalCluster.',
    fields: [
      { name: 'directlyDeletable', type: BOOLEAN, description: 'Whether deleting the LogicalCluster object from inside deletes the cluster.' },
      { name: 'owner', type: ref(CORE_KCP_V1ALPHA1, 'LogicalClusterOwner'), description: 'The object (usually a Workspace) that owns the cluster.' },
      { name: 'createdBy', type: ref(CORE_KCP_V1ALPHA1, 'OwnerUserInfo'), description: 'The user who created the workspace.' },
      { name: 'initializers', type: list(STRING), description: 'Initializers copied to status when initialization starts.' },
      { name: 'terminators', type: list(STRING), description: 'Terminators copied to status when termination starts.' },
    ],
  },
  {
    name: CORE_KCP_V1ALPHA1 + '.LogicalClusterOwner',
    description: 'The resource that controls the life of a logical cluster.',
    fields: [
      { name: 'apiVersion', type: STRING, required: true, description: 'Group and version of the owner.' },
      { name: 'resource', type: STRING, required: true, description: 'Resource of the owner.' },
      { name: 'name', type: STRING, required: true, description: 'Name of the owner.' },
      { name: 'namespace', type: STRING, description: 'Namespace of the owner, if namespaced.' },
      { name: 'cluster', type: STRING, required: true, description: 'Logical cluster of the owner.' },
      { name: 'uid', type: STRING, required: true, description: 'UID of the owner.' },
    ],
  },
  {
    name: CORE_KCP_V1ALPHA1 + '.OwnerUserInfo',
    description: 'The user who owns a logical cluster.',
    fields: [
      { name: 'username', type: STRING, description: 'User name.' },
      { name: 'groups', type: list(STRING), description: 'Groups of the user.' },
      { name: 'uid', type: STRING, description: 'UID of the user.' },
      { name: 'extra', type: map(list(STRING)), description: 'Extra attributes from the authenticator.' },
    ],
  },
  {
    name: CORE_KCP_V1ALPHA1 + '.LogicalClusterStatus',
    description: 'The observed state of a LogicalCluster.',
    fields: [
      { name: 'URL', type: STRING, description: 'The address that serves the logical cluster.' },
      { name: 'phase', type: STRING, enum: phases, default: 'Scheduling', description: 'Scheduling, Initializing, Ready or Terminating.' },
      conditionsField,
      { name: 'initializers', type: list(STRING), description: 'Initializers still to finish.' },
      { name: 'terminators', type: list(STRING), description: 'Terminators still to finish.' },
    ],
  },
  {
    name: CORE_KCP_V1ALPHA1 + '.Shard',
    description: 'A kcp server that logical clusters are scheduled to; lives in the root workspace.',
    gvk: [{ group: 'core.kcp.io', version: 'v1alpha1', kind: 'Shard' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', type: ref(CORE_KCP_V1ALPHA1, 'ShardSpec'), description: 'Where the shard is reached.' },
      { name: 'status', type: ref(CORE_KCP_V1ALPHA1, 'ShardStatus'), description: 'The observed state.' },
    ],
  },
  {
    name: CORE_KCP_V1ALPHA1 + '.ShardSpec',
    description: 'The addresses of a Shard.',
    fields: [
      { name: 'baseURL', type: STRING, required: true, description: 'The address for direct connections to the shard (e.g. from a front proxy).' },
      { name: 'externalURL', type: STRING, description: 'The address put into the URLs of workspaces on the shard; defaults to baseURL.' },
      { name: 'virtualWorkspaceURL', type: STRING, description: 'The address of the shard\'s virtual workspace server; defaults to baseURL.' },
    ],
  },
  {
    name: CORE_KCP_V1ALPHA1 + '.ShardStatus',
    description: 'The observed state of a Shard.',
    fields: [
      // A resource list in kcp's Go type, but served as a custom resource there: values are kept as written.
      { name: 'capacity', type: map(INT_OR_STRING), description: 'Resources logical clusters may be scheduled into.' },
      conditionsField,
    ],
  },
];
