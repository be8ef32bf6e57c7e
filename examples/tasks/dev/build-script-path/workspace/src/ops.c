#include <string.h>

#include "ops.h"

int apply(const char *op, long a, long b, long *result)
{
    if (strcmp(op, "add") == 0)
        *result = a + b;
    else if (strcmp(op, "sub") == 0)
        *result = a - b;
    else if (strcmp(op, "mul") == 0)
        *result = a * b;
    else if (strcmp(op, "div") == 0 && b != 0)
        *result = a / b;
    else
        return -1;
    return 0;
}
