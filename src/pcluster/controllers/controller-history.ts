/**
 * ControllerRevisions, the template history of StatefulSets and DaemonSets (pkg/controller/history and the two
 * controllers' constructHistory/truncateHistory): a revision holds the parent's pod template as a patch
 * (`{"spec":{"template":{...,"$patch":"replace"}}}`), is named `<parent>-<hash>` and numbered; an unchanged
 * template reuses its revision (renumbered to the newest when it comes back), a hash collision bumps the parent's
 * status.collisionCount, and history beyond revisionHistoryLimit that no pod uses is pruned, oldest first.
 * The pure parts are exported for table tests; syncHistory does the writes.
 */
import { type JsonObject, type KubeObject, deepCopy, isPlainObject, jsonEqual } from '../../apimachinery/object.js';
import { StatusError } from '../../apimachinery/status.js';
import type { RestClient } from '../../client/rest-client.js';
import { computeTemplateHash } from '../../registry/builtin/workloads/pod-template-hash.js';
import { controllerRef, isControlledBy } from './owner-references.js';
import { controllerRevisionsGVR } from './workload-gvrs.js';

export interface ControllerRevision extends KubeObject {
  data?: JsonObject;
  revision?: number;
}

/** Where a StatefulSet's revisions keep their hash (history.ControllerRevisionHashLabel). */
export const controllerRevisionHashLabel = 'controller.kubernetes.io/hash';
/** The pod label naming the revision a pod was made from (apps.ControllerRevisionHashLabelKey). */
export const podRevisionLabel = 'controller-revision-hash';

/** A copy of `value` with every object's keys in sorted order, as Go's json.Marshal writes a map. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (!isPlainObject(value)) return value;
  const out: JsonObject = {};
  for (const k of Object.keys(value).sort()) out[k] = sortedKeys(value[k]);
  return out;
}

/**
 * getPatch: the parent's pod template as a strategic-merge patch that replaces the template. Upstream builds it by
 * decoding the parent into a map and marshalling that, so every key is in sorted order; clients compare a revision's
 * data with their own getPatch byte for byte (daemon.Match, as `kubectl rollout` and upstream's e2e do), so the keys
 * are sorted here too.
 */
export function templatePatch(parent: KubeObject): JsonObject {
  const spec = isPlainObject(parent.spec) ? parent.spec : {};
  const template = deepCopy(isPlainObject(spec.template) ? spec.template : {});
  return sortedKeys({ spec: { template: { ...template, $patch: 'replace' } } }) as JsonObject;
}

/** The pod template a revision holds. */
export function templateOfRevision(rev: ControllerRevision): JsonObject {
  const spec = isPlainObject(rev.data?.spec) ? (rev.data!.spec as JsonObject) : {};
  const template = deepCopy(isPlainObject(spec.template) ? spec.template : {});
  delete template.$patch;
  return template;
}

/** The highest revision number in the history (0 for none). */
export function maxRevision(revisions: readonly ControllerRevision[]): number {
  return revisions.reduce((m, r) => Math.max(m, r.revision ?? 0), 0);
}

/** The revisions holding exactly `data`, newest first (history.FindEqualRevisions). */
export function equalRevisions(revisions: readonly ControllerRevision[], data: JsonObject): ControllerRevision[] {
  return revisions.filter((r) => jsonEqual(r.data, data)).sort((a, b) => (b.revision ?? 0) - (a.revision ?? 0));
}

/**
 * The revisions to delete so that at most `limit` revisions no one uses remain (truncateHistory / cleanupHistory):
 * those not in `live`, oldest (lowest revision) first.
 */
export function revisionsToPrune(revisions: readonly ControllerRevision[], live: ReadonlySet<string>, limit: number): ControllerRevision[] {
  const idle = revisions.filter((r) => !live.has(r.metadata?.name ?? '')).sort((a, b) => (a.revision ?? 0) - (b.revision ?? 0));
  return idle.slice(0, Math.max(0, idle.length - Math.max(0, limit)));
}

export interface HistoryParent {
  obj: KubeObject;
  kind: 'StatefulSet' | 'DaemonSet';
  /** The revision's data (templatePatch of the parent). */
  data: JsonObject;
  /** The hash for a collision count: StatefulSets hash the patch, DaemonSets the template. */
  hash(collisionCount: number): string;
  /** The label the hash goes in on the revision. */
  hashLabel: string;
  collisionCount: number;
}

export interface History {
  /** The revision for the parent's template now. */
  update: ControllerRevision;
  /** Every revision of the parent, `update` included. */
  revisions: ControllerRevision[];
  collisionCount: number;
}

/** A template hash with the Deployment's algorithm (FNV-32a of the canonical JSON, safe-encoded). */
export function hashOf(value: JsonObject, collisionCount: number): string {
  return computeTemplateHash(value, collisionCount || undefined);
}

/**
 * Finds or creates the revision for the parent's current template among `owned` (its revisions from the cache),
 * renumbering a reused one that is not the newest; returns it with the (possibly bumped) collision count.
 */
export async function syncHistory(client: RestClient, parent: HistoryParent, owned: ControllerRevision[]): Promise<History> {
  const namespace = parent.obj.metadata?.namespace;
  const revisions = [...owned];
  const top = maxRevision(revisions);
  const equal = equalRevisions(revisions, parent.data);
  if (equal.length > 0) {
    let update = equal[0]!;
    if ((update.revision ?? 0) < top) {
      const next = deepCopy(update);
      next.revision = top + 1;
      update = await client.update(controllerRevisionsGVR, next, { namespace });
      revisions.splice(revisions.indexOf(equal[0]!), 1, update);
    }
    return { update, revisions, collisionCount: parent.collisionCount };
  }
  let collisionCount = parent.collisionCount;
  const templateLabels = ((isPlainObject(parent.obj.spec) && isPlainObject(parent.obj.spec.template) && isPlainObject(parent.obj.spec.template.metadata)
    ? (parent.obj.spec.template.metadata as JsonObject).labels
    : undefined) ?? {}) as Record<string, string>;
  for (let attempt = 0; attempt < 10; attempt++) {
    const hash = parent.hash(collisionCount);
    const revision: ControllerRevision = {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: {
        name: `${parent.obj.metadata?.name}-${hash}`,
        namespace,
        labels: { ...templateLabels, [parent.hashLabel]: hash },
        ownerReferences: [controllerRef(parent.obj, 'apps/v1', parent.kind)],
      },
      data: parent.data,
      revision: top + 1,
    };
    try {
      const created = await client.create(controllerRevisionsGVR, revision, { namespace });
      return { update: created, revisions: [...revisions, created], collisionCount };
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 409)) throw err;
      const existing = await client.get<ControllerRevision>(controllerRevisionsGVR, revision.metadata!.name!, { namespace });
      if (jsonEqual(existing.data, parent.data) && isControlledBy(existing, parent.obj.metadata?.uid)) {
        return { update: existing, revisions: [...revisions.filter((r) => r.metadata?.name !== existing.metadata?.name), existing], collisionCount };
      }
      collisionCount++;
    }
  }
  throw new Error(`could not create a ControllerRevision for ${parent.kind} ${parent.obj.metadata?.name}: too many hash collisions`);
}

/** Deletes the given revisions (already gone counts as done). */
export async function deleteRevisions(client: RestClient, revisions: readonly ControllerRevision[]): Promise<void> {
  for (const r of revisions) {
    try {
      await client.delete(controllerRevisionsGVR, r.metadata?.name ?? '', { namespace: r.metadata?.namespace }, { preconditions: { uid: r.metadata?.uid } });
    } catch (err) {
      if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
    }
  }
}
