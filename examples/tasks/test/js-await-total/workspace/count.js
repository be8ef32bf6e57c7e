'use strict';

// Prints how many non-empty lines the .log files in a directory have in total.
const { readdir, readFile } = require('node:fs/promises');
const path = require('node:path');

async function countLines(file) {
  const text = await readFile(file, 'utf8');
  return text.split('\n').filter((line) => line.trim() !== '').length;
}

async function main() {
  const dir = process.argv[2] || 'logs';
  const files = (await readdir(dir)).filter((name) => name.endsWith('.log')).sort();
  let total = 0;
  files.forEach(async (name) => {
    total += await countLines(path.join(dir, name));
  });
  console.log(`total: ${total}`);
}

main().catch((err) => {
  console.error(err.message);
  process.exit(1);
});
