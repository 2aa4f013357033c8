/* trace_pickle.c - PyTorch memory snapshots as traces (allocators.md section 4).
 *
 * The file is read whole by the restricted unpickler (pickle.h) and turned into an array of
 * events for one device (t->opts.device):
 *
 *  1. Declarations: one TR_SEGMENT_ALLOC with declared = 1 for every segment the recording
 *     shows (dump-time `segments`, and the address ranges of `segment_*` trace entries, once
 *     each: declare_entries), so that the engine can note them for recorded placement
 *     (mem_note_recorded_segment).
 *  2. Prologue: the state at the start of the trace, recovered by walking the trace backwards
 *     from the dump-time segments (undo alloc: the block becomes free and merges; undo
 *     free_requested: pending -> allocated; undo free_completed: carve the block back out of
 *     the free space, with the request size rounded to 512 B (at most to the free space's
 *     end), and in the large pool absorb a gap of at most 1 MiB up to the next used block; the
 *     bytes past the request are a guess an earlier entry at an address inside them takes
 *     back (release_guess); undo segment_alloc / segment_free: drop / add the
 *     segment; undo segment_map: cut the free range out of its segment, undo segment_unmap:
 *     add it, merged with the segments it touches on its stream, as PyTorch's viewer does).
 *     Segments existing at the start are recreated with allocations the caching allocator
 *     serves exactly: per segment (address order) one allocation that creates it
 *     (512 B for a small segment, the segment size for a large one; the hint is the segment
 *     address) and is freed at once, then allocations tiling it in address order (one per
 *     block; small-segment blocks in pieces of at most 1 MiB so the small pool serves them);
 *     only the segment being tiled has free space, so best fit takes exactly the next piece.
 *     When every segment is tiled, a live block whose recorded request is smaller than the
 *     block is freed and requested again at that size (request_recorded_sizes), the blocks free
 *     at the start are freed (their pieces merge) and the pending ones get their
 *     free_requested. Live blocks keep their recorded addresses.
 *     Every segment of the start state is recreated, entirely free ones too: the trace does not
 *     allocate them, so they existed (cached) before it. The shared snapshots need this: they
 *     start after the model was built, with cached free segments that best fit picks.
 *     All of it has line 0: the engine takes no peak or metric inside it, only at its end
 *     (engine.c, "the start-state prologue"), since the tiling is no state the recording had.
 *     Limits: with max_split_size or roundup_power2_divisions set the tiling may not
 *     reproduce the state exactly; free gaps <= 1 MiB inside large segments cannot be tiled.
 *     A snapshot amsim exported from a run with a prologue has that prologue's entries as
 *     `amsim_start_traces` (export_snapshot.c): then they are the prologue (build_start) and
 *     nothing is walked back or tiled, since its segments hold the policy's blocks, whose
 *     tiling is not the requests that made them (a BFC chunk is larger than its request).
 *  3. The trace: alloc -> TR_ALLOC (fresh id, recorded address, requested size, the name its
 *     frames give: frames_name), free_requested and free_completed -> TR_FREE_REQUESTED /
 *     TR_FREE_COMPLETED of the live allocation at that address (frees of unknown addresses are
 *     skipped and counted), segment_alloc/_map -> TR_SEGMENT_ALLOC, segment_free/_unmap ->
 *     TR_SEGMENT_FREE, oom -> TR_OOM_RECORDED, named from its frames as an alloc is (the
 *     failing request's stack; until 2026-11-28 no name). A live start-state block's prologue
 *     allocation is named from its frames alike (until 2026-11-28 frames were skipped: no
 *     name).
 *
 * Streams: CUDA stream handles become small integers in order of first appearance (trace
 * entries first, then segments); stream 0 stays 0. A snapshot naming more than
 * SIM_MAX_TRACE_STREAMS handles, 0 included, is refused at the first one too many (the engine
 * refuses the event naming the 1025th distinct stream number; streamset.h): so the lookup stays
 * a scan of at most 1024 handles (until 2026-11-27 every new handle grew the list, and a
 * snapshot of N distinct handles took N^2 / 2 comparisons). Times: time_us relative to the first
 * entry that has one, in ps (absolute microseconds since the epoch would overflow 64-bit ps), or
 * to amsim_time_origin_us when an amsim export has it (read_origin), plus an amsim export's
 * amsim_sub_us_ps (the picoseconds past time_us; read_sub_us); prologue events have time 0.
 * time_us is an int (PyTorch's) or a float with a whole value; anything else is refused, as is
 * a 'stream' or a segment's 'device' that is no int (read_time_us, read_stream). Event
 * positions (`line`) are 1-based trace entry numbers; 0 for prologue events; the run's end
 * (amsim_end_ps, a sync) one past the last entry. Messages on bad
 * input: "PATH: byte N: ..." from the unpickler, else "PATH: device_traces[D][I]: ..." naming
 * the offending entry. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../models/btree.h"
#include "../models/recpool.h"
#include "pickle.h"
#include "streamset.h"
#include "units.h"
#include "trace_impl.h"

#define TP_MIN_BLOCK 512ULL
#define TP_SMALL_SIZE (1ULL << 20)
#define TP_SMALL_SEGMENT (2ULL << 20)

/* A_OOM_FREE_*: amsim's free of a prologue's failed request; A_RECOVERY_*: where a recovery in
 * amsim's prologue moved a buffer (export_snapshot.c; start list only, build_start) */
enum { A_ALLOC, A_FREE_REQ, A_FREE_DONE, A_SEG_ALLOC, A_SEG_FREE, A_SEG_MAP, A_SEG_UNMAP, A_OOM,
       A_OOM_FREE_REQ, A_OOM_FREE_DONE, A_RECOVERY_FREE, A_RECOVERY_ALLOC, A_MARK, A_OTHER };
enum { S_FREE, S_ALLOC, S_PENDING };

typedef struct tp_entry {
    int action;
    int skipped; /* counted with the skipped rows: it gives no event (build_trace, build_start) */
    uint64_t addr, size; /* A_OOM_FREE_*: addr is the oom entry's index in the start list */
    uint32_t stream;
    uint32_t name; /* A_ALLOC, A_OOM: its name's offset in the names (tp_names), 0: none */
    am_ps time;
    uint64_t id; /* an oom of the start list: its request's id until freed, else TP_NO_ID */
    uint64_t from; /* A_RECOVERY_ALLOC: where the buffer was ('from'), else TR_NO_ADDR */
} tp_entry;

#define TP_NO_ID UINT64_MAX

typedef struct tp_block {
    uint64_t addr, size, requested;
    int state;
    uint32_t name; /* a live block of the dump's segments: its name (tp_names), 0: none */
    /* The bytes at the block's end that undo() only guessed were part of it (past the request:
     * the rounding to 512 B and the unsplit remainder of at most 1 MiB it absorbs when carving
     * a free_completed block back out; until 2026-11-27 the rounding was taken as certain);
     * release_guess gives them back when an earlier entry shows they were not. 0: exact. */
    uint64_t guess;
} tp_block;

typedef struct tp_seg {
    uint64_t addr, size;
    uint32_t stream;
    int small;
} tp_seg;

/* The state the backward walk changes: segments and blocks, each in a B+-tree by address
 * (btree.h, key (address, 0)), their records from pools. Segments never overlap (read_segments
 * refuses it, undo ignores an entry that would make it), and every segment of non-zero size is
 * tiled by its blocks, so one tree holds every segment's blocks: the block holding an address
 * is the last one starting at or before it, and cutting or joining segments (expandable
 * segments) moves no block. Every step is O(log n). Until 2026-11-27 each segment held its
 * blocks in a sorted array and the segments were one too: each insertion or removal moved the
 * entries after it, and a snapshot of n entries took time in n^2 (80,000 entries: 8.4 s). */
typedef struct tp_state {
    bt_tree segs, blocks;
    recpool seg_pool, blk_pool;
} tp_state;

/* A block of the start state as the prologue tiles it: its segment, and the id of its first
 * piece's request. */
typedef struct tp_tile {
    const tp_seg *g;
    const tp_block *b;
    uint64_t id;
} tp_tile;

typedef struct tp_impl {
    tr_event *ev;
    size_t n, cap, next;
    char *names; /* the events' names point into it (tp_names) */
} tp_impl;

/* ---- small helpers ---- */

static void emit(tp_impl *im, const tr_event *e)
{
    if (im->n == im->cap) {
        im->cap = im->cap ? 2 * im->cap : 1024;
        im->ev = am_realloc(im->ev, im->cap * sizeof *im->ev);
    }
    im->ev[im->n++] = *e;
}

/* A block's size from a request: at least 512 B, a multiple of 512, saturated at 2^64 - 1 (a
 * request within 511 bytes of 2^64 wrapped to 0 until 2026-11-27). */
static uint64_t round512(uint64_t n) { return n < TP_MIN_BLOCK ? TP_MIN_BLOCK : am_round_up_sat(n, TP_MIN_BLOCK); }

/* Streams: handle -> small integer by first appearance. */
typedef struct tp_streams {
    int64_t *h; /* the handles besides 0, in order of first appearance */
    size_t n;
    int zero;   /* handle 0 seen */
} tp_streams;

/* The small integer of handle h into *id: 0, or -1 when h is new and SIM_MAX_TRACE_STREAMS
 * handles, 0 included once seen, are known already (the caller names the entry). Until
 * 2026-11-27 handle 0 was not counted: stream 0 and 1024 others passed the reader, and the
 * engine refused the trace at an entry number shown as a line, naming the renumbered stream,
 * while `convert` wrote a trace that `check` refused. */
static int stream_id(tp_streams *st, int64_t h, uint32_t *id)
{
    *id = 0;
    if (h == 0) {
        if (!st->zero && st->n == SIM_MAX_TRACE_STREAMS)
            return -1;
        st->zero = 1;
        return 0;
    }
    for (size_t i = 0; i < st->n; i++)
        if (st->h[i] == h) {
            *id = (uint32_t)i + 1;
            return 0;
        }
    if (st->n + (size_t)st->zero == SIM_MAX_TRACE_STREAMS)
        return -1;
    if (!st->h)
        st->h = am_malloc(SIM_MAX_TRACE_STREAMS * sizeof *st->h);
    st->h[st->n++] = h;
    *id = (uint32_t)st->n;
    return 0;
}

/* The refusal of a handle past SIM_MAX_TRACE_STREAMS; what names it: "device_traces[0][7]". */
static int too_many_streams(const trace *t, const char *what, int64_t h, am_error *err)
{
    return am_fail(err, AM_EINPUT, "%s: %s: more than %d distinct streams: stream %lld would be "
                   "the %dth (a trace names at most %d stream numbers; traces/FORMAT.md, "
                   "Limits)", t->path, what, SIM_MAX_TRACE_STREAMS, (long long)h,
                   SIM_MAX_TRACE_STREAMS + 1, SIM_MAX_TRACE_STREAMS);
}

/* addr -> live allocation id: open addressing with tombstones, sized for every insert. */
typedef struct tp_live { uint64_t *key, *val; size_t mask; } tp_live;
#define TP_EMPTY UINT64_MAX
#define TP_TOMB (UINT64_MAX - 1)

static void live_init(tp_live *l, size_t inserts)
{
    size_t cap = 16;
    while (cap < 2 * inserts + 16)
        cap *= 2;
    l->key = am_malloc(cap * sizeof *l->key);
    l->val = am_malloc(cap * sizeof *l->val);
    for (size_t i = 0; i < cap; i++)
        l->key[i] = TP_EMPTY;
    l->mask = cap - 1;
}

static size_t live_hash(uint64_t a) { return (size_t)((a >> 9) * 0x9E3779B97F4A7C15ULL >> 20); }

static void live_put(tp_live *l, uint64_t addr, uint64_t id)
{
    size_t i = live_hash(addr) & l->mask;
    while (l->key[i] != TP_EMPTY && l->key[i] != TP_TOMB && l->key[i] != addr)
        i = (i + 1) & l->mask;
    l->key[i] = addr;
    l->val[i] = id;
}

/* Remove and return the id at addr, or UINT64_MAX. */
static uint64_t live_get(tp_live *l, uint64_t addr, int take)
{
    size_t i = live_hash(addr) & l->mask;
    while (l->key[i] != TP_EMPTY) {
        if (l->key[i] == addr) {
            if (take)
                l->key[i] = TP_TOMB;
            return l->val[i];
        }
        i = (i + 1) & l->mask;
    }
    return UINT64_MAX;
}

/* The address ranges of the blocks live or pending in the forward pass, by address (an
 * alloc's request, at least 1 byte; a start-state block's certain bytes): a caching allocator
 * never hands out an address inside one, so an alloc that overlaps one is refused
 * (until 2026-11-28 it was accepted, and both later frees went to the newest buffer). */
typedef struct tp_ranges { bt_tree t; recpool ends; } tp_ranges;

static void ranges_init(tp_ranges *r)
{
    memset(&r->t, 0, sizeof r->t);
    recpool_init(&r->ends, sizeof(uint64_t));
}

static void ranges_free(tp_ranges *r)
{
    bt_destroy(&r->t);
    recpool_destroy(&r->ends);
}

/* The range at addr is gone (freed, or moved by a recovery). */
static void ranges_drop(tp_ranges *r, uint64_t addr)
{
    uint64_t *end = bt_remove(&r->t, addr, 0);
    if (end)
        recpool_put(&r->ends, end);
}

static void ranges_add(tp_ranges *r, uint64_t addr, uint64_t size)
{
    ranges_drop(r, addr);
    uint64_t *end = recpool_take(&r->ends);
    *end = addr + (size ? size : 1); /* ends by 2^64 - 1: entry_range_bad */
    bt_insert(&r->t, addr, 0, end);
}

/* The start of a range that [addr, addr + size) overlaps, or UINT64_MAX. The range just below
 * the last byte is the only one to look at because no two stored ranges overlap: the prologue's
 * lie inside its blocks, which tile segments that never overlap (read_segments), and the start
 * list's allocs and placements (start_overlap) and the trace's allocs are refused when they
 * would overlap one. */
static uint64_t ranges_overlap(const tp_ranges *r, uint64_t addr, uint64_t size)
{
    bt_iter it;
    uint64_t last = addr + (size ? size - 1 : 0);
    const uint64_t *end = bt_floor(&r->t, last, 0, &it);
    return end && *end > addr ? bt_k1(&it) : UINT64_MAX;
}

/* ---- the state walked backwards ---- */

uint64_t trace_pickle_steps;

/* One unit of the walk's work: an operation on a tree (O(log n)) or a record visited. */
#define TP_STEP() (trace_pickle_steps++)

static void state_init(tp_state *s)
{
    memset(s, 0, sizeof *s);
    recpool_init(&s->seg_pool, sizeof(tp_seg));
    recpool_init(&s->blk_pool, sizeof(tp_block));
}

static void state_free(tp_state *s)
{
    bt_destroy(&s->segs);
    bt_destroy(&s->blocks);
    recpool_destroy(&s->seg_pool);
    recpool_destroy(&s->blk_pool);
}

/* The record of the last key <= addr in t (keys are (address, 0)), or NULL. */
static void *floor_of(const bt_tree *t, uint64_t addr)
{
    TP_STEP();
    return bt_floor(t, addr, 0, NULL);
}

/* The record of the first key > addr in t, or NULL. */
static void *after(const bt_tree *t, uint64_t addr)
{
    TP_STEP();
    return bt_lower_bound(t, addr, 1, NULL);
}

static tp_seg *seg_find(const tp_state *s, uint64_t addr)
{
    tp_seg *g = floor_of(&s->segs, addr);
    return g && addr - g->addr < g->size ? g : NULL;
}

/* A segment that [addr, addr + size) would overlap, or share its address with (a segment of
 * size 0 overlaps the one it lies strictly inside), or NULL. */
static tp_seg *seg_overlap(const tp_state *s, uint64_t addr, uint64_t size)
{
    tp_seg *p = floor_of(&s->segs, size ? addr + (size - 1) : addr);
    if (!p)
        return NULL;
    return p->addr >= addr || p->addr + p->size > addr ? p : NULL;
}

/* A new segment; the caller knows it overlaps none (seg_overlap). */
static tp_seg *seg_new(tp_state *s, uint64_t addr, uint64_t size, uint32_t stream, int small)
{
    tp_seg *g = recpool_take(&s->seg_pool);
    *g = (tp_seg){addr, size, stream, small};
    TP_STEP();
    bt_insert(&s->segs, addr, 0, g);
    return g;
}

static void seg_drop(tp_state *s, tp_seg *g)
{
    TP_STEP();
    bt_remove(&s->segs, g->addr, 0);
    recpool_put(&s->seg_pool, g);
}

static tp_block *blk_new(tp_state *s, uint64_t addr, uint64_t size, uint64_t requested,
                         int state, uint64_t guess)
{
    tp_block *b = recpool_take(&s->blk_pool);
    *b = (tp_block){.addr = addr, .size = size, .requested = requested, .state = state,
                    .guess = guess};
    TP_STEP();
    bt_insert(&s->blocks, addr, 0, b);
    return b;
}

static void blk_drop(tp_state *s, tp_block *b)
{
    TP_STEP();
    bt_remove(&s->blocks, b->addr, 0);
    recpool_put(&s->blk_pool, b);
}

/* The block of segment g (found by seg_find) containing addr: segments are tiled. */
static tp_block *blk_find(const tp_state *s, const tp_seg *g, uint64_t addr)
{
    tp_block *b = floor_of(&s->blocks, addr);
    return b && b->addr >= g->addr && addr - b->addr < b->size ? b : NULL;
}

/* The block after / before b inside its segment g, or NULL. */
static tp_block *blk_next(const tp_state *s, const tp_seg *g, const tp_block *b)
{
    tp_block *n = after(&s->blocks, b->addr);
    return n && n->addr - g->addr < g->size ? n : NULL;
}

static tp_block *blk_prev(const tp_state *s, const tp_seg *g, const tp_block *b)
{
    return b->addr > g->addr ? floor_of(&s->blocks, b->addr - 1) : NULL;
}

/* Make block b free and merge it with free neighbours. */
static void blk_free_merge(tp_state *s, const tp_seg *g, tp_block *b)
{
    b->state = S_FREE;
    b->requested = 0;
    b->guess = 0;
    b->name = 0;
    tp_block *n = blk_next(s, g, b);
    if (n && n->state == S_FREE) {
        b->size += n->size;
        blk_drop(s, n);
    }
    tp_block *p = blk_prev(s, g, b);
    if (p && p->state == S_FREE) {
        p->size += b->size;
        blk_drop(s, b);
    }
}

/* Expandable segments (segment_map / segment_unmap): PyTorch maps and unmaps pieces of one
 * growing segment, and its viewer walks the trace back merging a piece with the segments it
 * touches on the same stream (MemoryViz.js, map_segment / unmap_segment). amsim writes the
 * device takes of a heap whose blocks span them the same way (export_snapshot.c). */

/* Remove the free range [a, e) inside free block f of segment g: g keeps what lies below it, a
 * new segment what lies above; an empty part goes. The blocks stay where they are. */
static void seg_cut(tp_state *s, tp_seg *g, tp_block *f, uint64_t a, uint64_t e)
{
    uint64_t fend = f->addr + f->size;
    tp_seg hi = {e, g->addr + g->size - e, g->stream, g->small};
    if (f->addr < a) /* first the part below, so that a range of 0 bytes at f's start ... */
        f->size = a - f->addr;
    else
        blk_drop(s, f);
    if (fend > e) /* ... can give the part above f's address */
        blk_new(s, e, fend - e, 0, S_FREE, 0);
    g->size = a - g->addr;
    if (g->size == 0)
        seg_drop(s, g);
    if (hi.size)
        seg_new(s, hi.addr, hi.size, hi.stream, hi.small);
}

/* Segment h starts where segment g ends, on the same stream: one segment (g), their free
 * blocks at the seam one block. */
static void seg_merge(tp_state *s, tp_seg *g, tp_seg *h)
{
    tp_block *last = g->size ? blk_find(s, g, g->addr + (g->size - 1)) : NULL;
    tp_block *first = h->size ? blk_find(s, h, h->addr) : NULL;
    if (last && first && last->state == S_FREE && first->state == S_FREE) {
        last->size += first->size;
        blk_drop(s, first);
    }
    g->size += h->size;
    seg_drop(s, h);
}

/* Add the free range [a, a + n) as a segment merged with the ones it touches. 0, or 1 when it
 * overlaps a segment (does not fit the state). */
static int seg_join(tp_state *s, uint64_t a, uint64_t n, uint32_t stream)
{
    if (n == 0 || seg_overlap(s, a, n))
        return 1;
    tp_seg *g = seg_new(s, a, n, stream, 0);
    blk_new(s, a, n, 0, S_FREE, 0);
    tp_seg *next = after(&s->segs, a);
    if (next && next->addr == a + n && next->stream == stream)
        seg_merge(s, g, next);
    tp_seg *prev = a > 0 ? floor_of(&s->segs, a - 1) : NULL;
    if (prev && prev->addr + prev->size == a && prev->stream == stream)
        seg_merge(s, prev, g);
    return 0;
}

/* An entry naming addr (a block's start, or the start of a range mapped then) shows that addr
 * was no part of any other block at that time. When addr lies in a block's guessed tail (undo,
 * A_FREE_DONE) the guess was wrong: the block ends at addr, and the rest becomes free again
 * (merged with a free block after it). Without this the guess swallowed, for instance, a small
 * device range mapped and used while a BFC chunk's free was pending, whose own entries then no
 * longer fit, and the start state was invented from the leftovers (until 2026-11-27). */
static void release_guess(tp_state *s, uint64_t addr)
{
    tp_seg *g = seg_find(s, addr);
    tp_block *b = g ? blk_find(s, g, addr) : NULL;
    if (!b)
        return;
    uint64_t end = b->addr + b->size;
    if (b->state == S_FREE || !b->guess || addr <= b->addr || addr < end - b->guess)
        return;
    tp_block *n = blk_next(s, g, b);
    b->guess -= end - addr;
    b->size = addr - b->addr;
    if (n && n->state == S_FREE) {
        TP_STEP();
        bt_rekey(&s->blocks, n->addr, 0, addr, 0, n); /* it stays between b and its next */
        n->addr = addr;
        n->size += end - addr;
    } else {
        blk_new(s, addr, end - addr, 0, S_FREE, 0);
    }
}

/* The block of segment g starting at addr in state `state`, or NULL. */
static tp_block *blk_at(const tp_state *s, const tp_seg *g, uint64_t addr, int state)
{
    tp_block *b = blk_find(s, g, addr);
    return b && b->addr == addr && b->state == state ? b : NULL;
}

/* Undo free_completed: carve the block back out of the free block holding addr. 0, or 1 when
 * it does not fit. */
static int undo_free_done(tp_state *s, const tp_entry *e)
{
    tp_seg *g = seg_find(s, e->addr);
    tp_block *b = g ? blk_find(s, g, e->addr) : NULL;
    if (!b || b->state != S_FREE)
        return 1;
    tp_block f = *b;
    uint64_t avail = f.addr + f.size - e->addr; /* f holds e->addr; its end is < 2^64 */
    if (e->size > avail)
        return 1;
    /* Only the request is known to be the block's; PyTorch's rounding to 512 B is a guess (an
     * allocator with a finer alignment, such as an amsim export of best_fit with alignment 1,
     * places the next block inside it), limited to the free space there. */
    uint64_t size = AM_MIN(round512(e->size), avail);
    uint64_t tail = avail - size, guess = size - AM_MIN(e->size, size);
    if (!g->small && tail > 0 && tail <= TP_SMALL_SIZE) {
        guess += tail; /* an unsplit remainder stayed inside the block, maybe */
        size += tail;
    }
    if (e->addr > f.addr)
        b->size = e->addr - f.addr;
    else
        blk_drop(s, b);
    blk_new(s, e->addr, size, e->size, S_PENDING, guess);
    if (e->addr + size < f.addr + f.size)
        blk_new(s, e->addr + size, f.addr + f.size - e->addr - size, 0, S_FREE, 0);
    return 0;
}

/* Undo segment_alloc: the segment did not exist before; it goes with its blocks. */
static int undo_seg_alloc(tp_state *s, const tp_entry *e)
{
    tp_seg *g = seg_find(s, e->addr);
    if (!g || g->addr != e->addr)
        return 1;
    for (tp_block *b = blk_find(s, g, g->addr), *n; b; b = n) {
        n = blk_next(s, g, b);
        blk_drop(s, b);
    }
    seg_drop(s, g);
    return 0;
}

/* Undo one trace entry. Returns 0, or 1 when it did not fit the state (ignored). */
static int undo(tp_state *s, const tp_entry *e)
{
    tp_seg *g;
    tp_block *b;
    if (e->action == A_ALLOC || e->action == A_FREE_REQ || e->action == A_FREE_DONE ||
        e->action == A_SEG_MAP)
        release_guess(s, e->addr);
    switch (e->action) {
    case A_ALLOC: /* the block did not exist before: free it */
        if (!(g = seg_find(s, e->addr)) || !(b = blk_at(s, g, e->addr, S_ALLOC)))
            return 1;
        blk_free_merge(s, g, b);
        return 0;
    case A_FREE_REQ: /* pending -> allocated */
        if (!(g = seg_find(s, e->addr)) || !(b = blk_at(s, g, e->addr, S_PENDING)))
            return 1;
        b->state = S_ALLOC;
        return 0;
    case A_FREE_DONE:
        return undo_free_done(s, e);
    case A_SEG_ALLOC:
        return undo_seg_alloc(s, e);
    case A_SEG_FREE: /* the segment existed, entirely free */
        if (seg_overlap(s, e->addr, e->size))
            return 1;
        seg_new(s, e->addr, e->size, e->stream, e->size == TP_SMALL_SEGMENT);
        if (e->size) /* a segment of 0 bytes has no block */
            blk_new(s, e->addr, e->size, 0, S_FREE, 0);
        return 0;
    case A_SEG_MAP: /* the range was not mapped before: cut it out of its segment */
        if (!(g = seg_find(s, e->addr)) || e->size > g->addr + g->size - e->addr)
            return 1;
        b = blk_find(s, g, e->addr);
        if (!b || b->state != S_FREE || b->addr + b->size < e->addr + e->size)
            return 1;
        seg_cut(s, g, b, e->addr, e->addr + e->size);
        return 0;
    case A_SEG_UNMAP: /* the range was mapped before, free: it joins its neighbours */
        return seg_join(s, e->addr, e->size, e->stream);
    default:
        return 0;
    }
}

/* ---- reading the snapshot ---- */

/* An address or size: 0 to 2^64 - 1, as a native trace allows (amsim's exporter writes one from
 * 2^63 as LONG1 of 9 bytes; until 2026-11-27 it was refused, from 2^63). */
static int get_u64(const pkl_value *d, const char *key, uint64_t *out)
{
    return pkl_u64(pkl_get(d, key), out);
}

static int action_of(const pkl_value *a)
{
    static const struct { const char *s; int a; } map[] = {
        {"alloc", A_ALLOC}, {"free_requested", A_FREE_REQ}, {"free_completed", A_FREE_DONE},
        {"segment_alloc", A_SEG_ALLOC}, {"segment_map", A_SEG_MAP},
        {"segment_free", A_SEG_FREE}, {"segment_unmap", A_SEG_UNMAP}, {"oom", A_OOM},
        {"amsim_oom_free_requested", A_OOM_FREE_REQ},
        {"amsim_oom_free_completed", A_OOM_FREE_DONE}, {"snapshot", A_MARK},
        {"amsim_recovery_free", A_RECOVERY_FREE}, {"amsim_recovery_alloc", A_RECOVERY_ALLOC},
    };
    if (!a || a->type != PKL_STR)
        return -1;
    for (size_t i = 0; i < AM_ARRAY_LEN(map); i++)
        if (strcmp(a->s, map[i].s) == 0)
            return map[i].a;
    return A_OTHER; /* an action of a newer version: skipped and counted */
}

/* The refusal of a field of the wrong type; what names its place: "device_traces[0][7]". An
 * integer from 2^63 (readable as an address or size only, pkl_u64) is named by its value. */
static int wrong_type(const trace *t, const char *what, const char *field, const pkl_value *v,
                      am_error *err)
{
    if (v->type == PKL_INT)
        return am_fail(err, AM_EINPUT, "%s: %s: '%s' %llu is out of range (at most 2^63 - 1)",
                       t->path, what, field, (unsigned long long)(uint64_t)v->i);
    return am_fail(err, AM_EINPUT, "%s: %s: '%s' is %s, expected an integer", t->path, what,
                   field, pkl_type_a(v->type));
}

/* An address of 2^64 - 1, which means "no address" inside (TR_NO_ADDR), refused as the native
 * and binary readers refuse it: from 2^63 addresses are read since 2026-11-27 (pkl_u64), and
 * this one would have been taken for none. at names the place, as for range_refused:
 * "segments[3]" or "device_traces[0][7]". Only errors call it. */
__attribute__((noinline, cold)) static int addr_none(const trace *t, const char *at,
                                                     const char *field, am_error *err)
{
    return am_fail(err, AM_EINPUT, "%s: %s: '%s' 18446744073709551615 is out of range (at most "
                   "18446744073709551614; 2^64 - 1 means none)", t->path, at, field);
}

/* The refusal of a range past 2^64 - 1 (trace_range_past_end), or of an address of none
 * (addr_none): the place (at), then the words every reader shares (trace_range_why). From
 * 2026-11-27 sizes from 2^63 are read (pkl_u64), and such a range wrapped until then. Only
 * errors call it. */
__attribute__((noinline, cold)) static int range_refused(const trace *t, const char *at,
                                                         const char *addr_field, uint64_t addr,
                                                         const char *size_field, uint64_t size,
                                                         am_error *err)
{
    if (addr == TR_NO_ADDR)
        return addr_none(t, at, addr_field, err);
    char why[TRACE_RANGE_WHY_MAX];
    trace_range_why(why, sizeof why, addr_field, addr, size_field, size);
    return am_fail(err, AM_EINPUT, "%s: %s: %s", t->path, at, why);
}

/* The place of entry i of device dev's list name, for a message, into buf (returns buf):
 * "device_traces[0][7]". Only errors call it, so a well-formed entry formats nothing. */
__attribute__((noinline, cold)) static const char *entry_where(char *buf, size_t n,
                                                                const char *name, int dev,
                                                                size_t i)
{
    snprintf(buf, n, "%s[%d][%zu]", name, dev, i);
    return buf;
}

/* Whether entry x's action names a range at 'addr' of 'size' bytes: the device calls and
 * requests, and a recovery's free and placement (an oom has no address; the amsim_oom_free_*
 * entries' is an index). */
static int has_range(int action)
{
    return action < A_OOM || action == A_RECOVERY_FREE || action == A_RECOVERY_ALLOC;
}

/* Refuses (-1, err) an entry whose range is at the "none" address or passes 2^64 - 1: its addr
 * + size, and a placement's from + size (where the buffer was, as large). Until 2026-11-27 the
 * recovery entries were not checked (their actions come after A_OOM): an addr of 2^64 - 1 or a
 * range past the end read as "trace ok", the trace's later free of the buffer dropped. */
static int entry_range_bad(const trace *t, const tp_entry *x, const char *name, int dev, size_t i,
                           am_error *err)
{
    char what[96];
    if (!has_range(x->action))
        return 0;
    if (x->addr == TR_NO_ADDR || trace_range_past_end(x->addr, x->size))
        return range_refused(t, entry_where(what, sizeof what, name, dev, i), "addr", x->addr,
                             "size", x->size, err);
    /* from is TR_NO_ADDR when absent: then a placement follows no buffer (follow_move) */
    if (x->action == A_RECOVERY_ALLOC && x->from != TR_NO_ADDR &&
        trace_range_past_end(x->from, x->size))
        return range_refused(t, entry_where(what, sizeof what, name, dev, i), "from", x->from,
                             "size", x->size, err);
    return 0;
}

/* An entry's or a segment's optional 'stream' (a CUDA stream handle) into *out: 0 when absent.
 * -1 when it is there but no integer (until 2026-11-27 a segment's was read as stream 0). */
static int read_stream(const pkl_value *d, int64_t *out)
{
    const pkl_value *v = pkl_get(d, "stream");
    *out = 0;
    return v && pkl_int(v, out) < 0 ? -1 : 0;
}

/* time_us into *out: 1, or 0 when absent (older PyTorch), or -1 when it is no whole number of
 * microseconds in 64 bits. PyTorch writes an int; a float with an integral value (a snapshot
 * passed through JSON, say) is taken as that int, as nothing is lost. Until 2026-11-27 any
 * other type was read as absent without a word (so 10.0 or '500' lost the entry's time). */
static int read_time_us(const pkl_value *v, int64_t *out)
{
    if (!v)
        return 0;
    if (pkl_int(v, out) == 0)
        return 1;
    /* -2^63 <= f < 2^63: the doubles that convert to int64_t exactly when integral */
    if (v->type == PKL_FLOAT && v->f >= -9223372036854775808.0 && v->f < 9223372036854775808.0 &&
        v->f == (double)(int64_t)v->f) {
        *out = (int64_t)v->f;
        return 1;
    }
    return -1;
}

static int bad_time_us(const trace *t, const char *what, const pkl_value *v, am_error *err)
{
    if (v->type == PKL_FLOAT) {
        char num[40]; /* the shortest of 15 or 17 digits that reads back: 500.5, not 500.50000... */
        snprintf(num, sizeof num, "%.15g", v->f);
        if (strtod(num, NULL) != v->f)
            snprintf(num, sizeof num, "%.17g", v->f);
        return am_fail(err, AM_EINPUT, "%s: %s: 'time_us' %s is not a whole number of "
                       "microseconds in 64 bits", t->path, what, num);
    }
    if (v->type == PKL_INT) /* from 2^63 (pkl_int refuses it) */
        return am_fail(err, AM_EINPUT, "%s: %s: 'time_us' %llu is out of range (at most 2^63 - 1 "
                       "microseconds)", t->path, what, (unsigned long long)(uint64_t)v->i);
    return am_fail(err, AM_EINPUT, "%s: %s: 'time_us' is %s, expected an integer "
                   "(microseconds)", t->path, what, pkl_type_a(v->type));
}

/* amsim_sub_us_ps (export_snapshot.c): the picoseconds of an entry's time past its whole
 * time_us, which PyTorch's int microseconds cannot hold, into *ps (0 when absent). So an
 * export's replay has the original's times exactly (until 2026-11-27 they were cut to whole
 * microseconds: a run of 3.900 us replayed in 3.000 us). It must be an integer from 0 to
 * 999999 and needs a time_us to be past; anything else is refused, naming the entry. */
static int read_sub_us(trace *t, const pkl_value *d, const char *name, int dev, size_t i,
                       int have_time, uint64_t *ps, am_error *err)
{
    const pkl_value *v = pkl_get(d, "amsim_sub_us_ps");
    int64_t n;
    *ps = 0;
    if (!v)
        return 0;
    char what[96];
    if (pkl_int(v, &n) < 0 || n < 0 || (uint64_t)n >= AM_PS_PER_US)
        return am_fail(err, AM_EINPUT, "%s: %s: 'amsim_sub_us_ps' must be an integer from 0 to "
                       "999999 (picoseconds past 'time_us')", t->path,
                       entry_where(what, sizeof what, name, dev, i));
    if (!have_time)
        return am_fail(err, AM_EINPUT, "%s: %s: 'amsim_sub_us_ps' without a 'time_us' to add "
                       "it to", t->path, entry_where(what, sizeof what, name, dev, i));
    *ps = (uint64_t)n;
    return 0;
}

/* Whether the warning that entries go back in time is news in this process: compare, mincap
 * and offline's pre-pass read one snapshot again for every run, and each read found the same
 * entries (until 2026-11-28 each printed it: mincap 23 times). The file's warning is given
 * once; another file, device or finding is warned about as before. A batch's runs are
 * processes of their own: each run warns, as for its other warnings. */
static int time_back_news(const char *path, int dev, size_t first, uint64_t count)
{
    static char last[4096];
    char key[sizeof last];
    int n = snprintf(key, sizeof key, "%d %zu %llu %s", dev, first, (unsigned long long)count,
                     path);
    if (n < 0 || (size_t)n >= sizeof key) /* a path too long to remember: warn every time */
        return 1;
    if (strcmp(key, last) == 0)
        return 0;
    memcpy(last, key, (size_t)n + 1);
    return 1;
}

/* ---- names from stack frames ---- */

/* The names of alloc and oom entries and live start-state blocks, NUL-terminated one after
 * another in one buffer; an entry holds its name's offset (0 is the empty string at the start: no name).
 * They are all read before the first event is built, so the buffer no longer moves then and
 * the events point into it (tp_impl.names). A name is built only for an alloc, an oom or a
 * live block: the other entries' frames cost nothing. */
typedef struct tp_names {
    char *b;
    size_t n, cap;
    const pkl_value *last; /* the frame the last name came from (memo-shared frames: once) */
    uint32_t last_at;
} tp_names;


/* A frame's string field: its bytes and length, or NULL when it has none of that type. */
static const char *frame_str(const pkl_value *fr, const char *key, size_t *len)
{
    const pkl_value *v = pkl_get(fr, key);
    if (!v || v->type != PKL_STR)
        return NULL;
    *len = v->len;
    return v->s;
}

/* A frame's fields, each looked up once. */
typedef struct tp_frame {
    const pkl_value *v;      /* the frame (its dict) */
    const char *fn, *file;   /* 'name' (the function) and 'filename' */
    size_t fnlen, filelen;
    int64_t line;
} tp_frame;

/* Read fr into *f: 1 when the rule can use it, a dict with a string name and filename and an
 * integer line; else 0. */
static int frame_read(const pkl_value *fr, tp_frame *f)
{
    f->v = fr;
    return fr && fr->type == PKL_DICT && (f->fn = frame_str(fr, "name", &f->fnlen)) &&
           (f->file = frame_str(fr, "filename", &f->filelen)) &&
           pkl_int(pkl_get(fr, "line"), &f->line) == 0;
}

/* amsim's export writes a named allocation's frames as this one frame (export_snapshot.c,
 * sn_frames): its name is the trace's name as it was. */
static const char *export_form(const pkl_value *frames, size_t *len)
{
    tp_frame f;
    if (frames->len != 1 || !frame_read(frames->items[0], &f) || f.line != 0 || f.filelen != 0)
        return NULL;
    *len = f.fnlen;
    return f.fn;
}

static int path_has(const char *p, const char *dir)
{
    char fwd[32], back[32]; /* "/DIR/" and "\\DIR\\": POSIX and Windows paths */
    snprintf(fwd, sizeof fwd, "/%s/", dir);
    snprintf(back, sizeof back, "\\%s\\", dir);
    return strstr(p, fwd) || strstr(p, back);
}

/* The frame a name comes from: the innermost Python frame (filename ending in ".py") outside
 * torch itself (a path with a directory "torch": nn/modules/module.py, functional.py, ...) and
 * outside installed packages (site-packages, dist-packages: einops' einsum called from the
 * model); when every such frame is in an installed package, the innermost of those (the
 * user's code may be one). C++ frames (context='all': "??", .cpp, .so) are skipped, as are
 * frames the rule cannot use (no dict, a key missing or of another type). 0: none. */
static int user_frame(const pkl_value *frames, tp_frame *out)
{
    int lib = 0;
    for (size_t i = 0; i < frames->len; i++) {
        tp_frame f;
        if (!frame_read(frames->items[i], &f) || f.filelen < 3 ||
            memcmp(f.file + f.filelen - 3, ".py", 3) != 0 || path_has(f.file, "torch"))
            continue;
        if (!path_has(f.file, "site-packages") && !path_has(f.file, "dist-packages")) {
            *out = f;
            return 1;
        }
        if (!lib) {
            *out = f;
            lib = 1;
        }
    }
    return lib;
}

/* Append the len bytes at s (NUL-terminated at s[len]) to out[*o], as name= allows them: a
 * space, a control character (C0, DEL, C1) or a byte that starts no well-formed UTF-8
 * character becomes '_'; stops at TR_NAME_MAX bytes, at a character's boundary. */
static void name_put(char *out, size_t *o, const char *s, size_t len)
{
    for (size_t i = 0; i < len && *o < TR_NAME_MAX;) {
        const unsigned char *u = (const unsigned char *)s + i;
        int k = *u <= 0x20 || *u == 0x7f ? 0 : am_utf8_len(u);
        if (k == 0 || am_c1_at(u, len - i) >= 0) {
            out[(*o)++] = '_';
            i += k ? (size_t)k : 1;
            continue;
        }
        if (*o + (size_t)k > TR_NAME_MAX)
            break;
        memcpy(out + *o, u, (size_t)k);
        *o += (size_t)k;
        i += (size_t)k;
    }
}

/* The name of an alloc or oom entry or a block from its 'frames' (names, offset; 0: none): the
 * export form's name, else BASENAME:LINE:FUNCTION of user_frame, made a valid name=. Frames
 * of the wrong type are no name: a snapshot is not refused for its stacks. */
static uint32_t frames_name(tp_names *nm, const pkl_value *frames)
{
    if (!frames || frames->type != PKL_LIST || frames->len == 0)
        return 0;
    char out[TR_NAME_MAX + 1];
    size_t o = 0, len = 0;
    const char *s = export_form(frames, &len);
    tp_frame f = {0};
    if (s) {
        name_put(out, &o, s, len);
    } else {
        if (!user_frame(frames, &f))
            return 0;
        if (f.v == nm->last) /* the same frame again (a pickle's memo): the same name */
            return nm->last_at;
        const char *base = f.file;
        for (size_t i = 0; i < f.filelen; i++)
            if (f.file[i] == '/' || f.file[i] == '\\')
                base = f.file + i + 1;
        char num[24];
        snprintf(num, sizeof num, ":%lld:", (long long)f.line);
        name_put(out, &o, base, f.filelen - (size_t)(base - f.file));
        name_put(out, &o, num, strlen(num));
        name_put(out, &o, f.fn, f.fnlen);
    }
    /* offsets are 32-bit (tp_entry has room for no more): past 4 GiB of names, none */
    if (o == 0 || nm->n + o + 1 > UINT32_MAX)
        return 0;
    if (!nm->b) { /* offset 0: no name */
        nm->b = am_malloc(nm->cap = 4096);
        nm->b[0] = 0;
        nm->n = 1;
    }
    if (nm->n + o + 1 > nm->cap) {
        nm->cap = AM_MAX(2 * nm->cap, nm->n + o + 1 + 4096);
        nm->b = am_realloc(nm->b, nm->cap);
    }
    uint32_t at = (uint32_t)nm->n;
    memcpy(nm->b + at, out, o);
    nm->b[at + o] = 0;
    nm->n += o + 1;
    nm->last = f.v;
    nm->last_at = at;
    return at;
}

/* Times are microseconds after the origin: amsim_time_origin_us when the snapshot has it (an
 * export of amsim's: its simulated time 0), else the first entry's time_us (PyTorch's are
 * microseconds since the epoch). origin NULL: no key. */
static int read_entries(trace *t, const char *name, const pkl_value *list, int dev,
                        const int64_t *origin, tp_streams *st, tp_names *nm, tp_entry **out,
                        size_t *nout, am_error *err)
{
    tp_entry *e = am_calloc(list->len ? list->len : 1, sizeof *e);
    int64_t t0 = origin ? *origin : 0, hi = 0; /* hi: the latest time_us yet */
    int have_t0 = origin != NULL;
    uint64_t prev = 0, back = 0; /* the last entry's time (ps); entries whose time went back */
    size_t first_back = 0;
    int64_t first_tu = 0, first_hi = 0;
    /* the first such entry's amsim_sub_us_ps and the earlier one's, when only they went back */
    uint64_t first_sub = 0, first_prev_sub = 0;
    int sub_back = 0;
    for (size_t i = 0; i < list->len; i++) {
        const pkl_value *d = list->items[i];
        tp_entry *x = &e[i];
        int64_t stream = 0, tu;
        x->action = action_of(pkl_get(d, "action"));
        if (d->type != PKL_DICT || x->action < 0) {
            free(e);
            return am_fail(err, AM_EINPUT, "%s: %s[%d][%zu]: not a trace entry "
                           "(a dict with a string 'action')", t->path, name, dev, i);
        }
        int bad = get_u64(d, "size", &x->size) < 0;
        x->id = TP_NO_ID;
        x->from = TR_NO_ADDR;
        if (x->action == A_RECOVERY_ALLOC && pkl_get(d, "from") &&
            get_u64(d, "from", &x->from) < 0) {
            free(e);
            return am_fail(err, AM_EINPUT, "%s: %s[%d][%zu]: 'amsim_recovery_alloc' entry's "
                           "'from' is not a non-negative integer (an address)", t->path, name,
                           dev, i);
        }
        if (x->action == A_RECOVERY_ALLOC && x->from == TR_NO_ADDR && pkl_get(d, "from")) {
            char what[96]; /* a 'from' of 2^64 - 1 would be read as none: no buffer followed */
            free(e);
            return addr_none(t, entry_where(what, sizeof what, name, dev, i), "from", err);
        }
        if (x->action == A_OOM)
            x->addr = TR_NO_ADDR;
        else if (x->action == A_OOM_FREE_REQ || x->action == A_OOM_FREE_DONE)
            bad |= get_u64(d, "oom", &x->addr) < 0;
        else if (x->action < A_MARK)
            bad |= get_u64(d, "addr", &x->addr) < 0;
        if (bad && x->action < A_MARK) {
            int oom = x->action == A_OOM_FREE_REQ || x->action == A_OOM_FREE_DONE;
            const char *field = oom ? "oom" : "addr"; /* x is in e */
            free(e);
            return am_fail(err, AM_EINPUT, "%s: %s[%d][%zu]: '%s' entry lacks a "
                           "non-negative integer '%s' or 'size'", t->path, name, dev, i,
                           pkl_get(d, "action")->s, field);
        }
        if (entry_range_bad(t, x, name, dev, i, err) < 0) {
            free(e);
            return -1;
        }
        /* an oom entry holds the failing request's stack (PyTorch's context), named alike:
         * the line that ran out (until 2026-11-28 no name) */
        if (x->action == A_ALLOC || x->action == A_OOM)
            x->name = frames_name(nm, pkl_get(d, "frames"));
        /* a stream of another type is refused by its own name (until 2026-11-27 it was blamed
         * on 'addr' or 'size') */
        if (read_stream(d, &stream) < 0) {
            char what[96];
            entry_where(what, sizeof what, name, dev, i);
            free(e);
            return wrong_type(t, what, "stream", pkl_get(d, "stream"), err);
        }
        if (stream_id(st, stream, &x->stream) < 0) {
            char what[96];
            entry_where(what, sizeof what, name, dev, i);
            free(e);
            return too_many_streams(t, what, stream, err);
        }
        x->time = AM_TIME_NONE;
        int tr = read_time_us(pkl_get(d, "time_us"), &tu);
        uint64_t sub = 0;
        if (tr < 0) {
            char what[96];
            entry_where(what, sizeof what, name, dev, i);
            free(e);
            return bad_time_us(t, what, pkl_get(d, "time_us"), err);
        }
        if (read_sub_us(t, d, name, dev, i, tr == 1, &sub, err) < 0) {
            free(e);
            return -1;
        }
        if (tr == 1 && tu < 0) { /* microseconds since the epoch, or amsim's origin 0 */
            free(e);
            return am_fail(err, AM_EINPUT, "%s: %s[%d][%zu]: 'time_us' %lld is negative (PyTorch "
                           "writes microseconds since the epoch)", t->path, name, dev, i,
                           (long long)tu);
        }
        if (tr == 1) {
            if (!have_t0) {
                t0 = hi = tu;
                have_t0 = 1;
            }
            /* microseconds after the first entry's time; one that does not fit 64 bits in ps
             * is refused, as the native reader refuses its at= (until 2026-11-27 it wrapped
             * around silently). An entry before the origin is at 0, its sub-us part dropped. */
            uint64_t us = tu > t0 ? (uint64_t)tu - (uint64_t)t0 : 0; /* exact: < 2^64 */
            if (tu < t0)
                sub = 0;
            if (us > (TR_TIME_MAX - sub) / AM_PS_PER_US) {
                free(e);
                return am_fail(err, AM_EINPUT, "%s: %s[%d][%zu]: 'time_us' %lld is %llu us "
                               "after %s: out of range (at most 2^64 - 3 ps)", t->path, name,
                               dev, i, (long long)tu, (unsigned long long)us,
                               origin ? "amsim_time_origin_us" : "the first entry's");
            }
            x->time = us * AM_PS_PER_US + sub;
            /* The allocator wrote its entries in the order it served them, so that order
             * stands: an entry whose time goes back is replayed at the time of the one before
             * it, as the engine would, but not without a word (until 2026-11-27 it was). An
             * export of amsim's (with an origin) writes an expired wait's oom where the run's
             * state was, after entries of earlier times (export_snapshot.c): no warning. */
            if (tu < hi || x->time < prev) { /* before the origin, both are at 0 */
                if (back++ == 0) {
                    first_back = i, first_tu = tu, first_hi = hi;
                    sub_back = tu == hi; /* same microsecond: prev is in it too */
                    first_sub = sub, first_prev_sub = prev % AM_PS_PER_US;
                }
                x->time = prev;
            }
            prev = x->time;
            hi = AM_MAX(hi, tu);
        }
    }
    if (back && !origin && time_back_news(t->path, dev, first_back, back)) {
        char *path = am_escape_dup(t->path); /* as messages echo it: no raw ESC */
        /* when only the picoseconds went back, they are named (until 2026-11-28 the warning
         * said 'time_us' 5 was before 5) */
        char now[96], was[64];
        if (sub_back) {
            snprintf(now, sizeof now, "%lld with 'amsim_sub_us_ps' %llu", (long long)first_tu,
                     (unsigned long long)first_sub);
            snprintf(was, sizeof was, "%lld with %llu", (long long)first_hi,
                     (unsigned long long)first_prev_sub);
        } else {
            snprintf(now, sizeof now, "%lld", (long long)first_tu);
            snprintf(was, sizeof was, "%lld", (long long)first_hi);
        }
        fprintf(stderr, "amsim: warning: %s: %s[%d][%zu]: 'time_us' %s is before an earlier "
                "entry's (%s); %llu entr%s of %s[%d] go%s back in time so: each is replayed at "
                "the time of the entry before it (the recorded order stands)\n", path, name,
                dev, first_back, now, was, (unsigned long long)back, back == 1 ? "y" : "ies",
                name, dev, back == 1 ? "es" : "");
        free(path);
    }
    *out = e;
    *nout = list->len;
    return 0;
}

/* amsim_time_origin_us (export_snapshot.c): the time_us of amsim's simulated time 0, so that
 * time before the first entry (a first request's at=, the prologue's device calls) is kept
 * (until 2026-11-27 an export's replay started at its first entry and lost it). Absent: 0. */
static int read_origin(trace *t, const pkl_value *v, int64_t *origin, am_error *err)
{
    *origin = 0;
    if (v && pkl_int(v, origin) < 0)
        return am_fail(err, AM_EINPUT, "%s: 'amsim_time_origin_us' is %s, expected an integer",
                       t->path, pkl_type_a(v->type));
    return 0;
}

/* amsim_end_ps (export_snapshot.c): when the run amsim exported ended (its makespan), in ps
 * after the time origin, into *end (AM_TIME_NONE when absent). The time after its last entry
 * (a compute, a sync, a recovery's copies) is in no entry: without it an export's replay ended
 * at its last entry (until 2026-11-28). Past 2^64 - 3 ps is refused, as an entry's time is. */
static int read_end(trace *t, const pkl_value *v, am_ps *end, am_error *err)
{
    uint64_t ps;
    *end = AM_TIME_NONE;
    if (!v)
        return 0;
    if (pkl_u64(v, &ps) < 0 || ps > TR_TIME_MAX)
        return am_fail(err, AM_EINPUT, "%s: 'amsim_end_ps' must be an integer from 0 to 2^64 - 3 "
                       "(picoseconds after the time origin)", t->path);
    *end = ps;
    return 0;
}

/* amsim_start_traces (export_snapshot.c): per device, the start-state prologue of the run
 * amsim exported. Absent (or no list for dev): *out = NULL, the start state is walked back. */
static int read_start(trace *t, const pkl_value *st_list, int dev, const int64_t *origin,
                      tp_streams *st, tp_names *nm, tp_entry **out, size_t *nout, am_error *err)
{
    *out = NULL;
    *nout = 0;
    if (!st_list)
        return 0;
    if (st_list->type != PKL_LIST)
        return am_fail(err, AM_EINPUT, "%s: 'amsim_start_traces' is %s, expected a list",
                       t->path, pkl_type_a(st_list->type));
    if ((size_t)dev >= st_list->len)
        return 0;
    const pkl_value *list = st_list->items[dev];
    if (list->type != PKL_LIST)
        return am_fail(err, AM_EINPUT, "%s: amsim_start_traces[%d] is %s, expected a list",
                       t->path, dev, pkl_type_a(list->type));
    return read_entries(t, "amsim_start_traces", list, dev, origin, st, nm, out, nout, err);
}

static const char *const state_names[] = {"inactive", "active_allocated", "active_pending_free"};

/* A block's 'state' as its index in state_names (S_FREE, ...), or -1 with err for any other
 * value: a state of a newer PyTorch, or a typo ("allocated"), would be read as free and the
 * block's bytes lost from the start state. Until 2026-11-27 it was, status 0. */
static int block_state(const trace *t, size_t i, size_t j, const pkl_value *sv, am_error *err)
{
    for (int k = 0; sv && sv->type == PKL_STR && k < 3; k++)
        if (strcmp(sv->s, state_names[k]) == 0)
            return k;
    char shown[64];
    if (sv && sv->type == PKL_STR)
        return am_fail(err, AM_EINPUT, "%s: segments[%zu].blocks[%zu].state: '%s' is not a "
                       "block state (inactive, active_allocated or active_pending_free)",
                       t->path, i, j, am_echo(shown, sizeof shown, sv->s, strlen(sv->s), 40));
    if (!sv)
        return am_fail(err, AM_EINPUT, "%s: segments[%zu].blocks[%zu]: no 'state' (inactive, "
                       "active_allocated or active_pending_free)", t->path, i, j);
    return am_fail(err, AM_EINPUT, "%s: segments[%zu].blocks[%zu].state: %s, expected a str "
                   "(inactive, active_allocated or active_pending_free)", t->path, i, j,
                   pkl_type_a(sv->type));
}

/* A segment's 'segment_type': 1 "small", 0 "large", or when absent (older snapshots) by its
 * size (the small pool's segments are 2 MiB); -1 with err for any other value, which until
 * 2026-11-27 was read as "large" without a word. */
static int segment_small(const trace *t, size_t i, const pkl_value *type, uint64_t size,
                         am_error *err)
{
    if (!type)
        return size == TP_SMALL_SEGMENT;
    if (type->type == PKL_STR && strcmp(type->s, "small") == 0)
        return 1;
    if (type->type == PKL_STR && strcmp(type->s, "large") == 0)
        return 0;
    char shown[64];
    if (type->type == PKL_STR)
        return am_fail(err, AM_EINPUT, "%s: segments[%zu].segment_type: '%s' is not a segment "
                       "type (small or large)", t->path, i,
                       am_echo(shown, sizeof shown, type->s, strlen(type->s), 40));
    return am_fail(err, AM_EINPUT, "%s: segments[%zu].segment_type: %s, expected a str "
                   "(small or large)", t->path, i, pkl_type_a(type->type));
}

/* A segment's 'device': 0 when it has none (as a snapshot of one device writes it) or is no
 * dict (refused where it is read), else its value, which check_segment_devices has checked
 * before anything reads it (build: an integer in 0..AM_MAX_DEVICE). */
static int64_t segment_device(const pkl_value *seg)
{
    int64_t dev = 0;
    (void)pkl_int(pkl_get(seg, "device"), &dev); /* pkl_get: NULL when seg is no dict */
    return dev;
}

static int read_segments(trace *t, const pkl_value *segs, int dev, tp_streams *st,
                         tp_names *nm, tp_state *s, am_error *err)
{
    for (size_t i = 0; i < segs->len; i++) {
        const pkl_value *d = segs->items[i];
        uint64_t addr, size;
        int64_t stream = 0;
        const pkl_value *blocks = pkl_get(d, "blocks"), *type = pkl_get(d, "segment_type");
        if (d->type != PKL_DICT || get_u64(d, "address", &addr) < 0 ||
            get_u64(d, "total_size", &size) < 0 || !blocks || blocks->type != PKL_LIST)
            return am_fail(err, AM_EINPUT, "%s: segments[%zu]: not a segment (needs "
                           "'address', 'total_size' and a list 'blocks')", t->path, i);
        /* an address of none, or a range past 2^64 - 1: the place is formatted only then */
        if (addr == TR_NO_ADDR || trace_range_past_end(addr, size)) {
            char where[64];
            snprintf(where, sizeof where, "segments[%zu]", i);
            return range_refused(t, where, "address", addr, "total_size", size, err);
        }
        if (segment_device(d) != dev)
            continue;
        /* a private pool's segments (CUDA graphs, torch.cuda.MemPool) serve only that pool's
         * allocations, which the trace entries do not mark: refused, not mixed into the
         * default pool (whose id is (0, 0)) */
        const pkl_value *pool = pkl_get(d, "segment_pool_id");
        int64_t pid[2] = {0, 0};
        if (pool && (pool->type != PKL_TUPLE || pool->len != 2 ||
                     pkl_int(pool->items[0], &pid[0]) < 0 ||
                     pkl_int(pool->items[1], &pid[1]) < 0))
            return am_fail(err, AM_EINPUT, "%s: segments[%zu]: 'segment_pool_id' is not a pair "
                           "of integers", t->path, i);
        if (pid[0] || pid[1])
            return am_fail(err, AM_EINPUT, "%s: segments[%zu]: segment_pool_id (%lld, %lld): "
                           "private memory pools (CUDA graphs, torch.cuda.MemPool) are not "
                           "supported yet", t->path, i, (long long)pid[0], (long long)pid[1]);
        if (read_stream(d, &stream) < 0) {
            char what[64];
            snprintf(what, sizeof what, "segments[%zu]", i);
            return wrong_type(t, what, "stream", pkl_get(d, "stream"), err);
        }
        int small = segment_small(t, i, type, size, err);
        if (small < 0)
            return -1;
        uint32_t sid;
        if (stream_id(st, stream, &sid) < 0) {
            char what[64];
            snprintf(what, sizeof what, "segments[%zu]", i);
            return too_many_streams(t, what, stream, err);
        }
        if (bt_find(&s->segs, addr, 0))
            return am_fail(err, AM_EINPUT, "%s: segments[%zu]: a second segment at address "
                           "%llu", t->path, i, (unsigned long long)addr);
        const tp_seg *o = seg_overlap(s, addr, size);
        if (o) /* a device's segments are distinct device allocations (until 2026-11-27 they
                * were read, and the prologue tiled both) */
            return am_fail(err, AM_EINPUT, "%s: segments[%zu]: address %llu + %llu bytes overlaps "
                           "the segment at address %llu (%llu bytes): one device's segments "
                           "never overlap", t->path, i, (unsigned long long)addr,
                           (unsigned long long)size, (unsigned long long)o->addr,
                           (unsigned long long)o->size);
        seg_new(s, addr, size, sid, small);
        tp_block *last = NULL; /* the segment's last block so far */
        /* the blocks' sizes are summed in 128 bits: each may be up to 2^64 - 1, and a sum
         * that wrapped could match the segment's end (until 2026-11-27 it did) */
        am_u128 at = addr, end = (am_u128)addr + size;
        for (size_t j = 0; j < blocks->len; j++) {
            const pkl_value *b = blocks->items[j], *sv = pkl_get(b, "state");
            tp_block x = {.state = S_FREE};
            if (get_u64(b, "address", &x.addr) < 0 || get_u64(b, "size", &x.size) < 0 ||
                x.addr != at || x.size == 0)
                return am_fail(err, AM_EINPUT, "%s: segments[%zu].blocks[%zu]: blocks must "
                               "tile the segment in address order", t->path, i, j);
            int state = block_state(t, i, j, sv, err);
            if (state < 0)
                return -1;
            x.state = state;
            get_u64(b, "requested_size", &x.requested);
            if (x.state == S_FREE)
                x.requested = 0;
            at += x.size;
            if (at > end)
                continue; /* past the segment: refused below, with the whole sum */
            /* merge adjacent free blocks (the real allocator never leaves them apart) */
            if (last && x.state == S_FREE && last->state == S_FREE)
                last->size += x.size;
            else
                last = blk_new(s, x.addr, x.size, x.requested, x.state, x.guess);
            if (x.state != S_FREE) /* the prologue allocates it: named as an alloc is */
                last->name = frames_name(nm, pkl_get(b, "frames"));
        }
        if (at != end) {
            char covered[48];
            units_fmt_u128(covered, sizeof covered, at - addr);
            return am_fail(err, AM_EINPUT, "%s: segments[%zu]: blocks cover %s of %llu bytes",
                           t->path, i, covered, (unsigned long long)size);
        }
    }
    return 0;
}

/* ---- building the event array ---- */

/* The name at offset at of the names (tp_names), or NULL for none. */
static const char *name_at(const tp_impl *im, uint32_t at) { return at ? im->names + at : NULL; }

static void ev_base(tr_event *e, const trace *t, tr_kind k)
{
    memset(e, 0, sizeof *e);
    e->kind = k;
    e->level = t->opts.default_level;
    e->level_default = 1; /* a snapshot is of the device the config's default memory models */
    e->dst_level = -1;
    e->addr = TR_NO_ADDR;
    e->time = 0;
}

/* The run's end as the replay's last event: the host waits until then (a sync at= it), so the
 * replay's makespan and host time are the original's. Its position is one past the n entries
 * (0 would make it a prologue event). */
static void emit_end(trace *t, tp_impl *im, am_ps end, size_t n)
{
    tr_event e;
    if (end == AM_TIME_NONE)
        return;
    ev_base(&e, t, TR_SYNC);
    e.stream = TR_ALL;
    e.time = end;
    e.line = n + 1;
    emit(im, &e);
}

/* The request a live block of the start state is re-made with: its recorded request (the
 * segment block's requested_size, or for a block the trace frees, the size of that free, which
 * undo() carved it with) when that is known and smaller than the block, else 0 (the tile's own
 * request stands). A block tiled in more than one piece (a small segment's block over 1 MiB,
 * which PyTorch never makes live) keeps its tiles. */
static uint64_t smaller_request(const tp_seg *g, const tp_block *b)
{
    if (b->state == S_FREE || b->requested == 0 || b->requested >= b->size)
        return 0;
    if (g->small && b->size > TP_SMALL_SIZE)
        return 0;
    return b->requested;
}

/* Live blocks whose recorded requested_size is below their size (PyTorch leaves a large-pool
 * remainder of at most 1 MiB unsplit, and rounds requests to 512 B) are re-made with that
 * request, so that live bytes, requested bytes and internal fragmentation at the start are the
 * recording's (until 2026-11-27 the block size was the request, and a snapshot's peak live was
 * too high by the unrequested bytes of its start-state blocks). The tile is freed and
 * the request made again only now that every segment is tiled: the freed block is then the only
 * free space, so best fit takes it again, and the caching allocator does not split it (its
 * remainder is one PyTorch did not split either); re-requesting while tiling would split the
 * rest of the segment at the smaller size and move every later block. tile_id[k] becomes the
 * new request's id. */
static void request_recorded_sizes(trace *t, tp_impl *im, tp_tile *tile, size_t nt,
                                   uint64_t *next_id)
{
    tr_event e;
    for (size_t k = 0; k < nt; k++) {
        const tp_block *b = tile[k].b;
        uint64_t req = smaller_request(tile[k].g, b);
        if (!req)
            continue;
        ev_base(&e, t, TR_FREE);
        e.id = tile[k].id;
        e.stream = tile[k].g->stream;
        emit(im, &e);
        ev_base(&e, t, TR_ALLOC);
        e.id = tile[k].id = (*next_id)++;
        e.bytes = req;
        e.addr = b->addr;
        e.name = name_at(im, b->name);
        e.stream = tile[k].g->stream;
        emit(im, &e);
    }
}

/* The blocks of the start state in address order (*nt of them) into a new array, each with its
 * segment: one pass over each tree. A segment's blocks are consecutive in it, in the order of
 * the segments. */
static tp_tile *list_tiles(const tp_state *s, size_t *nt)
{
    size_t nb = s->blocks.n;
    tp_tile *tile = am_malloc((nb ? nb : 1) * sizeof *tile);
    bt_iter si, bi;
    size_t k = 0;
    tp_block *b = bt_first(&s->blocks, &bi);
    for (tp_seg *g = bt_first(&s->segs, &si); g; g = bt_next(&si)) {
        /* every block lies in a segment, so the blocks from here up to g's end are g's */
        for (; b && b->addr - g->addr < g->size; b = bt_next(&bi), k++) {
            TP_STEP();
            tile[k] = (tp_tile){g, b, 0};
        }
    }
    *nt = k;
    return tile;
}

static void build_prologue(trace *t, tp_impl *im, tp_state *s, uint64_t *next_id,
                           tp_live *live, tp_ranges *rg)
{
    tr_event e;
    /* Every segment of the start state is created: one the trace does not allocate existed
     * before it, even when entirely free (a cached segment that best fit may pick). The tiles
     * keep their ids, to free the ones free at the start afterwards. */
    size_t nt, k = 0;
    tp_tile *tile = list_tiles(s, &nt);
    bt_iter si;
    /* the segments in address order, as list_tiles walked them: tile[k..] are g's blocks */
    for (tp_seg *g = bt_first(&s->segs, &si); g; g = bt_next(&si)) {
        ev_base(&e, t, TR_ALLOC); /* creates the segment at its recorded address */
        e.id = (*next_id)++;
        e.bytes = g->small ? TP_MIN_BLOCK : g->size;
        e.addr = g->addr;
        e.stream = g->stream;
        emit(im, &e);
        uint64_t creator = e.id;
        ev_base(&e, t, TR_FREE);
        e.id = creator;
        e.stream = g->stream;
        emit(im, &e);
        for (; k < nt && tile[k].g == g; k++) {
            const tp_block *b = tile[k].b;
            /* small-pool pieces must stay <= 1 MiB to be served by the small pool */
            uint64_t piece = g->small ? TP_SMALL_SIZE : b->size;
            tile[k].id = *next_id;
            for (uint64_t off = 0; off < b->size; off += piece) {
                ev_base(&e, t, TR_ALLOC);
                e.id = (*next_id)++;
                e.bytes = AM_MIN(piece, b->size - off);
                e.addr = b->addr + off;
                e.name = name_at(im, b->name); /* a live block's; a free one has none */
                e.stream = g->stream;
                emit(im, &e);
            }
        }
    }
    request_recorded_sizes(t, im, tile, nt, next_id);
    for (k = 0; k < nt; k++) {
        const tp_block *b = tile[k].b;
        const tp_seg *g = tile[k].g;
        if (b->state == S_FREE) {
            /* free every piece of the block; they merge back into one */
            uint64_t piece = g->small ? TP_SMALL_SIZE : b->size;
            for (uint64_t off = 0, id = tile[k].id; off < b->size; off += piece, id++) {
                ev_base(&e, t, TR_FREE);
                e.id = id;
                e.stream = g->stream;
                emit(im, &e);
            }
            continue;
        }
        live_put(live, b->addr, tile[k].id);
        ranges_add(rg, b->addr, b->size - b->guess);
        if (b->state == S_ALLOC)
            continue;
        ev_base(&e, t, TR_FREE_REQUESTED);
        e.id = tile[k].id;
        e.stream = g->stream;
        emit(im, &e);
    }
    free(tile);
}

/* The start state of a snapshot amsim wrote of a replay that had a prologue
 * (`amsim_start_traces`, export_snapshot.c): the prologue's own requests, replayed as they
 * were, in place of the tiling of the dump-time segments walked back. A policy other than
 * caching places a tiling of its own blocks elsewhere than the requests that made them (BFC
 * chunks are larger than their requests, its regions were sized by other requests), so only
 * the same requests rebuild its state. free_requested with the free_completed after it is one
 * free, as the prologue's; device entries are only declared (the policy makes its device calls
 * itself). Entries that give no event are marked skipped.
 * An oom asks again with an id of its own: the same request fails the same way, and one that
 * a policy or capacity serves is freed where the original trace freed the failed request
 * (amsim_oom_free_requested / _completed naming the oom's index), or never when it did not.
 * A recovery the run made there (a spill, a defragmentation's moves) is no request, and the
 * replay's prologue, failing the same request, makes its own; its amsim_recovery_free and
 * amsim_recovery_alloc entries give no event but say where each buffer went, so that the
 * trace's frees at the addresses it left them at name the buffers the run freed (follow_move).
 */

/* A recovery's entry x: a free takes the buffer at its address aside (moved, by that
 * address: a defragmentation frees all its buffers before placing any, so a placement can
 * take an address another buffer has not yet been placed away from); a placement puts the
 * buffer that left `from` at its address. A spilled buffer stays aside: the default level no
 * longer holds it. Until 2026-11-27 neither was written, and a free at a compacted buffer's
 * new address named the buffer the prologue had placed there first.
 * An entry that contradicts the prologue's state is refused (-1): a free where no buffer of
 * the prologue is live (none there, or one a recovery already moved), a placement at the
 * address of a buffer still live. Only amsim writes them, of its own run, where neither can
 * happen; until 2026-11-27 both were followed silently, and the trace's later free at that
 * address named the wrong buffer, or none. */
static int follow_move(const trace *t, tp_live *live, tp_live *moved, const tp_entry *x,
                       int dev, size_t i, am_error *err)
{
    uint64_t id;
    if (x->action == A_RECOVERY_FREE) {
        if ((id = live_get(live, x->addr, 1)) == UINT64_MAX)
            return am_fail(err, AM_EINPUT, "%s: amsim_start_traces[%d][%zu]: "
                           "'amsim_recovery_free' at address %llu, where the prologue holds no "
                           "live buffer (a recovery moves live buffers only)", t->path, dev, i,
                           (unsigned long long)x->addr);
        live_put(moved, x->addr, id);
        return 0;
    }
    if (live_get(live, x->addr, 0) != UINT64_MAX)
        return am_fail(err, AM_EINPUT, "%s: amsim_start_traces[%d][%zu]: "
                       "'amsim_recovery_alloc' at address %llu, where a buffer of the prologue "
                       "is still live (a recovery places a buffer in free space only)", t->path,
                       dev, i, (unsigned long long)x->addr);
    if (x->from == TR_NO_ADDR || (id = live_get(moved, x->from, 1)) == UINT64_MAX)
        return 0; /* a buffer from another level: not the prologue's request on this one */
    live_put(live, x->addr, id);
    return 0;
}

/* The id of the start list's oom entry k, freed (whole = 1: no longer known after), or TP_NO_ID
 * when k names no oom still waiting for its free. */
static uint64_t oom_id(tp_entry *sen, size_t ns, uint64_t k, int whole)
{
    if (!sen || k >= ns || sen[k].action != A_OOM)
        return TP_NO_ID;
    uint64_t id = sen[k].id;
    if (whole)
        sen[k].id = TP_NO_ID;
    return id;
}

/* Start-list entry i (an alloc, or a recovery's placement) refused (-1) when it overlaps a
 * block not yet freed, as build_trace refuses an alloc: amsim writes its own run's placements,
 * which never do, but a snapshot edited by hand can, and an overlap among the stored ranges
 * would hide a later one from ranges_overlap (until 2026-11-28 none was looked for here). */
static int start_overlap(const trace *t, const tp_ranges *rg, const tp_entry *x, int dev,
                         size_t i, am_error *err)
{
    uint64_t at = ranges_overlap(rg, x->addr, x->size);
    if (at == UINT64_MAX)
        return 0;
    return am_fail(err, AM_EINPUT, "%s: amsim_start_traces[%d][%zu]: '%s' of %llu bytes at "
                   "address %llu overlaps the block at address %llu, not yet freed (no "
                   "free_completed): a caching allocator never hands out such an address",
                   t->path, dev, i, x->action == A_ALLOC ? "alloc" : "amsim_recovery_alloc",
                   (unsigned long long)x->size, (unsigned long long)x->addr,
                   (unsigned long long)at);
}

static int build_start(trace *t, tp_impl *im, tp_entry *en, size_t n, int dev, uint64_t *next_id,
                       tp_live *live, tp_ranges *rg, am_error *err)
{
    int rc = 0;
    tr_event e;
    tp_live moved; /* the buffers a recovery took from their address, not yet placed */
    live_init(&moved, n);
    for (size_t i = 0; i < n; i++) {
        tp_entry *x = &en[i];
        uint64_t id;
        switch (x->action) {
        case A_ALLOC:
        case A_OOM:
            ev_base(&e, t, TR_ALLOC);
            e.id = (*next_id)++;
            e.bytes = x->size;
            e.name = name_at(im, x->name);
            if (x->action == A_OOM)
                x->id = e.id;
            else {
                if (start_overlap(t, rg, x, dev, i, err) < 0) {
                    rc = -1;
                    goto out;
                }
                e.addr = x->addr;
                live_get(live, x->addr, 1);
                live_put(live, x->addr, e.id);
                ranges_add(rg, x->addr, x->size);
            }
            break;
        case A_FREE_REQ:
        case A_FREE_DONE:
        case A_OOM_FREE_REQ:
        case A_OOM_FREE_DONE: {
            /* a request's free, whole when its completion follows at once; the start list's
             * failed requests have their own pair of actions and ids (oom_id) */
            int oom = x->action == A_OOM_FREE_REQ || x->action == A_OOM_FREE_DONE;
            int done = oom ? A_OOM_FREE_DONE : A_FREE_DONE;
            int whole = x->action == done ||
                        (i + 1 < n && en[i + 1].action == done && en[i + 1].addr == x->addr);
            id = oom ? oom_id(en, n, x->addr, whole) : live_get(live, x->addr, whole);
            if (id == TP_NO_ID) { /* live_get's none is UINT64_MAX too */
                x->skipped = 1;
                continue;
            }
            ev_base(&e, t, whole ? TR_FREE : TR_FREE_REQUESTED);
            e.id = id;
            if (whole && !oom)
                ranges_drop(rg, x->addr);
            if (whole && x->action != done)
                i++; /* its completion */
            break;
        }
        case A_RECOVERY_FREE:
        case A_RECOVERY_ALLOC:
            if (follow_move(t, live, &moved, x, dev, i, err) < 0) {
                rc = -1;
                goto out;
            }
            if (x->action == A_RECOVERY_FREE)
                ranges_drop(rg, x->addr);
            else if (live_get(live, x->addr, 0) != UINT64_MAX) { /* a prologue buffer's */
                if (start_overlap(t, rg, x, dev, i, err) < 0) {
                    rc = -1;
                    goto out;
                }
                ranges_add(rg, x->addr, x->size);
            }
            continue;
        case A_SEG_ALLOC:
        case A_SEG_FREE:
        case A_SEG_MAP:
        case A_SEG_UNMAP:
        case A_MARK:
            continue;
        default:
            x->skipped = 1;
            continue;
        }
        e.stream = x->stream;
        emit(im, &e);
    }
out:
    free(moved.key);
    free(moved.val);
    return rc;
}

/* The trace entries as events. An entry that gives none (a free of an unknown address, an
 * unknown action) is marked skipped; the caller counts the marked entries. sen, ns: the start
 * list (NULL when none), whose failed requests the trace may free. */
static int build_trace(trace *t, tp_impl *im, tp_entry *en, size_t n, tp_entry *sen, size_t ns,
                       int dev, uint64_t *next_id, tp_live *live, tp_ranges *rg, am_error *err)
{
    tr_event e;
    for (size_t i = 0; i < n; i++) {
        tp_entry *x = &en[i];
        uint64_t id, at;
        switch (x->action) {
        case A_ALLOC:
            if ((at = ranges_overlap(rg, x->addr, x->size)) != UINT64_MAX)
                return am_fail(err, AM_EINPUT, "%s: device_traces[%d][%zu]: 'alloc' of %llu "
                               "bytes at address %llu overlaps the block at address %llu, not "
                               "yet freed (no free_completed): a caching allocator never hands "
                               "out such an address", t->path, dev, i,
                               (unsigned long long)x->size, (unsigned long long)x->addr,
                               (unsigned long long)at);
            ranges_add(rg, x->addr, x->size);
            ev_base(&e, t, TR_ALLOC);
            e.id = (*next_id)++;
            e.bytes = x->size;
            e.addr = x->addr;
            e.name = name_at(im, x->name);
            live_get(live, x->addr, 1); /* a stale entry would shadow the new one */
            live_put(live, x->addr, e.id);
            break;
        case A_FREE_REQ:
        case A_FREE_DONE:
            id = live_get(live, x->addr, x->action == A_FREE_DONE);
            if (id == UINT64_MAX) {
                x->skipped = 1;
                continue;
            }
            if (x->action == A_FREE_DONE)
                ranges_drop(rg, x->addr);
            ev_base(&e, t, x->action == A_FREE_REQ ? TR_FREE_REQUESTED : TR_FREE_COMPLETED);
            e.id = id;
            break;
        case A_OOM_FREE_REQ:
        case A_OOM_FREE_DONE:
            id = oom_id(sen, ns, x->addr, x->action == A_OOM_FREE_DONE);
            if (id == TP_NO_ID) {
                x->skipped = 1;
                continue;
            }
            ev_base(&e, t, x->action == A_OOM_FREE_REQ ? TR_FREE_REQUESTED : TR_FREE_COMPLETED);
            e.id = id;
            break;
        case A_SEG_ALLOC:
        case A_SEG_FREE:
        case A_SEG_MAP:
        case A_SEG_UNMAP: /* each one device call: validated as it is, merged or not */
            ev_base(&e, t, x->action == A_SEG_ALLOC || x->action == A_SEG_MAP ? TR_SEGMENT_ALLOC
                                                                              : TR_SEGMENT_FREE);
            e.bytes = x->size;
            e.addr = x->addr;
            break;
        case A_OOM:
            ev_base(&e, t, TR_OOM_RECORDED);
            e.bytes = x->size;
            e.name = name_at(im, x->name);
            break;
        case A_MARK:
            continue;
        default: /* an action this reader does not know: counted with the skipped rows */
            x->skipped = 1;
            continue;
        }
        e.stream = x->stream;
        e.time = x->time;
        e.line = i + 1;
        emit(im, &e);
    }
    return 0;
}

static void declare(trace *t, tp_impl *im, uint64_t addr, uint64_t size, uint32_t stream)
{
    tr_event e;
    ev_base(&e, t, TR_SEGMENT_ALLOC);
    e.declared = 1;
    e.addr = addr;
    e.bytes = size;
    e.stream = stream;
    emit(im, &e);
}

/* A range a segment_* entry names, to declare: the entry and its position among the trace's
 * entries and then the start list's. */
typedef struct tp_decl {
    uint64_t addr, size;
    size_t pos;
    uint32_t stream;
} tp_decl;

static int cmp_decl_range(const void *a, const void *b)
{
    const tp_decl *x = a, *y = b;
    if (x->addr != y->addr)
        return (x->addr > y->addr) - (x->addr < y->addr);
    if (x->size != y->size)
        return (x->size > y->size) - (x->size < y->size);
    return (x->pos > y->pos) - (x->pos < y->pos);
}

static int cmp_decl_pos(const void *a, const void *b)
{
    const tp_decl *x = a, *y = b;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

static int is_segment_entry(const tp_entry *e)
{
    return e->action >= A_SEG_ALLOC && e->action <= A_SEG_UNMAP;
}

/* Declare each segment the entries name (the trace's, then the start list's) that the
 * dump-time segments do not hold: once per address range, by the first entry naming it, in
 * entry order. A range taken and given back again and again (platform's device allocation per
 * request) is one segment: until 2026-11-27 each of its entries declared it, and `convert`
 * wrote 6 `segment_alloc ... declared=1` lines for one 4 MiB segment taken 3 times. */
static void declare_entries(trace *t, tp_impl *im, const tp_state *s, const tp_entry *en,
                            size_t n, const tp_entry *sen, size_t ns)
{
    /* room for every entry (an upper bound; am_malloc serves 0 bytes too), filled in one
     * pass: each entry's seg_find lookup is made once, not once to count and once to fill */
    tp_decl *d = am_malloc((n + ns) * sizeof *d);
    size_t k = 0;
    for (size_t i = 0; i < n + ns; i++) {
        const tp_entry *e = i < n ? &en[i] : &sen[i - n];
        if (is_segment_entry(e) && !seg_find(s, e->addr))
            d[k++] = (tp_decl){e->addr, e->size, i, e->stream};
    }
    if (!k) {
        free(d);
        return;
    }
    /* by range, then position: the first of each range stays */
    qsort(d, k, sizeof *d, cmp_decl_range);
    size_t u = 0;
    for (size_t i = 0; i < k; i++)
        if (!u || d[u - 1].addr != d[i].addr || d[u - 1].size != d[i].size)
            d[u++] = d[i];
    qsort(d, u, sizeof *d, cmp_decl_pos);
    for (size_t i = 0; i < u; i++)
        declare(t, im, d[i].addr, d[i].size, d[i].stream);
    free(d);
}

static void setting(trace *t, const char *key, const char *value)
{
    if (t->nsettings == TRACE_MAX_SETTINGS)
        return;
    trace_setting *x = &t->settings[t->nsettings++];
    snprintf(x->key, sizeof x->key, "%s", key);
    snprintf(x->value, sizeof x->value, "%s", value);
}

/* The refusal of allocator_settings' key of another type than PyTorch writes (expected: what
 * it writes). Until 2026-11-28 such a value was left out without a word, so a recording's
 * setting went unread and `amsim run` could not warn that the config differs. */
__attribute__((noinline, cold)) static int bad_setting(const trace *t, const char *key,
                                                       const pkl_value *v, const char *expected,
                                                       am_error *err)
{
    return am_fail(err, AM_EINPUT, "%s: allocator_settings: '%s' is %s, expected %s", t->path,
                   key, pkl_type_a(v->type), expected);
}

/* An integer value as a message shows it: from 2^63 (wide) unsigned. */
static void int_text(char *buf, size_t n, const pkl_value *v)
{
    if (v->wide)
        snprintf(buf, n, "%llu", (unsigned long long)(uint64_t)v->i);
    else
        snprintf(buf, n, "%lld", (long long)v->i);
}

/* roundup_power2_divisions as PyTorch writes it: a dict from the start of each power-of-two
 * interval in MiB ("1", "2", ... "32768") to its divisions, or in older versions one integer
 * for every interval, into d[16]. Anything else is refused, naming the key. */
static int read_divisions(const trace *t, const pkl_value *v, int64_t d[16], am_error *err)
{
    static const char *const key = "roundup_power2_divisions";
    int64_t i;
    if (v->type == PKL_INT && pkl_int(v, &i) == 0 && i >= 0) {
        for (int k = 0; k < 16; k++)
            d[k] = i;
        return 0;
    }
    char num[24];
    if (v->type == PKL_INT) {
        int_text(num, sizeof num, v);
        return am_fail(err, AM_EINPUT, "%s: allocator_settings: '%s' %s is out of range (a "
                       "number of divisions, 0 to 2^63 - 1)", t->path, key, num);
    }
    if (v->type != PKL_DICT)
        return bad_setting(t, key, v, "a dict (interval start in MiB: divisions) or an integer",
                           err);
    for (size_t k = 0; k < v->len; k++) {
        const pkl_value *kv = v->items[2 * k], *val = v->items[2 * k + 1];
        char *end = NULL;
        unsigned long mb = kv->type == PKL_STR ? strtoul(kv->s, &end, 10) : 0;
        if (kv->type != PKL_STR || *end || kv->s[0] < '1' || kv->s[0] > '9' || (mb & (mb - 1)) ||
            mb > 32768)
            return am_fail(err, AM_EINPUT, "%s: allocator_settings: '%s' has a key %s%s%s that "
                           "is no interval start ('1', '2', '4', ... '32768' MiB)", t->path, key,
                           kv->type == PKL_STR ? "'" : "of type ",
                           kv->type == PKL_STR ? kv->s : pkl_type_name(kv->type),
                           kv->type == PKL_STR ? "'" : "");
        if (val->type == PKL_INT && (pkl_int(val, &i) < 0 || i < 0)) {
            int_text(num, sizeof num, val);
            return am_fail(err, AM_EINPUT, "%s: allocator_settings: '%s'['%s'] %s is out of "
                           "range (a number of divisions, 0 to 2^63 - 1)", t->path, key, kv->s,
                           num);
        }
        if (val->type != PKL_INT)
            return am_fail(err, AM_EINPUT, "%s: allocator_settings: '%s'['%s'] is %s, "
                           "expected an integer (divisions)", t->path, key, kv->s,
                           pkl_type_a(val->type));
        d[__builtin_ctzl(mb)] = i;
    }
    return 0;
}

/* allocator_settings, as the caching policy's options (what is absent is left out: nothing to
 * compare it with; what PyTorch writes as no such type is refused, naming it). The divisions
 * are written as one number when the same for every interval, else as a list without its
 * trailing zeros. */
static int read_settings(trace *t, const pkl_value *a, am_error *err)
{
    if (!a)
        return 0;
    if (a->type != PKL_DICT)
        return am_fail(err, AM_EINPUT, "%s: 'allocator_settings' is %s, expected a dict",
                       t->path, pkl_type_a(a->type));
    const pkl_value *v;
    int64_t i;
    char buf[160];
    if ((v = pkl_get(a, "max_split_size"))) {
        static const char *const unit[] = {"B", "KiB", "MiB", "GiB"};
        int u = 0;
        if (v->type != PKL_INT)
            return bad_setting(t, "max_split_size", v, "an integer (bytes; -1: unlimited)", err);
        if (pkl_int(v, &i) < 0 || i < -1) {
            int_text(buf, sizeof buf, v);
            return am_fail(err, AM_EINPUT, "%s: allocator_settings: 'max_split_size' %s is out "
                           "of range (bytes up to 2^63 - 1, or -1: unlimited)", t->path, buf);
        }
        while (u < 3 && i > 0 && i % 1024 == 0) /* exact, in the largest unit that divides it */
            i /= 1024, u++;
        if (i < 0)
            snprintf(buf, sizeof buf, "unlimited");
        else
            snprintf(buf, sizeof buf, "%lld%s%s", (long long)i, u ? "" : " ", unit[u]);
        setting(t, "max_split_size", buf);
    }
    if ((v = pkl_get(a, "expandable_segments"))) {
        if (v->type != PKL_BOOL) /* a C++ bool: True or False, never 1 or 'True' */
            return bad_setting(t, "expandable_segments", v, "a bool", err);
        setting(t, "expandable_segments", v->i ? "true" : "false");
    }
    if ((v = pkl_get(a, "garbage_collection_threshold"))) {
        /* a C++ double; an int (a tool that went through JSON) is that number */
        if (v->type != PKL_FLOAT && (v->type != PKL_INT || v->wide))
            return bad_setting(t, "garbage_collection_threshold", v, "a float", err);
        double g = v->type == PKL_FLOAT ? v->f : (double)v->i;
        snprintf(buf, sizeof buf, "%.15g", g); /* 0.6, not 0.59999999999999998 ... */
        /* PyTorch takes 0 < threshold < 1 when set, and writes 0 when not: any other value
         * is no recording of its (until 2026-11-28 a run left out 2, nan or -1 without a
         * word, as no value a config can have to compare with) */
        if (!(g >= 0 && g < 1))
            return am_fail(err, AM_EINPUT, "%s: allocator_settings: "
                           "'garbage_collection_threshold' %s is out of range (0: off, or above "
                           "0 and below 1)", t->path, buf);
        double back = 0;
        if (units_real(buf, &back, NULL) != 0 || back != g)
            snprintf(buf, sizeof buf, "%.17g", g); /* ... unless that is another number */
        setting(t, "garbage_collection_threshold", buf);
    }
    if ((v = pkl_get(a, "roundup_power2_divisions"))) {
        int64_t d[16] = {0};
        if (read_divisions(t, v, d, err) < 0)
            return -1;
        int last = 15, same = 1;
        for (int k = 1; k < 16; k++)
            same &= d[k] == d[0];
        while (last > 0 && d[last] == 0)
            last--;
        if (same) {
            snprintf(buf, sizeof buf, "%lld", (long long)d[0]);
        } else {
            size_t m = (size_t)snprintf(buf, sizeof buf, "[");
            for (int k = 0; k <= (last ? last : 1); k++) /* one value alone would mean all */
                m += (size_t)snprintf(buf + m, sizeof buf - m, "%s%lld", k ? ", " : "",
                                      (long long)d[k]);
            snprintf(buf + m, sizeof buf - m, "]");
        }
        setting(t, "roundup_power2_divisions", buf);
    }
    return 0;
}

/* Whether the snapshot records anything for device dev: an entry in device_traces[dev] or a
 * segment of that device. */
static int device_recorded(const pkl_value *segs, const pkl_value *dt, int64_t dev)
{
    const pkl_value *list = (size_t)dev < dt->len ? dt->items[dev] : NULL;
    if (list && list->type == PKL_LIST && list->len > 0)
        return 1;
    for (size_t i = 0; i < segs->len; i++) /* a segment that is no dict is refused later */
        if (segs->items[i]->type == PKL_DICT && segment_device(segs->items[i]) == dev)
            return 1;
    return 0;
}

/* Every segment's 'device', where it has one, is an integer --device can choose (0..1024):
 * one that is no integer is refused as a wrong 'stream' is (until 2026-11-27 it was device 0),
 * and one out of that range by its value, since no run could read it (until 2026-11-27 a
 * segment on device -1 was silently left out, "trace ok, 0 events", and one on device 1025
 * made the message about an empty device suggest "--device 1025", which --device refuses).
 * Whatever device is chosen: the snapshot is one file, and it is read as a whole. */
static int check_segment_devices(trace *t, const pkl_value *segs, am_error *err)
{
    for (size_t i = 0; i < segs->len; i++) {
        const pkl_value *dv = pkl_get(segs->items[i], "device"); /* NULL: no dict, or none */
        int64_t sdev;
        if (dv && pkl_int(dv, &sdev) < 0) {
            char what[64];
            snprintf(what, sizeof what, "segments[%zu]", i);
            return wrong_type(t, what, "device", dv, err);
        }
        if (dv && (sdev < 0 || sdev > AM_MAX_DEVICE))
            return am_fail(err, AM_EINPUT, "%s: segments[%zu]: 'device' %lld is out of range "
                           "(a device number is 0..%d)", t->path, i, (long long)sdev,
                           AM_MAX_DEVICE);
    }
    return 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The devices --device can choose (0..AM_MAX_DEVICE) the snapshot records something for,
 * ascending and once each, into a new array (*n of them): those with entries in device_traces
 * and those of segments, which may lie past the end of device_traces (a device that allocated
 * before the trace ring started). *beyond counts device_traces lists with entries past
 * AM_MAX_DEVICE, which no run can choose (segments there are refused before). */
static int64_t *recorded_devices(const pkl_value *segs, const pkl_value *dt, size_t *n,
                                 size_t *beyond)
{
    int64_t *d = am_malloc((dt->len + segs->len + 1) * sizeof *d);
    size_t k = 0;
    *beyond = 0;
    for (size_t i = 0; i < dt->len; i++)
        if (dt->items[i]->type == PKL_LIST && dt->items[i]->len > 0) {
            if (i > AM_MAX_DEVICE)
                ++*beyond;
            else
                d[k++] = (int64_t)i;
        }
    for (size_t i = 0; i < segs->len; i++) /* in range: check_segment_devices ran first */
        if (segs->items[i]->type == PKL_DICT)
            d[k++] = segment_device(segs->items[i]);
    qsort(d, k, sizeof *d, cmp_i64);
    size_t u = 0;
    for (size_t i = 0; i < k; i++)
        if (u == 0 || d[u - 1] != d[i])
            d[u++] = d[i];
    *n = u;
    return d;
}

/* Device dev is none the snapshot has: past the end of device_traces (or negative) with no
 * segments anywhere to read it from. */
static int out_of_range(trace *t, int dev, const pkl_value *dt, am_error *err)
{
    if (dt->len == 0)
        return am_fail(err, AM_EINPUT, "%s: the snapshot has no device traces", t->path);
    return am_fail(err, AM_EINPUT, "%s: device %d: the snapshot has traces for %zu device%s "
                   "(0..%zu)", t->path, dev, dt->len, dt->len == 1 ? "" : "s", dt->len - 1);
}

/* A device that records nothing while another records something is refused, naming those
 * that do: its run would be 0 events and an empty table, which reads as a result (until
 * 2026-11-27 run, compare, mincap and check took device 0 of such a snapshot silently, and
 * still did until 2026-11-27 when the other device had only segments past the end of
 * device_traces). A snapshot that records nothing at all is read as it is (0 events) when dev
 * has a device_traces list, and refused as out of range otherwise. */
static int check_device_recorded(trace *t, const pkl_value *segs, const pkl_value *dt, int dev,
                                 am_error *err)
{
    if (device_recorded(segs, dt, dev))
        return 0;
    size_t nd, beyond;
    int64_t *d = recorded_devices(segs, dt, &nd, &beyond);
    char list[256] = "";
    size_t used = 0;
    for (size_t i = 0; i < nd && used < sizeof list - 24; i++) /* dev is not among them */
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%lld", i ? ", " : "",
                                 (long long)d[i]);
    free(d);
    if (nd == 0 && beyond > 0) /* nothing to suggest: say so rather than a --device refused */
        return am_fail(err, AM_EINPUT, "%s: device %d has no trace entries and no segments; the "
                       "snapshot records only device%s past %d, which --device cannot choose",
                       t->path, dev, beyond == 1 ? "" : "s", AM_MAX_DEVICE);
    if (nd == 0 && (size_t)dev < dt->len)
        return 0;
    if (nd == 0)
        return out_of_range(t, dev, dt, err);
    return am_fail(err, AM_EINPUT, "%s: device %d has no trace entries and no segments; the "
                   "snapshot records device%s %s (choose %s with --device %s)", t->path, dev,
                   nd == 1 ? "" : "s", list, nd == 1 ? "it" : "one", nd == 1 ? list : "N");
}

/* From a parsed document to the event array. */
static int build(trace *t, const pkl_value *root, tp_impl *im, am_error *err)
{
    if (!root || root->type != PKL_DICT)
        return am_fail(err, AM_EINPUT, "%s: not a PyTorch memory snapshot: the top-level "
                       "value is %s, expected a dict with lists 'segments' and "
                       "'device_traces'", t->path, root ? pkl_type_a(root->type) : "nothing");
    const pkl_value *segs = pkl_get(root, "segments"), *dt = pkl_get(root, "device_traces");
    static const char *const keys[] = {"segments", "device_traces"};
    const pkl_value *vals[] = {segs, dt};
    for (int k = 0; k < 2; k++)
        if (!vals[k] || vals[k]->type != PKL_LIST)
            return am_fail(err, AM_EINPUT, "%s: not a PyTorch memory snapshot: '%s' is %s, "
                           "expected a list", t->path, keys[k],
                           vals[k] ? pkl_type_a(vals[k]->type) : "missing");
    int dev = t->opts.device;
    if (dev < 0)
        return out_of_range(t, dev, dt, err);
    /* a device past the end of device_traces is read when it has segments: its trace is
     * empty (until 2026-11-27 it was refused as out of range), an empty device_traces too, a
     * snapshot of segments only (until 2026-11-27 refused: "the snapshot has no device
     * traces", for every device) */
    if (check_segment_devices(t, segs, err) != 0 ||
        check_device_recorded(t, segs, dt, dev, err) != 0)
        return -1;
    if (read_settings(t, pkl_get(root, "allocator_settings"), err) < 0)
        return -1;
    static const pkl_value no_entries = {.type = PKL_LIST};
    const pkl_value *list = (size_t)dev < dt->len ? dt->items[dev] : &no_entries;
    if (list->type != PKL_LIST)
        return am_fail(err, AM_EINPUT, "%s: device_traces[%d] is %s, expected a list",
                       t->path, dev, pkl_type_a(list->type));
    tp_streams st = {NULL, 0, 0};
    tp_names nm = {0};
    tp_state s;
    tp_entry *en = NULL, *sen = NULL; /* sen: amsim_start_traces' entries, if any */
    size_t n = 0, ns = 0;
    int rc = -1;
    int64_t origin;
    const int64_t *po = NULL;
    am_ps end;
    if (read_origin(t, pkl_get(root, "amsim_time_origin_us"), &origin, err) < 0 ||
        read_end(t, pkl_get(root, "amsim_end_ps"), &end, err) < 0)
        return -1;
    state_init(&s);
    if (pkl_get(root, "amsim_time_origin_us"))
        po = &origin;
    if (read_entries(t, "device_traces", list, dev, po, &st, &nm, &en, &n, err) < 0 ||
        read_segments(t, segs, dev, &st, &nm, &s, err) < 0 ||
        read_start(t, pkl_get(root, "amsim_start_traces"), dev, po, &st, &nm, &sen, &ns, err) < 0)
        goto out;
    /* every name is read: the events may point into them */
    im->names = nm.b;
    nm.b = NULL;
    /* 1. declarations: dump-time segments and segment_* addresses */
    bt_iter it;
    for (const tp_seg *g = bt_first(&s.segs, &it); g; g = bt_next(&it))
        declare(t, im, g->addr, g->size, g->stream);
    declare_entries(t, im, &s, en, n, sen, ns);
    /* 2. walk backwards to the state at the start. An entry that does not fit the state (an
     * alloc outside every known segment) leaves it as it is, and is still replayed: it is no
     * skipped row (until 2026-11-27 it was counted as one, so a snapshot without segments
     * reported all its entries skipped while replaying them) */
    if (!sen)
        for (size_t i = n; i-- > 0;)
            (void)undo(&s, &en[i]);
    uint64_t next_id = 1, nblocks = s.blocks.n;
    tp_live live;
    tp_ranges rg;
    live_init(&live, n + (sen ? ns : nblocks));
    ranges_init(&rg);
    if (!sen)
        build_prologue(t, im, &s, &next_id, &live, &rg);
    /* 3. the trace itself, after the start list's prologue when there is one */
    int bad = (sen && build_start(t, im, sen, ns, dev, &next_id, &live, &rg, err) < 0) ||
              build_trace(t, im, en, n, sen, ns, dev, &next_id, &live, &rg, err) < 0;
    ranges_free(&rg);
    free(live.key);
    free(live.val);
    if (bad)
        goto out;
    emit_end(t, im, end, n);
    /* each entry that gave no event, once (until 2026-11-27 a free of an unknown address
     * counted twice, in the backward walk and in the trace) */
    for (size_t i = 0; i < n; i++)
        t->skipped += (uint64_t)en[i].skipped;
    for (size_t i = 0; i < ns; i++)
        t->skipped += (uint64_t)sen[i].skipped;
    rc = 0;
out:
    state_free(&s);
    free(st.h);
    free(nm.b);
    free(en);
    free(sen);
    return rc;
}

/* ---- reader table ---- */

static int tp_next(trace *t, tr_event *ev, am_error *err)
{
    tp_impl *im = t->impl;
    if (im->next >= im->n)
        return 0;
    *ev = im->ev[im->next++];
    return 1;
}

static void tp_close(trace *t)
{
    tp_impl *im = t->impl;
    if (im) {
        free(im->ev);
        free(im->names);
    }
    free(im);
    t->impl = NULL;
}

static const struct trace_reader tp_reader = {"pytorch_snapshot", tp_next, tp_close, 1};

size_t trace_pickle_max_bytes = TRACE_PICKLE_MAX_BYTES;

/* Read the whole (decompressed) snapshot into *buf, refusing one larger than
 * trace_pickle_max_bytes: a gzip bomb of 2 MB would otherwise ask for gigabytes before the
 * parser saw a byte (until 2026-11-27 there was no bound: a 510 KB file took 1.05 GB). */
static int read_whole(trace *t, unsigned char **out, size_t *outlen, am_error *err)
{
    size_t cap = 1 << 16, len = 0, r;
    unsigned char *buf = am_malloc(cap);
    while ((r = fread(buf + len, 1, cap - len, t->f)) > 0) {
        len += r;
        if (len > trace_pickle_max_bytes) {
            free(buf);
            return am_fail(err, AM_EINPUT, "%s: the snapshot is larger than %zu bytes "
                           "(decompressed, if gzip-compressed), the most amsim reads",
                           t->path, trace_pickle_max_bytes);
        }
        if (len == cap) /* one byte past the limit is enough to know */
            buf = am_realloc(buf, cap = AM_MIN(2 * cap, trace_pickle_max_bytes + 1));
    }
    if (ferror(t->f)) {
        free(buf);
        /* a gzip stream's as trace.c and the other readers say it (until 2026-11-27 without
         * "gzip-compressed trace:") */
        return am_fail(err, AM_EINPUT, "%s: %sread error: %s", t->path,
                       trace_read_prefix(t->gz), trace_read_why(errno));
    }
    *out = buf;
    *outlen = len;
    return 0;
}

int trace_pickle_open(trace *t, am_error *err)
{
    unsigned char *buf = NULL;
    size_t len = 0;
    if (read_whole(t, &buf, &len, err) < 0)
        return -1;
    pkl_doc *doc;
    if (pkl_parse(buf, len, t->path, &doc, err) < 0) {
        free(buf);
        return -1;
    }
    free(buf);
    tp_impl *im = am_calloc(1, sizeof *im);
    if (build(t, pkl_root(doc), im, err) < 0) {
        pkl_free(doc);
        t->impl = im;
        tp_close(t); /* the one teardown of what build made */
        return -1;
    }
    pkl_free(doc);
    t->impl = im;
    t->reader = &tp_reader;
    t->validated = 1; /* a snapshot is validated from its start (trace_validated) */
    return 0;
}
