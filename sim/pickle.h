/* pickle.h - a restricted unpickler for PyTorch memory snapshots (allocators.md section 4).
 *
 * Reads pickle protocols 2..5 into a small tree of plain values: dict, list, tuple, set, str,
 * bytes, int (64-bit), float, bool and None. Every opcode that would load a class or call a
 * function (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ, NEWOBJ_EX, PERSID,
 * BINPERSID, EXT1/2/4) is refused, as are out-of-band buffers, truncated input, declared lengths
 * beyond the file, integers wider than 64 bits, memo references to unset slots, unknown opcodes
 * and nesting deeper than PKL_MAX_DEPTH. The parser never recurses on the C stack.
 *
 * Error messages are "PATH: byte OFFSET: message" (status AM_EINPUT), OFFSET being the position
 * of the offending opcode counted from 0: a pickle is binary, so a line number means nothing.
 *
 * All values live in one arena owned by the pkl_doc, so values shared through the memo (a list
 * referenced twice) are freed exactly once, by pkl_free. */
#ifndef AM_PICKLE_H
#define AM_PICKLE_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"

#define PKL_MAX_DEPTH 1000 /* containers nested in containers, and open MARKs */

typedef enum pkl_type {
    PKL_NONE, PKL_BOOL, PKL_INT, PKL_FLOAT, PKL_STR, PKL_BYTES,
    PKL_LIST, PKL_TUPLE, PKL_DICT, PKL_SET
} pkl_type;

typedef struct pkl_value pkl_value;
struct pkl_value {
    pkl_type type;
    int wide;            /* PKL_INT from 2^63 to 2^64 - 1: i holds its bits (pkl_u64 reads it,
                          * pkl_int refuses it); next to type, in what was its padding */
    int64_t i;           /* PKL_INT, PKL_BOOL (0/1) */
    double f;            /* PKL_FLOAT */
    char *s;             /* PKL_STR (UTF-8, NUL-terminated); NULL for PKL_BYTES */
    size_t len;          /* PKL_STR/PKL_BYTES: bytes; containers: items (dict: pairs) */
    pkl_value **items;   /* LIST/TUPLE/SET: len items; DICT: 2*len, key then value */
    size_t cap;          /* allocated slots in items */
    unsigned depth;      /* 1 for scalars; containers: 1 + deepest child (final once parsed) */
};

typedef struct pkl_doc pkl_doc;

/* Parse buf[0..len). path is used in messages only. 0 and *doc, or -1 with err. */
int pkl_parse(const unsigned char *buf, size_t len, const char *path, pkl_doc **doc,
              am_error *err);
const pkl_value *pkl_root(const pkl_doc *d);
void pkl_free(pkl_doc *d);

/* Dict lookup by string key (NULL when absent or when d is not a dict). Linear. */
const pkl_value *pkl_get(const pkl_value *d, const char *key);
/* Integer value of v (PKL_INT; a PKL_BOOL is refused): 0 and *out, -1 otherwise. */
int pkl_int(const pkl_value *v, int64_t *out);
/* A non-negative integer up to 2^64 - 1 (an address or a size): 0 and *out, -1 otherwise. */
int pkl_u64(const pkl_value *v, uint64_t *out);
/* "dict", "list", ... for messages. */
const char *pkl_type_name(pkl_type t);
/* "a dict", "an int", "None", ...: the name as a message says what a value is. */
const char *pkl_type_a(pkl_type t);

#endif
