/* gen.h - synthetic workload traces (`amsim gen KIND`), written in the native format.
 *
 * Each generator takes an options struct (fill it with its *_defaults function first) and a
 * FILE*, and writes one native trace (traces/FORMAT.md). Runs are reproducible: every random
 * number comes from one GSL Mersenne Twister (gsl_rng_mt19937) seeded with `seed`, so the same
 * options give the same bytes. The models behind each kind are described in gen.c. */
#ifndef AM_GEN_H
#define AM_GEN_H

#include <stdint.h>
#include <stdio.h>

#include "common.h"

/* Seeds are 0 .. GEN_SEED_MAX: GSL's mt19937 keeps the low 32 bits of a seed, so a larger one
 * would give the trace of a smaller one (4294967297 that of 1); the generators refuse it. Seed
 * 0 seeds MT19937 with 0, as its reference code does (GSL itself turns 0 into its default seed
 * 4357, which is the trace of --seed 4357); seeds 1 .. GEN_SEED_MAX are GSL's own. */
#define GEN_SEED_MAX UINT64_C(4294967295)

/* Read a seed written as decimal digits: NULL with *seed set, or why it is not one ("is not an
 * unsigned integer", "is out of range (...)"), for a message that names where it was written. */
const char *gen_seed_parse(const char *text, uint64_t *seed);

/* The input error for integer option --OPT of gen KIND written as TEXT, decimal digits past
 * 2^64 - 1: "gen train: --dp 18446744073709551616 is out of range (1 to 16777216)", the range
 * its check gives any other value out of it. Returns -1. */
int gen_u64_too_large(am_error *err, const char *kind, const char *opt, const char *text);

/* Element size of a dtype name (fp32 4, bf16 2, fp16 2); 0 when unknown. */
unsigned gen_dtype_bytes(const char *dtype);

/* ---- train: steps of a decoder-only transformer (data parallel, Adam) ---- */
typedef struct gen_train_opts {
    uint64_t layers, hidden, heads, seq, vocab;
    uint64_t micro_batch, micro_batches, steps;
    uint64_t dp;                 /* data-parallel ranks; optimizer states sharded by dp (ZeRO-1) */
    const char *dtype;           /* weights, gradients, activations: fp32 | bf16 | fp16 */
    int offload_optimizer;       /* optimizer states in host memory, Adam on the host */
    int recompute;               /* keep only layer inputs; recompute the layer in backward */
    double tflops;               /* device peak, TFLOP/s */
    double mfu;                  /* achieved fraction of the peak */
    double hbm_gbps;             /* HBM bandwidth for the (memory-bound) optimizer, GB/s */
    double host_adam_gbps;       /* host optimizer throughput (offload), GB/s of state */
    double jitter;               /* relative standard deviation of compute durations */
    uint64_t seed;
} gen_train_opts;

/* The memory the train trace asks for, in closed form (bytes; see gen.c for the formulas). */
typedef struct gen_train_totals {
    uint64_t params;             /* model parameters */
    uint64_t weights, grads;     /* hbm, persistent */
    uint64_t optimizer;          /* master + m + v (sharded by dp); on host when offloaded */
    uint64_t act_per_layer;      /* saved activations of one layer, one micro-batch */
    uint64_t transient_peak;     /* peak of the per-micro-batch buffers */
    uint64_t hbm_peak_live;      /* peak live bytes on hbm */
    uint64_t host_peak_live;     /* peak live bytes on host */
} gen_train_totals;

void gen_train_defaults(gen_train_opts *o);
/* 0, or -1 with err for options out of range. */
int gen_train_totals_of(const gen_train_opts *o, gen_train_totals *t, am_error *err);
int gen_train(const gen_train_opts *o, FILE *f, am_error *err);

/* ---- serve: LLM inference with continuous batching ---- */
typedef struct gen_serve_opts {
    uint64_t layers, hidden, kv_heads, head_dim, vocab;
    const char *dtype;
    uint64_t requests, max_batch;
    double rate;                 /* request arrivals per second (Poisson) */
    double prompt_mu, prompt_sigma; /* prompt length ~ lognormal(mu, sigma) tokens */
    double output_mu, output_sigma; /* output length ~ lognormal(mu, sigma) tokens */
    uint64_t max_prompt, max_output; /* clamps, tokens */
    uint64_t kv_block;           /* tokens per KV block; 0 = grow per token (free + alloc) */
    double tflops, mfu, hbm_gbps;
    uint64_t seed;
} gen_serve_opts;

void gen_serve_defaults(gen_serve_opts *o);
int gen_serve(const gen_serve_opts *o, FILE *f, am_error *err);

/* ---- kernel: a tiled TPU matmul C[M,N] = A[M,K] B[K,N], double-buffered, or (--op
 * attention) a FlashAttention forward pass O = softmax(Q K^T) V per head, or (--op
 * attention-bwd) its backward, dQ, dK and dV, as Pallas's dkv then dq kernels ---- */
typedef struct gen_kernel_opts {
    const char *op;              /* "matmul" (the default) | "attention" | "attention-bwd" */
    uint64_t m, n, k;            /* matmul: matrix dimensions, elements */
    uint64_t tm, tn, tk;         /* matmul: tile dimensions, elements */
    uint64_t seq_q, seq_kv;      /* attention: rows of Q and O, of K and V */
    uint64_t head_dim;           /* attention: d, the columns of Q, K, V and O */
    uint64_t block_q, block_kv;  /* attention: rows per Q (and O) block, per K and V block */
    uint64_t dkv_block_q, dkv_block_kv; /* attention-bwd: the dkv kernel's blocks, 0 = the above */
    uint64_t dq_block_q, dq_block_kv;   /* attention-bwd: the dq kernel's blocks, 0 = the above */
    uint64_t heads;              /* attention: heads, one after the other */
    uint64_t batch;              /* attention: batch elements, one after the other */
    uint64_t block_b;            /* attention: batch elements a forward tile (Pallas's block_b) */
    int causal;                  /* attention: a decoder's causal mask, blocks above it skipped */
    double vpu_tflops;           /* attention: VPU rate charged for the softmax, 0 = not charged */
    const char *dtype;           /* A, B and C (Q, K, V and O); the accumulator is fp32 */
    double tflops, mfu;
    double jitter;
    uint64_t seed;
} gen_kernel_opts;

void gen_kernel_defaults(gen_kernel_opts *o);
int gen_kernel(const gen_kernel_opts *o, FILE *f, am_error *err);

/* `amsim gen KIND [options] -o OUT` (argv without the command name); the exit status. */
int cmd_gen(int argc, char **argv);

/* Whether `amsim gen KIND` has the long option name (without "--"): 1 when it takes a value,
 * 0 for a flag, -1 when KIND has no such option, -2 when there is no such KIND. For a sweep's
 * generate.args, checked at load. */
int gen_option_kind(const char *kind, const char *name);

/* The number rule (no '+', no leading zero before another digit; cfg_number_form) for value v
 * of `amsim gen KIND --NAME`: -1 with the message gen gives ("--tflops takes a number, not
 * '0197': leading zeros ...") in msg when NAME takes a number that v writes in a refused form,
 * else 0. For a sweep's generate.args, checked at load. */
int gen_value_form(const char *kind, const char *name, const char *v, char *msg, size_t n);
/* The kinds `amsim gen` has (train, serve, kernel), NULL-terminated. */
const char *const *gen_kinds(void);

#endif
