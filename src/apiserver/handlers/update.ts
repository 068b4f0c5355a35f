import { metaOf } from '../../apimachinery/object.js';
import { errors } from '../../apimachinery/status.js';
import { addWarnings } from '../http/response.js';
import { decodeObject } from './decode-object.js';
import { dedupOwnerReferences } from './dedup-owner-references.js';
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
  await r.admission.admit({ operation: 'UPDATE', ctx: r.ctx, def, namespace: r.namespace, name: r.name, object: obj, subresource: r.subresource, dryRun });
  warnings.push(...dedupOwnerReferences(obj, true));
  const { object, created } = await r.store.update(r.ctx, r.namespace, r.name, obj, { dryRun, fieldManager }, r.subresource);
  addWarnings(r.res, warnings);
  writeObject(r.res, created ? 201 : 200, subresourceView(r, object), r.output, def);
}
