/* test_names.c - trace `name=` labels in the outputs: out-of-memory events (summary JSON, text
 * report, Chrome instant). Until 2026-11-28 no output showed a name. */
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

static const struct tu_test tests[] = {
    {"an out-of-memory event carries its request's name", test_oom_name},
    {"a wait for frees that runs out keeps its request's name", test_oom_name_after_wait},
};

void suite_names(void) { tu_add_suite("names", tests, sizeof tests / sizeof tests[0]); }
