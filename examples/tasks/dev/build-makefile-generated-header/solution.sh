sed -i 's/^main\.o: main\.c convert\.h$/main.o: main.c convert.h version.h/' Makefile
