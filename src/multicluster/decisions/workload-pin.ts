/**
 * The one attribute that says where a single workload runs, within its namespace's clusters: the labels
 * `scheduling.atrium.io/cluster: <synctarget>` (one SyncTarget) or `scheduling.atrium.io/location: <location>` (the
 * SyncTargets a Location of the namespace's location workspace selects) on a root Deployment, which `kubectl atrium
 * move deployment/<name> --to <synctarget>|location/<name>` sets. The splitter divides the workload over the
 * namespace's clusters that the pin names instead of all of them, so changing the label moves the workload make
 * before break like any other change of its clusters (step-move.ts). The namespace's own attribute decides which
 * clusters are there to choose from (its `workload.kcp.io/cluster` or `scheduling.atrium.io/location` label, or its
 * Placement); a pin naming none of them is refused when it is set (pin admission) and, should the namespace move away
 * later, is not honoured while it names none of them (the workload follows its namespace; `unhonoured` says so).
 * Pure: the caller supplies the targets' labels and the Location.
 */
import { fromLabelSelector, LabelSelectorParseError, type LabelSelectorSpec } from '../../apimachinery/labels/selector.js';
import type { KubeObject } from '../../apimachinery/object.js';

/** Label on a root workload: the one SyncTarget (of its namespace's clusters) it runs on. */
export const WORKLOAD_CLUSTER_LABEL = 'scheduling.atrium.io/cluster';
/** Label on a root workload or a namespace: the Location whose SyncTargets it runs on. */
export const LOCATION_LABEL = 'scheduling.atrium.io/location';

export type WorkloadPin = { cluster: string } | { location: string };

/** The pin a workload carries (the cluster label wins over the location label), or undefined. */
export function workloadPinOf(obj: KubeObject): WorkloadPin | undefined {
  const labels = obj.metadata?.labels ?? {};
  if (labels[WORKLOAD_CLUSTER_LABEL]) return { cluster: labels[WORKLOAD_CLUSTER_LABEL] };
  if (labels[LOCATION_LABEL]) return { location: labels[LOCATION_LABEL] };
  return undefined;
}

/** How a pin reads in messages and in `kubectl atrium move`'s `--to`: `st-b` or `location/west`. */
export function formatPin(pin: WorkloadPin): string {
  return 'cluster' in pin ? pin.cluster : `location/${pin.location}`;
}

/** Whether a Location's instanceSelector selects a SyncTarget with `labels` (a missing or invalid one selects none). */
export function locationSelects(instanceSelector: LabelSelectorSpec | null | undefined, labels: Record<string, string>): boolean {
  if (!instanceSelector) return false;
  try {
    return fromLabelSelector(instanceSelector).matches(labels);
  } catch (err) {
    if (err instanceof LabelSelectorParseError) return false;
    throw err;
  }
}

export interface PinnedTargetsInput {
  /** The namespace's clusters (SyncTarget names), in the order the splitter uses. */
  assigned: readonly string[];
  pin: WorkloadPin | undefined;
  /** The labels of an assigned SyncTarget. */
  labelsOf(target: string): Record<string, string>;
  /** The instanceSelector of the pinned Location in the namespace's location workspace; undefined when it does not exist. */
  location?: { instanceSelector?: LabelSelectorSpec | null };
}

export interface PinnedTargets {
  /** The clusters the workload is divided over. */
  targets: string[];
  /** Set when the workload carries a pin that names none of the namespace's clusters (it runs on all of them). */
  unhonoured?: string;
}

/** The namespace's clusters a workload runs on (see the file comment). */
export function pinnedTargets(input: PinnedTargetsInput): PinnedTargets {
  const { assigned, pin } = input;
  if (!pin) return { targets: [...assigned] };
  const chosen = 'cluster' in pin ? assigned.filter((t) => t === pin.cluster) : input.location ? assigned.filter((t) => locationSelects(input.location!.instanceSelector, input.labelsOf(t))) : [];
  if (chosen.length > 0 || assigned.length === 0) return { targets: chosen };
  const why = 'location' in pin && !input.location ? `no Location "${pin.location}" exists in the namespace's location workspace` : `its namespace runs on ${assigned.map((t) => `"${t}"`).join(', ')} only`;
  return { targets: [...assigned], unhonoured: `the pin to ${formatPin(pin)} names none of its namespace's clusters (${why}); it runs on its namespace's clusters` };
}
