/**
 * pods/eviction (policy/v1 Eviction) as kube-apiserver v1.32.4 answers it — every expected body below is that
 * server's own answer to the same request (recorded with its PodDisruptionBudget statuses set by hand, as it runs no
 * disruption controller): a budget not yet observed or allowing nothing refuses with 429 and the reason, an allowed
 * eviction spends one disruption (recorded in disruptedPods) and deletes the pod, a dry run deletes nothing, two budgets
 * are a 500, a pending pod goes without asking. Then, with the simulated cluster's own disruption controller, the
 * budget it computes decides, and the evicted pod leaves disruptedPods once it is gone.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventually } from '../helpers/eventually.js';
import { useSimulatedCluster } from '../helpers/simulated-cluster.js';

const MERGE = { headers: { 'Content-Type': 'application/merge-patch+json' } };
const NS = '/api/v1/namespaces/default';
const PDBS = '/apis/policy/v1/namespaces/default/poddisruptionbudgets';
const eviction = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name }, ...extra });
const violation = "Cannot evict pod as it would violate the pod's disruption budget.";
const success = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };

describe('pods/eviction as kube-apiserver answers it (budgets set by hand)', () => {
  // No disruption controller: the budgets' statuses are what the test writes, as on a bare kube-apiserver.
  const server = useSimulatedCluster('eviction', { nodes: 1, readyDelayMs: 50, controllers: ['*', '-disruption'] });
  const pod = async (name: string, labels: Record<string, string>, spec: Record<string, unknown> = {}) => {
    const r = await server().request('POST', `${NS}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec } });
    assert.equal(r.status, 201, r.text);
  };
  const running = (name: string) =>
    eventually(`${name} Running and Ready`, async () => {
      const p = (await server().request('GET', `${NS}/pods/${name}`)).json;
      return p.status?.phase === 'Running' && (p.status.conditions ?? []).some((c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True');
    });
  const budget = async (name: string, app: string) => {
    const r = await server().request('POST', PDBS, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name }, spec: { minAvailable: 1, selector: { matchLabels: { app } } } });
    assert.equal(r.status, 201, r.text);
  };
  const evict = (name: string, body: unknown = eviction(name), query = '') => server().request('POST', `${NS}/pods/${name}/eviction${query}`, body);

  it('is listed in discovery as kube-apiserver lists it', async () => {
    const r = await server().request('GET', '/api/v1');
    assert.deepEqual(
      (r.json.resources as Record<string, unknown>[]).find((x) => x.name === 'pods/eviction'),
      { name: 'pods/eviction', singularName: '', namespaced: true, group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] },
    );
  });

  it('asks the budget: not observed, nothing allowed, a dry run, then one disruption spent and the pod gone', async () => {
    await pod('a1', { app: 'a' });
    await running('a1');
    await budget('pa', 'a');
    let r = await evict('a1');
    assert.equal(r.status, 429);
    assert.deepEqual(r.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: violation, reason: 'TooManyRequests', details: { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget pa is still being processed by the server.' }], retryAfterSeconds: 10 }, code: 429 });

    await server().request('PATCH', `${PDBS}/pa/status`, { status: { observedGeneration: 1, disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 } }, MERGE);
    r = await evict('a1');
    assert.equal(r.status, 429);
    assert.deepEqual(r.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: violation, reason: 'TooManyRequests', details: { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget pa needs 1 healthy pods and has 1 currently' }] }, code: 429 });

    await server().request('PATCH', `${PDBS}/pa/status`, { status: { disruptionsAllowed: 1, currentHealthy: 2 } }, MERGE);
    r = await evict('a1', eviction('a1'), '?dryRun=All');
    assert.deepEqual([r.status, r.json], [201, success]);
    assert.equal((await server().request('GET', `${NS}/pods/a1`)).status, 200, 'a dry run deletes nothing');
    assert.equal((await server().request('GET', `${PDBS}/pa`)).json.status.disruptionsAllowed, 1, 'a dry run spends nothing');

    r = await evict('a1');
    assert.deepEqual([r.status, r.json], [201, success]);
    const status = (await server().request('GET', `${PDBS}/pa`)).json.status;
    assert.equal(status.disruptionsAllowed, 0);
    assert.deepEqual(Object.keys(status.disruptedPods), ['a1']);
    assert.deepEqual(
      status.conditions.map(({ lastTransitionTime: _t, ...c }: Record<string, unknown>) => c),
      [{ type: 'DisruptionAllowed', status: 'False', observedGeneration: 1, reason: 'InsufficientPods', message: '' }],
    );
    assert.equal((await server().request('GET', `${NS}/pods/a1`)).status, 404);
  });

  it('refuses what kube-apiserver refuses, with its Status', async () => {
    await pod('b1', { app: 'b' });
    await running('b1');
    await budget('pb1', 'b');
    await budget('pb2', 'b');
    let r = await evict('b1');
    assert.deepEqual([r.status, r.json], [500, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.', code: 500 }]);
    r = await evict('nope');
    assert.deepEqual([r.status, r.json], [404, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'pods "nope" not found', reason: 'NotFound', details: { name: 'nope', kind: 'pods' }, code: 404 }]);
    r = await evict('b1', eviction('x'));
    assert.deepEqual([r.status, r.json], [400, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'name in URL does not match name in Eviction object', reason: 'BadRequest', code: 400 }]);
    r = await evict('b1', eviction('b1', { deleteOptions: { ignoreStoreReadErrorWithClusterBreakingPotential: true } }));
    assert.equal(r.status, 422);
    assert.equal(r.json.message, 'Eviction.policy "b1" is invalid: deleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: can not be set for pod eviction, try after removing the option');
    assert.deepEqual(r.json.details, { name: 'b1', group: 'policy', kind: 'Eviction', causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: true: can not be set for pod eviction, try after removing the option', field: 'deleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential' }] });
  });

  it('a pod no node can take (Pending) goes without asking its budget', async () => {
    await pod('c1', { app: 'c' }, { nodeSelector: { nowhere: 'true' } });
    await budget('pc', 'c');
    const r = await evict('c1');
    assert.deepEqual([r.status, r.json], [201, success]);
    assert.equal((await server().request('GET', `${NS}/pods/c1`)).status, 404);
  });
});

describe("pods/eviction with the cluster's disruption controller", () => {
  const server = useSimulatedCluster('eviction-dc', { nodes: 1, readyDelayMs: 50 });

  it('the budget the controller computes decides, and the evicted pod leaves disruptedPods once it is gone', async () => {
    const deploy = await server().request('POST', '/apis/apps/v1/namespaces/default/deployments', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    assert.equal(deploy.status, 201, deploy.text);
    const pdb = await server().request('POST', PDBS, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web' }, spec: { minAvailable: 2, selector: { matchLabels: { app: 'web' } } } });
    assert.equal(pdb.status, 201, pdb.text);
    await eventually('the budget sees 2 healthy pods', async () => (await server().request('GET', `${PDBS}/web`)).json.status?.currentHealthy === 2);
    const pods = (await server().request('GET', `${NS}/pods?labelSelector=app%3Dweb`)).json.items as { metadata: { name: string } }[];
    const victim = pods[0]!.metadata.name;
    const refused = await server().request('POST', `${NS}/pods/${victim}/eviction`, eviction(victim));
    assert.equal(refused.status, 429, refused.text);
    assert.equal(refused.json.details.causes[0].message, 'The disruption budget web needs 2 healthy pods and has 2 currently');

    await server().request('PATCH', `${PDBS}/web`, { spec: { minAvailable: 1 } }, MERGE);
    await eventually('one disruption allowed', async () => (await server().request('GET', `${PDBS}/web`)).json.status?.disruptionsAllowed === 1);
    const ok = await server().request('POST', `${NS}/pods/${victim}/eviction`, eviction(victim));
    assert.deepEqual([ok.status, ok.json], [201, success]);
    // The Deployment replaces it; the controller drops the gone pod from disruptedPods and counts the new one.
    await eventually('the budget back to 2 healthy, nothing disrupted', async () => {
      const s = (await server().request('GET', `${PDBS}/web`)).json.status;
      return s?.currentHealthy === 2 && s.disruptionsAllowed === 1 && s.disruptedPods === undefined;
    });
  });
});
