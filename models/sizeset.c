/* sizeset.c - free blocks by (size, address), split by size class (see sizeset.h).
 *
 * Class of a size s: s itself below 16; else, with l = floor(log2 s), 16 (l - 3) plus the four
 * bits of s below its leading one. Classes grow with the size and never overlap, so the order of
 * (class, tree order) is the order of (size, address). used[] has a bit per class holding keys,
 * summary a bit per word of used[] that is not zero: the next class with keys at or after c is
 * at most two bit scans away. */
#include "sizeset.h"

#include <stdlib.h>
#include <string.h>

#include "../sim/common.h"

#define SS_WORDS ((SS_CLASSES + 63) / 64)

static inline int ss_class(uint64_t size)
{
    if (size < 16)
        return (int)size;
    int l = 63 - __builtin_clzll(size);
    return (l - 3) * 16 + (int)((size >> (l - 4)) & 15);
}

static void mark(sizeset *s, int c)
{
    s->used[c >> 6] |= 1ULL << (c & 63);
    s->used_top |= 1ULL << (c >> 6);
}

static void unmark(sizeset *s, int c)
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
    uint64_t top = w + 1 < 64 ? s->used_top & (~0ULL << (w + 1)) : 0;
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

struct ss_heap {
    recpool nodes;           /* node memory of every class tree */
    bt_tree cls[SS_CLASSES];
};

static bt_tree *tree(sizeset *s, int c)
{
    if (!s->heap) {
        s->heap = am_calloc(1, sizeof *s->heap);
        for (int i = 0; i < SS_CLASSES; i++)
            bt_use_pool(&s->heap->cls[i], &s->heap->nodes);
        s->cls = s->heap->cls;
    }
    return &s->cls[c];
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
    bt_tree *t = tree(s, c);
    if (!t->n)
        mark(s, c);
    bt_insert(t, size, addr, val);
    s->n++;
}

/* A class tree lost a key. */
static void dropped(sizeset *s, int c)
{
    s->n--;
    if (!s->cls[c].n)
        unmark(s, c);
}

void *ss_remove(sizeset *s, uint64_t size, uint64_t addr)
{
    int c = ss_class(size);
    if (!s->cls || !s->cls[c].n)
        return NULL;
    void *v = bt_remove(&s->cls[c], size, addr);
    if (v)
        dropped(s, c);
    return v;
}

void *ss_remove_at(sizeset *s, const ss_iter *it)
{
    void *v = bt_remove_at(&s->cls[it->c], &it->b);
    dropped(s, it->c);
    return v;
}

void *ss_lower_bound(const sizeset *s, uint64_t size, uint64_t addr, ss_iter *it)
{
    if (!s->n)
        return NULL;
    int c = ss_class(size);
    ss_iter local;
    if (!it)
        it = &local;
    if (s->cls[c].n) {
        void *v = bt_lower_bound(&s->cls[c], size, addr, &it->b);
        if (v) {
            it->c = c;
            return v;
        }
    }
    c = next_class(s, c + 1); /* every key of a later class is larger */
    if (c < 0)
        return NULL;
    it->c = c;
    return bt_first(&s->cls[c], &it->b);
}

void *ss_find(const sizeset *s, uint64_t size, uint64_t addr)
{
    int c = ss_class(size);
    return s->cls && s->cls[c].n ? bt_find(&s->cls[c], size, addr) : NULL;
}

void ss_rekey_at(sizeset *s, const ss_iter *it, uint64_t size, uint64_t addr, void *val)
{
    int c = ss_class(size);
    if (c == it->c) {
        bt_rekey_at(&s->cls[c], &it->b, size, addr, val);
        return;
    }
    bt_remove_at(&s->cls[it->c], &it->b);
    dropped(s, it->c);
    ss_insert(s, size, addr, val);
}

void ss_rekey(sizeset *s, uint64_t osize, uint64_t oaddr, uint64_t size, uint64_t addr,
              void *val)
{
    int o = ss_class(osize), c = ss_class(size);
    if (o == c) {
        bt_rekey(&s->cls[c], osize, oaddr, size, addr, val);
        return;
    }
    bt_remove(&s->cls[o], osize, oaddr);
    dropped(s, o);
    ss_insert(s, size, addr, val);
}

void *ss_first(const sizeset *s, ss_iter *it)
{
    int c = s->n ? next_class(s, 0) : -1;
    if (c < 0)
        return NULL;
    ss_iter local;
    if (!it)
        it = &local;
    it->c = c;
    return bt_first(&s->cls[c], &it->b);
}

void *ss_last(const sizeset *s, ss_iter *it)
{
    int c = s->n ? prev_class(s, SS_CLASSES - 1) : -1;
    if (c < 0)
        return NULL;
    ss_iter local;
    if (!it)
        it = &local;
    it->c = c;
    return bt_last(&s->cls[c], &it->b);
}

uint64_t ss_last_size(const sizeset *s)
{
    int c = s->n ? prev_class(s, SS_CLASSES - 1) : -1;
    return c < 0 ? 0 : bt_last_k1(&s->cls[c]);
}

void *ss_next(const sizeset *s, ss_iter *it)
{
    if (!it->b.leaf)
        return NULL;
    void *v = bt_next(&it->b);
    if (v)
        return v;
    int c = next_class(s, it->c + 1);
    if (c < 0)
        return NULL; /* it->b.leaf is NULL: past the end */
    it->c = c;
    return bt_first(&s->cls[c], &it->b);
}

void *ss_prev(const sizeset *s, ss_iter *it)
{
    if (!it->b.leaf)
        return NULL;
    void *v = bt_prev(&it->b);
    if (v)
        return v;
    int c = prev_class(s, it->c - 1);
    if (c < 0)
        return NULL;
    it->c = c;
    return bt_last(&s->cls[c], &it->b);
}

uint64_t ss_size(const ss_iter *it) { return bt_k1(&it->b); }
uint64_t ss_addr(const ss_iter *it) { return bt_k2(&it->b); }

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
    for (int c = 0; s->cls && c < SS_CLASSES; c++) {
        const bt_tree *t = &s->cls[c];
        int marked = (int)(s->used[c >> 6] >> (c & 63) & 1);
        if (bt_check(t) || marked != (t->n > 0))
            bad++;
        bt_iter i;
        for (void *v = bt_first(t, &i); v; v = bt_next(&i))
            if (ss_class(bt_k1(&i)) != c)
                bad++;
        n += t->n;
    }
    if (!s->cls && (s->used_top || s->n))
        bad++;
    return bad + (n != s->n);
}
