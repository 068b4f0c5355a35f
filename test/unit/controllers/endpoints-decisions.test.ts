/**
 * The endpoints and endpointslice controllers' decisions, table-driven: which pods count, port resolution (numbers,
 * named container ports, sidecars), the repacked Endpoints subsets, slice endpoints with their conditions, grouping
 * by ports and chunking, and the labels of both.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/apimachinery/object.js';
import {
  endpointSliceContents,
  endpointSliceLabels,
  endpointSubsets,
  endpointsLabels,
  findPort,
  lastChangeTriggerTime,
  serviceSelector,
  shouldPodBeInEndpoints,
} from '../../../src/controllers/endpoints/decisions.js';

interface PodOpts {
  ip?: string;
  ready?: boolean;
  node?: string;
  phase?: string;
  deleting?: boolean;
  ports?: { name?: string; containerPort: number; protocol?: string }[];
  hostname?: string;
  subdomain?: string;
  labels?: Record<string, string>;
}
const pod = (name: string, o: PodOpts = {}): KubeObject => ({
  metadata: { name, namespace: 'default', uid: `uid-${name}`, labels: o.labels ?? { app: 'web' }, creationTimestamp: '2024-01-01T00:00:00Z', ...(o.deleting ? { deletionTimestamp: '2024-01-01T00:01:00Z' } : {}) },
  spec: { nodeName: o.node ?? 'n1', containers: [{ name: 'c', ports: o.ports ?? [{ name: 'http', containerPort: 8080 }] }], ...(o.hostname ? { hostname: o.hostname, subdomain: o.subdomain } : {}) },
  status: {
    phase: o.phase ?? 'Running',
    ...(o.ip === '' ? {} : { podIP: o.ip ?? '10.244.1.2' }),
    conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True', lastTransitionTime: '2024-01-01T00:00:30Z' }],
  },
});
const service = (spec: Record<string, unknown> = {}, labels?: Record<string, string>): KubeObject => ({
  metadata: { name: 'web', namespace: 'default', uid: 'svc-uid', creationTimestamp: '2024-01-01T00:00:10Z', ...(labels ? { labels } : {}) },
  spec: { clusterIP: '10.96.0.10', selector: { app: 'web' }, ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 'http' }], ...spec },
});
const address = (name: string, ip: string, node = 'n1') => ({ ip, nodeName: node, targetRef: { kind: 'Pod', namespace: 'default', name, uid: `uid-${name}` } });

describe('which Services and pods count', () => {
  it('only Services with a selector that are not ExternalName get endpoints', () => {
    assert.ok(serviceSelector(service()));
    assert.equal(serviceSelector(service({ selector: undefined })), undefined);
    assert.equal(serviceSelector(service({ selector: {} })), undefined);
    assert.equal(serviceSelector(service({ type: 'ExternalName', externalName: 'db.example.com' })), undefined);
  });
  const cases: [string, KubeObject, boolean, boolean][] = [
    ['a running pod with an IP', pod('a'), true, true],
    ['a pod without an IP yet', pod('a', { ip: '' }), false, false],
    ['a Succeeded pod', pod('a', { phase: 'Succeeded' }), false, false],
    ['a Failed pod', pod('a', { phase: 'Failed' }), false, false],
    ['a terminating pod (only where terminating ones are wanted)', pod('a', { deleting: true }), false, true],
  ];
  for (const [name, p, without, withTerminating] of cases) {
    it(name, () => assert.deepEqual([shouldPodBeInEndpoints(p, false), shouldPodBeInEndpoints(p, true)], [without, withTerminating]));
  }
});

describe('targetPort resolution (FindPort)', () => {
  const p: KubeObject = {
    spec: {
      containers: [{ name: 'c', ports: [{ name: 'http', containerPort: 8080 }, { name: 'dns', containerPort: 5353, protocol: 'UDP' }] }],
      initContainers: [{ name: 'proxy', restartPolicy: 'Always', ports: [{ name: 'proxy', containerPort: 15001 }] }, { name: 'init', ports: [{ name: 'setup', containerPort: 9999 }] }],
    },
  };
  const cases: [string, Record<string, unknown>, number | undefined][] = [
    ['a number is the port', { port: 80, targetPort: 9090 }, 9090],
    ['no targetPort means the port', { port: 80 }, 80],
    ['a name is a container port of that name', { port: 80, targetPort: 'http', protocol: 'TCP' }, 8080],
    ['of the same protocol', { port: 53, targetPort: 'dns', protocol: 'TCP' }, undefined],
    ['UDP by name', { port: 53, targetPort: 'dns', protocol: 'UDP' }, 5353],
    ['a sidecar’s named port counts', { port: 80, targetPort: 'proxy' }, 15001],
    ['an ordinary init container’s does not', { port: 80, targetPort: 'setup' }, undefined],
    ['an unknown name', { port: 80, targetPort: 'metrics' }, undefined],
  ];
  for (const [name, sp, want] of cases) it(name, () => assert.equal(findPort(p, sp), want));
});

describe('Endpoints subsets', () => {
  it('puts ready pods under addresses and others under notReadyAddresses, sorted by IP, with the resolved port', () => {
    const subsets = endpointSubsets(service(), [pod('b', { ip: '10.244.2.9', node: 'n2' }), pod('a', { ip: '10.244.1.10' }), pod('c', { ip: '10.244.1.3', ready: false }), pod('gone', { phase: 'Failed' })]);
    assert.deepEqual(subsets, [
      {
        addresses: [address('a', '10.244.1.10'), address('b', '10.244.2.9', 'n2')],
        notReadyAddresses: [address('c', '10.244.1.3')],
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      },
    ]);
  });
  it('repacks: ports offered by the same pods share a subset; a pod lacking a named port gets its own', () => {
    const svc = service({ ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 'http' }, { name: 'metrics', port: 9100, protocol: 'TCP', targetPort: 9100 }] });
    const subsets = endpointSubsets(svc, [pod('a', { ip: '10.0.0.1' }), pod('b', { ip: '10.0.0.2', ports: [] })]);
    assert.deepEqual(subsets, [
      { addresses: [address('a', '10.0.0.1')], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] },
      { addresses: [address('a', '10.0.0.1'), address('b', '10.0.0.2')], ports: [{ name: 'metrics', port: 9100, protocol: 'TCP' }] },
    ]);
  });
  it('publishNotReadyAddresses lists every pod as ready, terminating ones too', () => {
    const subsets = endpointSubsets(service({ publishNotReadyAddresses: true }), [pod('a', { ip: '10.0.0.1', ready: false }), pod('b', { ip: '10.0.0.2', deleting: true })]);
    assert.deepEqual(subsets[0]!.addresses, [address('a', '10.0.0.1'), address('b', '10.0.0.2')]);
    assert.equal(subsets[0]!.notReadyAddresses, undefined);
  });
  it('a headless Service without ports lists its pods without ports, with the hostname of pods in its subdomain', () => {
    const svc = service({ clusterIP: 'None', ports: undefined });
    const subsets = endpointSubsets(svc, [pod('db-0', { ip: '10.0.0.5', hostname: 'db-0', subdomain: 'web' }), pod('x', { ip: '10.0.0.6', hostname: 'x', subdomain: 'other' })]);
    assert.deepEqual(subsets, [{ addresses: [{ ...address('db-0', '10.0.0.5'), hostname: 'db-0' }, address('x', '10.0.0.6')] }]);
  });
  it('a Service with ports no pod offers, or without pods, has no subsets', () => {
    assert.deepEqual(endpointSubsets(service({ ports: [{ name: 'x', port: 1, protocol: 'TCP', targetPort: 'nope' }] }), [pod('a')]), []);
    assert.deepEqual(endpointSubsets(service(), []), []);
    assert.deepEqual(endpointSubsets(service({ clusterIP: '10.96.0.9', ports: undefined }), [pod('a')]), [], 'a non-headless Service needs ports');
  });
  it('labels are the Service’s, plus the headless label for a Service without a cluster IP', () => {
    assert.deepEqual(endpointsLabels(service({}, { app: 'web' })), { app: 'web' });
    assert.deepEqual(endpointsLabels(service({ clusterIP: 'None' }, { app: 'web', 'service.kubernetes.io/headless': 'x' })), { app: 'web', 'service.kubernetes.io/headless': '' });
  });
  it('the trigger time is the latest change among the Service and its pods', () => {
    assert.equal(lastChangeTriggerTime(service(), [pod('a')]), '2024-01-01T00:00:30Z');
    assert.equal(lastChangeTriggerTime(service(), []), '2024-01-01T00:00:10Z');
  });
});

describe('EndpointSlice contents', () => {
  it('every pod that counts, terminating ones too, with ready/serving/terminating, targetRef and nodeName, by IP', () => {
    const [slice, ...rest] = endpointSliceContents(service(), [pod('b', { ip: '10.0.0.2', ready: false }), pod('a', { ip: '10.0.0.1', node: 'n2' }), pod('c', { ip: '10.0.0.3', deleting: true }), pod('x', { ip: '' })], (n) => (n === 'n2' ? 'zone-b' : undefined));
    assert.equal(rest.length, 0);
    assert.deepEqual(slice!.ports, [{ name: 'http', port: 8080, protocol: 'TCP' }]);
    assert.deepEqual(slice!.endpoints, [
      { addresses: ['10.0.0.1'], conditions: { ready: true, serving: true, terminating: false }, targetRef: { kind: 'Pod', namespace: 'default', name: 'a', uid: 'uid-a' }, nodeName: 'n2', zone: 'zone-b' },
      { addresses: ['10.0.0.2'], conditions: { ready: false, serving: false, terminating: false }, targetRef: { kind: 'Pod', namespace: 'default', name: 'b', uid: 'uid-b' }, nodeName: 'n1' },
      { addresses: ['10.0.0.3'], conditions: { ready: false, serving: true, terminating: true }, targetRef: { kind: 'Pod', namespace: 'default', name: 'c', uid: 'uid-c' }, nodeName: 'n1' },
    ]);
  });
  it('publishNotReadyAddresses makes every endpoint ready', () => {
    const [slice] = endpointSliceContents(service({ publishNotReadyAddresses: true }), [pod('b', { ready: false })]);
    assert.deepEqual(slice!.endpoints[0]!.conditions, { ready: true, serving: false, terminating: false });
  });
  it('pods resolving different ports go to different slices; a slice holds at most maxPerSlice endpoints', () => {
    const pods = [pod('a', { ip: '10.0.0.1' }), pod('b', { ip: '10.0.0.2' }), pod('c', { ip: '10.0.0.3' }), pod('d', { ip: '10.0.0.4', ports: [{ name: 'http', containerPort: 9090 }] })];
    const slices = endpointSliceContents(service(), pods, undefined, 2);
    assert.deepEqual(
      slices.map((s) => [s.ports.map((p) => p.port), s.endpoints.map((e) => (e.addresses as string[])[0])]),
      [
        [[8080], ['10.0.0.1', '10.0.0.2']],
        [[8080], ['10.0.0.3']],
        [[9090], ['10.0.0.4']],
      ],
    );
  });
  it('no pods: no contents (the controller keeps a placeholder slice)', () => assert.deepEqual(endpointSliceContents(service(), []), []));
  it('labels: the Service’s but the reserved ones, the service name and the managing controller', () => {
    assert.deepEqual(endpointSliceLabels(service({}, { app: 'web', 'kubernetes.io/service-name': 'spoof', 'endpointslice.kubernetes.io/managed-by': 'me' })), {
      app: 'web',
      'kubernetes.io/service-name': 'web',
      'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
    });
    assert.equal(endpointSliceLabels(service({ clusterIP: 'None' }))['service.kubernetes.io/headless'], '');
  });
});
