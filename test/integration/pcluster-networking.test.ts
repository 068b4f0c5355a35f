/**
 * Service plumbing in the simulated cluster, over HTTPS against a real `atrium pcluster`: Endpoints and
 * EndpointSlices following a Service's selector as pods start, become ready, change labels and go (named target
 * ports, the placeholder slice, selector-less Services left to their authors), LoadBalancer addresses from the
 * cluster's pool (the cleanup finalizer, release on a type change, spec.loadBalancerIP, an exhausted pool), Ingress
 * addresses from the simulated ingress controller with the DefaultIngressClass admission, and ReplicationControllers.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harnessFor, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { startPcluster, type RunningPcluster } from '../../src/pcluster/pcluster.js';

let ts: TestServer;
let cluster: RunningPcluster;
const core = '/api/v1';
const ns = `${core}/namespaces/default`;
const slicesPath = '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices';
const ingresses = '/apis/networking.k8s.io/v1/namespaces/default/ingresses';
const merge = { 'Content-Type': 'application/merge-patch+json' };

before(async () => {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-pcluster-net-'));
  // A /29: the ingress controller's address and five for load balancers.
  cluster = await startPcluster({ name: 'net', rootDir, bindAddress: '127.0.0.1', securePort: 0, nodes: 2, readyDelayMs: 300, loadBalancerCIDR: '172.18.250.0/29' });
  ts = harnessFor(cluster, rootDir, async () => {
    await cluster.stop();
    rmSync(rootDir, { recursive: true, force: true });
  });
});

after(async () => {
  await ts?.stop();
});

async function create(path: string, body: unknown): Promise<any> {
  const r = await ts.request('POST', path, body);
  assert.equal(r.status, 201, r.text);
  return r.json;
}

const get = async (path: string): Promise<any> => {
  const r = await ts.request('GET', path);
  return r.status === 200 ? r.json : undefined;
};

const pod = (name: string, labels: Record<string, string>, ports: unknown[] = [{ name: 'http', containerPort: 8080 }]) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels },
  spec: { containers: [{ name: 'c', image: 'nginx', ports }] },
});

const service = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, labels: { team: 'shop' } }, spec });

const runningIP = (name: string) =>
  eventually(`${name} ready`, async () => {
    const p = await get(`${ns}/pods/${name}`);
    return p?.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True') ? (p.status.podIP as string) : undefined;
  });

/** The ready and not-ready IPs of an Endpoints object, once they are as expected. */
const endpointsAre = (name: string, ready: string[], notReady: string[] = []) =>
  eventually(`endpoints ${name} = ${ready} / ${notReady}`, async () => {
    const ep = await get(`${ns}/endpoints/${name}`);
    if (!ep) return undefined;
    const ips = (key: string) => [...new Set<string>((ep.subsets ?? []).flatMap((s: any) => (s[key] ?? []).map((a: any) => a.ip)))].sort();
    return JSON.stringify([ips('addresses'), ips('notReadyAddresses')]) === JSON.stringify([[...ready].sort(), [...notReady].sort()]) ? ep : undefined;
  });

const slicesOf = async (service: string): Promise<any[]> => (await get(`${slicesPath}?labelSelector=kubernetes.io%2Fservice-name%3D${service}`)).items;

describe('pcluster endpoints and endpointslices', () => {
  it('a Service without pods has empty Endpoints and one placeholder slice', async () => {
    const svc = await create(`${ns}/services`, service('web', { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] }));
    const ep = await eventually('Endpoints web', () => get(`${ns}/endpoints/web`));
    assert.equal(ep.subsets, undefined);
    assert.deepEqual(ep.metadata.labels, { team: 'shop' });
    const [placeholder] = await eventually('placeholder slice', async () => ((await slicesOf('web')).length ? slicesOf('web') : undefined));
    assert.equal(placeholder.addressType, 'IPv4');
    assert.equal(placeholder.endpoints, null);
    assert.match(placeholder.metadata.name, /^web-[a-z0-9]{5}$/);
    assert.deepEqual(placeholder.metadata.labels, { team: 'shop', 'kubernetes.io/service-name': 'web', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' });
    assert.deepEqual(placeholder.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: svc.metadata.uid, controller: true, blockOwnerDeletion: true }]);
  });

  it('lists ready pods with targetRef and nodeName, resolving the named target port, as they become ready', async () => {
    await create(`${ns}/pods`, pod('web-1', { app: 'web' }));
    await create(`${ns}/pods`, pod('web-2', { app: 'web' }));
    await create(`${ns}/pods`, pod('other', { app: 'other' }));
    const ips = [await runningIP('web-1'), await runningIP('web-2')];
    const ep = await endpointsAre('web', ips);
    assert.equal(ep.subsets.length, 1);
    assert.deepEqual(ep.subsets[0].ports, [{ name: 'http', port: 8080, protocol: 'TCP' }]);
    const first = ep.subsets[0].addresses.find((a: any) => a.targetRef.name === 'web-1');
    const web1 = await get(`${ns}/pods/web-1`);
    assert.deepEqual(first, { ip: web1.status.podIP, nodeName: web1.spec.nodeName, targetRef: { kind: 'Pod', namespace: 'default', name: 'web-1', uid: web1.metadata.uid } });
    assert.ok(ep.metadata.annotations['endpoints.kubernetes.io/last-change-trigger-time']);

    const slice = await eventually('one slice with both pods', async () => {
      const list = await slicesOf('web');
      return list.length === 1 && (list[0].endpoints ?? []).length === 2 ? list[0] : undefined;
    });
    assert.deepEqual(slice.ports, [{ name: 'http', port: 8080, protocol: 'TCP' }]);
    const endpoint = slice.endpoints.find((e: any) => e.targetRef.name === 'web-1');
    assert.deepEqual(endpoint, {
      addresses: [web1.status.podIP],
      conditions: { ready: true, serving: true, terminating: false },
      targetRef: { kind: 'Pod', namespace: 'default', name: 'web-1', uid: web1.metadata.uid },
      nodeName: web1.spec.nodeName,
    });
  });

  it('follows pods leaving by labels or deletion, and pods not ready yet show as not ready', async () => {
    const [ip1, ip2] = [await runningIP('web-1'), await runningIP('web-2')];
    let r = await ts.request('PATCH', `${ns}/pods/web-2`, { metadata: { labels: { app: 'moved' } } }, { headers: merge });
    assert.equal(r.status, 200, r.text);
    await endpointsAre('web', [ip1!]);
    r = await ts.request('PATCH', `${ns}/pods/web-2`, { metadata: { labels: { app: 'web' } } }, { headers: merge });
    await endpointsAre('web', [ip1!, ip2!]);
    // A pod that is running but not ready (a failing readiness probe, as the kubelet would report it).
    const web2 = await get(`${ns}/pods/web-2`);
    const conditions = web2.status.conditions.map((c: any) => (c.type === 'Ready' ? { ...c, status: 'False' } : c));
    r = await ts.request('PUT', `${ns}/pods/web-2/status`, { ...web2, status: { ...web2.status, conditions } });
    assert.equal(r.status, 200, r.text);
    await endpointsAre('web', [ip1!], [ip2!]);
    await eventually('slice shows web-2 not ready', async () => {
      const e = (await slicesOf('web'))[0]?.endpoints?.find((x: any) => x.targetRef.name === 'web-2');
      return e && e.conditions.ready === false && e.conditions.serving === false;
    });
    await ts.request('DELETE', `${ns}/pods/web-2`);
    await endpointsAre('web', [ip1!]);
    await eventually('slice without web-2', async () => (await slicesOf('web'))[0]?.endpoints?.length === 1);
  });

  it('a pod without the named port is left out; a numeric targetPort needs no container port', async () => {
    await create(`${ns}/services`, service('metrics', { selector: { app: 'web' }, ports: [{ name: 'prom', port: 9100, targetPort: 'prom' }, { name: 'raw', port: 9200 }] }));
    await create(`${ns}/pods`, pod('web-3', { app: 'web' }, [{ name: 'prom', containerPort: 9101 }]));
    const [ip1, ip3] = [await runningIP('web-1'), await runningIP('web-3')];
    const ep = await endpointsAre('metrics', [ip1!, ip3!]);
    const byPort = Object.fromEntries(ep.subsets.map((s: any) => [s.ports.map((p: any) => `${p.name}:${p.port}`).join(','), s.addresses.map((a: any) => a.ip).sort()]));
    // Repacked by the addresses behind each port: prom is web-3's alone, raw both pods'.
    assert.deepEqual(byPort, { 'prom:9101': [ip3], 'raw:9200': [ip1, ip3].sort() });
    const slices = await eventually('two slices by port list', async () => {
      const list = await slicesOf('metrics');
      return list.length === 2 && list.every((s) => s.endpoints?.length) ? list : undefined;
    });
    assert.deepEqual(slices.map((s) => (s.ports ?? []).map((p: any) => `${p.name}:${p.port}`).join(',')).sort(), ['prom:9101,raw:9200', 'raw:9200']);
  });

  it('puts back slices someone deleted, also right after it created them (nothing else changed since)', async () => {
    // Pods ready before their Service: the slices are written once, and no pod event follows.
    await create(`${ns}/pods`, pod('api-1', { app: 'api' }));
    await runningIP('api-1');
    await create(`${ns}/services`, service('api', { selector: { app: 'api' }, ports: [{ port: 80, targetPort: 'http' }] }));
    const [first] = await eventually('api\'s slice', async () => {
      const list = await slicesOf('api');
      return list.length === 1 && (list[0].endpoints ?? []).length === 1 ? list : undefined;
    });
    assert.equal((await ts.request('DELETE', `${slicesPath}/${first.metadata.name}`)).status, 200);
    await eventually('api\'s slice made again', async () => {
      const list = await slicesOf('api');
      return list.length === 1 && list[0].metadata.name !== first.metadata.name && (list[0].endpoints ?? []).length === 1 ? list : undefined;
    });
  });

  it('leaves Services without a selector to their authors, and mirrors the Endpoints they write into slices', async () => {
    await create(`${ns}/services`, service('external-db', { ports: [{ port: 5432 }] }));
    const written = await create(`${ns}/endpoints`, { metadata: { name: 'external-db', labels: { tier: 'db' } }, subsets: [{ addresses: [{ ip: '10.0.0.10' }], ports: [{ name: 'pg', port: 5432 }] }] });
    const mirrored = (want: string) =>
      eventually(`external-db mirrored as ${want}`, async () => {
        const slices = await slicesOf('external-db');
        const seen = slices.map((sl) => `${(sl.endpoints ?? []).map((e: any) => `${e.addresses[0]}/${e.conditions.ready}`).join(',')} ${(sl.ports ?? []).map((pt: any) => `${pt.name}:${pt.port}`).join(',')}`).sort().join(' | ');
        return seen === want ? slices : undefined;
      });
    const [slice] = await mirrored('10.0.0.10/true pg:5432');
    assert.equal(slice.metadata.labels['endpointslice.kubernetes.io/managed-by'], 'endpointslicemirroring-controller.k8s.io');
    assert.equal(slice.metadata.labels.tier, 'db', 'the Endpoints\' labels are copied');
    assert.match(slice.metadata.name, /^external-db-/);
    assert.deepEqual(slice.metadata.ownerReferences.map((r: any) => [r.kind, r.name, r.uid, r.controller]), [['Endpoints', 'external-db', written.metadata.uid, true]]);
    // Written by hand, the Endpoints are left as they are (no controller rewrites them).
    assert.deepEqual((await get(`${ns}/endpoints/external-db`)).subsets[0].addresses, [{ ip: '10.0.0.10' }]);
    // Changes are mirrored; a not-ready address is mirrored not ready.
    const r = await ts.request('PATCH', `${ns}/endpoints/external-db`, { subsets: [{ addresses: [{ ip: '10.0.0.11' }], notReadyAddresses: [{ ip: '10.0.0.12' }], ports: [{ name: 'pg', port: 5433 }] }] }, { headers: merge });
    assert.equal(r.status, 200, r.text);
    await mirrored('10.0.0.11/true,10.0.0.12/false pg:5433');
    // Opting out removes the mirror; the Endpoints going removes it too.
    assert.equal((await ts.request('PATCH', `${ns}/endpoints/external-db`, { metadata: { labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } } }, { headers: merge })).status, 200);
    await mirrored('');
    assert.equal((await ts.request('PATCH', `${ns}/endpoints/external-db`, { metadata: { labels: { 'endpointslice.kubernetes.io/skip-mirror': null } } }, { headers: merge })).status, 200);
    await mirrored('10.0.0.11/true,10.0.0.12/false pg:5433');
    assert.equal((await ts.request('DELETE', `${ns}/endpoints/external-db`)).status, 200);
    await mirrored('');
  });

  it('deleting a Service removes its Endpoints and (by owner reference) its slices', async () => {
    await ts.request('DELETE', `${ns}/services/metrics`);
    await eventually('metrics endpoints gone', async () => (await ts.request('GET', `${ns}/endpoints/metrics`)).status === 404);
    await eventually('metrics slices gone', async () => (await slicesOf('metrics')).length === 0);
  });
});

describe('pcluster load balancers and ingress', () => {
  it('gives a LoadBalancer Service the pool’s next address, with the cleanup finalizer and the service-controller events', async () => {
    await create(`${ns}/services`, service('web-lb', { type: 'LoadBalancer', selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] }));
    const svc = await eventually('web-lb address', async () => {
      const s = await get(`${ns}/services/web-lb`);
      return s?.status?.loadBalancer?.ingress ? s : undefined;
    });
    assert.deepEqual(svc.status.loadBalancer, { ingress: [{ ip: '172.18.250.2', ipMode: 'VIP' }] });
    assert.deepEqual(svc.metadata.finalizers, ['service.kubernetes.io/load-balancer-cleanup']);
    const events = (await get(`${ns}/events`)).items.filter((e: any) => e.involvedObject.name === 'web-lb').map((e: any) => [e.reason, e.source.component]);
    assert.deepEqual(events, [['EnsuringLoadBalancer', 'service-controller'], ['EnsuredLoadBalancer', 'service-controller']]);
    // A ClusterIP Service gets none.
    assert.deepEqual((await get(`${ns}/services/web`)).status, { loadBalancer: {} });
    assert.equal(cluster.loadBalancerCIDR, '172.18.250.0/29');
    assert.equal(cluster.ingressAddress, '172.18.250.1');
  });

  it('honours spec.loadBalancerIP, skips a loadBalancerClass, and releases the address when the type changes', async () => {
    await create(`${ns}/services`, service('pinned', { type: 'LoadBalancer', loadBalancerIP: '172.18.250.6', ports: [{ port: 443 }] }));
    await create(`${ns}/services`, service('classy', { type: 'LoadBalancer', loadBalancerClass: 'example.com/lb', ports: [{ port: 443 }] }));
    await eventually('pinned address', async () => (await get(`${ns}/services/pinned`))?.status?.loadBalancer?.ingress?.[0]?.ip === '172.18.250.6');
    await new Promise((r) => setTimeout(r, 300));
    const classy = await get(`${ns}/services/classy`);
    assert.deepEqual([classy.status.loadBalancer, classy.metadata.finalizers], [{}, undefined]);

    const r = await ts.request('PATCH', `${ns}/services/pinned`, { spec: { type: 'ClusterIP', loadBalancerIP: null } }, { headers: merge });
    assert.equal(r.status, 200, r.text);
    const released = await eventually('pinned released', async () => {
      const s = await get(`${ns}/services/pinned`);
      return s && !s.metadata.finalizers && !s.status.loadBalancer.ingress ? s : undefined;
    });
    assert.deepEqual(released.status.loadBalancer, {});
  });

  it('runs out of addresses with SyncLoadBalancerFailed, and hands a freed one to the waiting Service', async () => {
    for (const name of ['lb-a', 'lb-b', 'lb-c', 'lb-d']) await create(`${ns}/services`, service(name, { type: 'LoadBalancer', ports: [{ port: 80 }] }));
    await eventually('lb-a..d addressed', async () => {
      for (const name of ['lb-a', 'lb-b', 'lb-c', 'lb-d']) if (!(await get(`${ns}/services/${name}`))?.status?.loadBalancer?.ingress) return undefined;
      return true;
    });
    await create(`${ns}/services`, service('lb-e', { type: 'LoadBalancer', ports: [{ port: 80 }] }));
    const failed = await eventually('SyncLoadBalancerFailed', async () => (await get(`${ns}/events`)).items.find((e: any) => e.involvedObject.name === 'lb-e' && e.reason === 'SyncLoadBalancerFailed'));
    assert.equal(failed.type, 'Warning');
    assert.equal(failed.message, 'Error syncing load balancer: failed to ensure load balancer: no free address left in the load-balancer pool 172.18.250.0/29');
    const freed = (await get(`${ns}/services/lb-b`)).status.loadBalancer.ingress[0].ip;
    await ts.request('DELETE', `${ns}/services/lb-b`);
    await eventually('lb-b gone (finalizer removed)', async () => (await ts.request('GET', `${ns}/services/lb-b`)).status === 404);
    await eventually('lb-e gets the freed address', async () => (await get(`${ns}/services/lb-e`))?.status?.loadBalancer?.ingress?.[0]?.ip === freed);
  });

  it('gives Ingresses of the default class (set at create) the ingress controller’s address, and not those of other controllers', async () => {
    const backend = { service: { name: 'web', port: { number: 80 } } };
    const rules = [{ host: 'shop.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend }] } }];
    const created = await create(ingresses, { metadata: { name: 'shop' }, spec: { rules } });
    assert.equal(created.spec.ingressClassName, 'atrium', 'DefaultIngressClass');
    const legacy = await create(ingresses, { metadata: { name: 'legacy', annotations: { 'kubernetes.io/ingress.class': 'atrium' } }, spec: { rules } });
    assert.equal(legacy.spec.ingressClassName, undefined, 'the annotation counts as a class');
    await create('/apis/networking.k8s.io/v1/ingressclasses', { metadata: { name: 'nginx' }, spec: { controller: 'k8s.io/ingress-nginx' } });
    await create(ingresses, { metadata: { name: 'elsewhere' }, spec: { ingressClassName: 'nginx', rules } });
    for (const name of ['shop', 'legacy']) {
      await eventually(`${name} address`, async () => JSON.stringify((await get(`${ingresses}/${name}`))?.status) === JSON.stringify({ loadBalancer: { ingress: [{ ip: '172.18.250.1' }] } }));
    }
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual((await get(`${ingresses}/elsewhere`)).status, { loadBalancer: {} });
    // Moving to another controller's class takes our address away.
    const r = await ts.request('PATCH', `${ingresses}/legacy`, { metadata: { annotations: { 'kubernetes.io/ingress.class': 'nginx' } } }, { headers: merge });
    assert.equal(r.status, 200, r.text);
    await eventually('legacy address removed', async () => JSON.stringify((await get(`${ingresses}/legacy`))?.status) === JSON.stringify({ loadBalancer: {} }));
  });
});

describe('pcluster replication controllers', () => {
  it('runs the template’s pods, scales, reports status and removes its pods with it', async () => {
    const rc = await create(`${ns}/replicationcontrollers`, {
      apiVersion: 'v1',
      kind: 'ReplicationController',
      metadata: { name: 'legacy' },
      spec: { replicas: 3, template: { metadata: { labels: { app: 'legacy' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } },
    });
    const status = (want: number) =>
      eventually(`legacy at ${want}`, async () => {
        const r = await get(`${ns}/replicationcontrollers/legacy`);
        const s = r?.status ?? {};
        return s.replicas === want && s.readyReplicas === want && s.availableReplicas === want && s.fullyLabeledReplicas === want && s.observedGeneration === r.metadata.generation ? r : undefined;
      }, 20_000);
    await status(3);
    const pods = (await get(`${ns}/pods?labelSelector=app%3Dlegacy`)).items;
    assert.equal(pods.length, 3);
    for (const p of pods) {
      assert.match(p.metadata.name, /^legacy-[a-z0-9]{5}$/);
      assert.deepEqual(p.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'ReplicationController', name: 'legacy', uid: rc.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    }
    const scaled = await ts.request('PATCH', `${ns}/replicationcontrollers/legacy/scale`, { spec: { replicas: 1 } }, { headers: merge });
    assert.equal(scaled.status, 200, scaled.text);
    const after = await status(1);
    assert.equal(after.metadata.generation, 2);
    await eventually('one legacy pod', async () => (await get(`${ns}/pods?labelSelector=app%3Dlegacy`)).items.length === 1);
    // As kubectl deletes it: core/v1 orphans an RC's pods unless the DELETE asks otherwise.
    await ts.request('DELETE', `${ns}/replicationcontrollers/legacy`, { propagationPolicy: 'Background' });
    await eventually('legacy pods gone', async () => (await get(`${ns}/pods?labelSelector=app%3Dlegacy`)).items.length === 0);
  });
});
