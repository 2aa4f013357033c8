/* test_addrset.c - the address set (models/addrset.c) against the treap with subtree maxima
 * (models/ordset.c) it replaces for first fit: seeded random inserts, removals, length changes,
 * key moves that keep the order (in place, or across a separator), first fits, entries changed
 * where a first fit found them (as_update_at), floors, lower bounds, finds and iteration both
 * ways, with both structures' invariant checks, at sizes that exercise splits, borrowing,
 * merging and a root that grows and shrinks; and all of it again for a ranges tree, whose
 * leaves hold no pointers. */
#include <CUnit/CUnit.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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

/* ---- back-pointers (bp): every record names the leaf that holds its entry ---- */

/* Item i owns the keys [i * 16, i * 16 + 16), as above. Its entry's record is rec[cur], the
 * record being the back-pointer itself (bp_off 0); an update may hand the entry to the other
 * record, whose back-pointer the tree must then set. */
typedef struct bp_item {
    uint64_t key, len;
    void *rec[2];
    int in, cur;
} bp_item;

#define BP_LEAF(x) ((x)->rec[(x)->cur])

/* The record an update passes: now and then the other one, cleared (r odd). */
static void *bp_rec(bp_item *x, uint64_t r)
{
    if (r & 1) {
        x->cur ^= 1;
        BP_LEAF(x) = NULL;
    }
    return &BP_LEAF(x);
}

/* The first item in key order (= index order) filed with len >= need, or NULL: first fit the
 * slow way. */
static bp_item *bp_first_fit(bp_item *it, size_t cap, uint64_t need)
{
    for (size_t i = 0; i < cap; i++)
        if (it[i].in && it[i].len >= need)
            return &it[i];
    return NULL;
}

/* A key anywhere in item x's own range: it may cross a leaf's edge or a separator. */
static uint64_t bp_new_key(const bp_item *x, uint64_t r) { return (x->key & ~15ULL) + r % 16; }

/* One run of a back-pointer tree: `cap` items, `steps` random operations, most of them through
 * the back-pointers (as_update_in, as_remove_in) as first_fit's free does, the others through
 * the descent or a first fit's position, which must keep the back-pointers too. After every
 * step as_check (which checks every record's back-pointer and every node's parent pointer, with
 * the largest lengths) and every answer against the items. A lost back-pointer update is
 * caught at the step that loses it. */
static void bp_run(uint64_t seed, size_t cap, size_t steps, uint64_t len_range)
{
    bp_item *it = calloc(cap, sizeof *it);
    as_tree t = {.bp = 1, .bp_off = 0};
    size_t n = 0;
    int bad = 0, maxh = 0;
    const uint64_t seed0 = seed;
    for (size_t i = 0; i < cap; i++) {
        it[i].key = i * 16 + tu_rng(&seed) % 16;
        it[i].len = 1 + tu_rng(&seed) % len_range;
    }
    for (size_t s = 0; s < steps && !bad; s++) {
        uint64_t r = tu_rng(&seed), len = 1 + tu_rng(&seed) % len_range;
        bp_item *x = &it[r % cap];
        unsigned q = (unsigned)((r >> 40) % 4);
        int want_in = s < steps / 3 ? q != 0 : s > 2 * steps / 3 ? q == 0 : q & 1;
        if (want_in && !x->in) {
            as_insert(&t, x->key, x->len, bp_rec(x, r >> 50));
            x->in = 1;
            n++;
        } else if (!want_in && x->in) {
            if ((r >> 20) % 8) /* through its leaf, as a free's merge removes it */
                as_remove_in(&t, BP_LEAF(x), x->key);
            else if (as_remove(&t, x->key) != 1)
                bad++;
            x->in = 0;
            n--;
        } else if (x->in && (r >> 20) % 3) { /* a new length and key, through its leaf */
            uint64_t k = (r >> 24) % 2 ? bp_new_key(x, r >> 28) : x->key;
            void *leaf = BP_LEAF(x);
            as_update_in(&t, leaf, x->key, k, len, bp_rec(x, r >> 50));
            x->key = k;
            x->len = len;
        } else if (x->in) { /* the same through the descent */
            uint64_t k = bp_new_key(x, r >> 28);
            if (as_update(&t, x->key, k, len, bp_rec(x, r >> 50)) != 1)
                bad++;
            x->key = k;
            x->len = len;
        } else { /* a first fit, taken whole or changed where it was found */
            uint64_t need = 1 + (r >> 24) % len_range;
            bp_item *y = bp_first_fit(it, cap, need);
            as_ent e;
            as_pos pos;
            int found = as_first_fit(&t, need, &e, &pos);
            if (found != (y != NULL) ||
                (y && (e.p != &BP_LEAF(y) || e.key != y->key || e.len != y->len)))
                bad++;
            else if (y && (r >> 30) % 2) {
                as_remove_at(&t, &pos);
                y->in = 0;
                n--;
            } else if (y) {
                uint64_t k = bp_new_key(y, r >> 32);
                as_update_at(&t, &pos, k, len, bp_rec(y, r >> 50));
                y->key = k;
                y->len = len;
            }
        }
        uint64_t m = 0;
        for (size_t i = 0; i < cap; i++)
            m = it[i].in && it[i].len > m ? it[i].len : m;
        uint64_t need = 1 + tu_rng(&seed) % (len_range + 1);
        bp_item *y = bp_first_fit(it, cap, need);
        as_ent e;
        int found = as_first_fit(&t, need, &e, NULL);
        if (t.n != n || as_max_len(&t) != m || found != (y != NULL) ||
            (y && e.p != &BP_LEAF(y)) || as_check(&t) ||
            (x->in && !as_leaf_has(BP_LEAF(x), x->key)))
            bad++;
        maxh = t.height > maxh ? t.height : maxh;
        if (bad)
            fprintf(stderr, "\nbp_run(%zu): step %zu of seed %" PRIu64 " went wrong\n", cap, s,
                    seed0);
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(cap < 5000 || maxh >= 3); /* three levels at some point */
    as_destroy(&t);
    free(it);
}

/* Small trees, whose root turns from a leaf to a node and back, and one of three levels. */
static void test_back_pointers(void)
{
    for (uint64_t seed = 1; seed <= 20; seed++)
        bp_run(seed, 1 + seed * 9, 3000, 6);
    bp_run(46, 6000, 40000, 40);
    bp_run(47, 6000, 40000, 1ULL << 40);
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
/* A give after its hint, as prealloc and platform give them (hints on every tree, whatever its
 * size): the leaf the block's range was taken from (its mark) prefetched, then read, or a
 * descent to the address (as_prefetch); now and then the mark of another block, or a hint of an
 * address no give follows. */
static void hint_give(as_tree *t, uint64_t addr, as_mark m, as_mark other, uint64_t x)
{
    switch (x % 5) {
    case 0:
        as_prefetch(t, addr);
        break;
    case 1:
    case 2:
        as_prefetch_mark(t, m);
        as_prefetch_marked(t, addr, m);
        break;
    case 3:
        as_prefetch_marked(t, addr, other);
        break;
    default:
        as_prefetch(t, addr ^ (x >> 8));
    }
}

static void give_take_run(uint64_t seed, uint64_t space, uint64_t max_block, size_t steps,
                          size_t check_every, int ranges, int hints)
{
    as_tree t = {.ranges = ranges};
    rng_ref r = {calloc(space + 1, sizeof(uint64_t)), calloc(space + 1, sizeof(uint64_t)), 0};
    uint64_t *la = calloc(space + 1, sizeof *la), *ll = calloc(space + 1, sizeof *ll);
    as_mark *lm = calloc(space + 1, sizeof *lm); /* where each live block's range was found */
    /* hinted gives wait 0 to 2 gives after their hint, with takes in between */
    uint64_t qa[3], ql[3];
    size_t live = 0, qn = 0;
    int bad = 0, maxh = 0;
    size_t hinted0 = as_hinted_gives();
    if (hints)
        as_set_prefetch_min(1);
    as_insert(&t, 0, space, NULL);
    r.key[0] = 0;
    r.len[0] = space;
    r.n = 1;
    for (size_t s = 0; s < steps; s++) {
        uint64_t x = tu_rng(&seed);
        int give = live && (x % 8 < (s % 20000 < 12000 ? 3u : 5u)); /* fill, then drain, ... */
        if (give) {
            size_t v = (size_t)((x >> 8) % live);
            if (!hints) {
                as_give(&t, la[v], ll[v]);
                ref_give(&r, la[v], ll[v]);
            } else {
                hint_give(&t, la[v], lm[v], lm[(x >> 16) % live], x >> 32);
                qa[qn] = la[v];
                ql[qn++] = ll[v];
                for (; qn > (x >> 24) % 3; qn--) { /* the oldest first */
                    as_give(&t, qa[0], ql[0]);
                    ref_give(&r, qa[0], ql[0]);
                    memmove(qa, qa + 1, (qn - 1) * sizeof qa[0]);
                    memmove(ql, ql + 1, (qn - 1) * sizeof ql[0]);
                }
            }
            la[v] = la[--live];
            ll[v] = ll[live];
            lm[v] = lm[live];
        } else if ((x >> 8) % 5 == 0 && r.n) { /* carve from inside a free range */
            size_t i = (size_t)((x >> 16) % r.n);
            uint64_t off = (x >> 24) % r.len[i], len = 1 + (x >> 40) % (r.len[i] - off);
            len = len > max_block ? max_block : len;
            as_ent e;
            if (!as_floor(&t, r.key[i] + off, &e, NULL) || e.key != r.key[i] || e.len != r.len[i])
                bad++;
            else {
                as_take(&t, &e, r.key[i] + off, len);
                lm[live] = (as_mark){NULL, 0};
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
                lm[live] = as_mark_at(&pos); /* before the take, which may free the leaf */
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
    if (hints)
        as_set_prefetch_min(0);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(maxh >= 3); /* the ranges filled three levels at some point */
    if (hints) /* a hinted path that always fell back would place the same: it must be used */
        CU_ASSERT(as_hinted_gives() > hinted0);
    as_destroy(&t);
    free(r.key);
    free(r.len);
    free(la);
    free(ll);
    free(lm);
}

static void test_give_take(void)
{
    give_take_run(11, 1 << 18, 24, 300000, 61, 1, 0);
    give_take_run(12, 1 << 18, 24, 300000, 61, 0, 0);
    give_take_run(13, 1 << 24, 3000, 240000, 59, 1, 0);
}

/* A hinted give that joins the last range of one leaf with the first of the next, which is at
 * its minimum fill: the first leaves it, so the general path must do it (borrowing or merging).
 * Ranges [10i, 10i + 5) in ascending order fill leaves of 32; the second is cut to the minimum. */
static void test_hinted_edges(void)
{
    enum { MIN_FILL = AS_ORDER / 4 }; /* addrset.c's AS_MIN */
    as_tree t = {.ranges = 1};
    for (uint64_t i = 0; i < 200; i++)
        as_insert(&t, 10 * i, 5, NULL);
    as_iter it;
    as_ent e;
    uint64_t last_l = 0, r_keys[AS_ORDER];
    int nr = 0;
    const void *l = NULL, *r = NULL;
    for (int h = as_first(&t, &e, &it); h; h = as_next(&it, &e)) {
        if (!l)
            l = it.leaf;
        if (it.leaf == l) {
            last_l = e.key;
        } else if (!r || it.leaf == r) {
            r = it.leaf;
            r_keys[nr++] = e.key;
        } else {
            break;
        }
    }
    CU_ASSERT_FATAL(nr > MIN_FILL);
    for (int k = nr - 1; k >= MIN_FILL; k--) /* the second leaf down to its minimum, from its end */
        CU_ASSERT(as_remove(&t, r_keys[k]) == 1);
    CU_ASSERT_EQUAL(as_check(&t), 0);
    as_set_prefetch_min(1);
    as_prefetch(&t, last_l + 5);
    size_t hinted0 = as_hinted_gives();
    as_give(&t, last_l + 5, 5); /* [last_l, r_keys[0] + 5) in one range */
    CU_ASSERT_EQUAL(as_hinted_gives(), hinted0); /* the general path did it */
    as_set_prefetch_min(0);
    CU_ASSERT_EQUAL(as_check(&t), 0);
    CU_ASSERT(as_find(&t, last_l, &e) && e.len == 15);
    CU_ASSERT_FALSE(as_find(&t, r_keys[0], NULL));
    CU_ASSERT_EQUAL(t.n, 200 - (size_t)(nr - MIN_FILL) - 1);
    as_destroy(&t);
}

/* A back-pointer that names a leaf given back (a merge took its entries): as_leaf_has must say
 * no without reading the leaf's count, whose bytes the pool's free-list link now holds. The
 * link is whatever the pool had spare; one that reads as a large count (a heap address whose
 * low half is below 2^31) is written over it for the second check, and the real one put back.
 * Ranges [10i, 10i + 5) in ascending order fill leaves of 32; the second is cut until it merges
 * with the first. */
static void test_stale_leaf(void)
{
    enum { MIN_FILL = AS_ORDER / 4 }; /* addrset.c's AS_MIN */
    as_tree t = {.ranges = 1};
    for (uint64_t i = 0; i < 200; i++)
        as_insert(&t, 10 * i, 5, NULL);
    as_iter it;
    as_ent e;
    uint64_t r_keys[AS_ORDER];
    int nr = 0;
    void *l = NULL, *r = NULL;
    for (int h = as_first(&t, &e, &it); h && nr < AS_ORDER; h = as_next(&it, &e)) {
        if (!l)
            l = it.leaf;
        else if (it.leaf != l && (!r || it.leaf == r))
            r_keys[nr++] = e.key, r = it.leaf;
        else if (it.leaf != l)
            break;
    }
    CU_ASSERT_FATAL(nr > MIN_FILL);
    if (nr <= MIN_FILL || !r) /* not reached (r is set with r_keys[0]): for the compiler, which */
        return;               /* cannot see the fatal assertion's jump */
    for (int k = nr - 1; k >= MIN_FILL; k--) /* down to the minimum: still r's */
        CU_ASSERT(as_remove(&t, r_keys[k]) == 1);
    CU_ASSERT(as_leaf_has(r, r_keys[0]));
    CU_ASSERT(as_remove(&t, r_keys[MIN_FILL - 1]) == 1); /* r merges into l and is given back */
    CU_ASSERT_EQUAL(as_check(&t), 0);
    CU_ASSERT(as_find(&t, r_keys[0], NULL));
    CU_ASSERT_FALSE(as_leaf_has(r, r_keys[0]));
    uint64_t link, junk = (uint64_t)0x5555 << 32 | 0x12345678;
    memcpy(&link, r, sizeof link);
    memcpy(r, &junk, sizeof junk);
    CU_ASSERT_FALSE(as_leaf_has(r, r_keys[0]));
    memcpy(r, &link, sizeof link);
    as_destroy(&t);
}

/* The same with the gives' hints (prealloc's marks, platform's descents) at every size, and
 * every range and invariant checked after every step: a give the hint places wrongly, or a
 * largest length or parent pointer it leaves stale, fails at that step. */
static void test_hinted_gives(void)
{
    give_take_run(14, 1 << 18, 24, 160000, 1, 1, 1);
    give_take_run(15, 1 << 24, 3000, 160000, 1, 1, 1);
}

void suite_addrset(void)
{
    TU_SUITE("addrset", {"updates across separators", test_update_edges},
             {"small trees against the treap", test_small},
             {"medium trees against the treap", test_medium},
             {"ranges trees (no pointers) against the treap", test_ranges},
             {"200k ranges against the treap", test_large},
             {"free ranges taken and given against a sorted array", test_give_take},
             {"gives after their hints against a sorted array", test_hinted_gives},
             {"a hinted give that would empty a leaf below its minimum", test_hinted_edges},
             {"back-pointers through every change, checked at every step", test_back_pointers},
             {"a back-pointer to a leaf given back", test_stale_leaf});
}
