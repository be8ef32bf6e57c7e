#!/bin/bash
# Copy a folder into backups/<name>-<date>.
set -euo pipefail
src="${1:?usage: backup.sh DIR [--dry-run]}"
dest="backups/$(basename "$src")-$(date +%Y%m%d)"
if [ "${2:-}" = "--dry-run" ]; then
    echo "would copy $src to $dest"
    exit 0
fi
mkdir -p backups
cp -r "$src" "$dest"
echo "copied $src to $dest"
