/**
 * The simulated cluster's ReplicaSet and ReplicationController controllers claim pods by their labels, as upstream's
 * ControllerRefManager: a matching orphan is adopted (and counts toward the replicas, so no extra pod is made), and a
 * pod relabelled out of the selector is released (its controller reference removed) and replaced — the classic way
 * to take a misbehaving pod out of rotation while keeping it for debugging.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventually } from '../helpers/eventually.js';
import { useSimulatedCluster } from '../helpers/simulated-cluster.js';

const NS = '/api/v1/namespaces/default';
const STRATEGIC = { headers: { 'Content-Type': 'application/strategic-merge-patch+json' } };
const server = useSimulatedCluster('claims', { nodes: 1, readyDelayMs: 50 });

type Pod = { metadata: { name: string; labels?: Record<string, string>; ownerReferences?: { uid: string; controller?: boolean; kind: string; name: string }[] } };
const pods = async (selector: string) => ((await server().request('GET', `${NS}/pods?labelSelector=${encodeURIComponent(selector)}`)).json.items as Pod[]);
const controller = (p: Pod) => p.metadata.ownerReferences?.find((r) => r.controller);

for (const kind of [
  { name: 'ReplicaSet', path: '/apis/apps/v1/namespaces/default/replicasets', body: (app: string) => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: app }, spec: { replicas: 1, selector: { matchLabels: { app } }, template: { metadata: { labels: { app } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } }) },
  { name: 'ReplicationController', path: `${NS}/replicationcontrollers`, body: (app: string) => ({ apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: app }, spec: { replicas: 1, selector: { app }, template: { metadata: { labels: { app } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } }) },
]) {
  describe(`${kind.name}: pods claimed by labels`, () => {
    const app = `claim-${kind.name.toLowerCase()}`;

    it('adopts a matching orphan instead of making a pod', async () => {
      const orphan = await server().request('POST', `${NS}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name: `${app}-orphan`, labels: { app } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
      assert.equal(orphan.status, 201, orphan.text);
      const created = await server().request('POST', kind.path, kind.body(app));
      assert.equal(created.status, 201, created.text);
      const adopted = await eventually('the orphan adopted', async () => {
        const p = (await pods(`app=${app}`)).find((x) => x.metadata.name === `${app}-orphan`);
        return p && controller(p)?.uid === created.json.metadata.uid && p;
      });
      assert.deepEqual(controller(adopted), { apiVersion: created.json.apiVersion, kind: kind.name, name: app, uid: created.json.metadata.uid, controller: true, blockOwnerDeletion: true });
      await eventually('status counts it', async () => (await server().request('GET', `${kind.path}/${app}`)).json.status?.replicas === 1);
      assert.deepEqual((await pods(`app=${app}`)).map((p) => p.metadata.name), [`${app}-orphan`], 'no pod made beside the adopted one');
    });

    it('releases a pod relabelled out of its selector and replaces it', async () => {
      const patched = await server().request('PATCH', `${NS}/pods/${app}-orphan`, { metadata: { labels: { app: `${app}-quarantined` } } }, STRATEGIC);
      assert.equal(patched.status, 200, patched.text);
      await eventually('released', async () => {
        const p = (await pods(`app=${app}-quarantined`))[0];
        return p !== undefined && controller(p) === undefined;
      });
      const replacement = await eventually('a replacement made', async () => {
        const list = await pods(`app=${app}`);
        return list.length === 1 && list[0]!.metadata.name !== `${app}-orphan` && list[0];
      });
      assert.equal(controller(replacement!)?.name, app);
    });
  });
}

describe('Job: pods claimed by labels', () => {
  const jobs = useSimulatedCluster('claims-job', { nodes: 1, readyDelayMs: 50, jobDurationMs: 120_000 });
  const JSON_PATCH = { headers: { 'Content-Type': 'application/json-patch+json' } };
  const jobPods = async () => ((await jobs().request('GET', `${NS}/pods?labelSelector=${encodeURIComponent('job-name=adopter')}`)).json.items as (Pod & { metadata: { finalizers?: string[] } })[]);

  it('re-adopts an orphaned pod (with its tracking finalizer) and releases one relabelled out of its selector', async () => {
    const created = await jobs().request('POST', '/apis/batch/v1/namespaces/default/jobs', { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'adopter' }, spec: { parallelism: 2, completions: 2, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } });
    assert.equal(created.status, 201, created.text);
    const [pod] = await eventually('2 pods', async () => {
      const list = await jobPods();
      return list.length === 2 && list;
    });
    const name = pod!.metadata.name;
    const orphaned = await jobs().request('PATCH', `${NS}/pods/${name}`, [{ op: 'remove', path: '/metadata/ownerReferences' }], JSON_PATCH);
    assert.equal(orphaned.status, 200, orphaned.text);
    const readopted = await eventually('re-adopted', async () => {
      const p = (await jobPods()).find((x) => x.metadata.name === name);
      return p && controller(p)?.uid === created.json.metadata.uid && (p.metadata.finalizers ?? []).includes('batch.kubernetes.io/job-tracking') && p;
    });
    assert.equal(controller(readopted)?.kind, 'Job');
    const relabelled = await jobs().request('PATCH', `${NS}/pods/${name}`, [{ op: 'replace', path: '/metadata/labels', value: { quarantined: 'true' } }], JSON_PATCH);
    assert.equal(relabelled.status, 200, relabelled.text);
    await eventually('released, without the tracking finalizer', async () => {
      const p = (await jobs().request('GET', `${NS}/pods/${name}`)).json as Pod & { metadata: { finalizers?: string[] } };
      return controller(p) === undefined && !(p.metadata.finalizers ?? []).includes('batch.kubernetes.io/job-tracking');
    });
  });
});
