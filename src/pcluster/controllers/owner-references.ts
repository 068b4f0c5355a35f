/** Controller owner references (metav1.GetControllerOf / NewControllerRef). */
import type { JsonObject, KubeObject } from '../../apimachinery/object.js';

/** The ownerReference with controller=true, if any. */
export function controllerOf(obj: KubeObject): JsonObject | undefined {
  return (obj.metadata?.ownerReferences ?? []).find((r) => r.controller === true);
}

/** Whether `obj` is controlled by the object with this uid. */
export function isControlledBy(obj: KubeObject, ownerUid: string | undefined): boolean {
  return ownerUid !== undefined && controllerOf(obj)?.uid === ownerUid;
}

/** A controller reference to `owner` that also blocks the owner's foreground deletion until the dependent is gone. */
export function controllerRef(owner: KubeObject, apiVersion: string, kind: string): JsonObject {
  return { apiVersion, kind, name: owner.metadata?.name ?? '', uid: owner.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true };
}
