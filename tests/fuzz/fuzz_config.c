/* fuzz_config.c - libFuzzer harness for the YAML config loader (sim/config.c): cfg_load_string
 * on the input (as a NUL-terminated string), then cfg_write_yaml of the effective config to
 * /dev/null and cfg_free. Seeds: tests/fuzz/corpus/config/. A `device:` key loads presets from
 * the source tree's configs/devices, so those files are part of what is exercised. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/config.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    devnull = fopen("/dev/null", "w");
    if (!devnull)
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *yaml = malloc(size + 1);
    if (!yaml)
        return 0;
    memcpy(yaml, data, size);
    yaml[size] = 0;
    am_config *cfg = NULL;
    am_error err = {0};
    if (cfg_load_string(&cfg, "fuzz.yaml", yaml, NULL, 0, &err) == 0) {
        if (!cfg)
            abort();
        cfg_write_yaml(cfg, devnull);
        cfg_free(cfg);
    } else if (err.status == AM_OK || !err.msg[0]) {
        abort(); /* a refused config must say why */
    }
    free(yaml);
    return 0;
}
