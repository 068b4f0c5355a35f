/**
 * Quantities are stored and served in their canonical text, as decoding into the Go type and encoding again does on
 * kube-apiserver: `cpu: .5` reads back `500m`, `2000m` `2`, `0.5Gi` `512Mi`, a number `1` the string `"1"`, in pod
 * templates, volumes and claims alike, however the object was written (create, apply's patch, server-side apply).
 * The expected texts are what kube-apiserver 1.32 answered for the same manifest; so does a second `kubectl apply` of
 * an unchanged manifest with non-canonical quantities report "configured" (its three-way diff sees `.5` against the
 * live `500m`), as against kube-apiserver.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harnessFor, type TestServer } from '../helpers/harness.js';
import { startPcluster } from '../../src/pcluster/pcluster.js';

let ts: TestServer;

const manifest = `apiVersion: apps/v1
kind: Deployment
metadata: {name: quant}
spec:
  selector: {matchLabels: {app: quant}}
  template:
    metadata: {labels: {app: quant}}
    spec:
      containers:
      - name: c
        image: nginx
        resources:
          requests: {cpu: .5, memory: 0.5Gi, ephemeral-storage: 1e3}
          limits: {cpu: 2000m, memory: 1024Mi, nvidia.com/gpu: 1}
      volumes:
      - name: scratch
        emptyDir: {sizeLimit: 1000M}
`;

before(async () => {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-quantities-'));
  const cluster = await startPcluster({ name: 'q', rootDir, bindAddress: '127.0.0.1', securePort: 0, nodes: 1 });
  ts = harnessFor(cluster, rootDir, async () => {
    await cluster.stop();
    rmSync(rootDir, { recursive: true, force: true });
  });
});

after(async () => {
  await ts?.stop();
});

describe('quantities in their canonical text', () => {
  it('kubectl apply: the template\'s resources and emptyDir sizeLimit read back as kube-apiserver answers them', async () => {
    const first = await ts.kubectl(['apply', '-f', '-'], { input: manifest });
    assert.equal(first.stdout.trim(), 'deployment.apps/quant created', first.stderr);
    const d = (await ts.request('GET', '/apis/apps/v1/namespaces/default/deployments/quant')).json;
    assert.deepEqual(d.spec.template.spec.containers[0].resources, {
      limits: { cpu: '2', memory: '1Gi', 'nvidia.com/gpu': '1' },
      requests: { cpu: '500m', 'ephemeral-storage': '1k', memory: '512Mi' },
    });
    assert.deepEqual(d.spec.template.spec.volumes[0].emptyDir, { sizeLimit: '1G' });
    const again = await ts.kubectl(['apply', '-f', '-'], { input: manifest });
    assert.equal(again.stdout.trim(), 'deployment.apps/quant configured', 'kube-apiserver answers "configured": the live quantities are canonical');
  });

  it('a merge patch, a server-side apply and a claim\'s requests are canonical too', async () => {
    const merge = await ts.request('PATCH', '/apis/apps/v1/namespaces/default/deployments/quant', { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: 0.25 } } }] } } } }, { headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(merge.status, 200, merge.text);
    assert.deepEqual(merge.json.spec.template.spec.containers[0].resources, { requests: { cpu: '250m' } });
    const ssa = await ts.request('PATCH', '/apis/apps/v1/namespaces/default/deployments/quant?fieldManager=q&force=true', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'quant' }, spec: { template: { spec: { containers: [{ name: 'c', resources: { limits: { memory: '2048Mi' } } }] } } } }, { headers: { 'Content-Type': 'application/apply-patch+yaml' } });
    assert.equal(ssa.status, 200, ssa.text);
    assert.equal(ssa.json.spec.template.spec.containers[0].resources.limits.memory, '2Gi');
    const pvc = await ts.request('POST', '/api/v1/namespaces/default/persistentvolumeclaims', { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1024Mi' } } } });
    assert.equal(pvc.status, 201, pvc.text);
    assert.equal(pvc.json.spec.resources.requests.storage, '1Gi');
  });

  it('a value that is no quantity is still refused with upstream\'s message', async () => {
    const r = await ts.request('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bad' }, spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: 'lots' } } }] } });
    // kube-apiserver 1.32's answer: a decode error (400), not a field error.
    assert.equal(r.status, 400, r.text);
    assert.equal(r.json.reason, 'BadRequest');
    assert.equal(r.json.message, 'Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'');
  });
});
