/* streamset.h - the distinct stream numbers a trace names, at most SIM_MAX_TRACE_STREAMS.
 *
 * Every stream a policy sees can cost it memory of its own (caching keeps a pool per stream:
 * its sizeset heap is about 85 KB per stream and pool once a block is cached there), so a trace
 * naming 200,000 stream numbers took 17 GB of host memory and 300,000 exhausted a 24 GB host
 * (until 2026-11-27). Real programs use a handful to a few hundred streams, so a trace may name
 * at most 1024 distinct ones (stream 0, where an op without stream= runs, counts): the engine
 * and the rules check and convert apply (convert.c, cv_rules) refuse the event that names one
 * more, under --lenient too (a limit, not a problem of the trace). traces/FORMAT.md, "Limits".
 *
 * Zero-initialised is empty. Keys are stream + 1 (0 marks an empty slot); a sync on every
 * stream (TR_ALL, whose + 1 wraps to 0) names none. The hot path compares with the last stream
 * named, so a run of events on one stream costs one comparison each. */
#ifndef AM_STREAMSET_H
#define AM_STREAMSET_H

#include <stdint.h>

#include "common.h"
#include "trace.h"

#define SIM_MAX_TRACE_STREAMS 1024

typedef struct streamset {
    uint32_t last;                              /* key of the stream named last, 0 none */
    uint32_t n;                                 /* distinct streams so far */
    uint32_t key[2 * SIM_MAX_TRACE_STREAMS];    /* open addressing, at most half full */
} streamset;

/* streamset_note's slow path, for a key (stream + 1) other than the last one named: 0, or -1
 * when it is not in the table and the table holds SIM_MAX_TRACE_STREAMS already. */
int streamset_add(streamset *ss, uint32_t key);

/* Notes `stream` (any uint32; TR_ALL names none): 0, or -1 when it is a stream past
 * SIM_MAX_TRACE_STREAMS distinct ones (nothing is noted then). */
static inline int streamset_note(streamset *ss, uint32_t stream)
{
    uint32_t key = stream + 1u;
    if (__builtin_expect(key == ss->last, 1))
        return 0;
    return streamset_add(ss, key);
}

/* The error for ev, which names one stream too many: "FILE:LINE:COL: more than 1024 distinct
 * streams ...". Returns -1. */
int streamset_refuse(const tr_event *ev, const char *file, am_error *err);

/* streamset_note for ev's stream, refusing it (streamset_refuse) when it is one too many. */
static inline int streamset_check(streamset *ss, const tr_event *ev, const char *file,
                                  am_error *err)
{
    if (__builtin_expect(streamset_note(ss, ev->stream) == 0, 1))
        return 0;
    return streamset_refuse(ev, file, err);
}

#endif
