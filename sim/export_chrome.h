/* export_chrome.h - the simulated run as a Chrome / Perfetto trace-event JSON file
 * (`amsim run --chrome-trace FILE`; open it at ui.perfetto.dev or chrome://tracing).
 *
 * An engine observer (engine.h): one track (thread) per stream and per link channel (with
 * lanes for transfers in flight together) with compute and transfer operations as complete
 * ("X") slices (on a link: the time the link carried the transfer; a runtime copy's too, since
 * 2026-11-28), memory counters ("C") per level
 * (live and reserved bytes) after every allocation and free, an instant ("i") for every
 * out-of-memory, and a "host runtime" track with the defragmentation, spill and restore slices
 * (the host waits for them). Times are microseconds with picosecond decimals. Written atomically. */
#ifndef AM_EXPORT_CHROME_H
#define AM_EXPORT_CHROME_H

#include "config.h"
#include "engine.h"
#include "outfile.h"

typedef struct chrome_exp chrome_exp;

/* NULL path: *x = NULL, nothing written. cfg must outlive the exporter. */
int chrome_open(chrome_exp **x, const char *path, const am_config *cfg, am_error *err);
const sim_observer *chrome_observer(chrome_exp *x);
/* Finish the JSON and hand over its output, still a temporary, for the caller to commit with
 * its other outputs (out_commit_all: all renamed into place or none; until 2026-11-27 this
 * renamed it at once, and an interrupt or a write error in another output left it published);
 * frees x. NULL x gives NULL. */
outfile *chrome_finish(chrome_exp *x);
/* Drop the output (error paths); frees x (NULL is fine). */
void chrome_abort(chrome_exp *x);

#endif
