/* sizeset.h - a free set ordered by (size, address) for the best-fit policies, split by size
 * class in front of B+-trees.
 *
 * bfc, caching and best_fit keep their free blocks in one order, (size, address), and ask for
 * the first block at or above a size (best fit, lowest address among equals), the largest one,
 * and for removals, insertions and re-keyings as blocks split and merge. One B+-tree over all of
 * them answers each in a descent of two or three nodes; here the blocks are first split by size
 * class as TLSF does (the power of two of the size and 16 steps within it, 976 classes, each
 * class's sizes all below the next class's), each class a small B+-tree (models/btree.h) of its
 * own, and a two-level bitmap of the classes that hold blocks. A class holding a single block
 * keeps it in place of a tree (most classes hold none or one), so filing it, taking it out or
 * moving it to another class is a few stores. A best fit is the class of the
 * size, a lower bound in its tree, and else the first block of the next class with any (two
 * bit scans); a block that grows or shrinks moves between two small trees. The order and every
 * answer are those of one tree over all blocks (tests/unit/test_sizeset.c compares them with
 * the treap of models/ordset.c); only the cost differs. The class trees share one node pool.
 *
 * The interface mirrors btree.h: a position (ss_iter) is a class and its single or a position
 * in its tree, invalidated by any change. */
#ifndef AM_SIZESET_H
#define AM_SIZESET_H

#include <stddef.h>
#include <stdint.h>

#include "btree.h"
#include "recpool.h"

#ifndef SS_BITS
#define SS_BITS 4 /* 2^SS_BITS classes per power of two */
#endif
#define SS_CLASSES ((65 - SS_BITS) << SS_BITS) /* sizes below 2^SS_BITS one class each */

typedef struct ss_heap ss_heap;

/* The struct may be moved (realloc'd) while not in use: what points into itself is on the heap. */
typedef struct sizeset {
    ss_heap *heap;           /* class trees and singles, allocated with the first insertion */
    uint64_t used[(SS_CLASSES + 63) / 64]; /* classes holding blocks */
    uint64_t used_top;       /* words of used[] that are not zero */
    size_t n;                /* keys */
} sizeset;

/* A position: a class and either its single key or a position in its tree. */
typedef struct ss_iter {
    int c;                   /* class */
    int single;              /* 1: the class's single key (b unused) */
    bt_iter b;               /* position in its tree; b.leaf NULL past either end */
} ss_iter;

/* An empty set is all zeros: sizeset s = {0}. */
void ss_destroy(sizeset *s);
/* Insert (size, addr) -> val; the key must be absent, val not NULL. */
void ss_insert(sizeset *s, uint64_t size, uint64_t addr, void *val);
/* Remove (size, addr); its value, or NULL when absent. */
void *ss_remove(sizeset *s, uint64_t size, uint64_t addr);
/* Remove the key at a valid position; its value. The position is then invalid. */
void *ss_remove_at(sizeset *s, const ss_iter *it);
/* First key >= (size, addr): its value (NULL when none) and, if it is not NULL, its position. */
void *ss_lower_bound(const sizeset *s, uint64_t size, uint64_t addr, ss_iter *it);
/* Value of (size, addr), or NULL. */
void *ss_find(const sizeset *s, uint64_t size, uint64_t addr);
/* Replace the entry at a valid position (or the present key (osize, oaddr)) by
 * (size, addr) -> val, the key absent: a block that grew, shrank or handed its place on. */
void ss_rekey_at(sizeset *s, const ss_iter *it, uint64_t size, uint64_t addr, void *val);
void ss_rekey(sizeset *s, uint64_t osize, uint64_t oaddr, uint64_t size, uint64_t addr,
              void *val);
/* Smallest / largest key's value (NULL when empty); it may be NULL. */
void *ss_first(const sizeset *s, ss_iter *it);
void *ss_last(const sizeset *s, ss_iter *it);
/* Size of the largest key, 0 when empty: O(1). */
uint64_t ss_last_size(const sizeset *s);
/* Step to the next / previous key: its value, or NULL past the end. */
void *ss_next(const sizeset *s, ss_iter *it);
void *ss_prev(const sizeset *s, ss_iter *it);
/* Key at a valid position of s. */
uint64_t ss_size(const ss_iter *it, const sizeset *s);
uint64_t ss_addr(const ss_iter *it, const sizeset *s);
/* Invariant check (each class tree's own, its keys in its class, a single only in place of a
 * tree, the bitmap, the count): 0 when consistent. */
int ss_check(const sizeset *s);

#endif
