/* engine.h - the discrete-event engine: replays trace events against memory levels and links.
 *
 * Timing model (traces/FORMAT.md, "Timing"): the trace is the host's issue order. The host
 * clock starts at 0 and moves to an event's timestamp when it has one (timestamps are earliest
 * issue times). Allocations and frees run on the host at issue time, in trace order, as the
 * framework allocators do. Compute, transfer, record and wait operations are queued on their
 * stream and run there in order: a compute occupies the stream for its duration, a transfer
 * occupies its link (latency + bytes / shared bandwidth), a wait holds the stream until the
 * event's last record issued before it has completed. The host blocks (and its clock advances)
 * on `sync` and when a stream's queue holds engine.queue_depth operations. Device-side events
 * are processed in (time, sequence) order, so runs are deterministic. */
#ifndef AM_ENGINE_H
#define AM_ENGINE_H

/* Streams an operation can queue on (transfer, compute, record, wait): 0 .. SIM_MAX_STREAMS - 1.
 * An allocation or free may name any stream (traces/FORMAT.md). */
#define SIM_MAX_STREAMS 65536

#include <stdio.h>

#include "../models/memory.h"
#include "config.h"
#include "trace.h"

typedef struct sim sim;

/* Optional observer of a run (exporters: Chrome/Perfetto trace, PyTorch snapshot). Every
 * callback may be NULL; times are simulated picoseconds. Called in simulation order. */
/* sim_observer.alloc's ok for a matched donation */
#define SIM_ALLOC_DONATED 2

typedef struct sim_observer {
    void *ctx;
    /* An allocation request settled (ok = 0: out of memory; addr/size then 0). A recorded
     * out-of-memory (an `oom` line) has id TR_NO_ID: ok = 0 when the simulation ran out on it
     * too; ok = 1 when it served it, and a `free` of id TR_NO_ID gives the block back at once.
     * ok = SIM_ALLOC_DONATED (2, true as ok = 1 is): a matched `donate=`, the output taking
     * over the donor's block (the donor's free comes just before), the placements CSV's
     * `donated` row (until 2026-11-27 it was ok = 1, and the expectation digest hashed the row
     * as `ok`). name: the allocation's (or the recorded `oom` line's) trace `name=`, NULL
     * when none (a transfer's into= destination's too; until 2026-11-28 a recorded `oom`
     * line's as well); valid during the call only. */
    void (*alloc)(void *ctx, am_ps t, uint64_t seq, uint64_t id, int level, uint32_t stream,
                  uint64_t addr, uint64_t requested, uint64_t size, int ok, const char *name);
    /* phase: 0 free (both phases), 1 free_requested, 2 free_completed */
    void (*free)(void *ctx, am_ps t, uint64_t id, int level, uint32_t stream, uint64_t addr,
                 uint64_t requested, uint64_t size, int phase);
    /* The policy took (alloc = 1) or gave back a device range. */
    void (*device)(void *ctx, am_ps t, int level, int alloc, uint64_t addr, uint64_t bytes);
    /* After every allocation or free: the level's counters. */
    void (*counters)(void *ctx, am_ps t, int level, const mem_metrics *m);
    /* A compute (chan = -1) or transfer (chan = link channel index) finished on a stream.
     * name: its trace `name=`, NULL when none; valid during the call only (the engine keeps a
     * copy while the op is queued, only when an observer has this callback). */
    void (*op)(void *ctx, uint32_t stream, am_ps start, am_ps end, int chan, uint64_t bytes,
               const char *name);
    /* A runtime action on a level: what = "defrag" (bytes moved) or "spill" / "restore"
     * (bytes copied); it occupied the host from start to end. Called after a defragmentation's
     * releases and placements, or a spill's `move`, and before its copies. Waits for frees
     * whose deadline had passed when a spill or a defragmentation began failed before its first
     * release or `move`; those whose deadline passes before `end` fail right after its copies
     * (their `alloc` with ok = 0), before the waits are retried, the spill's device block is
     * given back or anything else happens. They ran out while the recovery held the host and
     * its room was not free yet: the snapshot exporter writes them before its entries. */
    void (*action)(void *ctx, const char *what, int level, am_ps start, am_ps end, uint64_t bytes);
    /* A transfer's time on its link channel (called just before its `op`): from when the
     * channel took it, which is later than the op's start when it waited behind the link's
     * `concurrency`, to its completion. Never more than `concurrency` at once on a channel. */
    void (*link)(void *ctx, int chan, uint32_t stream, am_ps start, am_ps end, uint64_t bytes);
    /* A live buffer changed place without a request (placements.csv's moved, spilled and
     * restored rows): defragmentation placed it again (from_level == level), spilling put it in
     * its host copy, restoring brought it back. It left from_level's [from_addr, + from_size)
     * and now holds level's [addr, + size); its free, if any, comes from there. A
     * defragmentation reports every buffer it placed again, one placed where it was too (no
     * placements row then: addr == from_addr, size == from_size). */
    void (*move)(void *ctx, am_ps t, uint64_t seq, uint64_t id, uint32_t stream, int from_level,
                 uint64_t from_addr, uint64_t from_size, int level, uint64_t addr,
                 uint64_t requested, uint64_t size, const char *name);
    /* An out-of-memory result that settles no request (those come to `alloc` with ok = 0): a
     * spilled buffer that could not come back where it was used (what = "restore"; it stays
     * on the host) or a live buffer a defragmentation could not place again ("defrag"; it is
     * lost). Each has an oom_events entry and counts in the level's ooms. The snapshot exporter
     * writes either as an `oom` entry after the device gives its failed attempt made, so that a
     * replay fails and gives back there too (until 2026-11-27 a "restore" one was not written).
     * name: the buffer's allocation `name=`, NULL when none. */
    void (*oom)(void *ctx, am_ps t, uint64_t seq, uint64_t id, int level, uint32_t stream,
                uint64_t requested, const char *what, const char *name);
    /* A start-state prologue begins (on = 1) or ends (engine.c, "the start-state prologue"):
     * the allocations, frees and device calls reported in between rebuild the recording's state
     * at its trace's start; they are no events of the recording. */
    void (*prologue)(void *ctx, int on);
    /* The trace freed a request that had failed (out of memory): nothing of the level changes.
     * phase as `free`. The snapshot exporter writes it for a failed request of a prologue, whose
     * replay under a policy or capacity that serves it must free it where the trace did. */
    void (*free_failed)(void *ctx, am_ps t, uint64_t id, int level, uint32_t stream,
                        uint64_t requested, int phase);
    /* A trace event begins on the host at t (its time, or later when the host is behind),
     * before the policy's device calls charge their latency: the callbacks above it causes get
     * the later host time. The snapshot exporter writes this time, which a replay issues at.
     * A wait for frees that runs out (retry_after_free) is no event but has its own time: its
     * `alloc` (ok = 0) comes between an `event` call with its deadline and one with the current
     * event's start again (until 2026-11-27 the export stamped it with the start of the event
     * that noticed it, later than its deadline). */
    void (*event)(void *ctx, am_ps t);
    /* An attempt at a request of `level` failed and the runtime now makes room on the level (a
     * spill evicts a buffer, or a defragmentation runs), then tries again; or a spill's host
     * copy into `level` (stream 0) failed for good, after the level's own recovery when it has
     * one, and the spill tries another victim or gives up (until 2026-11-27 not reported). What
     * the failed attempt gave back on its miss path (the caching allocator frees its cached
     * segments) was reported before, as `device` calls. The snapshot exporter writes it as an `oom` entry when
     * it gave something back, so that a replay's allocator fails there too and gives back the
     * same (until 2026-11-27 it was not reported: a spilling `caching` run's export freed the
     * victims before the request and its replay, served from them, kept the segments cached). */
    void (*attempt_failed)(void *ctx, am_ps t, int level, uint32_t stream, uint64_t requested);
    /* A defragmentation (event seq) released a live buffer's block: it first releases every
     * live buffer of the level, in the order their `move` (or, for a buffer it could not place
     * again, its oom row) come, and only then places them again. The device gives that release made were reported before it, and the
     * device takes of each placement come before that buffer's `move`. The snapshot exporter
     * writes the frees here and each move's allocation at its `move`, the order the policy
     * acted in (until 2026-11-27 it heard of a free only at the buffer's `move`: the frees'
     * device gives and the placements' takes were written out of order, and the replay missed
     * those segment events). */
    void (*defrag_free)(void *ctx, am_ps t, uint64_t seq, uint64_t id, uint32_t stream,
                        int level, uint64_t addr, uint64_t requested, uint64_t size);
    /* A runtime copy's time on its link channel, as `link` gives a transfer's: from when the
     * channel took it to its completion (a copy timed alone, with no trace transfer over the
     * channel: from its issue to its issue + its alone time). what: its action ("spill" copy
     * out, "restore" copy back, "defrag" for either copy of a host round trip or a compaction's
     * copy); id: the buffer's; level: the action's level (the device's, not the host's); bytes:
     * rounded up to the channel's granule, as the runtime_bytes metrics count them. Called at
     * the end of the action (after its `action`), among the `link` and `op` calls of the
     * operations that finished while it ran, in the order they finished. Until 2026-11-28 no
     * observer heard of a runtime copy itself. */
    void (*copy)(void *ctx, int chan, am_ps start, am_ps end, uint64_t bytes, const char *what,
                 uint64_t id, int level);
} sim_observer;

typedef struct sim_opts {
    FILE *placements;      /* CSV: seq,id,level,address,requested,allocated,status */
    int placements_names;  /* placements gets an eighth column, name: each row's trace name= */
    FILE *timeline;        /* CSV samples */
    FILE *log;             /* allocator event log (R/G/A/OOM/M/P/S lines) */
    int check;             /* run every invariant check after every event */
    int lenient;           /* recoverable trace problems become counted warnings */
    int no_lenient_option; /* the command has no --lenient (batch): an error --lenient would
                              skip does not suggest it */
    int progress;          /* progress line on stderr */
    const sim_observer *observer; /* may be NULL */
    size_t lookahead_ids;  /* sim_run reads ahead (prefetch hints, results unchanged) from this
                            * many ids in use on, and stops below half of it; 0 = 4096,
                            * SIZE_MAX = never (tests compare both ways) */
} sim_opts;

int sim_create(sim **s, const am_config *cfg, const sim_opts *o, am_error *err);
/* A policy's error err on cfg's level, placed where the user set what it is about: an input
 * error where cfg_setting_at says (config.h: the first key of err->opts the user gave, at its
 * FILE:LINE:COL or the --set that gave it; else the policy the user chose, in the config or by
 * --set or --policy; else a preset's key, the allocator map, the level); prefixed "memory
 * level 'NAME': ". Other errors are prefixed with the config's path. Returns -1. */
int sim_level_error_at(const am_config *cfg, int level, am_error *err);
void sim_destroy(sim *s);
/* Replay a whole trace: 0, or -1 with err (input errors carry file:line:col). */
int sim_run(sim *s, trace *t, am_error *err);
/* One event (for tests and embedders); `file` names the trace in messages. */
int sim_event(sim *s, const tr_event *ev, const char *file, am_error *err);
/* Whether transfer ev may write its to= buffer, allocated at `line` on level `level`: NULL when
 * the buffer is on the transfer's DST, else the error (into buf, n bytes) that run, check and
 * convert give (until 2026-11-27 a to= buffer on another level was accepted). Its size is not
 * checked: `gen kernel`'s mxu.in copies stream an operand tile larger than the accumulator
 * tile they name with to= (--tk above twice --tn in bf16). */
const char *sim_to_mismatch(const am_config *cfg, const tr_event *ev, int level,
                            unsigned long line, char *buf, size_t n);
/* Write placement rows buffered so far (sim_finish does it too). */
void sim_flush(sim *s);
/* End of trace: drain streams and links, finish policies. */
int sim_finish(sim *s, am_error *err);

/* Results. */
int sim_nlevels(const sim *s);
mem_level *sim_level(const sim *s, int i);
const am_config *sim_config(const sim *s);
/* The live (resident) buffers of a level in a run that spills or defragments: the size of the
 * level's live set, the buffers a spill or a defragmentation of it walks (0 in other runs, which
 * keep no such set). Under sim_opts.check every event verifies the sets against the id map. */
size_t sim_live_buffers(const sim *s, int level);

typedef struct sim_oom {
    uint64_t seq, id; /* id TR_NO_ID when recorded */
    int level;
    int recorded;     /* a recorded out-of-memory (`oom` line) the simulation ran out on too */
    uint64_t requested, free_bytes, largest_free_block, unreserved_bytes;
    am_ps time;
    char *name;       /* the allocation's trace `name=`, or a recorded `oom` line's (id TR_NO_ID);
                       * a copy the sim owns, NULL when none */
} sim_oom;

/* One direction of a link (a link within one memory has one). A half-duplex link between two
 * memories has both directions too; they share one channel (its bandwidth and concurrency):
 * st counts this direction's transfers, channel both directions'. */
typedef struct sim_link_result {
    const char *name;
    int from, to, dir; /* dir 0: from -> to, 1: to -> from */
    const struct link_stats *st;
    int link;          /* index in the config's links */
    int shared;        /* half duplex between two memories: the channel is shared */
    const struct link_stats *channel; /* the channel's (== st unless shared) */
    am_ps link_busy_ps; /* the link's: a transfer in flight either way (the union of its
                         * directions' busy times; channel->busy_ps on a half-duplex link) */
    am_ps link_all_busy_ps; /* the same with the runtime's copies: a transfer or a copy (final
                             * once the run is over: sim_links closes the copies timed alone,
                             * link_busy_either_all) */
} sim_link_result;

/* The first recorded segment event that matched no simulated device call. */
typedef struct sim_seg_mismatch {
    int have;
    int level;
    int alloc;          /* 1 segment_alloc (or segment_map), 0 segment_free (segment_unmap) */
    uint64_t seq;       /* trace event index */
    uint64_t addr, bytes;
    unsigned long line; /* trace line, or snapshot trace entry (1-based); 0 when none */
} sim_seg_mismatch;

typedef struct sim_summary {
    uint64_t events, allocs, frees, transfers, computes, ooms;
    uint64_t frees_after_oom;    /* frees of buffers whose allocation failed (skipped) */
    uint64_t transfers_skipped;  /* transfers that did not happen: the guard rejected them,
                                  * their id= buffer had no memory, or their into= buffer ran
                                  * out of memory (not in `transfers`) */
    uint64_t no_memory_into[CFG_MAX_LEVELS]; /* by destination level: the levels (bit by index)
                                  * whose shortage left a transfer into= it without its source,
                                  * so that it was skipped and its request there unserved
                                  * (run_reference grows them for the level it measures; until
                                  * 2026-11-27 one mask for any skipped transfer, wherever to) */
    uint64_t warnings;           /* --lenient: recoverable problems counted */
    am_ps makespan, stall, host_time;
    am_ps allocator;             /* host time spent in allocator device calls */
    uint64_t retries, retries_succeeded, retries_failed; /* requests that waited for frees;
                                                            got memory; ran out of time */
    /* validation against recorded addresses */
    int validating;
    uint64_t recorded_allocs, address_matches;
    uint64_t segment_events_recorded, segment_events_matched;
    int have_mismatch;           /* the first allocation away from its recorded address: */
    uint64_t mismatch_seq, mismatch_id, mismatch_recorded, mismatch_simulated;
    unsigned long mismatch_line;
    sim_seg_mismatch seg_mismatch;
    uint64_t recorded_ooms;      /* `oom` lines (PyTorch oom entries) */
    uint64_t oom_matches;        /* of them, requests the simulation ran out of memory on too */
    /* hierarchy features, summed over levels */
    struct {
        uint64_t runs, buffers_moved, ooms_avoided, failures, unsupported;
        am_u128 bytes_moved; /* 128-bit: a total that can pass 2^64 bytes (am_u128) */
        uint64_t skipped; /* failed requests it could not serve, so it did not run */
        /* trace `defrag` lines: runs they made (counted in runs too), and those on a level
         * whose defrag.mode is none (nothing to run: a counted no-op) */
        uint64_t explicit_runs, explicit_ignored;
        am_ps time;
    } defrag;
    struct {
        uint64_t evictions, restores, ooms_avoided, failures;
        am_u128 bytes_out, bytes_in; /* 128-bit totals (am_u128) */
        uint64_t skipped; /* failed requests larger than the level: nothing was evicted */
        am_ps time;
        /* the levels (by index) that took spilled buffers: the spill_host of every eviction
         * made (the report names them: "out to hbm"; until 2026-11-27 also those of levels
         * that only tried) */
        uint64_t into_mask;
    } spill;
    uint64_t donations_matched, donations_unmatched;
    uint64_t into_allocs, into_failed;   /* transfers that allocated their destination */
    uint64_t guard_implicit[3], guard_logged[3], guard_rejected[3]; /* per CFG_DIR_* */
    uint64_t read_ahead;         /* events sim_run took through its look-ahead (not reported:
                                  * the hints change no result; tests see that it ran) */
} sim_summary;

const sim_summary *sim_get_summary(const sim *s);
size_t sim_ooms(const sim *s, const sim_oom **list);
int sim_links(const sim *s, sim_link_result *out, int max);
/* Current simulated host time (the clock allocations happen at). */
am_ps sim_host_time(const sim *s);
/* 1 while waits for frees that ran out are failed (their `alloc` with ok = 0) after the
 * allocator placed a request that observers hear of next (its `alloc` with ok = 1): the engine
 * notices expired waits when it settles an outcome, after the allocation is made. The snapshot
 * exporter writes such a wait's `oom` entry after that allocation's, in the order the allocator
 * acted in. */
int sim_expiring_after_placement(const sim *s);
/* 1 while waits for frees that ran out are failed (their `alloc` with ok = 0, each between
 * `event` calls, see sim_observer.event). */
int sim_expiring(const sim *s);

#endif
