/**
 * Which Shard a new workspace lands on, as kcp's workspace scheduler decides it (pkg/reconciler/tenancy/workspace,
 * the scheduling reconciler): the Shards of root its `spec.location.selector` selects (every Shard without one), less
 * those annotated unschedulable, one of them at random; none left means the workspace waits, unscheduled. And what
 * scheduling writes onto the Workspace about its shard. Pure: the lifecycle controller reads Shards and writes.
 */
import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import type { KubeObject } from '../apimachinery/object.js';
import { fromLabelSelector, type LabelSelectorSpec } from '../apimachinery/labels/selector.js';
import { base36Padded } from './base36.js';

/** The shard a Workspace and its LogicalCluster are scheduled to (kcp's LogicalClusterShardAnnotationKey). */
export const SHARD_ANNOTATION = 'core.kcp.io/shard';
/** The older, hashed form of SHARD_ANNOTATION kcp still writes on Workspaces for compatibility. */
export const SHARD_HASH_ANNOTATION = 'internal.tenancy.kcp.io/shard';
/** The logical cluster chosen for a Workspace (kcp writes it before spec.cluster; atrium writes both at once). */
export const WORKSPACE_CLUSTER_ANNOTATION = 'internal.tenancy.kcp.io/cluster';
/** A Shard carrying this annotation (any value) is never chosen for a new workspace. */
export const UNSCHEDULABLE_ANNOTATION = 'experimental.core.kcp.io/unschedulable';
/** The label copied from the shard onto the workspaces scheduled to it (the Workspace's Region column). */
const REGION_LABEL = 'region';

/** WorkspaceScheduled's reason while no shard can take the workspace. */
export const UNSCHEDULABLE_REASON = 'Unschedulable';
export const NO_SHARDS_MESSAGE = 'No available shards to schedule the workspace';

export type ShardChoice = { shard: KubeObject } | { unschedulable: string };

function specOf(o: KubeObject): Record<string, unknown> {
  return o.spec && typeof o.spec === 'object' ? (o.spec as Record<string, unknown>) : {};
}

/**
 * kcp's chooseShardAndMarkCondition. An unparseable selector is reported, not retried (only a change to the
 * Workspace or to the Shards brings the workspace back). `pick` chooses among the candidates (random, as kcp).
 */
export function chooseShard(ws: KubeObject, shards: Iterable<KubeObject>, pick: (n: number) => number = (n) => Math.floor(Math.random() * n)): ShardChoice {
  const location = specOf(ws).location as { selector?: LabelSelectorSpec | null } | null | undefined;
  let selects: (labels: Record<string, string> | undefined) => boolean = () => true;
  if (location?.selector) {
    try {
      const selector = fromLabelSelector(location.selector);
      selects = (labels) => selector.matches(labels);
    } catch (err) {
      return { unschedulable: `spec.location.selector is invalid: ${(err as Error).message}` };
    }
  }
  const candidates: KubeObject[] = [];
  for (const shard of shards) {
    if (!selects(shard.metadata?.labels)) continue;
    if (shard.metadata?.annotations && UNSCHEDULABLE_ANNOTATION in shard.metadata.annotations) continue;
    candidates.push(shard);
  }
  if (candidates.length === 0) return { unschedulable: NO_SHARDS_MESSAGE };
  return { shard: candidates[pick(candidates.length)]! };
}

/** kcp's Base36Sha224.StringPad: the SHA-224 digest, padded base 36. */
function base36Sha224(s: string): string {
  return base36Padded(createHash('sha224').update(s).digest());
}

/**
 * kcp's applyShardToWorkspaceMetadata, plus the chosen cluster's annotation: the shard's name and its hash, and the
 * shard's `region` label in place of the workspace's own (none when the shard has none).
 */
export function applyShardToWorkspace(ws: KubeObject, shard: KubeObject, cluster: string): void {
  const meta = (ws.metadata ??= {});
  const name = shard.metadata!.name!;
  meta.annotations = { ...(meta.annotations ?? {}), [SHARD_ANNOTATION]: name, [SHARD_HASH_ANNOTATION]: base36Sha224(name).slice(0, 8), [WORKSPACE_CLUSTER_ANNOTATION]: cluster };
  const { [REGION_LABEL]: _theirs, ...labels } = meta.labels ?? {};
  const region = shard.metadata?.labels?.[REGION_LABEL];
  if (region !== undefined) labels[REGION_LABEL] = region;
  if (Object.keys(labels).length > 0) meta.labels = labels;
  else delete meta.labels;
}

/**
 * A workspace's spec.URL on a shard: the shard's externalURL with `/clusters/<path>` joined onto its path (Go's
 * path.Join, as kcp sets u.Path), its query kept.
 */
export function workspaceURL(shard: KubeObject, path: string): string {
  const external = String(specOf(shard).externalURL ?? specOf(shard).baseURL ?? '');
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*)([^?#]*)(.*)$/.exec(external);
  if (!m) return `${external.replace(/\/+$/, '')}/clusters/${path}`;
  return `${m[1]}${posix.join('/', m[2]!, 'clusters', path)}${m[3]}`;
}
