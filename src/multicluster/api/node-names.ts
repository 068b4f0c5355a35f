/**
 * The one name a workspace gives node `<node>` of the cluster of SyncTarget `<cluster>`: `<cluster>--<node>`. It is
 * what mirrored and placed pods show in spec.nodeName (kubectl's NODE column) and the name of the read-only Node and
 * NodeMetrics the workspace serves (metrics/node-views.ts), so `kubectl describe node $(kubectl get pod x -o
 * jsonpath={.spec.nodeName})` and `kubectl top node <that>` find the node a pod runs on.
 *
 * Why `--`: upstream validates spec.nodeName (and a Node's name) as a DNS-1123 subdomain, so `/` cannot separate the
 * two (nor can a Node be addressed by a name with `/` in a path); `--` is valid in a subdomain, never produced by
 * a single DNS label's end or start, and atrium's per-cluster separator already (a split Deployment's
 * `<name>--<cluster>`). Both parts are DNS subdomains, so the joined name is one too when it fits in 253 characters.
 */
export const NODE_NAME_SEPARATOR = '--';

/** The workspace's name of node `node` of SyncTarget `cluster`'s cluster. */
export function workspaceNodeName(cluster: string, node: string): string {
  return `${cluster}${NODE_NAME_SEPARATOR}${node}`;
}

/**
 * The SyncTarget (one of `clusters`) and node a workspace node name stands for, or undefined when none matches. The
 * longest SyncTarget name is tried first: a SyncTarget named `a--b` wins over `a` for `a--b--node`.
 */
export function parseWorkspaceNodeName(clusters: readonly string[], name: string): { cluster: string; node: string } | undefined {
  for (const cluster of [...clusters].sort((a, b) => b.length - a.length)) {
    const prefix = `${cluster}${NODE_NAME_SEPARATOR}`;
    if (name.startsWith(prefix) && name.length > prefix.length) return { cluster, node: name.slice(prefix.length) };
  }
  return undefined;
}
