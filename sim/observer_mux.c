/* observer_mux.c - forwards every observer callback to each chained observer, in order. */
#include "observer_mux.h"

#include <string.h>

#define MUX_EACH(m, cb, ...)                                                                  \
    for (int i_ = 0; i_ < (m)->n; i_++)                                                       \
        if ((m)->to[i_]->cb)                                                                  \
            (m)->to[i_]->cb((m)->to[i_]->ctx, __VA_ARGS__)

static void mux_alloc(void *ctx, am_ps t, uint64_t seq, uint64_t id, int level, uint32_t stream,
                      uint64_t addr, uint64_t requested, uint64_t size, int ok, const char *name)
{
    obs_mux *m = ctx;
    MUX_EACH(m, alloc, t, seq, id, level, stream, addr, requested, size, ok, name);
}

static void mux_free(void *ctx, am_ps t, uint64_t id, int level, uint32_t stream, uint64_t addr,
                     uint64_t requested, uint64_t size, int phase)
{
    obs_mux *m = ctx;
    MUX_EACH(m, free, t, id, level, stream, addr, requested, size, phase);
}

static void mux_device(void *ctx, am_ps t, int level, int alloc, uint64_t addr, uint64_t bytes)
{
    obs_mux *m = ctx;
    MUX_EACH(m, device, t, level, alloc, addr, bytes);
}

static void mux_counters(void *ctx, am_ps t, int level, const mem_metrics *mm)
{
    obs_mux *m = ctx;
    MUX_EACH(m, counters, t, level, mm);
}

static void mux_op(void *ctx, uint32_t stream, am_ps start, am_ps end, int chan, uint64_t bytes,
                   const char *name)
{
    obs_mux *m = ctx;
    MUX_EACH(m, op, stream, start, end, chan, bytes, name);
}

static void mux_action(void *ctx, const char *what, int level, am_ps start, am_ps end,
                       uint64_t bytes)
{
    obs_mux *m = ctx;
    MUX_EACH(m, action, what, level, start, end, bytes);
}

static void mux_link(void *ctx, int chan, uint32_t stream, am_ps start, am_ps end,
                     uint64_t bytes)
{
    obs_mux *m = ctx;
    MUX_EACH(m, link, chan, stream, start, end, bytes);
}

static void mux_move(void *ctx, am_ps t, uint64_t seq, uint64_t id, uint32_t stream,
                     int from_level, uint64_t from_addr, uint64_t from_size, int level,
                     uint64_t addr, uint64_t requested, uint64_t size, const char *name)
{
    obs_mux *m = ctx;
    MUX_EACH(m, move, t, seq, id, stream, from_level, from_addr, from_size, level, addr,
             requested, size, name);
}

static void mux_oom(void *ctx, am_ps t, uint64_t seq, uint64_t id, int level, uint32_t stream,
                    uint64_t requested, const char *what, const char *name)
{
    obs_mux *m = ctx;
    MUX_EACH(m, oom, t, seq, id, level, stream, requested, what, name);
}


static void mux_free_failed(void *ctx, am_ps t, uint64_t id, int level, uint32_t stream,
                            uint64_t requested, int phase)
{
    obs_mux *m = ctx;
    MUX_EACH(m, free_failed, t, id, level, stream, requested, phase);
}

static void mux_prologue(void *ctx, int on)
{
    obs_mux *m = ctx;
    MUX_EACH(m, prologue, on);
}

static void mux_attempt_failed(void *ctx, am_ps t, int level, uint32_t stream,
                               uint64_t requested)
{
    obs_mux *m = ctx;
    MUX_EACH(m, attempt_failed, t, level, stream, requested);
}

static void mux_defrag_free(void *ctx, am_ps t, uint64_t seq, uint64_t id, uint32_t stream,
                            int level, uint64_t addr, uint64_t requested, uint64_t size)
{
    obs_mux *m = ctx;
    MUX_EACH(m, defrag_free, t, seq, id, stream, level, addr, requested, size);
}

static void mux_copy(void *ctx, int chan, am_ps start, am_ps end, uint64_t bytes,
                     const char *what, uint64_t id, int level)
{
    obs_mux *m = ctx;
    MUX_EACH(m, copy, chan, start, end, bytes, what, id, level);
}

static void mux_event(void *ctx, am_ps t)
{
    obs_mux *m = ctx;
    MUX_EACH(m, event, t);
}

const sim_observer *obs_mux_init(obs_mux *m, const sim_observer *const *list, int n)
{
    memset(m, 0, sizeof *m);
    for (int i = 0; i < n && m->n < OBS_MUX_MAX; i++)
        if (list[i])
            m->to[m->n++] = list[i];
    if (m->n <= 1)
        return m->n ? m->to[0] : NULL;
    m->obs = (sim_observer){m, mux_alloc, mux_free, mux_device, mux_counters, mux_op, mux_action,
                            mux_link, mux_move, mux_oom,
                            mux_prologue, mux_free_failed, mux_event,
                            mux_attempt_failed, mux_defrag_free, mux_copy};
    /* the engine calls `event` once per trace event, and keeps a note of each runtime copy
     * for `copy`: leave them unset when no observer wants them */
    int want_event = 0, want_copy = 0;
    for (int i = 0; i < m->n; i++) {
        want_event |= m->to[i]->event != NULL;
        want_copy |= m->to[i]->copy != NULL;
    }
    if (!want_event)
        m->obs.event = NULL;
    if (!want_copy)
        m->obs.copy = NULL;
    return &m->obs;
}
