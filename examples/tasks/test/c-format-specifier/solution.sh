# total and largest_size are long long: print them with %lld.
sed -i -e 's/"total: %d bytes\\n"/"total: %lld bytes\\n"/' \
       -e 's/"largest: %s (%d bytes)\\n"/"largest: %s (%lld bytes)\\n"/' disk-usage.c
