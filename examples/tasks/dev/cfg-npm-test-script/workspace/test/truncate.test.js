'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { truncate } = require('../src/truncate');

test('short text is kept', () => {
  assert.strictEqual(truncate('short', 10), 'short');
});

test('cuts at a word boundary', () => {
  assert.strictEqual(truncate('the quick brown fox', 12), 'the quick…');
});

test('a single long word is cut inside', () => {
  assert.strictEqual(truncate('supercalifragilistic', 6), 'super…');
});

test('never longer than max', () => {
  for (const max of [3, 5, 8, 13]) {
    assert.ok(truncate('a fairly long sentence to cut', max).length <= max);
  }
});
