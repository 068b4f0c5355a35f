/**
 * The impersonation gatekeeper (kcp's WithImpersonationGatekeeper): nobody may impersonate a group more privileged
 * than their own. RBAC alone cannot say this in a multi-tenant server: a workspace owner is cluster-admin of their
 * workspace, which grants `impersonate` on every group there, and `system:masters` is allowed everything — so without
 * this check an owner could act as `system:masters` in their workspace and pass every check reserved to it (for
 * example ReservedCRDAnnotations, which keeps negotiated CRDs to the negotiation controller).
 *
 * Runs on the authenticated user, before impersonation is resolved. Requests without Impersonate-Group headers, and
 * requesters that are themselves `system:masters`, pass untouched.
 */
import type { IncomingMessage } from 'node:http';
import { StatusError } from '../../apimachinery/status.js';
import type { UserInfo } from '../../registry/rest.js';
import { SYSTEM_MASTERS } from '../authz/authorizer.js';

/** Groups only a member may impersonate. */
const PRIVILEGED_GROUPS = new Set([SYSTEM_MASTERS]);

/** Every requested Impersonate-Group value; repeated headers and comma-joined values both count. */
function requestedGroups(req: IncomingMessage): string[] {
  const values = req.headersDistinct?.['impersonate-group'] ?? [];
  return values.flatMap((v) => [v, ...v.split(',').map((s) => s.trim())]);
}

/**
 * Throws 403 Forbidden ("forbidden: impersonation is not allowed for the requestor", as kcp answers) when `requester`
 * asks to impersonate a privileged group it does not belong to; returns otherwise.
 */
export function refusePrivilegedImpersonation(req: IncomingMessage, requester: UserInfo): void {
  const wanted = requestedGroups(req).filter((g) => PRIVILEGED_GROUPS.has(g));
  if (wanted.every((g) => requester.groups.includes(g))) return;
  throw new StatusError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'forbidden: impersonation is not allowed for the requestor',
    reason: 'Forbidden',
    details: {},
    code: 403,
  });
}
