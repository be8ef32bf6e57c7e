#include <stdio.h>

#include "text.h"

int main(int argc, char **argv)
{
    FILE *in = stdin;
    if (argc > 1 && (in = fopen(argv[1], "r")) == NULL) {
        perror(argv[1]);
        return 1;
    }
    struct text_stats stats = count_text(in);
    printf("lines: %ld\nwords: %ld\nlongest word: %ld\n", stats.lines, stats.words, stats.longest);
    return 0;
}
