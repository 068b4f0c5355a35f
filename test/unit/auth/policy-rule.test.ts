/** RBAC rule evaluation, coverage and escalation texts as pure functions (table-driven). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { nonResourceAttributes, resourceAttributes } from '../../../src/apiserver/authorization.js';
import { type PolicyRule, compactRules, compactString, covers, ruleAllows } from '../../../src/auth/authz/policy-rule.js';
import { escalationMessage } from '../../../src/auth/authz/escalation.js';
import { aggregatedRules } from '../../../src/auth/authz/aggregation.js';
import { subjectMatches } from '../../../src/auth/authz/rbac-authorizer.js';

const u = { username: 'bob', groups: ['devs', 'system:authenticated'] };

describe('ruleAllows', () => {
  const cases: [string, PolicyRule, ReturnType<typeof resourceAttributes>, boolean][] = [
    ['exact match', { verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }, resourceAttributes(u, { verb: 'get', resource: 'configmaps' }), true],
    ['other verb', { verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }, resourceAttributes(u, { verb: 'list', resource: 'configmaps' }), false],
    ['other group', { verbs: ['get'], apiGroups: ['apps'], resources: ['configmaps'] }, resourceAttributes(u, { verb: 'get', resource: 'configmaps' }), false],
    ['wildcards', { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, resourceAttributes(u, { verb: 'delete', apiGroup: 'x.io', resource: 'widgets', subresource: 'status' }), true],
    ['resource does not cover subresource', { verbs: ['get'], apiGroups: [''], resources: ['serviceaccounts'] }, resourceAttributes(u, { verb: 'create', resource: 'serviceaccounts', subresource: 'token' }), false],
    ['res/sub', { verbs: ['create'], apiGroups: [''], resources: ['serviceaccounts/token'] }, resourceAttributes(u, { verb: 'create', resource: 'serviceaccounts', subresource: 'token' }), true],
    ['*/sub', { verbs: ['get'], apiGroups: [''], resources: ['*/status'] }, resourceAttributes(u, { verb: 'get', resource: 'namespaces', subresource: 'status' }), true],
    ['resourceNames match', { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }, resourceAttributes(u, { verb: 'get', resource: 'configmaps', name: 'a' }), true],
    ['resourceNames other name', { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }, resourceAttributes(u, { verb: 'get', resource: 'configmaps', name: 'b' }), false],
    ['resourceNames never match unnamed list', { verbs: ['list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }, resourceAttributes(u, { verb: 'list', resource: 'configmaps' }), false],
    ['URL exact', { verbs: ['get'], nonResourceURLs: ['/healthz'] }, nonResourceAttributes(u, 'get', '/healthz'), true],
    ['URL prefix', { verbs: ['get'], nonResourceURLs: ['/apis/*'] }, nonResourceAttributes(u, 'get', '/apis/apps/v1'), true],
    ['URL prefix does not match the bare path', { verbs: ['get'], nonResourceURLs: ['/apis/*'] }, nonResourceAttributes(u, 'get', '/apis'), false],
    ['URL rule ignores resource requests', { verbs: ['*'], nonResourceURLs: ['*'] }, resourceAttributes(u, { verb: 'get', resource: 'configmaps' }), false],
    ['resource rule ignores URLs', { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, nonResourceAttributes(u, 'get', '/api'), false],
  ];
  for (const [name, rule, attrs, want] of cases) it(name, () => assert.equal(ruleAllows(attrs, rule), want));
});

describe('subjectMatches', () => {
  const sa = { username: 'system:serviceaccount:ns1:robot', groups: [] };
  const cases: [string, object, typeof u, string, boolean][] = [
    ['user', { kind: 'User', name: 'bob' }, u, '', true],
    ['group', { kind: 'Group', name: 'devs' }, u, '', true],
    ['other group', { kind: 'Group', name: 'ops' }, u, '', false],
    ['SA with namespace', { kind: 'ServiceAccount', name: 'robot', namespace: 'ns1' }, sa, '', true],
    ['SA defaults to binding namespace', { kind: 'ServiceAccount', name: 'robot' }, sa, 'ns1', true],
    ['SA without any namespace', { kind: 'ServiceAccount', name: 'robot' }, sa, '', false],
    ['SA other namespace', { kind: 'ServiceAccount', name: 'robot', namespace: 'ns2' }, sa, '', false],
  ];
  for (const [name, s, user, ns, want] of cases) it(name, () => assert.equal(subjectMatches(s as never, user, ns), want));
});

describe('covers and the escalation text', () => {
  it('finds exactly the missing broken-down rules and compacts them by verb', () => {
    const owner: PolicyRule[] = [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }];
    const { covered, missing } = covers(owner, [{ apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['get', 'delete'] }]);
    assert.equal(covered, false);
    assert.deepEqual(compactRules(missing).map(compactString), ['{APIGroups:[""], Resources:["configmaps"], Verbs:["delete"]}', '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete"]}']);
  });
  it('wildcards, */sub and URL prefixes cover; res/* covers only itself (policy_comparator resourceCoversAll)', () => {
    const owner: PolicyRule[] = [
      { apiGroups: ['*'], resources: ['*/token', 'configmaps/*'], verbs: ['*'] },
      { nonResourceURLs: ['/apis/*'], verbs: ['get'] },
    ];
    assert.equal(covers(owner, [{ apiGroups: [''], resources: ['serviceaccounts/token'], verbs: ['create'] }, { nonResourceURLs: ['/apis/x'], verbs: ['get'] }]).covered, true);
    assert.equal(covers(owner, [{ apiGroups: [''], resources: ['serviceaccounts'], verbs: ['create'] }]).covered, false);
    assert.equal(covers(owner, [{ apiGroups: [''], resources: ['configmaps/finalize'], verbs: ['get'] }]).covered, false);
    assert.equal(covers(owner, [{ apiGroups: [''], resources: ['configmaps/*', '*/token'], verbs: ['get'] }]).covered, true);
  });
  it('a named owner rule does not cover an unnamed request', () => {
    const owner: PolicyRule[] = [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'], verbs: ['get'] }];
    assert.equal(covers(owner, [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]).covered, false);
    assert.equal(covers(owner, [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'], verbs: ['get'] }]).covered, true);
  });
  it('formats the message with Go %q lists', () => {
    const msg = escalationMessage({ username: 'bob', groups: ['a b', 'system:authenticated'] }, [{ nonResourceURLs: ['/x'], verbs: ['get'] }], []);
    assert.equal(msg, 'user "bob" (groups=["a b" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{NonResourceURLs:["/x"], Verbs:["get"]}');
  });
});

describe('aggregatedRules', () => {
  it('unions matching roles in name order without duplicates and ignores itself', () => {
    const agg = { metadata: { name: 'view', labels: { 'to-view': 'true' } }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'to-view': 'true' } }] }, rules: [{ verbs: ['x'] }] };
    const b = { metadata: { name: 'b', labels: { 'to-view': 'true' } }, rules: [{ apiGroups: [''], resources: ['b'], verbs: ['get'] }] };
    const a = { metadata: { name: 'a', labels: { 'to-view': 'true' } }, rules: [{ apiGroups: [''], resources: ['a'], verbs: ['get'] }, { apiGroups: [''], resources: ['b'], verbs: ['get'] }] };
    const other = { metadata: { name: 'c' }, rules: [{ apiGroups: [''], resources: ['c'], verbs: ['get'] }] };
    assert.deepEqual(aggregatedRules(agg, [agg, b, other, a]), [
      { apiGroups: [''], resources: ['a'], verbs: ['get'] },
      { apiGroups: [''], resources: ['b'], verbs: ['get'] },
    ]);
  });
});
