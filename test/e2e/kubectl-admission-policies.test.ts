/**
 * kubectl and ValidatingAdmissionPolicies against a real atrium server: `kubectl apply` of upstream's documented
 * replica-limit policy with a ConfigMap as params and its binding, `kubectl get` of both (NAME VALIDATIONS PARAMKIND
 * AGE; NAME POLICYNAME PARAMREF AGE), the refusal kubectl shows, a Warn binding's warning on a successful create,
 * and `kubectl get -o jsonpath` of the status the type checker writes.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { kubectlFails, kubectlOk } from './support/kubectl-run.js';

let t: TestServer;

before(async () => {
  t = await startTestServer();
  await kubectlOk(t, ['create', 'namespace', 'e2e-vap']);
});

after(async () => {
  await t?.stop();
});

const manifest = `
apiVersion: v1
kind: ConfigMap
metadata:
  name: limits
  namespace: e2e-vap
data:
  maxKeys: "2"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: key-limit
spec:
  failurePolicy: Fail
  paramKind:
    apiVersion: v1
    kind: ConfigMap
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["configmaps"]
  matchConditions:
  - name: not-the-params
    expression: "object.metadata.name != 'limits'"
  variables:
  - name: keys
    expression: "has(object.data) ? size(object.data) : 0"
  validations:
  - expression: "variables.keys <= int(params.data.maxKeys)"
    messageExpression: "'at most ' + params.data.maxKeys + ' keys, got ' + string(variables.keys)"
    reason: Forbidden
  - expression: "object.metadata.name.startsWith('ok-')"
    message: "names must start with ok-"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: key-limit-deny
spec:
  policyName: key-limit
  validationActions: [Deny]
  paramRef:
    name: limits
    namespace: e2e-vap
    parameterNotFoundAction: Deny
`;

test('kubectl apply a policy with params and a binding, get them, and see the refusal and a warning', async () => {
  assert.equal(
    await kubectlOk(t, ['apply', '-f', '-'], { input: manifest }),
    'configmap/limits created\nvalidatingadmissionpolicy.admissionregistration.k8s.io/key-limit created\nvalidatingadmissionpolicybinding.admissionregistration.k8s.io/key-limit-deny created\n',
  );
  const [header, row] = (await kubectlOk(t, ['get', 'validatingadmissionpolicies'])).trimEnd().split('\n');
  assert.match(header!, /^NAME\s+VALIDATIONS\s+PARAMKIND\s+AGE$/);
  assert.match(row!, /^key-limit\s+2\s+v1\/ConfigMap\s+\d+s$/);
  const [bheader, brow] = (await kubectlOk(t, ['get', 'validatingadmissionpolicybindings'])).trimEnd().split('\n');
  assert.match(bheader!, /^NAME\s+POLICYNAME\s+PARAMREF\s+AGE$/);
  assert.match(brow!, /^key-limit-deny\s+key-limit\s+e2e-vap\/limits\s+\d+s$/);

  const err = await eventually('the policy refuses', () =>
    kubectlFails(t, ['create', 'configmap', 'ok-big', '-n', 'e2e-vap', '--from-literal=a=1', '--from-literal=b=2', '--from-literal=c=3']).catch(() => undefined),
  );
  assert.equal(
    err.stderr.trim(),
    `error: failed to create configmap: configmaps "ok-big" is forbidden: ValidatingAdmissionPolicy 'key-limit' with binding 'key-limit-deny' denied request: at most 2 keys, got 3`,
  );
  const named = await kubectlFails(t, ['create', 'configmap', 'small', '-n', 'e2e-vap', '--from-literal=a=1']);
  assert.match(named.stderr, /denied request: names must start with ok-$/m);
  assert.equal(await kubectlOk(t, ['create', 'configmap', 'ok-small', '-n', 'e2e-vap', '--from-literal=a=1']), 'configmap/ok-small created\n');

  // Switch the binding to Warn: the create succeeds and kubectl prints the warning.
  await kubectlOk(t, ['patch', 'validatingadmissionpolicybinding', 'key-limit-deny', '--type=merge', '-p', '{"spec":{"validationActions":["Warn"]}}']);
  const warned = await eventually('the warning', async () => {
    const name = `w-${Date.now()}`;
    const r = await t.kubectl(['create', 'configmap', name, '-n', 'e2e-vap', '--dry-run=server']);
    return r.code === 0 && r.stderr.includes('Warning') ? r : undefined;
  });
  assert.match(warned.stderr, /^Warning: Validation failed for ValidatingAdmissionPolicy 'key-limit' with binding 'key-limit-deny': names must start with ok-$/m);

  const observed = await eventually('the status written', async () => {
    const out = await kubectlOk(t, ['get', 'validatingadmissionpolicy', 'key-limit', '-o', 'jsonpath={.status.observedGeneration}']);
    return out === '1' ? out : undefined;
  });
  assert.equal(observed, '1');
});
