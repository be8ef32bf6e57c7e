# Bash reads numbers with a leading 0 as octal, so 08 and 09 are errors:
# force base 10.
sed -i 's/    echo \$((h \* 60 + m))$/    echo $((10#$h * 60 + 10#$m))/' hours.sh
grep -q '10#\$h' hours.sh
