/**
 * What the endpoints and endpointslice controllers compute from a Service and the pods it selects, as upstream does
 * (pkg/controller/endpoint, k8s.io/endpointslice): which pods count, the address and ports of each, the repacked
 * Endpoints subsets and the EndpointSlices' endpoints grouped by port list.
 *
 * Differences: upstream orders subsets and the ports inside them by a hash of their Go value; here they are ordered
 * by port name and number, and addresses and slice endpoints by IP (as upstream orders addresses), which is stable
 * and equally arbitrary to clients. Endpoints are not truncated at 1,000 addresses.
 */
import { type JsonObject, type KubeObject, isPlainObject } from '../../apimachinery/object.js';
import { selectorFromSet, type LabelSelector } from '../../apimachinery/labels/selector.js';

export const serviceNameLabel = 'kubernetes.io/service-name';
export const managedByLabel = 'endpointslice.kubernetes.io/managed-by';
export const endpointSliceControllerName = 'endpointslice-controller.k8s.io';
export const headlessServiceLabel = 'service.kubernetes.io/headless';
export const lastChangeTriggerTimeAnnotation = 'endpoints.kubernetes.io/last-change-trigger-time';
/** Endpoints per EndpointSlice (the controller's --max-endpoints-per-slice default). */
export const maxEndpointsPerSlice = 100;

const specOf = (o: KubeObject): JsonObject => (isPlainObject(o.spec) ? o.spec : {});
const statusOf = (o: KubeObject): JsonObject => (isPlainObject(o.status) ? o.status : {});
const objects = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);

/** The selector of a Service the controllers manage endpoints for; undefined for ExternalName and selector-less Services. */
export function serviceSelector(service: KubeObject): LabelSelector | undefined {
  const spec = specOf(service);
  if (spec.type === 'ExternalName') return undefined;
  if (!isPlainObject(spec.selector) || Object.keys(spec.selector).length === 0) return undefined;
  return selectorFromSet(spec.selector as Record<string, string>);
}

function isPodReady(pod: KubeObject): boolean {
  return objects(statusOf(pod).conditions).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** The pod's IPv4 address (status.podIP, else the first of status.podIPs), or "". */
export function podIP(pod: KubeObject): string {
  const status = statusOf(pod);
  if (typeof status.podIP === 'string' && status.podIP) return status.podIP;
  const first = objects(status.podIPs)[0];
  return typeof first?.ip === 'string' ? first.ip : '';
}

/** ShouldPodBeInEndpoints: not Succeeded or Failed, has an IP, and (unless terminating ones are included) not being deleted. */
export function shouldPodBeInEndpoints(pod: KubeObject, includeTerminating: boolean): boolean {
  const phase = statusOf(pod).phase;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  if (!podIP(pod)) return false;
  return includeTerminating || !pod.metadata?.deletionTimestamp;
}

/**
 * FindPort: a number targetPort is the port; a name is looked up among the containers' (and sidecar init
 * containers') named ports of the same protocol. Undefined when the pod has no such port.
 */
export function findPort(pod: KubeObject, servicePort: JsonObject): number | undefined {
  const target = servicePort.targetPort ?? servicePort.port;
  if (typeof target === 'number') return target;
  if (typeof target !== 'string') return undefined;
  if (/^\d+$/.test(target)) return Number(target);
  const protocol = servicePort.protocol ?? 'TCP';
  const spec = specOf(pod);
  const containers = [...objects(spec.containers), ...objects(spec.initContainers).filter((c) => c.restartPolicy === 'Always')];
  for (const c of containers) {
    for (const p of objects(c.ports)) if (p.name === target && (p.protocol ?? 'TCP') === protocol && typeof p.containerPort === 'number') return p.containerPort;
  }
  return undefined;
}

/** ShouldSetHostname: the pod's hostname names it in a Service that is its subdomain. */
function hostnameFor(pod: KubeObject, service: KubeObject): string | undefined {
  const spec = specOf(pod);
  return typeof spec.hostname === 'string' && spec.hostname && spec.subdomain === service.metadata?.name && pod.metadata?.namespace === service.metadata?.namespace ? spec.hostname : undefined;
}

function targetRef(pod: KubeObject): JsonObject {
  return { kind: 'Pod', namespace: pod.metadata?.namespace, name: pod.metadata?.name, uid: pod.metadata?.uid };
}

/** A headless Service (clusterIP None) lists its pods even without ports. */
const isHeadless = (service: KubeObject) => specOf(service).clusterIP === 'None';
/** !IsServiceIPSet: no cluster IP (headless), which the headless label marks. */
const hasNoClusterIP = (service: KubeObject) => !specOf(service).clusterIP || specOf(service).clusterIP === 'None';
const compareStrings = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function portKey(p: JsonObject): string {
  return JSON.stringify([p.name ?? '', p.port, p.protocol ?? '', p.appProtocol ?? '']);
}

function comparePorts(a: JsonObject, b: JsonObject): number {
  return compareStrings(String(a.name ?? ''), String(b.name ?? '')) || Number(a.port ?? 0) - Number(b.port ?? 0) || compareStrings(String(a.protocol ?? ''), String(b.protocol ?? ''));
}

/** LessEndpointAddress: by IP (as text), then the target's uid. */
function compareAddresses(a: JsonObject, b: JsonObject): number {
  const uid = (x: JsonObject) => String((x.targetRef as JsonObject | undefined)?.uid ?? '');
  return compareStrings(String(a.ip), String(b.ip)) || compareStrings(uid(a), uid(b));
}

/**
 * The subsets of a Service's Endpoints (syncService, then RepackSubsets): every pod that counts, ready ones under
 * addresses and others under notReadyAddresses (all under addresses with publishNotReadyAddresses), with each
 * service port resolved against the pod (a pod lacking a named port is left out of that port); addresses offering
 * the same ports share a subset. A headless Service without ports lists its pods without ports.
 */
export function endpointSubsets(service: KubeObject, pods: readonly KubeObject[]): JsonObject[] {
  const spec = specOf(service);
  const publishNotReady = spec.publishNotReadyAddresses === true;
  const servicePorts = objects(spec.ports);
  const addresses = new Map<string, JsonObject>();
  /** port key → (address key → ready); the sentinel port `null` for headless services without ports. */
  const byPort = new Map<string, { port: JsonObject | null; ready: Map<string, boolean> }>();
  const add = (addressKey: string, port: JsonObject | null, ready: boolean) => {
    const pk = port ? portKey(port) : 'none';
    let entry = byPort.get(pk);
    if (!entry) byPort.set(pk, (entry = { port, ready: new Map() }));
    // A pod ready for one port is not made unready by another.
    if (!entry.ready.get(addressKey)) entry.ready.set(addressKey, ready);
  };
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, publishNotReady)) continue;
    const ip = podIP(pod);
    const address: JsonObject = { ip };
    const hostname = hostnameFor(pod, service);
    if (hostname) address.hostname = hostname;
    if (typeof specOf(pod).nodeName === 'string' && specOf(pod).nodeName) address.nodeName = specOf(pod).nodeName;
    address.targetRef = targetRef(pod);
    const addressKey = `${ip}/${pod.metadata?.uid ?? ''}`;
    if (!addresses.has(addressKey)) addresses.set(addressKey, address);
    const ready = publishNotReady || isPodReady(pod);
    if (servicePorts.length === 0) {
      if (isHeadless(service)) add(addressKey, null, ready);
      continue;
    }
    for (const sp of servicePorts) {
      const number = findPort(pod, sp);
      if (number === undefined) continue;
      const port: JsonObject = { ...(sp.name ? { name: sp.name } : {}), port: number, protocol: sp.protocol ?? 'TCP', ...(sp.appProtocol ? { appProtocol: sp.appProtocol } : {}) };
      add(addressKey, port, ready);
    }
  }
  // Ports whose sets of (address, readiness) are equal share one subset.
  const groups = new Map<string, { ready: Map<string, boolean>; ports: JsonObject[] }>();
  for (const { port, ready } of byPort.values()) {
    const key = JSON.stringify([...ready.entries()].sort(([a], [b]) => compareStrings(a, b)));
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { ready, ports: [] }));
    if (port) group.ports.push(port);
  }
  const subsets = [...groups.values()].map(({ ready, ports }) => {
    const readyAddrs = [...ready].filter(([, r]) => r).map(([k]) => addresses.get(k)!).sort(compareAddresses);
    const notReady = [...ready].filter(([, r]) => !r).map(([k]) => addresses.get(k)!).sort(compareAddresses);
    const subset: JsonObject = {};
    if (readyAddrs.length) subset.addresses = readyAddrs;
    if (notReady.length) subset.notReadyAddresses = notReady;
    if (ports.length) subset.ports = ports.sort(comparePorts);
    return subset;
  });
  const firstPort = (s: JsonObject) => objects(s.ports)[0] ?? {};
  const firstAddress = (s: JsonObject) => objects(s.addresses)[0] ?? objects(s.notReadyAddresses)[0] ?? {};
  return subsets.sort((a, b) => comparePorts(firstPort(a), firstPort(b)) || compareAddresses(firstAddress(a), firstAddress(b)));
}

/** The labels of a Service's Endpoints: the Service's, plus `service.kubernetes.io/headless` for a headless one. */
export function endpointsLabels(service: KubeObject): Record<string, string> {
  const labels: Record<string, string> = { ...(service.metadata?.labels ?? {}) };
  delete labels[headlessServiceLabel];
  if (hasNoClusterIP(service)) labels[headlessServiceLabel] = '';
  return labels;
}

/**
 * When the endpoints last had a reason to change (the trigger time upstream publishes): the latest of the Service's
 * creation and the selected pods' creation or readiness change.
 */
export function lastChangeTriggerTime(service: KubeObject, pods: readonly KubeObject[]): string | undefined {
  const times = [service.metadata?.creationTimestamp, ...pods.flatMap((p) => [p.metadata?.creationTimestamp, objects(statusOf(p).conditions).find((c) => c.type === 'Ready')?.lastTransitionTime as string | undefined])];
  const latest = times.filter((t): t is string => typeof t === 'string' && t !== '').sort().pop();
  return latest;
}

/** One EndpointSlice's worth of endpoints, sharing a port list. */
export interface SliceContent {
  ports: JsonObject[];
  endpoints: JsonObject[];
}

/**
 * The endpoints of a Service's slices (the endpointslice reconciler's desired state): every pod that counts,
 * terminating ones too, with conditions ready (serving and not terminating, or publishNotReadyAddresses), serving
 * (the pod is ready) and terminating; grouped by the ports the pod resolves, at most `maxPerSlice` to a slice.
 * Empty when no pod counts (the controller then keeps one placeholder slice).
 */
export function endpointSliceContents(service: KubeObject, pods: readonly KubeObject[], nodeZone: (node: string) => string | undefined = () => undefined, maxPerSlice = maxEndpointsPerSlice): SliceContent[] {
  const spec = specOf(service);
  const publishNotReady = spec.publishNotReadyAddresses === true;
  const servicePorts = objects(spec.ports);
  const groups = new Map<string, SliceContent>();
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, true)) continue;
    const ports: JsonObject[] = [];
    if (!(servicePorts.length === 0 && isHeadless(service))) {
      for (const sp of servicePorts) {
        const number = findPort(pod, sp);
        if (number === undefined) continue;
        ports.push({ name: sp.name ?? '', port: number, protocol: sp.protocol ?? 'TCP', ...(sp.appProtocol ? { appProtocol: sp.appProtocol } : {}) });
      }
    }
    const serving = isPodReady(pod);
    const terminating = !!pod.metadata?.deletionTimestamp;
    const endpoint: JsonObject = {
      addresses: [podIP(pod)],
      conditions: { ready: publishNotReady || (serving && !terminating), serving, terminating },
    };
    const hostname = hostnameFor(pod, service);
    if (hostname) endpoint.hostname = hostname;
    endpoint.targetRef = targetRef(pod);
    const node = specOf(pod).nodeName;
    if (typeof node === 'string' && node) {
      endpoint.nodeName = node;
      const zone = nodeZone(node);
      if (zone) endpoint.zone = zone;
    }
    const key = JSON.stringify(ports.map(portKey).sort());
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { ports, endpoints: [] }));
    group.endpoints.push(endpoint);
  }
  const out: SliceContent[] = [];
  const byIP = (a: JsonObject, b: JsonObject) => compareStrings(String((a.addresses as string[])[0]), String((b.addresses as string[])[0])) || compareStrings(String((a.targetRef as JsonObject).uid ?? ''), String((b.targetRef as JsonObject).uid ?? ''));
  for (const key of [...groups.keys()].sort()) {
    const group = groups.get(key)!;
    group.endpoints.sort(byIP);
    for (let i = 0; i < group.endpoints.length; i += maxPerSlice) out.push({ ports: group.ports, endpoints: group.endpoints.slice(i, i + maxPerSlice) });
  }
  return out;
}

/**
 * The labels of a Service's EndpointSlices (setEndpointSliceLabels): the Service's labels except the reserved ones,
 * the headless label for a headless Service, the service name and the managing controller.
 */
export function endpointSliceLabels(service: KubeObject): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(service.metadata?.labels ?? {})) if (k !== serviceNameLabel && k !== managedByLabel && k !== headlessServiceLabel) labels[k] = v;
  if (hasNoClusterIP(service)) labels[headlessServiceLabel] = '';
  labels[serviceNameLabel] = service.metadata?.name ?? '';
  labels[managedByLabel] = endpointSliceControllerName;
  return labels;
}
