/**
 * Issue 4 benchmark: server-side apply of an unchanged ConfigMap (the steady state of GitOps controllers re-applying
 * their manifests) against a GET of the same object, both measured in this run on the same server. Target: the apply
 * costs no more than 2x the GET, i.e. its throughput is at least half.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Figure, runLoad } from './lib.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const concurrency = 32;
const objects = 200;

/** An apply configuration: a dozen data keys and a few labels, about 1 KB, as kubectl sends it (JSON). */
function configuration(i: number): Buffer {
  const data: Record<string, string> = {};
  for (let k = 0; k < 12; k++) data[`key-${k}`] = `value-${k}-`.padEnd(60, 'x');
  return Buffer.from(
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `ssa-${i}`, namespace: 'bench', labels: { app: 'bench', tier: 'config', index: String(i) } },
      data,
    }),
  );
}

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

export async function runSsaBenchmarks(): Promise<Figure[]> {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-bench-ssa-'));
  const child = await startServerChild(rootDir);
  const pki = join(rootDir, 'pki');
  const agent = new Agent({
    keepAlive: true,
    maxSockets: concurrency,
    ca: readFileSync(join(pki, 'ca.crt')),
    cert: readFileSync(join(pki, 'admin.crt')),
    key: readFileSync(join(pki, 'admin.key')),
  });
  const target = { base: child.url, agent };
  const path = (i: number) => `/api/v1/namespaces/bench/configmaps/ssa-${i % objects}`;
  const applyRequest = (i: number) => ({
    method: 'PATCH',
    path: `${path(i)}?fieldManager=bench&fieldValidation=Strict&force=false`,
    body: configuration(i % objects),
    headers: { 'Content-Type': 'application/apply-patch+yaml' },
  });
  try {
    await runLoad(target, 1, 1, () => ({ method: 'POST', path: '/api/v1/namespaces', body: Buffer.from('{"metadata":{"name":"bench"}}') }));
    const created = await runLoad(target, objects, concurrency, applyRequest);
    if (created.errors) throw new Error(`${created.errors} applies failed`);
    // A second manager owns one label, so managedFields hold two entries as they usually do.
    await runLoad(target, objects, concurrency, (i) => ({
      method: 'PATCH',
      path: `${path(i)}?fieldManager=labeler`,
      body: Buffer.from('{"metadata":{"labels":{"extra":"yes"}}}'),
      headers: { 'Content-Type': 'application/merge-patch+json' },
    }));
    const total = 8000;
    await runLoad(target, 1000, concurrency, (i) => ({ method: 'GET', path: path(i) }));
    const get = await runLoad(target, total, concurrency, (i) => ({ method: 'GET', path: path(i) }));
    await runLoad(target, 1000, concurrency, applyRequest);
    const apply = await runLoad(target, total, concurrency, applyRequest);
    if (get.errors || apply.errors) throw new Error(`${get.errors} gets and ${apply.errors} applies failed`);
    const ratio = apply.rate / get.rate;
    return [
      {
        benchmark: 'ssa/apply-unchanged-configmap',
        metric: `applies/s (c=${concurrency}, p99 ${apply.p99ms.toFixed(1)} ms)`,
        value: apply.rate,
        unit: 'ops/s',
        reference: `GET of the same objects (p99 ${get.p99ms.toFixed(1)} ms)`,
        referenceValue: get.rate,
        ratio,
        target: '>= 0.50 (cost <= 2x GET)',
        pass: ratio >= 0.5,
      },
    ];
  } finally {
    agent.destroy();
    await stop(child.proc);
    rmSync(rootDir, { recursive: true, force: true });
  }
}

// Run on its own: `node dist/bench/ssa.js`.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { printFigure } = await import('./lib.js');
  for (const f of await runSsaBenchmarks()) printFigure(f);
}
