/* fuzz_bin.c - libFuzzer harness: binary traces (sim/trace_bin.c, traces/FORMAT.md section 4)
 * through trace_open + trace_next until the end or the first error + trace_close. The seed
 * corpus is tests/fuzz/corpus/bin/ (small traces written by `amsim convert --to binary`, one with
 * every op and every extension field). Format detection is by content, so inputs the fuzzer
 * mutates into another format reach that reader too. */
#include "fuzz_trace_common.h"
