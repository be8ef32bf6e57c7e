cat >lowstock.js <<'EOF'
// Lists the items of inventory.json that need reordering.
const fs = require("fs");

const inventory = JSON.parse(fs.readFileSync("inventory.json", "utf8"));
for (const item of inventory.items) {
  if (item.qty < item.reorder_at) {
    console.log(`${item.sku} ${item.name}: ${item.qty} left (reorder at ${item.reorder_at})`);
  }
}
EOF
