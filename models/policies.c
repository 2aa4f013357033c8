/* policies.c - the policy table: name -> operations. Adding a policy is one file and one row. */
#include <string.h>

#include "alloc.h"

const struct alloc_ops *alloc_bfc_ops(void);
const struct alloc_ops *alloc_best_fit_ops(void);
const struct alloc_ops *alloc_first_fit_ops(void);
const struct alloc_ops *alloc_caching_ops(void);

typedef const struct alloc_ops *(*ops_getter)(void);

static const ops_getter getters[] = {
    alloc_bfc_ops,
    alloc_best_fit_ops,
    alloc_first_fit_ops,
    alloc_caching_ops,
};

const struct alloc_ops *const *alloc_all(void)
{
    static const struct alloc_ops *all[AM_ARRAY_LEN(getters) + 1];
    if (!all[0])
        for (size_t i = 0; i < AM_ARRAY_LEN(getters); i++)
            all[i] = getters[i]();
    return all;
}

const struct alloc_ops *alloc_find(const char *name)
{
    for (const struct alloc_ops *const *p = alloc_all(); *p; p++)
        if (strcmp((*p)->name, name) == 0)
            return *p;
    return NULL;
}
