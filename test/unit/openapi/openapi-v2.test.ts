import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { buildOpenAPIV2, encodeOpenAPIV2Protobuf } from '../../../src/apiserver/openapi/openapi-v2.js';
import { collectSchemaRefs, schemasFromCatalog } from '../../../src/apiserver/openapi/schema-from-catalog.js';
import { configMaps, fixtureCatalog, namespaces, widgets } from './fixture-catalog.js';

type Obj = Record<string, any>;

// Compiled tests live in dist/test/unit/openapi; fixtures stay in the source tree.
const TESTDATA = fileURLToPath(new URL('../../../../test/unit/openapi/testdata/', import.meta.url));
const FIXTURE_JSON = `${TESTDATA}openapi-v2.json`;
const FIXTURE_PB = `${TESTDATA}openapi-v2.pb`;
const FIXTURE_REPORT = `${TESTDATA}openapi-v2.decoded.json`;

const definitions = schemasFromCatalog(fixtureCatalog, 'v2', undefined, { upstreamDescriptions: false });
const fullDoc = buildOpenAPIV2([configMaps, namespaces, widgets], definitions) as Obj;

/** The document the protobuf fixture is made from: small but covering every schema feature. */
function fixtureDocument(): Obj {
  return buildOpenAPIV2([configMaps], definitions, { version: 'v1.32.4-atrium' }) as Obj;
}

test('v2 document: swagger 2.0 with every definition and every resource path', () => {
  assert.equal(fullDoc.swagger, '2.0');
  assert.deepEqual(fullDoc.info, { title: 'Kubernetes', version: 'v1.32.4' });
  const defs = Object.keys(fullDoc.definitions);
  for (const name of fixtureCatalog.keys()) assert.ok(defs.includes(name), `definition ${name}`);
  assert.ok(defs.includes('io.k8s.apimachinery.pkg.apis.meta.v1.Patch'));
  assert.deepEqual(defs, [...defs].sort());
  for (const ref of collectSchemaRefs(fullDoc, 'v2')) assert.ok(fullDoc.definitions[ref], `dangling $ref ${ref}`);
  assert.deepEqual(fullDoc.definitions['dev.atrium.example.v1alpha1.Widget']['x-kubernetes-group-version-kind'], [
    { group: 'example.atrium.dev', kind: 'Widget', version: 'v1alpha1' },
  ]);

  for (const p of [
    '/api/v1/namespaces/{namespace}/configmaps/{name}',
    '/api/v1/namespaces/{name}/status',
    '/apis/example.atrium.dev/v1alpha1/namespaces/{namespace}/widgets/{name}/scale',
  ]) {
    assert.ok(fullDoc.paths[p], p);
  }
  const patch = fullDoc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'].patch;
  assert.deepEqual(patch.consumes, [
    'application/json-patch+json',
    'application/merge-patch+json',
    'application/strategic-merge-patch+json',
    'application/apply-patch+yaml',
  ]);
  assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: '', kind: 'ConfigMap', version: 'v1' });
  assert.equal(patch['x-kubernetes-action'], 'patch');
  assert.deepEqual(patch.parameters[0], { name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch' } });
  assert.deepEqual(
    patch.parameters.slice(1).map((p: Obj) => `${p.in}:${p.name}:${p.type}`),
    ['query:dryRun:string', 'query:fieldManager:string', 'query:fieldValidation:string', 'query:force:boolean'],
  );
  const list = fullDoc.paths['/api/v1/namespaces/{namespace}/configmaps'].get;
  assert.deepEqual(list.responses['200'].schema, { $ref: '#/definitions/io.k8s.api.core.v1.ConfigMapList' });
  assert.ok(list.produces.includes('application/json;stream=watch'));
  assert.match(list.parameters.find((p: Obj) => p.name === 'watch').description, /^Watch for changes to the described resources/);
});

test('v2 protobuf: the minimal document encodes as upstream field numbers say', () => {
  // Document{swagger(1)="2.0", info(2)=Info{title(1)="K", version(2)="v"}}
  const bytes = encodeOpenAPIV2Protobuf({ swagger: '2.0', info: { title: 'K', version: 'v' } });
  assert.deepEqual(
    Buffer.from(bytes).toString('hex'),
    ['0a03', Buffer.from('2.0').toString('hex'), '1206', '0a014b', '120176'].join(''),
  );
  // additionalProperties: false must still be written (a oneof member has presence).
  const withFalse = encodeOpenAPIV2Protobuf({ definitions: { a: { additionalProperties: false } } });
  // Definitions(9){NamedSchema(1){name(1)="a", value(2)=Schema{additional_properties(21)={boolean(2)=false}}}}
  assert.equal(Buffer.from(withFalse).toString('hex'), '4a0c0a0a0a01611205aa01021000');
});

test('v2 protobuf matches gnostic: fixture decoded by the Go openapi_v2 package', async (t) => {
  const doc = fixtureDocument();
  const bytes = encodeOpenAPIV2Protobuf(doc);
  if (process.env.ATRIUM_UPDATE_OPENAPI_FIXTURES === '1') await regenerateFixtures(doc, bytes);

  const fixtureJson = JSON.parse(await readFile(FIXTURE_JSON, 'utf8'));
  const hint = 'fixture is stale: rerun with ATRIUM_UPDATE_OPENAPI_FIXTURES=1 (needs Go) and review the diff';
  assert.deepEqual(doc, fixtureJson, hint);
  assert.ok(Buffer.from(bytes).equals(await readFile(FIXTURE_PB)), hint);

  // The Go side unmarshalled these exact bytes and compared them with gnostic's own
  // ParseDocument(JSON) of the same document, the path kube-apiserver takes.
  const report = JSON.parse(await readFile(FIXTURE_REPORT, 'utf8'));
  assert.equal(report.protoEqual, true, 'proto.Equal(ParseDocument(json), Unmarshal(pb))');
  assert.equal(report.semanticEqual, true);
  assert.deepEqual(report.document, JSON.parse(JSON.stringify(doc)));
  t.diagnostic(`fixture: ${bytes.length} protobuf bytes`);
});

async function regenerateFixtures(doc: Obj, bytes: Uint8Array): Promise<void> {
  await writeFile(FIXTURE_JSON, JSON.stringify(doc, null, 2) + '\n');
  await writeFile(FIXTURE_PB, bytes);
  const env = {
    ...process.env,
    GOPATH: '/tmp/atrium-gopath',
    GOMODCACHE: '/tmp/atrium-gopath/pkg/mod',
    GOCACHE: '/tmp/atrium-gocache',
    GOFLAGS: '-mod=mod',
  };
  const r = spawnSync('go', ['run', '.', FIXTURE_JSON, FIXTURE_PB], { cwd: `${TESTDATA}gen`, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`go run failed (status ${r.status}): ${r.error ?? ''} ${r.stderr}`);
  await writeFile(FIXTURE_REPORT, r.stdout);
}
