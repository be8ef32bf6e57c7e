#ifndef SLUG_H
#define SLUG_H

#include <stddef.h>

/* Writes a URL slug of title into out (at most size bytes, terminated):
 * lowercase letters and digits, other runs of characters become one '-'. */
void slugify(const char *title, char *out, size_t size);

#endif
