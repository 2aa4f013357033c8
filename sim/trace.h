/* trace.h - trace readers behind one iterator.
 *
 * Formats are detected by content, never by file name:
 *   native text   first non-blank line "amsim-trace v1"           (traces/FORMAT.md)
 *   lifetime CSV  header line starting "id,lower,upper,size"        (optional ",offset")
 *   PyTorch snapshot  pickle (first byte 0x80, protocol 2..5)      (allocators.md section 4)
 * gzip-compressed files (1f 8b) are read transparently (when the gzip reader is built in).
 *
 * A reader yields events in replay order. It resolves memory-level names against the names the
 * config gives it and reports unknown ones as input errors with file:line:column. The native
 * reader streams (bounded memory); a lifetime CSV's events are sorted (contract.md: by time,
 * frees before allocs at equal time, ties in row order), so it streams only when its rows are
 * in `lower` order with unique ids (memory grows with live buffers) and is read whole
 * otherwise (trace_csv.c). */
#ifndef AM_TRACE_H
#define AM_TRACE_H

#include <stdint.h>

#include "common.h"

typedef enum tr_kind {
    TR_ALLOC = 1,      /* id, bytes, level, stream [, name] [, addr = recorded address] */
    TR_FREE,           /* id: release now (both phases) */
    TR_FREE_REQUESTED, /* id: tensor dropped, block pending (PyTorch free_requested) */
    TR_FREE_COMPLETED, /* id: block returned to the pool (PyTorch free_completed) */
    TR_TRANSFER,       /* level -> dst_level, bytes, stream [, id = buffer] */
    TR_COMPUTE,        /* duration (ps), stream */
    TR_RECORD,         /* event (arg) recorded on stream */
    TR_WAIT,           /* stream waits for event (arg) */
    TR_SYNC,           /* host waits for stream (or all streams when stream == TR_ALL) */
    TR_SEGMENT_ALLOC,  /* recorded device allocation: addr, bytes, level (validation/hints) */
    TR_SEGMENT_FREE,   /* recorded device free: addr, bytes, level */
    TR_OOM_RECORDED,   /* the recording saw an out-of-memory here: bytes */
    TR_USE,            /* buffer id is used now (brings a spilled buffer back; LRU order) */
    TR_DEFRAG          /* explicit defragmentation of a level now (JAX's client.defragment()),
                          whatever its defrag.trigger; stream is TR_ALL (a host action) */
} tr_kind;

#define TR_NAME_MAX 255 /* bytes of a name= (traces/FORMAT.md), in every form */
#define TR_KIND_LAST TR_DEFRAG /* the highest tr_kind value (readers and writers check it) */

/* Kinds whose events name a memory level (the others run on the default level): the binary
 * form stores a level only for these, and the text writer names one. */
static inline int tr_kind_has_level(int k)
{
    return ((1u << k) & (1u << TR_ALLOC | 1u << TR_TRANSFER | 1u << TR_SEGMENT_ALLOC |
                         1u << TR_SEGMENT_FREE | 1u << TR_OOM_RECORDED | 1u << TR_DEFRAG)) != 0;
}

/* Kinds whose events may carry a `name=` (traces/FORMAT.md): the binary form's extension and
 * the text writer take the set from here, and the native reader's table (trace_native.c) has
 * the same. An `oom` line's since 2026-11-28. */
static inline int tr_kind_named(int k)
{
    return (1u << k & (1u << TR_ALLOC | 1u << TR_TRANSFER | 1u << TR_COMPUTE |
                       1u << TR_OOM_RECORDED)) != 0;
}

#define TR_ALL UINT32_MAX      /* TR_SYNC on every stream */
#define TR_NO_ADDR UINT64_MAX  /* no recorded address */
/* The latest time a trace may give an event: 2^64 - 3 ps. 2^64 - 1 means "no time"
 * (AM_TIME_NONE) and 2^64 - 2 is where a run's clock stops (AM_PS_MAX: a sum saturated there,
 * an error), so that an event timed there could not run under any policy; every reader refuses
 * a later one at its line (until 2026-11-27 2^64 - 2 ps was read and every run then failed). */
#define TR_TIME_MAX (AM_PS_MAX - 1)
#define TR_NO_ID UINT64_MAX    /* no buffer id (a recorded out-of-memory's request) */

typedef struct tr_event {
    tr_kind kind;
    uint32_t stream;
    int32_t level;       /* level index in the config; the default level when the trace names none */
    uint8_t level_default; /* 1: the trace named no level (level is the config's default_memory):
                              the writers leave it unnamed, so that a conversion replays on the
                              default of the config it runs under, as its input does */
    int32_t dst_level;   /* TR_TRANSFER */
    uint64_t id;         /* buffer id (TR_ALLOC/FREE*, optional for TR_TRANSFER: the buffer the copy
                            reads, TR_NO_ADDR = none) */
    uint64_t bytes;
    am_ps time;          /* earliest start (ps), AM_TIME_NONE when the trace gives none */
    am_ps duration;      /* TR_COMPUTE */
    uint64_t arg;        /* TR_RECORD/TR_WAIT: event id */
    uint64_t addr;       /* recorded address or CSV offset, TR_NO_ADDR when absent */
    const char *name;    /* optional tag, NULL when absent; valid until the next trace_next */
    unsigned long line;  /* source position of the event, for messages */
    unsigned long col;
    int declared;        /* TR_SEGMENT_ALLOC: 1 = declaration of a segment the recording had
                            (note it for recorded placement; not an allocation now, not a
                            validation event); 0 = the recording allocated it here */
    /* Hierarchy fields (zero when absent, so readers that do not set them stay correct): */
    uint8_t implicit;    /* TR_TRANSFER: an implicit transfer (transfer guard applies) */
    uint8_t has_into;    /* TR_TRANSFER: allocate buffer `into` at the destination first */
    uint8_t has_donate;  /* TR_ALLOC: take over buffer `donate` (buffer donation) */
    uint8_t has_to;      /* TR_TRANSFER: the copy writes the existing buffer `to` (id= is the
                            buffer it reads); never with has_into, which allocates one */
    uint64_t into, donate, to;
} tr_event;

typedef struct trace_opts {
    const char *const *level_names; /* config level names, index = level index */
    int nlevels;
    int default_level;
    int lifetimes_inclusive;        /* lifetime CSV: [lower, upper] instead of [lower, upper) */
    am_ps time_unit;                /* ps per CSV tick / unitless native time (default 1 ns) */
    int device;                     /* PyTorch snapshot: which device's trace (default 0) */
} trace_opts;

typedef struct trace trace;

int trace_open(trace **t, const char *path, const trace_opts *o, am_error *err);
/* 1 when the file at path starts as trace_open detects a trace format (a pickle, the binary
 * form's or gzip's magic bytes, or a first line neither blank nor a comment that is a native
 * header or a lifetime CSV header), or when the detection itself fails in a way trace_open
 * reports (a NUL byte before that line, a read error, a path that cannot be opened); 0 for
 * anything else, an empty file and one of only blank lines and comments included. Reads the
 * start of the file only: `amsim check` asks it first, and reads the rest as a config. */
int trace_sniff(const char *path);
/* 1 and *ev filled, 0 at the end, -1 on error (err set, file:line:col). The caller does not
 * change *ev between calls: a reader may leave in place the absent fields the previous event it
 * wrote there had, instead of writing them again. */
int trace_next(trace *t, tr_event *ev, am_error *err);
void trace_close(trace *t);
/* "native", "lifetime_csv", "pytorch_snapshot" */
const char *trace_format(const trace *t);
const char *trace_path(const trace *t);
/* 1 when the format's allocations may carry a recorded address (native and binary `addr=`, a
 * lifetime CSV's `offset` column, a snapshot's addresses): a run validates against them once
 * one does, whatever format it came in (amsim convert must not change the results). */
int trace_records_addrs(const trace *t);
/* Rows skipped by rule (CSV: upper <= lower or size 0; a snapshot's unknown actions and frees
 * of unknown addresses), counted, plus those a converted trace says its source skipped (native
 * header skipped=N, binary header count, CSV "# amsim skipped=N"). */
uint64_t trace_skipped(const trace *t);
/* An error at an event of a PyTorch snapshot's trace, "PATH:N: why" (the engine's and check's
 * form, N the entry's 1-based position in its device trace), rewritten in the snapshot
 * reader's form, "PATH: device_traces[D][N-1]: why"; any other error is left as it is. */
void trace_place_error(const trace *t, am_error *err);
/* 1 when a run validates the trace against its recorded addresses from its first event, whatever
 * it records: a snapshot, and a trace converted from one (native header validated=1, binary
 * header flag), so that the conversion reports the snapshot's validation even when no
 * allocation outside the prologue recorded an address (until 2026-11-27 it had none). 0: a run
 * validates once the trace records something it can check (trace_records_addrs). */
int trace_validated(const trace *t);

/* The allocator settings a recording was made with, as option keys of amsim's caching policy
 * and values in config syntax (a PyTorch snapshot's allocator_settings: max_split_size,
 * roundup_power2_divisions, expandable_segments, garbage_collection_threshold); *s is set to
 * the array, the count returned (0 for other formats). */
#define TRACE_MAX_SETTINGS 8
typedef struct trace_setting {
    char key[40];
    char value[160];
} trace_setting;
int trace_settings(const trace *t, const trace_setting **s);

#endif
