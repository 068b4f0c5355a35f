import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseLabelMatcher } from '../../../src/registry/generic/selector-adapters.js';
import { rawLabelPrefilter } from '../../../src/registry/generic/raw-label-prefilter.js';

const stored = (labels: Record<string, string> | undefined, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'ns', ...(labels ? { labels } : {}) }, ...extra });

describe('rawLabelPrefilter', () => {
  it('has nothing to rule out for selectors made only of negative requirements, and for no selector', () => {
    assert.equal(rawLabelPrefilter(undefined), undefined);
    assert.equal(rawLabelPrefilter({}), undefined);
    for (const text of ['a!=b', '!a', 'a notin (b)', 'a>3']) assert.equal(rawLabelPrefilter({ labels: parseLabelMatcher(text) }), undefined, text);
  });

  const cases: { selector: string; labels?: Record<string, string>; extra?: Record<string, unknown>; pass: boolean }[] = [
    { selector: 'app=web', labels: { app: 'web' }, pass: true },
    { selector: 'app==web', labels: { app: 'web' }, pass: true },
    { selector: 'app=web', labels: { app: 'db' }, pass: false },
    { selector: 'app=web', labels: undefined, pass: false },
    { selector: 'app in (db,web)', labels: { app: 'web' }, pass: true },
    { selector: 'app in (db,cache)', labels: { app: 'web' }, pass: false },
    { selector: 'app', labels: { app: '' }, pass: true },
    { selector: 'app', labels: { tier: 'app' }, pass: false },
    { selector: 'app=web,tier=front', labels: { app: 'web' }, pass: false },
    { selector: 'app=web,tier!=back', labels: { app: 'web', tier: 'back' }, pass: true }, // != is left to the full check
    { selector: 'example.com/key=v-1.2_3', labels: { 'example.com/key': 'v-1.2_3' }, pass: true },
    { selector: 'app=', labels: { app: '' }, pass: true },
    // The same text elsewhere in the object lets it through: the full selector decides after parsing.
    { selector: 'app=web', labels: { other: 'x' }, extra: { data: { app: 'web' } }, pass: true },
  ];
  for (const c of cases) {
    it(`${c.selector} on ${JSON.stringify(c.labels ?? null)} → ${c.pass ? 'parsed' : 'skipped'}`, () => {
      const pre = rawLabelPrefilter({ labels: parseLabelMatcher(c.selector) });
      assert.ok(pre);
      assert.equal(pre(stored(c.labels, c.extra)), c.pass);
    });
  }

  it('never skips an object the selector matches (random labels and selectors)', () => {
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n);
    const keys = ['a', 'b', 'x.io/c', 'd'];
    const values = ['', '1', 'v', 'w-2'];
    for (let i = 0; i < 2000; i++) {
      const labels: Record<string, string> = {};
      for (const k of keys) if (rand(2)) labels[k] = values[rand(values.length)]!;
      const reqs = keys.filter(() => rand(3) === 0).map((k) => {
        const v = values[rand(values.length)]!;
        return [`${k}=${v}`, `${k}==${v}`, `${k} in (${v},zz)`, k, `${k}!=${v}`, `!${k}`][rand(6)]!;
      });
      if (reqs.length === 0) continue;
      const matcher = parseLabelMatcher(reqs.join(','));
      const pre = rawLabelPrefilter({ labels: matcher });
      if (matcher.matches(labels)) assert.equal(pre?.(stored(labels)) ?? true, true, `${reqs.join(',')} on ${JSON.stringify(labels)}`);
    }
  });
});
