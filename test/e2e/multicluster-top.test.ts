/**
 * `kubectl top pods|nodes` in a workspace with compute, with the real kubectl 1.32: the workspace serves
 * metrics.k8s.io (discovered as metrics-server's APIService is) and a read-only view of its clusters' Nodes, both
 * gathered from the simulated clusters' own metrics API — in push mode (atrium dials the cluster) and none mode (an
 * `atrium syncer` process; the reads go through its tunnel). Pods show with their workspace names, nodes as
 * `<SyncTarget>--<node>` (the spec.nodeName of the pods running there); RBAC is the workspace's; a cluster that cannot be reached is left out with a warning.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFleet, type InProcessFleet } from '../helpers/fleet.js';
import { eventually } from '../helpers/eventually.js';
import { runKubectl, writeTokenKubeconfig } from '../helpers/harness.js';

const podsGVR = { group: '', version: 'v1', resource: 'pods' };
const clusters = { push: 'top-push', none: 'top-none' } as const;

/** The rows of kubectl top's table (header dropped), split on whitespace. */
const rows = (stdout: string): string[][] => stdout.trim().split('\n').slice(1).filter(Boolean).map((l) => l.trim().split(/\s+/));

describe('kubectl top in a workspace reads its clusters\' metrics', () => {
  let fleet: InProcessFleet;
  let dir: string;
  let bob: string;
  const kubectl = (args: string[]) => runKubectl(fleet.kubeconfig, args);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'atrium-top-'));
    const tokens = join(dir, 'tokens.csv');
    writeFileSync(tokens, 'bob-token,bob,bob-uid,""\n');
    fleet = await startFleet({
      name: 'top',
      clusters: [{ name: clusters.push, nodes: 2 }, { name: clusters.none }],
      register: false,
      server: { tokenAuthFile: tokens },
      multicluster: { heartbeatThresholdMs: 5000, pushSyncer: { heartbeatIntervalMs: 500, importPollIntervalMs: 500 } },
      syncer: { heartbeatInterval: '500ms', importPollInterval: '500ms' },
    });
    await fleet.register(clusters.push, { mode: 'push' });
    await fleet.register(clusters.none, { mode: 'none' });
    await fleet.waitReady(undefined, { resources: ['pods'], timeoutMs: 60_000 });
    bob = writeTokenKubeconfig(fleet.atrium, dir, 'bob', 'bob-token');
    await kubectl(['create', 'namespace', 'other']);
    const pods = [
      { name: 'web-push', namespace: 'default', cluster: clusters.push, labels: { app: 'web' }, cpu: '40' },
      { name: 'web-none', namespace: 'default', cluster: clusters.none, labels: { app: 'web' }, cpu: '60' },
      { name: 'db', namespace: 'other', cluster: clusters.none, labels: { app: 'db' }, cpu: '10' },
    ];
    for (const p of pods) {
      await fleet.up.create(podsGVR, {
        metadata: { name: p.name, namespace: p.namespace, labels: { ...p.labels, 'workload.kcp.io/cluster': p.cluster }, annotations: { 'sim.atrium.io/cpu-utilization': p.cpu } },
        spec: { containers: [{ name: 'main', image: 'nginx', resources: { requests: { cpu: '500m', memory: '100Mi' } } }, { name: 'side', image: 'busybox' }] },
      }, { namespace: p.namespace });
    }
    for (const p of pods) {
      await eventually(`${p.name} running upstream`, async () => ((await fleet.up.get(podsGVR, p.name, { namespace: p.namespace })) as { status?: { phase?: string } }).status?.phase === 'Running', 60_000);
    }
  });

  after(async () => {
    await fleet?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('discovers metrics.k8s.io/v1beta1 with pods and nodes (get, list), as metrics-server\'s APIService', async () => {
    const r = await kubectl(['api-resources', '--api-group=metrics.k8s.io', '-o', 'wide']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^nodes\s+metrics\.k8s\.io\/v1beta1\s+false\s+NodeMetrics\s+get,list/m);
    assert.match(r.stdout, /^pods\s+metrics\.k8s\.io\/v1beta1\s+true\s+PodMetrics\s+get,list/m);
  });

  it('top pods: the workspace\'s pods from both clusters, by namespace, label and name, with containers', async () => {
    const top = await eventually('metrics of both pods', async () => {
      const r = await kubectl(['top', 'pods']);
      return r.code === 0 && /web-push/.test(r.stdout) && /web-none/.test(r.stdout) && r;
    }, 30_000, 1000);
    const byName = new Map(rows(top.stdout).map((r) => [r[0], r]));
    assert.deepEqual([...byName.keys()].sort(), ['web-none', 'web-push'], top.stdout);
    // The pod's utilization of each container's request: 40% and 60% of `main`'s 500m and of `side`'s 100m (the
    // simulation's default without a request).
    assert.equal(byName.get('web-push')![1], '240m');
    assert.equal(byName.get('web-none')![1], '360m');
    const all = await kubectl(['top', 'pods', '-A']);
    assert.deepEqual(rows(all.stdout).map((r) => `${r[0]}/${r[1]}`).sort(), ['default/web-none', 'default/web-push', 'other/db']);
    const selected = await kubectl(['top', 'pods', '-A', '-l', 'app=db']);
    assert.deepEqual(rows(selected.stdout).map((r) => r[1]), ['db']);
    const fieldSelected = await kubectl(['top', 'pods', '--field-selector', 'metadata.name=web-none']);
    assert.deepEqual(rows(fieldSelected.stdout).map((r) => r[0]), ['web-none']);
    const one = await kubectl(['top', 'pod', 'web-none', '--containers']);
    assert.equal(one.code, 0, one.stderr);
    assert.deepEqual(rows(one.stdout).map((r) => `${r[0]}/${r[1]}/${r[2]}`), ['web-none/main/300m', 'web-none/side/60m']);
    const missing = await kubectl(['top', 'pod', 'no-such-pod']);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /podmetrics.metrics.k8s.io "no-such-pod" not found/);
    const json = JSON.parse((await kubectl(['get', '--raw', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/web-push'])).stdout) as { kind: string; metadata: { name: string; namespace: string; labels: Record<string, string> } };
    assert.equal(json.kind, 'PodMetrics');
    assert.deepEqual([json.metadata.namespace, json.metadata.name, json.metadata.labels.app], ['default', 'web-push', 'web']);
  });

  it('top pods: a mirrored pod (a Deployment\'s, made by its cluster) under the name the workspace mirrors it as', async () => {
    await fleet.up.create({ group: 'apps', version: 'v1', resource: 'deployments' }, {
      metadata: { name: 'dep', namespace: 'default', labels: { 'workload.kcp.io/cluster': clusters.none } },
      spec: { replicas: 1, selector: { matchLabels: { app: 'dep' } }, template: { metadata: { labels: { app: 'dep' }, annotations: { 'sim.atrium.io/cpu-utilization': '20' } }, spec: { containers: [{ name: 'main', image: 'nginx', resources: { requests: { cpu: '500m' } } }] } } },
    }, { namespace: 'default' });
    const mirror = await eventually('the Deployment\'s pod mirrored and Running', async () => {
      const list = await fleet.up.list(podsGVR, { namespace: 'default' }, { labelSelector: 'app=dep' });
      return list.items.find((p) => (p as { status?: { phase?: string } }).status?.phase === 'Running');
    }, 90_000);
    const name = mirror.metadata!.name!;
    const top = await eventually('metrics of the mirrored pod', async () => {
      const r = await kubectl(['top', 'pods', '-l', 'app=dep']);
      return r.code === 0 && r.stdout.includes(name) && r;
    }, 30_000, 1000);
    assert.deepEqual(rows(top.stdout).map((r) => `${r[0]} ${r[1]}`), [`${name} 100m`]);
  });

  it('top nodes: every cluster\'s nodes as <SyncTarget>--<node>, with the Nodes view for their allocatable', async () => {
    const nodes = await eventually('metrics of every node', async () => {
      const r = await kubectl(['top', 'nodes']);
      return r.code === 0 && rows(r.stdout).length === 3 && r;
    }, 30_000, 1000);
    const names = rows(nodes.stdout).map((r) => r[0]!).sort();
    assert.equal(names.filter((n) => n.startsWith(`${clusters.push}--`)).length, 2, nodes.stdout);
    assert.equal(names.filter((n) => n.startsWith(`${clusters.none}--`)).length, 1, nodes.stdout);
    // CPU%: usage over the Node's allocatable, which kubectl reads from the Nodes view.
    for (const row of rows(nodes.stdout)) assert.match(row[2]!, /^\d+%$/, nodes.stdout);
    const one = await kubectl(['top', 'node', names[0]!]);
    assert.equal(one.code, 0, one.stderr);
    assert.equal(rows(one.stdout)[0]![0], names[0]);
    const get = await kubectl(['get', 'nodes', '-o', 'name']);
    assert.deepEqual(get.stdout.trim().split('\n').sort(), names.map((n) => `node/${n}`));
    const del = await kubectl(['delete', 'node', names[0]!]);
    assert.notEqual(del.code, 0, 'the Nodes view is read-only');
    const missing = await kubectl(['top', 'node', `${clusters.push}--no-such-node`]);
    assert.match(missing.stderr, /nodemetrics.metrics.k8s.io "top-push--no-such-node" not found/);
  });

  it('a pod\'s spec.nodeName is the name of its node here: get pods -o wide, describe node and top node agree', async () => {
    // A bare Pod (bound upstream by the syncer) and a mirrored one (a Deployment's pod, made by its cluster).
    const mirrored = (await fleet.up.list(podsGVR, { namespace: 'default' }, { labelSelector: 'app=dep' })).items[0]!.metadata!.name!;
    const wide = await kubectl(['get', 'pods', '-o', 'wide']);
    assert.equal(wide.code, 0, wide.stderr);
    const header = wide.stdout.split('\n')[0]!.trim().split(/\s+/);
    const nodeColumn = new Map(rows(wide.stdout).map((r) => [r[0]!, r[header.indexOf('NODE')]!]));
    for (const [pod, cluster] of [['web-push', clusters.push], ['web-none', clusters.none], [mirrored, clusters.none]] as const) {
      const nodeName = (await kubectl(['get', 'pod', pod, '-o', 'jsonpath={.spec.nodeName}'])).stdout;
      assert.match(nodeName, new RegExp(`^${cluster}--\\S+$`), `${pod}: spec.nodeName is <SyncTarget>--<node>`);
      assert.equal(nodeColumn.get(pod), nodeName, `${pod}: the NODE column of -o wide`);
      const describe = await kubectl(['describe', 'node', nodeName]);
      assert.equal(describe.code, 0, `describe node ${nodeName}: ${describe.stderr}`);
      assert.match(describe.stdout, new RegExp(`^Name:\\s+${nodeName}$`, 'm'));
      // describe lists the node's pods by the field selector spec.nodeName=<node>: the pod is among them.
      assert.match(describe.stdout, new RegExp(`^Non-terminated Pods:[^]*\\s${pod}\\s`, 'm'), describe.stdout);
      const top = await eventually(`top node ${nodeName}`, async () => {
        const r = await kubectl(['top', 'node', nodeName]);
        return r.code === 0 && r;
      }, 30_000, 1000);
      assert.equal(rows(top.stdout)[0]![0], nodeName);
    }
  });

  it('checks RBAC in the workspace: get/list on pods.metrics.k8s.io, nodes.metrics.k8s.io', async () => {
    await kubectl(['create', 'role', 'pod-metrics-reader', '--verb=get,list', '--resource=pods.metrics.k8s.io,pods']);
    await kubectl(['create', 'rolebinding', 'bob-pod-metrics', '--role=pod-metrics-reader', '--user=bob']);
    const top = await eventually('bob reads pod metrics', async () => {
      const r = await runKubectl(bob, ['top', 'pods']);
      return r.code === 0 && r;
    }, 20_000, 500);
    assert.deepEqual(rows(top.stdout).map((r) => r[0]).filter((n) => n.startsWith('web-')), ['web-none', 'web-push']);
    const other = await runKubectl(bob, ['top', 'pods', '-n', 'other']);
    assert.match(other.stderr, /User "bob" cannot list resource "pods" in API group "metrics.k8s.io" in the namespace "other"/);
    const nodes = await runKubectl(bob, ['top', 'nodes']);
    assert.match(nodes.stderr, /User "bob" cannot list resource "nodes" in API group "metrics.k8s.io" at the cluster scope/);
  });

  it('leaves out a cluster that cannot be reached, with a warning, and reads it again once it is back', async () => {
    const syncer = fleet.cluster(clusters.none).syncer!;
    await syncer.kill('SIGKILL');
    try {
      const top = await eventually('the none cluster left out', async () => {
        const r = await kubectl(['top', 'pods']);
        return r.code === 0 && !/web-none/.test(r.stdout) && r;
      }, 20_000, 500);
      assert.deepEqual(rows(top.stdout).map((r) => r[0]), ['web-push']);
      assert.match(top.stderr, /Warning: pods.metrics.k8s.io of SyncTarget top-none are left out: error dialing backend: no tunnel from the syncer is connected/);
      const nodes = await kubectl(['top', 'nodes']);
      assert.equal(nodes.code, 0, nodes.stderr);
      assert.equal(rows(nodes.stdout).length, 2);
      const one = await kubectl(['top', 'pod', 'web-none']);
      assert.match(one.stderr, /Error from server \(ServiceUnavailable\): error dialing backend: no tunnel from the syncer is connected/);
    } finally {
      await syncer.start();
    }
    await eventually('the none cluster read again', async () => /web-none/.test((await kubectl(['top', 'pods'])).stdout), 30_000, 500);
  });
});
