/** Discovery, version and health endpoints over real HTTPS, with kube-apiserver's exact shapes and headers. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { assertStatus } from './support.js';

const aggregatedContentType = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
/** What kubectl 1.32 sends for /api and /apis. */
const kubectlDiscoveryAccept =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
const allVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

describe('discovery', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer();
  });
  after(async () => {
    await ts?.stop();
  });

  it('/version reports Kubernetes 1.32', async () => {
    const r = await ts.request('GET', '/version');
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'application/json');
    assert.deepEqual(Object.keys(r.json), ['major', 'minor', 'gitVersion', 'gitCommit', 'gitTreeState', 'buildDate', 'goVersion', 'compiler', 'platform']);
    assert.equal(r.json.major, '1');
    assert.equal(r.json.minor, '32');
    assert.match(r.json.gitVersion, /^v1\.32\.\d+/);
  });

  for (const path of ['/healthz', '/livez', '/readyz']) {
    it(`${path} answers ok, and a verbose report with ?verbose`, async () => {
      const r = await ts.request('GET', path);
      assert.equal(r.status, 200);
      assert.equal(r.text, 'ok');
      assert.match(String(r.headers['content-type']), /^text\/plain/);
      const v = await ts.request('GET', `${path}?verbose`);
      assert.equal(v.status, 200);
      assert.match(v.text, /\[\+\]ping ok/);
      assert.match(v.text, / check passed\n$/);
    });
  }

  it('/api without an aggregated Accept is APIVersions', async () => {
    const r = await ts.request('GET', '/api', undefined, { headers: { Accept: 'application/json' } });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'application/json');
    assert.equal(r.json.kind, 'APIVersions');
    assert.deepEqual(r.json.versions, ['v1']);
    assert.equal(r.json.serverAddressByClientCIDRs[0].clientCIDR, '0.0.0.0/0');
  });

  it('/apis without an aggregated Accept is an APIGroupList with preferred versions', async () => {
    const r = await ts.request('GET', '/apis');
    assert.equal(r.status, 200);
    assert.equal(r.json.kind, 'APIGroupList');
    assert.equal(r.json.apiVersion, 'v1');
    const names = r.json.groups.map((g: any) => g.name);
    assert.ok(!names.includes(''), 'the core group is not in /apis');
    for (const g of ['events.k8s.io', 'coordination.k8s.io']) {
      const group = r.json.groups.find((x: any) => x.name === g);
      assert.ok(group, `group ${g} listed`);
      assert.deepEqual(group.versions[0], { groupVersion: `${g}/v1`, version: 'v1' });
      assert.deepEqual(group.preferredVersion, { groupVersion: `${g}/v1`, version: 'v1' });
    }
  });

  it('/apis/<group> is an APIGroup; an unknown group is 404', async () => {
    const r = await ts.request('GET', '/apis/coordination.k8s.io');
    assert.equal(r.status, 200);
    assert.equal(r.json.kind, 'APIGroup');
    assert.equal(r.json.name, 'coordination.k8s.io');
    const missing = await ts.request('GET', '/apis/nope.example.com');
    assert.equal(missing.status, 404);
  });

  it('/api with the kubectl Accept is aggregated v2 with the exact Content-Type, ETag and 304', async () => {
    const r = await ts.request('GET', '/api', undefined, { headers: { Accept: kubectlDiscoveryAccept } });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], aggregatedContentType);
    assert.equal(r.headers.vary, 'Accept');
    assert.equal(r.json.kind, 'APIGroupDiscoveryList');
    assert.equal(r.json.apiVersion, 'apidiscovery.k8s.io/v2');
    assert.equal(r.json.items.length, 1, 'only the core group');
    const core = r.json.items[0];
    assert.equal(core.metadata.name, undefined, 'the core group has no name');
    assert.equal(core.versions[0].version, 'v1');
    assert.equal(core.versions[0].freshness, 'Current');
    const cm = core.versions[0].resources.find((x: any) => x.resource === 'configmaps');
    // kube-apiserver converts its built-in legacy lists, whose resources leave group and version empty
    assert.deepEqual(cm.responseKind, { group: '', version: '', kind: 'ConfigMap' });
    assert.equal(cm.scope, 'Namespaced');
    assert.equal(cm.singularResource, 'configmap');
    assert.deepEqual(cm.verbs, allVerbs);
    assert.deepEqual(cm.shortNames, ['cm']);
    const ns = core.versions[0].resources.find((x: any) => x.resource === 'namespaces');
    assert.equal(ns.scope, 'Cluster');
    const status = ns.subresources.find((s: any) => s.subresource === 'status');
    assert.deepEqual(status.verbs, ['get', 'patch', 'update']);
    for (const res of core.versions[0].resources) assert.ok(res.responseKind, `${res.resource} has a responseKind (clients drop it otherwise)`);

    const etag = r.headers.etag as string;
    assert.match(etag, /^"[0-9a-f]{128}"$/);
    const again = await ts.request('GET', '/api', undefined, { headers: { Accept: kubectlDiscoveryAccept, 'If-None-Match': etag } });
    assert.equal(again.status, 304);
    assert.equal(again.text, '');
    const stale = await ts.request('GET', '/api', undefined, { headers: { Accept: kubectlDiscoveryAccept, 'If-None-Match': '"nope"' } });
    assert.equal(stale.status, 200);
  });

  it('/apis aggregated lists every non-core group with named metadata', async () => {
    const r = await ts.request('GET', '/apis', undefined, { headers: { Accept: kubectlDiscoveryAccept } });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], aggregatedContentType);
    const names = r.json.items.map((i: any) => i.metadata.name);
    assert.ok(names.includes('events.k8s.io'));
    assert.ok(names.includes('coordination.k8s.io'));
    assert.ok(!names.includes(undefined));
    const coord = r.json.items.find((i: any) => i.metadata.name === 'coordination.k8s.io');
    const leases = coord.versions[0].resources.find((x: any) => x.resource === 'leases');
    assert.deepEqual(leases.responseKind, { group: '', version: '', kind: 'Lease' });
  });

  it('v2beta1 alone is answered in v2beta1', async () => {
    const r = await ts.request('GET', '/apis', undefined, {
      headers: { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList' },
    });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList');
    assert.equal(r.json.apiVersion, 'apidiscovery.k8s.io/v2beta1');
  });

  it('/api/v1 lists resources with the configmaps entry in upstream field order', async () => {
    const r = await ts.request('GET', '/api/v1');
    assert.equal(r.status, 200);
    assert.equal(r.json.kind, 'APIResourceList');
    assert.equal(r.json.groupVersion, 'v1');
    // discovery.sh matches this exact substring.
    assert.ok(
      r.text.includes(
        '{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["cm"],"storageVersionHash":',
      ),
      r.text,
    );
    const names = r.json.resources.map((x: any) => x.name);
    for (const n of ['namespaces', 'namespaces/status', 'namespaces/finalize', 'configmaps', 'secrets', 'serviceaccounts', 'events']) {
      assert.ok(names.includes(n), `${n} listed`);
    }
    const ns = r.json.resources.find((x: any) => x.name === 'namespaces');
    assert.equal(ns.namespaced, false);
    assert.deepEqual(ns.shortNames, ['ns']);
  });

  it('/apis/<g>/<v> lists that group version', async () => {
    const r = await ts.request('GET', '/apis/events.k8s.io/v1');
    assert.equal(r.status, 200);
    assert.equal(r.json.groupVersion, 'events.k8s.io/v1');
    const ev = r.json.resources.find((x: any) => x.name === 'events');
    assert.equal(ev.kind, 'Event');
    assert.equal(ev.namespaced, true);
    const missing = await ts.request('GET', '/apis/events.k8s.io/v7');
    assert.equal(missing.status, 404);
  });

  const notFoundPaths = ['/api/v1/foos', '/api/v1/namespaces/default/foos', '/api/v2/configmaps'];
  for (const path of notFoundPaths) {
    it(`GET ${path} → 404 Status`, async () => {
      const r = await ts.request('GET', path);
      assertStatus(r, 404, 'NotFound', 'the server could not find the requested resource');
    });
  }

  it('an unknown non-API path is 404', async () => {
    const r = await ts.request('GET', '/definitely/not/here');
    assert.equal(r.status, 404);
  });
});
