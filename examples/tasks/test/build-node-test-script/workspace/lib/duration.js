'use strict';

const UNITS = [['h', 3600], ['m', 60], ['s', 1]];

/** Formats a number of seconds as e.g. "1h 30m" ("0s" for zero). */
function format(seconds) {
  if (!Number.isInteger(seconds) || seconds < 0) {
    throw new RangeError(`not a duration: ${seconds}`);
  }
  const parts = [];
  let rest = seconds;
  for (const [unit, size] of UNITS) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0) parts.push(`${count}${unit}`);
  }
  return parts.length ? parts.join(' ') : '0s';
}

/** Parses a duration such as "2h 5s" back into seconds. */
function parse(text) {
  let total = 0;
  for (const part of text.trim().split(/\s+/)) {
    const match = /^(\d+)([hms])$/.exec(part);
    if (!match) throw new SyntaxError(`bad duration part: ${part}`);
    total += Number(match[1]) * UNITS.find(([unit]) => unit === match[2])[1];
  }
  return total;
}

module.exports = { format, parse };
