/* recpool.c - fixed-size record pool (see recpool.h). A slab is a header (the link to the next slab,
 * padded to the strictest alignment) followed by POOL_SLAB records. */
#include "recpool.h"

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/common.h"

#define SLAB_HEAD (((sizeof(void *) + alignof(max_align_t) - 1) / alignof(max_align_t)) * \
                   alignof(max_align_t))

void recpool_init(recpool *p, size_t size)
{
    p->size = size < sizeof(void *) ? sizeof(void *) : size;
    p->spare = NULL;
    p->slabs = NULL;
}

void *recpool_get(recpool *p)
{
    if (!p->spare) {
        char *s = am_malloc(SLAB_HEAD + POOL_SLAB * p->size);
        memcpy(s, &p->slabs, sizeof p->slabs);
        p->slabs = s;
        for (size_t i = POOL_SLAB; i-- > 0;) /* the slab's first record is taken first */
            recpool_put(p, s + SLAB_HEAD + i * p->size);
    }
    void *x = p->spare;
    memcpy(&p->spare, x, sizeof p->spare);
    memset(x, 0, p->size);
    return x;
}

void recpool_put(recpool *p, void *x)
{
    memcpy(x, &p->spare, sizeof p->spare);
    p->spare = x;
}

void recpool_destroy(recpool *p)
{
    while (p->slabs) {
        void *s = p->slabs;
        memcpy(&p->slabs, s, sizeof p->slabs);
        free(s);
    }
    p->spare = NULL;
}
