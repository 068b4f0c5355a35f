/**
 * The warnings kube-apiserver 1.32 returns for a pod spec (pkg/api/pod/warnings.go: GetWarningsForPod and
 * GetWarningsForPodTemplate), and the WarningsOnCreate / WarningsOnUpdate of the kinds holding one (Pods, Deployments,
 * ReplicaSets, StatefulSets, DaemonSets, Jobs, CronJobs, ReplicationControllers, PodTemplates): deprecated node labels,
 * annotations and volume plugins, overlapping volume paths, duplicates (host aliases, pull secrets, env, ports),
 * fractional byte quantities, a negative grace period, null label selectors; and the name that ends up in hostnames.
 * kubectl prints them as `Warning: ...` and the request still succeeds. Go walks maps in random order; we take keys
 * sorted, so the warnings come in a stable order.
 */
import { canonicalQuantity } from '../../../apimachinery/exact-quantity.js';
import { isPlainObject, type JsonObject, type KubeObject } from '../../../apimachinery/object.js';
import { isQuantity, milliValue } from '../../../apimachinery/quantity.js';
import { isDNS1123Label } from '../../../apimachinery/validation/names.js';
import { DEPRECATED_NODE_LABELS } from './csi-validation.js';
import { persistentVolumeClaimSpecWarnings } from './storage-validation.js';

const obj = (v: unknown): JsonObject => (isPlainObject(v) ? v : {});
const list = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.map(obj) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** field.Path's String(): `child` appended to `path` with a dot, `[i]` / `[key]` as they are. */
const child = (path: string, ...names: string[]) => [path, ...names].filter(Boolean).join('.');

const DEPRECATED_ANNOTATIONS: readonly [key: string, message: string][] = [
  ['scheduler.alpha.kubernetes.io/critical-pod', 'non-functional in v1.16+; use the "priorityClassName" field instead'],
  ['security.alpha.kubernetes.io/sysctls', 'non-functional in v1.11+; use the "sysctls" field instead'],
  ['security.alpha.kubernetes.io/unsafe-sysctls', 'non-functional in v1.11+; use the "sysctls" field instead'],
];

/** Deprecated and removed volume plugins, in the order upstream checks them (ephemeral between glusterfs and cephfs). */
const DEPRECATED_VOLUMES: readonly [field: string, message: string][] = [
  ['photonPersistentDisk', 'deprecated in v1.11, non-functional in v1.16+'],
  ['gitRepo', 'deprecated in v1.11'],
  ['scaleIO', 'deprecated in v1.16, non-functional in v1.22+'],
  ['flocker', 'deprecated in v1.22, non-functional in v1.25+'],
  ['storageos', 'deprecated in v1.22, non-functional in v1.25+'],
  ['quobyte', 'deprecated in v1.22, non-functional in v1.25+'],
  ['glusterfs', 'deprecated in v1.25, non-functional in v1.26+'],
];
const DEPRECATED_VOLUMES_AFTER_EPHEMERAL: readonly [field: string, message: string][] = [
  ['cephfs', 'deprecated in v1.28, non-functional in v1.31+'],
  ['rbd', 'deprecated in v1.28, non-functional in v1.31+'],
];
/** Go's field names for the JSON fields above (the message uses the Go path, e.g. `storageOS`). */
const GO_VOLUME_PATH: Record<string, string> = { storageos: 'storageOS' };

const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
const SECCOMP_CONTAINER_ANNOTATION_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';
const APPARMOR_CONTAINER_ANNOTATION_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';

/** A quantity's MilliValue() % 1000 != 0: a fractional byte count. */
function fractionalBytes(q: unknown): boolean {
  return isQuantity(q) && milliValue(q as string | number) % 1000 !== 0;
}
const fractionalMessage = (path: string, q: unknown) => `${path}: fractional byte value ${JSON.stringify(canonicalQuantity(q))} is invalid, must be an integer`;

/** pods.VisitContainersWithPath: init containers, containers, ephemeral containers, each with its path. */
function containersWithPath(spec: JsonObject, specPath: string): [JsonObject, string][] {
  const out: [JsonObject, string][] = [];
  for (const key of ['initContainers', 'containers', 'ephemeralContainers']) list(spec[key]).forEach((c, i) => out.push([c, `${child(specPath, key)}[${i}]`]));
  return out;
}

/** Go's `%+v` of a core ContainerPort (the internal type's field order). */
function goPort(p: JsonObject): string {
  return `{Name:${str(p.name)} HostPort:${Number(p.hostPort ?? 0)} ContainerPort:${Number(p.containerPort ?? 0)} Protocol:${str(p.protocol)} HostIP:${str(p.hostIP)}}`;
}

interface PathAndSource {
  path: string;
  source: string;
}
const describe = (ps: PathAndSource) => (ps.source ? `${JSON.stringify(ps.path)} (${ps.source})` : JSON.stringify(ps.path));

function overlapping(haystack: PathAndSource[], needle: PathAndSource): PathAndSource[] {
  if (needle.path === '') return [];
  return haystack.filter(
    (item) => item.path !== '' && ((item.path === needle.path && item.source === needle.source) || `${item.path}/`.startsWith(`${needle.path}/`) || `${needle.path}/`.startsWith(`${item.path}/`)),
  );
}

/** checkVolumeMappingForOverlap over one source's paths. */
function mappingOverlaps(paths: PathAndSource[]): string[] {
  const out: string[] = [];
  const seen: PathAndSource[] = [];
  for (const raw of paths) {
    const ps = { ...raw, path: raw.path.replace(/\/+$/, '') };
    for (const c of overlapping(seen, ps)) out.push(`${describe(ps)} with ${describe(c)}`);
    seen.push(ps);
  }
  return out;
}

const itemPaths = (items: unknown, source: string): PathAndSource[] => list(items).map((i) => ({ path: str(i.path), source }));

/** warningsForOverlappingVirtualPaths. */
function overlappingVirtualPaths(volumes: JsonObject[]): string[] {
  const out: string[] = [];
  const warn = (name: string, desc: string, body: string) => `volume ${JSON.stringify(name)} (${desc}): overlapping paths: ${body}`;
  for (const v of volumes) {
    const name = str(v.name);
    const cm = obj(v.configMap);
    if (isPlainObject(v.configMap) && Array.isArray(cm.items)) for (const o of mappingOverlaps(itemPaths(cm.items, ''))) out.push(warn(name, `ConfigMap ${JSON.stringify(str(cm.name))}`, o));
    const secret = obj(v.secret);
    if (isPlainObject(v.secret) && Array.isArray(secret.items)) for (const o of mappingOverlaps(itemPaths(secret.items, ''))) out.push(warn(name, `Secret ${JSON.stringify(str(secret.secretName))}`, o));
    const downward = obj(v.downwardAPI);
    if (isPlainObject(v.downwardAPI) && Array.isArray(downward.items)) for (const o of mappingOverlaps(itemPaths(downward.items, ''))) out.push(warn(name, 'DownwardAPI', o));
    if (isPlainObject(v.projected)) {
      const all: PathAndSource[] = [];
      for (const source of list(v.projected.sources)) {
        if (Object.keys(source).every((k) => source[k] === null || source[k] === undefined)) {
          out.push(`volume ${JSON.stringify(name)} (Projected) has no sources provided`);
          continue;
        }
        let paths: PathAndSource[] = [];
        const scm = obj(source.configMap);
        const ss = obj(source.secret);
        const sd = obj(source.downwardAPI);
        if (isPlainObject(source.configMap) && Array.isArray(scm.items)) paths = itemPaths(scm.items, `ConfigMap ${JSON.stringify(str(scm.name))}`);
        else if (isPlainObject(source.secret) && Array.isArray(ss.items)) paths = itemPaths(ss.items, `Secret ${JSON.stringify(str(ss.name))}`);
        else if (isPlainObject(source.downwardAPI) && Array.isArray(sd.items)) paths = itemPaths(sd.items, 'DownwardAPI');
        else if (isPlainObject(source.serviceAccountToken)) paths = [{ path: str(source.serviceAccountToken.path), source: 'ServiceAccountToken' }];
        else if (isPlainObject(source.clusterTrustBundle)) {
          const ctb = source.clusterTrustBundle;
          paths = [{ path: str(ctb.path), source: `ClusterTrustBundle ${JSON.stringify(typeof ctb.name === 'string' ? ctb.name : str(ctb.signerName))}` }];
        }
        for (const raw of paths) {
          const ps = { ...raw, path: raw.path.replace(/\/+$/, '') };
          for (const c of overlapping(all, ps)) out.push(warn(name, 'Projected', `${describe(ps)} with ${describe(c)}`));
          all.push(ps);
        }
      }
    }
  }
  return out;
}

/** warningsForPodSpecAndMeta: `path` is the template's path (`spec.template`), or '' for a pod. */
function podSpecAndMetaWarnings(path: string, specValue: unknown, metaValue: unknown): string[] {
  const spec = obj(specValue);
  const meta = obj(metaValue);
  const annotations = obj(meta.annotations);
  const specPath = child(path, 'spec');
  const out: string[] = [];

  for (const key of Object.keys(obj(spec.nodeSelector)).sort()) {
    const msg = DEPRECATED_NODE_LABELS[key];
    if (msg) out.push(`${child(specPath, 'nodeSelector')}[${key}]: ${msg}`);
  }
  const nodeAffinity = obj(obj(spec.affinity).nodeAffinity);
  const termWarnings = (term: JsonObject, termPath: string) =>
    list(term.matchExpressions).forEach((e, i) => {
      const msg = DEPRECATED_NODE_LABELS[str(e.key)];
      if (msg) out.push(`${termPath}.matchExpressions[${i}].key: ${str(e.key)} is ${msg}`);
    });
  list(obj(nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution).nodeSelectorTerms).forEach((t, i) =>
    termWarnings(t, `${child(specPath, 'affinity', 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution', 'nodeSelectorTerms')}[${i}]`),
  );
  list(nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution).forEach((t, i) =>
    termWarnings(obj(t.preference), `${child(specPath, 'affinity', 'nodeAffinity', 'preferredDuringSchedulingIgnoredDuringExecution')}[${i}].preference`),
  );
  list(spec.topologySpreadConstraints).forEach((t, i) => {
    const tPath = `${child(specPath, 'topologySpreadConstraints')}[${i}]`;
    const msg = DEPRECATED_NODE_LABELS[str(t.topologyKey)];
    if (msg) out.push(`${tPath}.topologyKey: ${str(t.topologyKey)} is ${msg}`);
    if (!isPlainObject(t.labelSelector)) out.push(`${tPath}.labelSelector: a null labelSelector results in matching no pod`);
  });

  for (const [key, message] of DEPRECATED_ANNOTATIONS) {
    if (key in annotations) out.push(`${child(path, 'metadata', 'annotations')}[${key}]: ${message}`);
  }

  list(spec.volumes).forEach((v, i) => {
    const vPath = `${child(specPath, 'volumes')}[${i}]`;
    for (const [field, message] of DEPRECATED_VOLUMES) if (isPlainObject(v[field])) out.push(`${vPath}.${GO_VOLUME_PATH[field] ?? field}: ${message}`);
    const claimTemplate = obj(v.ephemeral).volumeClaimTemplate;
    if (isPlainObject(v.ephemeral) && isPlainObject(claimTemplate)) out.push(...persistentVolumeClaimSpecWarnings(`${vPath}.ephemeral.volumeClaimTemplate.spec`, claimTemplate.spec));
    for (const [field, message] of DEPRECATED_VOLUMES_AFTER_EPHEMERAL) if (isPlainObject(v[field])) out.push(`${vPath}.${field}: ${message}`);
  });
  out.push(...overlappingVirtualPaths(list(spec.volumes)));

  const duplicates = (items: JsonObject[], key: string, itemPath: (i: number) => string, what: string) => {
    if (items.length <= 1) return;
    const seen = new Set<string>();
    items.forEach((item, i) => {
      const v = str(item[key]);
      if (seen.has(v)) out.push(`${itemPath(i)}: duplicate ${what} ${JSON.stringify(v)}`);
      else seen.add(v);
    });
  };
  duplicates(list(spec.hostAliases), 'ip', (i) => `${child(specPath, 'hostAliases')}[${i}].ip`, 'ip');
  duplicates(list(spec.imagePullSecrets), 'name', (i) => `${child(specPath, 'imagePullSecrets')}[${i}].name`, 'name');
  list(spec.imagePullSecrets).forEach((s, i) => {
    if (str(s.name) === '') out.push(`${child(specPath, 'imagePullSecrets')}[${i}].name: invalid empty name ""`);
  });

  for (const resource of ['memory', 'ephemeral-storage']) {
    const q = obj(spec.overhead)[resource];
    if (fractionalBytes(q)) out.push(fractionalMessage(`${child(specPath, 'overhead')}[${resource}]`, q));
  }

  const securityContext = obj(spec.securityContext);
  if (!isPlainObject(securityContext.seccompProfile) && SECCOMP_POD_ANNOTATION in annotations) {
    out.push(`${child(path, 'metadata', 'annotations')}[${SECCOMP_POD_ANNOTATION}]: non-functional in v1.27+; use the "seccompProfile" field instead`);
  }
  const podAppArmor = isPlainObject(securityContext.appArmorProfile);
  const containers = containersWithPath(spec, specPath);
  for (const [c, cPath] of containers) {
    const name = str(c.name);
    const cSecurity = obj(c.securityContext);
    if (!isPlainObject(cSecurity.seccompProfile) && `${SECCOMP_CONTAINER_ANNOTATION_PREFIX}${name}` in annotations) {
      out.push(`${child(path, 'metadata', 'annotations')}[${SECCOMP_CONTAINER_ANNOTATION_PREFIX}${name}]: non-functional in v1.27+; use the "seccompProfile" field instead`);
    }
    // A pod's own AppArmor annotations are warned about elsewhere upstream (its version skew handling); a template's here.
    if (path !== '' && !podAppArmor && !isPlainObject(cSecurity.appArmorProfile) && `${APPARMOR_CONTAINER_ANNOTATION_PREFIX}${name}` in annotations) {
      out.push(`${child(path, 'metadata', 'annotations')}[${APPARMOR_CONTAINER_ANNOTATION_PREFIX}${name}]: deprecated since v1.30; use the "appArmorProfile" field instead`);
    }
    const resources = obj(c.resources);
    for (const resource of ['memory', 'ephemeral-storage']) {
      for (const part of ['limits', 'requests']) {
        const q = obj(resources[part])[resource];
        if (fractionalBytes(q)) out.push(fractionalMessage(`${cPath}.resources.${part}[${resource}]`, q));
      }
    }
    const env = list(c.env);
    if (env.length > 1) {
      const names = new Set<string>();
      env.forEach((e, i) => {
        const envName = str(e.name);
        if (!names.has(envName)) {
          names.add(envName);
          return;
        }
        const ref = `$(${envName})`;
        const value = str(e.value);
        if (isPlainObject(e.valueFrom) || value === ref || !value.includes(ref)) {
          out.push(`${cPath}.env[${i}]: hides previous definition of ${JSON.stringify(envName)}, which may be dropped when using apply`);
        }
      });
    }
  }

  const ports = new Map<string, { path: string; port: JsonObject }[]>();
  for (const [c, cPath] of containers) {
    list(c.ports).forEach((port, i) => {
      const pPath = `${cPath}.ports[${i}]`;
      const hostPort = Number(port.hostPort ?? 0);
      const hostIP = str(port.hostIP);
      if (hostIP !== '' && hostPort === 0) out.push(`${pPath}: hostIP set without hostPort: ${goPort(port)}`);
      const key = `${Number(port.containerPort ?? 0)}/${str(port.protocol)}`;
      const others = ports.get(key);
      if (!others) {
        ports.set(key, [{ path: pPath, port }]);
        return;
      }
      for (const other of others) {
        const otherPort = Number(other.port.hostPort ?? 0);
        const otherIP = str(other.port.hostIP);
        if (hostIP === otherIP && hostPort === otherPort) out.push(`${pPath}: duplicate port definition with ${other.path}`);
        else if (hostPort === 0 || otherPort === 0) out.push(`${pPath}: overlapping port definition with ${other.path}`);
        else if (hostPort === otherPort && (hostIP === '') !== (otherIP === '')) out.push(`${pPath}: dangerously ambiguous port definition with ${other.path}`);
      }
      others.push({ path: pPath, port });
    });
  }

  if (typeof spec.terminationGracePeriodSeconds === 'number' && spec.terminationGracePeriodSeconds < 0) {
    out.push(`${child(specPath, 'terminationGracePeriodSeconds')}: must be >= 0; negative values are invalid and will be treated as 1`);
  }

  const affinity = obj(spec.affinity);
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    if (!isPlainObject(affinity[kind])) continue;
    const a = affinity[kind];
    const required = `${child(specPath, 'affinity', kind, 'requiredDuringSchedulingIgnoredDuringExecution')}`;
    list(a.requiredDuringSchedulingIgnoredDuringExecution).forEach((t, i) => {
      if (!isPlainObject(t.labelSelector)) out.push(`${required}[${i}].labelSelector: a null labelSelector results in matching no pod`);
    });
    const preferred = `${child(specPath, 'affinity', kind, 'preferredDuringSchedulingIgnoredDuringExecution')}`;
    list(a.preferredDuringSchedulingIgnoredDuringExecution).forEach((t, i) => {
      if (!isPlainObject(obj(t.podAffinityTerm).labelSelector)) out.push(`${preferred}[${i}].podAffinityTerm.labelSelector: a null labelSelector results in matching no pod`);
    });
  }
  return out;
}

/** GetWarningsForPodTemplate at `path` (`spec.template`). */
export function podTemplateWarnings(path: string, template: unknown): string[] {
  if (!isPlainObject(template)) return [];
  return podSpecAndMetaWarnings(path, template.spec, template.metadata);
}

/** The name warning of the kinds whose name ends up in pod names and hostnames. */
export function podNamesWarnings(o: KubeObject, what = 'Pod names and hostnames'): string[] {
  const msgs = isDNS1123Label(str(o.metadata?.name));
  return msgs.length ? [`metadata.name: this is used in ${what}, which can result in surprising behavior; a DNS label is recommended: [${msgs.join(' ')}]`] : [];
}

/** The Pod strategy's WarningsOnCreate (on update it gives none: pods change often, and rarely by hand). */
export function podWarnings(pod: KubeObject, old?: KubeObject): string[] {
  if (old) return [];
  return [...podNamesWarnings(pod, "the Pod's hostname"), ...podSpecAndMetaWarnings('', pod.spec, pod.metadata)];
}

const generation = (o: KubeObject | undefined) => o?.metadata?.generation;

/**
 * Warnings of a kind holding a pod template at spec.template: on create the name (when `names`) and the template; on
 * update the template again when the spec changed (the generation moved).
 */
export function templateKindWarnings(names: boolean): (o: KubeObject, old?: KubeObject) => string[] {
  return (o, old) => {
    if (!old) return [...(names ? podNamesWarnings(o) : []), ...podTemplateWarnings('spec.template', obj(o.spec).template)];
    return generation(o) !== generation(old) ? podTemplateWarnings('spec.template', obj(o.spec).template) : [];
  };
}

/** StatefulSets: the template and every claim template (upstream's update path says `.Spec`, as it does). */
export function statefulSetWarnings(o: KubeObject, old?: KubeObject): string[] {
  const out = !old || generation(o) !== generation(old) ? podTemplateWarnings('spec.template', obj(o.spec).template) : [];
  list(obj(o.spec).volumeClaimTemplates).forEach((pvc, i) => out.push(...persistentVolumeClaimSpecWarnings(`spec.volumeClaimTemplates[${i}]${old ? '.Spec' : ''}`, pvc.spec)));
  return out;
}

/** DaemonSets: the template, on update when its templateGeneration moved. */
export function daemonSetWarnings(o: KubeObject, old?: KubeObject): string[] {
  if (old && obj(o.spec).templateGeneration === obj(old.spec).templateGeneration) return [];
  return podTemplateWarnings('spec.template', obj(o.spec).template);
}

/** ReplicationControllers: upstream's WarningsOnUpdate passes the old template as the new one, so it is the old one's. */
export function replicationControllerWarnings(o: KubeObject, old?: KubeObject): string[] {
  if (!old) return [...podNamesWarnings(o), ...podTemplateWarnings('spec.template', obj(o.spec).template)];
  return generation(o) !== generation(old) ? podTemplateWarnings('spec.template', obj(old.spec).template) : [];
}

/** PodTemplates: the template at `template`. */
export function podTemplateKindWarnings(o: KubeObject, old?: KubeObject): string[] {
  if (old && generation(o) === generation(old)) return [];
  return podTemplateWarnings('template', o.template);
}

const COMPLETIONS_SOFT_LIMIT = 100_000;
const PARALLELISM_SOFT_LIMIT = 10_000;

/** WarningsForJobSpec at `path`. */
function jobSpecWarnings(path: string, specValue: unknown): string[] {
  const spec = obj(specValue);
  const out: string[] = [];
  if (spec.completionMode === 'Indexed' && Number(spec.completions ?? 0) > COMPLETIONS_SOFT_LIMIT && Number(spec.parallelism ?? 0) > PARALLELISM_SOFT_LIMIT) {
    out.push(`${path}: In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher than 10^4, Kubernetes might not be able to track completedIndexes when a big number of indexes fail`);
  }
  out.push(...podTemplateWarnings(`${path}.template`, spec.template));
  return out;
}

/** Jobs: the name on create, the spec on create and when it changed. */
export function jobWarnings(o: KubeObject, old?: KubeObject): string[] {
  if (!old) return [...podNamesWarnings(o), ...jobSpecWarnings('spec', o.spec)];
  return generation(o) !== generation(old) ? jobSpecWarnings('spec', o.spec) : [];
}

/** CronJobs: as Jobs for the job template; on update also a TZ in the schedule (upstream's path says spec.spec). */
export function cronJobWarnings(o: KubeObject, old?: KubeObject): string[] {
  const jobSpec = obj(obj(obj(o.spec).jobTemplate).spec);
  if (!old) return [...podNamesWarnings(o), ...jobSpecWarnings('spec.jobTemplate.spec', jobSpec)];
  const out = generation(o) !== generation(old) ? jobSpecWarnings('spec.jobTemplate.spec', jobSpec) : [];
  if (str(obj(o.spec).schedule).includes('TZ')) {
    out.push('cannot use TZ or CRON_TZ in spec.spec.schedule, use timeZone instead, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details');
  }
  return out;
}
