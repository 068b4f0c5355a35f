/**
 * Pure decisions of the syncer: is an upstream object assigned to this SyncTarget, and what does its downstream copy
 * look like. Kept free of I/O so they can be table-tested.
 */
import { createHash } from 'node:crypto';
import { deepCopy, type KubeObject } from '../../apimachinery/object.js';
import { CLUSTER_ANNOTATION } from '../../client/resource.js';
import { stateLabel } from '../api/keys.js';
import { CLUSTER_LABEL, DOWNSTREAM_CLUSTER_LABEL, SPEC_HASH_ANNOTATION, STATE_LABEL_PREFIX } from '../api/types.js';
import { isReplicatedWorkload } from '../splitter/replicated-workload.js';

export interface TargetIdentity {
  /** The SyncTarget's name (what CLUSTER_LABEL names). */
  name: string;
  /** The SyncTarget key (state label suffix, downstream label value). */
  key: string;
  /**
   * Set for a workspace other than the SyncTarget's own (a consumer through a Placement): there only namespaces the
   * scheduler placed on this target sync, so an object merely naming the target (`workload.kcp.io/cluster: <name>`,
   * a bare name another workspace's SyncTarget may share) is never enough.
   */
  consumer?: boolean;
}

/**
 * Whether `obj` (in namespace `ns`, if namespaced) is assigned to the target. An object's own CLUSTER_LABEL wins over
 * its namespace's: an object labelled for another target is not synced here even in a namespace assigned here.
 * The state label `state.workload.kcp.io/<key>: Sync` (written by a scheduler) also assigns.
 */
export function isAssigned(obj: KubeObject, ns: KubeObject | undefined, target: TargetIdentity): boolean {
  if (target.consumer && ns?.metadata?.labels?.[stateLabel(target.key)] !== 'Sync') return false;
  const own = obj.metadata?.labels ?? {};
  if (own[stateLabel(target.key)] === 'Sync') return true;
  if (CLUSTER_LABEL in own) return own[CLUSTER_LABEL] === target.name;
  // Skip rule for the deployment splitter (src/multicluster/splitter): in a namespace it splits, a scalable object
  // (one with spec.replicas, or of a kind that defaults it to 1, isReplicatedWorkload) that has no assignment of its
  // own is a root replaced by per-cluster children `<name>--<target>` (each with its own CLUSTER_LABEL); the root
  // itself must never run anywhere.
  if (ns?.metadata?.annotations?.['scheduling.atrium.io/split-workloads'] === 'true' && isReplicatedWorkload(obj)) return false;
  const nsLabels = ns?.metadata?.labels ?? {};
  if (nsLabels[stateLabel(target.key)] === 'Sync') return true;
  return nsLabels[CLUSTER_LABEL] === target.name;
}

/** Whether `obj` is the kind of object that never syncs even in an assigned namespace (per-cluster machinery). */
export function isClusterLocal(resource: string, obj: KubeObject): boolean {
  const name = obj.metadata?.name;
  if (resource === 'configmaps' && name === 'kube-root-ca.crt') return true;
  if (resource === 'serviceaccounts' && name === 'default') return true;
  if (resource === 'secrets' && (obj as { type?: string }).type === 'kubernetes.io/service-account-token') return true;
  return false;
}

const serverMetadata = ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'managedFields', 'ownerReferences', 'finalizers', 'selfLink', 'generateName'];

/**
 * The downstream copy of an upstream object: same name, mapped namespace, no server-owned metadata, owner
 * references or finalizers (they mean nothing downstream), no status, assignment labels swapped for the downstream
 * label, and a hash of all that in SPEC_HASH_ANNOTATION so an unchanged object is never rewritten.
 * Services lose cluster-assigned fields (clusterIP(s), nodePorts): the physical cluster allocates its own.
 */
export function toDownstream(up: KubeObject, resource: string, downstreamNamespace: string | undefined, key: string): KubeObject {
  const out = deepCopy(up);
  delete out.status;
  const meta = (out.metadata ??= {});
  for (const f of serverMetadata) delete meta[f];
  if (downstreamNamespace !== undefined) meta.namespace = downstreamNamespace;
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(meta.labels ?? {})) if (k !== CLUSTER_LABEL && !k.startsWith(STATE_LABEL_PREFIX)) labels[k] = v;
  labels[DOWNSTREAM_CLUSTER_LABEL] = key;
  meta.labels = labels;
  const annotations: Record<string, string> = {};
  for (const [k, v] of Object.entries(meta.annotations ?? {})) if (k !== CLUSTER_ANNOTATION && k !== SPEC_HASH_ANNOTATION) annotations[k] = v;
  if (resource === 'services' && out.spec && typeof out.spec === 'object') {
    const spec = out.spec as Record<string, unknown>;
    delete spec.clusterIP;
    delete spec.clusterIPs;
    if (Array.isArray(spec.ports)) for (const p of spec.ports as Record<string, unknown>[]) delete p.nodePort;
  }
  meta.annotations = annotations;
  annotations[SPEC_HASH_ANNOTATION] = contentHash(out);
  return out;
}

/**
 * Carries what the physical cluster allocated or added into an update, so that rewriting an object never takes it
 * away: a Service's clusterIPs and nodePorts, a PersistentVolumeClaim's bound volume and the class its admission
 * defaulted (both immutable once set), and the finalizers its controllers hold (pvc-protection, load-balancer
 * cleanup), which upstream objects never carry down.
 */
export function keepDownstreamAllocations(resource: string, desired: KubeObject, existing: KubeObject): void {
  const finalizers = existing.metadata?.finalizers ?? [];
  if (finalizers.length) desired.metadata = { ...(desired.metadata ?? {}), finalizers: [...finalizers] };
  const d = desired.spec as Record<string, unknown> | undefined;
  const e = existing.spec as Record<string, unknown> | undefined;
  if (!d || !e) return;
  if (resource === 'persistentvolumeclaims') {
    if (e.volumeName && !d.volumeName) d.volumeName = e.volumeName;
    if ((d.storageClassName === undefined || d.storageClassName === null) && typeof e.storageClassName === 'string') d.storageClassName = e.storageClassName;
    return;
  }
  if (resource !== 'services') return;
  if (e.clusterIP !== undefined) d.clusterIP = e.clusterIP;
  if (e.clusterIPs !== undefined) d.clusterIPs = e.clusterIPs;
  if (Array.isArray(d.ports) && Array.isArray(e.ports)) {
    for (const p of d.ports as Record<string, unknown>[]) {
      const match = (e.ports as Record<string, unknown>[]).find((q) => q.port === p.port && (q.protocol ?? 'TCP') === (p.protocol ?? 'TCP'));
      if (match?.nodePort !== undefined) p.nodePort = match.nodePort;
    }
  }
}

/** A short stable hash of a JSON value (keys sorted), for change detection. */
export function contentHash(v: unknown): string {
  return createHash('sha256').update(stableStringify(v)).digest('hex').slice(0, 16);
}

function stableStringify(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableStringify).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).filter((k) => o[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${stableStringify(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/** The hash the syncer last wrote on a downstream object. */
export function downstreamHashOf(obj: KubeObject): string | undefined {
  return obj.metadata?.annotations?.[SPEC_HASH_ANNOTATION];
}
