import * as fe from '../../apimachinery/field-errors.js';
import type { FieldError } from '../../apimachinery/field-errors.js';
import { isPlainObject } from '../../apimachinery/object.js';
import { errors } from '../../apimachinery/status.js';
import type { DeleteOptions } from '../../registry/generic/store.js';
import { decodeBody, readBody } from '../http/body.js';
import { addWarnings } from '../http/response.js';
import { optionsObject, validateDelete } from './admission-attributes.js';
import type { AdmissionAttributes } from '../admission/admission.js';
import type { ParsedRequest, RequestTarget, SentDeleteOptions } from './parsed-request.js';
import { writeList, writeObject } from './render.js';

/** DELETE of one object (k8s.io/apiserver handlers/delete.go). */
export async function handleDelete(r: ParsedRequest<'delete'>): Promise<void> {
  const def = r.def;
  const opts = await deleteOptionsOf(r, r.options);
  const attrs = deleteAttributes(r, r.name, opts);
  await r.admission.admit(attrs);
  attrs.warnings!.push(...(def.strategy.deleteWarnings?.(opts) ?? []));
  let result: Awaited<ReturnType<typeof r.store.delete>>;
  try {
    result = await r.store.delete(r.ctx, r.namespace, r.name, { ...opts, validateAdmission: validateDelete(r, attrs) });
  } finally {
    addWarnings(r.res, attrs.warnings!);
  }
  if (result.deleted && !def.strategy.returnDeletedObject) {
    writeObject(r.res, 200, r.store.deletedStatus(result.object), r.output, def);
    return;
  }
  // delete.go: an object not removed yet after a cascading request in the deprecated form answers 202.
  writeObject(r.res, !result.deleted && opts.orphanDependents === false ? 202 : 200, result.object, r.output, def);
}

/** DELETE of a collection (delete.go DeleteCollection). */
export async function handleDeleteCollection(r: ParsedRequest<'deletecollection'>): Promise<void> {
  const def = r.def;
  const opts = await deleteOptionsOf(r, r.options.delete);
  const attrs = deleteAttributes(r, '', opts);
  await r.admission.admit(attrs);
  attrs.warnings!.push(...(def.strategy.deleteWarnings?.(opts) ?? []));
  // The answer is the list that was deleted, as listed (with its resourceVersion and, under a limit, continue).
  let listed: Awaited<ReturnType<typeof r.store.deleteCollection>>;
  try {
    listed = await r.store.deleteCollection(r.ctx, r.namespace, r.options.list, { ...opts, validateAdmission: validateDelete(r, attrs) });
  } finally {
    addWarnings(r.res, attrs.warnings!);
  }
  writeList(r.res, listed.items, listed, r.output, def);
}

function deleteAttributes(r: RequestTarget, name: string, opts: DeleteOptions): AdmissionAttributes {
  const extra: Record<string, unknown> = {};
  if (opts.gracePeriodSeconds !== undefined) extra.gracePeriodSeconds = opts.gracePeriodSeconds;
  if (opts.propagationPolicy) extra.propagationPolicy = opts.propagationPolicy;
  if (opts.orphanDependents !== undefined) extra.orphanDependents = opts.orphanDependents;
  if (opts.preconditions) extra.preconditions = opts.preconditions;
  return {
    operation: 'DELETE', ctx: r.ctx, def: r.def, namespace: r.namespace, name, dryRun: opts.dryRun, warnings: [],
    options: optionsObject('DeleteOptions', { dryRun: opts.dryRun, extra }),
  };
}

/**
 * DeleteOptions as endpoints/handlers/delete.go reads them: from the body when one is sent (JSON or protobuf; any of
 * the accepted apiVersions), otherwise from the query parameters (never merged), then ValidateDeleteOptions.
 */
async function deleteOptionsOf(r: RequestTarget, fromQuery: SentDeleteOptions): Promise<DeleteOptions> {
  const buf = await readBody(r.req);
  const sent = buf.length > 0 ? deleteOptionsFromBody(decodeBody(buf, r.contentType, { kind: 'DeleteOptions', version: 'v1' }).object) : fromQuery;
  const { propagationPolicy: policy, orphanDependents, dryRun, preconditions, gracePeriodSeconds } = sent;
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
  if (gracePeriodSeconds !== undefined) opts.gracePeriodSeconds = gracePeriodSeconds;
  return opts;
}

function deleteOptionsFromBody(body: Record<string, unknown>): SentDeleteOptions {
  if (body.kind !== undefined && body.kind !== 'DeleteOptions') {
    throw errors.badRequest(`the object provided is unrecognized (must be of type DeleteOptions): kind ${JSON.stringify(body.kind)}`);
  }
  const sent: SentDeleteOptions = {
    propagationPolicy: (body.propagationPolicy as string | null | undefined) ?? undefined,
    orphanDependents: (body.orphanDependents as boolean | null | undefined) ?? undefined,
    dryRun: Array.isArray(body.dryRun) ? body.dryRun.map(String) : [],
  };
  if (typeof body.gracePeriodSeconds === 'number' && Number.isInteger(body.gracePeriodSeconds)) sent.gracePeriodSeconds = body.gracePeriodSeconds;
  if (isPlainObject(body.preconditions)) {
    const pre = body.preconditions as { uid?: string; resourceVersion?: string };
    sent.preconditions = { uid: pre.uid, resourceVersion: pre.resourceVersion };
  }
  return sent;
}
