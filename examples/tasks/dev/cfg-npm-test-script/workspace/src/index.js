'use strict';

const { slugify } = require('./slugify');
const { truncate } = require('./truncate');

module.exports = { slugify, truncate };
