/* test_convert.c - `amsim convert` (sim/convert.c) and the native writer (sim/trace_write.c):
 * a native alloc/free trace -> lifetime CSV -> native replays with identical placements under
 * BFC; a PyTorch snapshot converted to native validates identically (every allocation at its
 * recorded address under the caching policy with recorded segment addresses); every field the
 * native reader knows survives write + read; gzip-compressed inputs read as the plain ones. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "../../sim/config.h"
#include "../../sim/convert.h"
#include "../../sim/engine.h"
#include "../../sim/gen.h"
#include "../../sim/run.h"
#include "../../sim/trace.h"
#include "../../sim/trace_write.h"
#include "testutil.h"

static const char *tmp(const char *name)
{
    static char p[8][512];
    static int k;
    char *s = p[k++ % 8];
    snprintf(s, sizeof p[0], "%s/%s", tu_tmpdir(), name);
    return s;
}

static int convert(const char *in, const char *out, const char *to, const char *extra)
{
    char *argv[16], b_in[512], b_o[] = "-o", b_out[512], b_to[] = "--to", b_fmt[16];
    int n = 0;
    snprintf(b_in, sizeof b_in, "%s", in);
    snprintf(b_out, sizeof b_out, "%s", out);
    snprintf(b_fmt, sizeof b_fmt, "%s", to);
    argv[n++] = b_in;
    argv[n++] = b_o;
    argv[n++] = b_out;
    argv[n++] = b_to;
    argv[n++] = b_fmt;
    char a1[256], a2[256];
    if (extra) { /* "OPT VALUE" */
        sscanf(extra, "%255s %255s", a1, a2);
        argv[n++] = a1;
        argv[n++] = a2;
    }
    argv[n] = NULL;
    return cmd_convert(n, argv);
}

/* Placement rows "id,level,address,requested,allocated,status" (seq dropped: other event
 * kinds do not survive a CSV) of a run. */
static char *placements(const char *config, const char *tpath, const char *policy)
{
    const char *pl = tmp("pl.csv");
    run_spec sp = {.config = config, .trace = tpath, .placements = pl, .policy = policy};
    am_error err = {0};
    int rc = run_once(&sp, NULL, NULL, NULL, &err);
    if (rc)
        fprintf(stderr, "%s: %s\n", tpath, err.msg);
    CU_ASSERT_FATAL(rc == 0);
    size_t n;
    char *text = tu_slurp(pl, &n);
    CU_ASSERT_FATAL(text != NULL);
    /* drop the first column of every line */
    char *out = am_malloc(n + 1), *o = out;
    for (char *line = text; *line;) {
        char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char *comma = memchr(line, ',', len);
        if (comma) {
            memcpy(o, comma + 1, len - (size_t)(comma + 1 - line));
            o += len - (size_t)(comma + 1 - line);
            *o++ = '\n';
        }
        line += len + (nl != NULL);
    }
    *o = 0;
    free(text);
    return out;
}

static void test_native_csv_native(void)
{
    gen_train_opts o;
    gen_train_defaults(&o);
    o.layers = 2;
    o.hidden = 64;
    o.heads = 4;
    o.seq = 32;
    o.vocab = 100;
    o.micro_batches = 2;
    const char *tr = tmp("conv.trace"), *csv = tmp("conv.csv"), *back = tmp("conv2.trace");
    FILE *f = fopen(tr, "w");
    am_error err = {0};
    CU_ASSERT_FATAL(f && gen_train(&o, f, &err) == 0);
    fclose(f);
    CU_ASSERT_FATAL(convert(tr, csv, "csv", NULL) == 0);
    CU_ASSERT_FATAL(convert(csv, back, "native", NULL) == 0);
    char cfg[1024];
    snprintf(cfg, sizeof cfg, "%s/configs/default.yaml", tu_top()); /* h100, BFC */
    char *a = placements(cfg, tr, "bfc");
    char *b = placements(cfg, csv, "bfc");
    char *c = placements(cfg, back, "bfc");
    CU_ASSERT(strlen(a) > 100);
    CU_ASSERT_STRING_EQUAL(a, b);
    CU_ASSERT_STRING_EQUAL(a, c);
    free(a);
    free(b);
    free(c);
    /* the CSV header and the first row: lifetimes in event indices */
    char *text = tu_slurp(csv, NULL);
    CU_ASSERT(text && strncmp(text, "id,lower,upper,size\n1,0,", 24) == 0);
    free(text);
}

typedef struct val {
    sim_summary s;
} val;

static void grab_summary(void *ctx, sim *s, const report_trace *t)
{
    ((val *)ctx)->s = *sim_get_summary(s);
}

static void test_snapshot_native(void)
{
    const char *snaps[] = {"pytorch-snapshots/MAGMA27_assignment2-systems_memory_snapshot.pickle",
                           "pytorch-snapshots/bcrafton_assignment2-systems_memory_snapshot.pickle"};
    char cfg[1024];
    snprintf(cfg, sizeof cfg, "%s/configs/default.yaml", tu_top());
    for (size_t i = 0; i < AM_ARRAY_LEN(snaps); i++) {
        const char *in = tu_shared(snaps[i]);
        if (!in)
            return;
        const char *out = tmp("snap.trace");
        CU_ASSERT_FATAL(convert(in, out, "native", NULL) == 0);
        val v[2];
        const char *files[2] = {in, out};
        for (int k = 0; k < 2; k++) {
            run_spec sp = {.config = cfg, .trace = files[k], .policy = "caching", .nsets = 1};
            sp.sets[0] = "memories.hbm.allocator.segment_addresses=recorded";
            am_error err = {0};
            memset(&v[k], 0, sizeof v[k]);
            CU_ASSERT_FATAL(run_once(&sp, grab_summary, &v[k], NULL, &err) == 0);
        }
        CU_ASSERT(v[0].s.validating && v[1].s.validating);
        CU_ASSERT(v[0].s.recorded_allocs > 1000);
        CU_ASSERT_EQUAL(v[1].s.recorded_allocs, v[0].s.recorded_allocs);
        CU_ASSERT_EQUAL(v[1].s.address_matches, v[0].s.address_matches);
        CU_ASSERT_EQUAL(v[0].s.address_matches, v[0].s.recorded_allocs);
        CU_ASSERT_EQUAL(v[1].s.segment_events_recorded, v[0].s.segment_events_recorded);
        CU_ASSERT_EQUAL(v[1].s.segment_events_matched, v[0].s.segment_events_matched);
        CU_ASSERT_EQUAL(v[1].s.makespan, v[0].s.makespan);
    }
}

/* A lifetime CSV's offset column is the allocations' recorded address, validated as the addr=
 * of its conversions is: the same validation from the CSV, its native and its binary form
 * (until 2026-11-25 the CSV's run had no validation at all). Two buffers whose recorded offsets
 * overlap while both are live: BFC places the second at 256, not 50. */
static void test_csv_offsets_validated(void)
{
    char cfg[1024];
    snprintf(cfg, sizeof cfg, "%s/configs/default.yaml", tu_top()); /* h100, BFC */
    const char *csv = tu_write("off.csv", "id,lower,upper,size,offset\n1,0,10,100,0\n"
                                          "2,5,15,100,50\n");
    const char *nat = tmp("off.trace"), *bin = tmp("off.amsb");
    CU_ASSERT_FATAL(convert(csv, nat, "native", NULL) == 0);
    CU_ASSERT_FATAL(convert(csv, bin, "binary", NULL) == 0);
    /* the same rows out of `lower` order: read whole, not streamed (trace_csv.c) */
    const char *rev = tu_write("offrev.csv", "id,lower,upper,size,offset\n2,5,15,100,50\n"
                                             "1,0,10,100,0\n");
    const char *files[4] = {csv, nat, bin, rev};
    val v[4];
    for (int k = 0; k < 4; k++) {
        run_spec sp = {.config = cfg, .trace = files[k]};
        am_error err = {0};
        memset(&v[k], 0, sizeof v[k]);
        CU_ASSERT_FATAL(run_once(&sp, grab_summary, &v[k], NULL, &err) == 0);
        CU_ASSERT(v[k].s.validating);
        CU_ASSERT_EQUAL(v[k].s.recorded_allocs, 2);
        CU_ASSERT_EQUAL(v[k].s.address_matches, 1);
        CU_ASSERT(v[k].s.have_mismatch);
        CU_ASSERT_EQUAL(v[k].s.mismatch_seq, 1);
        CU_ASSERT_EQUAL(v[k].s.mismatch_id, 2);
        CU_ASSERT_EQUAL(v[k].s.mismatch_recorded, 50);
        CU_ASSERT_EQUAL(v[k].s.mismatch_simulated, 256);
    }
    CU_ASSERT_EQUAL(v[0].s.mismatch_line, 3); /* the CSV row; the native line is 4 */
    CU_ASSERT_EQUAL(v[1].s.mismatch_line, 4);
    CU_ASSERT_EQUAL(v[3].s.mismatch_line, 2);

    /* without the offset column: nothing recorded, no validation */
    const char *plain = tu_write("nooff.csv", "id,lower,upper,size\n1,0,10,100\n2,5,15,100\n");
    run_spec sp = {.config = cfg, .trace = plain};
    am_error err = {0};
    memset(&v[0], 0, sizeof v[0]);
    CU_ASSERT_FATAL(run_once(&sp, grab_summary, &v[0], NULL, &err) == 0);
    CU_ASSERT(!v[0].s.validating);
    CU_ASSERT_EQUAL(v[0].s.recorded_allocs, 0);

    /* MiniMalloc's solution B (170 buffers, offsets in a 1 MiB arena): 31 of 170 at their
     * offsets under offline's plan, from the CSV and from its binary form */
    const char *sol = tu_shared("minimalloc/solutions/B.1048576.solution.csv");
    if (!sol)
        return;
    CU_ASSERT_FATAL(convert(sol, bin, "binary", NULL) == 0);
    files[1] = bin;
    files[0] = sol;
    for (int k = 0; k < 2; k++) {
        run_spec r = {.config = cfg, .trace = files[k], .policy = "offline"};
        memset(&v[k], 0, sizeof v[k]);
        CU_ASSERT_FATAL(run_once(&r, grab_summary, &v[k], NULL, &err) == 0);
        CU_ASSERT(v[k].s.validating);
        CU_ASSERT_EQUAL(v[k].s.recorded_allocs, 170);
        CU_ASSERT_EQUAL(v[k].s.address_matches, 31);
    }
    CU_ASSERT_EQUAL(v[0].s.mismatch_id, v[1].s.mismatch_id);
    CU_ASSERT_EQUAL(v[0].s.mismatch_simulated, v[1].s.mismatch_simulated);
}

static const char *const lv[] = {"hbm", "host"};

static int read_all(const char *path, tr_event *evs, int max, char names[][32])
{
    trace_opts to = {lv, 2, 0, 0, AM_PS_PER_NS, 0};
    trace *t = NULL;
    am_error err = {0};
    if (trace_open(&t, path, &to, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    int n = 0, r;
    while (n < max && (r = trace_next(t, &evs[n], &err)) == 1) {
        snprintf(names[n], 32, "%s", evs[n].name ? evs[n].name : "");
        evs[n].name = NULL;
        n++;
    }
    trace_close(t);
    return n;
}

static void test_writer_fields(void)
{
    const char *src = tu_write("all.trace",
        "amsim-trace v1 time_unit=ns\n"
        "segment_alloc 0 2MiB declared=1\n"
        "alloc 1 100 addr=0 prologue=1\n"
        "alloc 2 4KiB level=host stream=3 name=x.y at=5 addr=4096\n"
        "transfer host hbm 4KiB stream=1 id=2 name=h2d at=6 into=9 implicit=1\n"
        "compute 2.5us name=k\n"
        "record 7 stream=1\nwait 7\nsync\nsync stream=2\nuse 2\n"
        "free_requested 1\nfree_completed 1\nfree 2 stream=3 at=7\n"
        "alloc 3 10 donate=2\n"
        "segment_alloc 4096 2MiB\nsegment_free 4096 2MiB level=hbm\noom 1GiB stream=1\n"
        "alloc 4 10 prologue=1\nfree 4 prologue=1\nalloc 5 10 prologue=1\n"
        "free_requested 5 prologue=1\nfree_completed 5\n"
        "defrag level=host at=8\ndefrag\n");
    const char *dst = tmp("all2.trace");
    FILE *f = fopen(dst, "w");
    tr_event a[32], b[32];
    char na[32][32], nb[32][32];
    int n = read_all(src, a, 32, na);
    CU_ASSERT_FATAL(n == 24);
    CU_ASSERT(a[22].kind == TR_DEFRAG && a[22].level == 1 && a[22].stream == TR_ALL);
    CU_ASSERT(a[23].kind == TR_DEFRAG && a[23].level == 0 && a[23].stream == TR_ALL);
    tw_writer w;
    tw_init(&w, f, lv, 2, "round trip", 0, 0);
    am_error err = {0};
    for (int i = 0; i < n; i++) {
        a[i].name = na[i][0] ? na[i] : NULL;
        CU_ASSERT(tw_event(&w, &a[i], &err) == 0);
    }
    fclose(f);
    CU_ASSERT_FATAL(read_all(dst, b, 32, nb) == n);
    CU_ASSERT_EQUAL(a[0].declared, 1);
    CU_ASSERT_EQUAL(a[1].line, 0); /* prologue */
    CU_ASSERT_EQUAL(a[18].line, 0); /* the prologue's free, */
    CU_ASSERT_EQUAL(a[20].line, 0); /* free_requested */
    CU_ASSERT_EQUAL(a[21].line, 23); /* not the trace's free_completed */
    for (int i = 0; i < n; i++) {
        CU_ASSERT_EQUAL(a[i].kind, b[i].kind);
        CU_ASSERT_EQUAL(a[i].stream, b[i].stream);
        CU_ASSERT_EQUAL(a[i].level, b[i].level);
        CU_ASSERT_EQUAL(a[i].dst_level, b[i].dst_level);
        CU_ASSERT_EQUAL(a[i].id, b[i].id);
        CU_ASSERT_EQUAL(a[i].bytes, b[i].bytes);
        CU_ASSERT_EQUAL(a[i].time, b[i].time);
        CU_ASSERT_EQUAL(a[i].duration, b[i].duration);
        CU_ASSERT_EQUAL(a[i].arg, b[i].arg);
        CU_ASSERT_EQUAL(a[i].addr, b[i].addr);
        CU_ASSERT_EQUAL(a[i].declared, b[i].declared);
        CU_ASSERT_EQUAL(a[i].implicit, b[i].implicit);
        CU_ASSERT_EQUAL(a[i].has_into, b[i].has_into);
        CU_ASSERT_EQUAL(a[i].into, b[i].into);
        CU_ASSERT_EQUAL(a[i].has_donate, b[i].has_donate);
        CU_ASSERT_EQUAL(a[i].donate, b[i].donate);
        CU_ASSERT_EQUAL(a[i].line == 0, b[i].line == 0);
        CU_ASSERT_STRING_EQUAL(na[i], nb[i]);
    }
}

static void gzip_file(const char *in, const char *out)
{
    size_t n;
    char *text = tu_slurp(in, &n);
    gzFile g = gzopen(out, "wb");
    CU_ASSERT_FATAL(text && g);
    CU_ASSERT((size_t)gzwrite(g, text, (unsigned)n) == n);
    gzclose(g);
    free(text);
}

static void test_gzip(void)
{
    char paths[3][512];
    snprintf(paths[0], sizeof paths[0], "%s/traces/gpu_train_step.trace", tu_top());
    snprintf(paths[1], sizeof paths[1], "%s", tu_write("g.csv", "id,lower,upper,size\n1,0,5,100\n"
                                                       "2,1,3,200\n3,3,9,50\n"));
    const char *snap = tu_shared("pytorch-snapshots/MAGMA27_assignment2-systems_memory_snapshot.pickle");
    snprintf(paths[2], sizeof paths[2], "%s", snap ? snap : "");
    for (int i = 0; i < (snap ? 3 : 2); i++) {
        const char *gz = tmp("in.gz");
        gzip_file(paths[i], gz);
        static tr_event a[4096], b[4096];
        static char na[4096][32], nb[4096][32];
        int n = read_all(paths[i], a, 4096, na), m = read_all(gz, b, 4096, nb);
        CU_ASSERT(n > 0);
        CU_ASSERT_EQUAL(n, m);
        for (int k = 0; k < n && k < m; k++) {
            CU_ASSERT_EQUAL(a[k].kind, b[k].kind);
            CU_ASSERT_EQUAL(a[k].id, b[k].id);
            CU_ASSERT_EQUAL(a[k].bytes, b[k].bytes);
            CU_ASSERT_EQUAL(a[k].addr, b[k].addr);
        }
    }
    /* truncated gzip: an input error, not a crash */
    const char *gz = tmp("in.gz"), *cut = tmp("cut.gz");
    gzip_file(paths[0], gz);
    size_t n;
    char *bytes = tu_slurp(gz, &n);
    FILE *f = fopen(cut, "wb");
    fwrite(bytes, 1, n / 2, f);
    fclose(f);
    free(bytes);
    trace_opts to = {lv, 2, 0, 0, AM_PS_PER_NS, 0};
    trace *t = NULL;
    am_error err = {0};
    int rc = trace_open(&t, cut, &to, &err);
    tr_event ev;
    if (rc == 0)
        while ((rc = trace_next(t, &ev, &err)) == 1)
            ;
    CU_ASSERT_EQUAL(rc, -1);
    CU_ASSERT_EQUAL(err.status, AM_EINPUT);
    trace_close(t);

    /* members one after the other read as one stream, zero padding after the last is
     * accepted; other bytes after a member (a damaged second member's header, or anything
     * appended) are a read error at the line where the data stops, not an early end */
    const char *m1 = tmp("m1.gz"), *m2 = tmp("m2.gz");
    gzip_file(tu_write("m1.trace", "amsim-trace v1\nalloc 1 4096\n"), m1);
    gzip_file(tu_write("m2.trace", "alloc 2 4096\nfree 1\nfree 2\n"), m2);
    size_t n1, n2;
    char *b1 = tu_slurp(m1, &n1), *b2 = tu_slurp(m2, &n2);
    CU_ASSERT_FATAL(b1 && b2 && n2 > 2);
    static const struct {
        const char *name;
        int tail;          /* 0: m2 whole, 1: 64 zero bytes, 2: m2 with its magic damaged,
                              3: "xyz" appended */
        int events;        /* read before the end or the error */
        const char *error; /* NULL: a clean end */
    } gzc[] = {
        {"two.gz", 0, 4, NULL},
        {"pad.gz", 1, 1, NULL},
        {"damaged.gz", 2, 1, "damaged.gz:3: read error: bytes after the end of the gzip data "
                             "that do not start another gzip member (a damaged or appended "
                             "file)"},
        {"appended.gz", 3, 1, "appended.gz:3: read error: bytes after the end of the gzip "
                              "data that do not start another gzip member"},
    };
    for (size_t i = 0; i < sizeof gzc / sizeof gzc[0]; i++) {
        const char *gp = tmp(gzc[i].name);
        f = fopen(gp, "wb");
        CU_ASSERT_FATAL(f != NULL);
        fwrite(b1, 1, n1, f);
        if (gzc[i].tail == 0)
            fwrite(b2, 1, n2, f);
        else if (gzc[i].tail == 1)
            for (int z = 0; z < 64; z++)
                fputc(0, f);
        else if (gzc[i].tail == 2) {
            fputc(0x1f, f);
            fputc(0x00, f);
            fwrite(b2 + 2, 1, n2 - 2, f);
        } else
            fputs("xyz", f);
        fclose(f);
        t = NULL;
        err = (am_error){0};
        CU_ASSERT_EQUAL_FATAL(trace_open(&t, gp, &to, &err), 0);
        int events = 0;
        while ((rc = trace_next(t, &ev, &err)) == 1)
            events++;
        CU_ASSERT_EQUAL(events, gzc[i].events);
        CU_ASSERT_EQUAL(rc, gzc[i].error ? -1 : 0);
        if (gzc[i].error) {
            CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, gzc[i].error));
            if (!strstr(err.msg, gzc[i].error))
                fprintf(stderr, "\n  %s: %s\n", gzc[i].name, err.msg);
        }
        trace_close(t);
    }
    free(b1);
    free(b2);
}

/* Binary form: native -> binary -> native gives the same lines as native -> native, the
 * binary replay gives the same placements, and a truncated binary file is refused. */
static void test_binary(void)
{
    const char *d = tu_tmpdir();
    char args[4096];
    static const char *traces[] = {"traces/gpu_train_step.trace", "traces/gen_serve_small.trace"};
    for (size_t k = 0; k < 2; k++) {
        snprintf(args, sizeof args, "convert %s/%s -o %s/b.amsb --to binary", tu_top(), traces[k], d);
        CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
        snprintf(args, sizeof args, "convert %s/b.amsb -o %s/b.trace", d, d);
        CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
        snprintf(args, sizeof args, "convert %s/%s -o %s/n.trace", tu_top(), traces[k], d);
        CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
        char p1[600], p2[600];
        snprintf(p1, sizeof p1, "%s/b.trace", d);
        snprintf(p2, sizeof p2, "%s/n.trace", d);
        size_t n1 = 0, n2 = 0;
        char *a = tu_slurp(p1, &n1), *b = tu_slurp(p2, &n2);
        /* the same events; only the "converted from" comment (line 2) names the source */
        const char *a1 = a ? strchr(a, '\n') : NULL, *b1 = b ? strchr(b, '\n') : NULL;
        const char *ea = a1 ? strchr(a1 + 1, '\n') : NULL, *eb = b1 ? strchr(b1 + 1, '\n') : NULL;
        CU_ASSERT(ea && eb && strlen(ea) > 100 && strcmp(ea, eb) == 0);
        free(a);
        free(b);
        for (int f = 0; f < 2; f++) {
            snprintf(args, sizeof args,
                     "run -q -c %s/configs/default.yaml -t %s/%s --placements %s/pl%d.csv",
                     tu_top(), d, f ? "b.amsb" : "n.trace", d, f);
            CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
        }
        snprintf(p1, sizeof p1, "%s/pl0.csv", d);
        snprintf(p2, sizeof p2, "%s/pl1.csv", d);
        a = tu_slurp(p1, &n1);
        b = tu_slurp(p2, &n2);
        CU_ASSERT(a && b && n1 == n2 && n1 > 100 && memcmp(a, b, n1) == 0);
        free(a);
        free(b);
    }
    /* the prologue flag on the start-state recovery's free and free_requested survives the
     * binary form (text -> binary -> text gives the same lines) */
    const char *pro = tu_write("pro_b.trace", "amsim-trace v1\nalloc 1 1MiB prologue=1\n"
                               "alloc 2 1MiB prologue=1\nfree 1 prologue=1\n"
                               "free_requested 2 prologue=1\nfree_completed 2\n");
    snprintf(args, sizeof args, "convert %s -o %s/pro.amsb --to binary", pro, d);
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
    snprintf(args, sizeof args, "convert %s/pro.amsb -o %s/pro_back.trace", d, d);
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
    {
        char p[600];
        snprintf(p, sizeof p, "%s/pro_back.trace", d);
        char *back = tu_slurp(p, NULL);
        CU_ASSERT(back && strstr(back, "\nfree 1 prologue=1\nfree_requested 2 prologue=1\n"
                                       "free_completed 2\n"));
        free(back);
    }
    /* a transfer's to= (the buffer it writes) survives the binary form too, in an extension
     * bit of its own (256) that older binary traces do not have; check refuses an unknown to=
     * as the unknown id it uses */
    const char *tot = tu_write("to_b.trace", "amsim-trace v1\nalloc 1 1MiB\nalloc 2 1MiB\n"
                               "transfer hbm hbm 1MiB id=1 to=2 name=x\nfree 2\nfree 1\n");
    snprintf(args, sizeof args, "convert %s -o %s/to.amsb --to binary", tot, d);
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
    snprintf(args, sizeof args, "convert %s/to.amsb -o %s/to_back.trace", d, d);
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
    {
        char p[600];
        snprintf(p, sizeof p, "%s/to_back.trace", d);
        char *back = tu_slurp(p, NULL);
        CU_ASSERT(back && strstr(back, "\ntransfer hbm hbm 1048576 id=1 to=2 name=x\n"));
        free(back);
        char *err = NULL;
        const char *unk = tu_write("to_unk.trace", "amsim-trace v1\nalloc 1 1MiB\n"
                                   "transfer hbm hbm 1MiB id=1 to=5\n");
        snprintf(args, sizeof args, "check -c %s/configs/default.yaml %s", tu_top(), unk);
        CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 1);
        CU_ASSERT(err && strstr(err, "to_unk.trace:3:1: use of unknown id 5"));
        free(err);
        /* a to= buffer on another level than DST: check refuses it as run does, and with
         * --lenient both count it and skip the transfer (until 2026-11-27 all accepted it) */
        const char *lvl = tu_write("to_lvl.trace", "amsim-trace v1\nalloc 1 8MiB level=host\n"
                                   "alloc 2 1KiB level=host\ntransfer host hbm 8MiB id=1 to=2\n"
                                   "free 1\nfree 2\n");
        err = NULL;
        snprintf(args, sizeof args, "check -c %s/configs/default.yaml %s", tu_top(), lvl);
        CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 1);
        CU_ASSERT(err && strstr(err, "to_lvl.trace:4:1: transfer to= buffer 2 is on level "
                                     "'host' (allocated at line 3), not on the transfer's "
                                     "destination level 'hbm' (use --lenient"));
        free(err);
        char *out = NULL;
        snprintf(args, sizeof args, "check --lenient -c %s/configs/default.yaml %s", tu_top(),
                 lvl);
        CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
        CU_ASSERT(out && strstr(out, "trace ok (native, 5 events, 0 rows skipped); 1 trace "
                                     "problem counted and skipped (--lenient)"));
        free(out);
        out = NULL;
        snprintf(args, sizeof args, "run -c %s/configs/default.yaml -t %s --lenient", tu_top(),
                 lvl);
        CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
        CU_ASSERT(out && strstr(out, ", 0 transfers, ") &&
                  strstr(out, "1 trace problem counted and skipped (--lenient)"));
        free(out);
    }
    /* cut the binary file short: an input error, not a shorter replay */
    char src[600], cut[600];
    snprintf(src, sizeof src, "%s/b.amsb", d);
    snprintf(cut, sizeof cut, "%s/cut.amsb", d);
    size_t n = 0;
    char *bin = tu_slurp(src, &n);
    CU_ASSERT_FATAL(bin && n > 64);
    FILE *f = fopen(cut, "wb");
    CU_ASSERT_FATAL(f != NULL);
    fwrite(bin, 1, n / 2, f);
    fclose(f);
    free(bin);
    char *err = NULL;
    snprintf(args, sizeof args, "run -q -c %s/configs/default.yaml -t %s", tu_top(), cut);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 1);
    CU_ASSERT(err && strstr(err, "cut.amsb"));
    free(err);
}

/* An explicit `defrag` line survives every form that can carry it: text -> binary -> text
 * gives the same lines (the level written out; a stream set before it stays the stream of the
 * records after it, as a defrag record takes none), the binary form replays with the same
 * placements (the moves included), and a lifetime CSV, which cannot carry it, says on stderr
 * that it dropped it. */
static void test_defrag_forms(void)
{
    const char *d = tu_tmpdir();
    const char *cfg = tu_write("dfc.yaml",
        "version: 1\nmemories:\n  hbm:\n    capacity: 4MiB\n    allocator: {policy: best_fit, "
        "commit_granularity: 1MiB}\n    defrag: {mode: compact, trigger: on_oom}\n"
        "  host: {kind: host, capacity: 1GiB, allocator: {policy: best_fit}}\n"
        "links:\n  copy: {from: hbm, to: hbm, bandwidth: 1GB/s, latency: 1us}\n"
        "  pcie: {from: host, to: hbm, bandwidth: 1GB/s, latency: 1us}\n");
    const char *src = tu_write("df.trace",
        "amsim-trace v1 time_unit=ps\nalloc 1 1MiB\nalloc 2 1MiB stream=2\nalloc 3 1MiB\n"
        "alloc 4 1MiB\nfree 1\nfree 3\ncompute 1us stream=2\ndefrag at=10us\n"
        "compute 1us stream=2\ndefrag level=host\nalloc 5 2MiB\n");
    char args[4096];
    snprintf(args, sizeof args, "convert -c %s %s -o %s/df.amsb --to binary", cfg, src, d);
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
    snprintf(args, sizeof args, "convert -c %s %s/df.amsb -o %s/df_back.trace", cfg, d, d);
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
    char p[600];
    snprintf(p, sizeof p, "%s/df_back.trace", d);
    char *back = tu_slurp(p, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(back);
    /* the lines that named no level name none (until 2026-11-28 level=hbm, the config's
     * default, was written on them) */
    CU_ASSERT_PTR_NOT_NULL(strstr(back, "\nfree 3\ncompute 1000000 stream=2\n"
                                        "defrag at=10000000\n"
                                        "compute 1000000 stream=2\ndefrag level=host\n"
                                        "alloc 5 2097152\n"));
    free(back);
    char *pl[2];
    for (int f = 0; f < 2; f++) {
        snprintf(args, sizeof args, "run -q -c %s -t %s%s --placements %s/dfpl%d.csv", cfg,
                 f ? d : src, f ? "/df.amsb" : "", d, f);
        CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
        snprintf(p, sizeof p, "%s/dfpl%d.csv", d, f);
        pl[f] = tu_slurp(p, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(pl[f]);
    }
    CU_ASSERT_PTR_NOT_NULL(strstr(pl[0], "\n7,2,hbm,0,1048576,1048576,moved\n"
                                         "7,4,hbm,1048576,1048576,1048576,moved\n"
                                         "10,5,hbm,2097152,2097152,2097152,ok\n"));
    CU_ASSERT_STRING_EQUAL(pl[0], pl[1]);
    free(pl[0]);
    free(pl[1]);
    char *errout = NULL;
    snprintf(args, sizeof args, "convert -c %s %s --to csv -o %s/df.csv", cfg, src, d);
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, &errout), 0);
    CU_ASSERT(errout && strstr(errout, "; 4 other events (2 compute, 2 defrag) and "
                                       "0 allocations of other levels dropped"));
    free(errout);
}

/* A level table larger than the reader's 1 MiB buffer (4096 names of 255 bytes, the most the
 * format allows) is read across refills: until 2026-11-27 it was refused as "bad level name". */
static void test_binary_big_header(void)
{
    char path[600], args[1400], name[256];
    snprintf(path, sizeof path, "%s/lvbig.amsb", tu_tmpdir());
    FILE *f = fopen(path, "wb");
    CU_ASSERT_FATAL(f != NULL);
    fwrite("AMSB\x01\x00\x00\x00\x80\x20", 1, 10, f); /* 4096 as a varint */
    for (int i = 0; i < 4096; i++) {
        memset(name, 'x', 255);
        int k = snprintf(name, sizeof name, "l%d", i);
        name[k] = 'x'; /* snprintf's NUL: the name is all 255 bytes */
        fputc(0xff, f); /* 255 as a varint */
        fputc(0x01, f);
        fwrite(name, 1, 255, f);
    }
    fwrite("\x00\x00", 1, 2, f); /* the end record: no records */
    CU_ASSERT_FATAL(fclose(f) == 0);
    char *out = NULL;
    snprintf(args, sizeof args, "check -c %s/configs/default.yaml %s", tu_top(), path);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    CU_ASSERT(out && strstr(out, "trace ok (binary, 0 events"));
    free(out);
}

/* The peak live bytes of a level in a run's summary (-1 when the run fails). */
static long long run_peak_live(const char *config, const char *tpath, const char *level)
{
    char args[4096], js[600], key[128];
    snprintf(js, sizeof js, "%s/peak.json", tu_tmpdir());
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --json '%s'", config, tpath, js);
    if (tu_amsim(args, NULL, NULL) != 0)
        return -1;
    char *j = tu_slurp(js, NULL);
    snprintf(key, sizeof key, "\"%s\": {", level);
    const char *l = j ? strstr(j, "\"levels\"") : NULL;
    l = l ? strstr(l, key) : NULL;
    const char *p = l ? strstr(l, "\"peak_live_bytes\": ") : NULL;
    long long v = p ? atoll(p + strlen("\"peak_live_bytes\": ")) : -1;
    free(j);
    return v;
}

/* --to csv with ids that never run in sequence (each its own interval of the seen-id set, a
 * tree of many nodes, freed in one walk since 2026-11-28): every buffer is written, in
 * allocation order, and an id that comes back after its free is a new buffer. Under make asan a
 * node the walk missed is a leak, one freed twice an error. */
static void test_csv_scattered_ids(void)
{
    const char *tr = tu_write("si.trace", "amsim-trace v1\nalloc 9 1KiB\nalloc 3 2KiB\nfree 9\n"
                              "alloc 7 3KiB\nalloc 1 4KiB\nfree 3\nfree 7\nalloc 11 5KiB\n"
                              "free 1\nalloc 5 6KiB\nfree 11\nalloc 9 7KiB\nfree 5\nfree 9\n");
    char args[2048], out[1200], *errout = NULL;
    snprintf(out, sizeof out, "%s/si.csv", tu_tmpdir());
    snprintf(args, sizeof args, "convert %s --to csv -o %s", tr, out);
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, &errout), 0);
    CU_ASSERT(errout && strstr(errout, ": 7 buffers written"));
    free(errout);
    char *csv = tu_slurp(out, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
    /* the sizes in allocation order, 1 KiB to 7 KiB */
    const char *at = csv;
    for (int k = 1; k <= 7; k++) {
        char size[32];
        snprintf(size, sizeof size, ",%d\n", k * 1024);
        const char *p = strstr(at, size);
        CU_ASSERT(p != NULL);
        if (!p) {
            fprintf(stderr, "\n  no row of %d KiB after the others:\n%s\n", k, csv);
            break;
        }
        at = p + 1;
    }
    free(csv);
}

/* convert --to csv names the events it drops by their kind and counts in the singular when
 * one: a snapshot's declared segments are segment_alloc, not "copies, compute, streams,
 * records" (until 2026-11-27 the summary said that whatever they were, and "1 buffers"). */
static void test_csv_dropped_kinds(void)
{
    const char *tr = tu_write("dk.trace", "amsim-trace v1\nsegment_alloc 0 2MiB declared=1\n"
                              "alloc 1 1MiB addr=0\ncompute 5us\ncompute 1us\nsync\n"
                              "free 1\n");
    char args[2048], *errout = NULL;
    snprintf(args, sizeof args, "convert %s --to csv -o %s/dk.csv", tr, tu_tmpdir());
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, &errout), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(errout);
    const char *want[] = {": 1 buffer written (0 of them allocated by a transfer's into=; 0 "
                          "donations,", "; 4 other events (2 compute, 1 sync, 1 segment_alloc) "
                          "and 0 allocations of other levels dropped"};
    for (size_t k = 0; k < 2; k++) {
        CU_ASSERT_PTR_NOT_NULL(strstr(errout, want[k]));
        if (!strstr(errout, want[k]))
            fprintf(stderr, "\n  stderr: %s  want: %s\n", errout, want[k]);
    }
    CU_ASSERT(strstr(errout, "name=") == NULL); /* a trace without names: no word of them */
    free(errout);
    /* names are lost too, and counted (until 2026-11-28 in silence): an allocation's and a
     * compute's */
    tr = tu_write("dkn.trace", "amsim-trace v1\nalloc 1 4MiB name=w.fc1\nfree 1\n"
                  "compute 1us name=k\n");
    snprintf(args, sizeof args, "convert %s --to csv -o %s/dkn.csv", tr, tu_tmpdir());
    errout = NULL;
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, &errout), 0);
    CU_ASSERT(errout && strstr(errout, "amsim convert: 2 name= labels dropped (a lifetime CSV "
                                       "has no column for them; the native and binary forms "
                                       "keep them)\n"));
    free(errout);
}

/* A snapshot's segment taken and given back three times (platform: a device allocation per
 * request) is one address range, declared once: convert writes one `segment_alloc ...
 * declared=1` before its 6 real segment events, and --to csv drops 8 events (4 segment_alloc,
 * 3 segment_free, and the run's end, a sync: amsim_end_ps). Until 2026-11-27 each segment_*
 * entry declared its range again: 6 identical declarations, 12 events dropped. */
static void test_snapshot_declares_once(void)
{
    const char *cfg = tu_write("do.yaml", "version: 1\ndevice: h100\nmemories:\n"
                               "  hbm:\n    capacity: 8MiB\n    allocator:\n"
                               "      policy: platform\n");
    const char *tr = tu_write("do.trace", "amsim-trace v1\nalloc 1 4MiB\nfree 1\nalloc 2 4MiB\n"
                              "free 2\nalloc 3 4MiB\nfree 3\n");
    char args[2048], pk[600], *out = NULL, *errout = NULL;
    snprintf(pk, sizeof pk, "%s/do.pickle", tu_tmpdir());
    snprintf(args, sizeof args, "run -c %s -t %s --pytorch-snapshot %s -q", cfg, tr, pk);
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
    snprintf(args, sizeof args, "convert %s -o -", pk);
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, &out, NULL), 0);
    CU_ASSERT_EQUAL(tu_count(out, "segment_alloc 0 4194304 declared=1"), 1);
    CU_ASSERT_EQUAL(tu_count(out, "segment_alloc "), 4);
    CU_ASSERT_EQUAL(tu_count(out, "segment_free "), 3);
    snprintf(args, sizeof args, "convert %s --to csv -o %s/do.csv", pk, tu_tmpdir());
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, &errout), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(errout ? errout : "",
                                  "; 8 other events (1 sync, 4 segment_alloc, 3 segment_free) "
                                  "and"));
    free(out);
    free(errout);
}

/* native -> lifetime CSV keeps the workload: the CSV replays at the trace's peak live bytes. A
 * donor used to live to the end of the trace (peak 8388608 instead of 4194304), and a buffer a
 * transfer's into= allocates was dropped with its free; what a CSV cannot hold (a two-phase
 * free with allocations between its phases) is refused, naming both peaks. */
static void test_csv_peak_live(void)
{
    char cfg[1024], spill[1024];
    snprintf(cfg, sizeof cfg, "%s/configs/default.yaml", tu_top());
    snprintf(spill, sizeof spill, "%s/configs/examples/gpu_spill.yaml", tu_top());
    const char *guard = tu_write("guard.yaml", "version: 1\ndevice: h100\n"
                                 "transfer_guard: {host_to_device: disallow_explicit}\n");
    char gpu[1024], spilltr[1024];
    snprintf(gpu, sizeof gpu, "%s/traces/gpu_train_step.trace", tu_top());
    snprintf(spilltr, sizeof spilltr, "%s/traces/gpu_spill_step.trace", tu_top());
    static const struct {
        const char *name, *text, *csv;
        long long peak;
    } c[] = {
        {"don.trace", "amsim-trace v1\nalloc 1 4MiB\nalloc 2 4MiB donate=1\nfree 2\n",
         "id,lower,upper,size\n1,0,1,4194304\n2,1,2,4194304\n", 4194304},
        {"into.trace", "amsim-trace v1\ntransfer host hbm 4MiB into=5\nfree 5\n",
         "id,lower,upper,size\n5,0,1,4194304\n", 4194304},
        /* unmatched donations (another size; a donor on host; a donor freed in its first
         * phase) allocate normally and the donor lives on; the two-phase free has an allocation
         * between its phases, but the peak is elsewhere, so the CSV holds it */
        {"nodon.trace", "amsim-trace v1\nalloc 100 64MiB\nfree 100\nalloc 1 4MiB\n"
                        "alloc 2 8MiB donate=1\nalloc 3 1MiB level=host\nalloc 4 1MiB donate=3\n"
                        "alloc 6 2MiB\nfree_requested 6\nalloc 7 2MiB donate=6\n"
                        "free_completed 6\nfree 7\nfree 2\nfree 1\nfree 4\nfree 3\n",
         "id,lower,upper,size\n100,0,1,67108864\n1,2,12,4194304\n2,3,11,8388608\n"
         "4,5,13,1048576\n6,6,9,2097152\n7,8,10,2097152\n", 67108864},
        /* a chain 1 -> 2 -> 3, and a transfer into a host buffer (not hbm's) */
        {"chain.trace", "amsim-trace v1\nalloc 1 4MiB\nalloc 9 1MiB\nalloc 2 4MiB donate=1\n"
                        "alloc 3 4MiB donate=2\ntransfer hbm host 1MiB into=10\nfree 9\n"
                        "alloc 4 2MiB\nfree 3\nfree 4\nfree 10\n",
         "id,lower,upper,size\n1,0,2,4194304\n9,1,5,1048576\n2,2,3,4194304\n3,3,7,4194304\n"
         "4,6,8,2097152\n", 6291456},
        /* a snapshot's start-state prologue: the tiling of a 20 MiB segment (8 MiB live at the
         * start, 12 MiB free) is in no peak, and the buffers it frees again get no row; until
         * 2026-11-25 the CSV had rows 1 and 3 and peaked at 20 MiB, as the run did */
        {"pro.trace", "amsim-trace v1\nalloc 1 20MiB prologue=1\nfree 1 prologue=1\n"
                      "alloc 2 8MiB prologue=1\nalloc 3 12MiB prologue=1\nfree 3 prologue=1\n"
                      "alloc 4 4MiB\nfree 4\nfree 2\n",
         "id,lower,upper,size\n2,2,7,8388608\n4,5,6,4194304\n", 12582912},
    };
    const char *d = tu_tmpdir();
    char csv[600], args[4096], *err = NULL;
    snprintf(csv, sizeof csv, "%s/peak.csv", d);
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        const char *tr = tu_write(c[i].name, c[i].text);
        long long before = run_peak_live(cfg, tr, "hbm");
        CU_ASSERT_EQUAL(before, c[i].peak);
        CU_ASSERT_FATAL(convert(tr, csv, "csv", NULL) == 0);
        char *text = tu_slurp(csv, NULL);
        CU_ASSERT_STRING_EQUAL(text ? text : "", c[i].csv);
        free(text);
        long long after = run_peak_live(cfg, csv, "hbm");
        CU_ASSERT_EQUAL(after, before);
        if (after != before)
            fprintf(stderr, "\n  %s: peak live %lld, its CSV %lld\n", c[i].name, before, after);
    }
    const char *tr;
    /* a transfer the config's guard rejects allocates nothing, in the run and in the CSV */
    tr = tu_write("guarded.trace", "amsim-trace v1\nalloc 1 1MiB\ntransfer host hbm 4MiB into=5\n"
                  "alloc 2 1MiB\n");
    CU_ASSERT_EQUAL(run_peak_live(guard, tr, "hbm"), 2097152);
    snprintf(args, sizeof args, "convert '%s' -c '%s' -o '%s' --to csv", tr, guard, csv);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
    CU_ASSERT_EQUAL(run_peak_live(guard, csv, "hbm"), 2097152);
    /* without -c the built-in levels have the presets' kinds: host -> hbm is host-to-device
     * (until 2026-11-25 they had none, and it counted as device-to-device) */
    tr = tu_write("guarded_builtin.trace", "amsim-trace v1\nalloc 1 1MiB\n"
                  "transfer host hbm 4MiB into=5 implicit=1\nfree 1\n");
    static const struct {
        const char *set;
        int into_row;
    } g[] = {{"host_to_device=disallow", 0}, {"device_to_device=disallow", 1},
             {"host_to_device=allow", 1}};
    for (size_t i = 0; i < AM_ARRAY_LEN(g); i++) {
        remove(csv);
        snprintf(args, sizeof args, "convert '%s' -o '%s' --to csv --set transfer_guard.%s", tr,
                 csv, g[i].set);
        CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
        char *text = tu_slurp(csv, NULL);
        CU_ASSERT_PTR_NOT_NULL(text);
        CU_ASSERT(text && strstr(text, "\n1,0,2,1048576\n"));
        /* 5 is never freed: an empty upper (until 2026-11-27 the number of events, 3) */
        CU_ASSERT(text && (strstr(text, "\n5,1,,4194304\n") != NULL) == g[i].into_row);
        if (text && (strstr(text, "\n5,1,,4194304\n") != NULL) != g[i].into_row)
            fprintf(stderr, "\n  --set transfer_guard.%s: %s", g[i].set, text);
        free(text);
    }
    /* the into= id of a transfer the guard rejects is known as not allocated, as in the run
     * (engine.c, into_skipped): its free is skipped, no row; while another buffer holds the id,
     * the transfer is a duplicate id, as in the run */
    tr = tu_write("guarded_free.trace", "amsim-trace v1\nalloc 1 1MiB\n"
                  "transfer host hbm 4MiB into=5 implicit=1\nfree 5\nalloc 5 2MiB\nfree 1\n");
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --set "
             "transfer_guard.host_to_device=disallow", cfg, tr);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
    snprintf(args, sizeof args, "convert '%s' -o '%s' --to csv --set "
             "transfer_guard.host_to_device=disallow", tr, csv);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
    char *gtext = tu_slurp(csv, NULL);
    CU_ASSERT_STRING_EQUAL(gtext ? gtext : "",
                           "id,lower,upper,size\n1,0,4,1048576\n5,3,,2097152\n");
    free(gtext);
    tr = tu_write("guarded_dup.trace", "amsim-trace v1\nalloc 5 1MiB\n"
                  "transfer host hbm 4MiB into=5 implicit=1\n");
    snprintf(args, sizeof args, "convert '%s' -o '%s' --to csv --set "
             "transfer_guard.host_to_device=disallow", tr, csv);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 1);
    char want[2048];
    snprintf(want, sizeof want, "amsim: %s:3:1: duplicate id 5: still allocated (line 2)\n", tr);
    CU_ASSERT_STRING_EQUAL(err ? err : "", want);
    free(err);
    err = NULL;
    /* the shipped GPU traces: transfers, streams, a second level; gpu_spill_step allocates its
     * weights by transfers into hbm (its CSV peaked at 880807936 of 1048576000 bytes) */
    const char *pairs[2][2] = {{gpu, cfg}, {spilltr, spill}};
    for (int k = 0; k < 2; k++) {
        snprintf(args, sizeof args, "convert '%s' -c '%s' -o '%s' --to csv", pairs[k][0],
                 pairs[k][1], csv);
        CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
        long long a = run_peak_live(pairs[k][1], pairs[k][0], "hbm"),
                  b = run_peak_live(pairs[k][1], csv, "hbm");
        CU_ASSERT(a > 0 && a == b);
        if (a != b)
            fprintf(stderr, "\n  %s: peak live %lld, its CSV %lld\n", pairs[k][0], a, b);
    }
    /* a two-phase free with an allocation between its phases: refused, no output */
    remove(csv);
    tr = tu_write("two.trace", "amsim-trace v1\nalloc 1 4MiB\nfree_requested 1\nalloc 2 4MiB\n"
                  "free_completed 1\nfree 2\n");
    CU_ASSERT_EQUAL(run_peak_live(cfg, tr, "hbm"), 4194304);
    snprintf(args, sizeof args, "convert '%s' -o '%s' --to csv", tr, csv);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 1);
    snprintf(want, sizeof want, "amsim: %s: a lifetime CSV cannot hold this trace: it would peak "
             "at 8388608 live bytes on hbm (at line 4) where the trace peaks at 4194304: a "
             "lifetime has one end, so a buffer freed in two phases (free_requested, then "
             "free_completed, where its memory comes back; 1 here) stays live until "
             "free_completed, across the allocations in between; convert to the native format, "
             "which keeps both phases\n", tr);
    CU_ASSERT_STRING_EQUAL(err ? err : "", want);
    free(err);
    FILE *f = fopen(csv, "r");
    CU_ASSERT_PTR_NULL(f);
    if (f)
        fclose(f);
    /* a recorded oom that a run serves counts as an allocation for its instant: where that
     * raises the peak, refused, no output (until 2026-11-25 converted with "peak live 4194304
     * bytes as in the trace", where run reports 12582912); one below the peak is dropped */
    tr = tu_write("oom.trace", "amsim-trace v1\nalloc 1 4MiB\noom 8MiB\nfree 1\n");
    CU_ASSERT_EQUAL(run_peak_live(cfg, tr, "hbm"), 12582912);
    snprintf(args, sizeof args, "convert '%s' -o '%s' --to csv", tr, csv);
    err = NULL;
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 1);
    snprintf(want, sizeof want, "amsim: %s: a lifetime CSV cannot hold this trace: it would peak "
             "at 4194304 live bytes on hbm (at line 2) where the trace peaks at 12582912: a "
             "recorded oom that a replay serves counts as an allocation for its instant (8388608 "
             "bytes at line 3), and a lifetime CSV skips empty lifetimes; convert to the native "
             "format, which keeps oom lines\n", tr);
    CU_ASSERT_STRING_EQUAL(err ? err : "", want);
    free(err);
    f = fopen(csv, "r");
    CU_ASSERT_PTR_NULL(f);
    if (f)
        fclose(f);
    tr = tu_write("oom_below.trace", "amsim-trace v1\nalloc 1 4MiB\noom 1MiB\nfree 1\n"
                  "alloc 2 8MiB\nfree 2\n");
    snprintf(args, sizeof args, "convert '%s' -o '%s' --to csv", tr, csv);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
    CU_ASSERT_EQUAL(run_peak_live(cfg, tr, "hbm"), 8388608);
    CU_ASSERT_EQUAL(run_peak_live(cfg, csv, "hbm"), 8388608);
    remove(csv);
    /* a real PyTorch snapshot, two-phase frees and all, keeps its peak */
    const char *snap = tu_shared("pytorch-snapshots/MAGMA27_assignment2-systems_memory_snapshot.pickle");
    if (snap) {
        const char *big = tu_write("big.yaml", "version: 1\nmemories:\n"
                                   "  hbm: {capacity: 1TiB, allocator: {policy: best_fit}}\n");
        snprintf(args, sizeof args, "convert '%s' -o '%s' --to csv", snap, csv);
        CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
        long long a = run_peak_live(big, snap, "hbm"), b = run_peak_live(big, csv, "hbm");
        CU_ASSERT(a > 0 && a == b);
    }
}

/* A trace that run refuses for its ids or events is refused by --to csv too, with run's message
 * at the same line and column, and nothing written (until 2026-11-27 a duplicate id became two
 * rows, an unknown free was dropped and a 0-byte allocation became a row the CSV reader skips,
 * all with exit status 0). */
static void test_csv_engine_rules(void)
{
    char cfg[1024];
    snprintf(cfg, sizeof cfg, "%s/configs/default.yaml", tu_top());
    static const struct {
        const char *name, *text, *msg;
    } c[] = {
        {"r_dup.trace", "amsim-trace v1\nalloc 1 4MiB\nalloc 1 4MiB\n",
         "3:1: duplicate id 1: still allocated (line 2)"},
        /* ids are one space over the levels; free_requested keeps the id taken */
        {"r_dup_host.trace", "amsim-trace v1\nalloc 1 4MiB level=host\nfree_requested 1\n"
                             "alloc 1 4MiB\n", "4:1: duplicate id 1: still allocated (line 2)"},
        {"r_dup_into.trace", "amsim-trace v1\nalloc 5 1MiB\ntransfer host hbm 1MiB into=5\n",
         "3:1: duplicate id 5: still allocated (line 2)"},
        {"r_unknown.trace", "amsim-trace v1\nalloc 1 4MiB\nfree 7\nfree 1\n",
         "3:1: free of unknown id 7"},
        {"r_unknown_fc.trace", "amsim-trace v1\nalloc 1 4MiB\nfree 1\nfree_completed 1\n",
         "4:1: free of unknown id 1"},
        {"r_second.trace", "amsim-trace v1\nalloc 1 4MiB\nfree_requested 1\nfree_requested 1\n",
         "4:1: second free request of id 1"},
        {"r_zero.trace", "amsim-trace v1\nalloc 1 0\n", "2:1: allocation of 0 bytes for id 1"},
        {"r_zero_into.trace", "amsim-trace v1\ntransfer host hbm 0 into=3\n",
         "2:1: allocation of 0 bytes for id 3"},
        {"r_oom_zero.trace", "amsim-trace v1\noom 0\n", "2:1: oom of 0 bytes"},
        {"r_use.trace", "amsim-trace v1\nalloc 1 4MiB\nuse 2\n", "3:1: use of unknown id 2"},
        /* a transfer's id= is a use (until 2026-11-27 run and convert accepted an unknown one) */
        {"r_use_xfer.trace", "amsim-trace v1\nalloc 1 4MiB\nfree 1\ntransfer hbm host 1MiB id=1\n",
         "4:1: use of unknown id 1"},
        {"r_use_xfer_into.trace", "amsim-trace v1\ntransfer host hbm 1MiB id=2 into=3\n",
         "2:1: use of unknown id 2"},
        /* a transfer's to= on another level than its DST (until 2026-11-27 accepted) */
        {"r_to_level.trace", "amsim-trace v1\nalloc 1 4MiB level=host\nalloc 2 1KiB level=host\n"
                             "transfer host hbm 4MiB id=1 to=2\n",
         "4:1: transfer to= buffer 2 is on level 'host' (allocated at line 3), not on the "
         "transfer's destination level 'hbm'"},
        {"r_wait.trace", "amsim-trace v1\nrecord 1\nwait 2 stream=1\n",
         "3:1: wait on event 2, which was never recorded"},
    };
    char args[4096], want[2048];
    const char *out = tmp("rules.csv");
    for (size_t i = 0; i < AM_ARRAY_LEN(c); i++) {
        const char *tr = tu_write(c[i].name, c[i].text);
        snprintf(want, sizeof want, "amsim: %s:%s", tr, c[i].msg);
        /* run's message, the --lenient hint aside */
        char *err = NULL;
        snprintf(args, sizeof args, "run -q -c '%s' -t '%s'", cfg, tr);
        CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 1);
        CU_ASSERT(err && strncmp(err, want, strlen(want)) == 0);
        free(err);
        remove(out);
        err = NULL;
        snprintf(args, sizeof args, "convert '%s' -o '%s' --to csv", tr, out);
        CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 1);
        strcat(want, "\n");
        CU_ASSERT_STRING_EQUAL(err ? err : "", want);
        free(err);
        FILE *f = fopen(out, "r");
        CU_ASSERT_PTR_NULL(f);
        if (f)
            fclose(f);
        /* to standard output: nothing either */
        char *so = NULL;
        snprintf(args, sizeof args, "convert '%s' -o - --to csv", tr);
        CU_ASSERT_EQUAL(tu_amsim(args, &so, NULL), 1);
        CU_ASSERT_STRING_EQUAL(so ? so : "", "");
        free(so);
    }
    /* an id reused after its free, on another level, and a buffer freed in two phases: fine */
    const char *ok = tu_write("r_ok.trace", "amsim-trace v1\nalloc 1 4MiB\nfree 1\n"
                              "alloc 1 4MiB level=host\nfree_requested 1\nfree_completed 1\n"
                              "alloc 1 2MiB\nrecord 4\nwait 4 stream=1\nuse 1\n"
                              "transfer hbm host 1MiB id=1\n");
    snprintf(args, sizeof args, "convert '%s' -o '%s' --to csv", ok, out);
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
    char *text = tu_slurp(out, NULL);
    CU_ASSERT_STRING_EQUAL(text ? text : "",
                           "id,lower,upper,size\n0,0,1,4194304\n1,5,,2097152\n");
    free(text);
}

/* The offset column is all or nothing: every row has an address, or none is written, and then
 * stderr says how many recorded addresses were left out and where the first buffer without one
 * was allocated (until 2026-11-27 they were left out in silence). */
/* A peak live past 2^64 bytes is printed exactly (until 2026-11-27 it wrapped: four 4 EiB
 * buffers and one byte printed 13835058055282163712). */
static void test_csv_peak_past_2_64(void)
{
    const char *t = tu_write("pk128.trace", "amsim-trace v1\nalloc 1 4EiB\nalloc 2 4EiB\n"
                                            "alloc 3 4EiB\nalloc 4 4EiB\nalloc 5 1\n");
    char args[1024], *err = NULL;
    snprintf(args, sizeof args, "convert --to csv %s -o %s/pk128.csv", t, tu_tmpdir());
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "peak live 18446744073709551617 bytes as in the trace"));
    free(err);
}

static void test_csv_partial_addresses(void)
{
    static const struct {
        const char *name, *text, *csv, *lost;
    } c[] = {
        {"pa_all.trace", "amsim-trace v1\nalloc 1 4MiB addr=0\nalloc 2 8MiB addr=4194304\n"
                         "free 1\nfree 2\n",
         "id,lower,upper,size,offset\n1,0,2,4194304,0\n2,1,3,8388608,4194304\n", NULL},
        {"pa_some.trace", "amsim-trace v1\nalloc 1 4MiB addr=0\nalloc 2 8MiB\nfree 1\nfree 2\n",
         "id,lower,upper,size\n1,0,2,4194304\n2,1,3,8388608\n",
         "amsim convert: 1 recorded address left out, so a run of the CSV validates no "
         "placement: its offset column needs an address on every row, and 1 buffer has none "
         "(the first allocated at @:3:1); the native and binary forms keep them\n"},
        /* a transfer's into= buffer has no recorded address; a host buffer's needs no row */
        {"pa_into.trace", "amsim-trace v1\nalloc 1 4MiB addr=0\nalloc 3 1MiB level=host\n"
                          "alloc 2 4MiB addr=4194304\n  transfer host hbm 1MiB into=4\n"
                          "transfer host hbm 1MiB into=5\n",
         "id,lower,upper,size\n1,0,,4194304\n2,2,,4194304\n4,3,,1048576\n5,4,,1048576\n",
         "amsim convert: 4 buffers never freed written with an empty upper, live to the end of "
         "the run as in the trace (the first allocated at @:2:1); a lifetime CSV reader other "
         "than amsim's may need every upper\n"
         "amsim convert: 2 recorded addresses left out, so a run of the CSV validates no "
         "placement: its offset column needs an address on every row, and 2 buffers have none "
         "(the first allocated at @:5:3); the native and binary forms keep them\n"},
        /* the first without an address in allocation order, not the first whose row ended
         * (the rows are counted as they are spilled, when they end: 3 before 2) */
        {"pa_order.trace", "amsim-trace v1\nalloc 1 4MiB addr=0\nalloc 2 8MiB\nalloc 3 1MiB\n"
                           "free 3\nfree 2\n",
         "id,lower,upper,size\n1,0,,4194304\n2,1,4,8388608\n3,2,3,1048576\n",
         "amsim convert: 1 buffer never freed written with an empty upper, live to the end of "
         "the run as in the trace (the first allocated at @:2:1); a lifetime CSV reader other "
         "than amsim's may need every upper\n"
         "amsim convert: 1 recorded address left out, so a run of the CSV validates no "
         "placement: its offset column needs an address on every row, and 2 buffers have none "
         "(the first allocated at @:3:1); the native and binary forms keep them\n"},
        {"pa_none.trace", "amsim-trace v1\nalloc 1 4MiB\nfree 1\n",
         "id,lower,upper,size\n1,0,1,4194304\n", NULL},
    };
    char args[4096];
    const char *out = tmp("pa.csv");
    for (size_t i = 0; i < AM_ARRAY_LEN(c); i++) {
        const char *tr = tu_write(c[i].name, c[i].text);
        char *err = NULL;
        snprintf(args, sizeof args, "convert '%s' -o '%s' --to csv", tr, out);
        CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, &err), 0);
        char *text = tu_slurp(out, NULL);
        CU_ASSERT_STRING_EQUAL(text ? text : "", c[i].csv);
        free(text);
        const char *nl = err ? strchr(err, '\n') : NULL; /* the summary line, then the loss */
        CU_ASSERT_PTR_NOT_NULL_FATAL(nl);
        if (c[i].lost) {
            char want[2048]; /* every '@' the trace's path */
            size_t k = 0;
            for (const char *q = c[i].lost; *q && k + 1 < sizeof want; q++)
                k += (size_t)snprintf(want + k, sizeof want - k, *q == '@' ? "%s" : "%.1s",
                                      *q == '@' ? tr : q);
            CU_ASSERT_STRING_EQUAL(nl + 1, want);
        } else {
            CU_ASSERT_STRING_EQUAL(nl + 1, "");
        }
        free(err);
    }
}

/* A file name with control characters (a carriage return, a newline, a tab, 0x01): the native
 * output names it escaped on one comment line and reads back (until 2026-11-27 the carriage
 * return went out raw: "carriage return inside a line" at line 2). */
static void test_control_path(void)
{
    const char *in = tu_write("cr\rnl\nta\tb\x01.trace", "amsim-trace v1\nalloc 1 4KiB\nfree 1\n");
    const char *out = tmp("ctl.trace"), *bin = tmp("ctl.amsb");
    CU_ASSERT_FATAL(convert(in, out, "native", NULL) == 0);
    char *text = tu_slurp(out, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_PTR_NOT_NULL(
        strstr(text, "cr\\rnl\\nta\\tb\\x01.trace (native)\nalloc 1 4096\n"));
    CU_ASSERT_EQUAL(tu_count(text, "\n"), 4); /* header, one comment line, alloc, free */
    CU_ASSERT_PTR_NULL(strchr(text, '\r'));
    free(text);
    tr_event e[4];
    char names[4][32];
    CU_ASSERT_EQUAL(read_all(out, e, 4, names), 2);
    /* the binary form holds no path; its native conversion names the binary file */
    CU_ASSERT_FATAL(convert(in, bin, "binary", NULL) == 0);
    CU_ASSERT_EQUAL(read_all(bin, e, 4, names), 2);
    /* the writer escapes what a caller passes raw, line by line */
    FILE *f = fopen(out, "w");
    CU_ASSERT_FATAL(f != NULL);
    tw_writer w;
    tw_init(&w, f, lv, 2, "a\rb\nc\x7f", 0, 0);
    fclose(f);
    text = tu_slurp(out, NULL);
    CU_ASSERT_STRING_EQUAL(text ? text : "", "amsim-trace v1 time_unit=ps\n# a\\rb\n# c\\x7f\n");
    free(text);
    CU_ASSERT_EQUAL(read_all(out, e, 4, names), 0);
    char esc[8];
    CU_ASSERT_EQUAL(tw_escape(esc, sizeof esc, "ab\r\x02"), 4); /* "ab\r", no half escape */
    CU_ASSERT_STRING_EQUAL(esc, "ab\\r");
}


/* amsim check and convert --to csv hold one row per buffer live at once, not per allocation:
 * 5000 buffers, each live with one other, beside one that lives to the end, take 3 row slots
 * and one range of ids (until 2026-11-27 every allocation kept its row, so memory grew with
 * the events: 1M alloc/free pairs of one id took 75 MB). Rows finish out of allocation order
 * (the second of each pair is freed first) and still come out in it. */
static void test_csv_memory_follows_live(void)
{
    enum { PAIRS = 2500 };
    size_t cap = 64 + PAIRS * 64, k = 0;
    char *text = malloc(cap);
    k += (size_t)snprintf(text + k, cap - k, "amsim-trace v1\nalloc 0 4096\n");
    for (int i = 1; i <= 2 * PAIRS; i += 2)
        k += (size_t)snprintf(text + k, cap - k, "alloc %d 100\nalloc %d 200\nfree %d\n"
                              "free %d\n", i, i + 1, i + 1, i);
    const char *tr = tu_write("live.trace", text), *out = tmp("live.csv");
    free(text);
    CU_ASSERT_EQUAL_FATAL(convert(tr, out, "csv", NULL), 0);
    size_t slots = 0, ranges = 0;
    convert_last_held(&slots, &ranges);
    CU_ASSERT_EQUAL(slots, 3);
    CU_ASSERT_EQUAL(ranges, 1);
    char *csv = tu_slurp(out, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
    CU_ASSERT_EQUAL(tu_count(csv, "\n"), 1 + 2 * PAIRS + 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, "id,lower,upper,size\n0,0,,4096\n1,1,4,100\n"
                                       "2,2,3,200\n3,5,8,100\n4,6,7,200\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, "\n5000,9998,9999,200\n"));
    free(csv);

    am_config *cfg = NULL;
    am_error err = {0};
    CU_ASSERT_EQUAL_FATAL(cfg_load_builtin(&cfg, NULL, 0, &err), 0);
    const char *names[CFG_MAX_LEVELS];
    for (int i = 0; i < cfg->nlevels; i++)
        names[i] = cfg->levels[i].name;
    trace_opts to = {names, cfg->nlevels, cfg->default_level, 0, 1000, 0};
    trace *t = NULL;
    uint64_t events = 0, skipped = 0;
    CU_ASSERT_EQUAL_FATAL(trace_open(&t, tr, &to, &err), 0);
    CU_ASSERT_EQUAL(convert_check_trace(t, cfg, tr, 0, &events, &skipped, &err), 0);
    CU_ASSERT_EQUAL(events, 1 + 4 * PAIRS);
    convert_last_held(&slots, &ranges);
    CU_ASSERT_EQUAL(slots, 3);
    trace_close(t);
    cfg_free(cfg);
}

/* The rows a trace skipped (a CSV's empty lifetimes and 0-byte rows here) survive convert to
 * every form, and a conversion of the conversion: the header's skipped=N (native), the header
 * flag and count (binary), a "# amsim skipped=N" line before the header (CSV), each counted into
 * trace.skipped by its reader (until 2026-11-27 convert dropped them: "0 rows skipped"). */
static void test_skipped_carried(void)
{
    const char *src = tu_write("skip.csv", "id,lower,upper,size\n1,0,5,100\n2,5,10,200\n"
                                           "3,3,3,50\n4,2,4,0\n");
    static const char *const forms[] = {"native", "binary", "csv"};
    for (int i = 0; i < 3; i++) {
        char name[32], back[32];
        snprintf(name, sizeof name, "skip-out.%s", forms[i]);
        snprintf(back, sizeof back, "skip-back-%s.trace", forms[i]);
        const char *out = tmp(name), *again = tmp(back);
        CU_ASSERT_EQUAL_FATAL(convert(src, out, forms[i], NULL), 0);
        CU_ASSERT_EQUAL_FATAL(convert(out, again, "native", NULL), 0);
        const char *paths[] = {src, out, again};
        for (int k = 0; k < 3; k++) {
            trace *t = NULL;
            am_error err = {0};
            trace_opts to = {lv, 2, 0, 0, AM_PS_PER_NS, 0};
            CU_ASSERT_EQUAL_FATAL(trace_open(&t, paths[k], &to, &err), 0);
            if (trace_skipped(t) != 2)
                fprintf(stderr, "\n  %s: %llu rows skipped, not 2\n", paths[k],
                        (unsigned long long)trace_skipped(t));
            CU_ASSERT_EQUAL(trace_skipped(t), 2);
            trace_close(t);
        }
    }
    /* a source without skipped rows is written as before: no field, flag or line */
    const char *plain = tu_write("plain.csv", "id,lower,upper,size\n1,0,5,100\n");
    CU_ASSERT_EQUAL_FATAL(convert(plain, tmp("plain.trace"), "native", NULL), 0);
    char *text = tu_slurp(tmp("plain.trace"), NULL);
    CU_ASSERT(text && strncmp(text, "amsim-trace v1 time_unit=ps\n", 28) == 0);
    free(text);
    CU_ASSERT_EQUAL_FATAL(convert(plain, tmp("plain.csv2"), "csv", NULL), 0);
    text = tu_slurp(tmp("plain.csv2"), NULL);
    CU_ASSERT(text && strncmp(text, "id,lower,upper,size", 19) == 0);
    free(text);
    size_t n;
    CU_ASSERT_EQUAL_FATAL(convert(plain, tmp("plain.amsb"), "binary", NULL), 0);
    text = tu_slurp(tmp("plain.amsb"), &n);
    CU_ASSERT(text && n > 8 && text[5] == 0);
    free(text);
}

/* A snapshot whose only allocation is its start state (prologue=1) is validated ("0 of 0
 * allocations at the recorded address"), and so are its native and binary conversions and a
 * conversion of the conversion: the header's validated=1 (native) or flag 2 (binary) carries it.
 * Until 2026-11-27 they had no validation: nothing outside the prologue recorded an address. A
 * native trace without the field and without addresses is still not validated. */
static void test_validation_carried(void)
{
    const char *cfg = tu_write("val.yaml", "version: 1\ndevice: h100\n"
                               "memories: {hbm: {capacity: 64MiB, allocator: {policy: bfc}}}\n");
    const char *tr = tu_write("val.trace", "amsim-trace v1\nalloc 1 1MiB prologue=1\n"
                              "free 1 at=1000\n");
    const char *snap = tmp("val.pickle"), *nat = tmp("val-cv.trace"), *bin = tmp("val-cv.amsb"),
               *again = tmp("val-again.trace");
    char args[4096];
    snprintf(args, sizeof args, "run -q -c %s -t %s --pytorch-snapshot %s", cfg, tr, snap);
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
    snprintf(args, sizeof args, "-c %s", cfg);
    CU_ASSERT_EQUAL_FATAL(convert(snap, nat, "native", args), 0);
    CU_ASSERT_EQUAL_FATAL(convert(snap, bin, "binary", args), 0);
    CU_ASSERT_EQUAL_FATAL(convert(bin, again, "native", args), 0);
    const char *paths[] = {snap, nat, bin, again, tr};
    for (int k = 0; k < 5; k++) {
        int want = k < 4; /* the plain trace (no addresses, no field) is not validated */
        char *out = NULL;
        snprintf(args, sizeof args, "run -q -c %s -t %s --json -", cfg, paths[k]);
        CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
        const char *v = out ? strstr(out, "\"validation\": {") : NULL;
        int has = v && strstr(v, "\"recorded_allocs\": 0,") != NULL;
        if (has != want)
            fprintf(stderr, "\n  %s: validation block %s\n", paths[k], has ? "present" : "missing");
        CU_ASSERT_EQUAL(has, want);
        free(out);
        out = NULL;
        snprintf(args, sizeof args, "run -c %s -t %s", cfg, paths[k]);
        CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
        has = out && strstr(out, "validation: 0 of 0 allocations at the recorded address") != NULL;
        CU_ASSERT_EQUAL(has, want);
        free(out);
    }
    char *text = tu_slurp(nat, NULL);
    CU_ASSERT(text && strncmp(text, "amsim-trace v1 time_unit=ps validated=1\n", 40) == 0);
    free(text);
}

/* Peak live bytes of a lifetime CSV read with inclusive lifetimes or not. */
static long long csv_peak_read(const char *path, int inclusive)
{
    trace *t = NULL;
    am_error err = {0};
    trace_opts to = {lv, 2, 0, inclusive, AM_PS_PER_NS, 0};
    CU_ASSERT_EQUAL_FATAL(trace_open(&t, path, &to, &err), 0);
    long long live = 0, peak = 0;
    tr_event ev;
    while (trace_next(t, &ev, &err) == 1) {
        live += ev.kind == TR_ALLOC ? (long long)ev.bytes : -(long long)ev.bytes;
        peak = live > peak ? live : peak;
    }
    trace_close(t);
    return peak;
}

/* A binary input's positions are FILE:RECORD in convert's notes, as FORMAT.md names them (a
 * record has no column): the first buffer never freed (record 1) and the first without an
 * address (record 2). Until 2026-11-27 they read FILE:RECORD:0. */
static void test_binary_positions_without_column(void)
{
    const char *tr = tu_write("bpos.trace", "amsim-trace v1\nalloc 1 4MiB addr=0\n"
                                            "alloc 2 8MiB\nfree 2\n");
    const char *bin = tmp("bpos.bin"), *out = tmp("bpos.csv");
    char args[4096], want[2048], *err = NULL;
    snprintf(args, sizeof args, "convert '%s' -o '%s' --to binary", tr, bin);
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
    snprintf(args, sizeof args, "convert '%s' -o '%s' --to csv", bin, out);
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, &err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(err);
    snprintf(want, sizeof want, "(the first allocated at %s:1); a lifetime CSV reader", bin);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
    snprintf(want, sizeof want, "(the first allocated at %s:2); the native and binary", bin);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
    if (!strstr(err, want))
        fprintf(stderr, "\n  stderr: %s", err);
    free(err);
}

/* convert --to csv writes rows in the lifetimes convention of its config: under
 * trace.lifetimes: inclusive each upper is the last event a buffer is live, so the CSV reads
 * back with the trace's peak (until 2026-11-27 half-open rows were written whatever the config:
 * read inclusively, a donor overlapped its output, 8 MiB live where the trace peaks at 5). */
static void test_csv_inclusive(void)
{
    const char *tr = tu_write("incl.trace", "amsim-trace v1\nalloc 1 4MiB\n"
                              "alloc 2 4MiB donate=1\nalloc 3 1MiB\nfree 2\nalloc 4 4MiB\n"
                              "free 3\nfree 4\n");
    const char *cfg = tu_write("incl.yaml", "version: 1\ndevice: h100\n"
                               "trace: {lifetimes: inclusive}\n");
    char extra[600];
    snprintf(extra, sizeof extra, "-c %s", cfg);
    CU_ASSERT_EQUAL_FATAL(convert(tr, tmp("incl.csv"), "csv", extra), 0);
    char *text = tu_slurp(tmp("incl.csv"), NULL);
    const char *want = "id,lower,upper,size\n1,0,0,4194304\n2,1,2,4194304\n3,2,4,1048576\n"
                       "4,4,5,4194304\n";
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_STRING_EQUAL(text, want);
    free(text);
    CU_ASSERT_EQUAL(csv_peak_read(tmp("incl.csv"), 1), 5242880);
    /* without the config: half-open rows, read back half-open */
    CU_ASSERT_EQUAL_FATAL(convert(tr, tmp("half.csv"), "csv", NULL), 0);
    CU_ASSERT_EQUAL(csv_peak_read(tmp("half.csv"), 0), 5242880);
}

/* A row whose ticks the config's trace.time_unit cannot time (past 2^64 - 3 ps, which the CSV
 * reader refuses) is refused by convert, nothing written (until 2026-11-27 the CSV was written,
 * and every run of it failed: "time out of range: upper tick 4 at 4611686018427387904 ps per
 * tick exceeds 2^64 ps"). */
static void test_csv_ticks_in_range(void)
{
    const char *tr = tu_write("tu.trace", "amsim-trace v1\nalloc 1 4\nalloc 2 4\nalloc 3 4\n"
                              "alloc 4 4\nfree 1\n");
    const char *out = tmp("tu.csv");
    char args[2048], *errout = NULL;
    remove(out);
    snprintf(args, sizeof args, "convert '%s' -o '%s' --to csv --set "
             "trace.time_unit=4611686018427387904ps", tr, out);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, &errout), 1);
    CU_ASSERT(errout && strstr(errout, "tu.trace: a lifetime CSV at "
              "4611686018427387904 ps per tick (the config's trace.time_unit) "
              "cannot hold buffer 1: its end, event 4, is past 2^64 - 3 ps (the "
              "most a run can time); convert with a smaller trace.time_unit, or to "
              "the native format"));
    free(errout);
    CU_ASSERT(access(out, F_OK) != 0);
    /* one tick less fits: 3 * 2^62 ps, and the empty uppers have no tick */
    tr = tu_write("tu2.trace", "amsim-trace v1\nalloc 1 4\nalloc 2 4\nalloc 3 4\nfree 1\n");
    snprintf(args, sizeof args, "convert '%s' -o '%s' --to csv --set "
             "trace.time_unit=4611686018427387904ps", tr, out);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
}

/* A buffer the trace never frees gets an empty upper, read back as never freed, and stderr
 * counts them (until 2026-11-27 their rows ended at the number of events, in silence: a run of
 * the CSV freed them there, 3 frees where the trace's run had 1). */
static void test_csv_never_freed(void)
{
    const char *tr = tu_write("nf.trace", "amsim-trace v1\nalloc 1 4MiB\nalloc 2 1MiB\nfree 2\n"
                              "alloc 3 1MiB\n");
    char args[2048], *errout = NULL;
    snprintf(args, sizeof args, "convert %s --to csv -o %s", tr, tmp("nf.csv"));
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, &errout), 0);
    const char *want = "amsim convert: 2 buffers never freed written with an empty upper, live "
                       "to the end of the run as in the trace (the first allocated at ";
    CU_ASSERT(errout && strstr(errout, want));
    CU_ASSERT(errout && strstr(errout, "nf.trace:2:1); a lifetime CSV reader"));
    free(errout);
    char *text = tu_slurp(tmp("nf.csv"), NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_STRING_EQUAL(text, "id,lower,upper,size\n1,0,,4194304\n2,1,2,1048576\n"
                                 "3,3,,1048576\n");
    free(text);
    /* read back: three allocations, one free, as the trace's run */
    trace *t = NULL;
    am_error err = {0};
    trace_opts to = {lv, 2, 0, 0, AM_PS_PER_NS, 0};
    CU_ASSERT_EQUAL_FATAL(trace_open(&t, tmp("nf.csv"), &to, &err), 0);
    int allocs = 0, frees = 0;
    tr_event ev;
    while (trace_next(t, &ev, &err) == 1) {
        allocs += ev.kind == TR_ALLOC;
        frees += ev.kind == TR_FREE;
    }
    trace_close(t);
    CU_ASSERT_EQUAL(allocs, 3);
    CU_ASSERT_EQUAL(frees, 1);
}

/* A start-state (prologue=1) allocation is no validated one: the trace's run counts 1 recorded
 * allocation. A CSV cannot say "start state", so its row is an ordinary one; an offset on it
 * would be validated, so the column is left out and the notes say so (until 2026-11-28 it was
 * written: the CSV's run counted 2 recorded allocations, MAGMA27's 0 of 1950 at the address). */
static void test_csv_prologue(void)
{
    const char *tr = tu_write("pro.trace", "amsim-trace v1\nalloc 1 4096 addr=0 prologue=1\n"
                              "alloc 2 8192 addr=4096\nfree 2\nfree 1\n");
    const char *out = tmp("pro.csv");
    char args[4096], *err = NULL;
    snprintf(args, sizeof args, "convert '%s' -o '%s' --to csv", tr, out);
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, &err), 0);
    char *text = tu_slurp(out, NULL);
    CU_ASSERT_STRING_EQUAL(text ? text : "", "id,lower,upper,size\n1,0,3,4096\n2,1,2,8192\n");
    free(text);
    CU_ASSERT(err && strstr(err, "amsim convert: 1 buffer of the start-state "
                            "prologue (prologue=1) written as an ordinary row"));
    CU_ASSERT(err && strstr(err, "2 recorded addresses left out"));
    free(err);
    /* without recorded addresses only the start state is named */
    tr = tu_write("pro2.trace", "amsim-trace v1\nalloc 1 4096 prologue=1\nfree 1\n");
    err = NULL;
    snprintf(args, sizeof args, "convert '%s' -o '%s' --to csv", tr, out);
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, &err), 0);
    CU_ASSERT(err && strstr(err, "1 buffer of the start-state prologue"));
    CU_ASSERT_FALSE(err && strstr(err, "recorded address"));
    free(err);
}

/* Events that name no level run on the config's default_memory: the native and binary forms
 * leave them so, and replay under a config whose default is host on host as the input does
 * (until 2026-11-28 they said level=hbm, the converting config's default). */
static void test_default_level_unnamed(void)
{
    const char *cfg = tu_write("dmh.yaml", "version: 1\ndevice: h100\ndefault_memory: host\n");
    const char *tr = tu_write("dm.trace", "amsim-trace v1\nalloc 1 4MiB\nalloc 2 4MiB\n"
                              "alloc 3 1MiB level=hbm\noom 1MiB\ndefrag\nfree 1\nfree 2\n"
                              "free 3\n");
    const char *nat = tmp("dm0.nat"), *bin = tmp("dm0.amsb"), *back = tmp("dm0b.nat");
    CU_ASSERT_EQUAL_FATAL(convert(tr, nat, "native", NULL), 0);
    CU_ASSERT_EQUAL_FATAL(convert(tr, bin, "binary", NULL), 0);
    CU_ASSERT_EQUAL_FATAL(convert(bin, back, "native", NULL), 0);
    const char *body = "alloc 1 4194304\nalloc 2 4194304\nalloc 3 1048576 level=hbm\n"
                       "oom 1048576\ndefrag\nfree 1\nfree 2\nfree 3\n";
    const char *paths[] = {nat, back};
    for (int k = 0; k < 2; k++) {
        char *text = tu_slurp(paths[k], NULL);
        const char *b = text ? strstr(text, ")\n") : NULL;
        CU_ASSERT_STRING_EQUAL(b ? b + 2 : "", body);
        free(text);
    }
    char *want = placements(cfg, tr, NULL);
    const char *forms[] = {nat, bin};
    for (int k = 0; k < 2; k++) {
        char *got = placements(cfg, forms[k], NULL);
        CU_ASSERT_STRING_EQUAL(got, want);
        free(got);
    }
    CU_ASSERT_PTR_NOT_NULL(strstr(want, "host"));
    free(want);
    /* a lifetime CSV's rows are in the default memory too */
    const char *csv = tu_write("dm.csv", "id,lower,upper,size\n1,0,2,4096\n");
    CU_ASSERT_EQUAL_FATAL(convert(csv, nat, "native", NULL), 0);
    char *text = tu_slurp(nat, NULL);
    CU_ASSERT(text && strstr(text, "\nalloc 1 4096 at=0\n"));
    free(text);
}

/* A validated=1 trace with no recorded address: a CSV cannot say it, and the notes name the
 * loss (until 2026-11-28 it was lost in silence). */
static void test_csv_validated_note(void)
{
    const char *tr = tu_write("vn.trace", "amsim-trace v1 validated=1\nalloc 1 4096\nfree 1\n");
    char args[4096], *err = NULL;
    snprintf(args, sizeof args, "convert '%s' -o '%s' --to csv", tr, tmp("vn.csv"));
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, &err), 0);
    CU_ASSERT(err && strstr(err, "amsim convert: the trace is validated from its "
                            "start (validated=1, as a snapshot is)"));
    free(err);
    /* nothing to say of a trace that is not */
    tr = tu_write("vn0.trace", "amsim-trace v1\nalloc 1 4096\nfree 1\n");
    err = NULL;
    snprintf(args, sizeof args, "convert '%s' -o '%s' --to csv", tr, tmp("vn.csv"));
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, &err), 0);
    CU_ASSERT_FALSE(err && strstr(err, "validated"));
    free(err);
}

/* The CSV notes name the input with its control bytes escaped, as messages do, and say
 * "1 byte" (until 2026-11-28 the ESC went out raw and the peak read "1 bytes"). */
static void test_csv_notes_escaped(void)
{
    const char *tr = tu_write("nf\x1b[31mred.trace", "amsim-trace v1\nalloc 1 1 addr=0\n"
                              "alloc 2 1\n");
    char args[4096], *err = NULL;
    snprintf(args, sizeof args, "convert '%s' -o '%s' --to csv", tr, tmp("esc.csv"));
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, &err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(err);
    CU_ASSERT_PTR_NULL(strchr(err, '\x1b'));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "nf\\x1b[31mred.trace:2:1"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "nf\\x1b[31mred.trace:3:1"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "peak live 2 bytes as in the trace"));
    free(err);
    tr = tu_write("one.trace", "amsim-trace v1\nalloc 1 1\nfree 1\n");
    err = NULL;
    snprintf(args, sizeof args, "convert '%s' -o '%s' --to csv", tr, tmp("esc.csv"));
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, &err), 0);
    CU_ASSERT(err && strstr(err, "peak live 1 byte as in the trace"));
    free(err);
}

void suite_convert(void)
{
    TU_SUITE("convert", {"native -> csv -> native: same placements", test_native_csv_native},
             {"csv: a peak live past 2^64 bytes printed exactly", test_csv_peak_past_2_64},
             {"snapshot -> native: same validation", test_snapshot_native},
             {"csv offsets validated as native and binary addr=", test_csv_offsets_validated},
             {"native writer round-trips every field", test_writer_fields},
             {"gzip inputs read transparently", test_gzip},
             {"binary form round trip and truncation", test_binary},
             {"an explicit defrag in native, binary and CSV forms", test_defrag_forms},
             {"binary level table larger than the read buffer", test_binary_big_header},
             {"native -> csv keeps peak live (donations, into=) or refuses", test_csv_peak_live},
             {"native -> csv: ids out of sequence, each buffer written", test_csv_scattered_ids},
             {"native -> csv names the kinds of events it drops", test_csv_dropped_kinds},
             {"snapshot: a segment taken again and again is declared once",
              test_snapshot_declares_once},
             {"native -> csv in the config's inclusive lifetimes", test_csv_inclusive},
             {"native -> csv: buffers never freed get an empty upper", test_csv_never_freed},
             {"native -> csv: ticks past the config's time unit refused", test_csv_ticks_in_range},
             {"native -> csv refuses what run refuses (ids, events)", test_csv_engine_rules},
             {"native -> csv: the offset column, or what its absence loses",
              test_csv_partial_addresses},
             {"a binary input's positions are FILE:RECORD in the notes",
              test_binary_positions_without_column},
             {"a file name's control characters escaped in the output", test_control_path},
             {"check and csv hold the live buffers' rows, not every event's",
              test_csv_memory_follows_live},
             {"skipped rows carried into every form", test_skipped_carried},
             {"a snapshot's validation carried into native and binary", test_validation_carried},
             {"native -> csv: the start state's rows validate nothing", test_csv_prologue},
             {"events naming no level stay so in native and binary",
              test_default_level_unnamed},
             {"native -> csv names a validated=1 trace's lost validation",
              test_csv_validated_note},
             {"csv notes escape the input's name and say 1 byte", test_csv_notes_escaped});
}
