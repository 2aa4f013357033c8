/* test_pickle.c - the restricted unpickler (sim/pickle.c) on hostile input built byte by byte,
 * and the snapshot reader (sim/trace_pickle.c) on small hand-built snapshots, including the
 * backward walk that recovers the state at the start of a trace (allocators.md section 4). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "../../sim/pickle.h"
#include "../../sim/trace_impl.h"
#include "testutil.h"

/* ---- a tiny pickle writer ---- */

typedef struct pw { unsigned char *b; size_t n, cap; } pw;

static void wb(pw *w, unsigned char c)
{
    if (w->n == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 256;
        w->b = realloc(w->b, w->cap);
    }
    w->b[w->n++] = c;
}

static void wstr(pw *w, const char *s)
{
    size_t n = strlen(s);
    wb(w, 0x8c); /* SHORT_BINUNICODE */
    wb(w, (unsigned char)n);
    for (size_t i = 0; i < n; i++)
        wb(w, (unsigned char)s[i]);
}

static void wint(pw *w, uint64_t v)
{
    if (v < (1ULL << 31)) {
        wb(w, 'J');
        for (int i = 0; i < 4; i++)
            wb(w, (unsigned char)(v >> (8 * i)));
        return;
    }
    wb(w, 0x8a); /* LONG1, 8 bytes, top bit clear */
    wb(w, 8);
    for (int i = 0; i < 8; i++)
        wb(w, (unsigned char)(v >> (8 * i)));
}

static void wkv_int(pw *w, const char *k, uint64_t v) { wstr(w, k); wint(w, v); }
static void wkv_str(pw *w, const char *k, const char *v) { wstr(w, k); wstr(w, v); }

/* Parse w's bytes; returns status and copies the message. */
static int parse(const pw *w, char *msg, pkl_doc **doc)
{
    am_error err = {0};
    pkl_doc *d = NULL;
    int rc = pkl_parse(w->b, w->n, "t.pickle", &d, &err);
    if (msg)
        snprintf(msg, 1024, "%s", rc ? err.msg : "");
    if (doc)
        *doc = d;
    else
        pkl_free(d);
    return rc ? err.status : AM_OK;
}

static void expect_refusal(const unsigned char *bytes, size_t n, const char *msg)
{
    pw w = {0};
    for (size_t i = 0; i < n; i++)
        wb(&w, bytes[i]);
    char got[1024];
    CU_ASSERT_EQUAL(parse(&w, got, NULL), AM_EINPUT);
    if (strstr(got, msg) == NULL)
        printf("\nexpected \"%s\"\n     got \"%s\"\n", msg, got);
    CU_ASSERT_PTR_NOT_NULL(strstr(got, msg));
    free(w.b);
}

/* ---- hostile input ---- */

static void test_refused_opcodes(void)
{
    const struct { unsigned char op; const char *name; } ops[] = {
        {'c', "GLOBAL"}, {0x93, "STACK_GLOBAL"}, {'R', "REDUCE"}, {'b', "BUILD"},
        {'i', "INST"}, {'o', "OBJ"}, {0x81, "NEWOBJ"}, {0x92, "NEWOBJ_EX"},
        {'P', "PERSID"}, {'Q', "BINPERSID"}, {0x82, "EXT1"},
    };
    for (size_t i = 0; i < AM_ARRAY_LEN(ops); i++) {
        unsigned char b[] = {0x80, 4, 'N', ops[i].op, 0, 0, 0, 0, '.'};
        char msg[256];
        snprintf(msg, sizeof msg, "t.pickle: byte 3: pickle opcode %s ", ops[i].name);
        expect_refusal(b, sizeof b, msg);
    }
    unsigned char sg[] = {0x80, 4, 0x8c, 1, 'o', 0x8c, 1, 's', 0x93, '.'};
    expect_refusal(sg, sizeof sg, "t.pickle: byte 8: pickle opcode STACK_GLOBAL loads a class; "
                                  "a memory snapshot holds only plain data, refusing to read it");
}

static void test_truncated_and_lengths(void)
{
    unsigned char trunc[] = {0x80, 4, '}', 0x8c, 3, 'a', 'b'};
    expect_refusal(trunc, sizeof trunc,
                   "t.pickle: byte 3: pickle opcode SHORT_BINUNICODE declares 3 bytes but only "
                   "2 remain");
    unsigned char nostop[] = {0x80, 4, ']'};
    expect_refusal(nostop, sizeof nostop, "byte 3: the file ends before the STOP opcode");
    unsigned char huge[] = {0x80, 4, 'X', 0xff, 0xff, 0xff, 0x7f, 'a', '.'};
    expect_refusal(huge, sizeof huge, "byte 2: pickle opcode BINUNICODE declares 2147483647 "
                                      "bytes but only 2 remain");
    unsigned char huge8[] = {0x80, 4, 0x8e, 0, 0, 0, 0, 0, 0, 0, 0x80, '.'};
    expect_refusal(huge8, sizeof huge8, "pickle opcode BINBYTES8 declares");
    unsigned char frame[] = {0x80, 4, 0x95, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 'N', '.'};
    expect_refusal(frame, sizeof frame, "pickle opcode FRAME declares 65535 bytes");
    unsigned char op_trunc[] = {0x80, 4, 'J', 1, 2};
    expect_refusal(op_trunc, sizeof op_trunc, "pickle opcode BININT: the file ends inside");
    unsigned char unknown[] = {0x80, 4, 0xfe, '.'};
    expect_refusal(unknown, sizeof unknown, "byte 2: unknown or unsupported pickle opcode 0xfe");
    unsigned char proto1[] = {0x80, 1, 'N', '.'};
    expect_refusal(proto1, sizeof proto1, "pickle protocol 1 is not supported");
}

static void test_nesting_bombs(void)
{
    pw w = {0};
    wb(&w, 0x80);
    wb(&w, 4);
    for (int i = 0; i < 100000; i++)
        wb(&w, ']');
    for (int i = 0; i < 99999; i++)
        wb(&w, 'a');
    wb(&w, '.');
    char msg[1024];
    CU_ASSERT_EQUAL(parse(&w, msg, NULL), AM_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "containers nested more than 1000 deep"));
    w.n = 2;
    for (int i = 0; i < 100000; i++)
        wb(&w, '(');
    wb(&w, '.');
    CU_ASSERT_EQUAL(parse(&w, msg, NULL), AM_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "byte 1002: more than 1000 open MARKs"));
    free(w.b);
}

static void test_memo_bigint_types(void)
{
    unsigned char unset[] = {0x80, 4, ']', 0x94, 'h', 5, '.'};
    expect_refusal(unset, sizeof unset,
                   "t.pickle: byte 4: pickle opcode BINGET refers to memo slot 5, which is unset");
    unsigned char lunset[] = {0x80, 4, 'j', 0, 0, 1, 0, '.'};
    expect_refusal(lunset, sizeof lunset, "LONG_BINGET refers to memo slot 65536");
    unsigned char big[] = {0x80, 4, 0x8a, 9, 0, 0, 0, 0, 0, 0, 0, 0, 1, '.'}; /* 2^64 */
    expect_refusal(big, sizeof big, "byte 2: pickle opcode LONG1: integer above 2^64 - 1");
    unsigned char neg[] = {0x80, 4, 0x8a, 9, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0xff,
                           '.'}; /* -2^63 - 1 */
    expect_refusal(neg, sizeof neg, "byte 2: pickle opcode LONG1: integer below -2^63");
    /* 2^63 and 2^64 - 1, as amsim's export writes an address or size from 2^63 (until
     * 2026-11-27 refused as wider than 64 bits): pkl_u64 reads them, pkl_int does not */
    const unsigned char wide[] = {0x80, 4, ']', '(', 0x8a, 9, 0, 0, 0, 0, 0, 0, 0, 0x80, 0,
                                  0x8b, 9, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                  0, 'e', '.'};
    pw ww = {0};
    for (size_t i = 0; i < sizeof wide; i++)
        wb(&ww, wide[i]);
    pkl_doc *wd;
    CU_ASSERT_EQUAL_FATAL(parse(&ww, NULL, &wd), AM_OK);
    const pkl_value *wr = pkl_root(wd);
    CU_ASSERT_EQUAL_FATAL(wr->len, 2);
    uint64_t u = 0;
    int64_t si = 0;
    CU_ASSERT(pkl_u64(wr->items[0], &u) == 0 && u == 1ULL << 63);
    CU_ASSERT(pkl_u64(wr->items[1], &u) == 0 && u == UINT64_MAX);
    CU_ASSERT_EQUAL(pkl_int(wr->items[0], &si), -1);
    pkl_free(wd);
    free(ww.b);
    /* True and False (NEWTRUE, NEWFALSE) are bools, no integers: PyTorch writes none where an
     * integer is read (until 2026-11-27 both read them, 'stream': True as stream 1) */
    const unsigned char bools[] = {0x80, 4, ']', '(', 0x88, 0x89, 'e', '.'};
    pw wb2 = {0};
    for (size_t i = 0; i < sizeof bools; i++)
        wb(&wb2, bools[i]);
    pkl_doc *bd;
    CU_ASSERT_EQUAL_FATAL(parse(&wb2, NULL, &bd), AM_OK);
    const pkl_value *br = pkl_root(bd);
    CU_ASSERT_EQUAL_FATAL(br->len, 2);
    CU_ASSERT(br->items[0]->type == PKL_BOOL && br->items[0]->i == 1);
    CU_ASSERT_EQUAL(pkl_int(br->items[0], &si), -1);
    CU_ASSERT_EQUAL(pkl_int(br->items[1], &si), -1);
    CU_ASSERT_EQUAL(pkl_u64(br->items[0], &u), -1);
    CU_ASSERT_EQUAL(pkl_u64(br->items[1], &u), -1);
    pkl_free(bd);
    free(wb2.b);
    /* negative numbers of fewer bytes sign-extend; 2^63 - 1 fits */
    pw w = {0};
    const unsigned char good[] = {0x80, 4, ']', '(', 0x8a, 1, 0xff, 0x94, 0x8a, 8, 0xff, 0xff,
                                  0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 'J', 0xfe, 0xff, 0xff,
                                  0xff, 'h', 0, 'e', '.'};
    for (size_t i = 0; i < sizeof good; i++)
        wb(&w, good[i]);
    pkl_doc *d;
    CU_ASSERT_EQUAL_FATAL(parse(&w, NULL, &d), AM_OK);
    const pkl_value *r = pkl_root(d);
    CU_ASSERT_EQUAL_FATAL(r->type, PKL_LIST);
    CU_ASSERT_EQUAL_FATAL(r->len, 4);
    CU_ASSERT_EQUAL(r->items[0]->i, -1);
    CU_ASSERT_EQUAL(r->items[1]->i, INT64_MAX);
    CU_ASSERT_EQUAL(r->items[2]->i, -2);
    uint64_t un = 0;
    CU_ASSERT_EQUAL(pkl_u64(r->items[0], &un), -1); /* a negative is no address or size */
    /* memo sharing: the -1 twice (until 2026-11-27 this test had the list hold itself, which
     * is now refused as a cycle: test_nesting_through_memo) */
    CU_ASSERT_PTR_EQUAL(r->items[3], r->items[0]);
    pkl_free(d);
    free(w.b);
}

/* ---- snapshots built by hand ---- */

/* One segment and a trace, as a snapshot pickle in the temp directory. */
typedef struct sblock { uint64_t off, size, req; const char *state; } sblock;
typedef struct sentry { const char *action; uint64_t off, size; } sentry;

static int snap_pool = -1; /* >= 0: the segment gets segment_pool_id (snap_pool, 0) */
static int snap_device;    /* the device of the segment and the trace: device_traces has
                              that many empty lists before its own */
static int snap_streams;   /* 1: entry i on stream handle 7 + i / 3 (else stream 0) */
static long snap_zero_at = -1; /* with snap_streams: the buffer i / 3 on stream 0 instead */
static int snap_settings;  /* 1: allocator_settings as a run with expandable segments and
                              roundup_power2_divisions {1 MiB: 4, 2 MiB: 8} writes them; 2:
                              the same with every interval's divisions 0 */
static const char *snap_set_key; /* with snap_settings 3: allocator_settings holds only this
                                   key, of the value snap_set_val writes (write_set_val); with
                                   snap_settings 4 allocator_settings is a list */
static const char *snap_set_val;
static const long *snap_times; /* entry i's time_us (> -2^31) instead of 1000 + i */
static int snap_lists = -1; /* >= 0: device_traces is that many empty lists (no entries) */
static const char *snap_odd; /* a field of another type (write_odd): "time_us_float",
                                "time_us_frac", "time_us_str", "stream_str", "stream_none",
                                "seg_stream_str" or "seg_device_str"; NULL: none */

/* BINFLOAT: 'G' and the double, big-endian */
/* Set: writes 'frames' of block i (block 1) or trace entry i (block 0) when it returns 1 after
 * writing the key and a value (test_frame_names). */
static int (*snap_frames)(pw *w, int block, size_t i);

static void wfloat(pw *w, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    wb(w, 'G');
    for (int i = 7; i >= 0; i--)
        wb(w, (unsigned char)(u >> (8 * i)));
}

/* The value of key (a segment's "stream" or "device", an entry's "stream" or "time_us") as
 * snap_odd asks: 1 when written, 0 when the caller writes the usual int. */
static int write_odd(pw *w, const char *where, const char *key, uint64_t usual)
{
    char want[32];
    if (!snap_odd || strncmp(snap_odd, where, strlen(where)) != 0)
        return 0;
    snprintf(want, sizeof want, "%s%s_", where, key);
    size_t n = strlen(want);
    if (strncmp(snap_odd, want, n) != 0)
        return 0;
    const char *how = snap_odd + n;
    wstr(w, key);
    if (strcmp(how, "float") == 0)
        wfloat(w, (double)usual);
    else if (strcmp(how, "frac") == 0)
        wfloat(w, (double)usual + 0.5);
    else if (strcmp(how, "str") == 0)
        wstr(w, "x");
    else
        wb(w, 'N'); /* None */
    return 1;
}

/* The value of an allocator setting as snap_set_val names it: "int4", "int1", "int-2",
 * "float-0" (a float, -0.0), "list40" ([4, 0]), "str4", "strTrue", "str200MB", "str0.8", "none",
 * "dict1x" ({'1': 'x'}), "dict3" ({'3': 4}). */
static void write_set_val(pw *w, const char *how)
{
    if (strncmp(how, "float", 5) == 0) {
        wfloat(w, strtod(how + 5, NULL));
    } else if (strncmp(how, "int", 3) == 0) {
        long v = strtol(how + 3, NULL, 10);
        if (v < 0) {
            wb(w, 'J'); /* BININT, 4 bytes little-endian */
            for (int i = 0; i < 4; i++)
                wb(w, (unsigned char)((unsigned long)v >> (8 * i)));
        } else
            wint(w, (uint64_t)v);
    } else if (strcmp(how, "list40") == 0) {
        wb(w, ']');
        wb(w, '(');
        wint(w, 4);
        wint(w, 0);
        wb(w, 'e');
    } else if (strncmp(how, "str", 3) == 0) {
        wstr(w, how + 3);
    } else if (strcmp(how, "none") == 0) {
        wb(w, 'N');
    } else {
        wb(w, '}');
        wb(w, '(');
        wstr(w, strcmp(how, "dict1x") == 0 ? "1" : "3");
        if (strcmp(how, "dict1x") == 0)
            wstr(w, "x");
        else
            wint(w, 4);
        wb(w, 'u');
    }
}

static const char *write_snapshot(const char *name, uint64_t base, uint64_t segsize,
                                  const sblock *b, size_t nb, const sentry *e, size_t ne)
{
    pw w = {0};
    wb(&w, 0x80);
    wb(&w, 4);
    wb(&w, '}');
    wb(&w, '(');
    wstr(&w, "segments");
    wb(&w, ']');
    wb(&w, '(');
    wb(&w, '}');
    wb(&w, '(');
    if (!write_odd(&w, "seg_", "device", (uint64_t)snap_device))
        wkv_int(&w, "device", (uint64_t)snap_device);
    wkv_int(&w, "address", base);
    wkv_int(&w, "total_size", segsize);
    if (!write_odd(&w, "seg_", "stream", 0))
        wkv_int(&w, "stream", 0);
    wkv_str(&w, "segment_type", segsize == (2u << 20) ? "small" : "large");
    if (snap_pool >= 0) {
        wstr(&w, "segment_pool_id");
        wint(&w, (uint64_t)snap_pool);
        wint(&w, 0);
        wb(&w, 0x86); /* TUPLE2 */
    }
    wstr(&w, "blocks");
    wb(&w, ']');
    wb(&w, '(');
    for (size_t i = 0; i < nb; i++) {
        wb(&w, '}');
        wb(&w, '(');
        wkv_int(&w, "address", base + b[i].off);
        wkv_int(&w, "size", b[i].size);
        wkv_int(&w, "requested_size", b[i].req);
        wkv_str(&w, "state", b[i].state);
        if (snap_frames)
            snap_frames(&w, 1, i);
        wb(&w, 'u');
    }
    wb(&w, 'e');
    wb(&w, 'u');
    wb(&w, 'e');
    wstr(&w, "device_traces");
    wb(&w, ']');
    for (int d = 0; d < (snap_lists >= 0 ? snap_lists : snap_device); d++) {
        wb(&w, ']'); /* an empty list, appended */
        wb(&w, 'a');
    }
    if (snap_lists < 0) {
        wb(&w, ']');
        wb(&w, '(');
        for (size_t i = 0; i < ne; i++) {
            wb(&w, '}');
            wb(&w, '(');
            wkv_str(&w, "action", e[i].action);
            wkv_int(&w, "addr", base + e[i].off);
            wkv_int(&w, "size", e[i].size);
            if (!write_odd(&w, "", "stream", 0))
                wkv_int(&w, "stream", !snap_streams || (long)(i / 3) == snap_zero_at ? 0
                                                                             : 7 + i / 3);
            if (snap_times && snap_times[i] < 0) {
                wstr(&w, "time_us");
                wb(&w, 'J'); /* BININT, 4 bytes little-endian */
                for (int k = 0; k < 4; k++)
                    wb(&w, (unsigned char)((unsigned long)snap_times[i] >> (8 * k)));
            } else if (snap_times)
                wkv_int(&w, "time_us", (uint64_t)snap_times[i]);
            else if (!write_odd(&w, "", "time_us", 1000 + i))
                wkv_int(&w, "time_us", 1000 + i);
            if (snap_frames)
                snap_frames(&w, 0, i);
            wb(&w, 'u');
        }
        wb(&w, 'e');
        wb(&w, 'a');
    }
    if (snap_settings == 3) {
        wstr(&w, "allocator_settings");
        wb(&w, '}');
        wb(&w, '(');
        wstr(&w, snap_set_key);
        write_set_val(&w, snap_set_val);
        wb(&w, 'u');
    } else if (snap_settings == 4) {
        wstr(&w, "allocator_settings");
        wb(&w, ']');
    } else if (snap_settings) {
        wstr(&w, "allocator_settings");
        wb(&w, '}');
        wb(&w, '(');
        wstr(&w, "max_split_size");
        wb(&w, 'J'); /* -1: unlimited */
        for (int i = 0; i < 4; i++)
            wb(&w, 0xff);
        wstr(&w, "expandable_segments");
        wb(&w, 0x88); /* NEWTRUE */
        wstr(&w, "garbage_collection_threshold");
        wb(&w, 'G'); /* BINFLOAT 0.0 */
        for (int i = 0; i < 8; i++)
            wb(&w, 0);
        wstr(&w, "roundup_power2_divisions");
        wb(&w, '}');
        wb(&w, '(');
        for (unsigned mb = 1; mb <= 32768; mb *= 2) {
            char k[8];
            snprintf(k, sizeof k, "%u", mb);
            wkv_int(&w, k, snap_settings == 2 ? 0 : mb == 1 ? 4 : mb == 2 ? 8 : 0);
        }
        wb(&w, 'u');
        wb(&w, 'u');
    }
    wb(&w, 'u');
    wb(&w, '.');
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tu_tmpdir(), name);
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fwrite(w.b, 1, w.n, f);
    fclose(f);
    free(w.b);
    return path;
}

/* Open a snapshot as the trace layer does: trace_pickle_open's status, its message in *err. */
static int open_pickle(trace *t, const char *path, int device, am_error *err)
{
    memset(t, 0, sizeof *t);
    t->path = (char *)(uintptr_t)path;
    t->opts.device = device;
    t->f = fopen(path, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t->f);
    return trace_pickle_open(t, err);
}

/* Open with the snapshot reader; events into ev[] (at most cap). -1 and msg on error. */
static uint64_t last_skipped; /* the last read_events' skipped count */

static int read_events(const char *path, int device, tr_event *ev, size_t cap, size_t *n,
                       char *msg)
{
    trace t;
    am_error err = {0};
    int rc = open_pickle(&t, path, device, &err);
    *n = 0;
    if (rc == 0) {
        tr_event e;
        while (t.reader->next(&t, &e, &err) == 1)
            if (*n < cap)
                ev[(*n)++] = e;
        last_skipped = t.skipped;
        t.reader->close(&t);
    } else {
        snprintf(msg, 1024, "%s", err.msg);
        CU_ASSERT_EQUAL(err.status, AM_EINPUT);
    }
    fclose(t.f);
    return rc;
}

#define MB (1ULL << 20)

/* A whole run on one small segment: declaration, creation, then the trace as recorded. */
static void test_round_trip(void)
{
    const uint64_t base = 47294971904ULL;
    const sblock b[] = {{0, 2 * MB, 0, "inactive"}};
    const sentry e[] = {{"alloc", 0, 1000}, {"free_requested", 0, 1000},
                        {"free_completed", 0, 1000}, {"oom", 0, 4096}};
    const char *path = write_snapshot("rt.pickle", base, 2 * MB, b, 1, e, 4);
    tr_event ev[32];
    size_t n;
    char msg[1024];
    CU_ASSERT_EQUAL_FATAL(read_events(path, 0, ev, 32, &n, msg), 0);
    /* declaration; creator alloc + free; the free 2 MiB tiled in two 1 MiB pieces and
     * freed; the four trace entries */
    CU_ASSERT_EQUAL_FATAL(n, 1 + 2 + 2 + 2 + 4);
    CU_ASSERT_EQUAL(ev[0].kind, TR_SEGMENT_ALLOC);
    CU_ASSERT_EQUAL(ev[0].declared, 1);
    CU_ASSERT_EQUAL(ev[0].addr, base);
    CU_ASSERT_EQUAL(ev[0].bytes, 2 * MB);
    CU_ASSERT_EQUAL(ev[1].kind, TR_ALLOC);
    CU_ASSERT_EQUAL(ev[1].bytes, 512);
    CU_ASSERT_EQUAL(ev[1].addr, base);
    CU_ASSERT_EQUAL(ev[2].kind, TR_FREE);
    CU_ASSERT_EQUAL(ev[3].addr, base);
    CU_ASSERT_EQUAL(ev[4].addr, base + MB);
    CU_ASSERT_EQUAL(ev[5].kind, TR_FREE);
    CU_ASSERT_EQUAL(ev[6].kind, TR_FREE);
    const tr_event *a = &ev[7];
    CU_ASSERT_EQUAL(a->kind, TR_ALLOC);
    CU_ASSERT_EQUAL(a->bytes, 1000);
    CU_ASSERT_EQUAL(a->addr, base);
    CU_ASSERT_EQUAL(a->time, 0);
    CU_ASSERT_EQUAL(a->line, 1);
    CU_ASSERT_EQUAL(ev[8].kind, TR_FREE_REQUESTED);
    CU_ASSERT_EQUAL(ev[8].id, a->id);
    CU_ASSERT_EQUAL(ev[8].time, AM_PS_PER_US);
    CU_ASSERT_EQUAL(ev[9].kind, TR_FREE_COMPLETED);
    CU_ASSERT_EQUAL(ev[9].id, a->id);
    CU_ASSERT_EQUAL(ev[10].kind, TR_OOM_RECORDED);
    CU_ASSERT_EQUAL(ev[10].bytes, 4096);
    /* a device past device_traces with no segments either: refused naming the one recorded
     * (until 2026-11-27 "device 1: the snapshot has traces for 1 device (0..0)", which did not
     * say that a device's segments alone are read) */
    CU_ASSERT_EQUAL(read_events(path, 1, ev, 32, &n, msg), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "rt.pickle: device 1 has no trace entries and no "
                                       "segments; the snapshot records device 0 (choose it with "
                                       "--device 0)"));
}

/* The trace starts mid-run: a block allocated before it is freed during it, another is still
 * live at the dump. The backward walk recreates both at their addresses. */
static void test_backward_walk(void)
{
    const uint64_t base = 1ULL << 30;
    const sblock b[] = {{0, 4 * MB, 4 * MB, "active_allocated"},
                        {4 * MB, 16 * MB, 0, "inactive"}};
    const sentry e[] = {{"free_requested", 6 * MB, 3 * MB}, {"free_completed", 6 * MB, 3 * MB},
                        {"alloc", 4 * MB, 2 * MB}, {"free_requested", 4 * MB, 2 * MB},
                        {"free_completed", 4 * MB, 2 * MB}};
    const char *path = write_snapshot("bw.pickle", base, 20 * MB, b, 2, e, 5);
    tr_event ev[32];
    size_t n;
    char msg[1024];
    CU_ASSERT_EQUAL_FATAL(read_events(path, 0, ev, 32, &n, msg), 0);
    /* start state: [0,4) live, [4,6) free, [6,9) live (freed in the trace), [9,20) free */
    const struct { tr_kind k; uint64_t off, bytes; } want[] = {
        {TR_SEGMENT_ALLOC, 0, 20 * MB}, {TR_ALLOC, 0, 20 * MB}, {TR_FREE, 0, 0},
        {TR_ALLOC, 0, 4 * MB}, {TR_ALLOC, 4 * MB, 2 * MB}, {TR_ALLOC, 6 * MB, 3 * MB},
        {TR_ALLOC, 9 * MB, 11 * MB}, {TR_FREE, 0, 0}, {TR_FREE, 0, 0},
        {TR_FREE_REQUESTED, 0, 0}, {TR_FREE_COMPLETED, 0, 0}, {TR_ALLOC, 4 * MB, 2 * MB},
        {TR_FREE_REQUESTED, 0, 0}, {TR_FREE_COMPLETED, 0, 0}};
    CU_ASSERT_EQUAL_FATAL(n, AM_ARRAY_LEN(want));
    for (size_t i = 0; i < n; i++) {
        CU_ASSERT_EQUAL(ev[i].kind, want[i].k);
        if (want[i].k == TR_ALLOC || want[i].k == TR_SEGMENT_ALLOC) {
            CU_ASSERT_EQUAL(ev[i].addr, base + want[i].off);
            CU_ASSERT_EQUAL(ev[i].bytes, want[i].bytes);
        }
    }
    CU_ASSERT_EQUAL(ev[7].id, ev[4].id);  /* the free gaps go back */
    CU_ASSERT_EQUAL(ev[8].id, ev[6].id);
    CU_ASSERT_EQUAL(ev[9].id, ev[5].id);  /* the trace frees the pre-trace block */
    CU_ASSERT_EQUAL(ev[10].id, ev[5].id);
}

/* Live blocks of the start state the trace never touches are requested with their recorded
 * requested_size, not their size (until 2026-11-27 the size: peak live, requested bytes and
 * internal fragmentation counted their unrequested bytes). The tile is freed and requested
 * again once the segment is tiled, so the caching policy still places every block, and the
 * trace's own allocation, at the recorded address. */
static void test_start_requested_size(void)
{
    const uint64_t base = 1ULL << 30;
    /* [0,3) live, 2.25 MiB requested (an unsplit remainder under 1 MiB); [3,7) pending,
     * 4 MiB - 100 B requested; [7,8) live, requested = size; [8,20) free */
    const sblock b[] = {{0, 3 * MB, 2359296, "active_allocated"},
                        {3 * MB, 4 * MB, 4 * MB - 100, "active_pending_free"},
                        {7 * MB, 1 * MB + 512, 1 * MB + 512, "active_allocated"},
                        {8 * MB + 512, 12 * MB - 512, 0, "inactive"}};
    const sentry e[] = {{"alloc", 8 * MB + 512, 2 * MB}};
    const char *path = write_snapshot("req.pickle", base, 20 * MB, b, 4, e, 1);
    tr_event ev[32];
    size_t n;
    char msg[1024];
    CU_ASSERT_EQUAL_FATAL(read_events(path, 0, ev, 32, &n, msg), 0);
    /* declaration; creator alloc + free; four tiles; the two smaller requests (free, alloc);
     * the pending block's free_requested; the free block's free; the trace's alloc */
    const struct { tr_kind k; uint64_t off, bytes; } want[] = {
        {TR_SEGMENT_ALLOC, 0, 20 * MB}, {TR_ALLOC, 0, 20 * MB}, {TR_FREE, 0, 0},
        {TR_ALLOC, 0, 3 * MB}, {TR_ALLOC, 3 * MB, 4 * MB}, {TR_ALLOC, 7 * MB, MB + 512},
        {TR_ALLOC, 8 * MB + 512, 12 * MB - 512},
        {TR_FREE, 0, 0}, {TR_ALLOC, 0, 2359296}, {TR_FREE, 0, 0}, {TR_ALLOC, 3 * MB, 4 * MB - 100},
        {TR_FREE_REQUESTED, 0, 0}, {TR_FREE, 0, 0}, {TR_ALLOC, 8 * MB + 512, 2 * MB}};
    CU_ASSERT_EQUAL_FATAL(n, AM_ARRAY_LEN(want));
    for (size_t i = 0; i < n; i++) {
        CU_ASSERT_EQUAL(ev[i].kind, want[i].k);
        if (want[i].k == TR_ALLOC || want[i].k == TR_SEGMENT_ALLOC) {
            CU_ASSERT_EQUAL(ev[i].addr, base + want[i].off);
            CU_ASSERT_EQUAL(ev[i].bytes, want[i].bytes);
        }
    }
    CU_ASSERT_EQUAL(ev[7].id, ev[3].id);   /* the tile goes, the smaller request takes its place */
    CU_ASSERT_EQUAL(ev[9].id, ev[4].id);
    CU_ASSERT_EQUAL(ev[11].id, ev[10].id); /* the pending block's request is the new one */
    CU_ASSERT_EQUAL(ev[12].id, ev[6].id);  /* the free block */
    /* replayed by the caching policy: every block at its recorded address, and the recorded
     * request sizes in the peak: 2359296 + 1049088 + 2097152 bytes (the pending block is no
     * longer live; until 2026-11-27 6291968 bytes, the first block counted at 3 MiB) */
    const char *y = tu_write("req.yaml", "version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n"
                             "    allocator:\n      policy: caching\n"
                             "      segment_addresses: recorded\n");
    char args[2048], *out = NULL;
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --placements '%s/req.csv' --json "
             "'%s/req.json'", y, path, tu_tmpdir(), tu_tmpdir());
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, &out, NULL), 0);
    free(out);
    char where[512];
    snprintf(where, sizeof where, "%s/req.csv", tu_tmpdir());
    char *csv = tu_slurp(where, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, ",hbm,1073741824,2359296,3145728,ok\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, ",hbm,1076887552,4194204,4194304,ok\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, ",hbm,1082130944,2097152,2097152,ok\n"));
    free(csv);
    snprintf(where, sizeof where, "%s/req.json", tu_tmpdir());
    char *json = tu_slurp(where, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(json);
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"peak_live_bytes\": 5505536"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"address_matches\": 1"));
    free(json);
}

/* The spec's no-op action (snapshot) is passed over; an action this reader does not know is
 * counted with the skipped rows, never dropped without a trace. */
static void test_unknown_actions(void)
{
    const uint64_t base = 1ULL << 30;
    const sblock b[] = {{0, 2 * MB, 0, "inactive"}};
    const sentry e[] = {{"alloc", 0, 1000}, {"snapshot", 0, 0}, {"segment_reserve", 0, 4096},
                        {"free_requested", 0, 1000}, {"free_completed", 0, 1000}};
    const char *path = write_snapshot("ua.pickle", base, 2 * MB, b, 1, e, 5);
    tr_event ev[32];
    size_t n;
    char msg[1024];
    CU_ASSERT_EQUAL_FATAL(read_events(path, 0, ev, 32, &n, msg), 0);
    CU_ASSERT_EQUAL(n, 1 + 2 + 2 + 2 + 3); /* as the round trip, without its oom */
    CU_ASSERT_EQUAL(ev[n - 3].kind, TR_ALLOC);
    CU_ASSERT_EQUAL(ev[n - 2].kind, TR_FREE_REQUESTED);
    CU_ASSERT_EQUAL(last_skipped, 1);
}

/* A free of an address the trace never allocated is one skipped row per entry: it fits neither
 * the backward walk nor the trace, and until 2026-11-27 each counted it (2 for 1). A
 * free_requested and its free_completed are two entries, two rows. */
static void test_unknown_frees(void)
{
    const uint64_t base = 1ULL << 30;
    const sblock b[] = {{0, 512, 512, "active_allocated"}, {512, 2 * MB - 512, 0, "inactive"}};
    static const struct {
        const char *name, *free1, *free2;
        uint64_t skipped;
    } c[] = {{"uf1.pickle", "free_requested", NULL, 1},
             {"uf2.pickle", "free_completed", NULL, 1},
             {"uf3.pickle", "free_requested", "free_completed", 2}};
    for (size_t k = 0; k < AM_ARRAY_LEN(c); k++) {
        sentry e[] = {{"segment_alloc", 0, 2 * MB}, {"alloc", 0, 512}, {c[k].free1, 4096, 512},
                      {c[k].free2, 4096, 512}};
        const char *path = write_snapshot(c[k].name, base, 2 * MB, b, 2, e, c[k].free2 ? 4 : 3);
        tr_event ev[32];
        size_t n;
        char msg[1024];
        CU_ASSERT_EQUAL_FATAL(read_events(path, 0, ev, 32, &n, msg), 0);
        CU_ASSERT_EQUAL(n, 3); /* declaration, segment_alloc, alloc: no free */
        CU_ASSERT_EQUAL(ev[n - 1].kind, TR_ALLOC);
        CU_ASSERT_EQUAL(last_skipped, c[k].skipped);
        if (last_skipped != c[k].skipped)
            fprintf(stderr, "\n  %s: %llu rows skipped, want %llu\n", c[k].name,
                    (unsigned long long)last_skipped, (unsigned long long)c[k].skipped);
    }
}

/* Entries outside every known segment do not fit the backward walk but are replayed, so they
 * are no skipped rows: the alloc 4 MiB past the only segment, its free_requested and its
 * free_completed give three events and 0 rows skipped. Until 2026-11-27 the walk counted each
 * (3 rows skipped) while all three were replayed. */
static void test_outside_segments_replayed(void)
{
    const uint64_t base = 1ULL << 30;
    const sblock b[] = {{0, 2 * MB, 0, "inactive"}};
    const sentry e[] = {{"alloc", 4 * MB, 512}, {"free_requested", 4 * MB, 512},
                        {"free_completed", 4 * MB, 512}};
    const char *path = write_snapshot("os.pickle", base, 2 * MB, b, 1, e, 3);
    tr_event ev[32];
    size_t n;
    char msg[1024];
    CU_ASSERT_EQUAL_FATAL(read_events(path, 0, ev, 32, &n, msg), 0);
    CU_ASSERT_FATAL(n >= 3);
    CU_ASSERT_EQUAL(ev[n - 3].kind, TR_ALLOC);
    CU_ASSERT_EQUAL(ev[n - 3].addr, base + 4 * MB);
    CU_ASSERT_EQUAL(ev[n - 2].kind, TR_FREE_REQUESTED);
    CU_ASSERT_EQUAL(ev[n - 1].kind, TR_FREE_COMPLETED);
    CU_ASSERT_EQUAL(last_skipped, 0);
}

/* An alloc whose request overlaps a block still live, or pending (freed but not completed), is
 * refused at its entry: a caching allocator never hands out such an address. Until 2026-11-28
 * it was accepted, and the later frees at that address went to the newest buffer. Adjacent
 * requests and an address reused after its free_completed are accepted. */
static void test_alloc_over_live(void)
{
    const uint64_t base = 1ULL << 30;
    const sblock b[] = {{0, 2 * MB, 0, "inactive"}};
    static const struct {
        const char *name;
        sentry e[4];
        size_t ne;
        const char *msg; /* NULL: accepted */
    } c[] = {{"ol1.pickle", {{"alloc", 0, 1000}, {"alloc", 512, 1000}}, 2,
              "ol1.pickle: device_traces[0][1]: 'alloc' of 1000 bytes at address 1073742336 "
              "overlaps the block at address 1073741824, not yet freed (no free_completed): a "
              "caching allocator never hands out such an address"},
             {"ol2.pickle", {{"alloc", 0, 1000}, {"free_requested", 0, 1000}, {"alloc", 0, 512}},
              3, "ol2.pickle: device_traces[0][2]: 'alloc' of 512 bytes at address 1073741824 "
                 "overlaps the block at address 1073741824, not yet freed"},
             {"ol3.pickle", {{"alloc", 1024, 1000}, {"alloc", 0, 2000}}, 2,
              "ol3.pickle: device_traces[0][1]: 'alloc' of 2000 bytes at address 1073741824 "
              "overlaps the block at address 1073742848"},
             {"ol4.pickle", {{"alloc", 0, 512}, {"alloc", 512, 512}}, 2, NULL},
             {"ol5.pickle",
              {{"alloc", 0, 1000}, {"free_requested", 0, 1000}, {"free_completed", 0, 1000},
               {"alloc", 0, 512}},
              4, NULL}};
    for (size_t k = 0; k < AM_ARRAY_LEN(c); k++) {
        const char *path = write_snapshot(c[k].name, base, 2 * MB, b, 1, c[k].e, c[k].ne);
        tr_event ev[32];
        size_t n;
        char msg[1024] = "";
        int rc = read_events(path, 0, ev, 32, &n, msg);
        CU_ASSERT_EQUAL(rc, c[k].msg ? -1 : 0);
        if (c[k].msg)
            CU_ASSERT_PTR_NOT_NULL(strstr(msg, c[k].msg));
        if (rc != (c[k].msg ? -1 : 0) || (c[k].msg && !strstr(msg, c[k].msg)))
            fprintf(stderr, "\n  %s: status %d: %s\n", c[k].name, rc, msg);
    }
}

/* An error the engine (run) or check finds at a snapshot's entry names it as the reader does,
 * device_traces[D][I] (I from 0); until 2026-11-28 it was PATH:I+1, a position of no line. */
static void test_engine_error_names_entry(void)
{
    const uint64_t base = 1ULL << 30;
    const sblock b[] = {{0, 2 * MB, 0, "inactive"}};
    const sentry e[] = {{"alloc", 0, 1000}, {"free_requested", 0, 1000},
                        {"free_requested", 0, 1000}};
    /* a name with an ESC too: messages carry it escaped, and until 2026-11-28 the raw name was
     * looked for there, so such a file's errors kept "tw\x1bice.pickle:3:" */
    static const char *const names[] = {"twice.pickle", "tw\x1bice.pickle"};
    static const char *const shown[] = {"twice.pickle", "tw\\x1bice.pickle"};
    for (int f = 0; f < 2; f++) {
        const char *path = write_snapshot(names[f], base, 2 * MB, b, 1, e, 3);
        char want[128];
        snprintf(want, sizeof want, "%s: device_traces[0][2]: second free request of id",
                 shown[f]);
        for (int k = 0; k < 2; k++) {
            char args[2048], *out = NULL, *errs = NULL;
            if (k == 0)
                snprintf(args, sizeof args, "run -q -c '%s/configs/default.yaml' -t '%s' "
                         "--policy caching", tu_top(), path);
            else
                snprintf(args, sizeof args, "check -c '%s/configs/default.yaml' '%s'", tu_top(),
                         path);
            CU_ASSERT_EQUAL(tu_amsim(args, &out, &errs), 1);
            CU_ASSERT(errs && strstr(errs, want));
            CU_ASSERT_FALSE(errs && strchr(errs, '\x1b'));
            if (!errs || !strstr(errs, want))
                fprintf(stderr, "\n  %s\n", errs ? errs : "(none)");
            free(out);
            free(errs);
        }
    }
}

/* A time_us that goes back (before an earlier entry's) is replayed at the time of the entry
 * before it, the allocator's order standing, with a warning naming the first such entry and
 * the count; until 2026-11-28 it was clamped without a word (a first entry 1 s late: makespan
 * 0 ps, check ok). A negative time_us, which PyTorch never writes, is refused. */
static void test_time_backwards(void)
{
    const uint64_t base = 1ULL << 30;
    const sblock b[] = {{0, 2 * MB, 0, "inactive"}};
    const sentry e[] = {{"alloc", 0, 1000}, {"alloc", 4096, 1000}, {"free_requested", 0, 1000},
                        {"free_completed", 0, 1000}};
    static const long late[] = {1000, 5000, 2000, 1500}, neg[] = {1000, -3, 2000, 3000};
    snap_times = late;
    const char *path = write_snapshot("back.pickle", base, 2 * MB, b, 1, e, 4);
    snap_times = NULL;
    char args[2048], *out = NULL, *errs = NULL;
    snprintf(args, sizeof args, "run -c '%s/configs/default.yaml' -t '%s' --policy caching",
             tu_top(), path);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, &errs), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(errs);
    CU_ASSERT_PTR_NOT_NULL(strstr(errs, "amsim: warning: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(errs, "back.pickle: device_traces[0][2]: 'time_us' 2000 is "
                                        "before an earlier entry's (5000); 2 entries of "
                                        "device_traces[0] go back in time so: each is replayed at "
                                        "the time of the entry before it (the recorded order "
                                        "stands)"));
    CU_ASSERT(out && strstr(out, "makespan 4.000 ms"));
    if (!out || !strstr(out, "makespan 4.000 ms"))
        fprintf(stderr, "\n  %s\n", out ? out : "(no output)");
    free(out);
    free(errs);
    /* once per command, though compare and mincap read the file again for every run (until
     * 2026-11-28 once per read: compare 4 times for 2 policies, mincap once per probe) */
    static const char *const again[][2] = {{"compare", "caching,bfc,best_fit"},
                                           {"mincap", "caching,best_fit"}};
    for (size_t k = 0; k < sizeof again / sizeof *again; k++) {
        snprintf(args, sizeof args, "%s -c '%s/configs/default.yaml' -t '%s' --policies %s",
                 again[k][0], tu_top(), path, again[k][1]);
        out = errs = NULL;
        CU_ASSERT_EQUAL(tu_amsim(args, &out, &errs), 0);
        CU_ASSERT_EQUAL(tu_count(errs, "go back in time"), 1);
        free(out);
        free(errs);
    }
    snap_times = neg;
    path = write_snapshot("neg.pickle", base, 2 * MB, b, 1, e, 4);
    snap_times = NULL;
    tr_event ev[32];
    size_t n;
    char msg[1024] = "";
    CU_ASSERT_EQUAL_FATAL(read_events(path, 0, ev, 32, &n, msg), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "neg.pickle: device_traces[0][1]: 'time_us' -3 is "
                                       "negative (PyTorch writes microseconds since the epoch)"));
}

/* A private pool's segment (segment_pool_id other than (0, 0)) is refused; the default pool's
 * id is read and accepted. */
static void test_private_pool(void)
{
    const uint64_t base = 1ULL << 30;
    const sblock b[] = {{0, 2 * MB, 0, "inactive"}};
    const sentry e[] = {{"alloc", 0, 1000}};
    tr_event ev[32];
    size_t n;
    char msg[1024];
    snap_pool = 0;
    const char *path = write_snapshot("pool0.pickle", base, 2 * MB, b, 1, e, 1);
    CU_ASSERT_EQUAL(read_events(path, 0, ev, 32, &n, msg), 0);
    snap_pool = 3;
    path = write_snapshot("pool3.pickle", base, 2 * MB, b, 1, e, 1);
    snap_pool = -1;
    CU_ASSERT_EQUAL_FATAL(read_events(path, 0, ev, 32, &n, msg), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "pool3.pickle: segments[0]: segment_pool_id (3, 0): "
                                       "private memory pools (CUDA graphs, torch.cuda.MemPool) "
                                       "are not supported yet"));
}

/* allocator_settings become the caching policy's options in config syntax, and `amsim run`
 * warns about each one the config sets otherwise (here: expandable segments and the
 * divisions; max_split_size and the threshold are the defaults). */
static void test_recorded_settings(void)
{
    const uint64_t base = 1ULL << 30;
    const sblock b[] = {{0, 2 * MB, 0, "inactive"}};
    const sentry e[] = {{"alloc", 0, 1000}};
    snap_settings = 1;
    const char *path = write_snapshot("settings.pickle", base, 2 * MB, b, 1, e, 1);
    snap_settings = 0;
    trace t;
    am_error err = {0};
    CU_ASSERT_EQUAL_FATAL(open_pickle(&t, path, 0, &err), 0);
    const trace_setting *ts;
    int n = trace_settings(&t, &ts);
    static const char *const want[][2] = {{"max_split_size", "unlimited"},
                                          {"expandable_segments", "true"},
                                          {"garbage_collection_threshold", "0"},
                                          {"roundup_power2_divisions", "[4, 8]"}};
    CU_ASSERT_EQUAL_FATAL(n, 4);
    for (int i = 0; i < 4; i++) {
        CU_ASSERT_STRING_EQUAL(ts[i].key, want[i][0]);
        CU_ASSERT_STRING_EQUAL(ts[i].value, want[i][1]);
    }
    t.reader->close(&t);
    fclose(t.f);
    char args[2048], *out = NULL, *errs = NULL;
    snprintf(args, sizeof args, "run -q -c '%s/configs/default.yaml' -t '%s' --policy caching",
             tu_top(), path);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, &errs), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(errs);
    CU_ASSERT_PTR_NOT_NULL(strstr(errs, "settings.pickle was recorded with expandable_segments "
                                        "true, but memories.hbm.allocator.expandable_segments is "
                                        "false here: placements can differ from the recording"));
    CU_ASSERT_PTR_NOT_NULL(strstr(errs, "recorded with roundup_power2_divisions [4, 8], but "
                                        "memories.hbm.allocator.roundup_power2_divisions is 0 "
                                        "here"));
    CU_ASSERT_PTR_NULL(strstr(errs, "max_split_size"));
    CU_ASSERT_PTR_NULL(strstr(errs, "garbage_collection_threshold"));
    free(out);
    free(errs);
    /* the same settings configured: no warning */
    snprintf(args, sizeof args, "run -q -c '%s/configs/default.yaml' -t '%s' --policy caching "
             "--set memories.hbm.allocator.expandable_segments=true "
             "--set 'memories.hbm.allocator.roundup_power2_divisions=[4, 8]'", tu_top(), path);
    out = errs = NULL;
    CU_ASSERT_EQUAL(tu_amsim(args, &out, &errs), 0);
    CU_ASSERT(!errs || !strstr(errs, "warning"));
    free(out);
    free(errs);
    /* lists compare by what they mean: trailing zeros are the same [4, 8] (until 2026-11-27
     * they were said to differ); another value, or one value (all intervals), differs */
    static const struct {
        const char *divisions;
        int warns;
    } d[] = {{"[4, 8, 0]", 0}, {"[4, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]", 0},
             {"[4, 8, 0, 2]", 1}, {"[4]", 1}, {"[8, 4]", 1}};
    for (size_t i = 0; i < AM_ARRAY_LEN(d); i++) {
        snprintf(args, sizeof args, "run -q -c '%s/configs/default.yaml' -t '%s' --policy "
                 "caching --set memories.hbm.allocator.expandable_segments=true "
                 "--set 'memories.hbm.allocator.roundup_power2_divisions=%s'", tu_top(), path,
                 d[i].divisions);
        out = errs = NULL;
        CU_ASSERT_EQUAL(tu_amsim(args, &out, &errs), 0);
        int warned = errs && strstr(errs, "recorded with roundup_power2_divisions [4, 8], but");
        CU_ASSERT_EQUAL(warned, d[i].warns);
        free(out);
        free(errs);
    }
}

/* `amsim convert` of a snapshot names the recorded settings that differ from PyTorch's defaults
 * on stderr: no output form carries them, so a run of the conversion cannot warn that the config
 * differs (until 2026-11-28 they were dropped without a word). At their defaults: no warning,
 * a garbage_collection_threshold of -0.0 being 0, as run compares it (until 2026-11-28 convert
 * compared the text "-0" with "0"). */
static void test_convert_names_settings(void)
{
    const uint64_t base = 1ULL << 30;
    const sblock b[] = {{0, 2 * MB, 0, "inactive"}};
    const sentry e[] = {{"alloc", 0, 1000}};
    for (int k = 0; k < 3; k++) {
        snap_settings = k ? 3 : 1;
        snap_set_key = k == 1 ? "max_split_size" : "garbage_collection_threshold";
        snap_set_val = k == 1 ? "int-1" : "float-0"; /* unlimited, 0: PyTorch's defaults */
        const char *path = write_snapshot("cvset.pickle", base, 2 * MB, b, 1, e, 1);
        snap_settings = 0;
        char args[2048], *out = NULL, *errs = NULL;
        snprintf(args, sizeof args, "convert '%s' -o '%s/cvset.trace'", path, tu_tmpdir());
        CU_ASSERT_EQUAL(tu_amsim(args, &out, &errs), 0);
        const char *want = "cvset.pickle was recorded with expandable_segments true, "
                           "roundup_power2_divisions [4, 8]; ";
        if (k == 0) {
            CU_ASSERT(errs && strstr(errs, "amsim convert: warning: "));
            CU_ASSERT(errs && strstr(errs, want));
            CU_ASSERT(errs && strstr(errs, "cvset.trace does not carry these "
                                           "settings, so a run of it cannot warn "
                                           "when the config sets them otherwise"));
        } else
            CU_ASSERT_FALSE(errs && strstr(errs, "warning"));
        free(out);
        free(errs);
    }
}

/* The warnings a snapshot's reading and convert give name the files with their control bytes
 * escaped, as messages do (until 2026-11-28 the recorded settings' and the time going back
 * warnings wrote an ESC in a name raw). */
static void test_warnings_escaped(void)
{
    const uint64_t base = 1ULL << 30;
    const sblock b[] = {{0, 2 * MB, 0, "inactive"}};
    const sentry e[] = {{"alloc", 0, 1000}, {"alloc", 4096, 1000}};
    static const long late[] = {5000, 2000};
    snap_settings = 1;
    snap_times = late;
    const char *path = write_snapshot("e\x1b[31mx.pickle", base, 2 * MB, b, 1, e, 2);
    snap_settings = 0;
    snap_times = NULL;
    char args[2048], *errs = NULL;
    snprintf(args, sizeof args, "convert '%s' -o '%s/o\x1b[31mut.trace'", path, tu_tmpdir());
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, &errs), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(errs);
    CU_ASSERT_PTR_NULL(strchr(errs, '\x1b'));
    CU_ASSERT_PTR_NOT_NULL(strstr(errs, "e\\x1b[31mx.pickle: device_traces[0][1]: 'time_us' "
                                        "2000 is before"));
    CU_ASSERT_PTR_NOT_NULL(strstr(errs, "e\\x1b[31mx.pickle was recorded with "));
    CU_ASSERT_PTR_NOT_NULL(strstr(errs, "o\\x1b[31mut.trace does not carry"));
    if (strchr(errs, '\x1b'))
        fprintf(stderr, "\n  %s\n", errs);
    free(errs);
}

/* allocator_settings of another type than PyTorch writes are refused, naming the key: until
 * 2026-11-28 they were left out without a word (no warning that the config differs). What real
 * versions write is read: roundup_power2_divisions as a dict or (older versions) one integer,
 * garbage_collection_threshold as a float or, through JSON, an int. */
static void test_settings_types(void)
{
    const uint64_t base = 1ULL << 30;
    const sblock b[] = {{0, 2 * MB, 0, "inactive"}};
    const sentry e[] = {{"alloc", 0, 1000}};
    static const struct {
        const char *key, *val, *msg; /* msg NULL: read, as value */
        const char *value;
    } c[] = {
        {"roundup_power2_divisions", "int4", NULL, "4"},
        {"garbage_collection_threshold", "int0", NULL, "0"}, /* as JSON writes 0.0 */
        {"garbage_collection_threshold", "int1", "allocator_settings: "
         "'garbage_collection_threshold' 1 is out of range (0: off, or above 0 and below 1)",
         NULL}, /* PyTorch takes 0 < threshold < 1 (until 2026-11-28 read) */
        {"roundup_power2_divisions", "list40", "allocator_settings: 'roundup_power2_divisions' "
         "is a list, expected a dict (interval start in MiB: divisions) or an integer", NULL},
        {"roundup_power2_divisions", "str4", "'roundup_power2_divisions' is a str, expected", NULL},
        {"roundup_power2_divisions", "none", "'roundup_power2_divisions' is None, expected",
         NULL},
        {"roundup_power2_divisions", "dict1x", "allocator_settings: 'roundup_power2_divisions'['1'] "
         "is a str, expected an integer (divisions)", NULL},
        {"roundup_power2_divisions", "dict3", "allocator_settings: 'roundup_power2_divisions' has "
         "a key '3' that is no interval start ('1', '2', '4', ... '32768' MiB)", NULL},
        {"expandable_segments", "int1", "allocator_settings: 'expandable_segments' is an int, "
         "expected a bool", NULL},
        {"expandable_segments", "strTrue", "'expandable_segments' is a str, expected a bool", NULL},
        {"max_split_size", "none", "allocator_settings: 'max_split_size' is None, expected an "
         "integer (bytes; -1: unlimited)", NULL},
        {"max_split_size", "str200MB", "'max_split_size' is a str, expected an integer", NULL},
        {"max_split_size", "int-2", "allocator_settings: 'max_split_size' -2 is out of range "
         "(bytes up to 2^63 - 1, or -1: unlimited)", NULL},
        {"garbage_collection_threshold", "str0.8", "allocator_settings: "
         "'garbage_collection_threshold' is a str, expected a float", NULL},
        {NULL, NULL, "settypes.pickle: 'allocator_settings' is a list, expected a dict", NULL},
    };
    for (size_t k = 0; k < AM_ARRAY_LEN(c); k++) {
        snap_settings = c[k].key ? 3 : 4;
        snap_set_key = c[k].key;
        snap_set_val = c[k].val;
        const char *path = write_snapshot("settypes.pickle", base, 2 * MB, b, 1, e, 1);
        snap_settings = 0;
        trace t;
        am_error err = {0};
        int rc = open_pickle(&t, path, 0, &err);
        CU_ASSERT_EQUAL(rc, c[k].msg ? -1 : 0);
        if (c[k].msg && (rc == 0 || !strstr(err.msg, c[k].msg))) {
            CU_FAIL("wrong refusal");
            fprintf(stderr, "\n  %s %s: status %d: %s\n", c[k].key ? c[k].key : "(list)",
                    c[k].val ? c[k].val : "", rc, rc ? err.msg : "accepted");
        }
        if (rc == 0) {
            const trace_setting *ts;
            int n = trace_settings(&t, &ts);
            CU_ASSERT_EQUAL(n, c[k].msg ? 0 : 1);
            if (n == 1 && c[k].value) {
                CU_ASSERT_STRING_EQUAL(ts[0].key, c[k].key);
                CU_ASSERT_STRING_EQUAL(ts[0].value, c[k].value);
            }
            t.reader->close(&t);
        }
        fclose(t.f);
    }
}

/* A place's 1 division means what its 0 does, off (caching rounds with 1 as with none, as
 * PyTorch does): a recording's 0 everywhere is the configured 1, or [1, 0, 1], with no
 * warning; 2 differs. Until 2026-11-27 a configured 1 was said to differ ("recorded with
 * roundup_power2_divisions 0, but ... is 1 here"); so was [4, 8, 1] from [4, 8]. */
static void test_recorded_divisions_one_is_off(void)
{
    const uint64_t base = 1ULL << 30;
    const sblock b[] = {{0, 2 * MB, 0, "inactive"}};
    const sentry e[] = {{"alloc", 0, 1000}};
    static const struct {
        int settings;
        const char *divisions;
        int warns;
    } d[] = {{2, "1", 0}, {2, "[1, 0, 1]", 0}, {2, "0", 0}, {2, "2", 1}, {2, "[0, 2]", 1},
             {1, "[4, 8, 1]", 0}, {1, "[4, 8, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]", 0},
             {1, "[4, 1]", 1}};
    for (size_t i = 0; i < AM_ARRAY_LEN(d); i++) {
        snap_settings = d[i].settings;
        const char *path = write_snapshot("div1.pickle", base, 2 * MB, b, 1, e, 1);
        snap_settings = 0;
        char args[2048], *out = NULL, *errs = NULL;
        snprintf(args, sizeof args, "run -q -c '%s/configs/default.yaml' -t '%s' --policy "
                 "caching --set memories.hbm.allocator.expandable_segments=true "
                 "--set 'memories.hbm.allocator.roundup_power2_divisions=%s'", tu_top(), path,
                 d[i].divisions);
        CU_ASSERT_EQUAL(tu_amsim(args, &out, &errs), 0);
        int warned = errs && strstr(errs, "recorded with roundup_power2_divisions");
        CU_ASSERT_EQUAL(warned, d[i].warns);
        if (warned != d[i].warns)
            fprintf(stderr, "\n  divisions %s: %s\n", d[i].divisions, errs ? errs : "");
        free(out);
        free(errs);
    }
}

/* An entry in the same microsecond as the one before it whose amsim_sub_us_ps goes back is
 * named with both picosecond parts (until 2026-11-28 the warning said 'time_us' 5 was before
 * an earlier entry's 5). */
static void test_time_backwards_sub_us(void)
{
    /* pickle.dumps({"segments": [], "device_traces": [[{"action": "alloc", "addr": 0,
     * "size": 10, "stream": 0, "time_us": 5, "amsim_sub_us_ps": 500000}, {... "addr": 100,
     * ... "time_us": 5, "amsim_sub_us_ps": 100}]]}, protocol=2) */
    static const char pk[] =
        "\x80\x02}q\x00(X\x08\x00\x00\x00segmentsq\x01]q\x02X\x0d\x00\x00\x00"
        "device_tracesq\x03]q\x04]q\x05(}q\x06(X\x06\x00\x00\x00"
        "actionq\x07X\x05\x00\x00\x00"
        "allocq\x08X\x04\x00\x00\x00"
        "addrq\x09K\x00X\x04\x00\x00\x00sizeq\x0aK\x0aX\x06\x00\x00\x00streamq\x0bK"
        "\x00X\x07\x00\x00\x00time_usq\x0cK\x05X\x0f\x00\x00\x00"
        "amsim_sub_us_psq\x0dJ \xa1\x07\x00u}q\x0e(h\x07h\x08h\x09Kdh\x0aK\x0ah\x0bK"
        "\x00h\x0cK\x05h\x0dKdueau.";
    char path[512], args[2048], *out = NULL, *errs = NULL;
    snprintf(path, sizeof path, "%s/subback.pickle", tu_tmpdir());
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fwrite(pk, 1, sizeof pk - 1, f);
    fclose(f);
    snprintf(args, sizeof args, "run -c '%s/configs/default.yaml' -t '%s' --policy caching",
             tu_top(), path);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, &errs), 0);
    const char *want = "subback.pickle: device_traces[0][1]: 'time_us' 5 with 'amsim_sub_us_ps' "
                       "100 is before an earlier entry's (5 with 500000); 1 entry of "
                       "device_traces[0] goes back in time so";
    CU_ASSERT(errs && strstr(errs, want));
    if (!errs || !strstr(errs, want))
        fprintf(stderr, "\n  %s\n", errs ? errs : "(none)");
    free(out);
    free(errs);
}

static void test_wrong_top_level(void)
{
    static const unsigned char lst[] = {0x80, 4, ']', '.'};
    char path[512];
    snprintf(path, sizeof path, "%s/list.pickle", tu_tmpdir());
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fwrite(lst, 1, sizeof lst, f);
    fclose(f);
    tr_event ev[4];
    size_t n;
    char msg[1024];
    CU_ASSERT_EQUAL(read_events(path, 0, ev, 4, &n, msg), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "list.pickle: not a PyTorch memory snapshot: the "
                                       "top-level value is a list"));
}

/* A snapshot naming more than 1024 stream handles, 0 included, is refused by the reader at
 * the entry (or segment) naming the 1025th (streamset.h; the engine refuses the event naming a
 * 1025th stream number): its lookup stays a scan of 1024 handles. 1024 handles pass. Until
 * 2026-11-27 every handle was taken, each new one costing a scan of all before it, and later
 * that day handle 0 was not counted. */
static void test_distinct_streams(void)
{
    enum { N = 1025 };
    sblock b[] = {{0, 2 * MB, 0, "inactive"}};
    sentry *e = calloc(3 * N, sizeof *e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    for (size_t k = 0; k < N; k++) { /* each buffer on its own stream: 7 + k */
        e[3 * k] = (sentry){"alloc", 512 * k, 512};
        e[3 * k + 1] = (sentry){"free_requested", 512 * k, 512};
        e[3 * k + 2] = (sentry){"free_completed", 512 * k, 512};
    }
    snap_streams = 1;
    tr_event ev[4];
    size_t n;
    char msg[1024] = "";
    /* the segment is on stream 0: 1023 handles and 0 pass, 1024 and 0 do not (the segment,
     * read after the entries, names the 1025th), as the engine counts them */
    const char *ok = write_snapshot("streams1024.pickle", 1ULL << 32, 2 * MB, b, 1, e, 3 * (N - 2));
    CU_ASSERT_EQUAL(read_events(ok, 0, ev, 4, &n, msg), 0);
    const char *bad = write_snapshot("streams1024s.pickle", 1ULL << 32, 2 * MB, b, 1, e,
                                     3 * (N - 1));
    CU_ASSERT_EQUAL(read_events(bad, 0, ev, 4, &n, msg), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "streams1024s.pickle: segments[0]: more than 1024 "
                                       "distinct streams: stream 0 would be the 1025th"));
    bad = write_snapshot("streams1025.pickle", 1ULL << 32, 2 * MB, b, 1, e, 3 * N);
    CU_ASSERT_EQUAL(read_events(bad, 0, ev, 4, &n, msg), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "streams1025.pickle: device_traces[0][3072]: more than "
                                       "1024 distinct streams: stream 1031 would be the 1025th "
                                       "(a trace names at most 1024 stream numbers;"));
    /* stream 0 counts: with 1024 other handles, it is refused, first or last (until
     * 2026-11-27 the reader passed it and the engine refused it with an entry number as its
     * line and the renumbered stream) */
    snap_zero_at = 0;
    ok = write_snapshot("streams0a.pickle", 1ULL << 32, 2 * MB, b, 1, e, 3 * (N - 1));
    CU_ASSERT_EQUAL(read_events(ok, 0, ev, 4, &n, msg), 0);
    bad = write_snapshot("streams0b.pickle", 1ULL << 32, 2 * MB, b, 1, e, 3 * N);
    CU_ASSERT_EQUAL(read_events(bad, 0, ev, 4, &n, msg), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "streams0b.pickle: device_traces[0][3072]: more than "
                                       "1024 distinct streams: stream 1031 would be the 1025th"));
    snap_zero_at = N - 1;
    bad = write_snapshot("streams0c.pickle", 1ULL << 32, 2 * MB, b, 1, e, 3 * N);
    CU_ASSERT_EQUAL(read_events(bad, 0, ev, 4, &n, msg), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "streams0c.pickle: device_traces[0][3072]: more than "
                                       "1024 distinct streams: stream 0 would be the 1025th"));
    snap_zero_at = -1;
    snap_streams = 0;
    free(e);
}

/* A snapshot whose device 0 records nothing while device 1 holds the trace (a process that used
 * cuda:1 only): device 0 is refused, naming device 1, by the reader and so by run, compare,
 * mincap and check; --device 1 reads it in each (until 2026-11-27 device 0 gave 0 events, an
 * empty table and status 0, and compare, mincap and check had no --device). */
static void test_empty_device(void)
{
    const sblock b[] = {{0, 2 * MB, 0, "inactive"}};
    const sentry e[] = {{"alloc", 0, 1000}, {"free_requested", 0, 1000},
                        {"free_completed", 0, 1000}};
    snap_device = 1;
    const char *path = write_snapshot("dev1.pickle", 47294971904ULL, 2 * MB, b, 1, e, 3);
    snap_device = 0;
    tr_event ev[32];
    size_t n;
    char msg[1024] = "";
    CU_ASSERT_EQUAL(read_events(path, 0, ev, 32, &n, msg), -1);
    CU_ASSERT(strstr(msg, "dev1.pickle: device 0 has no trace entries and no segments; the "
                     "snapshot records device 1 (choose it with --device 1)") != NULL);
    CU_ASSERT_EQUAL(read_events(path, 1, ev, 32, &n, msg), 0);
    CU_ASSERT(n > 3);
    static const char *const cmds[] = {"run -q", "compare --policies bfc,caching",
                                       "mincap --policies caching", "check"};
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        for (int dev = 0; dev < 2; dev++) {
            char args[2048], *out = NULL, *err = NULL;
            int check = strcmp(cmds[i], "check") == 0;
            snprintf(args, sizeof args, "%s %s%s/configs/default.yaml' %s'%s' --device %d",
                     cmds[i], check ? "" : "-c '", check ? "" : tu_top(), check ? "" : "-t ",
                     path, dev);
            if (check) /* no -c: the shipped levels */
                snprintf(args, sizeof args, "check '%s' --device %d", path, dev);
            int st = tu_amsim(args, &out, &err);
            CU_ASSERT_EQUAL(st, dev ? 0 : 1);
            if (dev == 0) {
                CU_ASSERT(err && strstr(err, "device 0 has no trace entries and no segments"));
            } else if (check) {
                CU_ASSERT(out && strstr(out, "trace ok (pytorch_snapshot, "));
            }
            if (st != (dev ? 0 : 1))
                fprintf(stderr, "\n  %s: status %d, %s\n", args, st, err ? err : "");
            free(out);
            free(err);
        }
    }
    /* a sweep's device: key, every run's --device (until 2026-11-27 a sweep had none) */
    for (int dev = 0; dev < 2; dev++) {
        char text[1024], name[32], args[2048], *csv;
        snprintf(text, sizeof text, "base: '%s/configs/default.yaml'\ntraces: ['%s']\n"
                 "policies: [caching]\n%s", tu_top(), path, dev ? "device: 1\n" : "");
        snprintf(name, sizeof name, "dev%d.yaml", dev);
        const char *sw = tu_write(name, text);
        snprintf(args, sizeof args, "batch '%s' -j 1 -o '%s/devout%d'", sw, tu_tmpdir(), dev);
        CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), dev ? 0 : 1);
        snprintf(text, sizeof text, "%s/devout%d/results.csv", tu_tmpdir(), dev);
        csv = tu_slurp(text, NULL);
        CU_ASSERT(csv && strstr(csv, dev ? "dev1.pickle,ok," :
                                "dev1.pickle: device 0 has no trace entries and no segments"));
        free(csv);
    }
    const char *bad = tu_write("devx.yaml", "device: -1\nbase: x.yaml\ntraces: [t]\n");
    char args[1024], *err = NULL;
    snprintf(args, sizeof args, "batch '%s' -o '%s/devoutx'", bad, tu_tmpdir());
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 1);
    CU_ASSERT(err && strstr(err, "devx.yaml:1:9: device: '-1' is not a device number 0..1024"));
    free(err);
    err = NULL;
    /* a device number that is none */
    snprintf(args, sizeof args, "compare -c x -t '%s' --policies bfc --device -1", path);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 1);
    CU_ASSERT(err && strstr(err, "amsim compare: --device takes a device number 0..1024, "
                            "not '-1'"));
    free(err);
}


/* A device whose only record is a segment, past the end of device_traces (here [[]], then []):
 * device 0 records nothing and is refused naming device 1, and --device 1 reads the segment
 * (until 2026-11-27 device 0 was read as 0 events and device 1 refused as out of range). */
static void test_device_past_traces(void)
{
    const sblock b[] = {{0, 2 * MB, 2 * MB, "active_allocated"}, {2 * MB, 18 * MB, 0, "inactive"}};
    snap_device = 1;
    snap_lists = 1;
    const char *path = write_snapshot("segdev1.pickle", 1ULL << 32, 20 * MB, b, 2, NULL, 0);
    snap_device = 0;
    snap_lists = -1;
    tr_event ev[32];
    size_t n;
    char msg[1024] = "";
    CU_ASSERT_EQUAL(read_events(path, 0, ev, 32, &n, msg), -1);
    CU_ASSERT(strstr(msg, "segdev1.pickle: device 0 has no trace entries and no segments; the "
                     "snapshot records device 1 (choose it with --device 1)") != NULL);
    CU_ASSERT_EQUAL(read_events(path, 1, ev, 32, &n, msg), 0);
    CU_ASSERT(n >= 4); /* the declaration, the segment's creation and its blocks' tiling */
    CU_ASSERT(n > 0 && ev[0].kind == TR_SEGMENT_ALLOC && ev[0].declared &&
              ev[0].bytes == 20 * MB);
    CU_ASSERT_EQUAL(read_events(path, 2, ev, 32, &n, msg), -1);
    CU_ASSERT(strstr(msg, "device 2 has no trace entries and no segments; the snapshot records "
                     "device 1") != NULL);

    /* device_traces empty, a snapshot of segments only: read the same way (until 2026-11-27
     * refused for every device: "the snapshot has no device traces") */
    snap_device = 3;
    snap_lists = 0;
    path = write_snapshot("segonly3.pickle", 1ULL << 32, 20 * MB, b, 2, NULL, 0);
    snap_device = 0;
    snap_lists = -1;
    msg[0] = 0;
    CU_ASSERT_EQUAL(read_events(path, 3, ev, 32, &n, msg), 0);
    if (msg[0])
        printf("\n  segonly3: %s", msg);
    CU_ASSERT(n > 0 && ev[0].kind == TR_SEGMENT_ALLOC && ev[0].declared &&
              ev[0].bytes == 20 * MB);
    CU_ASSERT_EQUAL(read_events(path, 0, ev, 32, &n, msg), -1);
    CU_ASSERT(strstr(msg, "segonly3.pickle: device 0 has no trace entries and no segments; the "
                     "snapshot records device 3 (choose it with --device 3)") != NULL);
    /* nothing recorded at all, and no device's list: still refused */
    pw w = {0};
    static const unsigned char empty[] = {0x80, 4, '}', '('};
    for (size_t i = 0; i < sizeof empty; i++)
        wb(&w, empty[i]);
    wstr(&w, "segments");
    wb(&w, ']');
    wstr(&w, "device_traces");
    wb(&w, ']');
    wb(&w, 'u');
    wb(&w, '.');
    char nothing[512];
    snprintf(nothing, sizeof nothing, "%s/nothing.pickle", tu_tmpdir());
    FILE *f = fopen(nothing, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fwrite(w.b, 1, w.n, f);
    fclose(f);
    free(w.b);
    CU_ASSERT_EQUAL(read_events(nothing, 0, ev, 32, &n, msg), -1);
    CU_ASSERT(strstr(msg, "nothing.pickle: the snapshot has no device traces") != NULL);
}

/* A device number --device cannot choose (0..1024) is refused where a segment names it, by its
 * value (until 2026-11-27 a segment on device -1 was silently left out, "trace ok, 0 events",
 * and one on device 1025 made the empty device 0 suggest "--device 1025", which --device
 * refuses); device_traces entries past device 1024 are said to be out of its reach. */
static void test_device_out_of_range(void)
{
    const sblock b[] = {{0, 2 * MB, 0, "inactive"}};
    static const struct { int device; const char *msg; } c[] = {
        {-1, "segdevr.pickle: segments[0]: 'device' -1 is out of range (a device number is "
             "0..1024)"},
        {1025, "segdevr.pickle: segments[0]: 'device' 1025 is out of range (a device number is "
               "0..1024)"},
    };
    tr_event ev[8];
    size_t n;
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        char msg[1024] = "", args[1024], *out = NULL, *err = NULL;
        snap_device = c[i].device;
        snap_lists = 1;
        const char *path = write_snapshot("segdevr.pickle", 1ULL << 32, 2 * MB, b, 1, NULL, 0);
        snap_device = 0;
        snap_lists = -1;
        CU_ASSERT_EQUAL(read_events(path, 0, ev, 8, &n, msg), -1);
        CU_ASSERT(strstr(msg, c[i].msg) != NULL);
        if (!strstr(msg, c[i].msg))
            printf("\n  expected \"%s\"\n  got \"%s\"\n", c[i].msg, msg);
        snprintf(args, sizeof args, "check '%s'", path); /* not "trace ok (..., 0 events" */
        CU_ASSERT_EQUAL(tu_amsim(args, &out, &err), 1);
        CU_ASSERT(err && strstr(err, c[i].msg));
        free(out);
        free(err);
    }
    /* no segments; device_traces of 1026 lists, the last (device 1025) the only one with an
     * entry: nothing to suggest */
    pw w = {0};
    static const unsigned char head[] = {0x80, 4, '}', '('};
    for (size_t i = 0; i < sizeof head; i++)
        wb(&w, head[i]);
    wstr(&w, "segments");
    wb(&w, ']');
    wstr(&w, "device_traces");
    wb(&w, ']');
    for (int d = 0; d < 1025; d++) {
        wb(&w, ']');
        wb(&w, 'a');
    }
    wb(&w, ']');
    wb(&w, '(');
    wb(&w, '}');
    wb(&w, '(');
    wkv_str(&w, "action", "alloc");
    wkv_int(&w, "addr", 1ULL << 32);
    wkv_int(&w, "size", 512);
    wb(&w, 'u');
    wb(&w, 'e');
    wb(&w, 'a');
    wb(&w, 'u');
    wb(&w, '.');
    char path[512], msg[1024] = "";
    snprintf(path, sizeof path, "%s/dt1025.pickle", tu_tmpdir());
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fwrite(w.b, 1, w.n, f);
    fclose(f);
    free(w.b);
    CU_ASSERT_EQUAL(read_events(path, 0, ev, 8, &n, msg), -1);
    CU_ASSERT(strstr(msg, "dt1025.pickle: device 0 has no trace entries and no segments; the "
                     "snapshot records only device past 1024, which --device cannot choose") !=
              NULL);
    if (!strstr(msg, "which --device cannot choose"))
        printf("\n  got \"%s\"\n", msg);
}

/* A field of another type than the one PyTorch writes is refused naming the field (until
 * 2026-11-27 a 'time_us' that was no int was read as absent, so timings changed without a
 * word; an entry's bad 'stream' was blamed on 'addr' or 'size'; a segment's was stream 0). A
 * time_us float with a whole value is read as that int. */
static void test_field_types(void)
{
    const sblock b[] = {{0, 2 * MB, 0, "inactive"}};
    const sentry e[] = {{"alloc", 0, 1000}, {"free_requested", 0, 1000},
                        {"free_completed", 0, 1000}};
    static const struct { const char *odd, *msg; } c[] = {
        {"time_us_float", NULL},
        {"time_us_frac", "odd.pickle: device_traces[0][0]: 'time_us' 1000.5 is not a whole "
                         "number of microseconds in 64 bits"},
        {"time_us_str", "odd.pickle: device_traces[0][0]: 'time_us' is a str, expected an "
                        "integer (microseconds)"},
        {"stream_str", "odd.pickle: device_traces[0][0]: 'stream' is a str, expected an integer"},
        {"stream_none", "odd.pickle: device_traces[0][0]: 'stream' is None, expected an "
                        "integer"},
        {"seg_stream_str", "odd.pickle: segments[0]: 'stream' is a str, expected an integer"},
        {"seg_device_str", "odd.pickle: segments[0]: 'device' is a str, expected an integer"},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        snap_odd = c[i].odd;
        const char *path = write_snapshot("odd.pickle", 1ULL << 32, 2 * MB, b, 1, e, 3);
        snap_odd = NULL;
        tr_event ev[32];
        size_t n;
        char msg[1024] = "";
        int rc = read_events(path, 0, ev, 32, &n, msg);
        CU_ASSERT_EQUAL(rc, c[i].msg ? -1 : 0);
        if (c[i].msg && !strstr(msg, c[i].msg))
            printf("\n%s: expected \"%s\"\n     got \"%s\"\n", c[i].odd, c[i].msg, msg);
        CU_ASSERT(!c[i].msg || strstr(msg, c[i].msg));
        if (!c[i].msg) { /* the last entry's time: 2 us after the first */
            CU_ASSERT(n > 0 && ev[n - 1].kind == TR_FREE_COMPLETED &&
                      ev[n - 1].time == 2 * AM_PS_PER_US);
        }
    }
}

/* A gzip-compressed snapshot that breaks off: the read error says what the other forms say
 * (until 2026-11-27 "PATH: read error: ..." without "gzip-compressed trace:"). */
static void test_gzip_cut(void)
{
    const sblock b[] = {{0, 2 * MB, 0, "inactive"}};
    const sentry e[] = {{"alloc", 0, 1000}, {"free_requested", 0, 1000},
                        {"free_completed", 0, 1000}};
    const char *path = write_snapshot("plain.pickle", 1ULL << 32, 2 * MB, b, 1, e, 3);
    size_t len;
    char *raw = tu_slurp(path, &len), gz[512];
    CU_ASSERT_PTR_NOT_NULL_FATAL(raw);
    snprintf(gz, sizeof gz, "%s/cut.pickle.gz", tu_tmpdir());
    gzFile g = gzopen(gz, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT((size_t)gzwrite(g, raw, (unsigned)len) == len);
    CU_ASSERT_EQUAL(gzclose(g), Z_OK);
    free(raw);
    char *zb = tu_slurp(gz, &len);
    CU_ASSERT_FATAL(zb != NULL && len > 8);
    FILE *f = fopen(gz, "wb"); /* the last 4 bytes (of the trailer's length) cut */
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fwrite(zb, 1, len - 4, f);
    fclose(f);
    free(zb);
    char args[1024], *err = NULL;
    snprintf(args, sizeof args, "convert '%s' -o '%s/cut.trace'", gz, tu_tmpdir());
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 1);
    CU_ASSERT(err && strstr(err, "cut.pickle.gz: gzip-compressed trace: read error: corrupt or "
                            "truncated gzip data"));
    if (err && !strstr(err, "gzip-compressed trace: read error"))
        printf("\n  got: %s", err);
    free(err);
}

/* Short strs and small ints are one value each however often they come: a snapshot's entries
 * repeat their keys, action names and small numbers in every dict (until 2026-11-27 each was a
 * value of its own, about 17 bytes of memory per byte of the file, 823 MB for a 49 MB
 * export; now 396 MB). Long strings and large ints stay values of their own. */
static void test_interned_scalars(void)
{
    /* [{'action': 'alloc', 'n': 5, 'big': 70000}, {'action': 'alloc', 'n': 5, 'big': 70000}] */
    static const unsigned char pk[] =
        "\x80\x02]("
        "}(\x8c\x06" "action\x8c\x05" "alloc\x8c\x01" "nK\x05\x8c\x03" "bigJ\x70\x11\x01\x00u"
        "}(\x8c\x06" "action\x8c\x05" "alloc\x8c\x01" "nK\x05\x8c\x03" "bigJ\x70\x11\x01\x00u"
        "e.";
    pkl_doc *d = NULL;
    am_error err = {0};
    CU_ASSERT_EQUAL_FATAL(pkl_parse(pk, sizeof pk - 1, "t.pickle", &d, &err), 0);
    const pkl_value *root = pkl_root(d);
    CU_ASSERT_EQUAL_FATAL(root->type, PKL_LIST);
    CU_ASSERT_EQUAL_FATAL(root->len, 2);
    const pkl_value *a = root->items[0], *b = root->items[1];
    CU_ASSERT_EQUAL_FATAL(a->len, 3);
    CU_ASSERT_PTR_EQUAL(a->items[0], b->items[0]); /* 'action' */
    CU_ASSERT_PTR_EQUAL(a->items[1], b->items[1]); /* 'alloc' */
    CU_ASSERT_PTR_EQUAL(a->items[3], b->items[3]); /* 5 */
    CU_ASSERT_PTR_NOT_EQUAL(a->items[5], b->items[5]); /* 70000: not small */
    int64_t v = 0;
    CU_ASSERT(pkl_int(pkl_get(b, "big"), &v) == 0 && v == 70000);
    CU_ASSERT(pkl_int(pkl_get(b, "n"), &v) == 0 && v == 5);
    CU_ASSERT_STRING_EQUAL(pkl_get(a, "action")->s, "alloc");
    pkl_free(d);
}

/* A dict of 200,000 keys, some written twice: the last value wins, as in Python, whatever
 * the dict's size (str keys short and long, int keys; a bool key is not the int 1). Until
 * 2026-11-27 each key was compared with every earlier one: quadratic, 200,000 keys took more
 * than 120 s. */
static void test_big_dict(void)
{
    enum { N = 200000 };
    static const char long_key[] = "a key longer than the sixty-four bytes below which strs "
                                   "are shared values";
    pw w = {0};
    wb(&w, 0x80);
    wb(&w, 4);
    wb(&w, '}');
    wb(&w, '(');
    char k[32];
    for (int i = 0; i < N; i++) {
        snprintf(k, sizeof k, "k%d", i);
        wkv_int(&w, k, (uint64_t)i);
    }
    wkv_int(&w, "k5", 7);          /* again: replaces */
    wkv_int(&w, "k199999", 8);     /* the last one again */
    wint(&w, 100000);              /* int key 100000 ... */
    wint(&w, 1);
    wint(&w, 100000);              /* ... again */
    wint(&w, 2);
    wb(&w, 0x88);                  /* True: a key of its own, not the int 1 */
    wint(&w, 3);
    wint(&w, 1);
    wint(&w, 4);
    for (int rep = 0; rep < 2; rep++) {
        wb(&w, 'X');
        uint32_t n = (uint32_t)strlen(long_key);
        for (int i = 0; i < 4; i++)
            wb(&w, (unsigned char)(n >> (8 * i)));
        for (uint32_t i = 0; i < n; i++)
            wb(&w, (unsigned char)long_key[i]);
        wint(&w, 10 + (uint64_t)rep);
    }
    wb(&w, 'u');
    wb(&w, '.');
    pkl_doc *d = NULL;
    char msg[1024];
    CU_ASSERT_EQUAL_FATAL(parse(&w, msg, &d), AM_OK);
    const pkl_value *r = pkl_root(d);
    CU_ASSERT_EQUAL_FATAL(r->type, PKL_DICT);
    CU_ASSERT_EQUAL_FATAL(r->len, (size_t)N + 4); /* 100000, True, 1, the long key */
    int bad = 0;
    for (int i = 0; i < N; i++) {
        snprintf(k, sizeof k, "k%d", i);
        int64_t want = i == 5 ? 7 : i == N - 1 ? 8 : i, got = -1;
        const pkl_value *key = r->items[2 * i];
        bad += key->type != PKL_STR || strcmp(key->s, k) != 0 ||
               pkl_int(r->items[2 * i + 1], &got) != 0 || got != want;
    }
    CU_ASSERT_EQUAL(bad, 0);
    pkl_value *const *t = r->items + 2 * N;
    CU_ASSERT(t[0]->type == PKL_INT && t[0]->i == 100000 && t[1]->i == 2);
    CU_ASSERT(t[2]->type == PKL_BOOL && t[3]->i == 3);
    CU_ASSERT(t[4]->type == PKL_INT && t[4]->i == 1 && t[5]->i == 4);
    CU_ASSERT(t[6]->type == PKL_STR && strcmp(t[6]->s, long_key) == 0 && t[7]->i == 11);
    pkl_free(d);
    free(w.b);
}

/* A snapshot larger than trace_pickle_max_bytes (2 GiB; lowered here) is refused before it
 * is read whole, and a bytes object keeps its length but no copy. Until 2026-11-27 a 510 KB
 * gzip file holding a 512 MiB bytes object took 1.05 GB: the stream read whole, then copied. */
static void test_size_cap_and_bytes(void)
{
    CU_ASSERT_EQUAL(trace_pickle_max_bytes, (size_t)2 << 30);
    const sblock b[] = {{0, 2 * MB, 0, "inactive"}};
    const sentry e[] = {{"alloc", 0, 1000}, {"free_requested", 0, 1000},
                        {"free_completed", 0, 1000}};
    const char *path = write_snapshot("cap.pickle", 47294971904ULL, 2 * MB, b, 1, e, 3);
    tr_event ev[8];
    size_t n;
    char msg[1024];
    FILE *f = fopen(path, "rb");
    CU_ASSERT_FATAL(f && fseek(f, 0, SEEK_END) == 0);
    size_t size = (size_t)ftell(f);
    fclose(f);
    trace_pickle_max_bytes = size; /* exactly the file: read */
    CU_ASSERT_EQUAL(read_events(path, 0, ev, 8, &n, msg), 0);
    trace_pickle_max_bytes = size - 1;
    CU_ASSERT_EQUAL(read_events(path, 0, ev, 8, &n, msg), -1);
    char want[256];
    snprintf(want, sizeof want, "cap.pickle: the snapshot is larger than %zu bytes "
             "(decompressed, if gzip-compressed), the most amsim reads", size - 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, want));
    trace_pickle_max_bytes = TRACE_PICKLE_MAX_BYTES;
    /* [b'abc'] */
    static const unsigned char pk[] = "\x80\x04]C\x03" "abca.";
    pkl_doc *d = NULL;
    am_error err = {0};
    CU_ASSERT_EQUAL_FATAL(pkl_parse(pk, sizeof pk - 1, "t.pickle", &d, &err), 0);
    const pkl_value *v = pkl_root(d)->items[0];
    CU_ASSERT(v->type == PKL_BYTES && v->len == 3 && v->s == NULL);
    pkl_free(d);
}

/* Nesting built in an order note_depth alone missed: each new list is appended into the one
 * before it after that one already sits in its parent (through the memo), 1005 deep; and a
 * list appended into itself. Until 2026-11-27 both were read without complaint. */
static void test_nesting_through_memo(void)
{
    pw w = {0};
    wb(&w, 0x80);
    wb(&w, 4);
    wb(&w, ']');
    wb(&w, 0x94); /* MEMOIZE: slot 0 */
    for (uint32_t i = 1; i < 1005; i++) {
        wb(&w, 'j'); /* LONG_BINGET i - 1: the previous list, already inside its parent */
        for (int b = 0; b < 4; b++)
            wb(&w, (unsigned char)((i - 1) >> (8 * b)));
        wb(&w, ']');
        wb(&w, 0x94);
        wb(&w, 'a');
        wb(&w, '0'); /* POP */
    }
    wb(&w, '.');
    char msg[1024];
    CU_ASSERT_EQUAL(parse(&w, msg, NULL), AM_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "containers nested more than 1000 deep (at a list)"));
    /* 1000 deep exactly is read */
    w.n = 4 + 9 * (1000 - 1);
    wb(&w, '.');
    pkl_doc *d = NULL;
    CU_ASSERT_EQUAL(parse(&w, msg, &d), AM_OK);
    CU_ASSERT(d && pkl_root(d)->depth == 1000);
    pkl_free(d);
    free(w.b);
    static const unsigned char self[] = {0x80, 4, ']', 0x94, 'h', 0, 'a', '.'};
    expect_refusal(self, sizeof self, "byte 7: a list holds itself (a cycle of containers); "
                                      "a memory snapshot holds none");
}

/* ---- the backward walk's work grows as n log n ---- */

/* The reader's steps (trace_pickle_steps) for a snapshot of one segment of segsize bytes with
 * blocks b and entries e. */
static uint64_t steps_of(uint64_t segsize, const sblock *b, size_t nb, const sentry *e,
                         size_t ne)
{
    const char *path = write_snapshot("steps.pickle", 1ULL << 40, segsize, b, nb, e, ne);
    tr_event ev[1];
    size_t n;
    char msg[1024];
    uint64_t before = trace_pickle_steps;
    CU_ASSERT_EQUAL(read_events(path, 0, ev, 1, &n, msg), 0);
    return trace_pickle_steps - before;
}

/* n allocations of 512 B at ascending addresses in one free segment, then their frees: the
 * walk back carves each block out of the free space before the others. */
static uint64_t steps_entries(size_t n)
{
    sentry *e = calloc(3 * n, sizeof *e);
    for (size_t i = 0; i < n; i++) {
        e[i] = (sentry){"alloc", 512 * i, 512};
        e[n + 2 * i] = (sentry){"free_requested", 512 * i, 512};
        e[n + 2 * i + 1] = (sentry){"free_completed", 512 * i, 512};
    }
    const sblock b[] = {{0, 1024 * n, 0, "inactive"}};
    uint64_t steps = steps_of(1024 * n, b, 1, e, 3 * n);
    free(e);
    return steps;
}

/* n segments freed in descending address order above the dump-time one: walked back, each is
 * added below the others. */
static uint64_t steps_segments(size_t n)
{
    sentry *e = calloc(n, sizeof *e);
    for (size_t i = 0; i < n; i++)
        e[i] = (sentry){"segment_free", 2 * MB * (n - i), 2 * MB};
    const sblock b[] = {{0, 2 * MB, 0, "inactive"}};
    uint64_t steps = steps_of(2 * MB, b, 1, e, n);
    free(e);
    return steps;
}

/* An expandable segment of n live blocks, a free 2 MiB between their halves, unmapped and
 * mapped again n times: walked back, each map cuts the segment in two at the middle and each
 * unmap joins it again. */
static uint64_t steps_expandable(size_t n)
{
    sblock *b = calloc(n + 1, sizeof *b);
    sentry *e = calloc(2 * n, sizeof *e);
    uint64_t mid = 512 * (n / 2);
    for (size_t i = 0, off = 0; i <= n; i++) {
        int gap = i == n / 2;
        b[i] = (sblock){off, gap ? 2 * MB : 512, gap ? 0 : 512,
                        gap ? "inactive" : "active_allocated"};
        off += b[i].size;
    }
    for (size_t i = 0; i < n; i++) {
        e[2 * i] = (sentry){"segment_unmap", mid, 2 * MB};
        e[2 * i + 1] = (sentry){"segment_map", mid, 2 * MB};
    }
    uint64_t steps = steps_of(512 * n + 2 * MB, b, n + 1, e, 2 * n);
    free(b);
    free(e);
    return steps;
}

/* Reading a snapshot is n log n in its entries and segments: its steps (one per tree operation
 * or record visited) grow about fourfold from n to 4n, where they grew sixteenfold until
 * 2026-11-27 (sorted arrays, each insertion moving the entries after it: 80,000 entries took
 * 8.4 s). Counted, not timed, so a loaded machine cannot fail it. */
static void test_linear_steps(void)
{
    static const struct { const char *what; uint64_t (*steps)(size_t); } shape[] = {
        {"entries", steps_entries}, {"segments", steps_segments},
        {"expandable", steps_expandable}};
    for (size_t k = 0; k < AM_ARRAY_LEN(shape); k++) {
        uint64_t small = shape[k].steps(1000), large = shape[k].steps(4000);
        CU_ASSERT(small > 1000);
        CU_ASSERT(large <= 5 * small); /* 4 and a margin; quadratic would be 16 */
        if (large > 5 * small)
            printf("\n%s: %llu steps for n = 1000, %llu for n = 4000\n", shape[k].what,
                   (unsigned long long)small, (unsigned long long)large);
    }
}

/* ---- names from stack frames ---- */

/* A str of any length (BINUNICODE), its bytes as they are: invalid UTF-8 too. */
static void wstrn(pw *w, const char *s, size_t n)
{
    wb(w, 'X');
    for (int i = 0; i < 4; i++)
        wb(w, (unsigned char)(n >> (8 * i)));
    for (size_t i = 0; i < n; i++)
        wb(w, (unsigned char)s[i]);
}

static void wframe(pw *w, const char *name, const char *file, long line)
{
    wb(w, '}');
    wb(w, '(');
    wstr(w, "name");
    wstrn(w, name, strlen(name));
    wkv_str(w, "filename", file);
    wkv_int(w, "line", (uint64_t)line);
    wb(w, 'u');
}

/* The frames of test_frame_names' entries, innermost first: entry i's name is frame_want[i]. */
static const char *const frame_want[] = {
    "model.py:54:forward",      /* a torch frame first, then the user's */
    NULL,                       /* C++ frames only (context='all') */
    NULL,                       /* no frames */
    "fc1.weight",               /* amsim's export form: the name as it is */
    "my_model.py:7:my_fn___x",  /* a space, a tab, a byte 0xff, a C1 control */
    NULL,                       /* frames no list */
    "model.py:39:forward",      /* unusable frames, then einops (installed), then the user's */
    "mod.py:5:run",             /* installed packages only: the innermost of them */
    "long",                     /* cut to 254 bytes: no half character */
    NULL,                       /* a Windows torch path only */
    "x.py:3:two_words",         /* the export form's rule does not apply to line 3 */
};
#define N_FRAME_CASES (sizeof frame_want / sizeof frame_want[0])

static int write_frames(pw *w, int block, size_t i)
{
    wstr(w, "frames");
    if (block) { /* the live block at the start: a torch frame, then the user's */
        wb(w, ']');
        wb(w, '(');
        if (i == 0) {
            wframe(w, "_call_impl", "/venv/lib/python3.12/site-packages/torch/nn/modules/module.py",
                   1790);
            wframe(w, "build", "/home/u/proj/model.py", 12);
        }
        wb(w, 'e');
        return 1;
    }
    if (i == 5) {
        wint(w, 7);
        return 1;
    }
    wb(w, ']');
    wb(w, '(');
    switch (i) {
    case 0:
        wframe(w, "_call_impl", "D:\\Dev\\a\\.venv\\Lib\\site-packages\\torch\\nn\\modules\\"
               "module.py", 1790);
        wframe(w, "forward", "D:\\Dev\\a\\cs336_basics\\model.py", 54);
        wframe(w, "<module>", "D:\\Dev\\a\\bench.py", 65);
        break;
    case 1:
        wframe(w, "torch::unwind::unwind()", "??", 0);
        wframe(w, "c10::cuda::malloc(unsigned long)", "CUDACachingAllocator.cpp", 0);
        wframe(w, "PyEval_EvalCode", "/usr/lib/libpython3.12.so", 0);
        break;
    case 3:
        wframe(w, "fc1.weight", "", 0);
        break;
    case 4:
        wframe(w, "my fn\t\xff\xc2\x9bx", "/home/u/my model.py", 7);
        break;
    case 6:
        wint(w, 5); /* no dict */
        wb(w, '}');
        wb(w, '(');
        wkv_str(w, "name", "f");
        wkv_str(w, "filename", "/home/u/a.py"); /* no line */
        wb(w, 'u');
        wb(w, '}');
        wb(w, '(');
        wkv_int(w, "name", 3); /* a name of another type */
        wkv_str(w, "filename", "/home/u/b.py");
        wkv_int(w, "line", 1);
        wb(w, 'u');
        wframe(w, "einsum", "C:\\venv\\Lib\\site-packages\\einops\\_backends.py", 291);
        wframe(w, "forward", "C:\\proj\\model.py", 39);
        break;
    case 7:
        wframe(w, "run", "/venv/lib/python3.12/site-packages/pkg/mod.py", 5);
        wframe(w, "main", "/venv/lib/python3.12/dist-packages/app/cli.py", 9);
        break;
    case 8: {
        char fn[1 + 2 * 300 + 1] = "x";
        for (int k = 0; k < 300; k++)
            memcpy(fn + 1 + 2 * k, "\xc3\xa9", 3);
        wframe(w, fn, "/home/u/a.py", 1);
        break;
    }
    case 9:
        wframe(w, "einsum", "C:\\venv\\Lib\\site-packages\\torch\\functional.py", 373);
        break;
    case 10:
        wframe(w, "two words", "/x.py", 3);
        break;
    }
    wb(w, 'e');
    return 1;
}

/* An alloc entry's name comes from its frames (the innermost Python frame outside torch and
 * installed packages, as BASENAME:LINE:FUNCTION, or an amsim export's one frame as it is),
 * made a valid name=; frames it cannot use give no name and never refuse the snapshot. A live
 * start-state block is named from its frames the same way; frees carry no name. Until
 * 2026-11-28 the reader skipped frames: no snapshot allocation had a name. */
static void test_frame_names(void)
{
    const uint64_t base = 1ULL << 30, segsize = 20 * MB;
    sblock b[N_FRAME_CASES + 2];
    sentry e[N_FRAME_CASES + 1];
    b[0] = (sblock){0, MB, MB, "active_allocated"};
    for (size_t k = 0; k < N_FRAME_CASES; k++) {
        b[k + 1] = (sblock){MB + 4096 * k, 4096, 4096, "active_allocated"};
        e[k] = (sentry){"alloc", MB + 4096 * k, 4096};
    }
    b[N_FRAME_CASES + 1] = (sblock){MB + 4096 * N_FRAME_CASES,
                                    segsize - MB - 4096 * N_FRAME_CASES, 0, "inactive"};
    e[N_FRAME_CASES] = (sentry){"free_requested", MB, 4096}; /* case 0's, with frames */
    b[1].state = "active_pending_free";
    snap_frames = write_frames;
    const char *path = write_snapshot("frames.pickle", base, segsize, b, N_FRAME_CASES + 2, e,
                                      N_FRAME_CASES + 1);
    snap_frames = NULL;
    size_t seen = 0;
    int start = 0;
    trace t;
    am_error err = {0};
    CU_ASSERT_EQUAL_FATAL(open_pickle(&t, path, 0, &err), 0);
    tr_event ev;
    /* a name lives as long as the trace is open: looked at before the close */
    while (t.reader->next(&t, &ev, &err) == 1) {
        const tr_event *x = &ev;
        if (x->kind == TR_ALLOC && x->line == 0 && x->addr == base && x->bytes == MB) {
            CU_ASSERT(x->name && strcmp(x->name, "model.py:12:build") == 0);
            start++;
        } else if (x->kind == TR_ALLOC && x->line == 0) {
            CU_ASSERT_PTR_NULL(x->name); /* the free space's tiles, the segment's creator */
        }
        if (x->kind != TR_ALLOC && x->kind != TR_FREE_REQUESTED)
            continue;
        if (x->line == 0 || x->kind == TR_FREE_REQUESTED) {
            CU_ASSERT_PTR_NULL(x->kind == TR_FREE_REQUESTED ? x->name : NULL);
            continue;
        }
        size_t i = x->line - 1;
        CU_ASSERT_FATAL(i < N_FRAME_CASES);
        seen++;
        const char *want = frame_want[i];
        if (!want) {
            CU_ASSERT_PTR_NULL(x->name);
            if (x->name)
                printf("\nentry %zu: name '%s', expected none\n", i, x->name);
            continue;
        }
        CU_ASSERT_PTR_NOT_NULL_FATAL(x->name);
        if (i == 8) { /* "a.py:1:x" then 123 two-byte characters: 254 bytes, valid UTF-8 */
            CU_ASSERT_EQUAL(strlen(x->name), 254);
            CU_ASSERT_EQUAL(strncmp(x->name, "a.py:1:x\xc3\xa9", 10), 0);
            CU_ASSERT_STRING_EQUAL(x->name + 252, "\xc3\xa9");
            continue;
        }
        if (strcmp(x->name, want) != 0)
            printf("\nentry %zu: name '%s', expected '%s'\n", i, x->name, want);
        CU_ASSERT_STRING_EQUAL(x->name, want);
    }
    t.reader->close(&t);
    fclose(t.f);
    CU_ASSERT_EQUAL(seen, N_FRAME_CASES);
    CU_ASSERT_EQUAL(start, 1);
}

/* The real MAGMA27 snapshot: `amsim convert` writes names of the model's lines on its
 * allocations (655 of its 1721 alloc entries have frames; the others have none). */
static void test_frame_names_real(void)
{
    const char *snap = tu_shared("pytorch-snapshots/MAGMA27_assignment2-systems_memory_snapshot."
                                 "pickle");
    if (!snap)
        return;
    char args[4096], out[512];
    snprintf(out, sizeof out, "%s/magma-names.trace", tu_tmpdir());
    snprintf(args, sizeof args, "convert '%s' -o '%s'", snap, out);
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
    char *t = tu_slurp(out, NULL);
    CU_ASSERT_FATAL(t != NULL);
    CU_ASSERT(tu_count(t, " name=model.py:") > 0);
    CU_ASSERT_EQUAL(tu_count(t, " name=model.py:101:forward "), 100);
    CU_ASSERT_EQUAL(tu_count(t, " name="), 655);
    free(t);
}

void suite_pickle(void)
{
    TU_SUITE("pickle",
             {"refuses class-loading and calling opcodes", test_refused_opcodes},
             {"refuses truncation and oversized lengths", test_truncated_and_lengths},
             {"refuses nesting bombs", test_nesting_bombs},
             {"nesting built through the memo, and cycles, refused", test_nesting_through_memo},
             {"a dict of 200,000 keys, some twice: the last wins", test_big_dict},
             {"the snapshot size cap; bytes kept without a copy", test_size_cap_and_bytes},
             {"memo, big integers, sharing", test_memo_bigint_types},
             {"short strs and small ints are shared values", test_interned_scalars},
             {"snapshot round trip", test_round_trip},
             {"backward walk to the trace start", test_backward_walk},
             {"the backward walk's steps grow as n log n, not n^2", test_linear_steps},
             {"start-state blocks requested with their recorded requested_size",
              test_start_requested_size},
             {"unknown trace actions counted as skipped", test_unknown_actions},
             {"a free of an unknown address: one skipped row", test_unknown_frees},
             {"entries outside every segment are replayed, not skipped",
              test_outside_segments_replayed},
             {"an alloc over a live or pending block is refused", test_alloc_over_live},
             {"a time_us going back warns, a negative one is refused", test_time_backwards},
             {"an amsim_sub_us_ps going back is named in the warning", test_time_backwards_sub_us},
             {"run's and check's errors name the snapshot entry", test_engine_error_names_entry},
             {"private memory pools refused", test_private_pool},
             {"recorded allocator settings, and the warning when the config differs",
              test_recorded_settings},
             {"convert names the recorded settings it drops", test_convert_names_settings},
             {"warnings name the files with their control bytes escaped", test_warnings_escaped},
             {"allocator_settings of another type are refused, naming the key",
              test_settings_types},
             {"recorded roundup_power2_divisions: a place's 1 is its 0 (off)",
              test_recorded_divisions_one_is_off},
             {"wrong top-level type", test_wrong_top_level},
             {"a device with no entries is refused, --device everywhere", test_empty_device},
             {"more than 1024 stream handles refused", test_distinct_streams},
             {"a device with segments only, past device_traces", test_device_past_traces},
             {"a segment device --device cannot choose is refused", test_device_out_of_range},
             {"fields of another type refused by name; a whole float time_us read",
              test_field_types},
             {"a cut gzip-compressed snapshot: the documented read error", test_gzip_cut},
             {"an alloc's name from its frames; unusable frames are no name", test_frame_names},
             {"the real MAGMA27 snapshot converts with its model's lines as names",
              test_frame_names_real});
}
