#ifndef TEXT_H
#define TEXT_H

#include <stdio.h>

struct text_stats {
    long lines;
    long words;
    long longest;
};

/* Counts the lines and words of `in`, and the length of its longest word. */
struct text_stats count_text(FILE *in);

#endif
