/* outfile.h - output files written atomically: data goes to "PATH.tmp.PID" (".amsim.tmp.PID.N"
 * in PATH's directory when that name would be too long for a directory entry) and is renamed to
 * PATH only when complete, so a failed or interrupted run never leaves a half-written result.
 * Temporaries still open at exit or on SIGINT, SIGTERM, SIGHUP or SIGPIPE are removed
 * (out_install_signals).
 * A PATH that exists and is not a regular file (/dev/null, a FIFO, a terminal) is written in
 * place: opened at once, its bytes held in an unlinked temporary and copied there at commit,
 * as standard output's ("-") are (/dev/null excepted: written directly). A symbolic link's
 * target is replaced, not the link; a dangling link (or chain of links) creates the file its
 * last link names, as a shell's `>` does. A PATH that cannot be looked up for another reason
 * than not existing, e.g. a link that loops (ELOOP), is an error and is left as it is. */
#ifndef AM_OUTFILE_H
#define AM_OUTFILE_H

#include <signal.h>
#include <stdio.h>

#include "common.h"

typedef struct outfile outfile;

/* main's note that standard descriptor fd (0, 1 or 2) was closed when the command started and
 * /dev/null holds it now: out_open refuses a path that names it (/dev/stdout, /dev/fd/1,
 * /proc/self/fd/1, a link to one of them), "PATH: cannot write: Bad file descriptor (standard
 * output is closed)", as an output "-" fails on a closed standard output. */
void out_hold_std_fd(int fd);
/* Open for writing; "-" means standard output, spooled in an unlinked temporary that
 * out_commit copies there (out_abort: nothing is written), and so is a device or FIFO. NULL
 * path gives NULL, no error. */
int out_open(outfile **o, const char *path, am_error *err);
/* out_open for a file that is the command's own (`amsim report`'s DIR/report.html): a symbolic
 * link at path is replaced by the file, its target left alone, and only at the commit, so a
 * command that fails or is interrupted leaves the link as it was; any other path as out_open. */
int out_open_own(outfile **o, const char *path, am_error *err);
FILE *out_fp(outfile *o);
/* A writer that flushes an output's stream itself (the engine's placements rows) notes the errno
 * of a write that failed (f: out_fp's stream; e: errno, 0 ignored): a failed flush drops its
 * bytes, so the commit's own flush has nothing left to fail on and reports this reason. */
void out_note_write_error(FILE *f, int e);
/* Flush, close and rename into place; 0 or -1 (write errors are reported, temp removed).
 * Standard output is flushed first when a file is to be renamed, so that a report or table the
 * command printed that cannot be written (/dev/full, a closed standard output) leaves the file
 * unpublished, as out_commit_all does for an output "-": -1 with err (AM_EINPUT, "standard
 * output: write failed: REASON"; out_stdout_failed is 1 then). */
int out_commit(outfile *o, am_error *err);
/* Commit the n outputs os[] (NULL entries skipped) as one: each written in full first (a file's
 * temporary flushed and closed, then standard output's spooled bytes copied there and flushed),
 * and only when all of them succeeded and no stop signal (SIGINT, SIGTERM, SIGHUP, SIGPIPE,
 * SIGALRM) is pending are they renamed into place, with those signals blocked for the renames.
 * On a failure none is renamed and every temporary is removed: 0, or -1 with err. os[] is
 * consumed (set to NULL) either way. For a command with several outputs, where out_commit one
 * by one would leave the first published when a later one fails. */
int out_commit_all(outfile **os, int n, am_error *err);
/* A write that o's bytes depend on failed with errno e (0: the reason a writer noted, if any)
 * where out_commit would not see it: a scratch file they go through first (convert --to csv's
 * rows, --pytorch-snapshot's trace entries). It is o's write error, -1 with err as out_commit
 * gives one (AM_EINPUT, "PATH: write failed: REASON", "standard output: ..." for "-"), via
 * (when not NULL) added in parentheses, e.g. "writing its rows to a scratch file". Until 2026-11-27 a scratch
 * file that could not be written (a full /tmp, `ulimit -f`) was status 2, an internal error
 * naming no output. The caller still aborts o. */
int out_write_error(const outfile *o, int e, const char *via, am_error *err);
/* A command that commits its outputs one at a time (batch: matrix.tsv, then the runs, then
 * results.csv) says 1 before its first commit and 0 before its last: a commit marks the outputs
 * written, so that a stop signal after it says they stay and removes nothing, only when no
 * more are to come. 0 when the command starts: a single out_commit or out_commit_all is the
 * last. Until 2026-11-28 any commit with no other temporary open marked them, and an interrupt
 * after batch's matrix.tsv, before any run, said "its outputs were already written". */
void out_more_commits(int more);
/* Close and remove the temporary. NULL is fine. */
void out_abort(outfile *o);
/* 1 when what was written to o so far can be read back by name (it goes to a named
 * temporary), so that out_copy can take it as its source; 0 for standard output, a device or a
 * FIFO (their spool is unnamed), or NULL. */
int out_rereadable(const outfile *o);
/* Append everything written to src so far (out_rereadable) to dst: the same bytes in a second
 * output. 0 or -1 with err. */
int out_copy(outfile *dst, outfile *src, am_error *err);
/* 1 when paths a and b would write the same regular file: the same file when it exists (through
 * symbolic links and different spellings), else the same name in the same directory. "-" and
 * files written in place (devices, FIFOs) are never the same: writing twice there is harmless,
 * while two temporaries of one regular file would collide. */
int out_same_target(const char *a, const char *b);
/* 1 when paths a and b name one file by one directory entry (out_same_target, and the same
 * name once symbolic links are followed): what one rename replaces for both. Two hard links of
 * a file are two entries, 0: writing the file once by one name would leave the other name with
 * the old bytes (a rename breaks the link), so such a pair is two outputs, which
 * out_check_paths refuses as one file. */
int out_same_entry(const char *a, const char *b);
/* An option and the path it names, for out_check_paths: label is how the user wrote it
 * ("--json", "-o's report.txt", "the trace"); path NULL: the option was not given. */
typedef struct out_named {
    const char *label, *path;
} out_named;
/* 0 when no two of the nout outputs name one file (out_same_target) or both write to standard
 * output ("-", or another name of the file descriptor 1 holds: /dev/stdout, /dev/fd/1, its
 * path; /dev/null excepted. A command's report or table there is one too, {"the report",
 * "-"}) and none of them
 * names the file of one of the nin inputs; else -1 with err (AM_EINPUT) naming both options and
 * the path. A "-" counts as the regular file its stream holds, if any: standard input's for an
 * input, standard output's for an output (`--expect - < X --json X`, `-t X --placements - >>
 * X`); then, and for an output on standard output by another name (/dev/stdout), each path is
 * named as written ("--json writes /dev/stdout and RESULTS.csv reads t.csv").
 * Commands call it before they read or write anything: two outputs on one regular file would
 * share its temporary, and an output on an input (`--json X --expect X`) would replace the
 * input with the run's result. */
int out_check_paths(const out_named *outs, int nout, const out_named *ins, int nin,
                    am_error *err);
/* 1 once an output on standard output ("-") failed to write: the command that got that error
 * reports it, and main's final check of standard output need not say it again. */
int out_stdout_failed(void);
/* The exit status of a command whose standard output failed, from the status rc it had: 1 (an
 * output that failed is an input-side error, over a 3), but 2 (amsim's own failure) is kept.
 * main's check_stdout and compare's and mincap's --json commits all map it so. */
int out_stdout_status(int rc);
/* A directory the command made for its outputs (on 1) or no longer to remove (on 0): a stop
 * signal (SIGINT, SIGTERM, SIGHUP, SIGPIPE) removes it after the temporaries when it is empty
 * then, as the command does itself when it fails, the latest tracked first (track parents before
 * their children).
 * Until 2026-11-27 an interrupted `run -o DIR` left DIR. */
#define OUT_DIR_MAX 16 /* directories tracked at once; out_track_dir returns -1 past them */
int out_track_dir(const char *path, int on);
/* The lock file (batch's DIR/.amsim-lock) of a directory the command made and tracks
 * (out_track_dir), on 1; 0: no longer. A stop signal unlinks it after the temporaries and
 * before the tracked directories are removed, so that a directory holding only its lock goes
 * too. Only for a directory the command made: a lock file in one that was there before stays
 * (removing it would let two batches lock different files). One at a time; -1 when another is
 * tracked or the name is too long. Until 2026-11-27 an interrupted `batch --merge ... -o OUT`
 * into a new OUT left OUT holding only .amsim-lock. */
int out_track_lock(const char *path, int on);
/* A scratch directory whose every file is the command's own (on 1; 0: no longer), e.g. `amsim
 * report`'s folder for gnuplot's data and SVGs: a stop signal empties and removes it. One at a
 * time; -1 when another is tracked or the name is too long. Until 2026-11-27 an interrupted
 * report left it. */
int out_track_scratch(const char *path, int on);
/* A child process that writes into the scratch directory (`amsim report`'s gnuplot), on 1;
 * 0: no longer (the caller reaps it after). A stop signal, and out_abort_all, kill it with
 * SIGKILL and reap it before the directory is removed, so that none outlives the command. The
 * caller must not reap it while it is tracked (waitid with WNOWAIT, then untrack, then reap):
 * its pid could be another process's by then. One at a time; -1 when another is tracked (on)
 * or pid is not the one tracked (off). Until 2026-11-28 an interrupted report left gnuplot
 * running. */
int out_track_child(pid_t pid, int on);
/* Remove every temporary still open and the scratch directory still tracked (called on error
 * paths, at exit and from signals). */
void out_abort_all(void);
void out_install_signals(void);
/* End the command as a stop signal sig does (out_install_signals), without its message: what
 * it removes removed, then the process ends with sig (status 128 + sig). For a command that
 * says itself why it stopped (batch: "stopped by SIGINT; ..."), where "interrupted; partial
 * outputs removed" after it said otherwise (until 2026-11-28). Does not return. */
void out_die_of(int sig);
/* The signals that stop a command (out_install_signals; SIGALRM: a batch worker's --timeout):
 * blocked while outputs are renamed, and by batch around a fork. */
void out_stop_signals(sigset_t *set);
/* Run fn on signal sig (sigaction: no other signal blocked in fn, no SA_RESTART, so that a wait
 * it interrupts returns EINTR); old, when not NULL, gets the action it replaces. */
void out_catch(int sig, void (*fn)(int), struct sigaction *old);
/* out_catch, unless sig was ignored when the command started (nohup's SIGHUP stays ignored);
 * *old (when old is not NULL) gets the disposition either way. */
void out_catch_unless_ignored(int sig, void (*fn)(int), struct sigaction *old);

#endif
