#include <stdio.h>

#include "strutil.h"

static int failures = 0;
static int checks = 0;

#define CHECK(expr)                                                   \
    do {                                                              \
        checks++;                                                     \
        if (!(expr)) {                                                \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #expr);    \
            failures++;                                               \
        }                                                             \
    } while (0)

int main(void)
{
    CHECK(starts_with("makefile", "make"));
    CHECK(starts_with("make", "make"));
    CHECK(starts_with("anything", ""));
    CHECK(!starts_with("make", "makefile"));
    CHECK(!starts_with("cmake", "make"));

    CHECK(ends_with("report.txt", ".txt"));
    CHECK(!ends_with("txt", ".txt"));

    CHECK(count_char("banana", 'a') == 3);
    CHECK(count_char("", 'a') == 0);

    if (failures) {
        printf("%d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("all %d checks passed\n", checks);
    return 0;
}
