/** The `atrium pcluster` command: its flags; starting, serving and stopping are runCommand's (src/cli/run-command.ts). */
import { resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { flagParser, parsePort } from './flags.js';
import { exitWithError, runCommand } from './run-command.js';
import { parseFlagDuration } from '../apimachinery/go-duration.js';
import { defaultMissingImages, defaultNodeCapacity, defaultStorageCapacity, parseMissingImages, parseNodeCapacity, parseStorageCapacity } from '../pcluster/options.js';
import { parsePool } from '../pcluster/controllers/loadbalancer/ip-pool.js';
import { startPcluster } from '../pcluster/pcluster.js';
import { parseControllerList, workloadControllerNames } from '../pcluster/workload-controllers.js';
import { deploymentSchemaVariants, type DeploymentSchemaVariant } from '../pcluster/schema-variants.js';

interface PclusterFlags {
  name: string;
  rootDir?: string;
  bindAddress: string;
  securePort: number;
  nodes: number;
  nodeCapacity: Record<string, string>;
  readyDelay: number;
  deploymentSchema?: DeploymentSchemaVariant;
  storageCapacity: string;
  loadBalancerCidr?: string;
  jobDuration: number;
  jobBackoff: number;
  cronjobTimeScale: number;
  horizontalPodAutoscalerSyncPeriod: number;
  horizontalPodAutoscalerDownscaleStabilization: number;
  controllers: string[];
  containerLogInterval: number;
  missingImages?: RegExp;
  disableAdmissionPlugins: string[];
}

/** The admission plugins the simulated cluster runs of its own (pcluster.ts), which --disable-admission-plugins names. */
const pclusterAdmissionPlugins = ['ServiceAccount', 'DefaultStorageClass', 'DefaultIngressClass', 'StorageObjectInUseProtection'];

function parseTimeScale(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 1 || n > 86_400) throw new InvalidArgumentError('must be a number from 1 (real time) to 86400 (a simulated day per second)');
  return n;
}

function parseNodeCount(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 1000) throw new InvalidArgumentError('must be a whole number of nodes between 0 and 1000');
  return n;
}

async function run(flags: PclusterFlags): Promise<void> {
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(flags.name) || flags.name.length > 50) {
    exitWithError(`--name "${flags.name}" must be a DNS label of at most 50 characters (lower-case letters, digits and '-')`);
  }
  const rootDir = resolve(flags.rootDir ?? `.atrium-pcluster-${flags.name}`);
  await runCommand({
    start: () =>
      startPcluster({
        name: flags.name,
        rootDir,
        bindAddress: flags.bindAddress,
        securePort: flags.securePort,
        nodes: flags.nodes,
        nodeCapacity: flags.nodeCapacity,
        readyDelayMs: flags.readyDelay,
        deploymentSchema: flags.deploymentSchema,
        storageCapacity: flags.storageCapacity,
        loadBalancerCIDR: flags.loadBalancerCidr,
        jobDurationMs: flags.jobDuration,
        jobBackoffMs: flags.jobBackoff,
        cronJobTimeScale: flags.cronjobTimeScale,
        hpaSyncPeriodMs: flags.horizontalPodAutoscalerSyncPeriod,
        hpaDownscaleStabilizationMs: flags.horizontalPodAutoscalerDownscaleStabilization,
        controllers: flags.controllers,
        containerLogIntervalMs: flags.containerLogInterval,
        missingImages: flags.missingImages,
        disableAdmissionPlugins: flags.disableAdmissionPlugins,
      }),
    ready: (cluster) => `pcluster ${flags.name} is serving at ${cluster.url} with ${cluster.nodeNames.length} node(s); point kubectl at it with: export KUBECONFIG=${cluster.kubeconfigPath}`,
    failure: `pcluster ${flags.name} failed to start`,
    listen: { bindAddress: flags.bindAddress, port: flags.securePort },
  });
}

/** Adds `pcluster` to the atrium program. */
export function addPclusterCommand(program: Command): void {
  program
    .command('pcluster')
    .description('start a simulated physical cluster: workload APIs, controllers, a scheduler, simulated nodes, volumes and load balancers')
    .requiredOption('--name <name>', 'cluster name (nodes are <name>-node-<i>)')
    .option('--root-dir <dir>', 'directory for the database, certificates and admin.kubeconfig (default .atrium-pcluster-<name>)')
    .option('--bind-address <addr>', 'address to listen on', '127.0.0.1')
    .option('--secure-port <port>', 'HTTPS port (0 picks a free port)', parsePort, 0)
    .option('--nodes <n>', 'number of simulated nodes', parseNodeCount, 1)
    .option('--node-capacity <list>', `capacity of every node as name=quantity pairs`, flagParser(parseNodeCapacity), parseNodeCapacity(defaultNodeCapacity))
    .option('--ready-delay <duration>', 'how long a scheduled pod takes to become Running and Ready', flagParser(parseFlagDuration), 1000)
    .option('--storage-capacity <quantity>', 'storage the simulated provisioner may hand out to PersistentVolumeClaims in all; beyond it claims stay Pending', flagParser((v) => (parseStorageCapacity(v), v.trim())), defaultStorageCapacity)
    .option('--load-balancer-cidr <cidr>', 'IPv4 pool for LoadBalancer Services\' and Ingresses\' addresses (status only; the first is the ingress controller\'s) (default 172.18.<n>.0/24, n derived from --name)', flagParser((v) => parsePool(v).cidr))
    .addOption(new Option('--job-duration <duration>', 'how long the containers of Job-style pods (restartPolicy Never/OnFailure) run').argParser(flagParser(parseFlagDuration)).default(2000, '2s'))
    .addOption(new Option('--job-backoff <duration>', 'the first backoff after a Job pod fails, doubled per further failure up to 6m').argParser(flagParser(parseFlagDuration)).default(10_000, '10s'))
    .addOption(new Option('--cronjob-time-scale <n>', 'simulated seconds per real second for CronJob schedules (60: `* * * * *` fires every second)').argParser(parseTimeScale).default(1))
    .addOption(new Option('--horizontal-pod-autoscaler-sync-period <duration>', 'how often HPAs are reconciled').argParser(flagParser(parseFlagDuration)).default(15_000, '15s'))
    .addOption(
      new Option('--horizontal-pod-autoscaler-downscale-stabilization <duration>', 'how long an HPA without spec.behavior keeps the highest recent recommendation before scaling down')
        .argParser(flagParser(parseFlagDuration))
        .default(300_000, '5m'),
    )
    .option('--deployment-schema <variant>', `publish a deliberately different Deployment schema, for type-negotiation tests (${deploymentSchemaVariants.join(', ')})`, flagParser((v) => {
      if (!(deploymentSchemaVariants as readonly string[]).includes(v)) throw new Error(`must be one of ${deploymentSchemaVariants.join(', ')}`);
      return v as DeploymentSchemaVariant;
    }))
    .addOption(
      new Option('--missing-images <regexp>', 'images the simulated registry does not have: pods using them wait in ImagePullBackOff ("" for none)')
        .argParser(flagParser(parseMissingImages))
        .default(parseMissingImages(defaultMissingImages), defaultMissingImages),
    )
    .addOption(
      new Option('--disable-admission-plugins <list>', `admission plugins to leave off, comma-separated, as kube-apiserver's flag (${pclusterAdmissionPlugins.join(', ')})`)
        .argParser(flagParser((v) => {
          const names = v.split(',').map((n) => n.trim()).filter(Boolean);
          const unknown = names.filter((n) => !pclusterAdmissionPlugins.includes(n));
          if (unknown.length) throw new Error(`unknown admission plugin(s) ${unknown.join(', ')}: one of ${pclusterAdmissionPlugins.join(', ')}`);
          return names;
        }))
        .default([], 'none'),
    )
    .addOption(new Option('--container-log-interval <duration>', 'how often each running simulated container writes its heartbeat and probe lines to its log').argParser(flagParser(parseFlagDuration)).default(5000, '5s'))
    .addOption(
      new Option('--controllers <list>', `the workload controllers to run (${workloadControllerNames.join(', ')}): * is all, -name disables one, a list without * runs only those named (-* none)`)
        .argParser(flagParser(parseControllerList))
        .default(['*'], '*'),
    )
    .addHelpText(
      'after',
      `
Simulation knobs, set as annotations on a pod or a pod template:
  sim.atrium.io/run-seconds: "5"          how long a Job-style pod's containers run (default --job-duration)
  sim.atrium.io/exit-code: "1"            their exit code: non-zero fails the pod (Never) or restarts the container (OnFailure)
  sim.atrium.io/cpu-utilization: "150"    CPU usage in percent of the request, as the HPA sees it (default 10)
  sim.atrium.io/memory-utilization: "80"  memory usage likewise (default 30), also what \`kubectl top\` shows

Debugging (docs/pcluster.md, "Debugging pods"): kubectl logs, exec, attach, cp, port-forward and top work against the
cluster. exec runs the command as a LOCAL process of the pcluster (a simulation, not a container), in a per-container
working directory under the root dir, so it is served only while the pcluster listens on a loopback address.`,
    )
    .action(run);
}
