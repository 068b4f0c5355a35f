/**
 * The reference beside the workloads figure (bench/workloads.ts): the same app instances' applies — each app's objects
 * one after the other by server-side apply, all apps at once — against kube-apiserver v1.32.4 on etcd 3.5.16 alone,
 * on the same machine after the fleet is gone. No controllers and no clusters run there (ServiceAccount admission is
 * off, as nothing creates the namespaces' default ServiceAccounts), so this is a lower bound of what the applies
 * alone cost on the real thing: the part of the 1 s budget that applying the apps takes before anything is placed.
 *
 * Uses the binaries bench/kube/build-anchors.sh caches (~/.cache/atrium/anchors/bin, or ATRIUM_ANCHORS); skipped,
 * with a line saying so, when kube-apiserver is not built there (`npm run bench -- kube` builds it).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RestClient } from '../src/client/rest-client.js';

const here = dirname(fileURLToPath(import.meta.url)); // dist/bench
const scripts = resolve(here, '..', '..', 'bench', 'kube');

export interface ApplyTimes {
  /** Per app, from its first apply sent to its last one answered, ms. */
  perApp: number[];
  /** From the first apply sent to the last one answered, ms. */
  totalMs: number;
}

/**
 * Starts kube-apiserver, runs `applyAll` against it (a client of its admin kubeconfig), and stops it; undefined when
 * the binaries are not built.
 */
export async function applyToKubeApiserver(applyAll: (client: RestClient) => Promise<ApplyTimes>): Promise<ApplyTimes | undefined> {
  const bin = join(process.env.ATRIUM_ANCHORS ?? join(homedir(), '.cache', 'atrium', 'anchors'), 'bin');
  const kas = join(bin, 'kube-apiserver');
  const etcd = join(bin, 'etcd');
  if (!existsSync(kas) || !existsSync(etcd)) {
    console.log(`workloads: no kube-apiserver reference: ${kas} is not built (npm run bench -- kube builds it)`);
    return undefined;
  }
  const dir = mkdtempSync(join(tmpdir(), 'atrium-workloads-kas-'));
  console.log('workloads: reference: starting kube-apiserver v1.32.4 on etcd 3.5.16 (bench/kube/start-kube-apiserver.sh)');
  const started = spawnSync('bash', [join(scripts, 'start-kube-apiserver.sh'), dir], {
    env: { ...process.env, KUBE_APISERVER: kas, ETCD: etcd, KAS_EXTRA_ARGS: '--disable-admission-plugins=ServiceAccount' },
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  let client: RestClient | undefined;
  try {
    if (started.status !== 0) throw new Error(`start-kube-apiserver.sh failed (${started.status ?? started.signal}): ${started.stdout}`);
    client = await RestClient.fromKubeconfig(join(dir, 'admin.kubeconfig'), { userAgent: 'kubectl/v1.32.4' });
    console.log('workloads: reference: applying the same apps to kube-apiserver');
    return await applyAll(client);
  } finally {
    client?.close();
    spawnSync('bash', [join(scripts, 'stop-kube-apiserver.sh'), dir], { stdio: ['ignore', 'ignore', 'inherit'] });
    rmSync(dir, { recursive: true, force: true });
  }
}
