/* outfile.h - output files written atomically: data goes to "PATH.tmp.PID" and is renamed to
 * PATH only when complete, so a failed or interrupted run never leaves a half-written result.
 * Temporaries still open at exit or on SIGINT/SIGTERM are removed (out_install_signals).
 * A PATH that exists and is not a regular file (/dev/null, a FIFO, a terminal) is written in
 * place, and a symbolic link's target is replaced, not the link. */
#ifndef AM_OUTFILE_H
#define AM_OUTFILE_H

#include <stdio.h>

#include "common.h"

typedef struct outfile outfile;

/* Open for writing; "-" means standard output (not atomic). NULL path gives NULL, no error. */
int out_open(outfile **o, const char *path, am_error *err);
FILE *out_fp(outfile *o);
/* Flush, close and rename into place; 0 or -1 (write errors are reported, temp removed). */
int out_commit(outfile *o, am_error *err);
/* Close and remove the temporary. NULL is fine. */
void out_abort(outfile *o);
/* Remove every temporary still open (called on error paths, at exit and from signals). */
void out_abort_all(void);
void out_install_signals(void);

#endif
