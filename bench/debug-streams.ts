/**
 * Issue 14 benchmark: pod streams through a workspace versus straight to the simulated cluster, in the same run.
 *
 * The fleet: `atrium start` and two `atrium pcluster` processes, one registered in push mode (atrium dials the
 * cluster) and one in none mode (an `atrium syncer` process; streams go through its tunnel). One pod on each, created
 * in the workspace; "direct" addresses its original on the cluster with the cluster's admin credentials, "through
 * the workspace" addresses the pod in atrium. Each measurement alternates direct and through, so both see the same
 * machine load.
 *
 * - exec round trip: one whole `exec` of `echo x` over WebSocket (v5.channel.k8s.io, kubectl 1.32's protocol): the
 *   upgrade, the output, the exit status, the close; p99 of 100 each. Target: through ≤ 1.5 × direct.
 * - `kubectl cp` of 50 MB into the pod: MB/s of the real kubectl (best of 2 each). Target: ≥ 0.5 × direct.
 * - first line of `logs -f`: from the request to the first body byte of `log?follow=true`; p50 of 50 each.
 *   Target: ≤ 1.5 × direct.
 */
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { request } from 'node:https';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { isIP } from 'node:net';
import { startFleet, type ProcessFleet } from '../test/helpers/fleet.js';
import { eventually } from '../test/helpers/eventually.js';
import { kubectlPath } from '../test/helpers/harness.js';
import { RestClient, type RestClientConfig } from '../src/client/rest-client.js';
import type { Figure } from './lib.js';

const podsGVR = { group: '', version: 'v1', resource: 'pods' };

interface Endpoint {
  label: string;
  config: RestClientConfig;
  kubeconfig: string;
  /** The pod's path prefix: /api/v1/namespaces/<ns>/pods/<name> */
  pod: string;
  namespace: string;
  name: string;
}

export async function runDebugStreamBenchmarks(): Promise<Figure[]> {
  // The none-mode syncer polls its cluster's APIs every 2 s, not 30: its first imports sometimes fail ("socket hang
  // up", seen on main on 2026-11-27) and a 30 s retry left pods not Accepted within the minute the set-up waits.
  const fleet: ProcessFleet = await startFleet({ name: 'bench-debug-streams', clusters: ['bench-push', 'bench-none'], processes: {}, register: false, syncer: { importPollInterval: '2s' } });
  const dir = mkdtempSync(join(tmpdir(), 'atrium-bench-streams-'));
  const figures: Figure[] = [];
  try {
    await fleet.register('bench-push', { mode: 'push' });
    await fleet.register('bench-none', { mode: 'none' });
    await fleet.waitReady(undefined, { resources: ['pods'], timeoutMs: 60_000 });
    const atrium = (await RestClient.fromKubeconfig(fleet.kubeconfig)).config;
    for (const mode of ['push', 'none'] as const) {
      const cluster = fleet.cluster(`bench-${mode}`);
      const name = `bench-${mode}`;
      await fleet.up.create(podsGVR, { metadata: { name, namespace: 'default', labels: { 'workload.kcp.io/cluster': cluster.name } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } }, { namespace: 'default' });
      const original = await eventually(`${name} running downstream`, async () => {
        const list = await cluster.client.list(podsGVR);
        return list.items.find((p) => p.metadata?.name === name && (p as { status?: { phase?: string } }).status?.phase === 'Running');
      }, 60_000);
      const ns = original.metadata!.namespace!;
      const through: Endpoint = { label: 'through the workspace', config: atrium, kubeconfig: fleet.kubeconfig, pod: `/api/v1/namespaces/default/pods/${name}`, namespace: 'default', name };
      const direct: Endpoint = { label: 'direct', config: cluster.client.config, kubeconfig: cluster.kubeconfigPath, pod: `/api/v1/namespaces/${ns}/pods/${name}`, namespace: ns, name };
      const tag = mode === 'push' ? 'push mode' : 'none mode, syncer tunnel';

      const exec = await alternate(100, () => execRoundTrip(direct), () => execRoundTrip(through));
      figures.push(ratioFigure(`exec round trip (${tag})`, 'p99', quantile(exec.b, 0.99), 'ms', quantile(exec.a, 0.99), '≤ 1.5', (r) => r <= 1.5));

      const logs = await alternate(50, () => firstLogByte(direct), () => firstLogByte(through));
      figures.push(ratioFigure(`first line of logs -f (${tag})`, 'p50', quantile(logs.b, 0.5), 'ms', quantile(logs.a, 0.5), '≤ 1.5', (r) => r <= 1.5));

      const file = join(dir, 'fifty-mb');
      writeFileSync(file, randomBytes(50 * 1024 * 1024));
      const cp = await alternate(2, () => kubectlCp(direct, file), () => kubectlCp(through, file));
      const best = (xs: number[]) => 50 / (Math.min(...xs) / 1000);
      figures.push(ratioFigure(`kubectl cp of 50 MB (${tag})`, 'throughput', best(cp.b), 'MB/s', best(cp.a), '≥ 0.5', (r) => r >= 0.5));
    }
  } finally {
    await fleet.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`(${availableParallelism()} cores; atrium, both clusters, the syncer, kubectl and this client share them)`);
  return figures;
}

function ratioFigure(benchmark: string, metric: string, value: number, unit: string, referenceValue: number, target: string, pass: (ratio: number) => boolean): Figure {
  const ratio = value / referenceValue;
  return { benchmark, metric, value, unit, reference: 'straight to the simulated cluster', referenceValue, ratio, target, pass: pass(ratio) };
}

/** Runs a then b, n times; their durations in ms. */
async function alternate(n: number, a: () => Promise<number>, b: () => Promise<number>): Promise<{ a: number[]; b: number[] }> {
  const out = { a: [] as number[], b: [] as number[] };
  for (let i = 0; i < n; i++) {
    out.a.push(await a());
    out.b.push(await b());
  }
  return out;
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
}

function tlsOptions(c: RestClientConfig) {
  return { ca: c.ca, cert: c.cert, key: c.key, headers: (c.token ? { Authorization: `Bearer ${c.token}` } : {}) as Record<string, string> };
}

/**
 * One exec of `echo x` over WebSocket, from the upgrade request until the server's close frame; ms. The client is
 * written out here (a handshake and reading server frames is all it takes) so that it costs the same on both sides.
 */
function execRoundTrip(e: Endpoint): Promise<number> {
  const started = performance.now();
  const url = new URL(e.config.url);
  const host = url.hostname;
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host, port: Number(url.port), ca: e.config.ca, cert: e.config.cert, key: e.config.key, ALPNProtocols: ['http/1.1'], ...(isIP(host) ? {} : { servername: host }) }, () => {
      const head = [
        `GET ${e.pod}/exec?command=echo&command=x&stdout=true&stderr=true HTTP/1.1`,
        `Host: ${url.host}`,
        'Connection: Upgrade',
        'Upgrade: websocket',
        'Sec-WebSocket-Version: 13',
        `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
        'Sec-WebSocket-Protocol: v5.channel.k8s.io',
        ...(e.config.token ? [`Authorization: Bearer ${e.config.token}`] : []),
      ];
      socket.write(`${head.join('\r\n')}\r\n\r\n`);
    });
    let buf = Buffer.alloc(0);
    let upgraded = false;
    let out = '';
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      if (!upgraded) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const status = buf.subarray(0, buf.indexOf('\r\n')).toString();
        if (!status.includes(' 101 ')) return void (socket.destroy(), reject(new Error(`exec ${e.label}: ${buf.toString()}`)));
        upgraded = true;
        buf = buf.subarray(end + 4);
      }
      // Server frames are unmasked: FIN/opcode, a 7-bit length (126: 16 bits follow, 127: 64 bits), the payload.
      for (;;) {
        if (buf.length < 2) return;
        const opcode = buf[0]! & 0x0f;
        let len = buf[1]! & 0x7f;
        let off = 2;
        if (len === 126) {
          if (buf.length < 4) return;
          len = buf.readUInt16BE(2);
          off = 4;
        } else if (len === 127) {
          if (buf.length < 10) return;
          len = Number(buf.readBigUInt64BE(2));
          off = 10;
        }
        if (buf.length < off + len) return;
        const payload = buf.subarray(off, off + len);
        buf = buf.subarray(off + len);
        if (opcode === 2 && payload[0] === 1) out += payload.subarray(1).toString();
        if (opcode === 8) {
          socket.destroy();
          return out.includes('x') ? resolve(performance.now() - started) : reject(new Error(`exec ${e.label}: no output`));
        }
      }
    });
    socket.on('error', reject);
  });
}

/** ms from a `log?follow=true` request to the first byte of its body. */
function firstLogByte(e: Endpoint): Promise<number> {
  const started = performance.now();
  const { headers, ...tls } = tlsOptions(e.config);
  return new Promise((resolve, reject) => {
    const req = request(`${e.config.url}${e.pod}/log?follow=true`, { ...tls, headers, agent: false }, (res) => {
      res.once('data', () => {
        resolve(performance.now() - started);
        req.destroy();
      });
      res.once('end', () => reject(new Error(`logs ${e.label}: no line (${res.statusCode})`)));
    });
    req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
    req.end();
  });
}

/** `kubectl cp file <pod>:<name>`; ms. */
function kubectlCp(e: Endpoint, file: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(kubectlPath(), ['--kubeconfig', e.kubeconfig, '-n', e.namespace, 'cp', file, `${e.name}:fifty-mb`], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.once('close', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`kubectl cp ${e.label}: ${err}`))));
  });
}
