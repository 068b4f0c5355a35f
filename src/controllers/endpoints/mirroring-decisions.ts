/**
 * What the endpointslice-mirroring controller computes (k8s.io/kubernetes pkg/controller/endpointslicemirroring): the
 * EndpointSlices that mirror a custom Endpoints object of a Service without a selector, so that what reads slices
 * (kube-proxy, `kubectl describe service`) sees endpoints someone wrote by hand. Pure.
 *
 * Upstream's rules kept: only when the Service exists without a selector and the Endpoints are neither labelled
 * `endpointslice.kubernetes.io/skip-mirror: "true"` nor a leader-election lock; one slice per subset (its ports), at
 * most 1,000 addresses of a subset mirrored; `addresses` ready, `notReadyAddresses` not; addresses that are no IPv4
 * left out (an IPv6 one would go to a slice of its own family: not done here, a simulated cluster has none).
 */
import { type JsonObject, type KubeObject, isPlainObject } from '../../apimachinery/object.js';
import { serviceNameLabel, managedByLabel } from './decisions.js';

export const mirroringControllerName = 'endpointslicemirroring-controller.k8s.io';
export const skipMirrorLabel = 'endpointslice.kubernetes.io/skip-mirror';
const leaderAnnotation = 'control-plane.alpha.kubernetes.io/leader';
/** Addresses of one subset mirrored at most (the controller's --mirroring-max-endpoints-per-subset default). */
export const maxMirroredPerSubset = 1000;

const objects = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);
const isIPv4 = (ip: unknown): ip is string => typeof ip === 'string' && /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.test(ip);

/** Whether these Endpoints of this Service are mirrored (shouldMirror, and the Service has no selector). */
export function shouldMirror(endpoints: KubeObject | undefined, service: KubeObject | undefined): boolean {
  if (!endpoints || !service) return false;
  const spec = isPlainObject(service.spec) ? service.spec : {};
  if (isPlainObject(spec.selector) && Object.keys(spec.selector).length > 0) return false;
  if (endpoints.metadata?.labels?.[skipMirrorLabel] === 'true') return false;
  return endpoints.metadata?.annotations?.[leaderAnnotation] === undefined;
}

/** One mirrored slice's ports and endpoints. */
export interface MirroredSlice {
  ports: JsonObject[];
  endpoints: JsonObject[];
}

/** The slices mirroring the Endpoints' subsets, in subset order; subsets with no IPv4 address mirror nothing. */
export function mirroredSlices(endpoints: KubeObject): MirroredSlice[] {
  const out: MirroredSlice[] = [];
  for (const subset of objects(endpoints.subsets)) {
    const ports = objects(subset.ports).map((p) => ({ name: p.name ?? '', port: p.port, protocol: p.protocol ?? 'TCP', ...(p.appProtocol ? { appProtocol: p.appProtocol } : {}) }));
    const endpointOf = (a: JsonObject, ready: boolean): JsonObject => ({
      addresses: [a.ip],
      conditions: { ready },
      ...(a.hostname ? { hostname: a.hostname } : {}),
      ...(isPlainObject(a.targetRef) ? { targetRef: a.targetRef } : {}),
      ...(a.nodeName ? { nodeName: a.nodeName } : {}),
    });
    const all = [...objects(subset.addresses).filter((a) => isIPv4(a.ip)).map((a) => endpointOf(a, true)), ...objects(subset.notReadyAddresses).filter((a) => isIPv4(a.ip)).map((a) => endpointOf(a, false))];
    if (all.length === 0) continue;
    out.push({ ports, endpoints: all.slice(0, maxMirroredPerSubset) });
  }
  return out;
}

/** The labels of a mirrored slice: the Endpoints' own (but the reserved ones), the Service's name and the mirroring controller. */
export function mirroredSliceLabels(endpoints: KubeObject, service: KubeObject): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(endpoints.metadata?.labels ?? {})) if (k !== serviceNameLabel && k !== managedByLabel) labels[k] = v;
  labels[serviceNameLabel] = service.metadata?.name ?? '';
  labels[managedByLabel] = mirroringControllerName;
  return labels;
}
