/** core/v1 and events.k8s.io/v1 Events share one storage: an event written through one API is read through the other. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { createNamespace, openWatch } from './support.js';

let ts: TestServer;
before(async () => {
  ts = await startTestServer();
});
after(async () => {
  await ts.stop();
});

test('a core/v1 Event reads back through events.k8s.io/v1 with the renamed fields', async () => {
  const ns = await createNamespace(ts, 'ev');
  const created = await ts.request('POST', `/api/v1/namespaces/${ns}/events`, {
    metadata: { name: 'e1' },
    involvedObject: { kind: 'ConfigMap', name: 'c1', namespace: ns },
    reason: 'Tested',
    message: 'it happened',
    type: 'Normal',
    count: 3,
    source: { component: 'tester' },
    reportingComponent: 'tester-controller',
    firstTimestamp: '2026-11-21T10:00:00Z',
    lastTimestamp: '2026-11-21T10:05:00Z',
  });
  assert.equal(created.status, 201);
  const r = await ts.request('GET', `/apis/events.k8s.io/v1/namespaces/${ns}/events/e1`);
  assert.equal(r.status, 200);
  assert.equal(r.json.apiVersion, 'events.k8s.io/v1');
  assert.deepEqual(r.json.regarding, { kind: 'ConfigMap', name: 'c1', namespace: ns });
  assert.equal(r.json.note, 'it happened');
  assert.equal(r.json.reason, 'Tested');
  assert.equal(r.json.reportingController, 'tester-controller');
  assert.equal(r.json.deprecatedCount, 3);
  assert.deepEqual(r.json.deprecatedSource, { component: 'tester' });
  assert.equal(r.json.deprecatedFirstTimestamp, '2026-11-21T10:00:00Z');
  assert.equal(r.json.involvedObject, undefined);
  assert.equal(r.json.metadata.resourceVersion, created.json.metadata.resourceVersion);
});

test('an events.k8s.io/v1 Event is listed and watched through core/v1', async () => {
  const ns = await createNamespace(ts, 'ev');
  const list0 = await ts.request('GET', `/api/v1/namespaces/${ns}/events`);
  const watch = await openWatch(ts, `/api/v1/namespaces/${ns}/events?watch=true&resourceVersion=${list0.json.metadata.resourceVersion}`);
  const created = await ts.request('POST', `/apis/events.k8s.io/v1/namespaces/${ns}/events`, {
    metadata: { name: 'e2' },
    regarding: { kind: 'Lease', name: 'l1', namespace: ns },
    reason: 'Elected',
    note: 'became leader',
    type: 'Normal',
    action: 'Acquire',
    reportingController: 'atrium.io/tester',
    reportingInstance: 'tester-1',
    eventTime: '2026-11-21T10:00:00.000000Z',
  });
  assert.equal(created.status, 201);
  assert.equal(created.json.apiVersion, 'events.k8s.io/v1');
  assert.equal(created.json.note, 'became leader');
  const ev = await watch.next(5000);
  watch.close();
  assert.equal(ev.type, 'ADDED');
  assert.equal(ev.object.apiVersion, 'v1');
  assert.equal(ev.object.message, 'became leader');
  assert.deepEqual(ev.object.involvedObject, { kind: 'Lease', name: 'l1', namespace: ns });
  const list = await ts.request('GET', `/api/v1/namespaces/${ns}/events?fieldSelector=involvedObject.name%3Dl1`);
  assert.deepEqual(list.json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['e2']);
  // Without source.component, core/v1's `source` field selects by the reporting controller (EventToSelectableFields).
  const bySource = await ts.request('GET', `/api/v1/namespaces/${ns}/events?fieldSelector=source%3Datrium.io%2Ftester`);
  assert.deepEqual(bySource.json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['e2']);
  const del = await ts.request('DELETE', `/api/v1/namespaces/${ns}/events/e2`);
  assert.equal(del.status, 200);
  assert.equal((await ts.request('GET', `/apis/events.k8s.io/v1/namespaces/${ns}/events/e2`)).status, 404);
});
