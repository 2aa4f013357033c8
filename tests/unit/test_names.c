/* test_names.c - trace `name=` labels in the outputs: out-of-memory events (summary JSON, text
 * report, Chrome instant), named compute and transfer slices in the Chrome trace, and the
 * same outputs from the binary form of a trace. Until 2026-11-28 no output showed a name. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* One level of 10 MiB, a host level and a link between them. */
static const char *names_cfg(void)
{
    return tu_write("names.yaml", "version: 1\nmemories:\n"
                    "  hbm: {capacity: 10MiB, allocator: {policy: best_fit}}\n"
                    "  host: {kind: host, capacity: 1GiB, allocator: {policy: best_fit}}\n"
                    "links:\n  pcie: {from: host, to: hbm, bandwidth: 1GB/s, latency: 1us}\n");
}

/* Run `run -c CFG -t TRACE` with the summary JSON, the report and the Chrome trace written to
 * the test directory under prefix tag; *json, *report and *chrome get them (caller frees). */
static void names_run(const char *cfg, const char *trace, const char *tag, char **json,
                      char **report, char **chrome)
{
    char args[2048], js[512], ch[512];
    snprintf(js, sizeof js, "%s/%s.json", tu_tmpdir(), tag);
    snprintf(ch, sizeof ch, "%s/%s.chrome.json", tu_tmpdir(), tag);
    snprintf(args, sizeof args, "run -c '%s' -t '%s' --json '%s' --chrome-trace '%s'", cfg, trace,
             js, ch);
    char *err = NULL;
    int rc = tu_amsim(args, report, &err);
    if (rc != 0)
        printf("\namsim %s: status %d: %s\n", args, rc, err ? err : "");
    free(err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    *json = tu_slurp(js, NULL);
    *chrome = tu_slurp(ch, NULL);
    CU_ASSERT_FATAL(*json && *chrome);
}

/* A named request that runs out of memory: its oom_events entry, its report line and its Chrome
 * instant carry the name, escaped in JSON (a quote, a backslash, UTF-8 kept). Request 2 takes
 * the slot id 1 left, named: its failure is unnamed all the same (name null, no report line, no
 * args.name), not the label a freed buffer left behind. */
static void test_oom_name(void)
{
    const char *tr = tu_write("oomn.trace", "amsim-trace v1\nalloc 1 4MiB name=fc1.weight\n"
                              "free 1\nalloc 2 20MiB\nalloc 3 20MiB name=q\"b\\c\xc3\xa9\n");
    char *js, *rep, *ch;
    names_run(names_cfg(), tr, "oomn", &js, &rep, &ch);
    CU_ASSERT(strstr(js, "\"seq\": 2,\n      \"id\": 2,\n      \"level\": \"hbm\",\n"
                         "      \"name\": null,") != NULL);
    CU_ASSERT(strstr(js, "\"seq\": 3,\n      \"id\": 3,\n      \"level\": \"hbm\",\n"
                         "      \"name\": \"q\\\"b\\\\c\xc3\xa9\",") != NULL);
    CU_ASSERT(strstr(rep, "out of memory: 2 allocation requests failed (the run continued)\n"
                          "  q\"b\\c\xc3\xa9: id 3, 20.00 MiB on hbm at 0 ps (event 3)\n") != NULL);
    CU_ASSERT_EQUAL(tu_count(rep, ": id "), 1);
    CU_ASSERT(strstr(ch, "\"args\":{\"seq\":2,\"id\":2,\"requested\":20971520}}") != NULL);
    CU_ASSERT(strstr(ch, "\"args\":{\"seq\":3,\"id\":3,\"requested\":20971520,"
                         "\"name\":\"q\\\"b\\\\c\xc3\xa9\"}}") != NULL);
    if (!strstr(rep, ": id 3"))
        printf("\n%s", rep);
    free(js), free(rep), free(ch);

    /* the same trace without names: no name anywhere but the JSON's nulls */
    tr = tu_write("oomu.trace", "amsim-trace v1\nalloc 1 4MiB\nfree 1\nalloc 2 20MiB\n"
                  "alloc 3 20MiB\n");
    names_run(names_cfg(), tr, "oomu", &js, &rep, &ch);
    CU_ASSERT_EQUAL(tu_count(js, "\"name\": null,"), 2);
    CU_ASSERT(strstr(rep, "(the run continued)\n") != NULL);
    CU_ASSERT_EQUAL(tu_count(rep, ": id "), 0);
    CU_ASSERT_EQUAL(tu_count(ch, "\"cat\":\"oom\""), 2);
    CU_ASSERT_EQUAL(tu_count(ch, "\"name\":\"q"), 0);
    CU_ASSERT(strstr(ch, "\"args\":{\"seq\":3,\"id\":3,\"requested\":20971520}}") != NULL);
    free(js), free(rep), free(ch);
}

/* A named request that waits for frees (BFC's retry_after_free) and runs out at its deadline,
 * long after the reader moved on from its line: its event still has its name. */
static void test_oom_name_after_wait(void)
{
    const char *cfg = tu_write("nw.yaml", "version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n"
                               "    allocator: {policy: bfc, memory_limit: 1MiB, allow_growth: "
                               "false, retry_after_free: true, retry_wait: 5us}\n");
    const char *tr = tu_write("nw.trace", "amsim-trace v1\nalloc 1 768KiB name=x\n"
                              "alloc 2 512KiB name=late.buf\ncompute 100us name=k\nsync\n"
                              "alloc 3 1KiB at=200us name=y\n");
    char *js, *rep, *ch;
    names_run(cfg, tr, "nw", &js, &rep, &ch);
    CU_ASSERT(strstr(js, "\"id\": 2,\n      \"level\": \"hbm\",\n      \"name\": \"late.buf\",")
              != NULL);
    CU_ASSERT(strstr(rep, "  late.buf: id 2, 512.00 KiB on hbm at 5.000 us (event 1)\n") != NULL);
    if (!strstr(rep, "late.buf"))
        printf("\n%s", rep);
    CU_ASSERT(strstr(ch, "\"requested\":524288,\"name\":\"late.buf\"}}") != NULL);
    free(js), free(rep), free(ch);
}

/* A named compute or transfer is shown by its name in the Chrome trace, its kind in args.op
 * (a transfer's channel in args.link), its category unchanged; an unnamed one is as before. The
 * link track keeps the channel's name. */
static void test_chrome_op_names(void)
{
    const char *tr = tu_write("ops.trace", "amsim-trace v1\ncompute 3us name=fc1.fwd\n"
                              "compute 2us\ntransfer host hbm 1000 name=h2d\"\\\xc3\xa9\n"
                              "transfer host hbm 1000\n");
    char *js, *rep, *ch;
    names_run(names_cfg(), tr, "ops", &js, &rep, &ch);
    CU_ASSERT(strstr(ch, "{\"name\":\"fc1.fwd\",\"cat\":\"compute\",\"ph\":\"X\",\"ts\":0.000000,"
                         "\"dur\":3.000000,\"pid\":1,\"tid\":0,\"args\":{\"op\":\"compute\"}}") != NULL);
    CU_ASSERT(strstr(ch, "{\"name\":\"compute\",\"cat\":\"compute\",\"ph\":\"X\",\"ts\":3.000000,"
                         "\"dur\":2.000000,\"pid\":1,\"tid\":0,\"args\":{}}") != NULL);
    CU_ASSERT(strstr(ch, "{\"name\":\"h2d\\\"\\\\\xc3\xa9\",\"cat\":\"transfer\",\"ph\":\"X\","
                         "\"ts\":5.000000,\"dur\":2.000000,\"pid\":1,\"tid\":0,\"args\":{\"op\":"
                         "\"transfer\",\"link\":\"pcie host>hbm\",\"bytes\":1000,\"stream\":0}}")
              != NULL);
    CU_ASSERT(strstr(ch, "{\"name\":\"pcie host>hbm\",\"cat\":\"transfer\",\"ph\":\"X\","
                         "\"ts\":7.000000,\"dur\":2.000000,\"pid\":1,\"tid\":0,\"args\":"
                         "{\"bytes\":1000,\"stream\":0}}") != NULL);
    CU_ASSERT_EQUAL(tu_count(ch, "\"name\":\"pcie host>hbm\",\"cat\":\"transfer\""), 3);
    free(js), free(rep), free(ch);
}

/* Many named ops queued on a stream at once, unnamed ones between them, with the host blocked
 * by a short queue or not: each slice has its own op's name, in issue order (the copies are
 * kept while the ops wait, past the ring's and the copies' first growth). */
static void test_chrome_queued_names(void)
{
    char *t = malloc(16384), *p = t;
    p += sprintf(p, "amsim-trace v1\n");
    for (int i = 0; i < 60; i++)
        p += sprintf(p, i % 3 == 2 ? "compute %dus stream=1\n" : "compute %dus stream=1 name=c%d\n",
                     i + 1, i);
    const char *tr = tu_write("q.trace", t);
    free(t);
    static const int depths[] = {2, 1000};
    for (int d = 0; d < 2; d++) {
        int depth = depths[d];
        char cfg[64];
        snprintf(cfg, sizeof cfg, "engine: {queue_depth: %d}\n", depth);
        char *c = tu_slurp(names_cfg(), NULL);
        CU_ASSERT_FATAL(c != NULL);
        char *both = malloc(strlen(c) + 64);
        sprintf(both, "%s%s", c, cfg);
        const char *cf = tu_write("qd.yaml", both);
        free(c), free(both);
        char *js, *rep, *ch;
        names_run(cf, tr, "q", &js, &rep, &ch);
        const char *at = ch;
        for (int i = 0; i < 60; i++) {
            char want[64];
            if (i % 3 == 2)
                snprintf(want, sizeof want, "{\"name\":\"compute\",");
            else
                snprintf(want, sizeof want, "{\"name\":\"c%d\",", i);
            const char *f = strstr(at, want);
            CU_ASSERT(f != NULL);
            if (!f) {
                printf("\n  queue_depth %d: op %d: no %s after the one before\n", depth, i, want);
                break;
            }
            at = f + 1;
        }
        CU_ASSERT_EQUAL(tu_count(ch, "\"args\":{\"op\":\"compute\"}"), 40);
        free(js), free(rep), free(ch);
    }
}

/* The binary form carries names (FORMAT.md, "Binary format v1"): a named trace converted to it
 * gives the same out-of-memory names and the same Chrome trace. */
static void test_binary_names(void)
{
    const char *tr = tu_write("bn.trace", "amsim-trace v1\nalloc 1 4MiB name=a\\\"\xc3\xa9\n"
                              "alloc 2 8MiB name=big.one\ncompute 3us name=k\"1\n"
                              "transfer host hbm 1000 name=t\\x stream=1\ncompute 1us\n"
                              "free 1\nalloc 3 8MiB\n");
    char bin[512], args[2048];
    snprintf(bin, sizeof bin, "%s/bn.amtb", tu_tmpdir());
    snprintf(args, sizeof args, "convert '%s' -o '%s' --to binary -c '%s'", tr, bin, names_cfg());
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
    char *j1, *r1, *c1, *j2, *r2, *c2;
    names_run(names_cfg(), tr, "bn_text", &j1, &r1, &c1);
    names_run(names_cfg(), bin, "bn_bin", &j2, &r2, &c2);
    CU_ASSERT_STRING_EQUAL(c1, c2);
    const char *o1 = strstr(j1, "\"oom_events\""), *o2 = strstr(j2, "\"oom_events\"");
    CU_ASSERT_FATAL(o1 && o2);
    CU_ASSERT_STRING_EQUAL(o1, o2);
    CU_ASSERT(strstr(o1, "\"name\": \"big.one\",") != NULL);
    CU_ASSERT(strstr(c1, "\"name\":\"k\\\"1\"") != NULL);
    CU_ASSERT(strstr(c1, "\"name\":\"t\\\\x\"") != NULL);
    const char *l1 = strstr(r1, "out of memory:"), *l2 = strstr(r2, "out of memory:");
    CU_ASSERT_FATAL(l1 && l2);
    CU_ASSERT_STRING_EQUAL(l1, l2);
    CU_ASSERT(strstr(l1, "\n  big.one: id 2, 8.00 MiB on hbm") != NULL);
    free(j1), free(r1), free(c1), free(j2), free(r2), free(c2);
}

/* A recorded out-of-memory's name= (until 2026-11-28 it had none): its oom_events entry (id
 * null), a report line saying "recorded oom" for the id it lacks, args.name of its Chrome
 * marker; the binary form of the trace gives the same. An unnamed one stays as it was. */
static void test_recorded_oom_name(void)
{
    const char *tr = tu_write("ro.trace", "amsim-trace v1\nalloc 1 4MiB\n"
                              "oom 20MiB name=train.py:42:fwd\"\xc3\xa9\noom 30MiB\n");
    char bin[512], args[2048];
    snprintf(bin, sizeof bin, "%s/ro.amtb", tu_tmpdir());
    snprintf(args, sizeof args, "convert '%s' -o '%s' --to binary -c '%s'", tr, bin, names_cfg());
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
    for (int k = 0; k < 2; k++) {
        char *js, *rep, *ch;
        names_run(names_cfg(), k ? bin : tr, k ? "ro_bin" : "ro", &js, &rep, &ch);
        CU_ASSERT(strstr(js, "\"seq\": 1,\n      \"id\": null,\n      \"level\": \"hbm\",\n"
                             "      \"name\": \"train.py:42:fwd\\\"\xc3\xa9\",") != NULL);
        CU_ASSERT(strstr(js, "\"seq\": 2,\n      \"id\": null,\n      \"level\": \"hbm\",\n"
                             "      \"name\": null,") != NULL);
        CU_ASSERT(strstr(rep, "(the run continued)\n  train.py:42:fwd\"\xc3\xa9: recorded oom, "
                              "20.00 MiB on hbm at 0 ps (event 1)\n") != NULL);
        CU_ASSERT_EQUAL(tu_count(rep, ": recorded oom,"), 1);
        CU_ASSERT(strstr(ch, "\"args\":{\"seq\":1,\"id\":null,\"requested\":20971520,"
                             "\"name\":\"train.py:42:fwd\\\"\xc3\xa9\"}}") != NULL);
        CU_ASSERT(strstr(ch, "\"args\":{\"seq\":2,\"id\":null,\"requested\":31457280}}")
                  != NULL);
        if (!strstr(rep, "recorded oom"))
            printf("\n%s", rep);
        free(js), free(rep), free(ch);
    }
}

/* A recorded out-of-memory takes name= as an alloc does (until 2026-11-28 refused: "unknown
 * field 'name' for oom"): `check` accepts it, and text -> binary -> text keeps it, escaped
 * bytes and all, on the oom line only. */
static void test_oom_line_name_forms(void)
{
    const char *tr = tu_write("ol.trace", "amsim-trace v1\nalloc 1 4MiB\n"
                              "oom 20MiB name=train.py:42:fwd\"\xc3\xa9 stream=1\noom 1MiB\n");
    char bin[512], back[512], args[2048], *out = NULL;
    snprintf(args, sizeof args, "check '%s' -c '%s'", tr, names_cfg());
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    CU_ASSERT(out && strstr(out, "trace ok") != NULL);
    free(out);
    snprintf(bin, sizeof bin, "%s/ol.amtb", tu_tmpdir());
    snprintf(back, sizeof back, "%s/ol.back.trace", tu_tmpdir());
    snprintf(args, sizeof args, "convert '%s' -o '%s' --to binary -c '%s'", tr, bin, names_cfg());
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
    snprintf(args, sizeof args, "convert '%s' -o '%s' -c '%s'", bin, back, names_cfg());
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
    char *c = tu_slurp(back, NULL);
    CU_ASSERT_FATAL(c != NULL);
    CU_ASSERT(strstr(c, "\noom 20971520 stream=1 name=train.py:42:fwd\"\xc3\xa9\n"
                        "oom 1048576\n") != NULL);
    CU_ASSERT_EQUAL(tu_count(c, " name="), 1);
    if (!strstr(c, "name=train"))
        printf("\n%s", c);
    free(c);
}

/* The PyTorch snapshot export: a named allocation's alloc entry has one frame {"name": TAG,
 * "filename": "", "line": 0}, the others none, and so has a named request's oom entry (big,
 * which fails; until 2026-11-28 its oom entry had no frames); the named and the unnamed export
 * replay to the same placements, and the same summary but for the failure's name. The reader
 * takes that frame back as the name (until 2026-11-28 it skipped frames): `convert` writes the
 * names as they were, and a replay on less memory names the request that fails. */
static void test_snapshot_frames(void)
{
    static const char *body[2] = {
        "amsim-trace v1\nalloc 1 4MiB name=fc1.weight\nalloc 2 1MiB name=a\"b\\c\xc3\xa9\n"
        "alloc 4 1MiB\nfree 2\nalloc 3 20MiB name=big\ncompute 1us name=k\n",
        "amsim-trace v1\nalloc 1 4MiB\nalloc 2 1MiB\nalloc 4 1MiB\nfree 2\nalloc 3 20MiB\n"
        "compute 1us\n"};
    char *pl[2] = {NULL, NULL}, *js[2] = {NULL, NULL}, snap[2][512], args[4096];
    for (int k = 0; k < 2; k++) {
        char n[32], out[512], o2[512];
        snprintf(n, sizeof n, "sf%d.trace", k);
        const char *tr = tu_write(n, body[k]);
        snprintf(snap[k], sizeof snap[k], "%s/sf%d.pickle", tu_tmpdir(), k);
        snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --pytorch-snapshot '%s'", names_cfg(),
                 tr, snap[k]);
        CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
        snprintf(out, sizeof out, "%s/sf%d.csv", tu_tmpdir(), k);
        snprintf(o2, sizeof o2, "%s/sf%d.json", tu_tmpdir(), k);
        snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --placements '%s' --json '%s'",
                 names_cfg(), snap[k], out, o2);
        CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
        pl[k] = tu_slurp(out, NULL);
        char *j = tu_slurp(o2, NULL);
        CU_ASSERT_FATAL(pl[k] && j);
        /* the summary from its oom_events on: the part before names the input file */
        js[k] = strdup(strstr(j, "\"oom_events\"") ? strstr(j, "\"oom_events\"") : j);
        free(j);
    }
    CU_ASSERT_STRING_EQUAL(pl[0], pl[1]);
    CU_ASSERT(strstr(js[0], "\"id\": null,\n      \"level\": \"hbm\",\n      \"name\": \"big\",")
              != NULL);
    CU_ASSERT(strstr(js[1], "\"id\": null,\n      \"level\": \"hbm\",\n      \"name\": null,")
              != NULL);
    const char *q0 = strstr(js[0], "\"requested\""), *q1 = strstr(js[1], "\"requested\"");
    CU_ASSERT_FATAL(q0 && q1);
    CU_ASSERT_STRING_EQUAL(q0, q1); /* the rest, from the failure's requested bytes on */
    for (int k = 0; k < 2; k++)
        free(pl[k]), free(js[k]);
    for (int k = 0; k < 2; k++) { /* export -> convert keeps the names, exactly */
        char out[512];
        snprintf(out, sizeof out, "%s/sf%d.conv.trace", tu_tmpdir(), k);
        snprintf(args, sizeof args, "convert '%s' -o '%s'", snap[k], out);
        CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
        char *c = tu_slurp(out, NULL);
        CU_ASSERT_FATAL(c != NULL);
        CU_ASSERT_EQUAL(tu_count(c, " name="), k ? 0 : 3);
        if (k == 0) {
            CU_ASSERT(strstr(c, "\noom 20971520 name=big ") != NULL);
            CU_ASSERT(strstr(c, "alloc 1 4194304 addr=0 name=fc1.weight ") != NULL);
            CU_ASSERT(strstr(c, " name=a\"b\\c\xc3\xa9 ") != NULL);
        }
        free(c);
    }
    /* 4 MiB: the named request for 1 MiB fails, and its out-of-memory event names it */
    const char *small = tu_write("names4.yaml", "version: 1\nmemories:\n"
                                 "  hbm: {capacity: 4MiB, allocator: {policy: best_fit}}\n");
    char *j4, *r4, *c4;
    names_run(small, snap[0], "sf4", &j4, &r4, &c4);
    CU_ASSERT(strstr(j4, "\"name\": \"a\\\"b\\\\c\xc3\xa9\",") != NULL);
    CU_ASSERT(strstr(r4, "  a\"b\\c\xc3\xa9: id 2, 1.00 MiB on hbm") != NULL);
    free(j4), free(r4), free(c4);
    if (system("python3 -c pass >/dev/null 2>&1") != 0) {
        printf("skipped: python3 not found\n");
        return;
    }
    const char *py = tu_write("frames.py",
        "import pickle, sys\n"
        "for p in sys.argv[1:]:\n"
        "    d = pickle.load(open(p, 'rb'))\n"
        "    for e in d['device_traces'][0]:\n"
        "        print(e['action'], e['frames'])\n"
        "    print('segments', [b['frames'] for s in d['segments'] for b in s['blocks']])\n");
    char txt[512];
    snprintf(txt, sizeof txt, "%s/frames.txt", tu_tmpdir());
    snprintf(args, sizeof args, "python3 '%s' '%s' '%s' > '%s'", py, snap[0], snap[1], txt);
    CU_ASSERT_EQUAL_FATAL(system(args), 0);
    char *t = tu_slurp(txt, NULL);
    CU_ASSERT_FATAL(t != NULL);
    CU_ASSERT(strstr(t, "alloc [{'name': 'fc1.weight', 'filename': '', 'line': 0}]\n"
                        "segment_alloc []\n"
                        "alloc [{'name': 'a\"b\\\\c\xc3\xa9', 'filename': '', 'line': 0}]\n"
                        "alloc []\nfree_requested []\nfree_completed []\n"
                        "oom [{'name': 'big', 'filename': '', 'line': 0}]\n") != NULL);
    CU_ASSERT(strstr(t, "\noom []\n") != NULL); /* the unnamed run's */
    CU_ASSERT_EQUAL(tu_count(t, "'name'"), 3);
    CU_ASSERT_EQUAL(tu_count(t, "\nalloc []"), 1 + 3); /* id 4; the unnamed run's three */
    if (tu_count(t, "'name'") != 3)
        printf("\n%s", t);
    free(t);
}

/* A PyTorch snapshot's oom entry holds the failing request's stack: the reader names it from
 * its frames as it names an alloc entry (the innermost user frame, BASENAME:LINE:FUNCTION;
 * until 2026-11-28 no name), so `convert` writes it on the oom line and a replay's oom_events
 * entry and report line name the line that ran out. One without frames stays unnamed. */
static void test_snapshot_oom_frames(void)
{
    if (system("python3 -c pass >/dev/null 2>&1") != 0) {
        printf("skipped: python3 not found\n");
        return;
    }
    const char *py = tu_write("oomsnap.py",
        "import pickle, sys\n"
        "fr = lambda n, f, l: {'name': n, 'filename': f, 'line': l}\n"
        "torch = fr('_call_impl', '/venv/lib/python3.12/site-packages/torch/nn/modules/"
        "module.py', 1736)\n"
        "e = lambda a, size, t, frames, **k: dict(action=a, size=size, stream=0, time_us=t, "
        "frames=frames, **k)\n"
        "tr = [e('segment_alloc', 4194304, 1, [], addr=0),\n"
        "      e('alloc', 4194304, 1, [fr('forward', '/home/u/model.py', 54)], addr=0),\n"
        "      e('oom', 20971520, 2, [torch, fr('step', '/home/u/train.py', 77),\n"
        "                             fr('<module>', '/home/u/train.py', 9)], device_free=0),\n"
        "      e('oom', 8388608, 3, [], device_free=0)]\n"
        "pickle.dump({'segments': [], 'device_traces': [tr]}, open(sys.argv[1], 'wb'), "
        "protocol=4)\n");
    char snap[512], conv[512], args[2048];
    snprintf(snap, sizeof snap, "%s/oomsnap.pickle", tu_tmpdir());
    snprintf(conv, sizeof conv, "%s/oomsnap.trace", tu_tmpdir());
    snprintf(args, sizeof args, "python3 '%s' '%s'", py, snap);
    CU_ASSERT_EQUAL_FATAL(system(args), 0);
    snprintf(args, sizeof args, "convert '%s' -o '%s'", snap, conv);
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
    char *c = tu_slurp(conv, NULL);
    CU_ASSERT_FATAL(c != NULL);
    CU_ASSERT(strstr(c, "\nalloc 1 4194304 addr=0 name=model.py:54:forward at=0\n"
                        "oom 20971520 name=train.py:77:step at=1000000\n"
                        "oom 8388608 at=2000000\n") != NULL);
    if (!strstr(c, "name=train.py"))
        printf("\n%s", c);
    free(c);
    char *js, *rep, *ch;
    names_run(names_cfg(), snap, "oomsnap", &js, &rep, &ch);
    CU_ASSERT(strstr(js, "\"id\": null,\n      \"level\": \"hbm\",\n"
                         "      \"name\": \"train.py:77:step\",") != NULL);
    CU_ASSERT_EQUAL(tu_count(js, "\"name\": null,"), 1);
    CU_ASSERT(strstr(rep, "\n  train.py:77:step: recorded oom, 20.00 MiB on hbm at 1.000 us "
                          "(event 3)\n") != NULL);
    CU_ASSERT(strstr(ch, "\"requested\":20971520,\"name\":\"train.py:77:step\"}}") != NULL);
    free(js), free(rep), free(ch);
}

/* A buffer a compaction moves keeps its name in the snapshot export: the alloc entry at its
 * new place has its frame, so the export's replay (convert) has the name from then on (until
 * 2026-11-28 that entry had no frame). 1, 2, 3 of 1 MiB in 4 MiB, 1 and 3 freed: 3 MiB fits
 * only once b moves from 1 MiB to 0. */
static void test_snapshot_moved_name(void)
{
    const char *cfg = tu_write("names_dm.yaml", "version: 1\nmemories:\n  hbm: {capacity: 4MiB, "
                               "allocator: {policy: best_fit}, defrag: {mode: compact, trigger: "
                               "on_oom}}\nlinks:\n  hbm_copy: {from: hbm, to: hbm, bandwidth: "
                               "1TB/s}\n");
    const char *tr = tu_write("names_dm.trace", "amsim-trace v1\nalloc 1 1MiB name=a\n"
                              "alloc 2 1MiB name=b\nalloc 3 1MiB name=c\nfree 1\nfree 3\n"
                              "alloc 4 3MiB name=d\n");
    char snap[512], conv[512], args[2048];
    snprintf(snap, sizeof snap, "%s/names_dm.pickle", tu_tmpdir());
    snprintf(conv, sizeof conv, "%s/names_dm.conv.trace", tu_tmpdir());
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --pytorch-snapshot '%s'", cfg, tr, snap);
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
    snprintf(args, sizeof args, "convert '%s' -o '%s'", snap, conv);
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
    char *c = tu_slurp(conv, NULL);
    CU_ASSERT_FATAL(c != NULL);
    CU_ASSERT(strstr(c, "\nalloc 4 1048576 addr=0 name=b at=0\n"
                        "alloc 5 3145728 addr=1048576 name=d at=0\n") != NULL);
    if (!strstr(c, "addr=0 name=b at=0"))
        printf("\n%s", c);
    free(c);
}

/* `run ARGS --placements FILE` with cfg and trace written under tag: the CSV (caller frees). */
static char *names_placements(const char *cfg, const char *trace, const char *tag,
                              const char *extra)
{
    char args[2048], csv[512];
    snprintf(csv, sizeof csv, "%s/%s.csv", tu_tmpdir(), tag);
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --placements '%s' %s", cfg, trace, csv,
             extra);
    char *err = NULL;
    int rc = tu_amsim(args, NULL, &err);
    if (rc != 0)
        printf("\namsim %s: status %d: %s\n", args, rc, err ? err : "");
    free(err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    char *c = tu_slurp(csv, NULL);
    CU_ASSERT_FATAL(c != NULL);
    return c;
}

/* --placements-names: every row gets its request's name, or its buffer's on a row the runtime
 * wrote (spilled, restored), quoted as RFC 4180 says when it holds a comma or a quote, empty
 * for none (3); an oom row (4) has its request's. Without the option the CSV is the contract's,
 * names or not. (Until 2026-11-28 the CSV had no names.) */
static void test_placements_names_spill(void)
{
    const char *cfg = tu_write("pn_spill.yaml", "version: 1\ndevice: h100\nmemories:\n  hbm:\n"
                               "    capacity: 4MiB\n    allocator: {policy: bfc, memory_limit: "
                               "4MiB, allow_growth: true}\n    on_oom: spill_to_host\n"
                               "    spill_host: host\n");
    const char *tr = tu_write("pn_spill.trace", "amsim-trace v1\n"
                              "alloc 1 2MiB name=model.py:101:forward\nalloc 2 2MiB name=a,\"b\"\n"
                              "alloc 3 2MiB\nuse 1\nalloc 4 64MiB name=big\nfree 1\nfree 2\n"
                              "free 3\n");
    static const char *const rows[] = {
        "0,1,hbm,0,2097152,2097152,ok",          "1,2,hbm,2097152,2097152,2097152,ok",
        "2,1,host,0,2097152,2097152,spilled",    "2,3,hbm,0,2097152,2097152,ok",
        "3,2,host,2097152,2097152,2097152,spilled",
        "3,1,hbm,2097152,2097152,2097152,restored", "4,4,hbm,,67108864,,oom"};
    static const char *const names[] = {"model.py:101:forward", "\"a,\"\"b\"\"\"",
                                        "model.py:101:forward", "", "\"a,\"\"b\"\"\"",
                                        "model.py:101:forward", "big"};
    char want[2048], plain[2048];
    int n = snprintf(want, sizeof want, "seq,id,level,address,requested,allocated,status,name\n");
    int m = snprintf(plain, sizeof plain, "seq,id,level,address,requested,allocated,status\n");
    for (int i = 0; i < 7; i++) {
        n += snprintf(want + n, sizeof want - (size_t)n, "%s,%s\n", rows[i], names[i]);
        m += snprintf(plain + m, sizeof plain - (size_t)m, "%s\n", rows[i]);
    }
    char *c = names_placements(cfg, tr, "pn_spill", "--placements-names");
    CU_ASSERT_STRING_EQUAL(c, want);
    free(c);
    c = names_placements(cfg, tr, "pn_spill_plain", "");
    CU_ASSERT_STRING_EQUAL(c, plain);
    free(c);
    /* -o DIR's placements.csv too, the same bytes as the FILE given with it */
    char args[2048], dir[512], path[600];
    snprintf(dir, sizeof dir, "%s/pn_out", tu_tmpdir());
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' -o '%s' --placements-names", cfg, tr,
             dir);
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
    snprintf(path, sizeof path, "%s/placements.csv", dir);
    c = tu_slurp(path, NULL);
    CU_ASSERT_FATAL(c != NULL);
    CU_ASSERT_STRING_EQUAL(c, want);
    free(c);
    /* a flag that would change nothing is refused */
    char *err = NULL;
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --placements-names", cfg, tr);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 1);
    CU_ASSERT(err && strstr(err, "--placements-names needs --placements FILE or -o DIR") != NULL);
    free(err);
}

/* The rows a defragmentation writes (moved) carry the buffer's name, a matched donation's
 * (donated) and a served recorded `oom` line's (served) their line's. */
static void test_placements_names_moved(void)
{
    const char *cfg = tu_write("pn_mv.yaml", "version: 1\ndevice: h100\nmemories:\n  hbm:\n"
                               "    capacity: 4MiB\n    allocator: {policy: best_fit, "
                               "commit_granularity: 1MiB}\n    defrag: {mode: compact, trigger: "
                               "on_oom}\n");
    const char *tr = tu_write("pn_mv.trace", "amsim-trace v1\nalloc 1 1MiB\nalloc 2 1MiB name=w2\n"
                              "alloc 3 1MiB\nalloc 4 1MiB name=w4\nfree 1\nfree 3\n"
                              "alloc 5 2MiB name=x\nalloc 6 2MiB donate=5 name=don\nfree 2\n"
                              "oom 1MiB name=srv\nsync\n");
    char *c = names_placements(cfg, tr, "pn_mv", "--placements-names");
    CU_ASSERT_STRING_EQUAL(c, "seq,id,level,address,requested,allocated,status,name\n"
                              "0,1,hbm,0,1048576,1048576,ok,\n"
                              "1,2,hbm,1048576,1048576,1048576,ok,w2\n"
                              "2,3,hbm,2097152,1048576,1048576,ok,\n"
                              "3,4,hbm,3145728,1048576,1048576,ok,w4\n"
                              "6,2,hbm,0,1048576,1048576,moved,w2\n"
                              "6,4,hbm,1048576,1048576,1048576,moved,w4\n"
                              "6,5,hbm,2097152,2097152,2097152,ok,x\n"
                              "7,6,hbm,2097152,2097152,2097152,donated,don\n"
                              "9,,hbm,0,1048576,1048576,served,srv\n");
    free(c);
}

static const struct tu_test tests[] = {
    {"an out-of-memory event carries its request's name", test_oom_name},
    {"a wait for frees that runs out keeps its request's name", test_oom_name_after_wait},
    {"chrome trace: named compute and transfer slices", test_chrome_op_names},
    {"chrome trace: queued named ops keep their names", test_chrome_queued_names},
    {"a binary trace's names reach the same outputs", test_binary_names},
    {"an oom line's name= passes check, binary and convert", test_oom_line_name_forms},
    {"a recorded out-of-memory carries its line's name", test_recorded_oom_name},
    {"snapshot: a named allocation's alloc and oom entries have its name as a frame",
     test_snapshot_frames},
    {"snapshot: an oom entry is named from its frames", test_snapshot_oom_frames},
    {"snapshot: a buffer a compaction moves keeps its name", test_snapshot_moved_name},
    {"placements: --placements-names on ok, oom, spilled and restored rows, quoted",
     test_placements_names_spill},
    {"placements: --placements-names on moved, donated and served rows",
     test_placements_names_moved},
};

void suite_names(void) { tu_add_suite("names", tests, sizeof tests / sizeof tests[0]); }
