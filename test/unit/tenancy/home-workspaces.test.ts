/**
 * The home workspace path scheme (kcp's two-level, two-letter SHA-1 buckets under root:users) and the user-name
 * sanitization of its last segment.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { homeSegment, homeWorkspacePath } from '../../../src/tenancy/home-workspaces.js';

describe('homeWorkspacePath', () => {
  const cases: [string, string][] = [
    // kcp printed this path for its admin user ("Current workspace is "root:users:zu:yc:kcp-admin"").
    ['kcp-admin', 'root:users:zu:yc:kcp-admin'],
    ['alice', 'root:users:ss:xx:alice'],
    ['system:serviceaccount:default:x', 'root:users:vx:yv:system-serviceaccount-default-x'],
  ];
  for (const [user, path] of cases) {
    it(`places ${user} at ${path}`, () => assert.equal(homeWorkspacePath(user), path));
  }
  it('puts different users in (usually) different buckets, deterministically', () => {
    assert.equal(homeWorkspacePath('bob'), homeWorkspacePath('bob'));
    assert.notEqual(homeWorkspacePath('bob').split(':').slice(0, 4).join(':'), homeWorkspacePath('alice').split(':').slice(0, 4).join(':'));
  });
});

describe('homeSegment', () => {
  const cases: [string, string][] = [
    ['user-1', 'user-1'],
    ['Alice', 'lice'], // upper case is not allowed and becomes '-', which is then trimmed on the left
    ['1st.user.', 'st-user'],
    ['a@b.com', 'a-b-com'],
    ['---', ''],
    ['42', ''],
  ];
  for (const [user, segment] of cases) {
    it(`sanitizes ${JSON.stringify(user)} to ${JSON.stringify(segment)}`, () => assert.equal(homeSegment(user), segment));
  }
});
