/**
 * The pure decisions of the simulated cluster's volumes, after the PV controller, the scheduler's VolumeBinding
 * plugin and an external provisioner: which claims a pod uses and whether they let it be scheduled, which existing
 * volume a claim binds to, whether there is room to provision one, and the PersistentVolume provisioned for a claim.
 */
import { type JsonObject, type KubeObject, isPlainObject } from '../../../apimachinery/object.js';
import { isDelayBinding, simulatedProvisioner } from '../classes.js';
import { accessModesOf, volumeBytes, volumeNodeAffinityMatches } from '../../../registry/builtin/workloads/volume-matching.js';

export { bindCompletedAnnotation, boundByControllerAnnotation, claimRequestBytes, findMatchingVolume, volumeBytes, volumeNodeAffinityMatches } from '../../../registry/builtin/workloads/volume-matching.js';

/** The node the scheduler chose for a WaitForFirstConsumer claim's first pod. */
export const selectedNodeAnnotation = 'volume.kubernetes.io/selected-node';
export const storageProvisionerAnnotation = 'volume.kubernetes.io/storage-provisioner';
export const betaStorageProvisionerAnnotation = 'volume.beta.kubernetes.io/storage-provisioner';
export const provisionedByAnnotation = 'pv.kubernetes.io/provisioned-by';
export const pvcProtectionFinalizer = 'kubernetes.io/pvc-protection';
export const pvProtectionFinalizer = 'kubernetes.io/pv-protection';
export const hostnameLabel = 'kubernetes.io/hostname';
/** The CSI driver of provisioned volumes (a driver name is a DNS subdomain, so not the provisioner's name). */
export const simulatedCSIDriver = 'simulated.atrium.io';

const specOf = (o: KubeObject | undefined): JsonObject => (o && isPlainObject(o.spec) ? o.spec : {});
const statusOf = (o: KubeObject | undefined): JsonObject => (o && isPlainObject(o.status) ? o.status : {});

/** The claims a pod's volumes name (persistentVolumeClaim.claimName), once each, in order. */
export function podClaimNames(pod: KubeObject): string[] {
  const volumes = Array.isArray(specOf(pod).volumes) ? (specOf(pod).volumes as unknown[]).filter(isPlainObject) : [];
  const names = volumes.flatMap((v) => (isPlainObject(v.persistentVolumeClaim) && typeof v.persistentVolumeClaim.claimName === 'string' ? [v.persistentVolumeClaim.claimName] : []));
  return [...new Set(names)];
}

/** Whether a claim is bound to a volume (spec.volumeName set and status.phase Bound). */
export function isClaimBound(claim: KubeObject | undefined): boolean {
  return !!claim && typeof specOf(claim).volumeName === 'string' && specOf(claim).volumeName !== '' && statusOf(claim).phase === 'Bound';
}

export interface VolumeLookup {
  claim(name: string): KubeObject | undefined;
  volume(name: string): KubeObject | undefined;
  storageClass(name: string): KubeObject | undefined;
}

export type PodVolumes =
  /** The pod cannot be scheduled anywhere until this changes (VolumeBinding PreFilter: UnschedulableAndUnresolvable). */
  | { kind: 'unresolvable'; message: string }
  /**
   * Every claim is bound (`delayed` is empty), or some WaitForFirstConsumer claims wait for this pod's node.
   * `volumes` are the bound claims' volumes (undefined where the claim names a volume that does not exist).
   */
  | { kind: 'schedulable'; volumes: { claim: string; volume: KubeObject | undefined }[]; delayed: KubeObject[] };

/**
 * What the scheduler's VolumeBinding PreFilter concludes about a pod's claims: a missing or deleting claim, or an
 * unbound claim that binds Immediately, keeps the pod Pending with upstream's message; unbound WaitForFirstConsumer
 * claims are to be provisioned for the node the pod gets.
 */
export function podVolumes(pod: KubeObject, lookup: VolumeLookup): PodVolumes {
  const volumes: { claim: string; volume: KubeObject | undefined }[] = [];
  const delayed: KubeObject[] = [];
  let unboundImmediate = false;
  for (const name of podClaimNames(pod)) {
    const claim = lookup.claim(name);
    if (!claim) return { kind: 'unresolvable', message: `persistentvolumeclaim "${name}" not found` };
    if (claim.metadata?.deletionTimestamp) return { kind: 'unresolvable', message: `persistentvolumeclaim "${name}" is being deleted` };
    const volumeName = specOf(claim).volumeName;
    if (typeof volumeName === 'string' && volumeName !== '') volumes.push({ claim: name, volume: lookup.volume(volumeName) });
    else if (isDelayBinding(claim, (n) => lookup.storageClass(n))) delayed.push(claim);
    else unboundImmediate = true;
  }
  if (unboundImmediate) return { kind: 'unresolvable', message: 'pod has unbound immediate PersistentVolumeClaims' };
  return { kind: 'schedulable', volumes, delayed };
}

/** The filter reasons (upstream texts) for placing a pod with these bound volumes on a node with these labels. */
export function volumeNodeConflicts(volumes: readonly { volume: KubeObject | undefined }[], nodeName: string, nodeLabels: Record<string, string>): string[] {
  if (volumes.some((v) => !v.volume)) return ['node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)'];
  return volumes.every((v) => volumeNodeAffinityMatches(v.volume!, nodeName, nodeLabels)) ? [] : ['node(s) had volume node affinity conflict'];
}

/** Storage the simulated provisioner has handed out: every volume it provisioned that still exists, Released ones too. */
export function provisionedBytes(volumes: readonly KubeObject[]): number {
  return volumes.filter((pv) => pv.metadata?.annotations?.[provisionedByAnnotation] === simulatedProvisioner).reduce((n, pv) => n + volumeBytes(pv), 0);
}

export type ProvisionDecision = { ok: true } | { ok: false; message: string };

/** Whether a claim of `requested` bytes fits in what is left of `capacity` with `used` handed out. */
export function provisionDecision(capacity: number, used: number, requested: number): ProvisionDecision {
  const left = Math.max(0, capacity - used);
  if (requested <= left) return { ok: true };
  return { ok: false, message: `insufficient storage in the simulated cluster: requested ${formatBytes(requested)}, ${formatBytes(left)} of ${formatBytes(capacity)} left` };
}

/** Bytes as a quantity in the largest binary unit that divides them exactly (`100Gi`, `1536Mi`, `12345`). */
export function formatBytes(n: number): string {
  if (n === 0) return '0';
  for (const [suffix, size] of [['Ei', 2 ** 60], ['Pi', 2 ** 50], ['Ti', 2 ** 40], ['Gi', 2 ** 30], ['Mi', 2 ** 20], ['Ki', 2 ** 10]] as const) {
    if (n % size === 0) return `${n / size}${suffix}`;
  }
  return String(n);
}

/** The name of the volume provisioned for a claim (as every CSI provisioner names them). */
export function provisionedVolumeName(claim: KubeObject): string {
  return `pvc-${claim.metadata?.uid ?? ''}`;
}

/**
 * The PersistentVolume the simulated provisioner creates for a claim: pre-bound to it (claimRef), the requested
 * capacity, its access and volume modes, the class's reclaim policy and mount options, a CSI source of our driver
 * (nothing is stored anywhere) and,
 * for a claim provisioned for a node (WaitForFirstConsumer), node affinity to that node, as kind's local volumes have.
 */
export function provisionedVolume(claim: KubeObject, storageClass: KubeObject, node?: string): KubeObject {
  const resources = isPlainObject(specOf(claim).resources) ? (specOf(claim).resources as JsonObject) : {};
  const requests = isPlainObject(resources.requests) ? resources.requests : {};
  const name = provisionedVolumeName(claim);
  const spec: JsonObject = {
    accessModes: accessModesOf(claim),
    capacity: { storage: requests.storage },
    claimRef: {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      namespace: claim.metadata?.namespace,
      name: claim.metadata?.name,
      uid: claim.metadata?.uid,
      resourceVersion: claim.metadata?.resourceVersion,
    },
    csi: { driver: simulatedCSIDriver, volumeHandle: name, fsType: 'ext4' },
    persistentVolumeReclaimPolicy: typeof storageClass.reclaimPolicy === 'string' ? storageClass.reclaimPolicy : 'Delete',
    storageClassName: storageClass.metadata?.name,
    volumeMode: specOf(claim).volumeMode ?? 'Filesystem',
  };
  if (Array.isArray(storageClass.mountOptions) && storageClass.mountOptions.length) spec.mountOptions = [...storageClass.mountOptions];
  if (node) spec.nodeAffinity = { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: hostnameLabel, operator: 'In', values: [node] }] }] } };
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, annotations: { [provisionedByAnnotation]: simulatedProvisioner } },
    spec,
  };
}

/** The claim's status once bound to `pv`: Bound with the volume's access modes and capacity. */
export function boundClaimStatus(claim: KubeObject, pv: KubeObject): JsonObject {
  return { ...statusOf(claim), phase: 'Bound', accessModes: accessModesOf(pv), capacity: { ...(isPlainObject(specOf(pv).capacity) ? (specOf(pv).capacity as JsonObject) : {}) } };
}

/** Whether a pod counts as using its claims (pvc-protection): every pod that is not Succeeded or Failed. */
export function podUsesClaims(pod: KubeObject): boolean {
  const phase = statusOf(pod).phase;
  return phase !== 'Succeeded' && phase !== 'Failed';
}
