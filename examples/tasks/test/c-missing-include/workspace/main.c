#include <stdio.h>

int main(int argc, char **argv)
{
    char buf[128];
    for (int i = 1; i < argc; i++) {
        slugify(argv[i], buf, sizeof buf);
        puts(buf);
    }
    return 0;
}
