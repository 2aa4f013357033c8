/* expect.c - a run's metrics against a stored expectation (format and rules in expect.h).
 * The placements digest is computed from the observer's allocation callback, formatted exactly
 * as the placements CSV rows (seq,id,level,address,requested,allocated,status), so it equals the
 * FNV-1a 64 of the CSV file without its header line. */
#include "expect.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "outfile.h"
#include "report.h"
#include "units.h"

typedef struct metric {
    char *key, *val;   /* val "null" for undefined reals */
    int is_int;        /* an integer (digits, or the 0x digest); else a real */
    char *tol;         /* "exact", "abs:X", "rel:X" or NULL (default) */
    int forms;         /* read values: the F_* forms val parses as */
    unsigned long line, col; /* read values: where val stands in the file */
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
    char *expect_path, *save_path;
    mlist want;
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
                      uint64_t addr, uint64_t requested, uint64_t size, int ok)
{
    expect_ctx *x = c;
    char row[256];
    int n;
    if (ok)
        n = snprintf(row, sizeof row, "%" PRIu64 ",%" PRIu64 ",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64
                     ",ok\n", seq, id, x->cfg->levels[level].name, addr, requested, size);
    else
        n = snprintf(row, sizeof row, "%" PRIu64 ",%" PRIu64 ",%s,,%" PRIu64 ",,oom\n", seq, id,
                     x->cfg->levels[level].name, requested);
    x->hash = rt_fnv1a(x->hash, row, (size_t)n);
    x->rows++;
    if (x->inner && x->inner->alloc)
        x->inner->alloc(x->inner->ctx, t, seq, id, level, stream, addr, requested, size, ok);
}

static void fwd_free(void *c, am_ps t, uint64_t id, int level, uint32_t stream, uint64_t addr,
                     uint64_t requested, uint64_t size, int phase)
{
    expect_ctx *x = c;
    if (x->inner && x->inner->free)
        x->inner->free(x->inner->ctx, t, id, level, stream, addr, requested, size, phase);
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

static void fwd_op(void *c, uint32_t stream, am_ps start, am_ps end, int chan, uint64_t bytes)
{
    expect_ctx *x = c;
    if (x->inner && x->inner->op)
        x->inner->op(x->inner->ctx, stream, start, end, chan, bytes);
}

static void fwd_link(void *c, int chan, uint32_t stream, am_ps start, am_ps end, uint64_t bytes)
{
    expect_ctx *x = c;
    if (x->inner && x->inner->link)
        x->inner->link(x->inner->ctx, chan, stream, start, end, bytes);
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
    if (units_real(v, &d, &why) == 0)
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
                        : "a real number or null";
}

/* 0 when the value of m can be of kind k; else -1 with err at the value's position. */
static int check_kind(const char *path, const metric *m, metric_kind k, am_error *err)
{
    if (m->forms & k)
        return 0;
    return am_fail_at(err, path, m->line, m->col, "%s: '%s' is not %s", m->key, m->val,
                      kind_words(k));
}

static int check_tol(const char *t)
{
    double v;
    const char *why;
    if (strcmp(t, "exact") == 0)
        return 0;
    if ((strncmp(t, "abs:", 4) == 0 || strncmp(t, "rel:", 4) == 0) &&
        units_real(t + 4, &v, &why) == 0 && v >= 0)
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

static int load(expect_ctx *x, const char *path, am_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return am_fail(err, AM_EINPUT, "%s: cannot read expectation: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    unsigned long ln = 0;
    int rc = 0, keys = 0;
    while ((got = getline(&line, &cap, f)) > 0) {
        ln++;
        const char *z = memchr(line, 0, (size_t)got);
        if (z) {
            rc = am_fail_at(err, path, ln, (unsigned long)(z - line) + 1,
                            "NUL byte (an expectation file is text)");
            break;
        }
        if (line[got - 1] == '\n')
            line[got - 1] = 0;
        char *s = trim(line);
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
                                "tolerance '%s': exact, abs:X or rel:X", v);
                break;
            }
            metric *m = ml_find(&x->want, k);
            if (!m) {
                rc = am_fail_at(err, path, ln, 1, "tolerance for '%s' before its value", k);
                break;
            }
            free(m->tol);
            m->tol = am_strdup(v);
            continue;
        }
        if (ml_find(&x->want, k)) {
            rc = am_fail_at(err, path, ln, 1, "'%s' given twice", k);
            break;
        }
        int forms = value_forms(v);
        ml_add(&x->want, k, v, (forms & (F_INT | F_HEX)) != 0, NULL);
        metric *m = &x->want.v[x->want.n - 1];
        m->forms = forms;
        m->line = ln;
        m->col = (unsigned long)(v - line) + 1;
        /* the metrics every run has are checked against their kind now, a policy statistic
         * against every form here and against its own kind after the run */
        metric_kind kind = key_kind(k);
        if (kind && (rc = check_kind(path, m, kind, err)) != 0)
            break;
        if (!forms) {
            rc = am_fail_at(err, path, ln, m->col, "%s: '%s' is not a value (a whole number, 0x "
                            "and hex digits, a real number or null)", k, v);
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
    fclose(f);
    return rc;
}

int expect_begin(expect_ctx **xp, const char *expect, const char *save, const am_config *cfg,
                 const sim_observer *inner, am_error *err)
{
    expect_ctx *x = am_calloc(1, sizeof *x);
    x->cfg = cfg;
    x->inner = inner;
    x->hash = RT_FNV_OFFSET;
    x->expect_path = expect ? am_strdup(expect) : NULL;
    x->save_path = save ? am_strdup(save) : NULL;
    x->obs = (sim_observer){x, fwd_alloc, fwd_free, fwd_device, fwd_counters, fwd_op, fwd_action,
                            fwd_link};
    if (expect && load(x, expect, err) != 0) {
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
    free(x->save_path);
    ml_free(&x->want);
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

static int save(const mlist *l, const char *path, am_error *err)
{
    outfile *o;
    if (out_open(&o, path, err) != 0)
        return -1;
    FILE *f = out_fp(o);
    fprintf(f, "amsim-expect v1\n"
               "# KEY=VALUE, then KEY.tolerance=exact | abs:X | rel:X (see amsim run --help)\n");
    for (int i = 0; i < l->n; i++) {
        const metric *m = &l->v[i];
        fprintf(f, "%s=%s\n%s.tolerance=%s\n", m->key, m->val, m->key,
                m->tol ? m->tol : m->is_int ? "exact" : "rel:1e-9");
    }
    return out_commit(o, err);
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
    if (strcmp(tol, "exact") == 0 && gm->is_int) {
        /* whole numbers compare as numbers too ("057" is 57, 0x1DFA is 0x1dfa); the kind check
         * has made sure that want parses as the run's form */
        uint64_t a = 0, b = 0;
        if (got_kind(gm) == F_HEX) {
            a = strtoull(want->val + 2, NULL, 16);
            b = strtoull(got + 2, NULL, 16);
        } else if (units_u64(want->val, strlen(want->val), &a) != 0 ||
                   units_u64(got, strlen(got), &b) != 0)
            return 0;
        return a == b;
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

int expect_finish(expect_ctx *x, sim *s, am_error *err)
{
    mlist got = {0};
    gather(x, s, &got);
    int rc = 0;
    if (x->save_path && save(&got, x->save_path, err) != 0) {
        ml_free(&got);
        return -1;
    }
    if (!x->expect_path) {
        ml_free(&got);
        return 0;
    }
    /* a value that cannot be what its metric is in this run is an input error, not a
     * deviation: the policy statistics' kinds are known only now */
    for (int i = 0; i < x->want.n; i++) {
        const metric *g = ml_find(&got, x->want.v[i].key);
        if (g && check_kind(x->expect_path, &x->want.v[i], got_kind(g), err) != 0) {
            ml_free(&got);
            return -1;
        }
    }
    char msg[sizeof err->msg];
    size_t n = 0;
    int moved = 0;
    for (int i = 0; i < x->want.n; i++) {
        const metric *w = &x->want.v[i];
        metric *g = ml_find(&got, w->key);
        char tol[64], line[400];
        if (g && within(w, g, tol, sizeof tol))
            continue;
        moved++;
        if (g)
            snprintf(line, sizeof line, "\n  %s: expected %s, got %s (tolerance %s)", w->key,
                     w->val, g->val, tol);
        else
            snprintf(line, sizeof line, "\n  %s: expected %s, missing from the run", w->key,
                     w->val);
        if (n + strlen(line) + 8 < sizeof msg) {
            memcpy(msg + n, line, strlen(line) + 1);
            n += strlen(line);
        } else if (n + 6 < sizeof msg) {
            memcpy(msg + n, "\n  ...", 7);
            n = sizeof msg;
        }
    }
    if (moved) {
        msg[AM_MIN(n, sizeof msg - 1)] = 0;
        am_fail(err, AM_EOOMFAIL, "%s: %d metric%s moved:%.900s", x->expect_path, moved,
                moved == 1 ? "" : "s", msg);
        rc = -1;
    }
    ml_free(&got);
    return rc;
}
