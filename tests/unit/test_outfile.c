/* test_outfile.c - a command's outputs are published all together or not at all (sim/outfile.h):
 * out_commit_all renames none when one output fails to write or a stop signal came first; `run`
 * commits its Chrome trace and PyTorch snapshot with its other outputs; SIGHUP and SIGPIPE
 * remove the temporaries, an -o folder the run made and a scratch folder as SIGINT does; an
 * output name too long for "NAME.tmp.PID" still works; `amsim report` makes its scratch folder
 * under $TMPDIR and an interrupt removes it. */
#define _GNU_SOURCE
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../sim/outfile.h"
#include "testutil.h"

/* A fresh folder DIR/name (removed first when a previous run left it). */
static const char *fresh(const char *name)
{
    static char p[4][700];
    static int k;
    char *s = p[k++ % 4], cmd[800];
    snprintf(s, sizeof p[0], "%s/%s", tu_tmpdir(), name);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", s);
    CU_ASSERT(system(cmd) == 0);
    CU_ASSERT(mkdir(s, 0700) == 0);
    return s;
}

/* Entries of dir (without . and ..) whose name holds sub (NULL: all); -1 when dir is missing. */
static int count_in(const char *dir, const char *sub)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && (!sub || strstr(e->d_name, sub)))
            n++;
    closedir(d);
    return n;
}

static int exists(const char *dir, const char *name)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return access(p, F_OK) == 0;
}

/* Open dir/name (or path itself when dir is NULL) and write text to it. */
static outfile *opened(const char *dir, const char *name, const char *text)
{
    char p[1200];
    if (dir)
        snprintf(p, sizeof p, "%s/%s", dir, name);
    else
        snprintf(p, sizeof p, "%s", name);
    outfile *o = NULL;
    am_error err = {0};
    CU_ASSERT_FATAL(out_open(&o, p, &err) == 0);
    fputs(text, out_fp(o));
    return o;
}

/* One output that cannot be written (/dev/full: the write error shows at its flush, after the
 * others were written in full) and the others are not renamed either; their temporaries go. */
static void test_commit_all_write_error(void)
{
    if (access("/dev/full", W_OK) != 0)
        return; /* no /dev/full on this system */
    const char *dir = fresh("commit_err");
    outfile *o[3] = {opened(dir, "a.txt", "a\n"), opened(NULL, "/dev/full", "lost\n"),
                     opened(dir, "b.txt", "b\n")};
    am_error err = {0};
    CU_ASSERT_EQUAL(out_commit_all(o, 3, &err), -1);
    CU_ASSERT(strstr(err.msg, "/dev/full: write failed: No space left on device") != NULL);
    CU_ASSERT(o[0] == NULL && o[1] == NULL && o[2] == NULL);
    CU_ASSERT_EQUAL(count_in(dir, NULL), 0); /* neither a.txt nor b.txt, no temporary */

    /* and when all are fine, all are there */
    outfile *ok[2] = {opened(dir, "a.txt", "a\n"), opened(dir, "b.txt", "b\n")};
    CU_ASSERT_EQUAL(out_commit_all(ok, 2, &err), 0);
    CU_ASSERT(exists(dir, "a.txt") && exists(dir, "b.txt"));
    CU_ASSERT_EQUAL(count_in(dir, ".tmp."), 0);
}

/* A writer that flushed its output itself (the engine's placements rows) lost its bytes at the
 * failed flush, so the commit's flush has nothing left to fail on: the reason is the one the
 * writer noted (out_note_write_error), and `run --placements /dev/full` says "No space left on
 * device" as its other outputs do. Until 2026-11-27 it said "write failed: Success". */
static void test_write_error_noted(void)
{
    if (access("/dev/full", W_OK) != 0)
        return; /* no /dev/full on this system */
    outfile *o[1] = {opened(NULL, "/dev/full", "seq,id\n")};
    FILE *f = out_fp(o[0]);
    errno = 0;
    if (fflush(f) != 0)
        out_note_write_error(f, errno);
    am_error err = {0};
    CU_ASSERT_EQUAL(out_commit_all(o, 1, &err), -1);
    CU_ASSERT(strstr(err.msg, "/dev/full: write failed: No space left on device") != NULL);
    if (!strstr(err.msg, "No space left"))
        printf("\n  %s\n", err.msg);
    char args[2048], *out = NULL, *e = NULL;
    const char *tr = tu_write("noted.trace", "amsim-trace v1\nalloc 1 1000\nfree 1\n");
    static const char *const opts[] = {"--placements", "--timeline", "--json"};
    for (size_t i = 0; i < sizeof opts / sizeof *opts; i++) {
        snprintf(args, sizeof args, "run -q -c '%s/configs/default.yaml' -t '%s' %s /dev/full",
                 tu_top(), tr, opts[i]);
        CU_ASSERT_EQUAL(tu_amsim(args, &out, &e), 1);
        CU_ASSERT(e && strstr(e, "amsim: /dev/full: write failed: No space left on device\n"));
        if (!e || !strstr(e, "No space left"))
            printf("\n  %s: %s\n", opts[i], e ? e : "");
        free(out);
        free(e);
    }
}

static volatile sig_atomic_t hup_seen;
static void on_hup(int sig)
{
    (void)sig;
    hup_seen = 1;
}

/* A stop signal that arrived while the outputs were being written (here: pending, blocked)
 * means the command was interrupted: nothing is renamed, not the first output either (until
 * 2026-11-27 `run` renamed its Chrome trace before it wrote its snapshot, and an interrupt then
 * left the trace published). The signal is delivered afterwards as usual. */
static void test_commit_all_interrupted(void)
{
    const char *dir = fresh("commit_sig");
    struct sigaction old;
    out_catch(SIGHUP, on_hup, &old);
    sigset_t hup, prev;
    sigemptyset(&hup);
    sigaddset(&hup, SIGHUP);
    sigprocmask(SIG_BLOCK, &hup, &prev);
    hup_seen = 0;
    raise(SIGHUP);
    outfile *o[2] = {opened(dir, "c.json", "{}\n"), opened(dir, "s.pkl", "x")};
    am_error err = {0};
    CU_ASSERT_EQUAL(out_commit_all(o, 2, &err), -1);
    CU_ASSERT(strstr(err.msg, "interrupted") != NULL);
    CU_ASSERT_EQUAL(count_in(dir, NULL), 0);
    CU_ASSERT_EQUAL(hup_seen, 0);
    sigprocmask(SIG_SETMASK, &prev, NULL);
    CU_ASSERT_EQUAL(hup_seen, 1);
    sigaction(SIGHUP, &old, NULL);
}

/* SIGHUP, as SIGINT and SIGTERM, removes the open temporaries, a tracked -o folder and a
 * scratch folder with its files, and the command dies by the signal (until 2026-11-27 SIGHUP
 * left them all). In a child: the handler ends the process. */
static void test_hangup_removes_temporaries(void)
{
    const char *dir = fresh("hup");
    char odir[800], scratch[800], f[900];
    snprintf(odir, sizeof odir, "%s/o", dir);
    snprintf(scratch, sizeof scratch, "%s/scratch", dir);
    fflush(NULL);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        signal(SIGHUP, SIG_DFL); /* as a command started from a terminal has it */
        out_install_signals();
        int e = mkdir(odir, 0700) | mkdir(scratch, 0700);
        out_track_dir(odir, 1);
        out_track_scratch(scratch, 1);
        snprintf(f, sizeof f, "%s/plot0.svg", scratch);
        FILE *s = fopen(f, "w");
        outfile *a = NULL, *b = NULL;
        am_error err = {0};
        char p[900];
        snprintf(p, sizeof p, "%s/summary.json", odir);
        e |= out_open(&a, p, &err);
        snprintf(p, sizeof p, "%s/p.csv", dir);
        e |= out_open(&b, p, &err);
        if (e || !s || !a || !b)
            _exit(3);
        freopen("/dev/null", "w", stderr); /* the handler's "interrupted" line */
        fclose(s);
        fputs("x", out_fp(a));
        raise(SIGHUP);
        _exit(4); /* not reached */
    }
    int st = 0;
    CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
    CU_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGHUP);
    CU_ASSERT_EQUAL(count_in(dir, NULL), 0); /* no p.csv temporary, no o, no scratch */
}

/* A closed pipe (`| head -c 100`) on the run's standard output: the run dies by SIGPIPE (141)
 * or, with SIGPIPE ignored, fails with EPIPE (1); either way its other outputs are neither
 * published nor left as temporaries, and an -o folder it made is removed (until 2026-11-27
 * p.csv.tmp.PID and l.log.tmp.PID stayed). The Chrome trace is some 300 kB, more than a pipe
 * holds. */
static void test_closed_pipe(void)
{
    const char *dir = fresh("pipe");
    const char *bin = getenv("AMSIM") ? getenv("AMSIM") : "../../build/amsim";
    for (int ign = 0; ign < 2; ign++) {
        char cmd[4096], stp[800];
        snprintf(stp, sizeof stp, "%s/../pipe.status", dir);
        snprintf(cmd, sizeof cmd,
                 "%s { %s run -q -c '%s/configs/default.yaml' -t '%s/traces/gen_serve_small.trace' "
                 "--chrome-trace - --placements '%s/p.csv' --log '%s/l.log' -o '%s/o' "
                 "2>/dev/null </dev/null; echo $? >'%s'; } | head -c 100 >/dev/null",
                 ign ? "trap '' PIPE;" : "", bin, tu_top(), tu_top(), dir, dir, dir, stp);
        CU_ASSERT(system(cmd) != -1);
        char *s = tu_slurp(stp, NULL);
        int status = s ? atoi(s) : -1;
        CU_ASSERT(ign ? status == 1 : (status == 141 || status == 1));
        if (ign ? status != 1 : status != 141 && status != 1)
            fprintf(stderr, "\n  closed pipe (SIGPIPE %s): status %d\n",
                    ign ? "ignored" : "default", status);
        free(s);
        CU_ASSERT_EQUAL(count_in(dir, NULL), 0);
    }
}

/* `run`: the Chrome trace and the snapshot are committed with the other outputs. A snapshot
 * that cannot be written leaves no Chrome trace and no summary (until 2026-11-27 the trace was
 * renamed into place before the snapshot was written, status 1 with c.json published), and
 * standard output that cannot be written leaves none of the files (until 2026-11-27 j.json
 * and t.csv were published). */
static void test_run_all_or_none(void)
{
    if (access("/dev/full", W_OK) != 0)
        return;
    const char *dir = fresh("run_all");
    const char *bin = getenv("AMSIM") ? getenv("AMSIM") : "../../build/amsim";
    char args[4096], *err = NULL;
    snprintf(args, sizeof args, "run -q -c '%s/configs/default.yaml' -t "
             "'%s/traces/gen_train_small.trace' --chrome-trace '%s/c.json' --json '%s/j.json' "
             "--pytorch-snapshot /dev/full -o '%s/o'", tu_top(), tu_top(), dir, dir, dir);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 1);
    CU_ASSERT(err && strstr(err, "/dev/full: write failed") != NULL);
    free(err);
    CU_ASSERT_EQUAL(count_in(dir, NULL), 0);

    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s run -q -c '%s/configs/default.yaml' -t "
             "'%s/traces/gen_train_small.trace' --placements - --json '%s/j.json' "
             "--timeline '%s/t.csv' >/dev/full 2>/dev/null </dev/null", bin, tu_top(), tu_top(),
             dir, dir);
    int st = system(cmd);
    CU_ASSERT(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 1);
    CU_ASSERT_EQUAL(count_in(dir, NULL), 0);
}

/* A name of 250 bytes is taken (its temporary "NAME.tmp.PID" would not be: until 2026-11-27
 * "File name too long"), by out_open and by run and gen; no temporary stays. */
static void test_long_name(void)
{
    const char *dir = fresh("long");
    char name[251];
    memset(name, 'n', 250);
    name[250] = 0;
    outfile *o = opened(dir, name, "x\n");
    am_error err = {0};
    CU_ASSERT_EQUAL(out_commit(o, &err), 0);
    CU_ASSERT(exists(dir, name));
    CU_ASSERT_EQUAL(count_in(dir, NULL), 1);

    const char *sub = fresh("long2");
    name[0] = 'j';
    char args[4096];
    snprintf(args, sizeof args, "run -q -c '%s/configs/default.yaml' -t "
             "'%s/traces/gen_train_small.trace' --json '%s/%s'", tu_top(), tu_top(), sub, name);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
    CU_ASSERT(exists(sub, name));
    name[0] = 'g';
    snprintf(args, sizeof args, "gen train --layers 1 -o '%s/%s'", sub, name);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
    CU_ASSERT(exists(sub, name));
    CU_ASSERT_EQUAL(count_in(sub, NULL), 2);
}

/* A regular file under /dev/ that is no descriptor's name (/dev/shm/x) is replaced as any
 * regular file is: until 2026-11-28 every path under /dev/ was appended to, so a second run
 * left two CSVs in one file. */
static void test_dev_regular_replaced(void)
{
    char path[128];
    snprintf(path, sizeof path, "/dev/shm/amsim-test-%ld.csv", (long)getpid());
    FILE *f = fopen(path, "w");
    if (!f)
        return; /* no writable /dev/shm on this system */
    fputs("old contents\n", f);
    fclose(f);
    char args[1024];
    snprintf(args, sizeof args, "run -q -c '%s/configs/default.yaml' -t "
             "'%s/traces/gen_train_small.trace' --placements '%s'", tu_top(), tu_top(), path);
    for (int run = 0; run < 2; run++)
        CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
    f = fopen(path, "r");
    CU_ASSERT_FATAL(f != NULL);
    char line[256];
    int headers = 0, old = 0;
    while (fgets(line, sizeof line, f)) {
        headers += strncmp(line, "seq,id,level,", 13) == 0;
        old += strncmp(line, "old contents", 12) == 0;
    }
    fclose(f);
    unlink(path);
    CU_ASSERT_EQUAL(headers, 1);
    CU_ASSERT_EQUAL(old, 0);

    /* a descriptor's name keeps appending however it is spelled: /dev/./stdout, a link in
     * /dev/shm to /dev/stdout, a link elsewhere to /proc/self/fd/1 (by where each leads, not
     * by the spelling: the first fix of 2026-11-28 replaced the >> file of these) */
    const char *dir = fresh("devname");
    char link1[128], link2[PATH_MAX], out[PATH_MAX], cmd[3 * PATH_MAX + 256];
    snprintf(link1, sizeof link1, "/dev/shm/amsim-test-%ld.so", (long)getpid());
    snprintf(link2, sizeof link2, "%s/so", dir);
    snprintf(out, sizeof out, "%s/out.csv", dir);
    CU_ASSERT_FATAL(symlink("/dev/stdout", link1) == 0 && symlink("/proc/self/fd/1", link2) == 0);
    const char *names[] = {"/dev/./stdout", link1, link2};
    for (size_t i = 0; i < 3; i++) {
        f = fopen(out, "w");
        CU_ASSERT_FATAL(f != NULL);
        fputs("old contents\n", f);
        fclose(f);
        snprintf(cmd, sizeof cmd, "%s run -q -c '%s/configs/default.yaml' -t "
                 "'%s/traces/gen_train_small.trace' --placements '%s' >>'%s' 2>/dev/null",
                 getenv("AMSIM") ? getenv("AMSIM") : "../../build/amsim", tu_top(), tu_top(),
                 names[i], out);
        CU_ASSERT_EQUAL(system(cmd), 0);
        char *got = tu_slurp(out, NULL);
        CU_ASSERT(got && strncmp(got, "old contents\nseq,id,level,", 26) == 0);
        free(got);
    }
    unlink(link1);
}

/* `amsim report` makes its scratch folder under $TMPDIR (until 2026-11-27 always /tmp), and an
 * interrupt removes it, with the page's temporary (until 2026-11-27 it stayed), and leaves a
 * symbolic link DIR/report.html and its target as they were (until 2026-11-28 the link was
 * removed before the page was drawn, so an interrupted report lost it). The fake
 * gnuplot records the folder it runs in (the scratch folder) and the script it is given, and
 * stops the report with SIGTERM. */
static void test_report_scratch(void)
{
    if (access("/proc/self/stat", R_OK) != 0)
        return; /* the fake gnuplot finds amsim through /proc */
    const char *dir = fresh("rstudy"), *td = fresh("rtmp"), *fake = fresh("rfake");
    char p[1200], cmd[4096];
    snprintf(p, sizeof p, "%s/results.csv", dir);
    FILE *f = fopen(p, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs("run_id,run,a,b,policy,trace,status,hbm.peak_reserved_bytes,hbm.peak_live_bytes,"
          "hbm.fragmentation_ratio\n1,r1,1,1,bfc,t,ok,1048576,1000,0.1\n"
          "2,r2,2,1,bfc,t,ok,2097152,1000,0.1\n", f);
    fclose(f);
    char old_page[1200];
    snprintf(old_page, sizeof old_page, "%s/old.html", fake);
    f = fopen(old_page, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs("old\n", f);
    fclose(f);
    snprintf(p, sizeof p, "%s/report.html", dir);
    CU_ASSERT_FATAL(symlink(old_page, p) == 0);
    snprintf(p, sizeof p, "%s/gnuplot", fake);
    f = fopen(p, "w");
    CU_ASSERT_FATAL(f != NULL);
    /* the nearest ancestor named amsim (the report, gnuplot's parent) is sent the signal
     * (Linux /proc) */
    fprintf(f, "#!/bin/sh\npwd -P >'%s/../gp.cwd'\ncat >'%s/../gp.in'\np=$PPID\n"
               "while [ \"$p\" -gt 1 ] && [ \"$(cat /proc/$p/comm)\" != amsim ]; do\n"
               "  p=$(cut -d' ' -f4 /proc/$p/stat)\ndone\n"
               "[ \"$p\" -gt 1 ] && kill -TERM $p\nexit 0\n", fake, fake);
    fclose(f);
    chmod(p, 0755);
    snprintf(cmd, sizeof cmd, "TMPDIR='%s' PATH='%s:/usr/bin:/bin' %s report '%s' >/dev/null "
             "2>/dev/null </dev/null", td, fake,
             getenv("AMSIM") ? getenv("AMSIM") : "../../build/amsim", dir);
    int st = system(cmd);
    CU_ASSERT(st != -1 && WIFSIGNALED(st) ? WTERMSIG(st) == SIGTERM
                                          : WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGTERM);
    snprintf(p, sizeof p, "%s/../gp.in", fake);
    char *in = tu_slurp(p, NULL);
    CU_ASSERT(in && strstr(in, "load ") != NULL); /* it was given its script */
    free(in);
    snprintf(p, sizeof p, "%s/../gp.cwd", fake);
    char *cwd = tu_slurp(p, NULL), want[PATH_MAX + 32], rtd[PATH_MAX];
    /* gnuplot runs in the scratch folder (report_html.c, start_gnuplot) */
    snprintf(want, sizeof want, "%s/amsim-report-", realpath(td, rtd) ? rtd : td);
    CU_ASSERT(cwd && strncmp(cwd, want, strlen(want)) == 0);
    free(cwd);
    CU_ASSERT_EQUAL(count_in(td, NULL), 0);  /* the scratch folder went */
    /* results.csv and the link: no page, no temporary */
    CU_ASSERT_EQUAL(count_in(dir, NULL), 2);
    snprintf(p, sizeof p, "%s/report.html", dir);
    struct stat lst;
    CU_ASSERT(lstat(p, &lst) == 0 && S_ISLNK(lst.st_mode));
    char *page = tu_slurp(old_page, NULL);
    CU_ASSERT(page && strcmp(page, "old\n") == 0);
    free(page);
}

/* Run `sh -c "PREFIX; exec amsim ARGS"` with standard output to /dev/null: the exit status, or
 * 128 + the signal as the shell gives it. */
static int sh_amsim(const char *prefix, const char *args)
{
    const char *bin = getenv("AMSIM") ? getenv("AMSIM") : "../../build/amsim";
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "%s; exec %s %s >/dev/null 2>/dev/null </dev/null", prefix, bin,
             args);
    int st = system(cmd);
    if (st == -1)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* A file size limit (ulimit -f 1: 1 KiB) is a write error in every command: status 1
 * ("File too large"), no temporary left, nothing published, and report's scratch folder
 * removed. Until 2026-11-27 SIGXFSZ killed the command, status 153, its NAME.tmp.PID
 * temporaries (and report's scratch folder) left behind. */
static void test_file_size_limit(void)
{
    const char *dir = fresh("fsize"), *td = fresh("fsize_tmp"), *fake = fresh("fsize_gp");
    const char *top = tu_top();
    char args[4096], p[1200];
    for (size_t i = 0; i < 4; i++) {
        const char *trace = "traces/gen_train_small.trace";
        if (i == 0)
            snprintf(args, sizeof args, "run -q -c '%s/configs/default.yaml' -t '%s/%s' --json "
                     "'%s/j.json' --placements '%s/p.csv'", top, top, trace, dir, dir);
        else if (i == 1)
            snprintf(args, sizeof args, "gen train --layers 2 -o '%s/g.trace'", dir);
        else if (i == 2)
            snprintf(args, sizeof args, "convert '%s/%s' -o '%s/c.csv'", top, trace, dir);
        else
            snprintf(args, sizeof args, "compare -c '%s/configs/default.yaml' -t '%s/%s' "
                     "--policies bfc,caching,best_fit,first_fit --json '%s/cmp.json'", top, top,
                     trace, dir);
        int st = sh_amsim("ulimit -f 1", args);
        CU_ASSERT_EQUAL(st, 1);
        if (st != 1)
            fprintf(stderr, "\n  ulimit -f 1: status %d: %s\n", st, args);
        CU_ASSERT_EQUAL(count_in(dir, NULL), 0);
    }
    /* batch (its workers are forked from it) and report on its study */
    snprintf(p, sizeof p, "%s/sw.yaml", td);
    FILE *f = fopen(p, "w");
    CU_ASSERT_FATAL(f != NULL);
    fprintf(f, "base: %s/configs/default.yaml\ntraces: [%s/traces/gen_train_small.trace]\n"
               "policies: [bfc, caching]\noutputs: {timeline: true}\n", top, top);
    fclose(f);
    snprintf(args, sizeof args, "batch '%s' -o '%s/b' -j1 -q", p, dir);
    CU_ASSERT_EQUAL(sh_amsim("ulimit -f 1", args), 1);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "find '%s' -name '*.tmp.*' | grep -q .", dir);
    CU_ASSERT_NOT_EQUAL(system(cmd), 0); /* no temporary anywhere under it */
    snprintf(args, sizeof args, "batch '%s' -o '%s/study' -j1 -q", p, td);
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
    /* a gnuplot that reads its script and fails: the page is still over 1 KiB */
    snprintf(p, sizeof p, "%s/gnuplot", fake);
    f = fopen(p, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs("#!/bin/sh\ncat >/dev/null\nexit 1\n", f);
    fclose(f);
    chmod(p, 0755);
    char prefix[2048];
    snprintf(prefix, sizeof prefix, "ulimit -f 1; export TMPDIR='%s' PATH='%s:/usr/bin:/bin'",
             dir, fake);
    snprintf(args, sizeof args, "report '%s/study'", td);
    CU_ASSERT_EQUAL(sh_amsim(prefix, args), 1);
    snprintf(p, sizeof p, "%s/study", td);
    CU_ASSERT_EQUAL(count_in(p, "report.html"), 0); /* no page, no temporary */
    CU_ASSERT_EQUAL(count_in(dir, "amsim-report-"), 0);
}

/* Run `sh -c "PREFIX; exec amsim ARGS"` with standard output to /dev/null and standard error
 * into *err (through a pipe: under `ulimit -f` a file would not take it): the exit status. */
static int sh_amsim_err(const char *prefix, const char *args, char **err)
{
    const char *bin = getenv("AMSIM") ? getenv("AMSIM") : "../../build/amsim";
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "%s; exec %s %s 2>&1 >/dev/null </dev/null", prefix, bin, args);
    FILE *p = popen(cmd, "r");
    CU_ASSERT_FATAL(p != NULL);
    size_t n = 0, cap = 4096;
    char *buf = malloc(cap);
    CU_ASSERT_FATAL(buf != NULL);
    for (size_t got; (got = fread(buf + n, 1, cap - n - 1, p)) > 0;)
        if ((n += got) + 1 == cap) /* the messages are short: keep the first 4 KiB */
            break;
    buf[n] = 0;
    *err = buf;
    int st = pclose(p);
    if (st == -1)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* A command of one output under a file size limit of 0: `convert one.trace --to TO -o OUT`,
 * or with TO NULL `run -q -c cfg.yaml -t one.trace --pytorch-snapshot OUT` (OUT a name in a
 * fresh folder, or "-"). It must give status 1, its only line on stderr "amsim: FILE: write
 * failed: File too large" naming the output ("standard output" for "-"), no summary of what
 * was written, no file or temporary left. */
typedef struct fsize_case {
    const char *to, *out;
} fsize_case;

static void check_fsize_cases(const char *name, const fsize_case *cases, size_t n)
{
    char dname[64], iname[64];
    snprintf(dname, sizeof dname, "%s_out", name);
    snprintf(iname, sizeof iname, "%s_in", name);
    const char *dir = fresh(dname), *in = fresh(iname);
    char p[1200], cfg[1200];
    snprintf(p, sizeof p, "%s/one.trace", in);
    FILE *f = fopen(p, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs("amsim-trace v1\nalloc 1 1MiB\nfree 1\n", f);
    fclose(f);
    snprintf(cfg, sizeof cfg, "%s/cfg.yaml", in);
    f = fopen(cfg, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs("version: 1\nmemories:\n  hbm:\n    capacity: 16MiB\n    allocator:\n"
          "      policy: bfc\n      memory_limit: 16MiB\n", f);
    fclose(f);
    for (size_t i = 0; i < n; i++) {
        char out[1200], args[4096], want[1400], *err = NULL;
        int std = strcmp(cases[i].out, "-") == 0;
        if (std)
            snprintf(out, sizeof out, "-");
        else
            snprintf(out, sizeof out, "%s/%s", dir, cases[i].out);
        if (cases[i].to)
            snprintf(args, sizeof args, "convert '%s' --to %s -o '%s'", p, cases[i].to, out);
        else
            snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --pytorch-snapshot '%s'", cfg, p,
                     out);
        snprintf(want, sizeof want, "amsim: %s: write failed: File too large",
                 std ? "standard output" : out);
        int st = sh_amsim_err("ulimit -f 0", args, &err);
        int ok = st == 1 && strncmp(err, want, strlen(want)) == 0 && tu_count(err, "\n") == 1;
        CU_ASSERT(ok);
        if (!ok)
            fprintf(stderr, "\n  ulimit -f 0; amsim %s: status %d, stderr %s", args, st, err);
        free(err);
        CU_ASSERT_EQUAL(count_in(dir, NULL), 0);
    }
}

/* An output whose bytes first go through a scratch file (convert --to csv's rows, run
 * --pytorch-snapshot's trace entries) fails under a file size limit as any output does (the
 * message adds that it was the scratch file). Until 2026-11-27 that was status 2, an internal
 * error naming the input or the path "-" ("writing the lifetime CSV's rows to a scratch file:
 * File too large"). */
static void test_scratch_write_errors(void)
{
    static const fsize_case cases[] = {
        {"csv", "one.csv"}, {"csv", "-"}, {NULL, "one.pickle"}, {NULL, "-"},
    };
    check_fsize_cases("scratch_fsize", cases, sizeof cases / sizeof cases[0]);
}

/* The binary trace writer's write error is the output's, named as the commit names it. Until
 * 2026-11-27 it said "binary trace writer: write error: File too large", naming no file. */
static void test_binary_write_error(void)
{
    static const fsize_case cases[] = {
        {"binary", "one.bin"}, {"binary", "-"},
    };
    check_fsize_cases("binary_fsize", cases, sizeof cases / sizeof cases[0]);
}

/* A conversion whose output cannot be written prints the write error only, not the summary of
 * the rows it wrote: that summary comes once the output is committed (until 2026-11-27 `convert
 * --to csv -o /dev/full` said "1 buffer written" before the write error). Written to a file, the
 * summary is there. */
static void test_convert_summary_after_commit(void)
{
    const char *dir = fresh("convert_note");
    char p[1200], args[4096], *err = NULL;
    snprintf(p, sizeof p, "%s/one.trace", dir);
    FILE *f = fopen(p, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs("amsim-trace v1\nalloc 1 1MiB\nfree 1\n", f);
    fclose(f);
    static const char *const to[] = {"csv", "native", "binary"};
    for (size_t i = 0; i < 3 && access("/dev/full", W_OK) == 0; i++) {
        snprintf(args, sizeof args, "convert '%s' --to %s -o /dev/full", p, to[i]);
        CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 1);
        CU_ASSERT(err && strcmp(err, "amsim: /dev/full: write failed: No space left on "
                                     "device\n") == 0);
        if (err && strcmp(err, "amsim: /dev/full: write failed: No space left on device\n"))
            fprintf(stderr, "\n  convert --to %s -o /dev/full: stderr %s", to[i], err);
        free(err);
        err = NULL;
    }
    snprintf(args, sizeof args, "convert '%s' --to csv -o '%s/one.csv'", p, dir);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 0);
    CU_ASSERT(err && strstr(err, "amsim convert: lifetime CSV keeps the allocations and frees of "
                                 "hbm only: 1 buffer written") == err);
    free(err);
}

/* A report or table on standard output that cannot be written (/dev/full, or standard output
 * closed: `>&-`) fails the command, status 1, before its files are renamed into place: an
 * earlier --json stays as it was, an -o folder is not made, for run, compare, mincap and
 * stats alike. Until 2026-11-27 run printed its report after the renames, and compare and
 * mincap committed --json before the table reached standard output (stats too, the table being
 * flushed only at exit): the files were replaced although the command failed. */
static void test_stdout_fails_first(void)
{
    if (access("/dev/full", W_OK) != 0)
        return;
    const char *dir = fresh("stdout_first"), *top = tu_top();
    const char *bin = getenv("AMSIM") ? getenv("AMSIM") : "../../build/amsim";
    char run[2048], study[2048], cmd[16384], keep[2100];
    snprintf(run, sizeof run, "-c '%s/configs/default.yaml' -t '%s/traces/gen_train_small.trace'",
             top, top);
    snprintf(study, sizeof study, "%s/study", dir);
    mkdir(study, 0777);
    snprintf(keep, sizeof keep, "%s/results.csv", study);
    FILE *f = fopen(keep, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs("run_id,run,policy,trace,status,hbm.peak_reserved_bytes\n1,r1,bfc,t,ok,1048576\n"
          "2,r2,bfc,t,ok,2097152\n", f);
    fclose(f);
    snprintf(keep, sizeof keep, "%s/keep.json", dir);
    char args[6][2200];
    snprintf(args[0], sizeof args[0], "run %s -o '%s/od'", run, dir);
    snprintf(args[1], sizeof args[1], "run %s", run);
    snprintf(args[2], sizeof args[2], "compare %s --policies bfc,caching", run);
    snprintf(args[3], sizeof args[3], "mincap %s --policies bfc", run);
    snprintf(args[4], sizeof args[4], "stats '%s/results.csv' --metric hbm.peak_reserved_bytes",
             study);
    /* status 3 (--fail-on-oom: a row ran out of memory) becomes 1 when the table cannot be
     * written, as main's check_stdout makes it, though out_commit is what reports it */
    snprintf(args[5], sizeof args[5], "compare %s --policies bfc,caching --fail-on-oom --set "
             "memories.hbm.allocator.memory_limit=64MiB", run);
    static const char *const sinks[] = {">/dev/full", ">&-"};
    for (int i = 0; i < 6; i++)
        for (int k = 0; k < 2; k++) {
            f = fopen(keep, "w");
            CU_ASSERT_FATAL(f != NULL);
            fputs("OLD\n", f);
            fclose(f);
            snprintf(cmd, sizeof cmd, "%s %s --json '%s' %s 2>/dev/null </dev/null", bin,
                     args[i], keep, sinks[k]);
            int st = system(cmd);
            CU_ASSERT(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 1);
            char *kept = tu_slurp(keep, NULL);
            CU_ASSERT(kept && strcmp(kept, "OLD\n") == 0);
            if (!kept || strcmp(kept, "OLD\n") != 0)
                fprintf(stderr, "\n  %s %s: --json replaced\n", args[i], sinks[k]);
            free(kept);
            CU_ASSERT_EQUAL(count_in(dir, NULL), 2); /* keep.json and study: no od, no temporary */
        }
}

/* An output that names a standard descriptor closed when the command started (/dev/stdout
 * with `>&-`, /dev/fd/1, /proc/self/fd/1, /dev/stderr with `2>&-`) fails as an output "-"
 * does there, status 1 with "Bad file descriptor"; the same names with the descriptor open
 * still work. Until 2026-11-27 main's /dev/null on the closed descriptor took the bytes,
 * status 0: the JSON was lost without a word. */
static void test_closed_std_names(void)
{
    const char *dir = fresh("closed_std"), *top = tu_top();
    const char *bin = getenv("AMSIM") ? getenv("AMSIM") : "../../build/amsim";
    char run[2048], cmd[8192], err[1200];
    snprintf(run, sizeof run,
             "run -c '%s/configs/default.yaml' -t '%s/traces/gen_train_small.trace' -q", top, top);
    snprintf(err, sizeof err, "%s/err.txt", dir);
    static const struct {
        const char *out, *redir;
        int status;
    } cases[] = {
        {"/dev/stdout", ">&-", 1},      {"/dev/fd/1", ">&-", 1},
        {"/proc/self/fd/1", ">&-", 1},  {"/dev/stderr", "3>&2 2>&-", 1},
        {"/dev/stdout", ">/dev/null", 0}, {"/dev/stderr", ">&-", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* standard error closed: the message goes nowhere, the status tells */
        snprintf(cmd, sizeof cmd, "%s %s --json %s %s %s </dev/null", bin, run, cases[i].out,
                 strstr(cases[i].redir, "2>&-") ? "" : "2>/dev/null", cases[i].redir);
        int st = system(cmd);
        int got = st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        CU_ASSERT_EQUAL(got, cases[i].status);
        if (got != cases[i].status)
            fprintf(stderr, "\n  --json %s %s: status %d\n", cases[i].out, cases[i].redir, got);
    }
    snprintf(cmd, sizeof cmd, "%s %s --json /dev/stdout >&- 2>'%s'", bin, run, err);
    CU_ASSERT_EQUAL(system(cmd) != 0, 1);
    char *msg = tu_slurp(err, NULL);
    CU_ASSERT(msg && strstr(msg, "/dev/stdout: cannot write: Bad file descriptor"));
    free(msg);
}

/* An output written in place (a FIFO, /dev/stdout, /dev/fd/3) waits in a temporary, as "-"
 * does, and reaches its destination only when the run succeeds: a run that fails on its trace
 * (a free of an unknown id, at the end) writes nothing there, status 1; one that succeeds
 * writes all of it. Until 2026-11-27 such outputs got the bytes as they were written: a
 * truncated Chrome trace in the FIFO, the placements header and half the log. */
static void test_in_place_held(void)
{
    const char *dir = fresh("in_place"), *top = tu_top();
    const char *bin = getenv("AMSIM") ? getenv("AMSIM") : "../../build/amsim";
    char p[1200], cmd[8192];
    snprintf(p, sizeof p, "%s/traces/gen_train_small.trace", top);
    char *good = tu_slurp(p, NULL);
    CU_ASSERT_FATAL(good != NULL);
    snprintf(p, sizeof p, "%s/bad.trace", dir);
    FILE *f = fopen(p, "w");
    CU_ASSERT_FATAL(f != NULL);
    fprintf(f, "%sfree 999999\n", good);
    fclose(f);
    free(good);
    snprintf(p, sizeof p, "%s/fifo", dir);
    CU_ASSERT_FATAL(mkfifo(p, 0600) == 0);
    for (int ok = 0; ok < 2; ok++) {
        /* the FIFO's reader copies what it gets to got.json; the run's standard output goes to
         * out.csv and descriptor 3 to log.txt */
        char trace[1200];
        if (ok)
            snprintf(trace, sizeof trace, "%s/traces/gen_train_small.trace", top);
        else
            snprintf(trace, sizeof trace, "%s/bad.trace", dir);
        snprintf(cmd, sizeof cmd,
                 "cd '%s' && { timeout 60 cat fifo >got.json & } && %s run -q "
                 "-c '%s/configs/default.yaml' -t '%s' --chrome-trace fifo --placements "
                 "/dev/stdout --log /dev/fd/3 >out.csv 3>log.txt 2>/dev/null </dev/null; "
                 "st=$?; wait; exit $st", dir, bin, top, trace);
        int st = system(cmd);
        CU_ASSERT(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == (ok ? 0 : 1));
        static const char *const outs[] = {"got.json", "out.csv", "log.txt"};
        for (int i = 0; i < 3; i++) {
            snprintf(p, sizeof p, "%s/%s", dir, outs[i]);
            size_t n = 0;
            char *got = tu_slurp(p, &n);
            CU_ASSERT(got != NULL && (ok ? n > 100 : n == 0));
            if (!got || (ok ? n <= 100 : n != 0))
                fprintf(stderr, "\n  %s run: %s has %zu bytes\n", ok ? "good" : "failed",
                        outs[i], n);
            if (ok && i == 0) /* the whole Chrome trace: its JSON closed */
                CU_ASSERT(got && n > 2 && strstr(got + n - 3, "}") != NULL);
            free(got);
        }
    }
    CU_ASSERT_EQUAL(count_in(dir, "tmp"), 0);
}

/* Where outfile `-`'s spool is: "DIR/..." from /proc/self/fd, DIR the folder it was made in;
 * "" when it cannot be told. */
static void spool_dir_of(const char *tmpdir, char *dir, size_t n)
{
    outfile *o = NULL;
    am_error err = {0};
    dir[0] = 0;
    if (tmpdir)
        setenv("TMPDIR", tmpdir, 1);
    else
        unsetenv("TMPDIR");
    CU_ASSERT_FATAL(out_open(&o, "-", &err) == 0);
    char fdp[64];
    snprintf(fdp, sizeof fdp, "/proc/self/fd/%d", fileno(out_fp(o)));
    ssize_t k = readlink(fdp, dir, n - 1);
    dir[k > 0 ? k : 0] = 0;
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    out_abort(o);
}

/* An in-place output's spool (an output "-", a FIFO, /dev/stdout) is made in $TMPDIR, else in
 * /tmp (an unset or empty TMPDIR, or one where no file can be made). Until 2026-11-27 glibc's
 * tmpfile() made it in /tmp whatever TMPDIR said. */
static void test_spool_in_tmpdir(void)
{
    const char *dir = fresh("spool_tmpdir");
    char *real = realpath(dir, NULL), got[4096], bad[1200];
    CU_ASSERT_FATAL(real != NULL);
    const char *old = getenv("TMPDIR");
    char *saved = old ? strdup(old) : NULL;
    spool_dir_of(dir, got, sizeof got);
    CU_ASSERT_STRING_EQUAL(got, real);
    snprintf(bad, sizeof bad, "%s/no-such-folder", dir);
    spool_dir_of(bad, got, sizeof got);
    CU_ASSERT_STRING_EQUAL(got, "/tmp");
    spool_dir_of("", got, sizeof got);
    CU_ASSERT_STRING_EQUAL(got, "/tmp");
    spool_dir_of(saved, got, sizeof got); /* and TMPDIR as it was */
    free(saved);
    free(real);
}

/* An output on standard output under another name than "-" (/dev/stdout, /dev/fd/1,
 * /proc/self/fd/1, or the path of the file standard output goes to) is refused beside the
 * text report as `--json -` is, whether standard output is a file or a pipe, and works with
 * -q: the whole JSON, once. Until 2026-11-27 `run --json /dev/stdout > out.txt` wrote the
 * report over the JSON's first bytes (opened apart, both at offset 0), status 0. */
static void test_stdout_spellings(void)
{
    const char *dir = fresh("spellings"), *top = tu_top();
    const char *bin = getenv("AMSIM") ? getenv("AMSIM") : "../../build/amsim";
    static const char *const names[] = {"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1",
                                        "out.txt"};
    static const char *const sinks[] = {">out.txt", "| cat >out.txt"};
    char cmd[4096], p[1200];
    snprintf(p, sizeof p, "%s/out.txt", dir);
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 2; k++)
            for (int quiet = 0; quiet < 2; quiet++) {
                if (k == 1 && i == 3)
                    continue; /* through a pipe, out.txt is not standard output's file */
                snprintf(cmd, sizeof cmd,
                         "cd '%s' && { %s run %s -c '%s/configs/default.yaml' -t "
                         "'%s/traces/gen_train_small.trace' --json %s 2>err.txt </dev/null; "
                         "echo $? >st.txt; } %s", dir, bin, quiet ? "-q" : "", top, top,
                         names[i], sinks[k]);
                CU_ASSERT(system(cmd) == 0);
                snprintf(p, sizeof p, "%s/st.txt", dir);
                char *st = tu_slurp(p, NULL);
                snprintf(p, sizeof p, "%s/err.txt", dir);
                char *err = tu_slurp(p, NULL);
                snprintf(p, sizeof p, "%s/out.txt", dir);
                size_t n = 0;
                char *out = tu_slurp(p, &n);
                int ok = st && out && err &&
                         (quiet ? strcmp(st, "0\n") == 0 && n > 100 && out[0] == '{' &&
                                      tu_count(out, "\"amsim_version\"") == 1 &&
                                      strcmp(out + n - 2, "}\n") == 0
                                : strcmp(st, "1\n") == 0 && n == 0 &&
                                      strstr(err, "--json and the report (-q leaves it out) "
                                                  "both write to standard output") != NULL);
                CU_ASSERT(ok);
                if (!ok)
                    fprintf(stderr, "\n  run%s --json %s %s: status %s, %zu bytes out\n",
                            quiet ? " -q" : "", names[i], sinks[k], st ? st : "?", n);
                free(st);
                free(err);
                free(out);
                remove(p);
            }
    CU_ASSERT_EQUAL(count_in(dir, "tmp"), 0);
}

/* A temporary's name that is taken (a symbolic link planted as "NAME.tmp.PID", a file left
 * there) is neither written through nor truncated: the output goes to another temporary and is
 * published all the same (until 2026-11-28 the temporary was opened with fopen "w", and the
 * planted link had the output's bytes written into the file it named). */
static void test_tmp_name_taken(void)
{
    const char *dir = fresh("tmp_taken");
    char victim[900], link[900], left[900], p[900];
    snprintf(victim, sizeof victim, "%s/victim", dir);
    FILE *f = fopen(victim, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs("precious\n", f);
    fclose(f);
    snprintf(link, sizeof link, "%s/o.json.tmp.%ld", dir, (long)getpid());
    CU_ASSERT_FATAL(symlink(victim, link) == 0);
    snprintf(left, sizeof left, "%s/p.csv.tmp.%ld", dir, (long)getpid());
    f = fopen(left, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs("left\n", f);
    fclose(f);
    outfile *o[2] = {opened(dir, "o.json", "{}\n"), opened(dir, "p.csv", "a,b\n")};
    am_error err = {0};
    CU_ASSERT_EQUAL(out_commit_all(o, 2, &err), 0);
    char *v = tu_slurp(victim, NULL), *l = tu_slurp(left, NULL);
    snprintf(p, sizeof p, "%s/o.json", dir);
    char *j = tu_slurp(p, NULL);
    CU_ASSERT(v && strcmp(v, "precious\n") == 0);
    CU_ASSERT(l && strcmp(l, "left\n") == 0);
    CU_ASSERT(j && strcmp(j, "{}\n") == 0);
    free(v);
    free(l);
    free(j);
    struct stat st;
    CU_ASSERT(lstat(link, &st) == 0 && S_ISLNK(st.st_mode)); /* not ours: left as it was */
    CU_ASSERT_EQUAL(count_in(dir, NULL), 5); /* victim, the link, the file left, o.json, p.csv */
}

/* Every temporary name of an output taken (NAME.tmp.PID and .1 to .99): the error says so and
 * names the first, none of them is touched. Until 2026-11-28 it said "o.json: cannot write:
 * File exists", as if o.json were in the way. */
static void test_tmp_names_all_taken(void)
{
    const char *dir = fresh("tmp_all_taken");
    char p[900], want[2000];
    for (int k = 0; k < 100; k++) {
        if (k)
            snprintf(p, sizeof p, "%s/o.json.tmp.%ld.%d", dir, (long)getpid(), k);
        else
            snprintf(p, sizeof p, "%s/o.json.tmp.%ld", dir, (long)getpid());
        FILE *f = fopen(p, "w");
        CU_ASSERT_FATAL(f != NULL);
        fclose(f);
    }
    snprintf(p, sizeof p, "%s/o.json", dir);
    outfile *o = NULL;
    am_error err = {0};
    CU_ASSERT_EQUAL(out_open(&o, p, &err), -1);
    CU_ASSERT(o == NULL);
    snprintf(want, sizeof want, "%s: cannot write: its temporary names %s.tmp.%ld[.K] (K 1 to "
             "99) are all taken; remove them", p, p, (long)getpid());
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    CU_ASSERT_EQUAL(count_in(dir, NULL), 100);
}

/* The short temporary names (.amsim.tmp.PID.N) of a long output name all taken: the error
 * names the first tried. base_len 250 is too long for "NAME.tmp.PID"; 255 - strlen(".tmp.PID")
 * takes that but not "NAME.tmp.PID.K", so every try is short. N is found from an output
 * opened and aborted first, then N+1 to N+100 are planted. Until 2026-11-28 the error named
 * N+201, a name never tried, and the second length tried "NAME.tmp.PID" first, then short
 * names, while its message spoke of "NAME.tmp.PID[.K]". */
static void short_names_all_taken(const char *dir, size_t base_len)
{
    char pid[32], p[1200], want[2600], name[300];
    int n = snprintf(pid, sizeof pid, ".amsim.tmp.%ld.", (long)getpid());
    snprintf(p, sizeof p, "%s/", dir);
    memset(p + strlen(dir) + 1, 'x', base_len);
    p[strlen(dir) + 1 + base_len] = 0;
    outfile *o = NULL;
    am_error err = {0};
    CU_ASSERT_FATAL(out_open(&o, p, &err) == 0);
    unsigned first = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, pid, (size_t)n) == 0)
            first = (unsigned)strtoul(e->d_name + n, NULL, 10) + 1;
    closedir(d);
    out_abort(o);
    CU_ASSERT_FATAL(first > 0);
    for (unsigned k = first; k < first + 100; k++) {
        snprintf(name, sizeof name, "%s/%s%u", dir, pid, k);
        FILE *f = fopen(name, "w");
        CU_ASSERT_FATAL(f != NULL);
        fclose(f);
    }
    CU_ASSERT_EQUAL(out_open(&o, p, &err), -1);
    CU_ASSERT(o == NULL);
    snprintf(want, sizeof want, "%s: cannot write: its 100 temporary names from %s/%s%u on are "
             "all taken; remove them", p, dir, pid, first);
    CU_ASSERT_STRING_EQUAL(err.msg, want);
    CU_ASSERT_EQUAL(count_in(dir, NULL), 100);
}

static void test_tmp_short_names_all_taken(void)
{
    char suffix[32];
    snprintf(suffix, sizeof suffix, ".tmp.%ld", (long)getpid());
    short_names_all_taken(fresh("tmp_short_250"), 250);
    short_names_all_taken(fresh("tmp_short_fits"), 255 - strlen(suffix));
}

/* In a child with the command's signal handlers: out_commit (how = 0) or out_commit_all
 * (how = 1) of dir/name, the commit skipped (how = 2); then SIGINT, as one held off during the
 * renames is delivered when they are done. The child's standard error goes to dir/name.err;
 * its wait status. */
static int interrupted_after(const char *dir, const char *name, int how)
{
    char e[900];
    snprintf(e, sizeof e, "%s/%s.err", dir, name);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGINT, SIG_DFL); /* not a background job's SIG_IGN */
        out_install_signals();
        if (!freopen(e, "w", stderr))
            _exit(3);
        outfile *o = opened(dir, name, "{}\n");
        am_error err = {0};
        if ((how == 0 && out_commit(o, &err) != 0) || (how == 1 && out_commit_all(&o, 1, &err)))
            _exit(4);
        raise(SIGINT);
        _exit(5); /* not reached */
    }
    int st = 0;
    CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
    return st;
}

/* A stop signal that comes once the outputs are committed removes nothing and says so; the
 * command still ends by the signal (130 for SIGINT). Until 2026-11-28 it said "interrupted;
 * partial outputs removed" with every output already replaced. One before the commit still
 * removes the temporary and says that. */
static void test_interrupt_after_commit(void)
{
    const char *dir = fresh("after_commit");
    static const char *const names[] = {"one.json", "all.json", "none.json"};
    char p[900];
    for (int how = 0; how < 3; how++) {
        int st = interrupted_after(dir, names[how], how);
        CU_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT);
        snprintf(p, sizeof p, "%s/%s.err", dir, names[how]);
        char *err = tu_slurp(p, NULL);
        CU_ASSERT_FATAL(err != NULL);
        if (how < 2) {
            CU_ASSERT(strstr(err, "amsim: interrupted; its outputs were already written and "
                             "stay (nothing removed)\n") != NULL);
            CU_ASSERT(strstr(err, "partial outputs removed") == NULL);
            CU_ASSERT(exists(dir, names[how]));
        } else {
            CU_ASSERT(strstr(err, "amsim: interrupted; partial outputs removed\n") != NULL);
            CU_ASSERT(!exists(dir, names[how]));
        }
        free(err);
    }
    CU_ASSERT_EQUAL(count_in(dir, ".tmp."), 0);
    CU_ASSERT_EQUAL(count_in(dir, NULL), 5); /* two outputs, three .err files */
}

/* An in-place output (--json -) waits in an unlinked spool file in $TMPDIR; a SIGTERM at any of
 * the run's first 40 openat calls (sent by strace as the call returns: the spool's creation is
 * one of them) leaves no amsim-spool.XXXXXX there. Until 2026-11-28 one between its mkstemp
 * and its unlink left it for good. Without a working strace this is skipped. */
static void test_spool_interrupted(void)
{
    if (system("strace -o /dev/null true >/dev/null 2>&1") != 0) {
        printf("\n  skipped: no working strace, the spool's interrupt is not tested\n");
        return;
    }
    const char *bin = getenv("AMSIM") ? getenv("AMSIM") : "../../build/amsim";
    const char *dir = fresh("spool_sig");
    char cmd[8192];
    int signalled = 0;
    for (int n = 1; n <= 40; n++) {
        snprintf(cmd, sizeof cmd, "TMPDIR='%s' strace -f -qq -o /dev/null -e trace=openat -e "
                 "inject=openat:signal=SIGTERM:when=%d %s run -q -c %s/configs/default.yaml -t "
                 "%s/traces/gpu_train_step.trace --json - >/dev/null 2>&1", dir, n, bin,
                 tu_top(), tu_top());
        int st = system(cmd);
        signalled += WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGTERM;
        CU_ASSERT_EQUAL(count_in(dir, "amsim-spool."), 0);
        if (count_in(dir, "amsim-spool.") != 0) {
            fprintf(stderr, "\n  SIGTERM at openat %d left a spool file\n", n);
            break;
        }
    }
    CU_ASSERT(signalled > 0); /* the signal did stop some of them */
}

void suite_outfile(void)
{
    TU_SUITE("outfile",
             {"an interrupt leaves no spool file of an in-place output", test_spool_interrupted},
             {"commit all: one write error renames none", test_commit_all_write_error},
             {"a write error a writer noted is the reason given", test_write_error_noted},
             {"commit all: a pending stop signal renames none", test_commit_all_interrupted},
             {"SIGHUP removes temporaries, -o folder and scratch folder",
              test_hangup_removes_temporaries},
             {"a closed pipe leaves no temporary and publishes nothing", test_closed_pipe},
             {"run: Chrome trace and snapshot committed with the others, all or none",
              test_run_all_or_none},
             {"an output name of 250 bytes works", test_long_name},
             {"a regular file under /dev/ is replaced, not appended to", test_dev_regular_replaced},
             {"report: scratch folder under $TMPDIR, removed by an interrupt",
              test_report_scratch},
             {"a file size limit is a write error: status 1, no temporaries",
              test_file_size_limit},
             {"a scratch file that cannot be written is the output's write error",
              test_scratch_write_errors},
             {"the binary trace writer's write error names the output",
              test_binary_write_error},
             {"convert's summary comes after its output is committed",
              test_convert_summary_after_commit},
             {"a report that cannot reach standard output publishes no file",
              test_stdout_fails_first},
             {"a FIFO, /dev/stdout and /dev/fd/N get nothing from a failed run",
              test_in_place_held},
             {"/dev/stdout, /dev/fd/1 on a closed standard output fail",
              test_closed_std_names},
             {"/dev/stdout, /dev/fd/1 and standard output's file are '-' beside the report",
              test_stdout_spellings},
             {"an in-place output's spool is in $TMPDIR, else /tmp", test_spool_in_tmpdir},
             {"a temporary's name that is taken is not written through",
              test_tmp_name_taken},
             {"every temporary name taken is said as such", test_tmp_names_all_taken},
             {"every short temporary name taken names the first tried",
              test_tmp_short_names_all_taken},
             {"an interrupt after the commit says the outputs stay",
              test_interrupt_after_commit});
}
