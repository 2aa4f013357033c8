/* test_caching.c - the PyTorch caching allocator (allocators.md section 3), rule by rule with
 * exact addresses, and the two shared snapshots replayed at their recorded addresses. The
 * policy runs under the real memory level (first fit from 0; recorded-segment hints). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/alloc.h"
#include "../../models/memory.h"
#include "../../sim/trace_impl.h"
#include "testutil.h"

#define MiB (1ULL << 20)

const struct alloc_ops *alloc_caching_ops(void);

/* ---- options through the policy's own table ---- */

typedef struct copt { const char *key; uint64_t u; double d; } copt;

static void *make_opts(const copt *set, size_t n)
{
    const struct alloc_ops *ops = alloc_caching_ops();
    char *o = calloc(1, ops->opts_size);
    /* defaults of section 3 */
    const copt defs[] = {{"max_split_size", UINT64_MAX, 0},
                         {"max_non_split_rounding", 20 * MiB, 0}};
    for (int pass = 0; pass < 2; pass++) {
        const copt *v = pass ? set : defs;
        size_t m = pass ? n : AM_ARRAY_LEN(defs);
        for (size_t i = 0; i < m; i++) {
            const opt_desc *d = ops->opts;
            while (d->key && strcmp(d->key, v[i].key) != 0)
                d++;
            CU_ASSERT_PTR_NOT_NULL_FATAL(d->key);
            switch (d->type) {
            case OPT_BOOL:
            case OPT_ENUM: *(int *)(o + d->offset) = (int)v[i].u; break;
            case OPT_FRACTION:
            case OPT_REAL: *(double *)(o + d->offset) = v[i].d; break;
            case OPT_UINT_LIST:
                *(uint64_t *)(o + d->offset) = v[i].u;
                *(size_t *)(o + d->count_offset) = 1;
                break;
            default: *(uint64_t *)(o + d->offset) = v[i].u; break;
            }
        }
    }
    return o;
}

typedef struct fx {
    mem_level *m;
    void *opts;
} fx;

static void fx_open(fx *f, uint64_t capacity, int recorded, const copt *set, size_t n)
{
    f->opts = make_opts(set, n);
    mem_params p = {.name = "hbm", .capacity = capacity, .granularity = 1,
                    .policy = alloc_caching_ops(), .policy_opts = f->opts,
                    .recorded_addresses = recorded};
    am_error err = {0};
    CU_ASSERT_EQUAL_FATAL(mem_create(&f->m, &p, &err), 0);
}

static void fx_check(fx *f)
{
    am_error err = {0};
    int bad = mem_check(f->m, &err);
    if (bad)
        printf("\ncheck: %s\n", err.msg);
    CU_ASSERT_EQUAL(bad, 0);
}

static void fx_close(fx *f)
{
    mem_destroy(f->m);
    free(f->opts);
}

/* Allocate and return the address (UINT64_MAX on OOM); *out receives the block. */
static uint64_t al(fx *f, uint64_t bytes, uint32_t stream, alloc_out *out)
{
    alloc_req r = {bytes, stream, 0};
    alloc_out o = {0};
    int rc = mem_alloc(f->m, &r, &o);
    fx_check(f);
    if (out)
        *out = o;
    return rc == ALLOC_OK ? o.addr : UINT64_MAX;
}

static void fr(fx *f, const alloc_out *o, uint64_t bytes)
{
    mem_free(f->m, o->handle, bytes, o->size, 0);
    fx_check(f);
}

/* A policy statistic by name (current value; peak into *peak). */
typedef struct statq { const char *name; uint64_t cur, peak; int found; } statq;
static void sq_u64(void *ctx, const char *name, uint64_t v)
{
    statq *q = ctx;
    if (strcmp(q->name, name) == 0) {
        q->cur = q->peak = v;
        q->found = 1;
    }
}
static void sq_cp(void *ctx, const char *name, uint64_t c, uint64_t p)
{
    statq *q = ctx;
    if (strcmp(q->name, name) == 0) {
        q->cur = c;
        q->peak = p;
        q->found = 1;
    }
}
static void sq_real(void *ctx, const char *name, double v, int is_null) {}

static uint64_t stat(fx *f, const char *name)
{
    statq q = {name, 0, 0, 0};
    stat_sink k = {&q, sq_u64, sq_cp, sq_real};
    alloc_caching_ops()->stats(mem_policy_state(f->m), &k);
    CU_ASSERT(q.found);
    return q.cur;
}

/* A policy statistic's peak (a plain value's own value). */
static uint64_t stat_peak(fx *f, const char *name)
{
    statq q = {name, 0, 0, 0};
    stat_sink k = {&q, sq_u64, sq_cp, sq_real};
    alloc_caching_ops()->stats(mem_policy_state(f->m), &k);
    CU_ASSERT(q.found);
    return q.peak;
}

/* ---- rules of section 3 ---- */

static void test_rounding(void)
{
    fx f;
    alloc_out o;
    fx_open(&f, 1ULL << 30, 0, NULL, 0);
    CU_ASSERT_EQUAL(al(&f, 1, 0, &o), 0);
    CU_ASSERT_EQUAL(o.size, 512);
    CU_ASSERT_EQUAL(al(&f, 513, 0, &o), 512);
    CU_ASSERT_EQUAL(o.size, 1024);
    CU_ASSERT_EQUAL(al(&f, 1363148, 0, &o), 2 * MiB); /* large pool: a new 20 MiB segment */
    CU_ASSERT_EQUAL(o.size, 1363456);                 /* 512 rounding only */
    fx_close(&f);

    copt d4[] = {{"roundup_power2_divisions", 4, 0}};
    fx_open(&f, 1ULL << 30, 0, d4, 1);
    al(&f, 1363148, 0, &o); /* 1 MiB interval in 4 steps of 256 KiB */
    CU_ASSERT_EQUAL(o.size, 1572864);
    al(&f, 2 * MiB, 0, &o); /* a power of two stays */
    CU_ASSERT_EQUAL(o.size, 2 * MiB);
    al(&f, 1500, 0, &o); /* not above 512 * divisions: 512 rounding */
    CU_ASSERT_EQUAL(o.size, 1536);
    al(&f, 3000, 0, &o); /* 2 KiB interval in 4 steps of 512 */
    CU_ASSERT_EQUAL(o.size, 3072);
    al(&f, 5 * MiB + 1, 0, &o); /* 4 MiB interval, 1 MiB steps */
    CU_ASSERT_EQUAL(o.size, 6 * MiB);
    fx_close(&f);

    /* the most divisions PyTorch's parser takes, 2^30: a 16 GiB interval in steps of 16 bytes
     * rounds to 512 (only requests above 512 * 2^30 bytes, 512 GiB, use the steps) */
    copt dmax[] = {{"roundup_power2_divisions", 1ULL << 30, 0}};
    fx_open(&f, 1ULL << 40, 0, dmax, 1);
    al(&f, (16ULL << 30) + 1, 0, &o);
    CU_ASSERT_EQUAL(o.size, (16ULL << 30) + 512);
    fx_close(&f);
}

static void test_pools_and_segments(void)
{
    fx f;
    alloc_out o;
    fx_open(&f, 1ULL << 30, 0, NULL, 0);
    const mem_metrics *mm = mem_get_metrics(f.m);
    CU_ASSERT_EQUAL(al(&f, MiB, 0, &o), 0); /* small pool: 2 MiB segment */
    CU_ASSERT_EQUAL(mm->reserved_bytes, 2 * MiB);
    CU_ASSERT_EQUAL(al(&f, MiB + 1, 0, &o), 2 * MiB); /* large: 20 MiB segment */
    CU_ASSERT_EQUAL(mm->reserved_bytes, 22 * MiB);
    /* other streams, so that each request needs a new segment */
    CU_ASSERT_EQUAL(al(&f, 10 * MiB, 1, &o), 22 * MiB); /* exactly 10 MiB: its own size */
    CU_ASSERT_EQUAL(mm->reserved_bytes, 32 * MiB);
    CU_ASSERT_EQUAL(al(&f, 11 * MiB, 2, &o), 32 * MiB); /* rounded up to 2 MiB */
    CU_ASSERT_EQUAL(mm->reserved_bytes, 44 * MiB);
    CU_ASSERT_EQUAL(al(&f, 10 * MiB - 512, 3, &o), 44 * MiB); /* under 10 MiB: 20 MiB */
    CU_ASSERT_EQUAL(mm->reserved_bytes, 64 * MiB);
    CU_ASSERT_EQUAL(stat(&f, "segment"), 5);
    CU_ASSERT_EQUAL(stat(&f, "num_device_alloc"), 5);
    fx_close(&f);
}

static void test_best_fit(void)
{
    fx f;
    alloc_out a[6], o;
    fx_open(&f, 1ULL << 30, 0, NULL, 0);
    const uint64_t sz[6] = {8192, 512, 4096, 512, 4096, 512};
    uint64_t at = 0;
    for (int i = 0; i < 6; i++) {
        CU_ASSERT_EQUAL(al(&f, sz[i], 0, &a[i]), at);
        at += sz[i];
    }
    fr(&f, &a[0], 8192);
    fr(&f, &a[2], 4096);
    fr(&f, &a[4], 4096);
    CU_ASSERT_EQUAL(al(&f, 4000, 0, &o), 8704);  /* smallest fit, lowest address */
    CU_ASSERT_EQUAL(al(&f, 4096, 0, &o), 13312); /* the other 4 KiB block */
    CU_ASSERT_EQUAL(al(&f, 5000, 0, &o), 0);     /* 8 KiB block, split */
    CU_ASSERT_EQUAL(al(&f, 3072, 0, &o), 5120);  /* its remainder (3 KiB) */
    /* another stream never takes stream 0's blocks */
    CU_ASSERT_EQUAL(al(&f, 512, 1, &o), 2 * MiB);
    fx_close(&f);
}

static void test_oversize(void)
{
    fx f;
    alloc_out a, b, c, d;
    copt mss[] = {{"max_split_size", 24 * MiB, 0}};
    fx_open(&f, 1ULL << 30, 0, mss, 1);
    CU_ASSERT_EQUAL(al(&f, 50 * MiB, 0, &a), 0);
    fr(&f, &a, 50 * MiB);
    /* request under max_split_size refuses a block at or above it */
    CU_ASSERT_EQUAL(al(&f, 12 * MiB, 0, &b), 50 * MiB);
    /* oversize request refuses a block 20 MiB (max_non_split_rounding) or more larger */
    CU_ASSERT_EQUAL(al(&f, 25 * MiB, 0, &c), 62 * MiB);
    CU_ASSERT_EQUAL(c.size, 26 * MiB);
    fr(&f, &c, 25 * MiB);
    /* 31 MiB takes the 50 MiB block whole (19 MiB more, and oversize blocks never split) */
    CU_ASSERT_EQUAL(al(&f, 31 * MiB, 0, &d), 0);
    CU_ASSERT_EQUAL(d.size, 50 * MiB);
    fx_close(&f);

    /* a rounding near 2^64: no cached block is ever too large (until 2026-11-27 the request
     * plus the rounding wrapped, and a 128 MiB block was refused to a 64 MiB request) */
    copt huge[] = {{"max_split_size", 32 * MiB, 0}, {"max_non_split_rounding", ~0ULL - 64 * MiB, 0}};
    fx_open(&f, 1ULL << 30, 0, huge, 2);
    CU_ASSERT_EQUAL(al(&f, 128 * MiB, 0, &a), 0);
    fr(&f, &a, 128 * MiB);
    CU_ASSERT_EQUAL(al(&f, 64 * MiB, 0, &b), 0);
    CU_ASSERT_EQUAL(b.size, 128 * MiB);
    fx_close(&f);
}

static void test_split_rules(void)
{
    fx f;
    alloc_out o;
    fx_open(&f, 1ULL << 30, 0, NULL, 0);
    CU_ASSERT_EQUAL(al(&f, 2 * MiB, 0, &o), 0); /* large: remainder 18 MiB > 1 MiB splits */
    CU_ASSERT_EQUAL(o.size, 2 * MiB);
    CU_ASSERT_EQUAL(al(&f, 17 * MiB + MiB / 2, 0, &o), 2 * MiB);
    CU_ASSERT_EQUAL(o.size, 18 * MiB); /* remainder 512 KiB <= 1 MiB stays inside */
    CU_ASSERT_EQUAL(al(&f, MiB, 0, &o), 20 * MiB); /* small: 512-byte rule */
    CU_ASSERT_EQUAL(o.size, MiB);
    CU_ASSERT_EQUAL(al(&f, MiB - 512, 0, &o), 21 * MiB);
    CU_ASSERT_EQUAL(o.size, MiB - 512);
    CU_ASSERT_EQUAL(al(&f, 512, 0, &o), 22 * MiB - 512);
    CU_ASSERT_EQUAL(stat(&f, "inactive_split_bytes"), 0);
    fx_close(&f);
}

static void count_blocks(void *arg, const alloc_block *b) { (*(int *)arg)++; }

static void test_merge_and_two_phase(void)
{
    fx f;
    alloc_out a, b, c, d;
    fx_open(&f, 1ULL << 30, 0, NULL, 0);
    al(&f, 1000, 0, &a);
    al(&f, 512, 0, &b);
    al(&f, 512, 0, &c);
    CU_ASSERT_EQUAL(stat(&f, "allocated_bytes"), 2048);
    CU_ASSERT_EQUAL(stat(&f, "requested_bytes"), 2024);
    /* free_requested: allocated drops now, the block stays active and unusable */
    mem_free_requested(f.m, a.handle, 1000, a.size);
    fx_check(&f);
    CU_ASSERT_EQUAL(stat(&f, "allocated_bytes"), 1024);
    CU_ASSERT_EQUAL(stat(&f, "active_bytes"), 2048);
    CU_ASSERT_EQUAL(al(&f, 1024, 0, &d), 2048);
    mem_free(f.m, a.handle, 1000, a.size, 1);
    fx_check(&f);
    CU_ASSERT_EQUAL(stat(&f, "active_bytes"), 2048);
    /* a's block and the segment's tail are free pieces of a used segment */
    CU_ASSERT_EQUAL(stat(&f, "inactive_split_bytes"), 1024 + 2 * MiB - 3072);
    fr(&f, &c, 512);
    fr(&f, &d, 1024); /* merges with c's block and the tail */
    fr(&f, &b, 512);  /* merges both ways: one free 2 MiB block */
    int n = 0;
    alloc_caching_ops()->walk(mem_policy_state(f.m), count_blocks, &n);
    CU_ASSERT_EQUAL(n, 1);
    CU_ASSERT_EQUAL(mem_largest_free(f.m), 2 * MiB);
    CU_ASSERT_EQUAL(stat(&f, "inactive_split_bytes"), 0);
    fx_close(&f);
}

static void test_miss_sequence(void)
{
    fx f;
    alloc_out a, b, c;
    fx_open(&f, 64 * MiB, 0, NULL, 0);
    al(&f, 30 * MiB, 0, &a);
    fr(&f, &a, 30 * MiB);
    /* 30 + 40 > 64: release the free segment, count a retry, then succeed at 0 */
    CU_ASSERT_EQUAL(al(&f, 40 * MiB, 0, &b), 0);
    CU_ASSERT_EQUAL(stat(&f, "num_alloc_retries"), 1);
    CU_ASSERT_EQUAL(stat(&f, "num_device_free"), 1);
    /* nothing left to release: out of memory after one more retry */
    CU_ASSERT_EQUAL(al(&f, 30 * MiB, 0, &c), UINT64_MAX);
    CU_ASSERT_EQUAL(stat(&f, "num_ooms"), 1);
    CU_ASSERT_EQUAL(stat(&f, "num_alloc_retries"), 2);
    CU_ASSERT_EQUAL(mem_get_metrics(f.m)->ooms, 1);
    fx_close(&f);

    /* max_split_size set: oversize cached blocks go back first, largest first, no retry
     * (above 20 MiB, as PyTorch requires: until 2026-11-27 this ran with 8 MiB, 20 MiB blocks) */
    copt mss[] = {{"max_split_size", 24 * MiB, 0}};
    fx_open(&f, 64 * MiB, 0, mss, 1);
    al(&f, 30 * MiB, 0, &a);
    al(&f, 24 * MiB, 0, &b);
    fr(&f, &a, 30 * MiB);
    fr(&f, &b, 24 * MiB);
    CU_ASSERT_EQUAL(al(&f, 40 * MiB, 0, &c), 0);
    CU_ASSERT_EQUAL(stat(&f, "num_alloc_retries"), 0);
    CU_ASSERT_EQUAL(stat(&f, "num_device_free"), 2);
    fx_close(&f);

    /* device refusals (fault injection) reach the same path */
    fx_open(&f, 1ULL << 30, 0, NULL, 0);
    mem_fail_next_device_allocs(f.m, 2);
    CU_ASSERT_EQUAL(al(&f, 512, 0, &a), UINT64_MAX);
    CU_ASSERT_EQUAL(stat(&f, "num_ooms"), 1);
    CU_ASSERT_EQUAL(al(&f, 512, 0, &a), 0);
    fx_close(&f);
}

/* What the level reports (on_device), one entry a call: segments had and given back, or with
 * expandable segments the maps and unmaps of a virtual range. */
typedef struct devlog {
    int n;
    struct { int map; uint64_t addr, bytes; } e[32];
} devlog;

static void dl_note(void *ctx, int map, uint64_t addr, uint64_t bytes)
{
    devlog *d = ctx;
    if (d->n < (int)AM_ARRAY_LEN(d->e)) {
        d->e[d->n].map = map;
        d->e[d->n].addr = addr;
        d->e[d->n].bytes = bytes;
    }
    d->n++;
}

/* release_cached_blocks gives back every whole free segment, large pool first, streams by
 * number (not by first use), each stream's by (size, address), and keeps the split ones: the
 * order of the pools' free sets, which the whole lists (found without walking the free blocks,
 * since 2026-11-27) are sorted into. The 26 MiB segment is whole again through a merge on free. */
static void test_release_order(void)
{
    fx f;
    devlog dl = {0};
    alloc_out a, b, s5, g, c, d, e, s2, fo, h, x, big;
    f.opts = make_opts(NULL, 0);
    mem_params p = {.name = "hbm", .capacity = 1ULL << 30, .granularity = 1,
                    .policy = alloc_caching_ops(), .policy_opts = f.opts, .on_device = dl_note,
                    .on_device_ctx = &dl};
    am_error err = {0};
    CU_ASSERT_EQUAL_FATAL(mem_create(&f.m, &p, &err), 0);
    CU_ASSERT_EQUAL(al(&f, 30 * MiB, 5, &a), 0);
    CU_ASSERT_EQUAL(al(&f, 22 * MiB, 5, &b), 30 * MiB);
    CU_ASSERT_EQUAL(al(&f, MiB, 5, &s5), 52 * MiB); /* small pool: 2 MiB */
    CU_ASSERT_EQUAL(al(&f, 40 * MiB, 2, &c), 54 * MiB);
    CU_ASSERT_EQUAL(al(&f, 20 * MiB, 2, &d), 94 * MiB);
    CU_ASSERT_EQUAL(al(&f, 26 * MiB, 2, &e), 114 * MiB);
    CU_ASSERT_EQUAL(al(&f, 512, 2, &s2), 140 * MiB);
    CU_ASSERT_EQUAL(al(&f, 22 * MiB, 2, &fo), 142 * MiB);
    CU_ASSERT_EQUAL(al(&f, 22 * MiB, 5, &g), 164 * MiB);
    fr(&f, &a, 30 * MiB);
    fr(&f, &b, 22 * MiB);
    fr(&f, &g, 22 * MiB);
    fr(&f, &s5, MiB);
    fr(&f, &c, 40 * MiB);
    fr(&f, &s2, 512);
    fr(&f, &fo, 22 * MiB);
    fr(&f, &d, 20 * MiB);
    CU_ASSERT_EQUAL(al(&f, 5 * MiB, 2, &h), 94 * MiB); /* splits the 20 MiB segment, kept */
    fr(&f, &e, 26 * MiB);
    CU_ASSERT_EQUAL(al(&f, 24 * MiB, 2, &x), 114 * MiB); /* splits the 26 MiB one ... */
    fr(&f, &x, 24 * MiB);                                /* ... whole again */
    const int had = dl.n; /* the segments had so far, none given back */
    for (int i = 0; i < had; i++)
        CU_ASSERT(dl.e[i].map);
    /* 1010 MiB does not fit beside anything: every whole segment goes, then out of memory */
    CU_ASSERT_EQUAL(al(&f, 1010 * MiB, 0, &big), UINT64_MAX);
    static const uint64_t at[] = {142, 114, 54, 30, 164, 0, 140, 52};
    static const uint64_t len[] = {22, 26, 40, 22, 22, 30, 2, 2};
    CU_ASSERT_FATAL(dl.n <= (int)AM_ARRAY_LEN(dl.e));
    size_t nfree = 0; /* the device frees, in order */
    for (int i = 0; i < dl.n; i++) {
        if (dl.e[i].map)
            continue;
        if (nfree < AM_ARRAY_LEN(at)) {
            CU_ASSERT_EQUAL(dl.e[i].addr, at[nfree] * MiB);
            CU_ASSERT_EQUAL(dl.e[i].bytes, len[nfree] * MiB);
        }
        nfree++;
    }
    CU_ASSERT_EQUAL(nfree, AM_ARRAY_LEN(at));
    CU_ASSERT_EQUAL(stat(&f, "segment"), 1); /* the split 20 MiB one */
    CU_ASSERT_EQUAL(stat(&f, "num_ooms"), 1);
    fx_close(&f);
}

/* Seeded allocations and frees on five streams of both pools, on a device small enough that
 * misses release cached segments (oversize ones too, max_split_size set), invariants checked
 * after every step: among them that the whole lists hold exactly the free whole segments. */
static void test_release_stress(void)
{
    fx f;
    copt mss[] = {{"max_split_size", 48 * MiB, 0}};
    fx_open(&f, 384 * MiB, 0, mss, 1);
    enum { N = 96 };
    static const uint32_t streams[] = {9, 0, 4, 1000, 2};
    alloc_out live[N];
    uint64_t bytes[N] = {0};
    uint64_t seed = 2718281828ULL, fails = 0, served = 0;
    for (int step = 0; step < 5000; step++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        int k = (int)((seed >> 33) % N);
        if (bytes[k]) {
            fr(&f, &live[k], bytes[k]);
            bytes[k] = 0;
            continue;
        }
        uint64_t r = seed >> 40;
        uint64_t b = r % 3 == 0 ? 512 + (seed >> 20) % MiB
                   : r % 3 == 1 ? MiB + (seed >> 16) % (12 * MiB)
                                : 12 * MiB + (seed >> 14) % (80 * MiB);
        if (al(&f, b, streams[(seed >> 24) % AM_ARRAY_LEN(streams)], &live[k]) != UINT64_MAX) {
            bytes[k] = b;
            served++;
        } else {
            fails++;
        }
    }
    CU_ASSERT(fails > 0 && served > fails); /* both paths ran */
    CU_ASSERT(stat(&f, "num_device_free") > 0);
    for (int k = 0; k < N; k++)
        if (bytes[k])
            fr(&f, &live[k], bytes[k]);
    CU_ASSERT_EQUAL(mem_get_metrics(f.m)->allocated_bytes, 0);
    fx_close(&f);
}

/* Segment bytes of the test below: even MiB from 22 MiB (no rounding up to 2 MiB). */
static uint64_t seg_of(uint32_t i, uint32_t n) { return (2 * (uint64_t)(n - i) + 20) * MiB; }

/* The largest free block over every pool and stream, asked after every change as the
 * fragmentation metric does: since 2026-11-27 each (pool, stream)'s largest is bounded by a
 * leaf of a max-tree, lowered when a recount finds it stale (check() verifies the tree after
 * every step).
 * 40 streams each cache one segment, larger for lower stream numbers; taking them largest first
 * walks the figure down stream by stream, and freeing one puts it back. */
static void test_largest_over_streams(void)
{
    fx f;
    enum { NS = 40 };
    alloc_out o[NS], sm, x;
    fx_open(&f, 4ULL << 30, 0, NULL, 0);
    CU_ASSERT_EQUAL(mem_largest_free(f.m), 0);
    CU_ASSERT_EQUAL(al(&f, 512, 5000, &sm), 0); /* a small-pool segment, 2 MiB cached */
    CU_ASSERT_EQUAL(mem_largest_free(f.m), 2 * MiB - 512);
    for (uint32_t i = 0; i < NS; i++) /* streams numbered backwards: slots out of order */
        al(&f, seg_of(i, NS), 3 * (NS - i), &o[i]);
    for (uint32_t i = 0; i < NS; i++)
        fr(&f, &o[i], seg_of(i, NS));
    CU_ASSERT_EQUAL(mem_largest_free(f.m), seg_of(0, NS));
    for (uint32_t i = 0; i < NS; i++) {
        /* the largest cached segment, taken whole on its own stream */
        CU_ASSERT_EQUAL(mem_largest_free(f.m), seg_of(i, NS));
        al(&f, seg_of(i, NS), 3 * (NS - i), &o[i]);
    }
    CU_ASSERT_EQUAL(mem_largest_free(f.m), 2 * MiB - 512);
    fr(&f, &o[NS / 2], seg_of(NS / 2, NS));
    CU_ASSERT_EQUAL(mem_largest_free(f.m), seg_of(NS / 2, NS));
    CU_ASSERT_EQUAL(al(&f, 5 * MiB, 3 * (NS - NS / 2), &x), o[NS / 2].addr); /* split */
    CU_ASSERT_EQUAL(mem_largest_free(f.m), seg_of(NS / 2, NS) - 5 * MiB);
    fr(&f, &x, 5 * MiB); /* merged whole again */
    CU_ASSERT_EQUAL(mem_largest_free(f.m), seg_of(NS / 2, NS));
    fr(&f, &sm, 512);
    CU_ASSERT_EQUAL(mem_largest_free(f.m), seg_of(NS / 2, NS));
    fx_close(&f);
}

/* research_after_release (allocators.md section 3: PyTorch does not search the pool again after
 * releasing the cached segments; keep that, behind an option) searches again, and finds what
 * the search before the release found: the release only takes free blocks out of the pools,
 * and a pending free completes when the trace says so, not at the release (README, Not yet
 * supported). Here a 30 MiB block's free is pending and a cached 10 MiB segment is free when
 * 40 MiB misses on 64 MiB: with the option on or off, the segment goes, one retry, and the
 * request fails; once the pending free has completed, the next try releases its segment too
 * and takes 40 MiB at 0. */
static void test_research_after_release(void)
{
    for (int on = 0; on <= 1; on++) {
        copt ra[] = {{"research_after_release", (uint64_t)on, 0}};
        fx f;
        alloc_out a, b, c;
        fx_open(&f, 64 * MiB, 0, ra, 1);
        CU_ASSERT_EQUAL(al(&f, 30 * MiB, 0, &a), 0);
        CU_ASSERT_EQUAL(al(&f, 10 * MiB, 0, &b), 30 * MiB);
        mem_free_requested(f.m, a.handle, 30 * MiB, a.size);
        fr(&f, &b, 10 * MiB);
        CU_ASSERT_EQUAL(al(&f, 40 * MiB, 0, &c), UINT64_MAX);
        CU_ASSERT_EQUAL(stat(&f, "num_alloc_retries"), 1);
        CU_ASSERT_EQUAL(stat(&f, "num_device_free"), 1);
        CU_ASSERT_EQUAL(stat(&f, "num_ooms"), 1);
        mem_free(f.m, a.handle, 30 * MiB, a.size, 1);
        fx_check(&f);
        CU_ASSERT_EQUAL(al(&f, 40 * MiB, 0, &c), 0);
        CU_ASSERT_EQUAL(stat(&f, "num_alloc_retries"), 2);
        CU_ASSERT_EQUAL(stat(&f, "num_device_free"), 2);
        fx_close(&f);
    }
}

/* Values PyTorch's config parser refuses are refused at load (check_opts): max_split_size at or
 * below 20 MiB, garbage_collection_threshold of 1; the unset spellings (unlimited, 0) pass. */
static void test_pytorch_option_rules(void)
{
    static const struct {
        copt set[2];
        size_t n;
        int ok;
    } cases[] = {
        {{{"max_split_size", 20 * MiB, 0}}, 1, 0},
        {{{"max_split_size", 0, 0}}, 1, 0},
        {{{"max_split_size", 20 * MiB + 1, 0}}, 1, 1},
        {{{"max_split_size", UINT64_MAX, 0}}, 1, 1},
        {{{"memory_fraction", 0, 0.5}, {"garbage_collection_threshold", 0, 1.0}}, 2, 0},
        {{{"memory_fraction", 0, 0.5}, {"garbage_collection_threshold", 0, 0.999}}, 2, 1},
        {{{"garbage_collection_threshold", 0, 0.0}}, 1, 1},
        /* std::stoi: at most 2^30 (until 2026-11-27 up to 2^63, whose rounding overflowed) */
        {{{"roundup_power2_divisions", 1ULL << 30, 0}}, 1, 1},
        {{{"roundup_power2_divisions", 1ULL << 31, 0}}, 1, 0},
        {{{"roundup_power2_divisions", 1ULL << 62, 0}}, 1, 0},
    };
    for (size_t i = 0; i < AM_ARRAY_LEN(cases); i++) {
        void *o = make_opts(cases[i].set, cases[i].n);
        am_error err = {0};
        alloc_env env = {.capacity = 80ULL << 30, .granularity = 1};
        int rc = alloc_caching_ops()->check_opts(o, &env, &err);
        CU_ASSERT_EQUAL(rc, cases[i].ok ? 0 : -1);
        if (!cases[i].ok)
            CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "PyTorch"));
        free(o);
    }
}

static void test_memory_fraction_and_gc(void)
{
    fx f;
    alloc_out a, b, c;
    copt frac[] = {{"memory_fraction", 0, 0.5}};
    fx_open(&f, 100 * MiB, 0, frac, 1);
    CU_ASSERT_EQUAL(al(&f, 40 * MiB, 0, &a), 0);
    CU_ASSERT_EQUAL(al(&f, 12 * MiB, 0, &b), UINT64_MAX); /* 40 + 12 > 50 */
    fx_close(&f);

    copt gc[] = {{"memory_fraction", 0, 0.5}, {"garbage_collection_threshold", 0, 0.5}};
    fx_open(&f, 100 * MiB, 0, gc, 2);
    CU_ASSERT_EQUAL(al(&f, 20 * MiB, 0, &a), 0);
    fr(&f, &a, 20 * MiB); /* entered the pool after 1 lookup */
    CU_ASSERT_EQUAL(al(&f, 22 * MiB, 0, &b), 20 * MiB);
    fr(&f, &b, 22 * MiB); /* after 2 lookups */
    /* 3rd lookup misses; reserved 42 > 25 MiB: ages 2 and 1, average 1.5: the 20 MiB block
     * goes, which reclaims enough; the new 24 MiB segment goes first fit at 42 MiB */
    CU_ASSERT_EQUAL(al(&f, 24 * MiB, 0, &c), 42 * MiB);
    CU_ASSERT_EQUAL(stat(&f, "num_device_free"), 1);
    CU_ASSERT_EQUAL(stat(&f, "reserved_bytes"), 46 * MiB);
    fx_close(&f);
}

static void test_expandable(void)
{
    fx f;
    alloc_out a, b, c, d;
    const uint64_t va = 1ULL << 56, large = va + (1ULL << 40);
    copt ex[] = {{"expandable_segments", 1, 0}};
    fx_open(&f, 64 * MiB, 0, ex, 1);
    const mem_metrics *mm = mem_get_metrics(f.m);
    CU_ASSERT_EQUAL(al(&f, MiB, 0, &a), va); /* one 2 MiB page of the small range */
    CU_ASSERT_EQUAL(mm->reserved_bytes, 2 * MiB);
    CU_ASSERT_EQUAL(al(&f, 3 * MiB, 0, &b), large); /* one 20 MiB page of the large range */
    CU_ASSERT_EQUAL(mm->reserved_bytes, 22 * MiB);
    /* 30 MiB: the free 17 MiB tail grows by one more page; 512-byte split rule */
    CU_ASSERT_EQUAL(al(&f, 30 * MiB, 0, &c), large + 3 * MiB);
    CU_ASSERT_EQUAL(c.size, 30 * MiB);
    CU_ASSERT_EQUAL(mm->reserved_bytes, 42 * MiB);
    fr(&f, &c, 30 * MiB);
    /* 100 MiB exceeds the range: release unmaps the free whole page [20, 40) MiB, then OOM */
    CU_ASSERT_EQUAL(al(&f, 100 * MiB, 0, &d), UINT64_MAX);
    CU_ASSERT_EQUAL(mm->reserved_bytes, 22 * MiB);
    CU_ASSERT_EQUAL(stat(&f, "reserved_bytes"), 22 * MiB);
    CU_ASSERT_EQUAL(stat(&f, "num_ooms"), 1);
    /* mapping again reuses the lowest address */
    CU_ASSERT_EQUAL(al(&f, 30 * MiB, 0, &c), large + 3 * MiB);
    fx_close(&f);
}

/* A capacity under 8 B still reserves a virtual range of one page (9/8 of the capacity rounded
 * up to whole pages, at least one), so a request runs out of memory cleanly as from 8 B up: until
 * 2026-11-27 the range was 0 B and the empty segment broke the tiling invariant (al checks it). */
static void test_expandable_tiny_capacity(void)
{
    copt ex[] = {{"expandable_segments", 1, 0}};
    const uint64_t caps[] = {1, 7, 8, 511};
    for (size_t i = 0; i < AM_ARRAY_LEN(caps); i++) {
        fx f;
        alloc_out a;
        fx_open(&f, caps[i], 0, ex, 1);
        CU_ASSERT_EQUAL(al(&f, 512, 0, &a), UINT64_MAX);
        CU_ASSERT_EQUAL(al(&f, 1, 0, &a), UINT64_MAX);
        CU_ASSERT_EQUAL(mem_get_metrics(f.m)->reserved_bytes, 0);
        fx_close(&f);
    }
}

/* With recorded segment addresses (a snapshot recorded with expandable segments), a (pool,
 * stream)'s virtual range is reserved where the recording's was: at the start of the recorded
 * segment holding the address the recording gave the request that first needs it. A range that
 * would overlap one already reserved goes to the next virtual range instead. Until 2026-11-27
 * every range was at 2^56 and up, and no allocation of such a snapshot was at its address. */
static void test_expandable_recorded(void)
{
    fx f;
    alloc_out a;
    const uint64_t big = 0x7f0000000000ULL, small = 0x7e0000000000ULL, va = 1ULL << 56;
    copt ex[] = {{"expandable_segments", 1, 0}, {"segment_addresses", 1, 0}};
    fx_open(&f, 1024 * MiB, 1, ex, 2);
    mem_note_recorded_segment(f.m, big, 20 * MiB);
    mem_note_recorded_segment(f.m, big + 20 * MiB, 20 * MiB);
    mem_note_recorded_segment(f.m, small, 2 * MiB);
    mem_hint(f.m, big);
    CU_ASSERT_EQUAL(al(&f, 4 * MiB, 0, NULL), big);
    mem_hint(f.m, big + 4 * MiB); /* the range is reserved: it only grows */
    CU_ASSERT_EQUAL(al(&f, 4 * MiB, 0, NULL), big + 4 * MiB);
    mem_hint(f.m, small + 512);
    CU_ASSERT_EQUAL(al(&f, 512, 0, NULL), small);
    CU_ASSERT_EQUAL(al(&f, 512, 0, &a), small + 512);
    /* stream 1's large range would start inside stream 0's: the next virtual range */
    mem_hint(f.m, big + 20 * MiB);
    CU_ASSERT_EQUAL(al(&f, 4 * MiB, 1, NULL), va);
    /* no recorded segment holds the hint: the next virtual range */
    mem_hint(f.m, 0x100);
    CU_ASSERT_EQUAL(al(&f, 512, 1, NULL), va + (1ULL << 40));
    mem_hint(f.m, UINT64_MAX);
    fx_close(&f);
}

/* A request that fails before a (pool, stream)'s first served one (here one larger than the
 * range, with no recorded address, as an `oom` line) does not fix where the range is: the first
 * request it serves puts it at its recorded segment, and a request under a hint that fails
 * again leaves it unserved. Until 2026-11-28 the range stayed at 2^56, where the failed request
 * had reserved it, and no later allocation of that pool and stream was at its address. */
static void test_expandable_recorded_after_oom(void)
{
    fx f;
    const uint64_t big = 0x7f0000000000ULL, other = 0x7e0000000000ULL;
    copt ex[] = {{"expandable_segments", 1, 0}, {"segment_addresses", 1, 0}};
    fx_open(&f, 1024 * MiB, 1, ex, 2);
    mem_note_recorded_segment(f.m, big, 20 * MiB);
    mem_note_recorded_segment(f.m, other, 20 * MiB);
    CU_ASSERT_EQUAL(al(&f, 2048 * MiB, 0, NULL), UINT64_MAX); /* no hint: the synthetic range */
    mem_hint(f.m, other);
    CU_ASSERT_EQUAL(al(&f, 2048 * MiB, 0, NULL), UINT64_MAX); /* fails again: nothing served */
    mem_hint(f.m, big + 2 * MiB);
    CU_ASSERT_EQUAL(al(&f, 2 * MiB, 0, NULL), big);
    mem_hint(f.m, other); /* served: the range stays */
    CU_ASSERT_EQUAL(al(&f, 2 * MiB, 0, NULL), big + 2 * MiB);
    mem_hint(f.m, UINT64_MAX);
    fx_close(&f);
}

/* Recorded ranges are honoured wherever they are, 2^56 and up too (amsim's own exports put
 * theirs there), and a range of no recorded address goes past every recorded segment the level
 * knows, on a 2^40 boundary, so that it takes none of theirs. Until 2026-11-28 a recorded range
 * from 2^56 on was refused for the next synthetic one (here both would have been at 2^56 and
 * 2^56 + 2^40, in trace order). */
static void test_expandable_recorded_high(void)
{
    fx f;
    const uint64_t va = 1ULL << 56, tb = 1ULL << 40;
    copt ex[] = {{"expandable_segments", 1, 0}, {"segment_addresses", 1, 0}};
    fx_open(&f, 1024 * MiB, 1, ex, 2);
    mem_note_recorded_segment(f.m, va + tb, 20 * MiB);
    mem_note_recorded_segment(f.m, va, 2 * MiB);
    CU_ASSERT_EQUAL(al(&f, 4 * MiB, 0, NULL), va + 2 * tb); /* no hint: past both */
    mem_hint(f.m, va + tb + 4 * MiB);
    CU_ASSERT_EQUAL(al(&f, 4 * MiB, 1, NULL), va + tb);
    mem_hint(f.m, va + 512);
    CU_ASSERT_EQUAL(al(&f, 512, 0, NULL), va);
    mem_hint(f.m, UINT64_MAX);
    CU_ASSERT_EQUAL(al(&f, 512, 1, NULL), va + 3 * tb); /* the next synthetic one */
    fx_close(&f);
}

/* In a start-state prologue a block of an expandable range goes to its recorded address when
 * that is an unmapped page: the hole below it stays unmapped, and the request that maps the hole
 * after the prologue is at its own recorded address (QA's m8 trace). Until 2026-11-28 the
 * prologue's second block went into the hole (base + 20 MiB) and the later request above it. */
static void test_expandable_prologue_hole(void)
{
    fx f;
    const uint64_t base = 0x7f0000000000ULL;
    copt ex[] = {{"expandable_segments", 1, 0}, {"segment_addresses", 1, 0}};
    fx_open(&f, 1024 * MiB, 1, ex, 2);
    mem_note_recorded_segment(f.m, base, 100 * MiB);
    mem_set_prologue(f.m, 1);
    mem_hint(f.m, base);
    CU_ASSERT_EQUAL(al(&f, 20 * MiB, 0, NULL), base);
    mem_hint(f.m, base + 40 * MiB);
    CU_ASSERT_EQUAL(al(&f, 20 * MiB, 0, NULL), base + 40 * MiB);
    mem_set_prologue(f.m, 0);
    mem_hint(f.m, base + 20 * MiB); /* outside the prologue the policy places it: the lowest */
    CU_ASSERT_EQUAL(al(&f, 20 * MiB, 0, NULL), base + 20 * MiB);
    mem_hint(f.m, base + 100 * MiB);
    CU_ASSERT_EQUAL(al(&f, 20 * MiB, 0, NULL), base + 60 * MiB);
    mem_hint(f.m, UINT64_MAX);
    fx_close(&f);
}

/* A range recorded within its size of 2^64 ends below 2^64: shortened to the whole pages that
 * fit when they still hold the capacity (1024 MiB: 1080 MiB of the 1160 fit), else as many
 * pages lower as it takes, its first request at the recorded start and the next ones in the
 * pages below. Until 2026-11-28 both were refused and so were the synthetic ranges after them
 * (no 2^40 boundary past the recorded end): every request here ran out of memory. */
static void test_expandable_recorded_top(void)
{
    fx f;
    const uint64_t top_1100 = 0 - 1100 * MiB, top_64 = 0 - 64 * MiB;
    copt ex[] = {{"expandable_segments", 1, 0}, {"segment_addresses", 1, 0}};
    fx_open(&f, 1024 * MiB, 1, ex, 2);
    mem_note_recorded_segment(f.m, top_1100, 20 * MiB);
    mem_hint(f.m, top_1100);
    CU_ASSERT_EQUAL(al(&f, 4 * MiB, 0, NULL), top_1100);
    mem_hint(f.m, UINT64_MAX);
    CU_ASSERT_EQUAL(al(&f, 1000 * MiB, 0, NULL), top_1100 + 4 * MiB); /* the capacity fits */
    fx_close(&f);

    fx_open(&f, 1024 * MiB, 1, ex, 2);
    mem_note_recorded_segment(f.m, top_64, 64 * MiB);
    mem_hint(f.m, top_64 + 4 * MiB);
    CU_ASSERT_EQUAL(al(&f, 20 * MiB, 0, NULL), top_64);
    mem_hint(f.m, UINT64_MAX);
    CU_ASSERT_EQUAL(al(&f, 900 * MiB, 0, NULL), top_64 - 1100 * MiB); /* 1160 - 60 MiB lower */
    fx_close(&f);
}

/* A range of no recorded address once a recorded segment ends near 2^64: past it while one
 * fits below 2^64 (the small pool's, at 2^64 - 2^40), else the lowest 2^40 boundary from 2^56
 * clear of every recorded segment (one at 2^56) and reserved range. Until 2026-11-28 the
 * large pool's request ran out of memory on a device holding 2 MiB. */
static void test_expandable_synthetic_top(void)
{
    fx f;
    const uint64_t va = 1ULL << 56, tb = 1ULL << 40;
    copt ex[] = {{"expandable_segments", 1, 0}, {"segment_addresses", 1, 0}};
    fx_open(&f, 1024 * MiB, 1, ex, 2);
    mem_note_recorded_segment(f.m, 0 - 2 * tb, 64 * MiB);
    mem_note_recorded_segment(f.m, va, 2 * MiB);
    CU_ASSERT_EQUAL(al(&f, 4096, 0, NULL), 0 - tb);
    CU_ASSERT_EQUAL(al(&f, 30 * MiB, 0, NULL), va + tb);
    CU_ASSERT_EQUAL(al(&f, 30 * MiB, 1, NULL), va + 2 * tb);
    fx_close(&f);
}

/* Recorded segments may overlap: a pickle's segment_map pieces inside a declared range, an
 * address reused after a segment_free. A range goes to the outermost one holding the hint, noted
 * before or after the pieces, and a range of no recorded address keeps clear of the outermost
 * ones (the large pool's, with nothing past the segment near 2^64 free, would be at
 * 2^56 + 2^40, inside [2^56, 2^56 + 2^41), which only a piece's end hid). Until
 * 2026-11-28 the segment starting nearest below the address was read alone: the first range
 * went to 2^56 (the piece below its hint does not hold it) and the synthetic one to
 * 2^56 + 2^40. */
static void test_expandable_recorded_nested(void)
{
    const uint64_t base = 0x7f0000000000ULL, va = 1ULL << 56, tb = 1ULL << 40;
    copt ex[] = {{"expandable_segments", 1, 0}, {"segment_addresses", 1, 0}};
    for (int order = 0; order < 2; order++) {
        fx f;
        fx_open(&f, 200 * MiB, 1, ex, 2);
        if (order)
            mem_note_recorded_segment(f.m, base + 20 * MiB, 20 * MiB);
        mem_note_recorded_segment(f.m, base, 100 * MiB);
        if (!order)
            mem_note_recorded_segment(f.m, base + 20 * MiB, 20 * MiB);
        mem_hint(f.m, base + 60 * MiB);
        CU_ASSERT_EQUAL(al(&f, 20 * MiB, 0, NULL), base);
        mem_hint(f.m, UINT64_MAX);
        fx_close(&f);
    }
    fx f;
    fx_open(&f, 1024 * MiB, 1, ex, 2);
    mem_note_recorded_segment(f.m, 0 - 2 * tb, 64 * MiB); /* nothing fits past it */
    mem_note_recorded_segment(f.m, va, 2 * tb);
    mem_note_recorded_segment(f.m, va + 2 * MiB, 2 * MiB);
    CU_ASSERT_EQUAL(al(&f, 4096, 0, NULL), 0 - tb); /* the small pool's, past the top one */
    CU_ASSERT_EQUAL(al(&f, 30 * MiB, 0, NULL), va + 2 * tb);
    fx_close(&f);
}

/* Without expandable segments a segment goes to the recorded one of its size holding the
 * request's recorded address, one with a smaller segment inside it below that address too (a
 * start reused after a segment_free). Until 2026-11-28 only the one starting nearest below was
 * looked at, and the segment was placed first fit, at 0. */
static void test_recorded_nested_segment(void)
{
    fx f;
    const uint64_t base = 0x7f0000000000ULL;
    copt rec[] = {{"segment_addresses", 1, 0}};
    fx_open(&f, 1024 * MiB, 1, rec, 1);
    mem_note_recorded_segment(f.m, base, 100 * MiB);
    mem_note_recorded_segment(f.m, base + 20 * MiB, 20 * MiB);
    mem_hint(f.m, base + 60 * MiB);
    CU_ASSERT_EQUAL(al(&f, 100 * MiB, 0, NULL), base);
    mem_hint(f.m, base + 30 * MiB); /* the inner one is taken by the outer: first fit */
    CU_ASSERT_EQUAL(al(&f, 20 * MiB, 0, NULL), 0);
    mem_hint(f.m, UINT64_MAX);
    fx_close(&f);
}

/* With expandable segments the level reports each map and unmap of a virtual range as one
 * device call, as PyTorch records segment_map / segment_unmap, and not the pages behind them.
 * A map that runs out of device memory (PyTorch's ExpandableSegment::map releasing the pages
 * it had created) reports nothing: PyTorch records no entry for it. */
static void test_expandable_reports_maps(void)
{
    fx f;
    alloc_out a, b, c, d;
    const uint64_t va = 1ULL << 56, large = va + (1ULL << 40);
    copt ex[] = {{"expandable_segments", 1, 0}};
    devlog dl = {0};
    f.opts = make_opts(ex, 1);
    mem_params p = {.name = "hbm", .capacity = 64 * MiB, .granularity = 1,
                    .policy = alloc_caching_ops(), .policy_opts = f.opts, .on_device = dl_note,
                    .on_device_ctx = &dl};
    am_error err = {0};
    CU_ASSERT_EQUAL_FATAL(mem_create(&f.m, &p, &err), 0);
    const mem_metrics *mm = mem_get_metrics(f.m);
    CU_ASSERT_EQUAL(al(&f, MiB, 0, &a), va);
    CU_ASSERT_EQUAL(al(&f, 3 * MiB, 0, &b), large);
    CU_ASSERT_EQUAL(al(&f, 30 * MiB, 0, &c), large + 3 * MiB); /* maps one more page */
    CU_ASSERT_EQUAL_FATAL(dl.n, 3);
    CU_ASSERT(dl.e[0].map == 1 && dl.e[0].addr == va && dl.e[0].bytes == 2 * MiB);
    CU_ASSERT(dl.e[1].map == 1 && dl.e[1].addr == large && dl.e[1].bytes == 20 * MiB);
    CU_ASSERT(dl.e[2].map == 1 && dl.e[2].addr == large + 20 * MiB && dl.e[2].bytes == 20 * MiB);
    /* 45 MiB: the free 7 MiB tail needs two more pages; the first is had (62 of 64 MiB), the
     * second is not, and the first goes back; release unmaps nothing (no free whole page), the
     * retry runs out the same way: out of memory, and no map reported */
    CU_ASSERT_EQUAL(al(&f, 45 * MiB, 0, &d), UINT64_MAX);
    CU_ASSERT_EQUAL(dl.n, 3);
    CU_ASSERT_EQUAL(mm->reserved_bytes, 42 * MiB);
    CU_ASSERT_EQUAL(mm->device_allocs, 5); /* the level still counts the two pages had */
    CU_ASSERT_EQUAL(mm->device_frees, 2);
    /* the page had and given back within the request is in no peak: the reserved peak is the
     * state the request left, 42 MiB, with 8 MiB of it unallocated (until 2026-11-27 the level
     * peaked at the 62 MiB no state had, against the policy's own 42) */
    CU_ASSERT_EQUAL(mm->peak_reserved_bytes, 42 * MiB);
    CU_ASSERT_EQUAL(mm->reserved_unallocated_at_peak, 42 * MiB - 34 * MiB);
    CU_ASSERT_EQUAL(stat_peak(&f, "reserved_bytes"), 42 * MiB);
    CU_ASSERT_EQUAL(stat(&f, "num_device_alloc"), 3); /* PyTorch counts maps */
    /* after a free, release unmaps the free whole page [20, 40) MiB: one unmap */
    fr(&f, &c, 30 * MiB);
    CU_ASSERT_EQUAL(al(&f, 100 * MiB, 0, &d), UINT64_MAX);
    CU_ASSERT_EQUAL_FATAL(dl.n, 4);
    CU_ASSERT(dl.e[3].map == 0 && dl.e[3].addr == large + 20 * MiB && dl.e[3].bytes == 20 * MiB);
    fx_close(&f);
}

/* Streams get dense slots at their first request, so memory grows with the streams used, not
 * their numbers (until 2026-11-27 stream 4294967294 asked for 650 GB); walks over the pools
 * still go by stream number: stream 3's range is released before stream 7's though 7 came first. */
static void test_stream_slots(void)
{
    fx f;
    alloc_out a, b, c;
    copt ex[] = {{"expandable_segments", 1, 0}};
    devlog dl = {0};
    f.opts = make_opts(ex, 1);
    mem_params p = {.name = "hbm", .capacity = 64 * MiB, .granularity = 1,
                    .policy = alloc_caching_ops(), .policy_opts = f.opts, .on_device = dl_note,
                    .on_device_ctx = &dl};
    am_error err = {0};
    CU_ASSERT_EQUAL_FATAL(mem_create(&f.m, &p, &err), 0);
    uint64_t at7 = al(&f, MiB, 7, &a), at3 = al(&f, MiB, 3, &b);
    CU_ASSERT(at7 != UINT64_MAX && at3 != UINT64_MAX && at7 != at3);
    fr(&f, &a, MiB);
    fr(&f, &b, MiB);
    CU_ASSERT_EQUAL_FATAL(dl.n, 2);
    CU_ASSERT_EQUAL(al(&f, 100 * MiB, 0, &c), UINT64_MAX); /* releases every free page */
    CU_ASSERT_EQUAL_FATAL(dl.n, 4);
    CU_ASSERT(dl.e[2].map == 0 && dl.e[2].addr == at3);
    CU_ASSERT(dl.e[3].map == 0 && dl.e[3].addr == at7);
    fx_close(&f);

    fx_open(&f, 64 * MiB, 0, NULL, 0);
    CU_ASSERT_EQUAL(al(&f, 512, 4294967294U, &a), 0);
    CU_ASSERT_EQUAL(al(&f, 512, 4294967294U, &b), 512); /* same stream: same segment */
    CU_ASSERT_EQUAL(al(&f, 512, 0, &c), 2 * MiB);
    fx_close(&f);
}

/* Seeded random allocations and frees with expandable segments, invariants checked after every
 * step: the best-fit search looks past the first fitting block at what each could expand to,
 * and the block it settles on (not the one after it) must leave the pool. */
static void test_expandable_stress(void)
{
    fx f;
    copt ex[] = {{"expandable_segments", 1, 0}};
    fx_open(&f, 256 * MiB, 0, ex, 1);
    enum { N = 64 };
    alloc_out live[N];
    uint64_t bytes[N] = {0};
    uint64_t seed = 12345, fails = 0;
    for (int step = 0; step < 4000; step++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        int k = (int)((seed >> 33) % N);
        if (bytes[k]) {
            fr(&f, &live[k], bytes[k]);
            bytes[k] = 0;
        } else {
            uint64_t b = (seed >> 40) % 4 ? 512 + (seed >> 20) % (3 * MiB)
                                           : MiB + (seed >> 16) % (40 * MiB);
            if (al(&f, b, 0, &live[k]) != UINT64_MAX)
                bytes[k] = b;
            else
                fails++;
        }
    }
    CU_ASSERT(fails < 4000); /* mostly served: the run exercised the pools */
    for (int k = 0; k < N; k++)
        if (bytes[k])
            fr(&f, &live[k], bytes[k]);
    CU_ASSERT_EQUAL(mem_get_metrics(f.m)->allocated_bytes, 0);
    fx_close(&f);
}

/* ---- the shared snapshots, replayed at their recorded addresses ---- */

typedef struct live { uint64_t handle, requested, given; int ok; } live;

static void replay(const char *name, uint64_t expect_allocs)
{
    char rel[256];
    snprintf(rel, sizeof rel, "pytorch-snapshots/%s", name);
    const char *path = tu_shared(rel);
    if (!path)
        return;
    trace t = {0};
    t.path = (char *)(uintptr_t)path;
    t.f = fopen(path, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t.f);
    am_error err = {0};
    int rc = trace_pickle_open(&t, &err);
    if (rc)
        printf("\n%s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    copt rec[] = {{"segment_addresses", 1, 0}};
    fx f;
    fx_open(&f, 80ULL << 30, 1, rec, 1);
    size_t cap = 1 << 16;
    live *lv = calloc(cap, sizeof *lv);
    tr_event e;
    uint64_t allocs = 0, matches = 0, trace_allocs = 0, checks_bad = 0;
    while ((rc = t.reader->next(&t, &e, &err)) == 1) {
        if (e.kind == TR_SEGMENT_ALLOC && e.declared) {
            mem_note_recorded_segment(f.m, e.addr, e.bytes);
            continue;
        }
        if (e.kind == TR_ALLOC) {
            while (e.id >= cap) {
                lv = realloc(lv, 2 * cap * sizeof *lv);
                memset(lv + cap, 0, cap * sizeof *lv);
                cap *= 2;
            }
            alloc_req r = {e.bytes, e.stream, 0};
            alloc_out o = {0};
            mem_hint(f.m, e.addr);
            int st = mem_alloc(f.m, &r, &o);
            mem_hint(f.m, TR_NO_ADDR);
            lv[e.id] = (live){o.handle, e.bytes, o.size, st == ALLOC_OK};
            allocs++;
            if (e.line) { /* an allocation of the trace itself, not of the prologue */
                trace_allocs++;
                matches += st == ALLOC_OK && o.addr == e.addr;
            }
        } else if (e.kind == TR_FREE || e.kind == TR_FREE_REQUESTED ||
                   e.kind == TR_FREE_COMPLETED) {
            live *l = &lv[e.id];
            if (!l->ok)
                continue;
            if (e.kind == TR_FREE_REQUESTED)
                mem_free_requested(f.m, l->handle, l->requested, l->given);
            else
                mem_free(f.m, l->handle, l->requested, l->given, e.kind == TR_FREE_COMPLETED);
        }
        if (mem_check(f.m, &err))
            checks_bad++;
    }
    CU_ASSERT_EQUAL(rc, 0);
    printf("\n  %s: %llu of %llu allocations at their recorded address\n", name,
           (unsigned long long)matches, (unsigned long long)trace_allocs);
    CU_ASSERT_EQUAL(trace_allocs, expect_allocs);
    CU_ASSERT_EQUAL(matches, expect_allocs);
    CU_ASSERT_EQUAL(checks_bad, 0);
    free(lv);
    fx_close(&f);
    t.reader->close(&t);
    fclose(t.f);
}

static void test_snapshot_magma(void)
{
    replay("MAGMA27_assignment2-systems_memory_snapshot.pickle", 1721);
}

static void test_snapshot_bcrafton(void)
{
    replay("bcrafton_assignment2-systems_memory_snapshot.pickle", 2162);
}

void suite_caching(void)
{
    TU_SUITE("caching",
             {"rounding and power-of-two divisions", test_rounding},
             {"pools and segment sizes", test_pools_and_segments},
             {"expandable ranges at their recorded addresses", test_expandable_recorded},
             {"expandable range: a failed request does not place it",
              test_expandable_recorded_after_oom},
             {"expandable ranges recorded from 2^56 on", test_expandable_recorded_high},
             {"expandable ranges recorded near 2^64", test_expandable_recorded_top},
             {"synthetic expandable ranges past a recorded one near 2^64",
              test_expandable_synthetic_top},
             {"expandable range: a prologue block above a hole", test_expandable_prologue_hole},
             {"expandable ranges at the outermost of overlapping recorded segments",
              test_expandable_recorded_nested},
             {"a segment at a recorded one holding a smaller one", test_recorded_nested_segment},
             {"best fit by (stream, size, address)", test_best_fit},
             {"oversize refusals", test_oversize},
             {"split rules", test_split_rules},
             {"merge on free and two-phase free", test_merge_and_two_phase},
             {"miss sequence, retries, OOM", test_miss_sequence},
             {"release of cached segments: order by pool, stream, size, address",
              test_release_order},
             {"release of cached segments: seeded stress on five streams, invariants after "
              "every step", test_release_stress},
             {"largest free block over 40 streams as blocks come and go", test_largest_over_streams},
             {"research_after_release finds nothing the first search did not",
              test_research_after_release},
             {"memory fraction and garbage collection", test_memory_fraction_and_gc},
             {"option values PyTorch refuses", test_pytorch_option_rules},
             {"expandable segments map and unmap", test_expandable},
             {"expandable segments: a capacity under 8 B runs out of memory cleanly",
              test_expandable_tiny_capacity},
             {"expandable segments report maps and unmaps, not a map that ran out",
              test_expandable_reports_maps},
             {"stream numbers map to dense slots, walks by stream number", test_stream_slots},
             {"expandable segments: seeded stress, invariants after every step",
              test_expandable_stress},
             {"snapshot MAGMA27 at recorded addresses", test_snapshot_magma},
             {"snapshot bcrafton at recorded addresses", test_snapshot_bcrafton});
}
