#!/usr/bin/env bash
# Record the checksums the deploy job verifies.
set -euo pipefail
cd dist
sha256sum -- *.html >SHA256SUMS
