sed -i 's/\r$//' package.sh scripts/lib.sh
printf '*.sh text eol=lf\n' >.gitattributes
