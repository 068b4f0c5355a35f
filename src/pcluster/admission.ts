/**
 * The admission plugins a real cluster runs for the simulated cluster's storage and ingress kinds (all on by default
 * in kube-apiserver 1.32):
 *
 * - DefaultStorageClass: a PersistentVolumeClaim created without a class (no spec.storageClassName, not even "", and
 *   no beta annotation) gets the default StorageClass's name.
 * - DefaultIngressClass: an Ingress created without spec.ingressClassName and without the legacy
 *   `kubernetes.io/ingress.class` annotation gets the default IngressClass's name.
 * - StorageObjectInUseProtection: every new claim carries the `kubernetes.io/pvc-protection` finalizer and every new
 *   volume `kubernetes.io/pv-protection`; the storage controller removes them once nothing uses the object.
 *
 * When several classes are marked default the newest wins, as upstream; when none is, nothing is set.
 */
import type { AdmissionAttributes, AdmissionPlugin } from '../apiserver/admission/admission.js';
import type { PluginHost } from '../apiserver/plugin.js';
import { type KubeObject, isPlainObject } from '../apimachinery/object.js';
import type { RequestContext } from '../registry/rest.js';
import { claimHasClass, ingressClassAnnotation, isDefaultIngressClass, isDefaultStorageClass, newestDefault } from './controllers/classes.js';
import { pvProtectionFinalizer, pvcProtectionFinalizer } from './controllers/storage/binding.js';

const systemContext = (cluster: string): RequestContext => ({ cluster, user: { username: 'system:apiserver', groups: ['system:masters'] } });

function isCreateOf(a: AdmissionAttributes, group: string, resource: string): boolean {
  return a.operation === 'CREATE' && !a.subresource && a.def.group === group && a.def.resource === resource && !!a.object;
}

/** Every object of one cluster-scoped resource in the request's logical cluster. */
async function listAll(host: PluginHost, cluster: string, group: string, resource: string): Promise<KubeObject[]> {
  const store = host.registry.lookup(cluster, group, 'v1', resource);
  if (!store) return [];
  return (await store.list(systemContext(cluster), '', { selection: {} })).items;
}

export function defaultStorageClassAdmission(host: PluginHost): AdmissionPlugin {
  return {
    name: 'DefaultStorageClass',
    async admit(a) {
      if (!isCreateOf(a, '', 'persistentvolumeclaims')) return;
      const claim = a.object!;
      if (claimHasClass(claim)) return;
      const def = newestDefault(await listAll(host, a.ctx.cluster, 'storage.k8s.io', 'storageclasses'), isDefaultStorageClass);
      if (!def) return;
      if (!isPlainObject(claim.spec)) claim.spec = {};
      (claim.spec as Record<string, unknown>).storageClassName = def.metadata?.name;
    },
  };
}

export function defaultIngressClassAdmission(host: PluginHost): AdmissionPlugin {
  return {
    name: 'DefaultIngressClass',
    async admit(a) {
      if (!isCreateOf(a, 'networking.k8s.io', 'ingresses')) return;
      const ingress = a.object!;
      const spec = isPlainObject(ingress.spec) ? ingress.spec : (ingress.spec = {});
      if (spec.ingressClassName !== undefined && spec.ingressClassName !== null) return;
      if (ingress.metadata?.annotations && ingressClassAnnotation in ingress.metadata.annotations) return;
      const def = newestDefault(await listAll(host, a.ctx.cluster, 'networking.k8s.io', 'ingressclasses'), isDefaultIngressClass);
      if (def) spec.ingressClassName = def.metadata?.name;
    },
  };
}

export const storageObjectInUseProtection: AdmissionPlugin = {
  name: 'StorageObjectInUseProtection',
  admit(a) {
    const finalizer = isCreateOf(a, '', 'persistentvolumeclaims') ? pvcProtectionFinalizer : isCreateOf(a, '', 'persistentvolumes') ? pvProtectionFinalizer : undefined;
    if (!finalizer) return;
    const meta = (a.object!.metadata ??= {});
    const finalizers = meta.finalizers ?? [];
    if (!finalizers.includes(finalizer)) meta.finalizers = [...finalizers, finalizer];
  },
};
