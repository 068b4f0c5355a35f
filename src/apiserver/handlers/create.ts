import { groupVersionString } from '../../apimachinery/api-resource.js';
import { type KubeObject, metaOf } from '../../apimachinery/object.js';
import { errors } from '../../apimachinery/status.js';
import { decodeBody, readBody } from '../http/body.js';
import { addWarnings } from '../http/response.js';
import { checkTypeMeta, decodeObject } from './decode-object.js';
import { dedupOwnerReferences } from './dedup-owner-references.js';
import { admitKeepingManagedFields, optionsObject, validateWrite } from './admission-attributes.js';
import type { AdmissionAttributes } from '../admission/admission.js';
import type { ParsedRequest } from './parsed-request.js';
import { writeObject } from './render.js';

/** POST to a collection (k8s.io/apiserver handlers/create.go): decode, admit, store, 201. */
export async function handleCreate(r: ParsedRequest<'create'>): Promise<void> {
  const def = r.def;
  const { dryRun, fieldManager } = r.options;
  const { obj, warnings } = await decodeObject(r, r.options);
  const meta = metaOf(obj);
  // The system fields a client may not set go before admission and field management see the object (upstream's
  // rest.WipeObjectMetaSystemFields in the create handler), so a sent deletionTimestamp is owned by no manager.
  delete meta.creationTimestamp;
  delete meta.uid;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.selfLink;
  if (def.namespaced) {
    if (meta.namespace && meta.namespace !== r.namespace) {
      throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    meta.namespace = r.namespace;
  }
  warnings.push(...dedupOwnerReferences(obj, false));
  const attrs: AdmissionAttributes = {
    operation: 'CREATE', ctx: r.ctx, def, namespace: r.namespace, name: meta.name ?? '', object: obj, dryRun, warnings,
    options: optionsObject('CreateOptions', { dryRun, fieldManager, fieldValidation: r.options.fieldValidation }),
  };
  let created: KubeObject;
  // The kind's own warnings (WarningsOnCreate), added by the store once the object validated.
  const strategyWarnings: string[] = [];
  // Mutating admission runs in the store once managedFields record the create (as upstream's handler updates them
  // before admitting), so what admission adds is owned by no manager.
  const admit = async (obj: KubeObject): Promise<KubeObject> => {
    attrs.object = obj;
    const admitted = await admitKeepingManagedFields(r, attrs);
    warnings.push(...dedupOwnerReferences(admitted, true));
    return admitted;
  };
  try {
    // The decoded body is this request's own: the store may write into it.
    created = await r.store.create(r.ctx, r.namespace, obj, { dryRun, fieldManager, inputHandedOver: true, rejectResourceVersion: true, admit, validateAdmission: validateWrite(r, attrs), warnings: strategyWarnings });
  } catch (err) {
    // Warnings recorded before a failure (a webhook's, say) go out with the error, as upstream's recorder sends them.
    addWarnings(r.res, warnings);
    throw err;
  }
  addWarnings(r.res, [...warnings, ...strategyWarnings]);
  writeObject(r.res, 201, created, r.output, def);
}

/** A create answered by code (access/token reviews, serviceaccounts/token): decode as the expected kind, compute, 201. */
export async function handleComputedCreate(r: ParsedRequest<'computed-create'>): Promise<void> {
  const def = r.def;
  const sub = r.subresource ? def.subresources.find((s) => s.name === r.subresource) : undefined;
  const kind = sub?.kind ?? def.kind;
  const version = sub?.version ?? def.version;
  const gv = sub ? groupVersionString(sub.group ?? def.group, version) : groupVersionString(def.group, def.version);
  const decoded = decodeBody(await readBody(r.req), r.contentType, { kind, version });
  const obj = decoded.object as KubeObject;
  checkTypeMeta(obj, kind, gv);
  const { compute, dryRun } = r.options;
  let result: KubeObject;
  if (compute.admitted) {
    // As upstream's create handler: mutating admission of the subresource's CREATE, then the call, which runs the
    // validating phase where its REST storage calls createValidation.
    const warnings: string[] = [];
    const attrs: AdmissionAttributes = {
      operation: 'CREATE', ctx: r.ctx, def, namespace: r.namespace, name: r.name, object: obj, subresource: r.subresource, dryRun, warnings,
      options: optionsObject('CreateOptions', { dryRun }),
    };
    try {
      await r.admission.admit(attrs);
      const validate = r.admission.validates ? (o: KubeObject) => r.admission.validate({ ...attrs, object: o }) : undefined;
      result = await compute(r.ctx, { namespace: r.namespace, name: r.name, subresource: r.subresource, object: attrs.object!, dryRun, ...(validate ? { validate } : {}) });
    } catch (err) {
      addWarnings(r.res, warnings);
      throw err;
    }
    addWarnings(r.res, warnings);
  } else {
    result = await compute(r.ctx, { namespace: r.namespace, name: r.name, subresource: r.subresource, object: obj });
  }
  // A Status answer carries its own code (upstream's create handler fills 201 only into a Status without one).
  const code = result.kind === 'Status' && typeof (result as { code?: unknown }).code === 'number' ? ((result as { code: number }).code) : 201;
  writeObject(r.res, code, result, r.output, def);
}
