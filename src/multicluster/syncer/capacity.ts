/** A cluster's capacity and allocatable: the sums over its nodes' status, as SyncTarget status reports them. */
import type { KubeObject } from '../../apimachinery/object.js';
import { milliValue } from '../../apimachinery/quantity.js';

/**
 * Sums `status.capacity` and `status.allocatable` of `nodes` per resource name. Values are written as whole base
 * units when they are whole (`8`, `34359738368`) and in milli-units otherwise (`1500m`); unparsable entries are skipped.
 */
export function sumNodeResources(nodes: KubeObject[]): { capacity: Record<string, string>; allocatable: Record<string, string> } {
  const sum = (field: 'capacity' | 'allocatable') => {
    const milli = new Map<string, number>();
    for (const n of nodes) {
      const list = (n.status as Record<string, Record<string, string>> | undefined)?.[field] ?? {};
      for (const [name, q] of Object.entries(list)) {
        try {
          milli.set(name, (milli.get(name) ?? 0) + milliValue(q));
        } catch {
          // not a quantity: leave it out of the summary
        }
      }
    }
    const out: Record<string, string> = {};
    for (const [name, m] of [...milli].sort(([a], [b]) => a.localeCompare(b))) out[name] = m % 1000 === 0 ? String(m / 1000) : `${m}m`;
    return out;
  };
  return { capacity: sum('capacity'), allocatable: sum('allocatable') };
}
