/**
 * The status a Placement shows for a scheduling decision: kcp's phase (Pending / Unbound / Bound) and its Ready and
 * Scheduled conditions, with reasons and messages that say why nothing was chosen.
 */
import { setKcpCondition } from '../../apimachinery/conditions.js';
import { formatRFC3339 } from '../../apimachinery/object.js';
import type { TargetRejection, TargetSelection } from './select-targets.js';
import type { Condition, LocationReference, PlacementPhase } from './types.js';

/** kcp's reasons for Ready=False and Scheduled=False, verbatim, plus ours for the success cases. */
export const PlacementReasons = {
  LocationNotFound: 'LocationNotFound',
  LocationInvalid: 'LocationInvalid',
  LocationNoMatch: 'LocationNoMatch',
  ScheduleLocationNotFound: 'ScheduleLocationNotFound',
  NoValidTarget: 'NoValidTarget',
  LocationSelected: 'LocationSelected',
  TargetsSelected: 'TargetsSelected',
} as const;

export interface PlacementStatusInput {
  selection: TargetSelection;
  /** The location workspace's path, for messages (defaults to the one in the selection, if any). */
  locationWorkspace?: string;
  /** How many namespaces are bound to the Placement (carry its scheduling.kcp.io/placement annotation). */
  boundNamespaces: number;
  /** The Placement's current conditions, so unchanged conditions keep their lastTransitionTime (kcp's conditions.Set). */
  previousConditions?: readonly Condition[] | null;
  now: Date;
}

export interface PlacementStatus {
  phase: PlacementPhase;
  selectedLocation?: LocationReference;
  conditions: Condition[];
}

/**
 * Derives the Placement's status from a selection.
 *
 * phase: Pending without a Location; Unbound with a Location but no bound namespace; Bound otherwise.
 * Ready: False/LocationNotFound when the location workspace does not exist or has no Location (kcp has one reason for
 * both; the message tells them apart), False/LocationNoMatch when none matches the
 * selectors, False/LocationInvalid when a Bound Placement keeps a Location its selectors no longer match, else True.
 * Scheduled: False/ScheduleLocationNotFound without a Location, False/NoValidTarget when no target was chosen (the
 * message counts the reasons, e.g. `2 NotReady, 1 Cordoned`, and names the targets), else True with the chosen names.
 */
export function placementStatus(input: PlacementStatusInput): PlacementStatus {
  const { selection } = input;
  const location = selection.selectedLocation;
  const phase: PlacementPhase = !location ? 'Pending' : input.boundNamespaces > 0 ? 'Bound' : 'Unbound';
  const now = formatRFC3339(input.now);
  let conditions: Condition[] = [...(input.previousConditions ?? [])];
  for (const c of [readyCondition(selection, input.locationWorkspace ?? location?.path), scheduledCondition(selection)]) conditions = setKcpCondition(conditions, c, now);
  return location ? { phase, selectedLocation: location, conditions } : { phase, conditions };
}

function readyCondition(s: TargetSelection, workspace: string | undefined): Condition {
  if (!s.selectedLocation) {
    const where = workspace === undefined ? 'the location workspace' : `location workspace "${workspace}"`;
    if (s.locationFailure === 'LocationWorkspaceNotFound') {
      return { type: 'Ready', status: 'False', severity: 'Error', reason: PlacementReasons.LocationNotFound, message: `The ${where} does not exist` };
    }
    return s.locationFailure === 'LocationNotFound'
      ? { type: 'Ready', status: 'False', severity: 'Error', reason: PlacementReasons.LocationNotFound, message: `No Location exists in ${where}` }
      : { type: 'Ready', status: 'False', severity: 'Error', reason: PlacementReasons.LocationNoMatch, message: `No Location in ${where} matches spec.locationSelectors` };
  }
  if (s.locationStale) {
    return {
      type: 'Ready',
      status: 'False',
      severity: 'Warning',
      reason: PlacementReasons.LocationInvalid,
      message: `Location "${s.selectedLocation.locationName}" no longer matches spec.locationSelectors; it is kept while namespaces are bound`,
    };
  }
  return { type: 'Ready', status: 'True', reason: PlacementReasons.LocationSelected, message: `Location "${s.selectedLocation.locationName}" selected` };
}

function scheduledCondition(s: TargetSelection): Condition {
  if (!s.selectedLocation) {
    return { type: 'Scheduled', status: 'False', severity: 'Error', reason: PlacementReasons.ScheduleLocationNotFound, message: 'No Location is available for scheduling' };
  }
  if (s.targets.length === 0) {
    const where = `Location "${s.selectedLocation.locationName}"`;
    const message = s.rejected.length === 0 ? `${where} has no SyncTargets` : `No valid SyncTarget in ${where}: ${summarize(s.rejected)}`;
    return { type: 'Scheduled', status: 'False', severity: 'Error', reason: PlacementReasons.NoValidTarget, message };
  }
  return {
    type: 'Scheduled',
    status: 'True',
    reason: PlacementReasons.TargetsSelected,
    message: `Scheduled to SyncTarget${s.targets.length === 1 ? '' : 's'} ${s.targets.map((t) => `"${t}"`).join(', ')}`,
  };
}

/** `2 NotReady (a, b), 1 Cordoned (c)`: counts per reason, most frequent first, then by reason name. */
function summarize(rejected: readonly TargetRejection[]): string {
  const byReason = new Map<string, string[]>();
  for (const r of rejected) byReason.set(r.reason, [...(byReason.get(r.reason) ?? []), r.name]);
  return [...byReason.entries()]
    .sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1))
    .map(([reason, names]) => `${names.length} ${reason} (${names.join(', ')})`)
    .join(', ');
}
