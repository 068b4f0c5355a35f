/**
 * The disruption controller's status half (pkg/controller/disruption): keeps every PodDisruptionBudget's status —
 * expectedPods, currentHealthy, desiredHealthy, disruptionsAllowed, observedGeneration and the DisruptionAllowed
 * condition — from the pods its selector matches and the scale of the Deployments, ReplicaSets, StatefulSets and
 * ReplicationControllers that own them (budget.ts). A pod whose controller is none of those makes a percentage
 * budget fail safe (SyncFailed, no disruptions). There is no eviction API here, so nothing else reads the budget.
 */
import { deepCopy, goEqual, jsonEqual, type JsonObject, type KubeObject } from '../../../apimachinery/object.js';
import { fromLabelSelector, type LabelSelectorSpec } from '../../../apimachinery/labels/selector.js';
import { clusterOf, formatObjectKey, parseObjectKey } from '../../../client/store.js';
import { Controller, type ReconcileResult } from '../../../controllers/runtime/controller.js';
import type { ControllerContext, ControllerInstaller, RunningController } from '../../../controllers/runtime/context.js';
import { EventRecorder } from '../../../controllers/runtime/event-recorder.js';
import { deploymentsGVR, podsGVR, replicaSetsGVR } from '../gvrs.js';
import { controllerOf } from '../owner-references.js';
import { pdbGVR, replicationControllersGVR, statefulSetsGVR } from '../workload-gvrs.js';
import { type PodDisruptionBudget, type ScaleFinder, countHealthy, disruptedPodsOf, expectedPodCount, failSafeStatus, pdbStatus } from './budget.js';

export const disruptionControllerInstaller: ControllerInstaller = {
  name: 'disruption',
  install(ctx: ControllerContext): RunningController {
    const { client } = ctx;
    const pdbs = ctx.informers.informerFor<PodDisruptionBudget>(pdbGVR);
    const pods = ctx.informers.informerFor<KubeObject>(podsGVR);
    const replicaSets = ctx.informers.informerFor<KubeObject>(replicaSetsGVR);
    const deployments = ctx.informers.informerFor<KubeObject>(deploymentsGVR);
    const statefulSets = ctx.informers.informerFor<KubeObject>(statefulSetsGVR);
    const rcs = ctx.informers.informerFor<KubeObject>(replicationControllersGVR);
    const recorder = new EventRecorder(client, 'controllermanager');

    const get = (inf: typeof pods, cluster: string, namespace: string, name: string) => inf.lister.get(formatObjectKey({ cluster, namespace, name }));
    const replicasOf = (o: KubeObject) => Number((o.spec as JsonObject | undefined)?.replicas ?? 1);

    /** The finders: a ReplicaSet (its Deployment's scale when a Deployment owns it), a StatefulSet, a ReplicationController. */
    const finderFor = (cluster: string): ScaleFinder => (ref, namespace) => {
      const name = String(ref.name);
      const match = (o: KubeObject | undefined) => (o && o.metadata?.uid === ref.uid ? o : undefined);
      if (ref.kind === 'ReplicaSet' && String(ref.apiVersion ?? '').startsWith('apps/')) {
        const rs = match(get(replicaSets, cluster, namespace, name));
        if (!rs) return undefined;
        const owner = controllerOf(rs);
        if (owner?.kind === 'Deployment') {
          const d = get(deployments, cluster, namespace, String(owner.name));
          if (d && d.metadata?.uid === owner.uid) return { uid: d.metadata?.uid ?? '', scale: replicasOf(d) };
          return undefined;
        }
        return { uid: rs.metadata?.uid ?? '', scale: replicasOf(rs) };
      }
      if (ref.kind === 'StatefulSet') {
        const s = match(get(statefulSets, cluster, namespace, name));
        return s ? { uid: s.metadata?.uid ?? '', scale: replicasOf(s) } : undefined;
      }
      if (ref.kind === 'ReplicationController') {
        const rc = match(get(rcs, cluster, namespace, name));
        return rc ? { uid: rc.metadata?.uid ?? '', scale: replicasOf(rc) } : undefined;
      }
      return undefined;
    };

    const reconcile = async (key: string): Promise<ReconcileResult | void> => {
      const pdb = pdbs.lister.get(key);
      if (!pdb) return;
      const { cluster, namespace } = parseObjectKey(key);
      const now = Date.now();
      let status: JsonObject;
      let recheck: number | undefined;
      try {
        const selector = fromLabelSelector(pdb.spec?.selector as LabelSelectorSpec | undefined);
        const matching = pods.lister.list().filter((p) => p.metadata?.namespace === namespace && selector.matches(p.metadata?.labels ?? {}));
        const involved = { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', namespace, name: pdb.metadata?.name ?? '', uid: pdb.metadata?.uid };
        if (matching.length === 0 && (pdb.status?.expectedPods ?? 0) !== 0) void recorder.record(clusterOf(pdb), involved, 'Normal', 'NoPods', 'No matching pods found');
        const { expected, desiredHealthy } = expectedPodCount(pdb, matching, finderFor(cluster));
        const { disrupted, recheckAtMs } = disruptedPodsOf(pdb, matching, now);
        status = pdbStatus(pdb, { currentHealthy: countHealthy(matching, disrupted), desiredHealthy, expected, disrupted }, now);
        // An evicted pod that has not gone by its deadline counts again then: look at the budget at that moment.
        if (recheckAtMs !== undefined) recheck = recheckAtMs - now;
      } catch (err) {
        void recorder.record(clusterOf(pdb), { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', namespace, name: pdb.metadata?.name ?? '', uid: pdb.metadata?.uid }, 'Warning', 'CalculateExpectedPodCountFailed', `Failed to calculate the number of expected pods: ${(err as Error).message}`);
        status = failSafeStatus(pdb, (err as Error).message, now);
      }
      if (!goEqual(status, pdb.status ?? {})) {
        const next = deepCopy(pdb);
        next.status = status;
        await client.updateStatus(pdbGVR, next, { namespace });
      }
      if (recheck !== undefined) return { requeueAfterMs: Math.max(0, recheck) + 1 };
    };

    const controller = new Controller<string>({ name: 'disruption', reconcile, workers: 1, rateLimiter: { baseDelayMs: 50, maxDelayMs: 10_000 } });
    const keyOf = (o: KubeObject) => formatObjectKey({ cluster: clusterOf(o), namespace: o.metadata?.namespace ?? '', name: o.metadata?.name ?? '' });
    /** The budgets of a pod's namespace whose selector matches it (or, for a controller, every budget there). */
    const enqueueFor = (o: KubeObject, matchLabels: boolean) => {
      for (const pdb of pdbs.lister.list()) {
        if (pdb.metadata?.namespace !== o.metadata?.namespace || clusterOf(pdb) !== clusterOf(o)) continue;
        try {
          if (matchLabels && !fromLabelSelector(pdb.spec?.selector as LabelSelectorSpec | undefined).matches(o.metadata?.labels ?? {})) continue;
        } catch {
          continue;
        }
        controller.enqueue(keyOf(pdb));
      }
    };
    pdbs.addEventHandler({ add: (p) => controller.enqueue(keyOf(p)), update: (_o, n) => controller.enqueue(keyOf(n)) });
    pods.addEventHandler({
      add: (p) => enqueueFor(p, true),
      update: (o, n) => {
        enqueueFor(n, true);
        if (!jsonEqual(o.metadata?.labels, n.metadata?.labels)) enqueueFor(o, true);
      },
      delete: (p) => enqueueFor(p, true),
    });
    const scaleChanged = (o: KubeObject, n: KubeObject) => !jsonEqual((o.spec as JsonObject | undefined)?.replicas, (n.spec as JsonObject | undefined)?.replicas);
    for (const inf of [replicaSets, deployments, statefulSets, rcs]) inf.addEventHandler({ add: (o) => enqueueFor(o, false), update: (o, n) => scaleChanged(o, n) && enqueueFor(n, false) });
    return { name: 'disruption', start: () => controller.start(), stop: () => controller.stop() };
  },
};
