/**
 * The ServiceAccount admission plugin (plugin/pkg/admission/serviceaccount), on by default in kube-apiserver 1.32, for
 * the simulated cluster's pods: a pod created without a service account gets `default`; the account must exist (the
 * `default` one is looked up again for a while, as its controller creates it with the namespace), else the pod is
 * refused (403 "error looking up service account …"); unless the pod or, failing that, the account opts out
 * (automountServiceAccountToken false), every container and init container not already mounting something at
 * /var/run/secrets/kubernetes.io/serviceaccount mounts a `kube-api-access-<random>` projected volume (a bound token
 * for 3607 s, the namespace's kube-root-ca.crt and the namespace), added to the pod; a pod without image pull secrets
 * gets its account's. Static pods' mirrors (`kubernetes.io/config.mirror`) may not reference accounts or secrets.
 *
 * Only the simulated cluster runs it: a workspace's pods run on clusters whose own admission mounts the tokens there
 * (the syncer keeps what it added: multicluster/syncer/transform.ts keepDownstreamAllocations).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { AdmissionPlugin } from '../apiserver/admission/admission.js';
import type { PluginHost } from '../apiserver/plugin.js';
import { type JsonObject, type KubeObject, isPlainObject } from '../apimachinery/object.js';
import { StatusError, errors } from '../apimachinery/status.js';
import { generateName } from '../apimachinery/names/generate-name.js';
import type { RequestContext } from '../registry/rest.js';

export const serviceAccountTokenMountPath = '/var/run/secrets/kubernetes.io/serviceaccount';
export const serviceAccountVolumePrefix = 'kube-api-access-';
const mirrorPodAnnotation = 'kubernetes.io/config.mirror';
/** How often, and how far apart, a missing `default` account is looked up again (getServiceAccount: 10 tries, 100–200 ms). */
const defaultAccountTries = 10;

const systemContext = (cluster: string): RequestContext => ({ cluster, user: { username: 'system:apiserver', groups: ['system:masters'] } });

/** TokenVolumeSource: the projected volume a mounted token comes in (defaultMode set explicitly, as upstream). */
export function tokenVolume(name: string): JsonObject {
  return {
    name,
    projected: {
      defaultMode: 0o644,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    },
  };
}

/** mountServiceAccountToken: the mount in every container lacking one at the token path, and the volume if any needed it. */
export function mountServiceAccountToken(spec: JsonObject, newVolumeName: () => string): void {
  const volumes = Array.isArray(spec.volumes) ? (spec.volumes as JsonObject[]) : [];
  const existing = volumes.find((v) => isPlainObject(v) && typeof v.name === 'string' && v.name.startsWith(serviceAccountVolumePrefix));
  const name = existing ? String(existing.name) : newVolumeName();
  let needed = false;
  for (const list of [spec.initContainers, spec.containers]) {
    if (!Array.isArray(list)) continue;
    for (const c of list) {
      if (!isPlainObject(c)) continue;
      const mounts = Array.isArray(c.volumeMounts) ? (c.volumeMounts as JsonObject[]) : [];
      if (mounts.some((m) => isPlainObject(m) && m.mountPath === serviceAccountTokenMountPath)) continue;
      c.volumeMounts = [...mounts, { name, readOnly: true, mountPath: serviceAccountTokenMountPath }];
      needed = true;
    }
  }
  if (!existing && needed) spec.volumes = [...volumes, tokenVolume(name)];
}

/** shouldAutomount: the pod's choice, else the account's, else true. */
function shouldAutomount(account: KubeObject, spec: JsonObject): boolean {
  if (typeof spec.automountServiceAccountToken === 'boolean') return spec.automountServiceAccountToken;
  if (typeof account.automountServiceAccountToken === 'boolean') return account.automountServiceAccountToken;
  return true;
}

/** Whether the pod names a secret anywhere (VisitPodSecretNames over every container). */
function referencesSecrets(spec: JsonObject): boolean {
  if (Array.isArray(spec.imagePullSecrets) && spec.imagePullSecrets.length) return true;
  for (const v of Array.isArray(spec.volumes) ? spec.volumes.filter(isPlainObject) : []) {
    if (isPlainObject(v.secret) || (isPlainObject(v.projected) && Array.isArray(v.projected.sources) && v.projected.sources.some((s) => isPlainObject(s) && isPlainObject(s.secret)))) return true;
    for (const src of ['azureFile', 'cephfs', 'cinder', 'flexVolume', 'rbd', 'scaleIO', 'iscsi', 'storageos', 'csi']) {
      const s = v[src];
      if (isPlainObject(s) && (isPlainObject(s.secretRef) || isPlainObject(s.nodePublishSecretRef) || typeof s.secretName === 'string')) return true;
    }
  }
  for (const list of [spec.initContainers, spec.containers, spec.ephemeralContainers]) {
    for (const c of Array.isArray(list) ? list.filter(isPlainObject) : []) {
      if (Array.isArray(c.envFrom) && c.envFrom.some((e) => isPlainObject(e) && isPlainObject(e.secretRef))) return true;
      if (Array.isArray(c.env) && c.env.some((e) => isPlainObject(e) && isPlainObject(e.valueFrom) && isPlainObject(e.valueFrom.secretKeyRef))) return true;
    }
  }
  return false;
}

export function serviceAccountAdmission(host: PluginHost): AdmissionPlugin {
  const lookup = async (cluster: string, namespace: string, name: string): Promise<KubeObject | undefined> => {
    const store = host.registry.lookup(cluster, '', 'v1', 'serviceaccounts');
    if (!store) return undefined;
    const tries = name === 'default' ? defaultAccountTries : 1;
    for (let i = 0; i < tries; i++) {
      if (i) await sleep(100 + Math.floor(Math.random() * 100));
      try {
        return await store.get(systemContext(cluster), namespace, name);
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 404)) throw err;
      }
    }
    return undefined;
  };
  return {
    name: 'ServiceAccount',
    async admit(a) {
      if (a.operation !== 'CREATE' || a.subresource || a.def.group !== '' || a.def.resource !== 'pods' || !a.object) return;
      const pod = a.object;
      const spec = isPlainObject(pod.spec) ? pod.spec : (pod.spec = {});
      const forbidden = (message: string) => errors.forbidden({ group: '', resource: 'pods' }, a.name || String(pod.metadata?.name ?? ''), message);
      if (pod.metadata?.annotations?.[mirrorPodAnnotation] !== undefined) {
        if (spec.serviceAccountName) throw forbidden('a mirror pod may not reference service accounts');
        if (referencesSecrets(spec)) throw forbidden('a mirror pod may not reference secrets');
        const projectsToken = (Array.isArray(spec.volumes) ? spec.volumes.filter(isPlainObject) : []).some(
          (v) => isPlainObject(v.projected) && Array.isArray(v.projected.sources) && v.projected.sources.some((s) => isPlainObject(s) && isPlainObject(s.serviceAccountToken)),
        );
        if (projectsToken) throw forbidden('a mirror pod may not use ServiceAccountToken volume projections');
        return;
      }
      if (!spec.serviceAccountName) {
        spec.serviceAccountName = 'default';
        // The v1 deprecated alias follows the name, as the pod's defaulting writes it.
        spec.serviceAccount = 'default';
      }
      const name = String(spec.serviceAccountName);
      const account = await lookup(a.ctx.cluster, a.namespace, name);
      if (!account) throw forbidden(`error looking up service account ${a.namespace}/${name}: serviceaccount "${name}" not found`);
      if (shouldAutomount(account, spec)) mountServiceAccountToken(spec, () => generateName(serviceAccountVolumePrefix));
      const pullSecrets = Array.isArray(account.imagePullSecrets) ? account.imagePullSecrets.filter(isPlainObject) : [];
      if (!(Array.isArray(spec.imagePullSecrets) && spec.imagePullSecrets.length) && pullSecrets.length) {
        spec.imagePullSecrets = pullSecrets.map((s) => ({ name: String(s.name ?? '') }));
      }
    },
  };
}
