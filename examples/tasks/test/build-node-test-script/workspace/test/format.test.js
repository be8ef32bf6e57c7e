'use strict';

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { format } = require('../lib/duration');

test('formats hours and minutes', () => {
  assert.equal(format(5400), '1h 30m');
});

test('formats zero as 0s', () => {
  assert.equal(format(0), '0s');
});

test('skips empty units', () => {
  assert.equal(format(3605), '1h 5s');
});

test('rejects negative input', () => {
  assert.throws(() => format(-1), RangeError);
});
