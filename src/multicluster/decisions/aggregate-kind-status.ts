/**
 * The one upstream status of an object that runs on several clusters (a DaemonSet on every cluster, a Service or an
 * Ingress following a split Deployment, a PodDisruptionBudget with a share per cluster), folded from what each
 * cluster reports, as the kind's own controller would write it for the whole fleet:
 *
 * - DaemonSet: desired/current/ready/updated/available/unavailable/misscheduled counts summed; observedGeneration
 *   only once every cluster observed the object's generation (so `kubectl rollout status daemonset` waits for all).
 * - Service, Ingress: status.loadBalancer.ingress is the union of the clusters' addresses (in cluster order,
 *   duplicates dropped); a Service's conditions come from the first cluster reporting them.
 * - PodDisruptionBudget: currentHealthy, desiredHealthy, expectedPods and disruptionsAllowed summed; observedGeneration
 *   as for DaemonSets; condition DisruptionAllowed True while some cluster allows a disruption.
 * - PersistentVolumeClaim: phase Bound only when Bound everywhere (else the first other phase), capacity and
 *   accessModes of the first cluster.
 * - anything else: the status of the first cluster (by name) that reported one.
 *
 * Each cluster's status is already in upstream terms (the syncer maps observedGeneration to the upstream
 * generation). Clusters that have not reported count as zeros and keep observedGeneration from being reached. Pure.
 */
import type { Condition } from './types.js';

export interface ReportedStatus {
  /** The SyncTarget name. */
  cluster: string;
  /** Its downstream status in upstream terms; undefined when it reported none yet. */
  status?: Record<string, unknown>;
}

export interface AggregateInput {
  kind: string;
  /** The upstream object's metadata.generation. */
  generation?: number;
  /** Every cluster the object is assigned to, reported or not. */
  clusters: readonly ReportedStatus[];
  /** The status the object shows now (its observedGeneration is not lowered below what every cluster observed). */
  previous?: Record<string, unknown>;
  now: string;
}

const DAEMONSET_COUNTERS = ['currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady', 'updatedNumberScheduled', 'numberAvailable', 'numberUnavailable'];
const PDB_COUNTERS = ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'];

/** The aggregated status (see the file comment). */
export function aggregateKindStatus(input: AggregateInput): Record<string, unknown> {
  const clusters = [...input.clusters].sort((a, b) => (a.cluster < b.cluster ? -1 : a.cluster > b.cluster ? 1 : 0));
  switch (input.kind) {
    case 'DaemonSet':
      return withObserved(input, clusters, sums(clusters, DAEMONSET_COUNTERS));
    case 'PodDisruptionBudget':
      return withObserved(input, clusters, pdbStatus(clusters, input));
    case 'Service':
    case 'Ingress':
      return loadBalancerStatus(input.kind, clusters);
    case 'PersistentVolumeClaim':
      return pvcStatus(clusters);
    default:
      return { ...(clusters.find((c) => c.status !== undefined)?.status ?? {}) };
  }
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

function sums(clusters: readonly ReportedStatus[], fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) out[f] = clusters.reduce((s, c) => s + num(c.status?.[f]), 0);
  return out;
}

/**
 * Adds observedGeneration: the generation once every cluster reported it (or more), else what the object showed,
 * lowered below the generation; absent while nothing was ever observed.
 */
function withObserved(input: AggregateInput, clusters: readonly ReportedStatus[], status: Record<string, unknown>): Record<string, unknown> {
  const generation = input.generation;
  const observed = clusters.map((c) => c.status?.observedGeneration);
  let value: number | undefined;
  if (generation !== undefined && clusters.length > 0 && observed.every((o) => typeof o === 'number' && o >= generation)) value = generation;
  else {
    const prev = input.previous?.observedGeneration;
    if (typeof prev === 'number') value = generation === undefined ? prev : Math.min(prev, generation - 1);
    const reported = observed.filter((o): o is number => typeof o === 'number');
    if (reported.length === clusters.length && reported.length > 0) value = Math.max(value ?? 0, Math.min(...reported));
  }
  return value === undefined ? status : { observedGeneration: value, ...status };
}

function pdbStatus(clusters: readonly ReportedStatus[], input: AggregateInput): Record<string, unknown> {
  const out = sums(clusters, PDB_COUNTERS);
  const allowed = (out.disruptionsAllowed as number) > 0;
  const previous = ((input.previous?.conditions as Condition[] | undefined) ?? []).find((c) => c.type === 'DisruptionAllowed');
  const status = allowed ? 'True' : 'False';
  const reason = allowed ? 'SufficientPods' : 'InsufficientPods';
  const fromClusters = clusters.flatMap((c) => ((c.status?.conditions as Condition[] | undefined) ?? []).filter((x) => x.type === 'DisruptionAllowed'));
  if (clusters.every((c) => c.status === undefined)) return out;
  const condition: Condition & { observedGeneration?: number } = {
    type: 'DisruptionAllowed',
    status,
    reason: fromClusters.find((c) => c.status === status)?.reason ?? reason,
    message: fromClusters.find((c) => c.status === status)?.message ?? '',
    lastTransitionTime: previous?.status === status && previous.lastTransitionTime ? previous.lastTransitionTime : input.now,
  };
  if (input.generation !== undefined) condition.observedGeneration = input.generation;
  out.conditions = [condition];
  return out;
}

function loadBalancerStatus(kind: string, clusters: readonly ReportedStatus[]): Record<string, unknown> {
  const seen = new Set<string>();
  const ingress: unknown[] = [];
  for (const c of clusters) {
    const lb = (c.status?.loadBalancer as { ingress?: unknown[] } | undefined)?.ingress ?? [];
    for (const entry of lb) {
      const key = JSON.stringify(entry);
      if (seen.has(key)) continue;
      seen.add(key);
      ingress.push(entry);
    }
  }
  const out: Record<string, unknown> = { loadBalancer: ingress.length ? { ingress } : {} };
  if (kind === 'Service') {
    const conditions = clusters.find((c) => Array.isArray(c.status?.conditions) && (c.status!.conditions as unknown[]).length > 0)?.status?.conditions;
    if (conditions) out.conditions = conditions;
  }
  return out;
}

function pvcStatus(clusters: readonly ReportedStatus[]): Record<string, unknown> {
  const reported = clusters.filter((c) => c.status !== undefined);
  if (reported.length === 0) return {};
  const first = reported[0]!.status!;
  const phases = clusters.map((c) => c.status?.phase ?? 'Pending');
  const phase = phases.every((p) => p === 'Bound') ? 'Bound' : (phases.find((p) => p !== 'Bound') as string);
  const out: Record<string, unknown> = { phase };
  if (first.accessModes !== undefined) out.accessModes = first.accessModes;
  if (first.capacity !== undefined) out.capacity = first.capacity;
  return out;
}

/**
 * The status of a PodDisruptionBudget that selects nothing any cluster runs (placed nowhere): what the disruption
 * controller writes for a budget with no matching pods — nothing healthy, nothing expected, no disruption allowed
 * (DisruptionAllowed False, InsufficientPods), desiredHealthy the integer minAvailable (a percentage or maxUnavailable
 * needs the pods' controllers' scale, of which there is none: 0) — observed at the budget's generation, so that
 * clients waiting for it to be processed (`kubectl wait`, upstream's e2e) see it processed as on one cluster.
 */
export function unplacedBudgetStatus(pdb: { metadata?: { generation?: number }; spec?: Record<string, unknown>; status?: Record<string, unknown> }, now: string): Record<string, unknown> {
  const minAvailable = pdb.spec?.minAvailable;
  const desiredHealthy = typeof minAvailable === 'number' ? minAvailable : 0;
  const previous = ((pdb.status?.conditions as Condition[] | undefined) ?? []).find((c) => c.type === 'DisruptionAllowed');
  const generation = pdb.metadata?.generation;
  const condition: Condition & { observedGeneration?: number } = {
    type: 'DisruptionAllowed',
    status: 'False',
    reason: 'InsufficientPods',
    message: '',
    lastTransitionTime: previous?.status === 'False' && previous.lastTransitionTime ? previous.lastTransitionTime : now,
  };
  if (generation !== undefined) condition.observedGeneration = generation;
  return {
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    disruptionsAllowed: 0,
    currentHealthy: 0,
    desiredHealthy,
    expectedPods: 0,
    conditions: [condition],
  };
}
