/* compare.c - `amsim compare`: the same trace under several policies, one table side by side.
 * For the default memory level of each run: peak live (the requests that run served), peak
 * reserved and its gap to the lower bound, utilization, fragmentation ratio, out-of-memory
 * count, device calls (allocations + frees from the device) and host time spent in allocator
 * device calls. `--json FILE` writes the same figures for machines.
 *
 * The lower bound is the trace's own peak of live request sizes on the level, the same for
 * every row: one reference run as mincap's (run_reference: best_fit with on_oom: fail there,
 * its capacity doubled from the configured one until no request fails). A row that ran out of memory served
 * fewer requests, so its own peak live can be below it; until 2026-11-27 each row's gap was
 * taken from its own peak live, and a policy that failed a request looked closer to the bound. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "outfile.h"
#include "report.h"
#include "run.h"
#include "units.h"

#define CMP_MAX 32

typedef struct cmp_row {
    char policy[RUN_POLICY_LEN];
    int ok;
    char error[512];
    char level[64]; /* the compared level's name */
    uint64_t peak_live, peak_reserved, device_calls, allocs;
    uint64_t ooms;       /* every level's, as run's status and mincap count them */
    uint64_t level_ooms; /* the compared (default) level's */
    uint64_t warnings;   /* trace problems --lenient counted and skipped (run's events.warnings) */
    double utilization, frag;
    am_ps alloc_ps, makespan; /* picoseconds */
} cmp_row;

/* 0 when sp's trace reads to its end under cfg's levels and trace settings (as run_once opens
 * it), or -1 with the reader's error. */
static int compare_read_trace(const run_spec *sp, const am_config *cfg, am_error *err)
{
    const char *names[CFG_MAX_LEVELS];
    trace *t = NULL;
    tr_event ev;
    trace_opts to = run_trace_opts(sp, cfg, names);
    int rc = trace_open(&t, sp->trace, &to, err);
    if (rc == 0)
        while ((rc = trace_next(t, &ev, err)) == 1)
            ;
    trace_close(t);
    return rc < 0 ? -1 : 0;
}

/* The trace as the first run that completed read it (every run reads the same), for --json's
 * trace_info; format points to a static name. */
static report_trace cmp_trace;
static int cmp_have_trace;

static void collect(void *ctx, sim *s, const report_trace *t)
{
    cmp_row *r = ctx;
    if (!cmp_have_trace) {
        cmp_trace = *t;
        cmp_have_trace = 1;
    }
    const am_config *cfg = sim_config(s);
    mem_level *m = sim_level(s, cfg->default_level);
    const mem_metrics *mm = mem_get_metrics(m);
    level_metrics lm;
    report_level_metrics(m, &lm);
    r->peak_live = lm.peak_live;
    r->peak_reserved = lm.peak_reserved;
    r->utilization = lm.utilization;
    r->frag = lm.fragmentation_ratio;
    r->level_ooms = mm->ooms;
    /* an OOM of any level (a spill into a full host) is one, as run --fail-on-oom and mincap
     * count it (until 2026-11-27 only the default level's were counted here) */
    r->ooms = 0;
    for (int i = 0; i < sim_nlevels(s); i++)
        r->ooms += mem_get_metrics(sim_level(s, i))->ooms;
    snprintf(r->level, sizeof r->level, "%s", cfg->levels[cfg->default_level].name);
    r->allocs = mm->allocs;
    r->device_calls = mm->device_allocs + mm->device_frees;
    r->alloc_ps = mm->allocator_ps;
    r->makespan = sim_get_summary(s)->makespan;
    r->warnings = sim_get_summary(s)->warnings;
}

/* The trace problems --lenient counted and skipped, one line after the table as run's report
 * has it, when the rows counted any: the count is the trace's, the same in every run (run.h),
 * so the first row that ran says it, as mincap's reference run does. Until 2026-11-27 compare
 * did not say. */
static void print_warnings(const cmp_row *rows, int n)
{
    for (int i = 0; i < n; i++)
        if (rows[i].ok) {
            if (rows[i].warnings)
                printf("%" PRIu64 " trace problem%s counted and skipped (--lenient) in every "
                       "row\n", rows[i].warnings, rows[i].warnings == 1 ? "" : "s");
            return;
        }
}

/* The reference run's answer: the bound, or why it is unknown (the text line and --json's
 * lower_bound_error). */
typedef struct cmp_lb {
    int known;
    uint64_t bytes;
    char why[600]; /* when unknown */
} cmp_lb;

/* The lower bound of the level (see the file comment) into *lb: run_reference's peak live
 * bytes, best_fit with its defaults (the config's allocator options there are the compared
 * policies', caching's `alignment: 3` refused by best_fit), its capacity doubled from the
 * configured one up to 4 EiB (RUN_REF_MAX). A reference run that fails (a time past the
 * simulated clock) or never fits leaves the bound unknown, with the reason: the rows are still
 * run. Until 2026-11-27 a failed reference run stopped compare with no table, and the doubling
 * stopped at 4 PiB from a capacity configured below it (at 4 EiB only from one above). */
static void compare_lower_bound(const run_spec *spec, const char *level, cmp_lb *lb)
{
    am_error err = {0};
    run_ref r;
    char size[64];
    memset(lb, 0, sizeof *lb);
    int rc = run_reference(spec, level, &r, &err);
    if (rc < 0) {
        snprintf(lb->why, sizeof lb->why, "the reference run (best_fit) failed: %.500s",
                 err.msg);
        for (char *q = lb->why; *q; q++)
            if (*q == '\n')
                *q = ' ';
    } else if (rc > 0) {
        /* the level still short: the compared one, or another whose failures leave requests
         * unserved (named then) */
        char on[96];
        if (run_ref_short_prefix(&r, level, on, sizeof on)) /* no capacity serves it */
            snprintf(lb->why, sizeof lb->why, "level %s runs out of memory whatever its capacity "
                     "(its allocator's limit)", r.short_level);
        else
            snprintf(lb->why, sizeof lb->why, "a reference run (best_fit) fails a request %seven "
                     "with %s", on, units_fmt_size_exact(size, sizeof size, r.short_capacity));
    }
    else {
        lb->known = 1;
        lb->bytes = r.peak_live;
    }
}

/* Whether a row has a gap: a bound is known and the row served every request, on every level,
 * as the reference run did (one that ran out of memory did not place the trace: a failed host
 * buffer skips the transfers into the level too, so its reserved bytes say nothing of it; until
 * 2026-11-27 only the level's own out-of-memory results counted, and such a row had a gap) */
static int has_gap(const cmp_row *r, const cmp_lb *lb) { return lb->known && r->ooms == 0; }

/* The gap of a row to the lower bound lb (0 when it reserved no more: spilling can hold less) */
static uint64_t gap_to(const cmp_row *r, uint64_t lb)
{
    return r->peak_reserved > lb ? r->peak_reserved - lb : 0;
}

/* The table on standard output (nothing with -q): the compared level, then a row a policy. */
static void print_table(const cmp_row *rows, int n, const char *level, const cmp_lb *lb,
                        int quiet)
{
    if (quiet)
        return;
    char a[64], b[32], c[32], d[32];
    printf("level %s (the default memory, whose policy each row sets); OOMs: every level's\n",
           level);
    if (lb->known) {
        /* the exact count too when the unit rounds it ("1.50 MiB (1572864 B)"), not when it
         * is already in bytes (until 2026-11-27 "lower bound 0 B (0 B)") */
        printf("lower bound %s: the trace's peak live bytes, every request served\n",
               units_fmt_size_exact(a, sizeof a, lb->bytes));
    }
    else
        printf("lower bound unknown: %s\n", lb->why);
    printf("%-11s %12s %14s %12s %11s %10s %6s %12s %14s\n", "policy", "peak live",
           "peak reserved", "gap", "utilization", "frag", "OOMs", "device calls", "alloc time");
    for (int i = 0; i < n; i++) {
        const cmp_row *r = &rows[i];
        if (!r->ok) {
            printf("%-11s failed: %s\n", r->policy, r->error);
            continue;
        }
        char ut[16], fr[16];
        units_fmt_pct(ut, sizeof ut, r->utilization);
        units_fmt_pct(fr, sizeof fr, r->frag);
        printf("%-11s %12s %14s %12s %11s %10s %6llu %12llu %14s\n", r->policy,
               units_fmt_size(a, sizeof a, r->peak_live),
               units_fmt_size(b, sizeof b, r->peak_reserved),
               has_gap(r, lb) ? units_fmt_size(c, sizeof c, gap_to(r, lb->bytes)) : "n/a",
               r->peak_reserved ? ut : "n/a", r->peak_reserved ? fr : "n/a",
               (unsigned long long)r->ooms, (unsigned long long)r->device_calls,
               units_fmt_time(d, sizeof d, r->alloc_ps));
    }
    printf("peak live: the requests each row served (below the bound when it ran out of "
           "memory); gap = peak reserved - lower bound (n/a when the row ran out)\n");
    print_warnings(rows, n);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: amsim compare -c CONFIG -t TRACE --policies a,b,c [--set PATH=VALUE]...\n"
               "                     [--json FILE] [--lenient] [--device N] [--fail-on-oom] [-q]\n"
               "  replays TRACE once per policy (on the default memory level) and prints one\n"
               "  table: peak live, peak reserved, gap, utilization, fragmentation ratio, OOMs,\n"
               "  device calls and time in allocator device calls; a bad config, --set or trace\n"
               "  is an error (status 1) before any run; a policy whose run fails (e.g. it\n"
               "  refuses a --set value) is a 'failed' row, the other rows and --json are\n"
               "  written, and the status is 1 (2 when the failure is amsim's own)\n"
               "  --json -: standard output (with -q, which leaves the table out; -q needs\n"
               "  --json or --fail-on-oom)\n"
               "  --device N: a PyTorch snapshot's device (default 0), as amsim run --device\n"
               "  --fail-on-oom: status 3 when a row ran out of memory on any level (the OOMs\n"
               "  column counts every level's; the other columns are the default level's)\n");
}

int cmd_compare(int argc, char **argv);
int cmd_compare(int argc, char **argv)
{
    run_spec sp;
    memset(&sp, 0, sizeof sp);
    const char *policies = NULL, *json = NULL, *device_s = NULL;
    int fail_on_oom = 0, quiet = 0;
    enum { O_HELP, O_QUIET, O_LENIENT, O_CONFIG, O_TRACE, O_POLICIES, O_JSON, O_SET, O_DEVICE,
           O_FAIL_ON_OOM, O_N };
    static const cli_opt opts[] = {
        [O_HELP] = {"help", 'h', CLI_FLAG},        [O_LENIENT] = {"lenient", 0, CLI_FLAG},
        [O_QUIET] = {"quiet", 'q', CLI_FLAG},
        [O_CONFIG] = {"config", 'c', CLI_IN},      [O_TRACE] = {"trace", 't', CLI_IN},
        [O_POLICIES] = {"policies", 0, CLI_VALUE}, [O_JSON] = {"json", 0, CLI_PATH},
        [O_SET] = {"set", 0, CLI_VALUE},           [O_DEVICE] = {"device", 0, CLI_VALUE},
        [O_FAIL_ON_OOM] = {"fail-on-oom", 0, CLI_FLAG}, [O_N] = {NULL, 0, 0}};
    /* each takes one value but --set: a second is refused (cli_once) */
    const char **slots[O_N] = {[O_CONFIG] = &sp.config, [O_TRACE] = &sp.trace,
                               [O_POLICIES] = &policies, [O_JSON] = &json,
                               [O_DEVICE] = &device_s};
    cli cl;
    cli_init(&cl, "amsim compare", argc, argv);
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
        if (k == O_LENIENT)
            sp.lenient = 1;
        else if (k == O_FAIL_ON_OOM)
            fail_on_oom = 1;
        else if (k == O_QUIET)
            quiet = 1;
        else if (slots[k]) {
            if (cli_once("amsim compare", opt, slots[k], v, k == O_POLICIES ? "name every "
                         "policy in one comma-separated list, e.g. --policies bfc,caching"
                         : NULL) != 0)
                return 1;
            if (k == O_DEVICE && cli_device("amsim compare", v, &sp.device) != 0)
                return 1;
        } else { /* --set */
            if (sp.nsets == RUN_MAX_SETS) {
                am_msg("amsim compare: more than %d --set options\n", RUN_MAX_SETS);
                return 1;
            }
            sp.sets[sp.nsets++] = v;
        }
    }
    if (!sp.config || !sp.trace || !policies) {
        am_msg("amsim compare: -c CONFIG, -t TRACE and --policies are required\n");
        return 1;
    }
    /* -q with neither --json nor --fail-on-oom (whose status is an answer) wrote nothing and
     * exited 0 until 2026-11-27 */
    if (cli_quiet_needs_output("amsim compare", quiet, json || fail_on_oom,
                               "--json FILE (or --json -) or --fail-on-oom") != 0)
        return 1;
    static cmp_row rows[CMP_MAX];
    static char names[CMP_MAX][RUN_POLICY_LEN];
    char msg[512];
    /* the whole list is checked before the first run: a typo stops it at once */
    int n = run_policy_list(policies, names, CMP_MAX, msg, sizeof msg);
    if (n < 0) {
        am_msg("amsim compare: %s\n", msg);
        return 1;
    }
    /* the output is checked and opened before the first run: a --json naming the config or
     * the trace, or one that cannot be written, stops the command before the replays */
    am_error err = {0};
    /* the table is on standard output too, unless -q: a --json - would be mixed into it */
    const out_named outs[] = {{"--json", json},
                              {"the table (-q leaves it out)", quiet ? NULL : "-"}};
    const out_named ins[] = {{"-c", sp.config}, {"-t", sp.trace}};
    outfile *o = NULL;
    if (out_check_paths(outs, 2, ins, 2, &err) != 0) {
        am_msg("amsim: %s\n", err.msg);
        return 1;
    }
    /* The config with its --set options, before any policy is switched in: an error there (a
     * --set key that belongs to no policy, a bad value) fails every policy the same way, so it
     * is an input error, not a table of failed rows with status 0. The rules a policy puts on
     * its option values are each run's (a failed row for the policy that refuses one); until
     * 2026-11-27 the config's own policy's applied here, though it may not be among the runs. */
    am_config *cfg = NULL;
    if (run_load_config_switching(&sp, &cfg, &err) != 0 ||
        run_check_preset(cfg, outs, 1, &err) != 0) {
        am_msg("amsim: %s\n", err.msg);
        cfg_free(cfg);
        return 1;
    }
    /* The trace, read once alone as the runs will read it (amsim check's way): one that cannot
     * be read fails every policy the same way, so it is an input error before any run. A run
     * that fails later (a time past the simulated clock, a policy's own refusal) is that
     * policy's 'failed' row. (Until 2026-11-25 any run error naming the trace path was taken
     * for a bad trace: no table, no --json.) */
    int bad = compare_read_trace(&sp, cfg, &err);
    char level[64]; /* the level compared: the default one, which --policies sets */
    snprintf(level, sizeof level, "%s", cfg->levels[cfg->default_level].name);
    cfg_free(cfg);
    if (bad) {
        am_msg("amsim: %s\n", err.msg);
        return 1;
    }
    if (out_open(&o, json, &err) != 0) {
        am_msg("amsim: %s\n", err.msg);
        return 1;
    }
    cmp_lb lb;
    compare_lower_bound(&sp, level, &lb);
    int status = 0; /* the worst failed row's: AM_EINPUT or AM_EINTERNAL */
    for (int i = 0; i < n; i++) {
        cmp_row *r = &rows[i];
        memset(r, 0, sizeof *r);
        memcpy(r->policy, names[i], sizeof r->policy);
        sp.policy = r->policy;
        memset(&err, 0, sizeof err);
        if (run_once(&sp, collect, r, NULL, &err) == 0)
            r->ok = 1;
        else {
            snprintf(r->error, sizeof r->error, "%.500s", err.msg);
            status = AM_MAX(status, err.status ? err.status : AM_EINTERNAL);
        }
    }
    print_table(rows, n, level, &lb, quiet);
    /* a failed row is an error (until 2026-11-25 status 0: a policy refusing its --set value
     * gave a table of one 'failed' row and 0, where run and mincap give 1) */
    if (status)
        am_msg("amsim compare: %s\n", status == AM_EINPUT
                ? "a policy's run failed on its input (see its 'failed' row): status 1"
                : "a policy's run failed (see its 'failed' row): status 2");
    /* --fail-on-oom as run's: status 3 when a row ran out of memory on any level, unless a
     * row failed (an error outranks a result) */
    for (int i = 0; i < n && fail_on_oom && !status; i++)
        if (rows[i].ok && rows[i].ooms)
            status = AM_EOOMFAIL;
    if (!o)
        return status;
    json_w w;
    json_init(&w, out_fp(o), 1);
    json_obj(&w);
    json_kstr(&w, "amsim_version", AM_VERSION);
    /* "trace" and "config" are the paths given (their form since the first release); the
     * trace's object as run's summary has it is "trace_info" (when a run completed: null
     * otherwise); "config" stays a path: each row's effective config is its own (its policy) */
    json_kstr(&w, "trace", sp.trace);
    json_kstr(&w, "config", sp.config);
    if (cmp_have_trace) {
        cmp_trace.path = sp.trace;
        report_json_trace(&w, "trace_info", &cmp_trace);
    } else {
        json_key(&w, "trace_info");
        json_null(&w);
    }
    json_kstr(&w, "level", level); /* the level compared (peak, gap, ... and level_ooms) */
    json_key(&w, "lower_bound_bytes"); /* the trace's peak live bytes, every request served */
    if (lb.known)
        json_u64(&w, lb.bytes);
    else {
        json_null(&w);
        json_kstr(&w, "lower_bound_error", lb.why); /* why it is unknown */
    }
    json_key(&w, "policies");
    json_obj(&w);
    for (int i = 0; i < n; i++) {
        cmp_row *r = &rows[i];
        json_key(&w, r->policy);
        json_obj(&w);
        json_kbool(&w, "ok", r->ok);
        if (!r->ok)
            json_kstr(&w, "error", r->error);
        else {
            json_ku64(&w, "peak_live_bytes", r->peak_live);
            json_ku64(&w, "peak_reserved_bytes", r->peak_reserved);
            json_key(&w, "gap_bytes"); /* to lower_bound_bytes */
            if (has_gap(r, &lb))
                json_u64(&w, gap_to(r, lb.bytes));
            else
                json_null(&w);
            json_kreal(&w, "utilization", r->utilization);
            json_kreal(&w, "fragmentation_ratio", r->frag);
            json_ku64(&w, "ooms", r->ooms); /* every level's */
            json_ku64(&w, "level_ooms", r->level_ooms);
            json_ku64(&w, "device_calls", r->device_calls);
            json_kseconds(&w, "allocator_seconds", r->alloc_ps);
            json_kseconds(&w, "makespan_seconds", r->makespan);
            /* trace problems --lenient counted and skipped (run's events.warnings) */
            json_ku64(&w, "warnings", r->warnings);
        }
        json_end_obj(&w);
    }
    json_end_obj(&w);
    json_end_obj(&w);
    /* out_commit flushes the table to standard output before the file is renamed into place:
     * a table that cannot be written leaves no --json (until 2026-11-27 it was published,
     * status 1), and makes the status as main's check_stdout does */
    if (out_commit(o, &err) != 0) {
        am_msg("amsim: %s\n", err.msg);
        if (out_stdout_failed())
            return out_stdout_status(status);
        return status ? status : 1;
    }
    return status;
}
