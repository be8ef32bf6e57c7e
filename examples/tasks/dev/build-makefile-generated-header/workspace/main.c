#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "version.h"

/* tempconv 100C -> 212.0F, tempconv 451F -> 232.8C, tempconv --version. */
int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: tempconv DEGREES{C|F} | --version\n");
        return 2;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("tempconv %s\n", TEMPCONV_VERSION);
        return 0;
    }
    char *unit;
    double value = strtod(argv[1], &unit);
    if (unit == argv[1] || (strcmp(unit, "C") != 0 && strcmp(unit, "F") != 0)) {
        fprintf(stderr, "tempconv: cannot read %s\n", argv[1]);
        return 2;
    }
    if (strcmp(unit, "C") == 0) {
        printf("%.1fF\n", c_to_f(value));
    } else {
        printf("%.1fC\n", f_to_c(value));
    }
    return 0;
}
