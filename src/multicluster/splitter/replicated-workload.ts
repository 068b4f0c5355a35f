/**
 * Which objects count as replicated workloads for the splitter's skip rule: in a namespace the splitter divides, such
 * an object (unless assigned on its own) is a root that is replaced by per-cluster children and never synced itself.
 *
 * Kept apart from the splitter controller so the syncer's pure assignment check (syncer/transform.ts) can share it
 * without pulling in any controller code: the two must agree, or a root runs on a cluster next to its children.
 */
import type { KubeObject } from '../../apimachinery/object.js';

/**
 * Kinds whose spec.replicas Kubernetes defaults to 1 when it is left out (apps/v1 Deployment, ReplicaSet and
 * StatefulSet; core/v1 ReplicationController), keyed by API group. Served natively they are defaulted, but objects
 * stored through a negotiated CRD by older versions (or a cluster's type served as a CRD) may lack spec.replicas.
 */
const REPLICAS_DEFAULTED_KINDS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['apps', new Set(['Deployment', 'ReplicaSet', 'StatefulSet'])],
  ['', new Set(['ReplicationController'])],
]);

/** The API group of an apiVersion (`apps/v1` → `apps`, `v1` → ''). */
function groupOf(apiVersion: string | undefined): string | undefined {
  if (apiVersion === undefined) return undefined;
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/**
 * Whether `obj` is a replicated workload: it has a numeric spec.replicas, or it is of a kind whose spec.replicas
 * Kubernetes defaults to 1 (so a Deployment created without spec.replicas counts, as one with `replicas: 1` would).
 * Objects without apiVersion/kind are judged by spec.replicas alone (informer caches fill both in, so the syncer
 * always sees them).
 */
export function isReplicatedWorkload(obj: KubeObject): boolean {
  if (typeof (obj.spec as { replicas?: unknown } | undefined)?.replicas === 'number') return true;
  const group = groupOf(obj.apiVersion);
  return group !== undefined && obj.kind !== undefined && (REPLICAS_DEFAULTED_KINDS.get(group)?.has(obj.kind) ?? false);
}
