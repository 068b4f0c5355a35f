/**
 * What the app-corpus and Helm suites share: reading a directory of manifests as `kubectl apply -f` reads it, the
 * readiness of every workload kind as kubectl judges it (`rollout status`, `wait`), and the diagnostics a failure
 * prints — the upstream object's status, sync annotations and events, and what each simulated cluster holds for it.
 *
 * Readiness is polled cheaply through the API first (one GET a second per object, instead of one kubectl process per
 * object for minutes), then confirmed by the real kubectl command, which must exit 0; when the poll times out the
 * kubectl command still runs (briefly) so its own message is in the failure.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { eventually } from '../../helpers/eventually.js';
import { runKubectl } from '../../helpers/harness.js';
import type { KubeObject } from '../../../src/apimachinery/object.js';
import type { RestClient } from '../../../src/client/rest-client.js';
import type { GroupVersionResource } from '../../../src/client/resource.js';
import { locatorOf } from '../../../src/multicluster/api/keys.js';
import { builtinCatalog, builtinProtobufHints } from '../../../src/apimachinery/schema/builtin/index.js';
import { roundTripAsGo } from '../../../src/apimachinery/schema/omit-empty.js';
import { canonicalizeQuantities } from '../../../src/apimachinery/schema/quantities.js';

/** An object of a manifest, with the fields every check reads. */
export type Manifest = KubeObject & { metadata: { name: string; namespace?: string; labels?: Record<string, string> }; spec?: any; status?: any };

/** One app of the corpus: a directory `kubectl apply -f` takes. */
export interface App {
  name: string;
  dir: string;
  objects: Manifest[];
}

/**
 * The manifests of `dir` in the order `kubectl apply -f dir` applies them: its .yaml, .yml and .json files (not
 * recursing, as without -R) sorted by name, each file's documents in order, empty documents skipped.
 */
export function readManifests(dir: string): Manifest[] {
  const files = readdirSync(dir)
    .filter((f) => /\.(ya?ml|json)$/.test(f) && statSync(join(dir, f)).isFile())
    .sort();
  const out: Manifest[] = [];
  for (const f of files) {
    for (const doc of YAML.parseAllDocuments(readFileSync(join(dir, f), 'utf8'))) {
      if (doc.errors.length) throw new Error(`${join(dir, f)}: ${doc.errors.map((e) => e.message).join('; ')}`);
      const o = doc.toJSON() as Manifest | null;
      if (!o) continue;
      if (o.kind === 'List' && Array.isArray(o.items)) out.push(...(o.items as Manifest[]));
      else out.push(o);
    }
  }
  return out;
}

/** Every subdirectory of `root` as an app, by name. */
export function readApps(root: string): App[] {
  return readdirSync(root)
    .filter((d) => statSync(join(root, d)).isDirectory())
    .sort()
    .map((name) => ({ name, dir: join(root, name), objects: readManifests(join(root, name)) }));
}

const clusterScoped = new Set([
  'Namespace', 'ClusterRole', 'ClusterRoleBinding', 'StorageClass', 'IngressClass', 'PersistentVolume', 'PriorityClass',
  'CustomResourceDefinition', 'MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration', 'APIService', 'Node',
  'RuntimeClass', 'CSIDriver', 'VolumeAttachment',
]);

/** The namespace an object lands in (kubectl's default namespace, `default`, when the manifest names none); undefined for cluster-scoped kinds. */
export function namespaceOf(o: Manifest): string | undefined {
  return clusterScoped.has(o.kind ?? '') ? undefined : (o.metadata.namespace ?? 'default');
}

export function groupOf(o: Manifest): string {
  const av = o.apiVersion ?? 'v1';
  return av.includes('/') ? av.slice(0, av.indexOf('/')) : '';
}

const resources: Record<string, GroupVersionResource> = {
  Deployment: { group: 'apps', version: 'v1', resource: 'deployments' },
  StatefulSet: { group: 'apps', version: 'v1', resource: 'statefulsets' },
  DaemonSet: { group: 'apps', version: 'v1', resource: 'daemonsets' },
  ReplicaSet: { group: 'apps', version: 'v1', resource: 'replicasets' },
  ControllerRevision: { group: 'apps', version: 'v1', resource: 'controllerrevisions' },
  Job: { group: 'batch', version: 'v1', resource: 'jobs' },
  CronJob: { group: 'batch', version: 'v1', resource: 'cronjobs' },
  Pod: { group: '', version: 'v1', resource: 'pods' },
  Service: { group: '', version: 'v1', resource: 'services' },
  ReplicationController: { group: '', version: 'v1', resource: 'replicationcontrollers' },
  PersistentVolumeClaim: { group: '', version: 'v1', resource: 'persistentvolumeclaims' },
  ConfigMap: { group: '', version: 'v1', resource: 'configmaps' },
  Secret: { group: '', version: 'v1', resource: 'secrets' },
  ServiceAccount: { group: '', version: 'v1', resource: 'serviceaccounts' },
  Namespace: { group: '', version: 'v1', resource: 'namespaces' },
  Event: { group: '', version: 'v1', resource: 'events' },
  HorizontalPodAutoscaler: { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' },
  PodDisruptionBudget: { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets' },
  Ingress: { group: 'networking.k8s.io', version: 'v1', resource: 'ingresses' },
  NetworkPolicy: { group: 'networking.k8s.io', version: 'v1', resource: 'networkpolicies' },
  Role: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles' },
  RoleBinding: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'rolebindings' },
  ClusterRole: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles' },
  ClusterRoleBinding: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings' },
};

/** The resource of a kind: the table above, else the manifest's group/version and the lowercase plural. */
export function resourceOf(o: Manifest): GroupVersionResource {
  const known = resources[o.kind ?? ''];
  if (known) return known;
  const av = o.apiVersion ?? 'v1';
  const kind = (o.kind ?? '').toLowerCase();
  return { group: groupOf(o), version: av.includes('/') ? av.slice(av.indexOf('/') + 1) : av, resource: kind.endsWith('s') ? `${kind}es` : kind.endsWith('y') ? `${kind.slice(0, -1)}ies` : `${kind}s` };
}

export const gvr = (kind: keyof typeof resources): GroupVersionResource => resources[kind]!;

/** How kubectl names an object in its output: `deployment.apps/web`, `service/web`. */
export function kubectlName(o: Manifest): string {
  const g = groupOf(o);
  return `${(o.kind ?? '').toLowerCase()}${g ? `.${g}` : ''}/${o.metadata.name}`;
}

/** `<kind> <namespace>/<name>`, for messages. */
export function describeRef(o: Manifest): string {
  const ns = namespaceOf(o);
  return `${o.kind} ${ns ? `${ns}/` : ''}${o.metadata.name}`;
}

/** The kinds `kubectl get all` lists (the `all` category). */
export const categoryAll = new Set(['Pod', 'Service', 'ReplicationController', 'DaemonSet', 'Deployment', 'ReplicaSet', 'StatefulSet', 'HorizontalPodAutoscaler', 'CronJob', 'Job']);

/** The kinds whose objects a simulated cluster should hold a copy of once placed (RBAC governs access to atrium itself and is not asserted). */
export const placedKinds = new Set([
  'Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob', 'Pod', 'ReplicationController', 'Service', 'PersistentVolumeClaim',
  'ConfigMap', 'Secret', 'ServiceAccount', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'Ingress', 'NetworkPolicy',
]);

// ---- label selectors (matchLabels, matchExpressions; RC's plain map) ----

export function selectorMatches(selector: any, labels: Record<string, string> = {}): boolean {
  if (!selector) return false;
  if (!selector.matchLabels && !selector.matchExpressions) return Object.entries(selector as Record<string, string>).every(([k, v]) => labels[k] === v);
  for (const [k, v] of Object.entries((selector.matchLabels ?? {}) as Record<string, string>)) if (labels[k] !== v) return false;
  for (const e of (selector.matchExpressions ?? []) as { key: string; operator: string; values?: string[] }[]) {
    const has = e.key in labels;
    if (e.operator === 'In' && !(has && e.values!.includes(labels[e.key]!))) return false;
    if (e.operator === 'NotIn' && has && e.values!.includes(labels[e.key]!)) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

/** The selector as a label selector string (`a=b,c in (d)`), for list requests. */
export function selectorString(selector: any): string {
  if (!selector) return '';
  if (!selector.matchLabels && !selector.matchExpressions) return Object.entries(selector as Record<string, string>).map(([k, v]) => `${k}=${v}`).join(',');
  const parts = Object.entries((selector.matchLabels ?? {}) as Record<string, string>).map(([k, v]) => `${k}=${v}`);
  for (const e of (selector.matchExpressions ?? []) as { key: string; operator: string; values?: string[] }[]) {
    if (e.operator === 'In') parts.push(`${e.key} in (${e.values!.join(',')})`);
    else if (e.operator === 'NotIn') parts.push(`${e.key} notin (${e.values!.join(',')})`);
    else if (e.operator === 'Exists') parts.push(e.key);
    else if (e.operator === 'DoesNotExist') parts.push(`!${e.key}`);
  }
  return parts.join(',');
}

/** How many pods the workloads of `objects` run that `selector` (in `namespace`) selects, as one cluster would count them. */
/**
 * The pods a selector should match, as [least, most]: a workload an HorizontalPodAutoscaler of the same manifests
 * targets may run anything from the HPA's minReplicas to its maxReplicas (its scale-down stabilization may keep a
 * recent, higher recommendation after its replicas were lowered), every other one exactly its replicas.
 */
export function expectedPodsRange(objects: Manifest[], namespace: string, selector: any, nodes: number): [number, number] {
  let lo = 0;
  let hi = 0;
  for (const o of objects) {
    if (namespaceOf(o) !== namespace) continue;
    if (o.kind === 'Pod' && selectorMatches(selector, o.metadata.labels)) {
      lo += 1;
      hi += 1;
    }
    const template = o.spec?.template;
    if (!template || !['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicationController', 'ReplicaSet'].includes(o.kind!)) continue;
    if (!selectorMatches(selector, template.metadata?.labels)) continue;
    const replicas = o.kind === 'DaemonSet' ? nodes : (o.spec.replicas ?? 1);
    const hpa = objects.find((h) => h.kind === 'HorizontalPodAutoscaler' && namespaceOf(h) === namespace && h.spec?.scaleTargetRef?.kind === o.kind && h.spec?.scaleTargetRef?.name === o.metadata.name);
    lo += hpa ? Math.min(replicas, hpa.spec?.minReplicas ?? 1) : replicas;
    hi += hpa ? Math.max(replicas, hpa.spec?.maxReplicas ?? replicas) : replicas;
  }
  return [lo, hi];
}

/**
 * The replicas a Deployment, StatefulSet, ReplicaSet or ReplicationController of `objects` runs once settled, as
 * [least, most]: its spec.replicas (default 1), or, when an HorizontalPodAutoscaler of the same manifests targets it,
 * anything the HPA may choose (it rescales the workload on any cluster: podinfo's HPA has minReplicas 2 over a
 * Deployment of 1).
 */
export function replicaRange(objects: Manifest[], o: Manifest): [number, number] {
  const replicas = o.spec?.replicas ?? 1;
  const hpa = objects.find((h) => h.kind === 'HorizontalPodAutoscaler' && namespaceOf(h) === namespaceOf(o) && h.spec?.scaleTargetRef?.kind === o.kind && h.spec?.scaleTargetRef?.name === o.metadata.name);
  return hpa ? [Math.min(replicas, hpa.spec?.minReplicas ?? 1), Math.max(replicas, hpa.spec?.maxReplicas ?? replicas)] : [replicas, replicas];
}

/** Whether `n` is within `range`. */
export const inRange = (n: number, [lo, hi]: [number, number]): boolean => n >= lo && n <= hi;

// ---- readiness, as kubectl's status viewers judge it ----

const condition = (o: any, type: string) => ((o?.status?.conditions ?? []) as { type: string; status: string; reason?: string; message?: string }[]).find((c) => c.type === type);

/** kubectl's DeploymentStatusViewer: true when `rollout status` would report success, else what it waits for. */
export function deploymentRolledOut(d: any): true | string {
  const s = d.status ?? {};
  const want = d.spec?.replicas ?? 1;
  if ((d.metadata?.generation ?? 0) > (s.observedGeneration ?? 0)) return `observedGeneration ${s.observedGeneration ?? '<none>'} < generation ${d.metadata?.generation}`;
  const progressing = condition(d, 'Progressing');
  if (progressing?.reason === 'ProgressDeadlineExceeded') return `progress deadline exceeded: ${progressing.message}`;
  if ((s.updatedReplicas ?? 0) < want) return `${s.updatedReplicas ?? 0} of ${want} updated replicas`;
  if ((s.replicas ?? 0) > (s.updatedReplicas ?? 0)) return `${(s.replicas ?? 0) - (s.updatedReplicas ?? 0)} old replicas pending termination`;
  if ((s.availableReplicas ?? 0) < (s.updatedReplicas ?? 0)) return `${s.availableReplicas ?? 0} of ${s.updatedReplicas} updated replicas available`;
  return true;
}

/** kubectl's StatefulSetStatusViewer. */
export function statefulSetRolledOut(sts: any): true | string {
  const s = sts.status ?? {};
  const want = sts.spec?.replicas ?? 1;
  if ((sts.spec?.updateStrategy?.type ?? 'RollingUpdate') !== 'RollingUpdate') return `updateStrategy ${sts.spec.updateStrategy.type}`;
  if (!s.observedGeneration || (sts.metadata?.generation ?? 0) > s.observedGeneration) return `observedGeneration ${s.observedGeneration ?? '<none>'} < generation ${sts.metadata?.generation}`;
  if ((s.readyReplicas ?? 0) < want) return `${s.readyReplicas ?? 0} of ${want} replicas ready`;
  const partition = sts.spec?.updateStrategy?.rollingUpdate?.partition ?? 0;
  if (partition > 0) return (s.updatedReplicas ?? 0) >= want - partition ? true : `${s.updatedReplicas ?? 0} of ${want - partition} partitioned replicas updated`;
  if (s.updateRevision !== s.currentRevision) return `currentRevision ${s.currentRevision ?? '<none>'} != updateRevision ${s.updateRevision ?? '<none>'}`;
  return true;
}

/** kubectl's DaemonSetStatusViewer, and (as on one cluster) one pod per node of the whole fleet. */
export function daemonSetRolledOut(ds: any, nodes: number): true | string {
  const s = ds.status ?? {};
  if ((ds.spec?.updateStrategy?.type ?? 'RollingUpdate') !== 'RollingUpdate') return `updateStrategy ${ds.spec.updateStrategy.type}`;
  if ((ds.metadata?.generation ?? 0) > (s.observedGeneration ?? 0)) return `observedGeneration ${s.observedGeneration ?? '<none>'} < generation ${ds.metadata?.generation}`;
  if ((s.desiredNumberScheduled ?? 0) !== nodes) return `desiredNumberScheduled ${s.desiredNumberScheduled ?? 0}, expected one per node of the fleet: ${nodes}`;
  if ((s.updatedNumberScheduled ?? 0) < s.desiredNumberScheduled) return `${s.updatedNumberScheduled ?? 0} of ${s.desiredNumberScheduled} updated pods scheduled`;
  if ((s.numberAvailable ?? 0) < s.desiredNumberScheduled) return `${s.numberAvailable ?? 0} of ${s.desiredNumberScheduled} pods available`;
  return true;
}

/** One readiness check: a poll of the upstream object, then the kubectl command that must agree. */
export interface ReadinessCheck {
  /** `statefulset zookeeper/zk: kubectl rollout status`, for the test name. */
  title: string;
  /** The object whose readiness is checked (its diagnostics are printed on failure). */
  object: Manifest;
  /** true when ready, otherwise what is missing. */
  ready(current: any): true | string;
  /** The kubectl arguments confirming it (`--timeout` appended). */
  kubectl: string[];
  /** What kubectl's stdout must match. */
  expectOut?: RegExp;
}

/**
 * The checks that tell whether an object works as on one cluster: rollout status for Deployments, StatefulSets and
 * DaemonSets, `wait --for=condition=complete` for Jobs, Bound for PVCs (a StatefulSet's template claims through its rollout),
 * ready replicas for ReplicationControllers, Ready for bare Pods, an ingress address for LoadBalancer Services, the
 * disruption controller's verdict for PDBs, the current replicas for HPAs. `nodes` is the fleet's node count.
 */
export function readinessChecks(o: Manifest, all: Manifest[], nodes: number): ReadinessCheck[] {
  const ns = namespaceOf(o)!;
  const name = o.metadata.name;
  const n = ['-n', ns];
  switch (o.kind) {
    case 'Deployment':
      return [{ title: `deployment ${ns}/${name}: kubectl rollout status`, object: o, ready: deploymentRolledOut, kubectl: ['rollout', 'status', `deployment/${name}`, ...n], expectOut: /successfully rolled out/ }];
    case 'StatefulSet':
      // Its volumeClaimTemplates claims are the cluster's StatefulSet controller's: they live on the StatefulSet's
      // cluster, not in the workspace (docs/multicluster.md), and the cluster starts no pod before its claims are
      // Bound, so a successful rollout status means they are.
      return [{ title: `statefulset ${ns}/${name}: kubectl rollout status (its claims Bound on its cluster)`, object: o, ready: statefulSetRolledOut, kubectl: ['rollout', 'status', `statefulset/${name}`, ...n], expectOut: /roll(ing update|ed out| out) complete|successfully rolled out/ }];
    case 'DaemonSet':
      return [{ title: `daemonset ${ns}/${name}: kubectl rollout status (one pod on each of the ${nodes} nodes)`, object: o, ready: (d) => daemonSetRolledOut(d, nodes), kubectl: ['rollout', 'status', `daemonset/${name}`, ...n], expectOut: /successfully rolled out/ }];
    case 'Job':
      return [jobComplete(o)];
    case 'PersistentVolumeClaim':
      return [{ title: `persistentvolumeclaim ${ns}/${name}: Bound`, object: o, ready: pvcBound, kubectl: ['wait', '--for=jsonpath={.status.phase}=Bound', `persistentvolumeclaim/${name}`, ...n] }];
    case 'ReplicationController': {
      const want = o.spec?.replicas ?? 1;
      return [{ title: `replicationcontroller ${ns}/${name}: ${want} ready replicas`, object: o, ready: (rc) => rcReady(rc, want), kubectl: ['wait', `--for=jsonpath={.status.readyReplicas}=${want}`, `replicationcontroller/${name}`, ...n] }];
    }
    case 'Pod':
      // A pod that runs to completion (restartPolicy Never or OnFailure, e.g. a one-shot client) ends Succeeded, not
      // Ready: on any cluster `kubectl wait --for=condition=Ready` times out on it once it finished.
      if (o.spec?.restartPolicy === 'Never' || o.spec?.restartPolicy === 'OnFailure') {
        return [{ title: `pod ${ns}/${name}: Succeeded`, object: o, ready: (p) => (p.status?.phase === 'Succeeded' ? true : `phase ${p.status?.phase ?? '<none>'}`), kubectl: ['wait', '--for=jsonpath={.status.phase}=Succeeded', `pod/${name}`, ...n] }];
      }
      return [{ title: `pod ${ns}/${name}: Ready`, object: o, ready: (p) => (condition(p, 'Ready')?.status === 'True' ? true : `phase ${p.status?.phase ?? '<none>'}, Ready ${condition(p, 'Ready')?.status ?? '<none>'}`), kubectl: ['wait', '--for=condition=Ready', `pod/${name}`, ...n] }];
    case 'Service':
      if (o.spec?.type !== 'LoadBalancer') return [];
      return [{ title: `service ${ns}/${name}: a load balancer address`, object: o, ready: (s) => ((s.status?.loadBalancer?.ingress ?? []).some((i: any) => i.ip || i.hostname) ? true : `status.loadBalancer ${JSON.stringify(s.status?.loadBalancer ?? {})}`), kubectl: ['wait', '--for=jsonpath={.status.loadBalancer.ingress}', `service/${name}`, ...n] }];
    case 'PodDisruptionBudget': {
      const [lo, hi] = expectedPodsRange(all, ns, o.spec?.selector, nodes);
      const want = lo === hi ? `${lo}` : `${lo} to ${hi}`;
      // The verdict once every expected pod is healthy, as the disruption controller computes it: a budget may allow
      // nothing even then (minAvailable 67% of 3 pods needs all 3).
      const allows = (expected: number) => expected - desiredHealthy(o.spec ?? {}, expected) > 0;
      return [{
        title: `poddisruptionbudget ${ns}/${name}: ${want} expected pods, all healthy, the disruption verdict`,
        object: o,
        ready: (p) => {
          const e = p.status?.expectedPods;
          const verdict = typeof e === 'number' && allows(e) ? 'True' : 'False';
          return typeof e === 'number' && e >= lo && e <= hi && p.status?.currentHealthy === e && condition(p, 'DisruptionAllowed')?.status === verdict
            ? true
            : `expectedPods ${e ?? '<none>'} (want ${want}), currentHealthy ${p.status?.currentHealthy ?? '<none>'}, desiredHealthy ${p.status?.desiredHealthy ?? '<none>'}, DisruptionAllowed ${condition(p, 'DisruptionAllowed')?.status ?? '<none>'} (want ${verdict})`;
        },
        kubectl: ['wait', `--for=condition=DisruptionAllowed${allows(lo) || allows(hi) ? '' : '=False'}`, `poddisruptionbudget/${name}`, ...n],
      }];
    }
    case 'HorizontalPodAutoscaler': {
      const min = o.spec?.minReplicas ?? 1;
      return [{
        title: `horizontalpodautoscaler ${ns}/${name}: current replicas reported (at least ${min})`,
        object: o,
        ready: (h) => ((h.status?.currentReplicas ?? 0) >= min ? true : `status ${JSON.stringify(h.status ?? {})}`),
        kubectl: ['wait', `--for=jsonpath={.status.currentReplicas}`, `horizontalpodautoscaler.autoscaling/${name}`, ...n],
      }];
    }
    default:
      return [];
  }
}

/**
 * A budget's desiredHealthy for `expected` pods, as the disruption controller computes it: minAvailable (a percentage
 * rounded up), else expected minus maxUnavailable (a percentage rounded up), else expected.
 */
export function desiredHealthy(spec: { minAvailable?: number | string; maxUnavailable?: number | string }, expected: number): number {
  const scaled = (v: number | string) => (typeof v === 'number' ? v : Math.ceil((Number.parseInt(v, 10) * expected) / 100));
  if (spec.minAvailable !== undefined) return scaled(spec.minAvailable);
  if (spec.maxUnavailable !== undefined) return Math.max(0, expected - scaled(spec.maxUnavailable));
  return expected;
}

export function jobComplete(o: Manifest): ReadinessCheck {
  const ns = namespaceOf(o)!;
  return {
    title: `job ${ns}/${o.metadata.name}: kubectl wait --for=condition=complete`,
    object: o,
    ready: (j) => (condition(j, 'Complete')?.status === 'True' ? true : condition(j, 'Failed')?.status === 'True' ? `Failed: ${condition(j, 'Failed')?.message}` : `active ${j.status?.active ?? 0}, succeeded ${j.status?.succeeded ?? 0}, conditions ${JSON.stringify(j.status?.conditions ?? [])}`),
    kubectl: ['wait', '--for=condition=complete', `job/${o.metadata.name}`, '-n', ns],
    expectOut: /condition met/,
  };
}

function pvcBound(p: any): true | string {
  return p.status?.phase === 'Bound' ? true : `phase ${p.status?.phase ?? '<none>'}`;
}

function rcReady(rc: any, want: number): true | string {
  const s = rc.status ?? {};
  return (s.readyReplicas ?? 0) === want && (s.replicas ?? 0) === want && (s.observedGeneration ?? 0) >= (rc.metadata?.generation ?? 0) ? true : `replicas ${s.replicas ?? 0}, ready ${s.readyReplicas ?? 0}, want ${want}`;
}

// ---- the fleet as the checks see it ----

/** Where the checks look: kubectl with the workspace kubeconfig, atrium's admin client and the clusters' clients. */
export interface Target {
  /** The workspace's kubeconfig (server URL ending in /clusters/<path>). */
  kubeconfig: string;
  /** atrium's admin client and the workspace's logical cluster name. */
  up: RestClient;
  cluster: string;
  /** The simulated clusters' admin clients. */
  downstream: { name: string; client: RestClient }[];
}

export function kubectl(t: Target, args: string[], timeoutMs = 90_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return runKubectl(t.kubeconfig, args, { timeoutMs });
}

/** The object upstream, or undefined when it is not there. */
export async function upstream(t: Target, o: Manifest): Promise<any | undefined> {
  const ns = namespaceOf(o);
  return t.up.get(resourceOf(o), o.metadata.name, { cluster: t.cluster, ...(ns ? { namespace: ns } : {}) }).catch(() => undefined);
}

/** Polls `check` (once a second, up to `timeoutMs`), then runs its kubectl command; throws with diagnostics unless both agree it is ready. */
export async function assertReady(t: Target, check: ReadinessCheck, timeoutMs: number): Promise<void> {
  let last = 'the object does not exist upstream';
  const polled = await eventually(check.title, async () => {
    const cur = await upstream(t, check.object);
    if (!cur) {
      last = 'the object does not exist upstream';
      return false;
    }
    const r = check.ready(cur);
    if (r === true) return true;
    last = r;
    return false;
  }, timeoutMs, 1000).then(() => true, () => false);
  const args = [...check.kubectl, `--timeout=${polled ? 60 : 5}s`];
  const r = await kubectl(t, args);
  const agreed = r.code === 0 && (!check.expectOut || check.expectOut.test(r.stdout));
  if (polled && agreed) return;
  const why = polled ? 'the API shows it ready, but kubectl does not agree' : `not ready after ${Math.round(timeoutMs / 1000)} s: ${last}`;
  throw new Error(`${check.title}: ${why}\n$ kubectl ${args.join(' ')}\n  exit ${r.code}${r.stdout.trim() ? `, stdout: ${r.stdout.trim()}` : ''}${r.stderr.trim() ? `, stderr: ${r.stderr.trim()}` : ''}\n${await diagnose(t, check.object)}`);
}

const cap = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)} …(${s.length - n} more)` : s);

function statusSummary(o: any): string {
  const s = { ...(o.status ?? {}) };
  return cap(JSON.stringify(s), 900);
}

async function eventsFor(client: RestClient, scope: { cluster?: string; namespace: string }, name: string): Promise<string[]> {
  const list = await client.list(gvr('Event'), scope, { fieldSelector: `involvedObject.name=${name}` }).catch(() => undefined);
  return (list?.items ?? []).slice(-8).map((e: any) => `${e.type} ${e.reason}: ${e.message}${e.count > 1 ? ` (x${e.count})` : ''}`);
}

/** The downstream namespace of upstream namespace `ns` on a cluster, if the syncer created one. */
export async function downstreamNamespace(t: Target, client: RestClient, ns: string): Promise<string | undefined> {
  const list = await client.list(gvr('Namespace'));
  return list.items.find((n) => {
    const l = locatorOf(n);
    return l?.cluster === t.cluster && l.namespace === ns;
  })?.metadata?.name;
}

/** The downstream copies of `o` on `client`'s cluster: the object itself or its `<name>--<cluster>` shares. */
export async function downstreamCopies(t: Target, client: RestClient, o: Manifest): Promise<{ namespace?: string; copies: any[]; error?: string }> {
  const ns = namespaceOf(o);
  try {
    const dns = ns ? await downstreamNamespace(t, client, ns) : undefined;
    if (ns && !dns) return { copies: [] };
    const list = await client.list(resourceOf(o), dns ? { namespace: dns } : {});
    return { namespace: dns, copies: list.items.filter((x) => x.metadata?.name === o.metadata.name || x.metadata?.name?.startsWith(`${o.metadata.name}--`)) };
  } catch (err) {
    return { copies: [], error: (err as Error).message };
  }
}

/** What the failure of a check on `o` prints: upstream status, sync annotations, finalizers and events; per cluster, its copies, their pods and events. */
export async function diagnose(t: Target, o: Manifest): Promise<string> {
  const ns = namespaceOf(o);
  const lines: string[] = [];
  const cur = await upstream(t, o);
  if (!cur) lines.push(`  upstream: ${describeRef(o)} does not exist`);
  else {
    lines.push(`  upstream status: ${statusSummary(cur)}`);
    const ann = Object.entries((cur.metadata?.annotations ?? {}) as Record<string, string>).filter(([k]) => k.startsWith('synced.workload.kcp.io/'));
    if (ann.length) lines.push(`  upstream sync state: ${ann.map(([k, v]) => `${k}=${v}`).join('; ')}`);
    if (cur.metadata?.finalizers?.length) lines.push(`  upstream finalizers: ${cur.metadata.finalizers.join(', ')}`);
    const labels = Object.entries((cur.metadata?.labels ?? {}) as Record<string, string>).filter(([k]) => k.includes('workload.kcp.io') || k.includes('scheduling'));
    if (labels.length) lines.push(`  upstream placement labels: ${labels.map(([k, v]) => `${k}=${v}`).join(', ')}`);
  }
  if (ns) {
    const ev = await eventsFor(t.up, { cluster: t.cluster, namespace: ns }, o.metadata.name);
    lines.push(`  upstream events: ${ev.length ? ev.join(' | ') : '<none>'}`);
  }
  for (const d of t.downstream) {
    const { namespace, copies, error } = await downstreamCopies(t, d.client, o);
    if (error) {
      lines.push(`  ${d.name}: ${error}`);
      continue;
    }
    if (ns && !namespace) {
      lines.push(`  ${d.name}: no namespace synced for ${ns}`);
      continue;
    }
    if (!copies.length) {
      lines.push(`  ${d.name}: no copy in ${namespace ?? '<cluster scope>'}`);
      continue;
    }
    for (const c of copies) {
      lines.push(`  ${d.name}: ${c.kind ?? o.kind} ${namespace ? `${namespace}/` : ''}${c.metadata.name} status ${statusSummary(c)}`);
      const selector = c.spec?.selector;
      if (namespace && selector && ['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicationController', 'Job'].includes(o.kind!)) {
        const pods = await d.client.list(gvr('Pod'), { namespace }, { labelSelector: selectorString(selector) }).catch(() => undefined);
        const byState = new Map<string, number>();
        for (const p of (pods?.items ?? []) as any[]) {
          const key = `${p.status?.phase ?? 'Pending'}${condition(p, 'Ready')?.status === 'True' ? '/Ready' : ''}${p.spec?.nodeName ? '' : '/unscheduled'}`;
          byState.set(key, (byState.get(key) ?? 0) + 1);
        }
        lines.push(`    pods: ${byState.size ? [...byState].map(([k, v]) => `${v} ${k}`).join(', ') : 'none'}`);
      }
      if (namespace) {
        const ev = await eventsFor(d.client, { namespace }, c.metadata.name);
        if (ev.length) lines.push(`    events: ${ev.join(' | ')}`);
      }
    }
  }
  return cap(lines.join('\n'), 6000);
}

/**
 * The tables of a `kubectl get` output, one per blank-line-separated block, each as rows of cells keyed by header.
 * Cells are cut at the header's column positions, so headers with spaces (NODE SELECTOR) and empty cells work.
 */
export function tables(stdout: string): { headers: string[]; rows: Record<string, string>[] }[] {
  return stdout
    .split(/\n\s*\n/)
    .map((block) => block.split('\n').filter((l) => l.trim() !== ''))
    .filter((lines) => lines.length > 0)
    .map(([header, ...lines]) => {
      const starts: number[] = [];
      const headers: string[] = [];
      for (const m of header!.matchAll(/\S+(?: \S+)*/g)) {
        starts.push(m.index!);
        headers.push(m[0]);
      }
      const rows = lines.map((line) => Object.fromEntries(headers.map((h, i) => [h, line.slice(starts[i], starts[i + 1]).trim()])));
      return { headers, rows };
    });
}

/**
 * Why a second `kubectl apply` of an unchanged manifest reports the object "configured" against kube-apiserver too
 * (kubectl's three-way strategic merge patch is never empty for it, although applying it changes nothing), or
 * undefined when kube-apiserver answers "unchanged":
 * - a Secret with stringData: stringData is write-only, the live Secret never has it, so the patch always adds it;
 * - a PodDisruptionBudget's spec.selector has patchStrategy "replace": the patch always carries it;
 * - a StatefulSet's volumeClaimTemplates is a list without merge strategy that the server defaults (volumeMode,
 *   status.phase), so the live list never equals the manifest's and the patch always replaces it;
 * - a downwardAPI volume whose items name a fieldRef without apiVersion: the items list is atomic and the server
 *   defaults `apiVersion: v1` into it (checked against kube-apiserver 1.32 with the website's dapi-volume.yaml);
 * - a quantity not in its canonical text (`cpu: .5`, `2000m`): the live object has `500m`, `2`;
 * - a field set to what Go's round trip leaves out (`hostNetwork: false`, `initialDelaySeconds: 0`, `args: null`,
 *   `nodeSelector: {}`): the live object lacks it, so the patch always sets it (checked against kube-apiserver 1.32
 *   with public Helm charts' output).
 */
/** Whether every quantity of the manifest is in the canonical text the server stores (true for kinds not catalogued). */
function quantitiesCanonical(o: Manifest): boolean {
  const type = catalogTypeOf(o);
  if (!type) return true;
  const copy = JSON.parse(JSON.stringify(o));
  canonicalizeQuantities(copy, builtinCatalog, type);
  return JSON.stringify(copy) === JSON.stringify(o);
}

export function alwaysPatchedByApply(o: Manifest): string | undefined {
  if (o.kind === 'Secret' && o.stringData) return 'a Secret with stringData';
  if (o.kind === 'PodDisruptionBudget' && o.spec?.selector) return 'a PDB selector (patchStrategy replace)';
  if (o.kind === 'StatefulSet' && o.spec?.volumeClaimTemplates?.length) return 'StatefulSet volumeClaimTemplates (defaulted by the server)';
  const podSpec = o.kind === 'Pod' ? o.spec : o.kind === 'CronJob' ? o.spec?.jobTemplate?.spec?.template?.spec : o.spec?.template?.spec;
  const volumes: any[] = Array.isArray(podSpec?.volumes) ? podSpec.volumes : [];
  if (volumes.some((v) => (v?.downwardAPI?.items ?? []).some((i: any) => i?.fieldRef && !i.fieldRef.apiVersion))) return 'downwardAPI volume items (fieldRef.apiVersion defaulted by the server)';
  if (!quantitiesCanonical(o)) return 'a quantity not in its canonical text';
  if (roundTripDrops(o)) return "a field set to a value Go's round trip leaves out (a zero, null or empty value)";
  return undefined;
}

/** The catalog type of a built-in kind's manifest, if any. */
function catalogTypeOf(o: Manifest): string | undefined {
  const [group, version] = (o.apiVersion ?? 'v1').includes('/') ? (o.apiVersion as string).split('/') : ['', o.apiVersion ?? 'v1'];
  return [...builtinCatalog.values()].find((t) => t.gvk?.some((g) => g.group === group && g.version === version && g.kind === o.kind))?.name;
}

/** Whether the stored form of the manifest lacks something the manifest sets (the round trip only otherwise adds). */
function roundTripDrops(o: Manifest): boolean {
  const type = catalogTypeOf(o);
  if (!type) return false;
  const stored = JSON.parse(JSON.stringify(o));
  roundTripAsGo(stored, builtinCatalog, type, builtinProtobufHints.emitZero);
  const covers = (sent: unknown, kept: unknown): boolean => {
    if (sent === null || typeof sent !== 'object') return kept !== undefined;
    if (kept === null || typeof kept !== 'object') return false;
    if (Array.isArray(sent)) return Array.isArray(kept) && sent.length === kept.length && sent.every((v, i) => covers(v, kept[i]));
    return Object.entries(sent).every(([k, v]) => covers(v, (kept as Record<string, unknown>)[k]));
  };
  return !covers(o, stored);
}
