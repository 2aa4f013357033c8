/* alloc_prealloc.c - the "prealloc arena" baseline of allocators.md section 2.
 *
 * One region of the limit (`memory_limit`, or `memory_fraction` of the capacity, 0.75 by
 * default as JAX preallocates; capped at the capacity and rounded down to the alignment) is
 * taken from the device at the first request and never given back. Requests round up to
 * `alignment` (256 bytes). Inside the region:
 *   bump:      addresses only grow. A request takes [top, top + size) and fails when it does
 *              not fit below the region's end; freed blocks are not reused until every block
 *              is free, at which point top resets to the region's start. A compaction
 *              (alloc.h compact) packs the buffers it places again from the region's start,
 *              stepping over the blocks that stay (pending their free) where they are, and
 *              top becomes the end of the highest block (until 2026-11-27 a pending block kept
 *              the arena from emptying, so the buffers went back above the old top: raised,
 *              or lost when they no longer fitted below the end).
 *   first_fit: the lowest-addressed free block that fits (an address-ordered B+-tree keeping
 *              each subtree's largest block, models/addrset.h); the low end is taken and a
 *              freed block merges with its free neighbours at once.
 * Live blocks sit in an unordered live set (models/livelist.h) in both modes, sorted by address
 * when walk() or check() lists them; walk() reports the gaps between them as free blocks (in
 * bump mode, gaps below top are free but unusable until the reset). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/units.h"
#include "addrset.h"
#include "alloc.h"
#include "livelist.h"
#include "recpool.h"

enum { PRE_BUMP = 0, PRE_FIRST_FIT = 1 };
static const char *const pre_modes[] = {"bump", "first_fit", NULL};

struct pre_opts {
    uint64_t memory_limit;   /* bytes; 0 = memory_fraction of capacity */
    double memory_fraction;  /* of capacity */
    int mode;                /* PRE_BUMP or PRE_FIRST_FIT */
    uint64_t alignment;      /* bytes */
};

static const opt_desc pre_opt_table[] = {
    {"memory_limit", OPT_SIZE, offsetof(struct pre_opts, memory_limit), "0",
     "arena size in bytes; 0 = memory_fraction of capacity", NULL, 0, 0},
    {"memory_fraction", OPT_FRACTION, offsetof(struct pre_opts, memory_fraction), "0.75",
     "arena size as a fraction of total device memory (JAX preallocation default 0.75)", NULL,
     0, 0},
    {"mode", OPT_ENUM, offsetof(struct pre_opts, mode), "first_fit",
     "placement inside the arena: bump (reset when empty) or first_fit (coalescing)",
     pre_modes, 0, 0},
    {"alignment", OPT_SIZE, offsetof(struct pre_opts, alignment), "256",
     "requests round up to this many bytes (a power of two)", NULL, 0, 0},
    {NULL, OPT_BOOL, 0, NULL, NULL, NULL, 0, 0},
};

typedef struct pblk {     /* a live block */
    ll_node live;        /* first: live.addr is its address */
    uint64_t size;       /* rounded to the alignment */
    uint64_t requested;  /* bytes asked for */
    as_mark mark;        /* first_fit: the leaf its range was found in (as_prefetch_mark) */
} pblk;

typedef struct pre {
    alloc_env env;
    struct pre_opts o;
    uint64_t limit;            /* arena bytes */
    int have_arena;
    uint64_t start, end;       /* arena [start, end) */
    uint64_t top;              /* bump: next free address */
    ll_node **stay;            /* bump, compacting: the staying blocks by address (none */
    size_t nstay, at_stay;     /* otherwise); the next one at or above top */
    ll_set live;               /* live blocks */
    as_tree free_set;          /* first_fit: free blocks, key = address, len = size */
    pblk *hinted;              /* first_fit: the block of the last stage-1 hint, while live */
    recpool recs; /* pblk records */
    uint64_t bytes_in_use, peak_bytes_in_use, num_allocs, num_resets, ooms;
} pre;

static pblk *pk_new(pre *p) { return recpool_get(&p->recs); }

static void pk_put(pre *p, pblk *b) { recpool_put(&p->recs, b); }

static uint64_t pk_end(const ll_node *x) { return x->addr + ((const pblk *)x)->size; }

/* Bump placement: the lowest address at or above top where need bytes fit below the next
 * staying block of a compaction, stepping over the ones in the way (top moves only up, as in a
 * bump arena; outside a compaction none stays, and this is [top, top + need)). 0 and *addr, or
 * -1 when it reaches the arena's end. */
static int bump_place(pre *p, uint64_t need, uint64_t *addr)
{
    for (;;) {
        while (p->at_stay < p->nstay && pk_end(p->stay[p->at_stay]) <= p->top)
            p->at_stay++; /* behind top */
        int blocked = p->at_stay < p->nstay && need > p->stay[p->at_stay]->addr - p->top;
        if (!blocked)
            break;
        p->top = pk_end(p->stay[p->at_stay]);
    }
    if (need > p->end - p->top)
        return -1;
    *addr = p->top;
    p->top += need;
    return 0;
}

static int pre_alloc(void *st, const alloc_req *r, alloc_out *o)
{
    pre *p = st;
    if (!p->have_arena) {
        if (p->env.dev_alloc(p->env.ctx, p->limit, &p->start) != 0) {
            return ALLOC_OOM;
        }
        p->have_arena = 1;
        p->end = p->start + p->limit;
        p->top = p->start;
        if (p->o.mode == PRE_FIRST_FIT)
            as_insert(&p->free_set, p->start, p->limit, NULL);
    }
    uint64_t need = am_round_up(r->bytes, p->o.alignment), addr;
    as_pos at;
    as_mark mark = {NULL, 0};
    if (need < r->bytes) {
        return ALLOC_OOM;
    }
    if (p->o.mode == PRE_BUMP) {
        if (bump_place(p, need, &addr) < 0)
            return ALLOC_OOM;
    } else {
        as_ent e;
        if (!as_first_fit(&p->free_set, need, &e, &at)) {
            return ALLOC_OOM;
        }
        addr = e.key;
        mark = as_mark_at(&at); /* before the take, which may give the leaf back */
        as_take_at(&p->free_set, &at, &e, addr, need); /* its low end */
    }
    pblk *b = pk_new(p);
    b->mark = mark;
    b->live.addr = addr;
    b->size = need;
    b->requested = r->bytes;
    ll_add(&p->live, &b->live);
    p->bytes_in_use += need;
    if (p->bytes_in_use > p->peak_bytes_in_use)
        p->peak_bytes_in_use = p->bytes_in_use;
    p->num_allocs++;
    o->addr = addr;
    o->size = need;
    o->handle = (uint64_t)(uintptr_t)b;
    return ALLOC_OK;
}

static void pre_free(void *st, uint64_t handle)
{
    pre *p = st;
    pblk *b = (pblk *)(uintptr_t)handle;
    uint64_t addr = b->live.addr, size = b->size;
    if (b == p->hinted) /* its record may be taken again: the next hint must not read it */
        p->hinted = NULL;
    ll_del(&p->live, &b->live);
    pk_put(p, b);
    p->bytes_in_use -= size;
    if (p->o.mode == PRE_BUMP) {
        if (p->live.n == 0 && p->top != p->start) {
            p->top = p->start;
            p->num_resets++;
        }
        return;
    }
    as_give(&p->free_set, addr, size); /* merged with the free neighbours */
}

/* A compaction (alloc.h compact). Bump mode only: at its start the blocks still held are the
 * staying ones; the buffers placed again are packed from the arena's start around them
 * (bump_place), so none goes higher than it was. At its end top is the end of the highest
 * block, staying or placed (every placed one ends at or below top; the staying ones, neither
 * moved nor freed meanwhile, are sorted): the gaps below stay unusable until the arena
 * empties, as bump's freed blocks are. */
static void pre_compact(void *st, int done)
{
    pre *p = st;
    if (p->o.mode != PRE_BUMP || !p->have_arena)
        return;
    if (done) {
        if (p->nstay)
            p->top = AM_MAX(p->top, pk_end(p->stay[p->nstay - 1]));
        free(p->stay);
        p->stay = NULL;
        p->nstay = p->at_stay = 0;
        return;
    }
    p->stay = ll_sorted(&p->live);
    p->nstay = p->live.n;
    p->at_stay = 0;
    p->top = p->start;
}

/* Look-ahead hint (alloc.h): a free reads its record (stage 0), then its live-set entry and, in
 * first-fit mode, the leaf of the free ranges its block goes back to (stage 1). */
static void pre_prefetch_free(void *st, uint64_t handle, int stage)
{
    pre *p = st;
    const pblk *b = (const pblk *)(uintptr_t)handle;
    ll_prefetch_free(&p->live, &b->live, sizeof(pblk), stage);
    if (stage == 1 && p->o.mode == PRE_FIRST_FIT) {
        /* the previous stage-1 block is freed next: its marked leaf, prefetched then, is read
         * now; this one's is only prefetched */
        if (p->hinted && p->hinted != b)
            as_prefetch_marked(&p->free_set, p->hinted->live.addr, p->hinted->mark);
        as_prefetch_mark(&p->free_set, b->mark);
        p->hinted = (pblk *)(uintptr_t)handle;
    }
}

static uint64_t pre_largest_free(void *st)
{
    pre *p = st;
    if (!p->have_arena)
        return 0;
    if (p->o.mode == PRE_BUMP)
        return p->end - p->top;
    return as_max_len(&p->free_set);
}

/* Peaks back to the current values (alloc.h reset_peaks). */
static void pre_reset_peaks(void *st)
{
    pre *p = st;
    p->peak_bytes_in_use = p->bytes_in_use;
}

static void pre_stats(void *st, const stat_sink *s)
{
    pre *p = st;
    s->cur_peak(s->ctx, "bytes_in_use", p->bytes_in_use, p->peak_bytes_in_use);
    s->u64(s->ctx, "arena_bytes", p->have_arena ? p->limit : 0);
    s->u64(s->ctx, "bytes_limit", p->limit);
    s->u64(s->ctx, "num_allocs", p->num_allocs);
    if (p->o.mode == PRE_BUMP)
        s->u64(s->ctx, "num_bump_resets", p->num_resets);
    s->u64(s->ctx, "largest_free_block_bytes", pre_largest_free(p));
    s->u64(s->ctx, "num_ooms", p->ooms);
}

static void pre_walk(void *st, void (*fn)(void *arg, const alloc_block *b), void *arg)
{
    pre *p = st;
    if (!p->have_arena)
        return;
    uint64_t at = p->start;
    ll_node **v = ll_sorted(&p->live);
    for (size_t i = 0; i < p->live.n; i++) {
        const pblk *b = (const pblk *)v[i];
        if (b->live.addr > at) {
            alloc_block g = {at, b->live.addr - at, 0, 0, p->start};
            fn(arg, &g);
        }
        alloc_block u = {b->live.addr, b->size, b->requested, 1, p->start};
        fn(arg, &u);
        at = b->live.addr + b->size;
    }
    free(v);
    if (at < p->end) {
        alloc_block g = {at, p->end - at, 0, 0, p->start};
        fn(arg, &g);
    }
}

static int pre_check(void *st, am_error *err)
{
    pre *p = st;
    int bad = 0;
    if (ll_check(&p->live) || as_check(&p->free_set)) { /* they cannot be trusted to list */
        am_fail(err, AM_EINTERNAL, "prealloc: sets corrupt");
        return 1;
    }
    if (!p->have_arena)
        return bad + (p->live.n != 0);
    uint64_t at = p->start, sum = 0;
    as_ent f;
    as_iter fi;
    int hf = as_first(&p->free_set, &f, &fi);
    ll_node **v = ll_sorted(&p->live);
    for (size_t i = 0;; i++) {
        const pblk *n = i < p->live.n ? (const pblk *)v[i] : NULL;
        uint64_t next = n ? n->live.addr : p->end;
        if (next < at || (n && (n->size == 0 || next + n->size > p->end || n->requested == 0 ||
                                n->requested > n->size))) {
            bad++;
            am_fail(err, AM_EINTERNAL, "prealloc: block at %" PRIu64 " overlaps, leaves the "
                    "arena or is smaller than its request", next);
        }
        if (p->o.mode == PRE_FIRST_FIT && next > at) { /* the gap must be one free block */
            if (!hf || f.key != at || f.len != next - at) {
                bad++;
                am_fail(err, AM_EINTERNAL, "prealloc: gap [%" PRIu64 ", %" PRIu64 ") is not one "
                        "free block", at, next);
            } else
                hf = as_next(&fi, &f);
        }
        if (!n)
            break;
        sum += n->size;
        at = n->live.addr + n->size;
    }
    free(v);
    if (p->o.mode == PRE_FIRST_FIT && hf) {
        bad++;
        am_fail(err, AM_EINTERNAL, "prealloc: free block at %" PRIu64 " overlaps a live block",
                f.key);
    }
    if (p->o.mode == PRE_BUMP && (at > p->top || p->top > p->end ||
                                  (p->live.n == 0 && p->top != p->start))) {
        bad++;
        am_fail(err, AM_EINTERNAL, "prealloc: bump pointer %" PRIu64 " below a live block, past "
                "the end or not reset", p->top);
    }
    if (sum != p->bytes_in_use) {
        bad++;
        am_fail(err, AM_EINTERNAL, "prealloc: live bytes %" PRIu64 " != bytes_in_use %" PRIu64,
                sum, p->bytes_in_use);
    }
    return bad;
}

/* The arena before rounding: memory_limit, else memory_fraction of the capacity, at most the
 * capacity. */
static uint64_t pre_wanted(const struct pre_opts *o, const alloc_env *env)
{
    uint64_t limit = o->memory_limit ? o->memory_limit
                                     : (uint64_t)((double)env->capacity * o->memory_fraction);
    return AM_MIN(limit, env->capacity);
}

/* An arena of 0 bytes: the message says which of memory_limit and memory_fraction gave the
 * size, and whether the rounding down to the alignment emptied it. Until 2026-11-27 it said
 * "memory_limit or memory_fraction" whichever it was, and not that the alignment was above it. */
static int pre_fail_empty(const struct pre_opts *o, const alloc_env *env, uint64_t wanted,
                          am_error *err)
{
    char src[200];
    if (o->memory_limit && o->memory_limit > env->capacity)
        snprintf(src, sizeof src, "memory_limit of %" PRIu64 " bytes, cut to the %" PRIu64
                 "-byte capacity", o->memory_limit, env->capacity);
    else if (o->memory_limit)
        snprintf(src, sizeof src, "memory_limit of %" PRIu64 " bytes", o->memory_limit);
    else { /* the fraction as written: until 2026-11-28 %g's 6 digits */
        char frac[40];
        units_fmt_real(frac, sizeof frac, o->memory_fraction);
        snprintf(src, sizeof src, "memory_fraction %s of a %" PRIu64 "-byte capacity, %" PRIu64
                 " bytes", frac, env->capacity, wanted);
    }
    const char *keys = o->memory_limit ? "memory_limit,alignment"
                                       : "memory_fraction,capacity,alignment";
    if (wanted == 0)
        return am_fail_opt(err, keys, "prealloc: arena of 0 bytes (%s)", src);
    return am_fail_opt(err, keys, "prealloc: arena of 0 bytes: the alignment of %" PRIu64
                       " bytes is above the arena's %s (the arena is rounded down to a "
                       "multiple of the alignment)", o->alignment, src);
}

/* alignment a power of two (0 was quietly 256 until 2026-11-25), and an arena of at least one
 * alignment unit (checked when a config loads since 2026-11-27, alloc.h check_opts). */
static int pre_check_opts(const void *opts, const alloc_env *env, am_error *err)
{
    const struct pre_opts *o = opts;
    if (am_check_pow2(err, "alignment", o->alignment, AM_MAX_BYTES, "4 EiB") < 0)
        return -1;
    uint64_t wanted = pre_wanted(o, env);
    if (am_round_down(wanted, o->alignment) == 0)
        return pre_fail_empty(o, env, wanted, err);
    return 0;
}

static int pre_create(void **out, const alloc_env *env, const void *opts, am_error *err)
{
    static const struct pre_opts defaults = {0, 0.75, PRE_FIRST_FIT, 256};
    const struct pre_opts *o = opts ? opts : &defaults;
    if (pre_check_opts(o, env, err) < 0)
        return -1;
    uint64_t align = o->alignment;
    uint64_t limit = am_round_down(pre_wanted(o, env), align);
    pre *p = am_calloc(1, sizeof *p);
    p->free_set.ranges = 1;
    recpool_init(&p->recs, sizeof(pblk));
    p->env = *env;
    p->o = *o;
    p->o.alignment = align;
    p->limit = limit;
    *out = p;
    return 0;
}

static void pre_destroy(void *st)
{
    pre *p = st;
    ll_destroy(&p->live);
    free(p->stay);
    as_destroy(&p->free_set);
    recpool_destroy(&p->recs);
    free(p);
}

/* A refused request finally failed (alloc.h count_oom): the one place ooms grows. */
static void pre_count_oom(void *st) { ((pre *)st)->ooms++; }

/* The arena, rounded down to the alignment (alloc.h pool_limit): all it ever holds. */
static uint64_t pre_pool_limit(void *st) { return ((pre *)st)->limit; }

static const struct alloc_ops pre_ops = {
    .name = "prealloc",
    .summary = "one arena of the limit taken at the first request; bump or first fit inside "
               "(baseline)",
    .opts = pre_opt_table,
    .opts_size = sizeof(struct pre_opts),
    .create = pre_create,
    .check_opts = pre_check_opts,
    .destroy = pre_destroy,
    .alloc = pre_alloc,
    .free = pre_free,
    .prefetch_free = pre_prefetch_free,
    .largest_free = pre_largest_free,
    .stats = pre_stats,
    .reset_peaks = pre_reset_peaks,
    .walk = pre_walk,
    .check = pre_check,
    .count_oom = pre_count_oom,
    .pool_limit = pre_pool_limit,
    .compact = pre_compact,
    .compacts_down = 1,
};

const struct alloc_ops *alloc_prealloc_ops(void);
const struct alloc_ops *alloc_prealloc_ops(void) { return &pre_ops; }
