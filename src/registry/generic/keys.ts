/**
 * The one place storage keys are built: /registry/<group>/<resource>/<cluster>/[<namespace>/]<name>.
 * The logical cluster sits after the resource so that a list or watch across all workspaces is one prefix scan,
 * and the first three segments identify the resource for the watch cache.
 */
export function resourceRoot(group: string, resource: string): string {
  return `/registry/${group || 'core'}/${resource}/`;
}

export function objectKey(group: string, resource: string, cluster: string, namespace: string, name: string): string {
  return namespace
    ? `${resourceRoot(group, resource)}${cluster}/${namespace}/${name}`
    : `${resourceRoot(group, resource)}${cluster}/${name}`;
}

/** The prefix of every object of a resource in one cluster (and namespace, when given); `*` cluster = all clusters. */
export function collectionPrefix(group: string, resource: string, cluster: string, namespace: string): string {
  if (cluster === '*') return resourceRoot(group, resource);
  return namespace ? `${resourceRoot(group, resource)}${cluster}/${namespace}/` : `${resourceRoot(group, resource)}${cluster}/`;
}

/** Recovers the logical cluster from a key (for wildcard lists and watches). */
export function clusterOfKey(key: string): string {
  // /registry/<group>/<resource>/<cluster>/...
  const parts = key.split('/');
  return parts[4] ?? '';
}
