/**
 * The root CA publisher: every active namespace, in every logical cluster, has a ConfigMap `kube-root-ca.crt` whose
 * `ca.crt` is the server's CA bundle (so workloads can verify the API server). Deleted or edited copies are restored.
 */
import { deepCopy, type KubeObject } from '../../apimachinery/object.js';
import type { GroupVersionResource } from '../../client/resource.js';
import { formatObjectKey, parseObjectKey } from '../../client/store.js';
import { Controller } from '../runtime/controller.js';
import type { ControllerContext, ControllerInstaller, RunningController } from '../runtime/context.js';
import { stripClusterAnnotation } from '../runtime/committer.js';
import { isBenignCreateError, namespaceIsActive, namespaceKey, namespaceKeyOfObject } from '../runtime/namespace-scoped.js';

const configMapsGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
const namespacesGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'namespaces' };
export const rootCACertConfigMapName = 'kube-root-ca.crt';
const descriptionAnnotation = 'kubernetes.io/description';
const description =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. ' +
  'No other usage is guaranteed across distributions of Kubernetes clusters.';

export const rootCACertPublisherInstaller: ControllerInstaller = {
  name: 'root-ca-cert-publisher',
  install(ctx: ControllerContext): RunningController {
    const namespaces = ctx.informers.informerFor(namespacesGVR, { cluster: '*' });
    const configMaps = ctx.informers.informerFor(configMapsGVR, { cluster: '*', fieldSelector: `metadata.name=${rootCACertConfigMapName}` });

    const controller = new Controller<string>({
      name: 'root-ca-cert-publisher',
      workers: 2,
      async reconcile(key) {
        const { cluster, name } = parseObjectKey(key);
        if (!namespaceIsActive(namespaces.lister.get(key))) return;
        const existing = configMaps.lister.get(formatObjectKey({ cluster, namespace: name, name: rootCACertConfigMapName }));
        if (!existing) {
          const cm: KubeObject = {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: rootCACertConfigMapName, namespace: name, annotations: { [descriptionAnnotation]: description } },
            data: { 'ca.crt': ctx.caPem },
          };
          try {
            await ctx.client.create(configMapsGVR, cm, { cluster });
          } catch (err) {
            if (!isBenignCreateError(err)) throw err;
          }
          return;
        }
        const data = existing.data as Record<string, string> | undefined;
        const hasDescription = existing.metadata?.annotations?.[descriptionAnnotation] === description;
        if (data?.['ca.crt'] === ctx.caPem && Object.keys(data).length === 1 && hasDescription) return;
        const next = stripClusterAnnotation(deepCopy(existing));
        next.data = { 'ca.crt': ctx.caPem };
        delete next.binaryData;
        next.metadata!.annotations = { ...(next.metadata!.annotations ?? {}), [descriptionAnnotation]: description };
        await ctx.client.update(configMapsGVR, next, { cluster });
      },
    });
    const onNamespace = (ns: KubeObject) => controller.enqueue(namespaceKey(ns));
    namespaces.addEventHandler({ add: onNamespace, update: (_o, ns) => onNamespace(ns) });
    configMaps.addEventHandler({
      update: (_o, cm) => controller.enqueue(namespaceKeyOfObject(cm)),
      delete: (cm) => controller.enqueue(namespaceKeyOfObject(cm)),
    });
    return {
      name: 'root-ca-cert-publisher',
      start() {
        // Decide from complete caches, or every namespace would look like it lacks its object. Not awaited: the
        // manager must not hold up the server while caches fill.
        void Promise.all([namespaces.waitForSync(), configMaps.waitForSync()]).then(() => controller.start());
      },
      stop: () => controller.stop(),
    };
  },
};
