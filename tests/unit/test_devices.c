/* test_devices.c - the shipped device presets (configs/devices/NAME.yaml), loaded as a user
 * config does ("version: 1\ndevice: NAME"): exact capacities of every level the preset defines,
 * exact host-link peak and efficiency, the policy of every level, that every level's capacity,
 * granularity and policy and every link's bandwidth, efficiency, latency and concurrency are
 * written in the preset (none left to a default), that every link joins two
 * existing levels, that no preset writes memory_fraction (it would leak into `--policy caching`),
 * that each preset file also loads on its own, that each device runs its shipped example
 * trace without an out-of-memory, that TPU VMEM pads requests to 4 KiB tiles (exact
 * placements) and the TPU7x accumulator to its 8 KiB buffers (out-of-memory count) while no
 * other level pads, that TPU VMEM transfers are charged in 4 KiB granules, and that TPU HBM
 * (only it) compacts when an allocation fails. The figures and
 * their sources are in the YAML comments and ../shared/specs/hardware.md; a change to a preset
 * must change this table too. */
#define _GNU_SOURCE
#include <CUnit/CUnit.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/config.h"
#include "../../sim/run.h"
#include "testutil.h"

#define KiB (1ULL << 10)
#define MiB (1ULL << 20)
#define GiB (1ULL << 30)
#define GB 1000000000ULL

/* One level a preset must have: its name, capacity in bytes and allocator policy. */
typedef struct want_level {
    const char *name;
    uint64_t capacity;
    const char *policy;
} want_level;

/* One link a preset must have, found by name: endpoints, peak bytes/s, efficiency, duplex. */
typedef struct want_link {
    const char *name, *from, *to;
    uint64_t bandwidth;
    double efficiency;
    int duplex;
} want_link;

typedef struct want_device {
    const char *name;
    const char *trace; /* shipped example trace the device must run without OOM */
    int nlevels, nlinks; /* exact counts: a level or link added or lost is noticed */
    want_level levels[8];
    want_link host_link; /* host -> hbm (pinned) */
    want_link links[6];  /* further links checked exactly (name NULL ends) */
} want_device;

#define GPU_TRACE "traces/gpu_train_step.trace"
#define TPU_TRACE "traces/tpu_step.trace"

/* GPU presets: hbm (bfc), host (pinned, platform), host_pageable (platform), smem (best_fit). */
#define GPU_LEVELS(hbm, host, smem)                                                          \
    {{"hbm", hbm, "bfc"}, {"host", host, "platform"}, {"host_pageable", host, "platform"},  \
     {"smem", smem, "best_fit"}}

static const want_device devices[] = {
    {"a100-80gb", GPU_TRACE, 4, 4, GPU_LEVELS(80 * GiB, 512 * GiB, 164 * KiB),
     {"pcie", "host", "hbm", 32 * GB, 0.85, 1},
     {{"pcie_pageable", "host_pageable", "hbm", 32 * GB, 0.5, 1},
      {"hbm_copy", "hbm", "hbm", 2039 * GB, 0.425, 1},
      {"sm_load", "hbm", "smem", 2039 * GB, 0.85, 0}}},
    {"h100", GPU_TRACE, 4, 4, GPU_LEVELS(80 * GiB, 512 * GiB, 228 * KiB),
     {"pcie", "host", "hbm", 64 * GB, 0.85, 1},
     {{"pcie_pageable", "host_pageable", "hbm", 64 * GB, 0.5, 1},
      {"hbm_copy", "hbm", "hbm", 3350 * GB, 0.425, 1},
      {"sm_load", "hbm", "smem", 3350 * GB, 0.85, 0}}},
    {"h200", GPU_TRACE, 4, 4, GPU_LEVELS(141 * GiB, 512 * GiB, 228 * KiB),
     {"pcie", "host", "hbm", 64 * GB, 0.85, 1},
     {{"pcie_pageable", "host_pageable", "hbm", 64 * GB, 0.5, 1},
      {"hbm_copy", "hbm", "hbm", 4800 * GB, 0.425, 1},
      {"sm_load", "hbm", "smem", 4800 * GB, 0.85, 0}}},
    {"b200", GPU_TRACE, 4, 4, GPU_LEVELS(178 * GiB, 512 * GiB, 228 * KiB),
     {"pcie", "host", "hbm", 64 * GB, 0.85, 1},
     {{"pcie_pageable", "host_pageable", "hbm", 64 * GB, 0.5, 1},
      {"hbm_copy", "hbm", "hbm", 8000 * GB, 0.425, 1},
      {"sm_load", "hbm", "smem", 8000 * GB, 0.85, 0}}},
    {"gh200", GPU_TRACE, 4, 4, GPU_LEVELS(96 * GiB, 480 * GiB, 228 * KiB),
     {"c2c", "host", "hbm", 450 * GB, 0.85, 1},
     {{"c2c_pageable", "host_pageable", "hbm", 450 * GB, 0.5, 1},
      {"hbm_copy", "hbm", "hbm", 3000 * GB, 0.425, 1},
      {"sm_load", "hbm", "smem", 3000 * GB, 0.85, 0}}},
    {"tpu-v4", TPU_TRACE, 6, 5,
     {{"hbm", 32 * GiB, "bfc"}, {"vmem", 16 * MiB, "best_fit"}, {"smem", MiB, "best_fit"},
      {"cmem", 128 * MiB, "best_fit"}, {"accumulator", 256 * KiB, "best_fit"},
      {"host", 192 * GiB, "platform"}},
     {"pcie", "host", "hbm", 16 * GB, 0.85, 1},
     {{"dma", "hbm", "vmem", 1230 * GB, 0.85, 0},
      {"cmem_dma", "hbm", "cmem", 1230 * GB, 0.85, 0},
      {"hbm_copy", "hbm", "hbm", 1230 * GB, 0.425, 1},
      {"mxu", "vmem", "accumulator", 3072 * GB, 1.0, 1}}},
    {"tpu-v5e", TPU_TRACE, 5, 4,
     {{"hbm", 16 * GB, "bfc"}, {"vmem", 128 * MiB, "best_fit"}, {"smem", MiB, "best_fit"},
      {"accumulator", 256 * KiB, "best_fit"}, {"host", 192 * GiB, "platform"}},
     {"pcie", "host", "hbm", 15 * GB, 0.85, 1},
     {{"dma", "hbm", "vmem", 819 * GB, 0.85, 0},
      {"hbm_copy", "hbm", "hbm", 819 * GB, 0.425, 1},
      {"mxu", "vmem", "accumulator", 3072 * GB, 1.0, 1}}},
    {"tpu-v5p", TPU_TRACE, 5, 4,
     {{"hbm", 95 * GiB, "bfc"}, {"vmem", 64 * MiB, "best_fit"}, {"smem", MiB, "best_fit"},
      {"accumulator", 256 * KiB, "best_fit"}, {"host", 192 * GiB, "platform"}},
     {"pcie", "host", "hbm", 15 * GB, 0.85, 1},
     {{"dma", "hbm", "vmem", 2460 * GB, 0.85, 0},
      {"hbm_copy", "hbm", "hbm", 2460 * GB, 0.425, 1},
      {"mxu", "vmem", "accumulator", 3072 * GB, 1.0, 1}}},
    {"tpu-v6e", TPU_TRACE, 5, 4,
     {{"hbm", 32 * GB, "bfc"}, {"vmem", 128 * MiB, "best_fit"}, {"smem", MiB, "best_fit"},
      {"accumulator", 512 * KiB, "best_fit"}, {"host", 192 * GiB, "platform"}},
     {"pcie", "host", "hbm", 32 * GB, 0.85, 1},
     {{"dma", "hbm", "vmem", 1638 * GB, 0.85, 0},
      {"hbm_copy", "hbm", "hbm", 1638 * GB, 0.425, 1},
      {"mxu", "vmem", "accumulator", 3072 * GB, 1.0, 1}}},
    {"tpu7x", TPU_TRACE, 5, 4,
     {{"hbm", 192 * GiB, "bfc"}, {"vmem", 64 * MiB, "best_fit"}, {"smem", MiB, "best_fit"},
      {"accumulator", 2 * MiB, "best_fit"}, {"host", 192 * GiB, "platform"}},
     {"pcie", "host", "hbm", 32 * GB, 0.85, 1},
     {{"dma", "hbm", "vmem", 7380 * GB, 0.85, 0},
      {"hbm_copy", "hbm", "hbm", 7380 * GB, 0.425, 1},
      {"mxu", "vmem", "accumulator", 3072 * GB, 1.0, 1}}},
};

#define NDEV (sizeof devices / sizeof devices[0])

static am_config *load_device(const char *name, const char *const *sets, int nsets)
{
    char y[256];
    snprintf(y, sizeof y, "version: 1\ndevice: %s\n", name);
    am_config *c = NULL;
    am_error err = {0};
    if (cfg_load_string(&c, "devices-test.yaml", y, sets, nsets, &err) != 0) {
        printf("\n  device %s: %s\n", name, err.msg);
        return NULL;
    }
    return c;
}

static int link_index(const am_config *c, const char *name)
{
    for (int i = 0; i < c->nlinks; i++)
        if (strcmp(c->links[i].name, name) == 0)
            return i;
    return -1;
}

static int level_index(const am_config *c, const char *name)
{
    return cfg_level_index(c, name, strlen(name));
}

/* The link named w->name exists with exactly the expected endpoints and figures. */
static void check_link(const want_device *d, const am_config *c, const want_link *w)
{
    int k = link_index(c, w->name);
    if (k < 0) {
        printf("\n  %s: no link '%s'\n", d->name, w->name);
        CU_FAIL("expected link missing");
        return;
    }
    const cfg_link *l = &c->links[k];
    int from = level_index(c, w->from), to = level_index(c, w->to);
    if (l->from != from || l->to != to || l->bandwidth != w->bandwidth ||
        l->efficiency != w->efficiency || !l->duplex != !w->duplex) {
        printf("\n  %s link %s: %d->%d %" PRIu64 " B/s eff %g duplex %d; want %s(%d)->%s(%d) "
               "%" PRIu64 " B/s eff %g duplex %d\n",
               d->name, w->name, l->from, l->to, l->bandwidth, l->efficiency, l->duplex,
               w->from, from, w->to, to, w->bandwidth, w->efficiency, w->duplex);
        CU_FAIL("link figures differ");
    }
}

/* Capacities, policies, counts and links of every preset, exactly. */
static void test_figures(void)
{
    for (size_t i = 0; i < NDEV; i++) {
        const want_device *d = &devices[i];
        am_config *c = load_device(d->name, NULL, 0);
        CU_ASSERT_PTR_NOT_NULL(c);
        if (!c)
            continue;
        CU_ASSERT_STRING_EQUAL(c->device, d->name);
        CU_ASSERT_EQUAL(c->nlevels, d->nlevels);
        CU_ASSERT_EQUAL(c->nlinks, d->nlinks);
        CU_ASSERT_EQUAL(c->default_level, level_index(c, "hbm"));
        for (int k = 0; k < d->nlevels; k++) {
            const want_level *w = &d->levels[k];
            int li = level_index(c, w->name);
            if (li < 0) {
                printf("\n  %s: no level '%s'\n", d->name, w->name);
                CU_FAIL("expected level missing");
                continue;
            }
            const cfg_level *lv = &c->levels[li];
            if (lv->capacity != w->capacity) {
                printf("\n  %s.%s: capacity %" PRIu64 ", want %" PRIu64 "\n", d->name, w->name,
                       lv->capacity, w->capacity);
                CU_FAIL("capacity differs");
            }
            CU_ASSERT_PTR_NOT_NULL(lv->policy);
            if (lv->policy && strcmp(lv->policy->name, w->policy) != 0) {
                printf("\n  %s.%s: policy %s, want %s\n", d->name, w->name, lv->policy->name,
                       w->policy);
                CU_FAIL("policy differs");
            }
        }
        check_link(d, c, &d->host_link);
        for (const want_link *w = d->links; w->name; w++)
            check_link(d, c, w);
        cfg_free(c);
    }
}

/* Every level has a policy and every link joins two levels of the config, whatever the table
 * above says (a preset edited without updating the table still passes through here). */
static void test_structure(void)
{
    for (size_t i = 0; i < NDEV; i++) {
        am_config *c = load_device(devices[i].name, NULL, 0);
        CU_ASSERT_PTR_NOT_NULL(c);
        if (!c)
            continue;
        for (int k = 0; k < c->nlevels; k++) {
            CU_ASSERT_PTR_NOT_NULL(c->levels[k].policy);
            CU_ASSERT(c->levels[k].capacity > 0);
            CU_ASSERT(c->levels[k].granularity > 0);
        }
        for (int k = 0; k < c->nlinks; k++) {
            const cfg_link *l = &c->links[k];
            CU_ASSERT(l->from >= 0 && l->from < c->nlevels);
            CU_ASSERT(l->to >= 0 && l->to < c->nlevels);
            CU_ASSERT(l->bandwidth > 0);
            CU_ASSERT(l->efficiency > 0 && l->efficiency <= 1);
        }
        cfg_free(c);
    }
}

/* Whether section.name.key is written in the preset (line > 0), not filled in from a default
 * (line 0); if not, the device, the path and a failure. */
static void check_written(const char *dev, const am_config *c, const char *section,
                          const char *name, const char *key)
{
    char path[256];
    snprintf(path, sizeof path, "%s.%s.%s", section, name, key);
    const cfg_node *n = cfg_get(c->root, path);
    if (!n || n->line == 0) {
        printf("\n  %s: %s is not in the preset\n", dev, path);
        CU_FAIL("a preset figure left to its default");
    }
}

/* README ("Memory hierarchies"): a preset gives every level a capacity, a granularity and an
 * allocator, and every link a peak bandwidth, an efficiency, a latency and a concurrency, each
 * with its source or marked an assumption in a comment; none is left to a default. Until
 * 2026-11-27 no TPU level and no GPU host or smem level wrote its granularity, no link its
 * concurrency, and the TPU `mxu` links no efficiency or latency (the defaults applied: the
 * same figures, now written and marked as assumptions). */
static void test_figures_written(void)
{
    for (size_t i = 0; i < NDEV; i++) {
        am_config *c = load_device(devices[i].name, NULL, 0);
        CU_ASSERT_PTR_NOT_NULL(c);
        if (!c)
            continue;
        static const char *const level_keys[] = {"capacity", "granularity", "allocator.policy"};
        static const char *const link_keys[] = {"bandwidth", "efficiency", "latency",
                                                "concurrency"};
        for (int k = 0; k < c->nlevels; k++)
            for (size_t j = 0; j < AM_ARRAY_LEN(level_keys); j++)
                check_written(devices[i].name, c, "memories", c->levels[k].name, level_keys[j]);
        for (int k = 0; k < c->nlinks; k++)
            for (size_t j = 0; j < AM_ARRAY_LEN(link_keys); j++)
                check_written(devices[i].name, c, "links", c->links[k].name, link_keys[j]);
        cfg_free(c);
    }
}

/* No preset writes memory_fraction: BFC's 0.75 comes from its default (line 0), and switching
 * hbm to the caching policy leaves caching's own default (0 = no cap). */
static void test_no_memory_fraction(void)
{
    static const char *const to_caching[] = {"memories.hbm.allocator.policy=caching"};
    for (size_t i = 0; i < NDEV; i++) {
        am_config *c = load_device(devices[i].name, NULL, 0);
        CU_ASSERT_PTR_NOT_NULL(c);
        if (!c)
            continue;
        const cfg_node *n = cfg_get(c->root, "memories.hbm.allocator.memory_fraction");
        CU_ASSERT_PTR_NOT_NULL(n);
        if (n) {
            CU_ASSERT_EQUAL(n->line, 0); /* filled in from the policy default */
            CU_ASSERT_STRING_EQUAL(n->value, "0.75");
        }
        cfg_free(c);
        c = load_device(devices[i].name, to_caching, 1);
        CU_ASSERT_PTR_NOT_NULL(c);
        if (!c)
            continue;
        n = cfg_get(c->root, "memories.hbm.allocator.memory_fraction");
        CU_ASSERT_PTR_NOT_NULL(n);
        if (n && strcmp(n->value, "0") != 0) {
            printf("\n  %s --policy caching: memory_fraction %s\n", devices[i].name, n->value);
            CU_FAIL("memory_fraction leaks into the caching policy");
        }
        cfg_free(c);
    }
}

/* Each preset file is a complete config by itself (it carries version: 1). */
static void test_files_load(void)
{
    for (size_t i = 0; i < NDEV; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/configs/devices/%s.yaml", tu_top(), devices[i].name);
        am_config *c = NULL;
        am_error err = {0};
        int rc = cfg_load(&c, path, NULL, 0, &err);
        if (rc)
            printf("\n  %s: %s\n", path, err.msg);
        CU_ASSERT_EQUAL(rc, 0);
        if (c)
            CU_ASSERT_EQUAL(c->nlevels, devices[i].nlevels);
        cfg_free(c);
    }
}

/* Each device replays its shipped example trace (every level and link the trace names exists)
 * without an out-of-memory. */
static void test_runs(void)
{
    for (size_t i = 0; i < NDEV; i++) {
        char name[128], yaml[128], tpath[1024];
        snprintf(name, sizeof name, "cfg_%s.yaml", devices[i].name);
        snprintf(yaml, sizeof yaml, "version: 1\ndevice: %s\n", devices[i].name);
        snprintf(tpath, sizeof tpath, "%s/%s", tu_top(), devices[i].trace);
        run_spec sp;
        memset(&sp, 0, sizeof sp);
        sp.config = tu_write(name, yaml);
        sp.trace = tpath;
        sp.check = 1;
        uint64_t ooms = UINT64_MAX;
        am_error err = {0};
        int rc = run_once(&sp, NULL, NULL, &ooms, &err);
        if (rc)
            printf("\n  %s on %s: %s\n", devices[i].name, devices[i].trace, err.msg);
        CU_ASSERT_EQUAL(rc, 0);
        CU_ASSERT_EQUAL(ooms, 0);
    }
}

/* Placement rows "address,requested,allocated" of a run of trace under config yaml (with one
 * --set, or none), one per line. */
static char *vmem_rows(const char *yaml, const char *set)
{
    const char *tpath = tu_write("tiles.trace", "amsim-trace v1\n"
                                                "alloc 1 100 level=vmem\n"
                                                "alloc 2 100 level=vmem\n"
                                                "alloc 3 5000 level=vmem\n"
                                                "free 2\n"
                                                "alloc 4 4096 level=vmem\n"
                                                "free 1\nfree 3\nfree 4\n");
    char pl[1024];
    snprintf(pl, sizeof pl, "%s/tiles.csv", tu_tmpdir());
    run_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.config = tu_write("tiles.yaml", yaml);
    sp.trace = tpath;
    sp.placements = pl;
    sp.check = 1;
    if (set) {
        sp.sets[0] = set;
        sp.nsets = 1;
    }
    am_error err = {0};
    if (run_once(&sp, NULL, NULL, NULL, &err) != 0) {
        printf("\n  %s", err.msg);
        return NULL;
    }
    char *text = tu_slurp(pl, NULL), *rows = calloc(1, 512);
    size_t n = 0;
    for (char *line = text ? strchr(text, '\n') : NULL; line && line[1];
         line = strchr(line + 1, '\n')) {
        char a[32], r[32], g[32];
        if (sscanf(line + 1, "%*[^,],%*[^,],%*[^,],%31[^,],%31[^,],%31[^,],", a, r, g) == 3)
            n += (size_t)snprintf(rows + n, 512 - n, "%s,%s,%s\n", a, r, g);
    }
    free(text);
    return rows;
}

/* The padding a preset's level must have: 4 KiB tiles on TPU vmem, TPU7x's published 8 KiB
 * accumulator buffers (hardware.md), none elsewhere (no other unit is published). */
static uint64_t want_pad(const char *device, const char *level)
{
    int tpu = strncmp(device, "tpu", 3) == 0;
    if (tpu && !strcmp(level, "vmem"))
        return 4 * KiB;
    if (!strcmp(device, "tpu7x") && !strcmp(level, "accumulator"))
        return 8 * KiB;
    return 1;
}

/* TPU VMEM pads arrays to whole (8, 128) tiles of 4-byte words, 4 KiB (hardware.md): every
 * preset's vmem pads each request to a multiple of 4 KiB, so two 100-byte arrays sit at 0 and
 * 4096 and each takes 4096 bytes. Until 2026-11-25 the presets said it with `granularity`,
 * which rounds only device calls: best_fit placed them at 0 and 256, 256 bytes each. GPU
 * presets pad nothing. */
static void test_vmem_tiles(void)
{
    const char *want = "0,100,4096\n4096,100,4096\n8192,5000,8192\n4096,4096,4096\n";
    for (size_t i = 0; i < NDEV; i++) {
        am_config *c = load_device(devices[i].name, NULL, 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(c);
        int tpu = strncmp(devices[i].name, "tpu", 3) == 0;
        for (int k = 0; k < c->nlevels; k++)
            CU_ASSERT_EQUAL(c->levels[k].pad_requests_to,
                            want_pad(devices[i].name, c->levels[k].name));
        cfg_free(c);
        if (!tpu)
            continue;
        char yaml[128];
        snprintf(yaml, sizeof yaml, "version: 1\ndevice: %s\n", devices[i].name);
        char *rows = vmem_rows(yaml, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(rows);
        if (strcmp(rows, want) != 0)
            printf("\n  %s: %s", devices[i].name, rows);
        CU_ASSERT_STRING_EQUAL(rows, want);
        free(rows);
        /* without the padding: best_fit's own 256-byte alignment */
        rows = vmem_rows(yaml, "memories.vmem.pad_requests_to=1B");
        CU_ASSERT_PTR_NOT_NULL_FATAL(rows);
        CU_ASSERT_STRING_EQUAL(rows, "0,100,256\n256,100,256\n512,5000,5120\n5632,4096,4096\n");
        free(rows);
    }
}

/* run_once's callback: the run's makespan into *(am_ps *)ctx. */
static void keep_makespan(void *ctx, sim *s, const report_trace *t)
{
    *(am_ps *)ctx = sim_get_summary(s)->makespan;
}

/* Makespan in ps of one `transfer hbm vmem BYTES` into a buffer of as many bytes, under
 * device `name`; 0 if the run failed. */
static am_ps vmem_transfer_ps(const char *name, uint64_t bytes)
{
    char yaml[128], text[256];
    snprintf(yaml, sizeof yaml, "version: 1\ndevice: %s\n", name);
    snprintf(text, sizeof text, "amsim-trace v1\nalloc 1 %" PRIu64 " level=vmem\n"
             "transfer hbm vmem %" PRIu64 " id=1\nsync\nfree 1\n", bytes, bytes);
    run_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.config = tu_write("gran.yaml", yaml);
    sp.trace = tu_write("gran.trace", text);
    sp.check = 1;
    am_ps t = 0;
    am_error err = {0};
    if (run_once(&sp, keep_makespan, &t, NULL, &err) != 0)
        printf("\n  %s: %s", name, err.msg);
    return t;
}

/* [pallas] "VMEM transfers are 4 KiB granular" (hardware.md): every TPU preset's vmem has
 * transfer_granule 4 KiB, so a 100-byte copy from HBM takes exactly as long as a 4096-byte one
 * (tpu-v5e: 505.884 ns) and longer than the 4097-byte copy's half; no other level has a granule.
 * Until 2026-11-27 only allocations were padded: the 100-byte copy took 500.144 ns. */
static void test_vmem_transfer_granule(void)
{
    for (size_t i = 0; i < NDEV; i++) {
        am_config *c = load_device(devices[i].name, NULL, 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(c);
        int tpu = strncmp(devices[i].name, "tpu", 3) == 0;
        for (int k = 0; k < c->nlevels; k++)
            CU_ASSERT_EQUAL(c->levels[k].transfer_granule,
                            tpu && !strcmp(c->levels[k].name, "vmem") ? 4 * KiB : 1);
        cfg_free(c);
        if (!tpu)
            continue;
        am_ps small = vmem_transfer_ps(devices[i].name, 100);
        CU_ASSERT(small > 0);
        CU_ASSERT_EQUAL(small, vmem_transfer_ps(devices[i].name, 4096));
        CU_ASSERT(vmem_transfer_ps(devices[i].name, 4097) > small);
    }
    CU_ASSERT_EQUAL(vmem_transfer_ps("tpu-v5e", 100), 505884);
}

/* Out-of-memory count of `count` live 1 KiB accumulator requests (all freed at the end) under
 * device tpu7x, with one --set or none; UINT64_MAX if the run failed. */
static uint64_t accumulator_ooms(int count, const char *set)
{
    size_t cap = 64 + (size_t)count * 64, n = 0;
    char *text = malloc(cap);
    n += (size_t)snprintf(text + n, cap - n, "amsim-trace v1\n");
    for (int i = 1; i <= count; i++)
        n += (size_t)snprintf(text + n, cap - n, "alloc %d 1KiB level=accumulator\n", i);
    for (int i = 1; i <= count; i++)
        n += (size_t)snprintf(text + n, cap - n, "free %d\n", i);
    run_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.config = tu_write("acc.yaml", "version: 1\ndevice: tpu7x\n");
    sp.trace = tu_write("acc.trace", text);
    free(text);
    if (set) {
        sp.sets[0] = set;
        sp.nsets = 1;
    }
    uint64_t ooms = UINT64_MAX;
    am_error err = {0};
    if (run_once(&sp, NULL, NULL, &ooms, &err) != 0) {
        printf("\n  %s", err.msg);
        return UINT64_MAX;
    }
    return ooms;
}

/* hardware.md, TPU7x: "Accumulator memory ... 128 buffers x 8 KiB = 1 MiB per MXU". The
 * preset's 2 MiB (two MXUs) is 256 buffers, and a request takes whole buffers: 300 requests of
 * 1 KiB leave 44 out of memory. Until 2026-11-27 the preset padded nothing (granularity 1B)
 * and all 300 fitted, as they still do with the padding set back to 1 byte. */
static void test_tpu7x_accumulator_buffers(void)
{
    CU_ASSERT_EQUAL(accumulator_ooms(300, NULL), 44);
    CU_ASSERT_EQUAL(accumulator_ooms(256, NULL), 0);
    CU_ASSERT_EQUAL(accumulator_ooms(300, "memories.accumulator.pad_requests_to=1B"), 0);
}

/* Out-of-memory count of a fragmenting trace on hbm under device dev, hbm set to best_fit in
 * 4 MiB (four 1 MiB buffers, the first and third freed: 2 MiB free in two holes, then a 2 MiB
 * request), with one more --set or none; UINT64_MAX if the run failed. */
static uint64_t hbm_fragment_ooms(const char *dev, const char *set)
{
    char yaml[128];
    snprintf(yaml, sizeof yaml, "version: 1\ndevice: %s\n", dev);
    run_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.config = tu_write("frag.yaml", yaml);
    sp.trace = tu_write("frag.trace", "amsim-trace v1\nalloc 1 1MiB\nalloc 2 1MiB\n"
                        "alloc 3 1MiB\nalloc 4 1MiB\nfree 1\nfree 3\nalloc 5 2MiB\n"
                        "free 2\nfree 4\nfree 5\n");
    sp.sets[sp.nsets++] = "memories.hbm.allocator.policy=best_fit";
    sp.sets[sp.nsets++] = "memories.hbm.capacity=4MiB";
    if (set)
        sp.sets[sp.nsets++] = set;
    uint64_t ooms = UINT64_MAX;
    am_error err = {0};
    if (run_once(&sp, NULL, NULL, &ooms, &err) != 0) {
        printf("\n  %s", err.msg);
        return UINT64_MAX;
    }
    return ooms;
}

/* allocators.md section 2: the TPU runtime defragments automatically when an allocation fails
 * (compaction toward low addresses, triggered on allocation failure). Every TPU preset's hbm
 * says so (`defrag: {mode: compact, trigger: on_oom}`), and no GPU preset's (GPU JAX has no
 * automatic defragmentation): a 2 MiB request in two 1 MiB holes is served after a compaction
 * (0 OOMs), and fails with defragmentation set back to none. Until 2026-11-27 the TPU presets
 * left it off and the request ran out of memory. */
static void test_tpu_defrag(void)
{
    for (size_t i = 0; i < NDEV; i++) {
        am_config *c = load_device(devices[i].name, NULL, 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(c);
        int tpu = strncmp(devices[i].name, "tpu", 3) == 0;
        for (int k = 0; k < c->nlevels; k++) {
            int hbm = tpu && !strcmp(c->levels[k].name, "hbm");
            CU_ASSERT_EQUAL(c->levels[k].defrag.mode,
                            hbm ? CFG_DEFRAG_COMPACT : CFG_DEFRAG_NONE);
            if (hbm)
                CU_ASSERT_EQUAL(c->levels[k].defrag.trigger, CFG_TRIGGER_ON_OOM);
        }
        cfg_free(c);
        CU_ASSERT_EQUAL(hbm_fragment_ooms(devices[i].name, NULL), tpu ? 0 : 1);
        CU_ASSERT_EQUAL(hbm_fragment_ooms(devices[i].name, "memories.hbm.defrag.mode=none"), 1);
    }
}

void suite_devices(void)
{
    TU_SUITE("devices", {"preset figures exact", test_figures},
             {"levels have policies, links join levels", test_structure},
             {"every level and link figure written in the preset", test_figures_written},
             {"memory_fraction left to the policy", test_no_memory_fraction},
             {"preset files load alone", test_files_load},
             {"shipped traces run", test_runs},
             {"TPU VMEM pads requests to 4 KiB tiles", test_vmem_tiles},
             {"TPU VMEM transfers are charged in 4 KiB granules", test_vmem_transfer_granule},
             {"TPU7x accumulator pads requests to 8 KiB buffers",
              test_tpu7x_accumulator_buffers},
             {"TPU HBM compacts on allocation failure", test_tpu_defrag});
}
