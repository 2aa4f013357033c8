/* batch.h - studies over many runs: sweeps (batch), minimum capacity search (mincap),
 * statistics over results (stats) and the HTML report (report). Each command takes the
 * arguments after its name and returns the process exit status (0 ok, 1 usage or input,
 * 2 internal, 3 a deviation from an expectation where that applies). */
#ifndef AM_BATCH_H
#define AM_BATCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "common.h"

/* amsim batch SWEEP.yaml [-j N] [--shard K/N] -o DIR; amsim batch --merge DIR... -o OUT */
int cmd_batch(int argc, char **argv);
/* Whether a file is a sweep by content: a YAML map with a top-level key only sweeps have
 * (base, traces, generate, axes, seeds, policies, exclude, expectations, outputs) and none only
 * configs have (version, memories, links, trace, ...). For amsim check, which otherwise reads a
 * YAML map as a config. */
int batch_sniff_sweep(const char *path);
/* Validate a sweep as `batch SWEEP --list` does, without running or writing anything: the
 * sweep's own rules, every value loaded into its base config under each policy, the traces
 * read, the matrix built. 0 with the number of runs in *nruns, or -1 with FILE:LINE:COL. */
struct am_error;
int batch_check_sweep(const char *file, long *nruns, struct am_error *err);
/* Work this process's sweep loads and matrix walks have done, summed over all of them: for tests
 * that guard their complexity by counting instead of timing. trace_stats: stat calls that
 * compare the traces' files (one per trace); rule_tries: exclusions tried against a run of the
 * matrix; value_tests: exclusion values compared with a dimension's values. */
typedef struct batch_counts {
    unsigned long trace_stats, rule_tries, value_tests;
} batch_counts;
extern batch_counts batch_work;
/* A worker process of a batch, as the scheduler waits for it. */
typedef struct batch_worker {
    pid_t pid;      /* 0: a free slot */
    double kill_at; /* batch_clock() seconds after which it is sent SIGKILL; 0: never */
    int killed;     /* set when batch_wait sent it SIGKILL */
} batch_worker;
/* Seconds on the monotonic clock that kill_at is on. */
double batch_clock(void);
/* Wait until one of the n workers w[] ends: its index, with its wait status in *status (the
 * caller clears the slot), or -1 with errno (EINTR: a signal handler ran; ECHILD: no child).
 * A worker still running at its kill_at is sent SIGKILL and marked killed, which ends one that
 * blocks, ignores or hangs in its handler of every other signal (--timeout's own SIGALRM, the
 * batch's SIGTERM). */
int batch_wait(batch_worker *w, int n, int *status);
/* Track (on 1) or untrack (on 0) for removal on a signal the `made` last components of path
 * that the command created (mkdir -p), as out_track_dir does one directory: the number tracked
 * (at most OUT_DIR_MAX, the deepest). */
int batch_track_made(const char *path, int made, int on);
/* 0 when no amsim batch (nor --merge) holds the lock of the batch folder dir, else -1 with err
 * ("DIR is in use by another amsim batch (pid N)"): report refuses a folder still written. */
int batch_dir_in_use(const char *dir, struct am_error *err);

/* amsim mincap -c CONFIG -t TRACE [--policies a,b] [--granularity BYTES] [--json FILE] */
int cmd_mincap(int argc, char **argv);
/* amsim stats results.csv --metric M --by COLUMN [--paired a,b] */
int cmd_stats(int argc, char **argv);
/* amsim report DIR: DIR/report.html */
int cmd_report(int argc, char **argv);

/* ---- results tables (sim/results.c): CSV as written by batch, read back for analysis ---- */

typedef struct rt_pos {
    unsigned long line, col; /* 1-based, where a cell starts in the file */
} rt_pos;

typedef struct rtable {
    int ncols, nrows;
    char **cols;   /* header names */
    char ***rows;  /* rows[r][c] */
    rt_pos **pos;  /* pos[r][c]: where rows[r][c] starts, for messages */
} rtable;

/* Read a CSV file with a header line (RFC 4180 quoting); every row must have as many fields as
 * the header (blank lines are skipped). Blanks (spaces, tabs) around a field are trimmed, not
 * those inside quotes; a field's position is its first other character. 0 or -1 with a message
 * (FILE:LINE:COL where it applies) in err: AM_EINPUT, or AM_EINTERNAL when host memory ran out.
 * A NUL byte is refused at its place, a read error is "read error: REASON" (until 2026-11-27 both
 * ended the table early, silently). */
int rtable_read(rtable *t, const char *path, am_error *err);
/* The columns a reader keeps: given the header's names (n), keep[c] set to 0 for each column
 * to drop (all are 1 on entry). */
typedef void (*rt_keep_fn)(const char *const *names, int n, unsigned char *keep, void *arg);
/* rtable_read keeping only the columns keep_fn (NULL: all) leaves marked: t->cols, rows and
 * pos hold those, in file order; every row is still checked against the whole header. */
int rtable_read_cols(rtable *t, const char *path, rt_keep_fn keep_fn, void *arg,
                     am_error *err);
void rtable_free(rtable *t);
/* A metric cell as a number: 0 with *v, 1 when it is empty (or blank: a run without the metric),
 * -1 when it is not a finite decimal number ("0x10", "inf", "nan", "5 kB", "1,5"): one rule for
 * stats and report, the decimal numbers gen's real options take, blanks around it ignored; one
 * below the smallest double, which gen refuses, is the 0 it rounds to. */
int rtable_num(const char *cell, double *v);
/* Column index by name, or -1. */
int rtable_col(const rtable *t, const char *name);
/* 1 when a row of this status holds a finished run's metrics: `ok`, or a regress `deviation`
 * (the run finished and wrote every output; only its expectation check failed). Report and stats
 * read a results table's rows through this one rule (until 2026-11-27 both took `ok` only, so a
 * deviation, which batch does not count as failed, was left out of every mean). */
int rt_status_has_metrics(const char *status);
/* Write one CSV field, quoted when it holds a comma, quote, CR or LF or starts or ends with a
 * blank (so that rtable_read reads it back as it was). */
void rtable_put_field(FILE *f, const char *s);

/* FNV-1a 64-bit hash, continued from h (start with RT_FNV_OFFSET). */
#define RT_FNV_OFFSET 14695981039346656037ULL
uint64_t rt_fnv1a(uint64_t h, const void *p, size_t n);

#endif
