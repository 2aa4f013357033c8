/* link.h - a transfer path between two memory levels, one direction (a "channel").
 *
 * Model: a transfer spends `latency` first (no bandwidth used), then moves its bytes while
 * sharing the channel's effective bandwidth (peak x efficiency) equally with every other
 * transfer in its data phase (processor sharing). At most `concurrency` transfers are in flight
 * (0 = no limit); later ones wait in arrival order (ties at one picosecond by `order`, below),
 * each taken at the exact instant (not rounded) of the completion that frees its slot.
 * Alone, a transfer of B bytes takes exactly latency + ceil(B * 1e12 / bandwidth) picoseconds;
 * two equal transfers started together each take latency + 2 B / bandwidth. The bandwidth is
 * a rational num / den bytes per second (an effective bandwidth such as 3 B/s x 0.9 = 27/10 B/s
 * is not a whole number), and work is tracked in integer units of byte x 1e12 x den so that
 * the arithmetic is exact to the picosecond and deterministic: sharing transfers finish at
 * exact instants (link.c keeps the work served to each as virtual work), each rounded up to the
 * picosecond once, when reported.
 *
 * A half-duplex link is one channel that both directions share: each transfer names its side
 * (0 or 1, the direction), and statistics are kept per side as well as for the whole channel. */
#ifndef AM_LINK_H
#define AM_LINK_H

#include <stdint.h>

#include "../sim/common.h"

typedef struct link_chan link_chan;

/* Sums over transfers (bytes, durations, waits) are 128-bit: many transfers of up to 2^64 - 1
 * bytes, or many long waits, pass 2^64 (until 2026-11-27 they wrapped, and 1000 queued 100-byte
 * transfers at 1 B/s reported 2 x 2^64 ps less than their 49,950,000 s of waiting). */
typedef struct link_stats {
    am_u128 bytes;
    uint64_t count;
    am_ps busy_ps;     /* time with at least one transfer in flight (at most the clock; the
                        * trace's transfers: link_submit_runtime) */
    am_u128 sum_ps;    /* sum of transfer durations (submit to completion) */
    am_u128 wait_ps;   /* time transfers spent queued behind the concurrency limit */
    uint32_t max_in_flight;
    /* The runtime's copies (link_submit_runtime, link_runtime_alone), which the figures above
     * leave out: their bytes, number and durations (submit to completion), and the time a
     * transfer or a copy, either, was in flight (all_busy_ps >= busy_ps). Until 2026-11-28 no
     * figure counted the copies. */
    am_u128 rt_bytes;
    uint64_t rt_count;
    am_u128 rt_sum_ps;
    am_ps all_busy_ps;
} link_stats;

/* The busy time of a link whose directions are channels of their own (a duplex link between
 * two memories): a transfer in flight either way. now: the latest time either was moved to. */
typedef struct link_busy {
    uint32_t n;       /* channels with one in flight */
    am_ps since;      /* when the first of them turned busy */
    am_ps ps;         /* closed busy periods */
} link_busy;

typedef struct link_either {
    link_busy trace;  /* a trace transfer in flight (link_busy_either) */
    am_ps now;
    /* A transfer or a runtime copy in flight (link_busy_either_all). A copy timed alone
     * (link_runtime_alone) is told ahead of the device: its span [start, end) waits in `alone`
     * (in time order, from alone_head) until a channel's clock reaches its start, then its end
     * (started: the head's start has counted). Until 2026-11-28 the two trackers were separate
     * fields with near-copied code. */
    link_busy all;
    am_ps (*alone)[2];
    size_t alone_head, nalone, capalone;
    int started;
} link_either;

link_chan *link_create(uint64_t bandwidth_bps, am_ps latency, uint32_t concurrency);
/* The same with a bandwidth of num / den bytes per second (num > 0, den > 0 and den <= 1e6: a
 * transfer's work, bytes x 1e12 x den, must fit 128 bits). */
link_chan *link_create_rate(uint64_t num, uint64_t den, am_ps latency, uint32_t concurrency);
void link_destroy(link_chan *l);
/* Submit a transfer at time `now` (>= every earlier call's time). `tag` comes back on completion.
 * Transfers arriving at the same picosecond are taken in `order` (the engine passes the trace
 * line's index: the host's issue order), whatever order the calls come in; behind the
 * concurrency limit they wait in arrival order (time, then order). link_submit_side uses the
 * submission count as order, link_submit is link_submit_side with side 0. */
void link_submit(link_chan *l, am_ps now, uint64_t bytes, uint64_t tag);
void link_submit_side(link_chan *l, am_ps now, uint64_t bytes, uint64_t tag, int side);
void link_submit_ordered(link_chan *l, am_ps now, uint64_t bytes, uint64_t tag, int side,
                         uint64_t order);
/* A runtime copy (a spill, a restore, a defragmentation's move): it shares the channel and
 * takes a concurrency slot exactly as a transfer submitted with link_submit_ordered, and comes
 * back from link_advance the same way, but the trace's statistics leave it out: bytes, count,
 * sums and max_in_flight are the trace's transfers', and busy_ps (and link_busy_either) the
 * time one of those was in flight; it counts in rt_bytes, rt_count, rt_sum_ps, all_busy_ps and
 * link_busy_either_all. Until 2026-11-28 the engine timed runtime copies alone, off the link. */
void link_submit_runtime(link_chan *l, am_ps now, uint64_t bytes, uint64_t tag, int side,
                         uint64_t order);
/* A runtime copy the engine timed alone, off the link, at `at` for `dur` ps (rt_copy: nothing
 * is in flight or queued on the channel, and nothing reaches it before at + dur). Only counted:
 * its bytes, one copy, its duration, and its span in all_busy_ps and link_busy_either_all, as
 * had it gone through link_submit_runtime. The channel's clock does not move. */
void link_runtime_alone(link_chan *l, am_ps at, am_ps dur, uint64_t bytes, int side);
/* Time of the next completion or phase change, AM_TIME_NONE when idle (not const: it is
 * remembered until the channel changes). */
am_ps link_next_time(link_chan *l);
/* A completed transfer: its tag, and when the channel took it (its submission time, or later
 * when it waited behind the concurrency limit); it completed at the time link_advance got to. */
typedef struct link_done {
    uint64_t tag;
    am_ps started;
} link_done;
/* Advance to time t (>= last time); store up to max completed transfers (in completion order,
 * ties in submission order) and return how many completed. Call again while it returns max. */
int link_advance(link_chan *l, am_ps t, link_done *done, int max);
/* The whole channel's statistics (busy: any transfer in flight; all_busy: any transfer or
 * runtime copy). */
const link_stats *link_get_stats(const link_chan *l);
/* One side's (0 or 1): its transfers only (busy: one of them in flight). */
const link_stats *link_get_side_stats(const link_chan *l, int side);
int link_in_flight(const link_chan *l);
/* Count b's busy time with a's (the two directions of one duplex link): link_busy_either of
 * either is then the time one of them or both had a transfer in flight. a must outlive b's
 * reads. Call before either is used. */
void link_pair(link_chan *a, link_chan *b);
/* The time a transfer was in flight on l or its paired channel (the union); for a channel not
 * paired (a half-duplex link's, carrying both directions), its own busy_ps. */
am_ps link_busy_either(const link_chan *l);
/* The same counting the runtime's copies too: a transfer or a copy in flight either way (not
 * const: a copy timed alone still pending is closed first; call it once the run is over). */
am_ps link_busy_either_all(link_chan *l);

#endif
