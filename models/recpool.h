/* recpool.h - fixed-size records (the policies' blocks and chunks): taken from slabs of
 * POOL_SLAB records, zeroed when taken, returned to a free list (the last returned is the next
 * taken, still in cache), and all freed at once with the pool. A free record's first bytes hold
 * the list link; nothing else of it is kept. No per-record malloc on the hot path. */
#ifndef AM_RECPOOL_H
#define AM_RECPOOL_H

#include <stddef.h>

#define POOL_SLAB 1024 /* records per slab */

typedef struct recpool {
    size_t size;  /* bytes per record, at least a pointer's */
    void *spare;  /* free records */
    void *slabs;  /* every slab, linked through its header */
} recpool;

/* An empty pool of records of `size` bytes (sizeof the record type). */
void recpool_init(recpool *p, size_t size);
/* A zeroed record. */
void *recpool_get(recpool *p);
/* Give a record back (x from recpool_get of the same pool). */
void recpool_put(recpool *p, void *x);
/* Free every slab; the pool is empty again (records handed out are gone too). */
void recpool_destroy(recpool *p);

#endif
