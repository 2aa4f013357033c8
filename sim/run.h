/* run.h - one replay from file names to outputs: the pipeline that `amsim run`, `compare`,
 * `mincap` and `batch` share (config -> trace -> engine -> reports, outputs written atomically). */
#ifndef AM_RUN_H
#define AM_RUN_H

#include <stdio.h>

#include "engine.h"
#include "outfile.h"
#include "report.h"

/* --set options a command takes (each command refuses one more: "more than 256 --set options") */
#define RUN_MAX_SETS 256
/* sets a command adds to the user's own (mincap: the policy, capacity, limit and on_oom) */
#define RUN_EXTRA_SETS 4
/* sets a reference run adds to a command's: on_oom: fail and a capacity for every level */
#define RUN_REF_SETS (1 + CFG_MAX_LEVELS)

typedef struct run_spec {
    const char *config, *trace;
    const char *trace_name;      /* the trace's name in summary.json and report.txt when not
                                    its path (batch: a generated run's "gen.trace"), or NULL */
    const char *policy;          /* allocator policy of the default level, or NULL */
    const char *reference_level; /* a reference run (compare's and mincap's lower bound):
                                    best_fit with its defaults on this level, the config's
                                    allocator options there left out (cfg_load_reference;
                                    policy is then ignored), or NULL */
    const char *sets[RUN_MAX_SETS + RUN_EXTRA_SETS + RUN_REF_SETS];
    int nsets;
    const char *json, *placements, *timeline, *log; /* output files or NULL ("-": stdout) */
    int placements_names;        /* the placements CSV's name column (sim_opts) */
    const char *outdir;          /* all outputs + effective_config.yaml + report.txt */
    FILE *text;                  /* text report destination, or NULL */
    int check, lenient, device, progress;
    int no_lenient_option;       /* the command has no --lenient (sim_opts.no_lenient_option) */
    int warn_config;             /* print the config's warnings (cfg_print_warnings) and a
                                    recording's allocator settings it differs from to stderr */
    const sim_observer *observer;
    const char *chrome_trace, *pytorch_snapshot; /* exporter outputs or NULL (export_*.h) */
    const char *expect, *save_expect; /* regression expectation files or NULL (sim/expect.h) */
    char **deviation;            /* when not NULL: on a deviation (status 3) the whole message,
                                  every moved metric (malloc'd, the caller frees it), else
                                  NULL; err->msg holds it bounded (expect_finish) */
} run_spec;

/* Called after the replay, before anything is freed: read results from s. */
typedef void (*run_done_fn)(void *ctx, sim *s, const report_trace *t);

/* 0 when the run completed (OOMs are results); -1 with err otherwise. *ooms gets the number of
 * failed allocation requests when not NULL. */
int run_once(const run_spec *sp, run_done_fn done, void *ctx, uint64_t *ooms, am_error *err);

/* A reference run's capacity doubles up to the most a capacity can be (4 EiB): one limit for
 * compare and mincap. Until 2026-11-27 each had its own loop: compare stopped at 4 PiB (at 4 EiB
 * from a capacity configured above 4 PiB), mincap at 4 PiB always (so it gave up, "runs out of
 * memory even with 4503599627370496 bytes", on a trace compare could bound). */
#define RUN_REF_MAX AM_MAX_BYTES

/* What a reference run found on its level (run_reference). */
typedef struct run_ref {
    uint64_t peak_live;     /* the level's peak live bytes (spill copies into it counted) */
    uint64_t ooms;          /* the level's OOM count in the last run (0 when it fit) */
    uint64_t capacity;      /* the level's capacity in the last run */
    uint64_t grow_mask;     /* the levels (by index) run_reference grows after the last run:
                               the level when it ran out of memory, and every level whose
                               shortage skipped a transfer into= the level */
    uint64_t caps[CFG_MAX_LEVELS];       /* every level's capacity in the last run */
    uint64_t max_served[CFG_MAX_LEVELS]; /* every level's largest request as its allocator
                                            sees it (bytes): padded to pad_requests_to, and
                                            of every kind the level must serve (the trace's,
                                            into= destinations, recorded `oom` lines, spill
                                            copies and restores into it): the stop rule's */
    uint64_t outcome[CFG_MAX_LEVELS];    /* every level's outcome in the last run, a hash: its
                                            failed requests, OOMs and peak live */
    char names[CFG_MAX_LEVELS][64];      /* every level's name ("" past the config's levels) */
    char short_level[64];   /* run_reference's 1: the level still short at RUN_REF_MAX */
    uint64_t short_capacity; /* and its capacity then */
    int short_stuck;        /* 1: short whatever its capacity (doubling it changed nothing on
                               it: its allocator's limit), found before RUN_REF_MAX */
    uint64_t max_request;   /* its largest trace request on the level (bytes), recorded `oom`
                               lines and spill copies left out */
    uint64_t alloc_mask;    /* the levels (by index) the trace allocates on */
    uint64_t warnings;      /* trace problems --lenient counted and skipped (the trace's, the
                               same in every run: run's events.warnings) */
    char alloc_levels[CFG_LEVEL_LIST_MAX]; /* their names, "hbm, vmem" ("" when none) */
    report_trace trace;     /* the trace as the run read it (format: a static name) */
} run_ref;

/* The reference run of compare's and mincap's lower bound: spec's config (with its --set
 * options), trace, --lenient and --device, best_fit with its defaults on level
 * (run_spec.reference_level) and `on_oom: fail` there, at the configured capacities, then
 * the levels that leave requests of `level` unserved (grow_mask: `level` when it ran out of
 * memory, and every level whose shortage skipped a transfer into= it) doubled, run after run,
 * until every request on `level` is served, each level up to RUN_REF_MAX. Other levels' own
 * OOMs are not the bound's concern. Until 2026-11-27 only `level` grew, so another level's
 * failures left requests of `level` unserved (a transfer `into=` it skipped) and the bound too
 * low; and until 2026-11-27 too (earlier that day) every level that ran out of memory grew,
 * whatever it fed, so one capped by its own memory_limit went to 4 EiB and gave up. spec's
 * policy, outputs and observer are not used. 0 when a run served everything, 1 when a level
 * was still short at RUN_REF_MAX (or at a configured capacity above it) or short whatever its
 * capacity (out->short_stuck: doubling it changed nothing on it; out->short_level and
 * short_capacity say which), -1 with err when a run failed; *out describes the last run. */
int run_reference(const run_spec *spec, const char *level, run_ref *out, am_error *err);

/* What compare and mincap say of a reference run still short (run_reference's 1), the part
 * they share: "on level NAME " into on (n bytes) when the level short is not `level` (a level
 * whose failures leave requests of `level` unserved), else "". Returns r->short_stuck: 1 when
 * no capacity serves it (doubling it changed nothing: its allocator's limit), each caller
 * then saying so in its own words. */
int run_ref_short_prefix(const run_ref *r, const char *level, char *on, size_t n);

/* "did you mean 'caching'? policies: bfc, best_fit, ..." for an unknown policy name (the
 * did-you-mean part only when one is close): what follows "unknown policy 'NAME'" in the
 * messages of --policies and a sweep's policies:. */
void run_policy_hint(char *dst, size_t n, const char *name);

/* Split a command line's policy list "a,b,c" (--policies of compare and mincap) into names of
 * known policies, in order. Returns the number of names (at least 1), or -1 with a message in
 * msg for an empty list, an empty entry ("a,,b", "a,"), an unknown or repeated policy (the JSON
 * outputs key their results by name), a name with a blank (refused, not trimmed) or more than
 * max names. */
#define RUN_POLICY_LEN 64
int run_policy_list(const char *list, char (*names)[RUN_POLICY_LEN], int max, char *msg,
                    size_t msglen);

/* Load the config of a spec (with --policy applied), for callers that need it before running. */
int run_load_config(const run_spec *sp, am_config **cfg, am_error *err);
/* The config of a spec whose default level's policy each run switches (compare's --policies),
 * before any is switched in: every run's levels and trace options, without the rules of the
 * policy the config names, which no run may use (cfg_load_switched). */
int run_load_config_switching(const run_spec *sp, am_config **cfg, am_error *err);

/* The outputs against the device preset a loaded config read (am_config.preset), labelled
 * "the config's device preset": out_check_paths with that one input (the config file itself is the
 * caller's, known before loading). 0, or -1 with err. */
int run_check_preset(const am_config *cfg, const out_named *outs, int nout, am_error *err);

/* The options a run reads sp's trace with: cfg's level names (filled into names, which the
 * trace keeps, so it must outlive the trace), default level and trace settings, sp's --device. */
trace_opts run_trace_opts(const run_spec *sp, const am_config *cfg,
                          const char *names[CFG_MAX_LEVELS]);

#endif
