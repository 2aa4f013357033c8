/* alloc_cuda_async.c - a MODEL of CUDA's stream-ordered pool allocator (cudaMallocAsync), as JAX
 * uses it with XLA_PYTHON_CLIENT_ALLOCATOR=cuda_async.
 *
 * Reference: ../shared/specs/allocators.md section 2: requests are exact sizes (no 256-byte
 * rounding in its statistics); the pool keeps freed memory up to a release threshold of
 * memory_fraction * total device memory; growing the pool mid-run costs time.
 * CUDA's internal algorithm is NOT public. What follows is a model with stated assumptions:
 *   - Statistics count exact request sizes. Inside the pool a block occupies the request rounded
 *     up to `alignment` (512 bytes by default, an assumption), and that footprint is the size
 *     reported to the level (so the level's allocated <= reserved stays physical).
 *   - The pool grows from the device in chunks of round_up(need, pool_granularity) bytes
 *     (2 MiB default, an assumption; then rounded to the device granularity); each growth
 *     charges `grow_latency` of host time (20 us default, an assumption) through take_latency.
 *     Chunks never merge with each other.
 *   - Placement inside the pool is best fit over all chunks: the smallest free block that fits,
 *     lowest address among equal sizes; the block's low end is taken and the rest stays free.
 *     A freed block merges with free address neighbours in its chunk at once.
 *   - Any stream may reuse any freed block: the ordering of cross-stream reuse (CUDA's event
 *     dependencies, cudaMemPoolReuse* attributes) is not modelled.
 *   - After a free, while the reserved pool exceeds `release_threshold` (0 = memory_fraction *
 *     capacity, JAX's setting; memory_fraction defaults to 0.75), completely free chunks are
 *     returned to the device, highest address first. (CUDA trims at synchronisation points;
 *     the engine has none, so the trim happens at the free.)
 *   - When the device refuses a growth and `trim_on_oom` is on, every completely free chunk is
 *     returned and the growth is tried once more before the request fails (assumption).
 * Free blocks sit in a (size, address)-ordered size-class set (models/sizeset.h), chunks and
 * idle chunks in address-ordered B+-trees (models/btree.h) sharing one node pool. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "btree.h"
#include "recpool.h"
#include "sizeset.h"

struct ca_opts {
    uint64_t pool_granularity;  /* bytes per growth step */
    am_ps grow_latency;         /* host time per growth (device allocation) */
    uint64_t release_threshold; /* bytes; 0 = memory_fraction * capacity */
    double memory_fraction;     /* of capacity, for the default threshold */
    uint64_t alignment;         /* bytes, block footprint inside the pool */
    int trim_on_oom;
};

static const opt_desc ca_opt_table[] = {
    {"pool_granularity", OPT_SIZE, offsetof(struct ca_opts, pool_granularity), "2MiB",
     "bytes the pool grows by at least, per device allocation (assumed)", NULL, 0, 0},
    {"grow_latency", OPT_TIME, offsetof(struct ca_opts, grow_latency), "20us",
     "host time of one pool growth, a device allocation (assumed)", NULL, 0, 0},
    {"release_threshold", OPT_SIZE, offsetof(struct ca_opts, release_threshold), "0",
     "bytes the pool keeps cached after frees; 0 = memory_fraction of capacity", NULL, 0, 0},
    {"memory_fraction", OPT_FRACTION, offsetof(struct ca_opts, memory_fraction), "0.75",
     "default release threshold as a fraction of total device memory (JAX default 0.75)", NULL,
     0, 0},
    {"alignment", OPT_SIZE, offsetof(struct ca_opts, alignment), "512",
     "bytes a block occupies are the request rounded up to this (a power of two; assumed; "
     "stats stay exact)",
     NULL, 0, 0},
    {"trim_on_oom", OPT_BOOL, offsetof(struct ca_opts, trim_on_oom), "true",
     "on a refused growth, return completely free chunks and grow once more (assumed)", NULL,
     0, 0},
    {NULL, OPT_BOOL, 0, NULL, NULL, NULL, 0, 0},
};

typedef struct cchunk cchunk;

/* One cache line: the record pool starts records on lines, and 56 bytes would straddle two. */
typedef struct cblock {
    /* footprint, multiple of the alignment (except a chunk's tail); when free, its key in the
     * free set */
    _Alignas(64) uint64_t addr, size;
    uint64_t requested;      /* exact bytes; 0 when free */
    int in_use;
    struct cblock *prev, *next; /* address neighbours inside the chunk */
    cchunk *chunk;
} cblock;

struct cchunk {
    uint64_t addr, size; /* its key (addr, 0) in the chunk set and, when idle, the idle set */
    uint64_t live;    /* blocks in use */
    cblock *first;
};

typedef struct ca {
    alloc_env env;
    struct ca_opts o;
    uint64_t threshold;      /* bytes */
    sizeset free_set;        /* free blocks by (size, address) */
    bt_tree chunks;          /* every chunk, by address */
    bt_tree idle;            /* chunks with no block in use, by address */
    recpool nodes; /* the two trees' nodes */
    recpool recs; /* cblock records */
    recpool chunk_recs; /* cchunk records */
    am_ps pending;
    /* statistics: bytes are exact request sizes */
    uint64_t bytes_in_use, peak_bytes_in_use, footprint_in_use;
    uint64_t pool_bytes, peak_pool_bytes, largest_alloc_size;
    uint64_t num_allocs, num_grows, num_releases, ooms;
    uint64_t chunk_max;      /* the largest chunk ever grown (ca_min_capacity) */
} ca;

static cblock *cb_new(ca *c) { return recpool_get(&c->recs); }

static void cb_put(ca *c, cblock *b) { recpool_put(&c->recs, b); }

static void free_insert(ca *c, cblock *b) { ss_insert(&c->free_set, b->size, b->addr, b); }

static void free_remove(ca *c, cblock *b) { ss_remove(&c->free_set, b->size, b->addr); }

/* Return an idle chunk (one free block covering it) to the device. */
static void release_chunk(ca *c, cchunk *ch)
{
    cblock *b = ch->first;
    free_remove(c, b);
    cb_put(c, b);
    bt_remove(&c->idle, ch->addr, 0);
    bt_remove(&c->chunks, ch->addr, 0);
    c->env.dev_free(c->env.ctx, ch->addr, ch->size);
    c->pool_bytes -= ch->size;
    c->num_releases++;
    recpool_put(&c->chunk_recs, ch);
}

/* Release idle chunks, highest address first, while the pool is above `keep` bytes. */
static void trim(ca *c, uint64_t keep)
{
    while (c->pool_bytes > keep && c->idle.n)
        release_chunk(c, bt_last(&c->idle, NULL));
}

/* Grow the pool by one chunk of at least `need` bytes; 0 on success. */
/* The chunk a grow for a block of `need` bytes asks for: rounded up to pool_granularity, then
 * to the device granularity (grow, ca_min_capacity; until 2026-11-28 each spelt it out).
 * Saturating: a size that passes 2^64 is asked of the device as 2^64 - 1 bytes, which it
 * refuses after the grow latency as any request too large (until 2026-11-27 the rounding
 * wrapped and the grow failed before its latency was counted). */
static uint64_t chunk_bytes(const ca *c, uint64_t need)
{
    return am_round_up_sat(am_round_up_sat(need, c->o.pool_granularity), c->env.granularity);
}

static int grow(ca *c, uint64_t need)
{
    uint64_t bytes = chunk_bytes(c, need);
    uint64_t addr;
    c->pending += c->o.grow_latency;
    if (c->env.dev_alloc(c->env.ctx, bytes, &addr) != 0) {
        if (!c->o.trim_on_oom || !c->idle.n)
            return -1;
        trim(c, 0);
        c->pending += c->o.grow_latency;
        if (c->env.dev_alloc(c->env.ctx, bytes, &addr) != 0)
            return -1;
    }
    cchunk *ch = recpool_get(&c->chunk_recs);
    ch->addr = addr;
    ch->size = bytes;
    bt_insert(&c->chunks, addr, 0, ch);
    bt_insert(&c->idle, addr, 0, ch);
    cblock *b = cb_new(c);
    b->addr = addr;
    b->size = bytes;
    b->chunk = ch;
    ch->first = b;
    free_insert(c, b);
    c->pool_bytes += bytes;
    c->chunk_max = AM_MAX(c->chunk_max, bytes);
    if (c->pool_bytes > c->peak_pool_bytes)
        c->peak_pool_bytes = c->pool_bytes;
    c->num_grows++;
    return 0;
}

static int ca_alloc(void *st, const alloc_req *r, alloc_out *o)
{
    ca *c = st;
    uint64_t need = am_round_up(r->bytes, c->o.alignment);
    if (need < r->bytes) {
        return ALLOC_OOM;
    }
    ss_iter it;
    cblock *b = ss_lower_bound(&c->free_set, need, 0, &it);
    if (!b) {
        if (grow(c, need) != 0) {
            return ALLOC_OOM;
        }
        b = ss_lower_bound(&c->free_set, need, 0, &it);
    }
    ss_remove_at(&c->free_set, &it);
    if (b->size > need) {
        cblock *rest = cb_new(c);
        rest->addr = b->addr + need;
        rest->size = b->size - need;
        rest->chunk = b->chunk;
        rest->prev = b;
        rest->next = b->next;
        if (b->next)
            b->next->prev = rest;
        b->next = rest;
        b->size = need;
        free_insert(c, rest);
    }
    if (b->chunk->live++ == 0)
        bt_remove(&c->idle, b->chunk->addr, 0);
    b->in_use = 1;
    b->requested = r->bytes;
    c->bytes_in_use += r->bytes;
    c->footprint_in_use += b->size;
    if (c->bytes_in_use > c->peak_bytes_in_use)
        c->peak_bytes_in_use = c->bytes_in_use;
    if (r->bytes > c->largest_alloc_size)
        c->largest_alloc_size = r->bytes;
    c->num_allocs++;
    o->addr = b->addr;
    o->size = b->size;
    o->handle = (uint64_t)(uintptr_t)b;
    return ALLOC_OK;
}

static void ca_free(void *st, uint64_t handle)
{
    ca *c = st;
    cblock *b = (cblock *)(uintptr_t)handle;
    cchunk *ch = b->chunk;
    c->bytes_in_use -= b->requested;
    c->footprint_in_use -= b->size;
    b->in_use = 0;
    b->requested = 0;
    cblock *nx = b->next;
    if (nx && !nx->in_use) {
        free_remove(c, nx);
        b->size += nx->size;
        b->next = nx->next;
        if (nx->next)
            nx->next->prev = b;
        cb_put(c, nx);
    }
    cblock *pv = b->prev;
    if (pv && !pv->in_use) {
        free_remove(c, pv);
        pv->size += b->size;
        pv->next = b->next;
        if (b->next)
            b->next->prev = pv;
        cb_put(c, b);
        b = pv;
    }
    free_insert(c, b);
    if (--ch->live == 0)
        bt_insert(&c->idle, ch->addr, 0, ch);
    trim(c, c->threshold);
}

/* Look-ahead hint (alloc.h): a free reads its block (stage 0), then both address neighbours
 * and its chunk's record (stage 1). */
static void ca_prefetch_free(void *st, uint64_t handle, int stage)
{
    (void)st;
    const cblock *b = (const cblock *)(uintptr_t)handle;
    recpool_prefetch_linked(b, stage, sizeof(cblock), offsetof(cblock, prev),
                            offsetof(cblock, next), sizeof(cblock));
    if (stage == 1)
        __builtin_prefetch(&b->chunk->live);
}

static uint64_t ca_largest_free(void *st)
{
    return ss_last_size(&((ca *)st)->free_set);
}

/* Peaks back to the current values (alloc.h reset_peaks), and largest_alloc_size to 0, as
 * TensorFlow's ClearStats does. */
static void ca_reset_peaks(void *st)
{
    ca *c = st;
    c->peak_bytes_in_use = c->bytes_in_use;
    c->largest_alloc_size = 0;
    c->peak_pool_bytes = c->pool_bytes;
}

static void ca_stats(void *st, const stat_sink *s)
{
    ca *c = st;
    s->cur_peak(s->ctx, "bytes_in_use", c->bytes_in_use, c->peak_bytes_in_use);
    s->cur_peak(s->ctx, "pool_bytes", c->pool_bytes, c->peak_pool_bytes);
    s->u64(s->ctx, "num_allocs", c->num_allocs);
    s->u64(s->ctx, "largest_alloc_size", c->largest_alloc_size);
    s->u64(s->ctx, "release_threshold", c->threshold);
    s->u64(s->ctx, "num_pool_grows", c->num_grows);
    s->u64(s->ctx, "num_pool_releases", c->num_releases);
    s->u64(s->ctx, "largest_free_block_bytes", ca_largest_free(c));
    s->u64(s->ctx, "num_ooms", c->ooms);
}

static void ca_walk(void *st, void (*fn)(void *arg, const alloc_block *b), void *arg)
{
    ca *c = st;
    bt_iter it;
    for (const cchunk *ch = bt_first(&c->chunks, &it); ch; ch = bt_next(&it))
        for (const cblock *b = ch->first; b; b = b->next) {
            alloc_block a = {b->addr, b->size, b->requested, b->in_use, ch->addr};
            fn(arg, &a);
        }
}

static int ca_check(void *st, am_error *err)
{
    ca *c = st;
    int bad = 0;
    uint64_t pool = 0, used = 0, exact = 0, nfree = 0, nidle = 0;
    if (ss_check(&c->free_set) || bt_check(&c->chunks) || bt_check(&c->idle)) {
        bad++;
        am_fail(err, AM_EINTERNAL, "cuda_async: sets corrupt");
    }
    bt_iter it;
    for (const cchunk *ch = bt_first(&c->chunks, &it); ch; ch = bt_next(&it)) {
        uint64_t at = ch->addr, live = 0;
        const cblock *prev = NULL;
        for (const cblock *b = ch->first; b; prev = b, b = b->next) {
            if (b->addr != at || b->chunk != ch || b->prev != prev || b->size == 0 ||
                (!b->in_use && prev && !prev->in_use) ||
                (!b->in_use && ss_find(&c->free_set, b->size, b->addr) != b) ||
                (b->in_use && (b->requested == 0 || b->requested > b->size))) {
                bad++;
                am_fail(err, AM_EINTERNAL, "cuda_async: block at %" PRIu64 " misplaced, not "
                        "coalesced or mis-keyed", b->addr);
            }
            at += b->size;
            if (b->in_use) {
                live++;
                used += b->size;
                exact += b->requested;
            } else
                nfree++;
        }
        if (at != ch->addr + ch->size || live != ch->live || bt_k1(&it) != ch->addr ||
            (bt_find(&c->idle, ch->addr, 0) == ch) != (live == 0)) {
            bad++;
            am_fail(err, AM_EINTERNAL, "cuda_async: chunk at %" PRIu64 " not tiled by its blocks, "
                    "live count off or mis-filed", ch->addr);
        }
        nidle += live == 0;
        pool += ch->size;
    }
    if (pool != c->pool_bytes || used != c->footprint_in_use || exact != c->bytes_in_use ||
        nfree != c->free_set.n || nidle != c->idle.n) {
        bad++;
        am_fail(err, AM_EINTERNAL, "cuda_async: pool %" PRIu64 "/%" PRIu64 ", in use %" PRIu64
                "/%" PRIu64 ", free blocks or idle chunks inconsistent", pool, c->pool_bytes,
                exact, c->bytes_in_use);
    }
    return bad;
}

static am_ps ca_take_latency(void *st)
{
    ca *c = st;
    am_ps t = c->pending;
    c->pending = 0;
    return t;
}

/* alignment a power of two; pool_granularity a non-zero multiple of it. Until 2026-11-25
 * checked only when a run started, and alignment 3 was accepted. */
static int ca_check_opts(const void *opts, const alloc_env *env, am_error *err)
{
    const struct ca_opts *o = opts;
    if (env->capacity == 0)
        return am_fail_opt(err, "capacity", "cuda_async: capacity is 0 bytes");
    if (am_check_pow2(err, "alignment", o->alignment, AM_MAX_BYTES, "4 EiB"))
        return -1;
    if (o->pool_granularity == 0 || o->pool_granularity % o->alignment)
        return am_fail_opt(err, "pool_granularity,alignment", "pool_granularity (%" PRIu64
                           " bytes) must be a non-zero multiple of alignment (%" PRIu64
                           " bytes)", o->pool_granularity, o->alignment);
    /* every chunk is a multiple of both granularities: one above the capacity fits nothing
     * (until 2026-11-27 the config passed and every request ran out of memory) */
    if (o->pool_granularity > env->capacity)
        return am_fail_opt(err, "pool_granularity,capacity", "cuda_async: pool_granularity of %"
                           PRIu64 " bytes is above the capacity (%" PRIu64 " bytes): no chunk "
                           "fits", o->pool_granularity, env->capacity);
    if (env->granularity > env->capacity)
        return am_fail_opt(err, "granularity,capacity", "cuda_async: granularity of %" PRIu64
                           " bytes is above the capacity (%" PRIu64 " bytes): no chunk fits",
                           env->granularity, env->capacity);
    return 0;
}

static int ca_create(void **out, const alloc_env *env, const void *opts, am_error *err)
{
    static const struct ca_opts defaults = {2ULL << 20, 20 * AM_PS_PER_US, 0, 0.75, 512, 1};
    const struct ca_opts *o = opts ? opts : &defaults;
    if (ca_check_opts(o, env, err) < 0)
        return -1;
    ca *c = am_calloc(1, sizeof *c);
    recpool_init(&c->recs, sizeof(cblock));
    recpool_init(&c->chunk_recs, sizeof(cchunk));
    c->env = *env;
    if (c->env.granularity == 0)
        c->env.granularity = 1;
    c->o = *o;
    bt_use_pool(&c->chunks, &c->nodes);
    bt_use_pool(&c->idle, &c->nodes);
    c->threshold = o->release_threshold
                       ? o->release_threshold
                       : (uint64_t)((double)env->capacity * o->memory_fraction);
    *out = c;
    return 0;
}

static void ca_destroy(void *st)
{
    ca *c = st;
    ss_destroy(&c->free_set);
    recpool_destroy(&c->nodes); /* the chunk trees' nodes */
    recpool_destroy(&c->recs);
    recpool_destroy(&c->chunk_recs);
    free(c);
}

/* A refused request finally failed (alloc.h count_oom): the one place ooms grows. */
static void ca_count_oom(void *st) { ((ca *)st)->ooms++; }

/* alloc.h min_capacity: a block of the request rounded up to the alignment, in one chunk (chunks
 * never merge): a chunk ever grown that large may still serve it, else a new one of the block
 * rounded up to pool_granularity and the device granularity must fit (2.5 MiB on a 3 MiB
 * device grows 4 MiB). */
static uint64_t ca_min_capacity(void *st, uint64_t bytes)
{
    const ca *c = st;
    uint64_t need = am_round_up_sat(bytes, c->o.alignment);
    if (c->chunk_max >= need)
        return need;
    return chunk_bytes(c, need);
}

static const struct alloc_ops ca_ops = {
    .name = "cuda_async",
    .device_by_bytes = 1, /* cudaMallocAsync fails by bytes, not by contiguity */
    .summary = "model of CUDA's stream-ordered pool (cudaMallocAsync): exact-size stats, chunked "
               "growth with latency, release threshold",
    .opts = ca_opt_table,
    .opts_size = sizeof(struct ca_opts),
    .create = ca_create,
    .check_opts = ca_check_opts,
    .destroy = ca_destroy,
    .alloc = ca_alloc,
    .free = ca_free,
    .prefetch_free = ca_prefetch_free,
    .largest_free = ca_largest_free,
    .stats = ca_stats,
    .reset_peaks = ca_reset_peaks,
    .walk = ca_walk,
    .check = ca_check,
    .take_latency = ca_take_latency,
    .count_oom = ca_count_oom,
    .min_capacity = ca_min_capacity,
};

const struct alloc_ops *alloc_cuda_async_ops(void);
const struct alloc_ops *alloc_cuda_async_ops(void) { return &ca_ops; }
