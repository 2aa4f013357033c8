/* trace_bin.h - the compact binary trace form, version 1 (traces/FORMAT.md, "Binary format v1").
 *
 * A file starts with the magic bytes "AMSB" and a version byte; trace.c detects it by content
 * (trace_bin_magic) and reads it through trace_bin_open. `amsim convert IN -o OUT --to binary`
 * writes it with trace_bin_write. Every event kind of the native format round-trips: reading the
 * binary form gives the same events (kind, stream, levels, ids, bytes, times in ps, durations,
 * event ids, addresses, names, flags) as reading its source, except that `line` is the record
 * number (1-based; 0 stays 0 for the prologue's allocations, frees and free requests) and `col`
 * is 0. */
#ifndef AM_TRACE_BIN_H
#define AM_TRACE_BIN_H

#include <stddef.h>
#include <stdio.h>

#include "trace.h"

#define TRACE_BIN_MAGIC "AMSB"
#define TRACE_BIN_VERSION 1

/* 1 when the first n bytes of a file (n >= 4 to decide) start a binary trace. */
int trace_bin_magic(const unsigned char *p, size_t n);

/* Write every remaining event of `in` to `out` in binary form v1, levels named by in's config
 * level names (trace_opts). 0, or -1 with err: a read error of `in` (its message) or an event
 * naming a level the config does not have. The caller opens and closes out, and a write error
 * is its to report, as for the other writers: it is left on out's stream (ferror), its errno
 * noted (out_note_write_error), and the writing stops there (out_commit gives "FILE: write
 * failed: REASON"; until 2026-11-27 this returned "binary trace writer: write error: REASON",
 * naming no file). */
int trace_bin_write(FILE *out, trace *in, am_error *err);

/* Reader entry for trace.c (t->f rewound to the start of a file with the magic). */
int trace_bin_open(trace *t, am_error *err);

#endif
