/**
 * The Shard this server registers in root at start, as kcp's server does for itself (pkg/server, "create or update
 * shard"): named `root` (kcp's default --shard-name), labelled `name: root`, its three URLs the shard's base URL
 * (atrium has no --shard-external-url or --shard-virtual-workspace-url: kcp defaults both to the base URL). Created
 * when missing; otherwise only its spec is brought up to date (the URL moves when the server restarts on another
 * port), so labels and annotations an administrator gave it stay.
 */
import type { KubeObject } from '../apimachinery/object.js';
import { StatusError } from '../apimachinery/status.js';
import type { GenericStore } from '../registry/generic/store.js';
import type { RequestContext } from '../registry/rest.js';
import { ROOT_CLUSTER } from './paths.js';

export const ROOT_SHARD = 'root';

export function rootShard(baseURL: string): KubeObject {
  return {
    apiVersion: 'core.kcp.io/v1alpha1',
    kind: 'Shard',
    metadata: { name: ROOT_SHARD, annotations: { 'kcp.io/cluster': ROOT_CLUSTER }, labels: { name: ROOT_SHARD } },
    spec: { baseURL, externalURL: baseURL, virtualWorkspaceURL: baseURL },
  };
}

/** Creates the root Shard or updates its URLs; writes nothing when they are already right. */
export async function ensureRootShard(store: GenericStore, ctx: RequestContext, baseURL: string): Promise<void> {
  const wanted = rootShard(baseURL);
  try {
    await store.create(ctx, '', wanted, { dryRun: false });
    return;
  } catch (err) {
    if (!(err instanceof StatusError && err.reason === 'AlreadyExists')) throw err;
  }
  const existing = await store.get(ctx, '', ROOT_SHARD);
  const spec = (existing.spec ?? {}) as Record<string, unknown>;
  const want = wanted.spec as Record<string, string>;
  if (Object.keys(want).every((k) => spec[k] === want[k])) return;
  await store.guaranteedUpdate(ctx, '', ROOT_SHARD, (cur) => {
    cur!.spec = { ...((cur!.spec ?? {}) as object), ...want };
    return cur!;
  }, { dryRun: false });
}
