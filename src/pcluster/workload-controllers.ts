/**
 * The controllers a real cluster's kube-controller-manager runs for the workload kinds beyond Deployments and
 * ReplicaSets, with the knobs the simulation adds for tests: StatefulSets, DaemonSets, Jobs (and the
 * ttl-after-finished controller), CronJobs, HorizontalPodAutoscalers and PodDisruptionBudget status.
 */
import type { ControllerInstaller } from '../controllers/runtime/context.js';
import { cronJobControllerInstaller } from './controllers/cronjob/controller.js';
import { daemonSetControllerInstaller } from './controllers/daemonset/controller.js';
import { disruptionControllerInstaller } from './controllers/disruption/controller.js';
import { hpaControllerInstaller } from './controllers/hpa/controller.js';
import { jobControllerInstaller } from './controllers/job/controller.js';
import { ttlAfterFinishedInstaller } from './controllers/job/ttl-after-finished.js';
import { statefulSetControllerInstaller } from './controllers/statefulset/controller.js';

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
}

/** The installers, configured. */
export function workloadControllerInstallers(opts: WorkloadControllerOptions): ControllerInstaller[] {
  return [
    statefulSetControllerInstaller,
    daemonSetControllerInstaller,
    jobControllerInstaller({ podFailureBackoffMs: opts.jobBackoffMs }),
    ttlAfterFinishedInstaller,
    cronJobControllerInstaller({ timeScale: opts.cronJobTimeScale }),
    hpaControllerInstaller({ syncPeriodMs: opts.hpaSyncPeriodMs, downscaleStabilizationMs: opts.hpaDownscaleStabilizationMs }),
    disruptionControllerInstaller,
  ];
}
