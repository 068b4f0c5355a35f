import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FieldPath, errorString } from '../../../src/apimachinery/field-errors.js';
import type { JSONSchemaProps } from '../../../src/apiextensions/schema/json-schema-props.js';
import { compileSchema } from '../../../src/apiextensions/schema/compile.js';
import { validateCRDSchema } from '../../../src/apiextensions/schema/validate-crd-schema.js';

const condition: JSONSchemaProps = {
  type: 'object',
  required: ['type', 'status'],
  properties: {
    type: { type: 'string', maxLength: 316 },
    status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
    reason: { type: 'string', maxLength: 1024 },
    message: { type: 'string', maxLength: 32768 },
    lastTransitionTime: { type: 'string', format: 'date-time' },
    observedGeneration: { type: 'integer', format: 'int64', minimum: 0 },
  },
};

/** A Certificate-like CRD schema (cert-manager style), written for these tests. */
const certificateSchema: JSONSchemaProps = {
  type: 'object',
  description: 'A Certificate resource',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      required: ['secretName', 'issuerRef'],
      'x-kubernetes-validations': [
        {
          rule: "!has(self.privateKey) || self.privateKey.algorithm != 'Ed25519' || !has(self.privateKey.size)",
          message: 'size must not be set for Ed25519 keys',
          fieldPath: '.privateKey.size',
        },
        { rule: 'has(self.commonName) || (has(self.dnsNames) && size(self.dnsNames) > 0)', message: 'at least one of commonName or dnsNames must be set' },
        { rule: 'self.secretName == oldSelf.secretName', message: 'secretName is immutable' },
      ],
      properties: {
        secretName: { type: 'string', minLength: 1, maxLength: 253, pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$' },
        commonName: { type: 'string', maxLength: 64 },
        dnsNames: { type: 'array', maxItems: 100, 'x-kubernetes-list-type': 'set', items: { type: 'string', maxLength: 253 } },
        duration: { type: 'string', pattern: '^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$', default: '2160h' },
        renewBefore: { type: 'string' },
        revisionHistoryLimit: { type: 'integer', format: 'int32', minimum: 1, nullable: true },
        isCA: { type: 'boolean', default: false },
        usages: {
          type: 'array',
          maxItems: 20,
          'x-kubernetes-list-type': 'set',
          items: { type: 'string', enum: ['digital signature', 'key encipherment', 'server auth', 'client auth'] },
        },
        issuerRef: {
          type: 'object',
          required: ['name'],
          properties: {
            name: { type: 'string', maxLength: 253 },
            kind: { type: 'string', default: 'Issuer', enum: ['Issuer', 'ClusterIssuer'] },
            group: { type: 'string', default: 'cert-manager.io' },
          },
        },
        privateKey: {
          type: 'object',
          properties: {
            algorithm: { type: 'string', enum: ['RSA', 'ECDSA', 'Ed25519'], default: 'RSA' },
            size: { type: 'integer' },
            rotationPolicy: { type: 'string', enum: ['Never', 'Always'], default: 'Always' },
          },
        },
        secretTemplate: {
          type: 'object',
          properties: {
            labels: { type: 'object', maxProperties: 64, additionalProperties: { type: 'string', maxLength: 63 } },
            annotations: { type: 'object', additionalProperties: { type: 'string' } },
          },
        },
        port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
        podTemplate: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
        keystores: {
          type: 'object',
          properties: {
            pkcs12: {
              type: 'object',
              required: ['create', 'passwordSecretRef'],
              properties: {
                create: { type: 'boolean' },
                passwordSecretRef: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, key: { type: 'string' } } },
              },
            },
          },
        },
      },
    },
    status: {
      type: 'object',
      properties: {
        conditions: {
          type: 'array',
          maxItems: 32,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['type'],
          items: condition,
        },
        notAfter: { type: 'string', format: 'date-time' },
        revision: { type: 'integer' },
      },
    },
  },
};

function certificate(spec: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'cert-manager.io/v1', kind: 'Certificate', metadata: { name: 'web', namespace: 'default' }, spec, ...extra };
}

const compiled = compileSchema(certificateSchema);

test('realistic schema: passes CRD validation (structural, defaults, CEL compile and cost)', () => {
  assert.deepEqual(validateCRDSchema(certificateSchema, FieldPath.root('spec').child('versions').index(0).child('schema').child('openAPIV3Schema')), []);
});

test('realistic schema: a valid object is pruned, defaulted and accepted', () => {
  const obj = certificate(
    {
      secretName: 'web-tls',
      dnsNames: ['a.example.com', 'b.example.com'],
      issuerRef: { name: 'letsencrypt', kind: 'ClusterIssuer' },
      privateKey: { algorithm: 'ECDSA', size: 256 },
      usages: ['server auth'],
      secretTemplate: { labels: { app: 'web' } },
      port: 'https',
      podTemplate: { apiVersion: 'v1', kind: 'Pod', metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] }, extra: true },
      unknownField: 1,
    },
    {
      status: {
        conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2024-05-01T10:00:00Z', observedGeneration: 1 }],
        notAfter: '2024-08-01T10:00:00Z',
      },
    },
  );
  (obj['metadata'] as Record<string, unknown>)['clusterName'] = 'old';
  const res = compiled.process(obj, undefined, { fieldValidation: 'Warn' });
  assert.deepEqual(res.errors.map(errorString), []);
  assert.deepEqual(res.unknownFields, ['metadata.clusterName', 'spec.unknownField']);
  const spec = obj['spec'] as Record<string, unknown>;
  assert.equal(spec['duration'], '2160h');
  assert.equal(spec['isCA'], false);
  assert.deepEqual(spec['issuerRef'], { name: 'letsencrypt', kind: 'ClusterIssuer', group: 'cert-manager.io' });
  assert.deepEqual(spec['privateKey'], { algorithm: 'ECDSA', size: 256, rotationPolicy: 'Always' });
  assert.equal((spec['podTemplate'] as Record<string, unknown>)['extra'], true);
});

test('realistic schema: an invalid object reports every error with upstream texts', () => {
  const obj = certificate({
    secretName: 'Bad_Name',
    dnsNames: ['a', 'a'],
    issuerRef: { kind: 'Nope' },
    duration: '90d',
    revisionHistoryLimit: null,
    usages: ['teleport'],
    port: true,
    podTemplate: { spec: {} },
  });
  const res = compiled.process(obj, undefined);
  assert.deepEqual(res.errors.map(errorString), [
    "spec.secretName: Invalid value: \"Bad_Name\": spec.secretName in body should match '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$'",
    "spec.duration: Invalid value: \"90d\": spec.duration in body should match '^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$'",
    'spec.usages[0]: Unsupported value: "teleport": supported values: "digital signature", "key encipherment", "server auth", "client auth"',
    'spec.issuerRef.kind: Unsupported value: "Nope": supported values: "Issuer", "ClusterIssuer"',
    'spec.issuerRef.name: Required value',
    'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
    'Invalid value: "": "spec.port" must validate at least one schema (anyOf)',
    'spec.port: Invalid value: "boolean": spec.port in body must be of type integer: "boolean"',
    'spec.podTemplate.apiVersion: Required value: must not be empty',
    'spec.podTemplate.kind: Required value: must not be empty',
    'spec.dnsNames[1]: Duplicate value: "a"',
    '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
  ]);
});

test('realistic schema: CEL rules run once the object is otherwise valid', () => {
  const obj = certificate({ secretName: 'web', issuerRef: { name: 'x' }, privateKey: { algorithm: 'Ed25519', size: 1 } });
  assert.deepEqual(compiled.process(obj, undefined).errors.map(errorString), [
    'spec.privateKey.size: Invalid value: "object": size must not be set for Ed25519 keys',
    'spec: Invalid value: "object": at least one of commonName or dnsNames must be set',
  ]);
});

test('realistic schema: transition rule on update', () => {
  const old = certificate({ secretName: 'web', commonName: 'web', issuerRef: { name: 'x' } });
  compiled.process(old, undefined);
  const obj = certificate({ secretName: 'web2', commonName: 'web', issuerRef: { name: 'x' } });
  assert.deepEqual(compiled.process(obj, old).errors.map(errorString), ['spec: Invalid value: "object": secretName is immutable']);
});

test('realistic schema: list-map duplicates in status conditions', () => {
  const obj = certificate(
    { secretName: 'web', commonName: 'web', issuerRef: { name: 'x' } },
    { status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'Ready', status: 'False' }] } },
  );
  const errs = compiled.process(obj, undefined).errors;
  assert.equal(errs.length, 1);
  assert.equal(errs[0]!.type, 'FieldValueDuplicate');
  assert.equal(errs[0]!.field, 'status.conditions[1]');
  assert.deepEqual(errs[0]!.value, { type: 'Ready' });
});

interface FieldValidationCase {
  mode: 'Strict' | 'Warn' | 'Ignore';
  unknownFields: string[];
  defaulted: boolean;
}

const fieldValidationCases: FieldValidationCase[] = [
  { mode: 'Strict', unknownFields: ['spec.bogus'], defaulted: false },
  { mode: 'Warn', unknownFields: ['spec.bogus'], defaulted: true },
  { mode: 'Ignore', unknownFields: [], defaulted: true },
];

for (const c of fieldValidationCases) {
  test(`process: fieldValidation=${c.mode}`, () => {
    const obj = certificate({ secretName: 'web', commonName: 'web', issuerRef: { name: 'x' }, bogus: 1 });
    const res = compiled.process(obj, undefined, { fieldValidation: c.mode });
    assert.deepEqual(res.unknownFields, c.unknownFields);
    assert.deepEqual(res.errors, []);
    assert.equal('bogus' in (obj['spec'] as Record<string, unknown>), false);
    assert.equal((obj['spec'] as Record<string, unknown>)['duration'] === '2160h', c.defaulted);
  });
}

test('process: nulls of non-nullable fields without defaults are dropped, nullable ones kept', () => {
  const obj = certificate({ secretName: 'web', commonName: 'web', issuerRef: { name: 'x' }, renewBefore: null, revisionHistoryLimit: null });
  assert.deepEqual(compiled.process(obj, undefined).errors, []);
  const spec = obj['spec'] as Record<string, unknown>;
  assert.equal('renewBefore' in spec, false);
  assert.equal(spec['revisionHistoryLimit'], null);
});

test('applyDefaults on read fills defaults added later', () => {
  const stored = certificate({ secretName: 'web', commonName: 'web', issuerRef: { name: 'x' } });
  compiled.applyDefaults(stored);
  assert.equal((stored['spec'] as Record<string, unknown>)['duration'], '2160h');
});
