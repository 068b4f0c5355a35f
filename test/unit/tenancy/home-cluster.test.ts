/**
 * The home logical cluster name (kcp's HomeClusterName: base36 of the first 8 bytes of SHA-224(user name), one `0`
 * per leading zero byte) and the `user:<name>` path alias (kcp's UserRewriter). The expected names were printed by a
 * Go program running kcp's algorithm (sha256.Sum224, then Base36.BytesPad); the test also recomputes them here from
 * the documented algorithm, independently of the code under test.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { homeCanonicalPath, homeClusterName, rewriteUserPath } from '../../../src/tenancy/home-cluster.js';
import { WorkspaceIndex } from '../../../src/tenancy/workspace-index.js';

/** The documented algorithm, spelled out digit by digit (no BigInt.toString(36) shortcut). */
function expectedName(user: string): string {
  const bytes = [...createHash('sha224').update(user).digest().subarray(0, 8)];
  const zeros = bytes.findIndex((b) => b !== 0);
  if (zeros === -1) return '0'.repeat(8);
  let n = 0n;
  for (const b of bytes) n = n * 256n + BigInt(b);
  let digits = '';
  while (n > 0n) {
    digits = '0123456789abcdefghijklmnopqrstuvwxyz'[Number(n % 36n)] + digits;
    n /= 36n;
  }
  return '0'.repeat(zeros) + digits;
}

describe('homeClusterName', () => {
  const cases: [string, string][] = [
    ['admin', '1cjndwvct4w73'],
    ['alice', 'v1u4alow0iv9'],
    ['bob', '2okdry95y5lkv'],
    ['kcp-admin', 'kvdk2spgmbix'],
    ['paul', '2lnx8crc0f6a9'],
    ['alice@example.com', '8lzxt8ta0j0c'],
    // SHA-224 starting with one zero byte, then with two: one `0` of padding per zero byte.
    ['user-420', '086x7g9l1ke5'],
    ['user-88745', '001zfuql761h'],
  ];
  for (const [user, name] of cases) {
    it(`names ${user}'s home ${name}`, () => {
      assert.equal(expectedName(user), name, 'the independent computation agrees with kcp');
      assert.equal(homeClusterName(user), name);
    });
  }
  it('is a valid logical cluster name for any user name', () => {
    for (const user of ['system:admin', 'ÄÖÜ', '', 'x'.repeat(300)]) assert.match(homeClusterName(user), /^[0-9a-z]+$/);
  });
});

describe('rewriteUserPath (kcp UserRewriter)', () => {
  it('rewrites user:<name> and keeps what follows', () => {
    assert.deepEqual(rewriteUserPath(['user', 'paul']), ['2lnx8crc0f6a9']);
    assert.deepEqual(rewriteUserPath(['user', 'paul', 'abc', 'def']), ['2lnx8crc0f6a9', 'abc', 'def']);
  });
  it('leaves a bare user and every other path alone', () => {
    assert.deepEqual(rewriteUserPath(['user']), ['user']);
    assert.deepEqual(rewriteUserPath(['root', 'user', 'paul']), ['root', 'user', 'paul']);
  });
  it('gives the canonical path of a home', () => assert.equal(homeCanonicalPath('paul'), 'user:paul'));
  it('names a home by its cluster when user:<name> is no valid path (workspaces made inside stay reachable)', () => {
    for (const name of ['alice@example.com', 'Alice', 'oidc:alice']) assert.equal(homeCanonicalPath(name), homeClusterName(name));
  });
});

describe('WorkspaceIndex with the user rewriter', () => {
  it('resolves user:<name>[:rest] from the home cluster', () => {
    const index = new WorkspaceIndex([rewriteUserPath]);
    const home = homeClusterName('paul');
    index.upsertCluster({ name: home, path: 'user:paul', type: 'root:home', phase: 'Ready' });
    index.upsertCluster({ name: 'kid', path: 'user:paul:abc', type: 'root:universal', phase: 'Ready' });
    index.linkChild(home, 'abc', 'kid');
    assert.equal(index.resolve('user:paul'), home);
    assert.equal(index.resolve(home), home);
    assert.equal(index.resolve('user:paul:abc'), 'kid');
    assert.equal(index.resolve(`${home}:abc`), 'kid');
    assert.equal(index.resolve('user:peter'), undefined);
    assert.equal(index.resolve('user'), undefined);
  });
});
