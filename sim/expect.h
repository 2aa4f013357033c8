/* expect.h - regression checks of a run against a stored expectation (`amsim run --expect FILE`,
 * `--save-expect FILE`, sweeps of kind regress).
 *
 * An expectation file is text, one `KEY=VALUE` per line ('#' starts a comment; a UTF-8 byte
 * order mark before the header is skipped; X in a tolerance is a number, 0 or more, no sign):
 *   amsim-expect v1                        first line
 *   LEVEL.peak_live_bytes=1635780096       metrics per memory level: peak_live_bytes,
 *   LEVEL.peak_reserved_bytes=...          peak_reserved_bytes, ooms, fragmentation_ratio,
 *   LEVEL.ooms=0                           and the policy's statistics LEVEL.stats.NAME
 *   LEVEL.fragmentation_ratio=0.2382805    (LEVEL.stats.NAME.current / .peak for pairs);
 *   placements.rows=57                     rows of the placements CSV, and the FNV-1a 64 hash
 *   placements.fnv1a64=0x1234abcd...       of its rows (header excluded, each row with its \n)
 *   KEY.tolerance=exact | abs:X | rel:X    optional per metric; without one: exact for
 *                                          integers, rel:1e-9 for reals
 * `null` is the value of an undefined real (e.g. BFC fragmentation with no free memory).
 * Values have the forms --save-expect writes: whole numbers as plain digits, the digest as 0x
 * and up to 16 hex digits, reals as decimal numbers or null. A value that cannot be its metric's
 * kind ("abc", "2GiB", "1.5" for a count) is an input error at its FILE:LINE:COLUMN: before the
 * run for the metrics every run has, after it (from expect_finish) for policy statistics.
 * A metric moves when |got - expected| exceeds the tolerance (rel: X * max(|got|, |expected|)),
 * computed for whole numbers in exact 64-bit integers (abs:0 and rel:0 are exact above 2^53
 * too; until 2026-11-27 they compared as doubles), or one of them is null and the other not,
 * or it is a statistic of another policy (or mode) that this run's policy does not report. A file that is empty, holds no KEY=VALUE line after
 * its header, has a NUL byte or cannot be read to its end is an input error: it would otherwise
 * let every run pass. So is a tolerance other than exact on placements.fnv1a64 (a hash has no
 * distance; until 2026-11-27 abs:/rel: compared it as a double), a key given twice, a
 * tolerance given twice (each names both positions), and a key no run of the config has (a typo: not placements.rows or .fnv1a64, a
 * level the config lacks, a metric name not listed above, or a statistic no policy reports),
 * at its FILE:LINE:COLUMN with a "did you mean" when a key is close. */
#ifndef AM_EXPECT_H
#define AM_EXPECT_H

#include <stdio.h>

#include "engine.h"

typedef struct expect_ctx expect_ctx;

/* Prepare checking against `expect` (read now, may be NULL; NULL only gathers the metrics for
 * expect_save). `inner` is the caller's observer (may be NULL): expect_observer() forwards to
 * it. 0, or -1 with err (AM_EINPUT: unreadable or malformed expectation). */
int expect_begin(expect_ctx **x, const char *expect, const am_config *cfg,
                 const sim_observer *inner, am_error *err);
const sim_observer *expect_observer(expect_ctx *x);
/* After the run, before its outputs are written: the input checks that need the run's metrics.
 * 0, or -1 with AM_EINPUT at FILE:LINE:COLUMN for a value that cannot be its metric's kind in
 * this run or a LEVEL.stats.NAME that no registered policy reports (did you mean). */
int expect_check(expect_ctx *x, sim *s, am_error *err);
/* After the run, before its outputs are committed: write the --save-expect file's text (the
 * run's metrics with their tolerances) to f, an output of the run's atomic set, so that a
 * failure anywhere leaves no file behind (until 2026-11-27 the file was written after the
 * other outputs were in place). expect_check first, if not called yet; 0 or -1 as it. */
int expect_save(expect_ctx *x, sim *s, FILE *f, am_error *err);
/* After the run: compare with the expectation (expect_check first, if not called yet). 0 when
 * nothing moved; -1 with err->status AM_EOOMFAIL (3) and a message naming the metrics that moved
 * ("FILE: N metrics moved:", then a line each), AM_EINPUT (1) as expect_check, or another status
 * on I/O errors. err->msg is bounded: it ends at a whole line, then "  ... and K more" when
 * not all fit; when full is not NULL, *full gets the whole message on a deviation (malloc'd,
 * freed by the caller), else NULL. */
int expect_finish(expect_ctx *x, sim *s, am_error *err, char **full);
void expect_free(expect_ctx *x);

#endif
