// Tags that users type for a post, as a comma-separated string, e.g.
// "Travel, Night trains,  travel , x!!" gives ["travel", "night-trains"]:
// each tag trimmed, lowercased, runs of spaces made one hyphen, kept once
// in first-seen order. A tag that is then not letters and digits joined by
// single hyphens, or longer than 30 characters, is dropped.

const VALID_TAG = /^[a-z0-9]+(-[a-z0-9]+)*$/g;
const MAX_LENGTH = 30;

function normalizeTag(raw) {
  return raw.trim().toLowerCase().replace(/\s+/g, "-");
}

function isValidTag(tag) {
  return tag.length <= MAX_LENGTH && VALID_TAG.test(tag);
}

function normalizeTags(input) {
  const seen = new Set();
  const tags = [];
  for (const raw of input.split(",")) {
    const tag = normalizeTag(raw);
    if (isValidTag(tag) && !seen.has(tag)) {
      seen.add(tag);
      tags.push(tag);
    }
  }
  return tags;
}

module.exports = { normalizeTag, isValidTag, normalizeTags };
