/* test_trace.c - the trace readers: native text v1, lifetime CSV, detection by content.
 *
 * Every op with every field, defaults and units; each reader error with its exact
 * file:line:col text; the lifetime-CSV replay order (frees before allocs at equal time, ties in
 * row order) on hand-made rows, on 150k-row files both streamed and read whole (and a streamed
 * file changed under the reader), and against the allocation order of every BFC oracle vector in
 * ../shared/data/bfc-oracle (skipped when ../shared is absent). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/config.h"
#include "../../sim/trace.h"
#include "../../sim/trace_impl.h"
#include "testutil.h"

static const char *const levels[] = {"hbm", "host", "vmem"};

static trace_opts topts(void)
{
    trace_opts o;
    memset(&o, 0, sizeof o);
    o.level_names = levels;
    o.nlevels = 3;
    o.default_level = 0;
    o.time_unit = 1000; /* 1 ns */
    return o;
}

/* Read every event of PATH into evs (at most max; names copied into names); returns the count,
 * or -1 with *err set. */
static char names[64][300];
static long read_all(const char *path, const trace_opts *o, tr_event *evs, long max, am_error *err,
                     trace **keep)
{
    trace *t;
    memset(err, 0, sizeof *err);
    if (trace_open(&t, path, o, err))
        return -1;
    long n = 0;
    tr_event ev;
    int r;
    while ((r = trace_next(t, &ev, err)) == 1) {
        if (n < max) {
            evs[n] = ev;
            if (ev.name && n < 64) {
                snprintf(names[n], sizeof names[n], "%s", ev.name);
                evs[n].name = names[n];
            }
        }
        n++;
    }
    if (keep)
        *keep = t;
    else
        trace_close(t);
    return r < 0 ? -1 : n;
}

/* Parse TEXT written to NAME; returns the count of events (-1 on error, message in *err). */
static long parse(const char *name, const char *text, tr_event *evs, long max, am_error *err)
{
    trace_opts o = topts();
    return read_all(tu_write(name, text), &o, evs, max, err, NULL);
}

/* The text must fail with exactly "PATH:" + want. */
static void expect_error(const char *name, const char *text, const char *want)
{
    tr_event evs[8];
    am_error err;
    long n = parse(name, text, evs, 8, &err);
    char full[2048];
    snprintf(full, sizeof full, "%s/%s:%s", tu_tmpdir(), name, want);
    CU_ASSERT_EQUAL(n, -1);
    CU_ASSERT_EQUAL(err.status, AM_EINPUT);
    if (n != -1 || strcmp(err.msg, full) != 0)
        printf("\n  want: %s\n  got:  %s\n", full, n == -1 ? err.msg : "(no error)");
    CU_ASSERT_STRING_EQUAL(err.msg, full);
}

#define HDR "amsim-trace v1\n"

/* A recorded range may end exactly at 2^64 - 1 (its last byte 2^64 - 2): the refusal of one
 * past it (test_badinput.c, *_range_wraps) must not take these too. */
static void test_range_to_end(void)
{
    tr_event e[4];
    am_error err;
    long n = parse("rend.trace", HDR "alloc 1 1 addr=18446744073709551614\nfree 1\n"
                                     "segment_free 18446744073709547519 4KiB\n", e, 4, &err);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT(e[0].kind == TR_ALLOC && e[0].addr == UINT64_MAX - 1 && e[0].bytes == 1);
    CU_ASSERT(e[2].kind == TR_SEGMENT_FREE && e[2].addr == UINT64_MAX - 4096 &&
              e[2].bytes == 4096);
    trace_opts o = topts();
    n = read_all(tu_write("rend.csv", "id,lower,upper,size,offset\n1,0,5,2,18446744073709551613\n"),
                 &o, e, 4, &err, NULL);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_EQUAL(e[0].addr, UINT64_MAX - 2);
}

static void test_alloc_fields(void)
{
    tr_event e[4];
    am_error err;
    long n = parse("a.trace", HDR "alloc 7 1KiB level=host stream=2 name=w.0 at=5us addr=4096\n"
                   "a 8 100\n", e, 4, &err);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_EQUAL(e[0].kind, TR_ALLOC);
    CU_ASSERT_EQUAL(e[0].id, 7);
    CU_ASSERT_EQUAL(e[0].bytes, 1024);
    CU_ASSERT_EQUAL(e[0].level, 1);
    CU_ASSERT_EQUAL(e[0].stream, 2);
    CU_ASSERT_STRING_EQUAL(e[0].name, "w.0");
    CU_ASSERT_EQUAL(e[0].time, 5 * AM_PS_PER_US);
    CU_ASSERT_EQUAL(e[0].addr, 4096);
    CU_ASSERT_EQUAL(e[0].line, 2);
    CU_ASSERT_EQUAL(e[0].col, 1);
    /* defaults */
    CU_ASSERT_EQUAL(e[1].kind, TR_ALLOC);
    CU_ASSERT_EQUAL(e[1].id, 8);
    CU_ASSERT_EQUAL(e[1].bytes, 100);
    CU_ASSERT_EQUAL(e[1].level, 0);
    CU_ASSERT_EQUAL(e[1].stream, 0);
    CU_ASSERT_PTR_NULL(e[1].name);
    CU_ASSERT_EQUAL(e[1].time, AM_TIME_NONE);
    CU_ASSERT_EQUAL(e[1].addr, TR_NO_ADDR);
    CU_ASSERT_EQUAL(e[1].line, 3);

    /* the default level comes from the options */
    trace_opts o = topts();
    o.default_level = 2;
    n = read_all(tu_write("a2.trace", HDR "alloc 1 2GB\n"), &o, e, 4, &err, NULL);
    CU_ASSERT_EQUAL_FATAL(n, 1);
    CU_ASSERT_EQUAL(e[0].level, 2);
    CU_ASSERT_EQUAL(e[0].bytes, 2000000000ULL);
}

static void test_other_ops(void)
{
    tr_event e[20];
    am_error err;
    long n = parse("ops.trace", HDR
                   "free 7 stream=1 at=1ms\n"
                   "f 8\n"
                   "transfer host hbm 64MiB stream=3 id=7 name=batch at=2ms\n"
                   "t hbm vmem 512\n"
                   "compute 2.5us stream=1 name=matmul\n"
                   "c 100\n"
                   "record 42 stream=1\n"
                   "r 43\n"
                   "wait 42 stream=2\n"
                   "w 43\n"
                   "sync\n"
                   "sync stream=3 at=3ms\n"
                   "free_requested 9\n"
                   "free_completed 9 stream=4\n"
                   "segment_alloc 0 2MiB level=hbm\n"
                   "segment_free 0 2097152 level=host\n"
                   "oom 80GiB level=hbm\n", e, 20, &err);
    if (n < 0)
        printf("\n%s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(n, 17);
    CU_ASSERT(e[0].kind == TR_FREE && e[0].id == 7 && e[0].stream == 1 && e[0].time == AM_PS_PER_MS);
    CU_ASSERT(e[1].kind == TR_FREE && e[1].id == 8 && e[1].stream == 0 && e[1].time == AM_TIME_NONE);
    CU_ASSERT(e[2].kind == TR_TRANSFER && e[2].level == 1 && e[2].dst_level == 0);
    CU_ASSERT(e[2].bytes == 64ULL << 20 && e[2].stream == 3 && e[2].id == 7);
    CU_ASSERT(e[2].time == 2 * AM_PS_PER_MS && e[2].name && !strcmp(e[2].name, "batch"));
    CU_ASSERT(e[3].kind == TR_TRANSFER && e[3].level == 0 && e[3].dst_level == 2);
    CU_ASSERT(e[3].bytes == 512 && e[3].id == TR_NO_ADDR && e[3].stream == 0);
    CU_ASSERT(e[4].kind == TR_COMPUTE && e[4].duration == 2500000 && e[4].stream == 1);
    CU_ASSERT(e[4].name && !strcmp(e[4].name, "matmul"));
    CU_ASSERT(e[5].kind == TR_COMPUTE && e[5].duration == 100 * AM_PS_PER_NS);
    CU_ASSERT(e[6].kind == TR_RECORD && e[6].arg == 42 && e[6].stream == 1);
    CU_ASSERT(e[7].kind == TR_RECORD && e[7].arg == 43 && e[7].stream == 0);
    CU_ASSERT(e[8].kind == TR_WAIT && e[8].arg == 42 && e[8].stream == 2);
    CU_ASSERT(e[9].kind == TR_WAIT && e[9].arg == 43 && e[9].stream == 0);
    CU_ASSERT(e[10].kind == TR_SYNC && e[10].stream == TR_ALL);
    CU_ASSERT(e[11].kind == TR_SYNC && e[11].stream == 3 && e[11].time == 3 * AM_PS_PER_MS);
    CU_ASSERT(e[12].kind == TR_FREE_REQUESTED && e[12].id == 9);
    CU_ASSERT(e[13].kind == TR_FREE_COMPLETED && e[13].id == 9 && e[13].stream == 4);
    CU_ASSERT(e[14].kind == TR_SEGMENT_ALLOC && e[14].addr == 0 && e[14].bytes == 2097152 &&
              e[14].level == 0);
    CU_ASSERT(e[15].kind == TR_SEGMENT_FREE && e[15].level == 1 && e[15].bytes == 2097152);
    CU_ASSERT(e[16].kind == TR_OOM_RECORDED && e[16].bytes == 80ULL << 30);
    CU_ASSERT_EQUAL(e[16].line, 18);
}

static void test_time_units(void)
{
    tr_event e[8];
    am_error err;
    /* plain numbers: the header's time_unit wins over the options */
    long n = parse("tu.trace", "amsim-trace v1 time_unit=us\ncompute 3\ncompute 3ns at=2\n",
                   e, 8, &err);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_EQUAL(e[0].duration, 3 * AM_PS_PER_US);
    CU_ASSERT_EQUAL(e[1].duration, 3 * AM_PS_PER_NS);
    CU_ASSERT_EQUAL(e[1].time, 2 * AM_PS_PER_US);
    /* without a header unit, opts->time_unit */
    trace_opts o = topts();
    o.time_unit = 1;
    n = read_all(tu_write("tu2.trace", HDR "compute 3 at=7\ncompute 1s\n"), &o, e, 8, &err, NULL);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_EQUAL(e[0].duration, 3);
    CU_ASSERT_EQUAL(e[0].time, 7);
    CU_ASSERT_EQUAL(e[1].duration, AM_PS_PER_S);
    /* time_unit 0 in the options means the default, 1 ns */
    o.time_unit = 0;
    n = read_all(tu_write("tu3.trace", HDR "compute 3\n"), &o, e, 8, &err, NULL);
    CU_ASSERT_EQUAL_FATAL(n, 1);
    CU_ASSERT_EQUAL(e[0].duration, 3000);
    /* equal times are fine */
    n = parse("tu4.trace", HDR "c 1 at=5\nc 1 at=5\nc 1\nc 1 at=6\n", e, 8, &err);
    CU_ASSERT_EQUAL(n, 4);
}

static void test_layout(void)
{
    tr_event e[8];
    am_error err;
    /* BOM, comments before the header, CRLF, tabs, indentation, trailing comments, blank lines,
     * no final newline; line numbers count every line */
    long n = parse("lay.trace", "\xEF\xBB\xBF# leading comment\r\n\r\n  amsim-trace\tv1  \r\n"
                   "# c\n\n\talloc\t1 10   # weights\r\n   \n  free 1#not-a-comment-start\n"
                   "free 1 # ok\nsync", e, 8, &err);
    CU_ASSERT_EQUAL(n, -1); /* "1#not..." is one token */
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, ":8:8: bad ID '1#not-a-comment-start'"));
    n = parse("lay2.trace", "\xEF\xBB\xBF# leading comment\r\n\r\n  amsim-trace\tv1  \r\n"
              "# c\n\n\talloc\t1 10   # weights\r\n   \nfree 1 # ok\nsync", e, 8, &err);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT(e[0].kind == TR_ALLOC && e[0].line == 6 && e[0].col == 2 && e[0].bytes == 10);
    CU_ASSERT(e[1].kind == TR_FREE && e[1].line == 8);
    CU_ASSERT(e[2].kind == TR_SYNC && e[2].line == 9);
    /* a header alone is an empty trace */
    n = parse("empty.trace", "amsim-trace v1\n", e, 8, &err);
    CU_ASSERT_EQUAL(n, 0);
}

static void test_native_errors(void)
{
    expect_error("e1.trace", HDR "alloc 1 10\nmalloc 2 10\n",
                 "3:1: unknown op 'malloc' (expected alloc, free, transfer, compute, record, wait, "
                 "sync, use, free_requested, free_completed, segment_alloc, segment_free, "
                 "oom or defrag)");
    expect_error("e2.trace", HDR "alloc 1\n",
                 "2:8: missing BYTES (usage: alloc ID BYTES [level=NAME] [stream=S] [name=TAG] "
                 "[at=TIME] [addr=N] [donate=ID] [prologue=0|1])");
    expect_error("e3.trace", HDR "transfer hbm host stream=1\n",
                 "2:19: missing BYTES before 'stream=1' (usage: transfer SRC DST BYTES [stream=S] "
                 "[id=ID] [name=TAG] [at=TIME] [into=ID|to=ID] [implicit=0|1])");
    expect_error("e3t.trace", HDR "transfer hbm host 10 into=2 to=3\n",
                 "2:29: a transfer names one destination buffer: into=ID (allocated by the copy) "
                 "or to=ID (already allocated), not both");
    expect_error("e3b.trace", HDR "transfer hbm 10\n", "2:14: unknown level '10' (configured: hbm, host, vmem)");
    expect_error("e4.trace", HDR "free 1 2\n", "2:8: unexpected field '2' (usage: free ID [stream=S] [at=TIME] [prologue=0|1])");
    expect_error("e5.trace", HDR "alloc x1 10\n", "2:7: bad ID 'x1': not an unsigned integer");
    expect_error("e6.trace", HDR "alloc -1 10\n", "2:7: bad ID '-1': negative");
    expect_error("e7.trace", HDR "free 18446744073709551616\n",
                 "2:6: bad ID '18446744073709551616': out of range (max 18446744073709551615)");
    expect_error("e8.trace", HDR "free 18446744073709551615\nrecord 99999999999999999999x\n",
                 "3:8: bad EVENT '99999999999999999999x': not an unsigned integer");
    expect_error("e9.trace", HDR "alloc 1 10 level=hbm colour=red\n",
                 "2:22: unknown field 'colour' for alloc (allowed: level, stream, name, at, addr, donate, prologue)");
    expect_error("e10.trace", HDR "free 1 level=hbm\n",
                 "2:8: unknown field 'level' for free (allowed: stream, at, prologue)");
    expect_error("e11.trace", HDR "compute 5 stream=1 stream=2\n", "2:20: duplicate field 'stream'");
    expect_error("e12.trace", HDR "compute 5 stream=\n", "2:18: missing value after 'stream='");
    expect_error("e13.trace", HDR "alloc 1 10 level=dram\n",
                 "2:18: unknown level 'dram' (configured: hbm, host, vmem)");
    expect_error("e14.trace", HDR "transfer hbm sram 10\n",
                 "2:14: unknown level 'sram' (configured: hbm, host, vmem)");
    expect_error("e15.trace", HDR "sync stream=4294967295\n",
                 "2:13: bad stream '4294967295': out of range (max 4294967294)");
    expect_error("e16.trace", HDR "sync stream=-3\n", "2:13: bad stream '-3': negative");
    expect_error("e17.trace", HDR "compute 5 at=10\ncompute 5 at=9\n",
                 "3:14: time goes backwards: 9000 ps < previous 10000 ps");
    expect_error("e18.trace", HDR "compute 5 at=1us\nsync\ncompute 5 at=999ns\n",
                 "4:14: time goes backwards: 999000 ps < previous 1000000 ps");
    expect_error("e19.trace", HDR "compute 18446744073709551615\n",
                 "2:9: bad DURATION '18446744073709551615': out of range (more than 2^64 ps)");
    /* 2^64 - 1 ps is the value that means "no at=": a time written as it is refused, not lost */
    expect_error("e19b.trace", HDR "compute 5 at=18446744073709551615ps\n",
                 "2:14: bad at '18446744073709551615ps': out of range (at most 2^64 - 3 ps)");
    /* 2^64 - 2 ps is where a run's clock stops: no policy could run such an event (until
     * 2026-11-27 it was read, and every run then failed) */
    expect_error("e19c.trace", HDR "compute 5 at=18446744073709551614ps\n",
                 "2:14: bad at '18446744073709551614ps': out of range (at most 2^64 - 3 ps)");
    expect_error("e20.trace", HDR "free 1 stream=2x\n", "2:15: bad stream '2x': not an unsigned integer");
    expect_error("e21.trace", HDR "transfer host hbm 10 id=a\n", "2:25: bad id 'a': not an unsigned integer");
    expect_error("e22.trace", HDR "alloc 1 10 addr=0x10\n", "2:17: bad addr '0x10': not an unsigned integer");
    expect_error("e23.trace", HDR "alloc 1 10 =5\n",
                 "2:12: unknown field '' for alloc (allowed: level, stream, name, at, addr, donate, prologue)");
    expect_error("e24.trace", HDR "alloc 1 10 name=a\001b\n", "2:18: name contains a control character");
    /* header problems */
    expect_error("h1.trace", "amsim-trace v2\n", "1:13: unsupported trace version 'v2' (this amsim reads v1)");
    expect_error("h2.trace", "# x\namsim-trace\n", "2:12: missing version after 'amsim-trace' (expected v1)");
    expect_error("h3.trace", "amsim-trace v1 clock=1ns\n", "1:16: unknown header field 'clock' (allowed: time_unit, skipped, validated)");
    expect_error("h4.trace", "amsim-trace v1 fast\n", "1:16: unexpected header field 'fast' (allowed: time_unit=TIME, skipped=N, validated=0|1)");
    expect_error("h5.trace", "amsim-trace v1 time_unit=10\n", "1:26: time_unit '10' needs a unit (ps, ns, us, ms or s)");

    /* sizes and times with bad units name the token; the reason comes from units.c */
    tr_event e[2];
    am_error err;
    CU_ASSERT_EQUAL(parse("u1.trace", HDR "alloc 1 12XB\n", e, 2, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/u1.trace:2:9: bad BYTES '12XB': "));
    CU_ASSERT_EQUAL(parse("u2.trace", HDR "compute 5 at=3days\n", e, 2, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/u2.trace:2:14: bad at '3days': "));
    CU_ASSERT_EQUAL(parse("u3.trace", HDR "compute -5us\n", e, 2, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/u3.trace:2:9: bad DURATION '-5us': "));
    CU_ASSERT_EQUAL(parse("u4.trace", HDR "alloc 1 -5\n", e, 2, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/u4.trace:2:9: bad BYTES '-5': "));
}

static void test_limits(void)
{
    /* a name of 255 bytes is accepted, 256 is refused */
    char buf[600];
    char nm[300];
    memset(nm, 'n', 256);
    nm[256] = 0;
    snprintf(buf, sizeof buf, HDR "alloc 1 10 name=%s\n", nm);
    expect_error("n1.trace", buf, "2:17: name too long (256 bytes, limit 255)");
    nm[255] = 0;
    snprintf(buf, sizeof buf, HDR "alloc 1 10 name=%s\n", nm);
    tr_event e[2];
    am_error err;
    CU_ASSERT_EQUAL_FATAL(parse("n2.trace", buf, e, 2, &err), 1);
    CU_ASSERT_EQUAL(strlen(e[0].name), 255);

    /* a line of 65536 bytes is read, 65537 is an error (not truncated) */
    size_t L = 65536;
    char *big = malloc(L + 64);
    strcpy(big, HDR);
    size_t h = strlen(big);
    big[h] = '#';
    memset(big + h + 1, 'x', L - 1);
    strcpy(big + h + L, "\nsync\n");
    CU_ASSERT_EQUAL(parse("l1.trace", big, e, 2, &err), 1);
    big[h + L] = 'x';
    strcpy(big + h + L + 1, "\nsync\n");
    expect_error("l2.trace", big, "2:65537: line too long (limit 65536 bytes)");
    /* the same in a lifetime CSV */
    strcpy(big, "id,lower,upper,size\n1,0,1,");
    h = strlen(big);
    memset(big + h, '1', L + 1 - (h - 20));
    strcpy(big + 20 + L + 1, "\n");
    expect_error("l3.csv", big, "2:65537: line too long (limit 65536 bytes)");
    free(big);
}

/* Many lines across several read chunks: every event arrives, in order, with its line. */
static void test_streaming(void)
{
    const long N = 200000;
    char path[512];
    snprintf(path, sizeof path, "%s/big.trace", tu_tmpdir());
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(HDR, f);
    for (long i = 0; i < N; i++)
        fprintf(f, "alloc %ld %ld stream=%ld name=buffer_%ld at=%ld\n", i, i * 3 + 1, i % 4, i, i);
    fclose(f);
    trace_opts o = topts();
    trace *t;
    am_error err;
    CU_ASSERT_EQUAL_FATAL(trace_open(&t, path, &o, &err), 0);
    CU_ASSERT_STRING_EQUAL(trace_format(t), "native");
    CU_ASSERT_STRING_EQUAL(trace_path(t), path);
    tr_event ev;
    long i = 0, bad = 0;
    char want[64];
    while (trace_next(t, &ev, &err) == 1) {
        snprintf(want, sizeof want, "buffer_%ld", i);
        if (ev.id != (uint64_t)i || ev.bytes != (uint64_t)(i * 3 + 1) || ev.stream != (uint32_t)(i % 4) ||
            ev.time != (am_ps)i * 1000 || ev.line != (unsigned long)i + 2 || !ev.name ||
            strcmp(ev.name, want) != 0)
            bad++;
        i++;
    }
    CU_ASSERT_EQUAL(i, N);
    CU_ASSERT_EQUAL(bad, 0);
    trace_close(t);
}

/* The alloc/free fast path (parsed straight from the read buffer when 64 bytes or more are
 * left) against what the generator wrote: short and long op names, tabs, CRLF, leading zeros,
 * 19-digit numbers, and lines the fast path must hand to the general parser (a unit on a size,
 * a trailing comment, trailing blanks, a key=value field), interleaved, across read chunks. */
static void test_fast_path(void)
{
    const long N = 150000;
    char path[512];
    snprintf(path, sizeof path, "%s/fast.trace", tu_tmpdir());
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(HDR, f);
    uint64_t *id = malloc((size_t)N * sizeof *id), *bytes = malloc((size_t)N * sizeof *bytes);
    int *kind = malloc((size_t)N * sizeof *kind);
    CU_ASSERT_FATAL(id && bytes && kind);
    uint64_t x = 88172645463325252ULL;
    for (long i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        unsigned form = (unsigned)(x % 11);
        kind[i] = (x >> 8) & 1 ? TR_FREE : TR_ALLOC;
        id[i] = (x >> 16) % 5 == 0 ? 9999999999999999999ULL - (uint64_t)i : (uint64_t)i;
        bytes[i] = kind[i] == TR_ALLOC ? ((x >> 24) % 3 == 0 ? (x >> 20) : (x >> 40) + 1) : 0;
        const char *op = kind[i] == TR_ALLOC ? (form & 1 ? "a" : "alloc") : (form & 1 ? "f" : "free");
        char num[48] = "";
        if (kind[i] == TR_ALLOC)
            snprintf(num, sizeof num, form == 4 ? "\t00%" PRIu64 : " %" PRIu64, bytes[i]);
        switch (form) {
        case 7: /* a unit: the general parser */
            if (kind[i] == TR_ALLOC) {
                bytes[i] = ((x >> 20) % 1000 + 1) * 1024;
                snprintf(num, sizeof num, " %" PRIu64 "KiB", bytes[i] / 1024);
            }
            fprintf(f, "%s %" PRIu64 "%s\n", op, id[i], num);
            break;
        case 8: /* a trailing comment */
            fprintf(f, "%s %" PRIu64 "%s   # note %ld\n", op, id[i], num, i);
            break;
        case 9: /* CRLF */
            fprintf(f, "%s\t%" PRIu64 "%s\r\n", op, id[i], num);
            break;
        case 10: /* a field */
            fprintf(f, "%s %" PRIu64 "%s stream=0 \n", op, id[i], num);
            break;
        default:
            fprintf(f, "%s %" PRIu64 "%s\n", op, id[i], num);
        }
    }
    fclose(f);
    trace_opts o = topts();
    trace *t;
    am_error err;
    CU_ASSERT_EQUAL_FATAL(trace_open(&t, path, &o, &err), 0);
    tr_event ev;
    long i = 0, bad = 0;
    int r;
    while ((r = trace_next(t, &ev, &err)) == 1) {
        if (i >= N || (int)ev.kind != kind[i] || ev.id != id[i] || ev.bytes != bytes[i] ||
            ev.line != (unsigned long)i + 2 || ev.level != 0 || ev.stream != 0 || ev.name ||
            ev.time != AM_TIME_NONE || ev.addr != TR_NO_ADDR) {
            if (bad++ < 3)
                printf("\n  event %ld (line %lu): kind %d id %" PRIu64 " bytes %" PRIu64, i, ev.line,
                       (int)ev.kind, ev.id, ev.bytes);
        }
        i++;
    }
    if (r != 0)
        printf("\n  %s", err.msg);
    CU_ASSERT_EQUAL(r, 0);
    CU_ASSERT_EQUAL(i, N);
    CU_ASSERT_EQUAL(bad, 0);
    trace_close(t);
    free(id);
    free(bytes);
    free(kind);
    /* Errors in the middle of a long file, where the fast path is active, keep line and column:
     * a 20-digit id (overflow), a second number on a free, a letter glued to a number. */
    static const struct { const char *line, *want; } bad_lines[] = {
        {"alloc 99999999999999999999 8",
         "1002:7: bad ID '99999999999999999999': out of range (max 18446744073709551615)"},
        {"free 5 6", "1002:8: unexpected field '6' (usage: free ID [stream=S] [at=TIME] [prologue=0|1])"},
        {"alloc 7 12x",
         "1002:9: bad BYTES '12x': unknown unit (sizes: B, KiB, MiB, GiB, TiB, PiB, EiB, KB, MB, "
         "GB, TB, PB, EB)"},
    };
    for (size_t k = 0; k < sizeof bad_lines / sizeof bad_lines[0]; k++) {
        char *text = malloc(64 * 1024);
        CU_ASSERT_PTR_NOT_NULL_FATAL(text);
        size_t n = (size_t)snprintf(text, 64 * 1024, HDR);
        for (int j = 0; j < 1000; j++)
            n += (size_t)snprintf(text + n, 64 * 1024 - n, "alloc %d 4096\n", j + 100);
        snprintf(text + n, 64 * 1024 - n, "%s\nfree 100\nfree 101\nfree 102\n", bad_lines[k].line);
        char name[32];
        snprintf(name, sizeof name, "fastbad%zu.trace", k);
        expect_error(name, text, bad_lines[k].want);
        free(text);
    }
}

static void test_detection(void)
{
    tr_event e[4];
    am_error err;
    char want[1024];
    /* content decides, not the name */
    CU_ASSERT_EQUAL(parse("native.csv", "# made by hand\n" HDR "alloc 1 10\n", e, 4, &err), 1);
    trace_opts o = topts();
    trace *t;
    CU_ASSERT_EQUAL(read_all(tu_write("lifetimes.trace", "id,lower,upper,size\n1,0,5,10\n"), &o, e, 4,
                             &err, &t), 2);
    CU_ASSERT_STRING_EQUAL(trace_format(t), "lifetime_csv");
    trace_close(t);
    CU_ASSERT_EQUAL(read_all(tu_write("n.csv", HDR), &o, e, 4, &err, &t), 0);
    CU_ASSERT_STRING_EQUAL(trace_format(t), "native");
    trace_close(t);

    const char *tail = "unrecognised trace format (expected 'amsim-trace v1', a lifetime CSV "
                       "header 'id,lower,upper,size' or a PyTorch snapshot pickle)";
    const char *p = tu_write("x.trace", "\n# hello\nid,start,end,size\n1,2,3,4\n");
    CU_ASSERT_EQUAL(read_all(p, &o, e, 4, &err, NULL), -1);
    snprintf(want, sizeof want, "%s: %s", p, tail);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    p = tu_write("y.trace", "amsim-tracev1\n");
    CU_ASSERT_EQUAL(read_all(p, &o, e, 4, &err, NULL), -1);
    snprintf(want, sizeof want, "%s: %s", p, tail);
    CU_ASSERT_STRING_EQUAL(err.msg, want);

    p = tu_write("empty.trace", "");
    CU_ASSERT_EQUAL(read_all(p, &o, e, 4, &err, NULL), -1);
    snprintf(want, sizeof want, "%s: empty file (expected 'amsim-trace v1', a lifetime CSV header "
             "'id,lower,upper,size' or a PyTorch snapshot pickle)", p);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    p = tu_write("blank.trace", "\n  \n# only a comment\n");
    CU_ASSERT_EQUAL(read_all(p, &o, e, 4, &err, NULL), -1);
    snprintf(want, sizeof want, "%s: no trace content (only blank lines and comments; expected "
             "'amsim-trace v1', a lifetime CSV header 'id,lower,upper,size' or a PyTorch snapshot "
             "pickle)", p);
    CU_ASSERT_STRING_EQUAL(err.msg, want);

    CU_ASSERT_EQUAL(read_all(tu_tmpdir(), &o, e, 4, &err, NULL), -1);
    snprintf(want, sizeof want, "%s: %s", tu_tmpdir(), strerror(EISDIR));
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    snprintf(want, sizeof want, "%s/no-such-file.trace", tu_tmpdir());
    CU_ASSERT_EQUAL(read_all(want, &o, e, 4, &err, NULL), -1);
    char want2[1100];
    snprintf(want2, sizeof want2, "%s: %s", want, strerror(ENOENT));
    CU_ASSERT_STRING_EQUAL(err.msg, want2);

    p = tu_write("z.trace.gz", "\x1f\x8b\x08 rest");
    CU_ASSERT_EQUAL(read_all(p, &o, e, 4, &err, NULL), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "gzip-compressed trace"));
    /* 0x80 goes to the pickle reader (which refuses this garbage in its own words) */
    p = tu_write("garbage.trace", "\x80\x04garbage");
    CU_ASSERT_EQUAL(read_all(p, &o, e, 4, &err, NULL), -1);
    CU_ASSERT_PTR_NULL(strstr(err.msg, "unrecognised trace format"));
    CU_ASSERT_EQUAL(err.status, AM_EINPUT);
    /* default options: no opts pointer */
    CU_ASSERT_EQUAL(read_all(tu_write("nopts.trace", HDR "compute 2\n"), NULL, e, 4, &err, NULL), 1);
    CU_ASSERT_EQUAL(e[0].duration, 2000);
}

/* ---------------------------------------------------------------- lifetime CSV */

static void test_csv_order(void)
{
    /* rows: 0:[0,4) 1:[2,4) 2:[4,6) 3:[4,5) 4:[0,4) 5:[4,4) skipped 6:size 0 skipped */
    tr_event e[20];
    am_error err;
    trace_opts o = topts();
    trace *t;
    long n = read_all(tu_write("ord.csv", "id,lower,upper,size\n10,0,4,100\n11,2,4,200\n12,4,6,300\n"
                               "13,4,5,400\n14,0,4,500\n15,4,4,600\n16,1,3,0\n"), &o, e, 20, &err, &t);
    CU_ASSERT_EQUAL_FATAL(n, 10);
    CU_ASSERT_EQUAL(trace_skipped(t), 2);
    trace_close(t);
    static const struct { tr_kind k; uint64_t id; am_ps time; } want[] = {
        {TR_ALLOC, 10, 0}, {TR_ALLOC, 14, 0}, {TR_ALLOC, 11, 2000},
        {TR_FREE, 10, 4000}, {TR_FREE, 11, 4000}, {TR_FREE, 14, 4000},
        {TR_ALLOC, 12, 4000}, {TR_ALLOC, 13, 4000},
        {TR_FREE, 13, 5000}, {TR_FREE, 12, 6000}};
    for (int i = 0; i < 10; i++) {
        CU_ASSERT_EQUAL(e[i].kind, want[i].k);
        CU_ASSERT_EQUAL(e[i].id, want[i].id);
        CU_ASSERT_EQUAL(e[i].time, want[i].time);
        CU_ASSERT_EQUAL(e[i].level, 0);
        CU_ASSERT_EQUAL(e[i].stream, 0);
        CU_ASSERT_EQUAL(e[i].addr, TR_NO_ADDR);
    }
    CU_ASSERT_EQUAL(e[0].bytes, 100);
    CU_ASSERT_EQUAL(e[0].line, 2);
    CU_ASSERT_EQUAL(e[7].bytes, 400);
    CU_ASSERT_EQUAL(e[7].line, 5);
}

/* Events of the large CSV below in their defined order: (time, frees first, row). */
typedef struct csv_want { uint64_t time, row; int alloc; } csv_want;

static int csv_want_cmp(const void *a, const void *b)
{
    const csv_want *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    if (x->alloc != y->alloc)
        return x->alloc - y->alloc;
    return x->row < y->row ? -1 : x->row > y->row;
}

/* The rows of check_csv_order's files. */
enum csv_shape {
    CSV_SCATTERED, /* lower jumps around: read whole and sorted */
    CSV_SORTED,    /* lower never decreases, ids increase, every 13th row skipped: streamed */
    CSV_SORTED_IDS /* the same with ids in no order (checked with a set): streamed */
};

/* 150,000 rows (more than two of the whole reader's chunks of 65,536 rows) with thousands of
 * ties in every time, times in more than one radix digit, and lifetimes from one to a thousand
 * steps: every event against the order the contract defines, sorted here by comparison, and
 * which reader took the file. */
static void check_csv_order(enum csv_shape shape)
{
    enum { N = 150000 };
    size_t cap = (size_t)N * 48 + 64, len = 0, nwant = 0;
    char *text = malloc(cap);
    csv_want *want = malloc(2 * (size_t)N * sizeof *want);
    uint64_t *ids = malloc((size_t)N * sizeof *ids);
    CU_ASSERT_FATAL(text && want && ids);
    len += (size_t)snprintf(text, cap, "id,lower,upper,size\n");
    for (uint64_t i = 0; i < N; i++) {
        uint64_t lo = shape == CSV_SCATTERED ? (i * 7919) % 1000 * 5000 : i / 150 * 5000;
        uint64_t hi = lo + 5000 * (1 + i % 5 + (i % 97 == 0 ? 1000 : 0));
        uint64_t size = shape != CSV_SCATTERED && i % 13 == 0 ? 0 : i + 1;
        /* 7919 is prime and does not divide N: i * 7919 mod N visits every row once */
        ids[i] = 5000000 + (shape == CSV_SORTED_IDS ? i * 7919 % N : i);
        len += (size_t)snprintf(text + len, cap - len, "%llu,%llu,%llu,%llu\n",
                                (unsigned long long)ids[i], (unsigned long long)lo,
                                (unsigned long long)hi, (unsigned long long)size);
        if (!size)
            continue;
        want[nwant++] = (csv_want){lo * 1000, i, 1};
        want[nwant++] = (csv_want){hi * 1000, i, 0};
    }
    qsort(want, nwant, sizeof *want, csv_want_cmp);
    trace_opts o = topts();
    am_error err = {0};
    trace *t;
    CU_ASSERT_FATAL(trace_open(&t, tu_write("large.csv", text), &o, &err) == 0);
    CU_ASSERT_EQUAL(trace_csv_streams(t), shape != CSV_SCATTERED);
    CU_ASSERT_EQUAL(trace_skipped(t), shape == CSV_SCATTERED ? 0 : (N + 12) / 13);
    tr_event ev;
    size_t n = 0, bad = 0;
    int r;
    while ((r = trace_next(t, &ev, &err)) == 1) {
        if (n < nwant) {
            const csv_want *w = &want[n];
            bad += ev.kind != (w->alloc ? TR_ALLOC : TR_FREE) || ev.id != ids[w->row] ||
                   ev.time != w->time || ev.bytes != w->row + 1 || ev.line != w->row + 2 ||
                   ev.addr != TR_NO_ADDR;
        }
        n++;
    }
    CU_ASSERT_EQUAL(r, 0);
    trace_close(t);
    CU_ASSERT_EQUAL(n, nwant);
    CU_ASSERT_EQUAL(bad, 0);
    free(text);
    free(want);
    free(ids);
}

static void test_csv_order_large(void) { check_csv_order(CSV_SCATTERED); }

static void test_csv_streamed(void)
{
    check_csv_order(CSV_SORTED);
    check_csv_order(CSV_SORTED_IDS);
}

/* A streamed file read twice: what the first pass checked is checked again as the second pass
 * reads, so a file changed in between is an error at the row that shows it, never a wrong
 * replay. The file is rewritten in place after trace_open. */
static void check_csv_changed(const char *now, const char *want)
{
    const char *before = "id,lower,upper,size\n1,0,5,64\n2,1,5,64\n3,2,5,64\n";
    const char *path = tu_write("changed.csv", before);
    trace_opts o = topts();
    am_error err = {0};
    trace *t;
    CU_ASSERT_FATAL(trace_open(&t, path, &o, &err) == 0);
    CU_ASSERT_EQUAL(trace_csv_streams(t), 1);
    FILE *f = fopen(path, "r+b");
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT_EQUAL(fputs(now, f) >= 0, 1);
    fclose(f);
    tr_event ev;
    int r, n = 0;
    while ((r = trace_next(t, &ev, &err)) == 1)
        n++;
    CU_ASSERT_EQUAL(r, -1);
    char full[2048];
    snprintf(full, sizeof full, "%s:%s", path, want);
    if (r != -1 || strcmp(err.msg, full) != 0)
        printf("\n  want: %s\n  got:  %s\n", full, r == -1 ? err.msg : "(no error)");
    CU_ASSERT_STRING_EQUAL(err.msg, full);
    trace_close(t);
}

static void test_csv_changed(void)
{
    check_csv_changed("id,lower,upper,size\n1,2,5,64\n2,1,5,64\n",
                      "3:1: the file changed while it was read (rows out of order)");
    check_csv_changed("id,lower,upper,size\n1,0,5,64\n1,1,5,64\n",
                      "3:1: the file changed while it was read (its rows)");
    check_csv_changed("id,lower,upper,size\n1,0,5,64\n2,1,5,64\n3,2,5,64\n4,3,5,64\n",
                      "5:1: the file changed while it was read (its rows)");
    check_csv_changed("id,lower,upper,size,offset\n1,0,5,64,0\n2",
                      "1:1: the file changed while it was read (its header)");
}

static void test_csv_inclusive_offset(void)
{
    tr_event e[20];
    am_error err;
    trace_opts o = topts();
    o.lifetimes_inclusive = 1;
    o.time_unit = 7;
    o.default_level = 1;
    trace *t;
    /* inclusive: [0,2] ends at 3, so id 2 (starting at 3) follows the free of 1; [5,5] is one
     * tick long; [6,5] is empty and skipped */
    long n = read_all(tu_write("inc.csv", "id,lower,upper,size,offset\n1,0,2,64,0\n2,3,4,64,0\n"
                               "3,5,5,8,128\n4,6,5,8,0\n"), &o, e, 20, &err, &t);
    CU_ASSERT_EQUAL_FATAL(n, 6);
    CU_ASSERT_EQUAL(trace_skipped(t), 1);
    trace_close(t);
    CU_ASSERT(e[0].kind == TR_ALLOC && e[0].id == 1 && e[0].time == 0 && e[0].addr == 0);
    CU_ASSERT(e[1].kind == TR_FREE && e[1].id == 1 && e[1].time == 21);
    CU_ASSERT(e[2].kind == TR_ALLOC && e[2].id == 2 && e[2].time == 21);
    CU_ASSERT(e[3].kind == TR_FREE && e[3].id == 2 && e[3].time == 35);
    CU_ASSERT(e[4].kind == TR_ALLOC && e[4].id == 3 && e[4].time == 35 && e[4].addr == 128);
    CU_ASSERT(e[5].kind == TR_FREE && e[5].id == 3 && e[5].time == 42);
    CU_ASSERT_EQUAL(e[4].level, 1);
    /* the same file half-open: 1 and 2 do not touch, [5,5) and [6,5) are skipped */
    o.lifetimes_inclusive = 0;
    n = read_all(tu_write("inc.csv", "id,lower,upper,size,offset\n1,0,2,64,0\n2,3,4,64,0\n"
                          "3,5,5,8,128\n4,6,5,8,0\n"), &o, e, 20, &err, &t);
    CU_ASSERT_EQUAL(n, 4);
    CU_ASSERT_EQUAL(trace_skipped(t), 2);
    trace_close(t);
    /* blank lines, comments, spaces around values */
    n = read_all(tu_write("ws.csv", "# made by hand\nid,lower,upper,size \r\n\n 1 , 0,2 ,64\r\n\n"),
                 &o, e, 20, &err, NULL);
    CU_ASSERT_EQUAL(n, 2);
}

/* An empty upper is a buffer never freed: an alloc and no free, streamed (rows in order) or read
 * whole (rows out of order), half-open or inclusive; a 0-byte one is skipped, and its lower is a
 * tick like any (until 2026-11-27 an empty upper was an error, and `amsim convert --to csv`
 * ended such buffers at the last event). */
static void test_csv_never_freed(void)
{
    static const char *const text[] = {
        "id,lower,upper,size\n1,0,,64\n2,1,3,32\n3,2, ,16\n4,4,,0\n",  /* streamed */
        "id,lower,upper,size\n2,1,3,32\n1,0,,64\n3,2, ,16\n4,4,,0\n"}; /* read whole */
    for (int incl = 0; incl < 2; incl++)
        for (int k = 0; k < 2; k++) {
            tr_event e[20];
            am_error err;
            trace_opts o = topts();
            o.lifetimes_inclusive = incl;
            trace *t;
            long n = read_all(tu_write("nf.csv", text[k]), &o, e, 20, &err, &t);
            CU_ASSERT_EQUAL_FATAL(n, 4);
            CU_ASSERT_EQUAL(trace_skipped(t), 1);
            trace_close(t);
            CU_ASSERT(e[0].kind == TR_ALLOC && e[0].id == 1 && e[0].time == 0);
            CU_ASSERT(e[1].kind == TR_ALLOC && e[1].id == 2 && e[1].time == 1000);
            CU_ASSERT(e[2].kind == TR_ALLOC && e[2].id == 3 && e[2].time == 2000);
            CU_ASSERT(e[3].kind == TR_FREE && e[3].id == 2 && e[3].time == (incl ? 4000 : 3000));
        }
    expect_error("nf2.csv", "id,lower,upper,size\n1,18446744073709553,,64\n",
                 "2:3: time out of range: lower tick 18446744073709553 at 1000 ps per tick "
                 "exceeds 2^64 ps");
    expect_error("nf3.csv", "id,lower,upper,size\n1,0,,\n", "2:6: empty size");
}

static void test_csv_errors(void)
{
    expect_error("c1.csv", "id,lower,upper,size\n1,0,2,64\n2,0,2\n",
                 "3:6: missing column 'size' (expected 4 columns: id,lower,upper,size)");
    expect_error("c2.csv", "id,lower,upper,size\n1,0,2,64,0\n",
                 "2:10: extra column 5 (expected 4 columns: id,lower,upper,size)");
    expect_error("c3.csv", "id,lower,upper,size,offset\n1,0,2,64\n",
                 "2:9: missing column 'offset' (expected 5 columns: id,lower,upper,size,offset)");
    expect_error("c4.csv", "id,lower,upper,size,offset\n1,0,2,64,0,\n",
                 "2:12: extra column 6 (expected 5 columns: id,lower,upper,size,offset)");
    expect_error("c5.csv", "id,lower,upper,size\n1,0,x2,64\n", "2:5: bad upper 'x2': not an unsigned integer");
    expect_error("c6.csv", "id,lower,upper,size\n1,-4,2,64\n", "2:3: bad lower '-4': negative");
    expect_error("c7.csv", "id,lower,upper,size\nb1,0,2,64\n", "2:1: bad id 'b1': not an unsigned integer");
    expect_error("c8.csv", "id,lower,upper,size\n1,0,2,99999999999999999999\n",
                 "2:7: bad size '99999999999999999999': out of range (max 18446744073709551615)");
    expect_error("c9.csv", "id,lower,upper,size\n1,,2,64\n", "2:3: empty lower");
    expect_error("c10.csv", "id,lower,upper,size,colour\n",
                 "1:1: bad lifetime CSV header 'id,lower,upper,size,colour' (expected "
                 "'id,lower,upper,size' or 'id,lower,upper,size,offset')");
    expect_error("c11.csv", "id,lower,upper,sizes\n",
                 "1:1: bad lifetime CSV header 'id,lower,upper,sizes' (expected "
                 "'id,lower,upper,size' or 'id,lower,upper,size,offset')");
    expect_error("c12.csv", "id,lower,upper,size\n5,0,2,64\n6,0,2,64\n7,1,3,8\n6,2,4,8\n5,2,4,8\n",
                 "5:1: duplicate id 6 (first used on line 3)");
    expect_error("c13.csv", "id,lower,upper,size\n1,0,2,6 4\n", "2:7: bad size '6 4': not an unsigned integer");
    expect_error("c14.csv", "id,lower,upper,size\n1,0,18446744073709551615,64\n",
                 "2:5: time out of range: upper tick 18446744073709551615 at 1000 ps per tick exceeds 2^64 ps");
    /* the column is upper's (past blanks), in rows out of lower order too (read whole) */
    expect_error("c15.csv", "id,lower,upper,size\n1,5,6,64\n2 , 0 ,\t 18446744073709551615 ,64\n",
                 "3:10: time out of range: upper tick 18446744073709551615 at 1000 ps per tick exceeds 2^64 ps");
}

/* ---------------------------------------------------------------- BFC oracle order */

/* Where the source CSV of an oracle vector lives under ../shared/data (oracle: the path of the
 * vector, whose directory's parent is the data directory). */
static const char *oracle_source(const char *oracle, const char *src, int *inclusive)
{
    static const char *const dirs[] = {"minimalloc/challenging", "idealloc/somas_tensors", "idealloc/iree"};
    static char path[2048];
    const char *slash = strstr(oracle, "/bfc-oracle/");
    if (!slash)
        return NULL;
    for (size_t i = 0; i < AM_ARRAY_LEN(dirs); i++) {
        snprintf(path, sizeof path, "%.*s/%s/%s", (int)(slash - oracle), oracle, dirs[i], src);
        FILE *f = fopen(path, "rb");
        if (f) {
            fclose(f);
            *inclusive = i == 2;
            return path;
        }
    }
    return NULL;
}

static void test_oracle_order(void)
{
    static const char *const vectors[] = {
        "A.1048576.growth", "A.1048576.prealloc", "A.1048576.tight_gc", "B.1048576.growth",
        "B.1048576.prealloc", "B.1048576.tight_gc", "iree_mobilebert.growth",
        "iree_mobilebert.prealloc", "iree_mobilebert.tight_gc", "iree_mobilenet.growth",
        "iree_mobilenet.prealloc", "iree_mobilenet.tight_gc", "resnet50.growth",
        "resnet50.prealloc", "resnet50.tight_gc", "tiny_bert.backpedal", "tiny_bert.growth",
        "tiny_bert.prealloc", "tiny_bert.tight_gc"};
    int checked = 0;
    for (size_t v = 0; v < AM_ARRAY_LEN(vectors); v++) {
        char rel[256];
        snprintf(rel, sizeof rel, "bfc-oracle/%s.expected", vectors[v]);
        const char *ep = tu_shared(rel);
        if (!ep)
            return; /* ../shared absent: skipped (tu_shared printed why) */
        char *text = tu_slurp(ep, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(text);
        char src[256] = "";
        CU_ASSERT_EQUAL(sscanf(text, "# source %255s", src), 1);
        int inclusive = 0;
        const char *csvp = oracle_source(ep, src, &inclusive);
        CU_ASSERT_PTR_NOT_NULL(csvp);
        if (!csvp) {
            free(text);
            continue;
        }
        /* expected allocation order: ids of the A and OOM lines */
        size_t cap = 1024, nw = 0;
        uint64_t *want = malloc(cap * sizeof *want);
        for (char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
            unsigned long long id;
            if (sscanf(line, "A %llu", &id) == 1 || sscanf(line, "OOM %llu", &id) == 1) {
                if (nw == cap)
                    want = realloc(want, (cap *= 2) * sizeof *want);
                want[nw++] = id;
            }
        }
        trace_opts o = topts();
        o.lifetimes_inclusive = inclusive;
        trace *t;
        am_error err;
        CU_ASSERT_EQUAL_FATAL(trace_open(&t, csvp, &o, &err), 0);
        tr_event ev;
        size_t na = 0, mismatch = 0;
        am_ps last = 0;
        int r;
        while ((r = trace_next(t, &ev, &err)) == 1) {
            if (ev.time < last)
                mismatch++;
            last = ev.time;
            if (ev.kind != TR_ALLOC)
                continue;
            if (na >= nw || want[na] != ev.id)
                mismatch++;
            na++;
        }
        CU_ASSERT_EQUAL(r, 0);
        CU_ASSERT_EQUAL(na, nw);
        CU_ASSERT_EQUAL(mismatch, 0);
        if (na != nw || mismatch)
            printf("\n  %s: %zu allocations, %zu expected, %zu out of order\n", vectors[v], na, nw,
                   mismatch);
        trace_close(t);
        free(want);
        free(text);
        checked++;
    }
    CU_ASSERT_EQUAL(checked, (int)AM_ARRAY_LEN(vectors));
}

/* The shipped example traces parse with the level names of the shipped configs (read with
 * cfg_load, so that a renamed level in a config shows up here). */
static void test_examples(void)
{
    static const struct { const char *trace, *config; } ex[] = {
        {"traces/gpu_train_step.trace", "configs/default.yaml"},
        {"traces/tpu_step.trace", "configs/devices/tpu-v5e.yaml"}};
    for (size_t i = 0; i < AM_ARRAY_LEN(ex); i++) {
        char path[1024], cpath[1024];
        snprintf(path, sizeof path, "%s/%s", tu_top(), ex[i].trace);
        snprintf(cpath, sizeof cpath, "%s/%s", tu_top(), ex[i].config);
        am_config *cfg;
        am_error err;
        memset(&err, 0, sizeof err);
        if (cfg_load(&cfg, cpath, NULL, 0, &err)) {
            printf("\n  %s\n", err.msg);
            CU_FAIL("config does not load");
            continue;
        }
        const char *lv[CFG_MAX_LEVELS];
        for (int k = 0; k < cfg->nlevels; k++)
            lv[k] = cfg->levels[k].name;
        trace_opts o = topts();
        o.level_names = lv;
        o.nlevels = cfg->nlevels;
        o.default_level = cfg->default_level;
        tr_event e[1];
        long n = read_all(path, &o, e, 1, &err, NULL);
        if (n < 0)
            printf("\n  %s\n", err.msg);
        CU_ASSERT(n > 100);
        cfg_free(cfg);
    }
}

void suite_trace(void)
{
    TU_SUITE("trace",
             {"native alloc fields and defaults", test_alloc_fields},
             {"native ops", test_other_ops},
             {"native time units", test_time_units},
             {"native comments, blanks, CRLF, BOM", test_layout},
             {"native errors", test_native_errors},
             {"a recorded range may end at 2^64 - 1", test_range_to_end},
             {"name and line limits", test_limits},
             {"native streaming across chunks", test_streaming},
             {"native alloc/free fast path", test_fast_path},
             {"detection by content", test_detection},
             {"csv replay order", test_csv_order},
             {"csv replay order, 150k rows", test_csv_order_large},
             {"csv streamed when in order, 150k rows", test_csv_streamed},
             {"csv changed between its two passes", test_csv_changed},
             {"csv inclusive, offset, skipped", test_csv_inclusive_offset},
             {"csv: an empty upper is a buffer never freed", test_csv_never_freed},
             {"csv errors", test_csv_errors},
             {"csv order matches the BFC oracle", test_oracle_order},
             {"shipped example traces", test_examples});
}
