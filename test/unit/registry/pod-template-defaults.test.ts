/**
 * The pod template defaults kube-apiserver 1.32 fills in (SetObjectDefaults_Pod and friends) that clients rely on:
 * `kubectl describe` dereferences a gRPC probe's service, and reads show the probe scheme, volume file modes, hostPath
 * type and fieldRef apiVersion as kube-apiserver returns them.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaultPodSpec } from '../../../src/registry/builtin/workloads/defaults.js';

describe('pod template defaults', () => {
  it('fill probes, lifecycle hooks, env fieldRefs and volumes as upstream, and keep what is set', () => {
    const spec: any = {
      containers: [{
        name: 'c',
        image: 'x:1',
        env: [{ name: 'IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }, { name: 'N', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } }],
        readinessProbe: { grpc: { port: 8080 } },
        livenessProbe: { httpGet: { port: 80 } },
        startupProbe: { grpc: { port: 8080, service: 'health' } },
        lifecycle: { preStop: { httpGet: { port: 80, path: '/drain', scheme: 'HTTPS' } } },
      }],
      initContainers: [{ name: 'i', image: 'y:1', livenessProbe: { httpGet: { path: '/z', port: 1 } } }],
      volumes: [
        { name: 's', secret: { secretName: 's' } },
        { name: 'c', configMap: { name: 'c', defaultMode: 0o755 } },
        { name: 'd', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
        { name: 'p', projected: { sources: [{ serviceAccountToken: { path: 'token' } }, { downwardAPI: { items: [{ path: 'n', fieldRef: { fieldPath: 'metadata.name' } }] } }] } },
        { name: 'h', hostPath: { path: '/var/log' } },
        { name: 'e', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } } },
      ],
    };
    defaultPodSpec(spec);
    const [c] = spec.containers;
    assert.deepEqual(c.readinessProbe.grpc, { port: 8080, service: '' });
    assert.deepEqual(c.startupProbe.grpc, { port: 8080, service: 'health' });
    assert.deepEqual(c.livenessProbe.httpGet, { port: 80, path: '/', scheme: 'HTTP' });
    assert.deepEqual(c.lifecycle.preStop.httpGet, { port: 80, path: '/drain', scheme: 'HTTPS' });
    assert.deepEqual(c.env.map((e: any) => e.valueFrom.fieldRef.apiVersion), ['v1', 'v1']);
    assert.deepEqual(spec.initContainers[0].livenessProbe.httpGet, { path: '/z', port: 1, scheme: 'HTTP' });
    const [secret, configMap, downward, projected, hostPath, ephemeral] = spec.volumes;
    assert.equal(secret.secret.defaultMode, 420);
    assert.equal(configMap.configMap.defaultMode, 0o755);
    assert.equal(downward.downwardAPI.defaultMode, 420);
    assert.equal(downward.downwardAPI.items[0].fieldRef.apiVersion, 'v1');
    assert.equal(projected.projected.defaultMode, 420);
    assert.equal(projected.projected.sources[0].serviceAccountToken.expirationSeconds, 3600);
    assert.equal(projected.projected.sources[1].downwardAPI.items[0].fieldRef.apiVersion, 'v1');
    assert.equal(hostPath.hostPath.type, '');
    assert.equal(ephemeral.ephemeral.volumeClaimTemplate.spec.volumeMode, 'Filesystem');
  });
});
