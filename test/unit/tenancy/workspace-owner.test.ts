/** The owner annotation: what counts as an owner, and the binding that makes the owner cluster-admin. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ownerAnnotationValue } from '../../../src/tenancy/workspace-admission.js';
import { WORKSPACE_ADMIN_BINDING, parseOwnerAnnotation, workspaceAdminBinding } from '../../../src/tenancy/workspace-owner.js';

test('parseOwnerAnnotation accepts UserInfo JSON and fails closed on anything else', () => {
  const cases: [string | undefined, ReturnType<typeof parseOwnerAnnotation>][] = [
    ['{"username":"bob","uid":"u1","groups":["devs","system:authenticated"]}', { username: 'bob', uid: 'u1', groups: ['devs', 'system:authenticated'] }],
    ['{"username":"carol"}', { username: 'carol', uid: undefined, groups: undefined }],
    [undefined, undefined],
    ['', undefined],
    ['not json', undefined],
    ['{"username":""}', undefined],
    ['{"groups":["x"]}', undefined],
    ['{"username":42}', undefined],
    ['null', undefined],
  ];
  for (const [value, want] of cases) assert.deepEqual(parseOwnerAnnotation(value), want, String(value));
});

test('the annotation admission writes round-trips through the parser', () => {
  const value = ownerAnnotationValue({ username: 'dave', uid: 'd-1', groups: ['qa', 'system:authenticated'], extra: { scopes: ['a'] } });
  assert.equal(value, '{"username":"dave","uid":"d-1","groups":["qa","system:authenticated"],"extra":{"scopes":["a"]}}');
  assert.deepEqual(parseOwnerAnnotation(value), { username: 'dave', uid: 'd-1', groups: ['qa', 'system:authenticated'] });
});

test('workspace-admin binds the owner by user name to cluster-admin', () => {
  const b = workspaceAdminBinding({ username: 'system:serviceaccount:default:robot' });
  assert.equal(b.metadata?.name, WORKSPACE_ADMIN_BINDING);
  assert.equal(WORKSPACE_ADMIN_BINDING, 'workspace-admin');
  assert.deepEqual(b.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' });
  assert.deepEqual(b.subjects, [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'system:serviceaccount:default:robot' }]);
});
