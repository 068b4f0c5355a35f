/**
 * A kubelet stand-in for every simulated node: registers the Node objects, renews their Leases in kube-node-lease
 * (every 10 s) and refreshes the Ready heartbeat (every 60 s), and runs the pods bound to them. A newly bound pod shows
 * ContainerCreating at once and turns Running `readyDelayMs` later — and Ready then, or once its startup and readiness
 * probes pass (probes.ts) — with a pod IP from the node's CIDR, container statuses and the
 * PodReadyToStartContainers/Initialized/ContainersReady/Ready conditions. A pod whose
 * PersistentVolumeClaims are not all Bound stays ContainerCreating (its volumes cannot be mounted) until they are; the
 * delay starts then. Pods with restartPolicy Never or OnFailure then run to completion (pod-run.ts: Succeeded, Failed
 * or restarted); pods with restartPolicy Always and a non-zero `sim.atrium.io/exit-code` crash-loop (pod-run.ts
 * crashLoopStep), with the kubelet's BackOff event and, on each restart, its Pulled/Created/Started events again
 * (counted on the first ones, as kube's event correlator does). Ephemeral containers (`kubectl debug`) are started
 * once each, as they are added (ephemeral-containers.ts), without touching the pod's conditions. Like a kubelet it
 * also: rejects a pod bound onto host ports another pod of the node holds (Failed, reason NodePorts); leaves a pod
 * whose image the simulated registry lacks (`missingImages`) in ImagePullBackOff; and stops the containers of a pod
 * deleted while finalizers still hold it (exit 137, Failed), so the finalizers' owners see it end.
 */
import { createHash, randomBytes } from 'node:crypto';
import { findCondition } from '../../apimachinery/conditions.js';
import { deepCopy, goEqual, isPlainObject, jsonEqual, nowRFC3339, stampUncertaintyMs, type JsonObject, type KubeObject } from '../../apimachinery/object.js';
import { StatusError } from '../../apimachinery/status.js';
import { logger } from '../../logging/logger.js';
import { clusterOf, formatObjectKey } from '../../client/store.js';
import { Controller, type ReconcileResult } from '../../controllers/runtime/controller.js';
import { EventRecorder } from '../../controllers/runtime/event-recorder.js';
import type { ControllerContext, ControllerInstaller, RunningController } from '../../controllers/runtime/context.js';
import { leasesGVR, namespacesGVR, nodesGVR, persistentVolumeClaimsGVR, podsGVR } from './gvrs.js';
import { isClaimBound, podClaimNames } from './storage/binding.js';
import { healthyNodeConditions, nodeInternalIP, nodeLease, nodeObject, podNetworkOctet, type SimulatedNode } from './node-object.js';
import { type PodCondition, isPodActive, podConditions, setPodCondition } from './pod-conditions.js';
import { failingInitContainer, initFailureStatus } from './init-containers.js';
import { DEADLINE_EXCEEDED, PodRunner, activeDeadline, crashLoopStep, crashLoops, deadlineExceededStatus, killedStatus, podDesc, runsToCompletion } from './pod-run.js';
import { type EphemeralContainer, EphemeralContainerStarter, withEphemeralStatuses } from './ephemeral-containers.js';
import { type HostPort, hostPortsConflict, hostPortsOf, nodePortsReason } from './scheduling-fit.js';
import { type ContainerProbeTimes, containerProbeTimes, hasGatingProbes } from './probes.js';

export interface KubeletOptions {
  clusterName: string;
  nodes: SimulatedNode[];
  /** How long a bound pod stays ContainerCreating before it runs and is ready. */
  readyDelayMs: number;
  leaseRenewMs?: number;
  nodeStatusMs?: number;
  /** How long the containers of run-to-completion pods run by default (pod-run.ts; default 2000 ms). */
  jobDurationMs?: number;
  /**
   * The images the simulated registry does not have: a pod with a container (or init container) whose image matches
   * never starts and waits in ImagePullBackOff, as kubelet reports an image that cannot be pulled.
   */
  missingImages?: RegExp;
}

function isAlreadyExists(err: unknown): boolean {
  return err instanceof StatusError && err.code === 409;
}

function containerNames(pod: KubeObject): { name: string; image: string }[] {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  return (Array.isArray(spec.containers) ? spec.containers.filter(isPlainObject) : []).map((c) => ({ name: String(c.name ?? ''), image: String(c.image ?? '') }));
}

/** The pod's app containers as written in its spec. */
function containerSpecs(pod: KubeObject): JsonObject[] {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  return Array.isArray(spec.containers) ? spec.containers.filter(isPlainObject) : [];
}

/** The pod's init containers in order; `sidecar` when restartPolicy Always (a restartable init container keeps running). */
function initContainersOf(pod: KubeObject): { name: string; image: string; sidecar: boolean }[] {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  return (Array.isArray(spec.initContainers) ? spec.initContainers.filter(isPlainObject) : []).map((c) => ({ name: String(c.name ?? ''), image: String(c.image ?? ''), sidecar: c.restartPolicy === 'Always' }));
}

/** A stable fake image digest for an image reference. */
function imageID(image: string): string {
  const repo = image.includes('/') ? image : `docker.io/library/${image}`;
  return `${repo.replace(/:[^/:@]+$/, '')}@sha256:${createHash('sha256').update(image).digest('hex')}`;
}

export function kubeletInstaller(opts: KubeletOptions): ControllerInstaller {
  return {
    name: 'kubelet',
    install(ctx: ControllerContext): RunningController {
      const { client } = ctx;
      const podInformer = ctx.informers.informerFor<KubeObject>(podsGVR);
      const claimInformer = ctx.informers.informerFor<KubeObject>(persistentVolumeClaimsGVR);
      const byName = new Map(opts.nodes.map((n) => [n.name, n]));
      const boundAt = new Map<string, number>();
      const podIPs = new Map<string, string>();
      const nextHost = new Map<string, number>();
      const containerIDs = new Map<string, string>();
      /**
       * Pod uid → container name → when this kubelet started it: the status's whole-second stamp and the exact time,
       * so probe delays count from the real start (after a restart of the cluster, from the stamp: runningProbeTimes).
       */
      const containerStarts = new Map<string, Map<string, { stamp: string; ms: number }>>();
      const timers: NodeJS.Timeout[] = [];
      const runner = new PodRunner(opts.jobDurationMs ?? 2000);
      const ephemerals = new EphemeralContainerStarter(opts.readyDelayMs);
      // The kubelet's container events, as `kubectl describe pod` shows them: Pulled, Created and Started once per
      // container when the pod starts (kubelet 1.32's messages, images "already present": nothing is pulled here).
      // Recorded only on the transition to Running, so a pod costs three events per container, once.
      const recorder = new EventRecorder(client, 'kubelet', { aggregate: true });
      // Ephemeral containers get the same three, under spec.ephemeralContainers{<name>}, when they start.
      const containerEvents = (pod: KubeObject, node: string, ephemeral: EphemeralContainer[] = []) =>
        startEvents(pod, node, [
          ...initContainersOf(pod).map((c) => ({ ...c, field: 'initContainers' })),
          ...containerNames(pod).map((c) => ({ ...c, field: 'containers' })),
          ...ephemeral.map((c) => ({ ...c, field: 'ephemeralContainers' })),
        ]);
      const startEvents = (pod: KubeObject, node: string, all: { name: string; image: string; field: string }[]) => {
        const involved = { apiVersion: 'v1', kind: 'Pod', namespace: pod.metadata?.namespace, name: pod.metadata?.name ?? '', uid: pod.metadata?.uid };
        for (const c of all) {
          const at = { ...involved, fieldPath: `spec.${c.field}{${c.name}}` };
          void recorder.record(clusterOf(pod), at, 'Normal', 'Pulled', `Container image "${c.image}" already present on machine`, node);
          void recorder.record(clusterOf(pod), at, 'Normal', 'Created', `Created container: ${c.name}`, node);
          void recorder.record(clusterOf(pod), at, 'Normal', 'Started', `Started container ${c.name}`, node);
        }
      };
      const backOffEvents = (pod: KubeObject, node: string) => {
        for (const c of containerNames(pod)) {
          const at = { apiVersion: 'v1', kind: 'Pod', namespace: pod.metadata?.namespace, name: pod.metadata?.name ?? '', uid: pod.metadata?.uid, fieldPath: `spec.containers{${c.name}}` };
          void recorder.record(clusterOf(pod), at, 'Warning', 'BackOff', `Back-off restarting failed container ${c.name} in pod ${podDesc(pod)}`, node);
        }
      };

      const podNetwork = podNetworkOctet(opts.clusterName);
      const allocatePodIP = (uid: string, node: SimulatedNode): string => {
        let ip = podIPs.get(uid);
        if (!ip) {
          const host = nextHost.get(node.name) ?? 2;
          nextHost.set(node.name, host >= 254 ? 2 : host + 1);
          ip = `10.${podNetwork}.${node.index}.${host}`;
          podIPs.set(uid, ip);
        }
        return ip;
      };

      const containerID = (uid: string, name: string): string => {
        const k = `${uid}/${name}`;
        let id = containerIDs.get(k);
        if (!id) containerIDs.set(k, (id = `containerd://${randomBytes(32).toString('hex')}`));
        return id;
      };
      const identity = (pod: KubeObject) => ({ containerID: (name: string) => containerID(pod.metadata?.uid ?? '', name), imageID });

      /** The status the pod should have now: creating until the delay has passed, then running and ready. */
      const desiredStatus = (pod: KubeObject, node: SimulatedNode, running: boolean, startTime: string): JsonObject => {
        const uid = pod.metadata?.uid ?? '';
        const now = nowRFC3339();
        const current = isPlainObject(pod.status) ? pod.status : {};
        const containers = containerNames(pod);
        let conditions: PodCondition[] = podConditions(pod);
        const set = (type: string, status: string, reason?: string, message?: string) => {
          conditions = setPodCondition(conditions, { type, status, ...(reason ? { reason } : {}), ...(message ? { message } : {}) }).conditions;
        };
        const inits = initContainersOf(pod);
        set('PodReadyToStartContainers', running ? 'True' : 'False');
        // The simulation runs init containers within the start-up delay: until then none has completed (kubelet's
        // Initialized condition and `Init:0/<n>`), after it every one has, and the sidecars run on.
        if (running || inits.length === 0) set('Initialized', 'True');
        else set('Initialized', 'False', 'ContainersNotInitialized', `containers with incomplete status: [${inits.map((c) => c.name).join(' ')}]`);
        // Running containers are started and ready as their startup and readiness probes allow (probes.ts), for the
        // pods that run until deleted; those that run to completion or crash-loop have their own status steps.
        const nowMs = Date.now();
        const probed = probesApply(pod);
        const probeTimes = new Map(probed ? containerSpecs(pod).map((c) => [String(c.name ?? ''), containerProbeTimes(c, nowMs)]) : []);
        const isReady = (name: string) => running && (probeTimes.get(name)?.readyAt ?? nowMs) <= nowMs;
        const isStarted = (name: string) => running && (probeTimes.get(name)?.startedAt ?? nowMs) <= nowMs;
        const notReady = containers.filter((c) => !isReady(c.name));
        if (running && notReady.length === 0) {
          set('Ready', 'True');
          set('ContainersReady', 'True');
        } else if (running) {
          const unready = `containers with unready status: [${notReady.map((c) => c.name).join(' ')}]`;
          set('Ready', 'False', 'ContainersNotReady', unready);
          set('ContainersReady', 'False', 'ContainersNotReady', unready);
        } else {
          const unready = `containers with unready status: [${[...inits.filter((c) => c.sidecar), ...containers].map((c) => c.name).join(' ')}]`;
          set('Ready', 'False', 'ContainersNotReady', unready);
          set('ContainersReady', 'False', 'ContainersNotReady', unready);
        }
        set('PodScheduled', 'True');
        const order = ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'];
        conditions.sort((a, b) => order.indexOf(a.type) - order.indexOf(b.type));
        const hostIP = nodeInternalIP(node);
        const status: JsonObject = {
          ...current,
          phase: running ? 'Running' : 'Pending',
          conditions,
          hostIP,
          hostIPs: [{ ip: hostIP }],
          startTime,
          containerStatuses: containers.map((c) => ({
            name: c.name,
            image: c.image,
            imageID: running ? imageID(c.image) : '',
            ready: isReady(c.name),
            restartCount: 0,
            started: isStarted(c.name),
            state: running ? { running: { startedAt: now } } : { waiting: { reason: inits.length ? 'PodInitializing' : 'ContainerCreating' } },
            lastState: {},
            ...(running ? { containerID: containerID(uid, c.name) } : {}),
          })),
        };
        // As the kubelet reports them (prober_manager UpdatePodStatus): a completed init container is ready but not
        // started, a running sidecar is started and ready (their probes are not simulated).
        if (inits.length) {
          status.initContainerStatuses = inits.map((c) => ({
            name: c.name,
            image: c.image,
            imageID: running ? imageID(c.image) : '',
            ready: running,
            restartCount: 0,
            started: running && c.sidecar,
            state: !running
              ? { waiting: { reason: 'PodInitializing' } }
              : c.sidecar
                ? { running: { startedAt: now } }
                : { terminated: { exitCode: 0, reason: 'Completed', startedAt: now, finishedAt: now, containerID: containerID(uid, c.name) } },
            lastState: {},
            ...(running ? { containerID: containerID(uid, c.name) } : {}),
          }));
        } else delete status.initContainerStatuses;
        if (running && probed) containerStarts.set(uid, new Map(containers.map((c) => [c.name, { stamp: now, ms: nowMs }])));
        if (running) {
          // A pod on the host's network has the node's address (kubelet: podIPs are the hostIPs), as the node debugger
          // pod of `kubectl debug node/<node>` and DaemonSets such as node exporters do.
          const ip = isPlainObject(pod.spec) && pod.spec.hostNetwork === true ? hostIP : allocatePodIP(uid, node);
          status.podIP = ip;
          status.podIPs = [{ ip }];
        }
        return status;
      };

      /** Whether `have` already says what `want` says (ignoring timestamps that would change on every write). */
      const sameState = (have: JsonObject, want: JsonObject): boolean => {
        const strip = (s: JsonObject) => {
          const c = deepCopy(s);
          const lists = [c.containerStatuses, c.initContainerStatuses, c.ephemeralContainerStatuses];
          for (const cs of lists.flatMap((l) => (Array.isArray(l) ? l : [])) as JsonObject[]) {
            const state = cs.state as JsonObject | undefined;
            if (isPlainObject(state?.running)) delete state.running.startedAt;
            if (isPlainObject(state?.terminated)) {
              delete state.terminated.startedAt;
              delete state.terminated.finishedAt;
              delete state.terminated.containerID;
            }
            delete cs.containerID;
          }
          return c;
        };
        return jsonEqual(strip(have), strip(want));
      };

      /**
       * An active pod past its spec.activeDeadlineSeconds is stopped (Failed, DeadlineExceeded, with kubelet's
       * Warning); one with a deadline ahead is looked at again when it falls due.
       */
      const reconcile = async (key: string): Promise<ReconcileResult | void> => {
        const pod = podInformer.lister.get(key);
        const node = pod && byName.get(isPlainObject(pod.spec) ? String(pod.spec.nodeName ?? '') : '');
        const deadline = pod && node && isPodActive(pod) && !pod.metadata?.deletionTimestamp ? activeDeadline(pod, Date.now()) : undefined;
        if (deadline === 'exceeded') return pastDeadline(pod!, node!.name);
        const result = await reconcileActive(key);
        return deadline === undefined ? result : soonest(result, { requeueAfterMs: deadline });
      };

      const pastDeadline = async (pod: KubeObject, node: string): Promise<void> => {
        try {
          await client.updateStatus(podsGVR, { ...deepCopy(pod), status: deadlineExceededStatus(pod, Date.now()) }, { namespace: pod.metadata?.namespace });
        } catch (err) {
          if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
          throw err;
        }
        void recorder.record(clusterOf(pod), { apiVersion: 'v1', kind: 'Pod', namespace: pod.metadata?.namespace, name: pod.metadata?.name ?? '', uid: pod.metadata?.uid }, 'Warning', DEADLINE_EXCEEDED.reason, DEADLINE_EXCEEDED.message, node);
      };

      const reconcileActive = async (key: string): Promise<ReconcileResult | void> => {
        const pod = podInformer.lister.get(key);
        if (!pod) {
          boundAt.delete(key);
          return;
        }
        const node = byName.get(isPlainObject(pod.spec) ? String(pod.spec.nodeName ?? '') : '');
        if (!node) return;
        const status = isPlainObject(pod.status) ? pod.status : {};
        if (pod.metadata?.deletionTimestamp && status.phase !== 'Succeeded' && status.phase !== 'Failed') return kill(pod);
        // Deleted gracefully and now stopped: the status manager deletes it for good (no grace period, its uid).
        if (pod.metadata?.deletionTimestamp && (pod.metadata.deletionGracePeriodSeconds ?? 0) > 0) return finishDeletion(pod);
        if (!isPodActive(pod)) return;
        if (status.phase === 'Running') {
          const started = await startEphemeralContainers(pod, node.name);
          if (started === 'written') return undefined; // the update brings the pod back for its other steps
          const probed = await applyProbes(pod);
          if (probed === 'written') return undefined;
          const next = runsToCompletion(pod) ? await runToCompletion(pod) : crashLoops(pod) ? await crashLoop(pod, node.name) : undefined;
          return soonest(soonest(started, probed), next);
        }
        if (!status.phase || status.phase === 'Pending') {
          const wanted = hostPortsOf(pod);
          if (wanted.length && hostPortsConflict(wanted, admittedPortsOn(pod, node.name))) return reject(pod, node, 'NodePorts', `Predicate NodePorts failed: ${nodePortsReason}`);
        }
        const missing = opts.missingImages ? [...initContainersOf(pod), ...containerNames(pod)].filter((c) => opts.missingImages!.test(c.image)) : [];
        if (missing.length) return pullBackOff(pod, node, missing);
        const claimKey = (name: string) => formatObjectKey({ cluster: clusterOf(pod), namespace: pod.metadata?.namespace ?? '', name });
        const volumesReady = podClaimNames(pod).every((name) => isClaimBound(claimInformer.lister.get(claimKey(name))));
        let since = boundAt.get(key);
        if (since === undefined && volumesReady) boundAt.set(key, (since = Date.now()));
        // Until its volumes can be mounted the pod waits in ContainerCreating; a claim binding enqueues it again.
        const remaining = since === undefined ? Infinity : since + opts.readyDelayMs - Date.now();
        const startTime = typeof status.startTime === 'string' ? status.startTime : nowRFC3339();
        // An init container that fails keeps the app containers from starting (init-containers.ts).
        const failingInit = remaining <= 0 ? failingInitContainer(pod) : undefined;
        const initFailure = failingInit
          ? initFailureStatus(pod, desiredStatus(pod, node, false, startTime), failingInit, since! + opts.readyDelayMs, Date.now(), (name, restart) =>
              containerID(pod.metadata?.uid ?? '', restart ? `${name}/${restart}` : name),
            )
          : undefined;
        const running = remaining <= 0 && !initFailure;
        const eph = ephemerals.step(pod, running, identity(pod));
        const want = withEphemeralStatuses(initFailure?.status ?? desiredStatus(pod, node, running, startTime), eph.statuses);
        if (!sameState(status, want)) {
          const next = deepCopy(pod);
          next.status = want;
          try {
            await client.updateStatus(podsGVR, next, { namespace: pod.metadata?.namespace });
          } catch (err) {
            if (err instanceof StatusError && err.code === 404) return;
            throw err;
          }
          if (running && status.phase !== 'Running') containerEvents(pod, node.name, eph.started);
        }
        if (running) return probesDue({ ...pod, status: want }, Date.now());
        if (initFailure) return initFailure.requeueAfterMs === undefined ? undefined : { requeueAfterMs: initFailure.requeueAfterMs };
        return Number.isFinite(remaining) ? { requeueAfterMs: remaining } : undefined;
      };

      /**
       * Whether the simulated probes decide the pod's readiness: a pod that runs until deleted (not to completion, not
       * crash-looping: those have their own status steps) with a startup probe or a delayed or failing readiness probe.
       */
      const probesApply = (pod: KubeObject): boolean => !runsToCompletion(pod) && !crashLoops(pod) && hasGatingProbes(containerSpecs(pod));

      /**
       * When each running container of the pod was started and its probe times: the exact time this kubelet started it,
       * or else its status's running.startedAt read as the latest instant the whole-second stamp can stand for, so a
       * probe's initial delay is never cut short.
       */
      const runningProbeTimes = (pod: KubeObject): { name: string; times: ContainerProbeTimes | undefined }[] => {
        const statuses = isPlainObject(pod.status) && Array.isArray(pod.status.containerStatuses) ? pod.status.containerStatuses.filter(isPlainObject) : [];
        const starts = containerStarts.get(pod.metadata?.uid ?? '');
        return containerSpecs(pod).map((c) => {
          const name = String(c.name ?? '');
          const state = statuses.find((s) => s.name === name)?.state;
          const stamp = isPlainObject(state) && isPlainObject(state.running) && typeof state.running.startedAt === 'string' ? state.running.startedAt : undefined;
          const known = starts?.get(name);
          const since = stamp === undefined ? NaN : known?.stamp === stamp ? known.ms : Date.parse(stamp) + stampUncertaintyMs(stamp);
          return { name, times: Number.isFinite(since) ? containerProbeTimes(c, since) : undefined };
        });
      };

      /** When the pod's next container is due to start or turn ready by its probes, as a requeue. */
      const probesDue = (pod: KubeObject, now: number): ReconcileResult | undefined => {
        if (!probesApply(pod)) return undefined;
        const due = runningProbeTimes(pod)
          .flatMap((c) => (c.times ? [c.times.startedAt, c.times.readyAt] : []))
          .filter((t) => t > now && Number.isFinite(t));
        return due.length ? { requeueAfterMs: Math.min(...due) - now } : undefined;
      };

      /**
       * A running pod's containers turned started and ready as their probes pass (probes.ts): writes the pod's
       * containerStatuses and its Ready and ContainersReady conditions when that changed ('written'), else says
       * when the next one is due.
       */
      const applyProbes = async (pod: KubeObject): Promise<'written' | ReconcileResult | undefined> => {
        if (!probesApply(pod)) return undefined;
        const now = Date.now();
        const status = isPlainObject(pod.status) ? pod.status : {};
        const statuses = Array.isArray(status.containerStatuses) ? status.containerStatuses.filter(isPlainObject) : [];
        const times = new Map(runningProbeTimes(pod).map((c) => [c.name, c.times]));
        let changed = false;
        const nextStatuses = statuses.map((cs) => {
          const t = times.get(String(cs.name ?? ''));
          if (!t) return cs;
          const ready = t.readyAt <= now;
          const started = t.startedAt <= now;
          if (cs.ready === ready && cs.started === started) return cs;
          changed = true;
          return { ...cs, ready, started };
        });
        // The Ready and ContainersReady conditions follow the containers (rebuilt also when only they disagree).
        let conditions: PodCondition[] = podConditions(pod);
        const unready = nextStatuses.filter((cs) => cs.ready !== true).map((cs) => String(cs.name ?? ''));
        for (const type of ['Ready', 'ContainersReady']) {
          const next = setPodCondition(conditions, unready.length ? { type, status: 'False', reason: 'ContainersNotReady', message: `containers with unready status: [${unready.join(' ')}]` } : { type, status: 'True' });
          conditions = next.conditions;
          if (next.changed) changed = true;
        }
        if (!changed) return probesDue(pod, now);
        try {
          await client.updateStatus(podsGVR, { ...deepCopy(pod), status: { ...status, containerStatuses: nextStatuses, conditions } }, { namespace: pod.metadata?.namespace });
        } catch (err) {
          if (err instanceof StatusError && err.code === 404) return 'written';
          throw err;
        }
        return 'written';
      };

      /**
       * A running pod's ephemeral containers (ephemeral-containers.ts): writes their statuses when one appears or
       * starts ('written'), else says when one is due to start.
       */
      const startEphemeralContainers = async (pod: KubeObject, node: string): Promise<'written' | ReconcileResult | undefined> => {
        const status = isPlainObject(pod.status) ? pod.status : {};
        // Most running pods never get one: nothing to look at (this runs on every event of a running pod).
        if (!(isPlainObject(pod.spec) && Array.isArray(pod.spec.ephemeralContainers)) && status.ephemeralContainerStatuses === undefined) return undefined;
        const eph = ephemerals.step(pod, true, identity(pod));
        const want = withEphemeralStatuses(status, eph.statuses);
        if (goEqual(want, status)) return eph.requeueAfterMs !== undefined ? { requeueAfterMs: eph.requeueAfterMs } : undefined;
        try {
          await client.updateStatus(podsGVR, { ...deepCopy(pod), status: want }, { namespace: pod.metadata?.namespace });
        } catch (err) {
          if (err instanceof StatusError && err.code === 404) return 'written';
          throw err;
        }
        startEvents(pod, node, eph.started.map((c) => ({ ...c, field: 'ephemeralContainers' })));
        return 'written';
      };

      /**
       * The host ports held on `node` by the pods admitted before `pod` (the kubelet admits pods one by one, in the
       * order they reach it): running ones, and not-yet-running ones created earlier.
       */
      const admittedPortsOn = (pod: KubeObject, node: string): HostPort[] => {
        const before = (p: KubeObject) => (isPlainObject(p.status) && p.status.phase === 'Running') || `${p.metadata?.creationTimestamp}/${p.metadata?.name}` < `${pod.metadata?.creationTimestamp}/${pod.metadata?.name}`;
        return podInformer.lister
          .list()
          .filter((p) => p.metadata?.uid !== pod.metadata?.uid && clusterOf(p) === clusterOf(pod) && isPlainObject(p.spec) && p.spec.nodeName === node && isPodActive(p) && before(p))
          .flatMap(hostPortsOf);
      };

      /**
       * rejectPod: a pod the kubelet's admission refuses (host ports another pod on the node holds — the scheduler
       * avoids that, a pod bound by nodeName does not) fails at once, with the predicate as its reason and a Warning.
       */
      const reject = async (pod: KubeObject, node: SimulatedNode, reason: string, message: string): Promise<void> => {
        const status = isPlainObject(pod.status) ? pod.status : {};
        try {
          // The status is the rejection alone (the QoS class kept), but for conditions the kubelet does not own
          // (PodScheduled), which its status manager keeps.
          const kubeletOwned = new Set(['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady']);
          const conditions = podConditions(pod).filter((c) => !kubeletOwned.has(c.type));
          const next = { ...(status.qosClass !== undefined ? { qosClass: status.qosClass } : {}), phase: 'Failed', ...(conditions.length ? { conditions } : {}), reason, message: `Pod was rejected: ${message}` };
          await client.updateStatus(podsGVR, { ...deepCopy(pod), status: next }, { namespace: pod.metadata?.namespace });
        } catch (err) {
          if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
          throw err;
        }
        void recorder.record(clusterOf(pod), { apiVersion: 'v1', kind: 'Pod', namespace: pod.metadata?.namespace, name: pod.metadata?.name ?? '', uid: pod.metadata?.uid }, 'Warning', reason, message, node.name);
      };

      /**
       * A pod with an image the simulated registry does not have: Pending, the sandbox up, each such container waiting
       * in ImagePullBackOff with kubelet's message and the others still creating, until the pod's images are changed
       * (a pod's images are mutable) or the pod goes. The pull failure's events are recorded once, on the transition.
       */
      const pullBackOff = async (pod: KubeObject, node: SimulatedNode, missing: { name: string; image: string }[]): Promise<void> => {
        const status = isPlainObject(pod.status) ? pod.status : {};
        const want = desiredStatus(pod, node, false, typeof status.startTime === 'string' ? status.startTime : nowRFC3339());
        want.conditions = setPodCondition(want.conditions as PodCondition[], { type: 'PodReadyToStartContainers', status: 'True' }).conditions;
        const byName = new Map(missing.map((c) => [c.name, c.image]));
        for (const key of ['initContainerStatuses', 'containerStatuses']) {
          if (!Array.isArray(want[key])) continue;
          want[key] = (want[key] as JsonObject[]).map((cs) => {
            const image = byName.get(String(cs.name));
            return image === undefined ? cs : { ...cs, state: { waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "${image}"` } } };
          });
        }
        if (sameState(status, want)) return;
        try {
          await client.updateStatus(podsGVR, { ...deepCopy(pod), status: want }, { namespace: pod.metadata?.namespace });
        } catch (err) {
          if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
          throw err;
        }
        for (const c of missing) {
          const at = { apiVersion: 'v1', kind: 'Pod', namespace: pod.metadata?.namespace, name: pod.metadata?.name ?? '', uid: pod.metadata?.uid, fieldPath: `spec.containers{${c.name}}` };
          void recorder.record(clusterOf(pod), at, 'Normal', 'Pulling', `Pulling image "${c.image}"`, node.name);
          void recorder.record(clusterOf(pod), at, 'Warning', 'Failed', `Failed to pull image "${c.image}": rpc error: code = NotFound desc = failed to pull and unpack image "${c.image}": not found`, node.name);
          void recorder.record(clusterOf(pod), at, 'Warning', 'Failed', 'Error: ErrImagePull', node.name);
          void recorder.record(clusterOf(pod), at, 'Normal', 'BackOff', `Back-off pulling image "${c.image}"`, node.name);
          void recorder.record(clusterOf(pod), at, 'Warning', 'Failed', 'Error: ImagePullBackOff', node.name);
        }
      };

      /**
       * A pod being deleted that is still there: its finalizers hold the object (a pod without any is gone at once, as
       * this server deletes pods without a grace period), so its containers are stopped now and the pod reported
       * terminal, which is what the finalizers' owners wait for (a Job counts it failed and releases it).
       */
      const kill = async (pod: KubeObject): Promise<ReconcileResult | void> => {
        try {
          await client.updateStatus(podsGVR, { ...deepCopy(pod), status: killedStatus(pod, Date.now()) }, { namespace: pod.metadata?.namespace });
        } catch (err) {
          if (err instanceof StatusError && err.code === 404) return;
          // Someone wrote the pod meanwhile: stop it once the cache has the new revision (no event may come for it).
          if (err instanceof StatusError && err.code === 409) return { requeueAfterMs: 50 };
          throw err;
        }
        const involved = { apiVersion: 'v1', kind: 'Pod', namespace: pod.metadata?.namespace, name: pod.metadata?.name ?? '', uid: pod.metadata?.uid };
        for (const c of containerNames(pod)) {
          void recorder.record(clusterOf(pod), { ...involved, fieldPath: `spec.containers{${c.name}}` }, 'Normal', 'Killing', `Stopping container ${c.name}`, String((pod.spec as JsonObject).nodeName ?? ''));
        }
      };

      const finishDeletion = async (pod: KubeObject): Promise<void> => {
        try {
          await client.delete(podsGVR, pod.metadata?.name ?? '', { namespace: pod.metadata?.namespace }, { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata?.uid } });
        } catch (err) {
          if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
          throw err;
        }
      };

      /** The earlier of two requeues. */
      const soonest = (a: ReconcileResult | undefined | void, b: ReconcileResult | undefined | void): ReconcileResult | undefined => {
        const ms = [a?.requeueAfterMs, b?.requeueAfterMs].filter((v): v is number => v !== undefined);
        return ms.length ? { requeueAfterMs: Math.min(...ms) } : undefined;
      };

      /** A running pod with restartPolicy Always and a non-zero simulated exit code: it crash-loops (pod-run.ts). */
      const crashLoop = async (pod: KubeObject, node: string): Promise<ReconcileResult | void> => {
        const step = crashLoopStep(pod, Date.now(), opts.jobDurationMs ?? 2000);
        if (step.status) {
          try {
            await client.updateStatus(podsGVR, { ...deepCopy(pod), status: step.status }, { namespace: pod.metadata?.namespace });
          } catch (err) {
            if (err instanceof StatusError && err.code === 404) return;
            throw err;
          }
          if (step.transition === 'crashed') backOffEvents(pod, node);
          else if (step.transition === 'restarted') containerEvents(pod, node);
        }
        return step.requeueAfterMs !== undefined ? { requeueAfterMs: Math.max(0, step.requeueAfterMs) } : undefined;
      };

      /** A running Job-style pod: its containers exit after their simulated run (pod-run.ts). */
      const runToCompletion = async (pod: KubeObject): Promise<ReconcileResult | void> => {
        const step = runner.step(pod);
        if (step.status) {
          try {
            await client.updateStatus(podsGVR, { ...deepCopy(pod), status: step.status }, { namespace: pod.metadata?.namespace });
          } catch (err) {
            if (err instanceof StatusError && err.code === 404) return;
            throw err;
          }
        }
        return step.requeueAfterMs !== undefined ? { requeueAfterMs: Math.max(0, step.requeueAfterMs) } : undefined;
      };

      const registerNodes = async (): Promise<void> => {
        try {
          await client.create(namespacesGVR, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-node-lease' } });
        } catch (err) {
          if (!isAlreadyExists(err)) throw err;
        }
        const now = nowRFC3339();
        for (const node of opts.nodes) {
          const obj = nodeObject(node, opts.clusterName, now);
          try {
            await client.create(nodesGVR, obj);
          } catch (err) {
            if (!isAlreadyExists(err)) throw err;
            // Restarted on an existing data directory: the node comes back with this run's capacity and heartbeat.
            const existing = await client.get<KubeObject>(nodesGVR, node.name);
            await client.updateStatus(nodesGVR, { ...existing, status: obj.status });
          }
          await renewLease(node);
        }
      };

      const renewLease = async (node: SimulatedNode): Promise<void> => {
        const lease = nodeLease(node, new Date().toISOString().replace(/(\.\d{3})Z$/, '$1000Z'));
        try {
          const existing = await client.get<KubeObject>(leasesGVR, node.name, { namespace: 'kube-node-lease' });
          await client.update(leasesGVR, { ...existing, spec: lease.spec });
        } catch (err) {
          if (err instanceof StatusError && err.code === 404) await client.create(leasesGVR, lease, { namespace: 'kube-node-lease' });
          else throw err;
        }
      };

      const heartbeat = async (): Promise<void> => {
        const now = nowRFC3339();
        for (const node of opts.nodes) {
          const existing = await client.get<KubeObject>(nodesGVR, node.name);
          const status = isPlainObject(existing.status) ? existing.status : {};
          const since = findCondition(status.conditions as { type: string; lastTransitionTime?: string }[] | undefined, 'Ready')?.lastTransitionTime;
          await client.updateStatus(nodesGVR, { ...existing, status: { ...status, conditions: healthyNodeConditions(now, String(since ?? now)) } });
        }
      };

      const every = (ms: number, fn: () => Promise<void>) => {
        timers.push(
          setInterval(() => {
            fn().catch((err) => {
              // Heartbeats retry on the next tick; one failure is only worth a note.
              if (!stopped) logger.warn('kubelet heartbeat failed', { error: (err as Error).message });
            });
          }, ms),
        );
      };
      let stopped = false;

      const controller = new Controller<string>({ name: 'kubelet', reconcile, workers: 2, rateLimiter: { baseDelayMs: 20, maxDelayMs: 2_000 } });
      const enqueue = (pod: KubeObject) => {
        if (byName.has(isPlainObject(pod.spec) ? String(pod.spec.nodeName ?? '') : '')) {
          controller.enqueue(formatObjectKey({ cluster: clusterOf(pod), namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '' }));
        }
      };
      const forget = (pod: KubeObject) => {
        const uid = pod.metadata?.uid ?? '';
        runner.forget(uid);
        ephemerals.forget(uid);
        containerStarts.delete(uid);
        enqueue(pod);
      };
      podInformer.addEventHandler({ add: enqueue, update: (_o, n) => enqueue(n), delete: forget });
      const enqueueUsersOf = (claim: KubeObject) => {
        for (const pod of podInformer.lister.list()) {
          if (pod.metadata?.namespace === claim.metadata?.namespace && clusterOf(pod) === clusterOf(claim) && podClaimNames(pod).includes(claim.metadata?.name ?? '')) enqueue(pod);
        }
      };
      claimInformer.addEventHandler({ add: enqueueUsersOf, update: (_o, n) => enqueueUsersOf(n) });
      return {
        name: 'kubelet',
        async start() {
          await registerNodes();
          every(opts.leaseRenewMs ?? 10_000, async () => {
            for (const node of opts.nodes) await renewLease(node);
          });
          every(opts.nodeStatusMs ?? 60_000, heartbeat);
          controller.start();
        },
        async stop() {
          stopped = true;
          for (const t of timers) clearInterval(t);
          await controller.stop();
        },
      };
    },
  };
}
