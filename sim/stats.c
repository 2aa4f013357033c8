/* stats.c - `amsim stats`: statistics of one metric of a results table, grouped by a column
 * (typically policy, across seeds or traces), with GSL:
 *   mean (gsl_stats_mean), sample standard deviation (gsl_stats_sd, n - 1 in the denominator),
 *   95% confidence interval of the mean: mean +- t(0.975, n - 1) * sd / sqrt(n), with the
 *   quantile from gsl_cdf_tdist_Pinv;
 *   --paired a,b: a paired t-test on the differences a - b of rows that agree on every
 *   identifying column (default: the columns between `run` and `status` except the grouping
 *   column, i.e. the axes, trace and seed; --pair-on COLS to choose): t = mean(d) / (sd(d) /
 *   sqrt(n)), n - 1 degrees of freedom, two-sided p = 2 Q_t(|t|) (gsl_cdf_tdist_Q). A group
 *   not in the table is an error before any output; fewer than 2 pairs (no test) and an
 *   infinite t (sd 0) are said in the same words in the text and the JSON.
 * A group with a value from 2^53 on (past a double's whole numbers) whose cells are all plain
 * decimals has its mean computed exactly, its sd from exact deviations and its CI ends to the
 * hundredth (exact_figures); so do --paired's exact differences of plain decimals from 2^53 on
 * (until 2026-11-28 each difference was a double); other figures from 2^53 on print only the
 * digits a double holds.
 * Only rows with status ok or deviation (rt_status_has_metrics: a regress run that finished but
 * moved from its expectation) are used when the table has a status column; empty cells are
 * skipped, and a cell that is not a finite decimal number (rtable_num: no hex, inf or nan;
 * blanks around it trimmed) is an error at its line and column. The
 * input is a CSV file only (analysis never reaches into the engine). */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "cli.h"
#include "common.h"
#include "json.h"
#include "config.h"
#include "outfile.h"
#include "units.h"

static const char *prog = "amsim stats";

/* A group's values: as doubles (gsl), and while every one is a plain decimal
 * (units_plain_fixed) also exactly, in units of 10^-f, for the figures a double cannot hold. */
typedef struct group {
    char *name;
    double *v;
    int n, cap;
    am_i128 *x;  /* the values times 10^f, exactly (NULL once inexact) */
    int f;       /* digits after the point of the exact values */
    int inexact; /* a value is not a plain decimal, or times 10^f past 128 bits */
    int big;     /* a value of magnitude 2^53 or more: past a double's whole numbers */
} group;

/* Groups by name: an open-addressing table of group indices (-1 empty), twice as many slots as
 * groups can be, so that finding a row's group is one hash, not a scan of the groups (until
 * 2026-11-27 a scan: --by run_id on 400,000 rows compared names 8e10 times). */
typedef struct group_index {
    int *slot;
    size_t mask;
} group_index;

static void gi_init(group_index *gi, int nrows)
{
    size_t n = 16;
    while (n < 2 * (size_t)nrows + 2)
        n *= 2;
    gi->slot = am_malloc(n * sizeof *gi->slot);
    for (size_t k = 0; k < n; k++)
        gi->slot[k] = -1;
    gi->mask = n - 1;
}

/* The index of group name in g, adding it (name borrowed, not copied) as group *ng when new. */
static int gi_find(group_index *gi, group *g, int *ng, char *name)
{
    size_t h = (size_t)rt_fnv1a(RT_FNV_OFFSET, name, strlen(name)) & gi->mask;
    for (;; h = (h + 1) & gi->mask) {
        int k = gi->slot[h];
        if (k < 0) {
            gi->slot[h] = *ng;
            g[*ng].name = name;
            return (*ng)++;
        }
        if (strcmp(g[k].name, name) == 0)
            return k;
    }
}

/* v times 10^k into *out: 0, or -1 past 128 bits. */
static int scale10(am_i128 v, int k, am_i128 *out)
{
    for (; k > 0; k--)
        if (__builtin_mul_overflow(v, 10, &v))
            return -1;
    *out = v;
    return 0;
}

/* The exact copy of g's values gives up: its figures come from the doubles alone. */
static void group_inexact(group *g)
{
    g->inexact = 1;
    free(g->x);
    g->x = NULL;
}

/* The exact copy of g's values to f digits after the point: 0, or -1 past 128 bits. */
static int group_rescale(group *g, int f)
{
    for (int i = 0; i < g->n; i++)
        if (scale10(g->x[i], f - g->f, &g->x[i]) != 0)
            return -1;
    g->f = f;
    return 0;
}

/* Value v into g, exactly xv / 10^fr when exact (else the exact copy gives up): the exact copy
 * keeps the largest count of digits after the point, the values before it scaled up to it. */
static void group_put(group *g, double v, int exact, am_i128 xv, int fr)
{
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 16;
        g->v = am_realloc(g->v, (size_t)g->cap * sizeof *g->v);
        if (!g->inexact)
            g->x = am_realloc(g->x, (size_t)g->cap * sizeof *g->x);
    }
    g->big |= fabs(v) >= 9007199254740992.0; /* 2^53 */
    if (!g->inexact && (!exact || (fr > g->f && group_rescale(g, fr) != 0) ||
                        scale10(xv, g->f - fr, &xv) != 0))
        group_inexact(g);
    if (!g->inexact)
        g->x[g->n] = xv;
    g->v[g->n++] = v;
}

/* Value cell (v as a double) into g. */
static void group_add(group *g, double v, const char *cell)
{
    am_i128 xv = 0;
    int fr = 0, exact = units_plain_fixed(cell, &xv, &fr) == 0; /* before xv is passed */
    group_put(g, v, exact, xv, fr);
}

/* a - b of two plain-decimal cells (units_plain_fixed) exactly, as *d / 10^*f, trailing zeros
 * dropped: 0, or -1 when either is not such a decimal or the difference is past 128 bits. */
static int exact_diff(const char *a, const char *b, am_i128 *d, int *f)
{
    am_i128 xa, xb;
    int fa, fb;
    if (units_plain_fixed(a, &xa, &fa) != 0 || units_plain_fixed(b, &xb, &fb) != 0)
        return -1;
    *f = fa > fb ? fa : fb;
    if (scale10(xa, *f - fa, &xa) != 0 || scale10(xb, *f - fb, &xb) != 0 ||
        __builtin_sub_overflow(xa, xb, d))
        return -1;
    for (; *f > 0 && *d % 10 == 0; (*f)--)
        *d /= 10;
    return 0;
}

/* 1 when g's exact values (g->x) are all the same. */
static int group_all_equal(const group *g)
{
    for (int i = 1; i < g->n; i++)
        if (g->x[i] != g->x[0])
            return 0;
    return 1;
}

/* A group's figures as doubles; and, for a group whose values a double cannot all hold (from
 * 2^53 on) but which are plain decimals (group.x), the mean exactly and the interval's ends to
 * the hundredth (exact_figures). */
typedef struct summary {
    int n;
    double mean, sd, lo, hi, half;
    int cents;          /* mean_c, lo_c and hi_c hold the figures in hundredths */
    int lohi_cents;     /* lo_c and hi_c are known to the hundredth (sd not too large) */
    int mean_whole;     /* the mean is exactly mean_c / 100, a whole number */
    int lohi_whole;     /* so are lo_c and hi_c (the half-width is 0: sd 0) */
    am_i128 mean_c, lo_c, hi_c;
} summary;

/* Mean and sample sd of v (n >= 1; sd NaN for n = 1) that stay finite for finite data whose
 * squares overflow, and nonzero for tiny data whose squares underflow: gsl's, and when that is
 * not finite or the largest magnitude is below 2^-400, gsl's over v scaled by a power of two
 * that brings the largest magnitude into [0.5, 1), scaled back. A power of two scales every
 * intermediate exactly, so ordinary data never reach the second pass and keep gsl's digits.
 * Until 2026-11-27 1e200 and 3e200 had sd n/a (the squared deviation overflowed); until
 * 2026-11-28 3e-200 and 1e-200 had sd 0 (it underflowed: a deviation's last digits, 2^-53 of
 * the largest value, square to below the smallest normal double from about 2^-458 on). */
static void moments(const double *v, int n, double *mean, double *sd)
{
    double big = 0;
    int finite = 1;
    for (int i = 0; i < n; i++) {
        finite &= isfinite(v[i]) != 0;
        big = fmax(big, fabs(v[i]));
    }
    *mean = gsl_stats_mean(v, 1, (size_t)n);
    *sd = n > 1 ? gsl_stats_sd(v, 1, (size_t)n) : (double)NAN;
    if (isfinite(*mean) && (n < 2 || isfinite(*sd)) && !(big > 0 && big < 0x1p-400))
        return;
    if (!finite)
        return; /* an infinite datum: no finite answer to find */
    int e;
    frexp(big, &e); /* big < 2^e */
    double *w = am_malloc((size_t)n * sizeof *w);
    for (int i = 0; i < n; i++)
        w[i] = ldexp(v[i], -e);
    *mean = ldexp(gsl_stats_mean(w, 1, (size_t)n), e);
    if (n > 1)
        *sd = ldexp(gsl_stats_sd(w, 1, (size_t)n), e);
    free(w);
}

static void summarize(const double *v, int n, summary *s)
{
    /* every field: the exact figures (cents, mean_c, ...) are set later only on their paths,
     * and read on the flags' say-so (until 2026-11-28 the flags were left as the stack had
     * them: a clang build printed `--paired`'s mean difference -1 as
     * -93410845821434088009553813804799116) */
    *s = (summary){.n = n};
    s->mean = s->sd = (double)NAN;
    if (n)
        moments(v, n, &s->mean, &s->sd);
    s->half = n > 1 ? gsl_cdf_tdist_Pinv(0.975, n - 1) * s->sd / sqrt((double)n) : (double)NAN;
    s->lo = s->mean - s->half;
    s->hi = s->mean + s->half;
}

/* a / b rounded to nearest, halves away from zero (b > 0, no overflow: |a % b| < b < 2^126). */
static am_i128 div_round(am_i128 a, am_i128 b)
{
    am_i128 q = a / b, r = a % b;
    if (2 * (r < 0 ? -r : r) >= b)
        q += a < 0 ? -1 : 1;
    return q;
}

/* (num + frac) / den rounded to nearest, halves up (den > 0, 0 <= frac < 1): one rounding of
 * an exact integer part and a double's fraction. */
static am_i128 div_round_frac(am_i128 num, double frac, am_i128 den)
{
    am_i128 q = num / den, r = num % den;
    if (r < 0) { /* floor division: 0 <= r < den */
        q -= 1;
        r += den;
    }
    am_i128 k = 2 * r - den; /* round up iff 2 (r + frac) >= den, that is k >= -2 frac */
    return q + (k >= 0 || (k == -1 && frac >= 0.5));
}

/* The figures of s from g's exact values (g->x, n of them, in units of 10^-f), for a group
 * gsl's doubles cannot hold (g->big): the mean exactly, as sum / n; the sd from the exact
 * deviations n x_i - sum (each converted once, so it is as close as a double can be); the
 * interval's ends from the exact mean and the half-width to the hundredth, when that
 * half-width is below 2^45 (a double then holds it to a hundredth). A sum or deviation past
 * 128 bits leaves gsl's figures. Until 2026-11-27 every figure was gsl's double: the mean of
 * 1000000000000000001 and 1000000000000000003 was 1000000000000000000, sd 0. */
static void exact_figures(const group *g, summary *s)
{
    am_i128 sum = 0, den = 1, a100;
    for (int i = 0; i < g->f; i++)
        den *= 10; /* 10^f, f <= 18 */
    for (int i = 0; i < g->n; i++)
        if (__builtin_add_overflow(sum, g->x[i], &sum))
            return;
    den *= g->n; /* below 2^31 x 10^18 < 2^92 */
    if (__builtin_mul_overflow(sum, 100, &a100))
        return;
    double ss = 0;
    for (int i = 0; i < g->n; i++) {
        am_i128 d;
        if (__builtin_mul_overflow(g->x[i], (am_i128)g->n, &d) ||
            __builtin_sub_overflow(d, sum, &d))
            return;
        ss += (double)d * (double)d;
    }
    s->cents = 1;
    s->mean_c = div_round(a100, den);
    s->mean_whole = sum % den == 0;
    s->mean = (double)sum / (double)den;
    s->sd = g->n > 1 ? sqrt(ss / (g->n - 1)) / (double)den : (double)NAN;
    s->half = g->n > 1 ? gsl_cdf_tdist_Pinv(0.975, g->n - 1) * s->sd / sqrt((double)g->n)
                       : (double)NAN;
    s->lo = s->mean - s->half;
    s->hi = s->mean + s->half;
    double hd = s->half * 100 * (double)den; /* below 2^45 x 100 x 2^92 < 2^144: checked */
    if (!(s->half < 35184372088832.0) || !(hd < 4.2535295865117308e37)) /* 2^45, 2^125; NaN */
        return;
    /* the ends (a100 -+ hd) / den rounded once: hd = H + phi, its whole part exact and its
     * fraction a double (until 2026-11-27 hd was rounded to a whole unit first, and the ends
     * then rounded again: 999999999999999989.2938 printed as .30) */
    double hf = floor(hd), phi = hd - hf;
    am_i128 h = (am_i128)hf, lo, hi;
    if (__builtin_sub_overflow(a100, h, &lo) || __builtin_add_overflow(a100, h, &hi))
        return;
    s->lo_c = phi > 0 ? div_round_frac(lo - 1, 1.0 - phi, den) : div_round_frac(lo, 0, den);
    s->hi_c = div_round_frac(hi, phi, den);
    s->lohi_cents = 1;
    s->lohi_whole = hd == 0 && s->mean_whole;
}

/* A metric cell's number: 0, or -1 for an empty cell or one that is not a finite decimal
 * number (rtable_num). Until 2026-11-27 this was strtod: '0x10' read as 16, 'inf' as infinity
 * and a leading blank was skipped, a trailing one refused. */
static int parse_num(const char *s, double *v) { return rtable_num(s, v) == 0 ? 0 : -1; }

/* A statistic of a metric in unit (units_of_metric) as text, with the unit's symbol: a whole
 * number up to 2^64 in full, as 2147483648, not 2.14748e+09 (until 2026-11-25 every value was
 * %.6g), and without decimals; another number of bytes or a count (a mean, sd or interval end,
 * below 2^53: a double from there on is whole) with two decimals, whole bytes and hundredths
 * exact, unless below 0.005; any other value below 2^64 with 6 significant digits; a magnitude
 * beyond 2^64 with the fewest significant digits that read back as the same double, as the JSON
 * gives it (1e+70 B). Until
 * 2026-11-27 the rule broke from 2^53: a unitless whole number took 6 digits (9.0072e+15 beside
 * 9007199254740978 in one row), a byte count two decimals (18446744073709551616.00 B), and
 * from about 1e63 that %.2f was cut to the 64-byte cell: 1e70 printed a wrong 63-digit integer
 * without its B. */
static void fmt_num(char *b, size_t n, double v, const char *unit)
{
    /* the unit's symbol after the number: bytes B, seconds s; a fraction or a count has none
     * (until 2026-11-27 only the header named the unit) */
    const char *sym = units_metric_symbol(unit);
    if (isnan(v) || isinf(v))
        snprintf(b, n, "n/a");
    else if (fabs(v) >= 9007199254740992.0) {
        /* a computed figure from 2^53 on (an sd, a CI end, a mean of values that are not plain
         * decimals; every such double is whole): a double holds about 16 digits of it, so it
         * is printed with the fewest that read back, at most 17 and an exponent, 24 characters
         * with the sign (until 2026-11-27 in full up to 2^64: the mean of
         * 18446744073709551615 read 18446744073709551616, beyond the data) */
        char d[40];
        snprintf(b, n, "%s%s", units_fmt_shortest(d, sizeof d, v, 1), sym);
    } else if (v == floor(v))
        snprintf(b, n, "%.0f%s", v == 0 ? 0.0 : v, sym); /* no -0 */
    else if (unit && (!strcmp(unit, "bytes") || !strcmp(unit, "count")) && fabs(v) >= 0.005)
        snprintf(b, n, "%.2f%s", v, sym);
    else /* bytes or a count below 0.005 too: two decimals would read 0.00 or -0.00, a nonzero
          * sd as none and a CI end as a negative zero (until 2026-11-28 so) */
        snprintf(b, n, "%.6g%s", v, sym);
}

/* |v| in decimal digits into b (n >= 41). */
static char *i128_digits(char *b, size_t n, am_i128 v)
{
    am_u128 m = v < 0 ? -(am_u128)v : (am_u128)v;
    return units_fmt_u128(b, n, m);
}

/* c hundredths as text into t (n >= 56): the sign, the whole part, and two decimals unless
 * whole. */
static const char *cents_text(char *t, size_t n, am_i128 c, int whole)
{
    char d[48];
    if (whole)
        snprintf(t, n, "%s%s", c < 0 ? "-" : "", i128_digits(d, sizeof d, c / 100));
    else
        snprintf(t, n, "%s%s.%02d", c < 0 ? "-" : "", i128_digits(d, sizeof d, c / 100),
                 (int)((c < 0 ? -c : c) % 100));
    return t;
}

/* A figure known in hundredths (c, exactly c / 100 when whole): in full when whole, else with
 * its two decimals, in every unit, as json_kcents gives it; not known (known 0), fmt_num of the
 * double v. Until 2026-11-28 only bytes and counts took the hundredths, and a mean of seconds
 * of -9007199254740994.17 printed as its double, -9007199254740994 s, while the JSON had the
 * hundredths. */
static void fmt_cents(char *b, size_t n, double v, int known, am_i128 c, int whole,
                      const char *unit)
{
    char t[56];
    if (known)
        snprintf(b, n, "%s%s", cents_text(t, sizeof t, c, whole), units_metric_symbol(unit));
    else
        fmt_num(b, n, v, unit);
}

/* A group's figure in the JSON: as the text has it (fmt_cents: in full, or to the hundredth)
 * when exact_figures knows it (known), else the double exactly (json_kexact). Until 2026-11-28
 * a known figure below 2^53 was its double: a CI end the text gave as -9007199254740991.58 B was
 * -9007199254740991. */
static void json_kcents(json_w *w, const char *k, double v, int known, am_i128 c, int whole)
{
    if (!known) {
        json_kexact(w, k, v);
        return;
    }
    char t[56];
    json_knumber(w, k, cents_text(t, sizeof t, c, whole));
}

/* The paired t-test of the differences summarised in s. done: t, df and p are defined (t may
 * be infinite); words: why there is no test, or what an infinite or 0/0 t means, else "". The
 * text and the JSON print from this one result, so they cannot disagree. */
typedef struct paired_test {
    int done, df;
    double t, p;   /* NAN where not defined; t NAN also when infinite (JSON has no infinity) */
    char words[128];
} paired_test;

/* s: the differences' summary, perhaps of differences scaled by a power of two (paired_diffs:
 * t is the same; never when s->cents); mean: the mean difference itself, for the words
 * (infinite when beyond the largest double). */
static void t_test(const summary *s, double mean, const char *unit, paired_test *pt)
{
    memset(pt, 0, sizeof *pt);
    pt->t = pt->p = (double)NAN;
    if (s->n < 2) {
        snprintf(pt->words, sizeof pt->words, "no t-test: %d pair%s (a paired t-test needs at "
                 "least 2)", s->n, s->n == 1 ? "" : "s");
        return;
    }
    pt->done = 1;
    pt->df = s->n - 1;
    if (s->sd > 0) {
        pt->t = s->mean / (s->sd / sqrt((double)s->n));
        pt->p = 2 * gsl_cdf_tdist_Q(fabs(pt->t), pt->df);
    } else if (s->mean == 0) {
        /* 0 / 0: no difference at all, taken as t = 0, p = 1 */
        pt->t = 0;
        pt->p = 1;
        snprintf(pt->words, sizeof pt->words, "t = 0 (every difference is 0, sd 0: 0 / 0 taken as "
                 "no difference)");
    } else {
        char d[64];
        if (isfinite(mean)) /* in hundredths when exact_figures found them */
            fmt_cents(d, sizeof d, mean, s->cents, s->mean_c, s->mean_whole, unit);
        else /* until 2026-11-27 "every difference is n/a", for differences that overflowed */
            snprintf(d, sizeof d, "%s", "the same, beyond the largest double");
        pt->p = 0;
        snprintf(pt->words, sizeof pt->words, "t = %s (every difference is %s, sd 0)",
                 s->mean > 0 ? "+infinity" : "-infinity", d);
    }
}

/* 0 when groups a and b both appear in column bc; else -1 after naming the missing one and
 * listing the groups the table has (in the order they first appear). */
static int check_groups(const rtable *t, int bc, const char *a, const char *b, const char *file,
                        const char *by)
{
    int has_a = 0, has_b = 0;
    for (int r = 0; r < t->nrows; r++) {
        has_a |= strcmp(t->rows[r][bc], a) == 0;
        has_b |= strcmp(t->rows[r][bc], b) == 0;
    }
    if (has_a && has_b)
        return 0;
    /* names as am_escape_name quotes them: a group of a CSV may hold a newline (quoted) */
    char qa[1024], qb[1024], qby[1024], qg[1024];
    am_escape_name(qa, sizeof qa, a);
    am_escape_name(qb, sizeof qb, b);
    am_escape_name(qby, sizeof qby, by);
    if (!has_a && !has_b)
        am_msg("%s: --paired: no groups '%s' and '%s' in column '%s' of %s (groups:",
                prog, qa, qb, qby, file);
    else
        am_msg("%s: --paired: no group '%s' in column '%s' of %s (groups:", prog,
                has_a ? qb : qa, qby, file);
    /* each name once, as it first appears (one hash per row: the table may be long) */
    group *g = am_calloc((size_t)t->nrows + 1, sizeof *g);
    group_index gi;
    gi_init(&gi, t->nrows);
    for (int r = 0, ng = 0; r < t->nrows; r++) {
        int before = ng;
        if (gi_find(&gi, g, &ng, t->rows[r][bc]) == before && ng > before)
            am_msg("%s '%s'", r ? "," : "", am_escape_name(qg, sizeof qg, t->rows[r][bc]));
    }
    free(gi.slot);
    free(g);
    am_msg("%s)\n", t->nrows ? "" : " none");
    return -1;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: amsim stats RESULTS.csv --metric M [--by COLUMN] [--paired A,B]\n"
            "                   [--pair-on COL,COL...] [--json FILE] [-q]\n"
            "  per group of COLUMN (default policy): n, mean, sample sd and the 95%% confidence\n"
            "  interval of the mean (t distribution); --paired: paired t-test of A - B over rows\n"
            "  that agree on the identifying columns (axes, trace, seed; or --pair-on, which\n"
            "  needs --paired); -q leaves the text out: it needs --json FILE (and --json -\n"
            "  needs it)\n");
}

/* A figure in its 14 columns: in hundredths when known (fmt_cents), else as fmt_num has it. */
static void put_cents(FILE *f, double v, int known, am_i128 c, int whole, const char *unit)
{
    char b[64];
    fmt_cents(b, sizeof b, v, known, c, whole, unit);
    fprintf(f, "%14s", b);
}

/* The characters of UTF-8 text s as a terminal shows them: its bytes less the continuation
 * bytes (10xxxxxx), each code point one column. */
static size_t display_width(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* The per-group table, its columns as wide as their widest cell (until 2026-11-27 the group
 * column was 16 wide and the numbers 14, so a longer name or number pushed its row out of
 * line): a header row, then one row per group in g. Group names are printed whole and padded
 * by display characters (until 2026-11-27 they were cut to 63 bytes, so two long names read
 * the same, and padded by bytes, so a name like `écrêpé` pushed its row out of line). */
enum { ST_COLS = 6 };
static void print_table(const char *by, const group *g, const summary *sm, int ng,
                        const char *unit)
{
    char (*cell)[ST_COLS][64] = am_calloc((size_t)ng + 1, sizeof *cell);
    size_t w[ST_COLS] = {0};
    static const char *const head[ST_COLS - 1] = {"n", "mean", "sd", "ci95 low", "ci95 high"};
    for (int c = 1; c < ST_COLS; c++)
        snprintf(cell[0][c], sizeof cell[0][c], "%s", head[c - 1]);
    for (int k = 0; k < ng; k++) {
        const summary *s = &sm[k];
        snprintf(cell[k + 1][1], sizeof cell[0][1], "%d", s->n);
        fmt_cents(cell[k + 1][2], sizeof cell[0][2], s->mean, s->cents, s->mean_c,
                  s->mean_whole, unit);
        fmt_num(cell[k + 1][3], sizeof cell[0][3], s->sd, unit);
        fmt_cents(cell[k + 1][4], sizeof cell[0][4], s->lo, s->lohi_cents, s->lo_c,
                  s->lohi_whole, unit);
        fmt_cents(cell[k + 1][5], sizeof cell[0][5], s->hi, s->lohi_cents, s->hi_c,
                  s->lohi_whole, unit);
    }
    /* the column's name and the group names escaped, as check echoes them, and padded by
     * what the terminal shows (until 2026-11-27 a cell "\x1b[2Jbfc" reached the terminal raw) */
    char **names = am_calloc((size_t)ng + 1, sizeof *names);
    for (int r = 0; r <= ng; r++)
        names[r] = am_escape_dup(r ? g[r - 1].name : by);
    w[0] = 0;
    for (int r = 0; r <= ng; r++)
        if (display_width(names[r]) > w[0])
            w[0] = display_width(names[r]);
    for (int r = 0; r <= ng; r++)
        for (int c = 1; c < ST_COLS; c++)
            if (strlen(cell[r][c]) > w[c])
                w[c] = strlen(cell[r][c]);
    for (int r = 0; r <= ng; r++) {
        /* the group name left-aligned, the numbers right-aligned */
        printf("%s%*s", names[r], (int)(w[0] - display_width(names[r])), "");
        for (int c = 1; c < ST_COLS; c++)
            printf("  %*s", (int)w[c], cell[r][c]);
        putchar('\n');
    }
    for (int r = 0; r <= ng; r++)
        free(names[r]);
    free(names);
    free(cell);
}

/* The paired test's text: pairs, mean difference, its CI and the t-test (or why none). */
static void print_paired(const char *ka, const char *kb, int nd, int unmatched,
                         const summary *s, const paired_test *pt, const char *unit)
{
    char *a = am_escape_dup(ka), *b = am_escape_dup(kb); /* group names as the table shows them */
    printf("\npaired %s - %s on %d pair%s (%d row%s of %s without a partner)\n", a, b, nd,
           nd == 1 ? "" : "s", unmatched, unmatched == 1 ? "" : "s", a);
    free(a);
    free(b);
    printf("  mean difference ");
    put_cents(stdout, s->mean, s->cents, s->mean_c, s->mean_whole, unit);
    printf("  sd ");
    put_cents(stdout, s->sd, 0, 0, 0, unit);
    printf("\n  95%% CI          ");
    put_cents(stdout, s->lo, s->lohi_cents, s->lo_c, s->lohi_whole, unit);
    printf(" .. ");
    put_cents(stdout, s->hi, s->lohi_cents, s->hi_c, s->lohi_whole, unit);
    if (!pt->done)
        printf("\n  %s\n", pt->words);
    else if (pt->words[0]) /* t is infinite or 0/0: said in words, as in the JSON */
        printf("\n  %s, df = %d, two-sided p = %.6g\n", pt->words, pt->df, pt->p);
    else
        printf("\n  t = %.6g, df = %d, two-sided p = %.6g\n", pt->t, pt->df, pt->p);
}

/* Rows r and q's pairing keys in order: the pairing columns compared one by one as text (the
 * order itself means nothing; equal keys are adjacent after sorting). */
static int key_cmp(const rtable *t, int r, int q, const int *keycols, int nk)
{
    for (int k = 0; k < nk; k++) {
        int c = strcmp(t->rows[r][keycols[k]], t->rows[q][keycols[k]]);
        if (c)
            return c;
    }
    return 0;
}

/* qsort has no argument for the table: the sort below sets these first (stats runs one sort at
 * a time). */
static const rtable *sort_t;
static const int *sort_keycols;
static int sort_nk, sort_bc;

/* Row indices by (group, pairing key, row): the rows of one group with one key adjacent, in
 * table order. */
static int row_cmp(const void *a, const void *b)
{
    int r = *(const int *)a, q = *(const int *)b;
    int c = strcmp(sort_t->rows[r][sort_bc], sort_t->rows[q][sort_bc]);
    if (!c)
        c = key_cmp(sort_t, r, q, sort_keycols, sort_nk);
    return c ? c : (r > q) - (r < q);
}

/* The rows that take part in the paired test: group a or b, status ok or deviation (when there
 * is a status column), a non-empty metric cell; sorted by row_cmp. Their count in *n;
 * allocated. */
static int *pair_rows(const rtable *t, int bc, int sc, int mc, const char *a, const char *b,
                      const int *keycols, int nk, int *n)
{
    int *rows = am_calloc((size_t)t->nrows + 1, sizeof *rows);
    *n = 0;
    for (int r = 0; r < t->nrows; r++) {
        const char *grp = t->rows[r][bc];
        if ((strcmp(grp, a) && strcmp(grp, b)) || (sc >= 0 && !rt_status_has_metrics(t->rows[r][sc])) ||
            !*t->rows[r][mc])
            continue;
        rows[(*n)++] = r;
    }
    sort_t = t;
    sort_keycols = keycols;
    sort_nk = nk;
    sort_bc = bc;
    qsort(rows, (size_t)*n, sizeof *rows, row_cmp);
    return rows;
}

static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The row of group b whose pairing key is row r's, by binary search in rows (sorted by
 * row_cmp, n of them); -1 when there is none. */
static int partner(const rtable *t, const int *rows, int n, int r, int bc, const char *b,
                   const int *keycols, int nk)
{
    int lo = 0, hi = n; /* the first row not below (b, r's key) */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2, q = rows[mid];
        int c = strcmp(t->rows[q][bc], b);
        if (!c)
            c = key_cmp(t, q, r, keycols, nk);
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < n && !strcmp(t->rows[rows[lo]][bc], b) &&
        !key_cmp(t, rows[lo], r, keycols, nk))
        return rows[lo];
    return -1;
}

/* What stats reads of a results table: the metric, the grouping column, status and, for
 * --paired, the pairing columns (--pair-on's, else every column before status). */
typedef struct stats_cols {
    const char *metric, *by, *pair_on;
    int paired;
    /* for "no column": a hint for --metric and --by when the header lacks them (col_hint) */
    char hint_metric[512], hint_by[512];
} stats_cols;

/* The hint after "no column 'NAME'": the columns whose name ends in ".NAME" (`peak_reserved_bytes`
 * gives `hbm.peak_reserved_bytes`, `expandable_segments` gives
 * `memories.hbm.allocator.expandable_segments`), else the close one (did you mean), else "".
 * Until 2026-11-27 "no column" alone. */
static void col_hint(char *dst, size_t n, const char *name, const char *const *names, int ncols)
{
    size_t len = strlen(name), k = 0;
    int found = 0, shown = 0;
    char list[512];
    /* whole names only, within what dst holds beside the words around the list (until
     * 2026-11-27 long names were cut mid-name and the parenthesis never closed) */
    size_t room = n > 48 ? n - 48 : 0;
    room = room < sizeof list ? room : sizeof list;
    list[0] = 0;
    dst[0] = 0;
    for (int c = 0; c < ncols; c++) {
        size_t l = strlen(names[c]);
        if (!len || l <= len + 1 || names[c][l - len - 1] != '.' ||
            strcmp(names[c] + l - len, name) != 0)
            continue;
        found++;
        size_t add = l + 2 + (shown ? 2 : 0);
        if (shown < 6 && shown == found - 1 && k + add < room) {
            k += (size_t)snprintf(list + k, sizeof list - k, "%s'%s'", shown ? ", " : "",
                                  names[c]);
            shown++;
        }
    }
    if (found && shown) {
        snprintf(dst, n, found == 1 ? " (did you mean %s?)" : " (did you mean one of %s%s?)",
                 list, found > shown ? ", ..." : "");
        return;
    }
    if (found) {
        snprintf(dst, n, " (%d columns end in '.%s': their names are too long to list)", found,
                 name);
        return;
    }
    /* the names as a NULL-ended list for cfg_suggest */
    const char **cands = am_calloc((size_t)ncols + 1, sizeof *cands);
    for (int c = 0; c < ncols; c++)
        cands[c] = names[c];
    const char *near = cfg_suggest(name, cands);
    if (near)
        snprintf(dst, n, " (did you mean '%s'?)", near);
    free(cands);
}

/* rt_keep_fn: only the columns stats reads are kept (until 2026-11-27 every cell of every row
 * was: a 193 MB results.csv took 2.5 GB). */
static void stats_keep(const char *const *names, int n, unsigned char *keep, void *arg)
{
    stats_cols *sc = arg;
    /* the hints need the whole header, which only this sees */
    int has_metric = 0, has_by = 0;
    for (int c = 0; c < n; c++) {
        has_metric |= !strcmp(names[c], sc->metric);
        has_by |= !strcmp(names[c], sc->by);
    }
    if (!has_metric)
        col_hint(sc->hint_metric, sizeof sc->hint_metric, sc->metric, names, n);
    if (!has_by)
        col_hint(sc->hint_by, sizeof sc->hint_by, sc->by, names, n);
    int status = n;
    for (int c = 0; c < n && status == n; c++)
        if (strcmp(names[c], "status") == 0)
            status = c;
    for (int c = 0; c < n; c++)
        keep[c] = !strcmp(names[c], sc->metric) || !strcmp(names[c], sc->by) ||
                  c == status ||
                  (sc->paired && (sc->pair_on ? am_keys_name(sc->pair_on, names[c]) : c < status));
}

int cmd_stats(int argc, char **argv)
{
    const char *file = NULL, *metric = NULL, *by = NULL, *paired = NULL, *pair_on = NULL;
    const char *json = NULL;
    int quiet = 0;
    enum { O_HELP, O_METRIC, O_BY, O_PAIRED, O_PAIR_ON, O_JSON, O_QUIET, O_N };
    static const cli_opt opts[] = {
        [O_HELP] = {"help", 'h', CLI_FLAG},   [O_METRIC] = {"metric", 0, CLI_VALUE},
        [O_BY] = {"by", 0, CLI_VALUE},        [O_PAIRED] = {"paired", 0, CLI_VALUE},
        [O_PAIR_ON] = {"pair-on", 0, CLI_VALUE}, [O_JSON] = {"json", 0, CLI_PATH},
        [O_QUIET] = {"quiet", 'q', CLI_FLAG}, [O_N] = {NULL, 0, 0}};
    const char **slots[O_N] = {[O_METRIC] = &metric, [O_BY] = &by, [O_PAIRED] = &paired,
                               [O_PAIR_ON] = &pair_on, [O_JSON] = &json};
    cli cl;
    cli_init(&cl, prog, argc, argv);
    const char *opt, *val;
    for (int k; (k = cli_next(&cl, opts, &opt, &val)) != CLI_END;) {
        if (k == CLI_ERROR)
            return 1;
        if (k == O_HELP) {
            usage(stdout);
            return 0;
        }
        if (k == O_QUIET) {
            quiet = 1;
            continue;
        }
        if (k == CLI_OPERAND) {
            if (file) {
                /* both named, as convert's "one input only" (until 2026-11-28 neither was) */
                char s1[CLI_SHOWN], s2[CLI_SHOWN];
                am_msg("%s: one results file only ('%s' and '%s')\n", prog,
                       am_escape_name(s1, sizeof s1, file), am_escape_name(s2, sizeof s2, val));
                return 1;
            }
            file = val;
        } else if (cli_once(prog, opt, slots[k], val, k == O_PAIR_ON ? "name every column in "
                            "one comma-separated list" : NULL) != 0)
            return 1;
    }
    if (!file || !metric) {
        am_msg("%s: RESULTS.csv and --metric M are required\n", prog);
        return 1;
    }
    if (!by)
        by = "policy";
    /* until 2026-11-27 -q alone printed nothing and exited 0 */
    if (cli_quiet_needs_output(prog, quiet, json != NULL, "--json FILE (or --json -)") != 0)
        return 1;
    if (pair_on && !paired) { /* it would be ignored: the user expects a paired test */
        am_msg("%s: --pair-on names the columns --paired A,B matches rows on: give "
                "--paired too\n", prog);
        return 1;
    }
    {
        am_error e = {0};
        /* the table is on standard output too, unless -q: a --json - would be mixed into it
         * (until 2026-11-27 both were written there, status 0) */
        const out_named outs[] = {{"--json", json},
                                  {"the table (-q leaves it out)", quiet ? NULL : "-"}};
        const out_named ins[] = {{"RESULTS.csv", file}};
        if (out_check_paths(outs, 2, ins, 1, &e) != 0) {
            am_msg("amsim: %s\n", e.msg);
            return 1;
        }
    }
    rtable t;
    am_error rerr = {0};
    stats_cols want = {metric, by, pair_on, paired != NULL, "", ""};
    /* the message is whole (am_error's room, a long path shortened in its middle): until
     * 2026-11-27 a 512-byte buffer cut a long path's message before FILE:LINE:COL's reason */
    if (rtable_read_cols(&t, file, stats_keep, &want, &rerr) != 0) {
        am_msg("%s: %s\n", prog, rerr.msg);
        return rerr.status == AM_EINTERNAL ? 2 : 1;
    }
    int rc = 1;
    int mc = rtable_col(&t, metric), bc = rtable_col(&t, by), sc = rtable_col(&t, "status");
    group *g = am_calloc((size_t)t.nrows + 1, sizeof *g);
    int ng = 0;
    int *keycols = am_calloc((size_t)t.ncols + 1, sizeof *keycols), nk = 0;
    char *ka = NULL, *kb = NULL;
    int *prows = NULL, nprows = 0; /* the rows of the paired test, sorted (pair_rows) */
    outfile *o = NULL;
    if (mc < 0 || bc < 0) {
        char name[1024];
        am_escape_name(name, sizeof name, mc < 0 ? metric : by);
        am_msg("%s: %s: no column '%s'%s\n", prog, file, name,
                mc < 0 ? want.hint_metric : want.hint_by);
        goto out;
    }
    /* --paired and --pair-on are checked before anything is printed or written */
    if (paired) {
        ka = am_strdup(paired);
        char *comma = strchr(ka, ',');
        if (!comma || !comma[1] || comma == ka) {
            am_msg("%s: --paired A,B names two groups\n", prog);
            goto out;
        }
        *comma = 0;
        kb = comma + 1;
        if (strcmp(ka, kb) == 0) {
            am_msg("%s: --paired %s,%s names the same group twice\n", prog, ka, kb);
            goto out;
        }
        /* a group that is not in the table (a typo) would give 0 pairs and look like a result */
        if (check_groups(&t, bc, ka, kb, file, by) != 0)
            goto out;
        /* identifying columns */
        if (pair_on) {
            /* split by hand: strtok would drop an empty name (a typo), and a column named
             * twice would overrun keycols (one slot a column) */
            char *dup = am_strdup(pair_on);
            for (char *c = dup;; c++) {
                size_t len = strcspn(c, ",");
                int last = c[len] == 0;
                c[len] = 0;
                int ci = *c ? rtable_col(&t, c) : -1;
                for (int k = 0; ci >= 0 && k < nk; k++)
                    if (keycols[k] == ci)
                        ci = -2;
                if (ci < 0) {
                    if (!*c)
                        am_msg("%s: --pair-on '%s': an empty column name\n", prog,
                                pair_on);
                    else
                        am_msg("%s: --pair-on '%s': %s '%s'\n", prog, pair_on,
                                ci == -2 ? "column named twice:" : "no column", c);
                    free(dup);
                    goto out;
                }
                keycols[nk++] = ci;
                if (last)
                    break;
                c += len;
            }
            free(dup);
        } else {
            if (sc < 0) {
                am_msg("%s: no status column: name the identifying columns with "
                        "--pair-on\n", prog);
                goto out;
            }
            for (int c = 0; c < sc; c++)
                if (c != bc && strcmp(t.cols[c], "run_id") && strcmp(t.cols[c], "run"))
                    keycols[nk++] = c;
        }
        /* each row of a group must have one partner: two rows of a group with the same key
         * would both pair with the first partner found (a t-test on repeated rows). Sorted by
         * (group, key, row), such rows are adjacent; the message names the first row that has
         * a twin and its next twin, as the row-by-row search did (until 2026-11-27 that search
         * compared every pair of rows: 40,000 rows took 25 s) */
        prows = pair_rows(&t, bc, sc, mc, ka, kb, keycols, nk, &nprows);
        int dup_r = -1, dup_q = -1;
        for (int i = 0; i + 1 < nprows; i++) {
            int r = prows[i], q = prows[i + 1];
            if (strcmp(t.rows[r][bc], t.rows[q][bc]) || key_cmp(&t, r, q, keycols, nk))
                continue;
            if (dup_r < 0 || r < dup_r) {
                dup_r = r;
                dup_q = q;
            }
            while (i + 1 < nprows && !strcmp(t.rows[prows[i + 1]][bc], t.rows[r][bc]) &&
                   !key_cmp(&t, r, prows[i + 1], keycols, nk))
                i++; /* the rest of this key's run: only its first row can be the first */
        }
        if (dup_r >= 0) {
            am_msg("%s: %s:%lu and %lu: two rows of group '%s' with the same "
                    "pairing key (columns", prog, file, t.pos[dup_r][bc].line,
                    t.pos[dup_q][bc].line, t.rows[dup_r][bc]);
            for (int k = 0; k < nk; k++)
                am_msg("%s %s", k ? "," : "", t.cols[keycols[k]]);
            am_msg("%s): name the columns that tell them apart with "
                    "--pair-on\n", nk ? "" : " none");
            goto out;
        }
    }
    /* groups in the order they first appear in any row, whatever its status (until
     * 2026-11-27 in the order of their first ok row with a number, so a failed first run
     * reordered the table); a group with successful rows but no number in the metric is shown
     * with n = 0 (it was left out, unsaid), one without successful rows is not shown */
    int *has_ok = am_calloc((size_t)t.nrows + 1, sizeof *has_ok), nnum = 0;
    group_index gi;
    gi_init(&gi, t.nrows);
    for (int r = 0; r < t.nrows; r++) {
        /* values grow as they come (until 2026-11-27 each group had room for every row:
         * memory quadratic in rows with --by run_id) */
        int k = gi_find(&gi, g, &ng, t.rows[r][bc]);
        double v;
        const char *cell = t.rows[r][mc];
        if (sc >= 0 && !rt_status_has_metrics(t.rows[r][sc]))
            continue; /* a failed (or missing) run */
        has_ok[k] = 1;
        if (!*cell)
            continue; /* a run without the metric */
        if (parse_num(cell, &v) != 0) { /* refused where it stands */
            am_msg("%s: %s:%lu:%lu: %s is not a finite number: '%s' (decimal numbers "
                    "only, such as 5, 0.25 or 1e-3)\n", prog, file, t.pos[r][mc].line,
                    t.pos[r][mc].col, metric, cell);
            free(has_ok);
            free(gi.slot);
            goto out;
        }
        group_add(&g[k], v, cell);
        nnum++;
    }
    {
        int kept = 0;
        for (int k = 0; k < ng; k++) {
            if (has_ok[k])
                g[kept++] = g[k];
            else {
                free(g[k].v);
                free(g[k].x);
            }
        }
        ng = kept;
    }
    free(has_ok);
    free(gi.slot);
    /* nothing to say: no output at all, not a header and an empty JSON file (until
     * 2026-11-27 both were written, status 1) */
    if (!nnum) {
        am_msg("%s: no row has a number in column '%s'\n", prog, metric);
        goto out;
    }
    FILE *jf = NULL;
    json_w w;
    const char *unit = units_of_metric(metric);
    am_error err = {0};
    if (json) {
        if (out_open(&o, json, &err) != 0) {
            am_msg("amsim: %s\n", err.msg);
            goto out;
        }
        jf = out_fp(o);
        json_init(&w, jf, 1);
        json_obj(&w);
        json_kstr(&w, "metric", metric);
        json_kstr(&w, "by", by);
        json_kstr(&w, "unit", unit ? unit : "unknown");
        json_key(&w, "groups");
        json_obj(&w);
    }
    if (!quiet) {
        char *m = am_escape_dup(metric), *b = am_escape_dup(by); /* columns as check echoes */
        printf("%s by %s (unit: %s; 95%% CI of the mean, t distribution)\n", m, b,
               unit ? unit : "unknown, as in the table");
        free(m);
        free(b);
    }
    summary *sm = am_calloc((size_t)ng + 1, sizeof *sm);
    for (int k = 0; k < ng; k++) {
        summarize(g[k].v, g[k].n, &sm[k]);
        if (!g[k].inexact && g[k].big) /* values past a double's whole numbers */
            exact_figures(&g[k], &sm[k]);
        if (jf) {
            /* numbers exactly: whole ones as integers, others as they read back (until
             * 2026-11-27 12 significant digits: a 1 TiB mean was 1.09951162778e+12) */
            json_key(&w, g[k].name);
            json_obj(&w);
            json_ku64(&w, "n", (uint64_t)sm[k].n);
            json_kcents(&w, "mean", sm[k].mean, sm[k].cents, sm[k].mean_c,
                        sm[k].mean_whole);
            json_kexact(&w, "sd", sm[k].sd);
            json_kcents(&w, "ci95_low", sm[k].lo, sm[k].lohi_cents, sm[k].lo_c,
                        sm[k].lohi_whole);
            json_kcents(&w, "ci95_high", sm[k].hi, sm[k].lohi_cents, sm[k].hi_c,
                        sm[k].lohi_whole);
            json_end_obj(&w);
        }
    }
    if (!quiet)
        print_table(by, g, sm, ng, unit);
    free(sm);
    if (jf)
        json_end_obj(&w);
    if (paired) {
        double *d = am_calloc((size_t)t.nrows + 1, sizeof *d);
        int nd = 0, unmatched = 0;
        group dg = {0}; /* the differences exactly too, for exact_figures */
        /* rows of a in table order, each with the row of b of the same key (at most one, as
         * checked above): found by binary search in the sorted rows (until 2026-11-27 by a
         * scan of the whole table for each row of a, quadratic) */
        int *arows = am_calloc((size_t)nprows + 1, sizeof *arows), na = 0;
        for (int i = 0; i < nprows; i++)
            if (!strcmp(t.rows[prows[i]][bc], ka))
                arows[na++] = prows[i];
        qsort(arows, (size_t)na, sizeof *arows, int_cmp);
        /* each difference also halved as it is read (a power of two does that exactly): for
         * finite values whose difference overflows (1.5e308 - -1.5e308), t (scale-free) is
         * computed on the halves; the mean difference and its CI are n/a when beyond the
         * largest double. Until 2026-11-27 the infinite differences gave "t = -infinity ...,
         * p = 0". */
        double *half = am_calloc((size_t)t.nrows + 1, sizeof *half);
        int overflow = 0;
        for (int i = 0; i < na; i++) {
            int r = arows[i], q = partner(&t, prows, nprows, r, bc, kb, keycols, nk);
            double va, vb;
            if (parse_num(t.rows[r][mc], &va))
                continue;
            if (q < 0 || parse_num(t.rows[q][mc], &vb)) {
                unmatched++;
                continue;
            }
            /* exactly when both are plain decimals (units_exact_diff): a results table's _seconds
             * are picosecond-exact, and equal differences must give equal doubles. Until
             * 2026-11-27 the doubles were subtracted: 10.414853674127 - 10.412853674127 and
             * 10.198 - 10.196 came out 1e-15 apart, so "every difference is 0.002 s" read as
             * sd 1e-15 and t = 3.4e12. */
            am_i128 xd = 0;
            int fd = 0, exact = exact_diff(t.rows[r][mc], t.rows[q][mc], &xd, &fd) == 0;
            if (units_exact_diff(t.rows[r][mc], t.rows[q][mc], &d[nd]) == 0) {
                half[nd] = ldexp(d[nd], -1);
            } else {
                d[nd] = va - vb;
                half[nd] = ldexp(va, -1) - ldexp(vb, -1);
            }
            group_put(&dg, d[nd], exact, xd, fd);
            overflow |= !isfinite(d[nd]);
            nd++;
        }
        free(arows);
        int e = 0;
        if (overflow) {
            e = 1;
            memcpy(d, half, (size_t)nd * sizeof *d);
        }
        free(half);
        summary sd_scaled, s;
        summarize(d, nd, &sd_scaled);
        /* the group rows' exact path for differences from 2^53 on (until 2026-11-28 each
         * difference was a double: 1000000000000000001 - 0 and 1000000000000000003 - 0 were
         * both 1e18, "every difference is 1e+18 B, sd 0", t = +infinity), and for exact
         * differences that are not all equal but whose doubles are (19 significant digits):
         * their sd is not 0, though their figures print from the doubles. Exact differences
         * never overflow a double, so e is 0 here. */
        int exact_sd0 = !dg.inexact && nd > 1 && sd_scaled.sd == 0 && !group_all_equal(&dg);
        if (!dg.inexact && !overflow && (dg.big || exact_sd0)) {
            exact_figures(&dg, &sd_scaled);
            if (!dg.big)
                sd_scaled.cents = sd_scaled.lohi_cents = 0;
        }
        free(dg.v);
        free(dg.x);
        s = sd_scaled;
        s.mean = ldexp(s.mean, e);
        s.sd = ldexp(s.sd, e);
        s.lo = ldexp(s.lo, e);
        s.hi = ldexp(s.hi, e);
        s.half = ldexp(s.half, e);
        paired_test pt;
        t_test(&sd_scaled, s.mean, unit, &pt);
        if (!quiet)
            print_paired(ka, kb, nd, unmatched, &s, &pt, unit);
        if (jf) {
            json_key(&w, "paired");
            json_obj(&w);
            json_kstr(&w, "a", ka);
            json_kstr(&w, "b", kb);
            json_ku64(&w, "pairs", (uint64_t)nd);
            json_ku64(&w, "unmatched_a", (uint64_t)unmatched);
            json_kcents(&w, "mean_difference", s.mean, s.cents, s.mean_c, s.mean_whole);
            json_kexact(&w, "sd", s.sd);
            json_kcents(&w, "ci95_low", s.lo, s.lohi_cents, s.lo_c, s.lohi_whole);
            json_kcents(&w, "ci95_high", s.hi, s.lohi_cents, s.hi_c, s.lohi_whole);
            /* null where the text prints no number (infinity has no JSON form) */
            json_kexact(&w, "t", pt.t);
            json_key(&w, "df");
            if (pt.done)
                json_u64(&w, (uint64_t)pt.df);
            else
                json_null(&w);
            json_kexact(&w, "p_two_sided", pt.p);
            json_kstr(&w, "t_test", pt.words[0] ? pt.words : "done");
            json_end_obj(&w);
        }
        free(d);
    }
    if (jf) {
        json_end_obj(&w); /* ends the line (until 2026-11-27 a blank line followed) */
        /* out_commit flushes the table to standard output before the file is renamed into
         * place: one that cannot be written leaves no --json (until 2026-11-27 it was
         * published, status 1) */
        if (out_commit(o, &err) != 0) {
            o = NULL;
            am_msg("amsim: %s\n", err.msg);
            goto out;
        }
        o = NULL;
    }
    rc = 0;
out:
    out_abort(o);
    for (int k = 0; k < ng; k++) {
        free(g[k].v);
        free(g[k].x);
    }
    free(g);
    free(keycols);
    free(prows);
    free(ka);
    rtable_free(&t);
    return rc;
}
