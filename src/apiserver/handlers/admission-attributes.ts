/**
 * What the write handlers hand admission besides the object: the request's options as the Kubernetes object admission
 * webhooks see (AdmissionRequest.options), and the validating phase as the store's hook (rest.ValidateObjectFunc).
 */
import type { KubeObject } from '../../apimachinery/object.js';
import type { AdmissionAttributes } from '../admission/admission.js';
import type { RequestTarget } from './parsed-request.js';

/** meta.k8s.io/v1 CreateOptions, UpdateOptions or DeleteOptions as upstream's handlers pass them to admission. */
export function optionsObject(kind: 'CreateOptions' | 'UpdateOptions' | 'DeleteOptions', o: { dryRun: boolean; fieldManager?: string; fieldValidation?: string; extra?: Record<string, unknown> }): Record<string, unknown> {
  const out: Record<string, unknown> = { kind, apiVersion: 'meta.k8s.io/v1' };
  if (o.dryRun) out.dryRun = ['All'];
  if (o.fieldManager) out.fieldManager = o.fieldManager;
  if (o.fieldValidation) out.fieldValidation = o.fieldValidation;
  Object.assign(out, o.extra ?? {});
  return out;
}

/**
 * The store's validating-admission hook for a write whose mutating phase ran with `attrs`, or undefined when no
 * plugin validates. A write that turns out to create (PUT or apply of a missing object) is validated as a CREATE.
 */
export function validateWrite(r: RequestTarget, attrs: AdmissionAttributes): ((obj: KubeObject, old: KubeObject | null) => Promise<void>) | undefined {
  if (!r.admission.validates) return undefined;
  return (obj, old) =>
    r.admission.validate({
      ...attrs,
      operation: old ? attrs.operation : 'CREATE',
      name: obj.metadata?.name ?? attrs.name,
      object: obj,
      oldObject: old ?? undefined,
    });
}

/** The validating hook of a DELETE: the object being deleted is the old object. */
export function validateDelete(r: RequestTarget, attrs: AdmissionAttributes): ((old: KubeObject) => Promise<void>) | undefined {
  if (!r.admission.validates) return undefined;
  return (old) => r.admission.validate({ ...attrs, name: old.metadata?.name ?? attrs.name, oldObject: old });
}
