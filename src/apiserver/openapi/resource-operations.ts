/**
 * The REST operations kube-apiserver publishes in OpenAPI for a resource, independent of the
 * document version. openapi-v3.ts and openapi-v2.ts render these into their own shapes, so both
 * documents always agree on paths, operation ids and x-kubernetes-action values.
 *
 * Paths follow the apiserver's installer: collection and item paths (namespaced resources also get
 * the all-namespaces list path), the deprecated `/watch/` paths, and one item path per subresource.
 */
import type { APIResourceDescriptor, APISubresourceDescriptor } from '../../apimachinery/api-resource.js';

export type HttpMethod = 'get' | 'put' | 'post' | 'patch' | 'delete';

/** Values of x-kubernetes-action, exactly as upstream spells them. */
export type KubernetesAction = 'get' | 'list' | 'watch' | 'watchlist' | 'post' | 'put' | 'patch' | 'delete' | 'deletecollection';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** What an operation's 2xx body is. */
export type ResponseBody =
  | { kind: 'object'; gvk: GroupVersionKind; definition?: string }
  | { kind: 'list'; definition: string }
  | { kind: 'status' }
  | { kind: 'watchEvent' };

/** What an operation's request body is. */
export type RequestBody = 'object' | 'patch' | 'deleteOptions';

export interface ResourceOperation {
  /** Absolute path with `{namespace}` / `{name}` placeholders, e.g. /api/v1/namespaces/{namespace}/configmaps/{name}. */
  path: string;
  method: HttpMethod;
  action: KubernetesAction;
  operationId: string;
  /** The tag upstream groups operations by, e.g. core_v1, rbacAuthorization_v1. */
  tag: string;
  description: string;
  /** The x-kubernetes-group-version-kind of the operation: the kind read or written. */
  gvk: GroupVersionKind;
  pathParams: ('namespace' | 'name')[];
  queryParams: QueryParameterName[];
  requestBody?: RequestBody;
  /** For the object body: the definition name of the kind accepted. */
  requestDefinition?: string;
  /** For patch: accepted content types, in upstream order. */
  patchContentTypes?: string[];
  /** Success status codes with their bodies. */
  responses: { code: '200' | '201' | '202'; body: ResponseBody }[];
  deprecated?: boolean;
}

export type QueryParameterName = keyof typeof QUERY_PARAMETERS;

/** Every query parameter used below, with its JSON Schema type and a short description. */
export const QUERY_PARAMETERS = {
  allowWatchBookmarks: { type: 'boolean', description: 'Ask for BOOKMARK watch events, which the server may send to carry a newer resourceVersion. Ignored by non-watch requests.' },
  continue: { type: 'string', description: 'The continue token returned by a previous, limited list call, to fetch the next chunk of results.' },
  dryRun: { type: 'string', description: 'When present, the change is validated and admitted but not persisted. The only accepted value is All.' },
  fieldManager: { type: 'string', description: 'The name of the actor making the change, recorded in managedFields.' },
  fieldSelector: { type: 'string', description: 'Restrict the returned objects by field values. Defaults to everything.' },
  fieldValidation: { type: 'string', description: 'How to treat unknown or duplicate fields in the request body: Ignore, Warn or Strict.' },
  force: { type: 'boolean', description: 'Apply requests only: take ownership of fields other managers own instead of failing on the conflict.' },
  gracePeriodSeconds: { type: 'integer', description: 'Seconds before the object is deleted; zero means immediately.' },
  ignoreStoreReadErrorWithClusterBreakingPotential: { type: 'boolean', description: 'Delete an object even if it cannot be read from storage (unsafe).' },
  labelSelector: { type: 'string', description: 'Restrict the returned objects by labels. Defaults to everything.' },
  limit: { type: 'integer', description: 'The largest number of items to return; a continue token is returned when more remain.' },
  orphanDependents: { type: 'boolean', description: 'Deprecated in favour of propagationPolicy: whether dependents are orphaned.' },
  propagationPolicy: { type: 'string', description: 'How garbage collection treats dependents: Orphan, Background or Foreground.' },
  resourceVersion: { type: 'string', description: 'The resourceVersion the list or watch is relative to; its meaning depends on resourceVersionMatch.' },
  resourceVersionMatch: { type: 'string', description: 'How resourceVersion is applied to a list: Exact or NotOlderThan.' },
  sendInitialEvents: { type: 'boolean', description: 'With watch=true, start the stream with synthetic ADDED events for the current state, ended by a bookmark.' },
  timeoutSeconds: { type: 'integer', description: 'Time limit for the list or watch call, regardless of activity.' },
  watch: { type: 'boolean', description: 'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications. Specify resourceVersion.' },
} as const satisfies Record<string, { type: 'string' | 'boolean' | 'integer'; description: string }>;

/** Path-level query parameter present on every path upstream. */
export const PRETTY_PARAMETER = { name: 'pretty', type: 'string', description: "If 'true', the output is pretty printed." } as const;

const LIST_PARAMS: QueryParameterName[] = [
  'allowWatchBookmarks', 'continue', 'fieldSelector', 'labelSelector', 'limit', 'resourceVersion',
  'resourceVersionMatch', 'sendInitialEvents', 'timeoutSeconds', 'watch',
];
const WRITE_PARAMS: QueryParameterName[] = ['dryRun', 'fieldManager', 'fieldValidation'];
const PATCH_PARAMS: QueryParameterName[] = ['dryRun', 'fieldManager', 'fieldValidation', 'force'];
const DELETE_PARAMS: QueryParameterName[] = [
  'dryRun', 'gracePeriodSeconds', 'ignoreStoreReadErrorWithClusterBreakingPotential', 'orphanDependents', 'propagationPolicy',
];
const DELETECOLLECTION_PARAMS: QueryParameterName[] = [
  'continue', 'dryRun', 'fieldSelector', 'gracePeriodSeconds', 'ignoreStoreReadErrorWithClusterBreakingPotential',
  'labelSelector', 'limit', 'orphanDependents', 'propagationPolicy', 'resourceVersion', 'resourceVersionMatch',
  'sendInitialEvents', 'timeoutSeconds',
];

/** Patch content types in upstream order; strategic merge patch only for resources that accept it. */
export function patchContentTypes(strategicMergePatch: boolean): string[] {
  return [
    'application/json-patch+json',
    'application/merge-patch+json',
    ...(strategicMergePatch ? ['application/strategic-merge-patch+json'] : []),
    'application/apply-patch+yaml',
  ];
}

/** `/api/v1` for the core group, `/apis/<group>/<version>` otherwise. */
export function groupVersionPrefix(group: string, version: string): string {
  return group ? `/apis/${group}/${version}` : `/api/${version}`;
}

/**
 * The word upstream uses for a group inside operation ids and tags: "Core" for the legacy group,
 * otherwise the group without a trailing `.k8s.io`, each dot/dash-separated part capitalised
 * (rbac.authorization.k8s.io → RbacAuthorization, stable.example.com → StableExampleCom).
 */
export function groupIdentifier(group: string): string {
  if (!group) return 'Core';
  return group
    .replace(/\.k8s\.io$/, '')
    .split(/[.-]/)
    .filter((p) => p !== '')
    .map(capitalise)
    .join('');
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The definition name of a resource's list kind: the kind's definition name with the list kind as last segment. */
export function listDefinitionName(r: APIResourceDescriptor): string {
  const dot = r.definitionName.lastIndexOf('.');
  return dot < 0 ? r.listKind : `${r.definitionName.slice(0, dot + 1)}${r.listKind}`;
}

/**
 * Every operation for one resource, in a stable order (collection, item, watch paths, then
 * subresources in descriptor order). Only verbs the resource (or subresource) lists produce
 * operations; a resource with no verbs produces none.
 */
export function resourceOperations(r: APIResourceDescriptor): ResourceOperation[] {
  const ops: ResourceOperation[] = [];
  const prefix = groupVersionPrefix(r.group, r.version);
  const gi = groupIdentifier(r.group);
  const vi = capitalise(r.version);
  const tag = `${gi.charAt(0).toLowerCase()}${gi.slice(1)}_${r.version}`;
  const gvk: GroupVersionKind = { group: r.group, version: r.version, kind: r.kind };
  const ns = r.namespaced ? 'Namespaced' : '';
  const id = (verb: string, suffix = '') => `${verb}${gi}${vi}${ns}${r.kind}${suffix}`;
  const scope = r.namespaced ? `${prefix}/namespaces/{namespace}/${r.resource}` : `${prefix}/${r.resource}`;
  const scopeParams: ('namespace' | 'name')[] = r.namespaced ? ['namespace'] : [];
  const itemParams: ('namespace' | 'name')[] = ['name', ...scopeParams];
  const has = (v: string) => r.verbs.includes(v);
  const objectBody: ResponseBody = { kind: 'object', gvk, definition: r.definitionName };
  const list: ResponseBody = { kind: 'list', definition: listDefinitionName(r) };
  const base = { tag, gvk };

  if (has('list')) {
    ops.push({ ...base, path: scope, method: 'get', action: 'list', operationId: id('list'),
      description: `list or watch objects of kind ${r.kind}`, pathParams: scopeParams, queryParams: LIST_PARAMS,
      responses: [{ code: '200', body: list }] });
  }
  if (has('create')) {
    ops.push({ ...base, path: scope, method: 'post', action: 'post', operationId: id('create'),
      description: `create a ${r.kind}`, pathParams: scopeParams, queryParams: WRITE_PARAMS,
      requestBody: 'object', requestDefinition: r.definitionName,
      responses: [{ code: '200', body: objectBody }, { code: '201', body: objectBody }, { code: '202', body: objectBody }] });
  }
  if (has('deletecollection')) {
    ops.push({ ...base, path: scope, method: 'delete', action: 'deletecollection', operationId: `delete${gi}${vi}Collection${ns}${r.kind}`,
      description: `delete collection of ${r.kind}`, pathParams: scopeParams, queryParams: DELETECOLLECTION_PARAMS,
      requestBody: 'deleteOptions', responses: [{ code: '200', body: { kind: 'status' } }] });
  }
  const item = `${scope}/{name}`;
  if (has('get')) {
    ops.push({ ...base, path: item, method: 'get', action: 'get', operationId: id('read'),
      description: `read the specified ${r.kind}`, pathParams: itemParams, queryParams: [],
      responses: [{ code: '200', body: objectBody }] });
  }
  if (has('update')) {
    ops.push({ ...base, path: item, method: 'put', action: 'put', operationId: id('replace'),
      description: `replace the specified ${r.kind}`, pathParams: itemParams, queryParams: WRITE_PARAMS,
      requestBody: 'object', requestDefinition: r.definitionName,
      responses: [{ code: '200', body: objectBody }, { code: '201', body: objectBody }] });
  }
  if (has('patch')) {
    ops.push({ ...base, path: item, method: 'patch', action: 'patch', operationId: id('patch'),
      description: `partially update the specified ${r.kind}`, pathParams: itemParams, queryParams: PATCH_PARAMS,
      requestBody: 'patch', patchContentTypes: patchContentTypes(r.strategicMergePatch),
      responses: [{ code: '200', body: objectBody }, { code: '201', body: objectBody }] });
  }
  if (has('delete')) {
    ops.push({ ...base, path: item, method: 'delete', action: 'delete', operationId: id('delete'),
      description: `delete a ${r.kind}`, pathParams: itemParams, queryParams: DELETE_PARAMS,
      requestBody: 'deleteOptions',
      responses: [{ code: '200', body: { kind: 'status' } }, { code: '202', body: { kind: 'status' } }] });
  }
  if (has('list') && r.namespaced) {
    ops.push({ ...base, path: `${prefix}/${r.resource}`, method: 'get', action: 'list',
      operationId: `list${gi}${vi}${r.kind}ForAllNamespaces`, description: `list or watch objects of kind ${r.kind}`,
      pathParams: [], queryParams: LIST_PARAMS, responses: [{ code: '200', body: list }] });
  }
  if (has('watch')) {
    const watchScope = r.namespaced ? `${prefix}/watch/namespaces/{namespace}/${r.resource}` : `${prefix}/watch/${r.resource}`;
    const watchEvent: ResponseBody = { kind: 'watchEvent' };
    ops.push({ ...base, path: watchScope, method: 'get', action: 'watchlist', operationId: id('watch', 'List'),
      description: `watch individual changes to a list of ${r.kind}. deprecated: use the 'watch' parameter with a list operation instead.`,
      pathParams: scopeParams, queryParams: LIST_PARAMS, responses: [{ code: '200', body: watchEvent }], deprecated: true });
    ops.push({ ...base, path: `${watchScope}/{name}`, method: 'get', action: 'watch', operationId: id('watch'),
      description: `watch changes to an object of kind ${r.kind}. deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.`,
      pathParams: itemParams, queryParams: LIST_PARAMS, responses: [{ code: '200', body: watchEvent }], deprecated: true });
    if (r.namespaced) {
      ops.push({ ...base, path: `${prefix}/watch/${r.resource}`, method: 'get', action: 'watchlist',
        operationId: `watch${gi}${vi}${r.kind}ListForAllNamespaces`,
        description: `watch individual changes to a list of ${r.kind}. deprecated: use the 'watch' parameter with a list operation instead.`,
        pathParams: [], queryParams: LIST_PARAMS, responses: [{ code: '200', body: watchEvent }], deprecated: true });
    }
  }
  for (const sub of r.subresources) ops.push(...subresourceOperations(r, sub, { prefixId: `${gi}${vi}${ns}${r.kind}`, tag, item, itemParams }));
  return ops;
}

function subresourceOperations(
  r: APIResourceDescriptor,
  sub: APISubresourceDescriptor,
  ctx: { prefixId: string; tag: string; item: string; itemParams: ('namespace' | 'name')[] },
): ResourceOperation[] {
  const gvk: GroupVersionKind = { group: sub.group ?? r.group, version: sub.version ?? r.version, kind: sub.kind };
  // The status subresource (and any other that speaks the parent kind) reuses the parent's definition.
  const sameKind = gvk.group === r.group && gvk.version === r.version && gvk.kind === r.kind;
  const body: ResponseBody = { kind: 'object', gvk, ...(sameKind ? { definition: r.definitionName } : {}) };
  const path = `${ctx.item}/${sub.name}`;
  const suffix = capitalise(sub.name);
  const has = (v: string) => sub.verbs.includes(v);
  const base = { tag: ctx.tag, gvk, path, pathParams: ctx.itemParams };
  const ops: ResourceOperation[] = [];
  if (has('get')) {
    ops.push({ ...base, method: 'get', action: 'get', operationId: `read${ctx.prefixId}${suffix}`,
      description: `read ${sub.name} of the specified ${r.kind}`, queryParams: [], responses: [{ code: '200', body }] });
  }
  if (has('update')) {
    ops.push({ ...base, method: 'put', action: 'put', operationId: `replace${ctx.prefixId}${suffix}`,
      description: `replace ${sub.name} of the specified ${r.kind}`, queryParams: WRITE_PARAMS, requestBody: 'object',
      ...(body.kind === 'object' && body.definition ? { requestDefinition: body.definition } : {}),
      responses: [{ code: '200', body }, { code: '201', body }] });
  }
  if (has('patch')) {
    ops.push({ ...base, method: 'patch', action: 'patch', operationId: `patch${ctx.prefixId}${suffix}`,
      description: `partially update ${sub.name} of the specified ${r.kind}`, queryParams: PATCH_PARAMS, requestBody: 'patch',
      patchContentTypes: patchContentTypes(r.strategicMergePatch), responses: [{ code: '200', body }, { code: '201', body }] });
  }
  if (has('create')) {
    ops.push({ ...base, method: 'post', action: 'post', operationId: `create${ctx.prefixId}${suffix}`,
      description: `create ${sub.name} of a ${r.kind}`, queryParams: WRITE_PARAMS, requestBody: 'object',
      responses: [{ code: '200', body }, { code: '201', body }, { code: '202', body }] });
  }
  return ops;
}

/**
 * The definition name of a response/request body, resolving object bodies without a known
 * definition by searching `schemas` for one whose x-kubernetes-group-version-kind lists the GVK.
 * Meta bodies map to their meta/v1 definitions. Returns undefined when nothing matches.
 */
export function bodyDefinition(body: ResponseBody, schemas: Record<string, object>): string | undefined {
  switch (body.kind) {
    case 'list':
      return body.definition;
    case 'status':
      return META_DEFINITIONS.status;
    case 'watchEvent':
      return META_DEFINITIONS.watchEvent;
    case 'object':
      return body.definition ?? findDefinitionByGVK(schemas, body.gvk);
  }
}

/** meta/v1 definitions operations refer to. */
export const META_DEFINITIONS = {
  status: 'io.k8s.apimachinery.pkg.apis.meta.v1.Status',
  watchEvent: 'io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent',
  deleteOptions: 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions',
  patch: 'io.k8s.apimachinery.pkg.apis.meta.v1.Patch',
} as const;

/** The name of the schema whose x-kubernetes-group-version-kind includes `gvk`, if any. */
export function findDefinitionByGVK(schemas: Record<string, object>, gvk: GroupVersionKind): string | undefined {
  for (const [name, schema] of Object.entries(schemas)) {
    const list = (schema as { 'x-kubernetes-group-version-kind'?: GroupVersionKind[] })['x-kubernetes-group-version-kind'];
    if (Array.isArray(list) && list.some((g) => g.group === gvk.group && g.version === gvk.version && g.kind === gvk.kind)) {
      return name;
    }
  }
  return undefined;
}

/** Upstream's Patch definition: the request body of every PATCH, whatever its content type. */
export const PATCH_SCHEMA: { [key: string]: unknown } = {
  description: 'Patch is the body of a PATCH request; its format depends on the request content type.',
  type: 'object',
};

/** Reason phrases for the response codes the documents declare. */
export const STATUS_TEXT: Record<string, string> = { '200': 'OK', '201': 'Created', '202': 'Accepted' };
