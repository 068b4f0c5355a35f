/** EventRecorder: one Event per call, or with `aggregate` repeats counted on the first (client-go's EventCorrelator). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EventRecorder } from '../../../src/controllers/runtime/event-recorder.js';
import type { RestClient } from '../../../src/client/rest-client.js';
import { StatusError } from '../../../src/apimachinery/status.js';

/** A client that records creates and patches, and can forget events (as if they expired). */
function fakeClient() {
  const calls: { verb: string; name: string; body: any }[] = [];
  const stored = new Set<string>();
  const client = {
    async create(_gvr: unknown, obj: any) {
      calls.push({ verb: 'create', name: obj.metadata.name, body: obj });
      stored.add(obj.metadata.name);
      return obj;
    },
    async patch(_gvr: unknown, name: string, _type: string, body: any) {
      calls.push({ verb: 'patch', name, body });
      if (!stored.has(name)) throw new StatusError({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404, reason: 'NotFound', message: 'gone' } as any);
      return {};
    },
  };
  return { client: client as unknown as RestClient, calls, stored };
}

const claim = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: 'default', name: 'data', uid: 'u1' };

describe('EventRecorder', () => {
  it('creates an Event per call by default', async () => {
    const { client, calls } = fakeClient();
    const r = new EventRecorder(client, 'c');
    await r.record('root', claim, 'Normal', 'Waiting', 'waiting');
    await r.record('root', claim, 'Normal', 'Waiting', 'waiting');
    assert.deepEqual(calls.map((c) => c.verb), ['create', 'create']);
  });

  it('with aggregate, counts a repeat on the first Event, and creates anew for another message or once the first is gone', async () => {
    const { client, calls, stored } = fakeClient();
    const r = new EventRecorder(client, 'c', { aggregate: true });
    await Promise.all([r.record('root', claim, 'Warning', 'ProvisioningFailed', 'full'), r.record('root', claim, 'Warning', 'ProvisioningFailed', 'full')]);
    await r.record('root', claim, 'Warning', 'ProvisioningFailed', 'full');
    assert.deepEqual(calls.map((c) => c.verb), ['create', 'patch', 'patch']);
    assert.equal(calls[0]!.body.count, 1);
    assert.deepEqual(calls.slice(1).map((c) => [c.name, c.body.count]), [[calls[0]!.name, 2], [calls[0]!.name, 3]]);
    assert.ok(calls[2]!.body.lastTimestamp);
    await r.record('root', claim, 'Warning', 'ProvisioningFailed', 'other');
    assert.equal(calls.at(-1)!.verb, 'create');
    stored.clear();
    await r.record('root', claim, 'Warning', 'ProvisioningFailed', 'full');
    assert.deepEqual(calls.slice(-2).map((c) => c.verb), ['patch', 'create']);
  });
});
