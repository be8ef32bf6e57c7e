'use strict';

const fs = require('node:fs');
const { formatDate, formatMoney, padRight } = require('./lib/format');

const invoice = JSON.parse(fs.readFileSync(process.argv[2] || 'invoice.json', 'utf8'));

console.log(`Invoice ${invoice.number} - ${formatDate(invoice.date)}`);
console.log(`Customer: ${invoice.customer}`);
let total = 0;
for (const item of invoice.items) {
  const amount = item.quantity * item.unitCents;
  total += amount;
  console.log(`${padRight(item.description, 24)}${padRight(item.quantity, 4)}${formatMoney(amount)}`);
}
console.log(`${padRight('Total', 28)}${formatMoney(total)}`);
