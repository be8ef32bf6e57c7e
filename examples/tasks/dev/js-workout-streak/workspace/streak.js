// Prints the longest run of consecutive days in a workout log (one
// YYYY-MM-DD date per line, in any order; a day may appear more than once).
//
// Usage: node streak.js [workouts.txt]

const fs = require("fs");

const path = process.argv[2] || "workouts.txt";
const days = [...new Set(
  fs.readFileSync(path, "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => /^\d{4}-\d{2}-\d{2}$/.test(line)),
)].sort();

// Whether day b is the day right after day a.
function isNextDay(a, b) {
  return Number(b.slice(8, 10)) === Number(a.slice(8, 10)) + 1;
}

let best = { start: days[0], end: days[0], length: days.length ? 1 : 0 };
let start = 0;
for (let i = 1; i < days.length; i++) {
  if (!isNextDay(days[i - 1], days[i])) {
    start = i;
  }
  const length = i - start + 1;
  if (length > best.length) {
    best = { start: days[start], end: days[i], length };
  }
}

console.log(`workouts logged: ${days.length} days`);
console.log(`longest streak: ${best.length} days (${best.start} to ${best.end})`);
