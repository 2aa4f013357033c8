/* livelist.c - the live set's slow paths and its sorted copy (see livelist.h). */
#include "livelist.h"

#include <stdlib.h>
#include <string.h>

#include "../sim/common.h"

void ll_grow(ll_set *s)
{
    s->cap = s->cap ? s->cap * 2 : 1024;
    s->v = am_realloc(s->v, s->cap * sizeof *s->v);
}

static int by_addr(const void *a, const void *b)
{
    uint64_t x = (*(ll_node *const *)a)->addr, y = (*(ll_node *const *)b)->addr;
    return (x > y) - (x < y);
}

ll_node **ll_sorted(const ll_set *s)
{
    if (!s->n)
        return NULL;
    ll_node **v = am_malloc(s->n * sizeof *v);
    memcpy(v, s->v, s->n * sizeof *v);
    qsort(v, s->n, sizeof *v, by_addr);
    return v;
}

int ll_check(const ll_set *s)
{
    int bad = s->n > s->cap;
    for (size_t i = 0; i < s->n && !bad; i++)
        bad = s->v[i] == NULL || s->v[i]->at != i;
    return bad;
}

void ll_destroy(ll_set *s)
{
    free(s->v);
    *s = (ll_set){0};
}
