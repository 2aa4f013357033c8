/* outfile.c - atomic output files (see outfile.h). */
#define _DEFAULT_SOURCE /* realpath */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define OUT_MAX 32

struct outfile {
    FILE *f;    /* what the writers write to: a temporary, or dest itself (see spooled) */
    FILE *dest; /* written in place: standard output, or the device or FIFO opened; NULL for a
                   file renamed into place (and once committed) */
    char *path, *tmp; /* tmp NULL: written in place (standard output, a device, a FIFO) */
    int is_stdout;
    int write_errno; /* the first failed write's errno as its writer noted it, or 0 */
};

/* 1 when o is written in place (standard output, a device, a FIFO): its bytes cannot be taken
 * back once written, and there is no temporary to rename. */
static int in_place(const outfile *o) { return o->tmp == NULL; }

/* 1 while o's bytes wait in a temporary of their own (f) rather than in dest: an in-place
 * output's anonymous spool, or a file's named temporary (dest NULL). 0 once finish closed f. */
static int spooled(const outfile *o) { return o->f && o->f != o->dest; }

/* The outputs open now, for out_note_write_error. */
static outfile *live[OUT_MAX];

static void live_set(outfile *o, int on)
{
    for (int i = 0; i < OUT_MAX; i++)
        if (on ? !live[i] : live[i] == o) {
            live[i] = on ? o : NULL;
            return;
        }
}

void out_note_write_error(FILE *f, int e)
{
    for (int i = 0; i < OUT_MAX && f && e; i++)
        if (live[i] && live[i]->f == f && !live[i]->write_errno)
            live[i]->write_errno = e;
}

/* The reason of a write failure found now: e (the errno of the call that failed now), else the
 * one a writer noted (a flush that failed earlier drops its bytes: the final flush has nothing
 * left to fail on and errno is 0). Until 2026-11-27 that gave "write failed: Success" for
 * --placements on a full disk, whose rows the engine had flushed itself. */
static int reason(const outfile *o, int e) { return e ? e : o->write_errno; }

/* "PATH: write failed: REASON", or without the reason when none is known. */
static int write_fail(am_error *err, const char *name, int e)
{
    if (e)
        return am_fail(err, AM_EINPUT, "%s: write failed: %s", name, strerror(e));
    return am_fail(err, AM_EINPUT, "%s: write failed", name);
}

/* Temporaries open now, for the signal handler (async-signal-safe unlink only). */
static char tmp_names[OUT_MAX][4096];
static volatile sig_atomic_t tmp_used[OUT_MAX];

/* 1 once a commit published the command's outputs and no temporary is open since: a stop
 * signal then removes nothing of them, and must not say it did (on_signal). Set with the stop
 * signals blocked (published), so that one held off during the renames, delivered as they are
 * unblocked, finds it set. Until 2026-11-28 such a signal said "interrupted; partial outputs
 * removed" with every output already replaced. */
static volatile sig_atomic_t outputs_written;

/* 1 while the command has commits still to come (out_more_commits): a commit then leaves
 * outputs_written alone, as the outputs are not all written. */
static volatile sig_atomic_t more_commits;

void out_more_commits(int more)
{
    more_commits = more != 0;
    if (more)
        outputs_written = 0;
}

static void track(const char *tmp, int on)
{
    if (on)
        outputs_written = 0;
    for (int i = 0; i < OUT_MAX; i++) {
        if (on && !tmp_used[i]) {
            snprintf(tmp_names[i], sizeof tmp_names[i], "%s", tmp);
            tmp_used[i] = 1;
            return;
        }
        if (!on && tmp_used[i] && strcmp(tmp_names[i], tmp) == 0) {
            tmp_used[i] = 0;
            return;
        }
    }
}

/* One hop of a link chain: the path cur's link leads to (relative targets joined onto cur's
 * directory), malloc'd; NULL when cur is no link or cannot be read. */
static char *link_next(const char *cur)
{
    struct stat l;
    char buf[PATH_MAX];
    ssize_t n;
    if (lstat(cur, &l) != 0 || !S_ISLNK(l.st_mode) ||
        (n = readlink(cur, buf, sizeof buf - 1)) <= 0)
        return NULL;
    buf[n] = 0;
    const char *slash = strrchr(cur, '/');
    if (buf[0] == '/' || !slash)
        return am_strdup(buf);
    size_t dl = (size_t)(slash - cur) + 1;
    char *next = am_malloc(dl + (size_t)n + 1);
    memcpy(next, cur, dl);
    memcpy(next + dl, buf, (size_t)n + 1);
    return next;
}

/* Where the symbolic link at path leads, as a path to create or replace: the resolved path when
 * the target exists; when it does not yet, the last link's text of the chain (each relative to
 * its link's directory), as a shell's `>` would create it: renaming onto an intermediate link of
 * a chain would replace that link. NULL if a link cannot be read or the chain is too long. */
static char *link_target(const char *path)
{
    char *r = realpath(path, NULL);
    if (r)
        return r;
    char *cur = am_strdup(path), *next;
    for (int hops = 0; hops < 40; hops++) { /* Linux follows at most 40 links */
        struct stat l;
        if (lstat(cur, &l) != 0 || !S_ISLNK(l.st_mode))
            return cur;
        if (!(next = link_next(cur)))
            break;
        free(cur);
        cur = next;
    }
    free(cur);
    return NULL;
}

static char *dir_of(const char *path, const char **base);

#define TMP_TRIES 100

/* The temporary that path is written to before its rename: "PATH.tmp.PID" next to it (try 0;
 * "PATH.tmp.PID.K" for a later try K, when that name was taken), or, when the longest of those
 * names (K 99) would be longer than a directory entry can be (NAME_MAX: an output named with
 * 241 bytes or more), ".amsim.tmp.PID.N" in the same directory (the rename must stay within
 * one file system), N counting the command's short names. One form for every try, so that the
 * all-taken message (tmp_taken) can say which names were tried. Both hold ".tmp.", which
 * batch's sweep of a killed worker's leftovers looks for. Until 2026-11-27 such an output was
 * refused ("File name too long") although the file system takes its name; until 2026-11-28 the
 * form was chosen per try, so a name that fit only without ".K" went short from try 1 on. */
static char *tmp_name(const char *path, unsigned try)
{
    static unsigned nshort;
    char suffix[64], longest[64];
    if (try)
        snprintf(suffix, sizeof suffix, ".tmp.%ld.%u", (long)getpid(), try);
    else
        snprintf(suffix, sizeof suffix, ".tmp.%ld", (long)getpid());
    snprintf(longest, sizeof longest, ".tmp.%ld.%d", (long)getpid(), TMP_TRIES - 1);
    const char *base;
    char *dir = dir_of(path, &base);
    size_t n = strlen(path) + 96;
    char *tmp = am_malloc(n);
    if (strlen(base) + strlen(longest) <= NAME_MAX)
        snprintf(tmp, n, "%s%s", path, suffix);
    else
        snprintf(tmp, n, "%s/.amsim.tmp.%ld.%u", dir, (long)getpid(), nshort++);
    free(dir);
    return tmp;
}

/* Create path's temporary (tmp_name) as a new file of the command's own: O_EXCL, so that a
 * file or symbolic link already there under that name (planted, or left by a process of the
 * same PID) is never written through or truncated, but another name tried; O_NOFOLLOW besides,
 * for a file system where O_EXCL alone would follow a link. The stream, with *tmp its name
 * (malloc'd), or NULL with errno; when every name tried is taken, EEXIST with *tmp the first of
 * them, for the message (tmp_taken): kept, not made again, as a short name made again would be
 * one never tried (until 2026-11-28 the message named ".amsim.tmp.PID.N+100"). Until
 * 2026-11-28 it was opened with fopen "w": a symbolic link "out.json.tmp.PID" redirected the
 * output's bytes into whatever file it named. */
static FILE *tmp_create(const char *path, char **tmp)
{
    char *first = NULL;
    *tmp = NULL;
    for (unsigned try = 0; try < TMP_TRIES; try++) {
        char *name = tmp_name(path, try);
        int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0) {
            FILE *f = fdopen(fd, "wb");
            if (f) {
                free(first);
                *tmp = name;
                return f;
            }
            int e = errno;
            close(fd);
            unlink(name);
            errno = e;
        }
        if (errno != EEXIST && errno != ELOOP) {
            int e = errno;
            free(name);
            free(first);
            errno = e;
            return NULL;
        }
        if (first)
            free(name);
        else
            first = name;
    }
    *tmp = first;
    errno = EEXIST;
    return NULL;
}

/* The error of an output dest whose temporary names (tmp_create) are all taken, first the
 * first of them: "out.json: cannot write: its temporary names out.json.tmp.PID[.K] (K 1 to 99)
 * are all taken; remove them" (the short ".amsim.tmp.PID.N" names count on instead). Until
 * 2026-11-28 it was "out.json: cannot write: File exists", as if out.json were in the way. */
static int tmp_taken(am_error *err, const char *shown, const char *dest, const char *first)
{
    if (strncmp(first, dest, strlen(dest)) == 0)
        return am_fail(err, AM_EINPUT, "%s: cannot write: its temporary names %s[.K] (K 1 to "
                       "%d) are all taken; remove them", shown, first, TMP_TRIES - 1);
    return am_fail(err, AM_EINPUT, "%s: cannot write: its %d temporary names from %s on are "
                   "all taken; remove them", shown, TMP_TRIES, first);
}

/* 1 when st is /dev/null's device: what is written there is never read, so nothing is held
 * back from it. */
static int is_dev_null(const struct stat *st)
{
    struct stat null;
    return S_ISCHR(st->st_mode) && stat("/dev/null", &null) == 0 && S_ISCHR(null.st_mode) &&
           st->st_rdev == null.st_rdev;
}

/* x written in place on dest: when spool, its bytes wait in an unlinked temporary (nothing to
 * remove, even on a signal) and are copied to dest at commit, so a command that fails writes
 * nothing there. Until 2026-11-27 only standard output ("-") was held so: a device, a FIFO,
 * /dev/stdout or a process substitution got the bytes as they were written, and a failed run
 * left half a file there (truncated JSON, the placements header). Without a temporary
 * directory to spool in, it is written in place as then. */
/* An unlinked temporary file in dir ("w+b"), or NULL with errno. Created by mkstemp and made
 * close-on-exec at once, so that a batch worker's child keeps no copy of it. */
static FILE *spool_in(const char *dir)
{
    char name[4096];
    if (snprintf(name, sizeof name, "%s/amsim-spool.XXXXXX", dir) >= (int)sizeof name) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    /* no stop signal between the creation and the unlink (until 2026-11-28 one there left an
     * amsim-spool.XXXXXX in the folder) */
    sigset_t stop, unblocked;
    out_stop_signals(&stop);
    sigprocmask(SIG_BLOCK, &stop, &unblocked);
    int fd = mkstemp(name), unlinked = fd >= 0 && unlink(name) == 0, made_errno = errno;
    sigprocmask(SIG_SETMASK, &unblocked, NULL);
    errno = made_errno;
    if (fd < 0)
        return NULL;
    FILE *f = NULL;
    if (unlinked && fcntl(fd, F_SETFD, FD_CLOEXEC) == 0)
        f = fdopen(fd, "w+b");
    if (!f) {
        int e = errno;
        if (!unlinked)
            unlink(name);
        close(fd);
        errno = e;
    }
    return f;
}

/* The spool of an in-place output: in $TMPDIR when it is set and a file can be made there,
 * else in /tmp, as README says. Until 2026-11-27 glibc's tmpfile() made it, which ignores
 * $TMPDIR: a large output filled /tmp whatever TMPDIR said. */
static FILE *spool_open(void)
{
    const char *dir = getenv("TMPDIR");
    FILE *f = dir && *dir ? spool_in(dir) : NULL;
    return f ? f : spool_in("/tmp");
}

static void hold(outfile *x, FILE *dest, int spool)
{
    x->dest = dest;
    x->f = spool ? spool_open() : NULL;
    if (!x->f)
        x->f = dest;
    live_set(x, 1);
}

/* The standard descriptors that were closed when the command started (bit fd), which main
 * had /dev/null take (out_hold_std_fd). */
static unsigned held_std;

void out_hold_std_fd(int fd)
{
    if (fd >= 0 && fd <= 2)
        held_std |= 1u << fd;
}

static const char *std_name(int fd)
{
    return fd == 0 ? "standard input" : fd == 1 ? "standard output" : "standard error";
}

/* 1 when dir (a directory path) is this process's descriptor directory, however spelt:
 * /proc/self/fd, /proc/PID/fd, /dev/fd, /proc/thread-self/fd. */
static int is_fd_dir(const char *dir)
{
    char *d = realpath(dir, NULL);
    if (!d)
        return 0;
    int yes = 0;
    const char *mine[] = {"/proc/self/fd", "/proc/thread-self/fd"};
    for (size_t i = 0; i < sizeof mine / sizeof mine[0] && !yes; i++) {
        char *m = realpath(mine[i], NULL);
        yes = m && strcmp(m, d) == 0;
        free(m);
    }
    free(d);
    return yes;
}

/* Walks path's chain of symbolic links, asking hit(dir, base) of each step's folder and
 * name (path itself first, then where each link leads): the first answer >= 0, or -1 when no
 * step gives one (the chain ends, a link cannot be read, or 40 links were followed). */
static int walk_links(const char *path, int (*hit)(const char *dir, const char *base))
{
    char *cur = am_strdup(path);
    int found = -1;
    for (int hops = 0; hops < 40 && found < 0; hops++) { /* Linux follows at most 40 links */
        const char *base;
        char *dir = dir_of(cur, &base);
        found = hit(dir, base);
        free(dir);
        char *next = found < 0 ? link_next(cur) : NULL;
        if (!next)
            break;
        free(cur);
        cur = next;
    }
    free(cur);
    return found;
}

/* walk_links: 1 when dir's real folder lies in /proc, else -1. */
static int in_proc(const char *dir, const char *base)
{
    char *real = realpath(dir, NULL);
    int yes = real && (strcmp(real, "/proc") == 0 || strncmp(real, "/proc/", 6) == 0);
    free(real);
    return yes ? 1 : -1;
}

/* Whether path, or a link on its way (/dev/stdout -> /proc/self/fd/1, a link of the user's to
 * /dev/stdout, /dev/./fd/3), lies in /proc (where /dev/fd leads too): a descriptor's name,
 * written in place whatever the spelling. The test is on each step's real folder, not on how
 * the path is spelled. */
static int names_descriptor(const char *path) { return walk_links(path, in_proc) >= 0; }

/* walk_links: the held standard descriptor whose entry base is in dir, else -1. */
static int held_entry(const char *dir, const char *base)
{
    char *end;
    long fd = strtol(base, &end, 10);
    if (base[0] >= '0' && base[0] <= '9' && !*end && fd <= 2 && (held_std >> fd & 1u) &&
        is_fd_dir(dir))
        return (int)fd;
    return -1;
}

/* The held standard descriptor (out_hold_std_fd) that path names through its chain of
 * symbolic links (/dev/stdout -> /proc/self/fd/1, /dev/fd/2, a link of the user's to either),
 * or -1. Its last link leads to /dev/null, which an output would write without error: the
 * walk stops at the descriptor's own entry, before that. */
static int held_std_fd(const char *path)
{
    return held_std ? walk_links(path, held_entry) : -1;
}

/* x (fresh) made an output renamed into place at dest: its temporary created (tmp_create)
 * and tracked. shown: the path as the user gave it, for the error. 0, or -1 with err (x freed). */
static int open_renamed(outfile **o, outfile *x, const char *dest, const char *shown,
                        am_error *err)
{
    x->path = am_strdup(dest);
    /* no stop signal between the creation and the tracking: until 2026-11-28 one that came
     * there left the temporary behind (and with it the -o directory that held it) */
    sigset_t stop, unblocked;
    out_stop_signals(&stop);
    sigprocmask(SIG_BLOCK, &stop, &unblocked);
    x->f = tmp_create(x->path, &x->tmp);
    if (x->f)
        track(x->tmp, 1);
    int create_errno = errno;
    sigprocmask(SIG_SETMASK, &unblocked, NULL);
    errno = create_errno;
    if (!x->f) {
        int e = errno, rc = x->tmp ? tmp_taken(err, shown, x->path, x->tmp)
                                   : am_fail(err, AM_EINPUT, "%s: cannot write: %s", shown,
                                             strerror(e));
        free(x->tmp);
        free(x->path);
        free(x);
        return rc;
    }
    static char bufs[OUT_MAX][1 << 16];
    static int nb;
    if (nb < OUT_MAX)
        setvbuf(x->f, bufs[nb++], _IOFBF, sizeof bufs[0]);
    live_set(x, 1);
    *o = x;
    return 0;
}

int out_open(outfile **o, const char *path, am_error *err)
{
    *o = NULL;
    if (!path)
        return 0;
    outfile *x = am_calloc(1, sizeof *x);
    if (strcmp(path, "-") == 0) {
        /* Standard output cannot be renamed into place: its bytes wait in an unlinked temporary
         * (nothing to remove, even on a signal) and go to standard output at commit, so a run
         * that fails writes nothing there. Until 2026-11-27 they went straight to standard
         * output, and a failed run left half a file (truncated JSON, the placements header). */
        x->is_stdout = 1;
        hold(x, stdout, 1);
        *o = x;
        return 0;
    }
    /* A closed standard descriptor named by path (`--json /dev/stdout >&-`) fails as an
     * output "-" does there: main gave it to /dev/null, where the bytes would be lost with
     * status 0. Until 2026-11-27 they were. */
    int held = held_std_fd(path);
    if (held >= 0) {
        free(x);
        return am_fail(err, AM_EINPUT, "%s: cannot write: %s (%s is closed)", path,
                       strerror(EBADF), std_name(held));
    }
    /* Only a regular file can be replaced by a rename. Anything else that exists (/dev/null, a
     * FIFO, a terminal, /dev/stdout of a pipe) is written in place: renaming a temporary onto
     * it would replace the device node itself (as root, /dev/null became a regular file). A
     * symbolic link to a regular file is followed: its target is replaced, the link stays,
     * except for a descriptor's names (names_descriptor: /dev/stdout, /dev/fd/N, a link to
     * one, anything under /proc/: a descriptor the caller opened, maybe to append), which are
     * written in place too. Until 2026-11-28 every path spelled under /dev/ was, so a regular
     * file in /dev/shm was appended to, a second run's output after the first's. */
    struct stat st;
    char *target = NULL;
    int exists = stat(path, &st) == 0;
    if (!exists && errno != ENOENT) {
        /* A path that cannot be looked up, above all a symbolic link that loops (ln -s loop
         * loop: ELOOP): the temporary next to it could be made and renamed over the link. Only
         * a missing file (or a link to one) is created. */
        int e = errno;
        free(x);
        return am_fail(err, AM_EINPUT, "%s: cannot write: %s", path, strerror(e));
    }
    if (exists && (!S_ISREG(st.st_mode) || names_descriptor(path))) {
        /* opened now, so that one that cannot be written fails before the run (and a FIFO
         * waits for its reader as before); written at commit, as standard output is */
        FILE *dest = fopen(path, "ab"); /* appending: a descriptor's file is not cut short */
        if (!dest) {
            int e = errno;
            free(x);
            return am_fail(err, AM_EINPUT, "%s: cannot write: %s", path, strerror(e));
        }
        x->path = am_strdup(path);
        hold(x, dest, !is_dev_null(&st));
        *o = x;
        return 0;
    }
    struct stat lst;
    if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) && !(target = link_target(path))) {
        free(x);
        return am_fail(err, AM_EINPUT, "%s: cannot write: cannot follow its symbolic links",
                       path);
    }
    int rc = open_renamed(o, x, target ? target : path, path, err);
    free(target);
    return rc;
}

int out_open_own(outfile **o, const char *path, am_error *err)
{
    struct stat lst;
    *o = NULL;
    if (!path || lstat(path, &lst) != 0 || !S_ISLNK(lst.st_mode))
        return out_open(o, path, err);
    /* the link itself is what the rename replaces (rename never follows one) */
    return open_renamed(o, am_calloc(1, sizeof **o), path, path, err);
}

FILE *out_fp(outfile *o) { return o ? o->f : NULL; }

static void release(outfile *o)
{
    live_set(o, 0);
    free(o->path);
    free(o->tmp);
    free(o);
}

/* Standard output's write failure, with its reason when the flush that failed gave one (e:
 * its errno, or 0); "write failed" alone when the error came from an earlier write whose errno
 * is gone (glibc keeps the unwritten bytes, so a full disk fails the flush again, with its
 * reason). Until 2026-11-27 it never gave the reason, where every file output did (and the
 * README promised "No space left on device"). */
static int stdout_failed; /* stdout_fail made an error, which its caller reports */

int out_stdout_failed(void) { return stdout_failed; }

int out_stdout_status(int rc) { return rc == AM_EINTERNAL ? rc : AM_EINPUT; }

static int stdout_fail(am_error *err, int e)
{
    stdout_failed = 1;
    if (e)
        return am_fail(err, AM_EINPUT, "standard output: write failed: %s", strerror(e));
    return am_fail(err, AM_EINPUT, "standard output: write failed");
}

/* Flush f, and close it when do_close is set (a close can report a write error, as on NFS):
 * 0, or 1 with *e the errno of the first failure (0 when none is known). f is closed even
 * when the flush failed. */
static int flush_close(FILE *f, int do_close, int *e)
{
    errno = 0;
    int bad = fflush(f) != 0 || ferror(f) != 0;
    *e = errno;
    if (do_close && fclose(f) != 0 && !bad) {
        bad = 1;
        *e = errno;
    }
    return bad;
}

/* Flush standard output before a file is renamed into place: a report or table that cannot
 * be written (/dev/full, a closed standard output) leaves the file unpublished, as
 * out_commit_all does for an output "-". 0, or -1 with err (stdout_fail). */
static int flush_stdout(am_error *err)
{
    int e;
    return flush_close(stdout, 0, &e) ? stdout_fail(err, e) : 0;
}

/* Copy a spooled output's temporary f to dest: 0, or 1 with *e the errno (0 when none is
 * known). */
static int spool_out(FILE *f, FILE *dest, int *e)
{
    static char buf[1 << 16];
    errno = 0;
    if (fflush(f) != 0 || ferror(f) || fseek(f, 0, SEEK_SET) != 0) {
        *e = errno;
        return 1;
    }
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        if (fwrite(buf, 1, n, dest) != n) {
            *e = errno;
            return 1;
        }
    *e = errno;
    return ferror(f) != 0;
}

/* Write out what o holds, short of the rename: a file's temporary flushed and closed (a close
 * can report a write error, as on NFS), an in-place output's spool copied there and flushed
 * (and a device or FIFO closed). 0, or -1 with err. */
static int finish(outfile *o, am_error *err)
{
    if (in_place(o)) {
        int bad = 0, e = 0;
        if (spooled(o)) {
            bad = spool_out(o->f, o->dest, &e);
            fclose(o->f);
        }
        o->f = NULL;
        if (!bad)
            bad = flush_close(o->dest, !o->is_stdout, &e);
        else if (!o->is_stdout)
            fclose(o->dest);
        o->dest = NULL;
        if (bad)
            return o->is_stdout ? stdout_fail(err, reason(o, e))
                                : write_fail(err, o->path, reason(o, e));
        return 0;
    }
    int e, bad = flush_close(o->f, 1, &e);
    o->f = NULL;
    return bad ? write_fail(err, o->path, reason(o, e)) : 0;
}

/* After a commit succeeded, with the stop signals blocked: the outputs are written when no
 * other temporary is still open and no other commit is to come (out_more_commits): the
 * command's last commit. Until 2026-11-28 any commit with no temporary open counted, so an
 * interrupt after batch's matrix.tsv, before any run, said its outputs were already written. */
static void published(void)
{
    if (more_commits)
        return;
    for (int i = 0; i < OUT_MAX; i++)
        if (tmp_used[i])
            return;
    outputs_written = 1;
}

int out_commit(outfile *o, am_error *err)
{
    if (!o)
        return 0;
    /* what the command printed reaches standard output before its file is published: a
     * report or table that cannot be written leaves the file as it was (until 2026-11-27
     * compare, mincap and stats each flushed it themselves before out_commit) */
    if (o->tmp && flush_stdout(err) != 0) {
        out_abort(o);
        return -1;
    }
    int rc = finish(o, err);
    /* the rename, the temporary's untracking and the note that the outputs are written as one
     * step for a stop signal (published) */
    sigset_t stop, old;
    out_stop_signals(&stop);
    sigprocmask(SIG_BLOCK, &stop, &old);
    if (rc == 0 && o->tmp && rename(o->tmp, o->path) != 0)
        rc = write_fail(err, o->path, reason(o, errno));
    if (o->tmp) { /* renamed into place, or removed after a failure */
        if (rc != 0)
            unlink(o->tmp);
        track(o->tmp, 0);
    }
    if (rc == 0)
        published();
    sigprocmask(SIG_SETMASK, &old, NULL);
    release(o);
    return rc;
}

void out_stop_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
    sigaddset(set, SIGPIPE);
    sigaddset(set, SIGALRM);
}

int out_commit_all(outfile **os, int n, am_error *err)
{
    int rc = 0;
    /* files first, standard output and the other in-place outputs (devices, FIFOs) last: bytes
     * that reached them cannot be taken back, so they go only once every file is complete on
     * disk */
    for (int pass = 0; pass < 2 && rc == 0; pass++)
        for (int i = 0; i < n && rc == 0; i++)
            if (os[i] && in_place(os[i]) == pass)
                rc = finish(os[i], err);
    sigset_t stop, old;
    out_stop_signals(&stop);
    sigprocmask(SIG_BLOCK, &stop, &old);
    sigset_t pending;
    /* a stop signal that came while the files were written: the run was interrupted, so none
     * of them is renamed (the handler runs when the signals are unblocked below; one the caller
     * had blocked is an interrupt all the same) */
    if (rc == 0 && sigpending(&pending) == 0)
        for (int s = 1; s < NSIG && rc == 0; s++)
            if (sigismember(&stop, s) && sigismember(&pending, s))
                rc = am_fail(err, AM_EINPUT, "interrupted (signal %d) before the outputs "
                             "were renamed into place: none written", s);
    for (int i = 0; i < n; i++) {
        outfile *o = os[i];
        os[i] = NULL;
        if (!o)
            continue;
        if (rc == 0 && o->tmp && rename(o->tmp, o->path) != 0)
            rc = am_fail(err, AM_EINPUT, "%s: cannot rename its temporary into place: %s",
                         o->path, strerror(errno));
        else if (rc == 0) {
            if (o->tmp)
                track(o->tmp, 0);
            release(o);
            continue;
        }
        out_abort(o); /* after a failure: removed, not renamed */
    }
    if (rc == 0)
        published(); /* before the unblocking: a signal held off finds the outputs written */
    sigprocmask(SIG_SETMASK, &old, NULL);
    return rc;
}

void out_abort(outfile *o)
{
    if (!o)
        return;
    /* a spooled temporary goes away when closed; f and dest are NULL once finish closed them */
    if (spooled(o))
        fclose(o->f);
    if (o->dest && !o->is_stdout)
        fclose(o->dest);
    if (o->tmp) { /* what went in place stays: there is nothing to remove */
        unlink(o->tmp);
        track(o->tmp, 0);
    }
    release(o);
}

int out_rereadable(const outfile *o) { return o && o->tmp; }

static const char *out_name(const outfile *o)
{
    return o->is_stdout ? "standard output" : o->path;
}

int out_write_error(const outfile *o, int e, const char *via, am_error *err)
{
    if (o->is_stdout)
        stdout_fail(err, reason(o, e));
    else
        write_fail(err, o->path, reason(o, e));
    if (via) {
        size_t n = strlen(err->msg);
        snprintf(err->msg + n, sizeof err->msg - n, " (%s)", via);
    }
    return -1;
}

int out_copy(outfile *dst, outfile *src, am_error *err)
{
    if (!out_rereadable(src))
        return am_fail(err, AM_EINTERNAL, "out_copy: %s cannot be read back", out_name(src));
    errno = 0;
    if (fflush(src->f) != 0 || ferror(src->f))
        return write_fail(err, src->path, reason(src, errno));
    FILE *in = fopen(src->tmp, "rb");
    if (!in)
        return am_fail(err, AM_EINPUT, "%s: cannot read back: %s", src->tmp, strerror(errno));
    static char buf[1 << 16];
    size_t n;
    int bad = 0;
    while (!bad && (n = fread(buf, 1, sizeof buf, in)) > 0)
        bad = fwrite(buf, 1, n, dst->f) != n;
    int e = errno;
    if (!bad && ferror(in)) {
        fclose(in);
        return am_fail(err, AM_EINPUT, "%s: cannot read back: %s", src->tmp, strerror(e));
    }
    fclose(in);
    return bad ? am_fail(err, AM_EINPUT, "%s: write failed: %s", out_name(dst), strerror(e)) : 0;
}

/* The directory part of path ("." when it has none) and where its last component starts. */
static char *dir_of(const char *path, const char **base)
{
    const char *slash = strrchr(path, '/');
    *base = slash ? slash + 1 : path;
    if (!slash)
        return am_strdup(".");
    if (slash == path)
        return am_strdup("/");
    size_t n = (size_t)(slash - path);
    char *d = am_malloc(n + 1);
    memcpy(d, path, n);
    d[n] = 0;
    return d;
}

/* What out_same_target compares of one path, looked up once: out_check_paths compares each
 * path with every other (a regress sweep's expectations with every trace), a stat per pair. */
typedef struct path_info {
    int dash;         /* "-": a standard stream */
    int exists, link; /* stat succeeded (st); else lstat found a (dangling) symbolic link */
    struct stat st;
} path_info;

/* Look p up; std_fd is the descriptor "-" stands for in p's role (0 for an input, 1 for an
 * output; -1: none, "-" is never a file). A "-" counts as the file that descriptor holds when
 * it is a regular file (`--expect - < e.expect`, `--placements - >> t.trace`), so that it is
 * compared with the other paths as that file's own name would be. Until 2026-11-27 "-" was
 * never compared: `run --expect - --json e.expect < e.expect` replaced the expectation, and
 * `run -t t.trace --placements - >> t.trace` grew the trace it read, both status 0. A pipe, a
 * terminal or /dev/null is not a file anything could overwrite, and is left out. */
static void path_look(const char *p, path_info *in, int std_fd)
{
    struct stat l;
    memset(in, 0, sizeof *in);
    in->dash = strcmp(p, "-") == 0;
    if (in->dash) {
        in->exists = std_fd >= 0 && fstat(std_fd, &in->st) == 0 && S_ISREG(in->st.st_mode);
        return;
    }
    in->exists = stat(p, &in->st) == 0;
    in->link = !in->exists && lstat(p, &l) == 0 && S_ISLNK(l.st_mode);
}

/* Where directory dir is or will be, as an absolute path: the longest leading part that exists
 * resolved (realpath: links and `..` as the kernel follows them), the rest appended as written,
 * `.` dropped and `..` taking back the part before it (which does not exist yet: mkdir -p makes
 * it a plain directory, so `..` leads back). NULL when no part resolves (no working directory,
 * a loop). */
static char *dir_key(const char *dir)
{
    char *p = am_strdup(dir), *res = NULL;
    size_t n = strlen(p), cut = n;
    /* shorten p from the end, a component at a time, until what is left resolves */
    for (;;) {
        char save = p[cut];
        p[cut] = 0;
        res = realpath(cut ? p : ".", NULL);
        p[cut] = save;
        if (res || cut == 0 || (cut == 1 && p[0] == '/'))
            break;
        while (cut > 0 && p[cut - 1] == '/') /* the separator(s) before the last component */
            cut--;
        while (cut > 0 && p[cut - 1] != '/') /* and that component */
            cut--;
        if (cut == 0 && p[0] == '/')
            cut = 1; /* "/" itself */
    }
    if (!res) {
        free(p);
        return NULL;
    }
    /* the rest, component by component (n bytes at most: as long as dir) */
    size_t len = strlen(res), cap = len + n + 2;
    char *key = am_malloc(cap);
    memcpy(key, res, len + 1);
    free(res);
    for (char *c = p + cut; *c;) {
        char *e = strchr(c, '/');
        size_t cl = e ? (size_t)(e - c) : strlen(c);
        if (cl == 2 && c[0] == '.' && c[1] == '.') {
            char *last = strrchr(key, '/');
            len = last && last != key ? (size_t)(last - key) : 1;
            key[len] = 0;
        } else if (cl && !(cl == 1 && c[0] == '.')) {
            if (key[len - 1] != '/')
                key[len++] = '/';
            memcpy(key + len, c, cl);
            len += cl;
            key[len] = 0;
        }
        c += cl + (e != NULL);
    }
    free(p);
    return key;
}

/* 1 when directories da and db are one: the same device and inode when both exist; else the
 * same dir_key, so that outputs into a folder the command has yet to make (batch -o DIR) are
 * compared too (until 2026-11-27 they never matched: an expectation linking to
 * ../out/results.csv was written through the link into a fresh -o's table). */
static int same_dir(const char *da, const char *db)
{
    struct stat sa, sb;
    if (stat(da, &sa) == 0 && stat(db, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char *ka = dir_key(da), *kb = dir_key(db);
    int same = ka && kb && strcmp(ka, kb) == 0;
    free(ka);
    free(kb);
    return same;
}

/* 1 when an output looked up in in writes where standard output does: "-", or the file
 * descriptor 1 holds (out: its fstat; have_out 0 when it has none) under another name:
 * /dev/stdout, /dev/fd/1, /proc/self/fd/1, or the file's own path (the same device and inode).
 * Such an output is written through a descriptor of its own, so beside the text report or
 * another output there the two overwrote or interleaved each other (`run --json /dev/stdout >
 * out.txt` wrote the report over the JSON's first bytes, status 0). /dev/null is not counted:
 * nothing written there is read back, so nothing is lost by writing it twice. */
static int on_stdout(const path_info *in, const struct stat *out, int have_out)
{
    if (in->dash)
        return 1;
    return have_out && in->exists && in->st.st_dev == out->st_dev &&
           in->st.st_ino == out->st_ino && !is_dev_null(&in->st); /* the stat of /dev/null last */
}

static int same_target(const char *a, const path_info *ia, const char *b, const path_info *ib)
{
    if ((ia->dash && !ia->exists) || (ib->dash && !ib->exists))
        return 0; /* a stream that holds no regular file */
    if (ia->exists || ib->exists)
        return ia->exists && ib->exists && S_ISREG(ia->st.st_mode) &&
               ia->st.st_dev == ib->st.st_dev && ia->st.st_ino == ib->st.st_ino;
    /* neither exists yet (a dangling symbolic link counts as where it leads): the same name in
     * the same directory (names first: they differ for almost every pair) */
    char *ta = ia->link ? link_target(a) : NULL, *tb = ib->link ? link_target(b) : NULL;
    const char *na, *nb;
    char *da = dir_of(ta ? ta : a, &na), *db = dir_of(tb ? tb : b, &nb);
    int same = strcmp(na, nb) == 0 && same_dir(da, db);
    free(da);
    free(db);
    free(ta);
    free(tb);
    return same;
}

int out_same_target(const char *a, const char *b)
{
    path_info ia, ib;
    path_look(a, &ia, -1);
    path_look(b, &ib, -1);
    return same_target(a, &ia, b, &ib);
}

int out_same_entry(const char *a, const char *b)
{
    if (!out_same_target(a, b))
        return 0;
    /* one file: by the same name too? Resolved (symbolic links followed, `.` and `..` taken),
     * a hard link's names differ; a file that does not exist yet was compared by its name */
    char *ra = realpath(a, NULL), *rb = realpath(b, NULL);
    int same = !ra || !rb || strcmp(ra, rb) == 0;
    free(ra);
    free(rb);
    return same;
}

/* Two outputs a and b that name one file. One option writing several files (batch's
 * --update-expectations) names both paths, as its label cannot tell them apart (until
 * 2026-11-27 "--update-expectations and --update-expectations both name exp/b.trace.expect",
 * with b linking to a.trace.expect and a never named). Two paths spelt differently are both
 * named too, and hard links said to be such: until 2026-11-28 `--json hl.json -o ro`, hl.json
 * a hard link of ro/summary.json, said "--json and -o's summary.json both name
 * ro/summary.json", a name the user never gave --json. */
static int same_output(out_named a, out_named b, am_error *err)
{
    if (strcmp(a.path, b.path) == 0)
        return am_fail(err, AM_EINPUT, "%s and %s both name %s: give each output its own file",
                       a.label, b.label, b.path);
    const char *how = out_same_entry(a.path, b.path) ? "" : " (hard links)";
    if (strcmp(a.label, b.label) == 0)
        return am_fail(err, AM_EINPUT, "%s writes both %s and %s, which are one file%s: give "
                       "each output its own file", a.label, a.path, b.path, how);
    return am_fail(err, AM_EINPUT, "%s writes %s and %s writes %s: they are one file%s; give "
                   "each output its own file", a.label, a.path, b.label, b.path, how);
}

/* How the user wrote path p: "'-' (standard input)" or "'-' (standard output)" for a stream,
 * else p itself. */
static const char *as_written(const char *p, const path_info *in, const char *stream,
                              char *buf, size_t len)
{
    if (!in->dash)
        return p;
    snprintf(buf, len, "'-' (%s)", stream);
    return buf;
}

/* Output o would overwrite input i (same_target). When a standard stream stands between them
 * (either is "-", or o writes where standard output does: /dev/stdout, /dev/fd/1) and the two
 * are spelt differently (or are "-": standard input and output), each is named as written, since neither name says the other: until
 * 2026-11-27 `stats t.csv --json /dev/stdout >> t.csv` said "--json and RESULTS.csv both name
 * /dev/stdout", with t.csv never named. */
static int output_on_input(out_named o, const path_info *io, out_named i, const path_info *ii,
                           int o_on_stdout, am_error *err)
{
    if (!io->dash && !ii->dash && (strcmp(o.path, i.path) == 0 || !o_on_stdout))
        return am_fail(err, AM_EINPUT, "%s and %s both name %s: the output would overwrite its "
                       "own input; write it to another file", o.label, i.label, o.path);
    char ob[64], ib[64];
    return am_fail(err, AM_EINPUT, "%s writes %s and %s reads %s: they are one file, the "
                   "output would overwrite its own input; write it to another file", o.label,
                   as_written(o.path, io, "standard output", ob, sizeof ob), i.label,
                   as_written(i.path, ii, "standard input", ib, sizeof ib));
}

int out_check_paths(const out_named *outs, int nout, const out_named *ins, int nin,
                    am_error *err)
{
    path_info *io = am_calloc((size_t)nout + 1, sizeof *io);
    path_info *ii = am_calloc((size_t)nin + 1, sizeof *ii);
    for (int i = 0; i < nout; i++)
        if (outs[i].path)
            path_look(outs[i].path, &io[i], STDOUT_FILENO);
    for (int j = 0; j < nin; j++)
        if (ins[j].path)
            path_look(ins[j].path, &ii[j], STDIN_FILENO);
    struct stat out;
    int have_out = fstat(STDOUT_FILENO, &out) == 0;
    int rc = 0;
    for (int i = 0; i < nout && !rc; i++) {
        if (!outs[i].path)
            continue;
        for (int j = i + 1; j < nout && !rc; j++)
            if (outs[j].path && on_stdout(&io[i], &out, have_out) &&
                on_stdout(&io[j], &out, have_out))
                /* two outputs on standard output would interleave there (until 2026-11-27
                 * `run -q --json - --placements -` wrote both, status 0), however it is
                 * spelt (until 2026-11-27 `run --json /dev/stdout` beside the report was
                 * allowed: into a file, the report overwrote the JSON's start, status 0) */
                rc = am_fail(err, AM_EINPUT, "%s and %s both write to standard output ('-'): "
                             "give one of them a file", outs[i].label, outs[j].label);
            else if (outs[j].path && same_target(outs[i].path, &io[i], outs[j].path, &io[j]))
                rc = same_output(outs[i], outs[j], err);
        for (int j = 0; j < nin && !rc; j++)
            if (ins[j].path && same_target(outs[i].path, &io[i], ins[j].path, &ii[j]))
                rc = output_on_input(outs[i], &io[i], ins[j], &ii[j],
                                     on_stdout(&io[i], &out, have_out), err);
    }
    free(io);
    free(ii);
    return rc;
}

/* Unlink every tracked temporary: the number removed (async-signal-safe). */
static int abort_tracked(void)
{
    int n = 0;
    for (int i = 0; i < OUT_MAX; i++)
        if (tmp_used[i]) {
            n += unlink(tmp_names[i]) == 0;
            tmp_used[i] = 0;
        }
    return n;
}


/* One path the signal handler acts on (the scratch directory, the lock file): on, it takes
 * path (-1 when one is held already or path does not fit); off, it lets path go (-1 when it
 * holds another). */
static int track_slot(char *name, size_t n, volatile sig_atomic_t *used, const char *path,
                      int on)
{
    if (on) {
        if (*used || strlen(path) >= n)
            return -1;
        snprintf(name, n, "%s", path);
        *used = 1;
        return 0;
    }
    if (!*used || strcmp(name, path) != 0)
        return -1;
    *used = 0;
    return 0;
}

/* A scratch directory of the command's own (out_track_scratch): emptied and removed by the
 * signal handler. */
static char scratch_name[4096];
static volatile sig_atomic_t scratch_used;

int out_track_scratch(const char *path, int on)
{
    return track_slot(scratch_name, sizeof scratch_name, &scratch_used, path, on);
}

/* Empty and remove the scratch directory from a signal handler: opendir and readdir may
 * allocate, so the entries are read with the getdents64 system call (open, unlinkat, close and
 * rmdir are async-signal-safe); where there is none, only an empty directory is removed.
 * 1 when the directory went. */
static int remove_scratch(void)
{
    if (!scratch_used)
        return 0;
#ifdef SYS_getdents64
    int fd = open(scratch_name, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        /* struct linux_dirent64: inode, offset, record length, type, then the name */
        static char buf[8192] __attribute__((aligned(8)));
        long n;
        while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
            for (long off = 0; off < n;) {
                unsigned short reclen;
                memcpy(&reclen, buf + off + 16, sizeof reclen);
                const char *name = buf + off + 19;
                if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0)
                    unlinkat(fd, name, 0);
                off += reclen;
            }
        close(fd);
    }
#endif
    return rmdir(scratch_name) == 0;
}

/* A helper process writing into the scratch directory (out_track_child): stopped and reaped
 * before the directory is removed. */
static volatile pid_t child_pid;

int out_track_child(pid_t pid, int on)
{
    if (on ? child_pid != 0 || pid <= 0 : child_pid != pid)
        return -1;
    child_pid = on ? pid : 0;
    return 0;
}

/* SIGKILL, not SIGTERM: gnuplot must not go on writing whatever its handlers make of a
 * polite signal, and there is nothing of its own to clean up (its files are in the scratch
 * directory). kill and waitpid are async-signal-safe; the child is unreaped until untracked
 * (report_html's run_gnuplot waits with WNOWAIT first), so its pid is not another's. */
static void stop_child(void)
{
    pid_t pid = child_pid;
    if (pid <= 0)
        return;
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    child_pid = 0;
}

/* At exit and on error paths: the temporaries, and the scratch directory a command still
 * tracks (an exit on host out of memory in `amsim report`: until 2026-11-27 it stayed), after
 * the helper process writing into it. */
void out_abort_all(void)
{
    (void)abort_tracked();
    stop_child();
    (void)remove_scratch();
    scratch_used = 0;
}

/* The lock file of a directory the command made (out_track_lock), unlinked by a signal. */
static char lock_name[4096];
static volatile sig_atomic_t lock_used;

int out_track_lock(const char *path, int on)
{
    return track_slot(lock_name, sizeof lock_name, &lock_used, path, on);
}

/* Directories a command made for its outputs, removed on a signal (out_track_dir). */
#define DIR_MAX OUT_DIR_MAX
static char dir_names[DIR_MAX][4096];
static volatile sig_atomic_t dir_used[DIR_MAX];

int out_track_dir(const char *path, int on)
{
    for (int i = 0; i < DIR_MAX; i++) {
        if (on && !dir_used[i]) {
            snprintf(dir_names[i], sizeof dir_names[i], "%s", path);
            dir_used[i] = 1;
            return 0;
        }
        if (!on && dir_used[i] && strcmp(dir_names[i], path) == 0) {
            dir_used[i] = 0;
            return 0;
        }
    }
    return -1;
}

/* What a stop signal removes, from its handler (async-signal-safe calls only): the helper
 * process, the temporaries, the scratch directory, the lock file and the directories the
 * command made. How many of the command's outputs went. */
static int remove_on_stop(void)
{
    int removed = abort_tracked();
    stop_child(); /* before its folder goes: until 2026-11-28 gnuplot ran on (see report_html) */
    removed += remove_scratch();
    /* the lock of a directory made here: held until the process ends, but the directory is
     * the command's own, so no other batch can be relying on this file (out_track_lock) */
    if (lock_used)
        (void)unlink(lock_name); /* not counted: no output of the command's */
    /* after the temporaries: a directory holding only those is empty now (rmdir is
     * async-signal-safe and removes nothing else); the latest made first */
    for (int i = DIR_MAX - 1; i >= 0; i--)
        if (dir_used[i])
            removed += rmdir(dir_names[i]) == 0;
    return removed;
}

/* End the process with sig as its cause (the shell's 128 + sig): delivered at once, or when
 * the handler that calls this returns, as sig is blocked in it. */
static void die_of(int sig)
{
    signal(sig, SIG_DFL);
    raise(sig);
}

static void on_signal(int sig)
{
    static const char clear[] = "\r\033[K"; /* the progress line's place (am_progress) */
    if (am_progress_shown()) {
        ssize_t w = write(2, clear, sizeof clear - 1);
        (void)w;
    }
    int written = outputs_written; /* read first: nothing below opens an output */
    int removed = remove_on_stop();
    static const char msg[] = "amsim: interrupted; partial outputs removed\n",
                      done_msg[] = "amsim: interrupted; its outputs were already written "
                                   "and stay (nothing removed)\n",
                      pipe_msg[] = "amsim: an output pipe was closed (SIGPIPE); partial "
                                   "outputs removed\n";
    /* a closed pipe (`| head`) is said only when it cost something: the reader that stopped
     * early asked for no more, and the shell is silent about it as for any other command.
     * Once the outputs are written (published) the signal still ends the command, 128 + sig
     * as a shell expects of an interrupt (a script's loop stops), but says that they stay:
     * complete, as every one was renamed whole. A command with several commits (batch)
     * says which is its last (out_more_commits): one that stops between them says so itself. */
    if (written) {
        if (sig != SIGPIPE) {
            ssize_t r = write(2, done_msg, sizeof done_msg - 1);
            (void)r;
        }
    } else if (sig != SIGPIPE) {
        ssize_t r = write(2, msg, sizeof msg - 1);
        (void)r;
    } else if (removed) {
        ssize_t r = write(2, pipe_msg, sizeof pipe_msg - 1);
        (void)r;
    }
    die_of(sig);
}

void out_die_of(int sig)
{
    (void)remove_on_stop();
    die_of(sig);
    /* still here: sig is blocked (a mask the command was started with) */
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    sigprocmask(SIG_UNBLOCK, &one, NULL);
    _exit(128 + sig); /* a handler's or an ignored signal's: never back to the caller */
}

void out_catch(int sig, void (*fn)(int), struct sigaction *old)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fn;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, old);
}

/* SIGINT and SIGTERM always, as until now (a shell starts a background job with SIGINT
 * ignored, and `kill -INT` of one stopped it cleanly). SIGHUP and SIGPIPE unless ignored when
 * the command started: nohup's SIGHUP stays ignored, and with SIGPIPE ignored a closed pipe is
 * a write error (EPIPE) that fails the command as a full disk does. Until 2026-11-27 SIGHUP and
 * SIGPIPE killed the command with its temporaries left behind. */
void out_install_signals(void)
{
    /* A file size limit (ulimit -f) is a write error, not a stop signal: with SIGXFSZ ignored
     * the write that passes the limit fails with EFBIG ("File too large") and takes the usual
     * write-error path, status 1, temporaries removed. Until 2026-11-27 SIGXFSZ killed the
     * command (status 153) with its temporaries left behind. Ignored here, for every command,
     * and so in batch's workers and generators too (an ignored signal stays ignored across
     * fork and exec). */
    signal(SIGXFSZ, SIG_IGN);
    out_catch(SIGINT, on_signal, NULL);
    out_catch(SIGTERM, on_signal, NULL);
    out_catch_unless_ignored(SIGHUP, on_signal, NULL);
    out_catch_unless_ignored(SIGPIPE, on_signal, NULL);
}

void out_catch_unless_ignored(int sig, void (*fn)(int), struct sigaction *old)
{
    struct sigaction cur;
    if (sigaction(sig, NULL, &cur) == 0 && cur.sa_handler != SIG_IGN)
        out_catch(sig, fn, old);
    else if (old)
        *old = cur;
}
