# The parts were compared as strings ("10" < "9"); compare them as numbers.
sed -i "s/return version.replace(\/^v\/, '').split('.');/return version.replace(\/^v\/, '').split('.').map(Number);/" version.js
grep -q 'map(Number)' version.js
