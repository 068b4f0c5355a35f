/**
 * What a /status write may change besides the status, kind by kind, as kube-apiserver 1.32's status strategies decide
 * (their PrepareForUpdate): most reset only the spec, so the write's labels, annotations, finalizers and owner
 * references are kept (upstream's Service, Ingress and PV/PVC status-lifecycle conformance specs patch an annotation
 * through /status and expect it); a Deployment's also resets its labels, a Pod's its owner references; a custom
 * resource's resets all metadata. A status write that clears the last finalizer of an object being deleted removes it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harnessFor, type HttpResponse, type TestServer } from '../helpers/harness.js';
import { startPcluster } from '../../src/pcluster/pcluster.js';

let ts: TestServer;
const NS = 'status-meta';
const MERGE = { 'Content-Type': 'application/merge-patch+json' };

before(async () => {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-status-meta-'));
  // The API alone: no controller writes these objects.
  const cluster = await startPcluster({ name: 'status-meta', rootDir, bindAddress: '127.0.0.1', securePort: 0, nodes: 1, controllers: ['-*'] });
  ts = harnessFor(cluster, rootDir, async () => {
    await cluster.stop();
    rmSync(rootDir, { recursive: true, force: true });
  });
  assert.equal((await ts.request('POST', '/api/v1/namespaces', { metadata: { name: NS } })).status, 201);
  const cm = await ts.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: 'owner' } });
  assert.equal(cm.status, 201, cm.text);
  owner = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: cm.json.metadata.uid };
});
after(async () => {
  await ts?.stop();
});

function ok(r: HttpResponse, status = 200): any {
  assert.equal(r.status, status, r.text);
  return r.json;
}

const container = { name: 'c', image: 'registry.example/app:1' };
const template = { metadata: { labels: { app: 'a' } }, spec: { containers: [container] } };
/** A live owner (the garbage collector would delete the dependents of one that does not exist). */
let owner: { apiVersion: string; kind: string; name: string; uid: string };

interface Kind {
  kind: string;
  collection: string;
  body: Record<string, unknown>;
  /** The metadata fields the kind's status strategy restores from the stored object. */
  reset: string[];
}

const kinds: Kind[] = [
  { kind: 'Service', collection: `/api/v1/namespaces/${NS}/services`, body: { spec: { ports: [{ port: 80 }] } }, reset: [] },
  { kind: 'Ingress', collection: `/apis/networking.k8s.io/v1/namespaces/${NS}/ingresses`, body: { spec: { defaultBackend: { service: { name: 's', port: { number: 80 } } } } }, reset: [] },
  { kind: 'PersistentVolumeClaim', collection: `/api/v1/namespaces/${NS}/persistentvolumeclaims`, body: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }, reset: [] },
  { kind: 'ReplicaSet', collection: `/apis/apps/v1/namespaces/${NS}/replicasets`, body: { spec: { selector: { matchLabels: { app: 'a' } }, template } }, reset: [] },
  { kind: 'StatefulSet', collection: `/apis/apps/v1/namespaces/${NS}/statefulsets`, body: { spec: { selector: { matchLabels: { app: 'a' } }, serviceName: 's', template } }, reset: [] },
  { kind: 'Job', collection: `/apis/batch/v1/namespaces/${NS}/jobs`, body: { spec: { template: { spec: { restartPolicy: 'Never', containers: [container] } } } }, reset: [] },
  { kind: 'Deployment', collection: `/apis/apps/v1/namespaces/${NS}/deployments`, body: { spec: { selector: { matchLabels: { app: 'a' } }, template } }, reset: ['labels'] },
  { kind: 'Pod', collection: `/api/v1/namespaces/${NS}/pods`, body: { spec: { containers: [container] } }, reset: ['ownerReferences'] },
];

describe('a /status write keeps the metadata its kind\'s status strategy does not reset', () => {
  for (const k of kinds) {
    it(`${k.kind}: labels, annotations, finalizers and owner references of a status patch${k.reset.length ? ` (but ${k.reset.join(', ')})` : ''}`, async () => {
      const name = `${k.kind.toLowerCase()}-1`;
      const created = ok(await ts.request('POST', k.collection, { metadata: { name, labels: { app: 'a' } }, ...k.body }), 201);
      const patch = { metadata: { labels: { patched: 'true' }, annotations: { patchedstatus: 'true' }, finalizers: ['example.com/keep'], ownerReferences: [owner] } };
      const written = ok(await ts.request('PATCH', `${k.collection}/${name}/status`, patch, { headers: MERGE }));
      const read = ok(await ts.request('GET', `${k.collection}/${name}`));
      for (const obj of [written, read]) {
        const meta = obj.metadata;
        assert.deepEqual(meta.labels, k.reset.includes('labels') ? { app: 'a' } : { app: 'a', patched: 'true' });
        assert.equal(meta.annotations?.patchedstatus, 'true');
        assert.deepEqual(meta.finalizers, ['example.com/keep']);
        assert.deepEqual(meta.ownerReferences, k.reset.includes('ownerReferences') ? undefined : [owner]);
        assert.equal(meta.generation, created.metadata.generation, 'a status write never bumps generation');
      }
      // Deleting waits for the finalizer; a status write that clears it removes the object.
      assert.equal((await ts.request('DELETE', `${k.collection}/${name}`)).status, 200);
      const deleting = ok(await ts.request('GET', `${k.collection}/${name}`));
      assert.ok(deleting.metadata.deletionTimestamp);
      ok(await ts.request('PATCH', `${k.collection}/${name}/status`, { metadata: { finalizers: null } }, { headers: MERGE }));
      assert.equal((await ts.request('GET', `${k.collection}/${name}`)).status, 404);
    });
  }
});
