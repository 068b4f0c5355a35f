/**
 * The impersonation gatekeeper (kcp's WithImpersonationGatekeeper): nobody may impersonate a group more privileged
 * than their own. RBAC alone cannot say this in a multi-tenant server: a workspace owner is cluster-admin of their
 * workspace, which grants `impersonate` on every group there, and `system:masters` is allowed everything — so without
 * this check an owner could act as `system:masters` in their workspace and pass every check reserved to it (for
 * example ReservedCRDAnnotations, which keeps negotiated CRDs to the negotiation controller).
 *
 * Runs on the authenticated user, before impersonation is resolved. Requesters that are themselves `system:masters`
 * pass untouched; others may not impersonate `system:masters`, nor assert extras the server sets (kcp's reserved
 * `kcp.io` keys, and the logical cluster of a ServiceAccount token).
 */
import type { IncomingMessage } from 'node:http';
import { StatusError } from '../../apimachinery/status.js';
import type { UserInfo } from '../../apimachinery/user.js';
import { CLUSTER_NAME_EXTRA, SYSTEM_MASTERS } from '../../apimachinery/user.js';

const EXTRA_PREFIX = 'impersonate-extra-';

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
  if (requester.groups.includes(SYSTEM_MASTERS)) return;
  // Extras that carry authority (scopes, a token's logical cluster) are set by the server, never asserted by a client.
  const reserved = reservedExtraKey(req);
  if (reserved !== undefined) throw forbidden(`forbidden: impersonating the extra key ${JSON.stringify(reserved)} is not allowed for the requestor`);
  const wanted = requestedGroups(req).filter((g) => PRIVILEGED_GROUPS.has(g));
  if (wanted.length > 0) throw forbidden('forbidden: impersonation is not allowed for the requestor');
}

/** The first Impersonate-Extra-<key> whose (percent-decoded) key is reserved: any `kcp.io` key, and CLUSTER_NAME_EXTRA. */
function reservedExtraKey(req: IncomingMessage): string | undefined {
  for (const name of Object.keys(req.headers)) {
    if (!name.startsWith(EXTRA_PREFIX)) continue;
    const raw = name.slice(EXTRA_PREFIX.length);
    let key = raw;
    try {
      key = decodeURIComponent(raw);
    } catch {
      /* not percent-encoded: matched as sent */
    }
    if (key.toLowerCase().includes('kcp.io') || key.toLowerCase() === CLUSTER_NAME_EXTRA) return key;
  }
  return undefined;
}

function forbidden(message: string): StatusError {
  return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details: {}, code: 403 });
}
