import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFile, spawnSync } from 'node:child_process';
import http from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { APIResourceDescriptor } from '../../../src/apimachinery/api-resource.js';
import { buildOpenAPIV3GroupVersion, buildOpenAPIV3Root, openAPIV3PathKey } from '../../../src/apiserver/openapi/openapi-v3.js';
import { hashDocument, hashBytes } from '../../../src/apiserver/openapi/document-hash.js';
import { collectSchemaRefs, schemasFromCatalog } from '../../../src/apiserver/openapi/schema-from-catalog.js';
import { findDefinitionByGVK, groupIdentifier } from '../../../src/apiserver/openapi/resource-operations.js';
import { configMaps, fixtureCatalog, namespaces, widgets } from './fixture-catalog.js';

type Obj = Record<string, any>;

const v3Schemas = schemasFromCatalog(fixtureCatalog, 'v3', undefined, { upstreamDescriptions: false });
const coreDoc = buildOpenAPIV3GroupVersion([configMaps, namespaces], v3Schemas) as Obj;
const widgetDoc = buildOpenAPIV3GroupVersion([widgets], v3Schemas) as Obj;

test('hashDocument is the uppercase SHA-512 hex of the JSON serialisation', () => {
  const doc = { a: 1, b: ['x'] };
  const expected = createHash('sha512').update('{"a":1,"b":["x"]}').digest('hex').toUpperCase();
  assert.equal(hashDocument(doc), expected);
  assert.match(hashDocument(doc), /^[0-9A-F]{128}$/);
  assert.equal(hashBytes(Buffer.from('{"a":1,"b":["x"]}')), expected);
  assert.notEqual(hashDocument({ a: 2 }), hashDocument({ a: 1 }));
});

test('buildOpenAPIV3Root lists one relative URL per group/version', () => {
  const root = buildOpenAPIV3Root(['v1', 'example.atrium.dev/v1alpha1', 'apis/rbac.authorization.k8s.io/v1'], (gv) => `H-${gv}`);
  assert.deepEqual(root, {
    paths: {
      'api/v1': { serverRelativeURL: '/openapi/v3/api/v1?hash=H-v1' },
      'apis/example.atrium.dev/v1alpha1': { serverRelativeURL: '/openapi/v3/apis/example.atrium.dev/v1alpha1?hash=H-example.atrium.dev/v1alpha1' },
      'apis/rbac.authorization.k8s.io/v1': { serverRelativeURL: '/openapi/v3/apis/rbac.authorization.k8s.io/v1?hash=H-apis/rbac.authorization.k8s.io/v1' },
    },
  });
  assert.equal(openAPIV3PathKey('v1'), 'api/v1');
  assert.equal(openAPIV3PathKey('apps/v1'), 'apis/apps/v1');
});

test('groupIdentifier spells groups as upstream operation ids do', () => {
  const cases: [string, string][] = [
    ['', 'Core'],
    ['rbac.authorization.k8s.io', 'RbacAuthorization'],
    ['coordination.k8s.io', 'Coordination'],
    ['apiextensions.k8s.io', 'Apiextensions'],
    ['example.atrium.dev', 'ExampleAtriumDev'],
  ];
  for (const [group, id] of cases) assert.equal(groupIdentifier(group), id, group);
});

test('v3 group/version document has every path and operation kubectl needs', () => {
  assert.equal(coreDoc.openapi, '3.0.0');
  assert.equal(coreDoc.info.title, 'Kubernetes');
  const expected: Record<string, Record<string, string>> = {
    '/api/v1/configmaps': { get: 'list' },
    '/api/v1/namespaces/{namespace}/configmaps': { get: 'list', post: 'post', delete: 'deletecollection' },
    '/api/v1/namespaces/{namespace}/configmaps/{name}': { get: 'get', put: 'put', patch: 'patch', delete: 'delete' },
    '/api/v1/watch/configmaps': { get: 'watchlist' },
    '/api/v1/watch/namespaces/{namespace}/configmaps': { get: 'watchlist' },
    '/api/v1/watch/namespaces/{namespace}/configmaps/{name}': { get: 'watch' },
    '/api/v1/namespaces': { get: 'list', post: 'post' },
    '/api/v1/namespaces/{name}': { get: 'get', put: 'put', patch: 'patch', delete: 'delete' },
    '/api/v1/namespaces/{name}/status': { get: 'get', put: 'put', patch: 'patch' },
    '/api/v1/namespaces/{name}/finalize': { put: 'put' },
    '/api/v1/watch/namespaces': { get: 'watchlist' },
    '/api/v1/watch/namespaces/{name}': { get: 'watch' },
  };
  assert.deepEqual(Object.keys(coreDoc.paths).sort(), Object.keys(expected).sort());
  for (const [path, ops] of Object.entries(expected)) {
    const item = coreDoc.paths[path];
    const methods = Object.keys(item).filter((k) => k !== 'parameters');
    assert.deepEqual(methods.sort(), Object.keys(ops).sort(), path);
    for (const [method, action] of Object.entries(ops)) {
      assert.equal(item[method]['x-kubernetes-action'], action, `${method} ${path}`);
      const kind = path.includes('configmaps') ? 'ConfigMap' : 'Namespace';
      assert.deepEqual(item[method]['x-kubernetes-group-version-kind'], { group: '', kind, version: 'v1' }, `${method} ${path}`);
    }
  }
  // No deletecollection verb on namespaces → no DELETE on the collection.
  assert.equal(coreDoc.paths['/api/v1/namespaces'].delete, undefined);

  const item = coreDoc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'];
  assert.deepEqual(item.parameters.map((p: Obj) => `${p.in}:${p.name}`), ['path:name', 'path:namespace', 'query:pretty']);
  assert.equal(item.get.operationId, 'readCoreV1NamespacedConfigMap');
  assert.equal(item.patch.operationId, 'patchCoreV1NamespacedConfigMap');
  assert.equal(coreDoc.paths['/api/v1/configmaps'].get.operationId, 'listCoreV1ConfigMapForAllNamespaces');
  assert.equal(coreDoc.paths['/api/v1/namespaces/{name}/status'].put.operationId, 'replaceCoreV1NamespaceStatus');
});

test('v3 operations carry the query parameters and patch content types kubectl checks', () => {
  const item = coreDoc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'];
  const names = (op: Obj) => (op.parameters ?? []).map((p: Obj) => p.name);
  assert.deepEqual(names(item.patch), ['dryRun', 'fieldManager', 'fieldValidation', 'force']);
  assert.deepEqual(names(item.put), ['dryRun', 'fieldManager', 'fieldValidation']);
  assert.ok(names(item.delete).includes('propagationPolicy'));
  assert.deepEqual(names(item.get), []);
  const collection = coreDoc.paths['/api/v1/namespaces/{namespace}/configmaps'];
  assert.deepEqual(names(collection.post), ['dryRun', 'fieldManager', 'fieldValidation']);
  for (const p of ['watch', 'labelSelector', 'fieldSelector', 'limit', 'continue', 'resourceVersion', 'sendInitialEvents']) {
    assert.ok(names(collection.get).includes(p), `list has ${p}`);
  }
  assert.deepEqual(item.patch.parameters.find((p: Obj) => p.name === 'force'), {
    name: 'force',
    in: 'query',
    description: item.patch.parameters.find((p: Obj) => p.name === 'force').description,
    schema: { type: 'boolean', uniqueItems: true },
  });

  assert.deepEqual(Object.keys(item.patch.requestBody.content), [
    'application/json-patch+json',
    'application/merge-patch+json',
    'application/strategic-merge-patch+json',
    'application/apply-patch+yaml',
  ]);
  const widgetItem = widgetDoc.paths['/apis/example.atrium.dev/v1alpha1/namespaces/{namespace}/widgets/{name}'];
  assert.deepEqual(Object.keys(widgetItem.patch.requestBody.content), [
    'application/json-patch+json',
    'application/merge-patch+json',
    'application/apply-patch+yaml',
  ], 'no strategic merge patch for a resource that does not accept it');

  assert.deepEqual(item.get.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/io.k8s.api.core.v1.ConfigMap' });
  assert.deepEqual(collection.get.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/io.k8s.api.core.v1.ConfigMapList' });
  assert.deepEqual(collection.post.requestBody.content['*/*'].schema, { $ref: '#/components/schemas/io.k8s.api.core.v1.ConfigMap' });
  assert.deepEqual(item.delete.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Status' });
});

test('v3 components hold exactly the closure of the group/version, with no dangling references', () => {
  for (const doc of [coreDoc, widgetDoc]) {
    const schemas = doc.components.schemas as Obj;
    for (const ref of collectSchemaRefs(doc, 'v3')) assert.ok(schemas[ref], `dangling $ref ${ref}`);
  }
  const core = Object.keys(coreDoc.components.schemas);
  for (const name of [
    'io.k8s.api.core.v1.ConfigMap',
    'io.k8s.api.core.v1.ConfigMapList',
    'io.k8s.api.core.v1.Namespace',
    'io.k8s.api.core.v1.NamespaceList',
    'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    'io.k8s.apimachinery.pkg.apis.meta.v1.Time',
    'io.k8s.apimachinery.pkg.apis.meta.v1.Status',
    'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions',
    'io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent',
    'io.k8s.apimachinery.pkg.apis.meta.v1.Patch',
    'io.k8s.apimachinery.pkg.runtime.RawExtension',
  ]) {
    assert.ok(core.includes(name), `core components include ${name}`);
  }
  assert.ok(!core.includes('dev.atrium.example.v1alpha1.Widget'), 'other group/versions stay out');
  assert.ok(!core.includes('io.k8s.apimachinery.pkg.util.intstr.IntOrString'), 'unreferenced well-known types stay out');
  assert.ok(Object.keys(widgetDoc.components.schemas).includes('io.k8s.api.autoscaling.v1.Scale'), 'scale subresource schema included');
});

test('v3 subresources of another kind resolve their GVK and schema', () => {
  const scale = widgetDoc.paths['/apis/example.atrium.dev/v1alpha1/namespaces/{namespace}/widgets/{name}/scale'];
  assert.deepEqual(scale.get['x-kubernetes-group-version-kind'], { group: 'autoscaling', kind: 'Scale', version: 'v1' });
  assert.deepEqual(scale.get.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/io.k8s.api.autoscaling.v1.Scale' });
  assert.equal(scale.put.operationId, 'replaceExampleAtriumDevV1alpha1NamespacedWidgetScale');
  assert.equal(findDefinitionByGVK(widgetDoc.components.schemas, { group: 'autoscaling', version: 'v1', kind: 'Scale' }), 'io.k8s.api.autoscaling.v1.Scale');
});

test('a missing body schema is described inline instead of as a dangling reference', () => {
  const doc = buildOpenAPIV3GroupVersion([configMaps], {}) as Obj;
  const item = doc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'];
  assert.deepEqual(item.get.responses['200'].content['application/json'].schema, { type: 'object' });
  assert.deepEqual(Object.keys(doc.components.schemas), ['io.k8s.apimachinery.pkg.apis.meta.v1.Patch']);
});

test('buildOpenAPIV3GroupVersion rejects resources from several group/versions', () => {
  assert.throws(() => buildOpenAPIV3GroupVersion([configMaps, widgets], v3Schemas), /several group\/versions/);
  assert.deepEqual((buildOpenAPIV3GroupVersion([], v3Schemas) as Obj).paths, {});
});

// ---------------------------------------------------------------------------------------------
// Against the real kubectl: explain and strict validation read these documents.

const kubectlAvailable = spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0;

function apiResource(r: APIResourceDescriptor): Obj {
  return { name: r.resource, singularName: r.singular, namespaced: r.namespaced, kind: r.kind, verbs: r.verbs, shortNames: r.shortNames };
}

/** A tiny fake apiserver: legacy discovery plus the v3 documents under test; records write requests. */
async function startFakeServer(): Promise<{ url: string; writes: string[]; close: () => Promise<void> }> {
  const docs: Record<string, Obj> = { 'api/v1': coreDoc, 'apis/example.atrium.dev/v1alpha1': widgetDoc };
  const bodies = Object.fromEntries(Object.entries(docs).map(([k, d]) => [k, JSON.stringify(d)]));
  const root = buildOpenAPIV3Root(Object.keys(docs), (gv) => hashBytes(bodies[gv]));
  const writes: string[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    const send = (code: number, body: unknown) => {
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    if (req.method !== 'GET') {
      writes.push(`${req.method} ${req.url}`);
      let data = '';
      req.on('data', (d) => (data += d));
      req.on('end', () => send(201, data));
      return;
    }
    switch (url.pathname) {
      case '/version':
        return send(200, { major: '1', minor: '32', gitVersion: 'v1.32.4' });
      case '/api':
        return send(200, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] });
      case '/apis':
        return send(200, {
          kind: 'APIGroupList',
          apiVersion: 'v1',
          groups: [{ name: 'example.atrium.dev', versions: [{ groupVersion: 'example.atrium.dev/v1alpha1', version: 'v1alpha1' }], preferredVersion: { groupVersion: 'example.atrium.dev/v1alpha1', version: 'v1alpha1' } }],
        });
      case '/api/v1':
        return send(200, { kind: 'APIResourceList', groupVersion: 'v1', resources: [apiResource(configMaps), apiResource(namespaces)] });
      case '/apis/example.atrium.dev/v1alpha1':
        return send(200, { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'example.atrium.dev/v1alpha1', resources: [apiResource(widgets)] });
      case '/openapi/v3':
        return send(200, root);
    }
    const key = url.pathname.replace(/^\/openapi\/v3\//, '');
    if (url.pathname.startsWith('/openapi/v3/') && bodies[key]) return send(200, bodies[key]);
    send(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    writes,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

function kubectl(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('kubectl', args, { timeout: 30_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`kubectl ${args.join(' ')} failed: ${stderr}`));
      else resolve(stdout);
    });
  });
}

test('kubectl explain and strict validation work against the v3 documents', kubectlAvailable ? {} : { skip: 'kubectl is not on PATH' }, async () => {
  const server = await startFakeServer();
  const dir = await mkdtemp(join(tmpdir(), 'atrium-openapi-'));
  try {
    const kubeconfig = join(dir, 'kubeconfig');
    await writeFile(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: server.url } }],
        users: [{ name: 'u', user: {} }],
        contexts: [{ name: 'c', context: { cluster: 'c', user: 'u', namespace: 'default' } }],
        'current-context': 'c',
      }),
    );
    const base = ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache')];

    const cm = await kubectl(['explain', 'configmaps', ...base]);
    assert.match(cm, /KIND:\s+ConfigMap/);
    assert.match(cm, /VERSION:\s+v1/);
    assert.match(cm, /ConfigMap holds configuration data for pods to consume\./);
    assert.match(cm, /metadata\s+<ObjectMeta>/);
    assert.match(cm, /binaryData\s+<map\[string\]string>/);

    const meta = await kubectl(['explain', 'configmaps.metadata', ...base]);
    assert.match(meta, /ObjectMeta is metadata every persisted resource has\./);
    assert.match(meta, /creationTimestamp\s+<string>/);

    const widget = await kubectl(['explain', 'widgets', '--recursive', ...base]);
    assert.match(widget, /GROUP:\s+example\.atrium\.dev/);
    assert.match(widget, /mode\s+<string> -required-/);
    assert.match(widget, /port\s+<IntOrString>/);

    const phase = await kubectl(['explain', 'namespaces.status.phase', ...base]);
    assert.match(phase, /Phase of the namespace\./);
    assert.match(phase, /ENUM:\n\s+Active\n\s+Terminating/);

    await writeFile(join(dir, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\ndata:\n  a: b\n');
    await kubectl(['create', '-f', join(dir, 'cm.yaml'), ...base]);
    assert.deepEqual(server.writes, ['POST /api/v1/namespaces/default/configmaps?fieldManager=kubectl-create&fieldValidation=Strict']);
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
});
