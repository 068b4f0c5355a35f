/**
 * Pure decisions of the syncer: is an upstream object assigned to this SyncTarget, and what does its downstream copy
 * look like. Kept free of I/O so they can be table-tested.
 */
import { createHash } from 'node:crypto';
import { deepCopy, jsonEqual, type KubeObject } from '../../apimachinery/object.js';
import { CLUSTER_ANNOTATION } from '../../client/resource.js';
import { stateLabel, syncerFinalizer } from '../api/keys.js';
import { toClusterNodeNames } from '../decisions/node-pin.js';
import { volumeCopyName, WORKSPACE_VOLUME_ANNOTATION } from '../decisions/volume-binding.js';
import { clusterSpecOf, isPlacementBookkeeping, kindPlacementOf } from '../api/kind-placement.js';
import { CLUSTER_LABEL, DOWNSTREAM_CLUSTER_LABEL, SPEC_HASH_ANNOTATION, STATE_LABEL_PREFIX, UPSTREAM_UID_ANNOTATION } from '../api/types.js';
import { isReplicatedWorkload } from '../splitter/replicated-workload.js';
import { SPLIT_FROM_LABEL } from '../scheduling/types.js';

export interface TargetIdentity {
  /** The SyncTarget's name (what CLUSTER_LABEL names). */
  name: string;
  /** The SyncTarget key (state label suffix, downstream label value). */
  key: string;
  /**
   * Set for a workspace other than the SyncTarget's own (a consumer through a Placement): there only namespaces the
   * scheduler placed on this target sync, so an object merely naming the target (`workload.kcp.io/cluster: <name>`,
   * a bare name another workspace's SyncTarget may share) is never enough; only an object already synced here keeps
   * its copy while its namespace moves away (heldOver).
   */
  consumer?: boolean;
}

/**
 * Whether `obj` (in namespace `ns`, if namespaced) of `resource` is assigned to the target. An object's own
 * CLUSTER_LABEL wins over its namespace's: an object labelled for another target is not synced here even in a
 * namespace assigned here. The state label `state.workload.kcp.io/<key>: Sync` (written by a scheduler, or per object
 * by the placement controller) also assigns.
 */
export function isAssigned(obj: KubeObject, ns: KubeObject | undefined, target: TargetIdentity, resource?: { group: string; resource: string }): boolean {
  const own = obj.metadata?.labels ?? {};
  if (target.consumer && ns?.metadata?.labels?.[stateLabel(target.key)] !== 'Sync' && !heldOver(obj, target)) return false;
  if (own[stateLabel(target.key)] === 'Sync') return true;
  if (CLUSTER_LABEL in own) return own[CLUSTER_LABEL] === target.name;
  if (ns?.metadata?.annotations?.['scheduling.atrium.io/split-workloads'] === 'true') {
    // In a placed namespace the placement controller (src/multicluster/placement) decides per object for every kind
    // of its table (api/kind-placement.ts) and writes the decision as the object's own state labels: the namespace's
    // labels do not assign such an object anywhere.
    if (resource && kindPlacementOf(resource.group, resource.resource)) return false;
    // Skip rule for the deployment splitter (src/multicluster/splitter): in a namespace it splits, a scalable object
    // (one with spec.replicas, or of a kind that defaults it to 1, isReplicatedWorkload) that has no assignment of its
    // own is a root replaced by per-cluster children `<name>--<target>` (each with its own CLUSTER_LABEL); the root
    // itself must never run anywhere.
    if (isReplicatedWorkload(obj)) return false;
  }
  const nsLabels = ns?.metadata?.labels ?? {};
  if (nsLabels[stateLabel(target.key)] === 'Sync') return true;
  return nsLabels[CLUSTER_LABEL] === target.name;
}

/**
 * Whether `obj`, in a consumer workspace whose namespace no longer carries this target's state label (the namespace is
 * moving away), is still held here while it makes room elsewhere: it carries this target's syncer finalizer (so it
 * was synced here, by this very target and not a same-named one of another workspace) and what the controllers moving
 * it wrote on it still names this target — a split child being scaled down make before break (the splitter's, labelled
 * with the target's name), or an object the placement controller keeps here by its own state label (a Service,
 * ConfigMap or PDB a workload there still uses). Without this its copy would be deleted the moment the namespace's
 * label went, before the new cluster ran anything: the move would break before it made. An object a user pinned by
 * the bare name is not held: once its namespace is not placed here, that name alone is never enough.
 */
export function heldOver(obj: KubeObject, target: TargetIdentity): boolean {
  if (!obj.metadata?.finalizers?.includes(syncerFinalizer(target.key))) return false;
  const own = obj.metadata.labels ?? {};
  return own[stateLabel(target.key)] === 'Sync' || (own[CLUSTER_LABEL] === target.name && own[SPLIT_FROM_LABEL] !== undefined);
}

export { isClusterLocal } from '../api/kind-placement.js';

const serverMetadata = ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'managedFields', 'ownerReferences', 'finalizers', 'selfLink', 'generateName'];

/** The labels the Job strategy generates on a Job's pod template (with the selector): the cluster's own. */
const JOB_GENERATED_LABELS = ['controller-uid', 'batch.kubernetes.io/controller-uid', 'job-name', 'batch.kubernetes.io/job-name'];

/**
 * The downstream copy of an upstream object: same name, mapped namespace, no server-owned metadata, owner
 * references or finalizers (they mean nothing downstream), no status, assignment labels swapped for the downstream
 * label, no placement bookkeeping (api/kind-placement.ts), this cluster's entry of a per-cluster spec applied (a
 * JSON merge patch of spec), and a hash of all that in SPEC_HASH_ANNOTATION so an unchanged object is never
 * rewritten, and the upstream object's uid in UPSTREAM_UID_ANNOTATION. Fields the physical cluster generates or allocates are left
 * for it to fill in:
 * - Services: clusterIP(s) (but `None`: a headless Service stays headless), nodePorts, healthCheckNodePort;
 * - Jobs (without manualSelector): the selector and the controller-uid / job-name template labels generated from the
 *   upstream object's uid (the cluster's API server generates its own from the copy's uid);
 * - PersistentVolumeClaims: volumeName (the volume is the cluster's; mirrored up by the downstream-owned rule), but a
 *   claim bound to a volume of the workspace names the volume's copy (workspace-volumes.ts);
 * - Pods: nodeName (the cluster's scheduler binds the pod; one naming a node of this cluster, `<cluster>--<node>`,
 *   binds the copy to `<node>` when it is made), priority and preemptionPolicy (the cluster's Priority admission
 *   computes them from its PriorityClass).
 * Pod specs and templates name this cluster's nodes by its own names (decisions/node-pin.ts) when `clusterName` is
 * given.
 */
export function toDownstream(up: KubeObject, resource: string, downstreamNamespace: string | undefined, key: string, clusterName?: string): KubeObject {
  // Copy only what the copy keeps: status and managedFields (often most of the object) are dropped anyway.
  const { status: _status, ...body } = up;
  const { managedFields: _managedFields, ...upMeta } = up.metadata ?? {};
  void _status;
  void _managedFields;
  const out = deepCopy({ ...body, metadata: upMeta }) as KubeObject;
  const meta = out.metadata!;
  for (const f of serverMetadata) delete meta[f];
  if (downstreamNamespace !== undefined) meta.namespace = downstreamNamespace;
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(meta.labels ?? {})) if (k !== CLUSTER_LABEL && !k.startsWith(STATE_LABEL_PREFIX)) labels[k] = v;
  labels[DOWNSTREAM_CLUSTER_LABEL] = key;
  meta.labels = labels;
  const annotations: Record<string, string> = {};
  for (const [k, v] of Object.entries(meta.annotations ?? {})) if (k !== CLUSTER_ANNOTATION && k !== SPEC_HASH_ANNOTATION && k !== UPSTREAM_UID_ANNOTATION && !isPlacementBookkeeping(k)) annotations[k] = v;
  const perCluster = clusterSpecOf(up, key);
  if (perCluster) out.spec = mergePatch(out.spec ?? {}, perCluster) as Record<string, unknown>;
  const spec = out.spec && typeof out.spec === 'object' ? (out.spec as Record<string, unknown>) : undefined;
  if (spec && resource === 'services') {
    // A headless Service (clusterIP None) stays headless; an address is the cluster's to allocate.
    if (spec.clusterIP !== 'None') {
      delete spec.clusterIP;
      delete spec.clusterIPs;
    }
    delete spec.healthCheckNodePort;
    if (Array.isArray(spec.ports)) for (const p of spec.ports as Record<string, unknown>[]) delete p.nodePort;
  }
  if (spec && resource === 'jobs' && spec.manualSelector !== true) {
    delete spec.selector;
    const templateLabels = ((spec.template as { metadata?: { labels?: Record<string, string> } } | undefined)?.metadata?.labels) ?? undefined;
    if (templateLabels) for (const l of JOB_GENERATED_LABELS) delete templateLabels[l];
  }
  if (spec && resource === 'persistentvolumeclaims') {
    // Bound to a volume of the workspace: pre-bound to its copy on the cluster (workspace-volumes.ts); otherwise the
    // volume is the cluster's to provision or find.
    const own = up.metadata?.annotations?.[WORKSPACE_VOLUME_ANNOTATION];
    if (own && up.metadata?.uid) spec.volumeName = volumeCopyName(own, up.metadata.uid);
    else delete spec.volumeName;
  }
  // Pods pinned to a workspace node by name (`<cluster>--<node>`) name this cluster's node by its own name.
  const podSpec = resource === 'pods' ? spec : podTemplateSpecOf(spec, resource);
  if (podSpec && clusterName !== undefined) toClusterNodeNames(podSpec, clusterName);
  // A bare Pod's nodeName is its binding: the one its creator gave (pinned to a node of this cluster) goes down with
  // the copy when it is made, outside the hash, so the binding the cluster's scheduler made and the syncer mirrors up
  // as `<cluster>--<node>` (bindUpstreamPod) never rewrites the copy.
  let boundTo: string | undefined;
  if (spec && resource === 'pods') {
    if (clusterName !== undefined && typeof spec.nodeName === 'string' && spec.nodeName !== (up.spec as { nodeName?: unknown } | undefined)?.nodeName) boundTo = spec.nodeName;
    delete spec.nodeName;
    // The cluster's Priority admission computes them from its class of that name (the workspace's computed value
    // given instead would be refused wherever the cluster's class differs).
    delete spec.priority;
    delete spec.preemptionPolicy;
  }
  if (up.metadata?.uid) annotations[UPSTREAM_UID_ANNOTATION] = up.metadata.uid;
  meta.annotations = annotations;
  annotations[SPEC_HASH_ANNOTATION] = contentHash(out);
  if (boundTo !== undefined) spec!.nodeName = boundTo;
  return out;
}

/** The pod template's spec of a workload object's spec (a CronJob's through its jobTemplate), or undefined. */
function podTemplateSpecOf(spec: Record<string, unknown> | undefined, resource: string): Record<string, unknown> | undefined {
  const at = (o: unknown, k: string) => (o && typeof o === 'object' && !Array.isArray(o) ? ((o as Record<string, unknown>)[k] as unknown) : undefined);
  const template = resource === 'cronjobs' ? at(at(at(spec, 'jobTemplate'), 'spec'), 'template') : resource === 'podtemplates' ? undefined : at(spec, 'template');
  const podSpec = at(template, 'spec');
  return podSpec && typeof podSpec === 'object' && !Array.isArray(podSpec) ? (podSpec as Record<string, unknown>) : undefined;
}

/** RFC 7386 JSON merge patch of `target` with `patch` (a copy; null deletes). */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!patch || typeof patch !== 'object' || Array.isArray(patch)) return deepCopy(patch);
  const out: Record<string, unknown> = target && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/**
 * Carries fields the physical cluster generated or allocated (see toDownstream) from its copy into an update, so a
 * rewrite neither drops nor changes them (they are immutable there, or bound to the cluster's own objects): a
 * Service's clusterIPs and nodePorts, a Job's generated selector and labels, a PersistentVolumeClaim's bound volume
 * and the class its admission defaulted, a Pod's node, priority and ephemeral containers, and the finalizers the cluster's controllers hold
 * (pvc-protection, load-balancer cleanup), which upstream objects never carry down.
 */
export function keepDownstreamAllocations(resource: string, desired: KubeObject, existing: KubeObject): void {
  const finalizers = existing.metadata?.finalizers ?? [];
  if (finalizers.length) desired.metadata = { ...(desired.metadata ?? {}), finalizers: [...finalizers] };
  const d = desired.spec as Record<string, unknown> | undefined;
  const e = existing.spec as Record<string, unknown> | undefined;
  if (!d || !e) return;
  if (resource === 'services') {
    if (e.clusterIP !== undefined) d.clusterIP = e.clusterIP;
    if (e.clusterIPs !== undefined) d.clusterIPs = e.clusterIPs;
    if (e.healthCheckNodePort !== undefined && d.healthCheckNodePort === undefined) d.healthCheckNodePort = e.healthCheckNodePort;
    if (Array.isArray(d.ports) && Array.isArray(e.ports)) {
      for (const p of d.ports as Record<string, unknown>[]) {
        const match = (e.ports as Record<string, unknown>[]).find((q) => q.port === p.port && (q.protocol ?? 'TCP') === (p.protocol ?? 'TCP'));
        if (match?.nodePort !== undefined) p.nodePort = match.nodePort;
      }
    }
  } else if (resource === 'jobs') {
    if (d.manualSelector === true) return;
    if (e.selector !== undefined) d.selector = deepCopy(e.selector);
    const el = (e.template as { metadata?: { labels?: Record<string, string> } } | undefined)?.metadata?.labels ?? {};
    const dt = ((d.template ??= {}) as { metadata?: { labels?: Record<string, string> } });
    const dl = ((dt.metadata ??= {}).labels ??= {});
    for (const l of JOB_GENERATED_LABELS) if (el[l] !== undefined) dl[l] = el[l];
  } else if (resource === 'persistentvolumeclaims') {
    if (e.volumeName !== undefined) d.volumeName = e.volumeName;
    if ((d.storageClassName === undefined || d.storageClassName === null) && typeof e.storageClassName === 'string') d.storageClassName = e.storageClassName;
  } else if (resource === 'pods') {
    // A controller of the cluster that adopted the pod keeps it (carried up as the upstream owner by the syncer).
    const owners = existing.metadata?.ownerReferences;
    if (owners?.length) desired.metadata = { ...(desired.metadata ?? {}), ownerReferences: deepCopy(owners) };
    if (e.nodeName !== undefined) d.nodeName = e.nodeName;
    // What the cluster's Priority admission set: immutable there (a class name only when the pod named none: its
    // global default class).
    for (const f of ['priority', 'preemptionPolicy']) if (e[f] !== undefined) d[f] = e[f];
    if (d.priorityClassName === undefined && e.priorityClassName !== undefined) d.priorityClassName = e.priorityClassName;
    // What the cluster's RuntimeClass admission set from its class (immutable there): the overhead, the class's node
    // labels merged into the selector, its tolerations (which a PUT may add to but not remove).
    if (e.overhead !== undefined) d.overhead = deepCopy(e.overhead);
    if (e.nodeSelector !== undefined) d.nodeSelector = deepCopy(e.nodeSelector);
    if (Array.isArray(e.tolerations)) {
      const want = Array.isArray(d.tolerations) ? [...(d.tolerations as unknown[])] : [];
      d.tolerations = [...(e.tolerations as unknown[]).map((t) => deepCopy(t)), ...want.filter((t) => !(e.tolerations as unknown[]).some((x) => jsonEqual(x, t)))];
    }
    // What the cluster's ServiceAccount admission added (immutable there): the account a pod named none of, its image
    // pull secrets, and the kube-api-access token volume with its mounts.
    if (!d.serviceAccountName && e.serviceAccountName !== undefined) {
      d.serviceAccountName = e.serviceAccountName;
      if (e.serviceAccount !== undefined) d.serviceAccount = e.serviceAccount;
    }
    if (!(Array.isArray(d.imagePullSecrets) && d.imagePullSecrets.length) && e.imagePullSecrets !== undefined) d.imagePullSecrets = deepCopy(e.imagePullSecrets);
    keepAdmittedTokenMounts(d, e);
    // A PUT cannot change them: the syncer writes the upstream ones through pods/ephemeralcontainers first.
    if (e.ephemeralContainers !== undefined) d.ephemeralContainers = deepCopy(e.ephemeralContainers);
    else delete d.ephemeralContainers;
  }
}

const TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';

/** The `kube-api-access-*` volume of a cluster's pod and each container's mount of it, where the desired pod lacks them. */
function keepAdmittedTokenMounts(d: Record<string, unknown>, e: Record<string, unknown>): void {
  const named = (list: unknown) => (Array.isArray(list) ? (list as Record<string, unknown>[]).filter((x) => x && typeof x === 'object') : []);
  const token = named(e.volumes).find((v) => typeof v.name === 'string' && v.name.startsWith('kube-api-access-'));
  if (!token) return;
  const volumes = named(d.volumes);
  if (!volumes.some((v) => v.name === token.name)) d.volumes = [...volumes, deepCopy(token)];
  for (const key of ['initContainers', 'containers']) {
    const existing = named(e[key]);
    for (const c of named(d[key])) {
      const mounts = named(c.volumeMounts);
      if (mounts.some((m) => m.mountPath === TOKEN_MOUNT_PATH)) continue;
      const mount = named(existing.find((x) => x.name === c.name)?.volumeMounts).find((m) => m.mountPath === TOKEN_MOUNT_PATH && m.name === token.name);
      if (mount) c.volumeMounts = [...mounts, deepCopy(mount)];
    }
  }
}

/** A short stable hash of a JSON value (keys sorted), for change detection. */
export function contentHash(v: unknown): string {
  return createHash('sha256').update(stableStringify(v)).digest('hex').slice(0, 16);
}

/**
 * JSON with every object's keys sorted (keys whose value is undefined left out). Built by concatenation, not
 * map/join, as it runs on every object the syncers write down; its output must stay what it always was, as the hashes
 * are stored in annotations (an undefined array item, for one, is an empty string between its commas).
 */
function stableStringify(v: unknown): string {
  if (typeof v !== 'object' || v === null) return JSON.stringify(v);
  if (Array.isArray(v)) {
    let s = '[';
    for (let i = 0; i < v.length; i++) {
      if (i) s += ',';
      const item = stableStringify(v[i]) as string | undefined;
      if (item !== undefined) s += item;
    }
    return s + ']';
  }
  const o = v as Record<string, unknown>;
  let s = '{';
  let first = true;
  for (const k of Object.keys(o).sort()) {
    const x = o[k];
    if (x === undefined) continue;
    if (!first) s += ',';
    first = false;
    s += JSON.stringify(k) + ':' + stableStringify(x);
  }
  return s + '}';
}

/** The hash the syncer last wrote on a downstream object. */
export function downstreamHashOf(obj: KubeObject): string | undefined {
  return obj.metadata?.annotations?.[SPEC_HASH_ANNOTATION];
}
