/**
 * Clusters: the workspace's SyncTargets, live — Ready and the syncer's heartbeat, cordoned/draining, capacity against
 * what the pods running there request (the pod mirrors labelled scheduling.atrium.io/cluster in this workspace),
 * every synced resource's negotiation state with the Incompatible reasons, and the Locations that select each.
 */
import { useEffect, useState } from 'preact/hooks';
import { age, type KubeObject } from '../api';
import type { Session } from '../route';
import { useWatchedObjects } from '../watch';
import { useDiscovery } from './resources';
import { Bar, ErrorBox } from './common';

export const CLUSTER_LABEL = 'scheduling.atrium.io/cluster';

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export const conditionOf = (o: KubeObject | undefined, type: string): Condition | undefined =>
  ((o?.status as { conditions?: Condition[] } | undefined)?.conditions ?? []).find((c) => c.type === type);

/** Quantity text → number (cores, bytes, count). */
export function quantity(q: string | undefined): number {
  if (!q) return 0;
  const m = /^([0-9.]+)([a-zA-Z]*)$/.exec(q.trim());
  if (!m) return 0;
  const n = Number(m[1]);
  const mult: Record<string, number> = { '': 1, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4 };
  return n * (mult[m[2]!] ?? 1);
}

const fmt = (n: number, unit: string) => (unit === 'bytes' ? `${(n / 1024 ** 3).toFixed(1)}Gi` : unit === 'cpu' ? `${Math.round(n * 1000)}m` : String(Math.round(n)));

/** Whether a Location's instanceSelector selects labels (matchLabels and matchExpressions). */
export function selects(selector: { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] } | undefined, labels: Record<string, string>): boolean {
  if (!selector) return false;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = e.key in labels;
    if (e.operator === 'In' && !(has && e.values?.includes(labels[e.key]!))) return false;
    if (e.operator === 'NotIn' && has && e.values?.includes(labels[e.key]!)) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

/** Re-renders every second (heartbeat ages). */
export function useTick(ms = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

export function Clusters({ session, ws }: { session: Session; ws: string }) {
  const { resources } = useDiscovery(session, ws);
  const targets = useWatchedObjects(session.api, `/clusters/${ws}/apis/workload.kcp.io/v1alpha1/synctargets`);
  const locations = useWatchedObjects(session.api, `/clusters/${ws}/apis/scheduling.kcp.io/v1alpha1/locations`);
  const servesPods = resources.some((r) => r.group === '' && r.resource === 'pods');
  const pods = useWatchedObjects(session.api, servesPods ? `/clusters/${ws}/api/v1/pods?labelSelector=${encodeURIComponent(CLUSTER_LABEL)}` : undefined);
  const now = useTick();
  const sorted = [...targets.items].sort((a, b) => (a.metadata!.name! < b.metadata!.name! ? -1 : 1));
  return (
    <section aria-labelledby="clusters-title">
      <h1 id="clusters-title">Clusters</h1>
      <p class="muted small">SyncTargets registered in {ws}.</p>
      {targets.error && <ErrorBox error={targets.error} what={`the SyncTargets of ${ws}`} />}
      {!targets.error && !targets.loading && sorted.length === 0 && <p class="muted">No SyncTargets in this workspace.</p>}
      <div class="cards">
        {sorted.map((t) => (
          <ClusterCard key={t.metadata!.uid} target={t} locations={locations.items} pods={pods.items.filter((p) => p.metadata?.labels?.[CLUSTER_LABEL] === t.metadata!.name)} now={now} />
        ))}
      </div>
    </section>
  );
}

function ClusterCard({ target, locations, pods, now }: { target: KubeObject; locations: KubeObject[]; pods: KubeObject[]; now: number }) {
  const name = target.metadata!.name!;
  const spec = (target.spec ?? {}) as { unschedulable?: boolean; evictAfter?: string };
  const status = (target.status ?? {}) as { lastSyncerHeartbeatTime?: string; allocatable?: Record<string, string>; capacity?: Record<string, string>; syncedResources?: { group?: string; resource: string; state?: string; message?: string; versions?: string[] }[] };
  const ready = conditionOf(target, 'Ready');
  const isReady = ready?.status === 'True';
  const draining = !!spec.evictAfter && Date.parse(spec.evictAfter) <= now;
  const alloc = status.allocatable ?? status.capacity ?? {};
  const requested = { cpu: 0, memory: 0, pods: 0 };
  for (const p of pods) {
    const phase = (p.status as { phase?: string } | undefined)?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') continue;
    requested.pods++;
    for (const c of ((p.spec as { containers?: { resources?: { requests?: Record<string, string> } }[] } | undefined)?.containers ?? [])) {
      requested.cpu += quantity(c.resources?.requests?.cpu);
      requested.memory += quantity(c.resources?.requests?.memory);
    }
  }
  const labels = target.metadata?.labels ?? {};
  const locs = locations.filter((l) => selects((l.spec as { instanceSelector?: Parameters<typeof selects>[0] } | undefined)?.instanceSelector, labels));
  return (
    <article class={`card${isReady ? '' : ' not-ready'}`} aria-labelledby={`ct-${name}`} data-testid={`cluster-${name}`}>
      <header>
        <h2 id={`ct-${name}`} class="mono">
          {name}
        </h2>
        <span class={`badge ${isReady ? 'ok' : 'bad'}`} data-testid="ready">
          {isReady ? 'Ready' : `Not Ready${ready?.reason ? `: ${ready.reason}` : ''}`}
        </span>
        {spec.unschedulable && !draining && <span class="badge warn">Cordoned</span>}
        {draining && <span class="badge warn">Draining</span>}
      </header>
      <p class="small">
        Heartbeat: <span data-testid="heartbeat">{status.lastSyncerHeartbeatTime ? `${age(status.lastSyncerHeartbeatTime, now)} ago` : 'never'}</span>
        {!isReady && ready?.message && <span class="muted"> — {ready.message}</span>}
      </p>
      <Bar label="CPU" used={requested.cpu} total={quantity(alloc.cpu)} text={`${fmt(requested.cpu, 'cpu')} / ${fmt(quantity(alloc.cpu), 'cpu')}`} />
      <Bar label="Memory" used={requested.memory} total={quantity(alloc.memory)} text={`${fmt(requested.memory, 'bytes')} / ${fmt(quantity(alloc.memory), 'bytes')}`} />
      <Bar label="Pods" used={requested.pods} total={quantity(alloc.pods)} text={`${requested.pods} / ${alloc.pods ?? '?'}`} />
      <p class="small">
        Locations: {locs.length ? locs.map((l) => <span class="badge" key={l.metadata!.name}>{l.metadata!.name}</span>) : <span class="muted">none</span>}
      </p>
      <details>
        <summary>
          Resources ({status.syncedResources?.length ?? 0}
          {(status.syncedResources ?? []).some((r) => r.state === 'Incompatible') ? ', some Incompatible' : ''})
        </summary>
        <table class="small" data-testid="synced-resources">
          <thead>
            <tr>
              <th>RESOURCE</th>
              <th>STATE</th>
              <th>REASON</th>
            </tr>
          </thead>
          <tbody>
            {(status.syncedResources ?? []).map((r) => (
              <tr key={`${r.resource}.${r.group}`} class={r.state === 'Incompatible' ? 'bad-row' : ''}>
                <td class="mono">{r.group ? `${r.resource}.${r.group}` : r.resource}</td>
                <td>{r.state ?? ''}</td>
                <td>{r.message ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </article>
  );
}
