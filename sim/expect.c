/* expect.c - a run's metrics against a stored expectation (format and rules in expect.h).
 * The placements digest is computed from the observer's allocation callback, formatted exactly
 * as the placements CSV rows (seq,id,level,address,requested,allocated,status) of requests
 * (status ok, donated or oom), so it equals the FNV-1a 64 of the CSV file without its header
 * line and its `served` rows when the run neither defragments nor spills; the CSV's rows of
 * buffers that moved, spilled or came back (moved, spilled, restored; a buffer defragmentation
 * lost, oom) are not in it, nor the `served` rows of recorded `oom` lines (written since
 * 2026-11-27; the digest kept as it was). A `donated` row is hashed as printed (until
 * 2026-11-27 as `ok`, so the documented recipe gave another digest for a trace with a matched
 * donate=). */
#include "expect.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch.h"
#include "report.h"
#include "units.h"

typedef struct metric {
    char *key, *val;   /* val "null" for undefined reals */
    int is_int;        /* an integer (digits, or the 0x digest); else a real */
    char *tol;         /* "exact", "abs:X", "rel:X" or NULL (default) */
    int forms;         /* read values: the F_* forms val parses as */
    unsigned long line, col; /* read values: where val stands in the file */
    unsigned long kcol;      /* read values: the key's column on that line */
    unsigned long tline, tcol; /* read values: where the tolerance line's key stands, or 0 */
} metric;

/* What a value is written as. --save-expect writes integers as plain digits, the placements
 * digest as 0x and 16 hex digits, reals with %.17g and undefined reals as null; an edited value
 * must parse as the form of its metric, else it is an input error at its position (it used to be
 * compared as text, so "abc" or "2GiB" read as a deviation). */
enum { F_INT = 1, F_HEX = 2, F_REAL = 4, F_NULL = 8 };
/* The form a metric's value must have (F_INT, F_HEX or F_REAL | F_NULL), 0 when unknown. */
typedef int metric_kind;

typedef struct mlist {
    metric *v;
    int n, cap;
} mlist;

struct expect_ctx {
    char *expect_path;
    mlist want;
    mlist got;         /* the run's metrics, once expect_check has gathered them */
    int checked;       /* expect_check passed */
    sim_observer obs;
    const sim_observer *inner;
    const am_config *cfg;
    uint64_t rows, hash;
};

static void ml_add(mlist *l, const char *k, const char *v, int is_int, const char *tol)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->v = am_realloc(l->v, (size_t)l->cap * sizeof *l->v);
    }
    metric *m = &l->v[l->n++];
    m->key = am_strdup(k);
    m->val = am_strdup(v);
    m->is_int = is_int;
    m->tol = tol ? am_strdup(tol) : NULL;
    m->forms = 0;
    m->line = m->col = m->kcol = m->tline = m->tcol = 0;
}

static void ml_free(mlist *l)
{
    for (int i = 0; i < l->n; i++) {
        free(l->v[i].key);
        free(l->v[i].val);
        free(l->v[i].tol);
    }
    free(l->v);
    memset(l, 0, sizeof *l);
}

static metric *ml_find(const mlist *l, const char *k)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->v[i].key, k) == 0)
            return &l->v[i];
    return NULL;
}

/* ---- the observer: placements digest ---------------------------------------------------- */

static void fwd_alloc(void *c, am_ps t, uint64_t seq, uint64_t id, int level, uint32_t stream,
                      uint64_t addr, uint64_t requested, uint64_t size, int ok, const char *name)
{
    expect_ctx *x = c;
    char row[256];
    int n;
    if (ok && id == TR_NO_ID) { /* a recorded out-of-memory served: its `served` row is left out */
        if (x->inner && x->inner->alloc)
            x->inner->alloc(x->inner->ctx, t, seq, id, level, stream, addr, requested, size, ok,
                            name);
        return;
    }
    if (ok) /* hashed as the CSV prints it: a donation's row says `donated` */
        n = snprintf(row, sizeof row, "%" PRIu64 ",%" PRIu64 ",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64
                     ",%s\n", seq, id, x->cfg->levels[level].name, addr, requested, size,
                     ok == SIM_ALLOC_DONATED ? "donated" : "ok");
    else
        n = snprintf(row, sizeof row, "%" PRIu64 ",%" PRIu64 ",%s,,%" PRIu64 ",,oom\n", seq, id,
                     x->cfg->levels[level].name, requested);
    x->hash = rt_fnv1a(x->hash, row, (size_t)n);
    x->rows++;
    if (x->inner && x->inner->alloc)
        x->inner->alloc(x->inner->ctx, t, seq, id, level, stream, addr, requested, size, ok,
                            name);
}

static void fwd_free(void *c, am_ps t, uint64_t id, int level, uint32_t stream, uint64_t addr,
                     uint64_t requested, uint64_t size, int phase)
{
    expect_ctx *x = c;
    if (x->inner && x->inner->free)
        x->inner->free(x->inner->ctx, t, id, level, stream, addr, requested, size, phase);
}

static void fwd_free_failed(void *c, am_ps t, uint64_t id, int level, uint32_t stream,
                            uint64_t requested, int phase)
{
    expect_ctx *x = c;
    if (x->inner && x->inner->free_failed)
        x->inner->free_failed(x->inner->ctx, t, id, level, stream, requested, phase);
}

static void fwd_device(void *c, am_ps t, int level, int alloc, uint64_t addr, uint64_t bytes)
{
    expect_ctx *x = c;
    if (x->inner && x->inner->device)
        x->inner->device(x->inner->ctx, t, level, alloc, addr, bytes);
}

static void fwd_counters(void *c, am_ps t, int level, const mem_metrics *m)
{
    expect_ctx *x = c;
    if (x->inner && x->inner->counters)
        x->inner->counters(x->inner->ctx, t, level, m);
}

static void fwd_op(void *c, uint32_t stream, am_ps start, am_ps end, int chan, uint64_t bytes,
                   const char *name)
{
    expect_ctx *x = c;
    if (x->inner && x->inner->op)
        x->inner->op(x->inner->ctx, stream, start, end, chan, bytes, name);
}

static void fwd_link(void *c, int chan, uint32_t stream, am_ps start, am_ps end, uint64_t bytes)
{
    expect_ctx *x = c;
    if (x->inner && x->inner->link)
        x->inner->link(x->inner->ctx, chan, stream, start, end, bytes);
}

/* Not in the digest (the file comment says why), forwarded only. */
static void fwd_move(void *c, am_ps t, uint64_t seq, uint64_t id, uint32_t stream, int from_level,
                     uint64_t from_addr, uint64_t from_size, int level, uint64_t addr,
                     uint64_t requested, uint64_t size, const char *name)
{
    expect_ctx *x = c;
    if (x->inner && x->inner->move)
        x->inner->move(x->inner->ctx, t, seq, id, stream, from_level, from_addr, from_size, level,
                       addr, requested, size, name);
}

/* Not in the digest either (no request settles: the CSV row of a buffer defragmentation lost
 * is left out, a failed restore has none), forwarded only. */
static void fwd_oom(void *c, am_ps t, uint64_t seq, uint64_t id, int level, uint32_t stream,
                    uint64_t requested, const char *what, const char *name)
{
    expect_ctx *x = c;
    if (x->inner && x->inner->oom)
        x->inner->oom(x->inner->ctx, t, seq, id, level, stream, requested, what, name);
}


/* ---- reading ---------------------------------------------------------------------------- */

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = 0;
    return s;
}

static int value_forms(const char *v)
{
    int f = 0;
    uint64_t u;
    double d;
    const char *why;
    size_t n = strlen(v);
    if (units_u64(v, n, &u) == 0)
        f |= F_INT;
    if (n > 2 && n <= 18 && v[0] == '0' && v[1] == 'x' &&
        strspn(v + 2, "0123456789abcdefABCDEF") == n - 2)
        f |= F_HEX;
    /* no sign, as --save-expect writes none and the tolerances and config numbers take none
     * (until 2026-11-28 '-0.1', '+0.1' and '-0' passed as a fragmentation ratio) */
    if (v[0] != '+' && v[0] != '-' && units_real(v, &d, &why) == 0)
        f |= F_REAL;
    if (strcmp(v, "null") == 0)
        f |= F_NULL;
    return f;
}

/* The kind of the metrics every run has, by key; a policy's LEVEL.stats.NAME is known only from
 * the run (its value's form there). */
static metric_kind key_kind(const char *k)
{
    if (strcmp(k, "placements.fnv1a64") == 0)
        return F_HEX;
    if (strcmp(k, "placements.rows") == 0)
        return F_INT;
    const char *dot = strchr(k, '.');
    if (!dot)
        return 0;
    dot++;
    if (!strcmp(dot, "peak_live_bytes") || !strcmp(dot, "peak_reserved_bytes") ||
        !strcmp(dot, "ooms"))
        return F_INT;
    if (!strcmp(dot, "fragmentation_ratio"))
        return F_REAL | F_NULL;
    return 0;
}

/* The metrics every run has, after "LEVEL." (the policy's own are LEVEL.stats.NAME). */
static const char *const fixed_metrics[] = {"peak_live_bytes", "peak_reserved_bytes", "ooms",
                                            "fragmentation_ratio", NULL};

/* Every key a run of cfg has except the policy statistics, for "did you mean" before the run;
 * the strings are allocated in *store (free each, then the array). */
static const char **fixed_keys(const am_config *cfg, char ***store)
{
    int n = 2 + cfg->nlevels * (int)(AM_ARRAY_LEN(fixed_metrics) - 1), k = 0;
    const char **v = am_calloc((size_t)n + 1, sizeof *v);
    char **own = am_calloc((size_t)n + 1, sizeof *own);
    v[k++] = "placements.fnv1a64";
    v[k++] = "placements.rows";
    for (int i = 0, j = 0; i < cfg->nlevels; i++)
        for (const char *const *m = fixed_metrics; *m; m++, j++) {
            size_t len = strlen(cfg->levels[i].name) + strlen(*m) + 2;
            own[j] = am_malloc(len);
            snprintf(own[j], len, "%s.%s", cfg->levels[i].name, *m);
            v[k++] = own[j];
        }
    *store = own;
    return v;
}

/* A key that no run of this config can have: not placements.*, not a memory level of the
 * config, or not one of the metrics every level has or LEVEL.stats.NAME. The statistics' names
 * are checked after the run (expect_check). 0, or -1 with err at the key's position. */
static int check_key_known(const char *path, const metric *m, const am_config *cfg,
                           am_error *err)
{
    const char *k = m->key, *dot = strchr(k, '.');
    if (!strcmp(k, "placements.fnv1a64") || !strcmp(k, "placements.rows"))
        return 0;
    if (dot && cfg_level_index(cfg, k, (size_t)(dot - k)) >= 0) {
        for (const char *const *lm = fixed_metrics; *lm; lm++)
            if (!strcmp(dot + 1, *lm))
                return 0;
        if (!strncmp(dot + 1, "stats.", 6) && dot[7])
            return 0;
    }
    char **own;
    const char **cands = fixed_keys(cfg, &own);
    const char *near = cfg_suggest(k, cands);
    char levels[CFG_LEVEL_LIST_MAX];
    cfg_level_names(cfg, levels, sizeof levels);
    if (near)
        am_fail_at(err, path, m->line, m->kcol, "unknown metric '%s' (did you mean '%s'?)", k,
                   near);
    else
        am_fail_at(err, path, m->line, m->kcol, "unknown metric '%s' (metrics: placements.rows, "
                   "placements.fnv1a64, and LEVEL.peak_live_bytes, LEVEL.peak_reserved_bytes, "
                   "LEVEL.ooms, LEVEL.fragmentation_ratio, LEVEL.stats.NAME for the levels %s)",
                   k, levels);
    for (char **o = own; *o; o++)
        free(*o);
    free(own);
    free(cands);
    return -1;
}

static metric_kind got_kind(const metric *g)
{
    if (!g->is_int)
        return F_REAL | F_NULL;
    return strncmp(g->val, "0x", 2) == 0 ? F_HEX : F_INT;
}

static const char *kind_words(metric_kind k)
{
    return k == F_HEX ? "a digest: 0x and up to 16 hex digits"
           : k == F_INT ? "a whole number: plain digits, no unit or sign"
                        : "a real number (no sign) or null";
}

/* 0 when the value of m can be of kind k; else -1 with err at the value's position. */
static int check_kind(const char *path, const metric *m, metric_kind k, am_error *err)
{
    if (m->forms & k)
        return 0;
    return am_fail_at(err, path, m->line, m->col, "%s: '%s' is not %s", m->key, m->val,
                      kind_words(k));
}

/* 0 when t is a tolerance (exact, abs:X, rel:X with X a plain number, 0 or more), else -1.
 * X takes no sign, as values and config numbers take none (until 2026-11-27 'abs:+5' passed,
 * and 'abs:-0', while a value '+5' was refused). */
static int check_tol(const char *t)
{
    double v;
    const char *why;
    if (strcmp(t, "exact") == 0)
        return 0;
    if ((strncmp(t, "abs:", 4) == 0 || strncmp(t, "rel:", 4) == 0) && t[4] != '+' &&
        t[4] != '-' && units_real(t + 4, &v, &why) == 0 && v >= 0)
        return 0;
    return -1;
}

static void fwd_action(void *ctx, const char *what, int level, am_ps start, am_ps end,
                       uint64_t bytes)
{
    expect_ctx *x = ctx;
    if (x->inner && x->inner->action)
        x->inner->action(x->inner->ctx, what, level, start, end, bytes);
}

/* Line ln just read (got bytes, or -2: past AM_TEXT_LINE_MAX) within the limits, *total the
 * bytes read so far: 0, or -1 with err at the line and column where a limit was passed. A NUL
 * byte before that is said first (what /dev/zero holds). Until 2026-11-27 an expectation had
 * no limit: `--expect - < /dev/zero` grew without end, gigabytes. */
static int bounded(const char *path, unsigned long ln, const char *line, long got,
                   size_t *total, am_error *err)
{
    size_t n = got < 0 ? AM_TEXT_LINE_MAX : (size_t)got;
    const char *z = memchr(line, 0, n);
    if (z && got < 0)
        return am_fail_at(err, path, ln, (unsigned long)(z - line) + 1,
                          "NUL byte (an expectation file is text)");
    if (got < 0)
        return am_fail_at(err, path, ln, AM_TEXT_LINE_MAX + 1ul, "line longer than %u bytes "
                          "(an expectation line is KEY=VALUE)", AM_TEXT_LINE_MAX);
    if (*total + n > AM_EXPECT_FILE_MAX)
        return am_fail_at(err, path, ln, (unsigned long)(AM_EXPECT_FILE_MAX - *total) + 1,
                          "larger than %u bytes (an expectation file is a few KiB)",
                          AM_EXPECT_FILE_MAX);
    *total += n;
    return 0;
}

static int load(expect_ctx *x, const char *path, const am_config *cfg, am_error *err)
{
    /* refused by its type before any read (am_fopen_regular): a FIFO there would block a run's
     * worker forever (until 2026-11-27 it was fopen'ed as it was) */
    /* "-" is standard input, as an output "-" is standard output: an expectation is read once,
     * from the top, so a pipe serves (until 2026-11-27 a file named '-' was opened, and without
     * one the hint said to record it with --save-expect -, which writes standard output) */
    const char *what = NULL;
    int from_stdin = strcmp(path, "-") == 0;
    FILE *f = from_stdin ? stdin : am_fopen_regular(path, &what);
    if (!f && what)
        return am_fail(err, AM_EINPUT, "%s: cannot read expectation: not a regular file (%s); "
                       "an expectation is the file amsim run --save-expect writes", path, what);
    if (!f && errno == ENOENT) /* a run's: batch says how a regress sweep records its own */
        return am_fail(err, AM_EINPUT, "%s: no expectation recorded; record one with amsim run "
                       "... --save-expect %s", path, path);
    if (!f)
        return am_fail(err, AM_EINPUT, "%s: cannot read expectation: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0, total = 0;
    long got;
    unsigned long ln = 0;
    int rc = 0, keys = 0;
    while ((got = am_getline_max(&line, &cap, f, AM_TEXT_LINE_MAX)) != -1) {
        ln++;
        if ((rc = bounded(path, ln, line, got, &total, err)) != 0)
            break;
        /* a UTF-8 byte order mark before the header is skipped, as configs and traces skip one
         * (until 2026-11-27 it made the file "not an expectation file"); line 1's columns count
         * from after it */
        size_t bom = ln == 1 && got >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
        const char *z = memchr(line, 0, (size_t)got);
        if (z) {
            rc = am_fail_at(err, path, ln, (unsigned long)(z - line - bom) + 1,
                            "NUL byte (an expectation file is text)");
            break;
        }
        if (line[got - 1] == '\n')
            line[got - 1] = 0;
        char *s = trim(line + bom);
        if (ln == 1) {
            if (strcmp(s, "amsim-expect v1") != 0) {
                rc = am_fail_at(err, path, ln, 1, "not an expectation file (first line must be "
                                "'amsim-expect v1')");
                break;
            }
            continue;
        }
        if (!*s || *s == '#')
            continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            rc = am_fail_at(err, path, ln, 1, "expected KEY=VALUE");
            break;
        }
        *eq = 0;
        char *k = trim(s), *v = trim(eq + 1);
        size_t kl = strlen(k);
        if (kl > 10 && strcmp(k + kl - 10, ".tolerance") == 0) {
            k[kl - 10] = 0;
            if (check_tol(v) != 0) {
                rc = am_fail_at(err, path, ln, (unsigned long)(v - line) + 1,
                                "tolerance '%s': exact, abs:X or rel:X (X a number, 0 or more, "
                                "no sign)", v);
                break;
            }
            metric *m = ml_find(&x->want, k);
            unsigned long kc = (unsigned long)(k - line) + 1;
            if (!m) {
                rc = am_fail_at(err, path, ln, kc, "tolerance for '%s' before its value", k);
                break;
            }
            /* a hash has no distance: abs:/rel: on the digest read it as a number (a double,
             * so 'abs:0' let the next digests pass, 'rel:0.5' nearly any) */
            if (key_kind(k) == F_HEX && strcmp(v, "exact") != 0) {
                rc = am_fail_at(err, path, ln, (unsigned long)(v - line) + 1, "%s.tolerance "
                                "'%s': the placements digest compares exactly (only 'exact'; a "
                                "hash has no numeric distance)", k, v);
                break;
            }
            /* the second one replaced the first in silence */
            if (m->tline) {
                rc = am_fail_at(err, path, ln, kc, "'%s.tolerance' given twice (first at line "
                                "%lu, column %lu)", k, m->tline, m->tcol);
                break;
            }
            free(m->tol);
            m->tol = am_strdup(v);
            m->tline = ln;
            m->tcol = kc;
            continue;
        }
        const metric *first = ml_find(&x->want, k);
        if (first) {
            rc = am_fail_at(err, path, ln, (unsigned long)(k - line) + 1, "'%s' given twice "
                            "(first at line %lu, column %lu)", k, first->line, first->kcol);
            break;
        }
        int forms = value_forms(v);
        ml_add(&x->want, k, v, (forms & (F_INT | F_HEX)) != 0, NULL);
        metric *m = &x->want.v[x->want.n - 1];
        m->forms = forms;
        m->line = ln;
        m->col = (unsigned long)(v - line) + 1;
        m->kcol = (unsigned long)(k - line) + 1;
        /* a key no run of this config has is an input error (it was a deviation, "missing
         * from the run"): a typo would fail every check */
        if ((rc = check_key_known(path, m, cfg, err)) != 0)
            break;
        /* the metrics every run has are checked against their kind now, a policy statistic
         * against every form here and against its own kind after the run */
        metric_kind kind = key_kind(k);
        if (kind && (rc = check_kind(path, m, kind, err)) != 0)
            break;
        if (!forms) {
            rc = am_fail_at(err, path, ln, m->col, "%s: '%s' is not a value (a whole number, 0x "
                            "and hex digits, a real number or null; none with a sign)", k, v);
            break;
        }
        keys++;
    }
    /* what would otherwise pass every run: a read that failed, an empty or header-only file */
    if (!rc && ferror(f))
        rc = am_fail(err, AM_EINPUT, "%s: read error: %s", path, strerror(errno));
    else if (!rc && ln == 0)
        rc = am_fail(err, AM_EINPUT, "%s: empty file (expected 'amsim-expect v1' and KEY=VALUE "
                     "lines)", path);
    else if (!rc && keys == 0)
        rc = am_fail(err, AM_EINPUT, "%s: no expectations (KEY=VALUE lines) after the header",
                     path);
    free(line);
    if (!from_stdin)
        fclose(f);
    return rc;
}

static void fwd_prologue(void *c, int on)
{
    expect_ctx *x = c;
    if (x->inner && x->inner->prologue)
        x->inner->prologue(x->inner->ctx, on);
}

static void fwd_event(void *c, am_ps t)
{
    expect_ctx *x = c;
    if (x->inner && x->inner->event)
        x->inner->event(x->inner->ctx, t);
}

static void fwd_attempt_failed(void *c, am_ps t, int level, uint32_t stream, uint64_t requested)
{
    expect_ctx *x = c;
    if (x->inner && x->inner->attempt_failed)
        x->inner->attempt_failed(x->inner->ctx, t, level, stream, requested);
}

/* Not in the digest (the buffer's move settles it), forwarded only. */
static void fwd_defrag_free(void *c, am_ps t, uint64_t seq, uint64_t id, uint32_t stream,
                            int level, uint64_t addr, uint64_t requested, uint64_t size)
{
    expect_ctx *x = c;
    if (x->inner && x->inner->defrag_free)
        x->inner->defrag_free(x->inner->ctx, t, seq, id, stream, level, addr, requested, size);
}

/* Not in the digest, forwarded only. */
static void fwd_copy(void *c, int chan, am_ps start, am_ps end, uint64_t bytes, const char *what,
                     uint64_t id, int level)
{
    expect_ctx *x = c;
    x->inner->copy(x->inner->ctx, chan, start, end, bytes, what, id, level);
}

int expect_begin(expect_ctx **xp, const char *expect, const am_config *cfg,
                 const sim_observer *inner, am_error *err)
{
    expect_ctx *x = am_calloc(1, sizeof *x);
    x->cfg = cfg;
    x->inner = inner;
    x->hash = RT_FNV_OFFSET;
    x->expect_path = expect ? am_strdup(expect) : NULL;
    x->obs = (sim_observer){x, fwd_alloc, fwd_free, fwd_device, fwd_counters, fwd_op, fwd_action,
                            fwd_link, fwd_move, fwd_oom,
                            fwd_prologue, fwd_free_failed, fwd_event,
                            fwd_attempt_failed, fwd_defrag_free,
                            /* only when heard: the engine keeps a note of each copy for it */
                            inner && inner->copy ? fwd_copy : NULL};
    if (expect && load(x, expect, cfg, err) != 0) {
        expect_free(x);
        *xp = NULL;
        return -1;
    }
    *xp = x;
    return 0;
}

const sim_observer *expect_observer(expect_ctx *x) { return &x->obs; }

void expect_free(expect_ctx *x)
{
    if (!x)
        return;
    free(x->expect_path);
    ml_free(&x->want);
    ml_free(&x->got);
    free(x);
}

/* ---- the run's metrics ------------------------------------------------------------------ */

typedef struct sctx {
    mlist *l;
    const char *level;
} sctx;

static void add_u64(mlist *l, const char *k, uint64_t v)
{
    char b[32];
    snprintf(b, sizeof b, "%" PRIu64, v);
    ml_add(l, k, b, 1, NULL);
}

static void add_real(mlist *l, const char *k, double v, int is_null)
{
    char b[64];
    if (is_null || isnan(v) || isinf(v))
        snprintf(b, sizeof b, "null");
    else
        snprintf(b, sizeof b, "%.17g", v);
    ml_add(l, k, b, 0, NULL);
}

static void s_u64(void *c, const char *name, uint64_t v)
{
    sctx *x = c;
    char k[256];
    snprintf(k, sizeof k, "%s.stats.%s", x->level, name);
    add_u64(x->l, k, v);
}

static void s_cur_peak(void *c, const char *name, uint64_t cur, uint64_t peak)
{
    sctx *x = c;
    char k[256];
    snprintf(k, sizeof k, "%s.stats.%s.current", x->level, name);
    add_u64(x->l, k, cur);
    snprintf(k, sizeof k, "%s.stats.%s.peak", x->level, name);
    add_u64(x->l, k, peak);
}

static void s_real(void *c, const char *name, double v, int is_null)
{
    sctx *x = c;
    char k[256];
    snprintf(k, sizeof k, "%s.stats.%s", x->level, name);
    add_real(x->l, k, v, is_null);
}

static void gather(expect_ctx *x, sim *s, mlist *l)
{
    /* the placements first: the line that says "something moved" before the details */
    char h[32];
    snprintf(h, sizeof h, "0x%016" PRIx64, x->hash);
    ml_add(l, "placements.fnv1a64", h, 1, "exact");
    add_u64(l, "placements.rows", x->rows);
    for (int i = 0; i < sim_nlevels(s); i++) {
        mem_level *m = sim_level(s, i);
        const char *L = mem_name(m);
        level_metrics lm;
        char k[256];
        report_level_metrics(m, &lm);
        snprintf(k, sizeof k, "%s.peak_live_bytes", L);
        add_u64(l, k, lm.peak_live);
        snprintf(k, sizeof k, "%s.peak_reserved_bytes", L);
        add_u64(l, k, lm.peak_reserved);
        snprintf(k, sizeof k, "%s.ooms", L);
        add_u64(l, k, mem_get_metrics(m)->ooms);
        snprintf(k, sizeof k, "%s.fragmentation_ratio", L);
        add_real(l, k, lm.fragmentation_ratio, 0);
        sctx c = {l, L};
        stat_sink sink = {&c, s_u64, s_cur_peak, s_real};
        mem_policy(m)->stats(mem_policy_state(m), &sink);
    }
}

/* Add to l the statistics a policy reports, under level L, for a probe level of 1 GiB with
 * options o (the policy's own struct). A policy that cannot be created so adds nothing. */
static void probe_stats(mlist *l, const char *L, const struct alloc_ops *p, const void *o)
{
    mem_level *m;
    am_error e = {0};
    mem_params mp = {"probe", "other", 1ULL << 30, 1, p, o, 0, NULL, NULL, NULL, 0, 1};
    if (mem_create(&m, &mp, &e) != 0)
        return;
    sctx c = {l, L};
    stat_sink sink = {&c, s_u64, s_cur_peak, s_real};
    p->stats(mem_policy_state(m), &sink);
    mem_destroy(m);
}

/* Whether LEVEL.stats.NAME (key) is a statistic some registered policy reports: each one is
 * probed with its default options and with each other value of each of its boolean and enum
 * options (a statistic may exist only in a mode: prealloc's num_bump_resets). */
static int stat_of_some_policy(const char *key)
{
    const char *dot = strchr(key, '.');
    char level[CFG_NAME_MAX];
    snprintf(level, sizeof level, "%.*s", (int)AM_MIN((size_t)(dot - key), sizeof level - 1),
             key);
    mlist l = {0};
    for (const struct alloc_ops *const *p = alloc_all(); p && *p; p++) {
        size_t sz = (*p)->opts_size ? (*p)->opts_size : 1;
        char *o = am_calloc(1, sz), *v = am_calloc(1, sz);
        am_error e = {0};
        if (cfg_apply_opts(NULL, "", (*p)->opts, (*p)->opts_size ? o : NULL, NULL, &e) == 0) {
            probe_stats(&l, level, *p, (*p)->opts_size ? o : NULL);
            for (const opt_desc *d = (*p)->opts; d && d->key && (*p)->opts_size; d++) {
                int n = d->type == OPT_BOOL ? 2 : 0, cur;
                while (d->type == OPT_ENUM && d->enum_values && d->enum_values[n])
                    n++;
                memcpy(&cur, o + d->offset, sizeof cur);
                for (int i = 0; i < n; i++) {
                    if (i == cur)
                        continue;
                    memcpy(v, o, sz);
                    memcpy(v + d->offset, &i, sizeof i);
                    probe_stats(&l, level, *p, v);
                }
            }
        }
        free(o);
        free(v);
    }
    int known = ml_find(&l, key) != NULL;
    ml_free(&l);
    return known;
}

int expect_check(expect_ctx *x, sim *s, am_error *err)
{
    if (x->checked)
        return 0;
    ml_free(&x->got);
    gather(x, s, &x->got);
    if (!x->expect_path) {
        x->checked = 1;
        return 0;
    }
    const char **cands = am_calloc((size_t)x->got.n + 1, sizeof *cands);
    for (int i = 0; i < x->got.n; i++)
        cands[i] = x->got.v[i].key;
    int rc = 0;
    for (int i = 0; i < x->want.n && !rc; i++) {
        const metric *w = &x->want.v[i], *g = ml_find(&x->got, w->key);
        /* a value that cannot be what its metric is in this run is an input error, not a
         * deviation: the policy statistics' kinds are known only now */
        if (g) {
            rc = check_kind(x->expect_path, w, got_kind(g), err);
            continue;
        }
        /* a statistic of another policy (or of another mode of this one) is missing from the
         * run, a deviation; a name no policy reports is a typo */
        if (stat_of_some_policy(w->key))
            continue;
        const char *near = cfg_suggest(w->key, cands);
        const char *dot = strchr(w->key, '.');
        int l = dot ? cfg_level_index(x->cfg, w->key, (size_t)(dot - w->key)) : -1;
        const char *pol = l >= 0 ? mem_policy(sim_level(s, l))->name : "?";
        char hint[256] = "";
        if (near)
            snprintf(hint, sizeof hint, "; did you mean '%s'?", near);
        rc = am_fail_at(err, x->expect_path, w->line, w->kcol, "unknown metric '%s': no policy "
                        "reports such a statistic (this run's policy there: %s%s)", w->key, pol,
                        hint);
    }
    free(cands);
    x->checked = rc == 0;
    return rc;
}

int expect_save(expect_ctx *x, sim *s, FILE *f, am_error *err)
{
    if (expect_check(x, s, err) != 0)
        return -1;
    fprintf(f, "amsim-expect v1\n"
               "# KEY=VALUE, then KEY.tolerance=exact | abs:X | rel:X (see amsim run --help)\n");
    for (int i = 0; i < x->got.n; i++) {
        const metric *m = &x->got.v[i];
        fprintf(f, "%s=%s\n%s.tolerance=%s\n", m->key, m->val, m->key,
                m->tol ? m->tol : m->is_int ? "exact" : "rel:1e-9");
    }
    return 0;
}

/* Whether the whole number a (as written: digits) is within the tolerance tol of b. Exact
 * 64-bit arithmetic: as doubles, values above 2^53 that differ by less than their spacing (one
 * at 2^53, four at 2^55) compared equal, even with abs:0 or exact. A bound abs:X compares the
 * difference with X's whole part, which is the same test for a whole difference; rel:X with
 * the difference exact and only the product X * max rounded (in long double). */
static int int_within(uint64_t a, uint64_t b, const char *tol)
{
    uint64_t diff = a > b ? a - b : b - a, bound;
    if (diff == 0 || strcmp(tol, "exact") == 0)
        return diff == 0;
    const char *x = tol + 4, *why;
    /* a bound in plain digits is read exactly: abs:36028797018963969 is not rounded */
    if (tol[0] == 'a' && units_u64(x, strlen(x), &bound) == 0)
        return diff <= bound;
    double t;
    if (units_real(x, &t, &why) != 0) /* check_tol has made sure it is a number */
        return 0;
    if (tol[0] == 'a')
        return t >= 18446744073709551616.0 || diff <= (uint64_t)floor(t);
    return (long double)diff <= (long double)t * (long double)(a > b ? a : b);
}

/* 1 when got is within tolerance of want. The default tolerance follows the metric's kind in
 * the run (a real written as "0" is still a real). */
static int within(const metric *want, const metric *gm, char *tolbuf, size_t tn)
{
    const char *got = gm->val;
    const char *tol = want->tol ? want->tol : gm->is_int ? "exact" : "rel:1e-9";
    snprintf(tolbuf, tn, "%s", tol);
    if (strcmp(want->val, got) == 0)
        return 1;
    if (!strcmp(want->val, "null") || !strcmp(got, "null"))
        return 0;
    /* the kind check has made sure that want parses as the run's form */
    if (got_kind(gm) == F_HEX) {
        /* the digest compares exactly whatever the tolerance (load refuses any other than
         * exact); as numbers, so 0x1DFA is 0x1dfa and 0x00ab is 0xab */
        return strtoull(want->val + 2, NULL, 16) == strtoull(got + 2, NULL, 16);
    }
    if (gm->is_int) {
        /* whole numbers compare as numbers ("057" is 57), in 64-bit integers */
        uint64_t a, b;
        if (units_u64(want->val, strlen(want->val), &a) != 0 ||
            units_u64(got, strlen(got), &b) != 0)
            return 0;
        return int_within(a, b, tol);
    }
    /* reals compare as numbers, not as text */
    char *e1, *e2;
    double a = strtod(want->val, &e1), b = strtod(got, &e2);
    if (*e1 || *e2)
        return 0;
    if (strcmp(tol, "exact") == 0)
        return a == b;
    double t = strtod(tol + 4, NULL), d = fabs(a - b);
    if (tol[0] == 'a')
        return d <= t;
    return d <= t * fmax(fabs(a), fabs(b));
}

/* The unit symbol (units_metric_symbol) a value of a deviation message is followed by: sym for
 * a number, none for null (a ratio no run defines) or the placements' hex digest. */
static const char *value_unit(const char *val, const char *sym)
{
    return strcmp(val, "null") == 0 || strncmp(val, "0x", 2) == 0 ? "" : sym;
}

/* The line of a moved metric (w expected, g got or NULL), "\n  " first: the names and values
 * quoted are escaped here, the numbers with their unit as written, exact (until 2026-11-27
 * "expected 4001, got 4000"). */
static void moved_line(char *line, size_t cap, const metric *w, const metric *g, const char *tol)
{
    char k[128], v[128], gv[128];
    const char *sym = units_metric_symbol(units_of_metric(w->key));
    am_escape_name(k, sizeof k, w->key);
    am_escape_name(v, sizeof v, w->val);
    if (g)
        snprintf(line, cap, "\n  %s: expected %s%s, got %s%s (tolerance %s%s)", k, v,
                 value_unit(w->val, sym), am_escape_name(gv, sizeof gv, g->val),
                 value_unit(g->val, sym), tol, tol[0] == 'a' ? sym : "");
    else
        snprintf(line, cap, "\n  %s: expected %s%s, missing from the run", k, v,
                 value_unit(w->val, sym));
}

/* The bytes "\n  ... and K more" takes. */
static size_t more_len(int k)
{
    return (size_t)snprintf(NULL, 0, "\n  ... and %d more", k);
}

int expect_finish(expect_ctx *x, sim *s, am_error *err, char **full)
{
    if (full)
        *full = NULL;
    if (expect_check(x, s, err) != 0)
        return -1;
    if (!x->expect_path)
        return 0;
    /* every moved metric's line, one after the other; ends[i] where line i ends */
    char *lines = NULL;
    size_t n = 0, *ends = am_calloc((size_t)x->want.n + 1, sizeof *ends);
    int moved = 0;
    for (int i = 0; i < x->want.n; i++) {
        const metric *w = &x->want.v[i], *g = ml_find(&x->got, w->key);
        char tol[64], line[500];
        if (g && within(w, g, tol, sizeof tol))
            continue;
        moved_line(line, sizeof line, w, g, tol);
        size_t len = strlen(line);
        lines = am_realloc(lines, n + len + 1);
        memcpy(lines + n, line, len + 1);
        n += len;
        ends[moved++] = n;
    }
    if (moved) {
        char path[512], head[600];
        int hn = snprintf(head, sizeof head, "%s: %d metric%s moved:",
                          am_escape_name(path, sizeof path, x->expect_path), moved,
                          moved == 1 ? "" : "s");
        /* the whole list where it goes unbounded (amsim run's standard error) */
        if (full) {
            *full = am_malloc((size_t)hn + n + 1);
            memcpy(*full, head, (size_t)hn);
            memcpy(*full + hn, lines, n + 1);
        }
        /* err->msg (a results.csv cell) is bounded: whole lines as long as they fit with the
         * count of those left out, so the count and the lines agree (until 2026-11-28 the list
         * was cut mid-line at the buffer's end, "  hbm.stats.num", without saying so) */
        size_t room = sizeof err->msg - 1, used = 0;
        int shown = 0;
        while (shown < moved) {
            size_t next = ends[shown], tail = shown + 1 < moved ? more_len(moved - shown - 1) : 0;
            if ((size_t)hn + next + tail > room)
                break;
            used = next;
            shown++;
        }
        char more[64] = "";
        if (shown < moved)
            snprintf(more, sizeof more, "\n  ... and %d more", moved - shown);
        am_fail_lines(err, AM_EOOMFAIL, "%s%.*s%s", head, (int)used, lines, more);
    }
    free(lines);
    free(ends);
    return moved ? -1 : 0;
}
