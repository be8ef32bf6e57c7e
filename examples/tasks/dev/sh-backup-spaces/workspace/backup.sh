#!/usr/bin/env bash
# Copies every .txt file in notes/ into backup/.
set -euo pipefail

mkdir -p backup
for f in $(ls notes/*.txt); do
    cp $f backup/
done
echo "backed up $(ls backup | wc -l) notes"
