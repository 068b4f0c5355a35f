/** Choosing a Shard for a workspace (kcp's chooseShardAndMarkCondition), and what scheduling writes about it. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/apimachinery/object.js';
import { applyShardToWorkspace, chooseShard, workspaceURL } from '../../../src/tenancy/shard-scheduling.js';

const shard = (name: string, labels?: Record<string, string>, annotations?: Record<string, string>, externalURL = `https://${name}.example`): KubeObject => ({
  metadata: { name, ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) },
  spec: { baseURL: externalURL, externalURL },
});
const workspace = (location?: unknown): KubeObject => ({ metadata: { name: 'w' }, spec: location === undefined ? {} : { location } });

const root = shard('root', { name: 'root' });
const eu = shard('eu', { name: 'eu', region: 'eu' });
const held = shard('held', { name: 'held' }, { 'experimental.core.kcp.io/unschedulable': '' });
const none = 'No available shards to schedule the workspace';

test('chooseShard: the selector picks among the schedulable Shards; none left or a bad selector is unschedulable', () => {
  const cases: [string, unknown, KubeObject[], string[] | string][] = [
    ['no location: every Shard', undefined, [root, eu], ['root', 'eu']],
    ['no selector', {}, [root, eu], ['root', 'eu']],
    ['an empty selector selects everything', { selector: {} }, [root, eu], ['root', 'eu']],
    ['matchLabels', { selector: { matchLabels: { region: 'eu' } } }, [root, eu], ['eu']],
    ['matchExpressions', { selector: { matchExpressions: [{ key: 'region', operator: 'DoesNotExist' }] } }, [root, eu], ['root']],
    ['nothing matches', { selector: { matchLabels: { name: 'doesnotexist' } } }, [root, eu], none],
    ['no Shards at all', undefined, [], none],
    ['unschedulable Shards are skipped, whatever the annotation value', { selector: { matchLabels: { name: 'held' } } }, [root, held], none],
    ['an unknown operator', { selector: { matchExpressions: [{ key: 'a', operator: 'Foo' }] } }, [root], 'spec.location.selector is invalid: "Foo" is not a valid label selector operator'],
    ['an invalid label value', { selector: { matchLabels: { name: 'a b' } } }, [root], /^spec\.location\.selector is invalid: values\[0\]\[name\]: Invalid value: "a b": /.source],
  ];
  for (const [what, location, shards, want] of cases) {
    const seen = new Set<string>();
    for (let i = 0; i < shards.length; i++) {
      const choice = chooseShard(workspace(location), shards, (n) => i % n);
      if ('unschedulable' in choice) {
        assert.ok(typeof want === 'string', `${what}: ${choice.unschedulable}`);
        if (want.startsWith('^')) assert.match(choice.unschedulable, new RegExp(want), what);
        else assert.equal(choice.unschedulable, want, what);
      } else seen.add(choice.shard.metadata!.name!);
    }
    if (Array.isArray(want)) assert.deepEqual([...seen].sort(), [...want].sort(), what);
    else if (shards.length === 0) assert.deepEqual(chooseShard(workspace(location), shards), { unschedulable: want }, what);
  }
});

test('applyShardToWorkspace: the shard annotations (kcp\'s hash) and the shard\'s region in place of the workspace\'s', () => {
  const w: KubeObject = { metadata: { name: 'w', labels: { region: 'mine', team: 'a' }, annotations: { keep: 'me' } } };
  applyShardToWorkspace(w, root, 'abc');
  assert.deepEqual(w.metadata, {
    name: 'w',
    labels: { team: 'a' },
    annotations: { keep: 'me', 'core.kcp.io/shard': 'root', 'internal.tenancy.kcp.io/shard': '1pfxsevk', 'internal.tenancy.kcp.io/cluster': 'abc' },
  });
  applyShardToWorkspace(w, eu, 'abc');
  assert.deepEqual(w.metadata!.labels, { team: 'a', region: 'eu' });
  const bare: KubeObject = { metadata: { name: 'b', labels: { region: 'x' } } };
  applyShardToWorkspace(bare, root, 'c');
  assert.equal(bare.metadata!.labels, undefined);
});

test('workspaceURL joins /clusters/<path> onto the externalURL\'s path, as Go\'s path.Join', () => {
  const cases: [string, string][] = [
    ['https://127.0.0.1:6443', 'https://127.0.0.1:6443/clusters/root:a'],
    ['https://kcp.example/', 'https://kcp.example/clusters/root:a'],
    ['https://kcp.example/prefix/', 'https://kcp.example/prefix/clusters/root:a'],
    ['https://kcp.example/a/../b?x=1', 'https://kcp.example/b/clusters/root:a?x=1'],
  ];
  for (const [external, want] of cases) assert.equal(workspaceURL(shard('s', undefined, undefined, external), 'root:a'), want, external);
});
