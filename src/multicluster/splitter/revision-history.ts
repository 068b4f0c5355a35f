/**
 * The revision history of a split Deployment, pure: the ReplicaSets kube's deployment controller would keep for a root
 * Deployment, kept in the workspace as the control plane's record of the Deployment's revisions. They run nothing (the
 * root's `<name>--<cluster>` children run the pods, each cluster with its own ReplicaSets); they exist so that what
 * reads a Deployment's ReplicaSets works on a split one: `kubectl rollout history/undo` (polymorphichelpers
 * history.go, rollback.go: ReplicaSets of the namespace matching the selector and controlled by the Deployment, their
 * `deployment.kubernetes.io/revision`) and Helm's `--wait` (ready.go: the new ReplicaSet, the one whose template equals
 * the Deployment's ignoring `pod-template-hash`, with `status.readyReplicas >= replicas - maxUnavailable`).
 *
 * As upstream (pkg/controller/deployment/sync.go, util/deployment_util.go):
 * - one ReplicaSet per distinct pod template, `<deployment>-<pod-template-hash>` (computeTemplateHash with the
 *   collision count; a name taken by something else is tried with the next count), labels = template labels +
 *   `pod-template-hash`, selector = the Deployment's + `pod-template-hash`, owned by the Deployment (controller,
 *   blockOwnerDeletion: the garbage collector deletes them with it);
 * - `deployment.kubernetes.io/revision`: a new template gets max(old revisions)+1; going back to an old template
 *   reuses its ReplicaSet, which gets max+1; the Deployment carries the current one's revision;
 * - the Deployment's annotations are copied onto the current ReplicaSet (not kubectl's last-applied-configuration nor
 *   the deployment controller's own), with `desired-replicas` and `max-replicas` (replicas + maxSurge);
 * - old ReplicaSets are scaled to 0; beyond `revisionHistoryLimit` (default 10) the lowest revisions of them go;
 * - a paused Deployment gets no new ReplicaSet and no revision bump.
 *
 * Status (an approximation, as the clusters report per Deployment, not per template): the current ReplicaSet's counts
 * come from the root's aggregated status once it observed the root's generation (every cluster holds the current
 * template): replicas = fullyLabeledReplicas = updatedReplicas (pods of the current template), and ready/available =
 * the root's ready/available minus the pods of older templates still running (readyReplicas - (replicas -
 * updatedReplicas)), a lower bound that is exact once the rollout is complete — so Helm never sees a new ReplicaSet
 * ready before its pods are. Before the generation is observed the status is left as it was. Old ReplicaSets report 0.
 */
import { deepCopy, isPlainObject, type JsonObject, type KubeObject } from '../../apimachinery/object.js';
import { computeTemplateHash, podTemplateHashLabel, templateMatches } from '../../registry/builtin/workloads/pod-template-hash.js';
import { REVISION_HISTORY_LABEL } from '../api/kind-placement.js';

export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';
export const DESIRED_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/max-replicas';

/** Annotations never copied from a Deployment to its ReplicaSets (deployment_util.go skipCopyAnnotation), plus atrium's cluster. */
const SKIP_COPY = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  REVISION_ANNOTATION,
  'deployment.kubernetes.io/revision-history',
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  'deprecated.deployment.rollback.to',
  'kcp.io/cluster',
]);

export interface ReplicaSetStatus {
  replicas: number;
  fullyLabeledReplicas: number;
  readyReplicas: number;
  availableReplicas: number;
  observedGeneration?: number;
}

/** One ReplicaSet of the history as it should be: metadata and spec to write, and the status (undefined: keep it). */
export interface DesiredReplicaSet {
  /** The ReplicaSet (name, namespace, labels, annotations, ownerReferences, spec); existing ones keep their other metadata. */
  object: KubeObject;
  /** Whether it exists already (update) or must be created. */
  exists: boolean;
  status?: Omit<ReplicaSetStatus, 'observedGeneration'>;
}

export interface RevisionHistoryPlan {
  /** Every ReplicaSet kept, the current one first (when there is one; when paused, the newest old one as it is). */
  keep: DesiredReplicaSet[];
  /** Names of old ReplicaSets beyond revisionHistoryLimit. */
  delete: string[];
  /** The Deployment's `deployment.kubernetes.io/revision` (undefined: no current ReplicaSet, leave it). */
  revision?: string;
}

export function revisionOf(rs: KubeObject): number {
  return Number(rs.metadata?.annotations?.[REVISION_ANNOTATION] ?? 0) || 0;
}

export function isControlledBy(obj: KubeObject, uid: string | undefined): boolean {
  return uid !== undefined && (obj.metadata?.ownerReferences ?? []).some((r) => r.controller === true && r.uid === uid);
}

/** An int-or-percent against `total`, rounded up (maxSurge). */
function surgeOf(d: KubeObject, desired: number): number {
  const spec = d.spec as { strategy?: { type?: string; rollingUpdate?: { maxSurge?: unknown } } } | undefined;
  if (spec?.strategy?.type === 'Recreate') return 0;
  const v = spec?.strategy?.rollingUpdate?.maxSurge ?? '25%';
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.endsWith('%')) return Math.ceil((Number(v.slice(0, -1)) * desired) / 100) || 0;
  if (typeof v === 'string' && /^\d+$/.test(v)) return Number(v);
  return 0;
}

/** The status of the current template's ReplicaSet from the root's aggregated status (see the module comment). */
export function currentReplicaSetStatus(root: KubeObject): Omit<ReplicaSetStatus, 'observedGeneration'> | undefined {
  const st = (root.status ?? {}) as { observedGeneration?: number; replicas?: number; updatedReplicas?: number; readyReplicas?: number; availableReplicas?: number };
  if ((st.observedGeneration ?? 0) < (root.metadata?.generation ?? 1)) return undefined;
  const updated = st.updatedReplicas ?? 0;
  const older = Math.max(0, (st.replicas ?? 0) - updated);
  const clip = (n: number | undefined) => Math.max(0, Math.min(updated, (n ?? 0) - older));
  return { replicas: updated, fullyLabeledReplicas: updated, readyReplicas: clip(st.readyReplicas), availableReplicas: clip(st.availableReplicas) };
}

const zeroStatus = { replicas: 0, fullyLabeledReplicas: 0, readyReplicas: 0, availableReplicas: 0 };

/**
 * The history `root` should have, given `owned` (the ReplicaSets it controls) and `nameTaken` (whether a ReplicaSet
 * name is used by one it does not control, for the collision count).
 */
export function planRevisionHistory(root: KubeObject, owned: readonly KubeObject[], nameTaken: (name: string) => boolean = () => false): RevisionHistoryPlan {
  const spec = (root.spec ?? {}) as { replicas?: number; template?: JsonObject; selector?: { matchLabels?: Record<string, string> }; minReadySeconds?: number; revisionHistoryLimit?: number; paused?: boolean };
  const meta = root.metadata!;
  const live = owned.filter((rs) => !rs.metadata?.deletionTimestamp);
  const template = spec.template ?? {};
  const current = live.find((rs) => templateMatches((rs.spec as { template?: JsonObject } | undefined)?.template, template));
  let old = live.filter((rs) => rs !== current);
  const keep: DesiredReplicaSet[] = [];
  if (!current && spec.paused && old.length > 0) {
    // Paused on a template never rolled out: the clusters still run the last revision; it stays as it is.
    const newest = old.reduce((a, b) => (revisionOf(b) > revisionOf(a) ? b : a));
    old = old.filter((rs) => rs !== newest);
    keep.push({ object: deepCopy(newest), exists: true });
  }
  const maxOld = Math.max(0, ...old.map(revisionOf));
  const desired = typeof spec.replicas === 'number' ? spec.replicas : 1;
  const copied: Record<string, string> = {};
  for (const [k, v] of Object.entries(meta.annotations ?? {})) if (!SKIP_COPY.has(k)) copied[k] = v;
  const replicaAnnotations = { [DESIRED_REPLICAS_ANNOTATION]: String(desired), [MAX_REPLICAS_ANNOTATION]: String(desired + surgeOf(root, desired)) };

  let revision: string | undefined;
  if (current || !spec.paused) {
    let hash: string;
    let base: KubeObject;
    if (current) {
      base = deepCopy(current);
      hash = current.metadata?.labels?.[podTemplateHashLabel] ?? current.metadata!.name!.slice(meta.name!.length + 1);
    } else {
      let collisions = (root.status as { collisionCount?: number } | undefined)?.collisionCount;
      hash = computeTemplateHash(template, collisions);
      while (nameTaken(`${meta.name}-${hash}`)) hash = computeTemplateHash(template, (collisions = (collisions ?? 0) + 1));
      base = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: `${meta.name}-${hash}`, namespace: meta.namespace } };
    }
    const rsRevision = current && (revisionOf(current) > maxOld || spec.paused) ? revisionOf(current) : maxOld + 1;
    revision = String(rsRevision);
    const rsTemplate = deepCopy(template);
    const tmeta = (isPlainObject(rsTemplate.metadata) ? rsTemplate.metadata : (rsTemplate.metadata = {})) as JsonObject;
    const templateLabels = { ...((tmeta.labels as Record<string, string> | undefined) ?? {}), [podTemplateHashLabel]: hash };
    tmeta.labels = templateLabels;
    const selector = deepCopy((spec.selector ?? {}) as JsonObject) as { matchLabels?: Record<string, string> };
    selector.matchLabels = { ...(selector.matchLabels ?? {}), [podTemplateHashLabel]: hash };
    base.metadata = {
      ...base.metadata,
      labels: { ...templateLabels, [REVISION_HISTORY_LABEL]: 'true' },
      annotations: { ...(base.metadata?.annotations ?? {}), ...copied, ...replicaAnnotations, [REVISION_ANNOTATION]: revision },
      ownerReferences: [ownerRef(root)],
    };
    // An existing ReplicaSet keeps its template and selector as the server stored them (upstream never changes them).
    const had = current?.spec as { selector?: unknown; template?: unknown } | undefined;
    base.spec = { ...(had ?? {}), replicas: desired, minReadySeconds: spec.minReadySeconds ?? 0, selector: had?.selector ?? selector, template: had?.template ?? rsTemplate };
    keep.push({ object: base, exists: current !== undefined, status: currentReplicaSetStatus(root) ?? (current ? undefined : zeroStatus) });
  }

  // Old ones: scaled to 0 (with the replica annotations of the scale, as upstream's scaleReplicaSet), zero status;
  // beyond the history limit the lowest revisions are deleted.
  const limit = typeof spec.revisionHistoryLimit === 'number' ? spec.revisionHistoryLimit : 10;
  const byAge = [...old].sort((a, b) => revisionOf(a) - revisionOf(b) || (Date.parse(a.metadata?.creationTimestamp ?? '') || 0) - (Date.parse(b.metadata?.creationTimestamp ?? '') || 0));
  const drop = byAge.slice(0, Math.max(0, byAge.length - limit));
  for (const rs of byAge) {
    if (drop.includes(rs)) continue;
    const next = deepCopy(rs);
    const replicas = (next.spec as { replicas?: number } | undefined)?.replicas;
    if (replicas !== 0) {
      next.spec = { ...(next.spec ?? {}), replicas: 0 };
      next.metadata!.annotations = { ...(next.metadata?.annotations ?? {}), ...replicaAnnotations };
    }
    keep.push({ object: next, exists: true, status: zeroStatus });
  }
  return { keep, delete: drop.map((rs) => rs.metadata!.name!), revision };
}

function ownerRef(root: KubeObject) {
  return { apiVersion: root.apiVersion ?? 'apps/v1', kind: root.kind ?? 'Deployment', name: root.metadata!.name!, uid: root.metadata!.uid!, controller: true, blockOwnerDeletion: true };
}
