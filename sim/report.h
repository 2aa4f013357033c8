/* report.h - the results of a run: readable text and the JSON summary (contract.md, Outputs). */
#ifndef AM_REPORT_H
#define AM_REPORT_H

#include <stdio.h>

#include "engine.h"
#include "json.h"

typedef struct report_trace {
    const char *path, *format;
    uint64_t events, skipped;
} report_trace;

void report_text(FILE *f, sim *s, const report_trace *t);
void report_json(FILE *f, sim *s, const report_trace *t);
/* The trace as run's summary JSON gives it under "trace": an object with path, format, events
 * and skipped, under key (compare and mincap write it as "trace_info"). */
void report_json_trace(json_w *w, const char *key, const report_trace *t);

/* Section-6 metrics of one level, derived from its counters. */
typedef struct level_metrics {
    uint64_t peak_live, peak_reserved, reserved_unallocated_at_peak;
    uint64_t internal_frag, max_internal_frag;
    double utilization, fragmentation_ratio, max_external_frag; /* NaN when undefined */
} level_metrics;
void report_level_metrics(mem_level *m, level_metrics *out);

#endif
