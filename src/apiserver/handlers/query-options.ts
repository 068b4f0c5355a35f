import * as fe from '../../apimachinery/field-errors.js';
import { errors, StatusError } from '../../apimachinery/status.js';
import { parseFieldMatcher, parseLabelMatcher } from '../../registry/generic/selector-adapters.js';
import type { Selection } from '../../registry/generic/selection.js';
import { type FieldLabelSupport, unsupportedFieldLabelMessage } from '../../apimachinery/fields/field-labels.js';
import { parseBoolParam } from '../../apimachinery/query-params.js';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/**
 * dryRun: only "All" is valid. Anything else fails the options validation of the verb (ValidateCreateOptions,
 * ValidateUpdateOptions, ValidatePatchOptions, ValidateDeleteOptions → ValidateDryRun) with a 422 on `optionsKind`.
 */
export function parseDryRun(query: URLSearchParams, optionsKind: string): boolean {
  const values = query.getAll('dryRun');
  if (values.length === 0) return false;
  if (values.some((v) => v !== 'All')) throw unsupportedDryRun(optionsKind, values);
  return true;
}

/**
 * The 422 for dryRun values other than "All". The rejected value is the whole []string, which Go's field errors
 * print with %#v (`[]string{"true"}`); the field-error helpers have no such rendering, so the Status is built here.
 */
export function unsupportedDryRun(optionsKind: string, values: readonly string[]): StatusError {
  const body = `Unsupported value: []string{${values.map((v) => JSON.stringify(v)).join(', ')}}: supported values: "All"`;
  return new StatusError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `${optionsKind}.meta.k8s.io "" is invalid: dryRun: ${body}`,
    reason: 'Invalid',
    details: { group: 'meta.k8s.io', kind: optionsKind, causes: [{ reason: 'FieldValueNotSupported', message: body, field: 'dryRun' }] },
    code: 422,
  });
}

/**
 * fieldValidation: Strict, Warn (the server default) or Ignore. Anything else fails the verb's options validation
 * (ValidateFieldValidation) with a 422 on `optionsKind` (CreateOptions, UpdateOptions, PatchOptions).
 */
export function parseFieldValidation(query: URLSearchParams, optionsKind = 'CreateOptions'): FieldValidation {
  const v = query.get('fieldValidation');
  if (v === null || v === '') return 'Warn';
  if (v === 'Strict' || v === 'Warn' || v === 'Ignore') return v;
  throw errors.invalid('meta.k8s.io', optionsKind, '', [fe.notSupported('fieldValidation', v, ['', 'Ignore', 'Strict', 'Warn'])]);
}

/**
 * fieldManager: at most 128 printable characters (ValidateFieldManager on the parameter as sent); when empty or
 * absent, managerOrUserAgent takes the User-Agent up to its first "/", without unprintable characters and cut to 128
 * bytes; when that is empty too (no User-Agent), the manager is "unknown", as fieldmanager's buildManagerInfo names it.
 */
export function parseFieldManager(query: URLSearchParams, userAgent: string | undefined, kind: string): string {
  const v = query.get('fieldManager');
  if (v !== null) {
    if (v.length > 128) {
      throw errors.invalid('meta.k8s.io', kind, '', [fe.tooLong('fieldManager', v, 128)]);
    }
    if (!/^[\x20-\x7e]*$/.test(v)) {
      throw errors.invalid('meta.k8s.io', kind, '', [fe.invalid('fieldManager', v, 'must only contain printable characters')]);
    }
    if (v !== '') return v;
  }
  const ua = userAgent ?? '';
  let manager = managerByUserAgent.get(ua);
  if (manager === undefined) {
    // A server sees a handful of user agents, each on every write: the prefix is worked out once per agent.
    if (managerByUserAgent.size >= 1024) managerByUserAgent.clear();
    manager = prefixFromUserAgent(ua) || 'unknown';
    managerByUserAgent.set(ua, manager);
  }
  return manager;
}

const managerByUserAgent = new Map<string, string>();

/** fieldmanager's prefixFromUserAgent, over the header's bytes read as UTF-8 (Node hands them over as latin1). */
function prefixFromUserAgent(ua: string): string {
  const text = new TextDecoder().decode(Buffer.from(ua.split('/')[0]!, 'latin1'));
  let out = '';
  let bytes = 0;
  for (const ch of text) {
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) continue; // unicode.IsPrint
    const len = Buffer.byteLength(ch, 'utf8');
    if (bytes + len > 128) break;
    out += ch;
    bytes += len;
  }
  return out;
}

/**
 * labelSelector + fieldSelector into a Selection; malformed selectors are 400 with the parser's text, and a field the
 * resource does not support is 400 with upstream's text for that kind (scheme.ConvertFieldLabel).
 */
export function parseSelection(query: URLSearchParams, support?: FieldLabelSupport): Selection {
  const sel: Selection = {};
  const ls = query.get('labelSelector');
  if (ls) sel.labels = parseLabelMatcher(ls);
  const fs = query.get('fieldSelector');
  if (fs) {
    const fields = parseFieldMatcher(fs);
    sel.fields = fields;
    if (support) {
      for (const f of fields.fieldNames()) {
        if (!Object.prototype.hasOwnProperty.call(support.labels, f)) throw errors.badRequest(unsupportedFieldLabelMessage(f, support));
      }
    }
  }
  return sel;
}

export function parseLimit(query: URLSearchParams): number | undefined {
  const v = query.get('limit');
  if (v === null || v === '') return undefined;
  // The query parameter converter's strconv.ParseInt error, as it is.
  if (!/^-?\d+$/.test(v)) throw errors.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  const n = Number(v);
  return n > 0 ? n : undefined;
}

export function parseTimeoutSeconds(query: URLSearchParams): number | undefined {
  const v = query.get('timeoutSeconds');
  if (v === null || v === '') return undefined;
  if (!/^\d+$/.test(v)) throw errors.badRequest(`timeoutSeconds: invalid value ${JSON.stringify(v)}`);
  return Number(v);
}

/**
 * ListOptions validation as kube-apiserver runs it before a list or watch reaches storage (ValidateListOptions and
 * validateWatchOptions in apimachinery's internalversion/validation): every problem is collected, in upstream's order,
 * into one 422 on ListOptions. What only storage can judge (a continue token, a resourceVersion beside one) is
 * checked there afterwards, as upstream does. The WatchList feature is on, as in 1.32.
 */
export function validateListOptions(query: URLSearchParams, watch: boolean): void {
  const match = query.get('resourceVersionMatch') ?? '';
  const rv = query.get('resourceVersion') ?? '';
  const hasContinue = (query.get('continue') ?? '') !== '';
  const sendInitialEvents = query.get('sendInitialEvents') !== null;
  const errs: fe.FieldError[] = [];
  if (watch) {
    if (sendInitialEvents && match !== 'NotOlderThan') {
      errs.push(fe.forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    }
    if (match !== '') {
      if (!sendInitialEvents) errs.push(fe.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
      if (match !== 'NotOlderThan') errs.push(fe.notSupported('resourceVersionMatch', match, ['NotOlderThan']));
      if (hasContinue) errs.push(fe.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    }
  } else {
    if (match !== '') {
      if (rv === '') errs.push(fe.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
      if (hasContinue) errs.push(fe.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
      if (match !== 'Exact' && match !== 'NotOlderThan') errs.push(fe.notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
      if (match === 'Exact' && rv === '0') errs.push(fe.forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
    if (sendInitialEvents) errs.push(fe.forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  }
  if (errs.length > 0) throw errors.invalid('meta.k8s.io', 'ListOptions', '', errs);
}
