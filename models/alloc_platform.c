/* alloc_platform.c - JAX's "platform" allocator (XLA_PYTHON_CLIENT_ALLOCATOR=platform).
 *
 * Reference: ../shared/specs/allocators.md section 2. One device allocation per buffer and one
 * device free per release, with no caching and no rounding beyond the device granularity: a
 * request of n bytes takes round_up(n, env->granularity) bytes from the device (placed first fit
 * by the level's device address model) and gives them back as soon as it is freed. Reserved
 * memory therefore equals memory in use, and utilization is limited only by that rounding.
 *
 * Cost: every device call is slow ("cudaMalloc/cudaFree are tens to hundreds of microseconds",
 * allocators.md section 2). Each allocation charges `alloc_latency` and each free `free_latency`
 * of host time through take_latency. The 20 us defaults are an ASSUMPTION at the low end of that
 * range, not a measurement. A refused allocation is a device call too and is charged as well.
 *
 * Live buffers sit in an unordered live set (models/livelist.h), sorted by address only when
 * walk() or check() lists them. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "livelist.h"
#include "recpool.h"

struct plat_opts {
    am_ps alloc_latency; /* host time per device allocation (cudaMalloc) */
    am_ps free_latency;  /* host time per device free (cudaFree) */
};

static const opt_desc plat_opt_table[] = {
    {"alloc_latency", OPT_TIME, offsetof(struct plat_opts, alloc_latency), "20us",
     "host time of one device allocation, cudaMalloc (assumed; tens to hundreds of us)", NULL,
     0, 0},
    {"free_latency", OPT_TIME, offsetof(struct plat_opts, free_latency), "20us",
     "host time of one device free, cudaFree (assumed; tens to hundreds of us)", NULL, 0, 0},
    {NULL, OPT_BOOL, 0, NULL, NULL, NULL, 0, 0},
};

typedef struct pbuf {
    ll_node live;         /* first: live.addr is its address */
    uint64_t bytes;       /* rounded to the granularity */
    uint64_t requested;   /* bytes asked for */
} pbuf;

typedef struct plat {
    alloc_env env;
    struct plat_opts o;
    ll_set live;         /* live buffers */
    recpool recs; /* pbuf records */
    am_ps pending;       /* host time not yet taken by the engine */
    uint64_t bytes_in_use, peak_bytes_in_use; /* rounded sizes = reserved bytes */
    uint64_t num_allocs, num_device_alloc, num_device_free, ooms;
} plat;

static pbuf *pb_new(plat *p) { return recpool_get(&p->recs); }

static void pb_put(plat *p, pbuf *b) { recpool_put(&p->recs, b); }

static int plat_alloc(void *st, const alloc_req *r, alloc_out *o)
{
    plat *p = st;
    uint64_t bytes = am_round_up(r->bytes, p->env.granularity);
    uint64_t addr;
    p->pending += p->o.alloc_latency;
    if (bytes < r->bytes || p->env.dev_alloc(p->env.ctx, bytes, &addr) != 0) {
        return ALLOC_OOM;
    }
    p->num_device_alloc++;
    p->num_allocs++;
    pbuf *b = pb_new(p);
    b->live.addr = addr;
    b->bytes = bytes;
    b->requested = r->bytes;
    ll_add(&p->live, &b->live);
    p->bytes_in_use += bytes;
    if (p->bytes_in_use > p->peak_bytes_in_use)
        p->peak_bytes_in_use = p->bytes_in_use;
    o->addr = addr;
    o->size = bytes;
    o->handle = (uint64_t)(uintptr_t)b;
    return ALLOC_OK;
}

static void plat_free(void *st, uint64_t handle)
{
    plat *p = st;
    pbuf *b = (pbuf *)(uintptr_t)handle;
    ll_del(&p->live, &b->live);
    p->env.dev_free(p->env.ctx, b->live.addr, b->bytes);
    p->bytes_in_use -= b->bytes;
    p->num_device_free++;
    p->pending += p->o.free_latency;
    pb_put(p, b);
}

/* Look-ahead hint (alloc.h): a free reads its record (stage 0), then its live-set entry and the
 * leaf of the device model's free ranges that its region goes back to (stage 1). */
static void plat_prefetch_free(void *st, uint64_t handle, int stage)
{
    plat *p = st;
    const pbuf *b = (const pbuf *)(uintptr_t)handle;
    ll_prefetch_free(&p->live, &b->live, sizeof(pbuf), stage);
    if (stage == 1 && p->env.dev_prefetch_free) /* the record is in cache: its region's leaf */
        p->env.dev_prefetch_free(p->env.ctx, b->live.addr);
}

/* Nothing is cached: every byte held from the device is in use. */
static uint64_t plat_largest_free(void *st)
{
    (void)st;
    return 0;
}

/* Peaks back to the current values (alloc.h reset_peaks). */
static void plat_reset_peaks(void *st)
{
    plat *p = st;
    p->peak_bytes_in_use = p->bytes_in_use;
}

static void plat_stats(void *st, const stat_sink *s)
{
    plat *p = st;
    s->cur_peak(s->ctx, "bytes_in_use", p->bytes_in_use, p->peak_bytes_in_use);
    s->u64(s->ctx, "num_allocs", p->num_allocs);
    s->u64(s->ctx, "num_device_alloc", p->num_device_alloc);
    s->u64(s->ctx, "num_device_free", p->num_device_free);
    s->u64(s->ctx, "num_ooms", p->ooms);
}

static void plat_walk(void *st, void (*fn)(void *arg, const alloc_block *b), void *arg)
{
    plat *p = st;
    ll_node **v = ll_sorted(&p->live);
    for (size_t i = 0; i < p->live.n; i++) {
        const pbuf *b = (const pbuf *)v[i];
        alloc_block a = {b->live.addr, b->bytes, b->requested, 1, b->live.addr};
        fn(arg, &a);
    }
    free(v);
}

static int plat_check(void *st, am_error *err)
{
    plat *p = st;
    int bad = 0;
    uint64_t sum = 0, last_end = 0;
    if (ll_check(&p->live)) { /* its entries cannot be trusted to list */
        am_fail(err, AM_EINTERNAL, "platform: live set corrupt");
        return 1;
    }
    ll_node **v = ll_sorted(&p->live);
    for (size_t i = 0; i < p->live.n; i++) {
        const pbuf *b = (const pbuf *)v[i];
        if (b->live.addr < last_end || b->bytes % p->env.granularity ||
            b->requested > b->bytes || b->requested == 0) {
            bad++;
            am_fail(err, AM_EINTERNAL, "platform: buffer at %" PRIu64 " overlaps, is unrounded "
                    "or smaller than its request", b->live.addr);
        }
        last_end = b->live.addr + b->bytes;
        sum += b->bytes;
    }
    free(v);
    if (sum != p->bytes_in_use || p->live.n != p->num_device_alloc - p->num_device_free) {
        bad++;
        am_fail(err, AM_EINTERNAL, "platform: live bytes %" PRIu64 " != bytes_in_use %" PRIu64
                " or live count off", sum, p->bytes_in_use);
    }
    return bad;
}

static am_ps plat_take_latency(void *st)
{
    plat *p = st;
    am_ps t = p->pending;
    p->pending = 0;
    return t;
}

/* A level of some capacity (alloc.h check_opts: the same rule when a config loads). */
static int plat_check_opts(const void *opts, const alloc_env *env, am_error *err)
{
    (void)opts;
    if (env->capacity == 0)
        return am_fail_opt(err, "capacity", "platform: capacity is 0 bytes");
    /* every device call is a multiple of the granularity: one above the capacity fits nothing
     * (until 2026-11-27 the config passed and every request ran out of memory) */
    if (env->granularity > env->capacity)
        return am_fail_opt(err, "granularity,capacity", "platform: granularity of %" PRIu64
                           " bytes is above the capacity (%" PRIu64 " bytes): no device "
                           "allocation fits", env->granularity, env->capacity);
    return 0;
}

static int plat_create(void **out, const alloc_env *env, const void *opts, am_error *err)
{
    static const struct plat_opts defaults = {20 * AM_PS_PER_US, 20 * AM_PS_PER_US};
    if (plat_check_opts(opts, env, err) < 0)
        return -1;
    plat *p = am_calloc(1, sizeof *p);
    recpool_init(&p->recs, sizeof(pbuf));
    p->env = *env;
    if (p->env.granularity == 0)
        p->env.granularity = 1;
    p->o = opts ? *(const struct plat_opts *)opts : defaults;
    *out = p;
    return 0;
}

static void plat_destroy(void *st)
{
    plat *p = st;
    ll_destroy(&p->live);
    recpool_destroy(&p->recs);
    free(p);
}

/* A refused request finally failed (alloc.h count_oom): the one place ooms grows. */
static void plat_count_oom(void *st) { ((plat *)st)->ooms++; }

/* alloc.h min_capacity: its own device range, the request rounded up to the granularity. */
static uint64_t plat_min_capacity(void *st, uint64_t bytes)
{
    return am_round_up_sat(bytes, ((const plat *)st)->env.granularity);
}

static const struct alloc_ops plat_ops = {
    .name = "platform",
    .device_by_bytes = 1, /* cudaMalloc fails by bytes, not by contiguity */
    .summary = "JAX platform allocator: one device allocation per buffer, freed at once, no "
               "caching, device-call latency",
    .opts = plat_opt_table,
    .opts_size = sizeof(struct plat_opts),
    .create = plat_create,
    .check_opts = plat_check_opts,
    .destroy = plat_destroy,
    .alloc = plat_alloc,
    .free = plat_free,
    .prefetch_free = plat_prefetch_free,
    .largest_free = plat_largest_free,
    .stats = plat_stats,
    .reset_peaks = plat_reset_peaks,
    .walk = plat_walk,
    .check = plat_check,
    .take_latency = plat_take_latency,
    .count_oom = plat_count_oom,
    .min_capacity = plat_min_capacity,
};

const struct alloc_ops *alloc_platform_ops(void);
const struct alloc_ops *alloc_platform_ops(void) { return &plat_ops; }
