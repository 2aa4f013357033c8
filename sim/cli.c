/* cli.c - shared option parsing conventions (see cli.h). */
#include "cli.h"

#include <stdio.h>
#include <string.h>

const char *cli_split(const char **arg, char opt[3], const char *shorts)
{
    const char *a = *arg;
    if (a[0] != '-' || a[1] == 0 || a[1] == '-' || a[2] == 0 || !strchr(shorts, a[1]))
        return NULL;
    opt[0] = '-';
    opt[1] = a[1];
    opt[2] = 0;
    *arg = opt;
    return a + 2;
}

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
