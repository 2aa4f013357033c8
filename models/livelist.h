/* livelist.h - the live blocks of a policy that needs them only to report them: an unordered
 * array with each block's index kept in its record (O(1) to add or remove, no search on the
 * hot path) and, for walk() and check(), a copy sorted by address.
 *
 * platform and prealloc find a freed block from its handle and their free ranges in the device
 * address model or their own address set; their live blocks are never searched, only listed in
 * address order by walk() and check(), which are off the per-event path (check() runs after
 * every event only under --check, where it is linear anyway). A tree ordered by address cost
 * them a descent to a cache-missing leaf per allocation and per free; here a removal moves the
 * array's last entry (the latest allocation's, in cache) into the freed one's place, and that
 * entry is the only line the free touches beyond the block itself (the look-ahead hint
 * prefetches it: ll_prefetch_free). */
#ifndef AM_LIVELIST_H
#define AM_LIVELIST_H

#include <stddef.h>
#include <stdint.h>

#include "recpool.h"

typedef struct ll_node {
    uint64_t addr; /* the order of ll_sorted; unique among the members */
    size_t at;     /* index in the set's array */
} ll_node;

typedef struct ll_set {
    ll_node **v;
    size_t n, cap;
} ll_set;

/* Make room for one more member (ll_add's slow path). */
void ll_grow(ll_set *s);

static inline void ll_add(ll_set *s, ll_node *x)
{
    if (s->n == s->cap)
        ll_grow(s);
    x->at = s->n;
    s->v[s->n++] = x;
}

static inline void ll_del(ll_set *s, ll_node *x)
{
    ll_node *last = s->v[--s->n];
    s->v[x->at] = last;
    last->at = x->at;
}

/* The look-ahead hint of a free (alloc.h prefetch_free) for a record of rec_size bytes that
 * starts with its ll_node x: stage 0 prefetches the record, stage 1 its array entry (which
 * ll_del overwrites). */
static inline __attribute__((always_inline)) void
ll_prefetch_free(const ll_set *s, const ll_node *x, size_t rec_size, int stage)
{
    if (stage == 0)
        recpool_prefetch(x, rec_size);
    else
        __builtin_prefetch(&s->v[x->at], 1);
}

/* The members in address order: an array of s->n pointers for the caller to free, or NULL when
 * there are none. */
ll_node **ll_sorted(const ll_set *s);
/* 0 when every member's index points back at it. */
int ll_check(const ll_set *s);
void ll_destroy(ll_set *s);

#endif
