/* trace_write.h - the native text trace writer (traces/FORMAT.md, version 1).
 *
 * Writes every event kind the native reader accepts, so that reading the output gives the same
 * events back (kind, stream, levels, id, bytes, time, duration, event id, recorded address,
 * name, declared, into, to, implicit, donate; an alloc, free or free_requested with line 0 - the
 * snapshot reader's start-state recovery - is marked prologue=1, so that it stays out of
 * validation and of the metrics until the prologue is over; an event that named no level,
 * tr_event.level_default, is written without level=, so that it runs on the default memory of
 * the config that replays it): `amsim convert` uses it. Times
 * are written in picoseconds
 * under a `time_unit=ps` header, so nothing is rounded. at= times that would decrease (a
 * recording whose clock stepped back) are clamped to the previous one: the engine's host clock
 * never goes backwards, so the replay is the same. */
#ifndef AM_TRACE_WRITE_H
#define AM_TRACE_WRITE_H

#include <stdio.h>

#include "trace.h"

typedef struct tw_writer {
    FILE *f;
    const char *const *level_names; /* index = level index of the events */
    int nlevels;
    am_ps last_at;                  /* latest at= written (ps) */
} tw_writer;

/* Start a native trace on f: the header line (with skipped=N when skipped > 0: the rows the
 * source skipped, which the reader counts as skipped again; with validated=1 when validated: the
 * source is validated from its start, trace_validated), then `# comment` lines for each
 * line of comment (may be NULL); other control characters in it are written as escapes (\r,
 * \t, \xHH), so that the output reads back. */
void tw_init(tw_writer *w, FILE *f, const char *const *level_names, int nlevels,
             const char *comment, uint64_t skipped, int validated);
/* s with every control character (newline included) written as a C escape (\n, \r, \t,
 * \xHH), into out (cap bytes, NUL-terminated; cut at a whole character when
 * short): text of one comment line, e.g. a file name. Returns the length written. */
size_t tw_escape(char *out, size_t cap, const char *s);
/* The native op name of an event kind ("alloc", "segment_alloc", "oom", ...), as tw_event
 * writes it; NULL for a value that is no tr_kind. */
const char *tw_op_name(int kind);
/* One event as one line; 0, or -1 (err set) for a level index with no name. */
int tw_event(tw_writer *w, const tr_event *ev, am_error *err);

#endif
