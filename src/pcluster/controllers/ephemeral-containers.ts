/**
 * Ephemeral containers (what `kubectl debug` adds through pods/ephemeralcontainers) as the simulated kubelet runs
 * them, after kube 1.32's kubelet:
 *
 * - a container named in spec.ephemeralContainers without a status yet is started once (the kubelet's
 *   computePodActions starts every ephemeral container it has no status for, even before initialization is done);
 *   until then it shows the default waiting state of convertToAPIContainerStatuses (ContainerCreating, or
 *   PodInitializing when the pod has init containers). Here it waits while the pod itself is still starting and, once
 *   the pod runs, for the cluster's start-up delay (as a regular container waits in ContainerCreating);
 * - a started one is never restarted and never probed: ready stays false and no `started` field is written (the
 *   prober manager sets it only for regular and init containers), and it takes no part in the pod's conditions;
 * - the statuses are sorted by name (kubelet's SortedContainerStatuses).
 *
 * The simulation does not run the container's command, so an ephemeral container runs until its pod ends (a
 * `kubectl debug ... -- sh` whose shell would exit on its own keeps running): no command is interpreted for any
 * simulated container, and a stand-in for the command's own end would be a guess.
 */
import { type JsonObject, type KubeObject, deepCopy, isPlainObject, nowRFC3339 } from '../../apimachinery/object.js';

export interface EphemeralContainer {
  name: string;
  image: string;
}

const list = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);

/** The pod's ephemeral containers, in spec order. */
export function ephemeralContainersOf(pod: KubeObject): EphemeralContainer[] {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  return list(spec.ephemeralContainers).map((c) => ({ name: String(c.name ?? ''), image: String(c.image ?? '') }));
}

/** Whether a status says the container was started (running now or terminated since): it is never started again. */
function wasStarted(cs: JsonObject | undefined): boolean {
  const state = cs && isPlainObject(cs.state) ? cs.state : {};
  return isPlainObject(state.running) || isPlainObject(state.terminated);
}

/** The ids the runtime gives a started container. */
export interface ContainerIdentity {
  containerID(name: string): string;
  imageID(image: string): string;
}

export interface EphemeralStep {
  /** The pod's status.ephemeralContainerStatuses as they should be now (empty when it has no ephemeral container). */
  statuses: JsonObject[];
  /** The containers this step starts (for the kubelet's Pulled/Created/Started events). */
  started: EphemeralContainer[];
  /** When a waiting container is due to start. */
  requeueAfterMs?: number;
}

/**
 * Starts the ephemeral containers of one kubelet's pods: remembers since when each waits (keyed by pod uid and
 * container name) and answers the statuses they should have now.
 */
export class EphemeralContainerStarter {
  private readonly waitingSince = new Map<string, number>();

  constructor(private readonly startDelayMs: number) {}

  /**
   * The ephemeral container statuses of `pod` at `now`. `podRunning`: the pod's sandbox and containers are up, so
   * its ephemeral containers can start.
   */
  step(pod: KubeObject, podRunning: boolean, ids: ContainerIdentity, now = Date.now()): EphemeralStep {
    const uid = pod.metadata?.uid ?? '';
    const spec = isPlainObject(pod.spec) ? pod.spec : {};
    const status = isPlainObject(pod.status) ? pod.status : {};
    const old = new Map(list(status.ephemeralContainerStatuses).map((cs) => [String(cs.name), cs]));
    const waitingReason = list(spec.initContainers).length > 0 ? 'PodInitializing' : 'ContainerCreating';
    const statuses: JsonObject[] = [];
    const started: EphemeralContainer[] = [];
    let requeueAfterMs: number | undefined;
    for (const c of ephemeralContainersOf(pod)) {
      const have = old.get(c.name);
      if (wasStarted(have)) {
        statuses.push(deepCopy(have!));
        continue;
      }
      const key = `${uid}/${c.name}`;
      let since = this.waitingSince.get(key);
      if (since === undefined) this.waitingSince.set(key, (since = now));
      const due = since + this.startDelayMs;
      if (podRunning && now >= due) {
        this.waitingSince.delete(key);
        started.push(c);
        statuses.push({
          name: c.name,
          image: c.image,
          imageID: ids.imageID(c.image),
          containerID: ids.containerID(c.name),
          ready: false,
          restartCount: 0,
          state: { running: { startedAt: nowRFC3339() } },
          lastState: {},
        });
        continue;
      }
      if (podRunning) requeueAfterMs = Math.min(requeueAfterMs ?? Infinity, due - now);
      statuses.push({ name: c.name, image: c.image, imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: waitingReason } }, lastState: {} });
    }
    statuses.sort((a, b) => (String(a.name) < String(b.name) ? -1 : String(a.name) > String(b.name) ? 1 : 0));
    return { statuses, started, ...(requeueAfterMs !== undefined ? { requeueAfterMs: Math.max(0, requeueAfterMs) } : {}) };
  }

  /** Forgets a pod that is gone. */
  forget(uid: string): void {
    for (const k of this.waitingSince.keys()) if (k.startsWith(`${uid}/`)) this.waitingSince.delete(k);
  }
}

/**
 * The pod's status with its ephemeral container statuses set to `statuses` (the field is left out when there are
 * none, as the kubelet's empty list is omitted on the wire).
 */
export function withEphemeralStatuses(status: JsonObject, statuses: JsonObject[]): JsonObject {
  const next: JsonObject = { ...status };
  if (statuses.length) next.ephemeralContainerStatuses = statuses;
  else delete next.ephemeralContainerStatuses;
  return next;
}
