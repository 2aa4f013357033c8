/* recpool.h - fixed-size records (the policies' blocks and chunks, the B+-trees' nodes): taken
 * from slabs, zeroed when taken, returned to a free list (the last returned is the next taken,
 * still in cache), and all freed at once with the pool. A free record's first bytes hold the list
 * link; nothing else of it is kept. No per-record malloc on the hot path. Slabs double from
 * POOL_SLAB_MIN to POOL_SLAB_MAX bytes: a small run keeps a small footprint, a large population
 * sits in few big slabs, which from 2 MiB up are backed by huge pages (am_malloc_large). */
#ifndef AM_RECPOOL_H
#define AM_RECPOOL_H

#include <stddef.h>
#include <string.h>

#define POOL_SLAB_MIN ((size_t)16 << 10) /* bytes of the first slab */
#define POOL_SLAB_MAX ((size_t)4 << 20)  /* bytes of a slab at most (and of every later one) */

typedef struct recpool {
    size_t size;  /* bytes per record, at least a pointer's */
    void *spare;  /* free records */
    void *slabs;  /* every slab, linked through its header */
    size_t next;  /* bytes of the next slab (0: POOL_SLAB_MIN) */
} recpool;

/* An empty pool of records of `size` bytes (sizeof the record type). */
void recpool_init(recpool *p, size_t size);
/* Add a slab's records to the free list (recpool_get's slow path). */
void recpool_grow(recpool *p);

/* A record, not cleared (the caller sets every field, or clears it with its type's size, which
 * the compiler can do in line where a variable-size memset is a library call). */
static inline void *recpool_take(recpool *p)
{
    if (!p->spare)
        recpool_grow(p);
    void *x = p->spare;
    memcpy(&p->spare, x, sizeof p->spare);
    return x;
}

/* A zeroed record. */
static inline void *recpool_get(recpool *p)
{
    void *x = recpool_take(p);
    memset(x, 0, p->size);
    return x;
}

/* Give a record back (x from recpool_get of the same pool). */
static inline void recpool_put(recpool *p, void *x)
{
    memcpy(x, &p->spare, sizeof p->spare);
    p->spare = x;
}
/* A hint: every cache line of the first `size` bytes of the record at x is about to be read. */
static inline __attribute__((always_inline)) void recpool_prefetch(const void *x, size_t size)
{
    const char *p = x, *end = p + size - 1;
    for (; p < end; p += 64)
        __builtin_prefetch(p);
    __builtin_prefetch(end); /* the last line, however the record sits */
}

/* The look-ahead hint of a free (alloc.h prefetch_free) for records linked to their address
 * neighbours by pointers at offsets prev and next: stage 0 prefetches the first `self` bytes of
 * rec, stage 1 the first `near` bytes of each neighbour (what merging reads of it). */
static inline __attribute__((always_inline)) void
recpool_prefetch_linked(const void *rec, int stage, size_t self, size_t prev, size_t next,
                        size_t near)
{
    if (stage == 0) {
        recpool_prefetch(rec, self);
        return;
    }
    const void *p, *n;
    memcpy(&p, (const char *)rec + prev, sizeof p);
    memcpy(&n, (const char *)rec + next, sizeof n);
    if (p)
        recpool_prefetch(p, near);
    if (n)
        recpool_prefetch(n, near);
}

/* Free every slab; the pool is empty again (records handed out are gone too). */
void recpool_destroy(recpool *p);

#endif
