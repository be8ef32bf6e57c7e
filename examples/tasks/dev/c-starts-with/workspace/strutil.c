#include <string.h>

#include "strutil.h"

int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(s)) == 0;
}

int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    if (m > n)
        return 0;
    return strcmp(s + n - m, suffix) == 0;
}

int count_char(const char *s, char c)
{
    int n = 0;
    for (; *s; s++)
        if (*s == c)
            n++;
    return n;
}
