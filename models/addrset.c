/* addrset.c - B+-tree of address ranges with each subtree's largest length (see addrset.h).
 *
 * Layout: a node holds n entries. A leaf's entries are (key, len, pointer) in key order, its
 * leaves linked both ways. An inner node's entry i is (separator, largest len under the child,
 * child): key[i] (i >= 1) is <= every key under child i and > every key under child i - 1;
 * key[0] is not used. A search descends into the last child whose separator is <= the key.
 * Separators are not updated when keys are removed (a stale one still splits its two children
 * correctly); the largest lengths are kept exact on every path that changes. Nodes split at
 * AS_ORDER entries into two halves, and a non-root node below AS_MIN entries borrows from a
 * sibling or merges with it, as in btree.c. */
#include "addrset.h"

#include <string.h>

#define AS_MIN (AS_ORDER / 4) /* fewest entries of a non-root node */
/* in line where a per-operation helper is called from more than one place: GCC would not */
#define AS_INLINE static inline __attribute__((always_inline))

/* Keys, lengths and pointers in separate arrays: a first fit scans only lengths, a descent
 * by address only keys (8 cache lines of a node each, where whole entries would be 24). A leaf
 * of a ranges tree is allocated without the pointer array (LEAF_NO_P bytes) and never touches
 * it; `ptrs` says whether a node has one (always, for an inner node: its children). */
struct as_node {
    int n;
    int leaf;
    int ptrs;
    int pidx;             /* where the parent last had this node: a guess, checked on use */
    uint64_t gen;         /* the tree's count of nodes made when this one was, 0 once it is
                           * given back: a remembered (node, gen) that still matches names the
                           * same live node (not in the first bytes: the pool's free list). 64
                           * bits: a count that wrapped could give a reused node an old gen */
    as_node *prev, *next; /* leaves: neighbours in key order */
    as_node *parent;      /* NULL at the root: a change made in a leaf found without a descent
                           * (a back-pointer, a hint) climbs here to fix the largest lengths */
    _Alignas(64) uint64_t key[AS_ORDER]; /* each array in whole cache lines (recpool.c) */
    uint64_t len[AS_ORDER];
    void *p[AS_ORDER];
};

#define KID(x, i) ((as_node *)(x)->p[i])

/* Entry i of leaf x is now in x: its record's back-pointer says so (trees with as_bp only). */
static inline void bp_set(const as_tree *t, as_node *x, int i)
{
    if (t->bp)
        memcpy((char *)x->p[i] + t->bp_off, &x, sizeof x);
}
#define LEAF_NO_P offsetof(as_node, p)

/* Index of the first key >= k in a leaf (a forward scan: one mispredicted branch per node). */
static inline int node_lb(const as_node *x, uint64_t k)
{
    int i = 0, n = x->n;
    while (i < n && x->key[i] < k)
        i++;
    return i;
}

/* Child of inner node x whose range holds k: the last i >= 1 with key[i] <= k, or 0. */
static inline int node_child(const as_node *x, uint64_t k)
{
    int i = 1, n = x->n;
    while (i < n && x->key[i] <= k)
        i++;
    return i - 1;
}

/* Largest length in x: four running maxima, so the comparisons do not wait on each other. */
static inline uint64_t node_max(const as_node *x)
{
    uint64_t m0 = 0, m1 = 0, m2 = 0, m3 = 0;
    int i = 0, n = x->n;
    for (; i + 4 <= n; i += 4) {
        m0 = x->len[i] > m0 ? x->len[i] : m0;
        m1 = x->len[i + 1] > m1 ? x->len[i + 1] : m1;
        m2 = x->len[i + 2] > m2 ? x->len[i + 2] : m2;
        m3 = x->len[i + 3] > m3 ? x->len[i + 3] : m3;
    }
    for (; i < n; i++)
        m0 = x->len[i] > m0 ? x->len[i] : m0;
    m0 = m1 > m0 ? m1 : m0;
    m2 = m3 > m2 ? m3 : m2;
    return m2 > m0 ? m2 : m0;
}

static as_node *node_new(as_tree *t, int leaf)
{
    if (!t->nodes.size) { /* an all-zero tree is empty and valid: its pools start here */
        recpool_init(&t->nodes, sizeof(as_node));
        recpool_init(&t->leaves, LEAF_NO_P);
    }
    int short_leaf = leaf && t->ranges;
    as_node *x = recpool_take(short_leaf ? &t->leaves : &t->nodes); /* entries are written
                                                                       before they are read */
    x->n = 0;
    x->leaf = leaf;
    x->ptrs = !short_leaf;
    x->prev = x->next = x->parent = NULL;
    x->pidx = 0;
    x->gen = ++t->ngen; /* never 0, the gen of a node given back */
    return x;
}

static void node_put(as_tree *t, as_node *x)
{
    x->gen = 0; /* no hint matches a node given back */
    recpool_put(x->ptrs ? &t->nodes : &t->leaves, x);
}

/* Move entries [from, from + cnt) of src to position at of dst (dst has room); the moved
 * children (or, with back-pointers, records) learn their new node. */
static void node_move(const as_tree *t, as_node *dst, int at, as_node *src, int from, int cnt)
{
    size_t tail = (size_t)(dst->n - at), rest = (size_t)(src->n - from - cnt), c = (size_t)cnt;
#define MOVE_ARRAY(a)                                                                     \
    do {                                                                                  \
        memmove(&dst->a[at + cnt], &dst->a[at], tail * sizeof dst->a[0]);                 \
        memcpy(&dst->a[at], &src->a[from], c * sizeof dst->a[0]);                         \
        memmove(&src->a[from], &src->a[from + cnt], rest * sizeof src->a[0]);             \
    } while (0)
    MOVE_ARRAY(key);
    MOVE_ARRAY(len);
    if (dst->ptrs) /* siblings: both have the array or neither */
        MOVE_ARRAY(p);
#undef MOVE_ARRAY
    dst->n += cnt;
    src->n -= cnt;
    if (!dst->leaf)
        for (int j = at; j < at + cnt; j++)
            KID(dst, j)->parent = dst;
    else if (t->bp)
        for (int j = at; j < at + cnt; j++)
            bp_set(t, dst, j);
}

static inline void node_put_at(as_node *x, int i, uint64_t key, uint64_t len, void *p)
{
    for (int j = x->n; j > i; j--) {
        x->key[j] = x->key[j - 1];
        x->len[j] = x->len[j - 1];
    }
    x->key[i] = key;
    x->len[i] = len;
    if (x->ptrs) {
        for (int j = x->n; j > i; j--)
            x->p[j] = x->p[j - 1];
        x->p[i] = p;
    }
    x->n++;
}

static inline void node_del_at(as_node *x, int i)
{
    for (int j = i + 1; j < x->n; j++) {
        x->key[j - 1] = x->key[j];
        x->len[j - 1] = x->len[j];
    }
    if (x->ptrs)
        for (int j = i + 1; j < x->n; j++)
            x->p[j - 1] = x->p[j];
    x->n--;
}

/* Split a full node: its upper half moves to a new right sibling, which is returned (its
 * key[0] is the separator: its first key, or its first child's lower bound). */
static as_node *node_split(as_tree *t, as_node *x)
{
    as_node *r = node_new(t, x->leaf);
    node_move(t, r, 0, x, x->n / 2, x->n - x->n / 2);
    if (x->leaf) {
        r->next = x->next;
        if (r->next)
            r->next->prev = r;
        r->prev = x;
        x->next = r;
    }
    return r;
}

/* Insert under x; a new right sibling of x when x split, else NULL. */
static as_node *ins(as_tree *t, as_node *x, uint64_t key, uint64_t len, void *p)
{
    if (x->leaf) {
        int i = node_lb(x, key);
        node_put_at(x, i, key, len, p);
        bp_set(t, x, i);
    } else {
        int c = node_child(x, key);
        as_node *kid = KID(x, c), *r = ins(t, kid, key, len, p);
        if (!r) {
            if (len > x->len[c])
                x->len[c] = len;
            return NULL;
        }
        x->len[c] = node_max(kid);
        node_put_at(x, c + 1, r->key[0], node_max(r), r);
        r->parent = x;
    }
    return x->n == AS_ORDER ? node_split(t, x) : NULL;
}

void as_insert(as_tree *t, uint64_t key, uint64_t len, void *p)
{
    if (!t->root) {
        t->root = node_new(t, 1);
        t->height = 1;
    }
    as_node *r = ins(t, t->root, key, len, p);
    t->n++;
    if (len > t->max)
        t->max = len;
    if (r) {
        as_node *root = node_new(t, 0), *l = t->root;
        node_put_at(root, 0, 0, node_max(l), l);
        node_put_at(root, 1, r->key[0], node_max(r), r);
        l->parent = r->parent = root;
        t->root = root;
        t->height++;
    }
}

/* Child c of inner node x has fewer than AS_MIN entries: merge it with a sibling when both fit
 * in one node, else even the two out. The largest lengths of what changed are recomputed. */
static void fix_child(as_node *x, int c, as_tree *t)
{
    int li = c > 0 ? c - 1 : c, ri = li + 1;
    as_node *l = KID(x, li), *r = KID(x, ri);
    if (!r->leaf) /* r's first child takes its lower bound from the separator */
        r->key[0] = x->key[ri];
    if (l->n + r->n < AS_ORDER) {
        node_move(t, l, l->n, r, 0, r->n);
        if (r->leaf) {
            l->next = r->next;
            if (l->next)
                l->next->prev = l;
        }
        node_put(t, r);
        node_del_at(x, ri);
        x->len[li] = node_max(l);
        return;
    }
    if (l->n < r->n)
        node_move(t, l, l->n, r, 0, (r->n - l->n) / 2);
    else
        node_move(t, r, 0, l, l->n - (l->n - r->n) / 2, (l->n - r->n) / 2);
    x->key[ri] = r->key[0];
    x->len[li] = node_max(l);
    x->len[ri] = node_max(r);
}

/* Remove key under x; 1 when it was there (its length in *len). */
static int del(as_tree *t, as_node *x, uint64_t key, uint64_t *len)
{
    if (x->leaf) {
        int i = node_lb(x, key);
        if (i == x->n || x->key[i] != key)
            return 0;
        *len = x->len[i];
        node_del_at(x, i);
        return 1;
    }
    int c = node_child(x, key);
    as_node *kid = KID(x, c);
    if (!del(t, kid, key, len))
        return 0;
    if (kid->n < AS_MIN)
        fix_child(x, c, t);
    else if (*len == x->len[c]) /* it may have been the largest below */
        x->len[c] = node_max(kid);
    return 1;
}

int as_remove(as_tree *t, uint64_t key)
{
    uint64_t len = 0;
    if (!t->root || !del(t, t->root, key, &len))
        return 0;
    t->n--;
    as_node *root = t->root;
    if (!root->leaf && root->n == 1) {
        t->root = KID(root, 0);
        t->root->parent = NULL;
        t->height--;
        node_put(t, root);
    } else if (root->leaf && root->n == 0) {
        node_put(t, root);
        t->root = NULL;
        t->height = 0;
    }
    if (len == t->max)
        t->max = t->root ? node_max(t->root) : 0;
    return 1;
}

/* A length in node x, under path[0..d) (child at[k] of path[k]), went from o to v (v = 0: an
 * entry left x): the largest lengths on the way up are fixed until one does not change. Node
 * x's largest was M (kept in its parent's entry, or t->max for the root); only when the length
 * that was M shrank does x need a scan. */
static void fix_up(as_tree *t, as_node *const *path, const int *at, int d, as_node *x,
                   uint64_t o, uint64_t v)
{
    for (;;) {
        uint64_t *pm = d > 0 ? &path[d - 1]->len[at[d - 1]] : &t->max, M = *pm, m;
        if (v >= M)
            m = v;
        else if (o < M)
            break;
        else
            m = node_max(x);
        if (m == M)
            break;
        *pm = m;
        if (d == 0)
            break;
        o = M;
        v = m;
        x = path[--d];
    }
}

/* Entry i of leaf x, under path[0..d), becomes (nkey, len, p): its place in key order holds. */
static void set_entry(as_tree *t, as_node *const *path, const int *at, int d, as_node *x, int i,
                      uint64_t nkey, uint64_t len, void *p)
{
    uint64_t o = x->len[i];
    x->key[i] = nkey;
    x->len[i] = len;
    if (x->ptrs) {
        x->p[i] = p;
        bp_set(t, x, i);
    }
    fix_up(t, path, at, d, x, o, len);
}

/* The descent by key k: the node and child taken at every inner level into *pos, the leaf
 * reached last (pos->node[pos->depth - 1], its index left for the caller); the leaf, or NULL
 * when the tree is empty. */
AS_INLINE as_node *descend(const as_tree *t, uint64_t k, as_pos *pos)
{
    as_node *x = t->root;
    int d = 0;
    if (!x)
        return NULL;
    for (; !x->leaf; d++) {
        int c = node_child(x, k);
        pos->node[d] = x;
        pos->at[d] = c;
        x = KID(x, c);
    }
    pos->node[d] = x;
    pos->depth = d + 1;
    return x;
}

/* Whether nkey may replace the key at *pos: above the entry before it and below the one after,
 * which past either end of the leaf are the separators of the nearest ancestor with a child on
 * that side (none: no bound). */
AS_INLINE int pos_holds(const as_pos *pos, uint64_t nkey)
{
    int d = pos->depth - 1, i = pos->at[d];
    const as_node *x = pos->node[d];
    uint64_t key = x->key[i];
    if (nkey > key) {
        if (i + 1 < x->n)
            return nkey < x->key[i + 1];
        for (int k = d - 1; k >= 0; k--)
            if (pos->at[k] + 1 < pos->node[k]->n)
                return nkey < pos->node[k]->key[pos->at[k] + 1];
    } else if (nkey < key) {
        if (i > 0)
            return nkey > x->key[i - 1];
        for (int k = d - 1; k >= 0; k--)
            if (pos->at[k] > 0)
                return nkey >= pos->node[k]->key[pos->at[k]];
    }
    return 1;
}

int as_update(as_tree *t, uint64_t key, uint64_t nkey, uint64_t len, void *p)
{
    as_pos pos;
    as_node *x = descend(t, key, &pos);
    if (!x)
        return 0;
    int d = pos.depth - 1, i = node_lb(x, key);
    if (i == x->n || x->key[i] != key)
        return 0;
    pos.at[d] = i;
    if (!pos_holds(&pos, nkey)) { /* past a separator above the leaf: it moves */
        as_remove(t, key);
        as_insert(t, nkey, len, p);
        return 1;
    }
    set_entry(t, pos.node, pos.at, d, x, i, nkey, len, p);
    return 1;
}

void as_update_at(as_tree *t, const as_pos *pos, uint64_t nkey, uint64_t len, void *p)
{
    int d = pos->depth - 1;
    as_node *x = pos->node[d];
    if (pos_holds(pos, nkey))
        set_entry(t, pos->node, pos->at, d, x, pos->at[d], nkey, len, p);
    else
        as_update(t, x->key[pos->at[d]], nkey, len, p);
}

void as_remove_at(as_tree *t, const as_pos *pos)
{
    int d = pos->depth - 1;
    as_node *x = pos->node[d];
    if (x->n <= (d > 0 ? AS_MIN : 1)) { /* the leaf merges or borrows, or the tree empties */
        as_remove(t, x->key[pos->at[d]]);
        return;
    }
    uint64_t o = x->len[pos->at[d]];
    node_del_at(x, pos->at[d]);
    t->n--;
    fix_up(t, pos->node, pos->at, d, x, o, 0);
}

/* Where x's parent has x: the slot x remembers, else found by key (a key of x, or one just
 * removed from it: stale separators still part the children). */
AS_INLINE int parent_slot(as_node *x, uint64_t key)
{
    const as_node *pa = x->parent;
    int c = x->pidx;
    if (c >= pa->n || KID(pa, c) != x) /* moved since */
        x->pidx = c = node_child(pa, key);
    return c;
}

/* fix_up for leaf x reached through a back-pointer: each parent's entry for the node below is
 * found by key (a key of that node, or one just removed from it: stale separators still part
 * the children), so the climb stops where the largest length stops changing. */
static void fix_up_parents(as_tree *t, as_node *x, uint64_t key, uint64_t o, uint64_t v)
{
    for (;;) {
        as_node *pa = x->parent;
        uint64_t *pm = &t->max, M, m;
        if (pa)
            pm = &pa->len[parent_slot(x, key)];
        M = *pm;
        if (v >= M)
            m = v;
        else if (o < M)
            break;
        else
            m = node_max(x);
        if (m == M)
            break;
        *pm = m;
        if (!pa)
            break;
        o = M;
        v = m;
        x = pa;
    }
}

void as_update_in(as_tree *t, void *leaf, uint64_t key, uint64_t nkey, uint64_t len, void *p)
{
    as_node *x = leaf;
    int i = node_lb(x, key);
    /* a key that moves stays between its leaf neighbours, and off the leaf's lower bound */
    int holds = nkey == key || (nkey < key ? i > 0 && nkey > x->key[i - 1]
                                           : i + 1 < x->n && nkey < x->key[i + 1]);
    if (!holds) {
        as_update(t, key, nkey, len, p);
        return;
    }
    uint64_t o = x->len[i];
    x->key[i] = nkey;
    x->len[i] = len;
    x->p[i] = p;
    bp_set(t, x, i);
    fix_up_parents(t, x, nkey, o, len);
}

void as_remove_in(as_tree *t, void *leaf, uint64_t key)
{
    as_node *x = leaf;
    if (x->n <= (t->height > 1 ? AS_MIN : 1)) { /* the leaf merges or borrows, or empties */
        as_remove(t, key);
        return;
    }
    int i = node_lb(x, key);
    uint64_t o = x->len[i];
    node_del_at(x, i);
    t->n--;
    fix_up_parents(t, x, key, o, 0);
}

/* The lines a give reads and shifts: the header, keys and lengths (no pointers). */
static void prefetch_leaf_lines(const as_node *x)
{
    for (size_t off = 0; off < LEAF_NO_P; off += 64)
        __builtin_prefetch((const char *)x + off);
}

void as_prefetch_leaf(const as_tree *t, const void *leaf)
{
    (void)t;
    prefetch_leaf_lines(leaf);
}

int as_leaf_has(const void *leaf, uint64_t key)
{
    const as_node *x = leaf;
    /* a node given back holds the pool's free-list link where n and leaf were: its gen, past
     * the link, says so before either is read; and a count that is not one stops at AS_ORDER */
    if (!x->gen || !x->leaf)
        return 0;
    int i = 0, n = x->n < AS_ORDER ? x->n : AS_ORDER;
    while (i < n && x->key[i] < key)
        i++;
    return i < n && x->key[i] == key;
}

void as_take_at(as_tree *t, const as_pos *pos, const as_ent *e, uint64_t addr, uint64_t len)
{
    uint64_t end = e->key + e->len;
    if (!pos || addr != e->key)
        as_take(t, e, addr, len);
    else if (end > addr + len) /* its start moves up */
        as_update_at(t, pos, addr + len, end - addr - len, NULL);
    else /* taken whole */
        as_remove_at(t, pos);
}

void as_take(as_tree *t, const as_ent *e, uint64_t addr, uint64_t len)
{
    uint64_t s = e->key, end = s + e->len;
    if (addr == s) {
        if (end > addr + len) /* its start moves up, still below the next range */
            as_update(t, s, addr + len, end - addr - len, NULL);
        else
            as_remove(t, s);
        return;
    }
    as_update(t, s, s, addr - s, NULL);
    if (end > addr + len)
        as_insert(t, addr + len, end - addr - len, NULL);
}

/* The leaf a hint remembered for addr (or the neighbour the hint named), when the remembered
 * leaf is still the live leaf it was: NULL when there is none. Only that is checked: whether
 * addr falls there is the caller's to check (give_hinted). */
static as_node *hinted_leaf(as_tree *t, uint64_t addr)
{
    for (int k = 0; k < 4; k++) {
        struct as_hint *h = &t->hint[k];
        if (h->addr != addr || !h->leaf)
            continue;
        as_node *x = h->leaf;
        h->leaf = NULL;
        if (!h->gen || x->gen != h->gen || !x->leaf) /* given back (gen 0), or taken again */
            return NULL;
        if (h->dir && !(x = h->dir < 0 ? x->prev : x->next))
            return NULL;
        return x; /* alive; whether addr falls there is the caller's to check */
    }
    return NULL;
}

/* The lower bound of leaf r's keys, its separator in the parent (1), when the parent still
 * has r where r remembers and r is not its first child (else 0: not known without a descent). */
static int leaf_sep(as_node *r, uint64_t *sep)
{
    const as_node *pa = r->parent;
    if (!pa)
        return 0;
    int c = parent_slot(r, r->key[0]);
    if (c == 0)
        return 0;
    *sep = pa->key[c];
    return 1;
}

static void set_entry_up(as_tree *t, as_node *x, int i, uint64_t nkey, uint64_t len);
AS_INLINE int give_at(as_tree *t, as_node *const *path, const int *at, int d, as_node *x, int i,
                      uint64_t addr, uint64_t len);

/* A give at the boundary of two hinted leaves: every key of l is below addr, every key of r
 * (l's next) above it. The range below is l's last, the one above r's first; a new or moved key
 * goes to r when it is at least r's separator, else to l. 1, or 0 when the general path must do
 * it (nothing changed). */
static int give_between(as_tree *t, as_node *l, as_node *r, uint64_t addr, uint64_t len)
{
    int li = l->n - 1, join_prev = l->key[li] + l->len[li] == addr;
    int join_next = r->key[0] == addr + len;
    uint64_t rl = r->len[0], sep;
    if (join_prev) {
        if (join_next && r->n <= AS_MIN)
            return 0;
        set_entry_up(t, l, li, l->key[li], l->len[li] + len + (join_next ? rl : 0));
        if (join_next) { /* r's first leaves r, whose largest it may have been */
            uint64_t rk = r->key[0];
            node_del_at(r, 0);
            t->n--;
            fix_up_parents(t, r, rk, rl, 0);
        }
        return 1;
    }
    if (!leaf_sep(r, &sep))
        return 0;
    if (addr >= sep) { /* r's range: its first entry moves down, or one comes before it */
        if (join_next) {
            set_entry_up(t, r, 0, addr, rl + len);
            return 1;
        }
        if (r->n + 1 == AS_ORDER)
            return 0;
        node_put_at(r, 0, addr, len, NULL);
        t->n++;
        fix_up_parents(t, r, addr, 0, len);
        return 1;
    }
    if (join_next || l->n + 1 == AS_ORDER) /* r's first would leave r: the general path */
        return 0;
    node_put_at(l, l->n, addr, len, NULL);
    t->n++;
    fix_up_parents(t, l, addr, 0, len);
    return 1;
}

/* A give in the leaf a hint found, or at its boundary with a neighbour: 1 when done. */
static int give_hinted(as_tree *t, as_node *x, uint64_t addr, uint64_t len)
{
    int i = node_lb(x, addr);
    if (i > 0 && i < x->n) /* in this leaf: give_in_leaf's work with no descent */
        return give_at(t, NULL, NULL, 0, x, i, addr, len);
    if (i == x->n && x->n && x->next && x->next->n && x->next->key[0] > addr)
        return give_between(t, x, x->next, addr, len);
    as_node *l = x->prev;
    if (i == 0 && x->n && l && l->n && l->key[l->n - 1] < addr)
        return give_between(t, l, x, addr, len);
    return 0;
}

/* set_entry for a leaf reached without a path: its parents' largest lengths by climbing */
static void set_entry_up(as_tree *t, as_node *x, int i, uint64_t nkey, uint64_t len)
{
    uint64_t o = x->len[i];
    x->key[i] = nkey;
    x->len[i] = len;
    fix_up_parents(t, x, nkey, o, len);
}

/* Entry i of leaf x becomes (nkey, len): under path[0..d) (set_entry), or, with no path (a
 * leaf a hint found), by climbing the parents (set_entry_up). */
AS_INLINE void give_set(as_tree *t, as_node *const *path, const int *at, int d, as_node *x, int i,
                        uint64_t nkey, uint64_t len)
{
    if (path)
        set_entry(t, path, at, d, x, i, nkey, len, NULL);
    else
        set_entry_up(t, x, i, nkey, len);
}

/* The give of [addr, addr + len) in leaf x, whose entry i - 1 is below addr and entry i above
 * (no range starts at addr), x reached under path[0..d) or, path NULL, by a hint: 1, or 0
 * (nothing changed) when the leaf would split or underflow. In line at both callers, so the
 * path test folds away: the descent's give pays nothing for sharing it. */
AS_INLINE int give_at(as_tree *t, as_node *const *path, const int *at, int d, as_node *x, int i,
                      uint64_t addr, uint64_t len)
{
    int n = x->n;
    uint64_t pk = x->key[i - 1], pl = x->len[i - 1], nk = x->key[i], nl = x->len[i];
    int join_prev = pk + pl == addr, join_next = nk == addr + len;
    if (join_prev && join_next) {
        if (n <= AS_MIN && t->height > 1) /* the leaf would underflow */
            return 0;
        give_set(t, path, at, d, x, i - 1, pk, pl + len + nl);
        node_del_at(x, i); /* shorter than the range that took it in: no largest changes */
        t->n--;
        return 1;
    }
    if (join_prev) {
        give_set(t, path, at, d, x, i - 1, pk, pl + len);
        return 1;
    }
    if (join_next) { /* its start moves down, still above the range below */
        give_set(t, path, at, d, x, i, addr, nl + len);
        return 1;
    }
    if (n + 1 == AS_ORDER) /* the leaf would split */
        return 0;
    node_put_at(x, i, addr, len, NULL);
    t->n++;
    if (path) /* a length appeared: maxima can only grow */
        fix_up(t, path, at, d, x, 0, len);
    else
        fix_up_parents(t, x, addr, 0, len);
    return 1;
}

/* as_give when the ranges just below and above [addr, addr + len) sit in the leaf the address
 * leads to (or, after a hint, in the hinted leaf or at its edge) and the change needs no split or
 * merge of that leaf: done in place, with at most the one descent; 1, or 0 (nothing changed)
 * when the general path must do it. */
static size_t hinted_gives; /* as_hinted_gives: the tests' proof that the hints are used */

size_t as_hinted_gives(void) { return hinted_gives; }

static int give_in_leaf(as_tree *t, uint64_t addr, uint64_t len)
{
    if (t->nhint) {
        as_node *h = hinted_leaf(t, addr);
        if (h && t->ranges && give_hinted(t, h, addr, len)) {
            hinted_gives++;
            return 1;
        }
    }
    as_pos pos;
    as_node *x = descend(t, addr, &pos);
    if (!x)
        return 0;
    int i = node_lb(x, addr); /* entry i - 1 is below addr, entry i above */
    if (i == 0 || i == x->n)
        return 0;
    return give_at(t, pos.node, pos.at, pos.depth - 1, x, i, addr, len);
}

void as_give(as_tree *t, uint64_t addr, uint64_t len)
{
    if (give_in_leaf(t, addr, len))
        return;
    /* the ranges just below and above it (none starts inside it): one descent for both */
    as_ent pv, nx;
    as_iter it;
    int hp = as_floor(t, addr, &pv, &it);
    int hn = hp ? as_next(&it, &nx) : as_first(t, &nx, NULL);
    int join_next = hn && nx.key == addr + len;
    if (hp && pv.key + pv.len == addr) {
        as_update(t, pv.key, pv.key, pv.len + len + (join_next ? nx.len : 0), NULL);
        if (join_next)
            as_remove(t, nx.key);
    } else if (join_next) { /* its start moves down, still above the range below */
        as_update(t, nx.key, addr, nx.len + len, NULL);
    } else {
        as_insert(t, addr, len, NULL);
    }
}

/* The entry at index i of leaf x, copied out. */
static inline int out(const as_node *x, int i, as_ent *e)
{
    if (e)
        *e = (as_ent){x->key[i], x->len[i], x->ptrs ? x->p[i] : NULL};
    return 1;
}

int as_first_fit(const as_tree *t, uint64_t need, as_ent *e, as_pos *pos)
{
    as_node *x = t->root;
    if (!x)
        return 0;
    for (int d = 0;; d++) {
        int i = 0, n = x->n;
        while (i < n && x->len[i] < need)
            i++;
        if (i == n) /* only at the root: below it the largest length promised one */
            return 0;
        if (pos) {
            pos->node[d] = x;
            pos->at[d] = i;
            pos->depth = d + 1;
        }
        if (x->leaf)
            return out(x, i, e);
        x = KID(x, i);
        if (d + 2 == t->height) { /* a leaf: its header and lengths at once, not line by line */
            __builtin_prefetch(x);
            for (size_t off = 0; off < sizeof x->len; off += 64)
                __builtin_prefetch((const char *)x->len + off);
        }
    }
}

/* The leaf a descent by k reaches (NULL when the tree is empty). The height says where the
 * leaves are, so the leaf itself is not read here. */
static as_node *leaf_of(const as_tree *t, uint64_t k)
{
    as_node *x = t->root;
    for (int d = 1; d < t->height; d++)
        x = KID(x, node_child(x, k));
    return x;
}

/* The leaf's lines are only prefetched. A tree of fewer than AS_PREFETCH_MIN entries (leaves of
 * about 1.5 MB) is left alone: its leaves stay in a core's cache, and the descent would only
 * add its own cost (prealloc at 100k live buffers, 37k free ranges: 10% slower). */
#define AS_PREFETCH_MIN 65536
static size_t prefetch_min = AS_PREFETCH_MIN; /* the tests lower it: as_set_prefetch_min */

void as_set_prefetch_min(size_t n) { prefetch_min = n ? n : AS_PREFETCH_MIN; }

int as_prefetches(const as_tree *t) { return t->n >= prefetch_min; }

void as_prefetch(as_tree *t, uint64_t k)
{
    if (t->n < prefetch_min)
        return;
    as_node *x = leaf_of(t, k);
    if (t->ranges) { /* the give that follows starts from this leaf */
        struct as_hint *h = &t->hint[t->nhint++ & 3];
        *h = (struct as_hint){k, x, x->gen, 0};
    }
    const char *c = (const char *)x;
    for (size_t off = 0; off < (t->ranges ? LEAF_NO_P : sizeof(as_node)); off += 64)
        __builtin_prefetch(c + off);
}

as_mark as_mark_at(const as_pos *pos)
{
    as_node *x = pos->node[pos->depth - 1];
    return (as_mark){x, x->gen};
}

void as_prefetch_mark(const as_tree *t, as_mark m)
{
    if (t->n >= prefetch_min && m.leaf)
        prefetch_leaf_lines(m.leaf);
}

void as_prefetch_marked(as_tree *t, uint64_t k, as_mark m)
{
    if (t->n < prefetch_min)
        return;
    as_node *x = m.leaf;
    if (!x || !m.gen || x->gen != m.gen || !x->leaf || !x->n) { /* given back: descend */
        as_prefetch(t, k);
        return;
    }
    /* after splits and merges since the mark, k's leaf is usually the leaf itself or a
     * neighbour: give_hinted checks, and the give descends otherwise */
    int dir = k < x->key[0] ? -1 : k > x->key[x->n - 1] ? 1 : 0;
    as_node *c = dir < 0 ? x->prev : dir > 0 ? x->next : x;
    if (!c) {
        as_prefetch(t, k);
        return;
    }
    if (c != x)
        prefetch_leaf_lines(c);
    t->hint[t->nhint++ & 3] = (struct as_hint){k, x, m.gen, dir};
}

int as_lower_bound(const as_tree *t, uint64_t k, as_ent *e, as_iter *it)
{
    as_node *x = leaf_of(t, k);
    if (!x)
        return 0;
    int i = node_lb(x, k);
    if (i == x->n) { /* every key here is smaller: the answer starts the next leaf */
        x = x->next;
        i = 0;
        if (!x)
            return 0;
    }
    if (it)
        *it = (as_iter){x, i};
    return out(x, i, e);
}

int as_floor(const as_tree *t, uint64_t k, as_ent *e, as_iter *it)
{
    as_node *x = leaf_of(t, k);
    if (!x)
        return 0;
    int i = 0;
    while (i < x->n && x->key[i] <= k)
        i++;
    if (i == 0) { /* every key here is larger: the answer ends the previous leaf */
        x = x->prev;
        if (!x)
            return 0;
        i = x->n;
    }
    if (it)
        *it = (as_iter){x, i - 1};
    return out(x, i - 1, e);
}

int as_find(const as_tree *t, uint64_t k, as_ent *e)
{
    const as_node *x = leaf_of(t, k);
    if (!x)
        return 0;
    int i = node_lb(x, k);
    return i < x->n && x->key[i] == k ? out(x, i, e) : 0;
}

int as_first(const as_tree *t, as_ent *e, as_iter *it)
{
    as_node *x = t->root;
    if (!x)
        return 0;
    while (!x->leaf)
        x = KID(x, 0);
    if (it)
        *it = (as_iter){x, 0};
    return out(x, 0, e);
}

int as_last(const as_tree *t, as_ent *e, as_iter *it)
{
    as_node *x = t->root;
    if (!x)
        return 0;
    while (!x->leaf)
        x = KID(x, x->n - 1);
    if (it)
        *it = (as_iter){x, x->n - 1};
    return out(x, x->n - 1, e);
}

int as_next(as_iter *it, as_ent *e)
{
    if (!it->leaf)
        return 0;
    if (++it->i == it->leaf->n) {
        it->leaf = it->leaf->next;
        it->i = 0;
        if (!it->leaf)
            return 0;
    }
    return out(it->leaf, it->i, e);
}

int as_prev(as_iter *it, as_ent *e)
{
    if (!it->leaf)
        return 0;
    if (it->i-- == 0) {
        it->leaf = it->leaf->prev;
        if (!it->leaf)
            return 0;
        it->i = it->leaf->n - 1;
    }
    return out(it->leaf, it->i, e);
}

uint64_t as_max_len(const as_tree *t) { return t->max; }

void as_destroy(as_tree *t)
{
    recpool_destroy(&t->nodes); /* every node, in the tree or spare */
    recpool_destroy(&t->leaves);
    t->root = NULL;
    t->n = 0;
    t->max = 0;
    t->height = 0;
    memset(t->hint, 0, sizeof t->hint);
    t->nhint = 0;
}

/* ---- invariant check ---- */

typedef struct as_chk {
    int bad;
    size_t n;
    const as_node *last_leaf;
} as_chk;

/* Check the subtree x whose keys lie in [lo, hi) (a bound absent when its flag is 0); its
 * largest length. */
static uint64_t check_rec(const as_tree *t, const as_node *x, int depth, int has_lo, uint64_t lo,
                          int has_hi, uint64_t hi, as_chk *c)
{
    uint64_t m = 0;
    if (x->n < (x == t->root ? (x->leaf ? 1 : 2) : AS_MIN) || x->n >= AS_ORDER ||
        x->ptrs != (!x->leaf || !t->ranges))
        c->bad++;
    if (x->leaf) {
        if (depth != t->height || x->prev != c->last_leaf ||
            (c->last_leaf && c->last_leaf->next != x))
            c->bad++;
        c->last_leaf = x;
        for (int i = 0; i < x->n; i++) {
            uint64_t k = x->key[i];
            as_node *bp = NULL;
            if (t->bp)
                memcpy(&bp, (const char *)x->p[i] + t->bp_off, sizeof bp);
            if (bp != (t->bp ? x : NULL))
                c->bad++;
            if ((i && x->key[i - 1] >= k) || (has_lo && k < lo) || (has_hi && k >= hi))
                c->bad++;
            m = x->len[i] > m ? x->len[i] : m;
        }
        c->n += (size_t)x->n;
        return m;
    }
    for (int i = 0; i < x->n; i++) {
        if ((i > 1 && x->key[i - 1] >= x->key[i]) || KID(x, i)->parent != x)
            c->bad++;
        int hl = i ? 1 : has_lo, hh = i + 1 < x->n ? 1 : has_hi;
        uint64_t l = i ? x->key[i] : lo, h = i + 1 < x->n ? x->key[i + 1] : hi;
        uint64_t km = check_rec(t, KID(x, i), depth + 1, hl, l, hh, h, c);
        if (km != x->len[i])
            c->bad++;
        m = km > m ? km : m;
    }
    return m;
}

int as_check(const as_tree *t)
{
    as_chk c = {0, 0, NULL};
    if (!t->root)
        return t->n != 0 || t->height != 0 || t->max != 0;
    if (t->root->parent)
        c.bad++;
    uint64_t m = check_rec(t, t->root, 1, 0, 0, 0, 0, &c);
    if (c.n != t->n || (c.last_leaf && c.last_leaf->next) || m != t->max)
        c.bad++;
    return c.bad;
}
