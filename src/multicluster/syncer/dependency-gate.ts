/**
 * A workload's first copy waits for the copies of what its pods name.
 *
 * On one cluster `kubectl apply -f dir/` (or Helm's install order) makes a ServiceAccount, its ConfigMaps, Secrets and
 * claims before the Deployment that uses them, so the ReplicaSet's first pods are admitted. Here the placement
 * controller decides where those followers go from where their workloads run (decisions/follow-graph.ts), so a
 * follower is labelled for a cluster only after its workload is — synced in that order, the cluster's ServiceAccount
 * admission refused every first pod (`error looking up service account`), the cluster's controllers backed off for
 * seconds, and the user saw FailedCreate warnings no single cluster would have shown.
 *
 * So before a workload's copy is first created on a cluster, every object its pod spec names that exists upstream and
 * goes to clusters (not the cluster's own: `default` ServiceAccount, `kube-root-ca.crt`, token Secrets) must have its
 * copy there. The wait is woken by the follower's copy appearing (its downstream informer). A follower pinned to
 * another cluster by hand (`workload.kcp.io/cluster`) is not waited for; every other one is coming, as the placement
 * controller sends followers wherever their users run, but maybe late on a busy control plane (a 50-app burst on 2
 * cores took over 5 s), so the bound, DEPENDENCY_WAIT_MS, is only a safety net: after it the workload goes down as
 * before and the cluster behaves as it would.
 *
 * Whether a copy is coming can only be told once the follower's syncer runs and has listed: a workload applied right
 * after compute was bound (or when the controllers are busy) can arrive before the ServiceAccount syncer started. So
 * while the syncer of a follower resource that is to be synced is starting, the workload waits too, looking again
 * every SYNCER_START_RECHECK_MS (there is no copy yet to be woken by) — unless it names only what every cluster has
 * anyway (the `default` ServiceAccount, `kube-root-ca.crt`), and not again for that resource once one such wait ran
 * out (a follower resource that stays Pending, or a syncer that cannot list, would hold every workload 30 s).
 */
import { logger } from '../../logging/logger.js';
import { isClusterLocal } from '../api/kind-placement.js';
import { podReferences } from '../decisions/workload-references.js';

/** How long a workload's first copy waits at most for the copies of what it names. */
export const DEPENDENCY_WAIT_MS = 30_000;
/** How often a workload waiting for a follower resource's syncer to start looks again. */
export const SYNCER_START_RECHECK_MS = 200;

/** The follower side: one resource's syncer. */
export interface CopyLookup {
  /** Whether its caches have listed (before that, awaitsCopy cannot tell). */
  synced(): boolean;
  /** Whether `namespace/name` exists upstream, goes to clusters, and has no copy on this cluster yet. */
  awaitsCopy(namespace: string, name: string): boolean;
  /**
   * Calls `wake` once when the copy of `namespace/name` appears on the cluster, or the upstream object changes or goes
   * (`id` dedups repeated waits).
   */
  whenCopied(namespace: string, name: string, id: string, wake: () => void): void;
  /** Drops the wait `id` registered on `namespace/name`. */
  cancelWait(namespace: string, name: string, id: string): void;
}

/** The follower resources a pod spec names, by the key of their syncer. */
const DEPENDENCY_RESOURCES = [
  ['serviceaccounts', 'serviceAccounts'],
  ['configmaps', 'configMaps'],
  ['secrets', 'secrets'],
  ['persistentvolumeclaims', 'persistentVolumeClaims'],
] as const;

/** What syncerOf answers for a follower resource: its syncer, 'starting' (to be synced, not yet listed), or undefined (not synced here). */
export type FollowerSyncer = CopyLookup | 'starting' | undefined;

export class DependencyGate {
  /** When each waiting workload (by queue key) first waited, and what it waits for (no syncer: one is starting). */
  private readonly since = new Map<string, { at: number; syncer?: CopyLookup; namespace: string; name: string }>();
  /** Workloads whose wait ran out: they go down without waiting again until made (or forgotten). */
  private readonly gaveUp = new Set<string>();
  /** Follower resources whose syncer a wait ran out on while it was starting: not waited for again. */
  private readonly neverStarted = new Set<string>();

  /**
   * One gate per workload resource syncer: `resource` (`deployments.apps`) tells its waits apart from another
   * resource's object of the same name.
   */
  constructor(
    private readonly resource: string,
    private readonly syncerOf: (resource: string) => FollowerSyncer,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Milliseconds the first copy of workload `key` (upstream namespace `namespace`, pod spec `podSpec`) should still
   * wait, with `wake` registered on the missing copy; undefined when it may go down now.
   */
  wait(key: string, namespace: string, podSpec: Record<string, unknown> | undefined, wake: () => void): number | undefined {
    if (this.gaveUp.has(key)) return undefined;
    const missing = this.firstMissing(namespace, podSpec);
    const previous = this.since.get(key);
    if (previous?.syncer && (!missing || previous.syncer !== missing.syncer || previous.name !== missing.name)) previous.syncer.cancelWait(previous.namespace, previous.name, this.waiterId(key));
    if (!missing) {
      this.since.delete(key);
      return undefined;
    }
    const first = previous?.at ?? this.now();
    if (!previous) logger.debug('syncer: workload waits for the copy of what its pods name', { resource: this.resource, key, waitsFor: missing.what });
    this.since.set(key, { at: first, syncer: missing.syncer, namespace, name: missing.name });
    const left = first + DEPENDENCY_WAIT_MS - this.now();
    if (left <= 0) {
      this.forget(key);
      this.gaveUp.add(key);
      if (!missing.syncer) this.neverStarted.add(missing.resource);
      logger.info('syncer: workload goes down without the copy of what its pods name', { resource: this.resource, key, waitsFor: missing.what, waitedMs: DEPENDENCY_WAIT_MS });
      return undefined;
    }
    if (!missing.syncer) return Math.min(left, SYNCER_START_RECHECK_MS);
    missing.syncer.whenCopied(namespace, missing.name, this.waiterId(key), wake);
    return left;
  }

  /** The workload no longer waits (its copy was made, or it is deleted or no longer wanted here). */
  forget(key: string): void {
    const waiting = this.since.get(key);
    if (waiting?.syncer) waiting.syncer.cancelWait(waiting.namespace, waiting.name, this.waiterId(key));
    this.since.delete(key);
    this.gaveUp.delete(key);
  }

  private waiterId(key: string): string {
    return `${this.resource}|${key}`;
  }

  /** The first follower without its copy here, or one whose syncer is starting (no `syncer`: cannot tell yet). */
  private firstMissing(namespace: string, podSpec: Record<string, unknown> | undefined): { syncer?: CopyLookup; resource: string; name: string; what: string } | undefined {
    if (!podSpec) return undefined;
    const refs = podReferences(podSpec);
    for (const [resource, field] of DEPENDENCY_RESOURCES) {
      // What every cluster makes for itself is never waited for.
      const names = [...refs[field]].filter((name) => !isClusterLocal(resource, { metadata: { name, namespace } }));
      if (names.length === 0) continue;
      const syncer = this.syncerOf(resource);
      if (!syncer) continue;
      if (syncer === 'starting' || !syncer.synced()) {
        if (this.neverStarted.has(resource)) continue;
        return { resource, name: '', what: `the ${resource} syncer to start` };
      }
      this.neverStarted.delete(resource);
      for (const name of names) if (syncer.awaitsCopy(namespace, name)) return { syncer, resource, name, what: `${resource}/${name}` };
    }
    return undefined;
  }
}
