// Lists the summits I have climbed, highest first, then how many of them are
// at least MIN_HEIGHT metres high and their heights added up.
// Usage: node summits.js [FILE] [MIN_HEIGHT]   (defaults: summits.csv, 3000)
// FILE is a CSV with the columns name, height_m, range, climbed (a date).
// Summits of equal height are listed in order of name.
'use strict';

const fs = require('fs');

function readSummits(path) {
  const lines = fs.readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '');
  return lines.slice(1).map((line) => {
    const [name, height, range, climbed] = line.split(',');
    return { name, height, range, climbed };
  });
}

function byHeight(a, b) {
  if (a.height !== b.height) {
    return a.height > b.height ? -1 : 1;
  }
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function main(argv) {
  const path = argv[2] || 'summits.csv';
  const minHeight = Number(argv[3] || 3000);
  const summits = readSummits(path).sort(byHeight);
  summits.forEach((s, i) => {
    console.log(`${String(i + 1).padStart(2)}. ${s.name.padEnd(18)} ${String(s.height).padStart(5)} m  ${s.range} (${s.climbed})`);
  });
  const high = summits.filter((s) => s.height >= minHeight);
  const total = high.reduce((sum, s) => sum + s.height, 0);
  console.log(`${high.length} summits of ${minHeight} m or more, ${total} m in total`);
}

main(process.argv);
