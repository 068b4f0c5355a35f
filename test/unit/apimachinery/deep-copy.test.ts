import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import YAML from 'yaml';
import { deepCopy } from '../../../src/apimachinery/object.js';

/** What deepCopy must always equal: the JSON round trip it replaced. */
const roundTrip = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;

/** The same JSON text and the same key order at every level. */
function assertSameAsRoundTrip(v: unknown): void {
  const copy = deepCopy(v);
  const expected = roundTrip(v);
  assert.equal(JSON.stringify(copy), JSON.stringify(expected));
  assert.deepEqual(copy, expected);
}

describe('deepCopy', () => {
  it('copies the app corpus exactly as a JSON round trip does, sharing nothing with the original', () => {
    const root = join(process.cwd(), 'test', 'e2e', 'apps');
    let objects = 0;
    for (const app of readdirSync(root)) {
      for (const f of readdirSync(join(root, app)).filter((f) => /\.ya?ml$/.test(f))) {
        for (const doc of YAML.parseAllDocuments(readFileSync(join(root, app, f), 'utf8'))) {
          const o = doc.toJSON() as { spec?: unknown } | null;
          if (!o) continue;
          objects++;
          assertSameAsRoundTrip(o);
          const copy = deepCopy(o);
          assert.notEqual(copy, o);
          if (o.spec && typeof o.spec === 'object') assert.notEqual(copy.spec, o.spec);
        }
      }
    }
    assert.ok(objects > 100, `only ${objects} objects in the corpus`);
  });

  it('leaves out, nulls and converts what JSON does', () => {
    const fn = () => 1;
    const odd = { a: 1, gone: undefined, f: fn, s: Symbol('x'), list: [undefined, fn, Symbol('y'), NaN, Infinity, -0, 1.5], z: -0, nan: NaN };
    assertSameAsRoundTrip(odd);
    assert.deepEqual(deepCopy(odd), { a: 1, list: [null, null, null, null, null, 0, 1.5], z: 0, nan: null });
    assert.ok(Object.is((deepCopy(odd) as { z: number }).z, 0), '-0 is copied as 0');
    assertSameAsRoundTrip([1, , 3]);
    assertSameAsRoundTrip({ '10': 'b', '2': 'a', z: 1, y: 2 });
    assert.equal(deepCopy('text'), 'text');
    assert.equal(deepCopy(null), null);
    assert.equal(deepCopy(undefined), undefined);
  });

  it('writes dates, toJSON values, boxed primitives and class instances as JSON does', () => {
    assertSameAsRoundTrip({ when: new Date(0), custom: { toJSON: () => 'T' }, boxed: new String('s'), n: new Number(3), m: new Map([[1, 2]]) });
    assert.deepEqual(deepCopy({ when: new Date(0) }), { when: '1970-01-01T00:00:00.000Z' });
    const bare = Object.assign(Object.create(null) as object, { a: 1, b: { c: [] } });
    assertSameAsRoundTrip(bare);
    assert.equal(Object.getPrototypeOf(deepCopy(bare)), Object.prototype);
  });

  it('keeps a "__proto__" key an own property, as JSON.parse does, never a prototype', () => {
    const o = JSON.parse('{"__proto__": {"polluted": true}, "list": [{"__proto__": 2}]}') as object;
    const copy = deepCopy(o) as Record<string, unknown>;
    assert.ok(Object.hasOwn(copy, '__proto__'));
    assert.equal(Object.getPrototypeOf(copy), Object.prototype);
    assert.equal((copy as { polluted?: boolean }).polluted, undefined);
    assert.equal(JSON.stringify(copy), JSON.stringify(o));
  });

  it('refuses a BigInt as JSON.stringify does', () => {
    assert.throws(() => deepCopy({ n: 1n }), TypeError);
  });
});
