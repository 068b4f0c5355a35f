/**
 * pods/eviction (policy/v1 Eviction), what `kubectl drain` and every node-draining tool post: deleting a pod only
 * when its PodDisruptionBudget allows it, as kube-apiserver 1.32's EvictionREST does —
 *
 * - a pod that is pending, finished or already being deleted goes at once (no budget consulted);
 * - with no budget selecting it the pod goes; with more than one the answer is a 500 Status (upstream does not
 *   support that);
 * - a pod that is not Ready goes without spending the budget when the budget's unhealthyPodEvictionPolicy is
 *   AlwaysAllow, or when the budget is already met (currentHealthy ≥ desiredHealthy > 0);
 * - otherwise the budget must have been observed (status.observedGeneration current: else 429 "still being
 *   processed") and allow a disruption (else 429 with the budget's needs as the cause); one disruption is then spent
 *   (status.disruptionsAllowed decremented, the pod recorded in status.disruptedPods for the disruption controller),
 *   retried on conflicts;
 * - the pod then gets the DisruptionTarget condition (reason EvictionByEvictionAPI) and is deleted, with the
 *   Eviction's deleteOptions (preconditions, dryRun). A running pod is deleted with a resourceVersion precondition, so
 *   it is not evicted as it turns healthy under the budget's feet.
 *
 * Like upstream's, the writes it makes are the storage's own (no admission beyond the Eviction's own CREATE).
 * Deliberate difference: conflicts on the budget are retried after 50 ms rather than upstream's 500 ms.
 */
import * as fe from '../../../apimachinery/field-errors.js';
import { fromLabelSelector, LabelSelectorParseError, type LabelSelectorSpec } from '../../../apimachinery/labels/selector.js';
import { type KubeObject, isPlainObject, nowRFC3339 } from '../../../apimachinery/object.js';
import { errors, StatusError } from '../../../apimachinery/status.js';
import type { GenericStore } from '../../generic/store.js';
import { updatePodCondition } from './pod-condition.js';
import type { ComputedCreate, RequestContext, ResourceDefinition } from '../../rest.js';

/** Upstream's MaxDisruptedPodSize: beyond it evictions are refused until the disruption controller catches up. */
const MAX_DISRUPTED_PODS = 2000;
const BUDGET_RETRIES = 20;
const BUDGET_RETRY_DELAY_MS = 50;
const VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget.";

/** The stores an eviction reads and writes in the request's logical cluster. */
export interface EvictionStores {
  pods(cluster: string): GenericStore | undefined;
  podDisruptionBudgets(cluster: string): GenericStore | undefined;
}

interface EvictionDeleteOptions {
  dryRun: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  orphanDependents?: boolean;
  gracePeriodSeconds?: number;
}

/** The discovery entry of pods/eviction, as kube-apiserver lists it. */
export const evictionSubresource = { name: 'eviction', kind: 'Eviction', group: 'policy', version: 'v1', verbs: ['create'] };

/** `def` with pods/eviction when it is core/v1 Pods; any other definition unchanged. */
export function withPodEviction(def: ResourceDefinition, stores: EvictionStores): ResourceDefinition {
  if (def.group !== '' || def.resource !== 'pods' || def.computedCreates?.eviction) return def;
  return {
    ...def,
    subresources: [...def.subresources.filter((s) => s.name !== 'eviction'), evictionSubresource],
    computedCreates: { ...(def.computedCreates ?? {}), eviction: podEvictionCreate(stores) },
  };
}

function podEvictionCreate(stores: EvictionStores): ComputedCreate {
  const create: ComputedCreate = async (ctx, req) => {
    const eviction = req.object;
    const meta = isPlainObject(eviction.metadata) ? eviction.metadata : {};
    if (meta.name !== req.name) throw errors.badRequest('name in URL does not match name in Eviction object');
    const sent = isPlainObject((eviction as { deleteOptions?: unknown }).deleteOptions) ? ((eviction as { deleteOptions: Record<string, unknown> }).deleteOptions) : undefined;
    if (sent?.ignoreStoreReadErrorWithClusterBreakingPotential === true) {
      throw errors.invalid('policy', 'Eviction', req.name, [fe.invalid('deleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential', true, 'can not be set for pod eviction, try after removing the option')]);
    }
    const options = deleteOptionsOf(sent, req.dryRun === true);
    if (req.validate) await req.validate(eviction);
    const pods = stores.pods(ctx.cluster);
    if (!pods) throw errors.notFound({ group: '', resource: 'pods' }, req.name);

    const pod = await pods.get(ctx, req.namespace, req.name);
    if (canIgnoreBudget(pod)) {
      const opts = enforcesResourceVersion(pod) && options.preconditions?.resourceVersion === undefined ? withResourceVersion(options, pod) : options;
      await markAndDelete(pods, ctx, req.namespace, req.name, opts);
      return success();
    }

    const budgets = await budgetsSelecting(stores.podDisruptionBudgets(ctx.cluster), ctx, pod);
    if (budgets.length > 1) {
      return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.', code: 500 } as KubeObject;
    }
    let unhealthyGoes = false;
    if (budgets.length === 1) {
      const budget = budgets[0]!;
      const spec = (budget.spec ?? {}) as { unhealthyPodEvictionPolicy?: string };
      const status = (budget.status ?? {}) as { currentHealthy?: number; desiredHealthy?: number };
      if (!isReady(pod) && (spec.unhealthyPodEvictionPolicy === 'AlwaysAllow' || ((status.currentHealthy ?? 0) >= (status.desiredHealthy ?? 0) && (status.desiredHealthy ?? 0) > 0))) {
        unhealthyGoes = true;
      } else {
        await spendDisruption(stores.podDisruptionBudgets(ctx.cluster)!, ctx, budget, req.name, options.dryRun);
      }
    }
    const opts = unhealthyGoes ? withResourceVersion(options, pod) : options;
    try {
      await markAndDelete(pods, ctx, req.namespace, req.name, opts);
    } catch (err) {
      // The unhealthy pod turned healthy (or changed) in between: the budget has to be asked after all.
      if (err instanceof StatusError && err.code === 409 && unhealthyGoes && options.preconditions?.resourceVersion === undefined) throw stillProcessing(budgets[0]!.metadata!.name!);
      throw err;
    }
    return success();
  };
  create.admitted = true;
  return create;
}

function success(): KubeObject {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 } as KubeObject;
}

/** The Eviction's deleteOptions with the request's dryRun (propagateDryRun: both set must agree). */
function deleteOptionsOf(sent: Record<string, unknown> | undefined, requestDryRun: boolean): EvictionDeleteOptions {
  const bodyDryRun = Array.isArray(sent?.dryRun) ? (sent!.dryRun as unknown[]).map(String) : [];
  if (bodyDryRun.length > 0 && requestDryRun && !(bodyDryRun.length === 1 && bodyDryRun[0] === 'All')) {
    throw errors.internal(`Non-matching dry-run options in request and content: [All] and [${bodyDryRun.join(' ')}]`);
  }
  const out: EvictionDeleteOptions = { dryRun: requestDryRun || bodyDryRun.includes('All') };
  const pre = isPlainObject(sent?.preconditions) ? (sent!.preconditions as Record<string, unknown>) : undefined;
  if (pre && (typeof pre.uid === 'string' || typeof pre.resourceVersion === 'string')) {
    out.preconditions = {};
    if (typeof pre.uid === 'string') out.preconditions.uid = pre.uid;
    if (typeof pre.resourceVersion === 'string') out.preconditions.resourceVersion = pre.resourceVersion;
  }
  const policy = sent?.propagationPolicy;
  if (policy === 'Foreground' || policy === 'Background' || policy === 'Orphan') out.propagationPolicy = policy;
  if (typeof sent?.orphanDependents === 'boolean') out.orphanDependents = sent.orphanDependents;
  if (typeof sent?.gracePeriodSeconds === 'number' && Number.isInteger(sent.gracePeriodSeconds)) out.gracePeriodSeconds = sent.gracePeriodSeconds;
  return out;
}

function withResourceVersion(options: EvictionDeleteOptions, pod: KubeObject): EvictionDeleteOptions {
  return { ...options, preconditions: { ...(options.preconditions ?? {}), resourceVersion: pod.metadata!.resourceVersion! } };
}

const phaseOf = (pod: KubeObject) => (pod.status as { phase?: string } | undefined)?.phase;

/** canIgnorePDB: a pending or finished pod, or one already being deleted. */
function canIgnoreBudget(pod: KubeObject): boolean {
  const phase = phaseOf(pod);
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || !!pod.metadata?.deletionTimestamp;
}

/** shouldEnforceResourceVersion: not for finished pods or ones being deleted. */
function enforcesResourceVersion(pod: KubeObject): boolean {
  const phase = phaseOf(pod);
  return !(phase === 'Succeeded' || phase === 'Failed' || !!pod.metadata?.deletionTimestamp);
}

function isReady(pod: KubeObject): boolean {
  const conditions = ((pod.status as { conditions?: unknown } | undefined)?.conditions ?? []) as { type?: string; status?: string }[];
  return Array.isArray(conditions) && conditions.some((c) => c?.type === 'Ready' && c.status === 'True');
}

/** The namespace's budgets whose selector selects the pod (an invalid or absent selector selects nothing). */
async function budgetsSelecting(store: GenericStore | undefined, ctx: RequestContext, pod: KubeObject): Promise<KubeObject[]> {
  if (!store) return [];
  const list = await store.list(ctx, pod.metadata!.namespace!, { selection: {} });
  const labels = pod.metadata?.labels ?? {};
  return list.items.filter((pdb) => {
    const selector = (pdb.spec as { selector?: LabelSelectorSpec | null } | undefined)?.selector;
    if (selector === undefined || selector === null) return false;
    try {
      return fromLabelSelector(selector).matches(labels);
    } catch (err) {
      if (err instanceof LabelSelectorParseError) return false;
      throw err;
    }
  });
}

function stillProcessing(name: string): StatusError {
  return tooManyRequests(`The disruption budget ${name} is still being processed by the server.`, 10);
}

function tooManyRequests(cause: string, retryAfterSeconds: number): StatusError {
  const details: Record<string, unknown> = { causes: [{ reason: 'DisruptionBudget', message: cause }] };
  if (retryAfterSeconds > 0) details.retryAfterSeconds = retryAfterSeconds;
  return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: VIOLATION, reason: 'TooManyRequests', details, code: 429 } as never);
}

/**
 * checkAndDecrement with RetryOnConflict: the budget observed and allowing a disruption, one is spent and the pod
 * recorded as disrupted (on a dry run nothing is written). A conflict reads the budget again.
 */
async function spendDisruption(store: GenericStore, ctx: RequestContext, first: KubeObject, podName: string, dryRun: boolean): Promise<void> {
  let budget = first;
  const name = budget.metadata!.name!;
  for (let attempt = 0; attempt < BUDGET_RETRIES; attempt++) {
    const status = { ...((budget.status ?? {}) as Record<string, unknown>) } as { observedGeneration?: number; disruptionsAllowed?: number; disruptedPods?: Record<string, string>; desiredHealthy?: number; currentHealthy?: number; conditions?: Record<string, unknown>[] };
    if ((status.observedGeneration ?? 0) < (budget.metadata?.generation ?? 0)) throw stillProcessing(name);
    const allowed = status.disruptionsAllowed ?? 0;
    if (allowed < 0) throw errors.forbidden({ group: 'policy', resource: 'poddisruptionbudget' }, name, 'pdb disruptions allowed is negative');
    if (Object.keys(status.disruptedPods ?? {}).length > MAX_DISRUPTED_PODS) {
      throw errors.forbidden({ group: 'policy', resource: 'poddisruptionbudget' }, name, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
    }
    if (allowed === 0) throw tooManyRequests(`The disruption budget ${name} needs ${status.desiredHealthy ?? 0} healthy pods and has ${status.currentHealthy ?? 0} currently`, 0);
    status.disruptionsAllowed = allowed - 1;
    if (status.disruptionsAllowed === 0) status.conditions = withDisruptionAllowedFalse(status.conditions, budget.metadata?.generation);
    if (dryRun) return;
    status.disruptedPods = { ...(status.disruptedPods ?? {}), [podName]: nowRFC3339() };
    try {
      await store.update(ctx, budget.metadata!.namespace!, name, { ...budget, status }, { dryRun: false }, 'status');
      return;
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 409)) throw err;
      await new Promise((r) => setTimeout(r, BUDGET_RETRY_DELAY_MS));
      budget = await store.get(ctx, budget.metadata!.namespace!, name);
    }
  }
  throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `The request did not complete within the allotted timeout (couldn't update PodDisruptionBudget "${name}" due to conflicts)`, reason: 'Timeout', details: { retryAfterSeconds: 10 }, code: 504 } as never);
}

/** pdbhelper.UpdateDisruptionAllowedCondition for no disruption left: DisruptionAllowed False, InsufficientPods. */
function withDisruptionAllowedFalse(conditions: Record<string, unknown>[] | undefined, generation: number | undefined): Record<string, unknown>[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === 'DisruptionAllowed');
  const existing = i >= 0 ? list[i]! : undefined;
  const changed = !existing || existing.status !== 'False';
  const next: Record<string, unknown> = {
    type: 'DisruptionAllowed',
    status: 'False',
    observedGeneration: existing?.observedGeneration ?? generation ?? 0,
    lastTransitionTime: changed ? nowRFC3339() : existing!.lastTransitionTime,
    reason: 'InsufficientPods',
    // SetStatusCondition replaces the message with the new condition's, which is empty.
    message: '',
  };
  if (i >= 0) list[i] = next;
  else list.push(next);
  return list;
}

/**
 * addConditionAndDeletePod: the pod gets DisruptionTarget=True (its preconditions checked against the stored pod
 * first), then is deleted — the resourceVersion precondition moved to the version that write made. A dry run only deletes (dry).
 */
async function markAndDelete(pods: GenericStore, ctx: RequestContext, namespace: string, name: string, options: EvictionDeleteOptions): Promise<void> {
  let preconditions = options.preconditions;
  if (!options.dryRun) {
    const { object } = await pods.guaranteedUpdate(
      ctx,
      namespace,
      name,
      (current) => {
        const pod = current!;
        const uid = preconditions?.uid;
        if (uid && uid !== pod.metadata?.uid) {
          throw errors.conflict({ group: '', resource: 'Pod' }, name, `the UID in the precondition (${uid}) does not match the UID in record (${pod.metadata?.uid}). The object might have been deleted and then recreated`);
        }
        const rv = preconditions?.resourceVersion;
        if (rv && rv !== pod.metadata?.resourceVersion) {
          throw errors.conflict({ group: '', resource: 'Pod' }, name, `the ResourceVersion in the precondition (${rv}) does not match the ResourceVersion in record (${pod.metadata?.resourceVersion}). The object might have been modified`);
        }
        pod.status = { ...((pod.status ?? {}) as Record<string, unknown>), conditions: updatePodCondition((pod.status as { conditions?: Record<string, unknown>[] } | undefined)?.conditions, { type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' }) };
        return pod;
      },
      { dryRun: false },
      'status',
    );
    if (preconditions?.resourceVersion !== undefined) preconditions = { ...preconditions, resourceVersion: object.metadata!.resourceVersion! };
  }
  await pods.delete(ctx, namespace, name, {
    dryRun: options.dryRun,
    ...(preconditions ? { preconditions } : {}),
    ...(options.propagationPolicy ? { propagationPolicy: options.propagationPolicy } : {}),
    ...(options.orphanDependents !== undefined ? { orphanDependents: options.orphanDependents } : {}),
    ...(options.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: options.gracePeriodSeconds } : {}),
  });
}
