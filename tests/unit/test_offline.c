/* test_offline.c - offline placement (allocators.md section 5): the peak-live lower bound, the
 * greedy planner's exact offsets (also against its O(n^2) definition), the verifier, the exact
 * search on MiniMalloc's challenging set (all eleven must fit in 1 MiB; the seconds per instance
 * are printed, not asserted), the prepass over a lifetime CSV, and an end-to-end run of the
 * `offline` policy. */
#include <CUnit/CUnit.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../models/plan.h"
#include "../../sim/prepass.h"
#include "testutil.h"

#define MM_CAP 1048576ULL

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A lifetime CSV through the project's own reader (replay order, event-index lifetimes). */
static plan_buf *load_csv(const char *path, size_t *n)
{
    static const char *const names[] = {"hbm"};
    trace_opts o = {names, 1, 0, 0, AM_PS_PER_NS, 0};
    plan_buf *per[1] = {NULL};
    size_t counts[1] = {0};
    am_error err = {0};
    int rc = prepass_collect(path, &o, NULL, 1, per, counts, &err);
    if (rc)
        fprintf(stderr, "\nprepass: %s\n", err.msg);
    CU_ASSERT_EQUAL(rc, 0);
    *n = counts[0];
    return per[0];
}

/* The same file with its own [lower, upper) times, in row order. */
static plan_buf *load_times(const char *path, size_t *n)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char line[256];
    size_t cap = 256, m = 0;
    plan_buf *b = malloc(cap * sizeof *b);
    while (fgets(line, sizeof line, f)) {
        unsigned long long id, lo, up, sz;
        if (sscanf(line, "%llu,%llu,%llu,%llu", &id, &lo, &up, &sz) != 4)
            continue;
        if (m == cap)
            b = realloc(b, (cap *= 2) * sizeof *b);
        b[m++] = (plan_buf){lo, up, sz, 0, 0, 0};
    }
    fclose(f);
    *n = m;
    return b;
}

static void test_peak_live(void)
{
    plan_buf a[] = {{0, 10, 100, 0, 0, 0}, {5, 15, 200, 0, 0, 0}, {10, 20, 50, 0, 0, 0}};
    CU_ASSERT_EQUAL(plan_peak_live(a, 3), 300); /* [5, 10) */
    /* half-open: one ends where the next starts, so they never add up */
    plan_buf b[] = {{0, 5, 100, 0, 0, 0}, {5, 10, 100, 0, 0, 0}, {10, 11, 70, 0, 0, 0}};
    CU_ASSERT_EQUAL(plan_peak_live(b, 3), 100);
    /* empty lifetimes and zero sizes count for nothing */
    plan_buf c[] = {{3, 3, 500, 0, 0, 0}, {0, 4, 0, 0, 0, 0}, {1, 2, 7, 0, 0, 0}};
    CU_ASSERT_EQUAL(plan_peak_live(c, 3), 7);
    CU_ASSERT_EQUAL(plan_peak_live(NULL, 0), 0);
}

/* Size order A(100) B(90) C(80) D(70) E(30) F(20); each in the smallest fitting gap among the
 * placed buffers overlapping it, else on top of them. */
static void test_greedy_offsets(void)
{
    plan_buf b[] = {
        {0, 2, 100, 9, 0, 0}, /* A: first, at 0 */
        {0, 10, 90, 9, 0, 0}, /* B: on top of A: 100 */
        {8, 10, 80, 9, 0, 0}, /* C: overlaps only B [100,190): the gap [0,100) */
        {0, 10, 70, 9, 0, 0}, /* D: overlaps A, C at 0 and B: on top, 190 */
        {4, 6, 30, 9, 0, 0},  /* E: overlaps B, D: the gap [0,100) */
        {3, 7, 20, 9, 0, 0},  /* F: overlaps E [0,30), B, D: the gap [30,100) */
    };
    CU_ASSERT_EQUAL(plan_greedy(b, 6), 260);
    uint64_t want[] = {0, 100, 0, 190, 0, 30};
    for (int i = 0; i < 6; i++)
        CU_ASSERT_EQUAL(b[i].offset, want[i]);
    CU_ASSERT_EQUAL(plan_verify(b, 6, 260, NULL, 0), 0);
    /* best fit: the 10-byte buffer takes the 10-byte gap, not the lower 50-byte one */
    plan_buf g[] = {
        {0, 10, 100, 0, 0, 0}, /* 0 */
        {2, 10, 60, 0, 0, 0},  /* 100 */
        {0, 2, 50, 0, 0, 0},   /* 100: overlaps the first only */
        {0, 10, 40, 0, 0, 0},  /* on top: 160 */
        {0, 1, 30, 0, 0, 0},   /* overlaps 0, 2, 3: gap [150,160) too small: top 200 */
        {2, 3, 10, 0, 0, 0},   /* overlaps 0 [0,100), 1 [100,160), 3 [160,200): top 200 */
    };
    plan_greedy(g, 6);
    CU_ASSERT_EQUAL(g[0].offset, 0);
    CU_ASSERT_EQUAL(g[1].offset, 100);
    CU_ASSERT_EQUAL(g[2].offset, 100);
    CU_ASSERT_EQUAL(g[3].offset, 160);
    CU_ASSERT_EQUAL(g[4].offset, 200);
    CU_ASSERT_EQUAL(g[5].offset, 200);
    plan_buf h[] = {
        {0, 10, 100, 0, 0, 0}, /* 0 */
        {0, 1, 50, 0, 0, 0},   /* 100 */
        {0, 10, 40, 0, 0, 0},  /* 150 */
        {0, 1, 20, 0, 0, 0},   /* 190 */
        {0, 10, 15, 0, 0, 0},  /* 210 */
        {5, 6, 10, 0, 0, 0},   /* gaps [100,150) (50) and [190,210) (20): best fit 190 */
    };
    plan_greedy(h, 6);
    CU_ASSERT_EQUAL(h[4].offset, 210);
    CU_ASSERT_EQUAL(h[5].offset, 190);
    CU_ASSERT_EQUAL(plan_verify(h, 6, UINT64_MAX, NULL, 0), 0);
}

static void test_verify(void)
{
    char why[256] = "";
    plan_buf a[] = {{0, 10, 100, 0, 0, 0}, {5, 15, 100, 50, 0, 0}};
    CU_ASSERT_EQUAL(plan_verify(a, 2, UINT64_MAX, why, sizeof why), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "overlap"));
    a[1].offset = 100; /* side by side */
    CU_ASSERT_EQUAL(plan_verify(a, 2, 200, why, sizeof why), 0);
    CU_ASSERT_EQUAL(plan_verify(a, 2, 199, why, sizeof why), -1); /* over the capacity */
    a[1] = (plan_buf){10, 15, 100, 0, 0, 0}; /* same bytes, one after the other */
    CU_ASSERT_EQUAL(plan_verify(a, 2, 100, why, sizeof why), 0);
    /* an overlap found after other buffers ended (the sweep drops them) */
    plan_buf b[] = {{0, 2, 10, 0, 0, 0}, {3, 9, 10, 0, 0, 0}, {1, 3, 10, 10, 0, 0}, {5, 6, 10, 5, 0, 0}};
    CU_ASSERT_EQUAL(plan_verify(b, 4, UINT64_MAX, why, sizeof why), -1);
}

static const char *const mm_names = "ABCDEFGHIJK";

static void test_greedy_minimalloc(void)
{
    const char *p = tu_shared("minimalloc/challenging/A.1048576.csv");
    if (!p)
        return;
    size_t n = 0;
    plan_buf *b = load_times(p, &n);
    CU_ASSERT_FATAL(b && n == 154);
    uint64_t live = plan_peak_live(b, n), h = plan_greedy(b, n);
    CU_ASSERT_EQUAL(live, MM_CAP);
    CU_ASSERT(h >= live);
    CU_ASSERT_EQUAL(plan_height(b, n), h);
    CU_ASSERT_EQUAL(plan_verify(b, n, h, NULL, 0), 0);
    /* the same instance in event-index clock: the same bound and the same greedy height */
    size_t m = 0;
    plan_buf *e = load_csv(p, &m);
    CU_ASSERT_FATAL(e && m == n);
    CU_ASSERT_EQUAL(plan_peak_live(e, m), live);
    CU_ASSERT_EQUAL(plan_greedy(e, m), h);
    free(b);
    free(e);
}

/* The greedy planner as its definition reads (plan.h), placed list scanned whole: O(n^2).
 * Buffers by size descending, longer lifetime first, then index; each into the smallest gap
 * between the placed buffers that overlap it in time (by offset, then placement order), lowest
 * offset among equal gaps, else on top of them. */
static uint64_t greedy_reference(plan_buf *b, size_t n)
{
    size_t *ord = malloc((n + 1) * sizeof *ord), m = 0, *placed = malloc((n + 1) * sizeof *placed);
    for (size_t i = 0; i < n; i++) {
        b[i].offset = 0;
        if (b[i].size && b[i].start < b[i].end)
            ord[m++] = i;
    }
    int timed = plan_timed(b, n);
    for (size_t i = 1; i < m; i++) /* insertion sort: stable, small inputs */
        for (size_t j = i; j > 0; j--) {
            const plan_buf *x = &b[ord[j]], *y = &b[ord[j - 1]];
            int before = x->size > y->size ||
                         (x->size == y->size && plan_lifetime(x, timed) > plan_lifetime(y, timed));
            if (!before)
                break;
            size_t t = ord[j];
            ord[j] = ord[j - 1];
            ord[j - 1] = t;
        }
    uint64_t height = 0;
    for (size_t k = 0; k < m; k++) {
        plan_buf *x = &b[ord[k]];
        uint64_t top = 0, best = 0, gap_best = UINT64_MAX;
        int found = 0;
        for (size_t j = 0; j < k; j++) { /* placed[] by offset, then placement order */
            const plan_buf *p = &b[placed[j]];
            if (!(p->start < x->end && x->start < p->end))
                continue;
            if (p->offset > top && p->offset - top >= x->size && p->offset - top < gap_best) {
                gap_best = p->offset - top;
                best = top;
                found = 1;
            }
            if (p->offset + p->size > top)
                top = p->offset + p->size;
        }
        x->offset = found ? best : top;
        size_t at = k;
        while (at > 0 && b[placed[at - 1]].offset > x->offset) {
            placed[at] = placed[at - 1];
            at--;
        }
        placed[at] = ord[k];
        if (x->offset + x->size > height)
            height = x->offset + x->size;
    }
    free(ord);
    free(placed);
    return height;
}

/* The greedy against the reference on seeded random instances: short and long lifetimes, many
 * equal sizes and equal start times (ties in every key), some empty buffers. The last four
 * are larger, with half the lifetimes long, so that queries meet over 1024 placed buffers (the
 * radix sort's wider passes) and span many blocks of rows. Every other instance of the first
 * 60 has trace times (timed, a span unrelated to end - start) that order its size ties. */
static void test_greedy_reference(void)
{
    uint64_t st = 99;
    int bad = 0;
    for (int inst = 0; inst < 64; inst++) {
        size_t n = inst < 60 ? 1 + (size_t)(inst * 37 % 900) : 1500 + 900 * (size_t)(inst - 60);
        unsigned long_one_in = inst < 60 ? 8 : 2;
        plan_buf *a = calloc(n, sizeof *a), *r = calloc(n, sizeof *r);
        for (size_t i = 0; i < n; i++) {
            uint64_t x = tu_rng(&st) >> 11, t0 = x % (n + 5);
            uint64_t life = (x >> 20) % long_one_in ? (x >> 24) % 40
                            : (x >> 24) % (n + 5) + (inst < 60 ? 0 : n / 2);
            uint64_t size = (x >> 40) % 4 ? 256 * (1 + (x >> 44) % 6) : (x >> 44) % 100000;
            a[i] = (plan_buf){t0, t0 + life, size, 0, 0, 0};
            if (inst < 60 && inst % 2)
                a[i].span = (x >> 50) % 8, a[i].timed = 1;
        }
        memcpy(r, a, n * sizeof *a);
        uint64_t h = plan_greedy(a, n), hr = greedy_reference(r, n);
        if (h != hr || plan_verify(a, n, h, NULL, 0) != 0)
            bad++;
        for (size_t i = 0; i < n; i++)
            if (a[i].offset != r[i].offset)
                bad++;
        free(a);
        free(r);
    }
    CU_ASSERT_EQUAL(bad, 0);
}

/* Shapes where the greedy's shortcuts answer (plan.c gfast): every buffer live together
 * (all), long-lived buffers with short ones that never meet (core), and both spoiled by a few
 * buffers before, after and across them, so queries switch between the shortcuts and the scan.
 * Offsets must be the O(n^2) definition's, buffer for buffer. */
static void test_greedy_shortcuts_reference(void)
{
    uint64_t st = 7;
    int bad = 0, fired = 0;
    for (int inst = 0; inst < 120; inst++) {
        size_t n = 2 + (size_t)(inst * 53 % 700);
        int shape = inst % 4; /* 0 all live, 1 long + disjoint short, 2 and 3 spoiled */
        plan_buf *a = calloc(n, sizeof *a), *r = calloc(n, sizeof *r);
        uint64_t clock = 1000; /* the short ones' times, one after the other */
        for (size_t i = 0; i < n; i++) {
            uint64_t x = tu_rng(&st) >> 11;
            uint64_t size = (x >> 40) % 5 ? 256u << ((x >> 44) % 4) : (x >> 44) % 5000;
            int lng = shape == 0 || (x >> 20) % 3 == 0;
            uint64_t s, e;
            if (lng) {
                s = (x >> 24) % 50;        /* all start before 50 ... */
                e = 100000 + (x >> 30) % 50; /* ... and end after every short one */
            } else {
                s = clock;
                e = clock + 1 + (x >> 24) % 3;
                clock = e + (shape >= 2 && (x >> 28) % 4 == 0 ? 0 : 1);
                if (shape >= 2 && (x >> 32) % 5 == 0)
                    s -= AM_MIN(s - 1, (x >> 33) % 6); /* meets the one before */
            }
            if (shape == 3 && (x >> 36) % 17 == 0) { /* before or after everything */
                s = (x >> 37) % 2 ? 0 : 200000;
                e = s + 1 + (x >> 38) % 40;
            }
            a[i] = (plan_buf){s, e, size, 0, 0, 0};
            if (inst % 3 == 1)
                a[i].span = (x >> 50) % 8, a[i].timed = 1;
        }
        memcpy(r, a, n * sizeof *a);
        uint64_t h = plan_greedy(a, n), hr = greedy_reference(r, n);
        if (h != hr || plan_verify(a, n, h, NULL, 0) != 0)
            bad++;
        for (size_t i = 0; i < n; i++)
            if (a[i].offset != r[i].offset)
                bad++;
        /* buffers placed in a gap, not on top: the instances are not trivially stacked */
        for (size_t i = 0; i < n; i++)
            if (a[i].size && a[i].offset + a[i].size < h && a[i].offset > 0)
                fired++;
        free(a);
        free(r);
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(fired > 0);
}

/* Many buffers live together: 300k allocated before any is freed, and 150k long-lived ones
 * with 150k short ones coming and going. Until 2026-11-27 every query scanned every placed
 * buffer overlapping it (O(n^2), minutes here); the shortcuts plan them in well under a second.
 * The time is printed, not asserted (speed belongs in benchmarks): a return to O(n^2) shows as
 * a suite minutes longer. */
static void test_greedy_many_live(void)
{
    size_t n = 300000;
    plan_buf *a = calloc(n, sizeof *a);
    uint64_t st = 11;
    static const uint64_t sizes[] = {256, 512, 1024, 4096, 8192, 65536, 100000};
    for (int shape = 0; shape < 2; shape++) {
        uint64_t sum = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t x = tu_rng(&st) >> 11, size = sizes[x % 7];
            if (shape == 0 || i % 2 == 0)
                a[i] = (plan_buf){i, 2 * n + (x >> 8) % n, size, 0, 0, 0};
            else
                a[i] = (plan_buf){n + i, n + i + 1, size, 0, 0, 0};
            sum += shape == 0 || i % 2 == 0 ? size : 0;
        }
        double t0 = now_s();
        uint64_t h = plan_greedy(a, n);
        int ok = plan_verify(a, n, h, NULL, 0);
        double dt = now_s() - t0;
        printf("\n    %s: %zu buffers, height %" PRIu64 " bytes in %.2f s", shape ? "core" : "all",
               n, h, dt);
        CU_ASSERT_EQUAL(ok, 0);
        CU_ASSERT(h >= sum); /* the long-lived ones are all live at once */
    }
    printf("\n");
    free(a);
}

/* The verifier as it read until 2026-11-27: a sweep by start, every live buffer scanned. */
static int verify_reference(const plan_buf *b, size_t n, char *why, size_t len)
{
    size_t *ord = malloc((n + 1) * sizeof *ord), m = 0, na = 0, *act = malloc((n + 1) * sizeof *act);
    for (size_t i = 0; i < n; i++)
        if (b[i].size && b[i].start < b[i].end)
            ord[m++] = i;
    for (size_t i = 1; i < m; i++) /* by start, then index: stable insertion sort */
        for (size_t j = i; j > 0 && b[ord[j]].start < b[ord[j - 1]].start; j--) {
            size_t t = ord[j];
            ord[j] = ord[j - 1];
            ord[j - 1] = t;
        }
    int rc = 0;
    for (size_t k = 0; k < m && !rc; k++) {
        const plan_buf *x = &b[ord[k]];
        size_t keep = 0;
        for (size_t j = 0; j < na && !rc; j++) {
            const plan_buf *y = &b[act[j]];
            if (y->end <= x->start)
                continue;
            act[keep++] = act[j];
            if (x->offset < y->offset + y->size && y->offset < x->offset + x->size) {
                snprintf(why, len, "buffers %zu and %zu overlap", act[j], ord[k]);
                rc = -1;
            }
        }
        na = keep;
        act[na++] = ord[k];
    }
    free(ord);
    free(act);
    return rc;
}

/* The verifier's sweep keeps live buffers by offset: it must reject exactly the placements the
 * full scan rejected, naming the same pair. Greedy placements with one offset moved. */
static void test_verify_reference(void)
{
    uint64_t st = 5;
    int bad = 0, rejected = 0;
    for (int inst = 0; inst < 300; inst++) {
        size_t n = 2 + (size_t)(inst * 31 % 200);
        plan_buf *a = calloc(n, sizeof *a);
        for (size_t i = 0; i < n; i++) {
            uint64_t x = tu_rng(&st) >> 11, t0 = x % (n + 5);
            a[i] = (plan_buf){t0, t0 + (x >> 20) % 30, (x >> 30) % 4 ? 64 * (1 + (x >> 34) % 4)
                              : (x >> 34) % 300, 0, 0, 0};
        }
        uint64_t h = plan_greedy(a, n), x = tu_rng(&st) >> 11;
        if (inst % 4)
            a[x % n].offset = (x >> 20) % (h + 1);
        char why[256] = "", whyr[256] = "";
        int rc = plan_verify(a, n, UINT64_MAX, why, sizeof why);
        int rr = verify_reference(a, n, whyr, sizeof whyr);
        rejected += rc != 0;
        if (rc != rr || (rc && strncmp(why, whyr, strlen(whyr)) != 0))
            bad++;
        free(a);
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(rejected > 0);
}

/* All eleven challenging instances in 1 MiB, each within a generous budget (the acceptance
 * bound is 60 s; the time is printed). */
static void test_optimal_minimalloc(void)
{
    char rel[128];
    for (const char *c = mm_names; *c; c++) {
        snprintf(rel, sizeof rel, "minimalloc/challenging/%c.1048576.csv", *c);
        const char *p = tu_shared(rel);
        if (!p)
            return;
        size_t n = 0;
        plan_buf *b = load_times(p, &n);
        CU_ASSERT_FATAL(b != NULL);
        uint64_t live = plan_peak_live(b, n), h = 0;
        uint64_t greedy = plan_greedy(b, n);
        double t0 = now_s();
        int rc = plan_optimal(b, n, MM_CAP, (plan_budget){0, 300.0}, &h, NULL);
        double dt = now_s() - t0;
        char why[256] = "";
        int ok = rc == 1 ? plan_verify(b, n, MM_CAP, why, sizeof why) : -1;
        printf("\n    %c: %3zu buffers, peak live %7" PRIu64 ", greedy %7" PRIu64 ", search %7"
               PRIu64 " in %.2f s%s", *c, n, live, greedy, h, dt, ok ? " FAILED" : "");
        CU_ASSERT_EQUAL(rc, 1);
        CU_ASSERT_EQUAL(ok, 0);
        CU_ASSERT(h <= MM_CAP && h >= live);
        free(b);
    }
    printf("\n");
}

/* A section's floor re-checked after a placement needs only its members that do not share a
 * section with the placed buffer (the others are at its top or above): on MiniMalloc's A the
 * search (work 26.6M) finds its plan looking at 40.0M members, where until 2026-11-28 it
 * looked at every member of a section whose floor rose, 207M in all. */
enum { LOOKED_A = 50000000 };

static void test_recheck_looks_apart(void)
{
    const char *p = tu_shared("minimalloc/challenging/A.1048576.csv");
    if (!p)
        return;
    size_t n = 0;
    plan_buf *b = load_times(p, &n);
    CU_ASSERT_FATAL(b != NULL);
    uint64_t h = 0, spent = 0;
    CU_ASSERT_EQUAL(plan_optimal(b, n, MM_CAP, (plan_budget){250000000, 0}, &h, &spent), 1);
    uint64_t looked = plan_last_search_looked();
    printf("\n    A: height %" PRIu64 ", work %" PRIu64 ", members looked at %" PRIu64, h, spent,
           looked);
    CU_ASSERT_EQUAL(plan_verify(b, n, MM_CAP, NULL, 0), 0);
    CU_ASSERT(looked > 0 && looked <= LOOKED_A);
    free(b);
}

#define SMALL_BUDGET ((plan_budget){1000000, 0})

static void test_optimal_small(void)
{
    /* tight: two pairs that must interleave */
    plan_buf a[] = {{0, 4, 2, 0, 0, 0}, {0, 2, 1, 0, 0, 0}, {2, 4, 1, 0, 0, 0}, {1, 3, 1, 0, 0, 0}};
    uint64_t h = 0;
    CU_ASSERT_EQUAL(plan_peak_live(a, 4), 4);
    CU_ASSERT_EQUAL(plan_optimal(a, 4, 4, SMALL_BUDGET, &h, NULL), 1);
    CU_ASSERT_EQUAL(h, 4);
    CU_ASSERT_EQUAL(plan_verify(a, 4, 4, NULL, 0), 0);
    /* proven impossible: more live than the capacity, and a buffer wider than it */
    plan_buf b[] = {{0, 4, 40, 7, 0, 0}, {1, 5, 40, 7, 0, 0}, {2, 6, 40, 7, 0, 0}};
    CU_ASSERT_EQUAL(plan_optimal(b, 3, 100, SMALL_BUDGET, &h, NULL), 0);
    CU_ASSERT_EQUAL(b[0].offset, 7); /* untouched */
    plan_buf c[] = {{0, 1, 101, 0, 0, 0}};
    CU_ASSERT_EQUAL(plan_optimal(c, 1, 100, SMALL_BUDGET, &h, NULL), 0);
    CU_ASSERT_EQUAL(plan_optimal(b, 3, 120, SMALL_BUDGET, &h, NULL), 1);
    CU_ASSERT_EQUAL(h, 120);
    /* plan_best: greedy is beaten and the bound reached */
    const char *p = tu_shared("minimalloc/challenging/C.1048576.csv");
    if (!p)
        return;
    size_t n = 0;
    plan_buf *d = load_times(p, &n);
    plan_result r;
    plan_best(d, n, MM_CAP, (plan_budget){250000000, 0}, &r);
    CU_ASSERT(r.height < r.greedy_height);
    CU_ASSERT(r.height >= r.peak_live && r.height <= MM_CAP);
    CU_ASSERT_EQUAL(plan_height(d, n), r.height);
    CU_ASSERT_EQUAL(plan_verify(d, n, r.height, NULL, 0), 0);
    free(d);
}

/* A search cut short by its work budget stops at the same point every time: the same plan, the
 * same work, whatever the machine's speed. Instance D's bisection does not finish within 3M
 * buffer visits. */
static void test_budget_deterministic(void)
{
    const char *p = tu_shared("minimalloc/challenging/D.1048576.csv");
    if (!p)
        return;
    size_t n = 0;
    plan_buf *a = load_times(p, &n), *b = load_times(p, &n);
    CU_ASSERT_FATAL(a != NULL && b != NULL);
    const uint64_t budget = 3000000;
    plan_result ra, rb;
    plan_best(a, n, MM_CAP, (plan_budget){budget, 0}, &ra);
    plan_best(b, n, MM_CAP, (plan_budget){budget, 0}, &rb);
    CU_ASSERT_EQUAL(ra.timed_out, 1);
    CU_ASSERT_EQUAL(ra.proven_optimal, 0);
    CU_ASSERT(ra.work > 0);
    CU_ASSERT_EQUAL(ra.work, rb.work);
    CU_ASSERT_EQUAL(ra.searches, rb.searches);
    CU_ASSERT_EQUAL(ra.height, rb.height);
    CU_ASSERT(ra.height < ra.greedy_height); /* the budget was enough to beat greedy */
    /* and where it stopped is pinned (golden): 10 searches, 2,911,383 visits, 1,111,040 bytes */
    CU_ASSERT_EQUAL(ra.searches, 10);
    CU_ASSERT_EQUAL(ra.work, 2911383);
    CU_ASSERT_EQUAL(ra.height, 1111040);
    int same = 1;
    for (size_t i = 0; i < n; i++)
        same &= a[i].offset == b[i].offset;
    CU_ASSERT(same);
    CU_ASSERT_EQUAL(plan_verify(a, n, ra.height, NULL, 0), 0);
    /* one search alone: out of budget is -1, offsets untouched, the work reported: none, as
     * 1000 visits do not pay for its tables (31,708), which are then not built (until
     * 2026-11-27 they were, and charged: 31,708) */
    uint64_t h = 0, spent = 1;
    a[0].offset = 12345;
    CU_ASSERT_EQUAL(plan_optimal(a, n, ra.peak_live, (plan_budget){1000, 0}, &h, &spent), -1);
    CU_ASSERT_EQUAL(spent, 0);
    CU_ASSERT_EQUAL(a[0].offset, 12345);
    free(a);
    free(b);
}

/* n buffers of 1, 2 or 3 KiB, each live for w ticks from its index (so each overlaps the w
 * before and after it), then, after them in time, the GADGET buffers of test_budget_config in
 * MiB, on which greedy misses the bound (13 MiB against 12). */
enum { GADGET = 8 };
static plan_buf *overlap_then_gadget(size_t n, size_t w)
{
    static const uint64_t g[GADGET][3] = {{1, 6, 2}, {4, 10, 3}, {4, 10, 1}, {7, 10, 4},
                                          {6, 10, 1}, {4, 6, 3},  {5, 8, 3},  {2, 4, 3}};
    plan_buf *b = am_malloc((n + GADGET) * sizeof *b);
    for (size_t i = 0; i < n; i++)
        b[i] = (plan_buf){i, i + w, (1 + i % 3) * 1024, 0, 0, 0};
    for (size_t i = 0; i < GADGET; i++)
        b[n + i] = (plan_buf){2 * n + g[i][0], 2 * n + g[i][1], g[i][2] << 20, 0, 0, 0};
    return b;
}

/* A set whose overlap table would pass the search's limit (12k buffers, each overlapping the
 * 6k before and after it: 144M pairs) is too large whatever the height: plan_optimal says so
 * (-2) without searching, and plan_best stops after that one search with the greedy plan (it
 * used to try every bisection step, each failing alike). After them in time, the eight buffers
 * of test_budget_config in MiB, on which greedy misses the bound (13 MiB against 12). */
static void test_too_large(void)
{
    enum { N = 12000, G = GADGET };
    plan_buf *b = overlap_then_gadget(N, 6000);
    uint64_t h = 0, spent = 1;
    CU_ASSERT_EQUAL(plan_optimal(b, N + G, UINT64_MAX, (plan_budget){0, 0}, &h, &spent), -2);
    CU_ASSERT_EQUAL(spent, 0);
    plan_result r;
    plan_best(b, N + G, UINT64_MAX, (plan_budget){0, 0}, &r);
    CU_ASSERT_EQUAL(r.peak_live, 12u << 20);
    CU_ASSERT_EQUAL(r.greedy_height, 13u << 20);
    CU_ASSERT_EQUAL(r.searches, 1);
    CU_ASSERT_EQUAL(r.timed_out, 1);
    CU_ASSERT_EQUAL(r.height, r.greedy_height);
    CU_ASSERT_EQUAL(plan_verify(b, N + G, r.height, NULL, 0), 0);
    free(b);
}

/* plan_best builds the search's tables once for all the heights it tries, and charges each
 * search for them as when each search built its own: the budget buys what it did, and plans are
 * the same (the figures below are those of the code that rebuilt the tables for every search).
 * The set: 3,000 buffers each overlapping the 1,500 before and after them, whose tables cost as
 * much as a search, then the eight buffers of test_too_large. */
static void test_tables_once(void)
{
    enum { N = 3000, G = GADGET };
    plan_buf *b = overlap_then_gadget(N, 1500);
    /* the tables alone: a height below the peak fails right after building them */
    uint64_t h = 0, tables = 0, all = 0;
    CU_ASSERT_EQUAL(plan_optimal(b, N + G, (12u << 20) - 1, (plan_budget){0, 0}, &h, &tables), 0);
    CU_ASSERT_EQUAL(tables, 9000056);
    CU_ASSERT_EQUAL(plan_optimal(b, N + G, 12u << 20, (plan_budget){0, 0}, &h, &all), 1);
    CU_ASSERT_EQUAL(all, 17997114);
    /* a quarter of the tables and one search's work is not enough for the bound's search
     * (charged its tables): five searches end at the greedy height, the fifth not run as what
     * is left of the budget does not pay for its tables (until 2026-11-27 it was charged for
     * them all the same: 47,248,029 visits of a budget of 44,988,292) */
    plan_result r;
    const uint64_t budget = tables + 4 * (all - tables) + 4;
    plan_best(b, N + G, UINT64_MAX, (plan_budget){budget, 0}, &r);
    CU_ASSERT_EQUAL(r.greedy_height, 13u << 20);
    CU_ASSERT_EQUAL(r.height, 13u << 20);
    CU_ASSERT_EQUAL(r.searches, 5);
    CU_ASSERT_EQUAL(r.work, 47248029 - tables);
    CU_ASSERT(r.work <= budget);
    CU_ASSERT_EQUAL(r.timed_out, 1);
    /* four times tables and search: the bound in one search */
    plan_best(b, N + G, UINT64_MAX, (plan_budget){4 * all + 4, 0}, &r);
    CU_ASSERT_EQUAL(r.height, 12u << 20);
    CU_ASSERT_EQUAL(r.searches, 1);
    CU_ASSERT_EQUAL(r.work, all);
    CU_ASSERT_EQUAL(r.proven_optimal, 1);
    CU_ASSERT_EQUAL(plan_verify(b, N + G, r.height, NULL, 0), 0);
    free(b);
}

/* A budget that does not pay for the search's tables is not spent on them: they are measured
 * first (O(n log n)) and neither built nor charged. On sliding windows (each buffer overlapping
 * the n/2 before and after it, then the eight buffers of test_too_large, which greedy does not
 * place at the bound) the tables cost about 3n^2/2 visits: until 2026-11-27 a budget of 1000
 * reported 1.5M, 6M and 24M visits of work here (and built 96 MB of tables at n = 4000), and
 * a search whose share did not pay for them was charged for them past the budget. */
static void test_budget_below_tables(void)
{
    static const size_t sizes[] = {1000, 2000, 4000};
    for (size_t k = 0; k < AM_ARRAY_LEN(sizes); k++) {
        size_t n = sizes[k];
        plan_buf *b = overlap_then_gadget(n, n / 2);
        plan_result r;
        plan_best(b, n + GADGET, UINT64_MAX, (plan_budget){1000, 0}, &r);
        CU_ASSERT_EQUAL(r.greedy_height, 13u << 20);
        CU_ASSERT_EQUAL(r.height, r.greedy_height); /* the greedy plan stands */
        CU_ASSERT_EQUAL(r.searches, 1);
        CU_ASSERT_EQUAL(r.timed_out, 1);
        CU_ASSERT_EQUAL(r.proven_optimal, 0);
        CU_ASSERT_EQUAL(r.work, 0); /* whatever n: nothing visited, no table built */
        CU_ASSERT_EQUAL(plan_verify(b, n + GADGET, r.height, NULL, 0), 0);
        /* one search alone: out of budget, nothing spent, offsets untouched */
        uint64_t h = 0, spent = 1;
        b[0].offset = 12345;
        CU_ASSERT_EQUAL(plan_optimal(b, n + GADGET, 12u << 20, (plan_budget){1000, 0}, &h,
                                     &spent), -1);
        CU_ASSERT_EQUAL(spent, 0);
        CU_ASSERT_EQUAL(b[0].offset, 12345);
        free(b);
    }
    /* budgets around the tables' cost (n = 1000): the work never passes the budget by more
     * than the node a search stops after (n + 9 visits at most) */
    plan_buf *b = overlap_then_gadget(1000, 500);
    uint64_t h = 0, tables = 0;
    CU_ASSERT_EQUAL(plan_optimal(b, 1000 + GADGET, (12u << 20) - 1, (plan_budget){0, 0}, &h,
                                 &tables), 0);
    static const double share[] = {0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 8.0};
    for (size_t k = 0; k < AM_ARRAY_LEN(share); k++) {
        uint64_t budget = (uint64_t)(share[k] * (double)tables);
        plan_result r;
        plan_best(b, 1000 + GADGET, UINT64_MAX, (plan_budget){budget, 0}, &r);
        CU_ASSERT(r.work <= budget + 1000 + GADGET + 1);
        CU_ASSERT(r.searches >= 1);
        CU_ASSERT_EQUAL(plan_verify(b, 1000 + GADGET, r.height, NULL, 0), 0);
    }
    free(b);
}

/* Many independent parts: 40k copies, one after another in time, of five buffers the greedy
 * places one size unit above the peak, so the search runs over 40k static partitions. Until
 * 2026-11-27 each partition gathered its buffers by scanning all 200k (a minute here for a
 * search of 5M work); now a run of buffers sorted by first section. The time is printed, not
 * asserted. */
static void test_search_many_parts(void)
{
    enum { K = 40000, P = 5 };
    static const uint64_t pat[P][3] = {{0, 1, 1}, {2, 4, 3}, {3, 6, 2}, {4, 7, 2}, {5, 6, 2}};
    plan_buf *b = calloc((size_t)K * P, sizeof *b);
    for (size_t k = 0; k < K; k++)
        for (size_t j = 0; j < P; j++)
            b[k * P + j] = (plan_buf){10 * k + pat[j][0], 10 * k + pat[j][1], 1024 * pat[j][2],
                                      0, 0, 0};
    plan_result r;
    double t0 = now_s();
    plan_best(b, (size_t)K * P, UINT64_MAX, (plan_budget){250000000, 0}, &r);
    double dt = now_s() - t0;
    printf("\n    %d buffers in %d parts: %.2f s\n", K * P, K, dt);
    CU_ASSERT_EQUAL(r.greedy_height, 7 * 1024);
    CU_ASSERT_EQUAL(r.height, 6 * 1024);
    CU_ASSERT_EQUAL(r.proven_optimal, 1);
    CU_ASSERT_EQUAL(plan_verify(b, (size_t)K * P, r.height, NULL, 0), 0);
    free(b);
}

/* A sliding window (buffer i live over events [i, i + 8), 8 live at a time) drives the search
 * deep: one level per buffer placed. What its levels hold beyond the tables stays O(n) whatever
 * the budget (8 candidates a level): until 2026-11-27 each level kept all its candidates while
 * its subtree was searched, and a run of `offline` on 10k such buffers took 341 MB at the
 * default budget (925 MB on 100k). The plan found is the one the full candidate lists gave. */
static void test_search_memory_bounded(void)
{
    enum { N = 3000 };
    plan_buf *b = calloc(N, sizeof *b);
    for (size_t i = 0; i < N; i++)
        b[i] = (plan_buf){i, i + 8, 256 * (1 + i % 7), 0, 0, 0};
    size_t held[2];
    uint64_t height[2];
    static const uint64_t budgets[2] = {2000000, 20000000};
    for (int k = 0; k < 2; k++) {
        plan_result r;
        plan_best(b, N, UINT64_MAX, (plan_budget){budgets[k], 0}, &r);
        held[k] = plan_last_search_held();
        height[k] = r.height;
        printf("\n    budget %" PRIu64 ": height %" PRIu64 " B, levels held %zu B", budgets[k],
               r.height, held[k]);
        CU_ASSERT(r.searches > 0);
        CU_ASSERT_EQUAL(plan_verify(b, N, r.height, NULL, 0), 0);
        /* 16 bytes x 8 candidates per level, a level per buffer, and doubling slack: a larger
         * budget may go deeper, never past n levels (the old code held 8 MB and 33 MB here) */
        CU_ASSERT(held[k] <= (size_t)N * 8 * 16 * 2 + 16384);
    }
    CU_ASSERT(height[1] <= height[0]);
    free(b);
}

/* prepass: event-index lifetimes per level, in request order; ids reused after a free. */
static void test_prepass(void)
{
    const char *p = tu_write("pp.trace",
        "amsim-trace v1\n"
        "alloc 1 100\n"
        "alloc 2 200 level=host\n"
        "free 1\n"
        "alloc 1 300\n"
        "free 2\n");
    static const char *const names[] = {"hbm", "host"};
    trace_opts o = {names, 2, 0, 0, AM_PS_PER_NS, 0};
    plan_buf *per[2] = {NULL, NULL};
    size_t counts[2] = {0, 0};
    am_error err = {0};
    int rc = prepass_collect(p, &o, NULL, 2, per, counts, &err);
    if (rc)
        fprintf(stderr, "\nprepass: %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL_FATAL(counts[0], 2);
    CU_ASSERT_EQUAL_FATAL(counts[1], 1);
    CU_ASSERT(per[0][0].start == 0 && per[0][0].end == 2 && per[0][0].size == 100);
    CU_ASSERT(per[0][1].start == 3 && per[0][1].end == 5 && per[0][1].size == 300); /* never freed */
    CU_ASSERT(per[1][0].start == 1 && per[1][0].end == 4 && per[1][0].size == 200);
    free(per[0]);
    free(per[1]);
}

/* Size ties go to the longer lifetime in the trace's own time, not in event indices, where
 * the other buffers' allocations and frees in between count: 2 lives 5 ticks and 4 lives 3, but
 * 4 spans more events (allocated before 1 and 2 are freed, live to the end). Until 2026-11-27
 * the greedy placed 4 first, 2 then on top of 1, 4 and 3: height 32768 bytes, not 28672. A
 * trace without times has only its event order (timed 0). */
static void test_greedy_ties_trace_time(void)
{
    const char *p = tu_write("ties.csv",
        "id,lower,upper,size\n"
        "1,2,7,12288\n"
        "2,2,7,8192\n"
        "3,7,9,16384\n"
        "4,6,9,8192\n");
    size_t n = 0;
    plan_buf *b = load_csv(p, &n); /* request order: 1, 2, 4, 3 */
    CU_ASSERT_FATAL(b && n == 4);
    CU_ASSERT_EQUAL(plan_timed(b, n), 1);
    CU_ASSERT(b[1].span == 5 * AM_PS_PER_NS && b[2].span == 3 * AM_PS_PER_NS);
    CU_ASSERT(b[2].end - b[2].start > b[1].end - b[1].start);
    CU_ASSERT_EQUAL(plan_greedy(b, n), 28672);
    uint64_t want[] = {0, 12288, 20480, 0};
    for (size_t i = 0; i < n; i++)
        CU_ASSERT_EQUAL(b[i].offset, want[i]);
    free(b);
    const char *t = tu_write("ties.trace", "amsim-trace v1\nalloc 1 100\nalloc 2 100\nfree 1\n");
    static const char *const names[] = {"hbm"};
    trace_opts o = {names, 1, 0, 0, AM_PS_PER_NS, 0};
    plan_buf *per[1] = {NULL};
    size_t counts[1] = {0};
    am_error err = {0};
    CU_ASSERT_EQUAL_FATAL(prepass_collect(t, &o, NULL, 1, per, counts, &err), 0);
    CU_ASSERT_EQUAL_FATAL(counts[0], 2);
    CU_ASSERT_EQUAL(plan_timed(per[0], 2), 0);
    CU_ASSERT(per[0][0].timed == 0 && per[0][0].span == 0 && per[0][1].timed == 0);
    free(per[0]);
}

static uint64_t json_u64_after(const char *s, const char *key)
{
    char k[128];
    snprintf(k, sizeof k, "\"%s\": ", key);
    const char *p = s ? strstr(s, k) : NULL;
    return p ? strtoull(p + strlen(k), NULL, 10) : UINT64_MAX;
}

/* The offline policy through the engine: no out-of-memory, peak reserved = planned height. */
static void test_end_to_end(void)
{
    const char *csv = tu_write("e2e.csv",
        "id,lower,upper,size\n"
        "0,0,10,4096\n"
        "1,0,4,2048\n"
        "2,4,10,1024\n"
        "3,2,6,1024\n"
        "4,6,12,3072\n"
        "5,8,12,1024\n");
    const char *dir = tu_tmpdir();
    for (int k = 0; k < 3; k++) {
        static const char *const planner[] = {"greedy", "optimal", "auto"};
        char y[512];
        /* the work budget, and the wall-clock cap the policy had first (still accepted) */
        snprintf(y, sizeof y, "version: 1\nmemories:\n  hbm:\n    capacity: 1MiB\n"
                 "    allocator:\n      policy: offline\n      planner: %s\n"
                 "      %s\n", planner[k], k == 1 ? "time_limit: 10s" : "search_budget: 1000000");
        const char *cfg = tu_write("offline.yaml", y);
        char args[2048], jpath[600];
        snprintf(jpath, sizeof jpath, "%s/off%d.json", dir, k);
        snprintf(args, sizeof args, "run -q --check -c %s -t %s --json %s", cfg, csv, jpath);
        char *out = NULL, *errout = NULL;
        int rc = tu_amsim(args, &out, &errout);
        if (rc)
            fprintf(stderr, "\namsim %s: %s\n", args, errout ? errout : "");
        CU_ASSERT_EQUAL(rc, 0);
        free(out);
        free(errout);
        char *j = tu_slurp(jpath, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(j);
        uint64_t reserved = json_u64_after(j, "peak_reserved_bytes");
        uint64_t height = json_u64_after(j, "plan_height_bytes");
        uint64_t bound = json_u64_after(j, "plan_lower_bound_bytes");
        CU_ASSERT_EQUAL(json_u64_after(j, "ooms"), 0);
        CU_ASSERT_EQUAL(json_u64_after(j, "peak_live_bytes"), 9216);
        CU_ASSERT_EQUAL(bound, 9216);
        CU_ASSERT_EQUAL(reserved, height);
        if (k > 0)
            CU_ASSERT_EQUAL(height, 9216); /* the search reaches the bound */
        CU_ASSERT_EQUAL(json_u64_after(j, "plan_search_work"), 0); /* greedy reached the bound */
        free(j);
    }
}

/* Run amsim with args and a --json into dir/name; the JSON (caller frees), or NULL. */
static char *run_json(const char *args, const char *name)
{
    char all[2048], jpath[600];
    snprintf(jpath, sizeof jpath, "%s/%s", tu_tmpdir(), name);
    snprintf(all, sizeof all, "%s --json %s", args, jpath);
    char *out = NULL, *errout = NULL;
    int rc = tu_amsim(all, &out, &errout);
    if (rc)
        fprintf(stderr, "\namsim %s: status %d: %s\n", all, rc, errout ? errout : "");
    CU_ASSERT_EQUAL(rc, 0);
    free(out);
    free(errout);
    return rc ? NULL : tu_slurp(jpath, NULL);
}

/* The plan holds every request the engine makes on the level, in its order: a transfer's into=
 * buffer (unless the transfer guard rejects the transfer), not a donation the engine matches
 * (the donor's buffer lives on under the new id), a donation after free_requested allocating
 * anew, and a block planned until free_completed. Until 2026-11-25 the prepass saw TR_ALLOC
 * only: an into= request took the next planned request's place, every later one mismatched, and
 * traces/gpu_spill_step.trace ran with 0 allocations and 26 out-of-memory events on hbm. */
static void test_engine_requests(void)
{
    char args[1024];
    snprintf(args, sizeof args, "run -q --check -c %s/configs/default.yaml -t "
             "%s/traces/gpu_spill_step.trace --policy offline", tu_top(), tu_top());
    char *j = run_json(args, "spill_offline.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    CU_ASSERT_EQUAL(json_u64_after(j, "ooms"), 0);
    CU_ASSERT_EQUAL(json_u64_after(j, "allocs"), 26);
    CU_ASSERT_EQUAL(json_u64_after(j, "peak_live_bytes"), 1417678848);
    uint64_t offline = json_u64_after(j, "peak_reserved_bytes");
    CU_ASSERT_EQUAL(offline, 1417678848); /* peak live: the plan reaches the bound */
    CU_ASSERT_EQUAL(json_u64_after(j, "plan_buffers"), 26);
    CU_ASSERT_EQUAL(json_u64_after(j, "plan_mismatches"), 0);
    free(j);
    snprintf(args, sizeof args, "run -q -c %s/configs/default.yaml -t "
             "%s/traces/gpu_spill_step.trace --policy best_fit", tu_top(), tu_top());
    j = run_json(args, "spill_best_fit.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    CU_ASSERT_EQUAL(json_u64_after(j, "peak_reserved_bytes"), 1419771904);
    CU_ASSERT(offline <= json_u64_after(j, "peak_reserved_bytes"));
    free(j);

    const char *t = tu_write("requests.trace",
        "amsim-trace v1\n"
        "alloc 10 1MiB level=host\n"
        "alloc 1 1MiB\n"
        "alloc 2 2MiB\n"
        "transfer host hbm 1MiB into=3 id=10\n"          /* 1 MiB requested on hbm */
        "transfer host hbm 4MiB into=7 id=10 implicit=1\n" /* rejected below: no request */
        "alloc 4 1MiB donate=1\n"                          /* matched: no request */
        "free_requested 2\n"
        "alloc 5 2MiB donate=2\n"                          /* unmatched: 2 MiB requested */
        "free_completed 2\n"
        "free 3\n"
        "alloc 6 512KiB\n"
        "free 4\n"
        "free 5\n"
        "free 6\n"
        "free 10\n");
    static const struct {
        const char *guard;
        uint64_t allocs, plan, peak_live, reserved;
    } c[] = {{"disallow", 5, 5, 4u << 20, 6u << 20},
             {"allow", 6, 6, 8u << 20, 10u << 20}};
    for (size_t k = 0; k < AM_ARRAY_LEN(c); k++) {
        char name[64];
        snprintf(args, sizeof args, "run -q --check -c %s/configs/default.yaml -t %s --policy "
                 "offline --set transfer_guard.host_to_device=%s", tu_top(), t, c[k].guard);
        snprintf(name, sizeof name, "requests%zu.json", k);
        j = run_json(args, name);
        CU_ASSERT_PTR_NOT_NULL_FATAL(j);
        CU_ASSERT_EQUAL(json_u64_after(j, "ooms"), 0);
        CU_ASSERT_EQUAL(json_u64_after(j, "allocs"), c[k].allocs);
        CU_ASSERT_EQUAL(json_u64_after(j, "plan_buffers"), c[k].plan);
        CU_ASSERT_EQUAL(json_u64_after(j, "plan_mismatches"), 0);
        CU_ASSERT_EQUAL(json_u64_after(j, "peak_live_bytes"), c[k].peak_live);
        CU_ASSERT_EQUAL(json_u64_after(j, "peak_reserved_bytes"), c[k].reserved);
        const char *d = strstr(j, "\"donation\"");
        CU_ASSERT_EQUAL(json_u64_after(d, "matched"), 1);
        CU_ASSERT_EQUAL(json_u64_after(d, "unmatched"), 1);
        free(j);
    }
}

/* search_budget through a config, on a set whose greedy plan (13312 bytes) misses the bound
 * (12288): a budget large enough reaches it; a budget of one buffer visit leaves auto with the
 * greedy plan and fails optimal, naming the budget. */
static void test_budget_config(void)
{
    char csv[1024]; /* tu_write's paths are reused by later calls */
    snprintf(csv, sizeof csv, "%s", tu_write("budget.csv",
        "id,lower,upper,size\n"
        "0,1,6,2048\n"
        "1,4,10,3072\n"
        "2,4,10,1024\n"
        "3,7,10,4096\n"
        "4,6,10,1024\n"
        "5,4,6,3072\n"
        "6,5,8,3072\n"
        "7,2,4,3072\n"));
    const char *dir = tu_tmpdir();
    /* The failure names, and is placed at, the limit that stopped the search, with its value
     * (until 2026-11-28 always at search_budget and "within search_budget N", even 0, which is
     * no limit, when only time_limit had run out). A time limit under a millisecond ends the
     * searches before the first, and a budget of 1 does not pay for the search's tables (and
     * stops it long before 10 s), so each outcome is certain. */
    static const struct {
        const char *planner, *budget;
        int rc;
        uint64_t height, proven;
        const char *limit, *says;
    } c[] = {{"auto", "1000000", 0, 12288, 1, "", NULL},
             {"optimal", "1000000", 0, 12288, 1, "", NULL},
             {"auto", "1", 0, 13312, 0, "", NULL},
             {"optimal", "1", 1, 0, 0, "", "budget.yaml:8:7: memory level 'hbm': offline: "
              "planner optimal: no proof of optimality within search_budget 1 (best height 13312 "
              "bytes, lower bound 12288 bytes); raise the budget or use planner: auto"},
             {"optimal", "1", 1, 0, 0, "      time_limit: 10s\n", "budget.yaml:8:7: memory "
              "level 'hbm': offline: planner optimal: no proof of optimality within "
              "search_budget 1 (best height 13312 bytes"},
             {"optimal", "0", 1, 0, 0, "      time_limit: 1ns\n", "budget.yaml:9:7: memory "
              "level 'hbm': offline: planner optimal: no proof of optimality within time_limit "
              "1.000 ns (best height 13312 bytes, lower bound 12288 bytes); raise the time limit "
              "or use planner: auto"},
             {"optimal", "1", 1, 0, 0, "      time_limit: 1ns\n", "budget.yaml:9:7: memory "
              "level 'hbm': offline: planner optimal: no proof of optimality within time_limit "
              "1.000 ns (best height 13312 bytes"}};
    for (size_t k = 0; k < AM_ARRAY_LEN(c); k++) {
        char y[512], args[2048], jpath[600];
        snprintf(y, sizeof y, "version: 1\nmemories:\n  hbm:\n    capacity: 1MiB\n"
                 "    allocator:\n      policy: offline\n      planner: %s\n"
                 "      search_budget: %s\n%s", c[k].planner, c[k].budget, c[k].limit);
        const char *cfg = tu_write("budget.yaml", y);
        snprintf(jpath, sizeof jpath, "%s/budget%zu.json", dir, k);
        snprintf(args, sizeof args, "run -q -c %s -t %s --json %s", cfg, csv, jpath);
        char *out = NULL, *errout = NULL;
        int rc = tu_amsim(args, &out, &errout);
        CU_ASSERT_EQUAL(rc != 0, c[k].rc);
        if (c[k].rc) {
            CU_ASSERT(errout && strstr(errout, c[k].says));
            /* only the limit that ran out is named */
            CU_ASSERT_FALSE(errout && strstr(errout, strstr(c[k].says, "time_limit") ?
                                                         "search_budget" : "time_limit"));
            if (!errout || !strstr(errout, c[k].says))
                fprintf(stderr, "\ncase %zu: %s\n", k, errout ? errout : "");
        } else {
            char *j = tu_slurp(jpath, NULL);
            CU_ASSERT_PTR_NOT_NULL_FATAL(j);
            CU_ASSERT_EQUAL(json_u64_after(j, "greedy_height_bytes"), 13312);
            CU_ASSERT_EQUAL(json_u64_after(j, "plan_height_bytes"), c[k].height);
            CU_ASSERT_EQUAL(json_u64_after(j, "plan_proven_optimal"), c[k].proven);
            /* within the budget: a budget of 1 does not pay for the search's tables, so
             * nothing is spent (until 2026-11-27 they were charged, past the budget) */
            uint64_t work = json_u64_after(j, "plan_search_work");
            CU_ASSERT(work <= strtoull(c[k].budget, NULL, 10));
            CU_ASSERT(c[k].proven ? work > 0 : work == 0);
            free(j);
        }
        free(out);
        free(errout);
    }
    /* a limit given by --set is named by its --set */
    static const struct {
        const char *set, *says;
    } s[] = {{"time_limit=1ns", "amsim: --set 'memories.hbm.allocator.time_limit=1ns': "
              "memory level 'hbm': offline: planner optimal: no proof of optimality within "
              "time_limit 1.000 ns"},
             {"search_budget=1", "amsim: --set 'memories.hbm.allocator.search_budget=1': "
              "memory level 'hbm': offline: planner optimal: no proof of optimality within "
              "search_budget 1 "}};
    const char *cfg = tu_write("budget.yaml", "version: 1\nmemories:\n  hbm:\n    capacity: "
                               "1MiB\n    allocator:\n      policy: offline\n      planner: "
                               "optimal\n      search_budget: 0\n");
    for (size_t k = 0; k < AM_ARRAY_LEN(s); k++) {
        char args[2048];
        snprintf(args, sizeof args, "run -q -c %s -t %s --set memories.hbm.allocator.%s", cfg,
                 csv, s[k].set);
        char *out = NULL, *errout = NULL;
        CU_ASSERT_EQUAL(tu_amsim(args, &out, &errout), 1);
        CU_ASSERT(errout && strstr(errout, s[k].says));
        if (!errout || !strstr(errout, s[k].says))
            fprintf(stderr, "\n--set %s: %s\n", s[k].set, errout ? errout : "");
        free(out);
        free(errout);
    }
}

/* Planned sizes whose sum does not fit in 64 bits are an input error naming the request: the
 * plan's offsets could not be represented (they used to wrap, and the plan check then reported
 * an internal overlap). */
static void test_sizes_overflow(void)
{
    /* five sizes rounded to the largest alignment (4194304TiB = 4 EiB = 2^62): 5 * 2^62
     * passes 2^64 (until 2026-11-25 an alignment of 2^63, past the sizes amsim models, was
     * accepted and used here) */
    const char *csv = tu_write("huge.csv", "id,lower,upper,size\n0,0,10,4096\n1,0,4,2048\n"
                                           "2,4,10,1024\n3,0,10,1\n4,0,10,1\n");
    const char *cfg = tu_write("huge.yaml", "version: 1\nmemories:\n  hbm:\n    capacity: 1MiB\n"
                               "    allocator:\n      policy: offline\n"
                               "      alignment: 4194304TiB\n");
    char args[1024];
    snprintf(args, sizeof args, "run -q -c %s -t %s", cfg, csv);
    char *out = NULL, *errout = NULL;
    int rc = tu_amsim(args, &out, &errout);
    CU_ASSERT_EQUAL(rc, 1);
    /* the fourth 2^62-byte buffer makes exactly 2^64: refused, numbered from 1 (until
     * 2026-11-27 "more than 2^64 bytes at request 3") */
    CU_ASSERT(errout && strstr(errout, "offline: the planned sizes add up to 2^64 "
                               "bytes or more at request 4 of 5 planned (from 1, in "
                               "trace order; 1 B requested, rounded up to a multiple "
                               "of the alignment, 4611686018427387904 B)"));
    if (rc != 1)
        fprintf(stderr, "\namsim %s: status %d: %s\n", args, rc, errout ? errout : "");
    free(out);
    free(errout);
}

/* The plan holds only the requests the policy is asked for: one over 4 EiB is out of memory
 * before any policy sees it, and a 0-byte one is skipped (--lenient). Until 2026-11-27 both
 * were planned: the 100-byte request after 2^64 - 1 bytes took its place and failed as a
 * mismatch, and four requests just over 4 EiB passed 2^64 bytes, an input error, where bfc
 * counts four out-of-memory events. */
static void test_unasked_requests(void)
{
    const char *t = tu_write("unasked.trace",
        "amsim-trace v1\n"
        "alloc 1 18446744073709551615\n"
        "alloc 2 100\n"
        "alloc 3 4611686018427392000\n"
        "alloc 4 4611686018427392000\n"
        "alloc 5 0\n"
        "alloc 6 4611686018427392000\n"
        "alloc 7 4611686018427392000\n"
        "alloc 8 200\n"
        "free 2\nfree 8\n");
    static const char *const policy[] = {"offline", "bfc"};
    for (int k = 0; k < 2; k++) {
        char args[1024], name[64];
        snprintf(args, sizeof args, "run -q --check --lenient -c %s/configs/default.yaml -t %s "
                 "--policy %s", tu_top(), t, policy[k]);
        snprintf(name, sizeof name, "unasked%d.json", k);
        char *j = run_json(args, name);
        CU_ASSERT_PTR_NOT_NULL_FATAL(j);
        CU_ASSERT_EQUAL(json_u64_after(j, "ooms"), 5);
        CU_ASSERT_EQUAL(json_u64_after(j, "allocs"), 2);
        CU_ASSERT_EQUAL(json_u64_after(j, "peak_live_bytes"), 300);
        if (k == 0) {
            CU_ASSERT_EQUAL(json_u64_after(j, "plan_buffers"), 2);
            CU_ASSERT_EQUAL(json_u64_after(j, "plan_mismatches"), 0);
            CU_ASSERT_EQUAL(json_u64_after(j, "plan_height_bytes"), 300);
        }
        free(j);
    }
}

/* Without a plan (a level created outside the run command) every request fails and check()
 * says why. */
static void test_no_plan(void)
{
    const struct alloc_ops *ops = alloc_find("offline");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ops);
    CU_ASSERT_PTR_NOT_NULL(ops->set_plan);
    alloc_env env = {.capacity = 1 << 20, .granularity = 1};
    void *st = NULL;
    am_error err = {0};
    CU_ASSERT_EQUAL_FATAL(ops->create(&st, &env, NULL, &err), 0);
    alloc_req r = {64, 0, 0};
    alloc_out o;
    CU_ASSERT_EQUAL(ops->alloc(st, &r, &o), ALLOC_OOM);
    CU_ASSERT(ops->check(st, &err) > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "without a plan"));
    ops->destroy(st);
}

/* A device for the policy alone: one region at 4096 (so an address is never its offset). */
static int fake_dev_alloc(void *ctx, uint64_t bytes, uint64_t *addr)
{
    (void)ctx;
    (void)bytes;
    *addr = 4096;
    return 0;
}

/* Whether the placements CSV at path has the line `row`. */
static int has_row(const char *path, const char *row)
{
    char *csv = tu_slurp(path, NULL);
    int found = 0;
    for (const char *p = csv; p && (p = strstr(p, row)) != NULL; p++)
        if ((p == csv || p[-1] == '\n') && p[strlen(row)] == '\n') {
            found = 1;
            break;
        }
    free(csv);
    return found;
}

/* The policy finds a request's planned place by its event, not by how many came before: a
 * planned request never made leaves its range unused; a planned range some live block still
 * holds (a buffer that lived longer than planned) and a request not in the plan fall back to
 * first fit in the arena, or run out of memory, counted as mismatches, never over a live
 * block. Until 2026-11-27 the k-th request took the k-th planned offset after a size check. */
static void test_plan_fallback(void)
{
    const struct alloc_ops *ops = alloc_find("offline");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ops);
    alloc_env env = {.capacity = 1 << 20, .granularity = 1, .dev_alloc = fake_dev_alloc};
    void *st = NULL;
    am_error err = {0};
    CU_ASSERT_EQUAL_FATAL(ops->create(&st, &env, NULL, &err), 0);
    /* events 0, 2 and 3: 0 and 2 share bytes [0, 100) (0 dies at 2), 3 sits at 100 */
    plan_buf b[3] = {{0, 2, 100, 0, 0, 0}, {2, 4, 100, 0, 0, 0}, {3, 4, 100, 0, 0, 0}};
    CU_ASSERT_EQUAL_FATAL(ops->set_plan(st, b, 3, &err), 0);
    alloc_out o0, o1, o2, o3;
    /* event 0 at its plan; event 2's range is still held by event 0's buffer (it lived
     * longer than planned): the fallback's first fit finds [100, 200) */
    CU_ASSERT_EQUAL(ops->alloc(st, &(alloc_req){100, 0, 1}, &o0), ALLOC_OK);
    CU_ASSERT_EQUAL(o0.addr, 4096);
    CU_ASSERT_EQUAL(ops->alloc(st, &(alloc_req){100, 0, 3}, &o1), ALLOC_OK);
    CU_ASSERT_EQUAL(o1.addr, 4196);
    CU_ASSERT_EQUAL(ops->check(st, &err), 0);
    /* event 3's planned range [100, 200) is held by the fallback, and the arena is full */
    CU_ASSERT_EQUAL(ops->alloc(st, &(alloc_req){100, 0, 4}, &o2), ALLOC_OOM);
    /* a request the plan does not hold (the run's own, event 0 here) finds room once event
     * 0's buffer is freed, and the planned one of event 3 then runs out again, never over it */
    ops->free(st, o0.handle);
    CU_ASSERT_EQUAL(ops->alloc(st, &(alloc_req){60, 0, 0}, &o3), ALLOC_OK);
    CU_ASSERT_EQUAL(o3.addr, 4096);
    CU_ASSERT_EQUAL(ops->alloc(st, &(alloc_req){100, 0, 4}, &o2), ALLOC_OOM);
    CU_ASSERT_EQUAL(ops->check(st, &err), 0);
    ops->free(st, o1.handle);
    CU_ASSERT_EQUAL(ops->alloc(st, &(alloc_req){100, 0, 4}, &o2), ALLOC_OK);
    CU_ASSERT_EQUAL(o2.addr, 4196); /* at its plan */
    ops->free(st, o3.handle);
    ops->free(st, o2.handle);
    CU_ASSERT_EQUAL(ops->check(st, &err), 0);
    ops->destroy(st);
}

/* Two levels for the runs below: hbm under offline, host under bfc limited to 2 KiB with
 * waits for frees, so an allocation on host can still wait when its transfer comes. */
static const char *const offline_host_cfg =
    "version: 1\ndevice: h100\nmemories:\n  hbm:\n    capacity: 1GiB\n    allocator:\n"
    "      policy: offline\n  host:\n    allocator:\n      policy: bfc\n"
    "      memory_limit: 2048B\n      retry_after_free: true\n";

/* A transfer's into= that the plan holds but that does not happen (its source still waits
 * for frees on host, or its allocation failed) leaves its planned range unused: the later
 * requests keep theirs. Until 2026-11-27 each took the place of the one before it: 5 and 6,
 * both live, were placed at 0 (--check: overlap), and with 5 of another size it ran out of
 * memory where best_fit serves it. */
static void test_plan_into_not_made(void)
{
    const char *cfg = tu_write("offline_host.yaml", offline_host_cfg);
    const char *t3 = tu_write("into_waits.trace",
        "amsim-trace v1\n"
        "alloc 1 2048 level=host\n"
        "alloc 2 1024 level=host\n"                  /* waits for frees */
        "transfer host hbm 1024 into=3 id=2\n"       /* does not happen: 3 never requested */
        "free 3\n"
        "alloc 5 1024 level=hbm\n"
        "alloc 6 1024 level=hbm\n"
        "free 1\nfree 5\nfree 6\nfree 2\n");
    const char *t1 = tu_write("into_waits2.trace",
        "amsim-trace v1\n"
        "alloc 1 2048 level=host\n"
        "alloc 2 1024 level=host\n"
        "transfer host hbm 1024 into=3 id=2\n"
        "alloc 5 4096 level=hbm\n"
        "free 1\nfree 5\nfree 2\nfree 3\n");
    const char *t2 = tu_write("into_failed.trace",
        "amsim-trace v1\n"
        "alloc 1 1000 level=host\n"                  /* out of memory in 500 B */
        "transfer host hbm 1000 into=3 id=1 stream=1\n"
        "alloc 4 2000 level=hbm\n"
        "alloc 5 100 level=hbm\n"
        "free 4\nfree 5\nfree 3\nfree 1\n");
    char args[2048], place[600];
    snprintf(place, sizeof place, "%s/into_waits.csv", tu_tmpdir());
    snprintf(args, sizeof args, "run -q --check -c %s -t %s --placements %s", cfg, t3, place);
    char *j = run_json(args, "into_waits.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    CU_ASSERT_EQUAL(json_u64_after(j, "ooms"), 0); /* hbm's */
    CU_ASSERT_EQUAL(json_u64_after(j, "plan_buffers"), 3);
    CU_ASSERT_EQUAL(json_u64_after(j, "plan_mismatches"), 0);
    CU_ASSERT(has_row(place, "4,5,hbm,0,1024,1024,ok"));
    CU_ASSERT(has_row(place, "5,6,hbm,1024,1024,1024,ok"));
    free(j);
    snprintf(args, sizeof args, "run -q --check -c %s -t %s", cfg, t1);
    j = run_json(args, "into_waits2.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    CU_ASSERT_EQUAL(json_u64_after(j, "ooms"), 0);
    CU_ASSERT_EQUAL(json_u64_after(j, "allocs"), 1);
    free(j);
    snprintf(args, sizeof args, "run -q --check -c %s -t %s --set memories.host.capacity=500B",
             cfg, t2);
    j = run_json(args, "into_failed.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    CU_ASSERT_EQUAL(json_u64_after(j, "ooms"), 0);
    CU_ASSERT_EQUAL(json_u64_after(j, "allocs"), 2);
    CU_ASSERT_EQUAL(json_u64_after(j, "plan_mismatches"), 0);
    free(j);
}

/* The prepass skips what the engine skips (--lenient), planning nothing and ending no
 * lifetime there: a free_completed without its free_requested (1 stays live to its free), a
 * transfer from an unknown id (its into= 3 is never requested), a transfer from an id that has
 * no memory at any capacity (4, over 4 EiB, and 3: into= 6 and 7 never requested), a 0-byte
 * allocation. Until 2026-11-27 1's lifetime ended at the skipped free_completed and 3, 6 and 7
 * were planned. */
static void test_prepass_skips(void)
{
    const char *p = tu_write("skips.trace",
        "amsim-trace v1\n"
        "alloc 1 1000\n"                             /* 0 */
        "free_completed 1\n"                         /* 1: skipped */
        "transfer host hbm 1000 into=3 id=99\n"      /* 2: skipped, 3 known without memory */
        "alloc 4 5764607523034234880 level=host\n"   /* 3: out of memory at any capacity */
        "transfer host hbm 100 into=6 id=4\n"        /* 4: its source has no memory */
        "transfer hbm hbm 100 into=7 id=3\n"         /* 5: likewise */
        "alloc 8 0\n"                                /* 6: skipped */
        "alloc 2 1000\n"                             /* 7 */
        "free 2\nfree 1\nfree 3\nfree 4\nfree 6\nfree 7\n");
    static const char *const names[] = {"hbm", "host"};
    trace_opts o = {names, 2, 0, 0, AM_PS_PER_NS, 0};
    plan_buf *per[2] = {NULL, NULL};
    size_t counts[2] = {0, 0};
    am_error err = {0};
    int rc = prepass_collect(p, &o, NULL, 2, per, counts, &err);
    if (rc)
        fprintf(stderr, "\nprepass: %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL_FATAL(counts[0], 2);
    CU_ASSERT_EQUAL(counts[1], 0);
    CU_ASSERT(per[0][0].start == 0 && per[0][0].end == 9); /* 1, to its free */
    CU_ASSERT(per[0][1].start == 7 && per[0][1].end == 8); /* 2 */
    free(per[0]);
    free(per[1]);
}

/* Runs with --lenient whose skipped events the plan used to count: a free_completed without
 * free_requested left buffer 1 live where the plan had ended it (1 and 2 both at 0, 200 %
 * utilization, mincap 1000 B below the 2000 B peak live), a transfer from an unknown id had
 * its into= planned (the next request took its place), and a skipped `use` made the engine's
 * event count fall one short of the trace's, so every later request was another's. Placements
 * never overlap (--check), and mincap's answer is never below peak live. */
static void test_lenient_skips(void)
{
    const char *cfg = tu_write("offline_lenient.yaml",
        "version: 1\ndevice: h100\nmemories:\n  hbm:\n    capacity: 1GiB\n    allocator:\n"
        "      policy: offline\n");
    static const struct {
        const char *name, *trace;
        uint64_t allocs, plan, height;
    } c[] = {
        {"fc", "alloc 1 1000\nfree_completed 1\nalloc 2 1000\nfree 2\nfree 1\n", 2, 2, 2000},
        {"l3", "transfer host hbm 1000 into=3 id=99\nalloc 5 2000 level=hbm\nfree 5\nfree 3\n",
         1, 1, 2000},
        {"l4", "transfer host hbm 1000 into=3 id=99\nfree 3\nalloc 5 1000\nalloc 6 1000\n"
               "free 5\nfree 6\n", 2, 2, 2000},
        {"use", "alloc 1 1000\nuse 88\nalloc 2 1000\nfree 1\nfree 2\n", 2, 2, 2000},
    };
    for (size_t k = 0; k < AM_ARRAY_LEN(c); k++) {
        char text[512], name[64], args[2048];
        snprintf(text, sizeof text, "amsim-trace v1\n%s", c[k].trace);
        snprintf(name, sizeof name, "lenient_%s.trace", c[k].name);
        const char *t = tu_write(name, text);
        snprintf(args, sizeof args, "run -q --check --lenient -c %s -t %s", cfg, t);
        snprintf(name, sizeof name, "lenient_%s.json", c[k].name);
        char *j = run_json(args, name);
        CU_ASSERT_PTR_NOT_NULL_FATAL(j);
        CU_ASSERT_EQUAL(json_u64_after(j, "allocs"), c[k].allocs);
        CU_ASSERT_EQUAL(json_u64_after(j, "ooms"), 0);
        CU_ASSERT_EQUAL(json_u64_after(j, "plan_buffers"), c[k].plan);
        CU_ASSERT_EQUAL(json_u64_after(j, "plan_height_bytes"), c[k].height);
        CU_ASSERT_EQUAL(json_u64_after(j, "plan_mismatches"), 0);
        CU_ASSERT_EQUAL(json_u64_after(j, "peak_reserved_bytes"),
                        json_u64_after(j, "peak_live_bytes"));
        free(j);
        snprintf(args, sizeof args, "mincap -q --lenient -c %s -t %s --policies offline "
                 "--granularity 1B", cfg, t);
        snprintf(name, sizeof name, "lenient_%s_mincap.json", c[k].name);
        j = run_json(args, name);
        CU_ASSERT_PTR_NOT_NULL_FATAL(j);
        uint64_t live = json_u64_after(j, "peak_live_bytes");
        CU_ASSERT_EQUAL(live, c[k].height);
        CU_ASSERT_EQUAL(json_u64_after(j, "min_bytes"), live);
        free(j);
    }
}

void suite_offline(void)
{
    TU_SUITE("offline",
             {"peak live bytes", test_peak_live},
             {"greedy best fit offsets", test_greedy_offsets},
             {"verify catches overlaps", test_verify},
             {"greedy on MiniMalloc A", test_greedy_minimalloc},
             {"greedy against its O(n^2) definition", test_greedy_reference},
             {"greedy shortcuts against the O(n^2) definition", test_greedy_shortcuts_reference},
             {"greedy with many buffers live together", test_greedy_many_live},
             {"verify against its full scan", test_verify_reference},
             {"greedy: size ties by lifetime in trace time", test_greedy_ties_trace_time},
             {"exact search: small and infeasible", test_optimal_small},
             {"exact search: MiniMalloc challenging A-K in 1 MiB", test_optimal_minimalloc},
             {"exact search: a floor's re-check looks only at members apart from the placed one",
              test_recheck_looks_apart},
             {"exact search: a work budget stops it alike every time", test_budget_deterministic},
             {"exact search: a set too large for its tables", test_too_large},
             {"exact search: tables built once, charged per search", test_tables_once},
             {"exact search: a budget below the tables' cost builds none",
              test_budget_below_tables},
             {"exact search: many independent parts", test_search_many_parts},
             {"exact search: memory bounded whatever the budget", test_search_memory_bounded},
             {"prepass lifetimes", test_prepass},
             {"offline policy end to end", test_end_to_end},
             {"offline policy: every request the engine makes", test_engine_requests},
             {"offline policy: search_budget from the config", test_budget_config},
             {"offline policy without a plan", test_no_plan},
             {"offline policy: planned sizes past 2^64", test_sizes_overflow},
             {"offline policy: requests no policy is asked for are not planned",
              test_unasked_requests},
             {"offline policy: requests found by event, never over a live block",
              test_plan_fallback},
             {"offline policy: an into= planned but not made leaves its range unused",
              test_plan_into_not_made},
             {"prepass skips what the engine skips", test_prepass_skips},
             {"offline policy: --lenient skips leave the plan whole", test_lenient_skips});
}
