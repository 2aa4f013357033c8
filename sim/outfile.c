/* outfile.c - atomic output files (see outfile.h). */
#include "outfile.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OUT_MAX 32

struct outfile {
    FILE *f;
    char *path, *tmp;
    int is_stdout;
};

/* Temporaries open now, for the signal handler (async-signal-safe unlink only). */
static char tmp_names[OUT_MAX][4096];
static volatile sig_atomic_t tmp_used[OUT_MAX];

static void track(const char *tmp, int on)
{
    for (int i = 0; i < OUT_MAX; i++) {
        if (on && !tmp_used[i]) {
            snprintf(tmp_names[i], sizeof tmp_names[i], "%s", tmp);
            tmp_used[i] = 1;
            return;
        }
        if (!on && tmp_used[i] && strcmp(tmp_names[i], tmp) == 0) {
            tmp_used[i] = 0;
            return;
        }
    }
}

int out_open(outfile **o, const char *path, am_error *err)
{
    *o = NULL;
    if (!path)
        return 0;
    outfile *x = am_calloc(1, sizeof *x);
    if (strcmp(path, "-") == 0) {
        x->f = stdout;
        x->is_stdout = 1;
        *o = x;
        return 0;
    }
    x->path = am_strdup(path);
    size_t n = strlen(path) + 32;
    x->tmp = am_malloc(n);
    snprintf(x->tmp, n, "%s.tmp.%ld", path, (long)getpid());
    x->f = fopen(x->tmp, "wb");
    if (!x->f) {
        int e = errno;
        free(x->path);
        free(x->tmp);
        free(x);
        return am_fail(err, AM_EINPUT, "%s: cannot write: %s", path, strerror(e));
    }
    static char bufs[OUT_MAX][1 << 16];
    static int nb;
    if (nb < OUT_MAX)
        setvbuf(x->f, bufs[nb++], _IOFBF, sizeof bufs[0]);
    track(x->tmp, 1);
    *o = x;
    return 0;
}

FILE *out_fp(outfile *o) { return o ? o->f : NULL; }

static void release(outfile *o)
{
    free(o->path);
    free(o->tmp);
    free(o);
}

int out_commit(outfile *o, am_error *err)
{
    if (!o)
        return 0;
    if (o->is_stdout) {
        int bad = fflush(stdout) != 0;
        release(o);
        return bad ? am_fail(err, AM_EINPUT, "standard output: write failed") : 0;
    }
    int bad = ferror(o->f) != 0;
    bad |= fclose(o->f) != 0;
    if (bad || rename(o->tmp, o->path) != 0) {
        int e = errno;
        unlink(o->tmp);
        track(o->tmp, 0);
        am_fail(err, AM_EINPUT, "%s: write failed: %s", o->path, strerror(e));
        release(o);
        return -1;
    }
    track(o->tmp, 0);
    release(o);
    return 0;
}

void out_abort(outfile *o)
{
    if (!o)
        return;
    if (!o->is_stdout) {
        fclose(o->f);
        unlink(o->tmp);
        track(o->tmp, 0);
    }
    release(o);
}

void out_abort_all(void)
{
    for (int i = 0; i < OUT_MAX; i++)
        if (tmp_used[i]) {
            unlink(tmp_names[i]);
            tmp_used[i] = 0;
        }
}

static void on_signal(int sig)
{
    out_abort_all();
    static const char msg[] = "amsim: interrupted; partial outputs removed\n";
    ssize_t r = write(2, msg, sizeof msg - 1);
    (void)r;
    signal(sig, SIG_DFL);
    raise(sig);
}

void out_install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}
