sed -i 's/textstats\.o/text.o/g' Makefile
