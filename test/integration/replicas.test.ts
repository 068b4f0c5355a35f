/**
 * Two atrium replicas (real `atrium start` processes) on one etcd: shared identities from copied pki/ and
 * admin.token, writes through one visible through the other (get, list, watch), controllers on exactly
 * one replica through the kube-system Lease, and killing a replica (SIGKILL) while a client watches and
 * another writes: the writer notices nothing, the watcher only reconnects (to the survivor) without a gap,
 * and the controllers fail over. Freezing the leader (SIGSTOP) shows the CRD and workspace controllers wait for
 * the lease too: nothing reconciles on the other replica until the frozen leader's lease expires.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { doRequest, type HttpResponse } from '../helpers/harness.js';
import { startEtcd, type EtcdCluster } from '../helpers/etcd.js';
import { eventually } from '../helpers/eventually.js';

const repoRoot = resolve(fileURLToPath(import.meta.url), '../../../..');
const atriumBin = join(repoRoot, 'bin', 'atrium');

interface Replica {
  child: ChildProcess;
  url: string;
  exited: Promise<void>;
}

const children: ChildProcess[] = [];
const dirs: string[] = [];
let etcd: EtcdCluster;
let a: Replica;
let b: Replica;
let agent: Agent;

function startReplica(rootDir: string): Promise<Replica> {
  const child = spawn(
    process.execPath,
    [
      atriumBin, 'start', '--root-dir', rootDir, '--secure-port', '0',
      '--etcd-servers', etcd.endpoints.join(','),
      '--leader-elect-lease-duration', '3s', '--leader-elect-renew-deadline', '2s', '--leader-elect-retry-period', '300ms',
    ],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ATRIUM_LOG_LEVEL: 'warn' } },
  );
  children.push(child);
  let out = '';
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return new Promise((resolveStart, reject) => {
    const timer = setTimeout(() => reject(new Error(`replica did not start within 30 s: ${out}`)), 30_000);
    child.stderr!.on('data', (d) => (out += d));
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /atrium is serving at (https:\/\/\S+);/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolveStart({ child, url: m[1]!, exited });
      }
    });
    void exited.then(() => reject(new Error(`replica exited before serving: ${out}`)));
  });
}

const req = (r: Replica, method: string, path: string, body?: unknown): Promise<HttpResponse> => doRequest(agent, r.url, method, path, body);

before(async () => {
  etcd = await startEtcd();
  const dirA = mkdtempSync(join(tmpdir(), 'atrium-replica-a-'));
  const dirB = mkdtempSync(join(tmpdir(), 'atrium-replica-b-'));
  dirs.push(dirA, dirB);
  a = await startReplica(dirA);
  // The second replica gets the first one's CA, service keys and admin token: the same identities.
  cpSync(join(dirA, 'pki'), join(dirB, 'pki'), { recursive: true });
  cpSync(join(dirA, 'admin.token'), join(dirB, 'admin.token'));
  b = await startReplica(dirB);
  const pki = join(dirA, 'pki');
  agent = new Agent({ ca: readFileSync(join(pki, 'ca.crt')), cert: readFileSync(join(pki, 'admin.crt')), key: readFileSync(join(pki, 'admin.key')), keepAlive: true });
});

after(async () => {
  agent?.destroy();
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await etcd?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('atrium replicas on one etcd', () => {
  test('replicas started from the same root-dir content serve the same identities', async () => {
    const token = readFileSync(join(dirs[0]!, 'admin.token'), 'utf8').trim();
    for (const r of [a, b]) {
      assert.equal((await req(r, 'GET', '/api/v1/namespaces/default')).status, 200, 'admin client certificate accepted');
      const viaToken = await new Promise<number>((done, fail) => {
        const q = httpsRequest(new URL('/api/v1/namespaces/default', r.url), { ca: readFileSync(join(dirs[0]!, 'pki', 'ca.crt')), headers: { Authorization: `Bearer ${token}` } }, (res) => {
          res.resume();
          done(res.statusCode ?? 0);
        });
        q.on('error', fail);
        q.end();
      });
      assert.equal(viaToken, 200, 'admin token accepted');
    }
  });

  test('a write through one replica is visible through the other: get, list and watch', async () => {
    await req(a, 'POST', '/api/v1/namespaces', { metadata: { name: 'shared' } });
    const list = await req(b, 'GET', '/api/v1/namespaces/shared/configmaps');
    assert.equal(list.status, 200);
    const watch = openWatch(b, `/api/v1/namespaces/shared/configmaps?watch=true&resourceVersion=${list.json.metadata.resourceVersion}`);
    const created = await req(a, 'POST', '/api/v1/namespaces/shared/configmaps', { metadata: { name: 'from-a' }, data: { k: 'v' } });
    assert.equal(created.status, 201);
    const rv = created.json.metadata.resourceVersion;
    const got = await req(b, 'GET', '/api/v1/namespaces/shared/configmaps/from-a');
    assert.equal(got.status, 200);
    assert.equal(got.json.metadata.resourceVersion, rv);
    assert.equal(got.json.metadata.uid, created.json.metadata.uid);
    const listed = await req(b, 'GET', '/api/v1/namespaces/shared/configmaps');
    assert.ok(listed.json.items.some((i: any) => i.metadata.name === 'from-a'));
    await watch.waitFor((events) => events.some((e) => e.object.metadata.name === 'from-a'));
    const event = watch.events.find((e) => e.object.metadata.name === 'from-a')!;
    assert.deepEqual([event.type, event.object.metadata.resourceVersion], ['ADDED', rv]);
    watch.close();
  });

  test('controllers run on exactly one replica, recorded in the kube-system Lease', async () => {
    const lease = await eventually('the controller-manager Lease held', async () => {
      const r = await req(b, 'GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/atrium-controller-manager');
      return r.status === 200 && r.json.spec.holderIdentity ? r.json : undefined;
    }, 10_000, 50);
    assert.equal(lease.spec.leaseDurationSeconds, 3);
    assert.match(lease.spec.renewTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.equal(typeof lease.spec.leaseTransitions, 'number');
    // The controllers work: the serviceaccount controller creates "default" in a namespace made through B.
    await req(b, 'POST', '/api/v1/namespaces', { metadata: { name: 'ctl-one' } });
    await eventually('the default ServiceAccount in ctl-one', async () => (await req(b, 'GET', '/api/v1/namespaces/ctl-one/serviceaccounts/default')).status === 200, 10_000, 50);
  });

  test('killing a replica: the other serves on, a watcher only reconnects, the controllers fail over', async () => {
    const before = (await req(b, 'GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/atrium-controller-manager')).json;
    await req(b, 'POST', '/api/v1/namespaces', { metadata: { name: 'failover' } });
    const start = (await req(b, 'GET', '/api/v1/namespaces/failover/configmaps')).json.metadata.resourceVersion as string;

    // A client watching through A, which reconnects to B from its last resourceVersion when A goes away.
    const seen: Array<{ name: string; rv: number }> = [];
    let reconnects = 0;
    let stopWatching = false;
    const watcher = (async () => {
      let rv = start;
      let target = a;
      while (!stopWatching) {
        const w = openWatch(target, `/api/v1/namespaces/failover/configmaps?watch=true&resourceVersion=${rv}&allowWatchBookmarks=false`);
        w.onEvent = (e) => {
          rv = e.object.metadata.resourceVersion;
          // The root-ca-cert-publisher controller adds kube-root-ca.crt to every namespace; only the writer's objects count.
          if (!e.object.metadata.name.startsWith('cm-')) return;
          seen.push({ name: e.object.metadata.name, rv: Number(e.object.metadata.resourceVersion) });
        };
        await w.ended;
        if (stopWatching) break;
        reconnects++;
        target = b;
      }
    })();

    // A writer on B: not one request may fail while A dies.
    const written: string[] = [];
    const failures: string[] = [];
    for (let i = 0; i < 60; i++) {
      if (i === 20) a.child.kill('SIGKILL');
      const name = `cm-${String(i).padStart(3, '0')}`;
      const r = await req(b, 'POST', '/api/v1/namespaces/failover/configmaps', { metadata: { name } });
      if (r.status === 201) written.push(name);
      else failures.push(`${name}: ${r.status} ${r.text}`);
      await new Promise((r2) => setTimeout(r2, 15));
    }
    await a.exited;
    assert.deepEqual(failures, []);
    await eventually('every write seen by the watcher', () => seen.length >= written.length, 10_000, 50);
    stopWatching = true;
    currentWatches.forEach((w) => w.close());
    await watcher;
    assert.ok(reconnects >= 1, 'the watch through A ended and was reconnected to B');
    assert.deepEqual(seen.map((s) => s.name), written, 'every write seen once, in order, across the reconnect');

    // The controllers fail over to B within the lease duration.
    await req(b, 'POST', '/api/v1/namespaces', { metadata: { name: 'ctl-two' } });
    await eventually('the default ServiceAccount in ctl-two', async () => (await req(b, 'GET', '/api/v1/namespaces/ctl-two/serviceaccounts/default')).status === 200, 20_000, 50);
    const afterLease = (await req(b, 'GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/atrium-controller-manager')).json;
    assert.notEqual(afterLease.spec.holderIdentity, before.spec.holderIdentity);
    assert.equal(afterLease.spec.leaseTransitions, before.spec.leaseTransitions + 1);
  });

  test('a frozen leader: the CRD and workspace controllers of another replica wait for its lease to expire, then take over', async () => {
    // B leads now (A was killed). C joins with the same identities, then B freezes without releasing its lease.
    const dirC = mkdtempSync(join(tmpdir(), 'atrium-replica-c-'));
    dirs.push(dirC);
    cpSync(join(dirs[0]!, 'pki'), join(dirC, 'pki'), { recursive: true });
    cpSync(join(dirs[0]!, 'admin.token'), join(dirC, 'admin.token'));
    const c = await startReplica(dirC);
    const leaseOf = async () => (await req(c, 'GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/atrium-controller-manager')).json;
    const heldByB = (await leaseOf()).spec.holderIdentity as string;
    b.child.kill('SIGSTOP');
    try {
      const frozenAt = Date.now();
      const crd = await req(c, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
        metadata: { name: 'gadgets.frozen.example.com' },
        spec: {
          group: 'frozen.example.com',
          scope: 'Namespaced',
          names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
          versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
        },
      });
      assert.equal(crd.status, 201, crd.text);
      const ws = await req(c, 'POST', '/apis/tenancy.kcp.io/v1alpha1/workspaces', { metadata: { name: 'frozen-leader' } });
      assert.equal(ws.status, 201, ws.text);
      // The lease (3 s) cannot have expired for C yet: nothing reconciles these on C.
      await new Promise((r) => setTimeout(r, 1500));
      assert.ok(Date.now() - frozenAt < 2500, 'the check ran well inside the lease duration');
      const crdNow = (await req(c, 'GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.frozen.example.com')).json;
      assert.deepEqual(crdNow.status?.conditions ?? [], [], 'no replica but the (frozen) leader names or establishes CRDs');
      const wsNow = (await req(c, 'GET', '/apis/tenancy.kcp.io/v1alpha1/workspaces/frozen-leader')).json;
      assert.equal(wsNow.spec?.cluster, undefined, 'no replica but the (frozen) leader schedules workspaces');
      // Once the lease expires C leads: both are reconciled.
      await eventually('gadgets.frozen.example.com Established', async () => {
        const got = (await req(c, 'GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.frozen.example.com')).json;
        return got.status?.conditions?.some((x: any) => x.type === 'Established' && x.status === 'True');
      }, 20_000, 50);
      await eventually('workspace frozen-leader Ready', async () => (await req(c, 'GET', '/apis/tenancy.kcp.io/v1alpha1/workspaces/frozen-leader')).json.status?.phase === 'Ready', 20_000, 50);
      const lease = await leaseOf();
      assert.notEqual(lease.spec.holderIdentity, heldByB);
      assert.equal((await req(c, 'GET', '/clusters/root:frozen-leader/api/v1/namespaces/default')).status, 200, 'the new workspace serves');
    } finally {
      b.child.kill('SIGCONT');
    }
  });
});

interface WatchHandleForTest {
  events: Array<{ type: string; object: any }>;
  onEvent?: (e: { type: string; object: any }) => void;
  ended: Promise<void>;
  close(): void;
  waitFor(pred: (events: Array<{ type: string; object: any }>) => boolean): Promise<void>;
}

const currentWatches = new Set<WatchHandleForTest>();

/** A watch over HTTPS that never rejects: `ended` resolves when the stream ends for any reason. */
function openWatch(r: Replica, path: string): WatchHandleForTest {
  let endResolve!: () => void;
  const ended = new Promise<void>((res) => (endResolve = res));
  const handle: WatchHandleForTest = {
    events: [],
    ended,
    close: () => q.destroy(),
    waitFor: async (pred) => {
      await eventually(`watch ${path}: the expected events`, () => pred(handle.events), 10_000, 50);
    },
  };
  currentWatches.add(handle);
  const finish = () => {
    currentWatches.delete(handle);
    endResolve();
  };
  const q = httpsRequest(new URL(path, r.url), { agent, method: 'GET' }, (res) => {
    let buffer = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (!line.trim()) continue;
        const event = JSON.parse(line) as { type: string; object: any };
        if (event.type === 'BOOKMARK') continue;
        handle.events.push(event);
        handle.onEvent?.(event);
      }
    });
    res.on('end', finish);
    res.on('error', finish);
    res.on('close', finish);
  });
  q.on('error', finish);
  q.end();
  return handle;
}
