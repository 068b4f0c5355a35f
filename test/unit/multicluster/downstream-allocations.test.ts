/** keepDownstreamAllocations: what the physical cluster allocated or added survives the syncer rewriting an object. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { keepDownstreamAllocations, toDownstream } from '../../../src/multicluster/syncer/transform.js';
import type { KubeObject } from '../../../src/apimachinery/object.js';

describe('keepDownstreamAllocations', () => {
  it("keeps a Service's cluster IPs, node ports and the load-balancer cleanup finalizer", () => {
    const desired: KubeObject = { metadata: { name: 'web' }, spec: { type: 'LoadBalancer', ports: [{ port: 80 }] } };
    const existing: KubeObject = {
      metadata: { name: 'web', finalizers: ['service.kubernetes.io/load-balancer-cleanup'] },
      spec: { type: 'LoadBalancer', clusterIP: '10.96.0.7', clusterIPs: ['10.96.0.7'], ports: [{ port: 80, protocol: 'TCP', nodePort: 31000 }] },
    };
    keepDownstreamAllocations('services', desired, existing);
    assert.deepEqual(desired, {
      metadata: { name: 'web', finalizers: ['service.kubernetes.io/load-balancer-cleanup'] },
      spec: { type: 'LoadBalancer', clusterIP: '10.96.0.7', clusterIPs: ['10.96.0.7'], ports: [{ port: 80, nodePort: 31000 }] },
    });
  });

  it("keeps a claim's bound volume, its defaulted class and pvc-protection", () => {
    const desired: KubeObject = { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } } } };
    const existing: KubeObject = {
      metadata: { name: 'data', finalizers: ['kubernetes.io/pvc-protection'] },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'standard', volumeName: 'pvc-1' },
    };
    keepDownstreamAllocations('persistentvolumeclaims', desired, existing);
    assert.deepEqual(desired.metadata?.finalizers, ['kubernetes.io/pvc-protection']);
    assert.deepEqual(desired.spec, { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } }, storageClassName: 'standard', volumeName: 'pvc-1' });
  });

  it('leaves a class the upstream claim names (even "") and objects without downstream additions alone', () => {
    const desired: KubeObject = { metadata: { name: 'data' }, spec: { storageClassName: '' } };
    keepDownstreamAllocations('persistentvolumeclaims', desired, { metadata: { name: 'data' }, spec: { storageClassName: '' } });
    assert.deepEqual(desired, { metadata: { name: 'data' }, spec: { storageClassName: '' } });
    const cm: KubeObject = { metadata: { name: 'c' }, data: { a: '1' } };
    keepDownstreamAllocations('configmaps', cm, { metadata: { name: 'c' }, data: { a: '2' } });
    assert.deepEqual(cm, { metadata: { name: 'c' }, data: { a: '1' } });
  });

  it("sends a Pod down without its priority and keeps what the cluster's Priority admission set", () => {
    const up: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns' }, spec: { priorityClassName: 'high', priority: 7, preemptionPolicy: 'Never', containers: [] } };
    const desired = toDownstream(up, 'pods', 'down-ns', 'k1');
    assert.deepEqual(desired.spec, { priorityClassName: 'high', containers: [] });
    keepDownstreamAllocations('pods', desired, { metadata: { name: 'p' }, spec: { priorityClassName: 'high', priority: 42, preemptionPolicy: 'PreemptLowerPriority', containers: [] } });
    assert.deepEqual(desired.spec, { priorityClassName: 'high', priority: 42, preemptionPolicy: 'PreemptLowerPriority', containers: [] });
    // A pod naming no class got the cluster's global default class, immutable there.
    const plain = toDownstream({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'q', namespace: 'ns' }, spec: { priority: 0, containers: [] } }, 'pods', 'down-ns', 'k1');
    keepDownstreamAllocations('pods', plain, { metadata: { name: 'q' }, spec: { priorityClassName: 'cluster-default', priority: 5, preemptionPolicy: 'PreemptLowerPriority', containers: [] } });
    assert.deepEqual(plain.spec, { priorityClassName: 'cluster-default', priority: 5, preemptionPolicy: 'PreemptLowerPriority', containers: [] });
  });
  it("keeps what the cluster's ServiceAccount admission added to a Pod: the account, pull secrets, the token volume and mounts", () => {
    const mount = { name: 'kube-api-access-x1y2z', readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' };
    const token = { name: 'kube-api-access-x1y2z', projected: { defaultMode: 420, sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }] } };
    const desired: KubeObject = { metadata: { name: 'p' }, spec: { volumes: [{ name: 'data', emptyDir: {} }], containers: [{ name: 'app', volumeMounts: [{ name: 'data', mountPath: '/data' }] }, { name: 'own', volumeMounts: [{ name: 'mine', mountPath: mount.mountPath }] }] } };
    keepDownstreamAllocations('pods', desired, {
      metadata: { name: 'p' },
      spec: {
        serviceAccountName: 'default',
        serviceAccount: 'default',
        imagePullSecrets: [{ name: 'regcred' }],
        volumes: [{ name: 'data', emptyDir: {} }, token],
        containers: [{ name: 'app', volumeMounts: [{ name: 'data', mountPath: '/data' }, mount] }, { name: 'own', volumeMounts: [{ name: 'mine', mountPath: mount.mountPath }] }],
      },
    });
    assert.deepEqual(desired.spec, {
      serviceAccountName: 'default',
      serviceAccount: 'default',
      imagePullSecrets: [{ name: 'regcred' }],
      volumes: [{ name: 'data', emptyDir: {} }, token],
      containers: [{ name: 'app', volumeMounts: [{ name: 'data', mountPath: '/data' }, mount] }, { name: 'own', volumeMounts: [{ name: 'mine', mountPath: mount.mountPath }] }],
    });
    // An account the upstream pod names stays its own.
    const named: KubeObject = { metadata: { name: 'q' }, spec: { serviceAccountName: 'builder', containers: [] } };
    keepDownstreamAllocations('pods', named, { metadata: { name: 'q' }, spec: { serviceAccountName: 'builder', serviceAccount: 'builder', containers: [] } });
    assert.deepEqual(named.spec, { serviceAccountName: 'builder', containers: [] });
  });
});
