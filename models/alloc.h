/* alloc.h - the interface every allocator policy implements.
 *
 * One policy = one file models/alloc_NAME.c exporting `const struct alloc_ops *alloc_NAME_ops(void)`
 * (STYLE.md: SQLite mem5, Lua's lua_Alloc). The table in models/policies.c maps names to getters.
 *
 * A policy manages the address space of one memory level. It takes memory from the device only
 * through env->dev_alloc / env->dev_free (so the level can count reserved bytes and place regions
 * in the device address model), and reports every block it hands out as (address, size, handle).
 * Addresses are offsets in the level's device address space [0, capacity) (the 64-bit range for
 * device_by_bytes policies, below), except those of a policy that maps a virtual address space
 * of its own (maps_virtual below).
 * A policy knows nothing about traces, YAML or output formats. */
#ifndef AM_ALLOC_H
#define AM_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#include "../sim/common.h"
#include "opts.h"
#include "plan.h"

/* What the memory level offers a policy. */
typedef struct alloc_env {
    void *ctx;
    uint64_t capacity;    /* bytes in the device address space */
    uint64_t granularity; /* device allocation granularity, bytes (>= 1) */
    /* Take `bytes` from the device: 0 and *addr on success, -1 when refused (capacity, fault
     * injection). Regions are placed first-fit from address 0 unless the level holds a recorded
     * address hint for the next device allocation (see mem_hint_device_addr). */
    int (*dev_alloc)(void *ctx, uint64_t bytes, uint64_t *addr);
    void (*dev_free)(void *ctx, uint64_t addr, uint64_t bytes);
    /* Optional look-ahead hint: the region at addr is given back soon (dev_free); nothing
     * changes. NULL when the level has no use for it. */
    void (*dev_prefetch_free)(void *ctx, uint64_t addr);
    /* Optional event log (regions, allocator-specific lines); may be NULL. */
    void (*log)(void *ctx, const char *line);
    /* For policies whose ops have maps_virtual: [va, va + bytes) of the policy's own virtual
     * address space became backed by device memory taken with dev_alloc (map = 1), or stopped
     * being backed (map = 0): one call for each map or unmap the real allocator records
     * (PyTorch's segment_map / segment_unmap), made after it succeeded. The level sets it. */
    void (*dev_map)(void *ctx, int map, uint64_t va, uint64_t bytes);
    /* For policies whose ops have maps_virtual, with recorded addresses (memory.h): where the
     * recording's virtual range for the request being served began, to reserve a new range
     * there: the start of the outermost recorded segment holding the address the recording
     * gave the request (recorded segments may overlap: a declared range and the pieces mapped
     * inside it). UINT64_MAX when there is none (no hint, no recorded segment holds it). */
    uint64_t (*va_hint)(void *ctx);
    /* For the same policies: the end of the highest recorded segment the level knows, so that
     * ranges placed without a recorded address can keep clear of the recorded ones (0 without
     * recorded addresses; UINT64_MAX when one ends at the top of the 64-bit space). */
    uint64_t (*va_recorded_end)(void *ctx);
    /* For the same policies: the end of a recorded segment that [base, base + size) overlaps
     * (UINT64_MAX when it ends at 2^64), 0 when none does or without recorded addresses. */
    uint64_t (*va_recorded_over)(void *ctx, uint64_t base, uint64_t size);
    /* For the same policies: inside a start-state prologue (memory.h), which recreates the
     * recording's state, the address the recording gave the request being served, to place it
     * there rather than where the policy would; UINT64_MAX otherwise. */
    uint64_t (*place_hint)(void *ctx);
} alloc_env;

typedef struct alloc_req {
    uint64_t bytes;  /* requested bytes, > 0 */
    uint32_t stream; /* stream the allocation is ordered on */
    /* 1 + the index of the trace event that asks for it (its `alloc`, a transfer's `into=`,
     * and a wait's retries, which keep the event's index), or 0: a request the run makes by
     * itself (a spill's host copy, a restore, defragmentation). The `offline` policy finds
     * the planned request by it (sim/prepass.h numbers events the same way). */
    uint64_t event;
} alloc_req;

typedef struct alloc_out {
    uint64_t addr;   /* offset in the level's device address space */
    uint64_t size;   /* bytes the policy gave (chunk or block size) */
    uint64_t handle; /* opaque, passed back to free */
} alloc_out;

/* A block as walk() reports it. */
typedef struct alloc_block {
    uint64_t addr, size;
    uint64_t requested; /* 0 for free blocks */
    int in_use;         /* 1 allocated, 0 free (cached), 2 freed but pending (stream-ordered) */
    uint64_t region;    /* start address of the region/segment that holds it */
} alloc_block;

/* Where a policy reports its own statistics, under the real system's names. */
typedef struct stat_sink {
    void *ctx;
    void (*u64)(void *ctx, const char *name, uint64_t v);
    void (*cur_peak)(void *ctx, const char *name, uint64_t current, uint64_t peak);
    void (*real)(void *ctx, const char *name, double v, int is_null);
} stat_sink;

enum { ALLOC_OK = 0, ALLOC_OOM = 1 };

struct alloc_ops {
    const char *name;
    const char *summary;      /* one line for --help and the README */
    const opt_desc *opts;     /* NULL-key terminated */
    size_t opts_size;         /* sizeof the policy's options struct */
    /* Create a policy instance. opts points at a filled options struct. */
    int (*create)(void **st, const alloc_env *env, const void *opts, am_error *err);
    /* Optional: every rule create() applies to the option values and the level they run on (a
     * power-of-two alignment, one option a multiple of another, an arena or limit the capacity
     * leaves room for), checked when a config loads so that `amsim check` refuses what every
     * run refuses, at the value's line and column; 0, or -1 with err (am_fail_opt naming the
     * keys, most likely first; "capacity" and "granularity" are the level's keys). create()
     * applies the same check, so the two agree. opts is filled; of env only capacity and
     * granularity are read (the loader has no device yet). Until 2026-11-27 it had no env, and
     * the rules on the capacity (bfc's 256-byte limit, prealloc's empty arena, buddy's
     * min_block, tlsf's alignment) ran only in create(): `amsim check` passed such configs. */
    int (*check_opts)(const void *opts, const alloc_env *env, am_error *err);
    void (*destroy)(void *st);
    /* ALLOC_OK and *o, or ALLOC_OOM: nothing handed out, though the policy may have given
     * cached memory back on its way, as the real one does (PyTorch's release before a retry). */
    int (*alloc)(void *st, const alloc_req *r, alloc_out *o);
    /* Release a block (handle from alloc): its memory is reusable from now on. */
    void (*free)(void *st, uint64_t handle);
    /* Optional look-ahead hint, which never changes a result: the block `handle` (live when the
     * hint is given) is freed soon. Stage 0 comes first (the policy prefetches the block's
     * record), stage 1 some operations later (what the free touches next through the record
     * stage 0 brought into cache: its address neighbours, or its entry in a live-block array).
     * A stage reads only the policy's own records. */
    void (*prefetch_free)(void *st, uint64_t handle, int stage);
    /* Optional two-phase release (PyTorch's free_requested): the tensor is dropped but the
     * block waits for pending stream uses; free() follows later. NULL: the engine calls only
     * free(), at completion. */
    void (*free_requested)(void *st, uint64_t handle);
    /* Largest free byte range the policy could hand out without asking the device. */
    uint64_t (*largest_free)(void *st);
    void (*stats)(void *st, const stat_sink *sink);
    /* Visit every block (free and in use) in address order. */
    void (*walk)(void *st, void (*fn)(void *arg, const alloc_block *b), void *arg);
    /* Number of broken invariants (0 = consistent); describes the first in err. */
    int (*check)(void *st, am_error *err);
    /* Optional: set every peak statistic to its current value (PyTorch's
     * reset_peak_memory_stats); the level calls it when a start-state prologue ends, so that
     * the tiling the prologue allocated and freed again is in no peak. */
    void (*reset_peaks)(void *st);
    /* Optional: a request this policy refused has finally failed, after whatever the engine
     * does on a failure (defragmentation, spilling, a wait for frees): the level counts it as an
     * out-of-memory result (memory.h mem_count_oom) and calls this once. A policy counts its
     * out-of-memory statistic here, not in alloc(), so that one count is the same everywhere: a
     * refusal the engine recovers from counts nowhere. (Until 2026-11-27 policies counted every
     * refused attempt: a BFC request served after retry_after_free's wait said ooms=1 in the
     * policy's statistics and S line, 0 in the level's.) */
    void (*count_oom)(void *st);
    /* Optional, for exporters (a PyTorch snapshot's segment_type and stream): the pool and
     * stream of the policy's segment holding addr (a device range it took or, with
     * maps_virtual, a virtual range of its own). *small = 1: a pool of small requests
     * (PyTorch's "small" segments). 0, or -1 when no segment of the policy holds addr. */
    int (*segment_kind)(void *st, uint64_t addr, int *small, uint32_t *stream);
    /* Optional: called once at the end of a run (e.g. BFC logs its statistics). */
    void (*finish)(void *st);
    /* Optional: 1 when these options ask for recorded segment addresses (the memory level then
     * honours the engine's hints, see memory.h). */
    int (*recorded_addresses)(const void *opts);
    /* 1 when the real allocator's device call fails only when the bytes do not fit: reserved +
     * bytes > capacity (cudaMalloc, cudaMallocAsync's pool: the driver maps physical pages into a
     * virtual address space, so the free device memory need not be contiguous). The level then
     * places device ranges first-fit from 0 in the whole 64-bit space: within [0, capacity)
     * whenever a range there fits, else at the lowest address that fits beyond (memory.c).
     * 0 (BFC, the arena policies): a range must fit within [0, capacity), as the BFC oracle's
     * device model says. */
    int device_by_bytes;
    /* Optional: 1 when, under these options, the policy hands out addresses of a virtual
     * address space of its own and reports its device use as maps of it (env->dev_map,
     * PyTorch's expandable segments). The level then reports those maps as the device calls a
     * recording would show, not the device memory taken behind them. */
    int (*maps_virtual)(const void *opts);
    /* Optional: 1 when a failed request may wait up to *wait for frees later on the timeline
     * (BFC's retry-after-free option); the engine implements the waiting. */
    int (*retry_after_free)(const void *opts, am_ps *wait);
    /* Optional, for that retry: 1 only when alloc() of `bytes` (the request as the policy sees
     * it, padded) would certainly fail and change nothing on its way (no device call, no
     * cached memory given back, no latency), so the engine may skip the attempt; 0 when unsure.
     * Monotone in bytes: 1 for some size means 1 for every larger one, so one look at the
     * smallest waiting request can rule out all of them. NULL: every attempt is made. */
    int (*cannot_serve)(void *st, uint64_t bytes);
    /* Optional: simulated time the host spent inside the policy (device calls such as
     * cudaMalloc/cudaFree, pool growth) since the last call; returns it and resets it to 0.
     * The engine charges it to the host clock after every allocation and free. */
    am_ps (*take_latency)(void *st);
    /* Optional: the most bytes this instance can ever hold from the device, a pool limit of
     * its own below the level's capacity (bfc's and prealloc's memory_limit or
     * memory_fraction, buddy's and tlsf's arena: the capacity rounded down to their unit);
     * NULL: the capacity. The engine's "can any runtime action serve this
     * request" tests (defragmentation's and spilling's skip rules) use it through
     * mem_usable (memory.h). */
    uint64_t (*pool_limit)(void *st);
    /* Optional: the fewest bytes of pool limit (mem_usable) a request of `bytes` (padded) needs
     * to be served once every buffer a runtime action can move or evict has gone: the request
     * after the policy's own rounding, or the segment, chunk or block it must take when none
     * it holds (or may hold then) is large enough (caching's 20 MiB segment for a 3.5 MiB
     * request); UINT64_MAX when nothing can serve it. It may answer less than the truth, never
     * more: the engine's skip rules (beyond_capacity) skip a defragmentation or a spill when
     * this is above mem_usable. NULL: bytes. Until 2026-11-28 the engine compared the padded
     * request alone, so a request that only a segment larger than the level could serve
     * evicted or moved buffers (with their copies' time) and failed all the same. */
    uint64_t (*min_capacity)(void *st, uint64_t bytes);
    /* Optional: the policy plans offline and needs every buffer's lifetime before the run
     * (the `offline` policy). bufs lists this level's allocation requests in request order
     * (sim/prepass.h); the policy copies what it needs. Called once, after create and before
     * the first alloc; 0, or -1 with err. */
    int (*set_plan)(void *st, const plan_buf *bufs, size_t n, am_error *err);
    /* Optional: a defragmentation has released every live buffer (done = 0) and now places
     * them again in address order, or has placed them all (done = 1). The blocks the policy
     * still holds at done = 0 are those that stay (their free is pending): a policy whose
     * placement would not pack the buffers toward low addresses around them (prealloc's bump
     * mode, whose top resets only when the arena is empty) places them differently in
     * between. NULL: the policy's ordinary placement is its compaction. */
    void (*compact)(void *st, int done);
    /* 1 when a compaction under this policy packs toward low addresses: placed again in
     * address order, a buffer goes no higher than it was, so none is raised and none lost
     * (its old range is free when its turn comes). Under --check the engine holds the policy
     * to it (first fit and prealloc; not the best-fit policies, whose smallest hole can lie
     * above the buffer, README "Defragmentation"). */
    int compacts_down;
};

/* models/policies.c */
const struct alloc_ops *alloc_find(const char *name);
/* NULL-terminated list of all policies, in a fixed order. */
const struct alloc_ops *const *alloc_all(void);

#endif
