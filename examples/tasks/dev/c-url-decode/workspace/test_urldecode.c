#include <stdio.h>
#include <string.h>

#include "urldecode.h"

static int failures = 0;
static int checks = 0;

static void check(const char *src, int form, const char *want)
{
    char out[64];
    int n = url_decode(src, out, sizeof out, form);
    checks++;
    if (n < 0 || strcmp(out, want) != 0 || (size_t)n != strlen(want)) {
        printf("FAIL url_decode(\"%s\", form=%d): got \"%s\" (%d), want \"%s\"\n",
               src, form, n < 0 ? "" : out, n, want);
        failures++;
    }
}

int main(void)
{
    char small[4];

    check("hello", 0, "hello");
    check("", 0, "");
    check("a%20b", 0, "a b");
    check("docs%2Freport.pdf", 0, "docs/report.pdf");
    check("docs%2freport.pdf", 0, "docs/report.pdf");
    check("caf%c3%a9", 0, "caf\xc3\xa9");
    check("%7e%7Euser", 0, "~~user");
    check("100%", 0, "100%");
    check("50%off", 0, "50%off");
    check("%4", 0, "%4");
    check("q=fish+%26+chips", 1, "q=fish & chips");
    check("fish+chips", 0, "fish+chips");

    checks++;
    if (url_decode("abcd", small, sizeof small, 0) != -1) {
        printf("FAIL url_decode(\"abcd\") into 4 bytes should not fit\n");
        failures++;
    }
    checks++;
    if (url_decode("%41bc", small, sizeof small, 0) != 3 || strcmp(small, "Abc") != 0) {
        printf("FAIL url_decode(\"%%41bc\") into 4 bytes should give \"Abc\"\n");
        failures++;
    }

    if (failures) {
        printf("%d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("all %d checks passed\n", checks);
    return 0;
}
