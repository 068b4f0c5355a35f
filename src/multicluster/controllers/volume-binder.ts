/**
 * Binds the claims of every workspace with compute to the PersistentVolumes a user created in that workspace, as
 * kube-controller-manager's PV controller binds them on one cluster (decisions/volume-binding.ts decides which and
 * what phase): the volume first (spec.claimRef, then status Bound), then the claim (spec.volumeName, the
 * bind-completed annotations and WORKSPACE_VOLUME_ANNOTATION, then status Bound with the volume's capacity and access
 * modes). A volume is Available until bound and Released (or deleted, or recycled, by its reclaim policy) once its
 * claim is gone. The binder owns those claims' status: the syncer sends such a claim to its clusters pre-bound to a
 * copy of the volume (syncer/workspace-volumes.ts) and does not carry the cluster's claim status up.
 *
 * Claims that bind no workspace volume (most: dynamically provisioned by a cluster's StorageClass) are left alone, as
 * are the clusters' read-only mirrors (a StatefulSet's claims).
 */
import { goEqual, isPlainObject, nowRFC3339, type KubeObject } from '../../apimachinery/object.js';
import { StatusError } from '../../apimachinery/status.js';
import type { GroupVersionResource } from '../../client/resource.js';
import { clusterOf, formatObjectKey, parseObjectKey } from '../../client/store.js';
import { Controller } from '../../controllers/runtime/controller.js';
import type { ControllerInstaller } from '../../controllers/runtime/context.js';
import { logger } from '../../logging/logger.js';
import { isMirror } from '../api/mirrors.js';
import {
  BIND_COMPLETED_ANNOTATION,
  BOUND_BY_CONTROLLER_ANNOTATION,
  boundClaimStatus,
  claimRefFor,
  claimRefOf,
  RECYCLE_FAILED,
  reclaimOf,
  refersTo,
  unbound,
  volumeFor,
  volumePhase,
  WORKSPACE_VOLUME_ANNOTATION,
} from '../decisions/volume-binding.js';

const volumesGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'persistentvolumes' };
const claimsGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'persistentvolumeclaims' };
const FIELD_MANAGER = 'persistent-volume-binder';
const BY_CLUSTER = 'by-cluster';

const volumeKeyPrefix = 'pv#';

function ignoreGone(err: unknown): void {
  if (!(err instanceof StatusError && err.code === 404)) throw err;
}

export const volumeBinderControllerInstaller: ControllerInstaller = {
  name: 'workspace-volume-binder',
  install(ctx) {
    const volumes = ctx.informers.informerFor<KubeObject>(volumesGVR, { cluster: '*' });
    const claims = ctx.informers.informerFor<KubeObject>(claimsGVR, { cluster: '*' });
    volumes.addIndexer(BY_CLUSTER, (v) => [clusterOf(v)]);
    claims.addIndexer(BY_CLUSTER, (c) => [clusterOf(c)]);
    const claimKey = (c: KubeObject) => formatObjectKey({ cluster: clusterOf(c), namespace: c.metadata?.namespace ?? '', name: c.metadata?.name ?? '' });
    const volumeKey = (cluster: string, name: string) => volumeKeyPrefix + formatObjectKey({ cluster, namespace: '', name });

    const setVolumePhase = async (cluster: string, pv: KubeObject, phase: string) => {
      const status = isPlainObject(pv.status) ? pv.status : {};
      if (status.phase === phase) return;
      await ctx.client.patch(volumesGVR, pv.metadata!.name!, 'merge', { status: { phase, lastPhaseTransitionTime: nowRFC3339() } }, { cluster, subresource: 'status' }).catch(ignoreGone);
    };

    const reconcileVolume = async (cluster: string, name: string) => {
      const pv = volumes.lister.get(formatObjectKey({ cluster, namespace: '', name }));
      if (!pv || pv.metadata?.deletionTimestamp) return;
      const ref = claimRefOf(pv);
      const claim = ref?.namespace && ref.name ? claims.lister.get(formatObjectKey({ cluster, namespace: ref.namespace, name: ref.name })) : undefined;
      const phase = volumePhase(pv, claim);
      if (phase === 'Released') {
        const reclaim = reclaimOf(pv);
        if (reclaim === 'delete') {
          logger.info('volume binder: deleting a released volume (reclaim policy Delete)', { cluster, name });
          await ctx.client.delete(volumesGVR, name, { cluster }, { preconditions: { uid: pv.metadata!.uid! } }).catch((err: unknown) => {
            if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
          });
          return;
        }
        if (reclaim === 'fail') {
          const status = isPlainObject(pv.status) ? pv.status : {};
          if (status.phase !== RECYCLE_FAILED.phase) await ctx.client.patch(volumesGVR, name, 'merge', { status: { ...RECYCLE_FAILED, lastPhaseTransitionTime: nowRFC3339() } }, { cluster, subresource: 'status' }).catch(ignoreGone);
          return;
        }
      }
      // Its claim took another volume: undone as upstream's unbindVolume does.
      const undo = unbound(pv, claim);
      if (undo) {
        await ctx.client.patch(volumesGVR, name, 'merge', { metadata: { resourceVersion: pv.metadata?.resourceVersion }, spec: undo }, { cluster, fieldManager: FIELD_MANAGER }).catch(ignoreGone);
        return;
      }
      await setVolumePhase(cluster, pv, phase);
      if (phase === 'Available') {
        // Claims of the workspace waiting for a volume may take this one now.
        for (const c of claims.lister.byIndex(BY_CLUSTER, cluster)) if (!c.metadata?.annotations?.[WORKSPACE_VOLUME_ANNOTATION]) controller.enqueue(claimKey(c));
      }
    };

    const reconcileClaim = async (key: string) => {
      const claim = claims.lister.get(key);
      if (!claim || isMirror(claim)) return;
      const cluster = clusterOf(claim);
      const scope = { cluster, namespace: claim.metadata!.namespace! };
      const inWorkspace = volumes.lister.byIndex(BY_CLUSTER, cluster);
      const marked = claim.metadata?.annotations?.[WORKSPACE_VOLUME_ANNOTATION];
      if (marked) {
        // Bound before: keep the claim's status the volume's (Lost once the volume is gone or taken); a volume that
        // lost its claimRef is bound to the claim again (syncBoundClaim).
        const pv = inWorkspace.find((v) => v.metadata?.name === marked);
        if (pv && !claimRefOf(pv) && !pv.metadata?.deletionTimestamp) {
          await ctx.client.patch(volumesGVR, marked, 'merge', { metadata: { resourceVersion: pv.metadata?.resourceVersion }, spec: { claimRef: claimRefFor(claim) } }, { cluster, fieldManager: FIELD_MANAGER });
          return;
        }
        const status = pv && refersTo(pv, claim) ? boundClaimStatus(claim, pv) : { ...(isPlainObject(claim.status) ? claim.status : {}), phase: 'Lost' };
        if (!goEqual(status, claim.status ?? {})) {
          await ctx.client.patch(claimsGVR, claim.metadata!.name!, 'json', [{ op: 'add', path: '/status', value: status }], { ...scope, subresource: 'status' }).catch(ignoreGone);
        }
        if (pv) controller.enqueue(volumeKey(cluster, marked));
        return;
      }
      const pv = volumeFor(claim, inWorkspace);
      if (!pv) return;
      const name = pv.metadata!.name!;
      const ref = claimRefOf(pv);
      // The volume first: once it names the claim, no other claim can take it.
      if (!ref || !ref.uid) {
        await ctx.client.patch(
          volumesGVR,
          name,
          'merge',
          { metadata: { resourceVersion: pv.metadata?.resourceVersion, ...(ref ? {} : { annotations: { [BOUND_BY_CONTROLLER_ANNOTATION]: 'yes' } }) }, spec: { claimRef: claimRefFor(claim) } },
          { cluster, fieldManager: FIELD_MANAGER },
        );
      }
      const named = typeof (claim.spec as { volumeName?: unknown } | undefined)?.volumeName === 'string' && (claim.spec as { volumeName: string }).volumeName !== '';
      const bound = await ctx.client.patch(
        claimsGVR,
        claim.metadata!.name!,
        'merge',
        {
          metadata: { resourceVersion: claim.metadata?.resourceVersion, annotations: { [BIND_COMPLETED_ANNOTATION]: 'yes', ...(named ? {} : { [BOUND_BY_CONTROLLER_ANNOTATION]: 'yes' }), [WORKSPACE_VOLUME_ANNOTATION]: name } },
          spec: { volumeName: name },
        },
        { ...scope, fieldManager: FIELD_MANAGER },
      );
      await ctx.client.patch(claimsGVR, claim.metadata!.name!, 'json', [{ op: 'add', path: '/status', value: boundClaimStatus(bound, pv) }], { ...scope, subresource: 'status' }).catch(ignoreGone);
      logger.info('volume binder: claim bound to a volume of its workspace', { cluster, namespace: scope.namespace, claim: claim.metadata?.name, volume: name });
      controller.enqueue(volumeKey(cluster, name));
    };

    const controller: Controller = new Controller({
      name: 'workspace-volume-binder',
      workers: 2,
      reconcile: async (key) => {
        if (!volumes.hasSynced() || !claims.hasSynced()) return { requeueAfterMs: 200 };
        if (key.startsWith(volumeKeyPrefix)) {
          const k = parseObjectKey(key.slice(volumeKeyPrefix.length));
          return reconcileVolume(k.cluster, k.name);
        }
        return reconcileClaim(key);
      },
    });

    const onVolume = (pv: KubeObject) => controller.enqueue(volumeKey(clusterOf(pv), pv.metadata?.name ?? ''));
    volumes.addEventHandler({ add: onVolume, update: (_o, n) => onVolume(n), delete: (pv) => {
      // Claims bound to it turn Lost.
      const ref = claimRefOf(pv);
      if (ref?.namespace && ref.name) controller.enqueue(formatObjectKey({ cluster: clusterOf(pv), namespace: ref.namespace, name: ref.name }));
    } });
    const onClaim = (c: KubeObject) => {
      controller.enqueue(claimKey(c));
      const marked = c.metadata?.annotations?.[WORKSPACE_VOLUME_ANNOTATION];
      if (marked) controller.enqueue(volumeKey(clusterOf(c), marked));
    };
    claims.addEventHandler({ add: onClaim, update: (_o, n) => onClaim(n), delete: (c) => {
      // The volumes it was bound (or pre-bound) to are Released, or Available again.
      for (const pv of volumes.lister.byIndex(BY_CLUSTER, clusterOf(c))) {
        const ref = claimRefOf(pv);
        if (ref?.namespace === c.metadata?.namespace && ref?.name === c.metadata?.name) onVolume(pv);
      }
    } });
    return { name: 'workspace-volume-binder', start: () => controller.start(), stop: () => controller.stop() };
  },
};
