/**
 * A DaemonSet's rolling update across the clusters it runs on, one cluster at a time, so its `maxUnavailable` (and
 * `maxSurge`) bound the whole fleet as they bound one cluster — not once per cluster, which let a two-cluster
 * DaemonSet with maxUnavailable 1 take two nodes' pods down at once.
 *
 * How: every copy but one is held with `updateStrategy: OnDelete` (a per-cluster spec patch, CLUSTER_SPEC_ANNOTATION),
 * which on a cluster changes nothing until the template changes: a held copy still makes the pods of new nodes and
 * replaces deleted ones, with the template it has. When the template changes, the one copy not held rolls with the
 * DaemonSet's own strategy while the others keep their pods; once it is done — its cluster reports (through its status
 * annotation) the current generation observed and every pod updated and available — the next cluster (by name) that
 * still runs pods of an older template is released and the done one held again, until none is left. A cluster that
 * never gets done (unreachable, pods that never get ready) stops the rollout there, as a node whose pod never gets
 * ready stops it on one cluster; rolling the template back resumes from the cluster being rolled.
 *
 * The released cluster stays released otherwise (no rewrite of copies in a steady state, nor when a template change
 * starts a rollout, which it starts at once). A DaemonSet with
 * `OnDelete` itself, or on one cluster, needs none of it. The clusters' `updatedNumberScheduled` stay truthful (a held
 * copy's pods of the old template are not updated), so the folded status and `kubectl rollout status` follow the
 * whole fleet. Pure.
 */
import type { KubeObject } from '../../apimachinery/object.js';
import { clusterSpecOf, statusAnnotation } from '../api/kind-placement.js';

/** The per-cluster spec patch of a held copy: no pod is replaced for a template change. */
export const HELD_COPY: Readonly<Record<string, unknown>> = { updateStrategy: { type: 'OnDelete', rollingUpdate: null } };

export interface RolloutCluster {
  /** The SyncTarget name. */
  name: string;
  /** Its key (status annotation and per-cluster spec keys). */
  key: string;
}

interface DaemonSetClusterStatus {
  observedGeneration?: number;
  currentNumberScheduled?: number;
  desiredNumberScheduled?: number;
  updatedNumberScheduled?: number;
  numberAvailable?: number;
  numberUnavailable?: number;
}

/** The status the cluster of `key` reported for `ds` (its status annotation), or undefined. */
function reported(ds: KubeObject, key: string): DaemonSetClusterStatus | undefined {
  const text = ds.metadata?.annotations?.[statusAnnotation(key)];
  if (!text) return undefined;
  try {
    return JSON.parse(text) as DaemonSetClusterStatus;
  } catch {
    return undefined;
  }
}

/** Whether the cluster of `key` reports the DaemonSet's current generation rolled out: every pod updated and available. */
export function clusterRolledOut(ds: KubeObject, key: string): boolean {
  const status = reported(ds, key);
  if (!status) return false;
  const desired = status.desiredNumberScheduled ?? 0;
  return (
    (status.observedGeneration ?? 0) >= (ds.metadata?.generation ?? 1) &&
    (status.updatedNumberScheduled ?? 0) >= desired &&
    (status.numberAvailable ?? 0) >= desired &&
    (status.numberUnavailable ?? 0) === 0
  );
}

/**
 * Whether the cluster of `key` runs pods of an older template: it observed the current generation and some of its
 * scheduled pods are not updated (currentNumberScheduled − updatedNumberScheduled). A new DaemonSet's pods are all of
 * its one template, however many are still to be scheduled, so creating one hands nothing over; a cluster that has
 * not yet observed a new template is looked at again once it has.
 */
export function clusterNeedsRollout(ds: KubeObject, key: string): boolean {
  const status = reported(ds, key);
  if (!status || (status.observedGeneration ?? 0) < (ds.metadata?.generation ?? 1)) return false;
  return (status.currentNumberScheduled ?? 0) - (status.updatedNumberScheduled ?? 0) > 0;
}

/**
 * The per-cluster spec patches (by cluster name) of DaemonSet `ds` on `clusters`: HELD_COPY for every cluster but the
 * one released; undefined when nothing is held (OnDelete, or one cluster). The released cluster stays released until
 * it has rolled out and another still has to roll (the next by name); so a template change starts rolling at once on
 * the cluster released before it (its copy is not rewritten for it), and a steady state rewrites nothing.
 */
export function daemonSetRolloutHolds(ds: KubeObject, clusters: readonly RolloutCluster[]): Record<string, Record<string, unknown>> | undefined {
  const strategy = (ds.spec as { updateStrategy?: { type?: string } } | undefined)?.updateStrategy?.type ?? 'RollingUpdate';
  if (strategy !== 'RollingUpdate' || clusters.length < 2) return undefined;
  const ordered = [...clusters].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const unheld = ordered.filter((c) => !isHeld(ds, c.key));
  let released = unheld.length === 1 ? unheld[0]! : ordered[0]!;
  if (clusterRolledOut(ds, released.key)) released = ordered.find((c) => c !== released && clusterNeedsRollout(ds, c.key)) ?? released;
  return Object.fromEntries(ordered.filter((c) => c !== released).map((c) => [c.name, { ...HELD_COPY }]));
}

/** Whether the copy for `key` is held now (its per-cluster spec sets OnDelete). */
function isHeld(ds: KubeObject, key: string): boolean {
  const spec = clusterSpecOf(ds, key) as { updateStrategy?: { type?: string } } | undefined;
  return spec?.updateStrategy?.type === 'OnDelete';
}
