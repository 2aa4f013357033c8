/* trace_bin.c - reader and writer of the binary trace form, version 1 (traces/FORMAT.md,
 * "Binary format v1"; trace_bin.h).
 *
 * Layout: "AMSB", version byte 1, flags byte (BH_SKIPPED, BH_VALIDATED), two reserved zero bytes; a
 * varint count of level names and the names (varint length + bytes); with BH_SKIPPED a varint
 * count of skipped rows; then one record per event and an end record.
 * A record is an opcode byte (kind in bits 0-3, then STREAM, TIME, EXT and LEVEL flags), the
 * changed state (level index, stream, time delta) the flags announce, the kind's positional
 * fields as LEB128 varints (buffer ids as a zig-zag delta from the previous id), and with EXT a
 * varint of extension bits and their fields (name, recorded address, transfer id, declared,
 * prologue, into, donate, implicit). The end record (opcode 0) carries the record count, so a
 * truncated file is an error, never a shorter run.
 *
 * Reading streams through one 1 MiB buffer (memory bounded whatever the file size); a record
 * is decoded with at most one bounds check per varint and no per-byte branching beyond the
 * varint loop. Errors are "FILE:RECORD: message" (the record number stands for the line). */
#include "trace_bin.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"
#include "trace_impl.h"

#define BIN_CHUNK (1u << 20)   /* bytes of the read buffer */
#define BIN_SLACK 4096u        /* refill when fewer bytes than this remain (a record is less) */
#define BIN_MAX_LEVELS 4096
/* The LEVEL index of "the default memory of the reading config": the level of an event that
 * named none (tr_event.level_default). One past the largest table, so no table names it; added
 * on 2026-11-28 without a version change (older files never use it; an older amsim refuses it
 * as a bad level index). Until then the writer's default level was stored by its index. */
#define BIN_LEVEL_DEFAULT BIN_MAX_LEVELS

/* header flags (byte 5): BH_SKIPPED, a varint count of skipped rows follows the level table;
 * BH_VALIDATED, a run validates the trace from its start (trace_validated: a converted snapshot;
 * added 2026-11-27 without a version change, an older amsim refuses it as unknown flags) */
enum { BH_SKIPPED = 0x01, BH_VALIDATED = 0x02 };

/* opcode flags */
enum { BF_KIND = 0x0f, BF_STREAM = 0x10, BF_TIME = 0x20, BF_EXT = 0x40, BF_LEVEL = 0x80 };
/* extension bits */
enum { BX_NAME = 1, BX_ADDR = 2, BX_ID = 4, BX_DECLARED = 8, BX_PROLOGUE = 16, BX_INTO = 32,
       BX_DONATE = 64, BX_IMPLICIT = 128, BX_TO = 256 };
#define BX_ALL 0x1ff /* every extension bit (BX_TO, added 2026-11-27, is the last) */

int trace_bin_magic(const unsigned char *p, size_t n)
{
    return n >= 4 && memcmp(p, TRACE_BIN_MAGIC, 4) == 0;
}

/* The extension fields each kind may carry: those its native line allows (trace_native.c); a
 * name where tr_kind_named says (an `oom`'s since 2026-11-28). */
static unsigned kind_ext(int k)
{
    unsigned name = tr_kind_named(k) ? BX_NAME : 0;
    switch (k) {
    case TR_ALLOC:
        return name | BX_ADDR | BX_DONATE | BX_PROLOGUE;
    case TR_TRANSFER:
        return name | BX_ID | BX_INTO | BX_IMPLICIT | BX_TO;
    case TR_SEGMENT_ALLOC:
        return BX_DECLARED;
    case TR_FREE:
    case TR_FREE_REQUESTED:
        return BX_PROLOGUE;
    default:
        return name;
    }
}

static inline uint64_t zz_enc(uint64_t d) { return (d << 1) ^ (uint64_t)-(int64_t)(d >> 63); }
static inline uint64_t zz_dec(uint64_t z) { return (z >> 1) ^ (uint64_t)-(int64_t)(z & 1); }

/* ---- writer ------------------------------------------------------------------------------ */

typedef struct bout {
    FILE *f;
    unsigned char buf[1 << 16];
    size_t n;
    int failed;
} bout;

/* A write that fails stops the writing (the rest would fail too) and leaves the stream's error
 * flag set, its errno noted for the output's commit to report (out_note_write_error). */
static void bo_flush(bout *o)
{
    if (!o->failed && o->n && fwrite(o->buf, 1, o->n, o->f) != o->n) {
        o->failed = 1;
        out_note_write_error(o->f, errno ? errno : EIO);
    }
    o->n = 0;
}

static inline void bo_byte(bout *o, unsigned b)
{
    if (o->n == sizeof o->buf)
        bo_flush(o);
    o->buf[o->n++] = (unsigned char)b;
}

static inline void bo_uv(bout *o, uint64_t v)
{
    if (o->n + 10 > sizeof o->buf)
        bo_flush(o);
    while (v >= 0x80) {
        o->buf[o->n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    o->buf[o->n++] = (unsigned char)v;
}

static void bo_bytes(bout *o, const void *p, size_t len)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < len; i++)
        bo_byte(o, s[i]);
}

typedef struct bstate {
    int32_t level;  /* table index of the current level, -1 before the first */
    uint32_t stream;
    uint64_t id;    /* previous buffer id (delta base) */
    am_ps time;     /* previous time (ps) */
} bstate;

int trace_bin_write(FILE *out, trace *in, am_error *err)
{
    static bout o; /* 64 KiB: not on the stack */
    const trace_opts *to = &in->opts;
    o.f = out;
    o.n = 0;
    o.failed = 0;
    bo_bytes(&o, TRACE_BIN_MAGIC, 4);
    /* the rows the source skipped: a flag and a varint after the level table, only when there
     * are some, so that a trace that skipped none is written as before */
    uint64_t skipped = trace_skipped(in);
    bo_byte(&o, TRACE_BIN_VERSION);
    bo_byte(&o, (skipped ? BH_SKIPPED : 0) | (trace_validated(in) ? BH_VALIDATED : 0));
    bo_byte(&o, 0);
    bo_byte(&o, 0);
    bo_uv(&o, (uint64_t)(to->nlevels > 0 ? to->nlevels : 0));
    for (int i = 0; i < to->nlevels; i++) {
        const char *nm = to->level_names[i] ? to->level_names[i] : "";
        bo_uv(&o, strlen(nm));
        bo_bytes(&o, nm, strlen(nm));
    }
    if (skipped)
        bo_uv(&o, skipped);
    bstate st = {-1, 0, 0, 0};
    unsigned long long count = 0;
    tr_event ev;
    int r;
    while ((r = trace_next(in, &ev, err)) == 1) {
        int k = (int)ev.kind;
        if (k < TR_ALLOC || k > TR_KIND_LAST)
            return am_fail(err, AM_EINTERNAL, "binary trace writer: unknown event kind %d", k);
        unsigned op = (unsigned)k, ext = 0;
        int32_t lvl = ev.level_default ? BIN_LEVEL_DEFAULT : ev.level; /* LEVEL's index */
        if (tr_kind_has_level(k)) {
            if (!ev.level_default && (ev.level < 0 || ev.level >= to->nlevels))
                return am_fail(err, AM_EINTERNAL, "binary trace writer: event of line %lu names "
                               "level %d, which the config does not have", ev.line, (int)ev.level);
            if (lvl != st.level)
                op |= BF_LEVEL;
        }
        if (k == TR_TRANSFER && (ev.dst_level < 0 || ev.dst_level >= to->nlevels))
            return am_fail(err, AM_EINTERNAL, "binary trace writer: transfer of line %lu to level "
                           "%d, which the config does not have", ev.line, (int)ev.dst_level);
        if (ev.stream != st.stream && k != TR_DEFRAG) /* a defrag takes no stream (TR_ALL) */
            op |= BF_STREAM;
        am_ps at = ev.time;
        if (at != AM_TIME_NONE) {
            op |= BF_TIME;
            if (at < st.time) /* clamp as the native writer does: the host clock never goes back */
                at = st.time;
        }
        if (ev.name && (kind_ext(k) & BX_NAME)) /* as the native writer */
            ext |= BX_NAME;
        if (k == TR_ALLOC && ev.addr != TR_NO_ADDR)
            ext |= BX_ADDR;
        if (k == TR_TRANSFER && ev.id != TR_NO_ADDR)
            ext |= BX_ID;
        if (k == TR_SEGMENT_ALLOC && ev.declared)
            ext |= BX_DECLARED;
        if ((kind_ext(k) & BX_PROLOGUE) && ev.line == 0)
            ext |= BX_PROLOGUE;
        if (ev.has_into)
            ext |= BX_INTO;
        if (ev.has_donate)
            ext |= BX_DONATE;
        if (ev.implicit)
            ext |= BX_IMPLICIT;
        if (k == TR_TRANSFER && ev.has_to)
            ext |= BX_TO;
        if (ext)
            op |= BF_EXT;
        bo_byte(&o, op);
        if (op & BF_LEVEL)
            bo_uv(&o, (uint64_t)(st.level = lvl));
        if (op & BF_STREAM)
            bo_uv(&o, st.stream = ev.stream);
        if (op & BF_TIME) {
            bo_uv(&o, at - st.time);
            st.time = at;
        }
        switch (k) {
        case TR_ALLOC:
            bo_uv(&o, zz_enc(ev.id - st.id));
            st.id = ev.id;
            bo_uv(&o, ev.bytes);
            break;
        case TR_FREE:
        case TR_FREE_REQUESTED:
        case TR_FREE_COMPLETED:
        case TR_USE:
            bo_uv(&o, zz_enc(ev.id - st.id));
            st.id = ev.id;
            break;
        case TR_TRANSFER:
            bo_uv(&o, (uint64_t)ev.dst_level);
            bo_uv(&o, ev.bytes);
            break;
        case TR_COMPUTE:
            bo_uv(&o, ev.duration);
            break;
        case TR_RECORD:
        case TR_WAIT:
            bo_uv(&o, ev.arg);
            break;
        case TR_SYNC:
        case TR_DEFRAG:
            break;
        case TR_SEGMENT_ALLOC:
        case TR_SEGMENT_FREE:
            bo_uv(&o, ev.addr);
            bo_uv(&o, ev.bytes);
            break;
        default: /* TR_OOM_RECORDED */
            bo_uv(&o, ev.bytes);
            break;
        }
        if (ext) {
            bo_uv(&o, ext);
            if (ext & BX_NAME) {
                size_t len = strlen(ev.name);
                bo_uv(&o, len);
                bo_bytes(&o, ev.name, len);
            }
            if (ext & BX_ADDR)
                bo_uv(&o, ev.addr);
            if (ext & BX_ID)
                bo_uv(&o, ev.id);
            if (ext & BX_INTO)
                bo_uv(&o, ev.into);
            if (ext & BX_DONATE)
                bo_uv(&o, ev.donate);
            if (ext & BX_TO)
                bo_uv(&o, ev.to);
        }
        count++;
    }
    if (r < 0)
        return -1;
    bo_byte(&o, 0); /* end record */
    bo_uv(&o, count);
    bo_flush(&o);
    /* a write error is the output's, reported by the caller's commit or close with the
     * output's name (until 2026-11-27 this writer said "binary trace writer: write error: File
     * too large" under `ulimit -f`, naming no file) */
    if (!o.failed && fflush(out) != 0)
        out_note_write_error(out, errno ? errno : EIO);
    return 0;
}

/* ---- reader ------------------------------------------------------------------------------ */

typedef struct binr {
    unsigned char *buf;     /* BIN_CHUNK bytes */
    size_t pos, end;        /* unread bytes buf[pos, end) */
    int eof, done;
    unsigned long rec;      /* records read */
    size_t nlv;
    int32_t *lvmap;         /* table index -> config level, -1 unknown */
    char **lvname;          /* table names, for messages */
    bstate st;
    int32_t cur;            /* config level of st.level (-1: none or unknown) */
    tr_event blank;         /* an event with every field absent */
    char name[TR_NAME_MAX + 1];
    /* A read error met while filling ahead: reported only once the bytes read before it are
     * used up, so it names the record where the stream breaks (as the native reader names the
     * line after its last one), not the record that happened to trigger the look-ahead. */
    char rerr[160];
} binr;

static int bin_next(trace *t, tr_event *ev, am_error *err);
static void bin_close(trace *t);

static const struct trace_reader bin_reader = {"binary", bin_next, bin_close, 1};

#define BFAIL(...) am_fail_at(err, t->path, b->rec, 0, __VA_ARGS__)

/* Keep at least BIN_SLACK unread bytes in the buffer unless the file ends first. A read error
 * ends the file too and is kept in b->rerr for bin_cut (never reported from here). */
static void bin_fill(trace *t, binr *b)
{
    size_t avail = b->end - b->pos;
    if (b->eof || avail >= BIN_SLACK)
        return;
    memmove(b->buf, b->buf + b->pos, avail);
    b->pos = 0;
    b->end = avail;
    while (!b->eof && b->end < BIN_CHUNK) {
        size_t r = fread(b->buf + b->end, 1, BIN_CHUNK - b->end, t->f);
        b->end += r;
        if (r == 0) {
            if (ferror(t->f))
                snprintf(b->rerr, sizeof b->rerr, "%s", trace_read_why(errno));
            b->eof = 1;
        }
    }
}

/* LEB128 varint from [*pp, e): 0 and *v, or -1 when truncated or longer than 64 bits. */
static inline int get_uv(const unsigned char **pp, const unsigned char *e, uint64_t *v)
{
    const unsigned char *p = *pp;
    if (p < e && *p < 0x80) {
        *v = *p;
        *pp = p + 1;
        return 0;
    }
    uint64_t x = 0;
    for (unsigned s = 0; p < e && s < 64; s += 7) {
        unsigned c = *p++;
        if (s == 63 && c > 1)
            return -1;
        x |= (uint64_t)(c & 0x7f) << s;
        if (!(c & 0x80)) {
            *v = x;
            *pp = p;
            return 0;
        }
    }
    return -1;
}

/* Whether the failed varint at [p, e) ran into the end of the buffered bytes (every byte left has
 * its continuation bit) rather than being malformed. */
__attribute__((noinline, cold)) static int uv_cut(const unsigned char *p, const unsigned char *e)
{
    for (; p < e; p++)
        if (!(*p & 0x80))
            return 0;
    return 1;
}

/* A record that could not be decoded: the pending read error if the bytes ran out (cut) and the
 * stream broke there, else a malformed or truncated record. Error path only. */
__attribute__((noinline, cold)) static int bin_cut(trace *t, binr *b, int cut, am_error *err)
{
    if (cut && b->rerr[0])
        return BFAIL("read error: %s", b->rerr);
    return BFAIL("truncated or malformed record");
}

/* bin_cut for a varint that failed at p: cut when it ran into the end of the bytes read. */
__attribute__((noinline, cold)) static int bin_bad_uv(trace *t, binr *b, const unsigned char *p,
                                                      const unsigned char *e, am_error *err)
{
    return bin_cut(t, b, uv_cut(p, e), err);
}

/* A header that could not be decoded: cut says the bytes ran out (truncated, or the pending read
 * error), else the header is malformed in the way `what` says. A read error of a compressed
 * file says so, as a snapshot's or a text trace's does before its first line (until 2026-11-27
 * a gzip stream cut inside a binary header was "PATH: read error: ..." alone). */
static int hdr_fail(trace *t, binr *b, int cut, const char *what, am_error *err)
{
    if (cut && b->rerr[0])
        return am_fail(err, AM_EINPUT, "%s: %sread error: %s", t->path,
                       trace_read_prefix(t->gz), b->rerr);
    if (cut)
        return am_fail(err, AM_EINPUT, "%s: truncated binary trace header", t->path);
    return am_fail(err, AM_EINPUT, "%s: binary trace header: %s", t->path, what);
}

/* The level table after the fixed header, at b->pos. It may be larger than the buffer (4096
 * names of 255 bytes are 1 MiB), so the buffer is refilled before each name: a name and its
 * length take less than BIN_SLACK bytes. */
static int bin_levels(trace *t, binr *b, am_error *err)
{
    const unsigned char *p = b->buf + b->pos, *e = b->buf + b->end;
    uint64_t n;
    if (get_uv(&p, e, &n))
        return hdr_fail(t, b, uv_cut(p, e), "bad level table", err);
    if (n > BIN_MAX_LEVELS)
        return hdr_fail(t, b, 0, "bad level table (more than 4096 levels)", err);
    b->pos = (size_t)(p - b->buf);
    b->nlv = (size_t)n;
    b->lvmap = am_calloc(b->nlv ? b->nlv : 1, sizeof *b->lvmap);
    b->lvname = am_calloc(b->nlv ? b->nlv : 1, sizeof *b->lvname);
    for (size_t i = 0; i < b->nlv; i++) {
        bin_fill(t, b);
        p = b->buf + b->pos;
        e = b->buf + b->end;
        uint64_t len;
        if (get_uv(&p, e, &len))
            return hdr_fail(t, b, uv_cut(p, e), "bad level name (1 to 255 bytes)", err);
        if (len == 0 || len > TR_NAME_MAX)
            return hdr_fail(t, b, 0, "bad level name (1 to 255 bytes)", err);
        if ((uint64_t)(e - p) < len)
            return hdr_fail(t, b, 1, "", err);
        /* a NUL would cut the name short in every message; C1 controls as C0 ones (until
         * 2026-11-27 they passed) */
        for (size_t j = 0; j < len; j++)
            if (p[j] < 0x20 || p[j] == 0x7f || am_c1_at(p + j, len - j) >= 0)
                return hdr_fail(t, b, 0, "level name contains a NUL or control byte", err);
        b->lvname[i] = am_malloc((size_t)len + 1);
        memcpy(b->lvname[i], p, (size_t)len);
        b->lvname[i][len] = 0;
        b->lvmap[i] = trace_level_lookup(t, (const char *)p, (size_t)len);
        b->pos = (size_t)(p + len - b->buf);
    }
    return 0;
}

/* The count of skipped rows after the level table (header flag BH_SKIPPED): rows the source of
 * an `amsim convert` skipped, counted into t->skipped so that the run reports them as the
 * source's did (until 2026-11-27 the binary form had no place for them: "0 rows skipped"). */
static int bin_skipped(trace *t, binr *b, am_error *err)
{
    bin_fill(t, b);
    const unsigned char *p = b->buf + b->pos, *e = b->buf + b->end;
    if (get_uv(&p, e, &t->skipped))
        return hdr_fail(t, b, uv_cut(p, e), "bad count of skipped rows", err);
    b->pos = (size_t)(p - b->buf);
    return 0;
}

/* A level index past the header's table, with the table's size in words (until 2026-11-27
 * "the file names 1 levels"). Error path only. */
__attribute__((noinline, cold)) static int bin_bad_level(trace *t, binr *b, uint64_t idx,
                                                         am_error *err)
{
    return BFAIL("bad level index %llu (the file names %zu level%s)", (unsigned long long)idx,
                 b->nlv, b->nlv == 1 ? "" : "s");
}

/* A recorded range past 2^64 - 1 (trace_range_past_end) refused at this record, in the words
 * every reader shares: field is "addr" (an alloc's) or "ADDR" (a segment event's), as in text.
 * Until 2026-11-27 it was accepted here, and a run only reported a validation mismatch. Cold and
 * out of line, so its message buffer stays out of bin_next's frame. */
__attribute__((noinline, cold)) static int bin_range_refused(trace *t, binr *b, const char *field,
                                                             const tr_event *ev, am_error *err)
{
    char why[TRACE_RANGE_WHY_MAX];
    return BFAIL("%s", trace_range_why(why, sizeof why, field, ev->addr, "BYTES", ev->bytes));
}

static int bin_level(trace *t, binr *b, uint64_t idx, int32_t *out, am_error *err)
{
    if (idx >= b->nlv)
        return bin_bad_level(t, b, idx, err);
    if (b->lvmap[idx] >= 0) {
        *out = b->lvmap[idx];
        return 0;
    }
    char known[512];
    trace_level_list(t, known, sizeof known);
    return BFAIL("unknown level '%s' (configured: %s)", b->lvname[idx], known);
}

int trace_bin_open(trace *t, am_error *err)
{
    binr *b = am_calloc(1, sizeof *b);
    b->buf = am_malloc(BIN_CHUNK);
    b->st.level = -1;
    b->cur = -1;
    trace_blank_event(t, &b->blank);
    t->impl = b;
    t->reader = &bin_reader;
    bin_fill(t, b);
    const unsigned char *p = b->buf + b->pos, *e = b->buf + b->end;
    if (e - p < 8 || !trace_bin_magic(p, 8))
        return hdr_fail(t, b, 1, "", err);
    if (p[4] != TRACE_BIN_VERSION)
        return am_fail(err, AM_EINPUT, "%s: unsupported binary trace version %u (this amsim "
                       "reads %d)", t->path, p[4], TRACE_BIN_VERSION);
    if (p[5] & ~(BH_SKIPPED | BH_VALIDATED))
        return am_fail(err, AM_EINPUT, "%s: binary trace header: unknown flags", t->path);
    if (p[6] || p[7]) /* until 2026-11-27 reported as "unknown flags" */
        return am_fail(err, AM_EINPUT, "%s: binary trace header: reserved bytes 6 and 7 are "
                       "not 0", t->path);
    int has_skipped = p[5] & BH_SKIPPED;
    t->validated = (p[5] & BH_VALIDATED) != 0;
    b->pos += 8;
    if (bin_levels(t, b, err) != 0)
        return -1;
    return has_skipped ? bin_skipped(t, b, err) : 0;
}

#define GET(v)                                                                 \
    do {                                                                       \
        if (get_uv(&p, e, &(v)))                                               \
            return bin_bad_uv(t, b, p, e, err);                                \
    } while (0)

static int bin_next(trace *t, tr_event *ev, am_error *err)
{
    binr *b = t->impl;
    if (b->done)
        return 0;
    if (b->end - b->pos < BIN_SLACK)
        bin_fill(t, b);
    const unsigned char *p = b->buf + b->pos, *e = b->buf + b->end;
    b->rec++;
    if (p == e) {
        if (b->rerr[0])
            return BFAIL("read error: %s", b->rerr);
        return BFAIL("truncated binary trace: no end record after %lu record%s", b->rec - 1,
                     b->rec - 1 == 1 ? "" : "s");
    }
    unsigned op = *p++;
    if (op == 0) { /* end record (number b->rec, as messages name it): the count, then nothing */
        uint64_t n;
        GET(n);
        if (n != b->rec - 1)
            return BFAIL("end record counts %llu record%s, the file holds %lu",
                         (unsigned long long)n, n == 1 ? "" : "s", b->rec - 1);
        b->pos = (size_t)(p - b->buf);
        if (b->pos != b->end || !b->eof) {
            bin_fill(t, b);
            if (b->pos != b->end)
                return BFAIL("data after the end record");
        }
        if (b->rerr[0]) /* the stream broke after the end record: name the next record */
            return am_fail_at(err, t->path, b->rec + 1, 0, "read error: %s", b->rerr);
        b->done = 1;
        return 0;
    }
    int k = (int)(op & BF_KIND);
    if (k < TR_ALLOC || k > TR_KIND_LAST)
        return BFAIL("bad record kind %d (opcode 0x%02x)", k, op);
    uint64_t v;
    if (op & BF_LEVEL) {
        GET(v);
        if (v == BIN_LEVEL_DEFAULT) { /* the reading config's default memory */
            b->st.level = BIN_LEVEL_DEFAULT;
            b->cur = t->opts.default_level;
        } else {
            if (v >= b->nlv)
                return bin_bad_level(t, b, v, err);
            b->st.level = (int32_t)v;
            b->cur = b->lvmap[v];
        }
    }
    if (op & BF_STREAM) {
        GET(v);
        if (v > TR_ALL)
            return BFAIL("bad stream %llu: out of range (max 4294967294)", (unsigned long long)v);
        b->st.stream = (uint32_t)v;
    }
    /* A defrag is a host action on a level: it takes no stream, as its native line takes no
     * stream= (a STREAM part is refused), and reads as TR_ALL whatever the stream state. */
    if (k == TR_DEFRAG && (op & BF_STREAM))
        return BFAIL("a defrag record takes no stream");
    if (b->st.stream == TR_ALL && k != TR_SYNC && k != TR_DEFRAG)
        return BFAIL("bad stream 4294967295: out of range (max 4294967294)");
    *ev = b->blank; /* every field absent (a struct copy; fields added later start zero) */
    ev->kind = (tr_kind)k;
    ev->stream = k == TR_DEFRAG ? TR_ALL : b->st.stream;
    ev->line = b->rec;
    if (op & BF_TIME) {
        GET(v);
        if (b->st.time + v < b->st.time)
            return BFAIL("time out of range (more than 2^64 ps)");
        if (b->st.time + v > TR_TIME_MAX) /* "no time", or a stopped clock (trace.h) */
            return BFAIL("time out of range (at most 2^64 - 3 ps)");
        b->st.time += v;
        ev->time = b->st.time;
    }
    if (tr_kind_has_level(k)) {
        if (b->st.level < 0)
            return BFAIL("record names no level");
        if (b->cur < 0 && bin_level(t, b, (uint64_t)b->st.level, &ev->level, err))
            return -1; /* a name the config does not have: the message */
        ev->level = b->cur;
        ev->level_default = b->st.level == BIN_LEVEL_DEFAULT;
    }
    switch (k) {
    case TR_ALLOC:
        GET(v);
        ev->id = b->st.id += zz_dec(v);
        GET(ev->bytes);
        break;
    case TR_FREE:
    case TR_FREE_REQUESTED:
    case TR_FREE_COMPLETED:
    case TR_USE:
        GET(v);
        ev->id = b->st.id += zz_dec(v);
        break;
    case TR_TRANSFER:
        /* a native transfer names its source: the default memory's index would make the native
         * conversion name the converting config's default instead (until 2026-11-28 accepted) */
        if (ev->level_default)
            return BFAIL("a transfer's source is level index 4096, which stands only for an "
                         "event that named no level: a transfer names its source");
        GET(v);
        if (v == BIN_LEVEL_DEFAULT) /* as the source: named so, not as past the table */
            return BFAIL("a transfer's destination is level index 4096, which stands only for "
                         "an event that named no level: a transfer names its destination");
        if (bin_level(t, b, v, &ev->dst_level, err))
            return -1;
        GET(ev->bytes);
        break;
    case TR_COMPUTE:
        GET(ev->duration);
        break;
    case TR_RECORD:
    case TR_WAIT:
        GET(ev->arg);
        break;
    case TR_SYNC:
    case TR_DEFRAG:
        break;
    case TR_SEGMENT_ALLOC:
    case TR_SEGMENT_FREE:
        GET(ev->addr);
        if (ev->addr == TR_NO_ADDR)
            return BFAIL("segment address out of range (at most 2^64 - 2)");
        GET(ev->bytes);
        if (trace_range_past_end(ev->addr, ev->bytes)) /* it ends by 2^64 - 1, as in text */
            return bin_range_refused(t, b, "ADDR", ev, err);
        break;
    default: /* TR_OOM_RECORDED */
        GET(ev->bytes);
        break;
    }
    if (op & BF_EXT) {
        uint64_t x;
        GET(x);
        if (x > BX_ALL)
            return BFAIL("unknown extension bits 0x%llx", (unsigned long long)x);
        if (x & ~(uint64_t)kind_ext(k)) /* text would refuse the field: so does binary */
            return BFAIL("extension bits 0x%llx do not apply to this record's kind %d (it "
                         "takes 0x%x)", (unsigned long long)x, k, kind_ext(k));
        if (x & BX_NAME) {
            GET(v);
            if (v == 0 || v > TR_NAME_MAX)
                return BFAIL("bad name length %llu (1 to %d bytes)", (unsigned long long)v,
                             TR_NAME_MAX);
            if ((uint64_t)(e - p) < v)
                return bin_cut(t, b, 1, err);
            for (size_t i = 0; i < v; i++) {
                unsigned char c = p[i];
                /* a name is one token in text, and follows its rules: C1 controls refused as
                 * C0 ones (until 2026-11-27 they passed, and convert wrote them to text) */
                if (c <= 0x20 || c == 0x7f || am_c1_at(p + i, v - i) >= 0)
                    return BFAIL("name contains a space or a control character");
                b->name[i] = (char)c;
            }
            b->name[v] = 0;
            p += v;
            ev->name = b->name;
        }
        if (x & BX_ADDR) {
            GET(ev->addr);
            if (ev->addr == TR_NO_ADDR) /* the value that means "no address", as in text */
                return BFAIL("recorded address out of range (at most 2^64 - 2)");
            if (trace_range_past_end(ev->addr, ev->bytes)) /* BYTES was read above */
                return bin_range_refused(t, b, "addr", ev, err);
        }
        if (x & BX_ID) {
            GET(ev->id);
            if (ev->id == TR_NO_ADDR)
                return BFAIL("transfer id out of range (at most 2^64 - 2)");
        }
        if (x & BX_INTO) {
            GET(ev->into);
            ev->has_into = 1;
        }
        if (x & BX_DONATE) {
            GET(ev->donate);
            ev->has_donate = 1;
        }
        if (x & BX_TO) {
            if (x & BX_INTO)
                return BFAIL(TRACE_INTO_TO_MSG);
            GET(ev->to);
            if (ev->to == TR_NO_ADDR)
                return BFAIL("transfer to= id out of range (at most 2^64 - 2)");
            ev->has_to = 1;
        }
        ev->declared = (x & BX_DECLARED) != 0;
        ev->implicit = (x & BX_IMPLICIT) != 0;
        if (x & BX_PROLOGUE)
            ev->line = 0;
    }
    b->pos = (size_t)(p - b->buf);
    return 1;
}

static void bin_close(trace *t)
{
    binr *b = t->impl;
    if (!b)
        return;
    for (size_t i = 0; i < b->nlv; i++)
        free(b->lvname[i]);
    free(b->lvname);
    free(b->lvmap);
    free(b->buf);
    free(b);
    t->impl = NULL;
}
