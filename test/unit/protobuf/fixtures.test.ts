import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeKubernetesProtobuf } from '../../../src/apimachinery/protobuf/decode.js';
import { encodeKubernetesProtobuf } from '../../../src/apimachinery/protobuf/encode.js';
import { dropNulls, hex, loadFixtures } from './fixture-support.js';

const fixtures = loadFixtures();

describe('protobuf bodies produced by the Go client libraries', () => {
  it('has the expected fixture set', () => {
    assert.ok(fixtures.length >= 25, `only ${fixtures.length} fixtures found`);
  });

  for (const fixture of fixtures) {
    it(`${fixture.name}.pb decodes to ${fixture.name}.json`, () => {
      const decoded = decodeKubernetesProtobuf(fixture.protobuf);
      assert.deepEqual(decoded.object, dropNulls(fixture.json));
      assert.equal(decoded.apiVersion, fixture.json.apiVersion);
      assert.equal(decoded.kind, fixture.json.kind);
    });

    it(`${fixture.name}.json survives encode -> decode`, () => {
      const expected = dropNulls(fixture.json) as Record<string, unknown>;
      assert.deepEqual(decodeKubernetesProtobuf(encodeKubernetesProtobuf(expected)).object, expected);
    });
  }
});

describe('workload fixtures carry the fields Go embeds in a nested protobuf message', () => {
  // Guards the fixtures themselves: these fields only survive decoding through the embedded-message hints.
  const decoded = (name: string) => {
    const fixture = fixtures.find((f) => f.name === name);
    assert.ok(fixture, name);
    return decodeKubernetesProtobuf(fixture.protobuf).object;
  };
  type PodSpec = { volumes: Record<string, unknown>[]; containers: Record<string, Record<string, unknown>>[] };

  it('deployment: volume sources, probe handlers and LocalObjectReference names', () => {
    const spec = (decoded('deployment') as { spec: { template: { spec: PodSpec } } }).spec.template.spec;
    assert.deepEqual(spec.volumes.map((v) => Object.keys(v).filter((k) => k !== 'name')), [['hostPath'], ['configMap'], ['secret'], ['emptyDir'], ['emptyDir']]);
    assert.equal((spec.volumes[1]!.configMap as { name: string }).name, 'settings');
    const web = spec.containers[0]!;
    assert.deepEqual(web.livenessProbe!.httpGet, { path: '/healthz', port: 'http', scheme: 'HTTP', httpHeaders: [{ name: 'X-Probe', value: 'liveness' }] });
    assert.deepEqual((web.readinessProbe!.httpGet as { port: unknown }).port, 8080);
    assert.deepEqual(web.startupProbe!.exec, { command: ['cat', '/tmp/started'] });
  });

  it('pod: ephemeral containers and projected sources', () => {
    const spec = (decoded('pod') as { spec: PodSpec & { ephemeralContainers: Record<string, unknown>[] } }).spec;
    assert.deepEqual(spec.ephemeralContainers[0], { name: 'debugger', image: 'busybox:1.36', env: [{ name: 'TARGET', value: 'web' }], resources: {}, stdin: true, tty: true, targetContainerName: 'web' });
    for (const source of ['persistentVolumeClaim', 'projected']) assert.ok(spec.volumes.some((v) => source in v), source);
  });
});

describe('captured kubectl 1.32 `kubectl create ns foo` body', () => {
  // The prefix is quoted in /work/shared/research/k8s-api.md §8; the rest is what the same Go code writes
  // (see namespace-minimal.pb): empty ObjectMeta strings, zero generation and creationTimestamp, empty spec
  // and status{phase:""}, then runtime.Unknown's empty contentEncoding and contentType.
  const capturedPrefix = '6b3873000a0f0a0276311209 4e616d657370616365121b0a130a03666f6f';
  const body = hex(`${capturedPrefix} 1200 1a00 2200 2a00 3200 3800 4200 1200 1a020a00 1a00 2200`);

  it('matches the bytes client-go produces', () => {
    const fromGo = fixtures.find((f) => f.name === 'namespace-minimal');
    assert.ok(fromGo);
    assert.deepEqual(body, fromGo.protobuf);
  });

  it('decodes to the object a JSON client sends', () => {
    assert.deepEqual(decodeKubernetesProtobuf(body), {
      apiVersion: 'v1',
      kind: 'Namespace',
      object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'foo' }, spec: {}, status: {} },
    });
  });
});
