import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { splitReplicas, staticWeightOf, type SplitRequest, type SplitTarget } from '../../../src/multicluster/decisions/split-replicas.js';
import { apportionWebster, type Party } from '../../../src/multicluster/decisions/webster.js';

const t = (name: string, extra: Omit<SplitTarget, 'name'> = {}): SplitTarget => ({ name, ...extra });

describe('splitReplicas: fresh division', () => {
  const table: { name: string; req: SplitRequest; want: Record<string, number>; unassigned?: number }[] = [
    { name: 'zero replicas gives every target 0', req: { replicas: 0, targets: [t('a'), t('b')] }, want: { a: 0, b: 0 } },
    { name: 'negative replicas count as 0', req: { replicas: -3, targets: [t('a')] }, want: { a: 0 } },
    { name: 'even weights: remainder goes to the first names', req: { replicas: 5, targets: [t('c'), t('b'), t('a')] }, want: { a: 2, b: 2, c: 1 } },
    { name: 'tie on one replica: smallest name wins whatever the input order', req: { replicas: 1, targets: [t('z'), t('m'), t('k')] }, want: { k: 1, m: 0, z: 0 } },
    { name: 'Webster on small totals: 2:1 with 2 replicas is 1:1', req: { replicas: 2, targets: [t('a', { weight: 2 }), t('b', { weight: 1 })] }, want: { a: 1, b: 1 } },
    { name: 'weights 1:2:3 over 1000', req: { replicas: 1000, targets: [t('a', { weight: 1 }), t('b', { weight: 2 }), t('c', { weight: 3 })] }, want: { a: 167, b: 333, c: 500 } },
    { name: 'maxReplicas caps a cluster and the rest flows on', req: { replicas: 10, targets: [t('a', { maxReplicas: 2 }), t('b'), t('c')] }, want: { a: 2, b: 4, c: 4 } },
    { name: 'minReplicas is given before weighted shares', req: { replicas: 10, targets: [t('a'), t('b', { minReplicas: 5, weight: 0 }), t('c')] }, want: { a: 3, b: 5, c: 2 } },
    { name: 'minimums exceeding the total are shared by Webster', req: { replicas: 3, targets: [t('a', { minReplicas: 2 }), t('b', { minReplicas: 2 })] }, want: { a: 2, b: 1 } },
    { name: 'minReplicas never exceeds maxReplicas', req: { replicas: 6, targets: [t('a', { minReplicas: 5, maxReplicas: 1 }), t('b')] }, want: { a: 1, b: 5 } },
    { name: 'weight 0 gets nothing beyond its minimum', req: { replicas: 4, targets: [t('a', { weight: 0 }), t('b')] }, want: { a: 0, b: 4 } },
    { name: 'all weights 0 count as 1', req: { replicas: 4, targets: [t('a', { weight: 0 }), t('b', { weight: 0 })] }, want: { a: 2, b: 2 } },
    { name: 'capacity caps; what fits nowhere is reported', req: { replicas: 10, targets: [t('a', { availableReplicas: 2 }), t('b', { availableReplicas: 3 })] }, want: { a: 2, b: 3 }, unassigned: 5 },
    { name: 'capacity-weighted (AvailableReplicas)', req: { replicas: 4, weighting: 'AvailableReplicas', targets: [t('a', { availableReplicas: 30 }), t('b', { availableReplicas: 10 })] }, want: { a: 3, b: 1 } },
    { name: 'Fresh mode ignores the current assignment', req: { replicas: 10, mode: 'Fresh', current: { a: 10 }, targets: [t('a'), t('b')] }, want: { a: 5, b: 5 } },
    { name: 'Fresh AvailableReplicas counts current replicas as room', req: { replicas: 4, mode: 'Fresh', weighting: 'AvailableReplicas', current: { a: 3 }, targets: [t('a', { availableReplicas: 0 }), t('b', { availableReplicas: 1 })] }, want: { a: 3, b: 1 } },
  ];
  for (const tc of table) {
    it(tc.name, () => {
      const got = splitReplicas(tc.req);
      assert.deepEqual(got.assignment, tc.want);
      assert.equal(got.unassigned, tc.unassigned ?? 0);
    });
  }
});

describe('splitReplicas: steady (incremental) division', () => {
  const table: { name: string; req: SplitRequest; want: Record<string, number>; kind: string; unassigned?: number }[] = [
    { name: 'same total: unchanged even though weights moved', req: { replicas: 6, current: { a: 3, b: 3 }, targets: [t('a', { weight: 5 }), t('b')] }, want: { a: 3, b: 3 }, kind: 'Unchanged' },
    { name: 'a new cluster gets nothing until there is new work', req: { replicas: 6, current: { a: 3, b: 3 }, targets: [t('a'), t('b'), t('c')] }, want: { a: 3, b: 3, c: 0 }, kind: 'Unchanged' },
    { name: 'scale-up only adds, filling the emptiest share first', req: { replicas: 6, current: { a: 4, b: 0 }, targets: [t('a'), t('b')] }, want: { a: 4, b: 2 }, kind: 'ScaleUp' },
    { name: 'new cluster takes the new work', req: { replicas: 9, current: { a: 3, b: 3 }, targets: [t('a'), t('b'), t('c')] }, want: { a: 3, b: 3, c: 3 }, kind: 'ScaleUp' },
    { name: 'scale-down shrinks in proportion and never grows', req: { replicas: 6, current: { a: 8, b: 4 }, targets: [t('a'), t('b')] }, want: { a: 4, b: 2 }, kind: 'ScaleDown' },
    { name: 'scale-down honours minReplicas', req: { replicas: 3, current: { a: 8, b: 4 }, targets: [t('a'), t('b', { minReplicas: 2 })] }, want: { a: 1, b: 2 }, kind: 'ScaleDown' },
    { name: 'replicas of a vanished target are re-placed (failover)', req: { replicas: 10, current: { a: 5, b: 5 }, targets: [t('b'), t('c')] }, want: { b: 5, c: 5 }, kind: 'ScaleUp' },
    { name: 'lowered maxReplicas clips and the rest moves', req: { replicas: 10, current: { a: 5, b: 5 }, targets: [t('a', { maxReplicas: 3 }), t('b')] }, want: { a: 3, b: 7 }, kind: 'ScaleUp' },
    { name: 'unschedulable replicas move elsewhere', req: { replicas: 6, current: { a: 3, b: 3 }, targets: [t('a', { unschedulableReplicas: 2 }), t('b')] }, want: { a: 1, b: 5 }, kind: 'ScaleUp' },
    { name: 'AvailableReplicas scale-up divides only the delta by room', req: { replicas: 14, weighting: 'AvailableReplicas', current: { a: 2, b: 2 }, targets: [t('a', { availableReplicas: 1 }), t('b', { availableReplicas: 9 })] }, want: { a: 3, b: 11 }, kind: 'ScaleUp' },
    { name: 'AvailableReplicas scale-up beyond all room reports the rest', req: { replicas: 10, weighting: 'AvailableReplicas', current: { a: 2 }, targets: [t('a', { availableReplicas: 1 }), t('b', { availableReplicas: 2 })] }, want: { a: 3, b: 2 }, kind: 'ScaleUp', unassigned: 5 },
    { name: 'AvailableReplicas scale-up still honours a minimum', req: { replicas: 5, weighting: 'AvailableReplicas', current: { a: 4 }, targets: [t('a', { availableReplicas: 100 }), t('b', { availableReplicas: 1, minReplicas: 1 })] }, want: { a: 4, b: 1 }, kind: 'ScaleUp' },
  ];
  for (const tc of table) {
    it(tc.name, () => {
      const got = splitReplicas(tc.req);
      assert.deepEqual(got.assignment, tc.want);
      assert.equal(got.kind, tc.kind);
      assert.equal(got.unassigned, tc.unassigned ?? 0);
    });
  }
});

describe('staticWeightOf', () => {
  const table: [string, Record<string, string> | undefined, number][] = [
    ['no labels', undefined, 1],
    ['a weight', { 'scheduling.atrium.io/replica-weight': '3' }, 3],
    ['zero', { 'scheduling.atrium.io/replica-weight': '0' }, 0],
    ['malformed counts as 1', { 'scheduling.atrium.io/replica-weight': 'heavy' }, 1],
    ['negative counts as 1', { 'scheduling.atrium.io/replica-weight': '-2' }, 1],
  ];
  for (const [name, labels, want] of table) it(name, () => assert.equal(staticWeightOf({ metadata: { name: 'x', labels } }), want));
});

/** mulberry32: a small seeded PRNG so property checks are reproducible. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

function randomTargets(rand: () => number): SplitTarget[] {
  const count = 1 + Math.floor(rand() * 8);
  return Array.from({ length: count }, (_, i) => {
    const target: SplitTarget = { name: `c${Math.floor(rand() * 1000)}-${i}`, weight: Math.floor(rand() * 6) };
    if (rand() < 0.3) target.minReplicas = Math.floor(rand() * 4);
    if (rand() < 0.3) target.maxReplicas = Math.floor(rand() * 12);
    if (rand() < 0.3) target.availableReplicas = Math.floor(rand() * 15);
    if (rand() < 0.1) target.unschedulableReplicas = Math.floor(rand() * 3);
    return target;
  });
}

function randomCurrent(rand: () => number, targets: readonly SplitTarget[]): Record<string, number> {
  const current: Record<string, number> = {};
  for (const target of targets) if (rand() < 0.7) current[target.name] = Math.floor(rand() * 10);
  if (rand() < 0.3) current['gone'] = Math.floor(rand() * 5);
  return current;
}

function assertNoneShrinks(smaller: Record<string, number>, larger: Record<string, number>, context: string): void {
  for (const [name, n] of Object.entries(smaller)) assert.ok(larger[name]! >= n, `${context}: ${name} went ${n} -> ${larger[name]}`);
}

describe('splitReplicas properties (seeded random inputs)', () => {
  it('fresh division is house-monotone: one more replica never takes one away', () => {
    const rand = prng(20240601);
    for (let c = 0; c < 300; c++) {
      const targets = randomTargets(rand);
      const weighting = rand() < 0.5 ? 'Static' : 'AvailableReplicas';
      let previous = splitReplicas({ replicas: 0, targets, weighting }).assignment;
      for (let n = 1; n <= 60; n++) {
        const next = splitReplicas({ replicas: n, targets, weighting }).assignment;
        assertNoneShrinks(previous, next, `case ${c} ${JSON.stringify(targets)} n=${n}`);
        previous = next;
      }
    }
  });

  it('with a tieBreak, fresh division stays house-monotone and depends only on it, not on input order', () => {
    const rand = prng(424242);
    for (let c = 0; c < 300; c++) {
      const targets = randomTargets(rand);
      const tieBreak = `uid-${c}`;
      let previous = splitReplicas({ replicas: 0, targets, tieBreak }).assignment;
      for (let n = 1; n <= 40; n++) {
        const next = splitReplicas({ replicas: n, targets, tieBreak }).assignment;
        assertNoneShrinks(previous, next, `case ${c} ${JSON.stringify(targets)} n=${n}`);
        assert.deepEqual(splitReplicas({ replicas: n, targets: [...targets].reverse(), tieBreak }).assignment, next);
        previous = next;
      }
    }
  });

  it('a tieBreak spreads 1-replica workloads over equal clusters (by name alone, all go to the first)', () => {
    const targets = [t('cluster-1'), t('cluster-2'), t('cluster-3')];
    const count: Record<string, number> = { 'cluster-1': 0, 'cluster-2': 0, 'cluster-3': 0 };
    for (let i = 0; i < 300; i++) {
      const got = splitReplicas({ replicas: 1, targets, tieBreak: `0c9e1a4e-uid-${i}` }).assignment;
      for (const [name, n] of Object.entries(got)) count[name]! += n;
    }
    for (const [name, n] of Object.entries(count)) assert.ok(n >= 70 && n <= 130, `${name} got ${n} of 300: ${JSON.stringify(count)}`);
    assert.deepEqual(splitReplicas({ replicas: 1, targets }).assignment, { 'cluster-1': 1, 'cluster-2': 0, 'cluster-3': 0 });
  });

  it('steady division is house-monotone for a fixed current assignment, across scale-down and scale-up', () => {
    const rand = prng(7);
    for (let c = 0; c < 300; c++) {
      const targets = randomTargets(rand);
      const current = randomCurrent(rand, targets);
      const weighting = rand() < 0.5 ? 'Static' : 'AvailableReplicas';
      let previous = splitReplicas({ replicas: 0, targets, current, weighting }).assignment;
      for (let n = 1; n <= 60; n++) {
        const next = splitReplicas({ replicas: n, targets, current, weighting }).assignment;
        assertNoneShrinks(previous, next, `case ${c} ${JSON.stringify({ targets, current })} n=${n}`);
        previous = next;
      }
    }
  });

  it('respects bounds, places every replica it can, and satisfies minimums that fit', () => {
    const rand = prng(99);
    for (let c = 0; c < 500; c++) {
      const targets = randomTargets(rand);
      const current = rand() < 0.5 ? randomCurrent(rand, targets) : undefined;
      const replicas = Math.floor(rand() * 80);
      const got = splitReplicas({ replicas, targets, current });
      const placed = Object.values(got.assignment).reduce((a, b) => a + b, 0);
      assert.equal(placed + got.unassigned, replicas, `case ${c}`);
      for (const target of targets) {
        const n = got.assignment[target.name]!;
        const held = current?.[target.name] ?? 0;
        if (target.maxReplicas !== undefined) assert.ok(n <= target.maxReplicas, `case ${c}: ${target.name} over max`);
        if (target.availableReplicas !== undefined) assert.ok(n <= held + target.availableReplicas, `case ${c}: ${target.name} over capacity`);
        if ((target.unschedulableReplicas ?? 0) > 0) assert.ok(n <= Math.max(0, held - target.unschedulableReplicas!), `case ${c}: ${target.name} grew while stuck`);
      }
      const bound = (x: SplitTarget) =>
        Math.min(
          x.maxReplicas ?? Infinity,
          x.availableReplicas === undefined ? Infinity : (current?.[x.name] ?? 0) + x.availableReplicas,
          (x.unschedulableReplicas ?? 0) > 0 ? Math.max(0, (current?.[x.name] ?? 0) - x.unschedulableReplicas!) : Infinity,
        );
      if (got.kind === 'Fresh') {
        const minimumsFit = targets.reduce((s, x) => s + Math.min(x.minReplicas ?? 0, bound(x)), 0) <= replicas;
        if (minimumsFit) {
          for (const x of targets) assert.ok(got.assignment[x.name]! >= Math.min(x.minReplicas ?? 0, bound(x)), `case ${c}: ${x.name} below its minimum`);
        }
      }
      if (got.kind === 'ScaleDown') for (const x of targets) assert.ok(got.assignment[x.name]! <= (current?.[x.name] ?? 0), `case ${c}: grew on scale-down`);
      if (got.kind === 'ScaleUp') for (const x of targets) assert.ok(got.assignment[x.name]! >= Math.min(current?.[x.name] ?? 0, bound(x)), `case ${c}: shrank on scale-up`);
    }
  });

  it('the jump-started apportionment equals picking one seat at a time', () => {
    const rand = prng(424242);
    for (let c = 0; c < 200; c++) {
      const k = 1 + Math.floor(rand() * 20);
      const spec = Array.from({ length: k }, (_, i) => ({
        name: `p${i}`,
        votes: rand() < 0.1 ? 0 : Math.floor(rand() * 1000) / 7,
        seats: rand() < 0.3 ? Math.floor(rand() * 20) : 0,
        cap: rand() < 0.3 ? 20 + Math.floor(rand() * 200) : Infinity,
      }));
      const seats = Math.floor(rand() * 3000);
      const fast = spec.map((p) => ({ ...p }));
      const slow = spec.map((p) => ({ ...p }));
      const leftFast = apportionWebster(seats, fast);
      const leftSlow = oneSeatAtATime(seats, slow);
      assert.deepEqual(fast.map((p) => p.seats), slow.map((p) => p.seats), `case ${c}`);
      assert.equal(leftFast, leftSlow);
    }
  });

  it('splitting 100k replicas over 100 weighted clusters matches the Webster divisor criterion', () => {
    const rand = prng(5);
    const parties: Party[] = Array.from({ length: 100 }, (_, i) => ({ name: `c${i}`, votes: 1 + Math.floor(rand() * 50), seats: 0, cap: Infinity }));
    assert.equal(apportionWebster(100_000, parties), 0);
    assert.equal(parties.reduce((s, p) => s + p.seats, 0), 100_000);
    // Webster: the best priority not taken is no higher than the worst priority taken.
    const nextPriority = Math.max(...parties.map((p) => p.votes / (2 * p.seats + 1)));
    const lastTaken = Math.min(...parties.filter((p) => p.seats > 0).map((p) => p.votes / (2 * p.seats - 1)));
    assert.ok(nextPriority <= lastTaken);
  });
});

/** The textbook procedure, as the reference: each seat to the highest priority, ties by fewer seats then name. */
function oneSeatAtATime(seats: number, parties: Party[]): number {
  let left = seats;
  while (left > 0) {
    let best: Party | undefined;
    for (const p of parties) {
      if (p.seats >= p.cap) continue;
      if (!best) {
        best = p;
        continue;
      }
      const pp = p.votes / (2 * p.seats + 1);
      const pb = best.votes / (2 * best.seats + 1);
      if (pp > pb || (pp === pb && (p.seats < best.seats || (p.seats === best.seats && p.name < best.name)))) best = p;
    }
    if (!best) break;
    best.seats++;
    left--;
  }
  return left;
}
