/**
 * Pure decisions the scheduler takes per namespace: which Placement places it, and what its labels and annotations
 * look like once its SyncTargets are chosen. No I/O, so they are table-tested.
 */
import { fromLabelSelector, LabelSelectorParseError, type LabelSelectorSpec } from '../../apimachinery/labels/selector.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { stateLabel } from '../api/keys.js';
import { STATE_LABEL_PREFIX } from '../api/types.js';
import { PLACEMENT_ANNOTATION, PLACEMENT_OVERRIDE_ANNOTATION, SPLIT_NAMESPACE_ANNOTATION, UNSCHEDULED_NAMESPACES } from './types.js';

interface PlacementRef {
  metadata: { name: string };
  spec: { namespaceSelector?: LabelSelectorSpec | null };
}

/**
 * The Placement that places namespace `ns`, or undefined.
 *
 * - kube-node-lease (UNSCHEDULED_NAMESPACES) and terminating namespaces are never placed; kube-system and kube-public
 *   are placed like any other namespace.
 * - The override annotation `scheduling.atrium.io/placement: <name>` wins: that Placement when it exists (undefined
 *   otherwise, rather than silently falling back), and `none` opts out.
 * - Otherwise the first Placement by name whose spec.namespaceSelector matches the namespace's labels. A missing
 *   selector selects nothing (kcp), an empty one every namespace; an invalid one nothing.
 */
export function placementForNamespace<P extends PlacementRef>(ns: KubeObject, placements: readonly P[]): P | undefined {
  const name = ns.metadata?.name ?? '';
  if (UNSCHEDULED_NAMESPACES.has(name) || ns.metadata?.deletionTimestamp) return undefined;
  const override = ns.metadata?.annotations?.[PLACEMENT_OVERRIDE_ANNOTATION];
  if (override !== undefined) return override === 'none' ? undefined : placements.find((p) => p.metadata.name === override);
  const sorted = [...placements].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
  return sorted.find((p) => selects(p.spec.namespaceSelector, ns.metadata?.labels ?? {}));
}

function selects(spec: LabelSelectorSpec | null | undefined, labels: Record<string, string>): boolean {
  if (!spec) return false;
  try {
    return fromLabelSelector(spec).matches(labels);
  } catch (err) {
    if (err instanceof LabelSelectorParseError) return false;
    throw err;
  }
}

/** The keys of the SyncTargets a namespace's state labels assign it to (`state.workload.kcp.io/<key>: Sync`). */
export function assignedKeys(ns: KubeObject): string[] {
  return Object.entries(ns.metadata?.labels ?? {})
    .filter(([k, v]) => k.startsWith(STATE_LABEL_PREFIX) && v === 'Sync')
    .map(([k]) => k.slice(STATE_LABEL_PREFIX.length))
    .sort();
}

/**
 * The namespace's metadata after scheduling: state labels exactly for `keys` (other state labels removed), the
 * Placement annotation and the split annotation set. With `placement` undefined the namespace is released: every
 * state label and both annotations go. Labels and annotations the scheduler does not own are kept as they are.
 * Returns the same object shape with copied maps; the caller compares and writes.
 */
export function scheduledNamespaceMetadata(
  ns: KubeObject,
  placement: string | undefined,
  keys: readonly string[],
): { labels: Record<string, string>; annotations: Record<string, string> } {
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(ns.metadata?.labels ?? {})) if (!k.startsWith(STATE_LABEL_PREFIX)) labels[k] = v;
  const annotations: Record<string, string> = { ...(ns.metadata?.annotations ?? {}) };
  delete annotations[PLACEMENT_ANNOTATION];
  delete annotations[SPLIT_NAMESPACE_ANNOTATION];
  if (placement !== undefined) {
    for (const key of keys) labels[stateLabel(key)] = 'Sync';
    annotations[PLACEMENT_ANNOTATION] = placement;
    annotations[SPLIT_NAMESPACE_ANNOTATION] = 'true';
  }
  return { labels, annotations };
}
