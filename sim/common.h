/* common.h - shared basics: simulated time, error reporting, checked host allocation.
 *
 * Every module returns a status and, on failure, leaves a ready-to-print message in an
 * am_error. Input problems carry "FILE:LINE:COLUMN: message" (status AM_EINPUT, exit 1);
 * problems of amsim itself are AM_EINTERNAL (exit 2). A simulated out-of-memory is never an
 * error: it is a result that the report counts. */
#ifndef AM_COMMON_H
#define AM_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define AM_VERSION "0.1.0"

/* Simulated time is an integer count of picoseconds (2^64 ps is about 213 days). */
typedef uint64_t am_ps;
/* A total that can pass 2^64 (bytes or picoseconds summed over many events: a link's bytes and
 * transfer times, spill and defragmentation bytes). Such totals are kept in 128 bits and
 * printed exactly (units_fmt_u128, json_ku128): 2^64 events of 2^64 units each fit, so no
 * total is cut. */
__extension__ typedef unsigned __int128 am_u128;
__extension__ typedef __int128 am_i128;
#define AM_PS_PER_NS 1000ULL
#define AM_PS_PER_US 1000000ULL
#define AM_PS_PER_MS 1000000000ULL
#define AM_PS_PER_S  1000000000000ULL
#define AM_TIME_NONE UINT64_MAX /* "no timestamp" */
/* The latest time a simulation may reach: sums of times saturate here (am_ps_add), and the
 * engine stops with an input error when a clock gets to it (about 213 days). */
#define AM_PS_MAX (AM_TIME_NONE - 1)
static inline am_ps am_ps_add(am_ps a, am_ps b) { return b >= AM_PS_MAX - a ? AM_PS_MAX : a + b; }
/* The largest memory capacity, granularity and allocation request amsim models: 4 EiB. Every
 * size and address a policy computes from such values (rounded up, added, doubled) stays below
 * 2^64; a larger request is out of memory before any policy sees it (memory.c). */
#define AM_MAX_BYTES (1ULL << 62)
/* The highest device number --device takes, and a snapshot segment may name (cli_device). */
#define AM_MAX_DEVICE 1024

enum { AM_OK = 0, AM_EINPUT = 1, AM_EINTERNAL = 2, AM_EOOMFAIL = 3 };

typedef struct am_error {
    int status;      /* AM_EINPUT or AM_EINTERNAL once set; AM_OK while clean */
    char msg[1024];  /* complete message, no trailing newline */
    /* The configuration keys an input error is about, most likely first, comma-separated
     * ("pool_granularity,alignment"; static text), or NULL: a policy's create() sets them
     * (am_fail_opt) so that the engine can point at the value the user wrote, in the YAML or
     * in a --set. Every am_fail and am_fail_at clears it. */
    const char *opts;
    /* The same keys, kept when the error is placed at the user's setting (which clears opts),
     * or NULL: what a caller classifies a refusal by, whatever line the message names
     * (mincap: a rule comparing an option with the capacity, "granularity,capacity", refuses
     * a capacity too small, a value that fails). Set with opts; am_fail_at clears it, and
     * the config and the engine set it again once they have placed the error. */
    const char *keys;
    /* The 1-based item of the list option `opts` names that breaks the rule, or 0 (the whole
     * value): set with opts by am_fail_opt_item, cleared with them, so that the config can
     * point at the item (a roundup_power2_divisions value that is no power of two). */
    size_t item;
} am_error;

/* Set *e (if non-NULL) and return -1. */
int am_fail(am_error *e, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* am_fail for a message of several lines: the newlines and tabs it holds are kept (am_fail
 * escapes them, so that a quoted name cannot split a message), so every name it quotes must
 * be escaped by the caller (am_escape_name). */
int am_fail_lines(am_error *e, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* An input error (AM_EINPUT) about the option keys `opts` (see am_error.opts). */
int am_fail_opt(am_error *e, const char *opts, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* am_fail_opt about item `item` (1-based) of the list option `opts` (see am_error.item). */
int am_fail_opt_item(am_error *e, const char *opts, size_t item, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* 1 when the comma-separated key list `keys` (am_error.keys) names `key`; 0 for NULL keys. */
int am_keys_name(const char *keys, const char *key);
/* 0 when v is a power of two from 1 byte to max; else am_fail_opt naming `key`: "KEY of V bytes
 * is not a power of two from 1 byte to MAX_TEXT" (the policies' alignment rules). */
int am_check_pow2(am_error *e, const char *key, uint64_t v, uint64_t max, const char *max_text);
/* The greatest common divisor of a and b (a when b is 0). */
uint64_t am_gcd_u64(uint64_t a, uint64_t b);
/* A position as messages name it, ":LINE:COL" into out (cap bytes), or ":LINE" when col is 0
 * (a binary trace's record, a line-only reader's line): the form am_fail_at gives. */
void am_fmt_pos(char *out, size_t cap, unsigned long line, unsigned long col);
/* Input error at a position: "file:line:col: message" (col 0 prints "file:line: message"). */
/* The C1 control character (U+0080..U+009F, UTF-8 C2 80..C2 9F; U+009B is a terminal's CSI)
 * the len bytes at p start with, or -1 when they start with none: the check every reader makes
 * of text it refuses control characters in, as it does C0 ones. */
int am_c1_at(const unsigned char *p, size_t len);
/* The length (1 to 4) of the well-formed UTF-8 character NUL-terminated p starts with, 0 when
 * its bytes are none (a stray continuation byte, a cut or overlong sequence, a surrogate, past
 * U+10FFFF; RFC 3629): how outputs that declare UTF-8 (JSON, report.html) find the bytes to
 * escape. */
int am_utf8_len(const unsigned char *p);
/* The offset of the first byte of s that starts no well-formed UTF-8 character (am_utf8_len),
 * or -1 when there is none. */
long am_utf8_bad_at(const char *s);
/* s copied (malloc'd) with each byte that starts no well-formed UTF-8 character as the text
 * \xHH, the rest as is: how a text echoed as given stays UTF-8. */
char *am_utf8_escape_dup(const char *s);
/* src into out (cap bytes, cut there), its control bytes (below 0x20 but tab and newline, and
 * 0x7f) written \xHH, and C1 controls (UTF-8 C2 80..C2 9F) as \xc2\xHH; every am_fail*
 * message is passed through it. */
void am_escape_controls(char *out, size_t cap, const char *src);
/* A name quoted in a message (a policy, a level, a column, a group): src into out as
 * am_escape_controls does, tab and newline escaped too (a name holds neither, and the message
 * stays one line); returns out. */
const char *am_escape_name(char *out, size_t cap, const char *src);
/* src as a text table or header prints a path or a value the user gave (a trace, a config, a
 * results.csv cell or column), malloc'd (freed by the caller): escaped as am_escape_name does, so
 * a raw ESC or C1 CSI never reaches the terminal, as in check's and every message's echo. */
char *am_escape_dup(const char *src);
/* Escaped text s (as am_escape_controls or am_escape_name write it) longer than max bytes
 * (max > 3) cut to its start and "...", at most max bytes in all, splitting neither a UTF-8
 * character nor an escape (a C1 control's "\xc2\xHH" is one): how a message echoes a long
 * value or --set by its start. */
void am_shorten_echo(char *s, size_t max);
/* The first len bytes of src (no NUL among them) as a message echoes a value: escaped as
 * am_escape_name does, then am_shorten_echo(max), into out (cap > max bytes); returns out. */
const char *am_echo(char *out, size_t cap, const char *src, size_t len, size_t max);
/* The message always carries FILE:LINE:COL and its end (the reason): one too long for
 * am_error.msg loses its middle, a path of more than 240 bytes its middle first (common.c). */
int am_fail_at(am_error *e, const char *file, unsigned long line, unsigned long col,
               const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* am_fail_at with a va_list, for wrappers that place a message of any length. */
int am_vfail_at(am_error *e, const char *file, unsigned long line, unsigned long col,
                const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

/* The progress line a command shows on a terminal's standard error (no newline: each update
 * rewrites it). Every other message on standard error while it may show goes through am_msg,
 * which clears it first, as the signal handler does (am_progress_shown): until 2026-11-27 an
 * error, a warning or "interrupted" was glued to it ("amsim: 1048576 eventsamsim: ..."). */
void am_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Clear the progress line if one shows (nothing otherwise). */
void am_progress_clear(void);
/* 1 while a progress line shows (for the signal handler: it writes "\r\033[K" then). */
int am_progress_shown(void);
/* A message on standard error, after clearing the progress line; its control bytes (but tab
 * and newline) written \xHH as in am_fail messages. */
void am_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* From now on, also write each am_msg message and the host-out-of-memory exits' message to fd
 * (-1: no more): a batch worker keeps them for the reason of a run that ends with no result. */
void am_msg_copy_to(int fd);

/* Host memory ran out in a library (libyaml cannot start a parser or parse for lack of it):
 * "amsim: host out of memory (WHAT for FILE)" (FILE may be NULL) and exit with status 2, as
 * am_malloc does. Until 2026-11-27 libyaml's failures were input errors in most commands
 * (status 1, "FILE: cannot initialise libyaml") and an internal one in run. */
void am_oom_exit(const char *what, const char *file) __attribute__((noreturn));

/* Host allocation that never returns NULL: on failure prints and exits with status 2. */
void *am_malloc(size_t n);
void *am_calloc(size_t n, size_t size);
void *am_realloc(void *p, size_t n);
/* A 64-bit key mixed for a hash table's home position (the first half of MurmurHash3's
 * finaliser: two xor-shifts around one multiply), for the id tables of the engine, the
 * pre-pass and the lifetime CSV reader. */
static inline uint64_t am_hash_u64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return k;
}

/* A 64-bit key with a value, as am_sort_kv sorts them. */
typedef struct am_kv {
    uint64_t key, val;
} am_kv;
/* Sort n pairs by key, stably, tmp holding as many: a least-significant-digit radix sort over
 * only the bits in which the keys differ (from the lowest such bit to the highest), in as few
 * passes of at most max_bits (1 to 11) as cover them. Equal keys keep their order in v. */
void am_sort_kv(am_kv *v, am_kv *tmp, size_t n, int max_bits);
/* A block for a large table of small records (n bytes, freed with free()). From 2 MiB up it is
 * aligned to 2 MiB and the kernel is asked to back it with huge pages (Linux transparent huge
 * pages, "madvise" mode): records reached at random over hundreds of megabytes then cost one
 * TLB entry per 2 MiB instead of per 4 KiB. Smaller blocks are plain malloc. */
#define AM_HUGE_BLOCK ((size_t)2 << 20)
void *am_malloc_large(size_t n);
/* am_malloc on a 64-byte cache line (am_malloc_large from AM_HUGE_BLOCK bytes up). */
void *am_malloc_lines(size_t n);
char *am_strdup(const char *s);
char *am_strndup(const char *s, size_t n);

/* A whole file as a NUL-terminated string (NULL when it cannot be opened or is no regular
 * file: am_fopen_regular); caller frees. */
char *am_slurp(const char *path);
/* A whole text file into *text (NUL-terminated; caller frees) and *len (when not NULL): 0; -1
 * when it cannot be opened (errno says why, err untouched); -2 with err when it is no regular
 * file ("FILE: not a regular file (a FIFO)", refused before any read: am_fopen_regular) or
 * does not read whole: a read error ("FILE: read error: REASON", AM_EINTERNAL when host memory
 * ran out) or a NUL byte (FILE:LINE:COL), which am_slurp's string would silently end at. */
int am_slurp_text(const char *path, char **text, size_t *len, am_error *err);

/* path opened for reading if it is a regular file ("rb"), or NULL with errno set (ENOENT: no
 * such file) or, for something that is no regular file, with *what naming what it is ("a
 * directory", "a FIFO", "a device or a socket"; NULL otherwise). Opened without blocking and
 * refused by its type before any read: a FIFO there would block the open (or the first read)
 * until a writer came, forever; a directory would read as an error. */
FILE *am_fopen_regular(const char *path, const char **what);

/* The longest line an expectation file or a results table may hold (bytes, its newline
 * left out), and the most an expectation file may hold in all (a config's 64 MiB): a stream
 * that never ends a line (`--expect - < /dev/zero`) is refused once past the limit instead of
 * growing without bound (until 2026-11-27 getline took it all, gigabytes). */
#define AM_TEXT_LINE_MAX (1u << 20)
#define AM_EXPECT_FILE_MAX (64u << 20)

/* getline(3) with a bound: the next line of f into *line (realloc'd; *cap its size), at most
 * max bytes before its newline. Returns the bytes read (the newline included, NUL-terminated;
 * NUL bytes inside are kept), -1 at the end of the file or on a read error (ferror), or -2
 * when the line goes on past max bytes: *line then holds its first max bytes, and the rest of
 * the line is left unread. */
long am_getline_max(char **line, size_t *cap, FILE *f, size_t max);

/* The name to open an input named path by: "-" is standard input (README: an input `-` is the
 * file on standard input), reopened through /dev/stdin so that a reader that rewinds or opens
 * it again (a trace's start is read twice) reads that file from its start, while messages keep
 * naming it "-"; any other path is itself. Until 2026-11-27 only --expect read standard input:
 * `-t -`, `check -`, `stats -` and `convert -` opened a file named '-' in the current folder. */
const char *am_input_name(const char *path);

/* Whether path names the process's standard input: '-', one of the system's names for its
 * descriptor 0 (/dev/stdin, /dev/fd/0, /proc/self/fd/0), or any path to the pipe, socket or
 * terminal behind it (/proc/PID/fd/0, a link to /dev/stdin: each is read once whichever name
 * opens it). A regular file behind descriptor 0 is not: opened by a name it reads from its
 * start again, and its folder is its own. May stat path. */
int am_names_stdin(const char *path);
/* The folder against which the relative paths written inside input path (a sweep's base:,
 * traces: and expectations:, a config's device presets) are resolved, malloc'd: path's
 * directory part, "/" for a file at the root, and "" (the current folder) when path has no
 * folder, names standard input (am_names_stdin), whichever name it is given by, or is a
 * descriptor's (/dev/fd/N, /proc/PID/fd/N: a shell's <(...), a file on descriptor 0). Until
 * 2026-11-28 `batch /dev/stdin < SW.yaml` resolved them against /dev, while `batch -` used the
 * current folder: "/dev/stdin:1:7: base: cannot open 'base.yaml'". */
char *am_input_dir(const char *path);

/* dir/name into dst (cap n): the slashes that end dir are not doubled ("out1/" and "out1" both
 * give "out1/report.html"; "/" gives "/report.html"). The return is snprintf's. */
int am_path_join(char *dst, size_t n, const char *dir, const char *name);
/* am_path_join into a malloc'd string, whatever dir's length (freed by the caller): `-o ro/`
 * names ro/summary.json in messages (until 2026-11-28 ro//summary.json), and a report's long
 * DIR is not cut (until 2026-11-28 at 1024 bytes: it read DIR/results.cs and wrote
 * DIR/report.htm, status 0). */
char *am_path_join_dup(const char *dir, const char *name);
/* A copy of folder path dir (malloc'd) without the slashes that end it ("out1/" gives "out1";
 * "/" stays "/"), so that every path made from it has single slashes (until 2026-11-28 `batch
 * SWEEP -o st/` said `st//results.csv`). */
char *am_dir_trim(const char *dir);

/* A growable list of owned strings; {0} is empty. */
typedef struct strlist {
    char **v;
    int n, cap;
} strlist;
/* Append s (the list takes it). */
void sl_push(strlist *l, char *s);
/* Free every string and the list; it is empty again. */
void sl_free(strlist *l);

#define AM_MIN(a, b) ((a) < (b) ? (a) : (b))
#define AM_MAX(a, b) ((a) > (b) ? (a) : (b))
#define AM_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* The per-event path: small helpers the compiler must inline (its size limits otherwise leave
 * a call, with its register saves, per number formatted or slot filled), and rare cases kept
 * out of line. GCC and Clang spell these the same. */
#define AM_ALWAYS_INLINE static inline __attribute__((always_inline))
#define AM_NOINLINE __attribute__((noinline))

static inline uint64_t am_round_up(uint64_t n, uint64_t k) { return (n + k - 1) / k * k; }
/* n rounded up to a multiple of k (k > 0), UINT64_MAX when that passes 2^64 - 1 (am_round_up
 * wraps there: a granularity near 2^64 from a config). */
static inline uint64_t am_round_up_sat(uint64_t n, uint64_t k)
{
    uint64_t r = n % k;
    return r == 0 ? n : k - r > UINT64_MAX - n ? UINT64_MAX : n + (k - r);
}
static inline uint64_t am_round_down(uint64_t n, uint64_t k) { return n / k * k; }
/* The end of [addr, addr + size), UINT64_MAX when that passes 2^64 - 1 (a recorded segment may
 * end at 2^64 or, from a trace, past it). */
static inline uint64_t am_end_sat(uint64_t addr, uint64_t size)
{
    return size > UINT64_MAX - addr ? UINT64_MAX : addr + size;
}
/* In a[0..n) sorted ascending: the first index whose value is >= k (lower), or > k (upper);
 * n when there is none. */
static inline size_t am_lower_bound_u64(const uint64_t *a, size_t n, uint64_t k)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid] < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
static inline size_t am_upper_bound_u64(const uint64_t *a, size_t n, uint64_t k)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid] <= k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

#endif
