#include <ctype.h>

#include "text.h"

struct text_stats count_text(FILE *in)
{
    struct text_stats stats = {0, 0, 0};
    long length = 0;
    int c;
    while ((c = fgetc(in)) != EOF) {
        if (c == '\n')
            stats.lines++;
        if (isspace(c)) {
            length = 0;
        } else {
            if (length == 0)
                stats.words++;
            length++;
            if (length > stats.longest)
                stats.longest = length;
        }
    }
    return stats;
}
