/**
 * CRD conversion webhooks against a real server and a real HTTPS webhook server on loopback: a CRD whose v1 (storage)
 * has spec.host and v2 spec.hostname. Reads, lists (one review per page), watches (in order), writes in either
 * version (stored as v1, answered in the request's version), storage-version migration on write, the validation of
 * spec.conversion, each malformed response's error text, a dead webhook (get, list, create, watch), a webhook behind
 * a Service, kubectl in both versions, and a None-strategy CRD that never calls out.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { admissionResponse, jsonPatch, startWebhookServer, type WebhookServer } from '../helpers/webhook-server.js';
import { multiclusterPlugin } from '../../src/multicluster/server-options.js';
import { installCRD, waitForCRD } from './crd-support.js';
import { openWatch } from './support.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const NS = 'conv';
const v1Path = (name = '') => `/apis/conv.example.com/v1/namespaces/${NS}/widgets${name ? '/' + name : ''}`;
const v2Path = (name = '') => `/apis/conv.example.com/v2/namespaces/${NS}/widgets${name ? '/' + name : ''}`;

let ts: TestServer;
let wh: WebhookServer;
/** How the webhook answers: 'ok' converts; anything else is one of the malformed answers below. */
let mode = 'ok';

const schema = (field: string) => ({
  openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { [field]: { type: 'string' }, size: { type: 'integer' } } } } },
});

/** The conversion: v1 spec.host <-> v2 spec.hostname. */
function convert(obj: any, desired: string): any {
  const out = structuredClone(obj);
  const spec = out.spec ?? {};
  if (desired.endsWith('/v2') && 'host' in spec) {
    spec.hostname = spec.host;
    delete spec.host;
  } else if (desired.endsWith('/v1') && 'hostname' in spec) {
    spec.host = spec.hostname;
    delete spec.hostname;
  }
  out.apiVersion = desired;
  return out;
}

function answer(review: any): any {
  const req = review.request;
  const converted = req.objects.map((o: any) => convert(o, req.desiredAPIVersion));
  const ok = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response: { uid: req.uid, result: { status: 'Success' }, convertedObjects: converted } };
  switch (mode) {
    case 'ok':
      return ok;
    case 'wrong-uid':
      return { ...ok, response: { ...ok.response, uid: 'nope' } };
    case 'no-kind':
      return { apiVersion: 'apiextensions.k8s.io/v1', response: ok.response };
    case 'failure-message':
      return { ...ok, response: { uid: req.uid, result: { status: 'Failure', message: 'custom webhook conversion error' } } };
    case 'failure-empty':
      return { ...ok, response: { uid: req.uid, result: { status: 'Failure' } } };
    case 'empty':
      return { ...ok, response: { ...ok.response, convertedObjects: [] } };
    case 'wrong-version':
      return { ...ok, response: { ...ok.response, convertedObjects: converted.map((o: any) => ({ ...o, apiVersion: 'conv.example.com/v3' })) } };
    case 'wrong-kind':
      return { ...ok, response: { ...ok.response, convertedObjects: converted.map((o: any) => ({ ...o, kind: 'Gadget' })) } };
    case 'renamed':
      return { ...ok, response: { ...ok.response, convertedObjects: converted.map((o: any) => ({ ...o, metadata: { ...o.metadata, name: 'other' } })) } };
    case 'bad-label':
      return { ...ok, response: { ...ok.response, convertedObjects: converted.map((o: any) => ({ ...o, metadata: { ...o.metadata, labels: { 'bad label': 'x' } } })) } };
    case 'meta-changes':
      // Only labels and annotations may change; the generation change is dropped, the label kept.
      return { ...ok, response: { ...ok.response, convertedObjects: converted.map((o: any) => ({ ...o, metadata: { ...o.metadata, generation: 42, labels: { converted: 'yes' } } })) } };
    case 'server-error':
      return undefined;
  }
  return ok;
}

function widget(version: 'v1' | 'v2', name: string, host: string, extra: Record<string, unknown> = {}): any {
  return { apiVersion: `conv.example.com/${version}`, kind: 'Widget', metadata: { name, ...extra }, spec: version === 'v1' ? { host } : { hostname: host } };
}

function crd(name: string, group: string, conversion: unknown, storage = 'v1'): any {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${name}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: name, singular: name.replace(/s$/, ''), kind: name === 'widgets' ? 'Widget' : 'Gizmo', listKind: name === 'widgets' ? 'WidgetList' : 'GizmoList' },
      versions: [
        { name: 'v1', served: true, storage: storage === 'v1', schema: schema('host') },
        { name: 'v2', served: true, storage: storage === 'v2', schema: schema('hostname') },
      ],
      conversion,
    },
  };
}

const webhookConversion = (clientConfig?: unknown) => ({ strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: clientConfig ?? { url: `${wh.url}/convert`, caBundle: wh.caBundle } } });
const reviews = () => wh.received.get('/convert') ?? [];

before(async () => {
  // The multi-cluster feature serves core/v1 Services (as `atrium start` does), which `service` webhooks need.
  ts = await startTestServer({ server: { plugins: [{ ...multiclusterPlugin(), controllers: undefined }] } });
  wh = await startWebhookServer();
  wh.handle('/convert', (review) => {
    if (mode === 'server-error') return { never: 'mind' };
    return answer(review);
  });
  const ns = await ts.request('POST', '/api/v1/namespaces', { metadata: { name: NS } });
  assert.equal(ns.status, 201, ns.text);
  await installCRD(ts, crd('widgets', 'conv.example.com', webhookConversion()));
});
after(async () => {
  await wh?.close();
  await ts?.stop();
});

describe('spec.conversion validation', () => {
  it('refuses what upstream refuses, with its messages, and defaults a service port', async () => {
    const cases: [unknown, string][] = [
      [{ strategy: 'Webhook' }, '[spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook, spec.conversion.conversionReviewVersions: Required value]'],
      [{ strategy: 'Webhook', webhook: { clientConfig: { url: 'https://x.example.com/c' } } }, 'spec.conversion.conversionReviewVersions: Required value'],
      [{ strategy: 'Webhook', webhook: { conversionReviewVersions: ['v3'], clientConfig: { url: 'https://x.example.com/c' } } }, 'spec.conversion.conversionReviewVersions: Invalid value: []string{"v3"}: must include at least one of v1, v1beta1'],
      [{ strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'http://x.example.com/c' } } }, `spec.conversion.webhookClientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`],
      [{ strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'https://x.example.com/c', service: { namespace: 'a', name: 'b' } } } }, 'spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required'],
      // Upstream swaps name and namespace when it validates the service (see validateConversion).
      [{ strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { service: { namespace: 'a' } } } }, 'spec.conversion.webhookClientConfig.service.namespace: Required value: service namespace is required'],
      [{ strategy: 'None', webhook: { conversionReviewVersions: ['v1'] } }, 'spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook'],
    ];
    for (const [conversion, message] of cases) {
      const r = await ts.request('POST', CRDS, crd('gizmos', 'bad.example.com', conversion));
      assert.equal(r.status, 422, r.text);
      assert.equal(r.json.message, `CustomResourceDefinition.apiextensions.k8s.io "gizmos.bad.example.com" is invalid: ${message}`);
    }
    const ok = await ts.request('POST', CRDS, { ...crd('gizmos', 'svc.example.com', webhookConversion({ service: { namespace: 'default', name: 'conv' } })), metadata: { name: 'gizmos.svc.example.com' } });
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.json.spec.conversion.webhook.clientConfig.service.port, 443);
    await ts.request('DELETE', `${CRDS}/gizmos.svc.example.com`);
  });
});

describe('conversion through the webhook', () => {
  it('reads in the other version through the webhook, and not at all in the stored one', async () => {
    mode = 'ok';
    const before = reviews().length;
    const created = await ts.request('POST', v1Path(), widget('v1', 'one', 'a.example.com'));
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json.spec, { host: 'a.example.com' });
    const same = await ts.request('GET', v1Path('one'));
    assert.equal(same.status, 200);
    assert.equal(reviews().length, before, 'v1 is the storage version: no review');

    const got = await ts.request('GET', v2Path('one'));
    assert.equal(got.status, 200, got.text);
    assert.equal(got.json.apiVersion, 'conv.example.com/v2');
    assert.deepEqual(got.json.spec, { hostname: 'a.example.com' });
    assert.equal(got.json.metadata.resourceVersion, created.json.metadata.resourceVersion);
    const review = reviews().at(-1);
    assert.equal(review.apiVersion, 'apiextensions.k8s.io/v1');
    assert.equal(review.kind, 'ConversionReview');
    assert.equal(review.request.desiredAPIVersion, 'conv.example.com/v2');
    assert.match(review.request.uid, /^[0-9a-f-]{36}$/);
    assert.equal(review.request.objects.length, 1);
    assert.equal(review.request.objects[0].apiVersion, 'conv.example.com/v1');
    assert.equal(review.request.objects[0].metadata.uid, created.json.metadata.uid);
  });

  it('lists a page in one review', async () => {
    mode = 'ok';
    for (const n of ['two', 'three']) assert.equal((await ts.request('POST', v1Path(), widget('v1', n, `${n}.example.com`))).status, 201);
    const before = reviews().length;
    const list = await ts.request('GET', v2Path());
    assert.equal(list.status, 200, list.text);
    assert.equal(list.json.kind, 'WidgetList');
    assert.equal(list.json.apiVersion, 'conv.example.com/v2');
    assert.deepEqual(list.json.items.map((i: any) => [i.apiVersion, i.metadata.name, i.spec.hostname]), [
      ['conv.example.com/v2', 'one', 'a.example.com'],
      ['conv.example.com/v2', 'three', 'three.example.com'],
      ['conv.example.com/v2', 'two', 'two.example.com'],
    ]);
    assert.equal(reviews().length, before + 1);
    assert.equal(reviews().at(-1).request.objects.length, 3);
    const paged = await ts.request('GET', `${v2Path()}?limit=2`);
    assert.equal(paged.json.items.length, 2);
    assert.equal(reviews().length, before + 2);
    assert.equal(reviews().at(-1).request.objects.length, 2);
  });

  it('watches in the other version, events in order', async () => {
    mode = 'ok';
    const rv = (await ts.request('GET', v1Path())).json.metadata.resourceVersion;
    const w = await openWatch(ts, `${v2Path()}?watch=1&resourceVersion=${rv}`);
    try {
      const names = ['w1', 'w2', 'w3', 'w4'];
      await Promise.all(names.map((n) => ts.request('POST', v1Path(), widget('v1', n, `${n}.example.com`))));
      await ts.request('DELETE', v1Path('w1'));
      const events = await w.take(5);
      assert.deepEqual(events.slice(0, 4).map((e) => e.type), ['ADDED', 'ADDED', 'ADDED', 'ADDED']);
      const order = events.map((e) => Number(e.object.metadata.resourceVersion));
      assert.deepEqual(order, [...order].sort((a, b) => a - b), 'in revision order');
      for (const e of events) {
        assert.equal(e.object.apiVersion, 'conv.example.com/v2');
        assert.equal(e.object.spec.hostname, `${e.object.metadata.name}.example.com`);
      }
      assert.equal(events[4]!.type, 'DELETED');
      assert.equal(events[4]!.object.metadata.name, 'w1');
    } finally {
      w.close();
    }
  });

  it('writes through v2: stored as v1, answered in v2 (create, update, patch, server-side apply)', async () => {
    mode = 'ok';
    const created = await ts.request('POST', v2Path(), widget('v2', 'from-v2', 'b.example.com'));
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.apiVersion, 'conv.example.com/v2');
    assert.deepEqual(created.json.spec, { hostname: 'b.example.com' });
    const toStorage = reviews().find((r) => r.request.desiredAPIVersion === 'conv.example.com/v1' && r.request.objects[0]?.metadata?.name === 'from-v2');
    assert.ok(toStorage, 'the create was converted to the storage version');
    assert.equal(toStorage.request.objects[0].metadata.resourceVersion, undefined);
    const asV1 = await ts.request('GET', v1Path('from-v2'));
    assert.deepEqual(asV1.json.spec, { host: 'b.example.com' });

    const put = await ts.request('PUT', v2Path('from-v2'), { ...created.json, spec: { hostname: 'c.example.com', size: 3 } });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.json.spec, { hostname: 'c.example.com', size: 3 });
    assert.equal(put.json.metadata.generation, 2);
    assert.deepEqual((await ts.request('GET', v1Path('from-v2'))).json.spec, { host: 'c.example.com', size: 3 });

    const patched = await ts.request('PATCH', v2Path('from-v2'), { spec: { hostname: 'd.example.com' } }, { headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.json.spec, { hostname: 'd.example.com', size: 3 });
    assert.deepEqual((await ts.request('GET', v1Path('from-v2'))).json.spec, { host: 'd.example.com', size: 3 });

    const applied = await ts.request('PATCH', `${v2Path('applied')}?fieldManager=tester`, widget('v2', 'applied', 'e.example.com'), { headers: { 'Content-Type': 'application/apply-patch+yaml' } });
    assert.equal(applied.status, 201, applied.text);
    assert.deepEqual(applied.json.spec, { hostname: 'e.example.com' });
    assert.equal(applied.json.metadata.managedFields[0].apiVersion, 'conv.example.com/v2');
    assert.deepEqual((await ts.request('GET', v1Path('applied'))).json.spec, { host: 'e.example.com' });

    const dry = await ts.request('POST', `${v2Path()}?dryRun=All`, widget('v2', 'dry', 'f.example.com'));
    assert.equal(dry.status, 201, dry.text);
    assert.deepEqual(dry.json.spec, { hostname: 'f.example.com' });
    assert.equal((await ts.request('GET', v1Path('dry'))).status, 404);

    const del = await ts.request('DELETE', v2Path('applied'));
    assert.equal(del.status, 200, del.text);
  });

  it('admission webhooks of another version (matchPolicy Equivalent) see the object converted to it', async () => {
    mode = 'ok';
    wh.handle('/mutate', (review) => admissionResponse(review, { allowed: true, patchType: 'JSONPatch', patch: jsonPatch([{ op: 'replace', path: '/spec/host', value: `mutated-${review.request.object.spec.host}` }]) }));
    wh.handle('/validate', (review) => admissionResponse(review, { allowed: true }));
    const rules = [{ operations: ['CREATE'], apiGroups: ['conv.example.com'], apiVersions: ['v1'], resources: ['widgets'] }];
    const hook = (name: string, path: string) => ({ name, clientConfig: { url: `${wh.url}${path}`, caBundle: wh.caBundle }, rules, sideEffects: 'None', admissionReviewVersions: ['v1'] });
    for (const [kind, path] of [['Mutating', '/mutate'], ['Validating', '/validate']] as const) {
      const r = await ts.request('POST', `/apis/admissionregistration.k8s.io/v1/${kind.toLowerCase()}webhookconfigurations`, { metadata: { name: 'conv-v1' }, webhooks: [hook(`${kind.toLowerCase()}.conv.example.com`, path)] });
      assert.equal(r.status, 201, r.text);
    }
    try {
      const created = await ts.request('POST', v2Path(), widget('v2', 'admitted', 'm.example.com'));
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(created.json.spec, { hostname: 'mutated-m.example.com' });
      const seen = wh.received.get('/validate')!.at(-1).request;
      assert.equal(seen.object.apiVersion, 'conv.example.com/v1');
      assert.deepEqual(seen.object.spec, { host: 'mutated-m.example.com' });
      assert.deepEqual(seen.requestKind, { group: 'conv.example.com', version: 'v2', kind: 'Widget' });
    } finally {
      for (const kind of ['mutating', 'validating']) await ts.request('DELETE', `/apis/admissionregistration.k8s.io/v1/${kind}webhookconfigurations/conv-v1`);
    }
    await ts.request('DELETE', v2Path('admitted'));
  });

  it('keeps only labels and annotations of what the webhook changes in metadata', async () => {
    mode = 'meta-changes';
    try {
      const got = await ts.request('GET', v2Path('one'));
      assert.equal(got.status, 200, got.text);
      assert.deepEqual(got.json.metadata.labels, { converted: 'yes' });
      assert.equal(got.json.metadata.generation, 1);
    } finally {
      mode = 'ok';
    }
  });

  it('answers a malformed response as kube-apiserver does, with its texts', async () => {
    const cases: [string, string][] = [
      ['wrong-uid', 'conversion webhook for conv.example.com/v1, Kind=Widget failed: expected response.uid="<uid>", got "nope"'],
      ['no-kind', 'conversion webhook for conv.example.com/v1, Kind=Widget failed: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got apiextensions.k8s.io/v1, Kind='],
      ['failure-message', 'conversion webhook for conv.example.com/v1, Kind=Widget failed: custom webhook conversion error'],
      ['failure-empty', "conversion webhook for conv.example.com/v1, Kind=Widget failed: response.result.status was 'Failure', not 'Success'"],
      ['empty', 'conversion webhook for conv.example.com/v1, Kind=Widget returned 0 objects, expected 1'],
      ['wrong-version', 'conversion webhook for conv.example.com/v1, Kind=Widget returned invalid object at index 0: invalid groupVersion (expected conv.example.com/v2, received conv.example.com/v3)'],
      ['wrong-kind', 'conversion webhook for conv.example.com/v1, Kind=Widget returned invalid object at index 0: invalid kind (expected Widget, received Gadget)'],
      ['renamed', 'conversion webhook for conv.example.com/v1, Kind=Widget returned invalid object: must have the same name: one != other'],
      [
        'bad-label',
        `conversion webhook for conv.example.com/v1, Kind=Widget returned invalid metadata: metadata.labels: Invalid value: "bad label": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      ],
      ['server-error', 'conversion webhook for conv.example.com/v1, Kind=Widget failed: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got /, Kind='],
    ];
    try {
      for (const [m, message] of cases) {
        mode = m;
        const r = await ts.request('GET', v2Path('one'));
        assert.equal(r.status, 500, `${m}: ${r.text}`);
        const uid = reviews().at(-1).request.uid;
        assert.deepEqual(r.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: message.replace('<uid>', uid), code: 500 }, m);
      }
      // Lists and writes fail alike.
      mode = 'failure-message';
      const list = await ts.request('GET', v2Path());
      assert.equal(list.status, 500);
      assert.match(list.json.message, /^conversion webhook for conv\.example\.com\/v1, Kind=Widget failed: custom webhook conversion error$/);
      const create = await ts.request('POST', v2Path(), widget('v2', 'refused', 'g.example.com'));
      assert.equal(create.status, 500);
      assert.equal(create.json.message, 'conversion webhook for conv.example.com/v2, Kind=Widget failed: custom webhook conversion error');
      assert.equal((await ts.request('GET', v1Path('refused'))).status, 404, 'nothing was stored');
    } finally {
      mode = 'ok';
    }
  });

  it('a dead webhook: get, list and create fail with the call error, a watch ends with an InternalError event', async () => {
    mode = 'ok';
    const rv = (await ts.request('GET', v1Path())).json.metadata.resourceVersion;
    const w = await openWatch(ts, `${v2Path()}?watch=1&resourceVersion=${rv}`);
    const dead = await startWebhookServer();
    const deadURL = `${dead.url}/convert`;
    await dead.close();
    const current = (await ts.request('GET', `${CRDS}/widgets.conv.example.com`)).json;
    current.spec.conversion.webhook.clientConfig = { url: deadURL, caBundle: dead.caBundle };
    const updated = await ts.request('PUT', `${CRDS}/widgets.conv.example.com`, current);
    assert.equal(updated.status, 200, updated.text);
    const port = new URL(deadURL).port;
    const callError = `Post "https://127.0.0.1:${port}/convert?timeout=30s": dial tcp 127.0.0.1:${port}: connect: connection refused`;
    try {
      const got = await ts.request('GET', v2Path('one'));
      assert.equal(got.status, 500, got.text);
      assert.equal(got.json.message, `conversion webhook for conv.example.com/v1, Kind=Widget failed: ${callError}`);
      assert.equal(got.json.reason, undefined);
      assert.equal((await ts.request('GET', v2Path())).status, 500);
      const created = await ts.request('POST', v2Path(), widget('v2', 'dead', 'h.example.com'));
      assert.equal(created.status, 500);
      assert.equal(created.json.message, `conversion webhook for conv.example.com/v2, Kind=Widget failed: ${callError}`);
      // The storage version is still served without the webhook.
      assert.equal((await ts.request('GET', v1Path('one'))).status, 200);
      assert.equal((await ts.request('POST', v1Path(), widget('v1', 'while-dead', 'i.example.com'))).status, 201);
      const ev = await w.next();
      assert.equal(ev.type, 'ERROR');
      assert.deepEqual(ev.object, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `Internal error occurred: conversion webhook for conv.example.com/v1, Kind=Widget failed: ${callError}`,
        reason: 'InternalError',
        details: { causes: [{ message: `conversion webhook for conv.example.com/v1, Kind=Widget failed: ${callError}` }] },
        code: 500,
      });
      await w.ended;
      const out = await ts.kubectl(['get', 'widgets.v2.conv.example.com', '-n', NS, 'one']);
      assert.notEqual(out.code, 0);
      assert.match(out.stderr, new RegExp(`Error from server: conversion webhook for conv\\.example\\.com/v1, Kind=Widget failed: Post "https://127\\.0\\.0\\.1:${port}/convert\\?timeout=30s": dial tcp`));
    } finally {
      w.close();
      current.spec.conversion.webhook.clientConfig = { url: `${wh.url}/convert`, caBundle: wh.caBundle };
      current.metadata.resourceVersion = updated.json.metadata.resourceVersion;
      assert.equal((await ts.request('PUT', `${CRDS}/widgets.conv.example.com`, current)).status, 200);
    }
    await ts.request('DELETE', v1Path('while-dead'));
  });

  it('kubectl gets either version', async () => {
    mode = 'ok';
    const v2 = await ts.kubectl(['get', 'widgets.v2.conv.example.com', '-n', NS, 'one', '-o', 'jsonpath={.apiVersion} {.spec.hostname}']);
    assert.equal(v2.code, 0, v2.stderr);
    assert.equal(v2.stdout, 'conv.example.com/v2 a.example.com');
    const v1 = await ts.kubectl(['get', 'widgets.v1.conv.example.com', '-n', NS, 'one', '-o', 'jsonpath={.apiVersion} {.spec.host}']);
    assert.equal(v1.code, 0, v1.stderr);
    assert.equal(v1.stdout, 'conv.example.com/v1 a.example.com');
    const table = await ts.kubectl(['get', 'widgets.v2.conv.example.com', '-n', NS]);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^NAME\s+AGE\n/);
    assert.match(table.stdout, /\none\s+/);
  });

  it('migrates an object to a new storage version on any write, an unchanged update included', async () => {
    mode = 'ok';
    const current = (await ts.request('GET', `${CRDS}/widgets.conv.example.com`)).json;
    current.spec.versions[0].storage = false;
    current.spec.versions[1].storage = true;
    const r = await ts.request('PUT', `${CRDS}/widgets.conv.example.com`, current);
    assert.equal(r.status, 200, r.text);
    await waitForCRD(ts, 'widgets.conv.example.com', (c) => c?.status?.storedVersions?.includes('v2'));
    const obj = (await ts.request('GET', v2Path('two'))).json;
    const before = reviews().length;
    const put = await ts.request('PUT', v2Path('two'), obj);
    assert.equal(put.status, 200, put.text);
    assert.notEqual(put.json.metadata.resourceVersion, obj.metadata.resourceVersion, 'the unchanged object was rewritten in v2');
    const mark = reviews().length;
    assert.ok(mark >= before);
    const again = await ts.request('GET', v2Path('two'));
    assert.deepEqual(again.json.spec, { hostname: 'two.example.com' });
    assert.equal(reviews().length, mark, 'stored as v2 now: reading v2 needs no review');
    assert.deepEqual((await ts.request('GET', v1Path('two'))).json.spec, { host: 'two.example.com' });
    assert.equal(reviews().at(-1).request.objects[0].apiVersion, 'conv.example.com/v2');
  });
});

describe('a webhook behind a Service, and strategy None', () => {
  it('reaches the webhook through an ExternalName Service of the workspace', async () => {
    mode = 'ok';
    const port = Number(new URL(wh.url).port);
    // The test server's certificate is for webhook.default.svc, which TLS verifies.
    const svc = await ts.request('POST', '/api/v1/namespaces/default/services', { metadata: { name: 'webhook' }, spec: { type: 'ExternalName', externalName: 'localhost' } });
    assert.equal(svc.status, 201, svc.text);
    await installCRD(ts, crd('widgets', 'svc.example.com', webhookConversion({ service: { namespace: 'default', name: 'webhook', path: '/convert', port }, caBundle: wh.caBundle })));
    const base = `/apis/svc.example.com/%s/namespaces/${NS}/widgets`;
    const c = await ts.request('POST', base.replace('%s', 'v1'), { ...widget('v1', 'via-svc', 'j.example.com'), apiVersion: 'svc.example.com/v1' });
    assert.equal(c.status, 201, c.text);
    const got = await ts.request('GET', `${base.replace('%s', 'v2')}/via-svc`);
    assert.equal(got.status, 200, got.text);
    assert.deepEqual(got.json.spec, { hostname: 'j.example.com' });
  });

  it('a None-strategy CRD never calls out', async () => {
    await installCRD(ts, crd('widgets', 'none.example.com', { strategy: 'None' }));
    const before = wh.received.size === 0 ? 0 : [...wh.received.values()].reduce((n, l) => n + l.length, 0);
    const base = `/apis/none.example.com/%s/namespaces/${NS}/widgets`;
    const c = await ts.request('POST', base.replace('%s', 'v1'), { ...widget('v1', 'plain', 'k.example.com'), apiVersion: 'none.example.com/v1' });
    assert.equal(c.status, 201, c.text);
    const got = await ts.request('GET', `${base.replace('%s', 'v2')}/plain`);
    assert.equal(got.json.apiVersion, 'none.example.com/v2');
    const list = await ts.request('GET', base.replace('%s', 'v2'));
    assert.equal(list.json.items.length, 1);
    assert.equal([...wh.received.values()].reduce((n, l) => n + l.length, 0), before);
  });
});
