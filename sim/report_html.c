/* report_html.c - `amsim report DIR`: DIR/report.html, one self-contained page with the results
 * tables and inline SVG plots of a batch output folder. It reads only outputs: DIR/results.csv
 * and, when the runs wrote them (batch --timeline), DIR/runs/NAME/timeline.csv. Plots are drawn by
 * the gnuplot scripts in analysis/ (found in $AMSIM_ANALYSIS, else the source tree's analysis/),
 * run by a gnuplot started in a scratch folder (start_gnuplot) with `set terminal svg`:
 *   peak_reserved.gp            mean peak reserved (and peak live) per policy
 *   memory_over_time.gp         live vs reserved over time, one line per policy, per trace
 *   fragmentation_over_time.gp  1 - allocated / reserved over time, per trace
 *   heatmap.gp                  the default level's peak reserved over the first two axes, one
 *                               map per policy
 *   timeline_palette.gp         the two timeline scripts' line colours, which both load */
#define _DEFAULT_SOURCE /* realpath */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "batch.h"
#include "common.h"
#include "cli.h"
#include "outfile.h"
#include "units.h"

#ifndef AMSIM_SOURCE_DIR
#define AMSIM_SOURCE_DIR "."
#endif

#define RH_MAX_PLOT_TRACES 4
/* The most lines (policies) a timeline plot draws: every policy amsim has (10, offline
 * included) and room to spare; the scripts' palette has as many colours. A policy past it is
 * named in the caption (until 2026-11-27 the cap was 8 and a 9th policy, e.g. tlsf in a study of
 * every policy, was left out silently). */
#define RH_MAX_LINES 16

static const char *prog = "amsim report";

/* src as the page shows it, malloc'd: its control bytes escaped as the text tables and
 * messages write them (am_escape_dup: C0 controls, tab and newline among them, and DEL as \xHH,
 * a C1 control as \xc2\xHH), and each byte that starts no well-formed UTF-8 character
 * (am_utf8_len: a results.csv cell's 0xff, a Latin-1 file name) as \xHH too, since the page
 * declares utf-8 (until 2026-11-28 such bytes went into the page and its SVG raw). */
static char *page_dup(const char *src)
{
    char *esc = am_escape_dup(src), *out = am_utf8_escape_dup(esc);
    free(esc);
    return out;
}

/* Text from results.csv or the command line (a cell, a column, a level, DIR, a caption built
 * from them) as the page shows it (page_dup), then &, <, > and " as entities. Until 2026-11-27
 * control bytes went into the page raw (an ESC, a C1 CSI), as the text tables wrote them
 * before. */
static void html_esc(FILE *f, const char *src)
{
    char *esc = page_dup(src);
    for (const char *s = esc; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
    free(esc);
}

typedef struct ctx {
    const char *dir;
    char tmp[PATH_MAX]; /* under $TMPDIR, any length a path may have (until 2026-11-27 256 bytes) */
    const char *scripts; /* $AMSIM_ANALYSIS or the source tree's analysis/, any length, made
                          * absolute: gnuplot runs in tmp (see plot()) */
    FILE *html;
    int nplots, failed;
    rtable t;
    int c_run, c_policy, c_trace, c_status, c_axis0, naxes;
    int c_ooms; /* the run's total out-of-memory events (column ooms), -1 when absent */
    int any_ooms; /* 1 when the table counts out-of-memory events at all (ooms or LEVEL.ooms) */
    int *c_level_ooms; /* the LEVEL.ooms columns (level_ooms_col), found once by cmd_report */
    int n_level_ooms;
    char level[128];
    char gnuplot[PATH_MAX + 16]; /* find_gnuplot */
} ctx;

/* Words for gnuplot: no whitespace, quotes or control bytes inside, as gnuplot's word() splits
 * a list at any whitespace and reads quotes in it. A control byte is written as the tables and
 * messages write it (page_dup: a newline is \x0a), a space, tab or quote as '_' (until
 * 2026-11-27 a newline or other control byte went in raw: a value "ca\nch" became two words and
 * every later title or axis value moved one place). The list they are joined into is still
 * handed over as a gp_lit() literal, so a backslash stays a backslash. */
static void word(char *dst, size_t n, const char *src)
{
    char *esc = page_dup(src);
    size_t k = 0;
    for (const char *s = esc; *s && k + 1 < n; s++)
        dst[k++] = (*s == ' ' || *s == '"' || *s == '\'') ? '_' : *s;
    dst[k] = 0;
    free(esc);
}

/* A gnuplot single-quoted string literal of src, quotes included: a quote doubled, control
 * bytes escaped as the page writes them (page_dup: \x1b, a C1 control \xc2\x9b; a
 * backslash is no escape in single quotes, so the title shows them so). Single quotes, because
 * gnuplot substitutes `command` output inside double-quoted strings; a plot title shows the
 * text as written (until 2026-11-27 titles went through word(), so `a,b "q".trace` was titled
 * a,b__q_.trace; and until 2026-11-27 a C0 control was a space and a C1 one went in raw, into
 * the SVG and so the page). */
static void gp_str(char *dst, size_t n, const char *src)
{
    size_t k = 0;
    if (n < 3)
        return;
    char *esc = page_dup(src);
    dst[k++] = '\'';
    for (const char *s = esc; *s && k + 3 < n; s++) {
        if (*s == '\'')
            dst[k++] = '\'';
        dst[k++] = *s;
    }
    free(esc);
    dst[k++] = '\'';
    dst[k] = 0;
}

/* An exact gnuplot string expression of src, malloc'd (NULL when out of memory): single-quoted
 * runs, where only a quote is special (doubled) and no `command` is substituted, joined by `.`
 * to a double-quoted octal escape for each control character ('a'."\012".'b'), which a
 * single-quoted string cannot hold. For paths, which must reach gnuplot unchanged. */
static char *gp_lit(const char *src)
{
    char *dst = malloc(strlen(src) * 10 + 3), *k = dst;
    if (!dst)
        return NULL;
    *k++ = '\'';
    for (; *src; src++) {
        unsigned char ch = (unsigned char)*src;
        if (ch < 32 || ch == 127)
            k += sprintf(k, "'.\"\\%03o\".'", ch);
        else if (ch == '\'')
            k += sprintf(k, "''");
        else
            *k++ = (char)ch;
    }
    *k++ = '\'';
    *k = 0;
    return dst;
}

/* Appends the gnuplot command `name = 'val'` and a newline to the text in dst (n bytes), val
 * escaped by gp_lit(); dst is left as it was when it would not fit. -1 then (or out of memory). */
static int gp_set(char *dst, size_t n, const char *name, const char *val)
{
    char *lit = gp_lit(val);
    size_t used = strlen(dst);
    int k = lit ? snprintf(dst + used, n - used, "%s = %s\n", name, lit) : -1;
    free(lit);
    if (k < 0 || (size_t)k >= n - used) {
        dst[used] = 0;
        return -1;
    }
    return 0;
}

/* gp_set of val as the page shows it: its control bytes escaped (page_dup), since
 * gp_lit keeps them exact and gnuplot would write them raw into the SVG. */
static int gp_set_shown(char *dst, size_t n, const char *name, const char *val)
{
    char *shown = page_dup(val);
    int rc = gp_set(dst, n, name, shown);
    free(shown);
    return rc;
}

/* gnuplot's wait status (wait_gnuplot) in words: "exit status 1", "killed by signal 9", or
 * "no SVG written" when gnuplot exited 0 (until 2026-11-27 the raw wait status was printed,
 * e.g. "status 32512"). */
static void wait_status_text(char *dst, size_t n, int st)
{
    if (st == -1)
        snprintf(dst, n, "wait: %s", strerror(errno));
    else if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
        snprintf(dst, n, "exit status %d", WEXITSTATUS(st));
    else if (WIFSIGNALED(st))
        snprintf(dst, n, "killed by signal %d", WTERMSIG(st));
    else
        snprintf(dst, n, "no SVG written");
}

/* The gnuplot plot() runs: the first executable named gnuplot in a $PATH directory, into
 * c->gnuplot, made absolute (an empty entry is the current directory, as a shell reads it, and
 * gnuplot is started in the scratch folder). 0, or -1 when there is none. */
static int find_gnuplot(ctx *c)
{
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    char cwd[PATH_MAX] = "";
    if (!getcwd(cwd, sizeof cwd))
        cwd[0] = 0; /* a relative entry is then looked up from nowhere: skipped */
    for (const char *p = path;;) {
        size_t l = strcspn(p, ":");
        int rel = l == 0 || p[0] != '/';
        char *exe = c->gnuplot;
        int k = snprintf(exe, sizeof c->gnuplot, "%s%s%.*s%sgnuplot", rel ? cwd : "",
                         rel ? "/" : "", (int)l, p, l ? "/" : "");
        struct stat sb;
        if ((!rel || cwd[0]) && k > 0 && (size_t)k < sizeof c->gnuplot && stat(exe, &sb) == 0 &&
            S_ISREG(sb.st_mode) && access(exe, X_OK) == 0)
            return 0;
        if (!p[l]) {
            c->gnuplot[0] = 0;
            return -1;
        }
        p += l + 1;
    }
}

/* Start gnuplot in the scratch folder, reading its script from *in: its pid, or -1 with errno.
 * Its working folder is the scratch folder from the start, so no name it is given can land
 * anywhere else: until 2026-11-28 it was popen()ed in the caller's folder and sent `cd`
 * first, and an interrupt that removed the scratch folder before the `cd` ran left it writing
 * plotN.svg there, emptying the caller's same-named files. It is tracked (out_track_child)
 * before the stop signals are unblocked, so an interrupt stops and reaps it before the
 * scratch folder is removed. */
static pid_t start_gnuplot(ctx *c, FILE **in)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    sigset_t stop, old;
    out_stop_signals(&stop);
    sigprocmask(SIG_BLOCK, &stop, &old);
    pid_t pid = fork();
    if (pid == 0) {
        /* the command's handlers would remove its files: gnuplot gets the dispositions it
         * would have got from exec (one ignored at the start stays ignored) */
        for (int s = 1; s < NSIG; s++) {
            struct sigaction cur;
            if (sigismember(&stop, s) && sigaction(s, NULL, &cur) == 0 &&
                cur.sa_handler != SIG_IGN)
                signal(s, SIG_DFL);
        }
        sigprocmask(SIG_SETMASK, &old, NULL);
        close(fds[1]);
        if (dup2(fds[0], 0) < 0 || chdir(c->tmp) != 0)
            _exit(127);
        close(fds[0]);
        execl(c->gnuplot, "gnuplot", (char *)NULL);
        _exit(127);
    }
    int e = errno;
    if (pid > 0)
        out_track_child(pid, 1);
    sigprocmask(SIG_SETMASK, &old, NULL);
    close(fds[0]);
    *in = pid > 0 ? fdopen(fds[1], "w") : NULL;
    if (pid > 0 && !*in) { /* no script: gnuplot reads an end of file and exits */
        e = errno;
        close(fds[1]);
    } else if (pid < 0)
        close(fds[1]);
    errno = e;
    return pid;
}

/* Wait for gnuplot (start_gnuplot) to end: its wait status, or -1 with errno. Waited for
 * without reaping first, so that it stays tracked (out_track_child) until it is reaped here. */
static int wait_gnuplot(pid_t pid)
{
    siginfo_t si;
    while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) != 0)
        if (errno != EINTR)
            return -1;
    sigset_t stop, old;
    out_stop_signals(&stop);
    sigprocmask(SIG_BLOCK, &stop, &old);
    out_track_child(pid, 0);
    int st;
    pid_t w;
    while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
        ;
    int e = errno;
    sigprocmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return w == pid ? st : -1;
}

/* Run a script with variable assignments; embed the SVG it wrote. gnuplot runs in the scratch
 * folder (start_gnuplot), so every file it reads or writes there goes by a plain relative name
 * (tl0_1.dat, plot3.svg) that needs no quoting in the scripts' whitespace-separated `files`
 * list, whatever $TMPDIR holds; the scripts' folder is a gp_lit() literal. (Until 2026-11-27
 * the full paths were written into double-quoted strings and `files`: a $TMPDIR with a space, a
 * backslash or a double quote broke every timeline plot, status 2.) */
static void plot(ctx *c, const char *script, const char *vars, const char *caption)
{
    char out[PATH_MAX + 64], rel[64];
    snprintf(rel, sizeof rel, "plot%d.svg", c->nplots++);
    snprintf(out, sizeof out, "%s/%s", c->tmp, rel);
    FILE *g = NULL;
    pid_t pid = start_gnuplot(c, &g);
    if (pid < 0) {
        am_msg("%s: cannot run gnuplot: %s\n", prog, strerror(errno));
        c->failed++;
        return;
    }
    /* A gnuplot that exits before reading its script closes the pipe: with SIGPIPE ignored
     * around the write (after the fork, so gnuplot itself keeps its own disposition) that is a
     * write error, EPIPE, and the plot fails like any other gnuplot failure. Until 2026-11-27
     * the outcome was a race: usually "gnuplot failed" (status 2), sometimes the report killed
     * by SIGPIPE (status 141). */
    struct sigaction ign, old_pipe;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, &old_pipe);
    char *path = am_path_join_dup(c->scripts, script), *dir = am_path_join_dup(c->scripts, "");
    /* analysis_dir: the scripts' folder, ending in '/', where the timeline scripts load the
     * palette they share (timeline_palette.gp) from, as gnuplot runs in the scratch folder */
    char *load = gp_lit(path), *adir = gp_lit(dir);
    if (g && load && adir)
        fprintf(g, "out = '%s'\nanalysis_dir = %s\n%s\nload %s\n", rel, adir, vars, load);
    /* half a script: no SVG */
    int write_failed = !g || !load || !adir || fflush(g) != 0 || ferror(g);
    if (g && fclose(g) != 0)
        write_failed = 1;
    free(load);
    free(adir);
    free(dir);
    free(path);
    int st = wait_gnuplot(pid);
    sigaction(SIGPIPE, &old_pipe, NULL);
    char *svg = st == 0 && !write_failed ? am_slurp(out) : NULL;
    char *start = svg ? strstr(svg, "<svg") : NULL;
    if (!start) {
        char why[64];
        wait_status_text(why, sizeof why, st); /* exited 0 unread: "no SVG written" */
        am_msg("%s: gnuplot failed on %s (%s)\n", prog, script, why);
        c->failed++;
        fprintf(c->html, "<p class=err>plot failed: %s</p>\n", script);
        free(svg);
        return;
    }
    fprintf(c->html, "<figure>\n%s\n<figcaption>", start);
    html_esc(c->html, caption);
    fprintf(c->html, "</figcaption></figure>\n");
    free(svg);
    unlink(out);
}

/* A row with a finished run's metrics, the page's "successful" runs: status ok, or a regress
 * deviation (the run finished; only its expectation check moved), as batch counts it apart from
 * failures and stats counts it (until 2026-11-27 a deviation was a failure here: "6 runs, 4
 * succeeded", and its metrics were in no mean). */
static int finished_row(const ctx *c, int r)
{
    return c->c_status < 0 || rt_status_has_metrics(c->t.rows[r][c->c_status]);
}

/* A row whose run deviated from its regress expectation. */
static int deviated_row(const ctx *c, int r)
{
    return c->c_status >= 0 && strcmp(c->t.rows[r][c->c_status], "deviation") == 0;
}

static const char *cell(const ctx *c, int r, const char *col)
{
    int k = rtable_col(&c->t, col);
    return k >= 0 ? c->t.rows[r][k] : "";
}

static void fmt_metric(char *b, size_t n, const char *col, const char *v)
{
    double x;
    size_t l = strlen(col);
    if (rtable_num(v, &x) != 0) { /* as stats reads it: no hex, inf or nan */
        snprintf(b, n, "%s", v);
        return;
    }
    if (l > 6 && strcmp(col + l - 6, "_bytes") == 0 && x >= 0) {
        /* the cell's whole number exactly when it is one (a double from 2^53 is rounded); else
         * the double in the largest binary unit up to EiB, past 16 EiB too ("24.00 EiB", as the
         * run report's 128-bit totals print): until 2026-11-27 a per-policy mean of 2^64 bytes
         * or more printed raw, "1.8446744073709552e+19 B" */
        const char *why;
        uint64_t bytes;
        if (units_size_whole(v, &bytes, &why) == 0)
            units_fmt_size(b, n, bytes);
        else if (x < 18446744073709551616.0)
            units_fmt_size(b, n, (uint64_t)x);
        else if (x < 340282366920938463463374607431768211456.0) /* 2^128: converts */
            units_fmt_size128(b, n, (am_u128)x);
        else
            snprintf(b, n, "%.2f EiB", x / 1152921504606846976.0);
        return;
    }
    if (strstr(col, "ratio") || strstr(col, "utilization") || strstr(col, "fragmentation")) {
        units_fmt_pct(b, n, x);
        return;
    }
    if (l > 8 && strcmp(col + l - 8, "_seconds") == 0) {
        /* results.csv's seconds are picosecond-exact text: read exactly (a double near the
         * 2^64 ps limit rounds to 2^64, which does not convert: until 2026-11-27 a makespan of
         * 18446744.073709551613 s showed as 0 ps); else rounded to the nearest picosecond when
         * that fits; else as it is, with its unit */
        const char *why;
        am_ps ps;
        double p = x * 1e12 + 0.5;
        if (units_time(v, &ps, &why) == 0)
            units_fmt_time(b, n, ps);
        else if (x >= 0 && p < 18446744073709551616.0)
            units_fmt_time(b, n, (am_ps)p);
        else
            snprintf(b, n, "%s s", v);
        return;
    }
    snprintf(b, n, "%s", v);
}

static double row_ooms(const ctx *c, int r);

/* Every run: its identifying columns, the level's metrics (its own out-of-memory events among
 * them) and, when the table counts them, the run's out-of-memory events on all levels, the count
 * the per-policy table and the heat map go by (until 2026-11-27 only the level's count showed). */
static void results_table(ctx *c)
{
    static const char *metrics[] = {"peak_live_bytes", "peak_reserved_bytes", "fragmentation_ratio",
                                    "max_external_fragmentation", "ooms"};
    FILE *f = c->html;
    fprintf(f, "<h2>Runs</h2>\n<table>\n<tr>");
    int last_id = c->c_status;
    for (int k = 0; k < last_id + 1; k++) {
        fputs("<th>", f);
        html_esc(f, c->t.cols[k]);
        fputs("</th>", f);
    }
    for (size_t m = 0; m < AM_ARRAY_LEN(metrics); m++)
    {
        fputs("<th>", f);
        html_esc(f, c->level); /* a level is a column's prefix, as results.csv has it */
        fprintf(f, " %s</th>", metrics[m]);
    }
    if (c->any_ooms)
        fputs("<th>ooms (all levels)</th>", f);
    fputs("<th>makespan</th><th>error</th></tr>\n", f);
    for (int r = 0; r < c->t.nrows; r++) {
        /* a deviated run is marked apart from a failed one: its metrics count */
        const char *cls = deviated_row(c, r) ? " class=dev" : finished_row(c, r) ? "" : " class=bad";
        fprintf(f, "<tr%s>", cls);
        for (int k = 0; k < last_id + 1; k++) {
            fputs("<td>", f);
            html_esc(f, c->t.rows[r][k]);
            fputs("</td>", f);
        }
        for (size_t m = 0; m < AM_ARRAY_LEN(metrics); m++) {
            char col[256], b[64];
            snprintf(col, sizeof col, "%s.%s", c->level, metrics[m]);
            fmt_metric(b, sizeof b, col, cell(c, r, col));
            fputs("<td class=num>", f);
            html_esc(f, b);
            fputs("</td>", f);
        }
        if (c->any_ooms) {
            double o = row_ooms(c, r);
            if (o >= 0)
                fprintf(f, "<td class=num>%.0f</td>", o);
            else
                fputs("<td class=num></td>", f);
        }
        char b[64];
        fmt_metric(b, sizeof b, "makespan_seconds", cell(c, r, "makespan_seconds"));
        fprintf(f, "<td class=num>%s</td><td>", b);
        html_esc(f, cell(c, r, "error"));
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* A metric cell as a number: 1, or 0 when the run left it undefined (an empty cell: e.g. the
 * fragmentation ratio of a run that reserved nothing) or it is not a finite number. Undefined
 * values are left out of every mean, as `amsim stats` leaves them out (until 2026-11-25 atof
 * read them as 0: a 50 % and an undefined ratio averaged to 25 %). */
static int num_cell(const char *s, double *v) { return rtable_num(s, v) == 0; }

/* A mean over the k runs that define a metric, of n successful runs: the value with its unit,
 * then "(n = k)" when some runs left it undefined; "n/a (n = 0)" when none defined it. */
static void fmt_mean(char *b, size_t len, const char *col, double sum, int k, int n)
{
    if (!k) {
        snprintf(b, len, "n/a (n = 0)");
        return;
    }
    char v[40], x[64];
    snprintf(x, sizeof x, "%.17g", sum / k);
    fmt_metric(v, sizeof v, col, x);
    if (k < n)
        snprintf(b, len, "%s (n = %d)", v, k);
    else
        snprintf(b, len, "%s", v);
}

/* 1 when column k counts one level's out-of-memory events (LEVEL.ooms; not the policy
 * statistics' LEVEL.stats.num_ooms, which the level's count already holds). */
static int level_ooms_col(const char *col)
{
    size_t l = strlen(col);
    return l > 5 && strcmp(col + l - 5, ".ooms") == 0;
}

/* The out-of-memory events of row r on every level: the run's ooms, else the sum of its
 * LEVEL.ooms cells; -1 when the table has none or no cell is a number. A run that ran out on
 * any level served fewer requests, and on a spilling config the level that ran out is often
 * not the default one: until 2026-11-27 only the default level's count was read, and a run with
 * 7 events on host (none on hbm) was averaged in as if it had served everything. */
static double row_ooms(const ctx *c, int r)
{
    double v, sum = 0;
    int any = 0;
    if (c->c_ooms >= 0)
        return num_cell(c->t.rows[r][c->c_ooms], &v) ? v : -1;
    for (int i = 0; i < c->n_level_ooms; i++)
        if (num_cell(c->t.rows[r][c->c_level_ooms[i]], &v)) {
            sum += v;
            any = 1;
        }
    return any ? sum : -1;
}

/* The out-of-memory columns of c's table, found once (row_ooms reads them for every row). */
static void find_ooms_cols(ctx *c)
{
    c->c_ooms = rtable_col(&c->t, "ooms");
    c->c_level_ooms = am_calloc((size_t)c->t.ncols + 1, sizeof *c->c_level_ooms);
    c->n_level_ooms = 0;
    for (int k = 0; k < c->t.ncols; k++)
        if (level_ooms_col(c->t.cols[k]))
            c->c_level_ooms[c->n_level_ooms++] = k;
    c->any_ooms = c->c_ooms >= 0 || c->n_level_ooms > 0;
}

/* What cmd_report's ctx holds on the heap: its table and the columns found in it. */
static void ctx_free(ctx *c)
{
    rtable_free(&c->t);
    free(c->c_level_ooms);
    c->c_level_ooms = NULL;
    c->n_level_ooms = 0;
}


/* A bar's label, malloc'd: the policy as written (its control bytes escaped, page_dup) and,
 * when some of its runs ran out of memory (and were left out), how many: "bfc (OOM in 1 of 2)".
 * Until 2026-11-27 it went through word(), "bfc_(OOM_in_1_of_2)". */
static char *bar_label(const char *policy, int oom_runs, int runs)
{
    char *esc = page_dup(policy), *lab = am_malloc(strlen(esc) + 64);
    if (oom_runs)
        sprintf(lab, "%s (OOM in %d of %d)", esc, oom_runs, runs);
    else
        strcpy(lab, esc);
    free(esc);
    return lab;
}

/* A plot's axis units, appended to its gnuplot variables: the byte axis (yunit, ydiv) in the
 * binary unit the tables would print its top value in (the largest whose figure stays below
 * 1024, as units_fmt_size chooses; MiB when nothing is drawn), and the time axis (xunit, xdiv:
 * what a microsecond of the data is divided by) in ns, us, ms or s by its latest time. Until
 * 2026-11-28 the axes were always MiB and us: an 80 GiB device's axis read 81920 beside the
 * table's "80.00 GiB". t_hi < 0: no time axis. */
static void axis_units(char *dst, size_t n, double bytes_hi, double t_hi)
{
    /* a mean's top value, rounded to whole bytes as the tables print it */
    int u = !(bytes_hi > 0) ? 2
            : units_size_unit(bytes_hi >= 0x1p127 ? ~(am_u128)0 : (am_u128)(bytes_hi + 0.5));
    int k = snprintf(dst, n, "\nyunit = \"%s\"\nydiv = %.17g", units_size_name(u),
                     ldexp(1.0, 10 * u));
    if (t_hi < 0 || k < 0 || (size_t)k >= n)
        return;
    const char *tu = t_hi >= 1e6 ? "s" : t_hi >= 1e3 ? "ms" : t_hi >= 1 || t_hi == 0 ? "us" : "ns";
    double div = t_hi >= 1e6 ? 1e6 : t_hi >= 1e3 ? 1e3 : t_hi >= 1 || t_hi == 0 ? 1 : 1e-3;
    snprintf(dst + k, n - (size_t)k, "\nxunit = \"%s\"\nxdiv = %.17g", tu, div);
}

/* The gnuplot commands that set peak_reserved.gp's inputs, malloc'd: data, ttl, ymax when every
 * bar is 0 (a range of its own, 0 to 1 MiB, as gnuplot would otherwise widen the empty one with
 * a warning on stderr), and the array labels, one exact string per data line (gp_lit), which the
 * script prefers to the data's first column. A label in the data file itself cannot hold every
 * policy: gnuplot reads a '#' there as a comment, a newline as the line's end and a '"' as the
 * end of a quoted column (until 2026-11-27 the labels were data words, and '#bfc' lost its bar,
 * "ca\nch" split into two). */
static char *bar_vars(const ctx *c, char *const *labels, int np, int nonzero, double hi)
{
    char ttl[200];
    char *level = page_dup(c->level); /* the title shows it as the page does */
    snprintf(ttl, sizeof ttl, "peak reserved per policy (%s)", level);
    free(level);
    size_t cap = PATH_MAX + 1024;
    for (int q = 0; q < np; q++)
        cap += strlen(labels[q]) * 10 + 32; /* gp_lit's worst: 10 bytes a byte */
    char *vars = am_malloc(cap);
    vars[0] = 0;
    /* the data by its name in the scratch folder, where plot() runs gnuplot */
    gp_set(vars, cap, "data", "policies.dat");
    gp_set(vars, cap, "ttl", ttl);
    strcat(vars, nonzero ? "" : "ymax = 1\n");
    char units[80];
    axis_units(units, sizeof units, hi, -1);
    strcat(vars, units + 1); /* without its first newline: vars ends in one */
    strcat(vars, "\n");
    sprintf(vars + strlen(vars), "array labels[%d]\n", np > 0 ? np : 1);
    for (int q = 0; q < np; q++) {
        char name[32];
        snprintf(name, sizeof name, "labels[%d]", q + 1);
        gp_set(vars, cap, name, labels[q]);
    }
    return vars;
}
/* One policy of the per-policy table: its cell in results.csv (the table's own text), its
 * successful runs, those that ran out of memory and their events, and per metric (live,
 * reserved, fragmentation ratio) the sum and count of the runs that define it. */
typedef struct pol_group {
    const char *name;
    double sum[3], oom_events;
    int k[3], n, oom_runs;
} pol_group;

/* Mean peak live, peak reserved and fragmentation ratio per policy, each over the successful
 * runs that define it and had no out-of-memory event on the level, with the number of runs that
 * ran out and their events: a table and a bar chart. A run that ran out served fewer requests, so
 * it can peak lower than a run that served them all (README, Metrics): until 2026-11-27 its
 * peaks went into the means, and a policy that failed 56 requests under a 50 GiB limit showed as
 * the cheapest, its out-of-memory events only in the Runs table. Such runs are left out, as
 * compare marks their gap n/a; a policy every run of which ran out has n/a means and no bar,
 * and its bar label says how many of its runs ran out. */
static void policy_summary(ctx *c)
{
    enum { M_LIVE, M_RESERVED, M_FRAG, M_N };
    static const char *const metrics[M_N] = {"peak_live_bytes", "peak_reserved_bytes",
                                             "fragmentation_ratio"};
    char cols[M_N][256];
    int cc[M_N];
    for (int m = 0; m < M_N; m++) {
        snprintf(cols[m], sizeof cols[m], "%s.%s", c->level, metrics[m]);
        cc[m] = rtable_col(&c->t, cols[m]);
    }
    if (cc[M_RESERVED] < 0 || cc[M_LIVE] < 0 || c->c_policy < 0)
        return;
    /* one group per distinct policy cell, whole and as written, as `amsim stats --by policy`
     * groups rows, on the heap: until 2026-11-27 names were cut at 63 bytes (a longer policy
     * split into one row per run) and a 33rd policy was left out of the table and the bars */
    pol_group *g = am_calloc((size_t)c->t.nrows + 1, sizeof *g);
    int np = 0, undefined = 0, any_oom = 0, any_dev = 0;
    /* policies in the order they first appear in any row, as `amsim stats` orders its groups
     * (until 2026-11-27 by their first successful row); one without a successful run is not
     * shown */
    for (int r = 0; r < c->t.nrows; r++) {
        const char *p = c->t.rows[r][c->c_policy];
        int q = 0;
        while (q < np && strcmp(g[q].name, p) != 0)
            q++;
        if (q == np)
            g[np++].name = p;
        if (!finished_row(c, r))
            continue;
        g[q].n++;
        any_dev += deviated_row(c, r);
        double o = row_ooms(c, r);
        if (o > 0) {
            g[q].oom_runs++;
            g[q].oom_events += o;
            any_oom = 1;
            continue;
        }
        for (int m = 0; m < M_N; m++) {
            double v;
            if (cc[m] >= 0 && num_cell(c->t.rows[r][cc[m]], &v)) {
                g[q].sum[m] += v;
                g[q].k[m]++;
            } else if (cc[m] >= 0)
                undefined++;
        }
    }
    int kept = 0;
    for (int q = 0; q < np; q++)
        if (g[q].n)
            g[kept++] = g[q];
    np = kept;
    if (!np) {
        free(g);
        return;
    }
    FILE *f = c->html;
    /* the out-of-memory columns when the table counts them (every batch's does); they count
     * every level's events, as a run that ran out anywhere is left out */
    fputs("<h2>Per policy (", f);
    html_esc(f, c->level);
    fprintf(f, ", mean over successful runs%s)</h2>\n<table>\n<tr>"
               "<th>policy</th><th>runs</th>%s<th>peak live</th><th>peak reserved</th>"
               "<th>fragmentation ratio</th></tr>\n",
            c->any_ooms ? " without out-of-memory events on any level" : "",
            c->any_ooms ? "<th>runs out of memory (any level)</th>"
                          "<th>out-of-memory events (all levels)</th>" : "");
    char data[PATH_MAX + 64];
    snprintf(data, sizeof data, "%s/policies.dat", c->tmp);
    FILE *d = fopen(data, "w");
    int bars = 0, nonzero = 0;
    double bar_hi = 0; /* the highest bar, bytes (axis_units) */
    char **labels = am_calloc((size_t)np, sizeof *labels); /* each bar's label, as plotted */
    for (int q = 0; q < np; q++) {
        char w[64];
        const pol_group *pg = &g[q];
        fprintf(f, "<tr%s><td>", pg->oom_runs ? " class=bad" : "");
        html_esc(f, pg->name);
        fprintf(f, "</td><td class=num>%d</td>", pg->n);
        if (c->any_ooms)
            fprintf(f, "<td class=num>%d</td><td class=num>%.0f</td>", pg->oom_runs,
                    pg->oom_events);
        for (int m = 0; m < M_N; m++) {
            char b[96];
            fmt_mean(b, sizeof b, cols[m], pg->sum[m], pg->k[m], pg->n);
            fputs("<td class=num>", f);
            html_esc(f, b);
            fputs("</td>", f);
        }
        fputs("</tr>\n", f);
        labels[q] = bar_label(pg->name[0] ? pg->name : "config", pg->oom_runs, pg->n);
        /* the label in the data is a readable stand-in for using the script by hand: the plot
         * takes the exact one from the labels array (see bar_vars) */
        word(w, sizeof w, labels[q]);
        for (char *b = strchr(w, '\\'); b; b = strchr(b, '\\'))
            *b = '_'; /* gnuplot reads a backslash in a quoted column as an escape */
        /* NaN: gnuplot draws no bar for a mean no run defines */
        double res = pg->k[M_RESERVED] ? pg->sum[M_RESERVED] / pg->k[M_RESERVED] : (double)NAN;
        double live = pg->k[M_LIVE] ? pg->sum[M_LIVE] / pg->k[M_LIVE] : (double)NAN;
        if (d)
            fprintf(d, "\"%s\" %.17g %.17g\n", w, res, live);
        if (res > bar_hi) /* false for NaN */
            bar_hi = res;
        if (live > bar_hi)
            bar_hi = live;
        bars += pg->k[M_RESERVED] > 0;
        if (pg->k[M_RESERVED] && pg->sum[M_RESERVED] > 0)
            nonzero = 1;
        if (pg->k[M_LIVE] && pg->sum[M_LIVE] > 0)
            nonzero = 1;
    }
    fputs("</table>\n", f);
    if (any_oom)
        fputs("<p>A run with out-of-memory events on any level (its <code>ooms</code> in "
              "results.csv) served fewer requests and can peak lower than one that served them "
              "all: it is left out of the means (and the bars), as <code>amsim compare</code> "
              "marks its gap n/a when any level ran out; <i>n</i> is then the number of runs "
              "the mean is over. See its row in the Runs table.</p>\n", f);
    if (any_dev)
        fprintf(f, "<p>%d run%s deviated from %s regress expectation%s: %s finished, so %s "
                   "metrics count here as an ok run's do (as <code>amsim stats</code> counts "
                   "them); %s marked <i>deviation</i> in the Runs table.</p>\n", any_dev,
                any_dev == 1 ? "" : "s", any_dev == 1 ? "its" : "their", any_dev == 1 ? "" : "s",
                any_dev == 1 ? "it" : "they", any_dev == 1 ? "its" : "their",
                any_dev == 1 ? "it is" : "they are");
    if (undefined)
        fputs("<p>A metric a run leaves undefined (an empty cell in results.csv, such as the "
              "fragmentation ratio of a run that reserved nothing) is left out of its mean, as "
              "<code>amsim stats</code> leaves it out; <i>n</i> is then the number of runs the "
              "mean is over.</p>\n", f);
    if (d) {
        fclose(d);
        char *vars = bar_vars(c, labels, np, nonzero, bar_hi);
        if (bars)
            plot(c, "peak_reserved.gp", vars, any_oom
                 ? "Peak reserved (and peak live) bytes per policy, mean over the successful "
                   "runs that define them and did not run out of memory on any level; a label "
                   "(OOM in K of N) counts the runs left out, and a policy all of whose runs ran "
                   "out has no bar."
                 : "Peak reserved (and peak live) bytes per policy, mean over the successful "
                   "runs that define them.");
        free(vars);
    }
    for (int q = 0; q < np; q++)
        free(labels[q]);
    free(labels);
    free(g);
}

/* The time (us) and reserved bytes a trace's timeline plots span. */
typedef struct tl_span {
    int any;
    double t_lo, t_hi, reserved_hi;
} tl_span;

/* The most points a timeline line is drawn with: a longer timeline is cut into
 * RH_TL_GROUPS groups of consecutive rows, each drawn by the rows where live, reserved and the
 * free share reach their least and greatest (up to 6 rows), plus the first and last rows: a
 * min/max envelope, so no peak is lost (until 2026-11-27 every row was drawn: a 1M-event trace
 * gave a 53 MB report.html). Groups are by row, not time, so the bound holds whatever the
 * times. */
#define RH_TL_POINTS 2000
#define RH_TL_GROUPS ((RH_TL_POINTS - 2) / 6)

/* One timeline.csv row of the level: its index among the level's rows, time (us), and live,
 * reserved and allocated bytes as numbers (for comparing) and as written (for the data). */
typedef struct tl_row {
    long idx;
    double t, v[3];             /* live, reserved, allocated */
    char text[3][32];
} tl_row;

/* 1 for timeline.csv's header line (skipped by position would do too, but a level named
 * "level" must not read it as a row). */
static int header_line(const char *line)
{
    return strncmp(line, "time_ps,seq,level,", 18) == 0;
}

/* line (time_ps,seq,level,live_bytes,allocated_bytes,reserved_bytes) into *r: 1 when it is a
 * row of level (the header and other levels' rows are not). */
static int tl_parse(const char *level, char *line, tl_row *r)
{
    char *f[8];
    int n = 0;
    for (char *p = line; n < 8;) {
        f[n++] = p;
        p = strchr(p, ',');
        if (!p)
            break;
        *p++ = 0;
    }
    if (n < 6 || strcmp(f[2], level) != 0)
        return 0;
    f[5][strcspn(f[5], "\r\n")] = 0;
    /* every cell was checked (check_timeline_text): empty or a finite decimal. An empty one is
     * NaN, which gnuplot skips, as results.csv's empty cells are left out of the means; a cell
     * too long to keep as written goes in as its double */
    double t;
    r->t = rtable_num(f[0], &t) == 0 ? t / 1e6 : (double)NAN;
    const char *cols[3] = {f[3], f[5], f[4]};
    for (int k = 0; k < 3; k++) {
        if (rtable_num(cols[k], &r->v[k]) != 0)
            r->v[k] = (double)NAN;
        if (isnan(r->v[k]))
            snprintf(r->text[k], sizeof r->text[k], "NaN");
        else if (strlen(cols[k]) < sizeof r->text[k])
            snprintf(r->text[k], sizeof r->text[k], "%s", cols[k]);
        else
            snprintf(r->text[k], sizeof r->text[k], "%.17g", r->v[k]);
    }
    return 1;
}

/* The free share of reserved memory (fragmentation_over_time.gp's line), NAN when nothing is
 * reserved. */
static double tl_free_share(const tl_row *r)
{
    return r->v[1] > 0 ? 1 - r->v[2] / r->v[1] : (double)NAN;
}

/* What was written of one timeline: rows of the level, points written, the greatest reserved
 * among them (as written). */
typedef struct tl_out {
    FILE *o;
    long rows, points, last;    /* last: index of the last row written */
    double peak;
    char peak_text[32];
} tl_out;

static void tl_put(tl_out *w, const tl_row *r)
{
    if (r->idx <= w->last)
        return; /* written already (a row can be several extremes) */
    fprintf(w->o, "%.6f %s %s %s\n", r->t, r->text[0], r->text[1], r->text[2]);
    w->last = r->idx;
    if (!w->points++ || r->v[1] > w->peak) {
        w->peak = r->v[1];
        snprintf(w->peak_text, sizeof w->peak_text, "%s", r->text[1]);
    }
}

/* A group's extremes: least and greatest live, reserved and free share (6 rows, n of them
 * set), written in row order. */
typedef struct tl_group {
    tl_row ext[6];
    int set;
} tl_group;

static void group_take(tl_group *g, const tl_row *r)
{
    double fs = tl_free_share(r);
    double key[3] = {r->v[0], r->v[1], fs};
    for (int k = 0; k < 3; k++) {
        if (isnan(key[k]))
            continue;
        tl_row *lo = &g->ext[2 * k], *hi = &g->ext[2 * k + 1];
        double klo = k < 2 ? lo->v[k] : tl_free_share(lo), khi = k < 2 ? hi->v[k]
                                                                          : tl_free_share(hi);
        if (!(g->set >> (2 * k) & 1) || key[k] < klo)
            *lo = *r;
        if (!(g->set >> (2 * k + 1) & 1) || key[k] > khi)
            *hi = *r;
        g->set |= 3 << (2 * k);
    }
}

static void group_flush(tl_out *w, tl_group *g)
{
    tl_row *order[6];
    int n = 0;
    for (int k = 0; k < 6; k++)
        if (g->set >> k & 1)
            order[n++] = &g->ext[k];
    for (int i = 1; i < n; i++) /* by row: at most 6 */
        for (int j = i; j > 0 && order[j]->idx < order[j - 1]->idx; j--) {
            tl_row *x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    for (int i = 0; i < n; i++)
        tl_put(w, order[i]);
    g->set = 0;
}

/* DIR/runs/RUN/timeline.csv, allocated (no doubled slash, no length cap). */
static char *timeline_path(const ctx *c, const char *run)
{
    char *rel = am_malloc(strlen(run) + sizeof "runs//timeline.csv");
    sprintf(rel, "runs/%s/timeline.csv", run);
    char *path = am_path_join_dup(c->dir, rel);
    free(rel);
    return path;
}

/* Timeline of one level -> "time_us live reserved allocated" lines, every row or, past
 * RH_TL_POINTS rows, their envelope; widens *sp over every row. The file is read twice, a line
 * at a time: once to count the rows, once to write. 0 when written. */
static int timeline_dat(ctx *c, const char *run, const char *out, tl_span *sp, tl_out *w)
{
    char *line = NULL; /* a row of any length (until 2026-11-27 cut at 1023 bytes) */
    size_t cap = 0;
    char *path = timeline_path(c, run);
    const char *what;
    FILE *in = am_fopen_regular(path, &what); /* checked already; a FIFO would block */
    free(path);
    if (!in)
        return -1;
    tl_row r;
    long rows = 0;
    while (getline(&line, &cap, in) > 0)
        if (!header_line(line) && tl_parse(c->level, line, &r)) {
            rows++;
            if (isnan(r.t) || isnan(r.v[1])) /* an empty cell spans nothing */
                continue;
            sp->t_lo = sp->any && sp->t_lo < r.t ? sp->t_lo : r.t;
            sp->t_hi = sp->any && sp->t_hi > r.t ? sp->t_hi : r.t;
            sp->reserved_hi = sp->any && sp->reserved_hi > r.v[1] ? sp->reserved_hi : r.v[1];
            sp->any = 1;
        }
    memset(w, 0, sizeof *w);
    w->rows = rows;
    w->last = -1;
    if (!rows || !(w->o = fopen(out, "w"))) {
        fclose(in);
        free(line);
        return -1;
    }
    rewind(in);
    tl_group g = {0};
    long group = 0;
    int thin = rows > RH_TL_POINTS;
    for (r.idx = 0; getline(&line, &cap, in) > 0;) {
        if (header_line(line) || !tl_parse(c->level, line, &r))
            continue;
        long gr = (long)((double)r.idx * RH_TL_GROUPS / (double)rows);
        if (!thin || r.idx == 0 || r.idx == rows - 1) {
            group_flush(w, &g); /* the last row after its group's extremes */
            tl_put(w, &r);
        } else {
            if (gr != group)
                group_flush(w, &g);
            group = gr;
            group_take(&g, &r);
        }
        r.idx++;
    }
    group_flush(w, &g);
    free(line);
    fclose(in);
    fclose(w->o);
    return 0;
}

/* The caption's account of which run each policy's line is (row indices; plotted -1: none):
 * "first successful run of each policy: bfc 0001-a-bfc, caching 0002-a-caching.", and for a
 * policy whose first successful run has no timeline of the level, the run plotted instead and
 * why, or that it has no line. Allocated. */
static char *timeline_runs(const ctx *c, const char *const *pols, const int *first,
                           const int *plotted,
                           int np)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    int all_first = 1;
    for (int q = 0; q < np; q++)
        all_first &= plotted[q] == first[q];
    fputs(all_first ? "first successful run of each policy: "
                    : "one successful run of each policy with a timeline: ", f);
    for (int q = 0, n = 0; q < np; q++) {
        if (plotted[q] < 0)
            continue;
        fprintf(f, "%s%s %s", n++ ? ", " : "", pols[q][0] ? pols[q] : "run",
                c->t.rows[plotted[q]][c->c_run]);
    }
    fputc('.', f);
    for (int q = 0; q < np; q++) {
        if (plotted[q] == first[q])
            continue;
        const char *p = pols[q][0] ? pols[q] : "run", *run = c->t.rows[first[q]][c->c_run];
        if (plotted[q] >= 0)
            fprintf(f, " %s's first successful run, %s, has no %s timeline.csv rows, so %s is "
                    "shown.", p, run, c->level, c->t.rows[plotted[q]][c->c_run]);
        else
            fprintf(f, " No line for %s: none of its successful runs (the first: %s) has %s "
                    "timeline.csv rows.", p, run, c->level);
    }
    fclose(f);
    return text;
}

/* The timeline scripts' axes over span sp: their units (axis_units), and ranges where gnuplot
 * would find an empty one and widen it with a warning on stderr: every row at one time (a trace
 * of makespan 0) gives tlo / thi (us), nothing ever reserved gives ymax (in yunit, MiB then).
 * No range otherwise, the scripts' autoscaling. */
static void timeline_axes(char *dst, size_t n, const tl_span *sp)
{
    axis_units(dst, n, sp->reserved_hi, AM_MAX(fabs(sp->t_lo), fabs(sp->t_hi)));
    size_t k = strlen(dst);
    if (sp->t_hi <= sp->t_lo && k < n)
        k += (size_t)snprintf(dst + k, n - k, "\ntlo = %.6f\nthi = %.6f", sp->t_lo,
                              sp->t_lo + 1);
    if (sp->reserved_hi <= 0 && k < n)
        snprintf(dst + k, n - k, "\nymax = 1");
}

/* A column that identifies a run's input, not its policy: every identifying column (trace,
 * seed, sweep axes) but run_id, run, policy and status. Runs compared on one timeline plot
 * agree in all of them. */
static int input_col(const ctx *c, int k)
{
    return k <= c->c_status && k != c->c_run && k != c->c_status && k != c->c_policy &&
           strcmp(c->t.cols[k], "run_id") != 0;
}

/* 1 when rows a and b ran the same input (agree in every input column). */
static int same_input(const ctx *c, int a, int b)
{
    for (int k = 0; k < c->t.ncols; k++)
        if (input_col(c, k) && strcmp(c->t.rows[a][k], c->t.rows[b][k]) != 0)
            return 0;
    return 1;
}

/* Row r's input in words: its trace, then every other input column as "name = value":
 * "gen:serve (seed = 2)". */
static void input_label(const ctx *c, int r, char *dst, size_t n)
{
    int k0 = snprintf(dst, n, "%s", c->c_trace >= 0 ? c->t.rows[r][c->c_trace] : "");
    size_t used = k0 > 0 ? (size_t)k0 : 0;
    int extra = 0;
    for (int k = 0; k < c->t.ncols && used < n; k++) {
        if (!input_col(c, k) || k == c->c_trace)
            continue;
        int w = snprintf(dst + used, n - used, "%s%s = %s", extra++ ? ", " : " (", c->t.cols[k],
                         c->t.rows[r][k]);
        used += w > 0 ? (size_t)w : 0;
    }
    if (extra && used < n)
        snprintf(dst + used, n - used, ")");
}

/* For a caption: when a line was drawn as an envelope, which lines and the peak reserved they
 * still show, exactly: " Drawn as a min/max envelope of at most 2000 points: bfc 1000000 rows,
 * peak reserved 1610612736 B." Empty when every row was drawn. Allocated. */
static char *envelope_note(const tl_out *lines, const char *const *pols, int nl)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    int n = 0;
    for (int i = 0; i < nl; i++) {
        if (lines[i].rows <= RH_TL_POINTS)
            continue;
        if (!n++)
            fprintf(f, " Drawn as a min/max envelope of at most %d points (timeline.csv keeps "
                    "every row):", RH_TL_POINTS);
        fprintf(f, "%s %s %ld rows as %ld points, peak reserved %s B", n > 1 ? ";" : "",
                pols[i], lines[i].rows, lines[i].points, lines[i].peak_text);
    }
    if (n)
        fputc('.', f);
    fclose(f);
    return text;
}

/* qsort's view of the table for cmp_input: qsort passes no context. */
static const ctx *sort_ctx;

/* Rows ordered by their input columns, so equal inputs are adjacent. */
static int cmp_input(const void *a, const void *b)
{
    int ra = *(const int *)a, rb = *(const int *)b;
    for (int k = 0; k < sort_ctx->t.ncols && k <= sort_ctx->c_status; k++) {
        if (!input_col(sort_ctx, k))
            continue;
        int d = strcmp(sort_ctx->t.rows[ra][k], sort_ctx->t.rows[rb][k]);
        if (d)
            return d;
    }
    return ra < rb ? -1 : ra > rb;
}

/* The table's inputs (trace, seed, other axes): rows sorted by input, then by row, so a study
 * of 40,000 rows is grouped in n log n, not n^2 comparisons. rows holds every row, grouped;
 * group g is the grp[g].len rows from rows[grp[g].start], in table order, and the groups are in
 * the order of their first rows (table order). */
typedef struct input_group {
    int first, start, len; /* its first row (in table order), where it starts in rows, rows */
} input_group;

typedef struct input_groups {
    int *rows, n;
    input_group *grp;
} input_groups;

static int cmp_group_first(const void *a, const void *b)
{
    const input_group *ga = a, *gb = b;
    return ga->first < gb->first ? -1 : ga->first > gb->first;
}

static void input_groups_make(const ctx *c, input_groups *g)
{
    int n = c->t.nrows > 0 ? c->t.nrows : 0;
    g->rows = am_malloc(((size_t)n + 1) * sizeof *g->rows);
    g->grp = am_malloc(((size_t)n + 1) * sizeof *g->grp);
    g->n = 0;
    for (int r = 0; r < n; r++)
        g->rows[r] = r;
    sort_ctx = c;
    qsort(g->rows, (size_t)n, sizeof *g->rows, cmp_input);
    /* cmp_input breaks ties by row: each group's rows are together and in table order */
    for (int r = 0; r < n; r++) {
        if (r && same_input(c, g->rows[r - 1], g->rows[r])) {
            g->grp[g->n - 1].len++;
            continue;
        }
        g->grp[g->n++] = (input_group){g->rows[r], r, 1};
    }
    qsort(g->grp, (size_t)g->n, sizeof *g->grp, cmp_group_first);
}

static void input_groups_free(input_groups *g)
{
    free(g->rows);
    free(g->grp);
    *g = (input_groups){0};
}

/* The policies of an input past the first RH_MAX_LINES (in table order), each once: the plots
 * draw no line for them, and their captions say which. */
typedef struct left_out {
    const char **names; /* the table's cells, whole */
    int n, cap;
} left_out;

static void left_out_add(left_out *l, const char *policy)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->names[i], policy) == 0)
            return;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 8;
        l->names = am_realloc(l->names, (size_t)l->cap * sizeof *l->names);
    }
    l->names[l->n++] = policy;
}

/* For a caption: " No line for 2 more policies (at most 16 policies are drawn, the first in
 * table order): p17, p18." (what: "line", "heat map"). Empty when none was left out.
 * Allocated. */
static char *left_out_note(const left_out *l, const char *what)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (l->n) {
        fprintf(f, " No %s for %d more polic%s (at most %d policies are drawn, the first in "
                "table order):", what, l->n, l->n == 1 ? "y" : "ies", RH_MAX_LINES);
        for (int i = 0; i < l->n; i++)
            fprintf(f, "%s %s", i ? "," : "", l->names[i][0] ? l->names[i] : "run");
        fputc('.', f);
    }
    fclose(f);
    return text;
}

static void left_out_free(left_out *l)
{
    free(l->names);
    *l = (left_out){0};
}

/* timelines()'s text buffers, some 190 KB: on the heap, where a memory limit (ulimit -v) is
 * the host-out-of-memory error, status 2; on the stack (until 2026-11-27) it crashed the report
 * (SIGSEGV, status 139) and left its scratch folder. */
typedef struct tl_bufs {
    /* a path under $TMPDIR for each line: PATH_MAX each (until 2026-11-27 300 bytes) */
    char files[RH_MAX_LINES * (PATH_MAX + 64)], titles[RH_MAX_LINES * 70];
    char vars[RH_MAX_LINES * (PATH_MAX + 200) + 1024], cap[RH_MAX_LINES * 1024];
    char lists[RH_MAX_LINES * 1200]; /* the files and titles lines, escaped (gp_set) */
    const char *pols[RH_MAX_LINES]; /* the table's cells, whole (until 2026-11-27 cut at 63 bytes) */
    tl_out lines[RH_MAX_LINES];
} tl_bufs;

/* One plot pair per input (trace, seed, other axes), the first RH_MAX_PLOT_TRACES in table
 * order that have a line to draw: an input whose runs all failed, or have no timeline of the
 * level, takes no slot (until 2026-11-27 it did: three failed inputs first in the table left one
 * slot, and the page said "plotted for the first 4 of 6 inputs" over one plot). Until 2026-11-27
 * too, runs were grouped by the trace column alone, so a generated trace's seeds, all
 * "gen:serve", shared one plot: bfc on seed 2 drawn against caching on seed 1. */
static void timelines(ctx *c)
{
    if (c->c_trace < 0 || c->c_run < 0)
        return;
    tl_bufs *b = am_malloc(sizeof *b); /* host out of memory: status 2, scratch folder removed */
    char *files = b->files, *titles = b->titles, *vars = b->vars, *cap = b->cap;
    const char **pols = b->pols;
    tl_out *lines = b->lines;
    input_groups ig;
    input_groups_make(c, &ig);
    int drawn = 0, tried = 0, header = 0;
    for (int gi = 0; gi < ig.n && drawn < RH_MAX_PLOT_TRACES; gi++) {
        const int *members = ig.rows + ig.grp[gi].start;
        int nmembers = ig.grp[gi].len, k = drawn;
        tried++;
        char label[512];
        input_label(c, members[0], label, sizeof label);
        /* the first successful run of each policy on this trace that has a timeline of the
         * level; the caption names the runs plotted, and says which policy's first run had none
         * (until 2026-11-27 another run was plotted silently under "first run of each policy") */
        files[0] = titles[0] = 0;
        int first[RH_MAX_LINES], plotted[RH_MAX_LINES];
        int np = 0, nl = 0;
        tl_span sp = {0};
        const char *line_pol[RH_MAX_LINES];
        left_out left = {0};
        for (int m = 0; m < nmembers; m++) {
            int r = members[m];
            if (!finished_row(c, r))
                continue;
            const char *p = c->c_policy >= 0 ? c->t.rows[r][c->c_policy] : "run";
            int q = 0;
            while (q < np && strcmp(pols[q], p) != 0)
                q++;
            if (q == np) {
                if (np == RH_MAX_LINES) {
                    left_out_add(&left, p);
                    continue;
                }
                pols[np] = p;
                first[np] = r;
                plotted[np++] = -1;
            }
            if (plotted[q] >= 0)
                continue;
            char dat[PATH_MAX + 64], rel[32], w[64];
            snprintf(rel, sizeof rel, "tl%d_%d.dat", k, nl);
            snprintf(dat, sizeof dat, "%s/%s", c->tmp, rel);
            if (timeline_dat(c, c->t.rows[r][c->c_run], dat, &sp, &lines[nl]) != 0)
                continue;
            line_pol[nl] = p[0] ? p : "run";
            plotted[q] = r;
            nl++;
            word(w, sizeof w, p[0] ? p : "run");
            strcat(files, rel); /* gnuplot runs in c->tmp: plot() */
            strcat(files, " ");
            strcat(titles, w);
            strcat(titles, " ");
        }
        if (!nl) { /* no slot taken: nothing to draw */
            left_out_free(&left);
            continue;
        }
        drawn++;
        if (!header++)
        {
            fputs("<h2>Memory over time (", c->html);
            html_esc(c->html, c->level);
            fputs(")</h2>\n", c->html);
        }
        char tw[600], axes[288];
        gp_str(tw, sizeof tw, label);
        timeline_axes(axes, sizeof axes, &sp);
        char *lists = b->lists; /* names and words, each escaped (gp_lit) */
        lists[0] = 0;
        gp_set(lists, sizeof b->lists, "files", files);
        gp_set(lists, sizeof b->lists, "titles", titles);
        /* each line's title as the page shows it (the titles words turn blanks and quotes into
         * '_': until 2026-11-28 the key said my_bfc for a policy "my bfc"); one that does not
         * fit is left to its word */
        for (int i = 0; i < nl; i++) {
            char name[16];
            snprintf(name, sizeof name, "title%d", i + 1);
            gp_set_shown(lists, sizeof b->lists, name, line_pol[i]);
        }
        snprintf(vars, sizeof b->vars, "%sttl = %s.': live vs reserved'%s", lists, tw, axes);
        char *runs = timeline_runs(c, pols, first, plotted, np);
        char *thin = envelope_note(lines, line_pol, nl);
        char *more = left_out_note(&left, "line");
        snprintf(cap, sizeof b->cap, "%.400s: reserved (solid) and live (dashed) bytes of %.100s "
                 "over simulated time, %s%s%.2000s", label, c->level, runs, thin, more);
        free(runs);
        free(thin);
        plot(c, "memory_over_time.gp", vars, cap);
        snprintf(vars, sizeof b->vars, "%sttl = %s.': fragmentation'%s", lists, tw, axes);
        snprintf(cap, sizeof b->cap, "%.400s: share of reserved memory not allocated, over "
                 "time.%.2000s", label, more);
        plot(c, "fragmentation_over_time.gp", vars, cap);
        free(more);
        left_out_free(&left);
    }
    /* the page says when inputs were left out, counting the inputs drawn: those past the limit,
     * and those before it with no line to draw (until 2026-11-27 the first 4 were plotted and the
     * rest silently not, then "the first 4 of N" counted inputs with no plot) */
    int skipped = tried - drawn;
    if (header && drawn < ig.n && tried < ig.n)
        fprintf(c->html, "<p>Memory over time is plotted for the first %d of %d inputs (trace, "
                         "seed and other axes, in table order)%s; a report plots at most %d.</p>\n",
                drawn, ig.n, skipped ? " that have a successful run with timeline.csv rows of "
                                       "the level" : "", RH_MAX_PLOT_TRACES);
    else if (header && skipped)
        fprintf(c->html, "<p>Memory over time is plotted for %d of %d inputs (trace, seed and "
                         "other axes): the other %d ha%s no successful run with timeline.csv "
                         "rows of the level.</p>\n", drawn, ig.n, skipped,
                skipped == 1 ? "s" : "ve");
    if (!header)
        fprintf(c->html, "<p>No timelines: run the batch with <code>--timeline</code> (or "
                         "<code>outputs: {timeline: true}</code>) for memory-over-time plots.</p>\n");
    input_groups_free(&ig);
    free(b);
}

/* A heat map cell's label: bytes in KiB (below 1 MiB) or MiB (the colour bar's unit), with the
 * fewest decimals (0 to 2) that show the value exactly to 0.01 of its unit: "1600 MiB",
 * "1604 MiB", "1600.5 MiB", "48.25 KiB", "512 B". */
static void heat_label(char *dst, size_t n, double bytes)
{
    const char *unit = "MiB";
    double v = bytes / 1048576.0;
    if (bytes < 1024) {
        snprintf(dst, n, "%.0f B", bytes);
        return;
    }
    if (bytes < 1048576) {
        unit = "KiB";
        v = bytes / 1024.0;
    }
    int d = 0;
    for (double scale = 1; d < 2; d++, scale *= 10)
        if (fabs(v * scale - round(v * scale)) < 1e-6)
            break;
    snprintf(dst, n, "%.*f %s", d, v, unit);
}

/* A column the heat maps hold at one value: every identifying column (policy, trace, seed, axes
 * beyond the first two) but the two plotted axes and the run's names and status. */
static int held_col(const ctx *c, int k)
{
    return k <= c->c_status && k != c->c_axis0 && k != c->c_axis0 + 1 && k != c->c_run &&
           k != c->c_status && strcmp(c->t.cols[k], "run_id") != 0;
}

/* Appends `array NAME[n]` and NAME[i] = each of vals, escaped as the page shows it
 * (page_dup) and then exactly (gp_set), to the commands in dst (cap bytes). */
static void axis_labels(char *dst, size_t cap, const char *name, const char *const *vals, int n)
{
    size_t used = strlen(dst);
    snprintf(dst + used, cap - used, "array %s[%d]\n", name, n > 0 ? n : 1);
    for (int i = 0; i < n; i++) {
        char key[48];
        snprintf(key, sizeof key, "%s[%d]", name, i + 1);
        gp_set_shown(dst, cap, key, vals[i]);
    }
}

/* One heat map: the default level's peak reserved over (axis 1, axis 2) among the successful
 * runs that agree with row ref in every held column (its policy, trace, seed, other axes); a
 * run that leaves the metric undefined leaves its cell empty. The caption names the policy and
 * each held value. 1 when drawn. */
static int heatmap_one(ctx *c, int ref, int cm, const char *metric, int nmaps)
{
    int ax = c->c_axis0, ay = c->c_axis0 + 1;
    /* every axis value, whole, on the heap: until 2026-11-27 64 of 64 bytes each, so a value of
     * 64 bytes or more was cut and split into duplicate columns, and from the 65th value on
     * cells were left out silently */
    const char **xv = am_calloc((size_t)c->t.nrows + 1, sizeof *xv);
    const char **yv = am_calloc((size_t)c->t.nrows + 1, sizeof *yv);
    int nx = 0, ny = 0;
    char data[PATH_MAX + 64], rel[32];
    snprintf(rel, sizeof rel, "heat%d.dat", nmaps);
    snprintf(data, sizeof data, "%s/%s", c->tmp, rel);
    FILE *d = fopen(data, "w");
    if (!d) {
        free(xv);
        free(yv);
        return 0;
    }
    int pts = 0, oom_cells = 0;
    double lo = 0, hi = 0; /* the cells' range, MiB */
    for (int r = 0; r < c->t.nrows; r++) {
        int same = 1;
        for (int k = 0; k < c->t.ncols && same; k++)
            same = !held_col(c, k) || strcmp(c->t.rows[r][k], c->t.rows[ref][k]) == 0;
        if (!same)
            continue;
        /* every axis value of the map's runs is a column (row), failed runs' too: a value
         * whose runs all failed shows empty cells (until 2026-11-27 it was left out) */
        int i = 0, j = 0;
        while (i < nx && strcmp(xv[i], c->t.rows[r][ax]) != 0)
            i++;
        if (i == nx)
            xv[nx++] = c->t.rows[r][ax];
        while (j < ny && strcmp(yv[j], c->t.rows[r][ay]) != 0)
            j++;
        if (j == ny)
            yv[ny++] = c->t.rows[r][ay];
        double bytes;
        if (!finished_row(c, r) || !num_cell(c->t.rows[r][cm], &bytes))
            continue;
        {
            char lab[64];
            heat_label(lab, sizeof lab, bytes);
            /* a run that ran out of memory on any level served fewer requests: its cell is
             * drawn, marked, as the per-policy means leave it out */
            if (row_ooms(c, r) > 0) {
                strcat(lab, " OOM");
                oom_cells++;
            }
            double mib = bytes / 1048576.0;
            fprintf(d, "%d %d %.17g \"%s\"\n", i, j, mib, lab);
            lo = pts && lo < mib ? lo : mib;
            hi = pts && hi > mib ? hi : mib;
            pts++;
        }
    }
    fclose(d);
    if (!pts) {
        free(xv);
        free(yv);
        return 0;
    }
    /* all cells equal: a colour range around the value, which gnuplot would otherwise widen
     * itself with "Warning: empty cb range" on stderr */
    if (hi <= lo && lo == 0) /* all 0: 0 to 1 MiB (it ran from -1, a size no run can have) */
        hi = 1;
    else if (hi <= lo) {
        double pad = lo / 100;
        lo -= pad;
        hi += pad;
    }
    const char *pol = c->c_policy >= 0 ? c->t.rows[ref][c->c_policy] : "";
    char pw[200], cap[2048], zname[300];
    /* the commands, as long as the axis values need (gp_lit: at most 10 bytes a byte) */
    size_t vcap = PATH_MAX + 12000;
    for (int i = 0; i < nx; i++)
        vcap += strlen(xv[i]) * 10 + 64;
    for (int j = 0; j < ny; j++)
        vcap += strlen(yv[j]) * 10 + 64;
    char *vars = am_malloc(vcap);
    gp_str(pw, sizeof pw, pol[0] ? pol : "config");
    char *metric_shown = page_dup(metric); /* LEVEL.peak_reserved_bytes, as the page has it */
    snprintf(zname, sizeof zname, "%s (MiB)", metric_shown);
    free(metric_shown);
    /* every string escaped: an axis name or value may hold a backslash or a quote (until
     * 2026-11-27 they were written into double-quoted strings as they were) */
    vars[0] = 0;
    gp_set(vars, vcap, "data", rel); /* gnuplot runs in c->tmp: plot() */
    /* the tick labels: each value one exact string as written (its control bytes escaped as
     * the page shows them), in arrays xlab and ylab; until 2026-11-27 word lists, with a space
     * or quote turned into _ */
    axis_labels(vars, vcap, "xlab", xv, nx);
    axis_labels(vars, vcap, "ylab", yv, ny);
    free(xv);
    free(yv);
    /* the axes' names as the page shows them */
    gp_set_shown(vars, vcap, "xname", c->t.cols[ax]);
    gp_set_shown(vars, vcap, "yname", c->t.cols[ay]);
    gp_set(vars, vcap, "zname", zname);
    size_t used = strlen(vars);
    snprintf(vars + used, vcap - used, "ttl = %s.': peak reserved (MiB)'\ncblo = %.17g\n"
             "cbhi = %.17g", pw, lo, hi);
    int n = snprintf(cap, sizeof cap, "Policy %s: %s in MiB over %s and %s; held at", pol[0] ? pol
                     : "(none)", metric, c->t.cols[ax], c->t.cols[ay]);
    int held = 0;
    for (int k = 0; k < c->t.ncols && n > 0 && (size_t)n < sizeof cap; k++)
        if (held_col(c, k) && k != c->c_policy)
            n += snprintf(cap + n, sizeof cap - (size_t)n, "%s %s = %s", held++ ? "," : "",
                          c->t.cols[k], c->t.rows[ref][k]);
    if (n > 0 && (size_t)n < sizeof cap)
        n += snprintf(cap + n, sizeof cap - (size_t)n, "%s.", held ? "" : " nothing else");
    if (oom_cells && n > 0 && (size_t)n < sizeof cap)
        snprintf(cap + n, sizeof cap - (size_t)n, " A cell marked OOM is a run that ran out of "
                 "memory on some level: it served fewer requests and can peak lower.");
    plot(c, "heatmap.gp", vars, cap);
    free(vars);
    return 1;
}

/* Two axes: a heat map per policy (the first RH_MAX_LINES, in table order, the page naming any
 * other; until 2026-11-27 the first 8, the rest left out silently), each at the values of that
 * policy's first successful run in the other dimensions. (Until 2026-11-25 there was one map,
 * at the first run's policy, whatever policy the axes were for, and its caption named none.) */
static void heatmap(ctx *c)
{
    if (c->naxes < 2)
        return;
    char metric[256];
    snprintf(metric, sizeof metric, "%s.peak_reserved_bytes", c->level);
    int cm = rtable_col(&c->t, metric);
    if (cm < 0 || !c->t.nrows)
        return;
    int refs[RH_MAX_LINES], nrefs = 0, drawn = 0;
    left_out left = {0};
    for (int r = 0; r < c->t.nrows; r++) {
        if (!finished_row(c, r))
            continue;
        int seen = 0;
        for (int q = 0; q < nrefs && !seen; q++)
            seen = c->c_policy < 0 ||
                   strcmp(c->t.rows[refs[q]][c->c_policy], c->t.rows[r][c->c_policy]) == 0;
        if (seen)
            continue;
        if (nrefs < RH_MAX_LINES)
            refs[nrefs++] = r;
        else
            left_out_add(&left, c->t.rows[r][c->c_policy]);
    }
    for (int q = 0; q < nrefs; q++) {
        if (!q)
            fprintf(c->html, "<h2>Two-axis sweep</h2>\n");
        drawn += heatmap_one(c, refs[q], cm, metric, drawn);
    }
    if (left.n) {
        char *more = left_out_note(&left, "heat map");
        fputs("<p>", c->html);
        html_esc(c->html, more + 1); /* without the caption's leading blank */
        fputs("</p>\n", c->html);
        free(more);
    }
    left_out_free(&left);
}

static void rm_tmp(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[PATH_MAX + 300];
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.') {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* DIR/report.html against every file the report reads: results.csv, the runs' timeline.csv
 * files and the gnuplot scripts; and DIR/matrix.tsv, the study's own record, which a rerun of
 * the batch reads (until 2026-11-25 a report.html linked to results.csv replaced the table
 * with the page, status 0). 0, or 1 after a message naming both. */
static int check_output(const ctx *c, const char *out, const char *csv)
{
    static const char *const scripts[] = {"peak_reserved.gp", "memory_over_time.gp",
                                          "fragmentation_over_time.gp", "heatmap.gp",
                                          "timeline_palette.gp"};
    int n = 0, np = 0, cap = 2 + (int)AM_ARRAY_LEN(scripts) + c->t.nrows;
    out_named *ins = am_calloc((size_t)cap, sizeof *ins);
    char **paths = am_calloc((size_t)cap, sizeof *paths); /* the names made here */
    ins[n++] = (out_named){"DIR/results.csv", csv};
    paths[np] = am_path_join_dup(c->dir, "matrix.tsv");
    ins[n++] = (out_named){"DIR/matrix.tsv", paths[np++]};
    for (size_t k = 0; k < AM_ARRAY_LEN(scripts); k++) {
        paths[np] = am_path_join_dup(c->scripts, scripts[k]);
        ins[n++] = (out_named){"a gnuplot script", paths[np++]};
    }
    for (int r = 0; c->c_run >= 0 && r < c->t.nrows; r++) {
        const char *run = c->t.rows[r][c->c_run];
        paths[np] = timeline_path(c, run);
        ins[n++] = (out_named){"a run's timeline.csv", paths[np++]};
    }
    am_error err = {0};
    const out_named o = {"report.html", out};
    int rc = out_check_paths(&o, 1, ins, n, &err);
    if (rc != 0)
        am_msg("amsim: %s\n", err.msg);
    for (int k = 0; k < np; k++)
        free(paths[k]);
    free(paths);
    free(ins);
    return rc != 0;
}

/* results.csv as `amsim batch` writes it, checked before anything is written: the columns the
 * report reads (run, policy, trace, status, and a LEVEL.peak_reserved_bytes), and every metric
 * cell of a successful run (the columns after status, but error) empty or a finite decimal
 * number, as `amsim stats` reads them. 0, or 1 after a message: FILE: no column 'run', or
 * FILE:LINE:COL: M is not a finite number. Until 2026-11-27 a header `a,b` gave a page of
 * "1 runs, 1 succeeded; default memory level ?", status 0, and a cell `abc` was printed as
 * written and handed to gnuplot, which failed (status 2). */
static int check_table(const ctx *c, const char *csv)
{
    static const char *const need[] = {"run", "policy", "trace", "status"};
    for (size_t k = 0; k < AM_ARRAY_LEN(need); k++)
        if (rtable_col(&c->t, need[k]) < 0) {
            am_msg("%s: %s: no column '%s' (a results.csv of amsim batch has run, "
                    "policy, trace, status and the metrics)\n", prog, csv, need[k]);
            return 1;
        }
    char pr[300];
    snprintf(pr, sizeof pr, "%s.peak_reserved_bytes", c->level);
    if (!c->level[0] || rtable_col(&c->t, pr) < 0) {
        am_msg("%s: %s: no column LEVEL.peak_reserved_bytes (a results.csv of amsim "
                "batch has one per memory level)\n", prog, csv);
        return 1;
    }
    for (int r = 0; r < c->t.nrows; r++) {
        if (!finished_row(c, r))
            continue;
        for (int k = c->c_status + 1; k < c->t.ncols; k++) {
            double v;
            const char *s = c->t.rows[r][k];
            if (!*s || strcmp(c->t.cols[k], "error") == 0 || rtable_num(s, &v) == 0)
                continue;
            am_error e = {0}; /* FILE:LINE:COL and the reason whole, a long path shortened */
            am_fail_at(&e, csv, c->t.pos[r][k].line, c->t.pos[r][k].col,
                       "%s is not a finite number: '%s' (decimal numbers only, such as 5, 0.25 "
                       "or 1e-3)", c->t.cols[k], s);
            am_msg("%s: %s\n", prog, e.msg);
            return 1;
        }
    }
    return 0;
}

/* The name of cell k of a CSV header line h (its k-th comma-separated field), in a static
 * buffer. */
static const char *header_cell(const char *h, int k)
{
    static char name[64];
    for (; k > 0 && strchr(h, ','); k--)
        h = strchr(h, ',') + 1;
    snprintf(name, sizeof name, "%.*s", (int)strcspn(h, ","), h);
    return name;
}

/* A run's timeline.csv as `amsim batch --timeline` writes it, by the results.csv rule: the
 * header `time_ps,seq,level,live_bytes,allocated_bytes,reserved_bytes`, then rows of 6 cells,
 * each number cell (all but level) empty or a finite decimal, each row ending in a newline.
 * 0, or -1 with *e set: FILE:LINE:COL and what is wrong. Until 2026-11-27 a cell `abc` was read
 * as 0, a short row was skipped and a row cut mid-number was drawn as written, status 0. */
static int check_timeline_text(FILE *in, const char *path, am_error *e)
{
    static const char header[] = "time_ps,seq,level,live_bytes,allocated_bytes,reserved_bytes";
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int rc = 0;
    for (unsigned long ln = 1; rc == 0 && (len = getline(&line, &cap, in)) > 0; ln++) {
        if (line[len - 1] != '\n') { /* cut short: the last row may have lost digits */
            rc = am_fail_at(e, path, ln, (unsigned long)len + 1, "the row has no line end (the "
                            "file was cut short); a run's timeline.csv ends every row with one");
            break;
        }
        line[--len] = 0;
        if (len && line[len - 1] == '\r')
            line[--len] = 0;
        if (ln == 1) {
            if (strcmp(line, header) != 0)
                rc = am_fail_at(e, path, 1, 1, "not a timeline.csv header (expected %s)", header);
            continue;
        }
        char *cell = line;
        for (int k = 0; rc == 0; k++) {
            char *end = strchr(cell, ',');
            unsigned long col = (unsigned long)(cell - line) + 1;
            if (end)
                *end = 0;
            double v;
            if (k == 6)
                rc = am_fail_at(e, path, ln, col, "a timeline.csv row has 6 cells, this one more");
            else if (k != 2 && *cell && rtable_num(cell, &v) != 0)
                rc = am_fail_at(e, path, ln, col, "%s is not a finite number: '%s' (decimal "
                                "numbers only)", header_cell(header, k), cell);
            else if (!end && k < 5)
                rc = am_fail_at(e, path, ln, col + strlen(cell), "a timeline.csv row has 6 "
                                "cells, this one %d", k + 1);
            if (!end)
                break;
            cell = end + 1;
        }
    }
    free(line);
    return rc ? -1 : 0;
}

/* The runs' timeline.csv files the report may plot (those of successful runs), checked before
 * anything is written: a regular file, by its type, never opened otherwise (a FIFO would block
 * the report for good: until 2026-11-27 it hung), and its text by check_timeline_text. A run
 * without one is no error (batch wrote none without --timeline). 0, or 1 after a message. */
static int check_timelines(const ctx *c)
{
    for (int r = 0; c->c_run >= 0 && r < c->t.nrows; r++) {
        if (!finished_row(c, r))
            continue;
        const char *run = c->t.rows[r][c->c_run];
        char *path = timeline_path(c, run);
        const char *what = NULL;
        struct stat st;
        FILE *in = NULL;
        int exists = stat(path, &st) == 0;
        if (exists && !S_ISREG(st.st_mode))
            what = S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO"
                                                                               : "a device or a socket";
        else if (exists)
            in = am_fopen_regular(path, &what); /* still regular when opened */
        am_error e = {0};
        int bad = 0;
        if (what)
            bad = am_fail(&e, AM_EINPUT, "%s: not a regular file (%s); a run's timeline.csv is "
                          "the file amsim batch --timeline writes", path, what) != 0;
        else if (in)
            bad = check_timeline_text(in, path, &e) != 0;
        if (in)
            fclose(in);
        free(path);
        if (bad) {
            am_msg("%s: %s\n", prog, e.msg);
            return 1;
        }
    }
    return 0;
}

int cmd_report(int argc, char **argv)
{
    static const char use[] =
        "usage: amsim report DIR\n"
        "  writes DIR/report.html from DIR/results.csv (amsim batch) and the runs'\n"
        "  timeline.csv files: tables and inline SVG plots drawn by gnuplot with the\n"
        "  scripts in analysis/ ($AMSIM_ANALYSIS overrides where they are); memory over\n"
        "  time is plotted for the first 4 inputs (trace, seed, axes) in table order that\n"
        "  have a successful run with a timeline, the page saying how many of N it drew\n"
        "  when some are not; a report.html\n"
        "  that is (or links to) one of those files or DIR/matrix.tsv is refused (status 1)\n";
    static const cli_opt opts[] = {{"help", 'h', 0}, {NULL, 0, 0}};
    const char *dir = NULL, *opt, *v;
    cli cl;
    cli_init(&cl, prog, argc, argv);
    for (int k; (k = cli_next(&cl, opts, &opt, &v)) != CLI_END;) {
        if (k == CLI_ERROR)
            return 1;
        if (k == 0) {
            fputs(use, stdout);
            return 0;
        }
        if (dir) /* one DIR */
            return cli_unexpected(&cl, v), 1;
        dir = v;
    }
    if (!dir) {
        fputs(use, stderr);
        return 1;
    }
    /* a folder a running batch writes has no finished table yet (its results.csv is removed
     * and rebuilt): refused, as --merge refuses it (until 2026-11-27 read as it was) */
    am_error lerr = {0};
    if (batch_dir_in_use(dir, &lerr) != 0) {
        am_msg("%s: %s\n", prog, lerr.msg);
        return 1;
    }
    ctx c = {0};
    c.dir = dir;
    const char *env = getenv("AMSIM_ANALYSIS");
    c.scripts = env ? env : AMSIM_SOURCE_DIR "/analysis";
    /* absolute, as gnuplot loads the scripts from the scratch folder (plot()) */
    char *scripts_abs = realpath(c.scripts, NULL);
    if (scripts_abs)
        c.scripts = scripts_abs;
    char *csv = am_path_join_dup(c.dir, "results.csv");
    am_error rerr = {0};
    /* host memory running out while reading is amsim's error (status 2), not the table's */
    if (rtable_read(&c.t, csv, &rerr) != 0) {
        am_msg("%s: %s\n", prog, rerr.msg);
        free(csv);
        free(scripts_abs);
        return rerr.status == AM_EINTERNAL ? 2 : 1;
    }
    char *probe = am_path_join_dup(c.scripts, "peak_reserved.gp");
    int found = access(probe, R_OK) == 0;
    if (!found)
        am_msg("%s: %s: gnuplot scripts not found (set AMSIM_ANALYSIS)\n", prog, probe);
    free(probe);
    if (!found) {
        ctx_free(&c);
        free(csv);
        free(scripts_abs);
        return 1;
    }
    /* every plot needs gnuplot: refuse before writing anything (until 2026-11-27 each of the
     * plots failed with "sh: 1: gnuplot: not found", status 2, and a half-made report.html) */
    if (find_gnuplot(&c) != 0) {
        am_msg("%s: gnuplot not found on PATH (Debian: apt-get install gnuplot-nox)\n",
                prog);
        ctx_free(&c);
        free(csv);
        free(scripts_abs);
        return 1;
    }
    c.c_run = rtable_col(&c.t, "run");
    c.c_policy = rtable_col(&c.t, "policy");
    c.c_trace = rtable_col(&c.t, "trace");
    c.c_status = rtable_col(&c.t, "status");
    c.c_axis0 = c.c_run + 1;
    find_ooms_cols(&c);
    c.naxes = c.c_policy > c.c_run && c.c_run >= 0 ? c.c_policy - c.c_run - 1 : 0;
    /* the default level: the one whose policy statistics are in the table */
    for (int k = 0; k < c.t.ncols && !c.level[0]; k++) {
        const char *s = strstr(c.t.cols[k], ".stats.");
        if (s)
            snprintf(c.level, sizeof c.level, "%.*s", (int)(s - c.t.cols[k]), c.t.cols[k]);
    }
    for (int k = 0; k < c.t.ncols && !c.level[0]; k++) {
        const char *s = strstr(c.t.cols[k], ".peak_reserved_bytes");
        if (s)
            snprintf(c.level, sizeof c.level, "%.*s", (int)(s - c.t.cols[k]), c.t.cols[k]);
    }
    /* "out1/" prints out1/report.html (until 2026-11-27 out1//report.html) */
    char *out = am_path_join_dup(c.dir, "report.html");
    if (check_output(&c, out, csv) != 0 || check_table(&c, csv) != 0 ||
        check_timelines(&c) != 0) {
        ctx_free(&c);
        free(out);
        free(csv);
        free(scripts_abs);
        return 1;
    }
    /* the scratch folder for gnuplot's data and SVGs: under $TMPDIR (else /tmp), and removed
     * by an interrupt too (out_track_scratch). Until 2026-11-27 it was always under /tmp and an
     * interrupted report left it there. */
    const char *td = getenv("TMPDIR");
    if (!td || !*td)
        td = "/tmp";
    /* made and tracked with the stop signals blocked: until 2026-11-28 one that came between
     * the two left an empty amsim-report-XXXXXX behind */
    sigset_t stop, unblocked;
    out_stop_signals(&stop);
    sigprocmask(SIG_BLOCK, &stop, &unblocked);
    int tl = snprintf(c.tmp, sizeof c.tmp, "%s/amsim-report-XXXXXX", td);
    int made = tl >= 0 && (size_t)tl < sizeof c.tmp && mkdtemp(c.tmp);
    int made_errno = errno;
    if (made)
        out_track_scratch(c.tmp, 1);
    sigprocmask(SIG_SETMASK, &unblocked, NULL);
    errno = made_errno;
    if (!made) {
        am_msg("%s: cannot make a scratch folder under %s: %s\n", prog, td,
                tl >= 0 && (size_t)tl >= sizeof c.tmp ? "name too long (TMPDIR)"
                                                      : strerror(errno));
        ctx_free(&c);
        free(out);
        free(csv);
        free(scripts_abs);
        return 2;
    }
    outfile *o;
    am_error err = {0};
    int rc = 1;
    /* DIR/report.html is the report's own file: a symbolic link there is replaced by the page,
     * its target left alone (until 2026-11-27 the page was written through it: a link to a
     * run's summary.json overwrote that with HTML, status 0), by the commit's rename, so a
     * report that fails or is interrupted leaves the link (until 2026-11-28 it was unlinked
     * before the page was drawn) */
    if (out_open_own(&o, out, &err) != 0) {
        am_msg("amsim: %s\n", err.msg);
        goto done;
    }
    c.html = out_fp(o);
    int ok = 0, deviated = 0;
    for (int r = 0; r < c.t.nrows; r++) {
        ok += finished_row(&c, r);
        deviated += deviated_row(&c, r);
    }
    /* the title says what the heading says, DIR as typed (until 2026-11-27 "amsim report:
     * DIR" over a heading "amsim study: DIR", where README promised both were the latter) */
    fprintf(c.html,
            "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>\n<title>amsim study: ");
    html_esc(c.html, c.dir);
    fprintf(c.html,
            "</title>\n<style>body{font-family:sans-serif;margin:2em;max-width:1400px}"
            "table{border-collapse:collapse;font-size:13px;margin:1em 0}"
            "td,th{border:1px solid #bbb;padding:2px 6px}td.num{text-align:right}"
            "tr.bad{background:#fdd}tr.dev{background:#ffeebb}figure{margin:1em 0}svg{max-width:100%%;height:auto}"
            ".err{color:#b00}</style></head><body>\n<h1>amsim study: ");
    html_esc(c.html, c.dir);
    /* "1 run" (until 2026-11-28 "1 runs, 1 succeeded") */
    fprintf(c.html, "</h1>\n<p>%d run%s, %d succeeded", c.t.nrows, c.t.nrows == 1 ? "" : "s",
            ok);
    if (deviated) /* "6 runs, 6 succeeded (4 ok, 2 deviated from their expectations)" */
        fprintf(c.html, " (%d ok, %d deviated from %s expectation%s)", ok - deviated, deviated,
                deviated == 1 ? "its" : "their", deviated == 1 ? "" : "s");
    fprintf(c.html, "; default memory level <b>");
    html_esc(c.html, c.level[0] ? c.level : "?");
    fprintf(c.html, "</b>. Generated by amsim %s from results.csv.</p>\n", AM_VERSION);
    if (c.level[0]) {
        policy_summary(&c);
        timelines(&c);
        heatmap(&c);
    }
    results_table(&c);
    fprintf(c.html, "</body></html>\n");
    if (out_commit(o, &err) != 0)
        am_msg("amsim: %s\n", err.msg);
    else {
        rc = c.failed ? 2 : 0;
        /* "1 plot" for one (until 2026-11-27 "1 plots") */
        int np = c.nplots - c.failed;
        char *shown = am_escape_dup(out); /* DIR as check echoes it: no raw ESC */
        printf("%s: %d plot%s%s\n", shown, np, np == 1 ? "" : "s",
               c.failed ? " (some failed)" : "");
        free(shown);
    }
done:
    rm_tmp(c.tmp);
    out_track_scratch(c.tmp, 0);
    ctx_free(&c);
    free(out);
    free(csv);
    free(scripts_abs);
    return rc;
}
