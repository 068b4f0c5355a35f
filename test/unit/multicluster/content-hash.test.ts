import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contentHash } from '../../../src/multicluster/syncer/transform.js';

/**
 * The hashes a running fleet has stored in annotations (the spec hash of every object written down, negotiated and
 * SyncTarget hashes): an implementation change that altered them would make every syncer rewrite every object after
 * an upgrade. These values were computed by the map/join implementation the current one replaced.
 */
describe('contentHash', () => {
  it('gives the hashes earlier versions stored', () => {
    const deployment = { spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] } } } };
    assert.equal(contentHash(deployment), '3530c2103ed619f0');
    assert.equal(contentHash({ b: undefined, a: [1, undefined, null, 'x'], '10': true, '2': false }), 'a9bd18a429b8f4e2');
    assert.equal(contentHash('text'), '1e1d0f251d3a76fa');
    assert.equal(contentHash(null), '74234e98afe7498f');
    assert.equal(contentHash([]), '4f53cda18c2baa0c');
  });

  it('does not depend on key order', () => {
    assert.equal(contentHash({ a: 1, b: { c: 2, d: [3, { e: 4, f: 5 }] } }), contentHash({ b: { d: [3, { f: 5, e: 4 }], c: 2 }, a: 1 }));
    assert.notEqual(contentHash({ a: [1, 2] }), contentHash({ a: [2, 1] }));
  });
});
