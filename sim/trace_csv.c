/* trace_csv.c - reader of lifetime CSVs (buffer sets with known lifetimes).
 *
 * Input: a header "id,lower,upper,size" or "id,lower,upper,size,offset" (exactly these names in
 * this order), then one row per buffer of 4 or 5 unsigned decimal integers. Blank lines and
 * lines starting with '#' are ignored; spaces around a value are allowed. `lower` and `upper`
 * are ticks of opts->time_unit ps; the lifetime is [lower, upper), or [lower, upper] (upper
 * becomes upper + 1) with opts->lifetimes_inclusive. Rows whose lifetime is empty after that
 * adjustment, or whose size is 0, are skipped and counted in t->skipped. `offset` becomes the
 * recorded address of the allocation (ev.addr).
 *
 * Replay order (contract.md, "Lifetime CSV import"; the BFC oracle vectors in
 * ../shared/data/bfc-oracle were produced with it): every row gives an alloc at `lower` and a
 * free at `upper`; events are sorted by time; at equal time every free precedes every alloc;
 * ties keep the file's row order. The events are laid out frees first, each kind in row order,
 * and sorted stably by time (a radix sort, am_sort_kv). The file is read whole: O(rows) memory.
 *
 * Errors (file:line:col): a wrong header, a missing or extra column, a value that is empty, not
 * an unsigned integer or beyond 64 bits, an id used by an earlier row, a time beyond 2^64 ps. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linebuf.h"
#include "trace_impl.h"

#define CSV_HEADER "id,lower,upper,size"
#define CSV_HEADER_OFF "id,lower,upper,size,offset"

typedef struct csv_row {
    uint64_t v[5];       /* id, lower, upper (ticks), size (bytes), offset (bytes) */
    unsigned long line;
} csv_row;

/* Events are am_kv pairs: key the time in ps, val bit 62 set for an alloc and the row index
 * in the low bits; the duplicate-id check sorts pairs of (id, row index). */
#define CSV_ALLOC_BIT (1ULL << 62)

/* Rows live in chunks of CSV_CHUNK (3 MiB), so a large file's rows are never copied: the first
 * chunk grows by doubling from 1024 rows (a small file stays small), and once it is whole,
 * each further one is allocated whole (in huge pages where the system has them). */
enum { CSV_CHUNK_BITS = 16, CSV_CHUNK = 1 << CSV_CHUNK_BITS };

typedef struct csv {
    csv_row **chunk;
    size_t nchunks, cap0; /* cap0: rows the first chunk holds */
    size_t nrows;
    am_kv *evs;
    size_t nevs, next;
    int has_offset;
} csv;

static int csv_next(trace *t, tr_event *ev, am_error *err);
static void csv_close(trace *t);

static const struct trace_reader csv_reader = {"lifetime_csv", csv_next, csv_close};

static const char *const csv_cols[] = {"id", "lower", "upper", "size", "offset"};

static inline int csv_ws(char c) { return c == ' ' || c == '\t'; }

static inline csv_row *csv_rowp(const csv *c, size_t i)
{
    return &c->chunk[i >> CSV_CHUNK_BITS][i & (CSV_CHUNK - 1)];
}

/* Room for row c->nrows (kept until nrows moves past it). */
static csv_row *csv_room(csv *c)
{
    size_t k = c->nrows >> CSV_CHUNK_BITS, at = c->nrows & (CSV_CHUNK - 1);
    if (k == 0 && at == c->cap0) {
        if (!c->chunk) {
            c->chunk = am_calloc(1, sizeof *c->chunk);
            c->nchunks = 1;
        }
        c->cap0 = c->cap0 ? c->cap0 * 2 : 1024;
        c->chunk[0] = am_realloc(c->chunk[0], c->cap0 * sizeof **c->chunk);
    } else if (k == c->nchunks) {
        c->chunk = am_realloc(c->chunk, (k + 1) * sizeof *c->chunk);
        c->chunk[k] = am_malloc_large(CSV_CHUNK * sizeof **c->chunk);
        c->nchunks++;
    }
    return &c->chunk[k][at];
}

/* Parse one data row (line lineno) into r; ncols is 4 or 5. */
static int csv_row_parse(trace *t, unsigned long lineno, char *line, size_t len, int ncols,
                         csv_row *r, am_error *err)
{
    char *p = line, *e = line + len;
    for (int c = 0; c < ncols; c++) {
        if (c > 0) {
            if (p == e)
                return am_fail_at(err, t->path, lineno, len + 1,
                                  "missing column '%s' (expected %d columns: %s)", csv_cols[c],
                                  ncols, ncols == 5 ? CSV_HEADER_OFF : CSV_HEADER);
            p++; /* the ',' */
        }
        char *s = p;
        while (p < e && *p != ',')
            p++;
        char *fe = p;
        while (s < fe && csv_ws(*s))
            s++;
        while (fe > s && csv_ws(fe[-1]))
            fe--;
        unsigned long col = (unsigned long)(s - line) + 1;
        if (s == fe)
            return am_fail_at(err, t->path, lineno, col, "empty %s", csv_cols[c]);
        int rc = linebuf_u64(s, (size_t)(fe - s), &r->v[c]);
        if (rc) {
            const char *why = rc == 2 ? "out of range (max 18446744073709551615)"
                            : (*s == '-' && fe - s > 1 && s[1] >= '0' && s[1] <= '9') ? "negative"
                            : "not an unsigned integer";
            return am_fail_at(err, t->path, lineno, col, "bad %s '%.*s': %s", csv_cols[c],
                              (int)AM_MIN(fe - s, 64), s, why);
        }
    }
    if (p < e)
        return am_fail_at(err, t->path, lineno, (unsigned long)(p - line) + 2,
                          "extra column %d (expected %d columns: %s)", ncols + 1, ncols,
                          ncols == 5 ? CSV_HEADER_OFF : CSV_HEADER);
    if (ncols == 4)
        r->v[4] = TR_NO_ADDR;
    r->line = lineno;
    return 0;
}

/* Read every row, check ids, build and sort the events. */
static int csv_load(trace *t, csv *c, am_error *err)
{
    linebuf lb;
    linebuf_init(&lb, t->f, LINEBUF_MAX_LINE);
    char *line;
    size_t len;
    int r, ncols = 0;
    while ((r = linebuf_next(&lb, &line, &len)) == 1) {
        char *p = line;
        while (csv_ws(*p))
            p++;
        if (*p == 0 || *p == '#')
            continue;
        if (!ncols) {
            char *e = line + len;
            while (e > p && csv_ws(e[-1]))
                *--e = 0;
            if (strcmp(p, CSV_HEADER) == 0)
                ncols = 4;
            else if (strcmp(p, CSV_HEADER_OFF) == 0)
                ncols = 5;
            else {
                am_fail_at(err, t->path, lb.line, (unsigned long)(p - line) + 1,
                           "bad lifetime CSV header '%.80s' (expected '" CSV_HEADER "' or '"
                           CSV_HEADER_OFF "')", p);
                goto fail;
            }
            continue;
        }
        if (csv_row_parse(t, lb.line, line, len, ncols, csv_room(c), err))
            goto fail;
        c->nrows++;
    }
    if (r == LINEBUF_TOOLONG) {
        am_fail_at(err, t->path, lb.line, lb.max_line + 1, "line too long (limit %zu bytes)",
                   lb.max_line);
        goto fail;
    }
    if (r == LINEBUF_EREAD) {
        am_fail_at(err, t->path, lb.line + 1, 0, "read error: %s", strerror(errno));
        goto fail;
    }
    if (!ncols) {
        am_fail_at(err, t->path, lb.line, 0, "missing lifetime CSV header '" CSV_HEADER "'");
        goto fail;
    }
    linebuf_free(&lb);
    c->has_offset = ncols == 5;

    /* Scratch for the two sorts: the ids and their sort's second half, then the events' sort's
     * second array (one allocation: fresh memory is paid for in page clearing). */
    am_kv *scratch = am_malloc_large((c->nrows ? c->nrows : 1) * 2 * sizeof *scratch);
    /* duplicate ids: report the earliest row that repeats an id */
    size_t dup = SIZE_MAX, first = 0;
    for (size_t i = 0; i < c->nrows; i++)
        scratch[i] = (am_kv){csv_rowp(c, i)->v[0], i};
    am_sort_kv(scratch, scratch + c->nrows, c->nrows, 11); /* by id, then row */
    for (size_t i = 1; i < c->nrows; i++)
        if (scratch[i].key == scratch[i - 1].key && scratch[i].val < dup &&
            (i < 2 || scratch[i - 2].key != scratch[i].key)) {
            dup = scratch[i].val;
            first = scratch[i - 1].val;
        }
    if (dup != SIZE_MAX) {
        am_fail_at(err, t->path, csv_rowp(c, dup)->line, 1,
                   "duplicate id %llu (first used on line %lu)",
                   (unsigned long long)csv_rowp(c, dup)->v[0], csv_rowp(c, first)->line);
        goto fail_sort;
    }

    /* The frees in row order, then the allocs in row order (built at the array's far half and
     * moved down): a stable sort by time then gives (time, frees first, row). */
    c->evs = am_malloc_large((c->nrows ? c->nrows : 1) * 2 * sizeof *c->evs);
    am_kv *allocs = c->evs + c->nrows;
    size_t nalloc = 0;
    am_ps unit = t->opts.time_unit;
    for (size_t i = 0; i < c->nrows; i++) {
        const csv_row *row = csv_rowp(c, i);
        uint64_t lo = row->v[1], hi = row->v[2];
        if (t->opts.lifetimes_inclusive) {
            if (hi == UINT64_MAX) {
                am_fail_at(err, t->path, row->line, 1,
                           "upper %llu + 1 (inclusive lifetimes) is out of range",
                           (unsigned long long)hi);
                goto fail_sort;
            }
            hi++;
        }
        if (hi <= lo || row->v[3] == 0) {
            t->skipped++;
            continue;
        }
        if (hi > UINT64_MAX / unit) {
            am_fail_at(err, t->path, row->line, 1,
                       "time out of range: tick %llu at %llu ps per tick exceeds 2^64 ps",
                       (unsigned long long)hi, (unsigned long long)unit);
            goto fail_sort;
        }
        c->evs[c->nevs++] = (am_kv){hi * unit, i};
        allocs[nalloc++] = (am_kv){lo * unit, CSV_ALLOC_BIT | i};
    }
    memmove(c->evs + c->nevs, allocs, nalloc * sizeof *allocs);
    c->nevs += nalloc;
    am_sort_kv(c->evs, scratch, c->nevs, 11);
    free(scratch);
    return 0;
fail_sort:
    free(scratch);
    return -1;
fail:
    linebuf_free(&lb);
    return -1;
}

int trace_csv_open(trace *t, am_error *err)
{
    csv *c = am_calloc(1, sizeof *c);
    t->impl = c;
    t->reader = &csv_reader;
    if (t->opts.time_unit == 0)
        t->opts.time_unit = AM_PS_PER_NS;
    return csv_load(t, c, err);
}

static int csv_next(trace *t, tr_event *ev, am_error *err)
{
    csv *c = t->impl;
    (void)err;
    if (c->next == c->nevs)
        return 0;
    const am_kv *e = &c->evs[c->next++];
    const csv_row *row = csv_rowp(c, e->val & (CSV_ALLOC_BIT - 1));
    trace_blank_event(t, ev);
    ev->kind = (e->val & CSV_ALLOC_BIT) ? TR_ALLOC : TR_FREE;
    ev->id = row->v[0];
    ev->bytes = row->v[3];
    ev->time = e->key;
    ev->addr = row->v[4];
    ev->line = row->line;
    ev->col = 1;
    return 1;
}

static void csv_close(trace *t)
{
    csv *c = t->impl;
    if (!c)
        return;
    for (size_t k = 0; k < c->nchunks; k++)
        free(c->chunk[k]);
    free(c->chunk);
    free(c->evs);
    free(c);
    t->impl = NULL;
}
