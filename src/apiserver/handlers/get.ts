import { type ParsedRequest, subresourceView } from './parsed-request.js';
import { writeList, writeObject } from './render.js';

/** GET of one object or subresource (k8s.io/apiserver handlers/get.go GetResource). */
export async function handleGet(r: ParsedRequest<'get'>): Promise<void> {
  const obj = await r.store.get(r.ctx, r.namespace, r.name, r.options.resourceVersion);
  writeObject(r.res, 200, subresourceView(r, obj), r.output, r.def);
}

/** GET of a collection (get.go ListResource), across every logical cluster for a wildcard request. */
export async function handleList(r: ParsedRequest<'list'>): Promise<void> {
  // The handler only serialises the items, so unchanged objects (and their encodings) come from the shared read cache.
  const result = await r.store.list(r.ctx, r.namespace, { ...r.options, sharedItems: true }, r.info.wildcardCluster);
  writeList(r.res, result.items, result, r.output, r.def, result.shared === true);
}
