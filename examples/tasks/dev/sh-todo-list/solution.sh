grep -rn 'TODO:' src | LC_ALL=C sort -t: -k1,1 -k2,2n \
    | sed -E 's/^([^:]+):([0-9]+):.*TODO:[[:space:]]*/\1:\2: /' >TODO.md
