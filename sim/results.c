/* results.c - reading results tables (CSV with a header, RFC 4180 quoting) for the analysis
 * commands, and the FNV-1a hash used for digests. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
            if (!c) /* next_record made sure the record is whole (record_end) */
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

/* The file read a line at a time (until 2026-11-27 it was read whole first: a 193 MB
 * results.csv was 193 MB of memory before a cell was parsed). buf[off..len) is text not yet
 * parsed, starting at (line, col). */
typedef struct rt_src {
    FILE *f;
    const char *path;
    am_error *err; /* where a NUL byte or a read error is said */
    char *buf;
    size_t off, len, cap;
    char *lbuf;   /* getline's buffer, kept from line to line */
    size_t lcap;
    int eof, bad; /* bad: err was set, the table is not read */
    unsigned long lines; /* lines read so far (the next one read is lines + 1) */
    unsigned long line, col;
    /* the scan for the end of the record at off (record_end): the bytes past off scanned so
     * far, the state there and where an open quote started (past off) */
    size_t scanned, quote_at;
    int state;
} rt_src;

/* A results table is text: a NUL byte in it is refused where it is (until 2026-11-27 it ended
 * the table there, silently: the rows after it were dropped, status 0), and so is a read
 * error (it read as the end of the file, "empty file (no header line)" for /proc/self/mem). A
 * read that ran out of host memory is amsim's error (status 2), not the input's. */
static int src_fail(rt_src *s, const char *nul)
{
    s->bad = s->eof = 1;
    if (nul) {
        size_t col = (size_t)(nul - s->lbuf) + 1;
        if (s->lines == 1 && col > 3 && memcmp(s->lbuf, "\xEF\xBB\xBF", 3) == 0)
            col -= 3; /* line 1's columns count from after a byte order mark */
        return am_fail_at(s->err, s->path, s->lines, (unsigned long)col,
                          "NUL byte (a results table is text)");
    }
    int e = errno;
    return am_fail(s->err, e == ENOMEM ? AM_EINTERNAL : AM_EINPUT, "%s: %s: %s", s->path,
                   e == ENOMEM ? "host out of memory while reading" : "read error",
                   strerror(e));
}

/* The file's next line appended to the unparsed text; -1 at the end of the file or on an error
 * (s->bad, err set: a NUL byte, a read error). */
static int src_more(rt_src *s)
{
    if (s->eof)
        return -1;
    if (s->off) { /* a record that spans lines stays at 0: not copied again for each line */
        memmove(s->buf, s->buf + s->off, s->len - s->off + 1);
        s->len -= s->off;
        s->off = 0;
    }
    errno = 0;
    /* a line is read up to AM_TEXT_LINE_MAX bytes: a stream that never ends one (`stats
     * /dev/stdin < /dev/zero`) is refused there, where until 2026-11-27 getline took it all */
    long n = am_getline_max(&s->lbuf, &s->lcap, s->f, AM_TEXT_LINE_MAX);
    if (n == -1) {
        s->eof = 1;
        if (ferror(s->f) || (errno && errno != EINTR && !feof(s->f)))
            return src_fail(s, NULL);
        return -1;
    }
    s->lines++;
    const char *nul = memchr(s->lbuf, 0, n < 0 ? AM_TEXT_LINE_MAX : (size_t)n);
    if (nul)
        return src_fail(s, nul);
    if (n < 0) {
        s->bad = s->eof = 1;
        return am_fail_at(s->err, s->path, s->lines, AM_TEXT_LINE_MAX + 1ul, "line longer than "
                          "%u bytes (a results table's line is a run's row)", AM_TEXT_LINE_MAX);
    }
    size_t m = (size_t)n;
    if (s->len + m + 1 > s->cap) {
        while (s->len + m + 1 > s->cap)
            s->cap *= 2;
        s->buf = am_realloc(s->buf, s->cap);
    }
    memcpy(s->buf + s->len, s->lbuf, m);
    s->len += m;
    s->buf[s->len] = 0;
    return m ? 0 : -1;
}

/* Where record()'s quoting stands in the text scanned so far (record_end). */
enum { SC_FIELD, SC_PLAIN, SC_QUOTED, SC_QUOTE_SEEN, SC_DONE };

/* The scan's state after character c of an unquoted field (or after a closing quote). */
static int plain_next(char c)
{
    return c == ',' ? SC_FIELD : c == '\n' || c == '\r' ? SC_DONE : SC_PLAIN;
}

/* 1 when the text past s->off holds a whole record (its line end outside quotes), scanning
 * only what the last call did not (s->scanned, s->state): a quoted field over many lines is
 * scanned once, as record() will read it. Until 2026-11-27 the record was parsed again from
 * its start for each line added: 80,000 lines in one field took 24 s. */
static int record_end(rt_src *s)
{
    const char *b = s->buf + s->off;
    size_t n = s->len - s->off;
    for (; s->scanned < n && s->state != SC_DONE; s->scanned++) {
        char c = b[s->scanned];
        switch (s->state) {
        case SC_FIELD: /* blanks before a field are skipped, as record() does */
            if (c == '"') {
                s->state = SC_QUOTED;
                s->quote_at = s->scanned;
            } else if (c == '\n' || c == '\r')
                s->state = SC_DONE;
            else if (c != ' ' && c != '\t' && c != ',')
                s->state = SC_PLAIN;
            break;
        case SC_QUOTED:
            if (c == '"')
                s->state = SC_QUOTE_SEEN;
            break;
        case SC_QUOTE_SEEN: /* "" is a quote inside the field, anything else closes it */
            s->state = c == '"' ? SC_QUOTED : plain_next(c);
            break;
        case SC_PLAIN: /* a quote here is a character of the field, as in record() */
            s->state = plain_next(c);
            break;
        }
    }
    return s->state == SC_DONE;
}

/* A quote still open at the end of the file: refused at the quote (until 2026-11-27 the field
 * took the rest of the file, status 0). */
static int unclosed_quote(rt_src *s)
{
    const char *at = s->buf + s->off;
    unsigned long line = s->line, col = s->col;
    rt_pos q = advance(&at, s->buf + s->off + s->quote_at, &line, &col);
    s->bad = 1;
    return am_fail_at(s->err, s->path, q.line, q.col, "a quote that never closes (the file "
                      "ends inside the quoted field)");
}

/* The next record of s into row and pos (record()); 0 at the end of the file, -1 on an error
 * (src_more, unclosed_quote). Lines are added until the record ends outside quotes
 * (record_end), then it is parsed once. */
static int next_record(rt_src *s, strlist *row, rt_pos **pos)
{
    s->scanned = 0;
    s->state = SC_FIELD;
    while (!record_end(s)) {
        if (src_more(s) == 0)
            continue;
        if (s->bad)
            return -1;
        if (!s->buf[s->off])
            return 0;
        if (s->state == SC_QUOTED)
            return unclosed_quote(s);
        break; /* the last record, with no line end */
    }
    const char *p = s->buf + s->off, *at = p;
    unsigned long line = s->line, col = s->col;
    if (!record(&p, row, pos, &at, &line, &col))
        return 0;
    advance(&at, p, &line, &col);
    s->off = (size_t)(p - s->buf);
    s->line = line;
    s->col = col;
    return 1;
}

int rtable_read(rtable *t, const char *path, am_error *err)
{
    return rtable_read_cols(t, path, NULL, NULL, err);
}

/* Row's fields (n of them, positions pos) cut to the kept ones, in place: the others freed. */
static void keep_fields(char **v, rt_pos *pos, int n, const unsigned char *keep)
{
    int k = 0;
    for (int c = 0; c < n; c++) {
        if (keep[c]) {
            v[k] = v[c];
            pos[k++] = pos[c];
        } else
            free(v[c]);
    }
}

int rtable_read_cols(rtable *t, const char *path, rt_keep_fn keep_fn, void *arg,
                     am_error *err)
{
    memset(t, 0, sizeof *t);
    /* "-": the file on standard input (until 2026-11-27 a file named '-' was read) */
    rt_src src = {.f = fopen(am_input_name(path), "rb"), .path = path, .err = err, .cap = 4096, .line = 1,
                  .col = 1};
    if (!src.f) {
        /* no host memory to open it is amsim's error (status 2), not the input's */
        int e = errno;
        am_fail(err, e == ENOMEM ? AM_EINTERNAL : AM_EINPUT, "%s: cannot read: %s", path,
                strerror(e));
        return -1;
    }
    /* a folder opens for reading but reads as nothing: say what it is, and name the batch
     * table inside it when there is one (until 2026-11-27 `amsim stats out1 --metric M` said
     * "out1: empty file (no header line)"). Not read in its place: a command reads the file it
     * is given. */
    struct stat sb;
    if (fstat(fileno(src.f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fclose(src.f);
        size_t il = strlen(path) + sizeof "/results.csv";
        char *inner = am_malloc(il);
        am_path_join(inner, il, path, "results.csv");
        struct stat ib;
        if (stat(inner, &ib) == 0 && S_ISREG(ib.st_mode))
            am_fail(err, AM_EINPUT, "%s: is a folder, not a results table (did you mean %s?)",
                    path, inner);
        else
            am_fail(err, AM_EINPUT, "%s: is a folder, not a results table (give the "
                    "results.csv that amsim batch writes)", path);
        free(inner);
        return -1;
    }
    src.buf = am_malloc(src.cap);
    src.buf[0] = 0;
    /* a UTF-8 byte order mark (spreadsheets write one) is not part of the first column's name
     * (until 2026-11-27 it was: "no column 'policy'"); columns count from after it */
    src_more(&src);
    if (strncmp(src.buf, "\xEF\xBB\xBF", 3) == 0)
        src.off = 3;
    strlist h = {0};
    rt_pos *hpos = NULL;
    if (src.bad || next_record(&src, &h, &hpos) != 1) {
        fclose(src.f);
        free(src.buf);
        free(src.lbuf);
        if (!src.bad)
            am_fail(err, AM_EINPUT, "%s: empty file (no header line)", path);
        return -1;
    }
    free(hpos);
    /* the columns kept: all, or those keep_fn marks (the others' cells are dropped as each row
     * is read, so a wide table costs the memory of the columns asked for) */
    int file_ncols = h.n;
    unsigned char *keep = am_malloc((size_t)file_ncols + 1);
    memset(keep, 1, (size_t)file_ncols + 1);
    if (keep_fn)
        keep_fn((const char *const *)h.v, file_ncols, keep, arg);
    t->ncols = 0;
    for (int c = 0; c < file_ncols; c++)
        t->ncols += keep[c] != 0;
    t->cols = am_calloc((size_t)t->ncols + 1, sizeof *t->cols);
    for (int c = 0, k = 0; c < file_ncols; c++) {
        if (keep[c])
            t->cols[k++] = h.v[c];
        else
            free(h.v[c]);
    }
    free(h.v);
    int rcap = 0;
    for (;;) {
        strlist row = {0};
        rt_pos *pos = NULL;
        int got = next_record(&src, &row, &pos);
        if (got == 0)
            break;
        if (got < 0) /* a NUL byte or a read error: the table is not read at all */
            goto fail;
        if (row.n == 1 && !row.v[0][0]) { /* blank line */
            free(row.v[0]);
            free(row.v);
            free(pos);
            continue;
        }
        if (row.n != file_ncols) {
            rt_pos w = pos[row.n < file_ncols ? 0 : file_ncols];
            am_fail_at(err, path, w.line, w.col, "%d fields where the header has %d", row.n,
                       file_ncols);
            for (int i = 0; i < row.n; i++)
                free(row.v[i]);
            free(row.v);
            free(pos);
            goto fail;
        }
        if (t->ncols < file_ncols) {
            keep_fields(row.v, pos, file_ncols, keep);
            pos = am_realloc(pos, ((size_t)t->ncols + 1) * sizeof *pos);
            row.v = am_realloc(row.v, ((size_t)t->ncols + 1) * sizeof *row.v);
        }
        if (t->nrows == rcap) {
            rcap = rcap ? 2 * rcap : 64;
            t->rows = am_realloc(t->rows, (size_t)rcap * sizeof *t->rows);
            t->pos = am_realloc(t->pos, (size_t)rcap * sizeof *t->pos);
        }
        t->pos[t->nrows] = pos;
        t->rows[t->nrows++] = row.v;
    }
    free(keep);
    fclose(src.f);
    free(src.buf);
    free(src.lbuf);
    return 0;
fail:
    free(keep);
    fclose(src.f);
    free(src.buf);
    free(src.lbuf);
    rtable_free(t);
    return -1;
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

int rt_status_has_metrics(const char *status)
{
    return strcmp(status, "ok") == 0 || strcmp(status, "deviation") == 0;
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
    /* a long cell is a number all the same (0. and 330 zeros before a 1): until 2026-11-28 one of
     * 128 characters or more was "not a finite number" */
    char *p = n < sizeof buf ? buf : am_malloc(n + 1);
    memcpy(p, cell, n);
    p[n] = 0;
    /* the syntax is the project's decimal reader's (no hex, inf, nan, no locale); the value
     * strtod's, correctly rounded (units_real may be an ulp off for 17 digits). A nonzero
     * decimal below the smallest double (-2: "1e-330") is a finite decimal like any other, a
     * measurement rounded to the double nearest it, 0 (until 2026-11-28 refused as "not a
     * finite number"); units_real refuses it because an option given as 0 means something
     * else, which a metric cell does not. */
    int rc = units_real(p, v, &why) == -1 ? -1 : 0;
    if (rc == 0) {
        *v = strtod(p, NULL);
        rc = isfinite(*v) ? 0 : -1;
    }
    if (p != buf)
        free(p);
    return rc;
}
