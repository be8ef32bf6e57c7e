# sort() compares as strings and works in place: sort a numeric copy.
sed -i 's/const sorted = values.sort();/const sorted = [...values].sort((a, b) => a - b);/' stats.js
