/**
 * The bound-token checks of the authenticator (pkg/serviceaccount/claims.go validator.Validate) with objects whose
 * deletion time is chosen: something being deleted still counts for jwt.DefaultLeeway (1 minute) after its
 * deletionTimestamp, then the token is "invalidated"; UID mismatches name the stored UID first, then the claim's.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { Authenticator } from '../../../src/auth/authn/authenticator.js';
import { ServiceAccountTokens } from '../../../src/auth/authn/service-account-token.js';
import type { KubeObject } from '../../../src/apimachinery/object.js';

const sat = new ServiceAccountTokens(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);
const NOW = new Date('2026-11-22T08:00:00Z');
const ago = (seconds: number): string => new Date(NOW.getTime() - seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

function setup(objects: Record<string, KubeObject>) {
  const auth = new Authenticator({
    tokens: new Map(),
    serviceAccountTokens: sat,
    getServiceAccount: async (_c, ns, name) => objects[`serviceaccounts/${ns}/${name}`],
    getCoreObject: async (_c, resource, ns, name) => objects[`${resource}/${ns}/${name}`],
    anonymous: false,
  });
  return (claims: Partial<Parameters<ServiceAccountTokens['issue']>[0]>) => {
    const { token } = sat.issue({ cluster: 'root', namespace: 'ns', name: 'robot', uid: 'sa-uid', audiences: [...sat.apiAudiences], expirationSeconds: 3600, ...claims }, new Date(NOW.getTime() - 1000));
    return auth.authenticateToken(token, undefined, NOW);
  };
}

const sa = (extra: Record<string, unknown> = {}): KubeObject => ({ metadata: { name: 'robot', namespace: 'ns', uid: 'sa-uid', ...extra } });
const obj = (name: string, uid: string, extra: Record<string, unknown> = {}): KubeObject => ({ metadata: { name, uid, ...extra } });

describe('bound ServiceAccount tokens', () => {
  it('a Secret being deleted counts for a minute after its deletionTimestamp, then invalidates the token', async () => {
    const recent = setup({ 'serviceaccounts/ns/robot': sa(), 'secrets/ns/s1': obj('s1', 's-uid', { deletionTimestamp: ago(30) }) });
    assert.ok('user' in (await recent({ secret: { name: 's1', uid: 's-uid' } })));
    const old = setup({ 'serviceaccounts/ns/robot': sa(), 'secrets/ns/s1': obj('s1', 's-uid', { deletionTimestamp: ago(90) }) });
    assert.deepEqual(await old({ secret: { name: 's1', uid: 's-uid' } }), { error: 'invalid bearer token, service account token has been invalidated' });
    const missing = setup({ 'serviceaccounts/ns/robot': sa() });
    assert.deepEqual(await missing({ secret: { name: 's1', uid: 's-uid' } }), { error: 'invalid bearer token, service account token has been invalidated' });
    const other = setup({ 'serviceaccounts/ns/robot': sa(), 'secrets/ns/s1': obj('s1', 'new-uid') });
    assert.deepEqual(await other({ secret: { name: 's1', uid: 's-uid' } }), { error: 'invalid bearer token, secret UID (new-uid) does not match service account secret ref claim (s-uid)' });
  });

  it('the ServiceAccount: UID mismatch names the stored UID first; deletion counts after the leeway', async () => {
    const replaced = setup({ 'serviceaccounts/ns/robot': obj('robot', 'other-uid') });
    assert.deepEqual(await replaced({}), { error: 'invalid bearer token, service account UID (other-uid) does not match claim (sa-uid)' });
    assert.ok('user' in (await setup({ 'serviceaccounts/ns/robot': sa({ deletionTimestamp: ago(10) }) })({})));
    assert.deepEqual(await setup({ 'serviceaccounts/ns/robot': sa({ deletionTimestamp: ago(61) }) })({}), { error: 'invalid bearer token, service account ns/robot has been deleted' });
  });

  it('a Pod-bound token reports its node without needing the Node; a Node-bound one needs the Node', async () => {
    const check = setup({ 'serviceaccounts/ns/robot': sa(), 'pods/ns/p1': obj('p1', 'p-uid') });
    const r = await check({ pod: { name: 'p1', uid: 'p-uid' }, node: { name: 'gone' } });
    assert.ok('user' in r);
    assert.deepEqual(Object.keys(r.user.extra!), [
      'authentication.kubernetes.io/cluster-name',
      'authentication.kubernetes.io/credential-id',
      'authentication.kubernetes.io/node-name',
      'authentication.kubernetes.io/pod-name',
      'authentication.kubernetes.io/pod-uid',
    ]);
    assert.deepEqual(await check({ node: { name: 'gone', uid: 'n-uid' } }), { error: 'invalid bearer token, service account token has been invalidated' });
    assert.deepEqual(await check({ pod: { name: 'p1', uid: 'old' } }), { error: 'invalid bearer token, pod UID (p-uid) does not match service account pod ref claim (old)' });
  });

  it('the claims writer puts only the bound object it is given, never a kind the caller chose', () => {
    const { token } = sat.issue({ cluster: 'root', namespace: 'ns', name: 'robot', uid: 'sa-uid', audiences: ['a'], expirationSeconds: 600, secret: { name: 's1', uid: 's-uid' } });
    const k = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString())['kubernetes.io'];
    assert.deepEqual(k, { namespace: 'ns', serviceaccount: { name: 'robot', uid: 'sa-uid' }, secret: { name: 's1', uid: 's-uid' }, clusterName: 'root' });
    assert.throws(() => sat.issue({ cluster: 'root', namespace: 'ns', name: 'robot', uid: 'u', audiences: ['a'], expirationSeconds: 600, secret: { name: 's' }, pod: { name: 'p' } }));
  });
});
