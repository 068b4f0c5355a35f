import { type KubeObject, metaOf } from '../../apimachinery/object.js';
import { errors } from '../../apimachinery/status.js';
import { addWarnings } from '../http/response.js';
import { decodeObject } from './decode-object.js';
import { dedupOwnerReferences } from './dedup-owner-references.js';
import { admitKeepingManagedFields, optionsObject, validateWrite } from './admission-attributes.js';
import type { AdmissionAttributes } from '../admission/admission.js';
import { type ParsedRequest, subresourceView } from './parsed-request.js';
import { writeObject } from './render.js';

/** PUT of an object or subresource (k8s.io/apiserver handlers/update.go); creates it where the strategy allows. */
export async function handleUpdate(r: ParsedRequest<'update'>): Promise<void> {
  const def = r.def;
  const { dryRun, fieldManager } = r.options;
  const { obj, warnings } = await decodeObject(r, r.options);
  const meta = metaOf(obj);
  if (meta.name !== undefined && meta.name !== r.name) {
    throw errors.badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${r.name})`);
  }
  if (def.namespaced && meta.namespace && meta.namespace !== r.namespace) {
    throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  warnings.push(...dedupOwnerReferences(obj, false));
  // Mutating admission of a PUT sees the stored object as oldObject (upstream admits inside the store's update).
  const attrs: AdmissionAttributes = {
    operation: 'UPDATE', ctx: r.ctx, def, namespace: r.namespace, name: r.name, object: obj, subresource: r.subresource, dryRun, warnings,
    options: optionsObject('UpdateOptions', { dryRun, fieldManager, fieldValidation: r.options.fieldValidation }),
  };
  const admitUpdate = async (desired: KubeObject, current: KubeObject | null): Promise<KubeObject> => {
    attrs.operation = current ? 'UPDATE' : 'CREATE';
    attrs.object = desired;
    attrs.oldObject = current ? subresourceView(r, current) : undefined;
    if (current) attrs.options = optionsObject('UpdateOptions', { dryRun, fieldManager, fieldValidation: r.options.fieldValidation });
    else attrs.options = optionsObject('CreateOptions', { dryRun, fieldManager, fieldValidation: r.options.fieldValidation });
    const admitted = await admitKeepingManagedFields(r, attrs);
    dedupWarnings = dedupOwnerReferences(admitted, true);
    return admitted;
  };
  let dedupWarnings: string[] = [];
  // The kind's own warnings for the write (WarningsOnUpdate, or WarningsOnCreate when the PUT creates), from the store.
  const strategyWarnings: string[] = [];
  let result: { object: KubeObject; created: boolean };
  try {
    // A main-resource PUT is admitted in the store once managedFields record it (upstream's transformers: the field
    // manager's, then admission's); a subresource's view is admitted as it comes, before the store maps it onto the
    // object (atrium records a subresource write's managedFields on the mapped result).
    const admission = r.subresource ? { admitUpdate } : { admit: admitUpdate };
    result = await r.store.update(r.ctx, r.namespace, r.name, obj, { dryRun, fieldManager, warnings: strategyWarnings, ...admission, validateAdmission: validateWrite(r, attrs) }, r.subresource);
  } catch (err) {
    // Warnings recorded before a failure (a webhook's, say) go out with the error, as upstream's recorder sends them.
    addWarnings(r.res, warnings);
    throw err;
  }
  const { object, created } = result;
  warnings.push(...dedupWarnings, ...strategyWarnings);
  addWarnings(r.res, warnings);
  writeObject(r.res, created ? 201 : 200, subresourceView(r, object), r.output, def);
}
