/* alloc_offline.c - the `offline` policy: placement planned before the run from every buffer's
 * lifetime (allocators.md section 5), then replayed.
 *
 * Before the run the engine hands the policy this level's allocation requests with their
 * lifetimes (set_plan, built by sim/prepass.c). The policy plans offsets with models/plan.c:
 *   greedy   XLA's decreasing-size best fit;
 *   optimal  the exact search (MiniMalloc's branch and bound) for the lowest height, which must
 *            be proven optimal within the budget (else the run fails with the best it found);
 *   auto     the lowest height found within the budget, never worse than greedy.
 * The budget is `search_budget`, work counted in buffers the search visits: it stops a search
 * at the same point on every machine, so a plan depends only on the inputs. `time_limit`, off by
 * default, adds a wall-clock cap for those who prefer one; a plan cut short by it depends on
 * the machine's speed.
 * Every plan is verified (no two buffers live at the same time share a byte) before use.
 * At the first request it takes one arena of the plan's height from the device, so peak
 * reserved memory is the plan's height. A request is matched to its planned one by identity,
 * the index of the trace event that asks for it (alloc_req.event, the plan's start), not by
 * count, so a request the plan foresaw but the run never made (a transfer's into= that did not
 * happen) leaves its range unused instead of shifting every later request. It is served at its
 * planned offset when the size agrees and no live block holds any byte of the planned range
 * (an interval check in the live tree, O(log n)). Otherwise (not planned, another size, or the
 * range still held by a buffer that lived longer than planned) it counts as a plan mismatch and
 * falls back to first fit: the lowest free range of the arena that holds it, else out of
 * memory. No two live blocks ever overlap. (Until 2026-11-27 the k-th request took the k-th
 * planned offset after a size check only, so a planned request never made gave two live
 * buffers one address.) free() only records that the block is gone: the plan already reuses
 * its bytes. Without a plan every request fails, and check() says why. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/units.h"
#include "alloc.h"
#include "ordset.h"
#include "plan.h"

enum { PLANNER_AUTO, PLANNER_GREEDY, PLANNER_OPTIMAL };
static const char *const planner_values[] = {"auto", "greedy", "optimal", NULL};

/* The exact search's default budget: about 6 s to 60 s here, at 4 to 40 million buffer visits a
 * second depending on the instance (the MiniMalloc challenging set, serve-1M). */
#define OFF_BUDGET 250000000
#define OFF_STR(x) #x
#define OFF_XSTR(x) OFF_STR(x)

struct off_opts {
    int planner;
    uint64_t budget;    /* buffer visits of the exact search; 0 = no limit */
    am_ps time_limit;   /* ps; 0 = no limit */
    uint64_t alignment; /* bytes */
};

static const opt_desc off_opt_table[] = {
    {"planner", OPT_ENUM, offsetof(struct off_opts, planner), "auto",
     "greedy: decreasing-size best fit; optimal: exact search, proven within the budget; "
     "auto: the best found within the budget", planner_values, 0, 0},
    {"search_budget", OPT_UINT, offsetof(struct off_opts, budget), OFF_XSTR(OFF_BUDGET),
     "work the exact search may do per memory level, in buffers it visits: the same on every "
     "machine (4 to 40 million a second here; 0 = no limit)", NULL, 0, 0},
    {"time_limit", OPT_TIME, offsetof(struct off_opts, time_limit), "0",
     "host time the exact search may take per memory level (0 = no limit); a plan it cuts "
     "short depends on the machine's speed", NULL, 0, 0},
    {"alignment", OPT_SIZE, offsetof(struct off_opts, alignment), "1",
     "planned sizes round up to this many bytes (a power of two)", NULL, 0, 0},
    {NULL, OPT_BOOL, 0, NULL, NULL, NULL, 0, 0},
};

typedef struct oblk {
    os_node by_addr; /* live blocks: (addr, request index); val = the free gap below the block
                      * (from the end of the live block before it, or the arena's start), so
                      * the tree's subtree maximum gives the largest gap in O(1) */
    uint64_t addr, size, requested;
    int live;
    int on_plan; /* at its planned offset (else placed by the fallback's first fit) */
} oblk;

typedef struct offline {
    alloc_env env;
    struct off_opts o;
    int have_plan;
    size_t n, next;      /* planned requests; requests seen so far */
    uint64_t *event;     /* per request: 1 + its event index (alloc_req.event), ascending */
    uint64_t *requested; /* per request: planned request bytes */
    uint64_t *offset;    /* per request: planned offset in the arena */
    uint64_t *given;     /* per request: bytes given (rounded to alignment) */
    oblk *blk;
    oblk **extra;        /* blocks of requests not in the plan (handles from n + 1), freed: NULL */
    size_t nextra, capextra;
    plan_result res;
    int have_arena, arena_refused;
    uint64_t arena_addr, arena_size;
    os_tree live;
    uint64_t in_use, peak_in_use, num_allocs, ooms, mismatches, unplanned;
} offline;

#define OB_OF(n) ((oblk *)(void *)((char *)(n) - offsetof(oblk, by_addr)))

/* Where the live block of tree node n ends. */
static uint64_t ob_end(const os_node *n)
{
    const oblk *b = (const oblk *)(const void *)((const char *)n - offsetof(oblk, by_addr));
    return b->addr + b->size;
}

/* The free bytes between the live block before n (p, or NULL: the arena's start) and n. Live
 * blocks do not overlap (the plan is verified, and check() says so). */
static uint64_t gap_below(const offline *f, const os_node *p, const os_node *n)
{
    uint64_t lo = p ? ob_end(p) : f->arena_addr;
    return n->k1 > lo ? n->k1 - lo : 0;
}

static void off_log(offline *f, const char *line)
{
    if (f->env.log)
        f->env.log(f->env.ctx, line);
}

/* alignment a power of two (0 was quietly 1 until 2026-11-25). */
static int off_check_opts(const void *opts, const alloc_env *env, am_error *err)
{
    (void)env; /* the plan's rules on the level come with the plan (set_plan) */
    uint64_t align = ((const struct off_opts *)opts)->alignment;
    return am_check_pow2(err, "alignment", align, AM_MAX_BYTES, "4 EiB");
}

static int off_create(void **out, const alloc_env *env, const void *opts, am_error *err)
{
    if (opts && off_check_opts(opts, env, err) < 0)
        return -1;
    offline *f = am_calloc(1, sizeof *f);
    f->env = *env;
    if (opts)
        f->o = *(const struct off_opts *)opts;
    else
        f->o = (struct off_opts){PLANNER_AUTO, OFF_BUDGET, 0, 1};
    *out = f;
    return 0;
}

static void off_drop_plan(offline *f)
{
    free(f->event);
    f->event = NULL;
    free(f->requested);
    free(f->offset);
    free(f->given);
    free(f->blk);
    f->requested = f->offset = f->given = NULL;
    f->blk = NULL;
    f->have_plan = 0;
}

static void off_destroy(void *st)
{
    offline *f = st;
    off_drop_plan(f);
    for (size_t j = 0; j < f->nextra; j++)
        free(f->extra[j]);
    free(f->extra);
    free(f);
}

/* planner: optimal without a proof: named and placed at the limit that stopped the search,
 * with its value, else (the set too large to search) at planner. Until 2026-11-28 it was always
 * "within search_budget N" at the budget, even at 0 (no limit) when the time limit had run out,
 * and a time limit only added " and time_limit T" (before that day its name alone). */
static int off_unproven(const offline *f, uint64_t h, uint64_t lb, am_error *err)
{
    int by = f->res.stopped_by;
    char budget[48] = "", limit[64] = "", t[48];
    if (by & PLAN_BY_WORK)
        snprintf(budget, sizeof budget, "search_budget %" PRIu64, f->o.budget);
    if (by & PLAN_BY_TIME)
        snprintf(limit, sizeof limit, "time_limit %s",
                 units_fmt_time(t, sizeof t, f->o.time_limit));
    const char *keys = by == PLAN_BY_WORK ? "search_budget,planner"
                       : by == PLAN_BY_TIME ? "time_limit,planner"
                       : by ? "search_budget,time_limit,planner" : "planner";
    const char *raise = by == PLAN_BY_WORK ? "raise the budget"
                        : by == PLAN_BY_TIME ? "raise the time limit"
                                             : "raise both";
    if (!by)
        return am_fail_opt(err, keys, "offline: planner optimal: no proof of optimality: the "
                           "set is too large for the exact search (best height %" PRIu64
                           " bytes, lower bound %" PRIu64 " bytes); use planner: auto", h, lb);
    return am_fail_opt(err, keys, "offline: planner optimal: no proof of optimality within "
                       "%s%s%s (best height %" PRIu64 " bytes, lower bound %" PRIu64 " bytes); "
                       "%s or use planner: auto", budget, *budget && *limit ? " and " : "",
                       limit, h, lb, raise);
}

static int off_set_plan(void *st, const plan_buf *bufs, size_t n, am_error *err)
{
    offline *f = st;
    if (f->next || f->have_arena)
        return am_fail(err, AM_EINTERNAL, "offline: plan set after the run started");
    off_drop_plan(f);
    plan_buf *p = am_malloc((n + 1) * sizeof *p);
    uint64_t total = 0; /* every offset plus size is at most this (all stacked): it must fit */
    for (size_t i = 0; i < n; i++) {
        p[i] = bufs[i];
        if (p[i].size > UINT64_MAX - f->o.alignment) {
            free(p);
            return am_fail_opt(err, "alignment", "offline: request %zu of %zu planned (from 1, "
                               "in trace order) of %" PRIu64 " bytes is too large", i + 1, n,
                               bufs[i].size);
        }
        p[i].size = am_round_up(p[i].size, f->o.alignment);
        /* the sum must stay below 2^64, the first address past the plan (until 2026-11-27
         * the message said "more than 2^64 bytes", though exactly 2^64 was refused too, and
         * numbered the request from 0) */
        if (p[i].size > UINT64_MAX - total) {
            free(p);
            return am_fail_opt(err, "alignment", "offline: the planned sizes add up to 2^64 "
                               "bytes or more at request %zu of %zu planned (from 1, in trace "
                               "order; %" PRIu64 " B requested, rounded up to a multiple of "
                               "the alignment, %" PRIu64 " B): a plan's addresses could not be "
                               "represented", i + 1, n,
                               bufs[i].size, f->o.alignment);
        }
        total += p[i].size;
    }
    double limit = (double)f->o.time_limit / (double)AM_PS_PER_S;
    memset(&f->res, 0, sizeof f->res);
    if (f->o.planner == PLANNER_GREEDY) {
        f->res.peak_live = plan_peak_live(p, n);
        f->res.height = f->res.greedy_height = plan_greedy(p, n);
        f->res.proven_optimal = f->res.height <= f->res.peak_live;
    } else {
        plan_best(p, n, f->env.capacity, (plan_budget){f->o.budget, limit}, &f->res);
    }
    char why[512];
    if (plan_verify(p, n, UINT64_MAX, why, sizeof why) != 0) {
        free(p);
        return am_fail(err, AM_EINTERNAL, "offline: planner produced an overlap: %s", why);
    }
    if (f->o.planner == PLANNER_OPTIMAL && !f->res.proven_optimal) {
        uint64_t h = f->res.height, lb = f->res.peak_live;
        free(p);
        return off_unproven(f, h, lb, err);
    }
    f->n = n;
    f->event = am_malloc((n + 1) * sizeof *f->event);
    f->requested = am_malloc((n + 1) * sizeof *f->requested);
    f->offset = am_malloc((n + 1) * sizeof *f->offset);
    f->given = am_malloc((n + 1) * sizeof *f->given);
    f->blk = am_calloc(n + 1, sizeof *f->blk);
    for (size_t i = 0; i < n; i++) {
        /* the prepass plans at most one request per event and level, in event order */
        if (i && bufs[i].start <= bufs[i - 1].start) {
            free(p);
            off_drop_plan(f);
            return am_fail(err, AM_EINTERNAL, "offline: planned request %zu of %zu (from 1) "
                           "does not follow its predecessor's event", i + 1, n);
        }
        f->event[i] = bufs[i].start + 1;
        f->requested[i] = bufs[i].size;
        f->offset[i] = p[i].offset;
        f->given[i] = p[i].size;
    }
    free(p);
    f->have_plan = 1;
    char line[256];
    snprintf(line, sizeof line, "P buffers=%zu height=%" PRIu64 " lower_bound=%" PRIu64
             " greedy=%" PRIu64 " optimal=%d", n, f->res.height, f->res.peak_live,
             f->res.greedy_height, f->res.proven_optimal);
    off_log(f, line);
    return 0;
}

/* The planned request asked for by trace event `event` (1 + its index; 0: a request the run
 * makes by itself), or SIZE_MAX when none is planned: a binary search, the plan in event
 * order. */
static size_t off_find(const offline *f, uint64_t event)
{
    size_t lo = am_lower_bound_u64(f->event, f->n, event);
    return event && lo < f->n && f->event[lo] == event ? lo : SIZE_MAX;
}

/* Whether no live block holds a byte of [addr, addr + size): live blocks do not overlap, so
 * the block at or after addr and the one before it are the only candidates (O(log n)). */
static int off_range_free(const offline *f, uint64_t addr, uint64_t size)
{
    os_node *nx = os_lower_bound(&f->live, addr, 0);
    if (nx && nx->k1 < addr + size)
        return 0;
    const os_node *pv = nx ? os_prev(nx) : os_last(&f->live);
    return !pv || ob_end(pv) <= addr;
}

/* The free bytes of the arena above its last live block (0 when none), starting at *at. */
static uint64_t top_gap(const offline *f, uint64_t *at)
{
    const os_node *last = os_last(&f->live);
    uint64_t end = f->arena_addr + f->arena_size;
    *at = last ? ob_end(last) : f->arena_addr;
    return end > *at ? end - *at : 0;
}

/* The fallback of a request the plan cannot serve: the lowest free range of the arena that
 * holds `size` bytes (the gaps below the live blocks, found through the tree's maximum, then
 * the one above the last), or 0 when none does. */
static int off_first_fit(const offline *f, uint64_t size, uint64_t *addr)
{
    const os_node *n = os_first_fit(&f->live, size);
    if (n) {
        const os_node *pv = os_prev(n);
        *addr = pv ? ob_end(pv) : f->arena_addr;
        return 1;
    }
    uint64_t at;
    if (top_gap(f, &at) < size)
        return 0;
    *addr = at;
    return 1;
}

/* Block b (tree key (addr, key)) becomes live at addr, its gap and its successor's filed. */
static void off_insert(offline *f, oblk *b, uint64_t addr, uint64_t size, uint64_t requested,
                       uint64_t key)
{
    b->addr = addr;
    b->size = size;
    b->requested = requested;
    b->live = 1;
    b->by_addr.k1 = addr;
    b->by_addr.k2 = key;
    os_node *nx = os_lower_bound(&f->live, addr, key); /* the block after it */
    b->by_addr.val = gap_below(f, nx ? os_prev(nx) : os_last(&f->live), &b->by_addr);
    os_insert(&f->live, &b->by_addr);
    if (nx)
        os_set_val(&f->live, nx, gap_below(f, &b->by_addr, nx));
    f->in_use += size;
    if (f->in_use > f->peak_in_use)
        f->peak_in_use = f->in_use;
    f->num_allocs++;
}

/* A new block for a request not in the plan (or whose planned block is live already): its
 * handle and tree key follow the plan's, n + 1 on. */
static oblk *off_extra(offline *f, size_t *index)
{
    if (f->nextra == f->capextra) {
        f->capextra = f->capextra ? 2 * f->capextra : 16;
        f->extra = am_realloc(f->extra, f->capextra * sizeof *f->extra);
    }
    *index = f->n + f->nextra;
    f->extra[f->nextra] = am_calloc(1, sizeof **f->extra);
    return f->extra[f->nextra++];
}

/* The block of handle h (from 1), NULL when none or freed. */
static oblk *off_block(const offline *f, uint64_t h)
{
    if (h == 0)
        return NULL;
    if (h <= f->n)
        return &f->blk[h - 1];
    return h - f->n - 1 < f->nextra ? f->extra[h - f->n - 1] : NULL;
}

static int off_alloc(void *st, const alloc_req *r, alloc_out *o)
{
    offline *f = st;
    if (!f->have_plan) {
        if (!f->unplanned)
            off_log(f, "offline: no plan set; this policy needs every lifetime before the run "
                       "(sim/prepass.h)");
        f->unplanned++;
        return ALLOC_OOM;
    }
    f->next++;
    size_t k = off_find(f, r->event);
    if (k != SIZE_MAX && f->blk[k].live)
        k = SIZE_MAX; /* asked for twice while live: the second is not the planned one */
    int planned = k != SIZE_MAX && r->bytes == f->requested[k];
    if (!f->have_arena) {
        uint64_t h = f->res.height;
        if (f->arena_refused || h == 0 || f->env.dev_alloc(f->env.ctx, h, &f->arena_addr) != 0) {
            f->arena_refused = 1;
            if (!planned)
                f->mismatches++;
            return ALLOC_OOM;
        }
        f->have_arena = 1;
        f->arena_size = h;
    }
    uint64_t size = planned ? f->given[k] : am_round_up(r->bytes, f->o.alignment);
    uint64_t addr = planned ? f->arena_addr + f->offset[k] : 0;
    if (!planned || !off_range_free(f, addr, size)) {
        /* the plan cannot be followed here: first fit, never over a live block */
        f->mismatches++;
        planned = 0;
        if (!off_first_fit(f, size, &addr)) /* r->bytes is at most 4 EiB (mem_alloc_attempt) */
            return ALLOC_OOM;
    }
    size_t index = k;
    oblk *b = k != SIZE_MAX ? &f->blk[k] : off_extra(f, &index);
    b->on_plan = planned;
    off_insert(f, b, addr, size, r->bytes, index);
    o->addr = addr;
    o->size = size;
    o->handle = index + 1;
    return ALLOC_OK;
}

static void off_free(void *st, uint64_t handle)
{
    offline *f = st;
    oblk *b = off_block(f, handle);
    if (!b || !b->live)
        return;
    os_node *pv = os_prev(&b->by_addr), *nx = os_next(&b->by_addr);
    os_remove(&f->live, &b->by_addr);
    if (nx)
        os_set_val(&f->live, nx, gap_below(f, pv, nx));
    b->live = 0;
    f->in_use -= b->size;
    if (handle > f->n) { /* a fallback's block is not reused: its handle dies with it */
        free(b);
        f->extra[handle - f->n - 1] = NULL;
    }
}

/* Free ranges of the arena: the gaps below the live blocks (the largest in the tree's subtree
 * maximum) and the one above the last. */
static uint64_t off_largest_free(void *st)
{
    offline *f = st;
    if (!f->have_arena)
        return 0;
    uint64_t at, best = f->live.root ? f->live.root->aug : 0;
    return AM_MAX(top_gap(f, &at), best);
}

/* Peaks back to the current values (alloc.h reset_peaks). */
static void off_reset_peaks(void *st)
{
    offline *f = st;
    f->peak_in_use = f->in_use;
}

static void off_stats(void *st, const stat_sink *s)
{
    offline *f = st;
    s->cur_peak(s->ctx, "bytes_in_use", f->in_use, f->peak_in_use);
    s->u64(s->ctx, "arena_bytes", f->have_arena ? f->arena_size : 0);
    s->u64(s->ctx, "num_allocs", f->num_allocs);
    s->u64(s->ctx, "plan_buffers", f->n);
    s->u64(s->ctx, "plan_height_bytes", f->res.height);
    s->u64(s->ctx, "plan_lower_bound_bytes", f->res.peak_live);
    s->u64(s->ctx, "plan_gap_bytes", f->res.height - AM_MIN(f->res.height, f->res.peak_live));
    s->real(s->ctx, "plan_gap_fraction",
            f->res.peak_live ? (double)(f->res.height - AM_MIN(f->res.height, f->res.peak_live)) /
                               (double)f->res.peak_live : 0.0, !f->have_plan || !f->res.peak_live);
    s->u64(s->ctx, "greedy_height_bytes", f->res.greedy_height);
    s->u64(s->ctx, "plan_proven_optimal", (uint64_t)f->res.proven_optimal);
    s->u64(s->ctx, "plan_searches", (uint64_t)f->res.searches);
    s->u64(s->ctx, "plan_search_work", f->res.work);
    s->u64(s->ctx, "plan_mismatches", f->mismatches);
    s->u64(s->ctx, "unplanned_requests", f->unplanned);
    s->u64(s->ctx, "ooms", f->ooms);
}

static void off_walk(void *st, void (*fn)(void *arg, const alloc_block *b), void *arg)
{
    offline *f = st;
    if (!f->have_arena)
        return;
    uint64_t at = f->arena_addr, end = f->arena_addr + f->arena_size;
    for (os_node *n = os_first(&f->live); n; n = os_next(n)) {
        oblk *b = OB_OF(n);
        if (b->addr > at) {
            alloc_block g = {at, b->addr - at, 0, 0, f->arena_addr};
            fn(arg, &g);
        }
        alloc_block u = {b->addr, b->size, b->requested, 1, f->arena_addr};
        fn(arg, &u);
        if (b->addr + b->size > at)
            at = b->addr + b->size;
    }
    if (end > at) {
        alloc_block g = {at, end - at, 0, 0, f->arena_addr};
        fn(arg, &g);
    }
}

static int off_check(void *st, am_error *err)
{
    offline *f = st;
    int bad = 0;
    if (f->unplanned) {
        if (!bad++)
            am_fail(err, AM_EINPUT, "offline: %" PRIu64 " requests arrived without a plan (the "
                "policy needs every lifetime before the run: sim/prepass.h prepass_attach)",
                f->unplanned);
    }
    if (os_check(&f->live)) {
        if (!bad++)
            am_fail(err, AM_EINTERNAL, "offline: live set corrupt");
    }
    uint64_t last_end = 0, sum = 0;
    for (os_node *n = os_first(&f->live), *p = NULL; n; p = n, n = os_next(n)) {
        oblk *b = OB_OF(n);
        size_t k = (size_t)n->k2;
        if (n->val != gap_below(f, p, n)) {
            if (!bad++)
                am_fail(err, AM_EINTERNAL, "offline: live block %zu at %" PRIu64 " files a gap "
                        "of %" PRIu64 " bytes below it, not %" PRIu64, k, b->addr, n->val,
                        gap_below(f, p, n));
        }
        if (b->addr < last_end || b->addr < f->arena_addr ||
            b->addr + b->size > f->arena_addr + f->arena_size ||
            (b->on_plan && (k >= f->n || b->addr != f->arena_addr + f->offset[k]))) {
            if (!bad++)
                am_fail(err, AM_EINTERNAL, "offline: live block %zu at %" PRIu64 " (%" PRIu64
                    " bytes) overlaps its neighbour, leaves the arena or is off its plan", k,
                    b->addr, b->size);
        }
        last_end = AM_MAX(last_end, b->addr + b->size);
        sum += b->size;
    }
    if (sum != f->in_use) {
        if (!bad++)
            am_fail(err, AM_EINTERNAL, "offline: live blocks hold %" PRIu64 " bytes, counted %" PRIu64,
                sum, f->in_use);
    }
    return bad;
}

/* A refused request finally failed (alloc.h count_oom): the one place ooms grows. */
static void off_count_oom(void *st) { ((offline *)st)->ooms++; }

static const struct alloc_ops offline_ops = {
    .name = "offline",
    .summary = "placement planned before the run from every lifetime (greedy best fit or exact "
               "search), one arena of the plan's height",
    .opts = off_opt_table,
    .opts_size = sizeof(struct off_opts),
    .create = off_create,
    .check_opts = off_check_opts,
    .destroy = off_destroy,
    .alloc = off_alloc,
    .free = off_free,
    .largest_free = off_largest_free,
    .stats = off_stats,
    .reset_peaks = off_reset_peaks,
    .walk = off_walk,
    .check = off_check,
    .set_plan = off_set_plan,
    .count_oom = off_count_oom,
};

const struct alloc_ops *alloc_offline_ops(void);
const struct alloc_ops *alloc_offline_ops(void) { return &offline_ops; }
