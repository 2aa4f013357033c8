/* alloc_bfc.c - TensorFlow / XLA / JAX's BFC allocator (best-fit with coalescing), exact.
 *
 * Reference: ../shared/specs/allocators.md section 1, written from tsl's
 * tsl/framework/bfc_allocator.{h,cc}. Rules reproduced here:
 *   - a request of n bytes becomes R = round up n to 256; n = 0 is refused by the engine;
 *   - free chunks sit in 21 bins ordered by (size, address); the search starts at bin(R) and
 *     takes the first chunk with size >= R. Because bins partition sizes in ascending order,
 *     that is exactly the lower bound of (R, 0) in one (size, address)-ordered set, which is
 *     what we keep (a B+-tree, models/btree.h: four nodes deep at a million free chunks) (bin numbers are still computed for statistics and checks);
 *   - the allocation takes the low end; the chunk is split when size >= 2R or
 *     size - R >= max_internal_fragmentation (128 MiB, or fragmentation_fraction * limit,
 *     saturated at 2^64 - 1), never when size = R;
 *   - a freed chunk merges with its next neighbour, then its previous one (same region only);
 *   - on a miss the pool grows by a region (Extend): available = round down (limit - pool) to
 *     256; fail if R > available; double the region size until >= R; take min(region size,
 *     available); on device refusal back off by 0.9 (single-precision float, truncated, rounded
 *     up to 256) until it fits or drops below R, or stops shrinking (at 2304 bytes and below,
 *     where tsl would retry the same size for ever): out of memory; if the size did not have
 *     to grow, double it afterwards. The first region size is round up min(limit, 2 MiB) with
 *     allow_growth, else the whole limit (taken at the first request);
 *   - with garbage_collection, a miss that Extend cannot serve gives back every region whose
 *     chunks are all free (when that could make room) and extends again;
 *   - with region_coalescing, a region that starts where the previous one ends extends it and
 *     its chunk links to (and merges with) that region's last chunk; a region given back
 *     returns each device allocation it was built from on its own.
 * Statistics keep TensorFlow's names (num_allocs, bytes_in_use, peak_bytes_in_use,
 * largest_alloc_size, pool_bytes, peak_pool_bytes, bytes_limit, largest_free_block_bytes) and
 * BFC's fragmentation metric (free - largest free chunk) / free. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/units.h"
#include "alloc.h"
#include "btree.h"
#include "recpool.h"

#define BFC_MIN 256ULL              /* kMinAllocationSize: request and address granularity */
#define BFC_BINS 21
#define BFC_DEFAULT_MAX_FRAG (128ULL << 20)

struct bfc_opts {
    uint64_t memory_limit;        /* bytes; 0 = use memory_fraction */
    double memory_fraction;       /* of the device capacity */
    int allow_growth;
    int garbage_collection;
    double fragmentation_fraction;
    int region_coalescing;
    int retry_after_free;         /* engine: failed requests wait for frees */
    am_ps retry_wait;             /* longest simulated wait */
};

static const opt_desc bfc_opt_table[] = {
    {"memory_limit", OPT_SIZE, offsetof(struct bfc_opts, memory_limit), "0",
     "pool cap in bytes; 0 = memory_fraction of capacity (memory_limit wins when both are set)",
     NULL, 0, 0},
    {"memory_fraction", OPT_FRACTION, offsetof(struct bfc_opts, memory_fraction), "0.75",
     "pool cap as a fraction of total device memory (JAX default 0.75)", NULL, 0, 0},
    {"allow_growth", OPT_BOOL, offsetof(struct bfc_opts, allow_growth), "false",
     "grow the pool by doubling regions from 2 MiB instead of one region of the limit", NULL,
     0, 0},
    {"garbage_collection", OPT_BOOL, offsetof(struct bfc_opts, garbage_collection), "false",
     "on a miss, give back completely free regions and retry", NULL, 0, 0},
    {"fragmentation_fraction", OPT_FRACTION, offsetof(struct bfc_opts, fragmentation_fraction),
     "0", "split when the remainder >= this fraction of the limit (0: 128 MiB)", NULL, 0, 0},
    {"region_coalescing", OPT_BOOL, offsetof(struct bfc_opts, region_coalescing), "false",
     "a region adjacent to the previous one extends it", NULL, 0, 0},
    {"retry_after_free", OPT_BOOL, offsetof(struct bfc_opts, retry_after_free), "false",
     "a failed request waits for frees later on the timeline before it fails", NULL, 0, 0},
    {"retry_wait", OPT_TIME, offsetof(struct bfc_opts, retry_wait), "10s",
     "longest simulated wait of a retried request", NULL, 0, 0},
    {NULL, OPT_BOOL, 0, NULL, NULL, NULL, 0, 0},
};

typedef struct chunk chunk;
struct chunk {
    /* what a free reads of its address neighbours first, in the record's first 36 bytes */
    uint64_t addr;      /* device address */
    uint64_t size;      /* bytes, multiple of 256 */
    chunk *prev, *next; /* address neighbours inside the region */
    int in_use;
    uint64_t requested; /* bytes asked for; 0 when free */
    struct region *region;
};

/* A region is one device allocation, or with region_coalescing a run of adjacent ones that
 * extend it: `pieces` keeps their sizes in address order, so the region goes back to the device
 * as what the device gave (see gc_regions). */
typedef struct region {
    uint64_t addr, size;
    chunk *first;
    uint64_t *pieces;
    size_t npieces;
} region;

typedef struct bfc {
    alloc_env env;
    struct bfc_opts o;
    uint64_t limit;              /* memory_limit in bytes */
    uint64_t max_frag;           /* max_internal_fragmentation_bytes */
    uint64_t curr_region;        /* curr_region_allocation_bytes_ */
    bt_tree free_set;            /* free chunks by (size, address) -> chunk */
    region **regions;            /* sorted by address */
    size_t nregions, cap_regions;
    recpool chunks;              /* chunk records */
    /* statistics */
    uint64_t num_allocs, bytes_in_use, peak_bytes_in_use, largest_alloc_size;
    uint64_t pool_bytes, peak_pool_bytes, ooms, gc_runs, regions_freed;
} bfc;

static inline uint64_t round256(uint64_t n) { return am_round_up(n, BFC_MIN); }

/* Bin of a size: min(20, floor(log2(max(s, 256) / 256))). */
static int bfc_bin(uint64_t s)
{
    uint64_t v = (s < BFC_MIN ? BFC_MIN : s) >> 8;
    int b = 63 - __builtin_clzll(v);
    return b < BFC_BINS - 1 ? b : BFC_BINS - 1;
}

static chunk *chunk_new(bfc *b)
{
    chunk *c = recpool_take(&b->chunks);
    memset(c, 0, sizeof *c);
    return c;
}

static void chunk_put(bfc *b, chunk *c) { recpool_put(&b->chunks, c); }

/* The free set is keyed by (size, address): a free chunk must leave it before either changes. */
static void bin_insert(bfc *b, chunk *c) { bt_insert(&b->free_set, c->size, c->addr, c); }

static void bin_remove(bfc *b, chunk *c) { bt_remove(&b->free_set, c->size, c->addr); }

/* Merge c2 (the next neighbour) into c1; both are out of the free set. */
static void merge(bfc *b, chunk *c1, chunk *c2)
{
    c1->size += c2->size;
    c1->next = c2->next;
    if (c2->next)
        c2->next->prev = c1;
    chunk_put(b, c2);
}

/* TryToCoalesce, then InsertFreeChunkIntoBin: c (free, not in the set) absorbs a free next
 * neighbour, then a free previous one absorbs it, and the result is filed. The set entry of the
 * last neighbour merged is re-keyed to the result (no second descent when it stays in its
 * leaf) instead of being removed and the result inserted. */
static void coalesce_insert(bfc *b, chunk *c)
{
    chunk *n = c->next && !c->next->in_use ? c->next : NULL;
    chunk *p = c->prev && !c->prev->in_use ? c->prev : NULL;
    uint64_t ks, ka; /* the key re-used */
    if (n) {
        ks = n->size;
        ka = n->addr;
        merge(b, c, n);
        if (p) {
            bin_remove(b, p);
            merge(b, p, c);
            c = p;
        }
    } else if (p) {
        ks = p->size;
        ka = p->addr;
        merge(b, p, c);
        c = p;
    } else {
        bin_insert(b, c);
        return;
    }
    bt_rekey(&b->free_set, ks, ka, c->size, c->addr, c);
}

static void log_region(bfc *b, char tag, uint64_t addr, uint64_t size)
{
    if (b->env.log) {
        char line[96];
        snprintf(line, sizeof line, "%c %" PRIu64 " %" PRIu64, tag, addr, size);
        b->env.log(b->env.ctx, line);
    }
}

static region *region_insert(bfc *b, uint64_t addr, uint64_t size)
{
    if (b->nregions == b->cap_regions) {
        b->cap_regions = b->cap_regions ? 2 * b->cap_regions : 16;
        b->regions = am_realloc(b->regions, b->cap_regions * sizeof *b->regions);
    }
    size_t i = b->nregions;
    while (i > 0 && b->regions[i - 1]->addr > addr)
        i--;
    memmove(&b->regions[i + 1], &b->regions[i], (b->nregions - i) * sizeof *b->regions);
    b->nregions++;
    region *r = am_malloc(sizeof *r);
    *r = (region){addr, size, NULL, am_malloc(sizeof *r->pieces), 1};
    r->pieces[0] = size;
    b->regions[i] = r;
    return r;
}

/* A device allocation adjacent to r's end extends it (region_coalescing). */
static void region_extend(region *r, uint64_t size)
{
    r->pieces = am_realloc(r->pieces, (r->npieces + 1) * sizeof *r->pieces);
    r->pieces[r->npieces++] = size;
    r->size += size;
}

static void region_destroy(region *r)
{
    free(r->pieces);
    free(r);
}

static int region_used(const region *r)
{
    for (const chunk *c = r->first; c; c = c->next)
        if (c->in_use)
            return 1;
    return 0;
}

/* curr_region_allocation_bytes_ *= 2, saturated. A region is never larger than the limit
 * (min(current, available), available <= limit), so once the size has reached the limit a
 * larger one takes the same regions: the doubling stops there (or at 2^64 - 1 when the limit is
 * above 2^63) and every region taken is the one unbounded doubling takes. Until 2026-11-27 it
 * doubled without end: each garbage collection followed by Extend doubled it again, after 43
 * doublings from 2 MiB it wrapped to 0, and the loop in extend() doubling 0 never ended. */
static void double_region(bfc *b)
{
    if (b->curr_region < b->limit)
        b->curr_region = b->curr_region > UINT64_MAX / 2 ? UINT64_MAX : 2 * b->curr_region;
}

/* The room Extend may take below the limit: limit - pool, rounded down to BFC_MIN (0 once the
 * pool has reached the limit). */
static uint64_t extend_room(const bfc *b)
{
    return am_round_down(b->limit > b->pool_bytes ? b->limit - b->pool_bytes : 0, BFC_MIN);
}

/* Extend: grow the pool by one region able to hold `rounded` bytes. */
static int extend(bfc *b, uint64_t rounded)
{
    uint64_t avail = extend_room(b);
    if (rounded > avail)
        return 0;
    int increased = 0;
    while (rounded > b->curr_region) { /* ends: rounded <= available <= limit */
        double_region(b);
        increased = 1;
    }
    uint64_t bytes = AM_MIN(b->curr_region, avail), addr = 0;
    int got = b->env.dev_alloc(b->env.ctx, bytes, &addr) == 0;
    while (!got) {
        float f = (float)bytes * 0.9f; /* kBackpedalFactor is a float */
        uint64_t smaller = round256((uint64_t)f);
        /* At or below 2304 bytes (9 x 256) rounding 0.9 x bytes up to 256 gives bytes back:
         * tsl's loop would ask the device for the same size for ever. The device answers the
         * same size the same way, so the request has failed. Until 2026-11-27 this looped for
         * ever (a level of up to 2304 bytes under a larger limit). */
        if (smaller < rounded || smaller >= bytes)
            break;
        bytes = smaller;
        got = b->env.dev_alloc(b->env.ctx, bytes, &addr) == 0;
    }
    if (!got)
        return 0;
    if (!increased)
        double_region(b);
    b->pool_bytes += bytes;
    if (b->pool_bytes > b->peak_pool_bytes)
        b->peak_pool_bytes = b->pool_bytes;

    chunk *c = chunk_new(b);
    c->addr = addr;
    c->size = bytes;
    region *r = NULL;
    if (b->o.region_coalescing) {
        for (size_t i = 0; i < b->nregions; i++)
            if (b->regions[i]->addr + b->regions[i]->size == addr) {
                r = b->regions[i];
                break;
            }
    }
    if (r) {
        region_extend(r, bytes);
        chunk *last = r->first;
        while (last->next)
            last = last->next;
        last->next = c;
        c->prev = last;
        c->region = r;
    } else {
        r = region_insert(b, addr, bytes);
        r->first = c;
        c->region = r;
    }
    coalesce_insert(b, c);
    return 1;
}

/* FindChunkPtr: smallest free chunk >= rounded, lowest address among equals. */
static chunk *find_chunk(bfc *b, uint64_t rounded, uint64_t requested)
{
    bt_iter it;
    chunk *c = bt_lower_bound(&b->free_set, rounded, 0, &it);
    if (!c)
        return NULL;
    /* A chunk that fits exactly is handed out whole: with max_frag 0 (fraction x limit below
     * one byte) the second test holds for it too, and until 2026-11-28 it was split into a
     * 0-byte chunk that broke the region's tiling (tsl would make the same empty chunk). */
    if (c->size > rounded && (c->size >= 2 * rounded || c->size - rounded >= b->max_frag)) {
        /* the remainder takes c's entry in the free set */
        chunk *rest = chunk_new(b);
        rest->addr = c->addr + rounded;
        rest->size = c->size - rounded;
        rest->region = c->region;
        rest->prev = c;
        rest->next = c->next;
        if (c->next)
            c->next->prev = rest;
        c->next = rest;
        c->size = rounded;
        bt_rekey_at(&b->free_set, &it, rest->size, rest->addr, rest);
    } else {
        bt_remove_at(&b->free_set, &it);
    }
    c->in_use = 1;
    c->requested = requested;
    b->num_allocs++;
    b->bytes_in_use += c->size;
    if (b->bytes_in_use > b->peak_bytes_in_use)
        b->peak_bytes_in_use = b->bytes_in_use;
    if (c->size > b->largest_alloc_size)
        b->largest_alloc_size = c->size;
    return c;
}

/* DeallocateFreeRegions: give back every region with no chunk in use, if that could help. */
static int gc_regions(bfc *b, uint64_t rounded)
{
    if (!b->o.garbage_collection)
        return 0;
    uint64_t total_free = 0;
    for (size_t i = 0; i < b->nregions; i++)
        if (!region_used(b->regions[i]))
            total_free += b->regions[i]->size;
    if (total_free == 0)
        return 0;
    if (rounded > b->limit - b->pool_bytes + total_free)
        return 0;
    size_t keep = 0;
    for (size_t i = 0; i < b->nregions; i++) {
        region *r = b->regions[i];
        if (region_used(r)) {
            b->regions[keep++] = r;
            continue;
        }
        for (chunk *c = r->first, *nx; c; c = nx) {
            nx = c->next;
            bin_remove(b, c);
            chunk_put(b, c);
        }
        /* tsl frees the region with one SubAllocator::Free of its whole range; TensorFlow's
         * sub-allocator that coalesces (GpuVirtualMemAllocator) then unmaps and releases each
         * mapping it made, one per Alloc. So each device allocation goes back on its own: one
         * dev_free (and G line, and segment_unmap) each, and device_allocs - device_frees stays
         * the ranges held. Until 2026-11-28 a coalesced region went back in one dev_free. */
        uint64_t at = r->addr;
        for (size_t k = 0; k < r->npieces; k++) {
            b->env.dev_free(b->env.ctx, at, r->pieces[k]);
            at += r->pieces[k];
        }
        b->pool_bytes -= r->size;
        b->regions_freed++;
        region_destroy(r);
    }
    b->nregions = keep;
    b->gc_runs++;
    return 1;
}

static int bfc_alloc(void *st, const alloc_req *r, alloc_out *o)
{
    bfc *b = st;
    uint64_t rounded = round256(r->bytes);
    chunk *c = find_chunk(b, rounded, r->bytes);
    if (!c && extend(b, rounded))
        c = find_chunk(b, rounded, r->bytes);
    if (!c && gc_regions(b, rounded) && extend(b, rounded))
        c = find_chunk(b, rounded, r->bytes);
    if (!c) {
        return ALLOC_OOM;
    }
    o->addr = c->addr;
    o->size = c->size;
    o->handle = (uint64_t)(uintptr_t)c;
    return ALLOC_OK;
}

static void bfc_free(void *st, uint64_t handle)
{
    bfc *b = st;
    chunk *c = (chunk *)(uintptr_t)handle;
    c->in_use = 0;
    c->requested = 0;
    b->bytes_in_use -= c->size;
    coalesce_insert(b, c);
}

/* Look-ahead hint (alloc.h): a free reads its chunk (stage 0), then both neighbours (stage 1). */
static void bfc_prefetch_free(void *st, uint64_t handle, int stage)
{
    (void)st;
    recpool_prefetch_linked((const void *)(uintptr_t)handle, stage, offsetof(chunk, region),
                            offsetof(chunk, prev), offsetof(chunk, next),
                            offsetof(chunk, requested));
}

static uint64_t bfc_largest_free(void *st)
{
    return bt_last_k1(&((bfc *)st)->free_set); /* a free chunk's key is (size, address) */
}

/* alloc.h cannot_serve: the request fails with no side effect when no free chunk holds it
 * (find_chunk is an exact best fit), Extend refuses it before any device call (more than the
 * pool's headroom) and garbage collection gives nothing back (it frees regions only when their
 * free bytes, at most pool - in use, plus the headroom make room). Monotone: a larger request
 * fails all three tests too. */
static int bfc_cannot_serve(void *st, uint64_t bytes)
{
    bfc *b = st;
    uint64_t rounded = round256(bytes);
    if (rounded <= bfc_largest_free(b))
        return 0;
    if (!b->o.garbage_collection)
        return rounded > extend_room(b);
    /* what garbage collection can make: limit - in use >= limit - pool + free regions' bytes */
    return rounded > (b->limit > b->bytes_in_use ? b->limit - b->bytes_in_use : 0);
}

/* Peaks back to the current values (alloc.h reset_peaks), and largest_alloc_size to 0, as
 * TensorFlow's ClearStats does. */
static void bfc_reset_peaks(void *st)
{
    bfc *b = st;
    b->peak_bytes_in_use = b->bytes_in_use;
    b->largest_alloc_size = 0;
    b->peak_pool_bytes = b->pool_bytes;
}

static void bfc_stats(void *st, const stat_sink *s)
{
    bfc *b = st;
    uint64_t largest = bfc_largest_free(b);
    s->u64(s->ctx, "num_allocs", b->num_allocs);
    s->u64(s->ctx, "bytes_in_use", b->bytes_in_use);
    s->u64(s->ctx, "peak_bytes_in_use", b->peak_bytes_in_use);
    s->u64(s->ctx, "largest_alloc_size", b->largest_alloc_size);
    s->u64(s->ctx, "pool_bytes", b->pool_bytes);
    s->u64(s->ctx, "peak_pool_bytes", b->peak_pool_bytes);
    s->u64(s->ctx, "bytes_limit", b->limit);
    s->u64(s->ctx, "largest_free_block_bytes", largest);
    uint64_t free_b = b->pool_bytes - b->bytes_in_use;
    s->real(s->ctx, "fragmentation", free_b ? (double)(free_b - largest) / (double)free_b : 0,
            free_b == 0);
    s->u64(s->ctx, "num_regions", b->nregions);
    s->u64(s->ctx, "ooms", b->ooms);
    s->u64(s->ctx, "gc_runs", b->gc_runs);
    s->u64(s->ctx, "regions_freed", b->regions_freed);
}

static void bfc_walk(void *st, void (*fn)(void *arg, const alloc_block *blk), void *arg)
{
    bfc *b = st;
    for (size_t i = 0; i < b->nregions; i++)
        for (chunk *c = b->regions[i]->first; c; c = c->next) {
            alloc_block blk = {c->addr, c->size, c->requested, c->in_use, b->regions[i]->addr};
            fn(arg, &blk);
        }
}

#define BAD(...) (bad++, am_fail(err, AM_EINTERNAL, __VA_ARGS__))

static int bfc_check(void *st, am_error *err)
{
    bfc *b = st;
    int bad = 0;
    uint64_t pool = 0, in_use = 0;
    size_t nfree = 0;
    for (size_t i = 0; i < b->nregions; i++) {
        region *r = b->regions[i];
        uint64_t at = r->addr;
        pool += r->size;
        if (i > 0 && b->regions[i - 1]->addr + b->regions[i - 1]->size > r->addr)
            BAD("bfc: regions overlap at %" PRIu64, r->addr);
        for (chunk *c = r->first; c; c = c->next) {
            if (c->addr != at || c->region != r || c->size == 0 || c->size % BFC_MIN ||
                (c->next && c->next->prev != c))
                BAD("bfc: chunk at %" PRIu64 " breaks the tiling of region %" PRIu64, c->addr,
                    r->addr);
            if (c->in_use) {
                in_use += c->size;
            } else {
                nfree++;
                if (bt_find(&b->free_set, c->size, c->addr) != c)
                    BAD("bfc: free chunk %" PRIu64 " misfiled", c->addr);
                if (c->next && !c->next->in_use)
                    BAD("bfc: free neighbours at %" PRIu64 " not coalesced", c->addr);
            }
            at += c->size;
        }
        if (at != r->addr + r->size)
            BAD("bfc: chunks of region %" PRIu64 " do not fill it", r->addr);
        uint64_t pieces = 0;
        for (size_t k = 0; k < r->npieces; k++)
            pieces += r->pieces[k];
        if (pieces != r->size)
            BAD("bfc: device allocations of region %" PRIu64 " do not fill it", r->addr);
    }
    if (pool != b->pool_bytes || in_use != b->bytes_in_use || nfree != b->free_set.n ||
        bt_check(&b->free_set))
        BAD("bfc: statistics disagree with a walk (pool %" PRIu64 "/%" PRIu64 ", in use %" PRIu64
            "/%" PRIu64 ", free chunks %zu/%zu)",
            pool, b->pool_bytes, in_use, b->bytes_in_use, nfree, b->free_set.n);
    if (b->pool_bytes > b->limit)
        BAD("bfc: pool of %" PRIu64 " bytes above the limit", b->pool_bytes);
    return bad;
}

static void bfc_finish(void *st)
{
    bfc *b = st;
    if (!b->env.log)
        return;
    uint64_t largest = bfc_largest_free(b), free_b = b->pool_bytes - b->bytes_in_use;
    /* BFC's metric (free - largest free chunk) / free is undefined when nothing is free:
     * "null", as the JSON statistics say (allocators.md section 1). */
    char frag[32] = "null";
    if (free_b)
        snprintf(frag, sizeof frag, "%.9f", (double)(free_b - largest) / (double)free_b);
    char line[512];
    snprintf(line, sizeof line,
             "S bytes_in_use=%" PRIu64 " peak_bytes_in_use=%" PRIu64 " num_allocs=%" PRIu64
             " largest_alloc_size=%" PRIu64 " pool_bytes=%" PRIu64 " peak_pool_bytes=%" PRIu64
             " largest_free_chunk=%" PRIu64 " fragmentation=%s ooms=%" PRIu64,
             b->bytes_in_use, b->peak_bytes_in_use, b->num_allocs, b->largest_alloc_size,
             b->pool_bytes, b->peak_pool_bytes, largest, frag, b->ooms);
    b->env.log(b->env.ctx, line);
    /* Teardown: the allocator gives every region back (logged; state kept for the report). */
    for (size_t i = 0; i < b->nregions; i++) {
        const region *r = b->regions[i];
        uint64_t at = r->addr;
        for (size_t k = 0; k < r->npieces; k++) { /* one line per device allocation, as GC */
            log_region(b, 'G', at, r->pieces[k]);
            at += r->pieces[k];
        }
    }
}

/* The pool limit: memory_limit, else memory_fraction of the capacity. */
static uint64_t bfc_limit(const struct bfc_opts *o, const alloc_env *env)
{
    return o->memory_limit ? o->memory_limit
                           : (uint64_t)((double)env->capacity * o->memory_fraction);
}

/* A limit of at least 256 bytes (kMinAllocationSize): below it no request fits. Checked when a
 * config loads too (alloc.h check_opts; until 2026-11-27 only when a run started). */
static int bfc_check_opts(const void *opts, const alloc_env *env, am_error *err)
{
    const struct bfc_opts *o = opts;
    uint64_t lim = bfc_limit(o, env);
    if (lim >= BFC_MIN)
        return 0;
    if (o->memory_limit)
        return am_fail_opt(err, "memory_limit", "bfc: memory limit of %" PRIu64 " bytes is "
                           "below 256 bytes", lim);
    /* the fraction as written (units_fmt_real), not %g's 6 digits: until 2026-11-28
     * 0.0000000029802319 was quoted as 2.98023e-09, which times the capacity passes */
    char frac[40];
    units_fmt_real(frac, sizeof frac, o->memory_fraction);
    return am_fail_opt(err, "memory_fraction,capacity", "bfc: memory limit of %" PRIu64
                       " bytes (memory_fraction %s of a %" PRIu64 "-byte capacity) is below "
                       "256 bytes", lim, frac, env->capacity);
}

/* max_internal_fragmentation_bytes_ = fraction * limit, truncated as tsl's double to size_t.
 * A product of 2^64 or more (a limit near 2^64, where the double rounds up to 2^64) has no
 * uint64_t value and converting it is undefined behaviour: it saturates to UINT64_MAX, which no
 * remainder reaches, so only the 2R rule splits. Until 2026-11-28 the conversion gave 0 here
 * (on x86-64), so every remainder split. */
static uint64_t max_frag_bytes(uint64_t limit, double fraction)
{
    double p = (double)limit * fraction;
    return p >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)p;
}

static int bfc_create(void **out, const alloc_env *env, const void *opts, am_error *err)
{
    static const struct bfc_opts defaults = {0, 0.75, 0, 0, 0, 0, 0, 10 * AM_PS_PER_S};
    const struct bfc_opts *o = opts ? opts : &defaults;
    if (bfc_check_opts(o, env, err) < 0)
        return -1;
    bfc *b = am_calloc(1, sizeof *b);
    recpool_init(&b->chunks, sizeof(chunk));
    b->env = *env;
    b->o = *o;
    b->limit = bfc_limit(o, env);
    b->max_frag = o->fragmentation_fraction > 0
                      ? max_frag_bytes(b->limit, o->fragmentation_fraction)
                      : BFC_DEFAULT_MAX_FRAG;
    /* Without allow_growth the whole limit, rounded up to 256 bytes; a limit in the last 255
     * bytes below 2^64 would round to 0 (and extend() double 0 for ever, as until 2026-11-27):
     * any size >= the limit takes the same region, so it stays 2^64 - 1. */
    uint64_t whole = b->limit > UINT64_MAX - (BFC_MIN - 1) ? UINT64_MAX : round256(b->limit);
    b->curr_region = o->allow_growth ? round256(AM_MIN(b->limit, 2ULL << 20)) : whole;
    *out = b;
    return 0;
}

static void bfc_destroy(void *st)
{
    bfc *b = st;
    bt_destroy(&b->free_set);
    recpool_destroy(&b->chunks);
    for (size_t i = 0; i < b->nregions; i++)
        region_destroy(b->regions[i]);
    free(b->regions);
    free(b);
}

static int bfc_retry(const void *opts, am_ps *wait)
{
    const struct bfc_opts *o = opts;
    if (!o || !o->retry_after_free)
        return 0;
    *wait = o->retry_wait;
    return 1;
}

/* A refused request finally failed (alloc.h count_oom): the one place ooms grows. */
static void bfc_count_oom(void *st) { ((bfc *)st)->ooms++; }

/* alloc.h min_capacity: a chunk of the request rounded up to 256 bytes, which a region within
 * the limit must hold (Extend: fail if R > the limit rounded down to 256). */
static uint64_t bfc_min_capacity(void *st, uint64_t bytes)
{
    (void)st;
    return round256(bytes);
}

/* The pool limit (alloc.h pool_limit): no region grows the pool past it. */
static uint64_t bfc_pool_limit(void *st) { return ((bfc *)st)->limit; }

static const struct alloc_ops bfc_ops = {
    .name = "bfc",
    .summary = "TensorFlow/XLA/JAX best-fit with coalescing, exact (regions, bins, growth, GC)",
    .opts = bfc_opt_table,
    .opts_size = sizeof(struct bfc_opts),
    .create = bfc_create,
    .check_opts = bfc_check_opts,
    .destroy = bfc_destroy,
    .alloc = bfc_alloc,
    .free = bfc_free,
    .prefetch_free = bfc_prefetch_free,
    .largest_free = bfc_largest_free,
    .stats = bfc_stats,
    .reset_peaks = bfc_reset_peaks,
    .walk = bfc_walk,
    .check = bfc_check,
    .finish = bfc_finish,
    .retry_after_free = bfc_retry,
    .cannot_serve = bfc_cannot_serve,
    .count_oom = bfc_count_oom,
    .min_capacity = bfc_min_capacity,
    .pool_limit = bfc_pool_limit,
};

const struct alloc_ops *alloc_bfc_ops(void);
const struct alloc_ops *alloc_bfc_ops(void) { return &bfc_ops; }

/* bfc_bin is exported for the unit tests through this accessor. */
int alloc_bfc_bin(uint64_t size);
int alloc_bfc_bin(uint64_t size) { return bfc_bin(size); }
