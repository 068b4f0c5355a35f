import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { acceptingClusters, chooseCluster, refusal, type ChooseClusterInput, type ClusterCandidate } from '../../../src/multicluster/decisions/choose-cluster.js';

const c = (name: string, extra: Partial<ClusterCandidate> = {}): ClusterCandidate => ({ name, acceptance: 'Accepted', ...extra });
const base = { pods: 2, resource: 'statefulsets.apps', tieBreak: 'uid-1' };

describe('chooseCluster: one cluster for a whole workload', () => {
  const table: { name: string; input: ChooseClusterInput; want: string | { reason: string; match?: RegExp } }[] = [
    { name: 'the one with the most room', input: { ...base, candidates: [c('a', { room: 5 }), c('b', { room: 50 }), c('c', { room: 9 })] }, want: 'b' },
    { name: 'unknown room counts as unbounded', input: { ...base, candidates: [c('a', { room: 500 }), c('b')] }, want: 'b' },
    { name: 'too little room rules a cluster out', input: { ...base, pods: 6, candidates: [c('a', { room: 5 }), c('b', { room: 6 })] }, want: 'b' },
    { name: 'a cluster refusing the type is never chosen', input: { ...base, candidates: [c('a', { room: 99, acceptance: 'Incompatible' }), c('b', { room: 3 })] }, want: 'b' },
    { name: 'a cluster that has not reported is not chosen while another accepts', input: { ...base, candidates: [c('a', { acceptance: 'Pending' }), c('b', { room: 3 })] }, want: 'b' },
    { name: 'a NotReady cluster takes nothing new', input: { ...base, candidates: [c('a', { room: 99, ready: false }), c('b', { room: 3 })] }, want: 'b' },
    { name: 'sticky: the current cluster is kept although another has more room', input: { ...base, current: 'a', candidates: [c('a', { room: 0 }), c('b', { room: 99 })] }, want: 'a' },
    { name: 'sticky: kept while NotReady (failover takes it off the namespace, not this)', input: { ...base, current: 'a', candidates: [c('a', { ready: false }), c('b')] }, want: 'a' },
    { name: 'sticky: kept while its verdict is Pending', input: { ...base, current: 'a', candidates: [c('a', { acceptance: 'Pending' }), c('b')] }, want: 'a' },
    { name: 'moves when the current cluster refuses the type', input: { ...base, current: 'a', candidates: [c('a', { acceptance: 'Incompatible' }), c('b')] }, want: 'b' },
    { name: 'moves when the current cluster left the namespace', input: { ...base, current: 'gone', candidates: [c('a', { room: 1 }), c('b', { room: 9 })] }, want: 'b' },
    { name: 'no cluster: NoClusters', input: { ...base, candidates: [] }, want: { reason: 'NoClusters' } },
    { name: 'every cluster refuses: Incompatible, with each reason', input: { ...base, candidates: [c('b', { acceptance: 'Incompatible', message: 'spec.x: missing' }), c('a', { acceptance: 'Incompatible' })] }, want: { reason: 'Incompatible', match: /^no SyncTarget of the namespace accepts statefulsets\.apps: a: Incompatible; b: spec\.x: missing$/ } },
    { name: 'nothing accepted yet, some not reported: Pending', input: { ...base, candidates: [c('a', { acceptance: 'Incompatible' }), c('b', { acceptance: 'Pending' })] }, want: { reason: 'Pending' } },
    { name: 'accepting clusters all NotReady: Pending', input: { ...base, candidates: [c('a', { ready: false })] }, want: { reason: 'Pending', match: /is Ready/ } },
    { name: 'no room anywhere: NoRoom', input: { ...base, pods: 3, candidates: [c('a', { room: 2 }), c('b', { room: 0 })] }, want: { reason: 'NoRoom', match: /no SyncTarget has room for 3 pods: a fits 2, b fits 0/ } },
  ];
  for (const tc of table) {
    it(tc.name, () => {
      const got = chooseCluster(tc.input);
      if (typeof tc.want === 'string') assert.deepEqual('cluster' in got ? got.cluster : got, tc.want);
      else {
        assert.ok('reason' in got, JSON.stringify(got));
        assert.equal(got.reason, tc.want.reason);
        if (tc.want.match) assert.match(got.message, tc.want.match);
      }
    });
  }

  it('equal room: a stable choice that does not depend on the candidates\' order, and spreads objects', () => {
    const candidates = [c('a'), c('b'), c('c'), c('d')];
    const pick = (uid: string, list = candidates) => {
      const r = chooseCluster({ ...base, tieBreak: uid, candidates: list });
      return 'cluster' in r ? r.cluster : '';
    };
    const chosen = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const uid = `uid-${i}`;
      assert.equal(pick(uid), pick(uid, [...candidates].reverse()));
      chosen.add(pick(uid));
    }
    assert.ok(chosen.size >= 3, `40 objects over 4 equal clusters used ${[...chosen].join(',')}`);
  });

  it('reports whether the choice was kept', () => {
    assert.deepEqual(chooseCluster({ ...base, current: 'a', candidates: [c('a')] }), { cluster: 'a', kept: true });
    assert.deepEqual(chooseCluster({ ...base, candidates: [c('a')] }), { cluster: 'a', kept: false });
  });
});

describe('acceptingClusters and refusal', () => {
  it('lists the accepting clusters, sorted', () => {
    assert.deepEqual(acceptingClusters([c('b'), c('a'), c('c', { acceptance: 'Incompatible' }), c('d', { acceptance: 'Pending' })]), ['a', 'b']);
  });
  it('refuses only when no wanted cluster accepts', () => {
    const cands = [c('a', { acceptance: 'Incompatible', message: 'no' }), c('b'), c('p', { acceptance: 'Pending' })];
    assert.equal(refusal([], cands, 'ingresses.networking.k8s.io'), undefined);
    assert.equal(refusal(['a', 'b'], cands, 'ingresses.networking.k8s.io'), undefined);
    assert.deepEqual(refusal(['a'], cands, 'ingresses.networking.k8s.io'), { reason: 'Incompatible', message: 'no SyncTarget it should go to accepts ingresses.networking.k8s.io: a: no' });
    assert.equal(refusal(['a', 'p'], cands, 'x')?.reason, 'Pending');
  });
});
