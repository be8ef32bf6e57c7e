// Prints each service's uptime in words, longest first.
//
// Usage: node uptime.js services.json  (or: npm start)

const fs = require("fs");
const ms = require("ms");

const path = process.argv[2] || "services.json";
const { checkedAt, services } = JSON.parse(fs.readFileSync(path, "utf8"));
const now = Date.parse(checkedAt);

const rows = services
  .map((s) => ({ name: s.name, up: now - Date.parse(s.upSince) }))
  .sort((a, b) => b.up - a.up);
for (const { name, up } of rows) {
  console.log(`${name.padEnd(12)} up ${ms(up, { long: true })}`);
}
