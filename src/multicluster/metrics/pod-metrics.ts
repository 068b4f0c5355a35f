/**
 * PodMetrics of a workspace's pods (metrics.k8s.io/v1beta1 pods, get and list): each pod is found on its cluster as
 * the pod streams find it (streams/pod-location.ts: a mirror's original, or a placed bare Pod's copy), its cluster's
 * metrics.k8s.io is read (one list per cluster and downstream namespace, through the same push dial or syncer tunnel
 * as the streams), and the answer carries the pod's name, namespace and labels as the workspace shows them.
 *
 * As metrics-server: the label selector selects among the pods (here the workspace's, with their workspace labels),
 * the field selector knows metadata.name and metadata.namespace, a pod without metrics (not running, nowhere) is
 * left out of a list and NotFound by name. Authorized by the filter chain as get/list on pods.metrics.k8s.io; the
 * pods themselves are read with the server's identity, as metrics-server reads them with its own.
 */
import type { KubeObject } from '../../apimachinery/object.js';
import { errors } from '../../apimachinery/status.js';
import { LabelSelectorParseError, parseLabelSelector } from '../../apimachinery/labels/selector.js';
import { FieldSelectorParseError, parseFieldSelector } from '../../apimachinery/fields/selector.js';
import type { ConnectHandler, ConnectRequest } from '../../apiserver/connect.js';
import type { ResourceRegistry } from '../../registry/resource-registry.js';
import type { ResourceDefinition } from '../../registry/rest.js';
import type { DownstreamDialer } from '../streams/downstream-dialer.js';
import { PodLocator, type PodLocation } from '../streams/pod-location.js';
import { readDownstream, replyMessage } from './downstream-read.js';
import { respondList, respondObject, requireRead, unavailable, type Unreachable } from './respond.js';
import { systemContext } from './workspace-clusters.js';

const metricsPath = (namespace: string) => `/apis/metrics.k8s.io/v1beta1/namespaces/${encodeURIComponent(namespace)}/pods`;

/** The downstream PodMetrics `m` as the workspace shows it: the pod's own name, namespace and labels. */
function asWorkspaces(pod: KubeObject, m: KubeObject): KubeObject {
  const meta = pod.metadata ?? {};
  return {
    ...m,
    metadata: { name: meta.name, namespace: meta.namespace, ...(m.metadata?.creationTimestamp ? { creationTimestamp: m.metadata.creationTimestamp } : {}), ...(meta.labels ? { labels: meta.labels } : {}) },
  };
}

function selectors(r: ConnectRequest) {
  try {
    const labels = r.query.get('labelSelector');
    const fields = r.query.get('fieldSelector');
    return { labels: labels ? parseLabelSelector(labels) : undefined, fields: fields ? parseFieldSelector(fields) : undefined };
  } catch (err) {
    if (err instanceof LabelSelectorParseError || err instanceof FieldSelectorParseError) throw errors.badRequest(err.message);
    throw err;
  }
}

export function podMetricsHandler(registry: ResourceRegistry, dialer: DownstreamDialer, def: ResourceDefinition): ConnectHandler {
  const locator = new PodLocator(registry);
  const pods = (cluster: string) => registry.lookup(cluster, '', 'v1', 'pods');

  const get = async (r: ConnectRequest) => {
    const gr = { group: def.group, resource: 'podmetrics' };
    const pod = await pods(r.ctx.cluster)?.get(systemContext(r.ctx.cluster), r.info.namespace, r.info.name).catch(() => undefined);
    const where = pod && (await locator.locate(r.ctx.cluster, pod).catch(() => undefined));
    if (!pod || !where) throw errors.notFound(gr, r.info.name);
    const reply = await readDownstream(dialer, where.target, where.targetCluster, `${metricsPath(where.namespace)}/${encodeURIComponent(where.name)}`).catch((err: Error) => {
      throw unavailable(err.message);
    });
    if (reply.status === 404) throw errors.notFound(gr, r.info.name);
    if (reply.status !== 200) throw unavailable(`SyncTarget ${where.target.metadata!.name}: ${replyMessage(reply)}`);
    respondObject(r, def, asWorkspaces(pod, reply.body as KubeObject));
  };

  const list = async (r: ConnectRequest) => {
    const { labels, fields } = selectors(r);
    const store = pods(r.ctx.cluster);
    const all = store ? (await store.list(systemContext(r.ctx.cluster), r.info.namespace, { selection: labels ? { labels: { empty: () => labels.isEmpty(), matches: (l) => labels.matches(l), selector: labels } } : {} })).items : [];
    const chosen = fields ? all.filter((p) => fields.matches({ 'metadata.name': p.metadata?.name ?? '', 'metadata.namespace': p.metadata?.namespace ?? '' })) : all;
    // Where each pod runs, grouped by cluster and downstream namespace: one metrics list for each group.
    const lookups = new Map<string, Promise<unknown>>();
    const located = await Promise.all(chosen.map(async (pod) => ({ pod, where: await locator.locate(r.ctx.cluster, pod, lookups).catch(() => undefined) })));
    const groups = new Map<string, { where: PodLocation; pods: { pod: KubeObject; name: string }[] }>();
    for (const { pod, where } of located) {
      if (!where) continue; // runs nowhere: no metrics, as metrics-server has none for a pod without a node
      const key = `${where.targetCluster}\n${where.target.metadata!.name}\n${where.namespace}`;
      const g = groups.get(key) ?? { where, pods: [] };
      g.pods.push({ pod, name: where.name });
      groups.set(key, g);
    }
    const unreachable = new Map<string, Unreachable>();
    const parts = await Promise.all(
      [...groups.values()].map(async ({ where, pods: members }) => {
        const syncTarget = where.target.metadata!.name!;
        try {
          const reply = await readDownstream(dialer, where.target, where.targetCluster, metricsPath(where.namespace));
          if (reply.status !== 200) throw new Error(replyMessage(reply));
          const byName = new Map(((reply.body as { items?: KubeObject[] }).items ?? []).map((m) => [m.metadata?.name, m]));
          return members.flatMap(({ pod, name }) => {
            const m = byName.get(name);
            return m ? [asWorkspaces(pod, m)] : [];
          });
        } catch (err) {
          unreachable.set(syncTarget, { syncTarget, why: (err as Error).message });
          return [];
        }
      }),
    );
    const items = parts.flat().sort((a, b) => `${a.metadata!.namespace}/${a.metadata!.name}`.localeCompare(`${b.metadata!.namespace}/${b.metadata!.name}`));
    respondList(r, def, items, [...unreachable.values()]);
  };

  return {
    group: def.group,
    resource: def.resource,
    subresource: '',
    async serve(r) {
      requireRead(r);
      return r.info.name ? get(r) : list(r);
    },
  };
}
