/**
 * Admission across workspaces, as kcp does it (pkg/admission/mutatingwebhook, validatingwebhook,
 * validatingadmissionpolicy): a resource bound in a consumer workspace from a provider's APIExport is reviewed by the
 * provider's webhooks and ValidatingAdmissionPolicies (with params read in the provider's workspace), not by the
 * consumer's own; the AdmissionReview names the consumer's logical cluster in the object's `kcp.io/cluster`
 * annotation. Driven with the real kubectl against workspace URLs, with a real HTTPS webhook on loopback.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { waitForWorkspace } from '../helpers/workspaces.js';
import { admissionResponse, jsonPatch, startWebhookServer, type WebhookServer } from '../helpers/webhook-server.js';

let t: TestServer;
let wh: WebhookServer;
let consumerCluster: string;

/** kubectl against a workspace: the admin kubeconfig with the workspace's server URL. */
const kubectlIn = (ws: string, args: string[], input?: string) => t.kubectl(['--server', `${t.url}/clusters/${ws}`, ...args], input === undefined ? {} : { input });
async function ok(ws: string, args: string[], input?: string): Promise<string> {
  const r = await kubectlIn(ws, args, input);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')} in ${ws}: ${r.stderr}`);
  return r.stdout;
}
const widget = (name: string, spec: Record<string, unknown>) => JSON.stringify({ apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name, namespace: 'default' }, spec });

before(async () => {
  t = await startTestServer();
  wh = await startWebhookServer();
  for (const ws of ['provider', 'consumer']) await ok('root', ['create', '-f', '-'], JSON.stringify({ apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: ws } }));
  await waitForWorkspace(t, 'root', 'provider');
  consumerCluster = (await waitForWorkspace(t, 'root', 'consumer')).spec.cluster;
  await ok('root:provider', ['apply', '-f', '-'], JSON.stringify({
    apiVersion: 'v1', kind: 'List', items: [
      {
        apiVersion: 'apis.kcp.io/v1alpha1', kind: 'APIResourceSchema', metadata: { name: 'v1.widgets.example.io' },
        spec: {
          group: 'example.io', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' }, scope: 'Namespaced',
          versions: [{ name: 'v1', served: true, storage: true, schema: { type: 'object', properties: { spec: { type: 'object', properties: { color: { type: 'string' }, size: { type: 'integer' } } } } } }],
        },
      },
      { apiVersion: 'apis.kcp.io/v1alpha1', kind: 'APIExport', metadata: { name: 'widgets' }, spec: { latestResourceSchemas: ['v1.widgets.example.io'] } },
    ],
  }));
  await ok('root:consumer', ['create', '-f', '-'], JSON.stringify({ apiVersion: 'apis.kcp.io/v1alpha2', kind: 'APIBinding', metadata: { name: 'widgets' }, spec: { reference: { export: { path: 'root:provider', name: 'widgets' } } } }));
  await eventually('widgets served in the consumer', async () => (await kubectlIn('root:consumer', ['get', 'widgets'])).code === 0, 20_000);
});

after(async () => {
  await wh?.close();
  await t?.stop();
});

const rules = [{ operations: ['CREATE', 'UPDATE'], apiGroups: ['example.io'], apiVersions: ['v1'], resources: ['widgets'] }];

test("the provider's webhooks review the consumer's widgets; the consumer's own do not", async () => {
  wh.handle('/provider-validate', (review) =>
    review.request.object.spec?.color === 'red'
      ? admissionResponse(review, { allowed: false, status: { message: 'red widgets are not made here' } })
      : admissionResponse(review, { allowed: true }),
  );
  wh.handle('/provider-mutate', (review) => admissionResponse(review, { allowed: true, patchType: 'JSONPatch', patch: jsonPatch([{ op: 'add', path: '/metadata/labels', value: { 'made-by': 'provider' } }]) }));
  wh.handle('/consumer-validate', (review) => admissionResponse(review, { allowed: false, status: { message: 'the consumer refuses everything' } }));
  const hook = (name: string, path: string) => ({ name, clientConfig: { url: `${wh.url}${path}`, caBundle: wh.caBundle }, rules, sideEffects: 'None', admissionReviewVersions: ['v1'] });
  await ok('root:provider', ['apply', '-f', '-'], JSON.stringify({
    apiVersion: 'v1', kind: 'List', items: [
      { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'widgets' }, webhooks: [hook('validate.widgets.example.io', '/provider-validate')] },
      { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'widgets' }, webhooks: [hook('mutate.widgets.example.io', '/provider-mutate')] },
    ],
  }));
  // The consumer's own webhook on the bound resource: kcp never calls it (the export's workspace reviews bound resources).
  await ok('root:consumer', ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'local' }, webhooks: [hook('local.widgets.example.io', '/consumer-validate')] }));

  const denied = await eventually('the provider webhook refuses a red widget', async () => {
    const r = await kubectlIn('root:consumer', ['create', '-f', '-'], widget('red', { color: 'red' }));
    return r.code !== 0 && /red widgets/.test(r.stderr) && r;
  }, 20_000);
  assert.match(denied.stderr, /admission webhook "validate\.widgets\.example\.io" denied the request: red widgets are not made here/);

  assert.equal(await ok('root:consumer', ['create', '-f', '-'], widget('blue', { color: 'blue' })), 'widget.example.io/blue created\n');
  assert.equal(await ok('root:consumer', ['get', 'widget', 'blue', '-o', 'jsonpath={.metadata.labels.made-by}']), 'provider');
  const review = wh.received.get('/provider-validate')!.findLast((r) => r.request.name === 'blue');
  assert.equal(review.request.object.metadata.annotations['kcp.io/cluster'], consumerCluster, 'the review names the consumer workspace');
  assert.deepEqual(review.request.resource, { group: 'example.io', version: 'v1', resource: 'widgets' });
  assert.equal(wh.received.get('/consumer-validate'), undefined, "the consumer's webhook was never called for a bound resource");

  // The provider's webhooks do not review the consumer's own resources.
  const calls = wh.received.get('/provider-validate')!.length;
  await ok('root:consumer', ['create', 'configmap', 'plain', '-n', 'default']);
  assert.equal(wh.received.get('/provider-validate')!.length, calls);
  await ok('root:provider', ['delete', 'validatingwebhookconfiguration,mutatingwebhookconfiguration', 'widgets']);
  await ok('root:consumer', ['delete', 'validatingwebhookconfiguration', 'local']);
});

test("the provider's ValidatingAdmissionPolicy, with a param in the provider's workspace, denies the consumer's widget", async () => {
  await ok('root:provider', ['create', 'configmap', 'widget-limits', '-n', 'default', '--from-literal=maxSize=10']);
  await ok('root:provider', ['apply', '-f', '-'], JSON.stringify({
    apiVersion: 'v1', kind: 'List', items: [
      {
        apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'widget-size' },
        spec: {
          paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
          matchConstraints: { resourceRules: rules },
          validations: [{ expression: 'object.spec.size <= int(params.data.maxSize)', messageExpression: "'size ' + string(object.spec.size) + ' exceeds ' + params.data.maxSize" }],
        },
      },
      {
        apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'widget-size' },
        spec: { policyName: 'widget-size', validationActions: ['Deny'], paramRef: { name: 'widget-limits', namespace: 'default', parameterNotFoundAction: 'Deny' } },
      },
    ],
  }));
  // A policy in the consumer on its bound resource is not the one that applies.
  await ok('root:consumer', ['apply', '-f', '-'], JSON.stringify({
    apiVersion: 'v1', kind: 'List', items: [
      { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'local-deny' }, spec: { matchConstraints: { resourceRules: rules }, validations: [{ expression: 'false', message: 'consumer policy' }] } },
      { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'local-deny' }, spec: { policyName: 'local-deny', validationActions: ['Deny'] } },
    ],
  }));
  const denied = await eventually('the provider policy refuses a big widget', async () => {
    const r = await kubectlIn('root:consumer', ['create', '-f', '-'], widget('big', { size: 11 }));
    return r.code !== 0 && /exceeds/.test(r.stderr) && r;
  }, 20_000);
  assert.match(denied.stderr, /The widgets "big" is invalid: : ValidatingAdmissionPolicy 'widget-size' with binding 'widget-size' denied request: size 11 exceeds 10/);
  assert.equal(await ok('root:consumer', ['create', '-f', '-'], widget('small', { size: 3 })), 'widget.example.io/small created\n');
  // The same policy does not reach the provider's own ConfigMaps or the consumer's.
  await ok('root:consumer', ['create', 'configmap', 'after-policy', '-n', 'default']);
});
