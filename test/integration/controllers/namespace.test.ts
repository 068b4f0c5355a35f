/**
 * The namespace controller, the default ServiceAccount and the kube-root-ca.crt publisher, observed through the API of
 * a real server (the controllers run inside it as API clients).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../helpers/harness.js';
import { createNamespace, sleep } from '../support.js';
import { eventually, eventuallyGone } from './support.js';

const okConditions = [
  { type: 'NamespaceDeletionDiscoveryFailure', status: 'False', reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
  { type: 'NamespaceDeletionGroupVersionParsingFailure', status: 'False', reason: 'ParsedGroupVersions', message: 'All legacy kube types successfully parsed' },
  { type: 'NamespaceDeletionContentFailure', status: 'False', reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' },
];

function withoutTimes(conditions: any[]): any[] {
  return conditions.map(({ lastTransitionTime, ...rest }) => {
    assert.match(lastTransitionTime, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    return rest;
  });
}

describe('namespace controller', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer({ server: { builtinControllers: true } });
  });
  after(async () => {
    await ts?.stop();
  });

  it('deletes all content, waits for finalizers with the upstream conditions, then removes the namespace', async () => {
    const ns = await createNamespace(ts, 'nsdel');
    for (const name of ['a', 'b']) assert.equal((await ts.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name } })).status, 201);
    assert.equal((await ts.request('POST', `/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 's' } })).status, 201);
    const held = await ts.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    assert.equal(held.status, 201, held.text);
    assert.equal((await ts.request('POST', `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`, { metadata: { name: 'l' }, spec: {} })).status, 201);

    assert.equal((await ts.request('DELETE', `/api/v1/namespaces/${ns}`)).status, 200);
    // Everything without a finalizer goes; the held configmap stays, and the conditions say why.
    const terminating = await eventually('conditions naming the remaining finalizer', async () => {
      const r = await ts.request('GET', `/api/v1/namespaces/${ns}`);
      const conds = r.json?.status?.conditions;
      return conds?.find((c: any) => c.type === 'NamespaceFinalizersRemaining' && c.status === 'True') ? r.json : undefined;
    });
    assert.equal(terminating.status.phase, 'Terminating');
    assert.deepEqual(withoutTimes(terminating.status.conditions), [
      ...okConditions,
      { type: 'NamespaceContentRemaining', status: 'True', reason: 'SomeResourcesRemain', message: 'Some resources are remaining: configmaps. has 1 resource instances' },
      {
        type: 'NamespaceFinalizersRemaining',
        status: 'True',
        reason: 'SomeFinalizersRemain',
        message: 'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances',
      },
    ]);
    assert.deepEqual(terminating.spec.finalizers, ['kubernetes']);
    const cms = await ts.request('GET', `/api/v1/namespaces/${ns}/configmaps`);
    assert.deepEqual(cms.json.items.map((i: any) => i.metadata.name), ['held']);
    assert.ok(cms.json.items[0].metadata.deletionTimestamp);
    assert.equal((await ts.request('GET', `/api/v1/namespaces/${ns}/secrets`)).json.items.length, 0);
    assert.equal((await ts.request('GET', `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`)).json.items.length, 0);
    assert.equal((await ts.request('GET', `/api/v1/namespaces/${ns}/serviceaccounts`)).json.items.length, 0, 'no default SA is re-created in a terminating namespace');

    // Releasing the finalizer lets the namespace finish.
    const rel = await ts.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/held`, JSON.stringify({ metadata: { finalizers: null } }), {
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    assert.equal(rel.status, 200, rel.text);
    await eventuallyGone(ts, `/api/v1/namespaces/${ns}`);
  });

  it('an empty namespace stays Terminating for the grace period, then goes', async () => {
    const ns = await createNamespace(ts, 'nsempty');
    const started = Date.now();
    assert.equal((await ts.request('DELETE', `/api/v1/namespaces/${ns}`)).status, 200);
    await sleep(1_000);
    const r = await ts.request('GET', `/api/v1/namespaces/${ns}`);
    assert.equal(r.status, 200, 'still observable as Terminating (upstream namespaceDeletionGracePeriod)');
    assert.equal(r.json.status.phase, 'Terminating');
    assert.equal(r.json.status.conditions, undefined, 'content deletion has not started yet');
    await eventuallyGone(ts, `/api/v1/namespaces/${ns}`, 15_000);
    const took = Date.now() - started;
    assert.ok(took >= 4_000 && took < 12_000, `gone after ${took} ms`);
  });

  it('works in other logical clusters too', async () => {
    const base = '/clusters/ns-controller-test';
    const created = await ts.request('POST', `${base}/api/v1/namespaces`, { metadata: { name: 'other' } });
    if (created.status === 403 || created.status === 404) return; // the logical cluster must exist first in some setups
    assert.equal(created.status, 201, created.text);
    assert.equal((await ts.request('POST', `${base}/api/v1/namespaces/other/configmaps`, { metadata: { name: 'x' } })).status, 201);
    await eventually('default SA in the other cluster', async () => (await ts.request('GET', `${base}/api/v1/namespaces/other/serviceaccounts/default`)).status === 200);
    assert.equal((await ts.request('DELETE', `${base}/api/v1/namespaces/other`)).status, 200);
    await eventuallyGone(ts, `${base}/api/v1/namespaces/other`);
    assert.equal((await ts.request('GET', `${base}/api/v1/namespaces/other/configmaps/x`)).status, 404);
  });
});

describe('default ServiceAccount and kube-root-ca.crt', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer({ server: { builtinControllers: true } });
  });
  after(async () => {
    await ts?.stop();
  });

  it('every namespace, the bootstrap ones included, gets both', async () => {
    const ns = await createNamespace(ts, 'sa');
    for (const n of [ns, 'default', 'kube-system']) {
      const sa = await eventually(`default SA in ${n}`, async () => {
        const r = await ts.request('GET', `/api/v1/namespaces/${n}/serviceaccounts/default`);
        return r.status === 200 ? r.json : undefined;
      });
      assert.equal(sa.metadata.namespace, n);
      const cm = await eventually(`kube-root-ca.crt in ${n}`, async () => {
        const r = await ts.request('GET', `/api/v1/namespaces/${n}/configmaps/kube-root-ca.crt`);
        return r.status === 200 ? r.json : undefined;
      });
      assert.deepEqual(cm.data, { 'ca.crt': ts.server.caPem });
      assert.equal(
        cm.metadata.annotations['kubernetes.io/description'],
        'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.',
      );
    }
  });

  it('both come back after deletion, and an edited CA bundle is restored', async () => {
    const ns = await createNamespace(ts, 'sa-back');
    const saPath = `/api/v1/namespaces/${ns}/serviceaccounts/default`;
    const cmPath = `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`;
    const firstSa = await eventually('default SA', async () => ((await ts.request('GET', saPath)).json?.metadata?.uid as string) || undefined);
    const firstCm = await eventually('root CA', async () => ((await ts.request('GET', cmPath)).json?.metadata?.uid as string) || undefined);
    assert.equal((await ts.request('DELETE', saPath)).status, 200);
    assert.equal((await ts.request('DELETE', cmPath)).status, 200);
    const secondSa = await eventually('a new default SA', async () => {
      const uid = (await ts.request('GET', saPath)).json?.metadata?.uid;
      return uid && uid !== firstSa ? uid : undefined;
    });
    assert.notEqual(secondSa, firstSa);
    await eventually('a new root CA configmap', async () => {
      const uid = (await ts.request('GET', cmPath)).json?.metadata?.uid;
      return uid && uid !== firstCm ? uid : undefined;
    });
    const edit = await ts.request('PATCH', cmPath, JSON.stringify({ data: { 'ca.crt': 'tampered', extra: 'x' } }), { headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(edit.status, 200, edit.text);
    await eventually('the CA bundle restored', async () => {
      const r = await ts.request('GET', cmPath);
      return r.json?.data?.['ca.crt'] === ts.server.caPem && Object.keys(r.json.data).length === 1;
    });
  });
});
