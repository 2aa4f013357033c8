/* gen.c - synthetic workload traces in the native format (see gen.h).
 *
 * Every trace starts with "amsim-trace v1 time_unit=ps" and comment lines giving the options
 * and the memory the generator expects, so a trace documents how it was made. Compute
 * durations come from FLOP counts over a device peak times an efficiency:
 *     duration (ps) = FLOPs / (tflops * mfu)          (1 TFLOP/s = 1 FLOP/ps)
 * optionally scaled by a seeded jitter factor 1 + N(0, jitter), clamped to [0.5, 1.5].
 * Memory-bound operations take bytes / bandwidth. Buffer and event ids are never reused.
 *
 * train - one or more training steps of a decoder-only transformer (GPT-style: L layers,
 *   hidden h, a heads, sequence s, micro-batch b, vocabulary V, element size d bytes).
 *   Parameters: per layer 12h^2 + 13h (QKV 3h^2+3h, output h^2+h, MLP 8h^2+5h, two layer norms
 *   4h), embedding V*h (tied with the output head), final layer norm 2h.
 *   Persistent on hbm: weights P*d, gradients P*d (one contiguous buffer per tensor, kept
 *   across steps as Megatron-LM's grad buffer is). Adam states: fp32 master (omitted when the
 *   dtype is fp32) + m + v, 4 bytes each, per tensor ceil(P_t / dp) elements (ZeRO-1: each of
 *   the dp ranks holds 1/dp of the states); on host with --offload-optimizer.
 *   Activations per layer and micro-batch (Korthikanti et al. 2022, "Reducing Activation
 *   Recomputation in Large Transformer Models", table 2: 34sbh + 5as^2b bytes at 16 bit),
 *   as explicit tensors (S = s*b*h elements, A = a*s^2*b elements):
 *     ln1_in, qkv_in, q, k, v, proj_in, ln2_in, fc1_in   8 x S*d
 *     gelu_in, gelu_out                                   2 x 4S*d
 *     attn_out_mask, mlp_mask (dropout, 1 byte)           2 x S
 *     softmax_out, attn_drop (A*d each), attn_mask (A)    2 x A*d + A
 *   R = 16*S*d + 2*S + 2*A*d + A per layer (= 34sbh + 5as^2b at d = 2). The layer input
 *   ln1_in is the previous layer's output (the embedding output for layer 0).
 *   Temporaries: attention scores (A*d, freed after the softmax) in forward; in backward
 *   d_mlp (4S*d), d_scores (A*d) one after the other, then dx (S*d); logits and their gradient
 *   (s*b*V*d each) at the head; the batch (int32 tokens and labels: 8*s*b bytes) per
 *   micro-batch. With --recompute only ln1_in is kept per layer and the other 13 tensors are
 *   allocated again (and recomputed) at the start of that layer's backward.
 *   Peak live bytes on hbm, closed form (gen_train_totals_of):
 *     saved  = recompute ? L*S*d : L*R
 *     head   = saved + S*d + sbV*d + max(sbV*d, S*d)         (x_L, logits, dlogits | dy)
 *     layer  = recompute ? L*S*d + R + max(4S*d, A*d)         (backward of the last layer)
 *                        : L*R + S*d + max(4S*d, A*d)
 *     peak   = weights + grads + (offload ? 0 : optimizer) + 8sb + max(head, layer)
 *   (the forward peaks are below these: each forward allocation is a subset of the saved state
 *   at the backward of the same layer). FLOPs: per layer forward 24bsh^2 + 4bs^2h, head 2bshV,
 *   backward twice the forward (Narayanan et al. 2021). Streams: 0 compute, 1 copies (batch
 *   host->hbm, offload traffic), 2 communication, 3 the host optimizer (offload). With dp > 1
 *   each layer's gradients are all-reduced after its last backward (ring volume
 *   2(dp-1)/dp * bytes) and the updated weights all-gathered after the optimizer
 *   ((dp-1)/dp * bytes), as hbm -> hbm transfers on stream 2: the config's hbm->hbm link stands
 *   in for the interconnect (configs/devices/h100.yaml: hbm_copy; give it NVLink figures for a
 *   realistic time). The optimizer update is memory bound: ceil(P_t/dp) * (2d + 8k) bytes (k
 *   states read and written, gradient read, weight written) over the HBM bandwidth. With
 *   --offload-optimizer each tensor's gradient shard goes to the host on stream 1 (d2h.grad),
 *   Adam runs on stream 3 and the weights come back on stream 1 (h2d.weight); stream 1 first
 *   waits for stream 0 after the backward (and after the last all-reduce when dp > 1).
 *
 * serve - LLM inference with continuous batching. Requests arrive as a Poisson process
 *   (exponential gaps of mean 1/rate), prompt and output lengths are lognormal (rounded, at
 *   least 1, clamped). Each iteration admits arrived requests up to max_batch, runs the
 *   prefill of the new ones and one decode token for the running ones, and ends with a sync
 *   (the host samples the tokens). Weights per layer (10h^2 + 2h*kv_heads*head_dim)*d, embedding
 *   V*h*d. KV cache: one buffer set per request for all layers, 2*L*kv_heads*head_dim*d bytes
 *   per token; kv_block = 0 grows it per token like realloc (allocate the larger buffer, then
 *   free the old one), kv_block = T allocates T-token blocks as needed (paged attention). A
 *   request frees its cache when its last token is out. Per iteration a workspace
 *   tokens*4h*d + sequences*V*d (MLP intermediate and logits). Durations: prefill
 *   2*P*tokens FLOPs; decode max(FLOPs, (weights + KV bytes read) / HBM bandwidth). Iterations
 *   carry at= with the generator's clock, so idle gaps between arrivals appear.
 *   The lengths are drawn first, and the events they come to are bounded (serve_events) before
 *   a line is written: more than 10^8 is an input error, not a trace of tens of GB.
 *   The clock (at=) stays below 2^63 ps (g_clock_add), as train's and kernel's sums of compute
 *   durations do (g_compute): the simulator's clock could not hold the trace.
 *
 * kernel - a tiled matmul C[M,N] = A[M,K] B[K,N] on a TPU (levels hbm, vmem, accumulator of
 *   configs/devices/tpu-v5e.yaml). A, B and C live in hbm; vmem holds two A tiles, two B tiles
 *   and two output tiles (double buffering); the accumulator one fp32 tm x tn tile per output
 *   tile. Step s (output tile, k block) waits for its DMA (stream 1) and computes on stream 0
 *   (operands vmem -> accumulator over the MXU link, 2*tm*tn*tk FLOPs) while stream 1 already
 *   loads step s+1 into the other buffer (after step s-1, which used it, completed: record /
 *   wait). A finished tile goes accumulator -> vmem (stream 0) and vmem -> hbm on stream 2,
 *   double-buffered the same way. Peak default 197 TFLOP/s: 4 MXUs x 128 x 128 MACs x 2 FLOPs
 *   x 1.5 GHz (MXU count from hardware.md; the 1.5 GHz clock is the assumption of
 *   tpu-v5e.yaml). With op "attention" it is a FlashAttention forward pass on the same levels
 *   and streams instead (see gen_attention, and attn_sizes for its closed-form peaks), with
 *   causal=True's block skipping (attn_runs) and the softmax's VPU time (ATTN_SOFTMAX_OPS) as
 *   options; with op "attention-bwd" the backward's two kernels, dkv then dq (see
 *   gen_attention_bwd, and attention_bwd_check for its closed-form peaks). Both take a batch
 *   (--batch, as an outer loop over the heads'), the forward also Pallas's block_b. */
#include "gen.h"
#include "units.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- shared writer state ---- */

typedef struct gctx {
    FILE *f;
    gsl_rng *r;
    uint64_t next_id, next_ev;
    double jitter;
    double flops_per_ps; /* tflops * mfu */
    int too_long;        /* a time came to 2^63 ps or more (g_ps): the trace is refused */
    am_ps busy;          /* the compute durations written so far, all streams, ps */
    int clock_over;      /* busy, or serve's clock, came to 2^63 ps or more: refused too */
} gctx;

#define G_MAX_PS 9223372036854775808.0 /* 2^63 ps, about 107 days */

/* A time in ps, rounded; one of 2^63 ps or more is flagged (g_finish refuses the trace) where
 * llround would return an unspecified value. */
static am_ps g_ps(gctx *g, double ps)
{
    if (ps >= G_MAX_PS) {
        g->too_long = 1;
        return (am_ps)1 << 62;
    }
    return ps < 0.5 ? 0 : (am_ps)llround(ps);
}

unsigned gen_dtype_bytes(const char *dtype)
{
    if (!dtype)
        return 0;
    if (!strcmp(dtype, "fp32"))
        return 4;
    if (!strcmp(dtype, "bf16") || !strcmp(dtype, "fp16"))
        return 2;
    return 0;
}

/* A real option for a trace's "# amsim gen" header: the fewest significant digits (6 to 17)
 * that read back as the same double, so the header's values regenerate the trace (%g's 6
 * digits made --rate 40.1234567 read 40.1235). dst holds 32 bytes; returns dst. */
static const char *g_real(char dst[32], double x) { return units_fmt_shortest(dst, 32, x, 6); }

#define G_SEED_RANGE "0 to 4294967295: the generator, GSL's mt19937, keeps the low 32 bits of " \
                     "a seed, so a larger one would give the trace of a smaller one"

const char *gen_seed_parse(const char *text, uint64_t *seed)
{
    uint64_t v = 0;
    if (!text || !*text)
        return "is not an unsigned integer";
    for (const char *p = text; *p; p++) {
        if (*p < '0' || *p > '9')
            return "is not an unsigned integer";
        if (v > GEN_SEED_MAX)
            continue; /* out of range already: read on for a character that is not a digit */
        v = v * 10 + (uint64_t)(*p - '0');
    }
    if (v > GEN_SEED_MAX)
        return "is out of range (" G_SEED_RANGE ")";
    *seed = v;
    return NULL;
}

/* 0, or an input error naming --seed when the seed is past 32 bits (see gen.h). */
static int g_seed_check(const char *what, uint64_t seed, am_error *err)
{
    if (seed > GEN_SEED_MAX)
        return am_fail(err, AM_EINPUT, "%s: --seed %" PRIu64 " is out of range (" G_SEED_RANGE
                       ")", what, seed);
    return 0;
}

/* The value handed to gsl_rng_set: the seed itself, except that 0, which GSL would turn into
 * its default 4357, becomes 2^32, whose low 32 bits (all GSL keeps) are 0: MT19937 seeded with
 * 0, as the reference init_genrand(0), a state no other seed reaches. Where an unsigned long
 * has 32 bits that cannot be written, and seed 0 stays GSL's 4357. */
static unsigned long g_gsl_seed(uint64_t seed)
{
#if ULONG_MAX > 0xffffffffUL
    if (seed == 0)
        return 1UL << 32;
#endif
    return (unsigned long)seed;
}

static void g_init(gctx *g, FILE *f, uint64_t seed, double jitter, double tflops, double mfu)
{
    memset(g, 0, sizeof *g);
    g->f = f;
    g->r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g->r, g_gsl_seed(seed));
    g->next_id = 1;
    g->next_ev = 1;
    g->jitter = jitter;
    g->flops_per_ps = tflops * mfu;
}

/* The trace's first line; g_init's callers write it before anything else. */
static void g_header(gctx *g) { fputs("amsim-trace v1 time_unit=ps\n", g->f); }

static void g_done(gctx *g) { gsl_rng_free(g->r); }

/* t + dt, or flags clock_over (and saturates) when that comes to 2^63 ps or more: the
 * simulator's clock ends at 2^64 - 2 ps, and a trace's times stay below 2^63 as a duration does
 * (g_ps). Until 2026-11-27 the generators' clocks were never checked: gen serve wrote at= values
 * past 2^63 and wrapped past 2^64 with status 0, and gen train's durations added up past the
 * simulator's clock, which only `amsim run` found. */
static am_ps g_clock_add(gctx *g, am_ps t, am_ps dt)
{
    if (t >= (UINT64_C(1) << 63) || dt >= (UINT64_C(1) << 63) - t) {
        g->clock_over = 1;
        return UINT64_C(1) << 63;
    }
    return t + dt;
}

/* The end of a generator: 0, or an input error when a time did not fit (the caller discards
 * what was written). too_long_fix names what to change, in the generator's own options, when
 * one duration or arrival came to 2^63 ps ("raise --tflops or --mfu, ...": until 2026-11-27
 * every kind named "the bandwidths, --rate", which kernel does not have, nor train --rate);
 * clock_fix names what to change
 * when the clock (or the sum of the compute durations) came to 2^63 ps: "the generator's
 * clock ...: raise ...". */
static int g_finish(gctx *g, const char *what, const char *too_long_fix,
                    const char *clock_fix, am_error *err)
{
    g_done(g);
    if (g->too_long)
        return am_fail(err, AM_EINPUT, "%s: a duration or arrival time comes to 2^63 ps (about "
                       "107 days) or more: %s", what, too_long_fix);
    if (g->clock_over)
        return am_fail(err, AM_EINPUT, "%s: %s", what, clock_fix);
    return 0;
}

static double g_jitter(gctx *g)
{
    if (g->jitter <= 0)
        return 1.0;
    double x = 1.0 + gsl_ran_gaussian(g->r, g->jitter);
    return x < 0.5 ? 0.5 : x > 1.5 ? 1.5 : x;
}

/* A duration: g_ps, at least 1 ps. */
static am_ps g_dur(gctx *g, double ps)
{
    am_ps d = g_ps(g, ps);
    return d < 1 ? 1 : d;
}

/* Duration (ps, at least 1) of `flops` at the device's achieved rate, jittered. */
static uint64_t g_flops_ps(gctx *g, double flops)
{
    return g_dur(g, flops / g->flops_per_ps * g_jitter(g));
}

/* Duration (ps) of moving `bytes` at gbps GB/s, jittered. */
static uint64_t g_bytes_ps(gctx *g, double bytes, double gbps)
{
    return g_dur(g, bytes * 1000.0 / gbps * g_jitter(g));
}

static uint64_t g_alloc(gctx *g, uint64_t bytes, const char *level, uint32_t stream,
                        const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* The common end of a line: " stream=S" (when not 0), " name=...", newline. */
static void g_tail(gctx *g, uint32_t stream, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
static void g_tail(gctx *g, uint32_t stream, const char *fmt, va_list ap)
{
    if (stream)
        fprintf(g->f, " stream=%" PRIu32, stream);
    fputs(" name=", g->f);
    vfprintf(g->f, fmt, ap);
    fputc('\n', g->f);
}

static uint64_t g_alloc(gctx *g, uint64_t bytes, const char *level, uint32_t stream,
                        const char *fmt, ...)
{
    uint64_t id = g->next_id++;
    fprintf(g->f, "alloc %" PRIu64 " %" PRIu64 " level=%s", id, bytes, level);
    va_list ap;
    va_start(ap, fmt);
    g_tail(g, stream, fmt, ap);
    va_end(ap);
    return id;
}

static void g_free(gctx *g, uint64_t id) { fprintf(g->f, "free %" PRIu64 "\n", id); }

static void g_compute(gctx *g, uint64_t ps, uint32_t stream, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void g_compute(gctx *g, uint64_t ps, uint32_t stream, const char *fmt, ...)
{
    g->busy = g_clock_add(g, g->busy, ps);
    fprintf(g->f, "compute %" PRIu64, ps);
    va_list ap;
    va_start(ap, fmt);
    g_tail(g, stream, fmt, ap);
    va_end(ap);
}

/* A copy of `bytes` from level src to dst; `from` (id=) is the buffer it reads and `to` (to=)
 * the buffer it writes, 0 for none. The engine skips the copy when either has no memory,
 * restores either from a spill first and orders their spills after it (traces/FORMAT.md,
 * `transfer`); until 2026-11-27 kernel's copies named only their destination, with id=. */
static void g_xfer(gctx *g, const char *src, const char *dst, uint64_t bytes, uint32_t stream,
                   uint64_t from, uint64_t to, const char *name)
{
    if (!bytes)
        return;
    fprintf(g->f, "transfer %s %s %" PRIu64 " stream=%" PRIu32, src, dst, bytes, stream);
    if (from)
        fprintf(g->f, " id=%" PRIu64, from);
    if (to)
        fprintf(g->f, " to=%" PRIu64, to);
    fprintf(g->f, " name=%s\n", name);
}

/* record a new event on `stream`; returns its id */
static uint64_t g_record(gctx *g, uint32_t stream)
{
    uint64_t e = g->next_ev++;
    fprintf(g->f, "record %" PRIu64 " stream=%" PRIu32 "\n", e, stream);
    return e;
}

static void g_wait(gctx *g, uint64_t ev, uint32_t stream)
{
    fprintf(g->f, "wait %" PRIu64 " stream=%" PRIu32 "\n", ev, stream);
}

/* stream `from` -> stream `to` ordering point */
static void g_join(gctx *g, uint32_t from, uint32_t to) { g_wait(g, g_record(g, from), to); }

/* ==== train ==== */

void gen_train_defaults(gen_train_opts *o)
{
    *o = (gen_train_opts){.layers = 4, .hidden = 1024, .heads = 16, .seq = 1024, .vocab = 32000,
                          .micro_batch = 4, .micro_batches = 1, .steps = 1, .dp = 1,
                          .dtype = "bf16", .tflops = 989.0, .mfu = 0.4, .hbm_gbps = 3350.0,
                          .host_adam_gbps = 20.0, .jitter = 0.02, .seed = 1};
}

/* ---- parameter checks ----
 * Every option is checked against its range, and every size a trace will hold is computed with
 * overflow-checked arithmetic before the first line is written: an input error names the options
 * (status 1), where sizes used to wrap (gen train --dp 2^64-1 wrote zero-byte optimizer states,
 * gen serve --kv-block 2^62 zero-byte KV blocks) or a clamp let the host run out of memory. */

#define G_MAX_LAYERS (UINT64_C(1) << 20)
#define G_MAX_WIDTH (UINT64_C(1) << 24)  /* hidden sizes, heads, sequence length, batch sizes */
#define G_MAX_VOCAB (UINT64_C(1) << 32)
#define G_MAX_TOKENS (UINT64_C(1) << 30) /* serve: KV block */
/* serve: the length clamps, above every released model's. The longest context window is Llama 4
 * Scout's 10M tokens (Meta, April 2025; Gemini 1.5 Pro: 2M), the longest output limits about
 * 128K tokens (Anthropic's 128K output beta, OpenAI o-series 100K): 2^24 = 16,777,216 prompt
 * tokens and 2^20 = 1,048,576 output tokens (8x that). Until 2026-11-25 both were 2^30. */
#define G_MAX_PROMPT (UINT64_C(1) << 24)
#define G_MAX_OUTPUT (UINT64_C(1) << 20)
/* serve: trace events the drawn requests may come to (see serve_events): 10^8, about 3 GB of
 * trace at about 30 bytes a line; gen serve --max-output 2^30 --output-mu 50 once wrote tens of
 * GB before the disk filled. The shipped sweep (3000 requests) comes to under 2 million. */
#define G_MAX_SERVE_EVENTS 100000000
/* train: steps x micro-batches x layers, about 50 trace lines each: 10^8 lines (about 3 GB), as
 * serve's cap (until 2026-11-25 10^7 passes, about 14 GB) */
#define G_MAX_PASSES 2000000

typedef struct gcheck {
    const char *what; /* "gen train" */
    am_error *err;
    int failed;       /* an error is in err */
    int over;         /* a ck_* result passed 2^64 */
} gcheck;

/* The integer options' ranges (--seed aside: see g_seed_check), one table for the checks
 * below and for a value past 2^64 - 1, which cmd_gen.c cannot read (gen_u64_too_large). */
static const struct g_range {
    const char *kind, *opt;
    uint64_t lo, hi;
} g_ranges[] = {
    {"train", "layers", 1, G_MAX_LAYERS},       {"train", "hidden", 1, G_MAX_WIDTH},
    {"train", "heads", 1, G_MAX_WIDTH},         {"train", "seq", 1, G_MAX_WIDTH},
    {"train", "vocab", 1, G_MAX_VOCAB},         {"train", "micro-batch", 1, G_MAX_WIDTH},
    {"train", "micro-batches", 1, G_MAX_WIDTH}, {"train", "steps", 1, G_MAX_WIDTH},
    {"train", "dp", 1, G_MAX_WIDTH},            {"serve", "layers", 1, G_MAX_LAYERS},
    {"serve", "hidden", 1, G_MAX_WIDTH},        {"serve", "kv-heads", 1, G_MAX_WIDTH},
    {"serve", "head-dim", 1, G_MAX_WIDTH},      {"serve", "vocab", 1, G_MAX_VOCAB},
    {"serve", "requests", 1, 10000000},         {"serve", "max-batch", 1, 10000000},
    {"serve", "max-prompt", 1, G_MAX_PROMPT},   {"serve", "max-output", 1, G_MAX_OUTPUT},
    {"serve", "kv-block", 0, G_MAX_TOKENS},     {"kernel", "m", 1, UINT64_MAX},
    {"kernel", "n", 1, UINT64_MAX},             {"kernel", "k", 1, UINT64_MAX},
    {"kernel", "tm", 1, UINT64_MAX},            {"kernel", "tn", 1, UINT64_MAX},
    {"kernel", "tk", 1, UINT64_MAX},            {"kernel", "seq-q", 1, UINT64_MAX},
    {"kernel", "seq-kv", 1, UINT64_MAX},        {"kernel", "head-dim", 1, UINT64_MAX},
    {"kernel", "block-q", 1, UINT64_MAX},       {"kernel", "block-kv", 1, UINT64_MAX},
    {"kernel", "heads", 1, G_MAX_WIDTH},        {"kernel", "batch", 1, G_MAX_WIDTH},
    {"kernel", "block-b", 1, G_MAX_WIDTH}};

static const struct g_range *g_range_of(const char *kind, const char *opt)
{
    for (size_t k = 0; k < AM_ARRAY_LEN(g_ranges); k++)
        if (!strcmp(g_ranges[k].kind, kind) && !strcmp(g_ranges[k].opt, opt))
            return &g_ranges[k];
    return NULL;
}

/* "1 to 16777216", or "at least 1" for a range up to 2^64 - 1. */
static void g_range_text(char *dst, size_t n, const struct g_range *r)
{
    if (r->hi == UINT64_MAX)
        snprintf(dst, n, "at least %" PRIu64, r->lo);
    else
        snprintf(dst, n, "%" PRIu64 " to %" PRIu64, r->lo, r->hi);
}

/* An unsigned option in its g_ranges range, or an input error naming it. Returns c->failed. */
static int ck_u64(gcheck *c, const char *opt, uint64_t v)
{
    const struct g_range *r = g_range_of(c->what + 4, opt); /* c->what: "gen KIND" */
    if (!c->failed && r && (v < r->lo || v > r->hi)) {
        char range[64];
        c->failed = 1;
        g_range_text(range, sizeof range, r);
        am_fail(c->err, AM_EINPUT, "%s: --%s %" PRIu64 " is out of range (%s)", c->what, opt, v,
                range);
    }
    return c->failed;
}

int gen_u64_too_large(am_error *err, const char *kind, const char *opt, const char *text)
{
    if (!strcmp(opt, "seed"))
        return am_fail(err, AM_EINPUT, "gen %s: --seed %s is out of range (" G_SEED_RANGE ")",
                       kind, text);
    const struct g_range *r = g_range_of(kind, opt);
    char range[64] = "0 to 18446744073709551615";
    if (r && r->hi != UINT64_MAX)
        g_range_text(range, sizeof range, r);
    else if (r)
        snprintf(range, sizeof range, "%" PRIu64 " to 18446744073709551615", r->lo);
    return am_fail(err, AM_EINPUT, "gen %s: --%s %s is out of range (%s)", kind, opt, text, range);
}

/* 0 and above, -0 refused as every negative number is (signbit: -0 >= 0 holds), as the
 * config's numbers refuse it. Until 2026-11-27 --jitter -0 and --prompt-sigma -0 passed where
 * -1 was out of range. */
static int not_negative(double v) { return v >= 0 && !signbit(v); }

/* A real option: ok says whether it is in range (NaN and infinities never are: the parser
 * refuses them), range says which one. */
static int ck_real(gcheck *c, const char *opt, double v, int ok, const char *range)
{
    if (!c->failed && (!ok || !isfinite(v))) {
        c->failed = 1;
        /* the shortest form that reads back as v, which is what was written unless it had
         * padding ("2.0" prints as 2): %g's 6 digits turned --mfu 1.0000001 into "1" */
        char text[40];
        units_fmt_real(text, sizeof text, v);
        am_fail(c->err, AM_EINPUT, "%s: --%s %s is out of range (%s)", c->what, opt, text, range);
    }
    return c->failed;
}

static int ck_dtype(gcheck *c, const char *dtype)
{
    if (!c->failed && !gen_dtype_bytes(dtype)) {
        c->failed = 1;
        am_fail(c->err, AM_EINPUT, "%s: --dtype '%s' (expected fp32, bf16 or fp16)", c->what,
                dtype ? dtype : "");
    }
    return c->failed;
}

/* Checked arithmetic: a result past 2^64 sets c->over (and saturates). */
static uint64_t ck_mul(gcheck *c, uint64_t a, uint64_t b)
{
    if (b && a > UINT64_MAX / b) {
        c->over = 1;
        return UINT64_MAX;
    }
    return a * b;
}

static uint64_t ck_add(gcheck *c, uint64_t a, uint64_t b)
{
    if (a > UINT64_MAX - b) {
        c->over = 1;
        return UINT64_MAX;
    }
    return a + b;
}

/* After a group of ck_ computations: an input error when one passed 2^64 or `bytes` passes
 * 4 EiB; `what` names the quantity and the options it comes from. */
static int ck_bytes(gcheck *c, uint64_t bytes, const char *what)
{
    if (!c->failed && (c->over || bytes > AM_MAX_BYTES)) {
        c->failed = 1;
        am_fail(c->err, AM_EINPUT, "%s: %s: more than 4 EiB (2^62 bytes; no memory level is "
                "larger)", c->what, what);
    }
    c->over = 0;
    return c->failed;
}

/* ceil(a / b), b > 0, without the a + b - 1 that wraps near 2^64. */
static uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

/* floor(x * num / den) for num <= 2 den and den < 2^31 (a ring collective's share), with no
 * intermediate past 64 bits: x = q den + r gives q num + floor(r num / den). */
static uint64_t mul_div(uint64_t x, uint64_t num, uint64_t den)
{
    return x / den * num + x % den * num / den;
}

/* The closed form (see the file comment) with every product and sum checked; 0, or -1 with
 * c's error. */
static int train_sizes(gcheck *c, const gen_train_opts *o, gen_train_totals *t)
{
    memset(t, 0, sizeof *t);
    uint64_t d = gen_dtype_bytes(o->dtype), h = o->hidden, L = o->layers, V = o->vocab;
    uint64_t s = o->seq, b = o->micro_batch, a = o->heads, k = d == 4 ? 2 : 3, dp = o->dp;
    uint64_t pl = ck_add(c, ck_mul(c, 12, ck_mul(c, h, h)), ck_mul(c, 13, h));
    uint64_t vh = ck_mul(c, V, h);
    t->params = ck_add(c, ck_add(c, ck_mul(c, L, pl), vh), ck_mul(c, 2, h));
    t->weights = ck_mul(c, t->params, d);
    t->grads = t->weights;
    t->optimizer = ck_mul(c, k * 4, ck_add(c, ck_add(c, ck_mul(c, L, ceil_div(pl, dp)),
                                                     ceil_div(vh, dp)), ceil_div(2 * h, dp)));
    if (ck_bytes(c, ck_add(c, ck_mul(c, t->weights, 2), t->optimizer),
                 "the weights, gradients and optimizer states (--layers, --hidden, --vocab)"))
        return -1;
    uint64_t S = ck_mul(c, ck_mul(c, s, b), h), A = ck_mul(c, ck_mul(c, a, ck_mul(c, s, s)), b);
    uint64_t sbV = ck_mul(c, ck_mul(c, s, b), V);
    uint64_t Sd = ck_mul(c, S, d), Ad = ck_mul(c, A, d), sbVd = ck_mul(c, sbV, d);
    uint64_t R = ck_add(c, ck_add(c, ck_mul(c, 16, Sd), ck_mul(c, 2, S)),
                        ck_add(c, ck_mul(c, 2, Ad), A));
    t->act_per_layer = R;
    uint64_t saved = o->recompute ? ck_mul(c, L, Sd) : ck_mul(c, L, R);
    uint64_t head = ck_add(c, ck_add(c, saved, Sd), ck_add(c, sbVd, AM_MAX(sbVd, Sd)));
    uint64_t layer = ck_add(c, o->recompute ? ck_add(c, ck_mul(c, L, Sd), R)
                                            : ck_add(c, ck_mul(c, L, R), Sd),
                            AM_MAX(ck_mul(c, 4, Sd), Ad));
    t->transient_peak = ck_add(c, ck_mul(c, ck_mul(c, 8, s), b), AM_MAX(head, layer));
    if (ck_bytes(c, t->transient_peak, "the activations and temporaries of a micro-batch "
                 "(--layers, --seq, --micro-batch, --hidden, --heads, --vocab)"))
        return -1;
    t->hbm_peak_live = ck_add(c, ck_add(c, t->weights, t->grads),
                              ck_add(c, o->offload_optimizer ? 0 : t->optimizer, t->transient_peak));
    t->host_peak_live = o->offload_optimizer ? t->optimizer : 0;
    if (ck_bytes(c, t->hbm_peak_live, "the peak live bytes on hbm (model and batch)"))
        return -1;
    return 0;
}

/* Every option of gen train in range and every size in 64 bits (and 4 EiB); fills *t. */
static int train_check(const gen_train_opts *o, gen_train_totals *t, am_error *err)
{
    if (g_seed_check("gen train", o->seed, err))
        return -1;
    gcheck c = {"gen train", err, 0, 0};
    ck_u64(&c, "layers", o->layers);
    ck_u64(&c, "hidden", o->hidden);
    ck_u64(&c, "heads", o->heads);
    ck_u64(&c, "seq", o->seq);
    ck_u64(&c, "vocab", o->vocab);
    ck_u64(&c, "micro-batch", o->micro_batch);
    ck_u64(&c, "micro-batches", o->micro_batches);
    ck_u64(&c, "steps", o->steps);
    ck_u64(&c, "dp", o->dp);
    ck_dtype(&c, o->dtype);
    ck_real(&c, "tflops", o->tflops, o->tflops > 0, "above 0");
    ck_real(&c, "mfu", o->mfu, o->mfu > 0 && o->mfu <= 1, "above 0, at most 1");
    ck_real(&c, "hbm-gbps", o->hbm_gbps, o->hbm_gbps > 0, "above 0");
    ck_real(&c, "host-adam-gbps", o->host_adam_gbps, o->host_adam_gbps > 0, "above 0");
    ck_real(&c, "jitter", o->jitter, not_negative(o->jitter) && o->jitter <= 0.5, "0 to 0.5");
    if (c.failed)
        return -1;
    if (o->hidden % o->heads)
        return am_fail(err, AM_EINPUT, "gen train: --hidden (%" PRIu64 ") must be a multiple of "
                       "--heads (%" PRIu64 ")", o->hidden, o->heads);
    if ((double)o->steps * (double)o->micro_batches * (double)o->layers > G_MAX_PASSES)
        return am_fail(err, AM_EINPUT, "gen train: --steps x --micro-batches x --layers is %.0f "
                       "layer passes, more than 2 x 10^6 (about 50 trace lines each: 10^8 lines, "
                       "about 3 GB)",
                       (double)o->steps * (double)o->micro_batches * (double)o->layers);
    /* keep every size well inside 64 bits (the rule before the checked sizes below) */
    double big = (double)o->seq * (double)o->seq * (double)o->micro_batch * (double)o->heads +
                 (double)o->hidden * (double)o->hidden * (double)o->layers +
                 (double)o->seq * (double)o->micro_batch * (double)o->vocab;
    if (big * 64 > 1e18)
        return am_fail(err, AM_EINPUT, "gen train: model or batch too large: --seq^2 x "
                       "--micro-batch x --heads + --hidden^2 x --layers + --seq x --micro-batch x "
                       "--vocab is %.3g, above 1.5625e16", big);
    return train_sizes(&c, o, t);
}

int gen_train_totals_of(const gen_train_opts *o, gen_train_totals *t, am_error *err)
{
    return train_check(o, t, err);
}

/* The 14 saved tensors of a layer, in allocation order (index 0 = ln1_in). */
enum { T_LN1_IN, T_QKV_IN, T_Q, T_K, T_V, T_SOFTMAX, T_ATTN_MASK, T_ATTN_DROP, T_PROJ_IN,
       T_ATTN_OUT_MASK, T_LN2_IN, T_FC1_IN, T_GELU_IN, T_GELU_OUT, T_MLP_MASK, T_N };

typedef struct train_dims {
    uint64_t d, S, A, sb, h, s, b, V;
} train_dims;

/* Forward of layer i from tensor 1 on (ln1_in exists): allocates its saved tensors into ids[]
 * and, unless recomputing, its output (returned; the next layer's input). */
static uint64_t train_layer_fwd(gctx *g, const train_dims *m, uint64_t i, uint64_t *ids,
                                int recomputing)
{
    const char *tag = recomputing ? "recompute" : "fwd";
    uint64_t d = m->d, S = m->S, A = m->A, h = m->h, bs = m->sb;
    double sbh2 = (double)bs * (double)h * (double)h, bs2h = (double)bs * (double)m->s * (double)h;
    ids[T_QKV_IN] = g_alloc(g, S * d, "hbm", 0, "L%" PRIu64 ".qkv_in", i);
    ids[T_Q] = g_alloc(g, S * d, "hbm", 0, "L%" PRIu64 ".q", i);
    ids[T_K] = g_alloc(g, S * d, "hbm", 0, "L%" PRIu64 ".k", i);
    ids[T_V] = g_alloc(g, S * d, "hbm", 0, "L%" PRIu64 ".v", i);
    g_compute(g, g_flops_ps(g, 6 * sbh2), 0, "L%" PRIu64 ".qkv.%s", i, tag);
    uint64_t scores = g_alloc(g, A * d, "hbm", 0, "L%" PRIu64 ".scores", i);
    g_compute(g, g_flops_ps(g, 2 * bs2h), 0, "L%" PRIu64 ".qk.%s", i, tag);
    ids[T_SOFTMAX] = g_alloc(g, A * d, "hbm", 0, "L%" PRIu64 ".softmax_out", i);
    g_free(g, scores);
    ids[T_ATTN_MASK] = g_alloc(g, A, "hbm", 0, "L%" PRIu64 ".attn_mask", i);
    ids[T_ATTN_DROP] = g_alloc(g, A * d, "hbm", 0, "L%" PRIu64 ".attn_drop", i);
    ids[T_PROJ_IN] = g_alloc(g, S * d, "hbm", 0, "L%" PRIu64 ".proj_in", i);
    g_compute(g, g_flops_ps(g, 2 * bs2h), 0, "L%" PRIu64 ".av.%s", i, tag);
    ids[T_ATTN_OUT_MASK] = g_alloc(g, S, "hbm", 0, "L%" PRIu64 ".attn_out_mask", i);
    ids[T_LN2_IN] = g_alloc(g, S * d, "hbm", 0, "L%" PRIu64 ".ln2_in", i);
    g_compute(g, g_flops_ps(g, 2 * sbh2), 0, "L%" PRIu64 ".proj.%s", i, tag);
    ids[T_FC1_IN] = g_alloc(g, S * d, "hbm", 0, "L%" PRIu64 ".fc1_in", i);
    ids[T_GELU_IN] = g_alloc(g, 4 * S * d, "hbm", 0, "L%" PRIu64 ".gelu_in", i);
    g_compute(g, g_flops_ps(g, 8 * sbh2), 0, "L%" PRIu64 ".fc1.%s", i, tag);
    ids[T_GELU_OUT] = g_alloc(g, 4 * S * d, "hbm", 0, "L%" PRIu64 ".gelu_out", i);
    ids[T_MLP_MASK] = g_alloc(g, S, "hbm", 0, "L%" PRIu64 ".mlp_mask", i);
    uint64_t out = 0;
    if (!recomputing)
        out = g_alloc(g, S * d, "hbm", 0, "L%" PRIu64 ".ln1_in", i + 1);
    g_compute(g, g_flops_ps(g, 8 * sbh2), 0, "L%" PRIu64 ".fc2.%s", i, tag);
    return out;
}

int gen_train(const gen_train_opts *o, FILE *f, am_error *err)
{
    gen_train_totals tt;
    if (gen_train_totals_of(o, &tt, err))
        return -1;
    gctx g;
    g_init(&g, f, o->seed, o->jitter, o->tflops, o->mfu);
    g_header(&g);
    uint64_t d = gen_dtype_bytes(o->dtype), h = o->hidden, L = o->layers, V = o->vocab;
    uint64_t s = o->seq, b = o->micro_batch, a = o->heads, dp = o->dp, k = d == 4 ? 2 : 3;
    train_dims m = {d, s * b * h, a * s * s * b, s * b, h, s, b, V};
    char tf[32], mf[32], hb[32], ha[32], ji[32];
    fprintf(f, "# amsim gen train: layers=%" PRIu64 " hidden=%" PRIu64 " heads=%" PRIu64
            " seq=%" PRIu64 " vocab=%" PRIu64 " micro_batch=%" PRIu64 " micro_batches=%" PRIu64
            " steps=%" PRIu64 " dp=%" PRIu64 " dtype=%s%s%s tflops=%s mfu=%s hbm_gbps=%s"
            " host_adam_gbps=%s jitter=%s seed=%" PRIu64 "\n",
            L, h, a, s, V, b, o->micro_batches, o->steps, dp, o->dtype,
            o->offload_optimizer ? " offload_optimizer" : "", o->recompute ? " recompute" : "",
            g_real(tf, o->tflops), g_real(mf, o->mfu), g_real(hb, o->hbm_gbps),
            g_real(ha, o->host_adam_gbps), g_real(ji, o->jitter), o->seed);
    /* params is a count, the others bytes (until 2026-11-28 "# closed form (bytes): params=..."
     * labelled all of them bytes) */
    fprintf(f, "# closed form: params=%" PRIu64 " (a count); in bytes: weights=%" PRIu64
            " grads=%" PRIu64 " optimizer=%" PRIu64 "%s activations_per_layer=%" PRIu64
            " hbm_peak_live=%" PRIu64 " host_peak_live=%" PRIu64 "\n", tt.params, tt.weights,
            tt.grads, tt.optimizer, o->offload_optimizer ? "(host)" : "", tt.act_per_layer,
            tt.hbm_peak_live, tt.host_peak_live);
    fputs("# streams: 0 compute, 1 copies, 2 communication, 3 host optimizer\n", f);

    /* persistent tensors: t = 0 embedding, 1..L layers, L+1 final layer norm */
    uint64_t nt = L + 2;
    uint64_t *W = am_calloc(nt, sizeof *W), *G = am_calloc(nt, sizeof *G);
    uint64_t *O = am_calloc(nt * 3, sizeof *O), *P = am_calloc(nt, sizeof *P);
    uint64_t *ar = am_calloc(nt, sizeof *ar);
    char tname[64];
    const char *olevel = o->offload_optimizer ? "host" : "hbm";
    static const char *const sname[3] = {"master", "adam_m", "adam_v"};
    for (uint64_t t = 0; t < nt; t++) {
        P[t] = t == 0 ? V * h : t == nt - 1 ? 2 * h : 12 * h * h + 13 * h;
        if (t == 0)
            snprintf(tname, sizeof tname, "embed");
        else if (t == nt - 1)
            snprintf(tname, sizeof tname, "ln_f");
        else
            snprintf(tname, sizeof tname, "L%" PRIu64, t - 1);
        W[t] = g_alloc(&g, P[t] * d, "hbm", 0, "%s.weight", tname);
        G[t] = g_alloc(&g, P[t] * d, "hbm", 0, "%s.grad", tname);
        for (uint64_t j = 3 - k; j < 3; j++)
            O[t * 3 + j] = g_alloc(&g, 4 * ceil_div(P[t], dp), olevel, 0, "%s.%s", tname,
                                   sname[j]);
    }
    uint64_t *act = am_calloc(L * T_N, sizeof *act);
    double sbh = (double)(s * b) * (double)h, sbhV = sbh * (double)V;
    /* a trace refused for its times (g_finish) is not written further */
    for (uint64_t step = 0; step < o->steps && !g.clock_over && !g.too_long; step++) {
        fprintf(f, "# ---- step %" PRIu64 " ----\n", step);
        for (uint64_t mb = 0; mb < o->micro_batches; mb++) {
            int last_mb = mb + 1 == o->micro_batches;
            fprintf(f, "# micro-batch %" PRIu64 ": forward\n", mb);
            uint64_t batch = g_alloc(&g, 8 * s * b, "hbm", 1, "batch");
            g_xfer(&g, "host", "hbm", 8 * s * b, 1, 0, batch, "h2d.batch");
            g_join(&g, 1, 0);
            uint64_t x = g_alloc(&g, m.S * d, "hbm", 0, "L0.ln1_in");
            g_compute(&g, g_bytes_ps(&g, (double)(m.S * d), o->hbm_gbps), 0, "embed.fwd");
            for (uint64_t i = 0; i < L; i++) {
                uint64_t *ids = &act[i * T_N];
                ids[T_LN1_IN] = x;
                x = train_layer_fwd(&g, &m, i, ids, 0);
                if (o->recompute)
                    for (int j = 1; j < T_N; j++)
                        g_free(&g, ids[j]);
            }
            uint64_t logits = g_alloc(&g, s * b * V * d, "hbm", 0, "logits");
            g_compute(&g, g_flops_ps(&g, 2 * sbhV), 0, "head.fwd");
            fprintf(f, "# micro-batch %" PRIu64 ": backward\n", mb);
            uint64_t dlogits = g_alloc(&g, s * b * V * d, "hbm", 0, "dlogits");
            g_compute(&g, g_bytes_ps(&g, 2.0 * (double)(s * b * V * d), o->hbm_gbps), 0,
                      "loss.bwd");
            g_free(&g, logits);
            uint64_t dy = g_alloc(&g, m.S * d, "hbm", 0, "L%" PRIu64 ".dy", L - 1);
            g_compute(&g, g_flops_ps(&g, 4 * sbhV), 0, "head.bwd");
            g_free(&g, dlogits);
            g_free(&g, x);
            for (uint64_t i = L; i-- > 0;) {
                uint64_t *ids = &act[i * T_N];
                double sbh2 = sbh * (double)h, bs2h = sbh * (double)s;
                if (o->recompute)
                    train_layer_fwd(&g, &m, i, ids, 1);
                uint64_t t1 = g_alloc(&g, 4 * m.S * d, "hbm", 0, "L%" PRIu64 ".d_mlp", i);
                g_compute(&g, g_flops_ps(&g, 32 * sbh2), 0, "L%" PRIu64 ".mlp.bwd", i);
                g_free(&g, t1);
                t1 = g_alloc(&g, m.A * d, "hbm", 0, "L%" PRIu64 ".d_scores", i);
                g_compute(&g, g_flops_ps(&g, 16 * sbh2 + 8 * bs2h), 0, "L%" PRIu64 ".attn.bwd",
                          i);
                g_free(&g, t1);
                uint64_t dx = g_alloc(&g, m.S * d, "hbm", 0, "L%" PRIu64 ".dx", i);
                g_compute(&g, g_bytes_ps(&g, 3.0 * (double)(m.S * d), o->hbm_gbps), 0,
                          "L%" PRIu64 ".ln1.bwd", i);
                for (int j = 0; j < T_N; j++)
                    g_free(&g, ids[j]);
                g_free(&g, dy);
                dy = dx;
                if (last_mb && dp > 1) {
                    g_join(&g, 0, 2);
                    g_xfer(&g, "hbm", "hbm", mul_div(P[i + 1] * d, 2 * (dp - 1), dp), 2,
                           G[i + 1], 0, "allreduce.grad");
                    ar[i + 1] = g_record(&g, 2);
                }
            }
            g_compute(&g, g_bytes_ps(&g, 2.0 * (double)(m.S * d), o->hbm_gbps), 0, "embed.bwd");
            g_free(&g, dy);
            g_free(&g, batch);
            if (last_mb && dp > 1) {
                g_join(&g, 0, 2);
                g_xfer(&g, "hbm", "hbm", mul_div((P[0] + P[nt - 1]) * d, 2 * (dp - 1), dp), 2,
                       G[0], 0, "allreduce.grad");
                ar[0] = ar[nt - 1] = g_record(&g, 2);
            }
        }
        fprintf(f, "# optimizer (Adam%s)\n", o->offload_optimizer ? ", on the host" : "");
        if (dp > 1)
            g_wait(&g, ar[0], 0); /* the last all-reduce: stream 2 runs them in order */
        /* the host optimizer's copies start once the gradients are final: stream 1 waits for
         * stream 0 after the backward (and, dp > 1, after its wait on the last all-reduce).
         * Until 2026-11-27 it did not, and the d2h.grad copies started with the first forward,
         * before the backward had computed any gradient. */
        if (o->offload_optimizer)
            g_join(&g, 0, 1);
        for (uint64_t t = 0; t < nt; t++) {
            uint64_t shard = ceil_div(P[t], dp);
            double bytes = (double)shard * (double)(2 * d + 8 * k);
            if (!o->offload_optimizer) {
                g_compute(&g, g_bytes_ps(&g, bytes, o->hbm_gbps), 0, "adam");
                continue;
            }
            g_xfer(&g, "hbm", "host", shard * d, 1, G[t], 0, "d2h.grad");
            g_join(&g, 1, 3);
            g_compute(&g, g_bytes_ps(&g, bytes, o->host_adam_gbps), 3, "adam.host");
            g_join(&g, 3, 1);
            g_xfer(&g, "host", "hbm", shard * d, 1, 0, W[t], "h2d.weight");
        }
        if (o->offload_optimizer)
            g_join(&g, 1, 0);
        if (dp > 1) {
            uint64_t wb = 0;
            for (uint64_t t = 0; t < nt; t++)
                wb += P[t] * d;
            g_join(&g, 0, 2);
            g_xfer(&g, "hbm", "hbm", mul_div(wb, dp - 1, dp), 2, 0, 0, "allgather.weights");
            g_join(&g, 2, 0);
        }
        fputs("sync\n", f);
    }
    fputs("# end: release the model\n", f);
    for (uint64_t t = nt; t-- > 0;) {
        for (uint64_t j = 3 - k; j < 3; j++)
            g_free(&g, O[t * 3 + j]);
        g_free(&g, G[t]);
        g_free(&g, W[t]);
    }
    free(act);
    free(W);
    free(G);
    free(O);
    free(P);
    free(ar);
    return g_finish(&g, "gen train", "raise --tflops, --mfu, --hbm-gbps or "
                    "--host-adam-gbps, or shrink the model",
                    "the compute durations add up to 2^63 ps (about 107 days) "
                    "or more, past what a run can simulate: raise --tflops, --mfu, --hbm-gbps or "
                    "--host-adam-gbps, or lower --steps, --micro-batches or the model's size "
                    "(--layers, --hidden, --seq, --micro-batch, --vocab)", err);
}

/* ==== serve ==== */

void gen_serve_defaults(gen_serve_opts *o)
{
    *o = (gen_serve_opts){.layers = 32, .hidden = 4096, .kv_heads = 8, .head_dim = 128,
                          .vocab = 32000, .dtype = "bf16", .requests = 100, .max_batch = 16,
                          .rate = 4.0, .prompt_mu = 5.5, .prompt_sigma = 0.8, .output_mu = 4.5,
                          .output_sigma = 0.8, .max_prompt = 4096, .max_output = 2048,
                          .kv_block = 16, .tflops = 989.0, .mfu = 0.4, .hbm_gbps = 3350.0,
                          .seed = 1};
}

typedef struct sreq {
    am_ps arrival;       /* ps */
    uint64_t prompt, output; /* tokens */
    uint64_t len;        /* tokens in the KV cache */
    uint64_t generated;  /* output tokens so far */
    uint64_t *blocks;    /* block ids (kv_block > 0) or the one buffer id (kv_block = 0); grown
                          * as blocks are allocated, freed when the request finishes, so the
                          * host holds 8 bytes per KV block the trace holds live */
    uint64_t nblocks, cap;
} sreq;

static void sreq_push(sreq *r, uint64_t id)
{
    if (r->nblocks == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 4;
        r->blocks = am_realloc(r->blocks, r->cap * sizeof *r->blocks);
    }
    r->blocks[r->nblocks++] = id;
}

/* A lognormal length in tokens: rounded, at least 1, at most max. A draw at or past max is max
 * before any rounding (llround of a draw past 2^63, e.g. with --prompt-mu 50, is undefined). */
static uint64_t lognormal_tokens(gsl_rng *r, double mu, double sigma, uint64_t max)
{
    double x = gsl_ran_lognormal(r, mu, sigma);
    if (!(x >= 1))
        return 1;
    if (x >= (double)max)
        return max;
    uint64_t n = (uint64_t)llround(x);
    return n > max ? max : n;
}

/* Every option of gen serve in range and every size it writes within 4 EiB. */
static int serve_check(const gen_serve_opts *o, am_error *err)
{
    if (g_seed_check("gen serve", o->seed, err))
        return -1;
    gcheck c = {"gen serve", err, 0, 0};
    ck_u64(&c, "layers", o->layers);
    ck_u64(&c, "hidden", o->hidden);
    ck_u64(&c, "kv-heads", o->kv_heads);
    ck_u64(&c, "head-dim", o->head_dim);
    ck_u64(&c, "vocab", o->vocab);
    ck_dtype(&c, o->dtype);
    ck_u64(&c, "requests", o->requests);
    ck_u64(&c, "max-batch", o->max_batch);
    ck_real(&c, "rate", o->rate, o->rate > 0, "above 0");
    ck_real(&c, "prompt-mu", o->prompt_mu, 1, "a finite number");
    ck_real(&c, "prompt-sigma", o->prompt_sigma, not_negative(o->prompt_sigma), "0 or above");
    ck_real(&c, "output-mu", o->output_mu, 1, "a finite number");
    ck_real(&c, "output-sigma", o->output_sigma, not_negative(o->output_sigma), "0 or above");
    ck_u64(&c, "max-prompt", o->max_prompt);
    ck_u64(&c, "max-output", o->max_output);
    ck_u64(&c, "kv-block", o->kv_block);
    ck_real(&c, "tflops", o->tflops, o->tflops > 0, "above 0");
    ck_real(&c, "mfu", o->mfu, o->mfu > 0 && o->mfu <= 1, "above 0, at most 1");
    ck_real(&c, "hbm-gbps", o->hbm_gbps, o->hbm_gbps > 0, "above 0");
    if (c.failed)
        return -1;
    /* exact, in whole digits: "%.3g" of a double wrote 1000007612467045 as 1e+15 (QA 116),
     * and a double rounds the product above 2^53 */
    am_u128 lhh = (am_u128)o->layers * o->hidden * o->hidden;
    if (lhh > 1000000000000000u) {
        char n[48];
        return am_fail(err, AM_EINPUT, "gen serve: model too large: --layers x --hidden^2 is "
                       "%s, above 10^15", units_fmt_u128(n, sizeof n, lhh));
    }
    uint64_t d = gen_dtype_bytes(o->dtype), L = o->layers, h = o->hidden;
    uint64_t kvd = ck_mul(&c, o->kv_heads, o->head_dim);
    uint64_t pl = ck_add(&c, ck_mul(&c, 10, ck_mul(&c, h, h)), ck_mul(&c, 2 * h, kvd));
    uint64_t P = ck_add(&c, ck_mul(&c, L, pl), ck_mul(&c, o->vocab, h));
    if (ck_bytes(&c, ck_mul(&c, P, d), "the weights (--layers, --hidden, --kv-heads, "
                 "--head-dim, --vocab)"))
        return -1;
    uint64_t bpt = ck_mul(&c, ck_mul(&c, 2 * L, kvd), d);
    if (o->kv_block ? ck_bytes(&c, ck_mul(&c, o->kv_block, bpt), "a KV block (--kv-block "
                               "tokens x 2 x --layers x --kv-heads x --head-dim x the dtype's "
                               "bytes)")
                    : ck_bytes(&c, ck_mul(&c, o->max_prompt + o->max_output, bpt), "a "
                               "request's KV cache ((--max-prompt + --max-output) tokens x 2 x "
                               "--layers x --kv-heads x --head-dim x the dtype's bytes)"))
        return -1;
    uint64_t B = AM_MIN(o->max_batch, o->requests); /* sequences in one iteration */
    uint64_t ws = ck_add(&c, ck_mul(&c, ck_mul(&c, B, o->max_prompt), ck_mul(&c, 4 * h, d)),
                         ck_mul(&c, ck_mul(&c, B, o->vocab), d));
    return ck_bytes(&c, ws, "an iteration's workspace (--max-batch x (--max-prompt x 4 x "
                    "--hidden + --vocab) x the dtype's bytes)") ? -1 : 0;
}

/* The trace events the drawn requests come to at most, counted before any is written: each
 * iteration (sync, workspace alloc, compute, workspace free) gives every running request one
 * output token, so there are at most sum(output) of them; a request's KV cache is allocated and
 * freed in ceil((prompt + output - 1) / kv_block) blocks, or with --kv-block 0 once at the
 * prefill, again (alloc + free) for each further token and freed at the end: 2 x output; the
 * weights are L + 1 allocations, and the trace ends with one sync. 0, or an input error naming
 * the options above G_MAX_SERVE_EVENTS. */
static int serve_events(const gen_serve_opts *o, const sreq *rq, am_error *err)
{
    uint64_t T = o->kv_block, events = o->layers + 2;
    for (uint64_t i = 0; i < o->requests; i++) /* < 10^7 x 2^26: no overflow */
        events += 4 * rq[i].output +
                  2 * (T ? ceil_div(rq[i].prompt + rq[i].output - 1, T) : rq[i].output);
    if (events <= G_MAX_SERVE_EVENTS)
        return 0;
    return am_fail(err, AM_EINPUT, "gen serve: --requests %" PRIu64 " with the lengths drawn "
                   "come to up to %" PRIu64 " trace events, more than 10^8 (about 3 GB): 4 per "
                   "output token (--output-mu, --output-sigma, --max-output) and %s",
                   o->requests, events, T ? "2 per KV block of prompt and output (--prompt-mu, "
                   "--prompt-sigma, --max-prompt, --kv-block)" : "with --kv-block 0 2 more per "
                   "output token");
}

int gen_serve(const gen_serve_opts *o, FILE *f, am_error *err)
{
    if (serve_check(o, err))
        return -1;
    uint64_t d = gen_dtype_bytes(o->dtype);
    gctx g;
    g_init(&g, f, o->seed, 0, o->tflops, o->mfu);
    /* the requests first: their lengths bound the trace (serve_events) before a line of it */
    uint64_t nreq = o->requests;
    sreq *rq = am_calloc(nreq, sizeof *rq);
    double clock_s = 0;
    for (uint64_t i = 0; i < nreq; i++) {
        clock_s += gsl_ran_exponential(g.r, 1.0 / o->rate);
        rq[i].arrival = g_ps(&g, clock_s * 1e12);
        rq[i].prompt = lognormal_tokens(g.r, o->prompt_mu, o->prompt_sigma, o->max_prompt);
        rq[i].output = lognormal_tokens(g.r, o->output_mu, o->output_sigma, o->max_output);
    }
    if (serve_events(o, rq, err)) {
        free(rq);
        g_done(&g);
        return -1;
    }
    if (g.too_long) { /* an arrival at 2^63 ps or later: refused before a line is written */
        free(rq);
        return g_finish(&g, "gen serve", "raise --rate, --tflops, --mfu or --hbm-gbps, "
                    "or shrink the model", "", err);
    }
    g_header(&g);
    uint64_t L = o->layers, h = o->hidden, V = o->vocab;
    uint64_t bpt = 2 * L * o->kv_heads * o->head_dim * d; /* KV bytes per token */
    uint64_t pl = 10 * h * h + 2 * h * o->kv_heads * o->head_dim, P = L * pl + V * h;
    uint64_t T = o->kv_block;
    char ra[32], pm[32], ps[32], om[32], os[32], tf[32], mf[32], hb[32];
    fprintf(f, "# amsim gen serve: layers=%" PRIu64 " hidden=%" PRIu64 " kv_heads=%" PRIu64
            " head_dim=%" PRIu64 " vocab=%" PRIu64 " dtype=%s requests=%" PRIu64
            " max_batch=%" PRIu64 " rate=%s/s prompt=lognormal(%s,%s) output=lognormal(%s,%s)"
            " max_prompt=%" PRIu64 " max_output=%" PRIu64 " kv_block=%" PRIu64 " tflops=%s"
            " mfu=%s hbm_gbps=%s seed=%" PRIu64 "\n", L, h, o->kv_heads, o->head_dim, V,
            o->dtype, o->requests, o->max_batch, g_real(ra, o->rate), g_real(pm, o->prompt_mu),
            g_real(ps, o->prompt_sigma), g_real(om, o->output_mu), g_real(os, o->output_sigma),
            o->max_prompt, o->max_output, T, g_real(tf, o->tflops), g_real(mf, o->mfu),
            g_real(hb, o->hbm_gbps), o->seed);
    fprintf(f, "# weights %" PRIu64 " bytes, KV cache %" PRIu64 " bytes per token\n", P * d, bpt);
    for (uint64_t l = 0; l < L; l++)
        g_alloc(&g, pl * d, "hbm", 0, "L%" PRIu64 ".weight", l);
    g_alloc(&g, V * h * d, "hbm", 0, "embed.weight");
    uint64_t *run = am_calloc(AM_MIN(o->max_batch, nreq), sizeof *run); /* nrun <= both */
    uint64_t nrun = 0, next = 0, done = 0, iter = 0;
    am_ps now = 0;
    while (done < nreq) {
        if (!nrun && next < nreq && rq[next].arrival > now)
            now = rq[next].arrival; /* idle until the next request */
        fprintf(f, "# iteration %" PRIu64 " at %.6f s\n", iter, (double)now / 1e12);
        fprintf(f, "sync stream=0 at=%" PRIu64 "\n", now);
        /* decode: one more token in each running request's cache */
        uint64_t ctx = 0, ndecode = nrun, newtok = 0, nnew = 0;
        for (uint64_t j = 0; j < nrun; j++) {
            sreq *r = &rq[run[j]];
            if (T == 0) {
                uint64_t old = r->blocks[0];
                r->blocks[0] = g_alloc(&g, (r->len + 1) * bpt, "hbm", 0, "kv.r%" PRIu64, run[j]);
                g_free(&g, old);
            } else if (r->len % T == 0) {
                uint64_t nb = r->nblocks;
                sreq_push(r, g_alloc(&g, T * bpt, "hbm", 0, "kv.r%" PRIu64 ".b%" PRIu64, run[j],
                                     nb));
            }
            r->len++;
            ctx += r->len;
        }
        /* admit and prefill the requests that have arrived */
        while (nrun < o->max_batch && next < nreq && rq[next].arrival <= now) {
            sreq *r = &rq[next];
            if (T == 0) {
                sreq_push(r, g_alloc(&g, r->prompt * bpt, "hbm", 0, "kv.r%" PRIu64, next));
            } else {
                for (uint64_t k = 0; k < ceil_div(r->prompt, T); k++)
                    sreq_push(r, g_alloc(&g, T * bpt, "hbm", 0, "kv.r%" PRIu64 ".b%" PRIu64,
                                         next, k));
            }
            r->len = r->prompt;
            newtok += r->prompt;
            nnew++;
            run[nrun++] = next++;
        }
        uint64_t tokens = newtok + ndecode, seqs = nnew + ndecode;
        uint64_t ws = g_alloc(&g, tokens * 4 * h * d + seqs * V * d, "hbm", 0, "workspace");
        double flops = 2.0 * (double)P * (double)tokens +
                       4.0 * (double)L * (double)h * (double)ctx;
        uint64_t dur = g_flops_ps(&g, flops);
        if (ndecode) {
            uint64_t mem = g_bytes_ps(&g, (double)(P * d) + (double)ctx * (double)bpt, o->hbm_gbps);
            dur = mem > dur ? mem : dur;
        }
        g_compute(&g, dur, 0, "%s%s", nnew ? "prefill" : "", ndecode ? (nnew ? "+decode" : "decode") : "");
        g_free(&g, ws);
        now = g_clock_add(&g, now, dur);
        if (g.clock_over || g.too_long)
            break; /* refused at the end (g_finish): write no more of it */
        /* every running request produced a token; finished ones release their cache */
        uint64_t keep = 0;
        for (uint64_t j = 0; j < nrun; j++) {
            sreq *r = &rq[run[j]];
            r->generated++;
            if (r->generated >= r->output) {
                for (uint64_t k = 0; k < r->nblocks; k++)
                    g_free(&g, r->blocks[k]);
                free(r->blocks);
                r->blocks = NULL;
                r->nblocks = r->cap = 0;
                done++;
            } else {
                run[keep++] = run[j];
            }
        }
        nrun = keep;
        iter++;
    }
    fprintf(f, "sync at=%" PRIu64 "\n", now);
    for (uint64_t i = 0; i < nreq; i++)
        free(rq[i].blocks);
    free(rq);
    free(run);
    return g_finish(&g, "gen serve", "raise --rate, --tflops, --mfu or --hbm-gbps, "
                    "or shrink the model",
                    "the generator's clock (an iteration's at=: the arrivals "
                    "and the compute durations) comes to 2^63 ps (about 107 days) or more: raise "
                    "--tflops, --mfu or --hbm-gbps, or lower --requests or the lengths "
                    "(--output-mu, --max-output, --prompt-mu, --max-prompt)", err);
}

/* ==== kernel ==== */

void gen_kernel_defaults(gen_kernel_opts *o)
{
    *o = (gen_kernel_opts){.op = "matmul", .m = 1024, .n = 1024, .k = 1024, .tm = 128,
                           .tn = 128, .tk = 128, .seq_q = 1024, .seq_kv = 1024,
                           .head_dim = 128, .block_q = 128, .block_kv = 128, .heads = 1,
                           .batch = 1, .block_b = 1, .dtype = "bf16", .tflops = 197.0,
                           .mfu = 0.8, .jitter = 0.02, .seed = 1};
}

static int gen_attention(const gen_kernel_opts *o, FILE *f, am_error *err);
static int gen_attention_bwd(const gen_kernel_opts *o, FILE *f, am_error *err);

/* The options both kernels take: the dtype and the compute model's reals. */
static void ck_kernel_common(gcheck *c, const gen_kernel_opts *o)
{
    ck_dtype(c, o->dtype);
    ck_real(c, "tflops", o->tflops, o->tflops > 0, "above 0");
    ck_real(c, "mfu", o->mfu, o->mfu > 0 && o->mfu <= 1, "above 0, at most 1");
    ck_real(c, "jitter", o->jitter, not_negative(o->jitter) && o->jitter <= 0.5, "0 to 0.5");
}

/* Every option of gen kernel in range and every buffer within 4 EiB; t gets the tile sizes
 * clamped to the matrix (--tm past --m is one tile of m rows), which the trace uses. */
static int kernel_check(const gen_kernel_opts *o, uint64_t t[3], am_error *err)
{
    if (g_seed_check("gen kernel", o->seed, err))
        return -1;
    gcheck c = {"gen kernel", err, 0, 0};
    ck_u64(&c, "m", o->m);
    ck_u64(&c, "n", o->n);
    ck_u64(&c, "k", o->k);
    ck_u64(&c, "tm", o->tm);
    ck_u64(&c, "tn", o->tn);
    ck_u64(&c, "tk", o->tk);
    ck_kernel_common(&c, o);
    if (c.failed)
        return -1;
    uint64_t d = gen_dtype_bytes(o->dtype);
    t[0] = AM_MIN(o->tm, o->m);
    t[1] = AM_MIN(o->tn, o->n);
    t[2] = AM_MIN(o->tk, o->k);
    if (ck_bytes(&c, ck_mul(&c, ck_mul(&c, o->m, o->k), d), "A (--m x --k x the dtype's bytes)") ||
        ck_bytes(&c, ck_mul(&c, ck_mul(&c, o->k, o->n), d), "B (--k x --n x the dtype's bytes)") ||
        ck_bytes(&c, ck_mul(&c, ck_mul(&c, o->m, o->n), d), "C (--m x --n x the dtype's bytes)") ||
        ck_bytes(&c, ck_mul(&c, ck_mul(&c, t[0], t[1]), 4),
                 "an accumulator tile (--tm x --tn x 4 bytes)"))
        return -1;
    double steps = (double)ceil_div(o->m, t[0]) * (double)ceil_div(o->n, t[1]) *
                   (double)ceil_div(o->k, t[2]);
    if (steps > 1e7)
        return am_fail(err, AM_EINPUT, "gen kernel: (--m / --tm) x (--n / --tn) x (--k / --tk) "
                       "is %.0f tile steps, more than 10^7", steps);
    return 0;
}

int gen_kernel(const gen_kernel_opts *o, FILE *f, am_error *err)
{
    if (o->op && !strcmp(o->op, "attention"))
        return gen_attention(o, f, err);
    if (o->op && !strcmp(o->op, "attention-bwd"))
        return gen_attention_bwd(o, f, err);
    /* until 2026-11-28 "(expected matmul or attention)" */
    if (o->op && strcmp(o->op, "matmul"))
        return am_fail(err, AM_EINPUT, "gen kernel: --op '%s' (expected matmul, attention or "
                       "attention-bwd)", o->op);
    /* the command line refuses them first (cmd_gen.c, op_opts); a caller of gen_kernel too */
    if (o->causal || o->vpu_tflops != 0 || o->batch != 1 || o->block_b != 1)
        return am_fail(err, AM_EINPUT, "gen kernel: --%s is an option of --op attention, not of "
                       "--op matmul", o->causal ? "causal" : o->vpu_tflops != 0 ? "vpu-tflops"
                       : o->batch != 1 ? "batch" : "block-b");
    uint64_t t[3];
    if (kernel_check(o, t, err))
        return -1;
    uint64_t d = gen_dtype_bytes(o->dtype), tm = t[0], tn = t[1], tk = t[2];
    uint64_t mi = ceil_div(o->m, tm), nj = ceil_div(o->n, tn), nk = ceil_div(o->k, tk);
    gctx g;
    g_init(&g, f, o->seed, o->jitter, o->tflops, o->mfu);
    g_header(&g);
    char tf[32], mf[32], ji[32];
    fprintf(f, "# amsim gen kernel: matmul M=%" PRIu64 " N=%" PRIu64 " K=%" PRIu64 " tiles %"
            PRIu64 "x%" PRIu64 "x%" PRIu64 " dtype=%s tflops=%s mfu=%s jitter=%s seed=%" PRIu64
            "\n", o->m, o->n, o->k, tm, tn, tk, o->dtype, g_real(tf, o->tflops),
            g_real(mf, o->mfu), g_real(ji, o->jitter), o->seed);
    fputs("# streams: 0 MXU compute, 1 DMA hbm->vmem (prefetch), 2 DMA vmem->hbm (writeback)\n", f);
    uint64_t A = g_alloc(&g, o->m * o->k * d, "hbm", 0, "A");
    uint64_t B = g_alloc(&g, o->k * o->n * d, "hbm", 0, "B");
    uint64_t C = g_alloc(&g, o->m * o->n * d, "hbm", 0, "C");
    uint64_t va[2], vb[2], vo[2];
    for (int i = 0; i < 2; i++) {
        va[i] = g_alloc(&g, tm * tk * d, "vmem", 0, "a_tile%d", i);
        vb[i] = g_alloc(&g, tk * tn * d, "vmem", 0, "b_tile%d", i);
        vo[i] = g_alloc(&g, tm * tn * d, "vmem", 0, "out_tile%d", i);
    }
    uint64_t steps = mi * nj * nk, ev_load[2] = {0, 0}, ev_comp_prev = 0, ev_wb[2] = {0, 0};
    uint64_t acc = 0;
    /* dimensions of step s's tiles */
#define KSTEP(s, M_, N_, K_)                                                                  \
    do {                                                                                      \
        uint64_t t_ = (s) / nk, i_ = t_ / nj, j_ = t_ % nj, k_ = (s) % nk;                    \
        M_ = AM_MIN(tm, o->m - i_ * tm);                                                      \
        N_ = AM_MIN(tn, o->n - j_ * tn);                                                      \
        K_ = AM_MIN(tk, o->k - k_ * tk);                                                      \
    } while (0)
    uint64_t sm, sn, sk;
    KSTEP(0, sm, sn, sk);
    g_xfer(&g, "hbm", "vmem", sm * sk * d, 1, A, va[0], "dma.a");
    g_xfer(&g, "hbm", "vmem", sk * sn * d, 1, B, vb[0], "dma.b");
    ev_load[0] = g_record(&g, 1);
    for (uint64_t s = 0; s < steps && !g.clock_over && !g.too_long; s++) { /* see gen_train */
        uint64_t tile = s / nk, kk = s % nk;
        int slot = (int)(s & 1);
        if (s + 1 < steps) { /* prefetch step s+1 into the other buffers */
            uint64_t pm, pn, pk;
            KSTEP(s + 1, pm, pn, pk);
            if (s >= 1)
                g_wait(&g, ev_comp_prev, 1); /* step s-1 has finished with them */
            g_xfer(&g, "hbm", "vmem", pm * pk * d, 1, A, va[!slot], "dma.a");
            g_xfer(&g, "hbm", "vmem", pk * pn * d, 1, B, vb[!slot], "dma.b");
            ev_load[!slot] = g_record(&g, 1);
        }
        KSTEP(s, sm, sn, sk);
        if (kk == 0)
            acc = g_alloc(&g, sm * sn * 4, "accumulator", 0, "acc.t%" PRIu64, tile);
        g_wait(&g, ev_load[slot], 0);
        /* the operands in two copies, one per tile read: a transfer names one source buffer,
         * and each tile's spill must wait for the copy that reads it */
        g_xfer(&g, "vmem", "accumulator", sm * sk * d, 0, va[slot], acc, "mxu.in");
        g_xfer(&g, "vmem", "accumulator", sk * sn * d, 0, vb[slot], acc, "mxu.in");
        g_compute(&g, g_flops_ps(&g, 2.0 * (double)sm * (double)sn * (double)sk), 0, "matmul");
        ev_comp_prev = g_record(&g, 0);
        if (kk + 1 == nk) { /* tile done: accumulator -> vmem -> hbm, double-buffered */
            int os = (int)(tile & 1);
            if (tile >= 2)
                g_wait(&g, ev_wb[os], 0);
            g_xfer(&g, "accumulator", "vmem", sm * sn * d, 0, acc, vo[os], "acc.out");
            g_free(&g, acc);
            g_join(&g, 0, 2);
            g_xfer(&g, "vmem", "hbm", sm * sn * d, 2, vo[os], C, "writeback");
            ev_wb[os] = g_record(&g, 2);
        }
    }
#undef KSTEP
    fputs("sync\n", f);
    for (int i = 1; i >= 0; i--) {
        g_free(&g, vo[i]);
        g_free(&g, vb[i]);
        g_free(&g, va[i]);
    }
    g_free(&g, C);
    g_free(&g, B);
    g_free(&g, A);
    return g_finish(&g, "gen kernel", "raise --tflops or --mfu, or lower --m, --n or --k",
                    "the compute durations add up to 2^63 ps (about 107 days) "
                    "or more, past what a run can simulate: raise --tflops or --mfu, or lower "
                    "--m, --n or --k", err);
}

/* ==== kernel --op attention ==== */

/* The sizes of an attention kernel's buffers, bytes, and its step counts (see gen_attention). */
typedef struct attn_sizes {
    uint64_t q_tile, kv_tile;    /* block_b x block_q (block_kv) x head_dim elements x d */
    uint64_t q_one, kv_one;      /* one batch element's share of a tile (the MXU's operands) */
    uint64_t p_tile;             /* P = softmax part of S, block_q x block_kv x d */
    uint64_t stat;               /* m or l: block_b x block_q fp32 words padded to (8, 128) */
    uint64_t acc, scores;        /* fp32: the block_b output accumulators, one score tile S */
    uint64_t qo, kv;             /* Q or O, K or V: batch x heads x seq x head_dim x d */
    uint64_t hbm, vmem, accum;   /* peak live bytes per level, closed form */
    uint64_t units;              /* the grid's outer axes: batch / block_b x heads */
    uint64_t nq, nkv;            /* Q blocks per head, K/V blocks per Q block */
    uint64_t steps;              /* K/V steps computed, all heads (--causal skips some) */
} attn_sizes;

/* Elementwise VPU operations per score the softmax charges (--vpu-tflops): in Pallas's kernel
 * body each score of S takes part in the row maximum (1), is shifted by the new maximum (1),
 * exponentiated (1) and summed into l (1). The rescaling of l and of the output accumulator
 * by exp(m_prev - m_next) and 1 / l is per row and per output element (block_q x head_dim),
 * not per score, and is not counted, nor are the cast of P to the dtype, the sm_scale
 * multiply and the causal mask's compare and add. */
#define ATTN_SOFTMAX_OPS 4.0

/* The K/V blocks (0 to the result - 1) Q block r of a head computes: every one without
 * --causal. With it, as Pallas's kernel decides (below_or_on_diag): block c runs when its
 * bottom-left corner, row (r + 1) block_q - 1 and column c block_kv, is strictly below the
 * diagonal row = column (the mask keeps column <= row, from the top left whatever seq_kv is):
 * (r + 1) block_q - 1 > c block_kv. So they are a prefix, blocks 0 to
 * ceil(((r + 1) block_q - 1) / block_kv) - 1. A block whose corner is on the diagonal, one
 * score unmasked, is skipped as the kernel skips it. */
static uint64_t attn_runs(const gen_kernel_opts *o, const attn_sizes *z, uint64_t r)
{
    if (!o->causal)
        return z->nkv;
    uint64_t corner = (r + 1) * o->block_q - 1; /* at most seq_q - 1: no overflow */
    return AM_MIN(z->nkv, ceil_div(corner, o->block_kv));
}

/* Whether the step after Q block blk's last computed one reads the K/V block it holds already:
 * under --causal, a Q block that computes block 0 alone followed by a Q block of the same head,
 * which starts at block 0 again. Pallas's pipeline copies nothing while a block index does not
 * change (its skipped steps name block 0 too), so neither does the trace; until 2026-11-28 it
 * fetched that block again, one K and one V tile per head (QA 127). */
static int attn_kv_kept(const gen_kernel_opts *o, const attn_sizes *z, uint64_t blk)
{
    return o->causal && attn_runs(o, z, blk % z->nq) == 1 && (blk + 1) % z->nq != 0;
}

/* The next step's K and V tiles, from K and V on hbm into buffers vk and vv (the other slot's),
 * on stream 1, whose event goes to *ev_load; or, for a block kept (keep: attn_kv_kept), no copy
 * and the event is returned instead, for the caller to make the next step's wait once this step
 * has had its own (the slot stays). Returns 0 after the copies. */
static uint64_t attn_kv_prefetch(gctx *g, int keep, uint64_t tile, uint64_t K, uint64_t V,
                                 uint64_t vk, uint64_t vv, uint64_t *ev_load)
{
    if (keep)
        return g_record(g, 1);
    g_xfer(g, "hbm", "vmem", tile, 1, K, vk, "dma.k");
    g_xfer(g, "hbm", "vmem", tile, 1, V, vv, "dma.v");
    *ev_load = g_record(g, 1);
    return 0;
}

/* A block size in range of its sequence: at most it and dividing it (Pallas's flash attention
 * asserts the same; a ragged last block is not modelled). Returns c->failed. */
static int ck_block(gcheck *c, const char *bopt, uint64_t b, const char *sopt, uint64_t seq)
{
    if (c->failed)
        return 1;
    if (b > seq)
        am_fail(c->err, AM_EINPUT, "gen kernel: --%s %" PRIu64 " is more than --%s %" PRIu64,
                bopt, b, sopt, seq);
    else if (seq % b)
        am_fail(c->err, AM_EINPUT, "gen kernel: --%s %" PRIu64 " does not divide --%s %" PRIu64
                " (a ragged last block is not modelled)", bopt, b, sopt, seq);
    else
        return 0;
    return c->failed = 1;
}

/* Every option of gen kernel --op attention in range, every buffer within 4 EiB; z gets the
 * sizes. o->block_q and o->block_kv are the options named bq and bkv (a backward kernel's own
 * blocks, attention_bwd_check, are checked as the forward's, under their names). */
static int attention_check(const gen_kernel_opts *o, attn_sizes *z, const char *bq_name,
                           const char *bkv_name, am_error *err)
{
    if (g_seed_check("gen kernel", o->seed, err))
        return -1;
    gcheck c = {"gen kernel", err, 0, 0};
    ck_u64(&c, "seq-q", o->seq_q);
    ck_u64(&c, "seq-kv", o->seq_kv);
    ck_u64(&c, "head-dim", o->head_dim);
    ck_u64(&c, bq_name, o->block_q);
    ck_u64(&c, bkv_name, o->block_kv);
    ck_u64(&c, "heads", o->heads);
    ck_u64(&c, "batch", o->batch);
    ck_u64(&c, "block-b", o->block_b);
    ck_block(&c, bq_name, o->block_q, "seq-q", o->seq_q);
    ck_block(&c, bkv_name, o->block_kv, "seq-kv", o->seq_kv);
    ck_block(&c, "block-b", o->block_b, "batch", o->batch);
    ck_kernel_common(&c, o);
    ck_real(&c, "vpu-tflops", o->vpu_tflops, not_negative(o->vpu_tflops), "0 (not charged) or "
            "above");
    if (c.failed)
        return -1;
    /* the kernel's test skips every K/V block of row 0 (0 > c block_kv never holds): a Q block
     * with no step, which the trace does not model */
    if (o->causal && o->block_q == 1)
        return am_fail(err, AM_EINPUT, "gen kernel: --causal with --%s 1: Pallas's kernel "
                       "computes no K/V block of the first row (its test (r + 1) x --%s - 1 "
                       "> c x --%s never holds for it)", bq_name, bq_name, bkv_name);
    uint64_t d = gen_dtype_bytes(o->dtype), bq = o->block_q, bkv = o->block_kv;
    uint64_t hd = o->head_dim, bb = o->block_b;
    /* batch and heads at most 2^24 each: their products below are exact */
    uint64_t bh = o->batch * o->heads;
    z->units = o->batch / bb * o->heads;
    z->nq = o->seq_q / bq;
    z->nkv = o->seq_kv / bkv;
    /* the messages name --batch only where it is given, as until 2026-11-28 */
    const char *xb = o->batch != 1 ? "--batch x " : "";
    char what[160];
    uint64_t qo = ck_mul(&c, ck_mul(&c, ck_mul(&c, bh, o->seq_q), hd), d);
    snprintf(what, sizeof what, "Q or O (%s--heads x --seq-q x --head-dim x the dtype's bytes)",
             xb);
    if (ck_bytes(&c, qo, what))
        return -1;
    uint64_t kv = ck_mul(&c, ck_mul(&c, ck_mul(&c, bh, o->seq_kv), hd), d);
    snprintf(what, sizeof what, "K or V (%s--heads x --seq-kv x --head-dim x the dtype's bytes)",
             xb);
    if (ck_bytes(&c, kv, what))
        return -1;
    z->qo = qo;
    z->kv = kv;
    z->hbm = ck_add(&c, ck_mul(&c, qo, 2), ck_mul(&c, kv, 2));
    snprintf(what, sizeof what, "Q, K, V and O together on hbm (2 x %s--heads x (--seq-q + "
             "--seq-kv) x --head-dim x the dtype's bytes)", xb);
    if (ck_bytes(&c, z->hbm, what))
        return -1;
    /* the block sizes divide the sequences and the batch, so every tile below is within Q's
     * or K's bytes: a tile holds block_b batch elements (Pallas's block shapes (block_b, 1,
     * block_q, head_dim)), the MXU takes one at a time (q_one, kv_one: gen_attention) */
    z->q_one = bq * hd * d;
    z->kv_one = bkv * hd * d;
    z->q_tile = bb * z->q_one;
    z->kv_tile = bb * z->kv_one;
    z->acc = bb * bq * hd * 4;
    z->scores = ck_mul(&c, ck_mul(&c, bq, bkv), 4);
    z->p_tile = ck_mul(&c, ck_mul(&c, bq, bkv), d);
    /* m and l are (block_q, 1) fp32 arrays, padded as every VMEM array to whole (8, 128) tiles
     * of 32-bit words (hardware.md): ceil(block_q / 8) tiles of 4 KiB each, block_b of them */
    z->stat = ck_mul(&c, ck_mul(&c, ceil_div(bq, 8), 8 * 128 * 4), bb);
    z->accum = ck_add(&c, z->acc, z->scores);
    if (bb == 1)
        snprintf(what, sizeof what, "the accumulator tiles (--%s x (--head-dim + --%s) x 4 "
                 "bytes)", bq_name, bkv_name);
    else
        snprintf(what, sizeof what, "the accumulator tiles (--%s x (--block-b x --head-dim + "
                 "--%s) x 4 bytes)", bq_name, bkv_name);
    if (ck_bytes(&c, z->accum, what))
        return -1;
    /* two Q, K, V and output tiles, one P tile, m and l */
    uint64_t v = ck_mul(&c, ck_add(&c, ck_add(&c, z->q_tile, z->kv_tile), ck_add(&c, z->kv_tile,
                                                                              z->q_tile)), 2);
    z->vmem = ck_add(&c, ck_add(&c, v, z->p_tile), ck_mul(&c, z->stat, 2));
    if (ck_bytes(&c, z->vmem, "the vmem tiles (Q, K, V and O tiles twice, P, m and l)"))
        return -1;
    /* the cap counts a step once per batch element (bh): each is a body of the trace's, in a
     * tile of block_b of them or not */
    if (!o->causal) {
        double steps = (double)bh * (double)z->nq * (double)z->nkv;
        if (steps > 1e7)
            return am_fail(err, AM_EINPUT, "gen kernel: %s--heads x (--seq-q / --%s) x "
                           "(--seq-kv / --%s) is %.0f tile steps, more than 10^7", xb, bq_name,
                           bkv_name, steps);
        z->steps = z->units * z->nq * z->nkv;
        return 0;
    }
    /* every Q block computes at least block 0 (--block-q 1 refused above), so this sum stops
     * within 10^7 Q blocks whatever --seq-q is */
    uint64_t per_head = 0;
    for (uint64_t r = 0; r < z->nq; r++) {
        per_head += attn_runs(o, z, r);
        if ((double)per_head * (double)bh > 1e7)
            return am_fail(err, AM_EINPUT, "gen kernel: --causal: %s--heads x the K/V blocks on "
                           "or below the diagonal come to more than 10^7 tile steps", xb);
    }
    z->steps = z->units * per_head;
    return 0;
}

/* The header line of an attention trace's options (op "attention" or "attention-bwd"), as the
 * command line gives them, more (the backward's own blocks, or "") after --block-kv. */
static void attn_header_opts(FILE *f, const gen_kernel_opts *o, const char *op,
                             const char *more)
{
    char tf[32], mf[32], ji[32];
    fprintf(f, "# amsim gen kernel: --op %s --heads %" PRIu64, op, o->heads);
    /* absent at 1, so traces without them keep their bytes */
    if (o->batch != 1)
        fprintf(f, " --batch %" PRIu64, o->batch);
    if (o->block_b != 1)
        fprintf(f, " --block-b %" PRIu64, o->block_b);
    fprintf(f, " --seq-q %" PRIu64 " --seq-kv %" PRIu64 " --head-dim %" PRIu64 " --block-q %"
            PRIu64 " --block-kv %" PRIu64 "%s%s --dtype %s --tflops %s --mfu %s", o->seq_q,
            o->seq_kv, o->head_dim, o->block_q, o->block_kv, more, o->causal ? " --causal" : "",
            o->dtype, g_real(tf, o->tflops), g_real(mf, o->mfu));
    if (o->vpu_tflops > 0) /* absent at 0, so traces without it keep their bytes */
        fprintf(f, " --vpu-tflops %s", g_real(tf, o->vpu_tflops));
    fprintf(f, " --jitter %s --seed %" PRIu64 "\n", g_real(ji, o->jitter), o->seed);
}

/* The VPU's work on a score tile, ops elementwise operations, as a compute on stream 0
 * (--vpu-tflops; none at 0: 1 TFLOP/s is one operation per ps). */
static void attn_vpu(gctx *g, const gen_kernel_opts *o, double ops, const char *name)
{
    if (o->vpu_tflops > 0)
        g_compute(g, g_dur(g, ops / o->vpu_tflops * g_jitter(g)), 0, "%s", name);
}

/* A step's P, as the forward and both backward kernels compute it: the score tile S (named
 * s_name) in the accumulator, Q and K copied in, S = Q K^T on the MXU, the VPU's softmax
 * (ops_per_score elementwise operations a score), P into its vmem tile vp, S freed. */
static void attn_p(gctx *g, const gen_kernel_opts *o, const attn_sizes *a, uint64_t q, uint64_t k,
                   uint64_t vp, double flops, double ops_per_score, const char *s_name)
{
    uint64_t S = g_alloc(g, a->scores, "accumulator", 0, "%s", s_name);
    g_xfer(g, "vmem", "accumulator", a->q_one, 0, q, S, "mxu.q");
    g_xfer(g, "vmem", "accumulator", a->kv_one, 0, k, S, "mxu.k");
    g_compute(g, g_flops_ps(g, flops), 0, "qk");
    attn_vpu(g, o, ops_per_score * (double)o->block_q * (double)o->block_kv, "softmax");
    g_xfer(g, "accumulator", "vmem", a->p_tile, 0, S, vp, "softmax.p");
    g_free(g, S);
}

/* A FlashAttention forward pass as Pallas's TPU kernel runs it (jax.experimental.pallas.ops.
 * tpu.flash_attention): per head and Q block, the Q tile comes to vmem once; per K/V block,
 * S = Q K^T goes to the accumulator, P (the softmax part, exp(S - m) in the dtype) back to
 * vmem, then P V is added into the block's fp32 output accumulator. m and l (the running
 * maximum and sum) are vmem scratch for the whole Q block. At its end the output, divided by l,
 * goes accumulator -> vmem -> hbm as the matmul's tiles do. Steps are (batch group, head,
 * Q block, K/V block), Pallas's grid: each tile holds --block-b batch elements, whose bodies
 * run one after the other within the step (attention_check's sizes); stream 1 loads
 * step s+1 (with the Q tile when s+1 starts a Q block) into the other buffers while step s
 * computes, as gen_kernel does. The softmax's elementwise work is charged
 * only with --vpu-tflops, as a compute between the two matmuls (ATTN_SOFTMAX_OPS per score).
 *
 * With --causal the K/V blocks above the diagonal (attn_runs) are neither fetched nor
 * computed: Pallas's index map names, for a skipped step, K/V block 0 of the same head, the
 * block the next Q block starts with, and its pipeline issues no copy while a block index does
 * not change; the skipped step's body is under pl.when. So after a Q block's last computed
 * step the next copy is the next Q block's first K/V block, and the steps here are only the
 * computed ones, each prefetching the next computed one. Blocks that cross the diagonal are
 * computed in full (the mask is elementwise work inside them). Where a head's last Q block
 * skips blocks (seq_kv >= seq_q + block_kv - 1), the kernel also fetches that head's block 0
 * once more, for nothing (before the next head's, if any): that copy is not in the trace. */
static int gen_attention(const gen_kernel_opts *o, FILE *f, am_error *err)
{
    attn_sizes z = {0}; /* set by attention_check (gcc cannot tell it returns nonzero) */
    if (attention_check(o, &z, "block-q", "block-kv", err))
        return -1;
    uint64_t bq = o->block_q, bkv = o->block_kv, hd = o->head_dim;
    uint64_t steps = z.steps; /* at most 10^7: attention_check */
    gctx g;
    g_init(&g, f, o->seed, o->jitter, o->tflops, o->mfu);
    g_header(&g);
    attn_header_opts(f, o, "attention", "");
    fprintf(f, "# peak live bytes: hbm %" PRIu64 " (Q, K, V, O), vmem %" PRIu64 " (2 x (Q, K, V, "
            "O tiles %" PRIu64 " + %" PRIu64 " + %" PRIu64 " + %" PRIu64 ") + P %" PRIu64
            " + m, l %" PRIu64 " each), accumulator %" PRIu64 " (output %" PRIu64 " + S %"
            PRIu64 ")\n", z.hbm, z.vmem, z.q_tile, z.kv_tile, z.kv_tile, z.q_tile, z.p_tile,
            z.stat, z.accum, z.acc, z.scores);
    if (o->block_b != 1)
        fprintf(f, "# block-b %" PRIu64 ": %" PRIu64 " batch elements a tile, one after the other "
                "on the MXU (one S at a time, %" PRIu64 " output accumulators)\n", o->block_b,
                o->block_b, o->block_b);
    if (o->causal)
        fprintf(f, "# causal: %" PRIu64 " of %" PRIu64 " K/V steps computed, the blocks above the "
                "diagonal neither fetched nor computed\n", steps, z.units * z.nq * z.nkv);
    fputs("# streams: 0 MXU compute, 1 DMA hbm->vmem (prefetch), 2 DMA vmem->hbm (writeback)\n", f);
    uint64_t Q = g_alloc(&g, z.qo, "hbm", 0, "Q");
    uint64_t K = g_alloc(&g, z.kv, "hbm", 0, "K");
    uint64_t V = g_alloc(&g, z.kv, "hbm", 0, "V");
    uint64_t O = g_alloc(&g, z.qo, "hbm", 0, "O");
    uint64_t vq[2], vk[2], vv[2], vo[2];
    for (int i = 0; i < 2; i++) {
        vq[i] = g_alloc(&g, z.q_tile, "vmem", 0, "q_tile%d", i);
        vk[i] = g_alloc(&g, z.kv_tile, "vmem", 0, "k_tile%d", i);
        vv[i] = g_alloc(&g, z.kv_tile, "vmem", 0, "v_tile%d", i);
        vo[i] = g_alloc(&g, z.q_tile, "vmem", 0, "out_tile%d", i);
    }
    uint64_t vp = g_alloc(&g, z.p_tile, "vmem", 0, "p_tile");
    uint64_t ev_load[2] = {0, 0}, ev_comp_prev = 0, ev_wb[2] = {0, 0};
    uint64_t m = 0, l = 0, acc = 0;
    double flops = 2.0 * (double)bq * (double)bkv * (double)hd; /* each of QK^T and PV */
    g_xfer(&g, "hbm", "vmem", z.q_tile, 1, Q, vq[0], "dma.q");
    g_xfer(&g, "hbm", "vmem", z.kv_tile, 1, K, vk[0], "dma.k");
    g_xfer(&g, "hbm", "vmem", z.kv_tile, 1, V, vv[0], "dma.v");
    ev_load[0] = g_record(&g, 1);
    /* s counts computed steps; blk is the Q block (over all heads), j its K/V block; slot the
     * K/V buffers step s reads (the other's, but for a block kept: attn_kv_kept) */
    uint64_t blk = 0, j = 0;
    int slot = 0;
    for (uint64_t s = 0; s < steps && !g.clock_over && !g.too_long; s++) { /* see gen_train */
        int last = j + 1 == attn_runs(o, &z, blk % z.nq); /* the Q block's last step */
        int qs = (int)(blk & 1), keep = last && attn_kv_kept(o, &z, blk);
        uint64_t ev_kept = 0; /* keep: the next step's wait, once this step has had its own */
        if (s + 1 < steps) { /* prefetch step s+1 into the other buffers */
            if (s >= 1)
                g_wait(&g, ev_comp_prev, 1); /* step s-1 (and Q block blk-1) is done with them */
            if (last)
                g_xfer(&g, "hbm", "vmem", z.q_tile, 1, Q, vq[!qs], "dma.q");
            ev_kept = attn_kv_prefetch(&g, keep, z.kv_tile, K, V, vk[!slot], vv[!slot],
                                       &ev_load[!slot]);
        }
        if (j == 0) { /* the Q block's running statistics and output accumulator */
            m = g_alloc(&g, z.stat, "vmem", 0, "m.b%" PRIu64, blk);
            l = g_alloc(&g, z.stat, "vmem", 0, "l.b%" PRIu64, blk);
            acc = g_alloc(&g, z.acc, "accumulator", 0, "acc.b%" PRIu64, blk);
        }
        g_wait(&g, ev_load[slot], 0);
        if (ev_kept)
            ev_load[slot] = ev_kept;
        /* Pallas's kernel body runs once per batch element of the tile, a Python loop over
         * block_b (_flash_attention_kernel), each with 2-D dots: not one batched matmul */
        for (uint64_t e = 0; e < o->block_b; e++) {
            attn_p(&g, o, &z, vq[qs], vk[slot], vp, flops, ATTN_SOFTMAX_OPS, "scores");
            g_xfer(&g, "vmem", "accumulator", z.p_tile, 0, vp, acc, "mxu.p");
            g_xfer(&g, "vmem", "accumulator", z.kv_one, 0, vv[slot], acc, "mxu.v");
            g_compute(&g, g_flops_ps(&g, flops), 0, "pv");
        }
        ev_comp_prev = g_record(&g, 0);
        if (last) { /* Q block done: O = acc / l, accumulator -> vmem -> hbm */
            if (blk >= 2)
                g_wait(&g, ev_wb[qs], 0);
            g_xfer(&g, "accumulator", "vmem", z.q_tile, 0, acc, vo[qs], "acc.out");
            g_free(&g, acc);
            g_free(&g, l);
            g_free(&g, m);
            g_join(&g, 0, 2);
            g_xfer(&g, "vmem", "hbm", z.q_tile, 2, vo[qs], O, "writeback");
            ev_wb[qs] = g_record(&g, 2);
            blk++, j = 0;
        } else {
            j++;
        }
        slot = keep ? slot : !slot;
    }
    fputs("sync\n", f);
    g_free(&g, vp);
    for (int i = 1; i >= 0; i--) {
        g_free(&g, vo[i]);
        g_free(&g, vv[i]);
        g_free(&g, vk[i]);
        g_free(&g, vq[i]);
    }
    g_free(&g, O);
    g_free(&g, V);
    g_free(&g, K);
    g_free(&g, Q);
    return g_finish(&g, "gen kernel", "raise --tflops, --mfu or --vpu-tflops, or lower --seq-q, "
                    "--seq-kv or --head-dim", "the compute durations add up to 2^63 ps (about "
                    "107 days) or more, past what a run can simulate: raise --tflops, --mfu or "
                    "--vpu-tflops, or lower --batch, --heads, --seq-q, --seq-kv or --head-dim",
                    err);
}

/* ==== kernel --op attention-bwd ==== */

/* One backward kernel's options, k, at its own block sizes, and the names of the options they
 * came from (bwd_opts, which picks them once for the checks, messages, header and trace), its
 * buffers and step counts (see gen_attention_bwd): the forward's tiles (a.q_tile for a Q, dO or
 * dQ tile, a.kv_tile for K, V, dK or dV, a.p_tile for P or dS, a.stat for a padded block of l,
 * m or di, a.scores for S or dP) and a.steps, the (Q block, K/V block) pairs it computes,
 * plus: */
typedef struct bwd_kernel {
    gen_kernel_opts k;
    const char *bq_name, *bkv_name; /* e.g. "dq-block-q" (its own) or "block-q" (the shared) */
    attn_sizes a;
    uint64_t row;  /* a block of l, m or di as DMA'd: block_q x 128 x 4 bytes */
    uint64_t acc;  /* fp32 scratch: dK or dV block_kv x d x 4 (dkv), dQ block_q x d x 4 (dq) */
    uint64_t vmem; /* its vmem peak */
} bwd_kernel;

/* The backward's sizes: each kernel's, and what they share. */
typedef struct bwd_sizes {
    bwd_kernel dkv, dq;
    int same;        /* both kernels run with the same blocks (bwd_same_blocks) */
    uint64_t lm;     /* l, m or di on hbm: batch x heads x seq_q x 128 fp32 words */
    uint64_t hbm;    /* Q, K, V, O, dO, l, m, di, dQ, dK, dV */
    uint64_t vmem;   /* the larger kernel's vmem peak */
    uint64_t accum;  /* the accumulator's peak: the larger kernel's */
} bwd_sizes;

/* VPU operations per score (--vpu-tflops) in Pallas's backward kernels, both the same: P is
 * recomputed, exp(S - m) x (1 / l), 3 (subtract, exponentiate, multiply: 1 / l is per row),
 * and dS = (dP - di) x P, 2. Not counted, as in the forward: a sm_scale other than 1, the
 * causal mask, the casts of P and dS to the dtype, and the += of each product into its fp32
 * scratch (per output element, not per score). */
#define ATTN_BWD_P_OPS 3.0
#define ATTN_BWD_DS_OPS 2.0

/* The first Q block the dkv kernel computes for K/V block c of a head: 0 without --causal;
 * with it the smallest r with (r + 1) block_q - 1 > c block_kv (the test attn_runs applies
 * from the other side), floor((c block_kv + 1) / block_q). The blocks from there to the last
 * run: for a K/V block the computed Q blocks are a suffix. */
static uint64_t bwd_first_q(const gen_kernel_opts *o, uint64_t c)
{
    return o->causal ? (c * o->block_kv + 1) / o->block_q : 0; /* c block_kv < seq_kv */
}

/* The options a backward kernel runs with, into z->k: o, its block sizes those of --dkv-block-q
 * and --dkv-block-kv (dkv) or --dq-block-q and --dq-block-kv, each of which (at 0) is --block-q
 * or --block-kv, as Pallas's BlockSizes gives each kernel its own (block_q_major_dkv,
 * block_k_major_dkv; block_q_dq, block_k_major_dq); and the names of the options they came
 * from, which its messages give. */
static void bwd_opts(const gen_kernel_opts *o, int dq, bwd_kernel *z)
{
    uint64_t bq = dq ? o->dq_block_q : o->dkv_block_q, bkv = dq ? o->dq_block_kv : o->dkv_block_kv;
    z->k = *o;
    z->k.block_q = bq ? bq : o->block_q;
    z->k.block_kv = bkv ? bkv : o->block_kv;
    z->bq_name = !bq ? "block-q" : dq ? "dq-block-q" : "dkv-block-q";
    z->bkv_name = !bkv ? "block-kv" : dq ? "dq-block-kv" : "dkv-block-kv";
}

/* Whether both kernels run with the same blocks (the header and messages then name them once,
 * as until 2026-11-28, when both kernels ran with --block-q and --block-kv). */
static int bwd_same_blocks(const gen_kernel_opts *dkv, const gen_kernel_opts *dq)
{
    return dkv->block_q == dq->block_q && dkv->block_kv == dq->block_kv;
}

/* One kernel's checks (attention_check's, under its options' names) and sizes, its vmem peak
 * by the layout of buffers that bwd_dkv (dq 0) or bwd_dq allocates (within 4 EiB: checked after
 * the hbm's, as until 2026-11-28). z->k and the names are bwd_opts's. */
static int bwd_kernel_check(bwd_kernel *z, int dq, am_error *err)
{
    const gen_kernel_opts *k = &z->k;
    if (attention_check(k, &z->a, z->bq_name, z->bkv_name, err))
        return -1;
    gcheck c = {"gen kernel", err, 0, 0};
    const attn_sizes *a = &z->a;
    uint64_t hd = k->head_dim;
    /* within the forward's sizes: a block of l, m or di is block_q x 512 bytes, the fp32
     * scratch twice a tile in the dtype at most */
    z->row = k->block_q * 128 * 4;
    if (!dq) {
        z->acc = k->block_kv * hd * 4;
        /* Q, dO, l, m, di twice (per Q step), K, V twice (per K/V block), P, dS, the dK and
         * dV scratch, dK and dV out tiles twice */
        z->vmem = ck_add(&c, ck_add(&c, ck_mul(&c, a->q_tile, 4), ck_mul(&c, a->stat, 6)),
                         ck_add(&c, ck_mul(&c, a->kv_tile, 8),
                                ck_add(&c, ck_mul(&c, a->p_tile, 2), ck_mul(&c, z->acc, 2))));
    } else {
        z->acc = k->block_q * hd * 4;
        /* Q, dO, l, m, di twice (per Q block), K, V twice (per step), P, dS, the dQ scratch,
         * dQ out tiles twice */
        z->vmem = ck_add(&c, ck_add(&c, ck_mul(&c, a->q_tile, 6), ck_mul(&c, a->stat, 6)),
                         ck_add(&c, ck_mul(&c, a->kv_tile, 4),
                                ck_add(&c, ck_mul(&c, a->p_tile, 2), z->acc)));
    }
    if (c.over)
        z->vmem = UINT64_MAX; /* past 4 EiB: attention_bwd_check refuses it */
    return 0;
}

/* The last K/V block's corner column (nkv - 1) block_kv at or past row seq_q - 1: no Q block
 * runs it; the dkv kernel writes its dK and dV as zeros without computing, and the dq kernel's
 * last Q block skips it and fetches the head's K/V block 0 for nothing, as the forward's:
 * neither is modelled. */
static int bwd_causal_check(const bwd_kernel *z, am_error *err)
{
    const gen_kernel_opts *k = &z->k;
    if (k->causal && k->seq_kv - k->block_kv + 1 >= k->seq_q)
        return am_fail(err, AM_EINPUT, "gen kernel: --op attention-bwd --causal: --seq-kv %" PRIu64
                       " is at least --seq-q + --%s - 1 (%" PRIu64 " + %" PRIu64 " - 1): "
                       "the last K/V block has no row below the diagonal, which the trace does "
                       "not model", k->seq_kv, z->bkv_name, k->seq_q, k->block_kv);
    return 0;
}

/* Every option of --op attention-bwd in range: --block-q and --block-kv (also when both
 * kernels have their own), each kernel's checks and sizes, then the backward's own: its
 * buffers within 4 EiB and its two kernels' steps together at most 10^7. */
static int attention_bwd_check(const gen_kernel_opts *o, bwd_sizes *z, am_error *err)
{
    /* the command line refuses it first (cmd_gen.c, op_opts); a caller of gen_kernel too */
    if (o->block_b != 1)
        return am_fail(err, AM_EINPUT, "gen kernel: --block-b is an option of --op attention, "
                       "not of --op attention-bwd (Pallas's backward kernels take one batch "
                       "element a step)");
    bwd_opts(o, 0, &z->dkv);
    bwd_opts(o, 1, &z->dq);
    if (bwd_kernel_check(&z->dkv, 0, err) || bwd_kernel_check(&z->dq, 1, err))
        return -1;
    /* --block-q and --block-kv when both kernels have their own (else checked above) */
    gcheck c = {"gen kernel", err, 0, 0};
    ck_u64(&c, "block-q", o->block_q);
    ck_u64(&c, "block-kv", o->block_kv);
    ck_block(&c, "block-q", o->block_q, "seq-q", o->seq_q);
    ck_block(&c, "block-kv", o->block_kv, "seq-kv", o->seq_kv);
    if (c.failed)
        return -1;
    z->same = bwd_same_blocks(&z->dkv.k, &z->dq.k);
    const attn_sizes *a = &z->dkv.a;
    uint64_t sd = z->dkv.a.steps, sq = z->dq.a.steps; /* each at most 10^7 */
    if (sd + sq > 10000000) {
        /* with the same blocks sd == sq: the message names the count once, as until 2026-11-28 */
        if (z->same)
            return am_fail(err, AM_EINPUT, "gen kernel: --op attention-bwd: its two kernels come "
                           "to 2 x %" PRIu64 " tile steps, more than 10^7", sd);
        return am_fail(err, AM_EINPUT, "gen kernel: --op attention-bwd: its two kernels come to "
                       "%" PRIu64 " (dkv) + %" PRIu64 " (dq) tile steps, more than 10^7", sd, sq);
    }
    if (bwd_causal_check(&z->dkv, err) || bwd_causal_check(&z->dq, err))
        return -1;
    /* batch x heads at most 2^48 (each at most 2^24): exact */
    z->lm = ck_mul(&c, ck_mul(&c, o->batch * o->heads, o->seq_q), 128 * 4);
    z->hbm = ck_add(&c, ck_add(&c, ck_mul(&c, a->qo, 4), ck_mul(&c, a->kv, 4)),
                    ck_mul(&c, z->lm, 3));
    const char *xb = o->batch != 1 ? "--batch x " : ""; /* as attention_check's */
    char what[200];
    snprintf(what, sizeof what, "Q, K, V, O, dO, dQ, dK, dV, l, m and di together on hbm (4 x "
             "%s--heads x (--seq-q + --seq-kv) x --head-dim x the dtype's bytes + 3 x %s--heads "
             "x --seq-q x 512)", xb, xb);
    if (ck_bytes(&c, z->hbm, what))
        return -1;
    z->vmem = AM_MAX(z->dkv.vmem, z->dq.vmem);
    if (ck_bytes(&c, z->vmem, "the backward's vmem tiles"))
        return -1;
    /* one result at a time: S, a dV product, dP, a dK product (dkv); S, dP, a dQ product (dq) */
    z->accum = AM_MAX(AM_MAX(z->dkv.a.scores, z->dkv.acc), AM_MAX(z->dq.a.scores, z->dq.acc));
    return 0;
}

/* The hbm buffers both kernels read or write. */
typedef struct bwd_hbm {
    uint64_t Q, K, V, O, dO, l, m, di, dQ, dK, dV;
} bwd_hbm;

/* A matmul on the MXU: its result tile allocated in the accumulator (named name), the two
 * operands copied in from vmem, the compute. Returns the result's id: the caller moves it out
 * (into a vmem tile or scratch) and frees it. */
static uint64_t bwd_mxu(gctx *g, uint64_t bytes, uint64_t a, uint64_t a_bytes, const char *an,
                        uint64_t b, uint64_t b_bytes, const char *bn, double flops,
                        const char *name)
{
    uint64_t r = g_alloc(g, bytes, "accumulator", 0, "%s", name);
    g_xfer(g, "vmem", "accumulator", a_bytes, 0, a, r, an);
    g_xfer(g, "vmem", "accumulator", b_bytes, 0, b, r, bn);
    g_compute(g, g_flops_ps(g, flops), 0, "%s", name);
    return r;
}


/* A step's dS, as both kernels compute it: dP = dO V^T on the MXU, the VPU's (dP - di) P, dS
 * into its vmem tile vds. */
static void bwd_ds(gctx *g, const gen_kernel_opts *o, const attn_sizes *a, uint64_t dO,
                   uint64_t v, uint64_t vds, double flops)
{
    uint64_t dP = bwd_mxu(g, a->scores, dO, a->q_tile, "mxu.do", v, a->kv_tile, "mxu.v", flops,
                          "dp");
    attn_vpu(g, o, ATTN_BWD_DS_OPS * (double)o->block_q * (double)o->block_kv, "dsoftmax");
    g_xfer(g, "accumulator", "vmem", a->p_tile, 0, dP, vds, "dsoftmax.ds");
    g_free(g, dP);
}

/* The vmem buffers of a Q block's operands, double-buffered: Q, dO, l, m and di. */
typedef struct bwd_qbufs {
    uint64_t q[2], dO[2], l[2], m[2], di[2];
} bwd_qbufs;

static void bwd_qalloc(gctx *g, const bwd_kernel *z, bwd_qbufs *b, int i)
{
    b->q[i] = g_alloc(g, z->a.q_tile, "vmem", 0, "q_tile%d", i);
    b->dO[i] = g_alloc(g, z->a.q_tile, "vmem", 0, "do_tile%d", i);
    b->l[i] = g_alloc(g, z->a.stat, "vmem", 0, "l_tile%d", i);
    b->m[i] = g_alloc(g, z->a.stat, "vmem", 0, "m_tile%d", i);
    b->di[i] = g_alloc(g, z->a.stat, "vmem", 0, "di_tile%d", i);
}

static void bwd_qfree(gctx *g, const bwd_qbufs *b, int i)
{
    g_free(g, b->di[i]);
    g_free(g, b->m[i]);
    g_free(g, b->l[i]);
    g_free(g, b->dO[i]);
    g_free(g, b->q[i]);
}

/* One Q block's operands into buffer set sl, on stream 1. */
static void bwd_qload(gctx *g, const bwd_kernel *z, const bwd_hbm *h, const bwd_qbufs *b, int sl)
{
    g_xfer(g, "hbm", "vmem", z->a.q_tile, 1, h->Q, b->q[sl], "dma.q");
    g_xfer(g, "hbm", "vmem", z->a.q_tile, 1, h->dO, b->dO[sl], "dma.do");
    g_xfer(g, "hbm", "vmem", z->row, 1, h->l, b->l[sl], "dma.l");
    g_xfer(g, "hbm", "vmem", z->row, 1, h->m, b->m[sl], "dma.m");
    g_xfer(g, "hbm", "vmem", z->row, 1, h->di, b->di[sl], "dma.di");
}

/* The dkv kernel (Pallas's _flash_attention_bwd_dkv): grid (head, K/V block c, Q block r),
 * Q innermost. Per K/V block the K and V tiles come once and dK, dV accumulate in fp32 vmem
 * scratch; per computed step the Q, dO, l, m and di blocks come (double-buffered as the
 * forward's K and V), and it computes S = Q K^T, P = exp(S - m) / l, dV += P^T dO, dP = dO V^T,
 * dS = (dP - di) P, dK += dS^T Q: four matmuls of 2 block_q block_kv d FLOPs. At the K/V
 * block's end the scratch, cast to the dtype by the VPU (no copy), goes out to dK and dV from
 * double-buffered out tiles on stream 2. With --causal the steps are those bwd_first_q starts,
 * and where it skips some, the copies Pallas's pipeline makes for them are in the trace too
 * (skip.*): the Q, dO and di index map names Q block 0 for a skipped step (fetched once, the
 * previous step having named the last one), and the l and m map names the step's own block,
 * so they are fetched on every skipped step; all go before the first computed step's. */
static void bwd_dkv(gctx *g, const bwd_kernel *z, const bwd_hbm *h)
{
    const gen_kernel_opts *o = &z->k;
    const attn_sizes *a = &z->a;
    uint64_t bq = o->block_q, bkv = o->block_kv, hd = o->head_dim, steps = a->steps;
    fputs("# kernel dkv: grid (head, K/V block, Q block)\n", g->f);
    bwd_qbufs b;
    uint64_t vk[2], vv[2], vdk[2], vdv[2];
    for (int i = 0; i < 2; i++) {
        bwd_qalloc(g, z, &b, i);
        vk[i] = g_alloc(g, a->kv_tile, "vmem", 0, "k_tile%d", i);
        vv[i] = g_alloc(g, a->kv_tile, "vmem", 0, "v_tile%d", i);
        vdk[i] = g_alloc(g, a->kv_tile, "vmem", 0, "dk_tile%d", i);
        vdv[i] = g_alloc(g, a->kv_tile, "vmem", 0, "dv_tile%d", i);
    }
    uint64_t vp = g_alloc(g, a->p_tile, "vmem", 0, "p_tile");
    uint64_t vds = g_alloc(g, a->p_tile, "vmem", 0, "ds_tile");
    uint64_t ev_load[2] = {0, 0}, ev_comp_prev = 0, ev_wb[2] = {0, 0}, dk = 0, dv = 0;
    double flops = 2.0 * (double)bq * (double)bkv * (double)hd; /* each of the 4 matmuls */
    g_xfer(g, "hbm", "vmem", a->kv_tile, 1, h->K, vk[0], "dma.k");
    g_xfer(g, "hbm", "vmem", a->kv_tile, 1, h->V, vv[0], "dma.v");
    bwd_qload(g, z, h, &b, 0);
    ev_load[0] = g_record(g, 1);
    /* s counts computed steps; blk is the K/V block (over all heads), i its step */
    uint64_t blk = 0, i = 0;
    for (uint64_t s = 0; s < steps && !g->clock_over && !g->too_long; s++) {
        int last = bwd_first_q(o, blk % a->nkv) + i + 1 == a->nq; /* the K/V block's last step */
        int slot = (int)(s & 1), ks = (int)(blk & 1);
        if (s + 1 < steps) { /* prefetch step s+1 into the other buffers */
            if (s >= 1)
                g_wait(g, ev_comp_prev, 1); /* step s-1 (and K/V block blk-1) is done with them */
            if (last) {
                g_xfer(g, "hbm", "vmem", a->kv_tile, 1, h->K, vk[!ks], "dma.k");
                g_xfer(g, "hbm", "vmem", a->kv_tile, 1, h->V, vv[!ks], "dma.v");
                uint64_t skipped = bwd_first_q(o, (blk + 1) % a->nkv);
                if (skipped) { /* Q, dO, di block 0 once, l and m per skipped step */
                    g_xfer(g, "hbm", "vmem", a->q_tile, 1, h->Q, b.q[!slot], "skip.q");
                    g_xfer(g, "hbm", "vmem", a->q_tile, 1, h->dO, b.dO[!slot], "skip.do");
                    g_xfer(g, "hbm", "vmem", z->row, 1, h->di, b.di[!slot], "skip.di");
                }
                for (uint64_t r = 0; r < skipped; r++) {
                    g_xfer(g, "hbm", "vmem", z->row, 1, h->l, b.l[!slot], "skip.l");
                    g_xfer(g, "hbm", "vmem", z->row, 1, h->m, b.m[!slot], "skip.m");
                }
            }
            bwd_qload(g, z, h, &b, !slot);
            ev_load[!slot] = g_record(g, 1);
        }
        if (i == 0) { /* the K/V block's fp32 scratch */
            dk = g_alloc(g, z->acc, "vmem", 0, "dk_acc.b%" PRIu64, blk);
            dv = g_alloc(g, z->acc, "vmem", 0, "dv_acc.b%" PRIu64, blk);
        }
        g_wait(g, ev_load[slot], 0);
        attn_p(g, o, a, b.q[slot], vk[ks], vp, flops, ATTN_BWD_P_OPS, "qk");
        uint64_t r = bwd_mxu(g, z->acc, vp, a->p_tile, "mxu.p", b.dO[slot], a->q_tile,
                             "mxu.do", flops, "dv");
        g_xfer(g, "accumulator", "vmem", z->acc, 0, r, dv, "acc.dv");
        g_free(g, r);
        bwd_ds(g, o, a, b.dO[slot], vv[ks], vds, flops);
        r = bwd_mxu(g, z->acc, vds, a->p_tile, "mxu.ds", b.q[slot], a->q_tile, "mxu.q", flops,
                    "dk");
        g_xfer(g, "accumulator", "vmem", z->acc, 0, r, dk, "acc.dk");
        g_free(g, r);
        ev_comp_prev = g_record(g, 0);
        if (last) { /* K/V block done: the scratch, cast, out to dK and dV */
            if (blk >= 2)
                g_wait(g, ev_wb[ks], 0);
            g_free(g, dv);
            g_free(g, dk);
            g_join(g, 0, 2);
            g_xfer(g, "vmem", "hbm", a->kv_tile, 2, vdk[ks], h->dK, "writeback.dk");
            g_xfer(g, "vmem", "hbm", a->kv_tile, 2, vdv[ks], h->dV, "writeback.dv");
            ev_wb[ks] = g_record(g, 2);
            blk++, i = 0;
        } else {
            i++;
        }
    }
    fputs("sync\n", g->f); /* the next kernel's buffers take these' place */
    g_free(g, vds);
    g_free(g, vp);
    for (int k = 1; k >= 0; k--) {
        g_free(g, vdv[k]);
        g_free(g, vdk[k]);
        g_free(g, vv[k]);
        g_free(g, vk[k]);
        bwd_qfree(g, &b, k);
    }
}

/* The dq kernel (Pallas's _flash_attention_bwd_dq): grid (head, Q block r, K/V block c), K/V
 * innermost, as the forward's. Per Q block the Q, dO, l, m and di blocks come once and dQ
 * accumulates in fp32 vmem scratch; per computed step the K and V tiles come (double-buffered
 * as the forward's), and it computes S = Q K^T, P, dP = dO V^T, dS = (dP - di) P and
 * dQ += dS K: three matmuls of 2 block_q block_kv d FLOPs. At the Q block's end the scratch,
 * cast by the VPU, goes out to dQ. With --causal its steps are the forward's (attn_runs), and
 * its K/V index map, as the forward's, names block 0 for a skipped step: no copy, as the next
 * Q block starts with it (a head's last Q block never skips here: attention_bwd_check refuses
 * that case), and a Q block that computed block 0 alone keeps it (attn_kv_kept). */
static void bwd_dq(gctx *g, const bwd_kernel *z, const bwd_hbm *h)
{
    const gen_kernel_opts *o = &z->k;
    const attn_sizes *a = &z->a;
    uint64_t bq = o->block_q, bkv = o->block_kv, hd = o->head_dim, steps = a->steps;
    fputs("# kernel dq: grid (head, Q block, K/V block)\n", g->f);
    bwd_qbufs b;
    uint64_t vk[2], vv[2], vdq[2];
    for (int i = 0; i < 2; i++) {
        bwd_qalloc(g, z, &b, i);
        vk[i] = g_alloc(g, a->kv_tile, "vmem", 0, "k_tile%d", i);
        vv[i] = g_alloc(g, a->kv_tile, "vmem", 0, "v_tile%d", i);
        vdq[i] = g_alloc(g, a->q_tile, "vmem", 0, "dq_tile%d", i);
    }
    uint64_t vp = g_alloc(g, a->p_tile, "vmem", 0, "p_tile");
    uint64_t vds = g_alloc(g, a->p_tile, "vmem", 0, "ds_tile");
    uint64_t ev_load[2] = {0, 0}, ev_comp_prev = 0, ev_wb[2] = {0, 0}, dq = 0;
    double flops = 2.0 * (double)bq * (double)bkv * (double)hd; /* each of the 3 matmuls */
    bwd_qload(g, z, h, &b, 0);
    g_xfer(g, "hbm", "vmem", a->kv_tile, 1, h->K, vk[0], "dma.k");
    g_xfer(g, "hbm", "vmem", a->kv_tile, 1, h->V, vv[0], "dma.v");
    ev_load[0] = g_record(g, 1);
    uint64_t blk = 0, j = 0; /* the Q block (over all heads), its step */
    int slot = 0;            /* the K/V buffers of step s, as the forward's */
    for (uint64_t s = 0; s < steps && !g->clock_over && !g->too_long; s++) {
        int last = j + 1 == attn_runs(o, a, blk % a->nq);
        int qs = (int)(blk & 1), keep = last && attn_kv_kept(o, a, blk);
        uint64_t ev_kept = 0;
        if (s + 1 < steps) {
            if (s >= 1)
                g_wait(g, ev_comp_prev, 1);
            if (last)
                bwd_qload(g, z, h, &b, !qs);
            ev_kept = attn_kv_prefetch(g, keep, a->kv_tile, h->K, h->V, vk[!slot], vv[!slot],
                                       &ev_load[!slot]);
        }
        if (j == 0)
            dq = g_alloc(g, z->acc, "vmem", 0, "dq_acc.b%" PRIu64, blk);
        g_wait(g, ev_load[slot], 0);
        if (ev_kept)
            ev_load[slot] = ev_kept;
        attn_p(g, o, a, b.q[qs], vk[slot], vp, flops, ATTN_BWD_P_OPS, "qk");
        bwd_ds(g, o, a, b.dO[qs], vv[slot], vds, flops);
        uint64_t r = bwd_mxu(g, z->acc, vds, a->p_tile, "mxu.ds", vk[slot], a->kv_tile,
                             "mxu.k", flops, "dq");
        g_xfer(g, "accumulator", "vmem", z->acc, 0, r, dq, "acc.dq");
        g_free(g, r);
        ev_comp_prev = g_record(g, 0);
        if (last) {
            if (blk >= 2)
                g_wait(g, ev_wb[qs], 0);
            g_free(g, dq);
            g_join(g, 0, 2);
            g_xfer(g, "vmem", "hbm", a->q_tile, 2, vdq[qs], h->dQ, "writeback.dq");
            ev_wb[qs] = g_record(g, 2);
            blk++, j = 0;
        } else {
            j++;
        }
        slot = keep ? slot : !slot;
    }
    fputs("sync\n", g->f);
    g_free(g, vds);
    g_free(g, vp);
    for (int k = 1; k >= 0; k--) {
        g_free(g, vdq[k]);
        g_free(g, vv[k]);
        g_free(g, vk[k]);
        bwd_qfree(g, &b, k);
    }
}

/* The backward trace's header: its options (each kernel's blocks after the shared ones where
 * they differ from them, so that a trace without them keeps its bytes), the peaks in closed
 * form and each kernel's vmem. */
static void bwd_header(FILE *f, const gen_kernel_opts *o, const bwd_sizes *z)
{
    const gen_kernel_opts *kd = &z->dkv.k, *kq = &z->dq.k;
    const attn_sizes *a = &z->dkv.a, *q = &z->dq.a;
    char line[512];
    size_t n = 0;
    const struct {
        const char *name;
        uint64_t v, shared;
    } own[] = {{"dkv-block-q", kd->block_q, o->block_q},
               {"dkv-block-kv", kd->block_kv, o->block_kv},
               {"dq-block-q", kq->block_q, o->block_q},
               {"dq-block-kv", kq->block_kv, o->block_kv}};
    line[0] = 0;
    for (size_t i = 0; i < AM_ARRAY_LEN(own); i++)
        if (own[i].v != own[i].shared)
            n += (size_t)snprintf(line + n, sizeof line - n, " --%s %" PRIu64, own[i].name,
                                  own[i].v);
    attn_header_opts(f, o, "attention-bwd", line);
    char s_dp[64];
    if (a->scores == q->scores)
        snprintf(s_dp, sizeof s_dp, "%" PRIu64, a->scores);
    else
        snprintf(s_dp, sizeof s_dp, "%" PRIu64 " (dkv), %" PRIu64 " (dq)", a->scores, q->scores);
    fprintf(f, "# peak live bytes: hbm %" PRIu64 " (Q, O, dO, dQ %" PRIu64 " each + K, V, dK, "
            "dV %" PRIu64 " each + l, m, di %" PRIu64 " each), vmem %" PRIu64 " (the larger of "
            "dkv %" PRIu64 " and dq %" PRIu64 "), accumulator %" PRIu64 " (one result at a "
            "time: S or dP %s, dK or dV %" PRIu64 ", dQ %" PRIu64 ")\n", z->hbm, a->qo, a->kv,
            z->lm, z->vmem, z->dkv.vmem, z->dq.vmem, z->accum, s_dp, z->dkv.acc, z->dq.acc);
    fprintf(f, "# vmem dkv: 2 x (Q, dO tiles %" PRIu64 " + %" PRIu64 ", l, m, di %" PRIu64
            " each, K, V, dK, dV tiles %" PRIu64 " each) + P, dS %" PRIu64 " each + dK, dV "
            "fp32 scratch %" PRIu64 " each\n", a->q_tile, a->q_tile, a->stat, a->kv_tile,
            a->p_tile, z->dkv.acc);
    fprintf(f, "# vmem dq: 2 x (Q, dO, dQ tiles %" PRIu64 " each, l, m, di %" PRIu64 " each, K, "
            "V tiles %" PRIu64 " each) + P, dS %" PRIu64 " each + dQ fp32 scratch %" PRIu64 "\n",
            q->q_tile, q->stat, q->kv_tile, q->p_tile, z->dq.acc);
}

/* A FlashAttention backward pass as Pallas's TPU kernel runs it: the dkv kernel over every
 * head, then the dq kernel over every head (two pallas_calls, one after the other). The inputs
 * are the forward's Q, K, V, O and residuals l and m, dO, and di = rowsum(dO x O), which
 * Pallas computes outside the kernels (with XLA) and passes in; l, m and di are broadcast to
 * 128 fp32 lanes per row before the kernels, so each is heads x seq_q x 512 bytes on hbm.
 * Each kernel has its own block sizes (bwd_opts), as Pallas's: the major blocks, which set its
 * grid, its DMA'd tiles and scratch and its causal skips; Pallas's inner sub-blocks
 * (block_q_dkv, block_k_dkv, block_k_dq) are loops inside a step over the tiles already in
 * vmem that move nothing and do the same FLOPs, and are not options. Until 2026-11-28 both
 * kernels ran with --block-q and --block-kv, which remain the defaults. */
static int gen_attention_bwd(const gen_kernel_opts *o, FILE *f, am_error *err)
{
    bwd_sizes z;
    memset(&z, 0, sizeof z);
    if (attention_bwd_check(o, &z, err))
        return -1;
    const attn_sizes *a = &z.dkv.a, *q = &z.dq.a;
    gctx g;
    g_init(&g, f, o->seed, o->jitter, o->tflops, o->mfu);
    g_header(&g);
    bwd_header(f, o, &z);
    if (o->causal && z.same)
        fprintf(f, "# causal: %" PRIu64 " of %" PRIu64 " steps computed per kernel, the blocks "
                "above the diagonal not computed\n", a->steps, a->units * a->nq * a->nkv);
    else if (o->causal)
        fprintf(f, "# causal: dkv %" PRIu64 " of %" PRIu64 " steps computed, dq %" PRIu64 " of %"
                PRIu64 ", the blocks above the diagonal not computed\n", a->steps,
                a->units * a->nq * a->nkv, q->steps, q->units * q->nq * q->nkv);
    fputs("# streams: 0 MXU compute, 1 DMA hbm->vmem (prefetch), 2 DMA vmem->hbm (writeback)\n", f);
    bwd_hbm h;
    h.Q = g_alloc(&g, a->qo, "hbm", 0, "Q");
    h.K = g_alloc(&g, a->kv, "hbm", 0, "K");
    h.V = g_alloc(&g, a->kv, "hbm", 0, "V");
    h.O = g_alloc(&g, a->qo, "hbm", 0, "O");
    h.dO = g_alloc(&g, a->qo, "hbm", 0, "dO");
    h.l = g_alloc(&g, z.lm, "hbm", 0, "l");
    h.m = g_alloc(&g, z.lm, "hbm", 0, "m");
    h.di = g_alloc(&g, z.lm, "hbm", 0, "di");
    h.dQ = g_alloc(&g, a->qo, "hbm", 0, "dQ");
    h.dK = g_alloc(&g, a->kv, "hbm", 0, "dK");
    h.dV = g_alloc(&g, a->kv, "hbm", 0, "dV");
    bwd_dkv(&g, &z.dkv, &h);
    if (!g.clock_over && !g.too_long)
        bwd_dq(&g, &z.dq, &h);
    uint64_t ids[] = {h.dV, h.dK, h.dQ, h.di, h.m, h.l, h.dO, h.O, h.V, h.K, h.Q};
    for (size_t i = 0; i < AM_ARRAY_LEN(ids); i++)
        g_free(&g, ids[i]);
    return g_finish(&g, "gen kernel", "raise --tflops, --mfu or --vpu-tflops, or lower --seq-q, "
                    "--seq-kv or --head-dim", "the compute durations add up to 2^63 ps (about "
                    "107 days) or more, past what a run can simulate: raise --tflops, --mfu or "
                    "--vpu-tflops, or lower --batch, --heads, --seq-q, --seq-kv or --head-dim",
                    err);
}
