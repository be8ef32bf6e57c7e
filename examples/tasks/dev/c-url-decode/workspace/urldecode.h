#ifndef URLDECODE_H
#define URLDECODE_H

#include <stddef.h>

/* Decodes the percent-encoded `src` into `dst` (at most `size` bytes with
 * the terminating NUL): `%XX` becomes the byte with hex value XX (either
 * case), and in a query string (`form` non-zero) `+` becomes a space. A `%`
 * not followed by two hex digits is kept as it is. Returns the length of
 * the result, or -1 if it does not fit. */
int url_decode(const char *src, char *dst, size_t size, int form);

#endif
