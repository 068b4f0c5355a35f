import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyPatch, patchTypeFromContentType, supportedPatchContentTypes, type PatchType } from '../../../src/patch/apply-patch.js';
import { isStatusError } from '../../../src/apimachinery/status.js';
import { podSchema } from './pod-like-catalog.js';

type Doc = Record<string, unknown>;

describe('patchTypeFromContentType', () => {
  const cases: [string | undefined, ReturnType<typeof patchTypeFromContentType>][] = [
    ['application/json-patch+json', 'json'],
    ['application/merge-patch+json', 'merge'],
    ['application/strategic-merge-patch+json', 'strategic'],
    ['application/apply-patch+yaml', 'apply'],
    ['application/merge-patch+json; charset=utf-8', 'merge'],
    ['application/strategic-merge-patch+json;charset=UTF-8', 'strategic'],
    ['application/json', undefined],
    ['application/apply-patch+cbor', undefined],
    ['Application/Merge-Patch+Json', undefined],
    ['', undefined],
    [undefined, undefined],
    ['toString', undefined],
    ['__proto__', undefined],
  ];
  for (const [contentType, expected] of cases) {
    it(`${JSON.stringify(contentType)} → ${String(expected)}`, () => assert.equal(patchTypeFromContentType(contentType), expected));
  }
});

describe('supportedPatchContentTypes', () => {
  it('lists strategic merge patch only where it is supported, in kube-apiserver order', () => {
    assert.deepStrictEqual(supportedPatchContentTypes(true), [
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
      'application/apply-patch+yaml',
    ]);
    assert.deepStrictEqual(supportedPatchContentTypes(false), [
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/apply-patch+yaml',
    ]);
  });
});

describe('applyPatch', () => {
  const pod = (): Doc => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', resourceVersion: '7', finalizers: ['a'] },
    spec: { containers: [{ name: 'c', image: 'i1' }] },
  });

  const dispatchCases: { type: PatchType; body: unknown; expected: Doc }[] = [
    {
      type: 'json',
      body: [{ op: 'replace', path: '/spec/containers/0/image', value: 'i2' }],
      expected: { ...pod(), spec: { containers: [{ name: 'c', image: 'i2' }] } },
    },
    {
      // A merge patch replaces lists: the container loses its image.
      type: 'merge',
      body: { spec: { containers: [{ name: 'c' }] } },
      expected: { ...pod(), spec: { containers: [{ name: 'c' }] } },
    },
    {
      // A strategic merge patch merges the container list by name.
      type: 'strategic',
      body: { spec: { containers: [{ name: 'c', image: 'i2' }] } },
      expected: { ...pod(), spec: { containers: [{ name: 'c', image: 'i2' }] } },
    },
  ];
  for (const tc of dispatchCases) {
    it(`dispatches ${tc.type} patches`, () => assert.deepStrictEqual(applyPatch(tc.type, pod(), tc.body, podSchema), tc.expected));
  }

  for (const type of ['json', 'merge', 'strategic'] as const) {
    it(`a resourceVersion set by a ${type} patch reaches the result, for the update's precondition check`, () => {
      const body =
        type === 'json' ? [{ op: 'replace', path: '/metadata/resourceVersion', value: '106' }] : { metadata: { resourceVersion: '106' } };
      const result = applyPatch(type, pod(), body, podSchema) as Doc;
      assert.equal((result['metadata'] as Doc)['resourceVersion'], '106');
    });
  }

  const errorCases: { name: string; type: PatchType; body: unknown; schema?: typeof podSchema; code: number; message: string }[] = [
    {
      name: 'merge patch body that is an array',
      type: 'merge',
      body: [{ a: 1 }],
      code: 400,
      message: 'error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}',
    },
    {
      name: 'merge patch body that is a number',
      type: 'merge',
      body: 3,
      code: 400,
      message: 'error decoding patch: json: cannot unmarshal number into Go value of type map[string]interface {}',
    },
    { name: 'merge patch body that is null', type: 'merge', body: null, code: 400, message: 'Invalid JSON Patch' },
    {
      name: 'strategic merge patch on a resource without a schema (custom resources)',
      type: 'strategic',
      body: {},
      code: 415,
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    },
    {
      name: 'strategic merge patch body that is an array',
      type: 'strategic',
      body: [],
      schema: podSchema,
      code: 400,
      message: 'json: cannot unmarshal array into Go value of type map[string]interface {}',
    },
    {
      name: 'json patch body that is an object',
      type: 'json',
      body: {},
      code: 400,
      message: 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp',
    },
  ];
  for (const tc of errorCases) {
    it(`${tc.name} → ${tc.code}`, () => {
      assert.throws(
        () => applyPatch(tc.type, pod(), tc.body, tc.schema),
        (err: unknown) => isStatusError(err) && err.code === tc.code && err.status.message === tc.message,
      );
    });
  }
});
