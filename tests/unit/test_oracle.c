/* test_oracle.c - every vector in ../shared/data/bfc-oracle reproduced line for line: regions
 * taken and given back (R/G), every placement (A) and out-of-memory (OOM), and the final
 * statistics line (S), from a replay of the lifetime CSV the vector names. Skipped with a
 * message when ../shared is absent. */
#define _GNU_SOURCE
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../sim/config.h"
#include "../../sim/engine.h"
#include "../../sim/trace.h"
#include "testutil.h"

/* Find NAME under the shared data folders that hold lifetime CSVs. */
static const char *find_csv(const char *name)
{
    static const char *dirs[] = {"minimalloc/challenging", "idealloc/somas_tensors", "idealloc/iree"};
    static char path[4096];
    const char *base = tu_shared(".");
    for (size_t i = 0; base && i < AM_ARRAY_LEN(dirs); i++) {
        snprintf(path, sizeof path, "%.2000s/%s/%.300s", base, dirs[i], name);
        if (access(path, R_OK) == 0)
            return path;
    }
    return NULL;
}

/* Run one vector; returns the number of differing lines (0 = exact). */
static int run_vector(const char *vec_path, char *why, size_t whylen)
{
    size_t len;
    char *exp = tu_slurp(vec_path, &len);
    if (!exp) {
        snprintf(why, whylen, "cannot read %.300s", vec_path);
        return 1;
    }
    char src[256] = "", lim[32] = "", dev[32] = "";
    int g = 0, gc = 0, rc = 0;
    const char *line2 = strchr(exp, '\n');
    if (sscanf(exp, "# source %255s", src) != 1 || !line2 ||
        sscanf(line2 + 1, "# limit %31s device_bytes %31s allow_growth %d garbage_collection %d",
               lim, dev, &g, &gc) != 4) {
        snprintf(why, whylen, "%.300s: unreadable header", vec_path);
        free(exp);
        return 1;
    }
    const char *csv = find_csv(src);
    if (!csv) {
        snprintf(why, whylen, "source %s not found", src);
        free(exp);
        return 1;
    }
    char y[1024];
    snprintf(y, sizeof y,
             "version: 1\nmemories:\n  hbm:\n    capacity: %s\n    allocator:\n      policy: bfc\n"
             "      memory_limit: %s\n      allow_growth: %s\n      garbage_collection: %s\n"
             "      region_coalescing: false\ntrace:\n  lifetimes: %s\n",
             dev, lim, g ? "true" : "false", gc ? "true" : "false",
             strstr(csv, "iree") ? "inclusive" : "half_open");
    am_config *cfg = NULL;
    am_error err = {0};
    char *logbuf = NULL;
    size_t loglen = 0;
    FILE *log = open_memstream(&logbuf, &loglen);
    trace *t = NULL;
    sim *s = NULL;
    const char *names[1] = {"hbm"};
    if (cfg_load_string(&cfg, "oracle.yaml", y, NULL, 0, &err) != 0) {
        snprintf(why, whylen, "config: %.600s", err.msg);
        rc = 1;
        goto out;
    }
    trace_opts to = {names, 1, 0, cfg->trace.lifetimes_inclusive, cfg->trace.time_unit, 0};
    sim_opts so = {.log = log};
    if (trace_open(&t, csv, &to, &err) || sim_create(&s, cfg, &so, &err) || sim_run(s, t, &err)) {
        snprintf(why, whylen, "run: %.600s", err.msg);
        rc = 1;
        goto out;
    }
    fflush(log);
    /* Compare line by line, skipping the expected file's comment lines. */
    char *e = exp, *gline = logbuf;
    unsigned long ln = 0;
    while (*e || *gline) {
        char *ee = strchr(e, '\n');
        size_t el = ee ? (size_t)(ee - e) : strlen(e);
        ln++;
        if (el && e[0] == '#') {
            e += el + (ee != NULL);
            continue;
        }
        char *ge = strchr(gline, '\n');
        size_t gl = ge ? (size_t)(ge - gline) : strlen(gline);
        if (el != gl || memcmp(e, gline, el) != 0) {
            snprintf(why, whylen, "%.300s line %lu: expected '%.*s', got '%.*s'", vec_path, ln,
                     (int)AM_MIN(el, 120), e, (int)AM_MIN(gl, 120), gline);
            rc = 1;
            break;
        }
        e += el + (ee != NULL);
        gline += gl + (ge != NULL);
    }
out:
    sim_destroy(s);
    trace_close(t);
    cfg_free(cfg);
    fclose(log);
    free(logbuf);
    free(exp);
    return rc;
}

static void test_all_vectors(void)
{
    const char *shared = tu_shared("bfc-oracle");
    if (!shared)
        return;
    char dir[4096];
    snprintf(dir, sizeof dir, "%.4000s", shared);
    DIR *d = opendir(dir);
    CU_ASSERT_FATAL(d != NULL);
    struct dirent *de;
    int n = 0, exact = 0;
    while ((de = readdir(d)) != NULL) {
        size_t l = strlen(de->d_name);
        if (l < 9 || strcmp(de->d_name + l - 9, ".expected") != 0)
            continue;
        char path[4096], why[1024] = "";
        snprintf(path, sizeof path, "%.2000s/%.1000s", dir, de->d_name);
        n++;
        if (run_vector(path, why, sizeof why) == 0)
            exact++;
        else
            printf("\n  %s\n", why);
    }
    closedir(d);
    printf(" [%d/%d BFC vectors exact] ", exact, n);
    CU_ASSERT(n >= 19);
    CU_ASSERT_EQUAL(exact, n);
}

void suite_oracle(void)
{
    TU_SUITE("bfc_oracle", {"every shared BFC vector line for line", test_all_vectors});
}
