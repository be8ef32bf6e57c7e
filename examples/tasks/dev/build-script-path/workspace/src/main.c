#include <stdio.h>
#include <stdlib.h>

#include "ops.h"

/* calc OP A B: prints the result of an integer operation. */
int main(int argc, char **argv)
{
    long result;
    if (argc != 4) {
        fprintf(stderr, "usage: calc add|sub|mul|div A B\n");
        return 2;
    }
    if (apply(argv[1], strtol(argv[2], NULL, 10), strtol(argv[3], NULL, 10), &result) != 0) {
        fprintf(stderr, "calc: cannot %s %s and %s\n", argv[1], argv[2], argv[3]);
        return 1;
    }
    printf("%ld\n", result);
    return 0;
}
