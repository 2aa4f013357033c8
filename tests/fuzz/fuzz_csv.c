/* fuzz_csv.c - libFuzzer harness: lifetime CSV traces (sim/trace_csv.c) through
 * trace_open + trace_next until the end or the first error + trace_close. The seed corpus is
 * tests/fuzz/corpus/csv/. Format detection is by content, so inputs the fuzzer mutates into
 * another format reach that reader too. */
#include "fuzz_trace_common.h"
