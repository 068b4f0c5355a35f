/**
 * Pure parts of the deployment splitter: the child Deployment each assigned SyncTarget gets for a root Deployment,
 * and the per-cluster statuses the root's status is aggregated from. A child is `<root>--<target>` in the root's
 * namespace, labelled to its one SyncTarget (`workload.kcp.io/cluster`, so the syncer syncs it there only), labelled
 * with its root's name, owned by the root (so deleting the root deletes the children), with the root's spec and the
 * target's share of spec.replicas.
 */
import { deepCopy, type KubeObject } from '../../apimachinery/object.js';
import { CLUSTER_ANNOTATION } from '../../client/resource.js';
import { CLUSTER_LABEL } from '../api/types.js';
import { LOCATION_LABEL, WORKLOAD_CLUSTER_LABEL } from '../decisions/workload-pin.js';
import type { ClusterWorkloadStatus } from '../decisions/aggregate-status.js';
import type { DeploymentStatus } from '../decisions/types.js';
import { childName, ROOT_GENERATION_ANNOTATION, SPLIT_FROM_LABEL, splitFromValue } from '../scheduling/types.js';

/** Annotations never copied from the root to its children (client bookkeeping that is about the root only). */
const ROOT_ONLY_ANNOTATIONS = ['kubectl.kubernetes.io/last-applied-configuration', 'deployment.kubernetes.io/revision', CLUSTER_ANNOTATION];

/** Whether `obj` is a root the splitter divides: a Deployment with no own cluster label that is not itself a child. */
export function isSplitRoot(obj: KubeObject): boolean {
  const labels = obj.metadata?.labels ?? {};
  return !(CLUSTER_LABEL in labels) && !(SPLIT_FROM_LABEL in labels) && !obj.metadata?.deletionTimestamp;
}

/** The replicas a child holds now (spec.replicas; a missing field counts as Kubernetes' default 1). */
export function replicasOf(obj: KubeObject): number {
  const r = (obj.spec as { replicas?: unknown } | undefined)?.replicas;
  return typeof r === 'number' ? r : 1;
}

/**
 * The desired child of `root` on `target` holding `replicas`. Metadata the server owns is left out; the owner
 * reference needs the root's uid, so a root without one (not yet stored) cannot have children.
 */
export function desiredChild(root: KubeObject, target: string, replicas: number): KubeObject {
  const meta = root.metadata!;
  const annotations: Record<string, string> = {};
  for (const [k, v] of Object.entries(meta.annotations ?? {})) if (!ROOT_ONLY_ANNOTATIONS.includes(k)) annotations[k] = v;
  annotations[ROOT_GENERATION_ANNOTATION] = String(meta.generation ?? 1);
  const spec = deepCopy((root.spec ?? {}) as Record<string, unknown>);
  spec.replicas = replicas;
  return {
    apiVersion: root.apiVersion ?? 'apps/v1',
    kind: root.kind ?? 'Deployment',
    metadata: {
      name: childName(meta.name!, target),
      namespace: meta.namespace,
      labels: { ...withoutPins(meta.labels), [CLUSTER_LABEL]: target, [SPLIT_FROM_LABEL]: splitFromValue(meta.name!) },
      annotations,
      ownerReferences: [{ apiVersion: root.apiVersion ?? 'apps/v1', kind: root.kind ?? 'Deployment', name: meta.name!, uid: meta.uid!, controller: true, blockOwnerDeletion: true }],
    },
    spec,
  };
}

/** A root's labels without its pin (decisions/workload-pin.ts): where the root runs is the splitter's business only. */
function withoutPins(labels: Record<string, string> | undefined): Record<string, string> {
  const out = { ...(labels ?? {}) };
  delete out[WORKLOAD_CLUSTER_LABEL];
  delete out[LOCATION_LABEL];
  return out;
}

/**
 * Applies the desired child's content to an existing child: labels, annotations, owner references and spec are
 * replaced, but for what the syncer keeps there (workload.kcp.io keys); everything else (resourceVersion, finalizers
 * the syncer holds, status) is kept. Returns a copy.
 */
export function updatedChild(existing: KubeObject, desired: KubeObject): KubeObject {
  const next = deepCopy(existing);
  const cluster = existing.metadata?.annotations?.[CLUSTER_ANNOTATION];
  next.metadata!.labels = { ...syncerOwned(existing.metadata?.labels), ...desired.metadata!.labels };
  next.metadata!.annotations = { ...syncerOwned(existing.metadata?.annotations), ...desired.metadata!.annotations, ...(cluster ? { [CLUSTER_ANNOTATION]: cluster } : {}) };
  next.metadata!.ownerReferences = desired.metadata!.ownerReferences;
  next.spec = desired.spec;
  return next;
}

/**
 * What the syncer (and kcp's workload machinery) keeps on a child, such as `synced.workload.kcp.io/<key>`: taking it
 * away would have the syncer write it back and the splitter take it away again, forever.
 */
function syncerOwned(map: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(map ?? {})) if (k.includes('workload.kcp.io/')) out[k] = v;
  return out;
}

/**
 * The per-cluster statuses of `root` from its children, one per child whose target is in `targets` (the clusters
 * the root is assigned to now). syncedGeneration is the root generation the child was derived from; generation is
 * the child's own, which its status's observedGeneration reaches once its cluster has observed the current spec.
 * Children on `unreachable` targets are marked so (their last status is not counted).
 */
export function clusterStatuses(children: readonly KubeObject[], targets: readonly string[], unreachable: readonly string[] = []): ClusterWorkloadStatus[] {
  const out: ClusterWorkloadStatus[] = [];
  for (const child of children) {
    const target = child.metadata?.labels?.[CLUSTER_LABEL];
    if (!target || !targets.includes(target)) continue;
    const status = child.status as DeploymentStatus | undefined;
    // The syncer reports observedGeneration in the child's own (upstream) generations (resource-syncer.ts
    // upstreamStatus), so it compares directly with the child's generation.
    const generation = child.metadata?.generation;
    const synced = Number(child.metadata?.annotations?.[ROOT_GENERATION_ANNOTATION]);
    const entry: ClusterWorkloadStatus = { target, syncedGeneration: Number.isFinite(synced) ? synced : undefined, generation, status, replicas: replicasOf(child) };
    if (unreachable.includes(target)) entry.reachable = false;
    out.push(entry);
  }
  return out;
}
