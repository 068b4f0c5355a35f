/**
 * CustomResourceDefinitions over HTTPS: the CRD resource (validation, conditions, deletion), and serving its custom
 * resources (all verbs, discovery, OpenAPI, schema pipeline, subresources, versions, tables).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { assertStatus, createNamespace, openWatch } from './support.js';
import { certificateCRD, cronTabCRD, rolloutCRD, serviceMonitorCRD } from './crd-fixtures.js';
import { installCRD, waitForCRD } from './crd-support.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const aggregated = { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' };
const mergePatch = { 'Content-Type': 'application/merge-patch+json' };

let ts: TestServer;
let ns: string;

before(async () => {
  ts = await startTestServer();
  ns = await createNamespace(ts, 'crd');
  await installCRD(ts, cronTabCRD());
});
after(async () => {
  await ts.stop();
});

function cronTab(name: string, spec: Record<string, unknown> = { cronSpec: '* * * * */5' }, extra: Record<string, unknown> = {}): any {
  return { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name }, spec, ...extra };
}

const ctPath = (name = '') => `/apis/stable.example.com/v1/namespaces/${ns}/crontabs${name ? `/${name}` : ''}`;

describe('the CRD resource', () => {
  it('sets acceptedNames, NamesAccepted, Established and storedVersions', async () => {
    const crd = (await ts.request('GET', `${CRDS}/crontabs.stable.example.com`)).json;
    assert.deepEqual(crd.status.acceptedNames, { plural: 'crontabs', singular: 'crontab', shortNames: ['ct'], kind: 'CronTab', listKind: 'CronTabList', categories: ['all', 'cron'] });
    const byType = Object.fromEntries(crd.status.conditions.map((c: any) => [c.type, c]));
    assert.equal(byType.NamesAccepted.status, 'True');
    assert.equal(byType.NamesAccepted.reason, 'NoConflicts');
    assert.equal(byType.NamesAccepted.message, 'no conflicts found');
    assert.equal(byType.Established.reason, 'InitialNamesAccepted');
    assert.deepEqual(crd.status.storedVersions, ['v1']);
    assert.equal(crd.metadata.generation, 1);
    assert.equal(crd.spec.conversion.strategy, 'None');
  });

  const invalidCases: [string, (c: any) => void, RegExp][] = [
    ['name not plural.group', (c) => (c.metadata.name = 'foos.stable.example.com'), /metadata\.name: Invalid value: "foos\.stable\.example\.com": must be spec\.names\.plural\+"\."\+spec\.group/],
    ['two storage versions', (c) => (c.spec.versions[1].storage = true), /spec\.versions: Invalid value: "array": must have exactly one version marked as storage version/],
    ['bad scope', (c) => (c.spec.scope = 'Global'), /spec\.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"/],
    ['group without a dot', (c) => { c.spec.group = 'example'; c.metadata.name = 'crontabs.example'; }, /spec\.group: Invalid value: "example": should be a domain with at least one dot/],
    // Both versions share one schema object, so upstream hoists it and reports under spec.validation.
    ['missing type (non-structural)', (c) => { delete c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.image.type; }, /spec\.validation\.openAPIV3Schema\.properties\[spec\]\.properties\[image\]\.type: Required value: must not be empty for specified object fields/],
    ['CEL rule that does not compile', (c) => { c.spec.versions[0].schema.openAPIV3Schema.properties.spec['x-kubernetes-validations'] = [{ rule: 'self.replicas >' }]; }, /spec\.validation\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: "object": compilation failed: ERROR: <input>:1:16: Unexpected token/],
    [
      'per-version schemas, one non-structural',
      (c) => {
        c.spec.versions[1].schema = structuredClone(c.spec.versions[1].schema);
        c.spec.versions[1].schema.openAPIV3Schema.properties.spec.properties.extra = { properties: { a: { type: 'string' } } };
      },
      /spec\.versions\[1\]\.schema\.openAPIV3Schema\.properties\[spec\]\.properties\[extra\]\.type: Required value: must not be empty for specified object fields/,
    ],
    [
      'a CEL rule over the cost budget',
      (c) => {
        const s = c.spec.versions[0].schema.openAPIV3Schema.properties.spec;
        s.properties.items = { type: 'array', items: { type: 'array', items: { type: 'string' } } };
        s['x-kubernetes-validations'] = [{ rule: 'self.items.all(x, x.all(y, self.items.all(z, z.all(w, w == y))))' }];
      },
      /x-kubernetes-validations\[0\]\.rule: Forbidden: estimated rule cost exceeds budget by factor of/,
    ],
    ['bad printer column type', (c) => (c.spec.versions[0].additionalPrinterColumns[0].type = 'text'), /spec\.versions\[0\]\.additionalPrinterColumns\[0\]\.type: Invalid value: "text": must be one of boolean,date,integer,number,string/],
    ['scale path outside spec', (c) => (c.spec.versions[0].subresources.scale.specReplicasPath = '.status.x'), /spec\.versions\[0\]\.subresources\.scale\.specReplicasPath: Invalid value: "\.status\.x": should be a json path under \.spec/],
  ];
  for (const [what, mutate, message] of invalidCases) {
    it(`rejects a CRD with ${what} (422, nothing stored)`, async () => {
      const crd = cronTabCRD({ group: 'invalid.example.com' });
      crd.metadata.name = 'crontabs.invalid.example.com';
      mutate(crd);
      const r = await ts.request('POST', CRDS, crd);
      assertStatus(r, 422, 'Invalid', message);
      assert.equal(r.json.details.kind, 'CustomResourceDefinition');
      assert.equal(r.json.details.group, 'apiextensions.k8s.io');
      assert.equal((await ts.request('GET', `${CRDS}/${crd.metadata.name}`)).status, 404);
    });
  }

  it('reports a single-version schema error under spec.validation (upstream hoists identical schemas)', async () => {
    const crd = cronTabCRD({ group: 'hoist.example.com' });
    crd.metadata.name = 'crontabs.hoist.example.com';
    crd.spec.versions = [crd.spec.versions[0]];
    crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.image = { type: 'string', default: 5 };
    const r = await ts.request('POST', CRDS, crd);
    assertStatus(r, 422, 'Invalid', /spec\.validation\.openAPIV3Schema\.properties\[spec\]\.properties\[image\]\.default: Invalid value: "integer":  in body must be of type string: "integer"/);
  });

  it('rejects a name conflict with NamesAccepted=False and does not serve it', async () => {
    const crd = cronTabCRD();
    crd.metadata.name = 'crontab2s.stable.example.com';
    crd.spec.names = { plural: 'crontab2s', singular: 'crontab2', kind: 'CronTab2', shortNames: ['ct'] };
    assert.equal((await ts.request('POST', CRDS, crd)).status, 201);
    const c = await waitForCRD(ts, crd.metadata.name, (x) => x?.status?.conditions?.some((k: any) => k.type === 'NamesAccepted'));
    const cond = c.status.conditions.find((k: any) => k.type === 'NamesAccepted');
    assert.equal(cond.status, 'False');
    assert.equal(cond.reason, 'NameConflict');
    assert.equal(cond.message, '"ct" is already in use');
    assert.ok(!c.status.conditions.some((k: any) => k.type === 'Established' && k.status === 'True'));
    assert.equal((await ts.request('GET', `/apis/stable.example.com/v1/crontab2s`)).status, 404);
    assert.equal((await ts.request('DELETE', `${CRDS}/${crd.metadata.name}`)).status, 200);
    await waitForCRD(ts, crd.metadata.name, (x) => x === undefined);
  });
});

describe('custom resources', () => {
  it('are in legacy and aggregated discovery with short names, categories and subresources', async () => {
    const list = (await ts.request('GET', '/apis/stable.example.com/v1')).json;
    const ct = list.resources.find((r: any) => r.name === 'crontabs');
    assert.deepEqual(
      { singularName: ct.singularName, namespaced: ct.namespaced, kind: ct.kind, shortNames: ct.shortNames, categories: ct.categories },
      { singularName: 'crontab', namespaced: true, kind: 'CronTab', shortNames: ['ct'], categories: ['all', 'cron'] },
    );
    const scale = list.resources.find((r: any) => r.name === 'crontabs/scale');
    assert.deepEqual({ group: scale.group, version: scale.version, kind: scale.kind, verbs: scale.verbs }, { group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
    const group = (await ts.request('GET', '/apis/stable.example.com')).json;
    assert.equal(group.preferredVersion.version, 'v1');
    assert.deepEqual(group.versions.map((v: any) => v.version), ['v1', 'v1beta1']);
    const agg = (await ts.request('GET', '/apis', undefined, { headers: aggregated })).json;
    const g = agg.items.find((i: any) => i.metadata.name === 'stable.example.com');
    assert.deepEqual(g.versions.map((v: any) => v.version), ['v1', 'v1beta1']);
    const res = g.versions[0].resources[0];
    assert.equal(res.scope, 'Namespaced');
    assert.deepEqual(res.subresources.map((s: any) => s.subresource), ['status', 'scale']);
  });

  it('serve create/get/list/update/patch/delete with the schema pipeline applied', async () => {
    const created = await ts.request('POST', ctPath(), cronTab('c1', { cronSpec: '* * * * */5', image: 'busybox' }));
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.spec.replicas, 1, 'defaulted');
    assert.equal(created.json.spec.paused, false, 'defaulted');
    assert.equal(created.json.metadata.generation, 1);
    const got = (await ts.request('GET', ctPath('c1'))).json;
    assert.equal(got.apiVersion, 'stable.example.com/v1');
    const list = (await ts.request('GET', ctPath())).json;
    assert.equal(list.kind, 'CronTabList');
    assert.deepEqual(list.items.map((i: any) => i.metadata.name), ['c1']);
    const patched = await ts.request('PATCH', ctPath('c1'), { spec: { replicas: 3 } }, { headers: mergePatch });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.json.spec.replicas, 3);
    assert.equal(patched.json.metadata.generation, 2);
    const jp = await ts.request('PATCH', ctPath('c1'), [{ op: 'replace', path: '/spec/image', value: 'nginx' }], { headers: { 'Content-Type': 'application/json-patch+json' } });
    assert.equal(jp.json.spec.image, 'nginx');
    const put = await ts.request('PUT', ctPath('c1'), { ...jp.json, spec: { ...jp.json.spec, replicas: 4 } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.json.metadata.generation, 4);
    const del = await ts.request('DELETE', ctPath('c1'));
    assert.equal(del.status, 200);
    assert.deepEqual(del.json.details, { name: 'c1', group: 'stable.example.com', kind: 'crontabs', uid: put.json.metadata.uid });
  });

  it('collects every schema violation into one 422 with field paths', async () => {
    const r = await ts.request('POST', ctPath(), cronTab('bad', { cronSpec: 'nope', replicas: 11, paused: 'yes' }));
    assertStatus(r, 422, 'Invalid');
    assert.match(r.json.message, /^CronTab\.stable\.example\.com "bad" is invalid: \[/);
    assert.deepEqual(
      r.json.details.causes.map((c: any) => `${c.field}: ${c.message}`).sort(),
      [
        'spec.cronSpec: Invalid value: "nope": spec.cronSpec in body should match \'^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$\'',
        'spec.paused: Invalid value: "string": spec.paused in body must be of type boolean: "string"',
        'spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10',
      ],
    );
  });

  it('prunes unknown fields: Warn by default, 400 under Strict, silent under Ignore', async () => {
    const body = cronTab('prune', { cronSpec: '* * * * *', extra: 1 }, { junk: true });
    const warn = await ts.request('POST', ctPath(), body);
    assert.equal(warn.status, 201, warn.text);
    assert.equal(warn.json.spec.extra, undefined);
    assert.equal(warn.json.junk, undefined);
    assert.equal(warn.headers.warning, '299 - "unknown field \\"junk\\"", 299 - "unknown field \\"spec.extra\\""');
    const strict = await ts.request('POST', `${ctPath()}?fieldValidation=Strict`, { ...body, metadata: { name: 'prune2' } });
    assertStatus(strict, 400, 'BadRequest', 'CronTab in version "v1" cannot be handled as a CronTab: strict decoding error: unknown field "junk", unknown field "spec.extra"');
    const ignore = await ts.request('POST', `${ctPath()}?fieldValidation=Ignore`, { ...body, metadata: { name: 'prune3' } });
    assert.equal(ignore.status, 201);
    assert.equal(ignore.headers.warning, undefined);
    assert.equal(ignore.json.spec.extra, undefined);
  });

  it('answers 415 to strategic merge patch and 422 to an update without resourceVersion', async () => {
    await ts.request('POST', ctPath(), cronTab('smp'));
    const smp = await ts.request('PATCH', ctPath('smp'), { spec: { replicas: 2 } }, { headers: { 'Content-Type': 'application/strategic-merge-patch+json' } });
    assertStatus(smp, 415, 'UnsupportedMediaType', /accepted media types include: application\/json-patch\+json, application\/merge-patch\+json, application\/apply-patch\+yaml/);
    const put = await ts.request('PUT', ctPath('smp'), cronTab('smp'));
    assertStatus(put, 422, 'Invalid', /^crontabs\.stable\.example\.com "smp" is invalid: metadata\.resourceVersion: Invalid value: 0x0: must be specified for an update$/);
  });

  it('status subresource: main endpoint ignores status, /status writes only status, generation unchanged', async () => {
    const c = (await ts.request('POST', ctPath(), cronTab('st', { cronSpec: '* * * * *' }, { status: { phase: 'Ignored' } }))).json;
    assert.equal(c.status, undefined);
    const s = await ts.request('PATCH', `${ctPath('st')}/status`, { status: { phase: 'Running', replicas: 1 }, spec: { image: 'ignored' } }, { headers: mergePatch });
    assert.equal(s.status, 200, s.text);
    assert.equal(s.json.status.phase, 'Running');
    assert.equal(s.json.spec.image, undefined);
    assert.equal(s.json.metadata.generation, 1);
    const m = await ts.request('PATCH', ctPath('st'), { status: { phase: 'Nope' } }, { headers: mergePatch });
    assert.equal(m.json.status.phase, 'Running');
    const bad = await ts.request('PATCH', `${ctPath('st')}/status`, { status: { replicas: 'x' } }, { headers: mergePatch });
    assertStatus(bad, 422, 'Invalid', /status\.replicas: Invalid value: "string": status\.replicas in body must be of type integer: "string"/);
  });

  it('scale subresource: GET Scale, merge-patch /scale, PUT /scale, labelSelectorPath', async () => {
    await ts.request('POST', ctPath(), cronTab('sc', { cronSpec: '* * * * *', replicas: 2 }));
    await ts.request('PATCH', `${ctPath('sc')}/status`, { status: { replicas: 2, labelSelector: 'app=sc' } }, { headers: mergePatch });
    const scale = (await ts.request('GET', `${ctPath('sc')}/scale`)).json;
    assert.equal(scale.kind, 'Scale');
    assert.equal(scale.apiVersion, 'autoscaling/v1');
    assert.deepEqual(scale.spec, { replicas: 2 });
    assert.deepEqual(scale.status, { replicas: 2, selector: 'app=sc' });
    const p = await ts.request('PATCH', `${ctPath('sc')}/scale`, { spec: { replicas: 5 } }, { headers: mergePatch });
    assert.equal(p.status, 200, p.text);
    assert.equal(p.json.kind, 'Scale');
    assert.equal(p.json.spec.replicas, 5);
    assert.equal((await ts.request('GET', ctPath('sc'))).json.spec.replicas, 5);
    const tooMany = await ts.request('PUT', `${ctPath('sc')}/scale`, { ...p.json, spec: { replicas: 20 } });
    assertStatus(tooMany, 422, 'Invalid', /spec\.replicas: Invalid value: 20: spec\.replicas in body should be less than or equal to 10/);
    const negative = await ts.request('PATCH', `${ctPath('sc')}/scale`, { spec: { replicas: -1 } }, { headers: mergePatch });
    assertStatus(negative, 422, 'Invalid', /Scale.autoscaling "sc" is invalid: spec\.replicas: Invalid value: -1: must be greater than or equal to 0/);
  });

  it('serves every served version with apiVersion rewritten, and a deprecation warning', async () => {
    await ts.request('POST', ctPath(), cronTab('multi'));
    const beta = await ts.request('GET', `/apis/stable.example.com/v1beta1/namespaces/${ns}/crontabs/multi`);
    assert.equal(beta.status, 200);
    assert.equal(beta.json.apiVersion, 'stable.example.com/v1beta1');
    assert.equal(beta.headers.warning, '299 - "stable.example.com/v1beta1 CronTab is deprecated"');
  });

  it('renders additionalPrinterColumns as a Table', async () => {
    await ts.request('POST', ctPath(), cronTab('tbl', { cronSpec: '*/5 * * * *', image: 'img' }));
    const t = (await ts.request('GET', ctPath('tbl'), undefined, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } })).json;
    assert.equal(t.kind, 'Table');
    assert.deepEqual(t.columnDefinitions.map((c: any) => [c.name, c.type, c.priority]), [['Name', 'string', 0], ['Spec', 'string', 0], ['Replicas', 'integer', 0], ['Image', 'string', 1], ['Age', 'date', 0]]);
    assert.deepEqual(t.rows[0].cells.slice(0, 4), ['tbl', '*/5 * * * *', 1, 'img']);
    assert.match(t.rows[0].cells[4], /^\d+s$/);
  });

  it('watch delivers custom resource events like built-in kinds', async () => {
    const w = await openWatch(ts, `${ctPath()}?watch=1&resourceVersion=${(await ts.request('GET', ctPath())).json.metadata.resourceVersion}`);
    await ts.request('POST', ctPath(), cronTab('w1'));
    const ev = await w.next();
    assert.equal(ev.type, 'ADDED');
    assert.equal(ev.object.metadata.name, 'w1');
    assert.equal(ev.object.spec.replicas, 1);
    w.close();
  });

  it('are listed across namespaces and served cluster-scoped when the CRD says so', async () => {
    const all = (await ts.request('GET', '/apis/stable.example.com/v1/crontabs')).json;
    assert.ok(all.items.length > 0);
    await installCRD(ts, { ...cronTabCRD({ scope: 'Cluster', group: 'cluster.example.com' }) });
    const c = await ts.request('POST', '/apis/cluster.example.com/v1/crontabs', { ...cronTab('cl'), apiVersion: 'cluster.example.com/v1' });
    assert.equal(c.status, 201, c.text);
    assert.equal(c.json.metadata.namespace, undefined);
  });

  it('publish OpenAPI v3 and v2 definitions', async () => {
    const root = (await ts.request('GET', '/openapi/v3')).json;
    assert.ok(root.paths['apis/stable.example.com/v1']);
    const doc = (await ts.request('GET', '/openapi/v3/apis/stable.example.com/v1')).json;
    const schema = doc.components.schemas['com.example.stable.v1.CronTab'];
    assert.deepEqual(schema['x-kubernetes-group-version-kind'], [{ group: 'stable.example.com', kind: 'CronTab', version: 'v1' }]);
    assert.equal(schema.properties.spec.properties.replicas.maximum, 10);
    const v2 = (await ts.request('GET', '/openapi/v2')).json;
    assert.ok(v2.definitions['com.example.stable.v1.CronTab']);
  });

  it('publish a schemaless CRD (root preserves unknown fields) in OpenAPI v2 as a bare object, and untype open nested objects', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'noschemas.open.example.com' },
      spec: {
        group: 'open.example.com',
        scope: 'Namespaced',
        names: { plural: 'noschemas', singular: 'noschema', kind: 'NoSchema', listKind: 'NoSchemaList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    };
    await installCRD(ts, crd);
    const nested = structuredClone(crd);
    nested.metadata.name = 'halfopens.open.example.com';
    nested.spec.names = { plural: 'halfopens', singular: 'halfopen', kind: 'HalfOpen', listKind: 'HalfOpenList' };
    (nested.spec.versions[0]!.schema as any) = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { a: { type: 'string' } } } } } };
    await installCRD(ts, nested);
    const v2 = (await ts.request('GET', '/openapi/v2')).json;
    // As apiextensions-apiserver's buildKubeNative: no properties, no type meta, no extension but the GVK.
    assert.deepEqual(v2.definitions['com.example.open.v1.NoSchema'], { type: 'object', 'x-kubernetes-group-version-kind': [{ group: 'open.example.com', kind: 'NoSchema', version: 'v1' }] });
    assert.deepEqual(v2.definitions['com.example.open.v1.HalfOpen'].properties.spec, { 'x-kubernetes-preserve-unknown-fields': true });
    // v3 keeps the schema as written, with type meta.
    const v3 = (await ts.request('GET', '/openapi/v3/apis/open.example.com/v1')).json.components.schemas['com.example.open.v1.NoSchema'];
    assert.equal(v3['x-kubernetes-preserve-unknown-fields'], true);
    assert.ok(v3.properties.metadata);
  });
});

describe('operator-grade CRDs', () => {
  before(async () => {
    await installCRD(ts, certificateCRD());
    await installCRD(ts, serviceMonitorCRD());
    await installCRD(ts, rolloutCRD());
  });

  it('Certificate: CEL rules, enums and defaults', async () => {
    const base = `/apis/certs.example.io/v1/namespaces/${ns}/certificates`;
    const ok = await ts.request('POST', base, {
      apiVersion: 'certs.example.io/v1',
      kind: 'Certificate',
      metadata: { name: 'web' },
      spec: { secretName: 'web-tls', dnsNames: ['a.example.com'], issuerRef: { name: 'ca' }, duration: '2160h', renewBefore: '360h' },
    });
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.json.spec.issuerRef.kind, 'Issuer');
    const bad = await ts.request('POST', base, {
      apiVersion: 'certs.example.io/v1',
      kind: 'Certificate',
      metadata: { name: 'bad' },
      spec: { secretName: 'x', issuerRef: { name: 'ca' }, privateKey: { algorithm: 'Ed25519', size: 256 }, duration: '1h', renewBefore: '2h' },
    });
    assertStatus(bad, 422, 'Invalid');
    assert.deepEqual(
      bad.json.details.causes.map((c: any) => [c.reason, c.field, c.message]),
      [
        ['FieldValueInvalid', 'spec', 'Invalid value: "object": at least one of commonName or dnsNames must be set'],
        ['FieldValueInvalid', 'spec.renewBefore', 'Invalid value: "object": renewBefore must be shorter than duration'],
        ['FieldValueForbidden', 'spec.privateKey', 'Forbidden: size must not be set for Ed25519'],
      ],
    );
  });

  it('ServiceMonitor: list-map keys, int-or-string, nested defaults', async () => {
    const base = `/apis/monitoring.example.io/v1/namespaces/${ns}/servicemonitors`;
    const sm = (ports: string[]) => ({
      apiVersion: 'monitoring.example.io/v1',
      kind: 'ServiceMonitor',
      metadata: { name: `sm-${ports.length}` },
      spec: { selector: { matchLabels: { app: 'x' } }, endpoints: ports.map((port, i) => ({ port, targetPort: i ? 'web' : 8080, relabelings: [{ sourceLabels: ['a'] }] })) },
    });
    const ok = await ts.request('POST', base, sm(['web', 'metrics']));
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.json.spec.endpoints[0].path, '/metrics');
    assert.equal(ok.json.spec.endpoints[0].relabelings[0].action, 'replace');
    assert.equal(ok.json.spec.endpoints[0].targetPort, 8080);
    const dup = await ts.request('POST', base, sm(['web', 'web', 'x']));
    assertStatus(dup, 422, 'Invalid', 'ServiceMonitor.monitoring.example.io "sm-3" is invalid: spec.endpoints[1]: Duplicate value: map[string]interface {}{"port":"web"}');
  });

  it('Rollout: embedded pod template, scale, unserved version', async () => {
    const base = `/apis/rollouts.example.io/v1alpha1/namespaces/${ns}/rollouts`;
    const ro = await ts.request('POST', base, {
      apiVersion: 'rollouts.example.io/v1alpha1',
      kind: 'Rollout',
      metadata: { name: 'ro' },
      spec: {
        selector: { matchLabels: { app: 'ro' } },
        template: { metadata: { labels: { app: 'ro' } }, spec: { containers: [{ name: 'app', image: 'nginx', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '500m', memory: 128 } } }] } },
        workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', bogus: 1 } },
        strategy: { canary: { maxSurge: '25%', steps: [{ setWeight: 20 }, { pause: { duration: 30 } }] } },
      },
    });
    assert.equal(ro.status, 201, ro.text);
    assert.equal(ro.json.spec.replicas, 1);
    assert.equal(ro.json.spec.template.spec.containers[0].ports[0].protocol, 'TCP');
    assert.equal(ro.json.spec.workloadRef.metadata.bogus, undefined, 'embedded metadata is cut to ObjectMeta');
    const scaled = await ts.request('PATCH', `${base}/ro/scale`, { spec: { replicas: 3 } }, { headers: mergePatch });
    assert.equal(scaled.status, 200, scaled.text);
    assert.equal(scaled.json.spec.replicas, 3);
    assert.equal((await ts.request('GET', `/apis/rollouts.example.io/v1beta1/namespaces/${ns}/rollouts/ro`)).status, 404);
    const group = (await ts.request('GET', '/apis/rollouts.example.io')).json;
    assert.deepEqual(group.versions.map((v: any) => v.version), ['v1alpha1']);
  });
});

describe('CRD deletion', () => {
  it('deletes every instance in every namespace, then the CRD, and the API disappears; re-create with another scope works', async () => {
    const crd = cronTabCRD({ group: 'gone.example.com' });
    crd.metadata.name = 'crontabs.gone.example.com';
    await installCRD(ts, crd);
    const ns2 = await createNamespace(ts, 'crd2');
    for (const n of [ns, ns2]) {
      const r = await ts.request('POST', `/apis/gone.example.com/v1/namespaces/${n}/crontabs`, { ...cronTab('x'), apiVersion: 'gone.example.com/v1' });
      assert.equal(r.status, 201, r.text);
    }
    const del = await ts.request('DELETE', `${CRDS}/${crd.metadata.name}`);
    assert.equal(del.status, 200);
    assert.deepEqual(del.json.metadata.finalizers, ['customresourcecleanup.apiextensions.k8s.io']);
    const term = del.json.status.conditions.find((c: any) => c.type === 'Terminating');
    assert.deepEqual([term.status, term.reason, term.message], ['True', 'InstanceDeletionInProgress', 'CustomResource deletion is in progress']);
    await waitForCRD(ts, crd.metadata.name, (x) => x === undefined);
    assert.equal((await ts.request('GET', '/apis/gone.example.com/v1')).status, 404);
    const agg = (await ts.request('GET', '/apis', undefined, { headers: aggregated })).json;
    assert.ok(!agg.items.some((i: any) => i.metadata.name === 'gone.example.com'));
    const again = cronTabCRD({ group: 'gone.example.com', scope: 'Cluster' });
    again.metadata.name = 'crontabs.gone.example.com';
    await installCRD(ts, again);
    const list = (await ts.request('GET', '/apis/gone.example.com/v1/crontabs')).json;
    assert.deepEqual(list.items, [], 'old instances are gone');
    const c = await ts.request('POST', '/apis/gone.example.com/v1/crontabs', { ...cronTab('y'), apiVersion: 'gone.example.com/v1' });
    assert.equal(c.status, 201, c.text);
  });
});
