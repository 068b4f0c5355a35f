/**
 * Who is making a request (k8s.io/apiserver pkg/authentication/user): the identity every layer passes along, and the
 * well-known names the layers agree on without depending on the authentication feature that produces them.
 */
export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** The group that is allowed everything (user.SystemPrivilegedGroup). */
export const SYSTEM_MASTERS = 'system:masters';

/** The extra key a ServiceAccount token's logical cluster is carried under (kcp's ClusterNameKey). */
export const CLUSTER_NAME_EXTRA = 'authentication.kubernetes.io/cluster-name';
