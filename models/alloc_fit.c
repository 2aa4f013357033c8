/* alloc_fit.c - baseline policies: address-ordered best fit and first fit, with coalescing.
 *
 * Both manage one heap over the level's address space [0, capacity) and place blocks inside it.
 * Device memory is committed like a heap's break: the first time a block reaches above the
 * committed top, the top grows by whole `commit_granularity` steps (default 2 MiB) taken from
 * the device (contiguous, since this policy is the level's only user), and it never shrinks.
 * So reserved memory is the heap's high-water mark, which is what the baseline costs.
 * Requests round up to `alignment` (default 256 bytes, BFC's granularity).
 *   best_fit:  the smallest free block that fits, lowest address among equal sizes
 *              (a (size, address)-ordered set split by size class, models/sizeset.h: one
 *              lower bound in a small class tree or the next class's first block);
 *   first_fit: the lowest-addressed free block that fits (an address-ordered B+-tree keeping
 *              each subtree's largest block, models/addrset.h: one descent of four nodes
 *              at a million free blocks).
 * The allocation takes the low end of the block; the remainder stays free. A freed block
 * merges with free neighbours at once. Every block, used or free, is linked to its address
 * neighbours (the blocks tile the arena), so a free finds what to merge with in O(1); every free
 * block is in the size set (best fit) or the address set (first fit).
 *
 * First fit files the free block that reaches above the committed top (always the highest
 * block: everything above the top is free and merged) with its length capped at the top. The
 * set's largest length is then the largest free range usable without asking the device, which
 * the fragmentation metric reads after every event, and a first fit that finds nothing there
 * tries that highest block at its full size: no lower block fits, so it is the first fit. */
#include <assert.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "addrset.h"
#include "sizeset.h"
#include "recpool.h"

struct fit_opts {
    uint64_t alignment;   /* bytes */
    uint64_t commit;      /* commit granularity, bytes */
};

static const opt_desc fit_opt_table[] = {
    {"alignment", OPT_SIZE, offsetof(struct fit_opts, alignment), "256",
     "requests round up to this many bytes (a power of two)", NULL, 0, 0},
    {"commit_granularity", OPT_SIZE, offsetof(struct fit_opts, commit), "2MiB",
     "the heap top grows from the device in steps of this many bytes", NULL, 0, 0},
    {NULL, OPT_BOOL, 0, NULL, NULL, NULL, 0, 0},
};

typedef struct fblock {
    /* what a free reads of its address neighbours, in the record's first 56 bytes */
    union {
        uint64_t key_size; /* best fit, free: its key in by_size is (key_size, key_addr) */
        void *leaf;        /* first fit, free: the leaf of by_addr that holds it (as_bp) */
    };
    uint64_t key_addr; /* free: its key in by_size, or by_addr (addr) */
    uint64_t addr, size;
    struct fblock *prev, *next; /* the blocks just below and above (NULL at the arena's ends) */
    int is_free;
    uint64_t requested;
} fblock;

/* Bytes of a block record a free reads: of the block itself, of its neighbours. */
#define FB_HOT_SELF sizeof(fblock)
#define FB_HOT_NEXT offsetof(fblock, requested)

typedef struct fit {
    alloc_env env;
    uint64_t align, commit;
    uint64_t top;         /* committed bytes from address 0 */
    int first_fit;
    int have_arena;
    uint64_t arena_addr, arena_size;
    sizeset by_size;      /* best fit: free blocks by (size, addr) -> fblock */
    as_tree by_addr;      /* first fit: free blocks by address, length capped at the top */
    fblock *head;         /* the lowest block (at arena_addr) */
    fblock *hinted;       /* first fit: the block of the last stage-1 hint, while it lives */
    recpool recs; /* fblock records */
    uint64_t in_use_bytes, peak_in_use, num_allocs, ooms, live;
} fit;

static fblock *fb_new(fit *f)
{
    fblock *b = recpool_take(&f->recs);
    memset(b, 0, sizeof *b);
    return b;
}

static void fb_put(fit *f, fblock *b) { recpool_put(&f->recs, b); }

/* First fit: the length a free block is filed under, capped at the committed top. */
static inline uint64_t fit_len(const fit *f, const fblock *b)
{
    if (b->addr + b->size <= f->top)
        return b->size;
    return f->top > b->addr ? f->top - b->addr : 0;
}

static void free_insert(fit *f, fblock *b)
{
    if (!f->first_fit)
        b->key_size = b->size;
    b->key_addr = b->addr;
    b->is_free = 1;
    if (f->first_fit)
        as_insert(&f->by_addr, b->addr, fit_len(f, b), b);
    else
        ss_insert(&f->by_size, b->size, b->addr, b);
}

/* Out of the free set; `at` is its position in the size set, or `apos` in the address set,
 * when the caller has it (no descent), else NULL. */
static void free_remove(fit *f, fblock *b, const ss_iter *at, const as_pos *apos)
{
    b->is_free = 0;
    if (f->first_fit && apos)
        as_remove_at(&f->by_addr, apos);
    else if (f->first_fit) /* its leaf is known: no descent */
        as_remove_in(&f->by_addr, b->leaf, b->key_addr);
    else if (at)
        ss_remove_at(&f->by_size, at);
    else
        ss_remove(&f->by_size, b->key_size, b->key_addr);
}

/* Re-file a free block after its size or address changed (its place in address order holds);
 * `at` is its position in the size set, or `apos` in the address set, when the caller has it
 * (else NULL). */
static void resize(fit *f, fblock *x, const ss_iter *at, const as_pos *apos)
{
    if (f->first_fit && apos)
        as_update_at(&f->by_addr, apos, x->addr, fit_len(f, x), x);
    else if (f->first_fit)
        as_update_in(&f->by_addr, x->leaf, x->key_addr, x->addr, fit_len(f, x), x);
    else if (at)
        ss_rekey_at(&f->by_size, at, x->size, x->addr, x);
    else
        ss_rekey(&f->by_size, x->key_size, x->key_addr, x->size, x->addr, x);
    if (!f->first_fit)
        x->key_size = x->size;
    x->key_addr = x->addr;
}

/* Take x out of the address chain (it was merged into a neighbour). */
static void unlink_block(fit *f, fblock *x)
{
    if (x->prev)
        x->prev->next = x->next;
    else
        f->head = x->next;
    if (x->next)
        x->next->prev = x->prev;
}

static int fit_alloc(void *st, const alloc_req *r, alloc_out *o)
{
    fit *f = st;
    if (!f->have_arena) {
        f->have_arena = 1;
        f->arena_addr = 0;
        f->arena_size = f->env.capacity;
        fblock *b = fb_new(f);
        b->addr = f->arena_addr;
        b->size = f->arena_size;
        free_insert(f, b);
        f->head = b;
    }
    uint64_t need = am_round_up(r->bytes, f->align);
    fblock *b;
    ss_iter it, *pos = NULL; /* best fit: where b is in the size set */
    as_pos fp, *apos = NULL;  /* first fit: where b is in the address set */
    if (f->first_fit) {
        as_ent e;
        b = NULL;
        if (as_first_fit(&f->by_addr, need, &e, &fp)) {
            b = e.p;
            apos = &fp;
        } else if (as_last(&f->by_addr, &e, NULL) && ((fblock *)e.p)->size >= need) {
            b = e.p; /* the highest block at its full size: no lower block fits */
        }
    } else {
        b = ss_lower_bound(&f->by_size, need, 0, &it);
        pos = &it;
    }
    if (!b || need < r->bytes) {
        return ALLOC_OOM;
    }
    if (b->addr + need > f->top) {
        /* Grow the committed top (contiguous: the device model is first fit from 0). */
        /* saturating: until 2026-11-27 a commit_granularity within 255 bytes of 2^64 wrapped
         * the rounding, and every allocation failed */
        uint64_t want = AM_MIN(am_round_up_sat(b->addr + need, f->commit), f->arena_size), at = 0;
        if (f->env.dev_alloc(f->env.ctx, want - f->top, &at) != 0) {
            return ALLOC_OOM;
        }
        if (at != f->top) { /* someone else holds device memory above our top */
            f->env.dev_free(f->env.ctx, at, want - f->top);
            return ALLOC_OOM;
        }
        f->top = want;
    }
    if (b->size > need) {
        /* The free block keeps the high part: same place in address order, new size. */
        fblock *used = fb_new(f);
        used->addr = b->addr;
        used->size = need;
        used->prev = b->prev;
        used->next = b;
        if (b->prev)
            b->prev->next = used;
        else
            f->head = used;
        b->prev = used;
        b->addr += need;
        b->size -= need;
        resize(f, b, pos, apos);
        b = used;
    } else {
        free_remove(f, b, pos, apos);
    }
    b->requested = r->bytes;
    f->in_use_bytes += b->size;
    if (f->in_use_bytes > f->peak_in_use)
        f->peak_in_use = f->in_use_bytes;
    f->num_allocs++;
    f->live++;
    o->addr = b->addr;
    o->size = b->size;
    o->handle = (uint64_t)(uintptr_t)b;
    return ALLOC_OK;
}

static void fit_free(void *st, uint64_t handle)
{
    fit *f = st;
    fblock *b = (fblock *)(uintptr_t)handle;
    if (b == f->hinted) /* its record may be taken again: the next hint must not read it */
        f->hinted = NULL;
    f->in_use_bytes -= b->size;
    f->live--;
    b->requested = 0;
    fblock *pb = b->prev && b->prev->is_free ? b->prev : NULL;
    fblock *nb = b->next && b->next->is_free ? b->next : NULL;
    if (pb) {
        /* Grow the previous free block over b (and the next one): its address order holds. */
        pb->size += b->size;
        unlink_block(f, b);
        fb_put(f, b);
        if (nb) {
            pb->size += nb->size;
            free_remove(f, nb, NULL, NULL);
            unlink_block(f, nb);
            fb_put(f, nb);
        }
        resize(f, pb, NULL, NULL);
    } else if (nb) {
        /* The next free block starts earlier now, still after every lower free block. */
        nb->addr = b->addr;
        nb->size += b->size;
        unlink_block(f, b);
        fb_put(f, b);
        resize(f, nb, NULL, NULL);
    } else {
        free_insert(f, b);
    }
}

/* First fit, at a stage-1 hint: the block of the previous one (hints come in the order of the
 * frees) is freed next, and its neighbours' records, prefetched then, are in cache now. The
 * leaves its merge changes are those its free neighbours' back-pointers name; with none free,
 * the leaf its entry goes to, found by a descent. */
static void fit_prefetch_leaves(fit *f, const fblock *b)
{
    const fblock *pb = b->prev && b->prev->is_free ? b->prev : NULL;
    const fblock *nb = b->next && b->next->is_free ? b->next : NULL;
    if (pb)
        as_prefetch_leaf(&f->by_addr, pb->leaf);
    if (nb && (!pb || nb->leaf != pb->leaf))
        as_prefetch_leaf(&f->by_addr, nb->leaf);
    if (!pb && !nb)
        as_prefetch(&f->by_addr, b->addr);
}

/* Look-ahead hint (alloc.h): a free reads its block (stage 0), then both neighbours (stage 1)
 * and, in first fit, the leaves of by_addr its merge changes (at the next stage-1 hint). */
static void fit_prefetch_free(void *st, uint64_t handle, int stage)
{
    fit *f = st;
    const fblock *b = (const fblock *)(uintptr_t)handle;
    recpool_prefetch_linked(b, stage, FB_HOT_SELF, offsetof(fblock, prev), offsetof(fblock, next),
                            FB_HOT_NEXT);
    if (stage == 1 && f->first_fit) {
        if (f->hinted && f->hinted != b && as_prefetches(&f->by_addr))
            fit_prefetch_leaves(f, f->hinted);
        f->hinted = (fblock *)(uintptr_t)handle;
    }
}

/* Largest free range usable without asking the device: the free block that reaches above the
 * committed top counts only up to the top. */
static uint64_t fit_largest_free(void *st)
{
    fit *f = st;
    if (f->first_fit) /* filed capped at the top */
        return as_max_len(&f->by_addr);
    ss_iter it;
    const fblock *b = ss_last(&f->by_size, &it);
    if (!b)
        return 0;
    if (b->addr + b->size <= f->top)
        return b->size;
    uint64_t capped = f->top > b->addr ? f->top - b->addr : 0;
    const fblock *p = ss_prev(&f->by_size, &it);
    return p && p->size > capped ? p->size : capped;
}

/* Peaks back to the current values (alloc.h reset_peaks). */
static void fit_reset_peaks(void *st)
{
    fit *f = st;
    f->peak_in_use = f->in_use_bytes;
}

static void fit_stats(void *st, const stat_sink *s)
{
    fit *f = st;
    s->cur_peak(s->ctx, "bytes_in_use", f->in_use_bytes, f->peak_in_use);
    s->u64(s->ctx, "committed_bytes", f->top);
    s->u64(s->ctx, "num_allocs", f->num_allocs);
    s->u64(s->ctx, "free_blocks", f->first_fit ? f->by_addr.n : f->by_size.n);
    s->u64(s->ctx, "largest_free_block_bytes", fit_largest_free(f));
    s->u64(s->ctx, "ooms", f->ooms);
}

/* Walk the address chain: each free block, and each run of used blocks as one. */
static void fit_walk(void *st, void (*fn)(void *arg, const alloc_block *b), void *arg)
{
    fit *f = st;
    if (!f->have_arena)
        return;
    uint64_t run = 0; /* bytes of used blocks since the last free one */
    for (const fblock *x = f->head; x; x = x->next) {
        if (!x->is_free) {
            run += x->size;
            continue;
        }
        if (run) {
            alloc_block u = {x->addr - run, run, 0, 1, f->arena_addr}; /* one or more used blocks */
            fn(arg, &u);
            run = 0;
        }
        alloc_block fb = {x->addr, x->size, 0, 0, f->arena_addr};
        fn(arg, &fb);
    }
    if (run) {
        uint64_t end = f->arena_addr + f->arena_size;
        alloc_block u = {end - run, run, 0, 1, f->arena_addr};
        fn(arg, &u);
    }
}

static int fit_check(void *st, am_error *err)
{
    fit *f = st;
    int bad = 0;
    uint64_t used_bytes = 0, at = f->arena_addr;
    size_t nfree = 0;
    size_t nfiled = f->first_fit ? f->by_addr.n : f->by_size.n;
    int sets_bad = f->first_fit ? (as_check(&f->by_addr) || f->by_size.n != 0)
                                : (ss_check(&f->by_size) || f->by_addr.n != 0);
    if (sets_bad) {
        bad++;
        am_fail(err, AM_EINTERNAL, "%s: free sets corrupt", f->first_fit ? "first_fit" : "best_fit");
    }
    const fblock *last = NULL;
    for (const fblock *x = f->head; x; last = x, x = x->next) {
        if (x->addr != at || x->prev != last || x->size == 0 ||
            (x->is_free && last && last->is_free)) {
            bad++;
            am_fail(err, AM_EINTERNAL, "fit: block at %" PRIu64 " does not follow the one below "
                    "it, is empty, or is a free block not merged with a free neighbour", x->addr);
            break;
        }
        at += x->size;
        if (!x->is_free) {
            used_bytes += x->size;
            continue;
        }
        nfree++;
        as_ent e;
        if ((!f->first_fit && x->key_size != x->size) || x->key_addr != x->addr ||
            (f->first_fit ? !as_find(&f->by_addr, x->addr, &e) || e.p != x ||
                                e.len != fit_len(f, x) || !as_leaf_has(x->leaf, x->addr)
                          : ss_find(&f->by_size, x->size, x->addr) != x)) {
            bad++;
            am_fail(err, AM_EINTERNAL, "fit: free block at %" PRIu64 " filed under another key",
                    x->addr);
        }
    }
    if (f->have_arena && (at != f->arena_addr + f->arena_size || nfree != nfiled ||
                          used_bytes != f->in_use_bytes)) {
        bad++;
        am_fail(err, AM_EINTERNAL, "fit: blocks end at %" PRIu64 " (arena end %" PRIu64 "), %zu "
                "free blocks chained (%zu filed), %" PRIu64 " bytes used (%" PRIu64 " counted)",
                at, f->arena_addr + f->arena_size, nfree, nfiled, used_bytes,
                f->in_use_bytes);
    }
    return bad;
}

/* alignment a power of two (requests round up to it: 3 placed 100-byte requests at 0, 102,
 * 204, and 0 was quietly 256 until 2026-11-25); commit_granularity above 0 (0 was quietly
 * 2 MiB). */
static int fit_check_opts(const void *opts, const alloc_env *env, am_error *err)
{
    const struct fit_opts *o = opts;
    if (am_check_pow2(err, "alignment", o->alignment, AM_MAX_BYTES, "4 EiB"))
        return -1;
    if (o->commit == 0)
        return am_fail_opt(err, "commit_granularity", "commit_granularity must be above 0 bytes");
    if (env->capacity == 0)
        return am_fail_opt(err, "capacity", "fit: capacity is 0 bytes");
    return 0;
}

static int fit_create_common(void **out, const alloc_env *env, const void *opts, int first,
                             am_error *err)
{
    static const struct fit_opts defaults = {256, 2ULL << 20};
    const struct fit_opts *o = opts ? opts : &defaults;
    if (fit_check_opts(o, env, err) < 0)
        return -1;
    fit *f = am_calloc(1, sizeof *f);
    recpool_init(&f->recs, sizeof(fblock));
    f->env = *env;
    f->align = o->alignment;
    f->commit = o->commit;
    f->first_fit = first;
    if (first) { /* a free block's record names its leaf: merges change it there */
        f->by_addr.bp = 1;
        f->by_addr.bp_off = offsetof(fblock, leaf);
        assert(!(f->by_addr.bp && f->by_addr.ranges)); /* a ranges leaf has no pointers */
    }
    *out = f;
    return 0;
}

static int best_create(void **out, const alloc_env *env, const void *opts, am_error *err)
{
    return fit_create_common(out, env, opts, 0, err);
}

static int first_create(void **out, const alloc_env *env, const void *opts, am_error *err)
{
    return fit_create_common(out, env, opts, 1, err);
}

static void fit_destroy(void *st)
{
    fit *f = st;
    ss_destroy(&f->by_size);
    as_destroy(&f->by_addr);
    recpool_destroy(&f->recs);
    free(f);
}

/* A refused request finally failed (alloc.h count_oom): the one place ooms grows. */
static void fit_count_oom(void *st) { ((fit *)st)->ooms++; }

/* alloc.h min_capacity: the request rounded up to the alignment, in an arena of the capacity. */
static uint64_t fit_min_capacity(void *st, uint64_t bytes)
{
    return am_round_up_sat(bytes, ((const fit *)st)->align);
}

static const struct alloc_ops best_fit_ops = {
    .name = "best_fit",
    .summary = "address-ordered best fit with coalescing in one arena of the capacity (baseline)",
    .opts = fit_opt_table,
    .opts_size = sizeof(struct fit_opts),
    .create = best_create,
    .check_opts = fit_check_opts,
    .destroy = fit_destroy,
    .alloc = fit_alloc,
    .free = fit_free,
    .prefetch_free = fit_prefetch_free,
    .largest_free = fit_largest_free,
    .stats = fit_stats,
    .reset_peaks = fit_reset_peaks,
    .walk = fit_walk,
    .check = fit_check,
    .count_oom = fit_count_oom,
    .min_capacity = fit_min_capacity,
};

static const struct alloc_ops first_fit_ops = {
    .name = "first_fit",
    .summary = "lowest-address first fit with coalescing in one arena of the capacity (baseline)",
    .opts = fit_opt_table,
    .opts_size = sizeof(struct fit_opts),
    .create = first_create,
    .check_opts = fit_check_opts,
    .destroy = fit_destroy,
    .alloc = fit_alloc,
    .free = fit_free,
    .prefetch_free = fit_prefetch_free,
    .largest_free = fit_largest_free,
    .stats = fit_stats,
    .reset_peaks = fit_reset_peaks,
    .walk = fit_walk,
    .check = fit_check,
    .count_oom = fit_count_oom,
    .min_capacity = fit_min_capacity,
    .compacts_down = 1, /* first fit: a buffer's old range is free when its turn comes */
};

const struct alloc_ops *alloc_best_fit_ops(void);
const struct alloc_ops *alloc_best_fit_ops(void) { return &best_fit_ops; }
const struct alloc_ops *alloc_first_fit_ops(void);
const struct alloc_ops *alloc_first_fit_ops(void) { return &first_fit_ops; }
