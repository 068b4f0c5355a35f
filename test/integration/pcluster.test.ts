/**
 * The simulated physical cluster over HTTPS: workload discovery, Deployment → ReplicaSet → Pods through the real
 * controllers, /scale, scheduling by requests (Unschedulable), the kubelet stand-in, validation and Table columns.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harnessFor, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { startPcluster } from '../../src/pcluster/pcluster.js';
import { podNetworkOctet } from '../../src/pcluster/controllers/node-object.js';

let ts: TestServer;
const ns = '/apis/apps/v1/namespaces/default';

function deployment(name: string, replicas: number, image = 'nginx:1.27', extra: Record<string, unknown> = {}) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image, ...extra }] } },
    },
  };
}

/** Resolves once the Deployment is fully rolled out for its current generation (what kubectl rollout status checks). */
async function rolledOut(name: string): Promise<any> {
  return eventually(`${name} rolled out`, async () => {
    const d = (await ts.request('GET', `${ns}/deployments/${name}`)).json;
    const s = d.status ?? {};
    const want = d.spec.replicas;
    const done = s.observedGeneration >= d.metadata.generation && (s.updatedReplicas ?? 0) === want && (s.replicas ?? 0) === want && (s.availableReplicas ?? 0) === want;
    return done ? d : undefined;
  }, 20_000);
}

before(async () => {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-pcluster-'));
  const cluster = await startPcluster({
    name: 'it',
    rootDir,
    bindAddress: '127.0.0.1',
    securePort: 0,
    nodes: 2,
    nodeCapacity: { cpu: '2', memory: '4Gi', pods: '110' },
    readyDelayMs: 300,
    missingImages: /:nonexistent$/,
  });
  ts = harnessFor(cluster, rootDir, async () => {
    await cluster.stop();
    rmSync(rootDir, { recursive: true, force: true });
  });
});

after(async () => {
  await ts?.stop();
});

describe('pcluster workload API', () => {
  it('serves the workload resources in discovery with their subresources', async () => {
    const apps = (await ts.request('GET', '/apis/apps/v1')).json;
    const names = apps.resources.map((r: any) => r.name);
    for (const r of ['deployments', 'deployments/status', 'deployments/scale', 'replicasets', 'replicasets/scale']) assert.ok(names.includes(r), r);
    const scale = apps.resources.find((r: any) => r.name === 'deployments/scale');
    assert.deepEqual([scale.group, scale.version, scale.kind], ['autoscaling', 'v1', 'Scale']);
    const core = (await ts.request('GET', '/api/v1')).json;
    const deploy = apps.resources.find((r: any) => r.name === 'deployments');
    assert.deepEqual(deploy.shortNames, ['deploy']);
    for (const r of ['pods', 'pods/status', 'services', 'nodes', 'nodes/status']) assert.ok(core.resources.some((x: any) => x.name === r), r);
  });

  it('registers Ready nodes with capacity and heartbeat leases', async () => {
    const nodes = (await ts.request('GET', '/api/v1/nodes')).json.items;
    assert.deepEqual(nodes.map((n: any) => n.metadata.name), ['it-node-1', 'it-node-2']);
    for (const n of nodes) {
      assert.equal(n.status.allocatable.cpu, '2');
      assert.equal(n.status.conditions.find((c: any) => c.type === 'Ready').status, 'True');
    }
    const lease = await ts.request('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/it-node-1');
    assert.equal(lease.status, 200);
    assert.equal(lease.json.spec.holderIdentity, 'it-node-1');
  });

  it('defaults a Deployment and rolls it out through a ReplicaSet to Running pods', async () => {
    const created = await ts.request('POST', `${ns}/deployments`, deployment('web', 3));
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.metadata.generation, 1);
    assert.deepEqual(created.json.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
    assert.equal(created.json.spec.revisionHistoryLimit, 10);
    assert.equal(created.json.spec.progressDeadlineSeconds, 600);
    assert.equal(created.json.spec.template.spec.containers[0].imagePullPolicy, 'IfNotPresent');

    const d = await rolledOut('web');
    assert.equal(d.status.readyReplicas, 3);
    const progressing = d.status.conditions.find((c: any) => c.type === 'Progressing');
    assert.equal(progressing.reason, 'NewReplicaSetAvailable');
    assert.match(progressing.message, /^ReplicaSet "web-[a-z0-9]+" has successfully progressed\.$/);
    assert.equal(d.status.conditions.find((c: any) => c.type === 'Available').reason, 'MinimumReplicasAvailable');
    assert.equal(d.metadata.annotations['deployment.kubernetes.io/revision'], '1');

    const rsList = (await ts.request('GET', `${ns}/replicasets`)).json.items.filter((rs: any) => rs.metadata.ownerReferences?.[0]?.name === 'web');
    assert.equal(rsList.length, 1);
    const rs = rsList[0];
    const hash = rs.metadata.labels['pod-template-hash'];
    assert.equal(rs.metadata.name, `web-${hash}`);
    assert.deepEqual(rs.spec.selector.matchLabels, { app: 'web', 'pod-template-hash': hash });
    assert.deepEqual(rs.metadata.ownerReferences[0], { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: d.metadata.uid, controller: true, blockOwnerDeletion: true });

    const pods = (await ts.request('GET', `/api/v1/namespaces/default/pods?labelSelector=pod-template-hash%3D${hash}`)).json.items;
    assert.equal(pods.length, 3);
    for (const p of pods) {
      assert.equal(p.metadata.ownerReferences[0].uid, rs.metadata.uid);
      assert.equal(p.status.phase, 'Running');
      // The cluster's pod network (10.<n>.<node>.0/24, n from its name), each node's range its own.
      assert.match(p.status.podIP, new RegExp(`^10\\.${podNetworkOctet('it')}\\.[12]\\.\\d+$`));
      assert.ok(p.status.podIP.startsWith(`10.${podNetworkOctet('it')}.${p.spec.nodeName === 'it-node-1' ? 1 : 2}.`), `${p.status.podIP} is in ${p.spec.nodeName}'s pod CIDR`);
      assert.match(p.spec.nodeName, /^it-node-[12]$/);
      assert.equal(p.status.conditions.find((c: any) => c.type === 'Ready').status, 'True');
      assert.equal(p.status.containerStatuses[0].ready, true);
    }
    // Request-less pods still spread: scoring counts default requests.
    assert.equal(new Set(pods.map((p: any) => p.spec.nodeName)).size, 2);
  });

  it('scales through /scale and reports the Scale view', async () => {
    const scale = await ts.request('GET', `${ns}/deployments/web/scale`);
    assert.equal(scale.status, 200);
    assert.equal(scale.json.kind, 'Scale');
    assert.equal(scale.json.apiVersion, 'autoscaling/v1');
    assert.deepEqual(scale.json.spec, { replicas: 3 });
    assert.equal(scale.json.status.selector, 'app=web');

    const put = await ts.request('PUT', `${ns}/deployments/web/scale`, { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 5 } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.json.spec.replicas, 5);
    let d = await rolledOut('web');
    assert.equal(d.metadata.generation, 2);
    assert.equal(d.status.availableReplicas, 5);

    const patched = await ts.request('PATCH', `${ns}/deployments/web/scale`, { spec: { replicas: 2 } }, { headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(patched.status, 200, patched.text);
    d = await rolledOut('web');
    assert.equal(d.status.replicas, 2);
    const pods = (await ts.request('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb')).json.items;
    assert.equal(pods.length, 2);

    const negative = await ts.request('PUT', `${ns}/deployments/web/scale`, { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web' }, spec: { replicas: -1 } });
    assert.equal(negative.status, 422);
    assert.equal(negative.json.message, 'Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0');
  });

  it('rolls a template change out to a new ReplicaSet and scales the old one to zero', async () => {
    const before = await rolledOut('web');
    const oldHash = (await ts.request('GET', `${ns}/replicasets`)).json.items.find((rs: any) => rs.spec.replicas > 0 && rs.metadata.ownerReferences[0].name === 'web').metadata.labels['pod-template-hash'];
    const patch = { spec: { template: { spec: { containers: [{ name: 'main', image: 'nginx:1.28' }] } } } };
    const r = await ts.request('PATCH', `${ns}/deployments/web`, patch, { headers: { 'Content-Type': 'application/strategic-merge-patch+json' } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.metadata.generation, before.metadata.generation + 1);
    const d = await rolledOut('web');
    const rsList = (await ts.request('GET', `${ns}/replicasets`)).json.items.filter((rs: any) => rs.metadata.ownerReferences[0].name === 'web');
    assert.equal(rsList.length, 2);
    const [oldRS] = rsList.filter((rs: any) => rs.metadata.labels['pod-template-hash'] === oldHash);
    const [newRS] = rsList.filter((rs: any) => rs.metadata.labels['pod-template-hash'] !== oldHash);
    assert.equal(oldRS.spec.replicas, 0);
    assert.equal(newRS.spec.replicas, 2);
    assert.equal(newRS.spec.template.spec.containers[0].image, 'nginx:1.28');
    assert.equal(newRS.metadata.annotations['deployment.kubernetes.io/revision'], '2');
    assert.equal(d.metadata.annotations['deployment.kubernetes.io/revision'], '2');
  });

  it('keeps a Deployment whose new image the registry lacks mid-rollout in ImagePullBackOff, and finishes once the image is fixed', async () => {
    assert.equal((await ts.request('POST', `${ns}/deployments`, deployment('pull', 2))).status, 201);
    await rolledOut('pull');
    const patch = { spec: { template: { spec: { containers: [{ name: 'main', image: 'nginx:nonexistent' }] } } } };
    assert.equal((await ts.request('PATCH', `${ns}/deployments/pull`, patch, { headers: { 'Content-Type': 'application/strategic-merge-patch+json' } })).status, 200);
    const stuck = await eventually('a new pod in ImagePullBackOff', async () => {
      const pods = (await ts.request('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dpull')).json.items;
      return pods.find((p: any) => p.status.containerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff');
    }, 20_000);
    assert.equal(stuck.status.phase, 'Pending');
    assert.equal(stuck.status.containerStatuses[0].state.waiting.message, 'Back-off pulling image "nginx:nonexistent"');
    assert.equal(stuck.status.conditions.find((c: any) => c.type === 'Ready').status, 'False');
    const events = (await ts.request('GET', `/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3D${stuck.metadata.name}`)).json.items;
    assert.ok(events.some((e: any) => e.reason === 'Failed' && e.message === 'Error: ErrImagePull'), JSON.stringify(events.map((e: any) => e.message)));
    // The rollout is stuck: the old pods keep serving.
    const d = (await ts.request('GET', `${ns}/deployments/pull`)).json;
    assert.equal(d.status.availableReplicas, 2);
    patch.spec.template.spec.containers[0]!.image = 'nginx:1.28';
    assert.equal((await ts.request('PATCH', `${ns}/deployments/pull`, patch, { headers: { 'Content-Type': 'application/strategic-merge-patch+json' } })).status, 200);
    const done = await rolledOut('pull');
    assert.equal(done.spec.template.spec.containers[0].image, 'nginx:1.28');
  });

  it('keeps host ports apart: the scheduler avoids a node whose port is taken, the kubelet rejects a pod bound there by name', async () => {
    const hostPod = (name: string, nodeName?: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'web', image: 'httpd', ports: [{ containerPort: 21017, hostPort: 21017, name: 'conflict' }] }] },
    });
    const pods = '/api/v1/namespaces/default/pods';
    assert.equal((await ts.request('POST', pods, hostPod('port-first', 'it-node-1'))).status, 201);
    await eventually('port-first Running', async () => (await ts.request('GET', `${pods}/port-first`)).json.status?.phase === 'Running', 20_000);
    assert.equal((await ts.request('POST', pods, hostPod('port-scheduled'))).status, 201);
    const scheduled = await eventually('port-scheduled bound', async () => (await ts.request('GET', `${pods}/port-scheduled`)).json.spec.nodeName, 20_000);
    assert.equal(scheduled, 'it-node-2');
    assert.equal((await ts.request('POST', pods, hostPod('port-clash', 'it-node-1'))).status, 201);
    const rejected = await eventually('port-clash Failed', async () => {
      const p = (await ts.request('GET', `${pods}/port-clash`)).json;
      return p.status?.phase === 'Failed' && p;
    }, 20_000);
    assert.equal(rejected.status.reason, 'NodePorts');
    assert.equal(rejected.status.message, "Pod was rejected: Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports");
    // A third pod asking for the port fits nowhere now.
    assert.equal((await ts.request('POST', pods, hostPod('port-none'))).status, 201);
    const unschedulable = await eventually('port-none Unschedulable', async () => (await ts.request('GET', `${pods}/port-none`)).json.status?.conditions?.find((c: any) => c.type === 'PodScheduled' && c.status === 'False'), 20_000);
    assert.match(unschedulable.message, /^0\/2 nodes are available: 2 node\(s\) didn't have free ports for the requested pod ports\./);
    for (const name of ['port-first', 'port-scheduled', 'port-clash', 'port-none']) await ts.request('DELETE', `${pods}/${name}`);
  });

  it('leaves a pod that fits no node Pending with the Unschedulable condition', async () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'huge' }, spec: { containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu: '3', memory: '1Gi' } } }] } };
    assert.equal((await ts.request('POST', '/api/v1/namespaces/default/pods', pod)).status, 201);
    const cond = await eventually('Unschedulable', async () => {
      const p = (await ts.request('GET', '/api/v1/namespaces/default/pods/huge')).json;
      return p.status.conditions?.find((c: any) => c.type === 'PodScheduled');
    }, 20_000);
    assert.deepEqual([cond.status, cond.reason, cond.message], ['False', 'Unschedulable', '0/2 nodes are available: 2 Insufficient cpu.']);
    const p = (await ts.request('GET', '/api/v1/namespaces/default/pods/huge')).json;
    assert.equal(p.status.phase, 'Pending');
    assert.equal(p.spec.nodeName, undefined);
    assert.equal(p.status.qosClass, 'Burstable');
  });

  it('places pods by requests: a node without room is skipped', async () => {
    const mk = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu: '1500m' } } }] } });
    for (const name of ['fat-1', 'fat-2', 'fat-3']) assert.equal((await ts.request('POST', '/api/v1/namespaces/default/pods', mk(name))).status, 201);
    const nodes = await eventually('two fat pods bound', async () => {
      const items = (await ts.request('GET', '/api/v1/namespaces/default/pods')).json.items.filter((p: any) => p.metadata.name.startsWith('fat-'));
      const bound = items.filter((p: any) => p.spec.nodeName);
      const unsched = items.filter((p: any) => p.status.conditions?.some((c: any) => c.reason === 'Unschedulable'));
      return bound.length === 2 && unsched.length === 1 ? bound.map((p: any) => p.spec.nodeName) : undefined;
    }, 20_000);
    assert.equal(new Set(nodes).size, 2, 'one 1500m pod per 2-cpu node');
    // Freeing room lets the pending pod in.
    const first = (await ts.request('GET', '/api/v1/namespaces/default/pods/fat-1')).json;
    if (first.spec.nodeName) await ts.request('DELETE', '/api/v1/namespaces/default/pods/fat-1');
    else await ts.request('DELETE', '/api/v1/namespaces/default/pods/fat-2');
    await eventually('pending pod bound after room was freed', async () => {
      const items = (await ts.request('GET', '/api/v1/namespaces/default/pods')).json.items.filter((p: any) => p.metadata.name.startsWith('fat-'));
      return items.length === 2 && items.every((p: any) => p.status.phase === 'Running') ? true : undefined;
    }, 20_000);
  });
});

describe('pcluster validation and printing', () => {
  const cases: { name: string; body: unknown; message: string }[] = [
    {
      name: 'selector does not match the template labels',
      body: { ...deployment('bad-sel', 1), spec: { ...deployment('bad-sel', 1).spec, selector: { matchLabels: { app: 'other' } } } },
      message: 'spec.template.metadata.labels: Invalid value: map[string]string{"app":"bad-sel"}: `selector` does not match template `labels`',
    },
    {
      name: 'missing selector',
      body: { ...deployment('no-sel', 1), spec: { ...deployment('no-sel', 1).spec, selector: undefined } },
      message: 'spec.selector: Required value',
    },
    { name: 'negative replicas', body: deployment('neg', -2), message: 'spec.replicas: Invalid value: -2: must be greater than or equal to 0' },
    { name: 'container without image', body: deployment('noimg', 1, ''), message: 'spec.template.spec.containers[0].image: Required value' },
    {
      // ValidateNodeName: a node name is a DNS-1123 subdomain, in a template as in a Pod.
      name: 'a template nodeName that is no node name',
      body: { ...deployment('slash', 1), spec: { ...deployment('slash', 1).spec, template: { ...deployment('slash', 1).spec.template, spec: { ...deployment('slash', 1).spec.template.spec, nodeName: 'pc1/node-1' } } } },
      message: 'spec.template.spec.nodeName: Invalid value: "pc1/node-1": a lowercase RFC 1123 subdomain must consist of',
    },
  ];
  for (const c of cases) {
    it(`rejects a Deployment: ${c.name}`, async () => {
      const r = await ts.request('POST', `${ns}/deployments`, c.body);
      assert.equal(r.status, 422, r.text);
      assert.ok(r.json.message.includes(c.message), r.json.message);
    });
  }

  it('rejects a Pod whose nodeName is no node name, and admits `<cluster>--<node>`', async () => {
    const pod = (name: string, nodeName: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { nodeName, containers: [{ name: 'c', image: 'nginx' }] } });
    const bad = await ts.request('POST', `/api/v1/namespaces/default/pods`, pod('slash', 'pc1/node-1'));
    assert.equal(bad.status, 422, bad.text);
    assert.equal(bad.json.reason, 'Invalid');
    assert.match(bad.json.message, /^Pod "slash" is invalid: spec\.nodeName: Invalid value: "pc1\/node-1": a lowercase RFC 1123 subdomain must consist of/);
    const good = await ts.request('POST', `/api/v1/namespaces/default/pods`, pod('dashes', 'pc1--node-1'));
    assert.equal(good.status, 201, good.text);
    await ts.request('DELETE', '/api/v1/namespaces/default/pods/dashes?gracePeriodSeconds=0');
  });

  it('keeps the selector immutable', async () => {
    const r = await ts.request('PATCH', `${ns}/deployments/web`, { spec: { selector: { matchLabels: { app: 'web', x: 'y' } }, template: { metadata: { labels: { x: 'y' } } } } }, { headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(r.status, 422);
    assert.match(r.json.message, /spec\.selector: Invalid value: "object": field is immutable/);
  });

  const tables: { path: string; columns: string[] }[] = [
    { path: `${ns}/deployments`, columns: ['Name', 'Ready', 'Up-to-date', 'Available', 'Age', 'Containers', 'Images', 'Selector'] },
    { path: `${ns}/replicasets`, columns: ['Name', 'Desired', 'Current', 'Ready', 'Age', 'Containers', 'Images', 'Selector'] },
    { path: '/api/v1/namespaces/default/pods', columns: ['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP', 'Node', 'Nominated Node', 'Readiness Gates'] },
    { path: '/api/v1/nodes', columns: ['Name', 'Status', 'Roles', 'Age', 'Version', 'Internal-IP', 'External-IP', 'OS-Image', 'Kernel-Version', 'Container-Runtime'] },
    { path: '/api/v1/namespaces/default/services', columns: ['Name', 'Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age', 'Selector'] },
  ];
  for (const t of tables) {
    it(`renders ${t.path} as a Table with kubectl's columns`, async () => {
      const r = await ts.request('GET', t.path, undefined, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
      assert.equal(r.status, 200);
      assert.deepEqual(r.json.columnDefinitions.map((c: any) => c.name), t.columns);
    });
  }

  it('renders a Deployment row as READY x/y, UP-TO-DATE, AVAILABLE', async () => {
    const r = await ts.request('GET', `${ns}/deployments/web`, undefined, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    const [name, ready, upToDate, available, , containers, images, selector] = r.json.rows[0].cells;
    assert.deepEqual([name, ready, upToDate, available, containers, images, selector], ['web', '2/2', 2, 2, 'main', 'nginx:1.28', 'app=web']);
  });

  it('allocates a cluster IP and defaults service ports', async () => {
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } };
    const r = await ts.request('POST', '/api/v1/namespaces/default/services', svc);
    assert.equal(r.status, 201, r.text);
    assert.match(r.json.spec.clusterIP, /^10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+$/);
    assert.deepEqual(r.json.spec.ports, [{ port: 80, protocol: 'TCP', targetPort: 80 }]);
    assert.equal(r.json.spec.type, 'ClusterIP');
  });
});
