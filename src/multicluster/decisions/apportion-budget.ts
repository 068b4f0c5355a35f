/**
 * A PodDisruptionBudget's budget per cluster. The pods it protects run on several clusters (a split Deployment), and
 * each cluster's eviction API only sees its own, so each cluster gets a PodDisruptionBudget with a share of the
 * budget such that the shares add up to the whole:
 *
 * - an integer `minAvailable: N` is divided in proportion to the pods each cluster runs (Webster apportionment, as
 *   replicas are split; ties to the smaller cluster name): 4 pods split 2/2 with minAvailable 3 → 2 and 1;
 * - an integer `maxUnavailable: M` likewise (at least 0 each): 10 pods split 4/6 with maxUnavailable 2 → 1 and 1;
 *   with maxUnavailable 1 over two clusters one of them gets 0 (only one pod may be down in the whole fleet);
 * - a percentage applies to each cluster's own pods, which is the same fraction of the whole: it is kept as it is.
 *
 * Clusters running no pod of it share by equal weight only when no cluster runs any (nothing to protect yet).
 */
import { apportionWebster } from './webster.js';

export interface DisruptionBudget {
  minAvailable?: number | string;
  maxUnavailable?: number | string;
}

/** The budget of each cluster in `podsByCluster` (every key gets an entry). */
export function apportionBudget(budget: DisruptionBudget, podsByCluster: Readonly<Record<string, number>>): Record<string, DisruptionBudget> {
  const clusters = Object.keys(podsByCluster).sort();
  const out: Record<string, DisruptionBudget> = {};
  const field = budget.minAvailable !== undefined ? 'minAvailable' : budget.maxUnavailable !== undefined ? 'maxUnavailable' : undefined;
  if (!field) {
    for (const c of clusters) out[c] = {};
    return out;
  }
  const value = budget[field]!;
  if (typeof value !== 'number') {
    for (const c of clusters) out[c] = { [field]: value };
    return out;
  }
  const total = clusters.reduce((s, c) => s + Math.max(0, podsByCluster[c] ?? 0), 0);
  const parties = clusters.map((c) => ({ name: c, votes: total === 0 ? 1 : Math.max(0, podsByCluster[c] ?? 0), seats: 0, cap: Infinity }));
  apportionWebster(Math.max(0, Math.floor(value)), parties.filter((p) => p.votes > 0));
  for (const p of parties) out[p.name] = { [field]: p.seats };
  return out;
}
