/**
 * Storage and ingress classes of the simulated cluster: the default StorageClass it starts with (kind's `standard`,
 * with our provisioner), the default IngressClass, and the upstream helpers that read classes: which class is the
 * default (storageutil.GetDefaultClass, the DefaultIngressClass plugin's getDefaultClass) and which class a claim asks
 * for (GetPersistentVolumeClaimClass).
 */
import { type JsonObject, type KubeObject, isPlainObject } from '../../apimachinery/object.js';
import { betaStorageClassAnnotation, claimClassName } from '../../registry/builtin/workloads/volume-matching.js';

export { betaStorageClassAnnotation, claimClassName, volumeClassName } from '../../registry/builtin/workloads/volume-matching.js';

/** The provisioner of the simulated cluster's volumes (a CSI-style name; nothing is written to disk). */
export const simulatedProvisioner = 'atrium.io/simulated';
/** The simulated ingress controller (spec.controller of its IngressClass). */
export const simulatedIngressController = 'atrium.io/ingress-nginx-sim';
export const defaultStorageClassName = 'standard';
export const defaultIngressClassName = 'atrium';

export const isDefaultStorageClassAnnotation = 'storageclass.kubernetes.io/is-default-class';
const betaIsDefaultStorageClassAnnotation = 'storageclass.beta.kubernetes.io/is-default-class';
export const isDefaultIngressClassAnnotation = 'ingressclass.kubernetes.io/is-default-class';
/** The legacy class annotation of an Ingress. */
export const ingressClassAnnotation = 'kubernetes.io/ingress.class';

/**
 * The StorageClass the cluster starts with. Like kind's `standard` (rancher.io/local-path) it is the default class,
 * deletes its volumes with their claims, and binds WaitForFirstConsumer: a claim is provisioned once a pod using it
 * is scheduled, and the volume is pinned to that pod's node.
 */
export function defaultStorageClass(): KubeObject {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: defaultStorageClassName, annotations: { [isDefaultStorageClassAnnotation]: 'true' } },
    provisioner: simulatedProvisioner,
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'WaitForFirstConsumer',
  };
}

/** The IngressClass the cluster starts with: the default class, served by the simulated ingress controller. */
export function defaultIngressClass(): KubeObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IngressClass',
    metadata: { name: defaultIngressClassName, annotations: { [isDefaultIngressClassAnnotation]: 'true' } },
    spec: { controller: simulatedIngressController },
  };
}

export function isDefaultStorageClass(sc: KubeObject): boolean {
  const ann = sc.metadata?.annotations ?? {};
  return ann[isDefaultStorageClassAnnotation] === 'true' || ann[betaIsDefaultStorageClassAnnotation] === 'true';
}

export function isDefaultIngressClass(ic: KubeObject): boolean {
  return ic.metadata?.annotations?.[isDefaultIngressClassAnnotation] === 'true';
}

/** Of the classes marked default, the newest (ties: the first name), as both upstream plugins choose; undefined when none is. */
export function newestDefault<T extends KubeObject>(classes: readonly T[], isDefault: (c: T) => boolean): T | undefined {
  const created = (c: T) => Date.parse(c.metadata?.creationTimestamp ?? '') || 0;
  return classes
    .filter(isDefault)
    .sort((a, b) => created(b) - created(a) || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''))[0];
}

/** PersistentVolumeClaimHasClass: the beta annotation or spec.storageClassName is set (even to ""). */
export function claimHasClass(claim: JsonObject): boolean {
  const meta = isPlainObject(claim.metadata) ? claim.metadata : {};
  const annotations = isPlainObject(meta.annotations) ? meta.annotations : {};
  if (betaStorageClassAnnotation in annotations) return true;
  const spec = isPlainObject(claim.spec) ? claim.spec : {};
  return spec.storageClassName !== undefined && spec.storageClassName !== null;
}

/**
 * IsDelayBindingMode: the claim's class binds WaitForFirstConsumer. A claim without a class, or whose class does not
 * exist, binds at once.
 */
export function isDelayBinding(claim: KubeObject, classOf: (name: string) => KubeObject | undefined): boolean {
  const name = claimClassName(claim);
  if (!name) return false;
  return classOf(name)?.volumeBindingMode === 'WaitForFirstConsumer';
}
