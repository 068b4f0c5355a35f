/** The shared read cache of list objects (read-cache.ts) and the protobuf list written from pre-encoded items. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ReadCache } from '../../../src/registry/generic/read-cache.js';
import {
  encodeKubernetesProtobufList,
  encodeKubernetesProtobufListItem,
  encodeKubernetesProtobufListOfEncoded,
} from '../../../src/apimachinery/protobuf/encode.js';

describe('ReadCache', () => {
  it('answers only for the exact revision it holds', () => {
    const c = new ReadCache(1000);
    const obj = { kind: 'ConfigMap' };
    c.set('k', 5, obj, 10);
    assert.equal(c.get('k', 5), obj);
    assert.equal(c.get('k', 6), undefined);
    assert.equal(c.get('k', 4), undefined);
    assert.equal(c.get('other', 5), undefined);
    const newer = { kind: 'ConfigMap', data: {} };
    c.set('k', 6, newer, 12);
    assert.equal(c.get('k', 6), newer);
    assert.equal(c.get('k', 5), undefined);
    assert.deepEqual(c.stats(), { entries: 1, bytes: 12 });
  });

  it('evicts the least recently used entries beyond its byte budget', () => {
    const c = new ReadCache(30);
    c.set('a', 1, { n: 'a' }, 10);
    c.set('b', 1, { n: 'b' }, 10);
    c.set('c', 1, { n: 'c' }, 10);
    assert.ok(c.get('a', 1)); // a is now the most recently used
    c.set('d', 1, { n: 'd' }, 10);
    assert.equal(c.get('b', 1), undefined);
    assert.ok(c.get('a', 1));
    assert.ok(c.get('c', 1));
    assert.ok(c.get('d', 1));
    assert.deepEqual(c.stats(), { entries: 3, bytes: 30 });
    c.set('huge', 1, {}, 31); // larger than the whole budget: not kept
    assert.equal(c.get('huge', 1), undefined);
  });
});

describe('protobuf list from pre-encoded items', () => {
  it('is byte for byte the list encodeKubernetesProtobufList writes', () => {
    const items = Array.from({ length: 200 }, (_, i) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `cm-${i}`, namespace: 'ns', resourceVersion: String(100 + i), creationTimestamp: '2026-01-01T00:00:00Z', labels: { i: String(i) } },
      data: { payload: 'x'.repeat(i * 7) },
    }));
    for (const meta of [{ resourceVersion: '9' }, { resourceVersion: '300', continue: 'tok', remainingItemCount: 12 }]) {
      for (const some of [[], items.slice(0, 1), items]) {
        const want = Buffer.from(encodeKubernetesProtobufList('v1', 'ConfigMapList', 'ConfigMap', meta, some));
        const got = encodeKubernetesProtobufListOfEncoded('v1', 'ConfigMapList', meta, some.map((o) => encodeKubernetesProtobufListItem('v1', 'ConfigMap', o)));
        assert.ok(got.equals(want), `${some.length} items, ${JSON.stringify(meta)}`);
      }
    }
  });
});
