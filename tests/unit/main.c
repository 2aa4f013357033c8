/* main.c - runs every CUnit suite listed in suites.def; ends with CUnit's summary and a plain
 * "N passed, N failed" line. Exit status 0 only when every test passed. */
#define _GNU_SOURCE
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#ifndef AMSIM_SOURCE_DIR
#define AMSIM_SOURCE_DIR "."
#endif

void tu_add_suite(const char *name, const tu_test *tests, size_t n)
{
    CU_pSuite s = CU_add_suite(name, NULL, NULL);
    if (!s) {
        fprintf(stderr, "cannot add suite %s\n", name);
        exit(2);
    }
    for (size_t i = 0; i < n; i++)
        CU_add_test(s, tests[i].name, tests[i].fn);
}

const char *tu_top(void) { return AMSIM_SOURCE_DIR; }

const char *tu_shared(const char *rel)
{
    static char buf[8][4096];
    static int k, warned;
    char *p = buf[k++ % 8];
    const char *base = getenv("AMSIM_SHARED");
    if (base)
        snprintf(p, sizeof buf[0], "%s/data/%s", base, rel);
    else
        snprintf(p, sizeof buf[0], "%s/../shared/data/%s", AMSIM_SOURCE_DIR, rel);
    if (access(p, R_OK) == 0)
        return p;
    if (!warned++)
        printf("\nskipped: ../shared/data is absent (%s); tests on real recordings do not run\n", p);
    return NULL;
}

static char tmpdir[256];

static void rm_tmpdir(void)
{
    if (tmpdir[0]) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", tmpdir);
    }
}

const char *tu_tmpdir(void)
{
    if (!tmpdir[0]) {
        snprintf(tmpdir, sizeof tmpdir, "/tmp/amsim-test-XXXXXX");
        if (!mkdtemp(tmpdir)) {
            perror("mkdtemp");
            exit(2);
        }
        atexit(rm_tmpdir);
    }
    return tmpdir;
}

const char *tu_write(const char *name, const char *text)
{
    static char buf[8][512];
    static int k;
    char *p = buf[k++ % 8];
    snprintf(p, sizeof buf[0], "%s/%s", tu_tmpdir(), name);
    FILE *f = fopen(p, "wb");
    if (!f) {
        perror(p);
        exit(2);
    }
    fputs(text, f);
    fclose(f);
    return p;
}

int tu_count(const char *s, const char *sub)
{
    int n = 0;
    for (const char *p = s; p && (p = strstr(p, sub)); p += strlen(sub))
        n++;
    return n;
}

char *tu_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *b = malloc(cap);
    size_t r;
    while (b && (r = fread(b + n, 1, cap - n - 1, f)) > 0) {
        n += r;
        if (cap - n - 1 == 0) {
            cap *= 2;
            b = realloc(b, cap);
        }
    }
    fclose(f);
    if (!b)
        return NULL;
    b[n] = 0;
    if (len)
        *len = n;
    return b;
}

int tu_amsim(const char *args, char **out, char **errout)
{
    const char *bin = getenv("AMSIM");
    char cmd[16384], o[512], e[512]; /* room for 257 --set options (test_batch.c) */
    snprintf(o, sizeof o, "%s/.stdout", tu_tmpdir());
    snprintf(e, sizeof e, "%s/.stderr", tu_tmpdir());
    snprintf(cmd, sizeof cmd, "%s %s >'%s' 2>'%s' </dev/null", bin ? bin : "../../build/amsim",
             args, o, e);
    int st = system(cmd);
    if (out)
        *out = tu_slurp(o, NULL);
    if (errout)
        *errout = tu_slurp(e, NULL);
    if (st == -1 || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

/* No argument: every suite. `test_amsim SUITE ["TEST NAME"]`: one suite, or one test of it, as
 * when a test is run again and again to find what makes it fail now and then. */
int main(int argc, char **argv)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
#define SUITE(name) suite_##name();
#include TU_SUITES_FILE
#undef SUITE
    CU_basic_set_mode(CU_BRM_NORMAL);
    if (argc > 1) {
        CU_pSuite s = CU_get_suite(argv[1]);
        CU_pTest t = s && argc > 2 ? CU_get_test(s, argv[2]) : NULL;
        if (!s || (argc > 2 && !t)) {
            fprintf(stderr, "no %s '%s'\n", s ? "test" : "suite", s ? argv[2] : argv[1]);
            CU_cleanup_registry();
            return 2;
        }
        if (t)
            CU_basic_run_test(s, t);
        else
            CU_basic_run_suite(s);
    } else {
        CU_basic_run_tests();
    }
    unsigned failed = CU_get_number_of_tests_failed();
    unsigned run = CU_get_number_of_tests_run();
    unsigned afail = CU_get_number_of_failures();
    printf("\n%u passed, %u failed\n", run - failed, failed);
    CU_cleanup_registry();
    return (failed || afail) ? 1 : 0;
}
