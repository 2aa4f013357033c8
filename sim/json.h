/* json.h - a small streaming JSON writer with deterministic number formatting. */
#ifndef AM_JSON_H
#define AM_JSON_H

#include <stdint.h>
#include <stdio.h>

#include "common.h"

typedef struct json_w {
    FILE *f;
    int depth;
    int first[64]; /* first element at each depth */
    int pretty;
    int after_key; /* the next value follows a key directly */
} json_w;

void json_init(json_w *w, FILE *f, int pretty);
void json_obj(json_w *w);  /* { */
void json_end_obj(json_w *w);
void json_arr(json_w *w);  /* [ */
void json_end_arr(json_w *w);
void json_key(json_w *w, const char *k);
void json_str(json_w *w, const char *s);
void json_u64(json_w *w, uint64_t v);
void json_i64(json_w *w, int64_t v);
void json_real(json_w *w, double v); /* non-finite -> null */
/* v exactly: a whole number (below 1e21) as an integer, another with the fewest significant
 * digits (up to 17) that read back as v; non-finite -> null */
void json_exact(json_w *w, double v);
void json_bool(json_w *w, int v);
void json_null(json_w *w);
/* key + value shorthands */
void json_kstr(json_w *w, const char *k, const char *s);
void json_ku64(json_w *w, const char *k, uint64_t v);
/* A 128-bit total, every digit (JSON numbers have no size limit). */
void json_ku128(json_w *w, const char *k, am_u128 v);
void json_kreal(json_w *w, const char *k, double v);
void json_kexact(json_w *w, const char *k, double v);
/* A number already in JSON's form, written as it is (a config's echo keeps its digits). */
void json_number(json_w *w, const char *text);
/* A number already in JSON's form (digits, perhaps a '-'): an exact figure past a double. */
void json_knumber(json_w *w, const char *k, const char *digits);
/* a time in seconds, every picosecond of it (units_fmt_seconds) */
void json_kseconds(json_w *w, const char *k, am_ps ps);
/* The same for a 128-bit total of picoseconds. */
void json_kseconds128(json_w *w, const char *k, am_u128 ps);
void json_kbool(json_w *w, const char *k, int v);
/* Write a string with JSON escaping (no quotes added) to f. */
void json_escape(FILE *f, const char *s);

#endif
