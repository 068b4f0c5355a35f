/** Token file parsing, ServiceAccount JWTs and the per-user rate limiter. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { parseCsvLine, parseTokenFile } from '../../../src/auth/authn/token-file.js';
import { ServiceAccountTokens } from '../../../src/auth/authn/service-account-token.js';
import { PerUserRateLimiter } from '../../../src/auth/quota/rate-limiter.js';
import { StatusError } from '../../../src/apimachinery/status.js';

describe('token file', () => {
  it('parses kube CSV lines with optional quoted groups', () => {
    const t = parseTokenFile('t1,alice,u1,"g1,g2"\n\n t2,bob,u2\nt3,carol,u3,single\n');
    assert.deepEqual(t.get('t1'), { username: 'alice', uid: 'u1', groups: ['g1', 'g2'] });
    assert.deepEqual(t.get('t2'), { username: 'bob', uid: 'u2', groups: [] });
    assert.deepEqual(t.get('t3'), { username: 'carol', uid: 'u3', groups: ['single'] });
  });
  it('quoting rules', () => {
    assert.deepEqual(parseCsvLine('a,"b ""q"", c",d'), ['a', 'b "q", c', 'd']);
    assert.throws(() => parseCsvLine('a,"open'), /unterminated/);
  });
  it('rejects short lines with the line number', () => {
    assert.throws(() => parseTokenFile('ok,u,1\nbad,u\n', 'f.csv'), /f\.csv: line 2: must have at least 3 columns \(token, user name, user uid\), found 2/);
  });
});

describe('ServiceAccount tokens', () => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const sat = new ServiceAccountTokens(privateKey);
  const claims = { cluster: 'root', namespace: 'ns', name: 'robot', uid: 'u-1', audiences: [...sat.apiAudiences], expirationSeconds: 600 };

  it('round-trips its claims', () => {
    const { token } = sat.issue(claims);
    const v = sat.verify(token);
    assert.ok(!('error' in v));
    assert.equal(v.cluster, 'root');
    assert.equal(v.namespace, 'ns');
    assert.equal(v.name, 'robot');
    assert.equal(v.uid, 'u-1');
  });
  it('rejects tampering, expiry, another key and a foreign audience', () => {
    const { token } = sat.issue(claims);
    const [h, p, s] = token.split('.');
    const payload = JSON.parse(Buffer.from(p!, 'base64url').toString());
    payload['kubernetes.io'].clusterName = 'other';
    assert.ok('error' in sat.verify(`${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}`));
    assert.ok('error' in sat.verify(token, sat.apiAudiences, new Date(Date.now() + 601_000)));
    const other = new ServiceAccountTokens(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);
    assert.ok('error' in other.verify(token));
    assert.ok('error' in sat.verify(token, ['https://elsewhere']));
    assert.ok(!('error' in sat.verify(sat.issue({ ...claims, audiences: ['a', 'b'] }).token, ['b'])));
  });
});

describe('PerUserRateLimiter', () => {
  it('allows a burst of `rate`, then 429 with Retry-After, and refills over time; masters are exempt', () => {
    let now = 0;
    const rl = new PerUserRateLimiter(2, () => now);
    const bob = { username: 'bob', groups: [] };
    rl.admit(bob);
    rl.admit(bob);
    assert.throws(
      () => rl.admit(bob),
      (e: unknown) => e instanceof StatusError && e.code === 429 && e.headers['Retry-After'] === '1',
    );
    rl.admit({ username: 'alice', groups: [] });
    now = 500;
    rl.admit(bob);
    for (let i = 0; i < 100; i++) rl.admit({ username: 'admin', groups: ['system:masters'] });
  });
  it('gives every workspace\'s ServiceAccount of one name a bucket of its own', () => {
    const rl = new PerUserRateLimiter(1, () => 0);
    const sa = (cluster: string) => ({ username: 'system:serviceaccount:default:default', groups: [], extra: { 'authentication.kubernetes.io/cluster-name': [cluster] } });
    rl.admit(sa('tenant-a'));
    assert.throws(() => rl.admit(sa('tenant-a')), (e: unknown) => e instanceof StatusError && e.code === 429);
    rl.admit(sa('tenant-b'));
  });
});
