/**
 * Finds the upstream object that a downstream reference stands for — the owner a mirror is owned by, the object a
 * mirrored Event is about:
 *
 * - a ReplicaSet `<deployment>-<hash>` of a split Deployment's child `<root>--<cluster>` → the root's revision-history
 *   ReplicaSet with that pod-template-hash (splitter/revision-history.ts; for pods pinned to this cluster's nodes by
 *   name, the one whose template hashes to it once rewritten as the cluster got it), so `kubectl describe rs`, `kubectl rollout`
 *   and `kubectl logs deploy/x` find the pods; of a Deployment synced whole → the mirror of that ReplicaSet
 *   (workspace-mirrors.ts; the Deployment itself while ReplicaSets are not mirrored, or an upstream ReplicaSet of
 *   that name that is not a mirror); a ReplicaSet synced itself → that ReplicaSet;
 * - a child Deployment `<root>--<cluster>` → the root Deployment (its controller owner upstream);
 * - a Pod → the upstream Pod it is a copy of, or its mirror;
 * - a Job → the upstream Job (synced, or the mirror of a CronJob's Job);
 * - any other kind of the placement table → the same-named upstream object (the syncer's copies keep their names).
 *
 * Results are cached by the downstream uid (a downstream object never changes what it stands for: an upstream object
 * deleted and created again gets a new copy, with a new uid), so following a pod's status churn costs no request;
 * "nothing upstream" is cached for a short while only. Upstream objects of a resource this syncer syncs are read from
 * its upstream cache (`cached`) instead of by GET: the downstream object a reference comes from was made from that
 * cache's content, so the cache holds what the reference names. A burst of 50 apps made ~1,100 GETs and LISTs here,
 * a pod's owner looked up again on every retry while the revision-history ReplicaSet it waits for was not there yet.
 * Lookups of the same key running at the same time (the pods of one ReplicaSet) share one answer.
 */
import { deepCopy, type JsonObject, type KubeObject } from '../../apimachinery/object.js';
import { StatusError } from '../../apimachinery/status.js';
import type { GroupVersionResource } from '../../client/resource.js';
import type { RestClient } from '../../client/rest-client.js';
import { isMirror } from '../api/mirrors.js';
import { kindPlacementOfKind, REVISION_HISTORY_LABEL } from '../api/kind-placement.js';
import { controllerOf, splitReplicaSetName, type UpstreamRef } from '../decisions/mirror-objects.js';
import { pinnedNodeNames, toClusterNodeNames } from '../decisions/node-pin.js';
import { computeTemplateHash, podTemplateHashLabel } from '../../registry/builtin/workloads/pod-template-hash.js';

/** A reference as downstream objects carry them (ownerReferences, involvedObject). */
export interface DownstreamRef {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid?: string;
}

/** What a reference resolves to: an upstream object, nothing upstream, or not yet (its mirror or record is coming). */
export type Resolution = UpstreamRef | 'wait' | undefined;

export interface UpstreamRefsDeps {
  upstream: RestClient;
  upstreamCluster: string;
  /** The mirror of a downstream pod, if one exists (pod-mirror's upstream cache); 'wait' when one is due. */
  podMirror(downNamespace: string, name: string): Resolution;
  /**
   * The mirror of a downstream ReplicaSet of a Deployment, if one exists; 'wait' when one may be due (the ReplicaSet
   * is a Deployment's), undefined when ReplicaSets are not mirrored.
   */
  replicaSetMirror(downNamespace: string, name: string): Resolution;
  /** Whether a downstream Job is one a CronJob made (its mirror is due). */
  isCronJobRun(downNamespace: string, name: string): boolean;
  /**
   * The synced upstream cache of a resource (`deployments.apps`, `pods`), when this syncer syncs it and the cache has
   * listed: read instead of a GET (or a LIST) of the server.
   */
  cached?(resource: string): UpstreamCache | undefined;
  /**
   * The SyncTarget's name: a split Deployment whose pods are pinned to this cluster's nodes runs here with its
   * template naming them by the cluster's own names (decisions/node-pin.ts), so its ReplicaSets' pod-template-hash is
   * that of the rewritten template.
   */
  clusterName?: string;
}

/** A synced cache of one upstream resource of the workspace. */
export interface UpstreamCache {
  get(namespace: string, name: string): KubeObject | undefined;
  inNamespace(namespace: string): KubeObject[];
}

const POSITIVE_TTL_MS = 2 * 60_000;
const NEGATIVE_TTL_MS = 30_000;
const MAX_ENTRIES = 20_000;

const gvr = (group: string, version: string, resource: string): GroupVersionResource => ({ group, version, resource });
const deploymentsGVR = gvr('apps', 'v1', 'deployments');
const replicaSetsGVR = gvr('apps', 'v1', 'replicasets');
const podsGVR = gvr('', 'v1', 'pods');

const groupOf = (apiVersion: string | undefined) => (apiVersion?.includes('/') ? apiVersion.split('/')[0]! : '');

function refTo(o: KubeObject, fallbackApiVersion: string, kind: string): UpstreamRef {
  return { apiVersion: o.apiVersion ?? fallbackApiVersion, kind, name: o.metadata!.name!, uid: o.metadata!.uid! };
}

/** The controller-uid labels an upstream Job's selector requires of its pods (generated from its uid, or a mirror's kept). */
function jobPodSelectorLabels(job: KubeObject): Pick<UpstreamRef, 'podSelectorLabels'> {
  const match = ((job.spec as { selector?: { matchLabels?: Record<string, string> } } | undefined)?.selector?.matchLabels ?? {});
  const labels = Object.fromEntries(['batch.kubernetes.io/controller-uid', 'controller-uid'].filter((k) => typeof match[k] === 'string').map((k) => [k, match[k]!]));
  return Object.keys(labels).length ? { podSelectorLabels: labels } : {};
}

export class UpstreamRefs {
  private readonly cache = new Map<string, { value: UpstreamRef | undefined; expires: number }>();
  /** Lookups under way, by cache key: concurrent resolves of one reference wait for the same answer. */
  private readonly inFlight = new Map<string, Promise<Resolution>>();

  constructor(private readonly deps: UpstreamRefsDeps) {}

  /**
   * Forgets every resolution to the upstream object `uid` (it is gone: a mirror owned by it was garbage-collected),
   * so the next mirror is given the object's successor instead of an owner the garbage collector removes it for.
   */
  forgetUpstream(uid: string): void {
    for (const [k, v] of this.cache) if (v.value?.uid === uid) this.cache.delete(k);
  }

  async resolve(downNamespace: string, upNamespace: string, ref: DownstreamRef): Promise<Resolution> {
    if (!ref.kind || !ref.name) return undefined;
    // Pods: their mirrors come and go with the pods, read from the mirror cache every time (no request).
    if (ref.kind === 'Pod' && groupOf(ref.apiVersion) === '') {
      const mirrored = this.deps.podMirror(downNamespace, ref.name);
      if (mirrored) return mirrored;
    }
    // Likewise the mirrors of a whole Deployment's ReplicaSets (read every time: they may be made anew).
    if (ref.kind === 'ReplicaSet' && groupOf(ref.apiVersion) === 'apps') {
      const mirrored = this.deps.replicaSetMirror(downNamespace, ref.name);
      if (mirrored && mirrored !== 'wait') return mirrored;
    }
    const key = `${downNamespace}|${ref.uid ?? ''}|${ref.kind}|${ref.name}`;
    const hit = this.cache.get(key);
    if (hit && hit.expires > Date.now()) return hit.value;
    const running = this.inFlight.get(key);
    if (running) return running;
    const lookup = this.lookup(downNamespace, upNamespace, ref).then((value) => {
      if (value === 'wait') return value;
      if (this.cache.size >= MAX_ENTRIES) this.cache.clear();
      this.cache.set(key, { value, expires: Date.now() + (value ? POSITIVE_TTL_MS : NEGATIVE_TTL_MS) });
      return value;
    });
    this.inFlight.set(key, lookup);
    try {
      return await lookup;
    } finally {
      this.inFlight.delete(key);
    }
  }

  /** The synced upstream cache of `g`, if this syncer has one. */
  private cacheOf(g: GroupVersionResource): UpstreamCache | undefined {
    return this.deps.cached?.(g.group ? `${g.resource}.${g.group}` : g.resource);
  }

  private async get(g: GroupVersionResource, name: string, namespace: string): Promise<KubeObject | undefined> {
    const cached = this.cacheOf(g);
    if (cached) return cached.get(namespace, name);
    try {
      return await this.deps.upstream.get(g, name, { cluster: this.deps.upstreamCluster, namespace });
    } catch (err) {
      // 403: a pull-mode syncer is not granted a kind it does not sync, so nothing of it can be ours.
      if (err instanceof StatusError && (err.code === 404 || err.code === 403)) return undefined;
      throw err;
    }
  }

  private async lookup(downNamespace: string, ns: string, ref: DownstreamRef): Promise<Resolution> {
    const kind = ref.kind!;
    const name = ref.name!;
    const group = groupOf(ref.apiVersion);
    if (group === 'apps' && kind === 'ReplicaSet') return this.replicaSet(downNamespace, ns, name);
    if (group === 'apps' && kind === 'Deployment') {
      const d = await this.get(deploymentsGVR, name, ns);
      if (!d || isMirror(d)) return undefined;
      const root = controllerOf(d);
      if (root?.kind === 'Deployment' && root.name && root.uid) return { apiVersion: 'apps/v1', kind: 'Deployment', name: root.name, uid: root.uid };
      return refTo(d, 'apps/v1', 'Deployment');
    }
    if (group === '' && kind === 'Pod') {
      const p = await this.get(podsGVR, name, ns);
      return p && !isMirror(p) ? refTo(p, 'v1', 'Pod') : undefined;
    }
    const placement = kindPlacementOfKind(group, kind);
    if (!placement) return undefined;
    const o = await this.get(gvr(placement.group, placement.version, placement.resource), name, ns);
    if (o && group === 'batch' && kind === 'Job') return { ...refTo(o, ref.apiVersion ?? 'batch/v1', kind), ...jobPodSelectorLabels(o) };
    if (o) return refTo(o, ref.apiVersion ?? `${placement.group ? placement.group + '/' : ''}${placement.version}`, kind);
    if (group === 'batch' && kind === 'Job' && this.deps.isCronJobRun(downNamespace, name)) return 'wait';
    return undefined;
  }

  /** See the file comment: the revision-history ReplicaSet, the Deployment synced whole, or the ReplicaSet itself. */
  private async replicaSet(downNamespace: string, ns: string, name: string): Promise<Resolution> {
    const parts = splitReplicaSetName(name);
    const d = parts ? await this.get(deploymentsGVR, parts.deployment, ns) : undefined;
    if (parts && d && !isMirror(d)) {
      const root = controllerOf(d);
      if (root?.kind !== 'Deployment' || !root.uid) {
        // Synced whole: the ReplicaSet's mirror (found by resolve() before the cache once it exists).
        const upRs = await this.get(replicaSetsGVR, name, ns);
        if (upRs && !isMirror(upRs)) return refTo(upRs, 'apps/v1', 'ReplicaSet');
        const mirrored = this.deps.replicaSetMirror(downNamespace, name);
        if (mirrored === 'wait') return 'wait';
        return mirrored ?? refTo(d, 'apps/v1', 'Deployment');
      }
      const rs = (await this.revisionHistory(ns, parts.hash)).find((r) => controllerOf(r)?.uid === root.uid);
      if (rs) return refTo(rs, 'apps/v1', 'ReplicaSet');
      // Only a Deployment whose pods are pinned to nodes by name runs a rewritten template here: for any other the
      // revision is simply not made yet (no second LIST while waiting for it).
      const template = (d.spec as { template?: { spec?: Record<string, unknown> } } | undefined)?.template?.spec;
      const pinned = pinnedNodeNames(template) === undefined ? undefined : await this.pinnedRevision(ns, parts.hash, root.uid);
      // Its mirror pods carry the revision's own hash, so the upstream ReplicaSet's selector selects them.
      if (pinned) return { ...refTo(pinned.rs, 'apps/v1', 'ReplicaSet'), podSelectorLabels: { [podTemplateHashLabel]: pinned.hash } };
      // The revision-history controller makes it from the root's template: it comes.
      return 'wait';
    }
    const rs = await this.get(replicaSetsGVR, name, ns);
    return rs && !isMirror(rs) ? refTo(rs, 'apps/v1', 'ReplicaSet') : undefined;
  }

  /**
   * The revision-history ReplicaSet of root `rootUid` whose template, pinned to nodes of this cluster and named as the
   * cluster names them (toClusterNodeNames), hashes to the cluster's `hash`; with its own hash.
   */
  private async pinnedRevision(ns: string, hash: string, rootUid: string): Promise<{ rs: KubeObject; hash: string } | undefined> {
    const cluster = this.deps.clusterName;
    if (cluster === undefined) return undefined;
    for (const rs of await this.revisionHistory(ns)) {
      if (controllerOf(rs)?.uid !== rootUid) continue;
      const template = deepCopy(((rs.spec as { template?: JsonObject } | undefined)?.template ?? {}) as JsonObject);
      const spec = template.spec as Record<string, unknown> | undefined;
      if (!spec || pinnedNodeNames(spec) === undefined) continue;
      const labels = (template.metadata as { labels?: Record<string, string> } | undefined)?.labels;
      const own = labels?.[podTemplateHashLabel];
      if (labels) delete labels[podTemplateHashLabel];
      toClusterNodeNames(spec, cluster);
      if (computeTemplateHash(template) === hash && own) return { rs, hash: own };
    }
    return undefined;
  }

  /** The revision-history ReplicaSets of namespace `ns` (with pod-template-hash `hash`, when given). */
  private async revisionHistory(ns: string, hash?: string): Promise<KubeObject[]> {
    const cached = this.cacheOf(replicaSetsGVR);
    if (cached) {
      return cached.inNamespace(ns).filter((r) => r.metadata?.labels?.[REVISION_HISTORY_LABEL] === 'true' && (hash === undefined || r.metadata.labels[podTemplateHashLabel] === hash));
    }
    const history = await this.deps.upstream.list(replicaSetsGVR, { cluster: this.deps.upstreamCluster, namespace: ns }, { labelSelector: `${REVISION_HISTORY_LABEL}=true${hash === undefined ? '' : `,${podTemplateHashLabel}=${hash}`}` });
    return history.items;
  }
}
