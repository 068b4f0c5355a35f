import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { humanDuration, shortHumanDuration, translateTimestampSince } from '../../../src/apimachinery/table/duration.js';

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const day = 24 * h;

describe('humanDuration: every range boundary', () => {
  const cases: Array<[number, string]> = [
    [-2 * s, '<invalid>'],
    [-1999, '0s'],
    [-1 * s, '0s'],
    [-1, '0s'],
    [0, '0s'],
    [999, '0s'],
    [59 * s, '59s'],
    [119 * s + 999, '119s'],
    [2 * m, '2m'],
    [2 * m + s, '2m1s'],
    [9 * m + 59 * s, '9m59s'],
    [10 * m - 1, '9m59s'],
    [10 * m, '10m'],
    [10 * m + 59 * s, '10m'],
    [3 * h - 1, '179m'],
    [3 * h, '3h'],
    [3 * h + m, '3h1m'],
    [8 * h - 1, '7h59m'],
    [8 * h, '8h'],
    [48 * h - 1, '47h'],
    [48 * h, '2d'],
    [49 * h, '2d1h'],
    [8 * day - 1, '7d23h'],
    [8 * day, '8d'],
    [729 * day, '729d'],
    [730 * day, '2y'],
    [731 * day, '2y1d'],
    [8 * 365 * day - 1, '7y364d'],
    [8 * 365 * day, '8y'],
    [20 * 365 * day + 100 * day, '20y'],
  ];
  for (const [ms, expected] of cases) {
    it(`${ms}ms → ${expected}`, () => assert.equal(humanDuration(ms), expected));
  }
});

describe('shortHumanDuration', () => {
  const cases: Array<[number, string]> = [
    [-2 * s, '<invalid>'],
    [-1500, '0s'],
    [59 * s, '59s'],
    [60 * s, '1m'],
    [60 * m - 1, '59m'],
    [h, '1h'],
    [24 * h - 1, '23h'],
    [day, '1d'],
    [365 * day - 1, '364d'],
    [365 * day, '1y'],
  ];
  for (const [ms, expected] of cases) {
    it(`${ms}ms → ${expected}`, () => assert.equal(shortHumanDuration(ms), expected));
  }
});

describe('translateTimestampSince', () => {
  const now = Date.parse('2024-01-10T00:00:00Z');
  const cases: Array<[string | undefined | null, string]> = [
    [undefined, '<unknown>'],
    [null, '<unknown>'],
    ['', '<unknown>'],
    ['not a time', '<unknown>'],
    ['0001-01-01T00:00:00Z', '<unknown>'],
    ['2024-01-09T23:59:30Z', '30s'],
    ['2024-01-05T00:00:00Z', '5d'],
    ['2024-01-10T00:00:01Z', '0s'],
    ['2024-01-10T00:00:01.500Z', '0s'],
    ['2024-01-10T00:00:02Z', '<invalid>'],
    ['2024-01-10T00:01:00Z', '<invalid>'],
  ];
  for (const [ts, expected] of cases) {
    it(`${JSON.stringify(ts)} → ${expected}`, () => assert.equal(translateTimestampSince(ts, now), expected));
  }
});
