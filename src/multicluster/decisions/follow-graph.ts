/**
 * The follow graph: which clusters an object that does not run pods itself goes to, decided by the workloads that use
 * it. Given the workloads of a namespace and where each runs, every follower goes to exactly the clusters its users
 * run on:
 *
 * | follower | used by |
 * | --- | --- |
 * | ConfigMap | a pod template's volumes (configMap, projected), envFrom configMapRef, env valueFrom configMapKeyRef; one no workload names: every workload of the namespace (read by name through the API) |
 * | Secret | volumes (secret, projected), envFrom secretRef, env secretKeyRef, imagePullSecrets; a placed ServiceAccount's imagePullSecrets/secrets; a placed Ingress's TLS |
 * | ServiceAccount | serviceAccountName |
 * | PersistentVolumeClaim | volumes[].persistentVolumeClaim.claimName (a StatefulSet's volumeClaimTemplates are the cluster's) |
 * | Service | its selector matches the pod template labels; a Service without selector (ExternalName, manual endpoints) goes to every cluster of the namespace |
 * | Endpoints, EndpointSlice | the Service of that name (`kubernetes.io/service-name`) when it has no selector; otherwise the cluster's endpoint controllers make them |
 * | NetworkPolicy | spec.podSelector matches the pod template labels (empty: every workload of the namespace) |
 * | Ingress | the Services its backends name |
 * | PodDisruptionBudget | spec.selector matches the pod template labels |
 * | HorizontalPodAutoscaler | spec.scaleTargetRef (kind and name; a split Deployment's children count as it) |
 *
 * A ConfigMap no workload of the namespace names is still often read by one: programs fetch their settings by name
 * through the API (ingress-nginx's `--configmap`, a sidecar collecting the ConfigMaps with a label, an operator's
 * settings), and nothing in a pod template says so. It goes wherever any workload of the namespace runs, as it would
 * sit beside them on one cluster. Secrets and ServiceAccounts stay strictly by reference: spreading a credential that
 * no pod names to every cluster (an upstream tool's token, a Helm release) is not something to do by guess.
 *
 * Cluster names are the SyncTargets' names. Pure: the controller supplies the namespace's objects.
 */
import { fromLabelSelector, LabelSelectorParseError, type LabelSelectorSpec } from '../../apimachinery/labels/selector.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { ingressSecrets, ingressServices, podReferences, serviceAccountSecrets, type PodReferences, type PodTemplateLike } from './workload-references.js';

/** A workload of the namespace and where it runs. */
export interface PlacedWorkload {
  /** Its kind (Deployment, StatefulSet, Pod, ...). */
  kind: string;
  /** Its name; for a split child `<root>--<cluster>`. */
  name: string;
  /** For a split child: the root Deployment's name (what an HPA or a user names). */
  root?: string;
  template: PodTemplateLike | undefined;
  /** The clusters it runs on. */
  clusters: readonly string[];
  /** Pods per cluster (for PodDisruptionBudget shares); absent clusters count as 0. */
  pods?: Readonly<Record<string, number>>;
}

export interface FollowContext {
  workloads: readonly PlacedWorkload[];
  /** The namespace's Services (for Ingresses, Endpoints and EndpointSlices). */
  services?: readonly KubeObject[];
  /** The namespace's ServiceAccounts (their Secrets follow them). */
  serviceAccounts?: readonly KubeObject[];
  /** The namespace's Ingresses (their TLS Secrets follow them). */
  ingresses?: readonly KubeObject[];
  /** Every cluster the namespace is placed on (selector-less Services go to all of them). */
  namespaceClusters: readonly string[];
}

const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';

/**
 * The clusters `obj` (of `resource`, a core or group plural: `configmaps`, `services`, `ingresses`, ...) goes to,
 * sorted; empty when nothing placed uses it. Resources outside the table above give the empty list.
 */
export function followClusters(resource: string, obj: KubeObject, ctx: FollowContext): string[] {
  return [...followSet(resource, obj, ctx, new Set())].sort();
}

function followSet(resource: string, obj: KubeObject, ctx: FollowContext, visiting: Set<string>): Set<string> {
  const name = obj.metadata?.name ?? '';
  // Guards the indirections (Secret → ServiceAccount/Ingress → ...) against cycles.
  const id = `${resource}/${name}`;
  if (visiting.has(id)) return new Set();
  visiting.add(id);
  const byRefs = (kind: keyof PodReferences) => union(usersOf(ctx)[kind].get(name) ?? []);
  switch (resource) {
    case 'configmaps':
      return usersOf(ctx).configMaps.has(name) ? byRefs('configMaps') : union(ctx.workloads);
    case 'serviceaccounts':
      return byRefs('serviceAccounts');
    case 'persistentvolumeclaims': {
      // A claim is storage where pods mount it: only the clusters that run pods of its users (a split Deployment of 1
      // replica runs on one of its clusters; elsewhere the claim would wait for a first consumer forever). With no
      // pods anywhere (scaled to 0), it stays with the workloads' clusters.
      const users = usersOf(ctx).persistentVolumeClaims.get(name) ?? [];
      const running = new Set<string>();
      for (const w of users) for (const c of w.clusters) if ((w.pods?.[c] ?? 1) > 0) running.add(c);
      return running.size > 0 ? running : union(users);
    }
    case 'secrets': {
      const out = byRefs('secrets');
      for (const sa of ctx.serviceAccounts ?? []) {
        if (sa.metadata?.name === 'default' || !serviceAccountSecrets(sa).has(name)) continue;
        for (const c of followSet('serviceaccounts', sa, ctx, visiting)) out.add(c);
      }
      for (const ing of ctx.ingresses ?? []) {
        if (!ingressSecrets(ing).has(name)) continue;
        for (const c of followSet('ingresses', ing, ctx, visiting)) out.add(c);
      }
      return out;
    }
    case 'services':
      return serviceClusters(obj, ctx);
    case 'endpoints':
      return selectorlessServiceClusters(name, ctx);
    case 'endpointslices': {
      const labels = obj.metadata?.labels ?? {};
      const service = labels[SERVICE_NAME_LABEL];
      // The controllers' own (a Service's pods, a custom Endpoints mirrored): each cluster's controllers make theirs.
      if (!service || labels[MANAGED_BY_LABEL] === 'endpointslice-controller.k8s.io' || labels[MANAGED_BY_LABEL] === 'endpointslicemirroring-controller.k8s.io') return new Set();
      return selectorlessServiceClusters(service, ctx);
    }
    case 'networkpolicies':
      return union(selectedBy((obj.spec as { podSelector?: LabelSelectorSpec } | undefined)?.podSelector ?? {}, ctx));
    case 'poddisruptionbudgets':
      return union(selectedBy((obj.spec as { selector?: LabelSelectorSpec } | undefined)?.selector, ctx));
    case 'ingresses': {
      const out = new Set<string>();
      for (const svc of ingressServices(obj)) {
        const s = ctx.services?.find((x) => x.metadata?.name === svc);
        if (s) for (const c of serviceClusters(s, ctx)) out.add(c);
      }
      return out;
    }
    case 'horizontalpodautoscalers':
      return union(hpaTargets(obj, ctx));
    default:
      return new Set();
  }
}

function serviceClusters(svc: KubeObject, ctx: FollowContext): Set<string> {
  const spec = (svc.spec ?? {}) as { selector?: Record<string, string> | null; type?: string };
  const selector = spec.selector ?? {};
  if (spec.type === 'ExternalName' || Object.keys(selector).length === 0) return new Set(ctx.namespaceClusters);
  return union(ctx.workloads.filter((w) => matchesMap(selector, w.template?.metadata?.labels)));
}

function selectorlessServiceClusters(name: string, ctx: FollowContext): Set<string> {
  const svc = ctx.services?.find((s) => s.metadata?.name === name);
  if (!svc) return new Set();
  const selector = (svc.spec as { selector?: Record<string, string> | null } | undefined)?.selector ?? {};
  return Object.keys(selector).length === 0 ? new Set(ctx.namespaceClusters) : new Set();
}

/** The workloads whose pod template labels `selector` (a metav1.LabelSelector; absent selects none) matches. */
export function selectedBy(selector: LabelSelectorSpec | null | undefined, ctx: FollowContext): PlacedWorkload[] {
  let sel;
  try {
    sel = fromLabelSelector(selector);
  } catch (err) {
    if (err instanceof LabelSelectorParseError) return [];
    throw err;
  }
  return ctx.workloads.filter((w) => w.template !== undefined && sel.matches(w.template.metadata?.labels ?? {}));
}

/**
 * The workloads an HPA's scaleTargetRef names: by kind and name, a split Deployment's children standing for their
 * root. `split` is true when the target is divided over clusters (its children), so the HPA must act upstream.
 */
export function hpaTargets(hpa: KubeObject, ctx: FollowContext): PlacedWorkload[] {
  const ref = (hpa.spec as { scaleTargetRef?: { kind?: string; name?: string } } | undefined)?.scaleTargetRef;
  if (!ref?.kind || !ref.name) return [];
  return ctx.workloads.filter((w) => w.kind === ref.kind && (w.root !== undefined ? w.root === ref.name : w.name === ref.name));
}

/** Pods per cluster over `workloads` (a workload without `pods` counts 1 per cluster). */
export function podsPerCluster(workloads: readonly PlacedWorkload[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const w of workloads) for (const c of w.clusters) out[c] = (out[c] ?? 0) + (w.pods ? (w.pods[c] ?? 0) : 1);
  return out;
}

type Users = Record<keyof PodReferences, Map<string, PlacedWorkload[]>>;

/** Per context (built once): for each kind of reference, the workloads naming each name. */
const usersCache = new WeakMap<FollowContext, Users>();
function usersOf(ctx: FollowContext): Users {
  let users = usersCache.get(ctx);
  if (users) return users;
  users = { configMaps: new Map(), secrets: new Map(), serviceAccounts: new Map(), persistentVolumeClaims: new Map() };
  for (const w of ctx.workloads) {
    const refs = podReferences(w.template?.spec);
    for (const kind of Object.keys(users) as (keyof PodReferences)[]) {
      for (const name of refs[kind]) {
        const list = users[kind].get(name);
        if (list) list.push(w);
        else users[kind].set(name, [w]);
      }
    }
  }
  usersCache.set(ctx, users);
  return users;
}

function union(workloads: readonly PlacedWorkload[]): Set<string> {
  const out = new Set<string>();
  for (const w of workloads) for (const c of w.clusters) out.add(c);
  return out;
}

function matchesMap(selector: Record<string, string>, labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {};
  return Object.entries(selector).every(([k, v]) => l[k] === v);
}
