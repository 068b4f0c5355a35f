/**
 * NamespaceClusterPin: admission for the break-glass label `workload.kcp.io/cluster: <synctarget>` on a namespace
 * (the one attribute `kubectl atrium move namespace` sets). It is honoured in every workspace that has compute:
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
import { placementForNamespace } from './namespace-assignment.js';

export interface PinAdmissionDeps {
  /** The Placements of a logical cluster (terminating ones left out by the plugin). */
  placements(cluster: string): Promise<KubeObject[]>;
  /** The names of the SyncTargets of a logical cluster. */
  syncTargets(cluster: string): Promise<string[]>;
  /** The logical cluster a workspace path or cluster name names. */
  resolvePath(pathOrName: string): string | undefined;
}

export class NamespaceClusterPin implements AdmissionPlugin {
  readonly name = 'NamespaceClusterPin';

  constructor(private readonly deps: PinAdmissionDeps) {}

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.def.group !== '' || attrs.def.resource !== 'namespaces' || attrs.subresource) return;
    if (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return;
    const ns = attrs.object;
    const pin = ns?.metadata?.labels?.[CLUSTER_LABEL];
    if (!ns || pin === undefined) return;
    if (attrs.operation === 'UPDATE' && attrs.oldObject?.metadata?.labels?.[CLUSTER_LABEL] === pin) return;
    const cluster = attrs.ctx.cluster;
    const name = ns.metadata?.name ?? attrs.name ?? '';
    const refuse = (why: string) => {
      throw errors.forbidden({ group: '', resource: 'namespaces' }, name, `the label ${CLUSTER_LABEL}=${pin} would do nothing: ${why}`);
    };
    const placements = (await this.deps.placements(cluster)).filter((p) => !p.metadata?.deletionTimestamp) as (KubeObject & { metadata: { name: string }; spec: Record<string, unknown> })[];
    const placement = placementForNamespace(ns, placements);
    if (placement) {
      const wanted = (placement.spec as { locationWorkspace?: string }).locationWorkspace;
      const location = placement.metadata.annotations?.[LOCATION_CLUSTER_ANNOTATION] ?? (wanted ? this.deps.resolvePath(wanted) : cluster);
      const names = location === undefined ? [] : await this.deps.syncTargets(location);
      if (names.includes(pin)) return;
      return refuse(
        `namespace "${name}" is placed by Placement "${placement.metadata.name}" on the SyncTargets of workspace "${wanted || 'this workspace'}", ` +
          `which has no SyncTarget "${pin}" (it has: ${names.length ? names.join(', ') : 'none'}); ` +
          `use one of those (kubectl atrium move namespace ${name} --to <synctarget>)`,
      );
    }
    const own = await this.deps.syncTargets(cluster);
    if (own.includes(pin)) return;
    if (placements.length === 0 && own.length === 0) {
      return refuse(`this workspace has no compute; bind some first (kubectl atrium bind compute <location-workspace>), then label the namespace or run kubectl atrium move namespace ${name} --to <synctarget>`);
    }
    return refuse(
      `no Placement places namespace "${name}" (check the Placements' namespaceSelector and the namespace's scheduling.atrium.io/placement annotation) ` +
        `and this workspace has no SyncTarget "${pin}"${own.length ? ` (it has: ${own.join(', ')})` : ''}; have a Placement place the namespace first`,
    );
  }
}
