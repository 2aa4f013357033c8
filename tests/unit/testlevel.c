/* testlevel.c - one memory level for the policy suites (see testlevel.h). */
#define _GNU_SOURCE
#include "testlevel.h"

#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

int tl_open(tl_level *L, const char *policy, const char *level_keys, const char *keys)
{
    return tl_open_log(L, policy, level_keys, keys, 1);
}

int tl_open_log(tl_level *L, const char *policy, const char *level_keys, const char *keys,
                int log)
{
    char y[2048];
    snprintf(y, sizeof y, "version: 1\nmemories:\n  hbm:\n%s    allocator:\n      policy: %s\n%s",
             level_keys, policy, keys ? keys : "");
    am_error err = {0};
    memset(L, 0, sizeof *L);
    if (cfg_load_string(&L->cfg, "test.yaml", y, NULL, 0, &err) != 0) {
        fprintf(stderr, "\nconfig (%s): %s\n", policy, err.msg);
        return -1;
    }
    L->log = log ? open_memstream(&L->logbuf, &L->loglen) : NULL;
    const cfg_level *c = &L->cfg->levels[0];
    mem_params p = {.name = c->name, .kind = c->kind, .capacity = c->capacity,
                    .granularity = c->granularity, .policy = c->policy,
                    .policy_opts = c->policy_opts, .log = L->log,
                    .pad_requests_to = c->pad_requests_to};
    if (mem_create(&L->m, &p, &err) != 0) {
        fprintf(stderr, "\nmem (%s): %s\n", policy, err.msg);
        if (L->log)
            fclose(L->log);
        free(L->logbuf);
        cfg_free(L->cfg);
        return -1;
    }
    return 0;
}

void tl_close(tl_level *L)
{
    mem_destroy(L->m);
    if (L->log)
        fclose(L->log);
    free(L->logbuf);
    cfg_free(L->cfg);
}

int tl_check(tl_level *L)
{
    am_error e = {0};
    int bad = mem_check(L->m, &e);
    if (bad)
        fprintf(stderr, "\ncheck (%s): %s\n", mem_policy(L->m)->name, e.msg);
    return bad;
}

uint64_t tl_alloc(tl_level *L, uint64_t bytes, uint64_t *size, uint64_t *handle)
{
    alloc_req r = {bytes, 0, 0};
    alloc_out o;
    int rc = mem_alloc(L->m, &r, &o);
    CU_ASSERT(tl_check(L) == 0);
    if (rc != ALLOC_OK)
        return UINT64_MAX;
    if (size)
        *size = o.size;
    if (handle)
        *handle = o.handle;
    return o.addr;
}

void tl_free(tl_level *L, uint64_t handle, uint64_t req, uint64_t given)
{
    mem_free(L->m, handle, req, given, 0);
    CU_ASSERT(tl_check(L) == 0);
}

#define TL_MAX_STATS 64
static tl_stat stats[TL_MAX_STATS];
static int nstats;

static void put(const tl_stat *s)
{
    if (nstats < TL_MAX_STATS)
        stats[nstats++] = *s;
}
static void s_u64(void *c, const char *n, uint64_t v)
{
    (void)c;
    put(&(tl_stat){n, v, v, 0, 0});
}
static void s_cp(void *c, const char *n, uint64_t v, uint64_t p)
{
    (void)c;
    put(&(tl_stat){n, v, p, 0, 0});
}
static void s_real(void *c, const char *n, double v, int isnull)
{
    (void)c;
    put(&(tl_stat){n, 0, 0, v, isnull});
}

const tl_stat *tl_stat_find(tl_level *L, const char *name)
{
    nstats = 0;
    stat_sink s = {NULL, s_u64, s_cp, s_real};
    mem_policy(L->m)->stats(mem_policy_state(L->m), &s);
    for (int i = 0; i < nstats; i++)
        if (strcmp(stats[i].name, name) == 0)
            return &stats[i];
    return NULL;
}
