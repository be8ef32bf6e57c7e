#!/bin/bash
# Prints how many .jpg photos each album (each sub-directory of the photos
# folder, default: photos) holds: one "album: count" line per album.

root="${1:-photos}"
for album in $(ls "$root"); do
    if [ -d $root/$album ]; then
        count=$(ls $root/$album/*.jpg 2>/dev/null | wc -l)
        echo "$album: $count"
    fi
done
