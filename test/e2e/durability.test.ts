/**
 * Durability and process lifecycle of `atrium start` as a real child process: every write kubectl saw acknowledged
 * survives kill -9, the restarted server continues the resourceVersion sequence, and SIGTERM shuts down promptly
 * with exit code 0 even with a watch open.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runKubectl } from '../helpers/harness.js';
import { LongRunningKubectl, kubectlJson, kubectlOk, type KubectlRunner } from './support/kubectl-run.js';

const repoRoot = resolve(fileURLToPath(import.meta.url), '../../../..');
const atriumBin = join(repoRoot, 'bin', 'atrium');

interface AtriumProcess {
  child: ChildProcess;
  url: string;
  kubeconfig: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
}

/** Starts `node bin/atrium start` on DIR with a free port and resolves once it prints where it serves. */
function startAtrium(rootDir: string): Promise<AtriumProcess> {
  const child = spawn(process.execPath, [atriumBin, 'start', '--root-dir', rootDir, '--secure-port', '0'], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ATRIUM_LOG_LEVEL: 'warn' },
  });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on('exit', (code, signal) => r({ code, signal })));
  return new Promise((resolveStart, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`atrium did not report serving within 30s\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, 30_000);
    child.stderr!.on('data', (d) => (stderr += d));
    child.stdout!.on('data', (d) => {
      stdout += d;
      const m = /atrium is serving at (https:\/\/\S+); point kubectl at it with: export KUBECONFIG=(\S+)\n/.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolveStart({ child, url: m[1]!, kubeconfig: m[2]!, exited, output: () => `stdout: ${stdout}\nstderr: ${stderr}` });
      }
    });
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`atrium exited (${code ?? signal}) before serving\nstdout: ${stdout}\nstderr: ${stderr}`));
    });
  });
}

function runnerFor(kubeconfig: string): KubectlRunner {
  return { kubectl: (args, opts) => runKubectl(kubeconfig, args, opts) };
}

const started: ChildProcess[] = [];
const rootDirs: string[] = [];
after(() => {
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of rootDirs) rmSync(d, { recursive: true, force: true });
});

function newRootDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'atrium-e2e-durable-'));
  rootDirs.push(d);
  return d;
}

test('every acknowledged write survives kill -9, and the resourceVersion sequence continues after restart', async () => {
  const rootDir = newRootDir();
  const first = await startAtrium(rootDir);
  started.push(first.child);
  assert.equal(first.kubeconfig, join(rootDir, 'admin.kubeconfig'));
  assert.ok(existsSync(first.kubeconfig));
  const k1 = runnerFor(first.kubeconfig);

  await kubectlOk(k1, ['create', 'namespace', 'durable']);
  const acknowledged = new Map<string, { uid: string; resourceVersion: string; data: Record<string, string> }>();
  for (let i = 0; i < 12; i++) {
    const name = `cm-${i}`;
    const obj = JSON.parse(await kubectlOk(k1, ['create', 'configmap', name, '-n', 'durable', `--from-literal=index=${i}`, '-o', 'json']));
    acknowledged.set(name, { uid: obj.metadata.uid, resourceVersion: obj.metadata.resourceVersion, data: obj.data });
  }
  // Updates and deletes must be durable as well, not just creates.
  const patched = JSON.parse(await kubectlOk(k1, ['patch', 'configmap', 'cm-3', '-n', 'durable', '--type=merge', '-p', '{"data":{"index":"patched"}}', '-o', 'json']));
  acknowledged.set('cm-3', { uid: patched.metadata.uid, resourceVersion: patched.metadata.resourceVersion, data: patched.data });
  await kubectlOk(k1, ['delete', 'configmap', 'cm-7', '-n', 'durable']);
  acknowledged.delete('cm-7');
  await kubectlOk(k1, ['create', 'secret', 'generic', 'kept', '-n', 'durable', '--from-literal=a=b']);
  // kubectl's own -o json List has no resourceVersion; the raw list carries the server's.
  const listRv = Number(JSON.parse(await kubectlOk(k1, ['get', '--raw', '/api/v1/namespaces/durable/configmaps'])).metadata.resourceVersion);
  assert.ok(listRv > 0);

  first.child.kill('SIGKILL');
  const killed = await first.exited;
  assert.equal(killed.signal, 'SIGKILL');

  const second = await startAtrium(rootDir);
  started.push(second.child);
  assert.notEqual(second.url, first.url, 'port 0 picks a new port, and the kubeconfig is rewritten for it');
  const k2 = runnerFor(second.kubeconfig);

  const list = await kubectlJson(k2, ['get', 'configmaps', '-n', 'durable']);
  // kube-root-ca.crt is the root CA publisher's (the real server runs its controllers), not one of our writes.
  const survived = new Map<string, any>(list.items.filter((i: any) => i.metadata.name !== 'kube-root-ca.crt').map((i: any) => [i.metadata.name, i]));
  assert.deepEqual([...survived.keys()].sort(), [...acknowledged.keys()].sort());
  let maxRv = 0;
  for (const [name, want] of acknowledged) {
    const got = survived.get(name);
    assert.equal(got.metadata.uid, want.uid, `${name} uid`);
    assert.equal(got.metadata.resourceVersion, want.resourceVersion, `${name} resourceVersion`);
    assert.deepEqual(got.data, want.data, `${name} data`);
    maxRv = Math.max(maxRv, Number(want.resourceVersion));
  }
  assert.equal((await kubectlJson(k2, ['get', 'secret', 'kept', '-n', 'durable'])).data.a, Buffer.from('b').toString('base64'));
  assert.equal((await kubectlJson(k2, ['get', 'namespace', 'durable'])).status.phase, 'Active');
  const fresh = JSON.parse(await kubectlOk(k2, ['create', 'configmap', 'after-restart', '-n', 'durable', '-o', 'json']));
  assert.ok(Number(fresh.metadata.resourceVersion) > maxRv, `new write RV ${fresh.metadata.resourceVersion} must exceed ${maxRv}`);
  assert.ok(Number(fresh.metadata.resourceVersion) > listRv, `new write RV ${fresh.metadata.resourceVersion} must exceed the list RV ${listRv}`);

  second.child.kill('SIGTERM');
  const stopped = await second.exited;
  assert.equal(stopped.code, 0, second.output());
});

test('SIGTERM shuts down promptly with exit code 0, even with a watch open', async () => {
  const rootDir = newRootDir();
  const server = await startAtrium(rootDir);
  started.push(server.child);
  const k = runnerFor(server.kubeconfig);
  await kubectlOk(k, ['create', 'configmap', 'watched', '-n', 'default']);
  const watch = new LongRunningKubectl(server.kubeconfig, ['get', 'configmaps', '-n', 'default', '-w', '--request-timeout=60s']);
  try {
    await watch.until(/^watched\s/m);
    const signalled = Date.now();
    server.child.kill('SIGTERM');
    const { code } = await server.exited;
    const tookMs = Date.now() - signalled;
    assert.equal(code, 0, server.output());
    assert.ok(tookMs < 5_000, `shutdown took ${tookMs}ms`);
    // The open watch ends with the server instead of hanging.
    const ended = await Promise.race([watch.exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 10_000))]);
    assert.ok(ended, 'kubectl get -w must end when the server goes away');
  } finally {
    await watch.stop();
  }
  // The data is still there for the next start.
  const again = await startAtrium(rootDir);
  started.push(again.child);
  assert.equal(await kubectlOk(runnerFor(again.kubeconfig), ['get', 'configmap', 'watched', '-n', 'default', '-o', 'name']), 'configmap/watched\n');
  again.child.kill('SIGTERM');
  assert.equal((await again.exited).code, 0);
});
