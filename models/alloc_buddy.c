/* alloc_buddy.c - a binary buddy system (Knowlton 1965; Knuth, TAOCP vol. 1, 2.5).
 *
 * One arena of the capacity (rounded down to `min_block`) is taken from the device at the first
 * request and never given back. The arena is covered from its start by the largest
 * power-of-two blocks that fit (a capacity that is not a power of two gives several top-level
 * blocks: 96 MiB is 64 MiB at offset 0 and 32 MiB at 64 MiB). Block sizes are min_block * 2^k
 * ("order" k); a block of order k sits at an offset (from the arena start) that is a multiple
 * of its size, and its buddy is at offset XOR size.
 *   alloc: a request takes the smallest block of size >= the request (so up to half of a block
 *          can be internal fragmentation; the engine reports it from given vs requested). The
 *          free list of that order, or failing that of the next larger order that has a block,
 *          gives its lowest-addressed block; a larger block is split in halves, the lower half
 *          kept and the upper half put on the free list of its order, down to the wanted order.
 *   free:  the block merges with its buddy while the buddy is free with the same order and the
 *          merged block stays inside its top-level block.
 * Free lists are address-ordered B+-trees (models/btree.h, one per order, their nodes from one
 * shared pool), so the choice is deterministic and each step is O(log n); every block also sits
 * in an address-ordered B+-tree for walk() and check(). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "btree.h"
#include "recpool.h"

#define BUDDY_ORDERS 64

struct buddy_opts {
    uint64_t min_block; /* bytes, a power of two */
};

static const opt_desc buddy_opt_table[] = {
    {"min_block", OPT_SIZE, offsetof(struct buddy_opts, min_block), "256",
     "smallest block in bytes (a power of two); requests round up to a power-of-two multiple",
     NULL, 0, 0},
    {NULL, OPT_BOOL, 0, NULL, NULL, NULL, 0, 0},
};

typedef struct bblk {
    uint64_t addr;      /* its key (addr, 0) in `all` and, when free, its order's free list */
    uint64_t requested; /* bytes asked for; 0 when free */
    int order;          /* size = min_block << order */
    int in_use;
} bblk;

typedef struct buddy {
    alloc_env env;
    uint64_t min;              /* min_block, bytes */
    int min_log2;
    int have_arena;
    uint64_t base, arena;      /* arena start address and bytes (multiple of min) */
    int max_order;             /* order of the largest top-level block */
    bt_tree free_list[BUDDY_ORDERS];
    bt_tree all;
    recpool nodes; /* the trees' nodes */
    recpool recs; /* bblk records */
    uint64_t bytes_in_use, peak_bytes_in_use, num_allocs, num_splits, num_merges, ooms;
} buddy;

static bblk *bb_new(buddy *d) { return recpool_get(&d->recs); }

static void bb_put(buddy *d, bblk *b) { recpool_put(&d->recs, b); }

static uint64_t bsize(const buddy *d, int order) { return d->min << order; }

/* Order of the top-level block that holds arena offset rel (rel < arena). */
static int top_order(const buddy *d, uint64_t rel)
{
    uint64_t units = d->arena >> d->min_log2, at = 0;
    for (int k = 63; k >= 0; k--)
        if (units >> k & 1) {
            at += bsize(d, k);
            if (rel < at)
                return k;
        }
    return -1;
}

static void free_put(buddy *d, bblk *b)
{
    b->in_use = 0;
    b->requested = 0;
    bt_insert(&d->free_list[b->order], b->addr, 0, b);
}

/* A new free block of `order` at addr, in both sets. */
static void block_add(buddy *d, uint64_t addr, int order)
{
    bblk *b = bb_new(d);
    b->order = order;
    b->addr = addr;
    bt_insert(&d->all, addr, 0, b);
    free_put(d, b);
}

static int take_arena(buddy *d)
{
    uint64_t arena = am_round_down(d->env.capacity, d->min);
    if (d->env.dev_alloc(d->env.ctx, arena, &d->base) != 0)
        return -1;
    d->have_arena = 1;
    d->arena = arena;
    uint64_t units = arena >> d->min_log2, at = d->base;
    d->max_order = -1;
    for (int k = 63; k >= 0; k--)
        if (units >> k & 1) {
            if (d->max_order < 0)
                d->max_order = k;
            block_add(d, at, k);
            at += bsize(d, k);
        }
    return 0;
}

/* Order of the smallest block that holds `bytes`, or -1 when none can. */
static int order_for(const buddy *d, uint64_t bytes)
{
    uint64_t units = (bytes - 1) >> d->min_log2; /* ceil(bytes / min) - 1 */
    int k = units ? 64 - __builtin_clzll(units) : 0;
    return k <= d->max_order ? k : -1;
}

static int buddy_alloc(void *st, const alloc_req *r, alloc_out *o)
{
    buddy *d = st;
    if (!d->have_arena && take_arena(d) != 0) {
        return ALLOC_OOM;
    }
    int k = order_for(d, r->bytes), j = k;
    while (j >= 0 && j <= d->max_order && d->free_list[j].n == 0)
        j++;
    if (k < 0 || j > d->max_order) {
        return ALLOC_OOM;
    }
    bt_iter it;
    bblk *b = bt_first(&d->free_list[j], &it);
    bt_remove_at(&d->free_list[j], &it);
    while (j > k) { /* keep the lower half, free the upper half */
        j--;
        block_add(d, b->addr + bsize(d, j), j);
        d->num_splits++;
    }
    b->order = k;
    b->in_use = 1;
    b->requested = r->bytes;
    d->bytes_in_use += bsize(d, k);
    if (d->bytes_in_use > d->peak_bytes_in_use)
        d->peak_bytes_in_use = d->bytes_in_use;
    d->num_allocs++;
    o->addr = b->addr;
    o->size = bsize(d, k);
    o->handle = (uint64_t)(uintptr_t)b;
    return ALLOC_OK;
}

/* The free block of `order` at addr, or NULL. */
static bblk *free_at(buddy *d, uint64_t addr, int order)
{
    return bt_find(&d->free_list[order], addr, 0);
}

static void buddy_free(void *st, uint64_t handle)
{
    buddy *d = st;
    bblk *b = (bblk *)(uintptr_t)handle;
    d->bytes_in_use -= bsize(d, b->order);
    uint64_t rel = b->addr - d->base;
    int top = top_order(d, rel);
    while (b->order < top) {
        uint64_t brel = rel ^ bsize(d, b->order);
        bt_iter it; /* the buddy, taken off its free list when it is there */
        bblk *y = bt_lower_bound(&d->free_list[b->order], d->base + brel, 0, &it);
        if (!y || y->addr != d->base + brel)
            break;
        bt_remove_at(&d->free_list[b->order], &it);
        bblk *lo = brel < rel ? y : b, *hi = brel < rel ? b : y;
        bt_remove(&d->all, hi->addr, 0);
        bb_put(d, hi);
        lo->order++;
        b = lo;
        rel = b->addr - d->base;
        d->num_merges++;
    }
    free_put(d, b);
}

/* Look-ahead hint (alloc.h): a free reads its block (stage 0); its buddy is found by address
 * in a tree, so stage 1 has nothing more. */
static void buddy_prefetch_free(void *st, uint64_t handle, int stage)
{
    (void)st;
    if (stage == 0)
        recpool_prefetch((const void *)(uintptr_t)handle, sizeof(bblk));
}

static uint64_t buddy_largest_free(void *st)
{
    buddy *d = st;
    for (int k = d->have_arena ? d->max_order : -1; k >= 0; k--)
        if (d->free_list[k].n)
            return bsize(d, k);
    return 0;
}

/* Peaks back to the current values (alloc.h reset_peaks). */
static void buddy_reset_peaks(void *st)
{
    buddy *d = st;
    d->peak_bytes_in_use = d->bytes_in_use;
}

static void buddy_stats(void *st, const stat_sink *s)
{
    buddy *d = st;
    uint64_t nfree = 0;
    for (int k = 0; k < BUDDY_ORDERS; k++)
        nfree += d->free_list[k].n;
    s->cur_peak(s->ctx, "bytes_in_use", d->bytes_in_use, d->peak_bytes_in_use);
    s->u64(s->ctx, "arena_bytes", d->have_arena ? d->arena : 0);
    s->u64(s->ctx, "num_allocs", d->num_allocs);
    s->u64(s->ctx, "num_splits", d->num_splits);
    s->u64(s->ctx, "num_merges", d->num_merges);
    s->u64(s->ctx, "free_blocks", nfree);
    s->u64(s->ctx, "largest_free_block_bytes", buddy_largest_free(d));
    s->u64(s->ctx, "num_ooms", d->ooms);
}

static void buddy_walk(void *st, void (*fn)(void *arg, const alloc_block *b), void *arg)
{
    buddy *d = st;
    bt_iter it;
    for (const bblk *b = bt_first(&d->all, &it); b; b = bt_next(&it)) {
        alloc_block a = {b->addr, bsize(d, b->order), b->requested, b->in_use, d->base};
        fn(arg, &a);
    }
}

static int buddy_check(void *st, am_error *err)
{
    buddy *d = st;
    int bad = 0;
    uint64_t at = d->base, used = 0, nfree = 0, nlisted = 0;
    if (bt_check(&d->all)) {
        bad++;
        am_fail(err, AM_EINTERNAL, "buddy: block set corrupt");
    }
    for (int k = 0; k < BUDDY_ORDERS; k++) {
        nlisted += d->free_list[k].n;
        if (bt_check(&d->free_list[k]) || (d->free_list[k].n && k > d->max_order)) {
            bad++;
            am_fail(err, AM_EINTERNAL, "buddy: free list of order %d corrupt", k);
        }
    }
    bt_iter it;
    for (const bblk *b = bt_first(&d->all, &it); b; b = bt_next(&it)) {
        uint64_t rel = b->addr - d->base, size = bsize(d, b->order);
        int top = top_order(d, rel);
        if (b->addr != at || bt_k1(&it) != b->addr || rel % size || b->order > top) {
            bad++;
            am_fail(err, AM_EINTERNAL, "buddy: block at %" PRIu64 " of %" PRIu64 " bytes "
                    "misplaced or misaligned", b->addr, size);
        }
        if (b->in_use) {
            used += size;
            if (b->requested == 0 || b->requested > size ||
                (b->order > 0 && b->requested <= size / 2)) {
                bad++;
                am_fail(err, AM_EINTERNAL, "buddy: block at %" PRIu64 " is not the smallest "
                        "that holds its %" PRIu64 "-byte request", b->addr, b->requested);
            }
        } else {
            nfree++;
            if (free_at(d, b->addr, b->order) != b) {
                bad++;
                am_fail(err, AM_EINTERNAL, "buddy: free block at %" PRIu64 " not on its list",
                        b->addr);
            }
            if (b->order < top && free_at(d, d->base + (rel ^ size), b->order)) {
                bad++;
                am_fail(err, AM_EINTERNAL, "buddy: free block at %" PRIu64 " and its buddy "
                        "are not merged", b->addr);
            }
        }
        at += size;
    }
    if ((d->have_arena && at != d->base + d->arena) || used != d->bytes_in_use ||
        nfree != nlisted) {
        bad++;
        am_fail(err, AM_EINTERNAL, "buddy: blocks do not tile the arena, in use %" PRIu64
                " != %" PRIu64 ", or %" PRIu64 " free blocks vs %" PRIu64 " listed", used,
                d->bytes_in_use, nfree, nlisted);
    }
    return bad;
}

/* min_block a power of two (0 was quietly 256 until 2026-11-25) the capacity holds (checked
 * when a config loads since 2026-11-27, alloc.h check_opts). */
static int buddy_check_opts(const void *opts, const alloc_env *env, am_error *err)
{
    uint64_t min = ((const struct buddy_opts *)opts)->min_block;
    if (am_check_pow2(err, "min_block", min, AM_MAX_BYTES, "4 EiB") < 0)
        return -1;
    if (env->capacity < min)
        return am_fail_opt(err, "capacity,min_block", "buddy: capacity of %" PRIu64 " bytes is "
                           "below min_block (%" PRIu64 " bytes)", env->capacity, min);
    return 0;
}

static int buddy_create(void **out, const alloc_env *env, const void *opts, am_error *err)
{
    static const struct buddy_opts defaults = {256};
    const struct buddy_opts *o = opts ? opts : &defaults;
    if (buddy_check_opts(o, env, err) < 0)
        return -1;
    uint64_t min = o->min_block;
    buddy *d = am_calloc(1, sizeof *d);
    recpool_init(&d->recs, sizeof(bblk));
    d->env = *env;
    d->min = min;
    d->min_log2 = __builtin_ctzll(min);
    d->max_order = -1;
    bt_use_pool(&d->all, &d->nodes);
    for (int k = 0; k < BUDDY_ORDERS; k++)
        bt_use_pool(&d->free_list[k], &d->nodes);
    *out = d;
    return 0;
}

static void buddy_destroy(void *st)
{
    buddy *d = st;
    recpool_destroy(&d->nodes); /* every tree's nodes */
    recpool_destroy(&d->recs);
    free(d);
}

/* A refused request finally failed (alloc.h count_oom): the one place ooms grows. */
static void buddy_count_oom(void *st) { ((buddy *)st)->ooms++; }

/* alloc.h min_capacity: the power-of-two block of min_block units that holds the request, which
 * only an arena of at least its size has (the arena's largest block is its top power of two).
 * A request past the largest order (order_for's -1) needs more than the arena, which is the
 * pool limit: UINT64_MAX says so as the block's own size did (until 2026-11-28 a copy of
 * order_for computed that size). The engine asks only after an attempt, which took the arena;
 * without one (an arena of 0 bytes) max_order is -1 and nothing fits either way. */
static uint64_t buddy_min_capacity(void *st, uint64_t bytes)
{
    const buddy *d = st;
    int k = order_for(d, bytes);
    return k < 0 ? UINT64_MAX : bsize(d, k);
}

/* The arena, the capacity rounded down to min_block (alloc.h pool_limit): all it ever holds, so
 * a request past it is one no compaction or spill can serve (until 2026-11-28 the engine
 * tested the capacity, and moved or spilled buffers for such a request before it failed). */
static uint64_t buddy_pool_limit(void *st)
{
    const buddy *d = st;
    return am_round_down(d->env.capacity, d->min);
}

static const struct alloc_ops buddy_ops = {
    .name = "buddy",
    .summary = "binary buddy system over one arena of the capacity (power-of-two blocks, "
               "the smallest order with a free block first, then the lowest address)",
    .opts = buddy_opt_table,
    .opts_size = sizeof(struct buddy_opts),
    .create = buddy_create,
    .check_opts = buddy_check_opts,
    .destroy = buddy_destroy,
    .alloc = buddy_alloc,
    .free = buddy_free,
    .prefetch_free = buddy_prefetch_free,
    .largest_free = buddy_largest_free,
    .stats = buddy_stats,
    .reset_peaks = buddy_reset_peaks,
    .walk = buddy_walk,
    .check = buddy_check,
    .count_oom = buddy_count_oom,
    .min_capacity = buddy_min_capacity,
    .pool_limit = buddy_pool_limit,
};

const struct alloc_ops *alloc_buddy_ops(void);
const struct alloc_ops *alloc_buddy_ops(void) { return &buddy_ops; }
