/**
 * Built-in objects are stored and answered in kube-apiserver's form (the typed round trip, omit-empty.ts and
 * go-unset-values.ts; defaulting and the pod admission defaults): Helm-style manifests with explicit zeros, nulls
 * and empty maps (testdata/wire-form/manifests.yaml) are created, dry run and for real, in a simulated cluster, and
 * each answer must equal kube-apiserver v1.32.4's answer to the same dry-run create (testdata/wire-form/
 * kube-answers.json, recorded from the binary the `kube` benchmark builds, with ServiceAccount admission off), but
 * for uids, resourceVersions, timestamps, managedFields and allocated cluster IPs; and the creator's managedFields
 * entry must be kube-apiserver's (testdata/wire-form/kube-managed-fields.json): what it owns after defaulting, without
 * the value structs of the kind's zero value.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { useSimulatedCluster } from '../helpers/simulated-cluster.js';

const testdata = join(import.meta.dirname, '..', '..', '..', 'test', 'integration', 'testdata', 'wire-form');
const manifests = YAML.parseAllDocuments(readFileSync(join(testdata, 'manifests.yaml'), 'utf8')).map((d) => d.toJSON() as Record<string, any>);
const kubeAnswers = JSON.parse(readFileSync(join(testdata, 'kube-answers.json'), 'utf8')) as Record<string, any>[];
/** kube-apiserver's managedFields for the same creates with `fieldManager=wire-form` (the time left out). */
const kubeManagedFields = JSON.parse(readFileSync(join(testdata, 'kube-managed-fields.json'), 'utf8')) as { kind: string; name: string; managedFields: Record<string, unknown>[] }[];
const NAMESPACE = 'wire-form';

const plural: Record<string, string> = { DaemonSet: 'daemonsets', Deployment: 'deployments', Service: 'services', Pod: 'pods', CronJob: 'cronjobs' };

function collectionPath(o: Record<string, any>): string {
  const base = o.apiVersion === 'v1' ? '/api/v1' : `/apis/${o.apiVersion}`;
  return `${base}/namespaces/${NAMESPACE}/${plural[o.kind]}`;
}

/** Leaves out what differs between any two servers: identities, versions, times, field ownership, allocations. */
function normalised(obj: Record<string, any>): Record<string, any> {
  const o = structuredClone(obj);
  for (const k of ['uid', 'resourceVersion', 'creationTimestamp', 'managedFields']) delete o.metadata[k];
  if (o.kind === 'Service') {
    o.spec.clusterIP = '<allocated>';
    o.spec.clusterIPs = ['<allocated>'];
  }
  return o;
}

// The answers were recorded from kube-apiserver with ServiceAccount admission off (no default ServiceAccount, no
// token volume), so the cluster leaves it off too, as `--disable-admission-plugins=ServiceAccount` does.
const server = useSimulatedCluster('wf', { nodeCapacity: { cpu: '2', memory: '4Gi', pods: '110' }, disableAdmissionPlugins: ['ServiceAccount'] });

describe("built-in objects in kube-apiserver's stored form", () => {
  before(async () => {
    const ns = await server().request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
    assert.equal(ns.status, 201, ns.text);
  });

  it('the recorded answers cover every manifest', () => {
    assert.deepEqual(
      kubeAnswers.map((o) => `${o.kind}/${o.metadata.name}`),
      manifests.map((o) => `${o.kind}/${o.metadata.name}`),
    );
  });

  for (const [i, manifest] of manifests.entries()) {
    it(`${manifest.kind} ${manifest.metadata.name}: the dry-run answer, the create's answer and the stored object read back`, async () => {
      const expected = kubeAnswers[i]!;
      const dry = await server().request('POST', `${collectionPath(manifest)}?dryRun=All`, manifest);
      assert.equal(dry.status, 201, dry.text);
      assert.deepEqual(normalised(dry.json), expected);
      const withManager = await server().request('POST', `${collectionPath(manifest)}?dryRun=All&fieldManager=wire-form`, manifest);
      assert.equal(withManager.status, 201, withManager.text);
      const entries = (withManager.json.metadata.managedFields as Record<string, unknown>[]).map(({ time: _time, ...e }) => e);
      assert.deepEqual(entries, kubeManagedFields[i]!.managedFields);
      const created = await server().request('POST', collectionPath(manifest), manifest);
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(normalised(created.json), expected);
      const read = await server().request('GET', `${collectionPath(manifest)}/${manifest.metadata.name}`);
      assert.equal(read.status, 200, read.text);
      // Controllers may have written status and annotations since, and the scheduler a pod's node: the spec as stored.
      const { nodeName: _bound, ...storedSpec } = normalised(read.json).spec;
      assert.deepEqual(storedSpec, expected.spec);
    });
  }
});
