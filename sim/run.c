/* run.c - one replay from file names to outputs (see run.h). */
#include "run.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch.h" /* rt_fnv1a */
#include "config.h"
#include "expect.h"
#include "export_chrome.h"
#include "export_snapshot.h"
#include "observer_mux.h"
#include "outfile.h"
#include "prepass.h"
#include "trace.h"

trace_opts run_trace_opts(const run_spec *sp, const am_config *cfg,
                          const char *names[CFG_MAX_LEVELS])
{
    for (int i = 0; i < cfg->nlevels; i++)
        names[i] = cfg->levels[i].name;
    return (trace_opts){names, cfg->nlevels, cfg->default_level, cfg->trace.lifetimes_inclusive,
                        cfg->trace.time_unit, sp->device};
}

int run_load_config(const run_spec *sp, am_config **cfg, am_error *err)
{
    if (sp->reference_level)
        return cfg_load_reference(cfg, sp->config, sp->sets, sp->nsets, sp->reference_level,
                                  "best_fit", err);
    if (!sp->policy)
        return cfg_load(cfg, sp->config, sp->sets, sp->nsets, err);
    /* --policy: the same config with the default level's policy replaced, in one load, so the
     * rules checked are those of the policy that runs (until 2026-11-27 the config was loaded
     * as written first, to learn the default level, and its own policy's rules applied) */
    return cfg_load_switched(cfg, sp->config, sp->sets, sp->nsets, NULL, sp->policy, err);
}

int run_load_config_switching(const run_spec *sp, am_config **cfg, am_error *err)
{
    return cfg_load_switched(cfg, sp->config, sp->sets, sp->nsets, NULL, NULL, err);
}

void run_policy_hint(char *dst, size_t n, const char *name)
{
    const char *cands[64];
    int nc = 0;
    for (const struct alloc_ops *const *p = alloc_all(); p && *p && nc < 63; p++)
        cands[nc++] = (*p)->name;
    cands[nc] = NULL;
    const char *near = cfg_suggest(name, cands);
    size_t k = 0;
    if (near)
        k = (size_t)snprintf(dst, n, "did you mean '%s'? ", near);
    k += k < n ? (size_t)snprintf(dst + k, n - k, "policies:") : 0;
    for (int i = 0; i < nc && k < n; i++)
        k += (size_t)snprintf(dst + k, n - k, "%s %s", i ? "," : "", cands[i]);
}

int run_policy_list(const char *list, char (*names)[RUN_POLICY_LEN], int max, char *msg,
                    size_t msglen)
{
    /* strtok would merge ",," and drop a trailing ",": a typo would silently lose a policy */
    if (!*list) {
        snprintf(msg, msglen, "--policies is empty: name at least one policy (see amsim "
                 "policies)");
        return -1;
    }
    /* the list and its names quoted as am_escape_name does: a tab or an escape a user typed
     * shows as \xHH (until 2026-11-27 they were echoed raw) */
    char shown[2048], qname[4 * 201];
    am_escape_name(shown, sizeof shown, list);
    int n = 0;
    for (const char *p = list;; p++) {
        size_t len = strcspn(p, ",");
        if (len == 0) {
            snprintf(msg, msglen, "--policies '%s': empty name at character %zu (names are "
                     "separated by single commas)", shown, (size_t)(p - list) + 1);
            return -1;
        }
        char name[RUN_POLICY_LEN];
        snprintf(name, sizeof name, "%.*s", (int)len, p);
        /* blanks are refused, not trimmed: a policy name has none, and the list is one
         * argument (until 2026-11-27 "bfc, caching" said "unknown policy ' caching'") */
        if (len < sizeof name && strcspn(name, " \t") < len) {
            snprintf(msg, msglen, "--policies '%s': policy name '%s' has a blank (names are "
                     "separated by single commas, without blanks: --policies bfc,caching)",
                     shown, am_escape_name(qname, sizeof qname, name));
            return -1;
        }
        if (len >= sizeof name || !alloc_find(name)) {
            char hint[512];
            run_policy_hint(hint, sizeof hint, len >= sizeof name ? "" : name);
            char cut[201];
            snprintf(cut, sizeof cut, "%.*s", (int)AM_MIN(len, 200), p);
            snprintf(msg, msglen, "unknown policy '%s' (%s)", am_escape_name(qname, sizeof qname,
                     cut), hint);
            return -1;
        }
        for (int i = 0; i < n; i++)
            if (strcmp(names[i], name) == 0) {
                snprintf(msg, msglen, "--policies '%s': policy '%s' named twice", shown, name);
                return -1;
            }
        if (n == max) {
            snprintf(msg, msglen, "--policies: at most %d policies", max);
            return -1;
        }
        memcpy(names[n++], name, sizeof name);
        p += len;
        if (!*p)
            return n;
    }
}

int run_check_preset(const am_config *cfg, const out_named *outs, int nout, am_error *err)
{
    const out_named pre = {"the config's device preset", cfg->preset[0] ? cfg->preset : NULL};
    return out_check_paths(outs, nout, &pre, 1, err);
}

/* O_DJSON, O_DPLACE and O_DTIMELINE are -o DIR's copy of an output also given by path (--json,
 * --placements, --timeline): DIR always gets its whole set, and the named file is the same.
 * O_SAVE is --save-expect: one of the set, so that it is committed with the others or not at
 * all (until 2026-11-27 it was written after them, and a failure there left them written). */
enum { O_JSON, O_PLACE, O_TIMELINE, O_LOG, O_REPORT, O_CONFIG, O_SAVE, O_DJSON, O_DPLACE,
       O_DTIMELINE, O_N };
enum { O_ND = O_DJSON - O_JSON }; /* O_X + O_ND: DIR's copy of O_X */
/* the exporters' outputs, in the set once they are finished (chrome_finish, snap_finish), and
 * the text report when it goes to standard output (O_STDTEXT, "-"): one of the set, so that a
 * report that cannot be written there leaves every file unpublished */
enum { O_CHROME = O_N, O_SNAP, O_STDTEXT, O_ALL };

/* The streamed outputs (placements, timeline) are written once, to whichever of the pair can be
 * read back (a temporary), and copied to the other after the run: the engine keeps one FILE per
 * output. *src and *dst get the two; -1 with err when neither can be read back. */
static int stream_pair(outfile **o, int i, int *src, int *dst, const char *const *path,
                       am_error *err)
{
    *src = i;
    *dst = -1;
    if (!o[i + O_ND])
        return 0;
    *dst = i + O_ND;
    if (out_rereadable(o[i]))
        return 0;
    if (!out_rereadable(o[i + O_ND]))
        return am_fail(err, AM_EINPUT, "%s and %s are both a stream or a device: amsim cannot "
                       "write the same rows to both; make one of them a regular file",
                       strcmp(path[i], "-") ? path[i] : "standard output", path[i + O_ND]);
    *src = i + O_ND;
    *dst = i;
    return 0;
}

int run_once(const run_spec *sp, run_done_fn done, void *ctx, uint64_t *ooms, am_error *err)
{
    am_config *cfg = NULL;
    trace *t = NULL;
    sim *s = NULL;
    expect_ctx *xp = NULL;
    chrome_exp *cx = NULL;
    snap_exp *sx = NULL;
    obs_mux mux;
    outfile *o[O_ALL] = {0};
    const char *path[O_N] = {[O_JSON] = sp->json, [O_PLACE] = sp->placements,
                             [O_TIMELINE] = sp->timeline, [O_LOG] = sp->log,
                             [O_SAVE] = sp->save_expect};
    char *owned[O_N] = {0};
    int rc = -1, src[2], dst[2], made_dir = 0;
    if (sp->outdir && strcmp(sp->outdir, "-") == 0) {
        /* until 2026-11-27 it made a directory named '-' */
        am_fail(err, AM_EINPUT, "-o -: -o names a directory for the run's files; standard "
                "output is no directory (--json - writes the summary there)");
        goto out;
    }
    if (sp->outdir) {
        static const char *names[O_DJSON] = {"summary.json", "placements.csv", "timeline.csv",
                                             NULL, "report.txt", "effective_config.yaml", NULL};
        /* DIR is made first, so that the checks below compare its files by device and inode
         * like any other path (`--json DIR/../DIR/summary.json` is DIR's own file), and removed
         * again when the command stops without writing into it (made_dir). */
        sigset_t stop, unblocked; /* no stop signal between the mkdir and the tracking */
        out_stop_signals(&stop);
        sigprocmask(SIG_BLOCK, &stop, &unblocked);
        int made = mkdir(sp->outdir, 0777) == 0, mkdir_errno = errno;
        if (made) {
            made_dir = 1;
            out_track_dir(sp->outdir, 1); /* an interrupt removes it too */
        }
        sigprocmask(SIG_SETMASK, &unblocked, NULL);
        errno = mkdir_errno;
        if (!made && errno != EEXIST) {
            am_fail(err, AM_EINPUT, "%s: cannot create directory: %s", sp->outdir, strerror(errno));
            goto out;
        }
        for (int i = 0; i < O_DJSON; i++) {
            if (!names[i])
                continue;
            char *p = am_path_join_dup(sp->outdir, names[i]);
            if (!path[i])
                path[i] = owned[i] = p;
            else if (i + O_ND < O_N && !out_same_entry(path[i], p))
                path[i + O_ND] = owned[i + O_ND] = p; /* --json X -o DIR: both (a hard link
                                                       * of DIR's file: refused below) */
            else
                free(p); /* --json DIR/summary.json (any spelling, a symbolic link to it):
                          * that file once */
        }
    }
    /* Two outputs naming one regular file would share its temporary: the second commit failed
     * ("No such file or directory") and the file held whichever was renamed first. An output
     * naming an input (--json X --expect X) would replace it with this run's result; the
     * inputs are every file read: -c, the device preset it loads (known once it is loaded,
     * still before anything is written), -t and --expect. */
    static const char *const label[O_N] = {"--json", "--placements", "--timeline", "--log",
                                           "-o's report.txt", "-o's effective_config.yaml",
                                           "--save-expect", "-o's summary.json",
                                           "-o's placements.csv", "-o's timeline.csv"};
    out_named outs[O_N + 3];
    int nout = 0;
    for (int i = 0; i < O_N; i++)
        if (path[i]) /* DIR's own file when -o filled it in */
            outs[nout++] = (out_named){label[owned[i] && i < O_LOG ? i + O_ND : i], path[i]};
    outs[nout++] = (out_named){"--chrome-trace", sp->chrome_trace};
    outs[nout++] = (out_named){"--pytorch-snapshot", sp->pytorch_snapshot};
    /* the text report is on standard output too: an output "-" would be mixed into it */
    if (sp->text == stdout)
        outs[nout++] = (out_named){"the report (-q leaves it out)", "-"};
    const out_named ins[] = {{"-c", sp->config}, {"-t", sp->trace}, {"--expect", sp->expect}};
    if (out_check_paths(outs, nout, ins, (int)AM_ARRAY_LEN(ins), err) != 0)
        goto out;
    if (run_load_config(sp, &cfg, err) != 0)
        goto out;
    if (run_check_preset(cfg, outs, nout, err) != 0)
        goto out;
    if (sp->warn_config)
        cfg_print_warnings(cfg, stderr, "amsim");
    const char *lnames[CFG_MAX_LEVELS];
    trace_opts to = run_trace_opts(sp, cfg, lnames);
    if (trace_open(&t, sp->trace, &to, err) != 0)
        goto out;
    if (sp->warn_config) { /* a recording's allocator settings that the config does not have */
        const trace_setting *ts;
        int nts = trace_settings(t, &ts), lv = cfg->default_level;
        for (int i = 0; i < nts; i++) {
            char have[256];
            if (cfg_setting_differs(cfg, lv, ts[i].key, ts[i].value, have, sizeof have) == 1)
                fprintf(stderr, "amsim: warning: %s was recorded with %s %s, but "
                        "memories.%s.allocator.%s is %s here: placements can differ from the "
                        "recording\n", sp->trace, ts[i].key, ts[i].value, cfg->levels[lv].name,
                        ts[i].key, have);
        }
    }
    for (int i = 0; i < O_N; i++)
        if (out_open(&o[i], path[i], err) != 0)
            goto out;
    if (sp->text == stdout && out_open(&o[O_STDTEXT], "-", err) != 0)
        goto out;
    if (stream_pair(o, O_PLACE, &src[0], &dst[0], path, err) != 0 ||
        stream_pair(o, O_TIMELINE, &src[1], &dst[1], path, err) != 0)
        goto out;
    /* exporters (--chrome-trace, --pytorch-snapshot) chained after the caller's observer */
    if (chrome_open(&cx, sp->chrome_trace, cfg, err) != 0 ||
        snap_open(&sx, sp->pytorch_snapshot, cfg, err) != 0)
        goto out;
    const sim_observer *chain[3] = {sp->observer, chrome_observer(cx), snap_observer(sx)};
    const sim_observer *obs = obs_mux_init(&mux, chain, 3);
    if ((sp->expect || sp->save_expect) && expect_begin(&xp, sp->expect, cfg, obs, err) != 0)
        goto out;
    sim_opts so = {.placements = out_fp(o[src[0]]), .placements_names = sp->placements_names,
                   .timeline = out_fp(o[src[1]]),
                   .log = out_fp(o[O_LOG]), .check = sp->check, .lenient = sp->lenient,
                   .no_lenient_option = sp->no_lenient_option, .progress = sp->progress,
                   .observer = xp ? expect_observer(xp) : obs};
    /* offline policies plan from every lifetime: one extra read of the trace (sim/prepass.h) */
    if (sim_create(&s, cfg, &so, err) != 0)
        goto out;
    snap_attach(sx, s);
    if (prepass_attach(s, cfg, sp->trace, &to, sp->progress, err) != 0)
        goto out;
    if (sim_run(s, t, err) != 0) {
        trace_place_error(t, err);
        goto out;
    }
    /* an expectation's keys and kinds known only from the run: an input error writes nothing */
    if (xp && expect_check(xp, s, err) != 0)
        goto out;
    if (o[O_SAVE] && expect_save(xp, s, out_fp(o[O_SAVE]), err) != 0)
        goto out;
    report_trace rt = {sp->trace_name ? sp->trace_name : sp->trace, trace_format(t),
                       sim_get_summary(s)->events, trace_skipped(t)};
    if (o[O_JSON])
        report_json(out_fp(o[O_JSON]), s, &rt);
    if (o[O_DJSON])
        report_json(out_fp(o[O_DJSON]), s, &rt); /* deterministic: the same bytes */
    for (int k = 0; k < 2; k++) /* sim_run flushed the placements; out_copy the timeline */
        if (dst[k] >= 0 && out_copy(o[dst[k]], o[src[k]], err) != 0)
            goto out;
    if (o[O_REPORT])
        report_text(out_fp(o[O_REPORT]), s, &rt);
    if (o[O_CONFIG])
        cfg_write_yaml(cfg, out_fp(o[O_CONFIG]));
    /* the text report on standard output is written (and flushed, at the commit) before any
     * file is renamed: until 2026-11-27 it was printed after the renames, so standard output
     * on /dev/full (or closed) failed the run, status 1, with --json and -o's files replaced */
    if (o[O_STDTEXT])
        report_text(out_fp(o[O_STDTEXT]), s, &rt);
    /* the exporters' files join the set, and all are committed as one (out_commit_all):
     * every output written in full (standard output's too) before any is renamed, so a write
     * error in one or an interrupt leaves none of them. Until 2026-11-27 the Chrome trace was
     * renamed before the snapshot was written and the others were renamed one by one after a
     * failed one, so an interrupt or a write error left some published. */
    o[O_CHROME] = chrome_finish(cx);
    int want_snap = sx != NULL;
    o[O_SNAP] = snap_finish(sx, err);
    cx = NULL;
    sx = NULL;
    if ((want_snap && !o[O_SNAP]) || out_commit_all(o, O_ALL, err) != 0)
        goto out;
    if (sp->text && sp->text != stdout) /* a file of the caller's (batch's report.txt) */
        report_text(sp->text, s, &rt);
    if (ooms)
        *ooms = sim_get_summary(s)->ooms;
    if (done)
        done(ctx, s, &rt);
    /* a deviation: status 3, outputs are written */
    if (xp && expect_finish(xp, s, err, sp->deviation) != 0)
        goto out;
    rc = 0;
out:
    for (int i = 0; i < O_ALL; i++)
        out_abort(o[i]);
    for (int i = 0; i < O_N; i++)
        free(owned[i]);
    expect_free(xp);
    chrome_abort(cx);
    snap_abort(sx);
    sim_destroy(s);
    trace_close(t);
    cfg_free(cfg);
    if (made_dir && rc != 0)
        rmdir(sp->outdir); /* only when empty: a deviation (status 3) has written its outputs */
    if (made_dir)
        out_track_dir(sp->outdir, 0);
    return rc;
}

/* A reference run in progress: its result and the figures its observer gathers for every
 * level (the level's index is the loaded config's, known to ref_done). */
typedef struct ref_ctx {
    run_ref *out;
    const char *level;
    uint64_t alloc_mask;                  /* the levels (by index) the trace allocates on */
    uint64_t max_request[CFG_MAX_LEVELS]; /* each level's largest trace request (bytes) */
    uint64_t max_served[CFG_MAX_LEVELS];  /* each level's largest request of any kind, as made
                                             (bytes, not padded yet: ref_done pads it) */
    uint64_t failed[CFG_MAX_LEVELS];      /* each level's failed requests: a hash of their
                                             event indices (FNV-1a) */
} ref_ctx;

/* FNV-1a (rt_fnv1a) of a 64-bit value into h. */
static uint64_t ref_hash(uint64_t h, uint64_t v) { return rt_fnv1a(h, &v, sizeof v); }

/* A request level must serve, of any kind, for the stop rule (ref_stuck). */
static void ref_served(ref_ctx *c, int level, uint64_t requested)
{
    if (level >= 0 && level < CFG_MAX_LEVELS)
        c->max_served[level] = AM_MAX(c->max_served[level], requested);
}

/* The reference run's observer: the levels the trace allocates on, its largest request on
 * each, and which requests failed on each. A recorded `oom` line's request is not an
 * allocation the trace makes (id TR_NO_ID): it is left out of those, but it is a request the
 * level must serve (mincap looks for a capacity that serves it), so the stop rule counts it. */
static void ref_alloc(void *ctx, am_ps t, uint64_t seq, uint64_t id, int level, uint32_t stream,
                      uint64_t addr, uint64_t requested, uint64_t size, int ok, const char *name)
{
    (void)t, (void)stream, (void)addr, (void)size, (void)name;
    ref_ctx *c = ctx;
    ref_served(c, level, requested);
    if (id == TR_NO_ID || level < 0 || level >= CFG_MAX_LEVELS)
        return;
    c->alloc_mask |= (uint64_t)1 << level;
    c->max_request[level] = AM_MAX(c->max_request[level], requested);
    if (!ok)
        c->failed[level] = ref_hash(c->failed[level] ? c->failed[level] : RT_FNV_OFFSET,
                                    seq);
}

/* A buffer placed on a level without a request (a spill copy into its host level, a
 * restore, a defragmentation's re-placement): the level had to find room for it, so the stop
 * rule counts it (no trace request of the level, so not in max_request). */
static void ref_move(void *ctx, am_ps t, uint64_t seq, uint64_t id, uint32_t stream,
                     int from_level, uint64_t from_addr, uint64_t from_size, int level,
                     uint64_t addr, uint64_t requested, uint64_t size, const char *name)
{
    (void)t, (void)seq, (void)id, (void)stream, (void)from_level, (void)from_addr,
        (void)from_size, (void)addr, (void)size, (void)name;
    ref_served(ctx, level, requested);
}

/* A buffer that could not be placed again (a failed restore or defragmentation): an
 * out-of-memory of the level on a request it had to serve, for the stop rule too. */
static void ref_oom(void *ctx, am_ps t, uint64_t seq, uint64_t id, int level, uint32_t stream,
                    uint64_t requested, const char *what, const char *name)
{
    (void)t, (void)seq, (void)id, (void)stream, (void)what, (void)name;
    ref_served(ctx, level, requested);
}

/* The reference run's result: the level's figures and the names of the levels allocated on. */
static void ref_done(void *ctx, sim *s, const report_trace *t)
{
    ref_ctx *c = ctx;
    run_ref *r = c->out;
    const am_config *cfg = sim_config(s);
    int lv = cfg_level_index(cfg, c->level, strlen(c->level));
    /* callers name a level of the config (its default level otherwise, as run_spec does) */
    lv = lv < 0 ? cfg->default_level : lv;
    mem_level *m = sim_level(s, lv);
    r->trace = *t;
    r->peak_live = mem_get_metrics(m)->peak_live_bytes;
    r->ooms = mem_get_metrics(m)->ooms;
    r->capacity = mem_capacity(m);
    r->max_request = c->max_request[lv];
    r->alloc_mask = c->alloc_mask;
    r->warnings = sim_get_summary(s)->warnings;
    /* what leaves requests of the level unserved: its own OOMs, and the levels whose shortage
     * skipped a transfer into= it (a host allocation that failed, or a buffer still waiting
     * there, with no out-of-memory counted yet). Another level's OOMs that feed no transfer
     * into the level are not its requests (until 2026-11-27 every level that ran out grew) */
    r->grow_mask = sim_get_summary(s)->no_memory_into[lv] | (r->ooms ? (uint64_t)1 << lv : 0);
    for (int i = 0; i < sim_nlevels(s) && i < CFG_MAX_LEVELS; i++) {
        mem_level *li = sim_level(s, i);
        const mem_metrics *mi = mem_get_metrics(li);
        r->caps[i] = mem_capacity(li);
        /* as its allocator is asked for it: padded to the level's pad_requests_to (the only
         * rounding made before the policy's own; mem_padded) */
        r->max_served[i] = mem_padded(li, c->max_served[i]);
        /* the level's outcome: which requests failed, how many, the most it held at once */
        r->outcome[i] = ref_hash(ref_hash(ref_hash(c->failed[i], mi->ooms), mi->peak_live_bytes),
                                 sim_get_summary(s)->no_memory_into[lv] >> i & 1);
        snprintf(r->names[i], sizeof r->names[i], "%s", cfg->levels[i].name);
    }
    cfg_level_list(cfg, c->alloc_mask, ", ", r->alloc_levels, sizeof r->alloc_levels);
}

/* One reference run with each level's capacity caps[i] (0: the configured one, as written)
 * into a fresh *out. */
static int ref_run_at(const run_spec *base, const char *level, const uint64_t *caps,
                      const run_ref *prev, run_ref *out, am_error *err)
{
    run_spec sp = *base;
    char cap[CFG_MAX_LEVELS][300];
    for (int i = 0; i < CFG_MAX_LEVELS; i++)
        if (caps[i]) {
            snprintf(cap[i], sizeof cap[i], "memories.%s.capacity=%" PRIu64, prev->names[i],
                     caps[i]);
            sp.sets[sp.nsets++] = cap[i];
        }
    memset(out, 0, sizeof *out);
    ref_ctx c = {.out = out, .level = level};
    sim_observer obs = {.ctx = &c, .alloc = ref_alloc, .move = ref_move, .oom = ref_oom};
    sp.observer = &obs;
    return run_once(&sp, ref_done, &c, NULL, err);
}

/* Whether level i, grown in the run before (prev) and again short, is short whatever its
 * capacity: doubling it changed nothing on it (the same requests failed, the same peak live),
 * from a capacity at least twice its largest request, so that its capacity was not what
 * failed them (bfc's or prealloc's memory_limit, a policy's own limit). Below twice the
 * largest request an allocator's rounding may still need the next doubling. The largest
 * request is the largest the level must serve as its allocator sees it (max_served: padded,
 * recorded `oom` lines and spill copies in). Until 2026-11-27 it was the largest trace
 * request as written: a level padding 1000-byte requests to 1 MiB, or a trace with `oom
 * 100GiB` holding 1 GiB, stopped while its capacity was still below what it needed, and
 * whether a bound was found depended on the configured capacity. */
static int ref_stuck(const run_ref *prev, const run_ref *out, int i)
{
    return (prev->grow_mask >> i & 1) && out->outcome[i] == prev->outcome[i] &&
           prev->caps[i] / 2 >= prev->max_served[i];
}

/* Records on *out that level i stays short (stuck: whatever its capacity) and returns 1. */
static int ref_short(run_ref *out, int i, int stuck)
{
    snprintf(out->short_level, sizeof out->short_level, "%s", out->names[i]);
    out->short_capacity = out->caps[i];
    out->short_stuck = stuck;
    return 1;
}

int run_reference(const run_spec *spec, const char *level, run_ref *out, am_error *err)
{
    /* the inputs only: none of the caller's outputs is written by the reference run */
    run_spec sp = {.config = spec->config, .trace = spec->trace, .trace_name = spec->trace_name,
                   .reference_level = level, .lenient = spec->lenient, .device = spec->device,
                   .no_lenient_option = spec->no_lenient_option, .check = spec->check};
    char oom[300];
    memcpy(sp.sets, spec->sets, (size_t)spec->nsets * sizeof sp.sets[0]);
    sp.nsets = spec->nsets;
    snprintf(oom, sizeof oom, "memories.%s.on_oom=fail", level);
    sp.sets[sp.nsets++] = oom;
    uint64_t caps[CFG_MAX_LEVELS] = {0};
    run_ref prev;
    memset(&prev, 0, sizeof prev);
    for (int first = 1;; first = 0) {
        if (ref_run_at(&sp, level, caps, &prev, out, err) != 0)
            return -1;
        if (out->grow_mask == 0)
            return 0;
        /* the level and every level whose shortage skipped a transfer into it double (a host
         * allocation that fails skips the transfer into= hbm it feeds), until each is served,
         * is at RUN_REF_MAX, or is short whatever its capacity */
        for (int i = 0; i < CFG_MAX_LEVELS; i++) {
            if (!(out->grow_mask >> i & 1))
                continue;
            if (!first && ref_stuck(&prev, out, i))
                return ref_short(out, i, 1);
            uint64_t v = out->caps[i];
            if (v >= RUN_REF_MAX)
                return ref_short(out, i, 0);
            caps[i] = v > RUN_REF_MAX / 2 ? RUN_REF_MAX : AM_MAX(v * 2, 1);
        }
        prev = *out;
    }
}

int run_ref_short_prefix(const run_ref *r, const char *level, char *on, size_t n)
{
    if (n)
        on[0] = 0;
    if (strcmp(r->short_level, level) != 0)
        snprintf(on, n, "on level %s ", r->short_level);
    return r->short_stuck;
}
