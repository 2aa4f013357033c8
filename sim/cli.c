/* cli.c - shared option parsing conventions (see cli.h). */
#include "cli.h"

#include <stdio.h>
#include <string.h>

int cli_once(const char *prog, const char *opt, const char **slot, const char *v,
             const char *hint)
{
    if (!*slot) {
        *slot = v;
        return 0;
    }
    fprintf(stderr, "%s: %s given twice ('%s', then '%s'): it takes one value%s%s\n", prog, opt,
            *slot, v, hint ? "; " : "", hint ? hint : "");
    return -1;
}
