/**
 * Table columns and row cells for the built-in kinds atrium serves, matching kube-apiserver's
 * pkg/printers/internalversion/printers.go (1.32) and, for everything else, apiserver's default
 * table convertor (registry/rest/table.go: Name, Created At).
 *
 * The server always renders the wide form (GenerateOptions{Wide: true}); kubectl hides
 * priority>0 columns unless `-o wide`. Descriptions are our own short texts.
 */
import { type JsonObject, formatRFC3339 } from '../object.js';
import { isZeroTimestamp, translateTimestampSince } from './duration.js';
import { column, type TableColumnDefinition } from './table.js';

export interface TablePrinter {
  readonly columns: readonly TableColumnDefinition[];
  /** Cells for one object, aligned with `columns`; `now` is the reference for ages. */
  row(obj: JsonObject, now: number | Date): unknown[];
  /**
   * The metadata a row's PartialObjectMetadata shows, when upstream prints from its internal type whose metadata
   * differs from the served version's (a DaemonSet's internal object has no template generation annotation).
   */
  rowMetadata?(metadata: JsonObject): JsonObject;
}

// Column descriptions, in our own words (kubectl does not print them; API explorers do).
const d = {
  name: 'The name of the object, unique among objects of its kind in its namespace (or cluster, for cluster-scoped kinds).',
  creationTimestamp: 'When the server created the object (RFC 3339, UTC).',
  configMapData: 'How many entries the config map holds in data and binaryData together.',
  secretType: 'The kind of secret, which tells clients what keys to expect in its data.',
  secretData: 'How many entries the secret holds.',
  serviceAccountSecrets: 'How many secrets are listed on the service account.',
  eventLastTimestamp: 'How long ago the event was last seen.',
  eventType: 'Whether the event is Normal or a Warning.',
  eventReason: 'A short machine-readable word for why the event happened.',
  eventInvolvedObject: 'The object the event is about, as kind/name.',
  eventFieldPath: 'The part of the object the event is about, when it is about a part.',
  eventSource: 'The component that reported the event.',
  eventMessage: 'What happened, for a person to read.',
  eventFirstTimestamp: 'How long ago the event was first seen.',
  eventCount: 'How many times the event has happened.',
  leaseHolder: 'The identity that currently holds the lease.',
  webhooks: 'How many webhooks the configuration holds.',
  policyValidations: 'How many validations the policy holds.',
  policyParamKind: 'The kind of the parameter resource of the policy, as apiVersion/kind.',
  bindingPolicyName: 'The policy the binding binds.',
  bindingParamRef: 'The parameter resource(s) the binding names.',
  roleBindingRoleRef: 'The Role or ClusterRole the binding grants, as Kind/name.',
  clusterRoleBindingRoleRef: 'The ClusterRole the binding grants, as ClusterRole/name.',
};

const nameColumn = column('Name', 'string', d.name, { format: 'name' });
const ageColumn = column('Age', 'string', d.creationTimestamp);

// ---- small accessors over loosely typed JSON ---------------------------------------------------

function obj(v: unknown): JsonObject {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : {};
}
function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}
function countKeys(v: unknown): number {
  return Object.keys(obj(v)).length;
}
const metadata = (o: JsonObject): JsonObject => obj(o.metadata);
const nameOf = (o: JsonObject): string => str(metadata(o).name);
const ageOf = (o: JsonObject, now: number | Date): string => translateTimestampSince(str(metadata(o).creationTimestamp), now);

// ---- printers ----------------------------------------------------------------------------------

const namespacePrinter: TablePrinter = {
  columns: [nameColumn, column('Status', 'string', 'The status of the namespace'), ageColumn],
  row: (o, now) => [nameOf(o), str(obj(o.status).phase), ageOf(o, now)],
};

/** Data counts data plus binaryData keys. */
const configMapPrinter: TablePrinter = {
  columns: [nameColumn, column('Data', 'string', d.configMapData), ageColumn],
  row: (o, now) => [nameOf(o), countKeys(o.data) + countKeys(o.binaryData), ageOf(o, now)],
};

/** Data counts only `data` keys (stringData never reaches storage). */
const secretPrinter: TablePrinter = {
  columns: [nameColumn, column('Type', 'string', d.secretType), column('Data', 'string', d.secretData), ageColumn],
  row: (o, now) => [nameOf(o), str(o.type), countKeys(o.data), ageOf(o, now)],
};

const serviceAccountPrinter: TablePrinter = {
  columns: [nameColumn, column('Secrets', 'string', d.serviceAccountSecrets), ageColumn],
  row: (o, now) => [nameOf(o), Array.isArray(o.secrets) ? o.secrets.length : 0, ageOf(o, now)],
};

const leasePrinter: TablePrinter = {
  columns: [nameColumn, column('Holder', 'string', d.leaseHolder), ageColumn],
  row: (o, now) => [nameOf(o), str(obj(o.spec).holderIdentity), ageOf(o, now)],
};

const webhookConfigurationPrinter: TablePrinter = {
  columns: [nameColumn, column('Webhooks', 'integer', d.webhooks), ageColumn],
  row: (o, now) => [nameOf(o), Array.isArray(o.webhooks) ? o.webhooks.length : 0, ageOf(o, now)],
};

/** printValidatingAdmissionPolicy: PARAMKIND is apiVersion/kind, or <unset>. */
const validatingAdmissionPolicyPrinter: TablePrinter = {
  columns: [nameColumn, column('Validations', 'integer', d.policyValidations), column('ParamKind', 'string', d.policyParamKind), ageColumn],
  row: (o, now) => {
    const spec = obj(o.spec);
    const pk = spec.paramKind === undefined || spec.paramKind === null ? undefined : obj(spec.paramKind);
    return [nameOf(o), Array.isArray(spec.validations) ? spec.validations.length : 0, pk ? `${str(pk.apiVersion)}/${str(pk.kind)}` : '<unset>', ageOf(o, now)];
  },
};

/** metav1.LabelSelector's Go String() (generated.pb.go), which upstream prints for a paramRef selector. */
function goLabelSelectorString(sel: JsonObject): string {
  const labels = obj(sel.matchLabels);
  const ml = Object.keys(labels)
    .sort()
    .map((k) => `${k}: ${str(labels[k])},`)
    .join('');
  const exprs = (Array.isArray(sel.matchExpressions) ? sel.matchExpressions : [])
    .map((e) => {
      const r = obj(e);
      const values = Array.isArray(r.values) ? r.values.map(String).join(' ') : '';
      return `LabelSelectorRequirement{Key:${str(r.key)},Operator:${str(r.operator)},Values:[${values}],},`;
    })
    .join('');
  return `&LabelSelector{MatchLabels:map[string]string{${ml}},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
}

/** printValidatingAdmissionPolicyBinding: PARAMREF is namespace/name, * /name without a namespace, the selector, or <unset>. */
const validatingAdmissionPolicyBindingPrinter: TablePrinter = {
  columns: [nameColumn, column('PolicyName', 'string', d.bindingPolicyName), column('ParamRef', 'string', d.bindingParamRef), ageColumn],
  row: (o, now) => {
    const spec = obj(o.spec);
    let param = '<unset>';
    if (spec.paramRef !== undefined && spec.paramRef !== null) {
      const pr = obj(spec.paramRef);
      if (str(pr.name)) param = `${str(pr.namespace) || '*'}/${str(pr.name)}`;
      else if (pr.selector !== undefined && pr.selector !== null) param = goLabelSelectorString(obj(pr.selector));
    }
    return [nameOf(o), str(spec.policyName), param, ageOf(o, now)];
  },
};

/** Users, Groups and ServiceAccounts (`ns/name`) of a binding, in subject order (rbac.SubjectsStrings). */
export function subjectsStrings(subjects: unknown): { users: string[]; groups: string[]; serviceAccounts: string[]; others: string[] } {
  const out = { users: [] as string[], groups: [] as string[], serviceAccounts: [] as string[], others: [] as string[] };
  for (const raw of Array.isArray(subjects) ? subjects : []) {
    const s = obj(raw);
    const kind = str(s.kind);
    if (kind === 'ServiceAccount') out.serviceAccounts.push(`${str(s.namespace)}/${str(s.name)}`);
    else if (kind === 'User') out.users.push(str(s.name));
    else if (kind === 'Group') out.groups.push(str(s.name));
    else out.others.push(`${kind}/${str(s.namespace)}/${str(s.name)}`);
  }
  return out;
}

function bindingPrinter(roleRefDescription: string, what: 'roleBinding' | 'clusterRoleBinding'): TablePrinter {
  return {
    columns: [
      nameColumn,
      column('Role', 'string', roleRefDescription),
      ageColumn,
      column('Users', 'string', `Users in the ${what}`, { priority: 1 }),
      column('Groups', 'string', `Groups in the ${what}`, { priority: 1 }),
      column('ServiceAccounts', 'string', `ServiceAccounts in the ${what}`, { priority: 1 }),
    ],
    row: (o, now) => {
      const roleRef = obj(o.roleRef);
      const subjects = subjectsStrings(o.subjects);
      return [
        nameOf(o),
        `${str(roleRef.kind)}/${str(roleRef.name)}`,
        ageOf(o, now),
        subjects.users.join(', '),
        subjects.groups.join(', '),
        subjects.serviceAccounts.join(', '),
      ];
    },
  };
}

/** The fields of a core v1 Event the printer reads, so events.k8s.io/v1 objects can be mapped onto them. */
interface EventView {
  name: string;
  type: string;
  reason: string;
  involvedKind: string;
  involvedName: string;
  fieldPath: string;
  sourceComponent: string;
  sourceHost: string;
  reportingController: string;
  reportingInstance: string;
  message: string;
  firstTimestamp: string;
  lastTimestamp: string;
  eventTime: string;
  count: number;
  series: { count: number; lastObservedTime: string } | undefined;
}

function seriesOf(v: unknown): EventView['series'] {
  if (!v || typeof v !== 'object') return undefined;
  const s = obj(v);
  return { count: num(s.count), lastObservedTime: str(s.lastObservedTime) };
}

function coreEventView(o: JsonObject): EventView {
  const involved = obj(o.involvedObject);
  const source = obj(o.source);
  return {
    name: nameOf(o),
    type: str(o.type),
    reason: str(o.reason),
    involvedKind: str(involved.kind),
    involvedName: str(involved.name),
    fieldPath: str(involved.fieldPath),
    sourceComponent: str(source.component),
    sourceHost: str(source.host),
    reportingController: str(o.reportingComponent),
    reportingInstance: str(o.reportingInstance),
    message: str(o.message),
    firstTimestamp: str(o.firstTimestamp),
    lastTimestamp: str(o.lastTimestamp),
    eventTime: str(o.eventTime),
    count: num(o.count),
    series: seriesOf(o.series),
  };
}

/** events.k8s.io/v1 → the core fields, as the registry's conversion maps them (regarding, note, deprecated*). */
function eventsV1View(o: JsonObject): EventView {
  const regarding = obj(o.regarding);
  const source = obj(o.deprecatedSource);
  return {
    name: nameOf(o),
    type: str(o.type),
    reason: str(o.reason),
    involvedKind: str(regarding.kind),
    involvedName: str(regarding.name),
    fieldPath: str(regarding.fieldPath),
    sourceComponent: str(source.component),
    sourceHost: str(source.host),
    reportingController: str(o.reportingController),
    reportingInstance: str(o.reportingInstance),
    message: str(o.note),
    firstTimestamp: str(o.deprecatedFirstTimestamp),
    lastTimestamp: str(o.deprecatedLastTimestamp),
    eventTime: str(o.eventTime),
    count: num(o.deprecatedCount),
    series: seriesOf(o.series),
  };
}

const firstNonEmpty = (...ss: string[]): string => ss.find((s) => s.length > 0) ?? '';

/**
 * Event cells: Last Seen falls back to First Seen, which falls back to eventTime; a series
 * overrides Last Seen and Count; a count of 0 without a series prints 1; Object is
 * `lower(kind)/name`; Source is `component, host` with reportingController/Instance as fallbacks.
 */
function eventRow(e: EventView, now: number | Date): unknown[] {
  let first = translateTimestampSince(e.firstTimestamp, now);
  if (isZeroTimestamp(e.firstTimestamp)) first = translateTimestampSince(e.eventTime, now);
  let last = translateTimestampSince(e.lastTimestamp, now);
  if (isZeroTimestamp(e.lastTimestamp)) last = first;
  let count = e.count;
  if (e.series) {
    last = translateTimestampSince(e.series.lastObservedTime, now);
    count = e.series.count;
  } else if (count === 0) {
    count = 1;
  }
  const target = e.involvedName ? `${e.involvedKind.toLowerCase()}/${e.involvedName}` : e.involvedKind.toLowerCase();
  const component = firstNonEmpty(e.sourceComponent, e.reportingController);
  const instance = firstNonEmpty(e.sourceHost, e.reportingInstance);
  const source = instance ? `${component}, ${instance}` : component;
  return [last, e.type, e.reason, target, e.fieldPath, source, e.message.trim(), first, count, e.name];
}

const eventColumns: TableColumnDefinition[] = [
  column('Last Seen', 'string', d.eventLastTimestamp),
  column('Type', 'string', d.eventType),
  column('Reason', 'string', d.eventReason),
  column('Object', 'string', d.eventInvolvedObject),
  column('Subobject', 'string', d.eventFieldPath, { priority: 1 }),
  column('Source', 'string', d.eventSource, { priority: 1 }),
  column('Message', 'string', d.eventMessage),
  column('First Seen', 'string', d.eventFirstTimestamp, { priority: 1 }),
  column('Count', 'string', d.eventCount, { priority: 1 }),
  column('Name', 'string', d.name, { format: 'name', priority: 1 }),
];

const coreEventPrinter: TablePrinter = { columns: eventColumns, row: (o, now) => eventRow(coreEventView(o), now) };
const eventsV1Printer: TablePrinter = { columns: eventColumns, row: (o, now) => eventRow(eventsV1View(o), now) };

/** Go's time.RFC3339 of the UTC instant (second precision); an unset timestamp prints Go's zero time. */
function rfc3339UTC(timestamp: string): string {
  const t = Date.parse(timestamp);
  if (!timestamp || Number.isNaN(t)) return '0001-01-01T00:00:00Z';
  return formatRFC3339(t);
}

/**
 * apiserver's default table convertor, used by roles, clusterroles, CRDs and any kind without a
 * printer: Name and `Created At` (type date, cell an RFC 3339 UTC string that kubectl turns into an age).
 */
export const defaultPrinter: TablePrinter = {
  columns: [nameColumn, column('Created At', 'date', d.creationTimestamp)],
  row: (o) => [nameOf(o), rfc3339UTC(str(metadata(o).creationTimestamp))],
};

const printers: Record<string, TablePrinter> = {
  '/namespaces': namespacePrinter,
  '/configmaps': configMapPrinter,
  '/secrets': secretPrinter,
  '/serviceaccounts': serviceAccountPrinter,
  '/events': coreEventPrinter,
  'events.k8s.io/events': eventsV1Printer,
  'coordination.k8s.io/leases': leasePrinter,
  'admissionregistration.k8s.io/validatingwebhookconfigurations': webhookConfigurationPrinter,
  'admissionregistration.k8s.io/mutatingwebhookconfigurations': webhookConfigurationPrinter,
  'admissionregistration.k8s.io/validatingadmissionpolicies': validatingAdmissionPolicyPrinter,
  'admissionregistration.k8s.io/validatingadmissionpolicybindings': validatingAdmissionPolicyBindingPrinter,
  'rbac.authorization.k8s.io/rolebindings': bindingPrinter(d.roleBindingRoleRef, 'roleBinding'),
  'rbac.authorization.k8s.io/clusterrolebindings': bindingPrinter(d.clusterRoleBindingRoleRef, 'clusterRoleBinding'),
};

/** The printer for a built-in resource (group '' for core), or the default convertor for anything else. */
export function printerFor(group: string, resource: string): TablePrinter {
  return printers[`${group}/${resource}`] ?? defaultPrinter;
}
