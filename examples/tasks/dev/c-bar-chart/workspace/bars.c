/* Draws a text bar chart of the counts in a file: one line per entry,
 * the name padded to 12 columns, then one '#' per unit. */
#include <stdio.h>

static void draw_bar(const char *name, int count)
{
    printf("%-12s", name);
    for (int i = 1; i < count; i++)
        putchar('#');
    putchar('\n');
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "votes.txt";
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return 1;
    }
    char name[64];
    int count;
    while (fscanf(f, "%63s %d", name, &count) == 2)
        draw_bar(name, count);
    fclose(f);
    return 0;
}
