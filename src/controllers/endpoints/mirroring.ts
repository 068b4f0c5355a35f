/**
 * The endpointslice-mirroring controller: the Endpoints someone wrote for a Service without a selector are mirrored
 * into EndpointSlices (`<endpoints>-<random>`, owned by the Endpoints, labelled with the Service's name and
 * `endpointslice.kubernetes.io/managed-by: endpointslicemirroring-controller.k8s.io`), kept as the Endpoints change
 * and removed when they go or stop being mirrored. The decisions are in mirroring-decisions.ts. Runs where the
 * endpoints controllers run (controller.ts, `EndpointsScope`).
 */
import { type KubeObject, jsonEqual } from '../../apimachinery/object.js';
import { clusterOf, formatObjectKey, keyOf, parseObjectKey } from '../../client/store.js';
import type { GroupVersionResource } from '../../client/resource.js';
import { Controller, type ReconcileResult } from '../runtime/controller.js';
import type { ControllerContext, ControllerInstaller, RunningController } from '../runtime/context.js';
import { batched, labelSource, type EndpointsScope } from './controller.js';
import { SliceWrites } from './slice-writes.js';
import { managedByLabel, serviceNameLabel } from './decisions.js';
import { mirroredSliceLabels, mirroredSlices, mirroringControllerName, shouldMirror } from './mirroring-decisions.js';

const servicesGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'services' };
const endpointsGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'endpoints' };
const endpointSlicesGVR: GroupVersionResource = { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices' };

/** Mirrored slices by `<cluster>|<namespace>/<service>`. */
const MIRRORED_BY_SERVICE = 'endpointslicemirroring/by-service';

export const endpointSliceMirroringControllerInstaller = (scope: EndpointsScope = {}): ControllerInstaller => ({
  name: 'endpointslicemirroring',
  install(ctx: ControllerContext): RunningController {
    const { client } = ctx;
    const selection = scope.cluster ? { cluster: scope.cluster } : {};
    const services = ctx.informers.informerFor<KubeObject>(servicesGVR, selection);
    const endpoints = ctx.informers.informerFor<KubeObject>(endpointsGVR, selection);
    const slices = ctx.informers.informerFor<KubeObject>(endpointSlicesGVR, selection);
    const serviceKeyOfSlice = (s: KubeObject) => {
      const service = s.metadata?.labels?.[serviceNameLabel];
      return service && s.metadata?.labels?.[managedByLabel] === mirroringControllerName ? formatObjectKey({ cluster: clusterOf(s), namespace: s.metadata?.namespace ?? '', name: service }) : undefined;
    };
    slices.addIndexer(MIRRORED_BY_SERVICE, (s) => {
      const k = serviceKeyOfSlice(s);
      return k ? [k] : [];
    });
    let enqueue: (key: string) => void = () => undefined;
    const actsIn = scope.actsIn?.(ctx, (cluster) => {
      for (const e of endpoints.lister.list()) if (clusterOf(e) === cluster) enqueue(keyOf(e));
    }) ?? (() => true);
    const sliceWrites = new SliceWrites(client, slices);

    const reconcile = async (key: string): Promise<ReconcileResult | void> => {
      const { cluster, namespace, name } = parseObjectKey(key);
      if (!actsIn(cluster)) return;
      if (sliceWrites.cacheLags(key, cluster, namespace)) return { requeueAfterMs: 50 };
      const ep = endpoints.lister.get(key);
      const service = services.lister.get(key);
      const ours = slices.lister.byIndex(MIRRORED_BY_SERVICE, key);
      const desired = ep && service && !ep.metadata?.deletionTimestamp && shouldMirror(ep, service) ? mirroredSlices(ep) : [];
      const labels = ep && service ? mirroredSliceLabels(labelSource(ep, scope), service) : {};
      const owned = (s: KubeObject) => (s.metadata?.ownerReferences ?? []).some((r) => r.uid === ep?.metadata?.uid);
      await sliceWrites.sync(key, cluster, namespace, {
        desired,
        owned: ours.filter(owned),
        // Of an earlier Endpoints of the same name.
        stale: ours.filter((s) => !owned(s)),
        labels,
        annotations: (current) => (Object.keys(current).length ? current : undefined),
        newSlice: (lists) => ({
          apiVersion: 'discovery.k8s.io/v1',
          kind: 'EndpointSlice',
          metadata: {
            generateName: `${name}-`,
            namespace,
            labels,
            ownerReferences: [{ apiVersion: 'v1', kind: 'Endpoints', name, uid: ep!.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true }],
          },
          addressType: 'IPv4',
          ...lists,
        }),
      });
    };

    const controller = new Controller<string>({ name: 'endpointslicemirroring', reconcile, workers: 2, rateLimiter: { baseDelayMs: 20, maxDelayMs: 5_000 } });
    enqueue = (key: string) => controller.enqueue(key);
    const endpointsEnqueue = batched(controller, scope.podBatchMs);
    endpoints.addEventHandler({ add: (e) => endpointsEnqueue(keyOf(e)), update: (_o, e) => endpointsEnqueue(keyOf(e)), delete: (e) => enqueue(keyOf(e)) });
    // A Service appearing, gaining or losing its selector, or going.
    services.addEventHandler({ add: (s) => enqueue(keyOf(s)), update: (o, s) => !jsonEqual((o.spec as { selector?: unknown } | undefined)?.selector, (s.spec as { selector?: unknown } | undefined)?.selector) && enqueue(keyOf(s)), delete: (s) => enqueue(keyOf(s)) });
    const onSlice = (s: KubeObject) => {
      const k = serviceKeyOfSlice(s);
      if (k) enqueue(k);
    };
    slices.addEventHandler({ update: (_o, s) => onSlice(s), delete: onSlice });
    return { name: 'endpointslicemirroring', start: () => controller.start(), stop: () => controller.stop() };
  },
});
