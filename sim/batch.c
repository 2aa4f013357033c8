/* batch.c - `amsim batch`: a sweep file expands into a matrix of runs that worker processes
 * replay, one folder per run, and one results.csv with a row per run.
 *
 * Sweep file (YAML, documented in configs/sweeps/README.md):
 *   kind: matrix | regress        (default matrix)
 *   name: TEXT                    (optional)
 *   base: CONFIG                  the config every run starts from (relative to the sweep file)
 *   set: {PATH: VALUE, ...}       fixed overrides for every run
 *   policies: [a, b]              allocator policies of the default level (optional)
 *   traces: [PATH|GLOB|DIR, ...]  relative to the sweep file (a single string is allowed)
 *   axes: {PATH: [v1, v2] | {values: [...]} | {from: A, to: B, step: S} | {from, to, factor}}
 *   seeds: [1, 2, 3]              with generate: {kind: K, args: [...]}: one generated trace
 *                                 per seed (`amsim gen K --seed S ARGS -o RUNDIR/gen.trace`;
 *                                 each seed 0 .. 4294967295, checked when the sweep is read)
 *   exclude: [{policy: caching, PATH: VALUE, trace: GLOB, seed: S}, ...]   (not {})
 *   outputs: {timeline: BOOL, placements: BOOL}
 *   expectations: DIR             (kind regress) DIR/<trace file name>[.POLICY][.AXIS=VALUE
 *                                 ...].expect (see expect_name; two traces of one file name
 *                                 are refused)
 * The matrix is the product trace x policy x axis 1 x ... x axis n x seed, the last varying
 * fastest; excluded combinations are dropped before numbering, so run ids are 1..N. Every value
 * of set: and of the axes is loaded into the base config at load, as the runs load it
 * (sweep_check_values), so that a value the config refuses is an error at its line and column.
 *
 * Execution: the parent forks one worker process per run, at most -j at once (a crash or hang
 * of one run cannot take the batch down: the parent records it). A run writes its outputs
 * atomically into DIR/runs/NNNN-NAME/ and then, last, result.txt (the done marker: the run's
 * identity key, status, error, the optional outputs it wrote and every metric). A rerun skips
 * folders whose result.txt has the same key and status ok (and lists the per-run outputs asked
 * for; with --update-expectations none, as its outputs are outside DIR); failed runs are tried
 * again, each first removing its folder's previous outputs (clear_outputs). The
 * key holds a digest of the run's other inputs (effective config, trace bytes, generator
 * settings: sweep_digest), so an edited base config or trace makes its runs run again instead
 * of leaving stale results, and a second digest without amsim's defaults and version, so that a
 * rerun can say whether the study or amsim changed (matrix_why). results.csv is always rebuilt from the run folders, in run-id
 * order, with DIR/matrix.tsv (the full matrix, identical in every shard) giving the identity
 * columns; `--merge` runs the same builder over several shard folders, so a
 * merged results.csv is byte-identical to an unsharded one. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <glob.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <yaml.h>

#include "../models/btree.h"
#include "batch.h"
#include "cli.h"
#include "config.h"
#include "convert.h"
#include "gen.h"
#include "outfile.h"
#include "report.h"
#include "run.h"
#include "trace.h"
#include "units.h"

#define SW_MAX_AXES 16
/* The most runs a sweep's matrix can have before exclusions (traces x policies x axis values x
 * seeds): a batch keeps each run's identity (about 590 bytes) in memory while it runs. */
#define SW_MAX_RUNS 10000000L
#define SW_MAX_SETS 128

static const char *prog = "amsim batch";

/* ---- small helpers ---------------------------------------------------------------------- */


/* A path or a value a user gave, as a message quotes it: every message goes through am_msg,
 * and what it echoes through am_escape_name, so an escape sequence or a newline in a name shows
 * as \xHH and cannot redraw the terminal or forge a line (until 2026-11-27 batch's own messages
 * echoed them raw). buf is a char array (of SHOWN_MAX bytes where it quotes a path). */
#define SHOWN_MAX 4096
#define SHOW(buf, s) am_escape_name(buf, sizeof buf, s)

/* A path as a command a message suggests quotes it (SHOW, then single quotes for the shell where
 * it has a byte other than letters, digits and -_./=+,:@%), so the hint can be pasted as it is
 * (until 2026-11-27 a path with a space split into two words). Into out, cap bytes. */
static const char *shell_word(char *out, size_t cap, const char *path)
{
    char shown[SHOWN_MAX];
    SHOW(shown, path);
    if (shown[0] && shown[strspn(shown, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                 "0123456789-_./=+,:@%")] == 0) {
        snprintf(out, cap, "%s", shown);
        return out;
    }
    size_t n = 0;
    if (cap < 3) {
        if (cap)
            out[0] = 0;
        return out;
    }
    out[n++] = '\'';
    for (const char *p = shown; *p && n + 6 < cap; p++) {
        if (*p == '\'') { /* close, an escaped quote, reopen */
            memcpy(out + n, "'\\''", 4);
            n += 4;
        } else
            out[n++] = *p;
    }
    out[n++] = '\'';
    out[n] = 0;
    return out;
}
#define SHELL(buf, s) shell_word(buf, sizeof buf, s)

static char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = am_malloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double batch_clock(void) { return now_s(); }

/* mkdir -p; *made (when not NULL) counts the directories it created, the last components of
 * path, for rmdir_made. An empty path names no directory: -1 with ENOENT, as mkdir("") (the
 * loop below starts after the first character, past the end of ""). */
static int mkdir_p_made(const char *path, int *made)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    int n = 0;
    if (made)
        *made = 0;
    if (!buf[0]) {
        errno = ENOENT;
        return -1;
    }
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(buf, 0777) == 0)
            n++;
        else if (errno != EEXIST)
            goto fail;
        *p = '/';
    }
    if (mkdir(buf, 0777) == 0)
        n++;
    else if (errno != EEXIST)
        goto fail;
    if (made)
        *made = n;
    return 0;
fail:
    if (made)
        *made = n;
    return -1;
}

static int mkdir_p(const char *path) { return mkdir_p_made(path, NULL); }

/* Visit the directories mkdir_p_made made for path, its last `made` components, deepest
 * first: each is a prefix of path (trailing slashes dropped), given NUL-terminated to visit,
 * which stops the walk by returning nonzero. Ends early when path has no more components. */
static void walk_made(const char *path, int made, int (*visit)(const char *dir, void *ctx),
                     void *ctx)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (int k = 0; k < made; k++) {
        size_t n = strlen(buf);
        while (n > 1 && buf[n - 1] == '/')
            buf[--n] = 0;
        char *slash = strrchr(buf, '/');
        if (visit(buf, ctx) != 0 || !slash)
            return;
        *slash = 0;
    }
}

/* walk_made's visit for rmdir_made: a directory that is not empty (or is gone) ends it. */
static int visit_rmdir(const char *dir, void *ctx)
{
    (void)ctx;
    return rmdir(dir) != 0;
}

/* Undo mkdir_p_made: remove the last `made` components of path, deepest first, each only while
 * empty (rmdir), so that a command that stops before writing leaves no directory of its own. */
static void rmdir_made(const char *path, int made)
{
    walk_made(path, made, visit_rmdir, NULL);
}

/* The lengths of the directories walk_made visits for batch_track_made, deepest first: each
 * is a prefix of the path. */
typedef struct made_lens {
    size_t len[OUT_DIR_MAX];
    int n;
} made_lens;

static int visit_note_len(const char *dir, void *ctx)
{
    made_lens *m = ctx;
    m->len[m->n++] = strlen(dir); /* at most OUT_DIR_MAX visits: batch_track_made's cap */
    return 0;
}

/* Track (on 1) or untrack (on 0) the `made` directories mkdir_p_made made for path, so that a
 * SIGINT or SIGTERM removes those still empty as rmdir_made would (out_track_dir). The deepest
 * OUT_DIR_MAX at most, the shallowest tracked first: the signal handler removes the latest
 * first, a child before its parent. Returns the number tracked. Until 2026-11-27 only `run -o
 * DIR` tracked its directory, and an interrupted `batch --merge ... -o OUT` left OUT and the
 * parents it made. */
int batch_track_made(const char *path, int made, int on)
{
    made_lens m = {.n = 0};
    walk_made(path, made < OUT_DIR_MAX ? made : OUT_DIR_MAX, visit_note_len, &m);
    int tracked = 0;
    char buf[4096];
    for (int up = m.n - 1; up >= 0; up--) {
        snprintf(buf, sizeof buf, "%.*s", (int)m.len[up], path);
        if (out_track_dir(buf, on) == 0)
            tracked++;
    }
    return tracked;
}

/* mkdir_p_made and batch_track_made of what it made with the stop signals blocked, so that a
 * SIGINT or SIGTERM between the two leaves no folder untracked; errno as mkdir_p_made left
 * it. */
static int mkdir_tracked(const char *path, int *made)
{
    sigset_t stop, unblocked;
    out_stop_signals(&stop);
    sigprocmask(SIG_BLOCK, &stop, &unblocked);
    int rc = mkdir_p_made(path, made), e = errno;
    batch_track_made(path, *made, 1);
    sigprocmask(SIG_SETMASK, &unblocked, NULL);
    errno = e;
    return rc;
}

/* ---- one batch per folder ---------------------------------------------------------------- */

/* A batch holds an exclusive flock(2) on DIR/.amsim-lock for its whole life, and --merge on
 * OUT: two batches on one -o folder ran each other's runs and removed each other's results
 * (until 2026-11-27 nothing kept them apart). The lock goes with the process and its workers
 * (which share its descriptor and die with it: PR_SET_PDEATHSIG in run_all; until 2026-11-27
 * they ran on and kept the folder locked), so a batch killed with SIGKILL leaves none behind,
 * and the next batch removes the temporaries its workers left (remove_run_temporaries); the file
 * stays (removing a locked file would let a third process lock a new one beside it) and holds
 * the holder's process id for the refusal's message; only a command that made the folder itself
 * removes it with the folder, when it fails or is interrupted before writing (unmake_out, and
 * --merge's out_track_lock). */
#define BATCH_LOCK_NAME ".amsim-lock"

/* The refusal of dir, held by the process whose id the lock file fd names (when written). */
static int lock_refusal(int fd, const char *dir, am_error *err)
{
    char buf[32] = "", q[SHOWN_MAX];
    ssize_t got = pread(fd, buf, sizeof buf - 1, 0);
    long pid = got > 0 ? strtol(buf, NULL, 10) : 0;
    if (pid > 0)
        return am_fail(err, AM_EINPUT, "%s is in use by another amsim batch (pid %ld); wait "
                       "for it to end or use another folder", SHOW(q, dir), pid);
    return am_fail(err, AM_EINPUT, "%s is in use by another amsim batch; wait for it to end "
                   "or use another folder", SHOW(q, dir));
}

/* NULL when the lock file open on fd is a regular file, else what it is ("a FIFO"). A lock
 * file of another type is no batch's: refused by its type, where reading one (a FIFO) waited
 * for a writer forever (until 2026-11-27 report and --merge hung there). */
static const char *lock_file_kind(int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || S_ISREG(st.st_mode))
        return NULL;
    return S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO"
                                                                        : "a device or a socket";
}

/* The refusal of a lock file p that is of kind what (lock_file_kind). */
static int lock_kind_refusal(const char *p, const char *what, am_error *err)
{
    char q[SHOWN_MAX];
    return am_fail(err, AM_EINPUT, "%s: not a regular file (%s); remove it to use the folder",
                   SHOW(q, p), what);
}

/* fd, the lock file p opened, when it is a regular file (or fd < 0: none opened); else -2 with
 * err, fd closed: the check every opener of a lock file makes. */
static int lock_file_checked(int fd, const char *p, am_error *err)
{
    const char *what = fd >= 0 ? lock_file_kind(fd) : NULL;
    if (!what)
        return fd;
    lock_kind_refusal(p, what, err);
    close(fd);
    return -2;
}

/* Take dir's lock for this process (dir exists): the descriptor to keep open while dir is
 * written, or -1 with err when another process holds it or the file cannot be made. *made
 * (when not NULL) says whether the lock file was created here. */
static int batch_lock(const char *dir, int *made, am_error *err)
{
    char *p = xprintf("%s/" BATCH_LOCK_NAME, dir), q[SHOWN_MAX];
    int fd = open(p, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    int created = 0;
    if (fd < 0 && errno == ENOENT) {
        fd = open(p, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
        created = fd >= 0;
        if (fd < 0 && errno == EEXIST) /* another batch made it first */
            fd = open(p, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    }
    if (made)
        *made = created;
    if (fd < 0 && errno == EISDIR) {
        lock_kind_refusal(p, "a directory", err);
        free(p);
        return -1;
    }
    if (fd < 0) {
        am_fail(err, AM_EINPUT, "%s: cannot open the folder's lock: %s", SHOW(q, p),
                strerror(errno));
        free(p);
        return -1;
    }
    fd = lock_file_checked(fd, p, err);
    free(p);
    if (fd < 0)
        return -1;
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EINTR)
            continue;
        if (errno == EWOULDBLOCK)
            lock_refusal(fd, dir, err);
        else
            am_fail(err, AM_EINPUT, "%s: cannot lock: %s", SHOW(q, dir), strerror(errno));
        close(fd);
        return -1;
    }
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
        /* the lock holds without the id: a refusal then names no process */
    }
    return fd;
}

/* 0 when no process holds dir's lock (or dir has no lock file), else -1 with err: for the
 * commands that read a batch folder (report, --merge's folders), which refuse one a running
 * batch is writing, and one whose lock file is no regular file (lock_file_kind). The file is
 * not created; the shared lock taken to look is let go at once. */
int batch_dir_in_use(const char *dir, am_error *err)
{
    char *p = xprintf("%s/" BATCH_LOCK_NAME, dir);
    /* O_NONBLOCK: a FIFO's open would wait for a writer */
    int fd = lock_file_checked(open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK), p, err);
    free(p);
    if (fd < 0)
        return fd == -2 ? -1 : 0; /* -2: refused by its kind; else no lock file to look at */
    int rc = 0;
    while (flock(fd, LOCK_SH | LOCK_NB) != 0) {
        if (errno == EINTR)
            continue;
        if (errno == EWOULDBLOCK)
            rc = lock_refusal(fd, dir, err);
        break;
    }
    close(fd); /* lets the shared lock go */
    return rc;
}

/* Write text to path atomically. */
static int write_atomic(const char *path, const char *text, am_error *err)
{
    outfile *o;
    if (out_open(&o, path, err) != 0)
        return -1;
    fputs(text, out_fp(o));
    return out_commit(o, err);
}

/* One line of a value: newlines and tabs become spaces. */
static void one_line(char *s)
{
    for (; *s; s++)
        if (*s == '\n' || *s == '\r' || *s == '\t')
            *s = ' ';
}

/* ---- YAML (libyaml document API) -------------------------------------------------------- */

typedef struct ydoc {
    yaml_document_t d;
    const char *file;
} ydoc;

static yaml_node_t *ynode(ydoc *y, int i) { return i ? yaml_document_get_node(&y->d, i) : NULL; }

static int yfail(am_error *e, ydoc *y, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int yfail(am_error *e, ydoc *y, const yaml_node_t *n, const char *fmt, ...)
{
    va_list ap; /* the message whole: am_fail_at keeps its position and end when it is long */
    va_start(ap, fmt);
    am_vfail_at(e, y->file, n ? n->start_mark.line + 1 : 0, n ? n->start_mark.column + 1 : 0,
                fmt, ap);
    va_end(ap);
    return -1;
}

static const char *yscalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* What a node that is not a scalar is, for messages that say what was written, as the config's
 * do ("expected a single value, not a list"): until 2026-11-27 such a value showed as '?'. */
static const char *ykind(const yaml_node_t *n)
{
    return n && n->type == YAML_SEQUENCE_NODE ? "list" : n && n->type == YAML_MAPPING_NODE ? "map"
                                                                                       : "scalar";
}

/* A map key that is not a scalar ({[timeline]: true}), refused in the config's words after
 * `where` ("outputs: "). */
static int ykey_fail(am_error *e, ydoc *y, const yaml_node_t *k, const char *where)
{
    return yfail(e, y, k, "%smap keys must be plain scalars, not a %s", where, ykind(k));
}

/* The PATH a key of set: or axes: (`where`) names, or NULL with *e set: a key that is not a
 * scalar (ykey_fail) or an empty PATH ("": 1), which names no setting (until 2026-11-27 it
 * got the --set wording, "expected PATH=VALUE"), or a PATH holding '=', which names none
 * either: no config key has one. Each entry goes to the runs as the override "PATH=VALUE",
 * split at its first '=', so until 2026-11-28 such a key was split there and misread: set:
 * {"memories.hbm.capacity=2GiB #": 1GiB} ran with 2 GiB, and an axis of
 * "memories.hbm.allocator.policy=caching #" ran caching under each of its values' names.
 * Every other byte of a key reaches the config as written (the PATH is not read as YAML
 * again), so a '#', a blank, a quote or a leading '-' is a key that names no setting. */
static const char *ypath_key(am_error *e, ydoc *y, const yaml_node_t *k, const char *where)
{
    const char *a = yscalar(k);
    if (!a) {
        char w[16];
        snprintf(w, sizeof w, "%s: ", where);
        ykey_fail(e, y, k, w);
        return NULL;
    }
    if (!a[0]) {
        yfail(e, y, k, "%s: an empty PATH names no setting (e.g. memories.hbm.capacity)", where);
        return NULL;
    }
    if (strchr(a, '=')) {
        char shown[128];
        yfail(e, y, k, "%s: '%s' names no setting: a PATH has no '=' (write PATH: VALUE, e.g. "
              "memories.hbm.capacity: 1GiB)", where, am_echo(shown, sizeof shown, a, strlen(a),
                                                             96));
        return NULL;
    }
    return a;
}

/* Item i of a scalar (itself) or a sequence node. */
static yaml_node_t *yitem(ydoc *y, yaml_node_t *n, int i)
{
    return n->type == YAML_SEQUENCE_NODE ? ynode(y, n->data.sequence.items.start[i]) : n;
}

/* A value as value_match reads one that is not a trace: a whole size, else a number. */
typedef struct val_key {
    unsigned char has_size, has_real;
    uint64_t size;
    double real;
} val_key;

static val_key val_key_of(const char *t)
{
    val_key k = {0};
    const char *why;
    k.has_size = units_size_whole(t, &k.size, &why) == 0;
    k.has_real = units_real(t, &k.real, &why) == 0;
    return k;
}

/* value_match(pat, v, 0) on values read before (pk, vk): text, then whole sizes, then numbers.
 * The one copy of that rule (value_match calls it). It does not count batch_work.value_tests:
 * the exclusion filing that counts does so at its calls, so the sweep checks' other
 * comparisons (repeated values, repeated seeds) stay out of that count. */
static int val_key_match(const char *pat, const val_key *pk, const char *v, const val_key *vk)
{
    if (strcmp(pat, v) == 0)
        return 1;
    if (pk->has_size && vk->has_size)
        return pk->size == vk->size;
    if (pk->has_real && vk->has_real)
        return pk->real == vk->real;
    return 0;
}

/* ---- repeated values, found by sorting ----------------------------------------------------- */

/* One value of a list for the repeat check, read once: its text, as value_match reads it (key)
 * and, on an axis whose key the config reads as a number (axis_num), that number. */
typedef struct rep_val {
    const char *text;
    val_key key;
    uint64_t num;
    int has_num;
} rep_val;

/* Whether list values a and b are the same run: as text alone (text_only: policy names), else
 * both numbers of the axis's key and equal, else value_match's rule (val_key_match). */
static int rep_same(const rep_val *a, const rep_val *b, int text_only)
{
    if (text_only)
        return strcmp(a->text, b->text) == 0;
    if (a->has_num && b->has_num)
        return a->num == b->num;
    return val_key_match(a->text, &a->key, b->text, &b->key);
}

/* Two values that rep_same calls the same share at least one of these keys, so a value need
 * only be compared with the earlier values that share a key with it. */
enum { REP_TEXT, REP_NUM, REP_SIZE, REP_REAL, REP_KINDS };

/* A value's key of one kind and its index in the list, for sorting. */
typedef struct rep_ix {
    const char *text;          /* REP_TEXT */
    uint64_t u;                /* REP_NUM, REP_SIZE */
    double d;                  /* REP_REAL: never NaN, which equals nothing */
    int ix;
} rep_ix;

static int rep_key_cmp(const rep_ix *a, const rep_ix *b, int kind)
{
    if (kind == REP_TEXT)
        return strcmp(a->text, b->text);
    if (kind == REP_REAL)
        return (a->d > b->d) - (a->d < b->d); /* 0.0 and -0.0 are one group, as == says */
    return (a->u > b->u) - (a->u < b->u);
}

/* By key, then by index: a group of equal keys lists its values in the list's order. */
static int rep_order(const void *pa, const void *pb, int kind)
{
    const rep_ix *a = pa, *b = pb;
    int c = rep_key_cmp(a, b, kind);
    return c ? c : (a->ix > b->ix) - (a->ix < b->ix);
}

static int rep_order_text(const void *a, const void *b) { return rep_order(a, b, REP_TEXT); }
static int rep_order_u64(const void *a, const void *b) { return rep_order(a, b, REP_NUM); }
static int rep_order_real(const void *a, const void *b) { return rep_order(a, b, REP_REAL); }

/* The values of v (n of them) that have a key of this kind, into r; their count. */
static int rep_collect(const rep_val *v, int n, int kind, rep_ix *r)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (kind == REP_TEXT)
            r[m++] = (rep_ix){.text = v[i].text, .ix = i};
        else if (kind == REP_NUM && v[i].has_num)
            r[m++] = (rep_ix){.u = v[i].num, .ix = i};
        else if (kind == REP_SIZE && v[i].key.has_size)
            r[m++] = (rep_ix){.u = v[i].key.size, .ix = i};
        else if (kind == REP_REAL && v[i].key.has_real && !isnan(v[i].key.real))
            r[m++] = (rep_ix){.d = v[i].key.real, .ix = i};
    }
    return m;
}

/* In a group of m values sharing a key (g, in the list's order), the pair (i, j), j < i, that
 * are the same with the least i, then the least j, if it comes before (*bi, *bj). Pairs of a
 * group are all the same but where an equal number hides a different size or axis number, so
 * the inner loop nearly always stops at once. */
static void rep_group(const rep_val *v, const rep_ix *g, int m, int text_only, int *bi, int *bj)
{
    for (int p = 1; p < m && g[p].ix <= *bi; p++)
        for (int q = 0; q < p; q++) {
            int i = g[p].ix, j = g[q].ix;
            if (i == *bi && j >= *bj)
                break;
            if (rep_same(&v[i], &v[j], text_only)) {
                *bi = i, *bj = j;
                break;
            }
        }
}

/* The repeat the pairwise scan (each value against every earlier one) would find first: the
 * least i with an earlier same value, and the least such j, in *fi and *fj; 1 if there is one,
 * else 0. The values are sorted by each key and compared only within a group of equal keys:
 * n log n. Until 2026-11-27 every pair was compared, so `amsim check` on an axis of 8,000
 * fractions took 10 s and one of 100,000 did not finish in 10 minutes. */
static int first_repeat(const rep_val *v, int n, int text_only, int *fi, int *fj)
{
    static int (*const order[REP_KINDS])(const void *, const void *) = {
        rep_order_text, rep_order_u64, rep_order_u64, rep_order_real};
    rep_ix *r = am_calloc((size_t)n + 1, sizeof *r);
    int bi = n, bj = -1;
    for (int kind = 0; kind < (text_only ? 1 : REP_KINDS); kind++) {
        int m = rep_collect(v, n, kind, r);
        qsort(r, (size_t)m, sizeof *r, order[kind]);
        for (int g = 0, e; g < m; g = e) {
            for (e = g + 1; e < m && rep_key_cmp(&r[g], &r[e], kind) == 0; e++)
                ;
            rep_group(v, r + g, e - g, text_only, &bi, &bj);
        }
    }
    free(r);
    if (bi == n)
        return 0;
    *fi = bi, *fj = bj;
    return 1;
}

/* A list's item the same as an earlier one (as text alone with text_only, else as value_match
 * says): -1 with err at the later item, naming the first's line and column, since its runs
 * would repeat with the same key (until 2026-11-25 `policies: [bfc, bfc]` or `[1GiB, 1GiB]`
 * ran each run twice). l's item i is at node yitem(y, n, i). */
static int no_repeats(ydoc *y, yaml_node_t *n, const strlist *l, const char *what,
                      int text_only, am_error *err)
{
    rep_val *v = am_calloc((size_t)l->n + 1, sizeof *v);
    for (int i = 0; i < l->n; i++)
        v[i] = (rep_val){.text = l->v[i], .key = text_only ? (val_key){0} : val_key_of(l->v[i])};
    int i, j, found = first_repeat(v, l->n, text_only, &i, &j);
    free(v);
    if (!found)
        return 0;
    const yaml_node_t *first = yitem(y, n, j);
    unsigned long fl = first ? (unsigned long)first->start_mark.line + 1 : 0;
    unsigned long fc = first ? (unsigned long)first->start_mark.column + 1 : 0;
    return yfail(err, y, yitem(y, n, i), "%s: '%s' repeats '%s' (line %lu, column %lu): every "
                 "run with it would run twice", what, l->v[i], l->v[j], fl, fc);
}

static int value_match(const char *pat, const char *v, int is_trace);

/* Node n as one line of flow YAML ({capacity: 1MiB, allocator: {policy: bfc}}), the text of a
 * --set value: a set: entry whose value is a map or a list is passed on as --set PATH=TEXT. */
static void yflow(FILE *f, ydoc *y, const yaml_node_t *n)
{
    if (!n || n->type == YAML_SCALAR_NODE) {
        cfg_write_scalar_as(f, n ? yscalar(n) : "",
                            n && n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE);
        return;
    }
    if (n->type == YAML_SEQUENCE_NODE) {
        fputc('[', f);
        for (yaml_node_item_t *it = n->data.sequence.items.start;
             it < n->data.sequence.items.top; it++) {
            fputs(it == n->data.sequence.items.start ? "" : ", ", f);
            yflow(f, y, ynode(y, *it));
        }
        fputc(']', f);
        return;
    }
    fputc('{', f);
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        fputs(p == n->data.mapping.pairs.start ? "" : ", ", f);
        yflow(f, y, ynode(y, p->key));
        fputs(": ", f);
        yflow(f, y, ynode(y, p->value));
    }
    fputc('}', f);
}

/* The "PATH=VALUE" of a set: entry, as flow YAML (a scalar quoted where YAML would read it
 * otherwise: apply_set reads VALUE as YAML again, so that the config gets the scalar the sweep
 * wrote; until 2026-11-27 a scalar was passed as its bare text, and "caching # note" became
 * caching, "a: b" a map). */
static char *yset_text(ydoc *y, const char *path, const yaml_node_t *v)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) /* out of memory: the path alone, so the config reports the value missing */
        return xprintf("%s=", path);
    fprintf(f, "%s=", path);
    yflow(f, y, v);
    fclose(f);
    return text;
}

/* Where node n starts ({0, 0} for none, as yfail). */
static cfg_pos node_pos(const yaml_node_t *n)
{
    if (!n)
        return (cfg_pos){0, 0};
    return (cfg_pos){n->start_mark.line + 1, n->start_mark.column + 1};
}

/* Where the nodes inside n are written, as cfg_set.inner wants them: each of a map's entries at
 * its key, each of a list's items at itself, a node before what it holds (yflow's order, so the
 * order the config reader's tree of yset_text's VALUE has). */
static void yinner_walk(ydoc *y, const yaml_node_t *n, cfg_pos **v, size_t *k, size_t *cap)
{
    if (!n || n->type == YAML_SCALAR_NODE)
        return;
    int map = n->type == YAML_MAPPING_NODE;
    size_t items = map ? (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start)
                       : (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    for (size_t i = 0; i < items; i++) {
        const yaml_node_t *at = map ? ynode(y, n->data.mapping.pairs.start[i].key)
                                    : ynode(y, n->data.sequence.items.start[i]);
        const yaml_node_t *c = map ? ynode(y, n->data.mapping.pairs.start[i].value) : at;
        if (*k == *cap) {
            *cap = *cap ? 2 * *cap : 8;
            *v = am_realloc(*v, *cap * sizeof **v);
        }
        (*v)[(*k)++] = node_pos(at);
        yinner_walk(y, c, v, k, cap);
    }
}

/* yinner_walk of n into a new array (*out, NULL for none); returns the count. */
static size_t yinner(ydoc *y, const yaml_node_t *n, cfg_pos **out)
{
    size_t k = 0, cap = 0;
    *out = NULL;
    yinner_walk(y, n, out, &k, &cap);
    return k;
}

/* The dotted paths of the scalars under map n, whose path is at, each written after '\n'. */
static void yleaves(FILE *f, ydoc *y, const char *at, const yaml_node_t *n)
{
    if (!n || n->type != YAML_MAPPING_NODE) {
        fprintf(f, "\n%s", at);
        return;
    }
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        const char *k = yscalar(ynode(y, p->key));
        char *sub = xprintf("%s.%s", at, k ? k : "");
        yleaves(f, y, sub, ynode(y, p->value));
        free(sub);
    }
}

/* The length of PATH in a set: text "PATH=VALUE" (or in a set: key): up to its first '=', as
 * a config reads a --set. */
static int set_path_len(const char *text)
{
    return (int)strcspn(text, "=");
}

/* The settings set: entry PATH: v gives, each written after '\n' and the last followed by one:
 * a map value's leaf paths (yleaves), else its own PATH as its set text "PATH=VALUE" is read.
 * Never NULL: set_twice and policy_overridden read it for every entry. */
static char *yset_leaves(ydoc *y, const char *path, const yaml_node_t *v)
{
    int plain = !v || v->type != YAML_MAPPING_NODE;
    char *text = NULL;
    size_t len = 0;
    FILE *f = plain ? NULL : open_memstream(&text, &len);
    if (!f) /* a plain value, or no memory stream: the entry's path alone */
        return xprintf("\n%.*s\n", set_path_len(path), path);
    yleaves(f, y, path, v);
    fputc('\n', f);
    fclose(f);
    return text;
}

/* A boolean of the sweep format (outputs.timeline, outputs.placements), read as a config reads
 * one (true, True, yes, on, false, No, OFF...: YAML 1.1, any case); anything else is refused at
 * its line and column. Until 2026-11-27 anything but true/yes/on was silently false: `True`,
 * `1`, `[true]` and `""` turned an output off. */
static int ybool(ydoc *y, const yaml_node_t *n, const char *map, const char *key, int *v,
                 am_error *err)
{
    static const opt_desc as_bool = {.key = "bool", .type = OPT_BOOL};
    const char *t = yscalar(n);
    uint64_t b = 0;
    if (!t || cfg_opt_u64(&as_bool, t, &b) != 0)
        return yfail(err, y, n, "%s.%s: expected true or false, got %s%s%s", map, key,
                     t ? "'" : "a ", t ? t : n && n->type == YAML_MAPPING_NODE ? "map" : "list",
                     t ? "'" : "");
    *v = (int)b;
    return 0;
}

/* A scalar or a sequence of scalars as a list of strings. */
static int ystrings(ydoc *y, yaml_node_t *n, const char *what, strlist *out, am_error *err)
{
    if (n->type == YAML_SCALAR_NODE) {
        sl_push(out, am_strdup(yscalar(n)));
        return 0;
    }
    if (n->type != YAML_SEQUENCE_NODE)
        return yfail(err, y, n, "%s: expected a value or a list of values, not a %s", what,
                     ykind(n));
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
        yaml_node_t *c = ynode(y, *it);
        if (!yscalar(c))
            return yfail(err, y, c, "%s: list items must be single values, not a %s", what,
                         ykind(c));
        sl_push(out, am_strdup(yscalar(c)));
    }
    return 0;
}

/* Whether a generate.args item names an option the batch passes itself: --seed and -o (--out),
 * also with the value attached (--seed=S, -oX, --out=X; not --output-mu, a serve option); or is
 * "--", after which the -o the batch appends would be an operand. */
static int gen_arg_reserved(const char *a)
{
    return a && (strncmp(a, "-o", 2) == 0 || !strcmp(a, "--seed") || !strncmp(a, "--seed=", 7) ||
                 !strcmp(a, "--out") || !strncmp(a, "--out=", 6) || !strcmp(a, "--"));
}

/* Whether a generate.args item asks amsim gen for its usage: --help, or -h (alone or leading a
 * group of letters, -ho), which prints the options and exits 0 without writing the trace, so
 * every run would fail for want of gen.trace (until 2026-11-27 check passed it). */
static int gen_arg_help(const char *a)
{
    return a && (!strcmp(a, "--help") || !strncmp(a, "-h", 2));
}

/* Why text is not a seed `seeds:` takes, written into buf (room n) and returned, or NULL with
 * the seed in *seed: the config's number form first (until 2026-11-27 seed 010 ran as seed 10),
 * then read as a config integer is, so a whole number with an exponent or a fraction of zeros
 * is one (1e0, 1.0: until 2026-11-28 only digits were, though the sweeps README says seeds are
 * written as a config's numbers), then gen's range. One rule for a `seeds:` value (check_seeds)
 * and an exclusion's seed (excl_value_form). */
static const char *seed_text_why(const char *text, char *buf, size_t n, uint64_t *seed)
{
    static const opt_desc as_uint = {.key = "seed", .type = OPT_UINT};
    const char *form = cfg_number_form(text);
    if (form) {
        snprintf(buf, n, "bad number '%s': %s", text, form);
        return buf;
    }
    if (cfg_opt_u64(&as_uint, text, seed) != 0) {
        /* past 2^64 - 1 but whole (digits, 1e30) is out of gen's range, in gen's words: those
         * of a seed one past its last */
        double r;
        const char *why = NULL;
        if (units_real(text, &r, &why) == 0 && r >= 18446744073709551616.0 &&
            r == floor(r))
            why = gen_seed_parse("4294967296", seed);
        else
            why = "is not an unsigned integer";
        snprintf(buf, n, "'%s' %s", text, why);
        return buf;
    }
    char digits[24];
    snprintf(digits, sizeof digits, "%" PRIu64, *seed);
    const char *why = gen_seed_parse(digits, seed); /* gen's range, in its words */
    if (why) {
        snprintf(buf, n, "'%s' %s", text, why);
        return buf;
    }
    return NULL;
}

/* Every seed of a `seeds:` value (one or a list) is one `amsim gen --seed` takes (gen.h:
 * 0 .. 4294967295), refused at its line and column before any run: a larger seed would give the
 * trace of a smaller one, the runs would repeat under other names. */
static int check_seeds(ydoc *y, yaml_node_t *n, const strlist *seeds, am_error *err)
{
    char why[sizeof ((am_error *)0)->msg]; /* a seed of any length, as far as a message holds */
    for (int i = 0; i < seeds->n; i++) {
        uint64_t seed;
        if (seed_text_why(seeds->v[i], why, sizeof why, &seed))
            return yfail(err, y, yitem(y, n, i), "seeds: %s", why);
    }
    return 0;
}

/* Each seed of seeds (checked: check_seeds) in digits, as gen's --seed reads one: 1e0 is
 * seed 1, in the runs' names and results too. After the repeat check, which names the seeds
 * as written. */
static void seeds_as_digits(strlist *seeds)
{
    char why[128];
    for (int i = 0; i < seeds->n; i++) {
        uint64_t seed;
        if (seed_text_why(seeds->v[i], why, sizeof why, &seed))
            continue;
        free(seeds->v[i]);
        seeds->v[i] = xprintf("%" PRIu64, seed);
    }
}

/* A pair of a map by its key, for sorting (no_duplicate_keys). */
typedef struct ykey {
    const char *key;
    const yaml_node_t *node;
    size_t index; /* the pair's place in the map */
} ykey;

static int cmp_ykey(const void *a, const void *b)
{
    const ykey *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : x->index < y->index ? -1 : x->index > y->index;
}

/* No map in the document names a key twice: libyaml's loader keeps both, and the sweep read
 * each in turn (until 2026-11-25 a second axis of the same path made a second results.csv
 * column of that name whose row showed the first value while the run used the second, and two
 * `policies:` were merged). Refused at the second key, naming the first, as configs refuse one
 * (config.c's check works on its own tree, so it is not shared). The nodes are walked as the
 * array libyaml keeps, with no recursion; each map's keys are sorted once, so a long map costs
 * n log n (until 2026-11-27 each key was compared with every earlier one). The key reported is
 * the earliest second occurrence in the map, as the pairwise scan found it. */
static int no_duplicate_keys(ydoc *y, am_error *err)
{
    for (yaml_node_t *m = y->d.nodes.start; m < y->d.nodes.top; m++) {
        if (m->type != YAML_MAPPING_NODE)
            continue;
        size_t n = (size_t)(m->data.mapping.pairs.top - m->data.mapping.pairs.start), k = 0;
        if (n < 2)
            continue;
        ykey *v = am_malloc(n * sizeof *v);
        for (size_t i = 0; i < n; i++) {
            const yaml_node_t *kn = ynode(y, m->data.mapping.pairs.start[i].key);
            if (yscalar(kn))
                v[k++] = (ykey){yscalar(kn), kn, i};
        }
        qsort(v, k, sizeof *v, cmp_ykey);
        const ykey *dup = NULL, *first = NULL;
        for (size_t i = 1; i < k; i++) {
            if (strcmp(v[i].key, v[i - 1].key) != 0 || (dup && v[i].index >= dup->index))
                continue;
            dup = &v[i];
            for (first = &v[i - 1]; first > v && !strcmp(first[-1].key, v[i].key); first--)
                ;
        }
        int rc = 0;
        if (dup)
            rc = yfail(err, y, dup->node, "duplicate key '%s' (first at line %lu, column %lu)",
                       dup->key, (unsigned long)first->node->start_mark.line + 1,
                       (unsigned long)first->node->start_mark.column + 1);
        free(v);
        if (rc)
            return rc;
    }
    return 0;
}

/* ---- the sweep -------------------------------------------------------------------------- */

typedef cfg_pos sw_pos; /* in the sweep file */

typedef struct sw_axis {
    char *path;
    strlist vals;
    /* Where each value is written, for messages: a list item; a range's from (its first
     * value), its to (a value that reads as written there) or its step or factor (the others,
     * gen 1: values made from the range, not written). */
    sw_pos *pos;
    unsigned char *gen;
    int pcap;                  /* room in pos and gen */
    char *range;               /* "from A, step S" or "from A, factor F", or NULL */
    sw_pos kpos;               /* where its path is written */
    const opt_desc *opt;       /* the config option at path (cfg_path_opt), or NULL */
    uint64_t *num;             /* each value as axis_num reads it, where has_num */
    unsigned char *has_num;
    /* 1: the value is written in a style but plain ("~", |- null), a string (cfg_write_scalar_as) */
    unsigned char *nonplain;
} sw_axis;

/* "PATH=VALUE" for value i of axis ax, a scalar, quoted as yset_text quotes one. */
static char *axis_set_text(const sw_axis *ax, int i)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) /* out of memory: the path alone, so the config reports the value missing */
        return xprintf("%s=", ax->path);
    fprintf(f, "%s=", ax->path);
    cfg_write_scalar_as(f, ax->vals.v[i], ax->nonplain[i]);
    fclose(f);
    return text;
}


/* Values of an axis compare by the value the config reads where its key is a size, a bandwidth,
 * a time, an integer, a boolean or a word of an enum (1ms = 1000us = 0.001, 1GiB = 1024MiB,
 * unlimited = -1, true = True = yes: the same run), else as value_match. Until 2026-11-25 every
 * key was compared as value_match, so times written in two units ran twice and an exclusion
 * `1000us` did not exclude the value `1ms`; until 2026-11-25 (later) booleans were still
 * compared as text, so `[true, True]` ran twice and an exclusion `True` matched nothing. */
static int axis_num(const sw_axis *ax, const char *text, uint64_t *v)
{
    opt_type t = ax->opt ? ax->opt->type : OPT_STRING;
    if (!(t == OPT_SIZE || t == OPT_SIZE_OR_UNLIMITED || t == OPT_BANDWIDTH || t == OPT_TIME ||
          t == OPT_TIME_UNIT || t == OPT_UINT || t == OPT_BOOL || t == OPT_ENUM))
        return 0;
    if (cfg_opt_u64(ax->opt, text, v) == 0)
        return 1;
    /* A size or time between whole bytes or picoseconds, which cfg_opt_u64 leaves out, is
     * the whole one the config rounds it to when it loads the run: 1000000.4B and 1000000B
     * are one run. Until 2026-11-27 they were compared as text and ran twice. */
    const char *why;
    if (t == OPT_SIZE || t == OPT_SIZE_OR_UNLIMITED)
        return units_size_nonzero(text, v, &why) == 0;
    if (t == OPT_TIME)
        return units_time_nonzero(text, v, &why) == 0;
    return 0;
}

typedef struct sw_excl {
    strlist keys, vals;
    sw_pos *kpos, *vpos;       /* where each key and value is written, for messages */
    sw_pos pos;                /* where the entry starts */
    /* per key, set by check_exclusions: the dimension it names (EXD_*) and the indices of that
     * dimension's values it matches, ascending (nhits of them); ix_key: the key (fewest hits)
     * under whose values excl_index_build files the exclusion */
    int *dim, **hits, *nhits;
    int ix_key;
} sw_excl;

typedef struct num_ix {
    uint64_t num;
    int ix;
} num_ix;

struct val_key;

/* One dimension of the matrix for exclusions: its values read once (keys; an axis's with a
 * number sorted by it in by_num, the others in no_num), and the exclusions filed under each
 * value v: rules[start[v] .. start[v + 1]) (NULL when none is filed here). */
typedef struct excl_dim {
    int ready, n;
    struct val_key *keys;
    num_ix *by_num;
    int nby_num, *no_num, nno_num;
    int *start, *rules;
} excl_dim;

typedef struct sweep {
    char *file, *dir;
    char *name;
    int regress;
    int device;                /* device: a PyTorch snapshot's device in every run (default 0) */
    char *base;
    /* base and expectations as the sweep writes them (base is the sweep's folder joined to a
     * relative one), for a worker in that folder; traces' written form is trace_disp */
    char *base_w, *expect_dir_w;
    strlist sets;              /* "PATH=VALUE" */
    /* each entry as the override it is: its text (sets.v[i]), where VALUE is written (line,
     * col), where PATH is (kline, kcol) and each node inside a map or list VALUE (inner) */
    cfg_set set_at[SW_MAX_SETS];
    /* the settings each entry gives (yset_leaves): a map value's leaf paths, a plain value's
     * path, each after '\n' and the last followed by one ("\nmemories.hbm.allocator.policy\n"),
     * so that the policy rule sees a policy inside a map and set_twice compares entries */
    char *set_leaves[SW_MAX_SETS];
    strlist policies;          /* may be empty: the config's own */
    strlist traces, trace_disp;
    sw_pos *trace_pos;         /* where the traces: item that named each trace is written */
    /* The file (device, inode) of each trace named so far that stat could read, to its index
     * + 1 (trace_repeats): each trace is stat'ed once however many there are */
    bt_tree file_ids;
    /* where the keys traces:, policies: and seeds: are written, for the matrix size limit
     * (matrix_cap_check; unset when absent, as then they multiply nothing) */
    sw_pos traces_kpos, policies_kpos, seeds_kpos;
    int naxes;
    sw_axis axes[SW_MAX_AXES];
    strlist seeds;
    char *gen_kind, *gen_disp; /* gen_disp: "gen:KIND", the trace column of generated runs */
    strlist gen_args;
    int nexcl;
    sw_excl *excl;
    excl_dim exd[SW_MAX_AXES + 3]; /* per dimension (EXD_*), for exclusions */
    char *expect_dir;
    int timeline, placements;
    /* What a run's results depend on beyond its key's dimensions (see sweep_digest): the base
     * config after set:, the generator's kind and arguments, and each trace's bytes. */
    char inputs[17];           /* hex FNV-1a 64; empty until sweep_digest */
    /* The same without what amsim fills in: the config's keys as written (cfg_write_written:
     * base file, device preset, set:), the device and the generator. A key's study= digest
     * (this, the trace's and the expectation's bytes) unchanged while its inputs= changed says
     * that amsim changed (its keys, defaults or version), not the study (matrix_why). */
    char study[17];
    strlist trace_hash;        /* hex FNV-1a 64 of each trace file's bytes, as traces */
    strlist presets;           /* the device presets the base config read, under set:, each
                                  axis value and policy (sweep_check_values), each once */
    /* regress checks (not --update-expectations): the expectation's bytes count too; hex
     * FNV-1a 64 of each trace's under each policy at each axis point, [expect_slot] (each
     * file read once however many runs share it); NULL otherwise */
    char (*expect_hash)[17];
} sweep;

typedef struct sw_run {
    int id;                    /* 1-based */
    int trace, policy, seed;   /* indices; -1 when the dimension is empty */
    int ax[SW_MAX_AXES];
    char folder[128];
    char *key;
} sw_run;

static void sweep_free(sweep *s)
{
    free(s->file);
    free(s->dir);
    free(s->name);
    free(s->base);
    free(s->base_w);
    free(s->expect_dir_w);
    for (int i = 0; i < s->sets.n; i++) {
        free(s->set_leaves[i]);
        free(s->set_at[i].inner);
    }
    sl_free(&s->sets);
    sl_free(&s->policies);
    sl_free(&s->traces);
    sl_free(&s->trace_disp);
    free(s->trace_pos);
    bt_destroy(&s->file_ids);
    for (int i = 0; i < s->naxes; i++) {
        free(s->axes[i].path);
        sl_free(&s->axes[i].vals);
        free(s->axes[i].pos);
        free(s->axes[i].gen);
        free(s->axes[i].nonplain);
        free(s->axes[i].range);
        free(s->axes[i].num);
        free(s->axes[i].has_num);
    }
    sl_free(&s->seeds);
    free(s->gen_kind);
    free(s->gen_disp);
    sl_free(&s->gen_args);
    for (int i = 0; i < s->nexcl; i++) {
        /* before sl_free, which sets keys.n to 0 */
        for (int k = 0; s->excl[i].hits && k < s->excl[i].keys.n; k++)
            free(s->excl[i].hits[k]);
        sl_free(&s->excl[i].keys);
        sl_free(&s->excl[i].vals);
        free(s->excl[i].kpos);
        free(s->excl[i].vpos);
        free(s->excl[i].hits);
        free(s->excl[i].nhits);
        free(s->excl[i].dim);
    }
    free(s->excl);
    for (int d = 0; d < SW_MAX_AXES + 3; d++) {
        free(s->exd[d].keys);
        free(s->exd[d].by_num);
        free(s->exd[d].no_num);
        free(s->exd[d].start);
        free(s->exd[d].rules);
    }
    free(s->expect_dir);
    sl_free(&s->trace_hash);
    sl_free(&s->presets);
    free(s->expect_hash);
}

static char *rel_path(const sweep *s, const char *p)
{
    if (p[0] == '/' || !s->dir[0])
        return am_strdup(p);
    return xprintf("%s/%s", s->dir, p);
}

/* Exact size formatting for axis values: the largest binary unit that divides (PiB and EiB
 * since 2026-11-27: 1PiB was listed as 1024TiB). */
static char *fmt_size_exact(uint64_t v)
{
    static const struct { const char *u; uint64_t f; } us[] = {
        {"EiB", 1ULL << 60}, {"PiB", 1ULL << 50}, {"TiB", 1ULL << 40},
        {"GiB", 1ULL << 30}, {"MiB", 1ULL << 20}, {"KiB", 1ULL << 10}};
    for (size_t i = 0; i < AM_ARRAY_LEN(us); i++)
        if (v && v % us[i].f == 0)
            return xprintf("%" PRIu64 "%s", v / us[i].f, us[i].u);
    return xprintf("%" PRIu64, v);
}

static char *fmt_time_exact(am_ps v)
{
    static const struct { const char *u; uint64_t f; } us[] = {
        {"s", AM_PS_PER_S}, {"ms", AM_PS_PER_MS}, {"us", AM_PS_PER_US}, {"ns", AM_PS_PER_NS}};
    for (size_t i = 0; i < AM_ARRAY_LEN(us); i++)
        if (v && v % us[i].f == 0)
            return xprintf("%" PRIu64 "%s", v / us[i].f, us[i].u);
    return xprintf("%" PRIu64 "ps", v);
}

static int has_alpha(const char *s)
{
    for (; *s; s++)
        if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))
            return 1;
    return 0;
}

/* Whether a range's field is written with a unit: letters that are not a plain number's (1e-3
 * and 0.5 are plain; until 2026-11-27 any letter counted, so {from: 1e-3, to: 3e-3, step:
 * 1e-3} was read as sizes, 0 bytes). */
static int has_unit(const char *s)
{
    double d;
    const char *why;
    return s && has_alpha(s) && units_real(s, &d, &why) != 0;
}

/* What the values of a range on a config key are, by the key's type: sizes, times, bandwidths
 * or plain numbers; RANGE_BY_UNITS for a key of no known type (the fields' units decide). */
enum { RANGE_SIZE, RANGE_TIME, RANGE_NUMBER, RANGE_BANDWIDTH, RANGE_BY_UNITS };
static int range_kind_of(const opt_desc *o)
{
    switch (o ? o->type : OPT_STRING) {
    case OPT_SIZE:
    case OPT_SIZE_OR_UNLIMITED:
        return RANGE_SIZE;
    case OPT_TIME:
    case OPT_TIME_UNIT:
        return RANGE_TIME;
    case OPT_BANDWIDTH:
        return RANGE_BANDWIDTH;
    case OPT_UINT:
    case OPT_REAL:
    case OPT_FRACTION:
        return RANGE_NUMBER;
    default:
        return RANGE_BY_UNITS;
    }
}

#define SW_MAX_VALUES 100000

/* Append a value of an axis (the axis takes v) written at, or made from, node n. */
static void axis_push(sw_axis *ax, char *v, const yaml_node_t *n, int gen)
{
    if (ax->vals.n == ax->pcap) {
        ax->pcap = ax->pcap ? 2 * ax->pcap : 16;
        ax->pos = am_realloc(ax->pos, (size_t)ax->pcap * sizeof *ax->pos);
        ax->gen = am_realloc(ax->gen, (size_t)ax->pcap * sizeof *ax->gen);
        ax->nonplain = am_realloc(ax->nonplain, (size_t)ax->pcap * sizeof *ax->nonplain);
    }
    ax->pos[ax->vals.n] = node_pos(n);
    ax->gen[ax->vals.n] = (unsigned char)gen;
    ax->nonplain[ax->vals.n] = !gen && n && n->type == YAML_SCALAR_NODE &&
                               n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
    sl_push(&ax->vals, v);
}

/* A range's values from index first on point at its step or factor node; the first stands for
 * from, and one that reads as to is to's: they point there (written, if they read so). */
static void range_ends(sw_axis *ax, int first, const yaml_node_t *fn, const yaml_node_t *tn,
                       const char *from, const char *to)
{
    if (ax->vals.n > first) {
        ax->pos[first] = node_pos(fn);
        ax->gen[first] = strcmp(ax->vals.v[first], from) != 0;
    }
    for (int i = first + 1; i < ax->vals.n; i++)
        if (strcmp(ax->vals.v[i], to) == 0) {
            ax->pos[i] = node_pos(tn);
            ax->gen[i] = 0;
        }
}

/* The values of {from, to, step}, its fields checked: value k is from + k * step, each computed
 * exactly from the fields as written and rounded once (units_range_value). Until 2026-11-27 the
 * step was rounded to a whole byte or picosecond first and added up, so {from: 0.5GiB, to:
 * 1.5GiB, step: 0.1GiB} listed 644245094 ... 1610612732, never 1GiB nor `to`; and numbers were
 * doubles, so {from: -0.3, to: 0, step: 0.1} missed 0. A size or time step under one byte or
 * picosecond would repeat values (0.6B: 0, 1, 1, 2): refused. fmt writes a size or time back
 * (NULL for numbers). */
static int step_range(ydoc *y, yaml_node_t *fn, yaml_node_t *tn, yaml_node_t *in,
                      const char *from, const char *to, const char *step, units_kind kind,
                      char *(*fmt)(uint64_t v), sw_axis *ax, am_error *err)
{
    const char *why;
    int first = ax->vals.n;
    if (kind != UNITS_NUMBER) {
        /* step < 1 base unit: 0 + 1 * (one unit) is above a range that ends at step */
        uint64_t v0;
        const char *one = kind == UNITS_SIZE ? "1B" : "1ps";
        if (units_range_value(kind, "0", step, one, 1, &v0, NULL, 0, &why) == 1)
            return yfail(err, y, in, "range: step '%s' is less than one %s: values would "
                         "repeat", step, kind == UNITS_SIZE ? "byte" : "picosecond");
    }
    for (uint64_t k = 0;; k++) {
        uint64_t v = 0;
        char buf[128];
        int r = units_range_value(kind, from, to, step, k, &v, buf, sizeof buf, &why);
        if (r < 0)
            return yfail(err, y, in, "range: %s (from %s, to %s, step %s)", why, from, to, step);
        if (r == 1 && k == 0) /* above `to` only before rounding: 1.4B to 1.2B */
            return yfail(err, y, tn, "range: 'to' (%s) is below 'from' (%s): no values", to,
                         from);
        if (r == 1)
            break;
        if (ax->vals.n >= SW_MAX_VALUES)
            return yfail(err, y, in, "range: more than %d values", SW_MAX_VALUES);
        axis_push(ax, fmt ? fmt(v) : am_strdup(buf), in, 1);
    }
    range_ends(ax, first, fn, tn, from, to);
    return 0;
}

/* The values of {from, to, factor} of sizes or times, its fields checked: value k is from *
 * factor^k, computed exactly and rounded once (units_factor_values). Until 2026-11-27 each
 * value was the previous one, already rounded up, times the factor, so errors accumulated and a
 * value reaching `to` was dropped ({from: 10MB, to: 14.641MB, factor: 1.1} listed 12100001 and
 * 13310002, not 14641000). Small values that round to the same byte or picosecond are listed
 * once ({from: 3, to: 20, factor: 1.1}: 3, 4, 5, ...): a geometric range from a few bytes is a
 * natural thing to write, unlike a step under one unit, which is refused. */
static int factor_range(ydoc *y, yaml_node_t *fn, yaml_node_t *tn, yaml_node_t *in,
                        const char *from, const char *to, const char *factor, units_kind kind,
                        char *(*fmt)(uint64_t v), sw_axis *ax, am_error *err)
{
    const char *why;
    int first = ax->vals.n;
    size_t n = 0;
    uint64_t *vals = am_malloc(SW_MAX_VALUES * sizeof *vals);
    int r = units_factor_values(kind, from, to, factor, vals, SW_MAX_VALUES, &n, &why);
    int rc = 0;
    if (r < 0)
        rc = yfail(err, y, in, "range: %s (from %s, to %s, factor %s)", why, from, to, factor);
    else if (r == 1)
        rc = yfail(err, y, in, "range: more than %d values", SW_MAX_VALUES);
    else if (n == 0) /* above `to` only before rounding: 1.4B to 1.2B */
        rc = yfail(err, y, tn, "range: 'to' (%s) is below 'from' (%s): no values", to, from);
    for (size_t k = 0; rc == 0 && k < n; k++)
        if (k == 0 || vals[k] != vals[k - 1]) /* once each: the series rises, so repeats adjoin */
            axis_push(ax, fmt(vals[k]), in, 1);
    free(vals);
    if (rc == 0)
        range_ends(ax, first, fn, tn, from, to);
    return rc;
}

/* Whether inc, a range's step (is_step) or factor, is refused as a plain number: 1 with *why
 * the reason (empty when the number reads but is not above 0, or 1), else 0 with *d its value.
 * The reason is units_real's (value too large, too small to represent), or for a factor above
 * 1 as written that its double is 1: until 2026-11-28 none was given ("step must be a number
 * > 0, not '1e-400'"), as if 1e-400 were not above 0. */
static int range_inc_refused(const char *inc, int is_step, double *d, const char **why)
{
    if (units_real(inc, d, why) != 0)
        return 1;
    *why = "";
    if (!is_step && *d == 1 && units_above_one(inc))
        *why = UNITS_REAL_ONE_WHY;
    return is_step ? *d <= 0 : *d <= 1;
}

/* {from, to, step} or {from, to, factor}: sizes (with units), times (with units) or numbers.
 * fn, tn and in are the nodes of from, to and the step or factor: an error names the field that
 * is wrong, at its own line and column, and why (until 2026-11-25 every problem of a range with
 * units was reported as "'from' is not a size, time or number" at from). */
static int expand_range(ydoc *y, yaml_node_t *fn, yaml_node_t *tn, yaml_node_t *in,
                        const char *from, const char *to, const char *step, const char *factor,
                        sw_axis *ax, am_error *err)
{
    const char *why;
    const char *inc = step ? step : factor;
    strlist *out = &ax->vals;
    int first = out->n;
    /* With units: sizes, else times (both exact integers, written back with their largest
     * exact unit); without: plain numbers. */
    static const struct {
        int (*parse)(const char *s, uint64_t *v, const char **why);
        char *(*fmt)(uint64_t v);
        const char *name, *least; /* least: the smallest nonzero value, for "rounds to 0" */
    } kinds[] = {{units_size_nonzero, fmt_size_exact, "size", "1 byte"},
                 {units_time_nonzero, fmt_time_exact, "time", "1 ps"}};
    const char *const fv[3] = {from, to, step}, *const fname[3] = {"from", "to", "step"};
    yaml_node_t *const fnode[3] = {fn, tn, in};
    /* The key's type decides where the config has one: a plain number on a size key is bytes,
     * on a time key seconds, and on any other key stays a number (until 2026-11-27 the units
     * decided, so a fraction's {step: 1e-1} was a size, 0 bytes, and a bandwidth's {from: 1e9}
     * was written back as '1953125KiB', which no bandwidth reads). */
    int kind = range_kind_of(ax->opt), by = -1;
    /* what a plain field must be, for messages: the key's kind where it has one */
    const char *plain = kind == RANGE_NUMBER ? "a number"
                      : kind == RANGE_BANDWIDTH ? "a bandwidth" : "a size, time or number";
    char bw[3][32];
    if (kind == RANGE_BANDWIDTH) {
        /* bandwidths with units as plain bytes per second, the numbers the config reads */
        for (int f = 0; f < 3; f++) {
            uint64_t v;
            if (!fv[f] || !has_unit(fv[f]))
                continue;
            if (units_bandwidth(fv[f], &v, &why) != 0)
                return yfail(err, y, fnode[f], "range: '%s' is not a bandwidth: '%s' (%s)",
                             fname[f], fv[f], why);
            snprintf(bw[f], sizeof bw[f], "%" PRIu64, v);
            *(f == 0 ? &from : f == 1 ? &to : step ? &step : &factor) = bw[f];
        }
        inc = step ? step : factor;
        kind = RANGE_NUMBER;
    }
    int units = kind == RANGE_SIZE || kind == RANGE_TIME;
    for (int f = 0; f < 3 && units && by < 0; f++) { /* the field messages name beside */
        uint64_t v;
        if (fv[f] && has_unit(fv[f]) && kinds[kind].parse(fv[f], &v, &why) != -1)
            by = f;
    }
    if (kind == RANGE_BY_UNITS) {
        units = has_unit(from) || has_unit(to) || (step && has_unit(step));
        /* the kind is that of the first field written with a unit that reads as one */
        kind = -1;
        for (int f = 0; f < 3 && kind < 0 && units; f++)
            for (size_t k = 0; fv[f] && has_unit(fv[f]) && k < AM_ARRAY_LEN(kinds) && kind < 0;
                 k++) {
                uint64_t v;
                if (kinds[k].parse(fv[f], &v, &why) != -1)
                    kind = (int)k, by = f;
            }
        if (units && kind < 0) { /* no unit reads as a size or a time: the first field with
                                  * one, and why as each (until 2026-11-25 without a reason) */
            int f = has_unit(from) ? 0 : has_unit(to) ? 1 : 2;
            uint64_t v;
            const char *swhy = "", *twhy = "";
            kinds[0].parse(fv[f], &v, &swhy);
            kinds[1].parse(fv[f], &v, &twhy);
            return yfail(err, y, fnode[f], "range: '%s' is not a size, time or number: '%s' (as "
                         "a size: %s; as a time: %s)", fname[f], fv[f], swhy, twhy);
        }
    }
    if (units) {
        uint64_t a = 0, b = 0, c = 0, *dst[3] = {&a, &b, &c};
        int tiny_step = 0;
        for (int f = 0; f < 3; f++) {
            if (!fv[f])
                continue;
            int r = kinds[kind].parse(fv[f], dst[f], &why);
            if (r == -2 && f == 2) /* a step under one byte or ps: step_range says so */
                tiny_step = 1, r = 0;
            if (r == -2) /* a size or time that rounds to 0 (bytes, ps): see config.c; until
                          * 2026-11-27 a time range's 0.4ps ran as 0 */
                return yfail(err, y, fnode[f], "range: '%s' %s; give at least %s", fv[f], why,
                             kinds[kind].least);
            uint64_t other;
            const char *owhy;
            if (r != 0 && kinds[!kind].parse(fv[f], &other, &owhy) == 0 && has_unit(fv[f]) &&
                by >= 0)
                return yfail(err, y, fnode[f], "range: '%s' is a %s ('%s') but '%s' is a %s "
                             "('%s'): from, to and step are all sizes or all times", fname[f],
                             kinds[!kind].name, fv[f], fname[by], kinds[kind].name, fv[by]);
            if (r != 0 && kinds[!kind].parse(fv[f], &other, &owhy) == 0 && has_unit(fv[f]))
                return yfail(err, y, fnode[f], "range: '%s' is a %s ('%s') but %s is a %s: "
                             "from, to and step are all %ss", fname[f], kinds[!kind].name, fv[f],
                             ax->path, kinds[kind].name, kinds[kind].name);
            if (r != 0)
                return yfail(err, y, fnode[f], "range: '%s' is not a %s%s: '%s' (%s)", fname[f],
                             kinds[kind].name, f == 2 ? " > 0" : "", fv[f], why);
        }
        double fac = 0;
        if (factor && range_inc_refused(factor, 0, &fac, &why))
            return yfail(err, y, in, "range: factor must be a number > 1, not '%s'%s%s%s",
                         factor, *why ? " (" : "", why, *why ? ")" : "");
        if (factor && a == 0)
            return yfail(err, y, fn, "range: a factor range must start above 0 ('from' is '%s', "
                         "and 0 times %s is 0)", from, factor);
        if (step && c == 0 && !tiny_step)
            return yfail(err, y, in, "range: step must be > 0 ('%s')", step);
        if (a > b)
            return yfail(err, y, tn, "range: 'to' (%s) is below 'from' (%s): no values", to,
                         from);
        if (step)
            return step_range(y, fn, tn, in, from, to, step,
                              kind == 0 ? UNITS_SIZE : UNITS_TIME, kinds[kind].fmt, ax, err);
        return factor_range(y, fn, tn, in, from, to, factor, kind == 0 ? UNITS_SIZE : UNITS_TIME,
                            kinds[kind].fmt, ax, err);
    }
    double da, db, dc;
    if (units_real(from, &da, &why) != 0)
        return yfail(err, y, fn, "range: 'from' is not %s: '%s' (%s)", plain, from, why);
    if (units_real(to, &db, &why) != 0)
        return yfail(err, y, tn, "range: 'to' is not %s: '%s' (%s)", plain, to, why);
    if (range_inc_refused(inc, step != NULL, &dc, &why))
        return yfail(err, y, in, "range: %s must be a number > %d, not '%s'%s%s%s",
                     step ? "step" : "factor", step ? 0 : 1, inc, *why ? " (" : "", why,
                     *why ? ")" : "");
    /* multiplying 0 stays at 0 (one value, or the value cap), a negative start moves away */
    if (factor && da <= 0)
        return yfail(err, y, fn, "range: a factor range must start above 0 ('from' is '%s', "
                     "and it times %s never grows)", from, factor);
    if (da > db)
        return yfail(err, y, tn, "range: 'to' (%s) is below 'from' (%s): no values", to, from);
    if (step)
        return step_range(y, fn, tn, in, from, to, step, UNITS_NUMBER, NULL, ax, err);
    for (long k = 0;; k++) {
        double v = da * pow(dc, (double)k);
        if (v > db * (1 + 1e-12) + 1e-300)
            break;
        if (out->n >= SW_MAX_VALUES)
            return yfail(err, y, in, "range: more than %d values", SW_MAX_VALUES);
        axis_push(ax, xprintf("%.10g", v), in, 1);
    }
    range_ends(ax, first, fn, tn, from, to);
    return 0;
}

static const char *tsv_bad_byte(const char *s, int tabs_ok);

/* An axis value a matrix.tsv field cannot hold (tsv_bad_byte: a tab, any other control byte
 * a YAML escape can write): -1 with err at the value. Until 2026-11-28 a tab ("1\tus", which a
 * time reads) passed check, then the study's matrix.tsv could not be read back ("bad line for
 * run 2: 8 tab-separated fields"), on every rerun. */
static int axis_value_tsv(ydoc *y, yaml_node_t *n, const char *path, const char *v,
                          am_error *err)
{
    const char *bad = tsv_bad_byte(v, 0);
    char q[SHOWN_MAX];
    if (bad)
        return yfail(err, y, n, "%s: '%s' has a control byte (0x%02x): a study's matrix.tsv "
                     "is tab-separated lines of plain text", path, SHOW(q, v),
                     (unsigned char)*bad);
    return 0;
}

/* The values of an axis written as a value or a list, each with its position. */
static int axis_list(ydoc *y, yaml_node_t *n, const char *path, sw_axis *ax, am_error *err)
{
    if (n->type == YAML_SCALAR_NODE) {
        if (axis_value_tsv(y, n, path, yscalar(n), err) != 0)
            return -1;
        axis_push(ax, am_strdup(yscalar(n)), n, 0);
        return 0;
    }
    if (n->type != YAML_SEQUENCE_NODE)
        return yfail(err, y, n, "%s: expected a value or a list of values, not a %s", path,
                     ykind(n));
    yaml_node_item_t *it = n->data.sequence.items.start;
    for (; it < n->data.sequence.items.top; it++) {
        yaml_node_t *c = ynode(y, *it);
        /* as a range's: at the first value past the limit (until 2026-11-28 a list had none
         * but the matrix's 10,000,000 runs, which README and sweeps/README.md said it had) */
        if (it - n->data.sequence.items.start == SW_MAX_VALUES)
            return yfail(err, y, c, "axes: %s: more than %d values", path, SW_MAX_VALUES);
        if (!yscalar(c))
            return yfail(err, y, c, "%s: list items must be single values, not a %s", path,
                         ykind(c));
        if (axis_value_tsv(y, c, path, yscalar(c), err) != 0)
            return -1;
        axis_push(ax, am_strdup(yscalar(c)), c, 0);
    }
    return 0;
}

/* Each value of the axis in the config's number form where its key reads a number, refused
 * as the config refuses it, at the value: before the repeat check, which reads '01' as 1 (until
 * 2026-11-27 `engine.queue_depth: [1, 01]` said `'01' repeats '1'`, and `[8, 010]` was a bad
 * number). A range's values are amsim's own, already in that form. */
static int axis_number_forms(const sw_axis *ax, const char *file, am_error *err)
{
    for (int i = 0; i < ax->vals.n; i++) {
        const char *form = ax->gen[i] ? NULL : cfg_opt_number_form(ax->opt, ax->vals.v[i]);
        if (form)
            return am_fail_at(err, file, ax->pos[i].line, ax->pos[i].col, "%s: bad number "
                              "'%s': %s", ax->path, ax->vals.v[i], form);
    }
    return 0;
}

static int parse_axis(ydoc *y, const char *path, yaml_node_t *n, sw_axis *ax, am_error *err)
{
    ax->path = am_strdup(path);
    ax->opt = cfg_path_opt(path);
    if (!n) /* libyaml gives every key a value node; this keeps the compiler's analysis sure */
        return yfail(err, y, n, "axis %s: no values", path);
    if (n->type != YAML_MAPPING_NODE) {
        if (axis_list(y, n, path, ax, err) != 0)
            return -1;
    } else {
        const char *from = NULL, *to = NULL, *step = NULL, *factor = NULL;
        yaml_node_t *fn = NULL, *tn = NULL, *in = NULL;
        for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
            yaml_node_t *k = ynode(y, p->key), *v = ynode(y, p->value);
            const char *ks = yscalar(k);
            if (ks && strcmp(ks, "values") == 0) {
                if (axis_list(y, v, path, ax, err) != 0)
                    return -1;
                continue;
            }
            const char **dst = !ks ? NULL : strcmp(ks, "from") == 0 ? &from
                             : strcmp(ks, "to") == 0 ? &to : strcmp(ks, "step") == 0 ? &step
                             : strcmp(ks, "factor") == 0 ? &factor : NULL;
            if (!ks)
                return ykey_fail(err, y, k, "axis: ");
            if (!dst)
                return yfail(err, y, k, "axis: unknown key '%s' (values, from, to, step, factor)",
                             ks);
            if (!yscalar(v))
                return yfail(err, y, v, "axis: '%s': expected a single value, not a %s", ks,
                             ykind(v));
            *dst = yscalar(v);
            /* the config's number form: until 2026-11-27 {from: 010, ...} listed 10 */
            const char *form = cfg_number_form(*dst);
            if (form)
                return yfail(err, y, v, "range: '%s': bad number '%s': %s", ks, *dst, form);
            if (dst == &from)
                fn = v;
            else if (dst == &to)
                tn = v;
            else
                in = v;
        }
        if (from || to || step || factor) {
            if (ax->vals.n)
                return yfail(err, y, n, "axis %s: give either values or a range", path);
            if (!from || !to || (!step == !factor))
                return yfail(err, y, n, "axis %s: a range needs from, to and one of step, factor",
                             path);
            if (expand_range(y, fn, tn, in, from, to, step, factor, ax, err) != 0)
                return -1;
            ax->range = step ? xprintf("from %s, step %s", from, step)
                             : xprintf("from %s, factor %s", from, factor);
        }
    }
    if (!ax->vals.n)
        return yfail(err, y, n, "axis %s: no values", path);
    if (axis_number_forms(ax, y->file, err) != 0)
        return -1;
    /* each value read once: a range can make 100000 of them (first_repeat sorts them) */
    ax->num = am_calloc((size_t)ax->vals.n, sizeof *ax->num);
    ax->has_num = am_calloc((size_t)ax->vals.n, 1);
    rep_val *v = am_calloc((size_t)ax->vals.n + 1, sizeof *v);
    for (int i = 0; i < ax->vals.n; i++) {
        ax->has_num[i] = (unsigned char)axis_num(ax, ax->vals.v[i], &ax->num[i]);
        v[i] = (rep_val){.text = ax->vals.v[i], .key = val_key_of(ax->vals.v[i]),
                         .num = ax->num[i], .has_num = ax->has_num[i]};
    }
    int i, j, found = first_repeat(v, ax->vals.n, 0, &i, &j);
    free(v);
    if (found)
        return am_fail_at(err, y->file, ax->pos[i].line, ax->pos[i].col, "axis %s: '%s' repeats "
                          "'%s' (line %lu, column %lu): every run with it would run twice", path,
                          ax->vals.v[i], ax->vals.v[j], ax->pos[j].line, ax->pos[j].col);
    return 0;
}

static int is_trace_file(const char *name)
{
    size_t n = strlen(name);
    static const char *skip[] = {".md", ".expect", ".yaml", ".yml", ".txt"};
    if (name[0] == '.')
        return 0;
    for (size_t i = 0; i < AM_ARRAY_LEN(skip); i++) {
        size_t k = strlen(skip[i]);
        if (n > k && strcmp(name + n - k, skip[i]) == 0)
            return 0;
    }
    return 1;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Add the traces a pattern names: a directory (its trace files), a glob or a path. */
static int add_traces(sweep *s, ydoc *y, yaml_node_t *n, const char *pat, am_error *err)
{
    char *full = rel_path(s, pat);
    size_t pre = s->dir[0] && pat[0] != '/' ? strlen(s->dir) + 1 : 0;
    struct stat st;
    if (stat(full, &st) == 0 && S_ISDIR(st.st_mode)) {
        DIR *d = opendir(full);
        strlist names = {0};
        struct dirent *e;
        while (d && (e = readdir(d)))
            if (is_trace_file(e->d_name))
                sl_push(&names, am_strdup(e->d_name));
        if (d)
            closedir(d);
        if (names.n)
            qsort(names.v, (size_t)names.n, sizeof *names.v, cmp_str);
        for (int i = 0; i < names.n; i++) {
            char *p = xprintf("%s/%s", full, names.v[i]);
            if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
                sl_push(&s->traces, p);
                sl_push(&s->trace_disp, am_strdup(p + pre));
            } else
                free(p);
        }
        sl_free(&names);
        free(full);
        return 0;
    }
    glob_t g;
    int rc = glob(full, 0, NULL, &g);
    if (rc == GLOB_NOMATCH) {
        free(full);
        return yfail(err, y, n, "traces: no file matches '%s'", pat);
    }
    if (rc != 0) {
        free(full);
        return yfail(err, y, n, "traces: cannot expand '%s'", pat);
    }
    /* A FIFO or a device is never read (the digest would read it first, and hang on a FIFO
     * with no writer or on /dev/zero; until 2026-11-27 batch, --list and check did): named
     * alone it is refused here, and a glob skips what is not a regular file, as a directory's
     * listing does. A path that does not stat is left to the run to fail on. */
    int is_glob = strpbrk(pat, "*?[") != NULL, added = 0;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        const char *p = g.gl_pathv[i];
        if (stat(p, &st) == 0 && !S_ISREG(st.st_mode)) {
            if (is_glob)
                continue;
            globfree(&g);
            free(full);
            return yfail(err, y, n, "traces: '%s' is not a regular file (%s); a trace is read "
                         "from a file, not a stream: save it to a file first", pat,
                         S_ISDIR(st.st_mode) ? "a directory" : "a pipe or a device");
        }
        sl_push(&s->traces, am_strdup(p));
        sl_push(&s->trace_disp, am_strdup(p + pre));
        added++;
    }
    globfree(&g);
    free(full);
    if (!added)
        return yfail(err, y, n, "traces: no regular file matches '%s' (a pipe, a device or a "
                     "directory is no trace)", pat);
    return 0;
}

/* generate.kind against amsim gen's kinds (gen_kinds), at the value's line:column with a "did
 * you mean" when one is close (until 2026-11-27 check passed an unknown kind and every run of
 * the batch failed with gen's whole usage). -1 with err. */
static int gen_kind_check(ydoc *y, yaml_node_t *n, const char *kind, am_error *err)
{
    const char *const *kinds = gen_kinds();
    for (int i = 0; kinds[i]; i++)
        if (strcmp(kinds[i], kind) == 0)
            return 0;
    char list[256] = "", hint[128] = "", q[SHOWN_MAX];
    for (int i = 0; kinds[i]; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                 kinds[i]);
    const char *near = cfg_suggest(kind, kinds);
    if (near)
        snprintf(hint, sizeof hint, "did you mean '%s'? ", near);
    return yfail(err, y, n, "generate.kind: unknown generator '%s' (%samsim gen KIND: %s)",
                 SHOW(q, kind), hint, list);
}

/* The first byte of s that a matrix.tsv line cannot hold, NULL when none: every C0 control
 * and DEL, the tab too unless tabs_ok (a line's field separator, which a field cannot hold).
 * The one predicate the sweep's trace check and the matrix.tsv reader share, so that what
 * check and batch pass reads back (until 2026-11-28 the check refused only tab and newline, and
 * a name with an ESC, a carriage return or a DEL ran, then every results.csv build failed). */
static const char *tsv_bad_byte(const char *s, int tabs_ok)
{
    for (const unsigned char *c = (const unsigned char *)s; *c; c++)
        if ((*c < 0x20 && !(tabs_ok && *c == '\t')) || *c == 0x7f)
            return (const char *)c;
    return NULL;
}

/* The traces a pattern added (from index before on) that a matrix.tsv field cannot hold
 * (tsv_bad_byte): a tab or a newline in the name would split its row, any other control byte
 * is refused by the reader (until 2026-11-27 the runs ran, then every results.csv build failed
 * with "matrix.tsv: bad line for run 1"; until 2026-11-28 the same for the other controls).
 * -1 with err at the pattern, which check and batch read alike. */
static int trace_names_tsv(const sweep *s, ydoc *y, yaml_node_t *n, const char *pat, int before,
                           am_error *err)
{
    char q[SHOWN_MAX], q2[SHOWN_MAX]; /* shown with \x09, \x0a, \x1b... */
    for (int i = before; i < s->traces.n; i++) {
        const char *bad = tsv_bad_byte(s->trace_disp.v[i], 0);
        if (bad)
            return yfail(err, y, n, "traces: '%s' names %s, whose name has a control byte "
                         "(0x%02x): rename the file (a study's matrix.tsv is tab-separated "
                         "lines of plain text)", SHOW(q, pat), SHOW(q2, s->trace_disp.v[i]),
                         (unsigned char)*bad);
    }
    return 0;
}

batch_counts batch_work;

/* The traces a pattern added (from index before on) against every trace named before each:
 * those of earlier patterns and the pattern's own (a glob or a directory can name one file
 * twice through links; until 2026-11-25 only earlier patterns were compared). The same file
 * (device and inode) twice, under any spelling, would repeat its runs; the message names the
 * first trace of that file. -1 with err at the pattern. Each trace is stat'ed once and filed
 * in a B+-tree by (device, inode): until 2026-11-27 each was stat'ed again against every later
 * one (n^2/2 stat calls: 4,000 traces took 18 s to check). */
static int trace_repeats(sweep *s, ydoc *y, yaml_node_t *n, const char *pat, int before,
                         am_error *err)
{
    for (int i = before; i < s->traces.n; i++) {
        struct stat a;
        batch_work.trace_stats++;
        if (stat(s->traces.v[i], &a) != 0)
            continue;
        void *first = bt_find(&s->file_ids, (uint64_t)a.st_dev, (uint64_t)a.st_ino);
        int j = first ? (int)(intptr_t)first - 1 : -1;
        if (!first)
            bt_insert(&s->file_ids, (uint64_t)a.st_dev, (uint64_t)a.st_ino,
                      (void *)(intptr_t)(i + 1));
        if (j >= 0)
            return yfail(err, y, n, "traces: '%s' names %s again (as %s): every run on it "
                         "would run twice; name each trace once", pat, s->trace_disp.v[i],
                         s->trace_disp.v[j]);
    }
    return 0;
}

/* "a, b, c" (the first 8, then "...") for messages. */
static void list_values(char *buf, size_t n, const strlist *l)
{
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < l->n && i <= 8 && k + 1 < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%s", i ? ", " : "", i == 8 ? "..." : l->v[i]);
}

/* The keys an exclusion may name in this sweep, NULL-terminated in cands (room for
 * SW_MAX_AXES + 4), and their count: policy only with a 'policies:' list and seed only with a
 * 'seeds:' list (without one either key is refused, so offering it would send a typo to another
 * error; until 2026-11-27 both were always listed and suggested), trace always, then the axes. */
static size_t exclusion_keys(const sweep *s, const char **cands)
{
    size_t n = 0;
    if (s->policies.n)
        cands[n++] = "policy";
    cands[n++] = "trace";
    if (s->seeds.n)
        cands[n++] = "seed";
    for (int a = 0; a < s->naxes; a++)
        cands[n++] = s->axes[a].path;
    cands[n] = NULL;
    return n;
}

/* ---- exclusions, read once and filed by the values they match ---------------------------- */

/* An exclusion's key names one dimension of the matrix: a policy, a trace, a seed or an axis
 * (EXD_AXIS + its index). */
enum { EXD_POLICY, EXD_TRACE, EXD_SEED, EXD_AXIS };

static int cmp_num_ix(const void *a, const void *b)
{
    const num_ix *x = a, *y = b;
    if (x->num != y->num)
        return x->num < y->num ? -1 : 1;
    return (x->ix > y->ix) - (x->ix < y->ix);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The values of dimension d, each as exclusions compare it (the trace column of generated runs
 * is its one value gen:KIND). */
static int exd_count(const sweep *s, int d)
{
    if (d == EXD_POLICY)
        return s->policies.n;
    if (d == EXD_SEED)
        return s->seeds.n;
    if (d == EXD_TRACE)
        return s->traces.n ? s->traces.n : s->gen_disp ? 1 : 0;
    return s->axes[d - EXD_AXIS].vals.n;
}

static const char *exd_value(const sweep *s, int d, int v)
{
    if (d == EXD_POLICY)
        return s->policies.v[v];
    if (d == EXD_SEED)
        return s->seeds.v[v];
    if (d == EXD_TRACE)
        return s->traces.n ? s->trace_disp.v[v] : s->gen_disp;
    return s->axes[d - EXD_AXIS].vals.v[v];
}

/* Read dimension d's values once for matching (not traces, which are globs' subjects): each
 * as value_match reads it and, for an axis, those with a number sorted by it. */
static excl_dim *exd_prepare(sweep *s, int d)
{
    excl_dim *e = &s->exd[d];
    if (e->ready || d == EXD_TRACE) {
        e->n = exd_count(s, d);
        return e;
    }
    e->ready = 1;
    e->n = exd_count(s, d);
    e->keys = am_calloc((size_t)e->n + 1, sizeof *e->keys);
    for (int v = 0; v < e->n; v++)
        e->keys[v] = val_key_of(exd_value(s, d, v));
    if (d < EXD_AXIS)
        return e;
    const sw_axis *ax = &s->axes[d - EXD_AXIS];
    e->by_num = am_calloc((size_t)e->n + 1, sizeof *e->by_num);
    e->no_num = am_calloc((size_t)e->n + 1, sizeof *e->no_num);
    for (int v = 0; v < e->n; v++)
        if (ax->has_num[v])
            e->by_num[e->nby_num++] = (num_ix){ax->num[v], v};
        else
            e->no_num[e->nno_num++] = v;
    qsort(e->by_num, (size_t)e->nby_num, sizeof *e->by_num, cmp_num_ix);
    return e;
}

static void push_int(int **v, int *n, int *cap, int x)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 4;
        *v = am_realloc(*v, (size_t)*cap * sizeof **v);
    }
    (*v)[(*n)++] = x;
}

/* The values of an axis that pat (an exclusion's value) is, into h: where both read as a
 * number (axis_num), those whose number is pat's, found by binary search in by_num; the others
 * compared as value_match. */
static void axis_hits(sweep *s, int d, const char *pat, int **h, int *nh, int *cap)
{
    excl_dim *e = &s->exd[d];
    const sw_axis *ax = &s->axes[d - EXD_AXIS];
    val_key pk = val_key_of(pat);
    uint64_t pv;
    if (!axis_num(ax, pat, &pv)) { /* every value compares as value_match */
        for (int v = 0; v < e->n; v++) {
            batch_work.value_tests++;
            if (val_key_match(pat, &pk, ax->vals.v[v], &e->keys[v]))
                push_int(h, nh, cap, v);
        }
        return;
    }
    int lo = 0, hi = e->nby_num; /* the first with a number >= pv */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        batch_work.value_tests++;
        if (e->by_num[mid].num < pv)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < e->nby_num && e->by_num[lo].num == pv; lo++)
        push_int(h, nh, cap, e->by_num[lo].ix);
    for (int k = 0; k < e->nno_num; k++) {
        int v = e->no_num[k];
        batch_work.value_tests++;
        if (val_key_match(pat, &pk, ax->vals.v[v], &e->keys[v]))
            push_int(h, nh, cap, v);
    }
    if (*nh > 1) /* none matched: *h is still NULL, which qsort may not be given */
        qsort(*h, (size_t)*nh, sizeof **h, cmp_int);
}

/* The values of dimension d that exclusion value pat matches (as excl_matches did, value by
 * value: value_match, or on an axis as axis_hits says), ascending, in *out; their count. pat is read
 * once, not once per value and run (until 2026-11-27 an axis of 4,000 values with 2,000
 * exclusions took 5.5 s to check). */
static int excl_hits(sweep *s, int d, const char *pat, int **out)
{
    excl_dim *e = exd_prepare(s, d);
    int *h = NULL, nh = 0, cap = 0;
    if (d == EXD_TRACE) {
        for (int v = 0; v < e->n; v++) {
            batch_work.value_tests++;
            if (value_match(pat, exd_value(s, d, v), 1))
                push_int(&h, &nh, &cap, v);
        }
    } else if (d < EXD_AXIS) {
        val_key pk = val_key_of(pat);
        for (int v = 0; v < e->n; v++) {
            batch_work.value_tests++;
            if (val_key_match(pat, &pk, exd_value(s, d, v), &e->keys[v]))
                push_int(&h, &nh, &cap, v);
        }
    } else
        axis_hits(s, d, pat, &h, &nh, &cap);
    *out = h;
    return nh;
}

/* File each exclusion under the values of its narrowest key (the one matching the smallest
 * share of its dimension's values, so the fewest runs): a run then tries only the exclusions
 * filed under its own values, not all of them. */
static void excl_index_build(sweep *s)
{
    int ndims = EXD_AXIS + s->naxes;
    for (int i = 0; i < s->nexcl; i++) {
        sw_excl *x = &s->excl[i];
        x->ix_key = 0;
        for (int k = 1; k < x->keys.n; k++) {
            int b = x->ix_key;
            /* nhits[k] / n(k) < nhits[b] / n(b), in integers */
            if ((long)x->nhits[k] * exd_count(s, x->dim[b]) <
                (long)x->nhits[b] * exd_count(s, x->dim[k]))
                x->ix_key = k;
        }
    }
    for (int d = 0; d < ndims; d++) {
        excl_dim *e = &s->exd[d];
        e->n = exd_count(s, d);
        int total = 0;
        for (int i = 0; i < s->nexcl; i++)
            if (s->excl[i].dim[s->excl[i].ix_key] == d)
                total += s->excl[i].nhits[s->excl[i].ix_key];
        if (!total)
            continue;
        e->start = am_calloc((size_t)e->n + 2, sizeof *e->start);
        e->rules = am_calloc((size_t)total + 1, sizeof *e->rules);
        for (int i = 0; i < s->nexcl; i++) {
            const sw_excl *x = &s->excl[i];
            if (x->dim[x->ix_key] == d)
                for (int h = 0; h < x->nhits[x->ix_key]; h++)
                    e->start[x->hits[x->ix_key][h] + 2]++;
        }
        for (int v = 0; v < e->n; v++)
            e->start[v + 2] += e->start[v + 1];
        /* start[v + 1] is now where value v's exclusions go; filling moves it to their end */
        for (int i = 0; i < s->nexcl; i++) {
            const sw_excl *x = &s->excl[i];
            if (x->dim[x->ix_key] == d)
                for (int h = 0; h < x->nhits[x->ix_key]; h++)
                    e->rules[e->start[x->hits[x->ix_key][h] + 1]++] = i;
        }
    }
}

/* The index of run r's value in dimension d, or -1 when r has none there. */
static int run_dim_ix(const sweep *s, const sw_run *r, int d)
{
    if (d == EXD_POLICY)
        return r->policy;
    if (d == EXD_SEED)
        return r->seed;
    if (d == EXD_TRACE)
        return r->trace >= 0 ? r->trace : s->gen_disp ? 0 : -1;
    return r->ax[d - EXD_AXIS];
}

/* Why exclusion value val of dimension d is not written as the sweep's values of d must be,
 * or NULL: a seed as seeds: reads one (check_seeds), a value of an axis whose option takes a
 * number (a size, time, integer...) in the config's number form (no '+', no leading zero), as
 * the axis's own values are when the config loads them. Until 2026-11-27 `{seed: 010}` excluded
 * seed 10, and `{memories.hbm.capacity: 010GiB}`, `+8GiB` or `{engine.queue_depth: 010}` the
 * runs of 10GiB, 8GiB and 10, values that `seeds:` and the axes refuse. why_buf: room for a
 * message built here. */
static const char *excl_value_form(const sweep *s, int d, const char *val, char *why_buf,
                                   size_t n)
{
    uint64_t seed;
    if (d == EXD_SEED)
        return seed_text_why(val, why_buf, n, &seed);
    if (d < EXD_AXIS)
        return NULL;
    /* the loader's own rule for the option's values (opt_parse), as axis_number_forms applies
     * it to the axis's values */
    const char *form = cfg_opt_number_form(s->axes[d - EXD_AXIS].opt, val);
    if (!form)
        return NULL;
    snprintf(why_buf, n, "bad number '%s': %s", val, form);
    return why_buf;
}

/* Every exclusion names a dimension of the sweep, each at most once, and each value matches
 * one of the sweep's values for it: an exclusion that excludes nothing is a typo ({policy:
 * cachng}), so it is refused at its line and column with what would match. */
static int check_exclusions(sweep *s, am_error *err)
{
    for (int i = 0; i < s->nexcl; i++) {
        sw_excl *x = &s->excl[i];
        x->dim = am_calloc((size_t)x->keys.n + 1, sizeof *x->dim);
        x->hits = am_calloc((size_t)x->keys.n + 1, sizeof *x->hits);
        x->nhits = am_calloc((size_t)x->keys.n + 1, sizeof *x->nhits);
        for (int k = 0; k < x->keys.n; k++) {
            const char *key = x->keys.v[k], *val = x->vals.v[k];
            sw_pos kp = x->kpos[k], vp = x->vpos[k];
            const strlist *vals = NULL;
            strlist gen = {0};
            int dim = -1;
            if (!strcmp(key, "policy"))
                vals = &s->policies, dim = EXD_POLICY;
            else if (!strcmp(key, "seed"))
                vals = &s->seeds, dim = EXD_SEED;
            else if (!strcmp(key, "trace")) {
                dim = EXD_TRACE;
                vals = s->gen_disp ? &gen : &s->trace_disp;
                if (s->gen_disp)
                    sl_push(&gen, am_strdup(s->gen_disp));
            } else
                for (int a = 0; a < s->naxes && !vals; a++)
                    if (!strcmp(key, s->axes[a].path)) {
                        vals = &s->axes[a].vals;
                        dim = EXD_AXIS + a;
                    }
            if (!vals) {
                const char *cands[SW_MAX_AXES + 4];
                char all[2048];
                size_t n = exclusion_keys(s, cands), o = 0;
                all[0] = 0;
                for (size_t c = 0; c < n && o + 1 < sizeof all; c++)
                    o += (size_t)snprintf(all + o, sizeof all - o, "%s%s", c ? ", " : "", cands[c]);
                const char *near = cfg_suggest(key, cands);
                if (near)
                    return am_fail_at(err, s->file, kp.line, kp.col, "exclude: '%s' is not an "
                                      "axis, policy, trace or seed (did you mean '%s'?)", key,
                                      near);
                return am_fail_at(err, s->file, kp.line, kp.col, "exclude: '%s' is not an axis, "
                                  "policy, trace or seed (this sweep has: %s)", key, all);
            }
            if (!vals->n) {
                sl_free(&gen);
                return am_fail_at(err, s->file, kp.line, kp.col, "exclude: '%s' needs a '%s:' "
                                  "list in the sweep (it has none, so this excludes nothing)", key,
                                  !strcmp(key, "policy") ? "policies" : "seeds");
            }
            char bad_form[256];
            if (excl_value_form(s, dim, val, bad_form, sizeof bad_form)) {
                sl_free(&gen);
                return am_fail_at(err, s->file, vp.line, vp.col, "exclude: %s: %s", key,
                                  bad_form);
            }
            x->dim[k] = dim;
            x->nhits[k] = excl_hits(s, dim, val, &x->hits[k]);
            if (!x->nhits[k]) {
                char list[1024];
                list_values(list, sizeof list, vals);
                const char *cands[9] = {0};
                for (int v = 0; v < vals->n && v < 8; v++)
                    cands[v] = vals->v[v];
                /* a spelling is suggested for names; for sizes and numbers the list says more */
                const char *why;
                uint64_t u;
                double d;
                const char *near = dim == EXD_TRACE || units_size(val, &u, &why) == 0 ||
                                   units_real(val, &d, &why) == 0 ? NULL : cfg_suggest(val, cands);
                char hint[256] = "";
                if (near)
                    snprintf(hint, sizeof hint, "did you mean '%s'? ", near);
                am_fail_at(err, s->file, vp.line, vp.col, "exclude: %s '%s' matches none of the "
                           "sweep's values, so it excludes nothing (%s%s: %s)", key, val, hint,
                           dim == EXD_TRACE ? "traces" : "values", list);
                sl_free(&gen);
                return -1;
            }
            sl_free(&gen);
        }
    }
    return 0;
}

/* generate.args against amsim gen KIND's options: an option that takes a value must have one
 * (`args: [--m]` took the -o the batch appends as its value, and every run failed), and a
 * number in a form gen refuses ('--tflops 0197', '--layers +5'; gen_value_form) is refused.
 * Unknown options and other bad values are left to gen, whose message each failed run
 * records. */
static int gen_args_check(const sweep *s, ydoc *y, yaml_node_t *n, am_error *err)
{
    const strlist *a = &s->gen_args;
    for (int i = 0; i < a->n; i++) {
        const char *arg = a->v[i];
        if (strncmp(arg, "--", 2) != 0 || !arg[2])
            continue;
        const char *eq = strchr(arg, '=');
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(eq ? eq - arg - 2 : (long)strlen(arg) - 2),
                 arg + 2);
        int k = gen_option_kind(s->gen_kind, name);
        if (k == -2)
            return 0; /* no such kind: refused before (gen_kind_check) */
        if (k != 1)
            continue;
        if (eq && !eq[1])
            return yfail(err, y, yitem(y, n, i), "generate.args: '%s' needs a value after '=' "
                         "(amsim gen %s --%s X)", arg, s->gen_kind, name);
        if (!eq && i + 1 == a->n)
            return yfail(err, y, yitem(y, n, i), "generate.args: '%s' needs a value, the next "
                         "item (amsim gen %s --%s X); as the last item it would take the run's "
                         "-o", arg, s->gen_kind, name);
        /* a number in a form gen refuses ('--tflops 0197') is refused here too, so that no
         * run is started to fail on it (until 2026-11-27 gen took it for reals) */
        const char *val = eq ? eq + 1 : a->v[i + 1];
        char why[256];
        if (gen_value_form(s->gen_kind, name, val, why, sizeof why) != 0)
            return yfail(err, y, yitem(y, n, eq ? i : i + 1), "generate.args: %s", why);
        if (!eq)
            i++; /* its value, whatever it looks like (as gen reads it) */
    }
    return 0;
}

static const char *base_name(const char *p)
{
    const char *b = strrchr(p, '/');
    return b ? b + 1 : p;
}

/* An axis's label in expectation file names: the last part of its path (`capacity`), or the
 * whole path when another axis of the sweep ends in the same part (memories.hbm.capacity and
 * memories.vmem.capacity). */
static const char *axis_label(const sweep *s, int a)
{
    const char *p = s->axes[a].path, *last = strrchr(p, '.'), *lab = last ? last + 1 : p;
    for (int b = 0; b < s->naxes; b++) {
        const char *q = s->axes[b].path, *lb = strrchr(q, '.');
        if (b != a && strcmp(lb ? lb + 1 : q, lab) == 0)
            return p;
    }
    return lab;
}

/* Write text with each byte outside [A-Za-z0-9._+-] as %XX (upper-case hex): a file name
 * without '/', and reversible, so distinct values keep distinct names ('=' is escaped too, so a
 * value cannot pass for the next LABEL=). */
static void put_escaped(FILE *f, const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        int ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                 (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '+' || *p == '-';
        if (ok)
            fputc(*p, f);
        else
            fprintf(f, "%%%02X", *p);
    }
}

/* kind regress: NAME[.POLICY][.LABEL=VALUE...].expect in EXPECTATIONS, for the run r's trace,
 * policy, seed and axis values (the file name alone, allocated). NAME is the trace's file name
 * (unique in a regress sweep: expect_names_unique), or for a generated trace gen.trace with one
 * seed and gen.seedS.trace with several (each seed generates another trace; until 2026-11-25
 * every seed used gen.trace's). Each axis adds .LABEL=VALUE (axis_label; both escaped:
 * put_escaped), in the sweep's order, so each axis point has its own expectation (until
 * 2026-11-27 the points of an axis shared one: --update-expectations wrote it from each of them
 * and the next check deviated); names of sweeps without axes are unchanged. r->trace, r->seed:
 * -1 when the dimension is empty; r->policy: an index of policies:, or -1 for the config's own. */
static char *expect_name(const sweep *s, const sw_run *r)
{
    const char *pol = r->policy >= 0 ? s->policies.v[r->policy] : NULL;
    char gen[64] = "gen.trace";
    uint64_t sv;
    if (r->trace < 0 && s->seeds.n > 1 && r->seed >= 0 &&
        !gen_seed_parse(s->seeds.v[r->seed], &sv))
        snprintf(gen, sizeof gen, "gen.seed%" PRIu64 ".trace", sv);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fprintf(f, "%s%s%s", r->trace >= 0 ? base_name(s->traces.v[r->trace]) : gen, pol ? "." : "",
            pol ? pol : "");
    for (int a = 0; a < s->naxes; a++) {
        fputc('.', f);
        put_escaped(f, axis_label(s, a));
        fputc('=', f);
        put_escaped(f, s->axes[a].vals.v[r->ax[a]]);
    }
    fputs(".expect", f);
    fclose(f);
    return text;
}

/* EXPECTATIONS/expect_name in buf; dir is s->expect_dir, or expect_dir_w in the sweep's
 * folder. */
static const char *expect_path_in(const sweep *s, const char *dir, const sw_run *r, char *buf,
                                  size_t n)
{
    char *name = expect_name(s, r);
    snprintf(buf, n, "%s/%s", dir, name);
    free(name);
    return buf;
}

static const char *expect_path(const sweep *s, const sw_run *r, char *buf, size_t n)
{
    return expect_path_in(s, s->expect_dir, r, buf, n);
}

/* The expectations of a regress sweep are the number of expectation sources (traces, or the
 * generated traces that have names of their own) times max(1, policies) times the number of axis
 * points (the product of the axes' value counts); a run's is at expect_slot, in matrix order
 * (source, policy, axes with the first outermost). -1 over SW_MAX_RUNS (the matrix is refused
 * then: matrix_cap_check). */
static int expect_nsrc(const sweep *s)
{
    return s->traces.n ? s->traces.n : s->seeds.n > 1 ? s->seeds.n : 1;
}

static long expect_nslots(const sweep *s)
{
    long n = (long)expect_nsrc(s) * (s->policies.n ? s->policies.n : 1);
    for (int a = 0; a < s->naxes; a++)
        if ((n *= s->axes[a].vals.n) > SW_MAX_RUNS)
            return -1;
    return n;
}

static long expect_slot(const sweep *s, const sw_run *r)
{
    int src = r->trace >= 0 ? r->trace : s->seeds.n > 1 && r->seed >= 0 ? r->seed : 0;
    long slot = (long)src * (s->policies.n ? s->policies.n : 1) +
                (r->policy >= 0 ? r->policy : 0);
    for (int a = 0; a < s->naxes; a++)
        slot = slot * s->axes[a].vals.n + r->ax[a];
    return slot;
}

/* The run identity (trace, policy, seed, axis values) of expectation slot i: expect_slot's
 * inverse. */
static sw_run expect_slot_run(const sweep *s, long i)
{
    sw_run r = {0};
    for (int a = s->naxes - 1; a >= 0; a--) {
        r.ax[a] = (int)(i % s->axes[a].vals.n);
        i /= s->axes[a].vals.n;
    }
    int np = s->policies.n ? s->policies.n : 1;
    r.policy = s->policies.n ? (int)(i % np) : -1;
    i /= np;
    r.trace = s->traces.n ? (int)i : -1;
    r.seed = r.trace < 0 ? (int)i : -1;
    return r;
}

typedef struct named_ix {
    char *path;
    int ix;
} named_ix;

static int cmp_named_ix(const void *a, const void *b)
{
    const named_ix *x = a, *y = b;
    int c = strcmp(x->path, y->path);
    return c ? c : (x->ix > y->ix) - (x->ix < y->ix);
}

/* A regress sweep names each trace's expectation by the trace's file name: two traces of one
 * name in different folders (a/step.trace, b/step.trace) would share one (until 2026-11-25
 * --update-expectations wrote it from both runs and each check compared one trace with the
 * other's recording). Refused at the later trace's traces: item, naming both; expectation files
 * of sweeps without such a pair keep their names. */
static int expect_names_unique(const sweep *s, am_error *err)
{
    named_ix *v = am_calloc((size_t)s->traces.n + 1, sizeof *v);
    for (int t = 0; t < s->traces.n; t++)
        v[t] = (named_ix){(char *)(uintptr_t)base_name(s->traces.v[t]), t};
    qsort(v, (size_t)s->traces.n, sizeof *v, cmp_named_ix);
    int a = -1, b = -1; /* the clash whose later trace comes first in the sweep */
    for (int i = 1; i < s->traces.n; i++)
        if (strcmp(v[i].path, v[i - 1].path) == 0 && (b < 0 || v[i].ix < b))
            a = v[i - 1].ix, b = v[i].ix;
    free(v);
    if (b < 0)
        return 0;
    char ep[4096];
    sw_run r = {.trace = a, .policy = s->policies.n ? 0 : -1, .seed = -1};
    expect_path(s, &r, ep, sizeof ep);
    return am_fail_at(err, s->file, s->trace_pos[b].line, s->trace_pos[b].col, "traces: %s and "
                      "%s (line %lu, column %lu) have one file name, and a regress sweep names "
                      "each trace's expectation by it: both would use %s; rename one or check "
                      "them in separate sweeps", s->trace_disp.v[b], s->trace_disp.v[a],
                      s->trace_pos[a].line, s->trace_pos[a].col, ep);
}

/* Refuse the expectation name of r, too long for a file name, at the axis value that makes it
 * longest (or its trace). */
static int expect_name_too_long(const sweep *s, const sw_run *r, const char *name,
                                am_error *err)
{
    sw_pos at = {1, 1};
    size_t longest = 0;
    if (r->trace >= 0)
        at = s->trace_pos[r->trace];
    for (int a = 0; a < s->naxes; a++) {
        const char *v = s->axes[a].vals.v[r->ax[a]];
        if (strlen(v) > longest)
            longest = strlen(v), at = s->axes[a].pos[r->ax[a]];
    }
    return am_fail_at(err, s->file, at.line, at.col, "a regress sweep names each expectation by "
                      "its trace, policy and axis values: '%.60s...' would be %zu bytes, over the "
                      "%d a file name can have; use shorter values or fewer axes", name,
                      strlen(name), NAME_MAX);
}

/* Every expectation name of a regress sweep fits in a file name (NAME_MAX bytes) and is its
 * slot's alone: expect_name makes them distinct (escaped, reversible values), this is the guard
 * that two runs never share one. A matrix over SW_MAX_RUNS runs was refused before, at the key
 * that takes it past (matrix_cap_check). */
static int expect_names_check(const sweep *s, am_error *err)
{
    long n = expect_nslots(s);
    if (n < 0)
        return 0;
    named_ix *v = am_calloc((size_t)n + 1, sizeof *v);
    int rc = 0;
    long made = 0;
    for (; made < n && rc == 0; made++) {
        sw_run r = expect_slot_run(s, made);
        v[made] = (named_ix){expect_name(s, &r), (int)made};
        if (strlen(v[made].path) > NAME_MAX)
            rc = expect_name_too_long(s, &r, v[made].path, err);
    }
    if (rc == 0) {
        qsort(v, (size_t)n, sizeof *v, cmp_named_ix);
        for (long i = 1; i < n && rc == 0; i++)
            if (strcmp(v[i].path, v[i - 1].path) == 0)
                rc = am_fail_at(err, s->file, 1, 1, "kind: regress: two runs of different "
                                "traces, policies or axis values would share the expectation "
                                "%s/%s; rename a trace or change an axis value", s->expect_dir,
                                v[i].path);
    }
    for (long i = 0; i < made; i++)
        free(v[i].path);
    free(v);
    return rc;
}

/* Whether sw_pos a comes after b in the file. */
static int pos_after(sw_pos a, sw_pos b)
{
    return a.line > b.line || (a.line == b.line && a.col > b.col);
}

/* The first setting of leaves a (sweep.set_leaves) that leaves b gives too, or that one of b's
 * is inside (a path and a map under it), into out (n bytes); 0 when they share none. */
static int leaves_overlap(const char *a, const char *b, char *out, size_t n)
{
    for (const char *p = a + 1; *p; p = strchr(p, '\n') + 1) {
        size_t len = strcspn(p, "\n");
        for (const char *q = b + 1; *q; q = strchr(q, '\n') + 1) {
            size_t qlen = strcspn(q, "\n"), m = len < qlen ? len : qlen;
            if (strncmp(p, q, m) || (len != qlen && (len > qlen ? p : q)[m] != '.'))
                continue;
            snprintf(out, n, "%.*s", (int)(len > qlen ? len : qlen), len > qlen ? p : q);
            return 1;
        }
    }
    return 0;
}

/* Two set: entries that give the same setting (set: {memories.hbm.capacity: 1GiB,
 * memories.hbm: {capacity: 2GiB}}): the later replaced the earlier in every run, silently
 * (until 2026-11-27). Refused at the later one's path, naming the earlier. The same path
 * written twice is no_duplicate_keys's to refuse; this is one written in two forms. */
static int set_twice(const sweep *s, am_error *err)
{
    for (int j = 1; j < s->sets.n; j++)
        for (int i = 0; i < j; i++) {
            char both[1024];
            if (!leaves_overlap(s->set_leaves[j], s->set_leaves[i], both, sizeof both))
                continue;
            return am_fail_at(err, s->file, s->set_at[j].kline, s->set_at[j].kcol, "set: %s "
                              "is also given by set: %.*s (line %lu, column %lu): the later "
                              "entry would replace the earlier one in every run; give it once",
                              both, set_path_len(s->sets.v[i]), s->sets.v[i],
                              s->set_at[i].kline, s->set_at[i].kcol);
        }
    return 0;
}

/* A set: path that is also an axis: the axis replaced the set: value in every run, silently
 * (until 2026-11-27). Refused at the second of the two, naming the first. A set: map under
 * which an axis varies a field (set: {memories.scratch: {...}}, axes: memories.scratch.capacity)
 * is not this: the axis changes one field of what set: gives. */
static int set_axis_same_key(const sweep *s, am_error *err)
{
    for (int a = 0; a < s->naxes; a++)
        for (int i = 0; i < s->sets.n; i++) {
            size_t n = (size_t)set_path_len(s->sets.v[i]);
            if (strlen(s->axes[a].path) != n || strncmp(s->axes[a].path, s->sets.v[i], n) != 0)
                continue;
            sw_pos ap = s->axes[a].kpos, sp = {s->set_at[i].kline, s->set_at[i].kcol};
            int axis_second = pos_after(ap, sp);
            sw_pos at = axis_second ? ap : sp, first = axis_second ? sp : ap;
            return am_fail_at(err, s->file, at.line, at.col, "%s: %s is also %s (line %lu, "
                              "column %lu): the axis would replace the set: value in every run; "
                              "give it in one of them", axis_second ? "axes" : "set",
                              s->axes[a].path, axis_second ? "set by set:" : "an axis",
                              first.line, first.col);
        }
    return 0;
}

/* A matrix over SW_MAX_RUNS runs before exclusions is refused when the sweep is read, at the key
 * whose values take the product past it: traces, policies, each axis (first to last), seeds, as
 * matrix_at orders them. Until 2026-11-27 it was refused only after every run below the limit had
 * been planned in memory (about 590 bytes a run: 6 GB just under it), and with no position. */
static int matrix_cap_check(const sweep *s, am_error *err)
{
    const char *what[SW_MAX_AXES + 3];
    long count[SW_MAX_AXES + 3];
    sw_pos at[SW_MAX_AXES + 3];
    int n = 0;
    what[n] = "traces", count[n] = s->traces.n, at[n++] = s->traces_kpos;
    what[n] = "policies", count[n] = s->policies.n, at[n++] = s->policies_kpos;
    for (int a = 0; a < s->naxes; a++)
        what[n] = s->axes[a].path, count[n] = s->axes[a].vals.n, at[n++] = s->axes[a].kpos;
    what[n] = "seeds", count[n] = s->seeds.n, at[n++] = s->seeds_kpos;
    long runs = 1;
    for (int i = 0; i < n; i++) {
        if (count[i] <= 0) /* an absent dimension is one run of each */
            continue;
        long before = runs;
        runs *= count[i]; /* at most SW_MAX_RUNS x one list's length: no overflow */
        if (runs <= SW_MAX_RUNS)
            continue;
        int is_axis = i >= 2 && i < n - 1;
        return am_fail_at(err, s->file, at[i].line, at[i].col, "%s%s: its %ld value%s take the "
                          "matrix to %ld runs before exclusions (%ld before it x %ld), over the "
                          "limit of %ld runs (a batch plans every run in memory, about 590 bytes "
                          "each); use fewer values or split the sweep", is_axis ? "axes: " : "",
                          what[i], count[i], count[i] == 1 ? "" : "s", runs, before, count[i],
                          SW_MAX_RUNS);
    }
    return 0;
}

/* A base config that does not exist, is a folder or cannot be read is refused at its base:
 * value, as a missing trace is at its traces: item (until 2026-11-27 with the config loader's
 * words and no position in the sweep: "amsim: nope.yaml: cannot open: ...", "amsim: .: read
 * error: Is a directory"). Anything else about it is the config loader's to say. */
static int base_unreadable(ydoc *y, const yaml_node_t *v, const char *path, am_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return yfail(err, y, v, "base: cannot open '%s': %s", yscalar(v), strerror(errno));
    if (S_ISDIR(st.st_mode))
        return yfail(err, y, v, "base: '%s' is a folder, not a config", yscalar(v));
    if (access(path, R_OK) != 0)
        return yfail(err, y, v, "base: cannot read '%s': %s", yscalar(v), strerror(errno));
    /* a sweep (another, this one, or one of a cycle): until 2026-11-28 the config loader read
     * it and said "sw2.yaml:1:1: unknown key 'base'", naming neither base: nor what was wrong.
     * Only a regular file is looked into: a FIFO's open would block. */
    if (S_ISREG(st.st_mode) && batch_sniff_sweep(path))
        return yfail(err, y, v, "base: '%s' is a sweep, not a config", yscalar(v));
    return 0;
}

/* An expectations: folder that is there but is no folder (the sweep file itself, a trace) is
 * refused at its value, as base: '.' is (until 2026-11-27 `check` and the sweep's read passed
 * it and every run then failed, "Not a directory"). One not there yet is fine:
 * --update-expectations makes it. */
static int expect_dir_not_folder(ydoc *y, const yaml_node_t *v, const char *path,
                                 am_error *err)
{
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode))
        return yfail(err, y, v, "expectations: '%s' is a file, not a folder", yscalar(v));
    return 0;
}

static int sweep_load(sweep *s, const char *file, am_error *err)
{
    memset(s, 0, sizeof *s);
    s->file = am_strdup(file);
    s->dir = am_input_dir(file); /* "" for standard input, by any of its names */
    char *text = NULL;
    size_t len = 0;
    if (cfg_read_file(file, &text, &len, err) != 0) /* the config loader's limit, 64 MiB */
        return -1;
    /* The config loader's rules, event by event, before libyaml's document loader builds
     * anything: until 2026-11-27 the loader expanded aliases (a 440-byte alias bomb took 3 GB,
     * a self-reference exhausted memory), ignored a second document and built any nesting
     * before the config refused it. */
    if (cfg_yaml_screen(file, text, len, "sweep", err) != 0) {
        free(text);
        return -1;
    }
    yaml_parser_t p;
    ydoc y = {.file = s->file};
    int rc = -1;
    if (!yaml_parser_initialize(&p))
        am_oom_exit("libyaml cannot start a parser", file);
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    if (!yaml_parser_load(&p, &y.d)) {
        if (p.error == YAML_MEMORY_ERROR)
            am_oom_exit("libyaml", file);
        am_fail_at(err, file, p.problem_mark.line + 1, p.problem_mark.column + 1, "%s",
                   p.problem ? p.problem : "YAML syntax error");
        yaml_parser_delete(&p);
        free(text);
        return -1;
    }
    yaml_parser_delete(&p);
    free(text);
    yaml_node_t *root = yaml_document_get_root_node(&y.d);
    if (!root || root->type != YAML_MAPPING_NODE) {
        am_fail_at(err, file, 1, 1, "a sweep file is a YAML map (base, traces, policies, axes...)");
        goto out;
    }
    if (no_duplicate_keys(&y, err) != 0)
        goto out;
    yaml_node_t *traces_node = NULL, *gen_args_node = NULL, *gen_node = NULL;
    /* the keys themselves, for messages about one of them missing or both given */
    yaml_node_t *traces_key = NULL, *seeds_key = NULL, *gen_key = NULL, *expect_key = NULL;
    for (yaml_node_pair_t *pr = root->data.mapping.pairs.start; pr < root->data.mapping.pairs.top;
         pr++) {
        yaml_node_t *k = ynode(&y, pr->key), *v = ynode(&y, pr->value);
        const char *ks = yscalar(k);
        if (!ks) {
            ykey_fail(err, &y, k, "");
            goto out;
        }
        if (strcmp(ks, "kind") == 0) {
            const char *kv = yscalar(v);
            if (!kv) {
                yfail(err, &y, v, "kind: expected a single value, not a %s (matrix or regress)",
                      ykind(v));
                goto out;
            }
            if (strcmp(kv, "matrix") && strcmp(kv, "regress")) {
                yfail(err, &y, v, "kind: '%s' (matrix or regress)", kv);
                goto out;
            }
            s->regress = strcmp(kv, "regress") == 0;
        } else if (strcmp(ks, "name") == 0 || strcmp(ks, "base") == 0 ||
                   strcmp(ks, "expectations") == 0) {
            if (!yscalar(v)) {
                yfail(err, &y, v, "%s: expected a single value, not a %s", ks, ykind(v));
                goto out;
            }
            /* "" named no file: "amsim: : cannot open" with no position */
            if (ks[0] != 'n' && !yscalar(v)[0]) {
                yfail(err, &y, v, "%s: '': an empty path names no %s", ks,
                      ks[0] == 'b' ? "config" : "folder");
                goto out;
            }
            if (ks[0] == 'n')
                s->name = am_strdup(yscalar(v));
            else if (ks[0] == 'b') {
                s->base = rel_path(s, yscalar(v));
                s->base_w = am_strdup(yscalar(v));
                if (base_unreadable(&y, v, s->base, err))
                    goto out;
            } else {
                s->expect_dir = rel_path(s, yscalar(v));
                s->expect_dir_w = am_strdup(yscalar(v));
                expect_key = k;
                if (expect_dir_not_folder(&y, v, s->expect_dir, err))
                    goto out;
            }
        } else if (strcmp(ks, "policies") == 0) {
            s->policies_kpos = node_pos(k);
            if (ystrings(&y, v, ks, &s->policies, err) != 0)
                goto out;
            /* as traces: [] is: an empty list runs nothing of what it seems to ask (until
             * 2026-11-27 it was one run with the config's own policy) */
            if (!s->policies.n) {
                yfail(err, &y, v, "%s", "policies: [] names no policy; leave 'policies:' out to "
                      "run the config's own");
                goto out;
            }
            /* at the item, as a traces: or seeds: item is (until 2026-11-28 at the list's
             * start: `[bfc, bogus]` pointed at the '[', a block list at its first '-') */
            for (int i = 0; i < s->policies.n; i++)
                if (!alloc_find(s->policies.v[i])) {
                    char hint[512];
                    run_policy_hint(hint, sizeof hint, s->policies.v[i]);
                    yfail(err, &y, yitem(&y, v, i), "policies: unknown policy '%s' (%s)",
                          s->policies.v[i], hint);
                    goto out;
                }
            if (no_repeats(&y, v, &s->policies, "policies", 1, err) != 0)
                goto out;
        } else if (strcmp(ks, "traces") == 0) {
            traces_node = v;
            traces_key = k;
            s->traces_kpos = node_pos(k);
            strlist pats = {0};
            if (ystrings(&y, v, ks, &pats, err) != 0) {
                sl_free(&pats);
                goto out;
            }
            for (int i = 0; i < pats.n; i++) {
                int before = s->traces.n;
                /* "" would be the sweep's own folder (all its trace files) or match nothing */
                if (!pats.v[i][0]) {
                    yfail(err, &y, yitem(&y, v, i), "%s", "traces: '': an empty path names no "
                          "trace");
                    sl_free(&pats);
                    goto out;
                }
                if (add_traces(s, &y, yitem(&y, v, i), pats.v[i], err) != 0 ||
                    trace_names_tsv(s, &y, yitem(&y, v, i), pats.v[i], before, err) != 0 ||
                    trace_repeats(s, &y, yitem(&y, v, i), pats.v[i], before, err) != 0) {
                    sl_free(&pats);
                    goto out;
                }
                s->trace_pos = am_realloc(s->trace_pos, ((size_t)s->traces.n + 1) *
                                                            sizeof *s->trace_pos);
                for (int t = before; t < s->traces.n; t++)
                    s->trace_pos[t] = node_pos(yitem(&y, v, i));
            }
            sl_free(&pats);
        } else if (strcmp(ks, "seeds") == 0) {
            seeds_key = k;
            s->seeds_kpos = node_pos(k);
            if (v->type == YAML_SEQUENCE_NODE &&
                v->data.sequence.items.top == v->data.sequence.items.start) {
                yfail(err, &y, v, "%s", "seeds: [] names no seed (each seed generates one trace)");
                goto out;
            }
            if (ystrings(&y, v, ks, &s->seeds, err) != 0 || check_seeds(&y, v, &s->seeds, err) != 0 ||
                no_repeats(&y, v, &s->seeds, "seeds", 0, err) != 0)
                goto out;
            seeds_as_digits(&s->seeds);
        } else if (strcmp(ks, "set") == 0) {
            if (v->type != YAML_MAPPING_NODE) {
                yfail(err, &y, v, "%s", "set: expected a map PATH: VALUE");
                goto out;
            }
            for (yaml_node_pair_t *q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top;
                 q++) {
                /* a map value gives a new memory or link whole, as --set 'PATH={...}' does
                 * (memories.scratch: {capacity: 1MiB}); until 2026-11-27 values were plain */
                const char *a = ypath_key(err, &y, ynode(&y, q->key), "set");
                if (!a)
                    goto out;
                if (s->sets.n >= SW_MAX_SETS) {
                    yfail(err, &y, ynode(&y, q->key), "set: at most %d settings", SW_MAX_SETS);
                    goto out;
                }
                cfg_set *e = &s->set_at[s->sets.n];
                cfg_pos vp = node_pos(ynode(&y, q->value)), kp = node_pos(ynode(&y, q->key));
                cfg_pos *inner;
                size_t ninner = yinner(&y, ynode(&y, q->value), &inner);
                s->set_leaves[s->sets.n] = yset_leaves(&y, a, ynode(&y, q->value));
                sl_push(&s->sets, yset_text(&y, a, ynode(&y, q->value)));
                *e = (cfg_set){s->sets.v[s->sets.n - 1], s->file, vp.line, vp.col, kp.line,
                               kp.col, inner, ninner};
            }
        } else if (strcmp(ks, "axes") == 0) {
            if (v->type != YAML_MAPPING_NODE) {
                yfail(err, &y, v, "%s", "axes: expected a map PATH: VALUES");
                goto out;
            }
            for (yaml_node_pair_t *q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top;
                 q++) {
                const char *a = ypath_key(err, &y, ynode(&y, q->key), "axes");
                if (!a)
                    goto out;
                if (s->naxes == SW_MAX_AXES) {
                    yfail(err, &y, ynode(&y, q->key), "axes: at most %d axes", SW_MAX_AXES);
                    goto out;
                }
                if (strcmp(a, "policy") == 0 || strcmp(a, "trace") == 0 || strcmp(a, "seed") == 0) {
                    yfail(err, &y, ynode(&y, q->key), "axes: '%s' has its own key (policies, "
                          "traces, seeds)", a);
                    goto out;
                }
                s->axes[s->naxes].kpos = node_pos(ynode(&y, q->key));
                if (parse_axis(&y, a, ynode(&y, q->value), &s->axes[s->naxes], err) != 0) {
                    s->naxes++;
                    goto out;
                }
                s->naxes++;
            }
        } else if (strcmp(ks, "generate") == 0) {
            if (v->type != YAML_MAPPING_NODE) {
                yfail(err, &y, v, "%s", "generate: expected {kind: KIND, args: [...]}");
                goto out;
            }
            gen_node = v;
            gen_key = k;
            for (yaml_node_pair_t *q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top;
                 q++) {
                const char *a = yscalar(ynode(&y, q->key));
                yaml_node_t *gv = ynode(&y, q->value);
                if (a && strcmp(a, "kind") == 0) {
                    if (!yscalar(gv) || !yscalar(gv)[0]) {
                        yfail(err, &y, gv, "%s", "generate.kind: expected a generator's name "
                              "(amsim gen KIND: serve, train, kernel...)");
                        goto out;
                    }
                    s->gen_kind = am_strdup(yscalar(gv));
                    if (gen_kind_check(&y, gv, s->gen_kind, err) != 0)
                        goto out;
                } else if (a && strcmp(a, "args") == 0) {
                    if (ystrings(&y, gv, "generate.args", &s->gen_args, err) != 0)
                        goto out;
                    gen_args_node = gv;
                    /* the batch gives every run its own --seed and -o: one here would be a
                     * second of each, which amsim gen refuses (and used to take instead of
                     * the seed list's, generating one trace for every seed) */
                    yaml_node_t *bad = NULL;
                    for (int i = 0; i < s->gen_args.n && !bad; i++)
                        if (gen_arg_reserved(s->gen_args.v[i]))
                            bad = yitem(&y, gv, i);
                    if (bad && !strcmp(yscalar(bad), "--")) { /* see gen_arg_reserved */
                        yfail(err, &y, bad, "%s", "generate.args: '--' would end the options "
                              "before the batch's -o (the run folder's trace); remove it");
                        goto out;
                    }
                    if (bad) {
                        yfail(err, &y, bad, "generate.args: '%s' is the batch's to give (every "
                              "run gets --seed from 'seeds' and -o in its run folder); remove it",
                              yscalar(bad));
                        goto out;
                    }
                    /* then a request for the usage (gen_arg_help), the first one named: a
                     * reserved item, said above, wins over it */
                    for (int i = 0; i < s->gen_args.n; i++)
                        if (gen_arg_help(s->gen_args.v[i])) {
                            yfail(err, &y, yitem(&y, gv, i), "generate.args: '%s' would print "
                                  "amsim gen %s's usage instead of writing the trace (every run "
                                  "would fail); remove it", s->gen_args.v[i],
                                  s->gen_kind ? s->gen_kind : "KIND");
                            goto out;
                        }
                } else if (!a) {
                    ykey_fail(err, &y, ynode(&y, q->key), "generate: ");
                    goto out;
                } else {
                    yfail(err, &y, ynode(&y, q->key), "generate: unknown key '%s' (kind, args)",
                          a);
                    goto out;
                }
            }
        } else if (strcmp(ks, "device") == 0) {
            /* as run --device: a snapshot trace's device, the same in every run (until
             * 2026-11-27 a sweep read device 0 with no way to choose) */
            const char *dv = yscalar(v);
            if (!dv) {
                yfail(err, &y, v, "device: expected a single value, not a %s (a device number "
                      "0..1024)", ykind(v));
                goto out;
            }
            /* the config's number form (until 2026-11-27 +1, 01 and 010 were devices 1 and 10) */
            const char *form = cfg_number_form(dv);
            if (form) {
                yfail(err, &y, v, "device: bad number '%s': %s", dv, form);
                goto out;
            }
            char *end = NULL;
            long d = *dv ? strtol(dv, &end, 10) : -1;
            if (!*dv || *end || d < 0 || d > 1024) {
                yfail(err, &y, v, "device: '%s' is not a device number 0..1024 (a PyTorch "
                      "snapshot's device, as amsim run --device)", dv);
                goto out;
            }
            s->device = (int)d;
        } else if (strcmp(ks, "outputs") == 0) {
            if (v->type != YAML_MAPPING_NODE) {
                yfail(err, &y, v, "%s", "outputs: expected {timeline: BOOL, placements: BOOL}");
                goto out;
            }
            for (yaml_node_pair_t *q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top;
                 q++) {
                const char *a = yscalar(ynode(&y, q->key));
                int *dst = !a ? NULL : strcmp(a, "timeline") == 0 ? &s->timeline
                         : strcmp(a, "placements") == 0 ? &s->placements : NULL;
                if (!a) {
                    ykey_fail(err, &y, ynode(&y, q->key), "outputs: ");
                    goto out;
                }
                if (!dst) {
                    yfail(err, &y, ynode(&y, q->key), "outputs: unknown key '%s' (timeline, "
                          "placements)", a);
                    goto out;
                }
                if (ybool(&y, ynode(&y, q->value), "outputs", a, dst, err) != 0)
                    goto out;
            }
        } else if (strcmp(ks, "exclude") == 0) {
            if (v->type != YAML_SEQUENCE_NODE) {
                yfail(err, &y, v, "%s", "exclude: expected a list of maps");
                goto out;
            }
            int n = (int)(v->data.sequence.items.top - v->data.sequence.items.start);
            s->excl = am_calloc((size_t)n + 1, sizeof *s->excl);
            for (int i = 0; i < n; i++) {
                yaml_node_t *e = ynode(&y, v->data.sequence.items.start[i]);
                if (!e || e->type != YAML_MAPPING_NODE) {
                    yfail(err, &y, e, "%s", "exclude: each item is a map {KEY: VALUE}");
                    goto out;
                }
                size_t np = (size_t)(e->data.mapping.pairs.top - e->data.mapping.pairs.start);
                /* it constrains nothing, so it matches every run: the whole matrix went */
                if (np == 0) {
                    yfail(err, &y, e, "%s", "exclude: an empty exclusion {} matches every run "
                          "(it would exclude the whole matrix); name at least one policy, trace, "
                          "seed or axis");
                    goto out;
                }
                sw_excl *x = &s->excl[s->nexcl++];
                x->pos = node_pos(e);
                x->kpos = am_calloc(np + 1, sizeof *x->kpos);
                x->vpos = am_calloc(np + 1, sizeof *x->vpos);
                for (yaml_node_pair_t *q = e->data.mapping.pairs.start;
                     q < e->data.mapping.pairs.top; q++) {
                    yaml_node_t *kn = ynode(&y, q->key), *vn = ynode(&y, q->value);
                    const char *a = yscalar(kn), *b = yscalar(vn);
                    if (!a || !b) {
                        yfail(err, &y, kn, "%s", "exclude: plain KEY: VALUE pairs");
                        goto out;
                    }
                    x->kpos[x->keys.n] =
                        (sw_pos){kn->start_mark.line + 1, kn->start_mark.column + 1};
                    x->vpos[x->keys.n] =
                        (sw_pos){vn->start_mark.line + 1, vn->start_mark.column + 1};
                    sl_push(&x->keys, am_strdup(a));
                    sl_push(&x->vals, am_strdup(b));
                }
            }
        } else {
            yfail(err, &y, k, "unknown key '%s' (kind, name, base, set, policies, traces, axes, "
                  "seeds, generate, exclude, outputs, expectations, device)", ks);
            goto out;
        }
    }
    if (!s->base) {
        am_fail_at(err, file, 1, 1, "missing 'base: CONFIG'");
        goto out;
    }
    /* each at the key it is about (until 2026-11-27 all three were at 1:1) */
    if (gen_key && !s->gen_kind) {
        yfail(err, &y, gen_key, "%s", "generate: 'kind' is missing (generate: {kind: KIND, "
              "args: [...]}, KIND as amsim gen KIND)");
        goto out;
    }
    if (gen_key && traces_key) {
        int gen_second = gen_key->start_mark.index > traces_key->start_mark.index;
        yfail(err, &y, gen_second ? gen_key : traces_key, "give either traces or generate, not "
              "both (%s at line %lu, column %lu)", gen_second ? "traces" : "generate",
              (unsigned long)(gen_second ? traces_key : gen_key)->start_mark.line + 1,
              (unsigned long)(gen_second ? traces_key : gen_key)->start_mark.column + 1);
        goto out;
    }
    if (seeds_key && !s->gen_kind) {
        yfail(err, &y, seeds_key, "%s", "seeds need 'generate: {kind: KIND, args: [...]}' (the "
              "seed selects a generated trace)");
        goto out;
    }
    if (s->gen_kind)
        s->gen_disp = xprintf("gen:%s", s->gen_kind);
    if (s->gen_kind && gen_args_node && gen_args_check(s, &y, gen_args_node, err) != 0)
        goto out;
    if (!s->gen_kind && !s->traces.n) {
        yfail(err, &y, traces_node ? traces_node : root, "%s", "no traces (traces: [PATH|GLOB|DIR])");
        goto out;
    }
    /* the seed is what a run generates its trace with (until 2026-11-25 the one run of a sweep
     * without seeds: read trace -1 and its worker died of SIGSEGV) */
    if (s->gen_kind && !s->seeds.n) {
        yfail(err, &y, gen_node, "generate: needs 'seeds: [S, ...]' (each seed generates one "
              "trace: amsim gen %s --seed S)", s->gen_kind);
        goto out;
    }
    /* a matrix checks nothing against them (until 2026-11-27 silently ignored) */
    if (!s->regress && expect_key) {
        yfail(err, &y, expect_key, "%s", "expectations: a sweep of kind: matrix checks no "
              "expectations; give 'kind: regress' to check them, or remove it");
        goto out;
    }
    if (set_twice(s, err) != 0 || set_axis_same_key(s, err) != 0)
        goto out;
    if (s->regress && !s->expect_dir) {
        am_fail_at(err, file, 1, 1, "kind: regress needs 'expectations: DIR'");
        goto out;
    }
    if (matrix_cap_check(s, err) != 0)
        goto out;
    if (s->regress && (expect_names_unique(s, err) != 0 || expect_names_check(s, err) != 0))
        goto out;
    if (check_exclusions(s, err) != 0)
        goto out;
    excl_index_build(s);
    rc = 0;
out:
    yaml_document_delete(&y.d);
    return rc;
}

/* ---- the matrix ------------------------------------------------------------------------- */

/* Values match as text, as sizes (1GiB = 1073741824) or as numbers; traces also by glob. */
static int value_match(const char *pat, const char *v, int is_trace)
{
    if (is_trace) {
        const char *base = strrchr(v, '/');
        return strcmp(pat, v) == 0 || fnmatch(pat, v, 0) == 0 ||
               (base && fnmatch(pat, base + 1, 0) == 0);
    }
    /* whole bytes only: units_size rounds, and 0.3 and 0.4 (a memory_fraction) both read as
     * 0 bytes, so {memory_fraction: 0.3} excluded 0.4 too (until 2026-11-25); fractions are
     * compared as numbers. The rule is val_key_match's, the one copy exclusions use too. */
    val_key pk = val_key_of(pat), vk = val_key_of(v);
    return val_key_match(pat, &pk, v, &vk);
}

static const char *run_trace_disp(const sweep *s, const sw_run *r)
{
    return r->trace >= 0 ? s->trace_disp.v[r->trace] : s->gen_disp;
}

/* Whether exclusion x matches run r: r's value in the dimension of every key of x is one the
 * key matches (its hits, found once by check_exclusions). */
static int excl_matches(const sweep *s, const sw_excl *x, const sw_run *r)
{
    batch_work.rule_tries++;
    for (int k = 0; k < x->keys.n; k++) {
        int v = run_dim_ix(s, r, x->dim[k]);
        if (v < 0 || !x->nhits[k] ||
            !bsearch(&v, x->hits[k], (size_t)x->nhits[k], sizeof v, cmp_int))
            return 0;
    }
    return 1;
}

/* Whether any exclusion matches r: only those filed under r's own values are tried (until
 * 2026-11-27 every exclusion was tried against every run, its values read again each time). */
static int excluded(const sweep *s, const sw_run *r)
{
    for (int d = 0; d < EXD_AXIS + s->naxes; d++) {
        const excl_dim *e = &s->exd[d];
        int v = e->start ? run_dim_ix(s, r, d) : -1;
        if (v < 0)
            continue;
        for (int k = e->start[v]; k < e->start[v + 1]; k++)
            if (excl_matches(s, &s->excl[e->rules[k]], r))
                return 1;
    }
    return 0;
}

static void sanitize(char *dst, size_t n, const char *src)
{
    size_t k = 0;
    for (; *src && k + 1 < n; src++) {
        char c = *src;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-' || c == '=';
        dst[k++] = ok ? c : '_';
    }
    dst[k] = 0;
}

static void run_name(const sweep *s, sw_run *r)
{
    char buf[512], part[160];
    size_t k = 0;
    buf[0] = 0;
    if (r->trace >= 0) {
        const char *t = s->trace_disp.v[r->trace], *b = strrchr(t, '/');
        snprintf(part, sizeof part, "%s", b ? b + 1 : t);
        char *dot = strchr(part, '.');
        if (dot && dot != part)
            *dot = 0;
        k += (size_t)snprintf(buf + k, sizeof buf - k, "%s", part);
    }
    if (r->policy >= 0)
        k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%s", k ? "-" : "",
                              s->policies.v[r->policy]);
    for (int a = 0; a < s->naxes && k < sizeof buf; a++) {
        const char *p = s->axes[a].path, *last = strrchr(p, '.');
        k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%s=%s", k ? "-" : "", last ? last + 1 : p,
                              s->axes[a].vals.v[r->ax[a]]);
    }
    if (r->seed >= 0 && k < sizeof buf)
        snprintf(buf + k, sizeof buf - k, "%ss%s", k ? "-" : "", s->seeds.v[r->seed]);
    char clean[96];
    sanitize(clean, sizeof clean, buf[0] ? buf : "run");
    snprintf(r->folder, sizeof r->folder, "%04d-%s", r->id, clean);
}

/* FNV-1a 64 of a file's bytes as 16 hex digits, or "unreadable" (the run then fails on its own
 * and is tried again on every rerun, since failed runs never count as finished). */
static void file_hash(const char *path, char out[17])
{
    /* not a regular file (a FIFO put there after the sweep was read): unreadable, never read,
     * so the digest cannot hang on it (am_fopen_regular does not block on a FIFO's writer) */
    const char *what;
    FILE *f = am_fopen_regular(path, &what);
    if (!f) {
        snprintf(out, 17, "unreadable");
        return;
    }
    static unsigned char buf[1 << 16];
    uint64_t h = RT_FNV_OFFSET;
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        h = rt_fnv1a(h, buf, n);
    if (ferror(f))
        snprintf(out, 17, "unreadable");
    else
        snprintf(out, 17, "%016" PRIx64, h);
    fclose(f);
}

/* s->expect_hash: every expectation of the sweep (expect_slot), each file read once (their
 * names are distinct: expect_names_unique, expect_names_check). None over SW_MAX_RUNS (the
 * matrix is refused). */
static void expect_hashes(sweep *s)
{
    long n = expect_nslots(s);
    if (n < 0)
        return;
    s->expect_hash = am_calloc((size_t)n + 1, sizeof *s->expect_hash);
    for (long i = 0; i < n; i++) {
        char buf[4096];
        sw_run r = expect_slot_run(s, i);
        file_hash(expect_path(s, &r, buf, sizeof buf), s->expect_hash[i]);
    }
}

/* A run's digest of the study's part base (s->inputs: the effective config; s->study: the keys
 * as written), the trace's bytes and, for a regress check, the expectation's bytes. Combined as
 * text so that shards on machines of any byte order write the same matrix.tsv. out: 17 bytes. */
static const char *run_digest(const sweep *s, const char *base, const sw_run *r, char *out)
{
    char part[3][17] = {{0}};
    snprintf(part[0], sizeof part[0], "%s", base);
    if (r->trace >= 0)
        snprintf(part[1], sizeof part[1], "%s", s->trace_hash.v[r->trace]);
    if (s->expect_hash)
        memcpy(part[2], s->expect_hash[expect_slot(s, r)], 17);
    uint64_t h = RT_FNV_OFFSET;
    for (int i = 0; i < 3; i++)
        h = rt_fnv1a(h, part[i], strlen(part[i]) + 1);
    snprintf(out, 17, "%016" PRIx64, h);
    return out;
}

/* Add " (NOTE)" to an error's message (cut when the message is full). */
static void err_note(am_error *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void err_note(am_error *e, const char *fmt, ...)
{
    size_t n = strlen(e->msg);
    if (n + 4 >= sizeof e->msg)
        return;
    va_list ap;
    va_start(ap, fmt);
    snprintf(e->msg + n, sizeof e->msg - n, " (");
    vsnprintf(e->msg + n + 2, sizeof e->msg - n - 2, fmt, ap);
    va_end(ap);
    n = strlen(e->msg);
    if (n + 1 < sizeof e->msg)
        memcpy(e->msg + n, ")", 2);
}

/* Value i of axis ax as an override (text t: axis_set_text) placed where the value is written
 * in file, its PATH at the axis's key: an unknown key is reported there, as a config reports
 * one (until 2026-11-28 at the axis's first value). */
static cfg_set axis_cfg_set(const sw_axis *ax, int i, const char *t, const char *file)
{
    return (cfg_set){t, file, ax->pos[i].line, ax->pos[i].col, ax->kpos.line, ax->kpos.col,
                     NULL, 0};
}

/* set: as overrides placed where their values are written in the sweep, their PATHs at their
 * keys; returns the count. */
static int sweep_sets(const sweep *s, cfg_set *v)
{
    memcpy(v, s->set_at, (size_t)s->sets.n * sizeof *v);
    return s->sets.n;
}

/* Note the device preset config c read in presets, once. */
static void note_preset(strlist *presets, const am_config *c)
{
    if (!c->preset[0])
        return;
    for (int i = 0; i < presets->n; i++)
        if (!strcmp(presets->v[i], c->preset))
            return;
    sl_push(presets, am_strdup(c->preset));
}

static long matrix_total(const sweep *s); /* the product and its order, below */
static sw_run matrix_decode(const sweep *s, const sw_run *fix, long i);
static sw_run matrix_at(const sweep *s, long i);

/* The first run in matrix_at's order that no exclusion drops and that has the policy and axis
 * values fix names (-1: any), into *out: 1, or 0 when there is none. Only the runs with those
 * values are walked (the matrix over the other dimensions, in order), and the walk stops at the
 * first kept one, so a check costs one run unless exclusions drop the runs it walks. */
static int kept_run(const sweep *s, const sw_run *fix, sw_run *out)
{
    long sub = matrix_total(s) / (fix->policy >= 0 && s->policies.n ? s->policies.n : 1);
    for (int b = 0; b < s->naxes; b++)
        sub /= fix->ax[b] >= 0 ? s->axes[b].vals.n : 1;
    for (long k = 0; k < sub; k++) {
        sw_run r = matrix_decode(s, fix, k);
        if (!excluded(s, &r)) {
            *out = r;
            return 1;
        }
    }
    return 0;
}

/* fix with every policy and axis value free (kept_run). */
static sw_run fix_none(void)
{
    sw_run f = {.policy = -1};
    for (int b = 0; b < SW_MAX_AXES; b++)
        f.ax[b] = -1;
    return f;
}

/* Name run r as batch --list does (its id counts the kept runs before it: one walk of the
 * matrix, made only for a refusal). */
static void name_run(const sweep *s, sw_run *r)
{
    int np = s->policies.n ? s->policies.n : 1, ns = s->seeds.n ? s->seeds.n : 1;
    long at = r->trace > 0 ? r->trace : 0;
    at = at * np + (r->policy > 0 ? r->policy : 0);
    for (int b = 0; b < s->naxes; b++)
        at = at * s->axes[b].vals.n + r->ax[b];
    at = at * ns + (r->seed > 0 ? r->seed : 0);
    r->id = 1;
    for (long k = 0; k < at; k++) {
        sw_run o = matrix_at(s, k);
        r->id += !excluded(s, &o);
    }
    run_name(s, r);
}

/* Load the base config with the overrides v[0..n) as a run does (run_load_config): as it is,
 * then with each policy of policies: switched in last. 0, or -1 with the config's error (at the
 * override's position in the sweep when it is about one). The device presets read go to
 * presets (an axis over device: reads several); the default level's name to level
 * (CFG_NAME_MAX bytes). keep not NULL: *keep gets the config as it is (without a policy
 * switched in; the caller frees it), else it is freed. With policies:, the config as it is
 * leaves out the rules of the policy it names, which no run uses (cfg_load_switched): until
 * 2026-11-27 they refused the sweep. fix: the axis values v holds (kept_run); a policy of
 * policies: that the exclusions drop from every run with them is not loaded (until 2026-11-27
 * it was, and refused a value that no run of that policy has). */
static int load_as_runs(const sweep *s, cfg_set *v, int n, const sw_run *fix, strlist *presets,
                        char *level, am_config **keep, am_error *err)
{
    am_config *c = NULL;
    if ((s->policies.n ? cfg_load_sets_switched(&c, s->base, v, n, NULL, NULL, err)
                       : cfg_load_sets(&c, s->base, v, n, err)) != 0)
        return -1;
    note_preset(presets, c);
    snprintf(level, CFG_NAME_MAX, "%s", c->levels[c->default_level].name);
    if (keep)
        *keep = c;
    else
        cfg_free(c);
    for (int p = 0; p < s->policies.n; p++) {
        sw_run with_p = *fix, r;
        with_p.policy = p;
        c = NULL;
        if (cfg_load_sets_switched(&c, s->base, v, n, NULL, s->policies.v[p], err) != 0) {
            /* asked only on a refusal, so a sweep that loads pays no walk */
            if (!kept_run(s, &with_p, &r)) { /* the exclusions drop every run of p with them */
                *err = (am_error){0};
                continue;
            }
            name_run(s, &r);
            err_note(err, "with policy %s; the first run is %s", s->policies.v[p], r.folder);
            if (keep) {
                cfg_free(*keep);
                *keep = NULL;
            }
            return -1;
        }
        note_preset(presets, c);
        cfg_free(c);
    }
    return 0;
}

/* With policies:, the batch sets the default level's policy of every run last (as --policy),
 * so a set: or an axis of that path would be overridden: until 2026-11-25 `policies: [bfc]`
 * with an axis `memories.hbm.allocator.policy: [bfc, caching]` ran bfc twice, the second run
 * labelled policy=caching. Refused at the path's line and column. level: a default level some
 * runs have; chosen_by: NULL when it is the one after set:, else the axis value that makes it
 * the default ("default_memory=host", at chosen_at): until 2026-11-27 only the level after set:
 * was checked, so an axis `default_memory: [hbm, host]` beside an axis of
 * memories.host.allocator.policy ran that axis's runs with the policies: policy, mislabelled. */
static int policy_overridden(const sweep *s, const char *level, const char *chosen_by,
                             sw_pos chosen_at, am_error *err)
{
    char path[CFG_NAME_MAX + 32], in_runs[CFG_NAME_MAX + 160] = "";
    snprintf(path, sizeof path, "memories.%s.allocator.policy", level);
    if (chosen_by)
        snprintf(in_runs, sizeof in_runs, " in the runs of %s (line %lu, column %lu)", chosen_by,
                 chosen_at.line, chosen_at.col);
    size_t len = strlen(path);
    char *leaf = xprintf("\n%s\n", path);
    for (int i = 0; i < s->sets.n; i++)
        if ((!strncmp(s->sets.v[i], path, len) && s->sets.v[i][len] == '=') ||
            strstr(s->set_leaves[i], leaf) /* inside a map value */) {
            free(leaf);
            return am_fail_at(err, s->file, s->set_at[i].kline, s->set_at[i].kcol, "set: %s "
                              "is the default level's policy%s, which 'policies:' sets in every "
                              "run; give the policy in 'policies:' instead", path, in_runs);
        }
    free(leaf);
    for (int a = 0; a < s->naxes; a++)
        if (!strcmp(s->axes[a].path, path))
            return am_fail_at(err, s->file, s->axes[a].kpos.line, s->axes[a].kpos.col, "axes: "
                              "%s is the default level's policy%s, which 'policies:' sets in "
                              "every run (its runs would be labelled with a policy they did not "
                              "run); give the policies in 'policies:' instead", path, in_runs);
    return 0;
}

/* policy_overridden for the default level of runs that have value i of axis ax (loaded with
 * set: into level), once per level: seen holds the levels checked so far. */
static int axis_level_policy(const sweep *s, const sw_axis *ax, int i, const char *level,
                             strlist *seen, am_error *err)
{
    for (int k = 0; k < seen->n; k++)
        if (!strcmp(seen->v[k], level))
            return 0;
    sl_push(seen, am_strdup(level));
    char *by = xprintf("%s=%s", ax->path, ax->vals.v[i]);
    int rc = policy_overridden(s, level, by, ax->pos[i], err);
    free(by);
    return rc;
}

/* The axis of s whose path is the n bytes at path, or -1. */
static int axis_named(const sweep *s, const char *path, int n)
{
    for (int a = 0; n > 0 && a < s->naxes; a++)
        if ((int)strlen(s->axes[a].path) == n && !strncmp(s->axes[a].path, path, (size_t)n))
            return a;
    return -1;
}

/* A warning of a config: its line (len bytes) and the setting that keeps its key unread (dn
 * bytes at dec, none when dn is 0; am_config.warning_deciders). */
typedef struct cfg_warn_line {
    const char *line, *dec;
    int len, dn;
} cfg_warn_line;

/* The next warning of a config into *w, *t in its warnings and *d in its warning_deciders (start
 * them at c->warnings and c->warning_deciders), which move past it; 0 when there is no more. The
 * one walk of both texts line for line (find_warning, print_set_warnings). */
static int next_warning(const char **t, const char **d, cfg_warn_line *w)
{
    if (!*t || !**t)
        return 0;
    *w = (cfg_warn_line){.line = *t, .dec = *d};
    w->len = cfg_text_line(t);
    w->dn = cfg_text_line(d);
    return 1;
}

/* The first warning of c whose line starts with at ("FILE:LINE:COL: warning: ", the place of the
 * key it is about), into *w; 0 when there is none. */
static int find_warning(const am_config *c, const char *at, cfg_warn_line *w)
{
    size_t alen = strlen(at);
    const char *t = c->warnings, *d = c->warning_deciders;
    while (next_warning(&t, &d, w))
        if ((size_t)w->len > alen && !strncmp(w->line, at, alen))
            return 1;
    return 0;
}

/* Whether the n sets v give a value to axis b's path (the axis's own, added by runs_read_key). */
static int sets_have_axis(const sweep *s, int b, const cfg_set *v, int n)
{
    size_t len = strlen(s->axes[b].path);
    for (int k = 0; k < n; k++)
        if (!strncmp(v[k].text, s->axes[b].path, len) && v[k].text[len] == '=')
            return 1;
    return 0;
}

/* Whether some run of the sweep reads the key that a config loaded with the n sets v warns
 * about at `at` (a warning's "FILE:LINE:COL: warning: "), w being that warning: an axis of s
 * varies its decider (a level's policy for another policy's option, defrag's trigger for
 * threshold or every, its mode for the rest) and under one of that axis's values the key is
 * read, or is kept unread only by another setting that an axis varies, and so on (a threshold
 * under mode: none beside axes of mode and trigger is read under compact and threshold). Each
 * step fixes one more axis, so the chain ends. v has room for one set per axis more than n. */
static int runs_read_key(const sweep *s, cfg_set *v, int n, const char *at,
                         const cfg_warn_line *w)
{
    int b = axis_named(s, w->dec, w->dn);
    if (b < 0 || sets_have_axis(s, b, v, n))
        return 0;
    const sw_axis *bx = &s->axes[b];
    int read = 0;
    for (int j = 0; j < bx->vals.n && !read; j++) {
        char *t = axis_set_text(bx, j);
        am_config *c = NULL;
        am_error e = {0};
        cfg_warn_line next;
        v[n] = axis_cfg_set(bx, j, t, s->file);
        /* a config refused under this value (another policy refusing the key's value) is
         * not known to leave the key unread: its runs read it, and fail on it */
        if (cfg_load_sets(&c, s->base, v, n + 1, &e) != 0)
            read = 1;
        else
            read = !find_warning(c, at, &next) || runs_read_key(s, v, n + 1, at, &next);
        cfg_free(c);
        free(t);
    }
    return read;
}

/* The first warning of config c (loaded with the n sets v: set: and value i of axis a) about
 * value i of axis a (a policy's key that the level's policy ignores, a defrag key its trigger
 * or mode does not read: the warning is at that value's line and column), moved to the axis's
 * key, into warns: one per axis, as set: and --set get one per key. None when another axis's
 * values make the key read in some runs (runs_read_key). 1 when the axis's key is settled (a
 * warning, or read in some runs), 0 to look at its next value. Until 2026-11-27 an axis's key
 * got no warning (only set:'s did), and then was warned about beside an axis of the defrag
 * trigger or mode that made it read (only a policy axis was looked at). */
static int axis_warning(const sweep *s, int a, int i, const am_config *c, cfg_set *v, int n,
                        strlist *warns)
{
    const sw_axis *ax = &s->axes[a];
    char *at = xprintf("%s:%lu:%lu: warning: ", s->file, ax->pos[i].line, ax->pos[i].col);
    size_t len = strlen(at);
    cfg_warn_line w;
    int found = find_warning(c, at, &w);
    if (found && !runs_read_key(s, v, n, at, &w))
        sl_push(warns, xprintf("%s:%lu:%lu: warning: %.*s", s->file, ax->kpos.line,
                               ax->kpos.col, w.len - (int)len, w.line + len));
    free(at);
    return found;
}

/* The warnings of the base config c (set: applied), as cfg_print_warnings prints them, less
 * those about a key that some runs read, by another value of a setting an axis varies
 * (runs_read_key): until 2026-11-27 `set: {memories.hbm.defrag.threshold: 0.3}` beside an axis
 * `memories.hbm.defrag.trigger: [on_oom, threshold]` warned that the threshold was ignored, and
 * so did another policy's option in set: beside an axis of the level's policy. */
static void print_set_warnings(const sweep *s, const am_config *c)
{
    cfg_set *v = am_calloc((size_t)(s->sets.n + s->naxes + 1), sizeof *v);
    int n = sweep_sets(s, v);
    const char *t = c->warnings, *d = c->warning_deciders;
    cfg_warn_line w;
    while (next_warning(&t, &d, &w)) {
        static const char mark_text[] = ": warning: ";
        const char *mark = strstr(w.line, mark_text);
        int at_len = mark ? (int)(mark - w.line) + (int)strlen(mark_text) : 0;
        char *at = mark && at_len <= w.len ? xprintf("%.*s", at_len, w.line) : NULL;
        if (!at || !runs_read_key(s, v, n, at, &w))
            fprintf(stderr, "amsim: %.*s\n", w.len, w.line);
        free(at);
    }
    free(v);
}

/* Whether axis ax sets a level's policy (memories.LEVEL.allocator.policy): its runs load every
 * other axis's values under the policy it names, not the base config's. */
static int is_policy_axis(const sw_axis *ax)
{
    static const char tail[] = ".allocator.policy";
    size_t n = strlen(ax->path), t = sizeof tail - 1;
    return !strncmp(ax->path, "memories.", 9) && n > t && !strcmp(ax->path + n - t, tail);
}

/* Each value of axis a loaded as the runs load it under each value of each policy axis q, for
 * the pairs some run has: a knob's rules are the policy's that runs, so a value checked alone
 * under the base config's policy can still be refused by another (`max_split_size: [1MiB]` with
 * an axis `memories.hbm.allocator.policy: [bfc, caching]`). Until 2026-11-27 only policies: was
 * checked so: check said "sweep ok" and the caching runs failed. v[0..n): set:'s overrides.
 * -1 with the config's error at the value's line and column, noted with the policy value and
 * the first run that has both. Costs values(a) x values(q) loads. */
static int axis_under_policy_axes(const sweep *s, int a, cfg_set *v, int n, am_error *err)
{
    const sw_axis *ax = &s->axes[a];
    char level[CFG_NAME_MAX];
    strlist presets = {0};
    int rc = 0;
    for (int q = 0; q < s->naxes && rc == 0; q++) {
        const sw_axis *pq = &s->axes[q];
        if (q == a || !is_policy_axis(pq) || is_policy_axis(ax))
            continue;
        for (int j = 0; j < pq->vals.n && rc == 0; j++)
            for (int i = 0; i < ax->vals.n && rc == 0; i++) {
                sw_run fix = fix_none(), r;
                fix.ax[a] = i;
                fix.ax[q] = j;
                if (!kept_run(s, &fix, &r))
                    continue;
                /* in axis order, as the run's --set list has them */
                int first = q < a ? q : a, fi = q < a ? j : i, se = q < a ? a : q,
                    si = q < a ? i : j;
                char *t1 = axis_set_text(&s->axes[first], fi);
                char *t2 = axis_set_text(&s->axes[se], si);
                v[n] = axis_cfg_set(&s->axes[first], fi, t1, s->file);
                v[n + 1] = axis_cfg_set(&s->axes[se], si, t2, s->file);
                rc = load_as_runs(s, v, n + 2, &fix, &presets, level, NULL, err);
                free(t1);
                free(t2);
                if (rc == 0)
                    continue;
                if (ax->gen[i])
                    err_note(err, "value %d of the range %s", i + 1, ax->range);
                name_run(s, &r);
                err_note(err, "in the runs of %s=%s, line %lu, column %lu; the first run is %s",
                         pq->path, pq->vals.v[j], pq->pos[j].line, pq->pos[j].col, r.folder);
            }
    }
    sl_free(&presets);
    return rc;
}

/* Every value of set: and of each axis, loaded into the base config as a run loads it (under
 * the config's policy and each one of policies:): a value that the config refuses (a bad size,
 * a size that rounds to 0 bytes, an unknown key, a word that is not one of an option's) is an
 * error now, at its line and column in the sweep, not a failure inside every run that has it.
 * Each axis value is checked with set: and without the other axes, and again under each value
 * of each policy axis (axis_under_policy_axes); a range's values that are
 * not written in the sweep are reported at its step or factor. With policies:, no default
 * level of any run (after set:, or as an axis value makes it) may have its policy set by set:
 * or an axis (policy_overridden). Without policies:, an axis of a key that the level's policy
 * ignores, or its defrag mode or trigger, gets the config's warning, at the axis, in warns,
 * unless other axes' values make it read (axis_warning). On success *base gets the base
 * config with set: applied (the caller frees it), loaded once for these checks and the digest. */
static int sweep_check_values(sweep *s, am_config **base, strlist *warns, am_error *err)
{
    cfg_set v[SW_MAX_SETS + SW_MAX_AXES + 2]; /* set:, an axis value, one per axis more */
    char level[CFG_NAME_MAX];
    strlist levels = {0}; /* the default levels checked by policy_overridden */
    int n = sweep_sets(s, v);
    *base = NULL;
    sw_run fix = fix_none();
    if (load_as_runs(s, v, n, &fix, &s->presets, level, base, err) != 0)
        return -1;
    sl_push(&levels, am_strdup(level));
    if (s->policies.n && policy_overridden(s, level, NULL, (sw_pos){0, 0}, err) != 0)
        goto bad;
    for (int a = 0; a < s->naxes; a++) {
        const sw_axis *ax = &s->axes[a];
        int warn = !s->policies.n;
        for (int i = 0; i < ax->vals.n; i++) {
            char *t = axis_set_text(ax, i);
            am_config *c = NULL;
            v[n] = axis_cfg_set(ax, i, t, s->file);
            fix.ax[a] = i;
            int rc = load_as_runs(s, v, n + 1, &fix, &s->presets, level, warn ? &c : NULL, err);
            fix.ax[a] = -1;
            if (rc == 0 && warn && axis_warning(s, a, i, c, v, n + 1, warns))
                warn = 0;
            free(t); /* after axis_warning, which loads v again */
            cfg_free(c);
            if (rc == 0 && s->policies.n && axis_level_policy(s, ax, i, level, &levels, err))
                goto bad;
            if (rc == 0)
                continue;
            if (ax->gen[i])
                err_note(err, "value %d of the range %s", i + 1, ax->range);
            goto bad;
        }
        if (axis_under_policy_axes(s, a, v, n, err) != 0)
            goto bad;
    }
    sl_free(&levels);
    return 0;
bad:
    sl_free(&levels);
    cfg_free(*base);
    *base = NULL;
    return -1;
}

/* h continued with what a study digests besides its config: the device and the generator. */
static uint64_t study_digest_more(const sweep *s, uint64_t h)
{
    if (s->device) { /* device 0, the default, leaves the digests of earlier studies as they were */
        char dev[32];
        int n = snprintf(dev, sizeof dev, "device=%d", s->device);
        h = rt_fnv1a(h, dev, (size_t)n);
    }
    if (s->gen_kind) {
        h = rt_fnv1a(h, s->gen_kind, strlen(s->gen_kind) + 1);
        for (int i = 0; i < s->gen_args.n; i++)
            h = rt_fnv1a(h, s->gen_args.v[i], strlen(s->gen_args.v[i]) + 1);
    }
    return h;
}

/* Load the base config with set: applied (one clear error now instead of N failed runs) and
 * digest what every run's results depend on besides its key's dimensions: the effective config
 * (so an edit of the base file, of a device preset it names or of set: counts, and a comment
 * does not), the generator's kind and arguments, each trace's bytes and, for a regress check,
 * each expectation's bytes. The digest goes into every run key, so a rerun into the same folder
 * runs again exactly the runs whose inputs changed; so does the study= digest (the config's keys
 * as written, not amsim's defaults), which tells a change of the study from amsim's. */
static int sweep_digest(sweep *s, int update_expect, am_error *err)
{
    am_config *cfg = NULL;
    strlist axis_warns = {0};
    if (sweep_check_values(s, &cfg, &axis_warns, err) != 0) {
        sl_free(&axis_warns);
        return -1;
    }
    if (!s->policies.n) /* with a policies axis, every run switches the policy */
        print_set_warnings(s, cfg);
    for (int i = 0; i < axis_warns.n; i++) /* set:'s first, then the axes' in their order */
        fprintf(stderr, "amsim: %s\n", axis_warns.v[i]);
    sl_free(&axis_warns);
    /* inputs: the effective config, every key (one of another policy is read under a switch),
     * defaults and amsim's version included; study: only the keys as written */
    int (*const writers[2])(const am_config *, FILE *) = {cfg_write_yaml_all,
                                                          cfg_write_written};
    char *const digests[2] = {s->inputs, s->study};
    for (int d = 0; d < 2; d++) {
        char *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);
        writers[d](cfg, m);
        fclose(m);
        uint64_t h = rt_fnv1a(RT_FNV_OFFSET, text, len);
        free(text);
        h = study_digest_more(s, h);
        snprintf(digests[d], sizeof s->inputs, "%016" PRIx64, h);
    }
    cfg_free(cfg);
    for (int i = 0; i < s->traces.n; i++) {
        char hex[17];
        file_hash(s->traces.v[i], hex);
        sl_push(&s->trace_hash, am_strdup(hex));
    }
    if (s->regress && !update_expect)
        expect_hashes(s);
    return 0;
}

static char *run_key(const sweep *s, const sw_run *r)
{
    char *k = xprintf("trace=%s;policy=%s", run_trace_disp(s, r),
                      r->policy >= 0 ? s->policies.v[r->policy] : "");
    for (int a = 0; a < s->naxes; a++) {
        char *n = xprintf("%s;%s=%s", k, s->axes[a].path, s->axes[a].vals.v[r->ax[a]]);
        free(k);
        k = n;
    }
    if (r->seed >= 0) {
        char *n = xprintf("%s;seed=%s", k, s->seeds.v[r->seed]);
        free(k);
        k = n;
    }
    if (s->inputs[0]) { /* study= since 2026-11-27 (see matrix_why) */
        char in[17], st[17];
        char *n = xprintf("%s;inputs=%s;study=%s", k, run_digest(s, s->inputs, r, in),
                          run_digest(s, s->study, r, st));
        free(k);
        k = n;
    }
    return k;
}

/* The number of combinations before exclusions, or -1 over SW_MAX_RUNS: never after sweep_load,
 * which refuses such a matrix (matrix_cap_check, the same product), so the functions below that
 * plan or count the runs of a loaded sweep take it as it is. */
static long matrix_total(const sweep *s)
{
    long total = (long)(s->traces.n ? s->traces.n : 1) * (s->policies.n ? s->policies.n : 1) *
                 (s->seeds.n ? s->seeds.n : 1);
    for (int a = 0; a < s->naxes; a++) {
        total *= s->axes[a].vals.n;
        if (total > SW_MAX_RUNS)
            return -1;
    }
    return total > SW_MAX_RUNS ? -1 : total;
}

/* Combination i (0-based) of the product, or with fix (NULL: none) of the product over the
 * dimensions fix leaves free (-1), its fixed policy and axis values kept; order: trace, policy,
 * axes (first outermost), seed (fastest). */
static sw_run matrix_decode(const sweep *s, const sw_run *fix, long i)
{
    int np = s->policies.n ? s->policies.n : 1, ns = s->seeds.n ? s->seeds.n : 1;
    sw_run r = {0};
    long rem = i;
    r.seed = s->seeds.n ? (int)(rem % ns) : -1;
    rem /= ns;
    for (int a = s->naxes - 1; a >= 0; a--) {
        if (fix && fix->ax[a] >= 0) {
            r.ax[a] = fix->ax[a];
            continue;
        }
        r.ax[a] = (int)(rem % s->axes[a].vals.n);
        rem /= s->axes[a].vals.n;
    }
    if (!s->policies.n) {
        r.policy = -1;
    } else if (fix && fix->policy >= 0) {
        r.policy = fix->policy;
    } else {
        r.policy = (int)(rem % np);
        rem /= np;
    }
    r.trace = s->traces.n ? (int)rem : -1;
    return r;
}

static sw_run matrix_at(const sweep *s, long i) { return matrix_decode(s, NULL, i); }

/* When the exclusions leave no run of the matrix: -1 with err at the first exclusion that
 * alone matches every run, else at the first one (together they do). Refused like an empty
 * exclusion {}: until 2026-11-25 such a sweep ran nothing and exited 0 with an empty
 * results.csv. */
static int check_some_run(const sweep *s, long total, int nruns, am_error *err)
{
    if (nruns > 0 || !s->nexcl)
        return 0;
    for (int x = 0; x < s->nexcl; x++) {
        long i = 0;
        for (; i < total; i++) {
            sw_run r = matrix_at(s, i);
            if (!excl_matches(s, &s->excl[x], &r))
                break;
        }
        if (i == total)
            return am_fail_at(err, s->file, s->excl[x].pos.line, s->excl[x].pos.col,
                              "exclude: this exclusion matches every run of the matrix (%ld before "
                              "exclusions), so it leaves no runs; remove it or narrow it", total);
    }
    return am_fail_at(err, s->file, s->excl[0].pos.line, s->excl[0].pos.col,
                      "exclude: together the exclusions match every run of the matrix (%ld "
                      "before exclusions), so they leave no runs; remove or narrow one", total);
}

/* Expand the product in matrix_at's order, without the excluded runs (at most SW_MAX_RUNS: an
 * int). */
static int matrix_expand(const sweep *s, sw_run **out)
{
    long total = matrix_total(s);
    sw_run *v = am_calloc((size_t)total + 1, sizeof *v);
    int n = 0;
    for (long i = 0; i < total; i++) {
        sw_run r = matrix_at(s, i);
        if (excluded(s, &r))
            continue;
        r.id = n + 1;
        run_name(s, &r);
        r.key = run_key(s, &r);
        v[n++] = r;
    }
    *out = v;
    return n;
}

static void matrix_free(sw_run *v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i].key);
    free(v);
}

/* The runs the exclusions leave, counted without planning them (names, keys): what check and
 * --list need first, in constant memory. */
static long matrix_count(const sweep *s)
{
    long total = matrix_total(s), n = 0;
    for (long i = 0; i < total; i++) {
        sw_run r = matrix_at(s, i);
        n += !excluded(s, &r);
    }
    return n;
}

/* --list: one line per run (of the shard), each planned, printed and dropped in turn: memory
 * stays flat however many runs (until 2026-11-27 every run was planned first, about 590 bytes
 * each). */
static void matrix_list(const sweep *s, int shard_k, int shard_n)
{
    long total = matrix_total(s);
    int id = 0;
    for (long i = 0; i < total; i++) {
        sw_run r = matrix_at(s, i);
        if (excluded(s, &r))
            continue;
        r.id = ++id;
        if (shard_n && (id - 1) % shard_n != shard_k - 1)
            continue;
        run_name(s, &r);
        r.key = run_key(s, &r);
        printf("%d\t%s\t%s\n", r.id, r.folder, r.key);
        free(r.key);
    }
}

/* matrix.tsv: the identity columns of every run, the same in every shard. */
static char *matrix_text(const sweep *s, const sw_run *v, int n)
{
    char *buf;
    size_t len;
    FILE *f = open_memstream(&buf, &len);
    fprintf(f, "#amsim-matrix v1\t%d\n", n);
    fprintf(f, "run_id\trun");
    for (int a = 0; a < s->naxes; a++)
        fprintf(f, "\t%s", s->axes[a].path);
    fprintf(f, "\tpolicy\ttrace%s\tkey\n", s->seeds.n ? "\tseed" : "");
    for (int i = 0; i < n; i++) {
        fprintf(f, "%d\t%s", v[i].id, v[i].folder);
        for (int a = 0; a < s->naxes; a++)
            fprintf(f, "\t%s", s->axes[a].vals.v[v[i].ax[a]]);
        fprintf(f, "\t%s\t%s", v[i].policy >= 0 ? s->policies.v[v[i].policy] : "",
                run_trace_disp(s, &v[i]));
        if (s->seeds.n)
            fprintf(f, "\t%s", s->seeds.v[v[i].seed]);
        fprintf(f, "\t%s\n", v[i].key);
    }
    fclose(f);
    return buf;
}

/* ---- one run (in a worker process) ------------------------------------------------------ */

typedef struct run_ctx {
    FILE *m;          /* metric lines "m.NAME=VALUE" */
    const char *dir;
    char policy[64];
    char *levels;     /* the memory levels, comma-separated (allocated) */
    am_error err;
    int failed;
} run_ctx;

static void put_real(FILE *f, const char *name, double v)
{
    if (isnan(v) || isinf(v))
        fprintf(f, "m.%s=\n", name);
    else
        fprintf(f, "m.%s=%.12g\n", name, v);
}

/* A time exactly, in seconds (units_fmt_seconds). */
static void put_seconds(FILE *f, const char *name, am_ps ps)
{
    char b[48];
    fprintf(f, "m.%s=%s\n", name, units_fmt_seconds(b, sizeof b, ps));
}

typedef struct stat_ctx {
    FILE *f;
    const char *level;
} stat_ctx;

static void st_u64(void *c, const char *name, uint64_t v)
{
    stat_ctx *x = c;
    fprintf(x->f, "m.%s.stats.%s=%" PRIu64 "\n", x->level, name, v);
}

static void st_cur_peak(void *c, const char *name, uint64_t cur, uint64_t peak)
{
    stat_ctx *x = c;
    fprintf(x->f, "m.%s.stats.%s.current=%" PRIu64 "\n", x->level, name, cur);
    fprintf(x->f, "m.%s.stats.%s.peak=%" PRIu64 "\n", x->level, name, peak);
}

static void st_real(void *c, const char *name, double v, int is_null)
{
    stat_ctx *x = c;
    char key[256];
    snprintf(key, sizeof key, "%s.stats.%s", x->level, name);
    put_real(x->f, key, is_null ? (double)NAN : v);
}

/* The metrics every run reports (collect writes them in this order), so that results.csv has
 * their columns even when no run of the study finished (build_csv): per run, then per memory
 * level LEVEL.NAME. */
static const char *const run_metrics[] = {"events", "ooms", "makespan_seconds", "stall_seconds",
                                          "allocator_seconds"};
static const char *const level_metrics_names[] = {
    "capacity", "peak_live_bytes", "peak_reserved_bytes", "peak_allocated_bytes", "utilization",
    "fragmentation_ratio", "reserved_unallocated_at_peak", "internal_fragmentation_bytes",
    "max_external_fragmentation", "ooms", "allocs", "device_allocs", "device_frees"};

/* Append name to a comma-separated list (allocated; *list may be NULL). */
static void list_add(char **list, const char *name)
{
    char *n = xprintf("%s%s%s", *list ? *list : "", *list ? "," : "", name);
    free(*list);
    *list = n;
}

static void collect(void *ctx, sim *s, const report_trace *t)
{
    run_ctx *rc = ctx;
    FILE *f = rc->m;
    const am_config *cfg = sim_config(s);
    const sim_summary *su = sim_get_summary(s);
    snprintf(rc->policy, sizeof rc->policy, "%s",
             mem_policy(sim_level(s, cfg->default_level))->name);
    fprintf(f, "m.events=%" PRIu64 "\n", t->events);
    fprintf(f, "m.ooms=%" PRIu64 "\n", su->ooms);
    put_seconds(f, "makespan_seconds", su->makespan);
    put_seconds(f, "stall_seconds", su->stall);
    put_seconds(f, "allocator_seconds", su->allocator);
    free(rc->levels);
    rc->levels = NULL;
    for (int i = 0; i < sim_nlevels(s); i++) {
        mem_level *m = sim_level(s, i);
        const mem_metrics *mm = mem_get_metrics(m);
        const char *L = mem_name(m);
        level_metrics lm;
        char k[256];
        list_add(&rc->levels, L);
        report_level_metrics(m, &lm);
        fprintf(f, "m.%s.capacity=%" PRIu64 "\n", L, mem_capacity(m));
        fprintf(f, "m.%s.peak_live_bytes=%" PRIu64 "\n", L, lm.peak_live);
        fprintf(f, "m.%s.peak_reserved_bytes=%" PRIu64 "\n", L, lm.peak_reserved);
        fprintf(f, "m.%s.peak_allocated_bytes=%" PRIu64 "\n", L, mm->peak_allocated_bytes);
        snprintf(k, sizeof k, "%s.utilization", L);
        put_real(f, k, lm.utilization);
        snprintf(k, sizeof k, "%s.fragmentation_ratio", L);
        put_real(f, k, lm.fragmentation_ratio);
        fprintf(f, "m.%s.reserved_unallocated_at_peak=%" PRIu64 "\n", L,
                lm.reserved_unallocated_at_peak);
        fprintf(f, "m.%s.internal_fragmentation_bytes=%" PRIu64 "\n", L, lm.internal_frag);
        snprintf(k, sizeof k, "%s.max_external_fragmentation", L);
        put_real(f, k, lm.max_external_frag);
        fprintf(f, "m.%s.ooms=%" PRIu64 "\n", L, mm->ooms);
        fprintf(f, "m.%s.allocs=%" PRIu64 "\n", L, mm->allocs);
        fprintf(f, "m.%s.device_allocs=%" PRIu64 "\n", L, mm->device_allocs);
        fprintf(f, "m.%s.device_frees=%" PRIu64 "\n", L, mm->device_frees);
        if (i == cfg->default_level) {
            stat_ctx sc = {f, L};
            stat_sink sink = {&sc, st_u64, st_cur_peak, st_real};
            mem_policy(m)->stats(mem_policy_state(m), &sink);
        }
    }
    /* the effective config, written atomically next to the other outputs */
    char *p = xprintf("%s/effective_config.yaml", rc->dir);
    outfile *o;
    if (out_open(&o, p, &rc->err) != 0 || (cfg_write_yaml(cfg, out_fp(o)), out_commit(o, &rc->err)) != 0)
        rc->failed = 1;
    free(p);
}

typedef struct batch {
    sweep sw;
    sw_run *runs;
    int nruns;
    const char *out;
    int jobs, shard_k, shard_n;
    int timeline, placements, quiet, update_expect;
    double timeout;
    const char *self;          /* path of this executable, for `amsim gen` */
} batch;

static char *run_dir(const batch *b, const sw_run *r)
{
    return xprintf("%s/runs/%s", b->out, r->folder);
}

/* The optional per-run outputs (--placements, --timeline, outputs:), as result.txt's outputs=
 * lists those a run wrote. */
static const char *const optional_outputs[2] = {"placements.csv", "timeline.csv"};

/* Remove a run folder's outputs before the run (re)runs, its done marker first: a folder never
 * mixes the outputs of two different inputs (until 2026-11-27 a rerun left the files it did not
 * write again: a timeline.csv of the old trace beside the new result.txt, which a later rerun
 * with --timeline took as done and `amsim report` plotted; and a failed rerun left the old
 * summary.json and report.txt beside a result.txt saying failed). Only the files a run writes
 * are removed; anything else in the folder is the user's. */
static void clear_outputs(const char *dir)
{
    static const char *const names[] = {"result.txt", "summary.json", "report.txt",
                                        "effective_config.yaml", "placements.csv",
                                        "timeline.csv", "gen.trace"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char *p = xprintf("%s/%s", dir, names[i]);
        unlink(p);
        free(p);
    }
}

/* What result.txt says about a run besides its identity. policy: the default level's policy;
 * levels: the memory levels, comma-separated (for a failed run, as its config has them:
 * run_config_facts); outputs: the optional outputs the run wrote, comma-separated (run_is_done
 * skips a run only for those it lists); metrics: "m.NAME=VALUE" lines. NULL: empty. */
typedef struct result_info {
    const char *status, *error, *policy, *levels, *outputs, *metrics;
} result_info;

/* result.txt's last line (since 2026-11-27, "amsim-result v2"): a file without it was cut while
 * written or damaged later, and is no finished run. A v1 file (written before) has none: it
 * reads when its lines are whole and it has the keys every v1 file has (result_read). */
#define RESULT_END "end"

/* Write result.txt, the done marker (last file of a run), its end line last. */
static int write_result(const char *dir, const sw_run *r, const result_info *ri, am_error *err)
{
    char *e = am_strdup(ri->error ? ri->error : "");
    one_line(e);
#define OR_EMPTY(x) ((x) ? (x) : "")
    char *text = xprintf("amsim-result v2\nid=%d\nkey=%s\nstatus=%s\nerror=%s\npolicy=%s\n"
                         "levels=%s\noutputs=%s\n%s" RESULT_END "\n", r->id, r->key, ri->status,
                         e, OR_EMPTY(ri->policy), OR_EMPTY(ri->levels), OR_EMPTY(ri->outputs),
                         OR_EMPTY(ri->metrics));
#undef OR_EMPTY
    char *p = xprintf("%s/result.txt", dir);
    int rc = write_atomic(p, text, err);
    free(p);
    free(text);
    free(e);
    return rc;
}

/* Set in a worker once it runs in the sweep file's folder (worker_chdir): the sweep's input
 * paths are then used as written in the sweep (sweep_path), not as the batch reached them. */
static int in_sweep_dir;

/* A path the sweep named, as the worker opens it: written, as the sweep writes it, when the
 * worker runs in the sweep's folder; full (rel_path: the folder joined to a relative one)
 * otherwise. Until 2026-11-27 the folder was stripped from the full path, so an absolute path
 * written in the sweep under the sweep's own (absolute) folder lost it too: a run's error
 * named `bad.trace` or `/abs/bad.trace` by how the sweep's path was typed. */
static const char *sweep_path(const char *full, const char *written)
{
    return in_sweep_dir ? written : full;
}

/* The run spec of r's config: the base with set:, the axis values (allocated into own, which
 * has SW_MAX_AXES entries; returns how many) and the policy. */
static int run_spec_config(const sweep *s, const sw_run *r, run_spec *sp, char **own)
{
    int nown = 0;
    sp->config = sweep_path(s->base, s->base_w);
    sp->no_lenient_option = 1; /* a sweep has no --lenient: its errors do not suggest it */
    sp->device = s->device;
    sp->policy = r->policy >= 0 ? s->policies.v[r->policy] : NULL;
    for (int i = 0; i < s->sets.n; i++)
        sp->sets[sp->nsets++] = s->sets.v[i];
    for (int a = 0; a < s->naxes; a++) {
        own[nown] = axis_set_text(&s->axes[a], r->ax[a]);
        sp->sets[sp->nsets++] = own[nown++];
    }
    return nown;
}

/* For a run that failed before it reported them: the default level's policy (into policy, n
 * bytes, where empty) and the memory levels (into *levels, allocated, where NULL), as the run's
 * config has them, so that its results.csv row names the policy the run was to use and the
 * table has every level's columns (until 2026-11-27 a failed row's policy was empty and a study
 * with every run failed had no metric columns). A run whose config its policy refuses (a rule
 * on the default level's options, checked at load since 2026-11-27) takes them from the config
 * without that policy's rules. Left as they are when the config does not load. */
static void run_config_facts(const sweep *s, const sw_run *r, char *policy, size_t n,
                             char **levels)
{
    if (policy[0] && *levels)
        return;
    run_spec sp = {0};
    char *own[SW_MAX_AXES];
    int nown = run_spec_config(s, r, &sp, own);
    am_config *c = NULL;
    am_error ignored = {0};
    /* a run its policy refused at load (bfc's limit below 256 bytes): the config without the
     * default level's policy rules (the levels are the same) */
    if (run_load_config(&sp, &c, &ignored) != 0) {
        c = NULL;
        if (run_load_config_switching(&sp, &c, &ignored) != 0)
            c = NULL;
    }
    if (c) {
        const struct alloc_ops *pol = c->levels[c->default_level].policy;
        if (!policy[0] && (sp.policy || pol))
            snprintf(policy, n, "%s", sp.policy ? sp.policy : pol->name);
        if (!*levels)
            for (int i = 0; i < c->nlevels; i++)
                list_add(levels, c->levels[i].name);
    }
    cfg_free(c);
    for (int i = 0; i < nown; i++)
        free(own[i]);
}

/* ---- signals in a worker ----------------------------------------------------------------
 * A worker stops on SIGINT, SIGTERM (from the parent, or Ctrl-C at a terminal) and SIGALRM (its
 * --timeout): it stops its `amsim gen` process first and waits for it (the generator removes its
 * own temporary; left running, it finished gen.trace after the batch had gone, or failed a
 * rename when the folder was removed meanwhile), removes its own temporaries and dies of the
 * signal, so the parent records how it ended. Only async-signal-safe calls. */
static volatile pid_t gen_child; /* the worker's generator process while it runs, else 0 */

static void worker_on_signal(int sig)
{
    int e = errno;
    pid_t g = gen_child;
    if (g > 0) {
        kill(g, SIGTERM);
        while (waitpid(g, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    out_abort_all();
    signal(sig, SIG_DFL);
    raise(sig); /* delivered when the handler returns (the signal is blocked in it) */
    errno = e;
}

/* SIGHUP and SIGPIPE as the batch takes them (on_signal below, out_install_signals): unless
 * ignored when the command started. A hangup reaches every process of the terminal's group,
 * the workers too; until 2026-11-27 a worker kept the parent's handler for them. */
static void worker_signals(void)
{
    out_catch(SIGINT, worker_on_signal, NULL);
    out_catch(SIGTERM, worker_on_signal, NULL);
    out_catch(SIGALRM, worker_on_signal, NULL);
    out_catch_unless_ignored(SIGHUP, worker_on_signal, NULL);
    out_catch_unless_ignored(SIGPIPE, worker_on_signal, NULL);
}


/* Run `amsim gen KIND --seed S ARGS -o OUT` (the generator is another command). */
static int gen_trace(const batch *b, const sw_run *r, const char *out, am_error *err)
{
    const sweep *s = &b->sw;
    int argc = 0;
    char **argv = am_calloc((size_t)s->gen_args.n + 8, sizeof *argv);
    char *seed = am_strdup(s->seeds.v[r->seed]);
    argv[argc++] = (char *)(uintptr_t)b->self;
    argv[argc++] = (char *)(uintptr_t)"gen";
    argv[argc++] = s->gen_kind;
    argv[argc++] = (char *)(uintptr_t)"--seed";
    argv[argc++] = seed;
    for (int i = 0; i < s->gen_args.n; i++)
        argv[argc++] = s->gen_args.v[i];
    argv[argc++] = (char *)(uintptr_t)"-o";
    argv[argc++] = (char *)(uintptr_t)out;
    argv[argc] = NULL;
    /* the generator's standard error comes through a pipe: its first line goes into the run's
     * recorded error (the real cause, not just a status), all of it still to ours */
    int fds[2];
    if (pipe(fds) != 0) {
        free(argv);
        free(seed);
        return am_fail(err, AM_EINPUT, "amsim gen: pipe: %s", strerror(errno));
    }
    sigset_t stop, old;
    out_stop_signals(&stop); /* blocked around a fork: no child escapes who-to-stop */
    sigprocmask(SIG_BLOCK, &stop, &old);
    pid_t worker = getpid(), pid = fork();
    if (pid == 0) {
        /* killed with its worker: a worker that does not stop on its signals gets SIGKILL
         * (batch_wait), and its generator must not go on writing into the run folder */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != worker)
            _exit(127);
        sigprocmask(SIG_SETMASK, &old, NULL);
        close(fds[0]);
        if (!freopen("/dev/null", "w", stdout) || dup2(fds[1], 2) < 0)
            _exit(127);
        execv(b->self, argv);
        dprintf(2, "cannot run %s: %s\n", b->self, strerror(errno));
        _exit(127);
    }
    int fork_errno = errno;
    if (pid > 0)
        gen_child = pid;
    sigprocmask(SIG_SETMASK, &old, NULL);
    close(fds[1]);
    char msg[512] = "";
    size_t mlen = 0;
    char buf[4096];
    ssize_t got;
    while (pid > 0 && ((got = read(fds[0], buf, sizeof buf)) > 0 || (got < 0 && errno == EINTR))) {
        if (got < 0)
            continue;
        fwrite(buf, 1, (size_t)got, stderr);
        for (ssize_t i = 0; i < got && mlen + 1 < sizeof msg; i++)
            msg[mlen++] = buf[i];
    }
    close(fds[0]);
    msg[mlen] = 0;
    msg[strcspn(msg, "\n")] = 0; /* the first line */
    int st = 0;
    pid_t w = -1;
    while (pid > 0 && (w = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
        ;
    gen_child = 0;
    free(argv);
    free(seed);
    const char *sd = s->seeds.v[r->seed];
    if (pid < 0)
        return am_fail(err, AM_EINPUT, "amsim gen %s --seed %s: fork: %s", s->gen_kind, sd,
                       strerror(fork_errno));
    if (w < 0)
        return am_fail(err, AM_EINPUT, "amsim gen %s --seed %s: wait: %s", s->gen_kind, sd,
                       strerror(errno));
    /* its message without the program's prefix ("amsim gen serve: ", or "amsim: " as a host
     * out of memory has it, as worker_last_message strips it), which we say already (until
     * 2026-11-27 "failed (status 2): amsim: host out of memory ...") */
    char pre[128];
    snprintf(pre, sizeof pre, "amsim gen %s: ", s->gen_kind);
    const char *why = strncmp(msg, pre, strlen(pre)) == 0 ? msg + strlen(pre)
                    : strncmp(msg, "amsim: ", 7) == 0 ? msg + 7 : msg;
    if (WIFSIGNALED(st))
        return am_fail(err, AM_EINPUT, "amsim gen %s --seed %s killed by signal %d%s%s",
                       s->gen_kind, sd, WTERMSIG(st), why[0] ? ": " : "", why);
    if (WEXITSTATUS(st) != 0)
        return am_fail(err, AM_EINPUT, "amsim gen %s --seed %s failed (status %d): %s",
                       s->gen_kind, sd, WEXITSTATUS(st), why[0] ? why : "no message");
    return 0;
}

/* Move a worker into the sweep file's folder, so that what a run writes (its error, the trace
 * path in summary.json and report.txt) names the sweep's inputs as the sweep writes them,
 * whatever folder the batch was started in (until 2026-11-27 they were named from there:
 * `s3/bad.trace: ...` from the parent folder, `bad.trace: ...` from s3 itself, so shards run
 * from different folders did not merge into the unsharded table). *dir, the run folder, is
 * made absolute first (allocated). 0, or -1 with err. */
static int worker_chdir(const sweep *s, char **dir, am_error *err)
{
    char *abs = realpath(*dir, NULL);
    if (!abs)
        return am_fail(err, AM_EINPUT, "%s: %s", *dir, strerror(errno));
    free(*dir);
    *dir = abs;
    if (s->dir[0] && chdir(s->dir) != 0)
        return am_fail(err, AM_EINPUT, "%s: %s", s->dir, strerror(errno));
    in_sweep_dir = 1;
    return 0;
}

/* msg with every "DIR/" (the absolute run folder) removed in place: the run's own files are
 * named relative to its folder (`gen.trace:12:1: ...`, not a path that depends on -o). */
static void strip_run_dir(char *msg, const char *dir)
{
    size_t n = strlen(dir);
    for (char *p = msg; (p = strstr(p, dir)) != NULL;) {
        if (p[n] != '/') {
            p += n;
            continue;
        }
        memmove(p, p + n + 1, strlen(p + n + 1) + 1);
    }
}

/* $AMSIM_DEVICES with each relative folder made absolute from the current folder: the sweep is
 * read here, but each worker runs in the sweep's folder (worker_chdir), where a relative preset
 * folder would name another one (until 2026-11-27 the sweep loaded and then every run failed
 * with an unknown device preset). Left as it is when the current folder is unknown. */
static void devices_env_absolute(void)
{
    const char *env = getenv("AMSIM_DEVICES");
    char cwd[4096];
    if (!env || !*env || !getcwd(cwd, sizeof cwd))
        return;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return;
    for (const char *p = env;;) {
        size_t n = strcspn(p, ":");
        if (n && p[0] != '/')
            fprintf(f, "%s/", cwd);
        fwrite(p, 1, n, f);
        if (!p[n])
            break;
        fputc(':', f);
        p += n + 1;
    }
    fclose(f);
    setenv("AMSIM_DEVICES", text, 1);
    free(text);
}

/* A worker's copy of its messages (am_msg_copy_to), in its run folder under a temporary's name
 * (remove_temporaries takes it after a crash): the reason of a worker that ends with no result,
 * which until 2026-11-27 was recorded only as "worker exited with status 2 and no result" while
 * standard error had "amsim: host out of memory (asked for 524288 bytes)". */
static char *worker_msg_path(const char *dir, pid_t pid)
{
    return xprintf("%s/messages.tmp.%ld", dir, (long)pid);
}

/* In the worker, once its run folder dir exists (run_child made it): its messages copied from
 * now on (nothing when the file cannot be made). dir as run_dir gives it, which is where the
 * parent looks (worker_last_message), so before worker_chdir rewrites it. */
static void worker_keep_messages(const char *dir)
{
    char *p = worker_msg_path(dir, getpid());
    /* a new file of the worker's own, as an output's temporary is (sim/outfile.c, tmp_create):
     * whatever has its name (a file of a process of the same PID, a planted symbolic link) goes
     * first, and a link is never followed. Until 2026-11-28 it was opened with O_TRUNC: a link
     * there had the messages written into the file it named. */
    unlink(p);
    int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0)
        am_msg_copy_to(fd);
    free(p);
}

/* The worker: one run into its folder; returns the exit status of the worker process. */
static int run_child(const batch *b, const sw_run *r)
{
    const sweep *s = &b->sw;
    char *dir = run_dir(b, r);
    am_error err = {0};
    run_ctx rc = {0};
    char *mbuf = NULL;
    size_t mlen = 0;
    char *sets_own[SW_MAX_AXES];
    int nown = 0;
    char *gen_path = NULL, *exp_path = NULL, *json = NULL, *rep = NULL, *pl = NULL, *tl = NULL;
    outfile *report = NULL;
    int status = 1, res = -1;
    const char *st_word = "failed";
    run_spec sp = {0};
    if (mkdir_p(dir) != 0) {
        am_fail(&err, AM_EINPUT, "%s: cannot create: %s", dir, strerror(errno));
        goto done;
    }
    worker_keep_messages(dir);
    clear_outputs(dir);
    if (worker_chdir(s, &dir, &err) != 0)
        goto done;
    nown = run_spec_config(s, r, &sp, sets_own);
    if (r->seed >= 0) {
        gen_path = xprintf("%s/gen.trace", dir);
        if (gen_trace(b, r, gen_path, &err) != 0)
            goto done;
        sp.trace = gen_path;
        sp.trace_name = "gen.trace"; /* in the run's folder, whatever -o is */
    } else
        sp.trace = sweep_path(s->traces.v[r->trace], s->trace_disp.v[r->trace]);
    if (s->regress) {
        char ep[4096];
        exp_path = am_strdup(expect_path_in(s, sweep_path(s->expect_dir, s->expect_dir_w), r, ep,
                                            sizeof ep));
        if (b->update_expect) {
            sp.save_expect = exp_path;
            const char *ed = sweep_path(s->expect_dir, s->expect_dir_w);
            if (mkdir_p(ed) != 0) {
                am_fail(&err, AM_EINPUT, "%s: cannot create: %s", ed,
                        strerror(errno));
                goto done;
            }
        }
        else {
            /* none recorded yet (a fresh clone has none): say how to record them; until
             * 2026-11-27 each run failed with "cannot read expectation: No such file or
             * directory". A file that is there but unreadable is expect.c's to report. The
             * row's text names no sweep path or -o folder (the summary's hint does): a run's
             * error is the same whatever folder batch starts in and whichever shard ran it
             * (until 2026-11-27 it embedded both, so a merged results.csv differed from an
             * unsharded one). A dangling link is none recorded too: stat follows it (until
             * 2026-11-27 lstat found the link, and the run failed with run's hint, "record one
             * with amsim run ... --save-expect"). */
            struct stat est;
            if (stat(exp_path, &est) != 0 && errno == ENOENT) {
                am_fail(&err, AM_EINPUT, "%s: no expectation recorded; record it with amsim "
                        "batch --update-expectations", exp_path);
                goto done;
            }
            sp.expect = exp_path;
        }
    }
    json = xprintf("%s/summary.json", dir);
    rep = xprintf("%s/report.txt", dir);
    sp.json = json;
    if (b->placements)
        sp.placements = pl = xprintf("%s/placements.csv", dir);
    if (b->timeline)
        sp.timeline = tl = xprintf("%s/timeline.csv", dir);
    if (out_open(&report, rep, &err) != 0)
        goto done;
    sp.text = out_fp(report);
    rc.m = open_memstream(&mbuf, &mlen);
    rc.dir = dir;
    res = run_once(&sp, collect, &rc, NULL, &err);
    fclose(rc.m);
    rc.m = NULL;
    if (res == 0 && rc.failed)
        err = rc.err, res = -1;
    if (res == 0 || err.status == AM_EOOMFAIL) {
        /* a deviation from an expectation still produced every output */
        if (out_commit(report, &err) != 0) {
            report = NULL;
            goto done;
        }
        report = NULL;
        if (res == 0) {
            status = 0;
            st_word = "ok";
        } else {
            status = 3;
            st_word = "deviation";
        }
    }
done:
    out_abort(report);
    char outputs[64] = "";
    if (status == 0 || status == 3)
        snprintf(outputs, sizeof outputs, "%s%s%s", pl ? optional_outputs[0] : "",
                 pl && tl ? "," : "", tl ? optional_outputs[1] : "");
    if (status != 0 && status != 3)
        run_config_facts(s, r, rc.policy, sizeof rc.policy, &rc.levels);
    if (in_sweep_dir)
        strip_run_dir(err.msg, dir);
    result_info ri = {st_word, status == 0 ? "" : err.msg[0] ? err.msg : "failed", rc.policy,
                      rc.levels, outputs, mbuf};
    if (write_result(dir, r, &ri, &err) != 0)
        status = 2;
    free(mbuf);
    free(rc.levels);
    for (int a = 0; a < nown; a++)
        free(sets_own[a]);
    free(gen_path);
    free(exp_path);
    free(json);
    free(rep);
    free(pl);
    free(tl);
    free(dir);
    return status;
}

/* ---- the results table ------------------------------------------------------------------ */

typedef struct kv {
    char *k, *v;
} kv;

typedef struct result {
    int have;
    char *status, *error, *policy, *key;
    char *outputs;     /* outputs=: the optional outputs the run wrote; NULL before 2026-11-27 */
    char *levels;      /* levels=: its memory levels, comma-separated; NULL before 2026-11-27 */
    kv *m;
    int nm;
} result;

static void result_free(result *r)
{
    free(r->status);
    free(r->error);
    free(r->policy);
    free(r->key);
    free(r->outputs);
    free(r->levels);
    for (int i = 0; i < r->nm; i++) {
        free(r->m[i].k);
        free(r->m[i].v);
    }
    free(r->m);
    memset(r, 0, sizeof *r);
}

/* The keys every result.txt has, each on a KEY=VALUE line; a v1 file has the first
 * RESULT_V1_KEYS of them (levels= and outputs= came with v2). */
static const char *const result_keys[] = {"id", "key", "status", "error", "policy", "levels",
                                          "outputs"};
#define RESULT_V1_KEYS 5

/* 1 when r holds metric name (without "m."). */
static int result_has_metric(const result *r, const char *name)
{
    for (int i = 0; i < r->nm; i++)
        if (!strcmp(r->m[i].k, name))
            return 1;
    return 0;
}

/* One KEY=VALUE line of result.txt into r (line cut at '='; v its value): the index of k in
 * result_keys, or -1 for a metric ("m.NAME") or a key amsim does not know. */
static int result_line(result *r, const char *k, const char *v, int *cap)
{
    if (strncmp(k, "m.", 2) == 0) {
        if (r->nm == *cap)
            r->m = am_realloc(r->m, (size_t)(*cap = *cap ? 2 * *cap : 64) * sizeof *r->m);
        r->m[r->nm].k = am_strdup(k + 2);
        r->m[r->nm++].v = am_strdup(v);
        return -1;
    }
    /* where each of result_keys goes, in its order (id= is only checked to be there) */
    char **slots[] = {NULL, &r->key, &r->status, &r->error, &r->policy, &r->levels, &r->outputs};
    for (int i = 0; i < (int)AM_ARRAY_LEN(result_keys); i++)
        if (!strcmp(k, result_keys[i])) {
            if (slots[i]) {
                free(*slots[i]);
                *slots[i] = am_strdup(v);
            }
            return i;
        }
    return -1;
}

/* 1 when v is a status a run writes to result.txt: "ok", "deviation" (a regress run that
 * finished apart from its expectation) or "failed" (run_one, and a worker that died). Any
 * other is damage: until 2026-11-27 `status=bogus` was copied into results.csv as a failed run
 * (status 1) and a rerun ran it again without saying why. */
static int result_status_known(const char *v)
{
    static const char *const known[] = {"ok", "deviation", "failed"};
    for (size_t i = 0; i < AM_ARRAY_LEN(known); i++)
        if (!strcmp(v, known[i]))
            return 1;
    return 0;
}

static void add_level_cols(strlist *l, const char *levels);

/* A finished run's result holds the metrics every run reports: run_metrics, and
 * level_metrics_names for each of its levels (the columns build_csv gives every study). The
 * first one missing into *missing (owned), or 0 when none is. */
static int result_metrics_missing(const result *r, char **missing)
{
    *missing = NULL;
    if (!rt_status_has_metrics(r->status))
        return 0;
    strlist need = {0};
    for (size_t c = 0; c < AM_ARRAY_LEN(run_metrics); c++)
        sl_push(&need, am_strdup(run_metrics[c]));
    add_level_cols(&need, r->levels); /* each level's after the last (names have no dot) */
    for (int i = 0; i < need.n && !*missing; i++)
        if (!result_has_metric(r, need.v[i]))
            *missing = am_strdup(need.v[i]);
    sl_free(&need);
    return *missing != NULL;
}

/* The result.txt of run folder FOLDER in dir, read whole into *r: 0; -1 when there is none (it
 * cannot be opened: no finished run, no message); -2 with err when it does not read whole, so
 * is no finished run either: a NUL byte, a line without its newline, no end line (v2), a key
 * missing, a finished run's metric missing (FILE:LINE:COL each). Until 2026-11-27 such a file
 * was read up to the damage: a NUL byte or a cut left a run "finished" with its numbers cut
 * (peak_reserved_bytes = 21 B) and its other metrics gone from results.csv, status 0. */
/* A KEY of result.txt and the line it is on, for result_keys_unique. */
typedef struct key_line {
    const char *key;
    unsigned long line;
} key_line;

static int key_line_cmp(const void *a, const void *b)
{
    const key_line *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* 0 when no key of the n in k is given twice, else -1 with err at the first line (in the
 * file's order) that repeats a key: a run's metrics kept the first value and its identity
 * keys the last, so a file written twice over itself read as one run (until 2026-11-27).
 * Sorted, not compared pair by pair: a file of many lines stays fast. */
static int result_keys_unique(const char *p, key_line *k, size_t n, am_error *err)
{
    qsort(k, n, sizeof *k, key_line_cmp);
    size_t dup = n; /* the repeat on the earliest line */
    for (size_t i = 1; i < n; i++)
        if (!strcmp(k[i].key, k[i - 1].key) && (dup == n || k[i].line < k[dup].line))
            dup = i;
    if (dup == n)
        return 0;
    size_t first = dup;
    while (first > 0 && !strcmp(k[first - 1].key, k[dup].key))
        first--;
    char shown[96];
    return am_fail_at(err, p, k[dup].line, 1, "a second '%s=' line (the first is line %lu)",
                      am_echo(shown, sizeof shown, k[dup].key, strlen(k[dup].key), 64),
                      k[first].line);
}

/* 1 when text (a whole result.txt, no newline in it) is the start of a first line
 * "amsim-result v1" or "amsim-result v2" cut before its newline. */
static int result_first_line_cut(const char *text)
{
    size_t n = strlen(text);
    static const char head[] = "amsim-result v";
    if (n > sizeof head || strchr(text, '\n'))
        return 0;
    if (n == sizeof head) /* the version digit too */
        return !strncmp(text, head, n - 1) && (text[n - 1] == '1' || text[n - 1] == '2');
    return !strncmp(text, head, n);
}

static int result_read(const char *dir, const char *folder, result *r, am_error *err)
{
    memset(r, 0, sizeof *r);
    char *p = xprintf("%s/runs/%s/result.txt", dir, folder);
    char *text;
    int rc = am_slurp_text(p, &text, NULL, err);
    if (rc != 0) {
        free(p);
        return rc == -1 ? -1 : -2;
    }
    int version = !strncmp(text, "amsim-result v1\n", 16) ? 1
                : !strncmp(text, "amsim-result v2\n", 16) ? 2 : 0;
    int cap = 0, ended = 0;
    unsigned seen = 0; /* bit i: a result_keys[i]= line was read */
    unsigned long ln = 1;
    key_line *keyl = NULL; /* every key line, for result_keys_unique */
    size_t nkeyl = 0, keyl_cap = 0;
    rc = 0;
    /* a file cut inside its first line is said as any cut line is (until 2026-11-27 it was
     * "not an amsim result (its first line is 'amsim-result v2')") */
    if (!version && result_first_line_cut(text))
        rc = am_fail_at(err, p, 1, (unsigned long)strlen(text) + 1, "the line is cut (no "
                        "newline ends it: the file was not written whole)");
    else if (!version)
        rc = am_fail_at(err, p, 1, 1, "not an amsim result (its first line is 'amsim-result "
                        "v2')");
    for (char *line = text + 16; !rc && version && *line; line++) {
        ln++;
        char *nl = strchr(line, '\n');
        if (!nl) {
            rc = am_fail_at(err, p, ln, (unsigned long)strlen(line) + 1, "the line is cut (no "
                            "newline ends it: the file was not written whole)");
            break;
        }
        *nl = 0;
        if (ended) {
            rc = am_fail_at(err, p, ln, 1, "text after the '" RESULT_END "' line");
            break;
        }
        char *eq = strchr(line, '=');
        if (version == 2 && !strcmp(line, RESULT_END))
            ended = 1;
        else if (!eq) {
            rc = am_fail_at(err, p, ln, 1, "not a KEY=VALUE line");
            break;
        } else {
            *eq = 0;
            int k = result_line(r, line, eq + 1, &cap);
            if (k >= 0)
                seen |= 1u << k;
            if (nkeyl == keyl_cap)
                keyl = am_realloc(keyl, (keyl_cap = keyl_cap ? 2 * keyl_cap : 64) *
                                            sizeof *keyl);
            keyl[nkeyl++] = (key_line){line, ln};
            if (!strcmp(line, "status") && !result_status_known(eq + 1)) {
                rc = am_fail_at(err, p, ln, (unsigned long)(eq - line) + 2, "unknown status "
                                "'%s' (a run's is ok, deviation or failed)", eq + 1);
                break;
            }
        }
        line = nl;
    }
    if (!rc)
        rc = result_keys_unique(p, keyl, nkeyl, err);
    free(keyl);
    /* what a whole file has: its end line (v2), every key, a finished run's metrics */
    char *missing = NULL;
    if (!rc && version == 2 && !ended)
        rc = am_fail_at(err, p, ln + 1, 1, "no '" RESULT_END "' line (the file was not written "
                        "whole)");
    size_t nkeys = version == 2 ? AM_ARRAY_LEN(result_keys) : RESULT_V1_KEYS;
    for (size_t k = 0; !rc && k < nkeys; k++)
        if (!(seen & 1u << k))
            rc = am_fail_at(err, p, ln + (version == 1), 1, "no '%s=' line (the file was not "
                            "written whole)", result_keys[k]);
    if (!rc && result_metrics_missing(r, &missing))
        rc = am_fail_at(err, p, ln + (version == 1), 1, "no 'm.%s=' line for a run with status "
                        "%s (the file was not written whole)", missing, r->status);
    free(missing);
    free(text);
    free(p);
    if (rc) {
        result_free(r);
        return -2;
    }
    r->have = 1;
    return 0;
}

/* A parsed matrix.tsv. */
typedef struct matrix {
    int n;              /* runs */
    int ncols;          /* identity columns: run_id, run, axes..., policy, trace, [seed] */
    char **cols;
    char ***rows;       /* rows[i][c], and rows[i][ncols] = key */
    char *text;
    char *raw;          /* the file's bytes as read (text is cut up into the rows) */
} matrix;

static void matrix_tsv_free(matrix *m)
{
    for (int i = 0; i < m->n; i++)
        free(m->rows[i]);
    free(m->rows);
    free(m->cols);
    free(m->text);
    free(m->raw);
    memset(m, 0, sizeof *m);
}

static int split_tabs(char *line, char **out, int max)
{
    int n = 0;
    for (char *p = line;; p++) {
        if (n < max)
            out[n] = p;
        n++;
        p = strchr(p, '\t');
        if (!p)
            break;
        *p = 0;
    }
    return n;
}

/* The next line of a matrix.tsv at *pos (its newline cut), counting *lineno; NULL at the end. */
static char *next_line(char **pos, int *lineno)
{
    char *line = *pos;
    if (!line || !*line)
        return NULL;
    char *nl = strchr(line, '\n');
    if (nl) {
        *nl = 0;
        *pos = nl + 1;
    } else
        *pos = line + strlen(line);
    ++*lineno;
    return line;
}

/* The column (1-based) of a matrix.tsv row split into fields (split_tabs: got of them, the
 * first nc kept in row) where it goes wrong: the field past the nc expected, or the end of the
 * line when fields are missing. */
static unsigned long matrix_bad_col(const char *line, char *const *row, int got, int nc)
{
    int last = got > nc ? nc - 1 : got - 1;
    unsigned long end = (unsigned long)(row[last] - line) + strlen(row[last]) + 1;
    return got > nc ? end + 1 : end;
}

#define MATRIX_MAGIC "#amsim-matrix v1\t"

/* The run count of matrix.tsv's first line (line: after MATRIX_MAGIC) into *total: a plain
 * decimal 0..SW_MAX_RUNS and nothing after it, else -1 with err at its column. Until
 * 2026-11-27 sscanf read it: "2junk" was 2 and 99999999999 wrapped to 1215752191. */
static int matrix_count_read(const char *p, const char *line, int *total, am_error *err)
{
    const char *c = line + strlen(MATRIX_MAGIC);
    uint64_t v;
    if (units_u64(c, strlen(c), &v) != 0 || v > (uint64_t)SW_MAX_RUNS) {
        char shown[64];
        return am_fail_at(err, p, 1, (unsigned long)(c - line) + 1, "bad run count '%s' (a "
                          "whole number 0..%ld)", am_echo(shown, sizeof shown, c, strlen(c), 40),
                          SW_MAX_RUNS);
    }
    *total = (int)v;
    return 0;
}

/* 0 when matrix.tsv's line (number lineno) holds no control byte but its tabs (tsv_bad_byte,
 * as the sweep's trace check), else -1 with err at the byte: amsim writes tab-separated fields
 * and a newline alone. Until 2026-11-27 a carriage return (a CRLF line end from an editor or a
 * copy) passed: at a run line's end it became part of the key, so --merge marked the finished
 * run 'missing' and a rerun said the sweep had changed, running nothing. */
static int matrix_line_plain(const char *p, const char *line, int lineno, am_error *err)
{
    const unsigned char *c = (const unsigned char *)tsv_bad_byte(line, 1);
    if (c)
        return am_fail_at(err, p, (unsigned long)lineno,
                          (unsigned long)(c - (const unsigned char *)line) + 1,
                          "control byte 0x%02x%s in the line (a matrix.tsv line is "
                          "tab-separated fields ended by a newline alone)", *c,
                          *c == '\r' ? " (a carriage return: a CRLF line end?)" : "");
    return 0;
}

/* A malformed matrix.tsv is named at its line and column (until 2026-11-27 "bad line for run
 * 1" had no line, then no column, and blank lines were skipped as if absent); a NUL byte in it
 * or a read error is refused (until 2026-11-27 the text ended at a NUL byte). */
static int matrix_read(const char *dir, matrix *m, am_error *err)
{
    memset(m, 0, sizeof *m);
    char *p = xprintf("%s/matrix.tsv", dir);
    int got_text = am_slurp_text(p, &m->text, NULL, err);
    if (got_text != 0) {
        if (got_text == -1)
            am_fail(err, AM_EINPUT, "%s: cannot read (not a batch output folder?)", p);
        free(p);
        return -1;
    }
    char *work = am_strdup(m->text), *pos = work;
    char *save = work;
    int lineno = 0;
    char *line = next_line(&pos, &lineno);
    int total = 0;
    if (!line || strncmp(line, MATRIX_MAGIC, strlen(MATRIX_MAGIC)) != 0) {
        am_fail_at(err, p, 1, 1, "not an amsim matrix file (its first line is '#amsim-matrix "
                   "v1<TAB>RUNS')");
        goto bad;
    }
    if (matrix_count_read(p, line, &total, err) != 0)
        goto bad;
    line = next_line(&pos, &lineno);
    if (!line) {
        am_fail_at(err, p, (unsigned long)lineno + 1, 1, "no header line");
        goto bad;
    }
    if (matrix_line_plain(p, line, lineno, err) != 0)
        goto bad;
    char *tmp[SW_MAX_AXES + 8];
    int nc = split_tabs(line, tmp, SW_MAX_AXES + 8);
    if (nc > SW_MAX_AXES + 8 || nc < 5) {
        am_fail_at(err, p, (unsigned long)lineno, 1, "bad header line (%d fields)", nc);
        goto bad;
    }
    m->ncols = nc - 1; /* the last column is the key */
    m->cols = am_calloc((size_t)nc, sizeof *m->cols);
    for (int c = 0; c < nc; c++)
        m->cols[c] = tmp[c];
    m->rows = am_calloc((size_t)total + 1, sizeof *m->rows);
    while (m->n < total && (line = next_line(&pos, &lineno))) {
        if (matrix_line_plain(p, line, lineno, err) != 0)
            goto bad;
        char **row = am_calloc((size_t)nc + 1, sizeof *row);
        int got = split_tabs(line, row, nc);
        if (got != nc) {
            unsigned long col = matrix_bad_col(line, row, got, nc);
            free(row);
            am_fail_at(err, p, (unsigned long)lineno, col, "bad line for run %d: %d "
                       "tab-separated fields, %d expected", m->n + 1, got, nc);
            goto bad;
        }
        m->rows[m->n++] = row;
    }
    if (m->n != total) {
        am_fail_at(err, p, (unsigned long)lineno + 1, 1, "%d run%s listed, %d expected", m->n,
                   m->n == 1 ? "" : "s", total);
        goto bad;
    }
    /* a line after the last run counted: a count cut short would drop the runs after it (until
     * 2026-11-27 they were dropped, and lines of garbage there passed, status 0) */
    if ((line = next_line(&pos, &lineno))) {
        am_fail_at(err, p, (unsigned long)lineno, 1, "a line past the %d run%s the first line "
                   "counts", total, total == 1 ? "" : "s");
        goto bad;
    }
    m->raw = m->text;
    m->text = save; /* keeps the strings the rows point into */
    free(p);
    return 0;
bad:
    if (!err->msg[0])
        am_fail(err, AM_EINPUT, "%s: malformed", p);
    free(save);
    matrix_tsv_free(m);
    free(p);
    return -1;
}

/* A new metric column goes after the last column of the same level (the text before the first
 * dot), so that the columns of a level stay together when policies add statistics. */
static void insert_col(strlist *l, const char *k)
{
    const char *dot = strchr(k, '.');
    size_t pre = dot ? (size_t)(dot - k) + 1 : 0;
    int at = l->n;
    if (pre)
        for (int c = l->n - 1; c >= 0; c--)
            if (strncmp(l->v[c], k, pre) == 0) {
                at = c + 1;
                break;
            }
    sl_push(l, NULL);
    memmove(l->v + at + 1, l->v + at, (size_t)(l->n - 1 - at) * sizeof *l->v);
    l->v[at] = am_strdup(k);
}

/* Add column k unless the table has it (insert_col's place). */
static void add_col(strlist *l, const char *k)
{
    for (int c = l->n - 1; c >= 0; c--)
        if (strcmp(l->v[c], k) == 0)
            return;
    insert_col(l, k);
}

/* The columns of the metrics every run of the given levels (comma-separated) reports, in
 * collect's order: a level's policy statistics then go after them (insert_col). */
static void add_level_cols(strlist *l, const char *levels)
{
    for (const char *p = levels; p && *p;) {
        size_t len = strcspn(p, ",");
        for (size_t i = 0; i < sizeof level_metrics_names / sizeof *level_metrics_names; i++) {
            char *k = xprintf("%.*s.%s", (int)len, p, level_metrics_names[i]);
            add_col(l, k);
            free(k);
        }
        p += len + (p[len] == ',');
    }
}

/* What a results table holds besides ok runs: a batch and a merge of its shards say the same
 * summary and exit status from it (csv_status). */
typedef struct csv_tally {
    int failed;     /* rows not ok: failures and deviations */
    int deviated;   /* of those, a regress check's deviation (status 3 when alone) */
    int unrecorded; /* of the failures, a regress run with no expectation recorded */
} csv_tally;

static void tally_result(csv_tally *t, const result *r)
{
    if (strcmp(r->status, "ok") == 0)
        return;
    t->failed++;
    t->deviated += strcmp(r->status, "deviation") == 0;
    t->unrecorded += r->error && strstr(r->error, ": no expectation recorded; ") != NULL;
}

/* The exit status of a results table: 1 when a run has no result or failed outright (or the
 * table was not written: missing < 0, build_csv's error), 3 when every run not ok deviated
 * from its expectation, else 0. */
static int csv_status(int missing, const csv_tally *t)
{
    if (missing != 0 || t->failed > t->deviated)
        return 1;
    return t->deviated ? 3 : 0;
}

/* "; N failed; M deviated from their expectations" of a summary line, into buf (n bytes). */
static const char *tally_text(char *buf, size_t n, const csv_tally *t)
{
    char dev[64] = "";
    if (t->deviated)
        snprintf(dev, sizeof dev, "; %d deviated from %s expectation%s", t->deviated,
                 t->deviated == 1 ? "its" : "their", t->deviated == 1 ? "" : "s");
    snprintf(buf, n, "; %d failed%s", t->failed - t->deviated, dev);
    return buf;
}

/* "N runs have no expectation recorded; record them with RECORD" ("1 run has ...; record it
 * with", where until 2026-11-28 it said "record them") (say_problems). The first
 * check of a fresh clone: said once here, not only in results.csv; a problem, so under -q too,
 * which leaves out only the summary (until 2026-11-27 -q hid it and the check ended with
 * status 1 and nothing said). */
static void say_unrecorded(const csv_tally *t, const char *record)
{
    if (t->unrecorded)
        am_msg("%s: %d run%s no expectation recorded; record %s with %s\n", prog,
               t->unrecorded, t->unrecorded == 1 ? " has" : "s have",
               t->unrecorded == 1 ? "it" : "them", record); /* "it": 2026-11-28 */
}

/* The problems of a results table (csv, written: missing >= 0) said on stderr, under -q too,
 * which leaves out only the summary line: a batch and a merge of its shards say the same
 * three, worded by the caller where they differ. missing_how follows "N runs have no result "
 * (where to look, what to do); record is the command that records expectations. A merge says
 * the runs with no expectation recorded before the failures, a batch after them
 * (unrecorded_first), each as it always did. */
static void say_problems(const csv_tally *t, int missing, int quiet, const char *csv,
                         const char *missing_how, const char *record, int unrecorded_first)
{
    if (missing < 0) /* results.csv not written: build_csv's error was said instead */
        return;
    char q[SHOWN_MAX];
    /* status 1 always says why: a run with no result is said, under -q too (until 2026-11-27
     * a batch whose runs lost their results to another batch on the same folder said
     * "0 failed" and ended with status 1) */
    if (missing > 0)
        am_msg("%s: %d run%s no result %s\n", prog, missing, missing == 1 ? " has" : "s have",
               missing_how);
    if (unrecorded_first)
        say_unrecorded(t, record);
    /* under -q, whose summary would have said it: failures are a problem too (until
     * 2026-11-27 `batch -q` with a failed run ended with status 1 and said nothing); those with
     * no expectation recorded are said apart (say_unrecorded) */
    int nfailed = t->failed - t->deviated - t->unrecorded;
    if (quiet && nfailed > 0)
        am_msg("%s: %d run%s failed (see the status column of %s)\n", prog, nfailed,
               nfailed == 1 ? "" : "s", SHOW(q, csv));
    if (!unrecorded_first)
        say_unrecorded(t, record);
}

/* How good a result is to keep when folders hold several for one run: ok, then a deviation
 * (the run finished), then a failure. */
static int result_rank(const result *r)
{
    return strcmp(r->status, "ok") == 0 ? 0 : strcmp(r->status, "deviation") == 0 ? 1 : 2;
}

/* The result of the run in folder with key, from the folder of dirs[] holding the best one
 * (result_rank; the first of equals), into *r: a shard retried into a new folder gives its ok
 * result whatever the order of the folders (until 2026-11-27 the first folder won, failed or
 * not). Returns that folder's index, or -1 (r empty) when none has it, or -2 (r empty) with
 * err when a result.txt read does not read whole (result_read): a damaged result is refused,
 * not taken as a finished run nor as a missing one. */
static int pick_result(const char *const *dirs, int ndirs, const char *folder, const char *key,
                       result *r, am_error *err)
{
    int best = -1;
    memset(r, 0, sizeof *r);
    for (int d = 0; d < ndirs && (best < 0 || result_rank(r) > 0); d++) {
        result x;
        int got = result_read(dirs[d], folder, &x, err);
        if (got == -2) {
            result_free(r);
            return -2;
        }
        if (got != 0)
            continue;
        if (strcmp(x.key, key) == 0 && (best < 0 || result_rank(&x) < result_rank(r))) {
            result_free(r);
            *r = x;
            best = d;
        } else
            result_free(&x);
    }
    return best;
}

/* Why the runs of matrix.tsv text b differ from those of text a (bits): a run whose key's
 * study= digest changed, or that one of them lacks, is the study's doing (WHY_STUDY); one whose
 * study= is the same but whose inputs= is not is amsim's: the same sweep and inputs, another
 * amsim's config keys, defaults or version (WHY_AMSIM); a's keys without study= (written before
 * 2026-11-27) cannot tell the two apart: an older amsim made a (WHY_OLD_AMSIM). */
enum { WHY_STUDY = 1, WHY_AMSIM = 2, WHY_OLD_AMSIM = 4 };

/* A matrix.tsv row's key split at its digests: the run's identity (trace, policy, axes, seed),
 * then its inputs= and study= digests ("" when absent). */
typedef struct key_parts {
    char *id;
    const char *inputs, *study;
} key_parts;

static int key_parts_cmp(const void *x, const void *y)
{
    return strcmp(((const key_parts *)x)->id, ((const key_parts *)y)->id);
}

/* The keys of matrix.tsv text t (its rows' last fields), split (key_parts; t is cut up): the
 * count, with *out allocated. */
static int matrix_keys(char *t, key_parts **out)
{
    int n = 0, cap = 0, lineno = 0;
    *out = NULL;
    char *pos = t, *line;
    for (int skip = 0; skip < 2 && next_line(&pos, &lineno); skip++)
        ; /* the first line and the header */
    while ((line = next_line(&pos, &lineno))) {
        char *key = strrchr(line, '\t');
        key = key ? key + 1 : line;
        if (n == cap)
            *out = am_realloc(*out, (size_t)(cap = cap ? 2 * cap : 64) * sizeof **out);
        key_parts *k = &(*out)[n++];
        char *st = strstr(key, ";study="), *in = strstr(key, ";inputs=");
        k->study = st ? st + 7 : "";
        k->inputs = in ? in + 8 : "";
        if (st)
            *st = 0;
        if (in)
            *in = 0;
        k->id = key;
    }
    return n;
}

static int matrix_why(const char *a, const char *b)
{
    char *ta = am_strdup(a), *tb = am_strdup(b);
    key_parts *ka, *kb;
    int na = matrix_keys(ta, &ka), nb = matrix_keys(tb, &kb), why = na != nb ? WHY_STUDY : 0;
    qsort(ka, (size_t)na, sizeof *ka, key_parts_cmp);
    for (int i = 0; i < nb; i++) {
        key_parts *o = na ? bsearch(&kb[i], ka, (size_t)na, sizeof *ka, key_parts_cmp) : NULL;
        if (!o)
            why |= WHY_STUDY; /* a run added, or its trace, policy, axis value or seed changed */
        else if (!o->study[0])
            why |= WHY_OLD_AMSIM;
        else if (strcmp(o->study, kb[i].study) != 0)
            why |= WHY_STUDY;
        else if (strcmp(o->inputs, kb[i].inputs) != 0)
            why |= WHY_AMSIM;
    }
    free(ka);
    free(kb);
    free(ta);
    free(tb);
    return why ? why : WHY_STUDY; /* the same keys in another order or folder: the sweep's */
}

static void say_matrix_changed(const char *who, const char *mp, int why);

/* A rerun's word on the folder's matrix.tsv (path mp, text old) that differs from the study's
 * (mt): damaged (it does not read as matrix_read reads it), said with its fault and that it is
 * written again, or why it changed (say_matrix_changed). Until 2026-11-27 a damaged one (a
 * CRLF line end) was "the sweep ... changed since the last run" with no run run again. */
static void say_old_matrix(const char *dir, const char *mp, const char *old, const char *mt)
{
    char q[SHOWN_MAX];
    matrix m;
    am_error e = {0};
    if (matrix_read(dir, &m, &e) != 0) {
        am_msg("%s: %s; written again (runs whose key changed run again)\n", prog, e.msg);
        return;
    }
    matrix_tsv_free(&m);
    say_matrix_changed(prog, SHOW(q, mp), matrix_why(old, mt));
}

/* Say why a rerun's matrix.tsv (shown as mp) changed (matrix_why's bits). Until 2026-11-27
 * every change was "the sweep or its inputs ... changed", even when only amsim had: after an
 * upgrade that added a config key, every run of an unchanged study ran again under that
 * message. */
static void say_matrix_changed(const char *who, const char *mp, int why)
{
    if (why & WHY_OLD_AMSIM)
        am_msg("%s: %s: the study was made by an older amsim (its run keys have no study= "
               "digest, so a change of amsim's config keys or defaults cannot be told from one "
               "of the sweep's); every run runs again\n", who, mp);
    else if (why == WHY_AMSIM)
        am_msg("%s: %s: amsim changed since the last run (its config keys or defaults: a newer "
               "amsim); every run runs again\n", who, mp);
    else if (why & WHY_AMSIM)
        am_msg("%s: %s: the sweep or its inputs (base config, set:, traces, generator) changed "
               "since the last run, and so did amsim (its config keys or defaults: a newer "
               "amsim); runs whose key changed run again\n", who, mp);
    else
        am_msg("%s: %s: the sweep or its inputs (base config, set:, traces, generator) changed "
               "since the last run; runs whose key changed run again\n", who, mp);
}

/* --merge's refusal of folder dir's matrix.tsv p (text t) that differs from folder first's (t0):
 * saying when
 * the difference is amsim's (the same sweep and inputs, another amsim), or that of a folder
 * made by an older amsim, rather than the study's. Until 2026-11-27 it was always "not the
 * same study", so shards made before and after an upgrade seemed to be two studies. */
static int merge_refusal(am_error *err, const char *p, const char *dir, const char *first,
                         const char *t, const char *t0)
{
    int why = matrix_why(t0, t), back = matrix_why(t, t0);
    if ((why | back) & WHY_OLD_AMSIM)
        return am_fail(err, AM_EINPUT, "%s: not the same study as %s: %s was made by an older "
                       "amsim, whose run keys differ from this amsim's; run its sweep again "
                       "with this amsim (into that folder: its runs all run again) before "
                       "merging", p, first, back & WHY_OLD_AMSIM ? dir : first);
    if (why == WHY_AMSIM)
        return am_fail(err, AM_EINPUT, "%s: not the same study as %s: the same sweep and "
                       "inputs, made by different amsim versions (their config keys or "
                       "defaults differ); run the older shard again with this amsim before "
                       "merging", p, first);
    return am_fail(err, AM_EINPUT, "%s: not the same study as %s (matrix.tsv differs)", p,
                   first);
}

/* Build results.csv from run folders in dirs[] (the folder with the best result wins:
 * pick_result).
 * shard_n > 0: only the runs of shard k. Returns the number of runs without a result; *tally
 * counts the others not ok. picked, when not NULL (--merge, to link OUT/runs), receives for
 * each run with a result, in matrix order, its folder name then the run folder that won
 * (DIR/runs/FOLDER), so that the caller need not read matrix.tsv and the results again;
 * mtext, when not NULL, the first folder's matrix.tsv as read and found whole (--merge copies
 * it to OUT: until 2026-11-27 it read the file again, unchecked, after the table was built).
 * table, when not NULL, gets the table written but not committed, for the caller to commit
 * with its other files (--merge: results.csv with matrix.tsv, out_commit_all); else it is
 * committed here. */
static int build_csv(const char *const *dirs, int ndirs, const char *out_path, int shard_k,
                     int shard_n, csv_tally *tally, strlist *picked, char **mtext,
                     outfile **table, am_error *err)
{
    if (table)
        *table = NULL;
    matrix m;
    if (matrix_read(dirs[0], &m, err) != 0)
        return -1;
    for (int d = 1; d < ndirs; d++) {
        char *p = xprintf("%s/matrix.tsv", dirs[d]);
        char *t, *t0;
        size_t n, n0;
        int got = am_slurp_text(p, &t, &n, err);
        /* a folder with no matrix.tsv is no batch output: said as for the first folder (until
         * 2026-11-27 "not the same study as DIR (matrix.tsv differs)"); one with a NUL byte
         * or a read error is refused as the first folder's is */
        if (got != 0) {
            if (got == -1)
                am_fail(err, AM_EINPUT, "%s: cannot read (not a batch output folder?)", p);
            free(p);
            matrix_tsv_free(&m);
            return -1;
        }
        char *p0 = xprintf("%s/matrix.tsv", dirs[0]);
        am_error e0 = {0};
        int read0 = am_slurp_text(p0, &t0, &n0, &e0) == 0;
        int same = read0 && n == n0 && memcmp(t, t0, n) == 0;
        if (!same && read0)
            merge_refusal(err, p, dirs[d], dirs[0], t, t0);
        else if (!same)
            am_fail(err, AM_EINPUT, "%s: not the same study as %s (matrix.tsv differs)", p,
                    dirs[0]);
        free(t);
        free(t0);
        free(p0);
        if (!same) {
            free(p);
            matrix_tsv_free(&m);
            return -1;
        }
        free(p);
    }
    result *res = am_calloc((size_t)m.n + 1, sizeof *res);
    int missing = 0, damaged = 0;
    csv_tally t = {0};
    /* metric columns: those every run reports (run_metrics, and level_metrics_names of each
     * run's levels), so that they are there when no run finished (until 2026-11-27 a study
     * whose every run failed had none: `stats --metric ooms` found no column), then the union
     * of the runs' metrics in run order, first appearance */
    strlist mcols = {0};
    for (size_t c = 0; c < sizeof run_metrics / sizeof *run_metrics; c++)
        sl_push(&mcols, am_strdup(run_metrics[c]));
    for (int i = 0; i < m.n; i++) {
        if (shard_n && i % shard_n != shard_k - 1)
            continue;
        int d = pick_result(dirs, ndirs, m.rows[i][1], m.rows[i][m.ncols], &res[i], err);
        if (d == -2) {
            damaged = 1;
            break;
        }
        if (!res[i].have) {
            missing++;
            continue;
        }
        if (picked && d >= 0) {
            sl_push(picked, am_strdup(m.rows[i][1]));
            sl_push(picked, xprintf("%s/runs/%s", dirs[d], m.rows[i][1]));
        }
        tally_result(&t, &res[i]);
        add_level_cols(&mcols, res[i].levels);
        for (int k = 0; k < res[i].nm; k++)
            add_col(&mcols, res[i].m[k].k);
    }
    outfile *o;
    int rc = -1;
    if (!damaged && out_open(&o, out_path, err) == 0) {
        FILE *f = out_fp(o);
        int pol_col = -1;
        for (int c = 0; c < m.ncols; c++) {
            if (strcmp(m.cols[c], "policy") == 0)
                pol_col = c;
            if (c)
                fputc(',', f);
            rtable_put_field(f, m.cols[c]);
        }
        fputs(",status,error", f);
        for (int c = 0; c < mcols.n; c++) {
            fputc(',', f);
            rtable_put_field(f, mcols.v[c]);
        }
        fputc('\n', f);
        for (int i = 0; i < m.n; i++) {
            if (shard_n && i % shard_n != shard_k - 1)
                continue;
            for (int c = 0; c < m.ncols; c++) {
                if (c)
                    fputc(',', f);
                const char *v = m.rows[i][c];
                if (c == pol_col && !v[0] && res[i].have && res[i].policy)
                    v = res[i].policy; /* the config's own policy */
                rtable_put_field(f, v);
            }
            fputc(',', f);
            rtable_put_field(f, res[i].have ? res[i].status : "missing");
            fputc(',', f);
            rtable_put_field(f, res[i].have ? res[i].error : "no result in any folder");
            /* metrics: columns in mcols order (a small linear search per column) */
            for (int c = 0; c < mcols.n; c++) {
                fputc(',', f);
                for (int k = 0; res[i].have && k < res[i].nm; k++)
                    if (strcmp(res[i].m[k].k, mcols.v[c]) == 0) {
                        rtable_put_field(f, res[i].m[k].v);
                        break;
                    }
            }
            fputc('\n', f);
        }
        if (table) {
            *table = o;
            rc = missing;
        } else {
            rc = out_commit(o, err) == 0 ? missing : -1;
        }
    }
    for (int i = 0; i < m.n; i++)
        result_free(&res[i]);
    free(res);
    sl_free(&mcols);
    if (mtext && rc >= 0) {
        *mtext = m.raw;
        m.raw = NULL;
    }
    matrix_tsv_free(&m);
    if (tally)
        *tally = t;
    return rc;
}

/* ---- the scheduler ---------------------------------------------------------------------- */

/* Whether the comma-separated list has name. */
static int list_has(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && strncmp(p, name, n) == 0)
            return 1;
        p += len + (p[len] == ',');
    }
    return 0;
}

/* Finished: the same key, status ok, and every per-run output this batch asks for was written by
 * that run (result.txt's outputs= lists it) and is still there (a rerun with --timeline or
 * --placements added writes them for runs finished without; until 2026-11-27 any file of that
 * name counted, also one left by an earlier run of other inputs). */
static int run_is_done(const batch *b, const sw_run *r)
{
    /* --update-expectations: a run's output is its expectation, outside DIR, so every run runs
     * (until 2026-11-25 a rerun into the same -o skipped the runs finished before and wrote no
     * expectation, with status 0, even where the file had been removed) */
    if (b->update_expect)
        return 0;
    result x;
    am_error e = {0};
    int got = result_read(b->out, r->folder, &x, &e);
    /* a result.txt that does not read whole is no finished run: said, and the run runs again
     * (until 2026-11-27 it counted as finished with what could be read of it) */
    if (got == -2)
        am_msg("%s: %s; the run runs again\n", prog, e.msg);
    if (got != 0)
        return 0;
    int done = strcmp(x.key, r->key) == 0 && strcmp(x.status, "ok") == 0;
    int want[2] = {b->placements, b->timeline};
    for (int i = 0; done && i < 2; i++) {
        if (!want[i])
            continue;
        char *dir = run_dir(b, r), *p = xprintf("%s/%s", dir, optional_outputs[i]);
        done = list_has(x.outputs, optional_outputs[i]) && access(p, F_OK) == 0;
        free(p);
        free(dir);
    }
    result_free(&x);
    return done;
}

/* A wall-clock duration, for the batch's summary and its progress bar: tenths of a second from
 * 0.1 s, below that in the finer unit units_fmt_time picks ("12.345 ms"), as amsim writes its
 * other durations (until 2026-11-28 a batch of milliseconds ended "(0.0 s)"). */
static char *fmt_wall(char *buf, size_t n, double s)
{
    if (s >= 0.1) {
        snprintf(buf, n, "%.1f s", s);
        return buf;
    }
    return units_fmt_time(buf, n, (am_ps)llround(s > 0 ? s * 1e12 : 0));
}

static void progress(int done, int total, int failed, double t0, int final)
{
    double el = now_s() - t0;
    int width = 30, fill = total ? done * width / total : width;
    char bar[64], t[48];
    for (int i = 0; i < width; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[width] = 0;
    if (done && done < total) {
        /* an estimate under half a second is "< 1 s", not "~0 s" with runs still to go (until
         * 2026-11-28) */
        double left = el / done * (total - done);
        if (left < 0.5)
            am_progress("[%s] %d/%d runs, %d failed, < 1 s left", bar, done, total, failed);
        else
            am_progress("[%s] %d/%d runs, %d failed, ~%.0f s left", bar, done, total, failed,
                        left);
    } else if (!done && !final) /* nothing has run: no time to speak of yet ("50.000 ns") */
        am_progress("[%s] %d/%d runs, %d failed", bar, done, total, failed);
    else
        am_progress("[%s] %d/%d runs, %d failed, %s", bar, done, total, failed,
                    fmt_wall(t, sizeof t, el));
    if (final)
        fputc('\n', stderr); /* the bar stays (a later message's clearing finds an empty line) */
    fflush(stderr);
}

static const char *sig_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return " (SIGSEGV)";
    case SIGABRT: return " (SIGABRT)";
    case SIGKILL: return " (SIGKILL)";
    case SIGALRM: return " (timeout)";
    case SIGBUS: return " (SIGBUS)";
    case SIGFPE: return " (SIGFPE)";
    default: return "";
    }
}

/* On SIGINT/SIGTERM (and SIGHUP/SIGPIPE unless ignored at the start, as out_install_signals
 * takes them; until 2026-11-27 those two ended the parent at once, its workers left running
 * orphaned) the parent stops launching runs and passes SIGTERM to its workers (each stops
 * its generator and removes its temporaries, worker_on_signal); the loop then reaps them, sweeps
 * their run folders for temporaries a worker could not remove (one killed between creating a
 * file and recording it, or crashed), and only then runs the previous handler (which removes the
 * parent's and exits), so no temporary outlives the batch. A second signal kills the workers
 * outright. */
#define BATCH_MAX_WORKERS 4096
static volatile pid_t worker_pids[BATCH_MAX_WORKERS];
static int nworker_slots;
static volatile sig_atomic_t stop_sig;
static struct sigaction old_int, old_term, old_hup, old_pipe;

/* The handlers the batch replaces while its workers run (on_signal), and their owners before. */
static const struct {
    int sig;
    const char *name;
    struct sigaction *old;
} batch_stops[] = {{SIGINT, "SIGINT", &old_int}, {SIGTERM, "SIGTERM", &old_term},
                   {SIGHUP, "SIGHUP", &old_hup}, {SIGPIPE, "SIGPIPE", &old_pipe}};

static void on_signal(int sig);

static void batch_catch_stops(void)
{
    for (size_t i = 0; i < AM_ARRAY_LEN(batch_stops); i++) {
        if (batch_stops[i].sig == SIGINT || batch_stops[i].sig == SIGTERM)
            out_catch(batch_stops[i].sig, on_signal, batch_stops[i].old);
        else
            out_catch_unless_ignored(batch_stops[i].sig, on_signal, batch_stops[i].old);
    }
}

static void batch_restore_stops(void)
{
    for (size_t i = 0; i < AM_ARRAY_LEN(batch_stops); i++)
        sigaction(batch_stops[i].sig, batch_stops[i].old, NULL);
}

static const char *stop_name(int sig)
{
    for (size_t i = 0; i < AM_ARRAY_LEN(batch_stops); i++)
        if (batch_stops[i].sig == sig)
            return batch_stops[i].name;
    return "a signal";
}

static void on_signal(int sig)
{
    int e = errno, again = stop_sig != 0;
    stop_sig = sig;
    for (int i = 0; i < nworker_slots; i++)
        if (worker_pids[i] > 0)
            kill(worker_pids[i], again ? SIGKILL : SIGTERM);
    errno = e;
}

/* A worker's --timeout is its own timer (SIGALRM, worker_on_signal). A worker still running
 * this long after its timeout is killed with SIGKILL (batch_wait), so that one whose SIGALRM is
 * blocked or ignored, or whose handler hangs, cannot hold its slot and the batch forever. */
#define BATCH_KILL_GRACE_S 1.0

int batch_wait(batch_worker *w, int n, int *status)
{
    for (;;) {
        double next = 0;
        for (int i = 0; i < n; i++)
            if (w[i].pid > 0 && w[i].kill_at > 0 && !w[i].killed &&
                (next == 0 || w[i].kill_at < next))
                next = w[i].kill_at;
        pid_t pid;
        if (next == 0)
            pid = waitpid(-1, status, 0);
        else {
            /* SIGCHLD blocked from before the check: an exit after it is still pending for
             * sigtimedwait, which wakes at the exit or at the deadline */
            sigset_t chld, old;
            sigemptyset(&chld);
            sigaddset(&chld, SIGCHLD);
            sigprocmask(SIG_BLOCK, &chld, &old);
            pid = waitpid(-1, status, WNOHANG);
            int e = errno;
            if (pid == 0) {
                double now = now_s(), left = next - now;
                if (left > 0) {
                    struct timespec ts = {(time_t)left, (long)((left - floor(left)) * 1e9)};
                    if (sigtimedwait(&chld, NULL, &ts) < 0 && errno == EINTR)
                        pid = -1, e = EINTR;
                } else
                    for (int i = 0; i < n; i++)
                        if (w[i].pid > 0 && w[i].kill_at > 0 && !w[i].killed &&
                            w[i].kill_at <= now) {
                            kill(w[i].pid, SIGKILL);
                            w[i].killed = 1;
                        }
            }
            sigprocmask(SIG_SETMASK, &old, NULL);
            errno = e;
            if (pid == 0)
                continue;
        }
        if (pid < 0)
            return -1;
        for (int i = 0; i < n; i++)
            if (w[i].pid == pid)
                return i;
        /* a child that is not one of these workers: wait on */
    }
}

/* Remove the temporaries (NAME.tmp.PID, sim/outfile.h) left in a run folder by a worker that did
 * not end normally. The folder is this run's alone, so whatever temporary is there is stale. */
static void remove_temporaries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (!strstr(e->d_name, ".tmp."))
            continue;
        char *p = xprintf("%s/%s", dir, e->d_name);
        unlink(p);
        free(p);
    }
    if (d)
        closedir(d);
}

/* DIR/results.csv removed before a batch changes what it would hold (runs to run, or another
 * matrix): an interrupted rerun then leaves no table of the earlier runs beside the new
 * matrix.tsv and run folders, which report and stats would read as current (until 2026-11-27
 * it stayed, `ok` rows with old numbers). One unlink: the table is there whole or not at all.
 * Through a symbolic link the file it names goes (the link stays, written through again when
 * the table is built); a FIFO or a device is left alone. */
static void remove_stale_results(const char *out)
{
    char *csv = xprintf("%s/results.csv", out);
    char *real = realpath(csv, NULL);
    struct stat st;
    if (real && stat(real, &st) == 0 && S_ISREG(st.st_mode) && unlink(real) != 0) {
        char q[SHOWN_MAX];
        am_msg("%s: %s: cannot remove the earlier results: %s\n", prog, SHOW(q, real),
               strerror(errno));
    }
    free(real);
    free(csv);
}

/* The last message the worker pid wrote (its last line, without "amsim: "), into buf (n
 * bytes; "" when none), and its file removed. Only the end of the file is read: the reason a
 * worker stops is what it said last. */
static void worker_last_message(const char *dir, pid_t pid, char *buf, size_t n)
{
    char *p = worker_msg_path(dir, pid), tail[1024];
    buf[0] = 0;
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0) {
        off_t from = st.st_size > (off_t)sizeof tail - 1 ? st.st_size - (off_t)sizeof tail + 1 : 0;
        ssize_t got = pread(fd, tail, sizeof tail - 1, from);
        tail[got > 0 ? got : 0] = 0;
        size_t len = strlen(tail);
        while (len && (tail[len - 1] == '\n' || tail[len - 1] == '\r'))
            tail[--len] = 0;
        char *line = strrchr(tail, '\n');
        line = line ? line + 1 : tail;
        if (strncmp(line, "amsim: ", 7) == 0)
            line += 7;
        snprintf(buf, n, "%s", line);
    }
    if (fd >= 0)
        close(fd);
    unlink(p);
    free(p);
}

/* The temporaries left in run r's folder by a batch that was killed (SIGKILL, a crash): its
 * workers died with it (PR_SET_PDEATHSIG) and left their messages.tmp.PID and any NAME.tmp.PID
 * behind. This batch holds the folder's lock, so no process writes them any more. Until
 * 2026-11-27 they stayed for good (a rerun made new ones under its own workers' ids). */
static void remove_run_temporaries(const batch *b, const sw_run *r)
{
    char *dir = run_dir(b, r);
    remove_temporaries(dir);
    free(dir);
}

static int run_all(batch *b, int *nskipped, int *nran)
{
    int *todo = am_malloc(((size_t)b->nruns + 1) * sizeof *todo), ntodo = 0, mine = 0;
    for (int i = 0; i < b->nruns; i++) {
        if (b->shard_n && i % b->shard_n != b->shard_k - 1)
            continue;
        mine++;
        remove_run_temporaries(b, &b->runs[i]);
        if (run_is_done(b, &b->runs[i]))
            (*nskipped)++;
        else
            todo[ntodo++] = i;
    }
    if (ntodo)
        remove_stale_results(b->out);
    int tty = !b->quiet && isatty(2);
    batch_worker *sl = am_calloc((size_t)b->jobs, sizeof *sl);
    int *sl_run = am_calloc((size_t)b->jobs, sizeof *sl_run);
    nworker_slots = b->jobs;
    /* the batch's stop handlers are in place since before matrix.tsv (cmd_batch): a signal
     * since then stops it here, before any run, with its own message */
    sigset_t stop, unblocked;
    out_stop_signals(&stop);
    int next = 0, active = 0, done = 0, failed = 0;
    double t0 = now_s();
    if (tty)
        progress(0, ntodo, 0, t0, 0);
    fflush(NULL);
    while ((next < ntodo && !stop_sig) || active) {
        while (next < ntodo && active < b->jobs && !stop_sig) {
            int i = todo[next++];
            /* blocked until the worker is in worker_pids (else a signal now would miss it) */
            sigprocmask(SIG_BLOCK, &stop, &unblocked);
            pid_t batch_pid = getpid(), pid = fork();
            if (pid < 0) {
                sigprocmask(SIG_SETMASK, &unblocked, NULL);
                am_msg("%s: fork: %s\n", prog, strerror(errno));
                next--;
                break;
            }
            if (pid == 0) {
                /* killed with its batch: a batch killed with SIGKILL stops no worker, and one
                 * left running (until 2026-11-27) kept the folder's lock and wrote into it
                 * after the batch had gone; a batch that died before this line leaves no
                 * worker either (its generator is tied to it the same way, gen_trace) */
                if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != batch_pid)
                    _exit(127);
                worker_signals(); /* run_child keeps the worker's messages (worker_keep_messages) */
                /* the signals the batch stops a worker with are never blocked in it, even when
                 * the batch was started with them blocked (the mask is inherited): a worker
                 * with SIGALRM blocked ran on past its --timeout */
                sigset_t mask = unblocked;
                sigdelset(&mask, SIGTERM);
                sigdelset(&mask, SIGALRM);
                sigprocmask(SIG_SETMASK, &mask, NULL);
                if (b->timeout > 0) {
                    /* microseconds, rounded up: a fraction below a second is honoured (alarm()
                     * took whole seconds) and 1e-9 s still arms the timer (0 would disarm it) */
                    double us = ceil(b->timeout * 1e6);
                    struct itimerval it = {{0, 0}, {(time_t)(us / 1e6),
                                                    (suseconds_t)fmod(us, 1e6)}};
                    setitimer(ITIMER_REAL, &it, NULL);
                }
                int st = run_child(b, &b->runs[i]);
                fflush(NULL);
                _exit(st);
            }
            for (int k = 0; k < b->jobs; k++)
                if (!sl[k].pid) {
                    sl[k] = (batch_worker){pid, b->timeout > 0 ? now_s() + b->timeout +
                                                                     BATCH_KILL_GRACE_S : 0, 0};
                    worker_pids[k] = pid;
                    sl_run[k] = i;
                    break;
                }
            active++;
            sigprocmask(SIG_SETMASK, &unblocked, NULL);
        }
        if (!active)
            break;
        int st, k = batch_wait(sl, b->jobs, &st);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            am_msg("%s: waiting for the workers: %s\n", prog, strerror(errno));
            break;
        }
        int killed = sl[k].killed;
        pid_t wpid = sl[k].pid;
        sl[k] = (batch_worker){0, 0, 0};
        worker_pids[k] = 0;
        active--;
        const sw_run *r = &b->runs[sl_run[k]];
        int ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
        /* a worker the stop killed was interrupted: its run is neither done nor failed (it
         * runs again on a rerun), so the progress bar counts it as neither; until 2026-11-27
         * it said "4/6 runs, 1 failed" with nothing failed. A run that failed on its own
         * exits with a status, not a signal, and still counts. */
        int interrupted = stop_sig && !ok && WIFSIGNALED(st);
        if (!interrupted)
            done++;
        if (!ok && !interrupted)
            failed++;
        /* a worker that died before writing its marker: record why (not when the batch
         * was stopped: the run was interrupted, not failed, and runs on a rerun) */
        result x;
        char *dir = run_dir(b, r);
        char said[512];
        worker_last_message(dir, wpid, said, sizeof said); /* before its temporaries go */
        if (!ok)
            remove_temporaries(dir);
        am_error e1 = {0};
        int have = result_read(b->out, r->folder, &x, &e1) == 0;
        if (!stop_sig && (!have || strcmp(x.key, r->key) != 0 ||
                          (!ok && strcmp(x.status, "ok") == 0))) {
            char msg[768];
            am_error e2 = {0};
            if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM && b->timeout > 0)
                snprintf(msg, sizeof msg, "worker killed by signal %d (timeout after %g s)",
                         SIGALRM, b->timeout);
            else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL && killed)
                snprintf(msg, sizeof msg, "worker killed by signal %d (timeout after %g s; "
                         "still running %g s later)", SIGKILL, b->timeout,
                         BATCH_KILL_GRACE_S);
            else if (WIFSIGNALED(st))
                snprintf(msg, sizeof msg, "worker killed by signal %d%s", WTERMSIG(st),
                         sig_name(WTERMSIG(st)));
            else if (said[0]) /* what it said last: "host out of memory (...)" */
                snprintf(msg, sizeof msg, "%s (worker exited with status %d and no result)",
                         said, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
            else
                snprintf(msg, sizeof msg, "worker exited with status %d and no result",
                         WIFEXITED(st) ? WEXITSTATUS(st) : -1);
            mkdir_p(dir);
            clear_outputs(dir); /* the worker may have died before it cleared the folder */
            char policy[64] = "", *levels = NULL;
            run_config_facts(&b->sw, r, policy, sizeof policy, &levels);
            result_info ri = {"failed", msg, policy, levels, NULL, NULL};
            if (write_result(dir, r, &ri, &e2) != 0)
                am_msg("%s: %s\n", prog, e2.msg);
            free(levels);
        }
        if (have)
            result_free(&x);
        free(dir);
        /* the last run's bar is the final one, drawn once after the loop (until 2026-11-28
         * twice, the second a moment later) */
        if (tty && (done < ntodo || stop_sig))
            progress(done, ntodo, failed, t0, 0);
    }
    if (stop_sig) {
        /* every worker is reaped and its folder clean: now the parent's temporaries go and
         * the process ends with the signal, as the handler the batch replaced would have done
         * but without its "amsim: interrupted; partial outputs removed", which said otherwise
         * after this line (until 2026-11-27) */
        if (tty)
            fputc('\n', stderr);
        am_msg("%s: stopped by %s; the same command again runs what is unfinished\n", prog,
               stop_name(stop_sig));
        batch_restore_stops();
        out_die_of(stop_sig);
    }
    if (tty)
        progress(done, ntodo, failed, t0, 1);
    /* the stop handlers stay until results.csv is committed (commit_results) */
    nworker_slots = 0;
    free(sl);
    free(sl_run);
    free(todo);
    *nran = done;
    return mine;
}

/* results.csv (table, written by build_csv: missing, or -1 with err when it was not) committed,
 * the batch's stop handlers given back first. A stop signal since the runs ended stops the
 * batch with its own message and commits nothing; the commit (results.csv's last writes and
 * its rename) holds the signals off, so one that comes then is the previous handler's, which
 * says the outputs are written. Until 2026-11-28 the handlers were given back
 * as the runs ended, and a signal while results.csv was written said "amsim: interrupted;
 * partial outputs removed", with matrix.tsv and the runs left in place. The new missing. */
static int commit_results(outfile *table, int missing, am_error *err)
{
    sigset_t stop, unblocked;
    out_stop_signals(&stop);
    sigprocmask(SIG_BLOCK, &stop, &unblocked);
    if (stop_sig) {
        out_abort(table);
        am_msg("%s: stopped by %s; the same command again runs what is unfinished\n", prog,
               stop_name(stop_sig));
        batch_restore_stops();
        out_die_of(stop_sig);
    }
    batch_restore_stops();
    if (missing >= 0 && out_commit(table, err) != 0)
        missing = -1;
    sigprocmask(SIG_SETMASK, &unblocked, NULL);
    return missing;
}

/* ---- the command ------------------------------------------------------------------------ */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: amsim batch SWEEP.yaml -o DIR [-j N] [--shard K/N] [options]\n"
            "       amsim batch --merge DIR... -o OUT\n"
            "  runs the matrix of a sweep file (configs/sweeps/README.md) on N worker processes,\n"
            "  one folder per run (DIR/runs/NNNN-NAME/) and DIR/results.csv, one row per run\n"
            "  -o, --out DIR         the study folder, runs/ and results.csv (required but\n"
            "                        with --list); with --merge, OUT\n"
            "  -j, --jobs N          worker processes, 1 to 4096 (default: online CPUs)\n"
            "  --shard K/N           only runs i (1-based) with (i-1) mod N = K-1; K is 1..N,\n"
            "                        N at most 2147483647\n"
            "  --merge DIR...        combine shard folders: OUT/results.csv (OUT ending in .csv:\n"
            "                        that file), byte-identical to an unsharded run; takes -o\n"
            "                        and -q only (the options of a run are refused)\n"
            "  --placements          also write placements.csv per run\n"
            "  --timeline            also write timeline.csv per run (report plots use it)\n"
            "  --timeout SECONDS     a run that takes longer (above 0, at most 1e9; fractions\n"
            "                        too: 0.5) is killed and recorded as failed\n"
            "  --list                print the matrix (id, folder, key) and exit\n"
            "  --update-expectations kind regress: write the expectations instead of checking\n"
            "                        them (refused for kind matrix)\n"
            "  -q, --quiet           no progress bar or summary line (--merge too)\n"
            "a rerun with the same -o skips runs that finished (status ok) and retries the rest.\n"
            "exit status: 0 every run ok, 1 some runs failed (or bad input), 3 (regress) a\n"
            "deviation from an expectation\n");
}

/* A regress sweep's expectation files, each once, sorted: every trace's (or generated trace's,
 * expect_name) under every policy and at every axis point. */
static void expect_files(const sweep *s, strlist *out)
{
    long n = expect_nslots(s);
    for (long i = 0; i < n; i++) {
        char buf[4096];
        sw_run r = expect_slot_run(s, i);
        sl_push(out, am_strdup(expect_path(s, &r, buf, sizeof buf)));
    }
    qsort(out->v, (size_t)out->n, sizeof *out->v, cmp_str);
    int k = 0;
    for (int i = 0; i < out->n; i++) {
        if (k && strcmp(out->v[i], out->v[k - 1]) == 0)
            free(out->v[i]);
        else
            out->v[k++] = out->v[i];
    }
    out->n = k;
}

/* DIR/results.csv and DIR/matrix.tsv, and with --update-expectations the expectation files,
 * against every file the sweep reads (until 2026-11-25 only the sweep file: `DIR/results.csv ->
 * ../base.yaml` replaced the base config with the table; and the expectations were not checked
 * at all: `expectations/a.trace.expect -> ../traces/b.trace` replaced a trace of the sweep).
 * Called twice, each pair checked once: before the sweep is read (s NULL), -o's files against
 * the sweep file alone, so that a sweep that is one of DIR's files is refused as such, not for
 * what it holds; after (file NULL), against what the sweep names: the base config, the device
 * presets it loads, the traces and (checked, not written) the expectations, and the
 * expectations written against the sweep file too. 0, or -1 with err naming both; before DIR is
 * made or anything written. */
static int check_outputs(const char *file, const sweep *s, int update_expect, const char *out,
                         am_error *err)
{
    char *rp = xprintf("%s/results.csv", out), *mp = xprintf("%s/matrix.tsv", out);
    strlist exp = {0};
    if (s && s->regress)
        expect_files(s, &exp);
    int nout = 0, nin = 0, nexp_out = update_expect ? exp.n : 0;
    out_named *outs = am_calloc((size_t)(2 + nexp_out), sizeof *outs);
    out_named *ins = am_calloc((size_t)(2 + (s ? s->presets.n + s->traces.n + exp.n : 0)),
                               sizeof *ins);
    outs[nout++] = (out_named){"-o's results.csv", rp};
    outs[nout++] = (out_named){"-o's matrix.tsv", mp};
    if (file)
        ins[nin++] = (out_named){"SWEEP.yaml", file};
    if (s) {
        ins[nin++] = (out_named){"the sweep's base config", s->base};
        for (int i = 0; i < s->presets.n; i++)
            ins[nin++] = (out_named){"the base config's device preset", s->presets.v[i]};
        for (int i = 0; i < s->traces.n; i++)
            ins[nin++] = (out_named){"a trace of the sweep", s->traces.v[i]};
        for (int i = 0; i < exp.n; i++)
            if (update_expect)
                outs[nout++] = (out_named){"--update-expectations", exp.v[i]};
            else
                ins[nin++] = (out_named){"an expectation of the sweep", exp.v[i]};
    }
    int rc = out_check_paths(outs, nout, ins, nin, err);
    const out_named sweep_file = {"SWEEP.yaml", s ? s->file : NULL};
    for (int i = 2; rc == 0 && i < nout; i++)
        rc = out_check_paths(&outs[i], 1, &sweep_file, 1, err);
    sl_free(&exp);
    free(outs);
    free(ins);
    free(rp);
    free(mp);
    return rc;
}

/* --merge's outputs (OUT/results.csv and OUT/matrix.tsv, or the file OUT.csv: mpath NULL)
 * against what it reads: each folder's matrix.tsv and the result.txt of each run that the first
 * folder's matrix.tsv lists (until 2026-11-25 unchecked: `-o X.csv` with X.csv linking to a
 * shard's matrix.tsv or a run's result.txt replaced it with the table, and `-o SHARD` rewrote
 * the shard's own files). 0, or -1 with err naming both; before OUT is made. A folder that is
 * not a batch folder is left to build_csv to refuse. */
static int merge_check(char **dirs, int ndirs, const char *path, const char *mpath,
                       am_error *err)
{
    matrix m;
    am_error ignored = {0};
    int have = matrix_read(dirs[0], &m, &ignored) == 0, nrows = have ? m.n : 0;
    size_t nin = (size_t)ndirs * (1 + (size_t)nrows);
    out_named *ins = am_calloc(nin + 1, sizeof *ins);
    char **own = am_calloc(nin + 1, sizeof *own);
    int k = 0;
    for (int d = 0; d < ndirs; d++) {
        own[k] = xprintf("%s/matrix.tsv", dirs[d]);
        ins[k] = (out_named){"a merged folder's matrix.tsv", own[k]};
        k++;
        for (int i = 0; i < nrows; i++) {
            own[k] = xprintf("%s/runs/%s/result.txt", dirs[d], m.rows[i][1]);
            ins[k] = (out_named){"a merged folder's result.txt", own[k]};
            k++;
        }
    }
    if (have)
        matrix_tsv_free(&m);
    const out_named outs[] = {{mpath ? "-o's results.csv" : "-o", path},
                              {"-o's matrix.tsv", mpath}};
    int rc = out_check_paths(outs, 2, ins, k, err);
    for (int i = 0; i < k; i++)
        free(own[i]);
    free(own);
    free(ins);
    return rc;
}

/* Whether the entry name of OUT/runs (at path) is a link amsim made there: a symbolic link to
 * an absolute path ending in /runs/NAME (link_picked_runs makes no other). Anything else,
 * including a file or folder that is not a link (readlink fails with EINVAL), is not. When it
 * is and target is not NULL, the link's target is copied out to target (size bytes), so the
 * caller need not read the link a second time. */
static int is_run_link(const char *path, const char *name, char *target, size_t size)
{
    char t[PATH_MAX];
    ssize_t n = readlink(path, t, sizeof t - 1);
    size_t nl = strlen(name);
    if (n <= 0 || (size_t)n < nl + 7)
        return 0;
    t[n] = 0;
    const char *tail = t + n - nl;
    if (t[0] != '/' || strcmp(tail, name) != 0 || memcmp(tail - 6, "/runs/", 6) != 0)
        return 0;
    if (target && size > 0)
        snprintf(target, size, "%s", t);
    return 1;
}

/* path made a symbolic link to target, in place of the link there: a new link under a temporary
 * name renamed over it, so that OUT/runs/NAME never goes missing. 0, or -1 with errno. */
static int relink(const char *target, const char *path)
{
    char *tmp = xprintf("%s.tmp.%ld", path, (long)getpid());
    unlink(tmp);
    int rc = symlink(target, tmp) == 0 && rename(tmp, path) == 0 ? 0 : -1;
    int e = errno;
    if (rc != 0)
        unlink(tmp);
    free(tmp);
    errno = e;
    return rc;
}

/* OUT/runs/ made exactly the merge's picks: OUT/runs/FOLDER linking to the folder whose result
 * results.csv took (pick_result), for each run with a result (picked holds build_csv's pairs:
 * folder name, run folder that won). A link of an earlier merge that points elsewhere is
 * replaced, and one of a run the merge has no result for is removed: until 2026-11-27 an
 * existing link was kept, so after a shard retried into a new folder OUT/runs still linked the
 * failed one's run and report plotted it, and the folders' runs outside the study were linked
 * too. Only links amsim made (is_run_link) are replaced or removed: a real folder or file, or
 * another link, is left and said. */
static void link_picked_runs(const strlist *picked, const char *runs)
{
    char q[SHOWN_MAX], real[PATH_MAX], target[PATH_MAX];
    int npick = picked->n / 2;
    const char **names = am_calloc((size_t)npick + 1, sizeof *names);
    for (int i = 0; i + 1 < picked->n; i += 2) {
        const char *name = picked->v[i], *from = picked->v[i + 1];
        names[i / 2] = name;
        char *to = xprintf("%s/%s", runs, name);
        struct stat st;
        if (!realpath(from, real)) {
            am_msg("%s: %s: %s\n", prog, SHOW(q, from), strerror(errno));
        } else if (lstat(to, &st) != 0) {
            if (symlink(real, to) != 0)
                am_msg("%s: %s: %s\n", prog, SHOW(q, to), strerror(errno));
        } else if (!is_run_link(to, name, target, sizeof target)) {
            am_msg("%s: %s: not a link amsim made; left as it is (it is not the merged run)\n",
                   prog, SHOW(q, to));
        } else if (strcmp(target, real) != 0 && relink(real, to) != 0) {
            am_msg("%s: %s: %s\n", prog, SHOW(q, to), strerror(errno));
        }
        free(to);
    }
    qsort(names, (size_t)npick, sizeof *names, cmp_str);
    DIR *d = opendir(runs);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        const char *name = e->d_name;
        if (name[0] == '.' || bsearch(&name, names, (size_t)npick, sizeof *names, cmp_str))
            continue;
        char *p = xprintf("%s/%s", runs, name);
        if (is_run_link(p, name, NULL, 0) && unlink(p) != 0)
            am_msg("%s: %s: %s\n", prog, SHOW(q, p), strerror(errno));
        free(p);
    }
    if (d)
        closedir(d);
    free(names);
}

/* 0 when runs (OUT/runs) is a directory or is not there yet, else -1 with err: a regular file,
 * a FIFO or a symbolic link to nothing there is refused, the way to go on (to) in the message.
 * A symbolic link to a directory is one. Until 2026-11-28 a link to nothing was found only
 * when runs/ was made, "OUT/runs: cannot create: File exists". */
static int runs_in_way(const char *runs, const char *to, am_error *err)
{
    char q[SHOWN_MAX];
    struct stat st;
    const char *what = NULL;
    if (stat(runs, &st) == 0)
        what = S_ISDIR(st.st_mode) ? NULL : S_ISREG(st.st_mode) ? "a regular file"
             : S_ISFIFO(st.st_mode) ? "a FIFO" : "a device or a socket";
    else if (lstat(runs, &st) == 0 && S_ISLNK(st.st_mode))
        what = "a symbolic link to nothing";
    if (!what)
        return 0;
    return am_fail(err, AM_EINPUT, "%s: not a directory (%s); remove it to %s", SHOW(q, runs),
                   what, to);
}

/* runs_in_way for out/runs, before anything is written. Until 2026-11-28 mkdir took a file's
 * EEXIST as a folder: a batch recorded every run as `missing` saying "0 failed" and that the
 * same command again runs them (it never could), and --merge ended with status 0 and linked
 * no run. */
static int check_runs_dir(const char *out, const char *to, am_error *err)
{
    char *runs = xprintf("%s/runs", out);
    int rc = runs_in_way(runs, to, err);
    free(runs);
    return rc;
}

/* Undo what a batch made of DIR before it wrote anything: DIR/runs, the lock file and DIR
 * itself, each only when this command made it, and a folder only while empty (README: a command
 * that fails before writing leaves no -o directory it created; until 2026-11-27 a failed
 * matrix.tsv write left DIR/ and DIR/runs/). The lock is still held while its file goes (a
 * batch that opened it meanwhile is refused by the lock, not let in). */
static void unmake_out(const char *out, int made_out, int made_lock, int made_runs)
{
    char *runs = xprintf("%s/runs", out);
    rmdir_made(runs, made_runs); /* at most runs itself: it is made after DIR and its lock */
    free(runs);
    if (made_lock) { /* its own: a folder that was there is left as it was */
        char *lk = xprintf("%s/" BATCH_LOCK_NAME, out);
        unlink(lk);
        free(lk);
    }
    rmdir_made(out, made_out);
}

/* Stop tracking *lock_path (out_track_lock), when tracked, and free it. */
static void untrack_lock(char **lock_path)
{
    if (!*lock_path)
        return;
    out_track_lock(*lock_path, 0);
    free(*lock_path);
    *lock_path = NULL;
}

/* Track (on 1) or untrack (on 0) for a stop signal what a batch made of its -o folder out:
 * out with the parents it made, its lock file when out is new (out_track_lock, as --merge's),
 * and out/runs. The handler removes them while empty, the lock file first. */
static void track_batch_out(const char *out, int made_out, int made_lock, int made_runs, int on)
{
    batch_track_made(out, made_out, on);
    if (made_out > 0 && made_lock) {
        char *lk = xprintf("%s/" BATCH_LOCK_NAME, out);
        out_track_lock(lk, on);
        free(lk);
    }
    char *runs = xprintf("%s/runs", out);
    batch_track_made(runs, made_runs, on); /* tracked last: removed first */
    free(runs);
}

/* unmake_out for a batch that tracked what it made (track_batch_out): removed, then untracked,
 * so that a signal between the two finds nothing left to remove. */
static void unmake_batch_out(const char *out, int made_out, int made_lock, int made_runs)
{
    unmake_out(out, made_out, made_lock, made_runs);
    track_batch_out(out, made_out, made_lock, made_runs, 0);
}

/* OUT's matrix.tsv (mtext; none when NULL) opened and written to its temporary in *mo, and
 * runs (OUT/runs) made (*made_runs: the folders made, tracked for a stop signal), for --merge to
 * commit with results.csv: 0, or -1 with err. Until 2026-11-28 matrix.tsv was committed after
 * results.csv and a failure to write it (a full disk) or to make runs/ was said with status 0,
 * OUT left half merged. */
static int merge_prepare(const char *out, const char *runs, const char *mtext, outfile **mo,
                         int *made_runs, am_error *err)
{
    char q[SHOWN_MAX];
    char *dst = xprintf("%s/matrix.tsv", out);
    int rc;
    /* runs/ is made and tracked with the stop signals blocked: until 2026-11-28 one that came
     * between the two left OUT with an empty runs/ though "partial outputs removed" was said */
    /* a dangling symbolic link is an EEXIST that mkdir_p lets pass: no folder to link in
     * (check_runs_dir said so already, unless it was planted since) */
    int made = mkdir_tracked(runs, made_runs), e = errno;
    if (made != 0)
        rc = am_fail(err, AM_EINPUT, "%s: cannot create: %s", SHOW(q, runs), strerror(e));
    else
        rc = runs_in_way(runs, "merge here", err);
    if (rc == 0 && mtext && out_open(mo, dst, err) != 0)
        rc = -1;
    if (*mo)
        fputs(mtext, out_fp(*mo));
    free(dst);
    return rc;
}

static int merge_into(int argc, char **argv, const char *out, int is_csv, int quiet);

/* --merge with its folders (and OUT, unless it is OUT.csv) taken without the slashes that end
 * them, so that the paths made from them have single slashes (until 2026-11-28 `-o ./sh2/`
 * said ./sh2//matrix.tsv). Whether OUT names the table itself is decided on OUT as given, and
 * passed on: OUT.csv/ is a folder, though it ends in .csv once trimmed (until 2026-11-28 the
 * test came after the trim, and `-o new.csv/` wrote a file new.csv). */
static int merge(int argc, char **argv, const char *out, int quiet)
{
    char **dirs = am_calloc((size_t)argc + 1, sizeof *dirs), *o = NULL;
    for (int i = 0; i < argc; i++)
        dirs[i] = am_dir_trim(argv[i]);
    size_t ol = out ? strlen(out) : 0;
    int is_csv = ol > 4 && strcmp(out + ol - 4, ".csv") == 0;
    if (out && !is_csv)
        o = am_dir_trim(out);
    int rc = merge_into(argc, dirs, o ? o : out, is_csv, quiet);
    for (int i = 0; i < argc; i++)
        free(dirs[i]);
    free(dirs);
    free(o);
    return rc;
}

/* is_csv: OUT is the table itself (OUT.csv), not a folder (merge). */
static int merge_into(int argc, char **argv, const char *out, int is_csv, int quiet)
{
    char q[SHOWN_MAX]; /* a path as a message quotes it (SHOW) */
    if (!argc || !out) {
        am_msg("%s: --merge DIR... -o OUT\n", prog);
        return 1;
    }
    char *path = is_csv ? am_strdup(out) : xprintf("%s/results.csv", out);
    char *mpath = is_csv ? NULL : xprintf("%s/matrix.tsv", out);
    am_error err = {0};
    int rc, made = 0;
    csv_tally tally = {0};
    strlist picked = {0}; /* build_csv's (folder, winning run folder) pairs for OUT/runs */
    rc = merge_check(argv, argc, path, mpath, &err);
    free(mpath);
    /* a folder a running batch writes is not merged: its runs are not all there yet */
    for (int d = 0; rc == 0 && d < argc; d++)
        rc = batch_dir_in_use(argv[d], &err);
    if (rc == 0 && !is_csv)
        rc = check_runs_dir(out, "merge here", &err);
    if (rc != 0) {
        am_msg("%s: %s\n", prog, err.msg);
        free(path);
        return 1;
    }
    /* the stop signals wait while OUT is made, locked and tracked: one between the steps left
     * OUT behind (until 2026-11-27), or OUT holding only its lock */
    sigset_t stop, unblocked;
    out_stop_signals(&stop);
    sigprocmask(SIG_BLOCK, &stop, &unblocked);
    if (!is_csv && mkdir_p_made(out, &made) != 0) {
        int e = errno;
        rmdir_made(out, made);
        sigprocmask(SIG_SETMASK, &unblocked, NULL);
        am_msg("%s: %s: cannot create: %s\n", prog, SHOW(q, out), strerror(e));
        free(path);
        return 1;
    }
    batch_track_made(out, made, 1); /* an interrupt before results.csv removes them too */
    /* OUT is written by one command at a time, as a batch's -o folder (batch_lock) */
    int lock_fd = -1, made_lock = 0;
    if (!is_csv && (lock_fd = batch_lock(out, &made_lock, &err)) < 0) {
        rmdir_made(out, made);
        batch_track_made(out, made, 0);
        sigprocmask(SIG_SETMASK, &unblocked, NULL);
        am_msg("%s: %s\n", prog, err.msg);
        free(path);
        return 1;
    }
    /* a lock file in an OUT made here goes with OUT when the merge is interrupted before it
     * writes (out_track_lock; until 2026-11-27 OUT was left holding only .amsim-lock); in an
     * OUT that was there it stays, as every batch's does */
    char *lock_path = !is_csv && made > 0 && made_lock ? xprintf("%s/" BATCH_LOCK_NAME, out)
                                                       : NULL;
    if (lock_path && out_track_lock(lock_path, 1) != 0) {
        free(lock_path);
        lock_path = NULL;
    }
    sigprocmask(SIG_SETMASK, &unblocked, NULL);
    char *mtext = NULL; /* the first folder's matrix.tsv as build_csv read and checked it */
    outfile *os[2] = {NULL, NULL}; /* results.csv (or OUT.csv), matrix.tsv: committed as one */
    int made_runs = 0;
    char *runs = is_csv ? NULL : xprintf("%s/runs", out); /* the merge's picks link here */
    rc = build_csv((const char *const *)argv, argc, path, 0, 0, &tally, &picked,
                   is_csv ? NULL : &mtext, &os[0], &err);
    if (rc >= 0 && !is_csv && merge_prepare(out, runs, mtext, &os[1], &made_runs, &err) != 0)
        rc = -1;
    free(mtext);
    if (rc >= 0) {
        /* the stop signals wait from the renames until runs/ links the merge's picks and
         * nothing is tracked for removal: one held off says the outputs stay, all of them
         * there by then. One pending before the renames fails the commit (nothing renamed)
         * and ends the merge as the signals are unblocked below. */
        sigprocmask(SIG_BLOCK, &stop, NULL);
        if (out_commit_all(os, 2, &err) != 0) {
            rc = -1;
        } else {
            if (runs) {
                link_picked_runs(&picked, runs);
                batch_track_made(runs, made_runs, 0);
            }
            untrack_lock(&lock_path);
            batch_track_made(out, made, 0);
        }
        sigprocmask(SIG_SETMASK, &unblocked, NULL);
    }
    out_abort(os[0]); /* after a failure (out_commit_all consumed them otherwise) */
    out_abort(os[1]);
    if (rc < 0) { /* refused (not a batch folder, another study) or not written (a full disk):
                     OUT is not left behind, nor are a made OUT's runs/ and lock; the old
                     files of an OUT that was there stay as they were */
        am_msg("%s: %s\n", prog, err.msg);
        untrack_lock(&lock_path);
        unmake_out(out, made, made_lock, made_runs);
        if (runs)
            batch_track_made(runs, made_runs, 0);
        batch_track_made(out, made, 0);
        free(runs);
        if (lock_fd >= 0)
            close(lock_fd);
        sl_free(&picked);
        free(path);
        return 1;
    }
    /* written: OUT stays, its lock with it as a batch's */
    /* the same problems, counts and status as the unsharded batch (until 2026-11-27 a
     * deviation was a failure here: status 1 where the batch gave 3); status 1 said under -q
     * as a batch run says it */
    say_problems(&tally, rc, quiet, path, "in any of the folders (status 'missing')",
                 "amsim batch SWEEP --update-expectations", 1);
    if (!quiet) { /* -q: no summary line, as for a batch run; problems still go to stderr */
        char tt[160] = "";
        if (tally.failed)
            tally_text(tt, sizeof tt, &tally);
        printf("%s: merged %d folder%s%s%s\n", SHOW(q, path), argc, argc == 1 ? "" : "s", tt,
               tally.failed ? " (see the status column)" : "");
    }
    if (lock_fd >= 0)
        close(lock_fd);
    sl_free(&picked);
    free(runs);
    free(path);
    return csv_status(rc, &tally);
}

int cmd_batch(int argc, char **argv)
{
    batch b = {0};
    const char *file = NULL;
    int do_merge = 0, list = 0, nmerge = 0;
    const char *jobs_s = NULL, *shard_s = NULL, *timeout_s = NULL; /* as given, for cli_once */
    char **mdirs = am_calloc((size_t)argc + 1, sizeof *mdirs); /* operands: SWEEP or DIR... */
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    b.jobs = ncpu > 0 ? (int)ncpu : 1;
    b.self = "/proc/self/exe";
    int rc = 1;
    int lock_fd = -1, made_out = 0, made_lock = 0, made_runs = 0; /* DIR's lock, what we made */
    char *out_own = NULL; /* b.out without its final slashes (am_dir_trim) */
    char q[SHOWN_MAX], q2[SHOWN_MAX]; /* a value or a path as a message quotes it (SHOW) */
    enum { O_HELP, O_QUIET, O_PLACEMENTS, O_TIMELINE, O_LIST, O_UPDATE, O_MERGE, O_OUT, O_JOBS,
           O_SHARD, O_TIMEOUT, O_N };
    static const cli_opt opts[] = {
        [O_HELP] = {"help", 'h', CLI_FLAG},   [O_QUIET] = {"quiet", 'q', CLI_FLAG},
        [O_PLACEMENTS] = {"placements", 0, CLI_FLAG},
        [O_TIMELINE] = {"timeline", 0, CLI_FLAG},
        [O_LIST] = {"list", 0, CLI_FLAG},
        [O_UPDATE] = {"update-expectations", 0, CLI_FLAG},
        [O_MERGE] = {"merge", 0, CLI_FLAG},   [O_OUT] = {"out", 'o', CLI_PATH},
        [O_JOBS] = {"jobs", 'j', CLI_VALUE},  [O_SHARD] = {"shard", 0, CLI_VALUE},
        [O_TIMEOUT] = {"timeout", 0, CLI_VALUE}, [O_N] = {NULL, 0, 0}};
    /* each option that takes a value takes one: a second is refused (cli_once) */
    const char **slots[O_N] = {[O_OUT] = &b.out, [O_JOBS] = &jobs_s, [O_SHARD] = &shard_s,
                               [O_TIMEOUT] = &timeout_s};
    char seen[O_N][64] = {{0}}; /* each option as first given: --merge refuses those of a run */
    cli cl;
    cli_init(&cl, prog, argc, argv);
    const char *opt, *v;
    for (int k; (k = cli_next(&cl, opts, &opt, &v)) != CLI_END;) {
        if (k == CLI_ERROR || (k >= 0 && slots[k] && cli_once(prog, opt, slots[k], v, NULL)))
            goto out;
        if (k >= 0 && !seen[k][0])
            snprintf(seen[k], sizeof seen[k], "%s", opt);
        switch (k) {
        case O_HELP:
            usage(stdout);
            rc = 0;
            goto out;
        case O_QUIET:
            b.quiet = 1;
            break;
        case O_PLACEMENTS:
            b.placements = 1;
            break;
        case O_TIMELINE:
            b.timeline = 1;
            break;
        case O_LIST:
            list = 1;
            break;
        case O_UPDATE:
            b.update_expect = 1;
            break;
        case O_MERGE:
            do_merge = 1;
            break;
        case O_TIMEOUT:
            /* a finite number of seconds (fractions too) up to about 31 years, written as a
             * plain decimal (units_real: no blanks, hex, inf or nan; its sign is refused here) */
            if (units_real(v, &b.timeout, NULL) != 0 || !(b.timeout > 0) ||
                !(b.timeout <= 1e9) || !((v[0] >= '0' && v[0] <= '9') || v[0] == '.')) {
                am_msg("%s: --timeout takes seconds > 0 and at most 1e9 (fractions such as 0.5 "
                       "work), not '%s'\n", prog, SHOW(q, v));
                goto out;
            }
            /* the timer counts whole microseconds: less is refused (until 2026-11-27 1e-7 ran
             * for 1 us and said "timeout after 1e-07 s"), and a value is rounded up to the
             * microsecond it runs for, which the messages then name */
            if (b.timeout < 1e-6) {
                am_msg("%s: --timeout '%s' is below 1 us (0.000001 s), the timer's "
                       "resolution\n", prog, SHOW(q, v));
                goto out;
            }
            b.timeout = ceil(b.timeout * 1e6 - 1e-6) / 1e6;
            break;
        case O_SHARD: {
            /* digits only (strtol and sscanf also take a sign, leading spaces and, with %d,
             * whatever follows: '1/3x' was read as 1/3). N is at most INT_MAX (shard numbers
             * are ints), which the message names: until 2026-11-27 it said "1 <= K <= N" only,
             * which 1/2147483648 meets */
            const char *slash = strchr(v, '/');
            uint64_t sk = 0, sn = 0;
            /* K and N in every number's form (cfg_number_form), named after the message:
             * until 2026-11-27 '01/2' was shard 1 of 2 */
            char kpart[32] = "";
            const char *form = NULL;
            if (slash && (size_t)(slash - v) < sizeof kpart) {
                memcpy(kpart, v, (size_t)(slash - v));
                kpart[slash - v] = 0;
                form = cfg_number_form(kpart);
                if (!form)
                    form = cfg_number_form(slash + 1);
            }
            if (!slash || form || units_u64(v, (size_t)(slash - v), &sk) != 0 ||
                units_u64(slash + 1, strlen(slash + 1), &sn) != 0 || sn < 1 || sn > INT_MAX ||
                sk < 1 || sk > sn) {
                am_msg("%s: --shard K/N with 1 <= K <= N <= %d, not '%s'%s%s\n", prog, INT_MAX,
                       SHOW(q, v), form ? ": " : "", form ? form : "");
                goto out;
            }
            b.shard_k = (int)sk;
            b.shard_n = (int)sn;
            break;
        }
        case O_JOBS: {
            /* in a config number's form (cfg_number_form), as --device: until 2026-11-27 '01'
             * was read as 1 worker */
            uint64_t j = 0;
            const char *form = cfg_number_form(v);
            if (form || units_u64(v, strlen(v), &j) != 0 || j < 1 || j > 4096) {
                am_msg("%s: -j takes a number of workers 1..4096, not '%s'%s%s\n", prog, SHOW(q, v),
                       form ? ": " : "", form ? form : "");
                goto out;
            }
            b.jobs = (int)j;
            break;
        }
        case O_OUT:
            /* as run refuses -o -: until 2026-11-27 batch and --merge made a folder named '-' */
            if (strcmp(v, "-") == 0) {
                am_msg("%s: -o -: -o names a folder (the study's, or the merged one; --merge also "
                       "takes a file OUT.csv); standard output is no folder\n", prog);
                goto out;
            }
            break;
        default: /* an operand: the sweep file, or with --merge a folder (in their order) */
            mdirs[nmerge++] = (char *)(uintptr_t)v;
        }
    }
    if (do_merge) {
        /* what only a run uses would be ignored in silence (until 2026-11-25 it was) */
        static const int run_only[] = {O_SHARD, O_JOBS, O_TIMEOUT, O_PLACEMENTS, O_TIMELINE,
                                       O_UPDATE, O_LIST};
        for (size_t i = 0; i < AM_ARRAY_LEN(run_only); i++)
            if (seen[run_only[i]][0]) {
                am_msg("%s: %s does not apply to --merge\n", prog, seen[run_only[i]]);
                goto out;
            }
        rc = merge(nmerge, mdirs, b.out, b.quiet);
        goto out;
    }
    if (nmerge > 1) {
        am_msg("%s: one sweep file only ('%s')\n", prog, SHOW(q, mdirs[1]));
        goto out;
    }
    file = mdirs[0];
    if (b.out) /* DIR/results.csv, not DIR//results.csv, for `-o st/` (am_dir_trim) */
        b.out = out_own = am_dir_trim(b.out);
    if (!file || (!b.out && !list)) {
        am_msg("%s: SWEEP.yaml and -o DIR are required (see amsim batch --help)\n", prog);
        goto out;
    }
    am_error err = {0};
    devices_env_absolute();
    /* the sweep file as one of DIR's own files would be overwritten by the run */
    if (b.out && check_outputs(file, NULL, 0, b.out, &err) != 0) {
        am_msg("amsim: %s\n", err.msg);
        goto out;
    }
    if (sweep_load(&b.sw, file, &err) != 0) {
        am_msg("amsim: %s\n", err.msg);
        sweep_free(&b.sw);
        goto out;
    }
    /* a matrix sweep has no expectations to write (until 2026-11-25 the flag was accepted and
     * did nothing) */
    if (b.update_expect && !b.sw.regress) {
        am_msg("%s: --update-expectations applies to a sweep of kind: regress; %s is kind: "
               "matrix (it has no expectations)\n", prog, SHOW(q, file));
        sweep_free(&b.sw);
        goto out;
    }
    /* the sweep's outputs: as if given on the command line */
    b.placements |= b.sw.placements;
    b.timeline |= b.sw.timeline;
    if (sweep_digest(&b.sw, b.update_expect, &err) != 0 ||
        (b.out && check_outputs(NULL, &b.sw, b.update_expect, b.out, &err) != 0)) {
        am_msg("amsim: %s\n", err.msg);
        sweep_free(&b.sw);
        goto out;
    }
    /* --list counts, then plans and prints one run at a time (matrix_list); a run plans them
     * all. Over SW_MAX_RUNS sweep_load refused the sweep already, at the key (until 2026-11-27
     * a second check here said so without a position: it could not be reached). */
    long counted = list ? matrix_count(&b.sw) : 0;
    b.nruns = list ? 0 : matrix_expand(&b.sw, &b.runs);
    if (check_some_run(&b.sw, matrix_total(&b.sw), list ? (int)counted : b.nruns, &err) != 0) {
        am_msg("amsim: %s\n", err.msg);
        goto done;
    }
    if (list) {
        matrix_list(&b.sw, b.shard_k, b.shard_n);
        rc = 0;
        goto done;
    }
    /* DIR, its lock (one batch per folder: batch_lock), then DIR/runs, each made and tracked
     * (track_batch_out) with the stop signals blocked: an interrupt before matrix.tsv is
     * written removes what this batch made, as --merge's does (until 2026-11-28 DIR, its lock
     * file and runs/ stayed, though "partial outputs removed" was said) */
    sigset_t stop, unblocked;
    out_stop_signals(&stop);
    sigprocmask(SIG_BLOCK, &stop, &unblocked);
    if (mkdir_p_made(b.out, &made_out) != 0) {
        int e = errno;
        rmdir_made(b.out, made_out);
        sigprocmask(SIG_SETMASK, &unblocked, NULL);
        am_msg("%s: %s: cannot create: %s\n", prog, SHOW(q, b.out), strerror(e));
        goto done;
    }
    track_batch_out(b.out, made_out, 0, 0, 1);
    lock_fd = batch_lock(b.out, &made_lock, &err);
    if (lock_fd < 0) {
        rmdir_made(b.out, made_out);
        track_batch_out(b.out, made_out, 0, 0, 0);
        sigprocmask(SIG_SETMASK, &unblocked, NULL);
        am_msg("%s: %s\n", prog, err.msg);
        goto done;
    }
    if (made_out > 0 && made_lock) { /* the lock alone: DIR is tracked already */
        char *lk = xprintf("%s/" BATCH_LOCK_NAME, b.out);
        out_track_lock(lk, 1);
        free(lk);
    }
    sigprocmask(SIG_SETMASK, &unblocked, NULL);
    if (check_runs_dir(b.out, "run the study here", &err) != 0) {
        am_msg("%s: %s\n", prog, err.msg);
        unmake_batch_out(b.out, made_out, made_lock, 0);
        goto done;
    }
    char *runs = xprintf("%s/runs", b.out);
    int runs_rc = mkdir_tracked(runs, &made_runs), runs_errno = errno;
    if (runs_rc != 0) {
        am_msg("%s: %s: cannot create: %s\n", prog, SHOW(q, runs), strerror(runs_errno));
        free(runs);
        unmake_batch_out(b.out, made_out, made_lock, made_runs);
        goto done;
    }
    free(runs);
    char *mt = matrix_text(&b.sw, b.runs, b.nruns);
    char *mp = xprintf("%s/matrix.tsv", b.out);
    /* a matrix.tsv that is no regular file (a FIFO) is no study's: refused before any run,
     * where the new one written in place would wait for a reader forever (until 2026-11-27
     * batch hung there) */
    const char *what = NULL;
    FILE *mf = am_fopen_regular(mp, &what);
    if (mf)
        fclose(mf);
    if (what) {
        am_msg("%s: %s: not a regular file (%s); remove it to run the study here\n", prog,
               SHOW(q, mp), what);
        free(mt);
        free(mp);
        unmake_batch_out(b.out, made_out, made_lock, made_runs);
        goto done;
    }
    char *old = am_slurp(mp);
    if (old && strcmp(old, mt) != 0 && !b.quiet)
        say_old_matrix(b.out, mp, old, mt);
    int changed = !old || strcmp(old, mt) != 0;
    if (changed)
        remove_stale_results(b.out);
    /* matrix.tsv is the first of the batch's commits, results.csv its last
     * (out_more_commits); a stop signal from here on is the batch's (on_signal), and one that
     * comes before any run says what a stopped batch says (run_all), not that the outputs
     * were already written (until 2026-11-28) */
    out_more_commits(1);
    stop_sig = 0;
    /* what this batch made stays from here on, as the batch's own handler says ("the same
     * command again runs what is unfinished"): DIR, its lock and runs/ are untracked as that
     * handler takes over, the stop signals held off between the two */
    sigprocmask(SIG_BLOCK, &stop, NULL);
    track_batch_out(b.out, made_out, made_lock, made_runs, 0);
    batch_catch_stops();
    sigprocmask(SIG_SETMASK, &unblocked, NULL);
    int wrc = changed ? write_atomic(mp, mt, &err) : 0;
    free(old);
    free(mt);
    free(mp);
    if (wrc != 0) {
        am_msg("amsim: %s\n", err.msg);
        unmake_out(b.out, made_out, made_lock, made_runs);
        batch_restore_stops();
        if (stop_sig)
            out_die_of(stop_sig); /* the write failed, and the command was stopped besides */
        goto done;
    }
    int nskipped = 0, nran = 0;
    double t0 = now_s();
    int mine = run_all(&b, &nskipped, &nran);
    char *csv = xprintf("%s/results.csv", b.out);
    const char *dirs[1] = {b.out};
    out_more_commits(0); /* results.csv: the last */
    /* a regress check's deviations are said apart from failures (until 2026-11-27 a deviation
     * was counted as "1 failed") */
    csv_tally tally = {0};
    outfile *table = NULL;
    int missing = build_csv(dirs, 1, csv, b.shard_k, b.shard_n, &tally, NULL, NULL, &table,
                            &err);
    missing = commit_results(table, missing, &err);
    if (missing < 0)
        am_msg("amsim: %s\n", err.msg);
    else if (!b.quiet) {
        char tt[160], took[48];
        am_msg("%s: %d run%s%s: %d run now, %d finished before%s; %s (%s)\n",
               prog, mine, mine == 1 ? "" : "s", b.shard_n ? " in this shard" : "", nran,
               nskipped, tally_text(tt, sizeof tt, &tally), SHOW(q, csv),
               fmt_wall(took, sizeof took, now_s() - t0));
    }
    /* status 1 always says why, under -q too (say_problems) */
    char *how = xprintf("(status 'missing' in %s); the same command again runs %s",
                        SHOW(q, csv), missing == 1 ? "it" : "them");
    char *record = xprintf("amsim batch %s --update-expectations -o %s", SHELL(q, b.sw.file),
                           SHELL(q2, b.out));
    say_problems(&tally, missing, b.quiet, csv, how, record, 0);
    free(record);
    free(how);
    free(csv);
    /* regress: deviations give 3 unless something failed outright */
    rc = csv_status(missing, &tally); /* 1 when results.csv was not written (missing < 0) */
done:
    if (lock_fd >= 0)
        close(lock_fd); /* the folder's lock goes (batch_lock) */
    matrix_free(b.runs, b.nruns);
    sweep_free(&b.sw);
out:
    free(mdirs);
    free(out_own);
    return rc;
}

/* ---- amsim check on a sweep ------------------------------------------------------------- */

int batch_sniff_sweep(const char *path)
{
    FILE *f = fopen(am_input_name(path), "rb"); /* "-": check - reads standard input */
    if (!f)
        return 0;
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p)) /* not "no sweep": the file was not looked at */
        am_oom_exit("libyaml cannot start a parser", path);
    yaml_parser_set_input_file(&p, f);
    /* the top-level map's keys, event by event, up to its end or a parse error (a sweep
     * broken after its first keys is still one: sweep_load says where); a key of a config's
     * (a config with a misspelt key such as traces:) keeps it a config, which the config
     * loader reports */
    int depth = 0, key_next = 0, found = 0, config = 0;
    for (int done = 0; !done && !config;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            if (p.error == YAML_MEMORY_ERROR)
                am_oom_exit("libyaml", path);
            break;
        }
        switch (ev.type) {
        case YAML_MAPPING_START_EVENT:
        case YAML_SEQUENCE_START_EVENT:
            if (depth == 0 && ev.type != YAML_MAPPING_START_EVENT)
                done = 1; /* a list or a scalar at the top: no sweep */
            else if (depth == 1 && key_next)
                done = 1; /* a complex key: not a sweep's */
            else if (depth == 0)
                key_next = 1;
            else if (depth == 1)
                key_next = 1; /* a value map or list: the next key comes after its end */
            depth++;
            break;
        case YAML_MAPPING_END_EVENT:
        case YAML_SEQUENCE_END_EVENT:
            depth--;
            if (depth == 0)
                done = 1;
            break;
        case YAML_SCALAR_EVENT:
            if (depth == 1 && key_next) {
                found |= cfg_is_sweep_key((const char *)ev.data.scalar.value);
                config |= cfg_is_config_only_key((const char *)ev.data.scalar.value);
            }
            if (depth == 1)
                key_next = !key_next;
            break;
        case YAML_ALIAS_EVENT:
            if (depth == 1)
                key_next = !key_next;
            break;
        case YAML_STREAM_END_EVENT:
            done = 1;
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    fclose(f);
    return found && !config;
}

/* check SWEEP: every trace file some run reads (not every run's trace may survive the
 * exclusions), each read once to its end as `amsim check -c BASE TRACE` reads it: against the
 * base config with set: (its levels, default level, trace.time_unit and trace.lifetimes), the
 * sweep's device:, with run's rules on ids and events. Streamed, never simulated, so memory
 * and time stay bounded by the trace's live buffers. A trace the runs could not read is
 * refused with its own FILE:LINE:COL error, noted with the traces: item that names it. The
 * axes are not applied: a trace is read against the levels of the base config. Generated
 * traces (generate:) are not files and are left to the runs. Until 2026-11-27 check only
 * digested the traces' bytes, so a sweep whose every run failed on its trace was "ok". */
static int sweep_check_traces(const sweep *s, am_error *err)
{
    if (!s->traces.n)
        return 0;
    char *used = am_calloc((size_t)s->traces.n, 1);
    long total = matrix_total(s);
    for (long i = 0; i < total; i++) {
        sw_run r = matrix_at(s, i);
        if (r.trace >= 0 && !excluded(s, &r))
            used[r.trace] = 1;
    }
    cfg_set v[SW_MAX_SETS];
    int n = sweep_sets(s, v), rc = 0;
    am_config *cfg = NULL;
    /* with policies:, the config as it is, without the rules of the policy it names (as
     * load_as_runs); a policy changes no level and no trace setting */
    if ((s->policies.n ? cfg_load_sets_switched(&cfg, s->base, v, n, NULL, NULL, err)
                       : cfg_load_sets(&cfg, s->base, v, n, err)) != 0) {
        free(used);
        return -1;
    }
    run_spec as_run = {.device = s->device};
    for (int i = 0; i < s->traces.n && rc == 0; i++) {
        if (!used[i])
            continue;
        const char *names[CFG_MAX_LEVELS];
        trace_opts to = run_trace_opts(&as_run, cfg, names);
        trace *t = NULL;
        uint64_t events = 0, skipped = 0;
        rc = trace_open(&t, s->traces.v[i], &to, err);
        if (rc == 0)
            rc = convert_check_trace(t, cfg, s->traces.v[i], -1, &events, &skipped, err);
        trace_close(t);
        if (rc != 0)
            err_note(err, "named by the traces: item at %s:%lu:%lu", s->file, s->trace_pos[i].line,
                     s->trace_pos[i].col);
    }
    cfg_free(cfg);
    free(used);
    return rc ? -1 : 0;
}

int batch_check_sweep(const char *file, long *nruns, am_error *err)
{
    sweep s;
    int rc = -1;
    if (sweep_load(&s, file, err) != 0) {
        sweep_free(&s);
        return -1;
    }
    if (sweep_digest(&s, 0, err) != 0)
        goto out;
    /* counted, not planned: check needs the number only (until 2026-11-27 it planned every
     * run, about 590 bytes each) */
    long n = matrix_count(&s); /* at most SW_MAX_RUNS: sweep_load refused more */
    if (check_some_run(&s, matrix_total(&s), (int)n, err) != 0 || sweep_check_traces(&s, err) != 0)
        goto out;
    *nruns = n;
    rc = 0;
out:
    sweep_free(&s);
    return rc;
}
