'use strict';

const fs = require('node:fs');
const path = require('node:path');

const DEFAULTS = {
  host: '127.0.0.1',
  port: 3000,
  debug: false,
  logLevel: 'info',
  maxUploadMb: 10,
};

// Reads settings.json next to this file; its values override the defaults.
function loadConfig(file = path.join(__dirname, 'settings.json')) {
  const settings = JSON.parse(fs.readFileSync(file, 'utf8'));
  return { ...settings, ...DEFAULTS };
}

module.exports = { DEFAULTS, loadConfig };
