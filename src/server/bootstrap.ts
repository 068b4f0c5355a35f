import { StatusError } from '../apimachinery/status.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import { immortalNamespaces } from '../registry/builtin/core.js';

/** The namespaces every Kubernetes API has from the start (default, kube-system, kube-public). Idempotent. */
export async function bootstrapNamespaces(registry: ResourceRegistry, cluster = 'root'): Promise<void> {
  const namespaces = registry.lookup(cluster, '', 'v1', 'namespaces')!;
  const ctx = { cluster, user: { username: 'system:apiserver', groups: ['system:masters'] } };
  for (const name of immortalNamespaces) {
    try {
      await namespaces.create(ctx, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { dryRun: false });
    } catch (err) {
      if (err instanceof StatusError && err.reason === 'AlreadyExists') continue;
      throw err;
    }
  }
}
