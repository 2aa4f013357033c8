/* test_sizeset.c - the size-class free set (models/sizeset.c) against the treap
 * (models/ordset.c) holding the same keys: seeded random insertions, removals by key and at a
 * position, lower bounds, re-keying by key and at a position (a class's single moving, staying,
 * or going to a tree), first and last, steps both ways across classes, the largest size, with
 * the set's invariant check. Sizes come from narrow ranges (many keys in one class, a tree) and
 * wide ones (one key per class, a single), below 16 too. */
#include <CUnit/CUnit.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../models/ordset.h"
#include "../../models/sizeset.h"
#include "testutil.h"

typedef struct item {
    os_node node; /* first: an os_node pointer is the item's; k1 size, k2 address */
    int in;
} item;

/* A size from the run's mix: 0 narrow (one class), 1 spread over many classes, 2 any. */
static uint64_t a_size(uint64_t *seed, int mix)
{
    uint64_t r = tu_rng(seed);
    switch (mix) {
    case 0: return 4096 + r % 64;
    case 1: return (1ULL << (r % 40)) + (r >> 40) % 1024;
    default: return (r >> 8) % 3 ? r % 40 : r >> (r % 64);
    }
}

/* The set's position at (k1, k2) agrees with the treap's node there. */
static int same_at(const sizeset *s, const ss_iter *it, const item *a)
{
    return ss_size(it, s) == a->node.k1 && ss_addr(it, s) == a->node.k2;
}

static void run(uint64_t seed, size_t cap, size_t steps, int mix, size_t check_every)
{
    item *it = calloc(cap, sizeof *it);
    os_tree ot = {.no_aug = 1};
    sizeset ss = {0};
    int bad = 0;
    for (size_t i = 0; i < cap; i++) {
        it[i].node.k1 = a_size(&seed, mix);
        it[i].node.k2 = i * 7 + 3; /* the item's own: every key is distinct */
    }
    for (size_t s = 0; s < steps; s++) {
        uint64_t r = tu_rng(&seed);
        item *x = &it[r % cap];
        unsigned op = (unsigned)((r >> 20) % 8);
        int fill = s < steps / 3 ? 3 : s > 2 * steps / 3 ? 1 : 2; /* of 4: insert more or less */
        if (op < 3 && !x->in && (r >> 40) % 4 < (unsigned)fill) {
            os_insert(&ot, &x->node);
            ss_insert(&ss, x->node.k1, x->node.k2, x);
            x->in = 1;
        } else if (op < 3 && x->in) {
            os_remove(&ot, &x->node);
            if (ss_remove(&ss, x->node.k1, x->node.k2) != x)
                bad++;
            x->in = 0;
        } else if (op == 3 && !x->in) {
            if (ss_remove(&ss, x->node.k1, x->node.k2) != NULL || ss_find(&ss, x->node.k1,
                                                                         x->node.k2))
                bad++;
        } else if (op == 4 && x->in) { /* a block grew or shrank: re-key it by its old key */
            uint64_t o1 = x->node.k1, d = tu_rng(&seed);
            os_remove(&ot, &x->node);
            x->node.k1 = d % 2 ? a_size(&seed, mix) : o1 + d % 5 - (o1 >= 2 ? 2 : 0);
            os_insert(&ot, &x->node);
            ss_rekey(&ss, o1, x->node.k2, x->node.k1, x->node.k2, x);
        } else if (op >= 5) { /* a lower bound, maybe a step on, then a take, a hand-over or a
                               * re-key at that position */
            uint64_t q1 = a_size(&seed, mix), q2 = tu_rng(&seed) % (cap * 7 + 8);
            ss_iter at;
            item *a = (item *)(void *)os_lower_bound(&ot, q1, q2);
            item *b = ss_lower_bound(&ss, q1, q2, &at);
            if (a != b || (a && !same_at(&ss, &at, a))) {
                bad++;
                continue;
            }
            if (a && (r >> 30) % 3 == 0) {
                a = (item *)(void *)os_next(&a->node);
                if ((void *)a != ss_next(&ss, &at)) {
                    bad++;
                    continue;
                }
            }
            if (!a)
                continue;
            item *y = &it[tu_rng(&seed) % cap];
            if (op == 5) {
                os_remove(&ot, &a->node);
                a->in = 0;
                if (ss_remove_at(&ss, &at) != a)
                    bad++;
            } else if (op == 6 && !y->in) { /* a split's rest takes the entry */
                if ((r >> 32) % 2)
                    y->node.k1 = a->node.k1 - (a->node.k1 > 0);
                os_remove(&ot, &a->node);
                a->in = 0;
                os_insert(&ot, &y->node);
                y->in = 1;
                ss_rekey_at(&ss, &at, y->node.k1, y->node.k2, y);
            } else if (op == 7) {
                os_remove(&ot, &a->node);
                a->node.k1 = (r >> 33) % 2 ? a_size(&seed, mix) : a->node.k1 + (r >> 34) % 3;
                os_insert(&ot, &a->node);
                ss_rekey_at(&ss, &at, a->node.k1, a->node.k2, a);
            }
        }
        /* answers after every step: size, first and last, a lower bound and steps both ways */
        if (ss.n != ot.n || (void *)os_first(&ot) != ss_first(&ss, NULL) ||
            (void *)os_last(&ot) != ss_last(&ss, NULL) ||
            ss_last_size(&ss) != (ot.n ? os_last(&ot)->k1 : 0) ||
            ss_find(&ss, x->node.k1, x->node.k2) != (x->in ? x : NULL))
            bad++;
        uint64_t q1 = a_size(&seed, mix), q2 = tu_rng(&seed) % (cap * 7 + 8);
        ss_iter bi;
        item *a = (item *)(void *)os_lower_bound(&ot, q1, q2);
        if ((void *)a != ss_lower_bound(&ss, q1, q2, &bi))
            bad++;
        else if (a) {
            os_node *on = &a->node, *opv = &a->node;
            ss_iter bn = bi, bp = bi;
            for (int k = 0; k < 3; k++) {
                on = on ? os_next(on) : NULL;
                opv = opv ? os_prev(opv) : NULL;
                if ((void *)on != ss_next(&ss, &bn) || (void *)opv != ss_prev(&ss, &bp))
                    bad++;
            }
        }
        if (s % check_every == 0 && ss_check(&ss))
            bad++;
    }
    /* full iteration both ways */
    ss_iter i;
    os_node *o = os_first(&ot);
    for (void *v = ss_first(&ss, &i); v || o; v = ss_next(&ss, &i), o = o ? os_next(o) : NULL)
        if (v != (void *)o) {
            bad++;
            break;
        }
    o = os_last(&ot);
    for (void *v = ss_last(&ss, &i); v || o; v = ss_prev(&ss, &i), o = o ? os_prev(o) : NULL)
        if (v != (void *)o) {
            bad++;
            break;
        }
    for (size_t k = 0; k < cap; k++) /* drain: every class empties */
        if (it[k].in && ss_remove(&ss, it[k].node.k1, it[k].node.k2) != &it[k])
            bad++;
    if (ss.n != 0 || ss_first(&ss, NULL) || ss_last_size(&ss) || ss_check(&ss))
        bad++;
    CU_ASSERT_EQUAL(bad, 0);
    ss_destroy(&ss);
    free(it);
}

static void test_small(void)
{
    for (uint64_t seed = 1; seed <= 30; seed++)
        run(seed, 1 + seed * 2, 3000, (int)(seed % 3), 1);
}

static void test_mixes(void)
{
    for (int mix = 0; mix < 3; mix++)
        run(100 + (uint64_t)mix, 2000, 60000, mix, 97);
}

static void test_large(void) { run(7, 100000, 400000, 1, 40009); }

static void test_empty(void)
{
    sizeset s = {0};
    ss_iter i;
    int v, w;
    CU_ASSERT_PTR_NULL(ss_first(&s, &i));
    CU_ASSERT_PTR_NULL(ss_last(&s, NULL));
    CU_ASSERT_PTR_NULL(ss_lower_bound(&s, 0, 0, &i));
    CU_ASSERT_PTR_NULL(ss_remove(&s, 1, 2));
    CU_ASSERT_EQUAL(ss_last_size(&s), 0);
    CU_ASSERT_EQUAL(ss_check(&s), 0);
    ss_insert(&s, 5, 5, &v);              /* a single */
    CU_ASSERT_PTR_NULL(ss_lower_bound(&s, 5, 6, NULL));
    CU_ASSERT_PTR_EQUAL(ss_lower_bound(&s, 5, 5, NULL), &v);
    ss_insert(&s, 5, 9, &w);              /* the same class: both in its tree */
    CU_ASSERT_PTR_EQUAL(ss_lower_bound(&s, 5, 6, NULL), &w);
    CU_ASSERT_EQUAL(ss_check(&s), 0);
    ss_rekey(&s, 5, 9, 1ULL << 40, 9, &w); /* to a class of its own */
    CU_ASSERT_EQUAL(ss_last_size(&s), 1ULL << 40);
    CU_ASSERT_PTR_EQUAL(ss_remove(&s, 5, 5), &v);
    CU_ASSERT_PTR_EQUAL(ss_remove(&s, 1ULL << 40, 9), &w);
    CU_ASSERT_EQUAL(s.n, 0);
    CU_ASSERT_EQUAL(ss_check(&s), 0);
    ss_destroy(&s);
}

void suite_sizeset(void)
{
    TU_SUITE("sizeset", {"empty, a single, a class tree", test_empty},
             {"small sets against the treap", test_small},
             {"narrow, spread and any sizes against the treap", test_mixes},
             {"100k keys against the treap", test_large});
}
