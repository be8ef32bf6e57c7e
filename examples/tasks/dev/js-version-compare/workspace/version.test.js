'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { compareVersions, isNewer, latest } = require('./version');

test('same version', () => {
  assert.strictEqual(compareVersions('1.2.3', '1.2.3'), 0);
  assert.strictEqual(compareVersions('v1.2.3', '1.2.3'), 0);
});

test('single-digit parts', () => {
  assert.strictEqual(compareVersions('1.2.4', '1.2.3'), 1);
  assert.strictEqual(compareVersions('0.9.0', '1.0.0'), -1);
});

test('multi-digit parts compare as numbers', () => {
  assert.strictEqual(compareVersions('1.10.0', '1.9.2'), 1);
  assert.strictEqual(compareVersions('2.0.9', '2.0.10'), -1);
});

test('isNewer', () => {
  assert.strictEqual(isNewer('10.0.0', '9.5.1'), true);
  assert.strictEqual(isNewer('2.0.0', '10.0.0'), false);
});

test('latest of a list', () => {
  assert.strictEqual(latest(['1.2.3', '1.10.0', '1.9.9']), '1.10.0');
});
