/**
 * @kubernetes/client-node (the official JavaScript client) against a real atrium server: typed list/create/patch/
 * delete, the raw Watch, makeInformer, and the generic KubernetesObjectApi (which resolves kinds through per-group
 * legacy discovery).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  ApiException,
  CoordinationV1Api,
  CoreV1Api,
  KubeConfig,
  KubernetesObjectApi,
  type KubernetesObject,
  PatchStrategy,
  Watch,
  makeInformer,
  setHeaderOptions,
  type V1ConfigMap,
  type V1Namespace,
} from '@kubernetes/client-node';
import { startTestServer, type TestServer } from '../../helpers/harness.js';
import { eventually } from '../../helpers/eventually.js';

/** A controller publishes this ConfigMap into every namespace (as kube-controller-manager does); tests look past it. */
const ROOT_CA = 'kube-root-ca.crt';

/** Names of the objects, without kube-root-ca.crt. */
function names(items: readonly { metadata?: { name?: string } }[]): (string | undefined)[] {
  return items.map((i) => i.metadata?.name).filter((n) => n !== ROOT_CA);
}

/** The API error a client-node call rejected with (fails the test when it resolved). */
async function rejection(p: Promise<unknown>): Promise<ApiException<string>> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof ApiException, `expected an ApiException, got ${String(err)}`);
    return err as ApiException<string>;
  }
  assert.fail('expected the call to fail');
}

describe('@kubernetes/client-node', () => {
  let ts: TestServer;
  let kc: KubeConfig;
  let core: CoreV1Api;
  let counter = 0;

  /** A fresh namespace for one test. */
  async function namespace(prefix: string): Promise<string> {
    const name = `js-${prefix}-${++counter}`;
    await core.createNamespace({ body: { metadata: { name } } as V1Namespace });
    return name;
  }

  before(async () => {
    // The clients should meet a whole server, built-in controllers (namespace, GC, root CA publisher) included.
    ts = await startTestServer({ server: { builtinControllers: true } });
    kc = new KubeConfig();
    kc.loadFromFile(ts.kubeconfig);
    core = kc.makeApiClient(CoreV1Api);
  });
  after(async () => {
    await ts?.stop();
  });

  it('creates, lists with selectors, patches and deletes ConfigMaps', async () => {
    const ns = await namespace('crud');
    const created = await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'one', labels: { app: 'js' } }, data: { a: '1' } },
    });
    assert.ok(created.metadata?.uid);
    assert.ok(created.metadata?.resourceVersion);
    assert.ok(created.metadata?.creationTimestamp instanceof Date);
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'two' } } });

    const all = await core.listNamespacedConfigMap({ namespace: ns });
    assert.deepEqual(names(all.items), ['one', 'two']);
    assert.equal(all.kind, 'ConfigMapList');
    assert.ok(all.metadata?.resourceVersion);
    const selected = await core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'app=js' });
    assert.deepEqual(selected.items.map((i) => i.metadata?.name), ['one']);

    const merged = await core.patchNamespacedConfigMap(
      { namespace: ns, name: 'one', body: { data: { a: null, b: '2' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    assert.deepEqual(merged.data, { b: '2' });
    const strategic = await core.patchNamespacedConfigMap(
      { namespace: ns, name: 'one', body: { data: { c: '3' } } },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    assert.deepEqual(strategic.data, { b: '2', c: '3' });
    // Without a header the client sends a JSON patch.
    const jsonPatched = await core.patchNamespacedConfigMap({ namespace: ns, name: 'one', body: [{ op: 'replace', path: '/data/c', value: '4' }] });
    assert.equal(jsonPatched.data?.c, '4');

    const dup = await rejection(core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'one' } } }));
    assert.equal(dup.code, 409);
    assert.equal(JSON.parse(dup.body).reason, 'AlreadyExists');

    await core.deleteNamespacedConfigMap({ namespace: ns, name: 'one' });
    const missing = await rejection(core.readNamespacedConfigMap({ namespace: ns, name: 'one' }));
    assert.equal(missing.code, 404);
    assert.equal(JSON.parse(missing.body).message, 'configmaps "one" not found');
  });

  it('watches changes after a list resourceVersion', async () => {
    const ns = await namespace('watch');
    const { metadata } = await core.listNamespacedConfigMap({ namespace: ns });
    const events: { type: string; name: string; v?: string }[] = [];
    let done: unknown = 'not yet';
    const controller = await new Watch(kc).watch(
      `/api/v1/namespaces/${ns}/configmaps`,
      { resourceVersion: metadata?.resourceVersion, allowWatchBookmarks: true },
      (type, obj: V1ConfigMap) => {
        if (type !== 'BOOKMARK' && obj.metadata?.name !== ROOT_CA) events.push({ type, name: obj.metadata!.name!, v: obj.data?.v });
      },
      (err) => {
        done = err;
      },
    );
    try {
      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'w' }, data: { v: '1' } } });
      await core.replaceNamespacedConfigMap({ namespace: ns, name: 'w', body: { metadata: { name: 'w' }, data: { v: '2' } } });
      await core.deleteNamespacedConfigMap({ namespace: ns, name: 'w' });
      await eventually('three watch events', () => events.length >= 3, 10_000, 25);
      assert.deepEqual(events, [
        { type: 'ADDED', name: 'w', v: '1' },
        { type: 'MODIFIED', name: 'w', v: '2' },
        { type: 'DELETED', name: 'w', v: '2' },
      ]);
      assert.equal(done, 'not yet', 'the watch must stay open');
    } finally {
      controller.abort();
    }
  });

  it('ends a watch cleanly when timeoutSeconds runs out', async () => {
    const ns = await namespace('timeout');
    const started = Date.now();
    const ended = new Promise<unknown>((resolve) => {
      void new Watch(kc).watch(`/api/v1/namespaces/${ns}/configmaps`, { timeoutSeconds: 1 }, () => {}, resolve);
    });
    const err = await ended;
    assert.equal(err, null);
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 900 && elapsed < 10_000, `ended after ${elapsed} ms`);
  });

  it('runs an informer: initial list into the cache, then add, update and delete events', async () => {
    const ns = await namespace('informer');
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'pre' } } });
    const informer = makeInformer<V1ConfigMap>(kc, `/api/v1/namespaces/${ns}/configmaps`, () => core.listNamespacedConfigMap({ namespace: ns }));
    const seen: string[] = [];
    const errors: unknown[] = [];
    informer.on('add', (cm) => seen.push(`add ${cm.metadata?.name}`));
    informer.on('update', (cm) => seen.push(`update ${cm.metadata?.name} ${cm.data?.v}`));
    informer.on('delete', (cm) => seen.push(`delete ${cm.metadata?.name}`));
    informer.on('error', (err) => errors.push(err));
    await informer.start();
    try {
      await eventually('the initial add', () => seen.includes('add pre'), 10_000, 25);
      assert.ok(informer.get('pre', ns), 'the cache holds the listed object');

      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'live' }, data: { v: '1' } } });
      await eventually('add live', () => seen.includes('add live'), 10_000, 25);
      await core.patchNamespacedConfigMap(
        { namespace: ns, name: 'live', body: { data: { v: '2' } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      await eventually('update live', () => seen.includes('update live 2'), 10_000, 25);
      await core.deleteNamespacedConfigMap({ namespace: ns, name: 'live' });
      await eventually('delete live', () => seen.includes('delete live'), 10_000, 25);
      assert.deepEqual(names(informer.list(ns)), ['pre']);
      assert.deepEqual(errors, []);
    } finally {
      await informer.stop();
    }
  });

  it('drives any kind through KubernetesObjectApi and typed group clients', async () => {
    const ns = await namespace('generic');
    const objects = KubernetesObjectApi.makeApiClient(kc);
    const spec = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'lock', namespace: ns }, spec: { holderIdentity: 'js' } };
    const created: KubernetesObject & { spec?: { holderIdentity?: string } } = await objects.create(spec);
    assert.equal(created.spec?.holderIdentity, 'js');
    const read = await objects.read({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'lock', namespace: ns } });
    assert.equal(read.metadata?.uid, created.metadata?.uid);
    const listed = await objects.list('coordination.k8s.io/v1', 'Lease', ns);
    assert.deepEqual(listed.items.map((i) => i.metadata?.name), ['lock']);
    const patched = await objects.patch(
      { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'lock', namespace: ns }, spec: { holderIdentity: 'other' } } as any,
      undefined,
      undefined,
      undefined,
      undefined,
      PatchStrategy.MergePatch,
    );
    assert.equal((patched as any).spec.holderIdentity, 'other');

    const leases = kc.makeApiClient(CoordinationV1Api);
    const typed = await leases.readNamespacedLease({ namespace: ns, name: 'lock' });
    assert.equal(typed.spec?.holderIdentity, 'other');
    await objects.delete({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'lock', namespace: ns } });
    assert.deepEqual((await leases.listNamespacedLease({ namespace: ns })).items, []);
  });

  it('applies server-side through KubernetesObjectApi, recording the field manager', async () => {
    const ns = await namespace('apply');
    const objects = KubernetesObjectApi.makeApiClient(kc);
    const config = (data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied', namespace: ns }, data });
    const first: V1ConfigMap = await objects.patch(config({ a: '1' }), undefined, undefined, 'js-apply', undefined, PatchStrategy.ServerSideApply);
    assert.deepEqual(first.data, { a: '1' });
    assert.deepEqual(first.metadata?.managedFields?.map((m) => [m.manager, m.operation]), [['js-apply', 'Apply']]);
    const conflict = await rejection(objects.patch(config({ a: '2' }), undefined, undefined, 'js-other', undefined, PatchStrategy.ServerSideApply));
    assert.equal(conflict.code, 409);
    const forced: V1ConfigMap = await objects.patch(config({ a: '2' }), undefined, undefined, 'js-other', true, PatchStrategy.ServerSideApply);
    assert.deepEqual(forced.data, { a: '2' });
  });
});
