/**
 * Rights of the user who creates a workspace (kcp's owner semantics): admission records the creator in the
 * `experimental.tenancy.kcp.io/owner` annotation of the Workspace; the lifecycle controller copies it onto the new
 * LogicalCluster and, while initializing, binds that user to `cluster-admin` in the new workspace through the
 * ClusterRoleBinding `workspace-admin`. cluster-admin's `*` on non-resource URLs includes the `access` verb on `/`,
 * so the owner can enter the workspace and nobody else can until they are granted access there.
 */
import type { KubeObject } from '../apimachinery/object.js';

/** Annotation recording who created a workspace (JSON of authentication.k8s.io UserInfo). */
export const OWNER_ANNOTATION = 'experimental.tenancy.kcp.io/owner';

/** The name of the ClusterRoleBinding that makes the owner cluster-admin of the workspace (as in kcp). */
export const WORKSPACE_ADMIN_BINDING = 'workspace-admin';

/** The user named by an owner annotation: authentication.k8s.io UserInfo as JSON. */
export interface WorkspaceOwner {
  username: string;
  uid?: string;
  groups?: string[];
}

/**
 * Parses an owner annotation value. Returns undefined for an absent, malformed or nameless value (then nobody gets
 * owner rights: failing closed rather than binding a made-up subject).
 */
export function parseOwnerAnnotation(value: string | undefined): WorkspaceOwner | undefined {
  if (!value) return undefined;
  try {
    const parsed = JSON.parse(value) as Partial<WorkspaceOwner>;
    if (!parsed || typeof parsed.username !== 'string' || parsed.username === '') return undefined;
    return { username: parsed.username, uid: parsed.uid, groups: Array.isArray(parsed.groups) ? parsed.groups.map(String) : undefined };
  } catch {
    return undefined;
  }
}

/** The owner of a Workspace or LogicalCluster object, from its annotation. */
export function ownerOf(o: KubeObject): WorkspaceOwner | undefined {
  return parseOwnerAnnotation(o.metadata?.annotations?.[OWNER_ANNOTATION]);
}

/** The `workspace-admin` ClusterRoleBinding: cluster-admin for the owner, by user name. */
export function workspaceAdminBinding(owner: WorkspaceOwner): KubeObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: WORKSPACE_ADMIN_BINDING },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: owner.username }],
  };
}
