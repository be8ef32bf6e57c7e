# Compare only as many characters as the prefix has.
sed -i 's/return strncmp(s, prefix, strlen(s)) == 0;/return strncmp(s, prefix, strlen(prefix)) == 0;/' strutil.c
