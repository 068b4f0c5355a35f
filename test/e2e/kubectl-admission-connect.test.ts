/**
 * Admission of CONNECT requests with the real kubectl 1.32 and a real HTTPS webhook on loopback, as kube-apiserver's
 * ConnectResource runs it: `kubectl exec` (pods/exec) and `kubectl attach` are reviewed with operation CONNECT and the
 * PodExecOptions/PodAttachOptions built from the query as the object; a webhook's or a ValidatingAdmissionPolicy's
 * refusal ends the request with its Status before any stream is opened, and a mutating webhook's change to the
 * options is what runs. Both where atrium serves these streams: a workspace with compute (the request reviewed in
 * the workspace, then forwarded to the pod's cluster) and the simulated cluster itself.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startFleet, fastSync, type InProcessFleet } from '../helpers/fleet.js';
import { eventually } from '../helpers/eventually.js';
import { runKubectl } from '../helpers/harness.js';
import { admissionResponse, jsonPatch, startWebhookServer, type WebhookServer } from '../helpers/webhook-server.js';

const podsGVR = { group: '', version: 'v1', resource: 'pods' };
const CLUSTER = 'connect-1';

let fleet: InProcessFleet;
let wh: WebhookServer;
const inWorkspace = (args: string[], input?: string) => runKubectl(fleet.kubeconfig, args, input === undefined ? {} : { input });
const inCluster = (args: string[], input?: string) => runKubectl(fleet.cluster(CLUSTER).kubeconfigPath, args, input === undefined ? {} : { input });
type Kubectl = typeof inWorkspace;

async function ok(kubectl: Kubectl, args: string[], input?: string): Promise<string> {
  const r = await kubectl(args, input);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

const execRule = { operations: ['CONNECT'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/exec', 'pods/attach'] };
const hook = (name: string, path: string) => ({ name, clientConfig: { url: `${wh.url}${path}`, caBundle: wh.caBundle }, rules: [execRule], sideEffects: 'None', admissionReviewVersions: ['v1'] });
const vwc = (name: string, path: string) => JSON.stringify({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name }, webhooks: [hook(`${name}.connect.example.com`, path)] });
const noRmPolicy = JSON.stringify({
  apiVersion: 'v1', kind: 'List', items: [
    {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'no-rm' },
      spec: {
        matchConstraints: { resourceRules: [{ operations: ['CONNECT'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/exec'] }] },
        validations: [{ expression: "request.operation == 'CONNECT' && object.kind == 'PodExecOptions' && !object.command.exists(c, c == 'rm')", message: 'rm is not allowed in exec' }],
      },
    },
    { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'no-rm' }, spec: { policyName: 'no-rm', validationActions: ['Deny'] } },
  ],
});

/** A validating webhook that refuses commands mentioning `secret`, recording what it saw. */
function denySecrets(review: any): unknown {
  const command: string[] = review.request.object?.command ?? [];
  return command.some((c) => c.includes('secret'))
    ? admissionResponse(review, { allowed: false, status: { message: `exec of ${command.join(' ')} refused by policy` } })
    : admissionResponse(review, { allowed: true });
}

before(async () => {
  wh = await startWebhookServer();
  fleet = await startFleet({ name: 'admission-connect', clusters: [CLUSTER], multicluster: fastSync(), waitReady: { resources: ['pods'], timeoutMs: 60_000 } });
  const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { 'workload.kcp.io/cluster': CLUSTER } }, spec: { containers: [{ name: 'web', image: 'nginx', stdin: true }] } });
  await fleet.up.create(podsGVR, pod('web'), { namespace: 'default' });
  await fleet.cluster(CLUSTER).client.create(podsGVR, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'local', namespace: 'default' }, spec: { containers: [{ name: 'web', image: 'nginx' }] } }, { namespace: 'default' });
  await eventually('the pods running', async () => {
    const up = (await fleet.up.get(podsGVR, 'web', { namespace: 'default' })) as { status?: { phase?: string } };
    const down = (await fleet.cluster(CLUSTER).client.get(podsGVR, 'local', { namespace: 'default' })) as { status?: { phase?: string } };
    return up.status?.phase === 'Running' && down.status?.phase === 'Running';
  }, 60_000);
});

after(async () => {
  await fleet?.stop();
  await wh?.close();
});

describe('CONNECT admission in a workspace with compute', () => {
  it('a validating webhook sees PodExecOptions and refuses kubectl exec with its message', async () => {
    wh.handle('/ws-validate', denySecrets);
    await ok(inWorkspace, ['apply', '-f', '-'], vwc('ws-exec', '/ws-validate'));
    const refused = await eventually('the webhook refuses the exec', async () => {
      const r = await inWorkspace(['exec', 'web', '-c', 'web', '--', 'cat', 'secret.txt']);
      return /refused by policy/.test(r.stderr) && r;
    }, 20_000);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /admission webhook "ws-exec\.connect\.example\.com" denied the request: exec of cat secret\.txt refused by policy/);
    const review = wh.received.get('/ws-validate')!.findLast((r) => r.request.object?.command?.includes('secret.txt'));
    const req = review.request;
    assert.equal(req.operation, 'CONNECT');
    assert.deepEqual(req.kind, { group: '', version: 'v1', kind: 'PodExecOptions' });
    assert.deepEqual(req.resource, { group: '', version: 'v1', resource: 'pods' });
    assert.equal(req.subResource, 'exec');
    assert.deepEqual(req.requestKind, { group: '', version: 'v1', kind: 'PodExecOptions' });
    assert.equal(req.namespace, 'default');
    assert.equal(req.name, 'web');
    assert.deepEqual(req.object, { kind: 'PodExecOptions', apiVersion: 'v1', stdout: true, stderr: true, container: 'web', command: ['cat', 'secret.txt'] });
    assert.equal(req.oldObject, null);
    assert.equal(req.options, null);

    // Allowed: the stream opens and runs.
    assert.equal(await ok(inWorkspace, ['exec', 'web', '-c', 'web', '--', 'echo', 'allowed']), 'allowed\n');
    // attach is reviewed as PodAttachOptions.
    // attach streams until the container ends; the review is all this needs.
    await runKubectl(fleet.kubeconfig, ['attach', '-i', 'web', '-c', 'web'], { input: 'attached\n', timeoutMs: 5000 });
    const attach = wh.received.get('/ws-validate')!.findLast((r) => r.request.subResource === 'attach');
    assert.deepEqual(attach?.request.object, { kind: 'PodAttachOptions', apiVersion: 'v1', stdin: true, stdout: true, stderr: true, container: 'web' });
  });

  it('a mutating webhook changes the command that runs', async () => {
    wh.handle('/ws-mutate', (review) =>
      review.request.object?.command?.[1] === 'please-rewrite'
        ? admissionResponse(review, { allowed: true, patchType: 'JSONPatch', patch: jsonPatch([{ op: 'replace', path: '/command', value: ['echo', 'rewritten', 'by', 'the', 'webhook'] }]) })
        : admissionResponse(review, { allowed: true }),
    );
    await ok(inWorkspace, ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'ws-exec' }, webhooks: [hook('ws-exec.mutate.example.com', '/ws-mutate')] }));
    const out = await eventually('the mutated command runs', async () => {
      const r = await inWorkspace(['exec', 'web', '-c', 'web', '--', 'echo', 'please-rewrite']);
      return r.stdout === 'rewritten by the webhook\n' && r.stdout;
    }, 20_000);
    assert.equal(out, 'rewritten by the webhook\n');
    await ok(inWorkspace, ['delete', 'mutatingwebhookconfiguration', 'ws-exec']);
  });

  it('a ValidatingAdmissionPolicy on CONNECT refuses kubectl exec', async () => {
    await ok(inWorkspace, ['apply', '-f', '-'], noRmPolicy);
    const refused = await eventually('the policy refuses rm', async () => {
      const r = await inWorkspace(['exec', 'web', '-c', 'web', '--', 'rm', '-rf', 'data']);
      return /rm is not allowed/.test(r.stderr) && r;
    }, 20_000);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /ValidatingAdmissionPolicy 'no-rm' with binding 'no-rm' denied request: rm is not allowed in exec/);
    assert.equal(await ok(inWorkspace, ['exec', 'web', '-c', 'web', '--', 'echo', 'still-fine']), 'still-fine\n');
    await ok(inWorkspace, ['delete', 'validatingadmissionpolicy,validatingadmissionpolicybinding', 'no-rm']);
    await ok(inWorkspace, ['delete', 'validatingwebhookconfiguration', 'ws-exec']);
  });
});

describe('CONNECT admission in the simulated cluster', () => {
  it("the cluster's webhook and policy refuse kubectl exec there, and the workspace's forwarded exec too", async () => {
    wh.handle('/cluster-validate', denySecrets);
    await ok(inCluster, ['apply', '-f', '-'], vwc('cluster-exec', '/cluster-validate'));
    const refused = await eventually("the cluster's webhook refuses", async () => {
      const r = await inCluster(['exec', 'local', '--', 'cat', 'secret.txt']);
      return /refused by policy/.test(r.stderr) && r;
    }, 20_000);
    assert.match(refused.stderr, /admission webhook "cluster-exec\.connect\.example\.com" denied the request: exec of cat secret\.txt refused by policy/);
    const review = wh.received.get('/cluster-validate')!.findLast((r) => r.request.name === 'local');
    assert.equal(review.request.operation, 'CONNECT');
    assert.deepEqual(review.request.kind, { group: '', version: 'v1', kind: 'PodExecOptions' });
    assert.equal(await ok(inCluster, ['exec', 'local', '--', 'echo', 'ok']), 'ok\n');

    // The workspace forwards an exec its own admission allowed; the cluster reviews it again with its own.
    const forwarded = await eventually("the cluster's webhook refuses the workspace's exec", async () => {
      const r = await inWorkspace(['exec', 'web', '-c', 'web', '--', 'cat', 'secret.txt']);
      return /refused by policy/.test(r.stderr) && r;
    }, 20_000);
    assert.match(forwarded.stderr, /admission webhook "cluster-exec\.connect\.example\.com" denied the request/);

    await ok(inCluster, ['apply', '-f', '-'], noRmPolicy);
    const byPolicy = await eventually("the cluster's policy refuses rm", async () => {
      const r = await inCluster(['exec', 'local', '--', 'rm', 'x']);
      return /rm is not allowed/.test(r.stderr) && r;
    }, 20_000);
    assert.match(byPolicy.stderr, /ValidatingAdmissionPolicy 'no-rm' with binding 'no-rm' denied request: rm is not allowed in exec/);
  });
});

describe('connect options decoded before admission, as ConnectResource', () => {
  it('answers dryRun and undecodable options with 400s', async () => {
    const ws = `/clusters/${fleet.workspace.path}`;
    for (const [client, prefix, pod] of [[fleet.cluster(CLUSTER).client, '', 'local'], [fleet.up, ws, 'web']] as const) {
      const dry = await client.raw('POST', `${prefix}/api/v1/namespaces/default/pods/${pod}/exec?command=ls&stdout=true&dryRun=All`);
      assert.equal(dry.status, 400, dry.text);
      assert.equal((dry.body as any).message, 'dryRun is not supported');
      const ports = await client.raw('POST', `${prefix}/api/v1/namespaces/default/pods/${pod}/portforward?ports=80,http`);
      assert.equal(ports.status, 400, ports.text);
      assert.equal((ports.body as any).message, 'cannot convert to []int32: strconv.ParseUint: parsing "http": invalid syntax');
    }
  });
});
