import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  builtinCatalog,
  builtinProtobufHints,
  definitionNameFor,
  fieldHintKey,
  typeDescriptorFor,
} from '../../../src/apimachinery/schema/builtin/index.js';
import type { FieldType } from '../../../src/apimachinery/schema/types.js';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const APIEXT = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1';
const CORE = 'io.k8s.api.core.v1';

function refsOf(type: FieldType): string[] {
  if ('ref' in type) return [type.ref];
  if ('list' in type) return refsOf(type.list);
  if ('map' in type) return refsOf(type.map);
  return [];
}

describe('builtin catalog integrity', () => {
  it('every reference resolves and every type is reachable by name', () => {
    for (const descriptor of builtinCatalog.values()) {
      for (const field of descriptor.fields) {
        for (const ref of refsOf(field.type)) assert.ok(builtinCatalog.has(ref), `${descriptor.name}.${field.name} -> ${ref}`);
      }
    }
  });

  it('every type and field has a short description', () => {
    for (const descriptor of builtinCatalog.values()) {
      assert.ok(descriptor.description && descriptor.description.length < 200, descriptor.name);
      for (const field of descriptor.fields) {
        assert.ok(field.description && field.description.length <= 200, `${descriptor.name}.${field.name}`);
      }
    }
  });

  it('protobuf numbers and JSON names are unique within a type', () => {
    for (const descriptor of builtinCatalog.values()) {
      const numbers = descriptor.fields.flatMap((f) => (f.proto === undefined ? [] : [f.proto]));
      assert.equal(new Set(numbers).size, numbers.length, descriptor.name);
      assert.equal(new Set(descriptor.fields.map((f) => f.name)).size, descriptor.fields.length, descriptor.name);
    }
  });

  it('k8s.io fields lack a protobuf number only for apiVersion, kind, or when an embedded message carries them', () => {
    for (const descriptor of builtinCatalog.values()) {
      // kcp's tenancy types are served as CRDs, which have no protobuf form.
      if (descriptor.name.startsWith('io.kcp.')) continue;
      const embeds = builtinProtobufHints.embeddedMessages?.get(descriptor.name) ?? [];
      const inlined = new Set(embeds.flatMap((embed) => builtinCatalog.get(embed.type)?.fields.map((f) => f.name) ?? []));
      for (const field of descriptor.fields) {
        if (field.proto !== undefined || ['apiVersion', 'kind'].includes(field.name)) continue;
        assert.ok(inlined.has(field.name), `${descriptor.name}.${field.name} has no protobuf number and no embedded message carries it`);
      }
    }
  });

  it('embedded messages: numbers are free in the parent and their fields appear in the parent as they are', () => {
    for (const [parentName, embeds] of builtinProtobufHints.embeddedMessages ?? []) {
      const parent = builtinCatalog.get(parentName);
      assert.ok(parent, parentName);
      const numbers = parent.fields.flatMap((f) => (f.proto === undefined ? [] : [f.proto]));
      for (const embed of embeds) {
        assert.ok(!numbers.includes(embed.proto), `${parentName}: field ${embed.proto} is both a field and an embed`);
        const inner = builtinCatalog.get(embed.type);
        assert.ok(inner, `${parentName} embeds unknown ${embed.type}`);
        for (const field of inner.fields) {
          const { proto: _number, ...atParent } = field;
          assert.deepEqual(parent.fields.find((f) => f.name === field.name), atParent, `${parentName}.${field.name}`);
        }
      }
    }
  });

  it('records every embed of the served core/v1 types (k8s.io/api v1.32 types.go `json:",inline"` with a protobuf tag)', () => {
    const embedsOf = (type: string) => builtinProtobufHints.embeddedMessages?.get(`${CORE}.${type}`)?.map((e) => [e.proto, e.type]);
    assert.deepEqual(embedsOf('Volume'), [[2, `${CORE}.VolumeSource`]]);
    assert.deepEqual(embedsOf('Probe'), [[1, `${CORE}.ProbeHandler`]]);
    assert.deepEqual(embedsOf('EphemeralContainer'), [[1, `${CORE}.EphemeralContainerCommon`]]);
    for (const type of ['ConfigMapVolumeSource', 'ConfigMapProjection', 'SecretProjection', 'ConfigMapKeySelector', 'SecretKeySelector', 'ConfigMapEnvSource', 'SecretEnvSource']) {
      assert.deepEqual(embedsOf(type), [[1, `${CORE}.LocalObjectReference`]], type);
    }
    assert.deepEqual(embedsOf('PersistentVolumeSpec'), [[2, `${CORE}.PersistentVolumeSource`]]);
    assert.deepEqual(builtinProtobufHints.embeddedMessages?.get('io.k8s.api.networking.v1.IngressRule')?.map((e) => [e.proto, e.type]), [[2, 'io.k8s.api.networking.v1.IngressRuleValue']]);
    const AR = 'io.k8s.api.admissionregistration.v1';
    assert.deepEqual(builtinProtobufHints.embeddedMessages?.get(`${AR}.RuleWithOperations`)?.map((e) => [e.proto, e.type]), [[2, `${AR}.Rule`]]);
    assert.deepEqual(builtinProtobufHints.embeddedMessages?.get(`${AR}.NamedRuleWithOperations`)?.map((e) => [e.proto, e.type]), [[2, `${AR}.RuleWithOperations`]]);
    assert.equal(builtinProtobufHints.embeddedMessages?.size, 14);
  });

  it('keeps the JSON field order of the Go struct around an embed', () => {
    const names = (type: string) => builtinCatalog.get(`${CORE}.${type}`)?.fields.map((f) => f.name);
    assert.deepEqual(names('Probe')?.slice(0, 5), ['exec', 'httpGet', 'tcpSocket', 'grpc', 'initialDelaySeconds']);
    assert.deepEqual(names('Volume')?.slice(0, 3), ['name', 'hostPath', 'emptyDir']);
    assert.equal(names('EphemeralContainer')?.at(-1), 'targetContainerName');
    assert.equal(names('EphemeralContainer')?.length, 25);
  });

  it('merge keys and list-map keys are consistent', () => {
    for (const descriptor of builtinCatalog.values()) {
      for (const field of descriptor.fields) {
        const where = `${descriptor.name}.${field.name}`;
        if (field.listMapKeys) assert.equal(field.listType, 'map', where);
        if (field.listType === 'map') assert.ok(field.listMapKeys?.length, where);
        if (field.patchMergeKey) assert.match(field.patchStrategy ?? '', /merge/, where);
        // A Go []byte is a slice too: upstream marks some atomic (a CSR's request and certificate).
        if (field.listType) assert.ok('list' in field.type || ('scalar' in field.type && field.type.scalar === 'bytes'), where);
      }
    }
  });

  it('hints only name existing fields', () => {
    for (const key of [...builtinProtobufHints.emitZero, ...builtinProtobufHints.wrappedList]) {
      const [typeName, fieldName] = key.split('#');
      assert.ok(builtinCatalog.get(typeName!)?.fields.some((f) => f.name === fieldName), key);
    }
  });
});

describe('builtin catalog facts (k8s.io generated.proto v1.32 and Go struct tags)', () => {
  const field = (type: string, name: string) => {
    const found = builtinCatalog.get(type)?.fields.find((f) => f.name === name);
    assert.ok(found, `${type}.${name}`);
    return found;
  };
  const protoNumbers: [string, string, number][] = [
    [`${META}.ObjectMeta`, 'name', 1],
    [`${META}.ObjectMeta`, 'generateName', 2],
    [`${META}.ObjectMeta`, 'creationTimestamp', 8],
    [`${META}.ObjectMeta`, 'labels', 11],
    [`${META}.ObjectMeta`, 'annotations', 12],
    [`${META}.ObjectMeta`, 'ownerReferences', 13],
    [`${META}.ObjectMeta`, 'finalizers', 14],
    [`${META}.ObjectMeta`, 'managedFields', 17],
    [`${META}.OwnerReference`, 'apiVersion', 5],
    [`${META}.DeleteOptions`, 'propagationPolicy', 4],
    [`${META}.DeleteOptions`, 'dryRun', 5],
    ['io.k8s.api.core.v1.Secret', 'immutable', 5],
    ['io.k8s.api.core.v1.Secret', 'stringData', 4],
    ['io.k8s.api.events.v1.Event', 'eventTime', 2],
    ['io.k8s.api.authorization.v1.SubjectAccessReviewStatus', 'denied', 4],
    [`${APIEXT}.CustomResourceDefinitionSpec`, 'versions', 7],
    [`${APIEXT}.JSONSchemaProps`, 'x-kubernetes-validations', 44],
    [`${APIEXT}.JSONSchemaProps`, '$ref', 3],
  ];
  for (const [type, name, proto] of protoNumbers) {
    it(`${type.split('.').pop()}.${name} is protobuf field ${proto}`, () => assert.equal(field(type, name).proto, proto));
  }

  it('carries merge and apply semantics', () => {
    const owners = field(`${META}.ObjectMeta`, 'ownerReferences');
    assert.deepEqual(
      [owners.patchStrategy, owners.patchMergeKey, owners.listType, owners.listMapKeys],
      ['merge', 'uid', 'map', ['uid']],
    );
    assert.equal(field(`${META}.ObjectMeta`, 'finalizers').listType, 'set');
    assert.equal(builtinCatalog.get(`${META}.LabelSelector`)?.mapType, 'atomic');
    assert.equal(field('io.k8s.api.rbac.v1.PolicyRule', 'verbs').required, true);
    assert.equal(field('io.k8s.api.rbac.v1.RoleBinding', 'roleRef').required, true);
    assert.equal(field(`${META}.ObjectMeta`, 'name').required, undefined);
    assert.deepEqual(field('io.k8s.api.core.v1.NamespaceStatus', 'phase').enum, ['Active', 'Terminating']);
  });

  it('models the JSONSchemaProps unions as field-less pseudo-types', () => {
    assert.deepEqual(field(`${APIEXT}.JSONSchemaProps`, 'items').type, { ref: `${APIEXT}.JSONSchemaPropsOrArray` });
    assert.deepEqual(field(`${APIEXT}.JSONSchemaProps`, 'additionalProperties').type, { ref: `${APIEXT}.JSONSchemaPropsOrBool` });
    assert.deepEqual(field(`${APIEXT}.JSONSchemaProps`, 'dependencies').type, { map: { ref: `${APIEXT}.JSONSchemaPropsOrStringArray` } });
    assert.deepEqual(field(`${APIEXT}.JSONSchemaProps`, 'default').type, { scalar: 'json' });
    assert.deepEqual(builtinCatalog.get(`${APIEXT}.JSONSchemaPropsOrBool`)?.fields, []);
  });

  it('records which zero values the JSON form keeps', () => {
    const keeps = (type: string, name: string) => builtinProtobufHints.emitZero.has(fieldHintKey(type, name));
    assert.equal(keeps(`${META}.DeleteOptions`, 'gracePeriodSeconds'), true);
    assert.equal(keeps('io.k8s.api.rbac.v1.RoleRef', 'apiGroup'), true);
    assert.equal(keeps(`${APIEXT}.CustomResourceDefinitionVersion`, 'served'), true);
    assert.equal(keeps(`${META}.ObjectMeta`, 'namespace'), false);
    assert.equal(keeps(`${APIEXT}.JSONSchemaProps`, 'uniqueItems'), false);
    assert.equal(keeps(`${APIEXT}.JSONSchemaProps`, 'minimum'), true);
    assert.equal(builtinProtobufHints.wrappedList.has(fieldHintKey(`${META}.APIResource`, 'verbs')), true);
  });
});

describe('definitionNameFor', () => {
  const cases: [string, string, string, string | undefined][] = [
    ['', 'v1', 'Namespace', 'io.k8s.api.core.v1.Namespace'],
    ['', 'v1', 'ConfigMap', 'io.k8s.api.core.v1.ConfigMap'],
    ['', 'v1', 'Secret', 'io.k8s.api.core.v1.Secret'],
    ['', 'v1', 'ServiceAccount', 'io.k8s.api.core.v1.ServiceAccount'],
    ['', 'v1', 'Event', 'io.k8s.api.core.v1.Event'],
    ['events.k8s.io', 'v1', 'Event', 'io.k8s.api.events.v1.Event'],
    ['coordination.k8s.io', 'v1', 'Lease', 'io.k8s.api.coordination.v1.Lease'],
    ['certificates.k8s.io', 'v1', 'CertificateSigningRequest', 'io.k8s.api.certificates.v1.CertificateSigningRequest'],
    ['rbac.authorization.k8s.io', 'v1', 'Role', 'io.k8s.api.rbac.v1.Role'],
    ['rbac.authorization.k8s.io', 'v1', 'ClusterRole', 'io.k8s.api.rbac.v1.ClusterRole'],
    ['rbac.authorization.k8s.io', 'v1', 'RoleBinding', 'io.k8s.api.rbac.v1.RoleBinding'],
    ['rbac.authorization.k8s.io', 'v1', 'ClusterRoleBinding', 'io.k8s.api.rbac.v1.ClusterRoleBinding'],
    ['authorization.k8s.io', 'v1', 'SelfSubjectAccessReview', 'io.k8s.api.authorization.v1.SelfSubjectAccessReview'],
    ['authorization.k8s.io', 'v1', 'SubjectAccessReview', 'io.k8s.api.authorization.v1.SubjectAccessReview'],
    ['authorization.k8s.io', 'v1', 'LocalSubjectAccessReview', 'io.k8s.api.authorization.v1.LocalSubjectAccessReview'],
    ['authorization.k8s.io', 'v1', 'SelfSubjectRulesReview', 'io.k8s.api.authorization.v1.SelfSubjectRulesReview'],
    ['authentication.k8s.io', 'v1', 'SelfSubjectReview', 'io.k8s.api.authentication.v1.SelfSubjectReview'],
    ['authentication.k8s.io', 'v1', 'TokenReview', 'io.k8s.api.authentication.v1.TokenReview'],
    ['authentication.k8s.io', 'v1', 'TokenRequest', 'io.k8s.api.authentication.v1.TokenRequest'],
    ['autoscaling', 'v1', 'Scale', 'io.k8s.api.autoscaling.v1.Scale'],
    ['apiextensions.k8s.io', 'v1', 'CustomResourceDefinition', `${APIEXT}.CustomResourceDefinition`],
    ['', 'v1', 'Status', `${META}.Status`],
    ['', 'v1', 'DeleteOptions', `${META}.DeleteOptions`],
    ['meta.k8s.io', 'v1', 'DeleteOptions', `${META}.DeleteOptions`],
    ['widgets.example.com', 'v1beta1', 'DeleteOptions', `${META}.DeleteOptions`],
    ['', 'v1', 'Pod', 'io.k8s.api.core.v1.Pod'],
    ['apps', 'v1', 'Deployment', 'io.k8s.api.apps.v1.Deployment'],
    ['', 'v1', 'Gizmo', undefined],
    ['apps', 'v1', 'Namespace', undefined],
    ['', 'v2', 'Namespace', undefined],
  ];
  for (const [group, version, kind, expected] of cases) {
    it(`${group || 'core'}/${version} ${kind} -> ${expected ?? 'undefined'}`, () => {
      assert.equal(definitionNameFor(group, version, kind), expected);
      assert.equal(typeDescriptorFor(group, version, kind)?.name, expected);
    });
  }
});
