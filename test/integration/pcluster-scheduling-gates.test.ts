/**
 * Pod scheduling gates on the simulated cluster, as queueing controllers (Kueue and the like) use them: a pod created
 * with gates says so in its PodScheduled condition (reason SchedulingGated, upstream's message, as the pod strategy
 * writes it on create) and the scheduler leaves it alone; once the controller removes the last gate, it is bound and
 * runs like any other pod.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/eventually.js';
import { useSimulatedCluster } from '../helpers/simulated-cluster.js';

const server = useSimulatedCluster('gates', { readyDelayMs: 200 });
const pods = '/api/v1/namespaces/default/pods';

it('a gated pod waits with PodScheduled=False/SchedulingGated, and runs once its gates are removed', async () => {
  const created = await server().request('POST', pods, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'queued' },
    spec: { schedulingGates: [{ name: 'example.com/quota' }, { name: 'example.com/admission' }], containers: [{ name: 'c', image: 'nginx:1.27' }] },
  });
  assert.equal(created.status, 201, created.text);
  const [condition] = created.json.status.conditions;
  assert.deepEqual({ ...condition, lastTransitionTime: typeof condition.lastTransitionTime }, {
    type: 'PodScheduled',
    status: 'False',
    lastProbeTime: null,
    lastTransitionTime: 'string',
    reason: 'SchedulingGated',
    message: 'Scheduling is blocked due to non-empty scheduling gates',
  });

  // An ungated pod created after it is scheduled and running: the scheduler has had its chance at the gated one.
  assert.equal((await server().request('POST', pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'free' }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } })).status, 201);
  await eventually('the ungated pod running', async () => {
    const r = await server().request('GET', `${pods}/free`);
    return r.json?.status?.phase === 'Running' ? r.json : undefined;
  });
  const waiting = await server().request('GET', `${pods}/queued`);
  assert.equal(waiting.json.spec.nodeName, undefined, 'a gated pod is never bound');
  assert.equal(waiting.json.status.phase, 'Pending');

  // Removing one gate is not enough; removing the last one lets it be scheduled.
  const oneLeft = await server().request('PATCH', `${pods}/queued`, { spec: { schedulingGates: [{ name: 'example.com/admission' }] } }, { headers: { 'Content-Type': 'application/merge-patch+json' } });
  assert.equal(oneLeft.status, 200, oneLeft.text);
  const ungated = await server().request('PATCH', `${pods}/queued`, { spec: { schedulingGates: null } }, { headers: { 'Content-Type': 'application/merge-patch+json' } });
  assert.equal(ungated.status, 200, ungated.text);
  const running = await eventually('the released pod bound and running', async () => {
    const r = await server().request('GET', `${pods}/queued`);
    return r.json?.spec?.nodeName && r.json?.status?.phase === 'Running' ? r.json : undefined;
  });
  const scheduled = running.status.conditions.find((c: { type: string }) => c.type === 'PodScheduled');
  assert.equal(scheduled.status, 'True');
});
