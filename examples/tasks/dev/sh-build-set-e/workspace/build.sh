#!/bin/bash
# Builds the static site into dist/: copies the pages and the assets, then
# generates dist/index.html. Used by CI, which relies on the exit status.

rm -rf dist
mkdir -p dist
cp pages/*.html dist/
cp -r assets dist/
python3 tools/make_index.py pages >dist/index.html
echo "build ok"
