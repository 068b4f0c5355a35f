/**
 * The simulated cluster's volume controller: the PV controller, an external provisioner for the simulated class and
 * the pvc- and pv-protection controllers, in one installer with two queues (claims and volumes).
 *
 * Claims:
 * - a claim without any class gets the default class once one exists (RetroactiveDefaultStorageClass);
 * - an unbound claim binds to a matching existing volume (static provisioning, smallest fit); otherwise, if its class
 *   is provisioned by `atrium.io/simulated`, a volume `pvc-<uid>` is provisioned for it when there is room left in the
 *   cluster's storage capacity (a Warning `ProvisioningFailed` says why not, and the claim stays Pending) and the two
 *   are bound: the claim gets spec.volumeName, the bind-completed annotations and status Bound with the volume's
 *   capacity and access modes, the volume status Bound;
 * - WaitForFirstConsumer claims wait (events `WaitForFirstConsumer`, `WaitForPodScheduled`) until the scheduler
 *   names the node of their first pod in `volume.kubernetes.io/selected-node`; the volume is then pinned to that node.
 *   If provisioning fails the annotation is removed, so that the scheduler tries again (external-provisioner's
 *   reschedule);
 * - a claim whose volume disappeared is Lost; a claim being deleted loses its pvc-protection finalizer once no pod
 *   that is not Succeeded or Failed uses it.
 *
 * Volumes: a volume without a claim is Available; a volume whose claim is gone is Released, and then deleted if its
 * reclaim policy is Delete and we provisioned it (kept Released with Retain); a volume being deleted loses its
 * pv-protection finalizer unless it is Bound.
 */
import { type JsonObject, type KubeObject, deepCopy, isPlainObject, jsonEqual } from '../../../apimachinery/object.js';
import { StatusError } from '../../../apimachinery/status.js';
import { clusterOf, formatObjectKey, keyOf } from '../../../client/store.js';
import { Controller, type ReconcileResult } from '../../../controllers/runtime/controller.js';
import type { ControllerContext, ControllerInstaller, RunningController } from '../../../controllers/runtime/context.js';
import { commit } from '../../../controllers/runtime/committer.js';
import { EventRecorder, type EventType } from '../../../controllers/runtime/event-recorder.js';
import { nodesGVR, persistentVolumeClaimsGVR, persistentVolumesGVR, podsGVR, storageClassesGVR } from '../gvrs.js';
import {
  betaStorageProvisionerAnnotation,
  bindCompletedAnnotation,
  boundByControllerAnnotation,
  boundClaimStatus,
  claimRequestBytes,
  findMatchingVolume,
  podClaimNames,
  podUsesClaims,
  provisionDecision,
  provisionedByAnnotation,
  provisionedBytes,
  provisionedVolume,
  provisionedVolumeName,
  pvProtectionFinalizer,
  pvcProtectionFinalizer,
  selectedNodeAnnotation,
  storageProvisionerAnnotation,
} from './binding.js';
import { claimClassName, claimHasClass, isDefaultStorageClass, newestDefault, simulatedProvisioner } from '../classes.js';

export interface StorageControllerOptions {
  /** Bytes the simulated provisioner may hand out in all (volumes it provisioned count until deleted). */
  capacityBytes: number;
  /** How soon a claim that could not be provisioned is tried again (default 15 s, the PV controller's resync). */
  retryMs?: number;
}

const specOf = (o: KubeObject): JsonObject => (isPlainObject(o.spec) ? o.spec : {});
const statusOf = (o: KubeObject): JsonObject => (isPlainObject(o.status) ? o.status : {});
const phaseOf = (o: KubeObject): string => String(statusOf(o).phase ?? '');
const isNotFound = (err: unknown) => err instanceof StatusError && err.code === 404;
const isConflict = (err: unknown) => err instanceof StatusError && err.code === 409;

export function storageControllerInstaller(opts: StorageControllerOptions): ControllerInstaller {
  return {
    name: 'persistentvolume',
    install(ctx: ControllerContext): RunningController {
      const { client } = ctx;
      const claims = ctx.informers.informerFor<KubeObject>(persistentVolumeClaimsGVR);
      const volumes = ctx.informers.informerFor<KubeObject>(persistentVolumesGVR);
      const classes = ctx.informers.informerFor<KubeObject>(storageClassesGVR);
      const pods = ctx.informers.informerFor<KubeObject>(podsGVR);
      const nodes = ctx.informers.informerFor<KubeObject>(nodesGVR);
      const controllerEvents = new EventRecorder(client, 'persistentvolume-controller', { aggregate: true });
      const provisionerEvents = new EventRecorder(client, simulatedProvisioner, { aggregate: true });
      const retryMs = opts.retryMs ?? 15_000;
      /** Volumes we created that the informer has not shown yet: they count against the capacity already. */
      const created = new Map<string, KubeObject>();
      /** The last "waiting" event recorded per claim, so that pod churn does not repeat it. */
      const lastWaiting = new Map<string, string>();

      const claimScope = (claim: KubeObject) => ({ cluster: clusterOf(claim), namespace: claim.metadata?.namespace });
      /** An Event about a claim. */
      const event = (recorder: EventRecorder, claim: KubeObject, type: EventType, reason: string, message: string) =>
        recorder.record(clusterOf(claim), { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: claim.metadata?.namespace, name: claim.metadata?.name ?? '', uid: claim.metadata?.uid }, type, reason, message);
      const waiting = async (claim: KubeObject, reason: string, message: string) => {
        const key = keyOf(claim);
        if (lastWaiting.get(key) === `${reason}/${message}`) return;
        lastWaiting.set(key, `${reason}/${message}`);
        await event(controllerEvents, claim, 'Normal', reason, message);
      };

      const classByName = (cluster: string, name: string) => classes.lister.get(formatObjectKey({ cluster, namespace: '', name }));
      const volumeByName = (cluster: string, name: string) => volumes.lister.get(formatObjectKey({ cluster, namespace: '', name })) ?? created.get(name);
      const volumesOf = (cluster: string) => {
        const listed = volumes.lister.list().filter((v) => clusterOf(v) === cluster);
        const names = new Set(listed.map((v) => v.metadata?.name));
        return [...listed, ...[...created.values()].filter((v) => !names.has(v.metadata?.name))];
      };
      const nodeLabels = (cluster: string, name: string): Record<string, string> =>
        nodes.lister.get(formatObjectKey({ cluster, namespace: '', name }))?.metadata?.labels ?? { 'kubernetes.io/hostname': name };

      /** Pods (not Succeeded or Failed) that use the claim; asks the server before concluding there are none. */
      const claimInUse = async (claim: KubeObject): Promise<boolean> => {
        const uses = (p: KubeObject) => p.metadata?.namespace === claim.metadata?.namespace && podUsesClaims(p) && podClaimNames(p).includes(claim.metadata?.name ?? '');
        if (pods.lister.list().some(uses)) return true;
        const live = await client.list<KubeObject>(podsGVR, claimScope(claim));
        return live.items.some((p) => uses({ ...p, metadata: { ...p.metadata, namespace: claim.metadata?.namespace } }));
      };

      const withoutFinalizer = (o: KubeObject, finalizer: string): KubeObject => {
        const next = deepCopy(o);
        const rest = (next.metadata?.finalizers ?? []).filter((f) => f !== finalizer);
        if (rest.length) next.metadata!.finalizers = rest;
        else delete next.metadata!.finalizers;
        return next;
      };

      /** Binds a claim and a volume both ways (bindVolumeToClaim, then bindClaimToVolume) and marks both Bound. */
      const bind = async (claim: KubeObject, pv: KubeObject): Promise<void> => {
        const cluster = clusterOf(claim);
        let volume = pv;
        const ref = isPlainObject(specOf(volume).claimRef) ? (specOf(volume).claimRef as JsonObject) : undefined;
        if (!ref || !ref.uid) {
          const next = deepCopy(volume);
          (next.spec as JsonObject).claimRef = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: claim.metadata?.namespace, name: claim.metadata?.name, uid: claim.metadata?.uid, resourceVersion: claim.metadata?.resourceVersion };
          next.metadata!.annotations = { ...(next.metadata?.annotations ?? {}), [boundByControllerAnnotation]: 'yes' };
          volume = await commit(client, persistentVolumesGVR, volume, next, { cluster });
        }
        if (phaseOf(volume) !== 'Bound') volume = await commit(client, persistentVolumesGVR, volume, { ...deepCopy(volume), status: { ...statusOf(volume), phase: 'Bound' } }, { cluster });
        const next = deepCopy(claim);
        const annotations: Record<string, string> = { ...(next.metadata?.annotations ?? {}), [bindCompletedAnnotation]: 'yes' };
        if (specOf(claim).volumeName !== volume.metadata?.name) {
          (next.spec as JsonObject).volumeName = volume.metadata?.name;
          annotations[boundByControllerAnnotation] = 'yes';
        }
        next.metadata!.annotations = annotations;
        next.status = boundClaimStatus(claim, volume);
        await commit(client, persistentVolumeClaimsGVR, claim, next, claimScope(claim));
        lastWaiting.delete(keyOf(claim));
      };

      const syncBoundClaim = async (claim: KubeObject, volumeName: string): Promise<ReconcileResult | void> => {
        const pv = volumeByName(clusterOf(claim), volumeName);
        if (!pv) {
          if (phaseOf(claim) === 'Bound') {
            await commit(client, persistentVolumeClaimsGVR, claim, { ...deepCopy(claim), status: { ...statusOf(claim), phase: 'Lost' } }, claimScope(claim));
            await event(controllerEvents, claim, 'Warning', 'ClaimLost', 'Bound claim has lost its PersistentVolume. Data on the volume is lost!');
          }
          return;
        }
        const ref = isPlainObject(specOf(pv).claimRef) ? (specOf(pv).claimRef as JsonObject) : undefined;
        if (ref && (ref.namespace !== claim.metadata?.namespace || ref.name !== claim.metadata?.name || (ref.uid && ref.uid !== claim.metadata?.uid))) {
          await waiting(claim, 'FailedBinding', `volume "${volumeName}" already bound to a different claim.`);
          return;
        }
        await bind(claim, pv);
      };

      const reconcileClaim = async (key: string): Promise<ReconcileResult | void> => {
        const claim = claims.lister.get(key);
        if (!claim) {
          lastWaiting.delete(key);
          return;
        }
        const cluster = clusterOf(claim);
        if (claim.metadata?.deletionTimestamp) {
          if ((claim.metadata.finalizers ?? []).includes(pvcProtectionFinalizer) && !(await claimInUse(claim))) {
            await client.update(persistentVolumeClaimsGVR, withoutFinalizer(claim, pvcProtectionFinalizer), claimScope(claim));
          }
          return;
        }
        if (!claimHasClass(claim)) {
          const def = newestDefault(classes.lister.list().filter((c) => clusterOf(c) === cluster), isDefaultStorageClass);
          if (def && !specOf(claim).volumeName) {
            const next = deepCopy(claim);
            (next.spec as JsonObject).storageClassName = def.metadata?.name;
            await client.update(persistentVolumeClaimsGVR, next, claimScope(claim));
            return;
          }
        }
        const volumeName = specOf(claim).volumeName;
        if (typeof volumeName === 'string' && volumeName !== '') return syncBoundClaim(claim, volumeName);

        const className = claimClassName(claim);
        const storageClass = className ? classByName(cluster, className) : undefined;
        const delayed = storageClass?.volumeBindingMode === 'WaitForFirstConsumer';
        const selectedNode = claim.metadata?.annotations?.[selectedNodeAnnotation];
        if (!delayed || selectedNode) {
          const node = selectedNode ? { name: selectedNode, labels: nodeLabels(cluster, selectedNode) } : undefined;
          const match = findMatchingVolume(claim, volumesOf(cluster), node);
          if (match) return bind(claim, match);
        }
        if (!className) {
          await waiting(claim, 'FailedBinding', 'no persistent volumes available for this claim and no storage class is set');
          return;
        }
        if (!storageClass) {
          await event(controllerEvents, claim, 'Warning', 'ProvisioningFailed', `storageclass.storage.k8s.io "${className}" not found`);
          return { requeueAfterMs: retryMs };
        }
        if (delayed && !selectedNode) {
          const waitingPods = pods.lister
            .list()
            .filter((p) => clusterOf(p) === cluster && p.metadata?.namespace === claim.metadata?.namespace && podUsesClaims(p) && !specOf(p).nodeName && podClaimNames(p).includes(claim.metadata?.name ?? ''))
            .map((p) => p.metadata?.name ?? '')
            .sort();
          if (waitingPods.length) await waiting(claim, 'WaitForPodScheduled', `waiting for pod ${waitingPods.join(',')} to be scheduled`);
          else await waiting(claim, 'WaitForFirstConsumer', 'waiting for first consumer to be created before binding');
          return;
        }

        const provisioner = String(storageClass.provisioner ?? '');
        let current = claim;
        const ann = current.metadata?.annotations ?? {};
        if (ann[storageProvisionerAnnotation] !== provisioner || ann[betaStorageProvisionerAnnotation] !== provisioner) {
          const next = deepCopy(current);
          next.metadata!.annotations = { ...ann, [storageProvisionerAnnotation]: provisioner, [betaStorageProvisionerAnnotation]: provisioner };
          current = await client.update(persistentVolumeClaimsGVR, next, claimScope(current));
        }
        if (provisioner !== simulatedProvisioner) {
          await waiting(
            current,
            'ExternalProvisioning',
            `Waiting for a volume to be created either by the external provisioner '${provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that your external provisioner is running and correctly registered.`,
          );
          return;
        }

        const pvName = provisionedVolumeName(current);
        const existing = volumeByName(cluster, pvName);
        if (existing) return bind(current, existing);
        const decision = provisionDecision(opts.capacityBytes, provisionedBytes(volumesOf(cluster)), claimRequestBytes(current));
        if (!decision.ok) {
          await event(provisionerEvents, current, 'Warning', 'ProvisioningFailed', `failed to provision volume with StorageClass "${className}": ${decision.message}`);
          if (delayed) {
            // Give the claim back to the scheduler, which will try again (maybe elsewhere, maybe after space was freed).
            const next = deepCopy(current);
            delete next.metadata!.annotations![selectedNodeAnnotation];
            await client.update(persistentVolumeClaimsGVR, next, claimScope(current));
            lastWaiting.delete(key);
            return;
          }
          return { requeueAfterMs: retryMs };
        }
        await event(provisionerEvents, current, 'Normal', 'Provisioning', `External provisioner is provisioning volume for claim "${current.metadata?.namespace}/${current.metadata?.name}"`);
        let pv: KubeObject;
        try {
          pv = await client.create(persistentVolumesGVR, provisionedVolume(current, storageClass, delayed ? selectedNode : undefined), { cluster });
        } catch (err) {
          if (!isConflict(err)) throw err;
          pv = await client.get(persistentVolumesGVR, pvName, { cluster });
        }
        created.set(pvName, pv);
        await event(provisionerEvents, current, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${pvName}`);
        await bind(current, pv);
      };

      const reconcileVolume = async (key: string): Promise<ReconcileResult | void> => {
        const pv = volumes.lister.get(key);
        if (!pv) return;
        const name = pv.metadata?.name ?? '';
        created.delete(name);
        const cluster = clusterOf(pv);
        if (pv.metadata?.deletionTimestamp) {
          if ((pv.metadata.finalizers ?? []).includes(pvProtectionFinalizer) && phaseOf(pv) !== 'Bound') {
            await client.update(persistentVolumesGVR, withoutFinalizer(pv, pvProtectionFinalizer), { cluster });
          }
          return;
        }
        const setPhase = (phase: string) => commit(client, persistentVolumesGVR, pv, { ...deepCopy(pv), status: { ...statusOf(pv), phase } }, { cluster });
        const ref = isPlainObject(specOf(pv).claimRef) ? (specOf(pv).claimRef as JsonObject) : undefined;
        if (!ref || !ref.uid) {
          // Unclaimed, or pre-bound by its author to a claim that will bind to it.
          if (phaseOf(pv) !== 'Available') await setPhase('Available');
          if (ref) claimsController.enqueue(formatObjectKey({ cluster, namespace: String(ref.namespace ?? ''), name: String(ref.name ?? '') }));
          return;
        }
        const claimKey = formatObjectKey({ cluster, namespace: String(ref.namespace ?? ''), name: String(ref.name ?? '') });
        let claim = claims.lister.get(claimKey);
        if (!claim || claim.metadata?.uid !== ref.uid) {
          // The cache may lag: make sure the claim is really gone before releasing its volume.
          try {
            claim = await client.get<KubeObject>(persistentVolumeClaimsGVR, String(ref.name), { cluster, namespace: String(ref.namespace) });
          } catch (err) {
            if (!isNotFound(err)) throw err;
            claim = undefined;
          }
        }
        if (claim && claim.metadata?.uid === ref.uid) {
          if (specOf(claim).volumeName === name && phaseOf(pv) !== 'Bound') await setPhase('Bound');
          else if (specOf(claim).volumeName !== name) claimsController.enqueue(claimKey);
          return;
        }
        // Its claim is gone: the volume is released, then reclaimed.
        if (phaseOf(pv) !== 'Released' && phaseOf(pv) !== 'Failed') {
          await setPhase('Released');
          return;
        }
        const policy = specOf(pv).persistentVolumeReclaimPolicy;
        if (policy === 'Delete' && pv.metadata?.annotations?.[provisionedByAnnotation] === simulatedProvisioner && phaseOf(pv) === 'Released') {
          try {
            await client.delete(persistentVolumesGVR, name, { cluster });
          } catch (err) {
            if (!isNotFound(err)) throw err;
          }
        }
      };

      const claimsController = new Controller<string>({ name: 'persistentvolume-claims', reconcile: reconcileClaim, workers: 1, rateLimiter: { baseDelayMs: 20, maxDelayMs: 5_000 } });
      const volumesController = new Controller<string>({ name: 'persistentvolume-volumes', reconcile: reconcileVolume, workers: 1, rateLimiter: { baseDelayMs: 20, maxDelayMs: 5_000 } });
      const enqueueClaim = (claim: KubeObject) => claimsController.enqueue(keyOf(claim));
      const enqueueVolume = (pv: KubeObject) => volumesController.enqueue(keyOf(pv));
      const enqueueClaimOfVolume = (pv: KubeObject) => {
        const ref = specOf(pv).claimRef;
        if (isPlainObject(ref)) claimsController.enqueue(formatObjectKey({ cluster: clusterOf(pv), namespace: String(ref.namespace ?? ''), name: String(ref.name ?? '') }));
      };
      const enqueueClaimsOfPod = (pod: KubeObject) => {
        for (const name of podClaimNames(pod)) claimsController.enqueue(formatObjectKey({ cluster: clusterOf(pod), namespace: pod.metadata?.namespace ?? '', name }));
      };
      claims.addEventHandler({
        add: enqueueClaim,
        update: (_o, n) => enqueueClaim(n),
        delete: (claim) => {
          lastWaiting.delete(keyOf(claim));
          const cluster = clusterOf(claim);
          for (const pv of volumes.lister.list()) {
            const ref = specOf(pv).claimRef;
            if (clusterOf(pv) === cluster && isPlainObject(ref) && ref.namespace === claim.metadata?.namespace && ref.name === claim.metadata?.name) enqueueVolume(pv);
          }
        },
      });
      /** Claims not bound yet (pre-bound ones too): a volume that appeared, became Available or freed space may be theirs. */
      const enqueueUnboundClaims = () => {
        for (const claim of claims.lister.list()) if (phaseOf(claim) !== 'Bound' && !claim.metadata?.deletionTimestamp) enqueueClaim(claim);
      };
      volumes.addEventHandler({
        add: (pv) => {
          enqueueVolume(pv);
          enqueueClaimOfVolume(pv);
          if (!specOf(pv).claimRef) enqueueUnboundClaims();
        },
        update: (o, n) => {
          enqueueVolume(n);
          if (!jsonEqual(o.spec, n.spec) || phaseOf(o) !== phaseOf(n)) enqueueClaimOfVolume(n);
          if (phaseOf(n) === 'Available' && phaseOf(o) !== 'Available') enqueueUnboundClaims();
        },
        delete: (pv) => {
          created.delete(pv.metadata?.name ?? '');
          enqueueClaimOfVolume(pv);
          // Space was freed: claims waiting for room get another chance.
          enqueueUnboundClaims();
        },
      });
      classes.addEventHandler({ add: enqueueUnboundClaims, update: enqueueUnboundClaims });
      pods.addEventHandler({
        add: enqueueClaimsOfPod,
        update: (o, n) => {
          if (specOf(o).nodeName !== specOf(n).nodeName || phaseOf(o) !== phaseOf(n)) enqueueClaimsOfPod(n);
        },
        delete: enqueueClaimsOfPod,
      });
      return {
        name: 'persistentvolume',
        start() {
          claimsController.start();
          volumesController.start();
        },
        async stop() {
          await Promise.all([claimsController.stop(), volumesController.stop()]);
        },
      };
    },
  };
}
