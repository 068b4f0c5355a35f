/**
 * The app corpus as the benchmarks use it (test/e2e/apps: one directory of manifests per app): reading it as
 * `kubectl apply -f <dir>` would, making numbered copies of an app in namespaces of their own, and applying copies at
 * once by server-side apply. Shared by the workloads suite (bench/workloads.ts) and the applies suite
 * (bench/applies.ts).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import type { KubeObject } from '../src/apimachinery/object.js';
import { StatusError } from '../src/apimachinery/status.js';
import type { RestClient } from '../src/client/rest-client.js';
import { resourcePath, type GroupVersionResource } from '../src/client/resource.js';

export type Manifest = KubeObject & { kind: string; apiVersion: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> }; spec?: any; status?: any };


export interface CorpusApp {
  name: string;
  objects: Manifest[];
}

/** The manifests of one app directory in the order `kubectl apply -f <dir>` applies them. */
function readApp(dir: string): Manifest[] {
  const out: Manifest[] = [];
  for (const f of readdirSync(dir).filter((f) => /\.(ya?ml|json)$/.test(f) && statSync(join(dir, f)).isFile()).sort()) {
    // YAML 1.1, as kubectl reads manifests (sigs.k8s.io/yaml): `defaultMode: 0755` is octal (493), not 755.
    for (const doc of YAML.parseAllDocuments(readFileSync(join(dir, f), 'utf8'), { version: '1.1' })) {
      if (doc.errors.length) throw new Error(`${join(dir, f)}: ${doc.errors.map((e) => e.message).join('; ')}`);
      const o = doc.toJSON() as Manifest | null;
      if (!o) continue;
      if (o.kind === 'List' && Array.isArray(o.items)) out.push(...(o.items as Manifest[]));
      else out.push(o);
    }
  }
  return out;
}

export function readCorpus(root: string): CorpusApp[] {
  if (!existsSync(root)) throw new Error(`the app corpus is missing: no directory ${root} (one subdirectory of manifests per app)`);
  const apps = readdirSync(root)
    .filter((d) => statSync(join(root, d)).isDirectory())
    .sort()
    .map((name) => ({ name, objects: readApp(join(root, name)) }))
    .filter((a) => a.objects.length > 0);
  if (!apps.length) throw new Error(`the app corpus ${root} holds no app`);
  return apps;
}

export const clusterScopedKinds = new Set([
  'Namespace', 'ClusterRole', 'ClusterRoleBinding', 'StorageClass', 'IngressClass', 'PersistentVolume', 'PriorityClass',
  'CustomResourceDefinition', 'MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration', 'APIService', 'RuntimeClass', 'CSIDriver',
]);

const irregularPlurals: Record<string, string> = { Endpoints: 'endpoints' };

export function gvrOf(o: Manifest): GroupVersionResource {
  const [group, version] = o.apiVersion.includes('/') ? o.apiVersion.split('/') as [string, string] : ['', o.apiVersion];
  const kind = o.kind.toLowerCase();
  const resource = irregularPlurals[o.kind] ?? (kind.endsWith('s') ? `${kind}es` : kind.endsWith('y') ? `${kind.slice(0, -1)}ies` : `${kind}s`);
  return { group, version, resource };
}

export const namespaceOf = (o: Manifest): string | undefined => (clusterScopedKinds.has(o.kind) ? undefined : (o.metadata.namespace ?? 'default'));

/** One copy of a corpus app in its own namespaces (see the file comment for what is rewritten). */
export function instantiate(app: CorpusApp, copy: number): Manifest[] {
  const suffix = `-${copy}`;
  const own = new Set<string>();
  for (const o of app.objects) {
    if (o.kind === 'Namespace') own.add(o.metadata.name);
    else if (namespaceOf(o)) own.add(namespaceOf(o)!);
  }
  const ns = (n: string) => (own.has(n) ? `${n}${suffix}` : n);
  const ownClusterRoles = new Set(app.objects.filter((o) => o.kind === 'ClusterRole').map((o) => o.metadata.name));
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const dns = own.size ? new RegExp(`\\.(${[...own].map(escape).join('|')})\\.svc\\b`, 'g') : undefined;
  const rewriteString = (s: string) => {
    let out = dns ? s.replace(dns, (_m, n: string) => `.${ns(n)}.svc`) : s;
    // Prometheus kubernetes_sd_configs: `namespaces: names: [a, b]`.
    out = out.replace(/(names:\s*\[)([^\]\n]*)(\])/g, (_m, a: string, list: string, b: string) => `${a}${list.split(',').map((x) => x.replace(/[\w.-]+/, (n) => ns(n))).join(',')}${b}`);
    return out;
  };
  const walk = (v: unknown, key?: string): unknown => {
    if (typeof v === 'string') return rewriteString(v);
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v && typeof v === 'object') {
      const o: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) o[k] = walk(x, k);
      if (key === 'namespaceSelector') {
        const labels = o.matchLabels as Record<string, string> | undefined;
        if (labels?.['kubernetes.io/metadata.name']) labels['kubernetes.io/metadata.name'] = ns(labels['kubernetes.io/metadata.name']);
        for (const e of (o.matchExpressions ?? []) as { key: string; values?: string[] }[]) if (e.key === 'kubernetes.io/metadata.name' && e.values) e.values = e.values.map(ns);
      }
      return o;
    }
    return v;
  };
  const out: Manifest[] = [];
  const declared = new Set(app.objects.filter((o) => o.kind === 'Namespace').map((o) => o.metadata.name));
  // A namespace the app uses without declaring it (e.g. `default`) is created first, as a user would have it.
  for (const n of own) if (!declared.has(n)) out.push({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns(n) } });
  for (const src of app.objects) {
    const o = walk(src) as Manifest;
    if (o.kind === 'Namespace') o.metadata.name = ns(src.metadata.name);
    else if (clusterScopedKinds.has(o.kind)) o.metadata.name = `${src.metadata.name}${suffix}`;
    else o.metadata.namespace = ns(namespaceOf(src)!);
    if (o.kind === 'RoleBinding' || o.kind === 'ClusterRoleBinding') {
      const ref = o.roleRef as { kind?: string; name?: string } | undefined;
      if (ref?.kind === 'ClusterRole' && ref.name && ownClusterRoles.has(ref.name)) ref.name = `${ref.name}${suffix}`;
      for (const s of (o.subjects ?? []) as { namespace?: string }[]) if (s.namespace) s.namespace = ns(s.namespace);
    }
    // A node port is one per cluster: a later copy's Service takes whichever the cluster allocates.
    if (o.kind === 'Service' && copy > 1) for (const p of (o.spec?.ports ?? []) as { nodePort?: number }[]) delete p.nodePort;
    // So is a host port per node (the scheduler and kubelet keep them apart, as on a real cluster): a later copy's pods
    // give up the host's network and ports, or they would never run beside the first copy's.
    if (copy > 1) releaseHostPorts(o);
    out.push(o);
  }
  return out;
}

/** Drops hostNetwork and every hostPort from the pod spec of a workload manifest (Pod or pod template). */
function releaseHostPorts(o: Manifest): void {
  const spec = o.kind === 'Pod' ? o.spec : (o.spec?.template as { spec?: Record<string, unknown> } | undefined)?.spec;
  if (!spec) return;
  delete spec.hostNetwork;
  for (const key of ['initContainers', 'containers']) {
    for (const c of (Array.isArray(spec[key]) ? spec[key] : []) as { ports?: { hostPort?: number }[] }[]) for (const p of c.ports ?? []) delete p.hostPort;
  }
}


export async function applyObject(up: RestClient, cluster: string, o: Manifest): Promise<void> {
  const ns = namespaceOf(o);
  const path = `${resourcePath(gvrOf(o), { cluster, namespace: ns, name: o.metadata.name })}?fieldManager=kubectl`;
  // Right after bind compute or a namespace's creation a type may not be served yet for a moment: retry briefly.
  for (let attempt = 0; ; attempt++) {
    try {
      await up.call('PATCH', path, o, 'application/apply-patch+yaml');
      return;
    } catch (err) {
      if (attempt < 20 && err instanceof StatusError && (err.code === 404 || err.code === 409 || err.code === 429 || err.code >= 500)) {
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      throw new Error(`server-side apply of ${o.kind} ${ns ? `${ns}/` : ''}${o.metadata.name}: ${(err as Error).message}`);
    }
  }
}

/** Applies every instance at once (each app's objects in order) and times each app's applies. */
export async function applyInstances(client: RestClient, cluster: string, instances: readonly { objects: readonly Manifest[] }[]): Promise<{ perApp: number[]; totalMs: number }> {
  const t0 = performance.now();
  const perApp = await Promise.all(
    instances.map(async (inst) => {
      const started = performance.now();
      for (const o of inst.objects) await applyObject(client, cluster, o);
      return performance.now() - started;
    }),
  );
  return { perApp, totalMs: performance.now() - t0 };
}
