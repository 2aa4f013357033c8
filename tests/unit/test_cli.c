/* test_cli.c - the shared command-line reader (sim/cli.c) in process: every form getopt_long
 * takes (--name=VALUE split at the first '=', --name VALUE, -xVALUE, -x VALUE, grouped short
 * flags, "--", "-" as an operand, options after operands), what it refuses and the message it
 * gives (a flag given a value, a missing or empty value, an unknown or abbreviated name). The
 * commands' use of it is tested through the binary in test_batch.c; their help texts and
 * usage errors here, through the binary too. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../sim/cli.h"
#include "testutil.h"

static const cli_opt opts[] = {
    {"help", 'h', CLI_FLAG},  {"quiet", 'q', CLI_FLAG}, {"config", 'c', CLI_PATH},
    {"jobs", 'j', CLI_VALUE}, {"set", 0, CLI_VALUE},    {"check", 0, CLI_FLAG},
    {"checks", 0, CLI_VALUE}, {NULL, 0, 0}};

/* Read the space-separated words of line ("''" is an empty argument) with cli_next: each
 * option as given, "=VALUE" after one that takes a value, "[A]" for an operand, "ERR" for a
 * refusal (and the end), into got; what it wrote to stderr into msg. */
static void scan(const char *line, char *got, size_t gn, char *msg, size_t mn)
{
    char buf[512], *argv[32];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *w = strtok(buf, " "); w && argc < 32; w = strtok(NULL, " "))
        argv[argc++] = strcmp(w, "''") ? w : w + 2;
    char path[600];
    snprintf(path, sizeof path, "%s/cli.stderr", tu_tmpdir());
    fflush(stderr);
    int saved = dup(2), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CU_ASSERT_FATAL(saved >= 0 && fd >= 0);
    dup2(fd, 2);
    close(fd);
    cli c;
    cli_init(&c, "P", argc, argv);
    const char *opt, *val;
    size_t k = 0;
    got[0] = 0;
    for (int r; (r = cli_next(&c, opts, &opt, &val)) != CLI_END && k < gn;) {
        if (r == CLI_ERROR) {
            k += (size_t)snprintf(got + k, gn - k, "%sERR", k ? " " : "");
            break;
        }
        if (r == CLI_OPERAND)
            k += (size_t)snprintf(got + k, gn - k, "%s[%s]", k ? " " : "", val);
        else {
            CU_ASSERT_EQUAL(val != NULL, opts[r].takes_value != CLI_FLAG);
            k += (size_t)snprintf(got + k, gn - k, "%s%s%s%s", k ? " " : "", opt,
                                  val ? "=" : "", val ? val : "");
        }
    }
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char *m = tu_slurp(path, NULL);
    snprintf(msg, mn, "%s", m ? m : "");
    free(m);
}

static void test_forms(void)
{
    static const struct {
        const char *line, *got;
    } cases[] = {
        /* a value attached or following, long or short */
        {"-c a -cb --config c --config=d", "-c=a -c=b --config=c --config=d"},
        /* the first '=' splits: the value keeps the others */
        {"--set=memories.hbm.capacity=1GiB --set a=b", "--set=memories.hbm.capacity=1GiB --set=a=b"},
        /* short flags grouped; the last letter may take a value, attached or following */
        {"-qj2 -qc f -qq -hq", "-q -j=2 -q -c=f -q -q -h -q"},
        /* operands anywhere; "-" is one; after "--" everything is */
        {"a -q b - -- -q --config=x --", "[a] -q [b] [-] [-q] [--config=x] [--]"},
        /* a value is the next argument whatever it looks like, as getopt takes it */
        {"--config --quiet -j -q -c -", "--config=--quiet -j=-q -c=-"},
        {"-j=2 --config x", "-j==2 --config=x"},
        /* an empty value of an option that is not a path is the command's to judge */
        {"-j '' --set ''", "-j= --set="},
        /* names are whole: --check is not --checks and the reverse */
        {"--check --checks x", "--check --checks=x"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char got[512], msg[512];
        scan(cases[i].line, got, sizeof got, msg, sizeof msg);
        CU_ASSERT_STRING_EQUAL(got, cases[i].got);
        CU_ASSERT_STRING_EQUAL(msg, "");
        if (strcmp(got, cases[i].got) || msg[0])
            fprintf(stderr, "\n  '%s': got '%s', wanted '%s'; %s", cases[i].line, got,
                    cases[i].got, msg);
    }
}

static void test_refusals(void)
{
    static const struct {
        const char *line, *got, *msg;
    } cases[] = {
        {"--quiet=x", "ERR", "P: --quiet takes no value ('--quiet=x')\n"},
        {"-c f --quiet=", "-c=f ERR", "P: --quiet takes no value ('--quiet=')\n"},
        /* an empty attached value is a missing one */
        {"--config=", "ERR", "P: --config needs a value\n"},
        {"-q --config", "-q ERR", "P: --config needs a value\n"},
        {"-qj", "-q ERR", "P: -j needs a value\n"},
        {"-c", "ERR", "P: -c needs a value\n"},
        /* an empty path, separate or after a short option, and an empty operand name no file
         * (until 2026-11-25 passed on: `batch SWEEP -o ''` wrote into /) */
        {"--config ''", "ERR", "P: --config '': an empty path names no file\n"},
        {"-q -c ''", "-q ERR", "P: -c '': an empty path names no file\n"},
        {"-qc ''", "-q ERR", "P: -c '': an empty path names no file\n"},
        {"a ''", "[a] ERR", "P: an empty argument '' names no file\n"},
        {"-- ''", "ERR", "P: an empty argument '' names no file\n"},
        /* never abbreviated */
        {"--conf x", "ERR", "P: unknown option '--conf' (see P --help)\n"},
        {"--bogus=1", "ERR", "P: unknown option '--bogus=1' (see P --help)\n"},
        {"--=x", "ERR", "P: unknown option '--=x' (see P --help)\n"},
        {"-x", "ERR", "P: unknown option '-x' (see P --help)\n"},
        {"-qx2", "-q ERR", "P: unknown option '-x' in '-qx2' (see P --help)\n"},
        {"a -- b -q -z", "[a] [b] [-q] [-z]", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char got[512], msg[512];
        scan(cases[i].line, got, sizeof got, msg, sizeof msg);
        CU_ASSERT_STRING_EQUAL(got, cases[i].got);
        CU_ASSERT_STRING_EQUAL(msg, cases[i].msg);
        if (strcmp(got, cases[i].got) || strcmp(msg, cases[i].msg))
            fprintf(stderr, "\n  '%s': got '%s' and '%s', wanted '%s' and '%s'", cases[i].line,
                    got, msg, cases[i].got, cases[i].msg);
    }
}

/* cli_once names both values whichever form gave them */
static void test_once(void)
{
    char a0[] = "--config=a=1", a1[] = "-cb", *argv[] = {a0, a1};
    cli c;
    cli_init(&c, "P", 2, argv);
    const char *opt, *val, *slot = NULL;
    CU_ASSERT_EQUAL(cli_next(&c, opts, &opt, &val), 2);
    CU_ASSERT_EQUAL(cli_once("P", opt, &slot, val, NULL), 0);
    CU_ASSERT_STRING_EQUAL(slot, "a=1");
    CU_ASSERT_EQUAL(cli_next(&c, opts, &opt, &val), 2);
    CU_ASSERT_STRING_EQUAL(opt, "-c");
    CU_ASSERT_STRING_EQUAL(val, "b");
    CU_ASSERT_EQUAL(cli_next(&c, opts, &opt, &val), CLI_END);
}

/* Each command's --help names every option it takes, as it takes it: -o/--out of run, batch
 * and gen (until 2026-11-27 only convert listed --out, gen not even -o under a kind), -c of run
 * as required (it read "(configs/default.yaml)", as if that were a default), and every kind of
 * --log line (D, a donation, was missing). */
static void test_help_texts(void)
{
    static const char *const with_out[] = {"run", "batch", "gen", "gen train", "gen serve",
                                           "gen kernel", "convert"};
    char args[64], *out = NULL;
    for (size_t i = 0; i < sizeof with_out / sizeof with_out[0]; i++) {
        snprintf(args, sizeof args, "%s --help", with_out[i]);
        CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
        CU_ASSERT(out && strstr(out, "-o, --out "));
        if (!out || !strstr(out, "-o, --out "))
            fprintf(stderr, "\n  amsim %s: no '-o, --out' in its help\n", with_out[i]);
        free(out);
        out = NULL;
    }
    CU_ASSERT_EQUAL(tu_amsim("run --help", &out, NULL), 0);
    CU_ASSERT(out && strstr(out, "--config FILE       YAML config (required; e.g. "
                                 "configs/default.yaml)"));
    CU_ASSERT(out && !strstr(out, "YAML config (configs/default.yaml)"));
    CU_ASSERT(out && strstr(out, "(R/G/A/OOM/M/D/P/S"));
    free(out);
}

/* -q leaves out a command's table; with nothing else to write (no --json; compare: nor
 * --fail-on-oom, whose status is the answer) stats, compare and mincap refuse it as a usage
 * error, status 1, before reading anything (until 2026-11-27 they wrote nothing and exited 0).
 * run -q is not refused: its status and errors say whether the trace replays. */
static void test_quiet_needs_output(void)
{
    char csv[1024], args[4096], *out = NULL, *err = NULL;
    snprintf(csv, sizeof csv, "%s", tu_write("q.csv", "run_id,run,policy,status,m\n"
                                             "1,a,bfc,ok,1\n2,b,bfc,ok,2\n"));
    const char *tr = tu_write("q.trace", "amsim-trace v1\nalloc 1 1MiB\nfree 1\n");
    static const struct {
        const char *args, *want; /* @C config, @T trace, @R results; want NULL: status 0 */
    } cases[] = {
        {"stats @R --metric m -q", "amsim stats: -q leaves out the table and nothing else would "
                                   "be written: give --json FILE (or --json -), or drop -q\n"},
        {"compare -q -c @C -t @T --policies bfc", "amsim compare: -q leaves out the table and "
         "nothing else would be written: give --json FILE (or --json -) or --fail-on-oom, or "
         "drop -q\n"},
        {"mincap -q -c @C -t @T --policies bfc", "amsim mincap: -q leaves out the table and "
         "nothing else would be written: give --json FILE (or --json -), or drop -q\n"},
        {"stats @R --metric m -q --json -", NULL},
        {"compare -q -c @C -t @T --policies bfc --fail-on-oom", NULL},
        {"compare -q -c @C -t @T --policies bfc --json -", NULL},
        {"mincap -q -c @C -t @T --policies bfc --json -", NULL},
        {"run -q -c @C -t @T", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t k = 0;
        for (const char *p = cases[i].args; *p && k + 1100 < sizeof args; p++) {
            if (*p != '@') {
                args[k++] = *p;
                continue;
            }
            p++;
            k += (size_t)snprintf(args + k, sizeof args - k, "'%s%s'",
                                  *p == 'C' ? tu_top() : "",
                                  *p == 'C' ? "/configs/default.yaml" : *p == 'T' ? tr : csv);
        }
        args[k] = 0;
        int st = tu_amsim(args, &out, &err);
        CU_ASSERT_EQUAL(st, cases[i].want ? 1 : 0);
        if (cases[i].want) {
            CU_ASSERT(out && !*out);
            CU_ASSERT(err && strcmp(err, cases[i].want) == 0);
        } else {
            CU_ASSERT(out && (strstr(cases[i].args, "--json -") ? *out == '{' : !*out));
            /* a JSON document ends with one newline, in every command (until 2026-11-27
             * mincap's ended "}\n}\n\n") */
            size_t ol = out ? strlen(out) : 0;
            if (strstr(cases[i].args, "--json -"))
                CU_ASSERT(ol >= 2 && strcmp(out + ol - 2, "}\n") == 0);
        }
        if (st != (cases[i].want ? 1 : 0) || (cases[i].want && (!err || strcmp(err, cases[i].want))))
            fprintf(stderr, "\n  %s: status %d, %s\n", cases[i].args, st, err ? err : "(none)");
        free(out);
        free(err);
        out = err = NULL;
    }
}

/* A config piped to -c - serves every run of compare and mincap: it is read once. Until
 * 2026-11-27 each run read standard input again and found it empty, and every row failed
 * "-:1:1: missing required key 'version'". */
static void test_piped_config_reused(void)
{
    const char *bin = getenv("AMSIM") ? getenv("AMSIM") : "../../build/amsim";
    char cfg[1024], cmd[4096];
    snprintf(cfg, sizeof cfg, "%s", tu_write("pipe.yaml", "version: 1\nmemories:\n  hbm:\n"
                                              "    capacity: 64MiB\n"
                                              "    allocator: {policy: first_fit}\n"));
    const char *tr = tu_write("pipe.trace",
                              "amsim-trace v1\nalloc 1 1MiB\nalloc 2 3MiB\nfree 1\n");
    static const char *const cmds[][2] = {
        {"compare -c - -t '", "' --policies first_fit,bfc,best_fit"},
        {"mincap -q -c - -t '", "' --policies first_fit,bfc --json -"}};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char args[1024], outf[1024];
        snprintf(args, sizeof args, "%s%s%s", cmds[i][0], tr, cmds[i][1]);
        snprintf(outf, sizeof outf, "%s/.pipe.out", tu_tmpdir());
        snprintf(cmd, sizeof cmd, "cat '%s' | %s %s >'%s' 2>&1", cfg, bin, args, outf);
        int st = system(cmd);
        char *out = tu_slurp(outf, NULL);
        CU_ASSERT(st == 0);
        CU_ASSERT(out && !strstr(out, "failed") && !strstr(out, "missing required key"));
        if (st != 0 || !out || strstr(out, "missing required key"))
            fprintf(stderr, "\n  %s: status %d, %s\n", cmd, st, out ? out : "(none)");
        free(out);
    }
}

/* Two inputs given '-' would both read standard input: every command with several inputs
 * refuses it as a usage error naming both, status 1, before reading anything. Until
 * 2026-11-28 the second reader blamed the content (`run -c - -t - < c.yaml`: "-: unrecognised
 * trace format") and `check -c - - < c.yaml` passed, status 0. */
static void test_stdin_once(void)
{
    static const struct {
        const char *args, *err; /* @T a trace file */
    } cases[] = {
        {"run -c - -t - -q", "amsim run: -c and -t both read '-' (standard input): give one of "
                             "them a file\n"},
        {"run -q -t- --config=-", "amsim run: -t and --config both read '-' (standard input): "
                                  "give one of them a file\n"},
        {"run -c - -t @T --expect -", "amsim run: -c and --expect both read '-' (standard "
                                      "input): give one of them a file\n"},
        {"run -t - -c @T --expect -", "amsim run: -t and --expect both read '-' (standard "
                                      "input): give one of them a file\n"},
        {"compare -c - -t - --policies bfc", "amsim compare: -c and -t both read '-' (standard "
                                             "input): give one of them a file\n"},
        {"mincap -t - -c - --json -", "amsim mincap: -t and -c both read '-' (standard input): "
                                      "give one of them a file\n"},
        {"check -c - -", "amsim check: -c and FILE both read '-' (standard input): give one of "
                         "them a file\n"},
        {"check @T - -", "amsim check: two FILE operands read '-' (standard input): give one of "
                         "them a file\n"},
        {"convert - -o @T.out -c -", "amsim convert: IN and -c both read '-' (standard input): "
                                     "give one of them a file\n"},
        /* one option twice is cli_once's "given twice", under either of its names (until
         * 2026-11-28 (later) -c and --config were two inputs) */
        {"run -c - -c - -t @T", "amsim run: -c given twice ('-', then '-'): it takes one "
                                "value\n"},
        {"run -c - --config - -t @T", "amsim run: --config given twice ('-', then '-'): it "
                                      "takes one value\n"},
        /* the system's names for standard input are standard input (until 2026-11-28 (later)
         * `-c /dev/stdin --expect -` read it twice) */
        {"run -c /dev/stdin -t @T --expect -", "amsim run: -c and --expect both read standard "
                                               "input ('/dev/stdin' and '-'): give one of them a "
                                               "file\n"},
        {"compare -c /dev/fd/0 -t - --policies bfc", "amsim compare: -c and -t both read "
                                                     "standard input ('/dev/fd/0' and '-'): give "
                                                     "one of them a file\n"},
        {"check -- /proc/self/fd/0 -", "amsim check: two FILE operands read standard input "
                                       "('/proc/self/fd/0' and '-'): give one of them a file\n"},
    };
    const char *tr = tu_write("in.trace", "amsim-trace v1\nalloc 1 1MiB\nfree 1\n");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char args[4096], *out = NULL, *err = NULL;
        size_t k = 0;
        for (const char *p = cases[i].args; *p && k + 1100 < sizeof args; p++)
            if (*p == '@' && p[1] == 'T')
                k += (size_t)snprintf(args + k, sizeof args - k, "%s", tr), p++;
            else
                args[k++] = *p;
        args[k] = 0;
        int st = tu_amsim(args, &out, &err);
        CU_ASSERT_EQUAL(st, 1);
        CU_ASSERT(out && !*out);
        CU_ASSERT(err && strcmp(err, cases[i].err) == 0);
        if (st != 1 || !err || strcmp(err, cases[i].err))
            fprintf(stderr, "\n  %s: status %d, %s\n", args, st, err ? err : "(none)");
        free(out);
        free(err);
    }
    /* a pipe on standard input under another name (a link to /dev/stdin) is standard input
     * too (until 2026-11-28 only the names above were) */
    const char *bin = getenv("AMSIM") ? getenv("AMSIM") : "../../build/amsim";
    char link[1024], errf[1100], cmd[4096];
    snprintf(link, sizeof link, "%s/stdinlink", tu_tmpdir());
    snprintf(errf, sizeof errf, "%s/stdinlink.err", tu_tmpdir());
    unlink(link);
    CU_ASSERT_FATAL(symlink("/dev/stdin", link) == 0);
    snprintf(cmd, sizeof cmd, "echo x | '%s' run -c - -t '%s' >/dev/null 2>'%s'", bin, link,
             errf);
    int st = system(cmd);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 1);
    char *err = tu_slurp(errf, NULL), want[2200];
    snprintf(want, sizeof want, "amsim run: -c and -t both read standard input ('-' and '%s'): "
             "give one of them a file\n", link);
    CU_ASSERT(err && strcmp(err, want) == 0);
    free(err);
}

/* `amsim help CMD` is `amsim CMD --help`: help's own (`help help`, `help --help`) is the
 * general help, and `--` ends the options there too (`help -- run`). Until 2026-11-28 all
 * three were "unknown command", status 1. */
static void test_help_of_help(void)
{
    static const struct {
        const char *args, *head; /* what standard output starts with */
    } cases[] = {
        {"help help", "usage: amsim COMMAND"},  {"help --help", "usage: amsim COMMAND"},
        {"--help help", "usage: amsim COMMAND"}, {"help -- help", "usage: amsim COMMAND"},
        {"help -- run", "usage: amsim run "},    {"--help -- stats", "usage: amsim stats"},
        /* a trailing -- ends no option, as in `run --help --` (until 2026-11-28 refused) */
        {"help run --", "usage: amsim run "},    {"version --", "amsim "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *out = NULL, *err = NULL;
        int st = tu_amsim(cases[i].args, &out, &err);
        size_t n = strlen(cases[i].head);
        CU_ASSERT_EQUAL(st, 0);
        CU_ASSERT(out && strncmp(out, cases[i].head, n) == 0);
        CU_ASSERT(err && !*err);
        if (st != 0 || !out || strncmp(out, cases[i].head, n))
            fprintf(stderr, "\n  amsim %s: status %d, %s\n", cases[i].args, st,
                    err ? err : "(none)");
        free(out);
        free(err);
    }
    char *err = NULL; /* a word past the command is still refused */
    CU_ASSERT_EQUAL(tu_amsim("help help x", NULL, &err), 1);
    CU_ASSERT(err && strstr(err, "unexpected argument 'x'"));
    free(err);
}

/* A second results file of stats is named with the first, escaped, as convert names a second
 * input (until 2026-11-28 stats said "one results file only" and named neither). */
static void test_one_input_named(void)
{
    static const char *const cases[][2] = {
        {"stats a.csv 'b\x1b.csv' --metric ooms",
         "amsim stats: one results file only ('a.csv' and 'b\\x1b.csv')\n"},
        {"stats r.csv r.csv --metric ooms", "amsim stats: one results file only ('r.csv' and "
                                            "'r.csv')\n"},
        {"convert t.trace t.trace -o x", "amsim convert: one input only ('t.trace' and "
                                         "'t.trace')\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *err = NULL;
        CU_ASSERT_EQUAL(tu_amsim(cases[i][0], NULL, &err), 1);
        CU_ASSERT(err && strcmp(err, cases[i][1]) == 0);
        if (!err || strcmp(err, cases[i][1]) != 0)
            fprintf(stderr, "\n  amsim %s\n  stderr: %s  expected: %s", cases[i][0],
                    err ? err : "(none)", cases[i][1]);
        free(err);
    }
}

/* A --policy or --set value that is not UTF-8, or starts with a byte-order mark, is refused
 * quoting the argument escaped as given. Until 2026-11-28 libyaml took FF FE for a UTF-16LE
 * mark and the message echoed its decoding ("unknown allocator policy '\xe6\x8a\x80...'"),
 * and EF BB BF was skipped: `--policy $'\xef\xbb\xbfbfc'` ran bfc. */
static void test_value_not_utf8(void)
{
    static const struct {
        const char *arg, *err; /* arg made by sh's printf: sh may have no $'...' */
    } cases[] = {
        {"--policy \"$(printf '\\377\\376\\200bad')\"",
         "amsim: --policy '\\xff\\xfe\\x80bad': bad value: not UTF-8 (byte 0xff at offset 0)\n"},
        {"--set \"$(printf 'memories.hbm.allocator.policy=\\376\\377bfc')\"",
         "amsim: --set 'memories.hbm.allocator.policy=\\xfe\\xffbfc': bad value: not UTF-8 "
         "(byte 0xfe at offset 0)\n"},
        {"--policy \"$(printf 'b\\303\\251\\200')\"",
         "amsim: --policy 'b\xc3\xa9\\x80': bad value: not UTF-8 (byte 0x80 at offset 3)\n"},
        {"--policy \"$(printf '\\357\\273\\277bfc')\"",
         "amsim: --policy '\xef\xbb\xbf" "bfc': bad value: starts with a byte-order mark (EF BB "
         "BF)\n"},
        /* the PATH too (until 2026-11-28 "unknown memory 'hbm<FF>'", the byte raw) */
        {"--set \"$(printf 'memories.hbm\\377.capacity=1GiB')\"",
         "amsim: --set 'memories.hbm\\xff.capacity=1GiB': bad PATH: not UTF-8 (byte 0xff at "
         "offset 12)\n"},
    };
    const char *tr = tu_write("u8.trace", "amsim-trace v1\nalloc 1 1MiB\nfree 1\n");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char args[4096], *err = NULL;
        snprintf(args, sizeof args, "run -q -c '%s/configs/default.yaml' -t '%s' %s", tu_top(),
                 tr, cases[i].arg);
        int st = tu_amsim(args, NULL, &err);
        CU_ASSERT_EQUAL(st, 1);
        CU_ASSERT(err && strcmp(err, cases[i].err) == 0);
        if (st != 1 || !err || strcmp(err, cases[i].err))
            fprintf(stderr, "\n  amsim %s: status %d, %s  expected: %s", args, st,
                    err ? err : "(none)", cases[i].err);
        free(err);
    }
}

void suite_cli(void)
{
    TU_SUITE("cli", {"every form getopt_long takes", test_forms},
             {"refusals and their messages", test_refusals},
             {"a value given twice, in either form", test_once},
             {"help texts: -o/--out, a required -c, every --log line", test_help_texts},
             {"-q with nothing else to write is a usage error", test_quiet_needs_output},
             {"a config piped to -c - serves every run of compare and mincap",
              test_piped_config_reused},
             {"two inputs '-' are refused, naming both", test_stdin_once},
             {"help help, help --help and help -- CMD", test_help_of_help},
             {"a second input of stats and convert names both", test_one_input_named},
             {"a --policy or --set value not UTF-8 is quoted escaped", test_value_not_utf8});
}
