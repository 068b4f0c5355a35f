import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { progressNotifyFixedIn } from '../../../src/storage/etcd/etcd-store.js';

describe('etcd versions whose progress notifications follow the events (etcd issue 15220)', () => {
  it('3.4 before 3.4.25 and 3.5 before 3.5.8 may answer a progress request ahead of the events', () => {
    for (const v of ['3.3.27', '3.4.0', '3.4.23', '3.4.24', '3.5.0', '3.5.7']) assert.equal(progressNotifyFixedIn(v), false, v);
  });
  it('3.4.25+, 3.5.8+ and 3.6 do not; an unparsable version is taken as fixed', () => {
    for (const v of ['3.4.25', '3.4.34', '3.5.8', '3.5.16', '3.6.0', '4.0.0', 'unknown']) assert.equal(progressNotifyFixedIn(v), true, v);
  });
});
