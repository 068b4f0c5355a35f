/**
 * How the simulated kubelet runs pods that run to completion (restartPolicy Never or OnFailure, as Jobs' pods do):
 * once Running, their containers run for a simulated duration and then exit. The knobs, on the pod (or its
 * template):
 *
 * - `sim.atrium.io/run-seconds: "5"` — how long the containers run (default: the pcluster's --job-duration, 2 s);
 * - `sim.atrium.io/exit-code: "1"` — the containers' exit code (default 0).
 *
 * Without them, a first container whose command is plainly `sleep N`, `exit N` (directly or through `sh -c`) or
 * `true`/`false` runs N seconds or exits with N (0, 1), as e2e suites' and examples' pods say, a plain script
 * (runtime/plain-output.ts) as long as its sleeps and with its exit status (agnhost's mounttest reading a file in a
 * loop, its retry time), and one running agnhost's image as it is (`pause`) or the
 * pause image as it is (no command or args: its entrypoint waits for a signal, as upstream's e2e Jobs that must not
 * finish use it) never exits; any other command runs the defaults. Init containers: init-containers.ts.
 *
 * Exit 0: phase Succeeded, containers terminated with reason Completed. Non-zero with restartPolicy Never: phase
 * Failed, reason Error. Non-zero with OnFailure: the containers restart in place (restartCount + 1, lastState
 * terminated with the exit code) and run again, so a Job's backoffLimit counts restarts. The run starts when the
 * kubelet sees the pod Running (a restart of the cluster starts it again).
 *
 * Pods with restartPolicy Always run until deleted, unless they carry a non-zero `sim.atrium.io/exit-code`: then they
 * crash-loop as kube 1.32's kubelet makes them (crashLoopStep): the containers run for run-seconds, exit (lastState
 * terminated, reason Error), wait in CrashLoopBackOff for the back-off (10 s, doubling per restart, at most 5 min;
 * the pod stays Running but not Ready), then restart (restartCount + 1). The kubelet records `BackOff` (Warning,
 * `Back-off restarting failed container <c> in pod <name>_<namespace>(<uid>)`) when a container enters the back-off.
 * The state is read from the pod's status alone, so a restart of the cluster carries on where it was.
 */
import { createHash } from 'node:crypto';
import { type JsonObject, type KubeObject, formatRFC3339, isPlainObject } from '../../apimachinery/object.js';
import { type PodCondition, podConditions, setPodCondition } from './pod-conditions.js';
import { mounttestFlags, mounttestLoop } from '../runtime/mounttest.js';
import { plainRun } from '../runtime/plain-output.js';

export const runSecondsAnnotation = 'sim.atrium.io/run-seconds';
export const exitCodeAnnotation = 'sim.atrium.io/exit-code';

/** Whether the pod's containers exit on their own (restartPolicy Never or OnFailure). */
export function runsToCompletion(pod: KubeObject): boolean {
  const policy = isPlainObject(pod.spec) ? pod.spec.restartPolicy : undefined;
  return policy === 'Never' || policy === 'OnFailure';
}

/**
 * What the pod's first container's command says plainly about its run (containerCommandRun).
 */
function plainCommand(pod: KubeObject): { sleepSeconds?: number; exitCode?: number } {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  const c = Array.isArray(spec.containers) ? spec.containers.find(isPlainObject) : undefined;
  return c ? containerCommandRun(c) : {};
}

/**
 * What a container's command says plainly about its run, when it is nothing but a sleep, an exit or `true`/`false`:
 * `sleep 300` (directly or as `sh -c "sleep 300"`) runs 300 s, `sh -c "exit 1"` exits at once with 1, `/bin/false`
 * with 1 and `/bin/true` with 0; the pause image as it is (no command or args) never exits. Nothing is executed;
 * anything else is left to the annotations and the defaults.
 */
export function containerCommandRun(c: JsonObject): { sleepSeconds?: number; exitCode?: number } {
  // agnhost's mounttest reading a file in a loop runs for its retry time (runtime/mounttest.ts).
  const mounttest = mounttestFlags(c);
  const loop = mounttest && mounttestLoop(mounttest);
  if (loop) return { sleepSeconds: loop.retrySeconds, exitCode: 0 };
  const words = [...(Array.isArray(c.command) ? c.command : []), ...(Array.isArray(c.args) ? c.args : [])].map(String);
  if (words.length === 0 && typeof c.image === 'string' && isPauseImage(c.image)) return { sleepSeconds: Number.POSITIVE_INFINITY, exitCode: 0 };
  // agnhost's image runs `/agnhost pause` unless told otherwise (its ENTRYPOINT and CMD): it waits for a signal too.
  const command = Array.isArray(c.command) ? c.command : [];
  const args = Array.isArray(c.args) ? c.args.map(String) : [];
  if (command.length === 0 && (args.length === 0 || (args.length === 1 && args[0] === 'pause')) && typeof c.image === 'string' && /(^|\/)agnhost(:|@|$)/.test(c.image)) {
    return { sleepSeconds: Number.POSITIVE_INFINITY, exitCode: 0 };
  }
  let script = words;
  if (words.length === 3 && /^(\/bin\/|\/usr\/bin\/)?(sh|bash|ash)$/.test(words[0]!) && words[1] === '-c') script = words[2]!.trim().split(/\s+/);
  if (script.length === 2 && /^(\/bin\/|\/usr\/bin\/)?sleep$/.test(script[0]!) && /^\d+(\.\d+)?$/.test(script[1]!)) return { sleepSeconds: Number(script[1]), exitCode: 0 };
  if (script.length === 2 && script[0] === 'exit' && /^\d+$/.test(script[1]!) && Number(script[1]) <= 255) return { sleepSeconds: 0, exitCode: Number(script[1]) };
  if (script.length === 1 && /^(\/bin\/|\/usr\/bin\/)?(true|false)$/.test(script[0]!)) return { sleepSeconds: 0, exitCode: script[0]!.endsWith('false') ? 1 : 0 };
  // A plain script of echo, sleep, exit, ... (runtime/plain-output.ts): its exit status, and its sleeps when it has
  // any (one that only prints keeps the default run time, so a pod of it is seen running first, as before).
  const plain = plainRun(words);
  if (plain) return { ...(plain.sleepSeconds > 0 ? { sleepSeconds: plain.sleepSeconds } : {}), exitCode: plain.exitCode };
  return {};
}

/** The pause image (registry.k8s.io/pause:3.10, k8s.gcr.io/pause-amd64:3.1, ...): its entrypoint only waits for a signal. */
export function isPauseImage(image: string): boolean {
  const last = image.split('/').pop() ?? '';
  return /^pause(-[a-z0-9]+)?(:[\w.-]+)?(@sha256:[0-9a-f]+)?$/.test(last);
}

/** The simulated run time of the pod's containers in ms (Infinity: they never exit on their own): the annotation, else a plain `sleep N` command, else `defaultMs`. */
export function runDurationMs(pod: KubeObject, defaultMs: number): number {
  const v = pod.metadata?.annotations?.[runSecondsAnnotation];
  const n = v === undefined ? NaN : Number(v);
  if (Number.isFinite(n) && n >= 0) return n * 1000;
  const plain = plainCommand(pod).sleepSeconds;
  return plain !== undefined ? plain * 1000 : defaultMs;
}

/** The simulated exit code: the annotation (an integer 0-255), else a plain `exit N` command's, else 0. */
export function exitCodeOf(pod: KubeObject): number {
  const v = pod.metadata?.annotations?.[exitCodeAnnotation];
  const n = v === undefined ? NaN : Number(v);
  if (Number.isInteger(n) && n >= 0 && n <= 255) return n;
  return plainCommand(pod).exitCode ?? 0;
}

function containerIDFor(uid: string, name: string, restart: number): string {
  return `containerd://${createHash('sha256').update(`${uid}/${name}/${restart}`).digest('hex')}`;
}

/** A finished pod's conditions: its sandbox gone (PodReadyToStartContainers False), not ready for `reason`. */
function finishedConditions(pod: KubeObject, reason: string): PodCondition[] {
  let conditions: PodCondition[] = podConditions(pod);
  for (const c of [
    { type: 'PodReadyToStartContainers', status: 'False' },
    { type: 'Ready', status: 'False', reason },
    { type: 'ContainersReady', status: 'False', reason },
  ]) {
    conditions = setPodCondition(conditions, c).conditions;
  }
  return conditions;
}

/**
 * The status a Running, run-to-completion pod has after its containers ran from `startedAt` until `now` (ms):
 * undefined while they still run. `startedAt` is when this run began (the last restart, for OnFailure).
 */
export function completedStatus(pod: KubeObject, startedAt: number, now: number, defaultRunMs: number): JsonObject | undefined {
  const runMs = runDurationMs(pod, defaultRunMs);
  if (now < startedAt + runMs) return undefined;
  const status = isPlainObject(pod.status) ? pod.status : {};
  const uid = pod.metadata?.uid ?? '';
  const exitCode = exitCodeOf(pod);
  const restartPolicy = isPlainObject(pod.spec) ? pod.spec.restartPolicy : undefined;
  const started = formatRFC3339(startedAt);
  const finished = formatRFC3339(now);
  const containers = Array.isArray(status.containerStatuses) ? status.containerStatuses.filter(isPlainObject) : [];
  const terminated = (cs: JsonObject) => ({
    terminated: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: started, finishedAt: finished, containerID: cs.containerID ?? containerIDFor(uid, String(cs.name), Number(cs.restartCount ?? 0)) },
  });
  if (exitCode !== 0 && restartPolicy === 'OnFailure') {
    // Restarted in place: the pod stays Running.
    return {
      ...status,
      containerStatuses: containers.map((cs) => {
        const restarts = Number(cs.restartCount ?? 0) + 1;
        return { ...cs, restartCount: restarts, lastState: terminated(cs), state: { running: { startedAt: finished } }, containerID: containerIDFor(uid, String(cs.name), restarts), ready: true, started: true };
      }),
    };
  }
  const succeeded = exitCode === 0;
  const conditions = finishedConditions(pod, succeeded ? 'PodCompleted' : 'PodFailed');
  // Once the containers are done the kubelet stops the sidecars (restartable init containers still running) and the
  // ephemeral containers (`kubectl debug`) with the pod; the simulated ones exit cleanly on SIGTERM.
  const inits = Array.isArray(status.initContainerStatuses) ? status.initContainerStatuses.filter(isPlainObject) : [];
  const ephemerals = Array.isArray(status.ephemeralContainerStatuses) ? status.ephemeralContainerStatuses.filter(isPlainObject) : [];
  const stopped = (cs: JsonObject) => {
    const since = (isPlainObject(cs.state) && isPlainObject(cs.state.running) ? String(cs.state.running.startedAt ?? '') : '') || started;
    return { terminated: { exitCode: 0, reason: 'Completed', startedAt: since, finishedAt: finished, containerID: cs.containerID ?? containerIDFor(uid, String(cs.name), Number(cs.restartCount ?? 0)) } };
  };
  return {
    ...status,
    phase: succeeded ? 'Succeeded' : 'Failed',
    conditions,
    ...(inits.length ? { initContainerStatuses: inits.map((cs) => (isPlainObject(cs.state) && isPlainObject(cs.state.running) ? { ...cs, ready: false, started: false, state: stopped(cs) } : cs)) } : {}),
    ...(ephemerals.length ? { ephemeralContainerStatuses: ephemerals.map((cs) => (isPlainObject(cs.state) && isPlainObject(cs.state.running) ? { ...cs, state: stopped(cs) } : cs)) } : {}),
    containerStatuses: containers.map((cs) => ({ ...cs, ready: false, started: false, state: terminated(cs) })),
  };
}

/** The exit code of a container the kubelet killed when its pod was deleted: SIGKILL after the grace period (128 + 9). */
export const killedExitCode = 137;

/**
 * The status of a pod whose deletion the kubelet carried out while the pod still held finalizers (a Job's tracking
 * finalizer, say), so that the object outlives its containers: every running container terminated with exit code
 * 137 (reason Error), one that never started terminated as ContainerStatusUnknown (as kubelet 1.32 reports a container
 * it could not locate when the pod was terminated), the pod Failed — kubelet 1.32 gives a pod stopped by its deletion
 * the phase Failed unless every container had already succeeded — and its Ready, ContainersReady and
 * PodReadyToStartContainers conditions False.
 */
export function killedStatus(pod: KubeObject, now: number): JsonObject {
  const status = isPlainObject(pod.status) ? pod.status : {};
  const uid = pod.metadata?.uid ?? '';
  const finished = formatRFC3339(now);
  const kill = (cs: JsonObject): JsonObject => {
    const state = isPlainObject(cs.state) ? cs.state : {};
    if (isPlainObject(state.terminated)) return cs;
    const containerID = cs.containerID ?? containerIDFor(uid, String(cs.name), Number(cs.restartCount ?? 0));
    if (isPlainObject(state.running)) {
      return { ...cs, ready: false, started: false, state: { terminated: { exitCode: killedExitCode, reason: 'Error', startedAt: state.running.startedAt ?? finished, finishedAt: finished, containerID } } };
    }
    return {
      ...cs,
      ready: false,
      started: false,
      state: { terminated: { exitCode: killedExitCode, reason: 'ContainerStatusUnknown', message: 'The container could not be located when the pod was terminated', startedAt: null, finishedAt: null } },
    };
  };
  const list = (key: string) => (Array.isArray(status[key]) ? (status[key] as unknown[]).filter(isPlainObject).map(kill) : undefined);
  const containers = list('containerStatuses') ?? [];
  const allSucceeded = containers.length > 0 && containers.every((cs) => isPlainObject(cs.state) && isPlainObject(cs.state.terminated) && cs.state.terminated.exitCode === 0);
  const conditions = finishedConditions(pod, allSucceeded ? 'PodCompleted' : 'PodFailed');
  const inits = list('initContainerStatuses');
  const ephemerals = list('ephemeralContainerStatuses');
  return {
    ...status,
    phase: allSucceeded ? 'Succeeded' : 'Failed',
    conditions,
    ...(inits ? { initContainerStatuses: inits } : {}),
    ...(ephemerals ? { ephemeralContainerStatuses: ephemerals } : {}),
    containerStatuses: containers,
  };
}

/** The reason and message of a pod the kubelet stopped at its spec.activeDeadlineSeconds (kubelet's activeDeadlineHandler). */
export const DEADLINE_EXCEEDED = { reason: 'DeadlineExceeded', message: 'Pod was active on the node longer than the specified deadline' };

/**
 * pastActiveDeadline: a pod with spec.activeDeadlineSeconds whose status.startTime is that long ago is 'exceeded';
 * otherwise the milliseconds left (the deadline is mutable: a shorter one takes effect at the next look), or undefined
 * without a deadline or a start time.
 */
export function activeDeadline(pod: KubeObject, now: number): 'exceeded' | number | undefined {
  const seconds = isPlainObject(pod.spec) ? pod.spec.activeDeadlineSeconds : undefined;
  const startTime = isPlainObject(pod.status) ? pod.status.startTime : undefined;
  if (typeof seconds !== 'number' || typeof startTime !== 'string') return undefined;
  const left = Date.parse(startTime) + seconds * 1000 - now;
  return Number.isNaN(left) ? undefined : left <= 0 ? 'exceeded' : left;
}

/** The status of a pod stopped at its deadline: its containers killed, Failed with DeadlineExceeded. */
export function deadlineExceededStatus(pod: KubeObject, now: number): JsonObject {
  const killed = killedStatus(pod, now);
  return { ...killed, phase: 'Failed', conditions: finishedConditions(pod, 'PodFailed'), reason: DEADLINE_EXCEEDED.reason, message: DEADLINE_EXCEEDED.message };
}

/**
 * Runs the run-to-completion pods of one kubelet: remembers when each pod's current run started (keyed by uid and
 * restart count) and answers what its status should be now, or when to look again.
 */
export class PodRunner {
  private readonly startedAt = new Map<string, number>();

  constructor(private readonly defaultRunMs: number) {}

  /** The next status to write (if any) and when to look again (if ever). */
  step(pod: KubeObject, now = Date.now()): { status?: JsonObject; requeueAfterMs?: number } {
    const status = isPlainObject(pod.status) ? pod.status : {};
    const restarts = (Array.isArray(status.containerStatuses) ? status.containerStatuses.filter(isPlainObject) : []).reduce((n, cs) => Math.max(n, Number(cs.restartCount ?? 0)), 0);
    const key = `${pod.metadata?.uid}/${restarts}`;
    let since = this.startedAt.get(key);
    if (since === undefined) this.startedAt.set(key, (since = now));
    const next = completedStatus(pod, since, now, this.defaultRunMs);
    if (!next) {
      const left = since + runDurationMs(pod, this.defaultRunMs) - now;
      return Number.isFinite(left) ? { requeueAfterMs: left } : {};
    }
    this.startedAt.delete(key);
    return next.phase === 'Running' ? { status: next, requeueAfterMs: runDurationMs(pod, this.defaultRunMs) } : { status: next };
  }

  /** Forgets a pod that is gone. */
  forget(uid: string): void {
    for (const k of this.startedAt.keys()) if (k.startsWith(`${uid}/`)) this.startedAt.delete(k);
  }
}

/** Whether a Running pod with restartPolicy Always crash-loops (a non-zero simulated exit code). */
export function crashLoops(pod: KubeObject): boolean {
  const policy = isPlainObject(pod.spec) ? (pod.spec.restartPolicy ?? 'Always') : 'Always';
  return policy === 'Always' && exitCodeOf(pod) !== 0;
}

/** kube's container restart back-off after `restarts` restarts: 10 s, doubling, at most 300 s. */
export function crashLoopBackOffMs(restarts: number): number {
  return Math.min(300_000, 10_000 * 2 ** Math.min(restarts, 5));
}

/** kubelet's format.Pod: `<name>_<namespace>(<uid>)`. */
export function podDesc(pod: KubeObject): string {
  return `${pod.metadata?.name}_${pod.metadata?.namespace}(${pod.metadata?.uid})`;
}

export interface CrashLoopStep {
  /** The status to write, if any. */
  status?: JsonObject;
  /** What happened: the containers exited (into CrashLoopBackOff), or were restarted. */
  transition?: 'crashed' | 'restarted';
  requeueAfterMs?: number;
}

/**
 * One step of a crash-looping pod (crashLoops) at `now`, from its status alone: running containers exit `runMs` after
 * they started; containers in CrashLoopBackOff restart once the back-off since they finished has passed.
 */
export function crashLoopStep(pod: KubeObject, now: number, defaultRunMs: number): CrashLoopStep {
  const status = isPlainObject(pod.status) ? pod.status : {};
  const containers = Array.isArray(status.containerStatuses) ? status.containerStatuses.filter(isPlainObject) : [];
  if (containers.length === 0) return {};
  const uid = pod.metadata?.uid ?? '';
  const runMs = runDurationMs(pod, defaultRunMs);
  const exitCode = exitCodeOf(pod);
  const stateOf = (cs: JsonObject) => (isPlainObject(cs.state) ? cs.state : {});
  const restarts = (cs: JsonObject) => Number(cs.restartCount ?? 0);
  const conditions = (ready: boolean) => {
    let c: PodCondition[] = podConditions(pod);
    const names = containers.map((cs) => String(cs.name)).join(' ');
    for (const type of ['Ready', 'ContainersReady']) {
      c = setPodCondition(c, ready ? { type, status: 'True' } : { type, status: 'False', reason: 'ContainersNotReady', message: `containers with unready status: [${names}]` }).conditions;
    }
    return c;
  };
  const running = containers.filter((cs) => isPlainObject(stateOf(cs).running));
  if (running.length === containers.length) {
    const started = Math.max(...running.map((cs) => Date.parse(String((stateOf(cs).running as JsonObject).startedAt ?? '')) || now));
    if (now < started + runMs) return Number.isFinite(runMs) ? { requeueAfterMs: started + runMs - now } : {};
    const finished = formatRFC3339(now);
    return {
      transition: 'crashed',
      status: {
        ...status,
        conditions: conditions(false),
        containerStatuses: containers.map((cs) => ({
          ...cs,
          ready: false,
          started: false,
          lastState: { terminated: { exitCode, reason: 'Error', startedAt: formatRFC3339(started), finishedAt: finished, containerID: cs.containerID ?? containerIDFor(uid, String(cs.name), restarts(cs)) } },
          state: { waiting: { reason: 'CrashLoopBackOff', message: `back-off ${crashLoopBackOffMs(restarts(cs)) / 1000}s restarting failed container=${cs.name} pod=${podDesc(pod)}` } },
        })),
      },
      requeueAfterMs: crashLoopBackOffMs(Math.max(...containers.map(restarts))),
    };
  }
  const waiting = containers.filter((cs) => (stateOf(cs).waiting as JsonObject | undefined)?.reason === 'CrashLoopBackOff');
  if (waiting.length !== containers.length) return {};
  const finishedOf = (cs: JsonObject) => Date.parse(String(((isPlainObject(cs.lastState) ? cs.lastState.terminated : undefined) as JsonObject | undefined)?.finishedAt ?? '')) || now;
  const due = Math.max(...containers.map((cs) => finishedOf(cs) + crashLoopBackOffMs(restarts(cs))));
  if (now < due) return { requeueAfterMs: due - now };
  const startedAt = formatRFC3339(now);
  return {
    transition: 'restarted',
    status: {
      ...status,
      conditions: conditions(true),
      containerStatuses: containers.map((cs) => ({ ...cs, restartCount: restarts(cs) + 1, ready: true, started: true, state: { running: { startedAt } }, containerID: containerIDFor(uid, String(cs.name), restarts(cs) + 1) })),
    },
    requeueAfterMs: runMs,
  };
}
