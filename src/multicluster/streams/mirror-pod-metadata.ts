/**
 * Labels and annotations of a MIRROR pod in a workspace (`kubectl label pod`, `kubectl annotate pod`): a mirror only
 * records a pod of a cluster, so the change is made to that pod, its original, and shows in the mirror from there.
 * Relabelling a pod out of its controller's selector (the familiar way to take a misbehaving pod out of a Service and
 * have its ReplicaSet replace it, to debug it in place) works as on one cluster: the cluster's controller releases the
 * original and makes a replacement, and the released pod stays visible in the workspace, without an owner
 * (syncer/workspace-mirrors.ts), until it is deleted.
 *
 * Taken: a PATCH of a mirror pod itself (JSON merge, strategic merge or JSON patch) that changes nothing but
 * metadata.labels and metadata.annotations, keys the mirror's bookkeeping (`scheduling.atrium.io/…`,
 * `internal.workload.kcp.io/…`) excepted; a resourceVersion or uid in the patch is a precondition on the mirror. A PUT
 * (client-go's Update of a pod as read, relabelled) that changes nothing else goes as the merge patch it amounts to,
 * its resourceVersion and uid preconditions on the mirror; such a PUT may also leave the owner references out, which
 * orphans the original (its cluster's controller adopts it again while its labels match, and the mirror follows).
 * Anything else is served as before by the generic store (ReadOnlyMirrors refuses other writers than syncers; the
 * garbage collector's ownerReferences patch of a mirror, for one, stays on the mirror), the body this handler read
 * handed back to it (keepBody).
 *
 * The request was authorized in the workspace (`patch` on pods) by the filter chain; the cluster decodes, admits and
 * validates the patch against the original, and a refusal is its Status with the pod named as in the workspace. On
 * success the labels and annotations the patch named are written to the mirror at once (below admission: the
 * request's own effect, as for ephemeral containers) and the answer is the mirror; the syncer's mirror writer
 * records the same from the original moments later. A dry run is the cluster's, and writes nothing here.
 */
import { deepCopy, isPlainObject, jsonEqual, type KubeObject } from '../../apimachinery/object.js';
import { errors, StatusError } from '../../apimachinery/status.js';
import { SYSTEM_MASTERS } from '../../apimachinery/user.js';
import type { ConnectHandler, ConnectRequest } from '../../apiserver/connect.js';
import { decodeBody, keepBody, readBody } from '../../apiserver/http/body.js';
import { negotiateObjectOutput } from '../../apiserver/http/negotiation.js';
import { servesProtobuf, writeObject } from '../../apiserver/handlers/render.js';
import { logger } from '../../logging/logger.js';
import type { ResourceRegistry } from '../../registry/resource-registry.js';
import { isMirror, MIRROR_HASH_ANNOTATION } from '../api/mirrors.js';
import type { DownstreamDialer } from './downstream-dialer.js';
import { upstreamStatus } from './mirror-ephemeral-containers.js';
import { requestOriginal } from './original-pod-request.js';
import { PodLocator } from './pod-location.js';

/** How long the cluster may take to answer the patch. */
const PATCH_TIMEOUT_MS = 30_000;

const podsGR = { group: '', resource: 'pods' };

const PATCH_TYPES = new Set(['application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/json-patch+json']);

/** Who writes the labels onto the mirror (an internal write: no authorization, no admission). */
const mirrorWriter = (cluster: string) => ({ cluster, user: { username: 'system:atrium:mirror-pod-metadata', groups: [SYSTEM_MASTERS] } });

/** The metadata keys a patch names: labels and annotations (null: all of them), and the preconditions it carries. */
export interface MetadataPatch {
  labels: string[] | null;
  annotations: string[] | null;
  /** The PUT left the owner references out (client-go's `pod.OwnerReferences = nil`): the original is orphaned too. */
  orphan?: boolean;
  resourceVersion?: string;
  uid?: string;
}

/** Keys of a mirror's own bookkeeping, never a user's to change. */
export function isBookkeepingKey(key: string): boolean {
  return key.startsWith('scheduling.atrium.io/') || key.startsWith('internal.workload.kcp.io/');
}

/**
 * What a patch body changes, when it changes metadata.labels and metadata.annotations only (undefined otherwise, or
 * when it names a bookkeeping key): for merge and strategic merge patches the keys of those two maps (a map set to
 * null: all of it), for a JSON patch the keys its operations' paths name (`test` operations anywhere are fine).
 */
export function metadataOnlyPatch(contentType: string, body: unknown): MetadataPatch | undefined {
  const out: MetadataPatch = { labels: [], annotations: [] };
  const add = (map: 'labels' | 'annotations', key: string | null): boolean => {
    if (key === null) out[map] = null;
    else if (isBookkeepingKey(key)) return false;
    else if (out[map] !== null) out[map]!.push(key);
    return true;
  };
  if (contentType === 'application/json-patch+json') {
    if (!Array.isArray(body) || body.length === 0) return undefined;
    for (const op of body) {
      if (!isPlainObject(op) || typeof op.path !== 'string') return undefined;
      if (op.op === 'test') continue;
      const m = /^\/metadata\/(labels|annotations)(?:\/(.+))?$/.exec(op.path);
      if (!m || (op.op === 'move' || op.op === 'copy')) return undefined;
      const key = m[2] === undefined ? null : m[2].replace(/~1/g, '/').replace(/~0/g, '~');
      if (key === null && isPlainObject(op.value) && Object.keys(op.value).some(isBookkeepingKey)) return undefined;
      if (!add(m[1] as 'labels' | 'annotations', key)) return undefined;
    }
    return out;
  }
  if (!isPlainObject(body)) return undefined;
  for (const [k, v] of Object.entries(body)) {
    if (k !== 'metadata' || !isPlainObject(v)) return undefined;
    for (const [mk, mv] of Object.entries(v)) {
      if (mk === 'resourceVersion' && typeof mv === 'string') out.resourceVersion = mv;
      else if (mk === 'uid' && typeof mv === 'string') out.uid = mv;
      else if (mk === 'labels' || mk === 'annotations') {
        if (mv === null) add(mk, null);
        else if (!isPlainObject(mv)) return undefined;
        else for (const key of Object.keys(mv)) if (!add(mk, key)) return undefined;
      } else return undefined;
    }
  }
  if (out.labels?.length === 0 && out.annotations?.length === 0) return undefined;
  return out;
}

/**
 * A PUT of a mirror pod (client-go's Update: the pod as read, relabelled) as the merge patch it amounts to, when it
 * changes nothing but labels and annotations; bookkeeping keys it leaves out are kept, one it changes is refused
 * (undefined: the generic store then judges the PUT).
 */
export function metadataOnlyUpdate(mirror: KubeObject, put: KubeObject): { patch: MetadataPatch; body: Record<string, unknown> } | undefined {
  if (put.kind !== undefined && put.kind !== 'Pod') return undefined;
  // The syncer's own rewrite (the most frequent PUT of a mirror) carries a new content hash: settled before any
  // comparison of the rest.
  const hash = put.metadata?.annotations?.[MIRROR_HASH_ANNOTATION];
  if (hash !== undefined && hash !== mirror.metadata?.annotations?.[MIRROR_HASH_ANNOTATION]) return undefined;
  if (!jsonEqual(put.spec ?? {}, mirror.spec ?? {})) return undefined;
  const fixed = (o: KubeObject) => {
    const { labels: _l, annotations: _a, resourceVersion: _rv, managedFields: _mf, creationTimestamp: _ct, generation: _g, ownerReferences: _or, ...rest } = o.metadata ?? {};
    return rest;
  };
  if (!jsonEqual(fixed(put), fixed(mirror))) return undefined;
  const patch: MetadataPatch = { labels: [], annotations: [] };
  const body: Record<string, Record<string, string | null> | null> = {};
  // Owner references: kept as they are, or left out whole — orphaning the pod (as upstream's "Job should adopt matching
  // orphans" does), which the cluster's controller then undoes by adopting it again when its labels still match. The
  // mirror's references name workspace objects and the original's the cluster's, so nothing finer maps across.
  const wasOwners = mirror.metadata?.ownerReferences ?? [];
  const nowOwners = put.metadata?.ownerReferences ?? [];
  if (!jsonEqual(wasOwners, nowOwners)) {
    if (nowOwners.length > 0) return undefined;
    patch.orphan = true;
    body.ownerReferences = null;
  }
  for (const map of ['labels', 'annotations'] as const) {
    const was = mirror.metadata?.[map] ?? {};
    const now = put.metadata?.[map] ?? {};
    for (const k of new Set([...Object.keys(was), ...Object.keys(now)])) {
      if (was[k] === now[k]) continue;
      // A client that sets the labels whole (`pod.Labels = map[string]string{...}`) knows nothing of the bookkeeping:
      // keys it leaves out stay; one it sets to another value is not taken.
      if (isBookkeepingKey(k)) {
        if (now[k] === undefined) continue;
        return undefined;
      }
      patch[map]!.push(k);
      (body[map] ??= {})![k] = now[k] ?? null;
    }
  }
  if (patch.labels!.length === 0 && patch.annotations!.length === 0 && !patch.orphan) return undefined;
  if (put.metadata?.resourceVersion) patch.resourceVersion = put.metadata.resourceVersion;
  if (put.metadata?.uid) patch.uid = put.metadata.uid;
  return { patch, body: { metadata: body } };
}

export function mirrorPodMetadataHandler(registry: ResourceRegistry, dialer: DownstreamDialer): ConnectHandler {
  const locator = new PodLocator(registry);
  const taken = new WeakMap<ConnectRequest, { mirror: KubeObject; body: Buffer; patch: MetadataPatch; as?: { method: string; contentType: string } }>();
  return {
    group: '',
    resource: 'pods',
    subresource: '',
    async accepts(r) {
      const method = r.req.method;
      if ((method !== 'PATCH' && method !== 'PUT') || !r.info.name) return false;
      const contentType = (r.req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (method === 'PATCH' && !PATCH_TYPES.has(contentType)) return false;
      const mirror = await r.store.get(r.ctx, r.info.namespace, r.info.name).catch(() => undefined);
      if (!mirror || !isMirror(mirror)) return false;
      const body = await readBody(r.req);
      if (method === 'PUT') {
        let put: KubeObject | undefined;
        try {
          put = decodeBody(body, r.req.headers['content-type'], { kind: 'Pod', version: 'v1' }).object as KubeObject;
        } catch {
          put = undefined;
        }
        const update = put && isPlainObject(put) ? metadataOnlyUpdate(mirror, put) : undefined;
        if (!update) {
          keepBody(r.req, body);
          return false;
        }
        taken.set(r, { mirror, body: Buffer.from(JSON.stringify(update.body)), patch: update.patch, as: { method: 'PATCH', contentType: 'application/merge-patch+json' } });
        return true;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch {
        parsed = undefined;
      }
      const patch = metadataOnlyPatch(contentType, parsed);
      if (!patch) {
        keepBody(r.req, body);
        return false;
      }
      taken.set(r, { mirror, body: withoutPreconditions(body, parsed, patch), patch });
      return true;
    },
    async serve(r) {
      const { mirror, body, patch, as } = taken.get(r)!;
      const name = mirror.metadata!.name!;
      if (patch.uid && patch.uid !== mirror.metadata?.uid) throw errors.conflict(podsGR, name, `Precondition failed: UID in precondition: ${patch.uid}, UID in object meta: ${mirror.metadata?.uid}`);
      if (patch.resourceVersion && patch.resourceVersion !== mirror.metadata?.resourceVersion) throw errors.conflictModified(podsGR, name);
      const where = await locator.locate(r.ctx.cluster, mirror);
      const reply = await requestOriginal(dialer, where, r, '', body, PATCH_TIMEOUT_MS, as);
      const original = reply.body as KubeObject;
      if (reply.status >= 300 || !isPlainObject(original) || original.kind !== 'Pod') throw new StatusError(upstreamStatus(reply, where.name, name));
      const next = withMetadataOf(mirror, original, patch);
      const answer = r.query.get('dryRun') ? next : await recordOnMirror(r, next);
      writeObject(r.res, 200, answer, negotiateObjectOutput(r.req.headers.accept, null, false, servesProtobuf(r.store.def)), r.store.def);
    },
  };
}

/** The patch without the mirror's preconditions (checked here; the original has its own resourceVersion and uid). */
function withoutPreconditions(body: Buffer, parsed: unknown, patch: MetadataPatch): Buffer {
  if (patch.resourceVersion === undefined && patch.uid === undefined) return body;
  const { resourceVersion: _rv, uid: _uid, ...metadata } = (parsed as { metadata: Record<string, unknown> }).metadata;
  return Buffer.from(JSON.stringify({ ...(parsed as object), metadata }));
}

/** The mirror with the labels and annotations the patch named as the original now has them; bookkeeping kept. */
export function withMetadataOf(mirror: KubeObject, original: KubeObject, patch: MetadataPatch): KubeObject {
  const out = deepCopy(mirror);
  const meta = out.metadata!;
  for (const map of ['labels', 'annotations'] as const) {
    const named = patch[map];
    const mine: Record<string, string> = { ...(meta[map] ?? {}) };
    const theirs = original.metadata?.[map] ?? {};
    const keys = named ?? [...new Set([...Object.keys(mine), ...Object.keys(theirs)])].filter((k) => !isBookkeepingKey(k));
    for (const k of keys) {
      if (theirs[k] === undefined) delete mine[k];
      else mine[k] = theirs[k]!;
    }
    meta[map] = mine;
  }
  if (patch.orphan && !(original.metadata?.ownerReferences ?? []).some((ref) => ref.controller)) delete meta.ownerReferences;
  // No longer what the syncer last wrote: without its content hash the syncer's next look at the original rewrites the
  // mirror whole, even when the original is already back as it was (adopted again, relabelled back).
  if (meta.annotations) delete meta.annotations[MIRROR_HASH_ANNOTATION];
  return out;
}

/** Writes the labels and annotations onto the mirror now; the answer is the mirror as written. */
async function recordOnMirror(r: ConnectRequest, next: KubeObject): Promise<KubeObject> {
  const ns = next.metadata!.namespace!;
  const name = next.metadata!.name!;
  const input = deepCopy(next);
  delete input.metadata!.resourceVersion;
  try {
    return (await r.store.update(mirrorWriter(r.ctx.cluster), ns, name, input, { dryRun: false })).object;
  } catch (err) {
    // The original has the change; the mirror writer records it when it next sees the pod.
    logger.warn('pod labels or annotations changed on the cluster but not yet on the mirror', { cluster: r.ctx.cluster, namespace: ns, name, error: (err as Error).message });
    return next;
  }
}
