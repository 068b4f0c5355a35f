/**
 * What a workload's pods use, read from its pod template: the ConfigMaps, Secrets, ServiceAccount and
 * PersistentVolumeClaims it names (volumes — configMap, secret, projected sources, persistentVolumeClaim —, envFrom,
 * env valueFrom, serviceAccountName, imagePullSecrets, in containers, init containers and ephemeral containers), and
 * the labels its pods carry (what Services, NetworkPolicies and PodDisruptionBudgets select). Pure.
 */
import type { KubeObject } from '../../apimachinery/object.js';

type Json = Record<string, unknown>;

const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** A pod template: its metadata (labels) and pod spec. */
export interface PodTemplateLike {
  metadata?: { labels?: Record<string, string> };
  spec?: Json;
}

/**
 * The pod template of a workload by kind: a Pod is its own template; a CronJob's is spec.jobTemplate.spec.template;
 * a PodTemplate's is `template`; every other workload kind's is spec.template. Undefined when there is none.
 */
export function podTemplateOf(kind: string | undefined, o: KubeObject): PodTemplateLike | undefined {
  const spec = obj(o.spec);
  if (kind === 'Pod') return { metadata: { labels: o.metadata?.labels ?? {} }, spec };
  if (kind === 'CronJob') return templateAt(obj(obj(spec.jobTemplate).spec).template);
  if (kind === 'PodTemplate') return templateAt((o as Json).template);
  return templateAt(spec.template);
}

function templateAt(v: unknown): PodTemplateLike | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const t = v as Json;
  return { metadata: { labels: (obj(t.metadata).labels as Record<string, string> | undefined) ?? {} }, spec: obj(t.spec) };
}

/** The names a pod spec uses, per kind of object. */
export interface PodReferences {
  configMaps: Set<string>;
  secrets: Set<string>;
  serviceAccounts: Set<string>;
  persistentVolumeClaims: Set<string>;
}

/** Everything a pod spec names (see the file comment). The ServiceAccount is `default` when none is named. */
export function podReferences(podSpec: Json | undefined): PodReferences {
  const out: PodReferences = { configMaps: new Set(), secrets: new Set(), serviceAccounts: new Set(), persistentVolumeClaims: new Set() };
  const spec = obj(podSpec);
  const add = (set: Set<string>, v: unknown) => {
    const s = str(v);
    if (s) set.add(s);
  };
  for (const raw of arr(spec.volumes)) {
    const v = obj(raw);
    add(out.configMaps, obj(v.configMap).name);
    add(out.secrets, obj(v.secret).secretName);
    add(out.persistentVolumeClaims, obj(v.persistentVolumeClaim).claimName);
    for (const src of arr(obj(v.projected).sources)) {
      add(out.configMaps, obj(obj(src).configMap).name);
      add(out.secrets, obj(obj(src).secret).name);
    }
  }
  for (const c of [...arr(spec.containers), ...arr(spec.initContainers), ...arr(spec.ephemeralContainers)]) {
    const container = obj(c);
    for (const e of arr(container.envFrom)) {
      add(out.configMaps, obj(obj(e).configMapRef).name);
      add(out.secrets, obj(obj(e).secretRef).name);
    }
    for (const e of arr(container.env)) {
      const from = obj(obj(e).valueFrom);
      add(out.configMaps, obj(from.configMapKeyRef).name);
      add(out.secrets, obj(from.secretKeyRef).name);
    }
  }
  for (const s of arr(spec.imagePullSecrets)) add(out.secrets, obj(s).name);
  add(out.serviceAccounts, str(spec.serviceAccountName) ?? str(spec.serviceAccount) ?? 'default');
  return out;
}

/** The Secrets a ServiceAccount names (imagePullSecrets and secrets): they go where the ServiceAccount goes. */
export function serviceAccountSecrets(sa: KubeObject): Set<string> {
  const out = new Set<string>();
  for (const s of [...arr((sa as Json).imagePullSecrets), ...arr((sa as Json).secrets)]) {
    const name = str(obj(s).name);
    if (name) out.add(name);
  }
  return out;
}

/** The Services an Ingress routes to (spec.defaultBackend and every rule's paths). */
export function ingressServices(ing: KubeObject): Set<string> {
  const out = new Set<string>();
  const spec = obj(ing.spec);
  const add = (backend: unknown) => {
    const name = str(obj(obj(backend).service).name);
    if (name) out.add(name);
  };
  add(spec.defaultBackend);
  for (const rule of arr(spec.rules)) for (const path of arr(obj(obj(rule).http).paths)) add(obj(path).backend);
  return out;
}

/** The TLS Secrets an Ingress names. */
export function ingressSecrets(ing: KubeObject): Set<string> {
  const out = new Set<string>();
  for (const tls of arr(obj(ing.spec).tls)) {
    const name = str(obj(tls).secretName);
    if (name) out.add(name);
  }
  return out;
}

/** A workload's replicas as its kind counts pods: spec.replicas (default 1), a Job's parallelism, 1 for a Pod. */
export function podsOf(kind: string | undefined, o: KubeObject): number {
  const spec = obj(o.spec);
  const num = (v: unknown, dflt: number) => (typeof v === 'number' && v >= 0 ? v : dflt);
  if (kind === 'Pod') return 1;
  if (kind === 'Job') return num(spec.parallelism, 1);
  if (kind === 'CronJob') return num(obj(obj(spec.jobTemplate).spec).parallelism, 1);
  if (kind === 'DaemonSet' || kind === 'PodTemplate') return 1;
  return num(spec.replicas, 1);
}
