/**
 * pods/eviction of a MIRROR pod in a workspace: the budget that may refuse it is its cluster's. A PodDisruptionBudget
 * following a split Deployment runs on each cluster with that cluster's share (decisions/apportion-budget.ts), and
 * the workspace's status only sums the shares, so evicting against the sum could take a pod a cluster's own share
 * forbids. The eviction goes to the mirror's original (pod-location.ts, as exec and logs find it) over a connection
 * to its cluster (downstream-request.ts): the Eviction as sent, its metadata naming the original, the query (dryRun)
 * as given. The cluster's EvictionREST answers — its Status is the workspace's answer (kube-apiserver's words, the
 * pod named as in the workspace); the pod it deletes takes its mirror with it (the syncer's mirror writer), and its
 * controller there makes the replacement.
 *
 * The request was authorized in the workspace (`create` on pods/eviction) by the filter chain. The workspace's own
 * admission does not review it (the cluster's does), as for a mirror's ephemeral containers. A bare Pod synced from
 * the workspace is evicted there by the generic pods/eviction (its budget is the workspace's), and its copy goes with it.
 */
import { isPlainObject, type KubeObject } from '../../apimachinery/object.js';
import { StatusError } from '../../apimachinery/status.js';
import type { ConnectHandler } from '../../apiserver/connect.js';
import { readBody } from '../../apiserver/http/body.js';
import { writeJson } from '../../apiserver/http/response.js';
import type { ResourceRegistry } from '../../registry/resource-registry.js';
import type { DownstreamDialer } from './downstream-dialer.js';
import { upstreamStatus } from './mirror-ephemeral-containers.js';
import { mirrorPodRequests, requestOriginal } from './original-pod-request.js';
import { PodLocator, type PodLocation } from './pod-location.js';

/** How long the cluster may take to answer (an eviction retries its budget on conflicts for up to 10 s there). */
const EVICTION_TIMEOUT_MS = 30_000;

export function mirrorEvictionHandler(registry: ResourceRegistry, dialer: DownstreamDialer): ConnectHandler {
  const locator = new PodLocator(registry);
  const mirrors = mirrorPodRequests(['POST']);
  return {
    group: '',
    resource: 'pods',
    subresource: 'eviction',
    accepts: mirrors.accepts,
    async serve(r) {
      const mirror = mirrors.mirrorOf(r);
      const where = await locator.locate(r.ctx.cluster, mirror);
      const reply = await requestOriginal(dialer, where, r, 'eviction', forOriginal(await readBody(r.req), mirror, where), EVICTION_TIMEOUT_MS);
      const status = upstreamStatus(reply, where.name, r.info.name);
      // The cluster's Status whatever it says: success (201), a budget's refusal (429), two budgets (500), ...
      if (reply.status >= 300 && status.status !== 'Failure') throw new StatusError(status);
      writeJson(r.res, reply.status, status);
    },
  };
}

/** The Eviction with its metadata naming the original (a body that is not a JSON object goes as it came). */
function forOriginal(body: Buffer, mirror: KubeObject, where: PodLocation): Buffer {
  let eviction: unknown;
  try {
    eviction = JSON.parse(body.toString('utf8'));
  } catch {
    return body;
  }
  if (!isPlainObject(eviction)) return body;
  const meta = (isPlainObject(eviction.metadata) ? eviction.metadata : (eviction.metadata = {})) as Record<string, unknown>;
  // A name that is not the mirror's stays wrong, for the cluster to refuse as upstream does.
  if (meta.name === mirror.metadata?.name) meta.name = where.name;
  if (meta.namespace === mirror.metadata?.namespace) meta.namespace = where.namespace;
  return Buffer.from(JSON.stringify(eviction));
}
