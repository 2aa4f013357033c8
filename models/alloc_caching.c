/* alloc_caching.c - PyTorch's CUDA caching allocator, exact (allocators.md section 3).
 *
 * Model of c10/cuda/CUDACachingAllocator.cpp (about v2.5):
 *  - a request is rounded (512 B, or a roundup_power2_divisions step) and served from the small
 *    pool (<= 1 MiB) or the large pool;
 *  - each pool keeps its free blocks ordered by (stream, size, address); the first block of the
 *    request's stream with size >= request is the only candidate, refused by the max_split_size /
 *    max_non_split_rounding rules;
 *  - the block's low end is given out; the rest is split off by the pool's split rule;
 *  - on a miss: garbage collection (when a memory fraction and a threshold are set), a new
 *    segment from the device (2 MiB small, 20 MiB for requests under 10 MiB, else rounded up to
 *    2 MiB), release of oversize blocks (max_split_size set), release of every completely free
 *    segment and one retry (num_alloc_retries), else out of memory (num_ooms);
 *  - free is two-phase: free_requested drops allocated bytes, free (completion) returns the block
 *    and merges it with free neighbours of the same segment.
 * Expandable segments: one virtual range per (pool, stream) of 1.125 x capacity rounded to the
 * page (2 MiB small, 20 MiB large), reserved at its first use. The range's addresses are
 * virtual, outside the level's device addresses: with segment_addresses: recorded a range is
 * reserved where the recording's was, when that is free (recorded_va), else (and without
 * recorded addresses) on a 2^40 boundary from CACH_VA_BASE past every recorded segment, or the
 * lowest free one from CACH_VA_BASE when none fits past them (synthetic_va); until it serves a
 * request it may still move to its recorded place (replace_unserved). Each mapped page is a
 * physical device allocation of one page through env->dev_alloc, so the level counts reserved
 * bytes exactly as PyTorch does (mapped pages); its physical address is kept only to give it
 * back. Each map and unmap of a virtual range is reported through env->dev_map, one call where
 * PyTorch records one segment_map / segment_unmap (a map that runs out of device memory records none).
 *
 * Data structures: free blocks in one size-class set (models/sizeset.h) per (pool, stream) keyed
 * (size, address), its order that of PyTorch's std::set of blocks; the free blocks among them
 * that are whole (unsplit, non-expandable) segments also in a list per (pool, stream), the ones
 * release_cached gives back (sorted by (size, address) then); unmapped
 * expandable ranges in an ordset per (pool, stream) keyed (address); segments in an ordset keyed
 * by address (walk); a bound on the largest free block of each (pool, stream) in a max-tree.
 * A block pointer is the handle given to the caller. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "../sim/units.h"
#include "sizeset.h"
#include "recpool.h"
#include "ordset.h"

#define CACH_MIN_BLOCK 512ULL               /* kMinBlockSize */
#define CACH_SMALL_SIZE (1ULL << 20)        /* kSmallSize: largest small-pool request */
#define CACH_SMALL_BUFFER (2ULL << 20)      /* kSmallBuffer: small segment */
#define CACH_LARGE_BUFFER (20ULL << 20)     /* kLargeBuffer: segment for mid-size requests */
#define CACH_MIN_LARGE_ALLOC (10ULL << 20)  /* kMinLargeAlloc */
#define CACH_ROUND_LARGE (2ULL << 20)       /* kRoundLarge */
#define CACH_DIVISIONS 16                   /* power-of-two intervals 1 MiB .. 64 GiB */
#define CACH_VA_BASE (1ULL << 56)           /* expandable virtual ranges start here */
#define CACH_NO_LIMIT UINT64_MAX

enum { POOL_SMALL = 0, POOL_LARGE = 1 };
enum { B_FREE = 0, B_ALLOC = 1, B_PENDING = 2 };

typedef struct cach_opts {
    uint64_t max_split_size;         /* bytes; UINT64_MAX = unlimited */
    uint64_t max_non_split_rounding; /* bytes */
    uint64_t divisions[CACH_DIVISIONS]; /* roundup_power2_divisions, 0/1 = off */
    size_t ndivisions;
    int expandable_segments;
    double gc_threshold;             /* fraction of the allowed memory, 0 = off */
    double memory_fraction;          /* fraction of capacity, 0 = off */
    int segment_addresses;           /* 0 synthetic, 1 recorded (the engine hints; no effect here) */
    int research_after_release;      /* 1: search the pool again after releasing cached blocks */
} cach_opts;

static const char *const seg_addr_values[] = {"synthetic", "recorded", NULL};

static const opt_desc cach_opt_table[] = {
    {"max_split_size", OPT_SIZE_OR_UNLIMITED, offsetof(cach_opts, max_split_size), "unlimited",
     "a request at or above this size splits no block, and one below it takes no cached block "
     "at or above it (bytes; unlimited)", NULL, 0, 0},
    {"max_non_split_rounding", OPT_SIZE, offsetof(cach_opts, max_non_split_rounding), "20MiB",
     "an oversize request refuses a cached block this much larger or more (bytes)", NULL, 0, 0},
    {"roundup_power2_divisions", OPT_UINT_LIST, offsetof(cach_opts, divisions), "0",
     "divisions per power-of-two interval 1MiB..64GiB (one value, alone or as [v]: v for "
     "every interval; 2 to 16 values: one per interval, those after them 0, as in PyTorch's "
     "list form; 0 = off)",
     NULL, CACH_DIVISIONS, offsetof(cach_opts, ndivisions)},
    {"expandable_segments", OPT_BOOL, offsetof(cach_opts, expandable_segments), "false",
     "one growing virtual segment per stream and pool, mapped in pages", NULL, 0, 0},
    {"garbage_collection_threshold", OPT_FRACTION, offsetof(cach_opts, gc_threshold), "0",
     "free old cached blocks when reserved exceeds this fraction of the allowed memory (0 = off)",
     NULL, 0, 0},
    {"memory_fraction", OPT_FRACTION, offsetof(cach_opts, memory_fraction), "0",
     "cap on reserved bytes as a fraction of capacity (0 = off)", NULL, 0, 0},
    {"segment_addresses", OPT_ENUM, offsetof(cach_opts, segment_addresses), "synthetic",
     "recorded: new segments (expandable ranges) take the recording's addresses (snapshots); "
     "synthetic: first fit",
     seg_addr_values, 0, 0},
    {"research_after_release", OPT_BOOL, offsetof(cach_opts, research_after_release), "false",
     "search the pool again after releasing cached blocks (the real allocator does not); no "
     "effect yet: the release completes no pending frees (README, Not yet supported)",
     NULL, 0, 0},
    {NULL, OPT_BOOL, 0, NULL, NULL, NULL, 0, 0},
};

typedef struct cseg cseg;

typedef struct cblock {
    /* what a free reads of its address neighbours first, in the record's first 56 bytes */
    uint64_t key_size, key_addr; /* its key in the free tree (size, addr when filed) */
    uint64_t addr, size;     /* bytes */
    struct cblock *prev, *next; /* neighbours inside the segment, address order */
    uint32_t slot;           /* its pool's stream slot (stream_slot), not the stream number */
    uint8_t state;           /* B_FREE, B_ALLOC, B_PENDING */
    uint8_t mapped;          /* 0: an unmapped range of an expandable segment */
    uint8_t in_tree;         /* in its pool's free tree or unmapped tree */
    uint8_t split_counted;   /* counted in inactive_split_bytes */
    uint8_t pool;            /* its segment's pool and kind, copied at creation (a block */
    uint8_t expandable;      /* never changes segment): no load through seg on the hot path */
    uint64_t requested;      /* bytes asked for, 0 when free */
    cseg *seg;
    uint64_t gc_base;        /* pool lookup count when the block entered the pool */
    /* The unmapped tree (k1 addr) of an expandable segment's range, or the whole list's links
     * of a free whole non-expandable segment: a block is never in both. */
    union {
        os_node node;
        struct { struct cblock *wprev, *wnext; };
    };
} cblock;

#define CB_OF_NODE(n) ((cblock *)(void *)((char *)(n) - offsetof(cblock, node)))
/* Bytes of a block record a free reads: of the block itself, of its neighbours. */
#define CB_HOT_SELF offsetof(cblock, node)
#define CB_HOT_NEXT offsetof(cblock, requested)

struct cseg {
    os_node node;            /* segments tree, k1 = address */
    uint64_t addr, size;     /* bytes */
    int pool;
    uint32_t slot;           /* stream slot (stream_slot) */
    cblock *head;            /* lowest block */
    int expandable;
    uint64_t page;           /* expandable: page bytes */
    uint64_t *phys;          /* expandable: physical address per page, UINT64_MAX unmapped */
    int served;              /* expandable: a page of it was ever mapped (a request served) */
    uint64_t start;          /* expandable: where its first served request maps (recorded_va) */
};

/* Per pool: free and unmapped trees per stream slot, and the lookup counter used for block age. */
typedef struct cpool {
    sizeset *free;           /* [nstreams]: free blocks by (size, addr) -> cblock, per slot */
    /* [nstreams]: the free blocks that are whole non-expandable segments, a list in no order
     * (O(1) to file and unfile on the hot path), so release_cached finds them without walking
     * every free block (until 2026-11-27 it did, a tree descent per free block on every failed
     * allocation) */
    cblock **whole;
    os_tree *unmapped;       /* [nstreams], expandable segments only */
    cseg **expseg;           /* [nstreams], expandable segment of each stream slot */
    size_t nstreams;         /* slots these arrays reach (<= the allocator's nslots) */
    uint64_t lookups;        /* get_free_blocks_call_count (only counted with GC on) */
} cpool;

typedef struct cstat { uint64_t cur, peak; } cstat;

/* The largest free block per (pool, stream slot), bounded from above: leaf 2 * slot + pool of a
 * max-tree (t[1] the root, leaves from t[nleaves], every inner entry the larger of its two
 * children). A leaf is at least its set's largest key: a block leaving a set leaves the bound
 * true, so only a block entering above it raises it (rare: a set's largest block mostly comes
 * back no larger than it left). The recount takes the root's leaf, reads that set's largest
 * key, and is done when the bound was exact; else it lowers that leaf and looks again, so each
 * bound is lowered once per time it was raised or its block left, O(log streams) a step.
 * Until 2026-11-27 a stale figure was recounted over every stream of both pools. */
typedef struct cmax {
    uint64_t *t;             /* [2 * nleaves] */
    size_t nleaves;          /* a power of two, >= 2 * nslots, or 0 before the first slot */
} cmax;

typedef struct cach {
    alloc_env env;
    cach_opts o;
    cpool pool[2];
    os_tree segs;
    uint64_t allowed;        /* memory_fraction cap, bytes; CACH_NO_LIMIT without a fraction */
    uint64_t total_reserved; /* total_allocated_memory: segment bytes or mapped pages */
    uint64_t next_va;        /* next expandable virtual range */
    cstat allocation, segment, active, inactive_split;   /* counts */
    cstat allocated_bytes, reserved_bytes, active_bytes, inactive_split_bytes, requested_bytes;
    uint64_t num_alloc_retries, num_ooms, num_device_alloc, num_device_free;
    uint64_t seg_max[2];     /* per pool, the largest non-expandable segment ever taken
                              * (cach_min_capacity: one that may still be there) */
    uint64_t largest;        /* size of the largest free mapped block, unless largest_stale */
    int largest_stale;       /* a block of that size left the pools: recount on the next ask */
    cmax mx;                 /* per (pool, stream) largest free block, for the recount */
    recpool blocks;          /* block records */
    /* Stream slots: the per-stream trees are indexed by a dense slot given to each stream number
     * at its first request, so memory grows with the streams used, not with their numbers
     * (until 2026-11-27 the arrays were indexed by the number: stream=4294967294 asked for
     * 650 GB). Walks over the pools go through slot_order, by stream number, as PyTorch's
     * (stream, size, address) order. */
    uint32_t *slot_stream;   /* [nslots] stream number of each slot, in first-use order */
    uint32_t *slot_order;    /* [nslots] slots by ascending stream number */
    size_t nslots, slot_cap;
    uint32_t last_stream, last_slot; /* the last lookup (requests come in runs per stream) */
} cach;

static void st_add(cstat *s, uint64_t v)
{
    s->cur += v;
    if (s->cur > s->peak)
        s->peak = s->cur;
}

static void st_sub(cstat *s, uint64_t v) { s->cur -= v; }

/* ---- rounding and sizes (round_size, get_allocation_size) ---- */

static uint64_t floor_log2(uint64_t x) { return 63 - (uint64_t)__builtin_clzll(x); }

static uint64_t divisions_for(const cach *c, uint64_t size)
{
    if (c->o.ndivisions == 0)
        return 0;
    if (c->o.ndivisions == 1)
        return c->o.divisions[0];
    int64_t idx = (int64_t)floor_log2(size) - 20;
    idx = idx < 0 ? 0 : idx > CACH_DIVISIONS - 1 ? CACH_DIVISIONS - 1 : idx;
    return (size_t)idx < c->o.ndivisions ? c->o.divisions[idx] : 0;
}

static uint64_t cach_round(const cach *c, uint64_t size)
{
    if (size < CACH_MIN_BLOCK)
        return CACH_MIN_BLOCK;
    uint64_t div = divisions_for(c, size);
    /* size > kMinBlockSize * div, without the product: it wrapped for div >= 2^55 (until
     * 2026-11-27, when such values were accepted) */
    if (div > 1 && div <= (size - 1) / CACH_MIN_BLOCK) {
        /* roundup_power2_next_division: the interval is cut in 2^floor(log2 div) steps. */
        if ((size & (size - 1)) == 0)
            return size;
        uint64_t p2 = 1ULL << floor_log2(size);
        uint64_t step = p2 >> floor_log2(div);
        if (step == 0)
            return p2 << 1;
        uint64_t lo = size & ~(step - 1);
        return lo == size ? size : lo + step;
    }
    return am_round_up(size, CACH_MIN_BLOCK);
}

static uint64_t segment_size(uint64_t rounded)
{
    if (rounded <= CACH_SMALL_SIZE)
        return CACH_SMALL_BUFFER;
    if (rounded < CACH_MIN_LARGE_ALLOC)
        return CACH_LARGE_BUFFER;
    return am_round_up(rounded, CACH_ROUND_LARGE);
}

/* The pool of a rounded request (cach_alloc, cach_min_capacity). */
static int pool_of(uint64_t rounded)
{
    return rounded <= CACH_SMALL_SIZE ? POOL_SMALL : POOL_LARGE;
}

/* An expandable segment's page in a pool (expandable_segment, cach_min_capacity). */
static uint64_t pool_page(int pool)
{
    return pool == POOL_SMALL ? CACH_SMALL_BUFFER : CACH_LARGE_BUFFER;
}

/* ---- pools ---- */

static AM_NOINLINE void grow_streams(cpool *p, uint32_t s)
{
    size_t n = AM_MAX((size_t)s + 1, 2 * p->nstreams);
    p->free = am_realloc(p->free, n * sizeof *p->free);
    p->whole = am_realloc(p->whole, n * sizeof *p->whole);
    p->unmapped = am_realloc(p->unmapped, n * sizeof *p->unmapped);
    p->expseg = am_realloc(p->expseg, n * sizeof *p->expseg);
    for (size_t i = p->nstreams; i < n; i++) {
        memset(&p->free[i], 0, sizeof p->free[i]);
        p->whole[i] = NULL;
        p->unmapped[i] = (os_tree){.root = NULL};
        p->expseg[i] = NULL;
    }
    p->nstreams = n;
}

/* The per-stream trees of a pool reach slot s (a new slot's are empty). */
static inline void ensure_stream(cpool *p, uint32_t s)
{
    if (s >= p->nstreams)
        grow_streams(p, s);
}

/* ---- the largest free block per (pool, stream): a max-tree over the sets ---- */

static size_t mx_leaf(uint32_t slot, int pool) { return 2 * (size_t)slot + (size_t)pool; }

/* The largest free block of the set behind leaf (0 when that pool has no such stream). */
static uint64_t set_last(const cach *c, size_t leaf)
{
    const cpool *pl = &c->pool[leaf % 2];
    return leaf / 2 < pl->nstreams ? ss_last_size(&pl->free[leaf / 2]) : 0;
}

/* The largest free block of every set, read one by one. */
static uint64_t largest_scan(const cach *c)
{
    uint64_t best = 0;
    for (int i = 0; i < 2; i++)
        for (size_t s = 0; s < c->pool[i].nstreams; s++)
            best = AM_MAX(best, ss_last_size(&c->pool[i].free[s]));
    return best;
}

/* Up to this many stream slots the recount reads every set (no tree: with one or two streams
 * reading them is cheaper than a descent and a leaf update per allocation and free). */
#define CACH_MX_LINEAR 4

/* Room for the leaves of the stream slots, made when the slots pass CACH_MX_LINEAR: the tree
 * doubles and every leaf is read from its set (O(slots), amortized over the slots added). */
static AM_NOINLINE void mx_grow(cach *c)
{
    cmax *m = &c->mx;
    size_t n = m->nleaves ? m->nleaves : 16;
    while (n < 2 * c->nslots)
        n *= 2;
    if (n == m->nleaves)
        return;
    uint64_t *t = am_calloc(2 * n, sizeof *t);
    for (size_t leaf = 0; leaf < 2 * c->nslots; leaf++) { /* exact: the tightest bounds */
        t[n + leaf] = set_last(c, leaf);
    }
    for (size_t i = n - 1; i >= 1; i--)
        t[i] = AM_MAX(t[2 * i], t[2 * i + 1]);
    free(m->t);
    m->t = t;
    m->nleaves = n;
}

/* Set a leaf and the maxima above it (stops where an inner entry is already right). */
static AM_NOINLINE void mx_set(cmax *m, size_t leaf, uint64_t v)
{
    size_t i = m->nleaves + leaf;
    m->t[i] = v;
    for (i /= 2; i >= 1; i /= 2) {
        uint64_t x = AM_MAX(m->t[2 * i], m->t[2 * i + 1]);
        if (m->t[i] == x)
            break;
        m->t[i] = x;
    }
}

/* A block of `size` bytes entered the set of (pool, slot): its bound rises if below. */
static inline void mx_raise(cmax *m, uint32_t slot, int pool, uint64_t size)
{
    size_t leaf = mx_leaf(slot, pool);
    if (__builtin_expect(m->nleaves != 0, 0) && size > m->t[m->nleaves + leaf])
        mx_set(m, leaf, size);
}

/* The leaf under the root: at each level the child holding the larger entry. */
static size_t mx_top_leaf(const cmax *m)
{
    size_t i = 1;
    while (i < m->nleaves)
        i = m->t[2 * i] == m->t[i] ? 2 * i : 2 * i + 1;
    return i - m->nleaves;
}

/* Position in slot_order of the first slot whose stream number is >= stream. */
static size_t slot_rank(const cach *c, uint32_t stream)
{
    size_t lo = 0, hi = c->nslots;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->slot_stream[c->slot_order[mid]] < stream)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A new slot for stream at rank `at` of slot_order; both pools' trees reach it. */
static AM_NOINLINE uint32_t slot_add(cach *c, uint32_t stream, size_t at)
{
    if (c->nslots == c->slot_cap) {
        c->slot_cap = c->slot_cap ? 2 * c->slot_cap : 4;
        c->slot_stream = am_realloc(c->slot_stream, c->slot_cap * sizeof *c->slot_stream);
        c->slot_order = am_realloc(c->slot_order, c->slot_cap * sizeof *c->slot_order);
    }
    uint32_t slot = (uint32_t)c->nslots++;
    c->slot_stream[slot] = stream;
    memmove(&c->slot_order[at + 1], &c->slot_order[at],
            (c->nslots - 1 - at) * sizeof *c->slot_order);
    c->slot_order[at] = slot;
    if (c->nslots > CACH_MX_LINEAR)
        mx_grow(c);
    ensure_stream(&c->pool[POOL_SMALL], slot);
    ensure_stream(&c->pool[POOL_LARGE], slot);
    return slot;
}

/* The dense slot of a stream number, made at its first use. */
static uint32_t stream_slot(cach *c, uint32_t stream)
{
    if (c->nslots && stream == c->last_stream)
        return c->last_slot;
    size_t at = slot_rank(c, stream);
    uint32_t slot = at < c->nslots && c->slot_stream[c->slot_order[at]] == stream
                        ? c->slot_order[at]
                        : slot_add(c, stream, at);
    c->last_stream = stream;
    c->last_slot = slot;
    return slot;
}

static int is_split(const cblock *b) { return b->prev || b->next; }

/* A free block that is a whole non-expandable segment joins / leaves its pool's whole list.
 * Whole it stays while free: a segment's only block has no neighbour to merge or split.
 * Out of line: in sim_run's loop their bodies cost more (about 2% end to end on train-1M) than
 * the calls, which only a free of a whole segment makes. The links are only read while the
 * block is in the list (whole_insert sets both), so leaving it does not clear them. */
static AM_NOINLINE void whole_insert(cach *c, cblock *b)
{
    cblock **head = &c->pool[b->pool].whole[b->slot];
    b->wprev = NULL;
    b->wnext = *head;
    if (*head)
        (*head)->wprev = b;
    *head = b;
}

static AM_NOINLINE void whole_remove(cach *c, cblock *b)
{
    if (b->wprev)
        b->wprev->wnext = b->wnext;
    else
        c->pool[b->pool].whole[b->slot] = b->wnext;
    if (b->wnext)
        b->wnext->wprev = b->wprev;
}

/* Whether b is in its pool's whole list: pool_note files a block there exactly when it counts
 * it neither as a split piece nor as expandable, and only pool_forget (which unfiles it) clears
 * split_counted and in_tree; expandable never changes. So no flag mirrors the list. */
static int in_whole_list(const cblock *b)
{
    return b->in_tree && !b->split_counted && !b->expandable;
}

/* What a free mapped block entering its pool changes besides the tree: its key, the largest
 * free block, its age, the inactive-split counts and the whole set. */
static void pool_note(cach *c, cblock *b)
{
    b->key_size = b->size;
    b->key_addr = b->addr;
    if (b->size > c->largest)
        c->largest = b->size;
    mx_raise(&c->mx, b->slot, b->pool, b->size);
    b->in_tree = 1;
    b->gc_base = c->pool[b->pool].lookups;
    /* inactive_split: free pieces of partly used (non-expandable) segments */
    b->split_counted = !b->expandable && is_split(b);
    if (b->split_counted) {
        st_add(&c->inactive_split_bytes, b->size);
        st_add(&c->inactive_split, 1);
    } else if (!b->expandable) {
        whole_insert(c, b);
    }
}

/* ... and a block leaving it (its size still the filed one). */
static void pool_forget(cach *c, cblock *b)
{
    if (b->key_size == c->largest)
        c->largest_stale = 1; /* maybe the only one that large: recount when asked */
    b->in_tree = 0;
    /* the same test as pool_note's, which filed b (every block forgotten was noted) */
    if (b->split_counted) {
        st_sub(&c->inactive_split_bytes, b->size);
        st_sub(&c->inactive_split, 1);
        b->split_counted = 0;
    } else if (!b->expandable) {
        whole_remove(c, b);
    }
}

static sizeset *pool_tree(cach *c, const cblock *b) { return &c->pool[b->pool].free[b->slot]; }

/* Insert a free mapped block into its pool (insert_into_blocks). */
static void pool_insert(cach *c, cblock *b)
{
    ensure_stream(&c->pool[b->pool], b->slot);
    ss_insert(pool_tree(c, b), b->size, b->addr, b);
    pool_note(c, b);
}

/* Take a free block out of its pool; `at` is its position when the caller has it (one less
 * descent), else NULL. */
static void pool_remove_at(cach *c, cblock *b, const ss_iter *at)
{
    if (at)
        ss_remove_at(pool_tree(c, b), at);
    else
        ss_remove(pool_tree(c, b), b->key_size, b->key_addr);
    pool_forget(c, b);
}

static void pool_remove(cach *c, cblock *b) { pool_remove_at(c, b, NULL); }

/* The free block after / before b in its tree's key order, valid whether or not b is still in
 * the tree (walks that release blocks step by key, since releasing changes the tree). */
static cblock *free_after(const sizeset *t, const cblock *b)
{
    ss_iter it;
    cblock *x = ss_lower_bound(t, b->key_size, b->key_addr, &it);
    return x == b ? ss_next(t, &it) : x;
}

static cblock *free_before(const sizeset *t, const cblock *b)
{
    ss_iter it;
    if (!ss_lower_bound(t, b->key_size, b->key_addr, &it))
        return ss_last(t, NULL);
    return ss_prev(t, &it);
}

static void unmapped_insert(cach *c, cblock *b)
{
    cpool *p = &c->pool[b->pool];
    b->node.k1 = b->addr;
    b->node.k2 = 0;
    os_insert(&p->unmapped[b->slot], &b->node);
    b->in_tree = 1;
}

static void unmapped_remove(cach *c, cblock *b)
{
    os_remove(&c->pool[b->pool].unmapped[b->slot], &b->node);
    b->in_tree = 0;
}

/* Block records come from a record pool (a split or merge per event made malloc and free a
 * tenth of the run). */
static cblock *block_new(cach *c, cseg *s, uint64_t addr, uint64_t size)
{
    cblock *b = recpool_take(&c->blocks);
    /* every field set here, one by one: a whole-record clear of this size compiles to a slow
     * `rep stos` (a new field must be added here too) */
    b->node = (os_node){0};
    b->key_size = b->key_addr = 0;
    b->addr = addr;
    b->size = size;
    b->requested = 0;
    b->prev = b->next = NULL;
    b->seg = s;
    b->gc_base = 0;
    b->slot = s->slot;
    b->state = B_FREE;
    b->mapped = 1;
    b->in_tree = 0;
    b->split_counted = 0;
    b->pool = (uint8_t)s->pool;
    b->expandable = (uint8_t)s->expandable;
    return b;
}

static void block_put(cach *c, cblock *b) { recpool_put(&c->blocks, b); }

/* Unlink b from its segment's block list. */
static void unlink_block(cblock *b)
{
    if (b->prev)
        b->prev->next = b->next;
    else
        b->seg->head = b->next;
    if (b->next)
        b->next->prev = b->prev;
}

/* Split b at `at` bytes: a new block for the high part, linked after b; returns it. */
static cblock *split_after(cach *c, cblock *b, uint64_t at)
{
    cblock *rest = block_new(c, b->seg, b->addr + at, b->size - at);
    rest->slot = b->slot;
    rest->prev = b;
    rest->next = b->next;
    if (b->next)
        b->next->prev = rest;
    b->next = rest;
    b->size = at;
    return rest;
}

static int mergeable(const cblock *dst, const cblock *src)
{
    return src && src->state == B_FREE && src->mapped == dst->mapped;
}

/* try_merge_blocks: absorb src (a neighbour of dst) when it is free and equally mapped. With
 * keep, a mapped src's tree entry stays for the caller to re-key (its counts are updated). */
static void try_merge_keep(cach *c, cblock *dst, cblock *src, int keep)
{
    if (!mergeable(dst, src))
        return;
    if (src->mapped && keep)
        pool_forget(c, src);
    else if (src->mapped)
        pool_remove(c, src);
    else
        unmapped_remove(c, src);
    if (dst->prev == src)
        dst->addr = src->addr;
    dst->size += src->size;
    unlink_block(src);
    block_put(c, src);
}

static void try_merge(cach *c, cblock *dst, cblock *src) { try_merge_keep(c, dst, src, 0); }

/* ---- device segments ---- */

static cseg *seg_new(cach *c, uint64_t addr, uint64_t size, int pool, uint32_t slot)
{
    cseg *s = am_calloc(1, sizeof *s);
    s->addr = addr;
    s->size = size;
    s->pool = pool;
    s->slot = slot;
    s->node.k1 = addr;
    s->node.val = size; /* the length os_overlap reads */
    os_insert(&c->segs, &s->node);
    return s;
}

static void seg_delete(cach *c, cseg *s)
{
    os_remove(&c->segs, &s->node);
    free(s->phys);
    free(s);
}

/* release_block: give a whole free (non-expandable) segment back to the device. */
static void release_segment(cach *c, cblock *b)
{
    cseg *s = b->seg;
    pool_remove(c, b);
    c->env.dev_free(c->env.ctx, s->addr, s->size);
    c->total_reserved -= s->size;
    st_sub(&c->segment, 1);
    st_sub(&c->reserved_bytes, s->size);
    c->num_device_free++;
    block_put(c, b);
    seg_delete(c, s);
}

/* Lower the expandable segment's mapped pages in [lo, hi) (page aligned). */
static int map_pages(cach *c, cseg *s, uint64_t lo, uint64_t hi)
{
    uint64_t first = (lo - s->addr) / s->page, last = (hi - s->addr) / s->page;
    for (uint64_t i = first; i < last; i++) {
        uint64_t pa;
        if (c->env.dev_alloc(c->env.ctx, s->page, &pa) < 0) {
            /* unwind the pages mapped by this call */
            for (uint64_t j = first; j < i; j++) {
                c->env.dev_free(c->env.ctx, s->phys[j], s->page);
                s->phys[j] = UINT64_MAX;
            }
            return -1;
        }
        s->phys[i] = pa;
    }
    return 0;
}

static void unmap_pages(cach *c, cseg *s, uint64_t lo, uint64_t hi)
{
    for (uint64_t i = (lo - s->addr) / s->page; i < (hi - s->addr) / s->page; i++) {
        c->env.dev_free(c->env.ctx, s->phys[i], s->page);
        s->phys[i] = UINT64_MAX;
    }
}

/* map_block: map the pages covering [b->addr, b->addr + size) of an unmapped block; the mapped
 * part becomes a free block of the pool (merged with free mapped neighbours). The map is
 * reported (PyTorch's segment_map) only when every page was had: a map that runs out gives its
 * pages back and, as in PyTorch, leaves no trace. */
static cblock *map_block(cach *c, cblock *b, uint64_t size)
{
    cseg *s = b->seg;
    uint64_t len = AM_MIN(am_round_up(size, s->page), b->size);
    if (map_pages(c, s, b->addr, b->addr + len) < 0)
        return NULL;
    s->served = 1;
    c->env.dev_map(c->env.ctx, 1, b->addr, len);
    unmapped_remove(c, b);
    b->mapped = 1;
    if (len < b->size) {
        cblock *rest = split_after(c, b, len);
        rest->mapped = 0;
        unmapped_insert(c, rest);
    }
    try_merge(c, b, b->prev);
    try_merge(c, b, b->next);
    pool_insert(c, b);
    c->total_reserved += len;
    st_add(&c->reserved_bytes, len);
    c->num_device_alloc++;
    return b;
}

/* unmap_block: unmap the whole pages inside a free mapped block of an expandable segment. */
static void unmap_block(cach *c, cblock *b)
{
    cseg *s = b->seg;
    uint64_t lo = s->addr + am_round_up(b->addr - s->addr, s->page);
    uint64_t hi = s->addr + am_round_down(b->addr + b->size - s->addr, s->page);
    if (hi <= lo)
        return;
    pool_remove(c, b);
    if (lo > b->addr) { /* free mapped head stays */
        cblock *h = block_new(c, s, b->addr, lo - b->addr);
        h->slot = b->slot;
        h->prev = b->prev;
        h->next = b;
        if (b->prev)
            b->prev->next = h;
        else
            s->head = h;
        b->prev = h;
        pool_insert(c, h);
    }
    if (b->addr + b->size > hi) /* free mapped tail stays */
        pool_insert(c, split_after(c, b, hi - b->addr));
    unmap_pages(c, s, lo, hi);
    c->env.dev_map(c->env.ctx, 0, lo, hi - lo); /* PyTorch's segment_unmap */
    b->addr = lo;
    b->size = hi - lo;
    b->mapped = 0;
    try_merge(c, b, b->prev);
    try_merge(c, b, b->next);
    unmapped_insert(c, b);
    c->total_reserved -= hi - lo;
    st_sub(&c->reserved_bytes, hi - lo);
    c->num_device_free++;
}

/* ---- the search (get_free_block) ---- */

typedef struct params {
    uint64_t size;       /* rounded request */
    uint64_t requested;  /* as asked */
    uint64_t alloc_size; /* segment size on a miss */
    uint32_t slot;       /* the request's stream slot */
    int pool;
    cblock *block;       /* found or new block */
    int filed;           /* block is still in its pool's tree, at `at` */
    ss_iter at;
} params;

static int gc_on(const cach *c) { return c->o.memory_fraction > 0 && c->o.gc_threshold > 0; }

/* expandable_size: a free block followed by an unmapped range can grow into it. */
static uint64_t exp_size(const cblock *b)
{
    return b->size + (b->next && !b->next->mapped ? b->next->size : 0);
}

static int get_free_block(cach *c, params *p)
{
    cpool *pl = &c->pool[p->pool];
    if (gc_on(c))
        pl->lookups++;
    ensure_stream(pl, p->slot);
    ss_iter it;
    const sizeset *fs = &pl->free[p->slot];
    cblock *b = ss_lower_bound(fs, p->size, 0, &it);
    if (!b)
        return 0;
    if (b->expandable) {
        /* Best fit by the size the block could expand to (`it` stays at b, `nit` looks ahead). */
        ss_iter nit = it;
        cblock *nx = ss_next(fs, &nit);
        while (b->expandable && nx && exp_size(nx) < exp_size(b)) {
            b = nx;
            it = nit;
            nx = ss_next(fs, &nit);
        }
    }
    uint64_t mss = c->o.max_split_size;
    if (p->size < mss && b->size >= mss)
        return 0; /* no oversize block for a small request */
    /* no much larger block for an oversize request; the excess is compared, not p->size +
     * max_non_split_rounding, which passes 2^64 for a rounding near it (until 2026-11-27 it
     * wrapped, and a cached 128 MiB block was refused to a 64 MiB request) */
    if (p->size >= mss && b->size >= p->size &&
        b->size - p->size >= c->o.max_non_split_rounding)
        return 0;
    p->block = b; /* still filed: take_block takes it out (or hands its entry to the rest) */
    p->at = it;
    p->filed = 1;
    return 1;
}

/* ---- releasing cached memory ---- */

/* garbage_collect_cached_blocks: release unsplit free large-pool blocks of at least average
 * age (age = pool lookups since the block entered the pool), until enough is reclaimed. */
static void garbage_collect(cach *c)
{
    uint64_t threshold = (uint64_t)(c->o.gc_threshold * (double)c->allowed);
    if (c->total_reserved <= threshold)
        return;
    uint64_t target = c->total_reserved - threshold, reclaimed = 0, total_age = 0, count = 0;
    cpool *pl = &c->pool[POOL_LARGE];
    for (size_t k = 0; k < c->nslots; k++) {
        size_t s = c->slot_order[k];
        ss_iter it;
        for (cblock *b = ss_first(&pl->free[s], &it); b; b = ss_next(&pl->free[s], &it))
            if (!is_split(b)) {
                total_age += pl->lookups - b->gc_base;
                count++;
            }
    }
    int freed = 1;
    while (reclaimed < target && freed && count > 0) {
        double age_threshold = (double)total_age / (double)count;
        freed = 0;
        for (size_t k = 0; k < c->nslots; k++) {
            size_t s = c->slot_order[k];
            /* in key order; a released block leaves the tree, so step by key, not iterator */
            for (cblock *b = ss_first(&pl->free[s], NULL), *nb; b; b = nb) {
                nb = free_after(&pl->free[s], b);
                uint64_t age = pl->lookups - b->gc_base;
                if (!is_split(b) && !b->expandable && (double)age >= age_threshold) {
                    freed = 1;
                    reclaimed += b->size;
                    total_age -= age;
                    count--;
                    release_segment(c, b);
                }
            }
        }
    }
}

/* release_available_cached_blocks (max_split_size set): free one oversize block that fits, or
 * several oversize blocks, largest first, until the request's size is covered. */
static int release_available(cach *c, const params *p)
{
    uint64_t mss = c->o.max_split_size;
    if (mss == CACH_NO_LIMIT)
        return 0;
    cpool *pl = &c->pool[p->pool];
    sizeset *t = &pl->free[p->slot];
    uint64_t key = p->size < mss ? mss : p->size;
    cblock *b = ss_lower_bound(t, key, 0, NULL);
    if (b) {
        if (is_split(b) || b->expandable)
            return 0; /* only whole non-expandable segments can go back */
        release_segment(c, b);
        return 1;
    }
    uint64_t released = 0;
    b = ss_last(t, NULL);
    while (b && released < key && b->size >= mss) {
        cblock *pb = free_before(t, b);
        if (!b->expandable && !is_split(b)) {
            released += b->size;
            release_segment(c, b);
        }
        b = pb;
    }
    return released >= key;
}

/* Unmap the free pages of a (pool, slot)'s expandable blocks, in (size, address) order: they
 * are listed first, since an unmap files the mapped head and tail it leaves. */
static void unmap_cached(cach *c, sizeset *t)
{
    size_t nun = 0;
    cblock **to_unmap = am_malloc((t->n ? t->n : 1) * sizeof *to_unmap);
    ss_iter it;
    for (cblock *b = ss_first(t, &it); b; b = ss_next(t, &it))
        if (b->expandable)
            to_unmap[nun++] = b;
    for (size_t i = 0; i < nun; i++)
        unmap_block(c, to_unmap[i]);
    free(to_unmap);
}

/* The free sets' order, (size, address), for whole segments (keys are unique). */
static int by_size_addr(const void *a, const void *b)
{
    const cblock *x = *(cblock *const *)a, *y = *(cblock *const *)b;
    if (x->size != y->size)
        return x->size < y->size ? -1 : 1;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Give back every whole segment of a whole list, in the free set's (size, address) order;
 * t is that free set, which holds every member of the list. */
static void release_whole(cach *c, cblock *head, const sizeset *t)
{
    size_t n = 0;
    cblock **all = am_malloc((t->n ? t->n : 1) * sizeof *all);
    for (cblock *b = head; b; b = b->wnext)
        all[n++] = b;
    if (n > 1)
        qsort(all, n, sizeof *all, by_size_addr);
    for (size_t i = 0; i < n; i++)
        release_segment(c, all[i]); /* leaves the list */
    free(all);
}

/* release_cached_blocks (empty_cache): every completely free segment goes back, large pool
 * first, in (stream, size, address) order; expandable segments unmap their free pages.
 * The whole segments come from the whole lists, sorted into the free sets' own (size,
 * address) order, so the cost is O(k log k) for the k segments released plus a look per pool
 * and stream, not the free blocks cached (until 2026-11-27 every free block was walked); only
 * with expandable_segments, where every free block may hold pages to unmap, are the free sets
 * walked. Pending (stream-ordered) frees are not forced to complete here: the engine owns
 * them. */
static void release_cached(cach *c)
{
    for (int pi = POOL_LARGE; pi >= POOL_SMALL; pi--) {
        cpool *pl = &c->pool[pi];
        for (size_t k = 0; k < c->nslots; k++) {
            size_t s = c->slot_order[k];
            if (pl->whole[s])
                release_whole(c, pl->whole[s], &pl->free[s]);
            if (c->o.expandable_segments)
                unmap_cached(c, &pl->free[s]);
        }
    }
}

/* ---- new memory (alloc_block in the real code) ---- */

/* The reserved range that [base, base + size) overlaps (end <= 2^64), or NULL: ranges do not
 * overlap one another (os_overlap). */
static const cseg *va_overlap(const cach *c, uint64_t base, uint64_t size)
{
    return (const cseg *)(const void *)os_overlap(&c->segs, base, size); /* node: first member */
}

/* With recorded segment addresses, where the recording's range began (alloc.h va_hint), if the
 * range fits there, below 2^64 and clear of every range reserved; *start is that recorded
 * start, where the range's first served request maps. A range that would pass 2^64 - 1 from
 * there is shortened to the whole pages below it (*size) when they still hold the level's
 * capacity, so that its pages never run out before the device does (PyTorch's 9/8 of the
 * capacity never do); else it keeps its size and starts as many pages lower as it takes to end
 * below 2^64, the recorded start a page boundary inside it: the README's recording whose range
 * had its lowest pages unmapped. Until 2026-11-28 a range passing 2^64 was refused, and so was
 * the synthetic one after it (synthetic_va): a range recorded at 2^64 - 2^32 made every request
 * of its pool run out of memory on an empty device. Until 2026-11-28 also a recorded range at
 * or past CACH_VA_BASE (2^56) was refused and the request's range went to a synthetic address,
 * so a replay of a snapshot amsim exported itself, whose ranges are there, matched few
 * allocations (11 of 42 on a cut-short one). */
static uint64_t recorded_va(cach *c, uint64_t *size, uint64_t page, uint64_t *start)
{
    uint64_t base = c->env.va_hint ? c->env.va_hint(c->env.ctx) : UINT64_MAX;
    if (base == UINT64_MAX)
        return UINT64_MAX;
    uint64_t want = *size, at = base;
    if (want > UINT64_MAX - base) {
        uint64_t fits = am_round_down(UINT64_MAX - base, page);
        if (fits >= AM_MAX(page, am_round_down(c->env.capacity, page))) {
            want = fits;
        } else {
            /* want <= UINT64_MAX / page * page (expandable_range): the round-up cannot wrap */
            uint64_t down = am_round_up(want - (UINT64_MAX - base), page);
            if (down > base)
                return UINT64_MAX;
            at = base - down;
        }
    }
    if (va_overlap(c, at, want))
        return UINT64_MAX;
    *size = want;
    *start = base;
    return at;
}

/* The first 2^40 boundary from base (one) where [base, base + size) is clear of every range
 * reserved and, with recorded, of every recorded segment; UINT64_MAX when none fits below 2^64.
 * Each step passes one range or segment, so it ends. */
static uint64_t clear_va(cach *c, uint64_t base, uint64_t size, int recorded)
{
    for (;;) {
        if (base > UINT64_MAX - size)
            return UINT64_MAX;
        const cseg *s = va_overlap(c, base, size);
        uint64_t end = s ? s->addr + s->size : 0;
        if (!s && recorded && c->env.va_recorded_over)
            end = c->env.va_recorded_over(c->env.ctx, base, size);
        if (!end)
            return base;
        base = am_round_up_sat(end, 1ULL << 40);
    }
}

/* A range of no recorded address: the next one from next_va, on a 2^40 boundary past every
 * recorded segment the level knows (alloc.h va_recorded_end) and clear of every range reserved
 * (a recorded one may reach past its recorded segment), so that the synthetic addresses meet
 * no recorded range. Below 2^56 (PyTorch's addresses) and without recorded addresses they are
 * the same as before. When nothing past the recorded segments fits below 2^64 (one ends near
 * it), the lowest 2^40 boundary from CACH_VA_BASE clear of every recorded segment and every
 * range reserved; until 2026-11-28 the request ran out of memory, on an empty device too.
 * UINT64_MAX when no range fits below 2^64. */
static uint64_t synthetic_va(cach *c, uint64_t size)
{
    uint64_t base = c->next_va;
    uint64_t rec = c->env.va_recorded_end ? c->env.va_recorded_end(c->env.ctx) : 0;
    if (rec > base)
        base = am_round_up_sat(rec, 1ULL << 40);
    base = clear_va(c, base, size, 0);
    if (base == UINT64_MAX && rec)
        base = clear_va(c, CACH_VA_BASE, size, 1);
    return base;
}

/* The bytes of an expandable segment's virtual range: 9/8 of the capacity in whole pages, and
 * at least one page: a capacity under 8 B made a range of 0 B until 2026-11-27, whose empty
 * segment broke --check's tiling invariant where capacities of 8 B and more ran out of memory
 * cleanly. The product is capped at the largest multiple of page rather than wrapped (the
 * config allows 4 EiB, whose 9/8 fits; a caller's capacity near 2^64 would not). */
static uint64_t expandable_range(uint64_t capacity, uint64_t page)
{
    uint64_t most = UINT64_MAX / page * page;
    uint64_t eighth = capacity / 8;
    uint64_t want = eighth > most / 9 ? most : eighth * 9;
    /* want <= most, a multiple of page, so rounding up stays within most and never saturates:
     * the _sat form only because am_round_up's want + page - 1 wraps near most */
    return want ? am_round_up_sat(want, page) : page;
}

/* An expandable range's page table grown from `from` bytes of range to `to` (from 0 when new),
 * the pages added unmapped. */
static void phys_grow(cseg *s, uint64_t from, uint64_t to)
{
    s->phys = am_realloc(s->phys, (to / s->page) * sizeof *s->phys);
    for (uint64_t i = from / s->page; i < to / s->page; i++)
        s->phys[i] = UINT64_MAX;
}

/* A range that has served nothing yet (the requests that reached it all failed, mapping no
 * page) is still one unmapped block: with recorded segment addresses it moves to where the
 * recording had the range of the request now asking, if that is known and free, as the
 * recording's range is where its first served request was. Until 2026-11-28 a failed request
 * (an `oom` line, say) fixed the range where it was reserved, at 2^56 when it had no recorded
 * address, and no later request of that pool and stream was at its recorded address. */
static void replace_unserved(cach *c, cseg *s)
{
    os_remove(&c->segs, &s->node); /* so that recorded_va does not find the range itself */
    uint64_t size = expandable_range(c->env.capacity, s->page);
    uint64_t start, base = recorded_va(c, &size, s->page, &start);
    if (base != UINT64_MAX)
        s->start = start;
    if (base != UINT64_MAX && (base != s->addr || size != s->size)) {
        cblock *b = s->head;
        unmapped_remove(c, b);
        if (size > s->size) { /* a range shortened below 2^64 moves where it fits whole */
            phys_grow(s, s->size, size);
        }
        s->addr = s->node.k1 = b->addr = base;
        s->size = s->node.val = b->size = size;
        unmapped_insert(c, b);
    }
    os_insert(&c->segs, &s->node);
}

/* The (pool, stream slot)'s virtual range, reserved at its first use: where the recording had it
 * (recorded_va), else a synthetic one (synthetic_va: past every recorded segment, else the
 * lowest free 2^40 boundary from CACH_VA_BASE); until it serves a request replace_unserved may
 * move it. Until 2026-11-27 always the next one from CACH_VA_BASE, so no allocation of a
 * recording with expandable segments was where it had been. */
static cseg *expandable_segment(cach *c, int pool, uint32_t slot)
{
    cpool *pl = &c->pool[pool];
    ensure_stream(pl, slot);
    if (pl->expseg[slot]) {
        if (!pl->expseg[slot]->served)
            replace_unserved(c, pl->expseg[slot]);
        return pl->expseg[slot];
    }
    uint64_t page = pool_page(pool);
    uint64_t size = expandable_range(c->env.capacity, page);
    uint64_t step = am_round_up(size, 1ULL << 40); /* the next segment's start */
    uint64_t start, base = recorded_va(c, &size, page, &start);
    if (base == UINT64_MAX) {
        base = start = synthetic_va(c, size);
        if (base == UINT64_MAX)
            return NULL; /* no virtual range left to reserve (the capacity is at most 4 EiB) */
        c->next_va = am_end_sat(base, step);
    }
    cseg *s = seg_new(c, base, size, pool, slot);
    s->start = start;
    s->expandable = 1;
    s->page = page;
    phys_grow(s, 0, size);
    cblock *b = block_new(c, s, s->addr, size);
    b->mapped = 0;
    s->head = b;
    unmapped_insert(c, b);
    pl->expseg[slot] = s;
    return s;
}

static int allocatable(const cblock *b) { return b && b->state == B_FREE; }

/* In a start-state prologue (alloc.h place_hint) a block goes where the recording had it: when
 * an unmapped range holds its page-aligned recorded address and the request's bytes from there,
 * the range is split at that address and the request maps pages from it, so that the pages
 * below (a hole of the recording's range, unmapped at its start) stay unmapped. NULL when it
 * is not so (the lowest unmapped range serves it, as any request). Until 2026-11-28 the lowest
 * always did: a start-state block above a hole was placed in the hole, and the request that
 * mapped the hole in the recording was placed above it. So does the first request a range
 * serves at its recorded start when that is above the range's (recorded_va: a range that would
 * pass 2^64 starts lower). */
static cblock *hinted_unmapped(cach *c, const cseg *s, const params *p)
{
    uint64_t h = c->env.place_hint ? c->env.place_hint(c->env.ctx) : UINT64_MAX;
    if (h == UINT64_MAX && !s->served && s->start != s->addr)
        h = s->start;
    if (h == UINT64_MAX || h < s->addr || h - s->addr >= s->size || (h - s->addr) % s->page)
        return NULL;
    os_node *n = os_floor(&c->pool[p->pool].unmapped[p->slot], h, UINT64_MAX);
    cblock *u = n ? CB_OF_NODE(n) : NULL;
    if (!u || u->addr + u->size <= h || u->addr + u->size - h < p->size)
        return NULL;
    if (u->addr == h)
        return u;
    cblock *rest = split_after(c, u, h - u->addr);
    rest->mapped = 0;
    unmapped_insert(c, rest);
    return rest;
}

/* try_allocate_expandable_block: find the lowest unmapped range (with a free mapped block
 * just before it) that offers size bytes, map pages into it and take the resulting block. */
static cblock *alloc_expandable(cach *c, const params *p)
{
    cseg *s = expandable_segment(c, p->pool, p->slot);
    if (!s)
        return NULL;
    cpool *pl = &c->pool[p->pool];
    cblock *cand = hinted_unmapped(c, s, p);
    for (os_node *n = os_first(&pl->unmapped[p->slot]); n && !cand; n = os_next(n)) {
        cblock *b = CB_OF_NODE(n);
        if (allocatable(b->prev))
            b = b->prev;
        uint64_t bytes = 0;
        for (cblock *x = b; x && bytes < p->size && allocatable(x); x = x->next)
            bytes += x->size;
        if (bytes >= p->size)
            cand = b;
    }
    if (!cand)
        return NULL; /* the virtual range is exhausted */
    if (!cand->mapped) {
        cblock *m = map_block(c, cand, AM_MIN(cand->size, p->size));
        if (!m) {
            if (cand->prev && !cand->prev->mapped) /* a hinted split is undone */
                try_merge(c, cand->prev, cand);
            return NULL;
        }
        cand = m;
    }
    while (cand->size < p->size) {
        /* invariant: free mapped -> unmapped; map more of the unmapped range */
        cblock *nx = cand->next;
        uint64_t rem = p->size - cand->size;
        cblock *m = map_block(c, nx, AM_MIN(rem, nx->size));
        if (!m)
            return NULL;
        cand = m;
    }
    pool_remove(c, cand);
    return cand;
}

static int new_memory(cach *c, params *p, int is_retry)
{
    if (is_retry)
        c->num_alloc_retries++;
    if (c->allowed != CACH_NO_LIMIT && c->total_reserved + p->alloc_size > c->allowed)
        return 0;
    if (c->o.expandable_segments) {
        p->block = alloc_expandable(c, p);
        return p->block != NULL;
    }
    uint64_t addr;
    if (c->env.dev_alloc(c->env.ctx, p->alloc_size, &addr) < 0)
        return 0;
    c->total_reserved += p->alloc_size;
    st_add(&c->segment, 1);
    st_add(&c->reserved_bytes, p->alloc_size);
    c->num_device_alloc++;
    c->seg_max[p->pool] = AM_MAX(c->seg_max[p->pool], p->alloc_size);
    cseg *s = seg_new(c, addr, p->alloc_size, p->pool, p->slot);
    cblock *b = block_new(c, s, addr, p->alloc_size);
    s->head = b;
    p->block = b;
    return 1;
}

/* should_split: 512-byte rule for the small pool and expandable segments; the large pool
 * splits only for requests under max_split_size leaving more than 1 MiB. */
static int should_split(const cach *c, const cblock *b, uint64_t size)
{
    uint64_t rem = b->size - size;
    if (b->pool == POOL_SMALL || b->expandable)
        return rem >= CACH_MIN_BLOCK;
    return size < c->o.max_split_size && rem > CACH_SMALL_SIZE;
}

/* alloc_found_block: take the low end of the block; the rest returns to the pool. */
static cblock *take_block(cach *c, params *p)
{
    cblock *b = p->block;
    int split = should_split(c, b, p->size);
    if (p->filed) { /* found in the pool: the rest, if any, takes its tree entry */
        pool_forget(c, b);
        p->filed = 0;
        if (split) {
            cblock *rest = split_after(c, b, p->size);
            ss_rekey_at(pool_tree(c, rest), &p->at, rest->size, rest->addr, rest);
            pool_note(c, rest);
        } else {
            ss_remove_at(pool_tree(c, b), &p->at);
        }
    } else if (split) {
        pool_insert(c, split_after(c, b, p->size));
    }
    b->state = B_ALLOC;
    b->requested = p->requested;
    st_add(&c->allocation, 1);
    st_add(&c->allocated_bytes, b->size);
    st_add(&c->active, 1);
    st_add(&c->active_bytes, b->size);
    st_add(&c->requested_bytes, b->requested);
    return b;
}

static int cach_alloc(void *st, const alloc_req *r, alloc_out *o)
{
    cach *c = st;
    params p = {0};
    p.requested = r->bytes;
    p.size = cach_round(c, r->bytes);
    p.pool = pool_of(p.size);
    p.alloc_size = segment_size(p.size);
    p.slot = stream_slot(c, r->stream);
    int found = get_free_block(c, &p);
    if (!found) {
        if (gc_on(c))
            garbage_collect(c);
        found = new_memory(c, &p, 0);
        if (!found && release_available(c, &p))
            found = new_memory(c, &p, 0);
        if (!found) {
            release_cached(c);
            /* The real allocator goes straight to the device here (no new pool search).
             * research_after_release searches again (allocators.md section 3), but finds
             * nothing new: release_cached only takes free blocks out of the pools, and
             * completes no pending free (PyTorch's release does, by processing its events). */
            found = (c->o.research_after_release && get_free_block(c, &p)) ||
                    new_memory(c, &p, 1);
        }
    }
    if (!found) {
        return ALLOC_OOM;
    }
    cblock *b = take_block(c, &p);
    o->addr = b->addr;
    o->size = b->size;
    o->handle = (uint64_t)(uintptr_t)b;
    return ALLOC_OK;
}

/* free(): the tensor is dropped; the block stays active until free_block. */
static void cach_free_requested(void *st, uint64_t handle)
{
    cach *c = st;
    cblock *b = (cblock *)(uintptr_t)handle;
    if (b->state != B_ALLOC)
        return;
    b->state = B_PENDING;
    st_sub(&c->allocation, 1);
    st_sub(&c->allocated_bytes, b->size);
}

/* free_block(): merge with free neighbours of the segment and return to the pool. */
static void cach_free(void *st, uint64_t handle)
{
    cach *c = st;
    cblock *b = (cblock *)(uintptr_t)handle;
    if (b->state == B_ALLOC)
        cach_free_requested(st, handle);
    uint64_t size = b->size;
    st_sub(&c->active, 1);
    st_sub(&c->active_bytes, size);
    st_sub(&c->requested_bytes, b->requested);
    b->state = B_FREE;
    b->requested = 0;
    /* The tree entry of the last neighbour merged (next, else previous) is re-keyed to b. */
    cblock *keep = mergeable(b, b->next) ? b->next : mergeable(b, b->prev) ? b->prev : NULL;
    if (!keep) {
        pool_insert(c, b);
        return;
    }
    uint64_t ks = keep->key_size, ka = keep->key_addr;
    try_merge_keep(c, b, b->prev, keep == b->prev);
    try_merge_keep(c, b, b->next, 1);
    ss_rekey(pool_tree(c, b), ks, ka, b->size, b->addr, b);
    pool_note(c, b);
}

/* Look-ahead hint (alloc.h): a free reads its block (stage 0), then both neighbours (stage 1). */
static void cach_prefetch_free(void *st, uint64_t handle, int stage)
{
    (void)st;
    recpool_prefetch_linked((const void *)(uintptr_t)handle, stage, CB_HOT_SELF,
                            offsetof(cblock, prev), offsetof(cblock, next), CB_HOT_NEXT);
}

/* ---- lifecycle, statistics, walk, check ---- */

/* The largest roundup_power2_divisions value: PyTorch's parser reads each with std::stoi (an
 * int), so the largest power of two it takes is 2^30. */
#define CACH_MAX_DIVISIONS (1ULL << 30)

/* roundup_power2_divisions powers of two (or 0) up to 2^30, a bad one named by its item (the
 * config points at it; until 2026-11-27 at the key); garbage_collection_threshold with a
 * memory_fraction. Until 2026-11-25 checked only when a run started; until 2026-11-27 any power
 * of two up to 2^63 was taken. */
static int cach_check_opts(const void *opts, const alloc_env *env, am_error *err)
{
    (void)env; /* no rule on the level: the device call fails, as cudaMalloc does */
    const cach_opts *o = opts;
    for (size_t i = 0; i < o->ndivisions; i++)
        if (o->divisions[i] > 1 && (o->divisions[i] & (o->divisions[i] - 1)))
            return am_fail_opt_item(err, "roundup_power2_divisions", i + 1,
                                    "roundup_power2_divisions must be powers of two (got %llu)",
                                    (unsigned long long)o->divisions[i]);
    for (size_t i = 0; i < o->ndivisions; i++)
        if (o->divisions[i] > CACH_MAX_DIVISIONS)
            return am_fail_opt_item(err, "roundup_power2_divisions", i + 1,
                                    "roundup_power2_divisions of %llu is above 2^30 = "
                                    "1073741824 (PyTorch's parser reads each value as an int)",
                                    (unsigned long long)o->divisions[i]);
    /* PyTorch's config parser (CUDAAllocatorConfig) refuses max_split_size_mb <= 20
     * (kLargeBuffer / 1 MiB) and a garbage_collection_threshold outside (0, 1); here unset is
     * `unlimited` (or -1, none) and 0 (off). Until 2026-11-27 amsim ran with such values. */
    if (o->max_split_size != UINT64_MAX && o->max_split_size <= CACH_LARGE_BUFFER)
        return am_fail_opt(err, "max_split_size", "max_split_size of %llu bytes is not above 20 "
                           "MiB (PyTorch refuses max_split_size_mb <= 20; `unlimited` leaves it "
                           "unset)", (unsigned long long)o->max_split_size);
    /* max_non_split_rounding_mb must be >= 20 (PyTorch's AllocatorConfig; older releases
     * required > 20, but then its own default, kLargeBuffer, could not be written): below 20
     * MiB, 0 included, a cached block of exactly the request's size was refused as oversize.
     * Until 2026-11-27 amsim ran with such values. */
    if (o->max_non_split_rounding < CACH_LARGE_BUFFER)
        return am_fail_opt(err, "max_non_split_rounding", "max_non_split_rounding of %llu bytes "
                           "is below 20 MiB (PyTorch refuses max_non_split_rounding_mb < 20)",
                           (unsigned long long)o->max_non_split_rounding);
    if (o->gc_threshold >= 1.0) { /* as written: until 2026-11-28 %g made 1.0000001 "1" */
        char t[40];
        units_fmt_real(t, sizeof t, o->gc_threshold);
        return am_fail_opt(err, "garbage_collection_threshold", "garbage_collection_threshold "
                           "of %s is not below 1 (PyTorch takes 0 < threshold < 1; 0 leaves it "
                           "off)", t);
    }
    if (o->gc_threshold > 0 && o->memory_fraction <= 0)
        return am_fail_opt(err, "garbage_collection_threshold,memory_fraction",
                           "garbage_collection_threshold needs memory_fraction (the allowed "
                           "memory it is a fraction of)");
    return 0;
}

static int cach_create(void **out, const alloc_env *env, const void *opts, am_error *err)
{
    const cach_opts *o = opts;
    if (cach_check_opts(o, env, err) < 0)
        return -1;
    cach *c = am_calloc(1, sizeof *c);
    recpool_init(&c->blocks, sizeof(cblock));
    c->env = *env;
    c->o = *o;
    c->allowed = o->memory_fraction > 0
                     ? (uint64_t)(o->memory_fraction * (double)env->capacity) : CACH_NO_LIMIT;
    c->next_va = CACH_VA_BASE;
    *out = c;
    return 0;
}

static void cach_destroy(void *st)
{
    cach *c = st;
    if (!c)
        return;
    os_node *n;
    while ((n = os_first(&c->segs)) != NULL) { /* unlink first: traversal reads parents */
        cseg *s = (cseg *)n;
        os_remove(&c->segs, n);
        free(s->phys);
        free(s);
    }
    for (int i = 0; i < 2; i++) {
        for (size_t s = 0; s < c->pool[i].nstreams; s++)
            ss_destroy(&c->pool[i].free[s]);
        free(c->pool[i].free);
        free(c->pool[i].whole);
        free(c->pool[i].unmapped);
        free(c->pool[i].expseg);
    }
    recpool_destroy(&c->blocks);
    free(c->mx.t);
    free(c->slot_stream);
    free(c->slot_order);
    free(c);
}

/* alloc.h min_capacity. A request takes a block of its rounded size from a segment of its
 * pool, and a new segment is get_allocation_size's (2 MiB, 20 MiB under 10 MiB, else rounded to
 * 2 MiB) within memory_fraction's cap; so it needs that segment unless a segment of its pool
 * as large as the block may be there (one ever taken: evictions free its blocks, and a block
 * of it may serve the request, as a freed 10 MiB segment serves 3.5 MiB on a 16 MiB level).
 * Under expandable segments every page the block touches is mapped: the block rounded up to
 * the pool's page (2 MiB, 20 MiB), whatever is mapped already. */
static uint64_t cach_min_capacity(void *st, uint64_t bytes)
{
    const cach *c = st;
    uint64_t size = cach_round(c, bytes);
    int pool = pool_of(size);
    if (c->o.expandable_segments)
        return am_round_up_sat(size, pool_page(pool));
    if (c->seg_max[pool] >= size)
        return size;
    uint64_t seg = segment_size(size);
    return seg > c->allowed ? UINT64_MAX : seg; /* never without a cap: CACH_NO_LIMIT is the most */
}

static uint64_t cach_largest_free(void *st)
{
    cach *c = st;
    if (!c->largest_stale)
        return c->largest;
    cmax *m = &c->mx;
    uint64_t best = 0;
    if (!m->nleaves) /* few streams: read every set */
        best = largest_scan(c);
    /* lower the top bound until it is exact: then it is the largest of all */
    while (m->nleaves && m->t[1] > 0) {
        size_t leaf = mx_top_leaf(m);
        uint64_t last = ss_last_size(&c->pool[leaf % 2].free[leaf / 2]);
        if (last == m->t[1]) {
            best = last;
            break;
        }
        mx_set(m, leaf, last);
    }
    c->largest = best;
    c->largest_stale = 0;
    return c->largest;
}

/* PyTorch's resetPeakStats: every peak back to its current value (alloc.h reset_peaks). */
static void cach_reset_peaks(void *st)
{
    cach *c = st;
    cstat *all[] = {&c->allocation, &c->segment, &c->active, &c->inactive_split,
                    &c->allocated_bytes, &c->reserved_bytes, &c->active_bytes,
                    &c->inactive_split_bytes, &c->requested_bytes};
    for (size_t i = 0; i < AM_ARRAY_LEN(all); i++)
        all[i]->peak = all[i]->cur;
}

static void cach_stats(void *st, const stat_sink *k)
{
    cach *c = st;
    const struct { const char *name; const cstat *s; } cp[] = {
        {"allocated_bytes", &c->allocated_bytes}, {"reserved_bytes", &c->reserved_bytes},
        {"active_bytes", &c->active_bytes}, {"requested_bytes", &c->requested_bytes},
        {"inactive_split_bytes", &c->inactive_split_bytes}, {"allocation", &c->allocation},
        {"segment", &c->segment}, {"active", &c->active},
        {"inactive_split", &c->inactive_split},
    };
    for (size_t i = 0; i < AM_ARRAY_LEN(cp); i++)
        k->cur_peak(k->ctx, cp[i].name, cp[i].s->cur, cp[i].s->peak);
    k->u64(k->ctx, "num_alloc_retries", c->num_alloc_retries);
    k->u64(k->ctx, "num_ooms", c->num_ooms);
    k->u64(k->ctx, "num_device_alloc", c->num_device_alloc);
    k->u64(k->ctx, "num_device_free", c->num_device_free);
}

static void cach_walk(void *st, void (*fn)(void *arg, const alloc_block *b), void *arg)
{
    cach *c = st;
    for (os_node *n = os_first(&c->segs); n; n = os_next(n)) {
        cseg *s = (cseg *)n;
        for (cblock *b = s->head; b; b = b->next) {
            if (!b->mapped)
                continue; /* address space without memory */
            alloc_block ab = {b->addr, b->size, b->requested,
                              b->state == B_FREE ? 0 : b->state == B_ALLOC ? 1 : 2, s->addr};
            fn(arg, &ab);
        }
    }
}

/* Entries of a pool's whole lists, each a free whole segment of its pool and slot, its links
 * both ways intact (whether every such segment is there the block walk counts); UINT64_MAX
 * when an entry or a list is wrong, or past `limit` entries (a cycle). */
static uint64_t check_whole(const cach *c, int pool, uint64_t limit)
{
    const cpool *pl = &c->pool[pool];
    uint64_t n = 0;
    for (size_t s = 0; s < pl->nstreams; s++) {
        const cblock *prev = NULL;
        for (const cblock *b = pl->whole[s]; b; prev = b, b = b->wnext, n++) {
            if (b->wprev != prev || !in_whole_list(b) || b->state != B_FREE ||
                b->expandable || is_split(b) || b->pool != pool || b->slot != s ||
                n >= limit)
                return UINT64_MAX;
        }
    }
    return n;
}

/* The max-tree (once there are more than CACH_MX_LINEAR slots): every inner entry the larger of
 * its children, every leaf at least its set's largest key; and a figure not stale is the
 * largest of all sets' largest keys. */
static int check_largest(const cach *c)
{
    const cmax *m = &c->mx;
    for (size_t i = 1; i < m->nleaves; i++)
        if (m->t[i] != AM_MAX(m->t[2 * i], m->t[2 * i + 1]))
            return 1;
    for (size_t leaf = 0; leaf < m->nleaves; leaf++) {
        if (m->t[m->nleaves + leaf] < set_last(c, leaf))
            return 1;
    }
    uint64_t best = largest_scan(c);
    for (int i = 0; i < 2 && m->nleaves; i++) /* no set beyond the tree's slots holds a block */
        for (size_t s = m->nleaves / 2; s < c->pool[i].nstreams; s++)
            if (c->pool[i].free[s].n)
                return 1;
    return !c->largest_stale && c->largest != best;
}

#define BAD(...) do { if (!bad++) am_fail(err, AM_EINTERNAL, "caching: " __VA_ARGS__); } while (0)

static int cach_check(void *st, am_error *err)
{
    cach *c = st;
    int bad = 0;
    uint64_t reserved = 0, allocated = 0, active = 0, requested = 0, isplit = 0, nseg = 0;
    uint64_t prev_end = 0, nfree[2] = {0, 0}, nwhole[2] = {0, 0};
    for (os_node *n = os_first(&c->segs); n; n = os_next(n)) {
        cseg *s = (cseg *)n;
        if (s->addr < prev_end)
            BAD("segment at %llu overlaps the previous one", (unsigned long long)s->addr);
        prev_end = s->addr + s->size;
        if (!s->expandable) {
            reserved += s->size;
            nseg++;
        }
        uint64_t at = s->addr;
        for (cblock *b = s->head; b; b = b->next) {
            if (b->addr != at || b->size == 0 || b->seg != s)
                BAD("blocks do not tile segment %llu at %llu", (unsigned long long)s->addr,
                    (unsigned long long)at);
            if (b->pool != s->pool || b->expandable != s->expandable)
                BAD("block at %llu has another pool or kind than its segment",
                    (unsigned long long)b->addr);
            if (b->next && b->next->prev != b)
                BAD("broken block links at %llu", (unsigned long long)b->addr);
            at += b->size;
            if (!b->mapped) {
                if (!b->in_tree || b->state != B_FREE)
                    BAD("unmapped range at %llu not in its set", (unsigned long long)b->addr);
                continue;
            }
            if (s->expandable)
                reserved += b->size;
            if (b->state == B_FREE) {
                nfree[s->pool]++;
                if (!b->in_tree)
                    BAD("free block at %llu not in its pool", (unsigned long long)b->addr);
                if (b->next && b->next->state == B_FREE && b->next->mapped)
                    BAD("free neighbours not merged at %llu", (unsigned long long)b->addr);
                if (!s->expandable && is_split(b))
                    isplit += b->size;
                if (!s->expandable && !is_split(b))
                    nwhole[s->pool]++;
                if (in_whole_list(b) != (!s->expandable && !is_split(b)))
                    BAD("free block at %llu %s the whole list", (unsigned long long)b->addr,
                        in_whole_list(b) ? "wrongly in" : "missing from");
            } else {
                if (b->in_tree)
                    BAD("used block at %llu in a pool", (unsigned long long)b->addr);
                active += b->size;
                requested += b->requested;
                if (b->state == B_ALLOC)
                    allocated += b->size;
            }
        }
        if (at != s->addr + s->size)
            BAD("blocks of segment %llu end at %llu", (unsigned long long)s->addr,
                (unsigned long long)at);
    }
    for (int i = 0; i < 2; i++) {
        uint64_t n = 0;
        for (size_t s = 0; s < c->pool[i].nstreams; s++) {
            n += c->pool[i].free[s].n;
            if (ss_check(&c->pool[i].free[s]) || os_check(&c->pool[i].unmapped[s]))
                BAD("pool tree inconsistent");
            ss_iter it;
            for (cblock *b = ss_first(&c->pool[i].free[s], &it); b;
                 b = ss_next(&c->pool[i].free[s], &it)) {
                if (b->seg->pool != i || b->slot != s || b->state != B_FREE ||
                    ss_size(&it, &c->pool[i].free[s]) != b->size ||
                    ss_addr(&it, &c->pool[i].free[s]) != b->addr || b->key_size != b->size ||
                    b->key_addr != b->addr)
                    BAD("block %llu in the wrong pool set", (unsigned long long)b->addr);
            }
        }
        if (n != nfree[i])
            BAD("pool %d holds %llu blocks, %llu are free", i, (unsigned long long)n,
                (unsigned long long)nfree[i]);
        if (check_whole(c, i, nfree[i]) != nwhole[i])
            BAD("pool %d's whole lists disagree with its %llu whole free segments", i,
                (unsigned long long)nwhole[i]);
    }
    if (check_largest(c))
        BAD("largest free block figure or its max-tree inconsistent");
    if (reserved != c->reserved_bytes.cur || reserved != c->total_reserved)
        BAD("reserved_bytes %llu, segments hold %llu", (unsigned long long)c->reserved_bytes.cur,
            (unsigned long long)reserved);
    if (allocated != c->allocated_bytes.cur)
        BAD("allocated_bytes %llu, blocks hold %llu", (unsigned long long)c->allocated_bytes.cur,
            (unsigned long long)allocated);
    if (active != c->active_bytes.cur || requested != c->requested_bytes.cur)
        BAD("active/requested bytes differ from a walk");
    if (isplit != c->inactive_split_bytes.cur)
        BAD("inactive_split_bytes %llu, walk %llu",
            (unsigned long long)c->inactive_split_bytes.cur, (unsigned long long)isplit);
    if (nseg != c->segment.cur)
        BAD("segment count %llu, walk %llu", (unsigned long long)c->segment.cur,
            (unsigned long long)nseg);
    return bad;
}

/* segment_addresses: recorded asks the memory level to honour the engine's address hints. */
static int cach_recorded(const void *opts)
{
    return opts && ((const cach_opts *)opts)->segment_addresses == 1;
}

/* expandable_segments: blocks live in virtual ranges, their pages mapped on demand. */
static int cach_maps_virtual(const void *opts)
{
    return opts && ((const cach_opts *)opts)->expandable_segments;
}

/* The pool and stream of the segment (or expandable virtual range) holding addr. */
static int cach_segment_kind(void *st, uint64_t addr, int *small, uint32_t *stream)
{
    cach *c = st;
    os_node *n = os_floor(&c->segs, addr, UINT64_MAX);
    if (!n)
        return -1;
    const cseg *s = (const cseg *)(const void *)n; /* node is cseg's first member */
    if (addr >= s->addr + s->size)
        return -1;
    *small = s->pool == POOL_SMALL;
    *stream = c->slot_stream[s->slot];
    return 0;
}

/* A refused request finally failed (alloc.h count_oom): the one place num_ooms grows. */
static void cach_count_oom(void *st) { ((cach *)st)->num_ooms++; }

static const struct alloc_ops cach_ops = {
    .name = "caching",
    .device_by_bytes = 1, /* cudaMalloc fails by bytes, not by contiguity */
    .summary = "PyTorch CUDA caching allocator (exact: pools, splits, segments, retries)",
    .opts = cach_opt_table,
    .opts_size = sizeof(cach_opts),
    .create = cach_create,
    .check_opts = cach_check_opts,
    .destroy = cach_destroy,
    .alloc = cach_alloc,
    .free = cach_free,
    .prefetch_free = cach_prefetch_free,
    .free_requested = cach_free_requested,
    .largest_free = cach_largest_free,
    .stats = cach_stats,
    .reset_peaks = cach_reset_peaks,
    .walk = cach_walk,
    .check = cach_check,
    .finish = NULL,
    .recorded_addresses = cach_recorded,
    .maps_virtual = cach_maps_virtual,
    .count_oom = cach_count_oom,
    .segment_kind = cach_segment_kind,
    .min_capacity = cach_min_capacity,
};

const struct alloc_ops *alloc_caching_ops(void);
const struct alloc_ops *alloc_caching_ops(void) { return &cach_ops; }
