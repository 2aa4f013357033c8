/* units.c - quantities with units: parsing "80GiB", "3.35TB/s", "2us" and printing them back.
 *
 * Parsing is exact and locale independent: a number is read as an integer mantissa (at most 26
 * significant digits; further integer digits only raise the exponent, further fraction digits
 * are dropped) and a decimal exponent, then multiplied by the unit's integer factor and scaled
 * by the power of ten in 128-bit integer arithmetic, rounding to nearest (ties up). So "80GiB"
 * is 85899345920 and "1.5GiB" is 1610612736 exactly, with no floating point involved.
 * Unit names are case sensitive and limited to the ones units.h lists ("b" is not bytes). */
#define _GNU_SOURCE /* strtod_l and newlocale (units_real) */
#include "units.h"

#include <locale.h>
#include <math.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef __SIZEOF_INT128__
#error "units.c needs a 128-bit integer type (gcc or clang on a 64-bit target)"
#endif
__extension__ typedef unsigned __int128 u128;

typedef struct unit {
    const char *name;
    uint64_t mul; /* base units (bytes, bytes/s or ps) per one of this unit */
} unit_def;

#define KI 1024ULL
#define KD 1000ULL

/* PiB, EiB, PB and EB since 2026-11-27, when the formatter began printing PiB and EiB: what
 * it prints parses back. */
static const unit_def size_units[] = {
    {"B", 1},           {"KiB", KI},      {"MiB", KI * KI},      {"GiB", KI * KI * KI},
    {"TiB", KI * KI * KI * KI}, {"PiB", KI * KI * KI * KI * KI},
    {"EiB", KI * KI * KI * KI * KI * KI}, {"KB", KD}, {"MB", KD * KD}, {"GB", KD * KD * KD},
    {"TB", KD * KD * KD * KD},  {"PB", KD * KD * KD * KD * KD},
    {"EB", KD * KD * KD * KD * KD * KD}, {NULL, 0},
};

/* PB/s, EB/s, PiB/s and EiB/s since 2026-11-27, as sizes have PB..EiB. */
static const unit_def bw_units[] = {
    {"B/s", 1},          {"KB/s", KD},        {"MB/s", KD * KD},        {"GB/s", KD * KD * KD},
    {"TB/s", KD * KD * KD * KD}, {"PB/s", KD * KD * KD * KD * KD},
    {"EB/s", KD * KD * KD * KD * KD * KD}, {"KiB/s", KI}, {"MiB/s", KI * KI},
    {"GiB/s", KI * KI * KI}, {"TiB/s", KI * KI * KI * KI}, {"PiB/s", KI * KI * KI * KI * KI},
    {"EiB/s", KI * KI * KI * KI * KI * KI}, {NULL, 0},
};

static const unit_def time_units[] = {
    {"ps", 1}, {"ns", AM_PS_PER_NS}, {"us", AM_PS_PER_US}, {"ms", AM_PS_PER_MS}, {"s", AM_PS_PER_S},
    {NULL, 0},
};

/* A parsed decimal: value = mant * 10^exp, negative when neg. */
#define MANT_ROOM ((u128)10000000000000ULL * 1000000000000ULL) /* 10^25 */
typedef struct decnum {
    u128 mant; /* at most 26 significant digits (< 10^26, so mant * 2^40 fits) */
    int exp;
    int neg;
    int lost;       /* a non-zero digit beyond the 26 was dropped */
    int ints;       /* digits written before the point */
    int fracs;      /* digits written after it */
    int scientific; /* an exponent followed ("1e3") */
} decnum;

/* ASCII only: <ctype.h> would consult the locale. */
static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_space(char c) { return c == ' ' || c == '\t'; }

/* Read a decimal number at s, keeping digits while the mantissa is below room (MANT_ROOM for
 * the quantity parsers); returns the first character after it, or NULL (no digits). */
static const char *parse_dec_room(const char *s, decnum *d, u128 room)
{
    int digits = 0, frac = 0;
    memset(d, 0, sizeof *d);
    if (*s == '-' || *s == '+')
        d->neg = *s++ == '-';
    /* digits with at most one '.'; a second '.' ends the number (and is refused later) */
    for (;; s++) {
        if (*s == '.' && !frac) {
            frac = 1;
            continue;
        }
        if (!is_digit(*s))
            break;
        digits++;
        if (frac)
            d->fracs++;
        else
            d->ints++;
        if (d->mant < room) { /* room for one more digit */
            d->mant = d->mant * 10 + (unsigned)(*s - '0');
            d->exp -= frac;
        } else {
            d->lost |= *s != '0';
            if (!frac)
                d->exp++; /* integer digit beyond precision: keep the magnitude */
        }
    }
    if (!digits)
        return NULL;
    /* Exponent only when digits follow ("1e3", "2E-2"); "1e" is left to the unit check. */
    if ((*s == 'e' || *s == 'E') &&
        (is_digit(s[1]) || ((s[1] == '-' || s[1] == '+') && is_digit(s[2])))) {
        int eneg = 0, e = 0;
        d->scientific = 1;
        s++;
        if (*s == '-' || *s == '+')
            eneg = *s++ == '-';
        for (; is_digit(*s); s++)
            if (e < 100000)
                e = e * 10 + (*s - '0');
        d->exp += eneg ? -e : e;
    }
    return s;
}

static const char *parse_dec(const char *s, decnum *d) { return parse_dec_room(s, d, MANT_ROOM); }

/* mant * mul * 10^exp rounded to nearest, or -1 when it does not fit in 64 bits; *inexact is
 * set when rounding changed the value (a fraction of the base unit was dropped or added). */
static int scale(u128 mant, int exp, uint64_t mul, uint64_t *out, int *inexact)
{
    u128 v = mant * mul; /* < 10^26 * 2^40 < 2^127 */
    *inexact = 0;
    if (v == 0) {
        *out = 0;
        return 0;
    }
    if (exp >= 0) {
        /* check before each step so that v * 10 cannot wrap 128 bits */
        for (int i = 0; i < exp; i++) {
            if (v > UINT64_MAX)
                return -1;
            v *= 10;
        }
    } else if (exp < -38) {
        v = 0; /* v < 2^127 < 10^39 / 2: below one half of the base unit */
        *inexact = 1;
    } else {
        /* divide by 10^-exp (fits: 10^38 < 2^127) and round half up on the remainder */
        u128 p = 1;
        for (int i = 0; i < -exp; i++)
            p *= 10;
        u128 q = v / p, r = v % p;
        v = q + (r * 2 >= p); /* r < p < 2^127: no overflow */
        *inexact = r != 0;
    }
    if (v > UINT64_MAX)
        return -1;
    *out = (uint64_t)v;
    return 0;
}

/* Shared by the three parsers: number, optional blanks, unit from the table (or plain_mul).
 * inexact_why: refuse, with that reason (return Q_INEXACT), a value that is not a whole number
 * of base units or has more digits than are read exactly (NULL: round it); zero_why: refuse
 * (return -2, with that reason) a value that is not 0 but rounds to 0 (NULL: 0 it is). Any
 * other refusal returns -1. */
#define Q_INEXACT (-3)

/* The number and unit of a quantity, unscaled: *d as written, *mul the unit's factor (plain_mul
 * without one). 0, or -1 with *why (unit_why for an unknown unit). */
static int read_quantity(const char *s, const unit_def *units, uint64_t plain_mul, decnum *d,
                         uint64_t *mul_out, const char **why, const char *unit_why)
{
    if (!s) {
        *why = "empty value";
        return -1;
    }
    while (is_space(*s))
        s++;
    if (!*s) {
        *why = "empty value";
        return -1;
    }
    const char *p = parse_dec(s, d);
    if (!p) {
        *why = "not a number";
        return -1;
    }
    /* "1.5.3", "1-2": number characters right after a number are a malformed number */
    if (*p == '.' || is_digit(*p) || *p == '-' || *p == '+') {
        *why = "malformed number";
        return -1;
    }
    while (is_space(*p))
        p++;
    /* the unit is the rest, without trailing blanks, matched exactly (case sensitive) */
    size_t n = strlen(p);
    while (n && is_space(p[n - 1]))
        n--;
    uint64_t mul = 0;
    if (n == 0) {
        mul = plain_mul;
    } else {
        for (const unit_def *u = units; u->name; u++)
            if (strlen(u->name) == n && memcmp(u->name, p, n) == 0)
                mul = u->mul;
        if (!mul) {
            *why = unit_why;
            return -1;
        }
    }
    /* a minus sign is refused, "-0" too: a size or time is digits with an optional point and
     * exponent, as in a trace (until 2026-11-27 "-0" passed here as 0 while a trace refused it) */
    if (d->neg) {
        *why = "negative values are not allowed";
        return -1;
    }
    *mul_out = mul;
    return 0;
}

static int parse_quantity(const char *s, const unit_def *units, uint64_t plain_mul, uint64_t *out,
                          const char **why, const char *unit_why, const char *inexact_why,
                          const char *zero_why)
{
    const char *dummy;
    if (!why)
        why = &dummy;
    decnum d;
    uint64_t mul;
    if (read_quantity(s, units, plain_mul, &d, &mul, why, unit_why) != 0)
        return -1;
    int inexact;
    uint64_t v;
    if (scale(d.mant, d.exp, mul, &v, &inexact) < 0) {
        *why = "value too large (does not fit in 64 bits)";
        return -1;
    }
    if (inexact_why && d.lost) {
        *why = "more significant digits than are read exactly (26)";
        return Q_INEXACT;
    }
    if (inexact_why && inexact) {
        *why = inexact_why;
        return Q_INEXACT;
    }
    if (zero_why && v == 0 && d.mant) {
        *why = zero_why;
        return -2;
    }
    *out = v;
    return 0;
}

#define SIZE_UNIT_WHY \
    "unknown unit (sizes: B, KiB, MiB, GiB, TiB, PiB, EiB, KB, MB, GB, TB, PB, EB)"

int units_size(const char *s, uint64_t *bytes, const char **why)
{
    return parse_quantity(s, size_units, 1, bytes, why, SIZE_UNIT_WHY, NULL, NULL);
}

/* The _whole forms' status: an inexact value is refused like any other (-1). */
static int whole_rc(int rc) { return rc == Q_INEXACT ? -1 : rc; }

int units_size_whole(const char *s, uint64_t *bytes, const char **why)
{
    return whole_rc(parse_quantity(s, size_units, 1, bytes, why, SIZE_UNIT_WHY,
                                   "not a whole number of bytes", NULL));
}

int units_size_nonzero(const char *s, uint64_t *bytes, const char **why)
{
    return parse_quantity(s, size_units, 1, bytes, why, SIZE_UNIT_WHY, NULL, "rounds to 0 bytes");
}

#define BW_UNIT_WHY                                                                         \
    "unknown unit (bandwidths: B/s, KB/s, MB/s, GB/s, TB/s, PB/s, EB/s, KiB/s, MiB/s, GiB/s, " \
    "TiB/s, PiB/s, EiB/s)"

int units_bandwidth(const char *s, uint64_t *bytes_per_s, const char **why)
{
    return parse_quantity(s, bw_units, 1, bytes_per_s, why, BW_UNIT_WHY, NULL, NULL);
}

int units_bandwidth_nonzero(const char *s, uint64_t *bytes_per_s, const char **why)
{
    return parse_quantity(s, bw_units, 1, bytes_per_s, why, BW_UNIT_WHY, NULL, "rounds to 0 B/s");
}

#define TIME_UNIT_WHY "unknown unit (times: ps, ns, us, ms, s)"
#define TIME_WHOLE_WHY "not a whole number of picoseconds"

int units_time_default(const char *s, am_ps unit_ps, am_ps *ps, const char **why)
{
    return parse_quantity(s, time_units, unit_ps, ps, why, TIME_UNIT_WHY, NULL, NULL);
}

int units_time_default_whole(const char *s, am_ps unit_ps, am_ps *ps, const char **why)
{
    return whole_rc(parse_quantity(s, time_units, unit_ps, ps, why, TIME_UNIT_WHY,
                                   TIME_WHOLE_WHY, NULL));
}

int units_time(const char *s, am_ps *ps, const char **why)
{
    return units_time_default(s, AM_PS_PER_S, ps, why);
}

int units_time_nonzero(const char *s, am_ps *ps, const char **why)
{
    return parse_quantity(s, time_units, AM_PS_PER_S, ps, why, TIME_UNIT_WHY, NULL,
                          "rounds to 0 ps");
}

int units_time_whole(const char *s, am_ps *ps, const char **why)
{
    return units_time_default_whole(s, AM_PS_PER_S, ps, why);
}

int units_time_unit(const char *s, am_ps *ps, const char **why)
{
    /* A bare unit is 1 of it ("us" is 1 us), the one form for a config's trace.time_unit and a
     * trace header's time_unit= (trace_native.c reads it here; until 2026-11-27 it expanded the
     * bare unit itself and the config refused `us`: "not a number"). */
    char one[64];
    if (s && ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')) &&
        strlen(s) < sizeof one - 1) {
        snprintf(one, sizeof one, "1%s", s);
        s = one;
    }
    int rc = parse_quantity(s, time_units, AM_PS_PER_S, ps, why, TIME_UNIT_WHY, TIME_WHOLE_WHY,
                            NULL);
    return rc == Q_INEXACT ? -2 : rc;
}

int units_u64(const char *s, size_t len, uint64_t *v)
{
    /* *v is written only on success */
    uint64_t x = 0;
    if (!s || len == 0)
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (!is_digit(s[i]))
            return -1;
        uint64_t d = (uint64_t)(s[i] - '0');
        if (x > (UINT64_MAX - d) / 10)
            return -1;
        x = x * 10 + d;
    }
    *v = x;
    return 0;
}

/* s as the nearest double, whatever the process's locale: strtod_l in the C locale, made once
 * and kept for the life of the process (strtod when it cannot be made: amsim never leaves the C
 * locale it starts in). */
static double read_double(const char *s)
{
    static locale_t c;
    if (!c)
        c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    return c ? strtod_l(s, NULL, c) : strtod(s, NULL);
}

int units_real(const char *s, double *v, const char **why)
{
    const char *dummy;
    if (!why)
        why = &dummy;
    if (!s || !*s) {
        *why = "empty value";
        return -1;
    }
    decnum d;
    const char *p = parse_dec(s, &d);
    if (!p) {
        *why = "not a number";
        return -1;
    }
    if (*p) {
        *why = "malformed number";
        return -1;
    }
    /* The nearest double to the decimal as written, every digit counted: strtod_l in the C
     * locale, on a text whose form parse_dec has just accepted (so none of strtod's other forms,
     * hex, inf, nan or blanks, gets here). Until 2026-11-28 the mantissa (26 digits at most) was
     * scaled by powers of ten in steps, each rounding: "1.0000000000000000000000000" read as
     * 1.0000000000000002 and was refused as above 1, and 0.3333333333333333333 was one ulp off. */
    double x = read_double(s);
    if (!isfinite(x)) {
        *why = "value too large";
        return -1;
    }
    /* a nonzero mantissa that came out as 0 is a number below the smallest double, in any form
     * ("1e-400" or "0." followed by 400 zeros and a 1): refused as an overflow is, not taken
     * for the 0 it is not (until 2026-11-27 every caller took it for 0) */
    if (x == 0.0 && d.mant != 0) {
        *why = UNITS_REAL_TINY_WHY;
        return -2;
    }
    *v = x; /* its sign included */
    return 0;
}

/* v / unit rounded to `places` decimals (1..3), counted in 10^-places units: integer
 * arithmetic, exact for every 128-bit value. 10^places is *scale10. */
static u128 fixed_rounded(am_u128 v, uint64_t unit, int places, uint64_t *scale10)
{
    *scale10 = places == 2 ? 100 : places == 3 ? 1000 : 10;
    u128 whole = v / unit;
    u128 frac = ((u128)(v % unit) * *scale10 + unit / 2) / unit;
    return whole * *scale10 + frac; /* a fraction that rounds up to one whole unit carries */
}

/* The index of the unit a fixed-point figure is printed in, units[0..last] ascending with the
 * first not above v: the largest whose figure, once rounded to `places` decimals, is at least
 * 1, so it stays below `step` (1000 or 1024) unless past the last unit. The unit is chosen after
 * rounding (until 2026-11-27 before: 1048575 B printed "1024.00 KiB", 999999600 ps
 * "1000.000 us"). */
static int fixed_unit(am_u128 v, const uint64_t *units, int last, int places, uint64_t step)
{
    int i = 0;
    uint64_t scale10;
    while (i < last && fixed_rounded(v, units[i], places, &scale10) >= (u128)step * scale10)
        i++;
    return i;
}

/* whole.frac with `places` decimals (1..3) of v / unit, rounded, into buf. */
static char *fmt_fixed(char *buf, size_t n, am_u128 v, uint64_t unit, int places,
                       const char *name)
{
    uint64_t scale10;
    u128 r = fixed_rounded(v, unit, places, &scale10);
    char w[48];
    snprintf(buf, n, "%s.%0*llu %s", units_fmt_u128(w, sizeof w, r / scale10), places,
             (unsigned long long)(r % scale10), name);
    return buf;
}

char *units_fmt_u128(char *buf, size_t n, am_u128 v)
{
    char d[48];
    size_t i = sizeof d;
    d[--i] = '\0';
    do {
        d[--i] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v);
    snprintf(buf, n, "%s", d + i);
    return buf;
}

char *units_fmt_pct(char *buf, size_t n, double v)
{
    if (isnan(v)) {
        snprintf(buf, n, "n/a");
        return buf;
    }
    double p = 100.0 * v;
    for (int places = 1; places <= 3; places++) {
        /* the figure as printf rounds it at this many places (read back in the same locale) */
        snprintf(buf, n, "%.*f %%", places, p);
        double shown = strtod(buf, NULL);
        if (!(p > 0 && p < 100) || (shown != 0.0 && shown != 100.0))
            return buf;
    }
    snprintf(buf, n, p < 1 ? "< 0.001 %%" : "> 99.999 %%");
    return buf;
}

char *units_fmt_size(char *buf, size_t n, uint64_t bytes)
{
    return units_fmt_size128(buf, n, bytes);
}

char *units_fmt_size_exact(char *buf, size_t n, uint64_t bytes)
{
    units_fmt_size(buf, n, bytes);
    if (bytes >= KI) {
        size_t len = strlen(buf);
        snprintf(buf + len, n > len ? n - len : 0, " (%" PRIu64 " B)", bytes);
    }
    return buf;
}

/* The binary size units, index = units_size_unit's: B, then KiB to EiB. */
static const char *const binary_names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
static const uint64_t binary_units[] = {1, KI, KI * KI, KI * KI * KI, KI * KI * KI * KI,
                                        KI * KI * KI * KI * KI, KI * KI * KI * KI * KI * KI};

/* The binary unit from KiB to EiB whose figure, rounded to 2 decimals, is below 1024
 * (fixed_unit), so a number never reaches "1024.00" and a size keeps within 11 characters up to
 * 2^64 - 1 ("16.00 EiB"); until 2026-11-27 up to TiB, and a 4 EiB capacity printed
 * "4194304.00 TiB", past the report's columns. A 128-bit total past 16 EiB stays in EiB
 * ("32.00 EiB"). B below 1 KiB. */
int units_size_unit(am_u128 bytes)
{
    return bytes < KI ? 0 : 1 + fixed_unit(bytes, binary_units + 1, 5, 2, KI);
}

const char *units_size_name(int unit) { return binary_names[unit]; }

char *units_fmt_size128(char *buf, size_t n, am_u128 bytes)
{
    if (bytes < KI) {
        snprintf(buf, n, "%llu B", (unsigned long long)bytes);
        return buf;
    }
    int u = units_size_unit(bytes);
    return fmt_fixed(buf, n, bytes, binary_units[u], 2, binary_names[u]);
}

/* Whether v (>= 0) printed with 3 decimals reads at least 1000: the figure as printf rounds
 * it, so the unit is chosen after rounding (999.9996 prints "1000.000"). */
static int prints_1000_or_more(double v)
{
    char t[512]; /* "%.3f" of DBL_MAX is 313 characters */
    snprintf(t, sizeof t, "%.3f", v);
    size_t digits = strspn(t, "0123456789");
    return digits >= 4;
}

/* Whether v (>= 0) printed with 3 decimals reads below 1 ("0.999" and under). */
static int prints_below_1(double v)
{
    char t[512];
    snprintf(t, sizeof t, "%.3f", v);
    return t[0] == '0' && strspn(t, "0123456789") == 1;
}

/* v (>= 0) scaled by 1000 per unit from names[0] to names[last] with 3 decimals, in the unit
 * whose rounded figure is in [1, 1000) (the last unit keeps larger ones); a figure below 1 in
 * names[0] that is not 0 gets 3 significant digits instead ("0.0004 B/s", "2e-09 pJ"), as 3
 * decimals would print it as 0 or with one digit. */
static char *fmt_scaled(char *buf, size_t n, double v, const char *const *names, int last)
{
    if (v > 0 && prints_below_1(v)) {
        snprintf(buf, n, "%.3g %s", v, names[0]);
        return buf;
    }
    int i = 0;
    while (i < last && prints_1000_or_more(v)) {
        v /= 1000.0;
        i++;
    }
    snprintf(buf, n, "%.3f %s", v, names[i]);
    return buf;
}

char *units_fmt_bandwidth(char *buf, size_t n, double bytes_per_s)
{
    /* decimal units, as bandwidths are quoted by vendors (GB/s, TB/s); up to EB/s, as the
     * parser reads them (until 2026-11-27 TB/s was the largest: 1 EB/s printed as
     * "1000000.000 TB/s", wider than the report's column) */
    static const char *const names[] = {"B/s", "KB/s", "MB/s", "GB/s", "TB/s", "PB/s", "EB/s"};
    const int last = (int)(sizeof names / sizeof *names) - 1;
    /* the unit after rounding (until 2026-11-27 before: 999999999 B/s, and 1 GB/s measured as
     * 1 B in 1 ns, printed "1000.000 MB/s"); a rate below 1 B/s with 3 significant digits
     * (until 2026-11-27 0.0004 B/s printed "0.000 B/s") */
    return fmt_scaled(buf, n, bytes_per_s, names, last);
}

char *units_fmt_energy(char *buf, size_t n, double joules)
{
    /* auto-scaled as times are (until 2026-11-27 link energies printed in mJ with 6 decimals:
     * 2 pJ was "0.000000 mJ") */
    static const char *const names[] = {"pJ", "nJ", "uJ", "mJ", "J", "kJ", "MJ", "GJ", "TJ",
                                        "PJ", "EJ"};
    const int last = (int)(sizeof names / sizeof *names) - 1;
    if (joules == 0) {
        snprintf(buf, n, "0 J");
        return buf;
    }
    /* the unit after rounding (until 2026-11-27 before: 0.9999999 pJ/B x 1000000 B printed
     * "1000.000 nJ") */
    return fmt_scaled(buf, n, joules * 1e12, names, last); /* from picojoules */
}

char *units_fmt_time(char *buf, size_t n, am_ps ps)
{
    static const uint64_t units[] = {AM_PS_PER_NS, AM_PS_PER_US, AM_PS_PER_MS, AM_PS_PER_S};
    static const char *const names[] = {"ns", "us", "ms", "s"};
    if (ps < AM_PS_PER_NS) {
        snprintf(buf, n, "%llu ps", (unsigned long long)ps);
        return buf;
    }
    int i = fixed_unit(ps, units, 3, 3, 1000);
    return fmt_fixed(buf, n, ps, units[i], 3, names[i]);
}

char *units_fmt_seconds(char *buf, size_t n, am_ps ps) { return units_fmt_seconds128(buf, n, ps); }

char *units_fmt_seconds128(char *buf, size_t n, am_u128 ps)
{
    u128 whole = ps / AM_PS_PER_S;
    unsigned long long frac = (unsigned long long)(ps % AM_PS_PER_S);
    char w[48];
    units_fmt_u128(w, sizeof w, whole);
    if (!frac) {
        snprintf(buf, n, "%s", w);
        return buf;
    }
    int digits = 12;
    while (frac % 10 == 0) { /* no trailing zeros */
        frac /= 10;
        digits--;
    }
    snprintf(buf, n, "%s.%0*llu", w, digits, frac);
    return buf;
}

/* ---- ranges: from + k * step, exactly ------------------------------------------------------ */

/* A value as written, exactly: (neg ? -1 : 1) * mag * 10^exp base units. */
typedef struct exact {
    u128 mag;
    int exp;
    int neg;
} exact;

#define U128_MAX (~(u128)0)

/* d * mul as an exact value (mul * d.mant < 2^127: the callers' mantissas are below 10^26 with
 * a mul up to 10^12, or below 10^36 with mul 1). */
static void to_exact(const decnum *d, uint64_t mul, exact *x)
{
    x->mag = d->mant * mul;
    x->exp = d->exp;
    x->neg = d->neg && d->mant;
    /* fewest digits: "1.50" and "1.5" align to the same power of ten */
    while (x->mag && x->mag % 10 == 0) {
        x->mag /= 10;
        x->exp++;
    }
    if (!x->mag)
        x->exp = 0;
}

/* The field s of a range as an exact value of its kind (the parsers' number and unit tables,
 * without their rounding). 0, or -1 with *why. */
static int read_exact(units_kind kind, const char *s, exact *x, const char **why)
{
    decnum d;
    uint64_t mul = 1;
    if (kind == UNITS_NUMBER) {
        const char *p = s ? parse_dec(s, &d) : NULL;
        if (!p || *p) {
            *why = p ? "malformed number" : "not a number";
            return -1;
        }
    } else if (read_quantity(s, kind == UNITS_SIZE ? size_units : time_units,
                             kind == UNITS_SIZE ? 1 : AM_PS_PER_S, &d, &mul, why,
                             kind == UNITS_SIZE ? SIZE_UNIT_WHY : TIME_UNIT_WHY) != 0)
        return -1;
    to_exact(&d, mul, x);
    return 0;
}

/* x's magnitude in units of 10^e (e <= x->exp): 0, or -1 when it does not fit 128 bits. */
static int align(const exact *x, int e, u128 *out)
{
    u128 m = x->mag;
    for (int i = e; i < x->exp; i++) {
        if (m > U128_MAX / 10)
            return -1;
        m *= 10;
    }
    *out = m;
    return 0;
}

/* Signed comparison of (an, a) and (bn, b): -1, 0 or 1. */
static int cmp_signed(int an, u128 a, int bn, u128 b)
{
    if (a == 0)
        an = 0;
    if (b == 0)
        bn = 0;
    if (an != bn)
        return an ? -1 : 1;
    int c = a < b ? -1 : a > b;
    return an ? -c : c;
}

/* The decimal digits of m into buf (n >= 40); returns their count. */
static size_t u128_digits(u128 m, char *buf)
{
    char t[48];
    size_t k = 0;
    do {
        t[k++] = (char)('0' + (int)(m % 10));
        m /= 10;
    } while (m);
    for (size_t i = 0; i < k; i++)
        buf[i] = t[k - 1 - i];
    buf[k] = 0;
    return k;
}

/* (neg) m * 10^e as an exact decimal into buf (n >= 96): "0.3", "-12", "1500", "0.0025", or
 * with an exponent ("25e40", "25e-45") when the plain form would have more than 40 zeros. */
static void fmt_exact(char *buf, size_t n, int neg, u128 m, int e)
{
    char d[48], out[128];
    while (m && m % 10 == 0) {
        m /= 10;
        e++;
    }
    if (!m) {
        snprintf(buf, n, "0");
        return;
    }
    size_t len = u128_digits(m, d), k = 0;
    if (neg)
        out[k++] = '-';
    if (e > 40 || e < -(int)len - 40) {
        snprintf(out + k, sizeof out - k, "%se%d", d, e);
    } else if (e >= 0) {
        memcpy(out + k, d, len);
        k += len;
        memset(out + k, '0', (size_t)e);
        out[k + (size_t)e] = 0;
    } else if ((size_t)-e < len) { /* digits on both sides of the point */
        size_t ip = len - (size_t)-e;
        memcpy(out + k, d, ip);
        k += ip;
        out[k++] = '.';
        memcpy(out + k, d + ip, len - ip + 1);
    } else { /* 0.000DIGITS */
        size_t z = (size_t)-e - len;
        out[k++] = '0';
        out[k++] = '.';
        memset(out + k, '0', z);
        memcpy(out + k + z, d, len + 1);
    }
    snprintf(buf, n, "%s", out);
}

int units_range_value(units_kind kind, const char *from, const char *to, const char *step,
                      uint64_t k, uint64_t *v, char *buf, size_t n, const char **why)
{
    const char *dummy;
    if (!why)
        why = &dummy;
    exact f, t, s;
    if (read_exact(kind, from, &f, why) || read_exact(kind, to, &t, why) ||
        read_exact(kind, step, &s, why))
        return -1;
    int e = AM_MIN(f.exp, AM_MIN(t.exp, s.exp));
    u128 a, b, c;
    if (align(&f, e, &a) || align(&t, e, &b) || align(&s, e, &c) || (k && c > U128_MAX / k)) {
        *why = "from, to and step have too many digits together to be added exactly";
        return -1;
    }
    /* from + k * step, a signed magnitude: step > 0, from may be negative (numbers) */
    u128 kc = c * k, m;
    int neg = 0;
    if (!f.neg) {
        if (a > U128_MAX - kc) {
            *why = "from, to and step have too many digits together to be added exactly";
            return -1;
        }
        m = a + kc;
    } else if (kc >= a) {
        m = kc - a;
    } else {
        m = a - kc;
        neg = 1;
    }
    if (cmp_signed(neg, m, t.neg, b) > 0)
        return 1;
    if (kind == UNITS_NUMBER) {
        fmt_exact(buf, n, neg, m, e);
        return 0;
    }
    /* one rounding, to the nearest base unit, ties up (as the parsers): not a sum of rounded
     * steps; the value is at most `to`, which fits 64 bits when it was read */
    int inexact;
    if (scale(m, e, 1, v, &inexact) != 0) {
        *why = "value too large (does not fit in 64 bits)";
        return -1;
    }
    return 0;
}

/* units_fmt_shortest's loop, reading back with strtod or (own_reader) units_real */
static char *fmt_shortest(char *buf, size_t n, double v, int min_digits, int own_reader)
{
    for (int prec = min_digits; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, v);
        double back;
        if (own_reader ? units_real(buf, &back, NULL) == 0 && back == v : strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

char *units_fmt_shortest(char *buf, size_t n, double v, int min_digits)
{
    return fmt_shortest(buf, n, v, min_digits, 0);
}

char *units_fmt_real(char *buf, size_t n, double v) { return fmt_shortest(buf, n, v, 1, 1); }

/* ---- exact differences of plain decimals ------------------------------------------------- */

/* Digits read exactly by units_exact_diff: up to PLAIN_INTS before the point (every whole number
 * up to 2^64, 20 digits, and beyond to 10^20) and PLAIN_FRACS after it. Two such values aligned
 * to a common power of ten stay below 10^38, and their difference below 2 * 10^38 < 2^128.
 * Until 2026-11-27 18 digits before the point: 1000000000000000001 - 1000000000000000000 was
 * subtracted as doubles, 0. */
enum { PLAIN_INTS = 20, PLAIN_FRACS = 18 };
#define PLAIN_ROOM ((u128)10000000000000000000ULL * 1000000000000000000ULL) /* 10^37 */

/* cell, blanks around it trimmed (as rtable_num does), as an exact value: 0 when it is a plain
 * decimal ([+-]digits[.digits], no exponent) of at most PLAIN_INTS digits before the point and
 * PLAIN_FRACS after it, else -1. Read with a wider mantissa than read_exact's (38 digits, not
 * 26), so that no digit of such a cell is dropped. */
static int read_plain(const char *cell, exact *x)
{
    char buf[PLAIN_INTS + PLAIN_FRACS + 3]; /* sign, digits, point, digits, NUL */
    size_t n = strlen(cell);
    while (n && is_space(*cell))
        cell++, n--;
    while (n && is_space(cell[n - 1]))
        n--;
    if (n >= sizeof buf) /* longer than any such decimal */
        return -1;
    memcpy(buf, cell, n);
    buf[n] = 0;
    decnum d;
    const char *p = parse_dec_room(buf, &d, PLAIN_ROOM);
    if (!p || *p || d.scientific || d.ints > PLAIN_INTS || d.fracs > PLAIN_FRACS)
        return -1;
    to_exact(&d, 1, x);
    return 0;
}

int units_plain_fixed(const char *cell, am_i128 *v, int *fracs)
{
    exact x;
    if (read_plain(cell, &x) != 0)
        return -1;
    u128 m = x.mag;
    *fracs = x.exp < 0 ? -x.exp : 0;
    for (int e = x.exp; e > 0; e--)
        m *= 10; /* exact: a plain cell is below 10^20 */
    *v = x.neg ? -(am_i128)m : (am_i128)m; /* below 10^38 < 2^127 */
    return 0;
}

int units_exact_diff(const char *a, const char *b, double *d)
{
    exact xa, xb;
    if (read_plain(a, &xa) != 0 || read_plain(b, &xb) != 0)
        return -1;
    int e = AM_MIN(xa.exp, xb.exp);
    u128 ma, mb, m;
    if (align(&xa, e, &ma) != 0 || align(&xb, e, &mb) != 0)
        return -1; /* not reached: both are below 10^36 in units of 10^e */
    /* a - b as a sign and a magnitude (below 2 * 10^38 < 2^128) */
    int neg;
    if (xa.neg != xb.neg) {
        m = ma + mb;
        neg = xa.neg;
    } else if (ma >= mb) {
        m = ma - mb;
        neg = xa.neg;
    } else {
        m = mb - ma;
        neg = !xa.neg;
    }
    /* the difference's trailing zeros dropped, then one conversion: equal differences give the
     * same double whatever digits the values had */
    for (; e < 0 && m && m % 10 == 0; e++)
        m /= 10;
    for (; e > 0; e--)
        m *= 10; /* exact: the values are below 10^20 */
    double p10 = 1;
    for (int i = e; i < 0; i++)
        p10 *= 10; /* exact: 10^18 < 2^63 */
    double v = (double)m / p10;
    *d = neg && m ? -v : v;
    return 0;
}

/* ---- ranges: from * factor^k, exactly --------------------------------------------------------
 * factor^k has k times the factor's digits, past 128 bits after a few dozen values of 1.1, so
 * the exact product is a decimal big integer N (base 10^9 limbs, least significant first) times
 * 10^E. Its limbs are capped: a range whose exact values need more digits is refused, not
 * approximated (realistic ranges need a few hundred digits). */
#define BIG_LIMBS 4096
#define BIG_BASE 1000000000u

typedef struct big {
    uint32_t l[BIG_LIMBS];
    int n; /* limbs in use; 0 is zero */
} big;

static void big_set(big *b, u128 v)
{
    b->n = 0;
    while (v) {
        b->l[b->n++] = (uint32_t)(v % BIG_BASE);
        v /= BIG_BASE;
    }
}

static void big_copy(big *dst, const big *src)
{
    memcpy(dst->l, src->l, (size_t)src->n * sizeof *src->l);
    dst->n = src->n;
}

/* b *= m (m < 10^29, so a limb times m plus the carry fits 128 bits): 0, or -1 past the cap. */
static int big_mul(big *b, u128 m)
{
    u128 carry = 0;
    for (int i = 0; i < b->n; i++) {
        u128 p = (u128)b->l[i] * m + carry;
        b->l[i] = (uint32_t)(p % BIG_BASE);
        carry = p / BIG_BASE;
    }
    while (carry) {
        if (b->n == BIG_LIMBS)
            return -1;
        b->l[b->n++] = (uint32_t)(carry % BIG_BASE);
        carry /= BIG_BASE;
    }
    return 0;
}

/* b *= 10^p (p >= 0): whole limbs shifted, the rest multiplied. 0, or -1 past the cap. */
static int big_mul_pow10(big *b, int p)
{
    static const uint32_t pow10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
                                      100000000};
    int q = p / 9;
    if (b->n && q) {
        if (b->n + q > BIG_LIMBS)
            return -1;
        memmove(b->l + q, b->l, (size_t)b->n * sizeof *b->l);
        memset(b->l, 0, (size_t)q * sizeof *b->l);
        b->n += q;
    }
    return big_mul(b, pow10[p % 9]);
}

static int big_cmp(const big *a, const big *b)
{
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    for (int i = a->n - 1; i >= 0; i--)
        if (a->l[i] != b->l[i])
            return a->l[i] < b->l[i] ? -1 : 1;
    return 0;
}

/* Compares N * 10^e with t exactly, at the smaller power of ten: -1, 0, 1, or -2 past the cap.
 * scratch holds two big integers. */
static int big_cmp_exact(const big *nb, int e, const exact *t, big scratch[2])
{
    int s = AM_MIN(e, t->exp);
    big_copy(&scratch[0], nb);
    big_set(&scratch[1], t->mag);
    if (big_mul_pow10(&scratch[0], e - s) || big_mul_pow10(&scratch[1], t->exp - s))
        return -2;
    return big_cmp(&scratch[0], &scratch[1]);
}

/* N * 10^e rounded once to the nearest whole unit, ties up (as the parsers): the fraction is
 * at least a half exactly when its first digit is 5 or more. 0, or -1 past 64 bits. */
static int big_round(const big *nb, int e, uint64_t *out)
{
    u128 ip = 0;
    if (e >= 0) {
        for (int i = nb->n - 1; i >= 0; i--) {
            if (ip > (U128_MAX - nb->l[i]) / BIG_BASE)
                return -1;
            ip = ip * BIG_BASE + nb->l[i];
        }
        for (int i = 0; i < e && ip; i++) {
            if (ip > UINT64_MAX)
                return -1;
            ip *= 10;
        }
    } else {
        int d = -e, q = d / 9, first = d - 1;
        for (int i = nb->n - 1; i >= q; i--) {
            if (ip > (U128_MAX - nb->l[i]) / BIG_BASE)
                return -1;
            ip = ip * BIG_BASE + nb->l[i];
        }
        for (int i = 0; i < d % 9; i++)
            ip /= 10;
        uint32_t digit = 0;
        if (first / 9 < nb->n) {
            digit = nb->l[first / 9];
            for (int i = 0; i < first % 9; i++)
                digit /= 10;
            digit %= 10;
        }
        ip += digit >= 5;
    }
    if (ip > UINT64_MAX)
        return -1;
    *out = (uint64_t)ip;
    return 0;
}

/* The factor as written is above 1, exactly ("1.0000000000000000001" is, though its double is
 * not). */
static int exact_above_one(const exact *x)
{
    if (x->neg || !x->mag)
        return 0;
    if (x->exp >= 0)
        return x->mag > 1 || x->exp > 0;
    if (x->exp < -38) /* mag < 2^127 < 10^39 */
        return 0;
    u128 p = 1;
    for (int i = 0; i < -x->exp; i++)
        p *= 10;
    return x->mag > p;
}

int units_above_one(const char *s)
{
    decnum d;
    const char *p = s ? parse_dec(s, &d) : NULL;
    if (!p || *p)
        return 0;
    exact x;
    to_exact(&d, 1, &x);
    /* a nonzero digit past those kept makes a kept 1 (1.000...0001) more than 1 */
    return exact_above_one(&x) || (d.lost && !x.neg && x.mag == 1 && x.exp == 0);
}

int units_factor_values(units_kind kind, const char *from, const char *to, const char *factor,
                        uint64_t *vals, size_t max, size_t *n, const char **why)
{
    const char *dummy;
    if (!why)
        why = &dummy;
    *n = 0;
    if (kind == UNITS_NUMBER) {
        *why = "a factor range of plain numbers is not computed here";
        return -1;
    }
    exact f, t, x;
    if (read_exact(kind, from, &f, why) || read_exact(kind, to, &t, why) ||
        read_exact(UNITS_NUMBER, factor, &x, why))
        return -1;
    if (!exact_above_one(&x)) {
        *why = "factor must be above 1";
        return -1;
    }
    if (f.neg || !f.mag) {
        *why = "from must be above 0";
        return -1;
    }
    static const char *const too_long = "the exact values need more than 36864 digits (a factor "
                                        "with many digits over many values); use a factor with "
                                        "fewer digits or a shorter range";
    /* a range of many more than max values is refused before its exact values are computed
     * (their digits grow with k); the estimate's slack covers the doubles' error */
    double lf = log10((double)f.mag) + f.exp, lt = log10((double)t.mag) + t.exp;
    double lx = log10((double)x.mag) + x.exp;
    if (t.mag && (lt - lf) / lx > (double)max + 2)
        return 1;
    /* three big integers are 48 KiB: on the heap, not the stack */
    big *nb = am_malloc(3 * sizeof *nb);
    int e = f.exp, rc = 0;
    big_set(nb, f.mag);
    for (;;) {
        int c = big_cmp_exact(nb, e, &t, nb + 1);
        if (c == -2) {
            *why = too_long, rc = -1;
            break;
        }
        if (c > 0)
            break;
        if (*n == max) {
            rc = 1;
            break;
        }
        if (big_round(nb, e, &vals[*n]) != 0) {
            *why = "value too large (does not fit in 64 bits)", rc = -1;
            break;
        }
        ++*n;
        if (big_mul(nb, x.mag) != 0) {
            *why = too_long, rc = -1;
            break;
        }
        e += x.exp;
    }
    free(nb);
    return rc;
}

/* The unit of a results-table metric, from its name (the columns batch.c writes: LEVEL.NAME and
 * LEVEL.stats.NAME[.current|.peak] with the policy's own names, and the run's own): "bytes",
 * "seconds", "fraction" (a ratio from 0 to 1), "count", or NULL when the name does not say (an
 * axis, or a statistic of a policy added later). Until 2026-11-25 only *_bytes, *_seconds and
 * ratios were known: hbm.capacity and hbm.stats.allocated_bytes.peak said "as in the table".
 * Also "rows" for an expectation's placements.rows. Shared by stats and regress's deviation
 * messages (expect.c). */
const char *units_of_metric(const char *metric)
{
    static const char *const bytes[] = {"capacity", "reserved_unallocated_at_peak",
                                        "largest_alloc_size", "release_threshold",
                                        "largest_free_chunk", NULL};
    static const char *const ratios[] = {"utilization", "fragmentation_ratio",
                                         "max_external_fragmentation", "fragmentation", NULL};
    static const char *const counts[] = {"events", "ooms", "allocs", "device_allocs",
                                         "device_frees", "gc_runs", "regions_freed", "free_blocks",
                                         "plan_buffers", "plan_mismatches", "plan_searches",
                                         "plan_search_work", "unplanned_requests", "allocation",
                                         "segment", "active", "inactive_split", NULL};
    /* the name after the last dot, without a current/peak suffix */
    char name[256];
    size_t n = strlen(metric);
    if (n > 8 && strcmp(metric + n - 8, ".current") == 0)
        n -= 8;
    else if (n > 5 && strcmp(metric + n - 5, ".peak") == 0)
        n -= 5;
    const char *last = metric + n;
    while (last > metric && last[-1] != '.')
        last--;
    snprintf(name, sizeof name, "%.*s", (int)(metric + n - last), last);
    n = strlen(name);
    if (n > 8 && strcmp(name + n - 8, "_seconds") == 0)
        return "seconds";
    if (strcmp(name, "rows") == 0)
        return "rows";
    /* "bytes" as a word of the name: peak_live_bytes, bytes_in_use, peak_bytes_in_use */
    for (const char *p = name; (p = strstr(p, "bytes")) != NULL; p += 5)
        if ((p == name || p[-1] == '_') && (p[5] == 0 || p[5] == '_'))
            return "bytes";
    for (const char *const *w = bytes; *w; w++)
        if (strcmp(name, *w) == 0)
            return "bytes";
    for (const char *const *w = ratios; *w; w++)
        if (strcmp(name, *w) == 0)
            return "fraction";
    if (n > 9 && strcmp(name + n - 9, "_fraction") == 0)
        return "fraction";
    for (const char *const *w = counts; *w; w++)
        if (strcmp(name, *w) == 0)
            return "count";
    if (strncmp(name, "num_", 4) == 0)
        return "count";
    return NULL;
}

const char *units_metric_symbol(const char *unit)
{
    if (!unit)
        return "";
    if (!strcmp(unit, "bytes"))
        return " B";
    if (!strcmp(unit, "seconds"))
        return " s";
    return !strcmp(unit, "rows") ? " rows" : "";
}
