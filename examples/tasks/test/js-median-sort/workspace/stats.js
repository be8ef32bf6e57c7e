'use strict';

// Summary statistics for response times (in milliseconds).

function median(values) {
  if (values.length === 0) return null;
  const sorted = values.sort();
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function range(values) {
  if (values.length === 0) return null;
  return Math.max(...values) - Math.min(...values);
}

module.exports = { median, range };
