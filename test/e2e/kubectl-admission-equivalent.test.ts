/**
 * matchPolicy Equivalent across resources that share a storage, with the real kubectl 1.32 and a real HTTPS webhook
 * on loopback (k8s.io/apiserver webhook/generic: the equivalent resource mapper, versioned attributes): a rule for
 * events.k8s.io/v1 events matches a core/v1 Event create and the webhook gets the object as an events.k8s.io/v1 Event
 * (requestKind and requestResource keep core/v1); a mutating webhook's patch of the other form lands in the stored
 * object; a rule for autoscaling/v1 HPAs matches an autoscaling/v2 create (the object converted to v1); matchPolicy
 * Exact matches only what the rule names. Run on a simulated cluster, which serves Events and HPAs.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harnessFor, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { admissionResponse, jsonPatch, startWebhookServer, type WebhookServer } from '../helpers/webhook-server.js';
import { startPcluster } from '../../src/pcluster/pcluster.js';

let t: TestServer;
let wh: WebhookServer;

async function ok(args: string[], input?: string): Promise<string> {
  const r = await t.kubectl(args, input === undefined ? {} : { input });
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

before(async () => {
  wh = await startWebhookServer();
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-admission-equivalent-'));
  const cluster = await startPcluster({ name: 'eq', rootDir, bindAddress: '127.0.0.1', securePort: 0, readyDelayMs: 200 });
  t = harnessFor(cluster, rootDir, async () => {
    await cluster.stop();
    rmSync(rootDir, { recursive: true, force: true });
  });
});

after(async () => {
  await t?.stop();
  await wh?.close();
});

const configuration = (kind: 'Validating' | 'Mutating', name: string, path: string, rule: Record<string, unknown>, matchPolicy?: string) =>
  JSON.stringify({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: `${kind}WebhookConfiguration`,
    metadata: { name },
    webhooks: [{ name: `${name}.example.com`, clientConfig: { url: `${wh.url}${path}`, caBundle: wh.caBundle }, rules: [{ operations: ['CREATE'], ...rule }], ...(matchPolicy ? { matchPolicy } : {}), sideEffects: 'None', admissionReviewVersions: ['v1'] }],
  });

const coreEvent = (name: string, message: string) =>
  JSON.stringify({
    apiVersion: 'v1', kind: 'Event', metadata: { name, namespace: 'default' },
    involvedObject: { apiVersion: 'v1', kind: 'Pod', name: 'p', namespace: 'default' },
    reason: 'Testing', message, type: 'Normal', source: { component: 'tester' },
  });

test('a webhook for events.k8s.io/v1 events reviews a core/v1 Event as events.k8s.io/v1; Exact does not', async () => {
  wh.handle('/events', (review) =>
    String(review.request.object?.note ?? '').includes('deny-me')
      ? admissionResponse(review, { allowed: false, status: { message: `note ${review.request.object.note} refused` } })
      : admissionResponse(review, { allowed: true }),
  );
  await ok(['apply', '-f', '-'], configuration('Validating', 'events-v1', '/events', { apiGroups: ['events.k8s.io'], apiVersions: ['v1'], resources: ['events'] }));
  const refused = await eventually('the webhook refuses the core Event', async () => {
    const r = await t.kubectl(['create', '-f', '-'], { input: coreEvent(`ev-${Date.now()}`, 'please deny-me') });
    return r.code !== 0 && /refused/.test(r.stderr) && r;
  }, 20_000);
  assert.match(refused.stderr, /admission webhook "events-v1\.example\.com" denied the request: note please deny-me refused/);
  const req = wh.received.get('/events')!.at(-1).request;
  assert.deepEqual(req.kind, { group: 'events.k8s.io', version: 'v1', kind: 'Event' });
  assert.deepEqual(req.resource, { group: 'events.k8s.io', version: 'v1', resource: 'events' });
  assert.deepEqual(req.requestKind, { group: '', version: 'v1', kind: 'Event' });
  assert.deepEqual(req.requestResource, { group: '', version: 'v1', resource: 'events' });
  assert.equal(req.object.apiVersion, 'events.k8s.io/v1');
  assert.equal(req.object.note, 'please deny-me');
  assert.deepEqual(req.object.regarding, { apiVersion: 'v1', kind: 'Pod', name: 'p', namespace: 'default' });
  assert.equal(req.object.message, undefined, 'the core field is not in the events.k8s.io form');
  assert.equal(await ok(['create', '-f', '-'], coreEvent('fine', 'all good')), 'event/fine created\n');

  // matchPolicy Exact: only events.k8s.io/v1 requests.
  await ok(['apply', '-f', '-'], configuration('Validating', 'events-v1', '/events', { apiGroups: ['events.k8s.io'], apiVersions: ['v1'], resources: ['events'] }, 'Exact'));
  await eventually('Exact no longer matches core Events', async () => {
    const r = await t.kubectl(['create', '-f', '-'], { input: coreEvent(`exact-${Date.now()}`, 'deny-me too') });
    return r.code === 0;
  }, 20_000);
  await ok(['delete', 'validatingwebhookconfiguration', 'events-v1']);
});

test("a mutating webhook for core/v1 events patches an events.k8s.io/v1 Event's core form", async () => {
  wh.handle('/mutate-events', (review) =>
    admissionResponse(review, { allowed: true, patchType: 'JSONPatch', patch: jsonPatch([{ op: 'replace', path: '/message', value: `${review.request.object.message} (seen by the webhook)` }]) }),
  );
  await ok(['apply', '-f', '-'], configuration('Mutating', 'core-events', '/mutate-events', { apiGroups: [''], apiVersions: ['v1'], resources: ['events'] }));
  const event = (name: string) =>
    JSON.stringify({
      apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name, namespace: 'default' },
      eventTime: new Date().toISOString().replace(/Z$/, '000Z'), reportingController: 'example.com/tester', reportingInstance: 'tester-1',
      action: 'Testing', reason: 'Testing', type: 'Normal', note: 'from events.k8s.io', regarding: { apiVersion: 'v1', kind: 'Pod', name: 'p', namespace: 'default' },
    });
  const note = await eventually('the patched note', async () => {
    const name = `mutated-${Date.now()}`;
    await ok(['create', '-f', '-'], event(name));
    const n = await ok(['get', 'events.v1.events.k8s.io', name, '-o', 'jsonpath={.note}']);
    return n.includes('seen by the webhook') && n;
  }, 20_000);
  assert.equal(note, 'from events.k8s.io (seen by the webhook)');
  const req = wh.received.get('/mutate-events')!.at(-1).request;
  assert.deepEqual(req.kind, { group: '', version: 'v1', kind: 'Event' });
  assert.deepEqual(req.requestKind, { group: 'events.k8s.io', version: 'v1', kind: 'Event' });
  assert.equal(req.object.apiVersion, 'v1');
  assert.equal(req.object.message, 'from events.k8s.io');
  await ok(['delete', 'mutatingwebhookconfiguration', 'core-events']);
});

test('a webhook for autoscaling/v1 HPAs reviews an autoscaling/v2 create as v1', async () => {
  wh.handle('/hpa', (review) =>
    review.request.object?.spec?.targetCPUUtilizationPercentage > 90
      ? admissionResponse(review, { allowed: false, status: { message: `a CPU target of ${review.request.object.spec.targetCPUUtilizationPercentage}% is too high` } })
      : admissionResponse(review, { allowed: true }),
  );
  await ok(['apply', '-f', '-'], configuration('Validating', 'hpa-v1', '/hpa', { apiGroups: ['autoscaling'], apiVersions: ['v1'], resources: ['horizontalpodautoscalers'] }));
  const hpa = (name: string, cpu: number) =>
    JSON.stringify({
      apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name, namespace: 'default' },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 3, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: cpu } } }] },
    });
  const refused = await eventually('the webhook refuses the v2 HPA', async () => {
    const r = await t.kubectl(['create', '-f', '-'], { input: hpa(`hot-${Date.now()}`, 95) });
    return r.code !== 0 && /too high/.test(r.stderr) && r;
  }, 20_000);
  assert.match(refused.stderr, /admission webhook "hpa-v1\.example\.com" denied the request: a CPU target of 95% is too high/);
  const req = wh.received.get('/hpa')!.at(-1).request;
  assert.deepEqual(req.kind, { group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' });
  assert.deepEqual(req.requestKind, { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' });
  assert.deepEqual(req.requestResource, { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' });
  assert.equal(req.object.apiVersion, 'autoscaling/v1');
  assert.equal(req.object.spec.metrics, undefined);
  assert.equal(await ok(['create', '-f', '-'], hpa('cool', 60)), 'horizontalpodautoscaler.autoscaling/cool created\n');
  await ok(['delete', 'validatingwebhookconfiguration', 'hpa-v1']);
});

test('a ValidatingAdmissionPolicy for events.k8s.io/v1 events evaluates a core/v1 Event as events.k8s.io/v1', async () => {
  await ok(['apply', '-f', '-'], JSON.stringify({
    apiVersion: 'v1', kind: 'List', items: [
      {
        apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'event-notes' },
        spec: {
          matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: ['events.k8s.io'], apiVersions: ['v1'], resources: ['events'] }] },
          validations: [{ expression: "request.kind.group == 'events.k8s.io' && request.requestKind.group == '' && object.note != 'blocked'", messageExpression: "'note ' + object.note + ' is blocked'" }],
        },
      },
      { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'event-notes' }, spec: { policyName: 'event-notes', validationActions: ['Deny'] } },
    ],
  }));
  const refused = await eventually('the policy refuses the core Event', async () => {
    const r = await t.kubectl(['create', '-f', '-'], { input: coreEvent(`blocked-${Date.now()}`, 'blocked') });
    return r.code !== 0 && /is blocked/.test(r.stderr) && r;
  }, 20_000);
  assert.match(refused.stderr, /ValidatingAdmissionPolicy 'event-notes' with binding 'event-notes' denied request: note blocked is blocked/);
  assert.equal(await ok(['create', '-f', '-'], coreEvent('passes', 'not blocked')), 'event/passes created\n');
  await ok(['delete', 'validatingadmissionpolicy,validatingadmissionpolicybinding', 'event-notes']);
});
