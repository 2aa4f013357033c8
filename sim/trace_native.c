/* trace_native.c - reader of the native text trace format, version 1 (traces/FORMAT.md).
 *
 * One event per line: an op (or its one-letter alias), positional fields, then optional
 * key=value fields, separated by spaces or tabs. '#' starts a comment (a whole line, or after
 * whitespace at the end of a line); blank lines are ignored. The first line that is neither
 * blank nor a comment is the header "amsim-trace v1 [time_unit=TIME] [skipped=N] [validated=0|1]"
 * (skipped: rows the source of an `amsim convert` skipped, counted into t->skipped; validated:
 * the source was validated from its start, a snapshot, into t->validated).
 *
 * Rules checked here (each failure is "file:line:col: message", the column pointing at the
 * offending token, or at the value of a key=value field): unknown ops, missing or extra
 * positional fields, unknown or repeated keys, numbers that are not unsigned integers or
 * overflow, sizes and times with bad units, unknown level names, names longer than
 * TR_NAME_MAX or holding control characters, lines longer than LINEBUF_MAX_LINE, and at=
 * times that decrease. What needs the whole run (duplicate ids, frees of unknown ids, waits on
 * events never recorded) is the engine's to check.
 *
 * Streaming: lines come from a linebuf (one 1 MiB buffer) and are cut into tokens in place, so
 * memory is bounded whatever the file size and ev->name points into the buffer (valid until the
 * next call). The hot path has no allocation, no sscanf and no locale-dependent parsing: plain
 * integers take linebuf_u64; only values with units go through units.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linebuf.h"
#include "trace_impl.h"
#include "units.h"


/* key=value fields, as bits */
enum { NK_LEVEL = 1, NK_STREAM = 2, NK_NAME = 4, NK_AT = 8, NK_ID = 16, NK_ADDR = 32,
       NK_DECLARED = 64, NK_INTO = 128, NK_IMPLICIT = 256, NK_DONATE = 512,
       NK_PROLOGUE = 1024, NK_TO = 2048 };
/* positional field kinds */
enum { NP_ID, NP_BYTES, NP_SRC, NP_DST, NP_DURATION, NP_EVENT, NP_ADDR };
static const char *const native_pos_names[] = {"ID", "BYTES", "SRC", "DST", "DURATION", "EVENT",
                                               "ADDR"};

typedef struct native_op {
    const char *name;
    char alias;             /* one-letter alias, 0 for none */
    tr_kind kind;
    int npos;
    unsigned char pos[3];
    unsigned keys;          /* allowed NK_ bits */
    const char *allowed;    /* the same, for messages */
    const char *usage;
} native_op;

static const native_op native_ops[] = {
    {"alloc", 'a', TR_ALLOC, 2, {NP_ID, NP_BYTES, 0},
     NK_LEVEL | NK_STREAM | NK_NAME | NK_AT | NK_ADDR | NK_DONATE | NK_PROLOGUE,
     "level, stream, name, at, addr, donate, prologue",
     "alloc ID BYTES [level=NAME] [stream=S] [name=TAG] [at=TIME] [addr=N] [donate=ID] "
     "[prologue=0|1]"},
    {"free", 'f', TR_FREE, 1, {NP_ID, 0, 0}, NK_STREAM | NK_AT | NK_PROLOGUE,
     "stream, at, prologue", "free ID [stream=S] [at=TIME] [prologue=0|1]"},
    {"transfer", 't', TR_TRANSFER, 3, {NP_SRC, NP_DST, NP_BYTES},
     NK_STREAM | NK_ID | NK_NAME | NK_AT | NK_INTO | NK_IMPLICIT | NK_TO,
     "stream, id, name, at, into, to, implicit",
     "transfer SRC DST BYTES [stream=S] [id=ID] [name=TAG] [at=TIME] [into=ID|to=ID] "
     "[implicit=0|1]"},
    {"compute", 'c', TR_COMPUTE, 1, {NP_DURATION, 0, 0}, NK_STREAM | NK_NAME | NK_AT,
     "stream, name, at", "compute DURATION [stream=S] [name=TAG] [at=TIME]"},
    {"record", 'r', TR_RECORD, 1, {NP_EVENT, 0, 0}, NK_STREAM | NK_AT, "stream, at",
     "record EVENT [stream=S] [at=TIME]"},
    {"wait", 'w', TR_WAIT, 1, {NP_EVENT, 0, 0}, NK_STREAM | NK_AT, "stream, at",
     "wait EVENT [stream=S] [at=TIME]"},
    {"sync", 0, TR_SYNC, 0, {0, 0, 0}, NK_STREAM | NK_AT, "stream, at", "sync [stream=S] [at=TIME]"},
    {"free_requested", 0, TR_FREE_REQUESTED, 1, {NP_ID, 0, 0}, NK_STREAM | NK_AT | NK_PROLOGUE,
     "stream, at, prologue", "free_requested ID [stream=S] [at=TIME] [prologue=0|1]"},
    {"free_completed", 0, TR_FREE_COMPLETED, 1, {NP_ID, 0, 0}, NK_STREAM | NK_AT, "stream, at",
     "free_completed ID [stream=S] [at=TIME]"},
    {"segment_alloc", 0, TR_SEGMENT_ALLOC, 2, {NP_ADDR, NP_BYTES, 0},
     NK_LEVEL | NK_STREAM | NK_AT | NK_DECLARED, "level, stream, at, declared",
     "segment_alloc ADDR BYTES [level=NAME] [stream=S] [at=TIME] [declared=0|1]"},
    {"segment_free", 0, TR_SEGMENT_FREE, 2, {NP_ADDR, NP_BYTES, 0}, NK_LEVEL | NK_STREAM | NK_AT,
     "level, stream, at", "segment_free ADDR BYTES [level=NAME] [stream=S] [at=TIME]"},
    /* name=: the failed request's (a PyTorch oom entry's stack; until 2026-11-28 refused) */
    {"oom", 0, TR_OOM_RECORDED, 1, {NP_BYTES, 0, 0}, NK_LEVEL | NK_STREAM | NK_NAME | NK_AT,
     "level, stream, name, at", "oom BYTES [level=NAME] [stream=S] [name=TAG] [at=TIME]"},
    {"use", 'u', TR_USE, 1, {NP_ID, 0, 0}, NK_STREAM | NK_AT, "stream, at",
     "use ID [stream=S] [at=TIME]"},
    /* an explicit defragmentation (JAX's client.defragment()): a host action on one level, so
     * no stream= (it waits for the transfers on the level's buffers itself, engine.c) */
    {"defrag", 0, TR_DEFRAG, 0, {0, 0, 0}, NK_LEVEL | NK_AT, "level, at",
     "defrag [level=NAME] [at=TIME]"},
};

typedef struct native {
    linebuf lb;
    tr_event blank;  /* an event with every field absent (native_ev_init copies it) */
    tr_event *clean; /* the event the direct path last wrote: its absent fields still are */
    am_ps unit;      /* ps per unitless time */
    am_ps last_at;   /* latest at= so far (ps) */
    int have_at;
} native;

static int native_next(trace *t, tr_event *ev, am_error *err);
static void native_close(trace *t);

static const struct trace_reader native_reader = {"native", native_next, native_close, 1};

static inline int native_ws(char c) { return c == ' ' || c == '\t'; }

/* Next whitespace-separated token of [*p, e), NUL-terminated in place; NULL at the end of the
 * line or at a '#' comment. */
static inline char *native_token(char **p, char *e, size_t *len)
{
    char *s = *p;
    while (s < e && native_ws(*s))
        s++;
    if (s == e || *s == '#') {
        *p = e;
        return NULL;
    }
    char *tok = s;
    while (s < e && !native_ws(*s))
        s++;
    *len = (size_t)(s - tok);
    if (s < e)
        *s++ = 0;
    *p = s;
    return tok;
}

static const char *native_u64_why(const char *s, int r)
{
    if (r == 2)
        return "out of range (max 18446744073709551615)";
    if (s[0] == '-' && s[1] >= '0' && s[1] <= '9')
        return "negative";
    return "not an unsigned integer";
}

/* Error at column col of the current line. */
#define NFAIL(col, ...) am_fail_at(err, t->path, n->lb.line, (unsigned long)(col), __VA_ARGS__)

static int native_u64(trace *t, native *n, const char *what, const char *s, size_t len,
                      unsigned long col, uint64_t *v, am_error *err)
{
    int r = linebuf_u64(s, len, v);
    if (r)
        return NFAIL(col, "bad %s '%s': %s", what, s, native_u64_why(s, r));
    return 0;
}

/* An id= or addr= value, or a segment's ADDR: 2^64 - 1 (TR_NO_ADDR) means "none" inside, so a
 * file that gives it is refused rather than read as giving nothing. */
static int native_u64_some(trace *t, native *n, const char *what, const char *s, size_t len,
                           unsigned long col, uint64_t *v, am_error *err)
{
    if (native_u64(t, n, what, s, len, col, v, err))
        return -1;
    if (*v == TR_NO_ADDR)
        return NFAIL(col, "bad %s '%s': out of range (at most 18446744073709551614; 2^64 - 1 "
                     "means none)", what, s);
    return 0;
}

/* A size or time with a sign: '+' is refused as in an ID, '-' as negative even on zero ("-0",
 * "-0KiB", "-0.0ns": until 2026-11-27 these were read as 0, while "-5" was refused and the
 * integer fields refuse "-0" as negative). 1 and *why when s starts with one. */
static int native_signed(const char *s, const char **why)
{
    if (*s == '+')
        *why = "a sign is not allowed";
    else if (*s == '-' && ((s[1] >= '0' && s[1] <= '9') || s[1] == '.'))
        *why = "negative values are not allowed";
    else
        return 0;
    return 1;
}

static int native_size(trace *t, native *n, const char *what, const char *s, size_t len,
                       unsigned long col, uint64_t *v, am_error *err)
{
    int r = linebuf_u64(s, len, v);
    if (r == 0)
        return 0;
    const char *why = "not a size";
    if (native_signed(s, &why)) /* as an ID: unsigned fields take no sign */
        ;
    else if (r == 1 && units_size_whole(s, v, &why) == 0)
        return 0;
    return NFAIL(col, "bad %s '%s': %s", what, s, r == 2 ? native_u64_why(s, r) : why);
}

static int native_time(trace *t, native *n, const char *what, const char *s, size_t len,
                       unsigned long col, am_ps *v, am_error *err)
{
    uint64_t x;
    int r = linebuf_u64(s, len, &x);
    if (r == 0) {
        if (x && n->unit > UINT64_MAX / x)
            return NFAIL(col, "bad %s '%s': out of range (more than 2^64 ps)", what, s);
        *v = x * n->unit;
        return 0;
    }
    const char *why = "not a time";
    if (native_signed(s, &why))
        ;
    else if (r == 1 && units_time_default_whole(s, n->unit, v, &why) == 0)
        return 0;
    return NFAIL(col, "bad %s '%s': %s", what, s, r == 2 ? "out of range (more than 2^64 ps)" : why);
}

static int native_level(trace *t, native *n, const char *s, size_t len, unsigned long col,
                        int32_t *lvl, am_error *err)
{
    int l = trace_level_lookup(t, s, len);
    if (l >= 0) {
        *lvl = l;
        return 0;
    }
    if (t->opts.nlevels <= 0)
        return NFAIL(col, "unknown level '%s' (no memory levels configured)", s);
    char known[512];
    trace_level_list(t, known, sizeof known);
    return NFAIL(col, "unknown level '%s' (configured: %s)", s, known);
}

static int native_positional(trace *t, native *n, int kind, char *s, size_t len,
                             unsigned long col, tr_event *ev, am_error *err)
{
    const char *what = native_pos_names[kind];
    switch (kind) {
    case NP_ID: return native_u64(t, n, what, s, len, col, &ev->id, err);
    case NP_BYTES: return native_size(t, n, what, s, len, col, &ev->bytes, err);
    case NP_SRC:
        ev->level_default = 0;
        return native_level(t, n, s, len, col, &ev->level, err);
    case NP_DST: return native_level(t, n, s, len, col, &ev->dst_level, err);
    case NP_DURATION: return native_time(t, n, what, s, len, col, &ev->duration, err);
    case NP_EVENT: return native_u64(t, n, what, s, len, col, &ev->arg, err);
    default: return native_u64_some(t, n, what, s, len, col, &ev->addr, err);
    }
}

static unsigned native_key(const char *k, size_t len)
{
    switch (len) {
    case 2:
        return memcmp(k, "at", 2) == 0   ? NK_AT
               : memcmp(k, "id", 2) == 0 ? NK_ID
               : memcmp(k, "to", 2) == 0 ? NK_TO
                                         : 0;
    case 4:
        return memcmp(k, "name", 4) == 0   ? NK_NAME
               : memcmp(k, "addr", 4) == 0 ? NK_ADDR
               : memcmp(k, "into", 4) == 0 ? NK_INTO
                                           : 0;
    case 5:
        return memcmp(k, "level", 5) == 0 ? NK_LEVEL : 0;
    case 6:
        return memcmp(k, "stream", 6) == 0 ? NK_STREAM : memcmp(k, "donate", 6) == 0 ? NK_DONATE : 0;
    case 8:
        return memcmp(k, "declared", 8) == 0   ? NK_DECLARED
               : memcmp(k, "implicit", 8) == 0 ? NK_IMPLICIT
               : memcmp(k, "prologue", 8) == 0 ? NK_PROLOGUE
                                               : 0;
    default:
        return 0;
    }
}

static int native_keyval(trace *t, native *n, unsigned key, char *v, size_t len,
                         unsigned long col, tr_event *ev, am_error *err)
{
    uint64_t x;
    switch (key) {
    case NK_LEVEL:
        ev->level_default = 0;
        return native_level(t, n, v, len, col, &ev->level, err);
    case NK_STREAM: {
        int r = linebuf_u64(v, len, &x);
        if (r)
            return NFAIL(col, "bad stream '%s': %s", v,
                         r == 2 ? "out of range (max 4294967294)" : native_u64_why(v, r));
        if (x >= TR_ALL)
            return NFAIL(col, "bad stream '%s': out of range (max 4294967294)", v);
        ev->stream = (uint32_t)x;
        return 0;
    }
    case NK_NAME:
        if (len > TR_NAME_MAX)
            return NFAIL(col, "name too long (%zu bytes, limit %d)", len, TR_NAME_MAX);
        for (size_t i = 0; i < len; i++) {
            const unsigned char *u = (const unsigned char *)v + i;
            if (*u < 0x20 || *u == 0x7f)
                return NFAIL(col + i, "name contains a control character");
            /* C1 controls as C0 ones: convert would copy them into its output and a message
             * echo them (until 2026-11-27 they passed, "name=a\xc2\x9b31mb" a CSI) */
            int c1 = am_c1_at(u, len - i);
            if (c1 >= 0)
                return NFAIL(col + i, "name contains a control character (U+%04X)", c1);
        }
        ev->name = v;
        return 0;
    case NK_AT:
        if (native_time(t, n, "at", v, len, col, &ev->time, err))
            return -1;
        if (ev->time > TR_TIME_MAX) /* 2^64 - 1 means "no at=", 2^64 - 2 a stopped clock */
            return NFAIL(col, "bad at '%s': out of range (at most 2^64 - 3 ps)", v);
        if (n->have_at && ev->time < n->last_at)
            return NFAIL(col, "time goes backwards: %llu ps < previous %llu ps",
                         (unsigned long long)ev->time, (unsigned long long)n->last_at);
        n->last_at = ev->time;
        n->have_at = 1;
        return 0;
    case NK_ID:
        return native_u64_some(t, n, "id", v, len, col, &ev->id, err);
    case NK_DECLARED:
        if (len != 1 || (v[0] != '0' && v[0] != '1'))
            return NFAIL(col, "bad declared '%s': expected 0 or 1", v);
        ev->declared = v[0] == '1';
        return 0;
    case NK_PROLOGUE: /* recreates the recording's start state: line 0, as the snapshot
                         reader's prologue, so that the engine does not validate it */
        if (len != 1 || (v[0] != '0' && v[0] != '1'))
            return NFAIL(col, "bad prologue '%s': expected 0 or 1", v);
        if (v[0] == '1')
            ev->line = 0;
        return 0;
    case NK_IMPLICIT:
        if (len != 1 || (v[0] != '0' && v[0] != '1'))
            return NFAIL(col, "bad implicit '%s': expected 0 or 1", v);
        ev->implicit = v[0] == '1';
        return 0;
    case NK_INTO:
        ev->has_into = 1;
        return native_u64(t, n, "into", v, len, col, &ev->into, err);
    case NK_TO:
        ev->has_to = 1;
        return native_u64_some(t, n, "to", v, len, col, &ev->to, err);
    case NK_DONATE:
        ev->has_donate = 1;
        return native_u64(t, n, "donate", v, len, col, &ev->donate, err);
    default:
        return native_u64_some(t, n, "addr", v, len, col, &ev->addr, err);
    }
}

static const native_op *native_find_op(const char *s, size_t len)
{
    for (size_t i = 0; i < AM_ARRAY_LEN(native_ops); i++) {
        const native_op *op = &native_ops[i];
        if (len == 1) {
            if (op->alias == s[0])
                return op;
        } else if (op->name[0] == s[0] && strlen(op->name) == len &&
                   memcmp(op->name, s, len) == 0) {
            return op; /* dispatched on the first character: no string work for the others */
        }
    }
    return NULL;
}

/* What every event starts as (kind and source position set, everything else absent). */
static inline void native_ev_init(const trace *t, const native *n, tr_event *ev, tr_kind kind,
                                  unsigned long col)
{
    *ev = n->blank; /* a struct copy: a memset here compiled to a slow `rep stos` per line */
    ev->kind = kind;
    ev->line = n->lb.line;
    ev->col = col;
}

/* 1 to 19 decimal digits at p (19 cannot overflow), stopping at the first non-digit or at e:
 * the position after them and *v; NULL when there are none or too many. The first eight bytes are
 * converted at once (SWAR): this reads up to eight bytes from p even past e, which both callers
 * allow (the line buffer has LINEBUF_PAD bytes after its end; native_direct keeps a margin). */
static inline const char *native_digits(const char *p, const char *e, uint64_t *v)
{
    const char *s = p;
    uint64_t x = 0;
    unsigned d;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t w;
    memcpy(&w, p, 8);
    w -= 0x3030303030303030ULL; /* digit values; exact up to the first non-digit byte */
    uint64_t nd = (w | (w + 0x7676767676767676ULL)) & 0x8080808080808080ULL; /* not 0..9 */
    unsigned len = nd ? (unsigned)__builtin_ctzll(nd) >> 3 : 8;
    if (len == 0)
        return NULL;
    w <<= (8 - len) * 8; /* the digits to the high bytes: zero bytes are leading zeros */
    w = ((w * 2561) >> 8) & 0x00FF00FF00FF00FFULL;      /* pairs of digits */
    w = ((w * 6553601) >> 16) & 0x0000FFFF0000FFFFULL;  /* groups of four */
    x = (w * 42949672960001ULL) >> 32;                  /* all eight */
    p += len;
    if (len < 8)
        goto end;
#endif
    while (p < e && (d = (unsigned)(unsigned char)*p - '0') <= 9) {
        x = x * 10 + d;
        p++;
    }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
end:
#endif
    if (p == s || p - s > 19)
        return NULL;
    *v = x;
    return p;
}

/* native_digits followed by the end of the line or a space or tab; NULL otherwise (the general
 * path decides). */
static inline const char *native_fast_u64(const char *p, const char *e, uint64_t *v)
{
    p = native_digits(p, e, v);
    if (!p || (p < e && !native_ws(*p)))
        return NULL;
    return p;
}

/* The lines that make up nearly every trace, "alloc ID BYTES" and "free ID" (or "a", "f"), with
 * plain integers, one space or tab between fields and nothing else: parsed straight into *ev
 * without cutting the line into tokens. 1 when the line was one of those; 0 otherwise, with the
 * line untouched, so the general parser handles it (and reports every error exactly). */
static inline int native_fast(const trace *t, const native *n, const char *line, size_t len,
                              tr_event *ev)
{
    const char *p = line, *e = line + len;
    tr_kind kind;
    uint64_t id, bytes = 0;
    if (len >= 3 && native_ws(p[1]) && (p[0] == 'a' || p[0] == 'f')) {
        kind = p[0] == 'a' ? TR_ALLOC : TR_FREE;
        p += 2;
    } else if (len >= 7 && memcmp(p, "alloc", 5) == 0 && native_ws(p[5])) {
        kind = TR_ALLOC;
        p += 6;
    } else if (len >= 6 && memcmp(p, "free", 4) == 0 && native_ws(p[4])) {
        kind = TR_FREE;
        p += 5;
    } else {
        return 0;
    }
    if (!(p = native_fast_u64(p, e, &id)))
        return 0;
    if (kind == TR_ALLOC && (p == e || !(p = native_fast_u64(p + 1, e, &bytes))))
        return 0;
    if (p != e)
        return 0;
    native_ev_init(t, n, ev, kind, 1);
    ev->id = id;
    ev->bytes = bytes;
    return 1;
}

/* The same lines straight from the read buffer, before they are cut out as lines: no search for
 * the newline, no NUL written. Only when the buffer holds at least NATIVE_DIRECT bytes past the
 * position, so every read here (the longest such line is under 56 bytes, plus an eight-byte word)
 * stays inside the data. 1 with *ev and the line consumed; 0 with nothing changed, and the
 * line-by-line path takes it. */
#define NATIVE_DIRECT 64

static inline int native_direct(const trace *t, native *n, tr_event *ev)
{
    linebuf *lb = &n->lb;
    if (!lb->started || lb->end - lb->pos < NATIVE_DIRECT)
        return 0;
    const char *s = lb->buf + lb->pos, *p = s;
    tr_kind kind;
    uint64_t id, bytes = 0;
    if (native_ws(p[1]) && (p[0] == 'a' || p[0] == 'f')) {
        kind = p[0] == 'a' ? TR_ALLOC : TR_FREE;
        p += 2;
    } else if (memcmp(p, "alloc", 5) == 0 && native_ws(p[5])) {
        kind = TR_ALLOC;
        p += 6;
    } else if (memcmp(p, "free", 4) == 0 && native_ws(p[4])) {
        kind = TR_FREE;
        p += 5;
    } else {
        return 0;
    }
    if (!(p = native_digits(p, s + NATIVE_DIRECT - 8, &id)))
        return 0;
    if (kind == TR_ALLOC) {
        if (!native_ws(*p) || !(p = native_digits(p + 1, s + NATIVE_DIRECT - 8, &bytes)))
            return 0;
    }
    if (*p == '\r')
        p++;
    if (*p != '\n')
        return 0;
    lb->pos += (size_t)(p + 1 - s);
    lb->line++;
    if (ev != n->clean) { /* only the fields set below differ between two such events */
        *ev = n->blank;
        n->clean = ev;
    }
    ev->kind = kind;
    ev->line = lb->line;
    ev->col = 1;
    ev->id = id;
    ev->bytes = bytes;
    return 1;
}

/* An address whose range (with the line's BYTES) ends past 2^64 - 1, at the address's column
 * (col): in the snapshot reader's words, an alloc's as 'addr' + 'BYTES', a segment's as 'ADDR' +
 * 'BYTES' (until 2026-11-27 accepted: `amsim check` said ok and a run reported a validation
 * mismatch). Only errors call it. */
__attribute__((noinline, cold)) static int native_range_refused(trace *t, native *n,
                                                                const native_op *op,
                                                                unsigned long col,
                                                                const tr_event *ev, am_error *err)
{
    char why[TRACE_RANGE_WHY_MAX];
    trace_range_why(why, sizeof why, op->kind == TR_ALLOC ? "addr" : "ADDR", ev->addr, "BYTES",
                    ev->bytes);
    return NFAIL(col, "%s", why);
}

/* Parse one event line; 1 with *ev, 0 for a blank or comment line, -1 on error. */
static int native_parse(trace *t, native *n, char *line, size_t len, tr_event *ev, am_error *err)
{
    if (native_fast(t, n, line, len, ev))
        return 1;
    char *p = line, *e = line + len;
    size_t tl;
    char *tok = native_token(&p, e, &tl);
    if (!tok)
        return 0;
    unsigned long col = (unsigned long)(tok - line) + 1;
    const native_op *op = native_find_op(tok, tl);
    if (!op)
        return NFAIL(col, "unknown op '%s' (expected alloc, free, transfer, compute, record, wait, "
                     "sync, use, free_requested, free_completed, segment_alloc, segment_free, "
                     "oom or defrag)", tok);
    native_ev_init(t, n, ev, op->kind, col);

    int npos = 0;
    unsigned seen = 0;
    unsigned long addr_col = 0; /* the column of the address (ADDR or addr=), for its range */
    while ((tok = native_token(&p, e, &tl)) != NULL) {
        col = (unsigned long)(tok - line) + 1;
        char *eq = memchr(tok, '=', tl);
        if (!eq) {
            if (npos == op->npos)
                return NFAIL(col, "unexpected field '%s' (usage: %s)", tok, op->usage);
            if (native_positional(t, n, op->pos[npos], tok, tl, col, ev, err))
                return -1;
            if (op->pos[npos] == NP_ADDR)
                addr_col = col;
            npos++;
            continue;
        }
        if (npos < op->npos)
            return NFAIL(col, "missing %s before '%s' (usage: %s)",
                         native_pos_names[op->pos[npos]], tok, op->usage);
        size_t kl = (size_t)(eq - tok);
        unsigned key = native_key(tok, kl);
        if (!(key & op->keys))
            return NFAIL(col, "unknown field '%.*s' for %s (allowed: %s)", (int)kl, tok, op->name,
                         op->allowed);
        if (seen & key)
            return NFAIL(col, "duplicate field '%.*s'", (int)kl, tok);
        seen |= key;
        if ((seen & (NK_INTO | NK_TO)) == (NK_INTO | NK_TO)) /* one destination buffer */
            return NFAIL(col, TRACE_INTO_TO_MSG);
        char *v = eq + 1;
        size_t vl = tl - kl - 1;
        unsigned long vcol = col + kl + 1;
        if (vl == 0)
            return NFAIL(vcol, "missing value after '%s'", tok);
        if (native_keyval(t, n, key, v, vl, vcol, ev, err))
            return -1;
        if (key == NK_ADDR)
            addr_col = vcol;
    }
    if (npos < op->npos)
        return NFAIL(len + 1, "missing %s (usage: %s)", native_pos_names[op->pos[npos]], op->usage);
    if (addr_col && trace_range_past_end(ev->addr, ev->bytes))
        return native_range_refused(t, n, op, addr_col, ev, err);
    if ((op->kind == TR_SYNC && !(seen & NK_STREAM)) || op->kind == TR_DEFRAG)
        ev->stream = TR_ALL; /* every stream (sync), or none in particular (defrag) */
    return 1;
}

/* Next line from the buffer: 1, 0 at the end, -1 (err set) when too long or unreadable. */
static int native_line(trace *t, native *n, char **line, size_t *len, am_error *err)
{
    int r = linebuf_next(&n->lb, line, len);
    if (r == LINEBUF_TOOLONG)
        return NFAIL(n->lb.max_line + 1, "line too long (limit %zu bytes)", n->lb.max_line);
    if (r == LINEBUF_EREAD)
        return am_fail_at(err, t->path, n->lb.line + 1, 0, "read error: %s",
                          trace_read_why(errno));
    /* every line but those of native_direct (digits and separators only) comes through here */
    const char *z = r == 1 ? memchr(*line, 0, *len) : NULL;
    if (z)
        return NFAIL((unsigned long)(z - *line) + 1, TRACE_NUL_MSG);
    /* a carriage return left inside the line (the one before '\n' is gone) would be read as
     * part of a field, and echoed raw in its message */
    z = r == 1 ? memchr(*line, '\r', *len) : NULL;
    if (z)
        return NFAIL((unsigned long)(z - *line) + 1, TRACE_CR_MSG);
    return r;
}

/* The header field "validated=0|1" (tok, col its 1-based column): 1 says a run validates the
 * trace against its recorded addresses from the start, as it does the snapshot `amsim convert`
 * made it from (trace_validated), even when no allocation outside the prologue recorded one
 * (until 2026-11-27 the field did not exist and such a conversion lost its validation). */
static int native_validated(trace *t, native *n, const char *tok, unsigned long col,
                            int *seen, am_error *err)
{
    if ((*seen)++)
        return NFAIL(col, "duplicate header field 'validated'");
    const char *v = tok + 10;
    if (!*v)
        return NFAIL(col + 10, "missing value after 'validated='");
    if ((v[0] != '0' && v[0] != '1') || v[1])
        return NFAIL(col + 10, "bad validated '%s': expected 0 or 1", v);
    t->validated = v[0] == '1';
    return 0;
}

/* The header "amsim-trace v1 [time_unit=TIME] [skipped=N] [validated=0|1]". */
static int native_header(trace *t, native *n, char *line, size_t len, am_error *err)
{
    char *p = line, *e = line + len;
    size_t tl;
    char *tok = native_token(&p, e, &tl); /* "amsim-trace", checked by the detector */
    if (!tok || strcmp(tok, "amsim-trace") != 0)
        return NFAIL(tok ? (unsigned long)(tok - line) + 1 : 1, "expected the header 'amsim-trace v1'");
    tok = native_token(&p, e, &tl);
    if (!tok)
        return NFAIL(len + 1, "missing version after 'amsim-trace' (expected v1)");
    if (strcmp(tok, "v1") != 0)
        return NFAIL((unsigned long)(tok - line) + 1,
                     "unsupported trace version '%s' (this amsim reads v1)", tok);
    int have_unit = 0, have_skipped = 0, have_validated = 0;
    while ((tok = native_token(&p, e, &tl)) != NULL) {
        unsigned long col = (unsigned long)(tok - line) + 1;
        if (strncmp(tok, "validated=", 10) == 0) {
            if (native_validated(t, n, tok, col, &have_validated, err) != 0)
                return -1;
            continue;
        }
        if (strncmp(tok, "skipped=", 8) == 0) {
            if (have_skipped++)
                return NFAIL(col, "duplicate header field 'skipped'");
            /* rows a source trace skipped, which `amsim convert` carries over so that the
             * converted trace reports them as the source did (until 2026-11-27 they were
             * lost: "0 rows skipped") */
            if (!tok[8])
                return NFAIL(col + 8, "missing value after 'skipped='");
            if (native_u64(t, n, "skipped", tok + 8, tl - 8, col + 8, &t->skipped, err))
                return -1;
            continue;
        }
        if (strncmp(tok, "time_unit=", 10) == 0 && have_unit++)
            return NFAIL(col, "duplicate header field 'time_unit'");
        if (strncmp(tok, "time_unit=", 10) != 0) {
            if (!memchr(tok, '=', tl))
                return NFAIL(col, "unexpected header field '%s' (allowed: time_unit=TIME, "
                             "skipped=N, validated=0|1)", tok);
            return NFAIL(col, "unknown header field '%.*s' (allowed: time_unit, skipped, "
                         "validated)",
                         (int)((char *)memchr(tok, '=', tl) - tok), tok);
        }
        const char *v = tok + 10, *why = "not a time";
        am_ps u;
        col += 10;
        if (!*v)
            return NFAIL(col, "missing value after 'time_unit='");
        char last = v[strlen(v) - 1];
        if (!((last >= 'a' && last <= 'z') || (last >= 'A' && last <= 'Z')))
            return NFAIL(col, "time_unit '%s' needs a unit (ps, ns, us, ms or s)", v);
        /* the config's trace.time_unit parser: a bare unit (time_unit=us) is 1 of it, and the
         * value a whole number of picoseconds, as every unitless time is a multiple of it */
        if (units_time_unit(v, &u, &why) != 0)
            return NFAIL(col, "bad time_unit '%s': %s", tok + 10, why);
        if (u == 0)
            return NFAIL(col, "time_unit must be at least 1 ps");
        n->unit = u;
    }
    return 0;
}

int trace_native_open(trace *t, am_error *err)
{
    native *n = am_calloc(1, sizeof *n);
    linebuf_init(&n->lb, t->f, LINEBUF_MAX_LINE);
    n->unit = t->opts.time_unit ? t->opts.time_unit : AM_PS_PER_NS;
    trace_blank_event(t, &n->blank);
    t->impl = n;
    t->reader = &native_reader;
    char *line;
    size_t len;
    int r;
    while ((r = native_line(t, n, &line, &len, err)) == 1) {
        char *p = line;
        while (native_ws(*p))
            p++;
        if (*p && *p != '#')
            return native_header(t, n, line, len, err);
    }
    if (r == 0)
        return am_fail_at(err, t->path, n->lb.line, 0, "missing header 'amsim-trace v1'");
    return -1;
}

/* Everything but the direct path: line by line, through the general parser. */
static __attribute__((noinline)) int native_next_lines(trace *t, native *n, tr_event *ev,
                                                       am_error *err)
{
    n->clean = NULL; /* the general parser may set any field */
    char *line;
    size_t len;
    int r;
    while ((r = native_line(t, n, &line, &len, err)) == 1) {
        r = native_parse(t, n, line, len, ev, err);
        if (r)
            return r;
    }
    return r;
}

static int native_next(trace *t, tr_event *ev, am_error *err)
{
    native *n = t->impl;
    if (native_direct(t, n, ev))
        return 1;
    return native_next_lines(t, n, ev, err);
}

static void native_close(trace *t)
{
    native *n = t->impl;
    if (!n)
        return;
    linebuf_free(&n->lb);
    free(n);
    t->impl = NULL;
}
