/* fuzz_run.c - libFuzzer harness: whole runs, the engine and the allocator policies, through
 * run_once (sim/run.c), the entry `amsim run` uses, with --check (every policy's invariants
 * after every event) and every cheap output: the JSON summary, placements, the --log lines,
 * the text report, the Chrome trace and the PyTorch snapshot export, all to /dev/null (the
 * exporters still build their whole output: /dev/null is written in place, sim/outfile.c).
 *
 * Input: byte 0 picks a config of the table in fuzz_run_configs.h (bit 6: --lenient), the
 * rest is a trace, a native text trace unless it starts as a lifetime CSV (fz_split). A clean
 * end or an error with a message is fine; an error without one, an internal error (status 2:
 * a broken invariant under --check, an "internal error"), a sanitizer report, a leak or an
 * exit aborts.
 *
 * The configs are small on purpose (KiB to a few MiB), so that a few lines of trace reach
 * out-of-memory, spilling, defragmentation and retry waits; every policy of `amsim policies`
 * is in the table. Work per input is bounded by the input's size (FZ_MAX_INPUT) and the
 * configs' (offline's exact search gets a small search_budget): each input runs in
 * milliseconds, and a run depends on nothing but its input. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../sim/config.h"
#include "../../sim/run.h"
#include "fuzz_run_configs.h"

/* Larger inputs are ignored: a few hundred lines reach every path a longer trace does, and
 * the checks after every event make the cost grow with the square of the live buffers. */
#define FZ_MAX_INPUT 8192

static char fz_dir[4096];
static char fz_cfg[FZ_NCONFIGS][4200];
static char fz_trace[4200];
static FILE *fz_null;
static int fz_verbose;

static void fz_cleanup(void)
{
    for (size_t i = 0; i < FZ_NCONFIGS; i++)
        if (fz_cfg[i][0])
            unlink(fz_cfg[i]);
    if (fz_trace[0])
        unlink(fz_trace);
    if (fz_dir[0])
        rmdir(fz_dir);
}

static void fz_write(const char *path, const void *a, size_t na, const void *b, size_t nb)
{
    FILE *f = fopen(path, "wb");
    if (!f || (na && fwrite(a, 1, na, f) != na) || (nb && fwrite(b, 1, nb, f) != nb) ||
        fclose(f) != 0) {
        perror(path);
        abort();
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *tmp = getenv("TMPDIR");
    snprintf(fz_dir, sizeof fz_dir, "%s/amsim-fuzz-run-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(fz_dir)) {
        perror("amsim fuzz_run: mkdtemp");
        abort();
    }
    atexit(fz_cleanup);
    fz_verbose = getenv("FUZZ_RUN_VERBOSE") != NULL;
    fz_null = fopen("/dev/null", "w");
    if (!fz_null)
        abort();
    /* every config must load (a table entry refused would fuzz nothing), and run_once reads
     * a path: each is written once */
    for (size_t i = 0; i < FZ_NCONFIGS; i++) {
        am_config *cfg = NULL;
        am_error err = {0};
        if (cfg_load_string(&cfg, "fuzz_run.yaml", fz_configs[i], NULL, 0, &err) != 0) {
            fprintf(stderr, "fuzz_run: config %zu: %s\n", i, err.msg);
            abort();
        }
        cfg_free(cfg);
        snprintf(fz_cfg[i], sizeof fz_cfg[i], "%s/config%zu.yaml", fz_dir, i);
        fz_write(fz_cfg[i], fz_configs[i], strlen(fz_configs[i]), NULL, 0);
    }
    snprintf(fz_trace, sizeof fz_trace, "%s/input.trace", fz_dir);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > FZ_MAX_INPUT)
        return 0;
    size_t ci, nbody;
    int lenient;
    const char *head, *body;
    fz_split(data, size, &ci, &lenient, &head, &body, &nbody);
    fz_write(fz_trace, head, strlen(head), body, nbody);

    run_spec sp = {.config = fz_cfg[ci], .trace = fz_trace, .check = 1, .lenient = lenient,
                   .json = "/dev/null", .placements = "/dev/null", .log = "/dev/null",
                   .text = fz_null, .chrome_trace = "/dev/null",
                   .pytorch_snapshot = "/dev/null"};
    am_error err = {0};
    uint64_t ooms = 0;
    if (run_once(&sp, NULL, NULL, &ooms, &err) != 0) {
        if (err.status == AM_OK || !err.msg[0]) {
            fprintf(stderr, "fuzz_run: config %zu: a run failed without a message\n", ci);
            abort();
        }
        /* status 2 only: an input error may quote the input, which can say "internal error" */
        if (err.status == AM_EINTERNAL) {
            fprintf(stderr, "fuzz_run: config %zu: %s\n", ci, err.msg);
            abort();
        }
        if (fz_verbose) /* FUZZ_RUN_VERBOSE=1: say why a replayed input stopped */
            fprintf(stderr, "fuzz_run: config %zu: %s\n", ci, err.msg);
    } else if (fz_verbose) {
        fprintf(stderr, "fuzz_run: config %zu: clean end, %llu out-of-memory\n", ci,
                (unsigned long long)ooms);
    }
    return 0;
}
