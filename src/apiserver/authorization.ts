/**
 * The authorization contract of the host (k8s.io/apiserver pkg/authorization/authorizer): what an authorizer decides
 * about — who, which verb, and either a resource (group, resource, subresource, namespace, name) or a non-resource
 * path — and what it answers. The auth feature implements it; admission plugins of other features take an
 * `Authorizer` without depending on that feature.
 */
import type { UserInfo } from '../apimachinery/user.js';
import type { RequestInfo } from './request-info.js';

export type Decision = 'Allow' | 'Deny' | 'NoOpinion';

export interface AuthorizationResult {
  decision: Decision;
  reason: string;
  evaluationError?: string;
}

/** Decides requests within one logical cluster. */
export interface Authorizer {
  authorize(cluster: string, attrs: AuthorizationAttributes): AuthorizationResult;
}

export interface AuthorizationAttributes {
  user: UserInfo;
  verb: string;
  resourceRequest: boolean;
  /** Non-resource requests: the URL path (without any /clusters/<x> prefix). */
  path: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

/** Attributes of an HTTP request, from its parsed RequestInfo. */
export function attributesFromRequest(info: RequestInfo, user: UserInfo): AuthorizationAttributes {
  return {
    user,
    verb: info.verb,
    resourceRequest: info.isResourceRequest,
    path: info.path,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    namespace: info.namespace,
    name: info.name,
  };
}

/** Attributes of a resource check (reviews, impersonation, escalation's bind check). */
export function resourceAttributes(user: UserInfo, a: Partial<Omit<AuthorizationAttributes, 'user' | 'resourceRequest' | 'path'>> & { verb: string }): AuthorizationAttributes {
  return {
    user,
    verb: a.verb,
    resourceRequest: true,
    path: '',
    apiGroup: a.apiGroup ?? '',
    apiVersion: a.apiVersion ?? '',
    resource: a.resource ?? '',
    subresource: a.subresource ?? '',
    namespace: a.namespace ?? '',
    name: a.name ?? '',
  };
}

/** Attributes of a non-resource check. */
export function nonResourceAttributes(user: UserInfo, verb: string, path: string): AuthorizationAttributes {
  return { user, verb, resourceRequest: false, path, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' };
}
