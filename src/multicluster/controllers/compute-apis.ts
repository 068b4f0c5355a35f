/**
 * Compute APIs in consumer workspaces: a workspace C whose Placement names another workspace W as its
 * spec.locationWorkspace (`kubectl atrium bind compute root:compute`) runs its workloads on W's SyncTargets, so it
 * must serve the types W's clusters negotiated. The Kubernetes workload types (Deployments, Pods, ...) need nothing
 * from here: every workspace with a Placement serves them built in (api/workload-resources.ts), and no CRD is copied
 * for them, not even a negotiated one W holds from an older version. This controller copies every other negotiated
 * CRD of W (annotated NEGOTIATED_ANNOTATION: the types W's clusters bring, such as an operator's) into C with the same
 * spec and the negotiated annotation, so their objects can be applied in C. A copy is rewritten when W's spec changes (compared by hash,
 * COMPUTE_API_HASH_ANNOTATION, since the server defaults CRD fields).
 *
 * It never fights the negotiation controller or a user:
 * - a CRD of the same name in C without the negotiated annotation is a user's (or a built-in's) and is left alone;
 * - when C negotiates the resource itself (C holds an APIResourceImport for it from one of its own live SyncTargets,
 *   exactly the condition under which negotiation acts on it), C's CRD is negotiation's and is left alone;
 * - a negotiated CRD in C that nothing negotiates any more (C's own SyncTargets are gone) is taken over.
 *
 * When C's Placements name several location workspaces, the first by Placement name that negotiated a resource
 * provides it. Copies are never deleted automatically (deleting a CRD deletes every object of the type), not even
 * when the Placement goes. Runs as system:masters, the only group the reserved-annotation admission lets write the
 * negotiated annotation.
 */
import { deepCopy, type KubeObject } from '../../apimachinery/object.js';
import type { Informer } from '../../client/informer.js';
import { clusterOf, formatObjectKey } from '../../client/store.js';
import { stripClusterAnnotation } from '../../controllers/runtime/committer.js';
import { Controller } from '../../controllers/runtime/controller.js';
import type { ControllerContext, ControllerInstaller } from '../../controllers/runtime/context.js';
import { apiResourceImportsGVR, crdsGVR, NEGOTIATED_ANNOTATION, syncTargetsGVR, type APIResourceImport, type SyncTarget } from '../api/types.js';
import { workspaceWorkloadResource } from '../api/workload-resources.js';
import { directoryOf, resolvePlacementLocation } from '../scheduling/location-workspace.js';
import { placementsGVR } from '../scheduling/types.js';
import { contentHash } from '../syncer/transform.js';

/** On a copied CRD: hash of the location workspace's CRD spec it was copied from. */
export const COMPUTE_API_HASH_ANNOTATION = 'scheduling.atrium.io/compute-api-spec-hash';
/** On a copied CRD: the logical cluster (name) of the location workspace it was copied from. */
export const COMPUTE_API_SOURCE_ANNOTATION = 'scheduling.atrium.io/compute-api-source';

/** CRD informer index by logical cluster: a pass reads the CRDs of a few workspaces, not of all of them. */
const CRDS_BY_CLUSTER_INDEX = 'compute-apis/cluster';

const logicalClustersGVR = { group: 'core.kcp.io', version: 'v1alpha1', resource: 'logicalclusters' };

interface PlacementLike extends KubeObject {
  spec?: { locationWorkspace?: string };
}

/** Whether a CRD was published by negotiation (in its own workspace or as a copy). */
export function isNegotiatedCRD(crd: KubeObject | undefined): boolean {
  return crd?.metadata?.annotations?.[NEGOTIATED_ANNOTATION] === 'true';
}

/** Whether a CRD defines a type every workspace with compute serves built in (Deployments, Pods, ...). */
export function definesNativeWorkload(crd: KubeObject): boolean {
  const spec = crd.spec as { group?: string; names?: { plural?: string } } | undefined;
  return workspaceWorkloadResource(spec?.group ?? '', spec?.names?.plural ?? '') !== undefined;
}

/**
 * The negotiated CRDs consumer C should have, by CRD name: for each location workspace in `sources` (in order), its
 * negotiated CRDs not already provided by an earlier one. `crdsIn(cluster)` lists a workspace's CRDs; terminating
 * ones are skipped (their type is going away there), and so are those of types C serves built in.
 */
export function desiredComputeAPIs(sources: readonly string[], crdsIn: (cluster: string) => readonly KubeObject[]): Map<string, { cluster: string; crd: KubeObject }> {
  const out = new Map<string, { cluster: string; crd: KubeObject }>();
  for (const cluster of sources) {
    const crds = crdsIn(cluster)
      .filter((c) => isNegotiatedCRD(c) && !c.metadata?.deletionTimestamp && !definesNativeWorkload(c))
      .sort((a, b) => (a.metadata!.name! < b.metadata!.name! ? -1 : a.metadata!.name! > b.metadata!.name! ? 1 : 0));
    for (const crd of crds) if (!out.has(crd.metadata!.name!)) out.set(crd.metadata!.name!, { cluster, crd });
  }
  return out;
}

/**
 * The other workspaces C's Placements name as location workspace, in Placement name order, without duplicates, and
 * whether some Placement names a workspace that cannot be resolved yet. Terminating Placements are ignored.
 */
export function locationWorkspacesOf(
  consumer: string,
  placements: readonly PlacementLike[],
  resolve: (locationWorkspace: string | undefined, placement: PlacementLike) => { found: true; cluster: string } | { found: false },
): { sources: string[]; unresolved: boolean } {
  const sorted = placements.filter((p) => !p.metadata?.deletionTimestamp).sort((a, b) => (a.metadata!.name! < b.metadata!.name! ? -1 : 1));
  const sources: string[] = [];
  let unresolved = false;
  for (const p of sorted) {
    const where = resolve(p.spec?.locationWorkspace, p);
    if (!where.found) unresolved = true;
    else if (where.cluster !== consumer && !sources.includes(where.cluster)) sources.push(where.cluster);
  }
  return { sources, unresolved };
}

/** What to do with consumer C's CRD of one name. */
export type ComputeAPIAction =
  | { action: 'create'; crd: KubeObject }
  | { action: 'update'; crd: KubeObject }
  | { action: 'none' }
  /** Someone else's: a user's CRD (not negotiated), or one C's own negotiation maintains. */
  | { action: 'leave'; reason: 'NotNegotiated' | 'NegotiatedHere' };

/**
 * The pure decision for one CRD name: `source` is the location workspace's negotiated CRD (from logical cluster
 * `sourceCluster`), `existing` C's CRD of that name if any, `negotiatedHere` whether C negotiates the resource itself.
 * A create carries the source's spec and the negotiated, hash and source annotations; an update replaces the spec
 * of a copy whose hash or source differs, keeping everything else of the stored object.
 */
export function computeAPIAction(source: KubeObject, sourceCluster: string, existing: KubeObject | undefined, negotiatedHere: boolean): ComputeAPIAction {
  const hash = contentHash(source.spec);
  const annotations = { [NEGOTIATED_ANNOTATION]: 'true', [COMPUTE_API_HASH_ANNOTATION]: hash, [COMPUTE_API_SOURCE_ANNOTATION]: sourceCluster };
  if (!existing) {
    return {
      action: 'create',
      crd: { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: source.metadata!.name!, annotations }, spec: deepCopy(source.spec ?? {}) },
    };
  }
  if (!isNegotiatedCRD(existing)) return { action: 'leave', reason: 'NotNegotiated' };
  if (negotiatedHere) return { action: 'leave', reason: 'NegotiatedHere' };
  const have = existing.metadata?.annotations ?? {};
  if (have[COMPUTE_API_HASH_ANNOTATION] === hash && have[COMPUTE_API_SOURCE_ANNOTATION] === sourceCluster) return { action: 'none' };
  const next = deepCopy(existing);
  next.metadata!.annotations = { ...have, ...annotations };
  next.spec = deepCopy(source.spec ?? {});
  return { action: 'update', crd: next };
}

/**
 * Whether consumer C negotiates `group`/`plural` itself: it holds an APIResourceImport for it whose SyncTarget
 * (spec.location, in C) exists and is not terminating — the imports the negotiation controller acts on.
 */
export function negotiatesItself(imports: readonly APIResourceImport[], targetExists: (name: string) => boolean, group: string, plural: string): boolean {
  return imports.some((i) => i.spec?.groupVersion?.group === group && i.spec.plural === plural && targetExists(i.spec.location));
}

interface Informers {
  placements: Informer<PlacementLike>;
  logicalClusters: Informer<KubeObject>;
  crds: Informer<KubeObject>;
  imports: Informer<APIResourceImport>;
  targets: Informer<SyncTarget>;
}

export const computeAPIsControllerInstaller: ControllerInstaller = {
  name: 'compute-apis',
  install(ctx) {
    const inf: Informers = {
      placements: ctx.informers.informerFor<PlacementLike>(placementsGVR, { cluster: '*' }),
      logicalClusters: ctx.informers.informerFor<KubeObject>(logicalClustersGVR, { cluster: '*' }),
      crds: ctx.informers.informerFor<KubeObject>(crdsGVR, { cluster: '*' }),
      imports: ctx.informers.informerFor<APIResourceImport>(apiResourceImportsGVR, { cluster: '*' }),
      targets: ctx.informers.informerFor<SyncTarget>(syncTargetsGVR, { cluster: '*' }),
    };
    /** Location workspace → consumers whose Placements name it (as of their last pass). */
    const consumers = new Map<string, Set<string>>();
    /** Consumers with a Placement naming a workspace not known yet: looked at again when LogicalClusters change. */
    const unresolved = new Set<string>();
    inf.crds.addIndexer(CRDS_BY_CLUSTER_INDEX, (crd) => [clusterOf(crd)]);
    const controller = new Controller({ name: 'compute-apis', workers: 1, reconcile: (cluster) => reconcile(ctx, inf, consumers, unresolved, cluster) });
    const isConsumer = (cluster: string) => [...consumers.values()].some((s) => s.has(cluster));

    const onPlacement = (p: KubeObject) => controller.enqueue(clusterOf(p));
    // Status writes (the scheduler's) do not change where a Placement points: only its location workspace and deletion do.
    const pointsElsewhere = (o: PlacementLike, n: PlacementLike) => o.spec?.locationWorkspace !== n.spec?.locationWorkspace || !o.metadata?.deletionTimestamp !== !n.metadata?.deletionTimestamp;
    inf.placements.addEventHandler({ add: onPlacement, update: (o, n) => pointsElsewhere(o, n) && onPlacement(n), delete: onPlacement });
    const onCRD = (crd: KubeObject) => {
      const cluster = clusterOf(crd);
      if (isNegotiatedCRD(crd)) for (const c of consumers.get(cluster) ?? []) controller.enqueue(c);
      if (isConsumer(cluster)) controller.enqueue(cluster);
    };
    inf.crds.addEventHandler({ add: onCRD, update: (o, n) => (isNegotiatedCRD(o) && !isNegotiatedCRD(n) ? (onCRD(o), onCRD(n)) : onCRD(n)), delete: onCRD });
    // C's own imports or SyncTargets coming or going decide whether C negotiates a resource itself.
    const onLocal = (o: KubeObject) => {
      if (isConsumer(clusterOf(o))) controller.enqueue(clusterOf(o));
    };
    for (const i of [inf.imports, inf.targets] as Informer<KubeObject>[]) i.addEventHandler({ add: onLocal, delete: onLocal });
    const onWorkspace = () => {
      for (const c of unresolved) controller.enqueue(c);
    };
    inf.logicalClusters.addEventHandler({ add: onWorkspace, update: onWorkspace });
    return { name: 'compute-apis', start: () => controller.start(), stop: () => controller.stop() };
  },
};

async function reconcile(ctx: ControllerContext, inf: Informers, consumers: Map<string, Set<string>>, unresolved: Set<string>, cluster: string): Promise<void> {
  const placements = inf.placements.lister.list().filter((p) => clusterOf(p) === cluster);
  let sources: string[] = [];
  let pending = false;
  if (placements.length > 0) {
    const directory = directoryOf(inf.logicalClusters.lister.list(), (o) => clusterOf(o));
    ({ sources, unresolved: pending } = locationWorkspacesOf(cluster, placements, (_ws, p) => resolvePlacementLocation(p, cluster, directory)));
  }
  recordSources(consumers, cluster, sources);
  if (pending) unresolved.add(cluster);
  else unresolved.delete(cluster);
  if (sources.length === 0) return;

  const crdsIn = (c: string) => inf.crds.lister.byIndex(CRDS_BY_CLUSTER_INDEX, c);
  const desired = desiredComputeAPIs(sources, crdsIn);
  const imports = inf.imports.lister.list().filter((i) => clusterOf(i) === cluster);
  const targetExists = (name: string) => {
    const t = inf.targets.lister.get(formatObjectKey({ cluster, namespace: '', name }));
    return !!t && !t.metadata?.deletionTimestamp;
  };
  for (const [name, { cluster: sourceCluster, crd: source }] of desired) {
    const existing = inf.crds.lister.get(formatObjectKey({ cluster, namespace: '', name }));
    const spec = source.spec as { group?: string; names?: { plural?: string } } | undefined;
    const here = negotiatesItself(imports, targetExists, spec?.group ?? '', spec?.names?.plural ?? '');
    const decision = computeAPIAction(source, sourceCluster, existing, here);
    if (decision.action === 'create') {
      await ctx.client.create(crdsGVR, decision.crd, { cluster }).catch((err: unknown) => {
        if ((err as { code?: number }).code !== 409) throw err; // our cache is behind: the informer brings it
      });
    } else if (decision.action === 'update') {
      await ctx.client.update(crdsGVR, stripClusterAnnotation(decision.crd), { cluster });
    }
  }
}

/** Records that `consumer`'s Placements name exactly the location workspaces `sources`. */
function recordSources(consumers: Map<string, Set<string>>, consumer: string, sources: readonly string[]): void {
  for (const [workspace, set] of consumers) {
    if (sources.includes(workspace)) continue;
    set.delete(consumer);
    if (set.size === 0) consumers.delete(workspace);
  }
  for (const workspace of sources) {
    let set = consumers.get(workspace);
    if (!set) consumers.set(workspace, (set = new Set()));
    set.add(consumer);
  }
}
