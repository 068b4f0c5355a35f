/**
 * The revision history of a split Deployment (src/multicluster/splitter/revision-history.ts), with the real kubectl
 * against a fleet of two simulated clusters (in process, push mode, compute bound): a Deployment, `kubectl set
 * image`, `kubectl rollout history` listing revisions 1 and 2 (and `--revision=1` showing the first image),
 * `kubectl rollout undo` bringing the first image back (upstream and on the clusters, as revision 3), `kubectl get
 * rs` showing the ReplicaSets with DESIRED/CURRENT/READY, no ReplicaSet of the history placed or reaching a cluster,
 * and the history deleted with the Deployment.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runKubectl } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { fastScheduling, startFleet, type InProcessFleet } from '../helpers/fleet.js';
import { locatorOf } from '../../src/multicluster/api/keys.js';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { tableRows } from './support/kubectl-run.js';

const NS = 'rev';
const rsGVR = { group: 'apps', version: 'v1', resource: 'replicasets' };
const podsGVR = { group: '', version: 'v1', resource: 'pods' };
const namespacesGVR = { group: '', version: 'v1', resource: 'namespaces' };
const deploymentsGVR = { group: 'apps', version: 'v1', resource: 'deployments' };

describe('kubectl rollout history and undo of a split Deployment', { timeout: 300_000 }, () => {
  let fleet: InProcessFleet;
  const k = (args: string[]) => runKubectl(fleet.kubeconfig, ['-n', NS, ...args]);
  const ok = async (args: string[]) => {
    const r = await k(args);
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stdout}\n${r.stderr}`);
    return r.stdout;
  };
  const history = async () => tableRows(await ok(['rollout', 'history', 'deployment/web'])).filter((r) => /^\d+$/.test(r[0]!)).map((r) => r[0]);
  const upstreamRS = async () => (await fleet.up.list(rsGVR, { namespace: NS })).items as KubeObject[];
  /** The images the clusters' running pods of `web` use. */
  const clusterImages = async () => {
    const out: string[] = [];
    for (const c of fleet.clusters) {
      const ns = (await c.client.list(namespacesGVR)).items.find((n) => locatorOf(n)?.namespace === NS)?.metadata?.name;
      if (!ns) continue;
      for (const p of (await c.client.list(podsGVR, { namespace: ns }, { labelSelector: 'app=web' })).items as any[]) {
        if (!p.metadata.deletionTimestamp && p.status?.phase === 'Running') out.push(p.spec.containers[0].image);
      }
    }
    return out.sort();
  };
  const rollout = () => ok(['rollout', 'status', 'deployment/web', '--timeout=90s']);

  before(async () => {
    fleet = await startFleet({ name: 'revhistory', clusters: ['cluster-1', 'cluster-2'], multicluster: fastScheduling(), server: { builtinControllers: true }, bindCompute: true, waitReady: { resources: ['deployments'], timeoutMs: 60_000 } });
    await runKubectl(fleet.kubeconfig, ['create', 'namespace', NS]);
  });

  after(async () => {
    await fleet?.stop();
  });

  it('a new Deployment gets revision 1: one ReplicaSet <name>-<hash> owned by it, never placed', async () => {
    await ok(['create', 'deployment', 'web', '--image=nginx:1', '--replicas=3']);
    await rollout();
    await eventually('revision 1', async () => (await history()).join(',') === '1', 30_000, 200);
    const [rs] = await upstreamRS();
    const d = await fleet.up.get({ group: 'apps', version: 'v1', resource: 'deployments' }, 'web', { namespace: NS });
    assert.equal(d.metadata?.annotations?.['deployment.kubernetes.io/revision'], '1');
    assert.match(rs!.metadata!.name!, /^web-[bcdfghjklmnpqrstvwxz2456789]+$/);
    assert.equal(rs!.metadata?.labels?.['pod-template-hash'], rs!.metadata!.name!.slice(4));
    assert.equal(rs!.metadata?.labels?.['scheduling.atrium.io/revision-history'], 'true');
    assert.deepEqual(rs!.metadata?.ownerReferences?.map((r) => [r.kind, r.name, r.uid, r.controller]), [['Deployment', 'web', d.metadata?.uid, true]]);
    assert.equal(rs!.metadata?.annotations?.['deployment.kubernetes.io/revision'], '1');
    assert.equal(rs!.metadata?.annotations?.['deployment.kubernetes.io/desired-replicas'], '3');
    assert.ok(!Object.keys(rs!.metadata?.labels ?? {}).some((l) => l.startsWith('state.workload.kcp.io/')), 'no placement decision');
    assert.equal(rs!.metadata?.annotations?.['scheduling.atrium.io/scheduled'], undefined);
    await eventually('the ReplicaSet ready 3/3', async () => {
      const row = tableRows(await ok(['get', 'rs'])).find((r) => r[0] === rs!.metadata!.name);
      return row && row.slice(1, 4).join(' ') === '3 3 3';
    }, 30_000, 200);
  });

  it('kubectl set image: revision 2; rollout history lists 1 and 2; --revision=1 shows the first image', async () => {
    await ok(['set', 'image', 'deployment/web', 'nginx=nginx:2']);
    await rollout();
    await eventually('revisions 1 and 2', async () => (await history()).join(',') === '1,2', 30_000, 200);
    assert.match(await ok(['rollout', 'history', 'deployment/web', '--revision=1']), /Image:\s+nginx:1/);
    assert.match(await ok(['rollout', 'history', 'deployment/web', '--revision=2']), /Image:\s+nginx:2/);
    await eventually('the clusters run nginx:2', async () => (await clusterImages()).join(',') === 'nginx:2,nginx:2,nginx:2', 60_000, 300);
  });

  it('kubectl get rs: the current ReplicaSet 3/3/3, the old one 0/0/0', async () => {
    await eventually('DESIRED/CURRENT/READY', async () => {
      const rows = tableRows(await ok(['get', 'rs'])).slice(1);
      const byRevision = new Map((await upstreamRS()).map((rs) => [rs.metadata?.annotations?.['deployment.kubernetes.io/revision'], rs.metadata?.name]));
      const row = (rev: string) => rows.find((r) => r[0] === byRevision.get(rev))?.slice(1, 4).join(' ');
      return rows.length === 2 && row('2') === '3 3 3' && row('1') === '0 0 0';
    }, 30_000, 200);
  });

  it('kubectl rollout undo: the first image is back, as revision 3, upstream and on the clusters', async () => {
    const out = await ok(['rollout', 'undo', 'deployment/web']);
    assert.match(out, /rolled back/);
    const d = await fleet.up.get<any>({ group: 'apps', version: 'v1', resource: 'deployments' }, 'web', { namespace: NS });
    assert.equal(d.spec.template.spec.containers[0].image, 'nginx:1');
    assert.equal(d.spec.template.metadata.labels['pod-template-hash'], undefined);
    await rollout();
    await eventually('revisions 2 and 3', async () => (await history()).join(',') === '2,3', 30_000, 200).catch(async (e: Error) =>
      assert.fail(`${e.message}\n${(await k(['rollout', 'history', 'deployment/web'])).stdout}\n${JSON.stringify(await upstreamRS(), null, 1)}\n${JSON.stringify(await fleet.up.get({ group: 'apps', version: 'v1', resource: 'deployments' }, 'web', { namespace: NS }), null, 1)}`),
    );
    assert.match(await ok(['rollout', 'history', 'deployment/web', '--revision=3']), /Image:\s+nginx:1/);
    assert.equal((await upstreamRS()).length, 2, 'the first ReplicaSet was reused');
    await eventually('the clusters run nginx:1', async () => (await clusterImages()).join(',') === 'nginx:1,nginx:1,nginx:1', 60_000, 300);
  });

  it('no ReplicaSet of the history reaches a cluster', async () => {
    const names = new Set((await upstreamRS()).map((rs) => rs.metadata?.name));
    // A cluster holding no share has no child (a move under load, a target that flapped, keeps it so), so only the
    // clusters running a child must run its own ReplicaSets; at least one does.
    let running = 0;
    for (const c of fleet.clusters) {
      const downstream = (await c.client.list(rsGVR)).items as KubeObject[];
      const hasChild = (await c.client.list(deploymentsGVR)).items.some((d) => d.metadata?.name === `web--${c.name}`);
      if (hasChild) assert.ok(downstream.length > 0, `${c.name} runs the children's own ReplicaSets`);
      running += downstream.length;
      for (const rs of downstream) {
        assert.ok(!names.has(rs.metadata?.name), `${c.name} has ${rs.metadata?.name}`);
        assert.equal(rs.metadata?.labels?.['scheduling.atrium.io/revision-history'], undefined, `${c.name} has ${rs.metadata?.name}`);
        assert.match(rs.metadata!.name!, /^web--cluster-\d-/);
      }
    }
    assert.ok(running > 0, 'the children run their own ReplicaSets');
  });

  it('deleting the Deployment deletes its history', async () => {
    await ok(['delete', 'deployment', 'web']);
    await eventually('no ReplicaSet left upstream', async () => (await upstreamRS()).length === 0, 30_000, 200);
  });
});
