/* recpool.c - fixed-size record pool (see recpool.h). A slab is a header (the link to the next slab,
 * padded to a cache line) followed by as many records as fit its size (at least
 * one). */
#include "recpool.h"

#include <stdlib.h>
#include <string.h>

#include "../sim/common.h"

/* A slab starts on a cache line (am_malloc_lines) and its header takes one, so a record whose
 * size is a multiple of 64 bytes sits in whole lines (a 64-byte record in one line, not two). */
#define SLAB_HEAD 64

void recpool_init(recpool *p, size_t size)
{
    p->size = size < sizeof(void *) ? sizeof(void *) : size;
    p->spare = NULL;
    p->slabs = NULL;
    p->next = 0;
}

void recpool_grow(recpool *p)
{
    size_t bytes = p->next ? p->next : POOL_SLAB_MIN;
    p->next = bytes < POOL_SLAB_MAX ? 2 * bytes : POOL_SLAB_MAX;
    size_t n = (bytes - SLAB_HEAD) / p->size;
    if (n == 0) { /* a record bigger than the slab: a slab of one */
        n = 1;
        bytes = SLAB_HEAD + p->size;
    }
    char *s = am_malloc_lines(bytes);
    memcpy(s, &p->slabs, sizeof p->slabs);
    p->slabs = s;
    for (size_t i = n; i-- > 0;) /* the slab's first record is taken first */
        recpool_put(p, s + SLAB_HEAD + i * p->size);
}

void recpool_destroy(recpool *p)
{
    while (p->slabs) {
        void *s = p->slabs;
        memcpy(&p->slabs, s, sizeof p->slabs);
        free(s);
    }
    p->spare = NULL;
    p->next = 0;
}
