/* ordset.c - treap with parent links and a subtree-maximum augmentation (see ordset.h).
 * Insertion descends to a leaf and rotates the new node up while its priority beats its parent's;
 * removal rotates the node down below its higher-priority child until it has at most one child
 * and splices it out. `aug` is recomputed bottom-up on every path that changes. */
#include "ordset.h"

#include <stdlib.h>

static inline int key_lt(uint64_t a1, uint64_t a2, uint64_t b1, uint64_t b2)
{
    return a1 < b1 || (a1 == b1 && a2 < b2);
}

static inline uint32_t key_pri(uint64_t k1, uint64_t k2)
{
    uint64_t z = k1 * 0x9E3779B97F4A7C15ULL ^ (k2 + 0x632BE59BD9B4E019ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return (uint32_t)(z ^ (z >> 31));
}

static inline void pull(os_node *x)
{
    uint64_t a = x->val;
    if (x->l && x->l->aug > a)
        a = x->l->aug;
    if (x->r && x->r->aug > a)
        a = x->r->aug;
    x->aug = a;
}

static void pull_up(const os_tree *t, os_node *x)
{
    if (t->no_aug)
        return;
    for (; x; x = x->p)
        pull(x);
}

static inline void replace_child(os_tree *t, os_node *parent, os_node *old, os_node *nw)
{
    if (!parent)
        t->root = nw;
    else if (parent->l == old)
        parent->l = nw;
    else
        parent->r = nw;
    if (nw)
        nw->p = parent;
}

/* Rotate x above its parent. */
static void rotate_up(os_tree *t, os_node *x)
{
    os_node *p = x->p, *g = p->p;
    if (p->l == x) {
        p->l = x->r;
        if (x->r)
            x->r->p = p;
        x->r = p;
    } else {
        p->r = x->l;
        if (x->l)
            x->l->p = p;
        x->l = p;
    }
    p->p = x;
    replace_child(t, g, p, x);
    if (!t->no_aug) {
        pull(p);
        pull(x);
    }
}

void os_insert(os_tree *t, os_node *x)
{
    x->l = x->r = NULL;
    x->pri = key_pri(x->k1, x->k2);
    x->aug = x->val;
    os_node *p = NULL, **link = &t->root;
    while (*link) {
        p = *link;
        link = key_lt(x->k1, x->k2, p->k1, p->k2) ? &p->l : &p->r;
    }
    *link = x;
    x->p = p;
    t->n++;
    if (!t->max || !key_lt(x->k1, x->k2, t->max->k1, t->max->k2))
        t->max = x;
    pull_up(t, p);
    while (x->p && x->p->pri < x->pri)
        rotate_up(t, x);
}

void os_remove(os_tree *t, os_node *x)
{
    if (t->max == x)
        t->max = os_prev(x);
    while (x->l && x->r)
        rotate_up(t, x->l->pri > x->r->pri ? x->l : x->r);
    os_node *c = x->l ? x->l : x->r, *p = x->p;
    replace_child(t, p, x, c);
    pull_up(t, p);
    x->l = x->r = x->p = NULL;
    t->n--;
}

void os_set_val(os_tree *t, os_node *x, uint64_t val)
{
    x->val = val;
    pull_up(t, x);
}

os_node *os_lower_bound(const os_tree *t, uint64_t k1, uint64_t k2)
{
    os_node *x = t->root, *best = NULL;
    while (x) {
        if (key_lt(x->k1, x->k2, k1, k2))
            x = x->r;
        else {
            best = x;
            x = x->l;
        }
    }
    return best;
}

os_node *os_floor(const os_tree *t, uint64_t k1, uint64_t k2)
{
    os_node *x = t->root, *best = NULL;
    while (x) {
        if (key_lt(k1, k2, x->k1, x->k2))
            x = x->l;
        else {
            best = x;
            x = x->r;
        }
    }
    return best;
}

os_node *os_first_fit(const os_tree *t, uint64_t len)
{
    os_node *x = t->root;
    if (t->no_aug)
        return NULL; /* not maintained: a caller error, caught by os_check */
    if (!x || x->aug < len)
        return NULL;
    for (;;) {
        if (x->l && x->l->aug >= len)
            x = x->l;
        else if (x->val >= len)
            return x;
        else
            x = x->r; /* aug guarantees it is there */
    }
}

os_node *os_first(const os_tree *t)
{
    os_node *x = t->root;
    while (x && x->l)
        x = x->l;
    return x;
}

os_node *os_last(const os_tree *t) { return t->max; }

os_node *os_next(const os_node *x)
{
    if (x->r) {
        x = x->r;
        while (x->l)
            x = x->l;
        return (os_node *)(uintptr_t)x;
    }
    while (x->p && x->p->r == x)
        x = x->p;
    return x->p;
}

os_node *os_prev(const os_node *x)
{
    if (x->l) {
        x = x->l;
        while (x->r)
            x = x->r;
        return (os_node *)(uintptr_t)x;
    }
    while (x->p && x->p->l == x)
        x = x->p;
    return x->p;
}

static size_t check_rec(const os_node *x, int no_aug, int *bad)
{
    if (!x)
        return 0;
    uint64_t a = x->val;
    if (x->l) {
        if (x->l->p != x || !key_lt(x->l->k1, x->l->k2, x->k1, x->k2) || x->l->pri > x->pri)
            (*bad)++;
        if (x->l->aug > a)
            a = x->l->aug;
    }
    if (x->r) {
        if (x->r->p != x || !key_lt(x->k1, x->k2, x->r->k1, x->r->k2) || x->r->pri > x->pri)
            (*bad)++;
        if (x->r->aug > a)
            a = x->r->aug;
    }
    if (!no_aug && a != x->aug)
        (*bad)++;
    return 1 + check_rec(x->l, no_aug, bad) + check_rec(x->r, no_aug, bad);
}

int os_check(const os_tree *t)
{
    int bad = 0;
    if (t->root && t->root->p)
        bad++;
    if (check_rec(t->root, t->no_aug, &bad) != t->n)
        bad++;
    os_node *last = t->root;
    while (last && last->r)
        last = last->r;
    if (last != t->max)
        bad++;
    return bad;
}

void os_free_nodes(os_tree *t)
{
    os_node *x = t->root;
    while (x) {
        if (x->l) {
            x = x->l;
        } else if (x->r) {
            x = x->r;
        } else {
            os_node *p = x->p;
            if (p)
                *(p->l == x ? &p->l : &p->r) = NULL;
            free(x);
            x = p;
        }
    }
    t->root = t->max = NULL;
    t->n = 0;
}
