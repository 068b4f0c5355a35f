/**
 * What a controller does with the objects its selector could cover (upstream's ControllerRefManager.ClaimObject), so
 * that ownership follows labels as on a real cluster:
 *
 * - its own object that its selector still matches: kept;
 * - its own object the selector no longer matches: RELEASED (its controller reference removed) unless the controller
 *   is being deleted — relabelling a pod out of its ReplicaSet (`kubectl label pod x app-`) takes it out of the set,
 *   and the set makes a replacement;
 * - an orphan (no controller reference) in its namespace that the selector matches and that is not being deleted:
 *   ADOPTED (a controller reference to it added) unless the controller is being deleted;
 * - anything another controller owns: left alone.
 *
 * Adopting and releasing are strategic merge patches of metadata.ownerReferences carrying the object's uid as a
 * precondition, as upstream's pod and ReplicaSet controls send them. Adoption first re-reads the controller (upstream's
 * RecheckDeletionTimestamp): one being deleted adopts nothing.
 */
import type { JsonObject, KubeObject } from '../../apimachinery/object.js';
import type { LabelSelector } from '../../apimachinery/labels/selector.js';
import { StatusError } from '../../apimachinery/status.js';
import type { GroupVersionResource } from '../../client/resource.js';
import type { RestClient } from '../../client/rest-client.js';
import { controllerOf, controllerRef } from './owner-references.js';

export type Claim = 'own' | 'adopt' | 'release' | 'ignore';

/** ClaimObject's decision for `obj` by `controller` (pure). */
export function claimOf(controller: KubeObject, obj: KubeObject, selector: LabelSelector): Claim {
  const ref = controllerOf(obj);
  const matches = selector.matches(obj.metadata?.labels ?? {});
  if (ref !== undefined) {
    if (ref.uid !== controller.metadata?.uid) return 'ignore';
    if (matches) return 'own';
    return controller.metadata?.deletionTimestamp ? 'ignore' : 'release';
  }
  if (controller.metadata?.deletionTimestamp || !matches || obj.metadata?.deletionTimestamp) return 'ignore';
  if (obj.metadata?.namespace !== controller.metadata?.namespace) return 'ignore';
  return 'adopt';
}

export interface ClaimTarget {
  client: RestClient;
  /** The controlled objects' resource (pods, replicasets). */
  gvr: GroupVersionResource;
  /** The controller's own resource, to re-read it before adopting. */
  controllerGVR: GroupVersionResource;
  /** The controller's apiVersion and kind, for the controller reference. */
  apiVersion: string;
  kind: string;
  /** A finalizer adopted objects get and released ones lose (a Job's batch.kubernetes.io/job-tracking). */
  finalizer?: string;
}

/**
 * ClaimObjects: of `candidates` (the controller's namespace's objects), those the controller owns once adoptions and
 * releases are done — its own that still match, plus the orphans it adopted. An object gone meanwhile (404) is
 * simply not claimed; other errors are thrown after every claim was tried.
 */
export async function claimObjects(t: ClaimTarget, controller: KubeObject, selector: LabelSelector, candidates: readonly KubeObject[]): Promise<KubeObject[]> {
  const claimed: KubeObject[] = [];
  let canAdopt: Promise<boolean> | undefined;
  let failure: unknown;
  const namespace = controller.metadata?.namespace;
  for (const obj of candidates) {
    const claim = claimOf(controller, obj, selector);
    if (claim === 'own') claimed.push(obj);
    if (claim !== 'adopt' && claim !== 'release') continue;
    try {
      if (claim === 'adopt') {
        canAdopt ??= stillAdopting(t, controller);
        if (!(await canAdopt)) continue;
        const ref = controllerRef(controller, t.apiVersion, t.kind);
        const metadata: JsonObject = { ownerReferences: [ref], uid: obj.metadata?.uid };
        if (t.finalizer) metadata.finalizers = [t.finalizer];
        claimed.push(await t.client.patch(t.gvr, obj.metadata!.name!, 'strategic', { metadata }, { namespace }));
      } else {
        const metadata: JsonObject = { ownerReferences: [{ $patch: 'delete', uid: controller.metadata?.uid }], uid: obj.metadata?.uid };
        if (t.finalizer) metadata['$deleteFromPrimitiveList/finalizers'] = [t.finalizer];
        await t.client.patch(t.gvr, obj.metadata!.name!, 'strategic', { metadata }, { namespace });
      }
    } catch (err) {
      if (err instanceof StatusError && (err.code === 404 || err.code === 409 || err.code === 422)) continue;
      failure ??= err;
    }
  }
  if (failure !== undefined) throw failure;
  return claimed;
}

/** RecheckDeletionTimestamp: the controller read afresh is the same object and not being deleted. */
async function stillAdopting(t: ClaimTarget, controller: KubeObject): Promise<boolean> {
  try {
    const fresh = await t.client.get(t.controllerGVR, controller.metadata!.name!, { namespace: controller.metadata?.namespace });
    return fresh.metadata?.uid === controller.metadata?.uid && !fresh.metadata?.deletionTimestamp;
  } catch (err) {
    if (err instanceof StatusError && err.code === 404) return false;
    throw err;
  }
}
