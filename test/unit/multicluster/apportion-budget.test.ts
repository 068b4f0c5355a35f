import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { apportionBudget, type DisruptionBudget } from '../../../src/multicluster/decisions/apportion-budget.js';

describe('apportionBudget: a PodDisruptionBudget per cluster whose shares add up to the whole', () => {
  const table: { name: string; budget: DisruptionBudget; pods: Record<string, number>; want: Record<string, DisruptionBudget> }[] = [
    { name: 'minAvailable 3 over 2 + 2 pods: 2 and 1 (ties to the smaller name)', budget: { minAvailable: 3 }, pods: { a: 2, b: 2 }, want: { a: { minAvailable: 2 }, b: { minAvailable: 1 } } },
    { name: 'minAvailable 8 over 4 + 6 pods: in proportion', budget: { minAvailable: 8 }, pods: { a: 4, b: 6 }, want: { a: { minAvailable: 3 }, b: { minAvailable: 5 } } },
    { name: 'minAvailable equal to all pods: every pod stays', budget: { minAvailable: 10 }, pods: { a: 4, b: 6 }, want: { a: { minAvailable: 4 }, b: { minAvailable: 6 } } },
    { name: 'minAvailable 0: no cluster keeps anything', budget: { minAvailable: 0 }, pods: { a: 4, b: 6 }, want: { a: { minAvailable: 0 }, b: { minAvailable: 0 } } },
    { name: 'maxUnavailable 2 over 4 + 6: 1 and 1', budget: { maxUnavailable: 2 }, pods: { a: 4, b: 6 }, want: { a: { maxUnavailable: 1 }, b: { maxUnavailable: 1 } } },
    { name: 'maxUnavailable 1 over two clusters: one may lose a pod, the other none (at least 0)', budget: { maxUnavailable: 1 }, pods: { a: 2, b: 3 }, want: { a: { maxUnavailable: 0 }, b: { maxUnavailable: 1 } } },
    { name: 'a percentage applies per cluster as it is', budget: { minAvailable: '50%' }, pods: { a: 4, b: 6 }, want: { a: { minAvailable: '50%' }, b: { minAvailable: '50%' } } },
    { name: 'maxUnavailable percentage', budget: { maxUnavailable: '25%' }, pods: { a: 1 }, want: { a: { maxUnavailable: '25%' } } },
    { name: 'a cluster with no pods of it gets no share', budget: { minAvailable: 3 }, pods: { a: 3, b: 0 }, want: { a: { minAvailable: 3 }, b: { minAvailable: 0 } } },
    { name: 'no pods anywhere yet: equal shares', budget: { minAvailable: 3 }, pods: { a: 0, b: 0 }, want: { a: { minAvailable: 2 }, b: { minAvailable: 1 } } },
    { name: 'one cluster: the whole budget', budget: { minAvailable: 2 }, pods: { only: 5 }, want: { only: { minAvailable: 2 } } },
    { name: 'minAvailable wins when both are set (validation forbids it anyway)', budget: { minAvailable: 1, maxUnavailable: 1 }, pods: { a: 1 }, want: { a: { minAvailable: 1 } } },
    { name: 'no budget', budget: {}, pods: { a: 1 }, want: { a: {} } },
  ];
  for (const tc of table) {
    it(tc.name, () => {
      const got = apportionBudget(tc.budget, tc.pods);
      assert.deepEqual(got, tc.want);
      const field = tc.budget.minAvailable !== undefined ? 'minAvailable' : 'maxUnavailable';
      const whole = tc.budget[field];
      if (typeof whole === 'number') assert.equal(Object.values(got).reduce((s, b) => s + (b[field] as number), 0), whole, 'the shares add up');
    });
  }
});
