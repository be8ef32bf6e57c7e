# main.c needs slugify's prototype; slug.c needs isalnum/tolower from ctype.h.
sed -i 's/^#include <stdio.h>$/#include <stdio.h>\n\n#include "slug.h"/' main.c
sed -i 's/^#include "slug.h"$/#include <ctype.h>\n\n#include "slug.h"/' slug.c
