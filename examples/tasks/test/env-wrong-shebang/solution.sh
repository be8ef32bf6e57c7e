sed -i '1s|.*|#!/usr/bin/env bash|' tally.sh
