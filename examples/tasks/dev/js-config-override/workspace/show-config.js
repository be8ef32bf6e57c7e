'use strict';

// Prints the effective configuration, one `key=value` line per setting.
const { loadConfig } = require('./config');

const config = loadConfig(process.argv[2]);
for (const key of Object.keys(config).sort()) {
  console.log(`${key}=${config[key]}`);
}
