/**
 * Debugging pods on `atrium pcluster` with the real kubectl 1.32 (issue #14 part A): logs with every PodLogOptions
 * option (follow ending on deletion, previous after a restart), exec with the exit code propagated and with a TTY
 * driven through a pseudo-terminal, attach (exec and attach over WebSocket and over SPDY/3.1), port-forward carrying HTTP (to a pod and through a Service), `kubectl cp`
 * of 10 MB both ways, and `kubectl top pods|nodes`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubectlPath, pluginBinDir, runKubectl } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { Proc } from '../helpers/processes.js';
import { logOverWebSocket, logText } from '../helpers/log-websocket.js';

let pcluster: Proc;
let rootDir: string;
let kubeconfig: string;
const kubectl = (args: string[], opts?: { input?: string; timeoutMs?: number; env?: Record<string, string> }) => runKubectl(kubeconfig, args, opts);
async function ok(args: string[], opts?: { input?: string }): Promise<string> {
  const r = await kubectl(args, opts);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** A kubectl that keeps running (port-forward, attach, logs -f), with its output as it arrives. */
function startKubectl(args: string[], env: Record<string, string> = {}): { child: ChildProcess; out: () => string } {
  const child = spawn(kubectlPath(), ['--kubeconfig', kubeconfig, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let out = '';
  child.stdout!.on('data', (b) => (out += b));
  child.stderr!.on('data', (b) => (out += b));
  return { child, out: () => out };
}

const stopped = (c: ChildProcess) => new Promise<number | null>((r) => (c.exitCode !== null ? r(c.exitCode) : c.once('exit', (code) => r(code))));

function httpGet(port: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path }, (res) => {
      let body = '';
      res.on('data', (b) => (body += b));
      res.on('end', () => resolve(body));
    }).on('error', reject);
  });
}

const podYaml = (name: string, extra = '') => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  annotations:
    sim.atrium.io/cpu-utilization: "50"
spec:
  containers:
  - name: web
    image: nginx:1.27
    ports: [{containerPort: 8080}]
    resources: {requests: {cpu: 200m, memory: 100Mi}}
    readinessProbe: {httpGet: {port: 8080, path: /healthz}}
    env:
    - {name: GREETING, value: hello}
    - {name: MY_POD, valueFrom: {fieldRef: {fieldPath: metadata.name}}}
${extra}`;

before(async () => {
  rootDir = mkdtempSync(join(tmpdir(), 'atrium-pcluster-debug-'));
  kubeconfig = join(rootDir, 'admin.kubeconfig');
  pcluster = new Proc(
    'pcluster debug',
    () => [join(pluginBinDir, 'atrium'), 'pcluster', '--name', 'dbg', '--root-dir', rootDir, '--ready-delay', '200ms', '--container-log-interval', '300ms', '--job-duration', '1500ms'],
    (out) => out.includes('is serving at') && existsSync(kubeconfig),
  );
  await pcluster.start(20_000);
  await ok(['apply', '-f', '-'], {
    input: `${podYaml('web')}---
${podYaml('duo')}  - name: side
    image: busybox
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`,
  });
  await ok(['label', 'pod', 'web', 'app=web']);
  await ok(['wait', '--for=condition=Ready', 'pod/web', 'pod/duo', '--timeout=30s']);
});

after(async () => {
  await pcluster?.kill('SIGTERM');
  rmSync(rootDir, { recursive: true, force: true });
});

describe('kubectl logs against atrium pcluster', () => {
  it('prints the start-up lines, probe lines and heartbeats, with every PodLogOptions option', async () => {
    const all = await eventually('a few heartbeats', async () => {
      const out = await ok(['logs', 'web']);
      return (out.match(/heartbeat/g) ?? []).length >= 2 ? out : undefined;
    }, 15_000, 200);
    const lines = all.trimEnd().split('\n');
    assert.match(lines[0]!, /^\[atrium-sim\] starting container web \(image nginx:1\.27\) of pod default\/web on node dbg-node-1 in cluster dbg$/);
    assert.ok(lines.includes('[atrium-sim] listening on port 8080/TCP (simulated HTTP responder)'));
    assert.ok(lines.some((l) => l === '[atrium-sim] readiness probe httpGet :8080/healthz: succeeded'));

    const stamped = (await ok(['logs', 'web', '--timestamps', '--tail=3'])).trimEnd().split('\n');
    assert.equal(stamped.length, 3);
    for (const l of stamped) assert.match(l, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z \[atrium-sim\] /);

    assert.equal((await ok(['logs', 'web', '--tail=2'])).trimEnd().split('\n').length, 2);
    assert.equal(await ok(['logs', 'web', '--limit-bytes=12']), '[atrium-sim]');
    assert.match(await ok(['logs', 'web', '--since=1h']), /starting container web/);
    assert.equal(await ok(['logs', 'web', `--since-time=${new Date(Date.now() + 3_600_000).toISOString()}`]), '');
    const recent = await ok(['logs', 'web', '--since=1s']);
    assert.doesNotMatch(recent, /starting container/);
  });

  it('chooses containers as upstream: -c, the default with a notice, and the API server message without one', async () => {
    assert.match(await ok(['logs', 'duo', '-c', 'side']), /starting container side \(image busybox\)/);
    const r = await kubectl(['logs', 'duo']);
    assert.equal(r.code, 0);
    assert.match(r.stderr, /Defaulted container "web" out of: web, side/);
    const raw = await kubectl(['get', '--raw', '/api/v1/namespaces/default/pods/duo/log']);
    assert.notEqual(raw.code, 0);
    assert.match(raw.stderr, /a container name must be specified for pod duo, choose one of: \[web side\]/);
    const bad = await kubectl(['logs', 'duo', '-c', 'nope']);
    assert.match(bad.stderr, /container nope is not valid for pod duo/);
    const tail = await kubectl(['get', '--raw', '/api/v1/namespaces/default/pods/web/log?tailLines=-1']);
    assert.match(tail.stderr, /PodLogOptions "web" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0/);
    const prev = await kubectl(['logs', 'web', '--previous']);
    assert.match(prev.stderr, /previous terminated container "web" in pod "web" not found/);
  });

  it('serves the log over WebSocket as kube-apiserver: binary.k8s.io, base64.binary.k8s.io, none, follow, errors', async () => {
    // The container writes heartbeats all the time: what came over the WebSocket is 3 lines of the whole log.
    const isTail = async (text: string) => {
      const lines = text.split('\n');
      assert.equal(lines.pop(), '', `ends with a newline: ${JSON.stringify(text)}`);
      assert.equal(lines.length, 3);
      const all = (await ok(['logs', 'web'])).split('\n');
      assert.ok(all.join('\n').includes(lines.join('\n')), `${text} is in the log`);
    };
    const path = '/api/v1/namespaces/default/pods/web/log?container=web&tailLines=3';
    const binary = await logOverWebSocket(kubeconfig, path, ['binary.k8s.io']);
    assert.equal(binary.protocol, 'binary.k8s.io');
    // wsstream.Reader's ping (an empty message) first, then the log; the server closes normally at its end.
    assert.deepEqual(binary.messages[0], { binary: true, data: Buffer.alloc(0) });
    assert.ok(binary.messages.every((m) => m.binary && m.data.length <= 2048));
    await isTail(logText(binary));
    assert.equal(binary.closeCode, 1000);
    const base64 = await logOverWebSocket(kubeconfig, path, ['base64.binary.k8s.io']);
    assert.equal(base64.protocol, 'base64.binary.k8s.io');
    assert.ok(base64.messages.every((m) => !m.binary));
    await isTail(logText(base64));
    const none = await logOverWebSocket(kubeconfig, path, []);
    assert.ok(none.messages.every((m) => m.binary));
    await isTail(logText(none));
    // follow: new lines keep coming until the client closes.
    const follow = await logOverWebSocket(kubeconfig, '/api/v1/namespaces/default/pods/web/log?container=web&follow=true&tailLines=0', ['binary.k8s.io'], (r) => /heartbeat/.test(logText(r)));
    assert.match(logText(follow), /heartbeat \d+: web is running\n/);
    // Errors are answered before the upgrade; a subprotocol we do not speak gets x/net/websocket's empty 403.
    const bad = await logOverWebSocket(kubeconfig, '/api/v1/namespaces/default/pods/web/log?container=nope', ['binary.k8s.io']);
    assert.equal(bad.status, 400);
    assert.match(bad.body ?? '', /container nope is not valid for pod web/);
    const unknown = await logOverWebSocket(kubeconfig, path, ['v4.channel.k8s.io']);
    assert.equal(unknown.status, 403);
  });

  it('follows new lines with -f and ends when the pod is deleted', async () => {
    await ok(['apply', '-f', '-'], { input: podYaml('follow') });
    await ok(['wait', '--for=condition=Ready', 'pod/follow', '--timeout=30s']);
    const f = startKubectl(['logs', '-f', 'follow']);
    await eventually('new heartbeats while following', async () => ((f.out().match(/heartbeat/g) ?? []).length >= 2 ? true : undefined), 15_000, 100);
    await ok(['delete', 'pod', 'follow', '--wait=false']);
    const code = await Promise.race([stopped(f.child), new Promise((r) => setTimeout(() => r('still running'), 15_000))]);
    assert.equal(code, 0, f.out());
  });

  it('keeps the previous instance after a restart for --previous', async () => {
    await ok(['apply', '-f', '-'], {
      input: `apiVersion: v1
kind: Pod
metadata:
  name: crashy
  annotations: {sim.atrium.io/exit-code: "1", sim.atrium.io/run-seconds: "1"}
spec:
  restartPolicy: OnFailure
  containers: [{name: main, image: busybox}]
`,
    });
    const previous = await eventually('a restart', async () => {
      const r = await kubectl(['logs', 'crashy', '--previous']);
      return r.code === 0 && r.stdout.includes('exited with code 1') ? r.stdout : undefined;
    }, 30_000, 300);
    assert.match(previous, /starting container main/);
    assert.match(previous, /\[atrium-sim\] container main exited with code 1 \(Error\)\n$/);
    assert.match(await ok(['logs', 'crashy']), /\[atrium-sim\] restart #\d+/);
    await ok(['delete', 'pod', 'crashy', '--wait=false']);
  });
});

describe('kubectl logs of a container whose command prints plainly', () => {
  it('shows what the command printed, and nothing of the simulator: echo and date (the CronJob tutorial), env with the kubelet\'s environment', async () => {
    await ok(['create', 'configmap', 'plain-settings', '--from-literal=mode=fast']);
    await ok(['apply', '-f', '-'], {
      input: `apiVersion: v1
kind: Pod
metadata: {name: hello-once}
spec:
  restartPolicy: Never
  containers:
  - name: hello
    image: busybox:1.28
    command: [/bin/sh, -c, date; echo Hello from the Kubernetes cluster]
---
apiVersion: v1
kind: Pod
metadata: {name: env-once}
spec:
  restartPolicy: Never
  containers:
  - name: main
    image: busybox
    command: [sh, -c, env]
    env:
    - {name: MY_POD, valueFrom: {fieldRef: {fieldPath: metadata.name}}}
    - {name: MODE, valueFrom: {configMapKeyRef: {name: plain-settings, key: mode}}}
    - {name: COMPOSED, value: "$(MODE)-$(MY_POD)"}
---
apiVersion: v1
kind: Pod
metadata: {name: hello-running}
spec:
  containers:
  - name: main
    image: busybox
    command: [sh, -c, "echo 'Hello World' ; sleep 240"]
`,
    });
    await ok(['wait', '--for=jsonpath={.status.phase}=Succeeded', 'pod/hello-once', 'pod/env-once', '--timeout=30s']);
    const hello = (await ok(['logs', 'hello-once'])).split('\n');
    assert.equal(hello.length, 3, hello.join('\n'));
    assert.match(hello[0]!, /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d UTC \d{4}$/);
    assert.equal(hello[1], 'Hello from the Kubernetes cluster');
    assert.equal(hello[2], '');
    const env = (await ok(['logs', 'env-once'])).split('\n');
    for (const want of ['MY_POD=env-once', 'MODE=fast', 'COMPOSED=fast-env-once', 'HOSTNAME=env-once']) assert.ok(env.includes(want), `${want} in:\n${env.join('\n')}`);
    assert.ok(!env.some((l) => l.includes('[atrium-sim]')), env.join('\n'));
    // Upstream's "should print the output to logs" expects exactly this of a container that keeps running.
    await ok(['wait', '--for=condition=Ready', 'pod/hello-running', '--timeout=30s']);
    await new Promise((r) => setTimeout(r, 700)); // beyond two heartbeat intervals: a heartbeat would show
    assert.equal(await ok(['logs', 'hello-running']), 'Hello World\n');
    await ok(['delete', 'pod', 'hello-once', 'env-once', 'hello-running', '--wait=false']);
  });
});

describe('a Job whose script exits as it says (the website\'s podFailurePolicy example)', () => {
  it('fails the Job by the FailJob rule on the exit code its script ends with, after its sleep, with its output logged', async () => {
    await ok(['apply', '-f', '-'], {
      input: `apiVersion: batch/v1
kind: Job
metadata: {name: pfp-example}
spec:
  completions: 2
  parallelism: 1
  backoffLimit: 6
  podFailurePolicy:
    rules:
    - action: FailJob
      onExitCodes: {containerName: main, operator: In, values: [42]}
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: docker.io/library/bash:5
        command: [bash]
        args: [-c, echo "Hello world!" && sleep 2 && exit 42]
`,
    });
    const started = Date.now();
    await ok(['wait', '--for=condition=Failed', 'job/pfp-example', '--timeout=60s']);
    assert.ok(Date.now() - started >= 2000, 'the pod ran its 2 s sleep before exiting');
    const job = JSON.parse(await ok(['get', 'job', 'pfp-example', '-o', 'json']));
    const failed = job.status.conditions.find((c: { type: string }) => c.type === 'Failed');
    assert.equal(failed.reason, 'PodFailurePolicy');
    assert.match(failed.message, /^Container main for pod default\/pfp-example-\w+ failed with exit code 42 matching FailJob rule at index 0$/);
    assert.equal(await ok(['logs', 'job/pfp-example']), 'Hello world!\n');
    await ok(['delete', 'job', 'pfp-example', '--wait=false']);
  });
});

describe('kubectl exec, attach and cp against atrium pcluster', () => {
  it('runs a command with the container environment and propagates its exit code', async () => {
    const out = await ok(['exec', 'web', '--', 'sh', '-c', 'echo "$GREETING from $MY_POD"; echo oops >&2']);
    assert.equal(out, 'hello from web\n');
    const r = await kubectl(['exec', 'web', '--', 'sh', '-c', 'exit 3']);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /command terminated with exit code 3/);
    const missing = await kubectl(['exec', 'web', '--', 'no-such-program']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /executable file not found in \$PATH/);
    const stdin = await ok(['exec', '-i', 'web', '--', 'wc', '-c'], { input: 'twelve bytes' });
    assert.equal(stdin.trim(), '12');
  });

  it('gives exec -it a terminal, driven through a pseudo-terminal', () => {
    // util-linux `script` gives kubectl a pty of its own, as a user's terminal would.
    const r = spawnSync('script', ['-qfec', `${kubectlPath()} --kubeconfig ${kubeconfig} exec -it web -- sh -c 'tty && echo "in $HOSTNAME"; exit 4'`, '/dev/null'], { encoding: 'utf8', timeout: 30_000, input: '' });
    assert.equal(r.status, 4, r.stdout + r.stderr);
    assert.match(r.stdout, /\/dev\/pts\/\d+\r?\n/);
    assert.match(r.stdout, /in web/);
  });

  it('attaches to the main process: its new log lines, with stdin echoed into them', async () => {
    const a = startKubectl(['attach', '-i', 'web']);
    await eventually('attached output', async () => (a.out().includes('heartbeat') ? true : undefined), 15_000, 100);
    a.child.stdin!.write('hello main process\n');
    await eventually('stdin echoed', async () => (a.out().includes('[stdin] hello main process') ? true : undefined), 15_000, 100);
    a.child.kill('SIGTERM');
    await stopped(a.child);
    assert.match(await ok(['logs', 'web']), /\[stdin\] hello main process/);
  });

  it('copies a 10 MB file into the pod and back with kubectl cp', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'atrium-cp-'));
    try {
      const data = randomBytes(10 * 1024 * 1024);
      writeFileSync(join(dir, 'big.bin'), data);
      const sum = (b: Buffer) => createHash('sha256').update(b).digest('hex');
      // Paths in the pod are relative to the container's working directory (exec runs local processes).
      const up = await kubectl(['cp', join(dir, 'big.bin'), 'web:big.bin'], { timeoutMs: 120_000 });
      assert.equal(up.code, 0, up.stderr);
      assert.equal((await ok(['exec', 'web', '--', 'sha256sum', 'big.bin'])).split(' ')[0], sum(data));
      const down = await kubectl(['cp', 'web:big.bin', join(dir, 'back.bin')], { timeoutMs: 120_000 });
      assert.equal(down.code, 0, down.stderr);
      assert.equal(sum(readFileSync(join(dir, 'back.bin'))), sum(data));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// client-go's SPDY executor (remotecommand.NewSPDYExecutor: older kubectl, upstream's e2e framework, operators); kubectl
// 1.32 uses it when its WebSocket executor is turned off.
describe('kubectl exec and attach over SPDY/3.1 against atrium pcluster', () => {
  const spdy = { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' };

  it('negotiates v4.channel.k8s.io in a SPDY/3.1 upgrade', async () => {
    const r = await kubectl(['exec', '-v=8', 'web', '--', 'true'], { env: spdy });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /POST https:\/\/[^ ]+\/api\/v1\/namespaces\/default\/pods\/web\/exec\?/);
    // kubectl offers v5 too, which kubelet serves over WebSocket only.
    assert.match(r.stderr, /Response Status: 101 Switching Protocols[^]*Response Headers:[^]*X-Stream-Protocol-Version: v4\.channel\.k8s\.io/);
  });

  it('runs a command: stdout and stderr apart, the exit code, a missing program, stdin', async () => {
    const out = await kubectl(['exec', 'web', '--', 'sh', '-c', 'echo "$GREETING from $MY_POD"; echo oops >&2'], { env: spdy });
    assert.equal(out.code, 0, out.stderr);
    assert.equal(out.stdout, 'hello from web\n');
    assert.equal(out.stderr, 'oops\n');
    const r = await kubectl(['exec', 'web', '--', 'sh', '-c', 'echo partial; exit 3'], { env: spdy });
    assert.equal(r.code, 3, r.stderr);
    assert.equal(r.stdout, 'partial\n');
    assert.match(r.stderr, /command terminated with exit code 3/);
    const missing = await kubectl(['exec', 'web', '--', 'no-such-program'], { env: spdy });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /executable file not found in \$PATH/);
    const stdin = await kubectl(['exec', '-i', 'web', '--', 'wc', '-c'], { input: 'twelve bytes', env: spdy });
    assert.equal(stdin.code, 0, stdin.stderr);
    assert.equal(stdin.stdout.trim(), '12');
    const big = randomBytes(2 * 1024 * 1024).toString('base64');
    const cat = await kubectl(['exec', '-i', 'web', '--', 'sha256sum'], { input: big, env: spdy, timeoutMs: 60_000 });
    assert.equal(cat.stdout.split(' ')[0], createHash('sha256').update(big).digest('hex'));
  });

  it('gives exec -it a terminal (with a resize stream)', () => {
    const r = spawnSync('script', ['-qfec', `${kubectlPath()} --kubeconfig ${kubeconfig} exec -it web -- sh -c 'tty && echo "in $HOSTNAME"; exit 4'`, '/dev/null'], {
      encoding: 'utf8',
      timeout: 30_000,
      input: '',
      env: { ...process.env, ...spdy },
    });
    assert.equal(r.status, 4, r.stdout + r.stderr);
    assert.match(r.stdout, /\/dev\/pts\/\d+\r?\n/);
    assert.match(r.stdout, /in web/);
  });

  it('attaches to the main process, with stdin echoed', async () => {
    const a = startKubectl(['attach', '-i', 'web'], spdy);
    await eventually('attached output', async () => (a.out().includes('heartbeat') ? true : undefined), 15_000, 100);
    a.child.stdin!.write('hello over spdy\n');
    await eventually('stdin echoed', async () => (a.out().includes('[stdin] hello over spdy') ? true : undefined), 15_000, 100);
    a.child.kill('SIGTERM');
    await stopped(a.child);
  });
});

describe('kubectl port-forward and top against atrium pcluster', () => {
  // kubectl 1.32 tunnels SPDY in a WebSocket; with the WebSocket off it falls back to a plain SPDY/3.1 upgrade.
  for (const [target, websocket] of [['pod/web', 'true'], ['svc/web', 'true'], ['pod/web', 'false']] as const) {
    it(`forwards HTTP to the container's port (${target}, ${websocket === 'true' ? 'SPDY in WebSocket' : 'SPDY'})`, async () => {
      const pf = startKubectl(['port-forward', target, target === 'svc/web' ? ':80' : ':8080'], { KUBECTL_PORT_FORWARD_WEBSOCKETS: websocket });
      try {
        const port = await eventually('forwarding', async () => {
          const m = /Forwarding from 127\.0\.0\.1:(\d+)/.exec(pf.out());
          return m ? Number(m[1]) : undefined;
        }, 15_000, 100);
        for (const path of ['/one', '/two/three']) {
          assert.equal(await httpGet(port, path), `pod default/web container web cluster dbg port 8080: GET ${path}\n`);
        }
      } finally {
        pf.child.kill('SIGTERM');
        await stopped(pf.child);
      }
    });
  }

  it('shows pod and node usage with kubectl top from metrics.k8s.io', async () => {
    const pods = await ok(['top', 'pods']);
    assert.match(pods, /^NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)/);
    // web: 50% of a 200m request; memory 30% (the default) of 100Mi.
    assert.match(pods, /\nweb\s+100m\s+30Mi/);
    const containers = await ok(['top', 'pods', 'duo', '--containers']);
    assert.match(containers, /duo\s+side\s+/);
    const nodes = await ok(['top', 'nodes']);
    assert.match(nodes, /^NAME\s+CPU\(cores\)\s+CPU\(%\)\s+MEMORY\(bytes\)\s+MEMORY\(%\)/);
    assert.match(nodes, /\ndbg-node-1\s+\d+m\s+\d+%/);
  });
});
