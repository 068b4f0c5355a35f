/**
 * What a cluster runs for one upstream workspace, visible there (issue #14): read-only mirrors, kept by the syncer,
 * of
 *
 * - the pods the cluster's controllers make for synced workloads (ReplicaSets of split Deployments' children,
 *   StatefulSets, Jobs, DaemonSets, ...), owned by the upstream owners (upstream-refs.ts), with the cluster in a label
 *   and in spec.nodeName (`<cluster>--<node>`, the workspace's name of the node); bare Pods created upstream are synced, not mirrored;
 * - the Jobs a synced CronJob makes, owned by the upstream CronJob (their pods then find them as owner);
 * - the ReplicaSets of a Deployment synced whole (pinned, not split), owned by the upstream Deployment (their pods
 *   then find them as owner; a split Deployment's are stood for by the revision-history ReplicaSets instead);
 * - the PersistentVolumeClaims the cluster makes (a StatefulSet's volumeClaimTemplates), owned as on the cluster;
 * - the Events the cluster records about synced objects and mirrored pods, about the upstream object, for at most
 *   an hour after they were last seen (EVENT_TTL_MS, kube's event TTL).
 *
 * Naming and content: decisions/mirror-objects.ts; the writing: mirror-set.ts. Started once the workspace's pods (and
 * for Jobs, its jobs and cronjobs) are synced, so the types are served there; this is in the syncer, not in atrium,
 * because only the syncer reaches the cluster in every registration mode (pull included).
 */
import type { KubeObject } from '../../apimachinery/object.js';
import type { Informer } from '../../client/informer.js';
import type { InformerFactory } from '../../client/informer-factory.js';
import type { GroupVersionResource } from '../../client/resource.js';
import type { RestClient } from '../../client/rest-client.js';
import { formatObjectKey } from '../../client/store.js';
import { claimMirror, controllerOf, EVENT_TTL_MS, eventExpiresAtMs, eventMirror, isSyncedCopy, jobMirror, podMirror, replicaSetMirror, type MirrorCluster, type ResolvedOwner } from '../decisions/mirror-objects.js';
import { MirrorSet } from './mirror-set.js';
import type { NamespaceMapper } from './namespace-mapper.js';
import { UpstreamRefs, type DownstreamRef, type UpstreamCache } from './upstream-refs.js';

const podsGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'pods' };
const jobsGVR: GroupVersionResource = { group: 'batch', version: 'v1', resource: 'jobs' };
const eventsGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'events' };
const replicaSetsGVR: GroupVersionResource = { group: 'apps', version: 'v1', resource: 'replicasets' };
const claimsGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'persistentvolumeclaims' };

export interface WorkspaceMirrorsDeps {
  upstream: RestClient;
  upstreamCluster: string;
  downstream: RestClient;
  upstreamInformers: InformerFactory;
  downstreamInformers: InformerFactory;
  namespaces: NamespaceMapper;
  cluster: MirrorCluster;
  /** How long a mirrored event lives after it was last seen (default EVENT_TTL_MS). */
  eventTtlMs?: number;
  /** The synced upstream cache of a resource this syncer syncs (`deployments.apps`), if any (UpstreamRefsDeps.cached). */
  cached?(resource: string): UpstreamCache | undefined;
}

/**
 * Which mirrors run: pods (and events) once pods are synced; Jobs once jobs and cronjobs are; ReplicaSets once
 * deployments and replicasets are (and pods: they are owned by them); claims once persistentvolumeclaims and
 * statefulsets are.
 */
export interface MirrorKinds {
  pods: boolean;
  jobs: boolean;
  replicaSets?: boolean;
  claims?: boolean;
}

/** A pod the cluster's controllers made (not a synced copy of an upstream Pod): it is mirrored. */
const isMirroredPod = (pod: KubeObject) => !isSyncedCopy(pod) && controllerOf(pod) !== undefined;
/** A Job a CronJob made on the cluster (not a synced copy of an upstream Job): it is mirrored. */
const isCronJobRun = (job: KubeObject) => !isSyncedCopy(job) && controllerOf(job)?.kind === 'CronJob';
/** A ReplicaSet a Deployment made on the cluster (it is mirrored when that Deployment is synced whole). */
const isDeploymentReplicaSet = (rs: KubeObject) => !isSyncedCopy(rs) && controllerOf(rs)?.kind === 'Deployment';
/**
 * A claim the cluster made (not a synced copy of an upstream claim): in a namespace of the workspace only the
 * StatefulSet controller makes them, from volumeClaimTemplates.
 */
const isClusterClaim = (pvc: KubeObject) => !isSyncedCopy(pvc);

export class WorkspaceMirrors {
  private readonly refs: UpstreamRefs;
  private pods?: { set: MirrorSet; events: MirrorSet; downPods: Informer; downEvents: Informer };
  private jobs?: { set: MirrorSet; downJobs: Informer };
  private replicaSets?: { set: MirrorSet; down: Informer };
  private claims?: { set: MirrorSet; down: Informer };
  private draining = false;

  constructor(private readonly deps: WorkspaceMirrorsDeps) {
    this.refs = new UpstreamRefs({
      upstream: deps.upstream,
      upstreamCluster: deps.upstreamCluster,
      clusterName: deps.cluster.name,
      podMirror: (ns, name) => {
        const mirror = this.pods?.set.mirrorOf(ns, name);
        if (mirror) return { apiVersion: 'v1', kind: 'Pod', name: mirror.metadata!.name!, uid: mirror.metadata!.uid! };
        const pod = this.pods?.downPods.lister.get(formatObjectKey({ cluster: 'root', namespace: ns, name }));
        return pod && isMirroredPod(pod) && !pod.metadata?.deletionTimestamp ? 'wait' : undefined;
      },
      replicaSetMirror: (ns, name) => {
        const mirror = this.replicaSets?.set.mirrorOf(ns, name);
        if (mirror) return { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: mirror.metadata!.name!, uid: mirror.metadata!.uid! };
        if (!this.replicaSets) return undefined;
        const rs = this.replicaSets.down.lister.get(formatObjectKey({ cluster: 'root', namespace: ns, name }));
        return rs && isDeploymentReplicaSet(rs) && !rs.metadata?.deletionTimestamp ? 'wait' : undefined;
      },
      isCronJobRun: (ns, name) => {
        const job = this.jobs?.downJobs.lister.get(formatObjectKey({ cluster: 'root', namespace: ns, name }));
        return !!job && isCronJobRun(job);
      },
      ...(deps.cached ? { cached: deps.cached } : {}),
    });
  }

  private set(gvr: GroupVersionResource, downstream: Informer, hasStatus: boolean, o: Pick<ConstructorParameters<typeof MirrorSet>[0], 'candidate' | 'desired' | 'deleteOriginalWithMirror' | 'ephemeralContainers' | 'recheckAfterMs'>): MirrorSet {
    const { deps } = this;
    // A mirror deleted by someone else may have lost its owner (garbage collection): resolve owners afresh.
    const onForeignDelete = (m: KubeObject) => {
      const owner = controllerOf(m)?.uid;
      if (owner) this.refs.forgetUpstream(owner);
    };
    const set = new MirrorSet({ gvr, hasStatus, upstream: deps.upstream, upstreamCluster: deps.upstreamCluster, upstreamInformers: deps.upstreamInformers, downstream, downstreamClient: deps.downstream, namespaces: deps.namespaces, cluster: deps.cluster, onForeignDelete, ...o });
    set.draining = this.draining;
    set.start();
    return set;
  }

  /** Starts (or stops) the mirrors the workspace's synced resources call for. */
  async ensure(kinds: MirrorKinds): Promise<void> {
    const { deps } = this;
    if (kinds.pods && !this.pods) {
      const downPods = deps.downstreamInformers.informerFor(podsGVR, {});
      const downEvents = deps.downstreamInformers.informerFor(eventsGVR, {});
      // A pod its controller released (relabelled out of its selector through its mirror: streams/mirror-pod-metadata.ts)
      // keeps its mirror, without an owner, as it stays in `kubectl get pods` on one cluster; a pod without a controller
      // that never had a mirror (made on the cluster by hand) gets none.
      const released = (pod: KubeObject) => !isSyncedCopy(pod) && controllerOf(pod) === undefined && set.mirrorOf(pod.metadata?.namespace ?? '', pod.metadata?.name ?? '') !== undefined;
      const set: MirrorSet = this.set(podsGVR, downPods, true, {
        candidate: (pod) => isMirroredPod(pod) || released(pod),
        deleteOriginalWithMirror: true,
        ephemeralContainers: true,
        desired: async (pod, ns) => {
          const controller = controllerOf(pod);
          if (!controller) return podMirror(pod, ns, undefined, deps.cluster);
          const owner = await this.refs.resolve(pod.metadata!.namespace!, ns, controller);
          return owner === 'wait' || owner === undefined ? owner : podMirror(pod, ns, owner, deps.cluster);
        },
      });
      const events = this.set(eventsGVR, downEvents, false, {
        candidate: (e) => {
          const involved = (e as { involvedObject?: { namespace?: string } }).involvedObject;
          return !!involved && (involved.namespace ?? '') === (e.metadata?.namespace ?? '');
        },
        desired: async (e, ns) => {
          // Past its TTL an event is not mirrored (and its mirror goes); mirror-set looks again when it expires.
          const expires = eventExpiresAtMs(e, deps.eventTtlMs ?? EVENT_TTL_MS);
          if (expires !== undefined && expires <= Date.now()) return undefined;
          const involved = await this.refs.resolve(e.metadata!.namespace!, ns, (e as { involvedObject: DownstreamRef }).involvedObject);
          return involved === 'wait' || involved === undefined ? involved : eventMirror(e, ns, involved, deps.cluster);
        },
        recheckAfterMs: (e) => {
          const expires = eventExpiresAtMs(e, deps.eventTtlMs ?? EVENT_TTL_MS);
          return expires === undefined ? undefined : Math.max(0, expires - Date.now()) + 1000;
        },
      });
      this.pods = { set, events, downPods, downEvents };
    } else if (!kinds.pods && this.pods) {
      const p = this.pods;
      this.pods = undefined;
      await Promise.all([p.set.stop(), p.events.stop()]);
      await Promise.all([deps.downstreamInformers.drop(p.downPods), deps.downstreamInformers.drop(p.downEvents)]);
    }
    if (kinds.jobs && !this.jobs) {
      const downJobs = deps.downstreamInformers.informerFor(jobsGVR, {});
      const set = this.set(jobsGVR, downJobs, true, {
        candidate: isCronJobRun,
        desired: async (job, ns) => {
          const owner = await this.refs.resolve(job.metadata!.namespace!, ns, controllerOf(job)!);
          return owner === 'wait' || owner === undefined ? owner : jobMirror(job, ns, owner, deps.cluster);
        },
      });
      this.jobs = { set, downJobs };
    } else if (!kinds.jobs && this.jobs) {
      const j = this.jobs;
      this.jobs = undefined;
      await j.set.stop();
      await deps.downstreamInformers.drop(j.downJobs);
    }
    if (kinds.replicaSets && !this.replicaSets) {
      const down = deps.downstreamInformers.informerFor(replicaSetsGVR, {});
      const set = this.set(replicaSetsGVR, down, true, {
        candidate: isDeploymentReplicaSet,
        desired: async (rs, ns) => {
          const owner = controllerOf(rs)!;
          const deployment = await this.refs.resolve(rs.metadata!.namespace!, ns, owner);
          if (deployment === 'wait' || deployment === undefined) return deployment;
          // A split child `<root>--<cluster>` resolves to its root: the root's revision-history ReplicaSets stand for
          // its ReplicaSets (splitter/revision-history.ts), so the two never both exist for one Deployment.
          if (deployment.name !== owner.name) return undefined;
          return replicaSetMirror(rs, ns, deployment, deps.cluster);
        },
      });
      this.replicaSets = { set, down };
    } else if (!kinds.replicaSets && this.replicaSets) {
      const r = this.replicaSets;
      this.replicaSets = undefined;
      await r.set.stop();
      await deps.downstreamInformers.drop(r.down);
    }
    if (kinds.claims && !this.claims) {
      const down = deps.downstreamInformers.informerFor(claimsGVR, {});
      const set = this.set(claimsGVR, down, true, {
        candidate: isClusterClaim,
        desired: async (pvc, ns) => {
          const owners: ResolvedOwner[] = [];
          const refs = (pvc.metadata?.ownerReferences ?? []) as (DownstreamRef & { controller?: boolean; blockOwnerDeletion?: boolean })[];
          for (const r of refs) {
            const ref = await this.refs.resolve(pvc.metadata!.namespace!, ns, r);
            if (ref === 'wait') return 'wait';
            if (ref) owners.push({ ref, ...(r.controller !== undefined ? { controller: r.controller } : {}), ...(r.blockOwnerDeletion !== undefined ? { blockOwnerDeletion: r.blockOwnerDeletion } : {}) });
          }
          return claimMirror(pvc, ns, owners, deps.cluster);
        },
      });
      this.claims = { set, down };
    } else if (!kinds.claims && this.claims) {
      const c = this.claims;
      this.claims = undefined;
      await c.set.stop();
      await deps.downstreamInformers.drop(c.down);
    }
  }

  private sets(): MirrorSet[] {
    return [this.pods?.set, this.pods?.events, this.jobs?.set, this.replicaSets?.set, this.claims?.set].filter((s): s is MirrorSet => !!s);
  }

  /** Deletes every mirror (or, with `false`, keeps them again). Returns true once none is left. */
  drain(draining = true): boolean {
    if (this.draining !== draining) {
      this.draining = draining;
      for (const s of this.sets()) {
        s.draining = draining;
        s.enqueueAll();
      }
    }
    return this.sets().every((s) => s.remaining() === 0);
  }

  async stop(): Promise<void> {
    await this.ensure({ pods: false, jobs: false, replicaSets: false, claims: false });
  }
}
