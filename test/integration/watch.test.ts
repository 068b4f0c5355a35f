/** Watch over real HTTPS: newline-delimited events, start points, selector transitions, bookmarks, WatchList, timeouts. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { assertStatus, createConfigMap, createNamespace, openWatch, sleep } from './support.js';

const q = encodeURIComponent;

describe('watch', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer();
  });
  after(async () => {
    await ts?.stop();
  });

  it('without a resourceVersion: ADDED for what exists, then ADDED/MODIFIED/DELETED as it changes', async () => {
    const ns = await createNamespace(ts, 'watch');
    await createConfigMap(ts, ns, 'existing', { data: { a: '1' } });
    const w = await openWatch(ts, `/api/v1/namespaces/${ns}/configmaps?watch=true`);
    try {
      assert.equal(w.headers['content-type'], 'application/json');
      assert.equal(w.headers['transfer-encoding'], 'chunked');
      const initial = await w.next();
      assert.equal(initial.type, 'ADDED');
      assert.equal(initial.object.metadata.name, 'existing');
      assert.equal(initial.object.kind, 'ConfigMap');
      assert.equal(initial.object.apiVersion, 'v1');

      const created = await createConfigMap(ts, ns, 'fresh', { data: { a: '1' } });
      const added = await w.next();
      assert.equal(added.type, 'ADDED');
      assert.deepEqual(added.object, created);

      const edit = structuredClone(created);
      edit.data.a = '2';
      const updated = (await ts.request('PUT', `/api/v1/namespaces/${ns}/configmaps/fresh`, edit)).json;
      const modified = await w.next();
      assert.equal(modified.type, 'MODIFIED');
      assert.equal(modified.object.data.a, '2');
      assert.equal(modified.object.metadata.resourceVersion, updated.metadata.resourceVersion);

      assert.equal((await ts.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/fresh`)).status, 200);
      const deleted = await w.next();
      assert.equal(deleted.type, 'DELETED');
      assert.equal(deleted.object.metadata.name, 'fresh');
      assert.equal(deleted.object.data.a, '2', 'DELETED carries the last state');
      assert.ok(Number(deleted.object.metadata.resourceVersion) > Number(updated.metadata.resourceVersion), 'DELETED carries the deletion revision');
    } finally {
      w.close();
    }
  });

  it('from a resourceVersion: only the changes after it, including ones made before the watch opened', async () => {
    const ns = await createNamespace(ts, 'watch');
    const first = await createConfigMap(ts, ns, 'one');
    const second = await createConfigMap(ts, ns, 'two');
    assert.equal((await ts.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/one`)).status, 200);
    const w = await openWatch(ts, `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${first.metadata.resourceVersion}`);
    try {
      const [a, b] = await w.take(2);
      assert.equal(a!.type, 'ADDED');
      assert.equal(a!.object.metadata.name, 'two');
      assert.equal(a!.object.metadata.resourceVersion, second.metadata.resourceVersion);
      assert.equal(b!.type, 'DELETED');
      assert.equal(b!.object.metadata.name, 'one');
      await createConfigMap(ts, ns, 'three');
      const c = await w.next();
      assert.equal(c.type, 'ADDED');
      assert.equal(c.object.metadata.name, 'three');
    } finally {
      w.close();
    }
  });

  it('the legacy /api/v1/watch/ prefix and a single-object field selector', async () => {
    const ns = await createNamespace(ts, 'watch');
    const w = await openWatch(ts, `/api/v1/watch/namespaces/${ns}/configmaps?fieldSelector=${q('metadata.name=target')}`);
    try {
      await createConfigMap(ts, ns, 'other');
      await createConfigMap(ts, ns, 'target');
      const e = await w.next();
      assert.equal(e.type, 'ADDED');
      assert.equal(e.object.metadata.name, 'target');
      await sleep(200);
      assert.equal(w.events.length, 1, 'nothing about "other"');
    } finally {
      w.close();
    }
  });

  it('label-selector transitions: an object that stops matching is DELETED, one that starts matching is ADDED', async () => {
    const ns = await createNamespace(ts, 'watch');
    const w = await openWatch(ts, `/api/v1/namespaces/${ns}/configmaps?watch=true&labelSelector=${q('app=x')}`);
    try {
      let cm = await createConfigMap(ts, ns, 'c', {}, { app: 'x' });
      await createConfigMap(ts, ns, 'never', {}, { app: 'y' });
      let e = await w.next();
      assert.equal(e.type, 'ADDED');
      assert.equal(e.object.metadata.name, 'c');

      cm.metadata.labels = { app: 'y' };
      cm = (await ts.request('PUT', `/api/v1/namespaces/${ns}/configmaps/c`, cm)).json;
      e = await w.next();
      assert.equal(e.type, 'DELETED');
      assert.equal(e.object.metadata.labels.app, 'y');
      assert.equal(e.object.metadata.resourceVersion, cm.metadata.resourceVersion);

      cm.data = { changed: 'while not matching' };
      cm = (await ts.request('PUT', `/api/v1/namespaces/${ns}/configmaps/c`, cm)).json;

      cm.metadata.labels = { app: 'x' };
      cm = (await ts.request('PUT', `/api/v1/namespaces/${ns}/configmaps/c`, cm)).json;
      e = await w.next();
      assert.equal(e.type, 'ADDED');
      assert.equal(e.object.data.changed, 'while not matching');

      cm.data = { changed: 'matching' };
      cm = (await ts.request('PUT', `/api/v1/namespaces/${ns}/configmaps/c`, cm)).json;
      e = await w.next();
      assert.equal(e.type, 'MODIFIED');

      assert.equal((await ts.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/never`)).status, 200);
      assert.equal((await ts.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/c`)).status, 200);
      e = await w.next();
      assert.equal(e.type, 'DELETED');
      assert.equal(e.object.metadata.name, 'c');
      await sleep(200);
      assert.equal(w.events.length, 5, JSON.stringify(w.events.map((x) => [x.type, x.object.metadata.name])));
    } finally {
      w.close();
    }
  });

  it('allowWatchBookmarks sends BOOKMARK events of the watched kind', async () => {
    const ns = await createNamespace(ts, 'watch');
    const cm = await createConfigMap(ts, ns, 'b');
    const w = await openWatch(ts, `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases?watch=true&allowWatchBookmarks=true&resourceVersion=${cm.metadata.resourceVersion}`);
    try {
      const e = await w.next(12_000);
      assert.equal(e.type, 'BOOKMARK');
      assert.equal(e.object.kind, 'Lease');
      assert.equal(e.object.apiVersion, 'coordination.k8s.io/v1');
      // an empty typed object: its zero creationTimestamp is null, as kube-apiserver writes it
      assert.deepEqual(e.object.metadata, { resourceVersion: e.object.metadata.resourceVersion, creationTimestamp: null });
      assert.ok(Number(e.object.metadata.resourceVersion) >= Number(cm.metadata.resourceVersion));
    } finally {
      w.close();
    }
  });

  it('sendInitialEvents: ADDED for every object, then a BOOKMARK marking the end of initial events, then changes', async () => {
    const ns = await createNamespace(ts, 'watch');
    await createConfigMap(ts, ns, 'i1');
    const last = await createConfigMap(ts, ns, 'i2');
    const w = await openWatch(
      ts,
      `/api/v1/namespaces/${ns}/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=`,
    );
    try {
      const [a, b, bookmark] = await w.take(3);
      assert.deepEqual([a!.type, b!.type], ['ADDED', 'ADDED']);
      assert.deepEqual([a!.object.metadata.name, b!.object.metadata.name].sort(), ['i1', 'i2']);
      assert.equal(bookmark!.type, 'BOOKMARK');
      assert.equal(bookmark!.object.kind, 'ConfigMap');
      assert.equal(bookmark!.object.apiVersion, 'v1');
      assert.deepEqual(bookmark!.object.metadata.annotations, {
        'k8s.io/initial-events-end': 'true',
        // the empty list of the kind, as kube-apiserver 1.32 writes it
        'kubernetes.io/initial-events-list-blueprint': Buffer.from('{"kind":"ConfigMapList","apiVersion":"v1","metadata":{},"items":null}\n').toString('base64'),
      });
      assert.equal(bookmark!.object.metadata.creationTimestamp, null);
      assert.ok(Number(bookmark!.object.metadata.resourceVersion) >= Number(last.metadata.resourceVersion));
      await createConfigMap(ts, ns, 'i3');
      const c = await w.next();
      assert.equal(c.type, 'ADDED');
      assert.equal(c.object.metadata.name, 'i3');
    } finally {
      w.close();
    }
  });

  it('sendInitialEvents with a resourceVersion is also "not older than"', async () => {
    const ns = await createNamespace(ts, 'watch');
    const cm = await createConfigMap(ts, ns, 'only');
    const w = await openWatch(
      ts,
      `/api/v1/namespaces/${ns}/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=${cm.metadata.resourceVersion}`,
    );
    try {
      const [a, bookmark] = await w.take(2);
      assert.equal(a!.type, 'ADDED');
      assert.equal(bookmark!.type, 'BOOKMARK');
      assert.equal(bookmark!.object.metadata.annotations['k8s.io/initial-events-end'], 'true');
    } finally {
      w.close();
    }
  });

  it('watch option errors are 422 before the stream starts', async () => {
    const base = '/api/v1/namespaces/default/configmaps?watch=true';
    const noMatch = await ts.request('GET', `${base}&sendInitialEvents=true`);
    assertStatus(noMatch, 422, 'Invalid', /^ListOptions\.meta\.k8s\.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan$/);
    const matchAlone = await ts.request('GET', `${base}&resourceVersionMatch=NotOlderThan&resourceVersion=1`);
    assertStatus(matchAlone, 422, 'Invalid', /resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided/);
  });

  it('watch option errors are all reported together, in upstream order', async () => {
    const base = '/api/v1/namespaces/default/configmaps?watch=true';
    const exact = await ts.request('GET', `${base}&sendInitialEvents=true&resourceVersionMatch=Exact`);
    assertStatus(
      exact,
      422,
      'Invalid',
      'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]',
    );
    assert.equal((exact.json as any).details.causes.length, 2);
    const foo = await ts.request('GET', `${base}&resourceVersionMatch=Foo`);
    assert.deepEqual(
      (foo.json as any).details.causes.map((c: { reason: string }) => c.reason),
      ['FieldValueForbidden', 'FieldValueNotSupported'],
    );
    const withContinue = await ts.request('GET', `${base}&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&continue=abc`);
    assertStatus(withContinue, 422, 'Invalid', /^ListOptions\.meta\.k8s\.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided$/);
  });

  it('the end-of-initial-events bookmark goes only to watchers that allow bookmarks', async () => {
    const ns = await createNamespace(ts, 'watch');
    await createConfigMap(ts, ns, 'one');
    const w = await openWatch(ts, `/api/v1/namespaces/${ns}/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`);
    try {
      const first = await w.next();
      assert.equal(first.type, 'ADDED');
      await createConfigMap(ts, ns, 'two');
      const second = await w.next();
      assert.equal(second.type, 'ADDED', 'no BOOKMARK between the initial state and the next change');
      assert.equal(second.object.metadata.name, 'two');
    } finally {
      w.close();
    }
  });

  it('sendInitialEvents=false without a resourceVersion: only changes from now on', async () => {
    const ns = await createNamespace(ts, 'watch');
    await createConfigMap(ts, ns, 'before');
    const w = await openWatch(ts, `/api/v1/namespaces/${ns}/configmaps?watch=1&sendInitialEvents=false&resourceVersionMatch=NotOlderThan`);
    try {
      assert.equal(w.status, 200);
      await createConfigMap(ts, ns, 'after');
      const ev = await w.next();
      assert.equal(ev.type, 'ADDED');
      assert.equal(ev.object.metadata.name, 'after');
    } finally {
      w.close();
    }
  });

  it('timeoutSeconds ends the stream cleanly', async () => {
    const ns = await createNamespace(ts, 'watch');
    const started = Date.now();
    const w = await openWatch(ts, `/api/v1/namespaces/${ns}/configmaps?watch=true&timeoutSeconds=1`);
    await Promise.race([w.ended, sleep(5000).then(() => assert.fail('watch did not end after timeoutSeconds'))]);
    const took = Date.now() - started;
    assert.ok(took >= 900 && took < 4000, `ended after ${took} ms`);
    assert.deepEqual(w.events, []);
  });

  it('many concurrent watchers all receive every event, and closing some does not disturb the rest', async () => {
    const ns = await createNamespace(ts, 'watch');
    const rv = (await createConfigMap(ts, ns, 'start')).metadata.resourceVersion;
    const watchers = await Promise.all(Array.from({ length: 25 }, () => openWatch(ts, `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${rv}`)));
    try {
      for (const w of watchers.slice(0, 5)) w.close();
      for (let i = 0; i < 5; i++) await createConfigMap(ts, ns, `m${i}`);
      for (const w of watchers.slice(5)) {
        const events = await w.take(5);
        assert.deepEqual(events.map((e) => `${e.type}:${e.object.metadata.name}`), ['ADDED:m0', 'ADDED:m1', 'ADDED:m2', 'ADDED:m3', 'ADDED:m4']);
      }
    } finally {
      for (const w of watchers) w.close();
    }
  });

  it('a cluster-wide watch of a namespaced resource sees every namespace', async () => {
    const a = await createNamespace(ts, 'watch');
    const b = await createNamespace(ts, 'watch');
    const rv = (await createConfigMap(ts, a, 'before')).metadata.resourceVersion;
    const w = await openWatch(ts, `/api/v1/configmaps?watch=true&resourceVersion=${rv}&labelSelector=${q('scope=all')}`);
    try {
      await createConfigMap(ts, a, 'x', {}, { scope: 'all' });
      await createConfigMap(ts, b, 'y', {}, { scope: 'all' });
      const events = await w.take(2);
      assert.deepEqual(events.map((e) => `${e.object.metadata.namespace}/${e.object.metadata.name}`), [`${a}/x`, `${b}/y`]);
    } finally {
      w.close();
    }
  });

  it('watching namespaces reports deletion start as MODIFIED with phase Terminating', async () => {
    const ns = await createNamespace(ts, 'watch');
    const w = await openWatch(ts, `/api/v1/namespaces?watch=true&fieldSelector=${q(`metadata.name=${ns}`)}`);
    try {
      const added = await w.next();
      assert.equal(added.type, 'ADDED');
      assert.equal((await ts.request('DELETE', `/api/v1/namespaces/${ns}`)).status, 200);
      const modified = await w.next();
      assert.equal(modified.type, 'MODIFIED');
      assert.equal(modified.object.status.phase, 'Terminating');
    } finally {
      w.close();
    }
  });
});
