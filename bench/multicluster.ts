/**
 * Issue 8 benchmark: the replica-splitting decision for a workload placed on 100 clusters.
 *
 * Target: a split decision takes under 1 ms. That target is absolute (a controller reconciling thousands of workloads
 * must not spend its time dividing replicas), so the pass/fail figure is the 99th percentile of single decisions
 * against the 1 ms budget: ratio = p99 / 1 ms, passing below 1. Each input is timed on its own (best of 5, to drop
 * preemption on the shared machine), so the expensive inputs show in the p99 instead of being averaged away.
 *
 * A second, informational figure compares the mean cost with kcp's even split (n/k each, remainder to the first
 * target) of the same inputs measured in this run: the price of Webster with min/max/capacity over the naive method.
 */
import { splitReplicas, type SplitRequest, type SplitTarget } from '../src/multicluster/decisions/split-replicas.js';
import type { Figure } from './lib.js';

const CLUSTERS = 100;
const BUDGET_NS = 1_000_000;

/** A fixed-seed generator so every run measures the same inputs. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Realistic mixes: weights from labels, a few clusters with min/max, most reporting room; a current assignment for
 * Steady decisions (scale-up, scale-down, failover of a few clusters); totals from 1 to 50,000 replicas.
 */
function inputs(count: number): SplitRequest[] {
  const rand = prng(8);
  const requests: SplitRequest[] = [];
  for (let i = 0; i < count; i++) {
    const targets: SplitTarget[] = Array.from({ length: CLUSTERS }, (_, c) => {
      const t: SplitTarget = { name: `cluster-${String(c).padStart(3, '0')}`, weight: 1 + Math.floor(rand() * 10) };
      if (rand() < 0.1) t.minReplicas = Math.floor(rand() * 5);
      if (rand() < 0.1) t.maxReplicas = 50 + Math.floor(rand() * 500);
      if (rand() < 0.8) t.availableReplicas = Math.floor(rand() * 1000);
      return t;
    });
    const replicas = Math.floor(Math.exp(rand() * Math.log(50_000)));
    const request: SplitRequest = { replicas, targets, weighting: rand() < 0.5 ? 'Static' : 'AvailableReplicas', mode: rand() < 0.25 ? 'Fresh' : 'Steady' };
    if (request.mode === 'Steady') {
      const current: Record<string, number> = {};
      const held = Math.floor(replicas * (0.5 + rand()));
      for (const t of targets) if (rand() < 0.95) current[t.name] = Math.floor((held / CLUSTERS) * (0.5 + rand()));
      request.current = current;
    }
    requests.push(request);
  }
  return requests;
}

/** kcp's deployment splitter: n/k to each target, the whole remainder to the first one. */
function evenSplit(request: SplitRequest): Record<string, number> {
  const names = request.targets.map((t) => t.name).sort();
  const each = Math.floor(request.replicas / names.length);
  const out: Record<string, number> = {};
  names.forEach((n, i) => (out[n] = each + (i === 0 ? request.replicas % names.length : 0)));
  return out;
}

/**
 * The cost of each request: the best of `repeats` timings of it. On a shared machine a single timing includes time the
 * process spent preempted; the best of a few keeps the cost of the decision itself, while the spread across inputs
 * (the p99 over requests) still shows the expensive inputs.
 */
function timeEach(requests: readonly SplitRequest[], run: (r: SplitRequest) => unknown, repeats = 5): number[] {
  const samples: number[] = [];
  let sink = 0;
  for (const r of requests) {
    let best = Infinity;
    for (let k = 0; k < repeats; k++) {
      const t0 = process.hrtime.bigint();
      const out = run(r);
      best = Math.min(best, Number(process.hrtime.bigint() - t0));
      if (out) sink++;
    }
    samples.push(best);
  }
  if (sink !== requests.length * repeats) throw new Error('a split returned nothing');
  return samples;
}

export async function runMulticlusterBenchmarks(): Promise<Figure[]> {
  const requests = inputs(2000);
  // Warm both paths so the JIT has compiled them before anything is measured.
  timeEach(requests, splitReplicas, 3);
  timeEach(requests, evenSplit, 3);
  const webster = timeEach(requests, splitReplicas).sort((a, b) => a - b);
  const even = timeEach(requests, evenSplit);
  const p99 = webster[Math.floor(0.99 * (webster.length - 1))]!;
  const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return [
    {
      benchmark: `split replicas over ${CLUSTERS} clusters`,
      metric: 'p99 per decision',
      value: p99,
      unit: 'ns',
      reference: '1 ms budget',
      referenceValue: BUDGET_NS,
      ratio: p99 / BUDGET_NS,
      target: '< 1.00',
      pass: p99 < BUDGET_NS,
    },
    {
      benchmark: `split replicas over ${CLUSTERS} clusters`,
      metric: 'mean per decision',
      value: mean(webster),
      unit: 'ns',
      reference: 'even split n/k, same inputs',
      referenceValue: mean(even),
      ratio: mean(webster) / mean(even),
    },
  ];
}
