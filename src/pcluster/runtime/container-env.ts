/**
 * The environment a simulated container's programs get, as kubelet builds it (kubelet_pods.go
 * makeEnvironmentVariables) for what the simulation can honour: the service variables (serviceEnvironment), envFrom
 * (ConfigMaps and Secrets, with prefixes), env with plain values, fieldRef (name, namespace, uid, node, service
 * account, IPs, labels and annotations), configMapKeyRef, secretKeyRef and resourceFieldRef (a container's limits and
 * requests, limits defaulting to its node's allocatable; a divisor of 0 or none is 1); $(VAR) references to earlier
 * variables are expanded. Nothing of the pcluster's own environment leaks in but PATH (exec'd commands are local
 * programs).
 */
import { parseExactQuantity, quantityMilliValue, quantityValue } from '../../apimachinery/exact-quantity.js';
import { type JsonObject, type KubeObject, isPlainObject } from '../../apimachinery/object.js';

/** Reads a ConfigMap or Secret of the pod's namespace, or a Node (namespace ''): undefined when there is none. */
export type ObjectLookup = (resource: 'configmaps' | 'secrets' | 'nodes', namespace: string, name: string) => Promise<KubeObject | undefined>;

/** Lists the Services of a namespace (for the service environment variables). */
export type ServiceLister = (namespace: string) => Promise<KubeObject[]>;

const envName = (s: string) => s.replace(/-/g, '_').toUpperCase();

/**
 * The service environment variables (kubelet envvars.FromServices): for each Service with a cluster IP,
 * `<NAME>_SERVICE_HOST`, `<NAME>_SERVICE_PORT` (the first port), `<NAME>_SERVICE_PORT_<PORTNAME>` per named port, and
 * Docker's link variables (`<NAME>_PORT`, `<NAME>_PORT_<port>_<PROTO>` with `_PROTO`, `_PORT`, `_ADDR`).
 */
export function serviceEnvironment(services: readonly KubeObject[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const svc of services) {
    const spec = isPlainObject(svc.spec) ? svc.spec : {};
    const ip = typeof spec.clusterIP === 'string' ? spec.clusterIP : '';
    const ports = (Array.isArray(spec.ports) ? spec.ports : []).filter(isPlainObject);
    if (!ip || ip === 'None' || ports.length === 0) continue;
    const name = envName(svc.metadata?.name ?? '');
    out[`${name}_SERVICE_HOST`] = ip;
    out[`${name}_SERVICE_PORT`] = String(ports[0]!.port);
    for (const p of ports) if (typeof p.name === 'string' && p.name) out[`${name}_SERVICE_PORT_${envName(p.name)}`] = String(p.port);
    const host = ip.includes(':') ? `[${ip}]` : ip;
    ports.forEach((p, i) => {
      const proto = String(p.protocol ?? 'TCP');
      const url = `${proto.toLowerCase()}://${host}:${String(p.port)}`;
      if (i === 0) out[`${name}_PORT`] = url;
      const prefix = `${name}_PORT_${String(p.port)}_${proto.toUpperCase()}`;
      out[prefix] = url;
      out[`${prefix}_PROTO`] = proto.toLowerCase();
      out[`${prefix}_PORT`] = String(p.port);
      out[`${prefix}_ADDR`] = ip;
    });
  }
  return out;
}

/**
 * The Services whose variables a pod gets (kubelet getServiceEnvVarMap): the `kubernetes` Service of `default`
 * always, and the Services of its own namespace unless spec.enableServiceLinks is false.
 */
async function podServices(pod: KubeObject, services: ServiceLister): Promise<KubeObject[]> {
  const ns = pod.metadata?.namespace ?? '';
  const links = !(isPlainObject(pod.spec) && pod.spec.enableServiceLinks === false);
  const byName = new Map<string, KubeObject>();
  for (const s of await services('default')) if (s.metadata?.name === 'kubernetes') byName.set('kubernetes', s);
  // A Service of the namespace named like the master one replaces it, as in the kubelet's map.
  if (links) for (const s of await services(ns)) byName.set(s.metadata?.name ?? '', s);
  return [...byName.values()];
}

/** A fieldRef's value, as the kubelet's downward API gives it (env vars and volume files alike). */
export function fieldRefValue(pod: KubeObject, path: string): string {
  const meta = pod.metadata ?? {};
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  const status = isPlainObject(pod.status) ? pod.status : {};
  const keyed = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (keyed) return String((keyed[1] === 'labels' ? meta.labels : meta.annotations)?.[keyed[2]!] ?? '');
  switch (path) {
    case 'metadata.name':
      return meta.name ?? '';
    case 'metadata.namespace':
      return meta.namespace ?? '';
    case 'metadata.uid':
      return meta.uid ?? '';
    case 'spec.nodeName':
      return String(spec.nodeName ?? '');
    case 'spec.serviceAccountName':
      return String(spec.serviceAccountName ?? '');
    case 'status.podIP':
      return String(status.podIP ?? '');
    case 'status.hostIP':
      return String(status.hostIP ?? '');
    default:
      return '';
  }
}

/** The kubelet's expansion of $(VAR) references (and `$$` escapes) in env values, command and args. */
export const expand = (value: string, env: Record<string, string>): string =>
  value.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (m, name: string | undefined) => (m === '$$' ? '$' : name !== undefined && name in env ? env[name]! : m));

async function keyOf(lookup: ObjectLookup, resource: 'configmaps' | 'secrets', ns: string, ref: JsonObject): Promise<string | undefined> {
  const obj = await lookup(resource, ns, String(ref.name ?? ''));
  const data = obj && isPlainObject(obj.data) ? obj.data : {};
  const v = data[String(ref.key ?? '')];
  if (typeof v !== 'string') return undefined;
  return resource === 'secrets' ? Buffer.from(v, 'base64').toString('utf8') : v;
}

/**
 * A resourceFieldRef's value as the kubelet computes it (ExtractResourceValueByContainerNameAndNodeAllocatable): the
 * container's (or the named container's) limit or request; a limit not set is the node's allocatable; divided by the
 * divisor and rounded up — CPU in millicores, everything else in units.
 */
export async function resourceFieldValue(pod: KubeObject, container: JsonObject, ref: JsonObject, lookup: ObjectLookup): Promise<string | undefined> {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  const containers = [...(Array.isArray(spec.containers) ? spec.containers : []), ...(Array.isArray(spec.initContainers) ? spec.initContainers : [])].filter(isPlainObject);
  const target = typeof ref.containerName === 'string' && ref.containerName ? containers.find((c) => c.name === ref.containerName) : container;
  const m = /^(limits|requests)\.(.+)$/.exec(String(ref.resource ?? ''));
  if (!target || !m) return undefined;
  const [, kind, resource] = m;
  const resources = isPlainObject(target.resources) ? target.resources : {};
  const list = isPlainObject(resources[kind!]) ? (resources[kind!] as JsonObject) : {};
  let value = list[resource!];
  // MergeContainerResourceLimits: a missing or zero limit of cpu, memory or ephemeral storage is the node's allocatable.
  const zero = (() => {
    try {
      return value !== undefined && parseExactQuantity(value).nanos === 0n;
    } catch {
      return false;
    }
  })();
  if ((value === undefined || zero) && kind === 'limits' && ['cpu', 'memory', 'ephemeral-storage'].includes(resource!) && typeof spec.nodeName === 'string') {
    const node = await lookup('nodes', '', spec.nodeName);
    const allocatable = node && isPlainObject(node.status) && isPlainObject(node.status.allocatable) ? node.status.allocatable : {};
    value = allocatable[resource!];
  }
  try {
    const q = parseExactQuantity(value ?? '0');
    // Go writes an unset divisor as "0" (a Quantity is never omitted): the kubelet takes zero as 1.
    const given = parseExactQuantity(ref.divisor ?? '1');
    const divisor = given.nanos === 0n ? parseExactQuantity('1') : given;
    const [n, d] = resource === 'cpu' ? [quantityMilliValue(q), quantityMilliValue(divisor)] : [quantityValue(q), quantityValue(divisor)];
    if (d <= 0n) return undefined;
    return String(n <= 0n ? 0n : (n + d - 1n) / d);
  } catch {
    return undefined;
  }
}

export async function containerEnvironment(pod: KubeObject, container: JsonObject, lookup: ObjectLookup, services?: ServiceLister): Promise<Record<string, string>> {
  const ns = pod.metadata?.namespace ?? '';
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', HOSTNAME: pod.metadata?.name ?? '' };
  // The service variables: the container's own variables may refer to them and override them.
  if (services) Object.assign(env, serviceEnvironment(await podServices(pod, services).catch(() => [])));
  for (const from of Array.isArray(container.envFrom) ? container.envFrom.filter(isPlainObject) : []) {
    const prefix = String(from.prefix ?? '');
    const ref = isPlainObject(from.configMapRef) ? { r: 'configmaps' as const, o: from.configMapRef } : isPlainObject(from.secretRef) ? { r: 'secrets' as const, o: from.secretRef } : undefined;
    if (!ref) continue;
    const obj = await lookup(ref.r, ns, String(ref.o.name ?? ''));
    const data = obj && isPlainObject(obj.data) ? obj.data : {};
    for (const [k, v] of Object.entries(data)) if (typeof v === 'string') env[prefix + k] = ref.r === 'secrets' ? Buffer.from(v, 'base64').toString('utf8') : v;
  }
  for (const e of Array.isArray(container.env) ? container.env.filter(isPlainObject) : []) {
    const name = String(e.name ?? '');
    if (!name) continue;
    if (typeof e.value === 'string') {
      env[name] = expand(e.value, env);
      continue;
    }
    const from = isPlainObject(e.valueFrom) ? e.valueFrom : undefined;
    if (!from) {
      env[name] = '';
    } else if (isPlainObject(from.fieldRef)) {
      env[name] = fieldRefValue(pod, String(from.fieldRef.fieldPath ?? ''));
    } else if (isPlainObject(from.configMapKeyRef)) {
      const v = await keyOf(lookup, 'configmaps', ns, from.configMapKeyRef);
      if (v !== undefined) env[name] = v;
    } else if (isPlainObject(from.secretKeyRef)) {
      const v = await keyOf(lookup, 'secrets', ns, from.secretKeyRef);
      if (v !== undefined) env[name] = v;
    } else if (isPlainObject(from.resourceFieldRef)) {
      const v = await resourceFieldValue(pod, container, from.resourceFieldRef, lookup);
      if (v !== undefined) env[name] = v;
    }
  }
  return env;
}
