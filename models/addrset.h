/* addrset.h - free ranges ordered by address, with the largest length under every subtree: a
 * B+-tree for first fit.
 *
 * First fit, the device address model and the preallocated arena ask one question of their free
 * ranges besides ordered lookups: "the lowest address whose range holds at least n bytes". The
 * treap of ordset.h answers it from each subtree's maximum, one pointer chase per level (about
 * 2 ln n levels: 28 at a million ranges, each a cache miss once the set outgrows the caches).
 * This tree keeps up to 64 entries per node, an entry being (address, length, pointer) in a leaf
 * and (separator, largest length below, child) in an inner node, so a first fit descends four
 * nodes at a million ranges, taking at each the first child whose largest length is enough. A
 * first fit can hand back that path (as_pos), and the range it found then changes or leaves
 * its leaf there (as_update_at, as_remove_at, as_take_at), without a second descent by
 * address. Keys are unique 64-bit addresses; the pointer is the caller's (NULL is allowed) and
 * no operation looks at it.
 *
 * Node memory comes from the tree's record pools (recpool.h); as_destroy frees it. Every
 * operation is O(log n). A tree whose pointers are all NULL (free ranges: as_take, as_give) is
 * made with `ranges` set: its leaves then hold no pointer array, a third less memory to reach
 * over at a million ranges. */
#ifndef AM_ADDRSET_H
#define AM_ADDRSET_H

#include <stddef.h>
#include <stdint.h>

#include "recpool.h"

#define AS_ORDER 64 /* most entries per node: 32 was the same at 1k live buffers and up to 7%
                       * slower from 10k up (first_fit, platform, prealloc, with the hints) */

typedef struct as_node as_node;

/* One entry: a range starting at key, len bytes long, and the caller's pointer. */
typedef struct as_ent {
    uint64_t key, len;
    void *p;
} as_ent;

typedef struct as_tree {
    as_node *root;  /* NULL when empty */
    int ranges;     /* set to 1 before first use when every pointer is NULL: leaves without one */
    recpool nodes;  /* inner nodes (and leaves unless ranges), set up by the first insertion */
    recpool leaves; /* leaves when ranges */
    size_t n;       /* entries */
    uint64_t max;   /* the largest len (0 when empty) */
    int height;     /* 1 = the root is a leaf */
    int bp;         /* set before first use (never with ranges): every pointer is a record whose
                     * bytes at bp_off the tree keeps naming the leaf that holds its entry */
    /* the leaves the last as_prefetch and as_prefetch_marked calls found, for the gives that
     * follow them (a marked leaf with dir naming the neighbour k fell in) */
    struct as_hint {
        uint64_t addr;
        as_node *leaf;
        uint64_t gen;
        int dir; /* the leaf itself (0), or its neighbour before (-1) or after (1) */
    } hint[4];
    unsigned nhint;
    uint64_t ngen;  /* nodes made (their gen) */
    size_t bp_off;  /* where in the record (bp) */
} as_tree;

/* A position: a leaf and an index in it (leaf NULL past either end). */
typedef struct as_iter {
    as_node *leaf;
    int i;
} as_iter;

/* Where a first fit found its entry: the node and index taken at every level, root first, the
 * leaf last (depth entries). Valid until the tree changes. */
#define AS_MAXH 16 /* deepest tree: 8^15 entries is beyond any address space */
typedef struct as_pos {
    as_node *node[AS_MAXH];
    int at[AS_MAXH];
    int depth;
} as_pos;

/* An empty tree is all zeros: as_tree t = {0}, or {.ranges = 1}. */
void as_destroy(as_tree *t);
/* Insert (key, len, p); key must be absent, and p NULL when ranges is set. */
void as_insert(as_tree *t, uint64_t key, uint64_t len, void *p);
/* Remove key: 1, or 0 when absent. */
int as_remove(as_tree *t, uint64_t key);
/* Give the entry at key a new key, length and pointer: 1, or 0 when key is absent. The new key
 * must keep the entry's place in key order among the others (a range whose start moves but
 * stays between its neighbours); the entry then changes in place, with one descent, unless the
 * new key crosses a separator above its leaf, when it is removed and inserted again. In a
 * ranges tree p must be NULL, as for as_insert (and queries give NULL pointers). */
int as_update(as_tree *t, uint64_t key, uint64_t nkey, uint64_t len, void *p);
/* as_update of the entry a first fit just found at *pos (nothing changed since), without a
 * second descent: the first fit read each level's lengths, a descent by address would read its
 * keys, other cache lines. */
void as_update_at(as_tree *t, const as_pos *pos, uint64_t nkey, uint64_t len, void *p);
/* as_remove of the entry a first fit just found at *pos, from its leaf unless the leaf would
 * fall below its minimum fill (then as_remove). */
void as_remove_at(as_tree *t, const as_pos *pos);
/* With back-pointers (bp set): as_update and as_remove of the entry at key, found in the leaf
 * its record's back-pointer names, with no descent (the largest lengths above it are fixed
 * climbing the nodes' parents). The general path does what the leaf cannot (a key that leaves
 * the leaf's bounds, a leaf that would underflow). */
void as_update_in(as_tree *t, void *leaf, uint64_t key, uint64_t nkey, uint64_t len, void *p);
void as_remove_in(as_tree *t, void *leaf, uint64_t key);
/* A hint that the leaf a back-pointer names is changed soon: its keys and lengths prefetched. */
void as_prefetch_leaf(const as_tree *t, const void *leaf);
/* Whether the leaf holds key (a back-pointer check for as_check's callers): 0 also when the
 * back-pointer names a node given back, which a corrupt record's may. */
int as_leaf_has(const void *leaf, uint64_t key);
/* Free ranges kept merged (the device address model, prealloc's arena; pointers unused):
 * as_take carves [addr, addr + len) out of the range e (a copy of the entry that holds it),
 * leaving what is below and above it; as_give files [addr, addr + len), which no range may
 * overlap, merged with the ranges that end at addr and start at addr + len. */
void as_take(as_tree *t, const as_ent *e, uint64_t addr, uint64_t len);
/* as_take of the range a first fit just found at *pos (NULL: as_take). */
void as_take_at(as_tree *t, const as_pos *pos, const as_ent *e, uint64_t addr, uint64_t len);
void as_give(as_tree *t, uint64_t addr, uint64_t len);
/* Queries return 1 and copy the entry to *e (when e is not NULL), or return 0 when there is
 * none; *it (when not NULL) is then set to the entry's position, valid until a change. */
/* The lowest-keyed entry with len >= need; *pos (when not NULL) where it is. */
int as_first_fit(const as_tree *t, uint64_t need, as_ent *e, as_pos *pos);
/* The last entry with key <= k. */
int as_floor(const as_tree *t, uint64_t k, as_ent *e, as_iter *it);
/* The first entry with key >= k. */
int as_lower_bound(const as_tree *t, uint64_t k, as_ent *e, as_iter *it);
/* The entry with key k. */
int as_find(const as_tree *t, uint64_t k, as_ent *e);
/* The first / last entry. */
int as_first(const as_tree *t, as_ent *e, as_iter *it);
int as_last(const as_tree *t, as_ent *e, as_iter *it);
/* The entry after / before the iterator's, moving it; 0 past the end. */
int as_next(as_iter *it, as_ent *e);
int as_prev(as_iter *it, as_ent *e);
/* A leaf as it was when a first fit found an entry there (as_mark_at), for a later hint: still
 * the same node when its gen matches (a leaf given back and taken again gets a new gen; node
 * memory stays the tree's until as_destroy, after which no mark may be used). */
typedef struct as_mark {
    as_node *leaf;
    uint64_t gen;
} as_mark;
as_mark as_mark_at(const as_pos *pos);
/* Hints for a give of k in two steps, with no descent when the mark still names a live leaf:
 * as_prefetch_mark prefetches the marked leaf without reading it; as_prefetch_marked, a hint
 * later, reads it (in cache by then), picks it or the neighbour whose keys k falls among, and
 * remembers that for the give (or descends, when the mark is stale). Ranges trees. */
void as_prefetch_mark(const as_tree *t, as_mark m);
void as_prefetch_marked(as_tree *t, uint64_t k, as_mark m);
/* Whether the tree is large enough for the hints to do anything (65,536 entries: smaller
 * trees stay in cache). as_set_prefetch_min changes that size for every tree, 0 restoring it:
 * for the tests, whose trees are small, to run the hinted paths. */
int as_prefetches(const as_tree *t);
void as_set_prefetch_min(size_t n);
/* Gives a hint placed without a descent, in every tree so far: for the tests, to tell a hinted
 * path that works from one that always falls back (both place the same). */
size_t as_hinted_gives(void);
/* A hint that k is looked up soon: the descent to its leaf, whose lines are prefetched. */
void as_prefetch(as_tree *t, uint64_t k);
/* The largest len in the tree (0 when empty), in O(1). */
uint64_t as_max_len(const as_tree *t);
/* Invariant check (key order, separators, every subtree's largest length, node fill, leaf
 * links, count): 0 when consistent. */
int as_check(const as_tree *t);

#endif
