'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { median, range } = require('../stats');

test('median of an odd count', () => {
  assert.strictEqual(median([3, 1, 2]), 2);
  assert.strictEqual(median([120, 95, 1000, 80, 310]), 120);
});

test('median of an even count', () => {
  assert.strictEqual(median([10, 9, 2, 100]), 9.5);
});

test('median of nothing', () => {
  assert.strictEqual(median([]), null);
});

test('median leaves its argument alone', () => {
  const times = [40, 7, 300];
  median(times);
  assert.deepStrictEqual(times, [40, 7, 300]);
});

test('range', () => {
  assert.strictEqual(range([5, 12, 3]), 9);
  assert.strictEqual(range([]), null);
});
