/**
 * The `kubectl get deployments` table the demo prints: NAME, READY (ready/desired), UP-TO-DATE, AVAILABLE and AGE,
 * columns left-aligned and separated by three spaces as kubectl prints them.
 */
import type { KubeObject } from '../apimachinery/object.js';

/** kubectl's short age: `45s`, `3m12s` (under 10 minutes), `12m`, `5h`, `3d`. */
export function shortAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return `${m}m${s % 60 ? `${s % 60}s` : ''}`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  return h < 48 ? `${h}h` : `${Math.floor(h / 24)}d`;
}

/** The table of `deployments` (sorted by name) at time `nowMs`, one string per line, header first. */
export function deploymentTable(deployments: readonly KubeObject[], nowMs: number): string[] {
  const rows = [...deployments]
    .sort((a, b) => (a.metadata!.name! < b.metadata!.name! ? -1 : 1))
    .map((d) => {
      const spec = (d.spec ?? {}) as { replicas?: number };
      const status = (d.status ?? {}) as { readyReplicas?: number; updatedReplicas?: number; availableReplicas?: number };
      const created = Date.parse(d.metadata?.creationTimestamp ?? '');
      return [
        d.metadata!.name!,
        `${status.readyReplicas ?? 0}/${spec.replicas ?? 1}`,
        String(status.updatedReplicas ?? 0),
        String(status.availableReplicas ?? 0),
        Number.isNaN(created) ? '<unknown>' : shortAge(nowMs - created),
      ];
    });
  const all = [['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE'], ...rows];
  const widths = all[0]!.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  return all.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]! + 3))).join(''));
}
