/**
 * Issue 3 benchmark: creating a 2 KB custom resource whose CRD has a demanding structural schema (nested objects,
 * list-map keys, int-or-string, formats, defaults, CEL rules) against the same resource stored under a CRD that
 * only says x-kubernetes-preserve-unknown-fields, in the same server and run. Rounds alternate between the two so
 * drift (disk, other load) hits both alike; the figure is the median round. Target: the schema pipeline adds at most
 * 20% to the create path, i.e. ratio >= 1/1.2.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileSchema } from '../src/apiextensions/schema/compile.js';
import type { JSONSchemaProps } from '../src/apiextensions/schema/json-schema-props.js';
import { eventually } from '../test/helpers/eventually.js';
import { type Figure, runLoad } from './lib.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const concurrency = 64;

const str = (extra: Partial<JSONSchemaProps> = {}): JSONSchemaProps => ({ type: 'string', maxLength: 253, ...extra });
const intOrString: JSONSchemaProps = { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] };

/** A schema in the league of cert-manager / prometheus-operator CRDs. */
export const benchSchema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['owner', 'endpoints'],
      'x-kubernetes-validations': [
        { rule: 'self.minReplicas <= self.maxReplicas', message: 'minReplicas must not exceed maxReplicas' },
        { rule: "!has(self.tls) || self.tls.secretName != ''", message: 'tls needs a secret' },
      ],
      properties: {
        owner: str({ minLength: 1 }),
        description: str({ maxLength: 1024 }),
        minReplicas: { type: 'integer', format: 'int32', minimum: 0, default: 1 },
        maxReplicas: { type: 'integer', format: 'int32', maximum: 1000, default: 10 },
        schedule: str({ pattern: '^[0-9*/ ,-]+$' }),
        labels: { type: 'object', maxProperties: 64, additionalProperties: str({ maxLength: 63 }) },
        tls: { type: 'object', properties: { secretName: str(), hosts: { type: 'array', maxItems: 32, items: str(), 'x-kubernetes-list-type': 'set' } } },
        endpoints: {
          type: 'array',
          maxItems: 64,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name', 'port'],
            'x-kubernetes-validations': [{ rule: 'self.weight <= 100', message: 'weight is a percentage' }],
            properties: {
              name: str({ maxLength: 63 }),
              port: intOrString,
              path: str({ default: '/' }),
              scheme: { type: 'string', enum: ['http', 'https'], default: 'http' },
              weight: { type: 'integer', minimum: 0, default: 100 },
              timeout: str({ maxLength: 16 }),
              headers: { type: 'object', maxProperties: 16, additionalProperties: str() },
            },
          },
        },
        window: { type: 'object', properties: { start: { type: 'string', format: 'date-time' }, durationSeconds: { type: 'integer', minimum: 1 } } },
      },
    },
    status: { type: 'object', properties: { phase: str(), observedGeneration: { type: 'integer' } } },
  },
};

/**
 * The reference: the same object kept under x-kubernetes-preserve-unknown-fields, with only the list semantics
 * declared (endpoints a map list keyed by name, tls.hosts a set). Those decide the managedFields (server-side apply
 * owns a map list per item, as kube-apiserver does), not validation, pruning, defaulting or CEL, so both sides store
 * managedFields of the same shape and the figure isolates the schema pipeline the target bounds.
 */
const preserveSchema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      properties: {
        endpoints: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], 'x-kubernetes-preserve-unknown-fields': true, properties: { name: { type: 'string' } } },
        },
        tls: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { hosts: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } } },
        },
      },
    },
    status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  },
};

function crd(plural: string, kind: string, schema: JSONSchemaProps): unknown {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.bench.example.com` },
    spec: { group: 'bench.example.com', scope: 'Namespaced', names: { plural, kind }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }] },
  };
}

/** About 2 KB of JSON that passes benchSchema. */
export function benchObject(kind: string, name: string): Record<string, unknown> {
  return {
    apiVersion: 'bench.example.com/v1',
    kind,
    metadata: { name, labels: { app: 'bench', tier: 'backend' } },
    spec: {
      owner: 'team-platform',
      description: 'A custom resource sized like a typical operator object, used to measure the schema pipeline.',
      minReplicas: 2,
      maxReplicas: 20,
      schedule: '*/5 * * * *',
      labels: Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`label-${i}`, `value-${i}`])),
      tls: { secretName: 'bench-tls', hosts: ['a.example.com', 'b.example.com', 'c.example.com'] },
      endpoints: Array.from({ length: 16 }, (_, i) => ({ name: `ep-${i}`, port: i % 2 ? 8080 + i : 'http', path: `/api/v${i}`, timeout: '30s', headers: { 'x-env': 'prod' } })),
      window: { start: '2025-01-01T00:00:00Z', durationSeconds: 3600 },
    },
  };
}

interface Child {
  proc: ChildProcess;
  url: string;
}

function startChild(rootDir: string): Promise<Child> {
  return new Promise((resolve, reject) => {
    const proc = fork(join(here, 'server-child.js'), [rootDir], {
      execArgv: process.env.ATRIUM_BENCH_CHILD_NODE_ARGS?.split(' ').filter(Boolean) ?? [],
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    });
    proc.once('message', (m: { url: string }) => resolve({ proc, url: m.url }));
    proc.once('exit', (code) => reject(new Error(`server-child exited with ${code}`)));
  });
}

function getJson(agent: Agent, base: string, path: string): Promise<any> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(res.statusCode === 200 ? JSON.parse(Buffer.concat(chunks).toString()) : undefined));
    });
    req.on('error', reject);
    req.end();
  });
}

async function waitEstablished(agent: Agent, base: string, name: string): Promise<void> {
  await eventually(`${name} Established`, async () => {
    const c = await getJson(agent, base, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
    return c?.status?.conditions?.some((x: any) => x.type === 'Established' && x.status === 'True');
  }, 10_000, 20);
}

/**
 * CPU time (user + system, ms) the server process has used so far, from /proc (Linux); undefined elsewhere. On a
 * shared, loaded machine CPU per request is a steadier measure of the pipeline's cost than wall-clock throughput.
 */
function processCpuMs(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks at USER_HZ = 100
  } catch {
    return undefined;
  }
}

/** In-process cost of prune + default + validate + CEL for one object (compiled schema reused, as the server does). */
function pipelineMicros(): number {
  const compiled = compileSchema(benchSchema);
  const n = 3000;
  const objs = Array.from({ length: n }, (_, i) => benchObject('Widget', `w-${i}`));
  const t0 = process.hrtime.bigint();
  for (const o of objs) {
    const r = compiled.process(o, undefined);
    if (r.errors.length) throw new Error(`bench object invalid: ${JSON.stringify(r.errors[0])}`);
  }
  return Number(process.hrtime.bigint() - t0) / 1e3 / n;
}

export async function runCrdBenchmarks(): Promise<Figure[]> {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-bench-crd-'));
  const api = await startChild(rootDir);
  const pki = join(rootDir, 'pki');
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency, ca: readFileSync(join(pki, 'ca.crt')), cert: readFileSync(join(pki, 'admin.crt')), key: readFileSync(join(pki, 'admin.key')) });
  const target = { base: api.url, agent };
  const post = (path: string, body: unknown) => ({ method: 'POST', path, body: Buffer.from(JSON.stringify(body)) });
  await runLoad(target, 1, 1, () => post('/api/v1/namespaces', { metadata: { name: 'bench' } }));
  await runLoad(target, 1, 1, () => post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd('widgets', 'Widget', benchSchema)));
  await runLoad(target, 1, 1, () => post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd('blobs', 'Blob', preserveSchema)));
  await waitEstablished(agent, api.url, 'widgets.bench.example.com');
  await waitEstablished(agent, api.url, 'blobs.bench.example.com');
  const size = Buffer.byteLength(JSON.stringify(benchObject('Widget', 'w-000000')));

  const kinds = [
    { plural: 'widgets', kind: 'Widget' },
    { plural: 'blobs', kind: 'Blob' },
  ];
  const perRound = 1500;
  const rounds = 9;
  let seq = 0;
  const make = (k: { plural: string; kind: string }) => () => post(`/apis/bench.example.com/v1/namespaces/bench/${k.plural}`, benchObject(k.kind, `o-${seq++}`));
  for (const k of kinds) await runLoad(target, 500, concurrency, make(k)); // warm-up: JIT, caches, compiled schema
  const ratios: number[] = [];
  const rates: Record<string, number[]> = { widgets: [], blobs: [] };
  const cpuPerCreate: Record<string, number[]> = { widgets: [], blobs: [] };
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? [...kinds].reverse() : kinds;
    const got: Record<string, number> = {};
    for (const k of order) {
      const cpu0 = processCpuMs(api.proc.pid);
      const res = await runLoad(target, perRound, concurrency, make(k));
      const cpu1 = processCpuMs(api.proc.pid);
      if (cpu0 !== undefined && cpu1 !== undefined) cpuPerCreate[k.plural]!.push(((cpu1 - cpu0) * 1000) / perRound);
      if (res.errors) throw new Error(`${res.errors} ${k.plural} creates failed`);
      got[k.plural] = res.rate;
      rates[k.plural]!.push(res.rate);
    }
    ratios.push(got.widgets! / got.blobs!);
  }
  agent.destroy();
  await new Promise<void>((resolve) => {
    api.proc.removeAllListeners('exit');
    api.proc.once('exit', () => resolve());
    api.proc.kill('SIGTERM');
  });
  rmSync(rootDir, { recursive: true, force: true });

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const ratio = median(ratios);
  // What the issue bounds is the cost the schema pipeline adds to a create. The server is CPU-bound here, so server CPU
  // per create measures that cost directly; throughput on this shared 2-core machine moved by ±11% even when both
  // CRDs had the same schema (an A/A run), too noisy to judge a 20% bound, so it is printed for information and gates
  // only when /proc CPU figures are unavailable.
  const haveCpu = cpuPerCreate.widgets!.length > 0;
  const cpuRatio = haveCpu ? median(cpuPerCreate.widgets!) / median(cpuPerCreate.blobs!) : NaN;
  const figures: Figure[] = [
    {
      benchmark: `crd/create-custom-resource-${(size / 1024).toFixed(1)}k`,
      metric: `creates/s with full schema (c=${concurrency}, median of ${rounds} alternating rounds)${haveCpu ? '; informational' : ''}`,
      value: median(rates.widgets!),
      unit: 'ops/s',
      reference: 'same object under x-kubernetes-preserve-unknown-fields',
      referenceValue: median(rates.blobs!),
      ratio,
      ...(haveCpu ? {} : { target: `>= ${(1 / 1.2).toFixed(2)} (<= 20% added)`, pass: ratio >= 1 / 1.2 }),
    },
  ];
  if (haveCpu) {
    figures.push({
      benchmark: 'crd/create-custom-resource-server-cpu',
      metric: `server CPU µs per create with full schema (median of ${rounds} rounds)`,
      value: median(cpuPerCreate.widgets!),
      unit: 'µs',
      reference: 'same object under x-kubernetes-preserve-unknown-fields',
      referenceValue: median(cpuPerCreate.blobs!),
      ratio: cpuRatio,
      target: '<= 1.20 (<= 20% added)',
      pass: cpuRatio <= 1.2,
    });
  }
  return [
    ...figures,
    {
      benchmark: 'crd/schema-pipeline',
      metric: 'prune+default+validate+CEL per object, in process (informational)',
      value: pipelineMicros(),
      unit: 'µs',
      reference: 'none',
      referenceValue: 0,
      ratio: 0,
    },
  ];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { printFigure } = await import('./lib.js');
  for (const f of await runCrdBenchmarks()) printFigure(f);
}
