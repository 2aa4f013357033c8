/* sizeset.c - free blocks by (size, address), split by size class (see sizeset.h).
 *
 * Class of a size s: s itself below 2^SS_BITS; else, with l = floor(log2 s), (l - SS_BITS + 1)
 * 2^SS_BITS plus the SS_BITS bits of s below its leading one. Classes grow with the size and
 * never overlap, so the order of (class, order inside the class) is the order of (size, address).
 * A class holds its keys either as one single (its tree empty) or in its tree (two or more, or
 * one left after removals): never both. used[] has a bit per class holding keys, used_top a bit
 * per word of used[] that is not zero: the next class with keys at or after c is at most two
 * bit scans away. */
#include "sizeset.h"

#include <stdlib.h>
#include <string.h>

#include "../sim/common.h"

#define SS_WORDS ((SS_CLASSES + 63) / 64)

typedef struct ss_one {
    uint64_t size, addr;
    void *val;               /* NULL: no single */
} ss_one;

struct ss_heap {
    recpool nodes;           /* node memory of every class tree */
    bt_tree cls[SS_CLASSES];
    ss_one one[SS_CLASSES];
};

static inline int ss_class(uint64_t size)
{
    if (size < (1u << SS_BITS))
        return (int)size;
    int l = 63 - __builtin_clzll(size);
    return (l - SS_BITS + 1) << SS_BITS | (int)((size >> (l - SS_BITS)) & ((1u << SS_BITS) - 1));
}

static inline int key_lt(uint64_t a1, uint64_t a2, uint64_t b1, uint64_t b2)
{
    return a1 < b1 || (a1 == b1 && a2 < b2);
}

static inline void mark(sizeset *s, int c)
{
    s->used[c >> 6] |= 1ULL << (c & 63);
    s->used_top |= 1ULL << (c >> 6);
}

static inline void unmark(sizeset *s, int c)
{
    s->used[c >> 6] &= ~(1ULL << (c & 63));
    if (!s->used[c >> 6])
        s->used_top &= ~(1ULL << (c >> 6));
}

/* First class >= c holding keys, or -1. */
static int next_class(const sizeset *s, int c)
{
    if (c >= SS_CLASSES)
        return -1;
    int w = c >> 6;
    uint64_t bits = s->used[w] & (~0ULL << (c & 63));
    if (bits)
        return w * 64 + __builtin_ctzll(bits);
    uint64_t top = s->used_top & (~0ULL << (w + 1)); /* w + 1 <= SS_WORDS < 64 */
    if (!top)
        return -1;
    w = __builtin_ctzll(top);
    return w * 64 + __builtin_ctzll(s->used[w]);
}

/* Last class <= c holding keys, or -1. */
static int prev_class(const sizeset *s, int c)
{
    if (c < 0)
        return -1;
    int w = c >> 6;
    uint64_t bits = s->used[w] & (~0ULL >> (63 - (c & 63)));
    if (bits)
        return w * 64 + 63 - __builtin_clzll(bits);
    uint64_t top = s->used_top & ((1ULL << w) - 1);
    if (!top)
        return -1;
    w = 63 - __builtin_clzll(top);
    return w * 64 + 63 - __builtin_clzll(s->used[w]);
}

static ss_heap *heap(sizeset *s)
{
    if (!s->heap) {
        s->heap = am_calloc(1, sizeof *s->heap);
        for (int i = 0; i < SS_CLASSES; i++)
            bt_use_pool(&s->heap->cls[i], &s->heap->nodes);
    }
    return s->heap;
}

void ss_destroy(sizeset *s)
{
    if (s->heap)
        recpool_destroy(&s->heap->nodes);
    free(s->heap);
    memset(s, 0, sizeof *s);
}

void ss_insert(sizeset *s, uint64_t size, uint64_t addr, void *val)
{
    int c = ss_class(size);
    ss_heap *h = heap(s);
    ss_one *o = &h->one[c];
    s->n++;
    if (!h->cls[c].n) {
        if (!o->val) { /* an empty class: the key becomes its single */
            *o = (ss_one){size, addr, val};
            mark(s, c);
            return;
        }
        bt_insert(&h->cls[c], o->size, o->addr, o->val); /* a second key: both go to the tree */
        o->val = NULL;
    }
    bt_insert(&h->cls[c], size, addr, val);
}

/* Take class c's single out; its value. */
static void *drop_single(sizeset *s, int c)
{
    ss_one *o = &s->heap->one[c];
    void *v = o->val;
    o->val = NULL;
    s->n--;
    unmark(s, c);
    return v;
}

/* Class c lost a key (from its tree). */
static inline void dropped(sizeset *s, int c)
{
    s->n--;
    if (!s->heap->cls[c].n)
        unmark(s, c);
}

void *ss_remove(sizeset *s, uint64_t size, uint64_t addr)
{
    if (!s->n)
        return NULL;
    int c = ss_class(size);
    ss_one *o = &s->heap->one[c];
    if (o->val) {
        if (o->size != size || o->addr != addr)
            return NULL;
        return drop_single(s, c);
    }
    if (!s->heap->cls[c].n)
        return NULL;
    void *v = bt_remove(&s->heap->cls[c], size, addr);
    if (v)
        dropped(s, c);
    return v;
}

void *ss_remove_at(sizeset *s, const ss_iter *it)
{
    if (it->single)
        return drop_single(s, it->c);
    void *v = bt_remove_at(&s->heap->cls[it->c], &it->b);
    dropped(s, it->c);
    return v;
}

/* The smallest (or with last, the largest) key of class c, which holds keys, at *it. */
static void *class_end(const sizeset *s, int c, ss_iter *it, int last)
{
    const ss_one *o = &s->heap->one[c];
    it->c = c;
    it->single = o->val != NULL;
    if (it->single) {
        it->b.leaf = NULL;
        return o->val;
    }
    const bt_tree *t = &s->heap->cls[c];
    return last ? bt_last(t, &it->b) : bt_first(t, &it->b);
}

void *ss_lower_bound(const sizeset *s, uint64_t size, uint64_t addr, ss_iter *it)
{
    if (!s->n)
        return NULL;
    ss_iter local;
    if (!it)
        it = &local;
    int c = ss_class(size);
    const ss_one *o = &s->heap->one[c];
    if (o->val) {
        if (!key_lt(o->size, o->addr, size, addr)) {
            it->c = c;
            it->single = 1;
            it->b.leaf = NULL;
            return o->val;
        }
    } else if (s->heap->cls[c].n) {
        void *v = bt_lower_bound(&s->heap->cls[c], size, addr, &it->b);
        if (v) {
            it->c = c;
            it->single = 0;
            return v;
        }
    }
    c = next_class(s, c + 1); /* every key of a later class is larger */
    return c < 0 ? NULL : class_end(s, c, it, 0);
}

void *ss_find(const sizeset *s, uint64_t size, uint64_t addr)
{
    if (!s->n)
        return NULL;
    int c = ss_class(size);
    const ss_one *o = &s->heap->one[c];
    if (o->val)
        return o->size == size && o->addr == addr ? o->val : NULL;
    return s->heap->cls[c].n ? bt_find(&s->heap->cls[c], size, addr) : NULL;
}

void ss_rekey_at(sizeset *s, const ss_iter *it, uint64_t size, uint64_t addr, void *val)
{
    int c = ss_class(size);
    if (it->single) {
        ss_one *o = &s->heap->one[it->c];
        if (c == it->c) { /* the single stays single */
            *o = (ss_one){size, addr, val};
            return;
        }
        drop_single(s, it->c);
    } else if (c == it->c) {
        bt_rekey_at(&s->heap->cls[c], &it->b, size, addr, val);
        return;
    } else {
        bt_remove_at(&s->heap->cls[it->c], &it->b);
        dropped(s, it->c);
    }
    ss_insert(s, size, addr, val);
}

void ss_rekey(sizeset *s, uint64_t osize, uint64_t oaddr, uint64_t size, uint64_t addr,
              void *val)
{
    int o = ss_class(osize), c = ss_class(size);
    ss_one *one = &s->heap->one[o];
    if (one->val) { /* the key is the class's single */
        if (o == c) {
            *one = (ss_one){size, addr, val};
            return;
        }
        drop_single(s, o);
    } else if (o == c) {
        bt_rekey(&s->heap->cls[c], osize, oaddr, size, addr, val);
        return;
    } else {
        bt_remove(&s->heap->cls[o], osize, oaddr);
        dropped(s, o);
    }
    ss_insert(s, size, addr, val);
}

void *ss_first(const sizeset *s, ss_iter *it)
{
    int c = s->n ? next_class(s, 0) : -1;
    ss_iter local;
    return c < 0 ? NULL : class_end(s, c, it ? it : &local, 0);
}

void *ss_last(const sizeset *s, ss_iter *it)
{
    int c = s->n ? prev_class(s, SS_CLASSES - 1) : -1;
    ss_iter local;
    return c < 0 ? NULL : class_end(s, c, it ? it : &local, 1);
}

uint64_t ss_last_size(const sizeset *s)
{
    int c = s->n ? prev_class(s, SS_CLASSES - 1) : -1;
    if (c < 0)
        return 0;
    const ss_one *o = &s->heap->one[c];
    return o->val ? o->size : bt_last_k1(&s->heap->cls[c]);
}

void *ss_next(const sizeset *s, ss_iter *it)
{
    if (it->c < 0)
        return NULL;
    if (!it->single) {
        void *v = bt_next(&it->b);
        if (v)
            return v;
    }
    int c = next_class(s, it->c + 1);
    if (c < 0) {
        it->c = -1; /* past the end */
        return NULL;
    }
    return class_end(s, c, it, 0);
}

void *ss_prev(const sizeset *s, ss_iter *it)
{
    if (it->c < 0)
        return NULL;
    if (!it->single) {
        void *v = bt_prev(&it->b);
        if (v)
            return v;
    }
    int c = prev_class(s, it->c - 1);
    if (c < 0) {
        it->c = -1;
        return NULL;
    }
    return class_end(s, c, it, 1);
}

uint64_t ss_size(const ss_iter *it, const sizeset *s)
{
    return it->single ? s->heap->one[it->c].size : bt_k1(&it->b);
}

uint64_t ss_addr(const ss_iter *it, const sizeset *s)
{
    return it->single ? s->heap->one[it->c].addr : bt_k2(&it->b);
}

int ss_check(const sizeset *s)
{
    int bad = 0;
    size_t n = 0;
    uint64_t top = 0;
    for (int w = 0; w < SS_WORDS; w++)
        if (s->used[w])
            top |= 1ULL << w;
    if (top != s->used_top)
        bad++;
    for (int c = 0; s->heap && c < SS_CLASSES; c++) {
        const bt_tree *t = &s->heap->cls[c];
        const ss_one *o = &s->heap->one[c];
        int marked = (int)(s->used[c >> 6] >> (c & 63) & 1);
        if (bt_check(t) || marked != (t->n > 0 || o->val != NULL) || (o->val && t->n) ||
            (o->val && ss_class(o->size) != c))
            bad++;
        bt_iter i;
        for (void *v = bt_first(t, &i); v; v = bt_next(&i))
            if (ss_class(bt_k1(&i)) != c)
                bad++;
        n += t->n + (o->val != NULL);
    }
    if (!s->heap && (s->used_top || s->n))
        bad++;
    return bad + (n != s->n);
}
