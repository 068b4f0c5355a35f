/** Shared benchmark plumbing: a keep-alive HTTPS load generator with bounded concurrency and a report line format. */
import { Agent, request } from 'node:https';

export interface LoadResult {
  ops: number;
  seconds: number;
  rate: number;
  p50ms: number;
  p99ms: number;
  errors: number;
}

export interface LoadTarget {
  base: string;
  agent: Agent;
}

/**
 * Runs `total` requests at `concurrency`, each built by make(i), and measures throughput and latency.
 * A non-2xx answer counts as an error (benchmarks must not measure failures as speed).
 */
export async function runLoad(target: LoadTarget, total: number, concurrency: number, make: (i: number) => { method: string; path: string; body?: Buffer; headers?: Record<string, string> }): Promise<LoadResult> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const started = process.hrtime.bigint();
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= total) return;
      const r = make(i);
      const t0 = process.hrtime.bigint();
      const status = await send(target, r.method, r.path, r.body, r.headers);
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (status < 200 || status >= 300) errors++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
  return { ops: total, seconds, rate: total / seconds, p50ms: q(0.5), p99ms: q(0.99), errors };
}

/** One request, timed: its latency in ms and its status. */
export async function timedRequest(target: LoadTarget, r: { method: string; path: string; body?: Buffer; headers?: Record<string, string> }): Promise<{ ms: number; status: number }> {
  const t0 = process.hrtime.bigint();
  const status = await send(target, r.method, r.path, r.body, r.headers);
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, status };
}

function send(target: LoadTarget, method: string, path: string, body?: Buffer, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const h: Record<string, string> = { ...headers };
    if (body) {
      h['Content-Type'] ??= 'application/json';
      h['Content-Length'] = String(body.length);
    }
    const req = request(new URL(path, target.base), { method, agent: target.agent, headers: h }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

export interface Figure {
  benchmark: string;
  metric: string;
  value: number;
  unit: string;
  reference: string;
  referenceValue: number;
  ratio: number;
  target?: string;
  pass?: boolean;
}

export function printFigure(f: Figure): void {
  const verdict = f.pass === undefined ? '' : f.pass ? '  PASS' : '  FAIL';
  const num = (v: number) => (Math.abs(v) < 100 ? v.toFixed(1) : v.toFixed(0));
  console.log(
    `${f.benchmark}: ${f.metric} ${num(f.value)} ${f.unit} | reference (${f.reference}) ${num(f.referenceValue)} ${f.unit} | ratio ${f.ratio.toFixed(2)}${f.target ? ` (target ${f.target})` : ''}${verdict}`,
  );
}
