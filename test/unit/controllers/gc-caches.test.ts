/** The garbage collector's own indexes: the blocking-dependents index of the ownership graph and the absent-owner cache. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AbsentOwnerCache, type OwnerCoordinates } from '../../../src/controllers/garbagecollector/absent-owners.js';
import { OwnershipGraph } from '../../../src/controllers/garbagecollector/graph.js';

const ref = (uid: string, blockOwnerDeletion?: boolean) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: uid, uid, ...(blockOwnerDeletion === undefined ? {} : { blockOwnerDeletion }) });
const obj = (uid: string, refs: ReturnType<typeof ref>[]) => ({ metadata: { uid, ownerReferences: refs as any } });

describe('OwnershipGraph blocking index', () => {
  it('follows blockOwnerDeletion through adds, flips, reference removal and object removal', () => {
    const g = new OwnershipGraph();
    g.upsert('cm#root|ns/a', obj('a', [ref('o', true), ref('p', false)]));
    g.upsert('cm#root|ns/b', obj('b', [ref('o')]));
    assert.deepEqual([...g.blockingDependentsOf('o')], ['cm#root|ns/a']);
    assert.deepEqual([...g.blockingDependentsOf('p')], []);
    g.upsert('cm#root|ns/b', obj('b', [ref('o', true)]));
    assert.deepEqual([...g.blockingDependentsOf('o')].sort(), ['cm#root|ns/a', 'cm#root|ns/b']);
    // Unblocked (the collector's own patch), then reference dropped, then object gone.
    g.upsert('cm#root|ns/a', obj('a', [ref('o', false)]));
    assert.deepEqual([...g.blockingDependentsOf('o')], ['cm#root|ns/b']);
    g.upsert('cm#root|ns/b', obj('b', []));
    assert.deepEqual([...g.blockingDependentsOf('o')], []);
    g.upsert('cm#root|ns/b', obj('b', [ref('o', true)]));
    g.remove('cm#root|ns/b');
    assert.deepEqual([...g.blockingDependentsOf('o')], []);
    // The plain dependents index is unaffected by blocking.
    assert.deepEqual(g.dependentsOf('o'), ['cm#root|ns/a']);
  });
});

describe('AbsentOwnerCache', () => {
  const at = (extra: Partial<OwnerCoordinates> = {}): OwnerCoordinates => ({ cluster: 'root', namespace: 'ns', group: '', kind: 'ConfigMap', name: 'owner', uid: 'u1', ...extra });

  it('matches only the exact coordinates that were confirmed absent', () => {
    const c = new AbsentOwnerCache();
    c.add(at());
    assert.equal(c.has(at()), true);
    const others: Partial<OwnerCoordinates>[] = [{ cluster: 'other' }, { namespace: 'ns2' }, { group: 'apps' }, { kind: 'Secret' }, { name: 'x' }, { uid: 'u2' }];
    for (const o of others) assert.equal(c.has(at(o)), false, JSON.stringify(o));
  });

  it('forgets the least recently added entries beyond its capacity', () => {
    const c = new AbsentOwnerCache(2);
    c.add(at({ uid: 'a' }));
    c.add(at({ uid: 'b' }));
    c.add(at({ uid: 'a' })); // refreshed: b is now the oldest
    c.add(at({ uid: 'c' }));
    assert.equal(c.size, 2);
    assert.equal(c.has(at({ uid: 'a' })), true);
    assert.equal(c.has(at({ uid: 'b' })), false);
    assert.equal(c.has(at({ uid: 'c' })), true);
  });
});
