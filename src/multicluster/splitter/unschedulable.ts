/**
 * Detects a split child whose replicas cannot be scheduled on its cluster, so the splitter can move that share
 * elsewhere (splitReplicas' unschedulableReplicas). Two signals, both required: the child Deployment's status, synced
 * up from the cluster (a child on a Ready SyncTarget whose readyReplicas stay below spec.replicas for longer than a
 * grace period, with spec.replicas unchanged meanwhile: UnschedulableTracker), and the mirrors of its pods in the
 * workspace, which say how many of them the cluster's scheduler turned away (PodScheduled False, reason
 * Unschedulable). The missing replicas count only up to those pods, as Karmada's descheduler counts a member cluster's
 * unschedulable pods: a pod that runs but is not ready yet (a slow image pull, a readiness probe's initialDelaySeconds)
 * or never (a crash loop, a failing probe) would not do better elsewhere, and moving it restarted it there, so an app
 * whose pods take longer than the grace period to become ready moved from cluster to cluster for ever.
 */
import { findCondition } from '../../apimachinery/conditions.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { clusterOf } from '../../client/store.js';
import { MIRROR_LABEL } from '../api/mirrors.js';
import { replicasOf } from './children.js';

interface Shortfall {
  replicas: number;
  sinceMs: number;
}

export class UnschedulableTracker {
  private readonly shortSince = new Map<string, Shortfall>();

  /** `graceMs`: how long a child may stay short of ready replicas before its missing ones count as unschedulable. */
  constructor(private readonly graceMs: number) {}

  /**
   * The unschedulable replicas of `child` at `nowMs` (0 while within the grace period, when it is not short, or when
   * its target is not Ready: an unreachable cluster is failover's business, not this check's).
   */
  observe(child: KubeObject, targetReady: boolean, nowMs: number): number {
    const key = child.metadata?.uid ?? `${child.metadata?.namespace}/${child.metadata?.name}`;
    const replicas = replicasOf(child);
    const ready = (child.status as { readyReplicas?: number } | undefined)?.readyReplicas ?? 0;
    const short = replicas - ready;
    if (!targetReady || short <= 0 || child.metadata?.deletionTimestamp) {
      this.shortSince.delete(key);
      return 0;
    }
    const seen = this.shortSince.get(key);
    if (!seen || seen.replicas !== replicas) {
      this.shortSince.set(key, { replicas, sinceMs: nowMs });
      return 0;
    }
    return nowMs - seen.sinceMs >= this.graceMs ? short : 0;
  }

  /** Milliseconds from `nowMs` until the earliest shortfall still within its grace period ends; undefined if none. */
  nextDeadline(nowMs: number): number | undefined {
    let next: number | undefined;
    for (const { sinceMs } of this.shortSince.values()) {
      const left = sinceMs + this.graceMs - nowMs;
      if (left > 0 && (next === undefined || left < next)) next = left;
    }
    return next;
  }

  /** Forgets children not in `live` (deleted ones), so the map does not grow without bound. */
  retain(live: Iterable<KubeObject>): void {
    const keep = new Set([...live].map((c) => c.metadata?.uid ?? `${c.metadata?.namespace}/${c.metadata?.name}`));
    for (const k of this.shortSince.keys()) if (!keep.has(k)) this.shortSince.delete(k);
  }
}

/** The index of the slim pod cache the splitter reads: the mirrors of pods their cluster could not schedule, by unscheduledKey. */
export const UNSCHEDULED_BY_CHILD_INDEX = 'splitter/unscheduled-by-child';

/** The key of a split child's unscheduled pods: `<workspace>|<namespace>|<child Deployment>`. */
export function unscheduledKey(workspace: string, namespace: string, child: string): string {
  return `${workspace}|${namespace}|${child}`;
}

/**
 * The Deployment a pod of one of its ReplicaSets belongs to, by name: the deployment controller names a ReplicaSet
 * `<deployment>-<pod-template-hash>` and its pods `<replicaset>-<suffix>`, labelled with the hash. Undefined for a pod
 * without the label or of another shape.
 */
export function deploymentOfPod(pod: KubeObject): string | undefined {
  const hash = pod.metadata?.labels?.['pod-template-hash'];
  const name = pod.metadata?.name;
  if (!hash || !name) return undefined;
  const i = name.lastIndexOf(`-${hash}-`);
  return i > 0 ? name.slice(0, i) : undefined;
}

/** Whether the scheduler turned the pod away: not bound to a node, PodScheduled False with reason Unschedulable, not going. */
export function isUnscheduled(pod: KubeObject): boolean {
  if (pod.metadata?.deletionTimestamp || (pod.spec as { nodeName?: string } | undefined)?.nodeName) return false;
  const scheduled = findCondition((pod.status as { conditions?: { type: string; status: string; reason?: string }[] } | undefined)?.conditions, 'PodScheduled');
  return scheduled?.status === 'False' && scheduled.reason === 'Unschedulable';
}

/** UNSCHEDULED_BY_CHILD_INDEX's indexer: an unscheduled mirror of a Deployment's pod, under its Deployment's key. */
export function unscheduledMirrorKeys(pod: KubeObject): string[] {
  if (pod.metadata?.labels?.[MIRROR_LABEL] === undefined || !isUnscheduled(pod)) return [];
  const child = deploymentOfPod(pod);
  return child ? [unscheduledKey(clusterOf(pod), pod.metadata?.namespace ?? '', child)] : [];
}
