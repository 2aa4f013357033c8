/* mincap.c - `amsim mincap`: per policy, the smallest memory at which a trace runs without an
 * out-of-memory event on any level, the level's capacity searched (contract.md, Commands).
 *
 * Each policy is placed on the level searched (the default one, or --level NAME), and its knob
 * is set there: BFC's `memory_limit` (the device capacity is raised to at least the limit, since
 * the device must hold the pool) and every other policy's level `capacity`. Everything else is
 * the config as given, spilling (`on_oom: spill_to_host`) and defragmentation included, so a
 * policy that spills can need less than the trace's peak live bytes. A run succeeds when no
 * level runs out of memory, not only the level searched: a small host that other levels spill
 * into makes them run out (their spill finds no room), and that is the searched level's size
 * at work (until 2026-11-27 only the searched level's OOMs counted, so `--level host` answered
 * 1 B for a config whose hbm spills into host). Values are multiples of the granularity G
 * (default 1 MiB). Method:
 *  1. one reference run (run_reference, compare's too), the same whatever the policies
 *     listed: `best_fit` with its defaults (the level's allocator options, the policies', left
 *     out: cfg_load_reference) on the level with `on_oom: fail` there, its capacity at the
 *     configured one, doubled until the level has no OOM (other levels' OOMs are not its
 *     concern), up to 4 EiB (RUN_REF_MAX). It gives the trace's peak live
 *     bytes on the level (every request served and held; shown for comparison, not a bound:
 *     spilling and BFC's retry-after-free hold less at once) and L, the largest single request
 *     the trace makes there, which every policy is asked for (the observer sees trace
 *     requests only, not spill copies; recorded `oom` lines are left out:
 *     `offline` is not asked for them). L is a lower bound for every policy: a run with no OOM
 *     has served that request, which needs L bytes at once whatever was spilled before. A
 *     reference run still short leaves the peak unknown (null, its reason on stderr), not L:
 *     the search goes on (until 2026-11-27 it stopped the command);
 *  2. per policy, on its own: try ceil(L / G) * G, then double until a run has no OOM on any
 *     level (upper bound); the last failing value (or the multiple of G below L) is the lower
 *     end; a value the policy refuses (too small for it to be configured) counts as failing;
 *  3. bisect between them on multiples of G;
 *  4. verify both stated properties by running again: no OOM at M, an OOM at M - G (the levels
 *     that ran out there are reported).
 * A policy's answer depends only on the config, the trace, the level, G and that policy, never
 * on the other policies listed or their order. Bisection assumes that more memory never
 * causes an OOM, on the level or on another. Real allocators (and spilling) are not always
 * monotone (a larger pool changes region sizes, split decisions and spill victims, and so what
 * other levels are left to hold), so M is "the smallest value found by bisection between L and
 * an upper bound that succeeds"; a smaller value may also succeed. The
 * search sees no non-monotonicity (it only probes between a failure and a success); M - G was
 * already seen to fail (or lies below L), so step 4 is a reproducibility check, and a failed
 * check is reported as such instead of being claimed. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch.h"
#include "cli.h"
#include "json.h"
#include "outfile.h"
#include "run.h"
#include "units.h"

#define MC_MAX_POL 32
/* 4 PiB: the search's doubling stops there (the reference run's goes on to RUN_REF_MAX), its
 * last probe at exactly 4 PiB (the largest multiple of the granularity up to it); until
 * 2026-11-25 it doubled once past it (to 6 PiB from 3 MiB, to 5 PiB from an 80 GiB capacity) */
#define MC_MAX_VALUE (1ULL << 52)

static const char *prog = "amsim mincap";

typedef struct mc {
    const char *config, *trace, *level_name;
    const char *sets[RUN_MAX_SETS];
    int nsets;
    uint64_t gran;
    int level;            /* index of the level searched */
    char level_s[64];
    int quiet;
    int lenient;          /* --lenient: every run counts and skips recoverable trace problems */
    int device;           /* --device: a PyTorch snapshot's device (default 0) */
} mc;

/* What a search run found: whether any level ran out, and which. */
typedef struct probe_out {
    uint64_t ooms_all;    /* the OOM count of every level together */
    char oom_levels[CFG_LEVEL_LIST_MAX]; /* the levels with an OOM, "hbm, host" ("" when none) */
} probe_out;

static void probe_cb(void *ctx, sim *s, const report_trace *t)
{
    (void)t;
    probe_out *o = ctx;
    o->ooms_all = 0;
    o->oom_levels[0] = 0;
    size_t used = 0;
    for (int i = 0; i < sim_nlevels(s); i++) {
        uint64_t n = mem_get_metrics(sim_level(s, i))->ooms;
        o->ooms_all += n;
        if (n && used < sizeof o->oom_levels) {
            int k = snprintf(o->oom_levels + used, sizeof o->oom_levels - used, "%s%s",
                             used ? ", " : "", sim_config(s)->levels[i].name);
            used += k > 0 ? (size_t)k : 0;
        }
    }
}

#define MC_REFUSED (-2)

/* One run with policy on the level and its knob at v: 1 no OOM on any level, 0 OOM, -1 error,
 * MC_REFUSED when the policy refuses the knob's value (bfc's memory_limit below 256 bytes,
 * a capacity below buddy's min_block, tlsf's alignment, platform's or cuda_async's
 * granularity or cuda_async's pool_granularity, prealloc's arena of 0 bytes; err says so): no
 * run at v, which the search takes as a value that fails. A refusal is told by the rule's
 * keys (am_error.keys naming the knob), not by the line the message names: a rule comparing
 * the capacity with a granularity the config sets is reported at the granularity (until
 * 2026-11-27 only an error at mincap's own --set counted, so such a config aborted the
 * search at the first value below its granularity). The reference run is run_reference's
 * (until 2026-11-27 a mode of this function). */
static int probe(const mc *c, const char *policy, uint64_t base_cap, uint64_t v, probe_out *o,
                 int *runs, am_error *err)
{
    /* The policy goes on the searched level by a --set of its own: run_spec.policy would put it
     * on the default level and leave the searched one with its configured policy. */
    run_spec sp = {.config = c->config, .trace = c->trace, .lenient = c->lenient,
                   .device = c->device};
    char pol[256], knob[256], cap[256];
    int is_bfc = strcmp(policy, "bfc") == 0;
    for (int i = 0; i < c->nsets; i++)
        sp.sets[sp.nsets++] = c->sets[i];
    snprintf(pol, sizeof pol, "memories.%s.allocator.policy=%s", c->level_s, policy);
    sp.sets[sp.nsets++] = pol;
    if (is_bfc) {
        snprintf(knob, sizeof knob, "memories.%s.allocator.memory_limit=%" PRIu64, c->level_s, v);
        snprintf(cap, sizeof cap, "memories.%s.capacity=%" PRIu64, c->level_s, AM_MAX(v, base_cap));
        sp.sets[sp.nsets++] = cap;
    } else
        snprintf(knob, sizeof knob, "memories.%s.capacity=%" PRIu64, c->level_s, v);
    sp.sets[sp.nsets++] = knob;
    probe_out local;
    if (!o)
        o = &local;
    memset(o, 0, sizeof *o);
    (*runs)++;
    if (run_once(&sp, probe_cb, o, NULL, err) != 0) {
        /* a policy rule on the knob (its keys name it), or the config's own rule on the value
         * (capacity at most 4 EiB), reported at our --set of it (config.c) */
        char at[300];
        snprintf(at, sizeof at, "--set '%s':", knob);
        if (err->status != AM_EINPUT)
            return -1;
        if (am_keys_name(err->keys, is_bfc ? "memory_limit" : "capacity") ||
            strncmp(err->msg, at, strlen(at)) == 0)
            return MC_REFUSED;
        return -1;
    }
    return o->ooms_all == 0;
}

typedef struct mc_result {
    char policy[RUN_POLICY_LEN];
    const char *knob;
    int found;
    uint64_t min_bytes;
    int runs;
    int ok_at_min, oom_below; /* the verified properties */
    int below;                /* M - G: 1 run, 0 not run (M is one granule: 0 bytes), MC_REFUSED */
    char below_levels[CFG_LEVEL_LIST_MAX]; /* the levels that ran out at M - G ("" when not run
                                              or refused) */
    char error[CFG_LEVEL_LIST_MAX + 512];  /* every level's name fits, and err.msg whole */
    int status;               /* when not found: AM_EINPUT (no answer, an input the policy
                                 refuses), or AM_EINTERNAL (amsim's own failure) */
} mc_result;

/* ceil(a / b) without wrapping: until 2026-11-28 (a + b - 1) / b, 0 for a request within one
 * granule of 2^64, whose search then started at one granule */
static uint64_t div_up(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

/* k * G in decimal: the largest request rounded up to the granularity can pass 2^64 - 1 (by
 * less than one granule), and is said as it is. */
static const char *fmt_times(char *buf, size_t n, uint64_t k, uint64_t G)
{
    __extension__ unsigned __int128 v = (unsigned __int128)k * G;
    const uint64_t e19 = 10000000000000000000ULL;
    if (v <= UINT64_MAX)
        snprintf(buf, n, "%" PRIu64, (uint64_t)v);
    else /* below 2^64 + 2^52 < 10^20: two parts */
        snprintf(buf, n, "%" PRIu64 "%019" PRIu64, (uint64_t)(v / e19), (uint64_t)(v % e19));
    return buf;
}

/* Step 2 to 4 for r->policy, from the lower bound L (bytes). */
static void search(const mc *c, uint64_t L, uint64_t base_cap, mc_result *r)
{
    am_error err = {0};
    probe_out po;
    r->knob = strcmp(r->policy, "bfc") == 0 ? "memory_limit" : "capacity";
    uint64_t G = c->gran;
    uint64_t lo_k = div_up(L, G) ? div_up(L, G) - 1 : 0; /* lo_k * G < L: fails */
    uint64_t hi_k = lo_k + 1;
    uint64_t max_k = MC_MAX_VALUE / G; /* the largest value searched: max_k * G <= 4 PiB */
    int p;
    r->status = AM_EINPUT; /* unless a run fails on its own (fail: below) */
    if (hi_k > max_k) {
        /* the label is the value's own size (until 2026-11-27 always "(4 PiB)", though with a
         * granularity that does not divide 4 PiB the largest value searched is less: 3 PiB for
         * a 1.5 PiB granule) */
        char most[32], up[32];
        snprintf(r->error, sizeof r->error, "the largest request (%" PRIu64 " bytes, %s"
                 " rounded up to the granularity) is above %" PRIu64 " bytes (%s), the "
                 "most mincap searches", L, fmt_times(up, sizeof up, hi_k, G), max_k * G,
                 units_fmt_size(most, sizeof most, max_k * G));
        return;
    }
    for (;;) {
        p = probe(c, r->policy, base_cap, hi_k * G, &po, &r->runs, &err);
        if (p == -1)
            goto fail;
        if (p == 1)
            break;
        lo_k = hi_k;
        if (hi_k >= max_k) {
            if (p == MC_REFUSED)
                goto fail;
            /* the levels that ran out: another one than the level searched can run out at
             * every size of it (its own requests do not fit, whatever it spills) */
            snprintf(r->error, sizeof r->error, "out of memory even at %" PRIu64 " bytes (on "
                     "%s %s)", hi_k * G, strchr(po.oom_levels, ',') ? "levels" : "level",
                     po.oom_levels);
            return;
        }
        hi_k = hi_k > max_k / 2 ? max_k : hi_k * 2;
    }
    while (hi_k - lo_k > 1) {
        uint64_t mid = lo_k + (hi_k - lo_k) / 2;
        p = probe(c, r->policy, base_cap, mid * G, NULL, &r->runs, &err);
        if (p == -1)
            goto fail;
        if (p == 1)
            hi_k = mid;
        else
            lo_k = mid;
    }
    r->found = 1;
    r->min_bytes = hi_k * G;
    /* verify both properties with fresh runs */
    p = probe(c, r->policy, base_cap, r->min_bytes, NULL, &r->runs, &err);
    if (p < 0)
        goto fail;
    r->ok_at_min = p == 1;
    if (r->min_bytes > G) {
        p = probe(c, r->policy, base_cap, r->min_bytes - G, &po, &r->runs, &err);
        if (p == -1)
            goto fail;
        r->oom_below = p != 1; /* refused: nothing smaller runs either */
        r->below = p == MC_REFUSED ? MC_REFUSED : 1;
        if (p == 0)
            snprintf(r->below_levels, sizeof r->below_levels, "%s", po.oom_levels);
    } else
        r->oom_below = 1; /* nothing smaller than one granule exists (0 bytes is no memory) */
    return;
fail:
    r->status = err.status ? err.status : AM_EINTERNAL;
    snprintf(r->error, sizeof r->error, "%s", err.msg);
    for (char *q = r->error; *q; q++)
        if (*q == '\n')
            *q = ' ';
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: amsim mincap -c CONFIG -t TRACE [--policies a,b] [--granularity BYTES]\n"
            "                    [--json FILE] [--level NAME] [--set PATH=VALUE]... [--lenient]\n"
            "                    [--device N] [-q]\n"
            "  per policy, the smallest memory of the level (default: the config's default\n"
            "  memory) at which TRACE runs with no out-of-memory event on any level: BFC's\n"
            "  memory_limit (capacity raised to hold it), other policies' capacity; the rest of\n"
            "  the config as given, spilling included (a level spilling into a small one runs\n"
            "  out). Found by bisection on multiples of the granularity (default\n"
            "  1MiB) between the largest single request on the level (a lower bound for every\n"
            "  policy) and an upper bound found by doubling; each policy is searched on its own.\n"
            "  Both properties (no OOM at M, an OOM at M - granularity) are checked again at the\n"
            "  end and reported. Peak live bytes (every request held, none spilled from the\n"
            "  level; other levels' spill copies into it counted) is shown for comparison:\n"
            "  spilling, or offline skipping recorded oom lines, can need less. A policy with\n"
            "  no answer is its row and a line on stderr: status 1 (2: amsim's own failure).\n"
            "  A reference run (best_fit) that never serves every request leaves the peak\n"
            "  live bytes unknown (said on stderr); every policy is still searched.\n"
            "  --lenient: every run counts and skips recoverable trace problems (a free of an\n"
            "  unknown id, ...), as amsim run --lenient does.\n"
            "  --device N: a PyTorch snapshot's device (default 0), as amsim run --device.\n"
            "  --json -: standard output (with -q, which leaves the table out; -q needs\n"
            "  --json).\n");
}

/* The names of a probe_out's oom_levels ("hbm, host") as JSON strings. */
static void level_names(json_w *w, const char *list)
{
    while (*list) {
        size_t n = strcspn(list, ",");
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), list);
        json_str(w, name);
        list += n;
        list += strspn(list, ", ");
    }
}

/* The table's check column for a policy found. */
static void check_text(const mc_result *r, char *buf, size_t n)
{
    if (!r->ok_at_min)
        snprintf(buf, n, "FAILED: OOM at the reported value (nondeterministic run?)");
    else if (!r->oom_below)
        snprintf(buf, n, "FAILED: no OOM at min - granularity on a second run (nondeterministic "
                 "run, or a request below the bound?)");
    else if (r->below == 1)
        snprintf(buf, n, "ok (no OOM at min, OOM at min - granularity on %s)", r->below_levels);
    else if (r->below == MC_REFUSED)
        snprintf(buf, n, "ok (no OOM at min, min - granularity refused by the policy)");
    else
        snprintf(buf, n, "ok (no OOM at min, which is one granule: nothing smaller to run)");
}

/* Everything after the options: the searches, then the JSON (*op, opened by the caller, NULL
 * once committed) and the table. The exit status. */
static int mc_main(mc *c, const char *pols, outfile **op)
{
    am_error err = {0};
    am_config *cfg = NULL;
    /* The level's policy rules are left to the runs: with --policies, the configured policy
     * may run nowhere (until 2026-11-27 its rules refused the whole command); without, its
     * rules on the capacity (bfc's 256-byte limit, checked at load since 2026-11-27) are about
     * the configured capacity, which the search replaces. A rule every value breaks fails
     * each run, with its message. */
    if (cfg_load_switched(&cfg, c->config, c->sets, c->nsets, c->level_name, NULL, &err) != 0) {
        am_msg("amsim: %s\n", err.msg);
        return 1;
    }
    c->level = cfg->default_level;
    if (c->level_name &&
        (c->level = cfg_level_index(cfg, c->level_name, strlen(c->level_name))) < 0) {
        /* with "did you mean" and the levels there are (until 2026-11-27 neither: --level hmb
         * said only "no memory level 'hmb'") */
        const char *cands[CFG_MAX_LEVELS + 1];
        char names[CFG_LEVEL_LIST_MAX];
        cfg_level_names(cfg, names, sizeof names);
        for (int i = 0; i < cfg->nlevels; i++)
            cands[i] = cfg->levels[i].name;
        cands[cfg->nlevels] = NULL;
        const char *near = cfg_suggest(c->level_name, cands);
        char shown[1024];
        am_msg("%s: no memory level '%s' in %s (%s%s%slevels: %s)\n", prog,
                am_escape_name(shown, sizeof shown, c->level_name), c->config,
                near ? "did you mean '" : "", near ? near : "",
                near ? "'? " : "", names);
        cfg_free(cfg);
        return 1;
    }
    snprintf(c->level_s, sizeof c->level_s, "%s", cfg->levels[c->level].name);
    uint64_t base_cap = cfg->levels[c->level].capacity;
    mc_result res[MC_MAX_POL];
    int np = 0;
    memset(res, 0, sizeof res);
    if (pols) {
        char names[MC_MAX_POL][RUN_POLICY_LEN], msg[512];
        if ((np = run_policy_list(pols, names, MC_MAX_POL, msg, sizeof msg)) < 0) {
            am_msg("%s: %s\n", prog, msg);
            cfg_free(cfg);
            return 1;
        }
        for (int i = 0; i < np; i++)
            memcpy(res[i].policy, names[i], sizeof res[i].policy);
    } else
        snprintf(res[np++].policy, sizeof res[0].policy, "%s", cfg->levels[c->level].policy->name);
    cfg_free(cfg);

    /* 1. the reference run: best_fit with spilling off, capacity doubled until no OOM
     * (run_reference, compare's too: up to 4 EiB; until 2026-11-27 mincap's own loop gave up
     * at 4 PiB, "runs out of memory even with 4503599627370496 bytes", where compare found the
     * bound) */
    run_spec rs = {.config = c->config, .trace = c->trace, .lenient = c->lenient,
                   .device = c->device};
    memcpy(rs.sets, c->sets, (size_t)c->nsets * sizeof rs.sets[0]);
    rs.nsets = c->nsets;
    run_ref ref;
    int rc = run_reference(&rs, c->level_s, &ref, &err);
    if (rc < 0) {
        am_msg("amsim: %s\n", err.msg);
        return err.status ? err.status : 2;
    }
    /* A reference run still short leaves the peak live bytes unknown, nothing else: L, the
     * largest trace request on the level, is what its last run was asked for, served or not
     * (a transfer into= the level that a short level skipped is missing from it, which keeps
     * it a lower bound), and each policy's search is its own, so a policy that needs what
     * best_fit could not have (a recorded `oom` line above 4 EiB) is its row with no answer,
     * and one that does not (offline, not asked for `oom` lines) gets its answer. Until
     * 2026-11-27 the command stopped there with status 1, no table and no --json. */
    char ref_why[256] = "";
    if (rc > 0) {
        /* the level still short: the searched one, or another named (a host whose failed
         * allocations skip transfers into this level) */
        char on[96];
        if (run_ref_short_prefix(&ref, c->level_s, on, sizeof on)) /* no capacity serves it */
            snprintf(ref_why, sizeof ref_why, "the reference run (best_fit): level %s runs out "
                     "of memory whatever its capacity (its allocator's limit)", ref.short_level);
        else
            snprintf(ref_why, sizeof ref_why, "the reference run (best_fit) runs out of memory "
                     "%seven with %" PRIu64 " bytes", on, ref.short_capacity);
    }
    uint64_t peak = ref.peak_live, L = ref.max_request;
    /* no trace request on the level: no memory is too small, and no answer would be checked.
     * A reference run still short may have served none of them: its alloc_mask says which
     * levels were asked, and a transfer into= the level that a short level skipped (grow_mask
     * names such levels) is a request of the level all the same (L is then what was asked,
     * possibly 0: still a lower bound, the search starting at one granule) */
    uint64_t self = (uint64_t)1 << c->level;
    int none = rc > 0 ? !(ref.alloc_mask & self) && !(ref.grow_mask & ~self) : peak == 0;
    if (none) {
        /* the levels it does allocate on; "choose the level with --level" only when none was
         * given (until 2026-11-27 said after --level too, naming no level) */
        char where[CFG_LEVEL_LIST_MAX + 64];
        if (!ref.alloc_levels[0])
            snprintf(where, sizeof where, "it allocates on no level");
        else
            snprintf(where, sizeof where, "%sit allocates on %s",
                     c->level_name ? "" : "choose the level with --level: ", ref.alloc_levels);
        am_msg("%s: %s makes no allocation on level %s: nothing to size (%s)\n", prog,
                c->trace, c->level_s, where);
        return 1;
    }
    if (rc > 0)
        am_msg("%s: %s: peak live bytes unknown; each policy is searched from the largest "
               "request (%" PRIu64 " bytes)\n", prog, ref_why, L);
    int status = 0; /* the worst policy's that found no answer */
    for (int i = 0; i < np; i++) {
        if (!c->quiet && isatty(2))
            am_progress("%s: searching %s (%d of %d)...", prog, res[i].policy, i + 1, np);
        search(c, L, base_cap, &res[i]);
        if (!res[i].found)
            status = AM_MAX(status, res[i].status);
    }
    am_progress_clear(); /* nothing when no progress line is shown */

    if (*op) {
        outfile *o = *op;
        json_w w;
        json_init(&w, out_fp(o), 1);
        json_obj(&w);
        /* null with the reason when the reference run stayed short */
        json_key(&w, "peak_live_bytes");
        if (rc > 0) {
            json_null(&w);
            json_kstr(&w, "peak_live_error", ref_why);
        } else
            json_u64(&w, peak);
        json_ku64(&w, "lower_bound_bytes", L);
        json_ku64(&w, "granularity", c->gran);
        /* trace problems --lenient counted and skipped, as run's events.warnings (the trace's:
         * every run counts the same; the reference run's is given) */
        json_ku64(&w, "warnings", ref.warnings);
        json_kstr(&w, "level", c->level_s);
        /* "trace": the path given; "trace_info": the object run's summary has as "trace";
         * "config": the path given (each policy's effective config is its own) */
        json_kstr(&w, "amsim_version", AM_VERSION);
        json_kstr(&w, "trace", c->trace);
        json_kstr(&w, "config", c->config);
        ref.trace.path = c->trace;
        report_json_trace(&w, "trace_info", &ref.trace);
        json_key(&w, "policies");
        json_obj(&w);
        for (int i = 0; i < np; i++) {
            json_key(&w, res[i].policy);
            json_obj(&w);
            json_key(&w, "min_bytes");
            if (res[i].found)
                json_u64(&w, res[i].min_bytes);
            else
                json_null(&w);
            json_kstr(&w, "knob", res[i].knob);
            json_ku64(&w, "runs", (uint64_t)res[i].runs);
            if (res[i].found) {
                json_kbool(&w, "no_oom_at_min", res[i].ok_at_min);
                json_kbool(&w, "oom_at_min_minus_granularity", res[i].oom_below);
                json_kbool(&w, "monotone_check", res[i].ok_at_min && res[i].oom_below);
                /* which levels ran out at M - G: [] when that run was not made (M is one
                 * granule) or the policy refused the value */
                json_key(&w, "oom_levels_at_min_minus_granularity");
                json_arr(&w);
                level_names(&w, res[i].below_levels);
                json_end_arr(&w);
            } else
                json_kstr(&w, "error", res[i].error);
            json_end_obj(&w);
        }
        json_end_obj(&w);
        json_end_obj(&w); /* the writer ends the document with its newline (until 2026-11-27
                           * another followed: a blank last line, unlike run's and compare's) */
    }
    if (!c->quiet) {
        char a[32], b[64];
        char *shown = am_escape_dup(c->trace); /* as check echoes it: no raw ESC */
        printf("mincap: %s on level %s, granularity %s\n", shown, c->level_s,
               units_fmt_size(a, sizeof a, c->gran));
        free(shown);
        /* the reference run's peak on the level: spill copies other levels put there are in
         * it (until 2026-11-27 the line said "nothing spilled" of them too) */
        printf("peak live bytes (every request held, none spilled from %s; spills into it "
               "counted): ", c->level_s);
        if (rc > 0)
            printf("unknown: %s\n", ref_why);
        else
            printf("%s\n", units_fmt_size_exact(b, sizeof b, peak));
        printf("lower bound for every policy (largest single request): %s\n",
               units_fmt_size_exact(b, sizeof b, L));
        /* as run's report says it (until 2026-11-27 mincap did not) */
        if (ref.warnings)
            printf("%" PRIu64 " trace problem%s counted and skipped (--lenient) in every run\n",
                   ref.warnings, ref.warnings == 1 ? "" : "s");
        printf("a run fits when no level runs out of memory (an OOM of any level counts)\n\n");
        printf("%-12s %-13s %16s %12s %14s %5s  %s\n", "policy", "knob", "min bytes (B)", "min",
               "vs peak live", "runs", "check");
        for (int i = 0; i < np; i++) {
            const mc_result *r = &res[i];
            if (!r->found) {
                printf("%-12s %-13s %16s %12s %14s %5d  %s\n", r->policy, r->knob, "-", "-", "-",
                       r->runs, r->error);
                continue;
            }
            char pct[32] = "n/a"; /* no peak to compare with (rc > 0) */
            double p = peak ? 100.0 * ((double)r->min_bytes - (double)peak) / (double)peak : 0.0;
            /* three significant digits past what the column holds (a 4 PiB granule on a
             * trace of a few MiB): until 2026-11-27 "+275318057.9 %" pushed the columns out */
            if (rc == 0)
                snprintf(pct, sizeof pct, p < 1e6 ? "%+.1f %%" : "%+.2e %%", p);
            char check[CFG_LEVEL_LIST_MAX + 128];
            check_text(r, check, sizeof check);
            printf("%-12s %-13s %16" PRIu64 " %12s %14s %5d  %s\n", r->policy, r->knob,
                   r->min_bytes, units_fmt_size(a, sizeof a, r->min_bytes), pct, r->runs, check);
        }
    }
    /* --json is renamed into place once the table reached standard output (out_commit flushes
     * it first): a table that cannot be written leaves no file (until 2026-11-27 the file was
     * committed first, and published although the command failed, status 1) */
    if (*op) {
        outfile *o = *op;
        *op = NULL;
        if (out_commit(o, &err) != 0) {
            am_msg("amsim: %s\n", err.msg);
            if (out_stdout_failed()) /* the status as main's check_stdout makes it */
                return out_stdout_status(status);
            return 1;
        }
    }
    /* A policy with no answer makes the status 1 (2 when the failure is amsim's own), said on
     * stderr as compare says it, -q or not (until 2026-11-27 status 1 with nothing on stderr,
     * and nothing at all with -q). A failed check is reported in the table and the JSON; it
     * is a result, not an error. */
    for (int i = 0; i < np; i++)
        if (!res[i].found)
            am_msg("%s: %s: no minimum found: %s\n", prog, res[i].policy, res[i].error);
    if (status)
        am_msg("%s: %s\n", prog, status == AM_EINPUT
                ? "a policy found no minimum (see its row): status 1"
                : "a policy's run failed (see its row): status 2");
    return status;
}

int cmd_mincap(int argc, char **argv)
{
    mc c = {0};
    const char *json = NULL, *pols = NULL, *gran_s = NULL, *device_s = NULL;
    c.gran = 1ULL << 20;
    enum {
        O_HELP, O_QUIET, O_CONFIG, O_TRACE, O_POLICIES, O_JSON, O_LEVEL, O_GRAN, O_SET,
        O_LENIENT, O_DEVICE, O_N
    };
    static const cli_opt opts[] = {
        [O_HELP] = {"help", 'h', CLI_FLAG},        [O_QUIET] = {"quiet", 'q', CLI_FLAG},
        [O_CONFIG] = {"config", 'c', CLI_IN},      [O_TRACE] = {"trace", 't', CLI_IN},
        [O_POLICIES] = {"policies", 0, CLI_VALUE}, [O_JSON] = {"json", 0, CLI_PATH},
        [O_LEVEL] = {"level", 0, CLI_VALUE},       [O_GRAN] = {"granularity", 0, CLI_VALUE},
        [O_SET] = {"set", 0, CLI_VALUE},           [O_LENIENT] = {"lenient", 0, CLI_FLAG},
        [O_DEVICE] = {"device", 0, CLI_VALUE},     [O_N] = {NULL, 0, 0}};
    /* each takes one value but --set: a second is refused (cli_once) */
    const char **slots[O_N] = {[O_CONFIG] = &c.config, [O_TRACE] = &c.trace,
                               [O_POLICIES] = &pols,   [O_JSON] = &json,
                               [O_LEVEL] = &c.level_name, [O_GRAN] = &gran_s,
                               [O_DEVICE] = &device_s};
    cli cl;
    cli_init(&cl, prog, argc, argv);
    const char *opt, *v;
    for (int k; (k = cli_next(&cl, opts, &opt, &v)) != CLI_END;) {
        if (k == CLI_ERROR)
            return 1;
        if (k == CLI_OPERAND)
            return cli_unexpected(&cl, v), 1;
        if (k == O_HELP) {
            usage(stdout);
            return 0;
        }
        if (k == O_QUIET) {
            c.quiet = 1;
            continue;
        }
        if (k == O_LENIENT) { /* its errors suggest it (until 2026-11-25 it was refused) */
            c.lenient = 1;
            continue;
        }
        if (slots[k] && cli_once(prog, opt, slots[k], v, k == O_POLICIES ? "name every policy "
                                 "in one comma-separated list, e.g. --policies bfc,caching"
                                 : NULL) != 0)
            return 1;
        if (k == O_DEVICE && cli_device(prog, v, &c.device) != 0)
            return 1;
        if (k == O_SET) {
            /* 256 like run and compare: the run spec has room for the probe's own sets
             * (until 2026-11-27 mincap took 252, "too many --set options") */
            if (c.nsets == RUN_MAX_SETS) {
                am_msg("%s: more than %d --set options\n", prog, RUN_MAX_SETS);
                return 1;
            }
            c.sets[c.nsets++] = v;
        } else if (k == O_GRAN) {
            /* the form a config's sizes keep, as --set's (until 2026-11-27 '+1MiB', '01MiB'
             * and ' 1MiB' were read as 1 MiB) */
            const char *why = cfg_number_form(v);
            if (why) {
                char shown[256];
                am_msg("%s: --granularity: bad number '%s': %s\n", prog,
                       am_escape_name(shown, sizeof shown, v), why);
                return 1;
            }
            if (units_size(v, &c.gran, &why) != 0 || c.gran == 0) {
                am_msg("%s: --granularity: '%s' is not a size > 0 (%s)\n", prog, v,
                        c.gran ? why : "zero");
                return 1;
            }
            /* the search steps by whole granules up to 4 PiB: a larger granule has none
             * (until 2026-11-27 it ran and said the largest request was "above 0 bytes (4 PiB)") */
            if (c.gran > MC_MAX_VALUE) {
                am_msg("%s: --granularity: '%s' is above 4 PiB (%llu bytes), the most "
                        "mincap searches\n", prog, v, (unsigned long long)MC_MAX_VALUE);
                return 1;
            }
        }
    }
    if (!c.config || !c.trace) {
        am_msg("%s: -c CONFIG and -t TRACE are required\n", prog);
        return 1;
    }
    /* until 2026-11-27 -q without --json wrote nothing and exited 0 */
    if (cli_quiet_needs_output(prog, c.quiet, json != NULL, "--json FILE (or --json -)") != 0)
        return 1;
    am_error err = {0};
    /* the output is checked and opened before the first run (see compare.c) */
    /* the table is on standard output too, unless -q: a --json - would be mixed into it */
    const out_named outs[] = {{"--json", json},
                              {"the table (-q leaves it out)", c.quiet ? NULL : "-"}};
    const out_named ins[] = {{"-c", c.config}, {"-t", c.trace}};
    outfile *o = NULL;
    am_config *cfg = NULL; /* for the device preset it reads, an input too */
    if (out_check_paths(outs, 2, ins, 2, &err) != 0 ||
        (json && (cfg_load_switched(&cfg, c.config, c.sets, c.nsets, c.level_name, NULL,
                                    &err) != 0 ||
                  run_check_preset(cfg, outs, 1, &err) != 0)) ||
        out_open(&o, json, &err) != 0) {
        am_msg("amsim: %s\n", err.msg);
        cfg_free(cfg);
        return 1;
    }
    cfg_free(cfg);
    int rc = mc_main(&c, pols, &o);
    out_abort(o); /* NULL once committed */
    return rc;
}
