/**
 * `kubectl atrium move`: moves an application by setting the one attribute that says where it runs, then follows the
 * move like `kubectl rollout status` — one line per change, until every Deployment concerned runs only on the
 * destination's clusters with all its replicas ready and observed (done, exit 0), or the timeout passes (exit 1 with
 * what was last seen).
 *
 * - `move namespace <ns> --to <synctarget>`: the namespace's `workload.kcp.io/cluster` label (the scheduler assigns the
 *   namespace to that SyncTarget of its Placement's location workspace);
 * - `move namespace <ns> --to location/<location>`: the namespace's `scheduling.atrium.io/location` label (the
 *   scheduler chooses among that Location's SyncTargets, with the Placement's spread); the cluster label is removed;
 * - `move deployment/<name> -n <ns> --to <synctarget>|location/<location>`: the root Deployment's
 *   `scheduling.atrium.io/cluster` or `scheduling.atrium.io/location` label (decisions/workload-pin.ts: the splitter
 *   runs it on the namespace's clusters the pin names).
 * Either way the splitter and the placement controller move the replicas make before break.
 */
import type { KubeObject } from '../../apimachinery/object.js';
import type { RestClient } from '../../client/rest-client.js';
import { findCondition } from '../../apimachinery/conditions.js';
import { CLUSTER_LABEL, namespacesGVR, syncTargetsGVR } from '../api/types.js';
import type { Condition } from '../decisions/types.js';
import { formatPin, LOCATION_LABEL, locationSelects, WORKLOAD_CLUSTER_LABEL, type WorkloadPin } from '../decisions/workload-pin.js';
import { LOCATION_CLUSTER_ANNOTATION } from './location-workspace.js';
import { deploymentsGVR, locationsGVR, PLACEMENT_ANNOTATION, placementsGVR, SPLIT_FROM_LABEL } from './types.js';

/** `--to`: `location/<name>` names a Location, anything else a SyncTarget. */
export function parseDestination(to: string): WorkloadPin {
  const text = to.trim();
  if (text.startsWith('location/')) {
    const location = text.slice('location/'.length);
    if (!location || location.includes('/')) throw new Error(`invalid --to "${to}": expected <synctarget> or location/<location>`);
    return { location };
  }
  if (!text || text.includes('/')) throw new Error(`invalid --to "${to}": expected <synctarget> or location/<location>`);
  return { cluster: text };
}

/** What `kubectl atrium move` moves: `namespace <ns>`, `namespace/<ns>`, `deployment/<name>`, `deploy <name>`, ... */
export type MoveSubject = { kind: 'namespace'; name: string } | { kind: 'deployment'; name: string };

export function parseSubject(what: string, name: string | undefined): MoveSubject {
  const slash = what.indexOf('/');
  const [kind, n] = slash >= 0 ? [what.slice(0, slash), what.slice(slash + 1)] : [what, name];
  if (slash >= 0 && name !== undefined) throw new Error(`there is no need to specify a resource type as a separate argument when passing arguments in resource/name form`);
  if (!n) throw new Error(`a name is required: kubectl atrium move namespace <namespace> | deployment/<name> --to <synctarget>|location/<location>`);
  const k = kind!.toLowerCase();
  if (['namespace', 'namespaces', 'ns'].includes(k)) return { kind: 'namespace', name: n };
  if (['deployment', 'deployments', 'deploy', 'deployment.apps', 'deployments.apps'].includes(k)) return { kind: 'deployment', name: n };
  throw new Error(`cannot move "${kind}": kubectl atrium move moves a namespace or a Deployment`);
}

/** Sets the namespace's attribute; returns the line kubectl-style commands print. */
export async function setNamespaceDestination(client: RestClient, cluster: string, namespace: string, to: WorkloadPin): Promise<string> {
  const labels = 'cluster' in to ? { [CLUSTER_LABEL]: to.cluster, [LOCATION_LABEL]: null } : { [LOCATION_LABEL]: to.location, [CLUSTER_LABEL]: null };
  await client.patch(namespacesGVR, namespace, 'merge', { metadata: { labels } }, { cluster });
  return `namespace/${namespace} moving to ${formatPin(to)}`;
}

/** Sets the namespace's cluster label (kept for callers of the earlier API). */
export function setNamespaceCluster(client: RestClient, cluster: string, namespace: string, to: string): Promise<string> {
  return setNamespaceDestination(client, cluster, namespace, { cluster: to });
}

/**
 * Sets a root Deployment's pin. A Deployment pinned whole by its own `workload.kcp.io/cluster` label (not split) is
 * refused: that label syncs it to one cluster as it is, and changing it would delete it there before it runs
 * elsewhere.
 */
export async function setDeploymentDestination(client: RestClient, cluster: string, namespace: string, name: string, to: WorkloadPin): Promise<string> {
  const d = await client.get(deploymentsGVR, name, { cluster, namespace });
  const labels = d.metadata?.labels ?? {};
  if (labels[SPLIT_FROM_LABEL] !== undefined) throw new Error(`deployment "${name}" is the share of deployment "${labels[SPLIT_FROM_LABEL]}" on one cluster; move that one`);
  if (labels[CLUSTER_LABEL] !== undefined) {
    throw new Error(`deployment "${name}" is synced whole to "${labels[CLUSTER_LABEL]}" by its ${CLUSTER_LABEL} label, which moves it without make before break; remove that label (its namespace's clusters then run it) and move it again`);
  }
  const patch = 'cluster' in to ? { [WORKLOAD_CLUSTER_LABEL]: to.cluster, [LOCATION_LABEL]: null } : { [LOCATION_LABEL]: to.location, [WORKLOAD_CLUSTER_LABEL]: null };
  await client.patch(deploymentsGVR, name, 'merge', { metadata: { labels: patch } }, { cluster, namespace });
  return `deployment.apps/${name} moving to ${formatPin(to)}`;
}

/**
 * The SyncTarget names a destination stands for: the SyncTarget itself, or those the Location selects in the
 * namespace's location workspace (its Placement's). Undefined when they cannot be read.
 */
export async function destinationTargets(client: RestClient, cluster: string, namespace: string, to: WorkloadPin): Promise<Set<string> | undefined> {
  if ('cluster' in to) return new Set([to.cluster]);
  const ns = await client.get(namespacesGVR, namespace, { cluster });
  const placementName = ns.metadata?.annotations?.[PLACEMENT_ANNOTATION];
  let where = cluster;
  if (placementName) {
    const placement = await client.get(placementsGVR, placementName, { cluster }).catch(() => undefined);
    const other = placement?.metadata?.annotations?.[LOCATION_CLUSTER_ANNOTATION];
    if (other) where = other;
  }
  const location = await client.get(locationsGVR, to.location, { cluster: where }).catch(() => undefined);
  if (!location) return undefined;
  const selector = (location.spec as { instanceSelector?: never } | undefined)?.instanceSelector;
  const targets = await client.list(syncTargetsGVR, { cluster: where });
  return new Set(targets.items.filter((t) => locationSelects(selector, t.metadata?.labels ?? {})).map((t) => t.metadata!.name!));
}

/**
 * Where the move of `roots` (root Deployments; the others of `deployments` are their children) stands: one line per
 * root, and whether it is done — every child on a destination cluster (`there`), all replicas ready there and in the
 * root's status, its generation observed, no Moving condition left.
 */
export function moveProgress(deployments: readonly KubeObject[], dest: string, there: ReadonlySet<string>, only?: string): { lines: string[]; done: boolean } {
  const roots = deployments.filter((d) => d.metadata?.labels?.[SPLIT_FROM_LABEL] === undefined && d.metadata?.labels?.[CLUSTER_LABEL] === undefined && (only === undefined || d.metadata?.name === only));
  const lines: string[] = [];
  let done = true;
  for (const root of roots.sort((a, b) => (a.metadata!.name! < b.metadata!.name! ? -1 : 1))) {
    const name = root.metadata!.name!;
    const want = (root.spec as { replicas?: number } | undefined)?.replicas ?? 1;
    const status = (root.status ?? {}) as { readyReplicas?: number; observedGeneration?: number; conditions?: Condition[] };
    const kids = deployments.filter((d) => d.metadata?.labels?.[SPLIT_FROM_LABEL] === (root.metadata?.labels?.[SPLIT_FROM_LABEL] ?? name) && d.metadata?.labels?.[CLUSTER_LABEL] !== undefined);
    const inside = kids.filter((k) => there.has(k.metadata!.labels![CLUSTER_LABEL]!));
    const readyThere = inside.reduce((n, k) => n + Math.min((k.status as { readyReplicas?: number } | undefined)?.readyReplicas ?? 0, (k.spec as { replicas?: number } | undefined)?.replicas ?? 0), 0);
    const elsewhere = kids.filter((k) => !there.has(k.metadata!.labels![CLUSTER_LABEL]!));
    const left = elsewhere.map((k) => `${(k.spec as { replicas?: number } | undefined)?.replicas ?? 0} on "${k.metadata!.labels![CLUSTER_LABEL]}"`);
    const moving = findCondition(status.conditions, 'Moving');
    const pinned = findCondition(status.conditions, 'Pinned');
    const finished = elsewhere.length === 0 && readyThere >= want && (status.readyReplicas ?? 0) >= want && status.observedGeneration === root.metadata?.generation && moving === undefined;
    if (!finished) done = false;
    lines.push(
      finished
        ? `deployment "${name}" moved: ${readyThere} of ${want} ready on ${dest}`
        : `Waiting for deployment "${name}" to move to ${dest}: ${readyThere} of ${want} ready there, ${status.readyReplicas ?? 0} ready in all${left.length ? `, left: ${left.join(', ')}` : ''}${moving ? ` (${moving.message})` : ''}${pinned?.status === 'False' ? ` (${pinned.message})` : ''}...`,
    );
  }
  return { lines, done };
}

/**
 * Follows the move of `subject` to `to` (see the file comment); resolves when done, rejects on timeout. A destination
 * Location's clusters are read again on every round (its selector or the SyncTargets may change meanwhile).
 */
export async function followMove(
  client: RestClient,
  cluster: string,
  subject: MoveSubject & { namespace: string },
  to: WorkloadPin,
  out: (line: string) => void,
  timeoutMs: number,
  intervalMs = 500,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const dest = 'cluster' in to ? `"${to.cluster}"` : `location "${to.location}"`;
  const what = subject.kind === 'namespace' ? `namespace "${subject.name}"` : `deployment "${subject.name}"`;
  let last = '';
  for (;;) {
    const there = (await destinationTargets(client, cluster, subject.namespace, to)) ?? new Set<string>();
    const list = (await client.list(deploymentsGVR, { cluster, namespace: subject.namespace })).items;
    const { lines, done } = moveProgress(list, dest, there, subject.kind === 'deployment' ? subject.name : undefined);
    const text = lines.join('\n');
    if (text !== last) for (const l of lines.filter((l, i) => l !== last.split('\n')[i])) out(l);
    last = text;
    if (done && subject.kind === 'namespace') {
      out(`${what} moved to ${dest}`);
      return;
    }
    if (done) return;
    if (Date.now() >= deadline) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)}s waiting for ${what} to move to ${dest}; last seen:\n${text}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
