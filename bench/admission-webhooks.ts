/**
 * Issue 16 benchmark: what a validating admission webhook adds to a create beyond the webhook's own time. ConfigMap
 * creates through one matching validating webhook (a real HTTPS webhook in its own process, bench/webhook-child.ts,
 * that allows everything and records its own response time per review) against creates that no webhook matches, in
 * the same run on the same server, interleaved one for one (the webhook's objectSelector matches the labelled half),
 * so that whatever else the machine does falls on both alike. One client at a time (c=1): each latency is a request's
 * own, not a queue's. Figure: p99 with the webhook − p99 without − the webhook's own p99 response time (from the
 * request's arrival at the webhook to the end of its answer). Target: ≤ 2 ms.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Figure, runLoad, timedRequest } from './lib.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const total = 3000;
const warm = 500;

function configMap(name: string, hooked: boolean): Buffer {
  const data: Record<string, string> = {};
  for (let k = 0; k < 6; k++) data[`key-${k}`] = `value-${k}-`.padEnd(40, 'x');
  return Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'bench', labels: { app: 'bench', hooked: hooked ? 'yes' : 'no' } }, data }));
}

function startChild<T>(script: string, args: string[]): Promise<{ proc: ChildProcess; info: T }> {
  return new Promise((resolve, reject) => {
    const proc = fork(join(here, script), args, { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
    proc.once('message', (m: T) => resolve({ proc, info: m }));
    proc.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

function stop(proc: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    proc.removeAllListeners('exit');
    proc.once('exit', () => resolve());
    proc.kill('SIGTERM');
  });
}

interface WebhookStats {
  count: number;
  p50ms: number;
  p99ms: number;
}

function webhookStats(proc: ChildProcess, reset = false): Promise<WebhookStats> {
  return new Promise((resolve) => {
    proc.once('message', (m: WebhookStats) => resolve(m));
    proc.send({ stats: true, reset });
  });
}

export async function runAdmissionWebhookBenchmarks(): Promise<Figure[]> {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-bench-webhook-'));
  const server = await startChild<{ url: string }>('server-child.js', [rootDir]);
  const webhook = await startChild<{ url: string; caBundle: string }>('webhook-child.js', []);
  const pki = join(rootDir, 'pki');
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: readFileSync(join(pki, 'ca.crt')), cert: readFileSync(join(pki, 'admin.crt')), key: readFileSync(join(pki, 'admin.key')) });
  const target = { base: server.info.url, agent };
  const request = (method: string, path: string, body?: unknown) => runLoad(target, 1, 1, () => ({ method, path, ...(body ? { body: Buffer.from(JSON.stringify(body)) } : {}) }));
  const create = (name: string, hooked: boolean) => timedRequest(target, { method: 'POST', path: '/api/v1/namespaces/bench/configmaps', body: configMap(name, hooked) });
  try {
    await request('POST', '/api/v1/namespaces', { metadata: { name: 'bench' } });
    await request('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'bench-webhook' },
      webhooks: [
        {
          name: 'bench.atrium.dev',
          clientConfig: { url: `${webhook.info.url}/validate`, caBundle: webhook.info.caBundle },
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
          objectSelector: { matchLabels: { hooked: 'yes' } },
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          failurePolicy: 'Fail',
        },
      ],
    });
    // The webhook is in force once a create reaches it.
    for (let i = 0; ; i++) {
      await create(`probe-${i}`, true);
      if ((await webhookStats(webhook.proc)).count > 0) break;
      if (i > 200) throw new Error('the webhook never came into force');
      await new Promise((r) => setTimeout(r, 50));
    }
    for (let i = 0; i < warm; i++) await create(`warm-${i}`, i % 2 === 0);
    await webhookStats(webhook.proc, true);
    const withHook: number[] = [];
    const without: number[] = [];
    let errors = 0;
    for (let i = 0; i < 2 * total; i++) {
      const hooked = i % 2 === 0;
      const r = await create(`cm-${i}`, hooked);
      if (r.status !== 201) errors++;
      (hooked ? withHook : without).push(r.ms);
    }
    if (errors) throw new Error(`${errors} creates failed`);
    const own = await webhookStats(webhook.proc);
    if (own.count !== total) throw new Error(`the webhook reviewed ${own.count} of ${total} creates`);
    // For context (not in the figure): the same kind of review POSTed straight to the webhook from this process, the
    // transport's share of what atrium adds (a TLS round trip on loopback to another process).
    const direct: number[] = [];
    const hookAgent = new Agent({ keepAlive: true, maxSockets: 1, ca: Buffer.from(webhook.info.caBundle, 'base64') });
    try {
      const review = (i: number) => Buffer.from(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: `direct-${i}`, operation: 'CREATE', object: JSON.parse(configMap(`direct-${i}`, true).toString()) } }));
      for (let i = 0; i < total; i++) {
        const r = await timedRequest({ base: webhook.info.url, agent: hookAgent }, { method: 'POST', path: '/validate', body: review(i) });
        if (r.status !== 200) throw new Error(`the webhook answered ${r.status}`);
        direct.push(r.ms);
      }
    } finally {
      hookAgent.destroy();
    }
    const q = (xs: number[], p: number) => {
      const s = [...xs].sort((a, b) => a - b);
      return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
    };
    const w99 = q(withHook, 0.99);
    const n99 = q(without, 0.99);
    const added = w99 - n99 - own.p99ms;
    const addedP50 = q(withHook, 0.5) - q(without, 0.5) - own.p50ms;
    return [
      {
        benchmark: 'admission-webhooks/configmap-create-1-validating-webhook',
        metric: `added p99 beyond the webhook's own, µs (c=1, ${total} creates each: p99 ${w99.toFixed(2)} ms with, ${n99.toFixed(2)} ms without, webhook's own p99 ${own.p99ms.toFixed(2)} ms; p50 ${q(withHook, 0.5).toFixed(2)} / ${q(without, 0.5).toFixed(2)} / ${own.p50ms.toFixed(2)} ms, added p50 ${(addedP50 * 1000).toFixed(0)} µs; for context, a review POSTed straight to the webhook: p50 ${q(direct, 0.5).toFixed(2)} ms, p99 ${q(direct, 0.99).toFixed(2)} ms)`,
        value: added * 1000,
        unit: 'µs',
        reference: 'budget',
        referenceValue: 2000,
        ratio: added / 2,
        target: '<= 1.0 (2 ms)',
        pass: added <= 2,
      },
    ];
  } finally {
    agent.destroy();
    await stop(webhook.proc);
    await stop(server.proc);
    rmSync(rootDir, { recursive: true, force: true });
  }
}

// Run on its own: `node dist/bench/admission-webhooks.js`.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { printFigure } = await import('./lib.js');
  for (const f of await runAdmissionWebhookBenchmarks()) printFigure(f);
}
