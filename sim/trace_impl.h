/* trace_impl.h - what each trace reader provides to the trace.c dispatcher (internal). */
#ifndef AM_TRACE_IMPL_H
#define AM_TRACE_IMPL_H

#include <stdio.h>

#include "trace.h"
#include "trace_gz.h" /* trace_read_why */

struct trace_reader {
    const char *format; /* "native", "lifetime_csv", "pytorch_snapshot", ... */
    int (*next)(trace *t, tr_event *ev, am_error *err);
    void (*close)(trace *t); /* frees t->impl */
    int addrs; /* 1: its allocations may carry a recorded address (native addr=, a lifetime
                * CSV's offset column, ...), validated once one does (trace_records_addrs) */
};

struct trace {
    const struct trace_reader *reader;
    char *path;
    trace_opts opts;
    FILE *f;          /* open stream positioned at the start of the file (reader owns reads) */
    int gz;           /* 1: f decompresses a gzip-compressed file (read errors say so) */
    uint64_t skipped;
    int validated;    /* 1: a run validates it from the start (trace_validated): a snapshot
                       * (set by its reader), or a converted one whose header says so (native
                       * validated=1, binary flag BH_VALIDATED) */
    trace_setting settings[TRACE_MAX_SETTINGS]; /* trace_settings */
    int nsettings;
    void *impl;       /* reader state */
};

/* What a read error's message says before "read error": "gzip-compressed trace: " when the
 * stream decompresses a gzip file (gz: trace.gz), so that a broken gzip stream is not taken for
 * a disk's error, else nothing. */
static inline const char *trace_read_prefix(int gz) { return gz ? "gzip-compressed trace: " : ""; }

/* The text readers' message for a NUL byte (a C string would end there). */
#define TRACE_NUL_MSG "NUL byte (a text trace has none: is the file binary or damaged?)"
/* ... and for a carriage return inside a line (the one before '\n' is the line ending's). */
#define TRACE_CR_MSG "carriage return inside a line (line endings are LF or CRLF; is this a " \
                     "classic Mac text file?)"
/* A transfer with both into= (a new destination buffer it allocates) and to= (an existing one
 * it writes): the text and binary readers refuse it with these words. */
#define TRACE_INTO_TO_MSG "a transfer names one destination buffer: into=ID (allocated by " \
                          "the copy) or to=ID (already allocated), not both"

/* A recorded range [addr, addr + size) must end by 2^64 - 1: every byte it covers is then at
 * most 2^64 - 2 (2^64 - 1 means "no address"), and every end computed from it fits 64 bits. The
 * snapshot reader has checked it since 2026-11-27; the native, binary and lifetime CSV readers
 * (and so `amsim convert`) accepted such a range until 2026-11-27 and a run only reported a
 * validation mismatch. */
static inline int trace_range_past_end(uint64_t addr, uint64_t size)
{
    return size > UINT64_MAX - addr;
}
/* The words of that refusal, shared by every reader so that they say the same, into buf
 * (returns buf): "'addr' A + 'size' S ends at E, past 2^64 - 1 (18446744073709551615, the end
 * of the address space)", E exact (128 bits). Each reader puts its own place before it. */
const char *trace_range_why(char *buf, size_t n, const char *addr_field, uint64_t addr,
                            const char *size_field, uint64_t size);
/* Enough for trace_range_why with field names of up to 16 bytes. */
#define TRACE_RANGE_WHY_MAX 256

/* Each opens t->impl from t->f (already detected, rewound to the start) and sets t->reader.
 * 0, or -1 with err; on failure t->impl is either NULL or owned by t->reader->close (trace.c
 * calls close when t->reader is set, otherwise free(t->impl)). */
int trace_native_open(trace *t, am_error *err);
int trace_csv_open(trace *t, am_error *err);
/* 1 when t is a lifetime CSV streamed (rows in order, see trace_csv.c), 0 when read whole. */
int trace_csv_streams(const trace *t);
int trace_pickle_open(trace *t, am_error *err);
/* The largest snapshot read, after decompression: 2 GiB, some 16 GB of memory at about 8 bytes
 * a byte (README, "Limits"). A variable so that the tests can lower it. */
#define TRACE_PICKLE_MAX_BYTES ((size_t)2 << 30)
extern size_t trace_pickle_max_bytes;
/* The snapshot reader's work since the program started, in steps: one per operation on its
 * ordered state (a B+-tree lookup, insertion or removal, O(log n)) and one per record a loop
 * visits. The tests read it to check that a snapshot's reading grows as n log n in its entries
 * and segments, not as n^2 (as it did until 2026-11-27), without timing it. */
extern uint64_t trace_pickle_steps;

/* What an event is before its reader fills it: every field zero or absent (no id, address, time
 * or destination), on the default level. */
void trace_blank_event(const trace *t, tr_event *ev);
/* Resolve a level name (len bytes, need not be NUL-terminated) against t->opts; -1 if unknown. */
int trace_level_lookup(const trace *t, const char *name, size_t len);
/* "hbm, host" (the configured level names) for messages; "none" when there are none. */
void trace_level_list(const trace *t, char *buf, size_t n);

#endif
