#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"

/* tconv VALUE UNIT: converts between Celsius (C) and Fahrenheit (F). */
int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[2], "C") != 0 && strcmp(argv[2], "F") != 0)) {
        fprintf(stderr, "usage: tconv VALUE C|F\n");
        return 2;
    }
    double value = atof(argv[1]);
    if (strcmp(argv[2], "C") == 0)
        printf("%.1f F\n", c_to_f(value));
    else
        printf("%.1f C\n", f_to_c(value));
    return 0;
}
