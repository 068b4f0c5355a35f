/**
 * The taint eviction controller on the simulated cluster, as kube-controller-manager's: a NoExecute taint put on a node
 * with the real `kubectl taint` evicts the pods there that do not tolerate it at once, and those that tolerate it for
 * tolerationSeconds when that time is up (each pod gets DisruptionTarget=True, DeletionByTaintManager, and the
 * TaintManagerEviction events); a toleration without tolerationSeconds keeps its pod; removing the taint cancels an
 * eviction still waiting; pods on other nodes are left alone.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/eventually.js';
import { useSimulatedCluster } from '../helpers/simulated-cluster.js';

const server = useSimulatedCluster('taints', { nodes: 2, readyDelayMs: 100 });
const NODE = 'taints-node-1';
const OTHER = 'taints-node-2';
const KEY = 'example.com/evict';

const pod = (name: string, node: string, tolerations: Record<string, unknown>[] = []) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { test: 'taints' } },
  spec: {
    nodeSelector: { 'kubernetes.io/hostname': node },
    terminationGracePeriodSeconds: 1,
    tolerations,
    containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }],
  },
});
const tolerating = (seconds?: number) => [{ key: KEY, operator: 'Equal', value: 'yes', effect: 'NoExecute', ...(seconds === undefined ? {} : { tolerationSeconds: seconds }) }];

async function runPods(...pods: ReturnType<typeof pod>[]): Promise<void> {
  for (const p of pods) assert.equal((await server().request('POST', '/api/v1/namespaces/default/pods', p)).status, 201);
  for (const p of pods) {
    await eventually(`pod ${p.metadata.name} running`, async () => (await server().request('GET', `/api/v1/namespaces/default/pods/${p.metadata.name}`)).json?.status?.phase === 'Running', 20_000);
  }
}

const exists = async (name: string) => (await server().request('GET', `/api/v1/namespaces/default/pods/${name}`)).status === 200;

async function taint(node: string, remove = false): Promise<void> {
  const r = await server().kubectl(['taint', 'nodes', node, remove ? `${KEY}=yes:NoExecute-` : `${KEY}=yes:NoExecute`]);
  assert.equal(r.code, 0, r.stderr);
}

async function eventsAbout(name: string): Promise<{ reason: string; message: string; source?: { component?: string } }[]> {
  const r = await server().request('GET', `/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3D${name}`);
  return r.json.items;
}

describe('taint eviction on the simulated cluster', () => {
  it('evicts at once the pods that do not tolerate a NoExecute taint, with the DisruptionTarget condition and an event', async () => {
    // A finalizer holds the evicted pod so its condition can be read.
    const held = { ...pod('untolerant', NODE), metadata: { name: 'untolerant', labels: { test: 'taints' }, finalizers: ['example.com/hold'] } };
    // Beside it: a pod on another node, one tolerating the taint forever, and one for longer than a timer can wait.
    await runPods(held, pod('elsewhere', OTHER), pod('forever', NODE, tolerating()), pod('patient', NODE, tolerating(3_000_000)));
    await taint(NODE);
    try {
      const evicted = await eventually('the untolerant pod to be deleted', async () => {
        const r = await server().request('GET', '/api/v1/namespaces/default/pods/untolerant');
        return r.json?.metadata?.deletionTimestamp && r.json;
      }, 15_000);
      const condition = evicted.status.conditions.find((c: { type: string }) => c.type === 'DisruptionTarget');
      assert.deepEqual(
        { status: condition?.status, reason: condition?.reason, message: condition?.message },
        { status: 'True', reason: 'DeletionByTaintManager', message: 'Taint manager: deleting due to NoExecute taint' },
      );
      const events = await eventually('the TaintManagerEviction event', async () => {
        const list = await eventsAbout('untolerant');
        return list.some((e) => e.reason === 'TaintManagerEviction') && list;
      }, 10_000);
      const marking = events.find((e) => e.reason === 'TaintManagerEviction')!;
      assert.equal(marking.message, 'Marking for deletion Pod default/untolerant');
      assert.equal(marking.source?.component, 'taint-eviction-controller');
      assert.equal((await server().request('PATCH', '/api/v1/namespaces/default/pods/untolerant', { metadata: { finalizers: null } }, { headers: { 'content-type': 'application/merge-patch+json' } })).status, 200);
      await eventually('the evicted pod to be gone', async () => !(await exists('untolerant')), 15_000);
      // A toleration without tolerationSeconds keeps its pod for good; a pod on another node is not touched.
      await new Promise((r) => setTimeout(r, 1500));
      assert.ok(await exists('forever'), 'a pod tolerating the taint forever stays');
      assert.ok(await exists('patient'), 'a pod tolerating the taint for 35 days stays');
      assert.ok(await exists('elsewhere'), 'a pod on an untainted node stays');
    } finally {
      await taint(NODE, true);
    }
  });

  it('evicts tolerating pods when their tolerationSeconds are up, the shortest first', async () => {
    await runPods(pod('short', NODE, tolerating(2)), pod('long', NODE, tolerating(5)));
    const tainted = Date.now();
    await taint(NODE);
    try {
      await new Promise((r) => setTimeout(r, 1000));
      assert.ok(await exists('short') && await exists('long'), 'both still there before their time');
      await eventually('the 2 s pod to be gone', async () => !(await exists('short')), 15_000, 100);
      const shortGone = Date.now() - tainted;
      assert.ok(shortGone >= 1900, `the 2 s pod went after ${shortGone} ms`);
      assert.ok(await exists('long'), 'the 5 s pod is still there when the 2 s one goes');
      await eventually('the 5 s pod to be gone', async () => !(await exists('long')), 15_000, 100);
      const longGone = Date.now() - tainted;
      assert.ok(longGone >= 4900, `the 5 s pod went after ${longGone} ms`);
    } finally {
      await taint(NODE, true);
    }
  });

  it('cancels a waiting eviction when the taint is removed', async () => {
    await runPods(pod('spared', NODE, tolerating(10)));
    const tainted = Date.now();
    await taint(NODE);
    await new Promise((r) => setTimeout(r, 1000));
    await taint(NODE, true);
    await eventually('the cancelling event', async () => (await eventsAbout('spared')).some((e) => e.reason === 'TaintManagerEviction' && e.message === 'Cancelling deletion of Pod default/spared'), 10_000);
    // Past the toleration time: the pod is still there, never marked.
    await new Promise((r) => setTimeout(r, Math.max(0, tainted + 11_000 - Date.now())));
    const r = await server().request('GET', '/api/v1/namespaces/default/pods/spared');
    assert.equal(r.status, 200);
    assert.equal(r.json.metadata.deletionTimestamp, undefined);
  });

  it('`--controllers -taint-eviction-controller` is accepted by name, as kube-controller-manager names it', async () => {
    const { parseControllerList, controllerEnabled } = await import('../../src/pcluster/workload-controllers.js');
    assert.equal(controllerEnabled('taint-eviction-controller', parseControllerList('*,-taint-eviction-controller')), false);
    assert.equal(controllerEnabled('taint-eviction-controller', parseControllerList('*')), true);
  });
});
