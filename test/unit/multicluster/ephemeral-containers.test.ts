/**
 * Ephemeral containers (`kubectl debug`) between a workspace and its clusters: what a copy's create or PUT carries,
 * what the syncer keeps of the cluster's in a rewrite, what the syncer tunnel lets through, and a cluster's refusal
 * named as the workspace names the pod.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/apimachinery/object.js';
import { ephemeralContainersDiffer, ephemeralContainersOf, withEphemeralContainersOf } from '../../../src/multicluster/decisions/ephemeral-containers.js';
import { keepDownstreamAllocations } from '../../../src/multicluster/syncer/transform.js';
import { isTunnelledRequest } from '../../../src/multicluster/api/tunnel.js';
import { upstreamStatus } from '../../../src/multicluster/streams/mirror-ephemeral-containers.js';

const dbg = { name: 'dbg', image: 'busybox', targetContainerName: 'app' };
const pod = (ephemeral?: unknown[]): KubeObject => ({ metadata: { name: 'web' }, spec: { containers: [{ name: 'app', image: 'nginx' }], ...(ephemeral ? { ephemeralContainers: ephemeral } : {}) } });

describe('ephemeral containers between a workspace and a cluster', () => {
  it('a copy is created without them and replaced with those its target already has', () => {
    assert.deepEqual(ephemeralContainersOf(pod([dbg])), [dbg]);
    assert.equal(ephemeralContainersOf(pod([])), undefined);
    assert.equal(ephemeralContainersOf(pod()), undefined);
    const created = withEphemeralContainersOf(pod([dbg]), undefined);
    assert.equal((created.spec as Record<string, unknown>).ephemeralContainers, undefined);
    assert.deepEqual((created.spec as Record<string, unknown>).containers, [{ name: 'app', image: 'nginx' }]);
    const other = { name: 'other', image: 'alpine' };
    assert.deepEqual((withEphemeralContainersOf(pod([dbg, other]), pod([dbg])).spec as Record<string, unknown>).ephemeralContainers, [dbg]);
    const source = pod([dbg]);
    withEphemeralContainersOf(source, undefined);
    assert.deepEqual(ephemeralContainersOf(source), [dbg], 'the input is left alone');
  });

  it('tells when the copy lacks some', () => {
    assert.equal(ephemeralContainersDiffer(pod(), pod([dbg])), true);
    assert.equal(ephemeralContainersDiffer(pod([dbg]), pod([{ ...dbg }])), false);
    assert.equal(ephemeralContainersDiffer(pod([]), pod()), false);
  });

  it('a rewrite of a synced Pod keeps the cluster copy\'s ephemeral containers (a PUT cannot change them)', () => {
    const desired = pod([dbg, { name: 'new', image: 'alpine' }]);
    const existing = pod([dbg]);
    (existing.spec as Record<string, unknown>).nodeName = 'node-1';
    keepDownstreamAllocations('pods', desired, existing);
    assert.deepEqual((desired.spec as Record<string, unknown>).ephemeralContainers, [dbg]);
    assert.equal((desired.spec as Record<string, unknown>).nodeName, 'node-1');
    const none = pod([dbg]);
    keepDownstreamAllocations('pods', none, pod());
    assert.equal((none.spec as Record<string, unknown>).ephemeralContainers, undefined);
  });

  it('the syncer tunnel carries writes of a pod\'s ephemeral containers, nothing else of the pod', () => {
    const path = '/api/v1/namespaces/ns/pods/web/ephemeralcontainers';
    assert.equal(isTunnelledRequest('PATCH', `${path}?fieldManager=kubectl-debug`), true);
    assert.equal(isTunnelledRequest('PUT', path), true);
    assert.equal(isTunnelledRequest('GET', path), false);
    assert.equal(isTunnelledRequest('DELETE', path), false);
    assert.equal(isTunnelledRequest('PATCH', '/api/v1/namespaces/ns/pods/web'), false);
    assert.equal(isTunnelledRequest('PATCH', '/api/v1/namespaces/ns/pods/web/status'), false);
    // A mirror's eviction goes to its cluster too (streams/mirror-eviction.ts).
    assert.equal(isTunnelledRequest('POST', '/api/v1/namespaces/ns/pods/web/eviction'), true);
    assert.equal(isTunnelledRequest('POST', '/api/v1/namespaces/ns/pods/web/binding'), false);
  });

  it('a cluster\'s refusal names the pod as the workspace does', () => {
    const refusal = {
      status: 422,
      body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Invalid', code: 422, message: 'Pod "agent-x1" is invalid: spec.ephemeralContainers[0].targetContainerName: Not found: "nope"', details: { name: 'agent-x1', kind: 'Pod' } },
    };
    const s = upstreamStatus(refusal, 'agent-x1', 'agent--st-a-x1');
    assert.equal(s.message, 'Pod "agent--st-a-x1" is invalid: spec.ephemeralContainers[0].targetContainerName: Not found: "nope"');
    assert.equal(s.details?.name, 'agent--st-a-x1');
    assert.equal(s.code, 422);
    assert.deepEqual(upstreamStatus(refusal, 'web', 'web'), refusal.body, 'the same name: the Status as the cluster sent it');
    const text = upstreamStatus({ status: 502, body: 'bad gateway' }, 'web', 'web');
    assert.equal(text.code, 502);
    assert.match(text.message!, /bad gateway/);
  });
});
