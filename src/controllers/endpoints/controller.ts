/**
 * The endpoints and endpointslice controllers: for every Service with a selector (not ExternalName) they keep an
 * Endpoints object of the same name and the Service's EndpointSlices (`<service>-<random>`, owned by the Service,
 * labelled `kubernetes.io/service-name` and `endpointslice.kubernetes.io/managed-by:
 * endpointslice-controller.k8s.io`) listing the selected pods, updated as pods come, become ready, or go. Services
 * without a selector are left alone: their Endpoints and slices belong to whoever writes them. The decisions are in
 * decisions.ts.
 *
 * They run in the simulated cluster (its own logical cluster) and, across every workspace, in a control plane that
 * serves pods only in some of them (`EndpointsScope`): a workspace with compute lists the pods its clusters run (their
 * mirrors, which carry the pods' IPs and nodes) as one cluster lists its own.
 */
import { type KubeObject, deepCopy, jsonEqual } from '../../apimachinery/object.js';
import { StatusError } from '../../apimachinery/status.js';
import { clusterOf, formatObjectKey, keyOf, parseObjectKey } from '../../client/store.js';
import type { GroupVersionResource } from '../../client/resource.js';
import { Controller, type ReconcileResult } from '../runtime/controller.js';
import { SliceWrites } from './slice-writes.js';
import { slimPodsInformer } from './slim-pods.js';
import type { ControllerContext, ControllerInstaller, RunningController } from '../runtime/context.js';
import type { Informer } from '../../client/informer.js';
import {
  endpointSliceContents,
  endpointSliceControllerName,
  endpointSliceLabels,
  endpointSubsets,
  endpointsLabels,
  lastChangeTriggerTime,
  lastChangeTriggerTimeAnnotation,
  managedByLabel,
  serviceNameLabel,
  serviceSelector,
  type SliceContent,
} from './decisions.js';

const servicesGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'services' };
const podsGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'pods' };
const nodesGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'nodes' };
const endpointsGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'endpoints' };
const endpointSlicesGVR: GroupVersionResource = { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices' };

/** Where the controllers act. */
export interface EndpointsScope {
  /** The informers' logical cluster: `'*'` for every one (a control plane); the client's own when unset. */
  cluster?: string;
  /**
   * Given the controller's context and a callback to call with a logical cluster whose answer changed, whether the
   * controllers keep endpoints in a logical cluster (unset: everywhere). Asked on every reconcile.
   */
  actsIn?: (ctx: ControllerContext, changed: (cluster: string) => void) => (cluster: string) => boolean;
  /**
   * How long a pod's change waits before its Services are looked at, so that changes arriving together are written
   * once (kube-controller-manager's --endpoint-updates-batch-period and --endpointslice-updates-batch-period; 0, the
   * default, looks at once). A Service's own change is looked at at once.
   */
  podBatchMs?: number;
  /**
   * Which of a Service's labels its Endpoints and slices copy (default: all, as upstream): a control plane keeps its
   * own placement labels on the Service to itself.
   */
  copiesLabel?: (key: string) => boolean;
  /**
   * Labels the Endpoints the controller keeps also carry: a control plane marks its own (kube 1.33's
   * `endpoints.kubernetes.io/managed-by: endpoint-controller`) so that they never sync to its clusters.
   */
  endpointsLabels?: Record<string, string>;
  /**
   * Whether the pod cache is the slim one (slim-pods.ts: what endpoints are made of; a control plane caching every
   * cluster's pod mirrors holds a fraction of each); off by default, where the pod informer is shared with the kubelet
   * and the scheduler.
   */
  slimPods?: boolean;
  /** Whether slices carry their nodes' zones (topology.kubernetes.io/zone), read from a Node informer (default true). */
  nodeZones?: boolean;
}

/** Services and pods by `<cluster>|<namespace>`: a pod's change looks at its namespace's Services, a Service at its pods. */
const BY_NAMESPACE = 'endpoints/by-namespace';
/** The endpointslice controller's slices by their Service's key. */
const SLICES_BY_SERVICE = 'endpointslice/by-service';
const namespaceKey = (o: KubeObject) => `${clusterOf(o)}|${o.metadata?.namespace ?? ''}`;

/** The shared informers both controllers read, with the Services indexed by namespace. */
function informersOf(ctx: ControllerContext, scope: EndpointsScope) {
  const selection = scope.cluster ? { cluster: scope.cluster } : {};
  const services = ctx.informers.informerFor<KubeObject>(servicesGVR, selection);
  const pods = scope.slimPods ? slimPodsInformer(ctx.informers, selection) : ctx.informers.informerFor<KubeObject>(podsGVR, selection);
  services.addIndexer(BY_NAMESPACE, (s) => [namespaceKey(s)]);
  pods.addIndexer(BY_NAMESPACE, (p) => [namespaceKey(p)]);
  return { selection, services, pods };
}

/** The Service as its endpoints' labels are taken from: without the labels `scope` does not copy. */
export function labelSource(service: KubeObject, scope: EndpointsScope): KubeObject {
  const keep = scope.copiesLabel;
  if (!keep || !service.metadata?.labels) return service;
  return { ...service, metadata: { ...service.metadata, labels: Object.fromEntries(Object.entries(service.metadata.labels).filter(([k]) => keep(k))) } };
}

/** Enqueues every Service of a logical cluster (it began or stopped being one the controllers act in). */
function enqueueServicesOf(services: Informer<KubeObject>, enqueue: (key: string) => void, cluster: string): void {
  for (const s of services.lister.list()) if (clusterOf(s) === cluster) enqueue(keyOf(s));
}

const isNotFound = (err: unknown) => err instanceof StatusError && err.code === 404;

/** The pods a Service selects (same cluster and namespace), or undefined when it has no selector. */
function selectedPods(service: KubeObject, pods: Informer<KubeObject>): KubeObject[] | undefined {
  const selector = serviceSelector(service);
  if (!selector) return undefined;
  return pods.lister.byIndex(BY_NAMESPACE, namespaceKey(service)).filter((p) => selector.matches(p.metadata?.labels ?? {}));
}

/** Enqueues the Services (by key) that select a pod, before or after a change of its labels. */
function enqueueServicesOfPod(services: Informer<KubeObject>, enqueue: (key: string) => void, ...versions: KubeObject[]): void {
  const candidates = new Map<string, KubeObject>();
  for (const p of versions) for (const s of services.lister.byIndex(BY_NAMESPACE, namespaceKey(p))) candidates.set(keyOf(s), s);
  for (const svc of candidates.values()) {
    const selector = serviceSelector(svc);
    if (!selector) continue;
    if (versions.some((p) => clusterOf(p) === clusterOf(svc) && p.metadata?.namespace === svc.metadata?.namespace && selector.matches(p.metadata?.labels ?? {}))) enqueue(keyOf(svc));
  }
}

export const endpointsControllerInstaller = (scope: EndpointsScope = {}): ControllerInstaller => ({
  name: 'endpoints',
  install(ctx: ControllerContext): RunningController {
    const { client } = ctx;
    const { selection, services, pods } = informersOf(ctx, scope);
    const endpoints = ctx.informers.informerFor<KubeObject>(endpointsGVR, selection);
    let enqueue: (key: string) => void = () => undefined;
    const actsIn = scope.actsIn?.(ctx, (cluster) => enqueueServicesOf(services, enqueue, cluster)) ?? (() => true);

    const reconcile = async (key: string): Promise<ReconcileResult | void> => {
      const { cluster, namespace, name } = parseObjectKey(key);
      if (!actsIn(cluster)) return;
      const service = services.lister.get(key);
      const current = endpoints.lister.get(key);
      if (!service) {
        // The Service is gone: so are its endpoints.
        if (current) {
          try {
            await client.delete(endpointsGVR, name, { cluster, namespace });
          } catch (err) {
            if (!isNotFound(err)) throw err;
          }
        }
        return;
      }
      const pods_ = selectedPods(service, pods);
      if (!pods_) return;
      const subsets = endpointSubsets(service, pods_);
      const labels = { ...endpointsLabels(labelSource(service, scope)), ...scope.endpointsLabels };
      if (current && jsonEqual(current.subsets ?? [], subsets) && jsonEqual(current.metadata?.labels ?? {}, labels)) return;
      // Endpoints hold no other state: writing them whole is what upstream does too.
      const next: KubeObject = current ? deepCopy(current) : { apiVersion: 'v1', kind: 'Endpoints', metadata: { name, namespace } };
      const meta = next.metadata!;
      if (Object.keys(labels).length) meta.labels = labels;
      else delete meta.labels;
      const trigger = lastChangeTriggerTime(service, pods_);
      const annotations = { ...(meta.annotations ?? {}) };
      delete annotations['kcp.io/cluster'];
      if (trigger) annotations['endpoints.kubernetes.io/last-change-trigger-time'] = trigger;
      meta.annotations = annotations;
      if (subsets.length) next.subsets = subsets;
      else delete next.subsets;
      if (current) await client.update(endpointsGVR, next, { cluster, namespace });
      else await client.create(endpointsGVR, next, { cluster, namespace });
    };

    const controller = new Controller<string>({ name: 'endpoints', reconcile, workers: 2, rateLimiter: { baseDelayMs: 20, maxDelayMs: 5_000 } });
    enqueue = (key: string) => controller.enqueue(key);
    services.addEventHandler({ add: (s) => enqueue(keyOf(s)), update: (_o, s) => enqueue(keyOf(s)), delete: (s) => enqueue(keyOf(s)) });
    const podEnqueue = batched(controller, scope.podBatchMs);
    pods.addEventHandler({ add: (p) => enqueueServicesOfPod(services, podEnqueue, p), update: (o, n) => enqueueServicesOfPod(services, podEnqueue, o, n), delete: (p) => enqueueServicesOfPod(services, podEnqueue, p) });
    // Someone removed or rewrote a Service's endpoints: put them back.
    endpoints.addEventHandler({ update: (_o, e) => services.lister.get(keyOf(e)) && enqueue(keyOf(e)), delete: (e) => services.lister.get(keyOf(e)) && enqueue(keyOf(e)) });
    return { name: 'endpoints', start: () => controller.start(), stop: () => controller.stop() };
  },
});

export const endpointSliceControllerInstaller = (scope: EndpointsScope = {}): ControllerInstaller => ({
  name: 'endpointslice',
  install(ctx: ControllerContext): RunningController {
    const { client } = ctx;
    const { selection, services, pods } = informersOf(ctx, scope);
    const nodes = scope.nodeZones === false ? undefined : ctx.informers.informerFor<KubeObject>(nodesGVR, selection);
    const slices = ctx.informers.informerFor<KubeObject>(endpointSlicesGVR, selection);
    let enqueue: (key: string) => void = () => undefined;
    const actsIn = scope.actsIn?.(ctx, (cluster) => enqueueServicesOf(services, enqueue, cluster)) ?? (() => true);
    const sliceWrites = new SliceWrites(client, slices);
    slices.addIndexer(SLICES_BY_SERVICE, (s) => {
      const service = s.metadata?.labels?.[serviceNameLabel];
      return service && s.metadata?.labels?.[managedByLabel] === endpointSliceControllerName ? [formatObjectKey({ cluster: clusterOf(s), namespace: s.metadata?.namespace ?? '', name: service })] : [];
    });

    const reconcile = async (key: string): Promise<ReconcileResult | void> => {
      const { cluster, namespace, name } = parseObjectKey(key);
      if (!actsIn(cluster)) return;
      if (sliceWrites.cacheLags(key, cluster, namespace)) return { requeueAfterMs: 50 };
      const service = services.lister.get(key);
      // A deleted Service's slices go with it (garbage collection of their owner reference).
      if (!service || service.metadata?.deletionTimestamp) return;
      const pods_ = selectedPods(service, pods);
      if (!pods_) return;
      const zone = (node: string) => nodes?.lister.get(formatObjectKey({ cluster, namespace: '', name: node }))?.metadata?.labels?.['topology.kubernetes.io/zone'];
      const desired: SliceContent[] = endpointSliceContents(service, pods_, zone);
      // With no endpoints at all the Service keeps one placeholder slice.
      if (desired.length === 0) desired.push({ ports: [], endpoints: [] });
      const labels = endpointSliceLabels(labelSource(service, scope));
      const owner = controllerRef(service, 'v1', 'Service');
      const trigger = lastChangeTriggerTime(service, pods_);
      const ours = slices.lister.byIndex(SLICES_BY_SERVICE, key);
      const owned = (s: KubeObject) => (s.metadata?.ownerReferences ?? []).some((r) => r.uid === service.metadata?.uid);
      await sliceWrites.sync(key, cluster, namespace, {
        desired,
        owned: ours.filter(owned),
        // Left by an earlier Service of the same name.
        stale: ours.filter((s) => !owned(s)),
        labels,
        annotations: (current) => (trigger ? { ...current, [lastChangeTriggerTimeAnnotation]: trigger } : current),
        newSlice: (lists) => ({
          apiVersion: 'discovery.k8s.io/v1',
          kind: 'EndpointSlice',
          metadata: { generateName: `${name}-`, namespace, labels, ...(trigger ? { annotations: { [lastChangeTriggerTimeAnnotation]: trigger } } : {}), ownerReferences: [owner] },
          addressType: 'IPv4',
          ...lists,
        }),
      });
    };

    const controller = new Controller<string>({ name: 'endpointslice', reconcile, workers: 2, rateLimiter: { baseDelayMs: 20, maxDelayMs: 5_000 } });
    enqueue = (key: string) => controller.enqueue(key);
    services.addEventHandler({ add: (s) => enqueue(keyOf(s)), update: (_o, s) => enqueue(keyOf(s)) });
    const podEnqueue = batched(controller, scope.podBatchMs);
    pods.addEventHandler({ add: (p) => enqueueServicesOfPod(services, podEnqueue, p), update: (o, n) => enqueueServicesOfPod(services, podEnqueue, o, n), delete: (p) => enqueueServicesOfPod(services, podEnqueue, p) });
    const enqueueServiceOfSlice = (s: KubeObject) => {
      const service = s.metadata?.labels?.[serviceNameLabel];
      if (service && s.metadata?.labels?.[managedByLabel] === endpointSliceControllerName) enqueue(formatObjectKey({ cluster: clusterOf(s), namespace: s.metadata?.namespace ?? '', name: service }));
    };
    slices.addEventHandler({ update: (_o, s) => enqueueServiceOfSlice(s), delete: enqueueServiceOfSlice });
    return { name: 'endpointslice', start: () => controller.start(), stop: () => controller.stop() };
  },
});

/** Enqueues into `controller` after `delayMs` (the earliest pending time of a key wins), or at once without a delay. */
export function batched(controller: Controller<string>, delayMs = 0): (key: string) => void {
  return delayMs > 0 ? (key) => controller.queue.addAfter(key, delayMs) : (key) => controller.enqueue(key);
}

/** A controller reference (metav1.NewControllerRef) that also blocks the owner's foreground deletion. */
function controllerRef(owner: KubeObject, apiVersion: string, kind: string): { apiVersion: string; kind: string; name: string; uid: string; controller: true; blockOwnerDeletion: true } {
  return { apiVersion, kind, name: owner.metadata?.name ?? '', uid: owner.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true };
}
