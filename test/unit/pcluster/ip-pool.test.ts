/** The simulated load-balancer pool: CIDR parsing, the default pool per cluster name, and address allocation. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allocateAddress, defaultPoolCIDR, formatIPv4, ingressControllerAddress, parsePool, poolContains } from '../../../src/pcluster/controllers/loadbalancer/ip-pool.js';
import { isOurIngress, wantsLoadBalancer } from '../../../src/pcluster/controllers/loadbalancer/controller.js';

describe('--load-balancer-cidr', () => {
  const valid: [string, string, string, string][] = [
    ['172.18.200.0/24', '172.18.200.0/24', '172.18.200.1', '172.18.200.254'],
    ['10.0.0.0/30', '10.0.0.0/30', '10.0.0.1', '10.0.0.2'],
    ['192.168.1.4/31', '192.168.1.4/31', '192.168.1.4', '192.168.1.5'],
    ['192.168.1.9/32', '192.168.1.9/32', '192.168.1.9', '192.168.1.9'],
  ];
  for (const [text, cidr, first, last] of valid) {
    it(`${text}: hands out ${first} … ${last}`, () => {
      const pool = parsePool(text);
      assert.deepEqual([pool.cidr, formatIPv4(pool.first), formatIPv4(pool.last)], [cidr, first, last]);
    });
  }
  const invalid: [string, RegExp][] = [
    ['172.18.200.0', /expected an IPv4 network/],
    ['172.18.300.0/24', /expected an IPv4 network/],
    ['fd00::/64', /expected an IPv4 network/],
    ['172.18.200.5/24', /bits set beyond the prefix \(the network is 172\.18\.200\.0\/24\)/],
    ['10.0.0.0/33', /expected an IPv4 network/],
  ];
  for (const [text, message] of invalid) it(`rejects ${text}`, () => assert.throws(() => parsePool(text), message));
  it('the default pool is 172.18.<100-249>.0/24, stable per cluster name and different between names', () => {
    for (const name of ['east', 'west', 'cluster-1', 'a']) {
      const cidr = defaultPoolCIDR(name);
      assert.match(cidr, /^172\.18\.(\d+)\.0\/24$/);
      const n = Number(cidr.split('.')[2]);
      assert.ok(n >= 100 && n <= 249, cidr);
      assert.equal(defaultPoolCIDR(name), cidr);
    }
    assert.notEqual(defaultPoolCIDR('east'), defaultPoolCIDR('west'));
  });
});

describe('address allocation', () => {
  const pool = parsePool('172.18.200.0/29');
  it('the ingress controller has the first address', () => assert.equal(ingressControllerAddress(pool), '172.18.200.1'));
  const cases: [string, string[], string | undefined, string | undefined, unknown][] = [
    ['the lowest free address after the ingress controller’s', [], undefined, undefined, { ip: '172.18.200.2' }],
    ['skips addresses in use', ['172.18.200.2', '172.18.200.3'], undefined, undefined, { ip: '172.18.200.4' }],
    ['keeps the address a Service has', ['172.18.200.2'], '172.18.200.5', undefined, { ip: '172.18.200.5' }],
    ['but not one another Service has too', ['172.18.200.5'], '172.18.200.5', undefined, { ip: '172.18.200.2' }],
    ['nor one outside the pool', [], '10.1.1.1', undefined, { ip: '172.18.200.2' }],
    ['gives spec.loadBalancerIP when free', [], undefined, '203.0.113.7', { ip: '203.0.113.7' }],
    ['refuses a taken spec.loadBalancerIP', ['172.18.200.3'], undefined, '172.18.200.3', { error: 'requested loadBalancerIP "172.18.200.3" is already in use' }],
    ['refuses the ingress controller’s', [], undefined, '172.18.200.1', { error: 'requested loadBalancerIP "172.18.200.1" is already in use' }],
    ['refuses an invalid one', [], undefined, 'nope', { error: 'invalid loadBalancerIP "nope": not an IPv4 address' }],
    ['says when the pool is used up', ['172.18.200.2', '172.18.200.3', '172.18.200.4', '172.18.200.5', '172.18.200.6'], undefined, undefined, { error: 'no free address left in the load-balancer pool 172.18.200.0/29' }],
  ];
  for (const [name, used, current, requested, want] of cases) it(name, () => assert.deepEqual(allocateAddress(pool, new Set(used), current, requested), want));
  it('knows its addresses', () => {
    assert.equal(poolContains(pool, '172.18.200.6'), true);
    assert.equal(poolContains(pool, '172.18.200.7'), false, 'broadcast');
    assert.equal(poolContains(pool, '172.18.200.0'), false, 'network');
  });
});

describe('what the simulated cloud and ingress controller serve', () => {
  it('LoadBalancer Services without a loadBalancerClass, not being deleted', () => {
    assert.equal(wantsLoadBalancer({ spec: { type: 'LoadBalancer' } }), true);
    assert.equal(wantsLoadBalancer({ spec: { type: 'NodePort' } }), false);
    assert.equal(wantsLoadBalancer({ spec: { type: 'LoadBalancer', loadBalancerClass: 'example.com/lb' } }), false);
    assert.equal(wantsLoadBalancer({ metadata: { deletionTimestamp: '2024-01-01T00:00:00Z' }, spec: { type: 'LoadBalancer' } }), false);
  });
  it('Ingresses of a class of ours (by field or legacy annotation), or of no class', () => {
    const classes = new Map([
      ['atrium', { metadata: { name: 'atrium' }, spec: { controller: 'atrium.io/ingress-nginx-sim' } }],
      ['nginx', { metadata: { name: 'nginx' }, spec: { controller: 'k8s.io/ingress-nginx' } }],
    ]);
    const byName = (n: string) => classes.get(n);
    assert.equal(isOurIngress({ spec: { ingressClassName: 'atrium' } }, byName), true);
    assert.equal(isOurIngress({ spec: { ingressClassName: 'nginx' } }, byName), false);
    assert.equal(isOurIngress({ spec: { ingressClassName: 'missing' } }, byName), false);
    assert.equal(isOurIngress({ metadata: { annotations: { 'kubernetes.io/ingress.class': 'atrium' } }, spec: {} }, byName), true);
    assert.equal(isOurIngress({ spec: {} }, byName), true);
  });
});
