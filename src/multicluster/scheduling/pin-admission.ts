/**
 * NamespaceClusterPin: admission for the attributes `kubectl atrium move` sets — the break-glass label
 * `workload.kcp.io/cluster: <synctarget>` and the label `scheduling.atrium.io/location: <location>` on a namespace,
 * and a root Deployment's pin (decisions/workload-pin.ts: `scheduling.atrium.io/cluster` or
 * `scheduling.atrium.io/location`), each refused (403, saying what to do instead) where it would do nothing: a
 * Location its Placement's location workspace does not have; a workload pin naming no cluster its namespace runs on.
 * The break-glass label is honoured in every workspace that has compute:
 *
 * - a namespace a Placement places runs on that SyncTarget of the Placement's location workspace (the scheduler's
 *   pinnedKeys; in a workspace using another workspace's compute too);
 * - a namespace no Placement places syncs to the workspace's own SyncTarget of that name (the syncer's namespace rule).
 *
 * Anything else would be accepted and do nothing, so it is refused with what to do instead: a name the location
 * workspace has no SyncTarget of (the names it has are listed), a workspace without compute (bind compute first), a
 * namespace no Placement places in a workspace without that SyncTarget. Only setting or changing the label is checked;
 * removing it is always allowed, and so is a label that stays as it was (a SyncTarget deleted later leaves the
 * namespace with the Placement's own choice: the scheduler never honours a pin it cannot).
 */
import { errors } from '../../apimachinery/status.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../../apiserver/admission/admission.js';
import { CLUSTER_LABEL } from '../api/types.js';
import { LOCATION_CLUSTER_ANNOTATION } from './location-workspace.js';
import { assignedKeys, placementForNamespace } from './namespace-assignment.js';
import { formatPin, LOCATION_LABEL, locationSelects, WORKLOAD_CLUSTER_LABEL, workloadPinOf } from '../decisions/workload-pin.js';
import { syncTargetKey } from '../api/keys.js';
import { SPLIT_FROM_LABEL, SPLIT_NAMESPACE_ANNOTATION } from './types.js';
import type { LabelSelectorSpec } from '../../apimachinery/labels/selector.js';

export interface PinAdmissionDeps {
  /** The Placements of a logical cluster (terminating ones left out by the plugin). */
  placements(cluster: string): Promise<KubeObject[]>;
  /** The SyncTargets of a logical cluster (terminating ones left out). */
  syncTargets(cluster: string): Promise<KubeObject[]>;
  /** The Locations of a logical cluster. */
  locations(cluster: string): Promise<KubeObject[]>;
  /** A namespace of a logical cluster, or undefined. */
  namespace(cluster: string, name: string): Promise<KubeObject | undefined>;
  /** The logical cluster a workspace path or cluster name names. */
  resolvePath(pathOrName: string): string | undefined;
}

type PlacementObject = KubeObject & { metadata: { name: string }; spec: Record<string, unknown> };

export class NamespaceClusterPin implements AdmissionPlugin {
  readonly name = 'NamespaceClusterPin';

  constructor(private readonly deps: PinAdmissionDeps) {}

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.subresource || (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE')) return;
    if (attrs.def.group === '' && attrs.def.resource === 'namespaces') {
      await this.validateNamespace(attrs);
      await this.validateNamespaceLocation(attrs);
    } else if (attrs.def.group === 'apps' && attrs.def.resource === 'deployments') await this.validateWorkload(attrs);
  }

  /** The Placement placing `ns` and the logical cluster of its location workspace (undefined: not placed). */
  private async placementOf(cluster: string, ns: KubeObject): Promise<{ placement: PlacementObject; wanted?: string; location?: string } | undefined> {
    const placements = (await this.deps.placements(cluster)).filter((p) => !p.metadata?.deletionTimestamp) as PlacementObject[];
    const placement = placementForNamespace(ns, placements);
    if (!placement) return undefined;
    const wanted = (placement.spec as { locationWorkspace?: string }).locationWorkspace;
    const location = placement.metadata.annotations?.[LOCATION_CLUSTER_ANNOTATION] ?? (wanted ? this.deps.resolvePath(wanted) : cluster);
    return { placement, wanted, location };
  }

  private async targetNames(cluster: string | undefined): Promise<string[]> {
    return cluster === undefined ? [] : (await this.deps.syncTargets(cluster)).map((t) => t.metadata!.name!);
  }

  private async validateNamespace(attrs: AdmissionAttributes): Promise<void> {
    const ns = attrs.object;
    const pin = ns?.metadata?.labels?.[CLUSTER_LABEL];
    if (!ns || pin === undefined) return;
    if (attrs.operation === 'UPDATE' && attrs.oldObject?.metadata?.labels?.[CLUSTER_LABEL] === pin) return;
    const cluster = attrs.ctx.cluster;
    const name = ns.metadata?.name ?? attrs.name ?? '';
    const refuse = (why: string) => {
      throw errors.forbidden({ group: '', resource: 'namespaces' }, name, `the label ${CLUSTER_LABEL}=${pin} would do nothing: ${why}`);
    };
    const placed = await this.placementOf(cluster, ns);
    if (placed) {
      const names = await this.targetNames(placed.location);
      if (names.includes(pin)) return;
      return refuse(
        `namespace "${name}" is placed by Placement "${placed.placement.metadata.name}" on the SyncTargets of workspace "${placed.wanted || 'this workspace'}", ` +
          `which has no SyncTarget "${pin}" (it has: ${names.length ? names.join(', ') : 'none'}); ` +
          `use one of those (kubectl atrium move namespace ${name} --to <synctarget>)`,
      );
    }
    const own = await this.targetNames(cluster);
    if (own.includes(pin)) return;
    const placements = (await this.deps.placements(cluster)).filter((p) => !p.metadata?.deletionTimestamp);
    if (placements.length === 0 && own.length === 0) {
      return refuse(`this workspace has no compute; bind some first (kubectl atrium bind compute <location-workspace>), then label the namespace or run kubectl atrium move namespace ${name} --to <synctarget>`);
    }
    return refuse(
      `no Placement places namespace "${name}" (check the Placements' namespaceSelector and the namespace's scheduling.atrium.io/placement annotation) ` +
        `and this workspace has no SyncTarget "${pin}"${own.length ? ` (it has: ${own.join(', ')})` : ''}; have a Placement place the namespace first`,
    );
  }

  /** A namespace's `scheduling.atrium.io/location` label: a Location of its Placement's location workspace. */
  private async validateNamespaceLocation(attrs: AdmissionAttributes): Promise<void> {
    const ns = attrs.object;
    const pin = ns?.metadata?.labels?.[LOCATION_LABEL];
    if (!ns || pin === undefined) return;
    if (attrs.operation === 'UPDATE' && attrs.oldObject?.metadata?.labels?.[LOCATION_LABEL] === pin) return;
    const cluster = attrs.ctx.cluster;
    const name = ns.metadata?.name ?? attrs.name ?? '';
    const refuse = (why: string) => {
      throw errors.forbidden({ group: '', resource: 'namespaces' }, name, `the label ${LOCATION_LABEL}=${pin} would do nothing: ${why}`);
    };
    const placed = await this.placementOf(cluster, ns);
    if (!placed) return refuse(`no Placement places namespace "${name}"; a Location is chosen among a Placement's (kubectl atrium bind compute <location-workspace>)`);
    const names = placed.location === undefined ? [] : (await this.deps.locations(placed.location)).filter((l) => !l.metadata?.deletionTimestamp).map((l) => l.metadata!.name!);
    if (names.includes(pin)) return;
    return refuse(
      `namespace "${name}" is placed by Placement "${placed.placement.metadata.name}" on workspace "${placed.wanted || 'this workspace'}", which has no Location "${pin}" ` +
        `(it has: ${names.length ? names.join(', ') : 'none'}); use one of those (kubectl atrium move namespace ${name} --to location/<location>)`,
    );
  }

  /**
   * A root Deployment's pin (decisions/workload-pin.ts): it must name a SyncTarget its namespace runs on, or a
   * Location of the namespace's location workspace selecting one of them; else it would do nothing.
   */
  private async validateWorkload(attrs: AdmissionAttributes): Promise<void> {
    const d = attrs.object;
    if (!d) return;
    const pin = workloadPinOf(d);
    if (!pin) return;
    const before = attrs.operation === 'UPDATE' && attrs.oldObject ? workloadPinOf(attrs.oldObject) : undefined;
    if (before && formatPin(before) === formatPin(pin)) return;
    const labels = d.metadata?.labels ?? {};
    if (labels[CLUSTER_LABEL] !== undefined || labels[SPLIT_FROM_LABEL] !== undefined) return; // not a split root: the pin means nothing to it
    const cluster = attrs.ctx.cluster;
    const name = d.metadata?.name ?? attrs.name ?? '';
    const namespace = d.metadata?.namespace ?? attrs.namespace ?? '';
    const label = 'cluster' in pin ? `${WORKLOAD_CLUSTER_LABEL}=${pin.cluster}` : `${LOCATION_LABEL}=${pin.location}`;
    const refuse = (why: string) => {
      throw errors.forbidden({ group: 'apps', resource: 'deployments' }, name, `the label ${label} would do nothing: ${why}`);
    };
    const ns = await this.deps.namespace(cluster, namespace);
    const placed = ns && ns.metadata?.annotations?.[SPLIT_NAMESPACE_ANNOTATION] === 'true' ? await this.placementOf(cluster, ns) : undefined;
    if (!ns || !placed || placed.location === undefined) return refuse(`namespace "${namespace}" is not placed by a Placement; the clusters a workload runs on are chosen among its namespace's`);
    const targets = await this.deps.syncTargets(placed.location);
    const keys = new Set(assignedKeys(ns));
    const running = targets.filter((t) => keys.has(syncTargetKey(placed.location!, t.metadata!.name!)));
    const runningNames = running.map((t) => t.metadata!.name!).sort();
    const instead = `move the namespace instead (kubectl atrium move namespace ${namespace} --to ${formatPin(pin)})`;
    if ('cluster' in pin) {
      if (runningNames.includes(pin.cluster)) return;
      return refuse(`namespace "${namespace}" runs on ${runningNames.length ? runningNames.map((n) => `"${n}"`).join(', ') : 'no SyncTarget'}, not on "${pin.cluster}"; pick one of those, or ${instead}`);
    }
    const location = (await this.deps.locations(placed.location)).find((l) => l.metadata?.name === pin.location && !l.metadata?.deletionTimestamp);
    if (!location) return refuse(`workspace "${placed.wanted || 'this workspace'}" has no Location "${pin.location}"`);
    const selector = (location.spec as { instanceSelector?: LabelSelectorSpec | null } | undefined)?.instanceSelector;
    if (running.some((t) => locationSelects(selector, t.metadata?.labels ?? {}))) return;
    return refuse(`Location "${pin.location}" selects none of the SyncTargets namespace "${namespace}" runs on (${runningNames.join(', ') || 'none'}); ${instead}`);
  }
}
