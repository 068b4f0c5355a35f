/**
 * Watchers of one resource share the decoding of each storage event (GenericStore decodes an event once for all
 * plain watchers and once for all /clusters/* watchers). What each watcher receives must still be its own view:
 * selector transitions per watcher, the kcp.io/cluster annotation only on wildcard watches, and identical objects
 * for identical watches.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { createConfigMap, createNamespace, openWatch, sleep, type WatchStream } from './support.js';

const q = encodeURIComponent;

describe('watchers sharing decoded events', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer();
  });
  after(async () => {
    await ts?.stop();
  });

  it('plain, filtering and wildcard watchers of one resource each get their own correct view of every event', async () => {
    const ns = await createNamespace(ts, 'shared');
    const rv = (await createConfigMap(ts, ns, 'start')).metadata.resourceVersion;
    const base = `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${rv}`;
    const watches: WatchStream[] = [];
    try {
      // The wildcard watch is opened between the plain ones so plain and wildcard deliveries interleave.
      const plainA = await openWatch(ts, base);
      watches.push(plainA);
      const wildcard = await openWatch(ts, `/clusters/*/api/v1/configmaps?watch=true&resourceVersion=${rv}`);
      watches.push(wildcard);
      const filtered = await openWatch(ts, `${base}&labelSelector=${q('app=x')}`);
      watches.push(filtered);
      const plainB = await openWatch(ts, base);
      watches.push(plainB);

      let cm = await createConfigMap(ts, ns, 'c', { data: { step: '1' } }, { app: 'x' });
      const versions = [cm.metadata.resourceVersion];
      for (const [labels, step] of [[{ app: 'y' }, '2'], [{ app: 'x' }, '3']] as const) {
        cm.metadata.labels = labels;
        cm.data = { step };
        cm = (await ts.request('PUT', `/api/v1/namespaces/${ns}/configmaps/c`, cm)).json;
        versions.push(cm.metadata.resourceVersion);
      }
      const deleted = await ts.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/c`);
      assert.equal(deleted.status, 200);

      const summary = (events: { type: string; object: any }[]) =>
        events.map((e) => `${e.type}:${e.object.metadata.name}:${e.object.metadata.labels?.app}:${e.object.data?.step}`);
      const plainEvents = await plainA.take(4);
      assert.deepEqual(summary(plainEvents), ['ADDED:c:x:1', 'MODIFIED:c:y:2', 'MODIFIED:c:x:3', 'DELETED:c:x:3']);
      assert.deepEqual(
        plainEvents.slice(0, 3).map((e) => e.object.metadata.resourceVersion),
        versions,
      );
      for (const e of plainEvents) assert.equal(e.object.metadata.annotations?.['kcp.io/cluster'], undefined, 'a plain watch must not see the wildcard annotation');
      assert.deepEqual(await plainB.take(4), plainEvents);

      const filteredEvents = await filtered.take(4);
      assert.deepEqual(summary(filteredEvents), ['ADDED:c:x:1', 'DELETED:c:y:2', 'ADDED:c:x:3', 'DELETED:c:x:3']);

      const wildcardEvents = (await wildcard.take(4)).filter((e) => e.object.metadata.namespace === ns);
      assert.deepEqual(summary(wildcardEvents), summary(plainEvents));
      for (const [i, e] of wildcardEvents.entries()) {
        assert.equal(e.object.metadata.annotations?.['kcp.io/cluster'], 'root');
        const { annotations: _a, ...meta } = e.object.metadata;
        void _a;
        assert.deepEqual({ ...e.object, metadata: meta }, plainEvents[i]!.object);
      }
      await sleep(100);
      for (const w of [plainA, plainB, filtered]) assert.equal(w.events.length, 4, JSON.stringify(summary(w.events)));
    } finally {
      for (const w of watches) w.close();
    }
  });
});
