import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pdbMinAvailable, rolloutBudget, stepMove, type MoveStepInput } from '../../../src/multicluster/decisions/step-move.js';

describe('rolloutBudget: kube fenceposts', () => {
  const table: { name: string; strategy: unknown; replicas: number; want: { maxSurge: number; maxUnavailable: number } }[] = [
    { name: 'defaults 25%: surge rounds up, unavailable down', strategy: undefined, replicas: 30, want: { maxSurge: 8, maxUnavailable: 7 } },
    { name: 'integers as given', strategy: { rollingUpdate: { maxSurge: 6, maxUnavailable: 3 } }, replicas: 30, want: { maxSurge: 6, maxUnavailable: 3 } },
    { name: 'both 0 gives maxUnavailable 1', strategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } }, replicas: 30, want: { maxSurge: 0, maxUnavailable: 1 } },
    { name: 'percent strings', strategy: { rollingUpdate: { maxSurge: '100%', maxUnavailable: '0%' } }, replicas: 5, want: { maxSurge: 5, maxUnavailable: 0 } },
    { name: 'Recreate moves one at a time (deliberately not an outage)', strategy: { type: 'Recreate' }, replicas: 4, want: { maxSurge: 0, maxUnavailable: 1 } },
  ];
  for (const c of table) it(c.name, () => assert.deepEqual(rolloutBudget(c.strategy, c.replicas), c.want));
});

describe('pdbMinAvailable', () => {
  it('minAvailable integer and percentage (rounded up), maxUnavailable, neither', () => {
    assert.equal(pdbMinAvailable({ minAvailable: 27 }, 30), 27);
    assert.equal(pdbMinAvailable({ minAvailable: '95%' }, 30), 29);
    assert.equal(pdbMinAvailable({ maxUnavailable: 2 }, 30), 28);
    assert.equal(pdbMinAvailable({ maxUnavailable: '10%' }, 30), 27);
    assert.equal(pdbMinAvailable({}, 30), 0);
    assert.equal(pdbMinAvailable({ minAvailable: 50 }, 30), 30);
  });
});

describe('stepMove: make before break', () => {
  const base = (over: Partial<MoveStepInput>): MoveStepInput => ({ current: { a: 30 }, desired: { b: 30 }, ready: { a: 30 }, leaving: ['a'], maxSurge: 6, maxUnavailable: 3, ...over });
  const table: { name: string; in: MoveStepInput; want: Record<string, number>; complete?: boolean; release?: string[] }[] = [
    { name: 'nothing being left: desired as is, not rate limited', in: base({ current: { b: 2 }, ready: { b: 2 }, leaving: [] , desired: { b: 30 } }), want: { b: 30 }, complete: true, release: [] },
    { name: 'first step: old down by maxUnavailable, new up to replicas + maxSurge', in: base({}), want: { a: 27, b: 9 } },
    { name: 'new not ready yet: nothing more', in: base({ current: { a: 27, b: 9 }, ready: { a: 27, b: 0 } }), want: { a: 27, b: 9 } },
    { name: 'new ready: old down as far as the floor allows, new up again', in: base({ current: { a: 27, b: 9 }, ready: { a: 27, b: 9 } }), want: { a: 18, b: 18 } },
    { name: 'old not-ready replicas are kept on top of the floor', in: base({ current: { a: 27, b: 9 }, ready: { a: 25, b: 9 } }), want: { a: 20, b: 16 } },
    { name: 'all new ready: old released', in: base({ current: { a: 3, b: 30 }, ready: { a: 3, b: 30 } }), want: { a: 0, b: 30 }, complete: true, release: ['a'] },
    { name: 'a PDB stricter than maxUnavailable raises the floor', in: base({ pdbMinAvailable: 29 }), want: { a: 29, b: 7 } },
    { name: 'maxSurge 0: old shrinks first, new takes its place', in: base({ maxSurge: 0, maxUnavailable: 2 }), want: { a: 28, b: 2 } },
    { name: 'maxUnavailable 0: old kept whole until replacements are ready', in: base({ maxSurge: 5, maxUnavailable: 0, current: { a: 30, b: 5 }, ready: { a: 30, b: 5 } }), want: { a: 25, b: 10 } },
    { name: 'a lost cluster is replaced at once, not counted, never released', in: base({ unreachable: ['a'] }), want: { a: 0, b: 30 }, complete: true, release: [] },
    {
      name: 'two clusters left for one: the kept old replicas divided by what each has ready',
      in: { current: { a: 10, b: 10, c: 0 }, desired: { c: 20 }, ready: { a: 10, b: 10 }, leaving: ['a', 'b'], maxSurge: 5, maxUnavailable: 5 },
      want: { a: 8, b: 7, c: 10 },
    },
    {
      name: 'spread change: a cluster left while others grow, each growing within the surge',
      in: { current: { a: 10, b: 10, c: 10 }, desired: { b: 15, c: 15 }, ready: { a: 10, b: 10, c: 10 }, leaving: ['a'], maxSurge: 2, maxUnavailable: 0 },
      want: { a: 10, b: 11, c: 11 },
    },
  ];
  for (const c of table) {
    it(c.name, () => {
      const got = stepMove(c.in);
      assert.deepEqual(got.replicas, c.want);
      if (c.complete !== undefined) assert.equal(got.complete, c.complete);
      if (c.release !== undefined) assert.deepEqual(got.release, c.release);
    });
  }

  it('simulated to the end: never below the floor, never above replicas + maxSurge, converges', () => {
    for (const [surge, unavailable, pdb] of [[6, 3, 0], [0, 1, 0], [8, 7, 28], [30, 0, 0], [1, 0, 0]] as const) {
      let current: Record<string, number> = { a: 30 };
      let ready: Record<string, number> = { a: 30 };
      let steps = 0;
      for (;;) {
        const step = stepMove({ current, desired: { b: 30 }, ready, leaving: ['a'], maxSurge: surge, maxUnavailable: unavailable, pdbMinAvailable: pdb });
        const r = step.replicas;
        // The old cluster drops pods at once; new pods become ready by the next step.
        const readyNow = Math.min(ready.a ?? 0, r.a!) + Math.min(ready.b ?? 0, r.b!);
        assert.ok(readyNow >= Math.max(30 - unavailable, pdb), `surge ${surge} unavailable ${unavailable}: ${readyNow} ready at step ${steps}`);
        assert.ok(r.a! + r.b! <= 30 + surge, `surge ${surge}: ${r.a! + r.b!} replicas at step ${steps}`);
        if (step.complete && r.b === 30) break;
        current = r;
        ready = { a: Math.min(ready.a ?? 0, r.a!), b: r.b! };
        assert.ok(++steps < 100, 'converges');
      }
    }
  });
});
