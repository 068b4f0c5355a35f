/**
 * The controllers a real cluster's kube-controller-manager runs for the workload kinds beyond Deployments and
 * ReplicaSets, with the knobs the simulation adds for tests: StatefulSets, DaemonSets, Jobs (and the
 * ttl-after-finished controller), CronJobs, HorizontalPodAutoscalers, PodDisruptionBudget status, and the eviction of
 * pods from nodes with NoExecute taints they do not tolerate (for long).
 */
import type { ControllerInstaller } from '../controllers/runtime/context.js';
import { cronJobControllerInstaller } from './controllers/cronjob/controller.js';
import { daemonSetControllerInstaller } from './controllers/daemonset/controller.js';
import { disruptionControllerInstaller } from './controllers/disruption/controller.js';
import { hpaControllerInstaller } from './controllers/hpa/controller.js';
import { jobControllerInstaller } from './controllers/job/controller.js';
import { ttlAfterFinishedInstaller } from './controllers/job/ttl-after-finished.js';
import { statefulSetControllerInstaller } from './controllers/statefulset/controller.js';
import { taintEvictionControllerInstaller } from './controllers/taint-eviction/controller.js';

export interface WorkloadControllerOptions {
  /** How long the containers of Job-style pods (restartPolicy Never/OnFailure) run (default 2000 ms; per pod: the `sim.atrium.io/run-seconds` annotation). */
  jobDurationMs?: number;
  /** The first pod-failure backoff of Jobs, doubled per failure (default 10 s, as upstream). */
  jobBackoffMs?: number;
  /** Simulated seconds per real second for CronJob schedules (default 1; 60 makes `* * * * *` fire every second). */
  cronJobTimeScale?: number;
  /** How often HPAs are reconciled (default 15 s). */
  hpaSyncPeriodMs?: number;
  /** The HPA scale-down stabilization window when an HPA has no spec.behavior (default 5 minutes). */
  hpaDownscaleStabilizationMs?: number;
  /**
   * Which of these controllers run, as kube-controller-manager's --controllers: `*` all (the default), `name` enables
   * one, `-name` disables one; a list without `*` runs only the controllers it names (`-*` runs none).
   */
  controllers?: string[];
}

/** The controllers' names, as kube-controller-manager calls them. */
export const workloadControllerNames = ['statefulset', 'daemonset', 'job', 'ttl-after-finished', 'cronjob', 'horizontalpodautoscaling', 'disruption', 'taint-eviction-controller'] as const;

/** IsControllerEnabled: an explicit `name` or `-name` wins, then `*`. */
export function controllerEnabled(name: string, controllers: readonly string[] = ['*']): boolean {
  for (const c of controllers) {
    if (c === name) return true;
    if (c === `-${name}`) return false;
  }
  return controllers.includes('*');
}

/** Checks a --controllers list: every entry is `*`, `-*`, or a (possibly negated) known name. */
export function parseControllerList(text: string): string[] {
  const list = text.split(',').map((s) => s.trim()).filter(Boolean);
  for (const c of list) {
    const name = c.startsWith('-') ? c.slice(1) : c;
    if (name !== '*' && !(workloadControllerNames as readonly string[]).includes(name)) {
      throw new Error(`"${name}" is not in the list of known controllers (${workloadControllerNames.join(', ')})`);
    }
  }
  return list;
}

/** The installers, configured, of the enabled controllers. */
export function workloadControllerInstallers(opts: WorkloadControllerOptions): ControllerInstaller[] {
  const all: ControllerInstaller[] = [
    statefulSetControllerInstaller,
    daemonSetControllerInstaller,
    jobControllerInstaller({ podFailureBackoffMs: opts.jobBackoffMs }),
    ttlAfterFinishedInstaller,
    cronJobControllerInstaller({ timeScale: opts.cronJobTimeScale }),
    hpaControllerInstaller({ syncPeriodMs: opts.hpaSyncPeriodMs, downscaleStabilizationMs: opts.hpaDownscaleStabilizationMs }),
    disruptionControllerInstaller,
    taintEvictionControllerInstaller,
  ];
  return all.filter((i) => controllerEnabled(i.name, opts.controllers));
}
