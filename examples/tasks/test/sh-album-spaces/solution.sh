# Loop over a glob instead of split ls output, and quote every expansion.
cat >count-photos.sh <<'SH'
#!/bin/bash
# Prints how many .jpg photos each album (each sub-directory of the photos
# folder, default: photos) holds: one "album: count" line per album.

root="${1:-photos}"
for dir in "$root"/*/; do
    [ -d "$dir" ] || continue
    album="$(basename "$dir")"
    count=0
    for photo in "$dir"*.jpg; do
        [ -f "$photo" ] && count=$((count + 1))
    done
    echo "$album: $count"
done
SH
