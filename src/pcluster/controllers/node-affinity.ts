/**
 * Which nodes a pod may land on, as the scheduler's NodeAffinity, NodeUnschedulable and TaintToleration filters and
 * the DaemonSet controller decide it: spec.nodeSelector, required node affinity (matchExpressions on labels,
 * matchFields on metadata.name), taints against tolerations; plus the tolerations every DaemonSet pod gets and the
 * node-name affinity that pins a DaemonSet pod to its node. Pure functions.
 *
 * The simulated cluster runs no node lifecycle controller, so the taints it would write are derived here from the
 * node's state: `node.kubernetes.io/not-ready:NoSchedule` while the Ready condition is not True and
 * `node.kubernetes.io/unschedulable:NoSchedule` on a cordoned node.
 */
import { type JsonObject, type KubeObject, isPlainObject } from '../../apimachinery/object.js';

export interface Taint {
  key: string;
  value?: string;
  effect: string;
}

export interface Toleration extends JsonObject {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

export const taintNotReady = 'node.kubernetes.io/not-ready';
export const taintUnreachable = 'node.kubernetes.io/unreachable';
export const taintUnschedulable = 'node.kubernetes.io/unschedulable';

const asList = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);
const specOf = (o: JsonObject): JsonObject => (isPlainObject(o.spec) ? o.spec : {});

/** v1.Toleration.ToleratesTaint. */
export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  switch (t.operator ?? 'Equal') {
    case 'Exists':
      return true;
    case 'Equal':
    case '':
      return (t.value ?? '') === (taint.value ?? '');
    default:
      return false;
  }
}

/** v1helper.FindMatchingUntoleratedTaint: the first taint passing `filter` that no toleration tolerates. */
export function findUntoleratedTaint(taints: readonly Taint[], tolerations: readonly Toleration[], filter: (t: Taint) => boolean): Taint | undefined {
  return taints.filter(filter).find((taint) => !tolerations.some((t) => toleratesTaint(t, taint)));
}

export function nodeIsReady(node: KubeObject): boolean {
  const status = isPlainObject(node.status) ? node.status : {};
  return asList(status.conditions).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** The node's taints, with those the node lifecycle controller would have added for its state (see above). */
export function nodeTaints(node: KubeObject): Taint[] {
  const taints: Taint[] = asList(specOf(node).taints).map((t) => ({ key: String(t.key ?? ''), value: t.value === undefined ? undefined : String(t.value), effect: String(t.effect ?? '') }));
  const has = (key: string, effect: string) => taints.some((t) => t.key === key && t.effect === effect);
  if (!nodeIsReady(node) && !has(taintNotReady, 'NoSchedule')) taints.push({ key: taintNotReady, effect: 'NoSchedule' });
  if (specOf(node).unschedulable === true && !has(taintUnschedulable, 'NoSchedule')) taints.push({ key: taintUnschedulable, effect: 'NoSchedule' });
  return taints;
}

export function podTolerations(pod: JsonObject): Toleration[] {
  return asList(specOf(pod).tolerations) as Toleration[];
}

/** One NodeSelectorRequirement against a value set (labels, or the node's fields). */
function requirementMatches(req: JsonObject, values: Record<string, string>): boolean {
  const key = String(req.key ?? '');
  const list = Array.isArray(req.values) ? req.values.map(String) : [];
  const has = Object.prototype.hasOwnProperty.call(values, key);
  const value = values[key];
  switch (req.operator) {
    case 'In':
      return has && list.includes(value!);
    case 'NotIn':
      return !has || !list.includes(value!);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Gt':
    case 'Lt': {
      if (!has || list.length !== 1) return false;
      const a = Number(value);
      const b = Number(list[0]);
      if (!Number.isInteger(a) || !Number.isInteger(b)) return false;
      return req.operator === 'Gt' ? a > b : a < b;
    }
    default:
      return false;
  }
}

/** A NodeSelectorTerm: every expression and field requirement matches; an empty term matches nothing. */
export function nodeSelectorTermMatches(term: JsonObject, node: KubeObject): boolean {
  const exprs = asList(term.matchExpressions);
  const fields = asList(term.matchFields);
  if (exprs.length === 0 && fields.length === 0) return false;
  const labels = (node.metadata?.labels ?? {}) as Record<string, string>;
  return exprs.every((r) => requirementMatches(r, labels)) && fields.every((r) => requirementMatches(r, { 'metadata.name': node.metadata?.name ?? '' }));
}

/** The pod's required node affinity terms, or undefined when it has none. */
function requiredTerms(pod: JsonObject): JsonObject[] | undefined {
  const affinity = isPlainObject(specOf(pod).affinity) ? (specOf(pod).affinity as JsonObject) : {};
  const nodeAffinity = isPlainObject(affinity.nodeAffinity) ? affinity.nodeAffinity : {};
  const required = nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution;
  return isPlainObject(required) ? asList(required.nodeSelectorTerms) : undefined;
}

/** nodeaffinity.GetRequiredNodeAffinity(pod).Match(node): spec.nodeSelector, then the required terms (ORed). */
export function podMatchesNodeAffinity(pod: JsonObject, node: KubeObject): boolean {
  const selector = isPlainObject(specOf(pod).nodeSelector) ? (specOf(pod).nodeSelector as Record<string, string>) : {};
  const labels = (node.metadata?.labels ?? {}) as Record<string, string>;
  if (!Object.entries(selector).every(([k, v]) => labels[k] === v)) return false;
  const terms = requiredTerms(pod);
  return terms === undefined || terms.some((t) => nodeSelectorTermMatches(t, node));
}

/**
 * What the scheduler's filters say about one node for one pod: undefined when it fits (resources aside), else the
 * upstream reason text. Order as the default profile runs them: NodeUnschedulable, NodeName, NodeAffinity,
 * TaintToleration.
 */
export function nodeFilterReason(pod: JsonObject, node: KubeObject): string | undefined {
  const tolerations = podTolerations(pod);
  const taints = nodeTaints(node);
  if (specOf(node).unschedulable === true && !tolerations.some((t) => toleratesTaint(t, { key: taintUnschedulable, effect: 'NoSchedule' }))) {
    return 'node(s) were unschedulable';
  }
  const nodeName = specOf(pod).nodeName;
  if (typeof nodeName === 'string' && nodeName !== '' && nodeName !== node.metadata?.name) return "node(s) didn't match the requested node name";
  if (!podMatchesNodeAffinity(pod, node)) return "node(s) didn't match Pod's node affinity/selector";
  const untolerated = findUntoleratedTaint(
    taints.filter((t) => t.key !== taintUnschedulable),
    tolerations,
    (t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute',
  );
  if (untolerated) return `node(s) had untolerated taint {${untolerated.key}: ${untolerated.value ?? ''}}`;
  return undefined;
}

/**
 * util.AddOrUpdateDaemonPodTolerations: NoExecute for not-ready and unreachable (so taint-based eviction leaves
 * daemon pods alone), NoSchedule for disk, memory and PID pressure and unschedulable, and network-unavailable for
 * host-network pods. Returns the new list (existing tolerations for the same key and effect are replaced).
 */
export function withDaemonPodTolerations(tolerations: readonly Toleration[], hostNetwork: boolean): Toleration[] {
  const defaults: Toleration[] = [
    { key: taintNotReady, operator: 'Exists', effect: 'NoExecute' },
    { key: taintUnreachable, operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: taintUnschedulable, operator: 'Exists', effect: 'NoSchedule' },
  ];
  if (hostNetwork) defaults.push({ key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' });
  const out = tolerations.map((t) => ({ ...t }));
  for (const d of defaults) {
    const i = out.findIndex((t) => t.key === d.key && t.effect === d.effect);
    if (i >= 0) out[i] = d;
    else out.push(d);
  }
  return out;
}

/**
 * util.ReplaceDaemonSetPodNodeNameNodeAffinity: the pod's required node affinity becomes one term selecting the node
 * by metadata.name (other affinity, and preferred node affinity, are kept).
 */
export function withNodeNameAffinity(affinity: unknown, nodeName: string): JsonObject {
  const a: JsonObject = isPlainObject(affinity) ? { ...affinity } : {};
  const nodeAffinity: JsonObject = isPlainObject(a.nodeAffinity) ? { ...a.nodeAffinity } : {};
  nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution = {
    nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] }],
  };
  a.nodeAffinity = nodeAffinity;
  return a;
}

/** util.GetTargetNodeName: spec.nodeName, or the node a DaemonSet pod's metadata.name affinity names. */
export function targetNodeName(pod: JsonObject): string | undefined {
  const nodeName = specOf(pod).nodeName;
  if (typeof nodeName === 'string' && nodeName) return nodeName;
  for (const term of requiredTerms(pod) ?? []) {
    for (const f of asList(term.matchFields)) {
      if (f.key === 'metadata.name' && f.operator === 'In' && Array.isArray(f.values) && f.values.length === 1) return String(f.values[0]);
    }
  }
  return undefined;
}
