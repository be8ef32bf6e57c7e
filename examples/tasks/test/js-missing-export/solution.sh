# format.js defines formatMoney but never exported it.
sed -i 's/^  padRight,$/  formatMoney,\n  padRight,/' lib/format.js
