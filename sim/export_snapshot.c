/* export_snapshot.c - PyTorch memory snapshot writer (see export_snapshot.h).
 *
 * During the run the observer appends one record per trace entry (default level only). At the
 * end the state is recovered from them: per address, the last alloc / free_requested /
 * free_completed decides whether a block is active_allocated, active_pending_free or gone
 * (live blocks never share an address); the device ranges held at the end come from replaying
 * the device takes and gives in order. Each segment's blocks are its live blocks in address
 * order with the gaps as "inactive" blocks, so they tile it (what trace_pickle.c requires).
 *
 * In PyTorch a block never spans segments. The caching allocator's blocks stay inside the
 * device allocation that made them, and so do those of most policies, whose device takes are
 * then written as they are: segment_alloc / segment_free, one segment per range held. Heaps that
 * grow one contiguous range piece by piece (best_fit and first_fit by commit_granularity, BFC
 * with region_coalescing) place blocks across the pieces. A run where any block crossed the end
 * of the device range holding its start is written as PyTorch writes expandable segments:
 * segment_map / segment_unmap per device take and give, and each maximal run of adjacent ranges
 * held at the end as one segment with is_expandable set. PyTorch's viewer merges adjacent
 * mapped ranges when it walks the trace back (MemoryViz.js, map_segment), so its state matches
 * the segments at every entry, and replay validation still sees each take and give as the
 * device call it was. A policy with pools names each segment's pool and stream (alloc.h
 * segment_kind; the caching allocator): segment_type "small" for its small pool, expandable
 * ranges included, and the segment's stream, on the segment and on its device entries (a
 * segment_alloc made before its segment existed takes the stream of the request after it).
 * Other policies' segments are on stream 0, "small" when of exactly 2 MiB and not mapped. Every
 * segment is in the default pool, segment_pool_id (0, 0). Until 2026-11-27 every segment and
 * device entry was on stream 0 and every expandable segment "large", so the small pool's range
 * came back as a large one and a replay rebuilt a wrong start state.
 *
 * The caching allocator with expandable segments hands out addresses of virtual ranges of its
 * own and maps device pages behind them; its level reports each map and unmap of a virtual range
 * (alloc.h, maps_virtual), not the pages, so its run is written with expandable segments
 * whatever its blocks do: segment_map / segment_unmap as PyTorch records them, segments that are
 * the mapped runs of the virtual ranges, holding the blocks. A map that ran out of device memory
 * is not reported (PyTorch records none), only the maps and unmaps that took effect.
 *
 * Pickle (protocol 4, no framing, no memo): dicts are EMPTY_DICT MARK k v ... SETITEMS, lists
 * EMPTY_LIST MARK ... APPENDS, strings SHORT_BINUNICODE / BINUNICODE, integers BININT1 /
 * BININT2 / BININT or LONG1 (8 bytes, two's complement) beyond 32 bits (9 bytes from 2^63), the
 * pool id a TUPLE2.
 * time_us is the simulated time in whole microseconds. */
#include "export_snapshot.h"

#include <stdlib.h>
#include <string.h>

#include "../models/ordset.h"
#include "outfile.h"

enum { SA_ALLOC, SA_FREE_REQ, SA_FREE_DONE, SA_SEG_ALLOC, SA_SEG_FREE, SA_OOM, SA_OOM_FREE_REQ,
       SA_OOM_FREE_DONE };
static const char *const sa_names[] = {"alloc", "free_requested", "free_completed",
                                       "segment_alloc", "segment_free", "oom",
                                       "amsim_oom_free_requested", "amsim_oom_free_completed"};
/* the names of SA_SEG_ALLOC and SA_SEG_FREE when the segments are written as expandable */
static const char *const sa_map_names[] = {"segment_map", "segment_unmap"};

typedef struct snap_rec {
    int action;
    uint32_t stream;
    uint64_t addr, size, given; /* size: requested (alloc, oom) or segment bytes; given: block */
    am_ps t;
    int start; /* made by a start-state prologue: part of the state, not written as an entry */
    int kind;  /* device records: 1 when the policy named the segment's pool and stream */
} snap_rec;

/* A failed request of the prologue not freed yet: its id and its SA_OOM record. */
typedef struct snap_failed {
    uint64_t id;
    size_t rec;
} snap_failed;

struct snap_exp {
    outfile *o;
    const am_config *cfg;
    const sim *sim; /* snap_attach: the policy names its segments' pools and streams */
    sim_observer obs;
    snap_rec *r;
    size_t n, cap;
    size_t mark; /* records up to here belong to allocations and frees already reported */
    int mapped;  /* the level's device records are maps of virtual ranges (expandable) */
    int start;   /* a start-state prologue runs: its records are marked start */
    /* The new places of a defragmentation's moves (one event, seq held_seq), written after all
     * of its frees (sn_move): a buffer may move to where another one still was. */
    snap_rec *held;
    size_t nheld, capheld;
    uint64_t held_seq;
    /* The prologue's failed requests the trace has not freed yet (few: scanned linearly). */
    snap_failed *failed;
    size_t nfailed, capfailed;
    am_ps issue;    /* when the current event began on the host (sn_event) */
    int have_issue;
};

/* A record's time: when its event began on the host (sn_event), not when the observer hears
 * of it, which is after the policy's device-call latency: a replay of the export issues the
 * request at time_us and pays that latency again (until 2026-11-27 each such request came one
 * latency late, 20 us per platform cudaMalloc). Before any event (none seen): t. */
static am_ps sn_time(const snap_exp *x, am_ps t) { return x->have_issue ? x->issue : t; }

static void sn_append(snap_exp *x, snap_rec r)
{
    if (x->n == x->cap)
        x->r = am_realloc(x->r, (x->cap = x->cap ? x->cap * 2 : 4096) * sizeof *x->r);
    r.start = x->start;
    x->r[x->n++] = r;
}

static void sn_push(snap_exp *x, snap_rec r)
{
    r.t = sn_time(x, r.t);
    sn_append(x, r);
}

/* The held allocations of a defragmentation, after its frees. */
static void sn_flush(snap_exp *x)
{
    for (size_t i = 0; i < x->nheld; i++)
        sn_append(x, x->held[i]); /* timed when held */
    if (x->nheld)
        x->mark = x->n;
    x->nheld = 0;
}

/* A replayed snapshot's prologue (engine.h) rebuilds the recording's start state by tiling its
 * segments with allocations; PyTorch has the start state only in the dump-time `segments`,
 * from which a reader walks the trace back. So the prologue's records count in the state at
 * the end but are written as no trace entry (until 2026-11-27 they were, and the export's
 * replay allocated the tiling as the program's own requests). They are written apart, as
 * `amsim_start_traces`, which amsim's reader replays as the prologue: the dump-time segments
 * hold the policy's blocks (a BFC chunk, a platform segment rounded to its granularity), and a
 * tiling of those is other requests than the prologue's, so it rebuilt another state (until
 * 2026-11-27: BFC's replay of MAGMA27's export peaked 8 MiB higher, 396 of 1,721 allocations
 * at their address; platform's 0). */
static void sn_prologue(void *ctx, int on)
{
    snap_exp *x = ctx;
    sn_flush(x);
    x->start = on;
}

static void sn_event(void *ctx, am_ps t)
{
    snap_exp *x = ctx;
    x->issue = t;
    x->have_issue = 1;
}

static void sn_alloc(void *ctx, am_ps t, uint64_t seq, uint64_t id, int level, uint32_t stream,
                     uint64_t addr, uint64_t requested, uint64_t size, int ok)
{
    snap_exp *x = ctx;
    sn_flush(x);
    if (level != x->cfg->default_level)
        return;
    sn_push(x, (snap_rec){ok ? SA_ALLOC : SA_OOM, stream, ok ? addr : 0, requested, size, t, 0, 0});
    if (!ok && x->start) {
        if (x->nfailed == x->capfailed) {
            x->capfailed = x->capfailed ? x->capfailed * 2 : 16;
            x->failed = am_realloc(x->failed, x->capfailed * sizeof *x->failed);
        }
        x->failed[x->nfailed++] = (snap_failed){id, x->n - 1};
    }
    x->mark = x->n;
}

/* The trace's free of a request that failed in the prologue: a policy or capacity that serves
 * the request when the export is replayed must free it where the original trace did (until
 * 2026-11-27 nothing was written, and the reader's replay of the oom stayed allocated for
 * good). Written as amsim_oom_free_requested / amsim_oom_free_completed with `oom`, the index
 * of the request's oom entry in amsim_start_traces (sn_entries); the free of a request that
 * failed after the prologue is not written: its oom entry is a recorded one, served or not
 * at once. */
static void sn_free_failed(void *ctx, am_ps t, uint64_t id, int level, uint32_t stream,
                           uint64_t requested, int phase)
{
    snap_exp *x = ctx;
    sn_flush(x);
    if (level != x->cfg->default_level)
        return;
    size_t k = x->nfailed;
    while (k > 0 && x->failed[k - 1].id != id)
        k--;
    if (k == 0)
        return;
    size_t rec = x->failed[k - 1].rec;
    if (phase != 2)
        sn_push(x, (snap_rec){SA_OOM_FREE_REQ, stream, rec, requested, 0, t, 0, 0});
    if (phase != 1) {
        sn_push(x, (snap_rec){SA_OOM_FREE_DONE, stream, rec, requested, 0, t, 0, 0});
        x->failed[k - 1] = x->failed[--x->nfailed];
    }
    x->mark = x->n;
}

static void sn_free(void *ctx, am_ps t, uint64_t id, int level, uint32_t stream, uint64_t addr,
                    uint64_t requested, uint64_t size, int phase)
{
    snap_exp *x = ctx;
    sn_flush(x);
    if (level != x->cfg->default_level)
        return;
    /* The device releases this free made (platform gives every block back), recorded since the
     * last allocation or free reported, came before it, as the allocator made them: PyTorch writes segment_free after the
     * free_completed that released the memory, and its viewer, walking back, needs the segment
     * to exist while the block is freed. They move after the free's own entries. */
    size_t k = x->n;
    while (k > x->mark && x->r[k - 1].action == SA_SEG_FREE)
        k--;
    size_t nrel = x->n - k;
    if (phase != 2)
        sn_push(x, (snap_rec){SA_FREE_REQ, stream, addr, requested, size, t, 0, 0});
    if (phase != 1)
        sn_push(x, (snap_rec){SA_FREE_DONE, stream, addr, requested, size, t, 0, 0});
    /* the free's entries, pushed last, go in front of the releases */
    size_t m = x->n - k - nrel;
    if (nrel && m) {
        snap_rec fr[2];
        memcpy(fr, x->r + k + nrel, m * sizeof *fr);
        memmove(x->r + k + m, x->r + k, nrel * sizeof *x->r);
        memcpy(x->r + k, fr, m * sizeof *fr);
    }
    x->mark = x->n;
}

/* The free of a block a defragmentation (event seq) released, among its frees: the
 * allocations of its moves held so far stay held (sn_free would write them first). */
static void sn_defrag_free(snap_exp *x, am_ps t, uint64_t seq, uint64_t id, uint32_t stream,
                           int level, uint64_t addr, uint64_t requested, uint64_t size)
{
    if (x->nheld && seq != x->held_seq)
        sn_flush(x);
    size_t nheld = x->nheld;
    x->nheld = 0;
    sn_free(x, t, id, level, stream, addr, requested, size, 0);
    x->nheld = nheld;
}

/* A buffer that changed place without a request: a snapshot has no move, so it is the free
 * of where it was and the allocation of where it is, each on the default level only (a spill
 * frees it there, a restore allocates it again; the host copy is not in the snapshot). The
 * moves of one defragmentation (same level, one event) are all its frees, then all its
 * allocations: the engine reports each buffer once placed again, and a buffer can take the
 * place of one not reported yet (until 2026-11-25 the snapshot then held two live blocks at
 * one address, and a viewer keying blocks by address lost one). */
static void sn_move(void *ctx, am_ps t, uint64_t seq, uint64_t id, uint32_t stream,
                    int from_level, uint64_t from_addr, uint64_t from_size, int level,
                    uint64_t addr, uint64_t requested, uint64_t size)
{
    snap_exp *x = ctx;
    if (from_level != level || level != x->cfg->default_level) {
        sn_free(ctx, t, id, from_level, stream, from_addr, requested, from_size, 0);
        sn_alloc(ctx, t, seq, id, level, stream, addr, requested, size, 1);
        return;
    }
    sn_defrag_free(x, t, seq, id, stream, level, from_addr, requested, from_size);
    if (x->nheld == x->capheld)
        x->held = am_realloc(x->held, (x->capheld = x->capheld ? x->capheld * 2 : 64) *
                                          sizeof *x->held);
    x->held[x->nheld++] = (snap_rec){SA_ALLOC, stream, addr, requested, size, sn_time(x, t), 0, 0};
    x->held_seq = seq;
}

/* A buffer a defragmentation could not place again: PyTorch has no lost block, so it is freed
 * (free_requested, free_completed) where its block was, among that defragmentation's frees;
 * the trace's own free of it comes to nothing. Until 2026-11-27 it was never freed, and the
 * buffers moved onto its block overlapped it. */
static void sn_lost(void *ctx, am_ps t, uint64_t seq, uint64_t id, uint32_t stream, int level,
                    uint64_t addr, uint64_t requested, uint64_t size)
{
    snap_exp *x = ctx;
    if (level != x->cfg->default_level)
        return;
    sn_defrag_free(x, t, seq, id, stream, level, addr, requested, size);
}

/* The pool (1: small) and stream of the policy's segment holding addr, when it can say
 * (alloc.h segment_kind); -1 otherwise. */
static int sn_kind(const snap_exp *x, uint64_t addr, uint32_t *stream)
{
    if (!x->sim)
        return -1;
    mem_level *m = sim_level(x->sim, x->cfg->default_level);
    const struct alloc_ops *p = mem_policy(m);
    int small = 0;
    if (!p->segment_kind || p->segment_kind(mem_policy_state(m), addr, &small, stream) != 0)
        return -1;
    return small;
}

/* A device take or give (a map or unmap of a virtual range): on the stream of its segment, as
 * PyTorch writes it, when the policy names it. A take the policy has not made its segment of
 * yet gets the stream of the request after it (sn_streams). */
static void sn_device(void *ctx, am_ps t, int level, int alloc, uint64_t addr, uint64_t bytes)
{
    snap_exp *x = ctx;
    if (level != x->cfg->default_level)
        return;
    snap_rec r = {alloc ? SA_SEG_ALLOC : SA_SEG_FREE, 0, addr, bytes, bytes, t, 0, 0};
    r.kind = sn_kind(x, addr, &r.stream) >= 0;
    sn_push(x, r);
}

/* Device takes whose segment's stream is not known yet: the next request's (PyTorch's
 * segment_alloc is made for the request after it, on its stream). */
static void sn_streams(snap_exp *x)
{
    uint32_t next = 0;
    for (size_t i = x->n; i-- > 0;) {
        snap_rec *r = &x->r[i];
        if (r->action == SA_ALLOC || r->action == SA_OOM)
            next = r->stream;
        else if (r->action == SA_SEG_ALLOC && !r->kind && x->sim &&
                 mem_policy(sim_level(x->sim, x->cfg->default_level))->segment_kind)
            r->stream = next;
    }
}

int snap_open(snap_exp **xp, const char *path, const am_config *cfg, am_error *err)
{
    *xp = NULL;
    if (!path)
        return 0;
    snap_exp *x = am_calloc(1, sizeof *x);
    if (out_open(&x->o, path, err) != 0) {
        free(x);
        return -1;
    }
    x->cfg = cfg;
    const cfg_level *L = &cfg->levels[cfg->default_level];
    x->mapped = L->policy->maps_virtual && L->policy->maps_virtual(L->policy_opts);
    x->obs = (sim_observer){.ctx = x, .alloc = sn_alloc, .free = sn_free, .device = sn_device,
                            .move = sn_move, .lost = sn_lost,
                            .prologue = sn_prologue, .free_failed = sn_free_failed,
                            .event = sn_event};
    *xp = x;
    return 0;
}

const sim_observer *snap_observer(snap_exp *x) { return x ? &x->obs : NULL; }

void snap_attach(snap_exp *x, const sim *s)
{
    if (x)
        x->sim = s;
}

/* ---- pickle emitters ---- */

static void pk_str(FILE *f, const char *s)
{
    size_t n = strlen(s);
    if (n < 256) {
        fputc(0x8c, f);
        fputc((int)n, f);
    } else {
        fputc('X', f);
        for (int i = 0; i < 4; i++)
            fputc((int)((n >> (8 * i)) & 0xff), f);
    }
    fwrite(s, 1, n, f);
}

static void pk_int(FILE *f, int64_t v)
{
    if (v >= 0 && v < 256) {
        fputc('K', f);
        fputc((int)v, f);
    } else if (v >= 0 && v < 65536) {
        fputc('M', f);
        fputc((int)(v & 0xff), f);
        fputc((int)(v >> 8), f);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
        uint32_t u = (uint32_t)(int32_t)v;
        fputc('J', f);
        for (int i = 0; i < 4; i++)
            fputc((int)((u >> (8 * i)) & 0xff), f);
    } else {
        uint64_t u = (uint64_t)v;
        fputc(0x8a, f); /* LONG1, 8 bytes little-endian two's complement */
        fputc(8, f);
        for (int i = 0; i < 8; i++)
            fputc((int)((u >> (8 * i)) & 0xff), f);
    }
}

/* An unsigned value, exactly: one from 2^63 (an address or size near 2^64, a sum of sizes) is
 * LONG1 with 9 bytes, the ninth 0 so that it reads as positive (pickle integers have no size
 * limit). Until 2026-11-27 such values were written as 2^63 - 1, silently. */
static void pk_u64(FILE *f, uint64_t v)
{
    if (v <= INT64_MAX) {
        pk_int(f, (int64_t)v);
        return;
    }
    fputc(0x8a, f); /* LONG1 */
    fputc(9, f);
    for (int i = 0; i < 8; i++)
        fputc((int)((v >> (8 * i)) & 0xff), f);
    fputc(0, f);
}

static void pk_kstr(FILE *f, const char *k, const char *v) { pk_str(f, k); pk_str(f, v); }
static void pk_kint(FILE *f, const char *k, uint64_t v) { pk_str(f, k); pk_u64(f, v); }
static void pk_dict_begin(FILE *f) { fputc('}', f); fputc('(', f); }
static void pk_dict_end(FILE *f) { fputc('u', f); }
static void pk_list_begin(FILE *f) { fputc(']', f); fputc('(', f); }
static void pk_list_end(FILE *f) { fputc('e', f); }
static void pk_empty_list(FILE *f) { fputc(']', f); }

/* ---- end state ---- */

typedef struct sn_key {
    uint64_t addr;
    size_t i;
} sn_key;

static int sn_key_cmp(const void *a, const void *b)
{
    const sn_key *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* Indices of the records of `kinds` (bit mask of actions) that are still in effect at the end,
 * the last record per address deciding; sorted by address. Returns the count. */
static size_t sn_final(const snap_exp *x, unsigned kinds, unsigned live_kinds, sn_key **out)
{
    sn_key *k = am_malloc((x->n ? x->n : 1) * sizeof *k);
    size_t n = 0, m = 0;
    for (size_t i = 0; i < x->n; i++)
        if (kinds & (1u << x->r[i].action))
            k[n++] = (sn_key){x->r[i].addr, i};
    qsort(k, n, sizeof *k, sn_key_cmp);
    for (size_t i = 0; i < n; i++)
        if ((i + 1 == n || k[i + 1].addr != k[i].addr) &&
            (live_kinds & (1u << x->r[k[i].i].action)))
            k[m++] = k[i];
    *out = k;
    return m;
}

/* ---- device ranges ---- */

/* A device range held, in an address-ordered set: k1 = address, val = bytes. */
static os_node *sn_range_new(uint64_t addr, uint64_t bytes)
{
    os_node *r = am_calloc(1, sizeof *r);
    r->k1 = addr;
    r->val = bytes;
    return r;
}

/* Give back [a, e): ranges inside go, ranges reaching over an end are cut (a give need not be
 * one earlier take: BFC with region_coalescing gives back a whole merged region). */
static void sn_range_give(os_tree *t, uint64_t a, uint64_t e)
{
    os_node *c = os_floor(t, a, UINT64_MAX);
    if (!c || c->k1 + c->val <= a)
        c = c ? os_next(c) : os_first(t);
    while (c && c->k1 < e) {
        os_node *next = os_next(c);
        uint64_t cs = c->k1, ce = c->k1 + c->val;
        if (cs < a) {
            os_set_val(t, c, a - cs); /* the low part stays */
            if (ce > e)
                os_insert(t, sn_range_new(e, ce - e)); /* and the high part */
        } else if (ce > e) {
            os_rekey_in_place(c, e, 0); /* stays between its neighbours */
            os_set_val(t, c, ce - e);
        } else {
            os_remove(t, c);
            free(c);
        }
        c = next;
    }
}

/* Replay the device takes and gives of the run into t (the ranges held at the end). Returns 1
 * when some block reached past the end of the range holding its start: the policy's blocks
 * span device takes, and the snapshot has to be written with expandable segments. */
static int sn_ranges(const snap_exp *x, os_tree *t)
{
    int spans = 0;
    t->no_aug = 1;
    for (size_t i = 0; i < x->n; i++) {
        const snap_rec *r = &x->r[i];
        os_node *c;
        if (r->action == SA_SEG_ALLOC) {
            c = os_lower_bound(t, r->addr, 0);
            if (!(c && c->k1 == r->addr)) /* a take over a held range does not happen */
                os_insert(t, sn_range_new(r->addr, r->size));
        } else if (r->action == SA_SEG_FREE) {
            sn_range_give(t, r->addr, r->addr + r->size);
        } else if (r->action == SA_ALLOC && !spans) {
            c = os_floor(t, r->addr, UINT64_MAX);
            spans = c && r->addr < c->k1 + c->val && r->addr + r->given > c->k1 + c->val;
        }
    }
    return spans;
}

static void sn_block(FILE *f, uint64_t addr, uint64_t size, uint64_t requested, const char *state)
{
    pk_dict_begin(f);
    pk_kint(f, "address", addr);
    pk_kint(f, "size", size);
    pk_kint(f, "requested_size", requested);
    pk_kstr(f, "state", state);
    pk_str(f, "frames");
    pk_empty_list(f);
    pk_dict_end(f);
}

/* A segment of the dump: one device range held, or a run of adjacent ones (expandable). */
typedef struct sn_seg {
    uint64_t addr, size;
} sn_seg;

/* The records of the prologue (start = 1) or of the run after it (start = 0) as one device's
 * trace entries: a list holding device 0's list. spos: each prologue record's index in the
 * prologue's list (a failed request's free names its oom entry by it). */
static void sn_entries(const snap_exp *x, FILE *f, int expandable, int start, const size_t *spos)
{
    pk_list_begin(f);
    pk_list_begin(f);
    for (size_t i = 0; i < x->n; i++) {
        const snap_rec *r = &x->r[i];
        if (r->start != start)
            continue;
        pk_dict_begin(f);
        pk_kstr(f, "action", expandable && (r->action == SA_SEG_ALLOC || r->action == SA_SEG_FREE)
                                 ? sa_map_names[r->action - SA_SEG_ALLOC]
                                 : sa_names[r->action]);
        if (r->action == SA_OOM)
            pk_kint(f, "device_free", 0);
        else if (r->action == SA_OOM_FREE_REQ || r->action == SA_OOM_FREE_DONE)
            pk_kint(f, "oom", spos[r->addr]);
        else
            pk_kint(f, "addr", r->addr);
        pk_kint(f, "size", r->size);
        pk_kint(f, "stream", r->stream);
        pk_kint(f, "time_us", r->t / AM_PS_PER_US);
        pk_str(f, "frames");
        pk_empty_list(f);
        pk_dict_end(f);
    }
    pk_list_end(f);
    pk_list_end(f);
}

static void sn_write(snap_exp *x, FILE *f)
{
    sn_key *blk;
    size_t nb = sn_final(x, 1u << SA_ALLOC | 1u << SA_FREE_REQ | 1u << SA_FREE_DONE,
                         1u << SA_ALLOC | 1u << SA_FREE_REQ, &blk);
    os_tree held = {0};
    int expandable = sn_ranges(x, &held) || x->mapped;
    sn_seg *seg = am_malloc((held.n ? held.n : 1) * sizeof *seg);
    size_t ns = 0;
    for (os_node *c = os_first(&held); c; c = os_next(c)) {
        if (expandable && ns && seg[ns - 1].addr + seg[ns - 1].size == c->k1)
            seg[ns - 1].size += c->val; /* as PyTorch's viewer merges adjacent mapped ranges */
        else
            seg[ns++] = (sn_seg){c->k1, c->val};
    }
    for (os_node *c; (c = os_first(&held));) { /* os_next climbs to parents: free after */
        os_remove(&held, c);
        free(c);
    }
    fputc(0x80, f);
    fputc(4, f);
    pk_dict_begin(f);
    pk_str(f, "segments");
    pk_list_begin(f);
    size_t b = 0;
    for (size_t s = 0; s < ns; s++) {
        const sn_seg *g = &seg[s];
        uint64_t end = g->addr + g->size, alloc_sz = 0, active = 0, req = 0;
        while (b < nb && x->r[blk[b].i].addr < g->addr)
            b++; /* blocks outside any segment (not expected): left out */
        size_t b0 = b;
        for (; b < nb && x->r[blk[b].i].addr < end; b++) {
            const snap_rec *r = &x->r[blk[b].i];
            active += r->given;
            req += r->size;
            if (r->action == SA_ALLOC)
                alloc_sz += r->given;
        }
        pk_dict_begin(f);
        pk_kint(f, "device", 0);
        pk_kint(f, "address", g->addr);
        pk_kint(f, "total_size", g->size);
        pk_kint(f, "allocated_size", alloc_sz);
        pk_kint(f, "active_size", active);
        pk_kint(f, "requested_size", req);
        uint32_t stream = 0;
        int small = sn_kind(x, g->addr, &stream);
        if (small < 0) { /* a policy without pools: PyTorch's small segment size decides */
            small = g->size == (2u << 20) && !expandable;
            stream = 0;
        }
        pk_kint(f, "stream", stream);
        pk_kstr(f, "segment_type", small ? "small" : "large");
        pk_str(f, "segment_pool_id"); /* the default pool, (0, 0): no private pools */
        pk_int(f, 0);
        pk_int(f, 0);
        fputc(0x86, f); /* TUPLE2 */
        pk_str(f, "is_expandable");
        fputc(expandable ? 0x88 : 0x89, f); /* NEWTRUE / NEWFALSE */
        pk_str(f, "frames");
        pk_empty_list(f);
        pk_str(f, "blocks");
        pk_list_begin(f);
        uint64_t at = g->addr;
        for (size_t j = b0; j < b; j++) {
            const snap_rec *r = &x->r[blk[j].i];
            if (r->addr > at)
                sn_block(f, at, r->addr - at, 0, "inactive");
            sn_block(f, r->addr, r->given, r->size,
                     r->action == SA_ALLOC ? "active_allocated" : "active_pending_free");
            at = r->addr + r->given;
        }
        if (at < end)
            sn_block(f, at, end - at, 0, "inactive");
        pk_list_end(f);
        pk_dict_end(f);
    }
    pk_list_end(f);
    pk_str(f, "device_traces");
    size_t *spos = am_malloc((x->n ? x->n : 1) * sizeof *spos), nstart = 0;
    for (size_t i = 0; i < x->n; i++)
        if (x->r[i].start)
            spos[i] = nstart++;
    sn_entries(x, f, expandable, 0, spos);
    /* the prologue's requests, for amsim's reader only (PyTorch's viewer ignores the key) */
    if (nstart) {
        pk_str(f, "amsim_start_traces");
        sn_entries(x, f, expandable, 1, spos);
    }
    free(spos);
    /* time_us is simulated time, which starts at 0: amsim's reader measures from here rather
     * than from the first entry, so time before it (an at=, the prologue's device calls) is
     * kept (until 2026-11-27 it was lost; PyTorch's viewer ignores the key) */
    pk_kint(f, "amsim_time_origin_us", 0);
    pk_str(f, "allocator_settings");
    fputc('}', f);
    pk_str(f, "external_annotations");
    pk_empty_list(f);
    pk_dict_end(f);
    fputc('.', f);
    free(blk);
    free(seg);
}

outfile *snap_finish(snap_exp *x)
{
    if (!x)
        return NULL;
    sn_flush(x);
    sn_streams(x);
    sn_write(x, out_fp(x->o));
    outfile *o = x->o;
    free(x->r);
    free(x->held);
    free(x->failed);
    free(x);
    return o;
}

void snap_abort(snap_exp *x)
{
    if (!x)
        return;
    out_abort(x->o);
    free(x->r);
    free(x->held);
    free(x->failed);
    free(x);
}
