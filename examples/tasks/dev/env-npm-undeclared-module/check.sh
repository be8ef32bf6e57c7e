# Hidden check of env-npm-undeclared-module: ms is a dependency in
# package.json and package-lock.json, installed in the project's
# node_modules, and `npm start` prints each service's uptime.
set -euo pipefail
node - <<'JS'
const fs = require("fs");
const pkg = JSON.parse(fs.readFileSync("package.json", "utf8"));
if (!pkg.dependencies || !pkg.dependencies.ms) {
  console.log("package.json does not list ms under dependencies");
  process.exit(1);
}
if (pkg.scripts?.start !== "node uptime.js services.json") {
  console.log("the start script changed");
  process.exit(1);
}
if (!fs.existsSync("package-lock.json")) {
  console.log("no package-lock.json");
  process.exit(1);
}
const lock = JSON.parse(fs.readFileSync("package-lock.json", "utf8"));
if (!lock.packages?.["node_modules/ms"] && !lock.dependencies?.ms) {
  console.log("package-lock.json does not lock ms");
  process.exit(1);
}
let where = "nowhere";
try {
  where = require.resolve("ms", { paths: [process.cwd()] });
} catch {}
if (!where.startsWith(fs.realpathSync(process.cwd()) + "/node_modules/ms/")) {
  console.log(`ms resolves to ${where}, not to the project's node_modules`);
  process.exit(1);
}
JS
expected='db           up 10 days
api          up 3 days
worker       up 3 hours
cache        up 45 minutes
search       up 30 seconds'
actual="$(npm start --silent 2>&1)" || { printf 'npm start failed:\n%s\n' "$actual"; exit 1; }
if [ "$(printf '%s\n' "$actual" | sed 's/  */ /g')" != "$(printf '%s\n' "$expected" | sed 's/  */ /g')" ]; then
    printf 'npm start printed:\n%s\nexpected:\n%s\n' "$actual" "$expected"
    exit 1
fi
