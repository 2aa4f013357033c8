/* memory.c - a memory level: device address model, policy instance, counters and metrics.
 *
 * Device address model (allocators.md section 1): the level's address space is [0, capacity);
 * policies take regions/segments through dev_alloc, which places them first-fit from address 0
 * among the free extents (an address-ordered B+-tree keeping each subtree's largest extent,
 * models/addrset.h, finds the first gap that fits in a few node visits); dev_free returns the
 * range and merges it with free neighbours. A device call fails when reserved + bytes would
 * pass the capacity; for BFC and the arena policies also when no free range of [0, capacity)
 * holds the bytes. For policies whose real device calls fail by bytes only (alloc.h
 * device_by_bytes: caching, platform, cuda_async) the space is the whole 64-bit range: first
 * fit from 0 still lands within [0, capacity) whenever a range there fits (identical addresses),
 * else at the lowest address that fits beyond. Until 2026-11-27 those policies ran out of memory
 * with the bytes free but not contiguous (caching: 20 MiB segments at 0 and 40 MiB of a 60 MiB
 * device freed, a 40 MiB one refused).
 * With recorded addresses (PyTorch snapshots) the space is the whole 64-bit range and a device
 * allocation made under a hint takes the recorded segment that contains the hinted address.
 *
 * Padding (pad_requests_to, a power of two): a request is rounded up to a multiple of it before
 * the policy sees it, here and nowhere else, so every policy pads alike (the hardware's layout,
 * e.g. TPU VMEM's 4 KiB (8, 128) tiles, happens before any allocator); live bytes count the
 * request as made, so the padding is internal fragmentation.
 *
 * Metrics (allocators.md section 6) are updated after every allocation and free: live
 * (requested) bytes, allocated (given) bytes and reserved bytes with their peaks, reserved minus
 * allocated when reserved first reaches its peak, internal fragmentation, and external
 * fragmentation 1 - largest_free / (reserved - allocated - pending), where pending are the blocks
 * of two-phase frees between free_requested and free_completed (no longer allocated, not yet
 * free: the policy's largest free block cannot include them). */
#include "memory.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "addrset.h"
#include "ordset.h"

struct mem_level {
    char name[64], kind[32];
    uint64_t capacity, granularity;
    uint64_t pad;          /* pad_requests_to, a power of two >= 1 */
    const struct alloc_ops *policy;
    void *st;
    alloc_env env;
    FILE *log;
    int log_names;         /* prefix every log line with "NAME: " (a multi-level log) */
    void (*on_device)(void *ctx, int alloc, uint64_t addr, uint64_t bytes);
    void *on_device_ctx;
    int mapped;            /* the policy maps virtual ranges: on_device reports its maps */
    int recorded;          /* sparse 64-bit space, honour hints */
    int by_bytes;          /* the device refuses by bytes only: a 64-bit space (alloc.h) */
    uint64_t hint;         /* TR_NO_ADDR-like UINT64_MAX when none */
    as_tree free_ext;      /* free device extents: key = start address, len = length */
    os_tree recorded_segs; /* recorded segments: k1 = address, k2 = val = size */
    os_tree recorded_outer; /* the outermost ones, those overlapping merged: they are apart */
    uint64_t recorded_end; /* the highest end among them (saturated), 0 when none */
    unsigned fail_next;
    int quiet;
    int prologue;          /* a start-state prologue runs: no peaks or metrics (memory.h) */
    int prologue_first;    /* it began before anything else happened on the level */
    mem_metrics m;
    uint64_t pending_bytes; /* given bytes of blocks whose free was requested, not completed:
                               no longer allocated, not yet free (the policy still holds them) */
    uint64_t ext_largest, ext_free; /* the event of max_external_frag: largest free, free bytes */
    uint64_t changes;       /* mem_changes: blocks served, freed, pending, device ranges */
};

/* The device address space's size: [0, capacity), or the whole 64-bit range with recorded
 * addresses or a policy whose device refuses by bytes only (dev_alloc checks the bytes). */
static uint64_t space_size(const mem_level *m)
{
    return m->recorded || m->by_bytes ? UINT64_MAX : m->capacity;
}

/* The free extent containing [addr, addr+len) into *e: 1, or 0 when there is none. */
static int find_free(mem_level *m, uint64_t addr, uint64_t len, as_ent *e)
{
    return as_floor(&m->free_ext, addr, e, NULL) && e->key + e->len >= addr + len &&
           addr + len >= addr;
}

/* Start a log line: in a log several levels share, with the level's name, as the engine starts
 * its A and OOM lines (until 2026-11-25 R, G, S and policy lines had no name there, so host's
 * regions could not be told from hbm's). */
static void log_start(mem_level *m)
{
    if (m->log_names)
        fprintf(m->log, "%s: ", m->name);
}

static void log_line(mem_level *m, const char *line)
{
    if (m->log) {
        log_start(m);
        fprintf(m->log, "%s\n", line);
    }
}

/* The outermost recorded segment holding addr, or NULL: os_overlap tests by offset, as a segment
 * may end at 2^64 (until 2026-11-28 its end wrapped to 0 and it held nothing). */
static const os_node *recorded_outer_at(const mem_level *m, uint64_t addr)
{
    return os_overlap(&m->recorded_outer, addr, 1);
}

/* The recorded segment of `bytes` holding addr, the nearest starting below it first, or NULL.
 * Segments may overlap (a pickle's segment_map pieces inside a declared range, a range reused
 * after a segment_free at another start or at the same start with another size), so the one
 * starting nearest below addr need not be it: every one starting in the outermost segment
 * holding addr, less than `bytes` below addr, is looked at, every size at a start. Where none
 * overlap that is the one below addr alone. Until 2026-11-28 only it was. */
static const os_node *recorded_segment(const mem_level *m, uint64_t addr, uint64_t bytes)
{
    const os_node *o = recorded_outer_at(m, addr);
    if (!o)
        return NULL;
    for (const os_node *s = os_floor(&m->recorded_segs, addr, UINT64_MAX);
         s && s->k1 >= o->k1 && addr - s->k1 < bytes; s = os_prev(s))
        if (s->val == bytes)
            return s;
    return NULL;
}

static int dev_alloc(void *ctx, uint64_t bytes, uint64_t *addr)
{
    mem_level *m = ctx;
    if (bytes == 0)
        return -1;
    if (m->fail_next) {
        m->fail_next--;
        m->m.device_refusals++;
        return -1;
    }
    if (bytes > m->capacity || m->m.reserved_bytes > m->capacity - bytes) {
        m->m.device_refusals++;
        return -1;
    }
    as_ent e;
    as_pos pos, *fit = NULL; /* where a first fit found e */
    int found = 0;
    uint64_t at = 0;
    if (m->recorded && m->hint != UINT64_MAX) {
        const os_node *s = recorded_segment(m, m->hint, bytes);
        if (s && find_free(m, s->k1, bytes, &e)) {
            found = 1;
            at = s->k1;
        }
    }
    if (!found) {
        if (!as_first_fit(&m->free_ext, bytes, &e, &pos)) {
            m->m.device_refusals++;
            return -1;
        }
        at = e.key;
        fit = &pos;
    }
    as_take_at(&m->free_ext, fit, &e, at, bytes);
    *addr = at;
    m->changes++;
    m->m.reserved_bytes += bytes;
    /* Every device allocation made counts, one the policy gives back before its request ends
     * (a map rolled back) too: device_frees counts that return, so the difference is the ranges
     * held. The reserved peak is not raised here but at the end of the request (update_metrics):
     * a rolled-back map never shows in any state the run reports. */
    m->m.device_allocs++;
    if (m->log) {
        log_start(m);
        fprintf(m->log, "R %" PRIu64 " %" PRIu64 "\n", at, bytes);
    }
    if (m->on_device && !m->mapped)
        m->on_device(m->on_device_ctx, 1, at, bytes);
    return 0;
}

static void dev_free(void *ctx, uint64_t addr, uint64_t bytes)
{
    mem_level *m = ctx;
    if (m->log) {
        log_start(m);
        fprintf(m->log, "G %" PRIu64 " %" PRIu64 "\n", addr, bytes);
    }
    if (m->on_device && !m->mapped)
        m->on_device(m->on_device_ctx, 0, addr, bytes);
    m->m.reserved_bytes -= bytes;
    m->m.device_frees++;
    m->changes++;
    as_give(&m->free_ext, addr, bytes); /* merged with the free neighbours */
}

/* A policy's own virtual range mapped or unmapped (alloc.h): what a recording of the real
 * allocator shows as segment_map / segment_unmap. The device memory behind it was taken and is
 * given back through dev_alloc / dev_free, which are counted and logged but not reported. */
static void dev_map(void *ctx, int map, uint64_t va, uint64_t bytes)
{
    mem_level *m = ctx;
    if (m->on_device)
        m->on_device(m->on_device_ctx, map, va, bytes);
}

/* alloc.h va_hint: the outermost recorded segment holding the hinted address, for a virtual
 * range: a declared range, not a piece of it mapped inside. Until 2026-11-28 the one starting
 * nearest below the address, so a piece below the address hid the range holding it. */
static uint64_t dev_va_hint(void *ctx)
{
    mem_level *m = ctx;
    if (!m->recorded || m->hint == UINT64_MAX)
        return UINT64_MAX;
    const os_node *o = recorded_outer_at(m, m->hint);
    return o ? o->k1 : UINT64_MAX;
}

/* alloc.h va_recorded_end. */
static uint64_t dev_va_recorded_end(void *ctx)
{
    const mem_level *m = ctx;
    return m->recorded ? m->recorded_end : 0;
}

/* alloc.h va_recorded_over, read from the outermost segments, which do not overlap one another
 * (until 2026-11-28 from all of them, so a piece inside a range hid the range's end). */
static uint64_t dev_va_recorded_over(void *ctx, uint64_t base, uint64_t size)
{
    const mem_level *m = ctx;
    if (!m->recorded || size == 0)
        return 0;
    const os_node *o = os_overlap(&m->recorded_outer, base, size);
    return o ? am_end_sat(o->k1, o->val) : 0;
}

/* alloc.h place_hint: only a prologue's requests are placed by their recorded address. */
static uint64_t dev_place_hint(void *ctx)
{
    const mem_level *m = ctx;
    return m->recorded && m->prologue ? m->hint : UINT64_MAX;
}

static void dev_prefetch_free(void *ctx, uint64_t addr)
{
    as_prefetch(&((mem_level *)ctx)->free_ext, addr);
}

static void env_log(void *ctx, const char *line) { log_line(ctx, line); }

int mem_create(mem_level **out, const mem_params *p, am_error *err)
{
    mem_level *m = am_calloc(1, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s", p->name ? p->name : "mem");
    snprintf(m->kind, sizeof m->kind, "%s", p->kind ? p->kind : "other");
    m->capacity = p->capacity;
    m->granularity = p->granularity ? p->granularity : 1;
    m->pad = p->pad_requests_to ? p->pad_requests_to : 1;
    m->policy = p->policy;
    m->log = p->log;
    m->log_names = p->log_names;
    m->on_device = p->on_device;
    m->on_device_ctx = p->on_device_ctx;
    m->mapped = p->policy->maps_virtual && p->policy->maps_virtual(p->policy_opts);
    m->recorded = p->recorded_addresses;
    m->by_bytes = p->policy->device_by_bytes;
    m->hint = UINT64_MAX;
    uint64_t space = space_size(m);
    m->free_ext.ranges = 1;
    if (space)
        as_insert(&m->free_ext, 0, space, NULL);
    m->env = (alloc_env){.ctx = m, .capacity = m->capacity, .granularity = m->granularity,
                         .dev_alloc = dev_alloc, .dev_free = dev_free, .dev_map = dev_map,
                         .va_hint = dev_va_hint, .va_recorded_end = dev_va_recorded_end,
                         .va_recorded_over = dev_va_recorded_over,
                         .place_hint = dev_place_hint,
                         .dev_prefetch_free = dev_prefetch_free,
                         .log = p->log ? env_log : NULL};
    if (m->policy->create(&m->st, &m->env, p->policy_opts, err) != 0) {
        mem_destroy(m);
        return -1;
    }
    *out = m;
    return 0;
}

void mem_destroy(mem_level *m)
{
    if (!m)
        return;
    if (m->st)
        m->policy->destroy(m->st);
    as_destroy(&m->free_ext);
    os_free_nodes(&m->recorded_segs);
    os_free_nodes(&m->recorded_outer);
    free(m);
}

/* After every event: peaks and section-6 metrics. */
AM_ALWAYS_INLINE void update_metrics(mem_level *m)
{
    mem_metrics *s = &m->m;
    if (m->quiet || m->prologue)
        return;
    /* The reserved peak is the state left after a request or free, as a timeline row shows it
     * and as the policies' own reserved peaks count it, with reserved - allocated at that same
     * point. Until 2026-11-27 dev_alloc raised it on every device allocation, so pages mapped
     * and given back within one request (caching's expandable segments retrying after freeing
     * its cache) made a peak no state had, and reserved_unallocated_at_peak was of another. */
    if (s->reserved_bytes > s->peak_reserved_bytes) {
        s->peak_reserved_bytes = s->reserved_bytes;
        s->reserved_unallocated_at_peak = s->reserved_bytes - s->allocated_bytes;
    }
    if (s->allocated_bytes > s->peak_allocated_bytes)
        s->peak_allocated_bytes = s->allocated_bytes;
    uint64_t internal = s->allocated_bytes - s->live_bytes;
    if (internal > s->max_internal_frag)
        s->max_internal_frag = internal;
    uint64_t total_free = mem_free_in_reserved(m);
    if (total_free) {
        uint64_t largest = m->policy->largest_free(m->st);
        /* 1 - largest/free grows when largest/free shrinks: compared exactly in integers
         * (largest * free_max < largest_max * free), the division done only for a new maximum.
         * Below 2^53 bytes the rounded quotient is monotone in the exact one, so the maximum is
         * the same double the per-event division gave; above (or without 128-bit integers), the
         * division decides. */
        int more;
        if (!s->have_external_frag)
            more = 1;
#ifdef __SIZEOF_INT128__
        else if (!((total_free | largest | m->ext_free | m->ext_largest) >> 53))
            more = (unsigned __int128)largest * m->ext_free <
                   (unsigned __int128)m->ext_largest * total_free;
#endif
        else
            more = 1.0 - (double)largest / (double)total_free > s->max_external_frag;
        if (more) {
            double ext = 1.0 - (double)largest / (double)total_free;
            s->max_external_frag = ext < 0 ? 0 : ext;
            m->ext_largest = largest;
            m->ext_free = total_free;
        }
        s->have_external_frag = 1;
    }
}

/* After an allocation: the peaks of live bytes and live buffers. */
AM_ALWAYS_INLINE void take_live_peak(mem_level *m)
{
    mem_metrics *s = &m->m;
    if (s->live_count > s->peak_live_count)
        s->peak_live_count = s->live_count;
    if (s->live_bytes > s->peak_live_bytes && !m->quiet) {
        s->peak_live_bytes = s->live_bytes;
        s->internal_frag_at_peak_live = s->allocated_bytes - s->live_bytes;
    }
}

/* The level's count and the policy's (alloc.h count_oom) move together: one per request that
 * finally failed. */
void mem_count_oom(mem_level *m)
{
    m->m.ooms++;
    if (m->policy->count_oom)
        m->policy->count_oom(m->st);
}

int mem_alloc(mem_level *m, const alloc_req *r, alloc_out *o)
{
    int rc = mem_alloc_attempt(m, r, o);
    if (rc != ALLOC_OK)
        mem_count_oom(m);
    return rc;
}

int mem_alloc_attempt(mem_level *m, const alloc_req *r, alloc_out *o)
{
    /* Larger than any level can be (config.c): refused before a policy's rounding overflows.
     * Otherwise padded (to at most 4 EiB: pad is a power of two <= 4 EiB), the same for every
     * policy: the policy sees the padded request, the level counts the one made. */
    int rc;
    if (r->bytes > AM_MAX_BYTES) {
        rc = ALLOC_OOM;
    } else if (m->pad > 1) {
        alloc_req padded = *r;
        padded.bytes = am_round_up(r->bytes, m->pad);
        rc = m->policy->alloc(m->st, &padded, o);
    } else {
        rc = m->policy->alloc(m->st, r, o);
    }
    if (rc != ALLOC_OK) {
        update_metrics(m);
        return ALLOC_OOM;
    }
    mem_metrics *s = &m->m;
    m->changes++;
    if (!m->quiet)
        s->allocs++;
    s->live_bytes += r->bytes;
    s->allocated_bytes += o->size;
    s->live_count++;
    if (!m->prologue)
        take_live_peak(m);
    update_metrics(m);
    return ALLOC_OK;
}

void mem_free_requested(mem_level *m, uint64_t handle, uint64_t requested, uint64_t given)
{
    if (m->policy->free_requested)
        m->policy->free_requested(m->st, handle);
    m->m.live_bytes -= requested;
    m->m.allocated_bytes -= given;
    m->pending_bytes += given;
    m->m.live_count--;
    m->changes++;
    update_metrics(m);
}

void mem_free(mem_level *m, uint64_t handle, uint64_t requested, uint64_t given,
              int requested_done)
{
    m->policy->free(m->st, handle);
    m->changes++;
    if (!m->quiet)
        m->m.frees++;
    if (requested_done)
        m->pending_bytes -= given;
    else {
        m->m.live_bytes -= requested;
        m->m.allocated_bytes -= given;
        m->m.live_count--;
    }
    update_metrics(m);
}

void mem_prefetch_free(mem_level *m, uint64_t handle, int stage)
{
    if (m->policy->prefetch_free)
        m->policy->prefetch_free(m->st, handle, stage);
}

am_ps mem_take_latency(mem_level *m)
{
    if (!m->policy->take_latency)
        return 0;
    am_ps t = m->policy->take_latency(m->st);
    m->m.allocator_ps += t;
    return t;
}

/* [addr, addr + bytes) among the outermost recorded segments: merged with every one it overlaps
 * (each merged one is removed, so a note costs O(log n) amortized). Lengths are kept as offsets
 * from the start, saturated, so that a segment ending at 2^64 still holds 2^64 - 1. */
static void note_outer(mem_level *m, uint64_t addr, uint64_t bytes)
{
    if (bytes == 0)
        return; /* holds nothing */
    os_node *o = os_overlap(&m->recorded_outer, addr, 1);
    if (o) { /* begins inside o: o takes it */
        bytes = AM_MAX(o->val, am_end_sat(addr - o->k1, bytes));
        addr = o->k1;
        os_remove(&m->recorded_outer, o);
    } else {
        o = am_calloc(1, sizeof *o);
    }
    os_node *n;
    while ((n = os_lower_bound(&m->recorded_outer, addr, 0)) && n->k1 - addr < bytes) {
        bytes = AM_MAX(bytes, am_end_sat(n->k1 - addr, n->val));
        os_remove(&m->recorded_outer, n);
        free(n);
    }
    o->k1 = addr;
    o->val = bytes;
    os_insert(&m->recorded_outer, o);
}

/* Segments are kept by start and size: a start reused after a segment_free with another size
 * (the caching allocator's cached 2 MiB segment given back, a 22 MiB one mapped there) is a
 * second segment, and dev_alloc takes the one of the size it is asked for. Until 2026-11-28
 * they were kept by start alone, so the later one was dropped as known and its request placed
 * by first fit, away from its recorded address. */
void mem_note_recorded_segment(mem_level *m, uint64_t addr, uint64_t bytes)
{
    const os_node *known = os_lower_bound(&m->recorded_segs, addr, bytes);
    if (known && known->k1 == addr && known->k2 == bytes)
        return; /* already known */
    os_node *n = am_calloc(1, sizeof *n);
    n->k1 = addr;
    n->k2 = bytes;
    n->val = bytes;
    os_insert(&m->recorded_segs, n);
    note_outer(m, addr, bytes);
    m->recorded_end = AM_MAX(m->recorded_end, am_end_sat(addr, bytes));
}

void mem_hint(mem_level *m, uint64_t addr) { m->hint = addr; }

void mem_fail_next_device_allocs(mem_level *m, unsigned n) { m->fail_next = n; }

void mem_set_quiet(mem_level *m, int quiet)
{
    m->quiet = quiet;
    if (!quiet)
        update_metrics(m);
}

void mem_compact(mem_level *m, int done)
{
    if (m->policy->compact)
        m->policy->compact(m->st, done);
}

void mem_set_prologue(mem_level *m, int on)
{
    m->prologue = on;
    if (on) {
        m->prologue_first = !m->m.allocs && !m->m.device_allocs && !m->m.ooms;
        return;
    }
    /* the state the prologue left (the recording's start state) counts once, as an event */
    take_live_peak(m);
    update_metrics(m);
    if (m->prologue_first && m->policy->reset_peaks) /* no earlier peak of the run is lost */
        m->policy->reset_peaks(m->st);
}

int mem_check(mem_level *m, am_error *err)
{
    int bad = m->policy->check(m->st, err);
    if (as_check(&m->free_ext)) {
        bad++;
        am_fail(err, AM_EINTERNAL, "%s: device extent tree corrupt", m->name);
    }
    uint64_t free_sum = 0, last_end = 0;
    int first = 1;
    as_ent e;
    as_iter it;
    for (int h = as_first(&m->free_ext, &e, &it); h; h = as_next(&it, &e)) {
        if (!first && e.key <= last_end) {
            bad++;
            am_fail(err, AM_EINTERNAL, "%s: free device extents at %" PRIu64 " touch or overlap",
                    m->name, e.key);
        }
        first = 0;
        last_end = e.key + e.len;
        free_sum += e.len;
    }
    uint64_t space = space_size(m);
    if (free_sum + m->m.reserved_bytes != space) {
        bad++;
        am_fail(err, AM_EINTERNAL,
                "%s: free device bytes %" PRIu64 " + reserved %" PRIu64 " != address space %" PRIu64,
                m->name, free_sum, m->m.reserved_bytes, space);
    }
    if (m->m.allocated_bytes > m->m.reserved_bytes) {
        bad++;
        am_fail(err, AM_EINTERNAL, "%s: allocated %" PRIu64 " > reserved %" PRIu64, m->name,
                m->m.allocated_bytes, m->m.reserved_bytes);
    }
    return bad;
}

/* The S line of a policy without a finish(): its statistics as the JSON names them. */
static void s_u64(void *ctx, const char *name, uint64_t v)
{
    fprintf(((mem_level *)ctx)->log, " %s=%" PRIu64, name, v);
}

static void s_cur_peak(void *ctx, const char *name, uint64_t cur, uint64_t peak)
{
    fprintf(((mem_level *)ctx)->log, " %s.current=%" PRIu64 " %s.peak=%" PRIu64, name, cur, name,
            peak);
}

static void s_real(void *ctx, const char *name, double v, int is_null)
{
    if (is_null || !isfinite(v))
        fprintf(((mem_level *)ctx)->log, " %s=null", name);
    else
        fprintf(((mem_level *)ctx)->log, " %s=%.9f", name, v);
}

void mem_finish(mem_level *m)
{
    if (m->policy->finish) {
        m->policy->finish(m->st);
        return;
    }
    if (!m->log || !m->policy->stats)
        return;
    stat_sink k = {m, s_u64, s_cur_peak, s_real};
    log_start(m);
    fputc('S', m->log);
    m->policy->stats(m->st, &k);
    fputc('\n', m->log);
}

const mem_metrics *mem_get_metrics(const mem_level *m) { return &m->m; }
const char *mem_name(const mem_level *m) { return m->name; }
const char *mem_kind(const mem_level *m) { return m->kind; }
uint64_t mem_capacity(const mem_level *m) { return m->capacity; }

uint64_t mem_usable(const mem_level *m)
{
    if (!m->policy->pool_limit)
        return m->capacity;
    uint64_t lim = m->policy->pool_limit(m->st);
    return AM_MIN(lim, m->capacity);
}

uint64_t mem_min_capacity(const mem_level *m, uint64_t bytes)
{
    uint64_t padded = mem_padded(m, bytes);
    if (padded > AM_MAX_BYTES || !m->policy->min_capacity)
        return padded;
    uint64_t need = m->policy->min_capacity(m->st, padded);
    return AM_MAX(need, padded); /* the policy's rounding only adds to the padding */
}
const struct alloc_ops *mem_policy(const mem_level *m) { return m->policy; }
void *mem_policy_state(mem_level *m) { return m->st; }
uint64_t mem_largest_free(mem_level *m) { return m->policy->largest_free(m->st); }

int mem_cannot_serve(mem_level *m, uint64_t bytes)
{
    if (bytes > AM_MAX_BYTES)
        return 1; /* mem_alloc_attempt refuses it before asking the policy */
    return m->policy->cannot_serve && m->policy->cannot_serve(m->st, mem_padded(m, bytes));
}

uint64_t mem_padded(const mem_level *m, uint64_t bytes)
{
    return bytes > AM_MAX_BYTES ? bytes : am_round_up(bytes, m->pad);
}

uint64_t mem_pending_bytes(const mem_level *m) { return m->pending_bytes; }

uint64_t mem_changes(const mem_level *m) { return m->changes; }

uint64_t mem_free_in_reserved(const mem_level *m)
{
    uint64_t held = m->m.allocated_bytes + m->pending_bytes;
    return m->m.reserved_bytes > held ? m->m.reserved_bytes - held : 0;
}
