cat requirements/*.txt |
    sed -e 's/#.*//' -e 's/^[[:space:]]*//' |
    grep -v -e '^-' -e '^$' |
    grep -o '^[A-Za-z0-9][A-Za-z0-9._-]*' |
    tr 'A-Z' 'a-z' |
    sed -E 's/[-_.]+/-/g' |
    LC_ALL=C sort -u >packages.txt
