/* trace.c - opens a trace, detects its format by content and dispatches to its reader.
 *
 * Detection (never by file name; see traces/FORMAT.md):
 *   first byte 0x80                        PyTorch snapshot pickle  -> trace_pickle_open
 *   first bytes "AMSB"                     binary trace form v1     -> trace_bin_open
 *   first bytes 1f 8b                      gzip: the file is reopened through a decompressing
 *                                          FILE* (trace_gz.c) and detected again from the
 *                                          decompressed bytes (gzip inside gzip is refused)
 *   otherwise the first line that is neither blank nor a '#' comment decides (a NUL byte in
 *   a line before it, or before its first other character, is an input error at its line and
 *   column, as it is anywhere in a text trace):
 *     first token "amsim-trace"           native text                -> trace_native_open
 *     starts with "id,lower,upper,size"   lifetime CSV               -> trace_csv_open
 *   anything else                          "unrecognised trace format"
 * After detection the file is rewound and the reader reads it from the start. Problems with the
 * path itself (missing, a directory, unreadable, empty) are input errors "PATH: reason". */
#include "trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "linebuf.h"
#include "trace_bin.h"
#include "trace_gz.h"
#include "trace_impl.h"
#include "units.h"

/* Why a trace must be a file: detection reads its start and rewinds (and a lifetime CSV not in
 * order is read twice). */
#define TRACE_NOT_STREAM "read from a file, not a stream (its start is read twice to " \
    "detect its format): save the stream to a file first (gzip-compressed is fine)"
#define TRACE_EXPECTED "expected 'amsim-trace v1', a lifetime CSV header 'id,lower,upper,size' " \
                       "or a PyTorch snapshot pickle"

/* TRACE_F_NONE: a text file of only blank lines and comments */
enum trace_fmt { TRACE_F_UNKNOWN, TRACE_F_NONE, TRACE_F_NATIVE, TRACE_F_CSV, TRACE_F_PICKLE,
                 TRACE_F_BIN };

/* Whether the first len bytes of an overlong line start a native or lifetime CSV header. */
static int header_start(const char *s, size_t len)
{
    size_t i = 0;
    while (i < len && (s[i] == ' ' || s[i] == '\t'))
        i++;
    const char *p = s + i;
    size_t n = len - i;
    return (n >= 11 && memcmp(p, "amsim-trace", 11) == 0) ||
           (n >= 19 && memcmp(p, "id,lower,upper,size", 19) == 0);
}

/* Whether the first len bytes of an overlong line are what a text trace's line before or at its
 * header starts with: blanks only, a comment, or a header. */
static int text_line_start(const char *s, size_t len)
{
    size_t i = 0;
    while (i < len && (s[i] == ' ' || s[i] == '\t'))
        i++;
    return i == len || s[i] == '#' || header_start(s, len);
}

/* Classify a text file (f, named path in messages; gz: it is decompressed) by its first line
 * that is neither blank nor a comment. 0 and *fmt, or -1 with err (a NUL byte, a line too long,
 * a read error). */
static int trace_detect_text(FILE *f, const char *path, int gz, enum trace_fmt *fmt,
                             am_error *err)
{
    linebuf lb;
    linebuf_init(&lb, f, LINEBUF_MAX_LINE);
    char *line;
    size_t len;
    int r;
    *fmt = TRACE_F_UNKNOWN;
    while ((r = linebuf_next(&lb, &line, &len)) == 1 || r == LINEBUF_TOOLONG) {
        if (r == LINEBUF_TOOLONG) {
            /* too long for any format: a reader's line (blank, a comment, a header) gets the
             * readers' message; other bytes (a binary file) are no trace we know. A blank or
             * comment line leaves *fmt TRACE_F_NONE (nothing decided yet), so that trace_sniff
             * does not take the file for a trace on it: a config may have such a comment. */
            if (!text_line_start(line, len))
                r = 1;
            else if (!header_start(line, len))
                *fmt = TRACE_F_NONE;
            break;
        }
        const char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        /* A NUL byte ends the line as a C string: a line blank or a comment up to one is
         * refused at its column, as the readers refuse one anywhere in a text trace (until
         * 2026-11-27 it was skipped here, and a file whose every line started with one was
         * "no trace content"). A NUL after other text decides nothing: a binary file is
         * "unrecognised", and a native or CSV first line is the reader's to refuse. */
        const char *z = *p == 0 || *p == '#' ? memchr(line, 0, len) : NULL;
        if (z) {
            unsigned long lineno = lb.line, col = (unsigned long)(z - line) + 1;
            linebuf_free(&lb);
            return am_fail_at(err, path, lineno, col, TRACE_NUL_MSG);
        }
        if (*p == 0 || *p == '#')
            continue;
        if (strncmp(p, "amsim-trace", 11) == 0 && (p[11] == 0 || p[11] == ' ' || p[11] == '\t'))
            *fmt = TRACE_F_NATIVE;
        else if (strncmp(p, "id,lower,upper,size", 19) == 0)
            *fmt = TRACE_F_CSV;
        break;
    }
    unsigned long lineno = lb.line;
    linebuf_free(&lb);
    /* The readers' own messages for these, as the lines after the header get them (until
     * 2026-11-27 a line too long before or at the header was an "unrecognised trace format",
     * and a gzip stream that broke here had neither "gzip-compressed trace:" nor a LINE). */
    if (r == LINEBUF_TOOLONG)
        return am_fail_at(err, path, lineno, LINEBUF_MAX_LINE + 1,
                          "line too long (limit %u bytes)", LINEBUF_MAX_LINE);
    if (r == LINEBUF_EREAD) {
        int why = errno;
        if (lineno > 0) /* the line after the last one read whole, as trace_native.c says it */
            return am_fail_at(err, path, lineno + 1, 0, "read error: %s", trace_read_why(why));
        return am_fail(err, AM_EINPUT, "%s: %sread error: %s", path, trace_read_prefix(gz),
                       trace_read_why(why));
    }
    if (r == 0)
        *fmt = TRACE_F_NONE;
    /* r == 1 with an unknown first line: unknown */
    return 0;
}

/* The format the first bytes say (got of them in magic), when they are a magic number. */
static enum trace_fmt trace_magic_fmt(const unsigned char *magic, size_t got)
{
    if (got && magic[0] == 0x80)
        return TRACE_F_PICKLE;
    if (trace_bin_magic(magic, got))
        return TRACE_F_BIN;
    return TRACE_F_UNKNOWN;
}

int trace_sniff(const char *path)
{
    FILE *f = fopen(am_input_name(path), "rb");
    if (!f)
        return 1; /* the reader names why */
    unsigned char magic[4];
    size_t got = fread(magic, 1, sizeof magic, f);
    enum trace_fmt fmt = TRACE_F_UNKNOWN;
    am_error err = {0};
    int yes;
    if (ferror(f) || trace_gz_magic(magic, got) || trace_magic_fmt(magic, got) != TRACE_F_UNKNOWN)
        yes = 1;
    else if (got == 0 || fseek(f, 0, SEEK_SET) != 0)
        yes = got != 0; /* empty: no signature; unseekable: the reader's error */
    else if (trace_detect_text(f, path, 0, &fmt, &err) != 0)
        /* a NUL byte before the first content, a read error, an overlong header: the reader's
         * error. An overlong blank or comment line (fmt TRACE_F_NONE) decides nothing: the
         * config sniff does (until 2026-11-27 it made the file a trace, and `amsim check`
         * refused a config with a comment over 64 KiB above it as "line too long"). */
        yes = fmt != TRACE_F_NONE;
    else
        yes = fmt == TRACE_F_NATIVE || fmt == TRACE_F_CSV;
    fclose(f);
    return yes;
}

int trace_open(trace **tp, const char *path, const trace_opts *o, am_error *err)
{
    *tp = NULL;
    /* "-" is the file on standard input: a pipe or a terminal there is refused below as any
     * stream is (until 2026-11-27 a file named '-' in the current folder was read) */
    const char *name = am_input_name(path);
    struct stat st;
    if (stat(name, &st) != 0)
        return am_fail(err, AM_EINPUT, "%s: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return am_fail(err, AM_EINPUT, "%s: %s", path, strerror(EISDIR));
    if (!S_ISREG(st.st_mode))
        return am_fail(err, AM_EINPUT, "%s: not a regular file (a pipe or a device); a trace is "
                       TRACE_NOT_STREAM, path);
    FILE *f = fopen(name, "rb");
    if (!f)
        return am_fail(err, AM_EINPUT, "%s: %s", path, strerror(errno));

    trace *t = am_calloc(1, sizeof *t);
    t->path = am_strdup(path);
    t->f = f;
    if (o)
        t->opts = *o;
    if (t->opts.time_unit == 0)
        t->opts.time_unit = AM_PS_PER_NS;
    if (t->opts.nlevels < 0)
        t->opts.nlevels = 0;

    unsigned char magic[4]; /* enough for every format's magic bytes */
    size_t got = fread(magic, 1, sizeof magic, f);
    enum trace_fmt fmt = TRACE_F_UNKNOWN;
    if (trace_gz_magic(magic, got)) {
        /* gzip: read on through a decompressing stream and peek at its first bytes */
        fclose(f);
        t->f = f = trace_gz_open(name);
        if (!f) {
            am_fail(err, AM_EINPUT, "%s: %s", path, strerror(errno));
            goto fail;
        }
        t->gz = 1;
        got = fread(magic, 1, sizeof magic, f);
    }
    if (got == 0) {
        const char *what = trace_read_prefix(t->gz);
        if (ferror(f))
            am_fail(err, AM_EINPUT, "%s: %sread error: %s", path, what, trace_read_why(errno));
        else
            am_fail(err, AM_EINPUT, "%s: %sempty file (" TRACE_EXPECTED ")", path, what);
        goto fail;
    }
    if ((fmt = trace_magic_fmt(magic, got)) != TRACE_F_UNKNOWN) {
        /* a pickle or the binary form */
    } else if (trace_gz_magic(magic, got)) {
        am_fail(err, AM_EINPUT, "%s: gzip-compressed trace holding gzip-compressed data: "
                "decompress it once first (gunzip)", path);
        goto fail;
    } else {
        if (fseek(f, 0, SEEK_SET) != 0) {
            am_fail(err, AM_EINPUT, "%s: cannot rewind: %s", path, strerror(errno));
            goto fail;
        }
        if (trace_detect_text(f, path, t->gz, &fmt, err))
            goto fail;
    }
    if (fmt == TRACE_F_NONE) {
        am_fail(err, AM_EINPUT, "%s: no trace content (only blank lines and comments; "
                TRACE_EXPECTED ")", path);
        goto fail;
    }
    if (fmt == TRACE_F_UNKNOWN) {
        am_fail(err, AM_EINPUT, "%s: unrecognised trace format (" TRACE_EXPECTED ")", path);
        goto fail;
    }
    if (fseek(f, 0, SEEK_SET) != 0) {
        am_fail(err, AM_EINPUT, "%s: cannot rewind: %s", path, strerror(errno));
        goto fail;
    }
    clearerr(f);
    int rc = fmt == TRACE_F_NATIVE ? trace_native_open(t, err)
           : fmt == TRACE_F_CSV    ? trace_csv_open(t, err)
           : fmt == TRACE_F_BIN    ? trace_bin_open(t, err)
                                   : trace_pickle_open(t, err);
    if (rc)
        goto fail;
    *tp = t;
    return 0;
fail:
    trace_close(t);
    return -1;
}

int trace_next(trace *t, tr_event *ev, am_error *err)
{
    return t->reader->next(t, ev, err);
}

void trace_close(trace *t)
{
    if (!t)
        return;
    if (t->reader && t->reader->close)
        t->reader->close(t);
    else
        free(t->impl);
    if (t->f)
        fclose(t->f);
    free(t->path);
    free(t);
}

const char *trace_format(const trace *t) { return t->reader ? t->reader->format : "unknown"; }
const char *trace_path(const trace *t) { return t->path; }
int trace_records_addrs(const trace *t) { return t->reader && t->reader->addrs; }
uint64_t trace_skipped(const trace *t) { return t->skipped; }

/* The path is looked for as messages carry it, its control bytes escaped (am_fail): until
 * 2026-11-28 the raw path was, so a name with an ESC kept its "PATH:N:" form. */
void trace_place_error(const trace *t, am_error *err)
{
    if (strcmp(trace_format(t), "pytorch_snapshot") != 0)
        return;
    char *path = am_escape_dup(t->path);
    size_t pl = strlen(path);
    const char *m = err->msg;
    char *end;
    unsigned long long n;
    /* a path written cut, or the prologue's line 0: as it is */
    if (strncmp(m, path, pl) == 0 && m[pl] == ':' && m[pl + 1] >= '1' && m[pl + 1] <= '9' &&
        (n = strtoull(m + pl + 1, &end, 10), end[0] == ':' && end[1] == ' ')) {
        char buf[sizeof err->msg];
        snprintf(buf, sizeof buf, "%s: device_traces[%d][%llu]: %s", path, t->opts.device,
                 n - 1, end + 2);
        snprintf(err->msg, sizeof err->msg, "%s", buf);
    }
    free(path);
}
int trace_validated(const trace *t) { return t->validated; }

int trace_settings(const trace *t, const trace_setting **s)
{
    *s = t->settings;
    return t->nsettings;
}

void trace_level_list(const trace *t, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < t->opts.nlevels && k < n; i++) {
        int w = snprintf(buf + k, n - k, "%s%s", i ? ", " : "",
                         t->opts.level_names[i] ? t->opts.level_names[i] : "?");
        if (w < 0)
            break;
        k += (size_t)w;
    }
    if (t->opts.nlevels <= 0)
        snprintf(buf, n, "none");
}

const char *trace_range_why(char *buf, size_t n, const char *addr_field, uint64_t addr,
                            const char *size_field, uint64_t size)
{
    char end[48];
    units_fmt_u128(end, sizeof end, (am_u128)addr + size);
    snprintf(buf, n, "'%s' %llu + '%s' %llu ends at %s, past 2^64 - 1 (18446744073709551615, "
             "the end of the address space)", addr_field, (unsigned long long)addr, size_field,
             (unsigned long long)size, end);
    return buf;
}

void trace_blank_event(const trace *t, tr_event *ev)
{
    memset(ev, 0, sizeof *ev);
    ev->level = t->opts.default_level;
    ev->level_default = 1; /* until a level is named */
    ev->dst_level = -1;
    ev->id = TR_NO_ADDR;
    ev->addr = TR_NO_ADDR;
    ev->time = AM_TIME_NONE;
}

int trace_level_lookup(const trace *t, const char *name, size_t len)
{
    for (int i = 0; i < t->opts.nlevels; i++) {
        const char *n = t->opts.level_names[i];
        if (n && strlen(n) == len && memcmp(n, name, len) == 0) /* name may hold NUL bytes */
            return i;
    }
    return -1;
}
