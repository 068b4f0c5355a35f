/**
 * kubectl plugin commands for scheduling, added to `kubectl atrium`:
 *   kubectl atrium bind compute <location-workspace> [--spread All|One|<n>]   (then waits until the workspace serves
 *     the workload types, one progress line on stderr)
 *   kubectl atrium workload cordon|uncordon|drain <synctarget>
 *   kubectl atrium move namespace <namespace> | deployment/<name> [-n ns] --to <synctarget>|location/<location>
 *     [--timeout 5m]   (sets the one attribute that says where it runs — move.ts —, then prints the move's progress
 *     until it is done, like `kubectl rollout status`)
 * The workspace acted on is the one the kubeconfig's server URL points into (`/clusters/<name or path>`), else root. Errors
 * print `Error: <message>` and exit 1.
 */
import type { Command } from 'commander';
import { RestClient } from '../../client/rest-client.js';
import type { ClusterSpread } from '../decisions/types.js';

import { clusterFromServerURL, readKubeconfig } from '../../client/kubeconfig/kubeconfig.js';
import { bindCompute } from './bind-compute.js';
import { cordonSyncTarget, type CordonAction } from './cordon.js';
import { followMove, parseDestination, parseSubject, setDeploymentDestination, setNamespaceDestination, type MoveSubject } from './move.js';
import type { WorkloadPin } from '../decisions/workload-pin.js';
import { isClusterName, splitPath } from '../../tenancy/paths.js';
import { waitForWorkloadTypes } from '../cli/wait-for-workload-types.js';

/** `All`, `One` or a positive count → a clusterSpread; anything else throws. */
export function parseSpread(text: string): ClusterSpread {
  if (text === 'All' || text === 'One') return { mode: text };
  if (/^[1-9][0-9]*$/.test(text)) return { mode: 'Count', count: Number(text) };
  throw new Error(`--spread must be All, One or a positive number of clusters, got "${text}"`);
}

/**
 * The logical cluster name of a workspace the kubeconfig names by path (`root:team`, as `kubectl ws use` writes it):
 * spec.cluster of the Workspace in its parent. A single segment (or a system: name) is already a cluster name. The
 * client names clusters in request scopes by name only (it escapes the `:` of a path).
 */
export async function clusterNameOf(client: RestClient, workspace: string): Promise<string> {
  if (isClusterName(workspace)) return workspace;
  const { parent, base } = splitPath(workspace);
  const ws = (await client.call('GET', `/clusters/${parent}/apis/tenancy.kcp.io/v1alpha1/workspaces/${base}`)) as { spec?: { cluster?: string } };
  if (!ws.spec?.cluster) throw new Error(`workspace "${workspace}" is not scheduled yet`);
  return ws.spec.cluster;
}

/**
 * Runs `fn` against the workspace the kubeconfig points into and prints its line; then `after` (e.g. waiting for the
 * result to take effect, with progress on stderr).
 */
async function withClient(
  kubeconfig: string | undefined,
  fn: (client: RestClient, cluster: string, workspace: string, contextNamespace: string | undefined) => Promise<string>,
  after?: (client: RestClient, cluster: string) => Promise<void>,
): Promise<void> {
  const path = kubeconfig ?? process.env.KUBECONFIG?.split(':')[0] ?? `${process.env.HOME}/.kube/config`;
  const kc = await readKubeconfig(path);
  const workspace = clusterFromServerURL(new URL(kc.currentServer()).href) ?? 'root';
  const client = await RestClient.fromKubeconfig(path, { userAgent: 'kubectl-atrium/v0.0.0' });
  try {
    const cluster = await clusterNameOf(client, workspace);
    process.stdout.write((await fn(client, cluster, workspace, kc.currentContext().namespace)) + '\n');
    await after?.(client, cluster);
  } finally {
    client.close();
  }
}

/** `90s`, `5m`, `1h`, `500ms` or plain seconds → milliseconds. */
export function parseDuration(text: string): number {
  const m = /^([0-9]+)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) throw new Error(`invalid duration "${text}" (e.g. 90s, 5m)`);
  const n = Number(m[1]);
  return n * ({ ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h']);
}

function fail(err: unknown): never {
  process.stderr.write(`Error: ${(err as Error).message}\n`);
  process.exit(1);
}

/** Adds `bind compute` to `program` and `cordon`, `uncordon`, `drain` to its `workload` command. */
export function addSchedulingCommands(program: Command, workload: Command): void {
  const bind = program.command('bind').description('bind APIs to the current workspace');
  bind
    .command('compute <location-workspace>')
    .description('run the workspace\'s workloads on the SyncTargets of <location-workspace> (creates the default Placement)')
    .option('--kubeconfig <file>', 'kubeconfig for atrium')
    .option('--spread <n>', 'how many SyncTargets a namespace spreads over: All, One or a number', 'All')
    .action((locationWorkspace: string, flags: { kubeconfig?: string; spread: string }) =>
      withClient(
        flags.kubeconfig,
        (client, cluster) => bindCompute(client, { cluster, locationWorkspace, spread: parseSpread(flags.spread) }),
        // The workspace serves Deployments, Pods, ... once it has a Placement: a script may apply one right after.
        (client, cluster) => waitForWorkloadTypes(client, cluster, { progress: (t) => process.stderr.write(t) }),
      ).catch(fail),
    );
  program
    .command('move <object> [name]')
    .description('move an application to other physical clusters, make before break: a namespace (namespace <ns>) or one Deployment (deployment/<name>)')
    .requiredOption('--to <destination>', 'where to: a SyncTarget name, or location/<location> for the SyncTargets a Location selects')
    .option('-n, --namespace <namespace>', "the Deployment's namespace (default: the context's, else default)")
    .option('--kubeconfig <file>', 'kubeconfig for atrium')
    .option('--timeout <duration>', 'how long to follow the move (e.g. 90s, 5m; 0 returns at once)', '5m')
    .action((object: string, name: string | undefined, flags: { to: string; namespace?: string; kubeconfig?: string; timeout: string }) => {
      let subject: MoveSubject;
      let to: WorkloadPin;
      let ms: number;
      try {
        subject = parseSubject(object, name);
        to = parseDestination(flags.to);
        ms = parseDuration(flags.timeout);
      } catch (err) {
        return fail(err);
      }
      let namespace = subject.name;
      return withClient(
        flags.kubeconfig,
        async (client, cluster, _workspace, contextNamespace) => {
          if (subject.kind === 'namespace') return setNamespaceDestination(client, cluster, subject.name, to);
          namespace = flags.namespace ?? contextNamespace ?? 'default';
          return setDeploymentDestination(client, cluster, namespace, subject.name, to);
        },
        async (client, cluster) => {
          if (ms > 0) await followMove(client, cluster, { ...subject, namespace }, to, (l) => process.stdout.write(l + '\n'), ms);
        },
      ).catch(fail);
    });
  const verbs: [CordonAction, string][] = [
    ['cordon', 'mark a SyncTarget unschedulable: no new work lands there, work already there stays'],
    ['uncordon', 'make a cordoned or drained SyncTarget schedulable again'],
    ['drain', 'cordon a SyncTarget and move its work to other SyncTargets'],
  ];
  for (const [action, description] of verbs) {
    workload
      .command(`${action} <synctarget>`)
      .description(description)
      .option('--kubeconfig <file>', 'kubeconfig for atrium')
      .action((name: string, flags: { kubeconfig?: string }) => withClient(flags.kubeconfig, (client, cluster) => cordonSyncTarget(client, cluster, name, action)).catch(fail));
  }
}
