/* plan.c - offline placement planners (allocators.md section 5).
 *
 * plan_peak_live: a sweep over lifetime endpoints (ends before starts at equal times, since
 *   lifetimes are half-open).
 * plan_greedy: XLA's GlobalDecreasingSizeBestFitHeap. Every live buffer has a row in start-time
 *   order; a max-tree over blocks of rows, keyed by the placed rows' ends, gives the placed
 *   buffers that overlap a new one in time block by block (gset below); sorted by offset, the
 *   gaps between them are read off directly. train-1M's 500k buffers (840 overlapping placed
 *   ones per query on average) plan in under 9 s and serve-1M's in under 3 s end to end, where
 *   an interval treap of the placed buffers took 22 s and 6.6 s, and scanning the whole placed
 *   list for each buffer took 10 minutes on serve-1M. When the overlapping placed buffers are
 *   all of them, or a "core" known beforehand, a kept union of their addresses answers in
 *   O(log n) instead (gfast below).
 * plan_verify: a sweep by start with the live buffers by offset; each new one is compared with
 *   its neighbours there.
 * plan_optimal: the branch and bound of MiniMalloc (Moffitt, "MiniMalloc: A Lightweight Memory
 *   Allocator for Hardware-Accelerated Machine Learning", ASPLOS 2023), written from the paper's
 *   description:
 *   - sections: one per distinct end time, holding the buffers live just before it. Two buffers
 *     overlap in time exactly when they share a section, and each buffer covers a contiguous
 *     range of sections.
 *   - canonical placements: every feasible placement can be pushed down until no buffer can
 *     move lower; in that form, taking buffers by increasing offset, each sits at its minimum
 *     offset (the top of the buffers below it that overlap it in time). So the search only
 *     places buffers in non-decreasing (offset, preorder) order, each at its minimum offset.
 *   - dominance: a candidate whose offset is at or above the lowest top (min offset + size) of
 *     any unplaced buffer would leave a gap that buffer could drop into; skipped.
 *   - section inference: in every section, max(floor, current offset) + the unplaced bytes in it
 *     must fit the capacity; a section's floor is the top of its placed buffers, raised to the
 *     lowest minimum offset of its unplaced buffers.
 *   - dynamic decomposition: when no unplaced buffer crosses between two adjacent sections any
 *     more, the two sides are solved as independent subproblems.
 *   - static preorder by (lifetime width, area, section total) in three permutations, plus
 *     three with clock-free widths (sections spanned), tried round robin with a node limit that
 *     doubles, so one bad ordering cannot stall the search.
 *   All state changes are undone through logs; nothing is allocated per node except the
 *   candidate list (one shared stack). */
#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../sim/common.h"
#include "ordset.h"

static int live(const plan_buf *b) { return b->size > 0 && b->start < b->end; }

/* ---- peak live ---- */

typedef struct pl_ev {
    uint64_t t;
    int is_start;     /* ends (0) sort before starts (1) at equal time */
    uint64_t size;
} pl_ev;

static int pl_ev_cmp(const void *a, const void *b)
{
    const pl_ev *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->is_start - y->is_start;
}

uint64_t plan_peak_live(const plan_buf *b, size_t n)
{
    pl_ev *ev = am_malloc((2 * n + 1) * sizeof *ev);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (!live(&b[i]))
            continue;
        ev[m++] = (pl_ev){b[i].start, 1, b[i].size};
        ev[m++] = (pl_ev){b[i].end, 0, b[i].size};
    }
    qsort(ev, m, sizeof *ev, pl_ev_cmp);
    uint64_t cur = 0, peak = 0;
    for (size_t i = 0; i < m; i++) {
        if (ev[i].is_start) {
            cur += ev[i].size;
            if (cur > peak)
                peak = cur;
        } else {
            cur -= ev[i].size;
        }
    }
    free(ev);
    return peak;
}

uint64_t plan_height(const plan_buf *b, size_t n)
{
    uint64_t h = 0;
    for (size_t i = 0; i < n; i++)
        if (live(&b[i]) && b[i].offset + b[i].size > h)
            h = b[i].offset + b[i].size;
    return h;
}

/* ---- a merge sort of int indices with a context (qsort has none in C11) ---- */

typedef int (*idx_cmp)(const void *ctx, int a, int b);

static void msort_idx(int *v, int *tmp, size_t n, idx_cmp cmp, const void *ctx)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    msort_idx(v, tmp, h, cmp, ctx);
    msort_idx(v + h, tmp, n - h, cmp, ctx);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = cmp(ctx, v[j], v[i]) < 0 ? v[j++] : v[i++];
    while (i < h)
        tmp[k++] = v[i++];
    while (j < n)
        tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
}

/* ---- greedy ---- */

int plan_timed(const plan_buf *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (live(&b[i]) && !b[i].timed)
            return 0;
    return 1;
}

typedef struct greedy_ctx {
    const plan_buf *b;
    int timed; /* plan_timed */
} greedy_ctx;

static int greedy_cmp(const void *ctx, int a, int b)
{
    const greedy_ctx *g = ctx;
    const plan_buf *p = g->b;
    if (p[a].size != p[b].size)
        return p[a].size > p[b].size ? -1 : 1;
    uint64_t la = plan_lifetime(&p[a], g->timed), lb = plan_lifetime(&p[b], g->timed);
    if (la != lb)
        return la > lb ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* A placed buffer that overlaps the one being placed: key its offset, val its end (top).
 * Hits are read in offset order; two at the same offset (they do not overlap each other in
 * time) may come in either order: the first leaves no gap for the second and the running top
 * takes the larger end either way. */
typedef am_kv ghit;

/* The greedy's placed buffers, asked "which of you overlap [s, e) in time" once per buffer.
 * Every live buffer has a row from the outset, in order of (start, index): its start, end,
 * offset and top in four arrays. A row's end reads 0 until its buffer is placed, so an unplaced
 * one never meets a query (lifetimes are half-open: overlap is start < e and end > s, and
 * s >= 0). The rows with start < e are a prefix, found by binary search; of these, the ones
 * with end > s are found through a max-tree over blocks of GS_BLOCK rows (a full binary tree
 * in an array, leaf b the largest end in block b, 0 while none of its rows is placed): a query
 * descends only into subtrees whose largest end is above s and scans each such block whole,
 * the rows side by side in memory. Every block it scans but the last holds a hit (its rows
 * all start before e, and one ends after s), so a query with k hits reads at most 32 (k + 1)
 * rows and O((k + 1) log n) tree nodes. Placing a buffer raises the maxima on its leaf's path.
 * Hits come out in row order; the tree of nodes this replaced visited 1.24 nodes per hit on
 * train-1M by pointer, where a block scan reads rows in line order. */
enum { GS_BLOCK = 32 };

typedef struct gset {
    uint64_t *start, *end, *off, *top; /* rows, m of them */
    uint64_t *mx;                      /* 2 * leaves: node i's children are 2i and 2i + 1 */
    size_t m, leaves;                  /* leaves: a power of two >= the blocks */
} gset;

/* Collect the placed rows of block-tree node x (blocks [lo, hi)) before row p whose end is
 * above s, in row order. */
static void gs_query(const gset *g, size_t x, size_t lo, size_t hi, size_t p, uint64_t s,
                     ghit *out, size_t *k)
{
    if (lo * GS_BLOCK >= p || g->mx[x] <= s)
        return;
    if (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        gs_query(g, 2 * x, lo, mid, p, s, out, k);
        gs_query(g, 2 * x + 1, mid, hi, p, s, out, k);
        return;
    }
    size_t i = lo * GS_BLOCK, end = AM_MIN(i + GS_BLOCK, p), n = *k;
    for (; i < end; i++) { /* out has room for one more: the store is unconditional */
        out[n] = (ghit){g->off[i], g->top[i]};
        n += g->end[i] > s;
    }
    *k = n;
}

/* Rows with start < e: the first row whose start is >= e. */
static size_t gs_prefix(const gset *g, uint64_t e)
{
    return am_lower_bound_u64(g->start, g->m, e);
}

static void gs_place(gset *g, size_t row, uint64_t end, uint64_t off, uint64_t top)
{
    g->end[row] = end;
    g->off[row] = off;
    g->top[row] = top;
    for (size_t x = g->leaves + row / GS_BLOCK; x >= 1 && g->mx[x] < end; x /= 2)
        g->mx[x] = end;
}

static inline int ghit_lt(const ghit *x, const ghit *y)
{
    return x->key < y->key;
}

/* Sort hits by offset: a quicksort with the comparison in line (qsort's call per
 * comparison cost twice as much), insertion sort below 16 elements. */
static void ghit_sort(ghit *v, size_t n)
{
    while (n > 16) {
        size_t mid = n / 2, last = n - 1;
        /* median of three to v[0] as the pivot */
        if (ghit_lt(&v[mid], &v[0])) {
            ghit t = v[mid]; v[mid] = v[0]; v[0] = t;
        }
        if (ghit_lt(&v[last], &v[mid])) {
            ghit t = v[last]; v[last] = v[mid]; v[mid] = t;
            if (ghit_lt(&v[mid], &v[0])) {
                t = v[mid]; v[mid] = v[0]; v[0] = t;
            }
        }
        ghit pivot = v[mid];
        size_t i = 0, j = last;
        for (;;) { /* Hoare partition: [0, j] <= pivot <= [j + 1, n) */
            while (ghit_lt(&v[i], &pivot))
                i++;
            while (ghit_lt(&pivot, &v[j]))
                j--;
            if (i >= j)
                break;
            ghit t = v[i]; v[i] = v[j]; v[j] = t;
            i++;
            j--;
        }
        /* recurse into the smaller side, loop on the larger: O(log n) stack */
        size_t left = j + 1;
        if (left < n - left) {
            ghit_sort(v, left);
            v += left;
            n -= left;
        } else {
            ghit_sort(v + left, n - left);
            n = left;
        }
    }
    for (size_t i = 1; i < n; i++) {
        ghit t = v[i];
        size_t j = i;
        for (; j > 0 && ghit_lt(&t, &v[j - 1]); j--)
            v[j] = v[j - 1];
        v[j] = t;
    }
}

/* Sort hits by offset, tmp holding as many: from 256 hits on, a radix sort over the bits in
 * which the offsets differ (am_sort_kv), in passes of at most 8 bits (11 from 1024 hits on,
 * where the larger count table pays: offsets below 2^35 on a 256-byte grid then take three
 * passes of 9 bits); the quicksort below 256. Either order of equal offsets is right (see
 * ghit). A query while long-lived buffers are placed returns most of them: 100k hits, where
 * the quicksort's comparisons were half the planner's time. */
static void ghit_order(ghit *v, ghit *tmp, size_t n)
{
    if (n < 256)
        ghit_sort(v, n);
    else
        am_sort_kv(v, tmp, n, n >= 1024 ? 11 : 8);
}

/* The scan: the placed buffers overlapping x in time (the rows before p ending after x's
 * start), by offset; the smallest gap between them that fits (lowest offset among equal
 * gaps), else on top of them. hit and hit_tmp have room for every row and one more. */
static uint64_t greedy_scan(const gset *g, size_t p, const plan_buf *x, ghit *hit,
                            ghit *hit_tmp)
{
    size_t nh = 0;
    gs_query(g, 1, 0, g->leaves, p, x->start, hit, &nh);
    ghit_order(hit, hit_tmp, nh);
    uint64_t top = 0, best_off = 0, best_gap = UINT64_MAX;
    int found = 0;
    for (size_t j = 0; j < nh; j++) {
        /* no gap reads 0, which never fits (sizes are above 0): selects, not branches */
        uint64_t gap = hit[j].key > top ? hit[j].key - top : 0;
        int better = gap >= x->size && gap < best_gap;
        best_gap = better ? gap : best_gap;
        best_off = better ? top : best_off;
        found |= better;
        top = hit[j].val > top ? hit[j].val : top;
    }
    return found ? best_off : top;
}

/* Two shortcuts spare plan_greedy its scan when many buffers are live together. Both rest on
 * the same fact: when the hits of a query are a set H of placed buffers known beforehand, the
 * gaps the scan reads off them (sorted by offset, the free stretch below each that the running
 * top leaves) are exactly the free gaps of the union of H's address ranges below its top, from
 * address 0 up. Kept as a union (gunion), the smallest gap that fits, lowest offset among equal
 * gaps, is one lower_bound in a set ordered by (length, offset), and "on top" is the union's
 * top: O(log n) instead of O(k log k) for k hits. The two sets:
 *   all   every placed buffer: the hits when each of them overlaps the new one in time (a
 *         trace that allocates everything before freeing anything);
 *   core  the placed buffers that overlap, in time, every buffer still to be placed (so every
 *         later query's too): the hits when no other placed buffer overlaps the new one (long
 *         lived buffers with short ones coming and going that never meet each other). A buffer
 *         joins the core once and stays: the unplaced set only shrinks.
 * Whether a shortcut applies is a count (gcount): placed buffers overlapping the new one equal
 * to all placed, or none outside the core overlapping it. Else the scan runs as before, so
 * every offset is the one the scan alone gives (tests/unit/test_offline.c checks the planner
 * against the O(n^2) definition). Until 2026-11-27 every query scanned: a trace allocating 50k
 * buffers before freeing any planned in 15 s, and one of 1M did not finish. */
/* A component of the union and the free gap below it (from the end of the component before
 * it, or address 0), in one record. Records come from slabs that never move (the trees hold
 * pointers into them) and go back to a free list when components merge, so a union holds as
 * many as it has components, not one per buffer. */
typedef struct gcomp {
    os_node comp;          /* k1 first byte, k2 a serial number (unique), val first byte past */
    os_node gap;           /* k1 its length, k2 its first byte */
    int has_gap;
    struct gcomp *next_free;
} gcomp;

#define GC_OF(n) ((gcomp *)(void *)((char *)(n) - offsetof(gcomp, comp)))

enum { GU_SLAB = 4096 };

typedef struct gunion {
    os_tree comp;    /* components by first byte */
    os_tree gap;     /* gaps by (length, first byte) */
    gcomp **slab;
    size_t nslab, used; /* slabs; records taken from the last one */
    gcomp *free_list;
    uint64_t serial;
    uint64_t top;    /* first byte past the highest component (0: none placed) */
} gunion;

static void gu_init(gunion *u)
{
    memset(u, 0, sizeof *u);
    u->comp.no_aug = u->gap.no_aug = 1;
    u->used = GU_SLAB;
}

static void gu_free(gunion *u)
{
    for (size_t i = 0; i < u->nslab; i++)
        free(u->slab[i]);
    free(u->slab);
}

static gcomp *gu_new(gunion *u)
{
    gcomp *c = u->free_list;
    if (c) {
        u->free_list = c->next_free;
    } else {
        if (u->used == GU_SLAB) {
            u->slab = am_realloc(u->slab, (u->nslab + 1) * sizeof *u->slab);
            u->slab[u->nslab++] = am_malloc(GU_SLAB * sizeof **u->slab);
            u->used = 0;
        }
        c = &u->slab[u->nslab - 1][u->used++];
    }
    memset(c, 0, sizeof *c);
    c->comp.k2 = u->serial++;
    return c;
}

static void gu_drop_gap(gunion *u, gcomp *c)
{
    if (c->has_gap) {
        os_remove(&u->gap, &c->gap);
        c->has_gap = 0;
    }
}

/* (Re)file the gap below component c. */
static void gu_set_gap(gunion *u, gcomp *c)
{
    gu_drop_gap(u, c);
    const os_node *p = os_prev(&c->comp);
    uint64_t lo = p ? p->val : 0;
    if (c->comp.k1 > lo) {
        c->gap.k1 = c->comp.k1 - lo;
        c->gap.k2 = lo;
        c->gap.val = 0;
        os_insert(&u->gap, &c->gap);
        c->has_gap = 1;
    }
}

/* The scan's choice when the hits are exactly the union's buffers. */
static uint64_t gu_best(const gunion *u, uint64_t size)
{
    const os_node *g = os_lower_bound(&u->gap, size, 0);
    return g ? g->k2 : u->top;
}

/* Add [a, b) (a < b): the components it touches merge into one. Each merge removes a
 * component for good, so n additions cost O(n log n). */
static void gu_add(gunion *u, uint64_t a, uint64_t b)
{
    os_node *c = os_floor(&u->comp, a, UINT64_MAX); /* the last starting at or below a */
    if (!c || c->val < a)
        c = c ? os_next(c) : os_first(&u->comp);
    uint64_t lo = a, hi = b;
    while (c && c->k1 <= b) { /* touches [a, b]: merge it */
        os_node *next = os_next(c);
        gcomp *old = GC_OF(c);
        lo = AM_MIN(lo, c->k1);
        hi = AM_MAX(hi, c->val);
        gu_drop_gap(u, old);
        os_remove(&u->comp, c);
        old->next_free = u->free_list;
        u->free_list = old;
        c = next;
    }
    gcomp *m = gu_new(u);
    m->comp.k1 = lo;
    m->comp.val = hi;
    os_insert(&u->comp, &m->comp);
    gu_set_gap(u, m);
    if (c) /* the component above: its gap now starts at hi */
        gu_set_gap(u, GC_OF(c));
    u->top = AM_MAX(u->top, hi);
}

/* "How many rows of a set overlap [s, e) in time": Fenwick trees over the rows (by start) and
 * over the ends' ranks. The set's rows with start < e, less those with end <= s (every one of
 * which starts before e, as s < e). The ranks are shared by every count (granks). */
typedef struct granks {
    uint64_t *ends;   /* every row's end, sorted */
    size_t *end_rank; /* per row: its place in ends (distinct among equal ends) */
    size_t m;
} granks;

typedef struct gcount {
    int32_t *by_row, *by_end; /* Fenwick trees, 1-based, m entries each */
    const granks *rk;
    size_t in;                /* rows in the set */
} gcount;

static void fw_add(int32_t *t, size_t m, size_t i, int32_t d)
{
    for (i++; i <= m; i += i & (~i + 1))
        t[i] += d;
}

/* Entries [0, i). */
static int64_t fw_sum(const int32_t *t, size_t i)
{
    int64_t s = 0;
    for (; i > 0; i -= i & (~i + 1))
        s += t[i];
    return s;
}

/* Rows [0, lo) are those ending at or before s. */
static size_t gr_ended(const granks *rk, uint64_t s)
{
    return am_upper_bound_u64(rk->ends, rk->m, s);
}

static void gc_init(gcount *c, const granks *rk)
{
    c->rk = rk;
    c->in = 0;
    c->by_row = am_calloc(rk->m + 1, sizeof *c->by_row);
    c->by_end = am_calloc(rk->m + 1, sizeof *c->by_end);
}

/* The set's rows overlapping [s, e): p rows start before e (gs_prefix), `ended` end by s. */
static size_t gc_overlapping(const gcount *c, size_t p, size_t ended)
{
    return (size_t)(fw_sum(c->by_row, p) - fw_sum(c->by_end, ended));
}

/* Row `row` into the set (d = 1) or out of it (d = -1). */
static void gc_change(gcount *c, size_t row, int32_t d)
{
    fw_add(c->by_row, c->rk->m, row, d);
    fw_add(c->by_end, c->rk->m, c->rk->end_rank[row], d);
    c->in = d > 0 ? c->in + 1 : c->in - 1;
}

/* A binary min-heap of (key, row): placed rows waiting to join the core. */
typedef struct gheap {
    am_kv *v;
    size_t n;
} gheap;

static void gh_push(gheap *h, uint64_t key, uint64_t row)
{
    size_t i = h->n++;
    for (; i > 0 && h->v[(i - 1) / 2].key > key; i = (i - 1) / 2)
        h->v[i] = h->v[(i - 1) / 2];
    h->v[i] = (am_kv){key, row};
}

static am_kv gh_pop(gheap *h)
{
    am_kv top = h->v[0], last = h->v[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->v[c + 1].key < h->v[c].key)
            c++;
        if (h->v[c].key >= last.key)
            break;
        h->v[i] = h->v[c];
        i = c;
    }
    if (h->n)
        h->v[i] = last;
    return top;
}

/* Everything plan_greedy keeps beside the rows' tree. A placed row joins the core when its
 * start is below every unplaced buffer's end (it waits in by_start for that, the bound only
 * rising) and its end above every unplaced buffer's start (then in by_end, keyed by
 * UINT64_MAX - end, the bound only falling). */
typedef struct gfast {
    gunion all, core;
    granks rk;
    gcount placed, outside; /* every placed row; the placed rows not in the core */
    gheap by_start, by_end;
    const gset *g;          /* the rows: a placed row's start, end, offset and top */
} gfast;

/* Rows' ends, for sorting them by (end, row). */
static int end_cmp(const void *ctx, int a, int b)
{
    const uint64_t *e = ctx;
    if (e[a] != e[b])
        return e[a] < e[b] ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* For m rows; order holds the live buffers by start (row order), tmp scratch of m + 1 ints. */
static void gf_init(gfast *f, const gset *g, const plan_buf *b, const int *order, size_t m,
                    int *tmp)
{
    memset(f, 0, sizeof *f);
    f->g = g;
    gu_init(&f->all);
    gu_init(&f->core);
    f->rk.m = m;
    f->rk.ends = am_malloc((m + 1) * sizeof *f->rk.ends);
    f->rk.end_rank = am_malloc((m + 1) * sizeof *f->rk.end_rank);
    int *byend = am_malloc((m + 1) * sizeof *byend);
    for (size_t k = 0; k < m; k++) {
        f->rk.ends[k] = b[order[k]].end; /* by row for the sort, then sorted */
        byend[k] = (int)k;
    }
    msort_idx(byend, tmp, m, end_cmp, f->rk.ends);
    for (size_t k = 0; k < m; k++)
        f->rk.end_rank[byend[k]] = k;
    for (size_t k = 0; k < m; k++)
        f->rk.ends[k] = b[order[byend[k]]].end;
    free(byend);
    gc_init(&f->placed, &f->rk);
    gc_init(&f->outside, &f->rk);
    f->by_start.v = am_malloc((m + 1) * sizeof *f->by_start.v);
    f->by_end.v = am_malloc((m + 1) * sizeof *f->by_end.v);
}

static void gf_free(gfast *f)
{
    gu_free(&f->all), gu_free(&f->core);
    free(f->rk.ends), free(f->rk.end_rank);
    free(f->placed.by_row), free(f->placed.by_end);
    free(f->outside.by_row), free(f->outside.by_end);
    free(f->by_start.v), free(f->by_end.v);
}

/* Placed rows that now overlap every unplaced buffer in time (start < min_end, end >
 * max_start) join the core: min_end is the smallest end and max_start the largest start of the
 * unplaced buffers (UINT64_MAX and 0 when none is left: every row qualifies). */
static void gf_promote(gfast *f, uint64_t min_end, uint64_t max_start)
{
    while (f->by_start.n && f->by_start.v[0].key < min_end) {
        am_kv r = gh_pop(&f->by_start);
        gh_push(&f->by_end, UINT64_MAX - f->g->end[r.val], r.val);
    }
    while (f->by_end.n && UINT64_MAX - f->by_end.v[0].key > max_start) {
        size_t r = (size_t)gh_pop(&f->by_end).val;
        gu_add(&f->core, f->g->off[r], f->g->top[r]);
        gc_change(&f->outside, r, -1);
    }
}

/* The offset the scan would choose, when a shortcut knows it: 1 and *off, else 0. p and
 * `ended`: the rows starting before x's end and ending at or before its start. */
static int gf_lookup(const gfast *f, size_t p, size_t ended, uint64_t size, uint64_t *off)
{
    if (gc_overlapping(&f->placed, p, ended) == f->placed.in) {
        *off = gu_best(&f->all, size);
        return 1;
    }
    if (gc_overlapping(&f->outside, p, ended) == 0) {
        *off = gu_best(&f->core, size);
        return 1;
    }
    return 0;
}

/* Row r placed at [off, top) (after gs_place). */
static void gf_place(gfast *f, size_t r, uint64_t off, uint64_t top)
{
    gu_add(&f->all, off, top);
    gc_change(&f->placed, r, 1);
    gc_change(&f->outside, r, 1);
    gh_push(&f->by_start, f->g->start[r], r);
}

/* By start time, then index: the greedy's rows and the verifier's sweep. */
static int start_cmp(const void *ctx, int a, int b)
{
    const plan_buf *p = ctx;
    if (p[a].start != p[b].start)
        return p[a].start < p[b].start ? -1 : 1;
    return a < b ? -1 : a > b;
}

uint64_t plan_greedy(plan_buf *b, size_t n)
{
    int *order = am_malloc((n + 1) * sizeof *order);
    int *tmp = am_malloc((n + 1) * sizeof *tmp);
    size_t *row = am_malloc((n + 1) * sizeof *row); /* a buffer's row in the set: by start */
    /* hits: at most every row, and one slot past the last for gs_query's unconditional store */
    ghit *hit = am_malloc((n + 1) * sizeof *hit), *hit_tmp = am_malloc((n + 1) * sizeof *hit);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        b[i].offset = 0;
        if (live(&b[i]))
            order[m++] = (int)i;
    }
    msort_idx(order, tmp, m, start_cmp, b);
    gset g = {0};
    size_t blocks = (m + GS_BLOCK - 1) / GS_BLOCK;
    g.m = m;
    for (g.leaves = 1; g.leaves < blocks; g.leaves *= 2)
        ;
    g.start = am_malloc((m + 1) * sizeof *g.start);
    g.end = am_calloc(m + 1, sizeof *g.end);
    g.off = am_calloc(m + 1, sizeof *g.off); /* scans copy unplaced rows' too */
    g.top = am_calloc(m + 1, sizeof *g.top);
    g.mx = am_calloc(2 * g.leaves, sizeof *g.mx);
    for (size_t k = 0; k < m; k++) {
        row[order[k]] = k;
        g.start[k] = b[order[k]].start;
    }
    gfast f;
    gf_init(&f, &g, b, order, m, tmp);
    greedy_ctx gc = {b, plan_timed(b, n)};
    msort_idx(order, tmp, m, greedy_cmp, &gc);
    /* the unplaced buffers' smallest end and largest start before each step (the core) */
    uint64_t *min_end = am_malloc((m + 1) * sizeof *min_end);
    uint64_t *max_start = am_malloc((m + 1) * sizeof *max_start);
    min_end[m] = UINT64_MAX;
    max_start[m] = 0;
    for (size_t k = m; k-- > 0;) {
        min_end[k] = AM_MIN(min_end[k + 1], b[order[k]].end);
        max_start[k] = AM_MAX(max_start[k + 1], b[order[k]].start);
    }
    uint64_t height = 0;
    for (size_t k = 0; k < m; k++) {
        plan_buf *x = &b[order[k]];
        size_t r = row[order[k]], p = gs_prefix(&g, x->end);
        gf_promote(&f, min_end[k], max_start[k]);
        if (!gf_lookup(&f, p, gr_ended(&f.rk, x->start), x->size, &x->offset))
            x->offset = greedy_scan(&g, p, x, hit, hit_tmp);
        gs_place(&g, r, x->end, x->offset, x->offset + x->size);
        gf_place(&f, r, x->offset, x->offset + x->size);
        if (x->offset + x->size > height)
            height = x->offset + x->size;
    }
    gf_free(&f);
    free(min_end);
    free(max_start);
    free(order);
    free(tmp);
    free(row);
    free(hit);
    free(hit_tmp);
    free(g.start);
    free(g.end);
    free(g.off);
    free(g.top);
    free(g.mx);
    return height;
}

/* ---- verification ---- */

/* By end time, then index: the verifier's departures. */
static int end_idx_cmp(const void *ctx, int a, int b)
{
    const plan_buf *p = ctx;
    if (p[a].end != p[b].end)
        return p[a].end < p[b].end ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* Buffer k of the sweep (order[k], by start) overlaps a live one in address: name the first of
 * the earlier buffers still live at its start (in start order) that it overlaps, as the sweep
 * that scanned them all did until 2026-11-27. O(k), once. */
static void verify_report(const plan_buf *b, const int *order, size_t k, char *why, size_t len)
{
    const plan_buf *x = &b[order[k]];
    for (size_t j = 0; j < k; j++) {
        const plan_buf *y = &b[order[j]];
        if (y->end <= x->start ||
            !(x->offset < y->offset + y->size && y->offset < x->offset + x->size))
            continue;
        if (why)
            snprintf(why, len, "buffers %d and %d overlap: lifetimes [%llu, %llu) and "
                     "[%llu, %llu), addresses [%llu, %llu) and [%llu, %llu)", order[j],
                     order[k], (unsigned long long)y->start,
                     (unsigned long long)y->end, (unsigned long long)x->start,
                     (unsigned long long)x->end, (unsigned long long)y->offset,
                     (unsigned long long)(y->offset + y->size),
                     (unsigned long long)x->offset,
                     (unsigned long long)(x->offset + x->size));
        return;
    }
}

int plan_verify(const plan_buf *b, size_t n, uint64_t capacity, char *why, size_t len)
{
    int *order = am_malloc((n + 1) * sizeof *order);
    int *tmp = am_malloc((n + 1) * sizeof *tmp);
    int *byend = am_malloc((n + 1) * sizeof *byend);
    os_node *node = am_calloc(n + 1, sizeof *node);
    size_t m = 0;
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if (!live(&b[i]))
            continue;
        if (b[i].offset > UINT64_MAX - b[i].size || b[i].offset + b[i].size > capacity) {
            if (why)
                snprintf(why, len, "buffer %zu [%llu, %llu) does not fit in %llu bytes", i,
                         (unsigned long long)b[i].offset,
                         (unsigned long long)(b[i].offset + b[i].size),
                         (unsigned long long)capacity);
            rc = -1;
            goto out;
        }
        order[m++] = (int)i;
    }
    msort_idx(order, tmp, m, start_cmp, b);
    memcpy(byend, order, m * sizeof *byend);
    msort_idx(byend, tmp, m, end_idx_cmp, b);
    /* Sweep by start time; `act` holds the buffers live at the current start by offset. They
     * never overlap one another in address (the sweep stops at the first that would), so a new
     * one overlaps one of them exactly when it overlaps the last at or below its offset or the
     * first above it: O(n log n), where scanning every live buffer was O(n^2) when all of them
     * live together (until 2026-11-27). */
    os_tree act = {0};
    act.no_aug = 1;
    size_t gone = 0;
    for (size_t k = 0; k < m; k++) {
        const plan_buf *x = &b[order[k]];
        /* ended (end <= start): each started before this one, so it is in the set */
        for (; gone < m && b[byend[gone]].end <= x->start; gone++)
            os_remove(&act, &node[byend[gone]]);
        const os_node *below = os_floor(&act, x->offset, UINT64_MAX);
        const os_node *above = below ? os_next(below) : os_first(&act);
        int clash = (below && below->k1 + b[below->k2].size > x->offset) ||
                    (above && above->k1 < x->offset + x->size);
        if (clash) {
            verify_report(b, order, k, why, len);
            rc = -1;
            goto out;
        }
        os_node *nx = &node[order[k]];
        nx->k1 = x->offset;
        nx->k2 = (uint64_t)order[k];
        os_insert(&act, nx);
    }
out:
    free(order);
    free(tmp);
    free(byend);
    free(node);
    return rc;
}

/* ---- exact search (MiniMalloc) ---- */

enum { S_NOTFOUND = 0, S_FOUND = 1, S_TIMEOUT = -1, S_ABORT = -2 };

typedef struct ulog {
    int idx;
    uint64_t v;
} ulog;

typedef struct cand {
    uint64_t off; /* the buffer's minimum offset */
    int pre;      /* index in the partition's preorder */
} cand;

typedef struct srch {
    int n;                    /* buffers in the search (live ones) */
    int nsec;
    uint64_t cap;             /* bytes */
    uint64_t *size, *width;   /* bytes; lifetime length */
    int *slo, *shi;           /* section range [slo, shi) */
    int *ovl_at, *ovl;        /* CSR: buffers overlapping each buffer in time */
    int *mem_at, *mem;        /* CSR: buffers in each section, by (start, index) */
    int *mem_end;             /* the same lists by (end, index), descending */
    int *by_slo;              /* every buffer by (slo, index): the static partitions' members */
    uint64_t *floor, *total;  /* per section: lowest free offset, unplaced bytes */
    int *cuts;                /* per section boundary s|s+1: unplaced buffers crossing it */
    uint64_t *minoff, *sol;   /* per buffer; a placed buffer's minoff is UINT64_MAX */
    int *cover;               /* per section: raised buffers starting there less those ending
                               * (place()'s scratch, zero between calls) */
    int *wit;                 /* per section: the member place() last found at its floor */
    ulog *olog, *slog;
    size_t nolog, capolog, nslog, capslog;
    cand *cst;                /* a stack of CAND_BATCH slots per search level */
    size_t ncst, capcst;
    uint64_t *tot;            /* per buffer: preorder sort keys, scratch of one sort at a time */
    int *tmp;                 /* the sort's scratch */
    size_t held, held_peak;   /* bytes of the levels' state: candidate stack, member lists */
    const char *heur;         /* preorder keys, e.g. "WAT" */
    uint64_t nodes, node_limit; /* this pass's nodes and their cap (iterative deepening) */
    uint64_t spent, budget;     /* work of every pass (plan_budget), and its cap (0: none) */
    uint64_t looked;            /* members place()'s re-checks looked at */
    struct timespec deadline;
    int have_deadline;
    int stopped_by;             /* PLAN_BY_WORK or PLAN_BY_TIME: what ended the last S_TIMEOUT */
} srch;

typedef struct part {
    const int *bufs; /* unplaced buffers at creation, in preorder */
    int nb;
    int slo, shi;    /* section range */
} part;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int past_deadline(const srch *s)
{
    if (!s->have_deadline)
        return 0;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec > s->deadline.tv_sec ||
           (ts.tv_sec == s->deadline.tv_sec && ts.tv_nsec >= s->deadline.tv_nsec);
}

static void olog_push(srch *s, int idx, uint64_t v)
{
    if (s->nolog == s->capolog) {
        s->capolog = s->capolog ? 2 * s->capolog : 1024;
        s->olog = am_realloc(s->olog, s->capolog * sizeof *s->olog);
    }
    s->olog[s->nolog++] = (ulog){idx, v};
}

static void slog_push(srch *s, int idx, uint64_t v)
{
    if (s->nslog == s->capslog) {
        s->capslog = s->capslog ? 2 * s->capslog : 1024;
        s->slog = am_realloc(s->slog, s->capslog * sizeof *s->slog);
    }
    s->slog[s->nslog++] = (ulog){idx, v};
}

/* Preorder: descending by each key letter in turn, then buffer index. */
typedef struct pre_ctx {
    const srch *s;
    const uint64_t *tot; /* per buffer: the largest unplaced total among its sections */
} pre_ctx;

static int pre_cmp(const void *ctx, int a, int b)
{
    const pre_ctx *c = ctx;
    const srch *s = c->s;
    for (const char *h = s->heur; *h; h++) {
        long double x, y;
        switch (*h) {
        case 'W': x = (long double)s->width[a]; y = (long double)s->width[b]; break;
        case 'A':
            x = (long double)s->width[a] * (long double)s->size[a];
            y = (long double)s->width[b] * (long double)s->size[b];
            break;
        case 'C':
            x = (long double)(s->shi[a] - s->slo[a]);
            y = (long double)(s->shi[b] - s->slo[b]);
            break;
        case 'B':
            x = (long double)(s->shi[a] - s->slo[a]) * (long double)s->size[a];
            y = (long double)(s->shi[b] - s->slo[b]) * (long double)s->size[b];
            break;
        case 'T': x = (long double)c->tot[a]; y = (long double)c->tot[b]; break;
        default: x = (long double)s->size[a]; y = (long double)s->size[b]; break;
        }
        if (x != y)
            return x > y ? -1 : 1;
    }
    return a < b ? -1 : a > b;
}

static int cand_cmp(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->off != y->off)
        return x->off < y->off ? -1 : 1;
    return x->pre - y->pre;
}

static int subsolve(srch *s, int *bufs, int nb, int slo, int shi);

/* The bytes the levels' state takes grew (d > 0) or shrank by |d|. */
static void held_add(srch *s, ptrdiff_t d)
{
    s->held += (size_t)d;
    if (s->held > s->held_peak)
        s->held_peak = s->held;
}

static int search(srch *s, const part *p, uint64_t last_off, int last_pre);

/* An unplaced buffer's minimum offset is the top of something placed below the capacity, so
 * finite; place() sets a placed one's to UINT64_MAX and unplace() restores it from the log
 * (until 2026-11-28 a flag per buffer said it as well). */
static int is_placed(const srch *s, int b)
{
    return s->minoff[b] == UINT64_MAX;
}

/* place()'s re-check of section q: the lowest minimum offset below h among q's members that
 * share no section with the placed buffer, stopping at the first at or below the floor f (into
 * *at). Left of it (left set, x its first section) they end at or before x, a run at the end of
 * q's list by end; right of it (x its end) they start at or after x, a run at the end of q's
 * list by start. Both lists are walked from their end inwards until a member outside the run. */
static inline uint64_t scan_apart(srch *s, int q, int left, int x, uint64_t h, uint64_t f,
                                  int *at)
{
    const int *list = left ? s->mem_end : s->mem;
    const uint64_t *mo = s->minoff;
    int k0 = s->mem_at[q], k1 = s->mem_at[q + 1], k, c;
    uint64_t low = h;
    for (k = k1 - 1; k >= k0; k--) {
        c = list[k];
        if (left ? s->shi[c] > x : s->slo[c] < x)
            break; /* shares a section with the placed buffer: the run is over */
        if (mo[c] < low && (low = mo[c]) <= f) {
            *at = c;
            break;
        }
    }
    s->looked += (uint64_t)(k1 - 1 - k) + (k >= k0);
    return low;
}

/* Place buffer b at off and propagate: raise the minimum offsets of the unplaced buffers that
 * overlap it, the floors and totals of its sections, and the floors of sections whose unplaced
 * buffers all moved up. Logs every change.
 *
 * The sections a raised buffer spans are re-checked. Each raised buffer overlaps b, so with b's
 * they span one run of sections, [lo, hi), and a sweep of the raised buffers' starts and ends
 * over it finds them, in O(raised + run) rather than one visit per raised buffer per section
 * (until 2026-11-28 a stamp per section did, 471M visits for 1.6M sections re-checked on the
 * bcrafton snapshot at a budget of 40M).
 *
 * A re-checked section is outside b's own (those have their floor at h or above). Its members
 * that share a section with b are now at h or above, or placed, and one of them, raised, is at
 * h: its lowest unplaced member is at min(h, the lowest of the members that do not share a
 * section with b). Those are, right of b, the members starting at or after b's end (a suffix of
 * the section's list by start) and, left of b, those ending at or before b's start (a prefix
 * of its list by end); only they are scanned, from the list's end inwards until the first that
 * shares a section with b (until 2026-11-28 every member was, 550 at a time when the floor rose
 * on the bcrafton snapshot; a bisection for the subset's bound cost more than this walk). */
static void place(srch *s, int b, uint64_t off)
{
    uint64_t h = off + s->size[b];
    s->sol[b] = off;
    olog_push(s, b, s->minoff[b]);
    s->minoff[b] = UINT64_MAX; /* placed: above every h and every scan's lowest */
    int lo = s->slo[b], hi = s->shi[b];
    for (int k = s->ovl_at[b]; k < s->ovl_at[b + 1]; k++) {
        int c = s->ovl[k];
        if (s->minoff[c] >= h)
            continue; /* placed, or already at h or above */
        olog_push(s, c, s->minoff[c]);
        s->minoff[c] = h;
        s->cover[s->slo[c]]++;
        s->cover[s->shi[c]]--;
        lo = AM_MIN(lo, s->slo[c]);
        hi = AM_MAX(hi, s->shi[c]);
    }
    for (int q = s->slo[b]; q < s->shi[b]; q++) {
        slog_push(s, q, s->floor[q]);
        if (s->floor[q] < h)
            s->floor[q] = h;
        s->total[q] -= s->size[b];
    }
    const uint64_t *mo = s->minoff;
    int run = 0;
    for (int q = lo; q < hi; q++) {
        run += s->cover[q];
        s->cover[q] = 0;
        /* Only a minimum above the floor changes it. A raised buffer here now starts at h, so a
         * floor at h or above stands; else the first unplaced member at or below the floor
         * settles the section, and the one that did last time (wit) is looked at first. The
         * floors are those of a full scan, so the search and its work are too. */
        uint64_t f = s->floor[q];
        if (run == 0 || f >= h)
            continue;
        if (mo[s->wit[q]] <= f)
            continue; /* wit is always a member of q: see srch_fill */
        int c = -1;
        uint64_t low = q < s->slo[b] ? scan_apart(s, q, 1, s->slo[b], h, f, &c)
                                     : scan_apart(s, q, 0, s->shi[b], h, f, &c);
        if (low <= f) {
            s->wit[q] = c;
        } else {
            slog_push(s, q, f);
            s->floor[q] = low;
        }
    }
    s->cover[hi] = 0;
}

static void unplace(srch *s, int b, size_t olog_mark, size_t slog_mark)
{
    while (s->nslog > slog_mark) {
        ulog u = s->slog[--s->nslog];
        s->floor[u.idx] = u.v;
    }
    while (s->nolog > olog_mark) {
        ulog u = s->olog[--s->nolog];
        s->minoff[u.idx] = u.v;
    }
    for (int q = s->slo[b]; q < s->shi[b]; q++)
        s->total[q] += s->size[b];
}

/* Section inference with a monotonic floor: nothing unplaced goes below `off` any more. */
static int consistent(const srch *s, const part *p, uint64_t off)
{
    for (int q = p->slo; q < p->shi; q++) {
        uint64_t f = s->floor[q] > off ? s->floor[q] : off;
        if (s->total[q] > s->cap || f > s->cap - s->total[q])
            return 0;
    }
    return 1;
}

/* The unplaced buffers of p inside sections [lo, hi), into sub (NULL: only count them). */
static int part_members(const srch *s, const part *p, int lo, int hi, int *sub)
{
    int ns = 0;
    for (int i = 0; i < p->nb; i++) {
        int x = p->bufs[i];
        if (!is_placed(s, x) && s->slo[x] < hi && lo < s->shi[x]) {
            if (sub)
                sub[ns] = x;
            ns++;
        }
    }
    return ns;
}

/* After placing b (preorder index pre) at off: split at the section boundaries no unplaced
 * buffer crosses any more, or continue in the same partition. Each part's member list is
 * allocated at its own size and kept only while it is searched: the lists on the search's
 * current path are what a nested decomposition costs (until 2026-11-27 each level also took a
 * sort key for every buffer of the set, 8 bytes x n, and twice the parent's size). */
static int decompose(srch *s, const part *p, int b, uint64_t off, int pre)
{
    int *cps = NULL, ncps = 0;
    for (int q = s->slo[b]; q + 1 < s->shi[b]; q++)
        if (--s->cuts[q] == 0) {
            if (!cps)
                cps = am_malloc((size_t)(s->shi[b] - s->slo[b] + 2) * sizeof *cps);
            cps[ncps++] = q + 1;
        }
    int rc;
    if (ncps == 0) {
        rc = search(s, p, off, pre);
    } else {
        rc = S_FOUND;
        for (int c = 0; c <= ncps && rc == S_FOUND; c++) {
            int lo = c == 0 ? p->slo : cps[c - 1], hi = c == ncps ? p->shi : cps[c];
            int ns = part_members(s, p, lo, hi, NULL);
            if (ns == 0)
                continue;
            int *sub = am_malloc((size_t)ns * sizeof *sub);
            held_add(s, (ptrdiff_t)((size_t)ns * sizeof *sub));
            part_members(s, p, lo, hi, sub);
            rc = subsolve(s, sub, ns, lo, hi);
            held_add(s, -(ptrdiff_t)((size_t)ns * sizeof *sub));
            free(sub);
        }
    }
    for (int q = s->slo[b]; q + 1 < s->shi[b]; q++)
        s->cuts[q]++;
    free(cps);
    return rc;
}

/* A node's candidates come CAND_BATCH at a time. Until 2026-11-27 each node kept all of them
 * (16 bytes each) while its subtree was searched: depth x partition size, 341 MB for 10k
 * buffers with 8 live at a time, growing with search_budget. */
enum { CAND_BATCH = 8 };

/* The next candidates of a node after `after` (NULL: from the first) in (offset, preorder)
 * order, smallest first, into out: how many (CAND_BATCH at most). A candidate is an unplaced
 * buffer in canonical order after the last placement and below min_top (dominance: one at or
 * above some unplaced buffer's lowest top leaves a gap). The node's state is the same at every
 * call (each child undoes its placements), so the batches follow one another in the order a
 * full sort of the candidates gave. */
static int cand_batch(const srch *s, const part *p, uint64_t last_off, int last_pre,
                      uint64_t min_top, const cand *after, cand *out)
{
    int k = 0;
    for (int i = 0; i < p->nb; i++) {
        int b = p->bufs[i];
        if (is_placed(s, b))
            continue;
        uint64_t mo = s->minoff[b];
        if (mo < last_off || (mo == last_off && i < last_pre) || mo >= min_top)
            continue; /* canonical order; dominance */
        cand c = {mo, i};
        if (after && cand_cmp(&c, after) <= 0)
            continue; /* tried already */
        if (k == CAND_BATCH && cand_cmp(&c, &out[k - 1]) >= 0)
            continue;
        int j = k < CAND_BATCH ? k++ : k - 1; /* a full batch drops its largest */
        for (; j > 0 && cand_cmp(&c, &out[j - 1]) < 0; j--)
            out[j] = out[j - 1];
        out[j] = c;
    }
    return k;
}

static int search(srch *s, const part *p, uint64_t last_off, int last_pre)
{
    if (s->node_limit && s->nodes >= s->node_limit)
        return S_ABORT;
    if (s->budget && s->spent >= s->budget) {
        s->stopped_by = PLAN_BY_WORK;
        return S_TIMEOUT;
    }
    s->nodes++;
    s->spent += (uint64_t)p->nb + 1;
    if ((s->nodes & 127) == 0 && past_deadline(s)) {
        s->stopped_by = PLAN_BY_TIME;
        return S_TIMEOUT;
    }
    uint64_t min_top = UINT64_MAX;
    int any = 0;
    for (int i = 0; i < p->nb; i++) {
        int b = p->bufs[i];
        if (is_placed(s, b))
            continue;
        any = 1;
        if (s->minoff[b] + s->size[b] < min_top)
            min_top = s->minoff[b] + s->size[b];
    }
    if (!any)
        return S_FOUND;
    size_t base = s->ncst; /* this level's batch: s->cst[base, base + CAND_BATCH) */
    if (s->capcst - base < CAND_BATCH) {
        held_add(s, (ptrdiff_t)((s->capcst ? s->capcst : 1024) * sizeof *s->cst));
        s->capcst = s->capcst ? 2 * s->capcst : 1024;
        s->cst = am_realloc(s->cst, s->capcst * sizeof *s->cst);
    }
    s->ncst = base + CAND_BATCH;
    int rc = S_NOTFOUND;
    cand last = {0, 0};
    const cand *after = NULL;
    for (;;) {
        int k = cand_batch(s, p, last_off, last_pre, min_top, after, s->cst + base);
        for (int j = 0; j < k && rc == S_NOTFOUND; j++) {
            cand c = s->cst[base + j]; /* re-read: deeper levels may move the stack */
            int b = p->bufs[c.pre];
            size_t om = s->nolog, sm = s->nslog;
            place(s, b, c.off);
            if (consistent(s, p, c.off))
                rc = decompose(s, p, b, c.off, c.pre);
            unplace(s, b, om, sm);
            last = c;
            after = &last;
        }
        if (rc != S_NOTFOUND || k < CAND_BATCH)
            break;
    }
    s->ncst = base;
    return rc;
}

/* Solve one partition: the unplaced buffers bufs (reordered here) in sections [slo, shi).
 * The sort's keys and scratch are the search's own (s->tot, s->tmp): nothing reads them once
 * the partition is sorted, so one copy serves every level. */
static int subsolve(srch *s, int *bufs, int nb, int slo, int shi)
{
    uint64_t *tot = s->tot;
    for (int i = 0; i < nb; i++) {
        int b = bufs[i];
        uint64_t t = 0;
        for (int q = s->slo[b]; q < s->shi[b]; q++)
            if (s->total[q] > t)
                t = s->total[q];
        tot[b] = t;
    }
    pre_ctx pc = {s, tot};
    msort_idx(bufs, s->tmp, (size_t)nb, pre_cmp, &pc);
    part p = {bufs, nb, slo, shi};
    return search(s, &p, 0, 0);
}

/* ---- the search's tables: every live buffer as a search entry; sections; overlap and member
 * tables ---- */

static int ucmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int slo_cmp(const void *ctx, int a, int b)
{
    const srch *s = ctx;
    if (s->slo[a] != s->slo[b])
        return s->slo[a] < s->slo[b] ? -1 : 1;
    return a < b ? -1 : a > b;
}

#define PLAN_MAX_ENTRIES (64u << 20) /* overlap/member table entries the search may build */

/* The first position in ord[lo, hi) whose buffer's first section is q or later (ord sorted by
 * first section). */
static int first_from_section(const srch *s, const int *ord, int lo, int hi, int q)
{
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (s->slo[ord[mid]] < q)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Sections: the end times kept, in ends[0, return value). Keep the section at end time e only
 * when some buffer starts in [previous end time, e): otherwise it is a subset of the one
 * before. What is left are the maximal sets of buffers live together, the same whatever the
 * clock (times or event indices). ends holds every end time on entry. */
static int keep_sections(uint64_t *ends, const plan_buf *b, const int *map, int n)
{
    qsort(ends, (size_t)n, sizeof *ends, ucmp);
    uint64_t *starts = am_malloc(((size_t)n + 1) * sizeof *starts);
    for (int i = 0; i < n; i++)
        starts[i] = b[map[i]].start;
    qsort(starts, (size_t)n, sizeof *starts, ucmp);
    int ns = 0, at = 0;
    uint64_t prev = 0;
    for (int i = 0; i < n; i++) {
        if (i > 0 && ends[i] == ends[i - 1])
            continue;
        while (at < n && starts[at] < prev)
            at++;
        if (i == 0 || (at < n && starts[at] < ends[i]))
            ends[ns++] = ends[i];
        prev = ends[i];
    }
    free(starts);
    return ns;
}

/* The tables' sizes, measured before anything of their size is allocated, in O(n log n) time
 * and O(n) memory: their entries are quadratic in the buffers live together (64M for 8k
 * buffers each overlapping 4k, 256 MB and a second to build), so the budget is weighed against
 * them first (plan_best, plan_optimal). Sets the sections, each buffer's size, width and
 * section range, the buffers by (first section, index) (by_slo), *members (section
 * memberships), *pairs (overlap entries, two a pair) and *peak (bytes, the largest section
 * total). 0, or -1 when the tables would be too large. */
static int srch_measure(srch *s, const plan_buf *b, const int *map, int n, size_t *members,
                        size_t *pairs, uint64_t *peak)
{
    uint64_t *ends = am_malloc(((size_t)n + 1) * sizeof *ends);
    for (int i = 0; i < n; i++)
        ends[i] = b[map[i]].end;
    int ns = keep_sections(ends, b, map, n);
    s->n = n;
    s->nsec = ns;
    s->size = am_malloc(((size_t)n + 1) * sizeof *s->size);
    s->width = am_malloc(((size_t)n + 1) * sizeof *s->width);
    s->slo = am_malloc(((size_t)n + 1) * sizeof *s->slo);
    s->shi = am_malloc(((size_t)n + 1) * sizeof *s->shi);
    *members = 0;
    *pairs = 0;
    int timed = 1; /* trace-time widths only when every buffer has one (plan_timed) */
    for (int i = 0; i < n; i++)
        if (!b[map[i]].timed)
            timed = 0;
    for (int i = 0; i < n; i++) {
        const plan_buf *x = &b[map[i]];
        s->size[i] = x->size;
        s->width[i] = plan_lifetime(x, timed);
        int lo = 0, hi = ns; /* first section whose end time is > start */
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (ends[mid] > x->start)
                hi = mid;
            else
                lo = mid + 1;
        }
        s->slo[i] = lo;
        hi = ns;
        while (lo < hi) { /* past the last section ending at or before x->end */
            int mid = (lo + hi) / 2;
            if (ends[mid] > x->end)
                hi = mid;
            else
                lo = mid + 1;
        }
        s->shi[i] = lo;
        *members += (size_t)(s->shi[i] - s->slo[i]);
    }
    free(ends);
    if (*members > PLAN_MAX_ENTRIES)
        return -1;
    /* the largest section total, from a difference array (wrapping as the totals' sums would) */
    uint64_t *diff = am_calloc((size_t)ns + 2, sizeof *diff);
    for (int i = 0; i < n; i++) {
        diff[s->slo[i]] += s->size[i];
        diff[s->shi[i]] -= s->size[i];
    }
    uint64_t run = 0;
    *peak = 0;
    for (int q = 0; q < ns; q++) {
        run += diff[q];
        *peak = AM_MAX(*peak, run);
    }
    free(diff);
    /* overlaps: i and j share a section iff their section ranges intersect. Sorted by
     * (slo, index), each pair is met once, from the earlier one: the buffers after it whose
     * first section is before its last, a run found by bisection. */
    int *ord = am_malloc(((size_t)n + 1) * sizeof *ord);
    int *tmp = am_malloc(((size_t)n + 1) * sizeof *tmp);
    for (int i = 0; i < n; i++)
        ord[i] = i;
    msort_idx(ord, tmp, (size_t)n, slo_cmp, s);
    free(tmp);
    s->by_slo = ord; /* kept: solve_all reads each partition's members off it */
    for (int a = 0; a < n; a++) {
        int end = first_from_section(s, ord, a + 1, n, s->shi[ord[a]]);
        if ((*pairs += 2 * (size_t)(end - a - 1)) > PLAN_MAX_ENTRIES)
            return -1;
    }
    return 0;
}

/* (end, index) descending: place() walks each list from its end, in (end, index) order. */
static int shi_desc_cmp(const void *ctx, int a, int b)
{
    const srch *s = ctx;
    if (s->shi[a] != s->shi[b])
        return s->shi[a] > s->shi[b] ? -1 : 1;
    return a > b ? -1 : a < b;
}

/* Each section's members into out (laid out as mem_at says), in the order of order, a
 * permutation of the buffers. */
static void fill_members(const srch *s, const int *order, int *out)
{
    int *fill = am_malloc(((size_t)s->nsec + 1) * sizeof *fill);
    memcpy(fill, s->mem_at, (size_t)s->nsec * sizeof *fill);
    for (int a = 0; a < s->n; a++)
        for (int q = s->slo[order[a]]; q < s->shi[order[a]]; q++)
            out[fill[q]++] = order[a];
    free(fill);
}

/* Builds the tables srch_measure measured: section members and overlaps (CSR), and the
 * per-section and per-buffer state of the search. */
static void srch_fill(srch *s, size_t members, size_t pairs)
{
    int n = s->n, ns = s->nsec;
    const int *ord = s->by_slo;
    /* section members (CSR) */
    s->mem_at = am_calloc((size_t)ns + 2, sizeof *s->mem_at);
    s->mem = am_malloc((members + 1) * sizeof *s->mem);
    for (int i = 0; i < n; i++)
        for (int q = s->slo[i]; q < s->shi[i]; q++)
            s->mem_at[q + 1]++;
    for (int q = 0; q < ns; q++)
        s->mem_at[q + 1] += s->mem_at[q];
    /* by start: buffers in by_slo order; by end: the buffers by (end, index) descending */
    s->mem_end = am_malloc((members + 1) * sizeof *s->mem_end);
    fill_members(s, ord, s->mem);
    int *by_end = am_malloc(((size_t)n + 1) * sizeof *by_end);
    int *tmp = am_malloc(((size_t)n + 1) * sizeof *tmp);
    for (int i = 0; i < n; i++)
        by_end[i] = i;
    msort_idx(by_end, tmp, (size_t)n, shi_desc_cmp, s);
    fill_members(s, by_end, s->mem_end);
    free(tmp);
    free(by_end);
    /* overlaps (CSR), each pair met once from the earlier one in by_slo order */
    s->ovl_at = am_calloc((size_t)n + 2, sizeof *s->ovl_at);
    for (int a = 0; a < n; a++) {
        int i = ord[a];
        for (int c = a + 1; c < n && s->slo[ord[c]] < s->shi[i]; c++) {
            s->ovl_at[i + 1]++;
            s->ovl_at[ord[c] + 1]++;
        }
    }
    for (int i = 0; i < n; i++)
        s->ovl_at[i + 1] += s->ovl_at[i];
    s->ovl = am_malloc((pairs + 1) * sizeof *s->ovl);
    int *at = am_malloc(((size_t)n + 1) * sizeof *at);
    memcpy(at, s->ovl_at, (size_t)n * sizeof *at);
    for (int a = 0; a < n; a++) {
        int i = ord[a];
        for (int c = a + 1; c < n && s->slo[ord[c]] < s->shi[i]; c++) {
            int j = ord[c];
            s->ovl[at[i]++] = j;
            s->ovl[at[j]++] = i;
        }
    }
    free(at);
    s->floor = am_calloc((size_t)ns + 1, sizeof *s->floor);
    s->total = am_calloc((size_t)ns + 1, sizeof *s->total);
    s->cuts = am_calloc((size_t)ns + 1, sizeof *s->cuts);
    s->cover = am_calloc((size_t)ns + 1, sizeof *s->cover);
    /* Every witness starts as a member of its section, so place() need not check that (until
     * 2026-11-28 they started at buffer 0, a member or not); an empty section is never
     * re-checked (no raised buffer spans it). */
    s->wit = am_calloc((size_t)ns + 1, sizeof *s->wit);
    for (int q = 0; q < ns; q++)
        if (s->mem_at[q] < s->mem_at[q + 1])
            s->wit[q] = s->mem[s->mem_at[q]];
    for (int i = 0; i < n; i++) {
        for (int q = s->slo[i]; q < s->shi[i]; q++)
            s->total[q] += s->size[i];
        for (int q = s->slo[i]; q + 1 < s->shi[i]; q++)
            s->cuts[q]++;
    }
    s->minoff = am_calloc((size_t)n + 1, sizeof *s->minoff);
    s->sol = am_calloc((size_t)n + 1, sizeof *s->sol);
    s->tot = am_malloc(((size_t)n + 1) * sizeof *s->tot);
    s->tmp = am_malloc(((size_t)n + 1) * sizeof *s->tmp);
}

static size_t last_held; /* plan_last_search_held */
static uint64_t last_looked; /* plan_last_search_looked */

size_t plan_last_search_held(void) { return last_held; }

uint64_t plan_last_search_looked(void) { return last_looked; }

static void srch_free(srch *s)
{
    last_held = s->held_peak;
    last_looked = s->looked;
    free(s->size), free(s->width), free(s->slo), free(s->shi), free(s->ovl_at), free(s->ovl);
    free(s->mem_at), free(s->mem), free(s->mem_end), free(s->floor), free(s->total);
    free(s->cuts);
    free(s->minoff), free(s->sol), free(s->cover), free(s->wit);
    free(s->by_slo);
    free(s->olog), free(s->slog), free(s->cst), free(s->tot), free(s->tmp);
}

/* One full attempt with the current heuristic and node limit over the static partitions. */
static int solve_all(srch *s)
{
    int *bufs = am_malloc(((size_t)s->n + 1) * sizeof *bufs);
    int rc = S_FOUND;
    int lo = 0, at = 0; /* at: the first buffer in by_slo not yet in a partition */
    for (int q = 0; q < s->nsec && rc == S_FOUND; q++) {
        if (q + 1 < s->nsec && s->cuts[q] > 0)
            continue;
        /* sections [lo, q] form one partition: the buffers starting in them, a run of by_slo
         * (their order does not matter: subsolve sorts them by a total order). Until
         * 2026-11-27 every partition scanned every buffer, O(n) each: a trace of 20k short
         * independent parts took 14 s for a search of 2.5M work. */
        int nb = 0;
        for (; at < s->n && s->slo[s->by_slo[at]] <= q; at++)
            bufs[nb++] = s->by_slo[at];
        if (nb)
            rc = subsolve(s, bufs, nb, lo, q + 1);
        lo = q + 1;
    }
    free(bufs);
    return rc;
}

/* The search over one buffer set, its tables built once for every height tried (they do not
 * depend on the height, and a search leaves them as it found them). */
typedef struct opt {
    srch s;
    int *map;       /* search entry -> index in the caller's array */
    int m;          /* live buffers */
    uint64_t maxsz; /* bytes of the largest */
    uint64_t peak;  /* bytes: the largest section total (no lower height exists) */
    size_t members, pairs; /* table entries: section memberships, overlaps (two a pair) */
    int filled;     /* the tables are built (opt_solve builds them when a search needs them) */
    uint64_t built; /* work of building the tables */
} opt;

/* 0, or -2 when the set is too large for the search's tables (o is freed either way by
 * opt_free). Measures the tables without building them: what they cost is known before
 * anything of their size is allocated. */
static int opt_prepare(opt *o, const plan_buf *b, size_t n)
{
    memset(o, 0, sizeof *o);
    if (n > (size_t)(1 << 28))
        return -2;
    o->map = am_malloc((n + 1) * sizeof *o->map);
    for (size_t i = 0; i < n; i++)
        if (live(&b[i])) {
            o->map[o->m++] = (int)i;
            o->maxsz = AM_MAX(o->maxsz, b[i].size);
        }
    if (srch_measure(&o->s, b, o->map, o->m, &o->members, &o->pairs, &o->peak) != 0)
        return -2;
    /* building the tables is work too: a buffer, a section membership, an overlap each */
    o->built = (uint64_t)o->m + (uint64_t)o->members + (uint64_t)o->pairs;
    return 0;
}

/* 1 when no placement of height capacity exists on sight of the sizes alone: a buffer or a
 * section's total is larger (no tables needed). */
static int opt_refutes(const opt *o, uint64_t capacity)
{
    return o->maxsz > capacity || o->peak > capacity;
}

/* 1 when a search for height capacity with a budget of work (0: none) would stop before its
 * first node because the tables alone use the budget up (search() checks the budget first),
 * and the sizes do not settle it without them. Every search is charged o->built for the
 * tables; the callers then skip the search, or end it as timed out, without building them. */
static int opt_unpaid(const opt *o, uint64_t capacity, uint64_t work)
{
    return work && o->built >= work && !opt_refutes(o, capacity);
}

static void opt_free(opt *o)
{
    srch_free(&o->s);
    free(o->map);
}

/* A placement of height at most capacity: 1 found (offsets written, *height set), 0 none
 * exists, -1 the budget ran out first. The work counts from o->built (the search is charged
 * for the tables, whether or not it builds them); *spent is where it ended. */
static int opt_solve(opt *o, plan_buf *b, size_t n, uint64_t capacity, plan_budget lim,
                     uint64_t *height, uint64_t *spent)
{
    srch *s = &o->s;
    int m = o->m;
    s->cap = capacity;
    s->spent = o->built;
    s->have_deadline = 0;
    s->stopped_by = 0;
    int rc = S_NOTFOUND;
    if (opt_refutes(o, capacity))
        goto out;
    if (opt_unpaid(o, capacity, lim.work)) {
        /* the same outcome as the search, without building the tables it would not read */
        s->stopped_by = PLAN_BY_WORK;
        rc = S_TIMEOUT;
        goto out;
    }
    if (!o->filled) {
        srch_fill(s, o->members, o->pairs);
        o->filled = 1;
    }
    s->budget = lim.work;
    if (lim.seconds > 0) {
        double dl = now_s() + lim.seconds;
        s->deadline.tv_sec = (time_t)dl;
        s->deadline.tv_nsec = (long)((dl - (double)(time_t)dl) * 1e9);
        s->have_deadline = 1;
    }
    /* MiniMalloc's three preorders (lifetime width W, area A, section total T), then the same
     * with the clock-free width C (sections spanned) and area B (size x sections): widths in
     * event indices order buffers differently from widths in time, and neither set alone
     * solves every challenging instance in both clocks. */
    static const char *const heur[] = {"WAT", "TAW", "TWA", "CBT", "TBC", "TCB"};
    for (uint64_t limit = (uint64_t)m + 1;; limit *= 2) {
        int aborted = 0;
        for (size_t h = 0; h < AM_ARRAY_LEN(heur); h++) {
            s->heur = heur[h];
            s->node_limit = limit;
            s->nodes = 0;
            rc = solve_all(s);
            if (rc != S_ABORT)
                goto done;
            aborted = 1;
        }
        /* each limit read once: both bits when both ran out */
        int by = (past_deadline(s) ? PLAN_BY_TIME : 0) |
                 (s->budget && s->spent >= s->budget ? PLAN_BY_WORK : 0);
        if (by) {
            s->stopped_by = by;
            rc = S_TIMEOUT;
            goto done;
        }
        if (!aborted || limit > UINT64_MAX / 4)
            break;
    }
done:
    if (rc == S_FOUND) {
        /* never report a placement that overlaps: verify on a copy first */
        plan_buf *c = am_malloc((n + 1) * sizeof *c);
        memcpy(c, b, n * sizeof *c);
        for (size_t i = 0; i < n; i++)
            c[i].offset = 0;
        for (int i = 0; i < m; i++)
            c[o->map[i]].offset = s->sol[i];
        char why[256];
        if (plan_verify(c, n, capacity, why, sizeof why) != 0) {
            fprintf(stderr, "plan_optimal: internal error, rejected placement: %s\n", why);
            rc = S_TIMEOUT;
        } else {
            memcpy(b, c, n * sizeof *b);
            if (height)
                *height = plan_height(b, n);
        }
        free(c);
    }
out:
    if (spent)
        *spent = s->spent;
    return rc == S_FOUND ? 1 : rc == S_NOTFOUND ? 0 : -1;
}

int plan_optimal(plan_buf *b, size_t n, uint64_t capacity, plan_budget lim, uint64_t *height,
                 uint64_t *spent)
{
    if (spent)
        *spent = 0;
    opt o;
    if (opt_prepare(&o, b, n) != 0) {
        opt_free(&o);
        return -2;
    }
    /* the tables count against this search's budget; a budget they would use up is not spent
     * on them (until 2026-11-27 they were built and charged all the same, past the budget) */
    int rc = -1;
    if (!opt_unpaid(&o, capacity, lim.work))
        rc = opt_solve(&o, b, n, capacity, lim, height, spent);
    opt_free(&o);
    return rc;
}

void plan_best(plan_buf *b, size_t n, uint64_t capacity, plan_budget lim, plan_result *r)
{
    memset(r, 0, sizeof *r);
    double t0 = now_s();
    r->peak_live = plan_peak_live(b, n);
    r->greedy_height = r->height = plan_greedy(b, n);
    /* Pushed-down placements have heights that are sums of sizes: multiples of their gcd. */
    uint64_t g = 0;
    for (size_t i = 0; i < n; i++)
        if (live(&b[i]))
            g = am_gcd_u64(b[i].size, g);
    if (g == 0)
        g = 1;
    uint64_t lo = r->peak_live; /* every height below lo is impossible (or given up on) */
    int first = 1, tried_cap = 0, built = 0;
    opt o;
    for (;;) {
        lo = am_round_up(lo, g);
        if (lo >= r->height)
            break;
        if (!built) { /* the search's tables: measured once, built once (by the first search
                       * that can pay for them), they serve every height */
            built = 1;
            if (opt_prepare(&o, b, n) != 0) { /* too large whatever the height: stop */
                r->searches++;
                r->timed_out = 1;
                break;
            }
        }
        double left = lim.seconds > 0 ? lim.seconds - (now_s() - t0) : 0;
        /* a search may overspend its share: by its tables, and by the node it stops after */
        uint64_t wleft = lim.work > r->work ? lim.work - r->work : 0;
        if ((lim.seconds > 0 && left <= 0.001) || (lim.work && wleft == 0)) {
            r->timed_out = 1;
            r->stopped_by |= lim.seconds > 0 && left <= 0.001 ? PLAN_BY_TIME : PLAN_BY_WORK;
            break;
        }
        /* The bound itself first (most sets are tight), with a quarter of the budget; then
         * bisection in steps of g, sharing what is left among the probes still expected. */
        uint64_t cap = lo, steps = (r->height - lo) / g;
        int share = 4;
        if (!first && !tried_cap && capacity < r->height && capacity >= lo) {
            cap = am_round_down(capacity, g); /* fitting the device comes next */
            share = 2;
            tried_cap = 1;
        } else if (!first) {
            cap = lo + (steps - 1) / 2 * g;
            share = 1;
            while (steps >>= 1)
                share++;
        }
        if (opt_unpaid(&o, cap, wleft)) { /* wleft > 0 here when lim.work is set, else 0 */
            /* What is left of the budget does not pay for the tables: this search would stop
             * before its first node and end the searches, so it is not run and its tables are
             * not built (they are quadratic in the buffers live together). Until 2026-11-27 it
             * was run, building them and charged for them past the budget: 64M visits and
             * 256 MB for a budget of 1000 on 8k buffers each overlapping 4k. */
            r->searches++;
            r->timed_out = 1;
            r->stopped_by |= PLAN_BY_WORK;
            break;
        }
        plan_budget each = {lim.work ? AM_MAX(wleft / (uint64_t)share, 1) : 0,
                            lim.seconds > 0 ? left / share : 0};
        first = 0;
        uint64_t h = 0, spent = 0;
        /* Each search is charged for the tables as if it had built them, as each did when the
         * tables were not kept: the budget buys what it bought then, and plans stay the same.
         * It writes b's offsets only when it finds a placement. */
        int rc = opt_solve(&o, b, n, cap, each, &h, &spent);
        r->work += spent;
        r->searches++;
        if (rc == 1) {
            r->height = h;
        } else {
            if (rc < 0) {
                r->timed_out = 1;
                r->stopped_by |= o.s.stopped_by;
            }
            lo = cap + 1;
        }
    }
    r->proven_optimal = !r->timed_out || r->height <= r->peak_live;
    if (built)
        opt_free(&o);
}
