/* evtab.c - the distinct event ids a trace records (evtab.h). */
#include "evtab.h"

#include <stdlib.h>

#include "common.h"

void evtab_init(evtab *t, int values)
{
    *t = (evtab){0};
    t->values = values;
}

/* The slot of key (id + 1, never 0): where it is, or the empty slot where it would go. */
static size_t evtab_slot(const evtab *t, uint64_t key)
{
    size_t j = (size_t)am_hash_u64(key) & (t->cap - 1);
    while (t->key[j] != 0 && t->key[j] != key)
        j = (j + 1) & (t->cap - 1);
    return j;
}

/* Double the table (first 1024 slots). The old arrays are freed only once every id has moved:
 * for that moment the table takes one and a half times its new size. */
static void evtab_grow(evtab *t)
{
    evtab old = *t;
    t->cap = old.cap ? 2 * old.cap : 1024;
    t->key = am_calloc(t->cap, sizeof *t->key);
    t->val = t->values ? am_malloc(t->cap * sizeof *t->val) : NULL;
    for (size_t i = 0; i < old.cap; i++)
        if (old.key[i] != 0) {
            size_t j = evtab_slot(t, old.key[i]);
            t->key[j] = old.key[i];
            if (t->values)
                t->val[j] = old.val[i];
        }
    free(old.key);
    free(old.val);
}

void evtab_put(evtab *t, uint64_t id, uint64_t v)
{
    if (id == UINT64_MAX) { /* its key would wrap to the empty mark */
        t->n += !t->has_top;
        t->has_top = 1;
        t->top_val = t->values ? v : 0;
        return;
    }
    /* at most three quarters full: linear probing stays short (about 2.5 probes a miss) */
    if (4 * (t->n + 1) > 3 * t->cap)
        evtab_grow(t);
    size_t j = evtab_slot(t, id + 1);
    if (t->key[j] == 0) {
        t->key[j] = id + 1;
        t->n++;
    }
    if (t->values)
        t->val[j] = v;
}

int evtab_get(const evtab *t, uint64_t id, uint64_t *v)
{
    uint64_t x = 0;
    int found = 0;
    if (id == UINT64_MAX) {
        found = t->has_top;
        x = t->top_val;
    } else if (t->cap) {
        size_t j = evtab_slot(t, id + 1);
        found = t->key[j] != 0;
        if (found && t->values)
            x = t->val[j];
    }
    if (v)
        *v = found ? x : 0;
    return found;
}

void evtab_free(evtab *t)
{
    free(t->key);
    free(t->val);
    *t = (evtab){0};
}
