/* test_report.c - what `amsim report`, `amsim stats` and `run --log` say about a study: undefined
 * metrics left out of means, the heat map's policy named, units and exact integers in stats,
 * the level on every line of a multi-level event log, the run report's columns for sizes up to
 * 16 EiB and for long level, link and direction names. All through the amsim binary. */
#define _DEFAULT_SOURCE /* realpath, setenv, usleep */
#include <CUnit/CUnit.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"
#include "../../sim/common.h"
#include "../../sim/json.h"

static char *tmp_path(const char *name)
{
    static char buf[8][1024];
    static int k;
    char *p = buf[k++ % 8];
    snprintf(p, sizeof buf[0], "%s/%s", tu_tmpdir(), name);
    return p;
}

/* Write DIR/results.csv, run `amsim report DIR` (status 0) and return DIR/report.html. */
static char *report_of(const char *dirname, const char *csv)
{
    const char *dir = tmp_path(dirname);
    char p[1200], args[1400], *err = NULL;
    mkdir(dir, 0777);
    snprintf(p, sizeof p, "%s/results.csv", dir);
    FILE *f = fopen(p, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs(csv, f);
    fclose(f);
    snprintf(args, sizeof args, "report '%s'", dir);
    int st = tu_amsim(args, NULL, &err);
    CU_ASSERT_EQUAL(st, 0);
    if (st)
        printf("\nreport: %s\n", err ? err : "");
    free(err);
    snprintf(p, sizeof p, "%s/report.html", dir);
    return tu_slurp(p, NULL);
}

/* The per-policy table of the page (up to its </table>), NUL-terminated in place. */
static char *policy_table(char *h)
{
    char *t = h ? strstr(h, "<h2>Per policy") : NULL, *end = t ? strstr(t, "</table>") : NULL;
    if (end)
        *end = 0;
    return end ? t : NULL;
}

/* report's messages name paths with their control bytes as \xHH, as every other command's do:
 * a folder whose name holds ESC, and an AMSIM_ANALYSIS that does. Until 2026-11-27 report
 * wrote them raw to the terminal. */
static void test_report_messages_escaped(void)
{
    const char *dir = tmp_path("esc\033[2Jdir");
    char p[1200], args[1600], *err = NULL;
    mkdir(dir, 0777);
    snprintf(p, sizeof p, "%s/results.csv", dir);
    FILE *f = fopen(p, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs("run_id,run,policy\n1,a,bfc\n", f);
    fclose(f);
    snprintf(args, sizeof args, "report '%s'", dir);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 1);
    CU_ASSERT(err && strstr(err, "esc\\x1b[2Jdir/results.csv: no column 'trace'") != NULL);
    CU_ASSERT(err && strchr(err, '\033') == NULL);
    free(err);
    err = NULL;
    snprintf(p, sizeof p, "%s/results.csv", dir);
    f = fopen(p, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs("run_id,run,policy,trace,status,hbm.peak_live_bytes,hbm.peak_reserved_bytes\n"
          "1,r1,bfc,t1,ok,1,2\n", f);
    fclose(f);
    snprintf(args, sizeof args, "AMSIM_ANALYSIS='/nonexistent/no\033[2Jpe' %s report '%s'",
             getenv("AMSIM") ? getenv("AMSIM") : "../../build/amsim", dir);
    char *cmd = malloc(strlen(args) + 64);
    CU_ASSERT_FATAL(cmd != NULL);
    snprintf(cmd, strlen(args) + 64, "%s 2>'%s/err.txt'", args, tu_tmpdir());
    CU_ASSERT(system(cmd) != -1);
    free(cmd);
    snprintf(p, sizeof p, "%s/err.txt", tu_tmpdir());
    err = tu_slurp(p, NULL);
    CU_ASSERT(err && strstr(err, "/nonexistent/no\\x1b[2Jpe/peak_reserved.gp: gnuplot scripts "
                                 "not found") != NULL);
    CU_ASSERT(err && strchr(err, '\033') == NULL);
    if (err && (!strstr(err, "x1b[2Jpe") || strchr(err, '\033')))
        printf("\nreport stderr: %s\n", err);
    free(err);
}

/* QA's study: one.trace reserves 2 MiB for 1 MiB (ratio 0.5); alloom.trace runs out of memory
 * on both requests and reserves nothing (ratio undefined, an empty cell). The report said
 * 25.0 % (0.5 and "" read as 0), stats 0.5 over n = 1; both now say 0.5 over one run. */
static void test_report_undefined_not_zero(void)
{
    const char *one = tu_write("one.trace", "amsim-trace v1\nalloc 1 1MiB\n");
    const char *oom = tu_write("alloom.trace", "amsim-trace v1\nalloc 1 100GiB\nalloc 2 200GiB\n"
                                               "free 1\nfree 2\n");
    char text[3000], args[3000], *out = NULL;
    snprintf(text, sizeof text, "base: %s/configs/default.yaml\ntraces: [%s, %s]\n"
             "policies: [bfc]\n", tu_top(), one, oom);
    const char *sw = tu_write("undef.yaml", text);
    const char *dir = tmp_path("undef");
    snprintf(args, sizeof args, "batch '%s' -o '%s' -q", sw, dir);
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
    snprintf(args, sizeof args, "report '%s'", dir);
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
    snprintf(args, sizeof args, "%s/report.html", dir);
    char *h = tu_slurp(args, NULL), *t = policy_table(h);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    /* since 2026-11-27 the run that ran out is left out of every mean (its two events
     * counted in their own columns) */
    CU_ASSERT(strstr(t, "<tr class=bad><td>bfc</td><td class=num>2</td><td class=num>1</td>"
                        "<td class=num>2</td><td class=num>1.00 MiB (n = 1)</td>"
                        "<td class=num>2.00 MiB (n = 1)</td><td class=num>50.0 % (n = 1)</td>")
              != NULL);
    CU_ASSERT(strstr(t, "25.0 %") == NULL);
    free(h);
    snprintf(args, sizeof args, "stats '%s/results.csv' --metric hbm.fragmentation_ratio", dir);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    CU_ASSERT(out && strstr(out, "\nbfc     1   0.5 "));
    free(out);
}

/* Every mean of the table leaves undefined cells out, each with its own count; a policy no run
 * of which defines a metric reads n/a (n = 0), not 0. */
static void test_report_every_mean(void)
{
    char *h = report_of("means",
        "run_id,run,policy,trace,status,hbm.peak_live_bytes,hbm.peak_reserved_bytes,"
        "hbm.fragmentation_ratio\n"
        "1,r1,a,t1,ok,1048576,2097152,0.5\n"
        "2,r2,a,t2,ok,,4194304,0.25\n"         /* live undefined: reserved mean 3 MiB */
        "3,r3,a,t3,ok,3145728,,\n"             /* reserved and ratio undefined */
        "4,r4,a,t4,failed,1,1,1\n"             /* a failed run counts nowhere */
        "5,r5,b,t1,ok,1024,2048,\n"
        "6,r6,b,t2,ok,1024,2048,\n");
    char *t = policy_table(h);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT(strstr(t, "<td>a</td><td class=num>3</td><td class=num>2.00 MiB (n = 2)</td>"
                        "<td class=num>3.00 MiB (n = 2)</td><td class=num>37.5 % (n = 2)</td>")
              != NULL);
    CU_ASSERT(strstr(t, "<td>b</td><td class=num>2</td><td class=num>1.00 KiB</td>"
                     "<td class=num>2.00 KiB</td><td class=num>n/a (n = 0)</td>") != NULL);
    free(h);
}

/* QA's regress check: 2 of 6 runs deviated from their expectations, which batch counts apart
 * from failures ("0 failed; 2 deviated"). The report said "6 runs, 4 succeeded" and left the
 * deviated runs out of every mean (caching's from 1 run), and stats did too: both now count a
 * deviated run's metrics, and the report marks it apart from a failure. */
static void test_report_deviation_counts(void)
{
    char *h = report_of("devrep",
        "run_id,run,policy,trace,status,hbm.peak_live_bytes,hbm.peak_reserved_bytes,error\n"
        "1,r1,caching,t1,ok,1048576,1048576,\n"
        "2,r2,caching,t2,deviation,1048576,3145728,t2.caching.expect: 1 metric moved\n"
        "3,r3,bfc,t1,ok,1048576,2097152,\n"
        "4,r4,bfc,t2,failed,,,boom\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    CU_ASSERT(strstr(h, "<p>4 runs, 3 succeeded (2 ok, 1 deviated from its expectation); "
                        "default memory level <b>hbm</b>") != NULL);
    CU_ASSERT(strstr(h, "<tr class=dev><td>2</td><td>r2</td>") != NULL);
    CU_ASSERT(strstr(h, "<tr class=bad><td>4</td><td>r4</td>") != NULL);
    CU_ASSERT(strstr(h, "<p>1 run deviated from its regress expectation: it finished") != NULL);
    char *t = policy_table(h);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT(strstr(t, "<td>caching</td><td class=num>2</td><td class=num>1.00 MiB</td>"
                        "<td class=num>2.00 MiB</td>") != NULL);
    CU_ASSERT(strstr(t, "<td>bfc</td><td class=num>1</td>") != NULL);
    free(h);
    char args[1200], *out = NULL;
    snprintf(args, sizeof args, "stats '%s/results.csv' --metric hbm.peak_reserved_bytes",
             tmp_path("devrep"));
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    CU_ASSERT(out && strstr(out, "\ncaching  2  2097152 B "));
    if (out && !strstr(out, "\ncaching  2  2097152 B "))
        fprintf(stderr, "\n%s", out);
    free(out);
}

/* A run that ran out of memory on the level served fewer requests and peaks lower: the
 * per-policy table counts its runs and events and leaves it out of the means, and the bar's
 * label says so (until 2026-11-27 bfc, 56 requests failed under a 50 GiB limit, showed as the
 * cheapest policy: 49.43 GiB against caching's 55.52 GiB). */
static void test_report_oom_left_out(void)
{
    char *h = report_of("oomrep",
        "run_id,run,policy,trace,status,ooms,hbm.peak_live_bytes,hbm.peak_reserved_bytes,"
        "hbm.fragmentation_ratio,hbm.ooms\n"
        "1,r1,bfc,t1,ok,56,1048576,1048576,0,56\n"      /* ran out: left out */
        "2,r2,bfc,t2,ok,0,4194304,8388608,0.5,0\n"
        "3,r3,caching,t1,ok,3,2097152,2097152,0,3\n"    /* every run ran out */
        "4,r4,lru,t1,ok,0,2097152,4194304,0.5,0\n");
    char *t = policy_table(h);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT(strstr(t, "mean over successful runs without out-of-memory events on any "
                        "level") != NULL);
    CU_ASSERT(strstr(t, "<th>runs out of memory (any level)</th>"
                        "<th>out-of-memory events (all levels)</th>") != NULL);
    CU_ASSERT(strstr(t, "<tr class=bad><td>bfc</td><td class=num>2</td><td class=num>1</td>"
                        "<td class=num>56</td><td class=num>4.00 MiB (n = 1)</td>"
                        "<td class=num>8.00 MiB (n = 1)</td><td class=num>50.0 % (n = 1)</td>")
              != NULL);
    CU_ASSERT(strstr(t, "<tr class=bad><td>caching</td><td class=num>1</td><td class=num>1</td>"
                        "<td class=num>3</td><td class=num>n/a (n = 0)</td>") != NULL);
    CU_ASSERT(strstr(t, "<tr><td>lru</td><td class=num>1</td><td class=num>0</td>"
                        "<td class=num>0</td><td class=num>2.00 MiB</td>") != NULL);
    char *rest = t + strlen(t) + 1;
    CU_ASSERT(strstr(rest, "is left out of the means") != NULL);
    CU_ASSERT(strstr(rest, "<text>bfc (OOM in 1 of 2)</text>") != NULL);
    CU_ASSERT(strstr(rest, "<text>caching (OOM in 1 of 1)</text>") != NULL);
    free(h);
}

/* QA's spill study: run 1 ran out of memory 7 times on host, none on hbm (the default level);
 * until 2026-11-27 the page read hbm.ooms only and said "0 runs out of memory", averaging run 1
 * in. Every count now covers all levels: the run's ooms, else the sum of its LEVEL.ooms cells;
 * the heat map marks the run's cell and the Runs table shows the total. */
static void test_report_oom_any_level(void)
{
    char *h = report_of("oomlevels",
        "run_id,run,memories.host.capacity,seed,policy,trace,status,ooms,hbm.peak_live_bytes,"
        "hbm.peak_reserved_bytes,hbm.fragmentation_ratio,hbm.ooms,host.ooms\n"
        "1,r1,100MiB,1,caching,t1,ok,7,1048576,1048576,0,0,7\n"
        "2,r2,1GiB,1,caching,t1,ok,0,2097152,4194304,0.5,0,0\n");
    char *t = policy_table(h);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT(strstr(t, "without out-of-memory events on any level") != NULL);
    CU_ASSERT(strstr(t, "<th>runs out of memory (any level)</th>"
                        "<th>out-of-memory events (all levels)</th>") != NULL);
    CU_ASSERT(strstr(t, "<tr class=bad><td>caching</td><td class=num>2</td><td class=num>1</td>"
                        "<td class=num>7</td><td class=num>2.00 MiB (n = 1)</td>"
                        "<td class=num>4.00 MiB (n = 1)</td>") != NULL);
    char *rest = t + strlen(t) + 1;
    CU_ASSERT(strstr(rest, "<text>caching (OOM in 1 of 2)</text>") != NULL);
    CU_ASSERT(strstr(rest, ">1 MiB OOM<") != NULL);     /* the heat map's cell of run 1 */
    CU_ASSERT(strstr(rest, ">4 MiB<") != NULL);
    CU_ASSERT(strstr(rest, "A cell marked OOM is a run that ran out of memory") != NULL);
    CU_ASSERT(strstr(rest, "<th>hbm ooms</th><th>ooms (all levels)</th>") != NULL);
    CU_ASSERT(strstr(rest, "<td class=num>0</td><td class=num>7</td>") != NULL);
    free(h);
    /* no run total (a hand-made table): the levels' counts are summed */
    h = report_of("oomsum",
        "run_id,run,policy,trace,status,hbm.peak_live_bytes,hbm.peak_reserved_bytes,"
        "hbm.fragmentation_ratio,hbm.ooms,hbm.stats.num_ooms,host.ooms\n"
        "1,r1,bfc,t1,ok,1048576,1048576,0,1,1,2\n"
        "2,r2,bfc,t2,ok,2097152,2097152,0,0,0,0\n");
    t = policy_table(h);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT(strstr(t, "<tr class=bad><td>bfc</td><td class=num>2</td><td class=num>1</td>"
                        "<td class=num>3</td><td class=num>2.00 MiB (n = 1)</td>") != NULL);
    free(h);
}

/* A trace that allocates nothing (one transfer) on a config of several levels: run printed the
 * level table's header over no rows and two blank lines, compare "lower bound 0 B (0 B)"
 * (until 2026-11-27). Now a one-line note, and the bound once. */
static void test_report_no_allocations(void)
{
    const char *tr = tu_write("noalloc.trace", "amsim-trace v1\ntransfer host hbm 1\n");
    char args[1600], *out = NULL;
    snprintf(args, sizeof args, "run -c '%s/configs/examples/gpu_spill.yaml' -t '%s'", tu_top(),
             tr);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT(strstr(out, "\n\nno allocations on any level\n\nlink ") != NULL);
    CU_ASSERT(strstr(out, "peak reserved") == NULL);
    CU_ASSERT(strstr(out, "\n\n\n") == NULL);
    free(out);
    out = NULL;
    snprintf(args, sizeof args, "compare -c '%s/configs/examples/gpu_spill.yaml' -t '%s' "
             "--policies bfc,caching", tu_top(), tr);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    CU_ASSERT(out && strstr(out, "\nlower bound 0 B: the trace's peak live bytes") != NULL);
    free(out);
}

/* QA's study: policy cells '#bfc' and "ca\nch" (as Python's csv writer quotes them) gave no
 * '#bfc' bar (gnuplot read its data line as a comment) and two bars 'ca' and 'ch'. Every label
 * now reaches the bar chart as written, its control bytes escaped as the tables escape them; a
 * quote, a backslash and a byte that is no UTF-8 too. */
static void test_report_bar_labels_as_written(void)
{
    char *h = report_of("barlab",
        "run_id,run,policy,trace,status,hbm.peak_live_bytes,hbm.peak_reserved_bytes\n"
        "1,r1,#bfc,t1,ok,1048576,2097152\n"
        "2,r2,\"ca\nch\",t1,ok,1048576,2097152\n"
        "3,r3,\"q\"\"d 'x'\",t1,ok,1048576,2097152\n"
        "4,r4,b\\s\\,t1,ok,1048576,2097152\n"
        "5,r5,x\351y,t1,ok,1048576,2097152\n"
        "6,r6,e\033[31m,t1,ok,1048576,2097152\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    char *svg = strstr(h, "<svg"), *end = svg ? strstr(svg, "</svg>") : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(end);
    if (!end)
        return; /* not reached: the assertion above is fatal (for the compiler's null check) */
    *end = 0; /* the bar chart alone */
    /* x\351y (Latin-1, no UTF-8) as \xe9: the page is utf-8 (until 2026-11-28 it went raw) */
    static const char *const want[] = {"<text>#bfc</text>", "<text>ca\\x0ach</text>",
                                       "<text>q\"d 'x'</text>", "<text>b\\s\\</text>",
                                       "<text>x\\xe9y</text>", "<text>e\\x1b[31m</text>"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        CU_ASSERT(strstr(svg, want[i]) != NULL);
        if (!strstr(svg, want[i]))
            fprintf(stderr, "\n  no bar label %s", want[i]);
    }
    CU_ASSERT(strstr(svg, "<text>ca</text>") == NULL);
    CU_ASSERT(strchr(svg, '\033') == NULL);
    free(h);
}

/* QA: a trace or config named with an ESC sequence (or a C1 CSI, UTF-8 C2 9B) and results.csv
 * cells "\x1b[2Jbfc" reached the terminal raw from run's header, mincap's and stats' tables, as
 * check escapes them. Every text table and header now prints them escaped; --json keeps JSON's
 * escapes, \u001b and \u009b. */
static void test_text_tables_escape_controls(void)
{
    char p[1200], args[3000], *out = NULL;
    const char *trace = tu_write("r\033[31mq\302\233.trace", "amsim-trace v1\nalloc 1 1MiB\n"
                                                             "free 1\n");
    snprintf(p, sizeof p, "%s/configs/default.yaml", tu_top());
    char *text = tu_slurp(p, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    const char *cfg = tu_write("c\033[2Jx.yaml", text);
    free(text);
    snprintf(args, sizeof args, "run -c '%s' -t '%s'", cfg, trace);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    CU_ASSERT(out && strstr(out, "r\\x1b[31mq\\xc2\\x9b.trace (native, 2 events"));
    CU_ASSERT(out && strstr(out, "\nconfig ") && strstr(out, "c\\x1b[2Jx.yaml"));
    CU_ASSERT(out && !strchr(out, '\033') && !strstr(out, "\302\233"));
    free(out);
    snprintf(args, sizeof args, "mincap -c '%s' -t '%s' --policies bfc", cfg, trace);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    CU_ASSERT(out && strstr(out, "r\\x1b[31mq\\xc2\\x9b.trace on level"));
    CU_ASSERT(out && !strchr(out, '\033') && !strstr(out, "\302\233"));
    free(out);
    snprintf(args, sizeof args, "run -c '%s' -t '%s' --json - -q", cfg, trace);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    CU_ASSERT(out && strstr(out, "r\\u001b[31mq\\u009b.trace\""));
    CU_ASSERT(out && !strchr(out, '\033') && !strstr(out, "\302\233"));
    free(out);
    const char *csv = tu_write("q7.csv", "p\302\233,k,x\n\033[2Jbfc,t1,1\n\033[2Jbfc,t2,2\n"
                                         "b,t1,3\nb,t2,5\n");
    snprintf(args, sizeof args, "stats '%s' --metric x --by 'p\302\233' --pair-on k --paired "
             "\"$(printf '\\033[2Jbfc,b')\"", csv);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    CU_ASSERT(out && strstr(out, "x by p\\xc2\\x9b (unit"));
    CU_ASSERT(out && strstr(out, "\n\\x1b[2Jbfc  2 "));
    CU_ASSERT(out && strstr(out, "\npaired \\x1b[2Jbfc - b on "));
    CU_ASSERT(out && !strchr(out, '\033') && !strstr(out, "\302\233"));
    if (out && strchr(out, '\033'))
        fprintf(stderr, "\n%s", out);
    free(out);
}

/* `amsim report DIR/` names DIR/report.html with one slash (it printed DIR//report.html), and
 * the page's title and heading name DIR as typed. */
static void test_report_path_one_slash(void)
{
    free(report_of("slash", "run_id,run,policy,trace,status,hbm.peak_live_bytes,"
                            "hbm.peak_reserved_bytes\n1,r1,bfc,t1,ok,1,2\n"));
    char args[1200], want[1200], *out = NULL;
    snprintf(args, sizeof args, "report '%s//'", tmp_path("slash"));
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    snprintf(want, sizeof want, "%s/report.html: ", tmp_path("slash"));
    CU_ASSERT(out && strncmp(out, want, strlen(want)) == 0);
    if (out && strncmp(out, want, strlen(want)) != 0)
        fprintf(stderr, "\n  %s", out);
    free(out);
    /* the title and the heading both name DIR as typed (until 2026-11-27 the title said
     * "amsim report: DIR") */
    snprintf(args, sizeof args, "%s/report.html", tmp_path("slash"));
    char *h = tu_slurp(args, NULL);
    snprintf(want, sizeof want, "<title>amsim study: %s//</title>", tmp_path("slash"));
    CU_ASSERT(h && strstr(h, want) != NULL);
    snprintf(want, sizeof want, "<h1>amsim study: %s//</h1>", tmp_path("slash"));
    CU_ASSERT(h && strstr(h, want) != NULL);
    free(h);
}

/* A DIR of any length: the report reads DIR/results.csv and writes DIR/report.html whole (until
 * 2026-11-27 both were cut at 1024 bytes: a 1012-byte DIR read DIR/results.cs and wrote
 * DIR/report.htm, status 0), and says "1 plot" for one (it said "1 plots"). A stats message
 * about a file under it keeps FILE:LINE:COL and the reason, the path shortened in its middle
 * (a 512-byte buffer cut the message before its position). */
static void test_report_long_dir(void)
{
    char dir[1400], p[1500], args[1700], *out = NULL, *err = NULL;
    int n = snprintf(dir, sizeof dir, "%s/long", tu_tmpdir());
    mkdir(dir, 0777);
    for (int level = 0; level < 5; level++) {
        dir[n++] = '/';
        memset(dir + n, level < 4 ? 'b' : 'c', 200);
        n += 200;
        dir[n] = 0;
        mkdir(dir, 0777);
    }
    CU_ASSERT_FATAL(strlen(dir) > 1024);
    static const char csv[] = "run_id,run,policy,trace,status,hbm.peak_live_bytes,"
                              "hbm.peak_reserved_bytes\n1,r1,bfc,t1,ok,1,2\n";
    snprintf(p, sizeof p, "%s/results.csv", dir);
    FILE *f = fopen(p, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs(csv, f);
    CU_ASSERT_FATAL(fclose(f) == 0);
    snprintf(args, sizeof args, "report '%s'", dir);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, &err), 0);
    char want[1600];
    snprintf(want, sizeof want, "%s/report.html: 1 plot\n", dir);
    CU_ASSERT(out && strcmp(out, want) == 0);
    if (!out || strcmp(out, want) != 0)
        fprintf(stderr, "\n  %s%s", out ? out : "(none)\n", err ? err : "");
    snprintf(p, sizeof p, "%s/report.html", dir);
    CU_ASSERT_EQUAL(access(p, F_OK), 0);
    free(out);
    free(err);
    err = NULL;
    snprintf(p, sizeof p, "%s/bad.csv", dir);
    f = fopen(p, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs("a,b\n1,2,3\n", f);
    CU_ASSERT_FATAL(fclose(f) == 0);
    snprintf(args, sizeof args, "stats '%s' --metric b", p);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 1);
    CU_ASSERT(err && strstr(err, "/bad.csv:2:5: 3 fields where the header has 2\n"));
    CU_ASSERT(err && strstr(err, "..."));
    if (!err || !strstr(err, "/bad.csv:2:5: 3 fields where the header has 2\n"))
        fprintf(stderr, "\n  %s", err ? err : "(none)\n");
    free(err);
}

/* `amsim stats DIR` says DIR is a folder, naming DIR/results.csv when there is one (it said
 * "DIR: empty file (no header line)"). */
static void test_stats_folder(void)
{
    free(report_of("statsdir", "run_id,run,policy,trace,status,hbm.peak_live_bytes,"
                               "hbm.peak_reserved_bytes\n1,r1,bfc,t1,ok,1,2\n"));
    const char *dir = tmp_path("statsdir");
    char args[1200], want[2600], *err = NULL;
    snprintf(args, sizeof args, "stats '%s/' --metric hbm.peak_live_bytes", dir);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 1);
    snprintf(want, sizeof want, "amsim stats: %s/: is a folder, not a results table (did you "
             "mean %s/results.csv?)\n", dir, dir);
    CU_ASSERT(err && strcmp(err, want) == 0);
    free(err);
    snprintf(args, sizeof args, "stats '%s' --metric hbm.peak_live_bytes", tu_tmpdir());
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 1);
    CU_ASSERT(err && strstr(err, ": is a folder, not a results table (give the results.csv that "
                                 "amsim batch writes)\n"));
    free(err);
}

/* Typos get hints: stats' --metric and --by name the columns ending in the name given, or the
 * close one; mincap's --level the close level and the levels there are (until 2026-11-27 "no
 * column 'peak_reserved_bytes'" and "no memory level 'hmb'" alone). */
static void test_typo_hints(void)
{
    const char *csv = tu_write("hints.csv", "run_id,run,memories.hbm.allocator."
                               "expandable_segments,policy,trace,status,hbm.peak_reserved_bytes,"
                               "host.peak_reserved_bytes\n1,r1,true,bfc,t,ok,5,6\n");
    static const struct {
        const char *opts, *hint;
    } cases[] = {
        {"--metric peak_reserved_bytes", "no column 'peak_reserved_bytes' (did you mean one of "
         "'hbm.peak_reserved_bytes', 'host.peak_reserved_bytes'?)\n"},
        {"--metric hbm.peak_reservd_bytes", "no column 'hbm.peak_reservd_bytes' (did you mean "
         "'hbm.peak_reserved_bytes'?)\n"},
        {"--metric hbm.peak_reserved_bytes --by expandable_segments", "no column "
         "'expandable_segments' (did you mean 'memories.hbm.allocator.expandable_segments'?)\n"},
        {"--metric hbm.peak_reserved_bytes --by polcy", "no column 'polcy' (did you mean "
         "'policy'?)\n"},
        {"--metric zzzz", "no column 'zzzz'\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char args[1200], want[1400], *err = NULL;
        snprintf(args, sizeof args, "stats '%s' %s", csv, cases[i].opts);
        snprintf(want, sizeof want, "amsim stats: %s: %s", csv, cases[i].hint);
        CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 1);
        CU_ASSERT(err && strcmp(err, want) == 0);
        if (!err || strcmp(err, want) != 0)
            fprintf(stderr, "\n  got:      %s  expected: %s", err ? err : "", want);
        free(err);
    }
    /* long matching names: as many whole names as fit, then ", ..." and the parenthesis
     * closed (until 2026-11-27 the fourth name was cut off and the message ended there) */
    char wide[4096], longname[130];
    memset(longname, 'x', 120);
    longname[120] = 0;
    int w = snprintf(wide, sizeof wide, "policy,status");
    for (int c = 0; c < 10; c++)
        w += snprintf(wide + w, sizeof wide - (size_t)w, ",%s%d.m", longname, c);
    snprintf(wide + w, sizeof wide - (size_t)w, "\na,ok,1,1,1,1,1,1,1,1,1,1\n");
    const char *wcsv = tu_write("hints_wide.csv", wide);
    char wargs[1200], *werr = NULL;
    snprintf(wargs, sizeof wargs, "stats '%s' --metric m", wcsv);
    CU_ASSERT_EQUAL(tu_amsim(wargs, NULL, &werr), 1);
    CU_ASSERT(werr && strstr(werr, "2.m', ...?)\n") && !strstr(werr, "3.m"));
    free(werr);
    const char *tr = tu_write("hints.trace", "amsim-trace v1\nalloc 1 1MiB\nfree 1\n");
    char args[2400], *err = NULL;
    snprintf(args, sizeof args, "mincap -c '%s/configs/default.yaml' -t '%s' --level hmb",
             tu_top(), tr);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 1);
    CU_ASSERT(err && strstr(err, "amsim mincap: no memory level 'hmb' in ") &&
              strstr(err, "configs/default.yaml (did you mean 'hbm'? levels: hbm, host, "));
    free(err);
}

/* Write DIR/runs/RUN/timeline.csv with a few rows of level hbm. */
static void write_timeline(const char *dirname, const char *run)
{
    char p[1200];
    mkdir(tmp_path(dirname), 0777);
    snprintf(p, sizeof p, "%s/runs", tmp_path(dirname));
    mkdir(p, 0777);
    snprintf(p, sizeof p, "%s/runs/%s", tmp_path(dirname), run);
    mkdir(p, 0777);
    snprintf(p, sizeof p, "%s/runs/%s/timeline.csv", tmp_path(dirname), run);
    FILE *f = fopen(p, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs("time_ps,seq,level,live_bytes,allocated_bytes,reserved_bytes\n"
          "0,0,hbm,1048576,1048576,2097152\n1000000,1,hbm,0,0,2097152\n", f);
    fclose(f);
}

/* The plots' axes are drawn in the units the tables choose (an 80 GiB device's peak on a GiB
 * axis, a 5 s run's timeline in s; KiB and ns at the other end): until 2026-11-28 always MiB
 * and us, 81920 on the axis beside the table's "80.00 GiB". */
static void test_report_axis_units(void)
{
    static const struct {
        const char *dir, *live, *reserved, *t_end, *bytes, *time;
    } c[] = {
        {"axbig", "64424509440", "85899345920", "5000000000000", ">GiB</text>", "(s)</text>"},
        {"axsmall", "2048", "4096", "500", ">KiB</text>", "(ns)</text>"},
        {"axmid", "1048576", "2097152", "3000000000", ">MiB</text>", "(ms)</text>"},
    };
    for (size_t i = 0; i < AM_ARRAY_LEN(c); i++) {
        char csv[512], p[1200];
        snprintf(csv, sizeof csv, "run_id,run,policy,trace,status,hbm.peak_live_bytes,"
                 "hbm.peak_reserved_bytes\n1,r1,bfc,t,ok,%s,%s\n", c[i].live, c[i].reserved);
        write_timeline(c[i].dir, "r1");
        snprintf(p, sizeof p, "%s/runs/r1/timeline.csv", tmp_path(c[i].dir));
        FILE *f = fopen(p, "w");
        CU_ASSERT_FATAL(f != NULL);
        fprintf(f, "time_ps,seq,level,live_bytes,allocated_bytes,reserved_bytes\n"
                "0,0,hbm,%s,%s,%s\n%s,1,hbm,0,0,%s\n", c[i].live, c[i].live, c[i].reserved,
                c[i].t_end, c[i].reserved);
        fclose(f);
        char *h = report_of(c[i].dir, csv);
        CU_ASSERT_PTR_NOT_NULL_FATAL(h);
        /* the bar chart's axis and the timeline's, each in the unit of its top value */
        CU_ASSERT_EQUAL(tu_count(h, c[i].bytes), 2);
        CU_ASSERT_EQUAL(tu_count(h, c[i].time), 2); /* live vs reserved, fragmentation */
        if (tu_count(h, c[i].bytes) != 2 || tu_count(h, c[i].time) != 2)
            fprintf(stderr, "\n  case %zu: %d %s, %d %s\n", i, tu_count(h, c[i].bytes),
                    c[i].bytes, tu_count(h, c[i].time), c[i].time);
        free(h);
    }
}

/* The first raw control byte of the page outside its own line breaks (a C0 byte, DEL, or a C1
 * control, UTF-8 C2 80..C2 9F), or NULL when there is none. A tab is the page's own only inside
 * an SVG, which gnuplot indents with tabs. */
static const char *raw_control(const char *h)
{
    int in_svg = 0;
    for (const unsigned char *p = (const unsigned char *)h; *p; p++) {
        if (strncmp((const char *)p, "<svg", 4) == 0)
            in_svg = 1;
        else if (strncmp((const char *)p, "</svg>", 6) == 0)
            in_svg = 0;
        if ((*p < 0x20 && *p != '\n' && !(in_svg && *p == '\t')) || *p == 0x7f ||
            (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
            return (const char *)p;
    }
    return NULL;
}

/* QA: a study whose cells, columns, level and folder carry control bytes (an ESC sequence, BEL,
 * DEL, a C1 CSI) got a report.html holding them raw, in the tables, the captions and (through
 * the plot titles and axis names) the SVG; the page now writes them as the text tables do,
 * \x1b and \xc2\x9b, besides its &, <, > and " entities. */
static void test_report_html_escapes_controls(void)
{
    static const char csv[] =
        "run_id,run,ax\033[1m,ay\302\233,policy,trace,status,h\033m.stats.x,"
        "h\033m.peak_live_bytes,h\033m.peak_reserved_bytes,error\n"
        "1,r1,a\007,b\177,p\033[31m<,t\302\233x,ok,1,1048576,2097152,\n"
        "2,r2,a2,b\177,p\033[31m<,t\302\233x,ok,1,1048576,2097152,\n"
        "3,r3,a\007,b2,p\033[31m<,t\302\233x,ok,1,1048576,2097152,\n"
        "4,r4,a2,b2,p\033[31m<,t\302\233x,ok,1,1048576,2097152,\n"
        "5,r5,a\007,b\177,q\302\233,t\302\233x,failed,1,,,\"e\033[2J\001\trr\"\n";
    static const char *const runs[] = {"r1", "r5"};
    const char *dirname = "ctl\033[1m\302\233";
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char p[1200];
        write_timeline(dirname, runs[i]); /* its folders; the rows are the level's below */
        snprintf(p, sizeof p, "%s/runs/%s/timeline.csv", tmp_path(dirname), runs[i]);
        FILE *f = fopen(p, "w");
        CU_ASSERT_FATAL(f != NULL);
        fputs("time_ps,seq,level,live_bytes,allocated_bytes,reserved_bytes\n"
              "0,0,h\033m,1048576,1048576,2097152\n1000000,1,h\033m,0,0,2097152\n", f);
        fclose(f);
    }
    char *h = report_of(dirname, csv);
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    const char *raw = raw_control(h);
    CU_ASSERT_PTR_NULL(raw);
    if (raw)
        fprintf(stderr, "\n  raw control byte 0x%02x at: %.80s\n", (unsigned char)*raw,
                raw > h + 40 ? raw - 40 : h);
    /* escaped as run, mincap and stats print them */
    CU_ASSERT(strstr(h, "<td>p\\x1b[31m&lt;</td>") != NULL);
    CU_ASSERT(strstr(h, "<td>t\\xc2\\x9bx</td>") != NULL);
    CU_ASSERT(strstr(h, "<td>e\\x1b[2J\\x01\\x09rr</td>") != NULL);
    CU_ASSERT(strstr(h, "<th>h\\x1bm peak_live_bytes</th>") != NULL);
    CU_ASSERT(strstr(h, "<h1>amsim study: ") && strstr(h, "ctl\\x1b[1m\\xc2\\x9b</h1>"));
    CU_ASSERT(strstr(h, "Policy p\\x1b[31m&lt;: h\\x1bm.peak_reserved_bytes in MiB over "
                        "ax\\x1b[1m and ay\\xc2\\x9b") != NULL);
    CU_ASSERT(strstr(h, "<h2>Memory over time (h\\x1bm)</h2>") != NULL);
    free(h);
}

/* The memory-over-time caption names the run plotted for each policy: when the first
 * successful run of a policy has no timeline.csv, the run shown instead and why, and a policy
 * with none at all has no line, said so (until 2026-11-27 another run was plotted silently
 * under "first run of each policy"). */
static void test_report_timeline_caption(void)
{
    static const char csv[] =
        "run_id,run,policy,trace,status,hbm.peak_live_bytes,hbm.peak_reserved_bytes\n"
        "1,r1-bfc,bfc,t,failed,,\n"
        "2,r2-bfc,bfc,t,ok,1048576,2097152\n"
        "3,r3-bfc,bfc,t,ok,1048576,2097152\n"
        "4,r4-caching,caching,t,ok,1048576,2097152\n"
        "5,r5-lifo,lifo,t,ok,1048576,2097152\n";
    /* all first runs have one */
    write_timeline("tlcap1", "r2-bfc");
    write_timeline("tlcap1", "r4-caching");
    write_timeline("tlcap1", "r5-lifo");
    char *h = report_of("tlcap1", csv);
    CU_ASSERT(h && strstr(h, "over simulated time, first successful run of each policy: bfc "
                             "r2-bfc, caching r4-caching, lifo r5-lifo.</figcaption>"));
    free(h);
    /* bfc's first (r2) has none: r3 is shown, and said; caching has none at all */
    write_timeline("tlcap2", "r3-bfc");
    write_timeline("tlcap2", "r5-lifo");
    h = report_of("tlcap2", csv);
    CU_ASSERT(h && strstr(h, "over simulated time, one successful run of each policy with a "
                             "timeline: bfc r3-bfc, lifo r5-lifo. bfc's first successful "
                             "run, r2-bfc, has no hbm timeline.csv rows, so r3-bfc is shown. No "
                             "line for caching: none of its successful runs (the first: "
                             "r4-caching) has hbm timeline.csv rows.</figcaption>"));
    if (h && !strstr(h, "so r3-bfc is shown"))
        fprintf(stderr, "\n  %s\n", strstr(h, "over simulated") ? strstr(h, "over simulated")
                                                                 : "(no timeline caption)");
    free(h);
}

/* A report plots the timelines of the first 4 inputs: with 6 it says so on the page (until
 * 2026-11-27 the other 2 were left out silently). */
static void test_report_timeline_limit_said(void)
{
    char csv[1024] = "run_id,run,policy,trace,status,hbm.peak_live_bytes,"
                     "hbm.peak_reserved_bytes\n";
    for (int k = 1; k <= 6; k++) {
        char run[16], row[128];
        snprintf(run, sizeof run, "r%d", k);
        write_timeline("tllimit", run);
        snprintf(row, sizeof row, "%d,%s,bfc,t%d,ok,1048576,2097152\n", k, run, k);
        strcat(csv, row);
    }
    char *h = report_of("tllimit", csv);
    CU_ASSERT(h && strstr(h, "<p>Memory over time is plotted for the first 4 of 6 inputs (trace, "
                             "seed and other axes, in table order); a report plots at most "
                             "4.</p>"));
    free(h);
    /* 4 inputs: no such note */
    h = report_of("tllimit4", "run_id,run,policy,trace,status,hbm.peak_live_bytes,"
                              "hbm.peak_reserved_bytes\n1,r1,bfc,t1,ok,1,2\n2,r2,bfc,t1,ok,1,2\n");
    CU_ASSERT(h && !strstr(h, "is plotted for the first"));
    free(h);
}

/* QA's s6: failed inputs first in the table (bad.trace) took the 4 timeline slots, so only one
 * successful input was drawn, under "plotted for the first 4 of 6 inputs". An input with no line
 * to draw takes no slot, and the note counts the inputs drawn. */
static void test_report_timeline_slots_drawn(void)
{
    char csv[1024] = "run_id,run,policy,trace,status,hbm.peak_live_bytes,"
                     "hbm.peak_reserved_bytes\n";
    for (int k = 1; k <= 8; k++) {
        char run[16], row[128];
        snprintf(run, sizeof run, "r%d", k);
        if (k > 3)
            write_timeline("tlslots", run);
        snprintf(row, sizeof row, "%d,%s,bfc,t%d,%s\n", k, run, k,
                 k > 3 ? "ok,1048576,2097152" : "failed,,");
        strcat(csv, row);
    }
    char *h = report_of("tlslots", csv);
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    CU_ASSERT_EQUAL(tu_count(h, "bytes of hbm over simulated time"), 4);
    CU_ASSERT(strstr(h, "<figcaption>t4: reserved") && strstr(h, "<figcaption>t7: reserved"));
    CU_ASSERT(NULL != strstr(h, "<p>Memory over time is plotted for the first 4 of 8 inputs (trace, "
                        "seed and other axes, in table order) that have a successful run with "
                        "timeline.csv rows of the level; a report plots at most 4.</p>"));
    free(h);
    /* 3 failed inputs and one drawn: every input tried, the note says so */
    h = report_of("tlslots2", "run_id,run,policy,trace,status,hbm.peak_live_bytes,"
                              "hbm.peak_reserved_bytes\n1,r1,bfc,t1,failed,,\n2,r2,bfc,t2,failed,,\n"
                              "3,r3,bfc,t3,failed,,\n4,r4,bfc,t4,ok,1,2\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    CU_ASSERT_EQUAL(tu_count(h, "bytes of hbm over simulated time"), 0); /* no timelines */
    free(h);
    write_timeline("tlslots3", "r4");
    h = report_of("tlslots3", "run_id,run,policy,trace,status,hbm.peak_live_bytes,"
                              "hbm.peak_reserved_bytes\n1,r1,bfc,t1,failed,,\n2,r2,bfc,t2,failed,,\n"
                              "3,r3,bfc,t3,failed,,\n4,r4,bfc,t4,ok,1,2\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    CU_ASSERT_EQUAL(tu_count(h, "bytes of hbm over simulated time"), 1);
    CU_ASSERT(NULL != strstr(h, "<p>Memory over time is plotted for 1 of 4 inputs (trace, seed and other "
                        "axes): the other 3 have no successful run with timeline.csv rows of the "
                        "level.</p>"));
    free(h);
}

/* QA's s12: a generated trace's seeds share the trace column ("gen:serve"); the timeline plots
 * are per input (trace and seed), so bfc on seed 2 is never drawn against caching on seed 1 (one
 * plot "gen:serve" did), and the plot title shows the trace as written, quotes and commas
 * included (it read a,b__q_). */
static void test_report_timeline_per_input(void)
{
    static const char csv[] =
        "run_id,run,policy,trace,seed,status,hbm.peak_live_bytes,hbm.peak_reserved_bytes\n"
        "1,r1-bfc,bfc,\"a,b \"\"q\"\"\",2,ok,1048576,2097152\n"
        "2,r2-caching,caching,\"a,b \"\"q\"\"\",1,ok,1048576,2097152\n"
        "3,r3-caching,caching,\"a,b \"\"q\"\"\",2,ok,1048576,2097152\n";
    write_timeline("tlseed", "r1-bfc");
    write_timeline("tlseed", "r2-caching");
    write_timeline("tlseed", "r3-caching");
    char *h = report_of("tlseed", csv);
    CU_ASSERT(h && strstr(h, "a,b &quot;q&quot; (seed = 2): reserved (solid) and live (dashed) "
                             "bytes of hbm over simulated time, first successful run of each "
                             "policy: bfc r1-bfc, caching r3-caching.</figcaption>"));
    CU_ASSERT(h && strstr(h, "a,b &quot;q&quot; (seed = 1): reserved (solid) and live (dashed) "
                             "bytes of hbm over simulated time, first successful run of each "
                             "policy: caching r2-caching.</figcaption>"));
    CU_ASSERT(h && strstr(h, "<text>a,b \"q\" (seed = 2): live vs reserved</text>"));
    free(h);
}

/* The figure of the page whose caption starts with cap (from its <figure> to its </figure>),
 * copied; NULL when there is none. */
static char *figure(const char *h, const char *cap)
{
    const char *c = h ? strstr(h, cap) : NULL, *f = c;
    while (f && f > h && strncmp(f, "<figure>", 8) != 0)
        f--;
    const char *end = c ? strstr(c, "</figure>") : NULL;
    if (!f || !end || f == h)
        return NULL;
    char *s = malloc((size_t)(end - f) + 1);
    memcpy(s, f, (size_t)(end - f));
    s[end - f] = 0;
    return s;
}

/* The distinct stroke colours ('rgb(...)') of an SVG. */
static int svg_colours(const char *svg)
{
    char seen[64][32];
    int n = 0;
    for (const char *p = svg; (p = strstr(p, "stroke='rgb(")) != NULL; p++) {
        char col[32];
        snprintf(col, sizeof col, "%.*s", (int)strcspn(p + 8, "'"), p + 8);
        int k = 0;
        while (k < n && strcmp(seen[k], col) != 0)
            k++;
        if (k == n && n < 64)
            snprintf(seen[n++], sizeof seen[0], "%s", col);
    }
    return n;
}

/* QA's study of all 9 policies on a snapshot: the memory-over-time and fragmentation plots drew
 * the first 8 and left tlsf out silently (the bar chart had all 9). Every policy up to 16 now has
 * a line of its own colour, and one past that is named in both captions. */
static void test_report_timeline_every_policy(void)
{
    char csv[4096] = "run_id,run,policy,trace,status,hbm.peak_live_bytes,"
                     "hbm.peak_reserved_bytes\n";
    for (int k = 1; k <= 17; k++) {
        char run[16], row[128];
        snprintf(run, sizeof run, "r%d", k);
        write_timeline("tlevery", run);
        snprintf(row, sizeof row, "%d,%s,p%d,t,ok,1048576,2097152\n", k, run, k);
        strcat(csv, row);
    }
    char *h = report_of("tlevery", csv);
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    CU_ASSERT(strstr(h, "first successful run of each policy: p1 r1, p2 r2, p3 r3, p4 r4, p5 r5, "
                        "p6 r6, p7 r7, p8 r8, p9 r9, p10 r10, p11 r11, p12 r12, p13 r13, p14 r14, "
                        "p15 r15, p16 r16. No line for 1 more policy (at most 16 policies are "
                        "drawn, the first in table order): p17.</figcaption>") != NULL);
    CU_ASSERT(strstr(h, "share of reserved memory not allocated, over time. No line for 1 more "
                        "policy (at most 16 policies are drawn, the first in table order): "
                        "p17.</figcaption>") != NULL);
    char *mem = figure(h, "t: reserved (solid)"), *frag = figure(h, "t: share of reserved");
    CU_ASSERT(mem && strstr(mem, "p9 reserved") && strstr(mem, "p16 live") &&
              !strstr(mem, "p17 reserved"));
    CU_ASSERT(frag && strstr(frag, ">p9<") && strstr(frag, ">p16<") && !strstr(frag, ">p17<"));
    /* 16 lines, 16 colours (gnuplot's own line types repeat after 8) */
    CU_ASSERT(mem && svg_colours(mem) == 16);
    CU_ASSERT(frag && svg_colours(frag) == 16);
    if (mem && svg_colours(mem) != 16)
        fprintf(stderr, "\n  memory plot: %d colours\n", svg_colours(mem));
    free(mem);
    free(frag);
    free(h);
}

/* QA's hand-edited study: a policy cell with a blank and quotes keeps them in the timeline
 * plots' keys, as in the bar chart (until 2026-11-28 the keys said my__bfc_: the titles went
 * to gnuplot as a word list); and a study of one run says "1 run" (it said "1 runs"). */
static void test_report_timeline_titles_as_written(void)
{
    write_timeline("tltitle", "r1");
    char *h = report_of("tltitle", "run_id,run,policy,trace,status,hbm.peak_live_bytes,"
                                   "hbm.peak_reserved_bytes\n1,r1,\"my \"\"bfc\"\"\",t,ok,1048576,"
                                   "2097152\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    char *mem = figure(h, "t: reserved (solid)"), *frag = figure(h, "t: share of reserved");
    CU_ASSERT(mem && strstr(mem, ">my \"bfc\" reserved<") &&
              strstr(mem, ">my \"bfc\" live<"));
    CU_ASSERT(frag && strstr(frag, ">my \"bfc\"<"));
    if (!mem || !strstr(mem, ">my \"bfc\" live<"))
        fprintf(stderr, "\n  memory plot: %.2000s\n", mem ? mem : "(none)");
    CU_ASSERT(strstr(h, "<p>1 run, 1 succeeded") != NULL);
    free(mem);
    free(frag);
    free(h);
}

/* The distinct stroke colours of an SVG in the order they first appear, joined by ';' into out
 * (n bytes). */
static void svg_colour_order(const char *svg, char *out, size_t n)
{
    out[0] = 0;
    for (const char *p = svg; (p = strstr(p, "stroke='rgb(")) != NULL; p++) {
        char col[40];
        snprintf(col, sizeof col, "%.*s;", (int)strcspn(p + 8, "'"), p + 8);
        if (!strstr(out, col) && strlen(out) + strlen(col) < n)
            strcat(out, col);
    }
}

/* The timeline scripts' palette is one file, analysis/timeline_palette.gp, which both load
 * (until 2026-11-27 each held a copy of it): neither defines the colours itself; amsim report
 * finds the palette beside the scripts, through an $AMSIM_ANALYSIS with a space and a quote in
 * its name too, while gnuplot runs in its scratch folder, and both plots of an input draw the
 * policies in the same colours; a script run by hand from another folder finds it too. */
static void test_report_timeline_palette_shared(void)
{
    static const char *const scripts[] = {"memory_over_time.gp", "fragmentation_over_time.gp"};
    char p[1200], args[3000];
    for (size_t i = 0; i < sizeof scripts / sizeof scripts[0]; i++) {
        snprintf(p, sizeof p, "%s/analysis/%s", tu_top(), scripts[i]);
        char *text = tu_slurp(p, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(text);
        CU_ASSERT(strstr(text, "load analysis_dir.\"timeline_palette.gp\"") != NULL);
        CU_ASSERT(strstr(text, "\ncolors =") == NULL && strstr(text, "\ncolor(i) =") == NULL);
        free(text);
    }
    /* the scripts copied to a folder whose name needs quoting */
    char adir[1100];
    snprintf(adir, sizeof adir, "%s", tmp_path("an a'l")); /* tmp_path's buffers rotate */
    CU_ASSERT_FATAL(mkdir(adir, 0777) == 0);
    snprintf(args, sizeof args, "cp '%s'/analysis/*.gp \"%s\"", tu_top(), adir);
    CU_ASSERT_EQUAL_FATAL(system(args), 0);
    char csv[1024] = "run_id,run,policy,trace,status,hbm.peak_live_bytes,"
                     "hbm.peak_reserved_bytes\n";
    for (int k = 1; k <= 3; k++) {
        char run[16], row[128];
        snprintf(run, sizeof run, "r%d", k);
        write_timeline("tlpal", run);
        snprintf(row, sizeof row, "%d,%s,p%d,t,ok,1048576,2097152\n", k, run, k);
        strcat(csv, row);
    }
    setenv("AMSIM_ANALYSIS", adir, 1);
    char *h = report_of("tlpal", csv);
    unsetenv("AMSIM_ANALYSIS");
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    CU_ASSERT(strstr(h, "plot failed") == NULL);
    char *mem = figure(h, "t: reserved (solid)"), *frag = figure(h, "t: share of reserved");
    CU_ASSERT_FATAL(mem && frag);
    char mc[512], fc[512];
    svg_colour_order(mem, mc, sizeof mc);
    svg_colour_order(frag, fc, sizeof fc);
    CU_ASSERT_STRING_EQUAL(mc, fc);
    CU_ASSERT(strstr(mc, "rgb(148,   0, 211)") || strstr(mc, "rgb(148, 0, 211)")); /* #9400d3 */
    free(mem);
    free(frag);
    free(h);
    /* by hand, from the study's folder: the palette is found beside the script (ARG0) */
    snprintf(args, sizeof args, "cd '%s' && printf '0 1048576 2097152 1048576\\n' > a.dat && "
             "gnuplot -e 'files=\"a.dat\"; titles=\"bfc\"; out=\"m.svg\"' "
             "'%s/analysis/memory_over_time.gp' 2>/dev/null", tmp_path("tlpal"), tu_top());
    CU_ASSERT_EQUAL(system(args), 0);
    snprintf(p, sizeof p, "%s/m.svg", tmp_path("tlpal"));
    char *svg = tu_slurp(p, NULL);
    CU_ASSERT(svg && strstr(svg, "</svg>"));
    free(svg);
}

/* A sweep over two axes with policies bfc and caching and two traces: one heat map per policy,
 * each at its own values, the caption naming the policy and what the other dimensions are held
 * at. There used to be one map, at the first run's policy (bfc: every cell 2048 MiB, while
 * caching's cells are 1600-1880 MiB), and a caption naming neither. A run that leaves the
 * metric undefined leaves its cell empty (it read "0 B"). */
static void test_report_heatmap_per_policy(void)
{
    char *h = report_of("heat-pol",
        "run_id,run,memories.hbm.allocator.max_split_size,"
        "memories.hbm.allocator.expandable_segments,policy,trace,status,"
        "hbm.peak_reserved_bytes,hbm.peak_live_bytes,hbm.fragmentation_ratio\n"
        "1,r1,unlimited,false,bfc,t1,ok,2147483648,1000,0.1\n"
        "2,r2,16MiB,false,bfc,t1,ok,2147483648,1000,0.1\n"
        "3,r3,unlimited,true,bfc,t1,ok,2147483648,1000,0.1\n"
        "4,r4,16MiB,true,bfc,t1,ok,2147483648,1000,0.1\n"
        "5,r5,unlimited,false,bfc,t2,ok,1048576,1000,0.1\n"
        "6,r6,unlimited,false,caching,t1,ok,1677721600,1000,0.1\n"   /* 1600 MiB */
        "7,r7,16MiB,false,caching,t1,ok,1681915904,1000,0.1\n"       /* 1604 MiB */
        "8,r8,unlimited,true,caching,t1,ok,1971322880,1000,0.1\n"    /* 1880 MiB */
        "9,r9,16MiB,true,caching,t1,ok,,1000,\n"                     /* undefined */
        "10,r10,unlimited,false,caching,t2,ok,1047527424,1000,0.1\n"); /* 999 MiB */
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    static const char axes[] = "hbm.peak_reserved_bytes in MiB over "
        "memories.hbm.allocator.max_split_size and memories.hbm.allocator.expandable_segments; "
        "held at trace = t1.</figcaption>";
    char cap[512];
    snprintf(cap, sizeof cap, "<figcaption>Policy bfc: %s", axes);
    char *b = figure(h, cap);
    snprintf(cap, sizeof cap, "<figcaption>Policy caching: %s", axes);
    char *c = figure(h, cap);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(tu_count(h, "<figcaption>Policy "), 2);
    CU_ASSERT_EQUAL(tu_count(b, ">2048 MiB<"), 4);
    CU_ASSERT_EQUAL(tu_count(b, " MiB<"), 4);
    CU_ASSERT_EQUAL(tu_count(c, ">1600 MiB<"), 1);
    CU_ASSERT_EQUAL(tu_count(c, ">1604 MiB<"), 1);
    CU_ASSERT_EQUAL(tu_count(c, ">1880 MiB<"), 1);
    CU_ASSERT_EQUAL(tu_count(c, " MiB<") + tu_count(c, " B<"), 3);
    CU_ASSERT(strstr(c, "2048 MiB") == NULL && strstr(c, "999 MiB") == NULL);
    CU_ASSERT(strstr(b, "caching") == NULL);
    free(b);
    free(c);
    free(h);
}

/* The heat map's SVG (from the "Two-axis sweep" heading to its </svg>), copied; NULL without. */
static char *heat_svg(const char *h)
{
    const char *a = h ? strstr(h, "Two-axis sweep") : NULL, *b = a ? strstr(a, "</svg>") : NULL;
    if (!b)
        return NULL;
    char *s = malloc((size_t)(b - a) + 1);
    memcpy(s, a, (size_t)(b - a));
    s[b - a] = 0;
    return s;
}

/* QA's s3 and s9: a heat map axis value of 64 bytes or more was cut to 63 and split into
 * duplicate columns, from the 65th value on cells were left out silently, and tick labels had
 * spaces and quotes turned into _. Every value is kept whole and drawn, its label as written. */
static void test_report_heatmap_axis_values_whole(void)
{
    char longv[80], csv[16384] = "run_id,run,ax,ay,policy,trace,status,hbm.peak_live_bytes,"
                                 "hbm.peak_reserved_bytes\n";
    memset(longv, '5', 70);
    longv[0] = '0';
    longv[1] = '.';
    longv[70] = 0;
    size_t used = strlen(csv);
    /* two long values that agree in their first 63 bytes, against "a b" and a quoted value */
    static const char *const ys[] = {"a b", "\"q\"\"x\""};
    for (int k = 0; k < 4; k++)
        used += (size_t)snprintf(csv + used, sizeof csv - used, "%d,r%d,%s%d,%s,bfc,t,ok,1,"
                                 "1048576\n", k + 1, k + 1, longv, k % 2, ys[k / 2]);
    char *h = report_of("heatlong", csv);
    char *svg = heat_svg(h);
    CU_ASSERT_PTR_NOT_NULL_FATAL(svg);
    CU_ASSERT_EQUAL(tu_count(svg, ">1 MiB<"), 4);
    char tick[100];
    snprintf(tick, sizeof tick, ">%s0<", longv);
    CU_ASSERT_EQUAL(tu_count(svg, tick), 1);
    snprintf(tick, sizeof tick, ">%s1<", longv);
    CU_ASSERT_EQUAL(tu_count(svg, tick), 1);
    CU_ASSERT(strstr(svg, ">a b<") != NULL);
    CU_ASSERT(strstr(svg, ">q&quot;x<") != NULL || strstr(svg, ">q\"x<") != NULL);
    CU_ASSERT(strstr(svg, "a_b") == NULL);
    free(svg);
    free(h);
    /* 66 values of one axis: 66 cells, every tick */
    strcpy(csv, "run_id,run,ax,ay,policy,trace,status,hbm.peak_live_bytes,"
                "hbm.peak_reserved_bytes\n");
    used = strlen(csv);
    for (int k = 1; k <= 66; k++)
        used += (size_t)snprintf(csv + used, sizeof csv - used, "%d,r%d,%dus,1us,bfc,t,ok,1,"
                                 "1048576\n", k, k, k);
    h = report_of("heat66", csv);
    svg = heat_svg(h);
    CU_ASSERT_PTR_NOT_NULL_FATAL(svg);
    CU_ASSERT_EQUAL(tu_count(svg, ">1 MiB<"), 66);
    CU_ASSERT(strstr(svg, ">66us<") != NULL && strstr(svg, ">65us<") != NULL);
    free(svg);
    free(h);
}

/* stats names the unit of every metric whose name says it and prints whole numbers in full:
 * hbm.capacity and hbm.stats.allocated_bytes.peak said "unit: as in the table" and printed
 * 2.14748e+09. */
static void test_stats_units_exact(void)
{
    char csv[600], js[600];
    snprintf(js, sizeof js, "%s", tu_write("units.json", ""));
    snprintf(csv, sizeof csv, "%s", tu_write("units.csv",
        "run_id,run,policy,status,hbm.capacity,hbm.stats.allocated_bytes.peak,"
        "hbm.stats.segment.peak,hbm.max_external_fragmentation,allocator_seconds,"
        "hbm.reserved_unallocated_at_peak,hbm.stats.plan_gap_fraction,knob\n"
        "1,r1,a,ok,2147483648,1635780096,29,0.25,0.5,4096,0.125,3\n"
        "2,r2,a,ok,2147483648,1635780097,30,0.5,1,4096,0.125,4\n"));
    static const struct { const char *metric, *unit, *row; } cases[] = {
        {"hbm.capacity", "bytes", "\na       2  2147483648 B  0 B  2147483648 B  2147483648 B\n"},
        {"hbm.stats.allocated_bytes.peak", "bytes", "\na       2  1635780096.50 B  0.71 B  "
                                                    "1635780090.15 B  1635780102.85 B\n"},
        {"hbm.stats.segment.peak", "count", "\na       2  29.50  0.71     23.15      35.85\n"},
        {"hbm.max_external_fragmentation", "fraction", "\na       2  0.375  0.176777 "},
        {"allocator_seconds", "seconds", "\na       2  0.75 s  0.353553 s "},
        {"hbm.reserved_unallocated_at_peak", "bytes", "\na       2  4096 B  0 B    4096 B "},
        {"hbm.stats.plan_gap_fraction", "fraction", "\na       2  0.125   0     0.125 "},
        {"knob", "unknown, as in the table", "\na       2   3.5  0.707107 "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char args[1400], want[256], *out = NULL;
        snprintf(args, sizeof args, "stats '%s' --metric %s --json '%s'", csv, cases[i].metric,
                 js);
        CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
        snprintf(want, sizeof want, "%s by policy (unit: %s; 95%% CI", cases[i].metric,
                 cases[i].unit);
        int ok = out && strstr(out, want) && strstr(out, cases[i].row);
        CU_ASSERT(ok);
        if (!ok)
            printf("\n  stats --metric %s:\n%s", cases[i].metric, out ? out : "(none)");
        free(out);
        char *j = tu_slurp(js, NULL);
        snprintf(want, sizeof want, "\"unit\": \"%s\"", strncmp(cases[i].unit, "unknown", 7)
                 ? cases[i].unit : "unknown");
        CU_ASSERT(j && strstr(j, want));
        free(j);
    }
}

/* QA: finite values whose squares overflow (1e200, 3e200) had sd and CI n/a, and a paired test
 * of such differences said t = 0, p = 1; the sd is now computed scaled (ordinary data keep
 * their digits: the other stats tests). */
static void test_stats_huge_values(void)
{
    char csv[600], args[1400], *out = NULL;
    snprintf(csv, sizeof csv, "%s", tu_write("huge.csv", "policy,seed,status,peak\n"
                                                         "a,1,ok,1e200\na,2,ok,3e200\n"
                                                         "b,1,ok,0\nb,2,ok,0\n"));
    snprintf(args, sizeof args, "stats '%s' --metric peak --paired a,b", csv);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    /* beyond 2^64 the fewest digits that read back, as in the JSON (test_stats_big_numbers) */
    CU_ASSERT(out && strstr(out, "\na       2  2e+200  1.414213562373095e+200  "
                                 "-1.0706204736174697e+201  1.4706204736174695e+201\n"));
    CU_ASSERT(out && strstr(out, "  mean difference         2e+200  sd 1.414213562373095e+200\n"
                                 "  95% CI          -1.0706204736174697e+201 .. "
                                 "1.4706204736174695e+201\n"
                                 "  t = 2, df = 1, two-sided p = 0.295167\n"));
    if (out && !strstr(out, "1.414213562373095e+200"))
        printf("\n  stats:\n%s", out);
    free(out);
}

/* QA: the mirror case, values whose squares underflow (3e-200, 1e-200): until 2026-11-28 sd 0,
 * and a paired test of such differences said t = +infinity, p = 0; now the figures of 3e-100
 * and 1e-100, 100 orders down. */
static void test_stats_tiny_values(void)
{
    char csv[600], args[1400], *out = NULL;
    snprintf(csv, sizeof csv, "%s", tu_write("tiny.csv", "run,policy,trace,seed,status,x_seconds\n"
                                             "r1,a,t,1,ok,3e-200\nr2,b,t,1,ok,0\n"
                                             "r3,a,t,2,ok,1e-200\nr4,b,t,2,ok,0\n"));
    snprintf(args, sizeof args, "stats '%s' --metric x_seconds --paired a,b", csv);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    CU_ASSERT(out && strstr(out, "\na       2  2e-200 s  1.41421e-200 s  -1.07062e-199 s  "
                                 "1.47062e-199 s\n"));
    CU_ASSERT(out && strstr(out, "  mean difference       2e-200 s  sd 1.41421e-200 s\n"
                                 "  95% CI          -1.07062e-199 s .. 1.47062e-199 s\n"
                                 "  t = 2, df = 1, two-sided p = 0.295167\n"));
    if (out && !strstr(out, "sd 1.41421e-200 s"))
        printf("\n  stats:\n%s", out);
    free(out);
}

/* QA: a run whose makespan is near the 2^64 ps limit (18446744.073709551613 s in results.csv)
 * showed `0 ps` in the Runs table: the double times 1e12 rounded to 2^64, which wrapped. The
 * cell is now read exactly; a byte count of 2^64 - 1 likewise. */
static void test_report_makespan_near_limit(void)
{
    char *h = report_of("nearlimit", "run_id,run,policy,trace,status,error,makespan_seconds,"
                        "hbm.peak_live_bytes,hbm.peak_reserved_bytes\n1,r1,bfc,t.trace,ok,,"
                        "18446744.073709551613,18446744073709551615,1024\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    const char *runs = strstr(h, "<h2>Runs</h2>");
    CU_ASSERT(runs && strstr(runs, "<td class=num>18446744.074 s</td>"));
    CU_ASSERT(runs && strstr(runs, "<td class=num>16.00 EiB</td>"));
    CU_ASSERT(runs && !strstr(runs, ">0 ps<"));
    free(h);
}

/* QA: a policy name of 64 bytes or more was cut to 63 and split into one per-policy row per run,
 * and a 33rd distinct policy was left out of the table and the bars. Policies are grouped by
 * their whole cell, as `amsim stats --by policy` groups them, as many as there are. */
static void test_report_policy_groups_whole(void)
{
    char name[80], csv[8192] = "run_id,run,policy,trace,status,hbm.peak_live_bytes,"
                               "hbm.peak_reserved_bytes\n";
    memset(name, 'p', 70);
    name[70] = 0;
    size_t used = strlen(csv);
    for (int k = 1; k <= 2; k++) /* the long one, twice */
        used += (size_t)snprintf(csv + used, sizeof csv - used, "%d,r%d,%s,t,ok,1048576,%d\n", k,
                                 k, name, k * 2097152);
    for (int k = 3; k <= 42; k++) /* 40 more */
        used += (size_t)snprintf(csv + used, sizeof csv - used, "%d,r%d,pol%02d,t,ok,1048576,"
                                 "2097152\n", k, k, k);
    char *h = report_of("polwhole", csv);
    char *t = policy_table(h);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    char row[160];
    snprintf(row, sizeof row, "<tr><td>%s</td><td class=num>2</td>", name);
    CU_ASSERT_EQUAL(tu_count(t, row), 1);
    CU_ASSERT(strstr(t, "<td class=num>3.00 MiB</td>") != NULL); /* the mean of both runs */
    CU_ASSERT(strstr(t, "<tr><td>pol42</td>") != NULL);
    CU_ASSERT_EQUAL(tu_count(t, "<tr>"), 1 + 41); /* the header and 41 policies */
    free(h);
}

/* QA: a per-policy byte mean at or above 2^64 printed raw, "1.8446744073709552e+19 B"; sizes
 * print in the largest binary unit up to EiB, past 16 EiB too, in the means and the Runs table
 * alike. */
static void test_report_sizes_past_2_64(void)
{
    char *h = report_of("past264", "run_id,run,policy,trace,status,hbm.peak_live_bytes,"
                        "hbm.peak_reserved_bytes\n"
                        "1,r1,bfc,t,ok,18446744073709551615,27670116110564327424\n"
                        "2,r2,bfc,t,ok,18446744073709551615,27670116110564327424\n"
                        "3,r3,lifo,t,ok,1e40,1e40\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    CU_ASSERT(strstr(h, "e+19") == NULL && strstr(h, "e+40 B") == NULL);
    char *t = policy_table(h);
    CU_ASSERT(t && strstr(t, "<td class=num>16.00 EiB</td><td class=num>24.00 EiB</td>"));
    CU_ASSERT(t && strstr(t, "<td class=num>8673617379884035735552.00 EiB</td>"));
    free(h);
}

/* Figures past a double's whole numbers (2^53) from plain-decimal cells are exact: the mean as
 * sum / n, the sd from exact deviations, the CI ends to the hundredth; a figure that can only be
 * approximate prints the digits its double holds. Until 2026-11-27 each was gsl's double
 * printed in full: 18446744073709551615 had mean 18446744073709551616 B, 9007199254740993 had
 * 9007199254740992 B, and 1000000000000000001 and ...003 had mean 1000000000000000000 B, sd 0. */
static void test_stats_exact_figures(void)
{
    char csv[600], args[1400], *out = NULL;
    snprintf(csv, sizeof csv, "%s", tu_write("exact5.csv", "policy,m_bytes\n"
        "a,18446744073709551615\nb,9007199254740993\n"
        "c,1000000000000000001\nc,1000000000000000003\n"
        "d,0\nd,18446744073709551615\n"));
    snprintf(args, sizeof args, "stats '%s' --metric m_bytes", csv);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    /* the cells' widths are the widest's: look for each figure with its unit */
    CU_ASSERT(out && strstr(out, " 18446744073709551615 B "));
    CU_ASSERT(out && strstr(out, " 9007199254740993 B "));
    CU_ASSERT(out && strstr(out, " 1000000000000000002 B ") && strstr(out, " 1.41 B "));
    /* 1e18 + 2 -+ 12.7062047...: .2938 and .7062, each rounded once (the low end was .30
     * when the half-width was rounded before the end) */
    CU_ASSERT(out && strstr(out, " 999999999999999989.29 B ") &&
              strstr(out, " 1000000000000000014.71 B\n"));
    /* d's mean is exact to the hundredth; its sd only as a double: 17 digits, not 20 */
    CU_ASSERT(out && strstr(out, " 9223372036854775807.50 B  1.3043817825332783e+19 B "));
    CU_ASSERT(out && !strstr(out, "18446744073709551616") && !strstr(out, "9007199254740992"));
    if (out && !strstr(out, "1000000000000000002 B"))
        printf("\n  stats:\n%s", out);
    free(out);
    out = NULL;
    snprintf(args, sizeof args, "stats '%s' --metric m_bytes --json - -q", csv);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    CU_ASSERT(out && strstr(out, "\"mean\": 18446744073709551615,"));
    CU_ASSERT(out && strstr(out, "\"mean\": 1000000000000000002,"));
    free(out);
}

/* QA: stats' text numbers by one rule. A whole number up to 2^64 prints in full, without
 * decimals: the mean 9007199254740991 (a mean from 2^53 on was 9.0072e+15), the mean of
 * 18446744073709551615 exactly (it was 18446744073709551616.00 B, and 1.84467e+19 without a
 * unit; until 2026-11-27 then 18446744073709551616, the double beyond the data). Beyond 2^64 the fewest
 * digits that read back, as in the JSON: 1e+70 B (it was a wrong 63-digit integer, %.2f cut to
 * its 64-byte cell, without B). */
static void test_stats_big_numbers(void)
{
    char csv[600], args[1400], *out = NULL;
    snprintf(csv, sizeof csv, "%s", tu_write("big5.csv", "run,policy,trace,seed,status,m,m_bytes\n"
        "r1,a,t,1,ok,2147483648,2147483648\nr2,a,t,2,ok,2147483648,2147483648\n"
        "r3,b,t,1,ok,9007199254740992,9007199254740992\n"
        "r4,b,t,2,ok,9007199254740990,9007199254740990\n"
        "r5,c,t,1,ok,18446744073709551615,18446744073709551615\n"
        "r6,c,t,2,ok,18446744073709551615,18446744073709551615\n"
        "r7,d,t,1,ok,1e70,1e70\nr8,d,t,2,ok,1e70,1e70\n"));
    snprintf(args, sizeof args, "stats '%s' --metric m", csv);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    /* b's CI ends are exact to the hundredth as a byte group's are (test_stats_exact_one_rule;
     * until 2026-11-28 unitless ends were the doubles, 9007199254740978 and ...1004) */
    CU_ASSERT(out && strstr(out, "\nb       2      9007199254740991  1.41421   "
                                 "9007199254740978.29   9007199254741003.71\n"
                                 "c       2  18446744073709551615        0  "
                                 "18446744073709551615  18446744073709551615\n"
                                 "d       2                 1e+70        0                 "
                                 "1e+70                 1e+70\n"));
    if (out && !strstr(out, "9007199254741003.71\n"))
        printf("\n  stats:\n%s", out);
    free(out);
    out = NULL;
    snprintf(args, sizeof args, "stats '%s' --metric m_bytes", csv);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    CU_ASSERT(out && strstr(out, "\nc       2  18446744073709551615 B     0 B  "
                                 "18446744073709551615 B  18446744073709551615 B\n"
                                 "d       2                 1e+70 B     0 B  "
                                 "               1e+70 B                 1e+70 B\n"));
    CU_ASSERT(out && !strstr(out, ".00 B"));
    if (out && !strstr(out, "1e+70 B\n"))
        printf("\n  stats:\n%s", out);
    free(out);
}

/* QA: paired differences. Finite values whose differences overflow (1.5e308 - -1.5e308) are
 * halved, exactly, for t: t = 5, p = 0.126, the mean difference n/a (it said "t = -infinity
 * (every difference is n/a, sd 0) ... p = 0", a false significant result). Picosecond-exact
 * _seconds cells whose differences are all 0.002 s are subtracted as exact decimals: "every
 * difference is 0.002 s" (the doubles' differences were 1e-15 apart: t = 3.4e12). */
static void test_stats_paired_exact_differences(void)
{
    char csv[600], args[1400], *out = NULL;
    snprintf(csv, sizeof csv, "%s", tu_write("ovf.csv", "run,policy,trace,seed,status,m\n"
        "r1,a,t,1,ok,1.5e308\nr2,a,t,2,ok,1e308\nr3,b,t,1,ok,-1.5e308\nr4,b,t,2,ok,-1e308\n"));
    snprintf(args, sizeof args, "stats '%s' --metric m --paired a,b", csv);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    CU_ASSERT(out && strstr(out, "  mean difference            n/a  sd 7.071067811865476e+307\n"
                                 "  95% CI                     n/a ..            n/a\n"
                                 "  t = 5, df = 1, two-sided p = 0.125666\n"));
    if (out && !strstr(out, "t = 5,"))
        printf("\n  stats:\n%s", out);
    free(out);
    out = NULL;
    snprintf(csv, sizeof csv, "%s", tu_write("ps.csv",
        "run,policy,trace,seed,status,makespan_seconds\n"
        "r1,a,t,1,ok,10.414853674127\nr2,a,t,2,ok,11.661652647307\nr3,a,t,3,ok,10.198\n"
        "r4,b,t,1,ok,10.412853674127\nr5,b,t,2,ok,11.659652647307\nr6,b,t,3,ok,10.196\n"));
    snprintf(args, sizeof args, "stats '%s' --metric makespan_seconds --paired a,b", csv);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    CU_ASSERT(out && strstr(out, "  mean difference        0.002 s  sd            0 s\n"));
    CU_ASSERT(out && strstr(out, "  t = +infinity (every difference is 0.002 s, sd 0), df = 2, "
                                 "two-sided p = 0\n"));
    if (out && !strstr(out, "every difference is 0.002 s"))
        printf("\n  stats:\n%s", out);
    free(out);
}

/* QA: --paired differences from 2^53 on take the group rows' exact path (exact_figures): a -
 * b of 1000000000000000001 - 0 and 1000000000000000003 - 0 has mean 1000000000000000002 B, sd
 * 1.41 B and a finite t, in the text and the JSON; "every difference is X" only when they all
 * are (until 2026-11-28 each difference was a double: mean 1e+18 B, sd 0, t = +infinity). Exact
 * differences that differ in their 19th digit are not all equal either: sd not 0. */
static void test_stats_paired_past_2_53(void)
{
    char csv[600], args[1400], *out = NULL;
    snprintf(csv, sizeof csv, "%s", tu_write("p253.csv",
        "run,policy,seed,status,m_bytes,n_bytes,makespan_seconds\n"
        "r1,a,1,ok,1000000000000000001,1000000000000000001,0.100000000000000001\n"
        "r2,a,2,ok,1000000000000000003,1000000000000000002,0.100000000000000002\n"
        "r3,b,1,ok,0,0,0\nr4,b,2,ok,0,1,0\n"));
    snprintf(args, sizeof args, "stats '%s' --metric m_bytes --paired a,b", csv);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    CU_ASSERT(out && strstr(out, "  mean difference 1000000000000000002 B  sd         1.41 B\n"
                                 "  95% CI          999999999999999989.29 B .. "
                                 "1000000000000000014.71 B\n"
                                 "  t = 1e+18, df = 1, two-sided p = 6.3662e-19\n"));
    if (out && !strstr(out, "t = 1e+18,"))
        printf("\n  stats:\n%s", out);
    free(out);
    out = NULL;
    snprintf(args, sizeof args, "stats '%s' --metric m_bytes --paired a,b -q --json -", csv);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    CU_ASSERT(out && strstr(out, "\"mean_difference\": 1000000000000000002,\n"
                                 "    \"sd\": 1.4142135623730951,\n"
                                 "    \"ci95_low\": 999999999999999989.29,\n"
                                 "    \"ci95_high\": 1000000000000000014.71,\n"
                                 "    \"t\": 1000000000000000000,"));
    CU_ASSERT(out && strstr(out, "\"t_test\": \"done\""));
    free(out);
    out = NULL;
    /* all equal: the words give the exact difference */
    snprintf(args, sizeof args, "stats '%s' --metric n_bytes --paired a,b", csv);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    CU_ASSERT(out && strstr(out, "  t = +infinity (every difference is 1000000000000000001 B, "
                                 "sd 0), df = 1, two-sided p = 0\n"));
    free(out);
    out = NULL;
    snprintf(args, sizeof args, "stats '%s' --metric makespan_seconds --paired a,b", csv);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    CU_ASSERT(out && strstr(out, "  mean difference          0.1 s  sd  7.07107e-19 s\n"));
    CU_ASSERT(out && !strstr(out, "every difference"));
    free(out);
}

/* QA: a group's exact figures from 2^53 on by one rule in the text and the JSON, in every unit:
 * the mean and CI ends to the hundredth unless whole (until 2026-11-28 seconds and unitless text
 * gave the doubles, -9007199254740994 s, and the JSON's high end below 2^53 was its double,
 * -9007199254740991, where the bytes text had -9007199254740991.58 B). */
static void test_stats_exact_one_rule(void)
{
    char csv[600], args[1400], *out = NULL;
    snprintf(csv, sizeof csv, "%s", tu_write("rule53.csv",
        "run,policy,seed,status,m_bytes,makespan_seconds,x\n"
        "r1,a,1,ok,-9007199254740993,-9007199254740993,-9007199254740993\n"
        "r2,a,2,ok,-9007199254740995,-9007199254740995,-9007199254740995\n"
        "r3,a,3,ok,-9007199254740994.5,-9007199254740994.5,-9007199254740994.5\n"));
    static const char *const col[3] = {"m_bytes", "makespan_seconds", "x"};
    static const char *const sym[3] = {" B", " s", ""};
    for (int i = 0; i < 3; i++) {
        char want[200];
        snprintf(args, sizeof args, "stats '%s' --metric %s", csv, col[i]);
        CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
        snprintf(want, sizeof want, "  -9007199254740994.17%s  ", sym[i]);
        CU_ASSERT(out && strstr(out, want));
        snprintf(want, sizeof want, "  -9007199254740996.75%s  -9007199254740991.58%s\n", sym[i],
                 sym[i]);
        CU_ASSERT(out && strstr(out, want));
        if (out && !strstr(out, want))
            printf("\n  stats:\n%s", out);
        free(out);
        out = NULL;
        snprintf(args, sizeof args, "stats '%s' --metric %s -q --json -", csv, col[i]);
        CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
        CU_ASSERT(out && strstr(out, "\"mean\": -9007199254740994.17,"));
        CU_ASSERT(out && strstr(out, "\"ci95_low\": -9007199254740996.75,\n"
                                     "      \"ci95_high\": -9007199254740991.58\n"));
        free(out);
        out = NULL;
    }
}

/* QA: a byte or count figure below 0.005 takes 6 significant digits: two decimals showed the
 * sd of 0.001 B and 0.002 B as 0.00 B and the CI's low end as -0.00 B (until 2026-11-28). */
static void test_stats_tiny_bytes(void)
{
    char csv[600], args[1400], *out = NULL;
    snprintf(csv, sizeof csv, "%s", tu_write("tinyb.csv", "run,policy,seed,status,m_bytes\n"
                                             "r1,a,1,ok,0.001\nr2,a,2,ok,0.002\n"
                                             "r3,b,1,ok,0.5\nr4,b,2,ok,0.5\n"));
    snprintf(args, sizeof args, "stats '%s' --metric m_bytes --paired a,b", csv);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    CU_ASSERT(out && strstr(out, "\na       2  0.0015 B  0.000707107 B  -0.0048531 B     0.01 B\n"
                                 "b       2    0.50 B            0 B        0.50 B     0.50 B\n"));
    CU_ASSERT(out && strstr(out, "  mean difference        -0.50 B  sd  0.000707107 B\n"));
    CU_ASSERT(out && !strstr(out, "0.00 B"));
    if (out && strstr(out, "0.00 B"))
        printf("\n  stats:\n%s", out);
    free(out);
}

/* QA's stats edge cases: JSON numbers exact (a 1 TiB mean was 1.09951162778e+12, an sd had
 * 12 digits); groups in the order they first appear in any row (b's first row failed, so a
 * came first); a group with successful rows but no number shown with n = 0 (it was dropped);
 * no number anywhere writes nothing (it printed the header and wrote the JSON, status 1); a
 * UTF-8 byte order mark is accepted; every byte value and difference carries its unit; and a
 * long group name keeps the columns in line. */
static void test_stats_exact_order_edges(void)
{
    char csv[600], js[600], args[1400], *out = NULL, *err = NULL;
    snprintf(js, sizeof js, "%s", tmp_path("edge.json"));
    snprintf(csv, sizeof csv, "%s", tu_write("edge.csv",
        "\xEF\xBB\xBFpolicy,seed,status,x_bytes\n"
        "b,1,failed,\n"
        "a_policy_with_a_long_name,1,ok,1099511627776\n"
        "a_policy_with_a_long_name,2,ok,1099511627776\n"
        "b,1,ok,1099511626776\n"
        "b,2,ok,1099511626776\n"
        "c,1,ok,\n"));
    snprintf(args, sizeof args, "stats '%s' --metric x_bytes --paired a_policy_with_a_long_name,b "
             "--json '%s'", csv, js);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    CU_ASSERT(out && strstr(out, "\npolicy                     n             mean   sd         "
                                 "ci95 low        ci95 high\n"
                                 "b                          2  1099511626776 B  0 B  "
                                 "1099511626776 B  1099511626776 B\n"
                                 "a_policy_with_a_long_name  2  1099511627776 B  0 B  "
                                 "1099511627776 B  1099511627776 B\n"
                                 "c                          0              n/a  n/a  "
                                 "            n/a              n/a\n"));
    CU_ASSERT(out && strstr(out, "every difference is 1000 B, sd 0"));
    if (out && !strstr(out, "\nc                          0"))
        printf("\n  stats:\n%s", out);
    free(out);
    char *j = tu_slurp(js, NULL);
    CU_ASSERT(j && strstr(j, "\"mean\": 1099511627776,") &&
              strstr(j, "\"mean_difference\": 1000,"));
    CU_ASSERT(j && strstr(j, "\"c\": {\n      \"n\": 0,\n      \"mean\": null,"));
    free(j);
    /* a non-integer mean with every digit it needs to read back */
    snprintf(csv, sizeof csv, "%s", tu_write("edge2.csv", "policy,status,x\na,ok,1\na,ok,2\n"));
    snprintf(args, sizeof args, "stats '%s' --metric x --json '%s'", csv, js);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
    j = tu_slurp(js, NULL);
    CU_ASSERT(j && strstr(j, "\"mean\": 1.5,") && strstr(j, "\"sd\": 0.70710678118654"));
    free(j);
    /* nothing to report: no output at all */
    remove(js);
    snprintf(csv, sizeof csv, "%s", tu_write("edge3.csv", "policy,status,x\na,failed,\nb,ok,\n"));
    snprintf(args, sizeof args, "stats '%s' --metric x --json '%s'", csv, js);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, &err), 1);
    CU_ASSERT(out && out[0] == 0);
    CU_ASSERT(err && strcmp(err, "amsim stats: no row has a number in column 'x'\n") == 0);
    CU_ASSERT(access(js, F_OK) != 0);
    free(out);
    free(err);
}

/* `run --log FILE` under config cfg (a path) and policy pol on trace text; the log, or NULL. */
static char *log_of(const char *cfg, const char *pol, const char *trace)
{
    char tr[600], lg[600], args[2000], *err = NULL;
    snprintf(tr, sizeof tr, "%s", tu_write("log.trace", trace));
    snprintf(lg, sizeof lg, "%s", tmp_path("run.log"));
    remove(lg);
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --policy %s --log '%s'", cfg, tr, pol, lg);
    int st = tu_amsim(args, NULL, &err);
    CU_ASSERT_EQUAL(st, 0);
    if (st)
        printf("\n  run --log: %s\n", err ? err : "");
    free(err);
    return tu_slurp(lg, NULL);
}

/* A multi-level log names the level on every line, R, G and S as A and OOM: QA's trace wrote
 * "R 0 2097152" for hbm's region and "R 0 4096" for host's. Every level's policy writes an S
 * line (host's platform, and caching on hbm, wrote none), and the "# level NAME" lines that
 * stood for the name before the S lines are gone. */
static void test_log_levels(void)
{
    char cfg[600];
    snprintf(cfg, sizeof cfg, "%s/configs/default.yaml", tu_top());
    static const char tr[] = "amsim-trace v1\nalloc 1 1MiB\nalloc 2 4KiB level=host\n";
    static const char rest[] =
        "host: S bytes_in_use.current=4096 bytes_in_use.peak=4096 num_allocs=1 "
        "num_device_alloc=1 num_device_free=0 num_ooms=0\n"
        "host_pageable: S bytes_in_use.current=0 bytes_in_use.peak=0 num_allocs=0 "
        "num_device_alloc=0 num_device_free=0 num_ooms=0\n"
        "smem: S bytes_in_use.current=0 bytes_in_use.peak=0 committed_bytes=0 num_allocs=0 "
        "free_blocks=0 largest_free_block_bytes=0 ooms=0\n";
    char want[4096];
    char *l = log_of(cfg, "bfc", tr);
    snprintf(want, sizeof want,
             "hbm: R 0 2097152\nhbm: A 1 0 1048576\nhost: R 0 4096\nhost: A 2 0 4096\n"
             "hbm: S bytes_in_use=1048576 peak_bytes_in_use=1048576 num_allocs=1 "
             "largest_alloc_size=1048576 pool_bytes=2097152 peak_pool_bytes=2097152 "
             "largest_free_chunk=1048576 fragmentation=0.000000000 ooms=0\n"
             "hbm: G 0 2097152\n%s", rest);
    CU_ASSERT(l && strcmp(l, want) == 0);
    if (l && strcmp(l, want))
        printf("\n  bfc log:\n%s", l);
    free(l);
    l = log_of(cfg, "caching", tr);
    snprintf(want, sizeof want,
             "hbm: R 0 2097152\nhbm: A 1 0 1048576\nhost: R 0 4096\nhost: A 2 0 4096\n"
             "hbm: S allocated_bytes.current=1048576 allocated_bytes.peak=1048576 "
             "reserved_bytes.current=2097152 reserved_bytes.peak=2097152 "
             "active_bytes.current=1048576 active_bytes.peak=1048576 "
             "requested_bytes.current=1048576 requested_bytes.peak=1048576 "
             "inactive_split_bytes.current=1048576 inactive_split_bytes.peak=1048576 "
             "allocation.current=1 allocation.peak=1 segment.current=1 segment.peak=1 "
             "active.current=1 active.peak=1 inactive_split.current=1 inactive_split.peak=1 "
             "num_alloc_retries=0 num_ooms=0 num_device_alloc=1 num_device_free=0\n%s", rest);
    CU_ASSERT(l && strcmp(l, want) == 0);
    if (l && strcmp(l, want))
        printf("\n  caching log:\n%s", l);
    free(l);
}

/* The run report's level table keeps its columns for sizes up to 2^64 bytes: sizes of 1 PiB
 * and more print in PiB and EiB, the capacity column right-aligned under its header. Until
 * 2026-11-27 the largest unit was TiB, and a 4 EiB capacity printed "4194304.00 TiB", 14
 * characters in a 12-wide column, shifting the row. A size just under a unit that rounds to
 * 1024.00 prints in that unit (until 2026-11-27 "1024.00 TiB" and "1024.00 PiB" here). */
static void test_run_report_large_sizes(void)
{
    const char *tr = tu_write("huge.trace", "amsim-trace v1\nalloc 1 1PiB\nalloc 2 3EiB\n"
                                            "free 1\nfree 2\n");
    static const struct {
        const char *capacity, *shown;
    } c[] = {{"4611686018427387904", "4.00 EiB"}, {"1125899906842623", "1.00 PiB"},
             {"1152920405095219200", "1.00 EiB"}, {"1GiB", "1.00 GiB"}};
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        const char *cfg = tu_write("huge.yaml", "version: 1\nmemories:\n  hbm:\n"
                                                "    capacity: 1GiB\n"
                                                "    allocator: {policy: best_fit}\n");
        char args[2048], *out = NULL;
        snprintf(args, sizeof args, "run -c '%s' -t '%s' --set memories.hbm.capacity=%s", cfg,
                 tr, c[k].capacity);
        CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
        const char *head = out ? strstr(out, "\nlevel ") : NULL;
        const char *row = head ? strstr(head + 1, "\nhbm ") : NULL;
        CU_ASSERT_PTR_NOT_NULL_FATAL(row);
        head++;
        row++;
        /* every field fits its width: the row is as long as the header, and the capacity
         * ends where its header does */
        size_t hlen = strcspn(head, "\n"), rlen = strcspn(row, "\n");
        const char *cap = strstr(head, "capacity");
        size_t end = (size_t)(cap - head) + strlen("capacity");
        CU_ASSERT_EQUAL(rlen, hlen);
        CU_ASSERT(end >= strlen(c[k].shown) &&
                  strncmp(row + end - strlen(c[k].shown), c[k].shown, strlen(c[k].shown)) == 0);
        if (rlen != hlen)
            printf("\n%.*s\n%.*s\n", (int)hlen, head, (int)rlen, row);
        free(out);
    }
}

/* The run report's link table keeps its columns for a link busy 1,000,000 s or more: the busy
 * column widens to its widest time, header and every row alike, and a rate below 1 B/s has
 * significant digits. Until 2026-11-27 "1002500.000 s" took 13 characters of a 12-wide column,
 * pushing the row's achieved and energy figures right of their headers, and the rate printed
 * "0.000 B/s". */
static void test_run_report_long_busy(void)
{
    const char *cfg = tu_write("busy.yaml",
        "version: 1\ndefault_memory: hbm\nmemories:\n  hbm: {kind: hbm, capacity: 1GiB}\n"
        "  host: {kind: host, capacity: 1GiB}\n  dram: {kind: host, capacity: 1GiB}\nlinks:\n"
        "  pcie: {from: host, to: hbm, bandwidth: 1B/s, efficiency: 0.0004, latency: 1000000s, "
        "energy_per_byte: 1}\n"
        "  back: {from: hbm, to: dram, bandwidth: 1GB/s}\n");
    const char *tr = tu_write("busy.trace", "amsim-trace v1\ntransfer host hbm 1\n"
                              "transfer hbm dram 1000000\nsync\n");
    char args[2048], *out = NULL;
    snprintf(args, sizeof args, "run -c '%s' -t '%s'", cfg, tr);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    const char *head = out ? strstr(out, "\nlink ") : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(head);
    head++;
    const char *slow = strstr(head, "\npcie "), *fast = strstr(head, "\nback ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(slow);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fast);
    size_t hlen = strcspn(head, "\n");
    /* each figure ends where its header does: rows as long as the header */
    CU_ASSERT_EQUAL(strcspn(slow + 1, "\n"), hlen);
    CU_ASSERT_EQUAL(strcspn(fast + 1, "\n"), hlen);
    CU_ASSERT(strstr(head, "transfers          busy       achieved         energy\n") != NULL);
    CU_ASSERT(strstr(slow, "          1 1002500.000 s   9.98e-07 B/s       1.000 pJ\n") != NULL);
    CU_ASSERT(strstr(fast, "          1      1.000 ms     1.000 GB/s            n/a\n") != NULL);
    if (!strstr(slow, "1002500.000 s   9.98e-07 B/s"))
        printf("\n%s\n", head);
    free(out);
}

/* Every line of the table that starts at "\nHEAD " in out, up to its blank line, is as long as
 * its header (each left-aligned name fits its column, so every figure ends where its header
 * does); the number of rows, or -1 without the table. */
static int table_rows_aligned(const char *out, const char *head_word)
{
    char key[64];
    snprintf(key, sizeof key, "\n%s ", head_word);
    const char *head = out ? strstr(out, key) : NULL;
    if (!head)
        return -1;
    head++;
    size_t hlen = strcspn(head, "\n");
    int rows = 0;
    for (const char *l = head + hlen + 1; *l && *l != '\n'; l += strcspn(l, "\n") + 1) {
        size_t len = strcspn(l, "\n");
        if (len != hlen)
            printf("\n%.*s\n%.*s\n", (int)hlen, head, (int)len, l);
        CU_ASSERT_EQUAL(len, hlen);
        rows++;
    }
    return rows;
}

/* The run report's level and link tables widen their name columns to the widest name shown:
 * on every GPU preset, `host_pageable` (13 characters) in the level table and the direction
 * `host_pageable>hbm` (17) in the link table, and a 40-character memory and link name of a
 * config's own. Until 2026-11-27 the columns were 12, 14 and 16 wide whatever the names, so such
 * rows were one or more characters longer than their header and their figures out of line.
 * Tables whose names fit keep their widths (the golden outputs). */
static void test_run_report_long_names(void)
{
    static const char *const gpus[] = {"a100-80gb", "h100", "h200", "b200", "gh200"};
    const char *tr = tu_write("names.trace", "amsim-trace v1\nalloc 1 1MiB level=host_pageable\n"
                              "alloc 2 1MiB\ntransfer host_pageable hbm 1MiB\nsync\n"
                              "free 1\nfree 2\n");
    for (size_t k = 0; k < sizeof gpus / sizeof gpus[0]; k++) {
        char yaml[128], args[2048], *out = NULL;
        snprintf(yaml, sizeof yaml, "version: 1\ndevice: %s\n", gpus[k]);
        const char *cfg = tu_write("names.yaml", yaml);
        snprintf(args, sizeof args, "run -c '%s' -t '%s'", cfg, tr);
        CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
        CU_ASSERT_EQUAL(table_rows_aligned(out, "level"), 2); /* hbm, host_pageable */
        CU_ASSERT_EQUAL(table_rows_aligned(out, "link"), 1);
        CU_ASSERT(out && strstr(out, "\nlevel         policy ") &&
                  strstr(out, "\nhost_pageable platform "));
        free(out);
    }
    const char *cfg = tu_write("names.yaml",
        "version: 1\ndefault_memory: hbm\nmemories:\n  hbm: {kind: hbm, capacity: 1GiB}\n"
        "  a_memory_with_a_forty_character_name_xyz: {kind: host, capacity: 1GiB}\nlinks:\n"
        "  a_link_with_a_name_of_forty_characters_x: {from: a_memory_with_a_forty_character_name_"
        "xyz, to: hbm, bandwidth: 1GB/s, duplex: false}\n");
    tr = tu_write("names.trace", "amsim-trace v1\n"
                  "alloc 1 1KiB level=a_memory_with_a_forty_character_name_xyz\n"
                  "transfer a_memory_with_a_forty_character_name_xyz hbm 1KiB\n"
                  "transfer hbm a_memory_with_a_forty_character_name_xyz 1KiB\nsync\nfree 1\n");
    char args[2048], *out = NULL;
    snprintf(args, sizeof args, "run -c '%s' -t '%s'", cfg, tr);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    CU_ASSERT_EQUAL(table_rows_aligned(out, "level"), 1);
    CU_ASSERT_EQUAL(table_rows_aligned(out, "link"), 3); /* two directions and the channel */
    free(out);
}

/* A single-level log is the BFC oracle format, no names: byte for byte what it was for bfc;
 * caching gains its S line. */
static void test_log_single_level(void)
{
    const char *cfg = tu_write("one.yaml", "version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n"
                                           "    allocator: {policy: bfc}\n");
    char c[600];
    snprintf(c, sizeof c, "%s", cfg);
    static const char tr[] = "amsim-trace v1\nalloc 1 1MiB\nalloc 2 3000\nfree 1\n";
    char *l = log_of(c, "bfc", tr);
    CU_ASSERT(l && strcmp(l, "R 0 805306368\nA 1 0 1048576\nA 2 1048576 3072\n"
                             "S bytes_in_use=3072 peak_bytes_in_use=1051648 num_allocs=2 "
                             "largest_alloc_size=1048576 pool_bytes=805306368 "
                             "peak_pool_bytes=805306368 largest_free_chunk=804254720 "
                             "fragmentation=0.001302088 ooms=0\nG 0 805306368\n") == 0);
    free(l);
    l = log_of(c, "caching", tr);
    CU_ASSERT(l && strcmp(l, "R 0 2097152\nA 1 0 1048576\nA 2 1048576 3072\n"
                             "S allocated_bytes.current=3072 allocated_bytes.peak=1051648 "
                             "reserved_bytes.current=2097152 reserved_bytes.peak=2097152 "
                             "active_bytes.current=3072 active_bytes.peak=1051648 "
                             "requested_bytes.current=3000 requested_bytes.peak=1051576 "
                             "inactive_split_bytes.current=2094080 "
                             "inactive_split_bytes.peak=2094080 allocation.current=1 "
                             "allocation.peak=2 segment.current=1 segment.peak=1 "
                             "active.current=1 active.peak=2 inactive_split.current=2 "
                             "inactive_split.peak=2 num_alloc_retries=0 num_ooms=0 "
                             "num_device_alloc=1 num_device_free=0\n") == 0);
    free(l);
}

/* `amsim report DIR` run with PATH=path; status, stderr in *err (allocated). */
static int report_with_path(const char *dir, const char *path, char **err)
{
    const char *bin = getenv("AMSIM");
    char cmd[4096], e[1200];
    snprintf(e, sizeof e, "%s/.report_stderr", tu_tmpdir());
    snprintf(cmd, sizeof cmd, "PATH='%s' %s report '%s' >/dev/null 2>'%s' </dev/null", path,
             bin ? bin : "../../build/amsim", dir, e);
    int st = system(cmd);
    *err = tu_slurp(e, NULL);
    return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A two-axis table (six plots' worth) for the gnuplot failure tests. */
static const char *gnuplot_study(const char *name)
{
    const char *dir = tmp_path(name);
    char p[1200];
    mkdir(dir, 0777);
    snprintf(p, sizeof p, "%s/results.csv", dir);
    FILE *f = fopen(p, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs("run_id,run,a,b,policy,trace,status,hbm.peak_reserved_bytes,hbm.peak_live_bytes,"
          "hbm.fragmentation_ratio\n1,r1,1,1,bfc,t,ok,1048576,1000,0.1\n"
          "2,r2,2,1,bfc,t,ok,2097152,1000,0.1\n", f);
    fclose(f);
    return dir;
}

/* Without gnuplot on PATH the report says so once, status 1, and writes nothing (it printed
 * "sh: 1: gnuplot: not found" and "gnuplot failed on heatmap.gp (status 32512)" per plot,
 * status 2, and left a report.html of "plot failed" placeholders). A gnuplot that fails says
 * how: its exit status decoded, not the raw wait status. */
static void test_report_gnuplot_missing(void)
{
    const char *dir = gnuplot_study("nognuplot");
    char p[1200], *err = NULL;
    CU_ASSERT_EQUAL(report_with_path(dir, "/nonexistent", &err), 1);
    CU_ASSERT(err && strcmp(err, "amsim report: gnuplot not found on PATH (Debian: apt-get "
                                 "install gnuplot-nox)\n") == 0);
    free(err);
    snprintf(p, sizeof p, "%s/report.html", dir);
    CU_ASSERT(access(p, F_OK) != 0);

    /* a gnuplot that exits 3 */
    const char *fake = tmp_path("fakegp");
    mkdir(fake, 0777);
    snprintf(p, sizeof p, "%s/gnuplot", fake);
    FILE *f = fopen(p, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs("#!/bin/sh\ncat >/dev/null\nexit 3\n", f);
    fclose(f);
    chmod(p, 0755);
    char path[1400];
    snprintf(path, sizeof path, "%s:/usr/bin:/bin", fake);
    CU_ASSERT_EQUAL(report_with_path(dir, path, &err), 2);
    CU_ASSERT(err && strstr(err, "amsim report: gnuplot failed on heatmap.gp (exit status 3)\n"));
    CU_ASSERT(err && !strstr(err, "status 768"));
    free(err);
}

/* A gnuplot that exits at once, without reading its script (here /bin/false): writing the
 * script to its closed pipe is a write error, not SIGPIPE, so every try ends alike, "gnuplot
 * failed on ... (exit status 1)", status 2. Until 2026-11-27 it was a race: status 2 most
 * times, 141 ("an output pipe was closed (SIGPIPE)") in about 4 of 10: 16 tries all but
 * always catch it. */
static void test_report_gnuplot_exits_early(void)
{
    const char *dir = gnuplot_study("earlygp");
    const char *fake = tmp_path("falsegp");
    char p[1200], path[1400];
    mkdir(fake, 0777);
    snprintf(p, sizeof p, "%s/gnuplot", fake);
    if (access("/bin/false", X_OK) != 0 || symlink("/bin/false", p) != 0)
        return;
    snprintf(path, sizeof path, "%s:/usr/bin:/bin", fake);
    for (int i = 0; i < 16; i++) {
        char *err = NULL;
        int st = report_with_path(dir, path, &err);
        CU_ASSERT_EQUAL(st, 2);
        CU_ASSERT(err && strstr(err, "amsim report: gnuplot failed on peak_reserved.gp (exit "
                                     "status 1)\n") && !strstr(err, "SIGPIPE"));
        if (st != 2)
            fprintf(stderr, "\n  gnuplot exiting early, try %d: status %d\n", i + 1, st);
        free(err);
    }
}

/* The report's large buffers are on the heap: with a 128 KiB stack (ulimit -s 128) it runs,
 * here to its gnuplot failure (status 2), and leaves no scratch folder or temporary. Until
 * 2026-11-27 timelines() took some 190 KB of stack and the report crashed (SIGSEGV, status
 * 139) before its first plot, as it did under a memory limit (ulimit -v 10124), leaving its
 * scratch folder and report.html.tmp.PID. */
static void test_report_small_stack(void)
{
    const char *dir = gnuplot_study("smallstack");
    const char *fake = tmp_path("failgp"), *td = tmp_path("smallstack_tmp");
    char p[1200], cmd[4096];
    mkdir(fake, 0777);
    mkdir(td, 0777);
    snprintf(p, sizeof p, "%s/gnuplot", fake);
    FILE *f = fopen(p, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs("#!/bin/sh\ncat >/dev/null\nexit 1\n", f);
    fclose(f);
    chmod(p, 0755);
    const char *bin = getenv("AMSIM");
    snprintf(cmd, sizeof cmd, "ulimit -s 128; TMPDIR='%s' PATH='%s:/usr/bin:/bin' exec %s "
             "report '%s' >/dev/null 2>/dev/null </dev/null", td, fake,
             bin ? bin : "../../build/amsim", dir);
    int st = system(cmd);
    int status = st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    CU_ASSERT_EQUAL(status, 2);
    snprintf(cmd, sizeof cmd, "[ -z \"$(ls -A '%s')\" ] && ! ls '%s' | grep -q tmp", td, dir);
    CU_ASSERT_EQUAL(system(cmd), 0);
}

/* QA: an interrupted report (SIGINT while gnuplot draws) stops and reaps gnuplot before it
 * removes its scratch folder, and gnuplot runs in that folder from the start, so it writes
 * nothing anywhere else. Until 2026-11-28 gnuplot was started in the caller's folder and sent
 * `cd SCRATCH` first: one interrupted before the `cd` wrote plotN.svg there, emptying the
 * caller's own plot2.svg..plot4.svg, and it ran on after the report had gone. Deterministic: a
 * gnuplot of our own writes plot0.svg in its folder, then its pid, then sleeps, and the report
 * is interrupted only once the pid is there, gnuplot still running. */
static void test_report_interrupt_stops_gnuplot(void)
{
    const char *dir = gnuplot_study("intr");
    const char *fake = tmp_path("intrgp"), *td = tmp_path("intr_tmp"),
               *caller = tmp_path("intr_caller"), *pidf = tmp_path("intr_gp.pid"),
               *cwdf = tmp_path("intr_gp.cwd");
    char p[1200], script[4096];
    mkdir(fake, 0777);
    mkdir(td, 0777);
    mkdir(caller, 0777);
    snprintf(p, sizeof p, "%s/plot0.svg", caller);
    FILE *f = fopen(p, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs("my own figure 0\n", f);
    fclose(f);
    /* the pid through a temporary and mv: whole when it appears */
    snprintf(script, sizeof script, "#!/bin/sh\npwd -P >'%s'\necho gnuplot >plot0.svg\n"
             "echo $$ >'%s.t' && mv '%s.t' '%s'\nexec sleep 1000 </dev/null\n", cwdf, pidf,
             pidf, pidf);
    snprintf(p, sizeof p, "%s/gnuplot", fake);
    f = fopen(p, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs(script, f);
    fclose(f);
    chmod(p, 0755);
    const char *bin = getenv("AMSIM") ? getenv("AMSIM") : "../../build/amsim";
    char abin[PATH_MAX];
    if (!realpath(bin, abin)) /* the report runs from the caller's folder */
        snprintf(abin, sizeof abin, "%s", bin);
    snprintf(p, sizeof p, "%s:/usr/bin:/bin", fake);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        if (chdir(caller) != 0 || !freopen("/dev/null", "w", stdout) ||
            !freopen("/dev/null", "w", stderr))
            _exit(127);
        signal(SIGINT, SIG_DFL);
        setenv("PATH", p, 1);
        setenv("TMPDIR", td, 1);
        execl(abin, abin, "report", dir, (char *)NULL);
        _exit(127);
    }
    /* gnuplot started and still running: its pid file (20 s at most, else the report ended) */
    char *pidtext = NULL;
    int st = 0, ended = 0;
    for (int i = 0; i < 2000 && !(pidtext = tu_slurp(pidf, NULL)); i++) {
        if (waitpid(pid, &st, WNOHANG) == pid) {
            ended = 1;
            break;
        }
        usleep(10000);
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(pidtext);
    pid_t gp = (pid_t)atol(pidtext);
    free(pidtext);
    CU_ASSERT_FATAL(gp > 0);
    if (!ended) {
        kill(pid, SIGINT);
        CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
    }
    CU_ASSERT(!ended && WIFSIGNALED(st) && WTERMSIG(st) == SIGINT);
    /* gnuplot gone when the report has: reaped by it, so no such process */
    int alive = kill(gp, 0) == 0;
    CU_ASSERT(!alive);
    if (alive)
        kill(gp, SIGKILL);
    char *cwd = tu_slurp(cwdf, NULL);
    char want[PATH_MAX + 32], rtd[PATH_MAX];
    snprintf(want, sizeof want, "%s/amsim-report-", realpath(td, rtd) ? rtd : td);
    CU_ASSERT(cwd && strncmp(cwd, want, strlen(want)) == 0);
    free(cwd);
    snprintf(p, sizeof p, "%s/plot0.svg", caller);
    char *mine = tu_slurp(p, NULL);
    CU_ASSERT(mine && strcmp(mine, "my own figure 0\n") == 0);
    free(mine);
    /* the scratch folder removed, gnuplot's plot0.svg with it */
    snprintf(p, sizeof p, "[ -z \"$(ls -A '%s')\" ]", td);
    CU_ASSERT_EQUAL(system(p), 0);
}

/* QA's hf.yaml: memory_limit [100B, 1GiB] x capacity [1GiB, 2GiB], the 100B runs failing. The
 * heat map keeps the 100B column, its cells empty (it showed only the 1GiB column). All cells
 * equal and a trace of makespan 0 (every timeline row at 0 ps) draw without gnuplot's
 * "Warning: empty cb range" / "empty x range" on stderr. */
static void test_report_heatmap_failed_axis_value(void)
{
    const char *dir = tmp_path("hfail");
    char p[1200], args[1400], *out = NULL, *err = NULL;
    mkdir(dir, 0777);
    snprintf(p, sizeof p, "%s/results.csv", dir);
    FILE *f = fopen(p, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs("run_id,run,memories.hbm.allocator.memory_limit,memories.hbm.capacity,policy,trace,"
          "status,hbm.peak_reserved_bytes,hbm.peak_live_bytes,hbm.fragmentation_ratio\n"
          "1,r1,100B,1GiB,bfc,t,failed,,,\n2,r2,100B,2GiB,bfc,t,failed,,,\n"
          "3,r3,1GiB,1GiB,bfc,t,ok,2097152,100,0.9\n4,r4,1GiB,2GiB,bfc,t,ok,2097152,100,0.9\n", f);
    fclose(f);
    snprintf(p, sizeof p, "%s/runs", dir);
    mkdir(p, 0777);
    snprintf(p, sizeof p, "%s/runs/r3", dir);
    mkdir(p, 0777);
    snprintf(p, sizeof p, "%s/runs/r3/timeline.csv", dir);
    f = fopen(p, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs("time_ps,seq,level,live_bytes,allocated_bytes,reserved_bytes\n"
          "0,1,hbm,100,256,2097152\n0,2,hbm,0,0,2097152\n", f);
    fclose(f);
    snprintf(args, sizeof args, "report '%s'", dir);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, &err), 0);
    CU_ASSERT(err && strcmp(err, "") == 0);
    if (err && err[0])
        printf("\nreport: %s\n", err);
    free(out);
    free(err);
    snprintf(p, sizeof p, "%s/report.html", dir);
    char *h = tu_slurp(p, NULL);
    char *hm = h ? strstr(h, "Two-axis sweep") : NULL, *end = hm ? strstr(hm, "</svg>") : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(end);
    if (end)
        *end = 0;
    CU_ASSERT(strstr(hm, ">100B<") != NULL);
    CU_ASSERT(strstr(hm, ">1GiB<") != NULL);
    CU_ASSERT(tu_count(hm, ">2 MiB<") == 2);
    free(h);
}

/* QA's s11: nothing reserved by any run. The bar chart's axis and the heat map's colour bar get
 * ranges of their own, 0 to 1 MiB: gnuplot printed "Warning: empty y range [0:0]" on stderr and
 * the colour bar ran from -1 MiB. */
static void test_report_all_zero(void)
{
    const char *dir = tmp_path("allzero");
    char p[1200], args[1400], *err = NULL;
    mkdir(dir, 0777);
    snprintf(p, sizeof p, "%s/results.csv", dir);
    FILE *f = fopen(p, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs("run_id,run,memories.hbm.capacity,memories.hbm.granularity,policy,trace,status,"
          "hbm.peak_reserved_bytes,hbm.peak_live_bytes,hbm.fragmentation_ratio\n"
          "1,r1,1GiB,2MiB,platform,t,ok,0,0,\n2,r2,1GiB,4MiB,platform,t,ok,0,0,\n"
          "3,r3,2GiB,2MiB,platform,t,ok,0,0,\n4,r4,2GiB,4MiB,platform,t,ok,0,0,\n", f);
    fclose(f);
    snprintf(args, sizeof args, "report '%s'", dir);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 0);
    CU_ASSERT(err && strcmp(err, "") == 0);
    if (err && err[0])
        printf("\nreport: %s\n", err);
    free(err);
    snprintf(p, sizeof p, "%s/report.html", dir);
    char *h = tu_slurp(p, NULL);
    char *hm = h ? strstr(h, "Two-axis sweep") : NULL, *end = hm ? strstr(hm, "</svg>") : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(end);
    if (end)
        *end = 0;
    CU_ASSERT(strstr(hm, "> -1<") == NULL && strstr(hm, ">-1<") == NULL);
    CU_ASSERT(strstr(hm, "> 1<") != NULL || strstr(hm, ">1<") != NULL);
    free(h);
}

/* QA: a TMPDIR of 240 bytes (the scratch folder's name is longer still) failed the report,
 * status 2, as the folder's name had 256 bytes; it now has room for any path (PATH_MAX). */
static void test_report_long_tmpdir(void)
{
    char td[400];
    int n = snprintf(td, sizeof td, "%s/", tu_tmpdir());
    while (n < 240)
        td[n++] = 't';
    td[n] = 0;
    CU_ASSERT_EQUAL_FATAL(mkdir(td, 0777), 0);
    const char *old = getenv("TMPDIR");
    char *saved = old ? strdup(old) : NULL;
    setenv("TMPDIR", td, 1);
    char *h = report_of("longtmp", "run_id,run,policy,trace,status,hbm.peak_reserved_bytes,"
                                   "hbm.peak_live_bytes,hbm.fragmentation_ratio\n"
                                   "1,r1,bfc,t,ok,2097152,1048576,0.5\n"
                                   "2,r2,caching,t,ok,4194304,1048576,0.75\n");
    if (saved)
        setenv("TMPDIR", saved, 1);
    else
        unsetenv("TMPDIR");
    free(saved);
    CU_ASSERT(h && strstr(h, "<svg") != NULL);
    free(h);
}

/* QA: a TMPDIR with a space, a backslash, a double or a single quote failed every timeline
 * plot, status 2 ("1 plots (some failed)"): gnuplot split the scratch paths in `files` at the
 * space and read the others' quotes and backslashes as its own. Every plot is now drawn, and
 * an axis value's backslash is shown as written (it was read as an escape). */
static void test_report_odd_tmpdir(void)
{
    static const char *const names[] = {"tmp dir", "b\\s", "q\"d", "s'q"};
    static const char csv[] =
        "run_id,run,memories.hbm.allocator.max_split_size,ax2,policy,trace,status,"
        "hbm.peak_reserved_bytes,hbm.peak_live_bytes,hbm.fragmentation_ratio\n"
        "1,r1,unlimited,a\\tb,bfc,t,ok,2097152,1048576,0.5\n"
        "2,r2,16MiB,a\\tb,bfc,t,ok,2097152,1048576,0.5\n"
        "3,r3,unlimited,c,bfc,t,ok,2097152,1048576,0.5\n"
        "4,r4,unlimited,a\\tb,caching,t,ok,4194304,1048576,0.75\n";
    const char *old = getenv("TMPDIR");
    char *saved = old ? strdup(old) : NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char td[1200], dir[32];
        snprintf(td, sizeof td, "%s/%s", tu_tmpdir(), names[i]);
        CU_ASSERT_EQUAL_FATAL(mkdir(td, 0777), 0);
        snprintf(dir, sizeof dir, "oddtmp%zu", i);
        write_timeline(dir, "r1");
        write_timeline(dir, "r4");
        setenv("TMPDIR", td, 1);
        char *h = report_of(dir, csv);
        /* peak reserved, memory and fragmentation over time, one heat map per policy */
        CU_ASSERT(h && tu_count(h, "<svg") == 5 && !strstr(h, "plot failed"));
        CU_ASSERT(h && strstr(h, ">a\\tb</text>") != NULL);
        if (h && tu_count(h, "<svg") != 5)
            fprintf(stderr, "\n  TMPDIR %s: %d plots\n", td, tu_count(h, "<svg"));
        free(h);
    }
    if (saved)
        setenv("TMPDIR", saved, 1);
    else
        unsetenv("TMPDIR");
    free(saved);
}

/* QA: a report.html that is a symbolic link to a run's summary.json (a file the report does
 * not read) is replaced by the page, the link's target untouched; it was overwritten with HTML,
 * status 0. */
static void test_report_replaces_link(void)
{
    const char *dir = tmp_path("replink");
    char p[1200], q[1200];
    write_timeline("replink", "r1");
    snprintf(p, sizeof p, "%s/runs/r1/summary.json", dir);
    FILE *f = fopen(p, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs("{}\n", f);
    fclose(f);
    snprintf(q, sizeof q, "%s/report.html", dir);
    CU_ASSERT_EQUAL(symlink("runs/r1/summary.json", q), 0);
    char *h = report_of("replink", "run_id,run,policy,trace,status,hbm.peak_live_bytes,"
                                   "hbm.peak_reserved_bytes\n1,r1,bfc,t,ok,1048576,2097152\n");
    CU_ASSERT(h && strstr(h, "<!DOCTYPE html>") == h);
    free(h);
    char *j = tu_slurp(p, NULL);
    CU_ASSERT(j && strcmp(j, "{}\n") == 0);
    free(j);
    struct stat st;
    CU_ASSERT(lstat(q, &st) == 0 && S_ISREG(st.st_mode));
}

/* A timeline of 100,000 rows is drawn as a min/max envelope of at most 2000 points: the page
 * stays small and the one-row spike of reserved memory is still drawn, its exact value in the
 * caption (until 2026-11-27 every row went into the SVG: a 1M-event trace gave 53 MB). */
static void test_report_timeline_envelope(void)
{
    enum { ROWS = 100000, SPIKE = 61234 };
    const char *dir = tmp_path("tlenv");
    char p[1200];
    write_timeline("tlenv", "r1"); /* the folders */
    snprintf(p, sizeof p, "%s/runs/r1/timeline.csv", dir);
    FILE *f = fopen(p, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs("time_ps,seq,level,live_bytes,allocated_bytes,reserved_bytes\n", f);
    for (long k = 0; k < ROWS; k++) {
        long live = 1048576 + (k % 97) * 4096, res = k == SPIKE ? 987654321 : 4194304 + k % 13;
        fprintf(f, "%ld,%ld,hbm,%ld,%ld,%ld\n", k * 1000, k, live, live, res);
    }
    fclose(f);
    char *h = report_of("tlenv", "run_id,run,policy,trace,status,hbm.peak_live_bytes,"
                                 "hbm.peak_reserved_bytes\n1,r1,bfc,t,ok,1445888,987654321\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    CU_ASSERT(strlen(h) < 400000);
    CU_ASSERT(strstr(h, "Drawn as a min/max envelope of at most 2000 points (timeline.csv keeps "
                        "every row): bfc 100000 rows as ") != NULL);
    CU_ASSERT(strstr(h, " points, peak reserved 987654321 B.</figcaption>") != NULL);
    if (strlen(h) >= 400000 || !strstr(h, "peak reserved 987654321 B"))
        fprintf(stderr, "\n  report.html: %zu bytes\n", strlen(h));
    free(h);
}

/* Whether the NUL-terminated text s is all well-formed UTF-8 (am_utf8_len). */
static int all_utf8(const char *s)
{
    for (const unsigned char *u = (const unsigned char *)s; *u;) {
        int n = am_utf8_len(u);
        if (n == 0)
            return 0;
        u += n;
    }
    return 1;
}

/* am_utf8_len: the well-formed UTF-8 forms of RFC 3629 and none other. */
static void test_utf8_len(void)
{
    static const struct {
        const char *s;
        int n;
    } c[] = {{"a", 1}, {"\303\251", 2}, {"\342\202\254", 3}, {"\360\237\230\200", 4},
             {"\302\233", 2}, {"\364\217\277\277", 4}, {"\355\237\277", 3},
             {"\377", 0}, {"\351y", 0}, {"\200", 0}, {"\300\200", 0}, {"\301\277", 0},
             {"\340\200\200", 0}, {"\355\240\200", 0}, {"\360\200\200\200", 0},
             {"\364\220\200\200", 0}, {"\365\200\200\200", 0}, {"\342\202", 0},
             {"\360\237\230", 0}, {"\303", 0}};
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        int n = am_utf8_len((const unsigned char *)c[i].s);
        CU_ASSERT_EQUAL(n, c[i].n);
        if (n != c[i].n)
            fprintf(stderr, "\n  case %zu: %d, expected %d", i, n, c[i].n);
    }
}

/* QA: a trace path or a results.csv cell with a byte that is no UTF-8 (0xff) went raw into the
 * JSON outputs, which RFC 8259 8.1 requires be UTF-8, and into report.html, which declares
 * utf-8. Each now writes the byte as the text \xff (in JSON "\\xff"); a well-formed
 * character (U+00E9) stays as it is. Until 2026-11-28 strict parsers refused the files. */
static void test_json_html_not_utf8_escaped(void)
{
    char p[1200], args[3200], *out = NULL;
    const char *trace = tu_write("u\303\251t\377.trace", "amsim-trace v1\nalloc 1 1MiB\n"
                                                           "free 1\n");
    snprintf(p, sizeof p, "%s/configs/default.yaml", tu_top());
    static const char *const cmds[] = {"run", "compare --policies bfc,caching",
                                       "mincap --policies bfc"};
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        snprintf(args, sizeof args, "%s -c '%s' -t '%s' -q --json -", cmds[i], p, trace);
        CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
        CU_ASSERT(out && strstr(out, "u\303\251t\\\\xff.trace\"") && all_utf8(out));
        if (!out || !all_utf8(out))
            fprintf(stderr, "\n  %s: not UTF-8 or no path", cmds[i]);
        free(out);
        out = NULL;
    }
    const char *csv = tu_write("nu.csv", "policy,k,x\nb\377f,t1,1\nb\377f,t2,2\nb,t1,3\n"
                                         "b,t2,5\n");
    snprintf(args, sizeof args, "stats '%s' --metric x --json - -q", csv);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    CU_ASSERT(out && strstr(out, "\"b\\\\xfff\"") && all_utf8(out));
    free(out);
    char *h = report_of("nutf", "run_id,run,policy,trace,status,hbm.peak_live_bytes,"
                                "hbm.peak_reserved_bytes\n1,r1,b\377f,t\303\251\376,ok,"
                                "1048576,2097152\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    CU_ASSERT(strstr(h, "<td>b\\xfff</td>") != NULL);
    CU_ASSERT(strstr(h, "<td>t\303\251\\xfe</td>") != NULL);
    CU_ASSERT(all_utf8(h));
    free(h);
}

/* json_escape byte for byte around and between bytes that start no UTF-8 character: JSON's
 * own escapes (quote, backslash, C0, DEL, C1 as \u), well-formed characters as they are, each
 * bad byte as the text \xHH (a lone 0xff, a lead byte cut by 'A', a cut one at the end). */
static void test_json_escape_bytes(void)
{
    static const struct {
        const char *in, *out;
    } c[] = {
        {"", ""},
        {"plain", "plain"},
        {"q\"b\\n\nr\rt\t\001\177", "q\\\"b\\\\n\\nr\\rt\\t\\u0001\\u007f"},
        {"\302\233\303\251\360\237\230\200", "\\u009b\303\251\360\237\230\200"},
        {"\377", "\\\\xff"},
        {"a\377\"\302A\\\342\202", "a\\\\xff\\\"\\\\xc2A\\\\\\\\xe2\\\\x82"},
        {"\355\240\200\303\251", "\\\\xed\\\\xa0\\\\x80\303\251"}, /* a surrogate */
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        FILE *f = tmpfile();
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        json_escape(f, c[i].in);
        char buf[256] = {0};
        rewind(f);
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        CU_ASSERT(n == strlen(c[i].out) && memcmp(buf, c[i].out, n) == 0);
        if (n != strlen(c[i].out) || memcmp(buf, c[i].out, n) != 0)
            fprintf(stderr, "\n  case %zu: %s", i, buf);
    }
}

void suite_report(void)
{
    TU_SUITE("report", {"undefined_not_zero", test_report_undefined_not_zero},
             {"plot axes in the tables' units", test_report_axis_units},
             {"every_mean", test_report_every_mean},
             {"run, mincap, stats: paths and cells with control bytes printed escaped",
              test_text_tables_escape_controls},
             {"bar labels as written: '#', newline, quotes, backslash, no UTF-8, ESC",
              test_report_bar_labels_as_written},
             {"report: cells, columns, level and DIR with control bytes escaped in the HTML",
              test_report_html_escapes_controls},
             {"am_utf8_len: RFC 3629's forms only", test_utf8_len},
             {"JSON outputs and report.html: bytes that are no UTF-8 as \\xHH",
              test_json_html_not_utf8_escaped},
             {"json_escape: JSON's escapes and \\xHH for bytes that are no UTF-8, byte for byte",
              test_json_escape_bytes},
             {"report DIR/ names DIR/report.html with one slash", test_report_path_one_slash},
             {"report and stats: a DIR longer than 1024 bytes, whole", test_report_long_dir},
             {"runs out of memory: counted, left out of the means and bars",
              test_report_oom_left_out},
             {"runs out of memory on any level: counted by ooms, heat map and Runs table agree",
              test_report_oom_any_level},
             {"run and compare on a trace that allocates nothing: a note, the bound once",
              test_report_no_allocations},
             {"regress deviations: counted in the means, marked apart from failures (report "
              "and stats)", test_report_deviation_counts},
             {"heatmap_per_policy", test_report_heatmap_per_policy},
             {"heat map: axis values whole, every one drawn, labels as written",
              test_report_heatmap_axis_values_whole},
             {"stats_units_exact", test_stats_units_exact},
             {"stats DIR: a folder, DIR/results.csv suggested", test_stats_folder},
             {"typos: stats --metric/--by and mincap --level hints", test_typo_hints},
             {"stats: exact JSON, group order, n = 0, nothing written on failure, BOM, units, "
              "widths", test_stats_exact_order_edges},
             {"log_levels", test_log_levels}, {"log_single_level", test_log_single_level},
             {"timeline caption names the runs plotted", test_report_timeline_caption},
             {"timeline plots: the first 4 inputs, and the page says so",
              test_report_timeline_limit_said},
             {"timeline plots: inputs with nothing to draw take no slot, the note counts those "
              "drawn", test_report_timeline_slots_drawn},
             {"timeline plots per input (trace, seed); titles as written",
              test_report_timeline_per_input},
             {"timeline plots: every policy up to 16, each its colour; more named",
              test_report_timeline_every_policy},
             {"timeline plots: a policy's name as written in the keys; \"1 run\"",
              test_report_timeline_titles_as_written},
             {"timeline plots: one palette file both scripts load, found beside them",
              test_report_timeline_palette_shared},
             {"run report: sizes up to 16 EiB keep the level table's columns",
              test_run_report_large_sizes},
             {"run report: a link busy 1,000,000 s or more keeps the link table's columns",
              test_run_report_long_busy},
             {"run report: level and link columns widen to the longest name",
              test_run_report_long_names},
             {"heat map keeps an axis value whose runs failed; no gnuplot warnings",
              test_report_heatmap_failed_axis_value},
             {"no gnuplot: one message, status 1, nothing written", test_report_gnuplot_missing},
             {"a gnuplot that exits unread: status 2, never SIGPIPE",
              test_report_gnuplot_exits_early},
             {"a 128 KiB stack is enough: no crash, no scratch folder left",
              test_report_small_stack},
             {"interrupted: gnuplot stopped and reaped, nothing written outside its folder",
              test_report_interrupt_stops_gnuplot},
             {"nothing reserved: explicit ranges, no gnuplot warnings", test_report_all_zero},
             {"a report.html link is replaced, its target untouched", test_report_replaces_link},
             {"a TMPDIR of 240 bytes: the report is written", test_report_long_tmpdir},
             {"a TMPDIR with a space, a backslash or a quote: every plot is drawn",
              test_report_odd_tmpdir},
             {"stats: finite values whose squares overflow keep sd and CI",
              test_stats_huge_values},
             {"stats: tiny values whose squares underflow keep sd and CI",
              test_stats_tiny_values},
             {"report: a makespan near the 2^64 ps limit as results.csv has it",
              test_report_makespan_near_limit},
             {"report: policies grouped by their whole cell, as many as there are",
              test_report_policy_groups_whole},
             {"report: messages escape the control bytes of paths",
              test_report_messages_escaped},
             {"report: sizes of 2^64 bytes or more in EiB, means and cells",
              test_report_sizes_past_2_64},
             {"stats: whole numbers in full up to 2^64, beyond as in the JSON",
              test_stats_big_numbers},
             {"stats: figures past 2^53 exact from plain decimals", test_stats_exact_figures},
             {"stats --paired: overflowing differences halved, decimal differences exact",
              test_stats_paired_exact_differences},
             {"stats --paired: differences from 2^53 on exact, as the group rows",
              test_stats_paired_past_2_53},
             {"stats: exact figures from 2^53 on by one rule, text and JSON, every unit",
              test_stats_exact_one_rule},
             {"stats: a byte figure below 0.005 with 6 digits, not 0.00 or -0.00",
              test_stats_tiny_bytes},
             {"a long timeline is drawn as a bounded envelope that keeps its peak",
              test_report_timeline_envelope});
}
