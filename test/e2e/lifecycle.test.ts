/**
 * Object lifecycle with the real kubectl: `kubectl delete ns` waits and returns once the namespace controller has
 * finished, `--cascade=background|foreground|orphan` behaves as on a real cluster, `delete --all --wait`, and the
 * default ServiceAccount / kube-root-ca.crt every namespace gets.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { kubectlFails, kubectlJson, kubectlOk, sleep } from './support/kubectl-run.js';

let t: TestServer;

before(async () => {
  t = await startTestServer({ server: { builtinControllers: true } });
});
after(async () => {
  await t?.stop();
});

/** Creates ConfigMap `name` in `ns` owned by the given objects (via kubectl create -f). */
async function createOwned(ns: string, name: string, owners: any[], extra: { blockOwnerDeletion?: boolean; finalizers?: string[] } = {}): Promise<void> {
  const manifest = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      namespace: ns,
      ...(extra.finalizers ? { finalizers: extra.finalizers } : {}),
      ownerReferences: owners.map((o) => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        name: o.metadata.name,
        uid: o.metadata.uid,
        ...(extra.blockOwnerDeletion ? { blockOwnerDeletion: true } : {}),
      })),
    },
  };
  await kubectlOk(t, ['create', '-f', '-'], { input: JSON.stringify(manifest) });
}

test('kubectl delete namespace waits for its content to go and returns', async () => {
  const ns = 'e2e-lifecycle-doomed';
  await kubectlOk(t, ['create', 'namespace', ns]);
  await kubectlOk(t, ['create', 'configmap', 'a', '-n', ns, '--from-literal=k=v']);
  await kubectlOk(t, ['create', 'secret', 'generic', 's', '-n', ns, '--from-literal=k=v']);
  const started = Date.now();
  assert.equal(await kubectlOk(t, ['delete', 'namespace', ns, '--timeout=30s']), `namespace "${ns}" deleted\n`);
  assert.ok(Date.now() - started < 20_000);
  const gone = await kubectlFails(t, ['get', 'namespace', ns]);
  assert.match(gone.stderr, new RegExp(`namespaces "${ns}" not found`));
});

test('kubectl wait --for=delete on a namespace returns once the controller has finalized it', async () => {
  const ns = 'e2e-lifecycle-wait';
  await kubectlOk(t, ['create', 'namespace', ns]);
  assert.equal(await kubectlOk(t, ['delete', 'namespace', ns, '--wait=false']), `namespace "${ns}" deleted\n`);
  const terminating = await kubectlJson(t, ['get', 'namespace', ns]);
  assert.equal(terminating.status.phase, 'Terminating');
  assert.equal(await kubectlOk(t, ['wait', '--for=delete', `namespace/${ns}`, '--timeout=30s']), `namespace/${ns} condition met\n`);
});

test('every namespace has a default ServiceAccount and kube-root-ca.crt', async () => {
  const ns = 'e2e-lifecycle-sa';
  await kubectlOk(t, ['create', 'namespace', ns]);
  await eventually('the default SA', async () => (await t.kubectl(['get', 'serviceaccount', 'default', '-n', ns])).code === 0, 15_000);
  await eventually('kube-root-ca.crt', async () => (await t.kubectl(['get', 'configmap', 'kube-root-ca.crt', '-n', ns])).code === 0, 15_000);
  const cm = await kubectlJson(t, ['get', 'configmap', 'kube-root-ca.crt', '-n', ns]);
  assert.equal(cm.data['ca.crt'], t.server.caPem);
  await kubectlOk(t, ['delete', 'serviceaccount', 'default', '-n', ns]);
  await eventually('the default SA back', async () => (await t.kubectl(['get', 'serviceaccount', 'default', '-n', ns])).code === 0, 15_000);
});

test('kubectl delete --cascade=background|foreground|orphan', async () => {
  const ns = 'e2e-lifecycle-gc';
  await kubectlOk(t, ['create', 'namespace', ns]);
  const mkOwner = async (name: string) => {
    await kubectlOk(t, ['create', 'configmap', name, '-n', ns]);
    return kubectlJson(t, ['get', 'configmap', name, '-n', ns]);
  };
  const exists = async (name: string) => (await t.kubectl(['get', 'configmap', name, '-n', ns])).code === 0;

  // background (kubectl's default): the owner goes at once, the dependent soon after.
  const bg = await mkOwner('bg');
  await createOwned(ns, 'bg-child', [bg]);
  assert.equal(await kubectlOk(t, ['delete', 'configmap', 'bg', '-n', ns, '--cascade=background']), 'configmap "bg" deleted\n');
  await eventually('bg-child collected', async () => !(await exists('bg-child')), 15_000);

  // foreground: kubectl waits for the owner, which waits for its blocking dependent.
  const fg = await mkOwner('fg');
  await createOwned(ns, 'fg-child', [fg], { blockOwnerDeletion: true });
  assert.equal(await kubectlOk(t, ['delete', 'configmap', 'fg', '-n', ns, '--cascade=foreground']), 'configmap "fg" deleted\n');
  assert.equal(await exists('fg'), false);
  assert.equal(await exists('fg-child'), false, 'the blocking dependent went before its owner');

  // orphan: the dependent stays, without the owner reference.
  const orph = await mkOwner('orph');
  await createOwned(ns, 'orph-child', [orph]);
  assert.equal(await kubectlOk(t, ['delete', 'configmap', 'orph', '-n', ns, '--cascade=orphan']), 'configmap "orph" deleted\n');
  assert.equal(await exists('orph'), false);
  await sleep(500);
  const child = await kubectlJson(t, ['get', 'configmap', 'orph-child', '-n', ns]);
  assert.equal(child.metadata.ownerReferences, undefined);
});

test('kubectl delete --all --wait with a foreground cascade through owners held by a finalizer', async () => {
  const ns = 'e2e-lifecycle-all';
  await kubectlOk(t, ['create', 'namespace', ns]);
  await kubectlOk(t, ['create', 'secret', 'generic', 'owner', '-n', ns]);
  const owner = { ...(await kubectlJson(t, ['get', 'secret', 'owner', '-n', ns])), kind: 'Secret' };
  await kubectlOk(t, ['create', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'dep', namespace: ns, finalizers: ['example.com/hold'], ownerReferences: [{ apiVersion: 'v1', kind: 'Secret', name: 'owner', uid: owner.metadata.uid, blockOwnerDeletion: true }] },
    }),
  });
  const timedOut = await t.kubectl(['delete', 'secret', 'owner', '-n', ns, '--cascade=foreground', '--timeout=2s']);
  assert.notEqual(timedOut.code, 0, 'the owner waits for its dependent, held by a finalizer');
  assert.match(timedOut.stderr, /timed out waiting for the condition/);
  await kubectlOk(t, ['patch', 'secret', 'dep', '-n', ns, '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']);
  await kubectlOk(t, ['delete', 'secret', '--all', '-n', ns, '--wait', '--timeout=30s']);
  await eventually('secrets gone', async () => (await kubectlOk(t, ['get', 'secret', '-n', ns, '-o', 'name'])) === '', 15_000);
  await kubectlOk(t, ['create', 'configmap', 'x1', '-n', ns]);
  await kubectlOk(t, ['create', 'configmap', 'x2', '-n', ns]);
  const out = await kubectlOk(t, ['delete', 'configmap', '--all', '-n', ns, '--wait']);
  assert.match(out, /configmap "x1" deleted\n/);
  assert.match(out, /configmap "x2" deleted\n/);
});
