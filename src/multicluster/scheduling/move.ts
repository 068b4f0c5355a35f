/**
 * `kubectl atrium move namespace <ns> --to <synctarget>`: moves everything of a namespace to one physical cluster by
 * setting the one attribute that says where it runs, the namespace's `workload.kcp.io/cluster` label (the scheduler
 * then assigns the namespace to that SyncTarget of its Placement's location workspace, and the splitter and the
 * placement controller move its workloads make before break), then follows the move like `kubectl rollout status`:
 * one line per change, until every Deployment of the namespace runs only there with all its replicas ready and
 * observed (done, exit 0), or the timeout passes (exit 1 with what was last seen).
 */
import type { KubeObject } from '../../apimachinery/object.js';
import type { RestClient } from '../../client/rest-client.js';
import { findCondition } from '../../apimachinery/conditions.js';
import { CLUSTER_LABEL, namespacesGVR } from '../api/types.js';
import type { Condition } from '../decisions/types.js';
import { deploymentsGVR, SPLIT_FROM_LABEL } from './types.js';

/** Sets the namespace's cluster label; returns the line kubectl-style commands print. */
export async function setNamespaceCluster(client: RestClient, cluster: string, namespace: string, to: string): Promise<string> {
  await client.patch(namespacesGVR, namespace, 'merge', { metadata: { labels: { [CLUSTER_LABEL]: to } } }, { cluster });
  return `namespace/${namespace} moving to ${to}`;
}

/** Where a namespace's move stands: one line per root Deployment, and whether it is done. */
export function moveProgress(deployments: readonly KubeObject[], to: string): { lines: string[]; done: boolean } {
  const roots = deployments.filter((d) => d.metadata?.labels?.[SPLIT_FROM_LABEL] === undefined && d.metadata?.labels?.[CLUSTER_LABEL] === undefined);
  const lines: string[] = [];
  let done = true;
  for (const root of roots.sort((a, b) => (a.metadata!.name! < b.metadata!.name! ? -1 : 1))) {
    const name = root.metadata!.name!;
    const want = (root.spec as { replicas?: number } | undefined)?.replicas ?? 1;
    const status = (root.status ?? {}) as { readyReplicas?: number; observedGeneration?: number; conditions?: Condition[] };
    const kids = deployments.filter((d) => d.metadata?.labels?.[SPLIT_FROM_LABEL] === (root.metadata?.labels?.[SPLIT_FROM_LABEL] ?? name) && d.metadata?.labels?.[CLUSTER_LABEL] !== undefined);
    const there = kids.find((k) => k.metadata!.labels![CLUSTER_LABEL] === to);
    const readyThere = Math.min((there?.status as { readyReplicas?: number } | undefined)?.readyReplicas ?? 0, (there?.spec as { replicas?: number } | undefined)?.replicas ?? 0);
    const elsewhere = kids.filter((k) => k.metadata!.labels![CLUSTER_LABEL] !== to);
    const left = elsewhere.map((k) => `${(k.spec as { replicas?: number } | undefined)?.replicas ?? 0} on "${k.metadata!.labels![CLUSTER_LABEL]}"`);
    const moving = findCondition(status.conditions, 'Moving');
    const finished = elsewhere.length === 0 && readyThere >= want && (status.readyReplicas ?? 0) >= want && status.observedGeneration === root.metadata?.generation && moving === undefined;
    if (!finished) done = false;
    lines.push(
      finished
        ? `deployment "${name}" moved: ${readyThere} of ${want} ready on "${to}"`
        : `Waiting for deployment "${name}" to move to "${to}": ${readyThere} of ${want} ready there, ${status.readyReplicas ?? 0} ready in all${left.length ? `, left: ${left.join(', ')}` : ''}${moving ? ` (${moving.message})` : ''}...`,
    );
  }
  return { lines, done };
}

/** Follows the move of `namespace` to `to` (see the file comment); resolves when done, rejects on timeout. */
export async function followMove(client: RestClient, cluster: string, namespace: string, to: string, out: (line: string) => void, timeoutMs: number, intervalMs = 500): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    const list = (await client.list(deploymentsGVR, { cluster, namespace })).items;
    const { lines, done } = moveProgress(list, to);
    const text = lines.join('\n');
    if (text !== last) for (const l of lines.filter((l, i) => l !== last.split('\n')[i])) out(l);
    last = text;
    if (done) {
      out(`namespace "${namespace}" moved to "${to}"`);
      return;
    }
    if (Date.now() >= deadline) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)}s waiting for namespace "${namespace}" to move to "${to}"; last seen:\n${text}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
