/**
 * Debugging a workspace's pods on their clusters with the real kubectl 1.32: logs (and its options), exec with and
 * without a terminal, exec and attach over SPDY/3.1 as well as WebSocket, logs over WebSocket, attach, port-forward and
 * cp of 10 MB both ways reach the pod on its simulated cluster through
 * atrium — in push mode (atrium dials the cluster) and in none mode (the syncer runs as its own process and the
 * streams go through its tunnel). RBAC is the workspace's; a killed syncer ends its streams with a clear error and,
 * once it is back, new streams work.
 */
import { after, before, describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFleet, type InProcessFleet } from '../helpers/fleet.js';
import { eventually } from '../helpers/eventually.js';
import { kubectlPath, runKubectl, writeTokenKubeconfig } from '../helpers/harness.js';
import { logOverWebSocket, logText } from '../helpers/log-websocket.js';

const podsGVR = { group: '', version: 'v1', resource: 'pods' };
const modes = [
  { mode: 'push', cluster: 'dbg-push' },
  { mode: 'none', cluster: 'dbg-none' },
] as const;

describe('kubectl logs, exec, attach, port-forward and cp in a workspace reach the pod on its cluster', () => {
  let fleet: InProcessFleet;
  let dir: string;
  let bob: string;
  /** Whether the simulated clusters serve the pod streams themselves (they answer 404 for pods/log otherwise). */
  let clustersServeStreams = false;
  const kubectl = (args: string[], opts: { input?: string; timeoutMs?: number; env?: Record<string, string> } = {}) => runKubectl(fleet.kubeconfig, args, opts);
  const needsStreams = (t: TestContext) => {
    if (!clustersServeStreams) t.skip('the simulated clusters do not serve pod streams in this build');
    return !clustersServeStreams;
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'atrium-debug-streams-'));
    const tokens = join(dir, 'tokens.csv');
    writeFileSync(tokens, 'bob-token,bob,bob-uid,""\n');
    fleet = await startFleet({
      name: 'debug-streams',
      clusters: modes.map((m) => m.cluster),
      register: false,
      server: { tokenAuthFile: tokens },
      multicluster: { heartbeatThresholdMs: 5000, pushSyncer: { heartbeatIntervalMs: 500, importPollIntervalMs: 500 } },
      syncer: { heartbeatInterval: '500ms', importPollInterval: '500ms' },
    });
    for (const m of modes) await fleet.register(m.cluster, { mode: m.mode });
    await fleet.waitReady(undefined, { resources: ['pods'], timeoutMs: 60_000 });
    bob = writeTokenKubeconfig(fleet.atrium, dir, 'bob', 'bob-token');
    for (const m of modes) {
      const pod = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `web-${m.mode}`, namespace: 'default', labels: { 'workload.kcp.io/cluster': m.cluster, app: 'web' } },
        spec: {
          containers: [
            { name: 'web', image: 'nginx', ports: [{ containerPort: 8080 }], stdin: true },
            { name: 'side', image: 'busybox' },
          ],
        },
      };
      await fleet.up.create(podsGVR, pod, { namespace: 'default' });
    }
    for (const m of modes) {
      await eventually(`web-${m.mode} running upstream`, async () => ((await fleet.up.get(podsGVR, `web-${m.mode}`, { namespace: 'default' })) as { status?: { phase?: string } }).status?.phase === 'Running', 60_000);
    }
    const probe = await kubectl(['logs', 'web-push', '-c', 'web']);
    clustersServeStreams = !/could not find the requested resource/.test(probe.stderr);
  });

  after(async () => {
    await fleet?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers a pod that runs nowhere as kube-apiserver answers a pod without a node', async () => {
    await fleet.up.create(podsGVR, { metadata: { name: 'nowhere', namespace: 'default', labels: { 'workload.kcp.io/cluster': 'no-such-cluster' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } }, { namespace: 'default' });
    const logs = await kubectl(['logs', 'nowhere']);
    assert.notEqual(logs.code, 0);
    assert.match(logs.stderr, /Error from server \(BadRequest\): pod nowhere does not have a host assigned/);
    const exec = await kubectl(['exec', 'nowhere', '--', 'true']);
    assert.match(exec.stderr, /pod nowhere does not have a host assigned/);
  });

  it('checks RBAC in the workspace: pods/log for logs, pods/exec for exec', async () => {
    await kubectl(['create', 'role', 'log-reader', '--verb=get,list', '--resource=pods,pods/log']);
    await kubectl(['create', 'rolebinding', 'bob-log-reader', '--role=log-reader', '--user=bob']);
    await eventually('bob may get pods', async () => (await runKubectl(bob, ['get', 'pod', 'web-push'])).code === 0);
    const exec = await runKubectl(bob, ['exec', 'web-push', '-c', 'web', '--', 'echo', 'hi']);
    assert.notEqual(exec.code, 0);
    // WebSocket first (a GET: verb get), then kubectl's SPDY fallback (a POST: verb create); both refused.
    assert.match(exec.stderr, /Error from server \(Forbidden\): pods "web-push" is forbidden: User "bob" cannot (get|create) resource "pods\/exec" in API group "" in the namespace "default"/);
    const logs = await runKubectl(bob, ['logs', 'web-push', '-c', 'web']);
    assert.doesNotMatch(logs.stderr, /forbidden/);
  });

  for (const m of modes) {
    describe(`${m.mode} mode`, () => {
      const pod = `web-${m.mode}`;

      it('logs: -c, --all-containers, --tail, --timestamps, --since, --previous', async (t) => {
        if (needsStreams(t)) return;
        const web = await kubectl(['logs', pod, '-c', 'web']);
        assert.equal(web.code, 0, web.stderr);
        assert.ok(web.stdout.trim().length > 0, 'the container has log lines');
        // The container keeps writing (a heartbeat every few seconds), so a later read may end later: the last line
        // is the earlier read's last line or one written since, and a later whole log begins with the earlier one.
        const tail = await kubectl(['logs', pod, '-c', 'web', '--tail=1']);
        assert.equal(tail.stdout.trim().split('\n').length, 1);
        const webLines = web.stdout.trim().split('\n');
        const laterLines = (await kubectl(['logs', pod, '-c', 'web'])).stdout.trim().split('\n');
        assert.ok(laterLines.lastIndexOf(tail.stdout.trim()) >= webLines.length - 1, `--tail=1 gave ${tail.stdout.trim()}, not the last line of ${web.stdout}`);
        const ts = await kubectl(['logs', pod, '-c', 'web', '--timestamps', '--tail=2']);
        for (const line of ts.stdout.trim().split('\n')) assert.match(line, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z /);
        const since = await kubectl(['logs', pod, '-c', 'web', '--since=1h']);
        assert.ok(since.stdout.startsWith(web.stdout), `--since=1h:\n${since.stdout}\nfrom the start:\n${web.stdout}`);
        const all = await kubectl(['logs', pod, '--all-containers']);
        assert.equal(all.code, 0, all.stderr);
        assert.ok(all.stdout.length > web.stdout.length, 'both containers are in --all-containers');
        const previous = await kubectl(['logs', pod, '-c', 'web', '--previous']);
        assert.notEqual(previous.code, 0);
        assert.match(previous.stderr, /previous terminated container "web" in pod "web-/);
      });

      it('logs over WebSocket (binary.k8s.io and base64.binary.k8s.io), as upstream e2e reads them', async (t) => {
        if (needsStreams(t)) return;
        for (const protocol of ['binary.k8s.io', 'base64.binary.k8s.io']) {
          const r = await logOverWebSocket(fleet.kubeconfig, `/api/v1/namespaces/default/pods/${pod}/log?container=web&tailLines=2`, [protocol]);
          assert.equal(r.status, undefined, r.body);
          assert.equal(r.protocol, protocol);
          // Two whole lines of the container's log (which may have grown since).
          const text = logText(r);
          assert.match(text, /^[^\n]+\n[^\n]+\n$/);
          assert.ok((await kubectl(['logs', pod, '-c', 'web'])).stdout.includes(text), text);
          assert.equal(r.closeCode, 1000);
        }
      });

      it('exec without a terminal: output, stdin and the exit code', async (t) => {
        if (needsStreams(t)) return;
        const echo = await kubectl(['exec', pod, '-c', 'web', '--', 'echo', 'hello from', m.mode]);
        assert.equal(echo.code, 0, echo.stderr);
        assert.equal(echo.stdout, `hello from ${m.mode}\n`);
        const cat = await kubectl(['exec', '-i', pod, '-c', 'web', '--', 'cat'], { input: 'piped through\n' });
        assert.equal(cat.stdout, 'piped through\n');
        const fail = await kubectl(['exec', pod, '-c', 'web', '--', 'sh', '-c', 'exit 3']);
        assert.equal(fail.code, 3);
      });

      it('exec and attach over SPDY/3.1 (client-go SPDY executor): output, stdin, the exit code', async (t) => {
        if (needsStreams(t)) return;
        const env = { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' };
        const echo = await kubectl(['exec', pod, '-c', 'web', '--', 'sh', '-c', `echo spdy ${m.mode}; echo to-stderr >&2`], { env });
        assert.equal(echo.code, 0, echo.stderr);
        assert.equal(echo.stdout, `spdy ${m.mode}\n`);
        assert.equal(echo.stderr, 'to-stderr\n');
        const cat = await kubectl(['exec', '-i', pod, '-c', 'web', '--', 'cat'], { input: 'piped over spdy\n', env });
        assert.equal(cat.stdout, 'piped over spdy\n', cat.stderr);
        const fail = await kubectl(['exec', pod, '-c', 'web', '--', 'sh', '-c', 'exit 3'], { env });
        assert.equal(fail.code, 3, fail.stderr);
        // The container has stdin (not stdinOnce): the end of the client's input detaches it, kubectl exits 0.
        const attach = await kubectl(['attach', '-i', pod, '-c', 'web'], { input: `spdy-typed-${m.mode}\n`, env });
        assert.equal(attach.code, 0, attach.stderr);
        assert.match((await kubectl(['logs', pod, '-c', 'web'])).stdout, new RegExp(`\\[stdin\\] spdy-typed-${m.mode}`));
      });

      it('exec -it: a terminal', async (t) => {
        if (needsStreams(t)) return;
        // `script` gives kubectl a pseudo-terminal, as a user's shell would.
        const cmd = [kubectlPath(), '--kubeconfig', fleet.kubeconfig, 'exec', '-it', pod, '-c', 'web', '--', 'sh', '-c', 'test -t 0 && echo has-a-tty'].map((a) => `'${a}'`).join(' ');
        const r = await run('script', ['-qfec', cmd, '/dev/null']);
        assert.match(r.stdout, /has-a-tty/, r.stderr);
      });

      it('attach: the main process output, and stdin echoed', async (t) => {
        if (needsStreams(t)) return;
        const child = spawn(kubectlPath(), ['--kubeconfig', fleet.kubeconfig, 'attach', '-i', pod, '-c', 'web'], { stdio: 'pipe' });
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.stderr.on('data', (d) => (out += d));
        try {
          await eventually('attached', async () => {
            child.stdin.write(`typed-${m.mode}\n`);
            return out.includes(`typed-${m.mode}`);
          }, 20_000, 1000);
        } finally {
          child.kill('SIGKILL');
        }
      });

      it('port-forward carries HTTP requests to the container port', async (t) => {
        if (needsStreams(t)) return;
        const child = spawn(kubectlPath(), ['--kubeconfig', fleet.kubeconfig, 'port-forward', `pod/${pod}`, ':8080', '--address', '127.0.0.1'], { stdio: 'pipe' });
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.stderr.on('data', (d) => (out += d));
        try {
          const port = await eventually('forwarding', () => /Forwarding from 127\.0\.0\.1:(\d+)/.exec(out)?.[1], 20_000);
          for (let i = 0; i < 3; i++) {
            const res = await httpGet(Number(port), `/request-${i}`).catch((err: Error) => {
              throw new Error(`${err.message}; kubectl port-forward said: ${out}`);
            });
            assert.equal(res.status, 200, `${res.body}\n${out}`);
          }
        } finally {
          child.kill('SIGINT');
        }
      });

      it('cp: 10 MB into the container and back', async (t) => {
        if (needsStreams(t)) return;
        const local = join(dir, `big-${m.mode}`);
        const data = randomBytes(10 * 1024 * 1024);
        writeFileSync(local, data);
        const put = await kubectl(['cp', local, `${pod}:big.bin`, '-c', 'web'], { timeoutMs: 120_000 });
        assert.equal(put.code, 0, put.stderr);
        const back = join(dir, `back-${m.mode}`);
        const get = await kubectl(['cp', `${pod}:big.bin`, back, '-c', 'web'], { timeoutMs: 120_000 });
        assert.equal(get.code, 0, get.stderr);
        assert.ok(readFileSync(back).equals(data), 'the file came back unchanged');
      });
    });
  }

  it('none mode: a killed syncer ends its open streams with an error; new streams work once it is back', async () => {
    const syncer = fleet.cluster('dbg-none').syncer!;
    let exited: Promise<number | null> | undefined;
    let child: ChildProcess | undefined;
    let out = '';
    if (clustersServeStreams) {
      child = spawn(kubectlPath(), ['--kubeconfig', fleet.kubeconfig, 'exec', '-i', 'web-none', '-c', 'web', '--', 'cat'], { stdio: 'pipe' });
      child.stdout!.on('data', (d) => (out += d));
      child.stderr!.on('data', (d) => (out += d));
      exited = new Promise<number | null>((r) => child!.once('close', (code) => r(code)));
      await eventually('exec streaming', () => {
        child!.stdin!.write('ping\n');
        return out.includes('ping');
      }, 20_000, 500);
    }
    await syncer.kill('SIGKILL');
    if (exited) {
      const code = await Promise.race([exited, new Promise<string>((r) => setTimeout(() => r('still running'), 15_000))]);
      child!.kill('SIGKILL');
      assert.notEqual(code, 'still running', 'the stream ended when the tunnel dropped');
      assert.notEqual(code, 0, `kubectl exec failed: ${out}`);
    }
    const refused = await eventually('a new stream refused', async () => {
      const r = await kubectl(['exec', 'web-none', '-c', 'web', '--', 'echo', 'hi']);
      return /no tunnel from the syncer is connected/.test(r.stderr) && r;
    }, 20_000, 500);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /error dialing backend: no tunnel from the syncer is connected \(SyncTarget dbg-none in root\)/);
    await syncer.start();
    // Once the syncer has reconnected, the request reaches the cluster again (whatever the cluster answers).
    const back = await eventually('streams reach the cluster again', async () => {
      const r = await kubectl(['exec', 'web-none', '-c', 'web', '--', 'echo', 'back']);
      return !/error dialing backend/.test(r.stderr) && r;
    }, 30_000, 500);
    if (clustersServeStreams) assert.equal(back.stdout, 'back\n');
  });

  it('logs -f sees new lines and ends when the pod is deleted', async (t) => {
    if (needsStreams(t)) return;
    for (const m of modes) {
      const pod = `web-${m.mode}`;
      const child = spawn(kubectlPath(), ['--kubeconfig', fleet.kubeconfig, 'logs', '-f', pod, '-c', 'web', '--tail=0'], { stdio: 'pipe' });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      const exited = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
      // Lines the container writes after the follow started: attach's stdin is echoed into the log.
      await eventually(`a new line of ${pod}`, async () => {
        await kubectl(['attach', '-i', pod, '-c', 'web'], { input: `followed-${m.mode}\n`, timeoutMs: 5000 });
        return out.includes(`followed-${m.mode}`);
      }, 30_000, 1000);
      await fleet.up.delete(podsGVR, pod, { namespace: 'default' });
      const code = await Promise.race([exited, new Promise<string>((r) => setTimeout(() => r('still following'), 30_000))]);
      child.kill('SIGKILL');
      assert.equal(code, 0, 'logs -f ended with the pod');
    }
  });
});

function run(cmd: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child: ChildProcess = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin!.end();
  });
}

function httpGet(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
