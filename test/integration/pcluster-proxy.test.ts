/**
 * pods/proxy and services/proxy on `atrium pcluster`, over HTTPS against a real simulated cluster: requests of every
 * method reach the simulated container's HTTP responder (which names pod, container, port, method, path and the
 * size of a body) through the project's client, `kubectl get --raw` and `kubectl proxy`; the backend is chosen and
 * refused as kube-apiserver 1.32's ResourceLocation does (the messages below are upstream's); discovery lists both
 * subresources as kube-apiserver does.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harnessFor, kubectlPath, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { startPcluster, type RunningPcluster } from '../../src/pcluster/pcluster.js';
import { RestClient } from '../../src/client/rest-client.js';

let ts: TestServer;
let cluster: RunningPcluster;
let client: RestClient;
const ns = '/api/v1/namespaces/default';
const said = (pod: string, container: string, port: number, request: string) => `pod default/${pod} container ${container} cluster px port ${port}: ${request}\n`;

async function create(path: string, body: unknown): Promise<void> {
  const r = await ts.request('POST', path, body);
  assert.equal(r.status, 201, r.text);
}

const ready = (name: string) =>
  eventually(`${name} ready`, async () => {
    const p = (await ts.request('GET', `${ns}/pods/${name}`)).json;
    return p?.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True') ? true : undefined;
  });

before(async () => {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-pcluster-proxy-'));
  cluster = await startPcluster({ name: 'px', rootDir, bindAddress: '127.0.0.1', securePort: 0, nodes: 1, readyDelayMs: 200 });
  ts = harnessFor(cluster, rootDir, async () => {
    await cluster.stop();
    rmSync(rootDir, { recursive: true, force: true });
  });
  client = await RestClient.fromKubeconfig(ts.kubeconfig);
  const pod = (name: string, labels: Record<string, string>, containers: unknown[]) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec: { containers } });
  await create(`${ns}/pods`, pod('web', { app: 'web' }, [{ name: 'app', image: 'nginx', ports: [{ name: 'http', containerPort: 8080 }] }, { name: 'side', image: 'nginx', ports: [{ containerPort: 9090 }] }]));
  await create(`${ns}/pods`, pod('bare', { app: 'bare' }, [{ name: 'app', image: 'nginx' }]));
  await create(`${ns}/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }, { name: 'admin', port: 81, targetPort: 9090 }] } });
  await create(`${ns}/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'nobody' }, spec: { selector: { app: 'none' }, ports: [{ port: 80 }] } });
  await ready('web');
  await ready('bare');
  await eventually('endpoints of web', async () => ((await ts.request('GET', `${ns}/endpoints/web`)).json?.subsets?.[0]?.addresses?.length ? true : undefined));
});

after(async () => {
  await ts?.stop();
});

describe('pods/proxy on atrium pcluster', () => {
  it("forwards any method, the path below proxy and the query to the pod's port, the first declared one by default", async () => {
    const r = await client.raw('GET', `${ns}/pods/web:8080/proxy/hello/there?x=1&y=2`);
    assert.equal(r.status, 200);
    assert.equal(r.text, said('web', 'app', 8080, 'GET /hello/there?x=1&y=2'));
    assert.equal((await client.raw('GET', `${ns}/pods/web/proxy/`)).text, said('web', 'app', 8080, 'GET /'));
    assert.equal((await client.raw('GET', `${ns}/pods/web:9090/proxy/metrics`)).text, said('web', 'side', 9090, 'GET /metrics'));
    assert.equal((await client.raw('GET', `${ns}/pods/http:web:8080/proxy/a/../b/`)).text, said('web', 'app', 8080, 'GET /b/'));
    const posted = await client.raw('POST', `${ns}/pods/web:8080/proxy/submit`, { hello: 'world' });
    assert.equal(posted.text, said('web', 'app', 8080, 'POST /submit (17-byte body)'));
    for (const method of ['PUT', 'PATCH', 'DELETE']) assert.equal((await client.raw(method, `${ns}/pods/web:8080/proxy/x`)).text, said('web', 'app', 8080, `${method} /x`));
  });

  it("streams the backend's status and headers back (a HEAD)", async () => {
    const r = await ts.request('HEAD', `${ns}/pods/web:8080/proxy/h`);
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(r.headers['content-length'], String(Buffer.byteLength(said('web', 'app', 8080, 'HEAD /h'))));
  });

  it('redirects a GET of the bare proxy path to the path with a slash, as upstream', async () => {
    const r = await ts.request('GET', `${ns}/pods/web/proxy?q=1`);
    assert.equal(r.status, 301);
    assert.equal(r.headers.location, `${ns}/pods/web/proxy/?q=1`);
    // Any other method goes through as `/`.
    assert.equal((await client.raw('POST', `${ns}/pods/web/proxy`)).text, said('web', 'app', 8080, 'POST /'));
  });

  it("answers upstream's errors", async () => {
    const missing = await ts.request('GET', `${ns}/pods/ghost/proxy/`);
    assert.equal(missing.status, 404);
    assert.equal(missing.json.message, 'pods "ghost" not found');
    const invalid = await ts.request('GET', `${ns}/pods/ftp:web:80/proxy/`);
    assert.equal(invalid.status, 400);
    assert.equal(invalid.json.message, 'invalid pod request "ftp:web:80"');
    // A port no container listens on is refused; without a declared port upstream dials port 80.
    for (const [path, address] of [['web:8081', 8081], ['bare', 80]] as const) {
      const r = await ts.request('GET', `${ns}/pods/${path}/proxy/`);
      assert.equal(r.status, 503, r.text);
      assert.equal(r.json.reason, 'ServiceUnavailable');
      assert.match(r.json.message, new RegExp(`^error trying to reach service: dial tcp [0-9.]+:${address}: connect: connection refused$`));
    }
  });

  it('is reached with kubectl get --raw and through kubectl proxy', async () => {
    const raw = await ts.kubectl(['get', '--raw', `${ns}/pods/web:8080/proxy/raw?k=v`]);
    assert.equal(raw.code, 0, raw.stderr);
    assert.equal(raw.stdout, said('web', 'app', 8080, 'GET /raw?k=v'));
    const proxy = spawn(kubectlPath(), ['--kubeconfig', ts.kubeconfig, 'proxy', '--port=0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let out = '';
        proxy.stdout.on('data', (b) => {
          out += b;
          const m = /Starting to serve on 127\.0\.0\.1:(\d+)/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        proxy.once('exit', () => reject(new Error(`kubectl proxy exited: ${out}`)));
      });
      const body = await new Promise<string>((resolve, reject) => {
        get({ host: '127.0.0.1', port, path: `${ns}/services/web:http/proxy/via-kubectl-proxy` }, (res) => {
          let b = '';
          res.on('data', (c) => (b += c));
          res.on('end', () => resolve(b));
        }).on('error', reject);
      });
      assert.equal(body, said('web', 'app', 8080, 'GET /via-kubectl-proxy'));
    } finally {
      proxy.kill();
    }
  });
});

describe('services/proxy on atrium pcluster', () => {
  it('picks a ready endpoint and maps the service port (by name or number) to its target port', async () => {
    assert.equal((await client.raw('GET', `${ns}/services/web:http/proxy/a?b=c`)).text, said('web', 'app', 8080, 'GET /a?b=c'));
    assert.equal((await client.raw('GET', `${ns}/services/web:80/proxy/a`)).text, said('web', 'app', 8080, 'GET /a'));
    assert.equal((await client.raw('GET', `${ns}/services/web:81/proxy/`)).text, said('web', 'side', 9090, 'GET /'));
    assert.equal((await client.raw('PUT', `${ns}/services/http:web:admin/proxy/p`, [1, 2])).text, said('web', 'side', 9090, 'PUT /p (5-byte body)'));
    const raw = await ts.kubectl(['get', '--raw', `${ns}/services/web:http/proxy/`]);
    assert.equal(raw.stdout, said('web', 'app', 8080, 'GET /'));
  });

  it("answers upstream's errors", async () => {
    const cases: [string, number, string][] = [
      ['ghost:80', 404, 'services "ghost" not found'],
      ['ghost', 404, 'endpoints "ghost" not found'],
      ['web:82', 503, 'no service port 82 found for service "web"'],
      // The service's ports are named, so the unnamed port matches none.
      ['web', 503, 'no endpoints available for service "web"'],
      ['web:nope', 503, 'no endpoints available for service "web:nope"'],
      ['a:b:c:d', 400, 'invalid service request "a:b:c:d"'],
    ];
    for (const [id, code, message] of cases) {
      const r = await ts.request('GET', `${ns}/services/${id}/proxy/`);
      assert.equal(r.status, code, `${id}: ${r.text}`);
      assert.equal(r.json.message, message, id);
    }
    const none = await eventually('nobody has an Endpoints object', async () => {
      const r = await ts.request('GET', `${ns}/services/nobody/proxy/`);
      return r.status === 404 ? undefined : r;
    });
    assert.equal(none.status, 503);
    assert.equal(none.json.message, 'no endpoints available for service "nobody"');
  });
});

describe('discovery on atrium pcluster', () => {
  it('lists pods/proxy and services/proxy as kube-apiserver 1.32 does', async () => {
    const verbs = ['create', 'delete', 'get', 'patch', 'update'];
    const r = await ts.request('GET', '/api/v1');
    const resources = r.json.resources as { name: string; kind: string; verbs: string[] }[];
    assert.deepEqual(resources.filter((x) => x.name.endsWith('/proxy')).map((x) => [x.name, x.kind, x.verbs]), [
      ['pods/proxy', 'PodProxyOptions', verbs],
      ['services/proxy', 'ServiceProxyOptions', verbs],
    ]);
    const agg = await ts.request('GET', '/api', undefined, { headers: { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } });
    const entries = agg.json.items[0].versions[0].resources as { resource: string; subresources?: { subresource: string; responseKind: { group: string; version: string; kind: string }; verbs: string[] }[] }[];
    for (const [resource, kind] of [['pods', 'PodProxyOptions'], ['services', 'ServiceProxyOptions']]) {
      const proxy = entries.find((x) => x.resource === resource)!.subresources!.find((s) => s.subresource === 'proxy');
      // kube-apiserver leaves a built-in subresource's responseKind group and version empty.
      assert.deepEqual(proxy, { subresource: 'proxy', responseKind: { group: '', version: '', kind }, verbs });
    }
  });
});
