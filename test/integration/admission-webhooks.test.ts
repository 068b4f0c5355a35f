/**
 * Admission webhooks against a real server and real HTTPS webhook servers on loopback with their own CA: the
 * admissionregistration.k8s.io/v1 configurations (defaults, validation), mutation by JSON patch, denial, timeouts and
 * dead webhooks under failurePolicy Fail and Ignore, namespace and object selectors, matchConditions, dry run, the
 * AdmissionReview sent (workspace annotation, options, old object), warnings, and the validating phase seeing the
 * object as stored.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { admissionResponse, jsonPatch, startWebhookServer, type WebhookServer } from '../helpers/webhook-server.js';
import { eventually } from '../helpers/eventually.js';
import { multiclusterPlugin } from '../../src/multicluster/server-options.js';

const MWC = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations';
const VWC = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';

let ts: TestServer;
let wh: WebhookServer;

function hook(name: string, path: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    clientConfig: { url: `${wh.url}${path}`, caBundle: wh.caBundle },
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...extra,
  };
}

async function configure(path: string, name: string, webhooks: unknown[]): Promise<void> {
  const r = await ts.request('POST', path, { apiVersion: 'admissionregistration.k8s.io/v1', kind: path === MWC ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration', metadata: { name }, webhooks });
  assert.equal(r.status, 201, r.text);
}

async function remove(path: string, name: string): Promise<void> {
  await ts.request('DELETE', `${path}/${name}`);
}

const cm = (ns: string, name: string, labels?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, ...(labels ? { labels } : {}) }, data: { a: 'b' } });

before(async () => {
  // The multi-cluster feature serves core/v1 Services (as `atrium start` does), which `service` webhooks need.
  ts = await startTestServer({ server: { plugins: [{ ...multiclusterPlugin(), controllers: undefined }] } });
  wh = await startWebhookServer();
  for (const ns of ['wh-a', 'wh-b']) {
    const r = await ts.request('POST', '/api/v1/namespaces', { metadata: { name: ns, labels: { team: ns } } });
    assert.equal(r.status, 201, r.text);
  }
});
after(async () => {
  await wh?.close();
  await ts?.stop();
});

describe('admissionregistration.k8s.io/v1 configurations', () => {
  it('defaults webhooks as kube-apiserver does and prints NAME, WEBHOOKS, AGE', async () => {
    await configure(MWC, 'defaults', [hook('defaults.example.com', '/none', { clientConfig: { service: { namespace: 'default', name: 'svc' } }, rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['nothing'] }] })]);
    const r = await ts.request('GET', `${MWC}/defaults`);
    const h = r.json.webhooks[0];
    assert.equal(h.failurePolicy, 'Fail');
    assert.equal(h.matchPolicy, 'Equivalent');
    assert.equal(h.timeoutSeconds, 10);
    assert.equal(h.reinvocationPolicy, 'Never');
    assert.deepEqual(h.namespaceSelector, {});
    assert.deepEqual(h.objectSelector, {});
    assert.equal(h.rules[0].scope, '*');
    assert.equal(h.clientConfig.service.port, 443);
    assert.equal(r.json.metadata.generation, 1);
    const table = await ts.request('GET', MWC, undefined, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    assert.deepEqual(table.json.columnDefinitions.map((c: any) => c.name), ['Name', 'Webhooks', 'Age']);
    assert.deepEqual(table.json.rows[0].cells.slice(0, 2), ['defaults', 1]);
    await remove(MWC, 'defaults');
  });

  it('validates as kube-apiserver does, with its messages', async () => {
    const r = await ts.request('POST', VWC, {
      metadata: { name: 'bad' },
      webhooks: [
        { name: 'short', clientConfig: { url: 'http://x/y?q=1' }, rules: [{ operations: ['CREATE', '*'], apiGroups: [''], apiVersions: ['v1'], resources: ['*', 'pods'] }], sideEffects: 'Unknown', timeoutSeconds: 31, admissionReviewVersions: ['v2'] },
        { name: 'ok.example.com', clientConfig: { url: 'https://x' }, sideEffects: 'None', admissionReviewVersions: ['v1'], matchConditions: [{ name: 'c', expression: 'object.' }] },
      ],
    });
    assert.equal(r.status, 422, r.text);
    const causes = r.json.details.causes.map((c: any) => `${c.field}: ${c.message}`);
    const expect = [
      'webhooks[0].name: Invalid value: "short": should be a domain with at least three segments separated by dots',
      `webhooks[0].rules[0].operations: Invalid value: []string{"CREATE", "*"}: if '*' is present, must not specify other operations`,
      `webhooks[0].rules[0].resources: Invalid value: []string{"*", "pods"}: if '*' is present, must not specify other resources without subresources`,
      'webhooks[0].sideEffects: Unsupported value: "Unknown": supported values: "None", "NoneOnDryRun"',
      'webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds',
      `webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
      'webhooks[0].clientConfig.url: Invalid value: "q=1": query parameters are not permitted in the URL',
      'webhooks[0].admissionReviewVersions: Invalid value: []string{"v2"}: must include at least one of v1, v1beta1',
    ];
    for (const e of expect) assert.ok(causes.some((c: string) => c.startsWith(e.split(': ')[0]) && c.includes(e.slice(e.indexOf(': ') + 2).split(': ').pop()!)), `missing ${e} in\n${causes.join('\n')}`);
    assert.ok(causes.some((c: string) => c.startsWith('webhooks[1].matchConditions[0].expression: Invalid value: "object.": compilation failed: ERROR: <input>:1:')), causes.join('\n'));
    assert.ok(r.json.message.startsWith('ValidatingWebhookConfiguration.admissionregistration.k8s.io "bad" is invalid: '), r.json.message);
  });
});

describe('calling webhooks', () => {
  it('a mutating webhook adds a label by JSON patch; the review names the workspace, the user, the options', async () => {
    wh.handle('/mutate', (review) => admissionResponse(review, { allowed: true, patchType: 'JSONPatch', patch: jsonPatch([{ op: 'add', path: '/metadata/labels', value: { mutated: 'yes' } }]), warnings: ['mutated by test'] }));
    await configure(MWC, 'mutate', [hook('mutate.example.com', '/mutate', { namespaceSelector: { matchLabels: { team: 'wh-a' } } })]);
    const created = await eventually('the mutating webhook applies', async () => {
      const name = `m-${Math.random().toString(36).slice(2, 8)}`;
      const r = await ts.request('POST', '/api/v1/namespaces/wh-a/configmaps', cm('wh-a', name));
      assert.equal(r.status, 201, r.text);
      return r.json.metadata.labels?.mutated === 'yes' ? r : undefined;
    });
    assert.match(String(created.headers.warning), /299 - "mutated by test"/);
    const stored = await ts.request('GET', `/api/v1/namespaces/wh-a/configmaps/${created.json.metadata.name}`);
    assert.equal(stored.json.metadata.labels.mutated, 'yes');
    assert.equal(stored.json.metadata.annotations?.['kcp.io/cluster'], undefined);
    const review = wh.received.get('/mutate')!.at(-1);
    assert.equal(review.apiVersion, 'admission.k8s.io/v1');
    assert.equal(review.request.operation, 'CREATE');
    assert.deepEqual(review.request.kind, { group: '', version: 'v1', kind: 'ConfigMap' });
    assert.deepEqual(review.request.resource, { group: '', version: 'v1', resource: 'configmaps' });
    assert.equal(review.request.namespace, 'wh-a');
    assert.equal(review.request.object.metadata.annotations['kcp.io/cluster'], 'root');
    assert.equal(review.request.userInfo.username, 'admin');
    assert.equal(review.request.dryRun, false);
    assert.equal(review.request.options.kind, 'CreateOptions');
    assert.equal(review.request.oldObject, null);
    // managedFields record the request before admission (upstream's order): the webhook sees them, and the label it
    // added is owned by no manager.
    assert.ok(Array.isArray(review.request.object.metadata.managedFields), 'the webhook sees the managedFields of the create');
    assert.ok(created.json.metadata.managedFields.length > 0);
    assert.ok(!JSON.stringify(created.json.metadata.managedFields).includes('f:mutated'), JSON.stringify(created.json.metadata.managedFields));

    // Not in a namespace the selector picks.
    const other = await ts.request('POST', '/api/v1/namespaces/wh-b/configmaps', cm('wh-b', 'plain'));
    assert.equal(other.status, 201);
    assert.equal(other.json.metadata.labels, undefined);

    // An update is reviewed with the stored object as oldObject.
    const upd = await ts.request('PUT', `/api/v1/namespaces/wh-a/configmaps/${created.json.metadata.name}`, { ...stored.json, data: { a: 'c' } });
    assert.equal(upd.status, 200, upd.text);
    const updReview = wh.received.get('/mutate')!.at(-1);
    assert.equal(updReview.request.operation, 'UPDATE');
    assert.equal(updReview.request.oldObject.data.a, 'b');
    assert.equal(updReview.request.options.kind, 'UpdateOptions');
    await remove(MWC, 'mutate');
  });

  it('managedFields a mutating webhook leaves undecodable go back to what they were, with upstream\'s warning', async () => {
    wh.handle('/break-fields', (review) =>
      admissionResponse(review, { allowed: true, patchType: 'JSONPatch', patch: jsonPatch([{ op: 'replace', path: '/metadata/managedFields', value: [{ manager: 'x', operation: 'Bogus', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {} }] }]) }),
    );
    await configure(MWC, 'break-fields', [hook('break-fields.example.com', '/break-fields', { namespaceSelector: { matchLabels: { team: 'wh-a' } } })]);
    const created = await eventually('the webhook is called', async () => {
      const r = await ts.request('POST', '/api/v1/namespaces/wh-a/configmaps?fieldManager=creator', cm('wh-a', `bf-${Math.random().toString(36).slice(2, 8)}`));
      assert.equal(r.status, 201, r.text);
      return String(r.headers.warning ?? '').includes('managedFields') ? r : undefined;
    });
    assert.match(String(created.headers.warning), /\.metadata\.managedFields was in an invalid state after admission; this could be caused by an outdated mutating admission controller; please fix your requests: operation must be `Apply` or `Update`/);
    assert.deepEqual(created.json.metadata.managedFields.map((e: { manager: string; operation: string }) => [e.manager, e.operation]), [['creator', 'Update']]);
    await remove(MWC, 'break-fields');
  });

  it('a validating webhook denies with its message and code; objectSelector and dry run', async () => {
    wh.handle('/deny', (review) =>
      review.request.object?.metadata?.name?.startsWith('bad')
        ? admissionResponse(review, { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'names starting with bad are refused' } })
        : admissionResponse(review, { allowed: true }),
    );
    await configure(VWC, 'deny', [hook('deny.example.com', '/deny', { objectSelector: { matchExpressions: [{ key: 'skip', operator: 'DoesNotExist' }] } })]);
    const denied = await eventually('the validating webhook refuses', async () => {
      const r = await ts.request('POST', '/api/v1/namespaces/wh-b/configmaps', cm('wh-b', `bad-${Math.random().toString(36).slice(2, 8)}`));
      return r.status === 403 ? r : undefined;
    });
    assert.equal(denied.json.message, 'admission webhook "deny.example.com" denied the request: names starting with bad are refused');
    assert.equal(denied.json.reason, 'Forbidden');
    // The validating phase sees the object as stored (uid and creationTimestamp set).
    const review = wh.received.get('/deny')!.at(-1);
    assert.ok(review.request.object.metadata.uid);
    assert.ok(review.request.object.metadata.creationTimestamp);
    // An object the objectSelector leaves out is never sent.
    const skipped = await ts.request('POST', '/api/v1/namespaces/wh-b/configmaps', cm('wh-b', 'bad-skipped', { skip: 'yes' }));
    assert.equal(skipped.status, 201, skipped.text);
    // A dry run goes to a webhook without side effects, with dryRun set, and stores nothing.
    const before = wh.received.get('/deny')!.length;
    const dry = await ts.request('POST', '/api/v1/namespaces/wh-b/configmaps?dryRun=All', cm('wh-b', 'good-dry'));
    assert.equal(dry.status, 201, dry.text);
    assert.equal(wh.received.get('/deny')!.length, before + 1);
    assert.equal(wh.received.get('/deny')!.at(-1).request.dryRun, true);
    assert.equal((await ts.request('GET', '/api/v1/namespaces/wh-b/configmaps/good-dry')).status, 404);
    // DELETE is reviewed with the object being deleted as oldObject.
    await ts.request('DELETE', `${VWC}/deny`);
    await configure(VWC, 'deny-delete', [hook('deny-delete.example.com', '/deny-delete', { rules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] })]);
    wh.handle('/deny-delete', (rv) => admissionResponse(rv, { allowed: false }));
    const del = await eventually('the DELETE webhook refuses', async () => {
      const r = await ts.request('DELETE', '/api/v1/namespaces/wh-b/configmaps/bad-skipped');
      return r.status === 400 ? r : undefined;
    });
    assert.equal(del.json.message, 'admission webhook "deny-delete.example.com" denied the request without explanation');
    const delReview = wh.received.get('/deny-delete')!.at(-1);
    assert.equal(delReview.request.operation, 'DELETE');
    assert.equal(delReview.request.oldObject.metadata.name, 'bad-skipped');
    assert.equal(delReview.request.options.kind, 'DeleteOptions');
    await remove(VWC, 'deny-delete');
  });

  it('timeouts and dead webhooks: Fail refuses with upstream\'s error, Ignore admits', async () => {
    wh.handle('/hang', () => undefined);
    await configure(VWC, 'slow', [hook('slow.example.com', '/hang', { timeoutSeconds: 1, namespaceSelector: { matchLabels: { team: 'wh-a' } } })]);
    const t0 = Date.now();
    const r = await eventually('the hung webhook times out', async () => {
      const x = await ts.request('POST', '/api/v1/namespaces/wh-a/configmaps', cm('wh-a', `t-${Math.random().toString(36).slice(2, 8)}`));
      return x.status === 500 ? x : undefined;
    });
    assert.ok(Date.now() - t0 < 10_000);
    assert.equal(r.json.reason, 'InternalError');
    assert.equal(r.json.message, `Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "${wh.url}/hang?timeout=1s": context deadline exceeded`);
    // Requests the slow webhook does not match are not slowed down.
    const t1 = Date.now();
    const fast = await ts.request('POST', '/api/v1/namespaces/wh-b/configmaps', cm('wh-b', 'fast'));
    assert.equal(fast.status, 201);
    assert.ok(Date.now() - t1 < 900, `took ${Date.now() - t1} ms`);
    await remove(VWC, 'slow');

    // A dead webhook (nothing listens): Fail and Ignore.
    const deadURL = 'https://127.0.0.1:1/dead';
    await configure(VWC, 'dead', [{ ...hook('dead.example.com', '/x', { namespaceSelector: { matchLabels: { team: 'wh-a' } } }), clientConfig: { url: deadURL, caBundle: wh.caBundle } }]);
    const dead = await eventually('the dead webhook fails closed', async () => {
      const x = await ts.request('POST', '/api/v1/namespaces/wh-a/configmaps', cm('wh-a', `d-${Math.random().toString(36).slice(2, 8)}`));
      return x.status === 500 ? x : undefined;
    });
    assert.equal(dead.json.message, `Internal error occurred: failed calling webhook "dead.example.com": failed to call webhook: Post "${deadURL}?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused`);
    const patched = await ts.request('PATCH', `${VWC}/dead`, [{ op: 'replace', path: '/webhooks/0/failurePolicy', value: 'Ignore' }], { headers: { 'Content-Type': 'application/json-patch+json' } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.json.metadata.generation, 2);
    await eventually('the dead webhook fails open', async () => {
      const x = await ts.request('POST', '/api/v1/namespaces/wh-a/configmaps', cm('wh-a', `i-${Math.random().toString(36).slice(2, 8)}`));
      return x.status === 201;
    });
    await remove(VWC, 'dead');

    // A webhook signed by another CA than its caBundle.
    await configure(VWC, 'untrusted', [hook('untrusted.example.com', '/deny', { clientConfig: { url: `${wh.url}/deny` }, namespaceSelector: { matchLabels: { team: 'wh-a' } } })]);
    const untrusted = await eventually('the untrusted webhook fails', async () => {
      const x = await ts.request('POST', '/api/v1/namespaces/wh-a/configmaps', cm('wh-a', `u-${Math.random().toString(36).slice(2, 8)}`));
      return x.status === 500 ? x : undefined;
    });
    assert.match(untrusted.json.message, /failed to call webhook: Post ".*": tls: failed to verify certificate: x509: certificate signed by unknown authority$/);
    await remove(VWC, 'untrusted');
  });

  it('matchConditions in CEL decide whether a webhook is called; reinvocation IfNeeded', async () => {
    wh.handle('/cel', (review) => admissionResponse(review, { allowed: false, status: { message: 'cel matched' } }));
    await configure(VWC, 'cel', [hook('cel.example.com', '/cel', { matchConditions: [{ name: 'only-x', expression: "has(object.data) && 'x' in object.data" }] })]);
    await eventually('the CEL-matched webhook refuses', async () => {
      const x = await ts.request('POST', '/api/v1/namespaces/wh-a/configmaps', { ...cm('wh-a', `c-${Math.random().toString(36).slice(2, 8)}`), data: { x: '1' } });
      return x.status === 400 && x.json.message === 'admission webhook "cel.example.com" denied the request: cel matched';
    });
    const notMatched = await ts.request('POST', '/api/v1/namespaces/wh-a/configmaps', cm('wh-a', 'cel-no'));
    assert.equal(notMatched.status, 201, notMatched.text);
    await remove(VWC, 'cel');

    // first (IfNeeded) runs, second changes the object: first is called again once.
    let firstCalls = 0;
    wh.handle('/first', (review) => {
      if (review.request.object.metadata.name.startsWith('re-')) firstCalls++;
      return admissionResponse(review, { allowed: true });
    });
    wh.handle('/second', (review) =>
      review.request.object.metadata.labels?.second ? admissionResponse(review, { allowed: true }) : admissionResponse(review, { allowed: true, patchType: 'JSONPatch', patch: jsonPatch([{ op: 'add', path: '/metadata/labels', value: { second: 'x' } }]) }),
    );
    await configure(MWC, 'a-first', [hook('first.example.com', '/first', { reinvocationPolicy: 'IfNeeded' })]);
    await configure(MWC, 'b-second', [hook('second.example.com', '/second')]);
    const re = await eventually('both mutating webhooks run', async () => {
      firstCalls = 0;
      const x = await ts.request('POST', '/api/v1/namespaces/wh-b/configmaps', cm('wh-b', `re-${Math.random().toString(36).slice(2, 8)}`));
      return x.json?.metadata?.labels?.second === 'x' && firstCalls > 0 ? x : undefined;
    });
    assert.equal(re.status, 201);
    assert.equal(firstCalls, 2);
    await remove(MWC, 'a-first');
    await remove(MWC, 'b-second');
  });

  it('webhooks of one workspace do not see another workspace\'s requests', async () => {
    wh.handle('/all', (review) => admissionResponse(review, { allowed: false, status: { message: 'no' } }));
    await configure(VWC, 'all', [hook('all.example.com', '/all')]);
    await eventually('the webhook refuses in root', async () => (await ts.request('POST', '/api/v1/namespaces/wh-a/configmaps', cm('wh-a', `w-${Math.random().toString(36).slice(2, 8)}`))).status === 400);
    const ws = await ts.request('POST', '/apis/tenancy.kcp.io/v1alpha1/workspaces', { metadata: { name: 'wh-other' }, spec: {} });
    assert.equal(ws.status, 201, ws.text);
    const ok = await eventually('a configmap is created in the other workspace', async () => {
      const x = await ts.request('POST', '/clusters/root:wh-other/api/v1/namespaces/default/configmaps', cm('default', 'free'));
      return x.status === 201 ? x : undefined;
    });
    assert.equal(ok.status, 201);
    await remove(VWC, 'all');
  });
});

describe('reaching a webhook through a service', () => {
  it('an ExternalName Service is reached at its name, TLS verifying <name>.<namespace>.svc; a Service with no address is a clear error', async () => {
    const port = Number(new URL(wh.url).port);
    const created = await ts.request('POST', '/api/v1/namespaces/default/services', { metadata: { name: 'webhook' }, spec: { type: 'ExternalName', externalName: 'localhost' } });
    assert.equal(created.status, 201, created.text);
    wh.handle('/svc', (review) => admissionResponse(review, { allowed: false, status: { message: 'via service' } }));
    await configure(VWC, 'svc', [hook('svc.example.com', '', { clientConfig: { service: { namespace: 'default', name: 'webhook', path: '/svc', port }, caBundle: wh.caBundle }, namespaceSelector: { matchLabels: { team: 'wh-a' } } })]);
    await eventually('the webhook behind the ExternalName Service refuses', async () => {
      const x = await ts.request('POST', '/api/v1/namespaces/wh-a/configmaps', cm('wh-a', `s-${Math.random().toString(36).slice(2, 8)}`));
      return x.status === 400 && x.json.message === 'admission webhook "svc.example.com" denied the request: via service';
    });
    await remove(VWC, 'svc');
    const plain = await ts.request('POST', '/api/v1/namespaces/default/services', { metadata: { name: 'nowhere' }, spec: { ports: [{ port: 443 }] } });
    assert.equal(plain.status, 201, plain.text);
    await configure(VWC, 'svc-none', [hook('nowhere.example.com', '', { clientConfig: { service: { namespace: 'default', name: 'nowhere' }, caBundle: wh.caBundle }, namespaceSelector: { matchLabels: { team: 'wh-a' } } })]);
    const err = await eventually('the unreachable service fails closed', async () => {
      const x = await ts.request('POST', '/api/v1/namespaces/wh-a/configmaps', cm('wh-a', `n-${Math.random().toString(36).slice(2, 8)}`));
      return x.status === 500 ? x : undefined;
    });
    assert.match(err.json.message, /^Internal error occurred: failed calling webhook "nowhere.example.com": failed to call webhook: service "default\/nowhere" cannot be reached: a workspace runs no pods/);
    await remove(VWC, 'svc-none');
  });

  it('a Service annotated webhook.atrium.io/loopback-port is reached on 127.0.0.1 at that port (Endpoints may not name loopback)', async () => {
    const port = Number(new URL(wh.url).port);
    // The name the test webhook's certificate carries: webhook.default.svc (the ExternalName Service above goes).
    await ts.request('DELETE', '/api/v1/namespaces/default/services/webhook');
    const created = await ts.request('POST', '/api/v1/namespaces/default/services', {
      metadata: { name: 'webhook', annotations: { 'webhook.atrium.io/loopback-port': String(port) } },
      spec: { ports: [{ name: 'https', port: 443, targetPort: 'https' }], selector: { app: 'webhook' } },
    });
    assert.equal(created.status, 201, created.text);
    wh.handle('/local', (review) => admissionResponse(review, { allowed: false, status: { message: 'via loopback' } }));
    await configure(VWC, 'svc-local', [hook('local.example.com', '', { clientConfig: { service: { namespace: 'default', name: 'webhook', path: '/local' }, caBundle: wh.caBundle }, namespaceSelector: { matchLabels: { team: 'wh-a' } } })]);
    await eventually('the webhook behind the annotated Service refuses', async () => {
      const x = await ts.request('POST', '/api/v1/namespaces/wh-a/configmaps', cm('wh-a', `l-${Math.random().toString(36).slice(2, 8)}`));
      return x.status === 400 && x.json.message === 'admission webhook "local.example.com" denied the request: via loopback';
    });
    const bad = await ts.request('PATCH', '/api/v1/namespaces/default/services/webhook', { metadata: { annotations: { 'webhook.atrium.io/loopback-port': 'https' } } }, { headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(bad.status, 200, bad.text);
    const err = await eventually('a malformed annotation is a clear error', async () => {
      const x = await ts.request('POST', '/api/v1/namespaces/wh-a/configmaps', cm('wh-a', `l-${Math.random().toString(36).slice(2, 8)}`));
      return x.status === 500 ? x : undefined;
    });
    assert.match(err.json.message, /service "default\/webhook" cannot be reached: its annotation webhook.atrium.io\/loopback-port is not a port number: "https"/);
    await remove(VWC, 'svc-local');
  });
});
