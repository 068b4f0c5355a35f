/**
 * Init containers that fail, as kube 1.32's kubelet runs them. The simulation runs init containers within a pod's
 * start-up delay, and they succeed — unless one's command plainly fails (`/bin/false`, `sh -c "exit 3"`:
 * pod-run.ts containerCommandRun), as upstream's e2e InitContainer pods and examples say. Then the containers after
 * it never start:
 *
 * - restartPolicy Never: the pod fails (phase Failed), the init container terminated with its exit code (reason
 *   Error), the later ones and the app containers waiting in PodInitializing;
 * - Always or OnFailure: the init container is restarted after kubelet's back-off (10 s, doubling, at most 5 min),
 *   fails again each time, and waits in CrashLoopBackOff in between (restartCount counting the restarts, lastState
 *   terminated with the exit code); the pod stays Pending (`Init:CrashLoopBackOff`).
 *
 * Conditions as the kubelet's status generator writes them (pkg/kubelet/status/generate.go): Initialized False
 * (ContainersNotInitialized, naming every init container that has not completed), Ready and ContainersReady False
 * (PodFailed for a failed pod, else ContainersNotReady naming the app containers).
 */
import { type JsonObject, type KubeObject, formatRFC3339, isPlainObject } from '../../apimachinery/object.js';
import { type PodCondition, podConditions, setPodCondition } from './pod-conditions.js';
import { containerCommandRun, crashLoopBackOffMs, podDesc } from './pod-run.js';

export interface FailingInit {
  /** Its position among the pod's init containers. */
  index: number;
  name: string;
  exitCode: number;
}

/** The first init container (not a sidecar) whose command plainly exits non-zero; those before it succeed. */
export function failingInitContainer(pod: KubeObject): FailingInit | undefined {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  const inits = Array.isArray(spec.initContainers) ? spec.initContainers.filter(isPlainObject) : [];
  for (let index = 0; index < inits.length; index++) {
    const c = inits[index]!;
    if (c.restartPolicy === 'Always') continue;
    const exitCode = containerCommandRun(c).exitCode ?? 0;
    if (exitCode !== 0) return { index, name: String(c.name ?? ''), exitCode };
  }
  return undefined;
}

/** How many times a crash-looping container has been restarted `elapsedMs` after its first failure, and when the next restart is due. */
export function restartsAfter(elapsedMs: number): { restarts: number; nextInMs: number } {
  let restarts = 0;
  let at = crashLoopBackOffMs(0);
  while (at <= elapsedMs) {
    restarts++;
    at += crashLoopBackOffMs(restarts);
  }
  return { restarts, nextInMs: at - elapsedMs };
}

/**
 * The status of a pod whose init container `failing` fails, `now` (ms) after the pod's start-up delay ended at
 * `startedAt` (ms). `pending` is the status the pod has while its init containers run (Pending, every container
 * waiting in PodInitializing); `containerID` names a container instance. `requeueAfterMs`: when the next restart of a
 * crash-looping init container is due.
 */
export function initFailureStatus(
  pod: KubeObject,
  pending: JsonObject,
  failing: FailingInit,
  startedAt: number,
  now: number,
  containerID: (name: string, restart: number) => string,
): { status: JsonObject; requeueAfterMs?: number } {
  const restartPolicy = isPlainObject(pod.spec) ? (pod.spec.restartPolicy ?? 'Always') : 'Always';
  const fails = restartPolicy === 'Never';
  const started = formatRFC3339(startedAt);
  const { restarts, nextInMs } = restartsAfter(now - startedAt);
  // The failing instance's run: the first at the start, each restart after its back-off.
  let lastRunAt = startedAt;
  for (let r = 0; r < restarts; r++) lastRunAt += crashLoopBackOffMs(r);
  const specInits = isPlainObject(pod.spec) && Array.isArray(pod.spec.initContainers) ? pod.spec.initContainers.filter(isPlainObject) : [];
  const sidecarNames = new Set(specInits.filter((c) => c.restartPolicy === 'Always').map((c) => String(c.name ?? '')));
  const terminated = (exitCode: number, at: string, id: string) => ({ exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: at, finishedAt: at, containerID: id });
  const initStatuses = (Array.isArray(pending.initContainerStatuses) ? pending.initContainerStatuses.filter(isPlainObject) : []).map((cs, i): JsonObject => {
    const name = String(cs.name);
    if (i < failing.index) {
      // A sidecar before the failing one started and runs on (no readiness probe is simulated: ready) — until a failed
      // pod's containers are stopped (the simulated ones exit cleanly on SIGTERM).
      if (sidecarNames.has(name) && fails) return { ...cs, ready: false, started: false, state: { terminated: terminated(0, started, containerID(name, 0)) }, containerID: containerID(name, 0) };
      return sidecarNames.has(name)
        ? { ...cs, ready: true, started: true, state: { running: { startedAt: started } }, containerID: containerID(name, 0) }
        : { ...cs, ready: true, started: false, state: { terminated: terminated(0, started, containerID(name, 0)) }, containerID: containerID(name, 0) };
    }
    if (i > failing.index) return cs;
    if (fails) return { ...cs, ready: false, started: false, state: { terminated: terminated(failing.exitCode, started, containerID(name, 0)) }, containerID: containerID(name, 0) };
    const backOff = crashLoopBackOffMs(restarts);
    return {
      ...cs,
      ready: false,
      started: false,
      restartCount: restarts,
      state: { waiting: { reason: 'CrashLoopBackOff', message: `back-off ${backOff / 1000}s restarting failed container=${name} pod=${podDesc(pod)}` } },
      lastState: { terminated: terminated(failing.exitCode, formatRFC3339(lastRunAt), containerID(name, restarts)) },
      containerID: containerID(name, restarts),
    };
  });
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  const inits = Array.isArray(spec.initContainers) ? spec.initContainers.filter(isPlainObject) : [];
  const incomplete = inits.slice(failing.index).map((c) => String(c.name ?? ''));
  const appNames = (Array.isArray(spec.containers) ? spec.containers.filter(isPlainObject) : []).map((c) => String(c.name ?? ''));
  // Sidecars after the failing one never started; those before it run, ready (GenerateContainersReadyCondition lists only the unready).
  const sidecars = inits.slice(failing.index).filter((c) => c.restartPolicy === 'Always').map((c) => String(c.name ?? ''));
  let conditions: PodCondition[] = podConditions({ ...pod, status: pending });
  const set = (c: PodCondition) => (conditions = setPodCondition(conditions, c).conditions);
  set({ type: 'PodReadyToStartContainers', status: fails ? 'False' : 'True' });
  set({ type: 'Initialized', status: 'False', reason: 'ContainersNotInitialized', message: `containers with incomplete status: [${incomplete.join(' ')}]` });
  for (const type of ['Ready', 'ContainersReady']) {
    set(fails ? { type, status: 'False', reason: 'PodFailed' } : { type, status: 'False', reason: 'ContainersNotReady', message: `containers with unready status: [${[...sidecars, ...appNames].join(' ')}]` });
  }
  const status: JsonObject = { ...pending, phase: fails ? 'Failed' : 'Pending', conditions, initContainerStatuses: initStatuses };
  return fails ? { status } : { status, requeueAfterMs: nextInMs };
}
