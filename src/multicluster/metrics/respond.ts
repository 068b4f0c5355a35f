/**
 * Answering reads gathered from several clusters as one API would: objects or Tables as the client asks, and a
 * cluster that could not be reached left out of a list with a warning (kubectl prints it) and a log line — the
 * aggregated API's answer is still the rest of the workspace, as kube-apiserver's aggregated discovery leaves out an
 * unavailable APIService rather than failing. A get whose one cluster cannot be reached is 503, as the aggregator
 * answers for an unavailable APIService.
 */
import type { KubeObject } from '../../apimachinery/object.js';
import { errors } from '../../apimachinery/status.js';
import type { ConnectRequest } from '../../apiserver/connect.js';
import { writeList, writeObject } from '../../apiserver/handlers/render.js';
import { addWarnings } from '../../apiserver/http/response.js';
import { negotiateObjectOutput } from '../../apiserver/http/negotiation.js';
import { logger } from '../../logging/logger.js';
import type { ResourceDefinition } from '../../registry/rest.js';

/** A cluster whose part of a list is missing, and why. */
export interface Unreachable {
  syncTarget: string;
  why: string;
}

export function requireRead(r: ConnectRequest): void {
  if (r.info.verb !== 'get' && r.info.verb !== 'list') throw errors.methodNotSupported({ group: r.info.apiGroup, resource: r.info.resource }, r.info.verb);
}

export function respondObject(r: ConnectRequest, def: ResourceDefinition, obj: KubeObject): void {
  writeObject(r.res, 200, obj, negotiateObjectOutput(r.req.headers.accept, r.query.get('includeObject'), true), def);
}

/** Writes the merged list; unreachable clusters become warnings and log lines. */
export function respondList(r: ConnectRequest, def: ResourceDefinition, items: KubeObject[], unreachable: Unreachable[], resourceVersion = ''): void {
  const resource = def.group ? `${def.resource}.${def.group}` : def.resource;
  for (const u of unreachable) logger.warn('workspace view: a cluster could not be read', { resource, cluster: r.ctx.cluster, syncTarget: u.syncTarget, error: u.why });
  addWarnings(r.res, unreachable.map((u) => `${resource} of SyncTarget ${u.syncTarget} are left out: ${u.why}`));
  // Items from several clusters share no resourceVersion; an empty one says there is none to resume from (a list
  // with stored items carries the store's, from which a watch of those resumes).
  writeList(r.res, items, { resourceVersion }, negotiateObjectOutput(r.req.headers.accept, r.query.get('includeObject'), true), def);
}

/** The 503 of a get whose cluster could not be reached. */
export function unavailable(why: string): Error {
  return errors.serviceUnavailable(why);
}
