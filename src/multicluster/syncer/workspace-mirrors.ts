/**
 * What a cluster runs for one upstream workspace, visible there (issue #14): read-only mirrors, kept by the syncer,
 * of
 *
 * - the pods the cluster's controllers make for synced workloads (ReplicaSets of split Deployments' children,
 *   StatefulSets, Jobs, DaemonSets, ...), owned by the upstream owners (upstream-refs.ts), with the cluster in a label
 *   and in spec.nodeName (`<cluster>/<node>`); bare Pods created upstream are synced, not mirrored;
 * - the Jobs a synced CronJob makes, owned by the upstream CronJob (their pods then find them as owner);
 * - the Events the cluster records about synced objects and mirrored pods, about the upstream object.
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
import { controllerOf, eventMirror, isSyncedCopy, jobMirror, podMirror, type MirrorCluster } from '../decisions/mirror-objects.js';
import { MirrorSet } from './mirror-set.js';
import type { NamespaceMapper } from './namespace-mapper.js';
import { UpstreamRefs, type DownstreamRef } from './upstream-refs.js';

const podsGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'pods' };
const jobsGVR: GroupVersionResource = { group: 'batch', version: 'v1', resource: 'jobs' };
const eventsGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'events' };

export interface WorkspaceMirrorsDeps {
  upstream: RestClient;
  upstreamCluster: string;
  downstream: RestClient;
  upstreamInformers: InformerFactory;
  downstreamInformers: InformerFactory;
  namespaces: NamespaceMapper;
  cluster: MirrorCluster;
}

/** Which mirrors run: pods (and events) once pods are synced; Jobs once jobs and cronjobs are. */
export interface MirrorKinds {
  pods: boolean;
  jobs: boolean;
}

/** A pod the cluster's controllers made (not a synced copy of an upstream Pod): it is mirrored. */
const isMirroredPod = (pod: KubeObject) => !isSyncedCopy(pod) && controllerOf(pod) !== undefined;
/** A Job a CronJob made on the cluster (not a synced copy of an upstream Job): it is mirrored. */
const isCronJobRun = (job: KubeObject) => !isSyncedCopy(job) && controllerOf(job)?.kind === 'CronJob';

export class WorkspaceMirrors {
  private readonly refs: UpstreamRefs;
  private pods?: { set: MirrorSet; events: MirrorSet; downPods: Informer; downEvents: Informer };
  private jobs?: { set: MirrorSet; downJobs: Informer };
  private draining = false;

  constructor(private readonly deps: WorkspaceMirrorsDeps) {
    this.refs = new UpstreamRefs({
      upstream: deps.upstream,
      upstreamCluster: deps.upstreamCluster,
      podMirror: (ns, name) => {
        const mirror = this.pods?.set.mirrorOf(ns, name);
        if (mirror) return { apiVersion: 'v1', kind: 'Pod', name: mirror.metadata!.name!, uid: mirror.metadata!.uid! };
        const pod = this.pods?.downPods.lister.get(formatObjectKey({ cluster: 'root', namespace: ns, name }));
        return pod && isMirroredPod(pod) && !pod.metadata?.deletionTimestamp ? 'wait' : undefined;
      },
      isCronJobRun: (ns, name) => {
        const job = this.jobs?.downJobs.lister.get(formatObjectKey({ cluster: 'root', namespace: ns, name }));
        return !!job && isCronJobRun(job);
      },
    });
  }

  private set(gvr: GroupVersionResource, downstream: Informer, hasStatus: boolean, o: Pick<ConstructorParameters<typeof MirrorSet>[0], 'candidate' | 'desired' | 'deleteOriginalWithMirror'>): MirrorSet {
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
      const set = this.set(podsGVR, downPods, true, {
        candidate: isMirroredPod,
        deleteOriginalWithMirror: true,
        desired: async (pod, ns) => {
          const owner = await this.refs.resolve(pod.metadata!.namespace!, ns, controllerOf(pod)!);
          return owner === 'wait' || owner === undefined ? owner : podMirror(pod, ns, owner, deps.cluster);
        },
      });
      const events = this.set(eventsGVR, downEvents, false, {
        candidate: (e) => {
          const involved = (e as { involvedObject?: { namespace?: string } }).involvedObject;
          return !!involved && (involved.namespace ?? '') === (e.metadata?.namespace ?? '');
        },
        desired: async (e, ns) => {
          const involved = await this.refs.resolve(e.metadata!.namespace!, ns, (e as { involvedObject: DownstreamRef }).involvedObject);
          return involved === 'wait' || involved === undefined ? involved : eventMirror(e, ns, involved, deps.cluster);
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
  }

  private sets(): MirrorSet[] {
    return [this.pods?.set, this.pods?.events, this.jobs?.set].filter((s): s is MirrorSet => !!s);
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
    await this.ensure({ pods: false, jobs: false });
  }
}
