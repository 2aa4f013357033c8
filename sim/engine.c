/* engine.c - discrete-event replay of a trace against memory levels and links (see engine.h).
 *
 * Structures: a hash map from trace buffer id to its live allocation (open addressing, linear
 * probing, backward-shift deletion: no tombstones, O(1) expected, no per-event allocation);
 * per-stream FIFO rings of queued operations; a binary heap of device-side events ordered by
 * (time, sequence); one processor-sharing channel per link direction (models/link.c). */
#include "engine.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#endif
#include <string.h>
#include <unistd.h>

#include "../models/link.h"
#include "../models/recpool.h"
#include "evtab.h"
#include "outfile.h"
#include "streamset.h"
#include "units.h"

#define MAX_STREAMS SIM_MAX_STREAMS

/* ---- id -> allocation map ---------------------------------------------------------------- */

enum { ST_EMPTY = 0, ST_LIVE = 1, ST_REQ_FREED = 2, ST_OOM = 3, ST_PENDING = 4, ST_SPILLED = 5,
       ST_RESTORING = 6, /* spilled, coming back: not a victim while room is made */
       ST_DROPPED = 7    /* dropped while spilled; its free_completed is still accepted */ };

/* slot.frees: which phase of a free the trace may give next when the state does not say it (a
 * buffer with no memory keeps ST_OOM after its free_requested). FR_ANY: an into= id the transfer
 * guard (or --lenient's skip of an unknown id=) left unallocated whatever the capacity, whose
 * frees amsim check accepts in any order (convert.c, `unallocated`). */
enum { FR_NONE = 0, FR_REQUESTED = 1, FR_ANY = 2 };

/* 64 bytes, one cache line in the pool (recpool.h): a free reads one line, not two. A spilled
 * buffer's handle and given are those of its copy on the spill host level (its device allocation
 * is gone); the LRU stamp lives apart (sim.lru), only in runs that spill. */
typedef struct slot {
    uint64_t id;         /* id and state first: the fields a lookup reads share a cache line */
    uint8_t state;
    uint8_t frees;       /* FR_*: in the padding after state */
    uint16_t blame;      /* ST_OOM: the levels (bit by index) whose shortage left it without
                          * memory (its own level, or for an into= a skipped transfer never
                          * allocated, its source's; 0 when no capacity would have served it) */
    int32_t level;
    uint32_t stream;
    uint32_t self;       /* index in the slot pool */
    uint64_t handle, addr, requested, given;
    unsigned long line;  /* where it was allocated */
} slot;
_Static_assert(sizeof(slot) == 64, "an id slot is one cache line");
_Static_assert(CFG_MAX_LEVELS <= 16, "slot.blame has a bit per level");

/* A level's bit in slot.blame (0 for no level). */
static inline uint16_t level_bit(int level)
{
    return level >= 0 && level < CFG_MAX_LEVELS ? (uint16_t)(1u << level) : 0;
}

/* The map is split in two so that a lookup stays in the first-level cache: an open-addressing
 * table (linear probing, at most a quarter full) of 8-byte entries, and the slots themselves in a
 * pool of blocks, reused last-freed-first (a new allocation takes the slot the last free left,
 * which is still cached). An entry is (low 32 bits of the id's hash) << 32 | (slot index + 1),
 * 0 when empty: the hash bits give the entry's home position (backward-shift deletion; tables
 * stay far below 2^32 entries) and a tag that skips most non-matching slots without reading
 * them. The table places entries exactly as a table of slots would (same hash, probing and
 * growth), so iterating it gives the same order. The blocks of IDBLK slots come from a record
 * pool (recpool.h), whose slabs grow with the population: a small run keeps a small pool, and
 * from 2 MiB up the slabs, like the table, sit in huge pages (am_malloc_large), as a million ids
 * reached at random want. Slots never move: a pointer stays valid until its id is deleted. */
enum { IDBLK_SHIFT = 8, IDBLK = 1 << IDBLK_SHIFT }; /* slots per pool block */

typedef struct idmap {
    uint64_t *t;
    size_t cap, n;   /* cap is a power of two */
    slot **blk;      /* pool blocks of IDBLK slots */
    size_t nblk;
    recpool blocks;  /* their memory */
    uint32_t used;   /* slots ever handed out */
    uint32_t freel;  /* first free slot index + 1, 0 = none; a free slot's handle links on */
    uint64_t gen;    /* changes with every put, delete or growth (positions from a find) */
} idmap;

static inline size_t id_hash(uint64_t id) { return (size_t)am_hash_u64(id); }

static inline slot *idmap_slot(const idmap *m, uint64_t e)
{
    uint32_t i = (uint32_t)e - 1;
    return &m->blk[i >> IDBLK_SHIFT][i & (IDBLK - 1)];
}

static void idmap_grow(idmap *m)
{
    size_t oc = m->cap;
    uint64_t *ot = m->t;
    m->cap = oc ? oc * 2 : 1024;
    m->t = am_malloc_large(m->cap * sizeof *m->t);
    memset(m->t, 0, m->cap * sizeof *m->t);
    for (size_t i = 0; i < oc; i++)
        if (ot[i]) {
            size_t j = (size_t)(ot[i] >> 32) & (m->cap - 1);
            while (m->t[j])
                j = (j + 1) & (m->cap - 1);
            m->t[j] = ot[i];
        }
    free(ot);
}

/* The slot of id, or NULL; *pos is where the search stopped: the id's entry, or the empty entry
 * a put of id would fill. The position stays valid while the map's generation is unchanged. */
static inline slot *idmap_find_at(const idmap *m, uint64_t id, size_t *pos)
{
    if (!m->cap)
        return NULL;
    size_t h = id_hash(id);
    uint32_t tag = (uint32_t)h;
    for (size_t j = h & (m->cap - 1);; j = (j + 1) & (m->cap - 1)) {
        uint64_t e = m->t[j];
        *pos = j;
        if (!e)
            return NULL;
        if ((uint32_t)(e >> 32) == tag) {
            slot *x = idmap_slot(m, e);
            if (x->id == id)
                return x;
        }
    }
}

static slot *idmap_find(const idmap *m, uint64_t id)
{
    size_t pos;
    return idmap_find_at(m, id, &pos);
}

/* A fresh slot for a new id (the id must be absent): state empty, sizes and handles 0. pos is
 * the empty entry idmap_find_at gave at generation gen (used when nothing changed since and the
 * table need not grow), or SIZE_MAX. */
static slot *idmap_put_at(idmap *m, uint64_t id, size_t pos, uint64_t gen)
{
    if (4 * (m->n + 1) > m->cap) {
        idmap_grow(m);
        pos = SIZE_MAX;
    }
    uint32_t i;
    if (m->freel) {
        i = m->freel - 1;
        m->freel = (uint32_t)idmap_slot(m, m->freel)->handle;
    } else {
        if (m->used == UINT32_MAX - 1) { /* 350 GB of slots: memory runs out long before */
            am_msg("amsim: more than %u buffers live at once\n", UINT32_MAX - 1);
            exit(2);
        }
        i = m->used++;
        if ((i >> IDBLK_SHIFT) == m->nblk) {
            if (!m->blocks.size)
                recpool_init(&m->blocks, IDBLK * sizeof(slot));
            m->blk = am_realloc(m->blk, (m->nblk + 1) * sizeof *m->blk);
            m->blk[m->nblk++] = recpool_take(&m->blocks);
        }
    }
    size_t h = id_hash(id);
    size_t j = pos;
    if (pos == SIZE_MAX || gen != m->gen) {
        j = h & (m->cap - 1);
        while (m->t[j])
            j = (j + 1) & (m->cap - 1);
    }
    m->t[j] = (uint64_t)(uint32_t)h << 32 | ((uint64_t)i + 1);
    m->n++;
    m->gen++;
    slot *x = idmap_slot(m, (uint64_t)i + 1);
    x->id = id; /* the caller sets the rest (field by field: a struct clear is a slow rep stos) */
    x->self = i;
    x->state = ST_EMPTY;
    x->frees = FR_NONE; /* blame is read in ST_OOM only, which every setter sets with it */
    x->handle = x->addr = x->requested = x->given = 0;
    return x;
}

static slot *idmap_put(idmap *m, uint64_t id) { return idmap_put_at(m, id, SIZE_MAX, 0); }

/* Remove x; pos is its entry as idmap_find_at gave it at generation gen, or SIZE_MAX. */
static void idmap_del_at(idmap *m, slot *x, size_t pos, uint64_t gen)
{
    size_t mask = m->cap - 1, i = pos;
    uint64_t mine = (uint64_t)x->self + 1;
    if (pos == SIZE_MAX || gen != m->gen) {
        i = id_hash(x->id) & mask;
        while ((uint32_t)m->t[i] != mine)
            i = (i + 1) & mask;
    }
    for (size_t j = (i + 1) & mask; m->t[j]; j = (j + 1) & mask) {
        size_t h = (size_t)(m->t[j] >> 32) & mask;
        /* Move j back to i when its home is not in the cyclic range (i, j]. */
        if ((j > i && (h <= i || h > j)) || (j < i && (h <= i && h > j))) {
            m->t[i] = m->t[j];
            i = j;
        }
    }
    m->t[i] = 0;
    m->n--;
    m->gen++;
    x->state = ST_EMPTY;
    x->handle = m->freel;
    m->freel = (uint32_t)mine;
}

static void idmap_del(idmap *m, slot *x) { idmap_del_at(m, x, SIZE_MAX, 0); }

static void idmap_free(idmap *m)
{
    recpool_destroy(&m->blocks);
    free(m->blk);
    free(m->t);
}

/* ---- streams, events, heap --------------------------------------------------------------- */

enum { OP_COMPUTE, OP_XFER, OP_RECORD, OP_WAIT };

typedef struct op {
    uint8_t kind;
    uint8_t named;     /* a compute or transfer with a trace `name=`: its copy is the next of
                        * stream.names (in the padding: the ring of unnamed ops costs nothing) */
    uint32_t chan;     /* OP_XFER: channel; OP_WAIT: stream of the record it waits for */
    uint64_t arg;      /* duration ps, bytes, or event id */
    uint64_t gen;      /* OP_WAIT: position of that record in its stream (stream.popped counts
                        * up to it); OP_XFER in runs that spill: the buffers it reads and writes
                        * (xfer_refs), 0 when none */
    am_ps issue;       /* host time it was issued */
    uint64_t order;    /* trace event index it was issued at: transfers reaching a link at the
                        * same picosecond are taken in this order (link_submit_ordered) */
} op;

/* What observers hear of a finished stream operation (op_done), kept while a runtime copy
 * advances the device (sim.defer): they hear of it at the end of the copy's action (rt_heard).
 * Until 2026-11-28 also when the engine next advanced the device on its own, if that came
 * first: it never does (rt_copy). */
typedef struct dev_note {
    uint32_t stream;
    int chan;          /* a transfer's channel, -1 for another operation */
    am_ps carried;     /* a transfer: when its link took it */
    am_ps start, end;
    uint64_t bytes;
    char *name;        /* its trace `name=`, a copy, or NULL */
    /* a runtime copy's (rt_copy: the observer's `copy`, not `link` and `op`): its action
     * ("spill", "restore", "defrag"), else NULL; then the buffer's id and level */
    const char *copy;
    uint64_t id;
    int level;
} dev_note;

typedef struct stream {
    op *q;
    size_t head, len, cap;
    /* copies of the names of its queued named ops (op.named), in queue order: ops finish in
     * order, so the head op's is names[nhead]; kept only when an observer hears of ops */
    char **names;
    size_t nhead, nnames, names_cap;
    uint64_t popped;     /* operations finished so far: the position of the head op */
    int busy;
    am_ps started;       /* start of the operation in progress */
} stream;

/* An event's last `record`: a wait issued now waits for exactly that operation to finish
 * (cudaStreamWaitEvent). Records of one event on different streams can finish out of order, so
 * a wait names its record by stream and position rather than by a count of finished records:
 * both packed in the value of the event's id in sim.ev (evtab.h), the stream (below
 * SIM_MAX_STREAMS) in the low 16 bits and the position above them. */
enum { EV_STREAM_BITS = 16 };
#define EV_MAX_POS (UINT64_MAX >> EV_STREAM_BITS) /* positions past it cannot be packed */
_Static_assert(SIM_MAX_STREAMS <= 1 << EV_STREAM_BITS, "a stream fits its field");

typedef struct hev {
    am_ps t;
    uint64_t seq;
    uint32_t stream;
    uint8_t kind; /* 0 op done, 1 wake */
} hev;

/* One direction of a link. A duplex link between two memories has a link_chan per direction;
 * a half-duplex one has one link_chan that both directions share (the second entry does not
 * own it, and submits on side 1, so the channel keeps statistics per direction). */
typedef struct chan {
    link_chan *l;
    int link, dir;
    int side;  /* link_submit_side: dir on a half-duplex link, else 0 */
    int owner; /* this entry created l (advance and destroy it once) */
    uint64_t bw, den; /* the link's effective bandwidth, bw / den bytes/s (link_rate) */
    uint64_t granule; /* the larger transfer_granule of the link's two memories (a power of
                       * two): a transfer over it moves its bytes rounded up to a multiple */
    uint64_t xfers;   /* the trace's transfers over it queued on a stream or on the link, not
                       * yet done: a runtime copy while there are none is timed alone (rt_copy) */
} chan;

/* A failed request waiting for frees (retry-after-free). */
typedef struct pending {
    uint64_t id, bytes, seq, addr;
    uint32_t stream;
    unsigned long line;
    am_ps deadline;
} pending;

typedef struct level_rt {
    int counted_defrag; /* defragmentation triggered by a threshold or a count (maybe_defrag) */
    uint64_t allocs_since_defrag;
    int threshold_disarmed; /* trigger: threshold: a run left fragmentation above it */
    uint64_t rearm_at;  /* the level's allocations + frees from which it may re-arm */
    int relocatable;    /* the policy can have its blocks re-placed (no offline plan) */
    int recovering;     /* recover() runs on the level: a spill chain that comes back to it
                         * does not recover it again (spill_one) */
    uint64_t no_room;   /* in the current recovery episode (recover_depth > 0): the smallest
                         * spill copy this level's recovery failed to make room for, 0 when
                         * none; copies at least that large skip it (spill_copy) */
    int retry;          /* policy waits for frees on failure */
    am_ps retry_wait;
    pending *p;         /* the waits in arrival order, p[0 .. n), inside pbase[0 .. cap): */
    pending *pbase;     /* slots before p were freed at the front (pending_remove) */
    size_t n, cap;
    uint64_t wait_min;  /* at most the bytes of every request in p (retry_pending) */
    uint32_t *live;     /* tracked runs: slot indices of the level's live (resident) buffers,
                         * unordered (sim.lpos; live_enter, live_leave) */
    size_t nlive, caplive;
    uint64_t live_requested; /* the requested bytes of those buffers (spill_cannot_help) */
    int compacted;      /* the last compact run moved nothing, and left the level as it is */
    uint64_t compacted_at; /* mem_changes(level) when that run ended (compaction_idle) */
} level_rt;

typedef struct devctx {
    struct sim *s;
    int level;
} devctx;

/* A device range taken or given back: simulated (seg.log) or recorded and waiting (seg.wait). */
typedef struct segev {
    uint64_t seq;  /* trace event index it happened at */
    uint64_t addr, bytes;
    int level;
    uint8_t alloc; /* 1 taken (segment_alloc), 0 given back (segment_free) */
    uint8_t used;  /* a simulated one already matched a recorded one */
    unsigned long line; /* a recorded one: its trace line (or snapshot entry), 0 when none */
} segev;

/* Validation of recorded segment events (see seg_recorded). */
typedef struct segval {
    segev *log;        /* simulated device events of recent trace events, oldest first */
    size_t nlog, caplog;
    segev *wait;       /* recorded ones not matched yet, waiting for the next allocator event */
    size_t nwait, capwait;
    uint64_t last;     /* index of the last recorded segment event, UINT64_MAX before one */
    uint64_t run;      /* index of the first of the run of consecutive ones `last` ends */
} segval;

/* A sampled timeline row held back until its period ends (timeline_row_out). */
typedef struct tl_row {
    am_ps time;                                 /* host clock, ps */
    uint64_t seq, order;                        /* trace event index; tl_order when taken */
    uint64_t live, allocated, reserved;         /* bytes */
    int set;
} tl_row;

struct sim {
    const am_config *cfg;
    sim_opts o;
    const sim_observer *obs;
    devctx dctx[CFG_MAX_LEVELS];
    int nlevels;
    mem_level *lv[CFG_MAX_LEVELS];
    size_t name_len[CFG_MAX_LEVELS]; /* strlen of each level's name (placement rows) */
    uint8_t lat[CFG_MAX_LEVELS];     /* the level's policy charges a latency per call */
    level_rt rt[CFG_MAX_LEVELS];
    idmap ids;
    stream *st;
    size_t nst;
    evtab ev;            /* recorded event ids -> the last record's position and stream */
    hev *heap;
    size_t hn, hcap;
    uint64_t hseq;
    chan ch[2 * CFG_MAX_LINKS];
    int nch;
    uint64_t inflight;   /* transfers submitted to links and not yet retired */
    uint64_t npend;      /* the sum of pend[]: references of transfers queued or running */
    char *pbuf;          /* placement rows waiting to be written (PBUF bytes, with placements) */
    size_t pn;
    am_ps host, now; /* host clock; device-side clock */
    const char *file; /* the trace's path (sim_run), for errors after its last event */
    uint64_t seq;    /* trace event index */
    sim_summary sum;
    sim_oom *ooms; /* grown on demand up to report.max_oom_events (see record_oom) */
    size_t nooms, ooms_cap;
    /* the trace `name=` of each slot's allocation, by slot index (slot_name), NULL when none:
     * allocated at the first named allocation, so a trace without names keeps nnames 0 (the
     * slot itself is one full cache line) */
    struct slot_label {
        char *s;          /* "" when the slot's allocation has none */
        uint16_t cap;     /* bytes of s: kept for the slot's next name */
    } *names;
    size_t nnames;
    am_ps next_sample;   /* timeline_interval > 0: the sampling period's end (exclusive) */
    tl_row tl[CFG_MAX_LEVELS]; /* each level's last row in the current period, written later */
    uint64_t tl_order;   /* order in which the pending rows were taken (their output order) */
    mem_metrics shown[CFG_MAX_LEVELS]; /* each level's state as its last row showed it: its state
                                        * until the next row (a wait's expiry row, at its
                                        * deadline, shows it; see expire_due) */
    uint8_t shown_set[CFG_MAX_LEVELS]; /* shown[l] holds a row's state */
    int expiring;        /* expire_pending is settling waits: their rows show `shown` */
    int placed_unsettled; /* settle fails expired waits after the allocator placed the request
                           * it settles, before observers hear of that allocation */
    int waits;           /* some level waits for frees (retry_after_free): rows keep `shown` */
    uint64_t *lru;   /* tracked runs: event index of each slot's last use, by slot index */
    uint32_t *pend;  /* tracked runs: queued or running transfers of each slot (its buffer) */
    uint32_t *lpos;  /* tracked runs: each slot's index in its level's live set + 1, 0 when
                      * not a member (level_rt.live) */
    size_t nlru;     /* entries of lru, pend and lpos */
    int track;       /* some level spills to a host level (on_oom: spill_to_host) or
                      * defragments: buffers are moved, so use and pending work are kept */
    segval seg;
    int prologue;    /* a start-state prologue runs (prologue_edge) */
    uint64_t in_use; /* id of a buffer the event being handled uses (a transfer's source while
                      * its into= destination is allocated or its spilled to= destination
                      * comes back, the to= destination while its spilled source comes
                      * back): not a spill victim; TR_NO_ID */
    am_ps issue;     /* when the current trace event began on the host (observer 'event') */
    int rt_done;     /* the runtime copy in flight (rt_copy) has completed, at rt_end */
    am_ps rt_end;
    /* its note for an observer's `copy` (chan, bytes, copy, id, level set by rt_copy; carried
     * and end when it completes), deferred among the operations' as they finish */
    dev_note rt_note;
    int defer;       /* rt_copy advances the device: its operations' notes wait in notes */
    dev_note *notes;
    size_t nnotes, capnotes;
    int recover_depth; /* recover() calls running: 1 for a request's own, more inside a spill
                        * chain (a host copy's) */
    int into;        /* the allocation being made is a transfer's into= destination: it does
                      * not wait for frees (retry_after_free), see other_event */
    char buf[256];
    streamset streams; /* the distinct streams the trace named so far (at most 1024) */
    /* Under --check: a defragmentation under a policy that compacts down (alloc.h
     * compacts_down) raised or lost a buffer; check_all reports it after the event. Last: it
     * is cold, and in the middle it moved the hot fields after it by 200 bytes. */
    char defrag_broken[200];
};

/* Room in the per-slot arrays of tracked runs (lru, pend, lpos) for slot index `self`. */
static AM_NOINLINE void track_grow(sim *s, uint32_t self)
{
    size_t n = s->nlru ? s->nlru : 1024;
    while (n <= self)
        n *= 2;
    s->lru = am_realloc(s->lru, n * sizeof *s->lru);
    memset(s->lru + s->nlru, 0, (n - s->nlru) * sizeof *s->lru);
    s->pend = am_realloc(s->pend, n * sizeof *s->pend);
    memset(s->pend + s->nlru, 0, (n - s->nlru) * sizeof *s->pend);
    s->lpos = am_realloc(s->lpos, n * sizeof *s->lpos);
    memset(s->lpos + s->nlru, 0, (n - s->nlru) * sizeof *s->lpos);
    s->nlru = n;
}

/* x is used now (the LRU order of spilling); nothing to do in a run that neither spills nor
 * defragments. */
static inline void touch(sim *s, const slot *x)
{
    if (!s->track)
        return;
    if (x->self >= s->nlru)
        track_grow(s, x->self);
    s->lru[x->self] = s->seq;
}

/* The per-level live sets (level_rt.live), kept in runs that spill or defragment: the buffers a
 * spill can evict and a defragmentation moves are the level's resident ones (ST_LIVE), and those
 * paths walk only them, not the whole id map (until 2026-11-27 each spill, each defragmentation
 * and each spill_cannot_help walked every entry of the map's table: every id of every level,
 * the host copies and the buffers of unrelated levels included). A slot joins when its state
 * becomes ST_LIVE and leaves when it stops being ST_LIVE or leaves the map; removal moves the
 * set's last entry into its place (O(1)). */
static AM_NOINLINE void live_add(sim *s, const slot *x)
{
    if (x->self >= s->nlru)
        track_grow(s, x->self);
    level_rt *rt = &s->rt[x->level];
    if (rt->nlive == rt->caplive) {
        rt->caplive = rt->caplive ? 2 * rt->caplive : 64;
        rt->live = am_realloc(rt->live, rt->caplive * sizeof *rt->live);
    }
    rt->live[rt->nlive++] = x->self;
    rt->live_requested += x->requested;
    s->lpos[x->self] = (uint32_t)rt->nlive;
}

/* Out of line, as live_remove: in an untracked run (most runs) each is one test on the
 * per-event path, and the bodies stay out of sim_run's loop. */
static inline void live_enter(sim *s, const slot *x)
{
    if (__builtin_expect(s->track, 0))
        live_add(s, x);
}

/* x stops being a live buffer of its level (freed, free requested, spilled, lost); nothing when
 * it is not a member, so callers need not know whether it was live. */
static AM_NOINLINE void live_remove(sim *s, const slot *x)
{
    if (x->self >= s->nlru || !s->lpos[x->self])
        return;
    level_rt *rt = &s->rt[x->level];
    uint32_t at = s->lpos[x->self] - 1, last = rt->live[--rt->nlive];
    rt->live[at] = last;
    rt->live_requested -= x->requested;
    s->lpos[last] = at + 1;
    s->lpos[x->self] = 0;
}

static inline void live_leave(sim *s, const slot *x)
{
    if (__builtin_expect(s->track, 0))
        live_remove(s, x);
}

/* Pending stream work on buffers, kept in runs that spill or defragment: a spill copies its
 * victim out, and a defragmentation moves a level's buffers, only after the transfers queued or
 * running that read or write them (stream order). A transfer op
 * names its source and destination slots in its gen field, (src self + 1) << 32 | (dst self +
 * 1), 0 for none; s->pend counts them per slot. */
static inline uint64_t xfer_refs(sim *s, const slot *src, const slot *dst)
{
    if (!s->track)
        return 0;
    uint64_t g = 0;
    if (src && src->state == ST_LIVE) {
        g |= (uint64_t)(src->self + 1) << 32;
        s->pend[src->self]++;
        s->npend++;
    }
    if (dst && dst->state == ST_LIVE) {
        g |= (uint64_t)(dst->self + 1);
        s->pend[dst->self]++;
        s->npend++;
    }
    return g;
}

/* A transfer op finished (or its buffers went): its references end. */
static inline void xfer_unref(sim *s, uint64_t g)
{
    if (g >> 32) {
        s->pend[(g >> 32) - 1]--;
        s->npend--;
    }
    if ((uint32_t)g) {
        s->pend[(uint32_t)g - 1]--;
        s->npend--;
    }
}

/* The queued transfers on slot `from` now refer to slot `to` (a donation), or to nothing (to =
 * UINT32_MAX: its buffer is gone; a slot is reused for other ids, which must not wait for it). */
static AM_NOINLINE void pend_move(sim *s, uint32_t from, uint32_t to)
{
    for (size_t i = 0; i < s->nst; i++) {
        stream *q = &s->st[i];
        for (size_t k = 0; k < q->len; k++) {
            op *o = &q->q[(q->head + k) % q->cap];
            if (o->kind != OP_XFER)
                continue;
            uint64_t hi = o->gen >> 32, lo = (uint32_t)o->gen;
            if (hi == (uint64_t)from + 1)
                hi = to == UINT32_MAX ? 0 : (uint64_t)to + 1;
            if (lo == (uint64_t)from + 1)
                lo = to == UINT32_MAX ? 0 : (uint64_t)to + 1;
            o->gen = hi << 32 | lo;
        }
    }
    if (to != UINT32_MAX)
        s->pend[to] += s->pend[from];
    else
        s->npend -= s->pend[from];
    s->pend[from] = 0;
}

/* x's buffer leaves the id map: transfers still queued on it no longer hold its slot. */
static inline void pend_drop(sim *s, const slot *x)
{
    if (s->track && x->self < s->nlru && s->pend[x->self])
        pend_move(s, x->self, UINT32_MAX);
}

static void heap_push(sim *s, am_ps t, uint32_t sid, uint8_t kind)
{
    if (s->hn == s->hcap) {
        s->hcap = s->hcap ? 2 * s->hcap : 64;
        s->heap = am_realloc(s->heap, s->hcap * sizeof *s->heap);
    }
    hev e = {t, s->hseq++, sid, kind};
    size_t i = s->hn++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (s->heap[p].t < e.t || (s->heap[p].t == e.t && s->heap[p].seq < e.seq))
            break;
        s->heap[i] = s->heap[p];
        i = p;
    }
    s->heap[i] = e;
}

static hev heap_pop(sim *s)
{
    hev top = s->heap[0], last = s->heap[--s->hn];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= s->hn)
            break;
        if (c + 1 < s->hn && (s->heap[c + 1].t < s->heap[c].t ||
                              (s->heap[c + 1].t == s->heap[c].t && s->heap[c + 1].seq < s->heap[c].seq)))
            c++;
        if (last.t < s->heap[c].t || (last.t == s->heap[c].t && last.seq < s->heap[c].seq))
            break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    if (s->hn)
        s->heap[i] = last;
    return top;
}

static stream *get_stream(sim *s, uint32_t id)
{
    if (id >= s->nst) {
        size_t n = s->nst ? s->nst : 4;
        while (n <= id)
            n *= 2;
        s->st = am_realloc(s->st, n * sizeof *s->st);
        memset(s->st + s->nst, 0, (n - s->nst) * sizeof *s->st);
        s->nst = n;
    }
    return &s->st[id];
}

static op *st_head(stream *q) { return &q->q[q->head]; }

static void st_pop(stream *q)
{
    q->head = (q->head + 1) % q->cap;
    q->len--;
    q->popped++;
}

static void st_push(stream *q, op o)
{
    if (q->len == q->cap) {
        size_t nc = q->cap ? 2 * q->cap : 16;
        op *n = am_malloc(nc * sizeof *n);
        for (size_t i = 0; i < q->len; i++)
            n[i] = q->q[(q->head + i) % q->cap];
        free(q->q);
        q->q = n;
        q->head = 0;
        q->cap = nc;
    }
    q->q[(q->head + q->len++) % q->cap] = o;
}

/* Keep a copy of the name of a named op queued on q (op.named): the reader's buffer holding it
 * is reused at the next event. Freed when the op finishes (op_done), or by rt_heard when its
 * note waited for a runtime copy's action (defer_note: until 2026-11-28 the note had a copy). */
static AM_NOINLINE void st_push_name(stream *q, const char *name)
{
    if (q->nnames == q->names_cap) {
        if (q->nhead > 0) { /* the finished ones' room at the front */
            memmove(q->names, q->names + q->nhead, (q->nnames - q->nhead) * sizeof *q->names);
            q->nnames -= q->nhead;
            q->nhead = 0;
        }
        if (q->nnames == q->names_cap) {
            q->names_cap = q->names_cap ? 2 * q->names_cap : 16;
            q->names = am_realloc(q->names, q->names_cap * sizeof *q->names);
        }
    }
    q->names[q->nnames++] = am_strdup(name);
}

/* Start what stream `id` can start at the device clock. */
static void kick(sim *s, uint32_t id)
{
    stream *q = &s->st[id];
    while (!q->busy && q->len) {
        op *h = st_head(q);
        if (h->issue > s->now) {
            heap_push(s, h->issue, id, 1);
            return;
        }
        switch (h->kind) {
        case OP_COMPUTE:
            q->busy = 1;
            q->started = s->now;
            heap_push(s, am_ps_add(s->now, h->arg), id, 0);
            return;
        case OP_XFER:
            q->busy = 1;
            q->started = s->now;
            link_submit_ordered(s->ch[h->chan].l, s->now, h->arg, id, s->ch[h->chan].side,
                                h->order);
            s->inflight++;
            return;
        case OP_RECORD:
            /* Wake the streams waiting for this very record (through the heap: no recursion);
             * it is done once popped. */
            for (size_t i = 0; i < s->nst; i++) {
                stream *w = &s->st[i];
                if (i != id && w->len && !w->busy && st_head(w)->kind == OP_WAIT &&
                    st_head(w)->chan == id && st_head(w)->gen == q->popped)
                    heap_push(s, s->now, (uint32_t)i, 1);
            }
            st_pop(q);
            break;
        case OP_WAIT:
            if (s->st[h->chan].popped <= h->gen)
                return; /* its record has not finished: woken by it */
            st_pop(q);
            break;
        }
    }
}

static void tell_op(sim *s, const dev_note *n)
{
    if (n->copy) {
        s->obs->copy(s->obs->ctx, n->chan, n->carried, n->end, n->bytes, n->copy, n->id,
                     n->level);
        return;
    }
    if (s->obs->link && n->chan >= 0)
        s->obs->link(s->obs->ctx, n->chan, n->stream, n->carried, n->end, n->bytes);
    if (s->obs->op)
        s->obs->op(s->obs->ctx, n->stream, n->start, n->end, n->chan, n->bytes, n->name);
}

/* The end of a runtime action that ran copies (spill_one, restore, defrag): observers hear of
 * the operations its copies' waits finished after its own slice and the waits that failed
 * during it, and before anything at or after its end (its device free, the retried request, a
 * later action in the same event). Until 2026-11-28 they heard of them only when the engine
 * next advanced the device: a later wait in the same event that the copy's run had already
 * satisfied took no device step, and the Chrome trace wrote a transfer that ended during a
 * spill after the next spill's slice and the request's allocation. */
static void rt_heard(sim *s)
{
    for (size_t i = 0; i < s->nnotes; i++) {
        tell_op(s, &s->notes[i]);
        free(s->notes[i].name);
    }
    s->nnotes = 0;
}

/* Keep n for rt_heard; the note takes over n->name (op_done then leaves it, rt_heard frees it). */
static AM_NOINLINE void defer_note(sim *s, const dev_note *n)
{
    if (s->nnotes == s->capnotes) {
        s->capnotes = s->capnotes ? 2 * s->capnotes : 16;
        s->notes = am_realloc(s->notes, s->capnotes * sizeof *s->notes);
    }
    s->notes[s->nnotes++] = *n;
}

/* The runtime copy in flight (rt_copy) was carried from start to end: its note waits, after
 * those of the operations that finished before it, for the end of its action (rt_heard). */
static void rt_noted(sim *s, am_ps start, am_ps end)
{
    if (s->obs && s->obs->copy) {
        s->rt_note.carried = start;
        s->rt_note.end = end;
        defer_note(s, &s->rt_note);
    }
}

/* The head op of stream id finished now; carried: for a transfer, when its link took it. */
static void op_done(sim *s, uint32_t id, am_ps carried)
{
    stream *q = &s->st[id];
    int kept = 0; /* its name went to a deferred note, which frees it */
    if (s->obs && (s->obs->link || s->obs->op)) {
        const op *h = st_head(q);
        int x = h->kind == OP_XFER;
        dev_note n = {id, x ? (int)h->chan : -1, carried, q->started, s->now, x ? h->arg : 0,
                      h->named ? q->names[q->nhead] : NULL, NULL, 0, 0};
        if (s->defer) {
            defer_note(s, &n);
            kept = 1;
        } else {
            tell_op(s, &n);
        }
    }
    if (st_head(q)->named) {
        if (!kept)
            free(q->names[q->nhead]);
        q->nhead++;
    }
    if (st_head(q)->kind == OP_XFER) {
        s->ch[st_head(q)->chan].xfers--;
        if (st_head(q)->gen)
            xfer_unref(s, st_head(q)->gen);
    }
    q->busy = 0;
    st_pop(q);
    kick(s, id);
}

/* The tag of a runtime copy on a link (rt_copy): stream tags are stream numbers. */
#define RT_COPY_TAG UINT64_MAX

/* Process the next device-side event if it is at or before `limit`: 1 if one was. */
static int des_step(sim *s, am_ps limit)
{
    am_ps tl = AM_TIME_NONE;
    int cl = -1;
    for (int i = 0; i < s->nch; i++) {
        if (!s->ch[i].owner)
            continue;
        am_ps t = link_next_time(s->ch[i].l);
        if (t < tl) {
            tl = t;
            cl = i;
        }
    }
    am_ps th = s->hn ? s->heap[0].t : AM_TIME_NONE;
    if (tl == AM_TIME_NONE && th == AM_TIME_NONE)
        return 0;
    if (tl <= th) {
        if (tl > limit)
            return 0;
        s->now = tl;
        link_done done[16];
        int n = link_advance(s->ch[cl].l, tl, done, 16);
        for (int i = 0; i < n; i++) {
            if (done[i].tag == RT_COPY_TAG) { /* rt_copy's, not a stream's */
                s->rt_done = 1;
                s->rt_end = tl;
                rt_noted(s, done[i].started, tl);
                continue;
            }
            s->inflight--;
            op_done(s, (uint32_t)done[i].tag, done[i].started);
        }
        return 1;
    }
    if (th > limit)
        return 0;
    hev e = heap_pop(s);
    s->now = e.t;
    if (e.kind == 0)
        op_done(s, e.stream, 0);
    else
        kick(s, e.stream);
    return 1;
}

static void des_run_until(sim *s, am_ps t)
{
    while (des_step(s, t)) {
    }
    if (s->now < t)
        s->now = t;
}

static int stream_idle(const stream *q) { return q->len == 0 && !q->busy; }

/* Host blocks until the stream (or all, TR_ALL) has drained. */
static void host_sync(sim *s, uint32_t id)
{
    am_ps before = s->host;
    for (;;) {
        int idle = 1;
        if (id == TR_ALL) {
            for (size_t i = 0; i < s->nst && idle; i++)
                idle = stream_idle(&s->st[i]);
        } else if (id < s->nst)
            idle = stream_idle(&s->st[id]);
        if (idle || !des_step(s, AM_TIME_NONE - 1))
            break;
    }
    if (s->now > s->host)
        s->host = s->now;
    s->sum.stall += s->host - before;
}

/* ---- outputs ----------------------------------------------------------------------------- */

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The eight decimal digit values (0..9) of v < 10^8 in one word, most significant digit in the
 * lowest byte (so a little-endian store writes them in reading order). Lanes split by
 * multiplications: two 4-digit halves in 32-bit lanes, then 2-digit pairs in 16-bit lanes (x / 100
 * as x * 10486 >> 20, exact below 10^4), then single digits in bytes (x / 10 as x * 103 >> 10,
 * exact below 100); no lane's product reaches the next lane. */
#if defined(__SSE2__) && defined(__x86_64__)
/* The same with SSE2 (every x86-64 has it), in fewer instructions: v / 10000 and v % 10000 as
 * two 16-bit lanes, each spread over four lanes scaled by 4, divided there by 1000, 100, 10 and 1
 * (a high-half multiply by 2^k / 10^j, then one by a power of two for the remaining shift; exact
 * below 10^4 with the scaling), then each lane less ten times the lane before it. Checked equal
 * to the multiplication form for every v < 10^8. */
AM_ALWAYS_INLINE uint64_t digits8(uint32_t v)
{
    __m128i x = _mm_cvtsi32_si128((int)v);
    __m128i hi = _mm_srli_epi64(_mm_mul_epu32(x, _mm_set1_epi32((int)0xD1B71759u)), 45);
    __m128i lo = _mm_sub_epi32(x, _mm_mul_epu32(hi, _mm_set1_epi32(10000)));
    __m128i v1 = _mm_slli_epi64(_mm_unpacklo_epi16(hi, lo), 2);
    __m128i v2 = _mm_unpacklo_epi32(_mm_unpacklo_epi16(v1, v1), _mm_unpacklo_epi16(v1, v1));
    __m128i v3 = _mm_mulhi_epu16(v2, _mm_set_epi16((short)32768, 13108, 5243, 8389, (short)32768,
                                                   13108, 5243, 8389));
    __m128i v4 = _mm_mulhi_epu16(v3, _mm_set_epi16((short)32768, 1 << 13, 1 << 11, 1 << 7,
                                                   (short)32768, 1 << 13, 1 << 11, 1 << 7));
    __m128i v7 = _mm_sub_epi16(v4, _mm_slli_epi64(_mm_mullo_epi16(v4, _mm_set1_epi16(10)), 16));
    return (uint64_t)_mm_cvtsi128_si64(_mm_packus_epi16(v7, _mm_setzero_si128()));
}
#else
AM_ALWAYS_INLINE uint64_t digits8(uint32_t v)
{
    uint64_t hi = v / 10000, m = hi | (uint64_t)(v - (uint32_t)hi * 10000) << 32;
    uint64_t q = ((m * 10486) >> 20) & 0x0000007F0000007FULL;
    m = (m - q * 100) << 16 | q;
    uint64_t t = ((m * 103) >> 10) & 0x000F000F000F000FULL;
    return (m - t * 10) << 8 | t;
}
#endif

/* v < 10^8 in decimal at p without leading zeros; returns the end. The leading zeros are the
 * zero bytes at the word's low end (v = 0 keeps one). Writes a whole 8-byte word: bytes past the
 * end are scratch, overwritten by what follows (the row buffer keeps room). */
AM_ALWAYS_INLINE char *put_u8d(char *p, uint32_t v)
{
    uint64_t m = digits8(v);
    unsigned lz = m ? (unsigned)__builtin_ctzll(m) >> 3 : 7;
    uint64_t w = (m | 0x3030303030303030ULL) >> (lz * 8);
    memcpy(p, &w, 8);
    return p + 8 - lz;
}

/* All eight digits of v < 10^8, leading zeros included. */
AM_ALWAYS_INLINE char *put_8d(char *p, uint32_t v)
{
    uint64_t w = digits8(v) | 0x3030303030303030ULL;
    memcpy(p, &w, 8);
    return p + 8;
}

/* v >= 10^16 in decimal at p (three words); returns the end. */
static AM_NOINLINE char *put_u64_long(char *p, uint64_t v)
{
    uint64_t hi = v / 100000000;
    p = put_u8d(p, (uint32_t)(hi / 100000000)); /* at most 1844 */
    p = put_8d(p, (uint32_t)(hi % 100000000));
    return put_8d(p, (uint32_t)(v - hi * 100000000));
}

/* v in decimal at p; returns the end. Up to 16 digits (every address and size of a real
 * device) in line, as one or two words. */
AM_ALWAYS_INLINE char *put_u64(char *p, uint64_t v)
{
    if (v < 100000000)
        return put_u8d(p, (uint32_t)v);
    if (v >= 10000000000000000ULL)
        return put_u64_long(p, v);
    uint64_t hi = v / 100000000;
    p = put_u8d(p, (uint32_t)hi);
    return put_8d(p, (uint32_t)(v - hi * 100000000));
}
#else
/* Decimal digits in v: bits times log10(2) (1233 / 4096) is the count or one less, and one
 * comparison with a power of ten says which. */
static inline size_t ndigits(uint64_t v)
{
    static const uint64_t p10[20] = {1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL,
        1000000ULL, 10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL,
        1000000000000ULL, 10000000000000ULL, 100000000000000ULL, 1000000000000000ULL,
        10000000000000000ULL, 100000000000000000ULL, 1000000000000000000ULL,
        10000000000000000000ULL};
    v |= 1;
    size_t n = ((size_t)(64 - __builtin_clzll(v)) * 1233) >> 12;
    return n + (v >= p10[n]);
}

/* v in decimal at p; returns the end: the digit count first, then the digits two at a time
 * backwards from the end. */
static inline char *put_u64(char *p, uint64_t v)
{
    static const char pairs[] =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
        "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
        "8081828384858687888990919293949596979899";
    char *e = p + ndigits(v), *q = e;
    while (v >= 100) {
        q -= 2;
        memcpy(q, pairs + 2 * (v % 100), 2);
        v /= 100;
    }
    if (v >= 10)
        memcpy(q - 2, pairs + 2 * v, 2);
    else
        q[-1] = (char)('0' + v);
    return e;
}
#endif

/* Room a row may take: five 20-digit numbers, a level name read as a whole CFG_NAME_MAX array,
 * separators and status, the scratch bytes put_u64's word stores leave past the end, and with
 * --placements-names a name of at most TR_NAME_MAX bytes, quoted with every byte a quote. */
enum { PBUF = 1 << 18, PROW = 5 * 20 + CFG_NAME_MAX + 32 + 2 * TR_NAME_MAX + 3 };

/* One placements.csv row, written in place in the output buffer (no copy through a scratch
 * buffer, whose small stores a wide copy would wait for). */
/* A row's status: a request's outcome (PL_OOM, PL_OK, PL_DONATED: a matched donate= took over
 * the donor's block, which the donor leaves; PL_SERVED: a recorded `oom` line the simulation
 * served, given back within its event, id empty), or a record of a buffer that changed place
 * without a request: moved by defragmentation, its host copy when spilled, its device
 * allocation when restored. Every status but PL_OOM has an address and an allocated size. */
enum { PL_OOM, PL_OK, PL_MOVED, PL_SPILLED, PL_RESTORED, PL_DONATED, PL_SERVED };

/* The buffered rows to the placements stream. A failed write's errno is noted for the commit
 * (out_note_write_error), which otherwise finds the stream's error flag with errno 0. */
static void placements_write(sim *s)
{
    if (fwrite(s->pbuf, 1, s->pn, s->o.placements) != s->pn)
        out_note_write_error(s->o.placements, errno);
    s->pn = 0;
}

/* The name column (--placements-names) after a row's status, at p, its newline: a name with
 * a comma, a quote, CR or LF quoted as RFC 4180 says, its quotes doubled (a trace's `name=`
 * has no CR, LF or space, but commas and quotes are allowed); none, empty. Returns the end. */
static AM_NOINLINE char *put_name(char *p, const char *name)
{
    *p++ = ',';
    if (name) {
        size_t n = strlen(name);
        if (strpbrk(name, ",\"\r\n")) {
            *p++ = '"';
            for (size_t i = 0; i < n; i++)
                if ((*p++ = name[i]) == '"')
                    *p++ = '"';
            *p++ = '"';
        } else {
            memcpy(p, name, n);
            p += n;
        }
    }
    *p++ = '\n';
    return p;
}

/* The trace `name=` of slot x's allocation, NULL when it had none. */
static inline const char *slot_name(const sim *s, const slot *x)
{
    const char *n = x->self < s->nnames ? s->names[x->self].s : NULL;
    return n && n[0] ? n : NULL; /* "": none (a name has 1 to 255 bytes) */
}

/* x: the buffer the row is of, whose trace `name=` (slot_name) the row names; NULL for a row
 * of a request with no slot (donated, served), named ev_name (NULL: none). Both are read only
 * with --placements-names, so a run without it looks no name up. */
static void placement_row(sim *s, uint64_t seq, uint64_t id, int level, const alloc_out *o,
                          uint64_t req, int ok, const slot *x, const char *ev_name)
{
    if (!s->o.placements)
        return;
    if (s->pn > PBUF - PROW)
        placements_write(s);
    char *p = s->pbuf + s->pn, *start = p;
    p = put_u64(p, seq);
    *p++ = ',';
    if (ok != PL_SERVED) /* empty: a recorded `oom` line's request, as its JSON id is null */
        p = put_u64(p, id);
    *p++ = ',';
    memcpy(p, s->cfg->levels[level].name, CFG_NAME_MAX); /* fixed size: no call; the rest */
    p += s->name_len[level];                             /* is overwritten */
    *p++ = ',';
    if (ok)
        p = put_u64(p, o->addr);
    *p++ = ',';
    p = put_u64(p, req);
    *p++ = ',';
    if (ok) {
        p = put_u64(p, o->size);
        if (ok == PL_OK) {
            memcpy(p, ",ok\n", 4);
            p += 4;
        } else {
            static const char *const st[] = {[PL_MOVED] = ",moved\n", [PL_SPILLED] = ",spilled\n",
                                             [PL_RESTORED] = ",restored\n",
                                             [PL_DONATED] = ",donated\n",
                                             [PL_SERVED] = ",served\n"};
            size_t k = strlen(st[ok]);
            memcpy(p, st[ok], k);
            p += k;
        }
    } else {
        memcpy(p, ",oom\n", 5);
        p += 5;
    }
    if (__builtin_expect(s->o.placements_names, 0))
        p = put_name(p - 1, x ? slot_name(s, x) : ev_name); /* over the status's newline */
    s->pn += (size_t)(p - start);
}

static void timeline_print(sim *s, int level, am_ps t, uint64_t seq, uint64_t live,
                           uint64_t allocated, uint64_t reserved)
{
    fprintf(s->o.timeline, "%" PRIu64 ",%" PRIu64 ",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", t,
            seq, s->cfg->levels[level].name, live, allocated, reserved);
}

/* Write the rows held for the period that just ended, in the order they were taken (so in
 * trace order: at most one per level, sorted by a small insertion sort). */
static void timeline_flush(sim *s)
{
    int idx[CFG_MAX_LEVELS], n = 0;
    for (int i = 0; i < s->nlevels; i++) {
        if (!s->tl[i].set)
            continue;
        int k = n++;
        for (; k > 0 && s->tl[idx[k - 1]].order > s->tl[i].order; k--)
            idx[k] = idx[k - 1];
        idx[k] = i;
    }
    for (int k = 0; k < n; k++) {
        tl_row *r = &s->tl[idx[k]];
        timeline_print(s, idx[k], r->time, r->seq, r->live, r->allocated, r->reserved);
        r->set = 0;
    }
}

/* A level's timeline row after one of its allocations or frees. Without a sampling interval,
 * every such event writes one. With report.timeline_interval T > 0, each level is sampled on its
 * own: the host clock is cut into periods [kT, (k+1)T), and for every period in which a level
 * had allocations or frees it gets one row, that of its last such event in the period (its
 * state at the period's end, so at time (k+1)T). The row is held until an event of a later
 * period, or the end of the run, and the rows of one period are written in trace order.
 * (Until 2026-11-25 all levels shared one sampling clock: the first event after a boundary
 * took the sample, whatever its level, and the other levels got no row for that period.) */
static void expire_pending(sim *s, am_ps now, int force);

/* Some request waits for frees (retry_after_free) and has not been served or failed yet. */
static inline int waits_unsettled(const sim *s)
{
    return s->sum.retries > s->sum.retries_succeeded + s->sum.retries_failed;
}

/* Waits for frees whose deadline the clock has passed fail now, at their deadline, before
 * anything else happens. Not inside expire_pending (its rows fail no others) nor a start-state
 * prologue, where no row notices waits either.
 * - Before a row (timeline_row): they show each level's state as its last row did (the state it
 *   kept until this change: the change this row is for is already made, and in a slow event, a
 *   defragmentation say, the clock passed the deadline before the row). So every level's rows,
 *   and the file's, run in time order and a step plot of them is the level's state. Until
 *   2026-11-27 such a wait failed after the event that moved the clock past its deadline, its
 *   row dated back to the deadline with the state after that event (a compaction's allocation,
 *   4 MiB where 2 MiB were live).
 * - Before a runtime recovery (a defragmentation, a spill's eviction) changes a level, or when
 *   its copies have just ended (the failed attempt's device call, the wait for the transfers on
 *   the buffers it moves, the copies passed them): in the run's order they failed while the
 *   room they waited for was still taken (a recovery releases nothing before its copies are
 *   done); noticed only at the next row, after the recovery's frees or the placement it made
 *   room for, their `oom` came after those in a --pytorch-snapshot export, and the replay
 *   served them from the room the recovery made (until 2026-11-27: a spill's free before a
 *   3 MiB request's expired wait, "0 of 1 recorded out-of-memory requests ran out here too").
 *   An export writes the ones that end with the copies before the recovery's entries
 *   (sim_observer.action).
 * (Until 2026-11-27 timeline_row spelt this test out again, and timeline_row_out repeated it.) */
static void expire_due(sim *s)
{
    if (!s->prologue && !s->expiring && waits_unsettled(s))
        expire_pending(s, s->host, 0);
}

static void timeline_row_out(sim *s, int level, am_ps at, uint64_t seq)
{
    if (s->prologue)
        return; /* no state of the recording: prologue_edge writes the one it leaves */
    /* waits due before `at` have failed already: both callers (timeline_row, settle) expire
     * them at this same time first */
    const mem_metrics *m = mem_get_metrics(s->lv[level]);
    if (s->expiring && s->shown_set[level])
        m = &s->shown[level]; /* a failed wait changes nothing but its OOM count */
    else if (!s->expiring && s->waits) { /* only an expiry row reads it */
        s->shown[level] = *m;
        s->shown_set[level] = 1;
    }
    if (s->obs && s->obs->counters)
        s->obs->counters(s->obs->ctx, at, level, m);
    if (!s->o.timeline)
        return;
    am_ps iv = s->cfg->report.timeline_interval;
    if (!iv) {
        timeline_print(s, level, at, seq, m->live_bytes, m->allocated_bytes, m->reserved_bytes);
        return;
    }
    if (at >= s->next_sample) {
        timeline_flush(s); /* a new period: the held rows are final */
        am_ps k = at / iv + 1;
        s->next_sample = k > AM_TIME_NONE / iv ? AM_TIME_NONE : k * iv;
    }
    s->tl[level] = (tl_row){at, seq, s->tl_order++, m->live_bytes, m->allocated_bytes,
                            m->reserved_bytes, 1};
}

/* After every allocation and free, the host level's too when spilling allocates, restoring frees
 * or a free drops a spilled copy there (until 2026-11-25 those wrote no host row, and the last
 * host row could disagree with the summary): the observer's counters and a timeline row, when
 * wanted. */
static inline void timeline_row(sim *s, int level)
{
    /* Waits that ran out before this change fail first whether or not a row is written: the
     * outcome may not depend on the outputs asked for. Until 2026-11-27 only a run with an
     * observer or a timeline did this here, so a wait whose deadline a spill's copy passed was
     * still served by that spill's free in a plain run (6 allocations, 0 out of memory against
     * 5 and 1 with --timeline, --chrome-trace or --pytorch-snapshot). */
    expire_due(s);
    if (s->obs || s->o.timeline)
        timeline_row_out(s, level, s->host, s->seq);
}

static void log_prefix(sim *s, int level)
{
    if (s->nlevels > 1)
        fprintf(s->o.log, "%s: ", s->cfg->levels[level].name);
}

/* Log lines of a level: an allocation placed (`A ID ADDR SIZE`), a request or a buffer lost
 * (`OOM ID BYTES`), a buffer moved by defragmentation (`M ID OLD NEW SIZE`), a donation
 * (`D ID DONOR ADDR SIZE`, log_donate). */
static void log_alloc(sim *s, int level, uint64_t id, uint64_t addr, uint64_t size)
{
    if (!s->o.log)
        return;
    log_prefix(s, level);
    fprintf(s->o.log, "A %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", id, addr, size);
}

/* A recorded `oom` line's request the simulation served (`A - ADDR SIZE`: it has no id). */
static void log_served(sim *s, int level, uint64_t addr, uint64_t size)
{
    if (!s->o.log)
        return;
    log_prefix(s, level);
    fprintf(s->o.log, "A - %" PRIu64 " %" PRIu64 "\n", addr, size);
}

static void log_oom(sim *s, int level, uint64_t id, uint64_t bytes)
{
    if (!s->o.log)
        return;
    log_prefix(s, level);
    fprintf(s->o.log, "OOM %" PRIu64 " %" PRIu64 "\n", id, bytes);
}

/* A matched donation: id takes over donor's block (`D ID DONOR ADDR SIZE`); donor is gone. */
static void log_donate(sim *s, int level, uint64_t id, uint64_t donor, uint64_t addr,
                       uint64_t size)
{
    if (!s->o.log)
        return;
    log_prefix(s, level);
    fprintf(s->o.log, "D %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", id, donor, addr,
            size);
}

static void log_move(sim *s, int level, uint64_t id, uint64_t from, uint64_t to, uint64_t size)
{
    if (!s->o.log)
        return;
    log_prefix(s, level);
    fprintf(s->o.log, "M %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", id, from, to, size);
}

/* A live buffer x changed place without a request: from (from_level, x->addr, x->given) to
 * (level, o): its placements row (status PL_MOVED, PL_SPILLED or PL_RESTORED), its log line
 * (M within a level, A on the level it went to) and the observer's move. */
static void relocated(sim *s, const slot *x, int from_level, int level, const alloc_out *o,
                  int status)
{
    placement_row(s, s->seq, x->id, level, o, x->requested, status, x, NULL);
    if (status == PL_MOVED)
        log_move(s, level, x->id, x->addr, o->addr, o->size);
    else
        log_alloc(s, level, x->id, o->addr, o->size);
    if (s->obs && s->obs->move)
        s->obs->move(s->obs->ctx, s->host, s->seq, x->id, x->stream, from_level, x->addr,
                     x->given, level, o->addr, x->requested, o->size, slot_name(s, x));
}

/* ---- the start-state prologue --------------------------------------------------------------
 * A PyTorch snapshot's trace starts mid-run; the snapshot reader rebuilds the state at its start
 * (trace_pickle.c, step 2) with allocations tiling every recorded segment in address order, the
 * blocks free at the start included, whose frees come only once every segment is tiled; then the
 * free requests of the blocks pending at the start. Those events have line 0 (native and binary
 * traces: `prologue=1` on alloc, free and free_requested, as `amsim convert` writes them). Their
 * intermediate states are no state the recording had: with every block allocated, live bytes
 * equal reserved bytes, and a peak taken there would report 100 % utilization. So from the first
 * prologue event to the first event that is not one (or the end of the trace) the levels take
 * no peaks and no section-6 metrics and the timeline takes no rows; at the end every level takes
 * them once from the state the prologue left (the recording's start state: its live blocks are
 * live requests, its free blocks free space of reserved segments), writes its row, and the
 * policies' own peak statistics are reset to their current values. A declaration
 * (segment_alloc declared=1) neither starts nor ends a prologue. */
static inline int prologue_event(const tr_event *ev)
{
    return ev->line == 0 &&
           (ev->kind == TR_ALLOC || ev->kind == TR_FREE || ev->kind == TR_FREE_REQUESTED);
}

static AM_NOINLINE void prologue_switch(sim *s, int on)
{
    s->prologue = on;
    for (int i = 0; i < s->nlevels; i++)
        mem_set_prologue(s->lv[i], on);
    if (s->obs && s->obs->prologue) /* the snapshot exporter writes no prologue entries */
        s->obs->prologue(s->obs->ctx, on);
    if (on)
        return;
    /* each level's row of the state after the prologue's last event (seq - 1: the prologue
     * starts at an event, so seq > 0 here) */
    s->seq--;
    for (int i = 0; i < s->nlevels; i++)
        timeline_row(s, i);
    s->seq++;
}

AM_ALWAYS_INLINE void prologue_edge(sim *s, const tr_event *ev)
{
    if (__builtin_expect(prologue_event(ev) != s->prologue, 0) &&
        !(ev->kind == TR_SEGMENT_ALLOC && ev->declared))
        prologue_switch(s, !s->prologue);
}

/* ---- trace events ------------------------------------------------------------------------ */

/* The per-level live sets against the id map (tracked runs): every member is a live buffer of
 * its level whose index points back at it, and every live buffer of the map is a member. NULL,
 * or what is broken. */
static const char *live_sets_broken(const sim *s)
{
    if (!s->track)
        return NULL;
    size_t members = 0;
    for (int l = 0; l < s->nlevels; l++) {
        const level_rt *rt = &s->rt[l];
        uint64_t bytes = 0;
        for (size_t i = 0; i < rt->nlive; i++) {
            uint32_t k = rt->live[i];
            /* the bounds test first: idmap_slot indexes the map's blocks with k */
            if (k >= s->nlru || s->lpos[k] != i + 1)
                return "a level's live set entry does not point back at itself";
            const slot *x = idmap_slot(&s->ids, (uint64_t)k + 1);
            if (x->state != ST_LIVE || x->level != l || idmap_find(&s->ids, x->id) != x)
                return "a level's live set holds a buffer that is not live on it";
            bytes += x->requested;
        }
        members += rt->nlive;
        if (bytes != rt->live_requested)
            return "a level's live requested bytes are not the sum of its live set's";
    }
    size_t live = 0;
    for (size_t i = 0; i < s->ids.cap; i++)
        if (s->ids.t[i] && idmap_slot(&s->ids, s->ids.t[i])->state == ST_LIVE)
            live++;
    return live == members ? NULL : "a live buffer is missing from its level's live set";
}

static int check_all(sim *s, const char *file, const tr_event *ev, am_error *err)
{
    for (int i = 0; i < s->nlevels; i++) {
        am_error e = {0};
        if (mem_check(s->lv[i], &e))
            return am_fail(err, AM_EINTERNAL, "%s:%lu: invariant broken after this event: %s",
                           file, ev->line, e.msg);
    }
    const char *why = live_sets_broken(s);
    if (!why && s->defrag_broken[0])
        why = s->defrag_broken;
    if (why)
        return am_fail(err, AM_EINTERNAL, "%s:%lu: invariant broken after this event: %s", file,
                       ev->line, why);
    return 0;
}

static int level_ok(sim *s, int level, const char *file, const tr_event *ev, am_error *err)
{
    if (level < 0 || level >= s->nlevels)
        return am_fail_at(err, file, ev->line, ev->col, "memory level index %d out of range",
                          level);
    return 0;
}

/* ---- validation of recorded segment events ------------------------------------------------
 * A recorded segment_alloc ADDR BYTES (a declaration, declared=1, is not one) matches when the
 * simulation took exactly [ADDR, ADDR + BYTES) from that level's device, and a segment_free when
 * it gave exactly that range back, during a neighbouring trace event: the last one before the run
 * of consecutive segment events the recorded one belongs to, or the first one after that run.
 * PyTorch writes segment_alloc before the alloc that made the segment, segment_free after the
 * free that released it but before the alloc whose out-of-memory retry (or garbage collection)
 * gave cached segments back; amsim's snapshot writer keeps its own allocator's order. So a
 * recorded event first looks among the simulated device calls since the event before its run,
 * and when none is the same it waits for the device calls of the event after the run. Each
 * simulated call matches at most one recorded event. A range that is merely held (or free) when
 * the recorded event is read does not match: the simulation may never have taken it, or taken
 * it in other pieces, and a check made before the alloc after a segment_alloc never saw it. */

static int seg_same(const segev *a, const segev *b)
{
    return a->level == b->level && a->alloc == b->alloc && a->addr == b->addr &&
           a->bytes == b->bytes;
}

static void seg_push(segev **v, size_t *n, size_t *cap, segev e)
{
    if (*n == *cap)
        *v = am_realloc(*v, (*cap = *cap ? 2 * *cap : 16) * sizeof **v);
    (*v)[(*n)++] = e;
}

static int seg_kind(const tr_event *ev)
{
    return ev->kind == TR_SEGMENT_FREE || (ev->kind == TR_SEGMENT_ALLOC && !ev->declared);
}

/* The recorded events still waiting can no longer match: the event after their run has passed
 * without their device call (or the trace ended). The first of the first such list is the
 * earliest recorded event without a match (lists expire in trace order, each in trace order):
 * it is kept for the summary's first mismatch. */
static void seg_expire(sim *s)
{
    segval *g = &s->seg;
    sim_seg_mismatch *fm = &s->sum.seg_mismatch;
    if (g->nwait && !fm->have) {
        const segev *e = &g->wait[0];
        *fm = (sim_seg_mismatch){1, e->level, e->alloc, e->seq, e->addr, e->bytes, e->line};
    }
    g->nwait = 0;
}

/* A recorded segment event is about to run at s->seq: it starts a run or extends the last one.
 * Called before anything else of the event, so device calls made while it runs (streams that
 * complete) are known to belong to a segment event. */
static void seg_begin(sim *s)
{
    segval *g = &s->seg;
    if (g->last == UINT64_MAX || g->last + 1 != s->seq) {
        g->run = s->seq;
        seg_expire(s);
    }
    g->last = s->seq;
}

/* The simulated device call of a level at trace event s->seq. */
static void seg_device(sim *s, int level, int alloc, uint64_t addr, uint64_t bytes)
{
    /* A start-state prologue's device calls recreate what the recording held before its trace
     * began: no recorded event is theirs. Until 2026-11-28 a segment_alloc right after the
     * prologue matched the prologue's own map of that range, though the run never made it. */
    if (s->prologue)
        return;
    segval *g = &s->seg;
    segev e = {s->seq, addr, bytes, level, (uint8_t)alloc, 0, 0};
    if (g->last != s->seq) { /* an allocator event, not a recorded segment event */
        /* calls of earlier events can match no later recorded one: it looks back only to the
         * event before its run, this one or a later one */
        size_t k = 0;
        while (k < g->nlog && g->log[k].seq < s->seq)
            k++;
        if (k) {
            memmove(g->log, g->log + k, (g->nlog - k) * sizeof *g->log);
            g->nlog -= k;
        }
        if (g->nwait && g->last + 1 != s->seq)
            seg_expire(s); /* the event after their run has passed */
        for (size_t i = 0; i < g->nwait; i++) {
            if (seg_same(&g->wait[i], &e)) {
                s->sum.segment_events_matched++;
                memmove(g->wait + i, g->wait + i + 1, (g->nwait - i - 1) * sizeof *g->wait);
                g->nwait--;
                return;
            }
        }
    }
    seg_push(&g->log, &g->nlog, &g->caplog, e);
}

/* A recorded segment event (seg_kind) on a valid level. */
static void seg_recorded(sim *s, const tr_event *ev)
{
    segval *g = &s->seg;
    segev e = {s->seq, ev->addr, ev->bytes, ev->level, ev->kind == TR_SEGMENT_ALLOC, 0,
               ev->line};
    uint64_t from = g->run ? g->run - 1 : 0; /* the event before the run */
    s->sum.segment_events_recorded++;
    for (size_t i = 0; i < g->nlog; i++) {
        if (!g->log[i].used && g->log[i].seq >= from && seg_same(&g->log[i], &e)) {
            g->log[i].used = 1;
            s->sum.segment_events_matched++;
            return;
        }
    }
    seg_push(&g->wait, &g->nwait, &g->capwait, e);
}

/* A problem --lenient counts as a warning and skips (0; the caller drops the event), else -1
 * with what at the event's line and column. */
static int warn_or_fail_text(sim *s, am_error *err, const char *file, const tr_event *ev,
                             const char *what)
{
    if (s->o.lenient) {
        s->sum.warnings++;
        return 0;
    }
    /* the hint names --lenient only where the command takes it (until 2026-11-25 batch runs
     * suggested it too, and mincap, which took no --lenient then) */
    return am_fail_at(err, file, ev->line, ev->col, "%s%s", what,
                      s->o.no_lenient_option ? ""
                                             : " (use --lenient to count and skip such events)");
}

/* warn_or_fail_text of "WHAT ID" (formatted only when it is said: --lenient counts it). */
static int warn_or_fail(sim *s, am_error *err, const char *file, const tr_event *ev,
                        const char *what, uint64_t id)
{
    if (s->o.lenient)
        return warn_or_fail_text(s, err, file, ev, what);
    char text[160];
    snprintf(text, sizeof text, "%s %" PRIu64, what, id);
    return warn_or_fail_text(s, err, file, ev, text);
}

/* A slot's buffer is kept when its id goes and reused for the next name that fits (32-byte
 * steps), so a named trace, whose slots come back last-freed-first with names of like
 * lengths, does not allocate per event: a strdup and a free per allocation cost 12% on a
 * 4.7M-event generated training trace, this 2%. */
static AM_NOINLINE void slot_label_set(sim *s, const slot *x, const char *name)
{
    if (x->self >= s->nnames) {
        if (!name)
            return;
        size_t n = s->nnames ? s->nnames : 64;
        while (n <= x->self)
            n *= 2;
        s->names = am_realloc(s->names, n * sizeof *s->names);
        memset(s->names + s->nnames, 0, (n - s->nnames) * sizeof *s->names);
        s->nnames = n;
    }
    struct slot_label *l = &s->names[x->self];
    if (!name) {
        if (l->s)
            l->s[0] = 0;
        return;
    }
    size_t len = strlen(name);
    if (len >= l->cap) {
        size_t cap = (len + 32) & ~(size_t)31; /* the NUL's byte too; at most 256 */
        free(l->s);
        l->s = am_malloc(cap);
        l->cap = (uint16_t)cap;
    }
    memcpy(l->s, name, len + 1);
}

/* Label slot x, just given an id, with its allocation's name (NULL: none), replacing the one
 * an earlier id of the slot may have left. The reader's copy lasts one event only, and an
 * out-of-memory can come much later (a wait for frees that runs out, a restore or a
 * defragmentation that fails). Nothing is done for a trace without names. */
static inline void slot_label(sim *s, const slot *x, const char *name)
{
    if (__builtin_expect(name != NULL || x->self < s->nnames, 0))
        slot_label_set(s, x, name);
}

/* An out-of-memory result; recorded: of an `oom` line (recorded_oom), id TR_NO_ID; name: the
 * allocation's or the `oom` line's `name=` (copied), or NULL. */
static void record_oom(sim *s, uint64_t seq, uint64_t id, uint64_t bytes, int level,
                       int recorded, am_ps at, const char *name)
{
    s->sum.ooms++;
    if (s->nooms < s->cfg->report.max_oom_events) {
        /* slots grow geometrically as OOMs happen, so a large limit costs nothing until used
         * (until 2026-11-27 all max_oom_events slots were allocated up front: a limit near
         * 2^32 asked the host for 256 GiB and the run failed) */
        if (s->nooms == s->ooms_cap) {
            size_t cap = s->ooms_cap ? s->ooms_cap * 2 : 16;
            if (cap > s->cfg->report.max_oom_events)
                cap = s->cfg->report.max_oom_events;
            s->ooms = am_realloc(s->ooms, cap * sizeof *s->ooms);
            s->ooms_cap = cap;
        }
        mem_level *m = s->lv[level];
        const mem_metrics *mm = mem_get_metrics(m);
        s->ooms[s->nooms++] = (sim_oom){seq, id, level, recorded, bytes,
                                        mem_free_in_reserved(m),
                                        mem_largest_free(m),
                                        mem_capacity(m) > mm->reserved_bytes
                                            ? mem_capacity(m) - mm->reserved_bytes : 0,
                                        at, name ? am_strdup(name) : NULL};
    }
}

/* Charge the host time the policy spent (device calls) to the host clock. */
/* The host pays the allocator's own latency (policies that model one: s->lat). */
static inline void charge(sim *s, int level)
{
    if (!s->lat[level])
        return;
    am_ps t = mem_take_latency(s->lv[level]);
    s->host = am_ps_add(s->host, t);
    s->sum.allocator = am_ps_add(s->sum.allocator, t);
}

static void validate(sim *s, uint64_t seq, uint64_t id, uint64_t recorded, int ok, uint64_t addr,
                     unsigned long line)
{
    if (!s->sum.validating || recorded == TR_NO_ADDR || line == 0)
        return;
    s->sum.recorded_allocs++;
    if (ok && addr == recorded) {
        s->sum.address_matches++;
    } else if (!s->sum.have_mismatch) {
        s->sum.have_mismatch = 1;
        s->sum.mismatch_seq = seq;
        s->sum.mismatch_id = id;
        s->sum.mismatch_recorded = recorded;
        s->sum.mismatch_simulated = ok ? addr : TR_NO_ADDR;
        s->sum.mismatch_line = line;
    }
}

/* When a request's outcome happened: host time and the trace event index of its timeline row. */
typedef struct stamp {
    am_ps at;
    uint64_t seq;
} stamp;

/* The current event's stamp. */
static inline stamp now_stamp(const sim *s) { return (stamp){s->host, s->seq}; }

/* The outcome of a request `seq` (now, or after waiting): map entry, outputs, log, stamped `w`:
 * the current event's, or for a request whose wait for frees ran out, its deadline and its own
 * index (expire_pending), or was cancelled, the current time and its own index
 * (expire_pending_id). */
static void settle(sim *s, slot *x, uint64_t seq, stamp w, uint64_t bytes, uint64_t recorded,
                   int level, int ok, const alloc_out *o)
{
    am_ps at = w.at;
    /* waits that ran out before this outcome fail first, so that their placements rows, log
     * lines and OOM entries come before its own too, not only their timeline rows; when it is
     * an allocation, the allocator has made it already (sim_expiring_after_placement) */
    if (!s->expiring && waits_unsettled(s)) { /* (a wait settled by expire_pending fails no
                                                 * others) */
        s->placed_unsettled = ok;
        expire_pending(s, at, 0);
        s->placed_unsettled = 0;
    }
    if (ok) {
        x->state = ST_LIVE;
        x->handle = o->handle;
        x->addr = o->addr;
        x->given = o->size;
        /* A buffer just allocated counts as just used in spill_victim: lru's order, also one
         * served after a wait for frees (now, at the event whose free or spill served it).
         * Until 2026-11-27 such a buffer kept the stamp of its request, so a spill could
         * evict it in the same sequence that had just served it. */
        touch(s, x);
        live_enter(s, x);
    } else {
        x->state = ST_OOM;
        x->blame = level_bit(level);
        mem_count_oom(s->lv[level]);
        record_oom(s, seq, x->id, bytes, level, 0, at, slot_name(s, x));
    }
    validate(s, seq, x->id, recorded, ok, ok ? o->addr : 0, x->line);
    /* the row of the event that placed it: a request served after a wait for frees is placed
     * by the free that served it, whose row comes before (do_free); observers get the same
     * index (the placements digest of --save-expect is the rows') */
    if (s->obs && s->obs->alloc)
        s->obs->alloc(s->obs->ctx, at, w.seq, x->id, level, x->stream, ok ? o->addr : 0, bytes,
                      ok ? o->size : 0, ok, slot_name(s, x));
    placement_row(s, w.seq, x->id, level, o, bytes, ok ? PL_OK : PL_OOM, x, NULL);
    if (ok)
        log_alloc(s, level, x->id, o->addr, o->size);
    else
        log_oom(s, level, x->id, bytes);
    if (s->obs || s->o.timeline)
        timeline_row_out(s, level, at, w.seq);
}

/* Take wait i out of a level's list, moving the shorter side: the waits before it up (the
 * list then starts one slot later) or those after it down. Serving the first of many waits
 * costs nothing; until 2026-11-27 the whole list moved (40000 waits served in order: 45 GB
 * of copying, 1.1 s). */
static void pending_remove(level_rt *rt, size_t i)
{
    if (i < rt->n - i - 1) {
        memmove(rt->p + 1, rt->p, i * sizeof *rt->p);
        rt->p++;
    } else {
        memmove(&rt->p[i], &rt->p[i + 1], (rt->n - i - 1) * sizeof *rt->p);
    }
    rt->n--;
}

/* Room for one more wait at the end of a level's list: the freed front slots are reclaimed
 * when they are at least half the array (so each wait is moved O(1) times on average), else
 * the array doubles. */
static pending *pending_append(level_rt *rt)
{
    size_t head = rt->pbase ? (size_t)(rt->p - rt->pbase) : 0;
    if (head + rt->n == rt->cap) {
        if (head && head >= rt->cap / 2) {
            memmove(rt->pbase, rt->p, rt->n * sizeof *rt->p);
            head = 0;
        } else {
            rt->cap = rt->cap ? 2 * rt->cap : 8;
            rt->pbase = am_realloc(rt->pbase, rt->cap * sizeof *rt->pbase);
        }
        rt->p = rt->pbase + head;
    }
    return &rt->p[rt->n++];
}

/* Retry waiting requests of a level after a free, in arrival order. A served one leaves the list
 * before it is settled: its row may first fail waits whose deadline the allocator's latency
 * passed (expire_due), a prefix of the list, which moves the ones after it forward.
 * An attempt the policy says cannot succeed and would change nothing (mem_cannot_serve) is not
 * made: the outcome is the same, and once even the smallest waiting request (wait_min, a lower
 * bound: removals leave it, a full pass makes it exact) is such a one, nobody is tried. Until
 * 2026-11-27 every waiter was tried after every free: N waits served one per free took N^2
 * attempts (40000 waits of 1 MiB under bfc: 31 s). */
static void retry_pending(sim *s, int level)
{
    level_rt *rt = &s->rt[level];
    uint64_t least = UINT64_MAX; /* the smallest request this pass leaves waiting */
    size_t i = 0;
    while (i < rt->n) {
        if (mem_cannot_serve(s->lv[level], rt->wait_min))
            return; /* neither it nor any larger one: wait_min stays a lower bound */
        pending p = rt->p[i];
        /* One that ran out before this free (a defragmentation's or a spill's copy outlasted
         * it) failed at its deadline, whoever notices it (expire_pending, after the allocation
         * that follows if any, as in settle); until 2026-11-27 it was served late, so a run
         * failed the request whose compaction made the room instead. */
        if (p.deadline < s->host || mem_cannot_serve(s->lv[level], p.bytes)) {
            least = AM_MIN(least, p.bytes);
            i++;
            continue;
        }
        alloc_req r = {p.bytes, p.stream, p.seq + 1};
        alloc_out o = {0, 0, 0};
        mem_hint(s->lv[level], p.addr);
        int rc = mem_alloc_attempt(s->lv[level], &r, &o);
        mem_hint(s->lv[level], TR_NO_ADDR);
        charge(s, level);
        if (rc != ALLOC_OK) {
            least = AM_MIN(least, p.bytes);
            i++;
            continue;
        }
        pending_remove(rt, i);
        s->sum.retries_succeeded++;
        size_t before = rt->n;
        slot *x = idmap_find(&s->ids, p.id);
        settle(s, x, p.seq, now_stamp(s), p.bytes, p.addr, level, 1, &o);
        size_t gone = before - rt->n; /* failed by its row: they were first in the list */
        i = i > gone ? i - gone : 0;
    }
    rt->wait_min = least; /* every one left was looked at (or has gone since) */
}

/* Any free on a level wakes its waiting requests (retry_pending), whatever made it: the trace's
 * free, a spill's release of its victim's device block, a defragmentation that released the
 * level's buffers (once they are placed again), the free of a spilled buffer's host copy on its
 * spill_host level, as the real allocator's deallocation wakes its waiters whoever frees.
 * Until 2026-11-27 only the trace's frees of live buffers did: a wait on a level that
 * spilled to make room for a later request was never served by the room the spill made. */
static void wake_waiters(sim *s, int level)
{
    if (s->rt[level].n)
        retry_pending(s, level);
}

/* Fail waiting requests whose wait ran out before `now` (all of them when force, at the end of
 * the trace), each as an out-of-memory at its deadline with its own event index, in deadline
 * order across levels; a forced one whose deadline is later fails at `now`: no free can come
 * after the last event, and the run's makespan stays the last thing that happened. A
 * level's waits are in arrival order, so in deadline order (the host clock never goes back and
 * its retry_wait is fixed): the expired ones are a prefix of each list, merged here. Until
 * 2026-11-27 an expiry was stamped with the host time and index of the event that noticed it
 * (the next trace event, or one past the last at the end of the trace). */
static void expire_pending(sim *s, am_ps now, int force)
{
    size_t done[CFG_MAX_LEVELS] = {0};
    s->expiring = 1; /* their rows show the state before `now` and fail no others */
    int expired = 0;
    for (;;) {
        int best = -1;
        for (int l = 0; l < s->nlevels; l++) {
            const level_rt *rt = &s->rt[l];
            if (done[l] == rt->n || !(force || rt->p[done[l]].deadline < now))
                continue;
            const pending *p = &rt->p[done[l]], *b = best < 0 ? NULL : &s->rt[best].p[done[best]];
            if (!b || p->deadline < b->deadline || (p->deadline == b->deadline && p->seq < b->seq))
                best = l;
        }
        if (best < 0)
            break;
        const pending *p = &s->rt[best].p[done[best]++];
        slot *x = idmap_find(&s->ids, p->id);
        alloc_out o = {0, 0, 0};
        stamp w = {p->deadline < now ? p->deadline : now, p->seq};
        if (s->obs && s->obs->event) /* it happens at its own time, see sim_observer.event */
            s->obs->event(s->obs->ctx, w.at);
        settle(s, x, p->seq, w, p->bytes, p->addr, best, 0, &o);
        s->sum.retries_failed++;
        expired = 1;
    }
    s->expiring = 0;
    if (expired && s->obs && s->obs->event) /* what follows belongs to the current event again */
        s->obs->event(s->obs->ctx, s->issue);
    for (int l = 0; l < s->nlevels; l++) {
        level_rt *rt = &s->rt[l];
        /* the failed prefix's slots are freed at the front, reclaimed by pending_append (until
         * 2026-11-27 the rest of the list moved down over them). A level that never had a
         * waiting request has no list: NULL + 0 is undefined behaviour in C (until 2026-11-28
         * every event of every run made it, reported by clang's UBSan) */
        if (done[l] == 0)
            continue;
        rt->p += done[l];
        rt->n -= done[l];
    }
}


/* ---- hierarchy: defragmentation, spilling, donation, transfer guard ----------------------- */

static int find_chan(sim *s, int from, int to);

/* A link's effective bandwidth, peak x efficiency, as bytes/s num / den in lowest terms. The
 * product is taken in double (as before) and kept to the micro-byte per second: a whole number
 * (every realistic GB/s figure: 819e9 x 0.9 is 737100000000.0 in double) stays num / 1, exactly
 * the integer it was, and a fraction such as 3 B/s x 0.9 is 27 / 10 (until 2026-11-27 the rate
 * was truncated to whole bytes/s, at least 1: 2 B/s there). den is 10^6, or less when the whole
 * part is so large (over 18 TB/s) that num would not fit 64 bits; a product at or past 2^64 is
 * 2^64 - 1. */
static void link_rate(const cfg_link *L, uint64_t *num, uint64_t *den)
{
    double e = (double)L->bandwidth * L->efficiency;
    *den = 1;
    if (e >= 18446744073709551616.0) {
        *num = UINT64_MAX;
        return;
    }
    double whole = floor(e), frac = e - whole; /* both exact */
    if (frac == 0.0) {
        *num = whole < 1.0 ? 1 : (uint64_t)whole;
        return;
    }
    uint64_t w = (uint64_t)whole, d = 1000000; /* a fraction: whole < 2^52 */
    while (d > 1 && w > (UINT64_MAX - d) / d)
        d /= 10;
    uint64_t f = (uint64_t)llround(frac * (double)d); /* 0 ..= d */
    uint64_t n = w * d + f;
    if (n == 0) /* below 1e-6 B/s, the smallest rate kept, which the config refuses
                 * (CFG_LINK_RATE_MIN): a guard against dividing by 0 */
        n = 1;
    uint64_t g = am_gcd_u64(n, d);
    *num = n / g;
    *den = d / g;
}

/* The bytes a transfer of `bytes` occupies channel c with: rounded up to the channel's granule
 * (the larger transfer_granule of its memories: a DMA into TPU VMEM moves whole 4 KiB granules).
 * Both granules are powers of two, so a multiple of the larger is a multiple of both. */
static uint64_t chan_bytes(const chan *ch, uint64_t bytes)
{
    return ch->granule <= 1 ? bytes : am_round_up_sat(bytes, ch->granule);
}

/* 1 when bytes rounded up to c's granule would be 2^64 or more (chan_bytes would saturate):
 * only a trace's transfer can be that large, the runtime's copies move buffers of at most
 * AM_MAX_BYTES, and its granule is at most that too. */
static int chan_bytes_overflow(const chan *ch, uint64_t bytes)
{
    return ch->granule > 1 && bytes > UINT64_MAX - (ch->granule - 1);
}

/* One transfer alone on a channel: latency + ceil(bytes x 1e12 / effective bandwidth), what the
 * link model gives it (link.h). */
static am_ps xfer_alone(const sim *s, int c, uint64_t bytes)
{
    const chan *ch = &s->ch[c];
    const cfg_link *L = &s->cfg->links[ch->link];
    __extension__ unsigned __int128 w =
        (unsigned __int128)chan_bytes(ch, bytes) * AM_PS_PER_S * ch->den;
    w = (w + ch->bw - 1) / ch->bw;
    return am_ps_add(L->latency, w >= AM_PS_MAX ? AM_PS_MAX : (am_ps)w);
}

/* A runtime copy of `bytes` over channel c, issued by the host at `at` (the host waits for it:
 * the runtime is synchronous); returns how long it took. It goes on the link as a transfer of
 * the trace does (link_submit_runtime: the same sharing, latency and concurrency slots, in issue
 * order among the transfers reaching the link at that picosecond), so the trace's transfers on
 * the channel slow down for it and it for them; alone it takes latency + ceil(bytes x 1e12 /
 * effective bandwidth). Until 2026-11-28 it was always timed alone, off the link.
 * The device runs meanwhile, as in a spill's wait for its victim's transfers: its operations
 * finish, streams start their next ones (which may reach this channel). Observers hear of those
 * operations at the end of the action that made the copy (rt_heard, sim.defer). Nothing between
 * a copy and its action's end steps the device, and a copy never runs inside another (op_done
 * only starts device operations), so no note is left for the engine's own steps (until
 * 2026-11-28 des_step, event_in and sim_finish each flushed them too, never finding one).
 * A copy with no trace transfer over its channel queued or in flight (chan.xfers) is timed alone
 * at once, with no device step: none can reach the link while the host waits, and the run's
 * outputs are those of a run that timed every copy alone. The channel exists: cfg_load refuses
 * a config whose runtime copies (compaction, host round trip, spilling) have no link (config.c,
 * check_copy_links), so c is never -1 here.
 * An observer's `copy` hears of it among the operations that finished while it ran, in the
 * order they finished, at the end of its action too: what ("spill", "restore", "defrag"), id
 * and level name the action and the buffer it copies. Until 2026-11-28 observers heard of no
 * copy, only of its action (the Chrome trace drew no link slice for it). */
static am_ps rt_copy(sim *s, int c, am_ps at, uint64_t bytes, const char *what, uint64_t id,
                     int level)
{
    const chan *ch = &s->ch[c];
    uint64_t moved = chan_bytes(ch, bytes); /* what it occupies the channel with */
    if (s->obs && s->obs->copy) /* read only then (here and in rt_noted) */
        s->rt_note = (dev_note){.stream = 0, .chan = c, .bytes = moved, .copy = what, .id = id,
                                .level = level};
    uint64_t xfers = 0; /* the channel's: a half-duplex link's two entries share one */
    for (int i = 0; i < s->nch; i++)
        if (s->ch[i].l == ch->l)
            xfers += s->ch[i].xfers;
    if (!xfers) { /* none can reach the link before the host goes on: alone, at no device step */
        am_ps t = xfer_alone(s, c, bytes);
        /* counted as the copies that went on the link are (until 2026-11-28 neither was) */
        link_runtime_alone(ch->l, at, t, moved, ch->side);
        /* after the notes of the action's earlier copies, which all ended by at; one that
         * never ends (saturated: the event is refused, time_overflow) draws nothing */
        if (t < AM_PS_MAX - at)
            rt_noted(s, at, at + t);
        return t;
    }
    s->defer = 1;
    while (des_step(s, at)) { /* the device catches up with the host first */
    }
    if (s->now < at)
        s->now = at;
    s->rt_done = 0;
    link_submit_runtime(ch->l, s->now, moved, RT_COPY_TAG, ch->side, s->seq);
    while (!s->rt_done && des_step(s, AM_TIME_NONE - 1)) {
    }
    s->defer = 0;
    return s->rt_done ? s->rt_end - at : AM_PS_MAX;
}

/* The host waits for a synchronous runtime action (defragmentation, spilling). */
static void host_block(sim *s, am_ps t)
{
    s->host = am_ps_add(s->host, t);
    s->sum.stall = am_ps_add(s->sum.stall, t);
}

/* Live buffers of a level, unordered: its live set (live_enter, kept in runs that spill or
 * defragment), copied for defrag, which holds them over its frees and moves (pointers into the
 * id map: valid until the map changes). O(the level's live buffers). */
static size_t live_on(sim *s, int level, slot ***out)
{
    const level_rt *rt = &s->rt[level];
    size_t n = rt->nlive;
    slot **v = am_malloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = idmap_slot(&s->ids, (uint64_t)rt->live[i] + 1);
    *out = v;
    return n;
}

/* Live buffers in a defragmentation's order: by address, then by id. The live buffers of one
 * level never share an address (a defragmentation runs only under a relocatable policy, whose
 * blocks do not overlap, and 0-byte allocations are refused; a donation hands the donor's block
 * to the output, which the donor leaves), so the id only makes the order total: qsort is not
 * stable. Until 2026-11-27 a tie went to the id map table's position, looked up per buffer
 * (described as a stable sort's order: it never was one, and no tie arises). */
static int by_addr(const void *a, const void *b)
{
    const slot *x = *(slot *const *)a, *y = *(slot *const *)b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Whether a level's timeline row would differ from the one of state `was`. */
static int state_changed(const mem_metrics *was, const mem_metrics *now)
{
    return was->live_bytes != now->live_bytes || was->allocated_bytes != now->allocated_bytes ||
           was->reserved_bytes != now->reserved_bytes;
}

/* Under --check, a policy that compacts down (alloc.h compacts_down) is held to it: buffer x,
 * placed again at o (NULL: lost), went no higher than it was. The first breach is kept for
 * check_all. Until 2026-11-27 nothing looked: prealloc's bump mode raised buffers above a
 * pending block, or lost them, and --check passed. */
static void defrag_audit(sim *s, int level, const slot *x, const alloc_out *o)
{
    if (!s->o.check || s->defrag_broken[0] || !mem_policy(s->lv[level])->compacts_down)
        return;
    if (!o)
        snprintf(s->defrag_broken, sizeof s->defrag_broken, "defragmentation of %s lost buffer "
                 "%" PRIu64 " (%" PRIu64 " bytes at address %" PRIu64 "), which fits where it was",
                 mem_name(s->lv[level]), x->id, x->requested, x->addr);
    else if (o->addr > x->addr)
        snprintf(s->defrag_broken, sizeof s->defrag_broken, "defragmentation of %s moved buffer "
                 "%" PRIu64 " up from address %" PRIu64 " to %" PRIu64, mem_name(s->lv[level]),
                 x->id, x->addr, o->addr);
}

/* What a level's device calls and charged host time add up to: a run or a retry that moved it
 * made device calls (logged, counted) or charged time, which a skipped one would not repeat. A
 * refused call is not counted: no output shows it (no log line, no summary figure; any time it
 * costs is in allocator_ps), and a full device refusing `caching`'s or `bfc`'s new segment at
 * every retry is the case the skip is for. Until 2026-11-28 it counted, so under `caching` every
 * failed request on a full device compacted the whole level again. */
static uint64_t device_activity(const sim *s, int level)
{
    const mem_metrics *mm = mem_get_metrics(s->lv[level]);
    return mm->device_allocs + mm->device_frees + mm->allocator_ps;
}

/* Whether a transfer queued or running reads or writes a resident buffer of the level. */
static int level_has_pending(const sim *s, int level)
{
    const level_rt *rt = &s->rt[level];
    if (s->npend) /* only then can a buffer of the level have any: look at them */
        for (size_t i = 0; i < rt->nlive; i++)
            if (rt->live[i] < s->nlru && s->pend[rt->live[i]])
                return 1;
    return 0;
}

/* A defragmentation's copies, in the order it makes them. */
typedef struct copy_list {
    struct {
        int ch;
        uint64_t bytes;
        uint64_t id; /* the buffer's, for observers (rt_copy) */
    } *c;
    size_t n, cap;
} copy_list;

static void copy_add(copy_list *l, int c, uint64_t bytes, uint64_t id)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->c = am_realloc(l->c, l->cap * sizeof *l->c);
    }
    l->c[l->n].ch = c;
    l->c[l->n].id = id;
    l->c[l->n++].bytes = bytes;
}

/* Defragment a level: every live buffer is released and placed again in address order, which
 * packs them toward low addresses (compaction), and the copies are charged: compact moves each
 * buffer whose address changed over the level's own copy link; host_roundtrip copies every live
 * buffer to the host memory and back (JAX's explicit defragment). A copy is of the buffer's
 * requested bytes, its live bytes (allocators.md section 2: "the bytes moved", "all live
 * bytes"), not of the padded or rounded block holding it. The host waits for it, and before
 * it for the transfers pending on the level's live buffers. */
static void defrag(sim *s, int level)
{
    const cfg_level *L = &s->cfg->levels[level];
    if (!s->rt[level].relocatable) {
        s->sum.defrag.unsupported++;
        return;
    }
    mem_level *m = s->lv[level];
    slot **v;
    size_t n = live_on(s, level, &v);
    if (s->track && s->npend) { /* none pending anywhere: nothing to wait for */
        /* Transfers queued or running that read or write a buffer it moves: the compaction
         * synchronizes the device work on them first (the runtime waits for the streams), so the
         * host waits until none is pending on a live buffer of the level, like a spill. Slot
         * indices, not v, are kept over the wait: v's pointers last only while the map does. */
        uint32_t *w = NULL;
        size_t nw = 0;
        for (size_t i = 0; i < n; i++)
            if (v[i]->self < s->nlru && s->pend[v[i]->self]) {
                w = am_realloc(w, (nw + 1) * sizeof *w);
                w[nw++] = v[i]->self;
            }
        if (nw) {
            am_ps before = s->host;
            size_t k = 0;
            while (k < nw) {
                if (!s->pend[w[k]])
                    k++;
                else if (!des_step(s, AM_TIME_NONE - 1))
                    break;
            }
            if (s->now > s->host)
                s->host = s->now;
            s->sum.stall += s->host - before;
            free(w);
            free(v);
            n = live_on(s, level, &v); /* the wait may have retired frees */
        }
    }
    expire_due(s); /* before its first release */
    qsort(v, n, sizeof *v, by_addr);
    mem_metrics was = *mem_get_metrics(m); /* the state the level's last row shows */
    mem_set_quiet(m, 1);
    for (size_t i = 0; i < n; i++) {
        mem_free(m, v[i]->handle, v[i]->requested, v[i]->given, 0);
        if (s->obs && s->obs->defrag_free)
            s->obs->defrag_free(s->obs->ctx, s->host, s->seq, v[i]->id, v[i]->stream, level,
                                v[i]->addr, v[i]->requested, v[i]->given);
    }
    mem_compact(m, 0); /* what the policy still holds stays where it is */
    uint64_t moved = 0, all = 0, lost = 0, act = device_activity(s, level);
    /* every buffer went back where it was, in a block of its old size, with no device call and
     * no charged time (platform gives its ranges back and takes them again: charged, logged) */
    int still = 1;
    /* The copies, made one after the other once every buffer is placed again (rt_copy);
     * their time sums saturate at AM_PS_MAX (am_ps_add), as a spill's does: host_block then
     * stops the host clock there and the event is refused (time_overflow). Until 2026-11-27
     * they were plain sums, and copies longer than 2^64 ps wrapped to a short run. */
    copy_list cl = {NULL, 0, 0};
    int self = find_chan(s, level, level);
    int d2h = L->defrag.host >= 0 ? find_chan(s, level, L->defrag.host) : -1;
    int h2d = L->defrag.host >= 0 ? find_chan(s, L->defrag.host, level) : -1;
    for (size_t i = 0; i < n; i++) {
        slot *x = v[i];
        alloc_req r = {x->requested, x->stream, 0};
        alloc_out o = {0, 0, 0};
        if (mem_alloc_attempt(m, &r, &o) != ALLOC_OK) {
            /* Could not be placed again: the buffer is lost, an out-of-memory result. */
            defrag_audit(s, level, x, NULL);
            s->sum.defrag.failures++;
            still = 0;
            live_leave(s, x);
            x->state = ST_OOM;
            x->blame = level_bit(level);
            mem_count_oom(m);
            record_oom(s, s->seq, x->id, x->requested, level, 0, s->host, slot_name(s, x));
            if (s->obs && s->obs->oom)
                s->obs->oom(s->obs->ctx, s->host, s->seq, x->id, level, x->stream, x->requested,
                            "defrag", slot_name(s, x));
            placement_row(s, s->seq, x->id, level, &o, x->requested, PL_OOM, x, NULL);
            log_oom(s, level, x->id, x->requested);
            if (L->defrag.mode == CFG_DEFRAG_HOST_ROUNDTRIP) {
                /* its copy to the host was made before the round trip found no place for it:
                 * its bytes and time count once (until 2026-11-27 not at all) */
                lost += x->requested;
                copy_add(&cl, d2h, x->requested, x->id);
            }
            /* its block was released above, reported to observers as `defrag_free` (the
             * PyTorch snapshot frees it there); no free of it will be reported */
            continue;
        }
        /* the buffer's own bytes are copied (its live bytes), not the block the allocator gave
         * it: a 1000000-byte buffer in a 1992960-byte BFC chunk moves 1000000 bytes */
        all += x->requested;
        if (L->defrag.mode == CFG_DEFRAG_HOST_ROUNDTRIP) {
            /* moved, as its bytes and time count it: a buffer lost above is not (until
             * 2026-11-27 every live buffer counted, the lost ones too) */
            s->sum.defrag.buffers_moved++;
            copy_add(&cl, d2h, x->requested, x->id);
            copy_add(&cl, h2d, x->requested, x->id);
        } else if (o.addr != x->addr) {
            moved += x->requested;
            s->sum.defrag.buffers_moved++;
            copy_add(&cl, self, x->requested, x->id);
        }
        /* Recorded: every buffer counted as moved, and one left in place whose block changed */
        int same = o.addr == x->addr && o.size == x->given; /* placed again where it was */
        still &= same;
        if (L->defrag.mode == CFG_DEFRAG_HOST_ROUNDTRIP || !same)
            relocated(s, x, level, level, &o, PL_MOVED);
        else if (s->obs && s->obs->move)
            /* placed again where it was: no row, but observers see it released and placed
             * again like the others, so a snapshot's replay releases every live buffer as
             * this did and a best-fit policy finds the same holes (until 2026-11-27 it was not
             * reported, stayed allocated in the replay, and bfc's replay of an export matched
             * 30 of 33 addresses) */
            s->obs->move(s->obs->ctx, s->host, s->seq, x->id, x->stream, level, x->addr,
                         x->given, level, o.addr, x->requested, o.size, slot_name(s, x));
        defrag_audit(s, level, x, &o);
        x->addr = o.addr;
        x->handle = o.handle;
        x->given = o.size;
    }
    mem_compact(m, 1);
    mem_set_quiet(m, 0);
    free(v);
    charge(s, level);
    /* the level's row (and the observer's counters) of the state it leaves, when its buffers
     * are placed again (the moves' time), as a spill or a restore writes one: the re-placed
     * blocks can be larger (bfc's bins) and the summary's maxima count that state. Only when
     * the row differs from the level's last one: a compaction that changed no byte count
     * adds nothing to a step plot. Until 2026-11-27 none: when spills followed in the same
     * event, their rows already showed a lower state, and no row showed the peak the summary
     * reported. */
    if (state_changed(&was, mem_get_metrics(m)))
        timeline_row(s, level);
    if (L->defrag.mode == CFG_DEFRAG_HOST_ROUNDTRIP)
        moved = 2 * all + lost;
    am_ps t = 0;
    for (size_t i = 0; i < cl.n && t < AM_PS_MAX; i++)
        t = am_ps_add(t, rt_copy(s, cl.c[i].ch, am_ps_add(s->host, t), cl.c[i].bytes,
                                  "defrag", cl.c[i].id, level));
    free(cl.c);
    s->sum.defrag.runs++;
    s->sum.defrag.bytes_moved += moved;
    s->sum.defrag.time = am_ps_add(s->sum.defrag.time, t);
    if (s->obs && s->obs->action)
        s->obs->action(s->obs->ctx, "defrag", level, s->host, am_ps_add(s->host, t), moved);
    host_block(s, t);
    /* waits whose deadline passed during its copies fail now, at their deadline, before
     * anything after it (sim_observer.action) */
    expire_due(s);
    rt_heard(s);
    s->rt[level].allocs_since_defrag = 0;
    s->rt[level].compacted = L->defrag.mode == CFG_DEFRAG_COMPACT && still &&
                             device_activity(s, level) == act;
    s->rt[level].compacted_at = mem_changes(m);
    /* its buffers were released: the waits are retried once they are placed again (the
     * compaction is one step for the program), when its copies are done, before the request
     * that triggered it tries again */
    if (n)
        wake_waiters(s, level);
}

/* A trace's `defrag` line: the level's configured mode runs now, whatever its trigger, exactly
 * as a triggered run (the same copies, rows, log lines, counters). Under mode none the level has
 * no defragmentation to run: the line is a counted no-op, so that a trace recorded with JAX's
 * client.defragment() calls runs under every config, as a `sync` does. */
static void explicit_defrag(sim *s, int level)
{
    if (s->cfg->levels[level].defrag.mode == CFG_DEFRAG_NONE) {
        s->sum.defrag.explicit_ignored++;
        return;
    }
    uint64_t before = s->sum.defrag.runs;
    defrag(s, level);
    s->sum.defrag.explicit_runs += s->sum.defrag.runs - before; /* not one the policy refused */
}

static int recover(sim *s, int level, const alloc_req *r, alloc_out *o, uint64_t hint);
static void attempt_failed(sim *s, int level, const alloc_req *r);

/* Evict one buffer of `level` to its spill host (LRU or largest first); 1 if one went. The
 * host copy's allocation, when it fails, gets the host level's own answers (recover: its
 * defragmentation, its own spill_to_host to a further level), as a request of that level would;
 * until 2026-11-27 it failed at once. A chain ends: a level whose recovery is already running
 * (one that started the chain, or a level between) takes no copy and is not recovered again,
 * so each level makes room at most once in it and a cycle of spill_host settings (hbm to vmem,
 * vmem to hbm) stops where it comes back, its copy failing there. A victim whose copy does not fit is passed
 * over for the next in the order (spill_candidates), and the spill fails (one spill.failures) only
 * when no victim's copy fits; until 2026-11-27 the first victim's failed copy failed it. The
 * buffer the current event uses (s->in_use: a transfer's source while its destination is
 * allocated or brought back, a to= destination while the source is brought back) is never the
 * victim: the copy reads or writes it after the allocation. Until 2026-11-27 it could be, and
 * the copy then read a buffer that was on the host (and a to= destination was spilled to bring
 * its source back). */
/* A spill candidate and its place in the victim order: (a, b, id) ascending. */
typedef struct victim {
    uint64_t a, b, id;
} victim;

static int by_victim_order(const void *p, const void *q)
{
    const victim *x = p, *y = q;
    if (x->a != y->a)
        return x->a < y->a ? -1 : 1;
    if (x->b != y->b)
        return x->b < y->b ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The ids of a level's possible victims, unordered, each with its place in the order
 * spill_victim tries them (by_victim_order): lru, the least recently used first; largest, the
 * largest block first, then the least recently used. Ties (one event can use two buffers) go
 * to the lower id, not to the id map's order. */
static size_t spill_candidates(sim *s, int level, victim **out)
{
    int largest = s->cfg->levels[level].spill_victim == CFG_VICTIM_LARGEST;
    /* the level's live set, read in place: nothing changes it while the candidates are made */
    const level_rt *rt = &s->rt[level];
    size_t n = rt->nlive, k = 0;
    victim *c = am_malloc((n ? n : 1) * sizeof *c);
    for (size_t i = 0; i < n; i++) {
        const slot *x = idmap_slot(&s->ids, (uint64_t)rt->live[i] + 1);
        if (x->id == s->in_use)
            continue;
        uint64_t used = s->lru[x->self];
        c[k++] = largest ? (victim){UINT64_MAX - x->given, used, x->id}
                         : (victim){used, 0, x->id};
    }
    *out = c;
    return k;
}

/* The host copy of victim id: 0 with *o, or -1 when it does not fit even after the host level's
 * own answers (or the victim is gone: recovery can run stream work). */
static int spill_copy(sim *s, int level, uint64_t id, slot **victim_out, alloc_out *o)
{
    int host = s->cfg->levels[level].spill_host;
    slot *x = idmap_find(&s->ids, id);
    if (!x || x->state != ST_LIVE || x->level != level)
        return -1;
    level_rt *hr = &s->rt[host];
    if (hr->recovering) /* the chain came back to a level being freed: the copy fails there
                         * (until 2026-11-27 it was allocated when the level had room, so a
                         * cycle moved the host's buffers into the level making room) */
        return -1;
    alloc_req r = {x->requested, 0, 0};
    int rc = mem_alloc_attempt(s->lv[host], &r, o);
    charge(s, host); /* a failed attempt costs its device call too (until 2026-11-27 its
                      * latency waited for the host level's next charged call) */
    if (rc != ALLOC_OK && (!hr->no_room || r.bytes < hr->no_room)) {
        rc = recover(s, host, &r, o, TR_NO_ADDR);
        /* Remembered for this episode: the next victims' copies at least this large do not
         * rerun the host's whole recovery (and, in a cycle, every deeper level's for each
         * of its victims: until 2026-11-27 a chain of three full levels of n buffers made n^3
         * attempts and counted n^2 + n + 1 spill failures for one request). The test above
         * still holds: only a copy into `host` sets its no_room, and none runs while it is
         * recovering (the check at the top). */
        if (rc != ALLOC_OK)
            hr->no_room = r.bytes;
    }
    if (rc != ALLOC_OK) {
        /* The copy's last attempt failed on the host level, after what its miss path gave
         * back there (the caching allocator frees its cached segments): reported, so that an
         * export writes it where it happened (until 2026-11-27 it was not, and a snapshot of
         * a `caching` default level receiving spills had those gives and no failure: its
         * replay kept the segments cached). */
        attempt_failed(s, host, &r);
        return -1;
    }
    *victim_out = x;
    return 0;
}

/* The last attempt at request r of level failed and the runtime now acts on the level to make
 * room, or (a spill's host copy) gives up on it (sim_observer.attempt_failed). */
static void attempt_failed(sim *s, int level, const alloc_req *r)
{
    if (s->obs && s->obs->attempt_failed)
        s->obs->attempt_failed(s->obs->ctx, s->host, level, r->stream, r->bytes);
}

/* r: the request that failed, reported (attempt_failed) once a victim's host copy is made, just
 * before its eviction: the exporter then writes the failed attempt before the victim's free. */
static int spill_one(sim *s, int level, const alloc_req *r)
{
    int host = s->cfg->levels[level].spill_host;
    if (host < 0)
        return 0;
    victim *c;
    size_t n = spill_candidates(s, level, &c);
    slot *best = NULL;
    alloc_out o = {0, 0, 0};
    if (n) {
        /* the first in the order by one pass; the rest are sorted only when its copy does not
         * fit (the order is total: the id breaks ties) */
        size_t m = 0;
        for (size_t i = 1; i < n; i++)
            if (by_victim_order(&c[i], &c[m]) < 0)
                m = i;
        victim first = c[m];
        c[m] = c[0];
        c[0] = first;
        if (spill_copy(s, level, c[0].id, &best, &o) < 0) {
            qsort(c + 1, n - 1, sizeof *c, by_victim_order);
            for (size_t i = 1; i < n && spill_copy(s, level, c[i].id, &best, &o) < 0; i++) {
            }
        }
    }
    free(c);
    if (!best) {
        if (n) /* there were victims, and no copy fitted */
            s->sum.spill.failures++;
        return 0;
    }
    attempt_failed(s, level, r);
    expire_due(s); /* before the eviction's free */
    relocated(s, best, level, host, &o, PL_SPILLED);
    timeline_row(s, host); /* the host copy's allocation, when it is made */
    if (s->pend[best->self]) {
        /* Transfers queued or running read or write the victim: its copy out is ordered after
         * them (the runtime enqueues it behind them on the stream and waits for it), so the host
         * waits for them first. */
        am_ps before = s->host;
        while (s->pend[best->self] && des_step(s, AM_TIME_NONE - 1)) {
        }
        if (s->now > s->host)
            s->host = s->now;
        s->sum.stall += s->host - before;
    }
    am_ps t = rt_copy(s, find_chan(s, level, host), s->host, best->requested, "spill",
                      best->id, level);
    s->sum.spill.evictions++;
    /* where a buffer went, for the report's wording: set by the eviction itself, not by a
     * level's attempt (until 2026-11-27 a level that tried to spill named its spill_host even
     * when it evicted nothing, or its request was skipped as one spilling cannot serve) */
    s->sum.spill.into_mask |= UINT64_C(1) << host;
    s->sum.spill.bytes_out += best->requested;
    s->sum.spill.time = am_ps_add(s->sum.spill.time, t);
    if (s->obs && s->obs->action)
        s->obs->action(s->obs->ctx, "spill", level, s->host, am_ps_add(s->host, t),
                       best->requested);
    host_block(s, t);
    /* waits whose deadline passed during the copy fail now, before its release
     * (sim_observer.action) */
    expire_due(s);
    rt_heard(s);
    /* The device block is given back once the copy has read it: its free (a device call on a
     * policy that charges one) comes after the copy. Until 2026-11-27 it was charged before,
     * so the copy's slice started a free latency late. */
    mem_free(s->lv[level], best->handle, best->requested, best->given, 0);
    charge(s, level);
    live_leave(s, best);
    best->state = ST_SPILLED;
    best->handle = o.handle; /* now the host copy's */
    best->addr = o.addr;
    best->given = o.size;
    timeline_row(s, level); /* the device free, after the copy */
    /* then the waits it serves, in arrival order, before the request that spilled tries again:
     * they asked first (a free's rule, do_free) */
    wake_waiters(s, level);
    return 1;
}

/* One more attempt of a failed request after recovery made room: with the request's recorded
 * address as its hint (segment_addresses: recorded), as its first attempt had (until
 * 2026-11-27 the hint was gone by then, so a request served after a spill or a
 * defragmentation took a new segment first fit, not the recorded one), and charged at once,
 * failed or not (until 2026-11-27 only a successful one was: a failed final attempt's device
 * call was charged with the level's next charged call, or never). */
static int attempt_again(sim *s, int level, const alloc_req *r, alloc_out *o, uint64_t hint)
{
    mem_level *m = s->lv[level];
    if (hint != TR_NO_ADDR)
        mem_hint(m, hint);
    int rc = mem_alloc_attempt(m, r, o);
    if (hint != TR_NO_ADDR)
        mem_hint(m, TR_NO_ADDR);
    charge(s, level);
    return rc;
}

/* A request no runtime action on its level can serve: larger than what the level's policy can
 * ever hold (mem_usable: its own pool limit, bfc's or prealloc's memory_limit, else the
 * capacity; until 2026-11-27 the capacity alone), once padded to pad_requests_to and taken
 * as the policy must take it (mem_min_capacity: its rounding, and the segment or block it
 * needs, caching's 20 MiB segment for a 3.5 MiB request). Until 2026-11-28 the padded request
 * alone: on an 8 MiB level under caching that 3.5 MiB request evicted a buffer (83.92 us of
 * copies there and back) or moved one, and failed all the same. */
static int beyond_capacity(sim *s, int level, uint64_t bytes)
{
    mem_level *m = s->lv[level];
    return mem_min_capacity(m, bytes) > mem_usable(m);
}

/* A request defragmentation cannot serve: beyond the usable capacity, or larger than what is
 * free of it once every buffer that stays is counted, the live buffers at their requested
 * bytes (moved, they still hold at least those) and the blocks whose free is pending (not
 * moved). */
static int defrag_cannot_help(sim *s, int level, uint64_t bytes)
{
    mem_level *m = s->lv[level];
    if (beyond_capacity(s, level, bytes))
        return 1;
    const mem_metrics *mm = mem_get_metrics(m);
    uint64_t stays = mm->live_bytes + mem_pending_bytes(m), cap = mem_usable(m);
    return stays >= cap || mem_padded(m, bytes) > cap - stays;
}

/* A request spilling cannot serve: beyond the usable capacity, or larger than what is free of it
 * once every block no spill can evict is counted: the blocks whose free is pending, and the
 * live bytes that are no possible victim (the buffer the current event uses, the host copies
 * other levels spilled here), as defrag_cannot_help counts what stays. Until 2026-11-27 only the
 * capacity was looked at: a 3 MiB request on 4 MiB with a 2 MiB block pending its free evicted
 * 2 MiB, failed, and brought it back on its next use (4.196 ms for nothing). */
static int spill_cannot_help(sim *s, int level, uint64_t bytes)
{
    mem_level *m = s->lv[level];
    if (beyond_capacity(s, level, bytes))
        return 1;
    /* the level's live requested bytes (its live set keeps the sum: until 2026-11-27 this walked
     * the whole id map), less the buffer in use when it is one of them */
    uint64_t evictable = s->rt[level].live_requested;
    const slot *u = s->in_use != TR_NO_ID ? idmap_find(&s->ids, s->in_use) : NULL;
    if (u && u->state == ST_LIVE && u->level == level)
        evictable -= u->requested;
    const mem_metrics *mm = mem_get_metrics(m);
    uint64_t live = mm->live_bytes, cap = mem_usable(m);
    uint64_t stays = (live > evictable ? live - evictable : 0) + mem_pending_bytes(m);
    return stays >= cap || mem_padded(m, bytes) > cap - stays;
}

/* Whether a compact run on the level now would repeat its last one exactly: that run put every
 * buffer back where it was, in a block of its old size, and lost none (a fixed point), with no
 * device call and no charged time, nor did the failed retry after it (device_activity: a
 * platform run gives its ranges back and takes them again, a cuda_async retry is charged its
 * refused growth, and a skipped run would drop those from the log and the clock), and
 * nothing the level holds has changed since (no block served, freed, requested free or moved,
 * no device range taken or given back: mem_changes; spills and restores are frees and
 * allocations of the level), so the run would release the same buffers, place them in the
 * same order into the same room where they are and move nothing again. A run that moved
 * buffers is not enough: under a best-fit policy (bfc, buddy, caching) a second run on the
 * same live set can move them again (bfc cycled 3 buffers, one run after the other), so it
 * runs as before. The run would also first wait for the transfers pending on the level's
 * buffers and then retry the level's waits: with any of either it runs as before. Until
 * 2026-11-28 each failed request that passed defrag_cannot_help ran it again: N live buffers
 * and N such requests were O(N^2) (8000 each under bfc: 4.1 s for 8000 runs that moved
 * nothing). host_roundtrip is not held to it: its runs copy every buffer out and back,
 * whatever the layout, and are charged as such. */
static int compaction_idle(sim *s, int level)
{
    const level_rt *rt = &s->rt[level];
    return rt->compacted && rt->compacted_at == mem_changes(s->lv[level]) && !rt->n &&
           !level_has_pending(s, level);
}

/* The on_oom defragmentation of a failed request and its retry: 1 when the retry served it.
 * Not for a request it cannot serve (defrag_cannot_help, or a level left as its last compact
 * run left it: compaction_idle), counted in `skipped` when `count`. */
static int defrag_for(sim *s, int level, const alloc_req *r, alloc_out *o, uint64_t hint,
                      int count)
{
    uint64_t before = s->sum.defrag.runs;
    if (defrag_cannot_help(s, level, r->bytes)) {
        if (count)
            s->sum.defrag.skipped++;
        return 0;
    }
    if (compaction_idle(s, level)) {
        expire_due(s); /* as the run would have, before the request fails */
        if (count)
            s->sum.defrag.skipped++;
        return 0;
    }
    if (s->rt[level].relocatable) /* it moves buffers: the failed attempt comes first */
        attempt_failed(s, level, r);
    defrag(s, level);
    if (s->sum.defrag.runs > before) {
        uint64_t act = device_activity(s, level);
        if (attempt_again(s, level, r, o, hint) == ALLOC_OK) {
            s->sum.defrag.ooms_avoided++;
            return 1;
        }
        /* a retry that made a device call or charged time (cuda_async's refused growth) would
         * be made again: the level is not idle for the next request (compaction_idle) */
        if (device_activity(s, level) != act)
            s->rt[level].compacted = 0;
    }
    return 0;
}

/* After a failed attempt: defragment (on_oom trigger) and spill (on_oom: spill_to_host) until
 * the request fits or nothing more helps; hint is the request's recorded address (or
 * TR_NO_ADDR). Neither runs for a request it cannot serve (defrag_cannot_help,
 * spill_cannot_help): counted in `skipped` (until 2026-11-27 they ran, moved or evicted buffers
 * and charged their copies, and the request failed all the same). When the evictions run out
 * (no victim left, or none whose copy fits) they may have freed enough bytes in holes too
 * small for the request, which the compaction before them could not see: the level defragments
 * once more and retries (until 2026-11-28 the request failed there). Only after an eviction,
 * and only under a policy that relocates: otherwise the level is as the first run left it, or
 * the run would only count `unsupported` again. Returns the final attempt's result. */
static int recover_level(sim *s, int level, const alloc_req *r, alloc_out *o, uint64_t hint)
{
    const cfg_level *L = &s->cfg->levels[level];
    /* every trigger: a failure defragments */
    if (L->defrag.mode != CFG_DEFRAG_NONE && defrag_for(s, level, r, o, hint, 1))
        return ALLOC_OK;
    if (L->on_oom == CFG_ON_OOM_SPILL) {
        if (spill_cannot_help(s, level, r->bytes)) {
            s->sum.spill.skipped++;
            return ALLOC_OOM;
        }
        /* this level's own evictions: a victim's copy may make a deeper level of the chain
         * evict too, which leaves this one as it was (until 2026-11-28 those counted here) */
        int evicted = 0;
        while (spill_one(s, level, r)) {
            evicted = 1;
            if (attempt_again(s, level, r, o, hint) == ALLOC_OK) {
                s->sum.spill.ooms_avoided++;
                return ALLOC_OK;
            }
        }
        if (L->defrag.mode != CFG_DEFRAG_NONE && evicted &&
            s->rt[level].relocatable && defrag_for(s, level, r, o, hint, 0))
            return ALLOC_OK;
    }
    return ALLOC_OOM;
}

/* recover_level, with the level marked as recovering while it runs (spill_one's chain rule).
 * The outermost call (a request's, or a restore's) opens a recovery episode: what the levels'
 * recoveries could not do (level_rt.no_room) is forgotten at its start. */
static int recover(sim *s, int level, const alloc_req *r, alloc_out *o, uint64_t hint)
{
    uint64_t defrag_avoided = s->sum.defrag.ooms_avoided;
    uint64_t spill_avoided = s->sum.spill.ooms_avoided;
    if (s->recover_depth == 0)
        for (int i = 0; i < s->nlevels; i++)
            s->rt[i].no_room = 0;
    int was = s->rt[level].recovering;
    s->rt[level].recovering = 1;
    s->recover_depth++;
    int rc = recover_level(s, level, r, o, hint);
    s->recover_depth--;
    s->rt[level].recovering = was;
    if (s->recover_depth == 0 && rc != ALLOC_OK) {
        /* An out-of-memory event is avoided only when the request is finally served: the
         * host copies served inside a chain that still failed it avoided nothing (until
         * 2026-11-27 each counted). */
        s->sum.defrag.ooms_avoided = defrag_avoided;
        s->sum.spill.ooms_avoided = spill_avoided;
    }
    return rc;
}

/* A spilled buffer that cannot come back now: an out-of-memory of its level and a spill
 * failure. */
static void restore_failed(sim *s, const slot *x)
{
    s->sum.spill.failures++;
    mem_count_oom(s->lv[x->level]);
    record_oom(s, s->seq, x->id, x->requested, x->level, 0, s->host, slot_name(s, x));
    if (s->obs && s->obs->oom) /* a marker in the Chrome trace (until 2026-11-27 none) */
        s->obs->oom(s->obs->ctx, s->host, s->seq, x->id, x->level, x->stream, x->requested,
                    "restore", slot_name(s, x));
}

/* A spilled buffer is used: bring it back from the host (spilling others if needed). One that
 * cannot be allocated on its level again is an out-of-memory of that level at this point (its
 * `ooms`, an oom_events entry, so mincap and the OOM column see it) and a spill failure; it
 * stays on the host, and a later use tries again. */
static int restore(sim *s, slot *x)
{
    int level = x->level, host = s->cfg->levels[level].spill_host;
    alloc_req r = {x->requested, x->stream, 0};
    alloc_out o = {0, 0, 0};
    mem_level *m = s->lv[level];
    int rc = mem_alloc_attempt(m, &r, &o);
    charge(s, level);
    if (rc != ALLOC_OK) {
        x->state = ST_RESTORING;
        rc = recover(s, level, &r, &o, TR_NO_ADDR);
        x->state = ST_SPILLED;
    }
    if (rc != ALLOC_OK) {
        restore_failed(s, x);
        return -1;
    }
    relocated(s, x, host, level, &o, PL_RESTORED);
    timeline_row(s, level); /* the device allocation, when it is made */
    am_ps t = rt_copy(s, find_chan(s, host, level), s->host, x->requested, "restore", x->id,
                      level);
    s->sum.spill.restores++;
    s->sum.spill.bytes_in += x->requested;
    s->sum.spill.time = am_ps_add(s->sum.spill.time, t);
    if (s->obs && s->obs->action)
        s->obs->action(s->obs->ctx, "restore", level, s->host, am_ps_add(s->host, t),
                       x->requested);
    host_block(s, t);
    rt_heard(s);
    /* the host copy is freed after the copy back has read it (until 2026-11-27 before it) */
    mem_free(s->lv[host], x->handle, x->requested, x->given, 0);
    charge(s, host);
    x->state = ST_LIVE;
    x->handle = o.handle;
    x->addr = o.addr;
    x->given = o.size;
    touch(s, x);
    live_enter(s, x);
    timeline_row(s, host); /* the host copy's free, after the copy */
    wake_waiters(s, host);
    return 0;
}

/* Defragmentation triggered by a threshold or a count, checked after each allocation. */
/* External fragmentation of a level now: 1 - largest free / free in reserved (0 when none). */
static double ext_frag(sim *s, int level)
{
    uint64_t fr = mem_free_in_reserved(s->lv[level]);
    return fr ? 1.0 - (double)mem_largest_free(s->lv[level]) / (double)fr : 0.0;
}

/* trigger: every runs after each `every` allocations; trigger: threshold after any allocation
 * that leaves external fragmentation above the threshold (allocators.md: compaction on
 * failure, "and optionally on a fragmentation threshold"). A layout that compaction cannot
 * bring under the threshold (a policy that does not relocate, or gaps it cannot close) would
 * run it after every allocation: so a run that leaves fragmentation above the threshold
 * disarms the trigger, and it re-arms once fragmentation has gone down to the threshold and the
 * level has made, since that run, as many allocations and frees as it had live buffers after
 * it. A run costs about one copy per live buffer, so the runs that could not help cost at most
 * about one copy per allocation or free on average, whatever the layout does meanwhile. Until
 * 2026-11-27 the dip alone re-armed it, and fragmentation can dip and climb back within a few
 * allocations with nothing to move (caching: a new segment's free tail lowers it, filling the
 * segment raises it again): a compaction at each new segment (26000 buffers: 244 runs, 6.8 s). */
static AM_NOINLINE void count_defrag(sim *s, int level)
{
    const cfg_level *L = &s->cfg->levels[level];
    level_rt *rt = &s->rt[level];
    if (L->defrag.trigger == CFG_TRIGGER_EVERY) {
        if (++rt->allocs_since_defrag >= L->defrag.every)
            defrag(s, level);
        return;
    }
    const mem_metrics *mm = mem_get_metrics(s->lv[level]);
    uint64_t changes = mm->allocs + mm->frees; /* a run's own re-placements are quiet: not in */
    if (ext_frag(s, level) <= L->defrag.threshold) {
        if (changes >= rt->rearm_at)
            rt->threshold_disarmed = 0;
        return;
    }
    if (rt->threshold_disarmed)
        return;
    defrag(s, level);
    rt->threshold_disarmed = ext_frag(s, level) > L->defrag.threshold;
    rt->rearm_at = changes + AM_MAX(mm->live_count, 1);
}

/* After a successful allocation: defragmentation triggered by a threshold or a count. Not
 * inside a start-state prologue, which only recreates the recording's state at its start (its
 * allocations tile segments and are no requests of the run): its allocations are not counted
 * for `every` and do not look at the threshold, and its end checks neither, as a run there would
 * move the recorded start-state blocks before the first event. Until 2026-11-27 they did: a
 * threshold run moved prologue blocks, charged its copies before the trace started and broke
 * the validation against recorded addresses. */
static inline void maybe_defrag(sim *s, int level)
{
    if (s->rt[level].counted_defrag && !s->prologue)
        count_defrag(s, level);
}

AM_ALWAYS_INLINE int alloc_tail(sim *s, const tr_event *ev, int level, alloc_req *r,
                                alloc_out *o, int rc, size_t pos, uint64_t gen);

/* Whether an allocation of this id (or a transfer into it) is a duplicate: any id known to the
 * engine is taken until its free, whether its allocation succeeded or not, as amsim check (which
 * knows no capacity) sees it, so a trace valid at one capacity is valid at every one. The one
 * exception is an into= id no capacity would have allocated (FR_ANY: the transfer guard, or
 * --lenient's skip of an unknown id=), which check also leaves free to allocate (convert.c,
 * `unallocated`). Until 2026-11-27 any id whose allocation had failed (out of memory, or a wait
 * for frees that expired) could be allocated again before its free: a trace that failed a
 * duplicate id at a large capacity ran at a small one. */
static int id_taken(const slot *x)
{
    return x && !(x->state == ST_OOM && x->frees == FR_ANY);
}

static void expire_pending_id(sim *s, slot *x);
static void free_failed(sim *s, const slot *x, int phase);

/* A spilled buffer's host copy given back (its free, or its donor's id ending), with the
 * host level's row; that level, whose waits the caller wakes. */
static int free_host_copy(sim *s, const slot *x)
{
    int host = s->cfg->levels[x->level].spill_host;
    mem_free(s->lv[host], x->handle, x->requested, x->given, 0);
    charge(s, host);
    if (s->obs && s->obs->free) /* where its spill moved it (x->addr: the host copy's) */
        s->obs->free(s->obs->ctx, s->host, x->id, host, x->stream, x->addr, x->requested,
                     x->given, 0);
    timeline_row(s, host);
    return host;
}


/* Whether a donation ends its donor's id whatever became of the donor's memory: amsim check and
 * convert, which know no capacity, take a donation as matched when its donor is known, was
 * allocated by some capacity (not an into= left unallocated whatever the capacity, FR_ANY), its
 * free not requested, and level and size agree (convert.c, cv_follow); the engine follows them,
 * so a trace valid at one capacity is valid at every one. */
static int donation_ends_donor(const slot *d, int level, const tr_event *ev)
{
    return ev->donate != ev->id && d->frees == FR_NONE && d->level == level &&
           d->requested == ev->bytes &&
           (d->state == ST_OOM || d->state == ST_PENDING || d->state == ST_SPILLED);
}

/* A donation whose donor has no device memory (its allocation failed or still waits for frees,
 * or it was spilled) does not match: the output is a plain request, and the donor's id ends as
 * check assumes. A wait is cancelled (its request fails, as when the trace frees it first), a
 * host copy is freed; nothing counts as a free of the trace. Until 2026-11-27 the donor's id
 * stayed known, so a later free of it ran at one capacity and failed check (free of unknown id),
 * and a later allocation of it was a duplicate at one capacity and not at another. */
static void donor_released(sim *s, slot *d)
{
    if (d->state == ST_PENDING)
        expire_pending_id(s, d); /* settles d as out of memory: the slot stays in the map */
    int host = -1;
    if (d->state == ST_SPILLED)
        host = free_host_copy(s, d);
    else
        free_failed(s, d, 0);
    pend_drop(s, d);
    idmap_del(&s->ids, d);
    if (host >= 0)
        wake_waiters(s, host); /* its host copy's room */
}

static int do_alloc(sim *s, const tr_event *ev, const char *file, am_error *err)
{
    int level = ev->level;
    if (level_ok(s, level, file, ev, err))
        return -1;
    if (ev->bytes == 0)
        return warn_or_fail(s, err, file, ev, "allocation of 0 bytes for id", ev->id);
    size_t pos = SIZE_MAX;
    slot *x = idmap_find_at(&s->ids, ev->id, &pos);
    uint64_t gen = s->ids.gen;
    if (id_taken(x))
        return am_fail_at(err, file, ev->line, ev->col,
                          "duplicate id %" PRIu64 ": still allocated (line %lu)", ev->id, x->line);
    if (x) {
        pend_drop(s, x);
        idmap_del(&s->ids, x);
    }
    if (ev->has_donate) {
        /* Buffer donation: the output takes over the donated buffer when level and size match
         * (an ownership transfer: no allocation, no copy). It keeps the donor's stream: the
         * block stays where its allocator filed it (caching: that stream's pool), so a restore
         * after a spill, the observers and a snapshot export name the stream the allocator will
         * treat it as (until 2026-11-27 the output's, and an exported snapshot's replay put a
         * later allocation elsewhere). */
        slot *d = idmap_find(&s->ids, ev->donate);
        if (d && d->state == ST_LIVE && d->level == level && d->requested == ev->bytes &&
            ev->donate != ev->id) {
            slot keep = *d;
            live_leave(s, d);
            idmap_del(&s->ids, d);
            x = idmap_put(&s->ids, ev->id);
            uint32_t self = x->self;
            *x = keep;
            x->self = self;
            x->id = ev->id;
            x->line = ev->line;
            slot_label(s, x, ev->name); /* the output's own name, not the donor's */
            touch(s, x);
            live_enter(s, x); /* the donor's block, live under the output's id */
            if (s->track && keep.self != self && s->pend[keep.self])
                pend_move(s, keep.self, self); /* its pending transfers are the output's now */
            s->sum.allocs++;
            s->sum.donations_matched++;
            alloc_out o = {keep.addr, keep.given, keep.handle};
            placement_row(s, s->seq, ev->id, level, &o, ev->bytes, PL_DONATED, NULL, ev->name);
            log_donate(s, level, ev->id, ev->donate, keep.addr, keep.given);
            if (s->obs && s->obs->free)
                s->obs->free(s->obs->ctx, s->host, ev->donate, level, keep.stream, keep.addr,
                             keep.requested, keep.given, 0);
            if (s->obs && s->obs->alloc)
                s->obs->alloc(s->obs->ctx, s->host, s->seq, ev->id, level, keep.stream, keep.addr,
                              ev->bytes, keep.given, SIM_ALLOC_DONATED, ev->name);
            return 0;
        }
        s->sum.donations_unmatched++;
        if (d && donation_ends_donor(d, level, ev))
            donor_released(s, d);
    }
    mem_level *m = s->lv[level];
    if (ev->addr != TR_NO_ADDR)
        mem_hint(m, ev->addr);
    alloc_req r = {ev->bytes, ev->stream, s->seq + 1};
    alloc_out o = {0, 0, 0};
    int rc = mem_alloc_attempt(m, &r, &o);
    if (ev->addr != TR_NO_ADDR)
        mem_hint(m, TR_NO_ADDR);
    charge(s, level);
    return alloc_tail(s, ev, level, &r, &o, rc, pos, gen);
}

/* An allocation after its first attempt (rc, *o): recovery when it failed, the id's slot, then a
 * wait for frees (retry) or the outcome settled. pos and gen are the id map position of the
 * id's absence (idmap_find_at). */
AM_ALWAYS_INLINE int alloc_tail(sim *s, const tr_event *ev, int level, alloc_req *r,
                                alloc_out *o, int rc, size_t pos, uint64_t gen)
{
    if (rc != ALLOC_OK)
        rc = recover(s, level, r, o, ev->addr);
    s->sum.allocs++;
    slot *x = idmap_put_at(&s->ids, ev->id, pos, gen); /* re-probes when the map changed meanwhile */
    x->line = ev->line;
    slot_label(s, x, ev->name);
    x->level = level;
    x->stream = ev->stream;
    x->requested = ev->bytes;
    touch(s, x);
    level_rt *rt = &s->rt[level];
    if (rc != ALLOC_OK && rt->retry && !s->into) {
        /* Wait for frees later on the timeline (allocators.md section 1, "retry"). */
        if (rt->n == 0 || ev->bytes < rt->wait_min)
            rt->wait_min = ev->bytes;
        *pending_append(rt) = (pending){ev->id, ev->bytes, s->seq, ev->addr, ev->stream, ev->line,
                                   am_ps_add(s->host, rt->retry_wait)};
        x->state = ST_PENDING;
        s->sum.retries++;
        return 0;
    }
    settle(s, x, s->seq, now_stamp(s), ev->bytes, ev->addr, level, rc == ALLOC_OK, o);
    if (rc == ALLOC_OK)
        maybe_defrag(s, level);
    return 0;
}

/* A wait cancelled before its deadline (its id freed, or ending as a donor): the request fails
 * now, at the current host time, stamped with its own event index like a wait that runs out
 * (expire_pending), so its oom_events entry, Chrome instant, placements row and timeline row
 * agree. Until 2026-11-27 only oom_events had its index; the others had the cancelling event's. */
static void expire_pending_id(sim *s, slot *x)
{
    level_rt *rt = &s->rt[x->level];
    for (size_t i = 0; i < rt->n; i++)
        if (rt->p[i].id == x->id) {
            pending p = rt->p[i];
            memmove(&rt->p[i], &rt->p[i + 1], (rt->n - i - 1) * sizeof *rt->p);
            rt->n--;
            alloc_out o = {0, 0, 0};
            stamp w = {s->host, p.seq};
            settle(s, x, p.seq, w, p.bytes, p.addr, x->level, 0, &o);
            s->sum.retries_failed++;
            return;
        }
}

/* A recorded out-of-memory (`oom BYTES`, PyTorch's oom entry): the recording's request went
 * through its allocator's whole miss path before it failed, and what that path gave back
 * (cached segments freed, free pages of expandable segments unmapped) is in the segment events
 * recorded before the line. The simulation makes the same request on the line's stream and
 * level, as the run that wrote the recording did, so its allocator takes the same path and its
 * device calls can match them; the state after it is the recording's too. It is expected to
 * fail: an out-of-memory of the level, counted in oom_matches. One that the simulation serves
 * is given back at once (the program never had it; its allocator's state may differ from the
 * recording's from here on). A policy that plans offline is not asked: its plan does not hold
 * the request (which would only count as a mismatch). No defragmentation or spilling follows the
 * failure: whatever the recording's runtime did before it failed the request is in the
 * recording already (an amsim export writes a defragmentation's moves and a spill as frees
 * and allocations before the line; PyTorch has neither). Until 2026-11-27 the replay
 * recovered again, and its defragmentation moved the buffers the recording had just placed
 * (an export's replay under caching matched 13 of 24 addresses). */
static void recorded_oom(sim *s, const tr_event *ev)
{
    int level = ev->level;
    mem_level *m = s->lv[level];
    if (ev->bytes == 0 || mem_policy(m)->set_plan)
        return;
    alloc_req r = {ev->bytes, ev->stream, s->seq + 1};
    alloc_out o = {0, 0, 0};
    int rc = mem_alloc_attempt(m, &r, &o);
    charge(s, level);
    if (rc == ALLOC_OK) {
        /* observers see the allocation for that instant (a snapshot export writes alloc and
         * free, so that its replay makes the same request; until 2026-11-27 it had none) */
        if (s->obs && s->obs->alloc)
            s->obs->alloc(s->obs->ctx, s->host, s->seq, TR_NO_ID, level, ev->stream, o.addr,
                          ev->bytes, o.size, 1, ev->name);
        /* it counts in the level's allocs: a `served` row and an `A - ADDR SIZE` line (until
         * 2026-11-27 neither, so the rows no longer added up to allocs) */
        placement_row(s, s->seq, TR_NO_ID, level, &o, ev->bytes, PL_SERVED, NULL, ev->name);
        log_served(s, level, o.addr, o.size);
        /* a row (and the observer's counters) for the instant it is held, where the level's
         * live bytes peak, then one for its return (until 2026-11-27 only the latter, so the
         * timeline never showed the peak the summary reports) */
        timeline_row(s, level);
        mem_free(m, o.handle, ev->bytes, o.size, 0);
        charge(s, level);
        if (s->obs && s->obs->free)
            s->obs->free(s->obs->ctx, s->host, TR_NO_ID, level, ev->stream, o.addr, ev->bytes,
                         o.size, 0);
        timeline_row(s, level);
        return;
    }
    s->sum.oom_matches++;
    mem_count_oom(m);
    /* the line's name= (a PyTorch oom entry's stack: the line that ran out) in its event, and
     * to the observers: the Chrome marker, the snapshot export's oom entry (until 2026-11-28
     * a recorded out-of-memory had no name) */
    record_oom(s, s->seq, TR_NO_ID, ev->bytes, level, 1, s->host, ev->name);
    if (s->obs && s->obs->alloc)
        s->obs->alloc(s->obs->ctx, s->host, s->seq, TR_NO_ID, level, ev->stream, 0, ev->bytes, 0,
                      0, ev->name);
    timeline_row(s, level);
}

/* The trace's free (phase as the observer's free) of a request that failed: reported, so that
 * an export can free it where the trace did when its replay serves the request. */
static void free_failed(sim *s, const slot *x, int phase)
{
    if (s->obs && s->obs->free_failed)
        s->obs->free_failed(s->obs->ctx, s->host, x->id, x->level, x->stream, x->requested,
                            phase);
}

/* The order of a free's phases, checked whatever became of the buffer (live, out of memory,
 * waiting for frees, spilled), as amsim check checks it (convert.c, cv_rules): a trace valid at
 * one capacity is valid at every one. NULL, or the error's message. Until 2026-11-27 only a live
 * buffer's free_completed needed its free_requested, and a failed, waiting or spilled one's was
 * accepted (and an out-of-memory one's second free_requested). */
static const char *free_order_error(const slot *x, const tr_event *ev)
{
    if (x->frees == FR_ANY || ev->kind == TR_FREE)
        return NULL;
    int requested = x->state == ST_REQ_FREED || x->state == ST_DROPPED || x->frees == FR_REQUESTED;
    if (ev->kind == TR_FREE_REQUESTED && requested)
        return "second free request of id";
    if (ev->kind == TR_FREE_COMPLETED && !requested)
        /* a completion needs its request: `free` is both phases */
        return "free_completed without a free_requested of id";
    return NULL;
}

static int do_free(sim *s, const tr_event *ev, const char *file, am_error *err)
{
    size_t pos = SIZE_MAX;
    slot *x = idmap_find_at(&s->ids, ev->id, &pos);
    uint64_t gen = s->ids.gen;
    if (!x)
        return warn_or_fail(s, err, file, ev, "free of unknown id", ev->id);
    const char *order = free_order_error(x, ev);
    if (order) /* --lenient skips it: the buffer stays as it was */
        return warn_or_fail(s, err, file, ev, order, ev->id);
    int level = x->level;
    if (x->state == ST_PENDING) {
        /* Freed before its wait ended: the request failed. */
        expire_pending_id(s, x); /* settles x as out of memory: the slot stays in the map */
        gen = s->ids.gen;
    }
    if (x->state == ST_SPILLED) {
        /* Dropped while on the host: free the host copy; a later completion is accepted. */
        int host = free_host_copy(s, x);
        s->sum.frees++;
        if (ev->kind == TR_FREE_REQUESTED)
            x->state = ST_DROPPED;
        else {
            pend_drop(s, x);
            idmap_del(&s->ids, x);
        }
        wake_waiters(s, host); /* its host copy's room, on the spill_host level */
        return 0;
    }
    if (x->state == ST_DROPPED) {
        if (ev->kind == TR_FREE_REQUESTED)
            return warn_or_fail(s, err, file, ev, "second free request of id", ev->id);
        pend_drop(s, x);
        idmap_del(&s->ids, x);
        return 0;
    }
    switch (ev->kind) {
    case TR_FREE_REQUESTED:
        if (x->state == ST_OOM) {
            s->sum.frees_after_oom++;
            free_failed(s, x, 1);
            if (x->frees == FR_NONE)
                x->frees = FR_REQUESTED;
            return 0; /* the completion removes it */
        }
        if (x->state != ST_LIVE)
            return warn_or_fail(s, err, file, ev, "second free request of id", ev->id);
        mem_free_requested(s->lv[level], x->handle, x->requested, x->given);
        charge(s, level);
        if (s->obs && s->obs->free)
            s->obs->free(s->obs->ctx, s->host, x->id, level, x->stream, x->addr, x->requested,
                         x->given, 1);
        live_leave(s, x);
        x->state = ST_REQ_FREED;
        s->sum.frees++;
        break;
    default: /* TR_FREE, TR_FREE_COMPLETED */
        if (x->state == ST_OOM) {
            if (ev->kind == TR_FREE)
                s->sum.frees_after_oom++;
            free_failed(s, x, ev->kind == TR_FREE ? 0 : 2);
            pend_drop(s, x);
            idmap_del(&s->ids, x);
            return 0;
        }
        if (x->state == ST_LIVE)
            s->sum.frees++;
        mem_free(s->lv[level], x->handle, x->requested, x->given, x->state == ST_REQ_FREED);
        charge(s, level);
        if (s->obs && s->obs->free)
            s->obs->free(s->obs->ctx, s->host, x->id, level, x->stream, x->addr, x->requested,
                         x->given, x->state == ST_REQ_FREED ? 2 : 0);
        pend_drop(s, x);
        live_leave(s, x);
        idmap_del_at(&s->ids, x, pos, gen);
        /* the row of the free, then those of the waits it serves: each row the state just
         * after its change (until 2026-11-27 the free's row came after them, repeating
         * their state, so the timeline never showed the level without them) */
        timeline_row(s, level);
        wake_waiters(s, level);
        return 0;
    }
    timeline_row(s, level);
    return 0;
}

static int find_chan(sim *s, int from, int to)
{
    for (int i = 0; i < s->nch; i++) {
        const cfg_link *l = &s->cfg->links[s->ch[i].link];
        int a = s->ch[i].dir ? l->to : l->from, b = s->ch[i].dir ? l->from : l->to;
        if (a == from && b == to)
            return i; /* a half-duplex link has an entry per direction too, sharing its channel */
    }
    return -1;
}

static int enqueue(sim *s, const tr_event *ev, op o, const char *file, am_error *err)
{
    if (ev->stream >= MAX_STREAMS)
        return am_fail_at(err, file, ev->line, ev->col, "stream %u out of range for a queued "
                          "operation (streams 0 to %d)", ev->stream, MAX_STREAMS - 1);
    stream *q = get_stream(s, ev->stream);
    o.issue = s->host;
    o.order = s->seq;
    if (s->cfg->engine.queue_depth && q->len >= s->cfg->engine.queue_depth) {
        /* The host blocks until the stream retires an operation. */
        am_ps before = s->host;
        while (q->len >= s->cfg->engine.queue_depth && des_step(s, AM_TIME_NONE - 1)) {
        }
        if (s->now > s->host)
            s->host = s->now;
        s->sum.stall += s->host - before;
        o.issue = s->host;
    }
    /* a name only observers show (the Chrome trace's slice): copied for them alone, after the
     * wait above, which may finish named ops ahead of it */
    if (ev->name && s->obs && s->obs->op && (o.kind == OP_COMPUTE || o.kind == OP_XFER)) {
        o.named = 1;
        st_push_name(q, ev->name);
    }
    st_push(q, o);
    if (o.kind == OP_XFER)
        s->ch[o.chan].xfers++;
    kick(s, ev->stream);
    return 0;
}

/* jax.transfer_guard: 1 when the transfer may happen (counted and maybe logged), 0 rejected
 * (the decision is cfg_guard_rejects', which convert uses too). */
static int guard_allows(sim *s, const tr_event *ev, const char *file)
{
    int dir, rejects = cfg_guard_rejects(s->cfg, ev->level, ev->dst_level, ev->implicit, &dir);
    if (dir < 0)
        return 1;
    int g = s->cfg->guard[dir];
    static const char *const names[] = {"host-to-device", "device-to-host", "device-to-device"};
    if (ev->implicit)
        s->sum.guard_implicit[dir]++;
    if (rejects) {
        s->sum.guard_rejected[dir]++;
        return 0;
    }
    if (!cfg_guard_applies(g, ev->implicit) || g == CFG_GUARD_ALLOW)
        return 1;
    if (s->sum.guard_logged[dir]++ < 10)
        am_msg("amsim: transfer guard: %s %s transfer of %" PRIu64 " bytes at %s:%lu\n",
               ev->implicit ? "implicit" : "explicit", names[dir], ev->bytes, file, ev->line);
    return 1;
}

const char *sim_to_mismatch(const am_config *cfg, const tr_event *ev, int level,
                            unsigned long line, char *buf, size_t n)
{
    buf[0] = 0;
    if (level == ev->dst_level)
        return NULL;
    const char *on = level >= 0 && level < cfg->nlevels ? cfg->levels[level].name : "?";
    snprintf(buf, n, "transfer to= buffer %" PRIu64 " is on level '%s' (allocated at line %lu), "
             "not on the transfer's destination level '%s'", ev->to, on, line,
             cfg->levels[ev->dst_level].name);
    return buf;
}

/* A named buffer with no memory that a restore could give: its allocation ran out or waits, or
 * its free was requested while it was spilled (use_buffer's -1 cases other than a restore that
 * fails). A fact of its state, not a prediction. */
static int memoryless(const slot *x)
{
    return x && (x->state == ST_OOM || x->state == ST_PENDING || x->state == ST_DROPPED);
}

/* A buffer is used: LRU order, and a spilled buffer comes back first. 0, or -1 when it has no
 * memory to read: it could not come back (counted there), its allocation failed (counted when
 * it did), its allocation still waits for frees (retry_after_free), or it was spilled and its
 * free requested, which freed its host copy (ST_DROPPED; until 2026-11-27 a transfer of it was
 * made and its into= allocated). The engine holds no stream
 * behind a waiting allocation, so what the trace does meanwhile happens at its own time, when
 * the buffer has no memory yet; a transfer of it does not happen, as for a failed one (until
 * 2026-11-27 both copies were made and counted, from memory the buffer never had). */
static int use_buffer(sim *s, uint64_t id)
{
    slot *x = idmap_find(&s->ids, id);
    if (!x)
        return 0;
    touch(s, x);
    if (x->state == ST_SPILLED)
        return restore(s, x);
    return memoryless(x) ? -1 : 0;
}

/* A transfer skipped because its source buffer id had no memory (its allocation ran out, waits,
 * its spilled copy could not come back, or it is itself the into= of a skipped transfer): the
 * levels whose shortage caused it, so that a reference run knows which level to grow even when
 * the buffer is still waiting (no out-of-memory counted yet). An into= never allocated passes on
 * its source's levels (a chain host -> vmem -> hbm blames the host, not vmem). */
static uint16_t no_memory_blame(sim *s, uint64_t id)
{
    const slot *x = idmap_find(&s->ids, id);
    if (!x)
        return 0;
    return x->state == ST_OOM ? x->blame : level_bit(x->level);
}

/* A transfer with into= that does not happen (the transfer guard rejects it, or its spilled
 * source cannot come back): its destination is never allocated. Like one whose allocation runs
 * out of memory, it counts in into_failed and the id stays known as not allocated (ST_OOM, no
 * out-of-memory result: nothing was asked of the allocator), so its later free is skipped and
 * counted in frees_after_oom. Until 2026-11-27 the id stayed unknown and that free stopped the
 * run as a free of an unknown id. An id still allocated is the error do_alloc gives. frees:
 * FR_ANY when no capacity would have allocated it (the guard, an unknown id=), FR_NONE when
 * another one might have (its source had no memory): then, as for any buffer, its
 * free_completed needs a free_requested (free_order_error). */
static int into_skipped(sim *s, const tr_event *ev, int frees, uint16_t blame, const char *file,
                        am_error *err)
{
    slot *x = idmap_find(&s->ids, ev->into);
    if (id_taken(x))
        return am_fail_at(err, file, ev->line, ev->col,
                          "duplicate id %" PRIu64 ": still allocated (line %lu)", ev->into,
                          x->line);
    if (x) {
        pend_drop(s, x);
        idmap_del(&s->ids, x);
    }
    x = idmap_put(&s->ids, ev->into);
    x->line = ev->line;
    slot_label(s, x, NULL); /* the transfer's name= labels the copy, not its destination */
    x->level = ev->dst_level;
    x->stream = ev->stream;
    x->requested = ev->bytes;
    x->state = ST_OOM;
    x->frees = (uint8_t)frees;
    x->blame = blame;
    /* the request on the destination level left unserved for lack of memory elsewhere: which
     * levels a reference run of that level must grow (the guard's rejections: none) */
    if (x->level >= 0 && x->level < CFG_MAX_LEVELS)
        s->sum.no_memory_into[x->level] |= blame;
    touch(s, x);
    s->sum.into_failed++;
    return 0;
}

/* use_buffer of id while keep (TR_NO_ID: none) is not a spill victim. */
static int use_keeping(sim *s, uint64_t id, uint64_t keep)
{
    s->in_use = keep;
    int rc = use_buffer(s, id);
    s->in_use = TR_NO_ID;
    return rc;
}

/* The uses of a transfer's two named buffers, id= (the source) and to= (the destination;
 * TR_NO_ID: none): the one with no memory, or TR_NO_ID when the copy happens. The rule depends
 * only on which field names which buffer, never on the order the trace writes them in:
 *  - when either has no memory a restore could give (memoryless), both count as used and
 *    neither is brought back (id= is the one blamed when both have none);
 *  - otherwise id= is used first (brought back if spilled, without sending to= away), then
 *    to= (brought back without sending id= away): the copy's own order, read then write, and
 *    the order uses had before any prediction was tried. When one cannot come back (its restore
 *    fails and is counted, as any use's) the copy does not happen and whatever came back
 *    before stays: whether a restore will succeed is never predicted (the 2026-11-27 merge
 *    e649f5f predicted it from capacities and missed the spill host's room, the room a
 *    restore frees by dropping a host copy kept on the other's level, and evictions that
 *    change with the order of the names, so the same pair behaved differently with id= and
 *    to= swapped).
 * Until 2026-11-27 id= was restored first whatever became of to=, even when to= had no memory
 * at all, so id= came back (evicting another buffer) for a copy that could never happen. */
static uint64_t copy_short_id(sim *s, uint64_t id, uint64_t to)
{
    slot *x = id != TR_NO_ID ? idmap_find(&s->ids, id) : NULL;
    slot *y = to != TR_NO_ID ? idmap_find(&s->ids, to) : NULL;
    if (memoryless(x) || memoryless(y)) {
        if (x)
            touch(s, x);
        if (y)
            touch(s, y);
        return memoryless(x) ? id : to;
    }
    if (x && use_keeping(s, id, to) < 0) {
        if (y) /* named by the transfer: used, though not brought back for a copy that fails */
            touch(s, y);
        return id;
    }
    if (y && use_keeping(s, to, id) < 0)
        return to;
    return TR_NO_ID;
}

/* Every event but an allocation or a free (sim_event's rare cases, kept out of its hot path).
 * Sets *stop when sim_event must return the result at once (an error before the event counted). */
static int other_event(sim *s, const tr_event *ev, const char *file, am_error *err, int *stop)
{
    int rc = 0;
    *stop = 1;
    switch (ev->kind) {
    case TR_FREE_REQUESTED:
    case TR_FREE_COMPLETED:
        rc = do_free(s, ev, file, err);
        break;
    case TR_TRANSFER: {
        if (level_ok(s, ev->level, file, ev, err) || level_ok(s, ev->dst_level, file, ev, err))
            return -1;
        int c = find_chan(s, ev->level, ev->dst_level);
        if (c < 0)
            return am_fail_at(err, file, ev->line, ev->col,
                              "no link from '%s' to '%s' in the config", s->cfg->levels[ev->level].name,
                              s->cfg->levels[ev->dst_level].name);
        if (chan_bytes_overflow(&s->ch[c], ev->bytes)) {
            /* the link's per-transfer bytes are 64-bit: 2^64 or more rounded bytes cannot be
             * charged, and saturating them would report a count that is not whole granules
             * (until 2026-11-27 18446744073709551000 bytes at 4 KiB were charged 2^64 - 1) */
            char g[48];
            return am_fail_at(err, file, ev->line, ev->col, "transfer of %" PRIu64 " bytes from "
                              "'%s' to '%s': rounded up to the %s transfer_granule it is 2^64 "
                              "bytes or more, beyond the 2^64 - 1 bytes a transfer carries",
                              ev->bytes, s->cfg->levels[ev->level].name,
                              s->cfg->levels[ev->dst_level].name,
                              units_fmt_size(g, sizeof g, s->ch[c].granule));
        }
        if (ev->id != TR_NO_ID && !idmap_find(&s->ids, ev->id)) {
            /* id= is a use of the buffer: an unknown one is the error `use` gives (until
             * 2026-11-27 it was accepted in silence); --lenient counts it and skips the transfer,
             * which then allocates no into= either, as when the guard rejects it */
            if (warn_or_fail(s, err, file, ev, "use of unknown id", ev->id) ||
                (ev->has_into && into_skipped(s, ev, FR_ANY, 0, file, err)))
                return -1;
            break;
        }
        const slot *dst = ev->has_to ? idmap_find(&s->ids, ev->to) : NULL;
        if (ev->has_to && !dst) {
            /* to= (the existing buffer the copy writes) is a use too: the same error, and
             * --lenient skips the transfer (a to= transfer has no into=) */
            if (warn_or_fail(s, err, file, ev, "use of unknown id", ev->to))
                return -1;
            break;
        }
        if (dst) {
            /* the to= buffer is the copy's destination: on DST (the buffer's own level,
             * whatever became of its memory, so that a trace valid at one capacity is valid at
             * every one); --lenient skips the transfer */
            char why[320];
            if (sim_to_mismatch(s->cfg, ev, dst->level, dst->line, why, sizeof why)) {
                if (warn_or_fail_text(s, err, file, ev, why))
                    return -1;
                break;
            }
        }
        int allowed = guard_allows(s, ev, file);
        /* the named buffer with no memory, if any; one the guard rejects uses neither. A
         * spilled source comes back without sending its to= destination away: the copy
         * writes that buffer right after (until 2026-11-27 it could be the victim, spilled
         * only to be brought back at once, or left with no memory and the copy skipped); the
         * destination comes back too, without sending the source away */
        uint64_t short_id =
            allowed ? copy_short_id(s, ev->id, ev->has_to ? ev->to : TR_NO_ID) : TR_NO_ID;
        if (!allowed || short_id != TR_NO_ID) {
            /* rejected by the guard, or a source or to= destination with no memory
             * (use_buffer); counted apart (until 2026-11-27 it was counted nowhere, and a
             * destination with no memory was written to: to= did not exist, and id= named it) */
            s->sum.transfers_skipped++;
            uint16_t blame = allowed ? no_memory_blame(s, short_id) : 0;
            if (ev->has_into && into_skipped(s, ev, allowed ? FR_NONE : FR_ANY, blame, file, err))
                return -1;
            break;
        }
        if (ev->has_into) {
            /* A transfer into a level allocates its destination buffer first. */
            tr_event a = *ev;
            a.kind = TR_ALLOC;
            a.id = ev->into;
            a.level = ev->dst_level;
            a.addr = TR_NO_ADDR;
            a.has_donate = 0;
            a.name = NULL; /* the transfer's name= labels the copy, not its destination */
            /* The copy is made now or never: the engine holds no stream behind a waiting
             * allocation, so the destination does not wait for frees (retry_after_free) and
             * runs out of memory at once (until 2026-11-27 it waited: the transfer counted as
             * failed, without its copy, yet the buffer was served later and copied from). */
            s->in_use = ev->id; /* the source stays where the copy reads it */
            s->into = 1;
            int arc = do_alloc(s, &a, file, err);
            s->in_use = TR_NO_ID;
            s->into = 0;
            if (arc != 0)
                return -1;
            slot *x = idmap_find(&s->ids, ev->into);
            if (!x || x->state != ST_LIVE) {
                /* no destination, no copy: a transfer that did not happen, counted as the
                 * guard's and a memoryless source's are (until 2026-11-27 in neither
                 * `transfers` nor `transfers_skipped`) */
                s->sum.into_failed++;
                s->sum.transfers_skipped++;
                break;
            }
            s->sum.into_allocs++;
        }
        s->sum.transfers++;
        uint64_t refs = 0;
        if (s->track)
            refs = xfer_refs(s, ev->id != TR_NO_ID ? idmap_find(&s->ids, ev->id) : NULL,
                             ev->has_into ? idmap_find(&s->ids, ev->into)
                             : ev->has_to ? idmap_find(&s->ids, ev->to)
                                          : NULL);
        /* the link carries whole granules: the op's bytes (its time, the link's busy time and
         * bytes, the observers' figures) are the rounded ones */
        rc = enqueue(s, ev,
                     (op){OP_XFER, 0, (uint32_t)c, chan_bytes(&s->ch[c], ev->bytes), refs, 0, 0},
                     file, err);
        break;
    }
    case TR_USE: {
        slot *x = idmap_find(&s->ids, ev->id);
        /* --lenient skips it and counts it as an event (until 2026-11-27 the skip returned at
         * once, so every later event's index, which the `offline` plan and the placements rows
         * number events by, was one short) */
        if (!x) {
            if (warn_or_fail(s, err, file, ev, "use of unknown id", ev->id))
                return -1;
            break;
        }
        use_buffer(s, ev->id);
        break;
    }
    case TR_COMPUTE:
        s->sum.computes++;
        rc = enqueue(s, ev, (op){OP_COMPUTE, 0, 0, ev->duration, 0, 0, 0}, file, err);
        break;
    case TR_RECORD: {
        rc = enqueue(s, ev, (op){OP_RECORD, 0, 0, ev->arg, 0, 0, 0}, file, err);
        if (rc == 0) {
            /* Every op pushed so far was popped or is queued: this one was the last pushed
             * (enqueue may have run the device, which only pops). */
            const stream *q = &s->st[ev->stream];
            uint64_t pos = q->popped + q->len - 1;
            if (pos > EV_MAX_POS) /* 2^48 operations on one stream: no trace gets there */
                return am_fail_at(err, file, ev->line, ev->col,
                                  "record of event %" PRIu64 " is operation %" PRIu64
                                  " on stream %u, past the %" PRIu64 " a stream can hold",
                                  ev->arg, pos, ev->stream, EV_MAX_POS);
            evtab_put(&s->ev, ev->arg, pos << EV_STREAM_BITS | ev->stream);
        }
        break;
    }
    case TR_WAIT: {
        uint64_t rec;
        if (!evtab_get(&s->ev, ev->arg, &rec))
            return am_fail_at(err, file, ev->line, ev->col,
                              "wait on event %" PRIu64 ", which was never recorded", ev->arg);
        uint32_t last_stream = (uint32_t)(rec & ((1u << EV_STREAM_BITS) - 1));
        rc = enqueue(s, ev, (op){OP_WAIT, 0, last_stream, ev->arg, rec >> EV_STREAM_BITS, 0, 0},
                     file, err);
        break;
    }
    case TR_SYNC:
        host_sync(s, ev->stream);
        break;
    case TR_DEFRAG:
        if (level_ok(s, ev->level, file, ev, err))
            return -1;
        explicit_defrag(s, ev->level);
        break;
    case TR_SEGMENT_ALLOC:
        if (level_ok(s, ev->level, file, ev, err))
            return -1;
        mem_note_recorded_segment(s->lv[ev->level], ev->addr, ev->bytes);
        if (!ev->declared)
            seg_recorded(s, ev);
        break;
    case TR_SEGMENT_FREE:
        if (level_ok(s, ev->level, file, ev, err))
            return -1;
        seg_recorded(s, ev);
        break;
    case TR_OOM_RECORDED:
        if (level_ok(s, ev->level, file, ev, err))
            return -1;
        /* a request of 0 bytes is refused (or skipped with --lenient) as `alloc ID 0` is:
         * until 2026-11-27 `oom 0` was counted as a recorded OOM the run served, without the
         * placements row and `A -` log line a served oom gets */
        if (ev->bytes == 0) {
            rc = warn_or_fail_text(s, err, file, ev, "oom of 0 bytes");
            break;
        }
        s->sum.recorded_ooms++;
        recorded_oom(s, ev);
        break;
    default:
        return am_fail(err, AM_EINTERNAL, "%s:%lu: unknown event kind %d", file, ev->line,
                       (int)ev->kind);
    }
    *stop = 0;
    return rc;
}

/* sim_event after its prologue_edge (run_one has taken it already). */
static int event_in(sim *s, const tr_event *ev, const char *file, am_error *err)
{
    if (ev->time != AM_TIME_NONE && ev->time > s->host)
        s->host = ev->time;
    s->issue = s->host;
    if (s->obs && s->obs->event)
        s->obs->event(s->obs->ctx, s->host);
    if (seg_kind(ev))
        seg_begin(s);
    if (s->hn || s->inflight)
        des_run_until(s, s->host);
    else if (s->now < s->host)
        s->now = s->host; /* what des_run_until does when no device event is pending */
    if (s->sum.retries > s->sum.retries_succeeded + s->sum.retries_failed) /* some wait */
        expire_pending(s, s->host, 0);
    s->sum.events++;
    int rc;
    if (ev->kind == TR_ALLOC) {
        rc = do_alloc(s, ev, file, err);
    } else if (ev->kind == TR_FREE) {
        rc = do_free(s, ev, file, err);
    } else {
        int stop;
        rc = other_event(s, ev, file, err, &stop);
        if (stop)
            return rc;
    }
    if (rc == 0 && s->o.check)
        rc = check_all(s, file, ev, err);
    /* An event that moved the host clock (a sync, a charged latency) may have outlasted some
     * waits: they end now, in trace order before the next event's rows (until 2026-11-27 only
     * the next event noticed them). */
    if (rc == 0 && s->sum.retries > s->sum.retries_succeeded + s->sum.retries_failed)
        expire_pending(s, s->host, 0);
    s->seq++;
    return rc;
}

int sim_event(sim *s, const tr_event *ev, const char *file, am_error *err)
{
    if (streamset_check(&s->streams, ev, file, err) != 0) /* before the event changes anything */
        return -1;
    prologue_edge(s, ev);
    return event_in(s, ev, file, err);
}

void sim_flush(sim *s)
{
    if (s->pn)
        placements_write(s);
    if (s->o.placements && fflush(s->o.placements) != 0)
        out_note_write_error(s->o.placements, errno);
}

/* A clock reached AM_PS_MAX: some sum of times saturated there (am_ps_add); by the event at
 * `line`, or (at_end) while the streams drained after the last one. */
static int time_overflow(const char *file, unsigned long line, int at_end, am_error *err)
{
    if (!at_end)
        return am_fail(err, AM_EINPUT, "%s:%lu:1: simulated time reaches 2^64 - 2 ps (about 213 "
                       "days) by this event: a duration, transfer or latency too long for the "
                       "clock", file, line);
    return am_fail(err, AM_EINPUT, "%s: simulated time reaches 2^64 - 2 ps (about 213 days) "
                   "while the streams drain at the end of the trace: a duration, transfer or "
                   "latency too long for the clock", file);
}

int sim_finish(sim *s, am_error *err)
{
    if (s->prologue) /* a trace that is only a prologue: its end is the start state */
        prologue_switch(s, 0);
    expire_pending(s, s->host, 1);
    host_sync(s, TR_ALL);
    if (s->host >= AM_PS_MAX || s->now >= AM_PS_MAX)
        return time_overflow(s->file ? s->file : "the trace", 0, 1, err);
    if (s->o.timeline)
        timeline_flush(s); /* the last sampling period's rows */
    sim_flush(s);
    seg_expire(s); /* recorded segment events still waiting have no event after them left */
    s->sum.makespan = s->now > s->host ? s->now : s->host;
    s->sum.host_time = s->host;
    for (int i = 0; i < s->nlevels; i++)
        mem_finish(s->lv[i]); /* S lines; a multi-level log names the level on each line */
    return 0;
}

/* ---- the lean path ------------------------------------------------------------------------
 * Most events of a long trace are plain allocations and frees on an engine with nothing to do
 * besides them: no device-side work pending, no request waiting for frees, no observer, log,
 * timeline, checks or threshold-triggered defragmentation. sim_run hands those to lean_event,
 * which does what sim_event would do with its branches for everything else left out; anything
 * it does not take (it changes nothing then) goes to sim_event. Placements are identical either
 * way (the golden and oracle tests compare them). */

/* Whether this run's outputs and configuration let the lean path take events at all. */
static int lean_possible(const sim *s)
{
    if (s->obs || s->o.log || s->o.check || s->o.timeline)
        return 0;
    for (int i = 0; i < s->nlevels; i++) {
        const cfg_level *L = &s->cfg->levels[i];
        if (L->defrag.mode != CFG_DEFRAG_NONE && L->defrag.trigger != CFG_TRIGGER_ON_OOM)
            return 0; /* maybe_defrag counts allocations: sim_event's */
    }
    return 1;
}

/* A plain allocation: a new id, no recorded address, no donation. */
AM_ALWAYS_INLINE int lean_alloc(sim *s, const tr_event *ev)
{
    int level = ev->level;
    if ((unsigned)level >= (unsigned)s->nlevels || !ev->bytes || ev->has_donate ||
        ev->addr != TR_NO_ADDR)
        return 0;
    size_t pos = SIZE_MAX;
    if (idmap_find_at(&s->ids, ev->id, &pos))
        return 0; /* a duplicate, or an id that failed before: sim_event says which */
    uint64_t gen = s->ids.gen;
    if (s->now < s->host)
        s->now = s->host;
    s->sum.events++;
    alloc_req r = {ev->bytes, ev->stream, s->seq + 1};
    alloc_out o = {0, 0, 0};
    int rc = mem_alloc_attempt(s->lv[level], &r, &o);
    charge(s, level);
    alloc_tail(s, ev, level, &r, &o, rc, pos, gen);
    s->seq++;
    return 1;
}

/* A free of a live buffer (do_free's common case). */
AM_ALWAYS_INLINE int lean_free(sim *s, const tr_event *ev)
{
    size_t pos = SIZE_MAX;
    slot *x = idmap_find_at(&s->ids, ev->id, &pos);
    if (!x || x->state != ST_LIVE)
        return 0;
    uint64_t gen = s->ids.gen;
    if (s->now < s->host)
        s->now = s->host;
    s->sum.events++;
    int level = x->level;
    s->sum.frees++;
    mem_free(s->lv[level], x->handle, x->requested, x->given, 0);
    charge(s, level);
    pend_drop(s, x);
    live_leave(s, x);
    idmap_del_at(&s->ids, x, pos, gen);
    wake_waiters(s, level);
    s->seq++;
    return 1;
}

/* 1 when the event was taken whole; 0 when nothing changed and sim_event must take it. */
AM_ALWAYS_INLINE int lean_event(sim *s, const tr_event *ev)
{
    if (ev->time != AM_TIME_NONE || s->hn || s->inflight ||
        s->sum.retries > s->sum.retries_succeeded + s->sum.retries_failed)
        return 0;
    if (ev->kind == TR_ALLOC)
        return lean_alloc(s, ev);
    if (ev->kind == TR_FREE)
        return lean_free(s, ev);
    return 0;
}

/* ---- look-ahead ---------------------------------------------------------------------------
 * With a large population every operation misses the cache several times, one miss after the
 * other: the id's entry in the map's table, its slot, the policy's block record, the block's
 * address neighbours. The trace says which ids come next, so from LA_ON ids in the map on
 * (sim_opts lookahead_ids) sim_run reads LA_W events ahead into a ring and prefetches, as an
 * event moves toward the head, one more link of that chain per stage: the table entry when the
 * event is read (allocations too: they probe the table for the id's absence), the slot LA_SLOT
 * events before its turn, the block (mem_prefetch_free stage 0) LA_BLOCK events before, its
 * neighbours (stage 1) LA_NEXT before. Each stage looks the id up again in what is by then in
 * cache, so an id freed, spilled or moved in between is only not prefetched: the hints change
 * timing, never a result. Below half as many ids the ring is drained and events are read one at
 * a time again (where everything is in cache the ring would only cost). An event in the ring has
 * been followed by later reads, so its name (valid until the next trace_next) is gone; nothing
 * here reads names. */
enum { LA_W = 16, LA_SLOT = 11, LA_BLOCK = 7, LA_NEXT = 3, LA_ON = 1 << 12 };

/* The table entry and the slot stages are always in line: GCC takes a function that only
 * prefetches for one without side effects and drops the calls to it. */
AM_ALWAYS_INLINE void la_table(const sim *s, const tr_event *ev)
{
    if ((ev->kind == TR_ALLOC || ev->kind == TR_FREE) && s->ids.cap)
        __builtin_prefetch(&s->ids.t[id_hash(ev->id) & (s->ids.cap - 1)]);
}

AM_ALWAYS_INLINE void la_slot(const sim *s, const tr_event *ev)
{
    const idmap *m = &s->ids;
    if (ev->kind != TR_FREE || !m->cap)
        return;
    size_t h = id_hash(ev->id);
    for (size_t j = h & (m->cap - 1);; j = (j + 1) & (m->cap - 1)) {
        uint64_t e = m->t[j];
        if (!e)
            return;
        if ((uint32_t)(e >> 32) == (uint32_t)h) { /* the likely one: its tag matches */
            __builtin_prefetch(idmap_slot(m, e)); /* one line: the whole slot */
            return;
        }
    }
}

static inline void la_block(sim *s, const tr_event *ev, int stage)
{
    size_t pos;
    const slot *x;
    if (ev->kind == TR_FREE && (x = idmap_find_at(&s->ids, ev->id, &pos)) != NULL &&
        x->state == ST_LIVE)
        mem_prefetch_free(s->lv[x->level], x->handle, stage);
}

typedef struct runctx {
    const char *file;
    int may_validate, show, lean;
} runctx;

AM_ALWAYS_INLINE int run_one(sim *s, const tr_event *ev, const runctx *c, am_error *err)
{
    /* sim_event's first step: one comparison while the stream stays the one named last */
    if (streamset_check(&s->streams, ev, c->file, err) != 0)
        return -1;
    /* A native or binary trace is validated from the first thing it records that can be: an
     * allocation's address (not a prologue's), a recorded out-of-memory or a device call. */
    if (c->may_validate && !s->sum.validating &&
        ((ev->kind == TR_ALLOC && ev->addr != TR_NO_ADDR && ev->line) ||
         ev->kind == TR_OOM_RECORDED || seg_kind(ev)))
        s->sum.validating = 1;
    prologue_edge(s, ev); /* before the lean path, which takes the prologue's frees */
    if (c->lean && lean_event(s, ev)) {
        if (__builtin_expect(s->host >= AM_PS_MAX, 0)) /* only an allocator's latency moves it */
            return time_overflow(c->file, ev->line, 0, err);
    } else {
        if (event_in(s, ev, c->file, err) != 0)
            return -1;
        if (s->host >= AM_PS_MAX || s->now >= AM_PS_MAX)
            return time_overflow(c->file, ev->line, 0, err);
    }
    if (c->show && (s->seq & 0xFFFFF) == 0)
        am_progress("amsim: %" PRIu64 " events", s->seq);
    return 0;
}

/* Events through the ring until the trace ends (returns 0, *rc the reader's last result), the
 * population drops below half of lookahead_ids (returns 1, the ring drained: read one at a time
 * again) or an event fails (-1). A reader error waits until the events read before it have run,
 * as reading one at a time would have it. q (LA_W events) belongs to sim_run: every event the
 * reader fills lives as long as the run (trace_next's contract, trace.h). */
static AM_NOINLINE int run_ahead(sim *s, trace *t, tr_event *q, const runctx *c, am_error *err,
                                 int *rc)
{
    unsigned head = 0, tail = 0; /* next to run, next to fill (free-running counters) */
    int reading = 1;
    am_error rerr = {0};
    *rc = 1;
    for (;;) {
        while (reading && tail - head < LA_W) {
            tr_event *e = &q[tail % LA_W];
            *rc = trace_next(t, e, &rerr);
            if (*rc != 1) {
                reading = 0;
                break;
            }
            la_table(s, e);
            tail++;
        }
        if (head == tail)
            break;
        unsigned n = tail - head;
        if (n > LA_SLOT)
            la_slot(s, &q[(head + LA_SLOT) % LA_W]);
        if (n > LA_BLOCK)
            la_block(s, &q[(head + LA_BLOCK) % LA_W], 0);
        if (n > LA_NEXT)
            la_block(s, &q[(head + LA_NEXT) % LA_W], 1);
        if (run_one(s, &q[head % LA_W], c, err) != 0)
            return -1;
        head++;
        s->sum.read_ahead++;
        if (reading && s->ids.n < s->o.lookahead_ids / 2)
            reading = 0; /* *rc stays 1: the trace goes on */
    }
    if (*rc == 1)
        return 1;
    if (*rc < 0)
        *err = rerr;
    return 0;
}

int sim_run(sim *s, trace *t, am_error *err)
{
    tr_event ev, q[LA_W];
    int rc;
    s->sum.validating = trace_validated(t); /* a snapshot, or one converted from it */
    /* a trace that can record addresses (a native trace's addr=, a CSV's offsets) too:
     * run_one starts validating at its first recorded address, oom or device call */
    const runctx c = {trace_path(t), trace_records_addrs(t),
                      s->o.progress && isatty(2), lean_possible(s)};
    const size_t ahead_from = s->o.lookahead_ids;
    s->file = c.file;
    for (;;) {
        while ((rc = trace_next(t, &ev, err)) == 1) {
            if (run_one(s, &ev, &c, err) != 0) {
                rc = -1;
                break;
            }
            if (s->ids.n >= ahead_from)
                break;
        }
        if (rc != 1)
            break;
        int r = run_ahead(s, t, q, &c, err, &rc);
        if (r < 0)
            rc = -1;
        if (r <= 0)
            break;
    }
    am_progress_clear(); /* before the error main prints, or the report */
    if (rc < 0)
        return -1;
    return sim_finish(s, err);
}

/* ---- life cycle and results -------------------------------------------------------------- */

static void on_device(void *ctx, int alloc, uint64_t addr, uint64_t bytes)
{
    devctx *d = ctx;
    seg_device(d->s, d->level, alloc, addr, bytes);
    const sim_observer *obs = d->s->obs;
    if (obs && obs->device)
        obs->device(obs->ctx, d->s->host, d->level, alloc, addr, bytes);
}

int sim_level_error_at(const am_config *cfg, int level, am_error *err)
{
    const cfg_level *L = &cfg->levels[level];
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    /* the user's setting the error names (cfg_setting_at), else the level's */
    const char *keys = err->opts;
    const cfg_node *at = cfg_setting_at(cfg, L, keys);
    if (err->status == AM_EINPUT && at && at->line && at->file)
        am_fail_at(err, at->file, at->line, at->col, "memory level '%s': %s", L->name, msg);
    else if (err->status == AM_EINPUT && at && cfg_is_override_origin(at->file))
        am_fail(err, AM_EINPUT, "%s: memory level '%s': %s", at->file, L->name, msg);
    else
        am_fail(err, err->status, "%s: memory level '%s': %s", cfg->path, L->name, msg);
    err->keys = keys; /* what was refused, wherever the message points (am_error.keys) */
    return -1;
}

int sim_create(sim **out, const am_config *cfg, const sim_opts *o, am_error *err)
{
    sim *s = am_calloc(1, sizeof *s);
    evtab_init(&s->ev, 1);
    s->in_use = TR_NO_ID;
    s->cfg = cfg;
    s->o = *o;
    if (!s->o.lookahead_ids)
        s->o.lookahead_ids = LA_ON;
    s->obs = o->observer;
    s->seg.last = UINT64_MAX;
    if (o->placements)
        s->pbuf = am_malloc(PBUF);
    s->nlevels = cfg->nlevels;
    for (int i = 0; i < cfg->nlevels; i++) {
        const cfg_level *L = &cfg->levels[i];
        int rec = L->policy->recorded_addresses && L->policy->recorded_addresses(L->policy_opts);
        s->dctx[i] = (devctx){s, i};
        s->name_len[i] = strlen(L->name);
        s->lat[i] = L->policy->take_latency != NULL;
        mem_params p = {L->name, L->kind, L->capacity, L->granularity, L->policy,
                        L->policy_opts, rec, o->log, on_device, &s->dctx[i], s->nlevels > 1,
                        L->pad_requests_to};
        if (mem_create(&s->lv[i], &p, err) != 0) {
            sim_level_error_at(cfg, i, err);
            sim_destroy(s);
            return -1;
        }
    }
    for (int i = 0; i < cfg->nlevels; i++) {
        const cfg_level *L = &cfg->levels[i];
        if (L->policy->retry_after_free)
            s->rt[i].retry = L->policy->retry_after_free(L->policy_opts, &s->rt[i].retry_wait);
        s->waits |= s->rt[i].retry;
        s->rt[i].relocatable = L->policy->set_plan == NULL;
        s->track |= L->on_oom == CFG_ON_OOM_SPILL || L->defrag.mode != CFG_DEFRAG_NONE;
        s->rt[i].counted_defrag =
            L->defrag.mode != CFG_DEFRAG_NONE && L->defrag.trigger != CFG_TRIGGER_ON_OOM;
    }
    for (int i = 0; i < cfg->nlinks; i++) {
        const cfg_link *L = &cfg->links[i];
        uint64_t bw, den;
        link_rate(L, &bw, &den);
        for (int d = 0; d < (L->from != L->to ? 2 : 1); d++) {
            chan *c = &s->ch[s->nch++];
            c->link = i;
            c->dir = d;
            c->owner = d == 0 || L->duplex;
            c->side = L->duplex ? 0 : d;
            c->bw = bw;
            c->den = den;
            c->granule = cfg->levels[L->from].transfer_granule;
            if (cfg->levels[L->to].transfer_granule > c->granule)
                c->granule = cfg->levels[L->to].transfer_granule;
            c->l = c->owner ? link_create_rate(bw, den, L->latency, L->concurrency) : c[-1].l;
            if (d == 1 && c->owner) /* a duplex link's second channel: one busy time for both */
                link_pair(c[-1].l, c->l);
        }
    }
    if (o->placements) /* the contract's header; the name column only when asked for */
        fputs(o->placements_names ? "seq,id,level,address,requested,allocated,status,name\n"
                                  : "seq,id,level,address,requested,allocated,status\n",
              o->placements);
    if (o->timeline)
        fputs("time_ps,seq,level,live_bytes,allocated_bytes,reserved_bytes\n", o->timeline);
    *out = s;
    return 0;
}

void sim_destroy(sim *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->nlevels; i++) {
        mem_destroy(s->lv[i]);
        free(s->rt[i].pbase);
        free(s->rt[i].live);
    }
    for (int i = 0; i < s->nch; i++)
        if (s->ch[i].owner)
            link_destroy(s->ch[i].l);
    for (size_t i = 0; i < s->nst; i++) {
        free(s->st[i].q);
        for (size_t j = s->st[i].nhead; j < s->st[i].nnames; j++)
            free(s->st[i].names[j]);
        free(s->st[i].names);
    }
    free(s->st);
    for (size_t i = 0; i < s->nnotes; i++)
        free(s->notes[i].name);
    free(s->notes);
    evtab_free(&s->ev);
    free(s->heap);
    idmap_free(&s->ids);
    for (size_t i = 0; i < s->nooms; i++)
        free(s->ooms[i].name);
    free(s->ooms);
    for (uint32_t i = 0; i < s->nnames; i++)
        free(s->names[i].s);
    free(s->names);
    free(s->pbuf);
    free(s->lru);
    free(s->pend);
    free(s->lpos);
    free(s->seg.log);
    free(s->seg.wait);
    free(s);
}

int sim_nlevels(const sim *s) { return s->nlevels; }

size_t sim_live_buffers(const sim *s, int level)
{
    return s->track && level >= 0 && level < s->nlevels ? s->rt[level].nlive : 0;
}

am_ps sim_host_time(const sim *s) { return s->host; }
int sim_expiring_after_placement(const sim *s) { return s->expiring && s->placed_unsettled; }
int sim_expiring(const sim *s) { return s->expiring; }
mem_level *sim_level(const sim *s, int i) { return s->lv[i]; }
const am_config *sim_config(const sim *s) { return s->cfg; }
const sim_summary *sim_get_summary(const sim *s) { return &s->sum; }

size_t sim_ooms(const sim *s, const sim_oom **list)
{
    *list = s->ooms;
    return s->nooms;
}

int sim_links(const sim *s, sim_link_result *out, int max)
{
    int n = 0;
    for (int i = 0; i < s->nch && n < max; i++) {
        const cfg_link *L = &s->cfg->links[s->ch[i].link];
        int shared = !L->duplex && L->from != L->to;
        const link_stats *all = link_get_stats(s->ch[i].l);
        out[n++] = (sim_link_result){L->name, L->from, L->to, s->ch[i].dir,
                                     shared ? link_get_side_stats(s->ch[i].l, s->ch[i].side) : all,
                                     s->ch[i].link, shared, all, link_busy_either(s->ch[i].l),
                                     link_busy_either_all(s->ch[i].l)};
    }
    return n;
}
