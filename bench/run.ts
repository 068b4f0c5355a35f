/**
 * `npm run bench`: runs every benchmark of the project and prints each figure beside the reference measured in the same
 * run, and their ratio. Exits non-zero when a figure misses its target. Suite names given as arguments select suites.
 */
import { runAdmissionPolicyBenchmarks } from './admission-policy.js';
import { runAppliesBenchmarks } from './applies.js';
import { runAdmissionWebhookBenchmarks } from './admission-webhooks.js';
import { runAPIExportVWBenchmarks } from './apiexport-vw.js';
import { runAPIExportWatchBenchmarks } from './apiexport-watch.js';
import { runCoreApiBenchmarks } from './core-api.js';
import { runDebugStreamBenchmarks } from './debug-streams.js';
import { runEtcdBenchmarks } from './etcd.js';
import { runCrdBenchmarks } from './crd-api.js';
import { runGcBenchmarks } from './gc.js';
import { runKubeBenchmarks } from './kube.js';
import { type Figure, printFigure } from './lib.js';
import { runMulticlusterBenchmarks } from './multicluster.js';
import { runMoveBenchmarks } from './moves.js';
import { runSchedulingBenchmarks } from './scheduling.js';
import { runSsaBenchmarks } from './ssa.js';
import { runSyncerBenchmarks } from './syncer.js';
import { runWorkspaceBenchmarks } from './workspaces.js';
import { runWorkloadBenchmarks } from './workloads.js';

const suites: [string, () => Promise<Figure[]>][] = [['core-api', runCoreApiBenchmarks], ['crd', runCrdBenchmarks], ['etcd', runEtcdBenchmarks], ['ssa', runSsaBenchmarks], ['gc', runGcBenchmarks], ['workspaces', runWorkspaceBenchmarks], ['multicluster', runMulticlusterBenchmarks], ['scheduling', runSchedulingBenchmarks], ['moves', runMoveBenchmarks], ['syncer', runSyncerBenchmarks], ['workloads', runWorkloadBenchmarks], ['applies', runAppliesBenchmarks], ['debug-streams', runDebugStreamBenchmarks], ['admission-policy', runAdmissionPolicyBenchmarks], ['admission-webhooks', runAdmissionWebhookBenchmarks], ['kube', runKubeBenchmarks], ['apiexport-vw', runAPIExportVWBenchmarks], ['apiexport-watch', runAPIExportWatchBenchmarks]];
// `npm run bench -- core-api crd` runs only the named suites.
const only = process.argv.slice(2);
let failed = false;
for (const [name, run] of suites) {
  if (only.length && !only.includes(name)) continue;
  console.log(`# ${name}`);
  for (const f of await run()) {
    printFigure(f);
    if (f.pass === false) failed = true;
  }
}
process.exit(failed ? 1 : 0);
