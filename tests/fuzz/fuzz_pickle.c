/* fuzz_pickle.c - libFuzzer harness: PyTorch snapshot pickles (sim/pickle.c, sim/trace_pickle.c) through
 * trace_open + trace_next until the end or the first error + trace_close. The seed corpus is
 * tests/fuzz/corpus/pickle/. Format detection is by content, so inputs the fuzzer mutates into
 * another format reach that reader too. */
#include "fuzz_trace_common.h"
