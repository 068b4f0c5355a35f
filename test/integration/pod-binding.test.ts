/**
 * pods/binding (core/v1 Binding) as kube-apiserver v1.32.4 answers it — every expected body below is that server's own
 * answer to the same request, recorded against a bare kube-apiserver + etcd: a bind sets the node, adds the Binding's
 * annotations and PodScheduled=True in one write the field manager does not record; a bound pod, scheduling gates, a
 * failed uid or resourceVersion precondition are Conflicts; bad targets are upstream's 500; only POST is served. Then
 * the simulated cluster's own scheduler binds through it. The legacy `bindings` resource is the same.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventually } from '../helpers/eventually.js';
import { useSimulatedCluster } from '../helpers/simulated-cluster.js';

const NS = '/api/v1/namespaces/default';
const binding = (name: string, target: Record<string, unknown>, meta: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Binding', metadata: { name, ...meta }, target });
const conflict = (kind: string, name: string, message: string) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Conflict', details: { name, kind }, code: 409 });
const unknown500 = (message: string) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 });

describe('pods/binding as kube-apiserver answers it', () => {
  const server = useSimulatedCluster('binding', { nodes: 2, readyDelayMs: 50 });
  // Pods no scheduler here takes (another schedulerName), and one held by a scheduling gate.
  const pod = async (name: string, spec: Record<string, unknown> = {}) => {
    const r = await server().request('POST', `${NS}/pods?fieldManager=creator`, { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { schedulerName: 'my-scheduler', containers: [{ name: 'c', image: 'nginx' }], ...spec } });
    assert.equal(r.status, 201, r.text);
    return r.json;
  };
  const bind = (name: string, body: unknown) => server().request('POST', `${NS}/pods/${name}/binding`, body);

  it('is listed in discovery as kube-apiserver lists it', async () => {
    const r = await server().request('GET', '/api/v1');
    const entry = (r.json.resources as { name: string }[]).find((x) => x.name === 'pods/binding');
    assert.deepEqual(entry, { name: 'pods/binding', singularName: '', namespaced: true, kind: 'Binding', verbs: ['create'] });
  });

  it('binds: the node, the annotations and PodScheduled=True in one write no field manager records; a second bind is a Conflict', async () => {
    await pod('p1');
    const r = await bind('p1', binding('p1', { kind: 'Node', name: 'binding-node-1' }, { annotations: { a: 'b' } }));
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    const p = (await server().request('GET', `${NS}/pods/p1?showManagedFields=1`)).json;
    assert.equal(p.spec.nodeName, 'binding-node-1');
    assert.equal(p.metadata.annotations.a, 'b');
    const scheduled = p.status.conditions.find((c: { type: string }) => c.type === 'PodScheduled');
    assert.deepEqual(Object.keys(scheduled).sort(), ['lastProbeTime', 'lastTransitionTime', 'status', 'type']);
    assert.equal(scheduled.status, 'True');
    assert.equal(scheduled.lastProbeTime, null);
    assert.deepEqual(p.metadata.managedFields.map((m: { manager: string; subresource?: string }) => `${m.manager}:${m.subresource ?? ''}`).filter((m: string) => m.startsWith('creator')), ['creator:']);
    const again = await bind('p1', binding('p1', { kind: 'Node', name: 'binding-node-2' }));
    assert.equal(again.status, 409);
    assert.deepEqual(again.json, conflict('pods/binding', 'p1', 'Operation cannot be fulfilled on pods/binding "p1": pod p1 is already assigned to node "binding-node-1"'));
  });

  it('refuses as upstream: scheduling gates, bad targets, a name mismatch, failed preconditions, a missing pod, other methods', async () => {
    const gated = await pod('g1', { schedulingGates: [{ name: 'x' }] });
    const cases: [string, unknown, number, unknown][] = [
      ['g1', binding('g1', { name: 'n2' }), 409, conflict('pods/binding', 'g1', 'Operation cannot be fulfilled on pods/binding "g1": pod g1 has non-empty .spec.schedulingGates')],
      ['g1', binding('g1', { kind: 'Pod' }), 500, unknown500('[target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>", target.name: Required value]')],
      ['g1', binding('g1', { name: '' }), 500, unknown500('target.name: Required value')],
      ['g1', binding('other', { name: 'n2' }), 400, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'name in URL does not match name in Binding object', reason: 'BadRequest', code: 400 }],
      [
        'g1',
        binding('g1', { name: 'n2' }, { uid: 'nope' }),
        409,
        conflict('pods', 'g1', `Operation cannot be fulfilled on pods "g1": StorageError: invalid object, Code: 4, Key: /registry/pods/default/g1, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: nope, UID in object meta: ${gated.metadata.uid}`),
      ],
      [
        'g1',
        binding('g1', { name: 'n2' }, { resourceVersion: '1' }),
        409,
        conflict('pods', 'g1', `Operation cannot be fulfilled on pods "g1": StorageError: invalid object, Code: 4, Key: /registry/pods/default/g1, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: ${gated.metadata.resourceVersion}`),
      ],
      ['zz', binding('zz', { name: 'n2' }), 404, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'pods "zz" not found', reason: 'NotFound', details: { name: 'zz', kind: 'pods' }, code: 404 }],
    ];
    for (const [name, body, code, want] of cases) {
      const r = await bind(name, body);
      assert.equal(r.status, code, `${JSON.stringify(body)}: ${r.text}`);
      assert.deepEqual(r.json, want);
    }
    const methodNotAllowed = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server does not allow this method on the requested resource', reason: 'MethodNotAllowed', details: {}, code: 405 };
    for (const method of ['GET', 'PUT'] as const) {
      const r = await server().request(method, `${NS}/pods/g1/binding`, method === 'PUT' ? {} : undefined);
      assert.equal(r.status, 405, r.text);
      assert.deepEqual(r.json, methodNotAllowed);
    }
    assert.equal((await server().request('GET', `${NS}/pods/g1`)).json.spec.nodeName, undefined, 'nothing refused was written');
  });

  it('the legacy bindings resource binds the pod its Binding names, listed as kube-apiserver lists it (no storageVersionHash)', async () => {
    const list = (await server().request('GET', '/api/v1')).json.resources as { name: string }[];
    assert.deepEqual(list.find((x) => x.name === 'bindings'), { name: 'bindings', singularName: 'binding', namespaced: true, kind: 'Binding', verbs: ['create'] });
    await pod('b1');
    const r = await server().request('POST', `${NS}/bindings`, binding('b1', { kind: 'Node', name: 'binding-node-2' }));
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    assert.equal((await server().request('GET', `${NS}/pods/b1`)).json.spec.nodeName, 'binding-node-2');
    const again = await server().request('POST', `${NS}/bindings`, binding('b1', { kind: 'Node', name: 'binding-node-1' }));
    assert.deepEqual(again.json, conflict('pods/binding', 'b1', 'Operation cannot be fulfilled on pods/binding "b1": pod b1 is already assigned to node "binding-node-2"'));
    // Not a subresource: the create handler wipes the Binding's uid (no precondition), and an unnamed one names no pod.
    await pod('b2');
    const stale = await server().request('POST', `${NS}/bindings`, binding('b2', { name: 'binding-node-1' }, { uid: 'stale' }));
    assert.equal(stale.status, 201, stale.text);
    const unnamed = await server().request('POST', `${NS}/bindings`, { apiVersion: 'v1', kind: 'Binding', metadata: {}, target: { name: 'binding-node-1' } });
    assert.equal(unnamed.status, 400, unnamed.text);
    assert.deepEqual(unnamed.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Name parameter required.', reason: 'BadRequest', code: 400 });
  });

  it("the simulated cluster's scheduler binds through it: bound and PodScheduled in the same write", async () => {
    const r = await server().request('POST', `${NS}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 's1' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    assert.equal(r.status, 201, r.text);
    const bound = await eventually('s1 bound', async () => {
      const p = (await server().request('GET', `${NS}/pods/s1`)).json;
      return p.spec.nodeName ? p : undefined;
    });
    assert.equal(bound.status.conditions.find((c: { type: string }) => c.type === 'PodScheduled')?.status, 'True');
  });
});
