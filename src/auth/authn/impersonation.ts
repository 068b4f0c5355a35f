/**
 * Impersonation (k8s.io/apiserver pkg/endpoints/filters/impersonation.go): Impersonate-User, Impersonate-Group
 * (repeatable), Impersonate-Uid and Impersonate-Extra-<key> headers make the request act as another user, provided
 * the real user may `impersonate` each of them: users (or serviceaccounts for system:serviceaccount:<ns>:<name>),
 * groups, uids and userextras/<key>. A refusal is the usual 403 naming what could not be impersonated. As in kcp, the
 * identity a non-master impersonates is scoped to the logical cluster of the request (SCOPES_EXTRA).
 */
import type { IncomingMessage } from 'node:http';
import { errors } from '../../apimachinery/status.js';
import type { UserInfo } from '../../apimachinery/user.js';
import { resourceAttributes, type AuthorizationAttributes } from '../../apiserver/authorization.js';
import { type ClusterAuthorizer } from '../authz/authorizer.js';
import { SCOPES_EXTRA } from '../authz/scope.js';
import { CLUSTER_NAME_EXTRA, SYSTEM_MASTERS } from '../../apimachinery/user.js';
import { forbiddenError } from '../authz/forbidden.js';

const SA_PREFIX = 'system:serviceaccount:';
const EXTRA_PREFIX = 'impersonate-extra-';

/**
 * Every value of a header, one per header line as Go's http.Header keeps them: a line is never split on commas
 * (`Impersonate-Group: a, b` is the one group "a, b"), and repeated lines are separate values.
 */
function headerValues(req: IncomingMessage, name: string): string[] {
  return req.headersDistinct?.[name] ?? [];
}

/** url.PathUnescape, keeping a malformed key as sent (unescapeExtraKey). */
function unescapeExtraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

/** Go's %v of the v1.ObjectReference upstream builds per impersonation request (seven fields, space separated). */
function objectReferenceText(kind: string, name: string, apiVersion = '', fieldPath = ''): string {
  return `{${[kind, '', name, '', apiVersion, '', fieldPath].join(' ')}}`;
}

/**
 * Returns the user the request acts as: `user` itself when no impersonation header is present, otherwise the
 * impersonated identity after checking every impersonation against the authorizer in `cluster`.
 */
export function impersonate(req: IncomingMessage, user: UserInfo, cluster: string, authorizer: ClusterAuthorizer): UserInfo {
  // headers.Get: the first line; an empty value is no request at all.
  const username = headerValues(req, 'impersonate-user')[0] || undefined;
  const groups = headerValues(req, 'impersonate-group');
  const uid = headerValues(req, 'impersonate-uid')[0] || undefined;
  const extra: Record<string, string[]> = {};
  for (const name of Object.keys(req.headersDistinct ?? {})) {
    if (!name.startsWith(EXTRA_PREFIX)) continue;
    // Extra keys are percent-encoded in header names (legal header characters only).
    const key = unescapeExtraKey(name.slice(EXTRA_PREFIX.length));
    extra[key] = [...(extra[key] ?? []), ...headerValues(req, name)];
  }
  const extraKeys = Object.keys(extra);
  if (username === undefined) {
    if (groups.length || uid !== undefined || extraKeys.length) {
      const requests = [
        ...groups.map((g) => objectReferenceText('Group', g)),
        ...extraKeys.flatMap((k) => extra[k]!.map((v) => objectReferenceText('UserExtra', v, 'authentication.k8s.io/v1', k))),
        ...(uid !== undefined ? [objectReferenceText('UID', uid, 'authentication.k8s.io/v1')] : []),
      ];
      throw errors.badRequest(`requested [${requests.join(' ')}] without impersonating a user`);
    }
    return user;
  }

  const checks: AuthorizationAttributes[] = [];
  let impersonatedGroups = [...groups];
  let userExtra: Record<string, string[]> = { ...extra };
  if (username.startsWith(SA_PREFIX)) {
    const [namespace, name] = username.slice(SA_PREFIX.length).split(':');
    checks.push(resourceAttributes(user, { verb: 'impersonate', resource: 'serviceaccounts', namespace: namespace ?? '', name: name ?? '' }));
    if (groups.length === 0) impersonatedGroups = ['system:serviceaccounts', `system:serviceaccounts:${namespace}`];
    userExtra = { ...userExtra, [CLUSTER_NAME_EXTRA]: [cluster] };
  } else {
    checks.push(resourceAttributes(user, { verb: 'impersonate', resource: 'users', name: username }));
  }
  for (const g of groups) checks.push(resourceAttributes(user, { verb: 'impersonate', resource: 'groups', name: g }));
  if (uid !== undefined) checks.push(resourceAttributes(user, { verb: 'impersonate', apiGroup: 'authentication.k8s.io', resource: 'uids', name: uid }));
  for (const k of extraKeys) {
    for (const v of extra[k]!) {
      checks.push(resourceAttributes(user, { verb: 'impersonate', apiGroup: 'authentication.k8s.io', resource: 'userextras', subresource: k, name: v }));
    }
  }
  for (const c of checks) {
    const d = authorizer.authorize(cluster, c);
    if (d.decision !== 'Allow') throw forbiddenError(c, d.reason);
  }
  // Anyone but system:anonymous is system:authenticated unless the request named either all-users group itself.
  if (username === 'system:anonymous') {
    if (!impersonatedGroups.includes('system:unauthenticated')) impersonatedGroups.push('system:unauthenticated');
  } else if (!impersonatedGroups.includes('system:authenticated') && !impersonatedGroups.includes('system:unauthenticated')) {
    impersonatedGroups.push('system:authenticated');
  }
  // kcp's impersonation scoping: whom a non-master makes up here is someone only here.
  if (!user.groups.includes(SYSTEM_MASTERS)) userExtra = { ...userExtra, [SCOPES_EXTRA]: [...(userExtra[SCOPES_EXTRA] ?? []), `cluster:${cluster}`] };
  const out: UserInfo = { username, groups: impersonatedGroups };
  if (uid !== undefined) out.uid = uid;
  if (Object.keys(userExtra).length) out.extra = userExtra;
  return out;
}
