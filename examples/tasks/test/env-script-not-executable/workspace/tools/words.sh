#!/bin/sh
# The number of words in the file $1.
wc -w <"$1" | tr -d ' '
