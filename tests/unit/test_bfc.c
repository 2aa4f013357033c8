/* test_bfc.c - the BFC rules of allocators.md section 1, one by one, with exact addresses,
 * chunk sizes, region lines and statistics; and a seeded stress replay with the invariant check
 * after every step. */
#define _GNU_SOURCE
#include <CUnit/CUnit.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../models/memory.h"
#include "../../sim/config.h"
#include "testlevel.h"
#include "testutil.h"

int alloc_bfc_bin(uint64_t size);

typedef tl_level lvl;

#define MiB (1ULL << 20)

/* A one-level BFC from YAML allocator keys (indented under allocator:). */
static void mk(lvl *L, const char *capacity, const char *keys)
{
    char lk[128];
    snprintf(lk, sizeof lk, "    capacity: %s\n", capacity);
    CU_ASSERT_FATAL(tl_open(L, "bfc", lk, keys) == 0);
}


/* Everything logged so far, as one string. */
static const char *logtext(lvl *L)
{
    fflush(L->log);
    return L->logbuf ? L->logbuf : "";
}

typedef tl_stat kv;

static kv stat(lvl *L, const char *name)
{
    const tl_stat *st = tl_stat_find(L, name);
    if (st)
        return *st;
    CU_FAIL("statistic missing");
    return (kv){name, UINT64_MAX, UINT64_MAX, 0, 1};
}

static void test_rounding(void)
{
    lvl L;
    mk(&L, "64MiB", "      memory_limit: 8MiB\n      allow_growth: true\n");
    uint64_t sz, h;
    CU_ASSERT_EQUAL(tl_alloc(&L, 1, &sz, &h), 0);
    CU_ASSERT_EQUAL(sz, 256);
    CU_ASSERT_EQUAL(tl_alloc(&L, 256, &sz, &h), 256);
    CU_ASSERT_EQUAL(sz, 256);
    CU_ASSERT_EQUAL(tl_alloc(&L, 257, &sz, &h), 512);
    CU_ASSERT_EQUAL(sz, 512);
    CU_ASSERT_EQUAL(tl_alloc(&L, 1000, &sz, &h), 1024);
    CU_ASSERT_EQUAL(sz, 1024);
    CU_ASSERT_EQUAL(stat(&L, "bytes_in_use").v, 256 + 256 + 512 + 1024);
    tl_close(&L);
}

static void test_bins(void)
{
    CU_ASSERT_EQUAL(alloc_bfc_bin(1), 0);
    CU_ASSERT_EQUAL(alloc_bfc_bin(256), 0);
    CU_ASSERT_EQUAL(alloc_bfc_bin(511), 0);
    CU_ASSERT_EQUAL(alloc_bfc_bin(512), 1);
    CU_ASSERT_EQUAL(alloc_bfc_bin(1023), 1);
    CU_ASSERT_EQUAL(alloc_bfc_bin(1024), 2);
    CU_ASSERT_EQUAL(alloc_bfc_bin(MiB), 12);
    CU_ASSERT_EQUAL(alloc_bfc_bin(256 * MiB - 1), 19);
    CU_ASSERT_EQUAL(alloc_bfc_bin(256 * MiB), 20);
    CU_ASSERT_EQUAL(alloc_bfc_bin(1ULL << 40), 20);
}

/* Smallest fitting free chunk wins; among equal sizes the lowest address. */
static void test_best_fit_tie_break(void)
{
    lvl L;
    mk(&L, "64MiB", "      memory_limit: 2MiB\n");
    uint64_t h[8], sz;
    /* [a 1024][s 256][b 512][s 256][c 512][s 256][d 2048][rest] */
    uint64_t sizes[7] = {1024, 256, 512, 256, 512, 256, 2048};
    uint64_t at[7];
    for (int i = 0; i < 7; i++)
        at[i] = tl_alloc(&L, sizes[i], &sz, &h[i]);
    CU_ASSERT_EQUAL(at[2], 1280);
    CU_ASSERT_EQUAL(at[4], 2048);
    tl_free(&L, h[0], 1024, 1024);
    tl_free(&L, h[4], 512, 512);
    tl_free(&L, h[2], 512, 512);
    /* 512-byte request: two 512 chunks at 1280 and 2048 and a 1024 at 0: lowest 512 wins. */
    CU_ASSERT_EQUAL(tl_alloc(&L, 400, &sz, NULL), 1280);
    CU_ASSERT_EQUAL(sz, 512);
    CU_ASSERT_EQUAL(tl_alloc(&L, 512, &sz, NULL), 2048);
    /* 600 bytes -> 768: the 1024 chunk at 0 is the smallest that fits; it is not split
     * (1024 < 2 * 768), so the whole chunk is handed out. */
    CU_ASSERT_EQUAL(tl_alloc(&L, 600, &sz, NULL), 0);
    CU_ASSERT_EQUAL(sz, 1024);
    tl_close(&L);
}

/* Split when size >= 2R; otherwise the whole chunk; or when the remainder >= the
 * fragmentation limit. */
static void test_split_rules(void)
{
    lvl L;
    mk(&L, "64MiB", "      memory_limit: 2MiB\n");
    uint64_t sz, h1, h2, h3;
    tl_alloc(&L, 1536, &sz, &h1);        /* [0,1536) */
    tl_alloc(&L, 256, &sz, &h2);         /* separator */
    tl_free(&L, h1, 1536, 1536);        /* free chunk of 1536 at 0 */
    CU_ASSERT_EQUAL(tl_alloc(&L, 1024, &sz, &h3), 0); /* 1536 < 2048: no split */
    CU_ASSERT_EQUAL(sz, 1536);
    CU_ASSERT_EQUAL(stat(&L, "bytes_in_use").v, 1536 + 256);
    tl_free(&L, h3, 1024, 1536);
    CU_ASSERT_EQUAL(tl_alloc(&L, 768, &sz, &h3), 0); /* 1536 >= 2 * 768: split */
    CU_ASSERT_EQUAL(sz, 768);
    CU_ASSERT_EQUAL(tl_alloc(&L, 768, &sz, NULL), 768);
    tl_close(&L);

    /* fragmentation_fraction: limit 1 MiB x 0.001 = 1048 bytes -> remainders >= 1048 split. */
    mk(&L, "64MiB", "      memory_limit: 1MiB\n      fragmentation_fraction: 0.001\n");
    tl_alloc(&L, 3072, &sz, &h1);
    tl_alloc(&L, 256, &sz, &h2);
    tl_free(&L, h1, 3072, 3072);
    CU_ASSERT_EQUAL(tl_alloc(&L, 1792, &sz, NULL), 0); /* 3072 < 3584 but 1280 >= 1048: split */
    CU_ASSERT_EQUAL(sz, 1792);
    tl_close(&L);
}

/* The fragmentation threshold at its extremes: fraction x limit below one byte truncates to 0,
 * where an exact fit must still be handed out whole (no 0-byte chunk); a product of 2^64 or more
 * saturates instead of converting to 0, so only the 2R rule splits. */
static void test_split_threshold_extremes(void)
{
    lvl L;
    uint64_t sz;
    mk(&L, "64MiB", "      memory_limit: 48MiB\n      fragmentation_fraction: 1e-12\n");
    CU_ASSERT_EQUAL(tl_alloc(&L, 48 * MiB, &sz, NULL), 0); /* the one region, filled exactly */
    CU_ASSERT_EQUAL(sz, 48 * MiB);
    CU_ASSERT(tl_check(&L) == 0);
    tl_close(&L);

    mk(&L, "64MiB", "      memory_limit: 18446744073709551615\n      allow_growth: true\n"
                    "      fragmentation_fraction: 1\n");
    CU_ASSERT_EQUAL(tl_alloc(&L, 1000, &sz, NULL), 0);          /* region of 2 MiB */
    CU_ASSERT_EQUAL(tl_alloc(&L, 3 * MiB, &sz, NULL), 2 * MiB); /* region of 4 MiB */
    CU_ASSERT_EQUAL(sz, 4 * MiB); /* 4 < 2 x 3 and 1 MiB < 2^64 - 1: not split */
    CU_ASSERT(tl_check(&L) == 0);
    tl_close(&L);
}

/* A freed chunk merges with next, then previous. */
static void test_coalescing(void)
{
    lvl L;
    mk(&L, "64MiB", "      memory_limit: 2MiB\n");
    uint64_t sz, h[4];
    for (int i = 0; i < 4; i++)
        tl_alloc(&L, 1024, &sz, &h[i]);
    tl_free(&L, h[0], 1024, 1024);
    tl_free(&L, h[2], 1024, 1024);
    /* free 1: merges with 2 (next), then 0 (previous): one chunk [0, 3072). */
    tl_free(&L, h[1], 1024, 1024);
    CU_ASSERT_EQUAL(tl_alloc(&L, 3072, &sz, NULL), 0);
    CU_ASSERT_EQUAL(sz, 3072);
    tl_close(&L);
}

/* allow_growth: regions of 2, 4, 8 MiB...; a large request doubles until it fits and does not
 * double again afterwards. */
static void test_region_doubling(void)
{
    lvl L;
    mk(&L, "1GiB", "      memory_limit: 64MiB\n      allow_growth: true\n");
    uint64_t sz;
    CU_ASSERT_EQUAL(tl_alloc(&L, 2 * MiB, &sz, NULL), 0);            /* region 2 MiB, next 4 MiB */
    CU_ASSERT_EQUAL(tl_alloc(&L, MiB, &sz, NULL), 2 * MiB);          /* region 4 MiB, next 8 MiB */
    CU_ASSERT_EQUAL(tl_alloc(&L, 3 * MiB, &sz, NULL), 3 * MiB);      /* fits the 4 MiB region */
    /* 8 -> 16 -> 32: a 32 MiB region; 32 < 2 x 20 and 12 MiB < 128 MiB: not split */
    CU_ASSERT_EQUAL(tl_alloc(&L, 20 * MiB, &sz, NULL), 6 * MiB);
    CU_ASSERT_EQUAL(sz, 32 * MiB);
    /* the region size stays 32 MiB (it grew); 26 MiB of limit remain: a 26 MiB region */
    CU_ASSERT_EQUAL(tl_alloc(&L, 13 * MiB, &sz, NULL), 38 * MiB);
    CU_ASSERT_EQUAL(sz, 13 * MiB);
    CU_ASSERT_EQUAL(tl_alloc(&L, MiB, &sz, NULL), 51 * MiB);
    CU_ASSERT_STRING_EQUAL(logtext(&L), "R 0 2097152\nR 2097152 4194304\nR 6291456 33554432\n"
                                        "R 39845888 27262976\n");
    CU_ASSERT_EQUAL(stat(&L, "pool_bytes").v, 64 * MiB);
    CU_ASSERT_EQUAL(tl_alloc(&L, 13 * MiB, &sz, NULL), UINT64_MAX); /* 12 MiB free, limit reached */
    tl_close(&L);

    /* Without allow_growth: one region of the whole limit at the first request. */
    mk(&L, "1GiB", "      memory_limit: 10MiB\n");
    CU_ASSERT_EQUAL(tl_alloc(&L, 300, &sz, NULL), 0);
    CU_ASSERT_STRING_EQUAL(logtext(&L), "R 0 10485760\n");
    CU_ASSERT_EQUAL(tl_alloc(&L, 10 * MiB, &sz, NULL), UINT64_MAX); /* limit reached: out of memory */
    CU_ASSERT_EQUAL(stat(&L, "ooms").v, 1);
    tl_close(&L);
}

/* The region size saturates: every extend doubles it (during the search or after), so with
 * garbage collection freeing regions and the pool growing again it passed 2^64 and wrapped to 0
 * after 43 doublings from 2 MiB, and the next extend doubled 0 for ever (until 2026-11-27).
 * A 4 EiB limit: regions of 2 MiB .. 2 EiB take 41 doublings, three GC cycles the rest. Also a
 * limit just below 2^64 without allow_growth, which rounded up to 256 bytes was 0. alarm():
 * a hang kills the test binary with SIGALRM instead of stalling `make test`. */
static void test_region_size_saturates(void)
{
    alarm(60);
    lvl L;
    mk(&L, "4611686018427387904", "      memory_limit: 4611686018427387904\n"
       "      allow_growth: true\n      garbage_collection: true\n");
    uint64_t sz, h[44];
    for (int k = 0; k <= 40; k++) /* region k of 2^(21+k) bytes at 2^21 * (2^k - 1) */
        CU_ASSERT_EQUAL(tl_alloc(&L, (2 * MiB) << k, &sz, &h[k]), ((2 * MiB) << k) - 2 * MiB);
    /* 2 MiB of limit left: a 2 MiB region */
    CU_ASSERT_EQUAL(tl_alloc(&L, 2 * MiB, &sz, &h[41]), (1ULL << 62) - 2 * MiB);
    tl_free(&L, h[0], 2 * MiB, 2 * MiB);
    tl_free(&L, h[1], 4 * MiB, 4 * MiB);
    /* no room: GC gives back the 2 and 4 MiB regions, a 6 MiB region at 0 */
    CU_ASSERT_EQUAL(tl_alloc(&L, 5 * MiB, &sz, &h[42]), 0);
    CU_ASSERT_EQUAL(sz, 6 * MiB);
    tl_free(&L, h[2], 8 * MiB, 8 * MiB);
    tl_free(&L, h[3], 16 * MiB, 16 * MiB);
    CU_ASSERT_EQUAL(tl_alloc(&L, 20 * MiB, &sz, &h[43]), 6 * MiB); /* GC: 24 MiB at 6 MiB */
    CU_ASSERT_EQUAL(sz, 24 * MiB);
    tl_free(&L, h[42], 5 * MiB, 6 * MiB);
    tl_free(&L, h[43], 20 * MiB, 24 * MiB);
    CU_ASSERT_EQUAL(tl_alloc(&L, 30 * MiB, &sz, NULL), 0); /* GC again: 30 MiB at 0 */
    CU_ASSERT_EQUAL(sz, 30 * MiB);
    CU_ASSERT_EQUAL(stat(&L, "gc_runs").v, 3);
    tl_close(&L);

    mk(&L, "1GiB", "      memory_limit: 18446744073709551615\n");
    CU_ASSERT_EQUAL(tl_alloc(&L, MiB, &sz, NULL), 0); /* the device holds 1 GiB: backs off to it */
    CU_ASSERT(stat(&L, "pool_bytes").v <= 1ULL << 30 && stat(&L, "pool_bytes").v > 900 * MiB);
    tl_close(&L);
    alarm(0);
}

/* The device refuses a region: back off by 0.9 (float), round up to 256, until it fits. */
static void test_backoff(void)
{
    lvl L;
    mk(&L, "5MiB", "      memory_limit: 16MiB\n      allow_growth: true\n");
    uint64_t sz, h;
    CU_ASSERT_EQUAL(tl_alloc(&L, 2 * MiB, &sz, &h), 0);
    /* next region 4 MiB; 3 MiB of device left: 4 MiB -> 3774976 -> 3397632 -> 3057920 */
    CU_ASSERT_EQUAL(tl_alloc(&L, MiB, &sz, NULL), 2 * MiB);
    CU_ASSERT_STRING_EQUAL(logtext(&L), "R 0 2097152\nR 2097152 3057920\n");
    CU_ASSERT_EQUAL(stat(&L, "pool_bytes").v, 2 * MiB + 3057920);
    /* Backing off below the request fails the request. */
    CU_ASSERT_EQUAL(tl_alloc(&L, 2 * MiB, &sz, NULL), UINT64_MAX);
    tl_close(&L);
}

/* The back-off ends when it stops shrinking: at 2304 bytes and below, rounding 0.9 x bytes up
 * to 256 gives the same size, which the device refuses again. Until 2026-11-27 a level of up to
 * 2304 bytes under a larger limit asked for it for ever. Every back-off from a larger size
 * passes 2560 then 2304 (x >= 2816 gives at least 2560), so a 2304-byte device still fits one
 * region. alarm(): a hang kills the test binary instead of stalling `make test`. */
static void test_backoff_stops(void)
{
    alarm(60);
    static const char *const caps[] = {"1", "255", "2KiB", "2303"};
    static const char *const keys[] = {"      memory_limit: 1GiB\n",
                                       "      memory_limit: 1GiB\n      allow_growth: true\n"};
    uint64_t sz;
    for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++)
        for (size_t k = 0; k < 2; k++) {
            lvl L;
            mk(&L, caps[c], keys[k]);
            CU_ASSERT_EQUAL(tl_alloc(&L, 1000, &sz, NULL), UINT64_MAX);
            CU_ASSERT_EQUAL(stat(&L, "ooms").v, 1);
            CU_ASSERT_EQUAL(stat(&L, "pool_bytes").v, 0);
            tl_close(&L);
        }
    for (size_t k = 0; k < 2; k++) {
        lvl L;
        mk(&L, "2304", keys[k]);
        CU_ASSERT_EQUAL(tl_alloc(&L, 1000, &sz, NULL), 0);
        CU_ASSERT_EQUAL(sz, 1024);
        CU_ASSERT_STRING_EQUAL(logtext(&L), "R 0 2304\n");
        CU_ASSERT_EQUAL(tl_alloc(&L, 1024, &sz, NULL), 1024); /* the 1280-byte rest, unsplit */
        CU_ASSERT_EQUAL(sz, 1280);
        CU_ASSERT_EQUAL(tl_alloc(&L, 256, &sz, NULL), UINT64_MAX); /* device full: stops */
        tl_close(&L);
    }
    alarm(0);
}

/* garbage_collection: free regions are given back and the pool grows again. */
static void test_garbage_collection(void)
{
    for (int gc = 0; gc < 2; gc++) {
        lvl L;
        mk(&L, "1GiB", gc ? "      memory_limit: 8MiB\n      allow_growth: true\n"
                            "      garbage_collection: true\n"
                          : "      memory_limit: 8MiB\n      allow_growth: true\n");
        uint64_t sz, h1, h2;
        tl_alloc(&L, 2 * MiB, &sz, &h1); /* R 0 2MiB */
        tl_alloc(&L, 4 * MiB, &sz, &h2); /* R 2MiB 4MiB */
        tl_free(&L, h1, 2 * MiB, 2 * MiB);
        tl_free(&L, h2, 4 * MiB, 4 * MiB);
        /* 7 MiB: no chunk; only 2 MiB of limit left; with GC both free regions go back. */
        uint64_t at = tl_alloc(&L, 7 * MiB, &sz, NULL);
        if (gc) {
            CU_ASSERT_EQUAL(at, 0);
            CU_ASSERT_STRING_EQUAL(logtext(&L), "R 0 2097152\nR 2097152 4194304\nG 0 2097152\n"
                                                "G 2097152 4194304\nR 0 8388608\n");
            CU_ASSERT_EQUAL(stat(&L, "pool_bytes").v, 8 * MiB);
            CU_ASSERT_EQUAL(stat(&L, "peak_pool_bytes").v, 8 * MiB);
        } else {
            CU_ASSERT_EQUAL(at, UINT64_MAX);
            CU_ASSERT_EQUAL(stat(&L, "ooms").v, 1);
        }
        tl_close(&L);
    }
}

/* garbage_collection with region_coalescing: a region built from several device allocations
 * goes back one device allocation at a time (tsl's one Free of the range, which the coalescing
 * sub-allocator answers by releasing each mapping), so device_allocs - device_frees is the
 * ranges held; the teardown lines follow the same pieces. Until 2026-11-28 one dev_free and
 * one G line gave back the whole region: device_allocs 3, device_frees 1, one range held. */
static void test_garbage_collection_coalesced(void)
{
    lvl L;
    mk(&L, "64MiB", "      memory_limit: 12MiB\n      allow_growth: true\n"
                    "      garbage_collection: true\n      region_coalescing: true\n");
    uint64_t sz, h1, h2;
    tl_alloc(&L, 1000, &sz, &h1);                             /* R 0 2MiB */
    CU_ASSERT_EQUAL(tl_alloc(&L, 3 * MiB, &sz, &h2), 1024);   /* R 2MiB 4MiB, extends it */
    CU_ASSERT_EQUAL(stat(&L, "num_regions").v, 1);
    tl_free(&L, h1, 1000, 1024);
    tl_free(&L, h2, 3 * MiB, sz);
    /* 7 MiB: 6 MiB of limit left; GC gives the one region back, as its two allocations. */
    CU_ASSERT_EQUAL(tl_alloc(&L, 7 * MiB, &sz, NULL), 0);
    CU_ASSERT_STRING_EQUAL(logtext(&L), "R 0 2097152\nR 2097152 4194304\nG 0 2097152\n"
                                        "G 2097152 4194304\nR 0 8388608\n");
    const mem_metrics *m = mem_get_metrics(L.m);
    CU_ASSERT_EQUAL(m->device_allocs, 3);
    CU_ASSERT_EQUAL(m->device_frees, 2);
    CU_ASSERT_EQUAL(stat(&L, "regions_freed").v, 1);
    tl_close(&L);

    /* held to the end: the teardown gives back each device allocation of the region too */
    mk(&L, "64MiB", "      memory_limit: 12MiB\n      allow_growth: true\n"
                    "      region_coalescing: true\n");
    tl_alloc(&L, 1000, &sz, NULL);
    tl_alloc(&L, 3 * MiB, &sz, NULL);
    mem_finish(L.m);
    const char *log = logtext(&L);
    const char *g = strstr(log, "\nG ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT_STRING_EQUAL(g, "\nG 0 2097152\nG 2097152 4194304\n");
    tl_close(&L);
}

/* garbage_collection gives nothing back when that cannot serve the request, as TensorFlow's
 * DeallocateFreeRegions returns early when rounded_bytes > memory_limit -
 * total_region_allocated_bytes + total_free_bytes. Limit 12 MiB: the 2 MiB region at 0 is free,
 * the 8 MiB one holds buffer 2, so a 6 MiB request could get at most 12 - 10 + 2 = 4 MiB: it
 * fails, no region goes back (gc_runs 0), and the next 1 KiB is served in the kept region at 0
 * (README, `bfc`'s garbage_collection). */
static void test_garbage_collection_skip(void)
{
    lvl L;
    mk(&L, "16MiB", "      memory_limit: 12MiB\n      allow_growth: true\n"
                    "      garbage_collection: true\n");
    uint64_t sz, h1;
    CU_ASSERT_EQUAL(tl_alloc(&L, 1024, &sz, &h1), 0);
    tl_free(&L, h1, 1024, sz);
    CU_ASSERT_EQUAL(tl_alloc(&L, 8 * MiB, &sz, NULL), 2 * MiB);
    CU_ASSERT_EQUAL(tl_alloc(&L, 6 * MiB, &sz, NULL), UINT64_MAX);
    CU_ASSERT_EQUAL(stat(&L, "gc_runs").v, 0);
    CU_ASSERT_EQUAL(stat(&L, "regions_freed").v, 0);
    CU_ASSERT_EQUAL(stat(&L, "pool_bytes").v, 10 * MiB);
    CU_ASSERT_EQUAL(tl_alloc(&L, 1024, &sz, NULL), 0);
    CU_ASSERT_STRING_EQUAL(logtext(&L), "R 0 2097152\nR 2097152 8388608\n");
    tl_close(&L);
}

static void test_statistics_and_fragmentation(void)
{
    lvl L;
    mk(&L, "64MiB", "      memory_limit: 2MiB\n");
    uint64_t sz, h[3];
    tl_alloc(&L, 1000, &sz, &h[0]);   /* 1024 */
    tl_alloc(&L, 5000, &sz, &h[1]);   /* 5120 */
    tl_alloc(&L, 100, &sz, &h[2]);    /* 256 */
    CU_ASSERT_EQUAL(stat(&L, "num_allocs").v, 3);
    CU_ASSERT_EQUAL(stat(&L, "bytes_in_use").v, 6400);
    CU_ASSERT_EQUAL(stat(&L, "largest_alloc_size").v, 5120);
    tl_free(&L, h[1], 5000, 5120);
    CU_ASSERT_EQUAL(stat(&L, "bytes_in_use").v, 1280);
    CU_ASSERT_EQUAL(stat(&L, "peak_bytes_in_use").v, 6400);
    CU_ASSERT_EQUAL(stat(&L, "pool_bytes").v, 2 * MiB);
    CU_ASSERT_EQUAL(stat(&L, "bytes_limit").v, 2 * MiB);
    /* free = 2 MiB - 1280 = 2095872; largest = 2 MiB - 6400 = 2090752 */
    CU_ASSERT_EQUAL(stat(&L, "largest_free_block_bytes").v, 2090752);
    kv fr = stat(&L, "fragmentation");
    CU_ASSERT_FALSE(fr.isnull);
    CU_ASSERT_DOUBLE_EQUAL(fr.r, 5120.0 / 2095872.0, 1e-15);
    tl_close(&L);

    /* No free memory: the metric is undefined (null), in the statistics and in the --log S
     * line alike (until 2026-11-25 the S line printed 0.000000000 there). */
    mk(&L, "64MiB", "      memory_limit: 1MiB\n");
    tl_alloc(&L, MiB, &sz, NULL);
    CU_ASSERT_TRUE(stat(&L, "fragmentation").isnull);
    mem_finish(L.m);
    CU_ASSERT(strstr(logtext(&L), " largest_free_chunk=0 fragmentation=null ooms=0\n") != NULL);
    tl_close(&L);

    /* Some free memory: the S line prints the metric with nine decimals. */
    mk(&L, "64MiB", "      memory_limit: 2MiB\n");
    tl_alloc(&L, 1000, &sz, &h[0]);
    tl_alloc(&L, 5000, &sz, &h[1]);
    tl_alloc(&L, 100, &sz, &h[2]);
    tl_free(&L, h[1], 5000, 5120);
    mem_finish(L.m);
    CU_ASSERT(strstr(logtext(&L), " fragmentation=0.002442897 ooms=0\n") != NULL);
    tl_close(&L);
}

static void test_memory_fraction(void)
{
    lvl L;
    mk(&L, "1000MiB", "      memory_fraction: 0.5\n");
    uint64_t sz;
    tl_alloc(&L, 1, &sz, NULL);
    CU_ASSERT_EQUAL(stat(&L, "bytes_limit").v, 500 * MiB);
    CU_ASSERT_STRING_EQUAL(logtext(&L), "R 0 524288000\n");
    tl_close(&L);
    /* memory_limit wins over memory_fraction */
    mk(&L, "1000MiB", "      memory_fraction: 0.5\n      memory_limit: 3MiB\n");
    CU_ASSERT_EQUAL(stat(&L, "bytes_limit").v, 3 * MiB);
    tl_close(&L);
}

/* region_coalescing: an adjacent region extends the previous one, and its chunk merges with
 * that region's free last chunk. */
static void test_region_coalescing(void)
{
    lvl L;
    mk(&L, "1GiB", "      memory_limit: 16MiB\n      allow_growth: true\n"
                   "      region_coalescing: true\n");
    uint64_t sz, h1;
    tl_alloc(&L, MiB, &sz, &h1);              /* R 0 2MiB; chunk [0,1MiB) + free [1MiB,2MiB) */
    /* 3 MiB: R 2MiB 4MiB adjacent -> merged with the free 1 MiB tail: [1MiB, 6MiB) free */
    CU_ASSERT_EQUAL(tl_alloc(&L, 3 * MiB, &sz, NULL), MiB);
    CU_ASSERT_EQUAL(stat(&L, "num_regions").v, 1);
    tl_close(&L);
    mk(&L, "1GiB", "      memory_limit: 16MiB\n      allow_growth: true\n");
    tl_alloc(&L, MiB, &sz, &h1);
    CU_ASSERT_EQUAL(tl_alloc(&L, 3 * MiB, &sz, NULL), 2 * MiB); /* no coalescing: new region */
    CU_ASSERT_EQUAL(stat(&L, "num_regions").v, 2);
    tl_close(&L);
}

/* Seeded random replay (xorshift), invariant check after every step, no overlaps. */
static void test_stress(void)
{
    static const char *cfgs[] = {
        "      memory_limit: 64MiB\n      allow_growth: true\n      garbage_collection: true\n",
        "      memory_limit: 48MiB\n",
        ("      memory_limit: 32MiB\n      allow_growth: true\n      region_coalescing: true\n"
         "      fragmentation_fraction: 0.01\n"), /* one config, on two lines */
    };
    for (size_t c = 0; c < AM_ARRAY_LEN(cfgs); c++) {
        lvl L;
        mk(&L, "100MiB", cfgs[c]);
        enum { N = 256 };
        uint64_t h[N] = {0}, addr[N] = {0}, sz[N] = {0}, req[N] = {0};
        uint64_t x = 88172645463325252ULL + c;
        int ooms = 0, failures = 0;
        for (int step = 0; step < 6000; step++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            int i = (int)(x % N);
            if (req[i]) {
                tl_free(&L, h[i], req[i], sz[i]);
                req[i] = 0;
            } else {
                uint64_t r = 1 + (x >> 20) % ((x >> 60) < 2 ? 4 * MiB : 64 * 1024);
                uint64_t a = tl_alloc(&L, r, &sz[i], &h[i]);
                if (a == UINT64_MAX) {
                    ooms++;
                    continue;
                }
                req[i] = r;
                addr[i] = a;
                for (int k = 0; k < N; k++)
                    if (k != i && req[k] && addr[k] < a + sz[i] && a < addr[k] + sz[k])
                        failures++;
            }
        }
        CU_ASSERT_EQUAL(failures, 0);
        CU_ASSERT(ooms < 6000);
        tl_close(&L);
    }
}

/* mem_cannot_serve, which lets the engine skip a waiting request's retry (retry_after_free), is
 * sound: whenever it says 1 the attempt fails and changes nothing (no device call or refusal,
 * no region given back, no log line). Without growth, once the pool holds its one region, it is
 * exact: it says 1 for every attempt that fails. Seeded random states as in test_stress. */
static void test_cannot_serve(void)
{
    static const char *cfgs[] = {
        "      memory_limit: 16MiB\n",
        "      memory_limit: 16MiB\n      allow_growth: true\n",
        "      memory_limit: 16MiB\n      allow_growth: true\n      garbage_collection: true\n",
    };
    for (size_t c = 0; c < AM_ARRAY_LEN(cfgs); c++) {
        lvl L;
        mk(&L, "100MiB", cfgs[c]);
        enum { N = 64 };
        uint64_t h[N] = {0}, sz[N] = {0}, req[N] = {0};
        uint64_t x = 88172645463325252ULL + c;
        int said = 0, unsound = 0, missed = 0;
        for (int step = 0; step < 4000; step++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            int i = (int)(x % N);
            if (req[i]) {
                tl_free(&L, h[i], req[i], sz[i]);
                req[i] = 0;
                continue;
            }
            uint64_t r = 1 + (x >> 20) % ((x >> 60) < 4 ? 6 * MiB : 256 * 1024);
            mem_metrics was = *mem_get_metrics(L.m);
            fflush(L.log);
            size_t logged = L.loglen;
            int cannot = mem_cannot_serve(L.m, r);
            alloc_req q = {r, 0, 0};
            alloc_out o;
            int rc = mem_alloc_attempt(L.m, &q, &o);
            const mem_metrics *now = mem_get_metrics(L.m);
            fflush(L.log);
            if (cannot) {
                said++;
                if (rc == ALLOC_OK || now->device_allocs != was.device_allocs ||
                    now->device_refusals != was.device_refusals ||
                    now->device_frees != was.device_frees ||
                    now->reserved_bytes != was.reserved_bytes || L.loglen != logged)
                    unsound++;
            } else if (rc != ALLOC_OK && c == 0 && was.reserved_bytes) {
                missed++;
            }
            if (rc == ALLOC_OK) {
                req[i] = r;
                sz[i] = o.size;
                h[i] = o.handle;
            }
            CU_ASSERT(tl_check(&L) == 0);
        }
        CU_ASSERT_EQUAL(unsound, 0);
        CU_ASSERT_EQUAL(missed, 0);
        CU_ASSERT(said > 100); /* the states tested include many hopeless requests */
        tl_close(&L);
    }
    lvl L;
    mk(&L, "100MiB", "      memory_limit: 8MiB\n");
    CU_ASSERT_EQUAL(mem_cannot_serve(L.m, 8 * MiB), 0); /* the pool is taken at the first one */
    CU_ASSERT_EQUAL(mem_cannot_serve(L.m, 8 * MiB + 1), 1);
    CU_ASSERT_EQUAL(mem_cannot_serve(L.m, UINT64_MAX), 1);
    tl_close(&L);
}

void suite_bfc(void)
{
    TU_SUITE("bfc", {"rounding to 256", test_rounding}, {"bin numbers", test_bins},
             {"best fit, lowest address on ties", test_best_fit_tie_break},
             {"both split conditions", test_split_rules},
             {"split threshold below one byte and at 2^64", test_split_threshold_extremes},
             {"coalescing next then previous", test_coalescing},
             {"region doubling", test_region_doubling},
             {"region size saturates", test_region_size_saturates},
             {"0.9 back-off", test_backoff},
             {"back-off stops when it stops shrinking", test_backoff_stops},
             {"garbage collection", test_garbage_collection},
             {"garbage collection skips when it cannot serve the request",
              test_garbage_collection_skip},
             {"garbage collection gives a coalesced region back per device allocation",
              test_garbage_collection_coalesced},
             {"statistics and fragmentation metric", test_statistics_and_fragmentation},
             {"memory_fraction and memory_limit", test_memory_fraction},
             {"region coalescing", test_region_coalescing},
             {"seeded stress with invariant checks", test_stress},
             {"cannot_serve: sound, and exact without growth", test_cannot_serve});
}
