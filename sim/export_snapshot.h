/* export_snapshot.h - the simulated run as a PyTorch memory snapshot pickle
 * (`amsim run --pytorch-snapshot FILE`; allocators.md section 4).
 *
 * An engine observer recording the default memory level (as device 0): device_traces entries
 * alloc, free_requested, free_completed (a plain free gives both), segment_alloc and
 * segment_free (segment_map and segment_unmap when the run is written with expandable
 * segments) and oom, and at the end the `segments` with their blocks. A start-state prologue's
 * entries (a replayed snapshot's, engine.h) are not in device_traces but in a list of amsim's
 * own, `amsim_start_traces`, which trace_pickle.c replays as the prologue. Pickle protocol 4 of
 * builtins only (dict, list, str, int, bool, None), so python3's pickle.load and amsim's own
 * restricted reader (trace_pickle.c) read it; PyTorch's viewer (pytorch.org/memory_viz) too.
 * Written atomically when closed. */
#ifndef AM_EXPORT_SNAPSHOT_H
#define AM_EXPORT_SNAPSHOT_H

#include "config.h"
#include "engine.h"
#include "outfile.h"

typedef struct snap_exp snap_exp;

/* NULL path: *x = NULL. cfg must outlive the exporter. */
int snap_open(snap_exp **x, const char *path, const am_config *cfg, am_error *err);
const sim_observer *snap_observer(snap_exp *x);
/* The run's sim, from sim_create until snap_close: the policy names its segments' pools and
 * streams (segment_type, stream), where it can (alloc.h segment_kind). */
void snap_attach(snap_exp *x, const sim *s);
/* Write the pickle and hand over its output, still a temporary, for the caller to commit with
 * its other outputs (out_commit_all; until 2026-11-27 this renamed it at once); frees x. NULL x
 * gives NULL; so does a failure of the scratch files the trace entries wait in (err set,
 * nothing written). */
outfile *snap_finish(snap_exp *x, am_error *err);
/* For tests: the most trace-entry records the last export held in memory at once (the rest
 * wait in scratch files: memory follows the live blocks, not the events). */
size_t snap_last_held(void);
void snap_abort(snap_exp *x);

#endif
