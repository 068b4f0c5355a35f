/**
 * The applies of real apps, against kube-apiserver (#13, #21): the app corpus (test/e2e/apps) copied into 50 app
 * instances (597 objects: Namespaces, Deployments, StatefulSets, Services, ConfigMaps, RBAC, PVCs, Jobs, CronJobs,
 * Ingresses, NetworkPolicies, HPAs, PDBs, …), each app's objects applied one after the other by server-side apply as
 * `kubectl apply --server-side` sends them, all apps at once — the workloads suite's burst without the clusters. Run
 * against kube-apiserver v1.32.4 on etcd 3.5.16 and against atrium on SQLite serving the same workload APIs, neither
 * with a controller (kube-apiserver's ServiceAccount admission is off: nothing creates the namespaces' default
 * ServiceAccounts), alternating, ATRIUM_BENCH_APPLIES_ROUNDS rounds (default 2; medians printed).
 *
 * Figures: the time from the first apply sent to the last answered, and the servers' CPU seconds over it (kube-apiserver
 * plus etcd; atrium's one process) — the server-side cost of an object as users ship it, where the kube suite's 1 KB
 * ConfigMaps measure only the request path. Ratio atrium / kube-apiserver, lower is better, target ≤ 1.0.
 *
 * Needs kube-apiserver built by bench/kube/build-anchors.sh (`npm run bench -- kube` builds it); skipped with a line
 * saying so otherwise. Env: ATRIUM_BENCH_APPLIES_APPS (default 50), ATRIUM_E2E_APPS_DIR (the corpus).
 */
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RestClient } from '../src/client/rest-client.js';
import { applyInstances, instantiate, readCorpus, type Manifest } from './corpus.js';
import { atriumOnSqlite, kubeApiserverBuilt, startKubeApiserver, type Started } from './kube.js';
import type { Figure } from './lib.js';

const CLK_TCK = 100; // Linux USER_HZ

function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
  } catch {
    return 0;
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const percentile = (values: number[], p: number) => {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};

interface Round {
  totalMs: number;
  appP50Ms: number;
  appP99Ms: number;
  cpuS: number;
}

async function applyRound(name: string, start: () => Promise<Started>, instances: readonly { objects: readonly Manifest[] }[]): Promise<Round> {
  const load = loadavg()[0]!.toFixed(1);
  const server = await start();
  let client: RestClient | undefined;
  try {
    client = await RestClient.fromKubeconfig(server.kubeconfig, { userAgent: 'kubectl/v1.32.4' });
    const pids = server.pids();
    const cpu0 = pids.reduce((n, p) => n + cpuSeconds(p), 0);
    const { perApp, totalMs } = await applyInstances(client, '', instances);
    const cpuS = pids.reduce((n, p) => n + cpuSeconds(p), 0) - cpu0;
    const round = { totalMs, appP50Ms: percentile(perApp, 50), appP99Ms: percentile(perApp, 99), cpuS };
    console.log(`applies: ${name}: all applied after ${totalMs.toFixed(0)} ms (apply of one app p50 ${round.appP50Ms.toFixed(0)} ms, p99 ${round.appP99Ms.toFixed(0)} ms); server CPU ${cpuS.toFixed(2)} s; load average ${load} before`);
    return round;
  } finally {
    client?.close();
    await server.stop();
  }
}

export async function runAppliesBenchmarks(): Promise<Figure[]> {
  if (!kubeApiserverBuilt()) {
    console.log('applies: skipped: kube-apiserver is not built (npm run bench -- kube builds it)');
    return [];
  }
  const root = process.env.ATRIUM_E2E_APPS_DIR ? resolve(process.env.ATRIUM_E2E_APPS_DIR) : resolve(fileURLToPath(import.meta.url), '..', '..', '..', 'test', 'e2e', 'apps');
  const corpus = readCorpus(root);
  const count = Number(process.env.ATRIUM_BENCH_APPLIES_APPS ?? 50);
  const rounds = Number(process.env.ATRIUM_BENCH_APPLIES_ROUNDS ?? 2);
  const instances = Array.from({ length: count }, (_, i) => ({ objects: instantiate(corpus[i % corpus.length]!, Math.floor(i / corpus.length) + 1) }));
  const objects = instances.reduce((n, a) => n + a.objects.length, 0);
  const cores = cpus().length;
  console.log(`applies: ${count} app instances (${objects} objects) from ${corpus.length} corpus apps, all at once, ${rounds} round(s) per server, alternating; ${cores} cores`);
  const kube: Round[] = [];
  const atrium: Round[] = [];
  for (let r = 0; r < rounds; r++) {
    kube.push(await applyRound('kube-apiserver v1.32.4 + etcd 3.5.16', async () => startKubeApiserver('--disable-admission-plugins=ServiceAccount'), instances));
    atrium.push(await applyRound('atrium on SQLite', () => atriumOnSqlite(['workloads']), instances));
  }
  const k = { totalMs: median(kube.map((x) => x.totalMs)), cpuS: median(kube.map((x) => x.cpuS)), p99: median(kube.map((x) => x.appP99Ms)) };
  const a = { totalMs: median(atrium.map((x) => x.totalMs)), cpuS: median(atrium.map((x) => x.cpuS)), p99: median(atrium.map((x) => x.appP99Ms)) };
  const what = `${count} apps (${objects} objects) applied at once by server-side apply, no controllers (${cores} cores, median of ${rounds})`;
  return [
    { benchmark: 'applies', metric: `${what}: atrium on SQLite, time until all applied`, value: a.totalMs, unit: 'ms', reference: `kube-apiserver v1.32.4 + etcd 3.5.16; apply of one app p99 atrium ${a.p99.toFixed(0)} ms vs ${k.p99.toFixed(0)} ms`, referenceValue: k.totalMs, ratio: a.totalMs / k.totalMs, target: '≤ 1.0', pass: a.totalMs <= k.totalMs },
    { benchmark: 'applies', metric: `${what}: atrium's CPU over the applies (${((a.cpuS * 1000) / objects).toFixed(2)} ms per object)`, value: a.cpuS, unit: 's', reference: `kube-apiserver + etcd CPU, ${((k.cpuS * 1000) / objects).toFixed(2)} ms per object`, referenceValue: k.cpuS, ratio: a.cpuS / k.cpuS, target: '≤ 1.0', pass: a.cpuS <= k.cpuS },
  ];
}
