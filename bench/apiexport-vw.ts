/**
 * Issue 17 benchmark: the APIExport virtual workspace against the paths a privileged client would take without it,
 * on one server in this run. 20 tenant workspaces bind one export and hold 50 widgets each (1,000), plus 50
 * ConfigMaps each:
 *
 * - GET of one widget through `/services/apiexport/<export>/clusters/<cluster>/...` vs a GET of the same widget in
 *   its workspace (`/clusters/<path>/...`): what the virtual workspace adds per request (resolving the export,
 *   `content` authorization, its view of the resources). Target: throughput ≥ 0.7 of the direct GET.
 * - LIST of every widget across `/clusters/*` of the virtual workspace vs a privileged `/clusters/*` LIST of as many
 *   ConfigMaps: the identity-keyed prefix scan and the per-item binding filter. Target: ≥ 0.5.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Figure, runLoad } from './lib.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const tenants = 20;
const perTenant = 50;
const concurrency = 32;

function startServerChild(rootDir: string): Promise<{ proc: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const proc = fork(join(here, 'server-child.js'), [rootDir], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
    proc.once('message', (m: { url: string }) => resolve({ proc, url: m.url }));
    proc.once('exit', (code) => reject(new Error(`server-child exited with ${code}`)));
  });
}

function stop(proc: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    proc.removeAllListeners('exit');
    proc.once('exit', () => resolve());
    proc.kill('SIGTERM');
  });
}

export async function runAPIExportVWBenchmarks(): Promise<Figure[]> {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-bench-apiexport-'));
  const child = await startServerChild(rootDir);
  const pki = join(rootDir, 'pki');
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency, ca: readFileSync(join(pki, 'ca.crt')), cert: readFileSync(join(pki, 'admin.crt')), key: readFileSync(join(pki, 'admin.key')) });
  const target = { base: child.url, agent };
  const call = (method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> =>
    new Promise((resolve, reject) => {
      const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const req = request(new URL(path, child.url), { method, agent, headers: data ? { 'Content-Type': 'application/json', 'Content-Length': String(data.length) } : {} }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          resolve({ status: res.statusCode ?? 0, json: text.startsWith('{') ? JSON.parse(text) : undefined });
        });
      });
      req.on('error', reject);
      if (data) req.write(data);
      req.end();
    });
  const must = async (method: string, path: string, body?: unknown) => {
    const r = await call(method, path, body);
    if (r.status >= 300) throw new Error(`${method} ${path} answered ${r.status}: ${JSON.stringify(r.json)}`);
    return r.json;
  };
  const until = async <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> => {
    for (let i = 0; i < 600; i++) {
      const v = await probe();
      if (v !== undefined) return v;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timed out waiting for ${what}`);
  };
  try {
    const names = ['provider', ...Array.from({ length: tenants }, (_, i) => `tenant-${i}`)];
    for (const name of names) await must('POST', '/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces', { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name }, spec: {} });
    const clusterOf: Record<string, string> = {};
    for (const name of names) {
      clusterOf[name] = await until(`workspace ${name}`, async () => {
        const w = (await call('GET', `/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces/${name}`)).json;
        return w?.status?.phase === 'Ready' ? (w.spec.cluster as string) : undefined;
      });
    }
    await must('POST', '/clusters/root:provider/apis/apis.kcp.io/v1alpha1/apiresourceschemas', {
      apiVersion: 'apis.kcp.io/v1alpha1', kind: 'APIResourceSchema', metadata: { name: 'v1.widgets.example.io' },
      spec: { group: 'example.io', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', minimum: 1 }, data: { type: 'string' } } } } } }] },
    });
    await must('POST', '/clusters/root:provider/apis/apis.kcp.io/v1alpha2/apiexports', {
      apiVersion: 'apis.kcp.io/v1alpha2', kind: 'APIExport', metadata: { name: 'widgets' },
      spec: { resources: [{ name: 'widgets', group: 'example.io', schema: 'v1.widgets.example.io', storage: { crd: {} } }] },
    });
    for (let t = 0; t < tenants; t++) {
      await until(`binding in tenant-${t}`, async () => ((await call('POST', `/clusters/root:tenant-${t}/apis/apis.kcp.io/v1alpha2/apibindings`, { apiVersion: 'apis.kcp.io/v1alpha2', kind: 'APIBinding', metadata: { name: 'widgets' }, spec: { reference: { export: { path: 'root:provider', name: 'widgets' } } } })).status < 300 ? true : undefined));
    }
    for (let t = 0; t < tenants; t++) {
      await until(`tenant-${t} Bound`, async () => ((await call('GET', `/clusters/root:tenant-${t}/apis/apis.kcp.io/v1alpha2/apibindings/widgets`)).json?.status?.phase === 'Bound' ? true : undefined));
    }
    const payload = 'x'.repeat(400);
    const seeded = await runLoad(target, tenants * perTenant * 2, concurrency, (i) => {
      const t = i % tenants;
      const n = Math.floor(i / tenants) % perTenant;
      return i < tenants * perTenant
        ? { method: 'POST', path: `/clusters/root:tenant-${t}/apis/example.io/v1/namespaces/default/widgets`, body: Buffer.from(JSON.stringify({ apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name: `w-${n}` }, spec: { size: 1, data: payload } })) }
        : { method: 'POST', path: `/clusters/root:tenant-${t}/api/v1/namespaces/default/configmaps`, body: Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${n}` }, data: { data: payload } })) };
    });
    if (seeded.errors) throw new Error(`${seeded.errors} seeding creates failed`);

    const vw = `/services/apiexport/${clusterOf.provider}/widgets`;
    const widgetPath = (i: number) => `namespaces/default/widgets/w-${i % perTenant}`;
    const direct = (i: number) => ({ method: 'GET', path: `/clusters/root:tenant-${i % tenants}/apis/example.io/v1/${widgetPath(i)}` });
    const through = (i: number) => ({ method: 'GET', path: `${vw}/clusters/${clusterOf[`tenant-${i % tenants}`]}/apis/example.io/v1/${widgetPath(i)}` });
    const gets = 8000;
    await runLoad(target, 1000, concurrency, direct);
    const getDirect = await runLoad(target, gets, concurrency, direct);
    await runLoad(target, 1000, concurrency, through);
    const getVW = await runLoad(target, gets, concurrency, through);
    const lists = 60;
    const listVW = () => ({ method: 'GET', path: `${vw}/clusters/*/apis/example.io/v1/widgets` });
    const listCMs = () => ({ method: 'GET', path: `/clusters/*/api/v1/configmaps?labelSelector=` });
    await runLoad(target, 5, 4, listCMs);
    const listRef = await runLoad(target, lists, 4, listCMs);
    await runLoad(target, 5, 4, listVW);
    const listThrough = await runLoad(target, lists, 4, listVW);
    const failed = getDirect.errors + getVW.errors + listRef.errors + listThrough.errors;
    if (failed) throw new Error(`${failed} measured requests failed`);
    const getRatio = getVW.rate / getDirect.rate;
    const listRatio = listThrough.rate / listRef.rate;
    return [
      {
        benchmark: 'apiexport-vw/get-one-cluster',
        metric: `GET/s through the virtual workspace (c=${concurrency}, p99 ${getVW.p99ms.toFixed(1)} ms)`,
        value: getVW.rate,
        unit: 'ops/s',
        reference: `GET in the workspace (p99 ${getDirect.p99ms.toFixed(1)} ms)`,
        referenceValue: getDirect.rate,
        ratio: getRatio,
        target: '>= 0.70',
        pass: getRatio >= 0.7,
      },
      {
        benchmark: 'apiexport-vw/list-all-clusters',
        metric: `LIST/s of ${tenants * perTenant} widgets across /clusters/* of the virtual workspace (p99 ${listThrough.p99ms.toFixed(0)} ms)`,
        value: listThrough.rate,
        unit: 'lists/s',
        reference: `privileged /clusters/* LIST of ${tenants * perTenant}+ ConfigMaps (p99 ${listRef.p99ms.toFixed(0)} ms)`,
        referenceValue: listRef.rate,
        ratio: listRatio,
        target: '>= 0.50',
        pass: listRatio >= 0.5,
      },
    ];
  } finally {
    agent.destroy();
    await stop(child.proc);
    rmSync(rootDir, { recursive: true, force: true });
  }
}

// Run on its own: `node dist/bench/apiexport-vw.js`.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { printFigure } = await import('./lib.js');
  for (const f of await runAPIExportVWBenchmarks()) printFigure(f);
}
