/* ordset.h - an intrusive ordered set (treap with parent links) keyed by (k1, k2).
 *
 * Used by the policies and the device address model: free chunks ordered by (size, address)
 * give BFC's and the caching allocator's best fit with one lower_bound; free extents ordered by
 * address with `val` = length give first fit through the subtree maximum `aug`.
 * Priorities are a hash of the keys, so the shape (and every run) is deterministic.
 * All operations are O(log n) expected; no allocation happens here (nodes are embedded). */
#ifndef AM_ORDSET_H
#define AM_ORDSET_H

#include <stddef.h>
#include <stdint.h>

typedef struct os_node {
    struct os_node *l, *r, *p;
    uint64_t k1, k2; /* order key */
    uint64_t val;    /* per-node value (e.g. extent length) */
    uint64_t aug;    /* max val in this subtree (maintained) */
    uint32_t pri;
} os_node;

typedef struct os_tree {
    os_node *root;
    size_t n;
    int no_aug;     /* set to 1 before first use when os_first_fit is never needed: skips the
                       subtree-maximum upkeep (a walk to the root on every change) */
    os_node *max;   /* the last node, kept current (os_last is O(1)) */
} os_tree;

/* Insert a node whose k1, k2 and val are set; keys must be unique. */
void os_insert(os_tree *t, os_node *x);
void os_remove(os_tree *t, os_node *x);
/* Change a node's key in place when the caller knows its order among the other nodes does not
 * change (e.g. a free extent whose start moves but stays between its neighbours). */
static inline void os_rekey_in_place(os_node *x, uint64_t k1, uint64_t k2)
{
    x->k1 = k1;
    x->k2 = k2;
}
/* Change val of a node in the tree (keys unchanged). */
void os_set_val(os_tree *t, os_node *x, uint64_t val);
/* First node with key >= (k1, k2), or NULL. */
os_node *os_lower_bound(const os_tree *t, uint64_t k1, uint64_t k2);
/* Last node with key <= (k1, k2), or NULL. */
os_node *os_floor(const os_tree *t, uint64_t k1, uint64_t k2);
/* In a tree of ranges that do not overlap one another (k1 = start, val = length), the one that
 * overlaps [base, base + size) (size > 0, base + size <= 2^64), or NULL: only the last one
 * starting in it or below can. The test is by offset, as a range may end at 2^64. */
static inline os_node *os_overlap(const os_tree *t, uint64_t base, uint64_t size)
{
    os_node *n = os_floor(t, base + size - 1, UINT64_MAX);
    return n && n->val && (n->k1 >= base || base - n->k1 < n->val) ? n : NULL;
}
/* Lowest-key node with val >= len, or NULL (uses aug). */
os_node *os_first_fit(const os_tree *t, uint64_t len);
os_node *os_first(const os_tree *t);
os_node *os_last(const os_tree *t);
os_node *os_next(const os_node *x);
os_node *os_prev(const os_node *x);
/* Invariant check (BST order, heap order, parent links, aug, count): 0 when consistent. */
int os_check(const os_tree *t);
/* Free every node (each its own allocation: am_malloc/am_calloc, freed with free) in one walk,
 * leaves first by the parent links, O(n) without recursion; the tree is empty again. For trees
 * whose nodes are not embedded in other records. */
void os_free_nodes(os_tree *t);

#endif
