'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { slugify } = require('../src/slugify');

test('lower-cases and joins words with dashes', () => {
  assert.strictEqual(slugify('Hello World'), 'hello-world');
});

test('drops accents', () => {
  assert.strictEqual(slugify('Crème brûlée'), 'creme-brulee');
});

test('collapses punctuation and spaces', () => {
  assert.strictEqual(slugify('Rust, Go & C++ -- compared!'), 'rust-go-c-compared');
});

test('trims leading and trailing dashes', () => {
  assert.strictEqual(slugify('  --Draft--  '), 'draft');
});

test('empty text gives an empty slug', () => {
  assert.strictEqual(slugify(''), '');
});
