/* prepass.c - one read of a trace to build per-level buffer lists for offline planning.
 *
 * Live buffer ids map to (level, index in that level's list) through an open-addressing hash
 * table with linear probing and backward-shift deletion, so ids may be reused after a free. */
#include "prepass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct pp_slot {
    uint64_t id;
    int32_t level; /* -1: empty */
    size_t idx;    /* with planned: the buffer's index in its level's list */
    uint64_t size; /* requested bytes (a donation matches on them) */
    int requested; /* free_requested seen: no longer a donor the engine matches */
    /* 0: an id the engine knows but never asks a policy to serve, whatever the capacity (an
     * allocation over 4 EiB, an into= of a transfer that does not happen): its id is taken
     * until its free, as the engine's out-of-memory slot is, but nothing is planned */
    int planned;
    /* with !planned: the engine's FR_ANY (an into= no capacity would allocate: the guard
     * rejects its transfer, or its id= is unknown): its frees may come in any order and it
     * is never a donor whose id a donation ends */
    int any;
} pp_slot;

typedef struct pp_map {
    pp_slot *s;
    size_t cap, n; /* cap a power of two */
} pp_map;

static size_t pp_hash(uint64_t id, size_t cap) { return (size_t)am_hash_u64(id) & (cap - 1); }

static void pp_init(pp_map *m, size_t cap)
{
    m->cap = cap;
    m->n = 0;
    m->s = am_malloc(cap * sizeof *m->s);
    for (size_t i = 0; i < cap; i++)
        m->s[i].level = -1;
}

static pp_slot *pp_find(pp_map *m, uint64_t id)
{
    for (size_t i = pp_hash(id, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->s[i].level < 0)
            return NULL;
        if (m->s[i].id == id)
            return &m->s[i];
    }
}

static void pp_put(pp_map *m, pp_slot v);

static void pp_grow(pp_map *m)
{
    pp_map old = *m;
    pp_init(m, old.cap * 2);
    for (size_t i = 0; i < old.cap; i++)
        if (old.s[i].level >= 0)
            pp_put(m, old.s[i]);
    free(old.s);
}

/* Insert or replace the slot of v.id. */
static void pp_put(pp_map *m, pp_slot v)
{
    if (2 * (m->n + 1) > m->cap)
        pp_grow(m);
    size_t i = pp_hash(v.id, m->cap);
    while (m->s[i].level >= 0 && m->s[i].id != v.id)
        i = (i + 1) & (m->cap - 1);
    if (m->s[i].level < 0)
        m->n++;
    m->s[i] = v;
}

static void pp_del(pp_map *m, pp_slot *x)
{
    size_t i = (size_t)(x - m->s), j = i;
    m->s[i].level = -1;
    m->n--;
    for (;;) {
        j = (j + 1) & (m->cap - 1);
        if (m->s[j].level < 0)
            return;
        size_t home = pp_hash(m->s[j].id, m->cap);
        /* move j back to the hole at i unless its home lies cyclically in (i, j] */
        if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
            m->s[i] = m->s[j];
            m->s[j].level = -1;
            i = j;
        }
    }
}

/* Buffer p's lifetime ends at event index `index`, trace time `t`: its span, which held its
 * allocation's time while it was live, becomes its length in trace time; without a time at
 * either end it has none (timed 0). */
static void pp_close(plan_buf *p, uint64_t index, am_ps t)
{
    p->end = index;
    if (p->timed && t != AM_TIME_NONE)
        p->span = t > p->span ? t - p->span : 0;
    else
        p->timed = 0, p->span = 0;
}

/* An id the engine knows without memory, whatever the capacity (pp_slot.planned 0). */
static void pp_known(pp_map *m, int l, uint64_t id, uint64_t bytes, int any)
{
    pp_put(m, (pp_slot){id, l, 0, bytes, 0, 0, any});
}

/* A buffer of `bytes` for `id` on level l, requested at event index `index`. A request the
 * policy never sees is not planned: the engine skips a 0-byte one before looking at the id
 * (do_alloc, under --lenient), and one over 4 EiB fails before the policy sees it (in
 * mem_alloc_attempt; its id then stays known until its free, with no memory, so a transfer from
 * it does not happen either). A plan holds only what the policy is asked for, in order: until
 * 2026-11-27 such requests were planned too, so the next request took the place of a request
 * never made (and failed as a mismatch), and a few near 2^64 bytes made the planned sizes
 * overflow 2^64, an input error. */
static void pp_add(pp_map *m, plan_buf **per_level, size_t *counts, size_t *cap, int l,
                   uint64_t id, uint64_t bytes, uint64_t index, am_ps t0)
{
    if (bytes == 0)
        return;
    if (bytes > AM_MAX_BYTES) {
        if (!pp_find(m, id)) /* a still-live id: the engine stops at the duplicate */
            pp_known(m, l, id, bytes, 0);
        return;
    }
    if (counts[l] == cap[l]) {
        cap[l] = cap[l] ? 2 * cap[l] : 256;
        per_level[l] = am_realloc(per_level[l], cap[l] * sizeof **per_level);
    }
    /* a still-live id allocated again: the old buffer stays live to the end; span holds the
     * allocation's time until pp_close */
    int timed = t0 != AM_TIME_NONE;
    per_level[l][counts[l]] = (plan_buf){index, UINT64_MAX, bytes, 0, timed ? t0 : 0, timed};
    pp_put(m, (pp_slot){id, l, counts[l], bytes, 0, 1, 0});
    counts[l]++;
}

/* An `alloc` on level ev->level (in range), as the engine's do_alloc takes it: a 0-byte one
 * skipped whole (--lenient); a donation the engine matches (donor planned, not
 * free_requested, same level and size) makes no request, and the donor's buffer lives on under
 * the new id until that one is freed; a donor without memory whatever the capacity does not
 * match, and its id ends as the engine's donor_released ends it. */
static void pp_alloc(pp_map *m, plan_buf **per_level, size_t *counts, size_t *cap,
                     const tr_event *ev, uint64_t index)
{
    if (ev->bytes == 0)
        return;
    pp_slot *d = ev->has_donate && ev->donate != ev->id ? pp_find(m, ev->donate) : NULL;
    int fits = d && d->level == ev->level && d->size == ev->bytes && !d->requested;
    if (fits && d->planned) {
        pp_slot v = *d;
        pp_del(m, d);
        v.id = ev->id;
        pp_put(m, v);
        return;
    }
    if (fits && !d->any)
        pp_del(m, d);
    pp_add(m, per_level, counts, cap, ev->level, ev->id, ev->bytes, index, ev->time);
}

/* A `transfer ... into=` onto level ev->dst_level (in range), as the engine's other_event
 * takes it: with an id= the engine does not know (--lenient skips the transfer), rejected by
 * cfg's transfer guard, or from a source that has no memory whatever the capacity, the
 * transfer does not happen and its into= stays known without memory; otherwise the
 * destination buffer is requested there first. Until 2026-11-27 only the guard was mirrored,
 * and the plan held a buffer the engine never asked for. */
static void pp_transfer(pp_map *m, plan_buf **per_level, size_t *counts, size_t *cap,
                        const am_config *cfg, const tr_event *ev, uint64_t index)
{
    const pp_slot *src = ev->id != TR_NO_ID ? pp_find(m, ev->id) : NULL;
    int dir;
    if ((ev->id != TR_NO_ID && !src) ||
        (cfg && cfg_guard_rejects(cfg, ev->level, ev->dst_level, ev->implicit, &dir))) {
        pp_known(m, ev->dst_level, ev->into, ev->bytes, 1);
        return;
    }
    if (src && !src->planned) {
        pp_known(m, ev->dst_level, ev->into, ev->bytes, 0);
        return;
    }
    pp_add(m, per_level, counts, cap, ev->dst_level, ev->into, ev->bytes, index, ev->time);
}

/* A free (phase `kind`) of a known id, as the engine's do_free takes it: a free_completed
 * without its free_requested is skipped (--lenient) and the buffer stays live, unless the id is
 * an into= no capacity allocated (its frees come in any order); a planned buffer's lifetime
 * ends at `free` or `free_completed`. Until 2026-11-27 such a skipped free_completed ended the
 * planned lifetime, and the next buffer was planned over one still live. */
static void pp_free(pp_map *m, plan_buf **per_level, pp_slot *x, int kind, uint64_t index,
                    am_ps t)
{
    if (kind == TR_FREE_REQUESTED) {
        x->requested = 1; /* a planned block stays planned until free_completed */
        return;
    }
    if (kind == TR_FREE_COMPLETED && !x->requested && !x->any) /* any: never planned */
        return;
    if (x->planned)
        pp_close(&per_level[x->level][x->idx], index, t);
    pp_del(m, x);
}

int prepass_collect(const char *trace_path, const trace_opts *o, const am_config *cfg,
                    int nlevels, plan_buf **per_level, size_t *counts, am_error *err)
{
    size_t *cap = am_calloc((size_t)nlevels + 1, sizeof *cap);
    for (int i = 0; i < nlevels; i++) {
        per_level[i] = NULL;
        counts[i] = 0;
    }
    trace *t = NULL;
    pp_map m;
    pp_init(&m, 1024);
    int rc = -1;
    if (trace_open(&t, trace_path, o, err) != 0)
        goto out;
    tr_event ev;
    uint64_t index = 0;
    am_ps last = AM_TIME_NONE;
    int r;
    while ((r = trace_next(t, &ev, err)) == 1) {
        /* the engine's rules, including what --lenient skips (a 0-byte allocation, a free or
         * use of an unknown id, a transfer from an unknown id, a free_completed without its
         * free_requested, a second free_requested): a skipped event plans nothing and ends no
         * lifetime */
        if (ev.kind == TR_ALLOC && ev.level >= 0 && ev.level < nlevels) {
            pp_alloc(&m, per_level, counts, cap, &ev, index);
        } else if (ev.kind == TR_TRANSFER && ev.has_into && ev.dst_level >= 0 &&
                   ev.dst_level < nlevels) {
            pp_transfer(&m, per_level, counts, cap, cfg, &ev, index);
        } else if (ev.kind == TR_FREE || ev.kind == TR_FREE_REQUESTED ||
                   ev.kind == TR_FREE_COMPLETED) {
            pp_slot *x = pp_find(&m, ev.id);
            if (x) /* frees of unknown ids are the engine's to report */
                pp_free(&m, per_level, x, ev.kind, index, ev.time);
        }
        if (ev.time != AM_TIME_NONE && (last == AM_TIME_NONE || ev.time > last))
            last = ev.time;
        index++;
    }
    if (r < 0)
        goto out;
    /* never freed (an id allocated again while live included): live to the end of the
     * trace, its last time */
    for (int l = 0; l < nlevels; l++)
        for (size_t i = 0; i < counts[l]; i++)
            if (per_level[l][i].end == UINT64_MAX)
                pp_close(&per_level[l][i], index, last);
    rc = 0;
out:
    if (rc != 0)
        for (int i = 0; i < nlevels; i++) {
            free(per_level[i]);
            per_level[i] = NULL;
            counts[i] = 0;
        }
    trace_close(t);
    free(m.s);
    free(cap);
    return rc;
}

int prepass_attach(sim *s, const am_config *cfg, const char *trace_path, const trace_opts *o,
                   int progress, am_error *err)
{
    int n = sim_nlevels(s);
    if (cfg && cfg->nlevels < n)
        n = cfg->nlevels;
    int need = 0;
    for (int i = 0; i < n; i++) {
        const struct alloc_ops *ops = mem_policy(sim_level(s, i));
        if (ops && ops->set_plan)
            need = 1;
    }
    if (!need)
        return 0;
    int show = progress && isatty(2);
    if (show)
        am_progress("amsim: reading every lifetime for the offline plan");
    plan_buf **lists = am_calloc((size_t)n + 1, sizeof *lists);
    size_t *counts = am_calloc((size_t)n + 1, sizeof *counts);
    int rc = prepass_collect(trace_path, o, cfg, n, lists, counts, err);
    for (int i = 0; i < n && rc == 0; i++) {
        mem_level *m = sim_level(s, i);
        const struct alloc_ops *ops = mem_policy(m);
        if (!ops || !ops->set_plan)
            continue;
        if (show)
            am_progress("amsim: planning %zu buffers of %s", counts[i], mem_name(m));
        for (size_t k = 0; k < counts[i]; k++) /* planned as they will be asked for */
            lists[i][k].size = mem_padded(m, lists[i][k].size);
        if (ops->set_plan(mem_policy_state(m), lists[i], counts[i], err)) {
            /* a plan the options cannot give (planner: optimal without a proof): at the option
             * the user set, as a policy's refusal at creation is (contract: status-1 errors
             * carry FILE:LINE:COL); until 2026-11-27 the message had no position */
            if (cfg && err->status == AM_EINPUT)
                sim_level_error_at(cfg, i, err);
            rc = -1;
        }
    }
    am_progress_clear();
    for (int i = 0; i < n; i++)
        free(lists[i]);
    free(lists);
    free(counts);
    return rc;
}
