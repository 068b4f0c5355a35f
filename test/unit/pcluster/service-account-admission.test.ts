/** mountServiceAccountToken (service-account-admission.ts): the token volume and its mounts, as upstream's plugin adds them. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mountServiceAccountToken, tokenVolume } from '../../../src/pcluster/service-account-admission.js';
import type { JsonObject } from '../../../src/apimachinery/object.js';

const path = '/var/run/secrets/kubernetes.io/serviceaccount';

describe('mountServiceAccountToken', () => {
  it('mounts a new kube-api-access volume in every init and app container', () => {
    const spec: JsonObject = { initContainers: [{ name: 'i' }], containers: [{ name: 'a', volumeMounts: [{ name: 'd', mountPath: '/d' }] }], volumes: [{ name: 'd', emptyDir: {} }] };
    mountServiceAccountToken(spec, () => 'kube-api-access-abcde');
    const mount = { name: 'kube-api-access-abcde', readOnly: true, mountPath: path };
    assert.deepEqual(spec, {
      initContainers: [{ name: 'i', volumeMounts: [mount] }],
      containers: [{ name: 'a', volumeMounts: [{ name: 'd', mountPath: '/d' }, mount] }],
      volumes: [{ name: 'd', emptyDir: {} }, tokenVolume('kube-api-access-abcde')],
    });
    assert.deepEqual((tokenVolume('v').projected as JsonObject).defaultMode, 420);
  });

  it('reuses an existing kube-api-access volume and leaves containers that mount something at the token path', () => {
    const own = { name: 'mine', mountPath: path };
    const spec: JsonObject = { containers: [{ name: 'a', volumeMounts: [own] }, { name: 'b' }], volumes: [{ name: 'kube-api-access-old12', projected: { sources: [] } }] };
    mountServiceAccountToken(spec, () => assert.fail('no new name is needed'));
    assert.deepEqual(spec.containers, [{ name: 'a', volumeMounts: [own] }, { name: 'b', volumeMounts: [{ name: 'kube-api-access-old12', readOnly: true, mountPath: path }] }]);
    assert.equal((spec.volumes as JsonObject[]).length, 1);
  });

  it('adds no volume when every container already mounts the token path', () => {
    const spec: JsonObject = { containers: [{ name: 'a', volumeMounts: [{ name: 'mine', mountPath: path }] }] };
    mountServiceAccountToken(spec, () => 'kube-api-access-zzzzz');
    assert.equal(spec.volumes, undefined);
  });
});
