/**
 * What the write handlers hand admission besides the object: the request's options as the Kubernetes object admission
 * webhooks see (AdmissionRequest.options), and the validating phase as the store's hook (rest.ValidateObjectFunc).
 */
import type { KubeObject } from '../../apimachinery/object.js';
import { managedFieldsProblem } from '../../patch/apply/managed-fields.js';
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

/**
 * Mutating admission of `attrs` (its object is replaced by what admission returns), keeping managedFields valid as
 * upstream's ManagedFieldsValidatingAdmissionController does: admission ran after the field manager recorded the write,
 * and managedFields it leaves undecodable go back to what they were before it, with a warning.
 */
export async function admitKeepingManagedFields(r: RequestTarget, attrs: AdmissionAttributes): Promise<KubeObject> {
  const before = attrs.object?.metadata?.managedFields;
  await r.admission.admit(attrs);
  const obj = attrs.object!;
  const after = obj.metadata?.managedFields;
  if (after !== before) {
    const problem = managedFieldsProblem(after);
    if (problem !== undefined) {
      if (before === undefined) delete obj.metadata!.managedFields;
      else obj.metadata!.managedFields = before;
      attrs.warnings?.push(`.metadata.managedFields was in an invalid state after admission; this could be caused by an outdated mutating admission controller; please fix your requests: ${problem}`);
    }
  }
  return obj;
}
