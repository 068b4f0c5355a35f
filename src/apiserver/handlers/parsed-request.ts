import { isValidPathSegmentName } from '../../apimachinery/validation/names.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KubeObject } from '../../apimachinery/object.js';
import { errors, type StatusError } from '../../apimachinery/status.js';
import type { GenericStore, ListOptions } from '../../registry/generic/store.js';
import type { ComputedCreate, RequestContext, ResourceDefinition, SubresourceStrategy } from '../../registry/rest.js';
import { patchTypeFromContentType, type PatchType } from '../../patch/apply-patch.js';
import { parseApplyOptions } from '../../patch/apply/apply-request.js';
import type { Admission } from '../admission/admission.js';
import { negotiateObjectOutput, type ObjectOutput } from '../http/negotiation.js';
import { servesProtobuf } from './render.js';
import type { RequestInfo } from '../request-info.js';
import { type FieldValidation, parseDryRun, parseFieldManager, parseFieldValidation, parseLimit, parseSelection, parseTimeoutSeconds, validateListOptions } from './query-options.js';
import { parseBoolParam } from '../../apimachinery/query-params.js';

/** A resource request as the router hands it over, with what serving it needs. */
export interface ResourceRequest {
  req: IncomingMessage;
  res: ServerResponse;
  info: RequestInfo;
  query: URLSearchParams;
  ctx: RequestContext;
  store: GenericStore;
  admission: Admission;
}

/** What every verb handler receives: the request, its target, the negotiated output and its verb's options. */
export interface RequestTarget {
  req: IncomingMessage;
  res: ServerResponse;
  info: RequestInfo;
  ctx: RequestContext;
  store: GenericStore;
  def: ResourceDefinition;
  admission: Admission;
  /** The URL's namespace for a namespaced resource, '' otherwise. */
  namespace: string;
  name: string;
  subresource: string;
  subresourceStrategy: SubresourceStrategy | undefined;
  contentType: string | undefined;
  output: ObjectOutput;
}

/** The options of a write that takes a body (create, update, patch, apply). */
export interface WriteOptions {
  dryRun: boolean;
  fieldManager: string;
  fieldValidation: FieldValidation;
}

/** Create and update: a bad fieldValidation is reported only after the body decoded (the body's own errors win). */
export interface BodyWriteOptions extends WriteOptions {
  fieldValidationError?: StatusError;
}

export interface PatchOptions extends WriteOptions {
  patchType: PatchType;
}

export interface ApplyOptions extends WriteOptions {
  force: boolean;
}

export interface WatchRequestOptions {
  selection: ListOptions['selection'];
  resourceVersion?: string;
  sendInitialEvents?: boolean;
  allowBookmarks: boolean;
  /** Unset: the handler picks one. */
  timeoutSeconds?: number;
}

/** DeleteOptions as sent in the query (the body, when there is one, replaces them), before ValidateDeleteOptions. */
export interface SentDeleteOptions {
  propagationPolicy?: string;
  orphanDependents?: boolean;
  dryRun: string[];
  preconditions?: { uid?: string; resourceVersion?: string };
  /** Seconds the object may take to go, for kinds that delete gracefully (pods on a cluster with a kubelet). */
  gracePeriodSeconds?: number;
}

/** The options each verb is served with ('computed-create' and 'apply' are creates and patches served apart). */
export interface VerbOptions {
  get: { resourceVersion?: string };
  list: ListOptions;
  watch: WatchRequestOptions;
  create: BodyWriteOptions;
  'computed-create': { compute: ComputedCreate; dryRun: boolean };
  update: BodyWriteOptions;
  patch: PatchOptions;
  apply: ApplyOptions;
  delete: SentDeleteOptions;
  deletecollection: { list: ListOptions; delete: SentDeleteOptions };
}

export type Verb = keyof VerbOptions;

/** A request parsed for its verb: the handler of `verb` gets ParsedRequest<verb>. */
export type ParsedRequest<V extends Verb = Verb> = { [K in V]: RequestTarget & { verb: K; options: VerbOptions[K] } }[V];

/**
 * Parses the request for its verb once: output negotiation, then the verb's query options and headers, each
 * validated in the order the verb has always reported their errors in. Bodies are read by the handlers.
 */
export function parseRequest(r: ResourceRequest): ParsedRequest {
  const { req, info, query, store } = r;
  const def = store.def;
  const subresource = info.subresource;
  // The scope namer refuses a name that is no valid path segment (handlers/namer.go), before anything else.
  if (info.name) {
    const msgs = isValidPathSegmentName(info.name);
    if (msgs.length) throw errors.badRequest(`Name parameter invalid: ${JSON.stringify(info.name)}: ${msgs.join(';')}`);
  }
  const target = {
    req,
    res: r.res,
    info,
    ctx: r.ctx,
    store,
    def,
    admission: r.admission,
    namespace: def.namespaced ? info.namespace : '',
    name: info.name,
    subresource,
    subresourceStrategy: subresource ? def.subresourceStrategies[subresource] : undefined,
    contentType: req.headers['content-type'],
  };
  const accept = req.headers.accept;
  const protobuf = servesProtobuf(def);
  const userAgent = req.headers['user-agent'];
  switch (info.verb) {
    case 'get': {
      const output = negotiateObjectOutput(accept, query.get('includeObject'), true, protobuf);
      return { ...target, output, verb: 'get', options: { resourceVersion: query.get('resourceVersion') ?? undefined } };
    }
    case 'list': {
      const output = negotiateObjectOutput(accept, query.get('includeObject'), true, protobuf);
      validateListOptions(query, false);
      return { ...target, output, verb: 'list', options: listOptions(r) };
    }
    case 'watch': {
      const output = negotiateObjectOutput(accept, query.get('includeObject'), true, protobuf);
      const sendInitialEvents = parseBoolParam(query, 'sendInitialEvents');
      const resourceVersion = query.get('resourceVersion') ?? undefined;
      validateListOptions(query, true);
      const allowBookmarks = parseBoolParam(query, 'allowWatchBookmarks') ?? false;
      const selection = parseSelection(query, store.fieldLabelSupport());
      const timeoutSeconds = parseTimeoutSeconds(query);
      return { ...target, output, verb: 'watch', options: { selection, resourceVersion, sendInitialEvents, allowBookmarks, timeoutSeconds } };
    }
    case 'create': {
      const output = negotiateObjectOutput(accept, null, false, protobuf);
      // A create answered by code takes none of CreateOptions.
      const compute = def.computedCreates?.[subresource];
      if (compute) return { ...target, output, verb: 'computed-create', options: { compute, dryRun: compute.admitted ? parseDryRun(query, 'CreateOptions') : false } };
      return { ...target, output, verb: 'create', options: bodyWriteOptions(query, userAgent, 'CreateOptions') };
    }
    case 'update': {
      const output = negotiateObjectOutput(accept, null, false, protobuf);
      return { ...target, output, verb: 'update', options: bodyWriteOptions(query, userAgent, 'UpdateOptions') };
    }
    case 'patch': {
      const output = negotiateObjectOutput(accept, null, false, protobuf);
      const patchType = patchTypeFromContentType(target.contentType ?? '');
      const accepted = ['application/json-patch+json', 'application/merge-patch+json'];
      if (def.strategicMergePatch) accepted.push('application/strategic-merge-patch+json');
      accepted.push('application/apply-patch+yaml');
      if (!patchType) throw errors.unsupportedPatchMediaType();
      if (patchType === 'strategic' && !def.strategicMergePatch) {
        throw errors.unsupportedMediaType(String(target.contentType), accepted);
      }
      if (patchType === 'apply') {
        const { fieldManager, force } = parseApplyOptions(query);
        const dryRun = parseDryRun(query, 'PatchOptions');
        const fieldValidation = parseFieldValidation(query, 'PatchOptions');
        return { ...target, output, verb: 'apply', options: { dryRun, fieldManager, force, fieldValidation } };
      }
      const dryRun = parseDryRun(query, 'PatchOptions');
      const fieldManager = parseFieldManager(query, userAgent, 'PatchOptions');
      if (query.get('force') !== null) {
        throw errors.invalid('meta.k8s.io', 'PatchOptions', '', [
          { type: 'FieldValueForbidden', field: 'force', detail: 'may not be specified for non-apply patch', omitValue: true },
        ]);
      }
      // A bad value fails before the body is read.
      const fieldValidation = parseFieldValidation(query, 'PatchOptions');
      return { ...target, output, verb: 'patch', options: { patchType, dryRun, fieldManager, fieldValidation } };
    }
    case 'delete': {
      const output = negotiateObjectOutput(accept, null, false, protobuf);
      return { ...target, output, verb: 'delete', options: sentDeleteOptions(query) };
    }
    case 'deletecollection': {
      const output = negotiateObjectOutput(accept, query.get('includeObject'), true, protobuf);
      return { ...target, output, verb: 'deletecollection', options: { list: listOptions(r), delete: sentDeleteOptions(query) } };
    }
    default:
      throw errors.methodNotSupported({ group: def.group, resource: def.resource }, info.verb);
  }
}

/** The object a response carries: the subresource's own kind when it has a view (Scale), else the object itself. */
export function subresourceView(r: RequestTarget, obj: KubeObject): KubeObject {
  const view = r.subresourceStrategy?.view;
  return view ? view(obj) : obj;
}

function listOptions(r: ResourceRequest): ListOptions {
  const { query } = r;
  return {
    selection: parseSelection(query, r.store.fieldLabelSupport()),
    limit: parseLimit(query),
    continue: query.get('continue') || undefined,
    resourceVersion: query.get('resourceVersion') ?? undefined,
    resourceVersionMatch: query.get('resourceVersionMatch') || undefined,
  };
}

function bodyWriteOptions(query: URLSearchParams, userAgent: string | undefined, optionsKind: string): BodyWriteOptions {
  const dryRun = parseDryRun(query, optionsKind);
  const fieldManager = parseFieldManager(query, userAgent, optionsKind);
  try {
    return { dryRun, fieldManager, fieldValidation: parseFieldValidation(query, optionsKind) };
  } catch (err) {
    return { dryRun, fieldManager, fieldValidation: 'Warn', fieldValidationError: err as StatusError };
  }
}

/** An integer query parameter (Go's strconv.ParseInt; anything else is ignored, as an unset value). */
function intParam(query: URLSearchParams, name: string): number | undefined {
  const v = query.get(name);
  return v !== null && /^-?\d+$/.test(v) ? Number(v) : undefined;
}

function sentDeleteOptions(query: URLSearchParams): SentDeleteOptions {
  return {
    propagationPolicy: query.get('propagationPolicy') ?? undefined,
    orphanDependents: parseBoolParam(query, 'orphanDependents'),
    dryRun: query.getAll('dryRun'),
    gracePeriodSeconds: intParam(query, 'gracePeriodSeconds'),
  };
}
