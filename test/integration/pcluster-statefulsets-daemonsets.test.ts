/**
 * The StatefulSet and DaemonSet controllers in a real simulated cluster (3 nodes): stable names and claims, ordered
 * creation and reverse scale-down, Parallel, revisions and partitioned rolling updates, OnDelete, claim retention;
 * one daemon pod per qualifying node (nodeSelector, taints, cordoned nodes), pinned by node affinity, rolling updates
 * with maxUnavailable and maxSurge, and both kinds' status.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harnessFor, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { startPcluster } from '../../src/pcluster/pcluster.js';

let ts: TestServer;
const apps = '/apis/apps/v1/namespaces/default';
const core = '/api/v1/namespaces/default';
const merge = { headers: { 'Content-Type': 'application/merge-patch+json' } };

before(async () => {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-pcluster-sts-'));
  const cluster = await startPcluster({ name: 'sd', rootDir, bindAddress: '127.0.0.1', securePort: 0, nodes: 3, readyDelayMs: 300 });
  ts = harnessFor(cluster, rootDir, async () => {
    await cluster.stop();
    rmSync(rootDir, { recursive: true, force: true });
  });
});

after(async () => {
  await ts?.stop();
});

function statefulSet(name: string, replicas: number, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name },
    spec: {
      replicas,
      serviceName: name,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] } },
      ...extra,
    },
  };
}

const podsOf = async (app: string): Promise<any[]> => (await ts.request('GET', `${core}/pods?labelSelector=app%3D${app}`)).json.items;
const ready = (p: any) => p.status?.phase === 'Running' && p.status.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True');

/** Resolves once the set is rolled out for its generation: what `kubectl rollout status` waits for. */
async function stsRolledOut(name: string, timeoutMs = 30_000): Promise<any> {
  return eventually(`${name} rolled out`, async () => {
    const s = (await ts.request('GET', `${apps}/statefulsets/${name}`)).json;
    const st = s.status ?? {};
    const done = st.observedGeneration >= s.metadata.generation && (st.readyReplicas ?? 0) >= s.spec.replicas && (st.updatedReplicas ?? 0) >= s.spec.replicas - (s.spec.updateStrategy.rollingUpdate?.partition ?? 0) && (st.replicas ?? 0) === s.spec.replicas;
    return done ? s : undefined;
  }, timeoutMs, 50);
}

describe('StatefulSet controller', () => {
  it('creates pods in order, each Running and Ready before the next, with claims, identity and a revision', async () => {
    const created = await ts.request('POST', `${apps}/statefulsets`, statefulSet('web', 3, {
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
    }));
    assert.equal(created.status, 201, created.text);
    // Watch the order: at every observation the pods are a prefix 0..k and all but the newest are ready.
    const violations: string[] = [];
    const seenCounts = new Set<number>();
    await eventually('3 ready pods', async () => {
      const pods = (await podsOf('web')).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
      const names = pods.map((p) => p.metadata.name);
      const expected = names.map((_, i) => `web-${i}`);
      if (JSON.stringify(names) !== JSON.stringify(expected)) violations.push(`not a prefix: ${names}`);
      pods.slice(0, -1).forEach((p) => !ready(p) && violations.push(`${p.metadata.name} not ready while a successor exists`));
      seenCounts.add(pods.length);
      return pods.length === 3 && pods.every(ready);
    }, 30_000, 25);
    assert.deepEqual(violations, []);
    assert.ok(seenCounts.has(1) && seenCounts.has(2), `saw intermediate states: ${[...seenCounts]}`);

    const s = await stsRolledOut('web');
    const revs = (await ts.request('GET', `${apps}/controllerrevisions`)).json.items.filter((r: any) => r.metadata.ownerReferences?.[0]?.name === 'web');
    assert.equal(revs.length, 1);
    const rev = revs[0];
    assert.equal(rev.revision, 1);
    assert.equal(rev.metadata.name, s.status.updateRevision);
    assert.equal(rev.metadata.name, `web-${rev.metadata.labels['controller.kubernetes.io/hash']}`);
    assert.equal(rev.metadata.labels.app, 'web');
    assert.equal(rev.data.spec.template.$patch, 'replace');
    assert.deepEqual(rev.metadata.ownerReferences[0], { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: s.metadata.uid, controller: true, blockOwnerDeletion: true });
    assert.deepEqual(
      { ...s.status },
      { observedGeneration: 1, replicas: 3, readyReplicas: 3, currentReplicas: 3, updatedReplicas: 3, currentRevision: rev.metadata.name, updateRevision: rev.metadata.name, collisionCount: 0, availableReplicas: 3 },
    );

    for (const [i, p] of (await podsOf('web')).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name)).entries()) {
      assert.equal(p.metadata.name, `web-${i}`);
      assert.equal(p.metadata.labels['statefulset.kubernetes.io/pod-name'], `web-${i}`);
      assert.equal(p.metadata.labels['apps.kubernetes.io/pod-index'], String(i));
      assert.equal(p.metadata.labels['controller-revision-hash'], rev.metadata.name);
      assert.equal(p.spec.hostname, `web-${i}`);
      assert.equal(p.spec.subdomain, 'web');
      assert.deepEqual(p.spec.volumes[0], { name: 'data', persistentVolumeClaim: { claimName: `data-web-${i}` } });
      const claim = (await ts.request('GET', `${core}/persistentvolumeclaims/data-web-${i}`)).json;
      assert.equal(claim.metadata.labels.app, 'web');
      assert.deepEqual(claim.spec.resources, { requests: { storage: '1Gi' } });
      // Retain/Retain: no owner, the claim outlives the set.
      assert.equal(claim.metadata.ownerReferences, undefined);
    }
  });

  it('rolls a template change out from the highest ordinal down, one pod at a time, then records the new revision', async () => {
    const before = (await ts.request('GET', `${apps}/statefulsets/web`)).json;
    const r = await ts.request('PATCH', `${apps}/statefulsets/web`, { spec: { template: { spec: { containers: [{ name: 'main', image: 'nginx:1.28' }] } } } }, { headers: { 'Content-Type': 'application/strategic-merge-patch+json' } });
    assert.equal(r.status, 200, r.text);
    const order: string[] = [];
    let maxNotReady = 0;
    await eventually('all pods updated', async () => {
      const pods = await podsOf('web');
      maxNotReady = Math.max(maxNotReady, 3 - pods.filter(ready).length);
      for (const p of pods) if (p.spec.containers[0].image === 'nginx:1.28' && !order.includes(p.metadata.name)) order.push(p.metadata.name);
      return order.length === 3 && pods.length === 3 && pods.every(ready);
    }, 40_000, 25);
    assert.deepEqual(order, ['web-2', 'web-1', 'web-0']);
    assert.ok(maxNotReady <= 1, `at most one pod down at a time (saw ${maxNotReady})`);
    const s = await eventually('current revision moved', async () => {
      const x = (await ts.request('GET', `${apps}/statefulsets/web`)).json;
      return x.status.currentRevision === x.status.updateRevision && x.status.updateRevision !== before.status.updateRevision ? x : undefined;
    });
    assert.equal(s.status.currentReplicas, 3);
    const revs = (await ts.request('GET', `${apps}/controllerrevisions`)).json.items.filter((x: any) => x.metadata.ownerReferences?.[0]?.name === 'web');
    assert.deepEqual(revs.map((x: any) => x.revision).sort(), [1, 2]);
  });

  it('updates only ordinals at or above the partition', async () => {
    const p = await ts.request('PATCH', `${apps}/statefulsets/web`, { spec: { updateStrategy: { rollingUpdate: { partition: 2 } }, template: { spec: { containers: [{ name: 'main', image: 'nginx:1.29' }] } } } }, { headers: { 'Content-Type': 'application/strategic-merge-patch+json' } });
    assert.equal(p.status, 200, p.text);
    const s = await stsRolledOut('web');
    assert.equal(s.status.updatedReplicas, 1);
    assert.notEqual(s.status.currentRevision, s.status.updateRevision);
    const images = Object.fromEntries((await podsOf('web')).map((x) => [x.metadata.name, x.spec.containers[0].image]));
    assert.deepEqual(images, { 'web-0': 'nginx:1.28', 'web-1': 'nginx:1.28', 'web-2': 'nginx:1.29' });
    // Lowering the partition finishes the rollout.
    assert.equal((await ts.request('PATCH', `${apps}/statefulsets/web`, { spec: { updateStrategy: { rollingUpdate: { partition: 0 } } } }, merge)).status, 200);
    await eventually('all at 1.29', async () => (await podsOf('web')).every((x) => x.spec.containers[0].image === 'nginx:1.29' && ready(x)) && (await podsOf('web')).length === 3, 40_000);
    const done = await stsRolledOut('web');
    await eventually('revision complete', async () => {
      const x = (await ts.request('GET', `${apps}/statefulsets/web`)).json;
      return x.status.currentRevision === x.status.updateRevision;
    });
    assert.equal(done.status.updatedReplicas, 3);
  });

  it('scales down in reverse order and keeps the claims (Retain)', async () => {
    assert.equal((await ts.request('PATCH', `${apps}/statefulsets/web/scale`, { spec: { replicas: 1 } }, merge)).status, 200);
    const seen: string[][] = [];
    await eventually('one pod left', async () => {
      const names = (await podsOf('web')).map((x) => x.metadata.name).sort();
      if (JSON.stringify(seen.at(-1)) !== JSON.stringify(names)) seen.push(names);
      return names.length === 1;
    }, 30_000, 25);
    assert.deepEqual(seen.at(-1), ['web-0']);
    assert.ok(seen.every((names) => !(names.includes('web-2') && !names.includes('web-1'))), `web-2 goes before web-1: ${JSON.stringify(seen)}`);
    // The controller's Events tell the order too: the last deletion of web-2 precedes the last of web-1.
    const events = (await ts.request('GET', `${core}/events`)).json.items.filter((e: any) => e.involvedObject.name === 'web' && e.reason === 'SuccessfulDelete');
    const lastDelete = (pod: string) => events.filter((e: any) => e.message === `delete Pod ${pod} in StatefulSet web successful`).map((e: any) => BigInt(`0x${e.metadata.name.split('.').pop()}`)).reduce((a: bigint, b: bigint) => (b > a ? b : a), 0n);
    assert.ok(lastDelete('web-2') > 0n && lastDelete('web-2') < lastDelete('web-1'), 'web-2 deleted before web-1');
    for (const i of [0, 1, 2]) assert.equal((await ts.request('GET', `${core}/persistentvolumeclaims/data-web-${i}`)).status, 200);
    const s = await stsRolledOut('web');
    assert.equal(s.status.replicas, 1);
  });

  it('creates Parallel pods without waiting and deletes claims of scaled-down pods with whenScaled=Delete', async () => {
    const created = await ts.request('POST', `${apps}/statefulsets`, statefulSet('par', 3, {
      podManagementPolicy: 'Parallel',
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Delete' },
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
    }));
    assert.equal(created.status, 201, created.text);
    const allBeforeReady = await eventually('3 pods exist', async () => {
      const pods = await podsOf('par');
      return pods.length === 3 ? pods : undefined;
    }, 20_000, 20);
    assert.ok(allBeforeReady.filter(ready).length < 3, 'all three pods existed before all were ready');
    const s = await stsRolledOut('par');
    const claim = (await ts.request('GET', `${core}/persistentvolumeclaims/data-par-2`)).json;
    assert.deepEqual(claim.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'par', uid: s.metadata.uid }]);
    assert.equal((await ts.request('PATCH', `${apps}/statefulsets/par/scale`, { spec: { replicas: 1 } }, merge)).status, 200);
    await eventually('claims of scaled-down pods deleted', async () => {
      const claims = (await ts.request('GET', `${core}/persistentvolumeclaims`)).json.items.map((c: any) => c.metadata.name).filter((n: string) => n.startsWith('data-par-'));
      return claims.length === 1 && claims[0] === 'data-par-0';
    }, 30_000);
    // whenDeleted=Delete: deleting the set deletes the remaining claim too.
    assert.equal((await ts.request('DELETE', `${apps}/statefulsets/par`)).status, 200);
    await eventually('claim of the deleted set gone', async () => (await ts.request('GET', `${core}/persistentvolumeclaims/data-par-0`)).status === 404, 30_000);
  });

  it('with OnDelete, updates a pod only when it is deleted', async () => {
    assert.equal((await ts.request('POST', `${apps}/statefulsets`, statefulSet('od', 2, { updateStrategy: { type: 'OnDelete' } }))).status, 201);
    await stsRolledOut('od');
    assert.equal((await ts.request('PATCH', `${apps}/statefulsets/od`, { spec: { template: { spec: { containers: [{ name: 'main', image: 'nginx:1.28' }] } } } }, { headers: { 'Content-Type': 'application/strategic-merge-patch+json' } })).status, 200);
    await new Promise((r) => setTimeout(r, 1000));
    assert.deepEqual((await podsOf('od')).map((p) => p.spec.containers[0].image), ['nginx:1.27', 'nginx:1.27']);
    const old = (await ts.request('GET', `${core}/pods/od-1`)).json;
    assert.equal((await ts.request('DELETE', `${core}/pods/od-1`)).status, 200);
    const fresh = await eventually('od-1 recreated', async () => {
      const p = (await ts.request('GET', `${core}/pods/od-1`)).json;
      return p.metadata?.uid && p.metadata.uid !== old.metadata.uid && ready(p) ? p : undefined;
    }, 20_000);
    assert.equal(fresh.spec.containers[0].image, 'nginx:1.28');
    const s = (await ts.request('GET', `${apps}/statefulsets/od`)).json;
    assert.equal(fresh.metadata.labels['controller-revision-hash'], s.status.updateRevision);
  });
});

function daemonSet(name: string, extra: Record<string, unknown> = {}, template: Record<string, unknown> = {}) {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'agent', image: 'fluentd:1' }], ...template } },
      ...extra,
    },
  };
}

async function dsRolledOut(name: string, desired: number, timeoutMs = 30_000): Promise<any> {
  return eventually(`${name} rolled out`, async () => {
    const d = (await ts.request('GET', `${apps}/daemonsets/${name}`)).json;
    const st = d.status ?? {};
    return st.observedGeneration >= d.metadata.generation && st.desiredNumberScheduled === desired && st.updatedNumberScheduled === desired && st.numberAvailable === desired ? d : undefined;
  }, timeoutMs, 50);
}

describe('DaemonSet controller', () => {
  it('runs one pod per node, pinned by node affinity, with the daemon tolerations and a revision', async () => {
    assert.equal((await ts.request('POST', `${apps}/daemonsets`, daemonSet('agent'))).status, 201);
    const d = await dsRolledOut('agent', 3);
    assert.deepEqual(
      { ...d.status },
      { currentNumberScheduled: 3, numberMisscheduled: 0, desiredNumberScheduled: 3, numberReady: 3, observedGeneration: 1, updatedNumberScheduled: 3, numberAvailable: 3 },
    );
    const pods = await podsOf('agent');
    assert.deepEqual(pods.map((p) => p.spec.nodeName).sort(), ['sd-node-1', 'sd-node-2', 'sd-node-3']);
    const revs = (await ts.request('GET', `${apps}/controllerrevisions`)).json.items.filter((r: any) => r.metadata.ownerReferences?.[0]?.name === 'agent');
    assert.equal(revs.length, 1);
    const hash = revs[0].metadata.labels['controller-revision-hash'];
    assert.equal(revs[0].metadata.name, `agent-${hash}`);
    for (const p of pods) {
      assert.equal(p.metadata.generateName, 'agent-');
      assert.equal(p.metadata.labels['controller-revision-hash'], hash);
      assert.equal(p.metadata.labels['pod-template-generation'], '1');
      assert.deepEqual(p.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution, {
        nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [p.spec.nodeName] }] }],
      });
      const tolerations = p.spec.tolerations.map((t: any) => `${t.key}:${t.effect}`);
      for (const t of ['node.kubernetes.io/not-ready:NoExecute', 'node.kubernetes.io/unreachable:NoExecute', 'node.kubernetes.io/unschedulable:NoSchedule', 'node.kubernetes.io/disk-pressure:NoSchedule']) assert.ok(tolerations.includes(t), t);
    }
  });

  it('follows nodeSelector, taints and cordoning', async () => {
    assert.equal((await ts.request('PATCH', '/api/v1/nodes/sd-node-2', { metadata: { labels: { disk: 'ssd' } } }, merge)).status, 200);
    assert.equal((await ts.request('POST', `${apps}/daemonsets`, daemonSet('ssd', {}, { nodeSelector: { disk: 'ssd' } }))).status, 201);
    await dsRolledOut('ssd', 1);
    assert.deepEqual((await podsOf('ssd')).map((p) => p.spec.nodeName), ['sd-node-2']);

    // A NoSchedule taint keeps new daemon pods away but leaves running ones; a cordoned node still runs them.
    assert.equal((await ts.request('PATCH', '/api/v1/nodes/sd-node-3', { spec: { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] } }, merge)).status, 200);
    assert.equal((await ts.request('PATCH', '/api/v1/nodes/sd-node-1', { spec: { unschedulable: true } }, merge)).status, 200);
    assert.equal((await ts.request('POST', `${apps}/daemonsets`, daemonSet('late'))).status, 201);
    await dsRolledOut('late', 2);
    assert.deepEqual((await podsOf('late')).map((p) => p.spec.nodeName).sort(), ['sd-node-1', 'sd-node-2']);
    const agent = (await ts.request('GET', `${apps}/daemonsets/agent`)).json;
    assert.equal(agent.status.numberMisscheduled, 1, 'the pod on the tainted node keeps running but is misscheduled');
    assert.equal((await podsOf('agent')).length, 3);
    // NoExecute evicts it.
    assert.equal((await ts.request('PATCH', '/api/v1/nodes/sd-node-3', { spec: { taints: [{ key: 'dedicated', value: 'db', effect: 'NoExecute' }] } }, merge)).status, 200);
    await eventually('agent pod leaves the NoExecute node', async () => (await podsOf('agent')).every((p) => p.spec.nodeName !== 'sd-node-3'), 20_000);
    assert.equal((await ts.request('PATCH', '/api/v1/nodes/sd-node-3', { spec: { taints: null } }, merge)).status, 200);
    assert.equal((await ts.request('PATCH', '/api/v1/nodes/sd-node-1', { spec: { unschedulable: null } }, merge)).status, 200);
    await dsRolledOut('late', 3);
    await dsRolledOut('agent', 3);
  });

  it('rolls a template change out within maxUnavailable, then with maxSurge', async () => {
    assert.equal((await ts.request('PATCH', `${apps}/daemonsets/agent`, { spec: { template: { spec: { containers: [{ name: 'agent', image: 'fluentd:2' }] } } } }, { headers: { 'Content-Type': 'application/strategic-merge-patch+json' } })).status, 200);
    let minAvailable = 3;
    await eventually('all agents at fluentd:2', async () => {
      const pods = await podsOf('agent');
      minAvailable = Math.min(minAvailable, pods.filter((p) => ready(p) && !p.metadata.deletionTimestamp).length);
      return pods.length === 3 && pods.every((p) => p.spec.containers[0].image === 'fluentd:2' && ready(p));
    }, 40_000, 25);
    assert.ok(minAvailable >= 2, `maxUnavailable 1 keeps two available (saw ${minAvailable})`);
    const d = await dsRolledOut('agent', 3);
    assert.equal(d.metadata.annotations['deprecated.daemonset.template.generation'], '2');
    assert.equal((await podsOf('agent'))[0].metadata.labels['pod-template-generation'], '2');

    assert.equal((await ts.request('PATCH', `${apps}/daemonsets/agent`, { spec: { updateStrategy: { rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } }, template: { spec: { containers: [{ name: 'agent', image: 'fluentd:3' }] } } } }, { headers: { 'Content-Type': 'application/strategic-merge-patch+json' } })).status, 200);
    let maxPods = 0;
    let minReady = 3;
    await eventually('all agents at fluentd:3', async () => {
      const pods = await podsOf('agent');
      maxPods = Math.max(maxPods, pods.length);
      minReady = Math.min(minReady, pods.filter(ready).length);
      return pods.length === 3 && pods.every((p) => p.spec.containers[0].image === 'fluentd:3' && ready(p));
    }, 40_000, 25);
    assert.equal(maxPods, 4, 'one surge pod at a time');
    assert.ok(minReady >= 3, 'maxUnavailable 0 keeps every node served');
    await dsRolledOut('agent', 3);
  });
});
