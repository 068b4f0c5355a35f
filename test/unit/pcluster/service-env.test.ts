import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/apimachinery/object.js';
import { containerEnvironment, serviceEnvironment } from '../../../src/pcluster/runtime/container-env.js';

const svc = (namespace: string, name: string, clusterIP: string, ports: Record<string, unknown>[]): KubeObject => ({ metadata: { name, namespace }, spec: { clusterIP, ports } });

describe('service environment variables, as the kubelet makes them', () => {
  it('gives host, port, named ports and Docker link variables of each Service with a cluster IP', () => {
    assert.deepEqual(serviceEnvironment([svc('ns', 'foo-service', '10.0.0.7', [{ port: 8765, protocol: 'TCP' }, { name: 'metrics', port: 9090, protocol: 'UDP' }])]), {
      FOO_SERVICE_SERVICE_HOST: '10.0.0.7',
      FOO_SERVICE_SERVICE_PORT: '8765',
      FOO_SERVICE_SERVICE_PORT_METRICS: '9090',
      FOO_SERVICE_PORT: 'tcp://10.0.0.7:8765',
      FOO_SERVICE_PORT_8765_TCP: 'tcp://10.0.0.7:8765',
      FOO_SERVICE_PORT_8765_TCP_PROTO: 'tcp',
      FOO_SERVICE_PORT_8765_TCP_PORT: '8765',
      FOO_SERVICE_PORT_8765_TCP_ADDR: '10.0.0.7',
      FOO_SERVICE_PORT_9090_UDP: 'udp://10.0.0.7:9090',
      FOO_SERVICE_PORT_9090_UDP_PROTO: 'udp',
      FOO_SERVICE_PORT_9090_UDP_PORT: '9090',
      FOO_SERVICE_PORT_9090_UDP_ADDR: '10.0.0.7',
    });
    assert.deepEqual(serviceEnvironment([svc('ns', 'headless', 'None', [{ port: 80 }]), svc('ns', 'noip', '', [{ port: 80 }])]), {});
  });

  it('a pod gets the kubernetes Service always, its namespace\'s unless enableServiceLinks is false; its own variables win', async () => {
    const services: Record<string, KubeObject[]> = {
      default: [svc('default', 'kubernetes', '10.96.0.1', [{ name: 'https', port: 443, protocol: 'TCP' }]), svc('default', 'other', '10.0.0.9', [{ port: 80 }])],
      shop: [svc('shop', 'web', '10.0.0.5', [{ port: 80, protocol: 'TCP' }])],
    };
    const list = async (ns: string) => services[ns] ?? [];
    const pod = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: 'p', namespace: 'shop' }, spec });
    const c = { name: 'c', env: [{ name: 'WEB_SERVICE_PORT', value: 'mine' }, { name: 'URL', value: 'http://$(WEB_SERVICE_HOST):80' }] };
    const env = await containerEnvironment(pod({}), c, async () => undefined, list);
    assert.equal(env.KUBERNETES_SERVICE_HOST, '10.96.0.1');
    assert.equal(env.KUBERNETES_SERVICE_PORT_HTTPS, '443');
    assert.equal(env.WEB_SERVICE_HOST, '10.0.0.5');
    assert.equal(env.WEB_SERVICE_PORT, 'mine');
    assert.equal(env.URL, 'http://10.0.0.5:80');
    assert.equal(env.OTHER_SERVICE_HOST, undefined, 'another namespace\'s Service');
    const unlinked = await containerEnvironment(pod({ enableServiceLinks: false }), { name: 'c' }, async () => undefined, list);
    assert.equal(unlinked.KUBERNETES_SERVICE_HOST, '10.96.0.1');
    assert.equal(unlinked.WEB_SERVICE_HOST, undefined);
  });
});
