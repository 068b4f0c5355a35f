import { errors } from '../../apimachinery/status.js';
import { addWarnings } from '../http/response.js';
import { handleApply } from './apply.js';
import { handleComputedCreate, handleCreate } from './create.js';
import { handleDelete, handleDeleteCollection } from './delete.js';
import { handleGet, handleList } from './get.js';
import { parseRequest, type ResourceRequest } from './parsed-request.js';
import { handlePatch } from './patch.js';
import { handleUpdate } from './update.js';
import { serveWatch } from './watch.js';

/** Dispatches a resource request to its verb (k8s.io/apiserver pkg/endpoints/handlers). */
export async function handleResource(r: ResourceRequest): Promise<void> {
  const { info, store } = r;
  const def = store.def;
  if (info.subresource && !def.subresources.some((s) => s.name === info.subresource)) throw errors.notFoundPath();
  // A subresource answered by code (pods/eviction, pods/binding, serviceaccounts/token) has a POST route only
  // upstream: any other method is go-restful's 405 (pods/binding's store strategy is for that create alone).
  if (info.subresource && def.computedCreates?.[info.subresource] && info.verb !== 'create') throw errors.methodNotAllowed();
  // A terminating CRD's reduced verb list is for discovery only; its objects keep every verb but create (below).
  if (!def.terminating && !def.verbs.includes(info.verb) && !(info.subresource && ['get', 'update', 'patch'].includes(info.verb))) {
    // Upstream registers no route for a verb the storage does not implement (e.g. deletecollection on namespaces),
    // so go-restful answers with its generic 405 rather than NewMethodNotSupported.
    throw errors.methodNotAllowed();
  }
  // The routes upstream's installer registers (endpoints/installer.go registerResourceHandlers): a namespaced
  // resource's all-namespaces path takes only list and watch; a collection takes no PUT or PATCH; an item takes no
  // POST. Other methods find no route: go-restful's 405. (A deletecollection across all namespaces must never run.)
  if (def.namespaced && !info.namespace) {
    if (info.name) throw errors.notFoundPath();
    if (info.verb !== 'list' && info.verb !== 'watch') throw errors.methodNotAllowed();
  }
  if (!info.name && (info.verb === 'update' || info.verb === 'patch')) throw errors.methodNotAllowed();
  if (info.name && !info.subresource && info.verb === 'create') throw errors.methodNotAllowed();
  if (def.terminating && info.verb === 'create' && !info.subresource) {
    // customresource_handler.go serveResource: NewMethodNotSupported with its message replaced.
    const err = errors.methodNotSupported({ group: def.group, resource: def.resource }, info.verb);
    err.status.message = `${info.verb} not allowed while custom resource definition is terminating`;
    throw err;
  }
  if (def.deprecationWarning) addWarnings(r.res, [def.deprecationWarning]);
  // Only creates answered by code (serviceaccounts/token) and no deletes are served on a subresource.
  if (info.subresource && ((info.verb === 'create' && !def.computedCreates?.[info.subresource]) || info.verb === 'delete')) {
    throw errors.methodNotSupported({ group: def.group, resource: `${def.resource}/${info.subresource}` }, info.verb);
  }
  const parsed = parseRequest(r);
  switch (parsed.verb) {
    case 'get':
      return handleGet(parsed);
    case 'list':
      return handleList(parsed);
    case 'watch':
      return serveWatch(parsed);
    case 'create':
      return handleCreate(parsed);
    case 'computed-create':
      return handleComputedCreate(parsed);
    case 'update':
      return handleUpdate(parsed);
    case 'patch':
      return handlePatch(parsed);
    case 'apply':
      return handleApply(parsed);
    case 'delete':
      return handleDelete(parsed);
    case 'deletecollection':
      return handleDeleteCollection(parsed);
  }
}
