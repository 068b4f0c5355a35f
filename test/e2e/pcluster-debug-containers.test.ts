/**
 * `kubectl debug` against `atrium pcluster` with the real kubectl 1.32: an ephemeral debug container targeting the
 * app container (running in the pod's status, shown by describe, its own log, exec in it), `kubectl debug -i` with
 * piped stdin (kubectl waits for the container to run, attaches, the simulated process echoes the lines and the
 * session ends with the input), re-attaching to it, a copy of the pod with an extra container (--copy-to), and a
 * node debugger pod (debug node/<node>, on the host's network).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pluginBinDir, runKubectl } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { Proc } from '../helpers/processes.js';

let pcluster: Proc;
let rootDir: string;
let kubeconfig: string;
const kubectl = (args: string[], opts?: { input?: string; timeoutMs?: number }) => runKubectl(kubeconfig, args, opts);
async function ok(args: string[], opts?: { input?: string; timeoutMs?: number }): Promise<string> {
  const r = await kubectl(args, opts);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}
const json = async (args: string[]) => JSON.parse(await ok([...args, '-o', 'json']));
/** What an attach printed: the echoed stdin lines, and the container's other new lines (its heartbeats, as they fall). */
function attached(out: string): { echoed: string[]; other: string[] } {
  const lines = out.split('\n').filter((l) => l !== '');
  return { echoed: lines.filter((l) => l.startsWith('[stdin] ')), other: lines.filter((l) => !l.startsWith('[stdin] ')) };
}
const ephemeralStatus = (pod: any, name: string) => (pod.status?.ephemeralContainerStatuses ?? []).find((s: any) => s.name === name);

before(async () => {
  rootDir = mkdtempSync(join(tmpdir(), 'atrium-pcluster-kdebug-'));
  kubeconfig = join(rootDir, 'admin.kubeconfig');
  pcluster = new Proc(
    'pcluster kubectl debug',
    () => [join(pluginBinDir, 'atrium'), 'pcluster', '--name', 'kdbg', '--root-dir', rootDir, '--ready-delay', '300ms', '--container-log-interval', '300ms'],
    (out) => out.includes('is serving at') && existsSync(kubeconfig),
  );
  await pcluster.start(20_000);
  await ok(['apply', '-f', '-'], {
    input: `apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  containers:
  - name: app
    image: nginx:1.27
    ports: [{containerPort: 8080}]
    env: [{name: GREETING, value: hello}]
`,
  });
  await ok(['wait', '--for=condition=Ready', 'pod/web', '--timeout=30s']);
});

after(async () => {
  await pcluster?.kill('SIGTERM');
  rmSync(rootDir, { recursive: true, force: true });
});

describe('kubectl debug against atrium pcluster', () => {
  it('adds an ephemeral container targeting the app: it runs, has its own log and takes exec', async () => {
    const before = await json(['get', 'pod', 'web']);
    const r = await kubectl(['debug', 'web', '--image=busybox', '-c', 'dbg', '--target=app']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Targeting container "app"\. If you don't see processes from this container it may be because the container runtime doesn't support this feature\./);
    const pod = await eventually('dbg running', async () => {
      const p = await json(['get', 'pod', 'web']);
      return ephemeralStatus(p, 'dbg')?.state?.running && p;
    }, 15_000, 100);
    assert.deepEqual(pod.spec.ephemeralContainers.map((c: any) => [c.name, c.image, c.targetContainerName]), [['dbg', 'busybox', 'app']]);
    const dbg = ephemeralStatus(pod, 'dbg');
    assert.deepEqual([dbg.ready, dbg.restartCount, dbg.started, dbg.lastState], [false, 0, undefined, {}]);
    assert.match(dbg.containerID, /^containerd:\/\//);
    assert.deepEqual(pod.status.conditions, before.status.conditions, 'pod readiness is untouched');
    assert.match(await ok(['get', 'pod', 'web']), /\nweb\s+1\/1\s+Running\s+0\s/);

    const described = await ok(['describe', 'pod', 'web']);
    assert.match(described, /Ephemeral Containers:\n {2}dbg:\n {4}Container ID: +containerd:\/\/[0-9a-f]+\n {4}Image: +busybox\n/);
    assert.match(described.slice(described.indexOf('Ephemeral Containers:')), /State: +Running\n +Started: .*\n +Ready: +False\n +Restart Count: +0\n/);
    assert.match(described, /Normal +Started +\S+ +kubelet +Started container dbg\n/);

    const log = await ok(['logs', 'web', '-c', 'dbg']);
    assert.match(log, /^\[atrium-sim\] starting container dbg \(image busybox\) of pod default\/web on node kdbg-node-1 in cluster kdbg\n/);
    assert.match(log, /\[atrium-sim\] ephemeral container targeting container app: running\n/);

    // The debug container's environment is its own: GREETING is app's.
    assert.equal(await ok(['exec', 'web', '-c', 'dbg', '--', 'sh', '-c', 'basename "$PWD"; echo "$HOSTNAME ${GREETING:-unset}"']), 'dbg\nweb unset\n');
    const failed = await kubectl(['exec', 'web', '-c', 'dbg', '--', 'sh', '-c', 'exit 5']);
    assert.equal(failed.code, 5, failed.stderr);
  });

  it('debug -i waits for the container to run, attaches, echoes the piped lines and returns when they are sent', async () => {
    const r = await kubectl(['debug', 'web', '-i', '--image=busybox', '-c', 'dbg2', '--', 'sh'], { input: 'echo hello\nuname -a\n', timeoutMs: 30_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /If you don't see a command prompt, try pressing enter\./);
    const out = attached(r.stdout);
    assert.deepEqual(out.echoed, ['[stdin] echo hello', '[stdin] uname -a']);
    for (const l of out.other) assert.match(l, /^\[atrium-sim\] heartbeat \d+: dbg2 is running$/);
    const pod = await json(['get', 'pod', 'web']);
    const spec = pod.spec.ephemeralContainers.find((c: any) => c.name === 'dbg2');
    assert.deepEqual([spec.command, spec.stdin, spec.tty], [['sh'], true, undefined]);
    assert.ok(ephemeralStatus(pod, 'dbg2').state.running, 'detaching leaves the container running');
    assert.deepEqual(pod.status.ephemeralContainerStatuses.map((s: any) => s.name), ['dbg', 'dbg2']);
    assert.match(await ok(['logs', 'web', '-c', 'dbg2']), /\[stdin\] echo hello\n\[stdin\] uname -a\n/);

    // kubectl's hint for a detached session: attach again.
    const again = await kubectl(['attach', 'web', '-c', 'dbg2', '-i'], { input: 'once more\n', timeoutMs: 30_000 });
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(attached(again.stdout).echoed, ['[stdin] once more']);
    for (const l of attached(again.stdout).other) assert.match(l, /^\[atrium-sim\] heartbeat \d+: dbg2 is running$/);
  });

  it('debug --copy-to makes a copy of the pod with the debug container added', async () => {
    await ok(['debug', 'web', '--copy-to=web-copy', '--image=busybox', '-c', 'dbg3', '--', 'sleep', '1d']);
    await ok(['wait', '--for=condition=Ready', 'pod/web-copy', '--timeout=30s']);
    const copy = await json(['get', 'pod', 'web-copy']);
    assert.deepEqual(copy.spec.containers.map((c: any) => [c.name, c.image, c.command ?? null]), [['app', 'nginx:1.27', null], ['dbg3', 'busybox', ['sleep', '1d']]]);
    assert.equal(copy.metadata.labels, undefined, 'kubectl drops the labels so the copy joins no Service');
    assert.match(await ok(['get', 'pod', 'web-copy']), /\nweb-copy\s+2\/2\s+Running\s/);
    assert.match(await ok(['logs', 'web-copy', '-c', 'dbg3']), /starting container dbg3 \(image busybox\) of pod default\/web-copy/);
    assert.equal((await json(['get', 'pod', 'web'])).spec.containers.length, 1, 'the original is left alone');
  });

  it('debug node/<node> runs a node debugger pod on the host network and attaches to it', async () => {
    const node = (await json(['get', 'nodes'])).items[0];
    const r = await kubectl(['debug', `node/${node.metadata.name}`, '-i', '--image=busybox', '--', 'sh'], { input: 'ls /host\n', timeoutMs: 30_000 });
    assert.equal(r.code, 0, r.stderr);
    const created = /Creating debugging pod (node-debugger-\S+) with container debugger on node kdbg-node-1\./.exec(r.stdout + r.stderr);
    assert.ok(created, r.stdout + r.stderr);
    assert.deepEqual(attached(r.stdout).echoed, ['[stdin] ls /host']);
    const pod = await json(['get', 'pod', created[1]!]);
    assert.equal(pod.spec.nodeName, node.metadata.name);
    assert.deepEqual([pod.spec.hostNetwork, pod.spec.hostPID, pod.spec.hostIPC], [true, true, true]);
    const internal = node.status.addresses.find((a: any) => a.type === 'InternalIP').address;
    assert.deepEqual([pod.status.hostIP, pod.status.podIP], [internal, internal], 'a host-network pod has the node address');
  });
});
