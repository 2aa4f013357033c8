/* policies.c - the policy table: name -> operations. Adding a policy is one file and one row. */
#include <string.h>

#include "alloc.h"

const struct alloc_ops *alloc_bfc_ops(void);
const struct alloc_ops *alloc_best_fit_ops(void);
const struct alloc_ops *alloc_first_fit_ops(void);
const struct alloc_ops *alloc_platform_ops(void);
const struct alloc_ops *alloc_cuda_async_ops(void);
const struct alloc_ops *alloc_prealloc_ops(void);
const struct alloc_ops *alloc_buddy_ops(void);
const struct alloc_ops *alloc_tlsf_ops(void);
const struct alloc_ops *alloc_caching_ops(void);
const struct alloc_ops *alloc_offline_ops(void);

typedef const struct alloc_ops *(*ops_getter)(void);

static const ops_getter getters[] = {
    alloc_bfc_ops,
    alloc_best_fit_ops,
    alloc_first_fit_ops,
    alloc_platform_ops,
    alloc_cuda_async_ops,
    alloc_prealloc_ops,
    alloc_buddy_ops,
    alloc_tlsf_ops,
    alloc_caching_ops,
    alloc_offline_ops,
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
