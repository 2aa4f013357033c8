/* alloc_tlsf.c - Two-Level Segregated Fit (M. Masmano, I. Ripoll, A. Crespo, J. Real, "TLSF: a
 * new dynamic memory allocator for real-time systems", ECRTS 2004), written from the paper's
 * algorithm description.
 *
 * One arena of the capacity (rounded down to `alignment`) is taken from the device at the first
 * request. Block sizes are multiples of `alignment` (256 bytes by default), which is also the
 * smallest block. Free blocks are kept in segregated lists indexed by two levels:
 *   first level  fl = floor(log2(size)), for sizes >= SMALL = 32 * alignment;
 *   second level sl = the next SL_LOG2 = 5 bits below the top bit: (size >> (fl - 5)) - 32,
 *                so each power-of-two range splits into SL_COUNT = 32 equal lists.
 *   Sizes below SMALL form one linear class (reported as fl = 0) of 32 lists of width
 *   `alignment`: sl = size / alignment.
 * A bitmap of non-empty first levels and one of non-empty second levels per first level give
 * the search in O(1) (find-first-set). The search uses "good fit": the request is rounded up to
 * the next list boundary (size + 2^(fl-5) - 1 for sizes >= SMALL) before mapping, so every block
 * in the list found is large enough and the head of the list is taken without scanning; the
 * price is that a block in the request's own list that would fit is not considered.
 * The chosen block is split when the remainder is at least one `alignment`; the remainder goes
 * back to its list. A freed block merges at once with free physical neighbours (the boundary
 * tags of the paper are the prev/next physical links here), then goes to the head of its list.
 * A (size, address)-ordered set of free blocks (models/sizeset.h, its largest key in O(1))
 * serves only the simulator's largest_free metric; it is not part of TLSF and never steers
 * placement. It holds only the free blocks of rows >= track_row: the largest free block is in
 * the highest non-empty row, and when that row falls below track_row (the row that held the
 * largest emptied), track_row moves down to it and its blocks join the set. track_row never
 * moves up, so each block joins the set at most once more than it joins a list, and the set
 * costs O(log n) amortized as before; but while one huge block (the arena's untouched end)
 * heads the top row, the set holds a handful of blocks instead of every free one, and updating
 * it was three quarters of the time per operation at a million live buffers. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "recpool.h"
#include "sizeset.h"

#define TL_SL_LOG2 5
#define TL_SL_COUNT (1 << TL_SL_LOG2)
#define TL_ROWS 64

struct tlsf_opts {
    uint64_t alignment; /* bytes, a power of two */
};

static const opt_desc tlsf_opt_table[] = {
    {"alignment", OPT_SIZE, offsetof(struct tlsf_opts, alignment), "256",
     "block granularity and smallest block in bytes (a power of two)", NULL, 0, 0},
    {NULL, OPT_BOOL, 0, NULL, NULL, NULL, 0, 0},
};

/* One cache line (64 bytes, and the record pool starts records on lines): a free reads a
 * block and its two physical neighbours whole. */
typedef struct tblk {
    uint64_t addr, size;              /* bytes, size a multiple of the alignment */
    uint64_t requested;               /* bytes asked for; 0 when free */
    struct tblk *prev_phys, *next_phys;
    struct tblk *prev_free, *next_free; /* free list links; next_free also chains spares */
    uint8_t is_free;
    uint8_t row, sl;                  /* free: the list it is on (row < 64, sl < 32) */
} tblk;
_Static_assert(sizeof(tblk) == 64, "a block record is one cache line");

typedef struct tlsf {
    alloc_env env;
    uint64_t align;
    int align_log2, small_log2;         /* SMALL = 2^small_log2 = 32 * alignment */
    int have_arena;
    uint64_t base, arena;
    tblk *first;                        /* lowest block of the arena */
    uint64_t fl_bitmap;                 /* bit r: row r has a non-empty list */
    uint32_t sl_bitmap[TL_ROWS];        /* bit s: list (r, s) is non-empty */
    tblk *heads[TL_ROWS][TL_SL_COUNT];
    sizeset by_size;                    /* free blocks by (size, address), for largest_free */
    int track_row;                      /* by_size holds the free blocks of rows >= track_row */
    recpool recs; /* tblk records */
    const tblk *hinted; /* the block of the last stage-1 hint (tlsf_prefetch_free), or NULL */
    uint64_t nfree;
    uint64_t bytes_in_use, peak_bytes_in_use, num_allocs, ooms;
} tlsf;

/* Row and second-level index of a size. Row 0 is the linear class below SMALL; row r >= 1 holds
 * floor(log2 size) = small_log2 + r - 1. */
static void map(int align_log2, uint64_t size, int *row, int *sl)
{
    int small_log2 = align_log2 + TL_SL_LOG2;
    if (size < (1ULL << small_log2)) {
        *row = 0;
        *sl = (int)(size >> align_log2);
        return;
    }
    int fl = 63 - __builtin_clzll(size);
    *sl = (int)((size >> (fl - TL_SL_LOG2)) - TL_SL_COUNT);
    *row = fl - small_log2 + 1;
}

/* The width of size's list: a 32nd of size's power of two, or 1 in the linear class, whose
 * lists are one alignment wide and hold sizes that are multiples of it (so nothing to round). */
static uint64_t list_step(int align_log2, uint64_t size)
{
    if (size < (1ULL << (align_log2 + TL_SL_LOG2)))
        return 1;
    return 1ULL << (63 - __builtin_clzll(size) - TL_SL_LOG2);
}

/* Good fit: round a size up to the next list boundary (0 on overflow). */
static uint64_t round_search(int align_log2, uint64_t size)
{
    uint64_t step = list_step(align_log2, size);
    return size + (step - 1) < size ? 0 : size + (step - 1);
}

static tblk *tb_new(tlsf *t) { return recpool_get(&t->recs); }

static void tb_put(tlsf *t, tblk *b) { recpool_put(&t->recs, b); }

static void list_insert(tlsf *t, tblk *b)
{
    int row, sl;
    map(t->align_log2, b->size, &row, &sl);
    b->row = (uint8_t)row;
    b->sl = (uint8_t)sl;
    tblk **h = &t->heads[row][sl];
    b->is_free = 1;
    b->requested = 0;
    b->prev_free = NULL;
    b->next_free = *h;
    if (*h)
        (*h)->prev_free = b;
    *h = b;
    t->fl_bitmap |= 1ULL << row;
    t->sl_bitmap[row] |= 1U << sl;
    if (row >= t->track_row)
        ss_insert(&t->by_size, b->size, b->addr, b);
    t->nfree++;
}

static void list_remove(tlsf *t, tblk *b)
{
    if (b->prev_free)
        b->prev_free->next_free = b->next_free;
    else
        t->heads[b->row][b->sl] = b->next_free;
    if (b->next_free)
        b->next_free->prev_free = b->prev_free;
    if (!t->heads[b->row][b->sl]) {
        t->sl_bitmap[b->row] &= ~(1U << b->sl);
        if (!t->sl_bitmap[b->row])
            t->fl_bitmap &= ~(1ULL << b->row);
    }
    if (b->row >= t->track_row)
        ss_remove(&t->by_size, b->size, b->addr);
    b->is_free = 0;
    b->prev_free = b->next_free = NULL;
    t->nfree--;
}

/* Head of the first non-empty list at or above (row, sl), or NULL. */
static tblk *find_suitable(tlsf *t, int row, int sl)
{
    uint32_t sl_map = t->sl_bitmap[row] & (~0U << sl);
    if (!sl_map) {
        uint64_t fl_map = row + 1 < TL_ROWS ? t->fl_bitmap & (~0ULL << (row + 1)) : 0;
        if (!fl_map)
            return NULL;
        row = __builtin_ctzll(fl_map);
        sl_map = t->sl_bitmap[row];
    }
    return t->heads[row][__builtin_ctz(sl_map)];
}

static int take_arena(tlsf *t)
{
    uint64_t arena = am_round_down(t->env.capacity, t->align);
    if (t->env.dev_alloc(t->env.ctx, arena, &t->base) != 0)
        return -1;
    t->have_arena = 1;
    t->arena = arena;
    tblk *b = tb_new(t);
    b->addr = t->base;
    b->size = arena;
    t->first = b;
    list_insert(t, b);
    return 0;
}

static int tlsf_alloc(void *st, const alloc_req *r, alloc_out *o)
{
    tlsf *t = st;
    if (!t->have_arena && take_arena(t) != 0) {
        return ALLOC_OOM;
    }
    uint64_t need = am_round_up(r->bytes, t->align);
    uint64_t want = need < r->bytes ? 0 : round_search(t->align_log2, need);
    int row, sl;
    tblk *b = NULL;
    if (want) {
        map(t->align_log2, want, &row, &sl);
        b = find_suitable(t, row, sl);
    }
    if (!b) {
        return ALLOC_OOM;
    }
    list_remove(t, b);
    if (b->size - need >= t->align) {
        tblk *rest = tb_new(t);
        rest->addr = b->addr + need;
        rest->size = b->size - need;
        rest->prev_phys = b;
        rest->next_phys = b->next_phys;
        if (b->next_phys)
            b->next_phys->prev_phys = rest;
        b->next_phys = rest;
        b->size = need;
        list_insert(t, rest);
    }
    b->requested = r->bytes;
    t->bytes_in_use += b->size;
    if (t->bytes_in_use > t->peak_bytes_in_use)
        t->peak_bytes_in_use = t->bytes_in_use;
    t->num_allocs++;
    o->addr = b->addr;
    o->size = b->size;
    o->handle = (uint64_t)(uintptr_t)b;
    return ALLOC_OK;
}

/* Absorb b's next physical neighbour n (free, off its list) into b. */
static void absorb(tlsf *t, tblk *b, tblk *n)
{
    b->size += n->size;
    b->next_phys = n->next_phys;
    if (n->next_phys)
        n->next_phys->prev_phys = b;
    tb_put(t, n);
}

static void tlsf_free(void *st, uint64_t handle)
{
    tlsf *t = st;
    tblk *b = (tblk *)(uintptr_t)handle;
    t->bytes_in_use -= b->size;
    b->requested = 0;
    if (b->prev_phys && b->prev_phys->is_free) {
        tblk *p = b->prev_phys;
        list_remove(t, p);
        absorb(t, p, b);
        b = p;
    }
    if (b->next_phys && b->next_phys->is_free) {
        list_remove(t, b->next_phys);
        absorb(t, b, b->next_phys);
    }
    list_insert(t, b);
}

/* From this many free blocks on (records of 64 bytes, some 11 MiB of them counting the used
 * ones, past the second-level cache), tlsf_prefetch_free looks one link further; below, the
 * lines are in cache and the extra loads only cost (3 ns a pair at 37k free blocks). */
#define TL_FAR_HINT 65536

/* Look-ahead hint (alloc.h): a free reads its block (stage 0), then both physical neighbours,
 * which it may take off their lists (stage 1). Hints come in the order of the frees, so when
 * stage 1 comes for a block, the block of the previous stage-1 hint is the next to be freed
 * (or already freed) and its neighbours, prefetched then, are in cache: those of them that are
 * free have their list neighbours (which their list_remove writes) and, for the upper one, the
 * block above it (which absorb writes) prefetched for writing. At a million live buffers these
 * stores missed the cache one after the other and filled the store buffer: 150 ns a pair
 * against 130 with this. A freed or reused record only points at other records (or NULL), all
 * in the pool's slabs until tlsf_destroy, so reading a stale one is safe and at worst useless. */
static void tlsf_prefetch_free(void *st, uint64_t handle, int stage)
{
    tlsf *t = st;
    recpool_prefetch_linked((const void *)(uintptr_t)handle, stage, sizeof(tblk),
                            offsetof(tblk, prev_phys), offsetof(tblk, next_phys), sizeof(tblk));
    if (stage != 1)
        return;
    const tblk *b = t->hinted;
    t->hinted = (const tblk *)(uintptr_t)handle;
    if (!b || t->nfree < TL_FAR_HINT)
        return;
    const tblk *p = b->prev_phys, *n = b->next_phys;
    if (p && p->is_free) {
        if (p->prev_free)
            __builtin_prefetch(p->prev_free, 1);
        if (p->next_free)
            __builtin_prefetch(p->next_free, 1);
    }
    if (n && n->is_free) {
        if (n->prev_free)
            __builtin_prefetch(n->prev_free, 1);
        if (n->next_free)
            __builtin_prefetch(n->next_free, 1);
        if (n->next_phys)
            __builtin_prefetch(n->next_phys, 1);
    }
}

static uint64_t tlsf_largest_free(void *st)
{
    tlsf *t = st;
    int top = t->fl_bitmap ? 63 - __builtin_clzll(t->fl_bitmap) : TL_ROWS;
    if (top < t->track_row) { /* the rows above it are empty: its blocks join the set */
        for (int s = 0; s < TL_SL_COUNT; s++)
            for (tblk *b = t->heads[top][s]; b; b = b->next_free)
                ss_insert(&t->by_size, b->size, b->addr, b);
        t->track_row = top;
    }
    return ss_last_size(&t->by_size);
}

/* Peaks back to the current values (alloc.h reset_peaks). */
static void tlsf_reset_peaks(void *st)
{
    tlsf *t = st;
    t->peak_bytes_in_use = t->bytes_in_use;
}

static void tlsf_stats(void *st, const stat_sink *s)
{
    tlsf *t = st;
    s->cur_peak(s->ctx, "bytes_in_use", t->bytes_in_use, t->peak_bytes_in_use);
    s->u64(s->ctx, "arena_bytes", t->have_arena ? t->arena : 0);
    s->u64(s->ctx, "num_allocs", t->num_allocs);
    s->u64(s->ctx, "free_blocks", t->nfree);
    s->u64(s->ctx, "largest_free_block_bytes", tlsf_largest_free(t));
    s->u64(s->ctx, "num_ooms", t->ooms);
}

static void tlsf_walk(void *st, void (*fn)(void *arg, const alloc_block *b), void *arg)
{
    tlsf *t = st;
    for (const tblk *b = t->first; b; b = b->next_phys) {
        alloc_block a = {b->addr, b->size, b->requested, !b->is_free, t->base};
        fn(arg, &a);
    }
}

static int tlsf_check(void *st, am_error *err)
{
    tlsf *t = st;
    int bad = 0;
    uint64_t at = t->base, used = 0, nfree = 0, nlisted = 0;
    uint64_t ntracked = 0; /* free blocks the size set must hold */
    if (ss_check(&t->by_size)) {
        bad++;
        am_fail(err, AM_EINTERNAL, "tlsf: size set corrupt");
    }
    for (const tblk *b = t->first, *prev = NULL; b; prev = b, b = b->next_phys) {
        if (b->addr != at || b->prev_phys != prev || b->size == 0 || b->size % t->align) {
            bad++;
            am_fail(err, AM_EINTERNAL, "tlsf: block at %" PRIu64 " breaks the physical chain",
                    b->addr);
        }
        if (b->is_free) {
            int row, sl;
            map(t->align_log2, b->size, &row, &sl);
            nfree++;
            int tracked = row >= t->track_row;
            ntracked += (uint64_t)tracked;
            if (row != b->row || sl != b->sl || (prev && prev->is_free) ||
                (ss_find(&t->by_size, b->size, b->addr) == b) != tracked) {
                bad++;
                am_fail(err, AM_EINTERNAL, "tlsf: free block at %" PRIu64 " on list (%d, %d) "
                        "instead of (%d, %d), not coalesced, or %s the size set", b->addr,
                        b->row, b->sl, row, sl, tracked ? "not in" : "wrongly in");
            }
        } else {
            used += b->size;
            if (b->requested == 0 || b->requested > b->size) {
                bad++;
                am_fail(err, AM_EINTERNAL, "tlsf: used block at %" PRIu64 " smaller than its "
                        "request", b->addr);
            }
        }
        at += b->size;
    }
    for (int r = 0; r < TL_ROWS; r++) {
        uint32_t expect = 0;
        for (int s = 0; s < TL_SL_COUNT; s++) {
            const tblk *prev = NULL;
            for (const tblk *b = t->heads[r][s]; b; prev = b, b = b->next_free) {
                nlisted++;
                if (!b->is_free || b->row != r || b->sl != s || b->prev_free != prev) {
                    bad++;
                    am_fail(err, AM_EINTERNAL, "tlsf: list (%d, %d) holds a wrong block", r, s);
                }
            }
            if (t->heads[r][s])
                expect |= 1U << s;
        }
        if (t->sl_bitmap[r] != expect || !(t->fl_bitmap >> r & 1) != !expect) {
            bad++;
            am_fail(err, AM_EINTERNAL, "tlsf: bitmaps of row %d disagree with its lists", r);
        }
    }
    if ((t->have_arena && at != t->base + t->arena) || used != t->bytes_in_use ||
        nfree != nlisted || nfree != t->nfree || ntracked != t->by_size.n) {
        bad++;
        am_fail(err, AM_EINTERNAL, "tlsf: blocks do not tile the arena, in use %" PRIu64
                " != %" PRIu64 ", or free count off (or the size set's)", used, t->bytes_in_use);
    }
    return bad;
}

/* alignment a power of two up to 1 TiB (0 was quietly 256 until 2026-11-25) the capacity
 * holds (checked when a config loads since 2026-11-27, alloc.h check_opts). */
static int tlsf_check_opts(const void *opts, const alloc_env *env, am_error *err)
{
    uint64_t align = ((const struct tlsf_opts *)opts)->alignment;
    if (am_check_pow2(err, "alignment", align, 1ULL << 40, "1 TiB") < 0)
        return -1;
    if (env->capacity < align)
        return am_fail_opt(err, "capacity,alignment", "tlsf: capacity of %" PRIu64 " bytes is "
                           "below the alignment (%" PRIu64 " bytes)", env->capacity, align);
    return 0;
}

static int tlsf_create(void **out, const alloc_env *env, const void *opts, am_error *err)
{
    static const struct tlsf_opts defaults = {256};
    const struct tlsf_opts *o = opts ? opts : &defaults;
    if (tlsf_check_opts(o, env, err) < 0)
        return -1;
    uint64_t align = o->alignment;
    tlsf *t = am_calloc(1, sizeof *t);
    t->track_row = TL_ROWS; /* nothing free yet: nothing tracked */
    recpool_init(&t->recs, sizeof(tblk));
    t->env = *env;
    t->align = align;
    t->align_log2 = __builtin_ctzll(align);
    t->small_log2 = t->align_log2 + TL_SL_LOG2;
    *out = t;
    return 0;
}

static void tlsf_destroy(void *st)
{
    tlsf *t = st;
    ss_destroy(&t->by_size);
    recpool_destroy(&t->recs);
    free(t);
}

/* A refused request finally failed (alloc.h count_oom): the one place ooms grows. */
static void tlsf_count_oom(void *st) { ((tlsf *)st)->ooms++; }

/* alloc.h min_capacity: good fit finds only a block of a list at or above the request rounded up
 * to its list's lower bound, so no arena below that bound serves it, even empty (a 99000-byte
 * request in 99840 bytes needs a block of 100352). */
static uint64_t tlsf_min_capacity(void *st, uint64_t bytes)
{
    const tlsf *t = st;
    uint64_t need = am_round_up_sat(bytes, t->align);
    /* up to its list's width (list_step): saturates as round_search's overflow (until
     * 2026-11-28 this called round_search and rounded its result back down) */
    return am_round_up_sat(need, list_step(t->align_log2, need));
}

/* The arena, the capacity rounded down to the alignment (alloc.h pool_limit), as buddy's. */
static uint64_t tlsf_pool_limit(void *st)
{
    const tlsf *t = st;
    return am_round_down(t->env.capacity, t->align);
}

static const struct alloc_ops tlsf_ops = {
    .name = "tlsf",
    .summary = "Two-Level Segregated Fit (Masmano et al. 2004): O(1) good fit with immediate "
               "coalescing, one arena of the capacity",
    .opts = tlsf_opt_table,
    .opts_size = sizeof(struct tlsf_opts),
    .create = tlsf_create,
    .check_opts = tlsf_check_opts,
    .destroy = tlsf_destroy,
    .alloc = tlsf_alloc,
    .free = tlsf_free,
    .prefetch_free = tlsf_prefetch_free,
    .largest_free = tlsf_largest_free,
    .stats = tlsf_stats,
    .reset_peaks = tlsf_reset_peaks,
    .walk = tlsf_walk,
    .check = tlsf_check,
    .count_oom = tlsf_count_oom,
    .min_capacity = tlsf_min_capacity,
    .pool_limit = tlsf_pool_limit,
};

const struct alloc_ops *alloc_tlsf_ops(void);
const struct alloc_ops *alloc_tlsf_ops(void) { return &tlsf_ops; }

/* For the unit tests: the list of a size with the given alignment (fl = floor(log2 size), or 0
 * for the linear class below 32 * alignment), after good-fit rounding when `search` is set. */
void alloc_tlsf_map(uint64_t size, uint64_t alignment, int search, int *fl, int *sl);
void alloc_tlsf_map(uint64_t size, uint64_t alignment, int search, int *fl, int *sl)
{
    int al = __builtin_ctzll(alignment), row;
    if (search)
        size = round_search(al, size);
    map(al, size, &row, sl);
    *fl = row ? row + al + TL_SL_LOG2 - 1 : 0;
}
