/**
 * kcp's tenancy resources, served as built-ins in every logical cluster: tenancy.kcp.io/v1alpha1 workspaces and
 * workspacetypes, core.kcp.io/v1alpha1 logicalclusters. The lifecycle (scheduling, initialization, deletion) lives in
 * src/tenancy/; here is only what the generic store needs: defaults, status handling and Table columns.
 */
import { type FieldError, required } from '../apimachinery/field-errors.js';
import type { JsonObject, KubeObject } from '../apimachinery/object.js';
import { column } from '../apimachinery/table/table.js';
import type { TablePrinter } from '../apimachinery/table/builtin-printers.js';
import { translateTimestampSince } from '../apimachinery/table/duration.js';
import type { ResourceDefinition } from '../registry/rest.js';
import { defineBuiltin, statusOnly } from '../registry/builtin/define.js';

/** Finalizer that holds a Workspace until its logical cluster and everything in it are gone. */
export const LOGICAL_CLUSTER_FINALIZER = 'core.kcp.io/logicalcluster';

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
function obj(v: unknown): JsonObject {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : {};
}

/**
 * Columns as kcp's CRD printer columns declare them (kubebuilder printcolumn markers): what `kubectl get` shows.
 * `cells` reads each column after Name (null: the value is missing, a custom resource table's empty cell); Age is a
 * `date` column rendered as an age, like CRD tables.
 */
export function crdStylePrinter(cols: { name: string; description: string; cell: (o: JsonObject) => string | null }[]): TablePrinter {
  return {
    columns: [
      column('Name', 'string', 'The name of the object.', { format: 'name' }),
      ...cols.map((c) => column(c.name, 'string', c.description)),
      column('Age', 'date', 'When the object was created.'),
    ],
    row(o, now) {
      return [str(obj(o.metadata).name), ...cols.map((c) => c.cell(o)), translateTimestampSince(str(obj(o.metadata).creationTimestamp), now)];
    },
  };
}

const workspacePrinter = crdStylePrinter([
  { name: 'Type', description: 'Type of the workspace', cell: (o) => str(obj(obj(o.spec).type).name) },
  { name: 'Region', description: 'The region this workspace is in', cell: (o) => str(obj(obj(o.metadata).labels).region) },
  { name: 'Phase', description: 'The current phase (e.g. Scheduling, Initializing, Ready, Deleting)', cell: (o) => str(obj(o.status).phase) },
  { name: 'URL', description: 'URL to access the workspace', cell: (o) => str(obj(o.spec).URL) },
]);

const logicalClusterPrinter = crdStylePrinter([
  { name: 'Phase', description: 'The current phase (e.g. Scheduling, Initializing, Ready, Deleting)', cell: (o) => str(obj(o.status).phase) },
  { name: 'URL', description: 'URL to access the logical cluster', cell: (o) => str(obj(o.status).URL) },
]);

const workspaceTypePrinter = crdStylePrinter([]);

/**
 * What kcp's Workspace schema says of spec.location: its selector's matchExpressions each need a key and an operator
 * (a metav1.LabelSelector's required fields), in the CRD validator's words. Whether the operator and values make a
 * selector is not checked here: as in kcp, the scheduler reports that on the Workspace. On update, an unchanged
 * location is not checked again (upstream ratchets CRD validation).
 */
function validateLocation(ws: KubeObject, old?: KubeObject): FieldError[] {
  const location = obj(obj(ws.spec).location);
  if (old && JSON.stringify(location) === JSON.stringify(obj(obj(old.spec).location))) return [];
  const expressions = obj(location.selector).matchExpressions;
  const errs: FieldError[] = [];
  if (!Array.isArray(expressions)) return errs;
  expressions.forEach((e, i) => {
    if (!e || typeof e !== 'object' || Array.isArray(e)) return;
    for (const k of ['key', 'operator']) if (!(k in e)) errs.push(required(`spec.location.selector.matchExpressions[${i}].${k}`));
  });
  return errs;
}

/** Keeps what the main endpoint may not change: status belongs to the status subresource and the system. */
function keepStatus(next: KubeObject, old: KubeObject): void {
  if (old.status === undefined) delete next.status;
  else next.status = old.status;
}

export const workspaces: ResourceDefinition = {
  ...defineBuiltin({
    group: 'tenancy.kcp.io',
    version: 'v1alpha1',
    resource: 'workspaces',
    kind: 'Workspace',
    namespaced: false,
    shortNames: ['ws'],
    categories: ['kcp'],
    definitionName: 'io.kcp.tenancy.v1alpha1.Workspace',
    strategy: {
      // A workspace name is one segment of a workspace path, so it may not contain dots.
      nameValidation: 'label',
      prepareForCreate(o) {
        o.status = { phase: 'Scheduling' };
        if (!o.spec || typeof o.spec !== 'object') o.spec = {};
        const meta = o.metadata!;
        const fins = meta.finalizers ?? [];
        if (!fins.includes(LOGICAL_CLUSTER_FINALIZER)) meta.finalizers = [...fins, LOGICAL_CLUSTER_FINALIZER];
      },
      prepareForUpdate: keepStatus,
      validate: (o) => validateLocation(o),
      validateUpdate: (o, old) => validateLocation(o, old),
      onDeletionStarted(o) {
        o.status = { ...obj(o.status), phase: 'Terminating' };
      },
    },
    subresources: [{ name: 'status', kind: 'Workspace', verbs: ['get', 'patch', 'update'], strategy: statusOnly }],
  }),
  strategicMergePatch: false,
  tableConvertor: workspacePrinter,
};

export const workspaceTypes: ResourceDefinition = {
  ...defineBuiltin({
    group: 'tenancy.kcp.io',
    version: 'v1alpha1',
    resource: 'workspacetypes',
    kind: 'WorkspaceType',
    namespaced: false,
    categories: ['kcp'],
    definitionName: 'io.kcp.tenancy.v1alpha1.WorkspaceType',
    strategy: { nameValidation: 'label', prepareForUpdate: keepStatus, prepareForCreate: (o) => void delete o.status },
    subresources: [{ name: 'status', kind: 'WorkspaceType', verbs: ['get', 'patch', 'update'], strategy: statusOnly }],
  }),
  strategicMergePatch: false,
  tableConvertor: workspaceTypePrinter,
};

export const logicalClusters: ResourceDefinition = {
  ...defineBuiltin({
    group: 'core.kcp.io',
    version: 'v1alpha1',
    resource: 'logicalclusters',
    kind: 'LogicalCluster',
    namespaced: false,
    categories: ['kcp'],
    definitionName: 'io.kcp.core.v1alpha1.LogicalCluster',
    strategy: { prepareForUpdate: keepStatus },
    subresources: [{ name: 'status', kind: 'LogicalCluster', verbs: ['get', 'patch', 'update'], strategy: statusOnly }],
  }),
  strategicMergePatch: false,
  tableConvertor: logicalClusterPrinter,
};

/** Every tenancy resource, for ResourceRegistry.registerBuiltin. */
export const tenancyResources: ResourceDefinition[] = [workspaces, workspaceTypes, logicalClusters];
