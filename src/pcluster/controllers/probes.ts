/**
 * What the simulated kubelet makes of a container's startup and readiness probes (the prober manager's results,
 * without running anything): a probe passes from its initialDelaySeconds on — counted from the container's start,
 * as the kubelet waits that long before the first probe — unless its handler plainly fails: an exec probe whose
 * command is nothing but `false`, `/bin/false` or `exit N` with N ≠ 0 (containerCommandRun). HTTP, TCP and gRPC probes
 * pass: the simulated containers serve what their probes ask for. Liveness probes never fail.
 *
 * So a container is started once its startup probe passes (at once without one), and ready once started and its
 * readiness probe passes (at once without one): `kubectl get pods` shows 0/1 for the readiness probe's initial delay,
 * and a probe that plainly fails keeps the pod Running but never Ready, as on a cluster.
 */
import { type JsonObject, isPlainObject } from '../../apimachinery/object.js';
import { containerCommandRun } from './pod-run.js';

/** When a container running since `runningSince` (ms) is started and ready, ms; Infinity: never. */
export interface ContainerProbeTimes {
  startedAt: number;
  readyAt: number;
}

/** Whether a probe's handler plainly fails: an exec of nothing but a failing `false` or `exit N`. */
export function probePlainlyFails(probe: JsonObject): boolean {
  if (!isPlainObject(probe.exec)) return false;
  const run = containerCommandRun({ command: Array.isArray(probe.exec.command) ? probe.exec.command : [] });
  return run.exitCode !== undefined && run.exitCode !== 0;
}

const delayMs = (probe: JsonObject): number => Math.max(0, Number(probe.initialDelaySeconds ?? 0)) * 1000;

export function containerProbeTimes(container: JsonObject, runningSince: number): ContainerProbeTimes {
  const startup = isPlainObject(container.startupProbe) ? container.startupProbe : undefined;
  const readiness = isPlainObject(container.readinessProbe) ? container.readinessProbe : undefined;
  const startedAt = !startup ? runningSince : probePlainlyFails(startup) ? Infinity : runningSince + delayMs(startup);
  const readyAt = !readiness ? startedAt : probePlainlyFails(readiness) ? Infinity : Math.max(startedAt, runningSince + delayMs(readiness));
  return { startedAt, readyAt };
}

/** Whether any container of the pod has a probe that can hold it back (so the simple path can skip the rest). */
export function hasGatingProbes(containers: readonly JsonObject[]): boolean {
  return containers.some((c) => isPlainObject(c.startupProbe) || (isPlainObject(c.readinessProbe) && (delayMs(c.readinessProbe) > 0 || probePlainlyFails(c.readinessProbe))));
}
