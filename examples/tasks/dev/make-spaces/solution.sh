# Recipe lines must start with a tab.
sed -i 's/^    /\t/' Makefile
