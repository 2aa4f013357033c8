/* link.c - processor-sharing transfer channel (see link.h). */
#include "link.h"

#include <stdlib.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;

typedef struct xfer {
    uint64_t tag, bytes, seq;
    int side;              /* 0 or 1 (link.h) */
    am_ps submit, started; /* submitted; taken (in flight from then on) */
    am_ps data_at;         /* data phase starts at data_at */
    u128 rem;              /* remaining work, bytes x 1e12 x den */
} xfer;

struct link_chan {
    uint64_t bw;           /* effective bandwidth x den: work units (bytes x 1e12 x den) per ps */
    uint64_t den;          /* the bandwidth's denominator (1 for whole bytes per second) */
    am_ps latency;
    uint32_t conc;
    am_ps now;             /* time the state below describes */
    xfer *fl;              /* in flight, in submission order */
    size_t nfl, capfl;
    uint32_t nside[2];     /* of those in flight, how many on each side */
    xfer *q;               /* waiting behind the concurrency limit (FIFO ring) */
    size_t qh, qn, capq;
    uint64_t seq;
    link_stats st;         /* the channel */
    link_stats side[2];    /* per side */
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
    return l;
}

void link_destroy(link_chan *l)
{
    if (!l)
        return;
    free(l->fl);
    free(l->q);
    free(l);
}

static unsigned data_count(const link_chan *l)
{
    unsigned n = 0;
    for (size_t i = 0; i < l->nfl; i++)
        n += l->fl[i].data_at <= l->now;
    return n;
}

static void start(link_chan *l, xfer x)
{
    if (l->nfl == l->capfl) {
        l->capfl = l->capfl ? 2 * l->capfl : 8;
        l->fl = am_realloc(l->fl, l->capfl * sizeof *l->fl);
    }
    l->st.wait_ps += l->now - x.submit;
    l->side[x.side].wait_ps += l->now - x.submit;
    x.started = l->now;
    x.data_at = am_ps_add(l->now, l->latency);
    l->fl[l->nfl++] = x;
    if (l->nfl > l->st.max_in_flight)
        l->st.max_in_flight = (uint32_t)l->nfl;
    if (++l->nside[x.side] > l->side[x.side].max_in_flight)
        l->side[x.side].max_in_flight = l->nside[x.side];
}

/* Move the clock to t (no completion may fall before t: the caller advanced first). */
static void account(link_chan *l, am_ps t)
{
    if (t <= l->now)
        return;
    if (l->nfl) {
        l->st.busy_ps += t - l->now;
        for (int k = 0; k < 2; k++)
            if (l->nside[k])
                l->side[k].busy_ps += t - l->now;
    }
    unsigned n = data_count(l);
    if (n) {
        u128 done = (u128)(t - l->now) * l->bw / n;
        for (size_t i = 0; i < l->nfl; i++)
            if (l->fl[i].data_at <= l->now)
                l->fl[i].rem = l->fl[i].rem > done ? l->fl[i].rem - done : 0;
    }
    l->now = t;
}

void link_submit(link_chan *l, am_ps now, uint64_t bytes, uint64_t tag)
{
    link_submit_side(l, now, bytes, tag, 0);
}

void link_submit_side(link_chan *l, am_ps now, uint64_t bytes, uint64_t tag, int side)
{
    account(l, now);
    side = side != 0;
    xfer x = {tag, bytes, l->seq++, side, l->now, l->now, 0,
              (u128)bytes * AM_PS_PER_S * l->den};
    l->st.bytes += bytes;
    l->st.count++;
    l->side[side].bytes += bytes;
    l->side[side].count++;
    if (l->conc && l->nfl >= l->conc) {
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
        l->q[(l->qh + l->qn++) % l->capq] = x;
        return;
    }
    start(l, x);
}

/* ceil(rem x n / bw) picoseconds, saturated at AM_PS_MAX. rem x n fits 128 bits unless rem is
 * huge (work up to 2^124 with a denominator): then it is split as rem = q bw + r. */
static am_ps ps_needed(u128 rem, unsigned n, uint64_t bw)
{
    if ((rem >> 90) == 0) { /* rem x n < 2^122: the single division */
        u128 need = (rem * n + bw - 1) / bw;
        return need >= AM_PS_MAX ? AM_PS_MAX : (am_ps)need;
    }
    u128 q = rem / bw, r = rem - q * bw;
    if (q >= AM_PS_MAX / n)
        return AM_PS_MAX;
    u128 need = q * n + (r * n + bw - 1) / bw;
    return need >= AM_PS_MAX ? AM_PS_MAX : (am_ps)need;
}

am_ps link_next_time(const link_chan *l)
{
    if (l->nfl == 0)
        return AM_TIME_NONE;
    am_ps next = AM_TIME_NONE;
    unsigned n = data_count(l);
    for (size_t i = 0; i < l->nfl; i++) {
        const xfer *x = &l->fl[i];
        am_ps t;
        if (x->data_at > l->now)
            t = x->data_at;
        else {
            am_ps need = ps_needed(x->rem, n, l->bw);
            t = need >= AM_PS_MAX - l->now ? AM_PS_MAX : l->now + need;
        }
        if (t < next)
            next = t;
    }
    return next;
}

int link_advance(link_chan *l, am_ps t, link_done *done, int max)
{
    int got = 0;
    for (;;) {
        am_ps next = link_next_time(l);
        if (next == AM_TIME_NONE || next > t) {
            account(l, t);
            return got;
        }
        account(l, next);
        /* Complete finished data-phase transfers, in submission order. At the end of time
         * (AM_PS_MAX, where too long a transfer saturates) every one in flight has finished:
         * the engine stops with an error there. */
        size_t k = 0;
        int end = l->now >= AM_PS_MAX;
        for (size_t i = 0; i < l->nfl; i++) {
            xfer *x = &l->fl[i];
            if (x->data_at <= l->now && (x->rem == 0 || end) && got < max) {
                done[got++] = (link_done){x->tag, x->started};
                l->st.sum_ps += l->now - x->submit;
                l->side[x->side].sum_ps += l->now - x->submit;
                l->nside[x->side]--;
            } else {
                l->fl[k++] = *x;
            }
        }
        l->nfl = k;
        while (l->qn && (!l->conc || l->nfl < l->conc)) {
            xfer x = l->q[l->qh];
            l->qh = (l->qh + 1) % l->capq;
            l->qn--;
            start(l, x);
        }
        if (got == max)
            return got;
    }
}

const link_stats *link_get_stats(const link_chan *l) { return &l->st; }
const link_stats *link_get_side_stats(const link_chan *l, int side) { return &l->side[side != 0]; }
int link_in_flight(const link_chan *l) { return (int)(l->nfl + l->qn); }
