import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/apimachinery/object.js';
import { mirroredSliceLabels, mirroredSlices, maxMirroredPerSubset, shouldMirror } from '../../../src/controllers/endpoints/mirroring-decisions.js';

const service = (selector?: Record<string, string>): KubeObject => ({ metadata: { name: 'db', namespace: 'ns' }, spec: { ports: [{ port: 5432 }], ...(selector ? { selector } : {}) } });
const endpoints = (extra: Partial<KubeObject> = {}): KubeObject => ({
  metadata: { name: 'db', namespace: 'ns', labels: { tier: 'db', 'kubernetes.io/service-name': 'other' } },
  subsets: [
    { addresses: [{ ip: '10.0.0.1', hostname: 'db-0', nodeName: 'n1', targetRef: { kind: 'Pod', name: 'db-0' } }], notReadyAddresses: [{ ip: '10.0.0.2' }], ports: [{ name: 'pg', port: 5432 }] },
    { addresses: [{ ip: 'fd00::1' }], ports: [{ port: 9187, protocol: 'TCP' }] },
  ],
  ...extra,
});

describe('endpointslice mirroring', () => {
  it('mirrors the Endpoints of a Service without a selector, unless skipped or a leader-election lock', () => {
    assert.equal(shouldMirror(endpoints(), service()), true);
    assert.equal(shouldMirror(endpoints(), service({ app: 'db' })), false, 'the endpointslice controller serves a selector');
    assert.equal(shouldMirror(endpoints(), undefined), false, 'no Service: nothing mirrored');
    assert.equal(shouldMirror(endpoints({ metadata: { name: 'db', labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } } }), service()), false);
    assert.equal(shouldMirror(endpoints({ metadata: { name: 'db', annotations: { 'control-plane.alpha.kubernetes.io/leader': '{}' } } }), service()), false);
  });

  it('one slice per subset: ready and not-ready addresses with their hostname, node and target; IPv4 only', () => {
    assert.deepEqual(mirroredSlices(endpoints()), [
      {
        ports: [{ name: 'pg', port: 5432, protocol: 'TCP' }],
        endpoints: [
          { addresses: ['10.0.0.1'], conditions: { ready: true }, hostname: 'db-0', targetRef: { kind: 'Pod', name: 'db-0' }, nodeName: 'n1' },
          { addresses: ['10.0.0.2'], conditions: { ready: false } },
        ],
      },
    ]);
  });

  it('caps a subset at the mirroring limit', () => {
    const many = Array.from({ length: maxMirroredPerSubset + 5 }, (_, i) => ({ ip: `10.1.${Math.floor(i / 250)}.${i % 250}` }));
    assert.equal(mirroredSlices({ metadata: { name: 'db' }, subsets: [{ addresses: many, ports: [{ port: 1 }] }] })[0]!.endpoints.length, maxMirroredPerSubset);
  });

  it('labels: the Endpoints\' own, then the Service name and the mirroring controller', () => {
    assert.deepEqual(mirroredSliceLabels(endpoints(), service()), { tier: 'db', 'kubernetes.io/service-name': 'db', 'endpointslice.kubernetes.io/managed-by': 'endpointslicemirroring-controller.k8s.io' });
  });
});
