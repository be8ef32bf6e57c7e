#include "urldecode.h"

/* The value of the hex digit c, or -1. */
static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    if (c >= 'a' && c <= 'f')
        return c - 'a';
    return -1;
}

int url_decode(const char *src, char *dst, size_t size, int form)
{
    size_t n = 0;

    while (*src) {
        char c = *src++;
        if (c == '%' && hexval(src[0]) >= 0 && hexval(src[1]) >= 0) {
            c = (char)(hexval(src[0]) * 16 + hexval(src[1]));
            src += 2;
        } else if (c == '+' && form) {
            c = ' ';
        }
        if (n + 1 >= size)
            return -1;
        dst[n++] = c;
    }
    if (n >= size)
        return -1;
    dst[n] = '\0';
    return (int)n;
}
