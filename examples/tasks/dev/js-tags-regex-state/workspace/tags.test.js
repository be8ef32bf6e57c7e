const test = require("node:test");
const assert = require("node:assert");

const { normalizeTag, isValidTag, normalizeTags } = require("./tags");

test("normalizeTag trims, lowercases and hyphenates", () => {
  assert.strictEqual(normalizeTag("  Night   Trains "), "night-trains");
  assert.strictEqual(normalizeTag("CSS"), "css");
});

test("isValidTag accepts letters and digits joined by hyphens", () => {
  assert.strictEqual(isValidTag("travel"), true);
  assert.strictEqual(isValidTag("night-trains"), true);
  assert.strictEqual(isValidTag("2024"), true);
});

test("isValidTag rejects everything else", () => {
  assert.strictEqual(isValidTag(""), false);
  assert.strictEqual(isValidTag("x!!"), false);
  assert.strictEqual(isValidTag("-start"), false);
  assert.strictEqual(isValidTag("double--hyphen"), false);
  assert.strictEqual(isValidTag("a".repeat(31)), false);
});

test("normalizeTags keeps every valid tag once, in order", () => {
  assert.deepStrictEqual(
    normalizeTags("Travel, Night Trains, Food"),
    ["travel", "night-trains", "food"],
  );
  assert.deepStrictEqual(
    normalizeTags("Travel, Night trains,  travel , x!!"),
    ["travel", "night-trains"],
  );
});

test("normalizeTags on one tag at a time", () => {
  for (const tag of ["alps", "rail", "hiking", "swiss-alps"]) {
    assert.deepStrictEqual(normalizeTags(tag), [tag]);
  }
});

test("normalizeTags with nothing valid", () => {
  assert.deepStrictEqual(normalizeTags(""), []);
  assert.deepStrictEqual(normalizeTags(" , ,?"), []);
});
