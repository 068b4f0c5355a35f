/**
 * ValidatingAdmissionPolicies against a real server over HTTP, mirroring upstream's documented examples: defaults,
 * validation and printing of policies and bindings; a replica limit with a ConfigMap and with a custom resource as
 * params; label requirements; messageExpression and variables; namespaced params with parameterNotFoundAction Deny and
 * Allow; Warn and Audit actions; matchConditions; an expression that fails at runtime under failurePolicy Fail and
 * Ignore; the namespaceObject and request variables; the status writer's type checking; policies per workspace.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { installCRD } from './crd-support.js';
import { deployments } from '../../src/registry/builtin/workloads/resources.js';

const VAP = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const VAPB = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';
const TABLE = { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } };

let ts: TestServer;

const deploymentRules = [{ operations: ['CREATE', 'UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }];
const configMapRules = [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }];

function policy(name: string, spec: Record<string, unknown>) {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec };
}
function binding(name: string, spec: Record<string, unknown>) {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec };
}
async function create(path: string, body: unknown, prefix = ''): Promise<any> {
  const r = await ts.request('POST', `${prefix}${path}`, body);
  assert.equal(r.status, 201, r.text);
  return r.json;
}
async function remove(prefix = '', ...names: [string, string][]): Promise<void> {
  for (const [path, name] of names) await ts.request('DELETE', `${prefix}${path}/${name}`);
}
const deployment = (ns: string, name: string, replicas: number, labels: Record<string, string> = { app: name }) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: ns, labels },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
});
const cm = (ns: string, name: string, labels?: Record<string, string>, data: Record<string, string> = { a: 'b' }) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, ...(labels ? { labels } : {}) }, data });

/** Waits until `probe` (a create, dry run) is refused, i.e. the policy is in force; returns the refusal. */
async function refused(what: string, path: string, body: unknown, prefix = ''): Promise<any> {
  return eventually(what, async () => {
    const r = await ts.request('POST', `${prefix}${path}?dryRun=All`, body);
    return r.status >= 400 ? r : undefined;
  });
}

before(async () => {
  // apps/v1 Deployments, served in every workspace here (atrium serves them in workspaces with compute).
  ts = await startTestServer({ tokens: ['bob-token,bob,uid-bob'], server: { plugins: [{ name: 'deployments', resources: [deployments] }] } });
  for (const ns of ['vap-a', 'vap-b', 'vap-c']) await create('/api/v1/namespaces', { metadata: { name: ns, labels: { env: ns === 'vap-a' ? 'prod' : 'test' } } });
});
after(async () => {
  await ts?.stop();
});

describe('admissionregistration.k8s.io/v1 policies and bindings', () => {
  it('defaults, prints NAME VALIDATIONS PARAMKIND AGE and NAME POLICYNAME PARAMREF AGE', async () => {
    const p = await create(VAP, policy('printed', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['nothing'] }] }, validations: [{ expression: 'true' }, { expression: 'true' }] }));
    assert.equal(p.spec.failurePolicy, 'Fail');
    assert.equal(p.spec.matchConstraints.matchPolicy, 'Equivalent');
    assert.deepEqual(p.spec.matchConstraints.namespaceSelector, {});
    assert.deepEqual(p.spec.matchConstraints.objectSelector, {});
    assert.equal(p.spec.matchConstraints.resourceRules[0].scope, '*');
    assert.equal(p.metadata.generation, 1);
    await create(VAPB, binding('printed-a', { policyName: 'printed', validationActions: ['Deny'], paramRef: { name: 'limits', namespace: 'vap-a', parameterNotFoundAction: 'Allow' } }));
    await create(VAPB, binding('printed-b', { policyName: 'printed', validationActions: ['Audit'], paramRef: { name: 'limits', parameterNotFoundAction: 'Allow' } }));
    await create(VAPB, binding('printed-c', { policyName: 'printed', validationActions: ['Warn', 'Audit'], paramRef: { selector: { matchLabels: { a: 'b' } }, parameterNotFoundAction: 'Deny' } }));
    await create(VAPB, binding('printed-d', { policyName: 'nothing', validationActions: ['Deny'] }));
    const t = await ts.request('GET', VAP, undefined, TABLE);
    assert.deepEqual(t.json.columnDefinitions.map((c: any) => c.name), ['Name', 'Validations', 'ParamKind', 'Age']);
    assert.deepEqual(t.json.rows.find((r: any) => r.cells[0] === 'printed').cells.slice(0, 3), ['printed', 2, 'v1/ConfigMap']);
    const bt = await ts.request('GET', VAPB, undefined, TABLE);
    assert.deepEqual(bt.json.columnDefinitions.map((c: any) => c.name), ['Name', 'PolicyName', 'ParamRef', 'Age']);
    const cells = (n: string) => bt.json.rows.find((r: any) => r.cells[0] === n).cells.slice(0, 3);
    assert.deepEqual(cells('printed-a'), ['printed-a', 'printed', 'vap-a/limits']);
    assert.deepEqual(cells('printed-b'), ['printed-b', 'printed', '*/limits']);
    assert.deepEqual(cells('printed-c'), ['printed-c', 'printed', '&LabelSelector{MatchLabels:map[string]string{a: b,},MatchExpressions:[]LabelSelectorRequirement{},}']);
    assert.deepEqual(cells('printed-d'), ['printed-d', 'nothing', '<unset>']);
    await remove('', [VAPB, 'printed-a'], [VAPB, 'printed-b'], [VAPB, 'printed-c'], [VAPB, 'printed-d'], [VAP, 'printed']);
  });

  it('validates policies as kube-apiserver does, compiling their expressions', async () => {
    const r = await ts.request('POST', VAP, policy('bad', {
      failurePolicy: 'Sometimes',
      matchConstraints: { resourceRules: [] },
      validations: [{ expression: 'object.x ==' }, { expression: '"s"' }, { expression: 'params.x == 1' }, { expression: 'true', reason: 'Nope', message: ' ' }, { expression: 'variables.missing' }],
      variables: [{ name: '1x', expression: 'true' }],
    }));
    assert.equal(r.status, 422, r.text);
    const causes = r.json.details.causes.map((c: any) => `${c.field}: ${c.message}`);
    assert.ok(causes.includes('spec.failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore"'), causes.join('\n'));
    assert.ok(causes.includes('spec.matchConstraints.resourceRules: Required value'), causes.join('\n'));
    assert.ok(causes.some((c: string) => c.startsWith('spec.validations[0].expression: Invalid value: "object.x ==": compilation failed: ERROR: <input>:1:')), causes.join('\n'));
    assert.ok(causes.includes('spec.validations[1].expression: Invalid value: "\\"s\\"": must evaluate to bool but got string'), causes.join('\n'));
    assert.ok(causes.some((c: string) => c.startsWith('spec.validations[2].expression: Invalid value: "params.x == 1": compilation failed: ERROR: <input>:1:1: undeclared reference to \'params\'')), causes.join('\n'));
    assert.ok(causes.includes('spec.validations[3].message: Invalid value: " ": message must be non-empty if specified'), causes.join('\n'));
    assert.ok(causes.includes('spec.validations[3].reason: Unsupported value: "Nope": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized"'), causes.join('\n'));
    assert.ok(causes.some((c: string) => c.startsWith("spec.validations[4].expression: Invalid value: \"variables.missing\": compilation failed: ERROR: <input>:1:10: undefined field 'missing'")), causes.join('\n'));
    assert.ok(causes.includes('spec.variables[0].name: Invalid value: "1x": name is not a valid CEL identifier'), causes.join('\n'));

    const b = await ts.request('POST', VAPB, binding('bad', { policyName: '', validationActions: ['Deny', 'Warn', 'Deny'], paramRef: { name: 'x', selector: {} } }));
    assert.equal(b.status, 422, b.text);
    const bc = b.json.details.causes.map((c: any) => `${c.field}: ${c.message}`);
    for (const want of [
      'spec.policyName: Required value',
      'spec.paramRef.name: Forbidden: name and selector are mutually exclusive',
      'spec.paramRef.selector: Forbidden: name and selector are mutually exclusive',
      'spec.paramRef.parameterNotFoundAction: Required value',
      'spec.validationActions[2]: Duplicate value: "Deny"',
      'spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn", "Deny"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
    ]) assert.ok(bc.includes(want), `${want}\n---\n${bc.join('\n')}`);
    const none = await ts.request('POST', VAPB, binding('none', { policyName: 'x' }));
    assert.ok(none.json.details.causes.some((c: any) => c.field === 'spec.validationActions' && c.message === 'Required value: at least one validation action is required'), none.text);
  });
});

describe('evaluation', () => {
  it('replica limit with a ConfigMap as params: denies with the policy and binding named, as 422 Invalid', async () => {
    await create('/api/v1/namespaces/vap-a/configmaps', cm('vap-a', 'replica-limit', undefined, { maxReplicas: '3' }));
    await create(VAP, policy('replica-limit', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: { resourceRules: deploymentRules },
      validations: [{ expression: 'object.spec.replicas <= int(params.data.maxReplicas)', messageExpression: "'object.spec.replicas must be no greater than ' + params.data.maxReplicas" }],
    }));
    await create(VAPB, binding('replica-limit-a', { policyName: 'replica-limit', validationActions: ['Deny'], paramRef: { name: 'replica-limit', namespace: 'vap-a', parameterNotFoundAction: 'Deny' }, matchResources: { namespaceSelector: { matchLabels: { env: 'prod' } } } }));
    const r = await refused('the replica limit in force', '/apis/apps/v1/namespaces/vap-a/deployments', deployment('vap-a', 'big', 5));
    assert.equal(r.status, 422, r.text);
    assert.equal(r.json.reason, 'Invalid');
    assert.equal(r.json.message, `deployments.apps "big" is forbidden: ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-a' denied request: object.spec.replicas must be no greater than 3`);
    assert.deepEqual(r.json.details.causes, [{ message: "ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-a' denied request: object.spec.replicas must be no greater than 3" }]);
    const ok = await ts.request('POST', '/apis/apps/v1/namespaces/vap-a/deployments', deployment('vap-a', 'small', 2));
    assert.equal(ok.status, 201, ok.text);
    // An update past the limit is refused too; another namespace (env=test) is not bound.
    const up = await ts.request('PUT', '/apis/apps/v1/namespaces/vap-a/deployments/small', { ...ok.json, spec: { ...ok.json.spec, replicas: 4 } });
    assert.equal(up.status, 422, up.text);
    const other = await ts.request('POST', '/apis/apps/v1/namespaces/vap-b/deployments?dryRun=All', deployment('vap-b', 'big', 5));
    assert.equal(other.status, 201, other.text);
    // The param changes take effect at once (params are read when the policy applies).
    const p = await ts.request('GET', '/api/v1/namespaces/vap-a/configmaps/replica-limit');
    assert.equal((await ts.request('PUT', '/api/v1/namespaces/vap-a/configmaps/replica-limit', { ...p.json, data: { maxReplicas: '10' } })).status, 200);
    assert.equal((await ts.request('POST', '/apis/apps/v1/namespaces/vap-a/deployments?dryRun=All', deployment('vap-a', 'big', 5))).status, 201);
    await remove('', [VAPB, 'replica-limit-a'], [VAP, 'replica-limit']);
  });

  it('replica limit with a custom resource as params, and a reason of Forbidden answering 403', async () => {
    await installCRD(ts, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'replicalimits.rules.example.com' },
      spec: {
        group: 'rules.example.com',
        scope: 'Cluster',
        names: { plural: 'replicalimits', singular: 'replicalimit', kind: 'ReplicaLimit' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { maxReplicas: { type: 'integer' } } } } }],
      },
    });
    await create('/apis/rules.example.com/v1/replicalimits', { apiVersion: 'rules.example.com/v1', kind: 'ReplicaLimit', metadata: { name: 'max-3' }, maxReplicas: 3 });
    await create(VAP, policy('crd-limit', {
      paramKind: { apiVersion: 'rules.example.com/v1', kind: 'ReplicaLimit' },
      matchConstraints: { resourceRules: deploymentRules },
      validations: [{ expression: 'object.spec.replicas <= params.maxReplicas', reason: 'Forbidden' }],
    }));
    await create(VAPB, binding('crd-limit', { policyName: 'crd-limit', validationActions: ['Deny'], paramRef: { name: 'max-3', parameterNotFoundAction: 'Deny' } }));
    const r = await refused('the custom resource limit in force', '/apis/apps/v1/namespaces/vap-b/deployments', deployment('vap-b', 'big', 4));
    assert.equal(r.status, 403, r.text);
    assert.equal(r.json.reason, 'Forbidden');
    assert.match(r.json.message, /ValidatingAdmissionPolicy 'crd-limit' with binding 'crd-limit' denied request: failed expression: object\.spec\.replicas <= params\.maxReplicas$/);
    // The status writer type-checked it against Deployment and ReplicaLimit: nothing to warn about.
    const st = await eventually('the policy status', async () => {
      const g = await ts.request('GET', `${VAP}/crd-limit`);
      return g.json.status?.observedGeneration === 1 ? g.json.status : undefined;
    });
    assert.deepEqual(st, { observedGeneration: 1, typeChecking: {} });
    await remove('', [VAPB, 'crd-limit'], [VAP, 'crd-limit']);
  });

  it('label requirements with variables and messageExpression; matchConditions exempt some objects', async () => {
    await create(VAP, policy('env-label', {
      matchConstraints: { resourceRules: configMapRules },
      matchConditions: [{ name: 'not-exempt', expression: "!('exempt' in object.metadata.labels)" }],
      variables: [
        { name: 'labels', expression: 'has(object.metadata.labels) ? object.metadata.labels : {}' },
        { name: 'env', expression: "'env' in variables.labels ? variables.labels['env'] : ''" },
      ],
      validations: [
        { expression: "has(object.metadata.labels) && 'env' in object.metadata.labels", message: 'all configmaps must carry an env label' },
        { expression: "variables.env in ['prod', 'test', '']", messageExpression: "'env ' + variables.env + ' is not one of prod, test'" },
      ],
    }));
    await create(VAPB, binding('env-label', { policyName: 'env-label', validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { env: 'test' } } } }));
    const r = await refused('the label policy in force', '/api/v1/namespaces/vap-b/configmaps', cm('vap-b', 'nolabel', { other: 'x' }));
    assert.match(r.json.message, /^configmaps "nolabel" is forbidden: ValidatingAdmissionPolicy 'env-label' with binding 'env-label' denied request: all configmaps must carry an env label$/);
    const bad = await ts.request('POST', '/api/v1/namespaces/vap-b/configmaps', cm('vap-b', 'badenv', { env: 'qa' }));
    assert.equal(bad.status, 422);
    assert.match(bad.json.message, /denied request: env qa is not one of prod, test$/);
    assert.equal((await ts.request('POST', '/api/v1/namespaces/vap-b/configmaps', cm('vap-b', 'good', { env: 'test' }))).status, 201);
    assert.equal((await ts.request('POST', '/api/v1/namespaces/vap-b/configmaps', cm('vap-b', 'exempted', { exempt: 'yes' }))).status, 201);
    // A configmap without labels at all: the match condition's `in` on a missing map is an error → failurePolicy Fail.
    const err = await ts.request('POST', '/api/v1/namespaces/vap-b/configmaps', cm('vap-b', 'unlabelled'));
    assert.equal(err.status, 422, err.text);
    assert.match(err.json.message, /denied request: expression '!\('exempt' in object\.metadata\.labels\)' resulted in error: no such key: labels$/);
    await remove('', [VAPB, 'env-label'], [VAP, 'env-label']);
  });

  it('namespaced params: the request namespace’s param, parameterNotFoundAction Deny and Allow, selectors', async () => {
    await create('/api/v1/namespaces/vap-b/configmaps', cm('vap-b', 'ns-limit', undefined, { max: '2' }));
    await create(VAP, policy('ns-limit', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: { resourceRules: deploymentRules },
      validations: [{ expression: 'object.spec.replicas <= int(params.data.max)', messageExpression: "'at most ' + params.data.max + ' replicas in ' + namespaceObject.metadata.name" }],
    }));
    await create(VAPB, binding('ns-limit-deny', { policyName: 'ns-limit', validationActions: ['Deny'], paramRef: { name: 'ns-limit', parameterNotFoundAction: 'Deny' }, matchResources: { namespaceSelector: { matchLabels: { env: 'test' } } } }));
    const r = await refused('the namespaced param in force', '/apis/apps/v1/namespaces/vap-b/deployments', deployment('vap-b', 'three', 3));
    assert.match(r.json.message, /with binding 'ns-limit-deny' denied request: at most 2 replicas in vap-b$/);
    // vap-c has no param: Deny refuses every request the binding matches.
    const missing = await ts.request('POST', '/apis/apps/v1/namespaces/vap-c/deployments?dryRun=All', deployment('vap-c', 'one', 1));
    assert.equal(missing.status, 422, missing.text);
    assert.match(missing.json.message, /ValidatingAdmissionPolicy 'ns-limit' with binding 'ns-limit-deny' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction$/);
    // Allow: a binding without a param admits.
    const b = await ts.request('GET', `${VAPB}/ns-limit-deny`);
    b.json.spec.paramRef.parameterNotFoundAction = 'Allow';
    assert.equal((await ts.request('PUT', `${VAPB}/ns-limit-deny`, b.json)).status, 200);
    await eventually('Allow in force', async () => (await ts.request('POST', '/apis/apps/v1/namespaces/vap-c/deployments?dryRun=All', deployment('vap-c', 'one', 1))).status === 201);
    // A selector: every selected param is evaluated.
    await create(VAPB, binding('ns-limit-selector', { policyName: 'ns-limit', validationActions: ['Deny'], paramRef: { selector: { matchLabels: { limit: 'yes' } }, namespace: 'vap-a', parameterNotFoundAction: 'Allow' } }));
    await create('/api/v1/namespaces/vap-a/configmaps', cm('vap-a', 'sel-1', { limit: 'yes' }, { max: '5' }));
    await create('/api/v1/namespaces/vap-a/configmaps', cm('vap-a', 'sel-2', { limit: 'yes' }, { max: '4' }));
    const sel = await refused('the selected params in force', '/apis/apps/v1/namespaces/vap-a/deployments', deployment('vap-a', 'five', 5));
    assert.match(sel.json.message, /with binding 'ns-limit-selector' denied request: at most 4 replicas in vap-a$/);
    await remove('', [VAPB, 'ns-limit-deny'], [VAPB, 'ns-limit-selector'], [VAP, 'ns-limit']);
  });

  it('Warn adds a Warning header, Audit records the validation failure and auditAnnotations; neither refuses', async () => {
    await create(VAP, policy('soft', {
      matchConstraints: { resourceRules: configMapRules },
      validations: [{ expression: "object.metadata.name.startsWith('ok-')", message: 'names should start with ok-' }],
      auditAnnotations: [{ key: 'who', valueExpression: "request.userInfo.username + ' created ' + object.metadata.name" }],
    }));
    await create(VAPB, binding('soft-warn', { policyName: 'soft', validationActions: ['Warn', 'Audit'], matchResources: { namespaceSelector: { matchLabels: { env: 'prod' } } } }));
    const lines: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    (process.stderr as any).write = (chunk: any, ...rest: any[]) => {
      lines.push(String(chunk));
      return write(chunk, ...rest);
    };
    try {
      const r = await eventually('the warning', async () => {
        const x = await ts.request('POST', '/api/v1/namespaces/vap-a/configmaps?dryRun=All', cm('vap-a', 'warned'));
        return x.headers.warning ? x : undefined;
      });
      assert.equal(r.status, 201);
      assert.equal(String(r.headers.warning), `299 - "Validation failed for ValidatingAdmissionPolicy 'soft' with binding 'soft-warn': names should start with ok-"`);
    } finally {
      (process.stderr as any).write = write;
    }
    const audit = lines.map((l) => { try { return JSON.parse(l); } catch { return {}; } }).find((l) => l.msg === 'admission policy audit annotations' && l.name === 'warned');
    assert.ok(audit, lines.join(''));
    assert.deepEqual(JSON.parse(audit.annotations['validation.policy.admission.k8s.io/validation_failure']), [{ message: 'names should start with ok-', policy: 'soft', binding: 'soft-warn', expressionIndex: 0, validationActions: ['Warn', 'Audit'] }]);
    assert.equal(audit.annotations['soft/who'], 'admin created warned');
    await remove('', [VAPB, 'soft-warn'], [VAP, 'soft']);
  });

  it('an expression failing at runtime refuses under failurePolicy Fail and is ignored under Ignore', async () => {
    await create(VAP, policy('broken', { failurePolicy: 'Fail', matchConstraints: { resourceRules: configMapRules }, validations: [{ expression: 'object.data.missing == "x"' }] }));
    await create(VAPB, binding('broken', { policyName: 'broken', validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { env: 'prod' } } } }));
    const r = await refused('the broken policy in force', '/api/v1/namespaces/vap-a/configmaps', cm('vap-a', 'any'));
    assert.equal(r.status, 422);
    assert.equal(r.json.message, `configmaps "any" is forbidden: ValidatingAdmissionPolicy 'broken' with binding 'broken' denied request: expression 'object.data.missing == "x"' resulted in error: no such key: missing`);
    const p = await ts.request('GET', `${VAP}/broken`);
    p.json.spec.failurePolicy = 'Ignore';
    assert.equal((await ts.request('PUT', `${VAP}/broken`, p.json)).status, 200);
    await eventually('Ignore in force', async () => (await ts.request('POST', '/api/v1/namespaces/vap-a/configmaps?dryRun=All', cm('vap-a', 'any'))).status === 201);
    await remove('', [VAPB, 'broken'], [VAP, 'broken']);
  });

  it('a binding naming a paramKind that is not served fails per failurePolicy', async () => {
    await create(VAP, policy('unknown-kind', { paramKind: { apiVersion: 'nothing.example.com/v1', kind: 'Nothing' }, matchConstraints: { resourceRules: configMapRules }, validations: [{ expression: 'true' }] }));
    await create(VAPB, binding('unknown-kind', { policyName: 'unknown-kind', validationActions: ['Deny'], paramRef: { name: 'x', parameterNotFoundAction: 'Allow' }, matchResources: { namespaceSelector: { matchLabels: { env: 'prod' } } } }));
    const r = await refused('the misconfigured policy in force', '/api/v1/namespaces/vap-a/configmaps', cm('vap-a', 'any2'));
    assert.match(r.json.message, /ValidatingAdmissionPolicy 'unknown-kind' with binding 'unknown-kind' denied request: failed to configure binding: failed to find resource referenced by paramKind: 'nothing.example.com\/v1, Kind=Nothing'$/);
    await remove('', [VAPB, 'unknown-kind'], [VAP, 'unknown-kind']);
  });

  it('writes observedGeneration and type-checking warnings for fields the matched kinds do not declare', async () => {
    await create(VAP, policy('typos', {
      matchConstraints: { resourceRules: deploymentRules },
      validations: [{ expression: 'object.replicas > 1' }, { expression: 'object.spec.replicas > 1', messageExpression: "'bad ' + object.spec.templat.metadata.name" }],
    }));
    const st = await eventually('type checking', async () => {
      const g = await ts.request('GET', `${VAP}/typos`);
      return g.json.status?.observedGeneration === 1 ? g.json.status : undefined;
    });
    assert.deepEqual(st.typeChecking.expressionWarnings, [
      { fieldRef: 'spec.validations[0].expression', warning: "apps/v1, Kind=Deployment: compilation failed: ERROR: <input>:1:7: undefined field 'replicas'\n | object.replicas > 1\n | ......^\n" },
      { fieldRef: 'spec.validations[1].messageExpression', warning: "apps/v1, Kind=Deployment: compilation failed: ERROR: <input>:1:21: undefined field 'templat'\n | 'bad ' + object.spec.templat.metadata.name\n | ....................^\n" },
    ]);
    // A spec change bumps the generation; the warnings follow.
    const p = await ts.request('GET', `${VAP}/typos`);
    p.json.spec.validations = [{ expression: 'object.spec.replicas > 1' }];
    const u = await ts.request('PUT', `${VAP}/typos`, p.json);
    assert.equal(u.json.metadata.generation, 2);
    const st2 = await eventually('type checking again', async () => {
      const g = await ts.request('GET', `${VAP}/typos`);
      return g.json.status?.observedGeneration === 2 ? g.json.status : undefined;
    });
    assert.deepEqual(st2, { observedGeneration: 2, typeChecking: {} });
    await remove('', [VAP, 'typos']);
  });

  it('authorizer: a validation that asks RBAC whether the requesting user may do something else', async () => {
    await create(VAP, policy('protected-label', {
      matchConstraints: { resourceRules: configMapRules },
      validations: [
        {
          expression: "!has(object.metadata.labels) || !('protected' in object.metadata.labels) || authorizer.group('').resource('configmaps').subresource('protect').namespace(object.metadata.namespace).check('update').allowed()",
          messageExpression: "'only users allowed to update configmaps/protect may label ' + object.metadata.name + ' protected'",
          reason: 'Forbidden',
        },
        { expression: "authorizer.requestResource.check('create').allowed() && authorizer.path('/healthz').check('get').allowed() == authorizer.serviceAccount('vap-c', 'x').path('/healthz').check('get').allowed()" },
      ],
    }));
    await create(VAPB, binding('protected-label', { policyName: 'protected-label', validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { env: 'test' } } } }));
    // bob may create configmaps in vap-c, and nothing else.
    await create('/apis/rbac.authorization.k8s.io/v1/namespaces/vap-c/roles', { metadata: { name: 'cm', namespace: 'vap-c' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create'] }] });
    await create('/apis/rbac.authorization.k8s.io/v1/namespaces/vap-c/rolebindings', { metadata: { name: 'bob', namespace: 'vap-c' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm' }, subjects: [{ kind: 'User', name: 'bob' }] });
    const r = await eventually('the authorizer policy in force', async () => {
      const x = await ts.request('POST', '/api/v1/namespaces/vap-c/configmaps?dryRun=All', cm('vap-c', 'p', { protected: 'yes' }), { token: 'bob-token' });
      return x.status === 403 ? x : undefined;
    });
    assert.equal(r.json.reason, 'Forbidden');
    assert.match(r.json.message, /^configmaps "p" is forbidden: ValidatingAdmissionPolicy 'protected-label' with binding 'protected-label' denied request: only users allowed to update configmaps\/protect may label p protected$/);
    assert.equal((await ts.request('POST', '/api/v1/namespaces/vap-c/configmaps?dryRun=All', cm('vap-c', 'p', { other: 'yes' }), { token: 'bob-token' })).status, 201);
    // The administrator may.
    assert.equal((await ts.request('POST', '/api/v1/namespaces/vap-c/configmaps?dryRun=All', cm('vap-c', 'p', { protected: 'yes' }))).status, 201);
    // messageExpressions have no authorizer, as upstream.
    const bad = await ts.request('POST', VAP, policy('authz-message', { matchConstraints: { resourceRules: configMapRules }, validations: [{ expression: 'true', messageExpression: "authorizer.path('/').check('get').reason()" }] }));
    assert.equal(bad.status, 422);
    assert.match(bad.json.details.causes[0].message, /compilation failed: ERROR: <input>:1:1: undeclared reference to 'authorizer'/);
    await remove('', [VAPB, 'protected-label'], [VAP, 'protected-label']);
  });

  it('policies apply only in their own workspace', async () => {
    const ws = await ts.request('POST', '/apis/tenancy.kcp.io/v1alpha1/workspaces', { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: 'vap-ws' } });
    assert.equal(ws.status, 201, ws.text);
    const prefix = '/clusters/root:vap-ws';
    await eventually('the workspace ready', async () => (await ts.request('GET', `${prefix}/api/v1/namespaces/default`)).status === 200);
    await create(VAP, policy('deny-all-cm', { matchConstraints: { resourceRules: configMapRules }, validations: [{ expression: 'false', message: 'no configmaps here' }] }), prefix);
    await create(VAPB, binding('deny-all-cm', { policyName: 'deny-all-cm', validationActions: ['Deny'] }), prefix);
    const r = await refused('the workspace policy in force', '/api/v1/namespaces/default/configmaps', cm('default', 'x'), prefix);
    assert.match(r.json.message, /no configmaps here$/);
    assert.equal((await ts.request('POST', '/api/v1/namespaces/default/configmaps?dryRun=All', cm('default', 'x'))).status, 201);
  });
});
