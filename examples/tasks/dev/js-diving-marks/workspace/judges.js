// Final marks of a diving competition. Each row of the CSV is a diver and
// the marks of the five judges (0 to 10, in half points). A diver's final
// mark drops the highest and the lowest of the five and averages the other
// three; it is shown with one decimal.
//
// Usage: node judges.js [marks.csv]

const fs = require("fs");

function finalMark(marks) {
  const sorted = marks.sort();
  const counted = sorted.slice(1, -1);
  const sum = counted.reduce((a, b) => a + b, 0);
  return sum / counted.length;
}

function main(path) {
  const rows = fs.readFileSync(path, "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  const results = [];
  for (const row of rows.slice(1)) {
    const [diver, ...fields] = row.split(",");
    const marks = fields.map(parseInt);
    results.push({ diver, mark: finalMark(marks) });
  }
  for (const { diver, mark } of results) {
    console.log(`${diver}: ${mark.toFixed(1)}`);
  }
  const winner = results.reduce((best, r) => (r.mark > best.mark ? r : best));
  console.log(`winner: ${winner.diver} (${winner.mark.toFixed(1)})`);
}

main(process.argv[2] || "marks.csv");
