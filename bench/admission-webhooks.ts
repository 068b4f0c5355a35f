/**
 * Issue 16 benchmark: what a validating admission webhook adds to a create beyond the webhook's own time. ConfigMap
 * creates through one matching validating webhook (a real HTTPS webhook in its own process, bench/webhook-child.ts,
 * that allows everything and records its own response time per review) against the same creates with no webhook,
 * both measured in this run on the same server (without, with, then without again; the reference is the better of
 * the two runs without). One client at a time (c=1), so each latency is a request's own and not a queue's.
 * Figure: p99 with the webhook − p99 without − the webhook's own p99 response time. Target: ≤ 2 ms.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Figure, runLoad } from './lib.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const total = 3000;
const warm = 500;

function configMap(run: string, i: number): Buffer {
  const data: Record<string, string> = {};
  for (let k = 0; k < 6; k++) data[`key-${k}`] = `value-${k}-`.padEnd(40, 'x');
  return Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${run}-${i}`, namespace: 'bench', labels: { app: 'bench' } }, data }));
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
  const creates = (run: string, n = total) => runLoad(target, n, 1, (i) => ({ method: 'POST', path: '/api/v1/namespaces/bench/configmaps', body: configMap(run, i) }));
  const request = (method: string, path: string, body?: unknown) => runLoad(target, 1, 1, () => ({ method, path, ...(body ? { body: Buffer.from(JSON.stringify(body)) } : {}) }));
  const VWC = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
  try {
    await request('POST', '/api/v1/namespaces', { metadata: { name: 'bench' } });
    await creates('warm', warm);
    const without1 = await creates('without1');
    await request('POST', VWC, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'bench-webhook' },
      webhooks: [
        {
          name: 'bench.atrium.dev',
          clientConfig: { url: `${webhook.info.url}/validate`, caBundle: webhook.info.caBundle },
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          failurePolicy: 'Fail',
        },
      ],
    });
    // The webhook is in force once a create reaches it.
    for (let i = 0; ; i++) {
      await request('POST', '/api/v1/namespaces/bench/configmaps?dryRun=All', { metadata: { name: 'probe' } });
      if ((await webhookStats(webhook.proc)).count > 0) break;
      if (i > 200) throw new Error('the webhook never came into force');
      await new Promise((r) => setTimeout(r, 50));
    }
    await creates('warm-with', warm);
    await webhookStats(webhook.proc, true);
    const withWebhook = await creates('with');
    const own = await webhookStats(webhook.proc);
    if (own.count !== total) throw new Error(`the webhook reviewed ${own.count} of ${total} creates`);
    await request('DELETE', `${VWC}/bench-webhook`);
    await new Promise((r) => setTimeout(r, 500));
    const without2 = await creates('without2');
    for (const r of [without1, withWebhook, without2]) if (r.errors) throw new Error(`${r.errors} creates failed`);
    const reference = without1.p99ms < without2.p99ms ? without1 : without2;
    const added = withWebhook.p99ms - reference.p99ms - own.p99ms;
    const addedP50 = withWebhook.p50ms - reference.p50ms - own.p50ms;
    return [
      {
        benchmark: 'admission-webhooks/configmap-create-1-validating-webhook',
        metric: `added p99 beyond the webhook's own (c=1: p99 ${withWebhook.p99ms.toFixed(2)} ms with, ${reference.p99ms.toFixed(2)} ms without, webhook's own p99 ${own.p99ms.toFixed(2)} ms; p50 ${withWebhook.p50ms.toFixed(2)} / ${reference.p50ms.toFixed(2)} / ${own.p50ms.toFixed(2)} ms, added p50 ${addedP50.toFixed(2)} ms) in µs:`,
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
