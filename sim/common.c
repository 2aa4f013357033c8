/* common.c - error formatting and checked host allocation (see common.h). */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int am_c1_at(const unsigned char *p, size_t len)
{
    return len >= 2 && p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f ? p[1] : -1;
}

int am_utf8_len(const unsigned char *p)
{
    if (p[0] < 0x80)
        return 1;
    /* the lead byte's length and the range its first continuation byte must be in, which
     * rules out overlong forms, surrogates and code points past U+10FFFF (RFC 3629 table) */
    int n;
    unsigned char lo = 0x80, hi = 0xbf;
    if (p[0] >= 0xc2 && p[0] <= 0xdf)
        n = 2;
    else if (p[0] >= 0xe0 && p[0] <= 0xef) {
        n = 3;
        if (p[0] == 0xe0)
            lo = 0xa0;
        else if (p[0] == 0xed)
            hi = 0x9f;
    } else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
        n = 4;
        if (p[0] == 0xf0)
            lo = 0x90;
        else if (p[0] == 0xf4)
            hi = 0x8f;
    } else
        return 0;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (int i = 2; i < n; i++) /* a NUL ends the check: it is no continuation byte */
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

long am_utf8_bad_at(const char *s)
{
    for (const char *p = s; *p;) {
        int n = am_utf8_len((const unsigned char *)p);
        if (!n)
            return (long)(p - s);
        p += n;
    }
    return -1;
}

char *am_utf8_escape_dup(const char *s)
{
    char *out = am_malloc(4 * strlen(s) + 1), *o = out;
    for (const unsigned char *u = (const unsigned char *)s; *u;) {
        int n = am_utf8_len(u);
        if (n == 0) {
            o += sprintf(o, "\\x%02x", *u++);
            continue;
        }
        memcpy(o, u, (size_t)n);
        o += n;
        u += n;
    }
    *o = 0;
    return out;
}

/* am_escape_controls, and with keep_tab_nl 0 am_escape_name: tab and newline escaped too. */
static void escape_bytes(char *out, size_t cap, const char *src, int keep_tab_nl)
{
    size_t o = 0;
    if (!cap)
        return;
    for (const unsigned char *p = (const unsigned char *)src; *p && o + 1 < cap; p++) {
        /* C1 controls (U+0080..U+009F, UTF-8 C2 80..C2 9F: U+009B is a terminal's CSI) are
         * escaped byte by byte too, "\xc2\x9b"; until 2026-11-27 they were echoed raw */
        if (am_c1_at(p, 2) >= 0) { /* *p is no NUL, so p[1] is there (at worst the NUL) */
            if (o + 9 > cap)
                break;
            o += (size_t)snprintf(out + o, cap - o, "\\x%02x\\x%02x", p[0], p[1]);
            p++;
        } else if ((*p < 0x20 && !(keep_tab_nl && (*p == '\n' || *p == '\t'))) || *p == 0x7f) {
            if (o + 5 > cap)
                break;
            o += (size_t)snprintf(out + o, cap - o, "\\x%02x", *p);
        } else
            out[o++] = (char)*p;
    }
    out[o] = 0;
}

void am_escape_controls(char *out, size_t cap, const char *src) { escape_bytes(out, cap, src, 1); }

const char *am_escape_name(char *out, size_t cap, const char *src)
{
    escape_bytes(out, cap, src, 0);
    return out;
}

/* A message is cut in its middle when it does not fit am_error.msg: its first AM_HEAD_SHOWN
 * bytes, "...", and as much of its end as fits, so that the reason (which ends a message) and the
 * closing quote of a long value echoed before it survive; a path longer than AM_PATH_SHOWN bytes
 * keeps its first AM_PATH_HEAD and its end (the file's name) when the message would not fit
 * whole. Until 2026-11-27 the end was cut off ("bad size '1111..." with no reason), and a path of
 * about 1010 characters dropped FILE:LINE:COL altogether. */
#define AM_HEAD_SHOWN 117
#define AM_PATH_SHOWN 240
#define AM_PATH_HEAD 60

/* fmt and ap formatted into a new string (freed by the caller). */
__attribute__((format(printf, 1, 0)))
static char *format_v(const char *fmt, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n < 0)
        n = 0;
    char *s = am_malloc((size_t)n + 1);
    s[0] = 0;
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

/* src with its control bytes escaped, tab and newline too unless keep_lines (am_escape_name:
 * am_fail's messages are formatted with neither, so one can only come from a quoted name, and
 * a file name with a newline would split the message; until 2026-11-27 both were kept raw),
 * whole: an escape takes at most four bytes per byte it replaces. Freed by the caller. */
static char *escaped_copy(const char *src, int keep_lines)
{
    size_t cap = 4 * strlen(src) + 1;
    char *out = am_malloc(cap);
    escape_bytes(out, cap, src, keep_lines);
    return out;
}

char *am_escape_dup(const char *src) { return escaped_copy(src, 0); }

static int utf8_continuation(char c) { return ((unsigned char)c & 0xc0) == 0x80; }

/* Whether s holds an escape "\xHH" (as escape_bytes writes one) at k. */
static int escape_at(const char *s, size_t n, size_t k)
{
    return k + 4 <= n && s[k] == '\\' && s[k + 1] == 'x';
}

/* The escape of escaped text s (n bytes) that byte offset i falls strictly inside, as [*start,
 * *end): a "\xHH", or a C1 control's pair "\xc2\xHH" (one character: i between its two halves
 * is inside it too); 0 when i is at no escape's inside. */
static int escape_around(const char *s, size_t n, size_t i, size_t *start, size_t *end)
{
    size_t k = i, found = 0;
    for (size_t back = 1; back <= 3 && back <= i; back++)
        if (escape_at(s, n, i - back)) {
            k = i - back;
            found = 1;
            break;
        }
    size_t b = k, e = found ? k + 4 : k;
    /* the pair's first half, or its second half with i at or inside it */
    if (escape_at(s, n, b) && b >= 4 && escape_at(s, n, b - 4) && strncmp(s + b - 4, "\\xc2", 4) == 0)
        b -= 4, e = b + 8, found = 1;
    else if (found && strncmp(s + k, "\\xc2", 4) == 0 && escape_at(s, n, k + 4))
        e = k + 8;
    if (!found || b == i)
        return 0;
    *start = b;
    *end = e;
    return 1;
}

/* The last offset at or before i where escaped text s (n bytes) can be cut: not inside a UTF-8
 * character nor an escape. */
static size_t cut_back(const char *s, size_t n, size_t i)
{
    size_t b, e;
    while (i > 0 && utf8_continuation(s[i]))
        i--;
    return escape_around(s, n, i, &b, &e) ? b : i;
}

/* s cut to at most max bytes (max > head + 3) by replacing its middle with "...": at most its
 * first head bytes and the rest of the room from its end, neither splitting a UTF-8 character
 * nor an escape (s is escaped: a path with newlines is "\x0a" each; until 2026-11-27 the cut
 * could fall inside one, "\x...a"). */
static void cut_middle(char *s, size_t max, size_t head)
{
    size_t n = strlen(s), b, e;
    if (n <= max)
        return;
    size_t h = cut_back(s, n, head);
    size_t t = n - (max - h - 3);
    while (t < n && utf8_continuation(s[t]))
        t++;
    if (escape_around(s, n, t, &b, &e))
        t = e;
    memcpy(s + h, "...", 3);
    memmove(s + h + 3, s + t, n - t + 1);
}

void am_shorten_echo(char *s, size_t max)
{
    size_t n = strlen(s);
    if (n <= max)
        return;
    memcpy(s + cut_back(s, n, max - 3), "...", 4);
}

const char *am_echo(char *out, size_t cap, const char *src, size_t len, size_t max)
{
    char *raw = am_strndup(src, len), *esc = escaped_copy(raw, 0);
    am_shorten_echo(esc, max);
    snprintf(out, cap, "%s", esc);
    free(esc);
    free(raw);
    return out;
}

/* The message of *e: prefix (an escaped path, or NULL) and body (escaped), the path then the
 * body cut in the middle when both do not fit. */
static void set_msg(am_error *e, char *path, const char *pos, char *body)
{
    size_t room = sizeof e->msg - 1, pl = path ? strlen(path) : 0, ql = strlen(pos);
    if (pl + ql + strlen(body) > room) {
        if (path && pl > AM_PATH_SHOWN)
            cut_middle(path, AM_PATH_SHOWN, AM_PATH_HEAD);
        pl = path ? strlen(path) : 0;
        cut_middle(body, room - pl - ql, AM_HEAD_SHOWN);
    }
    snprintf(e->msg, sizeof e->msg, "%s%s%s", path ? path : "", pos, body);
}

/* A message quotes what the user wrote (a --set, a key, a name): its control bytes are escaped,
 * so a raw escape or backspace never reaches the terminal (until 2026-11-27 they were echoed). */
__attribute__((format(printf, 5, 0)))
static void fail_v(am_error *e, int status, const char *opts, int keep_lines, const char *fmt,
                   va_list ap)
{
    char *raw = format_v(fmt, ap), *body = escaped_copy(raw, keep_lines);
    set_msg(e, NULL, "", body);
    free(body);
    free(raw);
    e->status = status;
    e->opts = opts;
    e->keys = opts;
    e->item = 0;
}

int am_fail(am_error *e, int status, const char *fmt, ...)
{
    if (!e)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    fail_v(e, status, NULL, 0, fmt, ap);
    va_end(ap);
    return -1;
}

int am_fail_lines(am_error *e, int status, const char *fmt, ...)
{
    if (!e)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    fail_v(e, status, NULL, 1, fmt, ap);
    va_end(ap);
    return -1;
}

int am_fail_opt(am_error *e, const char *opts, const char *fmt, ...)
{
    if (!e)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    fail_v(e, AM_EINPUT, opts, 0, fmt, ap);
    va_end(ap);
    return -1;
}

int am_fail_opt_item(am_error *e, const char *opts, size_t item, const char *fmt, ...)
{
    if (!e)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    fail_v(e, AM_EINPUT, opts, 0, fmt, ap);
    va_end(ap);
    e->item = item;
    return -1;
}

uint64_t am_gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int am_check_pow2(am_error *e, const char *key, uint64_t v, uint64_t max, const char *max_text)
{
    if (v != 0 && (v & (v - 1)) == 0 && v <= max)
        return 0;
    return am_fail_opt(e, key, "%s of %" PRIu64 " bytes is not a power of two from 1 byte to %s",
                       key, v, max_text);
}

void am_fmt_pos(char *out, size_t cap, unsigned long line, unsigned long col)
{
    if (col)
        snprintf(out, cap, ":%lu:%lu", line, col);
    else
        snprintf(out, cap, ":%lu", line);
}

int am_vfail_at(am_error *e, const char *file, unsigned long line, unsigned long col,
                const char *fmt, va_list ap)
{
    if (!e)
        return -1;
    char pos[64];
    am_fmt_pos(pos, sizeof pos - 2, line, col);
    strcat(pos, ": ");
    char *raw = format_v(fmt, ap), *body = escaped_copy(raw, 0);
    char *path = escaped_copy(file ? file : "", 0);
    set_msg(e, path, pos, body);
    free(path);
    free(body);
    free(raw);
    e->status = AM_EINPUT;
    e->opts = NULL;
    e->keys = NULL;
    e->item = 0;
    return -1;
}

int am_fail_at(am_error *e, const char *file, unsigned long line, unsigned long col,
               const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    am_vfail_at(e, file, line, col, fmt, ap);
    va_end(ap);
    return -1;
}

int am_keys_name(const char *keys, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = keys; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, key, n) == 0)
            return 1;
        p = end ? end + 1 : NULL;
    }
    return 0;
}

/* A copy of each message to standard error, for a batch worker (am_msg_copy_to). */
static int msg_copy_fd = -1;

void am_msg_copy_to(int fd) { msg_copy_fd = fd; }

/* text (n bytes) to the copy's descriptor too: write(2), so that it works when host memory
 * has run out (the reason it is most wanted) */
static void msg_copy(const char *text, size_t n)
{
    if (msg_copy_fd >= 0 && write(msg_copy_fd, text, n) < 0) {
        /* the copy is a courtesy: the message went to standard error */
    }
}

static void oom_exit(size_t n)
{
    char line[128];
    int len = snprintf(line, sizeof line, "amsim: host out of memory (asked for %zu bytes)\n", n);
    fputs(line, stderr);
    msg_copy(line, (size_t)len);
    exit(AM_EINTERNAL);
}

void am_oom_exit(const char *what, const char *file)
{
    char *shown = escaped_copy(file ? file : "", 0), line[1024];
    int len = snprintf(line, sizeof line, "amsim: host out of memory (%s%s%s)\n", what,
                       file ? " for " : "", shown);
    fputs(line, stderr);
    msg_copy(line, len < (int)sizeof line ? (size_t)len : sizeof line - 1);
    free(shown);
    exit(AM_EINTERNAL);
}

void *am_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom_exit(n);
    return p;
}

void *am_calloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom_exit(n * size);
    return p;
}

void *am_malloc_lines(size_t n)
{
    if (n >= AM_HUGE_BLOCK)
        return am_malloc_large(n);
    void *p = NULL;
    if (posix_memalign(&p, 64, n) != 0)
        oom_exit(n);
    return p;
}

void *am_malloc_large(size_t n)
{
    if (n < AM_HUGE_BLOCK)
        return am_malloc(n);
    void *p = NULL;
    if (posix_memalign(&p, AM_HUGE_BLOCK, n) != 0)
        oom_exit(n);
#ifdef MADV_HUGEPAGE
    /* advice only: where huge pages are off or exhausted the block stays in small pages */
    (void)madvise(p, n & ~(AM_HUGE_BLOCK - 1), MADV_HUGEPAGE);
#endif
    return p;
}

void *am_realloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom_exit(n);
    return q;
}

void am_sort_kv(am_kv *v, am_kv *tmp, size_t n, int max_bits)
{
    if (n < 2)
        return;
    uint64_t diff = 0;
    for (size_t i = 1; i < n; i++)
        diff |= v[i].key ^ v[0].key;
    if (!diff)
        return;
    if (max_bits < 1 || max_bits > 11) /* the count table's size */
        max_bits = 11;
    int lo = __builtin_ctzll(diff), hi = 64 - __builtin_clzll(diff);
    int passes = (hi - lo + max_bits - 1) / max_bits, w = (hi - lo + passes - 1) / passes;
    uint64_t mask = (1ULL << w) - 1;
    size_t count[1 << 11];
    am_kv *src = v, *dst = tmp;
    for (int shift = lo; shift < hi; shift += w) {
        memset(count, 0, ((size_t)1 << w) * sizeof count[0]);
        for (size_t i = 0; i < n; i++)
            count[(src[i].key >> shift) & mask]++;
        size_t at = 0;
        for (size_t d = 0; d <= mask; d++) {
            size_t c = count[d];
            count[d] = at;
            at += c;
        }
        for (size_t i = 0; i < n; i++)
            dst[count[(src[i].key >> shift) & mask]++] = src[i];
        am_kv *t = src;
        src = dst;
        dst = t;
    }
    if (src != v)
        memcpy(v, src, n * sizeof *v);
}

char *am_strndup(const char *s, size_t n)
{
    char *d = am_malloc(n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

char *am_strdup(const char *s) { return am_strndup(s, strlen(s)); }

int am_path_join(char *dst, size_t n, const char *dir, const char *name)
{
    size_t l = strlen(dir);
    while (l > 1 && dir[l - 1] == '/')
        l--;
    if (l > 65536) /* no path is that long; keeps the int of %.*s in range */
        l = 65536;
    if (!l) /* no folder: the name alone */
        return snprintf(dst, n, "%s", name);
    return snprintf(dst, n, "%.*s%s%s", (int)l, dir, dir[l - 1] == '/' ? "" : "/", name);
}

char *am_path_join_dup(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = am_malloc(n);
    am_path_join(p, n, dir, name);
    return p;
}

char *am_dir_trim(const char *dir)
{
    char *d = am_strdup(dir);
    size_t l = strlen(d);
    while (l > 1 && d[l - 1] == '/')
        d[--l] = 0;
    return d;
}

long am_getline_max(char **line, size_t *cap, FILE *f, size_t max)
{
    size_t n = 0;
    int c;
    /* byte by byte (getc_unlocked: no lock per byte), so a line is never read past max + 1
     * bytes; getline would hold a line of any length in memory first */
    while ((c = getc_unlocked(f)) != EOF) {
        if (n + 2 > *cap) {
            *cap = *cap < 128 ? 128 : *cap * 2;
            *line = am_realloc(*line, *cap);
        }
        if (c != '\n' && n == max) {
            ungetc(c, f);
            (*line)[n] = 0;
            return -2;
        }
        (*line)[n++] = (char)c;
        if (c == '\n')
            break;
    }
    if (n == 0)
        return -1;
    (*line)[n] = 0;
    return (long)n;
}

const char *am_input_name(const char *path)
{
    return strcmp(path, "-") == 0 ? "/dev/stdin" : path;
}

int am_names_stdin(const char *path)
{
    if (!strcmp(path, "-") || !strcmp(path, "/dev/stdin") || !strcmp(path, "/dev/fd/0") ||
        !strcmp(path, "/proc/self/fd/0"))
        return 1;
    struct stat in, at;
    return fstat(0, &in) == 0 && (S_ISFIFO(in.st_mode) || S_ISSOCK(in.st_mode) || isatty(0)) &&
           stat(path, &at) == 0 && at.st_dev == in.st_dev && at.st_ino == in.st_ino;
}

/* Whether the n bytes at dir name a folder of descriptors (/dev/fd, /proc/self/fd,
 * /proc/thread-self/fd, /proc/PID/fd): a file there is some descriptor's (a shell's <(...) is
 * /dev/fd/63), never one beside the inputs it names. */
static int fd_folder(const char *dir, size_t n)
{
    static const char *const fixed[] = {"/dev/fd", "/proc/self/fd", "/proc/thread-self/fd"};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        if (n == strlen(fixed[i]) && memcmp(dir, fixed[i], n) == 0)
            return 1;
    if (n < 10 || memcmp(dir, "/proc/", 6) != 0 || memcmp(dir + n - 3, "/fd", 3) != 0)
        return 0;
    for (size_t i = 6; i < n - 3; i++)
        if (dir[i] < '0' || dir[i] > '9')
            return 0;
    return 1;
}

char *am_input_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash || am_names_stdin(path) || fd_folder(path, (size_t)(slash - path)))
        return am_strdup("");
    if (slash == path)
        return am_strdup("/");
    return am_strndup(path, (size_t)(slash - path));
}

FILE *am_fopen_regular(const char *path, const char **what)
{
    *what = NULL;
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0)
        return NULL;
    struct stat st;
    FILE *f = NULL;
    if (fstat(fd, &st) == 0) {
        if (S_ISREG(st.st_mode))
            f = fdopen(fd, "rb");
        else
            *what = S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO"
                  : "a device or a socket";
    }
    if (!f) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return f;
}

/* f read to its end or to an error, NUL-terminated; its length in *n. */
static char *read_stream(FILE *f, size_t *n)
{
    size_t cap = 1 << 16, r;
    char *b = am_malloc(cap);
    *n = 0;
    while ((r = fread(b + *n, 1, cap - *n - 1, f)) > 0) {
        *n += r;
        if (*n + 1 == cap)
            b = am_realloc(b, cap *= 2);
    }
    b[*n] = 0;
    return b;
}

char *am_slurp(const char *path)
{
    const char *what;
    FILE *f = am_fopen_regular(path, &what); /* a FIFO would block here for good */
    if (!f)
        return NULL;
    size_t n;
    char *b = read_stream(f, &n);
    fclose(f);
    return b;
}

int am_slurp_text(const char *path, char **text, size_t *len, am_error *err)
{
    *text = NULL;
    /* a FIFO named result.txt or matrix.tsv would block the open (or the first read) until a
     * writer came, forever: refused by its type instead (until 2026-11-27 batch hung) */
    const char *what;
    FILE *f = am_fopen_regular(path, &what);
    if (!f && what)
        return am_fail(err, AM_EINPUT, "%s: not a regular file (%s)", path, what) - 1;
    if (!f)
        return -1;
    size_t n;
    char *b = read_stream(f, &n);
    int e = errno, bad = ferror(f);
    fclose(f);
    if (bad) {
        free(b);
        return am_fail(err, e == ENOMEM ? AM_EINTERNAL : AM_EINPUT, "%s: read error: %s", path,
                       strerror(e)) - 1;
    }
    const char *z = memchr(b, 0, n);
    if (z) {
        unsigned long line = 1;
        const char *ls = b;
        for (const char *q = b; q < z; q++)
            if (*q == '\n') {
                line++;
                ls = q + 1;
            }
        unsigned long col = (unsigned long)(z - ls) + 1;
        free(b);
        return am_fail_at(err, path, line, col, "NUL byte (the file is text)") - 1;
    }
    *text = b;
    if (len)
        *len = n;
    return 0;
}

void sl_push(strlist *l, char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 8;
        l->v = am_realloc(l->v, (size_t)l->cap * sizeof *l->v);
    }
    l->v[l->n++] = s;
}

void sl_free(strlist *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* ---- standard error: the progress line and the messages beside it ---- */

static volatile sig_atomic_t progress_on;

void am_progress(const char *fmt, ...)
{
    va_list ap;
    fputs("\r\033[K", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
    progress_on = 1;
}

void am_progress_clear(void)
{
    if (!progress_on)
        return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    progress_on = 0;
}

int am_progress_shown(void) { return progress_on; }

/* Every message quotes what the user wrote (an option's value, a column, a group): it is
 * written with its control bytes escaped as an am_fail message is (until 2026-11-27 a name in
 * "unknown policy '...'" or "no column '...'" reached the terminal raw). */
void am_msg(const char *fmt, ...)
{
    va_list ap;
    am_progress_clear();
    va_start(ap, fmt);
    char *raw = format_v(fmt, ap), *shown = escaped_copy(raw, 1); /* tabs, newlines kept */
    va_end(ap);
    fputs(shown, stderr);
    msg_copy(shown, strlen(shown));
    free(raw);
    free(shown);
}
