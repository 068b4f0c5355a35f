import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  decodeKubernetesProtobuf,
  isKubernetesProtobuf,
  ProtobufDecodeError,
} from '../../../src/apimachinery/protobuf/decode.js';
import { builtinCatalog, builtinProtobufHints } from '../../../src/apimachinery/schema/builtin/index.js';
import { loadFixtures } from './fixture-support.js';

// Minimal hand-rolled protobuf writer so these tests do not depend on the code under test.
function varint(value: bigint | number): number[] {
  let v = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    out.push(byte);
  } while (v > 0n);
  return out;
}
const bytesOf = (text: string) => [...Buffer.from(text, 'utf8')];
const vi = (field: number, value: bigint | number) => [...varint(field << 3), ...varint(value)];
const ld = (field: number, payload: number[]) => [...varint((field << 3) | 2), ...varint(payload.length), ...payload];
const str = (field: number, text: string) => ld(field, bytesOf(text));
const f64 = (field: number, value: number) => {
  const b = Buffer.alloc(8);
  b.writeDoubleLE(value);
  return [...varint((field << 3) | 1), ...b];
};
const MAGIC = [0x6b, 0x38, 0x73, 0x00];
function body(apiVersion: string, kind: string, raw: number[], extra: number[] = []): Uint8Array {
  return Uint8Array.from([...MAGIC, ...ld(1, [...str(1, apiVersion), ...str(2, kind)]), ...ld(2, raw), ...extra]);
}
const decode = (apiVersion: string, kind: string, raw: number[]) => decodeKubernetesProtobuf(body(apiVersion, kind, raw)).object;

describe('isKubernetesProtobuf', () => {
  const cases: [string, number[], boolean][] = [
    ['magic only', MAGIC, true],
    ['magic and more', [...MAGIC, 1, 2], true],
    ['too short', [0x6b, 0x38, 0x73], false],
    ['JSON', bytesOf('{"kind":"Namespace"}'), false],
    ['empty', [], false],
  ];
  for (const [name, bytes, expected] of cases) {
    it(name, () => assert.equal(isKubernetesProtobuf(Uint8Array.from(bytes)), expected));
  }
});

describe('decodeKubernetesProtobuf: envelope errors', () => {
  const cases: [string, Uint8Array, RegExp][] = [
    ['no magic', Uint8Array.from(bytesOf('{}')), /does not start with the magic bytes 6b 38 73 00/],
    ['no kind', body('v1', '', []), /names no kind/],
    ['unknown kind', body('v1', 'Gizmo', []), /protobuf is not supported for v1, Kind=Gizmo; send the body as application\/json/],
    ['a JSON-only kind (kcp tenancy, served like a custom resource)', body('tenancy.kcp.io/v1alpha1', 'Workspace', []), /protobuf is not supported for tenancy\.kcp\.io\/v1alpha1, Kind=Workspace/],
    ['unknown group', body('apps/v1', 'Namespace', []), /apps\/v1, Kind=Namespace/],
    ['content encoding', body('v1', 'Namespace', [], str(3, 'gzip')), /content encoding "gzip" is not supported/],
    ['foreign content type', body('v1', 'Namespace', [], str(4, 'application/json')), /content type "application\/json"/],
    ['envelope field with wrong wire type', Uint8Array.from([...MAGIC, ...vi(1, 5)]), /runtime.Unknown field 1 has wire type 0/],
    ['truncated envelope', Uint8Array.from([...MAGIC, 0x0a, 0x20, 0x0a]), /malformed runtime.Unknown envelope: length 32 .* runs past the end/],
  ];
  for (const [name, input, message] of cases) {
    it(name, () => {
      assert.throws(() => decodeKubernetesProtobuf(input), (err: unknown) => {
        assert.ok(err instanceof ProtobufDecodeError && err instanceof Error);
        assert.match(err.message, message);
        return true;
      });
    });
  }

  it('accepts an empty raw object and the explicit protobuf content type', () => {
    const input = body('v1', 'ConfigMap', [], str(4, 'application/vnd.kubernetes.protobuf'));
    assert.deepEqual(decodeKubernetesProtobuf(input).object, { apiVersion: 'v1', kind: 'ConfigMap' });
  });
});

describe('decodeKubernetesProtobuf: field errors name the path', () => {
  const cases: [string, number[], RegExp][] = [
    ['string sent as varint', ld(1, vi(1, 7)), /ConfigMap: metadata.name: expected wire type 2 \(length-delimited\) for a string, got 0 \(varint\)/],
    ['truncated nested message', [0x0a, 0x05, 0x0a, 0x03, 0x61], /metadata: length 5 at offset \d+ runs past the end/],
    ['map entry with bad key', ld(2, vi(1, 1)), /data: expected wire type 2 .* for a map key/],
    ['invalid wire type', [0x0f], /invalid wire type 7 at offset/],
    ['field number zero', [0x02, 0x00], /invalid field number 0/],
    ['overlong varint', [...ld(1, [0x38, ...Array(11).fill(0xff)])], /metadata.generation: varint longer than 10 bytes/],
    ['bad JSON in managedFields', ld(1, ld(17, ld(7, str(1, '{not json')))), /metadata.managedFields\[0\].fieldsV1: raw bytes are not valid JSON/],
  ];
  for (const [name, raw, message] of cases) {
    it(name, () => assert.throws(() => decode('v1', 'ConfigMap', raw), message));
  }
});

describe('decodeKubernetesProtobuf: values', () => {
  it('skips unknown field numbers of every wire type', () => {
    const raw = [...ld(1, [...str(1, 'cm'), ...vi(99, 5), ...f64(98, 1.5), ...str(97, 'x')]), ...[0xf5, 0x07, 1, 2, 3, 4], ...str(4242, 'future')];
    assert.deepEqual(decode('v1', 'ConfigMap', raw), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } });
  });

  it('skips unknown groups', () => {
    const group = [...varint((50 << 3) | 3), ...vi(1, 1), ...varint((50 << 3) | 4)];
    assert.deepEqual(decode('v1', 'ConfigMap', [...group, ...ld(1, str(1, 'cm'))]).metadata, { name: 'cm' });
  });

  it('drops zero scalars unless the JSON form keeps them', () => {
    const rb = decode('rbac.authorization.k8s.io/v1', 'RoleBinding', [
      ...ld(1, [...str(1, ''), ...vi(7, 0)]),
      ...ld(3, [...str(1, ''), ...str(2, 'ClusterRole'), ...str(3, 'view')]),
      ...ld(2, [...str(1, 'User'), ...str(2, ''), ...str(3, 'alice')]),
    ]);
    assert.deepEqual(rb, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: {},
      subjects: [{ kind: 'User', name: 'alice' }],
      roleRef: { apiGroup: '', kind: 'ClusterRole', name: 'view' },
    });
  });

  it('keeps zero values of pointer fields', () => {
    const lease = decode('coordination.k8s.io/v1', 'Lease', ld(2, [...str(1, ''), ...vi(2, 0), ...vi(5, 0)]));
    assert.deepEqual(lease.spec, { holderIdentity: '', leaseDurationSeconds: 0, leaseTransitions: 0 });
  });

  it('decodes negative int32 and large int64 values', () => {
    const event = decode('v1', 'Event', [...vi(8, -3), ...ld(1, vi(7, 2n ** 40n))]);
    assert.equal(event.count, -3);
    assert.deepEqual(event.metadata, { generation: 2 ** 40 });
    const beyond = decode('v1', 'Namespace', ld(1, vi(7, 2n ** 60n + 1n)));
    assert.deepEqual(beyond.metadata, { generation: 2 ** 60 });
  });

  it('formats Time with seconds and MicroTime with six fractional digits', () => {
    const ts = (seconds: number, nanos: number) => [...vi(1, seconds), ...vi(2, nanos)];
    const event = decode('v1', 'Event', [
      ...ld(6, ts(1715938212, 999_999_999)),
      ...ld(7, []),
      ...ld(10, ts(1715938261, 123_456_789)),
      ...ld(11, [...vi(1, 2), ...ld(2, ts(-1, 500_000_000))]),
    ]);
    assert.equal(event.firstTimestamp, '2024-05-17T09:30:12Z');
    assert.equal('lastTimestamp' in event, false, 'an empty Time message is the zero time and is omitted');
    assert.equal(event.eventTime, '2024-05-17T09:31:01.123456Z');
    assert.deepEqual(event.series, { count: 2, lastObservedTime: '1969-12-31T23:59:59.500000Z' });
  });

  it('rejects timestamps RFC 3339 cannot express', () => {
    assert.throws(() => decode('v1', 'Event', ld(6, vi(1, 10n ** 12n))), /firstTimestamp: timestamp .* outside the years 0000-9999/);
  });

  it('decodes bytes as base64 and keeps empty map values', () => {
    const entry = (k: string, v: number[] | null) => ld(3, [...str(1, k), ...(v ? ld(2, v) : [])]);
    const cm = decode('v1', 'ConfigMap', [...entry('bin', [0, 255, 16]), ...entry('none', null), ...entry('empty', [])]);
    assert.deepEqual(cm.binaryData, { bin: 'AP8Q', none: '', empty: '' });
  });

  it('keeps a "__proto__" map key as data', () => {
    const cm = decode('v1', 'ConfigMap', ld(2, [...str(1, '__proto__'), ...str(2, 'x')]));
    const data = cm.data as Record<string, unknown>;
    assert.deepEqual(Object.keys(data), ['__proto__']);
    assert.equal(Object.getPrototypeOf(data), Object.prototype);
  });

  it('unwraps list values inside maps (ExtraValue)', () => {
    const extra = (k: string, items: string[]) => ld(5, [...str(1, k), ...ld(2, items.flatMap((i) => str(1, i)))]);
    const sar = decode('authorization.k8s.io/v1', 'SubjectAccessReview', ld(2, [...extra('scopes', ['a', 'b']), ...extra('none', [])]));
    assert.deepEqual(sar.spec, { extra: { scopes: ['a', 'b'], none: [] } });
  });

  it('accepts packed and unpacked repeated scalars, with a caller-supplied catalog', () => {
    const catalog = new Map([
      [
        'test.Numbers',
        {
          name: 'test.Numbers',
          gvk: [{ group: 'test.example', version: 'v1', kind: 'Numbers' }],
          fields: [
            { name: 'ints', proto: 1, type: { list: { scalar: 'int32' as const } } },
            { name: 'flags', proto: 2, type: { list: { scalar: 'boolean' as const } } },
            { name: 'ratios', proto: 3, type: { list: { scalar: 'double' as const } } },
          ],
        },
      ],
    ]);
    const packedDoubles = [...varint((3 << 3) | 2), 16, ...f64(0, 0.25).slice(1), ...f64(0, -2).slice(1)];
    const raw = [...ld(1, [...varint(1), ...varint(-1), ...varint(300)]), ...vi(1, 7), ...ld(2, [1, 0]), ...packedDoubles];
    const { object } = decodeKubernetesProtobuf(body('test.example/v1', 'Numbers', raw), catalog);
    assert.deepEqual(object, { apiVersion: 'test.example/v1', kind: 'Numbers', ints: [1, -1, 300, 7], flags: [true, false], ratios: [0.25, -2] });
  });

  it('decodes JSONSchemaProps unions, JSON values and doubles', () => {
    const schema = (props: number[]) => props;
    const orBoolFalse = ld(30, vi(1, 0));
    const orBoolSchema = ld(30, [...vi(1, 1), ...ld(2, str(5, 'string'))]);
    const orArray = ld(24, [...ld(2, str(5, 'string')), ...ld(2, str(5, 'integer'))]);
    const depsArray = ld(32, [...str(1, 'a'), ...ld(2, [...str(2, 'b'), ...str(2, 'c')])]);
    const depsSchema = ld(32, [...str(1, 'd'), ...ld(2, ld(1, str(5, 'object')))]);
    const root = schema([
      ...str(5, 'object'),
      ...ld(29, [...str(1, 'free'), ...ld(2, orBoolFalse)]),
      ...ld(29, [...str(1, 'typed'), ...ld(2, orBoolSchema)]),
      ...ld(29, [...str(1, 'tuple'), ...ld(2, orArray)]),
      ...depsArray,
      ...depsSchema,
      ...ld(8, str(1, '{"a":[1,true,null]}')),
      ...f64(11, -0.5),
      ...ld(20, str(1, '"x"')),
    ]);
    const crd = decode('apiextensions.k8s.io/v1', 'CustomResourceDefinition', ld(2, ld(7, ld(4, ld(1, root)))));
    const versions = (crd.spec as { versions: { schema: { openAPIV3Schema: unknown } }[] }).versions;
    assert.deepEqual(versions[0]!.schema.openAPIV3Schema, {
      type: 'object',
      default: { a: [1, true, null] },
      minimum: -0.5,
      enum: ['x'],
      properties: {
        free: { additionalProperties: false },
        typed: { additionalProperties: { type: 'string' } },
        tuple: { items: [{ type: 'string' }, { type: 'integer' }] },
      },
      dependencies: { a: ['b', 'c'], d: { type: 'object' } },
    });
  });

  it('decodes DeleteOptions under any group version', () => {
    for (const apiVersion of ['v1', 'meta.k8s.io/v1', 'rbac.authorization.k8s.io/v1', 'apiextensions.k8s.io/v1', 'example.com/v1alpha1']) {
      const options = decode(apiVersion, 'DeleteOptions', [...vi(1, 0), ...vi(3, 0), ...str(4, 'Orphan')]);
      assert.deepEqual(options, { apiVersion, kind: 'DeleteOptions', gracePeriodSeconds: 0, orphanDependents: false, propagationPolicy: 'Orphan' });
    }
  });

  describe('embedded messages (Go structs JSON inlines but protobuf nests)', () => {
    // Pod.spec (2) > PodSpec.volumes (1) / containers (2) / ephemeralContainers (34).
    const podWithSpec = (spec: number[]) => decode('v1', 'Pod', ld(2, spec)).spec as Record<string, unknown>;
    const cases: [string, number[], Record<string, unknown>][] = [
      [
        'Volume.volumeSource (2) inlines hostPath and configMap, whose name comes from LocalObjectReference (1)',
        [
          ...ld(1, [...str(1, 'logs'), ...ld(2, ld(1, str(1, '/var/log')))]),
          ...ld(1, [...str(1, 'cfg'), ...ld(2, ld(19, [...ld(1, str(1, 'settings')), ...vi(3, 0)]))]),
        ],
        { volumes: [{ name: 'logs', hostPath: { path: '/var/log' } }, { name: 'cfg', configMap: { name: 'settings', defaultMode: 0 } }] },
      ],
      [
        'Probe.handler (1) inlines httpGet next to the probe timings; an empty handler adds nothing',
        [
          ...ld(2, [
            ...str(1, 'web'),
            ...ld(10, [...ld(1, ld(2, [...str(1, '/healthz'), ...ld(2, [...vi(1, 1), ...str(3, 'http')])])), ...vi(2, 5)]),
            ...ld(11, [...ld(1, []), ...vi(4, 7)]),
          ]),
        ],
        { containers: [{ name: 'web', livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, initialDelaySeconds: 5 }, readinessProbe: { periodSeconds: 7 } }] },
      ],
      [
        'EphemeralContainer.ephemeralContainerCommon (1) inlines the container fields',
        [...ld(34, [...ld(1, [...str(1, 'debug'), ...str(2, 'busybox'), ...vi(16, 1)]), ...str(2, 'web')])],
        { ephemeralContainers: [{ name: 'debug', image: 'busybox', stdin: true, targetContainerName: 'web' }] },
      ],
      [
        'a repeated embedded message merges over the earlier one',
        [...ld(1, [...ld(2, ld(2, [])), ...str(1, 'v'), ...ld(2, ld(1, str(1, '/data')))])],
        { volumes: [{ name: 'v', emptyDir: {}, hostPath: { path: '/data' } }] },
      ],
    ];
    for (const [name, spec, expected] of cases) it(name, () => assert.deepEqual(podWithSpec(spec), expected));

    it('error paths name the inlined fields at the parent level', () => {
      const badProbe = ld(2, [...str(1, 'web'), ...ld(10, ld(1, ld(2, vi(1, 3))))]);
      assert.throws(() => podWithSpec(badProbe), /spec\.containers\[0\]\.livenessProbe\.httpGet\.path: expected wire type 2/);
      assert.throws(() => podWithSpec(ld(1, vi(2, 1))), /spec\.volumes\[0\]: expected wire type 2 \(length-delimited\) for embedded io\.k8s\.api\.core\.v1\.VolumeSource/);
    });

    it('with hints that lack the embed, the nested message is skipped as unknown', () => {
      const withoutEmbeds = { emitZero: builtinProtobufHints.emitZero, wrappedList: builtinProtobufHints.wrappedList };
      const raw = ld(2, ld(1, [...str(1, 'logs'), ...ld(2, ld(1, str(1, '/var/log')))]));
      assert.deepEqual(decodeKubernetesProtobuf(body('v1', 'Pod', raw), builtinCatalog, withoutEmbeds).object.spec, { volumes: [{ name: 'logs' }] });
    });
  });

  it('rejects hostile nesting without exhausting the stack', () => {
    // notTarget: JSONSchemaProps.not (28) nested 5000 times.
    let inner: number[] = str(5, 'string');
    for (let i = 0; i < 5000; i++) inner = ld(28, inner);
    assert.throws(
      () => decode('apiextensions.k8s.io/v1', 'CustomResourceDefinition', ld(2, ld(7, ld(4, ld(1, inner))))),
      /nested deeper than 256 levels/,
    );
  });
});

describe('decodeKubernetesProtobuf: corrupt input never escapes as anything but ProtobufDecodeError', () => {
  const fixtures = loadFixtures();
  const expectCleanOutcome = (input: Uint8Array, label: string) => {
    try {
      decodeKubernetesProtobuf(input);
    } catch (err) {
      assert.ok(err instanceof ProtobufDecodeError, `${label}: ${String(err)}`);
    }
  };

  it('every truncation of every fixture', () => {
    for (const { name, protobuf } of fixtures) {
      for (let length = 0; length < protobuf.length; length++) expectCleanOutcome(protobuf.subarray(0, length), `${name}[:${length}]`);
    }
  });

  it('random byte corruption', () => {
    let seed = 12345;
    const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    for (const { name, protobuf } of fixtures) {
      for (let round = 0; round < 200; round++) {
        const copy = protobuf.slice();
        for (let hits = 1 + Math.floor(random() * 3); hits > 0; hits--) {
          copy[4 + Math.floor(random() * (copy.length - 4))] = Math.floor(random() * 256);
        }
        expectCleanOutcome(copy, `${name} round ${round}`);
      }
    }
  });
});
