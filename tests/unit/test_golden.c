/* test_golden.c - golden results for the shipped example traces: every figure of the run that
 * should not move without a reason (per-level peaks, OOMs, counts, fragmentation bytes, per-link
 * bytes and busy time, makespan, a digest of every placement) compared field by field with
 * tests/golden/NAME.golden. Integers are exact; no tolerance is needed because runs are
 * deterministic. The files are rewritten only by `make regen-golden` (AMSIM_REGEN_GOLDEN=1). */
#define _GNU_SOURCE
#include <CUnit/CUnit.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/link.h"
#include "../../sim/run.h"
#include "testutil.h"

typedef struct golden_case {
    const char *name, *config, *trace;
} golden_case;

static const golden_case cases[] = {
    {"gpu_train_step", "configs/default.yaml", "traces/gpu_train_step.trace"},
    {"tpu_step", "configs/devices/tpu-v5e.yaml", "traces/tpu_step.trace"},
};

/* FNV-1a 64 over a file's bytes. */
static uint64_t digest(const char *path)
{
    size_t n = 0;
    char *b = tu_slurp(path, &n);
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; b && i < n; i++) {
        h ^= (unsigned char)b[i];
        h *= 1099511628211ULL;
    }
    free(b);
    return h;
}

typedef struct gctx {
    char *buf;
    size_t len;
    FILE *f;
} gctx;

static void collect(void *ctx, sim *s, const report_trace *t)
{
    FILE *f = ((gctx *)ctx)->f;
    const sim_summary *su = sim_get_summary(s);
    fprintf(f, "events %" PRIu64 "\nallocs %" PRIu64 "\nfrees %" PRIu64 "\nooms %" PRIu64
               "\nmakespan_ps %" PRIu64 "\nstall_ps %" PRIu64 "\n",
            t->events, su->allocs, su->frees, su->ooms, su->makespan, su->stall);
    for (int i = 0; i < sim_nlevels(s); i++) {
        mem_level *m = sim_level(s, i);
        const mem_metrics *mm = mem_get_metrics(m);
        const char *n = mem_name(m);
        fprintf(f, "%s.peak_live_bytes %" PRIu64 "\n%s.peak_reserved_bytes %" PRIu64 "\n"
                   "%s.peak_allocated_bytes %" PRIu64 "\n%s.reserved_unallocated_at_peak %" PRIu64
                   "\n%s.internal_frag_at_peak_live %" PRIu64 "\n%s.ooms %" PRIu64 "\n"
                   "%s.device_allocs %" PRIu64 "\n%s.max_external_frag_ppm %.0f\n",
                n, mm->peak_live_bytes, n, mm->peak_reserved_bytes, n, mm->peak_allocated_bytes, n,
                mm->reserved_unallocated_at_peak, n, mm->internal_frag_at_peak_live, n, mm->ooms,
                n, mm->device_allocs, n, mm->have_external_frag ? mm->max_external_frag * 1e6 : -1.0);
    }
    sim_link_result lr[64];
    int nl = sim_links(s, lr, 64);
    for (int i = 0; i < nl; i++)
        fprintf(f, "link.%s.%d.bytes %" PRIu64 "\nlink.%s.%d.count %" PRIu64
                   "\nlink.%s.%d.busy_ps %" PRIu64 "\n",
                lr[i].name, lr[i].dir, (uint64_t)lr[i].st->bytes, lr[i].name, lr[i].dir, lr[i].st->count,
                lr[i].name, lr[i].dir, lr[i].st->busy_ps);
    /* a half-duplex link: the channel both directions share, after its second direction */
    for (int i = 0; i < nl; i++)
        if (lr[i].shared && lr[i].dir == 1)
            fprintf(f, "link.%s.shared.busy_ps %" PRIu64 "\n", lr[i].name, lr[i].channel->busy_ps);
}

static void test_golden(void)
{
    int regen = getenv("AMSIM_REGEN_GOLDEN") != NULL;
    for (size_t k = 0; k < AM_ARRAY_LEN(cases); k++) {
        char cfg[1024], tr[1024], pl[1024], gold[1024];
        snprintf(cfg, sizeof cfg, "%s/%s", tu_top(), cases[k].config);
        snprintf(tr, sizeof tr, "%s/%s", tu_top(), cases[k].trace);
        snprintf(pl, sizeof pl, "%s/golden_%s.csv", tu_tmpdir(), cases[k].name);
        snprintf(gold, sizeof gold, "%s/tests/golden/%s.golden", tu_top(), cases[k].name);
        run_spec sp = {.config = cfg, .trace = tr, .placements = pl, .check = 1};
        gctx g = {NULL, 0, NULL};
        g.f = open_memstream(&g.buf, &g.len);
        am_error err = {0};
        int rc = run_once(&sp, collect, &g, NULL, &err);
        if (rc)
            printf("\n%s: %s\n", cases[k].name, err.msg);
        CU_ASSERT_EQUAL_FATAL(rc, 0);
        fprintf(g.f, "placements_fnv1a %016" PRIx64 "\n", digest(pl));
        fclose(g.f);
        if (regen) {
            FILE *o = fopen(gold, "w");
            CU_ASSERT_PTR_NOT_NULL_FATAL(o);
            fputs(g.buf, o);
            fclose(o);
            printf("\nregenerated %s\n", gold);
        } else {
            char *want = tu_slurp(gold, NULL);
            CU_ASSERT_PTR_NOT_NULL(want);
            /* Field by field, so a failure names what moved. */
            char *w = want, *got = g.buf;
            while (want && *w && *got) {
                char *we = strchr(w, '\n'), *ge = strchr(got, '\n');
                size_t wl = we ? (size_t)(we - w) : strlen(w), gl = ge ? (size_t)(ge - got) : strlen(got);
                if (wl != gl || memcmp(w, got, wl) != 0) {
                    printf("\n%s: expected '%.*s', got '%.*s'\n", cases[k].name, (int)wl, w, (int)gl, got);
                    CU_FAIL("golden field moved");
                }
                w += wl + (we != NULL);
                got += gl + (ge != NULL);
            }
            CU_ASSERT(want && *w == 0 && *got == 0);
            free(want);
        }
        free(g.buf);
    }
}

void suite_golden(void)
{
    TU_SUITE("golden", {"shipped traces against tests/golden", test_golden});
}
