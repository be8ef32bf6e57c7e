'use strict';

// Compares release versions such as "1.4.2" or "v2.0.0".

function parseVersion(version) {
  return version.replace(/^v/, '').split('.');
}

// -1 if a is older than b, 1 if it is newer, 0 if they are the same.
function compareVersions(a, b) {
  const pa = parseVersion(a);
  const pb = parseVersion(b);
  for (let i = 0; i < 3; i++) {
    if (pa[i] > pb[i]) return 1;
    if (pa[i] < pb[i]) return -1;
  }
  return 0;
}

function isNewer(candidate, current) {
  return compareVersions(candidate, current) > 0;
}

function latest(versions) {
  return versions.reduce((best, v) => (isNewer(v, best) ? v : best));
}

module.exports = { compareVersions, isNewer, latest };
