/* convert.c - `amsim convert IN -o OUT [--to native|csv|binary]`.
 *
 * Reads any supported trace (native, lifetime CSV, PyTorch snapshot; gzip-compressed or not)
 * through the trace API and writes:
 *   native  every event as one line (trace_write.c): replaying the output gives the same run as
 *           replaying the input (same placements, same validation against recorded addresses:
 *           recorded addresses become addr=, segment declarations declared=1, times at= in ps);
 *   csv     a lifetime CSV `id,lower,upper,size[,offset]` of the allocations of the default
 *           memory level only: lower = index of the event that allocated the buffer (an alloc,
 *           or a transfer whose into= allocates on the default level, unless the config's
 *           transfer guard rejects that transfer), upper = index of the event that returned the
 *           memory (free or free_completed; free_requested does not) or gave the buffer away (a
 *           donation the engine matches: alloc ... donate=ID of a live, not free_requested
 *           buffer of the same level and requested size ends ID's lifetime where the output's
 *           begins), both counted over all events of the input from 0, so the lifetime is
 *           half-open [lower, upper) in event-index units (under the config's
 *           trace.lifetimes: inclusive, [lower, upper - 1], which its reader reads back as the
 *           same lifetime: cv_csv_upper); a buffer never freed has an empty upper, which the
 *           CSV reader reads as never freed (stderr counts them; until 2026-11-27 they ended at
 *           the number of events, in silence). A buffer the start-state prologue leaves live
 *           becomes an ordinary row (a CSV has no start state): the offset column is then left
 *           out, as a run of the CSV would validate it (until 2026-11-28 it was written), and
 *           stderr says so. Indices are unique but for a donation's two rows, so the CSV
 *           replay order (by time, frees first at equal time) is the input's order of
 *           allocations and frees. Everything else (copies, compute, streams, timestamps, other
 *           levels, segment and oom records) does not survive; what was dropped is printed on
 *           stderr. Peak live bytes on the default level must come out as in the trace (as the
 *           engine counts them, before any out-of-memory event or spilling): a two-phase free
 *           with allocations between its phases can raise the CSV's, and then the conversion is
 *           refused, and so is a trace whose recorded oom, served, would raise the peak (the
 *           engine counts a served oom as an allocation for its instant; a CSV has no empty
 *           lifetimes) (until 2026-11-25 a donor lived to the end of the trace and a transfer's
 *           into= buffer was dropped, both in silence). The offset column is written when
 *           every row has a recorded address (a CSV has no empty offsets); when only some have,
 *           stderr says how many addresses were left out and where the first buffer without one
 *           was allocated (until 2026-11-27 they were left out in silence). Ids are kept unless
 *           the input reuses an id after its free (a CSV needs unique ids): then rows are
 *           numbered from 0.
 *           A snapshot's start-state prologue (line 0) takes no peak until it is over, as in
 *           the engine, and the buffers it allocates and frees again (its tiling of blocks free
 *           at the start) get no row (until 2026-11-25 both counted: the CSV of a snapshot
 *           peaked at its reserved bytes).
 *           A trace that run refuses for its ids or events (an id allocated while live, on any
 *           level; an allocation of 0 bytes; a free, free_requested or use of an id not live; a
 *           second free_requested; a wait on an event never recorded) is refused with run's
 *           message at the same line and column, nothing written (until 2026-11-27 the CSV
 *           was written: a duplicate id became two rows, an unknown free was dropped, a 0-byte
 *           allocation became a row the CSV reader skips).
 * Every form carries the rows the input skipped (trace_skipped: native header skipped=N, the
 * binary header's count, a CSV's "# amsim skipped=N" line), so that its run reports them as the
 * input's did (until 2026-11-27 they were dropped: "0 rows skipped"). The native and binary
 * forms of a snapshot say that it is validated from its start (trace_validated: header
 * validated=1, binary flag), so that its run reports the snapshot's validation even when no
 * allocation outside the prologue recorded an address (until 2026-11-27 it reported none).
 * Level names come from the config (-c; default: cfg_load_builtin's, every level name of the
 * shipped device presets, default hbm). An event that named no level is written without one
 * (native: no level=; binary: the default-memory LEVEL index), so that the output runs on the
 * default_memory of the config that replays it, as the input does (until 2026-11-28 the
 * converting config's default was named, hbm without -c). */
#include "convert.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "config.h"
#include "engine.h"
#include "evtab.h"
#include "../models/ordset.h"
#include "outfile.h"
#include "run.h"
#include "streamset.h"
#include "trace.h"
#include "trace_bin.h"
#include "trace_write.h"
#include "units.h"

/* as many --set options as run and compare take (until 2026-11-27 convert took 64) */
#define CV_MAX_SETS RUN_MAX_SETS

static void cv_usage(FILE *f)
{
    fprintf(f,
            "usage: amsim convert IN -o OUT [options]\n"
            "  IN                  trace: native, binary, lifetime CSV or PyTorch snapshot (by\n"
            "                      content; gzip-compressed is fine)\n"
            "  -o, --out FILE      output (\"-\": standard output); written atomically\n"
            "  --to native|csv     output format (default native). csv: lifetime CSV of the\n"
            "                      default level's allocations (transfers' into= included) and\n"
            "                      frees only, lifetimes in event-index units [lower, upper)\n"
            "                      ([lower, upper] under the config's trace.lifetimes:\n"
            "                      inclusive), a donation ending the donor where its output\n"
            "                      begins, an empty upper for a buffer never freed; refused\n"
            "                      when a tick is past 2^64 - 3 ps at the config's time unit,\n"
            "                      when the CSV's peak live bytes would differ from the trace's\n"
            "                      (a recorded oom counts as served: an allocation for its\n"
            "                      instant, which a CSV cannot hold), and when run refuses\n"
            "                      the trace's ids or events (a duplicate live id, a 0-byte\n"
            "                      allocation, an unknown free, ...) with run's message\n"
            "  --to binary         the compact binary form (traces/FORMAT.md, \"Binary format\n"
            "                      v1\"): every event, read several times faster\n"
            "  -c, --config FILE   config whose memory level names the trace uses (default: a\n"
            "                      built-in one with the device presets' levels: hbm, host,\n"
            "                      vmem, smem, accumulator, host_pageable, cmem)\n"
            "  --set PATH=VALUE    config override (repeatable), e.g. trace.time_unit=1us for\n"
            "                      the tick of an input lifetime CSV\n"
            "  --device N          PyTorch snapshot: which device's trace (default 0)\n");
}

/* An allocation of the trace, on any level: those of other levels than the default one are
 * followed for the engine's rules on ids (cv_rules) and get no row in the output. */
typedef struct cv_row {
    uint64_t id, lower, upper, size, addr;
    unsigned long line; /* of the allocating event (the engine's "still allocated (line L)") */
    unsigned long col;
    int level;
    int requested; /* free_requested seen: no longer live for the engine, memory not back yet */
    int filler;    /* allocated and freed by the start-state prologue: not written */
    int unallocated; /* the into= of a transfer the guard rejects: an id the engine knows as
                        not allocated (its free is skipped), no buffer, level -1 */
    uint64_t seq;    /* a default-level row's place among them (its place in the CSV) */
    int into_level;  /* unallocated: the level its transfer would have allocated on (DST), which
                        the engine keeps for it (a to= naming it is checked against it) */
} cv_row;

/* Open slots by buffer id: a small open-addressing map id -> row index + 1. */
typedef struct cv_map {
    uint64_t *key;
    size_t *val, cap, n;
} cv_map;

static size_t cv_hash(uint64_t k, size_t cap)
{
    return (size_t)(k * 0x9E3779B97F4A7C15ULL) & (cap - 1);
}

static void cv_put(cv_map *m, uint64_t k, size_t v);

static void cv_grow(cv_map *m)
{
    cv_map old = *m;
    m->cap = old.cap ? old.cap * 2 : 1024;
    m->key = am_calloc(m->cap, sizeof *m->key);
    m->val = am_calloc(m->cap, sizeof *m->val);
    m->n = 0;
    for (size_t i = 0; i < old.cap; i++)
        if (old.val[i])
            cv_put(m, old.key[i], old.val[i]);
    free(old.key);
    free(old.val);
}

/* v == 0 deletes (tombstones are avoided by re-inserting the cluster). */
static void cv_put(cv_map *m, uint64_t k, size_t v)
{
    if ((m->n + 1) * 2 > m->cap)
        cv_grow(m);
    size_t i = cv_hash(k, m->cap);
    while (m->val[i] && m->key[i] != k)
        i = (i + 1) & (m->cap - 1);
    if (v) {
        if (!m->val[i])
            m->n++;
        m->key[i] = k;
        m->val[i] = v;
        return;
    }
    if (!m->val[i])
        return;
    m->val[i] = 0;
    m->n--;
    for (size_t j = (i + 1) & (m->cap - 1); m->val[j]; j = (j + 1) & (m->cap - 1)) {
        uint64_t kk = m->key[j];
        size_t vv = m->val[j];
        m->val[j] = 0;
        m->n--;
        cv_put(m, kk, vv);
    }
}

static size_t cv_get(const cv_map *m, uint64_t k)
{
    if (!m->cap)
        return 0;
    for (size_t i = cv_hash(k, m->cap); m->val[i]; i = (i + 1) & (m->cap - 1))
        if (m->key[i] == k)
            return m->val[i];
    return 0;
}

/* A lifetime CSV row as spilled to the scratch file: fixed size, at offset seq * its size. */
typedef struct cv_rec {
    uint64_t id, lower, upper, size, addr, line, col, filler;
} cv_rec;

/* The ids of the default level's rows so far, as disjoint intervals [k1, val] of an ordered set:
 * a trace's ids mostly run in sequence, so this stays a few nodes where a set of every id grew
 * with the allocations (it only tells whether an id comes back after its free). */
typedef struct cv_idset {
    os_tree t;
} cv_idset;

/* Add id; returns 1 when it was there already. */
static int cv_idset_add(cv_idset *s, uint64_t id)
{
    s->t.no_aug = 1; /* no first fit here; vals change in place */
    os_node *lo = os_floor(&s->t, id, 0), *hi;
    if (lo && lo->val >= id)
        return 1;
    hi = lo ? os_next(lo) : os_first(&s->t);
    int joins_lo = lo && lo->val == id - 1, joins_hi = hi && id != UINT64_MAX && hi->k1 == id + 1;
    if (joins_lo && joins_hi) { /* id fills the gap between two intervals: one interval */
        lo->val = hi->val;
        os_remove(&s->t, hi);
        free(hi);
    } else if (joins_lo) {
        lo->val = id;
    } else if (joins_hi) {
        os_rekey_in_place(hi, id, 0); /* still between its neighbours */
    } else {
        os_node *x = am_calloc(1, sizeof *x);
        x->k1 = id;
        x->val = id;
        os_insert(&s->t, x);
    }
    return 0;
}

/* Every node freed in one walk (os_free_nodes: O(n); until 2026-11-28 the root was removed
 * again and again, each removal rotating it down to a leaf: 5.9 s for 3.2M ids that never ran
 * in sequence). */
static void cv_idset_free(cv_idset *s)
{
    os_free_nodes(&s->t);
    s->t = (os_tree){0};
}

/* The ids live now (every level) and their rows. Memory follows the live buffers, not the
 * events: a row's slot is taken again once its id is no longer live, and a lifetime CSV's
 * finished rows go to a scratch file (spill) at their place in allocation order (until
 * 2026-11-27 every allocation of the trace kept its row in memory, 80 bytes each: amsim check
 * and convert --to csv of 1M alloc/free pairs of one id took 75 MB). */
typedef struct cv_rows {
    cv_row *r;
    size_t n, cap;   /* slots in use or free, allocated */
    size_t *freed;   /* slots free for the next row */
    size_t nfreed, freedcap;
    cv_map live;     /* id -> slot in r + 1, while the engine holds the id */
    cv_idset seen;   /* ids of the default level's rows so far (spill only) */
    int deflevel;
    int reused;      /* a default-level id allocated again after its free: renumber */
    streamset streams; /* the distinct streams named so far, limited as the engine limits them */
    FILE *spill;     /* lifetime CSV: the default level's rows by seq, or NULL (check) */
    uint64_t nseq;   /* default-level rows so far */
    uint64_t spill_at; /* the seq of the row at spill's position */
    int spill_err;   /* a write to spill failed (errno) */
    /* the spilled rows that the CSV writes (not a prologue's fillers), counted as they are
     * spilled: with a recorded address and without; the first without in allocation order */
    uint64_t with_addr, without;
    cv_rec first_without;
    uint64_t first_without_seq;
    /* of them, the start state's (allocated by the prologue, line 0, and not freed by it): a
     * CSV has no start state, so they become ordinary rows, and an offset on them would be
     * validated where the trace's run does not validate them */
    uint64_t start_rows;
} cv_rows;

/* What the last pass held at most (convert_last_held). */
static size_t cv_held_slots, cv_held_ranges;

void convert_last_held(size_t *row_slots, size_t *id_ranges)
{
    *row_slots = cv_held_slots;
    *id_ranges = cv_held_ranges;
}

/* Free the rows, the id maps and the event map `ev` of one pass. */
static void cv_rows_free(cv_rows *c, evtab *ev)
{
    cv_held_slots = c->n;
    cv_held_ranges = c->seen.t.n;
    free(c->r);
    free(c->freed);
    free(c->live.key);
    free(c->live.val);
    cv_idset_free(&c->seen);
    if (c->spill)
        fclose(c->spill);
    evtab_free(ev);
}

/* The row of a live id, or NULL. */
static cv_row *cv_live(cv_rows *c, uint64_t id)
{
    size_t k = cv_get(&c->live, id);
    return k ? &c->r[k - 1] : NULL;
}

/* Count row x as the CSV will write it (a filler it does not): each row is spilled once, so
 * this is what reading the spill back would count, without reading it. */
static void cv_count(cv_rows *c, const cv_row *x, const cv_rec *rec)
{
    if (x->filler)
        return;
    if (x->line == 0)
        c->start_rows++;
    if (x->addr != TR_NO_ADDR) {
        c->with_addr++;
    } else if (!c->without++ || x->seq < c->first_without_seq) {
        c->first_without = *rec;
        c->first_without_seq = x->seq;
    }
}

/* Write row x (default level) to its place in the spill, upper as it is now. */
static void cv_spill(cv_rows *c, const cv_row *x)
{
    cv_rec rec = {x->id,   x->lower, x->upper, x->size,
                  x->addr, x->line,  x->col,   (uint64_t)x->filler};
    cv_count(c, x, &rec);
    if (c->spill_err)
        return;
    /* rows mostly finish in the order they began: a seek (which flushes the stream's buffer)
     * only when this one is not next to the last written */
    if (x->seq != c->spill_at && fseeko(c->spill, (off_t)(x->seq * sizeof rec), SEEK_SET) != 0)
        c->spill_err = errno ? errno : EIO;
    else if (fwrite(&rec, sizeof rec, 1, c->spill) != 1)
        c->spill_err = errno ? errno : EIO;
    c->spill_at = x->seq + 1;
}

/* Row x's id is no longer live: its row is final (spilled when it is a CSV row) and its slot
 * free for another. */
static void cv_retire(cv_rows *c, cv_row *x, uint64_t id)
{
    if (c->spill && x->level == c->deflevel)
        cv_spill(c, x);
    cv_put(&c->live, id, 0);
    if (c->nfreed == c->freedcap)
        c->freed = am_realloc(c->freed, (c->freedcap = c->freedcap ? c->freedcap * 2 : 64) *
                                            sizeof *c->freed);
    c->freed[c->nfreed++] = (size_t)(x - c->r);
}

/* A row for an allocation of `bytes` to buffer `id` on `level` by event ev at index i (an
 * alloc line, or the into= allocation of a transfer). An id still live here is one known as
 * not allocated (cv_rules refuses any other): its row goes. */
static cv_row *cv_add(cv_rows *c, const tr_event *ev, uint64_t id, int level, uint64_t i,
                      uint64_t bytes, uint64_t addr)
{
    cv_row *old = cv_live(c, id);
    if (old)
        cv_retire(c, old, id);
    size_t k;
    if (c->nfreed) {
        k = c->freed[--c->nfreed];
    } else {
        if (c->n == c->cap)
            c->r = am_realloc(c->r, (c->cap = c->cap ? c->cap * 2 : 1024) * sizeof *c->r);
        k = c->n++;
    }
    c->r[k] = (cv_row){id, i, UINT64_MAX, bytes, addr, ev->line, ev->col, level, 0, 0, 0, 0, -1};
    if (level == c->deflevel && c->spill) {
        c->r[k].seq = c->nseq++;
        if (cv_idset_add(&c->seen, id))
            c->reused = 1;
    }
    cv_put(&c->live, id, k + 1);
    return &c->r[k];
}

/* The into= id of a transfer the guard rejects: known to the engine as not allocated (as one
 * whose allocation ran out of memory), so that its free is skipped, not an unknown id's. */
static void cv_add_unallocated(cv_rows *c, const tr_event *ev, uint64_t i)
{
    cv_row *x = cv_add(c, ev, ev->into, -1, i, 0, TR_NO_ADDR);
    x->unallocated = 1;
    x->into_level = ev->dst_level;
}

/* The rules on ids and events that the engine enforces as it replays a trace (engine.c:
 * do_alloc, do_free, use (a transfer's id= and to= too, its to= on DST), wait;
 * traces/FORMAT.md, "Rules the engine enforces"), with the engine's messages at the event's line and column: a CSV of a trace that
 * run refuses would be a valid trace of something else (until 2026-11-27 a duplicate id became
 * two rows, an unknown free was dropped and a 0-byte allocation became a row the CSV reader
 * skips, all in silence; and a transfer's unknown id= was accepted). As if every allocation
 * were served (a run can let an id whose allocation ran out of memory be allocated again).
 * `allocates`: a transfer's into= allocates (the guard passes it); when it does not, its id
 * must not be live either, and becomes known as not allocated (engine.c, into_skipped): its
 * frees and uses are no errors, and it may be allocated again. The rules that depend on the
 * run's config (links between levels) are left to the run. *skippable (when not NULL) is set to
 * 1 on a problem run --lenient counts and skips (warn_or_fail in engine.c), 0 on one it refuses
 * too. An operation queued on a stream past SIM_MAX_STREAMS is refused as the engine refuses it
 * (until 2026-11-27 amsim check passed it), and so is an event naming a stream past
 * SIM_MAX_TRACE_STREAMS distinct ones (streamset.h; until 2026-11-27 there was no such limit). */
static int cv_rules(cv_rows *c, evtab *events, const tr_event *ev, int allocates,
                    const am_config *cfg, const char *in, am_error *err, int *skippable)
{
    const cv_row *x;
    uint64_t id = ev->kind == TR_TRANSFER ? ev->into : ev->id;
    int skip_dummy;
    if (!skippable)
        skippable = &skip_dummy;
    *skippable = 0;
    if ((ev->kind == TR_TRANSFER || ev->kind == TR_COMPUTE || ev->kind == TR_RECORD ||
         ev->kind == TR_WAIT) && ev->stream >= SIM_MAX_STREAMS)
        return am_fail_at(err, in, ev->line, ev->col, "stream %u out of range for a queued "
                          "operation (streams 0 to %d)", ev->stream, SIM_MAX_STREAMS - 1);
    if (streamset_check(&c->streams, ev, in, err) != 0) /* a limit: --lenient refuses it too */
        return -1;
    *skippable = 1;
    switch (ev->kind) {
    case TR_ALLOC:
    case TR_TRANSFER: /* its destination buffer's allocation, or its id taken unallocated */
        if (ev->kind == TR_TRANSFER && ev->id != TR_NO_ID && !cv_live(c, ev->id))
            return am_fail_at(err, in, ev->line, ev->col, "use of unknown id %" PRIu64, ev->id);
        if (ev->kind == TR_TRANSFER && ev->has_to) {
            if (!(x = cv_live(c, ev->to))) /* to= is a use too */
                return am_fail_at(err, in, ev->line, ev->col, "use of unknown id %" PRIu64,
                                  ev->to);
            /* and a destination on DST, as the engine checks it */
            char why[320];
            if (sim_to_mismatch(cfg, ev, x->unallocated ? x->into_level : x->level, x->line,
                                why, sizeof why))
                return am_fail_at(err, in, ev->line, ev->col, "%s", why);
        }
        if (ev->kind == TR_TRANSFER && !ev->has_into)
            return 0;
        if (ev->bytes == 0 && (ev->kind == TR_ALLOC || allocates))
            return am_fail_at(err, in, ev->line, ev->col, "allocation of 0 bytes for id %" PRIu64,
                              id);
        *skippable = 0;
        if ((x = cv_live(c, id)) && !x->unallocated)
            return am_fail_at(err, in, ev->line, ev->col,
                              "duplicate id %" PRIu64 ": still allocated (line %lu)", id, x->line);
        return 0;
    case TR_FREE:
    case TR_FREE_REQUESTED:
    case TR_FREE_COMPLETED:
        if (!(x = cv_live(c, id)))
            return am_fail_at(err, in, ev->line, ev->col, "free of unknown id %" PRIu64, id);
        if (ev->kind == TR_FREE_REQUESTED && x->requested && !x->unallocated)
            return am_fail_at(err, in, ev->line, ev->col, "second free request of id %" PRIu64,
                              id);
        if (ev->kind == TR_FREE_COMPLETED && !x->requested && !x->unallocated)
            return am_fail_at(err, in, ev->line, ev->col,
                              "free_completed without a free_requested of id %" PRIu64, id);
        return 0;
    case TR_USE:
        if (!cv_live(c, id))
            return am_fail_at(err, in, ev->line, ev->col, "use of unknown id %" PRIu64, id);
        return 0;
    case TR_OOM_RECORDED: /* refused as a 0-byte alloc is (engine.c, until 2026-11-27 passed) */
        if (ev->bytes == 0)
            return am_fail_at(err, in, ev->line, ev->col, "oom of 0 bytes");
        return 0;
    case TR_RECORD:
        evtab_put(events, ev->arg, 0); /* a set: a wait asks only whether it was recorded */
        return 0;
    case TR_WAIT:
        *skippable = 0;
        if (!evtab_get(events, ev->arg, NULL))
            return am_fail_at(err, in, ev->line, ev->col,
                              "wait on event %" PRIu64 ", which was never recorded", ev->arg);
        return 0;
    default:
        return 0;
    }
}

/* The events a lifetime CSV drops, by their native op names: " (216 segment_alloc, 3 compute)"
 * into buf (empty when none); returns their number. Until 2026-11-27 the summary said "other
 * events (copies, compute, streams, records)" whatever they were (a snapshot's were all
 * declared segment_alloc lines). */
static uint64_t cv_dropped_list(const uint64_t *dropped, char *buf, size_t n)
{
    uint64_t total = 0;
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i <= TR_KIND_LAST; i++) {
        if (!dropped[i])
            continue;
        const char *op = tw_op_name(i); /* the trace writer's names; none for index 0 */
        int w = snprintf(buf + k, n - k, "%s%" PRIu64 " %s", total ? ", " : " (", dropped[i],
                         op ? op : "other");
        if (w > 0 && (size_t)w < n - k)
            k += (size_t)w;
        total += dropped[i];
    }
    if (total && k + 1 < n) {
        buf[k++] = ')';
        buf[k] = 0;
    }
    return total;
}
/* The rows still live at the end go to the spill as they are (upper UINT64_MAX: never freed,
 * an empty upper), after which it holds every default-level row; fails on a write error, which
 * is out's (status 1, as a full disk or `ulimit -f` is for the output itself: the spill is how
 * out's rows are written; until 2026-11-27 status 2, "writing the lifetime CSV's rows to a
 * scratch file", naming the input). */
static int cv_spill_rest(cv_rows *c, const outfile *out, am_error *err)
{
    for (size_t k = 0; k < c->live.cap; k++) {
        const cv_row *x = c->live.val[k] ? &c->r[c->live.val[k] - 1] : NULL;
        if (x && x->level == c->deflevel)
            cv_spill(c, x);
    }
    if (!c->spill_err && fflush(c->spill) != 0)
        c->spill_err = errno ? errno : EIO;
    if (c->spill_err)
        return out_write_error(out, c->spill_err, "writing its rows to a scratch file", err);
    return 0;
}

/* The upper a row is written with, in the lifetimes convention of the config (incl: inclusive):
 * the CSV reads it back as [lower, upper) of the trace's event indices, so that the peak followed
 * below (csv_live) is the one the CSV's run gives. Half-open: the index of the event that ended
 * the buffer; inclusive: that index - 1, the last event at which it is live, which a reader
 * under `trace.lifetimes: inclusive` reads as index - 1 + 1 (until 2026-11-27 the half-open
 * value was written whatever the config: each buffer read back one event longer, and a donor
 * overlapped its output). A lifetime that inclusive ticks cannot express (an empty one, upper
 * <= lower) is refused, not written as one event long. */
static int cv_csv_upper(const cv_rec *x, int incl, uint64_t *upper, const char *in,
                        am_error *err)
{
    uint64_t end = x->upper;
    if (incl && end <= x->lower)
        return am_fail(err, AM_EINPUT, "%s: a lifetime CSV with inclusive lifetimes (the "
                       "config's trace.lifetimes) cannot hold buffer %" PRIu64 ": it ends at "
                       "event %" PRIu64 ", where it begins, and an inclusive row is at least "
                       "one tick long; convert without trace.lifetimes: inclusive", in, x->id,
                       end);
    *upper = end - (incl ? 1 : 0);
    return 0;
}

/* The ticks of a row as its reader will time them (lower, and the event index its upper reads
 * back as; an empty upper has none) must be times at unit ps per tick, at most 2^64 - 3 ps as
 * every CSV tick: a row past that is refused here, not written into a CSV that no run reads
 * (until 2026-11-27 it was written). */
static int cv_csv_ticks(const cv_rec *x, am_ps unit, const char *in, am_error *err)
{
    uint64_t last = x->upper != UINT64_MAX ? x->upper : x->lower; /* upper > lower */
    if (last <= TR_TIME_MAX / unit)
        return 0;
    return am_fail(err, AM_EINPUT, "%s: a lifetime CSV at %" PRIu64 " ps per tick (the "
                   "config's trace.time_unit) cannot hold buffer %" PRIu64 ": its %s, event %"
                   PRIu64 ", is past 2^64 - 3 ps (the most a run can time); convert with a "
                   "smaller trace.time_unit, or to the native format", in, (uint64_t)unit,
                   x->id, x->upper != UINT64_MAX ? "end" : "start", last);
}

/* The lifetime CSV of a trace (see the file comment), written to o. Live bytes are followed
 * twice, as the engine counts them for the trace (an allocation adds, free_requested or free
 * subtracts, a donation moves them) and as a replay of the CSV will (a row from lower to
 * upper); the CSV is refused when their peaks differ. The summary of what was written goes to
 * notes, which the caller prints once o is committed: a conversion whose output then fails to
 * write has written nothing (until 2026-11-27 the summary went to stderr here, so `-o
 * /dev/full` reported "1 buffer written" and then the write error). */
static int cv_to_csv(trace *t, outfile *o, const am_config *cfg, const char *in, FILE *notes,
                     am_error *err)
{
    FILE *out = out_fp(o);
    int deflevel = cfg->default_level, incl = cfg->trace.lifetimes_inclusive;
    am_ps unit = cfg->trace.time_unit ? cfg->trace.time_unit : AM_PS_PER_NS; /* as the reader */
    cv_rows c = {.deflevel = deflevel, .spill = tmpfile()};
    evtab events; /* event ids recorded so far (a wait needs one) */
    evtab_init(&events, 0);
    uint64_t idx = 0, other_level = 0, donations = 0, intos = 0;
    uint64_t dropped[TR_KIND_LAST + 1] = {0}; /* events of each kind that give no row */
    /* live bytes and peaks in 128 bits: four 4 EiB buffers and one more byte pass 2^64 (until
     * 2026-11-27 the sum wrapped, and the peak live printed was 1 byte) */
    am_u128 tr_live = 0, tr_peak = 0, csv_live = 0, csv_peak = 0;
    uint64_t requested = 0;
    /* the trace's peak with its recorded ooms served (each an allocation for its instant, as
     * the engine counts one it can serve): a CSV skips empty lifetimes, so it cannot hold one */
    am_u128 oom_peak = 0;
    uint64_t oom_bytes = 0;
    char n1[48], n2[48]; /* the peaks in decimal */
    unsigned long csv_peak_line = 0, oom_line = 0;
    int r;
    /* a start-state prologue (line 0: alloc, free, free_requested; engine.c, "the start-state
     * prologue") takes no peak until it is over, as the engine; the buffers it allocates and
     * frees again (the tiling of blocks free at the start) are no buffers of the recording and
     * get no row */
    int pro = 0;
    uint64_t fillers = 0, pro_from = 0; /* pro_from: index of the prologue's first event */
    uint64_t named = 0; /* events with a name=, which a CSV has no column for */
    tr_event ev;
    if (!c.spill) /* the finished rows wait there for the end, in allocation order */
        return am_fail(err, AM_EINTERNAL, "%s: cannot create a scratch file for the lifetime "
                       "CSV's rows: %s", in, strerror(errno));
    while ((r = trace_next(t, &ev, err)) == 1) {
        uint64_t i = idx++;
        uint64_t bytes = 0;
        int adds = 0;
        named += ev.name != NULL;
        int pe = ev.line == 0 && (ev.kind == TR_ALLOC || ev.kind == TR_FREE ||
                                  ev.kind == TR_FREE_REQUESTED);
        if (pro && !pe && !(ev.kind == TR_SEGMENT_ALLOC && ev.declared)) {
            pro = 0; /* the state the prologue left counts once */
            tr_peak = AM_MAX(tr_peak, tr_live);
            if (csv_live > csv_peak) {
                csv_peak = csv_live;
                csv_peak_line = ev.line;
            }
        }
        if (pe && !pro) {
            pro = 1;
            pro_from = i;
        }
        /* a transfer into a level allocates its destination buffer first, unless the transfer
         * guard rejects the transfer */
        int dir, into = ev.kind == TR_TRANSFER && ev.has_into &&
                        !cfg_guard_rejects(cfg, ev.level, ev.dst_level, ev.implicit, &dir);
        if (cv_rules(&c, &events, &ev, into, cfg, in, err, NULL) != 0) {
            trace_place_error(t, err);
            r = -1;
            break;
        }
        if (ev.kind == TR_ALLOC) {
            cv_row *d = ev.has_donate && ev.donate != ev.id ? cv_live(&c, ev.donate) : NULL;
            if (d && (d->unallocated || d->level != ev.level || d->requested ||
                      d->size != ev.bytes))
                d = NULL;
            if (d) {
                /* a donation the engine matches (live donor, same level and size): the donor's
                 * lifetime ends here and the output's begins; at equal times a CSV frees first */
                d->upper = i;
                cv_retire(&c, d, ev.donate);
            }
            cv_add(&c, &ev, ev.id, ev.level, i, ev.bytes, ev.addr);
            if (ev.level != deflevel) {
                other_level++;
                continue;
            }
            if (d) {
                csv_live -= ev.bytes;
                tr_live -= ev.bytes; /* moved, not added: the += below puts them back */
                donations++;
            }
            bytes = ev.bytes;
            adds = 1;
        } else if (ev.kind == TR_TRANSFER && ev.has_into) {
            dropped[ev.kind]++; /* the copy itself */
            if (!into) {
                cv_add_unallocated(&c, &ev, i);
                continue;
            }
            cv_add(&c, &ev, ev.into, ev.dst_level, i, ev.bytes, TR_NO_ADDR);
            if (ev.dst_level != deflevel) {
                other_level++;
            } else { /* on the default level, that is a row */
                bytes = ev.bytes;
                adds = 1;
                intos++;
            }
        } else if (ev.kind == TR_FREE || ev.kind == TR_FREE_COMPLETED) {
            cv_row *x = cv_live(&c, ev.id); /* live: cv_rules checked it */
            x->upper = i;
            if (x->level == deflevel) {
                csv_live -= x->size;
                if (!x->requested)
                    tr_live -= x->size;
                if (pe && x->lower >= pro_from) {
                    x->filler = 1;
                    fillers++;
                }
            }
            cv_retire(&c, x, ev.id);
        } else if (ev.kind == TR_OOM_RECORDED) {
            dropped[ev.kind]++;
            if (ev.level == deflevel && ev.bytes && tr_live + ev.bytes > oom_peak &&
                tr_live + ev.bytes > tr_peak) {
                oom_peak = tr_live + ev.bytes;
                oom_bytes = ev.bytes;
                oom_line = ev.line;
            }
        } else if (ev.kind == TR_FREE_REQUESTED) {
            cv_row *x = cv_live(&c, ev.id); /* live, not requested: cv_rules checked it */
            x->requested = 1;
            if (x->level == deflevel) {
                tr_live -= x->size;
                requested++;
            }
        } else {
            dropped[ev.kind <= TR_KIND_LAST ? ev.kind : 0]++;
        }
        if (adds) {
            tr_live += bytes;
            csv_live += bytes;
        }
        if (adds && !pro) {
            tr_peak = AM_MAX(tr_peak, tr_live);
            if (csv_live > csv_peak) {
                csv_peak = csv_live;
                csv_peak_line = ev.line;
            }
        }
    }
    if (pro) { /* a trace that is only a prologue */
        tr_peak = AM_MAX(tr_peak, tr_live);
        csv_peak = AM_MAX(csv_peak, csv_live);
    }
    if (r == 0 && oom_peak > tr_peak) {
        char at[40] = ""; /* no row at all: no line */
        if (csv_peak_line)
            snprintf(at, sizeof at, " (at line %lu)", csv_peak_line);
        r = am_fail(err, AM_EINPUT, "%s: a lifetime CSV cannot hold this trace: it would peak at "
                    "%s live bytes on %s%s where the trace peaks at %s: a "
                    "recorded oom that a replay serves counts as an allocation for its instant (%"
                    PRIu64 " bytes at line %lu), and a lifetime CSV skips empty lifetimes; "
                    "convert to the native format, which keeps oom lines", in,
                    units_fmt_u128(n1, sizeof n1, csv_peak), cfg->levels[deflevel].name, at,
                    units_fmt_u128(n2, sizeof n2, oom_peak), oom_bytes, oom_line);
    }
    if (r == 0 && csv_peak != tr_peak)
        r = am_fail(err, AM_EINPUT, "%s: a lifetime CSV cannot hold this trace: it would peak at "
                    "%s live bytes on %s (at line %lu) where the trace peaks at %s"
                    ": a lifetime has one end, so a buffer freed in two phases (free_requested, "
                    "then free_completed, where its memory comes back; %" PRIu64 " here) stays "
                    "live until free_completed, across the allocations in between; convert to "
                    "the native format, which keeps both phases", in,
                    units_fmt_u128(n1, sizeof n1, csv_peak), cfg->levels[deflevel].name,
                    csv_peak_line, units_fmt_u128(n2, sizeof n2, tr_peak), requested);
    /* The offset column is all or nothing (an empty cell is an error in a CSV): written
     * when every row has a recorded address; when only some have, the summary says what
     * was lost (until 2026-11-27 it was lost in silence) */
    uint64_t written = 0, never = 0; /* never: rows of buffers never freed */
    int offsets = 0;
    cv_rec first_never = {0};
    if (r == 0 && cv_spill_rest(&c, o, err) != 0)
        r = -1;
    if (r == 0) {
        /* cv_spill has counted every row (cv_spill_rest the live ones): one read writes */
        offsets = c.with_addr && !c.without && !c.start_rows;
        if (trace_skipped(t)) /* the reader counts them again */
            fprintf(out, "# amsim skipped=%" PRIu64 "\n", trace_skipped(t));
        fprintf(out, "id,lower,upper,size%s\n", offsets ? ",offset" : "");
        rewind(c.spill);
        cv_rec buf[256];
        size_t got, left = c.nseq;
        while (r == 0 && left &&
               (got = fread(buf, sizeof *buf, left < 256 ? left : 256, c.spill)) > 0) {
            left -= got;
            for (size_t k = 0; k < got; k++) {
                const cv_rec *x = &buf[k];
                if (x->filler)
                    continue;
                if (cv_csv_ticks(x, unit, in, err) != 0) {
                    r = -1;
                    break;
                }
                fprintf(out, "%" PRIu64 ",%" PRIu64 ",", c.reused ? written : x->id, x->lower);
                if (x->upper != UINT64_MAX) { /* else never freed: an empty upper */
                    uint64_t upper = 0;
                    if (cv_csv_upper(x, incl, &upper, in, err) != 0) {
                        r = -1;
                        break;
                    }
                    fprintf(out, "%" PRIu64, upper);
                } else if (!never++) {
                    first_never = *x;
                }
                fprintf(out, ",%" PRIu64, x->size);
                if (offsets)
                    fprintf(out, ",%" PRIu64, x->addr);
                fputc('\n', out);
                written++;
            }
        }
        if (r == 0 && left)
            r = am_fail(err, AM_EINTERNAL, "%s: reading back the lifetime CSV's rows from a "
                        "scratch file: %s", in, ferror(c.spill) ? strerror(errno) :
                        "short read");
    }
    if (r == 0) {
        /* the input's name as messages echo it, its control bytes escaped (until 2026-11-28
         * an ESC in it reached the terminal raw) */
        char *ein = am_escape_dup(in);
        char kinds[512];
        uint64_t ndropped = cv_dropped_list(dropped, kinds, sizeof kinds);
        fprintf(notes, "amsim convert: lifetime CSV keeps the allocations and frees of %s only: "
                "%" PRIu64 " buffer%s written (%" PRIu64 " of them allocated by a transfer's "
                "into=; %" PRIu64 " donation%s, each ending the donor where its output begins), "
                "peak live %s byte%s as in the trace%s; %" PRIu64 " other event%s%s and %"
                PRIu64 " allocation%s of other levels dropped%s%s\n",
                cfg->levels[deflevel].name, written, written == 1 ? "" : "s", intos, donations,
                donations == 1 ? "" : "s", units_fmt_u128(n1, sizeof n1, tr_peak),
                tr_peak == 1 ? "" : "s",
                incl ? " (rows in inclusive lifetimes [lower, upper], as the config reads them)"
                     : "", ndropped,
                ndropped == 1 ? "" : "s", kinds,
                other_level, other_level == 1 ? "" : "s",
                c.reused ? "; ids renumbered from 0 (the input reuses ids)" : "",
                fillers ? "; the start-state prologue's allocations that it freed again (the "
                          "tiling of blocks free at the start) left out" : "");
        /* labels are lost too, and said so as every other loss is (until 2026-11-28 in silence,
         * though outputs show names since that day) */
        if (named)
            fprintf(notes, "amsim convert: %" PRIu64 " name= label%s dropped (a lifetime CSV has "
                    "no column for them; the native and binary forms keep them)\n", named,
                    named == 1 ? "" : "s");
        /* a buffer the trace never frees stays live to the end of the CSV's run too (until
         * 2026-11-27 its row ended at the number of events, in silence: a run of the CSV freed
         * it there, and its end state and fragmentation were not the trace's) */
        if (never) {
            char where[1200]; /* a start-state prologue's buffer has no line of its own */
            char pos[64]; /* a binary input's record has no column (FORMAT.md: FILE:RECORD;
                           * until 2026-11-27 it was named FILE:RECORD:0) */
            am_fmt_pos(pos, sizeof pos, (unsigned long)first_never.line,
                       (unsigned long)first_never.col);
            if (first_never.line)
                snprintf(where, sizeof where, "allocated at %s%s", ein, pos);
            else
                snprintf(where, sizeof where, "live at the start of %s", ein);
            fprintf(notes, "amsim convert: %" PRIu64 " buffer%s never freed written with an "
                    "empty upper, live to the end of the run as in the trace (the first %s); a "
                    "lifetime CSV reader other than amsim's may need every upper\n", never,
                    never == 1 ? "" : "s", where);
        }
        uint64_t with_addr = c.with_addr, without = c.without;
        if (with_addr && without) {
            char pos[64]; /* FILE:RECORD for a binary input, as above */
            am_fmt_pos(pos, sizeof pos, (unsigned long)c.first_without.line,
                       (unsigned long)c.first_without.col);
            fprintf(notes, "amsim convert: %" PRIu64 " recorded address%s left out, so a run of "
                    "the CSV validates no placement: its offset column needs an address on every "
                    "row, and %" PRIu64 " buffer%s %s none (the first allocated at %s%s); "
                    "the native and binary forms keep them\n", with_addr,
                    with_addr == 1 ? "" : "es", without, without == 1 ? "" : "s",
                    without == 1 ? "has" : "have", ein, pos);
        }
        /* a start state (a snapshot's, or prologue=1 lines) becomes ordinary rows, whose
         * offsets a run of the CSV would validate: the trace's run counts 1 recorded
         * allocation of `alloc 1 4096 addr=0 prologue=1; alloc 2 8192 addr=4096`, its CSV's
         * counted 2, and MAGMA27's had 0 of 1950 at the address where the snapshot has 1721 of
         * 1721 (until 2026-11-28, in silence) */
        if (c.start_rows) {
            char lost[320] = "";
            if (with_addr && !without) /* else the note above said it */
                snprintf(lost, sizeof lost, "; an offset column would have that run validate "
                         "%s, which the trace's run does not, so it is left out: %" PRIu64
                         " recorded address%s left out, and a run of the CSV validates no "
                         "placement", c.start_rows == 1 ? "it" : "them", with_addr,
                         with_addr == 1 ? "" : "es");
            fprintf(notes, "amsim convert: %" PRIu64 " buffer%s of the start-state prologue "
                    "(prologue=1) written as %s: a lifetime CSV has no start state, so a run of "
                    "the CSV allocates %s as the program's own%s; the native and binary forms "
                    "keep the start state\n", c.start_rows, c.start_rows == 1 ? "" : "s",
                    c.start_rows == 1 ? "an ordinary row" : "ordinary rows",
                    c.start_rows == 1 ? "it" : "them", lost);
        }
        /* a CSV's run validates only its offsets: without them, a trace validated from its
         * start (a snapshot, validated=1) replays with no validation (until 2026-11-28 in
         * silence) */
        if (trace_validated(t) && !offsets)
            fprintf(notes, "amsim convert: the trace is validated from its start (validated=1, "
                    "as a snapshot is), which a lifetime CSV cannot say: a run of the CSV "
                    "validates only an offset column, and this one has none, so it reports no "
                    "validation; the native and binary forms keep it\n");
        free(ein);
    }
    cv_rows_free(&c, &events);
    return r < 0 ? -1 : 0;
}

static int cv_to_native(trace *t, FILE *out, const am_config *cfg, const char *in, am_error *err)
{
    const char *names[CFG_MAX_LEVELS];
    for (int i = 0; i < cfg->nlevels; i++)
        names[i] = cfg->levels[i].name;
    /* the path on one comment line, its control characters escaped: a file name may hold a
     * newline or a carriage return (until 2026-11-27 a newline split the comment and a
     * carriage return went out raw, so the output did not read back) */
    char path[1024], comment[1200];
    tw_escape(path, sizeof path, in);
    snprintf(comment, sizeof comment, "converted by amsim convert from %s (%s)", path,
             trace_format(t));
    tw_writer w;
    tw_init(&w, out, names, cfg->nlevels, comment, trace_skipped(t), trace_validated(t));
    tr_event ev;
    int r;
    while ((r = trace_next(t, &ev, err)) == 1)
        if (tw_event(&w, &ev, err) != 0)
            return -1;
    return r < 0 ? -1 : 0;
}

/* The id state a run leaves after ev, which passed cv_rules (index i): what cv_to_csv follows
 * of it, without the rows' bytes and lifetimes. */
static void cv_follow(cv_rows *c, const tr_event *ev, int into, uint64_t i)
{
    cv_row *x;
    switch (ev->kind) {
    case TR_ALLOC:
        x = ev->has_donate && ev->donate != ev->id ? cv_live(c, ev->donate) : NULL;
        if (x && !x->unallocated && x->level == ev->level && !x->requested &&
            x->size == ev->bytes)
            cv_retire(c, x, ev->donate); /* a matched donation: the donor is gone */
        cv_add(c, ev, ev->id, ev->level, i, ev->bytes, ev->addr);
        break;
    case TR_TRANSFER:
        if (ev->has_into && into)
            cv_add(c, ev, ev->into, ev->dst_level, i, ev->bytes, TR_NO_ADDR);
        else if (ev->has_into)
            cv_add_unallocated(c, ev, i);
        break;
    case TR_FREE:
    case TR_FREE_COMPLETED:
        cv_retire(c, cv_live(c, ev->id), ev->id);
        break;
    case TR_FREE_REQUESTED:
        cv_live(c, ev->id)->requested = 1;
        break;
    default:
        break;
    }
}

int convert_check_trace(trace *t, const am_config *cfg, const char *in, int lenient,
                        uint64_t *events, uint64_t *skipped, am_error *err)
{
    cv_rows c = {.deflevel = cfg->default_level};
    evtab evs;
    evtab_init(&evs, 0);
    tr_event ev;
    int r, skippable;
    *events = *skipped = 0;
    while ((r = trace_next(t, &ev, err)) == 1) {
        uint64_t i = (*events)++;
        int dir, into = ev.kind == TR_TRANSFER && ev.has_into &&
                        !cfg_guard_rejects(cfg, ev.level, ev.dst_level, ev.implicit, &dir);
        if (cv_rules(&c, &evs, &ev, into, cfg, in, err, &skippable) == 0) {
            cv_follow(&c, &ev, into, i);
            continue;
        }
        if (lenient <= 0 || !skippable) {
            size_t n = strlen(err->msg);
            /* run's hint, as check takes --lenient too; not for a sweep (lenient < 0), whose
             * runs have no --lenient */
            if (skippable && lenient == 0)
                snprintf(err->msg + n, sizeof err->msg - n,
                         " (use --lenient to count and skip such events)");
            trace_place_error(t, err);
            r = -1;
            break;
        }
        /* counted and skipped as run --lenient does: a transfer with an unknown id= is skipped
         * whole, its into= known as not allocated (engine.c, into_skipped) */
        memset(err, 0, sizeof *err);
        (*skipped)++;
        if (ev.kind == TR_TRANSFER && ev.has_into && ev.id != TR_NO_ID && !cv_live(&c, ev.id)) {
            const cv_row *x = cv_live(&c, ev.into);
            if (x && !x->unallocated) {
                r = am_fail_at(err, in, ev.line, ev.col, "duplicate id %" PRIu64
                               ": still allocated (line %lu)", ev.into, x->line);
                break;
            }
            cv_add_unallocated(&c, &ev, i);
        }
    }
    cv_rows_free(&c, &evs);
    return r < 0 ? -1 : 0;
}

/* The allocator settings a recording was made with (trace_settings: a snapshot's
 * allocator_settings) that differ from PyTorch's defaults, named on stderr: no output form
 * carries them, so a run of the conversion cannot warn, as the recording's run does, that the
 * config sets them otherwise (until 2026-11-28 they were dropped without a word). Settings at
 * their defaults lose nothing a run of a default caching config would say. */
/* Two settings' values the same: as text, or as numbers, as run's comparison reads them (a
 * recorded threshold of -0.0 is "-0", and 0; until 2026-11-28 it was said to differ). */
static int same_value(const char *a, const char *b)
{
    double x, y;
    if (strcmp(a, b) == 0)
        return 1;
    return units_real(a, &x, NULL) == 0 && units_real(b, &y, NULL) == 0 && x == y;
}

static void note_dropped_settings(const trace *t, const char *in, const char *outp)
{
    static const char *const dflt[][2] = {{"max_split_size", "unlimited"},
                                          {"expandable_segments", "false"},
                                          {"garbage_collection_threshold", "0"},
                                          {"roundup_power2_divisions", "0"}};
    const trace_setting *ts;
    int n = trace_settings(t, &ts), k = 0;
    char list[1024] = "";
    size_t m = 0;
    for (int i = 0; i < n; i++) {
        int same = 0;
        for (size_t d = 0; d < AM_ARRAY_LEN(dflt); d++)
            same |= strcmp(ts[i].key, dflt[d][0]) == 0 && same_value(ts[i].value, dflt[d][1]);
        if (!same && m < sizeof list)
            m += (size_t)snprintf(list + m, sizeof list - m, "%s%s %s", k++ ? ", " : "",
                                  ts[i].key, ts[i].value);
    }
    if (!k)
        return;
    /* names and values as messages echo them, control bytes escaped (until 2026-11-28 an ESC
     * in a file's name reached the terminal raw) */
    char *ein = am_escape_dup(in), *eout = am_escape_dup(outp), *elist = am_escape_dup(list);
    fprintf(stderr, "amsim convert: warning: %s was recorded with %s; %s does not carry %s, so a "
            "run of it cannot warn when the config sets %s otherwise\n", ein, elist, eout,
            k == 1 ? "this setting" : "these settings", k == 1 ? "it" : "them");
    free(ein);
    free(eout);
    free(elist);
}

int cmd_convert(int argc, char **argv)
{
    const char *in = NULL, *outp = NULL, *to = NULL, *cfgp = NULL, *device_s = NULL;
    const char *sets[CV_MAX_SETS];
    int nsets = 0, device = 0;
    enum { O_HELP, O_OUT, O_TO, O_CONFIG, O_SET, O_DEVICE, O_N };
    static const cli_opt opts[] = {
        [O_HELP] = {"help", 'h', CLI_FLAG},     [O_OUT] = {"out", 'o', CLI_PATH},
        [O_TO] = {"to", 0, CLI_VALUE},          [O_CONFIG] = {"config", 'c', CLI_IN},
        [O_SET] = {"set", 0, CLI_VALUE},        [O_DEVICE] = {"device", 0, CLI_VALUE},
        [O_N] = {NULL, 0, 0}};
    /* every option that takes a value but --set takes one: a second is refused (cli_once) */
    const char **slots[O_N] = {[O_OUT] = &outp, [O_TO] = &to, [O_CONFIG] = &cfgp,
                               [O_DEVICE] = &device_s};
    cli cl;
    cli_init(&cl, "amsim convert", argc, argv);
    cl.operand_in = "IN"; /* `convert - -c -` would read standard input twice */
    const char *opt, *v;
    for (int k; (k = cli_next(&cl, opts, &opt, &v)) != CLI_END;) {
        if (k == CLI_ERROR || (k >= 0 && slots[k] && cli_once("amsim convert", opt, slots[k], v,
                                                               NULL) != 0))
            return 1;
        if (k == O_HELP) {
            cv_usage(stdout);
            return 0;
        } else if (k == O_SET) {
            if (nsets == CV_MAX_SETS) {
                fprintf(stderr, "amsim convert: more than %d --set options\n", CV_MAX_SETS);
                return 1;
            }
            sets[nsets++] = v;
        } else if (k == O_DEVICE) { /* until 2026-11-27 its own strtol took '+1' and '01' */
            if (cli_device("amsim convert", v, &device) != 0)
                return 1;
        } else if (k == CLI_OPERAND) {
            if (in) {
                char s1[CLI_SHOWN], s2[CLI_SHOWN];
                fprintf(stderr, "amsim convert: one input only ('%s' and '%s')\n",
                        am_escape_name(s1, sizeof s1, in), am_escape_name(s2, sizeof s2, v));
                return 1;
            }
            in = v;
        }
    }
    if (!in || !outp) {
        fprintf(stderr, "amsim convert: IN and -o OUT are required (see amsim convert --help)\n");
        return 1;
    }
    if (!to)
        to = "native";
    int csv = !strcmp(to, "csv"), bin = !strcmp(to, "binary");
    if (!csv && !bin && strcmp(to, "native") != 0) {
        /* the value as every message quotes what the user typed: control bytes as \xHH (until
         * 2026-11-27 these three messages echoed them raw, an escape sequence reaching the
         * terminal) */
        char shown[CLI_SHOWN];
        fprintf(stderr, "amsim convert: --to takes native, csv or binary, not '%s'\n",
                am_escape_name(shown, sizeof shown, to));
        return 1;
    }
    am_error err = {0};
    am_config *cfg = NULL;
    trace *t = NULL;
    outfile *o = NULL;
    /* convert IN -o IN would replace the recording with its conversion */
    const out_named outs[] = {{"-o", outp}}, ins[] = {{"IN", in}, {"-c", cfgp}};
    int rc = out_check_paths(outs, 1, ins, 2, &err);
    if (rc == 0)
        rc = cfgp ? cfg_load(&cfg, cfgp, sets, nsets, &err)
                  : cfg_load_builtin(&cfg, sets, nsets, &err);
    if (rc == 0) /* the preset the config read is an input too */
        rc = run_check_preset(cfg, outs, 1, &err);
    const char *names[CFG_MAX_LEVELS]; /* the trace keeps a pointer: lives until the end */
    if (rc == 0) {
        for (int i = 0; i < cfg->nlevels; i++)
            names[i] = cfg->levels[i].name;
        trace_opts topt = {names, cfg->nlevels, cfg->default_level,
                           cfg->trace.lifetimes_inclusive, cfg->trace.time_unit, device};
        rc = trace_open(&t, in, &topt, &err);
    }
    if (rc == 0)
        rc = out_open(&o, outp, &err);
    /* the CSV's summary ("N buffers written") waits here until the output is committed */
    char *note_text = NULL;
    size_t note_len = 0;
    FILE *notes = NULL;
    if (rc == 0 && csv && !(notes = open_memstream(&note_text, &note_len)))
        am_oom_exit("a memory stream for convert's summary", NULL);
    if (rc == 0)
        rc = csv   ? cv_to_csv(t, o, cfg, in, notes, &err)
             : bin ? trace_bin_write(out_fp(o), t, &err) /* sim/trace_bin.c */
                   : cv_to_native(t, out_fp(o), cfg, in, &err);
    if (rc == 0) {
        rc = out_commit(o, &err);
        o = NULL;
    }
    if (rc == 0)
        note_dropped_settings(t, in, outp);
    out_abort(o);
    trace_close(t);
    cfg_free(cfg);
    if (notes) {
        fclose(notes); /* note_text holds what was printed to it */
        if (rc == 0)
            fputs(note_text, stderr);
    }
    free(note_text);
    if (rc != 0) {
        fprintf(stderr, "amsim: %s\n", err.msg[0] ? err.msg : "convert failed");
        return err.status ? err.status : AM_EINTERNAL;
    }
    return 0;
}
