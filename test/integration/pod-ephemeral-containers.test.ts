/**
 * pods/ephemeralcontainers, the subresource `kubectl debug` writes, as kube-apiserver v1.32.4 serves it: listed in
 * discovery (kind Pod; get, patch, update), its GET answers the Pod, a write changes spec.ephemeralContainers and
 * nothing else (defaulted as a Pod body is, and leaving managedFields as they were, as upstream's strategy does), and
 * bad writes get upstream's messages — each expected text below is kube-apiserver's own answer to the same request.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { useSimulatedCluster } from '../helpers/simulated-cluster.js';

const server = useSimulatedCluster('ephemeral');
const POD = '/api/v1/namespaces/default/pods/web';
const STRATEGIC = { headers: { 'Content-Type': 'application/strategic-merge-patch+json' } };
const JSON_PATCH = { headers: { 'Content-Type': 'application/json-patch+json' } };

describe('pods/ephemeralcontainers', () => {
  before(async () => {
    const r = await server().request('POST', '/api/v1/namespaces/default/pods?fieldManager=creator', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } });
    assert.equal(r.status, 201, r.text);
  });

  it("is listed in discovery as kube-apiserver lists it, with the streaming subresources the cluster serves, in the installer's order", async () => {
    // kube-apiserver v1.32.4's /api/v1 lists these.
    const expected = [
      ['pods/attach', 'PodAttachOptions', ['create', 'get']],
      ['pods/binding', 'Binding', ['create']],
      ['pods/ephemeralcontainers', 'Pod', ['get', 'patch', 'update']],
      ['pods/eviction', 'Eviction', ['create']],
      ['pods/exec', 'PodExecOptions', ['create', 'get']],
      ['pods/log', 'Pod', ['get']],
      ['pods/portforward', 'PodPortForwardOptions', ['create', 'get']],
      ['pods/proxy', 'PodProxyOptions', ['create', 'delete', 'get', 'patch', 'update']],
      ['pods/status', 'Pod', ['get', 'patch', 'update']],
    ];
    const r = await server().request('GET', '/api/v1');
    const pods = (r.json.resources as { name: string; kind: string; verbs: string[] }[]).filter((x) => x.name.startsWith('pods/'));
    assert.deepEqual(pods.map((x) => [x.name, x.kind, x.verbs]), expected);
    const agg = await server().request('GET', '/api', undefined, { headers: { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } });
    assert.equal(agg.status, 200, agg.text);
    const entry = (agg.json.items[0].versions[0].resources as { resource: string; subresources: { subresource: string; responseKind: { kind: string }; verbs: string[] }[] }[]).find((x) => x.resource === 'pods')!;
    assert.deepEqual(entry.subresources.map((x) => [`pods/${x.subresource}`, x.responseKind.kind, x.verbs]), expected);
  });

  it('adds a debug container as kubectl debug does: defaulted, nothing else changed, managedFields as they were', async () => {
    const before = (await server().request('GET', POD)).json;
    const r = await server().request(
      'PATCH',
      `${POD}/ephemeralcontainers?fieldManager=kubectl-debug`,
      { metadata: { labels: { sneaked: 'in' } }, spec: { ephemeralContainers: [{ name: 'dbg', image: 'busybox', targetContainerName: 'app', stdin: true, tty: true }] } },
      STRATEGIC,
    );
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.kind, 'Pod');
    assert.deepEqual(r.json.spec.ephemeralContainers, [
      { name: 'dbg', image: 'busybox', resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'Always', stdin: true, tty: true, targetContainerName: 'app' },
    ]);
    assert.deepEqual(r.json.metadata.labels, { app: 'web' }, 'only spec.ephemeralContainers changes');
    assert.deepEqual(r.json.metadata.managedFields, before.metadata.managedFields, 'kube-apiserver records no ephemeralcontainers entry');
    const got = await server().request('GET', `${POD}/ephemeralcontainers`);
    assert.equal(got.status, 200);
    assert.equal(got.json.spec.ephemeralContainers[0].name, 'dbg');
  });

  it('refuses what upstream refuses, with its messages', async () => {
    const bad = await server().request(
      'PATCH',
      `${POD}/ephemeralcontainers`,
      {
        spec: {
          ephemeralContainers: [
            { name: 'x2', image: ' busybox', ports: [{ containerPort: 80 }], resources: { limits: {} }, restartPolicy: 'Always', lifecycle: { preStop: { exec: { command: ['a'] } } }, targetContainerName: 'nope', volumeMounts: [{ name: 'v', mountPath: '/a', subPath: 'b' }] },
            { name: 'app', image: 'x' },
          ],
        },
      },
      STRATEGIC,
    );
    assert.equal(bad.status, 422, bad.text);
    assert.equal(
      bad.json.message,
      'Pod "web" is invalid: [' +
        [
          'spec.ephemeralContainers[0].volumeMounts[0].name: Not found: "v"',
          'spec.ephemeralContainers[0].image: Invalid value: " busybox": must not have leading or trailing whitespace',
          'spec.ephemeralContainers[0].targetContainerName: Not found: "nope"',
          'spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container',
          'spec.ephemeralContainers[0].resources: Forbidden: cannot be set for an Ephemeral Container',
          'spec.ephemeralContainers[0].restartPolicy: Forbidden: cannot be set for an Ephemeral Container',
          'spec.ephemeralContainers[0].lifecycle: Forbidden: cannot be set for an Ephemeral Container',
          'spec.ephemeralContainers[0].volumeMounts[0].subPath: Forbidden: cannot be set for an Ephemeral Container',
          'spec.ephemeralContainers[1].name: Duplicate value: "app"',
        ].join(', ') +
        ']',
    );
    const removed = await server().request('PATCH', `${POD}/ephemeralcontainers`, [{ op: 'remove', path: '/spec/ephemeralContainers/0' }], JSON_PATCH);
    assert.equal(removed.status, 422);
    assert.equal(removed.json.message, 'Pod "web" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers "dbg" may not be removed\n');
    const changed = await server().request('PATCH', `${POD}/ephemeralcontainers`, [{ op: 'replace', path: '/spec/ephemeralContainers/0/image', value: 'alpine' }], JSON_PATCH);
    assert.equal(changed.status, 422);
    // Upstream appends go-cmp's diff of the container; atrium names the changed fields.
    assert.match(changed.json.message, /^Pod "web" is invalid: spec\.ephemeralContainers: Forbidden: existing ephemeral containers "dbg" may not be changed\n/);
  });

  it('a Pod cannot be created with ephemeral containers, nor get them through the main resource', async () => {
    const created = await server().request('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'direct' }, spec: { containers: [{ name: 'app', image: 'nginx' }], ephemeralContainers: [{ name: 'dbg', image: 'busybox' }] } });
    assert.equal(created.status, 422);
    assert.equal(created.json.message, 'Pod "direct" is invalid: spec.ephemeralContainers: Forbidden: cannot be set on create');
    const patched = await server().request('PATCH', POD, { spec: { ephemeralContainers: [{ name: 'other', image: 'busybox' }] } }, STRATEGIC);
    assert.equal(patched.status, 422, patched.text);
  });
});
