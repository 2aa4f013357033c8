/* testutil.h - helpers shared by the CUnit suites. */
#ifndef AM_TESTUTIL_H
#define AM_TESTUTIL_H

#include <CUnit/CUnit.h>
#include <stddef.h>
#include <stdint.h>

#ifndef TU_SUITES_FILE
#define TU_SUITES_FILE "suites.def" /* -DTU_SUITES_FILE='"my.def"' builds a subset */
#endif

/* Each test file defines `void suite_NAME(void)` that adds its suite (see suites.def). */
#define SUITE(name) void suite_##name(void);
#include TU_SUITES_FILE
#undef SUITE

/* Add a suite with the given tests: ADD_SUITE("bfc", {"rounding", test_rounding}, ...). */
typedef struct tu_test { const char *name; CU_TestFunc fn; } tu_test;
void tu_add_suite(const char *name, const tu_test *tests, size_t n);
#define TU_SUITE(name, ...) do { \
        static const tu_test tu_tests_[] = {__VA_ARGS__}; \
        tu_add_suite(name, tu_tests_, sizeof tu_tests_ / sizeof tu_tests_[0]); \
    } while (0)

/* Path of ../shared/data/<rel> next to the repository, or NULL when absent (prints one
 * "skipped: ..." line the first time a suite asks). */
const char *tu_shared(const char *rel);
/* The repository's top directory (absolute). */
const char *tu_top(void);
/* A fresh temporary directory for this process (removed at exit). */
const char *tu_tmpdir(void);
/* Write text to DIR/name and return the full path (static buffer rotation of 8). */
const char *tu_write(const char *name, const char *text);
/* Run the amsim binary (from $AMSIM) with a shell-quoted argument string; capture stdout and
 * stderr (each truncated to 64 KiB) and return the exit status. */
int tu_amsim(const char *args, char **out, char **errout);
/* Read a whole file (NULL if missing); caller frees. */
char *tu_slurp(const char *path, size_t *len);
/* Occurrences of sub in s (not overlapping); 0 for a NULL s. */
int tu_count(const char *s, const char *sub);
/* A seeded pseudo-random number (splitmix64): the randomised structure tests replay exactly. */
static inline uint64_t tu_rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

#endif
