/**
 * Placement: the workspace's Deployments against its clusters, live. A row per Deployment (the root the user
 * created), a column per cluster; each cell is the child `<name>--<cluster>` the splitter made (label
 * scheduling.atrium.io/split-from): a dot per replica, green when ready, amber while progressing, red when failed (the
 * child's rollout failed, or its cluster is not Ready); arrows show replicas moving in or out.
 */
import type { KubeObject } from '../api';
import type { Session } from '../route';
import { useWatchedObjects } from '../watch';
import { useDiscovery } from './resources';
import { conditionOf, useTick } from './clusters';
import { ErrorBox } from './common';

const SPLIT_FROM = 'scheduling.atrium.io/split-from';
const CLUSTER = 'workload.kcp.io/cluster';

interface DeploymentStatus {
  replicas?: number;
  readyReplicas?: number;
  updatedReplicas?: number;
  availableReplicas?: number;
}

export function Placement({ session, ws }: { session: Session; ws: string }) {
  const { resources } = useDiscovery(session, ws);
  const servesDeployments = resources.some((r) => r.group === 'apps' && r.resource === 'deployments');
  const deployments = useWatchedObjects(session.api, servesDeployments ? `/clusters/${ws}/apis/apps/v1/deployments` : undefined);
  const targets = useWatchedObjects(session.api, `/clusters/${ws}/apis/workload.kcp.io/v1alpha1/synctargets`);
  useTick(2000);
  const key = (o: KubeObject) => `${o.metadata?.namespace}/${o.metadata?.name}`;
  const roots = deployments.items.filter((d) => !d.metadata?.labels?.[SPLIT_FROM]).sort((a, b) => (key(a) < key(b) ? -1 : 1));
  const children = deployments.items.filter((d) => d.metadata?.labels?.[SPLIT_FROM]);
  const clusterNames = [...new Set([...targets.items.map((t) => t.metadata!.name!), ...children.map((c) => c.metadata!.labels![CLUSTER]!).filter(Boolean)])].sort();
  const targetOf = (name: string) => targets.items.find((t) => t.metadata?.name === name);
  return (
    <section aria-labelledby="placement-title">
      <h1 id="placement-title">Placement</h1>
      <p class="muted small">
        Replicas of each Deployment per cluster: <span class="dot ready" /> ready <span class="dot progressing" /> progressing <span class="dot failed" /> failed; ⇢ moving in, ⇠ moving out.
      </p>
      {!servesDeployments && resources.length > 0 && <p class="muted">This workspace has no compute (no SyncTarget or Placement), so it runs no Deployments.</p>}
      {deployments.error && <ErrorBox error={deployments.error} what="the Deployments" />}
      {servesDeployments && roots.length === 0 && !deployments.loading && <p class="muted">No Deployments.</p>}
      {roots.length > 0 && (
        <div class="grid-scroll">
          <table class="placement" data-testid="placement">
            <thead>
              <tr>
                <th scope="col">Deployment</th>
                {clusterNames.map((c) => {
                  const t = targetOf(c);
                  const ready = conditionOf(t, 'Ready')?.status === 'True';
                  return (
                    <th scope="col" key={c} class={t && !ready ? 'cluster-down' : ''} data-testid={`col-${c}`}>
                      <span class="mono">{c}</span>
                      {t && !ready && <span class="badge bad">Not Ready</span>}
                      {(t?.spec as { unschedulable?: boolean } | undefined)?.unschedulable && <span class="badge warn">Cordoned</span>}
                    </th>
                  );
                })}
              </tr>
            </thead>
            <tbody>
              {roots.map((d) => {
                const spec = (d.spec ?? {}) as { replicas?: number };
                const st = (d.status ?? {}) as DeploymentStatus;
                const pinned = d.metadata?.labels?.[CLUSTER];
                return (
                  <tr key={key(d)}>
                    <th scope="row">
                      <span class="mono">{key(d)}</span>
                      <span class="small muted" data-testid={`total-${key(d)}`}>
                        {' '}
                        {st.readyReplicas ?? 0}/{spec.replicas ?? 1}
                      </span>
                    </th>
                    {clusterNames.map((c) => {
                      const child = pinned ? (pinned === c ? d : undefined) : children.find((x) => x.metadata?.namespace === d.metadata?.namespace && x.metadata?.labels?.[SPLIT_FROM] === d.metadata?.name && x.metadata?.labels?.[CLUSTER] === c);
                      const t = targetOf(c);
                      return (
                        <td key={c} data-testid={`cell-${key(d)}@${c}`}>
                          {child && <Cell child={child} clusterReady={!t || conditionOf(t, 'Ready')?.status === 'True'} />}
                        </td>
                      );
                    })}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function Cell({ child, clusterReady }: { child: KubeObject; clusterReady: boolean }) {
  const want = ((child.spec ?? {}) as { replicas?: number }).replicas ?? 1;
  const st = (child.status ?? {}) as DeploymentStatus;
  const ready = st.readyReplicas ?? 0;
  const have = st.replicas ?? 0;
  const deleting = !!child.metadata?.deletionTimestamp;
  const progressing = conditionOf(child, 'Progressing');
  const failed = !clusterReady || progressing?.reason === 'ProgressDeadlineExceeded' || conditionOf(child, 'ReplicaFailure')?.status === 'True';
  const state = failed ? 'failed' : ready >= want && have <= want && !deleting ? 'ready' : 'progressing';
  const dots = Math.max(want, have);
  const movingIn = !deleting && want > ready;
  const movingOut = deleting || have > want;
  return (
    <div class={`cell ${state}`} data-state={state} data-replicas={deleting ? 0 : want} data-ready={ready} title={`${child.metadata?.name}: ${ready} ready of ${want} wanted (${have} running)${failed && !clusterReady ? '; the cluster is not Ready' : ''}`}>
      <span class="num">
        {deleting ? 0 : want}
        {movingIn && <span aria-label="moving in"> ⇢</span>}
        {movingOut && <span aria-label="moving out"> ⇠</span>}
      </span>
      <span class="dots" aria-hidden="true">
        {Array.from({ length: Math.min(dots, 40) }, (_, i) => (
          <span key={i} class={`dot ${failed ? 'failed' : i < ready ? 'ready' : 'progressing'}${i >= want ? ' leaving' : ''}`} />
        ))}
      </span>
      <span class="sr-only">{state}, {ready} of {want} ready</span>
    </div>
  );
}
