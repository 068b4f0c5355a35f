/**
 * Detects a split child whose replicas do not come up on its cluster, so the splitter can move that share elsewhere
 * (splitReplicas' unschedulableReplicas). The syncer syncs up only the child Deployment's status, not its pods, so
 * "Pending Unschedulable downstream" is read from that status: a child on a Ready SyncTarget whose readyReplicas
 * stay below spec.replicas for longer than a grace period, with spec.replicas unchanged meanwhile, has
 * `spec.replicas − readyReplicas` unschedulable replicas. The grace period must exceed the clusters' normal pod start
 * time (image pulls, readiness probes), or slow starts are moved too.
 */
import type { KubeObject } from '../../apimachinery/object.js';
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
