/**
 * kubectl and admission webhooks against a real atrium server and a real HTTPS webhook on loopback: `kubectl apply`
 * of a ValidatingWebhookConfiguration, `kubectl get validatingwebhookconfigurations` (NAME, WEBHOOKS, AGE), the
 * refusal kubectl shows for a denied create (with the webhook's warning), and `--dry-run=server` reaching the webhook.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { admissionResponse, startWebhookServer, type WebhookServer } from '../helpers/webhook-server.js';
import { kubectlFails, kubectlOk } from './support/kubectl-run.js';

let t: TestServer;
let wh: WebhookServer;

before(async () => {
  t = await startTestServer();
  wh = await startWebhookServer();
  await kubectlOk(t, ['create', 'namespace', 'e2e-webhooks']);
});

after(async () => {
  await wh?.close();
  await t?.stop();
});

test('kubectl apply a validating webhook, get it, and see its refusal', async () => {
  wh.handle('/validate', (review) =>
    review.request.object.data?.forbidden !== undefined
      ? admissionResponse(review, { allowed: false, status: { message: 'the key "forbidden" is not allowed' }, warnings: ['checked by the test webhook'] })
      : admissionResponse(review, { allowed: true }),
  );
  const manifest = JSON.stringify({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'configmap-policy' },
    webhooks: [
      {
        name: 'configmaps.policy.example.com',
        clientConfig: { url: `${wh.url}/validate`, caBundle: wh.caBundle },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
      },
    ],
  });
  assert.equal(await kubectlOk(t, ['apply', '-f', '-'], { input: manifest }), 'validatingwebhookconfiguration.admissionregistration.k8s.io/configmap-policy created\n');
  const [header, row] = (await kubectlOk(t, ['get', 'validatingwebhookconfigurations'])).trimEnd().split('\n');
  assert.match(header!, /^NAME\s+WEBHOOKS\s+AGE$/);
  assert.match(row!, /^configmap-policy\s+1\s+\d+s$/);

  const err = await eventually('the webhook refuses', async () => {
    const r = await kubectlFails(t, ['create', 'configmap', `bad-${Date.now()}`, '-n', 'e2e-webhooks', '--from-literal=forbidden=1']).catch(() => undefined);
    return r;
  });
  assert.match(err.stderr, /Warning: checked by the test webhook/);
  assert.match(err.stderr, /error: failed to create configmap: admission webhook "configmaps.policy.example.com" denied the request: the key "forbidden" is not allowed/);

  const before = wh.received.get('/validate')!.length;
  assert.equal(await kubectlOk(t, ['create', 'configmap', 'dry', '-n', 'e2e-webhooks', '--from-literal=a=b', '--dry-run=server']), 'configmap/dry created (server dry run)\n');
  const review = wh.received.get('/validate')!.at(-1);
  assert.equal(wh.received.get('/validate')!.length, before + 1);
  assert.equal(review.request.dryRun, true);
  assert.deepEqual(review.request.options.dryRun, ['All']);
});
