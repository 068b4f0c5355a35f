import type { IncomingMessage, ServerResponse } from 'node:http';
import { type KubeObject, type ObjectMeta, isPlainObject, jsonEqual, metaOf } from '../../apimachinery/object.js';
import { errors, StatusError } from '../../apimachinery/status.js';
import * as fe from '../../apimachinery/field-errors.js';
import type { FieldError } from '../../apimachinery/field-errors.js';
import { groupVersionString } from '../../apimachinery/api-resource.js';
import { type GenericStore, type DeleteOptions, NO_CHANGE } from '../../registry/generic/store.js';
import type { ComputedCreate, RequestContext } from '../../registry/rest.js';
import { applyPatch, patchTypeFromContentType } from '../../patch/apply-patch.js';
import { goJSONSyntaxError } from '../../apimachinery/go-json-syntax.js';
import { goPatchedDocument, patchInvalid } from '../../patch/patch-invalid.js';
import type { RequestInfo } from '../request-info.js';
import { decodeBody, findDuplicateKeys, readBody } from '../http/body.js';
import { negotiateObjectOutput } from '../http/negotiation.js';
import { addWarnings, writeJson } from '../http/response.js';
import { writeList, writeObject } from './render.js';
import { type FieldValidation, parseDryRun, parseFieldManager, parseFieldValidation, parseLimit, parseSelection, validateListOptions } from './query-options.js';
import { parseBoolParam } from '../../apimachinery/query-params.js';
import { serveWatch } from './watch.js';
import { dropUnknownFields } from './drop-unknown-fields.js';
import type { Admission } from '../admission/admission.js';
import { unknownFieldsOf } from '../../apimachinery/schema/unknown-fields.js';
import { firstDecodeTypeError } from '../../apimachinery/schema/decode-type-errors.js';
import { builtinCatalog } from '../../apimachinery/schema/builtin/index.js';
import { checkAppliedName, checkApplyConfiguration, decodeApplyBody, parseApplyOptions, yamlDuplicateKeys } from '../../patch/apply/apply-request.js';
import { fieldManagerFor } from '../../registry/generic/field-manager-for.js';

export interface ResourceRequest {
  req: IncomingMessage;
  res: ServerResponse;
  info: RequestInfo;
  query: URLSearchParams;
  ctx: RequestContext;
  store: GenericStore;
  admission: Admission;
}

/** Dispatches a resource request to its verb (k8s.io/apiserver pkg/endpoints/handlers). */
export async function handleResource(r: ResourceRequest): Promise<void> {
  const { info, store } = r;
  const def = store.def;
  if (info.subresource && !def.subresources.some((s) => s.name === info.subresource)) throw errors.notFoundPath();
  // A terminating CRD's reduced verb list is for discovery only; its objects keep every verb but create (below).
  if (!def.terminating && !def.verbs.includes(info.verb) && !(info.subresource && ['get', 'update', 'patch'].includes(info.verb))) {
    // Upstream registers no route for a verb the storage does not implement (e.g. deletecollection on namespaces),
    // so go-restful answers with its generic 405 rather than NewMethodNotSupported.
    throw errors.methodNotAllowed();
  }
  // The routes upstream's installer registers (endpoints/installer.go registerResourceHandlers): a namespaced
  // resource's all-namespaces path takes only list and watch; a collection takes no PUT or PATCH; an item takes no
  // POST. Other methods find no route: go-restful's 405. (A deletecollection across all namespaces must never run.)
  if (def.namespaced && !info.namespace) {
    if (info.name) throw errors.notFoundPath();
    if (info.verb !== 'list' && info.verb !== 'watch') throw errors.methodNotAllowed();
  }
  if (!info.name && (info.verb === 'update' || info.verb === 'patch')) throw errors.methodNotAllowed();
  if (info.name && !info.subresource && info.verb === 'create') throw errors.methodNotAllowed();
  if (def.terminating && info.verb === 'create' && !info.subresource) {
    // customresource_handler.go serveResource: NewMethodNotSupported with its message replaced.
    const err = errors.methodNotSupported({ group: def.group, resource: def.resource }, info.verb);
    err.status.message = `${info.verb} not allowed while custom resource definition is terminating`;
    throw err;
  }
  if (def.deprecationWarning) addWarnings(r.res, [def.deprecationWarning]);
  switch (info.verb) {
    case 'get':
      return handleGet(r);
    case 'list':
      return handleList(r);
    case 'watch':
      return serveWatch(r);
    case 'create':
      return handleCreate(r);
    case 'update':
      return handleUpdate(r);
    case 'patch':
      return handlePatch(r);
    case 'delete':
      return handleDelete(r);
    case 'deletecollection':
      return handleDeleteCollection(r);
    default:
      throw errors.methodNotSupported({ group: def.group, resource: def.resource }, info.verb);
  }
}

/** The meta.k8s.io options kind a write verb's query parameters are validated as. */
function optionsKindOf(verb: string): string {
  return verb === 'update' ? 'UpdateOptions' : verb === 'patch' ? 'PatchOptions' : 'CreateOptions';
}

function namespaceOf(r: ResourceRequest): string {
  return r.store.def.namespaced ? r.info.namespace : '';
}

/** The object a response carries: the subresource's own kind when it has a view (Scale), else the object itself. */
function subresourceView(r: ResourceRequest, obj: KubeObject): KubeObject {
  const view = r.info.subresource ? r.store.def.subresourceStrategies[r.info.subresource]?.view : undefined;
  return view ? view(obj) : obj;
}

async function handleGet(r: ResourceRequest): Promise<void> {
  const output = negotiateObjectOutput(r.req.headers.accept, r.query.get('includeObject'), true);
  const obj = await r.store.get(r.ctx, namespaceOf(r), r.info.name, r.query.get('resourceVersion') ?? undefined);
  writeObject(r.res, 200, subresourceView(r, obj), output, r.store.def);
}

async function handleList(r: ResourceRequest): Promise<void> {
  const output = negotiateObjectOutput(r.req.headers.accept, r.query.get('includeObject'), true);
  validateListOptions(r.query, false);
  const result = await r.store.list(
    r.ctx,
    namespaceOf(r),
    {
      selection: parseSelection(r.query, r.store.fieldLabelSupport()),
      limit: parseLimit(r.query),
      continue: r.query.get('continue') || undefined,
      resourceVersion: r.query.get('resourceVersion') ?? undefined,
      resourceVersionMatch: r.query.get('resourceVersionMatch') || undefined,
    },
    r.info.wildcardCluster,
  );
  writeList(r.res, result.items, result, output, r.store.def);
}

/** Decodes a write body and checks it is this resource's kind and version. */
async function decodeObject(r: ResourceRequest): Promise<{ obj: KubeObject; warnings: string[] }> {
  const def = r.store.def;
  const sub = r.info.subresource ? def.subresources.find((s) => s.name === r.info.subresource) : undefined;
  // A subresource of another kind (Scale) is written in that kind's group version (autoscaling/v1).
  const gv = sub?.version !== undefined && def.subresourceStrategies[sub.name]?.view ? groupVersionString(sub.group ?? '', sub.version) : groupVersionString(def.group, def.version);
  const expectedKind = r.info.subresource ? (sub?.kind ?? def.kind) : def.kind;
  const buf = await readBody(r.req);
  const decoded = decodeBody(buf, r.req.headers['content-type'], { kind: expectedKind, version: def.version });
  const obj = decoded.object as KubeObject;
  if (obj.apiVersion !== undefined && obj.apiVersion !== gv) {
    throw errors.badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${gv})`);
  }
  if (obj.kind !== undefined && obj.kind !== expectedKind) {
    throw errors.badRequest(`the object provided is unrecognized (must be of type ${expectedKind}): kind ${JSON.stringify(obj.kind)} in version ${JSON.stringify(gv)}`);
  }
  // Go's decoding of a built-in kind fails on a value of the wrong JSON type, before any field validation (metadata
  // that is not an object included: `json: cannot unmarshal string into Go struct field ConfigMap.metadata ...`).
  const typeName = r.info.subresource ? undefined : def.definitionName;
  if (typeName !== undefined && builtinCatalog.has(typeName)) {
    const typeError = firstDecodeTypeError(obj, builtinCatalog, typeName);
    if (typeError) throw errors.badRequest(`${expectedKind} in version "${def.version}" cannot be handled as a ${expectedKind}: ${typeError}`);
  }
  if (obj.metadata !== undefined && !isPlainObject(obj.metadata)) {
    throw errors.badRequest(`${expectedKind} in version "${def.version}" cannot be handled as a ${expectedKind}: metadata must be an object`);
  }
  const warnings = fieldValidationProblems(r, obj, decoded.duplicateFields.map((d) => `duplicate field "${d}"`), expectedKind);
  return { obj, warnings };
}

/**
 * fieldValidation: unknown and duplicate fields fail the request (Strict), come back as warnings (Warn), or are ignored.
 * Unknown fields are found against the built-in type catalog; custom resources do this in their schema pipeline.
 */
function fieldValidationProblems(
  r: ResourceRequest,
  obj: KubeObject,
  duplicates: string[],
  kind: string,
  strictFailure?: (detail: string) => StatusError,
  sortUnknown = false,
  decodedAs: KubeObject = obj,
  withDefaults = true,
): string[] {
  const mode: FieldValidation = parseFieldValidation(r.query, optionsKindOf(r.info.verb));
  const typeName = r.info.subresource ? undefined : r.store.def.definitionName;
  const catalogued = typeName !== undefined && builtinCatalog.has(typeName) ? typeName : undefined;
  // Custom resources prune (and default) by their schema; a subresource of another kind (Scale) is not theirs.
  const sub = r.info.subresource ? r.store.def.subresourceStrategies[r.info.subresource] : undefined;
  const prunedByCustomSchema = r.store.def.decodeCustomResource && !sub?.view ? r.store.def.decodeCustomResource(obj, withDefaults) : [];
  // Unless the request fails, unknown fields go, as decoding into the Go type drops them: they are never stored.
  if (mode === 'Ignore') {
    if (catalogued) dropUnknownFields(obj, builtinCatalog, catalogued);
    return [];
  }
  const problems: string[] = [...duplicates];
  const unknown: string[] = [];
  if (catalogued) {
    for (const f of unknownFieldsOf(decodedAs, builtinCatalog, catalogued)) unknown.push(`unknown field "${f}"`);
  }
  for (const f of prunedByCustomSchema) unknown.push(`unknown field "${f}"`);
  // The unstructured converter (strategic merge patches) reports its unknown fields sorted.
  if (sortUnknown) unknown.sort();
  problems.push(...unknown);
  if (problems.length === 0) return [];
  if (mode === 'Strict') {
    const detail = `strict decoding error: ${problems.join(', ')}`;
    if (strictFailure) throw strictFailure(detail);
    throw errors.badRequest(`${kind} in version "${r.store.def.version}" cannot be handled as a ${kind}: ${detail}`);
  }
  if (catalogued) dropUnknownFields(obj, builtinCatalog, catalogued);
  return problems;
}

/**
 * dedupOwnerReferencesAndAddWarning (handlers/rest.go): an owner reference whose UID was seen before and that equals
 * one already kept is dropped, and the request gets a warning listing the dropped UIDs. Create and update do this
 * before and after mutating admission, a patch only after (its own wording).
 */
function dedupOwnerReferences(obj: KubeObject, afterMutatingAdmission: boolean): string[] {
  const refs = isPlainObject(obj.metadata) ? obj.metadata.ownerReferences : undefined;
  if (!Array.isArray(refs) || refs.length < 2) return [];
  const kept: unknown[] = [];
  const seen = new Set<unknown>();
  const duplicates: string[] = [];
  for (const ref of refs) {
    const uid = isPlainObject(ref) ? (ref.uid ?? '') : undefined;
    if (!seen.has(uid) || !kept.some((k) => jsonEqual(k, ref))) {
      seen.add(uid);
      kept.push(ref);
    } else {
      duplicates.push(String(uid));
    }
  }
  if (duplicates.length === 0) return [];
  obj.metadata!.ownerReferences = kept as NonNullable<ObjectMeta['ownerReferences']>;
  const what = afterMutatingAdmission ? 'contains duplicate entries after mutating admission happens' : 'contains duplicate entries';
  return [
    `.metadata.ownerReferences ${what}; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: ${duplicates.join(', ')}`,
  ];
}

async function handleCreate(r: ResourceRequest): Promise<void> {
  const def = r.store.def;
  const computed = def.computedCreates?.[r.info.subresource];
  if (computed) return handleComputedCreate(r, computed);
  if (r.info.subresource) throw errors.methodNotSupported({ group: def.group, resource: `${def.resource}/${r.info.subresource}` }, 'create');
  // POST goes to the collection; upstream has no route for POST on an item and go-restful answers 405.
  if (r.info.name) throw errors.methodNotAllowed();
  const output = negotiateObjectOutput(r.req.headers.accept, null, false);
  const dryRun = parseDryRun(r.query, 'CreateOptions');
  const fieldManager = parseFieldManager(r.query, r.req.headers['user-agent'], 'CreateOptions');
  const { obj, warnings } = await decodeObject(r);
  const meta = metaOf(obj);
  if (def.namespaced) {
    if (meta.namespace && meta.namespace !== r.info.namespace) {
      throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    meta.namespace = r.info.namespace;
  }
  warnings.push(...dedupOwnerReferences(obj, false));
  await r.admission.admit({ operation: 'CREATE', ctx: r.ctx, def, namespace: namespaceOf(r), name: meta.name ?? '', object: obj });
  warnings.push(...dedupOwnerReferences(obj, true));
  // The decoded body is this request's own: the store may write into it.
  const created = await r.store.create(r.ctx, namespaceOf(r), obj, { dryRun, fieldManager, inputHandedOver: true });
  addWarnings(r.res, [...warnings, ...(def.strategy.warnings?.(created) ?? [])]);
  writeObject(r.res, 201, created, output, def);
}

/** A create answered by code (access/token reviews, serviceaccounts/token): decode as the expected kind, compute, 201. */
async function handleComputedCreate(r: ResourceRequest, compute: ComputedCreate): Promise<void> {
  const def = r.store.def;
  const sub = r.info.subresource ? def.subresources.find((s) => s.name === r.info.subresource) : undefined;
  const kind = sub?.kind ?? def.kind;
  const version = sub?.version ?? def.version;
  const gv = sub ? groupVersionString(sub.group ?? def.group, version) : groupVersionString(def.group, def.version);
  const output = negotiateObjectOutput(r.req.headers.accept, null, false);
  const decoded = decodeBody(await readBody(r.req), r.req.headers['content-type'], { kind, version });
  const obj = decoded.object as KubeObject;
  if (obj.apiVersion !== undefined && obj.apiVersion !== gv) {
    throw errors.badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${gv})`);
  }
  if (obj.kind !== undefined && obj.kind !== kind) {
    throw errors.badRequest(`the object provided is unrecognized (must be of type ${kind}): kind ${JSON.stringify(obj.kind)} in version ${JSON.stringify(gv)}`);
  }
  const result = await compute(r.ctx, { namespace: namespaceOf(r), name: r.info.name, subresource: r.info.subresource, object: obj });
  writeObject(r.res, 201, result, output, def);
}

async function handleUpdate(r: ResourceRequest): Promise<void> {
  const def = r.store.def;
  const output = negotiateObjectOutput(r.req.headers.accept, null, false);
  const dryRun = parseDryRun(r.query, 'UpdateOptions');
  const fieldManager = parseFieldManager(r.query, r.req.headers['user-agent'], 'UpdateOptions');
  const { obj, warnings } = await decodeObject(r);
  const meta = metaOf(obj);
  if (meta.name !== undefined && meta.name !== r.info.name) {
    throw errors.badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${r.info.name})`);
  }
  if (def.namespaced && meta.namespace && meta.namespace !== r.info.namespace) {
    throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  warnings.push(...dedupOwnerReferences(obj, false));
  await r.admission.admit({ operation: 'UPDATE', ctx: r.ctx, def, namespace: namespaceOf(r), name: r.info.name, object: obj, subresource: r.info.subresource });
  warnings.push(...dedupOwnerReferences(obj, true));
  const { object, created } = await r.store.update(r.ctx, namespaceOf(r), r.info.name, obj, { dryRun, fieldManager }, r.info.subresource);
  addWarnings(r.res, warnings);
  writeObject(r.res, created ? 201 : 200, subresourceView(r, object), output, def);
}

async function handlePatch(r: ResourceRequest): Promise<void> {
  const def = r.store.def;
  const output = negotiateObjectOutput(r.req.headers.accept, null, false);
  const contentType = r.req.headers['content-type'];
  const patchType = patchTypeFromContentType(contentType ?? '');
  const accepted = ['application/json-patch+json', 'application/merge-patch+json'];
  if (def.strategicMergePatch) accepted.push('application/strategic-merge-patch+json');
  accepted.push('application/apply-patch+yaml');
  if (!patchType || (patchType === 'strategic' && !def.strategicMergePatch)) {
    throw errors.unsupportedMediaType(String(contentType), accepted);
  }
  if (patchType === 'apply') return handleApply(r);
  const dryRun = parseDryRun(r.query, 'PatchOptions');
  const fieldManager = parseFieldManager(r.query, r.req.headers['user-agent'], 'PatchOptions');
  if (r.query.get('force') !== null) {
    throw errors.invalid('meta.k8s.io', 'PatchOptions', '', [
      { type: 'FieldValueForbidden', field: 'force', detail: 'may not be specified for non-apply patch', omitValue: true },
    ]);
  }
  const fieldValidation = parseFieldValidation(r.query, 'PatchOptions'); // a bad value fails before the body is read
  const body = await readBody(r.req);
  let patch: unknown;
  try {
    patch = JSON.parse(body.toString('utf8'));
  } catch {
    // Go's words for the syntax error, from whichever decoding meets it first (handlers/patch.go): the strict
    // pre-decode of JSON and merge patches (Strict/Warn, the default) prefixes `error decoding patch: `; without it
    // (Ignore) a JSON patch's jsonpatch.DecodePatch says it bare and a merge patch's jsonpatch.MergePatch says
    // `Invalid JSON Patch`; a strategic merge patch's decoding never prefixes.
    const syntax = goJSONSyntaxError(body.toString('utf8')) ?? 'unexpected end of JSON input';
    if (patchType === 'strategic') throw errors.badRequest(syntax);
    if (fieldValidation === 'Ignore') throw errors.badRequest(patchType === 'merge' ? 'Invalid JSON Patch' : syntax);
    throw errors.badRequest(`error decoding patch: ${syntax}`);
  }
  // kjson.UnmarshalStrict of the body (Strict and Warn only): a JSON patch's are about its operations.
  const patchDuplicates =
    fieldValidation === 'Ignore' ? [] : findDuplicateKeys(body.toString('utf8')).map((d) => `${patchType === 'json' ? 'json patch ' : ''}duplicate field "${d}"`);
  let warnings: string[] = [];
  const { object } = await r.store.guaranteedUpdate(
    r.ctx,
    namespaceOf(r),
    r.info.name,
    async (current) => {
      const subStrategy = r.info.subresource ? def.subresourceStrategies[r.info.subresource] : undefined;
      // A subresource with its own kind (Scale) is patched in that form; the store maps the result onto the parent.
      const original = subStrategy?.view ? subStrategy.view(current!) : current!;
      const typeName = subStrategy?.view ? (subStrategy.viewDefinitionName ?? def.definitionName) : def.definitionName;
      const patched = applyPatch(patchType, original, patch, { catalog: builtinCatalog, typeName }) as KubeObject;
      if (!isPlainObject(patched)) throw errors.badRequest('the patch produced something that is not an object');
      // The result is decoded into the Go type before anything else looks at it: a value of the wrong type is a 422
      // naming the whole patched document (JSON and merge patches) or the patch (strategic, through the unstructured
      // converter, hence its own wording).
      if (builtinCatalog.has(typeName)) {
        const gvkError = patchType === 'strategic' ? stringTypeMetaError(patched) : patchedKindError(patched, original);
        if (gvkError) throw patchInvalid(patchType, patched, patch, gvkError);
        // JSON decoding defaults a missing apiVersion or kind from the type decoded into; a strategic merge patch's
        // result is converted into a new object of the resource's own type, whatever it says.
        if (patchType === 'strategic') {
          patched.apiVersion = original.apiVersion;
          patched.kind = original.kind;
        }
        patched.apiVersion ||= original.apiVersion;
        patched.kind ||= original.kind;
        const typeError = firstDecodeTypeError(patched, builtinCatalog, typeName, patchType === 'strategic' ? 'unstructured' : 'json');
        if (typeError) throw patchInvalid(patchType, patched, patch, typeError);
      }
      // Strict/Warn: the patch body's own duplicate fields, then the result's unknown fields; Strict fails with the
      // same 422 patch error as a type error (not the create/update 400), Warn returns them as warnings.
      warnings = fieldValidationProblems(
        r,
        patched,
        patchDuplicates,
        def.kind,
        (detail) => patchInvalid(patchType, patched, patch, detail),
        patchType === 'strategic',
        patchType === 'strategic' ? patched : (goPatchedDocument(patchType, patched, patch) as KubeObject),
      );
      // checkName (handlers/rest.go) on the patched object: a patch that removes the name (or all of metadata) leaves
      // an object whose name cannot be determined; one that changes it is caught by the store's identity check.
      const patchedMeta = patched.metadata;
      if (!(isPlainObject(patchedMeta) && typeof patchedMeta.name === 'string' && patchedMeta.name !== '')) {
        throw errors.badRequest(`the name of the object (${r.info.name} based on URL) was undeterminable: name must be provided`);
      }
      // A resourceVersion inside the patch is a precondition (kubectl diff and apply send one).
      const wanted = patched.metadata?.resourceVersion;
      if (wanted !== undefined && wanted !== original.metadata?.resourceVersion) {
        throw errors.conflictModified({ group: def.group, resource: def.resource }, r.info.name);
      }
      if (!builtinCatalog.has(typeName) && (patched.apiVersion !== original.apiVersion || patched.kind !== original.kind)) {
        // atrium's own answer for custom resources, whose unstructured decoding upstream is not modelled here.
        throw errors.badRequest(`the API version or kind of the object changed in the patch`);
      }
      await r.admission.admit({ operation: 'UPDATE', ctx: r.ctx, def, namespace: namespaceOf(r), name: r.info.name, object: patched, oldObject: original, subresource: r.info.subresource });
      warnings.push(...dedupOwnerReferences(patched, true));
      return patched;
    },
    { dryRun, fieldManager },
    r.info.subresource,
  );
  addWarnings(r.res, warnings);
  writeObject(r.res, 200, subresourceView(r, object), output, def);
}

/** The unstructured converter's error for a non-string apiVersion or kind (TypeMeta's string fields). */
function stringTypeMetaError(patched: KubeObject): string | undefined {
  for (const field of ['apiVersion', 'kind'] as const) {
    const v = patched[field];
    if (v === undefined || v === null || typeof v === 'string') continue;
    return typeof v === 'number' && Number.isInteger(v) ? 'cannot convert int64 to string' : 'unrecognized type: string';
  }
  return undefined;
}

/**
 * Why the JSON serializer cannot decode a patch result into the resource's type because of its apiVersion or kind
 * (runtime/serializer/json Decode): a non-string one fails reading them, a missing one is defaulted from the type,
 * and a pair naming another type fails as not registered (or, for a registered type, as a conversion atrium does not
 * have). Every built-in kind is reported in kube-apiserver's legacy scheme, as most of them are upstream.
 */
function patchedKindError(patched: KubeObject, original: KubeObject): string | undefined {
  for (const field of ['apiVersion', 'kind'] as const) {
    const v = patched[field];
    if (v !== undefined && v !== null && typeof v !== 'string') {
      const what = Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : 'number';
      return `couldn't get version/kind; json parse error: json: cannot unmarshal ${what} into Go struct field .${field} of type string`;
    }
  }
  const apiVersion = (patched.apiVersion as string | undefined) || original.apiVersion || '';
  const kind = (patched.kind as string | undefined) || original.kind || '';
  if (apiVersion === original.apiVersion && kind === original.kind) return undefined;
  const slash = apiVersion.indexOf('/');
  const [group, version] = slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
  const registered = [...builtinCatalog.values()].find((t) => t.gvk?.some((g) => g.group === group && g.version === version && g.kind === kind));
  if (!registered) {
    return `no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)} in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"`;
  }
  const target = [...builtinCatalog.values()].find((t) => t.gvk?.some((g) => groupVersionString(g.group, g.version) === original.apiVersion && g.kind === original.kind));
  const pkg = (name: string, back: number) => name.split('.').at(-back) ?? '';
  return `converting (${pkg(registered.name, 2)}.${kind}) to (${target ? pkg(target.name, 3) : ''}.${original.kind}): unknown conversion`;
}

/**
 * Server-side apply (application/apply-patch+yaml): the configuration is merged over the live object by the
 * resource's field manager, which also answers 409 on conflicts; a missing object is created (201).
 */
async function handleApply(r: ResourceRequest): Promise<void> {
  const def = r.store.def;
  const output = negotiateObjectOutput(r.req.headers.accept, null, false);
  const { fieldManager, force } = parseApplyOptions(r.query);
  const dryRun = parseDryRun(r.query, 'PatchOptions');
  const fieldValidation = parseFieldValidation(r.query, 'PatchOptions');
  const body = await readBody(r.req);
  const config = decodeApplyBody(body);
  if (r.info.subresource && def.subresourceStrategies[r.info.subresource]?.view) {
    throw errors.unsupportedMediaType('application/apply-patch+yaml', ['application/json-patch+json', 'application/merge-patch+json']);
  }
  const manager = fieldManagerFor(def, r.info.subresource);
  checkApplyConfiguration(config, groupVersionString(def.group, def.version), def.kind, manager.rootType);
  // Duplicate keys, by their YAML line; a JSON body without any (the common case) is not parsed again.
  const text = body.toString('utf8');
  const duplicates =
    fieldValidation === 'Ignore' || (/^\s*\{/.test(text) && findDuplicateKeys(text).length === 0) ? [] : yamlDuplicateKeys(text);
  // The configuration is pruned but not defaulted: defaults go into the merged object below.
  const warnings = [...duplicates, ...fieldValidationProblems(r, config, [], def.kind, undefined, false, config, false)];
  const sub = r.info.subresource ? def.subresourceStrategies[r.info.subresource] : undefined;
  const defaultMerged = sub?.view ? undefined : def.defaultCustomResource;
  const { object, created } = await r.store.guaranteedUpdate(
    r.ctx,
    namespaceOf(r),
    r.info.name,
    async (current) => {
      const applied = manager.apply(current, config, fieldManager, force);
      if (applied !== current) defaultMerged?.(applied);
      // After a successful apply, Strict and Warn decode the body again with yaml.UnmarshalStrict (applyPatcher).
      if (duplicates.length && fieldValidation === 'Strict') {
        throw errors.badRequest(`error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  ${duplicates.join('\n  ')}`);
      }
      // patcher.applyPatch: an object created by the apply must not carry a uid of its own.
      const appliedUID = applied.metadata?.uid;
      if (!current && typeof appliedUID === 'string' && appliedUID !== '') {
        throw errors.conflict(
          { group: def.group, resource: def.resource },
          r.info.name,
          `uid mismatch: the provided object specified uid ${appliedUID}, and no existing object was found`,
        );
      }
      checkAppliedName(applied, r.info.name, namespaceOf(r));
      // The field manager hands back the live object itself when the apply changes nothing.
      const unchanged = applied === current;
      await r.admission.admit({
        operation: current ? 'UPDATE' : 'CREATE',
        ctx: r.ctx,
        def,
        namespace: namespaceOf(r),
        name: r.info.name,
        object: applied,
        oldObject: current ?? undefined,
        subresource: r.info.subresource,
      });
      // A resourceVersion in the configuration is a precondition on the existing object (the store's update checks
      // the merged object's), also when nothing would change.
      const wanted = isPlainObject(config.metadata) ? config.metadata.resourceVersion : undefined;
      if (current && typeof wanted === 'string' && wanted !== '' && wanted !== current.metadata?.resourceVersion) {
        throw errors.conflictModified({ group: def.group, resource: def.resource }, r.info.name);
      }
      return unchanged ? NO_CHANGE : applied;
    },
    { dryRun },
    r.info.subresource,
    !r.info.subresource,
  );
  addWarnings(r.res, warnings);
  writeObject(r.res, created ? 201 : 200, subresourceView(r, object), output, def);
}

/**
 * DeleteOptions as endpoints/handlers/delete.go reads them: from the body when one is sent (JSON or protobuf; any of
 * the accepted apiVersions), otherwise from the query parameters (never merged), then ValidateDeleteOptions.
 */
async function parseDeleteOptions(r: ResourceRequest): Promise<DeleteOptions> {
  const buf = await readBody(r.req);
  let policy: string | undefined;
  let orphanDependents: boolean | undefined;
  let dryRun: string[];
  let preconditions: DeleteOptions['preconditions'];
  if (buf.length > 0) {
    const body = decodeBody(buf, r.req.headers['content-type'], { kind: 'DeleteOptions', version: 'v1' }).object as Record<string, unknown>;
    if (body.kind !== undefined && body.kind !== 'DeleteOptions') {
      throw errors.badRequest(`the object provided is unrecognized (must be of type DeleteOptions): kind ${JSON.stringify(body.kind)}`);
    }
    policy = (body.propagationPolicy as string | null | undefined) ?? undefined;
    orphanDependents = (body.orphanDependents as boolean | null | undefined) ?? undefined;
    dryRun = Array.isArray(body.dryRun) ? body.dryRun.map(String) : [];
    if (isPlainObject(body.preconditions)) {
      const pre = body.preconditions as { uid?: string; resourceVersion?: string };
      preconditions = { uid: pre.uid, resourceVersion: pre.resourceVersion };
    }
  } else {
    policy = r.query.get('propagationPolicy') ?? undefined;
    orphanDependents = parseBoolParam(r.query, 'orphanDependents');
    dryRun = r.query.getAll('dryRun');
  }
  // ValidateDeleteOptions reports every problem, in this order.
  const errs: FieldError[] = [];
  if (orphanDependents !== undefined && policy !== undefined) {
    errs.push(fe.invalid('propagationPolicy', policy, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  if (policy !== undefined && policy !== 'Foreground' && policy !== 'Background' && policy !== 'Orphan') {
    errs.push(fe.notSupported('propagationPolicy', policy, ['Foreground', 'Background', 'Orphan', 'nil']));
  }
  if (dryRun.some((v) => v !== 'All')) {
    // Go prints the rejected []string with %#v.
    errs.push({ ...fe.notSupported('dryRun', dryRun, ['All']), renderedValue: `[]string{${dryRun.map((v) => JSON.stringify(v)).join(', ')}}` });
  }
  if (errs.length) throw errors.invalid('meta.k8s.io', 'DeleteOptions', '', errs);
  const opts: DeleteOptions = { dryRun: dryRun.length > 0 };
  if (policy !== undefined) opts.propagationPolicy = policy as DeleteOptions['propagationPolicy'];
  if (orphanDependents !== undefined) opts.orphanDependents = orphanDependents;
  if (preconditions) opts.preconditions = preconditions;
  return opts;
}

async function handleDelete(r: ResourceRequest): Promise<void> {
  const def = r.store.def;
  if (r.info.subresource) throw errors.methodNotSupported({ group: def.group, resource: `${def.resource}/${r.info.subresource}` }, 'delete');
  const output = negotiateObjectOutput(r.req.headers.accept, null, false);
  const opts = await parseDeleteOptions(r);
  await r.admission.admit({ operation: 'DELETE', ctx: r.ctx, def, namespace: namespaceOf(r), name: r.info.name });
  const result = await r.store.delete(r.ctx, namespaceOf(r), r.info.name, opts);
  if (result.deleted && !def.strategy.returnDeletedObject) {
    writeJson(r.res, 200, r.store.deletedStatus(result.object));
    return;
  }
  // delete.go: an object not removed yet after a cascading request in the deprecated form answers 202.
  writeObject(r.res, !result.deleted && opts.orphanDependents === false ? 202 : 200, result.object, output, def);
}

async function handleDeleteCollection(r: ResourceRequest): Promise<void> {
  const def = r.store.def;
  const output = negotiateObjectOutput(r.req.headers.accept, r.query.get('includeObject'), true);
  const listOpts = {
    selection: parseSelection(r.query, r.store.fieldLabelSupport()),
    limit: parseLimit(r.query),
    continue: r.query.get('continue') || undefined,
    resourceVersion: r.query.get('resourceVersion') ?? undefined,
    resourceVersionMatch: r.query.get('resourceVersionMatch') || undefined,
  };
  const opts = await parseDeleteOptions(r);
  await r.admission.admit({ operation: 'DELETE', ctx: r.ctx, def, namespace: namespaceOf(r), name: '' });
  // The answer is the list that was deleted, as listed (with its resourceVersion and, under a limit, continue).
  const listed = await r.store.deleteCollection(r.ctx, namespaceOf(r), listOpts, opts);
  writeList(r.res, listed.items, listed, output, def);
}

export { StatusError };
