/* link.c - processor-sharing transfer channel (see link.h). */
#include "link.h"

#include <stdlib.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;

typedef struct xfer {
    uint64_t tag, bytes;
    uint64_t order;        /* ties among arrivals at one picosecond go by it (link.h) */
    int side;              /* 0 or 1 (link.h) */
    int rt;                /* a runtime copy (link_submit_runtime): shares, counted apart */
    int sharing;           /* in the data phase: counted in ndata, fin is set */
    am_ps submit, started; /* submitted; taken (in flight from then on) */
    am_ps data_at;         /* data phase starts at data_at + data_frac / (bw << MAX_SHIFT) ps */
    u128 data_frac;        /* (a fraction: taken from the queue, a transfer starts at the exact
                            * instant of the completion that freed its slot) */
    u128 fin;              /* sharing: the channel's virtual work at which it is done */
} xfer;

/* Processor sharing is kept as virtual work: v is the work served to each sharing transfer
 * since the channel last had none, in units of 2^-shift work unit (work: bytes x 1e12 x den),
 * and it grows at tps / ndata per ps (tps = bw x 2^shift). A transfer entering its data phase
 * when the virtual work is v finishes when it reaches fin = v + its work, whatever happens
 * meanwhile. The anchor is the exact instant (a_ps + a_frac / tps picoseconds) at which v was
 * last set: a completion moves it to its own exact instant, so completion times are computed
 * from exact remaining work and rounded up to the picosecond only when reported, never
 * accumulated. The one rounding is where a transfer enters its data phase while others share
 * (v is then rounded up to a 2^-shift unit, under ndata / tps ps; shift is 0 while a transfer
 * is alone, and up to 40 once others join, as fine as the sharing works allow: 1000 transfers
 * of up to 1 MB sharing a 3 B/s link are off by under 1e-9 ps per entry).
 * Until 2026-11-27 each transfer's remaining work was decremented by a rounded-down share at
 * every event and each completion rounded up from there: completions drifted later, ~1/3 ps
 * per completion for 1000 transfers sharing a 3 B/s link.
 * A transfer waiting behind the concurrency limit is taken at the exact instant of the
 * completion that frees its slot: its latency, then its data phase, run from that instant (kept
 * as data_at plus a fraction in 2^-MAX_SHIFT / bw ps, exact for any scale), and the anchor
 * moves there exactly. Entering alone, the scale is the coarsest that holds that fraction (0 for
 * a whole picosecond, as before); entering while others share, the fraction is rounded up to the
 * current scale when coarser (only after a bigger work joined meanwhile). Until 2026-11-27 it
 * started at the completion rounded up to the picosecond, so a queue drifted up to 1 ps later
 * per transfer (1000 1-byte transfers one at a time on 3 B/s ended 666 ps late). */
enum { MAX_SHIFT = 40 };               /* the finest sub-unit: 2^-40 work unit */
struct link_chan {
    uint64_t bw;           /* effective bandwidth x den: work units (bytes x 1e12 x den) per ps */
    uint64_t den;          /* the bandwidth's denominator (1 for whole bytes per second) */
    am_ps latency;
    uint32_t conc;
    am_ps now;             /* time the statistics below describe */
    int shift;             /* v and fin count 2^-shift work units (shift_for) */
    u128 tps;              /* bw << shift: v's growth per ps with one transfer sharing */
    u128 v;                /* virtual work at the anchor */
    am_ps a_ps;            /* the anchor: a_ps + a_frac / tps picoseconds, a_frac < tps */
    u128 a_frac;
    unsigned ndata;        /* transfers sharing the bandwidth (in their data phase) */
    xfer *fl;              /* in flight, in submission order */
    size_t nfl, capfl;
    uint32_t nside[2];     /* of those in flight, the trace's own (not runtime copies) on each
                            * side: trace_in_flight sums them (until 2026-11-28 a field kept
                            * the sum too) */
    uint32_t nall[2];      /* of all in flight (the runtime's copies too), on each side */
    int nx_known;          /* the next event below is up to date (link_next_time is called for
                            * every channel at every engine step: it is remembered) */
    int nx_kind;
    am_ps nx_ps;
    u128 nx_frac;
    size_t nx_which;
    xfer *q;               /* waiting behind the concurrency limit (a ring, in arrival order:
                            * by submission time, then order) */
    size_t qh, qn, capq;
    uint64_t seq;
    link_stats st;         /* the channel */
    link_stats side[2];    /* per side */
    /* Busy time of the link this channel is a direction of: a transfer in flight on it or on
     * its paired channel (link_pair), the union, not the sum. Kept at the instants a channel
     * turns busy or idle, which come in time order across channels (the engine takes every
     * channel's events in one order), so two lazily advanced clocks need not agree. */
    link_either own;       /* the tracker, unless this channel is paired to another's */
    link_either *either;   /* own, or the first channel's of the pair */
    int busy;              /* a trace transfer in flight (trace_in_flight) when either last heard */
    int all;               /* anything in flight (nfl > 0) when either last heard */
};

link_chan *link_create(uint64_t bandwidth_bps, am_ps latency, uint32_t concurrency)
{
    return link_create_rate(bandwidth_bps, 1, latency, concurrency);
}

link_chan *link_create_rate(uint64_t num, uint64_t den, am_ps latency, uint32_t concurrency)
{
    link_chan *l = am_calloc(1, sizeof *l);
    l->bw = num ? num : 1;
    l->den = den ? den : 1;
    l->latency = latency;
    l->conc = concurrency;
    l->tps = l->bw;
    l->either = &l->own;
    return l;
}

void link_pair(link_chan *a, link_chan *b)
{
    b->either = a->either;
}

/* The trace's transfers in flight (not runtime copies), both sides. */
static uint32_t trace_in_flight(const link_chan *l) { return l->nside[0] + l->nside[1]; }

/* A tracker's busy time up to now: its closed periods and the open one. */
static am_ps span_total(const link_busy *b, am_ps now)
{
    return b->n ? b->ps + (now - b->since) : b->ps;
}

am_ps link_busy_either(const link_chan *l)
{
    const link_either *e = l->either;
    return span_total(&e->trace, e->now);
}

/* A tracker (link_either.trace or .all): one more, or one fewer, in flight at t. */
static void either_up(link_busy *b, am_ps t)
{
    if (b->n++ == 0)
        b->since = t;
}

static void either_down(link_busy *b, am_ps t)
{
    if (--b->n == 0)
        b->ps += t - b->since;
}

/* Tell the link's tracker when this channel turns busy or idle (after fl changed, at now). */
static void note_busy(link_chan *l)
{
    int b = trace_in_flight(l) > 0;
    if (b == l->busy)
        return;
    l->busy = b;
    if (b)
        either_up(&l->either->trace, l->now);
    else
        either_down(&l->either->trace, l->now);
}

/* The copies timed alone were told before the clocks reached them: each one's start and end
 * count once a channel's clock (the instants come in time order) gets to them. */
static void either_catch_up(link_either *e, am_ps t)
{
    while (e->alone_head < e->nalone) {
        const am_ps *span = e->alone[e->alone_head];
        if (!e->started) {
            if (span[0] > t)
                return;
            either_up(&e->all, span[0]);
            e->started = 1;
        }
        if (span[1] > t)
            return;
        either_down(&e->all, span[1]);
        e->started = 0;
        e->alone_head++;
    }
    e->alone_head = e->nalone = 0;
}

/* Tell the tracker when this channel has anything in flight, or nothing (after fl changed). */
static void note_all(link_chan *l)
{
    int b = l->nfl > 0;
    if (b == l->all)
        return;
    l->all = b;
    either_catch_up(l->either, l->now);
    if (b)
        either_up(&l->either->all, l->now);
    else
        either_down(&l->either->all, l->now);
}

am_ps link_busy_either_all(link_chan *l)
{
    link_either *e = l->either;
    either_catch_up(e, AM_PS_MAX);
    return span_total(&e->all, AM_MAX(e->now, e->all.since));
}

void link_destroy(link_chan *l)
{
    if (!l)
        return;
    free(l->fl);
    free(l->q);
    free(l->own.alone);
    free(l);
}

/* Move the anchor to the instant t + f / tps (at or after it). The virtual work there is
 * rounded up to a 2^-shift unit when it is not whole (only when a transfer enters while others
 * share): the sharing transfers' completions come under ndata / tps ps early, which rounding
 * them up to the picosecond absorbs unless the exact instant is that close above a whole ps
 * (rounding down instead made an exact whole-ps completion 1 ps late). With nothing sharing it
 * restarts from 0, so v stays small. */
static void anchor_at(link_chan *l, am_ps t, u128 f)
{
    if (l->ndata == 0)
        l->v = 0;
    else if (t < l->a_ps || (t == l->a_ps && f < l->a_frac))
        return; /* not after the anchor: events are taken in order, so never */
    else {
        /* v += ceil((dt x tps + f - a_frac) / ndata), with dt split as qd ndata + rd (rd at
         * least ndata when qd is taken from, so that rd tps + f - a_frac >= 0 and fits: under
         * 2^124) */
        u128 n = l->ndata, dt = t - l->a_ps, qd = dt / n, rd = dt - qd * n;
        if (qd) {
            qd--;
            rd += n;
        }
        u128 part = (rd * l->tps + f - l->a_frac + n - 1) / n;
        if (qd > (~(u128)0 - part - l->v) / l->tps)
            l->v = ~(u128)0; /* past every finish: cannot happen, events are taken in order */
        else
            l->v += qd * l->tps + part;
    }
    l->a_ps = t;
    l->a_frac = f;
}

static int bits128(u128 x)
{
    int n = 0;
    for (; x >> 64; x >>= 64)
        n += 64;
    return n + (x ? 64 - __builtin_clzll((uint64_t)x) : 0);
}

/* The finest scale for a work: the scaled work below 2^100 and tps below 2^90 (so that
 * finish_at's products fit), at most MAX_SHIFT. */
static int shift_for(u128 work, uint64_t bw)
{
    int s = MAX_SHIFT;
    if (100 - bits128(work) < s)
        s = 100 - bits128(work);
    if (90 - bits128(bw) < s)
        s = 90 - bits128(bw);
    return s < 0 ? 0 : s;
}

/* Count v from 0 again (it would grow without bound while the channel stays busy); returns
 * the largest remaining work, in 2^-shift units. */
static u128 rebase(link_chan *l)
{
    u128 most = 0;
    for (size_t i = 0; i < l->nfl; i++)
        if (l->fl[i].sharing) {
            l->fl[i].fin = l->fl[i].fin > l->v ? l->fl[i].fin - l->v : 0;
            if (l->fl[i].fin > most)
                most = l->fl[i].fin;
        }
    l->v = 0;
    return most;
}

/* v / 2^d rounded up. */
static u128 shr_ceil(u128 v, int d)
{
    return (v >> d) + ((v & (((u128)1 << d) - 1)) != 0);
}

/* Go to scale s (v = 0). A finer one is exact (everything doubles); a coarser one (a bigger work
 * enters while others share) rounds the finishes up, as anchor_at rounds, and an anchor between
 * two units of the new scale down (under 1 / tps ps: completions early, as anchor_at's v). */
static void rescale(link_chan *l, int s)
{
    for (size_t i = 0; i < l->nfl; i++) {
        xfer *x = &l->fl[i];
        if (!x->sharing)
            continue;
        if (s > l->shift)
            x->fin <<= s - l->shift;
        else {
            x->fin = shr_ceil(x->fin, l->shift - s);
        }
    }
    l->a_frac = s > l->shift ? l->a_frac << (s - l->shift) : l->a_frac >> (l->shift - s);
    l->shift = s;
    l->tps = (u128)l->bw << s;
}

/* x's data-phase start at scale s: *t + *f / (bw << s) ps, its fraction rounded up when s
 * cannot hold it exactly. */
static void entry_at(const link_chan *l, const xfer *x, int s, am_ps *t, u128 *f)
{
    *t = x->data_at;
    *f = shr_ceil(x->data_frac, MAX_SHIFT - s);
    if (*f == (u128)l->bw << s) { /* rounded up to the next picosecond */
        *t += 1;
        *f = 0;
    }
}

/* The coarsest scale at which x's data-phase start is exact, at most `most` (0 at a whole ps). */
static int entry_shift(const xfer *x, int most)
{
    uint64_t lo = (uint64_t)x->data_frac; /* MAX_SHIFT < 64: the low bits say it all */
    int tz = lo ? __builtin_ctzll(lo) : 64;
    int s = MAX_SHIFT - (tz < MAX_SHIFT ? tz : MAX_SHIFT);
    return s < most ? s : most;
}

/* x enters its data phase at its data_at (+ data_frac): no completion falls before. Alone it
 * counts whole work units (as fast as can be) unless it starts between picoseconds (taken from
 * the queue); joining others, the scale becomes as fine as the works allow (shift_for), so that
 * rounding v at later entries costs next to nothing. */
static void enter_data(link_chan *l, xfer *x)
{
    u128 work = (u128)x->bytes * AM_PS_PER_S * l->den;
    am_ps t;
    u128 f;
    if (l->ndata == 0) {
        l->shift = entry_shift(x, shift_for(work, l->bw));
        l->tps = (u128)l->bw << l->shift;
        entry_at(l, x, l->shift, &t, &f);
        anchor_at(l, t, f);
    } else {
        entry_at(l, x, l->shift, &t, &f);
        anchor_at(l, t, f);
        u128 most = rebase(l) >> l->shift;
        int s = shift_for(most + 1 > work ? most + 1 : work, l->bw);
        if (s != l->shift)
            rescale(l, s);
    }
    x->fin = l->v + (work << l->shift);
    x->sharing = 1;
    l->ndata++;
    l->nx_known = 0;
}

/* Take x now, its latency running from the instant at + at_frac / (bw << MAX_SHIFT) ps (at
 * most now: the completion that freed its slot, or now itself). */
static void start(link_chan *l, xfer x, am_ps at, u128 at_frac)
{
    if (l->nfl == l->capfl) {
        l->capfl = l->capfl ? 2 * l->capfl : 8;
        l->fl = am_realloc(l->fl, l->capfl * sizeof *l->fl);
    }
    x.started = l->now;
    x.data_at = am_ps_add(at, l->latency);
    x.data_frac = x.data_at < AM_PS_MAX ? at_frac : 0;
    l->fl[l->nfl++] = x;
    l->nx_known = 0;
    l->nall[x.side]++;
    note_all(l);
    if (x.rt)
        return; /* it takes a slot and a share, and no trace statistic (rt_*) */
    l->st.wait_ps += l->now - x.submit;
    l->side[x.side].wait_ps += l->now - x.submit;
    l->nside[x.side]++;
    note_busy(l);
    if (trace_in_flight(l) > l->st.max_in_flight)
        l->st.max_in_flight = trace_in_flight(l);
    if (l->nside[x.side] > l->side[x.side].max_in_flight)
        l->side[x.side].max_in_flight = l->nside[x.side];
}

/* Move the clock to t (no event may fall before t: the caller advanced first). */
static void account(link_chan *l, am_ps t)
{
    if (t <= l->now)
        return;
    if (l->nfl) { /* a trace transfer in flight is counted there too: idle takes one test */
        l->st.all_busy_ps += t - l->now;
        for (int k = 0; k < 2; k++)
            if (l->nall[k])
                l->side[k].all_busy_ps += t - l->now;
        if (trace_in_flight(l)) {
            l->st.busy_ps += t - l->now;
            for (int k = 0; k < 2; k++)
                if (l->nside[k])
                    l->side[k].busy_ps += t - l->now;
        }
    }
    l->now = t;
    if (l->either->now < t)
        l->either->now = t;
}

void link_submit(link_chan *l, am_ps now, uint64_t bytes, uint64_t tag)
{
    link_submit_side(l, now, bytes, tag, 0);
}

void link_submit_side(link_chan *l, am_ps now, uint64_t bytes, uint64_t tag, int side)
{
    link_submit_ordered(l, now, bytes, tag, side, l->seq);
}

/* Queue x behind the concurrency limit: after every transfer that arrived before it, i.e.
 * earlier, or at the same picosecond with a smaller order. */
static void wait_in_queue(link_chan *l, xfer x)
{
    if (l->qn == l->capq) {
        size_t nc = l->capq ? 2 * l->capq : 8;
        xfer *nq = am_malloc(nc * sizeof *nq);
        for (size_t i = 0; i < l->qn; i++)
            nq[i] = l->q[(l->qh + i) % l->capq];
        free(l->q);
        l->q = nq;
        l->qh = 0;
        l->capq = nc;
    }
    size_t i = l->qn++;
    for (; i > 0; i--) {
        xfer *prev = &l->q[(l->qh + i - 1) % l->capq];
        if (prev->submit != x.submit || prev->order < x.order)
            break;
        l->q[(l->qh + i) % l->capq] = *prev;
    }
    l->q[(l->qh + i) % l->capq] = x;
}

/* The in-flight transfer that x, arriving now at a full channel, goes before: one that arrived
 * at this very picosecond with a larger order and was taken at once (the largest such order;
 * nothing has happened to it yet). SIZE_MAX when none. */
static size_t overtaken(const link_chan *l, const xfer *x)
{
    size_t k = SIZE_MAX;
    for (size_t i = 0; i < l->nfl; i++) {
        const xfer *y = &l->fl[i];
        if (y->submit == l->now && y->started == l->now && y->order > x->order &&
            (k == SIZE_MAX || y->order > l->fl[k].order))
            k = i;
    }
    return k;
}

/* Put fl[k] back in the queue, as if it had arrived after the transfer taking its place. */
static void untake(link_chan *l, size_t k)
{
    xfer y = l->fl[k];
    memmove(&l->fl[k], &l->fl[k + 1], (l->nfl - k - 1) * sizeof *l->fl);
    l->nfl--;
    l->nall[y.side]--;
    if (!y.rt)
        l->nside[y.side]--;
    l->ndata -= (unsigned)y.sharing;
    y.sharing = 0;
    l->nx_known = 0;
    note_busy(l);
    note_all(l);
    wait_in_queue(l, y);
}

/* Count n transfers (at submission) or their durations (at completion) in the channel's and
 * the side's figures: the trace's own, or the runtime's copies' (rt). */
static void tally(link_chan *l, int side, int rt, uint64_t n, uint64_t bytes, am_ps dur)
{
    link_stats *st[2] = {&l->st, &l->side[side]};
    for (int k = 0; k < 2; k++) {
        if (rt) {
            st[k]->rt_count += n;
            st[k]->rt_bytes += bytes;
            st[k]->rt_sum_ps += dur;
        } else {
            st[k]->count += n;
            st[k]->bytes += bytes;
            st[k]->sum_ps += dur;
        }
    }
}

static void submit(link_chan *l, am_ps now, uint64_t bytes, uint64_t tag, int side,
                   uint64_t order, int rt)
{
    account(l, now);
    side = side != 0;
    l->seq++;
    xfer x = {.tag = tag, .bytes = bytes, .order = order, .side = side, .rt = rt,
              .submit = l->now, .started = l->now};
    tally(l, side, rt, 1, bytes, 0);
    if (l->conc && l->nfl >= l->conc) {
        size_t k = overtaken(l, &x);
        if (k == SIZE_MAX) {
            wait_in_queue(l, x);
            return;
        }
        untake(l, k);
    }
    start(l, x, l->now, 0);
    /* without latency it shares from now on (every event before now has been taken) */
    if (l->fl[l->nfl - 1].data_at <= l->now)
        enter_data(l, &l->fl[l->nfl - 1]);
}

void link_submit_ordered(link_chan *l, am_ps now, uint64_t bytes, uint64_t tag, int side,
                         uint64_t order)
{
    submit(l, now, bytes, tag, side, order, 0);
}

void link_submit_runtime(link_chan *l, am_ps now, uint64_t bytes, uint64_t tag, int side,
                         uint64_t order)
{
    submit(l, now, bytes, tag, side, order, 1);
}

void link_runtime_alone(link_chan *l, am_ps at, am_ps dur, uint64_t bytes, int side)
{
    side = side != 0;
    tally(l, side, 1, 1, bytes, dur);
    /* nothing else is in flight on the channel meanwhile (link.h): the span adds whole */
    l->st.all_busy_ps = am_ps_add(l->st.all_busy_ps, dur);
    l->side[side].all_busy_ps = am_ps_add(l->side[side].all_busy_ps, dur);
    link_either *e = l->either;
    am_ps end = am_ps_add(at, dur);
    /* the copies come one after the other: a defragmentation's back to back, one span */
    if (e->nalone > e->alone_head && e->alone[e->nalone - 1][1] == at) {
        e->alone[e->nalone - 1][1] = end;
        return;
    }
    if (e->nalone == e->capalone) {
        e->capalone = e->capalone ? 2 * e->capalone : 8;
        e->alone = am_realloc(e->alone, e->capalone * sizeof *e->alone);
    }
    e->alone[e->nalone][0] = at;
    e->alone[e->nalone++][1] = end;
}

/* The exact instant the virtual work reaches fin: the anchor plus (fin - v) x ndata / tps ps,
 * as whole picoseconds *ps plus *frac / tps. 0 when it lies past AM_PS_MAX. (fin - v) x ndata
 * fits 128 bits unless the work is huge (up to 2^124): then it is split as rem = q tps + r. */
static int finish_at(const link_chan *l, u128 fin, am_ps *ps, u128 *frac)
{
    u128 rem = fin > l->v ? fin - l->v : 0, whole, part;
    unsigned n = l->ndata;
    if ((rem >> 90) == 0) { /* rem x n + a_frac < 2^123: the single division */
        u128 ticks = rem * n + l->a_frac;
        whole = ticks / l->tps;
        part = ticks - whole * l->tps;
    } else { /* r x n + a_frac < 2^84 x 2^32 + 2^84 */
        u128 q = rem / l->tps, r = rem - q * l->tps;
        if (q >= AM_PS_MAX / n)
            return 0;
        u128 ticks = r * n + l->a_frac;
        whole = q * n + ticks / l->tps;
        part = ticks % l->tps;
    }
    if (whole >= AM_PS_MAX - l->a_ps)
        return 0;
    *ps = l->a_ps + (am_ps)whole;
    *frac = part;
    return 1;
}

/* Whether x's data phase starts before the instant ps + frac / tps (compared at the finest
 * scale, where both are exact). */
static int enters_before(const link_chan *l, const xfer *x, am_ps ps, u128 frac)
{
    return x->data_at < ps ||
           (x->data_at == ps && x->data_frac < frac << (MAX_SHIFT - l->shift));
}

/* The channel's next event: the earliest completion among sharing transfers (at its exact
 * instant, *ps + *frac / tps) or, if none comes first, the earliest start of a data phase
 * (*frac: its fraction at the finest scale, nonzero between picoseconds). Returns 0 when idle,
 * 1 for a completion, 2 for a data-phase start. */
static int next_event(const link_chan *l, am_ps *ps, u128 *frac, size_t *which)
{
    size_t first = SIZE_MAX, enter = SIZE_MAX;
    for (size_t i = 0; i < l->nfl; i++) {
        const xfer *x = &l->fl[i];
        if (x->sharing) {
            if (first == SIZE_MAX || x->fin < l->fl[first].fin)
                first = i;
        } else if (enter == SIZE_MAX || x->data_at < l->fl[enter].data_at ||
                   (x->data_at == l->fl[enter].data_at && x->data_frac < l->fl[enter].data_frac))
            enter = i;
    }
    int kind = 0;
    if (first != SIZE_MAX) {
        kind = 1;
        *which = first;
        if (!finish_at(l, l->fl[first].fin, ps, frac)) {
            *ps = AM_PS_MAX;
            *frac = 0;
        }
    }
    /* a completion at the very instant a data phase starts goes first */
    if (enter != SIZE_MAX && (kind == 0 || enters_before(l, &l->fl[enter], *ps, *frac))) {
        kind = 2;
        *which = enter;
        *ps = l->fl[enter].data_at;
        *frac = l->fl[enter].data_frac;
    }
    return kind;
}

/* When an event at ps + frac / tps is seen: the next whole picosecond, never before now. */
static am_ps seen_at(const link_chan *l, am_ps ps, u128 frac)
{
    am_ps t = frac && ps < AM_PS_MAX ? ps + 1 : ps;
    return t < l->now ? l->now : t;
}

/* next_event, remembered until the in-flight set changes. */
static int upcoming(link_chan *l, am_ps *ps, u128 *frac, size_t *which)
{
    if (!l->nx_known) {
        l->nx_kind = next_event(l, &l->nx_ps, &l->nx_frac, &l->nx_which);
        l->nx_known = 1;
    }
    *ps = l->nx_ps;
    *frac = l->nx_frac;
    *which = l->nx_which;
    return l->nx_kind;
}

am_ps link_next_time(link_chan *l)
{
    am_ps ps;
    u128 frac;
    size_t which;
    if (!upcoming(l, &ps, &frac, &which))
        return AM_TIME_NONE;
    return seen_at(l, ps, frac);
}

/* The sharing transfers done at the anchor leave, in submission order, up to max in all; at
 * the end of time (AM_PS_MAX, where too long a transfer saturates) every one in flight has
 * finished: the engine stops with an error there. */
static int retire(link_chan *l, link_done *done, int got, int max)
{
    size_t k = 0;
    int end = l->now >= AM_PS_MAX;
    for (size_t i = 0; i < l->nfl; i++) {
        xfer *x = &l->fl[i];
        if ((end || (x->sharing && x->fin <= l->v)) && got < max) {
            done[got++] = (link_done){x->tag, x->started};
            l->nall[x->side]--;
            tally(l, x->side, x->rt, 0, 0, l->now - x->submit);
            if (!x->rt)
                l->nside[x->side]--;
            l->ndata -= (unsigned)x->sharing;
        } else {
            l->fl[k++] = *x;
        }
    }
    l->nfl = k;
    l->nx_known = 0;
    note_busy(l);
    note_all(l);
    return got;
}

int link_advance(link_chan *l, am_ps t, link_done *done, int max)
{
    int got = 0;
    for (;;) {
        am_ps ps;
        u128 frac;
        size_t which;
        int kind = upcoming(l, &ps, &frac, &which);
        am_ps seen = kind ? seen_at(l, ps, frac) : AM_TIME_NONE;
        if (kind == 0 || seen > t) {
            account(l, t);
            return got;
        }
        account(l, seen);
        if (kind == 2) {
            enter_data(l, &l->fl[which]);
            continue;
        }
        /* the completion's exact instant becomes the anchor: v is its finish exactly */
        l->v = l->fl[which].fin;
        l->a_ps = ps;
        l->a_frac = frac;
        got = retire(l, done, got, max);
        /* the freed slots are taken at that exact instant (reported as taken at `seen`) */
        while (l->qn && (!l->conc || l->nfl < l->conc)) {
            xfer x = l->q[l->qh];
            l->qh = (l->qh + 1) % l->capq;
            l->qn--;
            start(l, x, ps, frac << (MAX_SHIFT - l->shift));
        }
        if (got == max)
            return got;
    }
}

const link_stats *link_get_stats(const link_chan *l) { return &l->st; }
const link_stats *link_get_side_stats(const link_chan *l, int side) { return &l->side[side != 0]; }
int link_in_flight(const link_chan *l) { return (int)(l->nfl + l->qn); }
