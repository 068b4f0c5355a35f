import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findCondition, isConditionTrue, setKcpCondition, setStatusCondition, type StatusCondition } from '../../../src/apimachinery/conditions.js';

test('setStatusCondition (meta.SetStatusCondition): appends new types, moves lastTransitionTime only on a status change', () => {
  const conds: StatusCondition[] = [{ type: 'Other', status: 'True', lastTransitionTime: 'T0' }];
  assert.equal(setStatusCondition(conds, { type: 'Ready', status: 'False', reason: 'Waiting', message: 'm1' }, 'T1'), true);
  assert.deepEqual(conds[1], { type: 'Ready', status: 'False', reason: 'Waiting', message: 'm1', lastTransitionTime: 'T1' });
  // Same state: nothing changes.
  assert.equal(setStatusCondition(conds, { type: 'Ready', status: 'False', reason: 'Waiting', message: 'm1' }, 'T2'), false);
  // New reason and message, same status: updated in place, the time stays.
  assert.equal(setStatusCondition(conds, { type: 'Ready', status: 'False', reason: 'Still', observedGeneration: 3 }, 'T3'), true);
  assert.deepEqual(conds[1], { type: 'Ready', status: 'False', reason: 'Still', lastTransitionTime: 'T1', observedGeneration: 3 });
  // A status change moves it (to the given time when there is one).
  assert.equal(setStatusCondition(conds, { type: 'Ready', status: 'True', reason: 'Done', observedGeneration: 3, lastTransitionTime: 'T4' }, 'T5'), true);
  assert.equal(conds[1]!.lastTransitionTime, 'T4');
  assert.deepEqual(conds.map((c) => c.type), ['Other', 'Ready']);
  assert.equal(isConditionTrue(conds, 'Ready'), true);
  assert.equal(isConditionTrue(conds, 'Missing'), false);
  assert.equal(findCondition(undefined, 'Ready'), undefined);
});

test('setKcpCondition (kcp conditions.Set): any state change moves lastTransitionTime; Ready first, then by type', () => {
  const start: StatusCondition[] = [{ type: 'B', status: 'True', lastTransitionTime: 'T0' }];
  let conds = setKcpCondition(start, { type: 'A', status: 'False', reason: 'R', severity: 'Info', message: 'm1' }, 'T1');
  conds = setKcpCondition(conds, { type: 'Ready', status: 'True' }, 'T1');
  assert.deepEqual(conds.map((c) => c.type), ['Ready', 'A', 'B']);
  assert.deepEqual(start, [{ type: 'B', status: 'True', lastTransitionTime: 'T0' }]);
  // Same state: kept as it is.
  assert.equal(setKcpCondition(conds, { type: 'A', status: 'False', reason: 'R', severity: 'Info', message: 'm1' }, 'T2')[1]!.lastTransitionTime, 'T1');
  // Same status, another message: replaced, with a new time.
  const moved = setKcpCondition(conds, { type: 'A', status: 'False', reason: 'R', severity: 'Info', message: 'm2' }, 'T3');
  assert.deepEqual(moved[1], { type: 'A', status: 'False', reason: 'R', severity: 'Info', message: 'm2', lastTransitionTime: 'T3' });
  // Marked True without details: reason, severity and message go.
  assert.deepEqual(setKcpCondition(moved, { type: 'A', status: 'True' }, 'T4')[1], { type: 'A', status: 'True', lastTransitionTime: 'T4' });
});
