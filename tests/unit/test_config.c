/* test_config.c - YAML config loading: structs, presets, --set, defaults, every error message,
 * and the effective config written back and loaded again. Works against whatever policy table
 * models/policies.c registers, as long as it has "bfc" (with the options named in
 * configs/devices/h100.yaml) and "best_fit". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glob.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../sim/config.h"
#include "testutil.h"

#define GiB (1024ULL * 1024 * 1024)
#define MiB (1024ULL * 1024)

/* Print what went wrong before the assertion fails, so a failing run explains itself. */
#define ASSERT_HAS(msg, part) do { \
        const char *m_ = (msg), *p_ = (part); \
        if (!strstr(m_, p_)) \
            printf("\n  message:  %s\n  expected: %s\n", m_, p_); \
        CU_ASSERT_PTR_NOT_NULL(strstr(m_, p_)); \
    } while (0)
#define ASSERT_MSG(msg, exact) do { \
        const char *m_ = (msg), *x_ = (exact); \
        if (strcmp(m_, x_) != 0) \
            printf("\n  message:  %s\n  expected: %s\n", m_, x_); \
        CU_ASSERT_STRING_EQUAL(m_, x_); \
    } while (0)

static am_config *load_ok(const char *yaml, const char *const *sets, int nsets)
{
    am_config *c = NULL;
    am_error e = {0};
    int rc = cfg_load_string(&c, "t.yaml", yaml, sets, nsets, &e);
    if (rc != 0)
        printf("\n  unexpected error: %s\n", e.msg);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(e.status, AM_OK);
    return rc == 0 ? c : NULL;
}

static am_config *file_ok(const char *path, const char *const *sets, int nsets)
{
    am_config *c = NULL;
    am_error e = {0};
    int rc = cfg_load(&c, path, sets, nsets, &e);
    if (rc != 0)
        printf("\n  unexpected error: %s\n", e.msg);
    CU_ASSERT_EQUAL(rc, 0);
    return rc == 0 ? c : NULL;
}

/* The load must fail with an input error and leave *cfg untouched; returns the message. */
static const char *load_err(const char *yaml, const char *const *sets, int nsets)
{
    static am_error e;
    static am_config sentinel;
    am_config *c = &sentinel;
    memset(&e, 0, sizeof e);
    int rc = cfg_load_string(&c, "t.yaml", yaml, sets, nsets, &e);
    CU_ASSERT_EQUAL(rc, -1);
    CU_ASSERT_EQUAL(e.status, AM_EINPUT);
    CU_ASSERT_PTR_EQUAL(c, &sentinel);
    if (rc == 0 && c != &sentinel)
        cfg_free(c);
    return e.msg;
}

/* Warnings come in the order of the text they point at: until 2026-11-27 in the order the
 * levels were walked (the preset's: hbm before host), whatever order the file wrote them in.
 * Keys the run ignores are warned about when a --set wrote them, and defrag's too. */
static void test_warnings_in_file_order(void)
{
    am_config *c = load_ok("version: 1\ndevice: h100\nmemories:\n  host:\n    allocator:\n"
                           "      policy: bfc\n      roundup_power2_divisions: 4\n  hbm:\n"
                           "    allocator:\n      policy: bfc\n      max_split_size: 1GiB\n",
                           NULL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c->warnings);
    const char *host = strstr(c->warnings, "t.yaml:7:7: warning: memories.host.allocator.");
    const char *hbm = strstr(c->warnings, "t.yaml:11:7: warning: memories.hbm.allocator.");
    CU_ASSERT(host == c->warnings);
    CU_ASSERT(hbm && host && hbm > host);
    cfg_free(c);
    /* a --set of another policy's key warns too (until 2026-11-27 silently ignored) */
    const char *const set[] = {"memories.hbm.allocator.max_split_size=1GiB"};
    c = load_ok("version: 1\ndevice: h100\nmemories:\n  hbm:\n    allocator: {policy: bfc}\n",
                set, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT(c->warnings && strstr(c->warnings, "--set 'memories.hbm.allocator.max_split_size="
                                    "1GiB': warning: memories.hbm.allocator.max_split_size is "
                                    "an option of caching, not of bfc: ignored\n"));
    cfg_free(c);
    /* defrag options the mode or trigger never reads (until 2026-11-27 silently) */
    c = load_ok("version: 1\ndevice: h100\nmemories:\n  hbm:\n"
                "    defrag: {mode: none, trigger: every}\n", NULL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT(c->warnings && strstr(c->warnings, "t.yaml:5:26: warning: memories.hbm.defrag."
                                    "trigger is read only when defragmenting, and mode is none: "
                                    "ignored\n"));
    cfg_free(c);
    c = load_ok("version: 1\ndevice: h100\nmemories:\n  hbm:\n"
                "    defrag: {mode: compact, threshold: 0.3}\n", NULL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT(c->warnings && strstr(c->warnings, "t.yaml:5:29: warning: memories.hbm.defrag."
                                    "threshold is read only under trigger: threshold, not "
                                    "on_oom: ignored\n"));
    cfg_free(c);
    /* a key that says its default is not worth a warning: the effective config -o writes lists
     * every key (until 2026-11-27 reading it back warned four times a memory) */
    c = load_ok("version: 1\ndevice: h100\nmemories:\n  hbm:\n    defrag: {mode: none, "
                "trigger: on_oom, threshold: 0.5, every: 1000, host: \"\"}\n", NULL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT(!c->warnings || !strstr(c->warnings, "defrag."));
    cfg_free(c);
}

/* YAML's null where a map is expected is an empty map, however it is written (until 2026-11-27
 * `memories:` and `memories: ""` were, `memories: ~` was refused); the preset fills it. */
static void test_null_maps(void)
{
    static const char *const text[] = {
        "version: 1\ndevice: h100\nmemories:\n",
        "version: 1\ndevice: h100\nmemories: \"\"\n",
        "version: 1\ndevice: h100\nmemories: ~\nlinks: null\n",
        "version: 1\ndevice: h100\nmemories:\n  hbm: ~\n",
        "version: 1\ndevice: h100\nmemories:\n  hbm:\n    allocator: NULL\n",
    };
    for (size_t i = 0; i < AM_ARRAY_LEN(text); i++) {
        am_config *c = load_ok(text[i], NULL, 0);
        CU_ASSERT_PTR_NOT_NULL(c);
        if (c) {
            CU_ASSERT(cfg_level_index(c, "hbm", 3) >= 0);
            cfg_free(c);
        }
    }
}

/* Long maps and lists parse in linear time: until 2026-11-27 each append walked the list to its
 * tail and each key was compared with every earlier one (a 200,000-item list took 54 s, 200,000
 * keys 224 s; here each takes well under a second). The duplicate is still found, at the second
 * occurrence, naming the first; and a preset merge under a long map is linear too. Messages
 * about a long --set do not repeat it whole. */
static void test_long_maps_and_lists(void)
{
    enum { N = 200000 };
    size_t cap = (size_t)N * 16 + 256, len = 0;
    char *y = malloc(cap);
    len += (size_t)snprintf(y + len, cap - len, "version: 1\nmemories:\n  hbm:\n"
                            "    capacity: 1GiB\n"
                            "    allocator: {policy: caching, roundup_power2_divisions: [");
    for (int i = 0; i < N; i++)
        len += (size_t)snprintf(y + len, cap - len, i ? ",1" : "1");
    snprintf(y + len, cap - len, "]}\n");
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ASSERT_HAS(load_err(y, NULL, 0), "at most 16 values, got 200000");
    /* N keys under a device's map, merged over the preset, then the same key again */
    len = (size_t)snprintf(y, cap, "version: 1\ndevice: h100\nx:\n");
    for (int i = 0; i < N; i++)
        len += (size_t)snprintf(y + len, cap - len, "  k%d: 1\n", i);
    ASSERT_MSG(load_err(y, NULL, 0), "t.yaml:3:1: unknown key 'x'");
    snprintf(y + len, cap - len, "  k7: 2\n");
    ASSERT_MSG(load_err(y, NULL, 0), "t.yaml:200004:3: duplicate key 'k7' (first at line 11, "
               "column 3)");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    CU_ASSERT(secs < 10.0); /* quadratic, the three took minutes */
    /* a long --set is named by its first 117 characters and "..." */
    len = (size_t)snprintf(y, cap, "memories.hbm.allocator.roundup_power2_divisions=[");
    for (int i = 0; i < 1000; i++)
        len += (size_t)snprintf(y + len, cap - len, i ? ",1" : "1");
    snprintf(y + len, cap - len, "]");
    const char *const set[] = {y};
    const char *m = load_err("version: 1\nmemories:\n  hbm: {capacity: 1GiB}\n", set, 1);
    ASSERT_HAS(m, "--set 'memories.hbm.allocator.roundup_power2_divisions=[1,1,1,1,1,1,1,1,1,1,"
               "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,...': ");
    CU_ASSERT(strlen(m) < 400);
    free(y);
}

/* A policy option's value in the level's options struct, found through its option table. */
static double pol_num(const cfg_level *lv, const char *key)
{
    for (const opt_desc *o = lv->policy->opts; o && o->key; o++) {
        if (strcmp(o->key, key) != 0)
            continue;
        const char *at = (const char *)lv->policy_opts + o->offset;
        int i;
        double d;
        uint64_t u;
        switch (o->type) {
        case OPT_BOOL:
        case OPT_ENUM:
            memcpy(&i, at, sizeof i);
            return i;
        case OPT_REAL:
        case OPT_FRACTION:
            memcpy(&d, at, sizeof d);
            return d;
        case OPT_STRING:
        case OPT_UINT_LIST:
            CU_FAIL("pol_num: not a number option");
            return -1;
        default:
            memcpy(&u, at, sizeof u);
            return (double)u;
        }
    }
    printf("\n  policy %s has no option %s\n", lv->policy->name, key);
    CU_FAIL("no such policy option");
    return -1;
}

static const char *val(const am_config *c, const char *path)
{
    const cfg_node *n = cfg_get(c->root, path);
    if (!n)
        printf("\n  no node at %s\n", path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(n);
    CU_ASSERT_EQUAL_FATAL(n->kind, CFG_SCALAR);
    return n->value;
}

/* tu_tmpdir()/devices, where cfg_load of a config in tu_tmpdir() finds presets. */
static void write_preset(const char *dir, const char *name, const char *text)
{
    char d[512], f[600];
    snprintf(d, sizeof d, "%s/%s", tu_tmpdir(), dir);
    mkdir(d, 0777);
    snprintf(f, sizeof f, "%s/%s.yaml", dir, name);
    tu_write(f, text);
}

static const char *const valid_yaml =
    "version: 1\n"
    "default_memory: hbm\n"
    "memories:\n"
    "  host:\n"
    "    kind: host_pinned\n"
    "    capacity: 512GiB\n"
    "  hbm:\n"
    "    kind: hbm\n"
    "    capacity: 80GiB\n"
    "    granularity: 2MiB\n"
    "    allocator:\n"
    "      policy: bfc\n"
    "      memory_limit: 60GiB\n"
    "      allow_growth: true\n"
    "      retry_wait: 5ms\n"
    "links:\n"
    "  h2d:\n"
    "    from: host\n"
    "    to: hbm\n"
    "    bandwidth: 64GB/s\n"
    "    efficiency: 0.85\n"
    "    latency: 2us\n"
    "    concurrency: 2\n"
    "    duplex: no\n"
    "trace:\n"
    "  lifetimes: inclusive\n"
    "  time_unit: 1us\n"
    "engine:\n"
    "  queue_depth: 8\n"
    "report:\n"
    "  timeline_interval: 1ms\n"
    "  max_oom_events: 3\n";

static void test_valid(void)
{
    am_config *c = load_ok(valid_yaml, NULL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_STRING_EQUAL(c->path, "t.yaml");
    CU_ASSERT_STRING_EQUAL(c->device, "");
    CU_ASSERT_EQUAL_FATAL(c->nlevels, 2);
    const cfg_level *host = &c->levels[0], *hbm = &c->levels[1];
    CU_ASSERT_STRING_EQUAL(host->name, "host");
    CU_ASSERT_STRING_EQUAL(host->kind, "host_pinned");
    CU_ASSERT_EQUAL(host->capacity, 512 * GiB);
    CU_ASSERT_EQUAL(host->granularity, 1);
    CU_ASSERT_PTR_EQUAL(host->policy, alloc_find("best_fit"));
    CU_ASSERT_PTR_EQUAL(host->node, cfg_get(c->root, "memories.host"));
    CU_ASSERT_STRING_EQUAL(hbm->name, "hbm");
    CU_ASSERT_STRING_EQUAL(hbm->kind, "hbm");
    CU_ASSERT_EQUAL(hbm->capacity, 85899345920ULL);
    CU_ASSERT_EQUAL(hbm->granularity, 2 * MiB);
    CU_ASSERT_PTR_EQUAL_FATAL(hbm->policy, alloc_find("bfc"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(hbm->policy_opts);
    CU_ASSERT_DOUBLE_EQUAL(pol_num(hbm, "memory_limit"), (double)(60 * GiB), 0);
    CU_ASSERT_DOUBLE_EQUAL(pol_num(hbm, "allow_growth"), 1, 0);
    CU_ASSERT_DOUBLE_EQUAL(pol_num(hbm, "memory_fraction"), 0.75, 0); /* BFC's default */
    CU_ASSERT_DOUBLE_EQUAL(pol_num(hbm, "retry_wait"), 5e9, 0);
    CU_ASSERT_EQUAL(c->default_level, 1);
    CU_ASSERT_EQUAL(cfg_level_index(c, "hbm", 3), 1);
    CU_ASSERT_EQUAL(cfg_level_index(c, "hostile", 4), 0); /* only len characters count */
    CU_ASSERT_EQUAL(cfg_level_index(c, "hb", 2), -1);

    CU_ASSERT_EQUAL_FATAL(c->nlinks, 1);
    const cfg_link *l = &c->links[0];
    CU_ASSERT_STRING_EQUAL(l->name, "h2d");
    CU_ASSERT_EQUAL(l->from, 0);
    CU_ASSERT_EQUAL(l->to, 1);
    CU_ASSERT_EQUAL(l->bandwidth, 64000000000ULL);
    CU_ASSERT_DOUBLE_EQUAL(l->efficiency, 0.85, 0);
    CU_ASSERT_EQUAL(l->latency, 2 * AM_PS_PER_US);
    CU_ASSERT_EQUAL(l->concurrency, 2);
    CU_ASSERT_EQUAL(l->duplex, 0);

    CU_ASSERT_EQUAL(c->trace.lifetimes_inclusive, 1);
    CU_ASSERT_EQUAL(c->trace.time_unit, AM_PS_PER_US);
    CU_ASSERT_EQUAL(c->engine.queue_depth, 8);
    CU_ASSERT_EQUAL(c->report.timeline_interval, AM_PS_PER_MS);
    CU_ASSERT_EQUAL(c->report.max_oom_events, 3);

    /* positions are 1-based and point at the key */
    const cfg_node *cap = cfg_get(c->root, "memories.hbm.capacity");
    CU_ASSERT_PTR_NOT_NULL_FATAL(cap);
    CU_ASSERT_STRING_EQUAL(cap->file, "t.yaml");
    CU_ASSERT_EQUAL(cap->line, 9);
    CU_ASSERT_EQUAL(cap->col, 5);
    CU_ASSERT_PTR_NULL(cfg_get(c->root, "memories.hbm.nothing"));
    CU_ASSERT_PTR_NULL(cfg_get(c->root, "memories.hbm.capacity.deeper"));
    cfg_free(c);
    cfg_free(NULL);
}

static void test_defaults(void)
{
    am_config *c = load_ok("version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n", NULL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL_FATAL(c->nlevels, 1);
    CU_ASSERT_STRING_EQUAL(c->levels[0].kind, "other");
    CU_ASSERT_EQUAL(c->levels[0].granularity, 1);
    CU_ASSERT_PTR_EQUAL(c->levels[0].policy, alloc_find("best_fit"));
    CU_ASSERT_EQUAL(c->default_level, 0);
    CU_ASSERT_EQUAL(c->nlinks, 0);
    CU_ASSERT_EQUAL(c->trace.lifetimes_inclusive, 0);
    CU_ASSERT_EQUAL(c->trace.time_unit, AM_PS_PER_NS);
    CU_ASSERT_EQUAL(c->engine.queue_depth, 1024);
    CU_ASSERT_EQUAL(c->report.timeline_interval, 0);
    CU_ASSERT_EQUAL(c->report.max_oom_events, 16);
    /* the defaults are in the effective tree, marked as made by amsim (line 0) */
    CU_ASSERT_STRING_EQUAL(val(c, "default_memory"), "hbm");
    CU_ASSERT_STRING_EQUAL(val(c, "memories.hbm.kind"), "other");
    CU_ASSERT_STRING_EQUAL(val(c, "memories.hbm.granularity"), "1B");
    CU_ASSERT_EQUAL(c->levels[0].pad_requests_to, 1); /* requests as written */
    CU_ASSERT_STRING_EQUAL(val(c, "memories.hbm.pad_requests_to"), "1B");
    CU_ASSERT_EQUAL(c->levels[0].transfer_granule, 1); /* transfers as written */
    CU_ASSERT_STRING_EQUAL(val(c, "memories.hbm.transfer_granule"), "1B");
    CU_ASSERT_STRING_EQUAL(val(c, "memories.hbm.allocator.policy"), "best_fit");
    CU_ASSERT_STRING_EQUAL(val(c, "trace.lifetimes"), "half_open");
    CU_ASSERT_STRING_EQUAL(val(c, "trace.time_unit"), "1ns");
    CU_ASSERT_STRING_EQUAL(val(c, "engine.queue_depth"), "1024");
    CU_ASSERT_STRING_EQUAL(val(c, "report.max_oom_events"), "16");
    CU_ASSERT_EQUAL(cfg_get(c->root, "trace.time_unit")->line, 0);
    const cfg_node *links = cfg_get(c->root, "links");
    CU_ASSERT_PTR_NOT_NULL_FATAL(links);
    CU_ASSERT_EQUAL(links->kind, CFG_MAP);
    CU_ASSERT_PTR_NULL(links->child);
    cfg_free(c);

    /* a link's defaults */
    c = load_ok("version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\nlinks:\n"
                "  l: {from: hbm, to: hbm, bandwidth: 1GB/s}\n", NULL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_DOUBLE_EQUAL(c->links[0].efficiency, 1, 0);
    CU_ASSERT_EQUAL(c->links[0].latency, 0);
    CU_ASSERT_EQUAL(c->links[0].concurrency, 0);
    CU_ASSERT_EQUAL(c->links[0].duplex, 1);
    CU_ASSERT_STRING_EQUAL(val(c, "links.l.efficiency"), "1");
    CU_ASSERT_STRING_EQUAL(val(c, "links.l.latency"), "0");
    CU_ASSERT_STRING_EQUAL(val(c, "links.l.concurrency"), "0");
    CU_ASSERT_STRING_EQUAL(val(c, "links.l.duplex"), "true");
    /* top-level keys in schema order */
    static const char *const order[] = {"version", "default_memory", "memories", "links",
                                        "trace", "engine", "report", "transfer_guard"};
    const cfg_node *k = c->root->child;
    for (size_t i = 0; i < AM_ARRAY_LEN(order); i++, k = k->next) {
        CU_ASSERT_PTR_NOT_NULL_FATAL(k);
        CU_ASSERT_STRING_EQUAL(k->key, order[i]);
    }
    CU_ASSERT_PTR_NULL(k);
    cfg_free(c);

    /* a policy's option defaults are all listed, each the default of its table */
    c = load_ok("version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n    allocator:\n"
                "      policy: bfc\n", NULL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    const cfg_node *a = cfg_get(c->root, "memories.hbm.allocator");
    for (const opt_desc *o = c->levels[0].policy->opts; o && o->key; o++) {
        const cfg_node *n = cfg_get(a, o->key);
        CU_ASSERT_PTR_NOT_NULL(n);
        if (n && o->def)
            CU_ASSERT_STRING_EQUAL(n->value, o->def);
    }
    CU_ASSERT_DOUBLE_EQUAL(pol_num(&c->levels[0], "memory_fraction"), 0.75, 0);
    cfg_free(c);

    /* "key:" with nothing after it is an empty map where a map is expected */
    c = load_ok("version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n    allocator:\n"
                "trace:\n", NULL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_PTR_EQUAL(c->levels[0].policy, alloc_find("best_fit"));
    cfg_free(c);
}

static const char *const testdev_yaml =
    "# a preset for the tests\n"
    "version: 1\n"
    "memories:\n"
    "  hbm:\n"
    "    kind: hbm\n"
    "    capacity: 16GiB\n"
    "    allocator:\n"
    "      policy: bfc\n"
    "      memory_fraction: 0.5\n"
    "      garbage_collection: true\n"
    "  host:\n"
    "    kind: host\n"
    "    capacity: 64GiB\n"
    "links:\n"
    "  h2d: {from: host, to: hbm, bandwidth: 10GB/s, latency: 3us}\n";

static const char *const merge_yaml =
    "version: 1\n"
    "device: testdev\n"
    "memories:\n"
    "  hbm:\n"
    "    allocator:\n"
    "      allow_growth: true\n"
    "    capacity: 8GiB\n"
    "  extra:\n"
    "    capacity: 1MiB\n"
    "links:\n"
    "  h2d:\n"
    "    bandwidth: 20GB/s\n";

static void test_preset_merge(void)
{
    write_preset("devices", "testdev", testdev_yaml);
    const char *path = tu_write("merge.yaml", merge_yaml);
    am_config *c = file_ok(path, NULL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_STRING_EQUAL(c->device, "testdev");
    CU_ASSERT_EQUAL_FATAL(c->nlevels, 3);
    /* the preset's order, then the user's new levels */
    CU_ASSERT_STRING_EQUAL(c->levels[0].name, "hbm");
    CU_ASSERT_STRING_EQUAL(c->levels[1].name, "host");
    CU_ASSERT_STRING_EQUAL(c->levels[2].name, "extra");
    const cfg_level *hbm = &c->levels[0];
    CU_ASSERT_STRING_EQUAL(hbm->kind, "hbm");        /* preset */
    CU_ASSERT_EQUAL(hbm->capacity, 8 * GiB);         /* user wins */
    CU_ASSERT_PTR_EQUAL_FATAL(hbm->policy, alloc_find("bfc")); /* preset */
    CU_ASSERT_DOUBLE_EQUAL(pol_num(hbm, "memory_fraction"), 0.5, 0);  /* preset */
    CU_ASSERT_DOUBLE_EQUAL(pol_num(hbm, "garbage_collection"), 1, 0); /* preset */
    CU_ASSERT_DOUBLE_EQUAL(pol_num(hbm, "allow_growth"), 1, 0);       /* user */
    CU_ASSERT_EQUAL(c->levels[1].capacity, 64 * GiB);
    CU_ASSERT_EQUAL(c->levels[2].capacity, 1 * MiB);
    CU_ASSERT_PTR_EQUAL(c->levels[2].policy, alloc_find("best_fit"));
    CU_ASSERT_EQUAL_FATAL(c->nlinks, 1);
    CU_ASSERT_EQUAL(c->links[0].bandwidth, 20000000000ULL);   /* user */
    CU_ASSERT_EQUAL(c->links[0].latency, 3 * AM_PS_PER_US);   /* preset */
    CU_ASSERT_EQUAL(c->links[0].from, 1);
    CU_ASSERT_EQUAL(c->links[0].to, 0);
    /* each node remembers which file it came from; a merged map is the user's */
    const cfg_node *n = cfg_get(c->root, "memories.hbm");
    CU_ASSERT_STRING_EQUAL(n->file, path);
    CU_ASSERT_EQUAL(n->line, 4);
    n = cfg_get(c->root, "memories.hbm.capacity");
    CU_ASSERT_STRING_EQUAL(n->file, path);
    CU_ASSERT_EQUAL(n->line, 7);
    n = cfg_get(c->root, "memories.host.capacity");
    CU_ASSERT_PTR_NOT_NULL(strstr(n->file, "devices/testdev.yaml"));
    CU_ASSERT_EQUAL(n->line, 13);
    cfg_free(c);

    /* an error inside a preset points into the preset */
    write_preset("devices", "broken", "version: 1\nmemories:\n  hbm:\n    capacity: 1 parsec\n");
    path = tu_write("broken.yaml", "version: 1\ndevice: broken\n");
    am_error e = {0};
    CU_ASSERT_EQUAL(cfg_load(&c, path, NULL, 0, &e), -1);
    ASSERT_HAS(e.msg, "devices/broken.yaml:4:5: memories.hbm.capacity: bad size '1 parsec'");
    /* a preset may not chain to another one */
    write_preset("devices", "chain", "device: testdev\n");
    path = tu_write("chain.yaml", "version: 1\ndevice: chain\n");
    CU_ASSERT_EQUAL(cfg_load(&c, path, NULL, 0, &e), -1);
    ASSERT_HAS(e.msg, "devices/chain.yaml:1:1: a device preset cannot name another device");
    /* QA: a preset copied from an effective config, preset_merged: true kept, made the
     * effective config say the key twice (unreadable) and the summary echo it */
    write_preset("devices", "copied", "preset_merged: true\nmemories: {hbm: {capacity: 1GiB}}\n");
    path = tu_write("copied.yaml", "version: 1\ndevice: copied\n");
    CU_ASSERT_EQUAL(cfg_load(&c, path, NULL, 0, &e), -1);
    ASSERT_HAS(e.msg, "devices/copied.yaml:1:1: a device preset cannot say preset_merged");
    /* preset_merged: false merges nothing, with or without a device (review: it was refused
     * without one); true without a device is refused */
    am_config *f = load_ok("version: 1\npreset_merged: false\nmemories:\n  hbm: {capacity: 1MiB}\n",
                           NULL, 0);
    CU_ASSERT_PTR_NOT_NULL(f);
    cfg_free(f);
    ASSERT_HAS(load_err("version: 1\npreset_merged: true\nmemories:\n  hbm: {capacity: 1MiB}\n",
                        NULL, 0),
               "t.yaml:2:1: preset_merged: true, but the config names no device");
}

/* $AMSIM_DEVICES is searched first, before the source tree's presets. */
static void test_preset_env(void)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/envdev", tu_tmpdir());
    write_preset("envdev", "h100", "memories:\n  hbm:\n    capacity: 3GiB\n");
    setenv("AMSIM_DEVICES", dir, 1);
    am_config *c = load_ok("version: 1\ndevice: h100\n", NULL, 0);
    unsetenv("AMSIM_DEVICES");
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL_FATAL(c->nlevels, 1);
    CU_ASSERT_EQUAL(c->levels[0].capacity, 3 * GiB);
    cfg_free(c);
    c = load_ok("version: 1\ndevice: h100\n", NULL, 0); /* the shipped one again */
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(c->levels[0].capacity, 80 * GiB);
    cfg_free(c);
}

static void test_shipped(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/configs/default.yaml", tu_top());
    am_config *c = file_ok(path, NULL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_STRING_EQUAL(c->device, "h100");
    int hbm = cfg_level_index(c, "hbm", 3), host = cfg_level_index(c, "host", 4);
    CU_ASSERT_FATAL(hbm >= 0 && host >= 0);
    CU_ASSERT_EQUAL(c->default_level, hbm);
    CU_ASSERT_EQUAL(c->levels[hbm].capacity, 80 * GiB);
    CU_ASSERT_PTR_EQUAL_FATAL(c->levels[hbm].policy, alloc_find("bfc"));
    CU_ASSERT_DOUBLE_EQUAL(pol_num(&c->levels[hbm], "allow_growth"), 1, 0);
    CU_ASSERT_DOUBLE_EQUAL(pol_num(&c->levels[hbm], "memory_fraction"), 0.75, 0);
    int h2d = -1, copy = -1;
    for (int i = 0; i < c->nlinks; i++) {
        if (c->links[i].from == host && c->links[i].to == hbm)
            h2d = i;
        if (c->links[i].from == hbm && c->links[i].to == hbm)
            copy = i;
    }
    CU_ASSERT_FATAL(h2d >= 0 && copy >= 0);
    CU_ASSERT_EQUAL(c->links[h2d].bandwidth, 64000000000ULL);
    CU_ASSERT_DOUBLE_EQUAL(c->links[h2d].efficiency, 0.85, 0);
    CU_ASSERT_EQUAL(c->links[copy].bandwidth, 3350000000000ULL);
    cfg_free(c);

    c = load_ok("version: 1\ndevice: tpu-v5e\n", NULL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    static const struct {
        const char *name;
        uint64_t bytes;
    } want[] = {{"hbm", 16000000000ULL}, {"vmem", 128 * MiB}, {"smem", MiB},
                {"accumulator", 256 * 1024}, {"host", 0}};
    for (size_t i = 0; i < AM_ARRAY_LEN(want); i++) {
        int k = cfg_level_index(c, want[i].name, strlen(want[i].name));
        CU_ASSERT_FATAL(k >= 0);
        if (want[i].bytes)
            CU_ASSERT_EQUAL(c->levels[k].capacity, want[i].bytes);
    }
    int dma = -1;
    for (int i = 0; i < c->nlinks; i++)
        if (c->links[i].from == cfg_level_index(c, "hbm", 3) &&
            c->links[i].to == cfg_level_index(c, "vmem", 4))
            dma = i;
    CU_ASSERT_FATAL(dma >= 0);
    CU_ASSERT_EQUAL(c->links[dma].bandwidth, 819000000000ULL);
    cfg_free(c);
}

/* trace.time_unit takes the forms a trace header's time_unit= takes (traces/FORMAT.md section
 * 1), a bare unit meaning 1 of it, in the file and by --set: one parser (units_time_unit).
 * Until 2026-11-27 the config refused `us`: "trace.time_unit: bad time 'us': not a number". */
static void test_time_unit_bare(void)
{
    am_config *c = load_ok("version: 1\ndevice: h100\ntrace: {time_unit: us}\n", NULL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(c->trace.time_unit, AM_PS_PER_US);
    cfg_free(c);
    const char *const sets[] = {"trace.time_unit=ms"};
    c = load_ok("version: 1\ndevice: h100\n", sets, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(c->trace.time_unit, AM_PS_PER_MS);
    cfg_free(c);
    const char *const bad[] = {"trace.time_unit=xs"};
    const char *msg = load_err("version: 1\ndevice: h100\n", bad, 1);
    CU_ASSERT(strstr(msg, "trace.time_unit: bad time 'xs': unknown unit") != NULL);
    /* a run reads a trace's unitless times in it: 3 ticks of 1 us, from the file and by --set */
    char cfg[1024], dflt[1024], args[4096];
    snprintf(cfg, sizeof cfg, "%s",
             tu_write("tub.yaml", "version: 1\ndevice: h100\ntrace: {time_unit: us}\n"));
    snprintf(dflt, sizeof dflt, "%s/configs/default.yaml", tu_top());
    const char *tr = tu_write("tub.trace", "amsim-trace v1\ncompute 3\n");
    for (int by_set = 0; by_set < 2; by_set++) {
        snprintf(args, sizeof args, "run -c '%s' -t '%s' %s -q --json -",
                 by_set ? dflt : cfg, tr,
                 by_set ? "--set trace.time_unit=us" : "");
        char *json = NULL;
        CU_ASSERT_EQUAL(tu_amsim(args, &json, NULL), 0);
        static const char want[] = "\"makespan_seconds\": 0.000003,";
        const char *mk = json ? strstr(json, "\"makespan_seconds\"") : NULL;
        CU_ASSERT(mk && strncmp(mk, want, sizeof want - 1) == 0);
        if (!(mk && strncmp(mk, want, sizeof want - 1) == 0))
            printf("\n  %.60s", mk ? mk : "(no makespan)");
        free(json);
    }
}

static void test_set(void)
{
    const char *const sets[] = {
        "memories.hbm.capacity=40GiB",
        "memories.hbm.allocator.memory_limit=1GiB", /* not in the user's file: created */
        "memories.scratch={capacity: 1MiB}",        /* a new level, given whole */
        "links.pcie.latency=5us",
        "engine.queue_depth=\"16\"",                /* YAML quoting is understood */
        "trace.lifetimes=inclusive",
    };
    am_config *c = load_ok("version: 1\ndevice: h100\n", sets, (int)AM_ARRAY_LEN(sets));
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    int hbm = cfg_level_index(c, "hbm", 3), s = cfg_level_index(c, "scratch", 7);
    CU_ASSERT_FATAL(hbm >= 0 && s >= 0);
    CU_ASSERT_EQUAL(c->levels[hbm].capacity, 40 * GiB);
    CU_ASSERT_DOUBLE_EQUAL(pol_num(&c->levels[hbm], "memory_limit"), (double)GiB, 0);
    CU_ASSERT_DOUBLE_EQUAL(pol_num(&c->levels[hbm], "memory_fraction"), 0.75, 0); /* preset */
    CU_ASSERT_EQUAL(c->levels[s].capacity, MiB);
    CU_ASSERT_EQUAL(c->engine.queue_depth, 16);
    CU_ASSERT_EQUAL(c->trace.lifetimes_inclusive, 1);
    int pcie = -1;
    for (int i = 0; i < c->nlinks; i++)
        if (strcmp(c->links[i].name, "pcie") == 0)
            pcie = i;
    CU_ASSERT_FATAL(pcie >= 0);
    CU_ASSERT_EQUAL(c->links[pcie].latency, 5 * AM_PS_PER_US);
    const cfg_node *n = cfg_get(c->root, "memories.hbm.capacity");
    CU_ASSERT_STRING_EQUAL(n->file, "--set 'memories.hbm.capacity=40GiB'");
    CU_ASSERT_EQUAL(n->line, 0);
    cfg_free(c);

    /* --set device= chooses the preset; the last --set of a key wins */
    const char *const dev[] = {"device=tpu-v5e", "memories.vmem.capacity=1MiB",
                               "memories.vmem.capacity=2MiB"};
    c = load_ok("version: 1\ndevice: h100\n", dev, 3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_STRING_EQUAL(c->device, "tpu-v5e");
    int v = cfg_level_index(c, "vmem", 4);
    CU_ASSERT_FATAL(v >= 0);
    CU_ASSERT_EQUAL(c->levels[v].capacity, 2 * MiB);
    cfg_free(c);

    /* a map value merges key by key into the file's map (until 2026-11-27 it replaced it, and
     * the preset's allow_growth false came back from underneath the file's true) */
    const char *const mapv[] = {"memories.hbm.allocator={garbage_collection: true}"};
    c = load_ok("version: 1\ndevice: h100\nmemories:\n  hbm:\n    allocator:\n"
                "      policy: bfc\n      allow_growth: true\n", mapv, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    hbm = cfg_level_index(c, "hbm", 3);
    CU_ASSERT_FATAL(hbm >= 0);
    CU_ASSERT_DOUBLE_EQUAL(pol_num(&c->levels[hbm], "allow_growth"), 1, 0);
    CU_ASSERT_DOUBLE_EQUAL(pol_num(&c->levels[hbm], "garbage_collection"), 1, 0);
    CU_ASSERT_EQUAL(cfg_get(c->root, "memories.hbm.allocator")->line, 5); /* the file's map */
    cfg_free(c);
    /* an empty value for a map is refused: merged, it would set nothing (until 2026-11-27
     * memories= or memories={} silently dropped what the file set there) */
    static const char *const empty[] = {"memories=", "memories={}", "memories.hbm.allocator=",
                                        "memories.hbm.allocator=''", "engine="};
    for (size_t i = 0; i < AM_ARRAY_LEN(empty); i++) {
        const char *m = load_err("version: 1\ndevice: h100\nmemories:\n  hbm: {capacity: 1GiB}\n",
                                 &empty[i], 1);
        ASSERT_HAS(m, "is a map, merged key by key: an empty value would set nothing; set its "
                   "keys (");
    }

    /* a list value replaces the whole node */
    const char *const lst[] = {"memories.hbm.capacity=[1, 2]"};
    ASSERT_MSG(load_err("version: 1\ndevice: h100\n", lst, 1),
               "--set 'memories.hbm.capacity=[1, 2]': memories.hbm.capacity: expected a single "
               "value, not a list");
}

static void test_set_errors(void)
{
    const char *yaml = "version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n";
    static const struct {
        const char *set, *msg;
    } cases[] = {
        {"memories.hbm.capasity=1GiB",
         "--set 'memories.hbm.capasity=1GiB': unknown key 'memories.hbm.capasity' (did you "
         "mean 'capacity'?)"},
        {"memories.hbm.capacity=12parsecs",
         "--set 'memories.hbm.capacity=12parsecs': memories.hbm.capacity: bad size '12parsecs': "
         "unknown unit (sizes: B, KiB, MiB, GiB, TiB, PiB, EiB, KB, MB, GB, TB, PB, EB)"},
        {"nonsense", "--set 'nonsense': expected PATH=VALUE (e.g. memories.hbm.capacity=40GiB)"},
        {"=3", "--set '=3': expected PATH=VALUE (e.g. memories.hbm.capacity=40GiB)"},
        {"memories..hbm=1", "--set 'memories..hbm=1': empty key in path 'memories..hbm'"},
        {"memories.=1", "--set 'memories.=1': empty key in path 'memories.'"},
        {".x=1", "--set '.x=1': empty key in path '.x'"},
        {"version.x=1", "--set 'version.x=1': 'version' is a scalar, not a map"},
        {"memories.hbm.capacity.x=1",
         "--set 'memories.hbm.capacity.x=1': 'memories.hbm.capacity' is a scalar, not a map"},
        {"colour=red", "--set 'colour=red': unknown key 'colour'"},
        /* an allocator option one level too high (until 2026-11-27 no hint) */
        {"memories.hbm.policy=bfc",
         "--set 'memories.hbm.policy=bfc': unknown key 'memories.hbm.policy' (did you mean "
         "'memories.hbm.allocator.policy'? allocator options go under allocator:)"},
        {"memories.hbm.allocator.policy=nope",
         "--set 'memories.hbm.allocator.policy=nope': memories.hbm.allocator.policy: unknown "
         "allocator policy 'nope' (registered: "},
        /* a path through a memory or link nobody defined is a typo, not a new one (until
         * 2026-11-27 it added a level hmb, or failed on a missing 'from' with no hint) */
        {"memories.hmb.capacity=1GiB",
         "--set 'memories.hmb.capacity=1GiB': unknown memory 'hmb' (did you mean 'hbm'?): --set "
         "changes the memories the config defines; give a new one whole, e.g. --set "
         "'memories.hmb={capacity: 1GiB}'"},
        {"memories.zzz.allocator.policy=bfc",
         "--set 'memories.zzz.allocator.policy=bfc': unknown memory 'zzz' (memories: hbm): "},
        {"links.pcei.bandwidth=1GB/s",
         "--set 'links.pcei.bandwidth=1GB/s': unknown link 'pcei' (links: none): "},
    };
    for (size_t i = 0; i < AM_ARRAY_LEN(cases); i++) {
        const char *const one[] = {cases[i].set};
        const char *m = load_err(yaml, one, 1);
        CU_ASSERT_EQUAL(strncmp(m, cases[i].msg, strlen(cases[i].msg)), 0);
        if (strncmp(m, cases[i].msg, strlen(cases[i].msg)) != 0)
            printf("\n  message:  %s\n  expected: %s\n", m, cases[i].msg);
    }
    /* with a preset: its links are candidates too */
    const char *const pcei[] = {"links.pcei.bandwidth=1GB/s"};
    ASSERT_MSG(load_err("version: 1\ndevice: h100\n", pcei, 1),
               "--set 'links.pcei.bandwidth=1GB/s': unknown link 'pcei' (did you mean 'pcie'?): "
               "--set changes the links the config defines; give a new one whole, e.g. --set "
               "'links.pcei={from: host, to: hbm, bandwidth: 64GB/s}'");
    const char *const bad[] = {"memories.hbm.capacity=[1,"};
    ASSERT_MSG(load_err(yaml, bad, 1), "--set 'memories.hbm.capacity=[1,': bad value: did not "
               "find expected node content (while parsing a flow node at line 2, column 1)");
    /* a value of several lines names the --set once, as a one-line value does, with the line
     * and column in the value where it is past the first line (until 2026-11-27 a newline or
     * tab in the value named the --set twice: "bad value:--set '...':2:1: ...") */
    static const struct {
        const char *set, *msg;
    } lines[] = {
        {"memories.hbm.capacity=1GiB\n---\n2GiB",
         "--set 'memories.hbm.capacity=1GiB\\x0a---\\x0a2GiB': bad value: line 2, column 1: a "
         "config holds one YAML document; found a second one"},
        {"memories.hbm={a: 1,\n b: \"\\x01\"}",
         "--set 'memories.hbm={a: 1,\\x0a b: \"\\x01\"}': bad value: line 2, column 5: control "
         "characters are not allowed (byte 0x01, from an escape, in the quoted value at "
         "character 1)"},
        {"memories.hbm.capacity=[1,\n&a 2]",
         "--set 'memories.hbm.capacity=[1,\\x0a&a 2]': bad value: line 2, column 1: YAML "
         "anchors (&a) are not supported in amsim configs; write the value out"},
        /* on the first line no position, as before; a tab is escaped (\x09) as a newline is */
        {"memories.hbm.capacity=\t&a 1GiB",
         "--set 'memories.hbm.capacity=\\x09&a 1GiB': bad value: found character that cannot "
         "start any token"},
        /* unclosed: libyaml's position is past the value's last line, so none */
        {"memories.hbm.capacity=[1,\n2",
         "--set 'memories.hbm.capacity=[1,\\x0a2': bad value: did not find expected ',' or ']' "
         "(while parsing a flow sequence at line 1, column 1)"},
    };
    for (size_t i = 0; i < AM_ARRAY_LEN(lines); i++) {
        const char *const one[] = {lines[i].set};
        const char *m = load_err(yaml, one, 1);
        CU_ASSERT_EQUAL(strncmp(m, lines[i].msg, strlen(lines[i].msg)), 0);
        if (strncmp(m, lines[i].msg, strlen(lines[i].msg)) != 0)
            printf("\n  message:  %s\n  expected: %s\n", m, lines[i].msg);
    }
}

/* An allocator key of another policy than the one in use is accepted and ignored by --set (so
 * --policy, compare and batch switch policies on one config), with a warning where nothing
 * switches the policy, as for the file's keys (until 2026-11-27 none); a key that
 * belongs to no policy at all is a typo, refused with "did you mean" (the nearest key of any
 * policy), under the default policy and under a named one. */
static void test_set_allocator_keys(void)
{
    const char *yaml = "version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n";
    const char *ybfc = "version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n    allocator: "
                       "{policy: bfc}\n";
    const char *const other[] = {"memories.hbm.allocator.max_split_size=64MiB"}; /* caching's */
    am_config *c = load_ok(ybfc, other, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_PTR_EQUAL(c->levels[0].policy, alloc_find("bfc"));
    CU_ASSERT(c->warnings && strstr(c->warnings, "max_split_size is an option of caching, not of "
                                    "bfc: ignored"));
    cfg_free(c);
    static const struct {
        const char *yaml, *set, *msg;
    } cases[] = {
        {NULL, "memories.hbm.allocator.memory_limt=1GiB",
         "--set 'memories.hbm.allocator.memory_limt=1GiB': unknown key "
         "'memories.hbm.allocator.memory_limt' (did you mean 'memory_limit'?)"},
        {"bfc", "memories.hbm.allocator.max_split_sise=64MiB",
         "--set 'memories.hbm.allocator.max_split_sise=64MiB': unknown key "
         "'memories.hbm.allocator.max_split_sise' (did you mean 'max_split_size'?)"},
        {"bfc", "memories.hbm.allocator.alow_growth=true",
         "--set 'memories.hbm.allocator.alow_growth=true': unknown key "
         "'memories.hbm.allocator.alow_growth' (did you mean 'allow_growth'?)"},
        {"bfc", "memories.hbm.allocator.colour=red",
         "--set 'memories.hbm.allocator.colour=red': unknown key "
         "'memories.hbm.allocator.colour'"},
    };
    for (size_t i = 0; i < AM_ARRAY_LEN(cases); i++) {
        const char *const one[] = {cases[i].set};
        ASSERT_MSG(load_err(cases[i].yaml ? ybfc : yaml, one, 1), cases[i].msg);
    }
}

/* A size that is not 0 but rounds to 0 bytes is an error at its position, in the YAML and by
 * --set: 0 means "unset" for memory_limit (use memory_fraction), release_threshold and a
 * level's granularity, and until 2026-11-25 memory_limit=0.4 silently became a 60 GiB pool.
 * Written as 0 it still means unset; 0.5 rounds up to 1 byte (then BFC's own minimum). */
static void test_size_rounds_to_zero(void)
{
    static const struct {
        const char *yaml, *msg;
    } cases[] = {
        {"version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n    allocator:\n"
         "      policy: bfc\n      memory_limit: 0.4\n",
         "t.yaml:7:7: memories.hbm.allocator.memory_limit '0.4' rounds to 0 bytes; give at least "
         "1 byte or leave it out"},
        {"version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n    granularity: 0.3B\n",
         "t.yaml:5:5: memories.hbm.granularity '0.3B' rounds to 0 bytes; give at least 1 byte or "
         "leave it out"},
        {"version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n    allocator: {policy: "
         "cuda_async, release_threshold: 1e-4KB}\n",
         "t.yaml:5:37: memories.hbm.allocator.release_threshold '1e-4KB' rounds to 0 bytes; give "
         "at least 1 byte or leave it out"},
        {"version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n    allocator:\n"
         "      policy: prealloc\n      memory_limit: 0.0004KiB\n",
         "t.yaml:7:7: memories.hbm.allocator.memory_limit '0.0004KiB' rounds to 0 bytes; give at "
         "least 1 byte or leave it out"},
        {"version: 1\nmemories:\n  hbm:\n    capacity: 0.2\n",
         "t.yaml:4:5: memories.hbm.capacity '0.2' rounds to 0 bytes; give at least 1 byte or "
         "leave it out"},
    };
    for (size_t i = 0; i < AM_ARRAY_LEN(cases); i++)
        ASSERT_MSG(load_err(cases[i].yaml, NULL, 0), cases[i].msg);
    const char *yaml = "version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n    allocator:\n"
                       "      policy: bfc\n";
    const char *const set[] = {"memories.hbm.allocator.memory_limit=0.4"};
    ASSERT_MSG(load_err(yaml, set, 1),
               "--set 'memories.hbm.allocator.memory_limit=0.4': memories.hbm.allocator."
               "memory_limit '0.4' rounds to 0 bytes; give at least 1 byte or leave it out");
    /* 0 written as such is unset; 0.5 B rounds to 1 byte, a value (an arena of 1 byte for
     * prealloc aligned to 1 byte: bfc refuses a limit below 256 bytes at load since
     * 2026-11-27) */
    yaml = "version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n    allocator:\n"
           "      policy: prealloc\n      alignment: 1B\n";
    static const char *const fine[][2] = {{"memories.hbm.allocator.memory_limit=0", "0"},
                                          {"memories.hbm.allocator.memory_limit=0.0KiB", "0"},
                                          {"memories.hbm.allocator.memory_limit=0.5", "1"}};
    for (size_t i = 0; i < AM_ARRAY_LEN(fine); i++) {
        const char *const one[] = {fine[i][0]};
        am_config *c = load_ok(yaml, one, 1);
        if (c)
            CU_ASSERT_EQUAL(pol_num(&c->levels[0], "memory_limit"), atof(fine[i][1]));
        cfg_free(c);
    }
    /* a memory's granularity 0 is unset too: no device granularity, 1 byte, also over a
     * preset's 2 MiB (until 2026-11-27: "memories.hbm.granularity: must be > 0") */
    static const char *const gran[] = {
        "version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n    granularity: 0\n",
        "version: 1\ndevice: h100\nmemories:\n  hbm:\n    granularity: 0B\n"};
    for (size_t i = 0; i < AM_ARRAY_LEN(gran); i++) {
        am_config *c = load_ok(gran[i], NULL, 0);
        if (c)
            CU_ASSERT_EQUAL(c->levels[cfg_level_index(c, "hbm", 3)].granularity, 1);
        cfg_free(c);
    }
    const char *const gset[] = {"memories.hbm.granularity=0"};
    am_config *c = load_ok("version: 1\ndevice: h100\n", gset, 1);
    if (c)
        CU_ASSERT_EQUAL(c->levels[cfg_level_index(c, "hbm", 3)].granularity, 1);
    cfg_free(c);
}

/* One error case: the YAML, and the exact message (or its start, with prefix set). */
typedef struct err_case {
    const char *yaml, *msg;
    int prefix;
} err_case;

/* One form for every number (until 2026-11-27 '+' worked for sizes and fractions but not for
 * integers, 1e9 for sizes but not integers, and leading zeros everywhere); bandwidths have the
 * units sizes have, up to EB/s and EiB/s. */
static void test_number_forms(void)
{
    static const err_case cases[] = {
        {"version: 1\nmemories:\n  hbm: {capacity: +1GiB}\n",
         "t.yaml:3:9: memories.hbm.capacity: bad number '+1GiB': a '+' sign is not allowed", 0},
        {"version: 1\nmemories:\n  hbm: {capacity: 1GiB}\nengine: {queue_depth: +5}\n",
         "t.yaml:4:10: engine.queue_depth: bad number '+5': a '+' sign is not allowed", 0},
        {"version: 1\nmemories:\n  hbm: {capacity: 1GiB}\nengine: {queue_depth: 05}\n",
         "t.yaml:4:10: engine.queue_depth: bad number '05': leading zeros are not allowed (YAML "
         "1.1 reads 010 as octal 8)", 0},
        {"version: 1\nmemories:\n  hbm: {capacity: 010GiB}\n",
         "t.yaml:3:9: memories.hbm.capacity: bad number '010GiB': leading zeros", 1},
        {"version: 01\nmemories:\n  hbm: {capacity: 1GiB}\n",
         "t.yaml:1:1: unsupported config version '01' (supported versions: 1)", 0},
        /* a quoted number's blanks: the same rule for sizes and integers (until 2026-11-27
         * " 010GiB" and " +2MiB" passed, the rule seeing only the blank, and " 05" was
         * "expected a non-negative integer") */
        {"version: 1\nmemories:\n  hbm: {capacity: \" 010GiB\"}\n",
         "t.yaml:3:9: memories.hbm.capacity: bad number ' 010GiB': blanks before or after a "
         "number are not allowed", 0},
        {"version: 1\nmemories:\n  hbm: {capacity: 1GiB, granularity: ' +2MiB'}\n",
         "t.yaml:3:25: memories.hbm.granularity: bad number ' +2MiB': blanks before or after a "
         "number are not allowed", 0},
        /* a tab is shown escaped, \x09, as every control byte in a message (since 2026-11-27) */
        {"version: 1\nmemories:\n  hbm: {capacity: '1GiB\t'}\n",
         "t.yaml:3:9: memories.hbm.capacity: bad number '1GiB\\x09': blanks", 1},
        {"version: 1\nmemories:\n  hbm: {capacity: 1GiB}\nengine: {queue_depth: ' 05'}\n",
         "t.yaml:4:10: engine.queue_depth: bad number ' 05': blanks before or after a number "
         "are not allowed", 0},
        /* a list item at its own position, with the rule's reason, also under a policy that
         * ignores the key (until 2026-11-27 at the key, "expected a non-negative integer",
         * and under bfc with the item's position after the key's) */
        {"version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n    allocator:\n"
         "      policy: caching\n      roundup_power2_divisions: [1, 2,\n        05, 4]\n",
         "t.yaml:8:9: memories.hbm.allocator.roundup_power2_divisions: item 3: bad number '05': "
         "leading zeros are not allowed (YAML 1.1 reads 010 as octal 8)", 0},
        {"version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n    allocator:\n"
         "      policy: caching\n      roundup_power2_divisions: [1, x]\n",
         "t.yaml:7:37: memories.hbm.allocator.roundup_power2_divisions: item 2: expected a "
         "non-negative integer", 0},
        {"version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n    allocator:\n"
         "      policy: bfc\n      roundup_power2_divisions: [1, x]\n",
         "t.yaml:7:37: memories.hbm.allocator.roundup_power2_divisions: item 2: expected a "
         "non-negative integer (roundup_power2_divisions belongs to policy caching: bfc ignores "
         "it, but it must be valid for a switch to caching)", 0},
        {"version: 1\nmemories:\n  hbm: {capacity: 1GiB}\nengine: {queue_depth: 1.5}\n",
         "t.yaml:4:10: engine.queue_depth: expected a non-negative integer, got '1.5': not a "
         "whole number", 0},
    };
    for (size_t i = 0; i < AM_ARRAY_LEN(cases); i++) {
        const char *m = load_err(cases[i].yaml, NULL, 0);
        size_t n = strlen(cases[i].msg);
        int ok = cases[i].prefix ? strncmp(m, cases[i].msg, n) == 0 : strcmp(m, cases[i].msg) == 0;
        if (!ok)
            printf("\n  case %zu\n  message:  %s\n  expected: %s\n", i, m, cases[i].msg);
        CU_ASSERT(ok);
    }
    /* an exponent in an integer, when the value is whole; 0.5 and PB/s are fine */
    am_config *c = load_ok("version: 1\nmemories:\n  hbm: {capacity: 0.5GiB}\n"
                           "  host: {capacity: 1GiB}\nengine: {queue_depth: 1.5e3}\n"
                           "links:\n  l: {from: host, to: hbm, bandwidth: 2PB/s, "
                           "concurrency: 1e1}\n", NULL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(c->engine.queue_depth, 1500);
    CU_ASSERT_EQUAL(c->links[0].bandwidth, 2000000000000000ULL);
    CU_ASSERT_EQUAL(c->levels[0].capacity, 512 * MiB);
    cfg_free(c);
}

static void test_errors(void)
{
    static const err_case cases[] = {
        /* unknown keys, with a suggestion when one is close */
        {"version: 1\nmemories:\n  hbm:\n    capasity: 80GiB\n",
         "t.yaml:4:5: unknown key 'memories.hbm.capasity' (did you mean 'capacity'?)", 0},
        {"version: 1\nmemries:\n  hbm:\n    capacity: 80GiB\n",
         "t.yaml:2:1: unknown key 'memries' (did you mean 'memories'?)", 0},
        {"version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n    allocator:\n      policy: bfc\n"
         "      memory_limt: 1GiB\n",
         "t.yaml:7:7: unknown key 'memories.hbm.allocator.memory_limt' (did you mean "
         "'memory_limit'?)", 0},
        {"version: 1\nmemories:\n  hbm: {capacity: 1GiB}\nlinks:\n  l: {from: hbm, to: hbm, "
         "bandwidth: 1GB/s, speed: 3}\n",
         "t.yaml:5:45: unknown key 'links.l.speed'", 0},
        {"version: 1\nmemories:\n  hbm: {capacity: 1GiB}\nzzzzzzzz: 1\n",
         "t.yaml:4:1: unknown key 'zzzzzzzz'", 0},
        /* wrong types */
        {"version: 1\nmemories:\n  hbm:\n    capacity: [1, 2]\n",
         "t.yaml:4:5: memories.hbm.capacity: expected a single value, not a list", 0},
        {"version: 1\nmemories: 5\n", "t.yaml:2:1: memories: expected a map of at least one "
         "memory", 0},
        {"version: 1\nmemories:\n  hbm: 5\n", "t.yaml:3:3: memories.hbm: expected a map, not a "
         "scalar", 0},
        {"version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n    allocator:\n      policy: bfc\n"
         "      allow_growth: maybe\n",
         "t.yaml:7:7: memories.hbm.allocator.allow_growth: expected true or false, got 'maybe'",
         0},
        {"version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n    allocator:\n      policy: bfc\n"
         "      memory_fraction: 1.5\n",
         "t.yaml:7:7: memories.hbm.allocator.memory_fraction: expected a fraction between 0 and "
         "1, got '1.5'", 0},
        {"version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n    kind: gpu\n",
         "t.yaml:5:5: memories.hbm.kind: 'gpu' is not one of: hbm, host, host_pinned, vmem, "
         "smem, cmem, accumulator, shared, other", 0},
        {"version: 1\nmemories:\n  hbm: {capacity: 1GiB}\nengine: {queue_depth: -3}\n",
         "t.yaml:4:10: engine.queue_depth: expected a non-negative integer, got '-3'", 0},
        {"version: 1\nmemories:\n  hbm: {capacity: 1GiB}\nengine: {queue_depth: 0}\n",
         "t.yaml:4:10: engine.queue_depth: must be between 1 and 4294967295", 0},
        {"version: 1\nmemories:\n  hbm: {capacity: 1GiB}\ntrace: [1]\n",
         "t.yaml:4:1: trace: expected a map, not a list", 0},
        {"- 1\n", "t.yaml:1:1: a config must be a map of keys (version, memories, ...), not a "
         "list", 0},
        /* bad units */
        {"version: 1\nmemories:\n  hbm:\n    capacity: 80GiBs\n",
         "t.yaml:4:5: memories.hbm.capacity: bad size '80GiBs': unknown unit (sizes: B, KiB, "
         "MiB, GiB, TiB, PiB, EiB, KB, MB, GB, TB, PB, EB)", 0},
        {"version: 1\nmemories:\n  hbm:\n    capacity: -1GiB\n",
         "t.yaml:4:5: memories.hbm.capacity: bad size '-1GiB': negative values are not allowed",
         0},
        {"version: 1\nmemories:\n  hbm: {capacity: 1GiB}\nlinks:\n  l:\n    from: hbm\n"
         "    to: hbm\n    bandwidth: 3GB\n",
         "t.yaml:8:5: links.l.bandwidth: bad bandwidth '3GB': unknown unit", 1},
        {"version: 1\nmemories:\n  hbm: {capacity: 1GiB}\nreport:\n  timeline_interval: 3 days\n",
         "t.yaml:5:3: report.timeline_interval: bad time '3 days': unknown unit", 1},
        /* required values */
        {"version: 1\nmemories:\n  hbm:\n    kind: hbm\n",
         "t.yaml:3:3: memories.hbm: missing required key 'capacity'", 0},
        {"version: 1\nmemories:\n  hbm:\n    capacity: 0\n",
         "t.yaml:4:5: memories.hbm.capacity: must be > 0", 0},
        {"version: 1\nmemories:\n  hbm:\n    capacity: 4611686018427387905\n",
         "t.yaml:4:5: memories.hbm.capacity: at most 4 EiB (4611686018427387904 bytes)", 0},
        {"version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n    granularity: 8388608TiB\n",
         "t.yaml:5:5: memories.hbm.granularity: at most 4 EiB (4611686018427387904 bytes)", 0},
        /* pad_requests_to: a power of two from 1 byte to 4 EiB */
        {"version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n    pad_requests_to: 3KiB\n",
         "t.yaml:5:5: memories.hbm.pad_requests_to: 3072 bytes is not a power of two from 1 "
         "byte to 4 EiB", 0},
        {"version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n    pad_requests_to: 0\n",
         "t.yaml:5:5: memories.hbm.pad_requests_to: 0 bytes is not a power of two from 1 byte "
         "to 4 EiB", 0},
        {"version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n    pad_requests_to: 8388608TiB\n",
         "t.yaml:5:5: memories.hbm.pad_requests_to: 9223372036854775808 bytes is not a power of "
         "two from 1 byte to 4 EiB", 0},
        /* transfer_granule: the same rule */
        {"version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n    transfer_granule: 3KiB\n",
         "t.yaml:5:5: memories.hbm.transfer_granule: 3072 bytes is not a power of two from 1 "
         "byte to 4 EiB", 0},
        {"version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n    transfer_granule: 0\n",
         "t.yaml:5:5: memories.hbm.transfer_granule: 0 bytes is not a power of two from 1 byte "
         "to 4 EiB", 0},
        {"version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n    transfer_granule: 8388608TiB\n",
         "t.yaml:5:5: memories.hbm.transfer_granule: 9223372036854775808 bytes is not a power "
         "of two from 1 byte to 4 EiB", 0},
        {"version: 1\n", "t.yaml:1:1: missing required key 'memories' (at least one memory)", 0},
        {"version: 1\nmemories: {}\n", "t.yaml:2:1: memories: expected a map of at least one "
         "memory", 0},
        {"version: 1\nmemories:\n  hbm: {capacity: 1GiB}\nlinks:\n  l: {from: hbm, to: hbm}\n",
         "t.yaml:5:3: links.l: missing required key 'bandwidth'", 0},
        {"version: 1\nmemories:\n  bad name: {capacity: 1GiB}\n",
         "t.yaml:3:3: invalid memory name 'bad name' (1 to 63 characters of A-Z a-z 0-9 _ -)", 0},
        /* names that must exist */
        {"version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n    allocator:\n      policy: nope\n",
         "t.yaml:6:7: memories.hbm.allocator.policy: unknown allocator policy 'nope' "
         "(registered: ", 1},
        {"version: 1\ndevice: nosuch\n", "t.yaml:2:1: unknown device 'nosuch' (available: ", 1},
        {"version: 1\ndevice: ../x\n", "t.yaml:2:1: invalid device name '../x'", 1},
        {"version: 1\nmemories:\n  hbm: {capacity: 1GiB}\n  host: {capacity: 1GiB}\nlinks:\n"
         "  l:\n    from: host\n    to: gpu\n    bandwidth: 1GB/s\n",
         "t.yaml:8:5: links.l.to: unknown memory 'gpu' (memories: hbm, host)", 0},
        {"version: 1\ndefault_memory: hbn\nmemories:\n  hbm: {capacity: 1GiB}\n",
         "t.yaml:2:1: default_memory: unknown memory 'hbn' (memories: hbm)", 0},
        /* versions */
        {"version: 2\nmemories:\n  hbm: {capacity: 1GiB}\n",
         "t.yaml:1:1: unsupported config version '2' (supported versions: 1)", 0},
        {"memories:\n  hbm: {capacity: 1GiB}\n",
         "t.yaml:1:1: missing required key 'version' (supported versions: 1)", 0},
        {"", "t.yaml:1:1: missing required key 'version' (supported versions: 1)", 0},
        /* YAML features refused by the reader */
        {"version: &v 1\nmemories: *v\n",
         "t.yaml:1:10: YAML anchors (&v) are not supported in amsim configs; write the value "
         "out", 0},
        {"a: &a [1, 2]\nb: [*a, *a, *a]\n", "t.yaml:1:4: YAML anchors (&a)", 1},
        {"version: 1\nx: *v\n", "t.yaml:2:4: YAML aliases (*v) are not supported", 1},
        {"version: 1\nversion: 1\n",
         "t.yaml:2:1: duplicate key 'version' (first at line 1, column 1)", 0},
        {"version: 1\nmemories:\n  hbm: {capacity: 1GiB, capacity: 2GiB}\n",
         "t.yaml:3:25: duplicate key 'capacity' (first at line 3, column 9)", 0},
        {"version: 1\n---\nversion: 1\n",
         "t.yaml:2:1: a config holds one YAML document; found a second one", 0},
        {"? [a]\n: 1\n", "t.yaml:1:3: map keys must be plain scalars, not a list", 0},
        /* syntax errors as libyaml words them, at file:line:col */
        {"version: 1\n  bad: indent\n",
         "t.yaml:2:6: mapping values are not allowed in this context", 0},
        {"version: 1\nmemories:\n  hbm: [1,\n", "t.yaml:4:1: did not find expected node content",
         1},
        {"version: \"1\n", "t.yaml:2:1: found unexpected end of stream", 1},
    };
    for (size_t i = 0; i < AM_ARRAY_LEN(cases); i++) {
        const char *m = load_err(cases[i].yaml, NULL, 0);
        size_t n = strlen(cases[i].msg);
        int ok = cases[i].prefix ? strncmp(m, cases[i].msg, n) == 0 : strcmp(m, cases[i].msg) == 0;
        if (!ok)
            printf("\n  case %zu\n  message:  %s\n  expected: %s\n", i, m, cases[i].msg);
        CU_ASSERT(ok);
    }
    /* by --set too, naming the argument */
    const char *const pad[] = {"memories.hbm.pad_requests_to=96"};
    ASSERT_MSG(load_err("version: 1\nmemories:\n  hbm: {capacity: 1GiB}\n", pad, 1),
               "--set 'memories.hbm.pad_requests_to=96': memories.hbm.pad_requests_to: 96 bytes "
               "is not a power of two from 1 byte to 4 EiB");
    /* the lists in messages name what exists */
    const char *m = load_err("version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n    allocator:\n"
                             "      policy: nope\n", NULL, 0);
    ASSERT_HAS(m, "bfc");
    ASSERT_HAS(m, "best_fit");
    m = load_err("version: 1\ndevice: nosuch\n", NULL, 0);
    ASSERT_HAS(m, "h100");
    ASSERT_HAS(m, "tpu-v5e");

    /* nesting deeper than 64 */
    char deep[256];
    memset(deep, '[', 70);
    memcpy(deep + 70, "1", 2);
    ASSERT_MSG(load_err(deep, NULL, 0), "t.yaml:1:65: nesting deeper than 64 levels");

    /* a file that cannot be read */
    am_config *c = NULL;
    am_error e = {0};
    CU_ASSERT_EQUAL(cfg_load(&c, "/nonexistent/amsim.yaml", NULL, 0, &e), -1);
    ASSERT_HAS(e.msg, "/nonexistent/amsim.yaml: cannot open: ");
    CU_ASSERT_PTR_NULL(c);
}

/* Keys of the other registered policies are accepted (and ignored) under any policy, with a
 * warning at the key when the config names the policy itself (not when --set switched it). */
static void test_other_policy_keys(void)
{
    const struct alloc_ops *const *all = alloc_all();
    const struct alloc_ops *bf = alloc_find("best_fit");
    const char *foreign = NULL;
    /* a boolean option of another policy that best_fit does not have */
    for (; *all && !foreign; all++) {
        if (*all == bf)
            continue;
        for (const opt_desc *o = (*all)->opts; o && o->key && !foreign; o++) {
            int mine = 0;
            for (const opt_desc *b = bf->opts; b && b->key; b++)
                mine |= strcmp(b->key, o->key) == 0;
            if (!mine && o->type == OPT_BOOL)
                foreign = o->key;
        }
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(foreign);
    char yaml[512];
    snprintf(yaml, sizeof yaml, "version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n"
             "    allocator:\n      policy: best_fit\n      alignment: 512\n      %s: true\n",
             foreign);
    am_config *c = load_ok(yaml, NULL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_PTR_EQUAL(c->levels[0].policy, bf);
    if (!bf->opts_size)
        CU_ASSERT_PTR_NULL(c->levels[0].policy_opts);
    /* one warning, at the foreign key (line 8, column 7); best_fit's own alignment has none */
    char want[256];
    snprintf(want, sizeof want, "t.yaml:8:7: warning: memories.hbm.allocator.%s is an option of ",
             foreign);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c->warnings);
    CU_ASSERT_EQUAL(strncmp(c->warnings, want, strlen(want)), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(c->warnings, ", not of best_fit: ignored\n"));
    CU_ASSERT_PTR_EQUAL(strchr(c->warnings, '\n'), c->warnings + strlen(c->warnings) - 1);
    cfg_free(c);
    /* a policy left to its default says so */
    snprintf(yaml, sizeof yaml, "version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n"
             "    allocator: {%s: true}\n", foreign);
    c = load_ok(yaml, NULL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT(c->warnings && strstr(c->warnings, "t.yaml:5:17: warning: "));
    CU_ASSERT(c->warnings &&
              strstr(c->warnings, "not of best_fit (the default policy): ignored"));
    cfg_free(c);
    snprintf(yaml, sizeof yaml, "version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n"
             "    allocator:\n      policy: best_fit\n      %s: true\n", foreign);
    /* and switching the policy with --set keeps the file loadable */
    const char *const sw[] = {"memories.hbm.allocator.policy=bfc"};
    c = load_ok(yaml, sw, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_PTR_EQUAL(c->levels[0].policy, alloc_find("bfc"));
    CU_ASSERT_PTR_NULL(c->warnings); /* a switch: the keys are there for the other policy */
    cfg_free(c);
}

/* A key of another policy is ignored for the run but checked as the policy it belongs to reads
 * it (type, units, range), at its line and column, naming that policy; in the file and in a
 * --set; a valid one still loads. Until 2026-11-25 `max_split_size: abc` under bfc passed. */
static void test_other_policy_values(void)
{
    static const struct {
        const char *policy, *line, *msg;
    } cases[] = {
        {"bfc", "max_split_size: abc", "t.yaml:7:7: memories.hbm.allocator.max_split_size: bad "
         "size 'abc': not a number (max_split_size belongs to policy caching: bfc ignores it, "
         "but it must be valid for a switch to caching)"},
        {"bfc", "garbage_collection_threshold: 1.5", "t.yaml:7:7: "
         "memories.hbm.allocator.garbage_collection_threshold: expected a fraction between 0 "
         "and 1, got '1.5' (garbage_collection_threshold belongs to policy caching: bfc ignores "
         "it, but it must be valid for a switch to caching)"},
        {"caching", "retry_wait: 5parsecs", "t.yaml:7:7: memories.hbm.allocator.retry_wait: bad "
         "time '5parsecs': unknown unit"},
        {"caching", "allow_growth: maybe", "t.yaml:7:7: memories.hbm.allocator.allow_growth: "
         "expected true or false, got 'maybe' (allow_growth belongs to policy bfc"},
        {"bfc", "min_block: 0.4", "t.yaml:7:7: memories.hbm.allocator.min_block '0.4' rounds to "
         "0 bytes; give at least 1 byte or leave it out (min_block belongs to policy buddy"},
        /* a list's item at its own position (at the key until 2026-11-27) */
        {"bfc", "roundup_power2_divisions: [4, x]", "t.yaml:7:37: "
         "memories.hbm.allocator.roundup_power2_divisions: item 2: expected a non-negative "
         "integer (roundup_power2_divisions belongs to policy caching"},
    };
    char yaml[512];
    for (size_t i = 0; i < AM_ARRAY_LEN(cases); i++) {
        snprintf(yaml, sizeof yaml, "version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n"
                 "    allocator:\n      policy: %s\n      %s\n", cases[i].policy,
                 cases[i].line);
        const char *m = load_err(yaml, NULL, 0);
        if (strncmp(m, cases[i].msg, strlen(cases[i].msg)) != 0)
            printf("\n  message:  %s\n  expected: %s\n", m, cases[i].msg);
        CU_ASSERT_EQUAL(strncmp(m, cases[i].msg, strlen(cases[i].msg)), 0);
    }
    /* the same through --set, and a valid value of another policy still loads (a warning) */
    const char *ybfc = "version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n    allocator: "
                       "{policy: bfc}\n";
    const char *const bad[] = {"memories.hbm.allocator.max_split_size=abc"};
    ASSERT_MSG(load_err(ybfc, bad, 1), "--set 'memories.hbm.allocator.max_split_size=abc': "
               "memories.hbm.allocator.max_split_size: bad size 'abc': not a number "
               "(max_split_size belongs to policy caching: bfc ignores it, but it must be valid "
               "for a switch to caching)");
    snprintf(yaml, sizeof yaml, "version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n"
             "    allocator:\n      policy: bfc\n      max_split_size: unlimited\n"
             "      roundup_power2_divisions: [4, 8]\n      min_block: 512\n");
    am_config *c = load_ok(yaml, NULL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_PTR_EQUAL(c->levels[0].policy, alloc_find("bfc"));
    CU_ASSERT(c->warnings && strstr(c->warnings, "max_split_size is an option of caching, not "
                                    "of bfc: ignored"));
    cfg_free(c);
}

/* cfg_path_opt finds the option a dotted path names (any level or link name; an allocator key
 * in the tables of the policies that have it); cfg_opt_u64 reads values as the config does,
 * exact ones only, so different spellings of one size or time compare equal. */
static void test_path_opt(void)
{
    static const struct {
        const char *path;
        int type; /* -1: no option */
    } paths[] = {
        {"memories.hbm.capacity", OPT_SIZE}, {"memories.x-1.granularity", OPT_SIZE},
        {"memories.hbm.defrag.threshold", OPT_FRACTION}, {"links.pcie.latency", OPT_TIME},
        {"links.pcie.bandwidth", OPT_BANDWIDTH}, {"trace.time_unit", OPT_TIME_UNIT},
        {"report.timeline_interval", OPT_TIME}, {"engine.queue_depth", OPT_UINT},
        {"transfer_guard.host_to_device", OPT_ENUM},
        {"memories.hbm.allocator.retry_wait", OPT_TIME},
        {"memories.hbm.allocator.max_split_size", OPT_SIZE_OR_UNLIMITED},
        {"memories.hbm.allocator.memory_limit", OPT_SIZE},
        {"memories.hbm.allocator.policy", -1}, {"memories.hbm.allocator.nosuch", -1},
        {"memories.hbm", -1}, {"memories.hbm.capacity.x", -1}, {"trace", -1},
        {"version", -1}, {"links.pcie.defrag.mode", -1}, {"a.b.c.d.e.f", -1}, {"", -1},
    };
    for (size_t i = 0; i < AM_ARRAY_LEN(paths); i++) {
        const opt_desc *o = cfg_path_opt(paths[i].path);
        int got = o ? (int)o->type : -1;
        if (got != paths[i].type)
            printf("\n  %s: type %d, expected %d\n", paths[i].path, got, paths[i].type);
        CU_ASSERT_EQUAL(got, paths[i].type);
    }
    uint64_t a = 0, b = 1;
    const opt_desc *t = cfg_path_opt("memories.hbm.allocator.retry_wait");
    CU_ASSERT(cfg_opt_u64(t, "1ms", &a) == 0 && cfg_opt_u64(t, "1000us", &b) == 0 && a == b);
    CU_ASSERT(cfg_opt_u64(t, "0.001", &b) == 0 && a == b && a == AM_PS_PER_MS);
    CU_ASSERT_EQUAL(cfg_opt_u64(t, "0.5ps", &b), -1); /* the config would round it */
    CU_ASSERT_EQUAL(cfg_opt_u64(t, "1GiB", &b), -1);
    const opt_desc *m = cfg_path_opt("memories.hbm.allocator.max_split_size");
    CU_ASSERT(cfg_opt_u64(m, "unlimited", &a) == 0 && cfg_opt_u64(m, "-1", &b) == 0 &&
              a == b && a == UINT64_MAX);
    CU_ASSERT(cfg_opt_u64(m, "1GiB", &a) == 0 && cfg_opt_u64(m, "1024MiB", &b) == 0 && a == b);
    CU_ASSERT_EQUAL(cfg_opt_u64(m, "1.2", &b), -1);
    CU_ASSERT_EQUAL(cfg_opt_u64(cfg_path_opt("links.l.efficiency"), "0.5", &b), -1);
    CU_ASSERT_EQUAL(cfg_opt_u64(NULL, "1", &b), -1);
}

/* Every option type through cfg_apply_opts, with a table of our own. */
typedef struct all_opts {
    uint64_t size, unl, bw;
    am_ps t;
    int b;
    uint64_t u;
    double r, f;
    int en;
    char str[OPT_STRING_MAX];
    uint64_t list[3];
    size_t nlist;
} all_opts;

static const char *const colours[] = {"red", "green", "blue", NULL};
static const opt_desc all_desc[] = {
    {"size", OPT_SIZE, offsetof(all_opts, size), "1KiB", "", NULL, 0, 0},
    {"unl", OPT_SIZE_OR_UNLIMITED, offsetof(all_opts, unl), "unlimited", "", NULL, 0, 0},
    {"bw", OPT_BANDWIDTH, offsetof(all_opts, bw), "1GB/s", "", NULL, 0, 0},
    {"t", OPT_TIME, offsetof(all_opts, t), "1us", "", NULL, 0, 0},
    {"b", OPT_BOOL, offsetof(all_opts, b), "yes", "", NULL, 0, 0},
    {"u", OPT_UINT, offsetof(all_opts, u), "7", "", NULL, 0, 0},
    {"r", OPT_REAL, offsetof(all_opts, r), "-2.5", "", NULL, 0, 0},
    {"f", OPT_FRACTION, offsetof(all_opts, f), NULL, "", NULL, 0, 0},
    {"en", OPT_ENUM, offsetof(all_opts, en), "green", "", colours, 0, 0},
    {"str", OPT_STRING, offsetof(all_opts, str), "hello", "", NULL, 0, 0},
    {"list", OPT_UINT_LIST, offsetof(all_opts, list), "[1, 2]", "", NULL, 3,
     offsetof(all_opts, nlist)},
    {NULL, OPT_UINT, 0, NULL, NULL, NULL, 0, 0},
};

static void test_apply_opts(void)
{
    all_opts o;
    am_error e = {0};
    memset(&o, 0xAB, sizeof o);
    /* no map: every default (NULL default = zero) */
    CU_ASSERT_EQUAL_FATAL(cfg_apply_opts(NULL, "p", all_desc, &o, NULL, &e), 0);
    CU_ASSERT_EQUAL(o.size, 1024);
    CU_ASSERT_EQUAL(o.unl, UINT64_MAX);
    CU_ASSERT_EQUAL(o.bw, 1000000000ULL);
    CU_ASSERT_EQUAL(o.t, AM_PS_PER_US);
    CU_ASSERT_EQUAL(o.b, 1);
    CU_ASSERT_EQUAL(o.u, 7);
    CU_ASSERT_DOUBLE_EQUAL(o.r, -2.5, 0);
    CU_ASSERT_DOUBLE_EQUAL(o.f, 0, 0);
    CU_ASSERT_EQUAL(o.en, 1);
    CU_ASSERT_STRING_EQUAL(o.str, "hello");
    CU_ASSERT_EQUAL(o.nlist, 2);
    CU_ASSERT_EQUAL(o.list[0], 1);
    CU_ASSERT_EQUAL(o.list[1], 2);

    /* a map written by hand: every type, plus an ignored key */
    cfg_node it[3] = {{CFG_SCALAR, (char *)(uintptr_t)"5", NULL, "m", 2, 9, NULL, &it[1], 0, 0, 0, 0},
                      {CFG_SCALAR, (char *)(uintptr_t)"6", NULL, "m", 2, 12, NULL, &it[2], 0, 0, 0, 0},
                      {CFG_SCALAR, (char *)(uintptr_t)"7", NULL, "m", 2, 15, NULL, NULL, 0, 0, 0, 0}};
    cfg_node kv[12];
    static const char *const keys[] = {"size", "unl", "bw", "t", "b", "u", "r",
                                       "f", "en", "str", "list", "other"};
    static const char *const vals[] = {"2MiB", "none", "3TB/s", "4ms", "off", "9", "1e3",
                                       "0.25", "blue", "x y", NULL, "whatever"};
    for (int i = 0; i < 12; i++) {
        cfg_node n = {vals[i] ? CFG_SCALAR : CFG_SEQ, (char *)(uintptr_t)vals[i],
                      (char *)(uintptr_t)keys[i], "m", (unsigned long)i + 1, 3,
                      vals[i] ? NULL : it, i < 11 ? &kv[i + 1] : NULL, 0, 0, 0, 0};
        kv[i] = n;
    }
    cfg_node map = {CFG_MAP, NULL, NULL, "m", 1, 1, kv, NULL, 0, 0, 0, 0};
    static const char *const ok[] = {"other", NULL};
    CU_ASSERT_EQUAL_FATAL(cfg_apply_opts(&map, "p", all_desc, &o, ok, &e), 0);
    CU_ASSERT_EQUAL(o.size, 2 * MiB);
    CU_ASSERT_EQUAL(o.unl, UINT64_MAX);
    CU_ASSERT_EQUAL(o.bw, 3000000000000ULL);
    CU_ASSERT_EQUAL(o.t, 4 * AM_PS_PER_MS);
    CU_ASSERT_EQUAL(o.b, 0);
    CU_ASSERT_EQUAL(o.u, 9);
    CU_ASSERT_DOUBLE_EQUAL(o.r, 1000, 0);
    CU_ASSERT_DOUBLE_EQUAL(o.f, 0.25, 0);
    CU_ASSERT_EQUAL(o.en, 2);
    CU_ASSERT_STRING_EQUAL(o.str, "x y");
    CU_ASSERT_EQUAL(o.nlist, 3);
    CU_ASSERT_EQUAL(o.list[2], 7);

    /* without also_ok the extra key is refused, with its path */
    CU_ASSERT_EQUAL(cfg_apply_opts(&map, "p", all_desc, &o, NULL, &e), -1);
    ASSERT_MSG(e.msg, "m:12:3: unknown key 'p.other'");
    /* a scalar is a one-element list; four elements are too many */
    kv[10].kind = CFG_SCALAR;
    kv[10].value = (char *)(uintptr_t)"42";
    kv[10].child = NULL;
    CU_ASSERT_EQUAL(cfg_apply_opts(&map, "p", all_desc, &o, ok, &e), 0);
    CU_ASSERT_EQUAL(o.nlist, 1);
    CU_ASSERT_EQUAL(o.list[0], 42);
    cfg_node four = {CFG_SCALAR, (char *)(uintptr_t)"8", NULL, "m", 2, 18, NULL, NULL, 0, 0, 0, 0};
    it[2].next = &four;
    kv[10].kind = CFG_SEQ;
    kv[10].value = NULL;
    kv[10].child = it;
    CU_ASSERT_EQUAL(cfg_apply_opts(&map, "p", all_desc, &o, ok, &e), -1);
    ASSERT_MSG(e.msg, "m:11:3: p.list: at most 3 values, got 4");
    it[2].next = NULL;
    kv[8].value = (char *)(uintptr_t)"mauve";
    CU_ASSERT_EQUAL(cfg_apply_opts(&map, "p", all_desc, &o, ok, &e), -1);
    ASSERT_MSG(e.msg, "m:9:3: p.en: 'mauve' is not one of: red, green, blue");
    kv[8].value = (char *)(uintptr_t)"red";
    char longstr[OPT_STRING_MAX + 1];
    memset(longstr, 'x', OPT_STRING_MAX);
    longstr[OPT_STRING_MAX] = 0;
    kv[9].value = longstr;
    CU_ASSERT_EQUAL(cfg_apply_opts(&map, "p", all_desc, &o, ok, &e), -1);
    ASSERT_MSG(e.msg, "m:10:3: p.str: longer than 63 characters");
    kv[9].value = (char *)(uintptr_t)"ok";
    kv[6].value = (char *)(uintptr_t)"1,5";
    CU_ASSERT_EQUAL(cfg_apply_opts(&map, "p", all_desc, &o, ok, &e), -1);
    ASSERT_MSG(e.msg, "m:7:3: p.r: bad number '1,5': malformed number");
    kv[6].value = (char *)(uintptr_t)"1";
    CU_ASSERT_EQUAL(cfg_apply_opts(&map, "p", all_desc, &o, ok, &e), 0);
    CU_ASSERT_EQUAL(o.en, 0);
}

/* Write the effective config, load it again: the same structs, the same text. */
static char *effective_text(const am_config *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(cfg_write_yaml(c, f), 0);
    fclose(f);
    return buf;
}

static void same_config(const am_config *a, const am_config *b)
{
    CU_ASSERT_STRING_EQUAL(a->device, b->device);
    CU_ASSERT_EQUAL_FATAL(a->nlevels, b->nlevels);
    for (int i = 0; i < a->nlevels; i++) {
        const cfg_level *x = &a->levels[i], *y = &b->levels[i];
        CU_ASSERT_STRING_EQUAL(x->name, y->name);
        CU_ASSERT_STRING_EQUAL(x->kind, y->kind);
        CU_ASSERT_EQUAL(x->capacity, y->capacity);
        CU_ASSERT_EQUAL(x->granularity, y->granularity);
        CU_ASSERT_PTR_EQUAL_FATAL(x->policy, y->policy);
        if (x->policy->opts_size)
            CU_ASSERT_EQUAL(memcmp(x->policy_opts, y->policy_opts, x->policy->opts_size), 0);
    }
    CU_ASSERT_EQUAL(a->default_level, b->default_level);
    CU_ASSERT_EQUAL_FATAL(a->nlinks, b->nlinks);
    for (int i = 0; i < a->nlinks; i++) {
        const cfg_link *x = &a->links[i], *y = &b->links[i];
        CU_ASSERT_STRING_EQUAL(x->name, y->name);
        CU_ASSERT_EQUAL(x->from, y->from);
        CU_ASSERT_EQUAL(x->to, y->to);
        CU_ASSERT_EQUAL(x->bandwidth, y->bandwidth);
        CU_ASSERT_DOUBLE_EQUAL(x->efficiency, y->efficiency, 0);
        CU_ASSERT_EQUAL(x->latency, y->latency);
        CU_ASSERT_EQUAL(x->concurrency, y->concurrency);
        CU_ASSERT_EQUAL(x->duplex, y->duplex);
    }
    CU_ASSERT_EQUAL(a->trace.lifetimes_inclusive, b->trace.lifetimes_inclusive);
    CU_ASSERT_EQUAL(a->trace.time_unit, b->trace.time_unit);
    CU_ASSERT_EQUAL(a->engine.queue_depth, b->engine.queue_depth);
    CU_ASSERT_EQUAL(a->report.timeline_interval, b->report.timeline_interval);
    CU_ASSERT_EQUAL(a->report.max_oom_events, b->report.max_oom_events);
}

static void round_trip(am_config *c, const char *name)
{
    char *t1 = effective_text(c);
    const char *path = tu_write(name, t1);
    am_config *d = file_ok(path, NULL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    same_config(c, d);
    /* read back without a word: every key in it is the user's now, and each is read */
    CU_ASSERT_PTR_NULL(d->warnings);
    if (d->warnings)
        printf("\n  %s: %s", name, d->warnings);
    char *t2 = effective_text(d);
    if (strcmp(t1, t2) != 0)
        printf("\n  first:\n%s\n  second:\n%s\n", t1, t2);
    CU_ASSERT_STRING_EQUAL(t1, t2);
    free(t1);
    free(t2);
    cfg_free(d);
}

/* A switched policy (--policy, compare's, mincap's and a sweep's policies:) is checked by its own
 * rules only: the configured policy's rules on option values (buddy's min_block a power of two,
 * tlsf's alignment up to 1 TiB) bind no run that switches it out, and an error names the policy
 * that runs, at the value's FILE:LINE:COL. Until 2026-11-27 --policy, compare, mincap and batch
 * loaded the config as written first (to learn the default level), so `policy: buddy,
 * min_block: 3` refused `--policy first_fit` (which `--set ...policy=first_fit` ran), and on a
 * first_fit config `--policy tlsf --set ...alignment=0` was reported as first_fit's rule. */
static void test_switched_policy_rules(void)
{
    const char *bd = tu_write("switch_bd.yaml", "version: 1\nmemories:\n  host: {kind: host, "
                              "capacity: 1MiB}\n  hbm:\n    capacity: 1MiB\n    allocator:\n"
                              "      policy: buddy\n      min_block: 3\ndefault_memory: hbm\n");
    am_config *c = NULL;
    am_error e = {0};
    /* the policy to run not known yet: the default level's (hbm, not the first) rules wait */
    CU_ASSERT_EQUAL_FATAL(cfg_load_switched(&c, bd, NULL, 0, NULL, NULL, &e), 0);
    CU_ASSERT_PTR_EQUAL(c->levels[c->default_level].policy, alloc_find("buddy"));
    CU_ASSERT_PTR_NULL(c->warnings);
    cfg_free(c);
    c = NULL;
    CU_ASSERT_EQUAL_FATAL(cfg_load_switched(&c, bd, NULL, 0, NULL, "first_fit", &e), 0);
    CU_ASSERT_PTR_EQUAL(c->levels[c->default_level].policy, alloc_find("first_fit"));
    cfg_free(c);
    c = NULL;
    /* the policy that runs is buddy: its rule, at the value */
    CU_ASSERT_EQUAL(cfg_load_switched(&c, bd, NULL, 0, NULL, "buddy", &e), -1);
    ASSERT_HAS(e.msg, ":8:7: memories.hbm.allocator.min_block: buddy: min_block of 3 bytes");
    memset(&e, 0, sizeof e);
    CU_ASSERT_EQUAL(cfg_load(&c, bd, NULL, 0, &e), -1); /* as written: buddy runs */
    ASSERT_HAS(e.msg, ":8:7: memories.hbm.allocator.min_block: buddy: min_block of 3 bytes");
    /* a named level (mincap's --level): the other level's rules still hold */
    memset(&e, 0, sizeof e);
    CU_ASSERT_EQUAL(cfg_load_switched(&c, bd, NULL, 0, "host", NULL, &e), -1);
    ASSERT_HAS(e.msg, "buddy: min_block of 3 bytes");

    const char *tr = tu_write("switch.trace", "amsim-trace v1\nalloc 1 1024\nalloc 2 1024\n"
                              "free 2\nfree 1\n");
    const char *tl = tu_write("switch_tl.yaml", "version: 1\nmemories:\n  hbm:\n    capacity: "
                              "64TiB\n    allocator:\n      policy: tlsf\n      alignment: 2TiB\n");
    const char *ff = tu_write("switch_ff.yaml", "version: 1\nmemories:\n  hbm:\n    capacity: "
                              "64KiB\n    allocator:\n      policy: first_fit\n");
    char sweep[1024];
    snprintf(sweep, sizeof sweep, "base: %s\ntraces: [%s]\npolicies: [first_fit, tlsf]\n", bd,
             tr);
    const char *sw = tu_write("switch_sweep.yaml", sweep);
    static const struct {
        const char *cmd, *cfg, *args;
        int rc;
        const char *err; /* in standard error, or NULL */
    } cases[] = {
        {"run -q", "bd", "--policy first_fit", 0, NULL},
        {"run -q", "bd", "--set memories.hbm.allocator.policy=first_fit", 0, NULL},
        {"compare", "bd", "--policies first_fit,tlsf", 0, NULL},
        {"compare", "bd", "--policies first_fit,buddy", 1, "buddy       failed: "},
        {"mincap", "bd", "--policies first_fit --granularity 1KiB", 0, NULL},
        {"run -q", "tl", "--policy first_fit", 0, NULL},
        {"run -q", "tl", "", 1, "tlsf: alignment of 2199023255552 bytes"},
        {"run -q", "ff", "--policy tlsf --set memories.hbm.allocator.alignment=0", 1,
         "--set 'memories.hbm.allocator.alignment=0': memories.hbm.allocator.alignment: tlsf: "
         "alignment of 0 bytes is not a power of two from 1 byte to 1 TiB"},
    };
    for (size_t i = 0; i < AM_ARRAY_LEN(cases); i++) {
        const char *cfg = !strcmp(cases[i].cfg, "bd") ? bd : !strcmp(cases[i].cfg, "tl") ? tl : ff;
        char args[2048], *out = NULL, *err = NULL;
        snprintf(args, sizeof args, "%s -c '%s' -t '%s' %s", cases[i].cmd, cfg, tr,
                 cases[i].args);
        int rc = tu_amsim(args, &out, &err);
        if (rc != cases[i].rc)
            printf("\n  %s: status %d\n%s%s", args, rc, out ? out : "", err ? err : "");
        CU_ASSERT_EQUAL(rc, cases[i].rc);
        if (cases[i].err)
            CU_ASSERT_PTR_NOT_NULL((out && strstr(out, cases[i].err)) ||
                                   (err && strstr(err, cases[i].err)) ? "" : NULL);
        free(out);
        free(err);
    }
    char args[2048], *out = NULL;
    snprintf(args, sizeof args, "batch '%s' -o '%s/switch_out'", sw, tu_tmpdir());
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    free(out);
}

/* mincap counts a capacity a policy's option rule refuses as a failing value, whatever
 * setting the error names: a granularity above the capacity (platform, cuda_async), a
 * pool_granularity above it (cuda_async), min_block (buddy) or alignment (tlsf) above it. The
 * rule's keys say so (am_error.keys) even when the message points at the user's granularity
 * line. Until 2026-11-27 only an error at mincap's own --set counted, so these configs aborted
 * the search ("no minimum found") at the first capacity below the granularity. */
static void test_mincap_refused_capacity(void)
{
    const char *tr = tu_write("mc_refuse.trace", "amsim-trace v1 time_unit=ps\nalloc 1 1000 "
                              "level=hbm\nfree 1\n");
    const char *pg = tu_write("mc_pg.yaml", "version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n"
                              "    allocator:\n      policy: cuda_async\n"
                              "      pool_granularity: 32MiB\n");
    const char *g4 = tu_write("mc_g4.yaml", "version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n"
                              "    granularity: 4MiB\n");
    const char *bd = tu_write("mc_bd.yaml", "version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n"
                              "    allocator:\n      policy: buddy\n      min_block: 8MiB\n");
    const char *tl = tu_write("mc_tl.yaml", "version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n"
                              "    allocator:\n      policy: tlsf\n      alignment: 2MiB\n");
    static const struct {
        int cfg;
        const char *policies, *row;
    } cases[] = {
        {0, "cuda_async", "cuda_async   capacity              33554432    32.00 MiB"},
        {1, "platform", "platform     capacity               4194304     4.00 MiB"},
        {1, "cuda_async", "cuda_async   capacity               4194304     4.00 MiB"},
        {2, "buddy", "buddy        capacity               8388608     8.00 MiB"},
        {3, "tlsf", "tlsf         capacity               2097152     2.00 MiB"},
    };
    const char *cfgs[] = {pg, g4, bd, tl};
    for (size_t i = 0; i < AM_ARRAY_LEN(cases); i++) {
        char args[2048], *out = NULL, *err = NULL;
        snprintf(args, sizeof args, "mincap -c '%s' -t '%s' --policies %s", cfgs[cases[i].cfg],
                 tr, cases[i].policies);
        int rc = tu_amsim(args, &out, &err);
        if (rc != 0 || !out || !strstr(out, cases[i].row))
            printf("\n  %s: status %d\n%s%s", args, rc, out ? out : "", err ? err : "");
        CU_ASSERT_EQUAL(rc, 0);
        CU_ASSERT_PTR_NOT_NULL(out ? strstr(out, cases[i].row) : NULL);
        CU_ASSERT_PTR_NOT_NULL(out ? strstr(out, "min - granularity refused by the policy")
                                   : NULL);
        free(out);
        free(err);
    }
}

/* A bad value of a key of another policy than the config's: the addition "(KEY belongs to
 * policy P: Q ignores it ...)" only where the config's own policy Q is the one run; compare and
 * mincap switch policies and give the plain message, as run --policy does (until 2026-11-27
 * `compare --policies caching,cuda_async` said "bfc ignores it" with no bfc run). */
static void test_other_policy_value_switched(void)
{
    const char *tr = tu_write("op_sw.trace", "amsim-trace v1\nalloc 1 1MiB\nfree 1\n");
    const char *cfg = tu_write("op_sw.yaml", "version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n"
                               "    allocator: {policy: bfc}\n");
    static const char plain[] = "amsim: --set 'memories.hbm.allocator.max_split_size=64mb': "
        "memories.hbm.allocator.max_split_size: bad size '64mb': unknown unit (sizes: B, KiB, "
        "MiB, GiB, TiB, PiB, EiB, KB, MB, GB, TB, PB, EB)";
    static const struct {
        const char *cmd, *policies;
        int addition;
    } cases[] = {
        {"compare", "--policies caching,cuda_async", 0},
        {"mincap", "--policies caching", 0},
        {"run -q", "--policy caching", 0},
        {"run -q", "", 1}, /* bfc runs: it ignores the key */
    };
    for (size_t i = 0; i < AM_ARRAY_LEN(cases); i++) {
        char args[2048], want[1024], *err = NULL;
        snprintf(args, sizeof args, "%s -c '%s' -t '%s' %s --set "
                 "memories.hbm.allocator.max_split_size=64mb", cases[i].cmd, cfg, tr,
                 cases[i].policies);
        snprintf(want, sizeof want, "%s%s\n", plain, cases[i].addition
                 ? " (max_split_size belongs to policy caching: bfc ignores it, but it must be "
                   "valid for a switch to caching)" : "");
        CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 1);
        CU_ASSERT(err && strcmp(err, want) == 0);
        if (!err || strcmp(err, want) != 0)
            printf("\n  %s\n  got:      %s  expected: %s", args, err ? err : "", want);
        free(err);
    }
}

static void test_round_trip(void)
{
    am_config *c = load_ok(valid_yaml, NULL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    round_trip(c, "rt1.yaml");
    cfg_free(c);

    write_preset("devices", "testdev", testdev_yaml);
    const char *const sets[] = {"memories.hbm.allocator.memory_limit=3GiB",
                                "links.h2d.efficiency=0.5", "report.max_oom_events=9"};
    c = file_ok(tu_write("merge.yaml", merge_yaml), sets, 3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    round_trip(c, "rt2.yaml");
    cfg_free(c);

    /* scalars that need quoting survive the trip */
    c = load_ok("version: 1\nmemories:\n  hbm:\n    capacity: \"1 GiB\"\n    kind: \"hbm\"\n",
                NULL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    round_trip(c, "rt3.yaml");
    char *t = effective_text(c);
    ASSERT_HAS(t, "    capacity: \"1 GiB\"\n");
    ASSERT_HAS(t, "\nversion: 1\n");
    free(t);
    cfg_free(c);

    char path[1024];
    snprintf(path, sizeof path, "%s/configs/default.yaml", tu_top());
    c = file_ok(path, NULL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    round_trip(c, "rt4.yaml");
    cfg_free(c);

    /* defrag keys the mode or trigger never reads are left out, defaults too: the text the
     * file reads back to is the same (until 2026-11-27 they were written, and warned about) */
    static const char *const defrags[] = {
        "{mode: none, trigger: every, threshold: 0.3, every: 50, host: host}",
        "{mode: compact, trigger: threshold, threshold: 0.3, every: 50, host: host}",
        "{mode: compact, trigger: every, every: 7, threshold: 0.2}",
        "{mode: host_roundtrip, threshold: 0.9, every: 3, host: host}",
    };
    for (size_t i = 0; i < sizeof defrags / sizeof defrags[0]; i++) {
        char yaml[512], name[32];
        snprintf(yaml, sizeof yaml, "version: 1\ndevice: h100\nmemories:\n  hbm:\n    defrag: "
                 "%s\n", defrags[i]);
        c = load_ok(yaml, NULL, 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(c);
        CU_ASSERT_PTR_NOT_NULL(c->warnings); /* the user's unread keys: warned about here */
        snprintf(name, sizeof name, "rt_defrag%zu.yaml", i);
        round_trip(c, name);
        t = effective_text(c);
        ASSERT_HAS(t, i == 0 ? "    defrag:\n      mode: none\n    "
                      : i == 1 ? "      trigger: threshold\n      threshold: 0.3\n    "
                      : i == 2 ? "      trigger: every\n      every: 7\n    "
                               : "      mode: host_roundtrip\n      host: host\n      trigger: "
                                 "on_oom\n    ");
        free(t);
        cfg_free(c);
    }
}

/* The text report of `amsim run ARGS` without its first two lines (the trace's and the
 * config's names); stderr in *err. */
static char *run_body(const char *args, char **err)
{
    char *out = NULL;
    CU_ASSERT_EQUAL(tu_amsim(args, &out, err), 0);
    char *body = out ? strchr(out, '\n') : NULL;
    body = body ? strchr(body + 1, '\n') : NULL;
    char *copy = strdup(body ? body : "");
    free(out);
    return copy;
}

/* QA: `run -o DIR` on `device: h100` under --policy caching wrote the preset's bfc key
 * allow_growth into DIR/effective_config.yaml, and `run -c DIR/effective_config.yaml` warned
 * `memories.hbm.allocator.allow_growth is an option of bfc, not of caching: ignored` for a key
 * the user never wrote. The file now holds each memory's policy's keys only: it reads back
 * without warnings and runs the same, for a preset's and the user's keys of another policy. */
static void test_effective_config_reads_back(void)
{
    static const char *const cases[][2] = {
        {"version: 1\ndevice: h100\n", "caching"},
        {"version: 1\ndevice: h100\n", "tlsf"},
        {"version: 1\ndevice: tpu-v5e\n", "caching"},
        /* the user's key of another policy: warned about in the first run only */
        {"version: 1\ndevice: h100\nmemories:\n  hbm:\n    allocator: {policy: caching, "
         "allow_growth: true}\n", "caching"},
        /* defrag keys the mode or trigger never reads, each warning the loader has: written
         * back until 2026-11-27, and warned about again (QA: `every: 50` under threshold) */
        {"version: 1\ndevice: h100\nmemories:\n  hbm:\n    defrag: {mode: none, trigger: "
         "every, threshold: 0.3, every: 50, host: host}\n", "caching"},
        {"version: 1\ndevice: h100\nmemories:\n  hbm:\n    defrag: {mode: compact, trigger: "
         "threshold, threshold: 0.3, every: 50}\n", "bfc"},
        {"version: 1\ndevice: h100\nmemories:\n  hbm:\n    defrag: {mode: compact, trigger: "
         "every, every: 7, threshold: 0.2, host: host}\n", "tlsf"},
        {"version: 1\ndevice: h100\nmemories:\n  hbm:\n    defrag: {mode: host_roundtrip, "
         "threshold: 0.9, every: 3, host: host}\n", "caching"},
    };
    /* a recording's buffers when ../shared/data is there, the repository's own trace when not
     * (until 2026-11-27 the test failed in a clone without it, where it should run or skip) */
    char own[1024];
    snprintf(own, sizeof own, "%s/traces/gpu_train_step.trace", tu_top());
    const char *trace = tu_shared("minimalloc/challenging/A.1048576.csv");
    if (!trace)
        trace = own;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[64], args[4096], *err = NULL;
        snprintf(name, sizeof name, "effback%zu.yaml", i);
        const char *cfg = tu_write(name, cases[i][0]);
        snprintf(args, sizeof args, "run -c '%s' -t '%s' --policy %s -q -o '%s/effback%zu'", cfg,
                 trace, cases[i][1], tu_tmpdir(), i);
        CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
        snprintf(args, sizeof args, "run -c '%s' -t '%s' --policy %s", cfg, trace, cases[i][1]);
        char *first_err = NULL;
        char *first = run_body(args, &first_err);
        /* the defrag cases have keys the run ignores, and say so the first time (--policy is
         * a switch: the other policy's key of case 3 is not warned about) */
        CU_ASSERT(i < 4 || (first_err && strstr(first_err, ": ignored")));
        free(first_err);
        snprintf(args, sizeof args, "run -c '%s/effback%zu/effective_config.yaml' -t '%s'",
                 tu_tmpdir(), i, trace);
        char *again = run_body(args, &err);
        CU_ASSERT(err && !*err);
        if (err && *err)
            printf("\n  case %zu: %s", i, err);
        CU_ASSERT(first && again && *first && strcmp(first, again) == 0);
        free(first);
        free(again);
        free(err);
        /* summary.json's echo of the config lists the same keys, so the rerun's is the same
         * file (QA: until 2026-11-27 it echoed the preset's bfc key, "allow_growth": "true"
         * under --policy caching, and the rerun bfc's default, "false") */
        snprintf(args, sizeof args, "run -c '%s/effback%zu/effective_config.yaml' -t '%s' -q "
                 "-o '%s/effback%zu.again'", tu_tmpdir(), i, trace, tu_tmpdir(), i);
        CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
        char p1[1024], p2[1024];
        snprintf(p1, sizeof p1, "%s/effback%zu/summary.json", tu_tmpdir(), i);
        snprintf(p2, sizeof p2, "%s/effback%zu.again/summary.json", tu_tmpdir(), i);
        char *s1 = tu_slurp(p1, NULL), *s2 = tu_slurp(p2, NULL);
        CU_ASSERT(s1 && s2 && strcmp(s1, s2) == 0);
        if (s1 && s2 && strcmp(s1, s2) != 0)
            printf("\n  case %zu: the summaries differ", i);
        if (strcmp(cases[i][1], "caching") == 0)
            CU_ASSERT(s1 && !strstr(s1, "allow_growth")); /* a bfc key: caching reads none */
        free(s1);
        free(s2);
    }
}

/* summary.json's `config` is the effective config (contract.md, Outputs) with YAML's types:
 * a plain integer or decimal a JSON number written as in the text (0.850 keeps its digits),
 * true/false and yes/no/on/off booleans, null words null; sizes with units, names and quoted
 * scalars strings. effective_config.yaml keeps a quoted number quoted, so its run echoes the
 * same summary.json. Until 2026-11-28 every scalar was echoed as a string ("version": "1"),
 * and the file wrote "0.5" as 0.5. */
static void test_config_echo_typed(void)
{
    const char *cfg = tu_write("echotyped.yaml",
                               "version: 1\nmemories:\n"
                               "  hbm:\n    capacity: 1GiB\n"
                               "    allocator: {policy: bfc, allow_growth: false, "
                               "memory_fraction: \"0.5\", garbage_collection: Yes, "
                               "region_coalescing: off}\n"
                               "  host: {capacity: 1GiB, kind: host, "
                               "allocator: {policy: best_fit}}\n"
                               "links:\n  pcie: {from: host, to: hbm, bandwidth: 1GB/s, "
                               "efficiency: 0.850, duplex: on}\n");
    char own[1024], args[4096], p1[1024], p2[1024];
    snprintf(own, sizeof own, "%s/traces/gpu_train_step.trace", tu_top());
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' -o '%s/echotyped'", cfg, own,
             tu_tmpdir());
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
    snprintf(p1, sizeof p1, "%s/echotyped/summary.json", tu_tmpdir());
    char *s1 = tu_slurp(p1, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s1);
    static const char *const want[] = {
        "\"config\": {\n    \"version\": 1,\n", "\"capacity\": \"1GiB\",",
        "\"policy\": \"bfc\",", "\"allow_growth\": false,", "\"memory_fraction\": \"0.5\",",
        "\"garbage_collection\": true,", "\"region_coalescing\": false,",
        "\"fragmentation_fraction\": 0,", "\"efficiency\": 0.850,", "\"duplex\": true,",
        "\"spill_host\": null,", "\"kind\": \"host\",",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        CU_ASSERT_PTR_NOT_NULL(strstr(s1, want[i]));
        if (!strstr(s1, want[i]))
            printf("\n  no %s", want[i]);
    }
    snprintf(p2, sizeof p2, "%s/echotyped/effective_config.yaml", tu_tmpdir());
    char *eff = tu_slurp(p2, NULL);
    CU_ASSERT(eff && strstr(eff, "memory_fraction: \"0.5\"\n") &&
              strstr(eff, "efficiency: 0.850\n"));
    free(eff);
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' -o '%s/echotyped.again'", p2, own,
             tu_tmpdir());
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
    snprintf(p2, sizeof p2, "%s/echotyped.again/summary.json", tu_tmpdir());
    char *s2 = tu_slurp(p2, NULL);
    CU_ASSERT(s2 && strcmp(s1, s2) == 0);
    free(s1);
    free(s2);
}

/* Run `run -q -c CFG -t TRACE -o OUT`, then read OUT/effective_config.yaml back from OUT, which
 * has no devices/ folder: it must run, warn about nothing and write the same summary.json. */
static void effcfg_reads_back_alone(const char *cfg, const char *trace, const char *out)
{
    char args[4096], eff[1200], again[1200], *err = NULL;
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' -o '%s'", cfg, trace, out);
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
    snprintf(eff, sizeof eff, "%s/effective_config.yaml", out);
    snprintf(again, sizeof again, "%s.again", out);
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' -o '%s'", eff, trace, again);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 0);
    CU_ASSERT(err && !*err);
    if (err && *err)
        printf("\n  %s: %s", eff, err);
    free(err);
    snprintf(args, sizeof args, "check '%s'", eff);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
    char p1[1300], p2[1300];
    snprintf(p1, sizeof p1, "%s/summary.json", out);
    snprintf(p2, sizeof p2, "%s/summary.json", again);
    char *s1 = tu_slurp(p1, NULL), *s2 = tu_slurp(p2, NULL);
    CU_ASSERT(s1 && s2 && strcmp(s1, s2) == 0);
    if (s1 && s2 && strcmp(s1, s2) != 0)
        printf("\n  %s: the summaries differ", out);
    /* the device is named as before: the summary's echo and the text report */
    CU_ASSERT(s2 && strstr(s2, "\"device\": \""));
    CU_ASSERT(s2 && !strstr(s2, "preset_merged"));
    free(s1);
    free(s2);
    snprintf(p1, sizeof p1, "%s/effective_config.yaml", again);
    s1 = tu_slurp(eff, NULL), s2 = tu_slurp(p1, NULL);
    CU_ASSERT(s1 && s2 && strcmp(s1, s2) == 0); /* and writes the same file again */
    free(s1);
    free(s2);
}

/* QA: effective_config.yaml said `device: NAME`, so reading it back searched for the preset
 * again from the file's own folder: a preset found beside the user's config (or through
 * $AMSIM_DEVICES, since unset) was `unknown device 'mydev'`, and a local preset with a shipped
 * preset's name was silently replaced by the shipped one (memories and links added, other
 * results, status 0). The file says `preset_merged: true`: the device is a label, no preset is
 * looked up. A file without it (written until 2026-11-28) still loads its preset. */
static void test_effective_config_without_preset_search(void)
{
    static const char *const mydev =
        "version: 1\nmemories:\n  hbm: {kind: hbm, capacity: 4GiB}\n"
        "  host: {kind: host_pinned, capacity: 8GiB}\n"
        "links:\n  pcie: {from: host, to: hbm, bandwidth: 10GB/s}\n";
    char trace[1024], d[1200], cfg[1024], out[1024], args[4096];
    snprintf(trace, sizeof trace, "%s/traces/gpu_train_step.trace", tu_top());
    const char *tmp = tu_tmpdir();
    /* A: p/devices/mydev.yaml beside p/cfg.yaml; B: q/devices/h100.yaml, hbm and host only */
    const char *folders[] = {"effp", "effq"}, *names[] = {"mydev", "h100"};
    for (int i = 0; i < 2; i++) {
        snprintf(d, sizeof d, "%s/%s", tmp, folders[i]);
        mkdir(d, 0777);
        snprintf(d, sizeof d, "%s/%s/devices", tmp, folders[i]);
        mkdir(d, 0777);
        snprintf(d, sizeof d, "%s/devices/%s.yaml", folders[i], names[i]);
        tu_write(d, mydev);
        snprintf(d, sizeof d, "%s/cfg.yaml", folders[i]);
        snprintf(cfg, sizeof cfg, "%s/%s/cfg.yaml", tmp, folders[i]);
        tu_write(d, i == 0 ? "version: 1\ndevice: mydev\n" : "version: 1\ndevice: h100\n");
        snprintf(out, sizeof out, "%s/effout%d", tmp, i);
        effcfg_reads_back_alone(cfg, trace, out);
    }
    char *s = NULL;
    snprintf(out, sizeof out, "%s/effout1.again/summary.json", tmp);
    s = tu_slurp(out, NULL);
    CU_ASSERT(s && !strstr(s, "host_pageable") && !strstr(s, "smem")); /* q's h100, not ours */
    free(s);
    /* a preset found through $AMSIM_DEVICES, read back once it is unset */
    snprintf(d, sizeof d, "%s/effp/devices", tmp);
    setenv("AMSIM_DEVICES", d, 1);
    snprintf(cfg, sizeof cfg, "%s", tu_write("effenv.yaml", "version: 1\ndevice: mydev\n"));
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' -o '%s/effenv'", cfg, trace, tmp);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
    unsetenv("AMSIM_DEVICES");
    snprintf(out, sizeof out, "%s/effenv2", tmp);
    snprintf(cfg, sizeof cfg, "%s/effenv/effective_config.yaml", tmp);
    effcfg_reads_back_alone(cfg, trace, out);
    /* a batch run folder's, for a preset beside the sweep's base config */
    char sweep[4096], study[1024];
    snprintf(sweep, sizeof sweep, "base: %s/effp/cfg.yaml\ntraces: ['%s']\npolicies: [bfc]\n",
             tmp, trace);
    snprintf(study, sizeof study, "%s/effstudy", tmp);
    snprintf(args, sizeof args, "batch '%s' -o '%s' -q -j1", tu_write("effsweep.yaml", sweep),
             study);
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
    glob_t g;
    snprintf(d, sizeof d, "%s/runs/*/effective_config.yaml", study);
    CU_ASSERT_EQUAL_FATAL(glob(d, 0, NULL, &g), 0);
    CU_ASSERT_EQUAL(g.gl_pathc, 1);
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s'", g.gl_pathv[0], trace);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
    globfree(&g);
    /* the old form: `device: mydev` without the marker still looks its preset up */
    snprintf(cfg, sizeof cfg, "%s/effout0/effective_config.yaml", tmp);
    s = tu_slurp(cfg, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    char *m = strstr(s, "preset_merged: true\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    memmove(m, m + strlen("preset_merged: true\n"), strlen(m + strlen("preset_merged: true\n")) + 1);
    snprintf(cfg, sizeof cfg, "%s", tu_write("effp/old.yaml", s));
    free(s);
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' -o '%s/effold'", cfg, trace, tmp);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
    snprintf(cfg, sizeof cfg, "%s", tu_write("effold.yaml", "version: 1\ndevice: mydev\n"));
    snprintf(args, sizeof args, "check '%s'", cfg); /* not beside effp/devices: not found */
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 1);
    /* in the new form, summaries name the device as before */
    snprintf(out, sizeof out, "%s/effout0/summary.json", tmp);
    s = tu_slurp(out, NULL);
    CU_ASSERT(s && strstr(s, "\"device\": \"mydev\""));
    free(s);
}

/* The effective config of `device: h100` on the spill trace, written once into TMP/effh
 * (a preset_merged: true config); its path into eff (1200 bytes), the trace's into trace. */
static void effcfg_h100(char *eff, char *trace)
{
    char args[4096];
    snprintf(trace, 1024, "%s/traces/gpu_spill_step.trace", tu_top());
    snprintf(eff, 1200, "%s/effh/effective_config.yaml", tu_tmpdir());
    if (access(eff, R_OK) == 0)
        return;
    const char *cfg = tu_write("effh.yaml", "version: 1\ndevice: h100\n");
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' -o '%s/effh'", cfg, trace, tu_tmpdir());
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
}

/* QA: over preset_merged: true, `--set device=h1000` ran (status 0) and only relabelled the
 * run, `--set device=a100-80gb` ran h100's hardware under that name, and a sweep's axis of
 * devices made identical runs. Another name is refused at its place; the same one runs. */
static void test_effective_config_device_fixed(void)
{
    char eff[1200], trace[1024], args[4096], sw[4096], *err = NULL;
    effcfg_h100(eff, trace);
    const char *other[] = {"h1000", "a100-80gb"};
    for (int i = 0; i < 2; i++) {
        snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --set device=%s", eff, trace, other[i]);
        CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 1);
        char want[200];
        snprintf(want, sizeof want, "--set 'device=%s': device: cannot change 'h100' to '%s'",
                 other[i], other[i]);
        ASSERT_HAS(err, want);
        ASSERT_HAS(err, "start from a config without preset_merged");
        free(err);
        err = NULL;
    }
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --set device=h100", eff, trace);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
    /* a sweep's axis and set:, at the value */
    static const char *const lines[] = {"axes: {device: [h100, h1000, nonexistent-gpu]}\n",
                                        "set: {device: a100-80gb}\n"};
    static const char *const at[] = {":3:23: device: cannot change 'h100' to 'h1000'",
                                     ":3:15: device: cannot change 'h100' to 'a100-80gb'"};
    for (int i = 0; i < 2; i++) {
        snprintf(sw, sizeof sw, "base: %s\ntraces: ['%s']\n%s", eff, trace, lines[i]);
        const char *p = tu_write("effdev-sweep.yaml", sw);
        snprintf(args, sizeof args, "check '%s'", p);
        CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 1);
        ASSERT_HAS(err, at[i]);
        free(err);
        err = NULL;
    }
}

/* Standard output of `amsim ARGS` with {C} replaced by cfg, its "config" line left out (the
 * path given); NULL when the status is not want. */
static char *out_for(const char *args, const char *cfg, int want)
{
    char cmd[8192], *out = NULL, *err = NULL;
    const char *at = strstr(args, "{C}");
    snprintf(cmd, sizeof cmd, "%.*s'%s'%s", (int)(at - args), args, cfg, at + 3);
    int st = tu_amsim(cmd, &out, &err);
    if (st != want)
        printf("\n  amsim %s: status %d\n  %s", cmd, st, err ? err : "");
    free(err);
    if (st != want) {
        free(out);
        return NULL;
    }
    char *line = out ? strstr(out, "\"config\": \"") : NULL;
    if (line) { /* "config": "PATH", up to the end of its line */
        char *end = strchr(line, '\n');
        memmove(line, end ? end + 1 : line + strlen(line), strlen(end ? end + 1 : line) + 1);
    }
    return out;
}

/* QA: effective_config.yaml writes bfc's default memory_fraction 0.75 for h100's hbm, which the
 * preset leaves unwritten so that another policy does not get it; a switch to caching (which
 * reads memory_fraction too, default no cap) over the effective config inherited it: at 1536MiB
 * 5 OOMs where `device: h100` had none, mincap 1.78 GiB for 1.33 GiB. Under preset_merged: true
 * a memory switched to another policy drops the file's allocator keys: every command that
 * switches gives what it gives on the config the file was written from. */
static void test_effective_config_policy_switch(void)
{
    char eff[1200], trace[1024], sw[4096], args[4096];
    effcfg_h100(eff, trace);
    const char *plain = tu_write("effh-plain.yaml", "version: 1\ndevice: h100\n");
    static const char *const cmds[][2] = { /* the command, the trace, then the options */
        {"run", "--policy caching --set memories.hbm.capacity=1536MiB --json -"},
        {"run", "--set memories.hbm.allocator.policy=caching "
                "--set memories.hbm.capacity=1536MiB --json -"},
        {"run", "--policy caching --set memories.hbm.allocator.memory_fraction=0.5 --json -"},
        {"run", "--policy bfc --set memories.hbm.capacity=1536MiB --json -"},
        {"compare", "--policies caching,bfc --set memories.hbm.capacity=1536MiB --json -"},
        {"mincap", "--policies caching --json -"},
    };
    for (size_t i = 0; i < AM_ARRAY_LEN(cmds); i++) {
        snprintf(args, sizeof args, "%s -q -c {C} -t '%s' %s", cmds[i][0], trace, cmds[i][1]);
        char *a = out_for(args, plain, 0), *b = out_for(args, eff, 0);
        CU_ASSERT(a && b && strcmp(a, b) == 0);
        if (a && b && strcmp(a, b) != 0)
            printf("\n  %s: the outputs differ", args);
        free(a);
        free(b);
    }
    /* a sweep's policies: over it as its base: no OOM, as from the plain config */
    snprintf(sw, sizeof sw, "base: %s\ntraces: ['%s']\npolicies: [caching]\n"
             "set: {memories.hbm.capacity: 1536MiB}\n", eff, trace);
    const char *p = tu_write("effpol-sweep.yaml", sw);
    snprintf(args, sizeof args, "batch '%s' -o '%s/effpol' -q -j1", p, tu_tmpdir());
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
    glob_t g;
    snprintf(args, sizeof args, "%s/effpol/runs/*/summary.json", tu_tmpdir());
    CU_ASSERT_EQUAL_FATAL(glob(args, 0, NULL, &g), 0);
    CU_ASSERT_EQUAL(g.gl_pathc, 1);
    char *s = tu_slurp(g.gl_pathv[0], NULL);
    const char *o = s ? strstr(s, "\"ooms\": ") : NULL; /* hbm's, the first level's */
    CU_ASSERT(o && strncmp(o, "\"ooms\": 0,", 10) == 0);
    free(s);
    globfree(&g);
}

void suite_config(void)
{
    TU_SUITE("config", {"valid", test_valid}, {"defaults", test_defaults},
             {"preset_merge", test_preset_merge}, {"preset_env", test_preset_env},
             {"shipped", test_shipped}, {"set", test_set}, {"set_errors", test_set_errors},
             {"trace.time_unit: a bare unit is 1 of it, as in a trace header",
              test_time_unit_bare},
             {"--set: keys of other policies ignored, of none refused", test_set_allocator_keys},
             {"a size that rounds to 0 bytes", test_size_rounds_to_zero},
             {"errors", test_errors},
             {"long maps and lists parse in linear time", test_long_maps_and_lists},
             {"null where a map is expected is an empty map", test_null_maps},
             {"warnings in the order of the file; --set and defrag keys ignored",
              test_warnings_in_file_order},
             {"one form for numbers of every type", test_number_forms},
             {"summary.json's config echo has YAML's types", test_config_echo_typed},
             {"other_policy_keys", test_other_policy_keys},
             {"values of other policies' keys checked as theirs", test_other_policy_values},
             {"the option at a dotted path, its values as the config reads them", test_path_opt},
             {"apply_opts", test_apply_opts}, {"round_trip", test_round_trip},
             {"a switched policy is checked by its own rules", test_switched_policy_rules},
             {"mincap: a capacity an option rule refuses fails", test_mincap_refused_capacity},
             {"another policy's bad value: plain where the command switches policies",
              test_other_policy_value_switched},
             {"run -o's effective_config.yaml reads back without warnings, the same run and "
              "summary.json",
              test_effective_config_reads_back},
             {"effective_config.yaml reads back wherever it is, without the preset search",
              test_effective_config_without_preset_search},
             {"over preset_merged: true another device is refused, the same one runs",
              test_effective_config_device_fixed},
             {"over preset_merged: true a switched policy drops the file's allocator keys",
              test_effective_config_policy_switch});
}
