/* pickle.c - restricted unpickler for PyTorch memory snapshots (allocators.md section 4).
 *
 * A pickle is a program for a stack machine. This one runs only the opcodes that build plain
 * data (see pickle.h) and refuses everything that imports or calls. The machine is a loop over
 * the input with an explicit value stack, mark stack and memo: no recursion, so a hostile file
 * can only fail, never overflow the C stack. Values come from an arena (a growing array of
 * chunks) owned by the document; memo sharing therefore needs no reference counts. */
#include "pickle.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h" /* rt_fnv1a */

#define PKL_CHUNK 4096 /* values per arena chunk */

/* A snapshot parses into millions of values: on LP64 each stays at 64 bytes (a field added in
 * the padding after type costs nothing; one between i and f grew it to 72). */
_Static_assert(sizeof(void *) != 8 || sizeof(pkl_value) <= 64, "a parsed value fits 64 bytes");

struct pkl_doc {
    pkl_value **chunks; /* arena: each chunk holds PKL_CHUNK values */
    size_t nchunks, used; /* used: values taken from the last chunk */
    pkl_value *root;
};

/* Parser state: input, position of the current opcode, stacks and memo. */
typedef struct pkl_parser {
    const unsigned char *buf;
    size_t len, pos, op_pos;
    const char *path;
    am_error *err;
    pkl_doc *doc;
    pkl_value **stack; /* value stack */
    size_t sn, scap;
    size_t *marks;     /* value-stack heights at each MARK */
    size_t mn, mcap;
    pkl_value **memo;  /* NULL = unset slot */
    size_t memon;      /* slots allocated */
    size_t memo_count; /* slots set: MEMOIZE stores at this index, as Python's len(memo) */
    /* Shared scalars: a str of at most PKL_INTERN_LEN bytes and an int of 0 to PKL_SMALL_INT - 1
     * become one value each, however often they come (values are never changed once made, and
     * the memo shares them already). A snapshot's entries repeat their keys, action names and
     * small numbers in every dict: until 2026-11-27 each was a value of its own (64 bytes, plus
     * a copy of the string), about 17 bytes of memory per byte of the file. */
    pkl_value **istr;  /* open addressing on the bytes, NULL = empty */
    size_t icap, in;
    pkl_value *ismall[256];
    /* Keys of the large dicts (PKL_DICT_INDEX pairs or more), so that a key written again is
     * found in constant time: open addressing on (dict, key), each slot a dict and the index of
     * its pair, dict NULL = empty. Smaller dicts are scanned, which is faster for them. Until
     * 2026-11-27 every dict was scanned: quadratic, 40,000 keys took 4.8 s. */
    struct pkl_key_slot { pkl_value *dict; size_t pair; } *keys;
    size_t kcap, kn;
} pkl_parser;

#define PKL_DICT_INDEX 16

#define PKL_INTERN_LEN 64
#define PKL_SMALL_INT 256

const char *pkl_type_name(pkl_type t)
{
    static const char *const names[] = {"None", "bool", "int", "float", "str", "bytes",
                                        "list", "tuple", "dict", "set"};
    return (unsigned)t < AM_ARRAY_LEN(names) ? names[t] : "?";
}

/* The name with its article, for a message that says what a value is: "an int", "None",
 * "bytes" (until 2026-11-28 every message wrote "a %s": "is a int", "is a None"). */
const char *pkl_type_a(pkl_type t)
{
    static const char *const names[] = {"None", "a bool", "an int", "a float", "a str", "bytes",
                                        "a list", "a tuple", "a dict", "a set"};
    return (unsigned)t < AM_ARRAY_LEN(names) ? names[t] : "?";
}

static pkl_value *new_value(pkl_doc *d, pkl_type t)
{
    if (d->nchunks == 0 || d->used == PKL_CHUNK) {
        d->chunks = am_realloc(d->chunks, (d->nchunks + 1) * sizeof *d->chunks);
        d->chunks[d->nchunks++] = am_calloc(PKL_CHUNK, sizeof(pkl_value));
        d->used = 0;
    }
    pkl_value *v = &d->chunks[d->nchunks - 1][d->used++];
    v->type = t;
    v->depth = 1;
    return v;
}

void pkl_free(pkl_doc *d)
{
    if (!d)
        return;
    for (size_t c = 0; c < d->nchunks; c++) {
        size_t n = c + 1 == d->nchunks ? d->used : PKL_CHUNK;
        for (size_t i = 0; i < n; i++) {
            free(d->chunks[c][i].s);
            free(d->chunks[c][i].items);
        }
        free(d->chunks[c]);
    }
    free(d->chunks);
    free(d);
}

const pkl_value *pkl_root(const pkl_doc *d) { return d ? d->root : NULL; }

const pkl_value *pkl_get(const pkl_value *d, const char *key)
{
    if (!d || d->type != PKL_DICT)
        return NULL;
    size_t kl = strlen(key);
    for (size_t i = 0; i < d->len; i++) {
        const pkl_value *k = d->items[2 * i];
        if (k->type == PKL_STR && k->len == kl && memcmp(k->s, key, kl) == 0)
            return d->items[2 * i + 1];
    }
    return NULL;
}

/* Only PKL_INT: a bool (NEWTRUE, NEWFALSE) is no integer here, though Python's bool is an int,
 * as PyTorch writes none where an integer is read (its bools, is_expandable and the like, are
 * read as PKL_BOOL). Until 2026-11-27 True was read as 1: 'stream': True as stream 1. */
int pkl_int(const pkl_value *v, int64_t *out)
{
    if (!v || v->type != PKL_INT || v->wide)
        return -1;
    *out = v->i;
    return 0;
}

int pkl_u64(const pkl_value *v, uint64_t *out)
{
    if (!v || v->type != PKL_INT || (!v->wide && v->i < 0)) /* a bool too, as pkl_int */
        return -1;
    *out = (uint64_t)v->i;
    return 0;
}

/* ---- errors and input ---- */

static int fail(pkl_parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(pkl_parser *p, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return am_fail(p->err, AM_EINPUT, "%s: byte %zu: %s", p->path, p->op_pos, what);
}

/* Take n bytes of operand; NULL (error set) when the file ends first. */
static const unsigned char *take(pkl_parser *p, size_t n, const char *op)
{
    if (n > p->len - p->pos) {
        fail(p, "pickle opcode %s: the file ends inside its operand (truncated)", op);
        return NULL;
    }
    const unsigned char *q = p->buf + p->pos;
    p->pos += n;
    return q;
}

static uint64_t le(const unsigned char *q, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | q[i];
    return v;
}

/* Read an n-byte little-endian length operand and check the data fits in the file. */
static int take_len(pkl_parser *p, int n, const char *op, size_t *out)
{
    const unsigned char *q = take(p, (size_t)n, op);
    if (!q)
        return -1;
    uint64_t v = le(q, n);
    if (v > p->len - p->pos) {
        return fail(p, "pickle opcode %s declares %llu bytes but only %zu remain", op,
                    (unsigned long long)v, p->len - p->pos);
    }
    *out = (size_t)v;
    return 0;
}

/* ---- stacks ---- */

static void push(pkl_parser *p, pkl_value *v)
{
    if (p->sn == p->scap) {
        p->scap = p->scap ? 2 * p->scap : 256;
        p->stack = am_realloc(p->stack, p->scap * sizeof *p->stack);
    }
    p->stack[p->sn++] = v;
}

static pkl_value *pop(pkl_parser *p, const char *op)
{
    size_t floor = p->mn ? p->marks[p->mn - 1] : 0;
    if (p->sn <= floor) {
        fail(p, "pickle opcode %s: stack underflow", op);
        return NULL;
    }
    return p->stack[--p->sn];
}

/* The container just below a popped mark (stack index base - 1). */
static pkl_value *below(pkl_parser *p, size_t base, const char *op)
{
    size_t floor = p->mn ? p->marks[p->mn - 1] : 0;
    if (base <= floor) {
        fail(p, "pickle opcode %s: stack underflow", op);
        return NULL;
    }
    return p->stack[base - 1];
}

static pkl_value *top(pkl_parser *p, const char *op)
{
    size_t floor = p->mn ? p->marks[p->mn - 1] : 0;
    if (p->sn <= floor) {
        fail(p, "pickle opcode %s: stack underflow", op);
        return NULL;
    }
    return p->stack[p->sn - 1];
}

/* Pop to the last MARK; *base = index of the first item above it. */
static int pop_mark(pkl_parser *p, const char *op, size_t *base)
{
    if (p->mn == 0)
        return fail(p, "pickle opcode %s: no MARK on the stack", op);
    *base = p->marks[--p->mn];
    return 0;
}

/* Record that x now sits inside c; refuse nesting deeper than PKL_MAX_DEPTH. */
static int note_depth(pkl_parser *p, pkl_value *c, const pkl_value *x)
{
    if (x->depth + 1 > c->depth)
        c->depth = x->depth + 1;
    if (c->depth > PKL_MAX_DEPTH) {
        return fail(p, "containers nested more than %d deep (at %s)", PKL_MAX_DEPTH,
                    pkl_type_a(c->type));
    }
    return 0;
}

/* Make room for `need` item slots. */
static void reserve(pkl_value *c, size_t need)
{
    if (need <= c->cap)
        return;
    c->cap = AM_MAX(need, 2 * c->cap);
    c->items = am_realloc(c->items, c->cap * sizeof *c->items);
}

/* Append to a list, tuple or set. */
static int add_item(pkl_parser *p, pkl_value *c, pkl_value *x, const char *op)
{
    if (c->type != PKL_LIST && c->type != PKL_SET)
        return fail(p, "pickle opcode %s: target is not a list or set", op);
    reserve(c, c->len + 1);
    c->items[c->len++] = x;
    return note_depth(p, c, x);
}

/* Whether two keys are the same dict key: an equal str or an equal int (as Python would
 * have it, a str never equals an int; other hashable keys are never merged). */
static int same_key(const pkl_value *a, const pkl_value *b)
{
    return a->type == b->type &&
           ((a->type == PKL_STR && a->len == b->len && memcmp(a->s, b->s, a->len) == 0) ||
            (a->type == PKL_INT && a->i == b->i));
}

static size_t key_hash(const pkl_value *d, const pkl_value *k)
{
    uint64_t h = k->type == PKL_STR ? rt_fnv1a(RT_FNV_OFFSET, k->s, k->len)
                                    : (uint64_t)k->i * 0x9e3779b97f4a7c15ULL;
    h ^= (uint64_t)(uintptr_t)d * 0xff51afd7ed558ccdULL;
    return (size_t)(h ^ h >> 29);
}

/* The index slot of key k in dict d: its own, or the empty one where it would go. */
static struct pkl_key_slot *key_slot(pkl_parser *p, const pkl_value *d, const pkl_value *k)
{
    size_t j = key_hash(d, k) & (p->kcap - 1);
    for (; p->keys[j].dict; j = (j + 1) & (p->kcap - 1))
        if (p->keys[j].dict == d && same_key(d->items[2 * p->keys[j].pair], k))
            return &p->keys[j];
    return &p->keys[j];
}

/* Index pair i of dict d (its key is not in the index yet); only str and int keys. */
static void key_index(pkl_parser *p, pkl_value *d, size_t i)
{
    const pkl_value *k = d->items[2 * i];
    if (k->type != PKL_STR && k->type != PKL_INT)
        return;
    if ((p->kn + 1) * 2 > p->kcap) { /* grow: at most half full */
        struct pkl_key_slot *old = p->keys;
        size_t oc = p->kcap;
        p->kcap = oc ? 2 * oc : 1024;
        p->keys = am_calloc(p->kcap, sizeof *p->keys);
        for (size_t j = 0; j < oc; j++)
            if (old[j].dict)
                *key_slot(p, old[j].dict, old[j].dict->items[2 * old[j].pair]) = old[j];
        free(old);
    }
    *key_slot(p, d, k) = (struct pkl_key_slot){d, i};
    p->kn++;
}

/* The pair index of key k in dict d, or SIZE_MAX when d holds no such key. */
static size_t dict_find(pkl_parser *p, const pkl_value *d, const pkl_value *k)
{
    if (k->type != PKL_STR && k->type != PKL_INT)
        return SIZE_MAX;
    if (d->len < PKL_DICT_INDEX) {
        for (size_t i = 0; i < d->len; i++)
            if (same_key(d->items[2 * i], k))
                return i;
        return SIZE_MAX;
    }
    struct pkl_key_slot *sl = key_slot(p, d, k);
    return sl->dict ? sl->pair : SIZE_MAX;
}

static int dict_set(pkl_parser *p, pkl_value *d, pkl_value *k, pkl_value *v, const char *op)
{
    if (d->type != PKL_DICT)
        return fail(p, "pickle opcode %s: target is not a dict", op);
    if (k->type == PKL_LIST || k->type == PKL_DICT || k->type == PKL_SET)
        return fail(p, "pickle opcode %s: unhashable dict key", op);
    /* An equal str or int key is replaced, as Python would. */
    size_t i = dict_find(p, d, k);
    if (i != SIZE_MAX) {
        d->items[2 * i + 1] = v;
        return note_depth(p, d, v);
    }
    reserve(d, 2 * d->len + 2);
    d->items[2 * d->len] = k;
    d->items[2 * d->len + 1] = v;
    d->len++;
    if (d->len == PKL_DICT_INDEX) /* large from now on: index every key so far */
        for (size_t j = 0; j < d->len; j++)
            key_index(p, d, j);
    else if (d->len > PKL_DICT_INDEX)
        key_index(p, d, d->len - 1);
    if (note_depth(p, d, k) < 0)
        return -1;
    return note_depth(p, d, v);
}

/* A str value holding a copy of q[0..n). */
static pkl_value *new_blob(pkl_doc *d, pkl_type t, const unsigned char *q, size_t n)
{
    pkl_value *v = new_value(d, t);
    v->s = am_strndup((const char *)q, n);
    v->len = n;
    return v;
}

/* A str value of q[0..n), shared with every other of the same bytes when short. */
static pkl_value *interned_str(pkl_parser *p, const unsigned char *q, size_t n)
{
    if (n > PKL_INTERN_LEN)
        return new_blob(p->doc, PKL_STR, q, n);
    if ((p->in + 1) * 2 > p->icap) { /* grow: at most half full */
        size_t oc = p->icap;
        pkl_value **old = p->istr;
        p->icap = oc ? oc * 2 : 256;
        p->istr = am_calloc(p->icap, sizeof *p->istr);
        for (size_t i = 0; i < oc; i++)
            if (old[i]) {
                size_t j = rt_fnv1a(RT_FNV_OFFSET, old[i]->s, old[i]->len) & (p->icap - 1);
                while (p->istr[j])
                    j = (j + 1) & (p->icap - 1);
                p->istr[j] = old[i];
            }
        free(old);
    }
    size_t j = rt_fnv1a(RT_FNV_OFFSET, q, n) & (p->icap - 1);
    for (; p->istr[j]; j = (j + 1) & (p->icap - 1))
        if (p->istr[j]->len == n && memcmp(p->istr[j]->s, q, n) == 0)
            return p->istr[j];
    p->in++;
    return p->istr[j] = new_blob(p->doc, PKL_STR, q, n);
}

/* An int value, shared with every other of the same value when small. */
static pkl_value *interned_int(pkl_parser *p, int64_t i)
{
    pkl_value *v;
    if (i >= 0 && i < PKL_SMALL_INT && (v = p->ismall[i]))
        return v;
    v = new_value(p->doc, PKL_INT);
    v->i = i;
    if (i >= 0 && i < PKL_SMALL_INT)
        p->ismall[i] = v;
    return v;
}

/* Signed little-endian integer of n bytes (LONG1/LONG4); refuse what is below -2^63 or above
 * 2^64 - 1. One from 2^63 (an address or size near 2^64, which amsim's exporter writes with a
 * ninth byte 0) sets *wide, its bits in *out: until 2026-11-27 it was refused as wider than 64
 * bits, so `amsim check` refused the export of a request of 2^63 bytes. */
static int long_value(pkl_parser *p, const unsigned char *q, size_t n, const char *op,
                      int64_t *out, int *wide)
{
    *wide = 0;
    if (n == 0) {
        *out = 0;
        return 0;
    }
    int neg = (q[n - 1] & 0x80) != 0;
    /* Bytes beyond the 8th must be pure sign extension. */
    for (size_t i = 8; i < n; i++)
        if (q[i] != (neg ? 0xff : 0x00))
            return fail(p, "pickle opcode %s: integer %s; a memory snapshot holds no such "
                           "number", op, neg ? "below -2^63" : "above 2^64 - 1");
    if (n > 8 && ((q[7] & 0x80) != 0) != neg) {
        if (neg)
            return fail(p, "pickle opcode %s: integer below -2^63; a memory snapshot holds no "
                           "such number", op);
        *wide = 1; /* from 2^63 to 2^64 - 1 */
    }
    size_t m = n < 8 ? n : 8;
    uint64_t u = le(q, (int)m);
    if (neg && m < 8)
        u |= ~(uint64_t)0 << (8 * m);
    memcpy(out, &u, sizeof *out);
    return 0;
}

static double be_double(const unsigned char *q)
{
    uint64_t u = 0;
    for (int i = 0; i < 8; i++)
        u = u << 8 | q[i];
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static int memo_put(pkl_parser *p, uint64_t idx, pkl_value *v)
{
    if (idx > p->len) /* a file of n bytes cannot fill more than n memo slots */
        return fail(p, "pickle memo index %llu out of range", (unsigned long long)idx);
    if (idx >= p->memon) {
        size_t n = AM_MAX((size_t)idx + 1, 2 * p->memon);
        p->memo = am_realloc(p->memo, n * sizeof *p->memo);
        memset(p->memo + p->memon, 0, (n - p->memon) * sizeof *p->memo);
        p->memon = n;
    }
    if (!p->memo[idx])
        p->memo_count++;
    p->memo[idx] = v;
    return 0;
}

/* Refused opcodes and why. */
static const char *refused(unsigned char op, const char **name)
{
    switch (op) {
    case 'c': *name = "GLOBAL"; return "loads a class";
    case 0x93: *name = "STACK_GLOBAL"; return "loads a class";
    case 'i': *name = "INST"; return "loads a class and calls it";
    case 'o': *name = "OBJ"; return "calls a class";
    case 'R': *name = "REDUCE"; return "calls a function";
    case 'b': *name = "BUILD"; return "calls a function (__setstate__)";
    case 0x81: *name = "NEWOBJ"; return "calls a class";
    case 0x92: *name = "NEWOBJ_EX"; return "calls a class";
    case 'P': *name = "PERSID"; return "loads a persistent object";
    case 'Q': *name = "BINPERSID"; return "loads a persistent object";
    case 0x82: *name = "EXT1"; return "loads a class from the extension registry";
    case 0x83: *name = "EXT2"; return "loads a class from the extension registry";
    case 0x84: *name = "EXT4"; return "loads a class from the extension registry";
    case 0x97: *name = "NEXT_BUFFER"; return "reads an out-of-band buffer";
    case 0x98: *name = "READONLY_BUFFER"; return "reads an out-of-band buffer";
    default: return NULL;
    }
}

/* Build a tuple from stack items [base, sn). */
static int make_tuple(pkl_parser *p, size_t base)
{
    pkl_value *t = new_value(p->doc, PKL_TUPLE);
    size_t n = p->sn - base;
    reserve(t, n);
    for (size_t i = 0; i < n; i++) {
        t->items[i] = p->stack[base + i];
        if (note_depth(p, t, t->items[i]) < 0)
            return -1;
    }
    t->len = n;
    p->sn = base;
    push(p, t);
    return 0;
}

/* ---- nesting, checked once the whole tree is built ---- */

/* note_depth sees a container grow only while it is on the stack: a list put into its parent
 * first and given its children later (through the memo) leaves the parent's depth stale, so
 * until 2026-11-27 such a chain nested any depth unrefused. The walk below measures the tree as
 * it finally is: depth-first from the root with an explicit path (never deeper than
 * PKL_MAX_DEPTH), each container measured once (shared ones are looked up), so it takes time
 * in proportion to the values and references. While it runs, depth holds these two flags. */
#define PKL_ON_PATH 0x40000000u /* being measured: met again, it holds itself */
#define PKL_MEASURED 0x80000000u /* the low bits are its final depth */
#define PKL_DEPTH_BITS 0x3fffffffu

static int is_container(const pkl_value *v)
{
    return v->type == PKL_LIST || v->type == PKL_TUPLE || v->type == PKL_DICT ||
           v->type == PKL_SET;
}

static size_t item_count(const pkl_value *c) { return c->type == PKL_DICT ? 2 * c->len : c->len; }

static int too_deep(pkl_parser *p, const pkl_value *c)
{
    return fail(p, "containers nested more than %d deep (at %s)", PKL_MAX_DEPTH,
                pkl_type_a(c->type));
}

/* One container on the walk's path: its next item to visit, its depth so far. */
typedef struct pkl_walk_frame {
    pkl_value *c;
    size_t next;
    unsigned depth;
} pkl_walk_frame;

static int measure_nesting(pkl_parser *p, pkl_value *root)
{
    pkl_walk_frame path[PKL_MAX_DEPTH];
    size_t n = 0;
    if (!is_container(root))
        return 0;
    root->depth = PKL_ON_PATH;
    path[n++] = (pkl_walk_frame){root, 0, 1};
    while (n > 0) {
        pkl_walk_frame *f = &path[n - 1];
        unsigned d;
        if (f->next < item_count(f->c)) {
            pkl_value *x = f->c->items[f->next++];
            if (!is_container(x))
                d = 1;
            else if (x->depth & PKL_MEASURED)
                d = x->depth & PKL_DEPTH_BITS;
            else if (x->depth & PKL_ON_PATH)
                return fail(p, "%s holds itself (a cycle of containers); a memory snapshot "
                               "holds none", pkl_type_a(x->type));
            else if (n == PKL_MAX_DEPTH)
                return too_deep(p, path[0].c);
            else {
                x->depth = PKL_ON_PATH;
                path[n++] = (pkl_walk_frame){x, 0, 1};
                continue;
            }
        } else { /* f->c is measured: hand its depth to its parent */
            f->c->depth = PKL_MEASURED | f->depth;
            if (--n == 0)
                return 0;
            f = &path[n - 1];
            d = path[n].depth;
        }
        if (d + 1 > f->depth)
            f->depth = d + 1;
        if (f->depth > PKL_MAX_DEPTH)
            return too_deep(p, f->c);
    }
    return 0;
}

/* Clear the walk's flags: depth is then each reached container's final nesting. */
static void clear_walk_flags(pkl_doc *d)
{
    for (size_t c = 0; c < d->nchunks; c++) {
        size_t n = c + 1 == d->nchunks ? d->used : PKL_CHUNK;
        for (size_t i = 0; i < n; i++)
            d->chunks[c][i].depth &= PKL_DEPTH_BITS;
    }
}

/* Run one opcode. 1 = STOP reached, 0 = continue, -1 = error. */
static int step(pkl_parser *p)
{
    p->op_pos = p->pos;
    if (p->pos >= p->len)
        return fail(p, "the file ends before the STOP opcode (truncated)");
    unsigned char op = p->buf[p->pos++];
    const unsigned char *q;
    size_t n, base = 0;
    pkl_value *v, *k, *c;
    int64_t iv = 0;
    int wide = 0;
    const char *name, *why = refused(op, &name);
    if (why) {
        return fail(p, "pickle opcode %s %s; a memory snapshot holds only plain data, "
                    "refusing to read it", name, why);
    }
    switch (op) {
    case 0x80: /* PROTO */
        if (!(q = take(p, 1, "PROTO")))
            return -1;
        if (q[0] < 2 || q[0] > 5)
            return fail(p, "pickle protocol %u is not supported (2 to 5 are)", q[0]);
        return 0;
    case 0x95: /* FRAME: a length prefix, the content follows inline */
        return take_len(p, 8, "FRAME", &n);
    case '.': /* STOP */
        if (!(v = pop(p, "STOP")))
            return -1;
        if (measure_nesting(p, v) < 0)
            return -1;
        clear_walk_flags(p->doc);
        p->doc->root = v;
        return 1;
    case '}': push(p, new_value(p->doc, PKL_DICT)); return 0;
    case ']': push(p, new_value(p->doc, PKL_LIST)); return 0;
    case ')': push(p, new_value(p->doc, PKL_TUPLE)); return 0;
    case 0x8f: push(p, new_value(p->doc, PKL_SET)); return 0; /* EMPTY_SET */
    case '(': /* MARK */
        if (p->mn >= PKL_MAX_DEPTH)
            return fail(p, "more than %d open MARKs (nesting too deep)", PKL_MAX_DEPTH);
        if (p->mn == p->mcap) {
            p->mcap = p->mcap ? 2 * p->mcap : 64;
            p->marks = am_realloc(p->marks, p->mcap * sizeof *p->marks);
        }
        p->marks[p->mn++] = p->sn;
        return 0;
    case '0': /* POP */
        if (p->mn && p->sn == p->marks[p->mn - 1]) { /* POP of a bare mark discards it */
            p->mn--;
            return 0;
        }
        return pop(p, "POP") ? 0 : -1;
    case '1': /* POP_MARK */
        if (pop_mark(p, "POP_MARK", &base) < 0)
            return -1;
        p->sn = base;
        return 0;
    case '2': /* DUP */
        if (!(v = top(p, "DUP")))
            return -1;
        push(p, v);
        return 0;
    case 's': /* SETITEM */
        if (!(v = pop(p, "SETITEM")) || !(k = pop(p, "SETITEM")) || !(c = top(p, "SETITEM")))
            return -1;
        return dict_set(p, c, k, v, "SETITEM");
    case 'u': /* SETITEMS */
        if (pop_mark(p, "SETITEMS", &base) < 0 || !(c = below(p, base, "SETITEMS")))
            return -1;
        if ((p->sn - base) % 2)
            return fail(p, "pickle opcode %s: odd number of items", "SETITEMS");
        for (size_t i = base; i < p->sn; i += 2)
            if (dict_set(p, c, p->stack[i], p->stack[i + 1], "SETITEMS") < 0)
                return -1;
        p->sn = base;
        return 0;
    case 'a': /* APPEND */
        if (!(v = pop(p, "APPEND")) || !(c = top(p, "APPEND")))
            return -1;
        return add_item(p, c, v, "APPEND");
    case 'e':  /* APPENDS */
    case 0x90: /* ADDITEMS */
        name = op == 'e' ? "APPENDS" : "ADDITEMS";
        if (pop_mark(p, name, &base) < 0 || !(c = below(p, base, name)))
            return -1;
        for (size_t i = base; i < p->sn; i++)
            if (add_item(p, c, p->stack[i], name) < 0)
                return -1;
        p->sn = base;
        return 0;
    case 't': /* TUPLE */
        if (pop_mark(p, "TUPLE", &base) < 0)
            return -1;
        return make_tuple(p, base);
    case 0x91: /* FROZENSET: a set built from the items above the mark */
        if (pop_mark(p, "FROZENSET", &base) < 0)
            return -1;
        if (make_tuple(p, base) < 0)
            return -1;
        p->stack[p->sn - 1]->type = PKL_SET;
        return 0;
    case 0x85: case 0x86: case 0x87: /* TUPLE1..3 */
        n = (size_t)(op - 0x84);
        base = p->mn ? p->marks[p->mn - 1] : 0;
        if (p->sn < base + n)
            return fail(p, "pickle opcode %s: stack underflow", "TUPLEn");
        return make_tuple(p, p->sn - n);
    case 'X': case 0x8c: case 0x8d: /* BINUNICODE, SHORT_BINUNICODE, BINUNICODE8 */
    case 'T': case 'U':             /* BINSTRING, SHORT_BINSTRING (protocol 2 str) */
    case 'B': case 'C': case 0x8e: case 0x96: /* BINBYTES, SHORT_BINBYTES, BINBYTES8, BYTEARRAY8 */
    {
        int w = (op == 0x8c || op == 'U' || op == 'C') ? 1
              : (op == 0x8d || op == 0x8e || op == 0x96) ? 8 : 4;
        int is_str = op == 'X' || op == 0x8c || op == 0x8d || op == 'T' || op == 'U';
        name = op == 'X' ? "BINUNICODE" : op == 0x8c ? "SHORT_BINUNICODE"
             : op == 0x8d ? "BINUNICODE8" : op == 'T' ? "BINSTRING" : op == 'U' ? "SHORT_BINSTRING"
             : op == 'B' ? "BINBYTES" : op == 'C' ? "SHORT_BINBYTES" : op == 0x8e ? "BINBYTES8"
             : "BYTEARRAY8";
        if (take_len(p, w, name, &n) < 0)
            return -1;
        q = take(p, n, name); /* cannot fail: take_len checked the length */
        if (is_str) {
            push(p, interned_str(p, q, n));
        } else { /* a snapshot never needs bytes: keep the length, not a copy */
            v = new_value(p->doc, PKL_BYTES);
            v->len = n;
            push(p, v);
        }
        return 0;
    }
    case 'J': case 'K': case 'M': /* BININT, BININT1, BININT2 */
        n = op == 'J' ? 4 : op == 'K' ? 1 : 2;
        if (!(q = take(p, n, "BININT")))
            return -1;
        push(p, interned_int(p, op == 'J' ? (int64_t)(int32_t)(uint32_t)le(q, 4)
                                          : (int64_t)le(q, (int)n)));
        return 0;
    case 0x8a: case 0x8b: /* LONG1, LONG4 */
        name = op == 0x8a ? "LONG1" : "LONG4";
        if (take_len(p, op == 0x8a ? 1 : 4, name, &n) < 0 || !(q = take(p, n, name)))
            return -1;
        if (long_value(p, q, n, name, &iv, &wide) < 0)
            return -1;
        if (wide) { /* never interned: interned values are below 2^63 */
            v = new_value(p->doc, PKL_INT);
            v->i = iv;
            v->wide = 1;
            push(p, v);
        } else {
            push(p, interned_int(p, iv));
        }
        return 0;
    case 'G': /* BINFLOAT: big-endian IEEE double */
        if (!(q = take(p, 8, "BINFLOAT")))
            return -1;
        v = new_value(p->doc, PKL_FLOAT);
        v->f = be_double(q);
        push(p, v);
        return 0;
    case 'N': push(p, new_value(p->doc, PKL_NONE)); return 0;
    case 0x88: case 0x89: /* NEWTRUE, NEWFALSE */
        v = new_value(p->doc, PKL_BOOL);
        v->i = op == 0x88;
        push(p, v);
        return 0;
    case 0x94: /* MEMOIZE: next free slot = number of slots used so far */
        if (!(v = top(p, "MEMOIZE")))
            return -1;
        return memo_put(p, p->memo_count, v);
    case 'q': case 'r': /* BINPUT, LONG_BINPUT */
        if (!(q = take(p, op == 'q' ? 1 : 4, "BINPUT")) || !(v = top(p, "BINPUT")))
            return -1;
        return memo_put(p, le(q, op == 'q' ? 1 : 4), v);
    case 'h': case 'j': /* BINGET, LONG_BINGET */
    {
        if (!(q = take(p, op == 'h' ? 1 : 4, "BINGET")))
            return -1;
        uint64_t idx = le(q, op == 'h' ? 1 : 4);
        if (idx >= p->memon || !p->memo[idx])
            return fail(p, "pickle opcode %s refers to memo slot %llu, which is unset",
                        op == 'h' ? "BINGET" : "LONG_BINGET", (unsigned long long)idx);
        push(p, p->memo[idx]);
        return 0;
    }
    default:
        return fail(p, "unknown or unsupported pickle opcode 0x%02x", op);
    }
}

int pkl_parse(const unsigned char *buf, size_t len, const char *path, pkl_doc **doc,
              am_error *err)
{
    pkl_parser p = {.buf = buf, .len = len, .path = path, .err = err};
    p.doc = am_calloc(1, sizeof *p.doc);
    int r;
    while ((r = step(&p)) == 0)
        ;
    free(p.stack);
    free(p.marks);
    free(p.memo);
    free(p.istr);
    free(p.keys);
    if (r < 0) {
        pkl_free(p.doc);
        *doc = NULL;
        return -1;
    }
    *doc = p.doc;
    return 0;
}
