/* test_addrset.c - the address set (models/addrset.c) against the treap with subtree maxima
 * (models/ordset.c) it replaces for first fit: seeded random inserts, removals, length changes,
 * key moves that keep the order (in place, or across a separator), first fits, entries changed
 * where a first fit found them (as_update_at), floors, lower bounds, finds and iteration both
 * ways, with both structures' invariant checks, at sizes that exercise splits, borrowing,
 * merging and a root that grows and shrinks; and all of it again for a ranges tree, whose
 * leaves hold no pointers. */
#include <CUnit/CUnit.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/addrset.h"
#include "../../models/ordset.h"
#include "testutil.h"

/* Item i owns the keys [i * 16, i * 16 + 16): moving its key inside them keeps the order. */
typedef struct item {
    os_node node; /* first: an os_node pointer is the item's */
    int in;
} item;

static int ranges_run; /* the run's tree is a ranges tree: every pointer NULL */

/* The treap's node and the set's answer agree (none from either, or the same item, key and
 * length; in a ranges tree the same key and length, and no pointer). */
static int same(const os_node *o, int found, const as_ent *a)
{
    if (!o || !found)
        return o == NULL && !found;
    return a->p == (ranges_run ? NULL : (const void *)o) && a->key == o->k1 && a->len == o->val;
}

/* What the set is given as an item's pointer. */
static void *ptr_of(item *x) { return ranges_run ? NULL : x; }

/* One run: `cap` items with lengths from [1, len_range]; `steps` random operations (filling
 * during the first third, draining during the last), every answer compared with the treap's;
 * invariant checks every check_every steps. */
static void run(uint64_t seed, size_t cap, size_t steps, uint64_t len_range, size_t check_every,
                int ranges)
{
    item *it = calloc(cap, sizeof *it);
    os_tree ot = {0};
    as_tree at = {.ranges = ranges};
    ranges_run = ranges;
    int bad = 0;
    for (size_t i = 0; i < cap; i++) {
        it[i].node.k1 = i * 16 + tu_rng(&seed) % 16;
        it[i].node.val = 1 + tu_rng(&seed) % len_range;
    }
    for (size_t s = 0; s < steps; s++) {
        uint64_t r = tu_rng(&seed);
        item *x = &it[r % cap];
        unsigned q = (unsigned)((r >> 40) % 4);
        int want_in = s < steps / 3 ? q != 0 : s > 2 * steps / 3 ? q == 0 : q & 1;
        if (want_in && !x->in) {
            os_insert(&ot, &x->node);
            as_insert(&at, x->node.k1, x->node.val, ptr_of(x));
            x->in = 1;
        } else if (!want_in && x->in) {
            os_remove(&ot, &x->node);
            if (as_remove(&at, x->node.k1) != 1)
                bad++;
            x->in = 0;
        } else if (!x->in) {
            if (as_remove(&at, x->node.k1) != 0 ||
                as_update(&at, x->node.k1, x->node.k1, 1, ptr_of(x)) != 0)
                bad++;
        } else if ((r >> 20) % 4 == 0) { /* a new length, and maybe a new key in its range */
            uint64_t o = x->node.k1, k = (r >> 24) % 2 ? (x->node.k1 & ~15ULL) + (r >> 28) % 16 : o;
            uint64_t len = 1 + tu_rng(&seed) % len_range;
            os_rekey_in_place(&x->node, k, 0);
            os_set_val(&ot, &x->node, len);
            if (as_update(&at, o, k, len, ptr_of(x)) != 1)
                bad++;
        } else if ((r >> 20) % 4 == 1) { /* a first fit taken whole, or changed where found */
            uint64_t need = 1 + tu_rng(&seed) % len_range;
            os_node *o = os_first_fit(&ot, need);
            as_ent a;
            as_pos pos;
            if (!same(o, as_first_fit(&at, need, &a, &pos), &a))
                bad++;
            else if (o && (r >> 30) % 2) {
                item *y = (item *)(void *)o;
                os_remove(&ot, o);
                y->in = 0;
                if (as_remove(&at, y->node.k1) != 1)
                    bad++;
            } else if (o) { /* a new key anywhere in its range: across a separator or not */
                item *y = (item *)(void *)o;
                uint64_t k = (y->node.k1 & ~15ULL) + (r >> 32) % 16;
                uint64_t len = 1 + tu_rng(&seed) % len_range;
                os_rekey_in_place(&y->node, k, 0);
                os_set_val(&ot, &y->node, len);
                as_update_at(&at, &pos, k, len, ptr_of(y));
            }
        }
        uint64_t k = tu_rng(&seed) % (cap * 16 + 32);
        as_prefetch(&at, k); /* a hint: nothing may change (every answer below is checked) */
        as_iter fi, li;
        as_ent f, l, e;
        int hf = as_floor(&at, k, &f, &fi), hl = as_lower_bound(&at, k, &l, &li);
        os_node *of = os_floor(&ot, k, 0), *ol = os_lower_bound(&ot, k, 0);
        if (!same(of, hf, &f) || !same(ol, hl, &l) ||
            !same(x->in ? &x->node : NULL, as_find(&at, x->node.k1, &e), &e))
            bad++;
        if (hf) { /* a few steps both ways from the floor */
            as_iter bn = fi, bp = fi;
            os_node *on = of, *op = of;
            for (int j = 0; j < 3; j++) {
                on = on ? os_next(on) : NULL;
                op = op ? os_prev(op) : NULL;
                if (!same(on, as_next(&bn, &e), &e) || !same(op, as_prev(&bp, &e), &e))
                    bad++;
            }
        }
        uint64_t need = 1 + tu_rng(&seed) % (len_range + 1);
        if (!same(os_first_fit(&ot, need), as_first_fit(&at, need, &e, NULL), &e) ||
            !same(os_last(&ot), as_last(&at, &e, NULL), &e))
            bad++;
        if (at.n != ot.n || as_max_len(&at) != (ot.root ? ot.root->aug : 0))
            bad++;
        if (s % check_every == 0 && (as_check(&at) || os_check(&ot)))
            bad++;
    }
    /* full iteration */
    as_iter i;
    as_ent a;
    os_node *o = os_first(&ot);
    for (int h = as_first(&at, &a, &i); h || o; h = as_next(&i, &a), o = o ? os_next(o) : NULL)
        if (!same(o, h, &a)) {
            bad++;
            break;
        }
    if (as_check(&at))
        bad++;
    /* drain completely: the root must collapse to empty */
    for (size_t j = 0; j < cap; j++)
        if (it[j].in && as_remove(&at, it[j].node.k1) != 1)
            bad++;
    if (at.n != 0 || at.root != NULL || as_check(&at) || as_first_fit(&at, 1, NULL, NULL))
        bad++;
    CU_ASSERT_EQUAL(bad, 0);
    as_destroy(&at);
    free(it);
}

static void test_small(void)
{
    for (uint64_t seed = 1; seed <= 20; seed++)
        run(seed, 1 + seed * 7, 2000, 6, 1, 0);
}

static void test_medium(void)
{
    run(42, 3000, 60000, 40, 97, 0);
    run(43, 3000, 60000, 1ULL << 40, 97, 0);
}

/* A ranges tree: leaves without pointers, through the same splits, borrows and merges. */
static void test_ranges(void)
{
    for (uint64_t seed = 1; seed <= 20; seed++)
        run(seed, 1 + seed * 7, 2000, 6, 1, 1);
    run(44, 3000, 60000, 40, 97, 1);
    run(45, 3000, 60000, 1ULL << 40, 97, 1);
}

static void test_large(void) { run(7, 200000, 600000, 1000, 50021, 0); }

/* A key moved in place across its leaf's separator is removed and inserted again; one moved
 * inside the leaf's range stays. Both must keep every answer. */
static void test_update_edges(void)
{
    as_tree t = {0};
    int v[400];
    for (int i = 0; i < 400; i++)
        as_insert(&t, (uint64_t)i * 10, (uint64_t)i, &v[i]);
    CU_ASSERT_EQUAL(as_check(&t), 0);
    CU_ASSERT(t.height >= 2);
    for (int i = 1; i < 400; i++) /* every key down by 9: each crosses or meets a separator */
        CU_ASSERT_EQUAL(as_update(&t, (uint64_t)i * 10, (uint64_t)i * 10 - 9, 1000 - (uint64_t)i,
                                  &v[i]), 1);
    CU_ASSERT_EQUAL(as_check(&t), 0);
    as_ent e;
    CU_ASSERT(as_first_fit(&t, 999, &e, NULL) && e.key == 1 && e.p == &v[1]);
    CU_ASSERT(as_floor(&t, 10, &e, NULL) && e.key == 1);
    CU_ASSERT(as_lower_bound(&t, 2, &e, NULL) && e.key == 11);
    CU_ASSERT_EQUAL(as_max_len(&t), 999);
    CU_ASSERT_FALSE(as_first_fit(&t, 1000, NULL, NULL));
    CU_ASSERT_EQUAL(as_update(&t, 5, 5, 1, NULL), 0);
    as_destroy(&t);
    CU_ASSERT_FALSE(as_first(&t, NULL, NULL));
    CU_ASSERT_EQUAL(as_check(&t), 0);
}

/* ---- free ranges kept merged (as_take, as_take_at, as_give) against a plain sorted array ---- */

typedef struct rng_ref {
    uint64_t *key, *len;
    size_t n;
} rng_ref;

/* Index of the first range of r with len >= need, or r->n. */
static size_t ref_first_fit(const rng_ref *r, uint64_t need)
{
    size_t i = 0;
    while (i < r->n && r->len[i] < need)
        i++;
    return i;
}

/* Range (key, len) inserted at index i / range i removed. */
static void ref_ins(rng_ref *r, size_t i, uint64_t key, uint64_t len)
{
    memmove(&r->key[i + 1], &r->key[i], (r->n - i) * sizeof r->key[0]);
    memmove(&r->len[i + 1], &r->len[i], (r->n - i) * sizeof r->len[0]);
    r->key[i] = key;
    r->len[i] = len;
    r->n++;
}

static void ref_del(rng_ref *r, size_t i)
{
    memmove(&r->key[i], &r->key[i + 1], (r->n - i - 1) * sizeof r->key[0]);
    memmove(&r->len[i], &r->len[i + 1], (r->n - i - 1) * sizeof r->len[0]);
    r->n--;
}

/* Carve [addr, addr + len) out of range i. */
static void ref_take(rng_ref *r, size_t i, uint64_t addr, uint64_t len)
{
    uint64_t s = r->key[i], end = s + r->len[i];
    if (addr > s) {
        r->len[i] = addr - s;
        if (end > addr + len) /* a range above stays too */
            ref_ins(r, i + 1, addr + len, end - addr - len);
        return;
    }
    if (end > addr + len) {
        r->key[i] = addr + len;
        r->len[i] = end - addr - len;
        return;
    }
    ref_del(r, i);
}

/* File [addr, addr + len), merged with the ranges that end at addr and start at addr + len. */
static void ref_give(rng_ref *r, uint64_t addr, uint64_t len)
{
    size_t i = 0;
    while (i < r->n && r->key[i] < addr)
        i++;
    int jp = i > 0 && r->key[i - 1] + r->len[i - 1] == addr;
    int jn = i < r->n && r->key[i] == addr + len;
    if (jp) {
        r->len[i - 1] += len + (jn ? r->len[i] : 0);
        if (jn)
            ref_del(r, i);
    } else if (jn) {
        r->key[i] = addr;
        r->len[i] += len;
    } else {
        ref_ins(r, i, addr, len);
    }
}

/* An arena of `space` units: blocks taken by first fit (through its position, or without) or
 * carved from inside a free range, and given back at random; every first fit, the largest
 * length and (every check_every steps) every range and the tree's invariants compared with the
 * sorted array. Small blocks in a large arena give a few thousand ranges: three levels of
 * 64-entry nodes. */
static void give_take_run(uint64_t seed, uint64_t space, uint64_t max_block, size_t steps,
                          size_t check_every, int ranges)
{
    as_tree t = {.ranges = ranges};
    rng_ref r = {calloc(space + 1, sizeof(uint64_t)), calloc(space + 1, sizeof(uint64_t)), 0};
    uint64_t *la = calloc(space + 1, sizeof *la), *ll = calloc(space + 1, sizeof *ll);
    size_t live = 0;
    int bad = 0, maxh = 0;
    as_insert(&t, 0, space, NULL);
    r.key[0] = 0;
    r.len[0] = space;
    r.n = 1;
    for (size_t s = 0; s < steps; s++) {
        uint64_t x = tu_rng(&seed);
        int give = live && (x % 8 < (s % 20000 < 12000 ? 3u : 5u)); /* fill, then drain, ... */
        if (give) {
            size_t v = (size_t)((x >> 8) % live);
            as_give(&t, la[v], ll[v]);
            ref_give(&r, la[v], ll[v]);
            la[v] = la[--live];
            ll[v] = ll[live];
        } else if ((x >> 8) % 5 == 0 && r.n) { /* carve from inside a free range */
            size_t i = (size_t)((x >> 16) % r.n);
            uint64_t off = (x >> 24) % r.len[i], len = 1 + (x >> 40) % (r.len[i] - off);
            len = len > max_block ? max_block : len;
            as_ent e;
            if (!as_floor(&t, r.key[i] + off, &e, NULL) || e.key != r.key[i] || e.len != r.len[i])
                bad++;
            else {
                as_take(&t, &e, r.key[i] + off, len);
                la[live] = r.key[i] + off;
                ll[live++] = len;
                ref_take(&r, i, r.key[i] + off, len);
            }
        } else {
            uint64_t need = 1 + (x >> 16) % max_block;
            size_t i = ref_first_fit(&r, need);
            as_ent e;
            as_pos pos;
            int found = as_first_fit(&t, need, &e, &pos);
            if (found != (i < r.n) || (found && (e.key != r.key[i] || e.len != r.len[i])))
                bad++;
            else if (found) {
                as_take_at(&t, (x >> 12) % 4 ? &pos : NULL, &e, e.key, need);
                la[live] = e.key;
                ll[live++] = need;
                ref_take(&r, i, e.key, need);
            }
        }
        uint64_t m = 0;
        for (size_t i = 0; i < r.n; i++)
            m = r.len[i] > m ? r.len[i] : m;
        if (t.n != r.n || as_max_len(&t) != m)
            bad++;
        maxh = t.height > maxh ? t.height : maxh;
        if (s % check_every == 0) {
            as_iter it;
            as_ent e;
            size_t i = 0;
            for (int h = as_first(&t, &e, &it); h; h = as_next(&it, &e), i++)
                if (i >= r.n || e.key != r.key[i] || e.len != r.len[i] || e.p != NULL)
                    bad++;
            if (i != r.n || as_check(&t))
                bad++;
        }
        if (bad)
            break;
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(maxh >= 3); /* the ranges filled three levels at some point */
    as_destroy(&t);
    free(r.key);
    free(r.len);
    free(la);
    free(ll);
}

static void test_give_take(void)
{
    give_take_run(11, 1 << 18, 24, 300000, 61, 1);
    give_take_run(12, 1 << 18, 24, 300000, 61, 0);
    give_take_run(13, 1 << 24, 3000, 240000, 59, 1);
}

void suite_addrset(void)
{
    TU_SUITE("addrset", {"updates across separators", test_update_edges},
             {"small trees against the treap", test_small},
             {"medium trees against the treap", test_medium},
             {"ranges trees (no pointers) against the treap", test_ranges},
             {"200k ranges against the treap", test_large},
             {"free ranges taken and given against a sorted array", test_give_take});
}
