/* main.c - argv -> config -> run -> report; nothing else.
 * Exit status: 0 run completed (simulated OOMs are results), 1 bad usage, config or trace,
 * 2 internal error, 3 out of memory with --fail-on-oom. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "batch.h"
#include "cli.h"
#include "config.h"
#include "convert.h"
#include "engine.h"
#include "gen.h"
#include "outfile.h"
#include "report.h"
#include "run.h"
#include "trace.h"

#define MAX_SETS RUN_MAX_SETS

typedef struct run_args {
    const char *config, *trace, *policy;
    const char *sets[MAX_SETS + 1];
    int nsets;
    const char *json, *placements, *timeline, *log, *outdir;
    const char *expect, *save_expect;
    const char *chrome_trace, *pytorch_snapshot;
    const char *device_s; /* --device as given */
    int quiet, check, lenient, fail_on_oom, device, placements_names;
} run_args;

static const char *prog = "amsim";

int cmd_compare(int argc, char **argv);

static void usage_main(FILE *f)
{
    fprintf(f,
            "usage: amsim COMMAND [options]\n"
            "commands:\n"
            "  run -c CONFIG -t TRACE [options]   replay one trace and report\n"
            "  compare -c CONFIG -t TRACE --policies a,b,c   one trace under several policies\n"
            "  check FILE...                      validate configs, sweeps, traces; runs nothing\n"
            "  batch SWEEP.yaml -o DIR [-j N]     run a sweep (matrix of runs), results.csv\n"
            "  mincap -c CONFIG -t TRACE          smallest memory without OOM, per policy\n"
            "  stats RESULTS.csv --metric M       mean, sd, 95%% CI by policy; paired t-test\n"
            "  report DIR                         DIR/report.html with tables and plots\n"
            "  convert IN -o OUT [--to native|csv|binary]  a trace in any format to another\n"
            "  gen KIND [options] -o OUT          synthetic traces: train, serve, kernel\n"
            "  policies                           list the allocator policies\n"
            "options: amsim COMMAND --help; amsim --version. Options come anywhere after the\n"
            "command (gen: after KIND), as getopt_long reads them: --json FILE or --json=FILE,\n"
            "-c FILE or -cFILE, flags grouped (-qc FILE); '--' ends them. An option that takes\n"
            "one value takes it once (--set repeats); a flag takes none (--quiet=x is refused);\n"
            "an empty file or folder name ('') is refused\n");
}

static void usage_run(FILE *f)
{
    fprintf(f,
            "usage: amsim run -c CONFIG -t TRACE [options]\n"
            "  -c, --config FILE       YAML config (required; e.g. configs/default.yaml)\n"
            "  -t, --trace FILE        trace: native, binary, lifetime CSV or PyTorch snapshot (by\n"
            "                          content; gzip-compressed is fine)\n"
            "  --policy NAME           allocator policy of the default memory level\n"
            "  --set PATH=VALUE        override a config key (repeatable), e.g.\n"
            "                          memories.hbm.allocator.memory_limit=1GiB\n"
            "  --json FILE             summary JSON\n"
            "  --placements FILE       one CSV row per allocation request\n"
            "  --placements-names      placements (FILE and -o's) get an eighth column, name:\n"
            "                          the request's trace name= (the buffer's on a moved,\n"
            "                          spilled or restored row), CSV-quoted, empty for none\n"
            "  --timeline FILE         memory over time (CSV: a row per allocation or free; with\n"
            "                          report.timeline_interval=T, each level's last row in\n"
            "                          each period of T)\n"
            "  --chrome-trace FILE     Perfetto / chrome://tracing JSON (streams, links, memory)\n"
            "  --pytorch-snapshot FILE the run as a PyTorch memory snapshot pickle (default level)\n"
            "  --log FILE              allocator event log, BFC oracle format (R/G/A/OOM/M/D/P/S\n"
            "                          lines: D for a donation)\n"
            "  -o, --out DIR           write report.txt, summary.json, placements.csv,\n"
            "                          timeline.csv and effective_config.yaml into DIR (always;\n"
            "                          a --json/--placements/--timeline FILE gets a copy)\n"
            "  --device N              PyTorch snapshot: which device's trace (default 0; one\n"
            "                          with no entries is refused when another device has some)\n"
            "  --check                 run every invariant check after every event\n"
            "  --lenient               count and skip recoverable trace problems\n"
            "  --fail-on-oom           exit with status 3 when any allocation ran out of memory\n"
            "  --expect FILE           compare metrics and placements digest with an expectation\n"
            "                          (sim/expect.h); status 3 and what moved on a deviation,\n"
            "                          status 1 at FILE:LINE:COL for a bad value, a key given\n"
            "                          twice or a key no run has (did you mean); FILE '-' is\n"
            "                          standard input\n"
            "  --save-expect FILE      write this run's expectation (exact integers, reals 1e-9)\n"
            "  -q, --quiet             no text report on standard output (with no output file,\n"
            "                          the exit status and errors still say how the run went)\n");
}

enum {
    R_HELP, R_QUIET, R_CHECK, R_LENIENT, R_FAIL_ON_OOM, R_SET, R_DEVICE, R_CONFIG, R_TRACE,
    R_POLICY, R_JSON, R_PLACEMENTS, R_TIMELINE, R_CHROME, R_SNAPSHOT, R_LOG, R_OUT, R_EXPECT,
    R_SAVE_EXPECT, R_PLACEMENTS_NAMES, R_N
};

static const cli_opt run_opts[] = {
    [R_HELP] = {"help", 'h', CLI_FLAG},             [R_QUIET] = {"quiet", 'q', CLI_FLAG},
    [R_CHECK] = {"check", 0, CLI_FLAG},             [R_LENIENT] = {"lenient", 0, CLI_FLAG},
    [R_FAIL_ON_OOM] = {"fail-on-oom", 0, CLI_FLAG},
    [R_SET] = {"set", 0, CLI_VALUE},                [R_DEVICE] = {"device", 0, CLI_VALUE},
    [R_CONFIG] = {"config", 'c', CLI_IN},           [R_TRACE] = {"trace", 't', CLI_IN},
    [R_POLICY] = {"policy", 0, CLI_VALUE},          [R_JSON] = {"json", 0, CLI_PATH},
    [R_PLACEMENTS] = {"placements", 0, CLI_PATH},   [R_TIMELINE] = {"timeline", 0, CLI_PATH},
    [R_CHROME] = {"chrome-trace", 0, CLI_PATH},     [R_SNAPSHOT] = {"pytorch-snapshot", 0, CLI_PATH},
    [R_LOG] = {"log", 0, CLI_PATH},                 [R_OUT] = {"out", 'o', CLI_PATH},
    [R_EXPECT] = {"expect", 0, CLI_IN},             [R_SAVE_EXPECT] = {"save-expect", 0, CLI_PATH},
    [R_PLACEMENTS_NAMES] = {"placements-names", 0, CLI_FLAG},
    [R_N] = {NULL, 0, 0}};

/* 0 ok, 1 usage error, -1 help printed */
static int parse_run(int argc, char **argv, run_args *a)
{
    memset(a, 0, sizeof *a);
    /* every option that takes a value but --set takes one: a second is refused (cli_once) */
    const char **slots[R_N] = {
        [R_CONFIG] = &a->config,         [R_TRACE] = &a->trace,
        [R_POLICY] = &a->policy,         [R_JSON] = &a->json,
        [R_PLACEMENTS] = &a->placements, [R_TIMELINE] = &a->timeline,
        [R_CHROME] = &a->chrome_trace,   [R_SNAPSHOT] = &a->pytorch_snapshot,
        [R_LOG] = &a->log,               [R_OUT] = &a->outdir,
        [R_EXPECT] = &a->expect,         [R_SAVE_EXPECT] = &a->save_expect,
        [R_DEVICE] = &a->device_s};
    cli c;
    cli_init(&c, "amsim run", argc, argv);
    const char *opt, *v;
    int k;
    while ((k = cli_next(&c, run_opts, &opt, &v)) != CLI_END) {
        if (k == CLI_ERROR)
            return 1;
        if (k == CLI_OPERAND) {
            cli_unexpected(&c, v);
            return 1;
        }
        if (slots[k] && cli_once("amsim run", opt, slots[k], v,
                                 k == R_POLICY ? "amsim compare --policies a,b runs several"
                                               : NULL) != 0)
            return 1;
        switch (k) {
        case R_HELP:
            return -1;
        case R_QUIET:
            a->quiet = 1;
            break;
        case R_CHECK:
            a->check = 1;
            break;
        case R_LENIENT:
            a->lenient = 1;
            break;
        case R_FAIL_ON_OOM:
            a->fail_on_oom = 1;
            break;
        case R_PLACEMENTS_NAMES:
            a->placements_names = 1;
            break;
        case R_SET:
            if (a->nsets == MAX_SETS) {
                am_msg("%s run: more than %d --set options\n", prog, MAX_SETS);
                return 1;
            }
            a->sets[a->nsets++] = v;
            break;
        case R_DEVICE:
            if (cli_device("amsim run", v, &a->device) != 0)
                return 1;
            break;
        default: /* a file or a name, stored above */
            break;
        }
    }
    if (!a->config || !a->trace) {
        am_msg("%s run: -c CONFIG and -t TRACE are required (see amsim run --help)\n", prog);
        return 1;
    }
    /* a flag that would change nothing is a mistake the user should hear of */
    if (a->placements_names && !a->placements && !a->outdir) {
        am_msg("%s run: --placements-names needs --placements FILE or -o DIR\n", prog);
        return 1;
    }
    return 0;
}

static int cmd_run(int argc, char **argv)
{
    run_args a;
    int pr = parse_run(argc, argv, &a);
    if (pr)
        return pr < 0 ? (usage_run(stdout), 0) : 1;
    run_spec sp = {.config = a.config, .trace = a.trace, .policy = a.policy, .nsets = a.nsets,
                   .json = a.json, .placements = a.placements, .timeline = a.timeline,
                   .placements_names = a.placements_names,
                   .chrome_trace = a.chrome_trace, .pytorch_snapshot = a.pytorch_snapshot,
                   .log = a.log, .outdir = a.outdir,
                   .expect = a.expect, .save_expect = a.save_expect, .text = a.quiet ? NULL : stdout,
                   .check = a.check, .lenient = a.lenient, .device = a.device,
                   .progress = !a.quiet, .warn_config = 1};
    memcpy(sp.sets, a.sets, (size_t)a.nsets * sizeof *a.sets);
    am_error err = {0};
    uint64_t ooms = 0;
    char *deviation = NULL; /* every moved metric: err.msg holds only as many as fit */
    sp.deviation = &deviation;
    if (run_once(&sp, NULL, NULL, &ooms, &err) != 0) {
        am_msg("%s: %s\n", prog, deviation ? deviation : err.msg[0] ? err.msg : "failed");
        free(deviation);
        return err.status ? err.status : AM_EINTERNAL;
    }
    return a.fail_on_oom && ooms ? AM_EOOMFAIL : 0;
}

/* Whether a name ends in suffix (ASCII case-insensitively: CONFIG.YAML too). */
static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

/* The first line test's reader: the file's characters as the YAML loader decodes them, so
 * that a UTF-16 config broken before its first key is still told apart from a trace. */
typedef struct {
    FILE *f;
    int utf16; /* 0: UTF-8 (or anything else, byte by byte); 1: UTF-16LE; 2: UTF-16BE */
} sniff_reader;

/* Opens the reader past a byte-order mark, which also names the encoding (cfg_bom, the YAML
 * loader's rule). */
static void sniff_open(sniff_reader *r, FILE *f)
{
    unsigned char bom[3];
    size_t n = fread(bom, 1, sizeof bom, f);
    r->f = f;
    size_t skip = cfg_bom(bom, n, &r->utf16);
    if (fseek(f, (long)skip, SEEK_SET) != 0)
        clearerr(f);
}

/* The next character: a byte, or in UTF-16 one code unit (an odd byte at the end is EOF).
 * Only ASCII matters to the caller, so a surrogate pair needs no decoding: its units are no
 * ASCII character either way. */
static int sniff_getc(sniff_reader *r)
{
    int a = getc(r->f);
    if (!r->utf16 || a == EOF)
        return a;
    int b = getc(r->f);
    if (b == EOF)
        return EOF;
    return r->utf16 == 1 ? a | b << 8 : a << 8 | b;
}

/* Whether the first line that is neither blank nor a '#' comment starts with a "version" key
 * (version:, "version":, 'version' :): the one rule check had until 2026-11-27, kept for a
 * config broken before its first key (an encoding error in a comment above it). Lines of any
 * length; reads at most CFG_SNIFF_BYTES characters. Decodes UTF-16 after its byte-order mark
 * as the loader does (until 2026-11-27 it skipped only a UTF-8 mark, so a broken UTF-16
 * config was called an "unrecognised trace format" instead of getting its loader error). */
static int first_line_is_version(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    sniff_reader r;
    sniff_open(&r, f);
    int c, in_comment = 0, yes = 0;
    size_t n = 0;
    for (c = sniff_getc(&r); c != EOF && n++ < CFG_SNIFF_BYTES; c = sniff_getc(&r)) {
        if (c == '\n')
            in_comment = 0;
        else if (in_comment || c == ' ' || c == '\t' || c == '\r')
            continue;
        else if (c == '#') /* the first character of its line but blanks */
            in_comment = 1;
        else {
            /* the line's start; a character beyond one byte stands for itself as 0x7f,
             * which matches nothing below */
            char word[32] = {(char)(c > 0xff ? 0x7f : c)};
            size_t k = 1;
            while (k < sizeof word - 1 && (c = sniff_getc(&r)) != EOF && c != '\n')
                word[k++] = (char)(c > 0xff ? 0x7f : c);
            char quote = word[0] == '"' || word[0] == '\'' ? word[0] : 0;
            const char *w = word + (quote != 0);
            if (strncmp(w, "version", 7) == 0) {
                w += 7;
                if (quote && *w == quote)
                    w++;
                w += strspn(w, " \t");
                yes = *w == ':';
            }
            break;
        }
    }
    fclose(f);
    return yes;
}

/* Whether amsim check reads path as a config (1) or as a trace (0), by content first:
 *   not a regular file (missing, a directory, a pipe, a FIFO, a device)  trace: its reader
 *       refuses it at once. Nothing is read: a FIFO without a writer would block the open,
 *       /dev/zero never end a line, and a pipe would lose the bytes read here (until
 *       2026-11-27 check read it first: it hung on a FIFO or /dev/zero and, on a pipe, checked
 *       a config without its first line);
 *   a trace format's signature (trace_sniff: magic bytes, or a first content line that is a
 *       native or lifetime CSV header)                                      trace;
 *   named .yaml, .yml or .json (any case)                                config, whatever
 *       it holds: the loader says what is wrong (a list, empty, a syntax error at its line and
 *       column);
 *   a YAML map at the top (cfg_sniff; any key order, "---", flow style, quoted keys, a
 *       byte-order mark, CRLF, comments of any length)                      config;
 *   not YAML up to its top (a syntax or encoding error first) with a first content line
 *       starting with a version key                                         config, so that
 *       the loader reports the error at its line and column;
 *   anything else (a headerless or binary file, an empty one, a scalar)    trace: the reader
 *       names what it is not.
 * Until 2026-11-27 a file was a config only when its first line neither blank nor a comment
 * (read 255 bytes at a time) started "version:", so a valid config with another key first, a
 * "---", a byte-order mark, a quoted key, "version :", flow style or a long comment above was
 * called an "unrecognised trace format". */
static int check_as_config(const char *path)
{
    const char *name = am_input_name(path); /* "-": the file on standard input */
    struct stat st;
    if (stat(name, &st) != 0 || !S_ISREG(st.st_mode) || trace_sniff(path))
        return 0;
    if (ends_with(path, ".yaml") || ends_with(path, ".yml") || ends_with(path, ".json"))
        return 1;
    switch (cfg_sniff(path)) {
    case CFG_SNIFF_MAP:
        return 1;
    case CFG_SNIFF_ERROR:
        return first_line_is_version(name);
    default:
        return 0;
    }
}

static void usage_check(FILE *f)
{
    fprintf(f, "usage: amsim check [-c CONFIG] [--lenient] [--device N] FILE...\n"
            "  validates configs (YAML) and traces without running them; traces are read as a\n"
            "  run reads them: against CONFIG's memory levels, with its trace.time_unit and\n"
            "  trace.lifetimes (default, as amsim convert: every level name of the shipped\n"
            "  device presets, hbm host vmem smem accumulator host_pageable cmem, default hbm,\n"
            "  1 ns ticks, half-open lifetimes; a run needs a config that has the levels its\n"
            "  trace names). A file that starts as a trace does (its magic bytes or header\n"
            "  line) is a trace, whatever its name; otherwise a file named .yaml, .yml or\n"
            "  .json, or holding a YAML map, is a config, or a sweep when the map has a key\n"
            "  only sweeps have (base, traces, generate, axes, seeds, policies, exclude,\n"
            "  expectations, outputs): checked as batch SWEEP --list checks it, without\n"
            "  running, and each trace file its runs read is read as above against its base\n"
            "  config (with set: and its device:); anything else is read as a trace.\n"
            "  A trace must also keep the rules a run enforces on ids and events (duplicate\n"
            "  and unknown ids, 0-byte allocations, waits on unrecorded events, ...)\n"
            "  -c, --config FILE   the config traces are read with (anywhere on the line)\n"
            "  --lenient           count and skip what run --lenient counts and skips\n"
            "  --device N          PyTorch snapshot: which device's trace (default 0; a device\n"
            "                      with no entries is refused when another has some)\n");
}

/* check FILE...: configs (see check_as_config) are validated as configs; anything else is
 * read as a trace against CONFIG's levels (default: cfg_load_builtin's, the levels of every
 * shipped device preset, as convert reads them). */
static int cmd_check(int argc, char **argv)
{
    if (argc == 0) {
        usage_check(stderr);
        return 1;
    }
    enum { K_HELP, K_CONFIG, K_LENIENT, K_DEVICE, K_N };
    static const cli_opt opts[] = {[K_HELP] = {"help", 'h', CLI_FLAG},
                                   [K_CONFIG] = {"config", 'c', CLI_IN},
                                   [K_LENIENT] = {"lenient", 0, CLI_FLAG},
                                   [K_DEVICE] = {"device", 0, CLI_VALUE}, [K_N] = {NULL, 0, 0}};
    /* the files, in order; -c may come anywhere (until 2026-11-25 only first: `check FILE -c
     * CFG` read "-c" and CFG as files to check) */
    const char **files = am_calloc((size_t)argc + 1, sizeof *files);
    int nfiles = 0;
    const char *cfgp = NULL, *device_s = NULL, *opt, *v;
    run_spec as_run = {0}; /* a trace is read as run reads it, with --device */
    int lenient = 0;
    cli cl;
    cli_init(&cl, "amsim check", argc, argv);
    cl.operand_in = "FILE"; /* `check -c - -` would read standard input twice */
    for (int k; (k = cli_next(&cl, opts, &opt, &v)) != CLI_END;) {
        if (k == CLI_ERROR || (k == K_CONFIG && cli_once("amsim check", opt, &cfgp, v, NULL)) ||
            (k == K_DEVICE && (cli_once("amsim check", opt, &device_s, v, NULL) ||
                               cli_device("amsim check", v, &as_run.device)))) {
            free(files);
            return 1;
        }
        if (k == K_HELP) {
            usage_check(stdout);
            free(files);
            return 0;
        }
        if (k == K_LENIENT)
            lenient = 1;
        if (k == CLI_OPERAND)
            files[nfiles++] = v;
    }
    int bad = 0, base_given = cfgp != NULL;
    am_config *base = NULL;
    am_error err = {0};
    if (cfgp) {
        if (cfg_load(&base, cfgp, NULL, 0, &err) != 0) {
            am_msg("%s: %s\n", prog, err.msg);
            free(files);
            return 1;
        }
    } else if (cfg_load_builtin(&base, NULL, 0, &err) != 0) {
        am_msg("%s: %s\n", prog, err.msg);
        free(files);
        return 2;
    }
    for (int i = 0; i < nfiles; i++) {
        int is_yaml = check_as_config(files[i]);
        /* the file as its "ok" line names it: a newline or an escape in its name shows as
         * \xHH, as in the messages (until 2026-11-27 raw: a name could forge a line) */
        char shown[CLI_SHOWN];
        am_escape_name(shown, sizeof shown, files[i]);
        memset(&err, 0, sizeof err);
        /* a sweep (base:, traces:, generate:, axes: ... at the top) is validated as batch
         * --list does, without running (until 2026-11-27 it was read as a config: "unknown
         * key 'name'") */
        if (is_yaml && batch_sniff_sweep(files[i])) {
            long nruns = 0;
            if (batch_check_sweep(files[i], &nruns, &err) != 0) {
                am_msg("%s: %s\n", prog, err.msg);
                bad = 1;
            } else
                printf("%s: sweep ok (%ld run%s)\n", shown, nruns, nruns == 1 ? "" : "s");
            continue;
        }
        if (is_yaml) {
            am_config *c = NULL;
            if (cfg_load(&c, files[i], NULL, 0, &err) != 0) {
                am_msg("%s: %s\n", prog, err.msg);
                bad = 1;
            } else {
                printf("%s: config ok (%d memory level%s, %d link%s)\n", shown, c->nlevels,
                       c->nlevels == 1 ? "" : "s", c->nlinks, c->nlinks == 1 ? "" : "s");
                cfg_print_warnings(c, stderr, prog);
            }
            cfg_free(c);
            continue;
        }
        /* read as a run reads it (run_trace_opts): CONFIG's levels and trace settings,
         * trace.time_unit and trace.lifetimes (until 2026-11-25 check read 1 ns ticks and
         * half-open lifetimes whatever CONFIG said); a snapshot's --device (default 0, as
         * run's; until 2026-11-27 always 0) */
        const char *names[CFG_MAX_LEVELS];
        trace_opts to = run_trace_opts(&as_run, base, names);
        trace *t = NULL;
        uint64_t events = 0, problems = 0;
        /* with the rules on ids and events a run enforces, those convert applies (until
         * 2026-11-27 check passed a duplicate id, a 0-byte allocation or a queued operation on
         * a stream past the limit, all refused by run) */
        int rc = trace_open(&t, files[i], &to, &err);
        if (rc == 0)
            rc = convert_check_trace(t, base, files[i], lenient, &events, &problems, &err);
        if (rc < 0) {
            am_msg("%s: %s\n", prog, err.msg);
            if (!base_given && strstr(err.msg, "unknown level '"))
                am_msg("%s check: without -c a trace is read against the level names of the "
                       "shipped device presets; give -c CONFIG for a config's own levels\n", prog);
            bad = 1;
        } else {
            printf("%s: trace ok (%s, %llu event%s, %llu row%s skipped)", shown,
                   trace_format(t), (unsigned long long)events, events == 1 ? "" : "s",
                   (unsigned long long)trace_skipped(t), trace_skipped(t) == 1 ? "" : "s");
            if (lenient)
                printf("; %llu trace problem%s counted and skipped (--lenient)",
                       (unsigned long long)problems, problems == 1 ? "" : "s");
            printf("\n");
        }
        trace_close(t);
    }
    cfg_free(base);
    free(files);
    return bad;
}

/* An option's default as `amsim policies` lists it: a plain number of bytes, bytes per second or
 * seconds gets the unit it is read in ("256B", "0s"), as its siblings' "2MiB" and "20us" carry
 * theirs (until 2026-11-28 "alignment default 256"). Only the listing: the table's text, which
 * the effective config echoes, stays as it is. */
static const char *listed_default(const opt_desc *o, char *buf, size_t n)
{
    const char *unit = o->type == OPT_SIZE || o->type == OPT_SIZE_OR_UNLIMITED ? "B"
                       : o->type == OPT_BANDWIDTH                              ? "B/s"
                       : o->type == OPT_TIME                                   ? "s"
                                                                               : NULL;
    if (!o->def)
        return "-";
    size_t len = strlen(o->def);
    if (!unit || !len || !strchr("0123456789.", o->def[len - 1]))
        return o->def;
    snprintf(buf, n, "%s%s", o->def, unit);
    return buf;
}

static int cmd_policies(int argc, char **argv)
{
    static const cli_opt opts[] = {{"help", 'h', 0}, {NULL, 0, 0}};
    cli c;
    cli_init(&c, "amsim policies", argc, argv);
    const char *opt, *v;
    for (int k; (k = cli_next(&c, opts, &opt, &v)) != CLI_END;) {
        if (k == CLI_ERROR)
            return 1;
        if (k == CLI_OPERAND)
            return cli_unexpected(&c, v), 1;
        printf("usage: amsim policies\n"
               "  lists the allocator policies, each with its options and their defaults\n");
        return 0;
    }
    for (const struct alloc_ops *const *p = alloc_all(); *p; p++) {
        printf("%-12s %s\n", (*p)->name, (*p)->summary);
        for (const opt_desc *o = (*p)->opts; o && o->key; o++) {
            char def[64];
            printf("    %-28s default %-10s %s\n", o->key, listed_default(o, def, sizeof def),
                   o->help ? o->help : "");
        }
    }
    return 0;
}

/* Every command's report, listing or table on standard output is checked here, once: a write
 * that failed (a full disk, `> /dev/full`) makes the status 1 with a message, where until
 * 2026-11-27 run, compare, mincap, stats and policies exited 0 with their output lost. It is
 * said whatever the command's status, unless an output on "-" already reported this very
 * failure (convert's or gen's -o -, --json -): until 2026-11-27 a command that failed for
 * another reason (status 1: a failed row of compare or mincap) left it unsaid. An output that
 * failed is an error, status 1, as a --json FILE that cannot be written is, over a status 3
 * (out of memory with --fail-on-oom, a moved expectation): until 2026-11-27 a failed standard
 * output kept status 3 while a failed --json FILE gave 1. 2 (amsim's own failure) is kept. */
static int check_stdout(int rc)
{
    int bad = fflush(stdout) != 0, e = errno;
    if (!bad && !ferror(stdout))
        return rc;
    if (out_stdout_failed())
        return rc;
    if (bad)
        am_msg("%s: standard output: write failed: %s\n", prog, strerror(e));
    else
        am_msg("%s: standard output: write failed\n", prog);
    return out_stdout_status(rc);
}

static const struct {
    const char *name;
    int (*fn)(int argc, char **argv); /* the arguments after the command name */
} cmds[] = {{"run", cmd_run},         {"check", cmd_check},     {"gen", cmd_gen},
            {"convert", cmd_convert}, {"compare", cmd_compare}, {"policies", cmd_policies},
            {"batch", cmd_batch},     {"mincap", cmd_mincap},   {"stats", cmd_stats},
            {"report", cmd_report}};

static int find_command(const char *name)
{
    for (size_t i = 0; i < AM_ARRAY_LEN(cmds); i++)
        if (strcmp(name, cmds[i].name) == 0)
            return (int)i;
    return -1;
}

/* A command word amsim does not have: status 1, named as typed but escaped (`amsim $'\e[2J'`
 * must not clear the screen; until 2026-11-27 every message here echoed it raw), then the
 * usage on standard error. */
static int unknown_command(const char *cmd)
{
    char shown[CLI_SHOWN];
    am_msg("%s: unknown command '%s'\n", prog, am_escape_name(shown, sizeof shown, cmd));
    usage_main(stderr);
    return 1;
}

/* --version and --help take no operand, as every command refuses a word it takes none for
 * (until 2026-11-27 `amsim --version x` printed the version, status 0); `amsim help CMD` and
 * `amsim --help CMD` are CMD's own --help, and a CMD amsim does not have is an unknown command,
 * as in `amsim CMD --help` (until 2026-11-27 `amsim help nosuch` said "unexpected argument
 * 'nosuch' (it takes at most a command name ...)", though it was given one). `--` ends the
 * options here too (`amsim help -- run`), and help's own help (`help help`, `help --help`) is
 * the general help: until 2026-11-28 all three were "unknown command". */
static int version_or_help(int argc, char **argv)
{
    const char *cmd = argv[1];
    int help = strcmp(cmd, "--version") != 0 && strcmp(cmd, "version") != 0;
    int i = 2, dashes = argc > 2 && strcmp(argv[2], "--") == 0;
    i += dashes;
    int k = -1, self = 0; /* CMD's index in cmds; self: help asked about itself */
    if (help && argc > i) {
        const char *w = argv[i];
        self = strcmp(w, "help") == 0 ||
               (!dashes && (strcmp(w, "--help") == 0 || strcmp(w, "-h") == 0));
        k = self ? -1 : find_command(w);
        if (!self && k < 0)
            return unknown_command(w);
    }
    int extra = k >= 0 || self ? i + 1 : i; /* the first word not taken */
    /* a "--" after the command name ends options that are not there, as `run --help --` does
     * (until 2026-11-28 `help run --` was an unexpected argument) */
    if (!dashes && argc > extra && strcmp(argv[extra], "--") == 0)
        extra++;
    if (argc > extra) {
        char shown[CLI_SHOWN];
        am_msg("%s %s: unexpected argument '%s' (%s)\n", prog, cmd,
               am_escape_name(shown, sizeof shown, argv[extra]),
               help ? "it takes at most a command name, e.g. amsim help run" : "it takes none");
        return 1;
    }
    static char help_arg[] = "--help";
    char *args[] = {help_arg, NULL};
    if (k >= 0)
        return cmds[k].fn(1, args);
    if (help)
        usage_main(stdout);
    else
        printf("amsim %s\n", AM_VERSION);
    return 0;
}

/* A standard descriptor closed when the command starts (`>&-`) is taken by /dev/null, opened
 * the wrong way round for it, so that the first file the command opens does not become its
 * standard output, and writing there still fails as on a closed descriptor (EBADF: "standard
 * output: write failed: Bad file descriptor", status 1, no output published). Until 2026-11-27
 * an output's temporary could take descriptor 1 and `run --json x.json >&-` replaced x.json. */
static void hold_closed_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++)
        if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
            /* the lowest free descriptor is fd itself: those below it are open by now */
            int got = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
            /* and /dev/stdout or /dev/fd/1 opened by name must not reach /dev/null */
            if (got == fd)
                out_hold_std_fd(fd);
        }
}

static int run_command(int argc, char **argv)
{
    hold_closed_std_fds();
    out_install_signals();
    atexit(out_abort_all);
    if (argc < 2) {
        usage_main(stderr);
        return 1;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0 ||
        strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0)
        return version_or_help(argc, argv);
    int k = find_command(cmd);
    if (k >= 0)
        return cmds[k].fn(argc - 2, argv + 2);
    return unknown_command(cmd);
}

int main(int argc, char **argv)
{
    return check_stdout(run_command(argc, argv));
}
