/**
 * The revision-history controller: for every root Deployment the splitter divides (a split namespace, isSplitRoot;
 * never the `<name>--<cluster>` children), keeps the ReplicaSets kube's deployment controller would keep, as
 * planRevisionHistory (revision-history.ts) says, and the Deployment's `deployment.kubernetes.io/revision`. These
 * ReplicaSets run nothing: they carry REVISION_HISTORY_LABEL, which makes them cluster-local (api/kind-placement.ts
 * isClusterLocal), so the placement controller never places them and no syncer copies them; the garbage collector
 * deletes them with their Deployment (controller owner reference). Edits to them are undone at the next pass: they
 * are the control plane's record of the Deployment's revisions. A Deployment that stops being split (pinned to one
 * cluster by `workload.kcp.io/cluster`) loses them: the cluster's own ReplicaSets
 * are mirrored up for it then (syncer/workspace-mirrors.ts), and the two never both stand for one Deployment. Mirrors
 * (MIRROR_LABEL) controlled by a Deployment are never taken for history here: their names wait until they are gone.
 *
 * Informers over every workspace (Deployments, ReplicaSets, namespaces); one key per root, `<cluster>|<ns>|<name>`,
 * queued on the root's events (its spec, annotations, and the status the splitter aggregates) and its ReplicaSets'.
 */
import { jsonEqual, type KubeObject } from '../../apimachinery/object.js';
import type { GroupVersionResource } from '../../client/resource.js';
import { clusterOf, formatObjectKey } from '../../client/store.js';
import { Controller, type ReconcileResult } from '../../controllers/runtime/controller.js';
import type { ControllerContext, ControllerInstaller } from '../../controllers/runtime/context.js';
import { stripClusterAnnotation } from '../../controllers/runtime/committer.js';
import { logger } from '../../logging/logger.js';
import { REVISION_HISTORY_LABEL } from '../api/kind-placement.js';
import { isMirror, MIRROR_LABEL } from '../api/mirrors.js';
import { namespacesGVR } from '../api/types.js';
import { deploymentsGVR, SPLIT_NAMESPACE_ANNOTATION } from '../scheduling/types.js';
import { isSplitRoot } from './children.js';
import { isControlledBy, planRevisionHistory, REVISION_ANNOTATION, type DesiredReplicaSet } from './revision-history.js';

export const replicaSetsGVR: GroupVersionResource = { group: 'apps', version: 'v1', resource: 'replicasets' };

const BY_CONTROLLER_UID = 'revision-history/by-controller-uid';

export const revisionHistoryControllerInstaller: ControllerInstaller = {
  name: 'revision-history',
  install(ctx) {
    // The placement controller's selection (no Deployment is ever a mirror: only system:masters could label one), so
    // both share one watch: every Deployment event, the split children's status churn above all, was parsed twice.
    const deployments = ctx.informers.informerFor<KubeObject>(deploymentsGVR, { cluster: '*', labelSelector: `!${MIRROR_LABEL}` });
    const replicaSets = ctx.informers.informerFor<KubeObject>(replicaSetsGVR, { cluster: '*' });
    const namespaces = ctx.informers.informerFor<KubeObject>(namespacesGVR, { cluster: '*' });
    replicaSets.addIndexer(BY_CONTROLLER_UID, (rs) => {
      const ref = rs.metadata?.ownerReferences?.find((r) => r.controller === true && r.kind === 'Deployment');
      return typeof ref?.uid === 'string' ? [ref.uid] : [];
    });
    const controller = new Controller({
      name: 'revision-history',
      workers: 1,
      reconcile: (key) => reconcile(ctx, { deployments, replicaSets, namespaces }, key),
    });
    const byDeployment = (d: KubeObject) => {
      // Roots, and Deployments that still have history (no longer split: it goes).
      if (d.metadata?.namespace && (isSplitRoot(d) || (d.metadata.uid && replicaSets.lister.byIndex(BY_CONTROLLER_UID, d.metadata.uid).some(isHistory)))) {
        controller.enqueue(`${clusterOf(d)}|${d.metadata.namespace}|${d.metadata.name}`);
      }
    };
    const byReplicaSet = (rs: KubeObject) => {
      if (!isHistory(rs)) return;
      const ref = rs.metadata?.ownerReferences?.find((r) => r.controller === true && r.kind === 'Deployment');
      if (ref) controller.enqueue(`${clusterOf(rs)}|${rs.metadata?.namespace}|${ref.name}`);
    };
    deployments.addEventHandler({ add: byDeployment, update: (_o, n) => byDeployment(n) });
    replicaSets.addEventHandler({ add: byReplicaSet, update: (_o, n) => byReplicaSet(n), delete: byReplicaSet });
    return { name: 'revision-history', start: () => controller.start(), stop: () => controller.stop() };
  },
};

const isHistory = (rs: KubeObject) => rs.metadata?.labels?.[REVISION_HISTORY_LABEL] === 'true' && !isMirror(rs);

interface Informers {
  deployments: { lister: { get(key: string): KubeObject | undefined }; hasSynced(): boolean };
  replicaSets: { lister: { get(key: string): KubeObject | undefined; byIndex(index: string, value: string): KubeObject[] }; hasSynced(): boolean };
  namespaces: { lister: { get(key: string): KubeObject | undefined }; hasSynced(): boolean };
}

async function reconcile(ctx: ControllerContext, inf: Informers, key: string): Promise<ReconcileResult | void> {
  if (!inf.deployments.hasSynced() || !inf.replicaSets.hasSynced() || !inf.namespaces.hasSynced()) return { requeueAfterMs: 200 };
  const [cluster, namespace, name] = key.split('|') as [string, string, string];
  const root = inf.deployments.lister.get(formatObjectKey({ cluster, namespace, name }));
  if (!root || root.metadata?.deletionTimestamp || !root.metadata?.uid) return;
  const uid = root.metadata.uid;
  const owned = inf.replicaSets.lister.byIndex(BY_CONTROLLER_UID, uid).filter((rs) => clusterOf(rs) === cluster && rs.metadata?.namespace === namespace && isControlledBy(rs, uid) && !isMirror(rs));
  const ns = inf.namespaces.lister.get(formatObjectKey({ cluster, namespace: '', name: namespace }));
  if (!isSplitRoot(root)) {
    // Pinned to one cluster (no longer split): its history goes; the cluster's ReplicaSets are mirrored for it instead.
    try {
      for (const rs of owned) if (isHistory(rs)) await ctx.client.delete(replicaSetsGVR, rs.metadata!.name!, { cluster, namespace }, { preconditions: { uid: rs.metadata!.uid! } }).catch(ignoreNotFound);
    } catch (err) {
      logger.debug('revision history: retrying cleanup', { cluster, namespace, name, error: (err as Error).message });
      return { requeueAfterMs: 500 };
    }
    return;
  }
  if (ns?.metadata?.annotations?.[SPLIT_NAMESPACE_ANNOTATION] !== 'true') return;
  const nameTaken = (n: string) => {
    const rs = inf.replicaSets.lister.get(formatObjectKey({ cluster, namespace, name: n }));
    return rs !== undefined && !isControlledBy(rs, uid);
  };
  const plan = planRevisionHistory(root, owned, nameTaken);
  const scope = { cluster, namespace };
  try {
    for (const n of plan.delete) await ctx.client.delete(replicaSetsGVR, n, scope).catch(ignoreNotFound);
    for (const want of plan.keep) await apply(ctx, want, owned, scope);
    if (plan.revision !== undefined && root.metadata.annotations?.[REVISION_ANNOTATION] !== plan.revision) {
      await ctx.client.patch(deploymentsGVR, name, 'merge', { metadata: { annotations: { [REVISION_ANNOTATION]: plan.revision } } }, scope).catch(ignoreNotFound);
    }
  } catch (err) {
    // A conflict (our cache behind the server) or a refusal: try again shortly.
    logger.debug('revision history: retrying', { cluster, namespace, name, error: (err as Error).message });
    return { requeueAfterMs: 500 };
  }
}

/** Creates or updates one ReplicaSet of the history, then its status (observedGeneration = its generation). */
async function apply(ctx: ControllerContext, want: DesiredReplicaSet, owned: readonly KubeObject[], scope: { cluster: string; namespace: string }): Promise<void> {
  let obj: KubeObject;
  if (!want.exists) {
    obj = await ctx.client.create(replicaSetsGVR, want.object, scope);
  } else {
    const existing = owned.find((rs) => rs.metadata?.name === want.object.metadata?.name)!;
    obj = sameContent(existing, want.object) ? existing : await ctx.client.update(replicaSetsGVR, stripClusterAnnotation(want.object), scope);
  }
  if (!want.status) return;
  const status = { ...want.status, observedGeneration: obj.metadata?.generation ?? 1 };
  const have = (obj.status ?? {}) as Record<string, unknown>;
  if ((Object.keys(status) as (keyof typeof status)[]).every((k) => (have[k] ?? 0) === status[k])) return;
  await ctx.client.updateStatus(replicaSetsGVR, stripClusterAnnotation({ ...obj, status }), scope);
}

/** Whether an existing ReplicaSet already has the desired labels, annotations, owner and spec. */
function sameContent(existing: KubeObject, desired: KubeObject): boolean {
  const a = stripClusterAnnotation(existing).metadata ?? {};
  const b = stripClusterAnnotation(desired).metadata ?? {};
  return jsonEqual(a.labels ?? {}, b.labels ?? {}) && jsonEqual(a.annotations ?? {}, b.annotations ?? {}) && jsonEqual(a.ownerReferences ?? [], b.ownerReferences ?? []) && jsonEqual(existing.spec ?? {}, desired.spec ?? {});
}

function ignoreNotFound(err: unknown): undefined {
  if ((err as { code?: number }).code === 404) return undefined;
  throw err;
}
