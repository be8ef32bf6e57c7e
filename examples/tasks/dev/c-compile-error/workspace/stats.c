#include "stats.h"

int mean(const int *values, int count)
{
    int sum = 0;
    for (int i = 0; i < count; i++)
        sum += values[i];
    return sum / count;
}

int max_value(const int *values, int count)
{
    int max = values[0];
    for (int i = 1; i < count; i++)
        if (values[i] > max)
            max = values[i];
    return max;
}
