cat >>Makefile <<'MK'

test: tconv
	./tests/run.sh

clean:
	rm -f tconv *.o

.PHONY: test clean
MK
