/* fuzz_trace_common.h - the trace reader harness (libFuzzer), shared by fuzz_native, fuzz_csv
 * and fuzz_pickle: they differ only in seed corpus and dictionary (formats are detected by
 * content, so each reaches every reader).
 *
 * trace_open() takes a path (it stats the file, detects the format by content and rewinds),
 * so each input is written to one private temporary file (created once per process, removed
 * at exit) and the reader's full iterator is driven to its end or first error. Every
 * allocation the reader makes must be released by trace_close: libFuzzer's leak checker
 * (ASan LeakSanitizer) fails the run otherwise. */
#ifndef AM_FUZZ_TRACE_COMMON_H
#define AM_FUZZ_TRACE_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../sim/trace.h"

static char fz_path[4096];

static void fz_cleanup(void)
{
    if (fz_path[0])
        unlink(fz_path);
}

static void fz_init_path(void)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    snprintf(fz_path, sizeof fz_path, "%s/amsim-fuzz-XXXXXX", dir);
    int fd = mkstemp(fz_path);
    if (fd < 0) {
        perror("amsim fuzz: mkstemp");
        abort();
    }
    close(fd);
    atexit(fz_cleanup);
}

/* Write data to the temp file (truncating) and replay it through the trace iterator. */
static void fz_replay(const uint8_t *data, size_t size)
{
    FILE *f = fopen(fz_path, "wb");
    if (!f)
        abort();
    if (size && fwrite(data, 1, size, f) != size)
        abort();
    if (fclose(f) != 0)
        abort();

    static const char *const levels[] = {"hbm", "host", "vmem", "smem", "accumulator"};
    trace_opts o = {.level_names = levels, .nlevels = 5, .default_level = 0,
                    .time_unit = 0, .device = 0};
    am_error err = {0};
    trace *t = NULL;
    if (trace_open(&t, fz_path, &o, &err) != 0) {
        if (t || err.status == AM_OK || !err.msg[0])
            abort(); /* a failed open must say why and return nothing */
        return;
    }
    tr_event ev;
    int r;
    unsigned long n = 0;
    while ((r = trace_next(t, &ev, &err)) == 1) {
        if (ev.name) /* touch the optional tag: it must be a valid string until the next call */
            n += strlen(ev.name);
        n++;
    }
    if (r < 0 && (err.status == AM_OK || !err.msg[0]))
        abort(); /* an error without a message */
    (void)trace_format(t);
    (void)trace_skipped(t);
    trace_close(t);
    (void)n;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fz_init_path();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_replay(data, size);
    return 0;
}

#endif
