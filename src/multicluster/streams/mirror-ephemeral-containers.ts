/**
 * pods/ephemeralcontainers of a MIRROR pod in a workspace (`kubectl debug <mirror>`): a mirror only records a pod of
 * a cluster, so a debug container is added to that pod, its original, and shows in the mirror from there.
 *
 * A PUT or PATCH on a mirror's pods/ephemeralcontainers was authorized in the workspace by the filter chain, as any
 * subresource write (`patch`/`update` on pods/ephemeralcontainers). It is sent to the original (pod-location.ts, as
 * exec and logs find it) over a connection to its cluster (downstream-request.ts): the body and query as given (a PUT's
 * metadata names the original instead, once its resourceVersion and uid were checked against the mirror), so the
 * cluster decodes, defaults, admits and validates the ephemeral containers against the pod that will run them, and a
 * refusal is the cluster's Status with the pod named as in the workspace — kube-apiserver's own words, since the
 * cluster is one. On success the cluster's spec.ephemeralContainers are written to the mirror at once (through its
 * own pods/ephemeralcontainers, below admission: this is the request's own effect, not a user's write of a mirror)
 * and the answer is the mirror, as a write upstream answers the object it wrote; the syncer's mirror writer brings the
 * containers' statuses up as they run.
 *
 * Every caller is sent on, the syncer included: a mirror records its cluster, so no write of its ephemeral containers
 * may stop at the mirror (before this, system:masters passed ReadOnlyMirrors and wrote the mirror alone). The syncer's
 * own write (syncer/mirror-set.ts: the cluster's containers, merged by name) is a no-op on the cluster and then lands
 * on the mirror like any other. A GET, and a write on any pod that is not a mirror (a bare Pod synced from the
 * workspace: its syncer carries the change down), are served by the generic store.
 */
import { deepCopy, isPlainObject, type KubeObject } from '../../apimachinery/object.js';
import { errors, StatusError, type Status } from '../../apimachinery/status.js';
import type { ConnectHandler, ConnectRequest } from '../../apiserver/connect.js';
import { readBody } from '../../apiserver/http/body.js';
import { negotiateObjectOutput } from '../../apiserver/http/negotiation.js';
import { servesProtobuf, writeObject } from '../../apiserver/handlers/render.js';
import { SYSTEM_MASTERS } from '../../apimachinery/user.js';
import { logger } from '../../logging/logger.js';
import type { ResourceRegistry } from '../../registry/resource-registry.js';
import type { DownstreamDialer } from './downstream-dialer.js';
import type { DownstreamReply } from './downstream-request.js';
import { mirrorPodRequests, requestOriginal } from './original-pod-request.js';
import { PodLocator, type PodLocation } from './pod-location.js';

export const EPHEMERAL_CONTAINERS = 'ephemeralcontainers';

/** How long the cluster may take to answer the write. */
const WRITE_TIMEOUT_MS = 30_000;

const podsGR = { group: '', resource: 'pods' };

/** Who writes the cluster's answer onto the mirror (an internal write: no authorization, no admission). */
const mirrorWriter = (cluster: string) => ({ cluster, user: { username: 'system:atrium:mirror-ephemeral-containers', groups: [SYSTEM_MASTERS] } });

export function mirrorEphemeralContainersHandler(registry: ResourceRegistry, dialer: DownstreamDialer): ConnectHandler {
  const locator = new PodLocator(registry);
  const mirrors = mirrorPodRequests(['PUT', 'PATCH']);
  return {
    group: '',
    resource: 'pods',
    subresource: EPHEMERAL_CONTAINERS,
    accepts: mirrors.accepts,
    async serve(r) {
      const mirror = mirrors.mirrorOf(r);
      const where = await locator.locate(r.ctx.cluster, mirror);
      const body = await readBody(r.req);
      const sent = r.req.method === 'PUT' ? putForOriginal(body, mirror, where) : body;
      const reply: DownstreamReply = await requestOriginal(dialer, where, r, EPHEMERAL_CONTAINERS, sent, WRITE_TIMEOUT_MS);
      const original = reply.body as KubeObject;
      if (reply.status >= 300 || !isPlainObject(original) || original.kind !== 'Pod') throw new StatusError(upstreamStatus(reply, where.name, r.info.name));
      const wanted = (original.spec as { ephemeralContainers?: unknown } | undefined)?.ephemeralContainers;
      const answer = r.query.get('dryRun') ? withEphemeralContainers(mirror, wanted) : await recordOnMirror(r, mirror, wanted);
      writeObject(r.res, 200, answer, negotiateObjectOutput(r.req.headers.accept, null, false, servesProtobuf(r.store.def)), r.store.def);
    },
  };
}

/**
 * A PUT body for the original: the mirror's resourceVersion and uid are the caller's preconditions (checked here, as
 * the store would check them on the mirror), then the metadata names the original, whose own resourceVersion the
 * cluster checks no further (what can change there, the ephemeral containers, the cluster validates: none removed).
 */
function putForOriginal(body: Buffer, mirror: KubeObject, where: PodLocation): Buffer {
  let pod: unknown;
  try {
    pod = JSON.parse(body.toString('utf8'));
  } catch {
    return body; // not JSON (protobuf, or broken): the cluster decodes it, or says why not
  }
  if (!isPlainObject(pod)) return body;
  const meta = (isPlainObject(pod.metadata) ? pod.metadata : (pod.metadata = {})) as Record<string, unknown>;
  const name = mirror.metadata!.name!;
  if (typeof meta.uid === 'string' && meta.uid && meta.uid !== mirror.metadata?.uid) {
    throw errors.conflict(podsGR, name, `Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${mirror.metadata?.uid}`);
  }
  if (typeof meta.resourceVersion === 'string' && meta.resourceVersion && meta.resourceVersion !== mirror.metadata?.resourceVersion) throw errors.conflictModified(podsGR, name);
  delete meta.resourceVersion;
  delete meta.uid;
  if (meta.name === name) meta.name = where.name;
  if (meta.namespace === mirror.metadata?.namespace) meta.namespace = where.namespace;
  return Buffer.from(JSON.stringify(pod));
}

/**
 * The cluster's refusal as the workspace's answer: the same Status (kube-apiserver's validation and words), the pod
 * named by its mirror's name where the two differ (a DaemonSet's pods, `<ds>--<cluster>-<suffix>` upstream).
 */
export function upstreamStatus(reply: DownstreamReply, downName: string, upName: string): Status {
  const b = reply.body as Partial<Status> | string;
  if (typeof b !== 'object' || b === null || b.kind !== 'Status') {
    const text = typeof b === 'string' ? b.trim().slice(0, 500) : `HTTP ${reply.status}`;
    return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `the pod's cluster answered: ${text}`, code: reply.status >= 300 ? reply.status : 500 };
  }
  const status = deepCopy(b) as Status;
  if (downName !== upName) {
    const rename = (s: string) => s.split(`"${downName}"`).join(`"${upName}"`);
    if (status.message) status.message = rename(status.message);
    if (status.details?.name === downName) status.details.name = upName;
  }
  return status;
}

function withEphemeralContainers(pod: KubeObject, containers: unknown): KubeObject {
  const out = deepCopy(pod);
  const spec = (out.spec ??= {}) as Record<string, unknown>;
  if (containers === undefined) delete spec.ephemeralContainers;
  else spec.ephemeralContainers = containers;
  return out;
}

/** Writes the original's ephemeral containers onto the mirror now; the answer is the mirror as written. */
async function recordOnMirror(r: ConnectRequest, mirror: KubeObject, containers: unknown): Promise<KubeObject> {
  const ns = mirror.metadata!.namespace!;
  const name = mirror.metadata!.name!;
  const ctx = mirrorWriter(r.ctx.cluster);
  // Without a resourceVersion: the syncer may have written the mirror since, and the subresource write keeps all of
  // what it finds stored but the ephemeral containers.
  const input = withEphemeralContainers(mirror, containers);
  delete input.metadata!.resourceVersion;
  try {
    return (await r.store.update(ctx, ns, name, input, { dryRun: false }, EPHEMERAL_CONTAINERS)).object;
  } catch (err) {
    // The cluster has the containers; the mirror writer records them when it next sees the pod.
    logger.warn('ephemeral containers added on the cluster but not yet on the mirror', { cluster: r.ctx.cluster, namespace: ns, name, error: (err as Error).message });
    return withEphemeralContainers(mirror, containers);
  }
}
