/**
 * The DaemonSet controller: one pod per node that should run it (decisions.ts), each pinned to its node by a
 * required node affinity on metadata.name (the scheduler then binds it) and carrying the daemon tolerations, the
 * controller-revision-hash and pod-template-generation labels; failed pods replaced, pods on nodes that no longer
 * qualify removed; RollingUpdate within maxUnavailable/maxSurge or OnDelete; ControllerRevisions for the template
 * history; status so that `kubectl rollout status ds/<name>` works.
 */
import { deepCopy, goEqual, jsonEqual, type JsonObject, type KubeObject } from '../../../apimachinery/object.js';
import { fromLabelSelector, type LabelSelectorSpec } from '../../../apimachinery/labels/selector.js';
import { StatusError } from '../../../apimachinery/status.js';
import { clusterOf, formatObjectKey, parseObjectKey } from '../../../client/store.js';
import { Controller, type ReconcileResult } from '../../../controllers/runtime/controller.js';
import type { ControllerContext, ControllerInstaller, RunningController } from '../../../controllers/runtime/context.js';
import { EventRecorder } from '../../../controllers/runtime/event-recorder.js';
import { templateGeneration } from '../../../registry/builtin/workloads/apps-defaults.js';
import { type ControllerRevision, deleteRevisions, hashOf, podRevisionLabel, revisionsToPrune, syncHistory, templatePatch } from '../controller-history.js';
import { Expectations } from '../expectations.js';
import { nodesGVR, podsGVR } from '../gvrs.js';
import { nodeIsReady, targetNodeName, withDaemonPodTolerations, withNodeNameAffinity } from '../node-affinity.js';
import { controllerOf, controllerRef, isControlledBy } from '../owner-references.js';
import { isPodAvailable, isPodReady } from '../pod-conditions.js';
import { controllerRevisionsGVR, daemonSetsGVR } from '../workload-gvrs.js';
import { daemonSetStatusCounts, nodeShouldRunDaemonPod, podsShouldBeOnNode, rollingUpdate, surgeAndUnavailable, templateGenerationLabel } from './decisions.js';

interface DaemonSet extends KubeObject {
  spec?: {
    selector?: LabelSelectorSpec;
    template?: JsonObject;
    updateStrategy?: { type?: string; rollingUpdate?: JsonObject };
    minReadySeconds?: number;
    revisionHistoryLimit?: number;
  };
  status?: JsonObject & { collisionCount?: number };
}

const isTerminal = (p: KubeObject) => ['Succeeded', 'Failed'].includes(String((p.status as JsonObject | undefined)?.phase ?? ''));

export const daemonSetControllerInstaller: ControllerInstaller = {
  name: 'daemonset',
  install(ctx: ControllerContext): RunningController {
    const { client } = ctx;
    const sets = ctx.informers.informerFor<DaemonSet>(daemonSetsGVR);
    const pods = ctx.informers.informerFor<KubeObject>(podsGVR);
    const nodes = ctx.informers.informerFor<KubeObject>(nodesGVR);
    const revisions = ctx.informers.informerFor<ControllerRevision>(controllerRevisionsGVR);
    const expectations = new Expectations();
    const recorder = new EventRecorder(client, 'daemonset-controller');

    const event = (ds: DaemonSet, type: 'Normal' | 'Warning', reason: string, message: string) =>
      void recorder.record(clusterOf(ds), { apiVersion: 'apps/v1', kind: 'DaemonSet', namespace: ds.metadata?.namespace, name: ds.metadata?.name ?? '', uid: ds.metadata?.uid }, type, reason, message);

    /** util.CreatePodTemplate + the node affinity: the pod for one node. */
    const podFor = (ds: DaemonSet, nodeName: string, hash: string, generation: number | undefined): KubeObject => {
      const template = deepCopy(ds.spec?.template ?? {});
      const meta = (template.metadata ?? {}) as JsonObject;
      const spec = (template.spec ?? {}) as JsonObject;
      spec.tolerations = withDaemonPodTolerations((spec.tolerations as JsonObject[] | undefined) ?? [], spec.hostNetwork === true);
      spec.affinity = withNodeNameAffinity(spec.affinity, nodeName);
      const labels: Record<string, string> = { ...((meta.labels as Record<string, string> | undefined) ?? {}), [podRevisionLabel]: hash };
      if (generation !== undefined) labels[templateGenerationLabel] = String(generation);
      return {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          generateName: `${ds.metadata?.name}-`,
          namespace: ds.metadata?.namespace,
          labels,
          ...(meta.annotations ? { annotations: meta.annotations as Record<string, string> } : {}),
          ownerReferences: [controllerRef(ds, 'apps/v1', 'DaemonSet')],
        },
        spec,
      };
    };

    /** syncNodes: creates pods on `create` nodes and deletes `remove` pods, under expectations. */
    const syncNodes = async (key: string, ds: DaemonSet, remove: KubeObject[], create: string[], hash: string, generation: number | undefined): Promise<void> => {
      if (remove.length + create.length === 0) return;
      const namespace = ds.metadata?.namespace;
      expectations.expect(key, create.length, remove.length);
      const created = await Promise.allSettled(create.map((n) => client.create(podsGVR, podFor(ds, n, hash, generation), { namespace })));
      const deleted = await Promise.allSettled(remove.map((p) => client.delete(podsGVR, p.metadata?.name ?? '', { namespace }, { preconditions: { uid: p.metadata?.uid } })));
      const failedCreates = created.filter((r) => r.status === 'rejected');
      const notDeleted = deleted.filter((r) => r.status === 'rejected');
      expectations.lowerExpectations(key, failedCreates.length, notDeleted.length);
      created.forEach((r) => {
        if (r.status === 'fulfilled') event(ds, 'Normal', 'SuccessfulCreate', `Created pod: ${r.value.metadata?.name}`);
      });
      remove.forEach((p, i) => {
        if (deleted[i]!.status === 'fulfilled') event(ds, 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata?.name}`);
      });
      const failure = [...failedCreates, ...notDeleted.filter((r) => !(r.reason instanceof StatusError && (r.reason.code === 404 || r.reason.code === 409)))][0];
      if (failure) throw (failure as PromiseRejectedResult).reason;
    };

    const reconcile = async (key: string): Promise<ReconcileResult | void> => {
      const ds = sets.lister.get(key);
      if (!ds) {
        expectations.forget(key);
        return;
      }
      if (ds.metadata?.deletionTimestamp) return;
      const { namespace } = parseObjectKey(key);
      const uid = ds.metadata?.uid;
      const selector = fromLabelSelector(ds.spec?.selector);
      const template = ds.spec?.template ?? {};
      const minReady = ds.spec?.minReadySeconds ?? 0;
      const allNodes = nodes.lister.list().sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
      const nodeNames = new Set(allNodes.map((n) => n.metadata?.name ?? ''));

      const data = templatePatch(ds);
      const history = await syncHistory(
        client,
        { obj: ds, kind: 'DaemonSet', data, hash: (c) => hashOf(template, c), hashLabel: podRevisionLabel, collisionCount: ds.status?.collisionCount ?? 0 },
        revisions.lister.list().filter((r) => r.metadata?.namespace === namespace && isControlledBy(r, uid)),
      );
      const hash = history.update.metadata?.labels?.[podRevisionLabel] ?? '';
      const generationAnnotation = templateGeneration(ds);
      const generation = generationAnnotation > 0 ? generationAnnotation : undefined;

      const podsByNode = (): { byNode: Map<string, KubeObject[]>; orphans: KubeObject[] } => {
        const byNode = new Map<string, KubeObject[]>();
        const orphans: KubeObject[] = [];
        for (const p of pods.lister.list()) {
          if (p.metadata?.namespace !== namespace || !isControlledBy(p, uid) || !selector.matches(p.metadata?.labels ?? {})) continue;
          if (p.metadata?.deletionTimestamp && isTerminal(p)) continue;
          const node = targetNodeName(p);
          if (!node || !nodeNames.has(node)) {
            if (!p.metadata?.deletionTimestamp) orphans.push(p);
            continue;
          }
          byNode.set(node, [...(byNode.get(node) ?? []), p]);
        }
        return { byNode, orphans };
      };

      const satisfied = expectations.satisfied(key);
      if (satisfied) {
        // manage: every node gets what it should have; pods whose node is gone are deleted.
        const { byNode, orphans } = podsByNode();
        const surge = ds.spec?.updateStrategy?.type === 'RollingUpdate' && surgeAndUnavailable(ds.spec?.updateStrategy?.rollingUpdate, 1).maxSurge > 0;
        const create: string[] = [];
        const remove: KubeObject[] = [...orphans];
        const byPodName = new Map([...byNode.values()].flat().map((p) => [p.metadata?.name ?? '', p]));
        for (const node of allNodes) {
          const decision = podsShouldBeOnNode(node, template, byNode.get(node.metadata?.name ?? '') ?? [], { surge, hash, minReadySeconds: minReady, now: Date.now() });
          if (decision.create) create.push(node.metadata?.name ?? '');
          for (const name of decision.delete) remove.push(byPodName.get(name)!);
        }
        await syncNodes(key, ds, remove, create, hash, generation);
        if (remove.length + create.length === 0 && ds.spec?.updateStrategy?.type === 'RollingUpdate') {
          const desired = allNodes.filter((n) => nodeShouldRunDaemonPod(n, template).shouldRun).length;
          const { maxSurge, maxUnavailable } = surgeAndUnavailable(ds.spec?.updateStrategy?.rollingUpdate, desired);
          const shouldRun = new Map(allNodes.map((n) => [n.metadata?.name ?? '', nodeShouldRunDaemonPod(n, template).shouldRun]));
          const step = rollingUpdate({ podsByNode: byNode, shouldRun: (n) => shouldRun.get(n) ?? false, desired, maxSurge, maxUnavailable, hash, generation, minReadySeconds: minReady, now: Date.now() });
          await syncNodes(key, ds, step.deletePods.map((n) => byPodName.get(n)!).filter(Boolean), step.createOnNodes, hash, generation);
        }
        const live = new Set([history.update.metadata?.name ?? '']);
        for (const r of history.revisions) {
          const h = r.metadata?.labels?.[podRevisionLabel];
          if ([...byNode.values()].flat().some((p) => p.metadata?.labels?.[podRevisionLabel] === h)) live.add(r.metadata?.name ?? '');
        }
        await deleteRevisions(client, revisionsToPrune(history.revisions, live, ds.spec?.revisionHistoryLimit ?? 10));
      }

      const { byNode } = podsByNode();
      const counts = daemonSetStatusCounts({ nodes: allNodes, template, podsByNode: byNode, hash, generation, minReadySeconds: minReady, now: Date.now() });
      const status: JsonObject = { ...counts, observedGeneration: satisfied ? (ds.metadata?.generation ?? 1) : (ds.status?.observedGeneration ?? 0) };
      for (const k of ['updatedNumberScheduled', 'numberAvailable', 'numberUnavailable']) if (status[k] === 0) delete status[k];
      if (history.collisionCount > 0 || ds.status?.collisionCount !== undefined) status.collisionCount = history.collisionCount;
      if (!status.observedGeneration) delete status.observedGeneration;
      if (ds.status?.conditions) status.conditions = ds.status.conditions;
      if (!goEqual(status, ds.status ?? {})) {
        const next = deepCopy(ds);
        next.status = status;
        await client.updateStatus(daemonSetsGVR, next, { namespace });
      }
      const becomingAvailable = [...byNode.values()].flat().some((p) => isPodReady(p) && !isPodAvailable(p, minReady, Date.now()));
      if (!satisfied) return { requeueAfterMs: 500 };
      return becomingAvailable ? { requeueAfterMs: 1000 } : undefined;
    };

    const controller = new Controller<string>({ name: 'daemonset', reconcile, workers: 2, rateLimiter: { baseDelayMs: 20, maxDelayMs: 5_000 } });
    const keyOf = (o: KubeObject) => formatObjectKey({ cluster: clusterOf(o), namespace: o.metadata?.namespace ?? '', name: o.metadata?.name ?? '' });
    const ownerKey = (p: KubeObject) => {
      const ref = controllerOf(p);
      return ref?.kind === 'DaemonSet' ? formatObjectKey({ cluster: clusterOf(p), namespace: p.metadata?.namespace ?? '', name: String(ref.name) }) : undefined;
    };
    const enqueueAll = () => {
      for (const ds of sets.lister.list()) controller.enqueue(keyOf(ds));
    };
    sets.addEventHandler({ add: (d) => controller.enqueue(keyOf(d)), update: (_o, n) => controller.enqueue(keyOf(n)), delete: (d) => controller.enqueue(keyOf(d)) });
    pods.addEventHandler({
      add(p) {
        const k = ownerKey(p);
        if (!k) return;
        expectations.observedAdd(k);
        controller.enqueue(k);
      },
      update: (_o, p) => {
        const k = ownerKey(p);
        if (k) controller.enqueue(k);
      },
      delete(p) {
        const k = ownerKey(p);
        if (!k) return;
        expectations.observedDelete(k);
        controller.enqueue(k);
      },
    });
    // Which nodes qualify depends on their labels, taints, cordoning and readiness.
    const placementChanged = (o: KubeObject, n: KubeObject) => !jsonEqual(o.spec, n.spec) || !jsonEqual(o.metadata?.labels, n.metadata?.labels) || nodeIsReady(o) !== nodeIsReady(n);
    nodes.addEventHandler({ add: enqueueAll, update: (o, n) => placementChanged(o, n) && enqueueAll(), delete: enqueueAll });
    revisions.addEventHandler({
      delete: (r) => {
        const k = ownerKey(r);
        if (k) controller.enqueue(k);
      },
    });
    return { name: 'daemonset', start: () => controller.start(), stop: () => controller.stop() };
  },
};
