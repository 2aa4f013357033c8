/* opts.h - option tables: how a policy (or any model) declares its configuration keys.
 *
 * A model lists its keys once, with type, default and where the parsed value goes in its own
 * options struct. The config loader validates a YAML map against such a table (unknown keys,
 * wrong types and bad units are errors with file:line:column) and fills the struct, so a model
 * never sees YAML. */
#ifndef AM_OPTS_H
#define AM_OPTS_H

#include <stddef.h>
#include <stdint.h>

typedef enum opt_type {
    OPT_SIZE,     /* uint64_t bytes, units allowed */
    OPT_SIZE_OR_UNLIMITED, /* uint64_t bytes; "unlimited", "none" or -1 give UINT64_MAX */
    OPT_BANDWIDTH,/* uint64_t bytes per second */
    OPT_TIME,     /* am_ps (uint64_t) */
    OPT_TIME_UNIT,/* am_ps (uint64_t), above 0 and a whole number of ps: a tick other times are
                     counted in (trace.time_unit; 1.5ps is refused, not rounded to 2) */
    OPT_BOOL,     /* int 0/1: true/false/yes/no/on/off */
    OPT_UINT,     /* uint64_t plain integer */
    OPT_REAL,     /* double */
    OPT_FRACTION, /* double in [0, 1] */
    OPT_ENUM,     /* int index into enum_values */
    OPT_STRING,   /* char[OPT_STRING_MAX] */
    OPT_UINT_LIST /* uint64_t[list_max]; a scalar is a one-element list, which means that value
                   * in every place; a longer list means 0 in the places after it; a place's 1
                   * means the same as its 0, off (the one such option, caching's
                   * roundup_power2_divisions, rounds with 1 division as with none, as PyTorch
                   * does). What cfg_setting_differs compares. */
} opt_type;

#define OPT_STRING_MAX 64

typedef struct opt_desc {
    const char *key;
    opt_type type;
    size_t offset;                  /* offsetof(options struct, field) */
    const char *def;                /* default as YAML text; NULL = no default (zero) */
    const char *help;               /* one line, with unit */
    const char *const *enum_values; /* OPT_ENUM: NULL-terminated names */
    size_t list_max;                /* OPT_UINT_LIST: capacity of the uint64_t array at offset;
                                       the count goes to the size_t at count_offset */
    size_t count_offset;
} opt_desc;

#endif
