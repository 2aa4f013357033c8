/* fuzz_run_configs.h - what fuzz_run (tests/fuzz/fuzz_run.c) runs an input with: its table of
 * small configs and the rule that reads an input as a config and a trace. Shared with the
 * badinput suite, which replays tests/fuzz/regress/run-* through run_once the same way.
 *
 * Byte 0 picks a config of the table (its low 6 bits, modulo the table's size; bit 6 runs
 * with --lenient), the rest is a trace. `amsim-trace v1` is put in front of a trace that
 * does not start with `amsim-trace` or a lifetime CSV's header `id,lower,upper,size`, so that
 * mutations reach the engine rather than the format detection the reader harnesses cover. */
#ifndef AM_FUZZ_RUN_CONFIGS_H
#define AM_FUZZ_RUN_CONFIGS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A host level and the link to it, shared by the configs that spill or defragment through
 * host memory. */
#define FZ_HOST "  host:\n    kind: host\n    capacity: 16MiB\n    allocator: {policy: platform}\n"
#define FZ_PCIE(extra)                                                                        \
    "links:\n  pcie: {from: host, to: hbm, bandwidth: 1GB/s, latency: 1us" extra "}\n"       \
    "  hbm_copy: {from: hbm, to: hbm, bandwidth: 4GB/s, latency: 100ns}\n"

static const char *const fz_configs[] = {
    /* 0: bfc growing by regions, GC, retry_after_free, spilling the least recently used */
    "version: 1\nmemories:\n  hbm:\n    capacity: 4MiB\n    allocator:\n      policy: bfc\n"
    "      memory_fraction: 1\n      allow_growth: true\n      garbage_collection: true\n"
    "      retry_after_free: true\n      retry_wait: 50us\n"
    "    on_oom: spill_to_host\n    spill_victim: lru\n    spill_host: host\n" FZ_HOST
    FZ_PCIE(", concurrency: 1"),
    /* 1: best_fit, compaction on a fragmentation threshold, spilling the largest */
    "version: 1\nmemories:\n  hbm:\n    capacity: 2MiB\n    allocator: {policy: best_fit, "
    "alignment: 512B, commit_granularity: 64KiB}\n    on_oom: spill_to_host\n"
    "    spill_victim: largest\n    defrag: {mode: compact, trigger: threshold, threshold: 0.3}\n"
    FZ_HOST FZ_PCIE(", duplex: false"),
    /* 2: first_fit, host_roundtrip defragmentation on out-of-memory over a half-duplex link */
    "version: 1\nmemories:\n  hbm:\n    capacity: 2MiB\n    allocator: {policy: first_fit, "
    "commit_granularity: 256KiB}\n    defrag: {mode: host_roundtrip, trigger: on_oom, host: host}\n"
    FZ_HOST FZ_PCIE(", duplex: false, concurrency: 1"),
    /* 3: platform with device-call latency and a device granularity, spilling */
    "version: 1\nmemories:\n  hbm:\n    capacity: 1MiB\n    granularity: 4KiB\n"
    "    allocator: {policy: platform, alloc_latency: 1us, free_latency: 2us}\n"
    "    on_oom: spill_to_host\n" FZ_HOST FZ_PCIE(""),
    /* 4: cuda_async, chunked growth and a release threshold, spilling and compaction */
    "version: 1\nmemories:\n  hbm:\n    capacity: 8MiB\n    allocator: {policy: cuda_async, "
    "pool_granularity: 1MiB, release_threshold: 2MiB, grow_latency: 1us}\n"
    "    on_oom: spill_to_host\n    defrag: {mode: compact, trigger: on_oom}\n" FZ_HOST
    FZ_PCIE(", concurrency: 1"),
    /* 5: prealloc bump, compaction every 3 allocations */
    "version: 1\nmemories:\n  hbm:\n    capacity: 4MiB\n    allocator: {policy: prealloc, "
    "mode: bump, memory_fraction: 0.5}\n    defrag: {mode: compact, trigger: every, every: 3}\n"
    FZ_HOST FZ_PCIE(""),
    /* 6: prealloc first fit under a memory_limit, spilling the largest, a transfer granule */
    "version: 1\nmemories:\n  hbm:\n    capacity: 4MiB\n    transfer_granule: 4KiB\n"
    "    allocator: {policy: prealloc, memory_limit: 2MiB}\n    on_oom: spill_to_host\n"
    "    spill_victim: largest\n" FZ_HOST FZ_PCIE(", concurrency: 1"),
    /* 7: buddy, compaction on out-of-memory and spilling */
    "version: 1\nmemories:\n  hbm:\n    capacity: 4MiB\n    allocator: {policy: buddy, "
    "alignment: 4KiB}\n    on_oom: spill_to_host\n    defrag: {mode: compact, trigger: on_oom}\n"
    FZ_HOST FZ_PCIE(""),
    /* 8: tlsf, host_roundtrip on a threshold */
    "version: 1\nmemories:\n  hbm:\n    capacity: 2MiB\n    allocator: {policy: tlsf}\n"
    "    defrag: {mode: host_roundtrip, trigger: threshold, threshold: 0.5}\n"
    FZ_HOST FZ_PCIE(", duplex: false"),
    /* 9: caching under a memory_fraction cap, GC threshold, roundup divisions, spilling */
    "version: 1\nmemories:\n  hbm:\n    capacity: 8MiB\n    allocator: {policy: caching, "
    "memory_fraction: 0.75, garbage_collection_threshold: 0.5, "
    "roundup_power2_divisions: 4}\n    on_oom: spill_to_host\n    spill_victim: lru\n"
    FZ_HOST FZ_PCIE(", concurrency: 1"),
    /* 10: caching with expandable segments, compaction and spilling */
    "version: 1\nmemories:\n  hbm:\n    capacity: 16MiB\n    allocator: {policy: caching, "
    "expandable_segments: true}\n    on_oom: spill_to_host\n    spill_victim: largest\n"
    "    defrag: {mode: compact, trigger: on_oom}\n" FZ_HOST FZ_PCIE(", duplex: false"),
    /* 11: offline, greedy plan */
    "version: 1\nmemories:\n  hbm:\n    capacity: 4MiB\n    allocator: {policy: offline, "
    "planner: greedy, alignment: 256B}\n" FZ_HOST FZ_PCIE(""),
    /* 12: offline, the exact search with a small budget; the host plans too */
    "version: 1\nmemories:\n  hbm:\n    capacity: 2MiB\n    allocator: {policy: offline, "
    "planner: auto, search_budget: 20000}\n    defrag: {mode: compact, trigger: on_oom}\n"
    "  host:\n    kind: host\n    capacity: 8MiB\n    allocator: {policy: offline, "
    "planner: greedy}\n" FZ_PCIE(""),
    /* 13: a TPU-like chain: vmem spills to hbm, hbm to host; padded, granular vmem; links with
     * one transfer at a time and a half-duplex DMA */
    "version: 1\ndefault_memory: hbm\nmemories:\n"
    "  hbm:\n    kind: hbm\n    capacity: 2MiB\n    allocator: {policy: bfc, memory_fraction: 1, "
    "retry_after_free: true, retry_wait: 20us}\n    on_oom: spill_to_host\n    spill_host: host\n"
    "    defrag: {mode: compact, trigger: on_oom}\n"
    "  vmem:\n    kind: vmem\n    capacity: 256KiB\n    pad_requests_to: 4KiB\n"
    "    transfer_granule: 4KiB\n    allocator: {policy: best_fit, alignment: 256B, "
    "commit_granularity: 64KiB}\n    on_oom: spill_to_host\n    spill_host: hbm\n"
    "    spill_victim: largest\n"
    "  smem:\n    kind: smem\n    capacity: 16KiB\n    allocator: {policy: best_fit}\n"
    "  accumulator:\n    kind: accumulator\n    capacity: 64KiB\n    allocator: {policy: tlsf}\n"
    FZ_HOST
    "links:\n  pcie: {from: host, to: hbm, bandwidth: 1GB/s, latency: 1us, concurrency: 1}\n"
    "  dma: {from: hbm, to: vmem, bandwidth: 8GB/s, latency: 500ns, duplex: false, "
    "concurrency: 1}\n"
    "  hbm_copy: {from: hbm, to: hbm, bandwidth: 4GB/s, latency: 100ns, concurrency: 1}\n"
    "  mxu: {from: vmem, to: accumulator, bandwidth: 64GB/s}\n",
    /* 14: bfc in one region with retry_after_free, a host_roundtrip every 4 allocations */
    "version: 1\nmemories:\n  hbm:\n    capacity: 2MiB\n    allocator: {policy: bfc, "
    "memory_limit: 1MiB, retry_after_free: true, retry_wait: 1ms}\n"
    "    defrag: {mode: host_roundtrip, trigger: every, every: 4}\n" FZ_HOST
    FZ_PCIE(", concurrency: 1"),
    /* 15: caching, expandable segments, roundup divisions per interval, no host level */
    ("version: 1\nmemories:\n  hbm:\n    capacity: 6MiB\n    allocator: {policy: caching, "
     "expandable_segments: true, roundup_power2_divisions: [1, 2, 4]}\n    on_oom: fail\n"),
};
#define FZ_NCONFIGS (sizeof fz_configs / sizeof fz_configs[0])

/* How an input runs: config fz_configs[*ci], --lenient when *lenient, the trace the header
 * *head (possibly "") followed by body (nbody bytes). size must be at least 1. */
static inline void fz_split(const uint8_t *data, size_t size, size_t *ci, int *lenient,
                            const char **head, const char **body, size_t *nbody)
{
    *ci = (data[0] & 0x3f) % FZ_NCONFIGS;
    *lenient = data[0] >> 6 & 1;
    *body = (const char *)data + 1;
    *nbody = size - 1;
    /* a native header or a lifetime CSV's is kept: the CSV reader feeds the engine too */
    int has_head = (*nbody >= 11 && memcmp(*body, "amsim-trace", 11) == 0) ||
                   (*nbody >= 19 && memcmp(*body, "id,lower,upper,size", 19) == 0);
    *head = has_head ? "" : "amsim-trace v1\n";
}

#endif
