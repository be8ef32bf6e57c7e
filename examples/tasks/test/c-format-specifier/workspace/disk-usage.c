/* Summarises a list of "name size-in-bytes" lines: file count, total size
 * and the largest file. */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "sizes.txt";
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return 1;
    }

    char name[256], largest[256] = "";
    long long size, total = 0, largest_size = -1;
    int count = 0;
    while (fscanf(f, "%255s %lld", name, &size) == 2) {
        count++;
        total += size;
        if (size > largest_size) {
            largest_size = size;
            strcpy(largest, name);
        }
    }
    fclose(f);

    printf("files: %d\n", count);
    printf("total: %d bytes\n", total);
    if (count > 0)
        printf("largest: %s (%d bytes)\n", largest, largest_size);
    return 0;
}
