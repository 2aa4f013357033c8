/* convert.h - `amsim convert`: any supported trace to the native format or a lifetime CSV. */
#ifndef AM_CONVERT_H
#define AM_CONVERT_H

#include <stddef.h>
#include <stdint.h>

/* argv without the command name; returns the exit status. */
int cmd_convert(int argc, char **argv);

struct trace;
struct am_config;
struct am_error;

/* amsim check of a trace: reads it to its end with the rules on ids and events that run
 * enforces (duplicate and unknown ids, 0-byte allocations, second free requests, completions
 * without a request, waits on unrecorded events, queued operations on streams past the limit),
 * the ones convert applies (cv_rules), with run's messages at FILE:LINE:COL. lenient: those run
 * --lenient counts and skips are counted in *skipped and skipped the same way; lenient < 0:
 * strict, for a command without --lenient (check of a sweep), so its errors do not suggest it.
 * The events read into *events. 0, or -1 with err set. */
int convert_check_trace(struct trace *t, const struct am_config *cfg, const char *in, int lenient,
                        uint64_t *events, uint64_t *skipped, struct am_error *err);

/* For tests: the row slots (one per buffer live at once, on any level) and the ranges of
 * consecutive ids (lifetime CSV only) the last check or lifetime CSV conversion held; both
 * follow the live buffers, not the events. */
void convert_last_held(size_t *row_slots, size_t *id_ranges);

#endif
