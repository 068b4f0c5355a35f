/**
 * Detects a split child whose replicas cannot be scheduled on its cluster, so the splitter can move that share
 * elsewhere (splitReplicas' unschedulableReplicas). Two signals: the child Deployment's status, synced up from the
 * cluster (a child on a Ready SyncTarget whose readyReplicas stay below spec.replicas for longer than a grace period,
 * with spec.replicas unchanged meanwhile: UnschedulableTracker), and the mirrors of its pods in the workspace, which
 * say how many of them the cluster's scheduler turned away (PodScheduled False, reason Unschedulable) and how many it
 * never made (unschedulableReplicas). The missing replicas count only up to those, as Karmada's descheduler counts a
 * member cluster's unschedulable pods: a pod that runs but is not ready yet (a slow image pull, a readiness probe's
 * initialDelaySeconds) or never (a crash loop, a failing probe) would not do better elsewhere, and moving it restarted
 * it there, so an app whose pods took longer than the grace period to become ready moved from cluster to cluster for
 * ever. Mirrors are matched by the child's selector, not by name (a long child name is cut in its pods' names).
 */
import { findCondition } from '../../apimachinery/conditions.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { fromLabelSelector, type LabelSelectorSpec } from '../../apimachinery/labels/selector.js';
import { clusterOf } from '../../client/store.js';
import { MIRROR_CLUSTER_LABEL, MIRROR_LABEL } from '../api/mirrors.js';
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

/** The index of the slim pod cache the splitter reads: the pod mirrors of each cluster, by mirrorsKey. */
export const MIRRORS_BY_PLACE_INDEX = 'splitter/mirrors-by-place';

/** The key of the pod mirrors a workspace namespace holds of one cluster: `<workspace>|<namespace>|<SyncTarget>`. */
export function mirrorsKey(workspace: string, namespace: string, syncTarget: string): string {
  return `${workspace}|${namespace}|${syncTarget}`;
}

/** MIRRORS_BY_PLACE_INDEX's indexer: a pod mirror, under its workspace, namespace and cluster. */
export function mirrorPlaceKeys(pod: KubeObject): string[] {
  const labels = pod.metadata?.labels;
  const cluster = labels?.[MIRROR_CLUSTER_LABEL];
  if (labels?.[MIRROR_LABEL] === undefined || !cluster) return [];
  return [mirrorsKey(clusterOf(pod), pod.metadata?.namespace ?? '', cluster)];
}

/** Whether the scheduler turned the pod away: not bound to a node, PodScheduled False with reason Unschedulable, not going. */
export function isUnscheduled(pod: KubeObject): boolean {
  if (pod.metadata?.deletionTimestamp || (pod.spec as { nodeName?: string } | undefined)?.nodeName) return false;
  const scheduled = findCondition((pod.status as { conditions?: { type: string; status: string; reason?: string }[] } | undefined)?.conditions, 'PodScheduled');
  return scheduled?.status === 'False' && scheduled.reason === 'Unschedulable';
}

/**
 * How many of a child's `short` replicas (short past the grace period) count as unschedulable, given the pod mirrors
 * its cluster has in the child's namespace: those its selector picks that the scheduler turned away, plus the pods the
 * cluster never made (spec.replicas beyond the mirrors: a quota or an admission refusal). With no mirror of the child
 * at all (its SyncTarget does not sync pods up, or they are not mirrored yet) nothing tells a slow start from a stuck
 * one, and the shortfall counts whole, as before the mirrors were read.
 */
export function unschedulableReplicas(child: KubeObject, short: number, mirrors: readonly KubeObject[]): number {
  if (short <= 0) return 0;
  let selector;
  try {
    selector = fromLabelSelector((child.spec as { selector?: LabelSelectorSpec } | undefined)?.selector);
  } catch {
    return short;
  }
  let pods = 0;
  let unscheduled = 0;
  for (const m of mirrors) {
    if (m.metadata?.deletionTimestamp || !selector.matches(m.metadata?.labels ?? {})) continue;
    pods++;
    if (isUnscheduled(m)) unscheduled++;
  }
  if (pods === 0) return short;
  return Math.min(short, unscheduled + Math.max(0, replicasOf(child) - pods));
}
