/**
 * The strategies of pkg/registry/certificates/certificates (v1.32): what each endpoint of a CertificateSigningRequest
 * may change. A create records the requesting user in the spec and starts with an empty status; the main endpoint
 * changes only metadata; /status changes the status but keeps the stored Approved and Denied conditions; /approval
 * changes only the conditions. /status and /approval fill in the conditions' lastUpdateTime and lastTransitionTime.
 */
import { type JsonObject, type KubeObject, deepCopy, metaOf, nowRFC3339 } from '../../../apimachinery/object.js';
import { validateObjectMetaUpdate } from '../../../apimachinery/validation/object-meta.js';
import type { RequestContext, SubresourceStrategy } from '../../rest.js';
import { statusKeepingMetadata } from '../define.js';
import { APPROVED, DENIED, conditionsOf, validateCSRApprovalUpdate, validateCSRStatusUpdate } from './validation.js';

/** Go's zero time.Time as metav1.Time marshals it; a condition holding it has no timestamp. */
const GO_ZERO_TIME = Date.parse('0001-01-01T00:00:00Z');
const isZeroTime = (v: unknown): boolean => typeof v !== 'string' || v === '' || Date.parse(v) === GO_ZERO_TIME;

function specOf(csr: KubeObject): JsonObject {
  if (typeof csr.spec !== 'object' || csr.spec === null || Array.isArray(csr.spec)) csr.spec = {};
  return csr.spec as JsonObject;
}

/** PrepareForCreate: the requestor is whoever makes the request; nobody creates a request already approved. */
export function prepareCSRForCreate(csr: KubeObject, ctx: RequestContext): void {
  const spec = specOf(csr);
  delete spec.username;
  delete spec.uid;
  delete spec.groups;
  delete spec.extra;
  const user = ctx.user;
  if (user.username) spec.username = user.username;
  if (user.uid) spec.uid = user.uid;
  if (user.groups.length) spec.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length) spec.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
  // An empty list, as upstream: validation sees it, the typed round trip drops it (`status: {}` is stored).
  csr.status = { conditions: [] };
}

/** PrepareForUpdate: the main endpoint keeps the stored spec and status (they change through subresources only). */
export function prepareCSRForUpdate(csr: KubeObject, old: KubeObject): void {
  csr.spec = deepCopy(old.spec);
  if (old.status === undefined) delete csr.status;
  else csr.status = deepCopy(old.status);
}

/**
 * populateConditionTimestamps: a condition without lastUpdateTime gets now; one without lastTransitionTime gets the
 * stored one of a condition of the same type and status, else now.
 */
function populateConditionTimestamps(csr: KubeObject, oldConditions: readonly JsonObject[]): void {
  const now = nowRFC3339();
  for (const c of conditionsOf(csr)) {
    if (isZeroTime(c.lastUpdateTime)) c.lastUpdateTime = now;
    if (isZeroTime(c.lastTransitionTime)) {
      const same = oldConditions.find((o) => o.type === c.type && o.status === c.status && !isZeroTime(o.lastTransitionTime));
      c.lastTransitionTime = same ? same.lastTransitionTime : now;
    }
  }
}

/**
 * preserveConditionInstances: when the write holds as many conditions of `type` as stored, they are the stored ones
 * again (in the write's positions); a different count is left for validation to refuse.
 */
function preserveConditionInstances(csr: KubeObject, oldConditions: readonly JsonObject[], type: string): void {
  const conditions = (csr.status as JsonObject | undefined)?.conditions;
  if (!Array.isArray(conditions)) return;
  const oldOfType = oldConditions.filter((c) => c.type === type);
  const newIndices = conditions.flatMap((c, i) => ((c as JsonObject | null)?.type === type ? [i] : []));
  if (oldOfType.length !== newIndices.length) return;
  newIndices.forEach((at, i) => (conditions[at] = deepCopy(oldOfType[i]!)));
}

/** The metadata a subresource write may change (both strategies leave ObjectMeta to rest.BeforeUpdate). */
const withMetadata = statusKeepingMetadata();

/** /status (csrStatusStrategy): the status as written, the stored spec and Approved/Denied conditions. */
export const csrStatusStrategy: SubresourceStrategy = {
  // The body is a CertificateSigningRequest, decoded as one (type errors refused, unknown fields dropped).
  decodedAsParent: true,
  resetFields: ['spec', 'status.conditions'],
  apply(incoming, current) {
    const oldConditions = conditionsOf(current).map((c) => deepCopy(c));
    const next = withMetadata.apply(incoming, current);
    if (next.status !== undefined) next.status = deepCopy(next.status);
    preserveConditionInstances(next, oldConditions, APPROVED);
    preserveConditionInstances(next, oldConditions, DENIED);
    populateConditionTimestamps(next, oldConditions);
    return next;
  },
  validate: (obj, old) => [...validateCSRStatusUpdate(obj, old), ...validateObjectMetaUpdate(metaOf(obj), metaOf(old))],
};

/** /approval (csrApprovalStrategy): only the conditions change; the stored certificate and spec stay. */
export const csrApprovalStrategy: SubresourceStrategy = {
  decodedAsParent: true,
  resetFields: ['spec', 'status.certificate'],
  apply(incoming, current) {
    const oldStatus = deepCopy(current.status);
    const oldConditions = conditionsOf(current).map((c) => deepCopy(c));
    const next = withMetadata.apply(incoming, current);
    const written = next.status !== undefined ? deepCopy(next.status) : undefined;
    const conditions = (written as JsonObject | undefined)?.conditions;
    const status: JsonObject = typeof oldStatus === 'object' && oldStatus !== null && !Array.isArray(oldStatus) ? (oldStatus as JsonObject) : {};
    if (conditions === undefined || conditions === null) delete status.conditions;
    else status.conditions = conditions;
    next.status = status;
    populateConditionTimestamps(next, oldConditions);
    return next;
  },
  validate: (obj, old) => [...validateCSRApprovalUpdate(obj, old), ...validateObjectMetaUpdate(metaOf(obj), metaOf(old))],
};
