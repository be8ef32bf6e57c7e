'use strict';

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { format, parse } = require('../lib/duration');

test('parses a full duration', () => {
  assert.equal(parse('2h 10m 3s'), 7803);
});

test('round-trips', () => {
  for (const seconds of [0, 59, 60, 3599, 86400]) {
    assert.equal(parse(format(seconds)), seconds);
  }
});

test('rejects garbage', () => {
  assert.throws(() => parse('ten minutes'), SyntaxError);
});
