/**
 * node.k8s.io/v1 RuntimeClasses on the simulated cluster as kube-apiserver 1.32 serves them, and the RuntimeClass
 * admission plugin: validation with upstream's messages (handler a DNS label and immutable, overhead quantities,
 * scheduling labels, unique tolerations), `kubectl get` columns, and pods given their class's overhead, node selector
 * and tolerations, or refused (missing class, conflicting node label, a mismatched or classless overhead).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harnessFor, type HttpResponse, type TestServer } from '../helpers/harness.js';
import { startPcluster } from '../../src/pcluster/pcluster.js';

let ts: TestServer;
const RC = '/apis/node.k8s.io/v1/runtimeclasses';
const PODS = '/api/v1/namespaces/default/pods';

before(async () => {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-runtimeclass-'));
  const cluster = await startPcluster({ name: 'rc', rootDir, bindAddress: '127.0.0.1', securePort: 0, nodes: 1, controllers: ['-*'] });
  ts = harnessFor(cluster, rootDir, async () => {
    await cluster.stop();
    rmSync(rootDir, { recursive: true, force: true });
  });
});
after(async () => {
  await ts?.stop();
});

function status(r: HttpResponse, code: number): any {
  assert.equal(r.status, code, r.text);
  return r.json;
}
const pod = (name: string, spec: Record<string, unknown> = {}) => ({ metadata: { name }, spec: { containers: [{ name: 'c', image: 'registry.example/app:1' }], ...spec } });

describe('RuntimeClasses', () => {
  it('are validated as upstream words it, and their handler cannot change', async () => {
    const bad = status(await ts.request('POST', RC, { metadata: { name: 'bad' }, handler: 'Not_A_Label', overhead: { podFixed: { cpu: '-1' } }, scheduling: { tolerations: [{ key: 'a', operator: 'Exists' }, { key: 'a', operator: 'Exists' }] } }), 422);
    assert.equal(bad.details.causes.find((c: any) => c.field === 'handler')?.message, 'Invalid value: "Not_A_Label": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')');
    assert.ok(bad.details.causes.some((c: any) => c.field === 'overhead.limits[cpu]'), JSON.stringify(bad.details.causes));
    assert.ok(bad.details.causes.some((c: any) => c.field === 'scheduling.tolerations[1]' && c.reason === 'FieldValueDuplicate'), JSON.stringify(bad.details.causes));
    const created = status(await ts.request('POST', RC, { metadata: { name: 'kata' }, handler: 'kata', overhead: { podFixed: { cpu: '250m', memory: '64Mi' } }, scheduling: { nodeSelector: { runtime: 'kata' }, tolerations: [{ key: 'sandboxed', operator: 'Exists', effect: 'NoSchedule' }] } }), 201);
    assert.equal(created.metadata.generation, undefined, 'a RuntimeClass has no generation');
    // An update is validated as a create is, and the handler cannot change.
    const negative = status(await ts.request('PATCH', `${RC}/kata`, { overhead: { podFixed: { cpu: '-1' } } }, { headers: { 'Content-Type': 'application/merge-patch+json' } }), 422);
    assert.ok(negative.details.causes.some((c: any) => c.field === 'overhead.limits[cpu]'), JSON.stringify(negative.details.causes));
    const moved = status(await ts.request('PATCH', `${RC}/kata`, { handler: 'other' }, { headers: { 'Content-Type': 'application/merge-patch+json' } }), 422);
    assert.match(moved.message, /handler: Invalid value: "other": field is immutable/);
    const table = status(await ts.request('GET', RC, undefined, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } }), 200);
    assert.deepEqual(table.columnDefinitions.map((c: any) => c.name), ['Name', 'Handler', 'Age']);
    assert.deepEqual(table.rows.find((r: any) => r.cells[0] === 'kata').cells.slice(0, 2), ['kata', 'kata']);
  });

  it('a pod naming one gets its overhead, node selector and tolerations; conflicts and missing classes are refused', async () => {
    const p = status(await ts.request('POST', PODS, pod('sandboxed', { runtimeClassName: 'kata', nodeSelector: { disk: 'ssd' } })), 201);
    assert.deepEqual(p.spec.overhead, { cpu: '250m', memory: '64Mi' });
    assert.deepEqual(p.spec.nodeSelector, { disk: 'ssd', runtime: 'kata' });
    assert.ok(p.spec.tolerations.some((t: any) => t.key === 'sandboxed' && t.effect === 'NoSchedule'));
    // The same overhead written otherwise is the class's; a toleration of everything covers the class's.
    const same = status(await ts.request('POST', PODS, pod('same', { runtimeClassName: 'kata', overhead: { cpu: '0.25', memory: '67108864' }, tolerations: [{ operator: 'Exists' }] })), 201);
    assert.deepEqual(same.spec.overhead, { cpu: '250m', memory: '64Mi' });
    assert.deepEqual(same.spec.tolerations.filter((t: any) => t.key === 'sandboxed'), [], 'covered by the pod\'s own');
    const missing = status(await ts.request('POST', PODS, pod('nowhere', { runtimeClassName: 'gvisor' })), 403);
    assert.equal(missing.message, 'pods "nowhere" is forbidden: pod rejected: RuntimeClass "gvisor" not found');
    const conflict = status(await ts.request('POST', PODS, pod('clash', { runtimeClassName: 'kata', nodeSelector: { runtime: 'runc' } })), 403);
    assert.equal(conflict.message, 'pods "clash" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[runtime] = kata; pod.spec.nodeSelector[runtime] = runc');
    const mismatch = status(await ts.request('POST', PODS, pod('heavy', { runtimeClassName: 'kata', overhead: { cpu: '1' } })), 403);
    assert.equal(mismatch.message, 'pods "heavy" is forbidden: pod rejected: Pod\'s Overhead doesn\'t match RuntimeClass\'s defined Overhead');
    const classless = status(await ts.request('POST', PODS, pod('loose', { overhead: { cpu: '1' } })), 403);
    assert.equal(classless.message, 'pods "loose" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead');
  });
});
