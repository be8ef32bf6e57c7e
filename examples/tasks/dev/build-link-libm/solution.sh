sed -i 's/-o \$@ spread.o$/-o $@ spread.o -lm/' Makefile
