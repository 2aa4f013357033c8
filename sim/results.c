/* results.c - reading results tables (CSV with a header, RFC 4180 quoting) for the analysis
 * commands, and the FNV-1a hash used for digests. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "common.h"
#include "units.h"

uint64_t rt_fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* A blank at either end is quoted too: rtable_read trims unquoted ones. */
static int edge_blank(const char *s)
{
    size_t n = strlen(s);
    return n && (s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' || s[n - 1] == '\t');
}

void rtable_put_field(FILE *f, const char *s)
{
    if (!s)
        return;
    if (!strpbrk(s, ",\"\r\n") && !edge_blank(s)) {
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

/* Line and column of position q, counting from (*line, *col) at position *from, which moves to
 * q. */
static rt_pos advance(const char **from, const char *q, unsigned long *line, unsigned long *col)
{
    for (const char *x = *from; x < q; x++) {
        if (*x == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
    *from = q;
    return (rt_pos){*line, *col};
}

/* One record into out; where each field starts into *pos (grown as needed; *line and *col
 * track position *at). */
static int record(const char **p, strlist *out, rt_pos **pos, const char **at,
                  unsigned long *line, unsigned long *col)
{
    const char *s = *p;
    if (!*s)
        return 0;
    size_t cap = 64, n = 0;
    char *fld = am_malloc(cap);
    for (;;) {
        int quoted = 0;
        size_t keep = 0; /* characters that were inside quotes: never trimmed */
        n = 0;
        /* blanks around a field are not part of it (` 5`, `5 ` and `5` are one value; until
         * 2026-11-27 they stayed, and stats took ` 5` but refused `5 `); the field starts, for
         * messages, at its first other character */
        while (*s == ' ' || *s == '\t')
            s++;
        *pos = am_realloc(*pos, ((size_t)out->n + 1) * sizeof **pos);
        (*pos)[out->n] = advance(at, s, line, col);
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
                    keep = n;
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
        while (n > keep && (fld[n - 1] == ' ' || fld[n - 1] == '\t'))
            n--;
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
    const char *p = buf, *at = buf;
    unsigned long line = 1, col = 1;
    /* a UTF-8 byte order mark (spreadsheets write one) is not part of the first column's name
     * (until 2026-11-27 it was: "no column 'policy'"); columns count from after it */
    if (strncmp(p, "\xEF\xBB\xBF", 3) == 0)
        p = at = buf + 3;
    strlist h = {0};
    rt_pos *hpos = NULL;
    if (!record(&p, &h, &hpos, &at, &line, &col)) {
        free(buf);
        snprintf(err, errsz, "%s: empty file (no header line)", path);
        return -1;
    }
    free(hpos);
    t->cols = h.v;
    t->ncols = h.n;
    int rcap = 0;
    for (;;) {
        strlist row = {0};
        rt_pos *pos = NULL;
        if (!record(&p, &row, &pos, &at, &line, &col))
            break;
        if (row.n == 1 && !row.v[0][0]) { /* blank line */
            free(row.v[0]);
            free(row.v);
            free(pos);
            continue;
        }
        if (row.n != t->ncols) {
            rt_pos w = pos[row.n < t->ncols ? 0 : t->ncols];
            snprintf(err, errsz, "%s:%lu:%lu: %d fields where the header has %d", path, w.line,
                     w.col, row.n, t->ncols);
            for (int i = 0; i < row.n; i++)
                free(row.v[i]);
            free(row.v);
            free(pos);
            free(buf);
            rtable_free(t);
            return -1;
        }
        if (t->nrows == rcap) {
            rcap = rcap ? 2 * rcap : 64;
            t->rows = am_realloc(t->rows, (size_t)rcap * sizeof *t->rows);
            t->pos = am_realloc(t->pos, (size_t)rcap * sizeof *t->pos);
        }
        t->pos[t->nrows] = pos;
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
        free(t->pos[r]);
    }
    for (int c = 0; c < t->ncols; c++)
        free(t->cols[c]);
    free(t->rows);
    free(t->pos);
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

int rtable_num(const char *cell, double *v)
{
    char buf[128];
    size_t n = strlen(cell);
    const char *why;
    /* a quoted cell keeps its blanks: a number's are not part of it either */
    while (n && (*cell == ' ' || *cell == '\t'))
        cell++, n--;
    while (n && (cell[n - 1] == ' ' || cell[n - 1] == '\t'))
        n--;
    if (!n)
        return 1;
    if (n >= sizeof buf)
        return -1;
    memcpy(buf, cell, n);
    buf[n] = 0;
    /* the syntax is the project's decimal reader's (no hex, inf, nan, no locale); the value
     * strtod's, correctly rounded (units_real may be an ulp off for 17 digits) */
    if (units_real(buf, v, &why) != 0)
        return -1;
    *v = strtod(buf, NULL);
    return isfinite(*v) ? 0 : -1;
}
