/* trace_csv.c - reader of lifetime CSVs (buffer sets with known lifetimes).
 *
 * Input: a header "id,lower,upper,size" or "id,lower,upper,size,offset" (exactly these names in
 * this order), then one row per buffer of 4 or 5 unsigned decimal integers. Blank lines and
 * lines starting with '#' are ignored, but for "# amsim skipped=N" before the header, which
 * adds N to t->skipped (csv_directive); spaces around a value are allowed. `lower` and `upper`
 * are ticks of opts->time_unit ps; the lifetime is [lower, upper), or [lower, upper] (upper
 * becomes upper + 1) with opts->lifetimes_inclusive. Rows whose lifetime is empty after that
 * adjustment, or whose size is 0, are skipped and counted in t->skipped. An empty upper is a
 * buffer never freed: an alloc and no free (as `amsim convert --to csv` writes one). `offset` becomes the
 * recorded address of the allocation (ev.addr), validated as a native addr= is (the reader
 * declares its addresses: trace_records_addrs).
 *
 * Replay order (contract.md, "Lifetime CSV import"; the BFC oracle vectors in
 * ../shared/data/bfc-oracle were produced with it): every row gives an alloc at `lower` and a
 * free at `upper`; events are sorted by time; at equal time every free precedes every alloc;
 * ties keep the file's row order.
 *
 * Two ways to that order. A first pass parses every row without keeping it (csv_scan). When the
 * kept rows' `lower` never decreases and no id repeats, the file is read a second time and
 * streamed (memory grows with the buffers live at once, not with rows): the next row's alloc
 * goes out unless the earliest pending free (a heap by time, then row) is due at or before it.
 * Ids that only increase need no memory to be known unique; otherwise the first pass starts over
 * with a set of the ids (16 bytes a row or less, freed before the first event). Any other file
 * (rows out of order, a repeated id, any error) is read whole, as before: the events are laid
 * out frees first, each kind in row order, and sorted stably by time (a radix sort,
 * am_sort_kv), O(rows) memory; that path reports every error, so both give the same messages.
 *
 * Errors (file:line:col): a wrong header, a missing or extra column, a value that is empty, not
 * an unsigned integer or beyond 64 bits, an id used by an earlier row, a tick beyond 2^64 - 3 ps
 * (a skipped row's too). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evtab.h"
#include "linebuf.h"
#include "trace_impl.h"

#define CSV_HEADER "id,lower,upper,size"
#define CSV_HEADER_OFF "id,lower,upper,size,offset"

typedef struct csv_row {
    uint64_t v[5];       /* id, lower, upper (ticks), size (bytes), offset (bytes) */
    unsigned long line;
} csv_row;

/* An empty upper: the buffer is never freed (live to the end of the run, as a native trace's
 * buffer without a free). Held as upper 2^64 - 1, which no written upper can be (every tick is
 * at most 2^64 - 3 ps: csv_time_check refuses it), and its free time is CSV_NEVER. */
#define CSV_OPEN UINT64_MAX
#define CSV_NEVER UINT64_MAX

/* Events are am_kv pairs: key the time in ps, val bit 62 set for an alloc and the row index
 * in the low bits; the duplicate-id check sorts pairs of (id, row index). */
#define CSV_ALLOC_BIT (1ULL << 62)

/* Rows live in chunks of CSV_CHUNK (3 MiB), so a large file's rows are never copied: the first
 * chunk grows by doubling from 1024 rows (a small file stays small), and once it is whole,
 * each further one is allocated whole (in huge pages where the system has them). */
enum { CSV_CHUNK_BITS = 16, CSV_CHUNK = 1 << CSV_CHUNK_BITS };

/* A pending free of the streamed file: due at `time` (ps), `row` its row's index among the data
 * rows (the tie-break); what the event carries is in slot `slot` of the payload array, so the
 * heap moves 24 bytes an entry. */
typedef struct csv_free {
    uint64_t time, row;
    uint32_t slot;
} csv_free;

typedef struct csv_payload {
    uint64_t id, bytes, addr;
    unsigned long line;
} csv_payload;

typedef struct csv {
    /* read whole */
    csv_row **chunk;
    size_t nchunks, cap0; /* cap0: rows the first chunk holds */
    size_t nrows;
    am_kv *evs;
    size_t nevs, next;
    /* streamed */
    int stream, ncols, header_done, check_ids;
    linebuf lb;
    size_t rows_read, rows_total; /* data rows read by the second pass; counted by the first */
    uint64_t last_lo, last_id;    /* of the last kept row / the last row read */
    csv_row pend;                 /* the next kept row, read ahead (have_pend) */
    uint64_t pend_lo, pend_hi, pend_row;
    int have_pend, at_end;
    csv_free *heap;               /* pending frees: a 4-ary heap by (time, row) */
    size_t nheap, cap_heap;
    csv_payload *pay;             /* cap_heap slots; the free ones listed in free_slots */
    uint32_t *free_slots;
    size_t nfree_slots;
    uint64_t skipped_declared;    /* "# amsim skipped=N" before the header (csv_directive) */
    unsigned long skipped_line;   /* its line, 0 when none */
    unsigned long skipped_col;    /* the column of its N */
} csv;

static int csv_next(trace *t, tr_event *ev, am_error *err);
static void csv_close(trace *t);

static const struct trace_reader csv_reader = {"lifetime_csv", csv_next, csv_close, 1};

static const char *const csv_cols[] = {"id", "lower", "upper", "size", "offset"};

static inline int csv_ws(char c) { return c == ' ' || c == '\t'; }

#define CSV_ECHO_MAX 64 /* bytes of a bad field echoed in its message, "..." included */

/* len bytes of a field as its message echoes them, into shown (cap bytes): escaped, and when
 * longer than cap - 1 bytes its start and "..." (am_echo). Until 2026-11-27 a field's first 64
 * (a header's 80) bytes were echoed as they were: a UTF-8 character could be split, and
 * nothing showed that the value went on. */
static const char *csv_echo(char *shown, size_t cap, const char *s, size_t len)
{
    return am_echo(shown, cap, s, len, cap - 1);
}

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

/* A row of ncols plain values (1 to 19 digits each, no spaces) into r: 1, else 0 and the
 * general parser below decides (spaces, long values, and every error). Most rows are plain; this
 * reads each byte once. */
static inline int csv_row_plain(const char *p, const char *e, int ncols, csv_row *r)
{
    for (int c = 0; c < ncols; c++) {
        const char *s = p;
        uint64_t x = 0;
        unsigned d;
        while (p < e && (d = (unsigned)(unsigned char)*p - '0') <= 9) {
            x = x * 10 + d;
            p++;
        }
        if (p == s || p - s > 19)
            return 0;
        r->v[c] = x;
        if (c + 1 < ncols) {
            if (p == e || *p != ',')
                return 0;
            p++;
        }
    }
    return p == e;
}

/* A NUL byte at z in line: an input error at its column. */
static int csv_nul(trace *t, unsigned long lineno, const char *line, const char *z, am_error *err)
{
    return am_fail_at(err, t->path, lineno, (unsigned long)(z - line) + 1, TRACE_NUL_MSG);
}

/* The column (1-based) of field k's value in a row that parsed (k commas before it). */
static unsigned long csv_field_col(const char *line, const char *e, int k)
{
    const char *o = line;
    for (int c = 0; c < k; c++)
        o = (const char *)memchr(o, ',', (size_t)(e - o)) + 1;
    while (o < e && csv_ws(*o))
        o++;
    return (unsigned long)(o - line) + 1;
}

/* A tick at unit ps per tick: NULL when it is a time a run can hold, else why not. */
static const char *csv_tick_why(uint64_t tick, am_ps unit)
{
    if (tick > UINT64_MAX / unit)
        return "exceeds 2^64 ps";
    /* (else tick * unit may be 2^64 - 1 ps, the value that means "no time", or 2^64 - 2 ps,
     * where a run's clock stops: trace.h's TR_TIME_MAX) */
    return tick * unit > TR_TIME_MAX ? "is above 2^64 - 3 ps (the most a run can time)" : NULL;
}

/* A row's ticks must stay times: its upper after the inclusive adjustment, then its lower; an
 * error at that value's column in line..e when one does not. Every row is checked, a skipped
 * one (empty lifetime or size 0) too: the format allows no tick out of range (until 2026-11-27
 * a skipped row was not checked, so `0,5,18446744073709553,0` passed at 1 ns per tick where
 * the same row of 1 byte was refused; an empty lifetime's lower was never checked). Checked as
 * the row is parsed, where its columns are known (until 2026-11-27 the check came later,
 * without the line, and pointed at column 1). */
static int csv_time_check(trace *t, const csv_row *row, int open, const char *line,
                          const char *e, am_error *err)
{
    uint64_t l = row->v[1], h = row->v[2], written = h;
    am_ps unit = t->opts.time_unit;
    int over = !open && t->opts.lifetimes_inclusive && h == UINT64_MAX; /* upper + 1 overflows */
    const char *why = NULL, *lwhy = NULL;
    if (open) { /* an empty upper (never freed): only the lower is a tick */
        if (!(lwhy = csv_tick_why(l, unit)))
            return 0;
    } else if (!over) {
        h += t->opts.lifetimes_inclusive ? 1 : 0;
        why = csv_tick_why(h, unit);
        lwhy = why ? NULL : csv_tick_why(l, unit); /* past upper only in an empty lifetime */
        if (!why && !lwhy)
            return 0; /* in range: the usual case, with no column to find */
    }
    if (lwhy)
        return am_fail_at(err, t->path, row->line, csv_field_col(line, e, 1),
                          "time out of range: lower tick %llu at %llu ps per tick %s",
                          (unsigned long long)l, (unsigned long long)unit, lwhy);
    unsigned long ucol = csv_field_col(line, e, 2);
    if (over)
        return am_fail_at(err, t->path, row->line, ucol,
                          "upper %llu + 1 (inclusive lifetimes) is out of range",
                          (unsigned long long)h);
    /* with inclusive lifetimes the message names the upper as written, not the tick + 1 it
     * was read as (until 2026-11-27 it quoted N + 1 as if written) */
    if (t->opts.lifetimes_inclusive)
        return am_fail_at(err, t->path, row->line, ucol,
                          "upper %llu + 1 (inclusive lifetimes) is out of range: tick %llu at "
                          "%llu ps per tick %s", (unsigned long long)written,
                          (unsigned long long)h, (unsigned long long)unit, why);
    return am_fail_at(err, t->path, row->line, ucol,
                      "time out of range: upper tick %llu at %llu ps per tick %s",
                      (unsigned long long)h, (unsigned long long)unit, why);
}

/* Parse one data row (line lineno) into r, its times checked (csv_time_check); ncols is 4 or
 * 5. An empty upper is a buffer never freed (r->v[2] CSV_OPEN); any other empty value is an
 * error. */
static int csv_row_parse(trace *t, unsigned long lineno, char *line, size_t len, int ncols,
                         csv_row *r, am_error *err)
{
    char *p = line, *e = line + len;
    int open = 0;
    if (csv_row_plain(p, e, ncols, r))
        goto done;
    /* a carriage return left inside the row (the one before '\n' is gone) is the native
     * reader's error at its column, unless a NUL byte comes first (until 2026-11-27 it was read
     * into a field: "bad size '5\x0d2'") */
    const char *cr = memchr(line, '\r', len), *nul = memchr(line, 0, len);
    if (cr && (!nul || cr < nul))
        return am_fail_at(err, t->path, lineno, (unsigned long)(cr - line) + 1, TRACE_CR_MSG);
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
        if (s == fe && c == 2) { /* never freed (until 2026-11-27 an error, "empty upper") */
            r->v[2] = CSV_OPEN;
            open = 1;
            continue;
        }
        if (s == fe)
            return am_fail_at(err, t->path, lineno, col, "empty %s", csv_cols[c]);
        int rc = linebuf_u64(s, (size_t)(fe - s), &r->v[c]);
        if (rc) {
            const char *z = memchr(s, 0, (size_t)(fe - s));
            if (z)
                return csv_nul(t, lineno, line, z, err);
            const char *why = rc == 2 ? "out of range (max 18446744073709551615)"
                            : (*s == '-' && fe - s > 1 && s[1] >= '0' && s[1] <= '9') ? "negative"
                            : "not an unsigned integer";
            char shown[CSV_ECHO_MAX + 1];
            return am_fail_at(err, t->path, lineno, col, "bad %s '%s': %s", csv_cols[c],
                              csv_echo(shown, sizeof shown, s, (size_t)(fe - s)), why);
        }
    }
    if (p < e)
        return am_fail_at(err, t->path, lineno, (unsigned long)(p - line) + 2,
                          "extra column %d (expected %d columns: %s)", ncols + 1, ncols,
                          ncols == 5 ? CSV_HEADER_OFF : CSV_HEADER);
done:
    if (ncols == 4)
        r->v[4] = TR_NO_ADDR;
    else if (r->v[4] == TR_NO_ADDR) /* the value that means "no offset": refused, not lost */
        return am_fail_at(err, t->path, lineno, csv_field_col(line, e, 4),
                          "bad offset '18446744073709551615': out of range (at most "
                          "18446744073709551614; 2^64 - 1 means no offset)");
    else if (trace_range_past_end(r->v[4], r->v[3])) { /* until 2026-11-27 accepted */
        char why[TRACE_RANGE_WHY_MAX];
        return am_fail_at(err, t->path, lineno, csv_field_col(line, e, 4), "%s",
                          trace_range_why(why, sizeof why, "offset", r->v[4], "size", r->v[3]));
    }
    r->line = lineno;
    return csv_time_check(t, r, open, line, e, err);
}

/* A comment line before the header (p at its '#'): 0, or -1 (err) for a bad directive. The
 * comment "# amsim skipped=N" is a directive: N rows the source of an `amsim convert` skipped,
 * which this file's run counts as skipped too (until 2026-11-27 convert lost them: "0 rows
 * skipped"). Any other comment is ignored. Seen again on every pass over the file: set, not
 * added; a second such line is refused. */
static int csv_directive(trace *t, const linebuf *lb, char *line, char *p, size_t len,
                         am_error *err)
{
    static const char key[] = "amsim skipped=";
    csv *c = t->impl;
    char *e = line + len;
    for (p++; p < e && csv_ws(*p); p++)
        ;
    if ((size_t)(e - p) < sizeof key - 1 || memcmp(p, key, sizeof key - 1) != 0)
        return 0;
    p += sizeof key - 1;
    while (e > p && csv_ws(e[-1]))
        e--;
    unsigned long col = (unsigned long)(p - line) + 1;
    if (c->skipped_line && c->skipped_line != lb->line)
        return am_fail_at(err, t->path, lb->line, col - (sizeof key - 1), "second 'amsim "
                          "skipped=' comment (the first on line %lu)", c->skipped_line);
    int rc = linebuf_u64(p, (size_t)(e - p), &c->skipped_declared);
    char shown[CSV_ECHO_MAX + 1];
    if (rc)
        return am_fail_at(err, t->path, lb->line, col, "bad skipped '%s': %s",
                          csv_echo(shown, sizeof shown, p, (size_t)(e - p)), rc == 2 ? "out of range (max "
                          "18446744073709551615)" : "not an unsigned integer (a count of rows)");
    c->skipped_line = lb->line;
    c->skipped_col = col;
    return 0;
}

/* What a line is before the header has been seen (*ncols 0) and after: 0 to skip (blank or a
 * comment), 1 the header (sets *ncols to 4 or 5), 2 a data row, -1 a bad header (err). */
static int csv_line_kind(trace *t, const linebuf *lb, char *line, size_t len, int *ncols,
                         am_error *err)
{
    char *p = line;
    while (csv_ws(*p))
        p++;
    /* A NUL byte would end the line early as a C string: a blank or comment line, or the
     * header, is checked whole here; a data row's fields are parsed by length (csv_row), so
     * one there fails as a field, and csv_row names it. */
    if (*p == 0 || *p == '#' || !*ncols) {
        const char *z = memchr(line, 0, len);
        if (z)
            return csv_nul(t, lb->line, line, z, err);
        if ((z = memchr(line, '\r', len))) /* as in a row (csv_row_parse) */
            return am_fail_at(err, t->path, lb->line, (unsigned long)(z - line) + 1,
                              TRACE_CR_MSG);
    }
    if (*p == '#' && !*ncols)
        return csv_directive(t, lb, line, p, len, err);
    if (*p == 0 || *p == '#')
        return 0;
    if (*ncols)
        return 2;
    char *e = line + len;
    while (e > p && csv_ws(e[-1]))
        *--e = 0;
    if (strcmp(p, CSV_HEADER) == 0)
        *ncols = 4;
    else if (strcmp(p, CSV_HEADER_OFF) == 0)
        *ncols = 5;
    else {
        char shown[81];
        return am_fail_at(err, t->path, lb->line, (unsigned long)(p - line) + 1,
                          "bad lifetime CSV header '%s' (expected '" CSV_HEADER "' or '"
                          CSV_HEADER_OFF "')", csv_echo(shown, sizeof shown, p, strlen(p)));
    }
    return 1;
}

/* linebuf_next's failures as errors at the line they stopped on. */
static int csv_read_error(trace *t, const linebuf *lb, int r, am_error *err)
{
    if (r == LINEBUF_TOOLONG)
        return am_fail_at(err, t->path, lb->line, lb->max_line + 1,
                          "line too long (limit %zu bytes)", lb->max_line);
    return am_fail_at(err, t->path, lb->line + 1, 0, "read error: %s", trace_read_why(errno));
}

/* A row's alloc and free times in ps (the free CSV_NEVER for an empty upper): 1, or 0 when the
 * row is skipped (empty lifetime or size 0). The row's times were checked as it was parsed
 * (csv_time_check): no overflow here. */
static int csv_times(trace *t, const csv_row *row, uint64_t *lo, uint64_t *hi)
{
    uint64_t l = row->v[1], h = row->v[2];
    if (row->v[3] == 0)
        return 0;
    *lo = l * t->opts.time_unit;
    if (h == CSV_OPEN) {
        *hi = CSV_NEVER;
        return 1;
    }
    h += t->opts.lifetimes_inclusive ? 1 : 0;
    if (h <= l)
        return 0;
    *hi = h * t->opts.time_unit;
    return 1;
}

/* Read every row, check ids, build and sort the events. */
static int csv_load(trace *t, csv *c, am_error *err)
{
    linebuf lb;
    linebuf_init(&lb, t->f, LINEBUF_MAX_LINE);
    char *line;
    size_t len;
    int r, ncols = 0, bad = 0;
    /* The first error in file order: a line's error stops the reading, and a duplicate id
     * among the rows before it (checked below) comes first (until 2026-11-27 any line's error
     * came before every duplicate, even a later line's) */
    while ((r = linebuf_next(&lb, &line, &len)) == 1) {
        int k = csv_line_kind(t, &lb, line, len, &ncols, err);
        if (k < 0 || (k == 2 && csv_row_parse(t, lb.line, line, len, ncols, csv_room(c), err))) {
            bad = 1;
            break;
        }
        if (k == 2)
            c->nrows++;
    }
    if (!bad && r < 0) {
        csv_read_error(t, &lb, r, err);
        bad = 1;
    }
    if (!bad && !ncols) {
        am_fail_at(err, t->path, lb.line, 0, "missing lifetime CSV header '" CSV_HEADER "'");
        goto fail;
    }
    linebuf_free(&lb);

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
    if (bad) /* err holds the line's error */
        goto fail_sort;

    /* The frees in row order, then the allocs in row order (built at the array's far half and
     * moved down): a stable sort by time then gives (time, frees first, row). */
    c->evs = am_malloc_large((c->nrows ? c->nrows : 1) * 2 * sizeof *c->evs);
    am_kv *allocs = c->evs + c->nrows;
    size_t nalloc = 0;
    for (size_t i = 0; i < c->nrows; i++) {
        uint64_t lo, hi;
        if (!csv_times(t, csv_rowp(c, i), &lo, &hi)) {
            t->skipped++;
            continue;
        }
        if (hi != CSV_NEVER) /* a buffer never freed has no free */
            c->evs[c->nevs++] = (am_kv){hi, i};
        allocs[nalloc++] = (am_kv){lo, CSV_ALLOC_BIT | i};
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

/* ---- the streamed form ------------------------------------------------------------------ */

/* Add id to the first pass's set of ids (used when they do not only increase): 1, or 0 when it
 * was there already. */
static int idset_add(evtab *set, uint64_t id)
{
    if (evtab_get(set, id, NULL))
        return 0;
    evtab_put(set, id, 0);
    return 1;
}

enum { SCAN_STREAM, SCAN_IDS_UNORDERED, SCAN_WHOLE };

/* The first pass over the file from its start: SCAN_STREAM when every row parses, every kept
 * row's times are in range, the kept rows' `lower` never decreases and no id repeats (checked
 * by order, or with a set when ids is set); SCAN_IDS_UNORDERED when, without a set, an id did
 * not increase; SCAN_WHOLE otherwise (the whole-file reader then reports any error). Counts
 * the data rows and the skipped ones, and the columns. */
static int csv_scan(trace *t, csv *c, int ids, size_t *rows, uint64_t *skipped)
{
    linebuf lb;
    linebuf_init(&lb, t->f, LINEBUF_MAX_LINE);
    evtab set;
    evtab_init(&set, 0);
    am_error quiet = {0};
    char *line;
    size_t len;
    int r = 0, ncols = 0, verdict = SCAN_STREAM, have_kept = 0;
    uint64_t last_id = 0, last_lo = 0;
    *rows = 0;
    *skipped = 0;
    while (verdict == SCAN_STREAM && (r = linebuf_next(&lb, &line, &len)) == 1) {
        int k = csv_line_kind(t, &lb, line, len, &ncols, &quiet);
        if (k < 0) {
            verdict = SCAN_WHOLE;
            break;
        }
        if (k < 2)
            continue;
        csv_row row;
        uint64_t lo, hi;
        if (csv_row_parse(t, lb.line, line, len, ncols, &row, &quiet)) {
            verdict = SCAN_WHOLE;
            break;
        }
        if (ids) {
            if (!idset_add(&set, row.v[0]))
                verdict = SCAN_WHOLE;
        } else if (*rows > 0 && row.v[0] <= last_id) {
            verdict = SCAN_IDS_UNORDERED;
        }
        last_id = row.v[0];
        (*rows)++;
        int kept = csv_times(t, &row, &lo, &hi);
        if (kept && have_kept && lo < last_lo)
            verdict = SCAN_WHOLE;
        if (kept) {
            have_kept = 1;
            last_lo = lo;
        } else {
            (*skipped)++;
        }
    }
    if (verdict == SCAN_STREAM && (r < 0 || !ncols))
        verdict = SCAN_WHOLE;
    c->ncols = ncols;
    evtab_free(&set);
    linebuf_free(&lb);
    return verdict;
}

static int csv_rewind(trace *t, am_error *err)
{
    if (fseek(t->f, 0, SEEK_SET) != 0)
        return am_fail(err, AM_EINPUT, "%s: cannot rewind: %s", t->path, strerror(errno));
    clearerr(t->f);
    return 0;
}

/* a before b: by time, then row (rows are unique). Without branches: in the heap's descent the
 * outcome is a coin toss. */
static inline int csv_free_before(const csv_free *a, const csv_free *b)
{
    return (a->time < b->time) | ((a->time == b->time) & (a->row < b->row));
}

/* Queue a free of the row's buffer; its payload goes to a free slot. */
static void csv_heap_push(csv *c, uint64_t time, uint64_t row, const csv_payload *p)
{
    if (c->nheap == c->cap_heap) {
        if (c->cap_heap >= UINT32_MAX / 2) { /* 2^31 buffers live: far beyond any memory */
            am_msg("amsim: more than %u buffers live at once\n", UINT32_MAX / 2);
            exit(2);
        }
        size_t oc = c->cap_heap;
        c->cap_heap = oc ? oc * 2 : 1024;
        c->heap = am_realloc(c->heap, c->cap_heap * sizeof *c->heap);
        c->pay = am_realloc(c->pay, c->cap_heap * sizeof *c->pay);
        c->free_slots = am_realloc(c->free_slots, c->cap_heap * sizeof *c->free_slots);
        for (size_t s = c->cap_heap; s > oc; s--) /* lowest slot taken first */
            c->free_slots[c->nfree_slots++] = (uint32_t)(s - 1);
    }
    csv_free x = {time, row, c->free_slots[--c->nfree_slots]};
    c->pay[x.slot] = *p;
    size_t i = c->nheap++;
    while (i > 0 && csv_free_before(&x, &c->heap[(i - 1) / 4])) {
        c->heap[i] = c->heap[(i - 1) / 4];
        i = (i - 1) / 4;
    }
    c->heap[i] = x;
}

/* Take the earliest free (its time and payload); its slot is free again. The heap is 4-ary
 * (half the depth of a binary one; the four children's comparisons do not wait on each other).
 * The hole left at the root goes down to a leaf by the earliest child, then the last entry
 * rises from there (it belongs near the bottom: no comparison with it on the way down). */
static void csv_heap_pop(csv *c, uint64_t *time, csv_payload *p)
{
    csv_free *h = c->heap;
    *time = h[0].time;
    *p = c->pay[h[0].slot];
    c->free_slots[c->nfree_slots++] = h[0].slot;
    size_t n = --c->nheap, i = 0;
    if (!n)
        return;
    csv_free last = h[n];
    for (size_t k = 1; k < n; k = 4 * i + 1) {
        if (k + 3 < n) {
            size_t a = k + (size_t)csv_free_before(&h[k + 1], &h[k]);
            size_t b = k + 2 + (size_t)csv_free_before(&h[k + 3], &h[k + 2]);
            k = csv_free_before(&h[b], &h[a]) ? b : a;
        } else {
            for (size_t j = k + 1; j < n; j++)
                k = csv_free_before(&h[j], &h[k]) ? j : k;
        }
        h[i] = h[k];
        i = k;
    }
    while (i > 0 && csv_free_before(&last, &h[(i - 1) / 4])) {
        h[i] = h[(i - 1) / 4];
        i = (i - 1) / 4;
    }
    h[i] = last;
}

/* The file changed between the two passes: what the first pass checked no longer holds. */
static int csv_changed(trace *t, unsigned long line, const char *what, am_error *err)
{
    return am_fail_at(err, t->path, line, 1, "the file changed while it was read (%s)", what);
}

/* Read ahead the next kept row (c->have_pend), or note the end (c->at_end). */
static int csv_read_row(trace *t, csv *c, am_error *err)
{
    char *line;
    size_t len;
    int r;
    while ((r = linebuf_next(&c->lb, &line, &len)) == 1) {
        int ncols = c->header_done ? c->ncols : 0;
        int k = csv_line_kind(t, &c->lb, line, len, &ncols, err);
        if (k < 0)
            return -1;
        if (k == 0)
            continue;
        if (k == 1) {
            if (ncols != c->ncols)
                return csv_changed(t, c->lb.line, "its header", err);
            c->header_done = 1;
            continue;
        }
        csv_row *row = &c->pend;
        if (csv_row_parse(t, c->lb.line, line, len, c->ncols, row, err))
            return -1;
        if (c->rows_read == c->rows_total ||
            (c->check_ids && c->rows_read > 0 && row->v[0] <= c->last_id))
            return csv_changed(t, c->lb.line, "its rows", err);
        c->last_id = row->v[0];
        c->pend_row = c->rows_read++;
        if (!csv_times(t, row, &c->pend_lo, &c->pend_hi))
            continue;
        if (c->pend_lo < c->last_lo)
            return csv_changed(t, c->lb.line, "rows out of order", err);
        c->last_lo = c->pend_lo;
        c->have_pend = 1;
        return 0;
    }
    if (r < 0)
        return csv_read_error(t, &c->lb, r, err);
    if (c->rows_read != c->rows_total)
        return csv_changed(t, c->lb.line, "its rows", err);
    c->at_end = 1;
    return 0;
}

/* An event of a row: a buffer's alloc or free, on the default level and stream 0. */
static inline void csv_event(const trace *t, tr_event *ev, tr_kind kind, uint64_t id,
                             uint64_t bytes, uint64_t time, uint64_t addr, unsigned long line)
{
    trace_blank_event(t, ev);
    ev->kind = kind;
    ev->id = id;
    ev->bytes = bytes;
    ev->time = time;
    ev->addr = addr;
    ev->line = line;
    ev->col = 1;
}

static int csv_stream_next(trace *t, csv *c, tr_event *ev, am_error *err)
{
    if (!c->have_pend && !c->at_end && csv_read_row(t, c, err))
        return -1;
    if (c->nheap && (!c->have_pend || c->heap[0].time <= c->pend_lo)) {
        csv_payload p;
        uint64_t time;
        csv_heap_pop(c, &time, &p);
        csv_event(t, ev, TR_FREE, p.id, p.bytes, time, p.addr, p.line);
        return 1;
    }
    if (!c->have_pend)
        return 0;
    const csv_row *row = &c->pend;
    csv_payload p = {row->v[0], row->v[3], row->v[4], row->line};
    if (c->pend_hi != CSV_NEVER) /* a buffer never freed has no free */
        csv_heap_push(c, c->pend_hi, c->pend_row, &p);
    csv_event(t, ev, TR_ALLOC, row->v[0], row->v[3], c->pend_lo, row->v[4], row->line);
    c->have_pend = 0;
    return 1;
}

/* The rows this file skipped plus those its "# amsim skipped=N" declares, into t->skipped: 0,
 * or an error at N when the total passes 2^64 - 1 (a count no header can carry: the native and
 * binary headers hold one 64-bit count, as this line does). Until 2026-11-27 the total stopped at
 * 2^64 - 1 without a word. */
static int csv_add_declared(trace *t, const csv *c, uint64_t skipped, am_error *err)
{
    if (skipped > UINT64_MAX - c->skipped_declared)
        return am_fail_at(err, t->path, c->skipped_line, c->skipped_col,
                          "skipped count %llu plus the %llu row%s this file skips is more than "
                          "2^64 - 1 (a count of rows)", (unsigned long long)c->skipped_declared,
                          (unsigned long long)skipped, skipped == 1 ? "" : "s");
    t->skipped = skipped + c->skipped_declared;
    return 0;
}

int trace_csv_open(trace *t, am_error *err)
{
    csv *c = am_calloc(1, sizeof *c);
    t->impl = c;
    t->reader = &csv_reader;
    if (t->opts.time_unit == 0)
        t->opts.time_unit = AM_PS_PER_NS;
    size_t rows;
    uint64_t skipped;
    int v = csv_scan(t, c, 0, &rows, &skipped), with_set = v == SCAN_IDS_UNORDERED;
    if (with_set) {
        if (csv_rewind(t, err))
            return -1;
        v = csv_scan(t, c, 1, &rows, &skipped);
    }
    if (csv_rewind(t, err))
        return -1;
    if (v != SCAN_STREAM) {
        if (csv_load(t, c, err) != 0)
            return -1;
        return csv_add_declared(t, c, t->skipped, err);
    }
    c->stream = 1;
    c->check_ids = !with_set; /* the second pass checks again what costs nothing to check */
    c->rows_total = rows;
    linebuf_init(&c->lb, t->f, LINEBUF_MAX_LINE);
    return csv_add_declared(t, c, skipped, err);
}

int trace_csv_streams(const trace *t)
{
    return t->reader == &csv_reader && ((csv *)t->impl)->stream;
}

static int csv_next(trace *t, tr_event *ev, am_error *err)
{
    csv *c = t->impl;
    if (c->stream)
        return csv_stream_next(t, c, ev, err);
    if (c->next == c->nevs)
        return 0;
    const am_kv *e = &c->evs[c->next++];
    const csv_row *row = csv_rowp(c, e->val & (CSV_ALLOC_BIT - 1));
    csv_event(t, ev, (e->val & CSV_ALLOC_BIT) ? TR_ALLOC : TR_FREE, row->v[0], row->v[3], e->key,
              row->v[4], row->line);
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
    if (c->stream)
        linebuf_free(&c->lb);
    free(c->heap);
    free(c->pay);
    free(c->free_slots);
    free(c);
    t->impl = NULL;
}
