/**
 * The decisions of the StatefulSet controller (pkg/controller/statefulset/stateful_set_control.go, 1.32 with
 * StatefulSetAutoDeletePVC and PodIndexLabel on, MaxUnavailableStatefulSet off), as pure functions:
 *
 * - planStatefulSet: what to do next. Replicas [start, start+replicas) are walked in ordinal order: a finished pod
 *   is deleted (to be recreated), a missing one created; with OrderedReady (monotonic) the walk stops at the first
 *   creation, terminating pod, or pod not Running+Ready+available. Then condemned pods (ordinals out of range) go,
 *   highest first — one at a time, and only once every predecessor is healthy, with OrderedReady. Then, for
 *   RollingUpdate, the highest ordinal ≥ partition not at the update revision is deleted (the walk recreates it at
 *   the new revision), one at a time, waiting for each to be healthy. OnDelete stops before that.
 * - revisionForNewPod: which revision a (re)created pod gets (newVersionedStatefulSetPod).
 * - statefulSetStatus: replicas, readyReplicas, availableReplicas, currentReplicas, updatedReplicas, revisions
 *   (completeRollingUpdate included).
 * - claimOwnerReferences: the owner references a claim should have under persistentVolumeClaimRetentionPolicy.
 */
import { deepCopy, type JsonObject, type KubeObject, isPlainObject } from '../../../apimachinery/object.js';
import { isPodAvailable, isPodReady } from '../pod-conditions.js';
import { podRevisionLabel } from '../controller-history.js';

export const podNameLabel = 'statefulset.kubernetes.io/pod-name';
export const podIndexLabel = 'apps.kubernetes.io/pod-index';

/** What the planner needs to know about one pod. */
export interface SetPod {
  name: string;
  ordinal: number;
  revision: string;
  /** status.phase ('' when not set). */
  phase: string;
  runningAndReady: boolean;
  /** Running, ready and ready for minReadySeconds. */
  available: boolean;
  terminating: boolean;
}

export type SetAction =
  | { kind: 'create'; ordinal: number }
  | { kind: 'delete'; name: string; why: 'finished' | 'condemned' | 'update' };

export interface PlanInput {
  replicas: number;
  startOrdinal: number;
  /** podManagementPolicy OrderedReady. */
  monotonic: boolean;
  strategy: 'RollingUpdate' | 'OnDelete';
  partition: number;
  updateRevision: string;
  pods: SetPod[];
}

export interface Plan {
  actions: SetAction[];
  /** Why the walk stopped early (for logs and tests), if it did. */
  waitingFor?: string;
}

const healthy = (p: SetPod) => p.runningAndReady && p.available && !p.terminating;

/** The pod's ordinal from its name `<set>-<ordinal>`, or -1 (getParentNameAndOrdinal). */
export function ordinalOf(setName: string, podName: string): number {
  const prefix = `${setName}-`;
  if (!podName.startsWith(prefix)) return -1;
  const rest = podName.slice(prefix.length);
  return /^(0|[1-9][0-9]*)$/.test(rest) ? Number(rest) : -1;
}

export function planStatefulSet(input: PlanInput): Plan {
  const { replicas, startOrdinal, monotonic } = input;
  const end = startOrdinal + replicas;
  const byOrdinal = new Map<number, SetPod>();
  const condemned: SetPod[] = [];
  // Two pods with one ordinal cannot exist (names are unique); pods outside the range are condemned.
  for (const p of input.pods) {
    if (p.ordinal >= startOrdinal && p.ordinal < end) byOrdinal.set(p.ordinal, p);
    else if (p.ordinal >= 0) condemned.push(p);
  }
  condemned.sort((a, b) => b.ordinal - a.ordinal);
  const actions: SetAction[] = [];
  const firstUnhealthy =
    [...Array(replicas).keys()].map((i) => byOrdinal.get(startOrdinal + i)).find((p) => p !== undefined && !healthy(p)) ??
    [...condemned].reverse().find((p) => !healthy(p));

  for (let ordinal = startOrdinal; ordinal < end; ordinal++) {
    const pod = byOrdinal.get(ordinal);
    if (pod && (pod.phase === 'Failed' || pod.phase === 'Succeeded')) {
      if (!pod.terminating) actions.push({ kind: 'delete', name: pod.name, why: 'finished' });
      // Recreated on a later pass, once it is gone.
      return { actions, waitingFor: `${pod.name} to be recreated` };
    }
    if (!pod) {
      actions.push({ kind: 'create', ordinal });
      if (monotonic) return { actions, waitingFor: `ordinal ${ordinal} to be created and become ready` };
      continue;
    }
    if (!monotonic) continue;
    if (pod.terminating) return { actions, waitingFor: `${pod.name} to terminate` };
    if (!pod.runningAndReady) return { actions, waitingFor: `${pod.name} to be Running and Ready` };
    if (!pod.available) return { actions, waitingFor: `${pod.name} to be available` };
  }

  for (const pod of condemned) {
    if (pod.terminating) {
      if (monotonic) return { actions, waitingFor: `${pod.name} to terminate` };
      continue;
    }
    if (monotonic && !healthy(pod) && pod !== firstUnhealthy) return { actions, waitingFor: `${firstUnhealthy?.name} to be healthy before scaling down` };
    actions.push({ kind: 'delete', name: pod.name, why: 'condemned' });
    if (monotonic) return { actions, waitingFor: `${pod.name} to terminate` };
  }

  if (input.strategy === 'OnDelete') return { actions };
  for (let ordinal = end - 1; ordinal >= startOrdinal + input.partition; ordinal--) {
    const pod = byOrdinal.get(ordinal);
    // Being created in this pass (Parallel): it is not healthy yet.
    if (!pod) return { actions, waitingFor: `ordinal ${ordinal} to be created` };
    if (pod.revision !== input.updateRevision && !pod.terminating) {
      actions.push({ kind: 'delete', name: pod.name, why: 'update' });
      return { actions, waitingFor: `${pod.name} to be updated` };
    }
    if (!healthy(pod)) return { actions, waitingFor: `${pod.name} to be healthy` };
  }
  return { actions };
}

/**
 * newVersionedStatefulSetPod: with RollingUpdate, ordinals below the partition keep the current revision (Go's
 * operator precedence makes the `RollingUpdate == nil` arm apply without the RollingUpdate check; rollingUpdate is
 * always defaulted here, so that arm never matters); every other pod gets the update revision.
 */
export function revisionForNewPod(ordinal: number, input: { strategy: string; partition: number; startOrdinal: number }, current: string, update: string): string {
  if (input.strategy === 'RollingUpdate' && ordinal < input.startOrdinal + input.partition) return current;
  return update;
}

export interface SetStatusInput {
  generation: number;
  updateStrategy: string;
  currentRevision: string;
  updateRevision: string;
  collisionCount: number;
  minReadySeconds: number;
  now: number;
  pods: KubeObject[];
}

/** updateStatus + completeRollingUpdate; zero counters left out as Go's omitempty does. */
export function statefulSetStatus(input: SetStatusInput): JsonObject {
  let replicas = 0;
  let ready = 0;
  let available = 0;
  let current = 0;
  let updated = 0;
  for (const pod of input.pods) {
    const status = isPlainObject(pod.status) ? pod.status : {};
    const created = Boolean(status.phase);
    if (created) replicas++;
    if (status.phase === 'Running' && isPodReady(pod)) {
      ready++;
      if (isPodAvailable(pod, input.minReadySeconds, input.now)) available++;
    }
    if (created && !pod.metadata?.deletionTimestamp) {
      const revision = pod.metadata?.labels?.[podRevisionLabel];
      if (revision === input.currentRevision) current++;
      if (revision === input.updateRevision) updated++;
    }
  }
  let currentRevision = input.currentRevision;
  if (input.updateStrategy === 'RollingUpdate' && updated === replicas && ready === replicas) {
    current = updated;
    currentRevision = input.updateRevision;
  }
  const status: JsonObject = {
    observedGeneration: input.generation,
    replicas,
    readyReplicas: ready,
    currentReplicas: current,
    updatedReplicas: updated,
    currentRevision,
    updateRevision: input.updateRevision,
    collisionCount: input.collisionCount,
    availableReplicas: available,
  };
  for (const k of ['readyReplicas', 'currentReplicas', 'updatedReplicas']) if (status[k] === 0) delete status[k];
  return status;
}

export interface OwnerRef extends JsonObject {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
}

/**
 * updateClaimOwnerRefForSetAndPod: under whenDeleted=Delete the claim is owned by the set (deleted with it); under
 * whenScaled=Delete a claim of a pod being scaled away is owned by that pod (deleted after it); Retain removes the
 * reference. Other owner references are kept. Returns the new list.
 */
export function claimOwnerReferences(
  refs: readonly JsonObject[],
  set: { name: string; uid: string },
  pod: { name: string; uid: string },
  policy: { whenDeleted?: string; whenScaled?: string },
  podScaledDown: boolean,
): JsonObject[] {
  let out = refs.map((r) => ({ ...r }));
  const has = (uid: string) => out.some((r) => r.uid === uid);
  const add = (ref: OwnerRef) => {
    if (!has(ref.uid)) out.push(ref);
  };
  const remove = (uid: string) => {
    out = out.filter((r) => r.uid !== uid);
  };
  const setRef: OwnerRef = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: set.name, uid: set.uid };
  const podRef: OwnerRef = { apiVersion: 'v1', kind: 'Pod', name: pod.name, uid: pod.uid };
  const deleted = policy.whenDeleted === 'Delete';
  const scaled = policy.whenScaled === 'Delete';
  if (!deleted && !scaled) {
    remove(set.uid);
    remove(pod.uid);
  } else if (deleted && !scaled) {
    add(setRef);
    remove(pod.uid);
  } else if (!deleted && scaled) {
    remove(set.uid);
    if (podScaledDown) add(podRef);
    else remove(pod.uid);
  } else if (podScaledDown) {
    remove(set.uid);
    add(podRef);
  } else {
    add(setRef);
    remove(pod.uid);
  }
  return out;
}

/** The claims of a pod from the set's volumeClaimTemplates (getPersistentVolumeClaims), keyed by template name. */
export function claimsForOrdinal(set: KubeObject, ordinal: number): { template: string; claim: KubeObject }[] {
  const spec = isPlainObject(set.spec) ? set.spec : {};
  const templates = Array.isArray(spec.volumeClaimTemplates) ? spec.volumeClaimTemplates.filter(isPlainObject) : [];
  const selector = isPlainObject(spec.selector) && isPlainObject(spec.selector.matchLabels) ? (spec.selector.matchLabels as Record<string, string>) : {};
  return templates.map((t) => {
    const meta = isPlainObject(t.metadata) ? t.metadata : {};
    const template = String(meta.name ?? '');
    const claim: KubeObject = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        name: `${template}-${set.metadata?.name}-${ordinal}`,
        namespace: set.metadata?.namespace,
        labels: { ...((meta.labels as Record<string, string> | undefined) ?? {}), ...selector },
        ...(isPlainObject(meta.annotations) ? { annotations: { ...(meta.annotations as Record<string, string>) } } : {}),
      },
      spec: deepCopy(t.spec ?? {}),
    };
    return { template, claim };
  });
}

/**
 * newStatefulSetPod + setPodRevision: the template's labels, annotations and spec; name `<set>-<ordinal>`; the
 * pod-name, pod-index and controller-revision-hash labels; hostname and subdomain (the governing service); a volume
 * per claim template pointing at the ordinal's claim, ahead of the template's other volumes.
 */
export function newStatefulSetPod(set: KubeObject, template: JsonObject, ordinal: number, revision: string, ownerRef: JsonObject): KubeObject {
  const name = `${set.metadata?.name}-${ordinal}`;
  const meta = isPlainObject(template.metadata) ? template.metadata : {};
  const spec = deepCopy(template.spec ?? {}) as JsonObject;
  const setSpec = isPlainObject(set.spec) ? set.spec : {};
  spec.hostname = name;
  if (typeof setSpec.serviceName === 'string' && setSpec.serviceName) spec.subdomain = setSpec.serviceName;
  const claims = claimsForOrdinal(set, ordinal);
  const claimVolumes = claims.map((c) => ({ name: c.template, persistentVolumeClaim: { claimName: c.claim.metadata?.name } }));
  const others = (Array.isArray(spec.volumes) ? spec.volumes.filter(isPlainObject) : []).filter((v) => !claims.some((c) => c.template === v.name));
  if (claimVolumes.length + others.length > 0) spec.volumes = [...claimVolumes, ...others];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: set.metadata?.namespace,
      labels: { ...((meta.labels as Record<string, string> | undefined) ?? {}), [podNameLabel]: name, [podIndexLabel]: String(ordinal), [podRevisionLabel]: revision },
      ...(isPlainObject(meta.annotations) ? { annotations: { ...(meta.annotations as Record<string, string>) } } : {}),
      ownerReferences: [ownerRef],
    },
    spec,
  };
}
