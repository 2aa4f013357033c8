/* testlevel.h - one memory level built from YAML, for the policy suites: allocation and free
 * with the invariant check after each, the R/G/A/OOM/S event log, and the policy's statistics. */
#ifndef AM_TESTLEVEL_H
#define AM_TESTLEVEL_H

#include <stdint.h>
#include <stdio.h>

#include "../../models/memory.h"
#include "../../sim/config.h"

typedef struct tl_level {
    am_config *cfg;
    mem_level *m;
    FILE *log;
    char *logbuf;
    size_t loglen, logpos; /* logpos: how far a caller has read the log */
} tl_level;

/* A one-level memory "hbm": level_keys are lines indented under the level (4 spaces), keys
 * under its allocator (6 spaces). 0, or -1 with the reason on stderr (nothing to close). */
int tl_open(tl_level *L, const char *policy, const char *level_keys, const char *keys);
/* tl_open with the event log (log = 1) or without it (0: L->log NULL, for long runs). */
int tl_open_log(tl_level *L, const char *policy, const char *level_keys, const char *keys,
                int log);
void tl_close(tl_level *L);
/* mem_check(); prints the first broken invariant. Returns the number broken. */
int tl_check(tl_level *L);
/* Allocate (check after): the address, or UINT64_MAX on out of memory. */
uint64_t tl_alloc(tl_level *L, uint64_t bytes, uint64_t *size, uint64_t *handle);
void tl_free(tl_level *L, uint64_t handle, uint64_t req, uint64_t given);

typedef struct tl_stat {
    const char *name;
    uint64_t v, peak;  /* integer statistics (peak = v for plain values) */
    double r;          /* real statistics */
    int isnull;
} tl_stat;
/* The policy's statistic, or NULL when it does not report it (valid until the next call). */
const tl_stat *tl_stat_find(tl_level *L, const char *name);

#endif
