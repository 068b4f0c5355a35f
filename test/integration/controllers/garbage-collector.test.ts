/**
 * The garbage collector over a real server: Background, Foreground (with blockOwnerDeletion, a 3-level chain) and
 * Orphan propagation, owner identity by uid, scope rules and their OwnerRefInvalidNamespace Events, custom resources
 * of a CRD created while running, and resuming cascades after a restart, including cascades over many dependents
 * cut off by a crash (SIGKILL) mid-way.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harnessFor, startTestServer, type TestServer } from '../../helpers/harness.js';
import type { RunningServer } from '../../../src/server/server.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cronTabCRD } from '../crd-fixtures.js';
import { installCRD } from '../crd-support.js';
import { createNamespace, openWatch, uniqueName } from '../support.js';
import { eventually, eventuallyGone, ownerRef, staysPresent } from './support.js';

const atriumBin = fileURLToPath(new URL('../../../../bin/atrium', import.meta.url));
const mergePatchHeaders = { headers: { 'Content-Type': 'application/merge-patch+json' } };

describe('garbage collector', () => {
  let ts: TestServer;
  let ns: string;
  before(async () => {
    ts = await startTestServer({ server: { builtinControllers: true } });
    ns = await createNamespace(ts, 'gc');
  });
  after(async () => {
    await ts?.stop();
  });

  const cmPath = (name: string, namespace = ns) => `/api/v1/namespaces/${namespace}/configmaps/${name}`;
  const secretPath = (name: string) => `/api/v1/namespaces/${ns}/secrets/${name}`;
  async function cm(name: string, meta: Record<string, unknown> = {}, namespace = ns): Promise<any> {
    const r = await ts.request('POST', `/api/v1/namespaces/${namespace}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...meta } });
    assert.equal(r.status, 201, r.text);
    return { apiVersion: 'v1', kind: 'ConfigMap', ...r.json };
  }
  async function secret(name: string, meta: Record<string, unknown> = {}): Promise<any> {
    const r = await ts.request('POST', `/api/v1/namespaces/${ns}/secrets`, { metadata: { name, ...meta } });
    assert.equal(r.status, 201, r.text);
    return { apiVersion: 'v1', kind: 'Secret', ...r.json };
  }
  const del = (path: string, propagationPolicy?: string) => ts.request('DELETE', path, propagationPolicy ? { propagationPolicy } : undefined);
  const releaseFinalizers = async (path: string) => {
    const r = await ts.request('PATCH', path, JSON.stringify({ metadata: { finalizers: null } }), mergePatchHeaders);
    assert.equal(r.status, 200, r.text);
  };

  it('Background: dependents of a deleted owner are deleted, of any resource', async () => {
    const owner = await cm('bg-owner');
    await cm('bg-dep-cm', { ownerReferences: [ownerRef(owner)] });
    await secret('bg-dep-secret', { ownerReferences: [ownerRef(owner, { controller: true })] });
    const unrelated = await cm('bg-unrelated');
    assert.equal((await del(cmPath('bg-owner'), 'Background')).status, 200);
    await eventuallyGone(ts, cmPath('bg-dep-cm'));
    await eventuallyGone(ts, secretPath('bg-dep-secret'));
    assert.equal((await ts.request('GET', cmPath(unrelated.metadata.name))).status, 200);
  });

  it('a dependent with another live owner stays, and its reference to the gone owner is removed', async () => {
    const a = await cm('multi-a');
    const b = await cm('multi-b');
    await cm('multi-dep', { ownerReferences: [ownerRef(a), ownerRef(b)] });
    assert.equal((await del(cmPath('multi-a'))).status, 200);
    const dep = await eventually('the dangling reference removed', async () => {
      const r = await ts.request('GET', cmPath('multi-dep'));
      return r.status === 200 && r.json.metadata.ownerReferences?.length === 1 ? r.json : undefined;
    });
    assert.equal(dep.metadata.ownerReferences[0].uid, b.metadata.uid);
    await staysPresent(ts, cmPath('multi-dep'), 500);
  });

  it('owners are identified by uid: a re-created owner with the same name keeps its own dependents only', async () => {
    const first = await cm('reborn');
    await cm('reborn-old-dep', { ownerReferences: [ownerRef(first)] });
    assert.equal((await del(cmPath('reborn'))).status, 200);
    const second = await cm('reborn');
    assert.notEqual(second.metadata.uid, first.metadata.uid);
    await cm('reborn-new-dep', { ownerReferences: [ownerRef(second)] });
    // The old dependent points at a uid that no longer exists, even though an object of that name does.
    await eventuallyGone(ts, cmPath('reborn-old-dep'));
    await staysPresent(ts, cmPath('reborn-new-dep'));
    // A dependent naming a live owner with a uid that never existed is garbage, and the owner is untouched.
    await cm('reborn-wrong-uid', { ownerReferences: [{ ...ownerRef(second), uid: '00000000-0000-0000-0000-000000000000' }] });
    await eventuallyGone(ts, cmPath('reborn-wrong-uid'));
    assert.equal((await ts.request('GET', cmPath('reborn'))).json.metadata.uid, second.metadata.uid);
    await staysPresent(ts, cmPath('reborn-new-dep'), 300);
  });

  it('Foreground: the owner waits (foregroundDeletion) until its blocking dependents are gone', async () => {
    const owner = await cm('fg-owner');
    await cm('fg-dep', { ownerReferences: [ownerRef(owner, { blockOwnerDeletion: true })], finalizers: ['example.com/hold'] });
    const d = await del(cmPath('fg-owner'), 'Foreground');
    assert.equal(d.status, 200, d.text);
    assert.deepEqual(d.json.metadata.finalizers, ['foregroundDeletion']);
    assert.ok(d.json.metadata.deletionTimestamp);
    await eventually('the dependent marked for deletion', async () => (await ts.request('GET', cmPath('fg-dep'))).json?.metadata?.deletionTimestamp);
    const waiting = await staysPresent(ts, cmPath('fg-owner'), 800);
    assert.deepEqual(waiting.json.metadata.finalizers, ['foregroundDeletion']);
    await releaseFinalizers(cmPath('fg-dep'));
    await eventuallyGone(ts, cmPath('fg-dep'));
    await eventuallyGone(ts, cmPath('fg-owner'));
  });

  it('Foreground does not wait for dependents with blockOwnerDeletion unset, but still deletes them', async () => {
    const owner = await cm('fgnb-owner');
    await cm('fgnb-dep', { ownerReferences: [ownerRef(owner)], finalizers: ['example.com/hold'] });
    assert.equal((await del(cmPath('fgnb-owner'), 'Foreground')).status, 200);
    await eventuallyGone(ts, cmPath('fgnb-owner'));
    await eventually('the dependent marked for deletion', async () => (await ts.request('GET', cmPath('fgnb-dep'))).json?.metadata?.deletionTimestamp);
    await releaseFinalizers(cmPath('fgnb-dep'));
    await eventuallyGone(ts, cmPath('fgnb-dep'));
  });

  it('Foreground through a 3-level chain deletes bottom-up', async () => {
    const a = await cm('chain-a');
    const b = await cm('chain-b', { ownerReferences: [ownerRef(a, { blockOwnerDeletion: true })] });
    await secret('chain-c', { ownerReferences: [ownerRef(b, { blockOwnerDeletion: true })], finalizers: ['example.com/hold'] });
    assert.equal((await del(cmPath('chain-a'), 'Foreground')).status, 200);
    // The middle object is deleted in the foreground too, because it has dependents and its owner waits for it.
    const middle = await eventually('the middle object deleting in the foreground', async () => {
      const r = await ts.request('GET', cmPath('chain-b'));
      return r.json?.metadata?.deletionTimestamp ? r.json : undefined;
    });
    assert.deepEqual(middle.metadata.finalizers, ['foregroundDeletion']);
    await eventually('the leaf marked for deletion', async () => (await ts.request('GET', secretPath('chain-c'))).json?.metadata?.deletionTimestamp);
    await staysPresent(ts, cmPath('chain-a'), 500);
    await staysPresent(ts, cmPath('chain-b'), 100);
    await releaseFinalizers(secretPath('chain-c'));
    await eventuallyGone(ts, secretPath('chain-c'));
    await eventuallyGone(ts, cmPath('chain-b'));
    await eventuallyGone(ts, cmPath('chain-a'));
  });

  it('Orphan: dependents lose their reference to the owner and stay; other references are kept', async () => {
    const owner = await cm('orph-owner');
    const other = await cm('orph-other');
    await cm('orph-dep1', { ownerReferences: [ownerRef(owner)] });
    await secret('orph-dep2', { ownerReferences: [ownerRef(owner), ownerRef(other)] });
    const d = await del(cmPath('orph-owner'), 'Orphan');
    assert.equal(d.status, 200, d.text);
    assert.deepEqual(d.json.metadata.finalizers, ['orphan']);
    await eventuallyGone(ts, cmPath('orph-owner'));
    const dep1 = await ts.request('GET', cmPath('orph-dep1'));
    assert.equal(dep1.status, 200);
    assert.equal(dep1.json.metadata.ownerReferences, undefined);
    const dep2 = await ts.request('GET', secretPath('orph-dep2'));
    assert.equal(dep2.status, 200);
    assert.deepEqual(dep2.json.metadata.ownerReferences.map((r: any) => r.uid), [other.metadata.uid]);
    await staysPresent(ts, cmPath('orph-dep1'), 500);
  });

  it('scope rules: namespaced dependents of cluster-scoped owners are collected; owners in another namespace count as absent; cluster-scoped dependents of namespaced kinds are never collected', async () => {
    const crName = uniqueName('gc-owner');
    const cr = await ts.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: crName }, rules: [] });
    assert.equal(cr.status, 201, cr.text);
    await cm('scoped-dep', { ownerReferences: [ownerRef({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', ...cr.json })] });

    const ns2 = await createNamespace(ts, 'gc-other');
    const foreignOwner = await cm('foreign-owner', {}, ns2);
    await cm('cross-ns-dep', { ownerReferences: [ownerRef(foreignOwner)] });

    const local = await cm('local-owner');
    const virtualName = uniqueName('gc-virtual');
    const v = await ts.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: virtualName, ownerReferences: [ownerRef(local)] }, rules: [] });
    assert.equal(v.status, 201, v.text);

    assert.equal((await ts.request('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterroles/${crName}`)).status, 200);
    await eventuallyGone(ts, cmPath('scoped-dep'));
    await eventuallyGone(ts, cmPath('cross-ns-dep'));
    assert.equal((await ts.request('GET', cmPath('foreign-owner', ns2))).status, 200);
    await staysPresent(ts, `/apis/rbac.authorization.k8s.io/v1/clusterroles/${virtualName}`, 800);
  });

  it('custom resources of a CRD created in root while running are collected at once (CRD events, not the periodic discovery)', async () => {
    const group = 'gc-root.example.com';
    await installCRD(ts, cronTabCRD({ group }));
    const crontabs = `/apis/${group}/v1/namespaces/${ns}/crontabs`;
    const owner = await cm('crd-era-owner');
    const dep = await ts.request('POST', crontabs, { apiVersion: `${group}/v1`, kind: 'CronTab', metadata: { name: 'dep', ownerReferences: [ownerRef(owner)] }, spec: { cronSpec: '* * * * *' } });
    assert.equal(dep.status, 201, dep.text);
    const crOwner = await ts.request('POST', crontabs, { apiVersion: `${group}/v1`, kind: 'CronTab', metadata: { name: 'cr-owner' }, spec: { cronSpec: '* * * * *' } });
    assert.equal(crOwner.status, 201, crOwner.text);
    await cm('owned-by-cr', { ownerReferences: [ownerRef({ apiVersion: `${group}/v1`, ...crOwner.json })] });
    assert.equal((await del(cmPath('crd-era-owner'))).status, 200);
    assert.equal((await del(`${crontabs}/cr-owner`)).status, 200);
    // Well inside the 60 s rediscovery period.
    await eventuallyGone(ts, `${crontabs}/dep`, 10_000);
    await eventuallyGone(ts, cmPath('owned-by-cr'), 10_000);
  });

  it('invalid namespace references get a Warning Event OwnerRefInvalidNamespace on the dependent, worded as upstream', async () => {
    const ns2 = await createNamespace(ts, 'gc-elsewhere');
    const foreignOwner = await cm('elsewhere-owner', {}, ns2);
    const dep = await cm('wrong-ns-dep', { ownerReferences: [ownerRef(foreignOwner)] });
    const local = await cm('local-owner-2');
    const crName = uniqueName('gc-bad-scope');
    const cr = await ts.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: crName, ownerReferences: [ownerRef(local)] }, rules: [] });
    assert.equal(cr.status, 201, cr.text);

    const eventFor = (namespace: string, uid: string) =>
      eventually(`OwnerRefInvalidNamespace event in ${namespace}`, async () => {
        const r = await ts.request('GET', `/api/v1/namespaces/${namespace}/events`);
        return r.json?.items?.find((e: any) => e.reason === 'OwnerRefInvalidNamespace' && e.involvedObject?.uid === uid);
      });
    const nsEvent = await eventFor(ns, dep.metadata.uid);
    assert.equal(nsEvent.type, 'Warning');
    assert.equal(nsEvent.message, `ownerRef [v1/ConfigMap, namespace: ${ns}, name: elsewhere-owner, uid: ${foreignOwner.metadata.uid}] does not exist in namespace "${ns}"`);
    assert.deepEqual(nsEvent.involvedObject, { kind: 'ConfigMap', namespace: ns, name: 'wrong-ns-dep', uid: dep.metadata.uid, apiVersion: 'v1' });
    assert.equal(nsEvent.source?.component, 'garbage-collector-controller');
    // The owner, in its own namespace, is untouched; the dependent counts as orphaned and goes.
    await eventuallyGone(ts, cmPath('wrong-ns-dep'));
    assert.equal((await ts.request('GET', cmPath('elsewhere-owner', ns2))).status, 200);

    // A cluster-scoped dependent of a namespaced kind: reported once (in `default`), and left alone.
    const crEvent = await eventFor('default', cr.json.metadata.uid);
    assert.equal(crEvent.message, `ownerRef [v1/ConfigMap, namespace: , name: local-owner-2, uid: ${local.metadata.uid}] does not exist in namespace ""`);
    assert.deepEqual(crEvent.involvedObject, { kind: 'ClusterRole', name: crName, uid: cr.json.metadata.uid, apiVersion: 'rbac.authorization.k8s.io/v1' });
    await staysPresent(ts, `/apis/rbac.authorization.k8s.io/v1/clusterroles/${crName}`, 500);
  });
});

describe('garbage collector across a restart', () => {
  let rootDir: string;
  before(() => {
    rootDir = mkdtempSync(join(tmpdir(), 'atrium-gc-restart-'));
  });
  after(() => rmSync(rootDir, { recursive: true, force: true }));

  async function start(builtinControllers: boolean): Promise<TestServer> {
    return startTestServer({ rootDir, server: { builtinControllers } });
  }

  it('resumes background and foreground cascades that were pending when it was not running', async () => {
    let ts = await start(false);
    const ns = 'restart-gc';
    assert.equal((await ts.request('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status, 201);
    const mk = async (name: string, meta: Record<string, unknown> = {}) => {
      const r = await ts.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name, ...meta } });
      assert.equal(r.status, 201, r.text);
      return { apiVersion: 'v1', kind: 'ConfigMap', ...r.json };
    };
    const bgOwner = await mk('bg-owner');
    await mk('bg-dep', { ownerReferences: [ownerRef(bgOwner)] });
    const fgOwner = await mk('fg-owner');
    await mk('fg-dep', { ownerReferences: [ownerRef(fgOwner, { blockOwnerDeletion: true })] });
    assert.equal((await ts.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/bg-owner`)).status, 200);
    assert.equal((await ts.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/fg-owner`, { propagationPolicy: 'Foreground' })).status, 200);
    // No collector runs: the cascade is pending, visible only as API state.
    await staysPresent(ts, `/api/v1/namespaces/${ns}/configmaps/bg-dep`, 300);
    await staysPresent(ts, `/api/v1/namespaces/${ns}/configmaps/fg-owner`, 100);
    await ts.stop();

    ts = await start(true);
    try {
      await eventuallyGone(ts, `/api/v1/namespaces/${ns}/configmaps/bg-dep`);
      await eventuallyGone(ts, `/api/v1/namespaces/${ns}/configmaps/fg-dep`);
      await eventuallyGone(ts, `/api/v1/namespaces/${ns}/configmaps/fg-owner`);
    } finally {
      await ts.stop();
    }
  });

  it('resumes a foreground cascade interrupted mid-way', async () => {
    let ts = await start(true);
    const ns = 'restart-gc-mid';
    assert.equal((await ts.request('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status, 201);
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const owner = await ts.request('POST', base, { metadata: { name: 'owner' } });
    const ownerObj = { apiVersion: 'v1', kind: 'ConfigMap', ...owner.json };
    await ts.request('POST', base, { metadata: { name: 'held', ownerReferences: [ownerRef(ownerObj, { blockOwnerDeletion: true })], finalizers: ['example.com/hold'] } });
    await ts.request('POST', base, { metadata: { name: 'free', ownerReferences: [ownerRef(ownerObj, { blockOwnerDeletion: true })] } });
    assert.equal((await ts.request('DELETE', `${base}/owner`, { propagationPolicy: 'Foreground' })).status, 200);
    await eventuallyGone(ts, `${base}/free`);
    await eventually('held marked for deletion', async () => (await ts.request('GET', `${base}/held`)).json?.metadata?.deletionTimestamp);
    await ts.stop();

    ts = await start(true);
    try {
      await staysPresent(ts, `${base}/owner`, 500);
      const r = await ts.request('PATCH', `${base}/held`, JSON.stringify({ metadata: { finalizers: null } }), mergePatchHeaders);
      assert.equal(r.status, 200, r.text);
      await eventuallyGone(ts, `${base}/held`);
      await eventuallyGone(ts, `${base}/owner`);
    } finally {
      await ts.stop();
    }
  });
  /** Runs `atrium start` on rootDir as a child process; resolves once it serves. */
  function spawnAtrium(): Promise<{ child: ChildProcess; ts: TestServer; exited: Promise<unknown> }> {
    const child = spawn(process.execPath, [atriumBin, 'start', '--root-dir', rootDir, '--secure-port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ATRIUM_LOG_LEVEL: 'warn' },
    });
    const exited = new Promise((r) => child.once('exit', r));
    let out = '';
    return new Promise((resolveStart, reject) => {
      child.stderr!.on('data', (d) => (out += d));
      child.stdout!.on('data', (d) => {
        out += d;
        const m = /atrium is serving at (https:\/\/\S+);/.exec(out);
        if (m) resolveStart({ child, exited, ts: harnessFor({ url: m[1]! } as RunningServer, rootDir, async () => undefined) });
      });
      void exited.then(() => reject(new Error(`atrium exited before serving: ${out}`)));
    });
  }

  // A cascade over many dependents, cut off by a crash (SIGKILL of the server process) right after its first
  // dependent went, must finish after the restart with nothing lost (no object of an unrelated owner deleted) or
  // leaked (no dependent of the deleted owner left, and in the foreground the owner itself gone last).
  for (const policy of ['Background', 'Foreground'] as const) {
    it(`finishes a ${policy} cascade over many dependents cut off mid-way, without losing or leaking objects`, async () => {
      const ns = `restart-gc-many-${policy.toLowerCase()}`;
      const base = `/api/v1/namespaces/${ns}/configmaps`;
      const dependents = 1500;
      const keepers = 50;
      let ts = await start(false);
      assert.equal((await ts.request('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status, 201);
      const make = async (name: string, meta: Record<string, unknown> = {}) => {
        const r = await ts.request('POST', base, { metadata: { name, ...meta } });
        assert.equal(r.status, 201, r.text);
        return { apiVersion: 'v1', kind: 'ConfigMap', ...r.json };
      };
      const owner = await make('owner');
      const keeper = await make('keeper');
      const batch = async (n: number, mk: (i: number) => Promise<unknown>) => {
        for (let i = 0; i < n; i += 50) await Promise.all(Array.from({ length: Math.min(50, n - i) }, (_, j) => mk(i + j)));
      };
      await batch(dependents, (i) => make(`dep-${i}`, { labels: { role: 'dep' }, ownerReferences: [ownerRef(owner, { blockOwnerDeletion: true })] }));
      await batch(keepers, (i) => make(`kept-${i}`, { labels: { role: 'kept' }, ownerReferences: [ownerRef(keeper, { blockOwnerDeletion: true })] }));
      await ts.stop();

      const crashing = await spawnAtrium();
      try {
        const listed = await crashing.ts.request('GET', `${base}?labelSelector=role%3Ddep`);
        const watch = await openWatch(crashing.ts, `${base}?watch=true&labelSelector=role%3Ddep&resourceVersion=${listed.json.metadata.resourceVersion}`);
        assert.equal((await crashing.ts.request('DELETE', `${base}/owner`, { propagationPolicy: policy })).status, 200);
        await watch.next(15_000);
        watch.close();
      } finally {
        crashing.child.kill('SIGKILL');
        await crashing.exited;
        await crashing.ts.stop();
      }

      ts = await start(false);
      const midway = (await ts.request('GET', `${base}?labelSelector=role%3Ddep`)).json.items.length;
      assert.ok(midway > 0 && midway < dependents, `the cascade should have been cut off mid-way (${midway} of ${dependents} dependents left)`);
      await ts.stop();

      ts = await start(true);
      try {
        await eventually('every dependent of the deleted owner gone', async () => (await ts.request('GET', `${base}?labelSelector=role%3Ddep`)).json.items.length === 0, 30_000, 100);
        await eventuallyGone(ts, `${base}/owner`);
        const kept = await ts.request('GET', `${base}?labelSelector=role%3Dkept`);
        assert.equal(kept.json.items.length, keepers);
        assert.equal((await ts.request('GET', `${base}/keeper`)).status, 200);
      } finally {
        await ts.stop();
      }
    });
  }
});
