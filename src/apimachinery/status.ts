import { type FieldError, errorBody, errorString } from './field-errors.js';

/** metav1.Status as it appears on the wire. */
export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** Identifies a resource in error messages: `configmaps "x"` or `roles.rbac.authorization.k8s.io "x"`. */
export interface GroupResource {
  group: string;
  resource: string;
}

export function qualifiedResource(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

/** The one error type that reaches clients. Anything else thrown in a handler is a bug and becomes a 500. */
export class StatusError extends Error {
  constructor(
    readonly status: Status,
    /** Extra HTTP headers, e.g. Retry-After. */
    readonly headers: Record<string, string> = {},
  ) {
    super(status.message ?? status.reason ?? `HTTP ${status.code}`);
    this.name = 'StatusError';
  }
  get code(): number {
    return this.status.code;
  }
  get reason(): string | undefined {
    return this.status.reason;
  }
}

export function isStatusError(err: unknown, reason?: string): err is StatusError {
  return err instanceof StatusError && (reason === undefined || err.status.reason === reason);
}

/** StatusDetails fields are omitempty on the wire: empty name/group/kind/uid are left out. */
function compactDetails(details: StatusDetails): StatusDetails {
  const out: StatusDetails = {};
  if (details.name) out.name = details.name;
  if (details.group) out.group = details.group;
  if (details.kind) out.kind = details.kind;
  if (details.uid) out.uid = details.uid;
  if (details.causes) out.causes = details.causes;
  if (details.retryAfterSeconds !== undefined) out.retryAfterSeconds = details.retryAfterSeconds;
  return out;
}

function failure(code: number, reason: string, message: string, details?: StatusDetails): StatusError {
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  if (details) status.details = compactDetails(details);
  return new StatusError(status);
}

export function successStatus(details?: StatusDetails): Status {
  const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200 };
  if (details) s.details = compactDetails(details);
  return s;
}

export const errors = {
  notFound(gr: GroupResource, name: string): StatusError {
    return failure(404, 'NotFound', `${qualifiedResource(gr)} "${name}" not found`, { name, group: gr.group, kind: gr.resource });
  },
  /** A 404 for a path that maps to no resource at all. */
  notFoundPath(): StatusError {
    return failure(404, 'NotFound', 'the server could not find the requested resource', {});
  },
  alreadyExists(gr: GroupResource, name: string): StatusError {
    return failure(409, 'AlreadyExists', `${qualifiedResource(gr)} "${name}" already exists`, { name, group: gr.group, kind: gr.resource });
  },
  conflict(gr: GroupResource, name: string, detail: string): StatusError {
    return failure(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(gr)} "${name}": ${detail}`, {
      name,
      group: gr.group,
      kind: gr.resource,
    });
  },
  /** The optimistic-concurrency conflict every client retries on. */
  conflictModified(gr: GroupResource, name: string): StatusError {
    return errors.conflict(gr, name, 'the object has been modified; please apply your changes to the latest version and try again');
  },
  /** 422 with every field error, kind being the object's Kind (e.g. "ConfigMap"). */
  invalid(group: string, kind: string, name: string, errs: FieldError[]): StatusError {
    const causes = errs.map((e) => ({ reason: e.type, message: errorBody(e), field: e.field }));
    // The message lists each distinct error once (field.ErrorList.ToAggregate); causes keep every entry.
    const distinct = [...new Set(errs.map(errorString))];
    const msg = distinct.length === 1 ? distinct[0]! : `[${distinct.join(', ')}]`;
    const what = group ? `${kind}.${group}` : kind;
    return failure(422, 'Invalid', `${what} "${name}" is invalid: ${msg}`, { name, group, kind, causes });
  },
  badRequest(message: string): StatusError {
    return failure(400, 'BadRequest', message);
  },
  forbidden(gr: GroupResource, name: string, reason: string, causes?: StatusCause[]): StatusError {
    const subject = name ? `${qualifiedResource(gr)} "${name}"` : qualifiedResource(gr);
    const details: StatusDetails = { name, group: gr.group, kind: gr.resource };
    if (causes) details.causes = causes;
    return failure(403, 'Forbidden', `${subject} is forbidden: ${reason}`, details);
  },
  unauthorized(message = 'Unauthorized'): StatusError {
    return failure(401, 'Unauthorized', message);
  },
  /**
   * go-restful's 405 for a method with no route on a path, as apiserver's serviceErrorHandler writes it
   * (NewGenericServerResponse: generic text, empty details).
   */
  methodNotAllowed(): StatusError {
    return new StatusError({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server does not allow this method on the requested resource',
      reason: 'MethodNotAllowed',
      details: {},
      code: 405,
    });
  },
  methodNotSupported(gr: GroupResource, verb: string): StatusError {
    return failure(405, 'MethodNotAllowed', `${verb} is not supported on resources of kind "${qualifiedResource(gr)}"`, {
      group: gr.group,
      kind: gr.resource,
    });
  },
  notAcceptable(accepted: string[]): StatusError {
    return failure(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`);
  },
  unsupportedMediaType(contentType: string, accepted: string[]): StatusError {
    void contentType;
    return failure(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`);
  },
  /** A PATCH whose Content-Type is no patch type at all: the route refuses it before the handler (`415: Unsupported Media Type`, empty details). */
  unsupportedPatchMediaType(): StatusError {
    return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: '415: Unsupported Media Type', reason: 'UnsupportedMediaType', details: {}, code: 415 });
  },
  gone(message: string): StatusError {
    return failure(410, 'Gone', message);
  },
  /** 410 Expired: stale continue tokens and too-old resource versions. */
  expired(message: string): StatusError {
    return failure(410, 'Expired', message);
  },
  requestEntityTooLarge(message: string): StatusError {
    return failure(413, 'RequestEntityTooLarge', `Request entity too large: ${message}`);
  },
  tooManyRequests(message: string, retryAfterSeconds: number): StatusError {
    const e = failure(429, 'TooManyRequests', message, { retryAfterSeconds });
    return new StatusError(e.status, { 'Retry-After': String(retryAfterSeconds) });
  },
  /** NewTimeoutError: the message is prefixed with `Timeout: `. */
  timeout(message: string, retryAfterSeconds?: number): StatusError {
    return failure(504, 'Timeout', `Timeout: ${message}`, retryAfterSeconds === undefined ? {} : { retryAfterSeconds });
  },
  serviceUnavailable(message: string): StatusError {
    return failure(503, 'ServiceUnavailable', message);
  },
  /**
   * What kube-apiserver answers for an error that is not a Status (responsewriters.ErrorToAPIStatus): 500 with no
   * reason and the error's text, e.g. a codec's failure to convert a stored object (a CRD conversion webhook).
   */
  unknown(message: string): StatusError {
    return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 });
  },
  internal(message: string): StatusError {
    return failure(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] });
  },
};
