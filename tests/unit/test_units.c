/* test_units.c - sizes, bandwidths and times: exact parsing, every unit, refusals, printing. */
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/units.h"
#include "testutil.h"

/* Parse s as a size and return it; fails the test when refused. */
static uint64_t size_ok(const char *s)
{
    uint64_t v = 12345;
    const char *why = NULL;
    CU_ASSERT_EQUAL_FATAL(units_size(s, &v, &why), 0);
    CU_ASSERT_PTR_NULL(why);
    return v;
}

static uint64_t bw_ok(const char *s)
{
    uint64_t v = 12345;
    CU_ASSERT_EQUAL_FATAL(units_bandwidth(s, &v, NULL), 0);
    return v;
}

static am_ps time_ok(const char *s)
{
    am_ps v = 12345;
    CU_ASSERT_EQUAL_FATAL(units_time(s, &v, NULL), 0);
    return v;
}

/* The parse must be refused, with a reason containing `part`, and must not touch the output. */
static void size_bad(const char *s, const char *part)
{
    uint64_t v = 777;
    const char *why = NULL;
    CU_ASSERT_EQUAL(units_size(s, &v, &why), -1);
    CU_ASSERT_EQUAL(v, 777);
    CU_ASSERT_PTR_NOT_NULL_FATAL(why);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, part));
}

static void test_sizes_exact(void)
{
    CU_ASSERT_EQUAL(size_ok("80GiB"), 85899345920ULL);
    CU_ASSERT_EQUAL(size_ok("1.5GiB"), 1610612736ULL);
    CU_ASSERT_EQUAL(size_ok("512"), 512);
    CU_ASSERT_EQUAL(size_ok("0"), 0);
    CU_ASSERT_EQUAL(size_ok("7B"), 7);
    CU_ASSERT_EQUAL(size_ok("1KiB"), 1024);
    CU_ASSERT_EQUAL(size_ok("2MiB"), 2097152);
    CU_ASSERT_EQUAL(size_ok("3TiB"), 3298534883328ULL);
    CU_ASSERT_EQUAL(size_ok("1KB"), 1000);
    CU_ASSERT_EQUAL(size_ok("4MB"), 4000000);
    CU_ASSERT_EQUAL(size_ok("16GB"), 16000000000ULL);
    CU_ASSERT_EQUAL(size_ok("2TB"), 2000000000000ULL);
    CU_ASSERT_EQUAL(size_ok("80 GiB"), 85899345920ULL); /* blank before the unit */
    CU_ASSERT_EQUAL(size_ok("0.25KiB"), 256);
    CU_ASSERT_EQUAL(size_ok("1e3"), 1000);
    CU_ASSERT_EQUAL(size_ok("1.5e3MB"), 1500000000ULL);
    CU_ASSERT_EQUAL(size_ok("2E-3MB"), 2000);
    CU_ASSERT_EQUAL(size_ok("18446744073709551615"), UINT64_MAX);
    CU_ASSERT_EQUAL(size_ok("16777215.99999999999TiB"), 18446744073709551605ULL);
    /* rounding to the nearest byte, ties up */
    CU_ASSERT_EQUAL(size_ok("1.4"), 1);
    CU_ASSERT_EQUAL(size_ok("1.5"), 2);
    CU_ASSERT_EQUAL(size_ok("0.0001KB"), 0);
    /* digits beyond 19 significant ones keep the magnitude */
    CU_ASSERT_EQUAL(size_ok("000000000000000000000000001GiB"), 1073741824ULL);
    CU_ASSERT_EQUAL(size_ok("0.000000000000000000000000001TB"), 0);
}

/* units_size_whole (a trace's request): the same values, but a fraction of a byte is refused
 * where units_size rounds it, and the output is not touched. */
static void test_sizes_whole(void)
{
    uint64_t v = 777;
    const char *why = NULL;
    CU_ASSERT_EQUAL(units_size_whole("1.5GiB", &v, &why), 0);
    CU_ASSERT_EQUAL(v, 1610612736ULL);
    CU_ASSERT_EQUAL(units_size_whole("0.25KiB", &v, &why), 0);
    CU_ASSERT_EQUAL(v, 256);
    CU_ASSERT_EQUAL(units_size_whole("2E-3MB", &v, &why), 0);
    CU_ASSERT_EQUAL(v, 2000);
    CU_ASSERT_EQUAL(units_size_whole("0", &v, &why), 0);
    CU_ASSERT_EQUAL(v, 0);
    static const char *const frac[] = {"1.5", "1.4B", "0.0001KB", "1.0001KiB",
                                       "0.000000000000000000000000001TB",
                                       "16777215.99999999999TiB"};
    for (size_t i = 0; i < sizeof frac / sizeof *frac; i++) {
        v = 777;
        why = NULL;
        CU_ASSERT_EQUAL(units_size_whole(frac[i], &v, &why), -1);
        CU_ASSERT_EQUAL(v, 777);
        CU_ASSERT(why && strcmp(why, "not a whole number of bytes") == 0);
    }
    /* a 27th significant digit that is not 0 cannot be read exactly: refused, not dropped */
    v = 777;
    CU_ASSERT_EQUAL(units_size_whole("1.00000000000000000000000001KiB", &v, &why), -1);
    CU_ASSERT_EQUAL(v, 777);
    CU_ASSERT(why && strstr(why, "significant digits"));
    CU_ASSERT_EQUAL(units_size_whole("1.00000000000000000000000000KiB", &v, &why), 0);
    CU_ASSERT_EQUAL(v, 1024);
    CU_ASSERT_EQUAL(units_size("1.00000000000000000000000001KiB", &v, &why), 0); /* rounds */
    CU_ASSERT_EQUAL(v, 1024);
    v = 777;
    CU_ASSERT_EQUAL(units_size_whole("-1GiB", &v, &why), -1);
    CU_ASSERT(why && strstr(why, "negative"));
}

/* units_time_whole and units_time_default_whole (a trace's times and time unit): a fraction of
 * a picosecond is refused where units_time rounds it. */
static void test_times_whole(void)
{
    am_ps v = 777;
    const char *why = NULL;
    CU_ASSERT_EQUAL(units_time_whole("1.5ns", &v, &why), 0);
    CU_ASSERT_EQUAL(v, 1500);
    CU_ASSERT_EQUAL(units_time_default_whole("2.5", 1000, &v, &why), 0); /* 2.5 ticks of 1 ns */
    CU_ASSERT_EQUAL(v, 2500);
    static const char *const frac[] = {"1.5ps", "0.5ps", "0.4ps", "1.0000005us"};
    for (size_t i = 0; i < sizeof frac / sizeof *frac; i++) {
        v = 777;
        why = NULL;
        CU_ASSERT_EQUAL(units_time_whole(frac[i], &v, &why), -1);
        CU_ASSERT_EQUAL(v, 777);
        CU_ASSERT(why && strcmp(why, "not a whole number of picoseconds") == 0);
    }
    CU_ASSERT_EQUAL(units_time_default_whole("2.5", 1, &v, &why), -1); /* 2.5 ticks of 1 ps */
    CU_ASSERT_EQUAL(units_time("1.5ps", &v, &why), 0); /* configs round */
    CU_ASSERT_EQUAL(v, 2);
    /* units_time_unit (trace.time_unit): the same values; -2 for an inexact one, -1 else */
    CU_ASSERT_EQUAL(units_time_unit("10ps", &v, &why), 0);
    CU_ASSERT_EQUAL(v, 10);
    CU_ASSERT_EQUAL(units_time_unit("1.5ps", &v, &why), -2);
    CU_ASSERT(why && strcmp(why, "not a whole number of picoseconds") == 0);
    CU_ASSERT_EQUAL(units_time_unit("1.00000000000000000000000000001ns", &v, &why), -2);
    CU_ASSERT_EQUAL(units_time_unit("1x", &v, &why), -1);
    CU_ASSERT_EQUAL(units_time_unit("-1ns", &v, &why), -1);
    CU_ASSERT_EQUAL(units_time_unit("0", &v, &why), 0); /* 0 is the option type's to refuse */
    /* a bare unit is 1 of it, as a trace header's time_unit=us (until 2026-11-27 the config
     * refused it: "not a number"); a bare word that is no unit is an unknown unit */
    CU_ASSERT_EQUAL(units_time_unit("us", &v, &why), 0);
    CU_ASSERT_EQUAL(v, AM_PS_PER_US);
    CU_ASSERT_EQUAL(units_time_unit("s", &v, &why), 0);
    CU_ASSERT_EQUAL(v, AM_PS_PER_S);
    why = NULL;
    CU_ASSERT_EQUAL(units_time_unit("US", &v, &why), -1);
    CU_ASSERT(why && strstr(why, "unknown unit") != NULL);
}

/* units_size_nonzero: like units_size, but a value that is not 0 and rounds to 0 bytes is
 * refused with -2 (config sizes, where 0 often means unset); 0 itself and 0.5 are values
 * ("1e-3KB" is 1 byte, not a tiny one). */
static void test_sizes_nonzero(void)
{
    uint64_t v = 777;
    const char *why = NULL;
    static const char *const tiny[] = {"0.4", "0.49B", "1e-4KB", "0.00000000001GiB", "4e-1"};
    for (size_t i = 0; i < sizeof tiny / sizeof *tiny; i++) {
        v = 777;
        why = NULL;
        CU_ASSERT_EQUAL(units_size_nonzero(tiny[i], &v, &why), -2);
        CU_ASSERT_EQUAL(v, 777);
        CU_ASSERT(why && strcmp(why, "rounds to 0 bytes") == 0);
        CU_ASSERT_EQUAL(units_size(tiny[i], &v, &why), 0); /* the plain parser rounds */
        CU_ASSERT_EQUAL(v, 0);
    }
    static const struct { const char *s; uint64_t v; } ok[] = {
        {"0", 0}, {"0.0", 0}, {"0GiB", 0}, {"0.5", 1}, {"1.4B", 1}, {"2KiB", 2048}};
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        v = 777;
        CU_ASSERT_EQUAL(units_size_nonzero(ok[i].s, &v, &why), 0);
        CU_ASSERT_EQUAL(v, ok[i].v);
    }
    /* a minus sign is refused on a zero too, as in a trace (until 2026-11-27 "-0" was 0) */
    static const char *const minus0[] = {"-0", "-0.0", "-0GiB"};
    for (size_t i = 0; i < sizeof minus0 / sizeof *minus0; i++) {
        why = NULL;
        CU_ASSERT_EQUAL(units_size_nonzero(minus0[i], &v, &why), -1);
        CU_ASSERT(why && strcmp(why, "negative values are not allowed") == 0);
        CU_ASSERT_EQUAL(units_time(minus0[i], &v, &why), -1);
    }
    CU_ASSERT_EQUAL(units_size_nonzero("abc", &v, &why), -1);
}

/* The same rule for times (0 ps: "no limit", "every event") and bandwidths (whole B/s). */
static void test_times_bandwidths_nonzero(void)
{
    uint64_t v = 777;
    const char *why = NULL;
    CU_ASSERT_EQUAL(units_time_nonzero("0.4ps", &v, &why), -2);
    CU_ASSERT(why && strcmp(why, "rounds to 0 ps") == 0);
    CU_ASSERT_EQUAL(units_time_nonzero("1e-13", &v, &why), -2); /* plain numbers are seconds */
    CU_ASSERT_EQUAL(v, 777);
    CU_ASSERT_EQUAL(units_time_nonzero("0.5ps", &v, &why), 0);
    CU_ASSERT_EQUAL(v, 1);
    CU_ASSERT_EQUAL(units_time_nonzero("0s", &v, &why), 0);
    CU_ASSERT_EQUAL(v, 0);
    CU_ASSERT_EQUAL(units_time("0.4ps", &v, &why), 0); /* the plain parser rounds */
    CU_ASSERT_EQUAL(v, 0);
    v = 777;
    CU_ASSERT_EQUAL(units_bandwidth_nonzero("0.4B/s", &v, &why), -2);
    CU_ASSERT(why && strcmp(why, "rounds to 0 B/s") == 0);
    CU_ASSERT_EQUAL(v, 777);
    CU_ASSERT_EQUAL(units_bandwidth_nonzero("1.5B/s", &v, &why), 0);
    CU_ASSERT_EQUAL(v, 2);
    CU_ASSERT_EQUAL(units_bandwidth_nonzero("0", &v, &why), 0);
    CU_ASSERT_EQUAL(v, 0);
}

static void test_sizes_refused(void)
{
    size_bad("-1GiB", "negative");
    size_bad("-5", "negative");
    size_bad("20000000000000000000", "too large");
    size_bad("18446744073709551616", "too large");
    size_bad("16777216TiB", "too large");
    size_bad("16777215.99999999999999TiB", "too large"); /* rounds up to 2^64 */
    size_bad("1e30", "too large");
    size_bad("1.5.3GiB", "malformed");
    size_bad("12 parsecs", "unknown unit");
    size_bad("", "empty");
    size_bad("   ", "empty");
    size_bad("GiB", "not a number");
    size_bad(".", "not a number");
    size_bad("1gib", "unknown unit");
    size_bad("1b", "unknown unit"); /* lowercase b is bits elsewhere: refused */
    size_bad("1kB", "unknown unit");
    size_bad("1GiB/s", "unknown unit");
    size_bad("1GiBx", "unknown unit");
    size_bad("1e", "unknown unit");
    size_bad("1,5GiB", "unknown unit");
    size_bad("0x10", "unknown unit");
    size_bad("inf", "not a number");
    size_bad("1 2", "unknown unit");
    uint64_t v;
    CU_ASSERT_EQUAL(units_size(NULL, &v, NULL), -1);
}

static void test_bandwidth(void)
{
    CU_ASSERT_EQUAL(bw_ok("3.35TB/s"), 3350000000000ULL);
    CU_ASSERT_EQUAL(bw_ok("64GB/s"), 64000000000ULL);
    CU_ASSERT_EQUAL(bw_ok("819GB/s"), 819000000000ULL);
    CU_ASSERT_EQUAL(bw_ok("10B/s"), 10);
    CU_ASSERT_EQUAL(bw_ok("1KB/s"), 1000);
    CU_ASSERT_EQUAL(bw_ok("1MB/s"), 1000000);
    CU_ASSERT_EQUAL(bw_ok("1KiB/s"), 1024);
    CU_ASSERT_EQUAL(bw_ok("1MiB/s"), 1048576);
    CU_ASSERT_EQUAL(bw_ok("2GiB/s"), 2147483648ULL);
    CU_ASSERT_EQUAL(bw_ok("1TiB/s"), 1099511627776ULL);
    CU_ASSERT_EQUAL(bw_ok("1000"), 1000);
    uint64_t v = 5;
    const char *why = NULL;
    CU_ASSERT_EQUAL(units_bandwidth("3GB", &v, &why), -1);
    CU_ASSERT(why && strstr(why, "unknown unit"));
    CU_ASSERT_EQUAL(units_bandwidth("-3GB/s", &v, &why), -1);
    CU_ASSERT_EQUAL(units_bandwidth("3gb/s", &v, &why), -1);
    CU_ASSERT_EQUAL(v, 5);
}

static void test_times(void)
{
    CU_ASSERT_EQUAL(time_ok("2us"), 2000000ULL);
    CU_ASSERT_EQUAL(time_ok("7ps"), 7);
    CU_ASSERT_EQUAL(time_ok("1ns"), 1000);
    CU_ASSERT_EQUAL(time_ok("2.5us"), 2500000ULL);
    CU_ASSERT_EQUAL(time_ok("3ms"), 3000000000ULL);
    CU_ASSERT_EQUAL(time_ok("10s"), 10000000000000ULL);
    CU_ASSERT_EQUAL(time_ok("1.5"), 1500000000000ULL); /* plain number: seconds */
    CU_ASSERT_EQUAL(time_ok("0"), 0);
    CU_ASSERT_EQUAL(time_ok("0.0004ns"), 0);
    CU_ASSERT_EQUAL(time_ok("0.0005ns"), 1);
    am_ps v = 9;
    CU_ASSERT_EQUAL(units_time_default("250", AM_PS_PER_NS, &v, NULL), 0);
    CU_ASSERT_EQUAL(v, 250000);
    CU_ASSERT_EQUAL(units_time_default("2us", AM_PS_PER_NS, &v, NULL), 0);
    CU_ASSERT_EQUAL(v, 2000000);
    const char *why = NULL;
    v = 9;
    CU_ASSERT_EQUAL(units_time("3 days", &v, &why), -1);
    CU_ASSERT(why && strstr(why, "unknown unit"));
    CU_ASSERT_EQUAL(units_time("-1us", &v, &why), -1);
    CU_ASSERT_EQUAL(units_time("1US", &v, &why), -1);
    CU_ASSERT_EQUAL(units_time("20000000s", &v, &why), -1); /* 2e19 ps > 2^64 */
    CU_ASSERT_EQUAL(v, 9);
}

static void test_u64_and_real(void)
{
    uint64_t v = 3;
    CU_ASSERT_EQUAL(units_u64("123", 3, &v), 0);
    CU_ASSERT_EQUAL(v, 123);
    CU_ASSERT_EQUAL(units_u64("12345", 2, &v), 0); /* only len characters */
    CU_ASSERT_EQUAL(v, 12);
    CU_ASSERT_EQUAL(units_u64("18446744073709551615", 20, &v), 0);
    CU_ASSERT_EQUAL(v, UINT64_MAX);
    v = 3;
    CU_ASSERT_EQUAL(units_u64("18446744073709551616", 20, &v), -1);
    CU_ASSERT_EQUAL(units_u64("", 0, &v), -1);
    CU_ASSERT_EQUAL(units_u64("-1", 2, &v), -1);
    CU_ASSERT_EQUAL(units_u64("1.0", 3, &v), -1);
    CU_ASSERT_EQUAL(units_u64("1 ", 2, &v), -1);
    CU_ASSERT_EQUAL(v, 3);

    double d = 0;
    CU_ASSERT_EQUAL(units_real("0.75", &d, NULL), 0);
    CU_ASSERT_DOUBLE_EQUAL(d, 0.75, 0);
    CU_ASSERT_EQUAL(units_real("1e-3", &d, NULL), 0);
    CU_ASSERT_DOUBLE_EQUAL(d, 0.001, 0);
    CU_ASSERT_EQUAL(units_real("-2.5", &d, NULL), 0);
    CU_ASSERT_DOUBLE_EQUAL(d, -2.5, 0);
    CU_ASSERT_EQUAL(units_real("0.1", &d, NULL), 0);
    CU_ASSERT_DOUBLE_EQUAL(d, 0.1, 0); /* correctly rounded, not 0.1000000000000000055 +- ulp */
    CU_ASSERT_EQUAL(units_real("1e300", &d, NULL), 0);
    CU_ASSERT_DOUBLE_EQUAL(d, 1e300, 1e286);
    const char *why = NULL;
    d = 4;
    CU_ASSERT_EQUAL(units_real("1e400", &d, &why), -1);
    CU_ASSERT_EQUAL(units_real("nan", &d, &why), -1);
    CU_ASSERT_EQUAL(units_real("0.5x", &d, &why), -1);
    CU_ASSERT_EQUAL(units_real("", &d, &why), -1);
    CU_ASSERT_EQUAL(units_real("1..2", &d, &why), -1);
    /* a nonzero number below the smallest double is -2, in any form (until 2026-11-27 it was 0,
     * a plain decimal 0.000...0001 in gen too); 0 itself, written with any exponent, is 0 */
    CU_ASSERT_EQUAL(units_real("1e-400", &d, &why), -2);
    CU_ASSERT_STRING_EQUAL(why, UNITS_REAL_TINY_WHY);
    char tiny[420];
    snprintf(tiny, sizeof tiny, "-0.%0400d", 1);
    CU_ASSERT_EQUAL(units_real(tiny, &d, &why), -2);
    CU_ASSERT_EQUAL(units_real(tiny + 1, &d, &why), -2);
    CU_ASSERT_DOUBLE_EQUAL(d, 4, 0);
    CU_ASSERT_EQUAL(units_real("0e-400", &d, &why), 0);
    CU_ASSERT_EQUAL(d, 0.0);
    CU_ASSERT_EQUAL(units_real("4.9e-324", &d, &why), 0); /* the smallest subnormal */
    CU_ASSERT(d > 0);
    /* the nearest double, every digit counted (until 2026-11-28 the first 26 were scaled in
     * steps: the first two read 1.0000000000000002, refused as above 1, the third an ulp off) */
    CU_ASSERT(units_real("1.0000000000000000000000000", &d, NULL) == 0 && d == 1.0);
    CU_ASSERT(units_real("0.9999999999999999999999999", &d, NULL) == 0 && d == 1.0);
    CU_ASSERT(units_real("0.3333333333333333333", &d, NULL) == 0 && d == 1.0 / 3.0);
    CU_ASSERT(units_real("0.5000000000000000000000000", &d, NULL) == 0 && d == 0.5);
    CU_ASSERT(units_real("123456789012345678901234567890e-29", &d, NULL) == 0 &&
              d == 1.2345678901234567890123456789);
    /* a tie rounds to even; a digit past the 26th that breaks the tie rounds up (until
     * 2026-11-28 dropped: read as the tie, 9007199254740992) */
    CU_ASSERT(units_real("9007199254740993", &d, NULL) == 0 && d == 9007199254740992.0);
    CU_ASSERT(units_real("9007199254740993.0000000000000000001", &d, NULL) == 0 &&
              d == 9007199254740994.0);
}

/* units_real gives strtod's correctly rounded double for random plain and scientific decimals
 * of up to 40 digits (the test runs in the C locale). */
static void test_real_nearest(void)
{
    uint64_t r = 88172645463325252ULL;
    char b[80];
    for (int k = 0; k < 20000; k++) {
        size_t n = 0;
        int digits = 1 + (int)(r % 40), point = (int)((r >> 8) % (uint64_t)(digits + 1));
        if ((r >> 16) & 1)
            b[n++] = '-';
        for (int i = 0; i < digits; i++) {
            r ^= r << 13, r ^= r >> 7, r ^= r << 17;
            if (i == point)
                b[n++] = '.';
            b[n++] = (char)('0' + r % 10);
        }
        if ((r >> 20) & 1)
            n += (size_t)snprintf(b + n, sizeof b - n, "e%d", (int)((r >> 24) % 600) - 300);
        b[n] = 0;
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        double d = 0, want = strtod(b, NULL);
        int rc = units_real(b, &d, NULL);
        if (want == 0.0 || !isfinite(want))
            continue; /* 0 written so, or refused: the cases above */
        CU_ASSERT(rc == 0 && d == want);
        if (rc != 0 || d != want) {
            printf("\n  %s: %.17g, strtod %.17g\n", b, d, want);
            break;
        }
    }
}

/* A locale with a decimal comma must not change parsing (when such a locale is installed). */
static void test_locale_independent(void)
{
    static const char *const locs[] = {"de_DE.UTF-8", "fr_FR.UTF-8", "C.UTF-8"};
    const char *set = NULL;
    for (size_t i = 0; i < AM_ARRAY_LEN(locs) && !set; i++)
        set = setlocale(LC_NUMERIC, locs[i]);
    uint64_t v = 0;
    double d = 0;
    CU_ASSERT_EQUAL(units_size("1.5GiB", &v, NULL), 0);
    CU_ASSERT_EQUAL(v, 1610612736ULL);
    CU_ASSERT_EQUAL(units_real("0.75", &d, NULL), 0);
    CU_ASSERT_DOUBLE_EQUAL(d, 0.75, 0);
    setlocale(LC_NUMERIC, "C");
}

static void test_format(void)
{
    char b[64];
    /* percentages: one decimal, more where one would show 100.0 or 0.0 for a value that is not
     * (until 2026-11-28 0.99993 printed "100.0 %") */
    CU_ASSERT_STRING_EQUAL(units_fmt_pct(b, sizeof b, 0.425), "42.5 %");
    CU_ASSERT_STRING_EQUAL(units_fmt_pct(b, sizeof b, 1.0), "100.0 %");
    CU_ASSERT_STRING_EQUAL(units_fmt_pct(b, sizeof b, 0.0), "0.0 %");
    CU_ASSERT_STRING_EQUAL(units_fmt_pct(b, sizeof b, 0.99993), "99.99 %");
    CU_ASSERT_STRING_EQUAL(units_fmt_pct(b, sizeof b, 0.99996), "99.996 %");
    CU_ASSERT_STRING_EQUAL(units_fmt_pct(b, sizeof b, 0.9996), "99.96 %");
    CU_ASSERT_STRING_EQUAL(units_fmt_pct(b, sizeof b, 0.9994), "99.9 %");
    CU_ASSERT_STRING_EQUAL(units_fmt_pct(b, sizeof b, 0.0004), "0.04 %");
    CU_ASSERT_STRING_EQUAL(units_fmt_pct(b, sizeof b, 0.000004), "< 0.001 %");
    CU_ASSERT_STRING_EQUAL(units_fmt_pct(b, sizeof b, 0.9999999), "> 99.999 %");
    CU_ASSERT_STRING_EQUAL(units_fmt_pct(b, sizeof b, 0.0 / 0.0), "n/a");
    CU_ASSERT_STRING_EQUAL(units_fmt_size(b, sizeof b, 85899345920ULL), "80.00 GiB");
    CU_ASSERT_STRING_EQUAL(units_fmt_size(b, sizeof b, 512), "512 B");
    CU_ASSERT_STRING_EQUAL(units_fmt_size(b, sizeof b, 0), "0 B");
    CU_ASSERT_STRING_EQUAL(units_fmt_size(b, sizeof b, 1023), "1023 B");
    CU_ASSERT_STRING_EQUAL(units_fmt_size(b, sizeof b, 1024), "1.00 KiB");
    CU_ASSERT_STRING_EQUAL(units_fmt_size(b, sizeof b, 1572864), "1.50 MiB");
    CU_ASSERT_STRING_EQUAL(units_fmt_size(b, sizeof b, 1048575), "1.00 MiB"); /* rounds */
    CU_ASSERT_STRING_EQUAL(units_fmt_size(b, sizeof b, 3298534883328ULL), "3.00 TiB");
    /* PiB and EiB since 2026-11-27 (until then "16777216.00 TiB" here), and they parse */
    CU_ASSERT_STRING_EQUAL(units_fmt_size(b, sizeof b, UINT64_MAX), "16.00 EiB");
    CU_ASSERT_STRING_EQUAL(units_fmt_size(b, sizeof b, (1ULL << 50) - 1), "1.00 PiB");
    CU_ASSERT_STRING_EQUAL(units_fmt_size(b, sizeof b, 1ULL << 50), "1.00 PiB");
    CU_ASSERT_STRING_EQUAL(units_fmt_size(b, sizeof b, (1ULL << 60) - (1ULL << 40)),
                           "1.00 EiB");
    CU_ASSERT_STRING_EQUAL(units_fmt_size(b, sizeof b, 1ULL << 62), "4.00 EiB");
    CU_ASSERT_STRING_EQUAL(units_fmt_size(b, sizeof b, 5764607523034234880ULL), "5.00 EiB");
    uint64_t big = 0;
    CU_ASSERT(units_size("4EiB", &big, NULL) == 0 && big == 1ULL << 62);
    CU_ASSERT(units_size("1.5PiB", &big, NULL) == 0 && big == 3ULL << 49);
    CU_ASSERT(units_size("2PB", &big, NULL) == 0 && big == 2000000000000000ULL);
    CU_ASSERT(units_size("18EB", &big, NULL) == 0 && big == 18000000000000000000ULL);
    CU_ASSERT_NOT_EQUAL(units_size("16EiB", &big, NULL), 0); /* 2^64 */
    CU_ASSERT_STRING_EQUAL(units_fmt_bandwidth(b, sizeof b, 3.35e12), "3.350 TB/s");
    CU_ASSERT_STRING_EQUAL(units_fmt_bandwidth(b, sizeof b, 64e9), "64.000 GB/s");
    CU_ASSERT_STRING_EQUAL(units_fmt_bandwidth(b, sizeof b, 12.0), "12.000 B/s");
    /* PB/s and EB/s, as parsed (until 2026-11-27 "1000000.000 TB/s" for 1 EB/s) */
    CU_ASSERT_STRING_EQUAL(units_fmt_bandwidth(b, sizeof b, 2.5e15), "2.500 PB/s");
    CU_ASSERT_STRING_EQUAL(units_fmt_bandwidth(b, sizeof b, 1e18), "1.000 EB/s");
    CU_ASSERT_STRING_EQUAL(units_fmt_bandwidth(b, sizeof b, 18446744073709551615.0),
                           "18.447 EB/s");
    CU_ASSERT_STRING_EQUAL(units_fmt_bandwidth(b, sizeof b, 999.9e12), "999.900 TB/s");
    /* energies auto-scaled, as times (until 2026-11-27 "%.6f mJ": 2 pJ was "0.000000 mJ") */
    CU_ASSERT_STRING_EQUAL(units_fmt_energy(b, sizeof b, 0), "0 J");
    CU_ASSERT_STRING_EQUAL(units_fmt_energy(b, sizeof b, 2e-12), "2.000 pJ");
    CU_ASSERT_STRING_EQUAL(units_fmt_energy(b, sizeof b, 2e-21), "2e-09 pJ");
    CU_ASSERT_STRING_EQUAL(units_fmt_energy(b, sizeof b, 1.5e-9), "1.500 nJ");
    CU_ASSERT_STRING_EQUAL(units_fmt_energy(b, sizeof b, 0.25), "250.000 mJ");
    CU_ASSERT_STRING_EQUAL(units_fmt_energy(b, sizeof b, 12.5), "12.500 J");
    /* the most a link can reach: 2^64 - 1 bytes at 1e12 pJ a byte */
    CU_ASSERT_STRING_EQUAL(units_fmt_energy(b, sizeof b, 18446744073709551615.0), "18.447 EJ");
    CU_ASSERT_STRING_EQUAL(units_fmt_time(b, sizeof b, 12500000), "12.500 us");
    CU_ASSERT_STRING_EQUAL(units_fmt_time(b, sizeof b, 999), "999 ps");
    CU_ASSERT_STRING_EQUAL(units_fmt_time(b, sizeof b, 1000), "1.000 ns");
    CU_ASSERT_STRING_EQUAL(units_fmt_time(b, sizeof b, 2500000000ULL), "2.500 ms");
    CU_ASSERT_STRING_EQUAL(units_fmt_time(b, sizeof b, 1500000000000ULL), "1.500 s");
    CU_ASSERT_STRING_EQUAL(units_fmt_time(b, sizeof b, 3600 * AM_PS_PER_S), "3600.000 s");
    /* seconds exactly, to the picosecond (a %.12g double lost those past 12 digits) */
    CU_ASSERT_STRING_EQUAL(units_fmt_seconds(b, sizeof b, 0), "0");
    /* 128-bit totals, exactly */
    CU_ASSERT_STRING_EQUAL(units_fmt_u128(b, sizeof b, (am_u128)1 << 64), "18446744073709551616");
    CU_ASSERT_STRING_EQUAL(units_fmt_u128(b, sizeof b, ~(am_u128)0),
                           "340282366920938463463374607431768211455");
    CU_ASSERT_STRING_EQUAL(units_fmt_size128(b, sizeof b, (am_u128)3 << 63), "24.00 EiB");
    CU_ASSERT_STRING_EQUAL(units_fmt_seconds128(b, sizeof b, ((am_u128)1 << 64) + 1),
                           "18446744.073709551617");
    CU_ASSERT_STRING_EQUAL(units_fmt_seconds(b, sizeof b, 1), "0.000000000001");
    CU_ASSERT_STRING_EQUAL(units_fmt_seconds(b, sizeof b, 945120000), "0.00094512");
    CU_ASSERT_STRING_EQUAL(units_fmt_seconds(b, sizeof b, 3600 * AM_PS_PER_S), "3600");
    CU_ASSERT_STRING_EQUAL(units_fmt_seconds(b, sizeof b, 1234 * AM_PS_PER_S + 1),
                           "1234.000000000001");
    CU_ASSERT_STRING_EQUAL(units_fmt_seconds(b, sizeof b, UINT64_MAX),
                           "18446744.073709551615");
    /* small buffers are truncated, never overrun */
    char small[6];
    CU_ASSERT_STRING_EQUAL(units_fmt_size(small, sizeof small, 85899345920ULL), "80.00");
    /* what is printed parses back */
    uint64_t v;
    CU_ASSERT_EQUAL(units_size(units_fmt_size(b, sizeof b, 1572864), &v, NULL), 0);
    CU_ASSERT_EQUAL(v, 1572864);
}

/* The unit is chosen after rounding to the printed precision, for every quantity: a figure
 * never reads 1000 (1024 for sizes) in a unit that has a larger one (until 2026-11-27 the unit
 * was chosen first: 1048575 B printed "1024.00 KiB", 1 B in 1 ns "1000.000 MB/s", 999999600 ps
 * "1000.000 us", 0.9999999 uJ "1000.000 nJ"). A rate below 1 B/s has 3 significant digits, as
 * an energy below 1 pJ (until 2026-11-27 "0.000 B/s"). */
static void test_format_after_rounding(void)
{
    char b[64];
    CU_ASSERT_STRING_EQUAL(units_fmt_size(b, sizeof b, 1048575), "1.00 MiB");
    CU_ASSERT_STRING_EQUAL(units_fmt_size(b, sizeof b, 1048570), "1023.99 KiB");
    CU_ASSERT_STRING_EQUAL(units_fmt_size(b, sizeof b, (1ULL << 30) - 1), "1.00 GiB");
    CU_ASSERT_STRING_EQUAL(units_fmt_size128(b, sizeof b, ((am_u128)1 << 70) - 1), "1024.00 EiB");
    CU_ASSERT_STRING_EQUAL(units_fmt_bandwidth(b, sizeof b, 1.0 / 1e-9), "1.000 GB/s");
    CU_ASSERT_STRING_EQUAL(units_fmt_bandwidth(b, sizeof b, 999999999.0), "1.000 GB/s");
    CU_ASSERT_STRING_EQUAL(units_fmt_bandwidth(b, sizeof b, 999499999.0), "999.500 MB/s");
    CU_ASSERT_STRING_EQUAL(units_fmt_bandwidth(b, sizeof b, 999.9996), "1.000 KB/s");
    CU_ASSERT_STRING_EQUAL(units_fmt_bandwidth(b, sizeof b, 0.0004), "0.0004 B/s");
    CU_ASSERT_STRING_EQUAL(units_fmt_bandwidth(b, sizeof b, 9.98e-7), "9.98e-07 B/s");
    CU_ASSERT_STRING_EQUAL(units_fmt_bandwidth(b, sizeof b, 0.9996), "1.000 B/s");
    CU_ASSERT_STRING_EQUAL(units_fmt_bandwidth(b, sizeof b, 0), "0.000 B/s");
    CU_ASSERT_STRING_EQUAL(units_fmt_bandwidth(b, sizeof b, 1e21), "1000.000 EB/s");
    CU_ASSERT_STRING_EQUAL(units_fmt_energy(b, sizeof b, 1000000 * 0.9999999e-12), "1.000 uJ");
    CU_ASSERT_STRING_EQUAL(units_fmt_energy(b, sizeof b, 0.9996e-12), "1.000 pJ");
    CU_ASSERT_STRING_EQUAL(units_fmt_energy(b, sizeof b, 0.999e-12), "0.999 pJ");
    CU_ASSERT_STRING_EQUAL(units_fmt_time(b, sizeof b, 999999600), "1.000 ms");
    CU_ASSERT_STRING_EQUAL(units_fmt_time(b, sizeof b, 999999499), "999.999 us");
    CU_ASSERT_STRING_EQUAL(units_fmt_time(b, sizeof b, 999999500), "1.000 ms");
    CU_ASSERT_STRING_EQUAL(units_fmt_time(b, sizeof b, 999999), "999.999 ns");
    CU_ASSERT_STRING_EQUAL(units_fmt_time(b, sizeof b, 999999999999600ULL), "1000.000 s");
    CU_ASSERT_STRING_EQUAL(units_fmt_time(b, sizeof b, 999999999600ULL), "1.000 s");
    CU_ASSERT_STRING_EQUAL(units_fmt_time(b, sizeof b, UINT64_MAX), "18446744.074 s");
}

/* Ranges: value k of {from, to, step} is from + k * step exactly, rounded once (sizes, times)
 * or written as an exact decimal (numbers); 1 past `to`. */
static void test_range_values(void)
{
    uint64_t v = 0;
    char b[128];
    const char *why = NULL;
    /* 0.5GiB + 5 * 0.1GiB is 1GiB, + 10 steps is `to`; 0.7GiB rounds once (751619276.8) */
    CU_ASSERT_EQUAL(units_range_value(UNITS_SIZE, "0.5GiB", "1.5GiB", "0.1GiB", 5, &v, NULL, 0,
                                      &why), 0);
    CU_ASSERT_EQUAL(v, 1ULL << 30);
    CU_ASSERT_EQUAL(units_range_value(UNITS_SIZE, "0.5GiB", "1.5GiB", "0.1GiB", 2, &v, NULL, 0,
                                      &why), 0);
    CU_ASSERT_EQUAL(v, 751619277);
    CU_ASSERT_EQUAL(units_range_value(UNITS_SIZE, "0.5GiB", "1.5GiB", "0.1GiB", 10, &v, NULL, 0,
                                      &why), 0);
    CU_ASSERT_EQUAL(v, 1610612736);
    CU_ASSERT_EQUAL(units_range_value(UNITS_SIZE, "0.5GiB", "1.5GiB", "0.1GiB", 11, &v, NULL, 0,
                                      &why), 1);
    /* mixed units and a plain number (bytes; seconds for times) */
    CU_ASSERT_EQUAL(units_range_value(UNITS_SIZE, "512MiB", "2GiB", "0.25GiB", 2, &v, NULL, 0,
                                      &why), 0);
    CU_ASSERT_EQUAL(v, 1ULL << 30);
    CU_ASSERT_EQUAL(units_range_value(UNITS_TIME, "0", "1us", "0.000000000333333s", 3, &v, NULL,
                                      0, &why), 0);
    CU_ASSERT_EQUAL(v, 1000); /* 999.999 ps, rounded once */
    /* numbers: exact decimals, signs, and to reached exactly */
    static const struct {
        const char *from, *to, *step;
        uint64_t k;
        const char *want; /* NULL: past to */
    } nums[] = {
        {"-0.3", "0", "0.1", 3, "0"},        {"-0.3", "0", "0.1", 1, "-0.2"},
        {"-0.3", "0", "0.1", 4, NULL},       {"0.1", "0.3", "0.1", 2, "0.3"},
        {"0", "1", "0.0005", 3, "0.0015"},   {"0", "1", "0.25", 4, "1"},
        {"1e50", "1e51", "1e50", 1, "2e50"}, {"1000000000000", "2e12", "1", 1, "1000000000001"},
        {"0.100000000001", "0.2", "0.000000000001", 2, "0.100000000003"},
        {"0", "1e-40", "1e-45", 3, "3e-45"},
    };
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        b[0] = 0;
        int r = units_range_value(UNITS_NUMBER, nums[i].from, nums[i].to, nums[i].step, nums[i].k,
                                  NULL, b, sizeof b, &why);
        int ok = nums[i].want ? r == 0 && strcmp(b, nums[i].want) == 0 : r == 1;
        CU_ASSERT(ok);
        if (!ok)
            fprintf(stderr, "\n  {%s, %s, %s} #%llu: %d '%s', want %s\n", nums[i].from,
                    nums[i].to, nums[i].step, (unsigned long long)nums[i].k, r, b,
                    nums[i].want ? nums[i].want : "past to");
    }
    /* magnitudes too far apart to add in 128 bits are refused, not approximated */
    why = NULL;
    CU_ASSERT_EQUAL(units_range_value(UNITS_NUMBER, "1e-30", "1e30", "1e-30", 1, NULL, b,
                                      sizeof b, &why), -1);
    CU_ASSERT(why && strstr(why, "too many digits"));
}

/* Factor ranges: value k is from * factor^k exactly, rounded once (ties up), to included when
 * reached exactly. Until 2026-11-27 each value was the previous one rounded up times the
 * factor: {10MB, 14.641MB, 1.1} gave 12100001, 13310002 and no 14641000. */
static void test_factor_values(void)
{
    static const struct {
        units_kind kind;
        const char *from, *to, *factor;
        size_t n;
        uint64_t want[12];
    } cases[] = {
        {UNITS_SIZE, "10MB", "14.641MB", "1.1", 5,
         {10000000, 11000000, 12100000, 13310000, 14641000}},
        {UNITS_TIME, "10ns", "14.641ns", "1.1", 5, {10000, 11000, 12100, 13310, 14641}},
        {UNITS_SIZE, "1000", "3000", "1.1", 12,
         {1000, 1100, 1210, 1331, 1464, 1611, 1772, 1949, 2144, 2358, 2594, 2853}},
        /* 4.5 and 6.75 round once, ties up: 5 and 7 (not 5 from 4.5, then 8 from 7.5) */
        {UNITS_SIZE, "3", "200", "1.5", 11, {3, 5, 7, 10, 15, 23, 34, 51, 77, 115, 173}},
        /* neighbours that round alike are the caller's to refuse */
        {UNITS_SIZE, "3", "4", "1.1", 4, {3, 3, 4, 4}}, /* 3, 3.3, 3.63, 3.993 */
        {UNITS_SIZE, "128KiB", "2MiB", "2", 5, {131072, 262144, 524288, 1048576, 2097152}},
        /* a value above `to` only before rounding is past it */
        {UNITS_SIZE, "1", "1.4", "1.5", 1, {1}},
        {UNITS_SIZE, "1.4", "1.2", "2", 0, {0}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        uint64_t got[16] = {0};
        size_t n = 99;
        const char *why = NULL;
        int r = units_factor_values(cases[i].kind, cases[i].from, cases[i].to, cases[i].factor,
                                    got, 16, &n, &why);
        int ok = r == 0 && n == cases[i].n;
        for (size_t k = 0; ok && k < n; k++)
            ok = got[k] == cases[i].want[k];
        CU_ASSERT(ok);
        if (!ok)
            fprintf(stderr, "\n  {%s, %s, %s}: %d, %zu values, #2 %llu\n", cases[i].from,
                    cases[i].to, cases[i].factor, r, n, (unsigned long long)got[2]);
    }
    /* exact over thousands of values: 1MB * 1.0001^4054 is 1499871.9..., 1.0001^4055 past */
    static uint64_t many[10000];
    size_t n = 0;
    CU_ASSERT_EQUAL(units_factor_values(UNITS_SIZE, "1MB", "1.5MB", "1.0001", many, 5000, &n,
                                        NULL), 0);
    CU_ASSERT_EQUAL(n, 4055);
    CU_ASSERT_EQUAL(many[4054], 1499872);
    CU_ASSERT_EQUAL(many[4053], 1499722);
    /* more than max values; a factor not above 1, exactly; digits past the cap */
    CU_ASSERT_EQUAL(units_factor_values(UNITS_SIZE, "1", "1TB", "2", many, 10, &n, NULL), 1);
    CU_ASSERT_EQUAL(units_factor_values(UNITS_SIZE, "1MB", "1TB", "1.0001", many, 5000, &n,
                                        NULL), 1);
    const char *why = NULL;
    CU_ASSERT_EQUAL(units_factor_values(UNITS_SIZE, "1", "2", "1.0", many, 10, &n, &why), -1);
    CU_ASSERT(why && strstr(why, "above 1"));
    CU_ASSERT_EQUAL(units_factor_values(UNITS_SIZE, "1", "2", "1.0000000000000000000001", many,
                                        10, &n, NULL), 1);
    why = NULL;
    /* 9531 values of 6 more digits each: past 36864 digits at about value 7400 */
    CU_ASSERT_EQUAL(units_factor_values(UNITS_SIZE, "1MB", "1.1MB", "1.00001", many, 10000, &n,
                                        &why), -1);
    CU_ASSERT(why && strstr(why, "36864 digits"));
}

void suite_units(void)
{
    TU_SUITE("units", {"a real is the nearest double", test_real_nearest},
             {"sizes_exact", test_sizes_exact}, {"sizes_nonzero", test_sizes_nonzero},
             {"times and bandwidths nonzero", test_times_bandwidths_nonzero},
             {"sizes_refused", test_sizes_refused}, {"sizes_whole", test_sizes_whole},
             {"times_whole", test_times_whole},
             {"bandwidth", test_bandwidth}, {"times", test_times},
             {"u64_and_real", test_u64_and_real}, {"locale", test_locale_independent},
             {"format", test_format},
             {"format: the unit chosen after rounding", test_format_after_rounding},
             {"range values", test_range_values},
             {"factor values", test_factor_values});
}
