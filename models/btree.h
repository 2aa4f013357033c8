/* btree.h - an ordered map from unique (k1, k2) keys to pointers: a B+-tree of fanout BT_ORDER.
 *
 * The policies' free sets ordered by (size, address) need lower_bound, first/last, removal by
 * key and, for the caching allocator, stepping to neighbours. A treap does that with one
 * pointer-chasing level per bit of depth (about 2 log2 n cache misses); this tree keeps 16 to
 * 32 keys per node in arrays, so a million keys are four levels deep and a search touches four
 * nodes. Keys live in the tree (not in the caller's record), values are the caller's pointers.
 * Leaves are linked in key order for iteration. No operation looks at the values.
 *
 * Node memory comes from the tree's own record pool (recpool.h: one node per ~24 keys, slabs
 * that grow with the tree, huge pages for big ones); bt_destroy frees it. Every operation is O(log n). Iterators are invalidated by any insert or
 * remove (re-find by key after changing the tree). */
#ifndef AM_BTREE_H
#define AM_BTREE_H

#include <stddef.h>
#include <stdint.h>

#include "recpool.h"

#define BT_ORDER 32 /* most keys (leaf) or children (inner node) per node */

typedef struct bt_node bt_node;

typedef struct bt_tree {
    bt_node *root;  /* NULL when empty */
    bt_node *last;  /* the rightmost leaf (bt_last in O(1)), NULL when empty */
    recpool nodes;  /* node memory (set up by the first insert), unless pool is set */
    recpool *pool;  /* node memory shared with other trees (bt_use_pool), or NULL */
    size_t n;       /* keys */
    int height;     /* 1 = the root is a leaf */
} bt_tree;

/* A position: a leaf and an index in it; leaf NULL = past either end. */
typedef struct bt_iter {
    bt_node *leaf;
    int i;
} bt_iter;

/* An empty tree is all zeros: bt_tree t = {0}. */
void bt_destroy(bt_tree *t);
/* Take node memory from p, shared with other trees, instead of the tree's own pool (call on an
 * empty tree). bt_destroy then only forgets the nodes: p's owner frees them with p. */
void bt_use_pool(bt_tree *t, recpool *p);
/* Insert (k1, k2) -> val; the key must be absent. */
void bt_insert(bt_tree *t, uint64_t k1, uint64_t k2, void *val);
/* Remove (k1, k2); returns its value, or NULL when absent. */
void *bt_remove(bt_tree *t, uint64_t k1, uint64_t k2);
/* Remove the first key >= (k1, k2) and return its value (NULL when there is none): a best-fit
 * take in one descent instead of bt_lower_bound + bt_remove. */
void *bt_remove_lower_bound(bt_tree *t, uint64_t k1, uint64_t k2);
/* Remove the key at a valid position (from bt_lower_bound, bt_next...) and return its value:
 * no descent when its leaf keeps enough keys. The iterator is then invalid. */
void *bt_remove_at(bt_tree *t, const bt_iter *it);
/* Replace the entry at a valid position by (k1, k2) -> val, the key absent from the tree: a free
 * block that grew or shrank, or took a neighbour's place. When the new key still lies between
 * the first and the last key of that leaf (or beyond them at the tree's ends) the entry only
 * moves inside the leaf, without a descent; otherwise it is removed and inserted again. The
 * iterator is then invalid. */
void bt_rekey_at(bt_tree *t, const bt_iter *it, uint64_t k1, uint64_t k2, void *val);
/* The same for the present key (o1, o2): one descent to it, and no second one when the entry can
 * stay in its leaf. */
void bt_rekey(bt_tree *t, uint64_t o1, uint64_t o2, uint64_t k1, uint64_t k2, void *val);
/* Value of (k1, k2), or NULL. */
void *bt_find(const bt_tree *t, uint64_t k1, uint64_t k2);
/* First key >= (k1, k2): its value (NULL when none) and, if it is not NULL, its position. */
void *bt_lower_bound(const bt_tree *t, uint64_t k1, uint64_t k2, bt_iter *it);
/* Last key <= (k1, k2): its value (NULL when none) and, if it is not NULL, its position. One
 * descent, where bt_lower_bound past the key and bt_prev (or bt_last) take two steps. */
void *bt_floor(const bt_tree *t, uint64_t k1, uint64_t k2, bt_iter *it);
/* Smallest / largest key's value (NULL when empty); it may be NULL. */
void *bt_first(const bt_tree *t, bt_iter *it);
void *bt_last(const bt_tree *t, bt_iter *it);
/* k1 of the largest key, 0 when empty: O(1), without touching the value. */
uint64_t bt_last_k1(const bt_tree *t);
/* Step to the next / previous key: its value, or NULL past the end (it->leaf becomes NULL). */
void *bt_next(bt_iter *it);
void *bt_prev(bt_iter *it);
/* Key and value at a valid position. */
uint64_t bt_k1(const bt_iter *it);
uint64_t bt_k2(const bt_iter *it);
void *bt_val(const bt_iter *it);
/* Invariant check (order, fill, separators, leaf links, heights, count): 0 when consistent. */
int bt_check(const bt_tree *t);

#endif
