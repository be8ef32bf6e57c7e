#include <stdio.h>

#include "stats.h"

int main(void)
{
    int scores[] = {3, 9, 4, 2};
    int count = sizeof scores / sizeof scores[0];

    printf("mean: %.2f\n", mean(scores, count));
    printf("max: %d\n", max_value(scores, count));
    return 0;
}
