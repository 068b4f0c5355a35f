/**
 * Lease-based leader election (src/controllers/leader-election.ts) among candidates talking to one server:
 * one leader at a time, the Lease fields as client-go writes them, hand-over on release, and a takeover
 * only after the lease expired when the holder vanished without releasing.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { RestClient } from '../../src/client/rest-client.js';
import { LEASES, LeaderElector, microTime } from '../../src/controllers/leader-election.js';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';

let ts: TestServer;
let client: RestClient;
before(async () => {
  ts = await startTestServer();
  client = new RestClient({ url: ts.url, ca: ts.server.caPem, token: ts.server.adminToken });
});
after(async () => {
  client?.close();
  await ts?.stop();
});

function candidate(name: string, identity: string, log: string[]): LeaderElector {
  return new LeaderElector({
    client,
    namespace: 'kube-system',
    name,
    identity,
    leaseDurationSeconds: 2,
    renewDeadlineMs: 1500,
    retryPeriodMs: 200,
    onStartedLeading: async () => void log.push(`start ${identity}`),
    onStoppedLeading: async () => void log.push(`stop ${identity}`),
  });
}

async function lease(name: string): Promise<any> {
  return client.get(LEASES, name, { namespace: 'kube-system' });
}

test('microTime has six fractional digits', () => {
  assert.equal(microTime(new Date('2024-05-06T07:08:09.123Z')), '2024-05-06T07:08:09.123000Z');
});

test('one leader at a time; release hands over at once and counts a transition', async () => {
  const log: string[] = [];
  const first = candidate('election-a', 'one', log);
  const second = candidate('election-a', 'two', log);
  await first.start();
  await second.start();
  assert.equal(first.isLeader(), true);
  assert.equal(second.isLeader(), false);
  const held = await lease('election-a');
  assert.deepEqual(
    { holder: held.spec.holderIdentity, duration: held.spec.leaseDurationSeconds, transitions: held.spec.leaseTransitions },
    { holder: 'one', duration: 2, transitions: 0 },
  );
  assert.match(held.spec.acquireTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  // The leader renews: renewTime moves, the holder stays.
  await new Promise((r) => setTimeout(r, 700));
  const renewed = await lease('election-a');
  assert.equal(renewed.spec.holderIdentity, 'one');
  assert.notEqual(renewed.spec.renewTime, held.spec.renewTime);
  assert.equal(second.isLeader(), false, 'a renewed lease is never taken');

  await first.stop();
  await eventually('the second candidate leading', () => second.isLeader(), 3_000, 20);
  const after = await lease('election-a');
  assert.equal(after.spec.holderIdentity, 'two');
  assert.equal(after.spec.leaseTransitions, 1);
  await second.stop();
  assert.deepEqual(log, ['start one', 'stop one', 'start two', 'stop two']);
});

test('a lease whose holder vanished is taken only after it expired', async () => {
  const now = microTime(new Date());
  await client.create(LEASES, {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'election-b', namespace: 'kube-system' },
    spec: { holderIdentity: 'ghost', leaseDurationSeconds: 2, acquireTime: now, renewTime: now, leaseTransitions: 4 },
  }, { namespace: 'kube-system' });
  const log: string[] = [];
  const c = candidate('election-b', 'heir', log);
  const started = Date.now();
  await c.start();
  assert.equal(c.isLeader(), false);
  await eventually('the heir leading', () => c.isLeader(), 5_000 - (Date.now() - started), 20);
  assert.ok(Date.now() - started >= 2000, 'waited for the lease duration');
  const taken = await lease('election-b');
  assert.equal(taken.spec.holderIdentity, 'heir');
  assert.equal(taken.spec.leaseTransitions, 5);
  await c.stop();
});

test('the lease is renewed while slow leader work starts (informers syncing): nobody else takes it meanwhile', async () => {
  const log: string[] = [];
  let release!: () => void;
  const slowStart = new Promise<void>((r) => (release = r));
  const slow = new LeaderElector({
    client,
    namespace: 'kube-system',
    name: 'election-c',
    identity: 'slow',
    leaseDurationSeconds: 2,
    renewDeadlineMs: 1500,
    retryPeriodMs: 200,
    onStartedLeading: async () => {
      log.push('starting slow');
      await slowStart;
      log.push('started slow');
    },
    onStoppedLeading: async () => void log.push('stop slow'),
  });
  const startedOnce = slow.start();
  const other = candidate('election-c', 'other', log);
  await other.start();
  // Three lease durations while the leader's work is still starting.
  await new Promise((r) => setTimeout(r, 6000));
  assert.equal(other.isLeader(), false, 'the slow starter kept its lease');
  assert.equal((await lease('election-c')).spec.holderIdentity, 'slow');
  release();
  await startedOnce;
  // Stopping waits for the start to finish, then stops what it started.
  await slow.stop();
  await other.stop();
  assert.deepEqual(log.filter((l) => l.includes('slow')), ['starting slow', 'started slow', 'stop slow']);
});

test('losing the lease while the work still starts aborts its signal at once; stop() does too', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let signal: AbortSignal | undefined;
  const stops: string[] = [];
  const slow = new LeaderElector({
    client,
    namespace: 'kube-system',
    name: 'election-d',
    identity: 'slow',
    leaseDurationSeconds: 2,
    renewDeadlineMs: 1500,
    retryPeriodMs: 200,
    onStartedLeading: async (s) => {
      signal = s;
      await gate;
    },
    onStoppedLeading: async () => void stops.push('stop'),
  });
  const started = slow.start();
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(signal?.aborted, false);
  // Someone else now holds the lease (as a replica would after taking it over): renewals fail, and after the renew
  // deadline the slow candidate stops leading although its work has not finished starting.
  const current = await lease('election-d');
  await client.update(LEASES, { ...current, spec: { ...current.spec, holderIdentity: 'usurper', renewTime: microTime(new Date()) } }, { namespace: 'kube-system' });
  await eventually('the start aborted while still pending', () => signal!.aborted, 5_000, 50);
  assert.equal(slow.isLeader(), false);
  assert.deepEqual(stops, [], 'stopping waits for the start to return');
  release();
  await started;
  await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(stops, ['stop']);
  await slow.stop();
  assert.deepEqual(stops, ['stop'], 'stopped once');

  // stop() while the work starts: the signal is aborted before the start returns.
  let release2!: () => void;
  const gate2 = new Promise<void>((r) => (release2 = r));
  let signal2: AbortSignal | undefined;
  const other = new LeaderElector({
    client, namespace: 'kube-system', name: 'election-e', identity: 'two', leaseDurationSeconds: 2, renewDeadlineMs: 1500, retryPeriodMs: 200,
    onStartedLeading: async (s) => {
      signal2 = s;
      await gate2;
    },
    onStoppedLeading: async () => undefined,
  });
  const started2 = other.start();
  await new Promise((r) => setTimeout(r, 200));
  const stopping = other.stop();
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(signal2?.aborted, true);
  release2();
  await started2;
  await stopping;
});

test('a start that fails releases the lease; never two leaders at once meanwhile', async () => {
  const failing = new LeaderElector({
    client, namespace: 'kube-system', name: 'election-f', identity: 'failing', leaseDurationSeconds: 2, renewDeadlineMs: 1500, retryPeriodMs: 100,
    onStartedLeading: async () => {
      await new Promise((r) => setTimeout(r, 90));
      throw new Error('cannot start');
    },
    onStoppedLeading: async () => undefined,
  });
  const steady = candidate('election-f', 'steady', []);
  await failing.start();
  await steady.start();
  let both = 0;
  let steadyLed = false;
  const until = Date.now() + 4000;
  while (Date.now() < until) {
    if (failing.isLeader() && steady.isLeader()) both++;
    steadyLed ||= steady.isLeader();
    await new Promise((r) => setTimeout(r, 10));
  }
  await failing.stop();
  await steady.stop();
  assert.equal(both, 0, 'both led at once');
  assert.ok(steadyLed, 'the other candidate got the lease the failing one released');
});
