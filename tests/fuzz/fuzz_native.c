/* fuzz_native.c - libFuzzer harness: native text traces (sim/trace_native.c) through
 * trace_open + trace_next until the end or the first error + trace_close. The seed corpus is
 * tests/fuzz/corpus/native/. Format detection is by content, so inputs the fuzzer mutates into
 * another format reach that reader too. */
#include "fuzz_trace_common.h"
