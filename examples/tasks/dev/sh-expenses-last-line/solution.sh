# read fails on a last line without a newline, though it filled the variables.
sed -i 's/^while read -r date category amount; do$/while read -r date category amount || [ -n "$date" ]; do/' total.sh
grep -q '|| \[ -n "$date" \]' total.sh
