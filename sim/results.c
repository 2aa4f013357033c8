/* results.c - reading results tables (CSV with a header, RFC 4180 quoting) for the analysis
 * commands, and the FNV-1a hash used for digests. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "common.h"

uint64_t rt_fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ULL;
    }
    return h;
}

void rtable_put_field(FILE *f, const char *s)
{
    if (!s)
        return;
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static int record(const char **p, strlist *out)
{
    const char *s = *p;
    if (!*s)
        return 0;
    size_t cap = 64, n = 0;
    char *fld = am_malloc(cap);
    for (;;) {
        int quoted = 0;
        n = 0;
        if (*s == '"') {
            quoted = 1;
            s++;
        }
        for (;;) {
            char c = *s;
            if (!c)
                break;
            if (quoted) {
                if (c == '"' && s[1] == '"') {
                    s += 2;
                    c = '"';
                } else if (c == '"') {
                    s++;
                    quoted = 0;
                    continue;
                } else
                    s++;
            } else {
                if (c == ',' || c == '\n' || c == '\r')
                    break;
                s++;
            }
            if (n + 2 > cap)
                fld = am_realloc(fld, cap *= 2);
            fld[n++] = c;
        }
        fld[n] = 0;
        sl_push(out, am_strdup(fld));
        if (*s == ',') {
            s++;
            continue;
        }
        if (*s == '\r')
            s++;
        if (*s == '\n')
            s++;
        break;
    }
    free(fld);
    *p = s;
    return 1;
}

int rtable_read(rtable *t, const char *path, char *err, size_t errsz)
{
    memset(t, 0, sizeof *t);
    char *buf = am_slurp(path);
    if (!buf) {
        snprintf(err, errsz, "%s: cannot read: %s", path, strerror(errno));
        return -1;
    }
    const char *p = buf;
    strlist h = {0};
    if (!record(&p, &h)) {
        free(buf);
        snprintf(err, errsz, "%s: empty file (no header line)", path);
        return -1;
    }
    t->cols = h.v;
    t->ncols = h.n;
    int rcap = 0;
    for (;;) {
        strlist row = {0};
        if (!record(&p, &row))
            break;
        if (row.n == 1 && !row.v[0][0]) { /* blank line */
            free(row.v[0]);
            free(row.v);
            continue;
        }
        while (row.n < t->ncols)
            sl_push(&row, am_strdup(""));
        for (int i = t->ncols; i < row.n; i++)
            free(row.v[i]);
        if (t->nrows == rcap) {
            rcap = rcap ? 2 * rcap : 64;
            t->rows = am_realloc(t->rows, (size_t)rcap * sizeof *t->rows);
        }
        t->rows[t->nrows++] = row.v;
    }
    free(buf);
    return 0;
}

void rtable_free(rtable *t)
{
    for (int r = 0; r < t->nrows; r++) {
        for (int c = 0; c < t->ncols; c++)
            free(t->rows[r][c]);
        free(t->rows[r]);
    }
    for (int c = 0; c < t->ncols; c++)
        free(t->cols[c]);
    free(t->rows);
    free(t->cols);
    memset(t, 0, sizeof *t);
}

int rtable_col(const rtable *t, const char *name)
{
    for (int c = 0; c < t->ncols; c++)
        if (strcmp(t->cols[c], name) == 0)
            return c;
    return -1;
}
