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
 * time_us is the simulated time in whole microseconds (PyTorch's int), and amsim_sub_us_ps the
 * picoseconds past it when there are any, which amsim's reader adds back (trace_pickle.c). */
#include "export_snapshot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../models/ordset.h"
#include "outfile.h"

enum { SA_ALLOC, SA_FREE_REQ, SA_FREE_DONE, SA_SEG_ALLOC, SA_SEG_FREE, SA_OOM, SA_OOM_FREE_REQ,
       SA_OOM_FREE_DONE };
static const char *const sa_names[] = {"alloc", "free_requested", "free_completed",
                                       "segment_alloc", "segment_free", "oom",
                                       "amsim_oom_free_requested", "amsim_oom_free_completed"};
/* The names of a prologue recovery's free and placement (snap_rec start 2) in
 * amsim_start_traces: no request, only where the buffer went (sn_entries). */
static const char *const sa_recovery_names[] = {"amsim_recovery_alloc", NULL,
                                                "amsim_recovery_free"};
#define SN_NO_FROM UINT64_MAX /* a placement that did not come from the default level */
/* the names of SA_SEG_ALLOC and SA_SEG_FREE when the segments are written as expandable */
static const char *const sa_map_names[] = {"segment_map", "segment_unmap"};

typedef struct snap_rec {
    int action;
    uint32_t stream;
    uint64_t addr, size, given; /* size: requested (alloc, oom) or segment bytes; given: block */
    am_ps t;
    /* made by a start-state prologue (1): part of the state, not written as an entry; 2: by a
     * recovery there (sn_prologue), no request: an amsim_recovery_* entry of amsim_start_traces */
    int start;
    int kind;  /* device records: 1 when the policy named the segment's pool and stream */
    int pending; /* a device take waiting for the stream of the request after it */
    /* start 2, SA_ALLOC: where the moved buffer was on the default level, or SN_NO_FROM (set
     * by sn_append, whatever the record came with) */
    uint64_t from;
    /* SA_ALLOC or SA_OOM of a request the trace named (`name=`): 1 + where the name is in the
     * names scratch file (sn_name_put), written as the entry's one frame; 0 when unnamed (until
     * 2026-11-28 an oom entry had none) */
    uint64_t name;
} snap_rec;

/* A block at the end as far as the final records say: per address, the last alloc,
 * free_requested or free_completed decides (live blocks never share an address); a
 * free_completed removes it. */
typedef struct sn_blk {
    os_node node; /* k1 = address; first, so that an os_node * is an sn_blk * */
    int action;   /* SA_ALLOC (active_allocated) or SA_FREE_REQ (active_pending_free) */
    uint64_t size, given; /* requested, block */
} sn_blk;

/* A failed request of the prologue not freed yet: its id and its SA_OOM record's index among
 * the prologue's records (its entry in amsim_start_traces). */
typedef struct snap_failed {
    uint64_t id;
    uint64_t rec;
} snap_failed;

/* An expired wait's `oom` held back until the allocation the engine made before it noticed the
 * expiry is written (sn_alloc): its record, time set, and its request's id. */
typedef struct snap_held {
    snap_rec r;
    uint64_t id;
} snap_held;

struct snap_exp {
    outfile *o;
    const char *path;
    const am_config *cfg;
    const sim *sim; /* snap_attach: the policy names its segments' pools and streams */
    sim_observer obs;
    /* The records not final yet: from those of the last allocation or free reported on (after
     * mark: its device releases move behind its frees, sn_free) or from the first device take
     * that waits for the stream of the request after it (sn_resolve). The final ones are
     * folded into the end state (blocks, ranges, spans) and spilled to scratch[start], so memory
     * follows the live blocks and device ranges, not the events (until 2026-11-27 every record
     * stayed in memory to the end, with a sort key and an index per record at the end: about
     * 95 bytes per trace entry, 383 MB for a 4M-event trace). */
    snap_rec *r;
    size_t n, cap;
    size_t mark; /* records up to here belong to allocations and frees already reported */
    size_t npending; /* device takes among r waiting for a request's stream */
    uint64_t nstart; /* start records appended so far (an oom's index in amsim_start_traces) */
    FILE *scratch[2]; /* the final records after the prologue [0] and of it [1], in order */
    /* the names of named allocations (snap_rec.name), each a length byte and its bytes: kept
     * on disk as the records are, so memory does not grow with them; NULL until the first */
    FILE *names;
    uint64_t names_len;
    uint64_t nspilled[2];
    int scratch_errno; /* a scratch write (or, scratch_read set, a read back) failed */
    int scratch_read;
    os_tree blocks;  /* sn_blk by address: the blocks live (or pending free) now */
    os_tree ranges;  /* the device ranges held now (sn_range_new) */
    int spans;       /* some block reached past the end of the range holding its start */
    int mapped;  /* the level's device records are maps of virtual ranges (expandable) */
    int start;   /* a start-state prologue runs: its records are marked start */
    int recovery; /* a defragmentation's free or a move is being recorded (sn_prologue) */
    /* the recovery's placement being recorded came from here, or SN_NO_FROM: set by sn_move
     * before its allocation, read only for that allocation (sn_append, recovery set) */
    uint64_t move_from;
    /* The prologue's failed requests the trace has not freed yet (few: scanned linearly). */
    snap_failed *failed;
    size_t nfailed, capfailed;
    /* Expired waits' oom records waiting for the allocation settled after them (sn_alloc). */
    snap_held *held;
    size_t nheld, capheld;
    am_ps issue;    /* when the current event began on the host (sn_event) */
    int have_issue;
    /* A move to another level wrote the free of where the buffer was (sn_move) before the
     * engine gave that memory back (engine.c: restore frees the host copy, spill_one the
     * device block, after the copy has read it): the device gives reported until the level's
     * counters after that free (sn_counters) are that free's, and stay behind it (sn_device).
     * Gives after those (a failed attempt's miss path) are not. */
    int move_free;
    /* A recovery on the default level (a defragmentation's releases and placements, a spill's
     * free) is being recorded: its records start at r[recov] (SIZE_MAX: none), and stay
     * uncommitted until the first record after its copies (recov_done: its `action` came), so
     * that the `oom` of a wait that ran out while it held the host goes in front of them
     * (sn_expired_in_recovery). */
    size_t recov;
    int recov_done;
    am_ps recov_end; /* when its copies end (its `action`) */
};

/* A record's time: when its event began on the host (sn_event), not when the observer hears
 * of it, which is after the policy's device-call latency: a replay of the export issues the
 * request at time_us and pays that latency again (until 2026-11-27 each such request came one
 * latency late, 20 us per platform cudaMalloc). Before any event (none seen): t. */
static am_ps sn_time(const snap_exp *x, am_ps t) { return x->have_issue ? x->issue : t; }

/* The device takes waiting for a request's stream get `stream`, applied as the request comes
 * (PyTorch's segment_alloc is made for the request after it; until 2026-11-27 a pass over
 * every record at the end did this). Takes with no request after them keep stream 0. */
static void sn_resolve(snap_exp *x, uint32_t stream)
{
    int named = x->sim && mem_policy(sim_level(x->sim, x->cfg->default_level))->segment_kind;
    for (size_t i = 0; i < x->n && x->npending; i++)
        if (x->r[i].pending) {
            if (named)
                x->r[i].stream = stream;
            x->r[i].pending = 0;
            x->npending--;
        }
}

/* The most records held in memory at once by the last export (snap_last_held). */
static size_t sn_held_max;

size_t snap_last_held(void) { return sn_held_max; }

/* Room in x->r for one more record (sn_append, sn_expired_in_recovery). */
static void sn_reserve(snap_exp *x)
{
    if (x->n == x->cap)
        x->r = am_realloc(x->r, (x->cap = x->cap ? x->cap * 2 : 64) * sizeof *x->r);
}

/* A record was stored at x->r[x->n] or inserted before it: count it, and the peak with it. */
static void sn_count_added(snap_exp *x)
{
    x->n++;
    sn_held_max = AM_MAX(sn_held_max, x->n);
}

/* The recovery's records are final once anything after its copies comes. */
static void sn_recovery_close(snap_exp *x)
{
    if (x->recov_done) {
        x->recov = SIZE_MAX;
        x->recov_done = 0;
    }
}

/* A recovery on the default level begins with the records not reported yet (the device gives
 * of its first release come before that release's free). Not in a start-state prologue, whose
 * recoveries are no entries (sn_prologue). */
static void sn_recovery_open(snap_exp *x)
{
    sn_recovery_close(x); /* the one before it, when nothing came between */
    if (x->recov == SIZE_MAX && !x->start)
        x->recov = x->mark;
}

/* Whether a record is an entry of amsim_start_traces: a prologue request, or where a recovery
 * there moved a buffer (its placement, and its free, once: free_completed) */
static int sn_start_entry(const snap_rec *r)
{
    return r->start == 1 || (r->start == 2 && r->action != SA_FREE_REQ);
}

static void sn_append(snap_exp *x, snap_rec r)
{
    sn_recovery_close(x);
    sn_reserve(x);
    /* a prologue's recovery moves a buffer the replay's own recovery moves again
     * (sn_prologue): no request of amsim_start_traces but an amsim_recovery_* entry there;
     * its indices (nstart, an oom's free names one) count written entries */
    int moved = x->recovery &&
                (r.action == SA_ALLOC || r.action == SA_FREE_REQ || r.action == SA_FREE_DONE);
    r.start = !x->start ? 0 : moved ? 2 : 1;
    r.from = r.start == 2 && r.action == SA_ALLOC ? x->move_from : SN_NO_FROM;
    x->nstart += (uint64_t)sn_start_entry(&r);
    if (r.action != SA_SEG_FREE)
        x->move_free = 0; /* a later free or allocation: gives after it are not the move's */
    if ((r.action == SA_ALLOC || r.action == SA_OOM) && x->npending)
        sn_resolve(x, r.stream);
    r.pending = r.action == SA_SEG_ALLOC && !r.kind;
    x->npending += (size_t)r.pending;
    x->r[x->n] = r;
    sn_count_added(x);
}

static void sn_commit(snap_exp *x);

static void sn_push(snap_exp *x, snap_rec r)
{
    r.t = sn_time(x, r.t);
    sn_append(x, r);
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
/* Only the prologue's requests, though: the frees and placements of a recovery the runtime
 * made there (a defragmentation's moves, a spill's free, a restore's placement: sn_defrag_free,
 * sn_move) are folded into the end state and written as no request (snap_rec start 2). The
 * replay's prologue asks for the same requests, fails the same one and recovers itself; until
 * 2026-11-27 the moves were written as requests of the program, and each export / replay
 * generation added the recovery's frees and allocations once more (a host_roundtrip compaction
 * of 2 buffers: 2, 4, 6, 8 allocations and 0, 2, 4, 6 frees). They are written as
 * amsim_recovery_free (addr: where a buffer left) and amsim_recovery_alloc (addr: where it
 * went; from: where it was, when on the default level), which the reader replays as no event
 * but follows, so that a later free at the new address names the buffer that moved there
 * (until 2026-11-27 nothing was written: after a compaction moved buffer 2 to where spilled
 * buffer 1 had been, the trace's free of 2 was read as a free of 1, and the replay placed the
 * next request elsewhere: 0 of 1 allocations at the recorded address). */
static void sn_prologue(void *ctx, int on)
{
    snap_exp *x = ctx;
    sn_commit(x);
    x->start = on;
}

static void sn_event(void *ctx, am_ps t)
{
    snap_exp *x = ctx;
    x->issue = t;
    x->have_issue = 1;
    x->move_free = 0;
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

/* The stream a block at addr is filed on: its segment's, when the policy names it (the caching
 * allocator keeps a pool per stream, and a block stays in the pool that served it), else the
 * stream its event names. They differ for a spilled buffer's host copy, which the engine
 * requests on stream 0 whatever the buffer's stream (engine.c spill_copy): written on the
 * buffer's stream, its replay asked another stream's pool and took another segment (until
 * 2026-11-27: two copies sharing one 2 MiB segment replayed 1 of 2 at their address). As for
 * a donation (FORMAT.md, donate=), the export names the stream the allocator filed it on. */
static uint32_t sn_block_stream(const snap_exp *x, uint64_t addr, uint32_t stream)
{
    uint32_t filed;
    return sn_kind(x, addr, &filed) >= 0 ? filed : stream;
}

/* Append a record of an allocation or failed request (with its time set) and mark it final:
 * a failed one of a prologue is remembered for the trace's free of it (sn_free_failed). */
static void sn_append_request(snap_exp *x, snap_rec r, uint64_t id)
{
    sn_append(x, r);
    if (r.action == SA_OOM && x->start) {
        if (x->nfailed == x->capfailed) {
            x->capfailed = x->capfailed ? x->capfailed * 2 : 16;
            x->failed = am_realloc(x->failed, x->capfailed * sizeof *x->failed);
        }
        x->failed[x->nfailed++] = (snap_failed){id, x->nstart - 1}; /* the record just pushed */
    }
    x->mark = x->n;
    sn_commit(x);
}

/* The held expired waits' oom records, after the allocation they waited for (or at the end). */
static void sn_release_held(snap_exp *x)
{
    for (size_t i = 0; i < x->nheld; i++)
        sn_append_request(x, x->held[i].r, x->held[i].id);
    x->nheld = 0;
}

/* The `oom` of a wait for frees that ran out while a recovery on the default level held the host
 * (before its copies ended: engine.h, sim_observer.action), written in front of the recovery's
 * entries (after the ones of earlier such waits): when the wait ran out, the recovery had
 * released nothing yet (a spill frees its victim's block after the copy has read it, a
 * compaction's buffers are in place only once copied), so the replay must fail it on the state
 * before them. Until 2026-11-27 it came after them, and the replay served it from the room the
 * recovery made: a 3 MiB request whose 100 us wait ran out during a 695.9 us spill ("0 of 1
 * recorded out-of-memory requests ran out here too"). 1 when written so. */
static int sn_expired_in_recovery(snap_exp *x, snap_rec r)
{
    if (x->recov == SIZE_MAX || !x->sim || !sim_expiring(x->sim) ||
        (x->recov_done && r.t >= x->recov_end)) /* ran out after it: in order */
        return 0;
    /* not through sn_append: the record goes back in time, before records whose device takes
     * wait for a later request's stream, and the state of a move's release (move_free) stays */
    sn_reserve(x);
    size_t at = x->recov++;
    memmove(x->r + at + 1, x->r + at, (x->n - at) * sizeof *x->r);
    x->r[at] = r;
    sn_count_added(x);
    x->mark++; /* the recovery started at or before mark */
    return 1;
}

/* Keep a name for an alloc or oom entry: its snap_rec.name, 0 for none (NULL: unnamed). A name
 * is 1 to 255 bytes (FORMAT.md). */
static uint64_t sn_name_put(snap_exp *x, const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > TR_NAME_MAX || x->scratch_errno)
        return 0;
    if (!x->names && !(x->names = tmpfile())) {
        x->scratch_errno = errno ? errno : EIO;
        return 0;
    }
    uint64_t at = x->names_len;
    if (fputc((int)n, x->names) == EOF || fwrite(name, 1, n, x->names) != n) {
        x->scratch_errno = errno ? errno : EIO;
        return 0;
    }
    x->names_len += 1 + n;
    return at + 1;
}

/* A request's outcome. A wait for frees that ran out is noticed when the engine settles an
 * outcome, and when that outcome is an allocation, the allocator has already made it
 * (engine.h, sim_expiring_after_placement): the wait's `oom` is held and written after that
 * allocation's entry, in the order the allocator acted in, so that a replay fails it with the
 * allocation made. Until 2026-11-27 it came before: under bfc with a host_roundtrip
 * defragmentation longer than retry_wait, the replay served the expired 14 MiB request from
 * the hole the compaction had made for the allocation after it ("0 of 1 recorded
 * out-of-memory requests ran out here too"). */
static void sn_alloc(void *ctx, am_ps t, uint64_t seq, uint64_t id, int level, uint32_t stream,
                     uint64_t addr, uint64_t requested, uint64_t size, int ok, const char *name)
{
    snap_exp *x = ctx;
    (void)seq;
    if (level != x->cfg->default_level) {
        sn_release_held(x); /* the allocation they waited for is on another level */
        return;
    }
    if (ok)
        stream = sn_block_stream(x, addr, stream);
    snap_rec r = {ok ? SA_ALLOC : SA_OOM, stream, ok ? addr : 0, requested, size, sn_time(x, t),
                  0, 0, 0, 0, sn_name_put(x, name)};
    if (!ok && sn_expired_in_recovery(x, r))
        return;
    if (!ok && x->sim && sim_expiring_after_placement(x->sim)) {
        if (x->nheld == x->capheld) {
            x->capheld = x->capheld ? x->capheld * 2 : 4;
            x->held = am_realloc(x->held, x->capheld * sizeof *x->held);
        }
        x->held[x->nheld++] = (snap_held){r, id};
        return;
    }
    sn_append_request(x, r, id);
    sn_release_held(x);
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
    if (level != x->cfg->default_level)
        return;
    size_t k = x->nfailed;
    while (k > 0 && x->failed[k - 1].id != id)
        k--;
    if (k == 0)
        return;
    uint64_t rec = x->failed[k - 1].rec;
    if (phase != 2)
        sn_push(x, (snap_rec){SA_OOM_FREE_REQ, stream, rec, requested, 0, t, 0, 0, 0, 0, 0});
    if (phase != 1) {
        sn_push(x, (snap_rec){SA_OOM_FREE_DONE, stream, rec, requested, 0, t, 0, 0, 0, 0, 0});
        x->failed[k - 1] = x->failed[--x->nfailed];
    }
    x->mark = x->n;
    sn_commit(x);
}

static void sn_free(void *ctx, am_ps t, uint64_t id, int level, uint32_t stream, uint64_t addr,
                    uint64_t requested, uint64_t size, int phase)
{
    snap_exp *x = ctx;
    if (level != x->cfg->default_level)
        return;
    /* The device releases this free made (platform gives every block back), recorded since the
     * last allocation or free reported, came before it, as the allocator made them: PyTorch
     * writes segment_free after the free_completed that released the memory, and its viewer,
     * walking back, needs the segment to exist while the block is freed. They move after the
     * free's own entries. */
    size_t k = x->n;
    while (k > x->mark && x->r[k - 1].action == SA_SEG_FREE)
        k--;
    size_t nrel = x->n - k;
    stream = sn_block_stream(x, addr, stream);
    if (phase != 2)
        sn_push(x, (snap_rec){SA_FREE_REQ, stream, addr, requested, size, t, 0, 0, 0, 0, 0});
    if (phase != 1)
        sn_push(x, (snap_rec){SA_FREE_DONE, stream, addr, requested, size, t, 0, 0, 0, 0, 0});
    /* the free's entries, pushed last, go in front of the releases */
    size_t m = x->n - k - nrel;
    if (nrel && m) {
        snap_rec fr[2];
        memcpy(fr, x->r + k + nrel, m * sizeof *fr);
        memmove(x->r + k + m, x->r + k, nrel * sizeof *x->r);
        memcpy(x->r + k, fr, m * sizeof *fr);
    }
    x->mark = x->n;
    sn_commit(x);
}

/* Write the `oom` entry of a failed request on stream and mark it, with the device gives
 * reported before it, as belonging to a reported operation (they stay before it). The callers
 * decide whether there is one to write: sn_attempt_failed only after device gives, sn_oom even
 * when nothing was given back (the level counted an out-of-memory). */
static void sn_write_oom(snap_exp *x, am_ps t, uint32_t stream, uint64_t requested,
                         const char *name)
{
    sn_push(x, (snap_rec){SA_OOM, stream, 0, requested, 0, t, 0, 0, 0, 0,
                          sn_name_put(x, name)});
    x->mark = x->n;
    sn_commit(x);
}

/* A failed attempt at a request, after which the runtime makes room (a spill, a
 * defragmentation) and tries again. The device gives since the last allocation or free reported
 * were made by that attempt's miss path (the caching allocator frees its cached segments, or
 * unmaps free pages, when a device allocation fails), before any eviction: written as the `oom`
 * entry PyTorch writes after such gives, so that the replay's allocator fails there too and
 * gives back the same, rather than serving the request from the victims freed after it (until
 * 2026-11-27 nothing was written, and sn_free moved those gives behind the next victim's free:
 * the replay of a spilling `caching` run kept the segments cached and matched 31 of 52
 * addresses). So is a spill's host copy into the default level that failed for good (engine.c
 * spill_copy): a `caching` level receiving another level's spills frees its cached segments
 * there too (until 2026-11-27 not reported: the replay kept them cached, 1 of 2 segment
 * events). An attempt that gave nothing back is not written: its replay would change
 * nothing. */
static void sn_attempt_failed(void *ctx, am_ps t, int level, uint32_t stream, uint64_t requested)
{
    snap_exp *x = ctx;
    /* Not in a start-state prologue: its records become amsim_start_traces, where an `oom` is
     * a request that failed and is asked again (FORMAT.md), so the replay would serve a request
     * the run never made and hold it (until 2026-11-27 it did: a prologue that spilled replayed
     * a phantom 50 MiB request and spilled twice; MAGMA27 at 200 MiB under spilling matched 350
     * of 1710 addresses). There the gives stay with the next free, as before. */
    if (level != x->cfg->default_level || x->n == x->mark || x->start)
        return;
    /* unnamed: the entry that settles the request (its alloc, or its final oom) has the name,
     * which attempt_failed is not given */
    sn_write_oom(x, t, stream, requested, NULL);
}

/* The free of a block a defragmentation (event seq) released, written as it happens: all of
 * them come before any of its placements (engine.h, defrag_free), and the device gives a
 * release made, reported just before, move behind it (sn_free), as PyTorch writes a
 * segment_free after the free that emptied the segment. Until 2026-11-27 the free was written
 * at the buffer's move and its allocation held until the next call: a give of the free phase
 * came after the first free only, though later frees emptied its segment (cuda_async: the
 * segment_free before a block still allocated in it), and a device call reported after the
 * last move came before that move's allocation (bfc: the next request's segment_alloc before a
 * re-placement; caching with expandable segments: a segment_unmap of the retry after
 * it), so the replay missed those segment events. A buffer that is then not placed again
 * (lost) needs nothing more: PyTorch has no lost block, and it is freed here. */
static void sn_defrag_free(void *ctx, am_ps t, uint64_t seq, uint64_t id, uint32_t stream,
                           int level, uint64_t addr, uint64_t requested, uint64_t size)
{
    (void)seq;
    snap_exp *x = ctx;
    if (level == x->cfg->default_level)
        sn_recovery_open(x);
    x->recovery = 1;
    sn_free(ctx, t, id, level, stream, addr, requested, size, 0);
    x->recovery = 0;
}

/* A live buffer a defragmentation could not place again (engine.h `oom`, what "defrag"): the
 * failed placement is written as the `oom` entry PyTorch writes for a request that failed, after
 * the device gives its miss path made (the caching allocator frees its cached segments), so
 * that the replay's allocator fails there too, gives back the same, and counts the
 * out-of-memory the run counted. Until 2026-11-27 nothing was written: those gives moved
 * behind the next free or came before the next placement, the replay kept the segments cached
 * and placed a later buffer in one (lb2.trace under `caching` at 80 MiB: 16 of 17 addresses, 8
 * of 12 segment events), and it had one out-of-memory fewer per lost buffer. Not in a
 * start-state prologue, where an `oom` is a request asked again (sn_attempt_failed). A spilled
 * buffer that could not come back ("restore") is written the same way: its last attempt, made
 * after the victims the restore evicted were freed, failed there, after the device gives of its
 * miss path (the caching allocator frees the victims' cached segments), and the level counted
 * an out-of-memory. Until 2026-11-27 it was not written: the replay kept those segments cached
 * and counted no out-of-memory (m9c: 4 of 5 segment events, 0 OOMs where the run had 1). */
static void sn_oom(void *ctx, am_ps t, uint64_t seq, uint64_t id, int level, uint32_t stream,
                   uint64_t requested, const char *what, const char *name)
{
    snap_exp *x = ctx;
    (void)seq;
    (void)id;
    if (level != x->cfg->default_level || x->start ||
        (strcmp(what, "defrag") != 0 && strcmp(what, "restore") != 0))
        return;
    sn_write_oom(x, t, stream, requested, name); /* the buffer's name, as its oom event's */
}

/* A buffer that changed place without a request: a snapshot has no move, so it is the free
 * of where it was and the allocation of where it is, each on the default level only (a spill
 * frees it there, a restore allocates it again; the host copy is not in the snapshot). A
 * defragmentation's move (same level) is only the allocation: its free was written with the
 * others before any placement (sn_defrag_free), so a buffer can take the place of one moved
 * later (until 2026-11-25 the snapshot then held two live blocks at one address, and a
 * viewer keying blocks by address lost one), and the device takes of its placement, reported
 * before the move, come before it. */
static void sn_move(void *ctx, am_ps t, uint64_t seq, uint64_t id, uint32_t stream,
                    int from_level, uint64_t from_addr, uint64_t from_size, int level,
                    uint64_t addr, uint64_t requested, uint64_t size, const char *name)
{
    snap_exp *x = ctx;
    int from_default = from_level == x->cfg->default_level;
    /* Inside a prologue, a buffer that comes from another level (a spill into the default
     * level as that level's spill_host) is a start-state allocation of the default level: the
     * snapshot holds the default level only, so the replay's prologue has no buffer of the
     * other level to spill, and nothing would make the copy (until 2026-11-27 it was folded
     * into the end state only: the replay placed the next request over it, 0 of 1 allocations
     * at the recorded address). One from the default level the replay's recovery moves itself. */
    if (from_level != level && from_default)
        sn_recovery_open(x); /* a spill: its free, written here, happens after its copy */
    x->recovery = from_default;
    x->move_from = from_default ? from_addr : SN_NO_FROM;
    if (from_level != level || level != x->cfg->default_level)
        sn_free(ctx, t, id, from_level, stream, from_addr, requested, from_size, 0);
    /* with its name: a replay's allocation at the new place is the buffer's from then on
     * (until 2026-11-28 unnamed) */
    sn_alloc(ctx, t, seq, id, level, stream, addr, requested, size, 1, name);
    x->recovery = 0;
    /* set last: sn_alloc's record (another level: none) would clear it */
    x->move_free = from_level != level && from_level == x->cfg->default_level;
}

/* A device take or give (a map or unmap of a virtual range): on the stream of its segment, as
 * PyTorch writes it, when the policy names it. A take the policy has not made its segment of
 * yet gets the stream of the request after it (sn_resolve). */
static void sn_device(void *ctx, am_ps t, int level, int alloc, uint64_t addr, uint64_t bytes)
{
    snap_exp *x = ctx;
    if (level != x->cfg->default_level)
        return;
    snap_rec r = {alloc ? SA_SEG_ALLOC : SA_SEG_FREE, 0, addr, bytes, bytes, t, 0, 0, 0, 0, 0};
    r.kind = sn_kind(x, addr, &r.stream) >= 0;
    sn_push(x, r);
    if (!alloc && x->move_free) {
        /* the release of the memory a move left, written after its free as a free's release
         * is (sn_free); until 2026-11-27 it stayed open, and the next free moved it behind its
         * own entries (a restored buffer's host-copy segment_free after a later
         * free_completed: the replay matched 4 of 5 segment events) */
        x->mark = x->n;
        sn_commit(x);
    }
}

/* The level's counters, reported after each of its allocations and frees (engine.h): on the
 * default level after a move, the end of the release of where the buffer was. */
static void sn_counters(void *ctx, am_ps t, int level, const mem_metrics *m)
{
    snap_exp *x = ctx;
    (void)t;
    (void)m;
    if (level == x->cfg->default_level)
        x->move_free = 0;
}

/* 1 when a block was pending its free (free_requested written, free_completed not) before
 * the records of the open recovery: the final state (x->blocks) with the records not final yet
 * before r[recov] applied over it. */
static int sn_pending_before_recovery(const snap_exp *x)
{
    size_t end = x->recov < x->n ? x->recov : x->n;
    for (size_t i = 0; i < end; i++) {
        if (x->r[i].action != SA_FREE_REQ)
            continue;
        size_t j = i + 1;
        while (j < end && !(x->r[j].action == SA_FREE_DONE && x->r[j].addr == x->r[i].addr))
            j++;
        if (j == end)
            return 1;
    }
    for (os_node *c = os_first(&x->blocks); c; c = os_next(c)) {
        if (((const sn_blk *)c)->action != SA_FREE_REQ)
            continue;
        size_t j = 0;
        while (j < end && !(x->r[j].action == SA_FREE_DONE && x->r[j].addr == c->k1))
            j++;
        if (j == end)
            return 1;
    }
    return 0;
}

/* 1 when the open recovery's records are a compaction that put every buffer back where it
 * was: only the frees of its releases (in address order) and then, one for one in the same
 * order, allocations of the same blocks (address and size), with no device call and no loss
 * between. */
static int sn_recovery_in_place(const snap_exp *x)
{
    size_t n = x->n - x->recov;
    if (n == 0 || n % 3 != 0)
        return 0;
    size_t k = n / 3;
    const snap_rec *fr = x->r + x->recov, *al = fr + 2 * k;
    for (size_t i = 0; i < k; i++) {
        const snap_rec *q = &fr[2 * i], *d = &fr[2 * i + 1], *a = &al[i];
        if (q->action != SA_FREE_REQ || d->action != SA_FREE_DONE || a->action != SA_ALLOC ||
            d->addr != q->addr || a->addr != q->addr || a->given != q->given)
            return 0;
    }
    return 1;
}

/* A compaction under a policy with a compaction of its own (alloc.h compact: prealloc's bump
 * mode), made beside a block pending its free, that put every buffer back where it was,
 * changed nothing the snapshot can show, and its frees and allocations are dropped. Written,
 * they cannot be replayed: the bump arena resets only when it is empty, and the pending block
 * keeps it from emptying, so the replay placed the buffers again at its top. Until 2026-11-27
 * they were written: a tpu-v4 hbm under `prealloc` (bump, 48 MiB) whose on_oom compaction
 * moved 0 B beside a pending 3 MiB block replayed 8 of 12 allocations at the recorded
 * address, and defragmented on its own. A compaction that moved a buffer there stays the
 * exception README "Metrics" describes. */
static void sn_drop_in_place_compaction(snap_exp *x)
{
    const cfg_level *L = &x->cfg->levels[x->cfg->default_level];
    if (!L->policy->compact || !sn_recovery_in_place(x) || !sn_pending_before_recovery(x))
        return;
    x->n = x->recov;
    x->mark = x->n;
}

/* A recovery's copies begin: what follows them (after the `oom` of the waits that ran out
 * meanwhile) closes its records (sn_recovery_close). */
static void sn_action(void *ctx, const char *what, int level, am_ps start, am_ps end,
                      uint64_t bytes)
{
    snap_exp *x = ctx;
    (void)start;
    (void)bytes;
    if (level == x->cfg->default_level && x->recov != SIZE_MAX) {
        if (!strcmp(what, "defrag"))
            sn_drop_in_place_compaction(x);
        x->recov_done = 1;
        x->recov_end = end;
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
    x->path = path;
    x->recov = SIZE_MAX;
    sn_held_max = 0;
    x->blocks.no_aug = x->ranges.no_aug = 1;
    for (int k = 0; k < 2; k++)
        if (!(x->scratch[k] = tmpfile())) {
            am_fail(err, AM_EINTERNAL, "%s: cannot create a scratch file for the snapshot's "
                    "trace entries: %s", path, strerror(errno));
            snap_abort(x);
            return -1;
        }
    x->cfg = cfg;
    const cfg_level *L = &cfg->levels[cfg->default_level];
    x->mapped = L->policy->maps_virtual && L->policy->maps_virtual(L->policy_opts);
    x->obs = (sim_observer){.ctx = x, .alloc = sn_alloc, .free = sn_free, .device = sn_device,
                            .move = sn_move, .defrag_free = sn_defrag_free, .oom = sn_oom,
                            .prologue = sn_prologue, .free_failed = sn_free_failed,
                            .event = sn_event, .attempt_failed = sn_attempt_failed,
                            .counters = sn_counters, .action = sn_action};
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

static void sn_fold_block(snap_exp *x, const snap_rec *r)
{
    os_node *c = os_lower_bound(&x->blocks, r->addr, 0);
    sn_blk *b = c && c->k1 == r->addr ? (sn_blk *)c : NULL;
    if (r->action == SA_FREE_DONE) {
        if (b) {
            os_remove(&x->blocks, &b->node);
            free(b);
        }
        return;
    }
    if (!b) {
        b = am_calloc(1, sizeof *b);
        b->node.k1 = r->addr;
        os_insert(&x->blocks, &b->node);
    }
    b->action = r->action;
    b->size = r->size;
    b->given = r->given;
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

/* Fold a final record into the device ranges held (x->ranges) and x->spans, set when some
 * block reaches past the end of the range holding its start: the policy's blocks span device
 * takes, and the snapshot has to be written with expandable segments. */
static void sn_fold_range(snap_exp *x, const snap_rec *r)
{
    os_tree *t = &x->ranges;
    os_node *c;
    if (r->action == SA_SEG_ALLOC) {
        c = os_lower_bound(t, r->addr, 0);
        if (!(c && c->k1 == r->addr)) /* a take over a held range does not happen */
            os_insert(t, sn_range_new(r->addr, r->size));
    } else if (r->action == SA_SEG_FREE) {
        sn_range_give(t, r->addr, r->addr + r->size);
    } else if (r->action == SA_ALLOC && !x->spans) {
        c = os_floor(t, r->addr, UINT64_MAX);
        x->spans = c && r->addr < c->k1 + c->val && r->addr + r->given > c->k1 + c->val;
    }
}

/* The records before mark that wait for nothing are final: folded into the end state, in
 * order, and spilled to their scratch file. */
static void sn_commit(snap_exp *x)
{
    size_t p = 0, end = x->recov < x->mark ? x->recov : x->mark; /* a recovery's wait */
    while (p < end && !x->r[p].pending)
        p++;
    for (size_t i = 0; i < p; i++) {
        const snap_rec *r = &x->r[i];
        int k = r->start != 0;
        if (r->action == SA_ALLOC || r->action == SA_FREE_REQ || r->action == SA_FREE_DONE)
            sn_fold_block(x, r);
        sn_fold_range(x, r);
        snap_rec w; /* field by field onto zeros: no uninitialised padding goes to the file */
        memset(&w, 0, sizeof w);
        w.action = r->action;
        w.stream = r->stream;
        w.addr = r->addr;
        w.size = r->size;
        w.given = r->given;
        w.t = r->t;
        w.start = r->start;
        w.kind = r->kind;
        w.from = r->from;
        w.name = r->name;
        if (!sn_start_entry(r) && r->start == 2)
            continue; /* folded above: the placement's free has one entry (free_completed) */
        if (!x->scratch_errno && fwrite(&w, sizeof w, 1, x->scratch[k]) != 1)
            x->scratch_errno = errno ? errno : EIO;
        x->nspilled[k]++;
    }
    if (p && x->n > p) /* (x->r is NULL before the first record) */
        memmove(x->r, x->r + p, (x->n - p) * sizeof *x->r);
    x->n -= p;
    x->mark -= p;
    if (x->recov != SIZE_MAX)
        x->recov -= p;
}

/* An alloc or oom entry's frames: PyTorch's list of frame dicts ({"name", "filename", "line"}),
 * here one frame holding the request's trace name (its function name in the viewer's stack), or
 * none (PyTorch records the failing request's stack on its oom entry too). amsim's reader takes
 * this one frame's name back as the name as it is (trace_pickle.c, frames_name; until
 * 2026-11-28 it skipped frames); the placements are the same either way. */
static void sn_frames(snap_exp *x, FILE *f, uint64_t name)
{
    pk_str(f, "frames");
    char buf[256];
    int n = -1;
    if (name && x->names && !x->scratch_errno) {
        if (fseek(x->names, (long)(name - 1), SEEK_SET) != 0 ||
            (n = fgetc(x->names)) == EOF || fread(buf, 1, (size_t)n, x->names) != (size_t)n) {
            x->scratch_errno = errno ? errno : EIO;
            x->scratch_read = 1;
            n = -1;
        }
    }
    if (n < 0) {
        pk_empty_list(f);
        return;
    }
    buf[n] = 0;
    pk_list_begin(f);
    pk_dict_begin(f);
    pk_kstr(f, "name", buf);
    pk_kstr(f, "filename", "");
    pk_kint(f, "line", 0);
    pk_dict_end(f);
    pk_list_end(f);
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
 * trace entries: a list holding device 0's list, read back from their scratch file. An oom's
 * free names its oom entry by its index in the prologue's list (held in addr). */
static void sn_entries(snap_exp *x, FILE *f, int expandable, int start)
{
    FILE *in = x->scratch[start];
    snap_rec buf[256];
    uint64_t left = x->nspilled[start];
    size_t got;
    pk_list_begin(f);
    pk_list_begin(f);
    if (fflush(in) != 0 && !x->scratch_errno)
        x->scratch_errno = errno ? errno : EIO;
    rewind(in);
    while (left && !x->scratch_errno &&
           (got = fread(buf, sizeof *buf, left < 256 ? left : 256, in)) > 0) {
        left -= got;
        for (size_t i = 0; i < got; i++) {
            const snap_rec *r = &buf[i];
            pk_dict_begin(f);
            pk_kstr(f, "action", r->start == 2 ? sa_recovery_names[r->action]
                                 : expandable && (r->action == SA_SEG_ALLOC ||
                                                  r->action == SA_SEG_FREE)
                                     ? sa_map_names[r->action - SA_SEG_ALLOC]
                                     : sa_names[r->action]);
            if (r->start == 2 && r->from != SN_NO_FROM)
                pk_kint(f, "from", r->from);
            if (r->action == SA_OOM)
                pk_kint(f, "device_free", 0);
            else if (r->action == SA_OOM_FREE_REQ || r->action == SA_OOM_FREE_DONE)
                pk_kint(f, "oom", r->addr);
            else
                pk_kint(f, "addr", r->addr);
            pk_kint(f, "size", r->size);
            pk_kint(f, "stream", r->stream);
            pk_kint(f, "time_us", r->t / AM_PS_PER_US);
            /* the rest of the exact time, for amsim's reader only (PyTorch's tools ignore the
             * key): without it a replay cut each time to whole microseconds (until 2026-11-27,
             * a run of 3.900 us replayed in 3.000 us) */
            if (r->t % AM_PS_PER_US)
                pk_kint(f, "amsim_sub_us_ps", r->t % AM_PS_PER_US);
            sn_frames(x, f, r->action == SA_ALLOC || r->action == SA_OOM ? r->name : 0);
            pk_dict_end(f);
        }
    }
    if (left && !x->scratch_errno) {
        x->scratch_errno = ferror(in) && errno ? errno : EIO;
        x->scratch_read = 1;
    }
    pk_list_end(f);
    pk_list_end(f);
}

static void sn_write(snap_exp *x, FILE *f)
{
    /* every name is in the scratch file by now (sn_name_put): flushed once for the frames'
     * reads back (sn_frames) */
    if (x->names && !x->scratch_errno && fflush(x->names) != 0) {
        x->scratch_errno = errno ? errno : EIO;
        x->scratch_read = 1;
    }
    /* the ranges held at the end (sn_release frees them after) */
    int expandable = x->spans || x->mapped;
    sn_seg *seg = am_malloc((x->ranges.n ? x->ranges.n : 1) * sizeof *seg);
    size_t ns = 0;
    for (os_node *c = os_first(&x->ranges); c; c = os_next(c)) {
        if (expandable && ns && seg[ns - 1].addr + seg[ns - 1].size == c->k1)
            seg[ns - 1].size += c->val; /* as PyTorch's viewer merges adjacent mapped ranges */
        else
            seg[ns++] = (sn_seg){c->k1, c->val};
    }
    fputc(0x80, f);
    fputc(4, f);
    pk_dict_begin(f);
    pk_str(f, "segments");
    pk_list_begin(f);
    const os_node *b = os_first(&x->blocks); /* the blocks at the end, by address */
    for (size_t s = 0; s < ns; s++) {
        const sn_seg *g = &seg[s];
        uint64_t end = g->addr + g->size, alloc_sz = 0, active = 0, req = 0;
        while (b && b->k1 < g->addr)
            b = os_next(b); /* blocks outside any segment (not expected): left out */
        const os_node *b0 = b;
        for (; b && b->k1 < end; b = os_next(b)) {
            const sn_blk *r = (const sn_blk *)b;
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
        for (const os_node *j = b0; j != b; j = os_next(j)) {
            const sn_blk *r = (const sn_blk *)j;
            if (j->k1 > at)
                sn_block(f, at, j->k1 - at, 0, "inactive");
            sn_block(f, j->k1, r->given, r->size,
                     r->action == SA_ALLOC ? "active_allocated" : "active_pending_free");
            at = j->k1 + r->given;
        }
        if (at < end)
            sn_block(f, at, end - at, 0, "inactive");
        pk_list_end(f);
        pk_dict_end(f);
    }
    pk_list_end(f);
    pk_str(f, "device_traces");
    sn_entries(x, f, expandable, 0);
    /* the prologue's requests, for amsim's reader only (PyTorch's viewer ignores the key) */
    if (x->nspilled[1]) {
        pk_str(f, "amsim_start_traces");
        sn_entries(x, f, expandable, 1);
    }
    /* time_us is simulated time, which starts at 0: amsim's reader measures from here rather
     * than from the first entry, so time before it (an at=, the prologue's device calls) is
     * kept (until 2026-11-27 it was lost; PyTorch's viewer ignores the key) */
    pk_kint(f, "amsim_time_origin_us", 0);
    /* when the run ended (its makespan), for amsim's reader only: no entry holds the time after
     * the last one (a compute, a sync, the copies of a recovery the replay does not make), so
     * without it the replay ended at its last entry (until 2026-11-28: `alloc 1 1MiB / compute
     * 20us` took 20 us and its export's replay 0) */
    if (x->sim)
        pk_kint(f, "amsim_end_ps", sim_get_summary(x->sim)->makespan);
    pk_str(f, "allocator_settings");
    fputc('}', f);
    pk_str(f, "external_annotations");
    pk_empty_list(f);
    pk_dict_end(f);
    fputc('.', f);
    free(seg);
}

/* Free x's state (not its output). */
static void sn_release(snap_exp *x)
{
    for (int k = 0; k < 2; k++) {
        os_tree *t = k ? &x->ranges : &x->blocks;
        for (os_node *c; (c = t->root);) { /* os_next climbs to parents: free from the root */
            os_remove(t, c);
            free(c);
        }
        if (x->scratch[k])
            fclose(x->scratch[k]);
    }
    if (x->names)
        fclose(x->names);
    free(x->r);
    free(x->failed);
    free(x->held);
    free(x);
}

outfile *snap_finish(snap_exp *x, am_error *err)
{
    if (!x)
        return NULL;
    sn_release_held(x); /* (none: the engine settles the allocation right after them) */
    sn_resolve(x, 0); /* takes with no request after them */
    x->recov = SIZE_MAX; /* (closed by then: the engine settles the waits after the copies) */
    x->mark = x->n;
    sn_commit(x);
    outfile *o = x->o;
    if (!x->scratch_errno)
        sn_write(x, out_fp(o));
    /* a scratch write that failed (a full /tmp, `ulimit -f`) is the output's write error, status
     * 1 as for the pickle itself (until 2026-11-27 status 2, an internal error); a scratch
     * file that does not read back what was written to it is amsim's own failure */
    if (x->scratch_errno && x->scratch_read)
        am_fail(err, AM_EINTERNAL, "%s: the snapshot's trace entries could not be read back "
                "from their scratch file: %s", x->path, strerror(x->scratch_errno));
    else if (x->scratch_errno)
        out_write_error(o, x->scratch_errno, "writing its trace entries to a scratch file", err);
    if (x->scratch_errno) {
        out_abort(o);
        o = NULL;
    }
    sn_release(x);
    return o;
}

void snap_abort(snap_exp *x)
{
    if (!x)
        return;
    out_abort(x->o);
    sn_release(x);
}
