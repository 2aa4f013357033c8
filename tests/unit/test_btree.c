/* test_btree.c - the B+-tree (models/btree.c) against the treap (models/ordset.c) it replaces in
 * the free sets: seeded random inserts, removals, lower bounds, floors, first/last and
 * iteration in both directions, removal at an iterator, re-keying (inside a leaf and across
 * leaves), with both structures' invariant checks, at sizes that exercise splits, borrowing,
 * merging and a root that grows and shrinks. */
#include <CUnit/CUnit.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../models/btree.h"
#include "../../models/ordset.h"
#include "testutil.h"

typedef struct item {
    os_node node; /* first: an os_node pointer is the item's */
    int in;
} item;

/* One run: `cap` items with k1 from [0, k1_range) (many ties, as sizes have) and distinct k2;
 * `steps` random operations (filling during the first third, draining during the last),
 * comparing every answer with the treap's; invariant checks every check_every steps. */
static void run(uint64_t seed, size_t cap, size_t steps, uint64_t k1_range, size_t check_every)
{
    item *it = calloc(cap, sizeof *it);
    os_tree ot = {.no_aug = 1};
    bt_tree bt = {0};
    int bad = 0;
    for (size_t i = 0; i < cap; i++) {
        it[i].node.k1 = tu_rng(&seed) % k1_range;
        it[i].node.k2 = i * 7 + 3;
    }
    for (size_t s = 0; s < steps; s++) {
        uint64_t r = tu_rng(&seed);
        item *x = &it[r % cap];
        unsigned q = (unsigned)((r >> 40) % 4);
        int want_in = s < steps / 3 ? q != 0 : s > 2 * steps / 3 ? q == 0 : q & 1;
        if (want_in && !x->in) {
            os_insert(&ot, &x->node);
            bt_insert(&bt, x->node.k1, x->node.k2, x);
            x->in = 1;
        } else if (!want_in && x->in) {
            os_remove(&ot, &x->node);
            if (bt_remove(&bt, x->node.k1, x->node.k2) != x)
                bad++;
            x->in = 0;
        } else if (!x->in && bt_remove(&bt, x->node.k1, x->node.k2) != NULL) {
            bad++;
        } else if ((r >> 20) % 8 == 0) { /* a best-fit take: remove the lower bound of a key */
            uint64_t t1 = tu_rng(&seed) % (k1_range + 1), t2 = tu_rng(&seed) % (cap * 7 + 8);
            item *a = (item *)(void *)os_lower_bound(&ot, t1, t2);
            if (a) {
                os_remove(&ot, &a->node);
                a->in = 0;
            }
            if (bt_remove_lower_bound(&bt, t1, t2) != a)
                bad++;
        } else if ((r >> 20) % 8 == 1) { /* a take at an iterator (lower bound, a step on) */
            uint64_t t1 = tu_rng(&seed) % (k1_range + 1), t2 = tu_rng(&seed) % (cap * 7 + 8);
            os_node *on = os_lower_bound(&ot, t1, t2);
            bt_iter at;
            void *bv = bt_lower_bound(&bt, t1, t2, &at);
            if (on && (r >> 24) % 2) {
                on = os_next(on);
                bv = bt_next(&at);
            }
            if ((void *)on != bv)
                bad++;
            else if (on) {
                item *a = (item *)(void *)on;
                os_remove(&ot, &a->node);
                a->in = 0;
                if (bt_remove_at(&bt, &at) != a)
                    bad++;
            }
        } else if ((r >> 20) % 8 == 2 && x->in) { /* a block grew or shrank: re-key it */
            uint64_t d = tu_rng(&seed), k1 = x->node.k1;
            if (d % 2) /* near the old key (a move inside its leaf), or anywhere */
                k1 = (d >> 8) % 2 ? k1 + (d >> 16) % 4 : k1 - (k1 ? (d >> 16) % (k1 + 1) % 4 : 0);
            else
                k1 = (d >> 8) % k1_range;
            uint64_t o1 = x->node.k1;
            os_remove(&ot, &x->node);
            x->node.k1 = k1; /* k2 is the item's own: the new key is absent */
            os_insert(&ot, &x->node);
            bt_rekey(&bt, o1, x->node.k2, k1, x->node.k2, x);
        } else if ((r >> 20) % 8 == 3) { /* a block's entry handed to another (a split's rest) */
            uint64_t t1 = tu_rng(&seed) % (k1_range + 1), t2 = tu_rng(&seed) % (cap * 7 + 8);
            item *y = &it[tu_rng(&seed) % cap];
            bt_iter at;
            item *a = (item *)(void *)os_lower_bound(&ot, t1, t2);
            int same = (void *)a == bt_lower_bound(&bt, t1, t2, &at);
            if (same && a && (r >> 26) % 2) { /* a step on: the leaf's range may be unknown */
                a = (item *)(void *)os_next(&a->node);
                same = (void *)a == bt_next(&at);
            }
            if (!same)
                bad++;
            else if (a && !y->in) {
                if ((r >> 24) % 2) /* near the old key */
                    y->node.k1 = a->node.k1 - (a->node.k1 && (r >> 25) % 2);
                os_remove(&ot, &a->node);
                a->in = 0;
                os_insert(&ot, &y->node);
                y->in = 1;
                bt_rekey_at(&bt, &at, y->node.k1, y->node.k2, y);
            }
        }
        uint64_t q1 = tu_rng(&seed) % (k1_range + 1), q2 = tu_rng(&seed) % (cap * 7 + 8);
        bt_iter bi;
        item *a = (item *)(void *)os_lower_bound(&ot, q1, q2);
        item *b = bt_lower_bound(&bt, q1, q2, &bi);
        if (a != b || (b && (bt_k1(&bi) != b->node.k1 || bt_k2(&bi) != b->node.k2 ||
                             bt_val(&bi) != b)))
            bad++;
        if (b) { /* a few steps both ways from the lower bound */
            os_node *on = &a->node, *op = &a->node;
            bt_iter bn = bi, bp = bi;
            for (int k = 0; k < 3; k++) {
                on = on ? os_next(on) : NULL;
                op = op ? os_prev(op) : NULL;
                if ((void *)on != bt_next(&bn) || (void *)op != bt_prev(&bp))
                    bad++;
            }
        }
        { /* the floor: the treap's key before the first one past (q1, q2), or its last */
            os_node *past = os_lower_bound(&ot, q1, q2 + 1);
            os_node *fl = past ? os_prev(past) : os_last(&ot);
            bt_iter fi;
            void *fv = bt_floor(&bt, q1, q2, &fi);
            if ((void *)fl != fv || (fv && (bt_val(&fi) != fv || bt_k1(&fi) != fl->k1 ||
                                            bt_k2(&fi) != fl->k2)))
                bad++;
            if (fv && (void *)past != bt_next(&fi)) /* its position steps on to the next key */
                bad++;
        }
        if ((void *)os_first(&ot) != bt_first(&bt, NULL) ||
            (void *)os_last(&ot) != bt_last(&bt, NULL))
            bad++;
        if (bt.n != ot.n || bt_find(&bt, x->node.k1, x->node.k2) != (x->in ? x : NULL))
            bad++;
        if (s % check_every == 0 && (bt_check(&bt) || os_check(&ot)))
            bad++;
    }
    /* full iteration both ways */
    bt_iter i;
    os_node *o = os_first(&ot);
    for (void *v = bt_first(&bt, &i); v || o; v = bt_next(&i), o = o ? os_next(o) : NULL)
        if (v != (void *)o) {
            bad++;
            break;
        }
    o = os_last(&ot);
    for (void *v = bt_last(&bt, &i); v || o; v = bt_prev(&i), o = o ? os_prev(o) : NULL)
        if (v != (void *)o) {
            bad++;
            break;
        }
    if (bt_check(&bt))
        bad++;
    /* drain completely: the root must collapse to empty */
    for (size_t k = 0; k < cap; k++)
        if (it[k].in && bt_remove(&bt, it[k].node.k1, it[k].node.k2) != &it[k])
            bad++;
    if (bt.n != 0 || bt.root != NULL || bt_check(&bt))
        bad++;
    CU_ASSERT_EQUAL(bad, 0);
    bt_destroy(&bt);
    free(it);
}

static void test_small(void)
{
    for (uint64_t seed = 1; seed <= 20; seed++)
        run(seed, 1 + seed * 3, 2000, 5, 1);
}

static void test_medium(void)
{
    run(42, 3000, 60000, 40, 97);
    run(43, 3000, 60000, 1ULL << 40, 97);
}

static void test_large(void) { run(7, 200000, 600000, 1000, 50021); }

static void test_empty(void)
{
    bt_tree t = {0};
    bt_iter i;
    int v;
    CU_ASSERT_PTR_NULL(bt_first(&t, &i));
    CU_ASSERT_PTR_NULL(bt_last(&t, NULL));
    CU_ASSERT_PTR_NULL(bt_lower_bound(&t, 0, 0, &i));
    CU_ASSERT_PTR_NULL(bt_floor(&t, 0, 0, &i));
    CU_ASSERT_PTR_NULL(bt_remove(&t, 1, 2));
    CU_ASSERT_EQUAL(bt_check(&t), 0);
    bt_insert(&t, 5, 5, &v);
    CU_ASSERT_PTR_NULL(bt_lower_bound(&t, 5, 6, NULL));
    CU_ASSERT_PTR_EQUAL(bt_lower_bound(&t, 5, 5, NULL), &v);
    CU_ASSERT_PTR_NULL(bt_floor(&t, 5, 4, NULL));
    CU_ASSERT_PTR_NULL(bt_floor(&t, 4, 9, NULL));
    CU_ASSERT_PTR_EQUAL(bt_floor(&t, 5, 5, NULL), &v);
    CU_ASSERT_PTR_EQUAL(bt_floor(&t, 5, 6, &i), &v);
    CU_ASSERT_PTR_NULL(bt_next(&i));
    CU_ASSERT_PTR_EQUAL(bt_remove(&t, 5, 5), &v);
    CU_ASSERT_EQUAL(bt_check(&t), 0);
    bt_destroy(&t);
}

void suite_btree(void)
{
    TU_SUITE("btree", {"empty and single key", test_empty},
             {"small trees against the treap", test_small},
             {"medium trees against the treap", test_medium},
             {"200k keys against the treap", test_large});
}
