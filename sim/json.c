/* json.c - streaming JSON writer (see json.h). Ratios print with up to 12 significant digits
 * ("%.12g"), which is deterministic for the same value on every run; times in seconds print
 * exactly from their picoseconds (json_kseconds; until 2026-11-27 they went through "%.12g" too,
 * and a makespan past a second lost its last picoseconds). */
#include "json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "units.h"

void json_init(json_w *w, FILE *f, int pretty)
{
    w->f = f;
    w->depth = 0;
    w->first[0] = 1;
    w->pretty = pretty;
    w->after_key = 0;
}

static void indent(json_w *w)
{
    if (!w->pretty)
        return;
    fputc('\n', w->f);
    for (int i = 0; i < w->depth; i++)
        fputs("  ", w->f);
}

/* Before a value inside an array, or a key inside an object. */
static void sep(json_w *w)
{
    if (w->depth == 0)
        return;
    if (!w->first[w->depth])
        fputc(',', w->f);
    w->first[w->depth] = 0;
    indent(w);
}

static void value_prefix(json_w *w)
{
    if (w->after_key)
        w->after_key = 0;
    else
        sep(w);
}

static void open(json_w *w, char c)
{
    value_prefix(w);
    fputc(c, w->f);
    if (w->depth < 63)
        w->depth++;
    w->first[w->depth] = 1;
}

static void close_(json_w *w, char c)
{
    int empty = w->first[w->depth];
    if (w->depth > 0)
        w->depth--;
    if (!empty)
        indent(w);
    fputc(c, w->f);
    if (w->depth == 0 && w->pretty)
        fputc('\n', w->f);
}

void json_obj(json_w *w) { open(w, '{'); }
void json_end_obj(json_w *w) { close_(w, '}'); }
void json_arr(json_w *w) { open(w, '['); }
void json_end_arr(json_w *w) { close_(w, ']'); }

/* s with JSON's escapes, in one pass. A byte that starts no well-formed UTF-8 character (a file
 * name's 0xff, a Latin-1 byte) is written as the text "\xff" (backslash escaped: the JSON string
 * holds the four characters \ x f f, as messages echo the byte), so that the output stays UTF-8,
 * which RFC 8259 8.1 requires; a \u00ff would name the character U+00FF instead. Until
 * 2026-11-28 such bytes went out raw and strict parsers refused the file. */
void json_escape(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            /* every control character as \uXXXX: C0 and DEL, and C1 (UTF-8 C2 80..C2 9F, U+009B
             * a terminal's CSI), so `--json -` puts none raw on a terminal either (until
             * 2026-11-27 DEL and C1 went out raw) */
            if (*p < 0x20 || *p == 0x7f) {
                fprintf(f, "\\u%04x", *p);
            } else if (*p < 0x80) {
                fputc(*p, f);
            } else if (am_c1_at(p, 2) >= 0) { /* *p is no NUL, so p[1] is there */
                fprintf(f, "\\u%04x", (unsigned)am_c1_at(p++, 2));
            } else {
                int n = am_utf8_len(p); /* stops at the NUL: no continuation byte */
                if (n == 0) {
                    fprintf(f, "\\\\x%02x", *p);
                } else {
                    fwrite(p, 1, (size_t)n, f);
                    p += n - 1;
                }
            }
        }
    }
}

void json_key(json_w *w, const char *k)
{
    sep(w);
    fputc('"', w->f);
    json_escape(w->f, k);
    fputs(w->pretty ? "\": " : "\":", w->f);
    w->after_key = 1;
}

void json_str(json_w *w, const char *s)
{
    value_prefix(w);
    if (!s) {
        fputs("null", w->f);
        return;
    }
    fputc('"', w->f);
    json_escape(w->f, s);
    fputc('"', w->f);
}

void json_u64(json_w *w, uint64_t v)
{
    value_prefix(w);
    fprintf(w->f, "%llu", (unsigned long long)v);
}

void json_i64(json_w *w, int64_t v)
{
    value_prefix(w);
    fprintf(w->f, "%lld", (long long)v);
}

void json_real(json_w *w, double v)
{
    value_prefix(w);
    if (!isfinite(v))
        fputs("null", w->f);
    else if (v == 0)
        fputs("0", w->f);
    else
        fprintf(w->f, "%.12g", v);
}

void json_exact(json_w *w, double v)
{
    value_prefix(w);
    char b[64];
    if (!isfinite(v)) {
        fputs("null", w->f);
        return;
    }
    /* a whole number as an integer (every digit: 1099511627776, not 1.09951162778e+12) */
    if (v == floor(v) && fabs(v) < 1e21) {
        fprintf(w->f, "%.0f", v == 0 ? 0.0 : v);
        return;
    }
    /* the fewest significant digits that read back as the same double */
    fputs(units_fmt_shortest(b, sizeof b, v, 1), w->f);
}

void json_bool(json_w *w, int v)
{
    value_prefix(w);
    fputs(v ? "true" : "false", w->f);
}

void json_null(json_w *w)
{
    value_prefix(w);
    fputs("null", w->f);
}

void json_kstr(json_w *w, const char *k, const char *s) { json_key(w, k); json_str(w, s); }
void json_ku64(json_w *w, const char *k, uint64_t v) { json_key(w, k); json_u64(w, v); }
void json_kreal(json_w *w, const char *k, double v) { json_key(w, k); json_real(w, v); }
void json_kexact(json_w *w, const char *k, double v) { json_key(w, k); json_exact(w, v); }

void json_number(json_w *w, const char *text)
{
    value_prefix(w);
    fputs(text, w->f);
}

void json_knumber(json_w *w, const char *k, const char *digits)
{
    json_key(w, k);
    json_number(w, digits);
}

void json_kseconds(json_w *w, const char *k, am_ps ps)
{
    char b[48];
    json_key(w, k);
    value_prefix(w);
    fputs(units_fmt_seconds(b, sizeof b, ps), w->f);
}

void json_ku128(json_w *w, const char *k, am_u128 v)
{
    char b[48];
    json_key(w, k);
    value_prefix(w);
    fputs(units_fmt_u128(b, sizeof b, v), w->f);
}

void json_kseconds128(json_w *w, const char *k, am_u128 ps)
{
    char b[64];
    json_key(w, k);
    value_prefix(w);
    fputs(units_fmt_seconds128(b, sizeof b, ps), w->f);
}

void json_kbool(json_w *w, const char *k, int v) { json_key(w, k); json_bool(w, v); }
