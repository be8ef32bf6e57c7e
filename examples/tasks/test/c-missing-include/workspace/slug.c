#include "slug.h"

void slugify(const char *title, char *out, size_t size)
{
    size_t n = 0;
    int pending_dash = 0;
    for (const char *p = title; *p && n + 1 < size; p++) {
        unsigned char c = (unsigned char)*p;
        if (isalnum(c)) {
            if (pending_dash && n > 0 && n + 2 < size)
                out[n++] = '-';
            pending_dash = 0;
            out[n++] = (char)tolower(c);
        } else {
            pending_dash = 1;
        }
    }
    out[n] = '\0';
}
