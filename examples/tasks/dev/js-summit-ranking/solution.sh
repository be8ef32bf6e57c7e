# The heights were compared and added as strings: read them as numbers.
sed -i 's/    return { name, height, range, climbed };/    return { name, height: Number(height), range, climbed };/' summits.js
grep -q 'height: Number(height)' summits.js
