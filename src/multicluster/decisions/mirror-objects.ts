/**
 * Pure decisions of the syncer's mirrors of downstream objects (syncer/mirror-set.ts): what the upstream record of a
 * cluster's pod, Job or Event looks like, and how it is named. No I/O: the caller resolves the upstream owner (or the
 * object an event is about) and hands it in.
 *
 * Naming (never colliding across clusters):
 * - a pod keeps its downstream name when that name is already unique to its cluster: pods of a split Deployment's
 *   child (`<name>--<cluster>-<hash>-<rand>`) and pods of a workload placed whole on one cluster (StatefulSet `web-0`,
 *   Job, ReplicaSet, ReplicationController, a CronJob's Job);
 * - a DaemonSet runs on every cluster, so its pods (`<ds>-<rand>`, names that could repeat) get the cluster after the
 *   DaemonSet's name, as a split child's pods do: `<ds>--<cluster>-<rand>`;
 * - a moving one-cluster workload (failover) can briefly have a same-named pod on two clusters: the mirror writer never
 *   takes over another cluster's mirror (mirror-set.ts), the new one appears once the old pod is gone;
 * - an Event is `<downstream name>.<cluster>` (event names are `<object>.<hex time>`, equal names on two clusters are
 *   possible).
 *
 * Where we deliberately differ from upstream: a mirror pod's spec.nodeName is `<cluster>--<node>` (api/node-names.ts:
 * the name of the read-only Node the workspace serves for it, not a Node stored here) because kubectl's NODE column
 * prints spec.nodeName and `kubectl describe node` must find it, and a mirrored Event's
 * message starts with `[<cluster>] ` because `kubectl describe` and `kubectl events` print the message but not the
 * source host.
 */
import { deepCopy, type KubeObject } from '../../apimachinery/object.js';
import { MIRROR_CLUSTER_LABEL, MIRROR_HASH_ANNOTATION, MIRROR_LABEL, MIRROR_SOURCE_ANNOTATION, MIRROR_SOURCE_UID_ANNOTATION, MIRROR_SYNC_TARGET_CLUSTER_ANNOTATION, MIRROR_SYNC_TARGET_KEY_ANNOTATION } from '../api/mirrors.js';
import { workspaceNodeName } from '../api/node-names.js';
import { CLUSTER_LABEL, DOWNSTREAM_CLUSTER_LABEL, SPEC_HASH_ANNOTATION, STATE_LABEL_PREFIX } from '../api/types.js';
import { contentHash } from '../syncer/transform.js';

/** Which cluster a mirror records, and where its SyncTarget lives. */
export interface MirrorCluster {
  /** The SyncTarget's name (MIRROR_CLUSTER_LABEL; the `<cluster>` of names, nodes and event messages). */
  name: string;
  /** The SyncTarget's key. */
  key: string;
  /** The SyncTarget's workspace, when not the mirror's own (a consumer workspace placed on it). */
  syncTargetCluster?: string;
}

/** An ownerReference or event reference upstream. */
export interface UpstreamRef {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  /**
   * Labels the owner's selector requires of its pods where the cluster's pods carry another value: a synced Job's
   * `batch.kubernetes.io/controller-uid` and `controller-uid` are generated from its upstream uid, its cluster copy's
   * pods carry the copy's. Never part of an ownerReference.
   */
  podSelectorLabels?: Record<string, string>;
}

interface OwnerReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid?: string;
  controller?: boolean;
}

/** The controller ownerReference of `o`, if any. */
export function controllerOf(o: KubeObject | undefined): OwnerReference | undefined {
  return (o?.metadata?.ownerReferences as OwnerReference[] | undefined)?.find((r) => r.controller);
}

/** Whether a downstream object is one the syncer copied down (it is synced, not mirrored). */
export function isSyncedCopy(down: KubeObject): boolean {
  return down.metadata?.labels?.[DOWNSTREAM_CLUSTER_LABEL] !== undefined && down.metadata?.annotations?.[SPEC_HASH_ANNOTATION] !== undefined;
}

/** The upstream name of a downstream pod's mirror (see the naming rules above). */
export function mirrorPodName(pod: KubeObject, cluster: string): string {
  const name = pod.metadata?.name ?? '';
  const owner = controllerOf(pod);
  if (owner?.kind === 'DaemonSet' && owner.name && name.startsWith(`${owner.name}-`)) return `${owner.name}--${cluster}-${name.slice(owner.name.length + 1)}`;
  return name;
}

/** The upstream name of a downstream event's mirror. */
export function mirrorEventName(event: KubeObject, cluster: string): string {
  return `${event.metadata?.name ?? ''}.${cluster}`;
}

/**
 * A ReplicaSet made by a Deployment is named `<deployment>-<pod-template-hash>` (the hash has no dash): the
 * Deployment's name and the hash, or undefined for a name of another shape.
 */
export function splitReplicaSetName(name: string): { deployment: string; hash: string } | undefined {
  const i = name.lastIndexOf('-');
  if (i <= 0 || i === name.length - 1) return undefined;
  return { deployment: name.slice(0, i), hash: name.slice(i + 1) };
}

/** Labels of a mirror: the downstream ones but the syncer's internal, assignment and state labels, plus the marks. */
export function mirrorLabelsOf(down: KubeObject, cluster: MirrorCluster): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(down.metadata?.labels ?? {})) {
    if (k.startsWith('internal.workload.kcp.io/') || k.startsWith(STATE_LABEL_PREFIX) || k === CLUSTER_LABEL) continue;
    out[k] = v;
  }
  out[MIRROR_LABEL] = 'true';
  out[MIRROR_CLUSTER_LABEL] = cluster.name;
  return out;
}

/** Annotations of a mirror: the downstream ones but the syncer's, plus where the original is (api/mirrors.ts). */
export function mirrorAnnotationsOf(down: KubeObject, cluster: MirrorCluster, keepDownstream = true): Record<string, string> {
  const out: Record<string, string> = {};
  if (keepDownstream) for (const [k, v] of Object.entries(down.metadata?.annotations ?? {})) if (!k.startsWith('internal.workload.kcp.io/') && !k.startsWith('scheduling.atrium.io/')) out[k] = v;
  out[MIRROR_SYNC_TARGET_KEY_ANNOTATION] = cluster.key;
  if (cluster.syncTargetCluster) out[MIRROR_SYNC_TARGET_CLUSTER_ANNOTATION] = cluster.syncTargetCluster;
  const ns = down.metadata?.namespace;
  out[MIRROR_SOURCE_ANNOTATION] = ns ? `${ns}/${down.metadata?.name}` : (down.metadata?.name ?? '');
  if (down.metadata?.uid) out[MIRROR_SOURCE_UID_ANNOTATION] = down.metadata.uid;
  return out;
}

/** Stamps MIRROR_HASH_ANNOTATION: the hash of everything the syncer writes but status. */
function withHash(mirror: KubeObject): KubeObject {
  const { status: _status, ...rest } = mirror;
  void _status;
  mirror.metadata!.annotations![MIRROR_HASH_ANNOTATION] = contentHash(rest);
  return mirror;
}

/**
 * A mirror pod's labels with the values its upstream owner's selector requires (UpstreamRef.podSelectorLabels) where
 * the pod has the label: so `kubectl logs job/x`, which picks a pod by the Job's selector, finds the mirrors of a
 * synced Job's pods, as it finds a Job's pods on one cluster.
 */
function selectedBy(owner: UpstreamRef, labels: Record<string, string>): Record<string, string> {
  for (const [k, v] of Object.entries(owner.podSelectorLabels ?? {})) if (k in labels) labels[k] = v;
  return labels;
}

function ownerReference(owner: UpstreamRef): Record<string, unknown> {
  return { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.name, uid: owner.uid, controller: true, blockOwnerDeletion: true };
}

/**
 * The mirror of a downstream pod in upstream namespace `namespace`, owned by `owner` (none for a pod its controller
 * released, whose mirror stays: streams/mirror-pod-metadata.ts): spec and status as downstream,
 * spec.nodeName and status.nominatedNodeName `<cluster>--<node>` (kubectl's NODE column), labels and annotations as mirrorLabelsOf/Of.
 */
export function podMirror(pod: KubeObject, namespace: string, owner: UpstreamRef | undefined, cluster: MirrorCluster): KubeObject {
  const spec = deepCopy((pod.spec ?? {}) as Record<string, unknown>);
  if (typeof spec.nodeName === 'string' && spec.nodeName) spec.nodeName = workspaceNodeName(cluster.name, spec.nodeName);
  const status = deepCopy((pod.status ?? {}) as Record<string, unknown>);
  if (typeof status.nominatedNodeName === 'string' && status.nominatedNodeName) status.nominatedNodeName = workspaceNodeName(cluster.name, status.nominatedNodeName);
  return withHash({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: mirrorPodName(pod, cluster.name),
      namespace,
      labels: owner ? selectedBy(owner, mirrorLabelsOf(pod, cluster)) : mirrorLabelsOf(pod, cluster),
      annotations: mirrorAnnotationsOf(pod, cluster),
      ...(owner ? { ownerReferences: [ownerReference(owner)] } : {}),
    },
    spec,
    status,
  });
}

/**
 * The mirror of a Job a downstream CronJob made, owned by the upstream CronJob: same name (the CronJob runs whole on
 * one cluster), spec and status as downstream, so `kubectl get jobs` and `kubectl logs job/x` work upstream.
 */
export function jobMirror(job: KubeObject, namespace: string, owner: UpstreamRef, cluster: MirrorCluster): KubeObject {
  return withHash({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: job.metadata?.name, namespace, labels: mirrorLabelsOf(job, cluster), annotations: mirrorAnnotationsOf(job, cluster), ownerReferences: [ownerReference(owner)] },
    // manualSelector: the selector and the template's controller-uid / job-name labels are the ones the cluster
    // generated from its Job's uid (its pods carry them); upstream would otherwise demand ones generated from the
    // mirror's own uid. A deliberate difference from the cluster's object, so selectors match the mirrored pods.
    spec: { ...deepCopy((job.spec ?? {}) as Record<string, unknown>), manualSelector: true },
    status: deepCopy(job.status ?? {}),
  });
}

/**
 * The mirror of a ReplicaSet the cluster's Deployment controller made for a Deployment synced whole (pinned to the
 * cluster, or in a namespace assigned by label: not split), owned by the upstream Deployment: same name, spec and
 * status as downstream, annotations as downstream (`deployment.kubernetes.io/revision`, the change-cause), so
 * `kubectl rollout history|undo` and `kubectl describe deploy` (NewReplicaSet, OldReplicaSets) work upstream and the
 * Deployment's pods are owned by it. A split Deployment's ReplicaSets are not mirrored: the control plane keeps its
 * revision history itself (splitter/revision-history.ts).
 */
export function replicaSetMirror(rs: KubeObject, namespace: string, owner: UpstreamRef, cluster: MirrorCluster): KubeObject {
  return withHash({
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: rs.metadata?.name, namespace, labels: mirrorLabelsOf(rs, cluster), annotations: mirrorAnnotationsOf(rs, cluster), ownerReferences: [ownerReference(owner)] },
    spec: deepCopy((rs.spec ?? {}) as Record<string, unknown>),
    status: deepCopy(rs.status ?? {}),
  });
}

/** A downstream ownerReference resolved upstream, with its flags as on the cluster. */
export interface ResolvedOwner {
  ref: UpstreamRef;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/**
 * The mirror of a PersistentVolumeClaim the cluster made (a StatefulSet's volumeClaimTemplates claim
 * `<template>-<set>-<ordinal>`): same name (the StatefulSet runs whole on one cluster), spec and status (phase,
 * capacity, access modes) as downstream, so `kubectl get pvc` and `kubectl describe pvc` show it. Its owners are the
 * cluster's, resolved upstream: kube 1.32's StatefulSet controller sets none unless persistentVolumeClaimRetentionPolicy
 * asks (whenDeleted: Delete → the StatefulSet; whenScaled: Delete → the Pod, for claims beyond the replicas).
 * spec.volumeName names the cluster's PersistentVolume (there is none upstream), as a synced claim's does.
 */
export function claimMirror(pvc: KubeObject, namespace: string, owners: readonly ResolvedOwner[], cluster: MirrorCluster): KubeObject {
  const ownerReferences = owners.map((o) => ({ apiVersion: o.ref.apiVersion, kind: o.ref.kind, name: o.ref.name, uid: o.ref.uid, ...(o.controller !== undefined ? { controller: o.controller } : {}), ...(o.blockOwnerDeletion !== undefined ? { blockOwnerDeletion: o.blockOwnerDeletion } : {}) }));
  return withHash({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: pvc.metadata?.name, namespace, labels: mirrorLabelsOf(pvc, cluster), annotations: mirrorAnnotationsOf(pvc, cluster), ...(ownerReferences.length ? { ownerReferences } : {}) },
    spec: deepCopy((pvc.spec ?? {}) as Record<string, unknown>),
    status: deepCopy(pvc.status ?? {}),
  });
}

/**
 * How long a mirrored Event lives after it was last seen on its cluster: kube's event TTL (kube-apiserver
 * --event-ttl, 1 h, counted from the last write). The syncer deletes a mirror past it (even if the cluster keeps its
 * event longer), and atrium deletes mirrors past it whose syncer is gone (controllers/mirror-event-ttl.ts), so a
 * workspace never accumulates the events of a cluster that went away.
 */
export const EVENT_TTL_MS = 60 * 60 * 1000;

/** When an event was last seen (series.lastObservedTime, lastTimestamp, eventTime, firstTimestamp, creation), in ms. */
export function eventLastSeenMs(event: KubeObject): number | undefined {
  const e = event as KubeObject & { series?: { lastObservedTime?: string }; lastTimestamp?: string; eventTime?: string; firstTimestamp?: string };
  for (const t of [e.series?.lastObservedTime, e.lastTimestamp, e.eventTime, e.firstTimestamp, e.metadata?.creationTimestamp]) {
    const ms = typeof t === 'string' && t ? Date.parse(t) : NaN;
    if (Number.isFinite(ms)) return ms;
  }
  return undefined;
}

/** When a (mirrored) event expires: last seen + `ttlMs`; undefined when it carries no time at all. */
export function eventExpiresAtMs(event: KubeObject, ttlMs = EVENT_TTL_MS): number | undefined {
  const seen = eventLastSeenMs(event);
  return seen === undefined ? undefined : seen + ttlMs;
}

/**
 * `text` with the cluster's namespace `from` (the syncer's `kcp-…` namespace) replaced by the workspace's `to`
 * wherever it stands as a whole name (`kcp-x1/db-0`, `db-0_kcp-x1(uid)`), so messages name what the user knows.
 */
export function rewriteNamespace(text: string, from: string, to: string): string {
  if (!from || from === to || !text.includes(from)) return text;
  const escaped = from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return text.replace(new RegExp(`(?<![A-Za-z0-9-])${escaped}(?![A-Za-z0-9-])`, 'g'), to);
}

/**
 * The mirror of a downstream core/v1 Event about `involved` (the upstream object it is about): its involvedObject
 * rewritten to the upstream object, the cluster's namespace replaced by the workspace's in the message and fieldPath,
 * the cluster named in the message (`[<cluster>] `) and in source.host / reportingInstance (`<cluster>/<host>`),
 * count and timestamps as downstream.
 */
export function eventMirror(event: KubeObject, namespace: string, involved: UpstreamRef, cluster: MirrorCluster): KubeObject {
  const e = event as KubeObject & Record<string, unknown>;
  const down = (e.involvedObject ?? {}) as Record<string, unknown>;
  const downNs = event.metadata?.namespace ?? '';
  const source = { ...((e.source ?? {}) as Record<string, unknown>) };
  source.host = typeof source.host === 'string' && source.host ? `${cluster.name}/${source.host}` : cluster.name;
  const out: KubeObject & Record<string, unknown> = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: mirrorEventName(event, cluster.name), namespace, labels: mirrorLabelsOf(event, cluster), annotations: mirrorAnnotationsOf(event, cluster, false) },
    involvedObject: { kind: involved.kind, apiVersion: involved.apiVersion, name: involved.name, namespace, uid: involved.uid, ...(typeof down.fieldPath === 'string' && down.fieldPath ? { fieldPath: rewriteNamespace(down.fieldPath, downNs, namespace) } : {}) },
    reason: e.reason,
    message: `[${cluster.name}] ${typeof e.message === 'string' ? rewriteNamespace(e.message, downNs, namespace) : ''}`,
    type: e.type,
    source,
    count: e.count,
    firstTimestamp: e.firstTimestamp,
    lastTimestamp: e.lastTimestamp,
    eventTime: e.eventTime,
    series: e.series,
    action: e.action,
    reportingComponent: e.reportingComponent,
    reportingInstance: typeof e.reportingInstance === 'string' && e.reportingInstance ? `${cluster.name}/${e.reportingInstance}` : e.reportingInstance,
  };
  for (const k of Object.keys(out)) if (out[k] === undefined || out[k] === null) delete out[k];
  return withHash(out);
}

/**
 * Whether an existing mirror must be rewritten (metadata or spec changed: its hash differs) and whether its status
 * differs from the desired one.
 */
export function mirrorChanges(current: KubeObject, desired: KubeObject): { content: boolean; status: boolean } {
  const have = current.metadata?.annotations?.[MIRROR_HASH_ANNOTATION];
  const want = desired.metadata?.annotations?.[MIRROR_HASH_ANNOTATION];
  return { content: have !== want, status: desired.status !== undefined && contentHash(current.status ?? {}) !== contentHash(desired.status) };
}
