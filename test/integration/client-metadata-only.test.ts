/**
 * Metadata-only reads through the project's client (what the garbage collector's informers use): lists and watches
 * negotiated as PartialObjectMetadata carry metadata and no spec/data, and an Informer built on them stays in step.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Informer } from '../../src/client/informer.js';
import { RestClient } from '../../src/client/rest-client.js';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { eventually } from './controllers/support.js';
import { createNamespace } from './support.js';

const configmaps = { group: '', version: 'v1', resource: 'configmaps' };

describe('metadata-only list, watch and informer', () => {
  let ts: TestServer;
  let client: RestClient;
  let ns: string;
  before(async () => {
    ts = await startTestServer();
    client = await RestClient.fromKubeconfig(ts.kubeconfig);
    ns = await createNamespace(ts, 'partial');
    for (const name of ['a', 'b']) {
      const r = await ts.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name, labels: { app: name } }, data: { big: 'x'.repeat(1000) } });
      assert.equal(r.status, 201, r.text);
    }
  });
  after(async () => {
    client?.close();
    await ts?.stop();
  });

  it('list answers a PartialObjectMetadataList without data (paging included)', async () => {
    const list = await client.listAll(configmaps, { namespace: ns }, { metadataOnly: true, limit: 1 });
    assert.equal(list.kind, 'PartialObjectMetadataList');
    assert.deepEqual(list.items.map((i) => [i.kind, i.apiVersion, i.metadata?.name, i.metadata?.labels?.app]), [
      ['PartialObjectMetadata', 'meta.k8s.io/v1', 'a', 'a'],
      ['PartialObjectMetadata', 'meta.k8s.io/v1', 'b', 'b'],
    ]);
    for (const i of list.items) assert.equal((i as Record<string, unknown>).data, undefined);
    // Without the option the same list is full objects.
    const full = await client.list(configmaps, { namespace: ns });
    assert.equal(full.kind, 'ConfigMapList');
    assert.equal((full.items[0] as Record<string, any>).data.big.length, 1000);
  });

  it('an Informer with metadataOnly syncs, follows changes and never holds data', async () => {
    const informer = new Informer({ client, gvr: configmaps, namespace: ns, metadataOnly: true });
    const seen: string[] = [];
    informer.addEventHandler({ add: (o) => seen.push(`add ${o.metadata?.name}`), delete: (o) => seen.push(`delete ${o.metadata?.name}`) });
    informer.start();
    try {
      await informer.waitForSync();
      assert.deepEqual(seen.sort(), ['add a', 'add b']);
      assert.equal(await ts.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'c' }, data: { k: 'v' } }).then((r) => r.status), 201);
      assert.equal(await ts.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/a`).then((r) => r.status), 200);
      await eventually('add c and delete a', async () => seen.includes('add c') && seen.includes('delete a'));
      const cached = informer.lister.list();
      assert.deepEqual(cached.map((o) => o.metadata?.name).sort(), ['b', 'c']);
      for (const o of cached) {
        assert.equal(o.kind, 'PartialObjectMetadata');
        assert.equal((o as Record<string, unknown>).data, undefined);
      }
    } finally {
      await informer.stop();
    }
  });
});
