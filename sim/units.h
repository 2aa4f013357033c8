/* units.h - quantities with units, as configs and traces write them.
 *
 * Sizes: B, KiB, MiB, GiB, TiB (powers of 1024) and KB, MB, GB, TB (powers of 1000); a plain
 * number is bytes. Bandwidths: B/s, KB/s .. EB/s, KiB/s .. EiB/s; a plain
 * number is bytes per second. Times: ps, ns, us, ms, s; a plain number is seconds. Fractional
 * values are allowed ("1.5GiB", "2.5us") and rounded to the nearest whole base unit (byte,
 * byte per second, picosecond), except by the _whole forms, which refuse a value that is not a
 * whole number of bytes or picoseconds (a trace's request or time: "1.5B", "0.0001KB" or
 * "0.5ps" would silently change it; a time unit of "1.5ps" would scale every time wrongly).
 * Negative values, overflow and trailing garbage are refused. Parsing never depends on the C
 * locale. */
#ifndef AM_UNITS_H
#define AM_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"

/* Each returns 0 and stores the value, or -1 and a short reason in *why (static string). */
int units_size(const char *s, uint64_t *bytes, const char **why);
int units_size_whole(const char *s, uint64_t *bytes, const char **why);
/* units_size, except that a value that is not zero but rounds to 0 bytes ("0.4", "1e-4KB")
 * returns -2 (*why "rounds to 0 bytes"): for config sizes, where 0 often means "unset" (BFC's
 * memory_limit: use memory_fraction) and a slip of the unit must not silently become that. */
int units_size_nonzero(const char *s, uint64_t *bytes, const char **why);
int units_bandwidth(const char *s, uint64_t *bytes_per_s, const char **why);
/* The same rule for bandwidths (-2, "rounds to 0 B/s": a config's bandwidth is whole bytes per
 * second, and 0.4B/s is not "must be > 0") and times (-2, "rounds to 0 ps": 0 is "no limit" for
 * offline's time_limit and "every event" for report.timeline_interval). */
int units_bandwidth_nonzero(const char *s, uint64_t *bytes_per_s, const char **why);
int units_time_nonzero(const char *s, am_ps *ps, const char **why);
int units_time(const char *s, am_ps *ps, const char **why);
int units_time_whole(const char *s, am_ps *ps, const char **why);
/* units_time_whole for a unit other times are counted in (a config's trace.time_unit, a trace
 * header's time_unit=), where a bare unit means 1 of it (`us`): -2 when the value is well formed
 * but not a whole number of picoseconds (or has more digits than are read exactly), so the
 * message can say why that matters; -1 for any other refusal. */
int units_time_unit(const char *s, am_ps *ps, const char **why);
/* Same, with an explicit default unit for plain numbers (e.g. traces use ns). */
int units_time_default(const char *s, am_ps unit_ps, am_ps *ps, const char **why);
int units_time_default_whole(const char *s, am_ps unit_ps, am_ps *ps, const char **why);
/* A plain non-negative decimal integer, no sign, no unit; -1 on overflow or garbage. */
int units_u64(const char *s, size_t len, uint64_t *v);
/* A finite real number ("0.75", "1e-3"), locale independent: 0, or -1 with *why. A nonzero
 * number too small for a double (1e-400, or the same written as a plain decimal) is -2 with
 * *why UNITS_REAL_TINY_WHY: it would read as 0, which it is not. */
#define UNITS_REAL_TINY_WHY                                                                   \
    "too small to represent (a nonzero number below about 4.9e-324 reads as 0)"
int units_real(const char *s, double *v, const char **why);
/* 1 when s, a plain decimal number as units_range_value reads one, is above 1 exactly as
 * written ("1.0000000000000000000000000001" is, though its double is 1), else 0. */
int units_above_one(const char *s);
/* Why a number above 1 as written is refused where a double above 1 is asked for. */
#define UNITS_REAL_ONE_WHY "it reads as 1 as a double"

/* The values of a range {from, to, step} (sweeps' axes): value k is from + k * step computed
 * exactly from the numbers as written (decimal mantissas, powers of ten and units, in 128-bit
 * integers), so no rounding accumulates over k and a value that reaches `to` exactly is `to`:
 * {from: 0.5GiB, to: 1.5GiB, step: 0.1GiB} gives 1GiB and 1.5GiB, not 1073741822 and nothing.
 * UNITS_SIZE and UNITS_TIME read the fields as units_size and units_time do (a plain number is
 * bytes or seconds) and round the value once, to the nearest byte or picosecond (ties up), into
 * *v; UNITS_NUMBER reads plain decimal numbers (a sign allowed) and writes the value as an exact
 * decimal ("0.3", "-1.25", "25e50") into buf (at least 96 bytes). Returns 0, 1 when value k is
 * above `to` (nothing stored), or -1 with *why when a field does not read as its kind or the
 * sum does not fit in 128 bits (fields of very different magnitudes, "1e30" and "1e-30"). */
typedef enum { UNITS_SIZE, UNITS_TIME, UNITS_NUMBER } units_kind;
int units_range_value(units_kind kind, const char *from, const char *to, const char *step,
                      uint64_t k, uint64_t *v, char *buf, size_t n, const char **why);

/* a - b for two numbers as a results table writes them (blanks around each trimmed), computed
 * exactly when both are plain decimals ([+-]digits[.digits], no exponent, at most 20 digits
 * before the point, so every whole number up to 2^64, and 18 after it): the exact difference, its trailing zeros dropped, converted once,
 * so that equal differences give the same double whatever digits the values have
 * (10.414853674127 - 10.412853674127 is 0.002 as 10.198 - 10.196 is). 0 and *d, or -1 when
 * either is not such a decimal (the caller then subtracts the doubles). */
int units_exact_diff(const char *a, const char *b, double *d);
/* A results-table cell as units_exact_diff reads it (a plain decimal, at most 20 digits before
 * the point and 18 after it, blanks around it trimmed) in fixed point: *v / 10^*fracs exactly,
 * *fracs the digits after the point that are not trailing zeros. 0, or -1 when the cell is not
 * such a decimal. */
int units_plain_fixed(const char *cell, am_i128 *v, int *fracs);

/* The values of a range {from, to, factor} of sizes or times: value k is from * factor^k
 * computed exactly from the numbers as written (a decimal big integer times a power of ten) and
 * rounded once, to the nearest byte or picosecond (ties up), as units_range_value does a step's;
 * so errors do not accumulate and a value that reaches `to` exactly is `to`: {from: 10MB, to:
 * 14.641MB, factor: 1.1} gives 10000000, 11000000, 12100000, 13310000 and 14641000. Rounding can
 * make neighbours equal for small values (3, 3.3, 3.63: 3, 3, 4); the caller decides. Writes
 * the values up to `to` into vals (at most max) and their count into *n. Returns 0, 1 when
 * there are more than max values, or -1 with *why when a field does not read, the factor is
 * not above 1, from is not above 0, or the exact values would need more than 36864 digits. */
int units_factor_values(units_kind kind, const char *from, const char *to, const char *factor,
                        uint64_t *vals, size_t max, size_t *n, const char **why);

/* v with the fewest significant digits (min_digits to 17) that read back (strtod) as the same
 * double, in %g's form, into buf (returns buf): 0.1 as "0.1", not "0.10000000000000001".
 * min_digits above 1 keeps %g's fixed notation for larger whole numbers (6: 100000, not
 * 1e+05). */
char *units_fmt_shortest(char *buf, size_t n, double v, int min_digits);
/* The same with min_digits 1, read back with units_real, the options' own reader (strtod_l in
 * the C locale since 2026-11-28; until then its own scaling, which could differ from strtod by
 * an ulp at 17 digits): the form in which a message quotes an option's real value as written
 * (2.0 as "2"). */
char *units_fmt_real(char *buf, size_t n, double v);

/* Printing with units into buf (returns buf): "80.00 GiB", "1.50 MiB", "512 B"; the unit is
 * the one whose figure, rounded to 2 decimals, is below 1024 ("1.00 MiB", not "1024.00 KiB"). */
char *units_fmt_size(char *buf, size_t n, uint64_t bytes);
/* units_fmt_size and, when the unit rounds (1 KiB and up), the exact count: "1.50 MiB (1572864
 * B)", "512 B" (until 2026-11-27 each caller wrote "512 B (512 B)" below 1 KiB). buf of 64 bytes
 * holds any. */
char *units_fmt_size_exact(char *buf, size_t n, uint64_t bytes);
/* The same for a 128-bit total (past 16 EiB it stays in EiB: "32.00 EiB"). */
char *units_fmt_size128(char *buf, size_t n, am_u128 bytes);
/* The unit units_fmt_size128 prints bytes in: 0 for B, 1 KiB, 2 MiB ... 6 EiB (a plot's axis
 * drawn in its tables' unit, report_html.c), and its name ("B", "KiB", ... "EiB"). */
int units_size_unit(am_u128 bytes);
const char *units_size_name(int unit);
/* A 128-bit whole number in decimal, every digit ("18446744073709551616"; buf >= 40 bytes). */
char *units_fmt_u128(char *buf, size_t n, am_u128 v);
/* "3.350 TB/s" - a rate (finite, >= 0) in the unit from B/s to EB/s whose figure, rounded to
 * 3 decimals, is in [1, 1000); below 1 B/s with 3 significant digits ("0.0004 B/s"); 0 is
 * "0.000 B/s" */
char *units_fmt_bandwidth(char *buf, size_t n, double bytes_per_s);
/* "2.000 pJ", "1.250 mJ" - an energy in joules (finite, >= 0) in the unit from pJ to EJ that
 * puts it, rounded to 3 decimals, in [1, 1000); below 1 pJ (as rounded) in pJ with 3
 * significant digits ("0.002 pJ", "2e-09 pJ"); 0 is "0 J" */
char *units_fmt_energy(char *buf, size_t n, double joules);
/* A fraction v as a percentage with one decimal, "42.5 %" ("n/a" when v is NaN), except where
 * one decimal would round a value short of 100 % up to "100.0 %" or a nonzero one down to
 * "0.0 %": then the fewest decimals, up to 3, that do not ("99.99 %", "0.004 %"), and past
 * those "> 99.999 %" or "< 0.001 %" (until 2026-11-28 a fragmentation ratio of 0.99993 printed
 * "100.0 %"). */
char *units_fmt_pct(char *buf, size_t n, double v);
/* "12.500 us" - picks ps/ns/us/ms/s: whole ps below 1 ns, else 3 decimals in the unit whose
 * figure, once rounded, is below 1000 (s keeps larger ones: "1000000.000 s") */
char *units_fmt_time(char *buf, size_t n, am_ps ps);
/* A time in seconds, exactly, as a plain decimal without a unit (for JSON and the key=value
 * metrics, whose keys say "seconds"): "0.00094512", "1234.000000000001", "0". */
char *units_fmt_seconds(char *buf, size_t n, am_ps ps);
/* The same for a 128-bit total of picoseconds (buf >= 48 bytes). */
char *units_fmt_seconds128(char *buf, size_t n, am_u128 ps);

/* The unit of a metric from its name (a results.csv column or an expectation key): "bytes",
 * "seconds", "fraction", "count", "rows", or NULL when the name does not say (units.c). */
const char *units_of_metric(const char *metric);
/* The symbol a number in that unit is printed with: " B", " s", " rows", else "" (a fraction or
 * a count is a plain number). */
const char *units_metric_symbol(const char *unit);

#endif
