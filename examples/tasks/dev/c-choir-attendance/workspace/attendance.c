/* Counts who came to choir rehearsal, per voice part.
 *
 * Usage: attendance REGISTER
 * Each line of REGISTER is: part,name,status (status is present, absent or
 * excused). Prints "part: N of M present" for each part, in the order the
 * parts first appear. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PARTS 16

struct part {
    char name[32];
    int members;
    int present;
};

int main(int argc, char **argv)
{
    struct part parts[MAX_PARTS];
    int nparts = 0;
    char line[256];

    if (argc != 2) {
        fprintf(stderr, "usage: %s REGISTER\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    while (fgets(line, sizeof line, f)) {
        char *part = strtok(line, ",");
        char *name = strtok(NULL, ",");
        char *status = strtok(NULL, ",");
        if (!part || !name || !status)
            continue;
        int i = 0;
        while (i < nparts && strcmp(parts[i].name, part) != 0)
            i++;
        if (i == nparts) {
            if (nparts == MAX_PARTS) {
                fprintf(stderr, "too many parts\n");
                return 1;
            }
            snprintf(parts[i].name, sizeof parts[i].name, "%s", part);
            parts[i].members = 0;
            parts[i].present = 0;
            nparts++;
        }
        parts[i].members++;
        if (strcmp(status, "present") == 0)
            parts[i].present++;
    }
    fclose(f);
    for (int i = 0; i < nparts; i++)
        printf("%s: %d of %d present\n", parts[i].name, parts[i].present, parts[i].members);
    return 0;
}
