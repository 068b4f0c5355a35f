/**
 * The scheduler's decision for one Placement: which Location it uses and which of that Location's SyncTargets its
 * namespaces (and so their objects) are assigned to. Pure and stable: with the same inputs it returns the same answer,
 * and targets already assigned are kept unless something about them requires a move.
 */
import { fromLabelSelector, LabelSelectorParseError } from '../../apimachinery/labels/selector.js';
import { findCondition } from '../../apimachinery/conditions.js';
import type { GroupResource, LocationLike, LocationReference, PlacementLike, SyncTargetLike } from './types.js';

/**
 * Why a SyncTarget of the selected Location is not (or no longer) chosen:
 * - `NotReady`: its Ready condition is not True (it keeps work it already has; failover decides when that moves);
 * - `Cordoned`: spec.unschedulable (keeps its work, takes no new work);
 * - `Draining`: spec.evictAfter has passed (its work moves);
 * - `Evacuating`: failover decided to move its work (see failover.ts);
 * - `APIIncompatible`: a resource in use is not Accepted in status.syncedResources (Incompatible drops the target,
 *   Pending or missing only blocks new work);
 * - `NoCapacity`: it reports no room for more replicas (keeps its work, takes no new work);
 * - `NotNeeded`: eligible, but the Placement's clusterSpread was already filled.
 */
export type TargetRejectionReason = 'NotReady' | 'Cordoned' | 'Draining' | 'Evacuating' | 'APIIncompatible' | 'NoCapacity' | 'NotNeeded';

export interface TargetRejection {
  name: string;
  reason: TargetRejectionReason;
  message: string;
}

export interface SelectTargetsInput {
  placement: PlacementLike;
  /** The Locations of the location workspace. */
  locations: readonly LocationLike[];
  /** The SyncTargets of the location workspace. */
  syncTargets: readonly SyncTargetLike[];
  /** The path of the location workspace (placement.spec.locationWorkspace, or the default the caller resolved). */
  locationWorkspace: string;
  /** Resources the placed namespaces hold objects of; each must be Accepted on a target. */
  requiredResources?: readonly GroupResource[];
  /** Room per target for more replicas; a target listed with 0 takes no new work, an unlisted one is not limited. */
  availableReplicas?: Readonly<Record<string, number>>;
  /** The targets assigned now. */
  current?: readonly string[];
  /** Targets failover decided to empty. */
  evacuating?: readonly string[];
  /** A rebalance request: choose as if nothing were assigned yet. */
  rebalance?: boolean;
  now: Date;
}

/**
 * Why no Location could be used: none exists in the workspace, none matches the Placement, or the location workspace
 * itself does not exist (decided by the caller, which resolves spec.locationWorkspace).
 */
export type LocationFailure = 'LocationNotFound' | 'LocationNoMatch' | 'LocationWorkspaceNotFound';

export interface TargetSelection {
  /** The Location used, or null when none could be. */
  selectedLocation: LocationReference | null;
  /** Set when selectedLocation is null. */
  locationFailure?: LocationFailure;
  /**
   * True when the Placement is Bound and keeps a Location its selectors no longer match (kcp ignores spec changes of
   * a Bound Placement rather than moving namespaces behind the user's back).
   */
  locationStale: boolean;
  /** The chosen SyncTarget names, sorted. */
  targets: string[];
  /** Chosen now but not assigned before. */
  added: string[];
  /** Assigned before but not chosen now. */
  removed: string[];
  /** Every SyncTarget of the Location that is not chosen, with the first reason, sorted by name. */
  rejected: TargetRejection[];
}

/** Facts about one target that decide whether it may keep work and whether it may take new work. */
interface Verdict {
  name: string;
  /** Undefined when the target may keep the work it already has. */
  keepBlocker?: TargetRejection;
  /** Undefined when the target may take new work. */
  newBlocker?: TargetRejection;
  room: number;
}

/**
 * Chooses a Location and SyncTargets for a Placement.
 *
 * Location: the one in placement.status.selectedLocation when it still exists (even if the selectors moved on while
 * the Placement is Bound; then `locationStale` is set), unless `rebalance`; otherwise, among the Locations serving
 * SyncTargets whose labels match any locationSelector, the one with the most targets able to take new work, ties by
 * name. An empty selector list matches nothing (kcp), an empty selector matches every Location.
 *
 * Targets: the Location's instanceSelector picks its SyncTargets (a missing selector picks none). The count wanted
 * comes from spec.clusterSpread (One by default, Count n, or All). Currently assigned targets that may keep their
 * work are kept first (in name order, up to the count), so nothing moves when nothing relevant changed; remaining
 * slots go to targets that may take new work, most room first, then by name.
 */
export function selectTargets(input: SelectTargetsInput): TargetSelection {
  const current = new Set(input.rebalance ? [] : (input.current ?? []));
  const pick = pickLocation(input);
  if (!pick.location) {
    return {
      selectedLocation: null,
      locationFailure: pick.failure,
      locationStale: false,
      targets: [],
      added: [],
      removed: [...current].sort(),
      rejected: [],
    };
  }
  const verdicts = targetsOf(pick.location, input.syncTargets)
    .map((t) => judge(t, input))
    .sort((a, b) => compareNames(a.name, b.name));
  const wanted = wantedCount(input.placement);
  const chosen: string[] = [];
  const rejected: TargetRejection[] = [];
  for (const v of verdicts) {
    if (!current.has(v.name)) continue;
    if (v.keepBlocker) rejected.push(v.keepBlocker);
    else if (chosen.length < wanted) chosen.push(v.name);
    else rejected.push(notNeeded(v.name));
  }
  const fresh = verdicts.filter((v) => !current.has(v.name)).sort((a, b) => b.room - a.room || compareNames(a.name, b.name));
  for (const v of fresh) {
    if (v.newBlocker) rejected.push(v.newBlocker);
    else if (chosen.length < wanted) chosen.push(v.name);
    else rejected.push(notNeeded(v.name));
  }
  chosen.sort(compareNames);
  rejected.sort((a, b) => compareNames(a.name, b.name));
  const chosenSet = new Set(chosen);
  return {
    selectedLocation: { path: input.locationWorkspace, locationName: pick.location.metadata.name },
    locationStale: pick.stale,
    targets: chosen,
    added: chosen.filter((n) => !current.has(n)),
    removed: [...current].filter((n) => !chosenSet.has(n)).sort(compareNames),
    rejected,
  };
}

/** The SyncTargets a Location's instanceSelector picks; an invalid or missing selector picks none. */
export function targetsOf(location: LocationLike, syncTargets: readonly SyncTargetLike[]): SyncTargetLike[] {
  let selector;
  try {
    selector = fromLabelSelector(location.spec.instanceSelector);
  } catch (err) {
    if (err instanceof LabelSelectorParseError) return [];
    throw err;
  }
  return syncTargets.filter((t) => selector.matches(t.metadata.labels ?? {}));
}

/** True when the SyncTarget's Ready condition is True. */
export function isReady(target: SyncTargetLike): boolean {
  return findCondition(target.status?.conditions, 'Ready')?.status === 'True';
}

function wantedCount(placement: PlacementLike): number {
  const spread = placement.spec.clusterSpread;
  if (!spread || spread.mode === 'One') return 1;
  if (spread.mode === 'All') return Infinity;
  return Math.max(1, Math.floor(spread.count ?? 1));
}

function pickLocation(input: SelectTargetsInput): { location?: LocationLike; failure?: LocationFailure; stale: boolean } {
  const { placement } = input;
  const serving = input.locations.filter((l) => sameResource(l, placement));
  const matching = serving.filter((l) => matchesAnySelector(l, placement));
  const selected = placement.status?.selectedLocation;
  if (selected && !input.rebalance) {
    const still = serving.find((l) => l.metadata.name === selected.locationName && selected.path === input.locationWorkspace);
    if (still && (matching.includes(still) || placement.status?.phase === 'Bound')) {
      return { location: still, stale: !matching.includes(still) };
    }
  }
  if (input.locations.length === 0) return { failure: 'LocationNotFound', stale: false };
  if (matching.length === 0) return { failure: 'LocationNoMatch', stale: false };
  let best = matching[0]!;
  let bestCount = -1;
  for (const l of [...matching].sort((a, b) => compareNames(a.metadata.name, b.metadata.name))) {
    const count = targetsOf(l, input.syncTargets).filter((t) => !judge(t, input).newBlocker).length;
    if (count > bestCount) {
      best = l;
      bestCount = count;
    }
  }
  return { location: best, stale: false };
}

function sameResource(location: LocationLike, placement: PlacementLike): boolean {
  const a = location.spec.resource;
  const b = placement.spec.locationResource;
  // Both are required at admission; objects stored before that rule may lack them: they match nothing.
  if (!a || !b) return false;
  return (a.group ?? '') === (b.group ?? '') && a.version === b.version && a.resource === b.resource;
}

function matchesAnySelector(location: LocationLike, placement: PlacementLike): boolean {
  return (placement.spec.locationSelectors ?? []).some((spec) => {
    try {
      return fromLabelSelector(spec).matches(location.metadata.labels ?? {});
    } catch (err) {
      if (err instanceof LabelSelectorParseError) return false;
      throw err;
    }
  });
}

function judge(target: SyncTargetLike, input: SelectTargetsInput): Verdict {
  const name = target.metadata.name;
  const reject = (reason: TargetRejectionReason, message: string): TargetRejection => ({ name, reason, message });
  const room = input.availableReplicas?.[name] ?? Infinity;
  const evictAfter = target.spec?.evictAfter ? Date.parse(target.spec.evictAfter) : NaN;
  if (!Number.isNaN(evictAfter) && evictAfter <= input.now.getTime()) {
    const r = reject('Draining', `SyncTarget "${name}" is draining since ${target.spec!.evictAfter}`);
    return { name, keepBlocker: r, newBlocker: r, room };
  }
  if (input.evacuating?.includes(name)) {
    const r = reject('Evacuating', `SyncTarget "${name}" is being evacuated after failing its health checks`);
    return { name, keepBlocker: r, newBlocker: r, room };
  }
  const api = apiVerdict(target, input.requiredResources ?? []);
  if (api.incompatible) {
    const r = reject('APIIncompatible', `SyncTarget "${name}" cannot serve ${api.incompatible}`);
    return { name, keepBlocker: r, newBlocker: r, room };
  }
  let newBlocker: TargetRejection | undefined;
  if (!isReady(target)) newBlocker = reject('NotReady', `SyncTarget "${name}" is not Ready`);
  else if (target.spec?.unschedulable) newBlocker = reject('Cordoned', `SyncTarget "${name}" is cordoned (spec.unschedulable)`);
  else if (api.notAccepted) newBlocker = reject('APIIncompatible', `SyncTarget "${name}" has not accepted ${api.notAccepted}`);
  else if (room <= 0) newBlocker = reject('NoCapacity', `SyncTarget "${name}" has no room for more replicas`);
  return { name, newBlocker, room };
}

/** The first required resource explicitly Incompatible, and the first not (yet) Accepted, as "resource.group". */
function apiVerdict(target: SyncTargetLike, required: readonly GroupResource[]): { incompatible?: string; notAccepted?: string } {
  const out: { incompatible?: string; notAccepted?: string } = {};
  for (const gr of required) {
    const entry = (target.status?.syncedResources ?? []).find((r) => (r.group ?? '') === gr.group && r.resource === gr.resource);
    const label = gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
    if (entry?.state === 'Incompatible') out.incompatible ??= label;
    else if (entry?.state !== 'Accepted') out.notAccepted ??= label;
  }
  return out;
}

function notNeeded(name: string): TargetRejection {
  return { name, reason: 'NotNeeded', message: `SyncTarget "${name}" is eligible but the Placement's clusterSpread is already filled` };
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
