/* prepass.h - read a trace once before the run to learn every buffer's lifetime, for the
 * policies that plan offline (the `offline` policy, allocators.md section 5).
 *
 * Lifetimes are counted in trace events: a buffer lives from the index of its allocation event
 * to the index of its free (TR_FREE, or TR_FREE_COMPLETED after a two-phase release), or to the
 * total event count when it is never freed. Event indices preserve the replay order, so two
 * buffers overlap in this clock exactly when they are live at the same time in the run.
 * When the trace has timestamps, plan_buf.span gets the lifetime in trace time (ps, timed 1),
 * which orders the planners' buffers (plan_lifetime: "longer lifetime first" in the trace's
 * own clock); without them, timed is 0. */
#ifndef AM_PREPASS_H
#define AM_PREPASS_H

#include <stddef.h>

#include "../models/plan.h"
#include "common.h"
#include "config.h"
#include "engine.h"
#include "trace.h"

/* One buffer per allocation request the engine makes on a level (in [0, nlevels)), in request
 * order, as the engine makes them: a TR_ALLOC on its level, but not an `alloc ... donate=` that
 * the engine matches (donor live and not free_requested, same level and requested size: the
 * output takes over the donor's buffer, whose lifetime then ends at the output's free), and a
 * transfer's `into=` buffer on its destination level, at the transfer's index, unless the
 * transfer does not happen whatever the capacity: cfg's transfer guard rejects it (cfg NULL: no
 * guard), its id= is unknown (--lenient skips it), or its source never has memory (an
 * allocation over 4 EiB, an into= of such a transfer); never one the engine does not hand to
 * the policy, of 0 bytes or over 4 EiB (AM_MAX_BYTES). An event --lenient skips plans nothing
 * and ends no lifetime (a free_completed without its free_requested). Outcomes known only
 * during the run (an allocation that runs out of memory or waits for frees) are not foreseen:
 * the policy matches requests to the plan by event index (alloc_req.event) and falls back when
 * they differ. per_level[i] (caller frees, NULL when empty) and counts[i] are filled for every
 * level. 0, or -1 with err (trace errors carry file:line:col). */
int prepass_collect(const char *trace_path, const trace_opts *o, const am_config *cfg,
                    int nlevels, plan_buf **per_level, size_t *counts, am_error *err);

/* For every level of s whose policy plans offline (alloc_ops.set_plan), collect the trace's
 * buffers (one extra read of the trace, only when some level needs it) and hand each such
 * level its list. With progress set and standard error a terminal, a line there says which
 * phase runs (planning a large trace takes seconds), cleared when done. Call after sim_create
 * and before sim_run. 0, or -1 with err. */
int prepass_attach(sim *s, const am_config *cfg, const char *trace_path, const trace_opts *o,
                   int progress, am_error *err);

#endif
