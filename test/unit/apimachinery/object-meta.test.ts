import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { errorString, FieldPath } from '../../../src/apimachinery/field-errors.js';
import {
  validateManagedFields,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from '../../../src/apimachinery/validation/object-meta.js';
import type { ObjectMeta } from '../../../src/apimachinery/object.js';

const subdomainMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const qualifiedNameMsg =
  "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
const namePartMsg =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const labelValueMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

const namespaced = { namespaced: true, nameValidator: 'subdomain' as const };
const clusterScoped = { namespaced: false, nameValidator: 'subdomain' as const };

const messages = (meta: ObjectMeta, opts: Parameters<typeof validateObjectMeta>[1]): string[] => validateObjectMeta(meta, opts).map(errorString);

describe('validateObjectMeta', () => {
  it('accepts a valid namespaced object', () => {
    const meta: ObjectMeta = {
      name: 'web.example',
      namespace: 'default',
      labels: { app: 'web', 'example.com/tier': '' },
      annotations: { 'Example.com/Note': 'anything at all' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: 'u', controller: true }],
      finalizers: ['example.com/cleanup', 'kubernetes'],
      managedFields: [{ manager: 'kubectl', operation: 'Apply', fieldsType: 'FieldsV1' }],
    };
    assert.deepEqual(messages(meta, namespaced), []);
  });

  it('collects every error of a bad object, in upstream order', () => {
    const meta: ObjectMeta = {
      name: 'X_Y',
      generation: -1,
      labels: { 'a/b/c': 'ok', good: 'bad value!' },
      annotations: { 'bad key': 'v' },
      ownerReferences: [{ apiVersion: '', kind: '', name: '', uid: '' }],
      finalizers: ['bad/fin/x'],
    };
    assert.deepEqual(messages(meta, namespaced), [
      `metadata.name: Invalid value: "X_Y": ${subdomainMsg}`,
      'metadata.namespace: Required value',
      'metadata.generation: Invalid value: -1: must be greater than or equal to 0',
      `metadata.labels: Invalid value: "a/b/c": ${qualifiedNameMsg}`,
      `metadata.labels: Invalid value: "bad value!": ${labelValueMsg}`,
      `metadata.annotations: Invalid value: "bad key": ${namePartMsg}`,
      'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
      'metadata.ownerReferences.kind: Invalid value: "": kind must not be empty',
      'metadata.ownerReferences.name: Invalid value: "": name must not be empty',
      'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
      `metadata.finalizers: Invalid value: "bad/fin/x": ${qualifiedNameMsg}`,
    ]);
  });

  const cases: Array<[string, ObjectMeta, Parameters<typeof validateObjectMeta>[1], string[]]> = [
    ['missing name', {}, clusterScoped, ['metadata.name: Required value: name or generateName is required']],
    ['namespace on a cluster-scoped kind', { name: 'a', namespace: 'x' }, clusterScoped, ['metadata.namespace: Forbidden: not allowed on this type']],
    [
      'bad namespace name',
      { name: 'a', namespace: 'a.b' },
      namespaced,
      ['metadata.namespace: Invalid value: "a.b": must not contain dots'],
    ],
    ['generateName with trailing dash', { name: 'web-abcde', generateName: 'web-' }, clusterScoped, []],
    [
      'bad generateName',
      { name: 'web-abcde', generateName: 'Web-' },
      clusterScoped,
      [`metadata.generateName: Invalid value: "Web-": ${subdomainMsg}`],
    ],
    ['label validator on namespaces', { name: 'a.b' }, { namespaced: false, nameValidator: 'label' }, ['metadata.name: Invalid value: "a.b": must not contain dots']],
    ['path validator allows colons', { name: 'system:controller:x' }, { namespaced: false, nameValidator: 'path' }, []],
    ['path validator rejects slashes', { name: 'a/b' }, { namespaced: false, nameValidator: 'path' }, ['metadata.name: Invalid value: "a/b": may not contain \'/\'']],
    [
      'two controllers',
      {
        name: 'a',
        ownerReferences: [
          { apiVersion: 'v1', kind: 'A', name: 'one', uid: '1', controller: true },
          { apiVersion: 'v1', kind: 'B', name: 'two', uid: '2', controller: true },
        ],
      },
      clusterScoped,
      [
        'metadata.ownerReferences: Invalid value: "array": Only one reference can have Controller set to true. Found "true" in references for A/one and B/two',
      ],
    ],
    [
      'apiVersion with a group but no version',
      { name: 'a', ownerReferences: [{ apiVersion: 'apps/', kind: 'A', name: 'n', uid: 'u' }] },
      clusterScoped,
      ['metadata.ownerReferences.apiVersion: Invalid value: "apps/": version must not be empty'],
    ],
    [
      'core Events may not own objects',
      { name: 'a', ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u' }] },
      clusterScoped,
      ['metadata.ownerReferences: Invalid value: "object": /v1, Kind=Event is disallowed from being an owner'],
    ],
    [
      'orphan and foregroundDeletion together',
      { name: 'a', finalizers: ['orphan', 'foregroundDeletion'] },
      clusterScoped,
      ['metadata.finalizers: Invalid value: "array": finalizer orphan and foregroundDeletion cannot be both set'],
    ],
    ['duplicate finalizers are allowed (as in 1.32)', { name: 'a', finalizers: ['x/y', 'x/y'] }, clusterScoped, []],
    [
      'annotations over 256 KiB',
      { name: 'a', annotations: { a: 'x'.repeat(256 * 1024) } },
      clusterScoped,
      ['metadata.annotations: Too long: may not be more than 262144 bytes'],
    ],
    ['annotations at exactly 256 KiB', { name: 'a', annotations: { a: 'x'.repeat(256 * 1024 - 1) } }, clusterScoped, []],
    [
      'annotation size counts UTF-8 bytes',
      { name: 'a', annotations: { a: 'é'.repeat(128 * 1024) } },
      clusterScoped,
      ['metadata.annotations: Too long: may not be more than 262144 bytes'],
    ],
  ];
  for (const [name, meta, opts, expected] of cases) {
    it(name, () => assert.deepEqual(messages(meta, opts), expected));
  }
});

describe('validateObjectMetaUpdate', () => {
  const old: ObjectMeta = {
    name: 'a',
    namespace: 'n',
    uid: 'u1',
    resourceVersion: '5',
    generation: 2,
    creationTimestamp: '2024-01-01T00:00:00Z',
  };

  it('accepts an unchanged identity, including another spelling of the same instant', () => {
    const next = { ...old, creationTimestamp: '2024-01-01T01:00:00+01:00', labels: { x: 'y' } };
    assert.deepEqual(validateObjectMetaUpdate(next, old).map(errorString), []);
  });

  it('reports every immutable change at once', () => {
    const next: ObjectMeta = {
      name: 'b',
      namespace: 'm',
      uid: 'u2',
      resourceVersion: '',
      generation: 1,
      creationTimestamp: '2024-02-01T00:00:00Z',
      deletionTimestamp: '2024-02-02T00:00:00Z',
      deletionGracePeriodSeconds: 30,
    };
    assert.deepEqual(validateObjectMetaUpdate(next, old).map(errorString), [
      'metadata.resourceVersion: Invalid value: "": must be specified for an update',
      'metadata.generation: Invalid value: 1: must not be decremented',
      'metadata.name: Invalid value: "b": field is immutable',
      'metadata.namespace: Invalid value: "m": field is immutable',
      'metadata.uid: Invalid value: "u2": field is immutable',
      'metadata.creationTimestamp: Invalid value: "2024-02-01T00:00:00Z": field is immutable',
      'metadata.deletionTimestamp: Invalid value: "2024-02-02T00:00:00Z": field is immutable',
      'metadata.deletionGracePeriodSeconds: Invalid value: 30: field is immutable',
    ]);
  });

  it('a deletionTimestamp cannot be unset, and new finalizers are refused while deleting', () => {
    const deleting: ObjectMeta = { ...old, deletionTimestamp: '2024-01-02T00:00:00Z', deletionGracePeriodSeconds: 0, finalizers: ['a'] };
    const next: ObjectMeta = { ...old, deletionGracePeriodSeconds: 0, finalizers: ['c', 'a', 'b'] };
    assert.deepEqual(validateObjectMetaUpdate(next, deleting).map(errorString), [
      'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"b", "c"}',
      'metadata.deletionTimestamp: Invalid value: "null": field is immutable',
    ]);
  });

  it('removing finalizers of a deleting object is fine', () => {
    const deleting: ObjectMeta = { ...old, deletionTimestamp: '2024-01-02T00:00:00Z', finalizers: ['a', 'b'] };
    assert.deepEqual(validateObjectMetaUpdate({ ...deleting, finalizers: ['b'] }, deleting).map(errorString), []);
  });

  it('still validates labels and annotations of the new object', () => {
    const next: ObjectMeta = { ...old, labels: { ok: 'no way' }, annotations: { '-x': '' } };
    assert.deepEqual(validateObjectMetaUpdate(next, old).map(errorString), [
      `metadata.labels: Invalid value: "no way": ${labelValueMsg}`,
      `metadata.annotations: Invalid value: "-x": ${namePartMsg}`,
    ]);
  });
});

describe('validateManagedFields', () => {
  const path = FieldPath.root('metadata').child('managedFields');
  const cases: Array<[string, unknown[], string[]]> = [
    ['valid', [{ manager: 'kubectl', operation: 'Update', fieldsType: 'FieldsV1', subresource: 'status' }], []],
    ['bad operation', [{ manager: 'm', operation: 'Bogus' }], ['metadata.managedFields[0].operation: Invalid value: "Bogus": must be `Apply` or `Update`']],
    ['bad fieldsType', [{ manager: 'm', operation: 'Apply', fieldsType: 'FieldsV2' }], ['metadata.managedFields[0].fieldsType: Invalid value: "FieldsV2": must be `FieldsV1`']],
    ['missing operation', [{}], ['metadata.managedFields[0].operation: Invalid value: "": must be `Apply` or `Update`']],
    ['manager too long', [{ manager: 'm'.repeat(129), operation: 'Apply' }], ['metadata.managedFields[0].manager: Too long: may not be more than 128 bytes']],
  ];
  for (const [name, entries, expected] of cases) {
    it(name, () => assert.deepEqual(validateManagedFields(entries, path).map(errorString), expected));
  }
  it('names each non-printable character with its byte position', () => {
    const errs = validateManagedFields([{ manager: 'é\u0007x\u200b', operation: 'Apply' }], path);
    assert.deepEqual(
      errs.map((e) => [e.field, e.detail]),
      [
        ['metadata.managedFields[0].manager', 'invalid character U+0007 (at position 2)'],
        ['metadata.managedFields[0].manager', 'invalid character U+200B (at position 4)'],
      ],
    );
  });
});
