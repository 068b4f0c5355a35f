/**
 * `kubectl debug <pod>` (an ephemeral container) in a workspace with compute, with the real kubectl 1.32, on the two
 * kinds of pods `kubectl get pods` shows there: the MIRROR of a pod a cluster's Deployment controller made (the write
 * goes to the original on its cluster, for every user, and the mirror shows it at once), and a bare Pod SYNCED down
 * from the workspace (the write lands upstream; the syncer carries it to the cluster's copy through its
 * pods/ephemeralcontainers). Push mode (atrium dials the cluster) and none mode (through the syncer's tunnel).
 * Refusals read as on a plain cluster; what the cluster's kubelet reports of the container comes up to the
 * workspace, and attach, logs and exec reach the container there.
 */
import { after, before, describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFleet, type InProcessFleet } from '../helpers/fleet.js';
import { eventually } from '../helpers/eventually.js';
import { runKubectl, writeTokenKubeconfig } from '../helpers/harness.js';
import { StatusError } from '../../src/apimachinery/status.js';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { isMirror, mirrorSourceOf } from '../../src/multicluster/api/mirrors.js';
import { DOWNSTREAM_CLUSTER_LABEL } from '../../src/multicluster/api/types.js';

const podsGVR = { group: '', version: 'v1', resource: 'pods' };
const deployGVR = { group: 'apps', version: 'v1', resource: 'deployments' };
const NS = 'default';
const modes = [
  { mode: 'push', cluster: 'eph-push' },
  { mode: 'none', cluster: 'eph-none' },
] as const;

type Pod = KubeObject & { spec?: { ephemeralContainers?: { name: string; image?: string; targetContainerName?: string }[] }; status?: { ephemeralContainerStatuses?: { name: string; state?: Record<string, unknown> }[] } };
const ephemeralNames = (p: Pod | undefined) => (p?.spec?.ephemeralContainers ?? []).map((c) => c.name);
const statusOf = (p: Pod | undefined, name: string) => p?.status?.ephemeralContainerStatuses?.find((s) => s.name === name);

/** An invalid debug container, and the errors kube-apiserver reports for it (test/integration/pod-ephemeral-containers.test.ts). */
const badPatch = { spec: { ephemeralContainers: [{ name: 'bad', image: ' busybox', ports: [{ containerPort: 80 }], targetContainerName: 'nope' }] } };

describe('kubectl debug in a workspace reaches the pod on its cluster', { timeout: 300_000 }, () => {
  let fleet: InProcessFleet;
  let dir: string;
  let bob: string;
  const kubectl = (args: string[]) => runKubectl(fleet.kubeconfig, args);
  const mirrors = new Map<string, Pod>();

  /** The pod a workspace pod stands for on `cluster`: a mirror's original, or a synced Pod's copy. */
  async function original(cluster: string, up: Pod): Promise<Pod> {
    const client = fleet.cluster(cluster).client;
    const source = mirrorSourceOf(up);
    if (source) return (await client.get(podsGVR, source.name, { namespace: source.namespace })) as Pod;
    const copy = (await client.list(podsGVR, {})).items.find((p) => p.metadata?.name === up.metadata?.name && p.metadata?.labels?.[DOWNSTREAM_CLUSTER_LABEL] !== undefined);
    if (!copy) throw new Error(`no copy of ${up.metadata?.name} on ${cluster}`);
    return copy as Pod;
  }
  const upPod = async (name: string) => (await fleet.up.get(podsGVR, name, { namespace: NS })) as Pod;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'atrium-debug-ephemeral-'));
    const tokens = join(dir, 'tokens.csv');
    writeFileSync(tokens, 'bob-token,bob,bob-uid,""\n');
    fleet = await startFleet({
      name: 'debug-ephemeral',
      clusters: modes.map((m) => m.cluster),
      register: false,
      server: { tokenAuthFile: tokens },
      multicluster: { heartbeatThresholdMs: 5000, pushSyncer: { heartbeatIntervalMs: 500, importPollIntervalMs: 500 } },
      syncer: { heartbeatInterval: '500ms', importPollInterval: '500ms' },
    });
    for (const m of modes) await fleet.register(m.cluster, { mode: m.mode });
    await fleet.waitReady(undefined, { resources: ['pods', 'deployments', 'replicasets'], timeoutMs: 60_000 });
    bob = writeTokenKubeconfig(fleet.atrium, dir, 'bob', 'bob-token');
    for (const m of modes) {
      const labels = { 'workload.kcp.io/cluster': m.cluster };
      await fleet.up.create(deployGVR, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: `web-${m.mode}`, namespace: NS, labels }, spec: { replicas: 1, selector: { matchLabels: { app: `web-${m.mode}` } }, template: { metadata: { labels: { app: `web-${m.mode}` } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } } } }, { namespace: NS });
      await fleet.up.create(podsGVR, { apiVersion: 'v1', kind: 'Pod', metadata: { name: `bare-${m.mode}`, namespace: NS, labels }, spec: { containers: [{ name: 'app', image: 'nginx' }] } }, { namespace: NS });
    }
    for (const m of modes) {
      const mirror = await eventually(`a running mirror of web-${m.mode}'s pod`, async () => {
        const list = (await fleet.up.list(podsGVR, { namespace: NS })).items as Pod[];
        return list.find((p) => isMirror(p) && p.metadata?.labels?.app === `web-${m.mode}` && (p.status as { phase?: string } | undefined)?.phase === 'Running');
      }, 60_000);
      mirrors.set(m.mode, mirror);
      await eventually(`bare-${m.mode} running upstream`, async () => ((await upPod(`bare-${m.mode}`)).status as { phase?: string } | undefined)?.phase === 'Running', 60_000);
    }
  });

  after(async () => {
    await fleet?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const m of modes) {
    describe(`${m.mode} mode`, () => {
      it('kubectl debug of a mirrored pod adds the container to the pod on the cluster; the mirror shows it at once', async (t) => {
        const name = mirrors.get(m.mode)!.metadata!.name!;
        const r = await kubectl(['debug', name, '--image=busybox', '-c', 'dbg', '--target=app']);
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout + r.stderr, /Targeting container "app"/);
        const there = await original(m.cluster, mirrors.get(m.mode)!);
        assert.deepEqual(ephemeralNames(there), ['dbg'], 'the pod on its cluster has the debug container');
        assert.equal(there.spec!.ephemeralContainers![0]!.targetContainerName, 'app');
        // Read-your-write: the answer was recorded on the mirror before kubectl returned.
        const mirror = await upPod(name);
        assert.deepEqual(mirror.spec?.ephemeralContainers, there.spec?.ephemeralContainers, 'the mirror carries the cluster pod\'s ephemeral containers');
        assert.ok(isMirror(mirror), 'still a mirror');
        await reportsRunning(t, m.cluster, name);
      });

      it('kubectl debug of a synced bare Pod: written upstream, carried to the cluster\'s copy by the syncer', async (t) => {
        const name = `bare-${m.mode}`;
        const r = await kubectl(['debug', name, '--image=busybox', '-c', 'dbg', '--target=app']);
        assert.equal(r.code, 0, r.stderr);
        assert.deepEqual(ephemeralNames(await upPod(name)), ['dbg']);
        const copy = await eventually(`the copy of ${name} with the debug container`, async () => {
          const p = await original(m.cluster, await upPod(name));
          return ephemeralNames(p).includes('dbg') && p;
        }, 30_000);
        assert.equal(copy.spec!.ephemeralContainers![0]!.image, 'busybox');
        // The copy is still the syncer's and in sync: its other fields were not disturbed.
        assert.equal((copy.spec as { containers?: { name: string }[] }).containers![0]!.name, 'app');
        await reportsRunning(t, m.cluster, name);
      });

      it('kubectl debug -i waits for the container in the workspace, attaches through atrium; attach again', async (t) => {
        if (!(await kubeletRunsEphemeral(m.cluster, mirrors.get(m.mode)!.metadata!.name!))) return void t.skip('the simulated kubelet does not run ephemeral containers in this build');
        for (const name of [mirrors.get(m.mode)!.metadata!.name!, `bare-${m.mode}`]) {
          // kubectl watches the workspace's pod until it reports the container running, then attaches to it.
          const r = await runKubectl(fleet.kubeconfig, ['debug', name, '-i', '--image=busybox', '-c', 'dbgi', '--', 'sh'], { input: 'echo hello\n', timeoutMs: 60_000 });
          assert.equal(r.code, 0, r.stderr);
          assert.deepEqual(r.stdout.split('\n').filter((l) => l.startsWith('[stdin] ')), ['[stdin] echo hello'], r.stdout);
          const again = await runKubectl(fleet.kubeconfig, ['attach', name, '-c', 'dbgi', '-i'], { input: 'once more\n', timeoutMs: 30_000 });
          assert.equal(again.code, 0, again.stderr);
          assert.deepEqual(again.stdout.split('\n').filter((l) => l.startsWith('[stdin] ')), ['[stdin] once more'], again.stdout);
          // The container's log holds both sessions' input in order; the simulated container's own heartbeat
          // lines may fall between them.
          const logged = (await kubectl(['logs', name, '-c', 'dbgi'])).stdout;
          assert.deepEqual(logged.split('\n').filter((l) => l.startsWith('[stdin] ')), ['[stdin] echo hello', '[stdin] once more'], logged);
        }
      });
    });
  }

  /** Whether the cluster runs the debug container the first test of the mode added (this build's simulated kubelet does). */
  async function kubeletRunsEphemeral(cluster: string, name: string): Promise<boolean> {
    return statusOf(await original(cluster, await upPod(name)), 'dbg')?.state?.running !== undefined;
  }

  /**
   * Once the cluster's kubelet reports the debug container running on the original, the workspace's pod reports it as
   * well (status comes up with the rest); then logs and exec reach it. Skipped when this build's simulated kubelet does
   * not start ephemeral containers.
   */
  async function reportsRunning(t: TestContext, cluster: string, name: string): Promise<void> {
    const running = await eventually('the cluster reporting the debug container running', async () => statusOf(await original(cluster, await upPod(name)), 'dbg')?.state?.running !== undefined, 20_000).then(
      () => true,
      () => false,
    );
    if (!running) return void t.diagnostic('the simulated kubelet does not run ephemeral containers in this build: status, exec and logs not checked');
    await eventually(`${name} reporting dbg running in the workspace`, async () => statusOf(await upPod(name), 'dbg')?.state?.running !== undefined, 30_000);
    const exec = await kubectl(['exec', name, '-c', 'dbg', '--', 'echo', 'from the debug container']);
    assert.equal(exec.code, 0, exec.stderr);
    assert.equal(exec.stdout, 'from the debug container\n');
    const logs = await kubectl(['logs', name, '-c', 'dbg']);
    assert.equal(logs.code, 0, logs.stderr);
  }

  it('refuses an invalid debug container with the words of a plain cluster, on a mirror and on a synced pod', async () => {
    const mirror = mirrors.get('push')!;
    const name = mirror.metadata!.name!;
    const refusal = async (f: () => Promise<unknown>) => {
      const err = await f().then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof StatusError, `refused: ${String(err)}`);
      return err.status;
    };
    // The same patch sent straight to the pod on the cluster: the words a plain cluster answers with.
    const source = mirrorSourceOf(mirror)!;
    const direct = await refusal(() => fleet.cluster('eph-push').client.patch(podsGVR, source.name, 'strategic', badPatch, { namespace: source.namespace, subresource: 'ephemeralcontainers' }));
    assert.equal(direct.code, 422);
    assert.match(direct.message!, /targetContainerName: Not found: "nope"/);
    const viaMirror = await refusal(() => fleet.up.patch(podsGVR, name, 'strategic', badPatch, { namespace: NS, subresource: 'ephemeralcontainers' }));
    assert.equal(viaMirror.code, 422);
    assert.equal(viaMirror.message, direct.message!.replace(`"${source.name}"`, `"${name}"`));
    assert.equal(viaMirror.details?.name, name);
    const viaSynced = await refusal(() => fleet.up.patch(podsGVR, 'bare-push', 'strategic', badPatch, { namespace: NS, subresource: 'ephemeralcontainers' }));
    assert.equal(viaSynced.message, direct.message!.replace(`"${source.name}"`, '"bare-push"'));
    // kubectl prints it as it would from a cluster.
    const k = await kubectl(['debug', name, '--image=busybox', '-c', 'dbg2', '--target=nope']);
    assert.notEqual(k.code, 0);
    assert.match(k.stderr, new RegExp(`The Pod "${name}" is invalid: spec\\.ephemeralContainers\\[\\d\\]\\.targetContainerName: Not found: "nope"`));
    assert.deepEqual(ephemeralNames(await original('eph-push', mirror)), ephemeralNames(await upPod(name)), 'nothing was added anywhere');
  });

  it('a PUT of a mirror\'s ephemeralcontainers checks the mirror\'s resourceVersion and reaches the cluster', async () => {
    const name = mirrors.get('push')!.metadata!.name!;
    const path = `/api/v1/namespaces/${NS}/pods/${name}/ephemeralcontainers`;
    const current = (await fleet.up.call('GET', path)) as Pod;
    const body = structuredClone(current);
    body.spec!.ephemeralContainers = [...(body.spec!.ephemeralContainers ?? []), { name: 'put', image: 'busybox' }];
    const stale = structuredClone(body);
    stale.metadata!.resourceVersion = '1';
    const conflict = await fleet.up.call('PUT', path, stale).then(() => undefined, (e: unknown) => e);
    assert.ok(conflict instanceof StatusError && conflict.code === 409, `a stale resourceVersion is a conflict: ${String(conflict)}`);
    const answer = (await fleet.up.call('PUT', path, body)) as Pod;
    assert.equal(answer.metadata?.name, name, 'the answer is the workspace\'s pod');
    assert.ok(ephemeralNames(answer).includes('put'));
    assert.ok(ephemeralNames(await original('eph-push', answer)).includes('put'));
  });

  it('every user\'s write goes to the cluster, within RBAC; an admin\'s too', async () => {
    const mirror = mirrors.get('none')!;
    const name = mirror.metadata!.name!;
    const denied = await runKubectl(bob, ['debug', name, '--image=busybox', '-c', 'bob1']);
    assert.notEqual(denied.code, 0);
    assert.match(denied.stderr, /User "bob" cannot (get|patch) resource "pods(\/ephemeralcontainers)?"/);
    await kubectl(['create', 'role', 'debugger', '--verb=get,list,patch', '--resource=pods,pods/ephemeralcontainers']);
    await kubectl(['create', 'rolebinding', 'bob-debugger', '--role=debugger', '--user=bob']);
    const r = await eventually('bob may debug', async () => {
      const x = await runKubectl(bob, ['debug', name, '--image=busybox', '-c', 'bob1']);
      return x.code === 0 && x;
    }, 20_000);
    assert.equal(r.code, 0);
    assert.ok(ephemeralNames(await original('eph-none', mirror)).includes('bob1'), 'bob\'s container is on the cluster');
    // An admin (system:masters, which may write mirrors) goes to the cluster too: the original has it.
    const admin = await fleet.up.patch(podsGVR, name, 'strategic', { spec: { ephemeralContainers: [{ name: 'admin1', image: 'busybox' }] } }, { namespace: NS, subresource: 'ephemeralcontainers' });
    assert.ok(ephemeralNames(admin as Pod).includes('admin1'));
    assert.ok(ephemeralNames(await original('eph-none', mirror)).includes('admin1'), 'the admin\'s container is on the cluster');
  });

  it('a debug container added on the cluster itself shows in the mirror (the mirror writer)', async () => {
    const mirror = mirrors.get('push')!;
    const source = mirrorSourceOf(mirror)!;
    await fleet.cluster('eph-push').client.patch(podsGVR, source.name, 'strategic', { spec: { ephemeralContainers: [{ name: 'local', image: 'busybox' }] } }, { namespace: source.namespace, subresource: 'ephemeralcontainers' });
    const up = await eventually('the mirror showing the cluster\'s debug container', async () => {
      const p = await upPod(mirror.metadata!.name!);
      return ephemeralNames(p).includes('local') && p;
    }, 30_000);
    assert.deepEqual(up.spec?.ephemeralContainers, (await original('eph-push', mirror)).spec?.ephemeralContainers);
    assert.equal(up.metadata?.uid, mirror.metadata?.uid, 'the same mirror, not one made anew');
  });
});
