/* report.c - text and JSON reports of a run.
 *
 * Metrics (allocators.md section 6): peak_live_bytes (max of live request sizes),
 * peak_reserved_bytes (max held from the device after an allocation or free: memory.c),
 * utilization = peak_live / peak_reserved, fragmentation_ratio = 1 - utilization,
 * reserved_unallocated_at_peak (reserved - allocated in the state where reserved first reached
 * its peak), internal_fragmentation_bytes (given - requested over
 * live allocations, at the peak of live bytes; the maximum over time is reported too) and
 * max_external_fragmentation (max over events of 1 - largest free block / free bytes inside
 * reserved memory). Every number printed in text carries its unit. */
#include "report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../models/link.h"
#include "common.h"
#include "json.h"
#include "units.h"

/* The plural "s" of a count's noun: "1 transfer", "2 transfers" (until 2026-11-27 the report
 * said "1 transfers", "1 device allocations"). */
#define PL(n) ((n) == 1 ? "" : "s")

void report_level_metrics(mem_level *m, level_metrics *o)
{
    const mem_metrics *mm = mem_get_metrics(m);
    o->peak_live = mm->peak_live_bytes;
    o->peak_reserved = mm->peak_reserved_bytes;
    o->reserved_unallocated_at_peak = mm->reserved_unallocated_at_peak;
    o->internal_frag = mm->internal_frag_at_peak_live;
    o->max_internal_frag = mm->max_internal_frag;
    o->utilization = mm->peak_reserved_bytes
                         ? (double)mm->peak_live_bytes / (double)mm->peak_reserved_bytes : (double)NAN;
    o->fragmentation_ratio = isnan(o->utilization) ? (double)NAN : 1.0 - o->utilization;
    o->max_external_frag = mm->have_external_frag ? mm->max_external_frag : (double)NAN;
}

static double secs(am_ps t) { return (double)t / (double)AM_PS_PER_S; }

/* The out-of-memory events (of the report.max_oom_events listed) whose request the trace named
 * (an allocation's or a recorded `oom` line's name=), a line each after the count: which tensor
 * ran out is what one debugging it asks first. Nothing for a trace without names, whose report
 * stays as it was. */
static void oom_names(FILE *f, const sim *s)
{
    const sim_oom *oo;
    size_t no = sim_ooms(s, &oo);
    const am_config *cfg = sim_config(s);
    for (size_t i = 0; i < no; i++) {
        if (!oo[i].name)
            continue;
        char b[32], t[32], id[32];
        /* a recorded out-of-memory (`oom` line) has no id: it says so instead */
        if (oo[i].recorded)
            snprintf(id, sizeof id, "recorded oom");
        else
            snprintf(id, sizeof id, "id %" PRIu64, oo[i].id);
        fprintf(f, "  %s: %s, %s on %s at %s (event %" PRIu64 ")\n", oo[i].name, id,
                units_fmt_size(b, sizeof b, oo[i].requested),
                cfg->levels[oo[i].level].name, units_fmt_time(t, sizeof t, oo[i].time),
                oo[i].seq);
    }
}

/* Whether the link table has a row for st: a transfer of the trace or a runtime copy went
 * over it (until 2026-11-28 only the former: a direction only the runtime's copies used had
 * none). */
static int link_row(const link_stats *st)
{
    return st->count || st->rt_count;
}

/* The link table's busy column (all 0) or all-busy column (all 1): 12 characters, or as wide
 * as its widest time, so a link busy 1,000,000 s or more ("1000000.000 s", up to
 * "18446744.074 s") keeps the columns after it in line (until 2026-11-27 it pushed its row's
 * achieved and energy figures right). */
static int busy_width(const sim_link_result *lr, int nl, int all)
{
    int w = 12;
    char t[32];
    for (int i = 0; i < nl; i++) {
        const link_stats *both[2] = {lr[i].st, lr[i].shared ? lr[i].channel : NULL};
        for (int k = 0; k < 2; k++)
            if (both[k] && link_row(both[k]))
                w = AM_MAX(w, (int)strlen(units_fmt_time(t, sizeof t, all ? both[k]->all_busy_ps
                                                                         : both[k]->busy_ps)));
    }
    return w;
}

/* Whether a runtime copy went over a link: the link table then has its runtime columns. */
static int link_copies(const sim_link_result *lr, int nl)
{
    for (int i = 0; i < nl; i++)
        if (lr[i].st->rt_count || lr[i].channel->rt_count)
            return 1;
    return 0;
}

/* Whether the level table shows level i: one with allocations or out-of-memory results, or the
 * only level. */
static int level_shown(sim *s, int i)
{
    const mem_metrics *mm = mem_get_metrics(sim_level(s, i));
    return mm->allocs || mm->ooms || sim_nlevels(s) == 1;
}

/* The level table's first column: 12 characters, or the longest name shown (a GPU preset's
 * `host_pageable` is 13; until 2026-11-27 it pushed its row's figures one place right). */
static int level_width(sim *s)
{
    int w = 12;
    for (int i = 0; i < sim_nlevels(s); i++)
        if (level_shown(s, i))
            w = AM_MAX(w, (int)strlen(mem_name(sim_level(s, i))));
    return w;
}

/* The link table's direction text of entry e: "FROM>TO", or "A<>B" for a half-duplex link's
 * shared channel (whole). */
static const char *link_dir(char *b, size_t n, const am_config *cfg, const sim_link_result *e,
                            int whole)
{
    int from = e->dir ? e->to : e->from, to = e->dir ? e->from : e->to;
    if (whole)
        snprintf(b, n, "%s<>%s", cfg->levels[e->from].name, cfg->levels[e->to].name);
    else
        snprintf(b, n, "%s>%s", cfg->levels[from].name, cfg->levels[to].name);
    return b;
}

/* The link table's name and direction columns: 14 and 16 characters, or the longest shown
 * (`pcie_pageable  host_pageable>hbm` on a GPU preset: until 2026-11-27 the direction, 17
 * characters, pushed its row's figures one place right). */
static void link_widths(const am_config *cfg, const sim_link_result *lr, int nl, int *name_w,
                        int *dir_w)
{
    char dir[2 * CFG_NAME_MAX + 4];
    *name_w = 14;
    *dir_w = 16;
    for (int i = 0; i < nl; i++)
        for (int whole = 0; whole < 1 + (lr[i].shared && lr[i].dir == 1); whole++) {
            if (!link_row(whole ? lr[i].channel : lr[i].st))
                continue;
            *name_w = AM_MAX(*name_w, (int)strlen(lr[i].name));
            *dir_w = AM_MAX(*dir_w, (int)strlen(link_dir(dir, sizeof dir, cfg, &lr[i], whole)));
        }
}

/* ---- text -------------------------------------------------------------------------------- */


/* The levels spilled buffers went to, by name in level order: "host", "host and hbm", "hbm,
 * host and vmem". They are the spill_host of each eviction made (the run's into_mask; until
 * 2026-11-27 of each level that tried to spill, so a level whose spill was skipped or evicted
 * nothing was named); in a run that evicted nothing (only failures or skipped requests), of
 * each level configured to spill.
 * Until 2026-11-27 the summary said "out to host" whatever they were (a TPU's vmem spilling
 * into hbm included). */
static const char *spill_targets(char *b, size_t n, const am_config *cfg, uint64_t mask)
{
    if (!mask)
        for (int i = 0; i < cfg->nlevels; i++)
            if (cfg->levels[i].on_oom == CFG_ON_OOM_SPILL && cfg->levels[i].spill_host >= 0)
                mask |= UINT64_C(1) << cfg->levels[i].spill_host;
    cfg_level_list(cfg, mask, " and ", b, n);
    if (!b[0]) /* none configured (not reached: only a spilling level spills) */
        snprintf(b, n, "another level");
    return b;
}

void report_text(FILE *f, sim *s, const report_trace *t)
{
    const am_config *cfg = sim_config(s);
    const sim_summary *su = sim_get_summary(s);
    char a[32], b[32], c[32], d[32], e[32], g[32];
    /* the paths escaped, as check echoes them (until 2026-11-27 a trace or config named with
     * an ESC sequence reached the terminal raw) */
    char *trace_path = am_escape_dup(t->path), *config_path = am_escape_dup(cfg->path);
    fprintf(f, "amsim %s: %s (%s, %" PRIu64 " event%s, %" PRIu64 " row%s skipped)\n",
            AM_VERSION, trace_path, t->format, t->events, t->events == 1 ? "" : "s", t->skipped,
            t->skipped == 1 ? "" : "s");
    fprintf(f, "config %s%s%s\n\n", config_path, cfg->device[0] ? ", device " : "", cfg->device);
    free(trace_path);
    free(config_path);
    int level_w = level_width(s), shown = 0;
    for (int i = 0; i < sim_nlevels(s); i++)
        shown += level_shown(s, i);
    /* a trace of transfers and computes only, on a config of several levels: a note, not a
     * header over no rows, and no blank line of its own, as the next section opens with one
     * (until 2026-11-27 the header, then two blank lines) */
    if (!shown)
        fprintf(f, "no allocations on any level\n");
    else
        fprintf(f, "%-*s %-10s %12s %12s %14s %12s %11s %6s\n", level_w, "level", "policy",
                "capacity", "peak live", "peak reserved", "utilization", "frag ratio", "OOMs");
    for (int i = 0; i < sim_nlevels(s); i++) {
        if (!level_shown(s, i))
            continue;
        mem_level *m = sim_level(s, i);
        const mem_metrics *mm = mem_get_metrics(m);
        level_metrics lm;
        report_level_metrics(m, &lm);
        fprintf(f, "%-*s %-10s %12s %12s %14s %12s %11s %6" PRIu64 "\n", level_w, mem_name(m),
                mem_policy(m)->name, units_fmt_size(a, sizeof a, mem_capacity(m)),
                units_fmt_size(b, sizeof b, lm.peak_live),
                units_fmt_size(c, sizeof c, lm.peak_reserved),
                units_fmt_pct(d, sizeof d, lm.utilization),
                units_fmt_pct(e, sizeof e, lm.fragmentation_ratio), mm->ooms);
    }
    if (shown)
        fprintf(f, "\n");
    for (int i = 0; i < sim_nlevels(s); i++) {
        mem_level *m = sim_level(s, i);
        const mem_metrics *mm = mem_get_metrics(m);
        if (mm->allocs == 0 && mm->ooms == 0)
            continue;
        level_metrics lm;
        report_level_metrics(m, &lm);
        fprintf(f, "%s: %" PRIu64 " allocation%s, %" PRIu64 " free%s, %" PRIu64
                " out of memory%s; reserved but unallocated at the reserved peak %s; "
                "internal fragmentation at peak live %s; max external fragmentation %s; "
                "%" PRIu64 " device allocation%s\n",
                mem_name(m), mm->allocs, PL(mm->allocs), mm->frees, PL(mm->frees), mm->ooms,
                /* its peak live is then below the trace's (until 2026-11-27 not said) */
                mm->ooms ? " (peak live counts the requests served only)" : "",
                units_fmt_size(a, sizeof a, lm.reserved_unallocated_at_peak),
                units_fmt_size(b, sizeof b, lm.internal_frag),
                units_fmt_pct(c, sizeof c, lm.max_external_frag),
                mm->device_allocs, PL(mm->device_allocs));
    }
    sim_link_result lr[2 * CFG_MAX_LINKS];
    int nl = sim_links(s, lr, 2 * CFG_MAX_LINKS), header = 0, energy = 0;
    int busy_w = busy_width(lr, nl, 0), name_w, dir_w;
    /* runtime copies went over a link: their bytes, their number and the all-busy time in
     * three more columns (a run without copies reports as before 2026-11-28) */
    int copies = link_copies(lr, nl), all_w = busy_width(lr, nl, 1);
    link_widths(cfg, lr, nl, &name_w, &dir_w);
    /* an energy column (headed) when a link used has energy_per_byte; n/a on one without */
    for (int i = 0; i < nl; i++)
        energy |= lr[i].st->count && cfg->links[lr[i].link].energy_pj_per_byte > 0;
    for (int i = 0; i < nl; i++) {
        /* A half-duplex link: each direction, then (after its second) a line "A<>B" with the
         * channel both share. */
        for (int whole = 0; whole < 1 + (lr[i].shared && lr[i].dir == 1); whole++) {
            const link_stats *st = whole ? lr[i].channel : lr[i].st;
            if (!link_row(st))
                continue;
            if (!header++) {
                fprintf(f, "\n%-*s %-*s %12s %10s %*s %14s%s", name_w, "link", dir_w,
                        "direction", "bytes", "transfers", busy_w, "busy", "achieved",
                        energy ? "         energy" : "");
                if (copies)
                    fprintf(f, " %13s %7s %*s", "runtime bytes", "copies", all_w, "all busy");
                fputc('\n', f);
            }
            char dir[2 * CFG_NAME_MAX + 4];
            link_dir(dir, sizeof dir, cfg, &lr[i], whole);
            fprintf(f, "%-*s %-*s %12s %10" PRIu64 " %*s %14s", name_w, lr[i].name, dir_w, dir,
                    units_fmt_size128(a, sizeof a, st->bytes), st->count, busy_w,
                    units_fmt_time(b, sizeof b, st->busy_ps),
                    units_fmt_bandwidth(c, sizeof c,
                                        st->busy_ps ? (double)st->bytes / secs(st->busy_ps) : 0));
            double epb = cfg->links[lr[i].link].energy_pj_per_byte;
            if (energy) /* joules, as the JSON's energy_joules */
                fprintf(f, " %14s", epb > 0 ? units_fmt_energy(d, sizeof d,
                                                               (double)st->bytes * epb * 1e-12)
                                            : "n/a");
            if (copies)
                fprintf(f, " %13s %7" PRIu64 " %*s", units_fmt_size128(a, sizeof a, st->rt_bytes),
                        st->rt_count, all_w, units_fmt_time(b, sizeof b, st->all_busy_ps));
            fputc('\n', f);
        }
    }
    fprintf(f, "\nmakespan %s, host stalled %s, %" PRIu64 " transfer%s, %" PRIu64
            " compute operation%s\n",
            units_fmt_time(a, sizeof a, su->makespan), units_fmt_time(b, sizeof b, su->stall),
            su->transfers, PL(su->transfers), su->computes, PL(su->computes));
    if (su->ooms) {
        fprintf(f, "out of memory: %" PRIu64 " allocation request%s failed (the run "
                "continued)\n", su->ooms, PL(su->ooms));
        oom_names(f, s);
    }
    if (su->defrag.runs || su->defrag.unsupported || su->defrag.skipped ||
        su->defrag.explicit_ignored) {
        fprintf(f, "defragmentation: %" PRIu64 " run%s moved %s (%" PRIu64 " buffer%s) in %s; "
                "%" PRIu64 " out-of-memory event%s avoided, %" PRIu64 " buffer%s lost%s",
                su->defrag.runs, PL(su->defrag.runs),
                units_fmt_size128(a, sizeof a, su->defrag.bytes_moved), su->defrag.buffers_moved,
                PL(su->defrag.buffers_moved), units_fmt_time(b, sizeof b, su->defrag.time),
                su->defrag.ooms_avoided, PL(su->defrag.ooms_avoided), su->defrag.failures,
                PL(su->defrag.failures),
                su->defrag.unsupported ? "; the policy cannot relocate blocks (offline plan)" : "");
        if (su->defrag.skipped)
            fprintf(f, "; skipped for %" PRIu64 " request%s it could not serve",
                    su->defrag.skipped, PL(su->defrag.skipped));
        if (su->defrag.explicit_runs)
            fprintf(f, "; %" PRIu64 " run%s at the trace's defrag lines",
                    su->defrag.explicit_runs, PL(su->defrag.explicit_runs));
        if (su->defrag.explicit_ignored)
            fprintf(f, "; %" PRIu64 " defrag line%s ignored (defrag.mode: none)",
                    su->defrag.explicit_ignored, PL(su->defrag.explicit_ignored));
        fputc('\n', f);
    }
    if (su->spill.evictions || su->spill.failures || su->spill.skipped) {
        char into[CFG_LEVEL_LIST_MAX + 3 * CFG_MAX_LEVELS]; /* ", " to " and " */
        fprintf(f, "spilling: %" PRIu64 " buffer%s (%s) out to %s, %" PRIu64 " (%s) back, %s; "
                "%" PRIu64 " out-of-memory event%s avoided, %" PRIu64 " failed",
                su->spill.evictions, PL(su->spill.evictions),
                units_fmt_size128(a, sizeof a, su->spill.bytes_out),
                spill_targets(into, sizeof into, cfg, su->spill.into_mask),
                su->spill.restores, units_fmt_size128(b, sizeof b, su->spill.bytes_in),
                units_fmt_time(c, sizeof c, su->spill.time), su->spill.ooms_avoided,
                PL(su->spill.ooms_avoided), su->spill.failures);
        if (su->spill.skipped)
            fprintf(f, "; skipped for %" PRIu64 " request%s it could not serve",
                    su->spill.skipped, PL(su->spill.skipped));
        fputc('\n', f);
    }
    if (su->donations_matched || su->donations_unmatched)
        fprintf(f, "buffer donation: %" PRIu64 " matched, %" PRIu64 " unmatched\n",
                su->donations_matched, su->donations_unmatched);
    for (int k = 0; k < 3; k++) {
        static const char *const dn[] = {"host-to-device", "device-to-host", "device-to-device"};
        if (su->guard_implicit[k] || su->guard_rejected[k])
            fprintf(f, "transfer guard, %s: %" PRIu64 " implicit, %" PRIu64 " logged, %" PRIu64
                    " rejected\n", dn[k], su->guard_implicit[k], su->guard_logged[k],
                    su->guard_rejected[k]);
    }
    if (su->retries)
        fprintf(f, "%" PRIu64 " failed request%s waited for frees; %" PRIu64 " then got memory\n",
                su->retries, PL(su->retries), su->retries_succeeded);
    if (su->allocator)
        fprintf(f, "time in allocator device calls %s\n", units_fmt_time(g, sizeof g, su->allocator));
    if (su->frees_after_oom)
        fprintf(f, "%" PRIu64 " %s\n", su->frees_after_oom,
                su->frees_after_oom == 1
                    ? "free of a buffer whose allocation failed was skipped"
                    : "frees of buffers whose allocation failed were skipped");
    if (su->transfers_skipped)
        fprintf(f, "%" PRIu64 " transfer%s did not happen (rejected by the transfer guard, or "
                "%s buffer had no memory)\n", su->transfers_skipped, PL(su->transfers_skipped),
                su->transfers_skipped == 1 ? "its" : "their");
    if (su->warnings)
        fprintf(f, "%" PRIu64 " trace problem%s counted and skipped (--lenient)\n", su->warnings,
                PL(su->warnings));
    if (su->validating) {
        fprintf(f, "validation: %" PRIu64 " of %" PRIu64 " allocations at the recorded address",
                su->address_matches, su->recorded_allocs);
        if (su->have_mismatch) {
            /* "none" when the allocation ran out of memory (until 2026-11-27 "none 0") */
            char sim_addr[32] = "none";
            if (su->mismatch_simulated != UINT64_MAX)
                snprintf(sim_addr, sizeof sim_addr, "0x%" PRIx64, su->mismatch_simulated);
            fprintf(f, "; first mismatch: event %" PRIu64 " (id %" PRIu64 ", line %lu) recorded 0x%"
                    PRIx64 ", simulated %s", su->mismatch_seq, su->mismatch_id, su->mismatch_line,
                    su->mismatch_recorded, sim_addr);
        }
        if (su->segment_events_recorded) /* matching rule: engine.c, traces/FORMAT.md */
            fprintf(f, "; %" PRIu64 " of %" PRIu64 " segment events matched",
                    su->segment_events_matched, su->segment_events_recorded);
        const sim_seg_mismatch *sm = &su->seg_mismatch;
        if (sm->have)
            fprintf(f, " (first unmatched: %s 0x%" PRIx64 " %s on %s, event %" PRIu64
                    ", line %lu)", sm->alloc ? "segment_alloc" : "segment_free", sm->addr,
                    units_fmt_size(a, sizeof a, sm->bytes), cfg->levels[sm->level].name, sm->seq,
                    sm->line);
        if (su->recorded_ooms)
            fprintf(f, "; %" PRIu64 " of %" PRIu64 " recorded out-of-memory requests ran out "
                    "here too", su->oom_matches, su->recorded_ooms);
        fprintf(f, "\n");
    }
}

/* ---- JSON -------------------------------------------------------------------------------- */

static void ku64_or_null(json_w *w, const char *k, int have, uint64_t v)
{
    json_key(w, k);
    if (have)
        json_u64(w, v);
    else
        json_null(w);
}

typedef struct sink_ctx {
    json_w *w;
} sink_ctx;

static void sk_u64(void *c, const char *name, uint64_t v) { json_ku64(((sink_ctx *)c)->w, name, v); }

static void sk_cur_peak(void *c, const char *name, uint64_t cur, uint64_t peak)
{
    json_w *w = ((sink_ctx *)c)->w;
    json_key(w, name);
    json_obj(w);
    json_ku64(w, "current", cur);
    json_ku64(w, "peak", peak);
    json_end_obj(w);
}

static void sk_real(void *c, const char *name, double v, int is_null)
{
    json_w *w = ((sink_ctx *)c)->w;
    json_key(w, name);
    if (is_null)
        json_null(w);
    else
        json_real(w, v);
}

/* The levels a link direction's transfers go from and to. */
static void link_ends(const sim_link_result *r, int *from, int *to)
{
    *from = r->dir ? r->to : r->from;
    *to = r->dir ? r->from : r->to;
}

/* The key of a link direction's entry in the summary's transfers: LINK:FROM>TO. */
static void direction_key(char *key, size_t n, const am_config *cfg, const sim_link_result *r)
{
    int from, to;
    link_ends(r, &from, &to);
    snprintf(key, n, "%s:%s>%s", r->name, cfg->levels[from].name, cfg->levels[to].name);
}

/* One transfers entry per link, keyed by its name (the contract's `transfers`: per link bytes,
 * count, busy_seconds, seconds), after the per-direction entries it sums: busy_seconds is the
 * time a transfer was in flight either way (the union: link_busy_either), seconds the sum of
 * its transfers' durations as each direction's. A name cannot hold ':' or '>' (valid_name),
 * so it never meets a direction's key. Until 2026-11-28 only the per-direction entries. */
static void json_links(json_w *w, const am_config *cfg, const sim_link_result *lr, int nl)
{
    for (int i = 0; i < nl; i++) {
        if (lr[i].dir != 0) /* a link's first direction comes first (sim_links) */
            continue;
        am_u128 bytes = 0, sum = 0, rt_bytes = 0, rt_sum = 0;
        uint64_t count = 0, rt_count = 0;
        int j;
        for (j = i; j < nl && lr[j].link == lr[i].link; j++) {
            bytes += lr[j].st->bytes;
            count += lr[j].st->count;
            sum += lr[j].st->sum_ps;
            rt_bytes += lr[j].st->rt_bytes;
            rt_count += lr[j].st->rt_count;
            rt_sum += lr[j].st->rt_sum_ps;
        }
        json_key(w, lr[i].name);
        json_obj(w);
        json_kstr(w, "link", lr[i].name);
        json_ku128(w, "bytes", bytes);
        json_ku64(w, "count", count);
        json_kseconds(w, "busy_seconds", lr[i].link_busy_ps);
        json_kseconds128(w, "seconds", sum);
        json_ku128(w, "runtime_bytes", rt_bytes);
        json_ku64(w, "runtime_count", rt_count);
        json_kseconds128(w, "runtime_seconds", rt_sum);
        json_kseconds(w, "all_busy_seconds", lr[i].link_all_busy_ps);
        json_key(w, "directions");
        json_arr(w);
        for (int k = i; k < j; k++) {
            char key[3 * CFG_NAME_MAX + 8];
            direction_key(key, sizeof key, cfg, &lr[k]);
            json_str(w, key);
        }
        json_end_arr(w);
        json_end_obj(w);
    }
}

/* The effective config tree as JSON, with only the keys the run reads, as
 * effective_config.yaml (cfg_key_unread): a run of that file writes the same echo. A scalar
 * has the JSON type YAML gives it plain (cfg_scalar_typed): `version: 1` is 1, `allow_growth:
 * false` false, `efficiency: 0.85` 0.85 (its digits as written), `capacity: 80GiB`, a name or a
 * quoted scalar a string; until 2026-11-28 every scalar was a string ("1", "false"). Until
 * 2026-11-27 every key was echoed, a preset's keys of other policies too (`device:
 * h100` under `--policy caching`: `"allow_growth": "true"`, where the rerun of its
 * effective_config.yaml echoed bfc's default, `"false"`). */
static void tree_json(json_w *w, const am_config *cfg, const cfg_node *n)
{
    switch (n->kind) {
    case CFG_SCALAR:
        switch (cfg_scalar_typed(n)) {
        case CFG_TYPED_NUMBER:
            json_number(w, n->value);
            break;
        case CFG_TYPED_TRUE:
            json_bool(w, 1);
            break;
        case CFG_TYPED_FALSE:
            json_bool(w, 0);
            break;
        case CFG_TYPED_NULL:
            json_null(w);
            break;
        case CFG_TYPED_STRING:
            json_str(w, n->value);
            break;
        }
        break;
    case CFG_MAP:
        json_obj(w);
        for (const cfg_node *c = n->child; c; c = c->next) {
            if (cfg_key_unread(cfg, n, c))
                continue;
            json_key(w, c->key ? c->key : "");
            tree_json(w, cfg, c);
        }
        json_end_obj(w);
        break;
    case CFG_SEQ:
        json_arr(w);
        for (const cfg_node *c = n->child; c; c = c->next)
            tree_json(w, cfg, c);
        json_end_arr(w);
        break;
    }
}

void report_json_trace(json_w *w, const char *key, const report_trace *t)
{
    json_key(w, key);
    json_obj(w);
    json_kstr(w, "path", t->path);
    json_kstr(w, "format", t->format);
    json_ku64(w, "events", t->events);
    json_ku64(w, "skipped", t->skipped);
    json_end_obj(w);
}

void report_json(FILE *f, sim *s, const report_trace *t)
{
    const am_config *cfg = sim_config(s);
    const sim_summary *su = sim_get_summary(s);
    json_w w;
    json_init(&w, f, 1);
    json_obj(&w);
    json_kstr(&w, "amsim_version", AM_VERSION);
    json_key(&w, "config");
    if (cfg->root)
        tree_json(&w, cfg, cfg->root);
    else
        json_null(&w);
    report_json_trace(&w, "trace", t);

    json_key(&w, "levels");
    json_obj(&w);
    for (int i = 0; i < sim_nlevels(s); i++) {
        mem_level *m = sim_level(s, i);
        const mem_metrics *mm = mem_get_metrics(m);
        level_metrics lm;
        report_level_metrics(m, &lm);
        json_key(&w, mem_name(m));
        json_obj(&w);
        json_kstr(&w, "policy", mem_policy(m)->name);
        json_kstr(&w, "kind", mem_kind(m));
        json_ku64(&w, "capacity", mem_capacity(m));
        json_ku64(&w, "peak_live_bytes", lm.peak_live);
        json_ku64(&w, "peak_reserved_bytes", lm.peak_reserved);
        /* peak live is the lower bound on any placement that serves every request: the
         * policy's gap to it. A level that ran out of memory served fewer requests (its peak
         * live counts those it served), so no gap: null (until 2026-11-27 a gap to its own,
         * smaller peak live) */
        json_key(&w, "gap_to_lower_bound_bytes");
        if (mm->ooms)
            json_null(&w);
        else
            json_u64(&w, lm.peak_reserved > lm.peak_live ? lm.peak_reserved - lm.peak_live : 0);
        json_ku64(&w, "peak_allocated_bytes", mm->peak_allocated_bytes);
        json_kreal(&w, "utilization", lm.utilization);
        json_kreal(&w, "fragmentation_ratio", lm.fragmentation_ratio);
        json_ku64(&w, "reserved_unallocated_at_peak", lm.reserved_unallocated_at_peak);
        json_ku64(&w, "internal_fragmentation_bytes", lm.internal_frag);
        json_ku64(&w, "max_internal_fragmentation_bytes", lm.max_internal_frag);
        json_kreal(&w, "max_external_fragmentation", lm.max_external_frag);
        json_ku64(&w, "ooms", mm->ooms);
        json_ku64(&w, "allocs", mm->allocs);
        json_ku64(&w, "frees", mm->frees);
        json_ku64(&w, "live_bytes", mm->live_bytes);
        json_ku64(&w, "reserved_bytes", mm->reserved_bytes);
        json_ku64(&w, "peak_live_buffers", mm->peak_live_count);
        json_ku64(&w, "device_allocs", mm->device_allocs);
        json_ku64(&w, "device_frees", mm->device_frees);
        json_kseconds(&w, "allocator_seconds", mm->allocator_ps);
        json_key(&w, "stats");
        json_obj(&w);
        sink_ctx sc = {&w};
        stat_sink sink = {&sc, sk_u64, sk_cur_peak, sk_real};
        mem_policy(m)->stats(mem_policy_state(m), &sink);
        json_end_obj(&w);
        json_end_obj(&w);
    }
    json_end_obj(&w);

    const sim_oom *oo;
    size_t no = sim_ooms(s, &oo);
    json_key(&w, "oom_events");
    json_arr(&w);
    for (size_t i = 0; i < no; i++) {
        json_obj(&w);
        json_ku64(&w, "seq", oo[i].seq);
        json_key(&w, "id"); /* null: a recorded out-of-memory (`oom` line) that ran out here too */
        if (oo[i].recorded)
            json_null(&w);
        else
            json_u64(&w, oo[i].id);
        json_kstr(&w, "level", cfg->levels[oo[i].level].name);
        /* the request's trace name= (an allocation's or a recorded oom line's); null when it had
         * none, as every field of the event is always there */
        json_kstr(&w, "name", oo[i].name);
        json_ku64(&w, "requested", oo[i].requested);
        json_ku64(&w, "free_bytes", oo[i].free_bytes);
        json_ku64(&w, "largest_free_block", oo[i].largest_free_block);
        json_ku64(&w, "unreserved_bytes", oo[i].unreserved_bytes);
        json_kseconds(&w, "time_seconds", oo[i].time);
        json_end_obj(&w);
    }
    json_end_arr(&w);
    json_ku64(&w, "ooms", su->ooms);

    sim_link_result lr[2 * CFG_MAX_LINKS];
    int nl = sim_links(s, lr, 2 * CFG_MAX_LINKS);
    json_key(&w, "transfers");
    json_obj(&w);
    for (int i = 0; i < nl; i++) {
        const link_stats *st = lr[i].st;
        int from, to;
        link_ends(&lr[i], &from, &to);
        char key[3 * CFG_NAME_MAX + 8];
        direction_key(key, sizeof key, cfg, &lr[i]);
        json_key(&w, key);
        json_obj(&w);
        json_kstr(&w, "link", lr[i].name);
        json_kstr(&w, "from", cfg->levels[from].name);
        json_kstr(&w, "to", cfg->levels[to].name);
        json_ku128(&w, "bytes", st->bytes);
        json_ku64(&w, "count", st->count);
        json_kseconds(&w, "busy_seconds", st->busy_ps);
        json_kseconds128(&w, "seconds", st->sum_ps);
        json_kseconds128(&w, "queued_seconds", st->wait_ps);
        json_kreal(&w, "achieved_bytes_per_second",
                   st->busy_ps ? (double)st->bytes / secs(st->busy_ps) : 0);
        /* a half-duplex link's two directions share one channel: its busy time, both ways */
        json_kbool(&w, "duplex", cfg->links[lr[i].link].duplex);
        json_kseconds(&w, "channel_busy_seconds", lr[i].channel->busy_ps);
        double epb = cfg->links[lr[i].link].energy_pj_per_byte;
        json_key(&w, "energy_joules");
        if (epb > 0)
            json_real(&w, (double)st->bytes * epb * 1e-12);
        else
            json_null(&w);
        /* the runtime's copies, left out above (since 2026-11-28) */
        json_ku128(&w, "runtime_bytes", st->rt_bytes);
        json_ku64(&w, "runtime_count", st->rt_count);
        json_kseconds128(&w, "runtime_seconds", st->rt_sum_ps);
        json_kseconds(&w, "all_busy_seconds", st->all_busy_ps);
        json_kseconds(&w, "channel_all_busy_seconds", lr[i].channel->all_busy_ps);
        json_end_obj(&w);
    }
    json_links(&w, cfg, lr, nl);
    json_end_obj(&w);
    json_key(&w, "defrag");
    json_obj(&w);
    json_ku64(&w, "runs", su->defrag.runs);
    json_ku128(&w, "bytes_moved", su->defrag.bytes_moved);
    json_ku64(&w, "buffers_moved", su->defrag.buffers_moved);
    json_kseconds(&w, "seconds", su->defrag.time);
    json_ku64(&w, "ooms_avoided", su->defrag.ooms_avoided);
    json_ku64(&w, "failures", su->defrag.failures);
    json_ku64(&w, "unsupported", su->defrag.unsupported);
    json_ku64(&w, "skipped", su->defrag.skipped);
    json_ku64(&w, "explicit_runs", su->defrag.explicit_runs);
    json_ku64(&w, "explicit_ignored", su->defrag.explicit_ignored);
    json_key(&w, "not_relocatable");
    json_arr(&w);
    for (int i = 0; i < sim_nlevels(s); i++)
        if (cfg->levels[i].defrag.mode != CFG_DEFRAG_NONE && mem_policy(sim_level(s, i))->set_plan)
            json_str(&w, cfg->levels[i].name);
    json_end_arr(&w);
    json_end_obj(&w);
    json_key(&w, "spill");
    json_obj(&w);
    json_ku64(&w, "evictions", su->spill.evictions);
    json_ku128(&w, "bytes_out", su->spill.bytes_out);
    json_ku64(&w, "restores", su->spill.restores);
    json_ku128(&w, "bytes_in", su->spill.bytes_in);
    json_kseconds(&w, "seconds", su->spill.time);
    json_ku64(&w, "ooms_avoided", su->spill.ooms_avoided);
    json_ku64(&w, "failures", su->spill.failures);
    json_ku64(&w, "skipped", su->spill.skipped);
    json_end_obj(&w);
    json_key(&w, "donation");
    json_obj(&w);
    json_ku64(&w, "matched", su->donations_matched);
    json_ku64(&w, "unmatched", su->donations_unmatched);
    json_end_obj(&w);
    json_key(&w, "transfer_into");
    json_obj(&w);
    json_ku64(&w, "allocated", su->into_allocs);
    json_ku64(&w, "failed", su->into_failed);
    json_end_obj(&w);
    static const char *const dirs[] = {"host_to_device", "device_to_host", "device_to_device"};
    json_key(&w, "transfer_guard");
    json_obj(&w);
    for (int d = 0; d < 3; d++) {
        json_key(&w, dirs[d]);
        json_obj(&w);
        json_ku64(&w, "implicit", su->guard_implicit[d]);
        json_ku64(&w, "logged", su->guard_logged[d]);
        json_ku64(&w, "rejected", su->guard_rejected[d]);
        json_end_obj(&w);
    }
    json_end_obj(&w);
    json_kseconds(&w, "makespan_seconds", su->makespan);
    json_kseconds(&w, "stall_seconds", su->stall);
    json_kseconds(&w, "host_seconds", su->host_time);
    json_kseconds(&w, "allocator_seconds", su->allocator);
    json_key(&w, "events");
    json_obj(&w);
    json_ku64(&w, "total", su->events);
    json_ku64(&w, "allocs", su->allocs);
    json_ku64(&w, "frees", su->frees);
    json_ku64(&w, "transfers", su->transfers);
    json_ku64(&w, "computes", su->computes);
    json_ku64(&w, "frees_after_oom", su->frees_after_oom);
    json_ku64(&w, "transfers_skipped", su->transfers_skipped);
    json_ku64(&w, "warnings", su->warnings);
    json_ku64(&w, "retried_requests", su->retries);
    json_ku64(&w, "retries_succeeded", su->retries_succeeded);
    json_end_obj(&w);
    if (su->validating) {
        json_key(&w, "validation");
        json_obj(&w);
        json_ku64(&w, "recorded_allocs", su->recorded_allocs);
        json_ku64(&w, "address_matches", su->address_matches);
        json_ku64(&w, "segment_events_recorded", su->segment_events_recorded);
        json_ku64(&w, "segment_events_matched", su->segment_events_matched);
        json_ku64(&w, "recorded_ooms", su->recorded_ooms);
        json_ku64(&w, "oom_matches", su->oom_matches);
        /* the first allocation away from its recorded address (seq, id, recorded_address,
         * simulated_address: null when it ran out of memory, line), or null when every one was
         * at it; and, apart, the first recorded segment event without a match (kind, level,
         * address, size, seq, line), or null */
        json_key(&w, "first_mismatch");
        if (su->have_mismatch) {
            json_obj(&w);
            json_ku64(&w, "seq", su->mismatch_seq);
            json_ku64(&w, "id", su->mismatch_id);
            json_ku64(&w, "recorded_address", su->mismatch_recorded);
            ku64_or_null(&w, "simulated_address", su->mismatch_simulated != UINT64_MAX,
                         su->mismatch_simulated);
            json_ku64(&w, "line", su->mismatch_line);
            json_end_obj(&w);
        } else
            json_null(&w);
        const sim_seg_mismatch *sm = &su->seg_mismatch;
        json_key(&w, "first_segment_mismatch");
        if (sm->have) {
            json_obj(&w);
            json_kstr(&w, "kind", sm->alloc ? "segment_alloc" : "segment_free");
            json_kstr(&w, "level", cfg->levels[sm->level].name);
            json_ku64(&w, "address", sm->addr);
            json_ku64(&w, "size", sm->bytes);
            json_ku64(&w, "seq", sm->seq);
            json_ku64(&w, "line", sm->line);
            json_end_obj(&w);
        } else
            json_null(&w);
        json_end_obj(&w);
    }
    json_end_obj(&w);
}
