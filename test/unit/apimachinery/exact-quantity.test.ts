/** Exact Quantity arithmetic and the canonical text Quantity.String() prints, which quota status and messages carry. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addQuantity, canonicalQuantity, formatQuantity, parseExactQuantity } from '../../../src/apimachinery/exact-quantity.js';

test('canonical text as resource.Quantity prints it', () => {
  const cases: [string | number, string][] = [
    ['1000m', '1'], ['1500m', '1500m'], ['0.5', '500m'], ['1024Mi', '1Gi'], ['1536Mi', '1536Mi'], ['1.5Gi', '1536Mi'],
    ['0.5Ki', '512'], ['2000', '2k'], ['1500', '1500'], ['1e3', '1e3'], ['0', '0'], ['-1', '-1'], [5, '5'], ['100n', '100n'],
  ];
  for (const [input, want] of cases) assert.equal(canonicalQuantity(input), want, String(input));
});

test('sums are exact and keep the first non-zero operand\'s format', () => {
  const sum = addQuantity(addQuantity(parseExactQuantity('0'), parseExactQuantity('100m')), parseExactQuantity('200m'));
  assert.equal(formatQuantity(sum), '300m');
  assert.equal(formatQuantity(addQuantity(parseExactQuantity('512Mi'), parseExactQuantity('1Gi'))), '1536Mi');
  assert.throws(() => parseExactQuantity('1.2.3'), /quantities must match the regular expression/);
});
