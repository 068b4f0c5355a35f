/**
 * The simulated cloud: a service controller that gives every Service of type LoadBalancer (without a
 * spec.loadBalancerClass, which names another implementation) an address from the cluster's pool in
 * status.loadBalancer.ingress, and a simulated ingress controller (`atrium.io/ingress-nginx-sim`) that publishes its
 * own address in the status of the Ingresses of its classes, or of no class at all.
 *
 * As upstream's service controller, a LoadBalancer Service carries the `service.kubernetes.io/load-balancer-cleanup`
 * finalizer while it has a load balancer; changing its type away or deleting it releases the address (events
 * EnsuringLoadBalancer, EnsuredLoadBalancer, DeletingLoadBalancer, DeletedLoadBalancer, SyncLoadBalancerFailed).
 */
import { deepCopy, goEqual, isPlainObject, jsonEqual, type JsonObject, type KubeObject } from '../../../apimachinery/object.js';
import { clusterOf, keyOf } from '../../../client/store.js';
import { Controller, type ReconcileResult } from '../../../controllers/runtime/controller.js';
import type { ControllerContext, ControllerInstaller, RunningController } from '../../../controllers/runtime/context.js';
import { EventRecorder } from '../../../controllers/runtime/event-recorder.js';
import { ingressClassesGVR, ingressesGVR, servicesGVR } from '../gvrs.js';
import { ingressClassAnnotation, simulatedIngressController } from '../classes.js';
import { type IPv4Pool, allocateAddress, ingressControllerAddress } from './ip-pool.js';

export const loadBalancerCleanupFinalizer = 'service.kubernetes.io/load-balancer-cleanup';

const specOf = (o: KubeObject): JsonObject => (isPlainObject(o.spec) ? o.spec : {});
const statusOf = (o: KubeObject): JsonObject => (isPlainObject(o.status) ? o.status : {});

/** The addresses in a Service's or Ingress's status.loadBalancer.ingress. */
export function loadBalancerIPs(o: KubeObject): string[] {
  const lb = isPlainObject(statusOf(o).loadBalancer) ? (statusOf(o).loadBalancer as JsonObject) : {};
  return (Array.isArray(lb.ingress) ? lb.ingress.filter(isPlainObject) : []).flatMap((i) => (typeof i.ip === 'string' ? [i.ip] : []));
}

/** Whether the simulated service controller gives this Service a load balancer. */
export function wantsLoadBalancer(svc: KubeObject): boolean {
  const spec = specOf(svc);
  return spec.type === 'LoadBalancer' && !spec.loadBalancerClass && !svc.metadata?.deletionTimestamp;
}

export function serviceLoadBalancerInstaller(pool: IPv4Pool): ControllerInstaller {
  return {
    name: 'service-lb',
    install(ctx: ControllerContext): RunningController {
      const { client } = ctx;
      const services = ctx.informers.informerFor<KubeObject>(servicesGVR);
      const events = new EventRecorder(client, 'service-controller', { aggregate: true });
      /** Addresses we assigned that the cache may not show yet (service key → ip). */
      const assigned = new Map<string, string>();
      const record = (svc: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string) =>
        events.record(clusterOf(svc), { apiVersion: 'v1', kind: 'Service', namespace: svc.metadata?.namespace, name: svc.metadata?.name ?? '', uid: svc.metadata?.uid }, type, reason, message);

      const reconcile = async (key: string): Promise<ReconcileResult | void> => {
        const svc = services.lister.get(key);
        if (!svc) {
          assigned.delete(key);
          return;
        }
        const scope = { cluster: clusterOf(svc), namespace: svc.metadata?.namespace };
        const finalizers = svc.metadata?.finalizers ?? [];
        const hasFinalizer = finalizers.includes(loadBalancerCleanupFinalizer);
        if (!wantsLoadBalancer(svc)) {
          if (!hasFinalizer && loadBalancerIPs(svc).length === 0) return;
          if (specOf(svc).loadBalancerClass && !hasFinalizer) return;
          await record(svc, 'Normal', 'DeletingLoadBalancer', 'Deleting load balancer');
          assigned.delete(key);
          let current = svc;
          if (hasFinalizer) {
            const next = deepCopy(svc);
            const rest = finalizers.filter((f) => f !== loadBalancerCleanupFinalizer);
            if (rest.length) next.metadata!.finalizers = rest;
            else delete next.metadata!.finalizers;
            current = await client.update(servicesGVR, next, scope);
          }
          if (!current.metadata?.deletionTimestamp && loadBalancerIPs(current).length) {
            await client.updateStatus(servicesGVR, { ...deepCopy(current), status: { ...statusOf(current), loadBalancer: {} } }, scope);
          }
          await record(svc, 'Normal', 'DeletedLoadBalancer', 'Deleted load balancer');
          return;
        }
        let current = svc;
        if (!hasFinalizer) {
          const next = deepCopy(svc);
          next.metadata!.finalizers = [...finalizers, loadBalancerCleanupFinalizer];
          current = await client.update(servicesGVR, next, scope);
        }
        const cluster = clusterOf(svc);
        const used = new Set<string>();
        for (const other of services.lister.list()) if (clusterOf(other) === cluster && keyOf(other) !== key && wantsLoadBalancer(other)) for (const ip of loadBalancerIPs(other)) used.add(ip);
        for (const [k, ip] of assigned) if (k !== key) used.add(ip);
        const have = loadBalancerIPs(current)[0] ?? assigned.get(key);
        const requested = typeof specOf(current).loadBalancerIP === 'string' && specOf(current).loadBalancerIP ? String(specOf(current).loadBalancerIP) : undefined;
        const allocation = allocateAddress(pool, used, have, requested);
        if ('error' in allocation) {
          await record(current, 'Warning', 'SyncLoadBalancerFailed', `Error syncing load balancer: failed to ensure load balancer: ${allocation.error}`);
          return { requeueAfterMs: 30_000 };
        }
        const want = { ingress: [{ ip: allocation.ip, ipMode: 'VIP' }] };
        assigned.set(key, allocation.ip);
        if (goEqual(statusOf(current).loadBalancer ?? {}, want)) return;
        // The events are written beside the work, not waited for (client-go's recorder is asynchronous too): this one
        // worker, as kube's service controller has, made every LoadBalancer Service wait for two Event round trips
        // per Service in line before it (the record never rejects; a failure is logged).
        void record(current, 'Normal', 'EnsuringLoadBalancer', 'Ensuring load balancer');
        await client.updateStatus(servicesGVR, { ...deepCopy(current), status: { ...statusOf(current), loadBalancer: want } }, scope);
        void record(current, 'Normal', 'EnsuredLoadBalancer', 'Ensured load balancer');
      };

      const controller = new Controller<string>({ name: 'service-lb', reconcile, workers: 1, rateLimiter: { baseDelayMs: 20, maxDelayMs: 5_000 } });
      const relevant = (s: KubeObject) => wantsLoadBalancer(s) || (s.metadata?.finalizers ?? []).includes(loadBalancerCleanupFinalizer) || loadBalancerIPs(s).length > 0;
      /** An address was freed: Services still waiting for one get another chance. */
      const retryWaiting = () => {
        for (const s of services.lister.list()) if (wantsLoadBalancer(s) && loadBalancerIPs(s).length === 0) controller.enqueue(keyOf(s));
      };
      services.addEventHandler({
        add: (s) => relevant(s) && controller.enqueue(keyOf(s)),
        update: (o, n) => {
          if (relevant(o) || relevant(n)) controller.enqueue(keyOf(n));
          if (wantsLoadBalancer(o) && !wantsLoadBalancer(n)) retryWaiting();
        },
        delete: (s) => {
          controller.enqueue(keyOf(s));
          if (loadBalancerIPs(s).length) retryWaiting();
        },
      });
      return { name: 'service-lb', start: () => controller.start(), stop: () => controller.stop() };
    },
  };
}

/**
 * Whether the simulated ingress controller serves an Ingress: its class (spec.ingressClassName, or the legacy
 * annotation) names an IngressClass of our controller, or it has no class at all.
 */
export function isOurIngress(ingress: KubeObject, classByName: (name: string) => KubeObject | undefined): boolean {
  const spec = specOf(ingress);
  const className = typeof spec.ingressClassName === 'string' ? spec.ingressClassName : ingress.metadata?.annotations?.[ingressClassAnnotation];
  if (className === undefined) return true;
  const ic = classByName(className);
  return !!ic && specOf(ic).controller === simulatedIngressController;
}

export function ingressControllerInstaller(pool: IPv4Pool): ControllerInstaller {
  return {
    name: 'ingress',
    install(ctx: ControllerContext): RunningController {
      const { client } = ctx;
      const ingresses = ctx.informers.informerFor<KubeObject>(ingressesGVR);
      const classes = ctx.informers.informerFor<KubeObject>(ingressClassesGVR);
      const events = new EventRecorder(client, 'nginx-ingress-controller', { aggregate: true });
      const address = ingressControllerAddress(pool);
      const ours = { ingress: [{ ip: address }] };

      const reconcile = async (key: string): Promise<ReconcileResult | void> => {
        const ingress = ingresses.lister.get(key);
        if (!ingress || ingress.metadata?.deletionTimestamp) return;
        const cluster = clusterOf(ingress);
        const scope = { cluster, namespace: ingress.metadata?.namespace };
        const current = statusOf(ingress).loadBalancer ?? {};
        const mine = isOurIngress(ingress, (name) => classes.lister.list().find((c) => clusterOf(c) === cluster && c.metadata?.name === name));
        // An Ingress that moved to another controller loses the address we published (and only ours).
        const want = mine ? ours : jsonEqual(current, ours) ? {} : current;
        if (jsonEqual(current, want)) return;
        if (mine) {
          await events.record(cluster, { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', namespace: ingress.metadata?.namespace, name: ingress.metadata?.name ?? '', uid: ingress.metadata?.uid }, 'Normal', 'Sync', 'Scheduled for sync');
        }
        await client.updateStatus(ingressesGVR, { ...deepCopy(ingress), status: { ...statusOf(ingress), loadBalancer: want } }, scope);
      };

      const controller = new Controller<string>({ name: 'ingress', reconcile, workers: 1, rateLimiter: { baseDelayMs: 20, maxDelayMs: 5_000 } });
      const enqueueAll = () => ingresses.lister.list().forEach((i) => controller.enqueue(keyOf(i)));
      ingresses.addEventHandler({ add: (i) => controller.enqueue(keyOf(i)), update: (_o, i) => controller.enqueue(keyOf(i)) });
      classes.addEventHandler({ add: enqueueAll, update: enqueueAll, delete: enqueueAll });
      return { name: 'ingress', start: () => controller.start(), stop: () => controller.stop() };
    },
  };
}
