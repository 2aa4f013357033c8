/* btree.c - B+-tree keyed by (k1, k2) with pointer values (see btree.h).
 *
 * Layout: every node holds n entries e[] (key k1, k2 and a pointer). A leaf holds n (key, value)
 * pairs in key order.
 * An inner node holds n children; e[i].k (i >= 1) is a lower bound of every key under kid[i] and
 * greater than every key under kid[i - 1]; k[0] is not used (its lower bound is the parent's
 * separator). A search descends into the last child whose separator is <= the key.
 * Separators are not updated when keys are removed: a stale separator still splits the two
 * children correctly. Nodes split when they reach BT_ORDER entries (two halves of BT_ORDER / 2)
 * and a non-root node that drops below BT_MIN entries borrows from a sibling (evening the two
 * out) or merges with it when both fit in one node with room to spare, so a node holds
 * BT_MIN .. BT_ORDER - 1 entries between operations. Insert and remove are recursive (the depth
 * is at most log8(n) + 1, in practice log24(n) + 1: 5 levels for 10^7 keys). */
#include "btree.h"

#include <stdlib.h>
#include <string.h>

#include "../sim/common.h"

#define BT_MIN (BT_ORDER / 4) /* fewest entries of a non-root node */

/* One entry: a key and the value (leaf) or child (inner node). Entries are kept together so
 * that shifting them is one memmove and a probe touches one cache line. */
typedef struct bt_ent {
    uint64_t k1, k2;
    void *p;                      /* leaf: the value; inner node: the child (bt_node *) */
} bt_ent;

struct bt_node {
    int n;                        /* entries */
    int leaf;
    bt_node *prev, *next;         /* leaves: neighbours in key order */
    bt_ent e[BT_ORDER];
};

#define KID(x, i) ((bt_node *)(x)->e[i].p)

static inline int key_lt(uint64_t a1, uint64_t a2, uint64_t b1, uint64_t b2)
{
    return a1 < b1 || (a1 == b1 && a2 < b2);
}

/* Index of the first key >= (k1, k2) in x->e[0, n). A forward scan, not a binary search: its
 * loop branch goes the same way until the answer (one misprediction per node, where the halving
 * steps of a binary search over 32 keys mispredict about half the time), and it reads the
 * entries in order. */
static inline int node_lb(const bt_node *x, uint64_t k1, uint64_t k2)
{
    int i = 0, n = x->n;
    while (i < n && x->e[i].k1 < k1)
        i++;
    while (i < n && x->e[i].k1 == k1 && x->e[i].k2 < k2)
        i++;
    return i;
}

/* Child of inner node x whose range holds (k1, k2): the last i >= 1 with e[i] <= key, or 0. */
static inline int node_child(const bt_node *x, uint64_t k1, uint64_t k2)
{
    int i = 1, n = x->n; /* first i >= 1 with key < e[i] */
    while (i < n && x->e[i].k1 < k1)
        i++;
    while (i < n && x->e[i].k1 == k1 && x->e[i].k2 <= k2)
        i++;
    return i - 1;
}

static bt_node *node_new(bt_tree *t, int leaf)
{
    recpool *p = t->pool ? t->pool : &t->nodes;
    if (!p->size) /* an all-zero tree is empty and valid: its pool starts here */
        recpool_init(p, sizeof(bt_node));
    bt_node *x = recpool_take(p); /* the header set here; entries are written before read */
    x->n = 0;
    x->leaf = leaf;
    x->prev = x->next = NULL;
    return x;
}

static void node_put(bt_tree *t, bt_node *x)
{
    recpool_put(t->pool ? t->pool : &t->nodes, x);
}

void bt_use_pool(bt_tree *t, recpool *p)
{
    if (!p->size)
        recpool_init(p, sizeof(bt_node));
    t->pool = p;
}

/* Move entries [from, from + cnt) of src to position at of dst (dst has room). */
static void node_move(bt_node *dst, int at, bt_node *src, int from, int cnt)
{
    size_t tail = (size_t)(dst->n - at), rest = (size_t)(src->n - from - cnt), c = (size_t)cnt;
    memmove(&dst->e[at + cnt], &dst->e[at], tail * sizeof dst->e[0]);
    memcpy(&dst->e[at], &src->e[from], c * sizeof dst->e[0]);
    dst->n += cnt;
    memmove(&src->e[from], &src->e[from + cnt], rest * sizeof src->e[0]);
    src->n -= cnt;
}

/* Put (k1, k2, p) at index i of x (x->n < BT_ORDER). */
/* Shifts by one entry are short (a node holds at most BT_ORDER): plain loops, no library call. */
static inline void node_put_at(bt_node *x, int i, uint64_t k1, uint64_t k2, void *p)
{
    for (int j = x->n; j > i; j--)
        x->e[j] = x->e[j - 1];
    x->e[i] = (bt_ent){k1, k2, p};
    x->n++;
}

static inline void node_del_at(bt_node *x, int i)
{
    for (int j = i + 1; j < x->n; j++)
        x->e[j - 1] = x->e[j];
    x->n--;
}

/* Split a full node: its upper half moves to a new right sibling, which is returned. */
static bt_node *node_split(bt_tree *t, bt_node *x)
{
    bt_node *r = node_new(t, x->leaf);
    node_move(r, 0, x, x->n / 2, x->n - x->n / 2);
    if (x->leaf) {
        r->next = x->next;
        if (r->next)
            r->next->prev = r;
        else
            t->last = r;
        r->prev = x;
        x->next = r;
    }
    return r; /* r->k[0] is the separator: its first key, or its first child's bound */
}

/* Insert under x; returns a new right sibling of x when x split, else NULL. */
static bt_node *ins(bt_tree *t, bt_node *x, uint64_t k1, uint64_t k2, void *val)
{
    if (x->leaf) {
        node_put_at(x, node_lb(x, k1, k2), k1, k2, val);
    } else {
        int c = node_child(x, k1, k2);
        bt_node *r = ins(t, KID(x, c), k1, k2, val);
        if (!r)
            return NULL;
        node_put_at(x, c + 1, r->e[0].k1, r->e[0].k2, r);
    }
    return x->n == BT_ORDER ? node_split(t, x) : NULL;
}

void bt_insert(bt_tree *t, uint64_t k1, uint64_t k2, void *val)
{
    if (!t->root) {
        t->root = t->last = node_new(t, 1);
        t->height = 1;
    }
    bt_node *r = ins(t, t->root, k1, k2, val);
    t->n++;
    if (r) {
        bt_node *root = node_new(t, 0);
        root->e[0].k1 = root->e[0].k2 = 0;
        root->e[0].p = t->root;
        root->e[1].k1 = r->e[0].k1;
        root->e[1].k2 = r->e[0].k2;
        root->e[1].p = r;
        root->n = 2;
        t->root = root;
        t->height++;
    }
}

/* Child c of inner node x has fewer than BT_MIN entries: merge it with a sibling when both fit
 * in one node, else even the two out. */
static void fix_child(bt_tree *t, bt_node *x, int c)
{
    int li = c > 0 ? c - 1 : c, ri = li + 1; /* the pair (left, right) */
    bt_node *l = KID(x, li), *r = KID(x, ri);
    if (!r->leaf) { /* r's first child takes its lower bound from the separator */
        r->e[0].k1 = x->e[ri].k1;
        r->e[0].k2 = x->e[ri].k2;
    }
    if (l->n + r->n < BT_ORDER) {
        node_move(l, l->n, r, 0, r->n);
        if (r->leaf) {
            l->next = r->next;
            if (l->next)
                l->next->prev = l;
            else
                t->last = l;
        }
        node_put(t, r);
        node_del_at(x, ri);
        return;
    }
    if (l->n < r->n)
        node_move(l, l->n, r, 0, (r->n - l->n) / 2);
    else
        node_move(r, 0, l, l->n - (l->n - r->n) / 2, (l->n - r->n) / 2);
    x->e[ri].k1 = r->e[0].k1;
    x->e[ri].k2 = r->e[0].k2;
}

/* Remove (k1, k2) under x, or with lb set the first key >= (k1, k2) when it is in the leaf the
 * descent reaches (*miss set when it would start the next leaf). Returns the value or NULL. */
static void *del(bt_tree *t, bt_node *x, uint64_t k1, uint64_t k2, int lb, int *miss)
{
    if (x->leaf) {
        int i = node_lb(x, k1, k2);
        if (i == x->n) {
            *miss = lb;
            return NULL;
        }
        if (!lb && (x->e[i].k1 != k1 || x->e[i].k2 != k2))
            return NULL;
        void *v = x->e[i].p;
        node_del_at(x, i);
        return v;
    }
    int c = node_child(x, k1, k2);
    void *v = del(t, KID(x, c), k1, k2, lb, miss);
    if (v && KID(x, c)->n < BT_MIN)
        fix_child(t, x, c);
    return v;
}

static void *remove_top(bt_tree *t, uint64_t k1, uint64_t k2, int lb)
{
    if (!t->root)
        return NULL;
    int miss = 0;
    void *v = del(t, t->root, k1, k2, lb, &miss);
    if (miss) { /* the answer starts the next leaf: find its key, remove that */
        bt_iter it;
        if (!bt_lower_bound(t, k1, k2, &it))
            return NULL;
        return remove_top(t, bt_k1(&it), bt_k2(&it), 0);
    }
    if (!v)
        return NULL;
    t->n--;
    bt_node *root = t->root;
    if (!root->leaf && root->n == 1) {
        t->root = KID(root, 0);
        t->height--;
        node_put(t, root);
    } else if (root->leaf && root->n == 0) {
        node_put(t, root);
        t->root = t->last = NULL;
        t->height = 0;
    }
    return v;
}

void *bt_remove(bt_tree *t, uint64_t k1, uint64_t k2) { return remove_top(t, k1, k2, 0); }

void *bt_remove_at(bt_tree *t, const bt_iter *it)
{
    bt_node *x = it->leaf;
    if (x != t->root && x->n <= BT_MIN) /* the leaf would underflow: rebalance on the way down */
        return remove_top(t, x->e[it->i].k1, x->e[it->i].k2, 0);
    void *v = x->e[it->i].p;
    node_del_at(x, it->i); /* the separators above stay lower bounds of what is left */
    t->n--;
    if (x->n == 0) { /* the root leaf emptied */
        node_put(t, x);
        t->root = t->last = NULL;
        t->height = 0;
    }
    return v;
}

void bt_rekey_at(bt_tree *t, const bt_iter *it, uint64_t k1, uint64_t k2, void *val)
{
    bt_node *x = it->leaf;
    int i = it->i, n = x->n;
    bt_ent *e = x->e;
    /* The leaf may hold keys in [its separator, the next leaf's separator), and its first and
     * last keys (the one changing included) lie in that range: a new key between them belongs
     * here too; the first leaf has no lower bound and the last no upper one. */
    int lo_ok = !x->prev || !key_lt(k1, k2, e[0].k1, e[0].k2);
    int hi_ok = !x->next || !key_lt(e[n - 1].k1, e[n - 1].k2, k1, k2);
    if (!lo_ok || !hi_ok) {
        bt_remove_at(t, it);
        bt_insert(t, k1, k2, val);
        return;
    }
    bt_ent moved = {k1, k2, val};
    if (key_lt(e[i].k1, e[i].k2, k1, k2)) { /* larger: entries after it step down */
        while (i + 1 < n && key_lt(e[i + 1].k1, e[i + 1].k2, k1, k2)) {
            e[i] = e[i + 1];
            i++;
        }
    } else { /* smaller: entries before it step up */
        while (i > 0 && key_lt(k1, k2, e[i - 1].k1, e[i - 1].k2)) {
            e[i] = e[i - 1];
            i--;
        }
    }
    e[i] = moved;
}

void bt_rekey(bt_tree *t, uint64_t o1, uint64_t o2, uint64_t k1, uint64_t k2, void *val)
{
    bt_node *x = t->root;
    while (!x->leaf)
        x = KID(x, node_child(x, o1, o2));
    bt_iter it = {x, node_lb(x, o1, o2)};
    bt_rekey_at(t, &it, k1, k2, val);
}

void *bt_remove_lower_bound(bt_tree *t, uint64_t k1, uint64_t k2)
{
    return remove_top(t, k1, k2, 1);
}

void *bt_find(const bt_tree *t, uint64_t k1, uint64_t k2)
{
    const bt_node *x = t->root;
    if (!x)
        return NULL;
    while (!x->leaf)
        x = KID(x, node_child(x, k1, k2));
    int i = node_lb(x, k1, k2);
    return i < x->n && x->e[i].k1 == k1 && x->e[i].k2 == k2 ? x->e[i].p : NULL;
}

void *bt_lower_bound(const bt_tree *t, uint64_t k1, uint64_t k2, bt_iter *it)
{
    bt_node *x = t->root;
    if (!x)
        return NULL;
    while (!x->leaf)
        x = KID(x, node_child(x, k1, k2));
    int i = node_lb(x, k1, k2);
    if (i == x->n) { /* every key here is smaller: the answer starts the next leaf */
        x = x->next;
        i = 0;
        if (!x)
            return NULL;
    }
    if (it) {
        it->leaf = x;
        it->i = i;
    }
    return x->e[i].p;
}

void *bt_floor(const bt_tree *t, uint64_t k1, uint64_t k2, bt_iter *it)
{
    bt_node *x = t->root;
    if (!x)
        return NULL;
    while (!x->leaf)
        x = KID(x, node_child(x, k1, k2));
    int i = node_lb(x, k1, k2); /* then past the key itself (keys are unique): the first above */
    if (i < x->n && x->e[i].k1 == k1 && x->e[i].k2 == k2)
        i++;
    /* The child a search descends into starts at a separator <= the key, but a stale separator
     * (removals do not update them) may leave every key of this leaf above it: every key of the
     * leaves before lies below that separator, so the answer ends the previous leaf. */
    if (i == 0) {
        x = x->prev;
        if (!x)
            return NULL;
        i = x->n;
    }
    if (it) {
        it->leaf = x;
        it->i = i - 1;
    }
    return x->e[i - 1].p;
}

void *bt_first(const bt_tree *t, bt_iter *it)
{
    bt_node *x = t->root;
    if (!x)
        return NULL;
    while (!x->leaf)
        x = KID(x, 0);
    if (it) {
        it->leaf = x;
        it->i = 0;
    }
    return x->e[0].p;
}

void *bt_last(const bt_tree *t, bt_iter *it)
{
    bt_node *x = t->last; /* kept current: O(1), the policies' largest_free runs every event */
    if (!x)
        return NULL;
    if (it) {
        it->leaf = x;
        it->i = x->n - 1;
    }
    return x->e[x->n - 1].p;
}

uint64_t bt_last_k1(const bt_tree *t) { return t->last ? t->last->e[t->last->n - 1].k1 : 0; }

void *bt_next(bt_iter *it)
{
    if (!it->leaf)
        return NULL;
    if (++it->i == it->leaf->n) {
        it->leaf = it->leaf->next;
        it->i = 0;
        if (!it->leaf)
            return NULL;
    }
    return it->leaf->e[it->i].p;
}

void *bt_prev(bt_iter *it)
{
    if (!it->leaf)
        return NULL;
    if (it->i-- == 0) {
        it->leaf = it->leaf->prev;
        if (!it->leaf)
            return NULL;
        it->i = it->leaf->n - 1;
    }
    return it->leaf->e[it->i].p;
}

uint64_t bt_k1(const bt_iter *it) { return it->leaf->e[it->i].k1; }
uint64_t bt_k2(const bt_iter *it) { return it->leaf->e[it->i].k2; }
void *bt_val(const bt_iter *it) { return it->leaf->e[it->i].p; }

void bt_destroy(bt_tree *t)
{
    if (!t->pool)
        recpool_destroy(&t->nodes); /* every node, in the tree or spare */
    t->root = t->last = NULL;
    t->n = 0;
    t->height = 0;
}

/* ---- invariant check ---- */

typedef struct bt_chk {
    int bad;
    size_t n;
    const bt_node *last_leaf;
} bt_chk;

typedef struct bt_bound {
    int set;
    uint64_t k1, k2;
} bt_bound;

/* Check the subtree x whose keys must lie in [lo, hi) (a bound is absent when not set). */
static void check_rec(const bt_tree *t, const bt_node *x, int depth, bt_bound lo, bt_bound hi,
                      bt_chk *c)
{
    if (x->n < (x == t->root ? (x->leaf ? 1 : 2) : BT_MIN) || x->n >= BT_ORDER)
        c->bad++;
    if (x->leaf) {
        if (depth != t->height || x->prev != c->last_leaf ||
            (c->last_leaf && c->last_leaf->next != x))
            c->bad++;
        c->last_leaf = x;
        for (int i = 0; i < x->n; i++)
            if ((i && !key_lt(x->e[i - 1].k1, x->e[i - 1].k2, x->e[i].k1, x->e[i].k2)) ||
                (lo.set && key_lt(x->e[i].k1, x->e[i].k2, lo.k1, lo.k2)) ||
                (hi.set && !key_lt(x->e[i].k1, x->e[i].k2, hi.k1, hi.k2)))
                c->bad++;
        c->n += (size_t)x->n;
        return;
    }
    for (int i = 0; i < x->n; i++) {
        if (i > 1 && !key_lt(x->e[i - 1].k1, x->e[i - 1].k2, x->e[i].k1, x->e[i].k2))
            c->bad++;
        bt_bound l = i ? (bt_bound){1, x->e[i].k1, x->e[i].k2} : lo;
        bt_bound h = i + 1 < x->n ? (bt_bound){1, x->e[i + 1].k1, x->e[i + 1].k2} : hi;
        check_rec(t, KID(x, i), depth + 1, l, h, c);
    }
}

int bt_check(const bt_tree *t)
{
    bt_chk c = {0, 0, NULL};
    if (!t->root)
        return t->n != 0 || t->height != 0 || t->last != NULL;
    bt_bound none = {0, 0, 0};
    check_rec(t, t->root, 1, none, none, &c);
    if (c.n != t->n || (c.last_leaf && c.last_leaf->next) || c.last_leaf != t->last)
        c.bad++;
    return c.bad;
}
