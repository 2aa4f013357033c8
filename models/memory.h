/* memory.h - a memory level: capacity, device address space, its allocator and its counters.
 *
 * The device address model (allocators.md section 1): regions/segments that a policy takes from
 * the device are placed first-fit from address 0 of [0, capacity) (of the whole 64-bit range for
 * a policy whose device refuses by bytes only, alloc.h device_by_bytes); given-back ranges become
 * free again. The level counts reserved bytes (what the policy holds from the device), live bytes
 * (sum of live request sizes) and allocated bytes (sum of given sizes), with their peaks, and
 * computes the metrics of allocators.md section 6.
 *
 * Recorded placement (PyTorch snapshots, `segment_addresses: recorded`): the engine tells the
 * level which device segments the recording had (mem_note_recorded_segment) and, before each
 * allocation, the address the recording gave it (mem_hint). A device allocation made while a
 * hint is set takes a recorded segment of the requested size that contains the hinted address
 * (one start may have several sizes, reused after a segment_free), if its range is free;
 * otherwise it falls back to first fit. */
#ifndef AM_MEMORY_H
#define AM_MEMORY_H

#include <stdint.h>
#include <stdio.h>

#include "../sim/common.h"
#include "alloc.h"

typedef struct mem_level mem_level;

typedef struct mem_params {
    const char *name;
    const char *kind;
    uint64_t capacity;            /* bytes */
    uint64_t granularity;         /* bytes, >= 1 */
    const struct alloc_ops *policy;
    const void *policy_opts;
    int recorded_addresses;       /* honour hints (see above) */
    FILE *log;                    /* optional allocator event log (R/G/A/OOM/S lines) */
    /* optional: called for every device range taken (alloc = 1) or given back; for a policy
     * that maps virtual ranges of its own (alloc.h, maps_virtual), for every range it maps
     * (alloc = 1) or unmaps instead */
    void (*on_device)(void *ctx, int alloc, uint64_t addr, uint64_t bytes);
    void *on_device_ctx;
    int log_names;                /* a log shared by several levels: every line starts "NAME: " */
    uint64_t pad_requests_to;     /* bytes, a power of two (0 or 1: none): every request is
                                   * rounded up to a multiple before the policy sees it */
} mem_params;

int mem_create(mem_level **m, const mem_params *p, am_error *err);
void mem_destroy(mem_level *m);

/* Allocate for a request; ALLOC_OK with *o, or ALLOC_OOM. Updates counters and metrics. The
 * policy is asked for r->bytes padded (mem_padded); live bytes count r->bytes, so the padding
 * is internal fragmentation (given - requested). */
int mem_alloc(mem_level *m, const alloc_req *r, alloc_out *o);
/* The same, but a failure is not counted as an out-of-memory result (a request that will be
 * retried); mem_count_oom counts it when it finally fails, in the level's ooms and the
 * policy's own statistic (alloc.h count_oom). */
int mem_alloc_attempt(mem_level *m, const alloc_req *r, alloc_out *o);
void mem_count_oom(mem_level *m);
/* Two-phase free support: free_requested then free (free alone does both). */
void mem_free_requested(mem_level *m, uint64_t handle, uint64_t requested, uint64_t given);
void mem_free(mem_level *m, uint64_t handle, uint64_t requested, uint64_t given, int requested_done);
/* Look-ahead hint passed to the policy (alloc.h prefetch_free, stages 0 and 1); nothing changes. */
void mem_prefetch_free(mem_level *m, uint64_t handle, int stage);

/* Host time the last allocation or free spent in the policy (device calls), 0 for most. */
am_ps mem_take_latency(mem_level *m);

/* Recorded placement hints. */
void mem_note_recorded_segment(mem_level *m, uint64_t addr, uint64_t bytes);
void mem_hint(mem_level *m, uint64_t addr); /* TR_NO_ADDR clears */

/* While quiet, allocations and frees update counters but not peaks or fragmentation metrics
 * (the engine's defragmentation frees and re-places every live block in one step). */
void mem_set_quiet(mem_level *m, int quiet);

/* A defragmentation has released every live buffer and places them again (done = 0), or has
 * placed them (done = 1): passed to the policy (alloc.h compact) when it has the hook. */
void mem_compact(mem_level *m, int done);

/* A start-state prologue (engine.c: a snapshot's recovery of the state at its trace's start,
 * whose tiling allocations of blocks free at the start are freed only after every segment is
 * tiled) runs from mem_set_prologue(m, 1) to mem_set_prologue(m, 0): allocations and frees
 * update the counters (and allocs / frees) but no peak (live, live count, allocated, reserved)
 * and no section-6 metric; at the end the state it left is taken once, as after an event, and,
 * when nothing happened on the level before the prologue, the policy's own peak statistics are
 * reset to their current values (alloc.h reset_peaks). */
void mem_set_prologue(mem_level *m, int on);

/* Fault injection for tests: refuse the next n device allocations. */
void mem_fail_next_device_allocs(mem_level *m, unsigned n);

/* Run the policy's invariant check plus the level's own (reserved = sum of device ranges). */
int mem_check(mem_level *m, am_error *err);

/* End of run: let the policy log its final lines (its finish(); a policy without one gets an S
 * line of its statistics, "S NAME=VALUE ...", a current/peak pair as NAME.current and NAME.peak,
 * an undefined real as null), then give back nothing (state is kept for reporting). */
void mem_finish(mem_level *m);

/* Counters and section-6 metrics. */
typedef struct mem_metrics {
    uint64_t live_bytes, peak_live_bytes;           /* sum of requested sizes */
    uint64_t allocated_bytes, peak_allocated_bytes; /* sum of given sizes */
    uint64_t reserved_bytes, peak_reserved_bytes;   /* held from the device; the peak of the
                                                       states left after a request or free */
    uint64_t reserved_unallocated_at_peak;          /* reserved - allocated when reserved first
                                                       reached its peak (that same state) */
    uint64_t internal_frag_at_peak_live;            /* given - requested, at peak live */
    uint64_t max_internal_frag;
    double max_external_frag;                       /* max over events of 1 - largest/total free */
    int have_external_frag;
    uint64_t live_count, peak_live_count;
    uint64_t allocs, frees, ooms;
    uint64_t device_allocs, device_frees, device_refusals; /* device calls made (those given
                                                       back within their request included),
                                                       returns, refused calls (no output
                                                       shows these: engine.c device_activity
                                                       leaves them out) */
    am_ps allocator_ps;                             /* host time spent in the policy */
} mem_metrics;

const mem_metrics *mem_get_metrics(const mem_level *m);
const char *mem_name(const mem_level *m);
const char *mem_kind(const mem_level *m);
uint64_t mem_capacity(const mem_level *m);
/* The bytes the level's policy can ever hold: its own pool limit (alloc.h pool_limit), at most
 * the capacity; the capacity for a policy without one. */
uint64_t mem_usable(const mem_level *m);
/* The fewest bytes of mem_usable that a request of `bytes` needs, with the level's padding and
 * the policy's own rounding and segment rules (alloc.h min_capacity); UINT64_MAX when none. */
uint64_t mem_min_capacity(const mem_level *m, uint64_t bytes);
/* bytes as the policy is asked for them: rounded up to the level's pad_requests_to (requests of
 * more than 4 EiB, out of memory anyway, as they are). */
uint64_t mem_padded(const mem_level *m, uint64_t bytes);
const struct alloc_ops *mem_policy(const mem_level *m);
void *mem_policy_state(mem_level *m);
uint64_t mem_largest_free(mem_level *m);
/* 1 only when mem_alloc_attempt of `bytes` would certainly fail and change nothing (alloc.h
 * cannot_serve: the policy must say so; a request above any level's size always does); 0 when
 * unsure. Monotone in bytes. */
int mem_cannot_serve(mem_level *m, uint64_t bytes);
/* Free bytes inside reserved memory: reserved - allocated - blocks pending a two-phase free
 * (free_requested done, free_completed not yet: the policy still holds them). */
uint64_t mem_free_in_reserved(const mem_level *m);
/* Given bytes of the blocks pending a two-phase free (free_requested done, not completed). */
uint64_t mem_pending_bytes(const mem_level *m);
/* A count that moves with every change of what the level holds: a block served or freed (quiet
 * ones too), a free requested, a device range taken or given back. Equal counts mean the same
 * blocks in the same places (engine.c: a compaction is not repeated on an unchanged level);
 * unequal ones may still be the same layout (a device range taken and given back by a rolled
 * back map counts twice), so callers rely on equality only. */
uint64_t mem_changes(const mem_level *m);

#endif
