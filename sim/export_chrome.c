/* export_chrome.c - Chrome / Perfetto trace-event JSON (see export_chrome.h).
 *
 * Format: the JSON object form {"traceEvents": [...], "displayTimeUnit": "ns"} of the Trace
 * Event Format (Google, "Trace Event Format" document; Perfetto reads it as "JSON trace").
 * Events written:
 *   ph "M"  process_name / thread_name metadata (pid 1 "amsim device"; tid = stream number for
 *           streams, AM_CHROME_HOST_TID for the host's runtime actions, AM_CHROME_LINK_TID +
 *           lane x 2 CFG_MAX_LINKS + channel for link channels)
 *   ph "X"  complete events: name, ts, dur (microseconds), pid, tid, args {bytes, link}; a
 *           runtime copy's on its link's track: name "spill copy" / "restore copy" / "defrag
 *           copy", cat "copy", args {bytes (rounded to the granule), id, level, link}
 *   ph "C"  counters: name "memory <level>", args {"live": bytes, "reserved": bytes}
 *   ph "i"  instant events with "s": "p" (process scope): out-of-memory, defragmentation,
 *           spilling (the latter two also as "X" slices for the time the host waited, on the
 *           track "host runtime" of their own: they block the host, not a stream)
 * Link channels are numbered as the engine creates them (engine.c, sim_create): per config
 * link in order, direction from->to, then to->from when the link is between two different
 * levels. A half-duplex link's two directions share its bandwidth; each has its own tracks,
 * named "... (half duplex)" (until 2026-11-25 it had one channel, named from>to, that carried
 * both directions). A transfer's slice on its stream spans the time the stream waited for it;
 * its slice on the link spans the time the link carried it (from when the link took it, after
 * any wait behind `concurrency`, to its end; until 2026-11-25 it started at the stream's start,
 * so transfers that queued overlapped the ones ahead of them). Transfers in flight together
 * (processor sharing) go to lanes, tracks "link NAME A>B", "... #2", ..., so that no track has
 * overlapping slices: each slice takes the lane that came free last before it started (slices
 * arrive in order of their ends; this best fit needs no more lanes than transfers were ever in
 * flight at once). The file is streamed as the run goes: memory does not grow with it. */
#include "export_chrome.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "outfile.h"

#define AM_CHROME_LINK_TID 1000000u
#define AM_CHROME_HOST_TID 999999u /* above every stream number (engine.c: below 65536) */
#define CHROME_LANES 64 /* lanes per link channel; past them slices share the last free one */
/* A channel's name "LINK FROM>TO": three names of up to CFG_NAME_MAX - 1 characters, a space,
 * a '>' and the NUL; its tracks' names add "link ", " #64" and " (half duplex)". Until
 * 2026-11-28 the name had 2 * CFG_NAME_MAX + 16 bytes, so with 63-character names it was cut
 * at 143 ("l...l h...h>AAAAAAAAAAAAAAA"). */
#define CHROME_CHAN_NAME (3 * (CFG_NAME_MAX - 1) + 3)
#define CHROME_TRACK_NAME (CHROME_CHAN_NAME + sizeof "link  #64 (half duplex)")

struct chrome_exp {
    outfile *o;
    FILE *f;
    const am_config *cfg;
    sim_observer obs;
    int first;                                  /* no event written yet */
    char chan_name[2 * CFG_MAX_LINKS][CHROME_CHAN_NAME];
    int nchan;
    am_ps lane_end[2 * CFG_MAX_LINKS][CHROME_LANES]; /* end of each lane's last slice */
    unsigned char nlanes[2 * CFG_MAX_LINKS];     /* lanes used (and named) per channel */
    unsigned char half[2 * CFG_MAX_LINKS];       /* a direction of a half-duplex link */
    /* a bit per stream an operation can queue on (SIM_MAX_STREAMS, all of FORMAT.md's 0..65535):
     * until 2026-11-28 only streams below 4096 were tracked, and those above got no track name
     * or sort index */
    unsigned char stream_named[SIM_MAX_STREAMS / 8];
    int host_named;                             /* the host runtime track has its name */
};

/* ps -> microseconds with 6 decimals, exact */
static void ch_us(FILE *f, am_ps t)
{
    fprintf(f, "%" PRIu64 ".%06" PRIu64, (uint64_t)(t / AM_PS_PER_US), (uint64_t)(t % AM_PS_PER_US));
}

/* A trace `name=` as a JSON string, escaped as every string amsim writes (json_escape:
 * quotes, backslashes and controls escaped, UTF-8 kept). */
static void ch_str(FILE *f, const char *s)
{
    fputc('"', f);
    json_escape(f, s);
    fputc('"', f);
}

static void ch_begin(chrome_exp *x)
{
    fputs(x->first ? "\n" : ",\n", x->f);
    x->first = 0;
}

static void ch_thread_name(chrome_exp *x, uint32_t tid, const char *name, uint32_t sort)
{
    ch_begin(x);
    fprintf(x->f, "{\"name\":\"thread_name\",\"ph\":\"M\",\"ts\":0,\"pid\":1,\"tid\":%" PRIu32
            ",\"args\":{\"name\":\"%s\"}}", tid, name);
    ch_begin(x);
    fprintf(x->f, "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"ts\":0,\"pid\":1,\"tid\":%"
            PRIu32 ",\"args\":{\"sort_index\":%" PRIu32 "}}", tid, sort);
}

/* A compute or transfer on its stream: the time the stream was occupied. A named one (trace
 * `name=`) is shown by its name, its kind in args.op (and a transfer's channel in args.link):
 * its category stays the kind, so a viewer's filter by category still finds it. */
static void ch_op(void *ctx, uint32_t stream, am_ps start, am_ps end, int chan, uint64_t bytes,
                  const char *tag)
{
    chrome_exp *x = ctx;
    unsigned char bit = (unsigned char)(1u << (stream % 8));
    if (stream < SIM_MAX_STREAMS && !(x->stream_named[stream / 8] & bit)) {
        char n[32];
        snprintf(n, sizeof n, "stream %" PRIu32, stream);
        ch_thread_name(x, stream, n, stream);
        x->stream_named[stream / 8] |= bit;
    }
    int is_link = chan >= 0 && chan < x->nchan;
    const char *kind = chan < 0 ? "compute" : "transfer";
    const char *name = chan < 0 ? "compute" : is_link ? x->chan_name[chan] : "transfer";
    ch_begin(x);
    fputs("{\"name\":", x->f);
    ch_str(x->f, tag ? tag : name);
    fprintf(x->f, ",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":", kind);
    ch_us(x->f, start);
    fputs(",\"dur\":", x->f);
    ch_us(x->f, end - start);
    fprintf(x->f, ",\"pid\":1,\"tid\":%" PRIu32 ",\"args\":{", stream);
    if (tag)
        fprintf(x->f, "\"op\":\"%s\"%s", kind, chan >= 0 ? "," : "");
    if (tag && is_link)
        fprintf(x->f, "\"link\":\"%s\",", x->chan_name[chan]);
    if (chan >= 0)
        fprintf(x->f, "\"bytes\":%" PRIu64 ",\"stream\":%" PRIu32, bytes, stream);
    fputs("}}", x->f);
}

/* The track of a channel's lane. */
static uint32_t ch_link_tid(int chan, unsigned lane)
{
    return AM_CHROME_LINK_TID + lane * 2 * CFG_MAX_LINKS + (uint32_t)chan;
}

/* The lane of a channel for a slice [start, ...): the one whose last slice ended last at or
 * before start, else a new one, else (all CHROME_LANES busy) the one that ends first. */
static unsigned ch_lane(chrome_exp *x, int chan, am_ps start)
{
    const am_ps *e = x->lane_end[chan];
    unsigned n = x->nlanes[chan], best = n, first = 0;
    for (unsigned i = 0; i < n; i++) {
        if (e[i] <= start && (best == n || e[i] > e[best]))
            best = i;
        if (e[i] < e[first])
            first = i;
    }
    if (best < n)
        return best;
    if (n < CHROME_LANES) {
        char t[CHROME_TRACK_NAME], lane[16] = "";
        if (n > 0)
            snprintf(lane, sizeof lane, " #%u", n + 1);
        snprintf(t, sizeof t, "link %s%s%s", x->chan_name[chan], lane,
                 x->half[chan] ? " (half duplex)" : "");
        ch_thread_name(x, ch_link_tid(chan, n), t,
                       AM_CHROME_LINK_TID + (uint32_t)chan * CHROME_LANES + n);
        x->nlanes[chan] = (unsigned char)(n + 1);
        return n;
    }
    return first;
}

/* The common head of a slice on a link channel's lanes, up to its open args: the channel's
 * lane for [start, end) is booked and the slice is named name + suffix (name NULL: the
 * channel's name). Returns 0, writing nothing, when chan is no link channel. */
static int ch_link_slice(chrome_exp *x, int chan, am_ps start, am_ps end, const char *name,
                         const char *suffix, const char *cat)
{
    if (chan < 0 || chan >= x->nchan)
        return 0;
    unsigned lane = ch_lane(x, chan, start);
    x->lane_end[chan][lane] = end;
    ch_begin(x);
    fprintf(x->f, "{\"name\":\"%s%s\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":",
            name ? name : x->chan_name[chan], suffix, cat);
    ch_us(x->f, start);
    fputs(",\"dur\":", x->f);
    ch_us(x->f, end - start);
    fprintf(x->f, ",\"pid\":1,\"tid\":%" PRIu32 ",\"args\":{", ch_link_tid(chan, lane));
    return 1;
}

/* A transfer on its link channel: the time the link carried it. */
static void ch_link(void *ctx, int chan, uint32_t stream, am_ps start, am_ps end, uint64_t bytes)
{
    chrome_exp *x = ctx;
    if (!ch_link_slice(x, chan, start, end, NULL, "", "transfer"))
        return;
    fprintf(x->f, "\"bytes\":%" PRIu64 ",\"stream\":%" PRIu32 "}}", bytes, stream);
}

/* A runtime copy on its link channel (spill copy out, restore copy back, a defragmentation's
 * copies): a slice on the channel's lanes as a transfer's, so that the link's tracks show
 * everything that used the link (until 2026-11-28 only the host runtime track showed it, as
 * its action). */
static void ch_copy(void *ctx, int chan, am_ps start, am_ps end, uint64_t bytes, const char *what,
                    uint64_t id, int level)
{
    chrome_exp *x = ctx;
    if (!ch_link_slice(x, chan, start, end, what, " copy", "copy"))
        return;
    fprintf(x->f, "\"bytes\":%" PRIu64 ",\"id\":%" PRIu64 ",\"level\":", bytes, id);
    ch_str(x->f, x->cfg->levels[level].name);
    fprintf(x->f, ",\"link\":\"%s\"}}", x->chan_name[chan]);
}

static void ch_counters(void *ctx, am_ps t, int level, const mem_metrics *m)
{
    chrome_exp *x = ctx;
    ch_begin(x);
    fprintf(x->f, "{\"name\":\"memory %s\",\"ph\":\"C\",\"ts\":", x->cfg->levels[level].name);
    ch_us(x->f, t);
    fprintf(x->f, ",\"pid\":1,\"tid\":0,\"args\":{\"live\":%" PRIu64 ",\"reserved\":%" PRIu64 "}}",
            m->live_bytes, m->reserved_bytes);
}

/* An out-of-memory marker on the stream's track; during: the runtime action whose allocation
 * failed ("restore", "defrag"), NULL for a request; name: the allocation's `name=`, NULL when
 * none (args.name then left out). */
static void ch_oom_marker(chrome_exp *x, am_ps t, uint64_t seq, uint64_t id, int level,
                          uint32_t stream, uint64_t requested, const char *during,
                          const char *name)
{
    ch_begin(x);
    fprintf(x->f, "{\"name\":\"out of memory %s\",\"cat\":\"oom\",\"ph\":\"i\",\"s\":\"p\","
            "\"ts\":", x->cfg->levels[level].name);
    ch_us(x->f, t);
    fprintf(x->f, ",\"pid\":1,\"tid\":%" PRIu32 ",\"args\":{\"seq\":%" PRIu64 ",\"id\":",
            stream, seq);
    if (id == TR_NO_ID) /* a recorded out-of-memory (`oom` line) */
        fputs("null", x->f);
    else
        fprintf(x->f, "%" PRIu64, id);
    fprintf(x->f, ",\"requested\":%" PRIu64, requested);
    if (name) { /* no key for an unnamed one: its marker stays as it was */
        fputs(",\"name\":", x->f);
        ch_str(x->f, name);
    }
    if (during)
        fprintf(x->f, ",\"during\":\"%s\"", during);
    fputs("}}", x->f);
}

static void ch_alloc(void *ctx, am_ps t, uint64_t seq, uint64_t id, int level, uint32_t stream,
                     uint64_t addr, uint64_t requested, uint64_t size, int ok, const char *name)
{
    if (!ok)
        ch_oom_marker(ctx, t, seq, id, level, stream, requested, NULL, name);
}

/* A spilled buffer that could not come back, or one a defragmentation lost: a marker too (until
 * 2026-11-27 only failed requests had one, so a run's markers could be fewer than its
 * oom_events). */
static void ch_oom(void *ctx, am_ps t, uint64_t seq, uint64_t id, int level, uint32_t stream,
                   uint64_t requested, const char *what, const char *name)
{
    ch_oom_marker(ctx, t, seq, id, level, stream, requested, what, name);
}

/* Defragmentation, spilling and restoring: an instant plus a slice for the time the host
 * waited, both on the host runtime track (until 2026-11-25 they were on tid 0, the track of
 * stream 0, where the slices overlapped that stream's operations). Actions block the host one
 * after another, so the track's slices never overlap. */
static void ch_action(void *ctx, const char *what, int level, am_ps start, am_ps end,
                      uint64_t bytes)
{
    chrome_exp *x = ctx;
    if (!x->host_named) {
        ch_thread_name(x, AM_CHROME_HOST_TID, "host runtime", AM_CHROME_HOST_TID);
        x->host_named = 1;
    }
    ch_begin(x);
    fprintf(x->f, "{\"name\":\"%s %s\",\"cat\":\"%s\",\"ph\":\"i\",\"s\":\"p\",\"ts\":", what,
            x->cfg->levels[level].name, what);
    ch_us(x->f, start);
    fprintf(x->f, ",\"pid\":1,\"tid\":%u,\"args\":{\"bytes\":%" PRIu64 "}}",
            AM_CHROME_HOST_TID, bytes);
    ch_begin(x);
    fprintf(x->f, "{\"name\":\"%s %s\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":", what,
            x->cfg->levels[level].name, what);
    ch_us(x->f, start);
    fprintf(x->f, ",\"dur\":");
    ch_us(x->f, end - start);
    fprintf(x->f, ",\"pid\":1,\"tid\":%u,\"args\":{\"bytes\":%" PRIu64 "}}",
            AM_CHROME_HOST_TID, bytes);
}

int chrome_open(chrome_exp **xp, const char *path, const am_config *cfg, am_error *err)
{
    *xp = NULL;
    if (!path)
        return 0;
    chrome_exp *x = am_calloc(1, sizeof *x);
    if (out_open(&x->o, path, err) != 0) {
        free(x);
        return -1;
    }
    x->f = out_fp(x->o);
    x->cfg = cfg;
    x->first = 1;
    for (int i = 0; i < cfg->nlinks; i++) {
        const cfg_link *L = &cfg->links[i];
        for (int d = 0; d < (L->from != L->to ? 2 : 1); d++) {
            int a = d ? L->to : L->from, b = d ? L->from : L->to;
            snprintf(x->chan_name[x->nchan], sizeof x->chan_name[0], "%s %s>%s", L->name,
                     cfg->levels[a].name, cfg->levels[b].name);
            x->half[x->nchan] = !L->duplex && L->from != L->to;
            x->nchan++;
        }
    }
    x->obs = (sim_observer){.ctx = x, .alloc = ch_alloc, .counters = ch_counters, .op = ch_op,
                            .action = ch_action, .link = ch_link, .oom = ch_oom,
                            .copy = ch_copy};
    fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"amsim " AM_VERSION "\"},"
          "\"traceEvents\":[", x->f);
    ch_begin(x);
    fputs("{\"name\":\"process_name\",\"ph\":\"M\",\"ts\":0,\"pid\":1,\"tid\":0,"
          "\"args\":{\"name\":\"amsim device\"}}", x->f);
    *xp = x;
    return 0;
}

const sim_observer *chrome_observer(chrome_exp *x) { return x ? &x->obs : NULL; }

outfile *chrome_finish(chrome_exp *x)
{
    if (!x)
        return NULL;
    fputs("\n]}\n", x->f);
    outfile *o = x->o;
    free(x);
    return o;
}

void chrome_abort(chrome_exp *x)
{
    if (!x)
        return;
    out_abort(x->o);
    free(x);
}
