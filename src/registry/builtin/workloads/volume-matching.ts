/**
 * Which PersistentVolume a PersistentVolumeClaim may bind, as kube-controller-manager's PV controller decides it
 * (pkg/controller/volume/persistentvolume: GetPersistentVolumeClaimClass, FindMatchingVolume): the claim's and the
 * volume's class, capacity, access modes, volume mode, selector and node affinity. Pure; shared by the simulated
 * cluster's volume controller and a workspace's binder of its own volumes (multicluster/controllers/volume-binder.ts).
 */
import { type JsonObject, type KubeObject, isPlainObject } from '../../../apimachinery/object.js';
import { integerValue, isQuantity } from '../../../apimachinery/quantity.js';
import { fromLabelSelector, type LabelSelectorSpec } from '../../../apimachinery/labels/selector.js';

/** The PV controller's marks of a binding it completed, and of a side of it that it (not the user) set. */
export const bindCompletedAnnotation = 'pv.kubernetes.io/bind-completed';
export const boundByControllerAnnotation = 'pv.kubernetes.io/bound-by-controller';

/** The class a claim names in the beta annotation, which wins over spec.storageClassName. */
export const betaStorageClassAnnotation = 'volume.beta.kubernetes.io/storage-class';

const specOf = (o: KubeObject | undefined): JsonObject => (o && isPlainObject(o.spec) ? o.spec : {});
const statusOf = (o: KubeObject | undefined): JsonObject => (o && isPlainObject(o.status) ? o.status : {});
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** GetPersistentVolumeClaimClass: the beta annotation, else spec.storageClassName, else "". */
export function claimClassName(claim: KubeObject): string {
  const annotated = claim.metadata?.annotations?.[betaStorageClassAnnotation];
  if (annotated !== undefined) return annotated;
  const spec = isPlainObject(claim.spec) ? claim.spec : {};
  return typeof spec.storageClassName === 'string' ? spec.storageClassName : '';
}

/** GetPersistentVolumeClass: the beta annotation, else spec.storageClassName, else "". */
export function volumeClassName(pv: KubeObject): string {
  return claimClassName(pv);
}

/** Whether a node satisfies a PV's spec.nodeAffinity.required (any term; every expression of a term). */
export function volumeNodeAffinityMatches(pv: KubeObject, nodeName: string, nodeLabels: Record<string, string>): boolean {
  const affinity = isPlainObject(specOf(pv).nodeAffinity) ? (specOf(pv).nodeAffinity as JsonObject) : {};
  const required = isPlainObject(affinity.required) ? affinity.required : undefined;
  if (!required) return true;
  const terms = Array.isArray(required.nodeSelectorTerms) ? required.nodeSelectorTerms.filter(isPlainObject) : [];
  return terms.some((term) => {
    const exprs = Array.isArray(term.matchExpressions) ? term.matchExpressions.filter(isPlainObject) : [];
    const fields = Array.isArray(term.matchFields) ? term.matchFields.filter(isPlainObject) : [];
    if (exprs.length === 0 && fields.length === 0) return false;
    return exprs.every((e) => nodeSelectorRequirementMatches(e, nodeLabels[String(e.key)])) && fields.every((e) => String(e.key) === 'metadata.name' && nodeSelectorRequirementMatches(e, nodeName));
  });
}

function nodeSelectorRequirementMatches(req: JsonObject, value: string | undefined): boolean {
  const values = strings(req.values);
  switch (req.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      const have = Number.parseInt(value ?? '', 10);
      const want = Number.parseInt(values[0] ?? '', 10);
      if (!Number.isFinite(have) || !Number.isFinite(want)) return false;
      return req.operator === 'Gt' ? have > want : have < want;
    }
    default:
      return false;
  }
}

/** The storage a claim requests, in bytes (0 when it requests none or an unparsable amount). */
export function claimRequestBytes(claim: KubeObject): number {
  const resources = isPlainObject(specOf(claim).resources) ? (specOf(claim).resources as JsonObject) : {};
  const requests = isPlainObject(resources.requests) ? resources.requests : {};
  const q = requests.storage;
  return (typeof q === 'string' || typeof q === 'number') && isQuantity(q) ? integerValue(q) : 0;
}

/** A volume's capacity in bytes. */
export function volumeBytes(pv: KubeObject): number {
  const capacity = isPlainObject(specOf(pv).capacity) ? (specOf(pv).capacity as JsonObject) : {};
  const q = capacity.storage;
  return (typeof q === 'string' || typeof q === 'number') && isQuantity(q) ? integerValue(q) : 0;
}

export const accessModesOf = (o: KubeObject): string[] => strings(specOf(o).accessModes);

/** Whether a volume is bound, or pre-bound, to another claim than this one. */
function claimedByOther(pv: KubeObject, claim: KubeObject): boolean {
  const ref = specOf(pv).claimRef;
  if (!isPlainObject(ref)) return false;
  if (ref.namespace !== claim.metadata?.namespace || ref.name !== claim.metadata?.name) return true;
  return typeof ref.uid === 'string' && ref.uid !== '' && ref.uid !== claim.metadata?.uid;
}

/**
 * The existing volume a claim binds to (FindMatchingVolume): one pre-bound to it by claimRef if any, else the smallest
 * Available volume of the claim's class with every requested access mode and labels matching the claim's selector.
 * Either way it has at least the requested capacity, the same volumeMode and, when `node` is given, node affinity
 * allowing that node; volumes being deleted never match.
 */
export function findMatchingVolume(claim: KubeObject, volumes: readonly KubeObject[], node?: { name: string; labels: Record<string, string> }): KubeObject | undefined {
  const className = claimClassName(claim);
  const request = claimRequestBytes(claim);
  const modes = accessModesOf(claim);
  const mode = specOf(claim).volumeMode ?? 'Filesystem';
  const selector = isPlainObject(specOf(claim).selector) ? fromLabelSelector(specOf(claim).selector as LabelSelectorSpec) : undefined;
  const basic = (pv: KubeObject) =>
    !pv.metadata?.deletionTimestamp && volumeBytes(pv) >= request && (specOf(pv).volumeMode ?? 'Filesystem') === mode && (!node || volumeNodeAffinityMatches(pv, node.name, node.labels));
  const preBound = volumes.find((pv) => isPlainObject(specOf(pv).claimRef) && !claimedByOther(pv, claim) && basic(pv));
  if (preBound) return preBound;
  return volumes
    .filter(
      (pv) =>
        !isPlainObject(specOf(pv).claimRef) &&
        basic(pv) &&
        statusOf(pv).phase === 'Available' &&
        (!selector || selector.matches(pv.metadata?.labels ?? {})) &&
        volumeClassName(pv) === className &&
        modes.every((m) => accessModesOf(pv).includes(m)),
    )
    .sort((a, b) => volumeBytes(a) - volumeBytes(b) || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''))[0];
}

