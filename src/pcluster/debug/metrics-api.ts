/**
 * metrics.k8s.io/v1beta1 on the simulated cluster, as metrics-server's APIService serves it on a real one: PodMetrics
 * (namespaced get and list, label selectors) and NodeMetrics (get and list), computed on every read from the same
 * simulation the HPA controller reads (controllers/hpa/metrics.ts: the `sim.atrium.io/cpu-utilization` and
 * `sim.atrium.io/memory-utilization` annotations × the containers' requests), so `kubectl top pods|nodes` work. A node's
 * usage is its Running pods' plus a fixed system overhead. Nothing is stored: the definitions exist for discovery and
 * these handlers answer every request. Pods that are not Running have no metrics (metrics-server's NotFound).
 */
import type { ServerResponse } from 'node:http';
import { type KubeObject, formatRFC3339, isPlainObject } from '../../apimachinery/object.js';
import { errors } from '../../apimachinery/status.js';
import { parseLabelSelector } from '../../apimachinery/labels/selector.js';
import type { ConnectHandler, ConnectRequest } from '../../apiserver/connect.js';
import { writeList, writeObject } from '../../apiserver/handlers/render.js';
import { negotiateObjectOutput } from '../../apiserver/http/negotiation.js';
import type { PluginHost } from '../../apiserver/plugin.js';
import { METRICS_GROUP as group, METRICS_VERSION as version, nodeMetricsResource, podMetricsResource } from '../../registry/builtin/metrics.js';
import type { ResourceDefinition } from '../../registry/rest.js';
import { podUsage } from '../controllers/hpa/metrics.js';

/** metrics-server's default resolution, reported as each sample's window. */
const window = '15s';
/** What a node uses besides its pods (kubelet, runtime, system daemons), in millicores and bytes. */
const nodeOverhead = { cpuMilli: 50, memoryBytes: 256 * 1024 * 1024 };

const cpu = (milli: number): string => `${Math.max(0, Math.round(milli))}m`;
const memory = (bytes: number): string => `${Math.max(0, Math.round(bytes / 1024))}Ki`;

function containerNames(pod: KubeObject): string[] {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  return (Array.isArray(spec.containers) ? spec.containers.filter(isPlainObject) : []).map((c) => String(c.name));
}

/** The pod's PodMetrics, or undefined when it has none (not Running). */
export function podMetrics(pod: KubeObject, now = Date.now()): KubeObject | undefined {
  if (podUsage(pod, 'cpu') === undefined) return undefined;
  const meta = pod.metadata ?? {};
  return {
    kind: 'PodMetrics',
    apiVersion: `${group}/${version}`,
    metadata: { name: meta.name, namespace: meta.namespace, creationTimestamp: formatRFC3339(now), ...(meta.labels ? { labels: meta.labels } : {}) },
    timestamp: formatRFC3339(now),
    window,
    containers: containerNames(pod).map((name) => ({
      name,
      usage: { cpu: cpu(podUsage(pod, 'cpu', name) ?? 0), memory: memory((podUsage(pod, 'memory', name) ?? 0) / 1000) },
    })),
  };
}

/** The node's NodeMetrics: its Running pods' usage plus the system overhead. */
export function nodeMetrics(node: KubeObject, pods: KubeObject[], now = Date.now()): KubeObject {
  const name = node.metadata?.name ?? '';
  const mine = pods.filter((p) => isPlainObject(p.spec) && p.spec.nodeName === name);
  const sum = (resource: string) => mine.reduce((n, p) => n + (podUsage(p, resource) ?? 0), 0);
  return {
    kind: 'NodeMetrics',
    apiVersion: `${group}/${version}`,
    metadata: { name, creationTimestamp: formatRFC3339(now), ...(node.metadata?.labels ? { labels: node.metadata.labels } : {}) },
    timestamp: formatRFC3339(now),
    window,
    usage: { cpu: cpu(nodeOverhead.cpuMilli + sum('cpu')), memory: memory(nodeOverhead.memoryBytes + sum('memory') / 1000) },
  };
}

function respond(r: ConnectRequest, res: ServerResponse, def: ResourceDefinition, one: KubeObject | undefined, many: KubeObject[] | undefined): void {
  const output = negotiateObjectOutput(r.req.headers.accept, r.query.get('includeObject'), true);
  if (one) writeObject(res, 200, one, output, def);
  else writeList(res, many ?? [], { resourceVersion: '' }, output, def);
}

function selected(r: ConnectRequest, items: KubeObject[]): KubeObject[] {
  const text = r.query.get('labelSelector');
  if (!text) return items;
  const selector = parseLabelSelector(text);
  return items.filter((o) => selector.matches(o.metadata?.labels ?? {}));
}

function requireRead(r: ConnectRequest): void {
  if (r.info.verb !== 'get' && r.info.verb !== 'list') throw errors.methodNotSupported({ group, resource: r.info.resource }, r.info.verb);
}

export function metricsHandlers(host: PluginHost): ConnectHandler[] {
  const list = async (r: ConnectRequest, resource: 'pods' | 'nodes', namespace: string): Promise<KubeObject[]> => {
    const store = host.registry.lookup(r.ctx.cluster, '', 'v1', resource);
    if (!store) return [];
    return (await store.list(r.ctx, namespace, { selection: {} })).items;
  };
  return [
    {
      group,
      resource: 'pods',
      subresource: '',
      async serve(r) {
        requireRead(r);
        if (r.info.name) {
          const pod = await host.registry.lookup(r.ctx.cluster, '', 'v1', 'pods')?.get(r.ctx, r.info.namespace, r.info.name).catch(() => undefined);
          const m = pod && podMetrics(pod);
          if (!m) throw errors.notFound({ group, resource: 'podmetrics' }, `${r.info.namespace}/${r.info.name}`);
          return respond(r, r.res, podMetricsResource, m, undefined);
        }
        const items = selected(r, await list(r, 'pods', r.info.namespace)).map((p) => podMetrics(p)).filter((m): m is KubeObject => !!m);
        respond(r, r.res, podMetricsResource, undefined, items);
      },
    },
    {
      group,
      resource: 'nodes',
      subresource: '',
      async serve(r) {
        requireRead(r);
        const pods = await list(r, 'pods', '');
        const nodes = await list(r, 'nodes', '');
        if (r.info.name) {
          const node = nodes.find((n) => n.metadata?.name === r.info.name);
          if (!node) throw errors.notFound({ group, resource: 'nodemetrics' }, r.info.name);
          return respond(r, r.res, nodeMetricsResource, nodeMetrics(node, pods), undefined);
        }
        respond(r, r.res, nodeMetricsResource, undefined, selected(r, nodes).map((n) => nodeMetrics(n, pods)));
      },
    },
  ];
}
