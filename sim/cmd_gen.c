/* cmd_gen.c - `amsim gen KIND [options] -o OUT`: option tables -> gen.c generators.
 *
 * Each kind has a table of options (name, type, field offset, unit, help); --help prints the
 * table with the defaults the *_defaults function sets. Output is written atomically
 * (outfile.h); "-o -" writes to standard output. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "config.h"
#include "gen.h"
#include "outfile.h"
#include "units.h"

typedef enum { GO_U64, GO_DBL, GO_STR, GO_FLAG } go_type;

typedef struct gen_opt {
    const char *name;   /* without the leading "--" */
    go_type type;
    size_t off;         /* offset in the options struct */
    const char *unit;
    const char *help;
} gen_opt;

#define TO(f) offsetof(gen_train_opts, f)
static const gen_opt train_opts[] = {
    {"layers", GO_U64, TO(layers), "", "transformer layers"},
    {"hidden", GO_U64, TO(hidden), "", "hidden size h"},
    {"heads", GO_U64, TO(heads), "", "attention heads a (divides hidden)"},
    {"seq", GO_U64, TO(seq), "tokens", "sequence length s"},
    {"vocab", GO_U64, TO(vocab), "tokens", "vocabulary V (embedding tied with the head)"},
    {"micro-batch", GO_U64, TO(micro_batch), "sequences", "micro-batch size b"},
    {"micro-batches", GO_U64, TO(micro_batches), "", "micro-batches per step (gradient accumulation)"},
    {"steps", GO_U64, TO(steps), "", "training steps"},
    {"dp", GO_U64, TO(dp), "ranks", "data-parallel ranks: optimizer states / dp (ZeRO-1), all-reduce"},
    {"dtype", GO_STR, TO(dtype), "", "fp32 | bf16 | fp16 (weights, grads, activations)"},
    {"offload-optimizer", GO_FLAG, TO(offload_optimizer), "", "optimizer states and Adam on the host"},
    {"recompute", GO_FLAG, TO(recompute), "", "keep layer inputs only, recompute in backward"},
    {"tflops", GO_DBL, TO(tflops), "TFLOP/s", "device peak (H100 SXM dense BF16, NVIDIA datasheet)"},
    {"mfu", GO_DBL, TO(mfu), "fraction", "achieved fraction of the peak"},
    {"hbm-gbps", GO_DBL, TO(hbm_gbps), "GB/s", "HBM bandwidth for memory-bound ops (H100: 3350)"},
    {"host-adam-gbps", GO_DBL, TO(host_adam_gbps), "GB/s", "host Adam throughput (assumption)"},
    {"jitter", GO_DBL, TO(jitter), "fraction", "std deviation of compute durations (seeded)"},
    {"seed", GO_U64, TO(seed), "", "gsl_rng_mt19937 seed, 0 to 4294967295"},
    {NULL, 0, 0, NULL, NULL}};
#undef TO

#define SO(f) offsetof(gen_serve_opts, f)
static const gen_opt serve_opts[] = {
    {"layers", GO_U64, SO(layers), "", "transformer layers"},
    {"hidden", GO_U64, SO(hidden), "", "hidden size h"},
    {"kv-heads", GO_U64, SO(kv_heads), "", "key/value heads (GQA)"},
    {"head-dim", GO_U64, SO(head_dim), "", "dimension per head"},
    {"vocab", GO_U64, SO(vocab), "tokens", "vocabulary"},
    {"dtype", GO_STR, SO(dtype), "", "fp32 | bf16 | fp16 (weights and KV cache)"},
    {"requests", GO_U64, SO(requests), "", "number of requests"},
    {"max-batch", GO_U64, SO(max_batch), "requests", "running requests at most (continuous batching)"},
    {"rate", GO_DBL, SO(rate), "1/s", "mean arrival rate (Poisson)"},
    {"prompt-mu", GO_DBL, SO(prompt_mu), "ln tokens", "prompt length lognormal mu"},
    {"prompt-sigma", GO_DBL, SO(prompt_sigma), "", "prompt length lognormal sigma"},
    {"output-mu", GO_DBL, SO(output_mu), "ln tokens", "output length lognormal mu"},
    {"output-sigma", GO_DBL, SO(output_sigma), "", "output length lognormal sigma"},
    {"max-prompt", GO_U64, SO(max_prompt), "tokens", "prompt length clamp"},
    {"max-output", GO_U64, SO(max_output), "tokens", "output length clamp"},
    {"kv-block", GO_U64, SO(kv_block), "tokens", "KV block size; 0 = grow per token (free + alloc)"},
    {"tflops", GO_DBL, SO(tflops), "TFLOP/s", "device peak (H100 SXM dense BF16, NVIDIA datasheet)"},
    {"mfu", GO_DBL, SO(mfu), "fraction", "achieved fraction of the peak"},
    {"hbm-gbps", GO_DBL, SO(hbm_gbps), "GB/s", "HBM bandwidth (decode is memory bound)"},
    {"seed", GO_U64, SO(seed), "", "gsl_rng_mt19937 seed, 0 to 4294967295"},
    {NULL, 0, 0, NULL, NULL}};
#undef SO

#define KO(f) offsetof(gen_kernel_opts, f)
static const gen_opt kernel_opts[] = {
    {"op", GO_STR, KO(op), "", "matmul | attention | attention-bwd (FlashAttention fwd, bwd)"},
    {"m", GO_U64, KO(m), "elements", "matmul: rows of A and C"},
    {"n", GO_U64, KO(n), "elements", "matmul: columns of B and C"},
    {"k", GO_U64, KO(k), "elements", "matmul: columns of A, rows of B"},
    {"tm", GO_U64, KO(tm), "elements", "matmul: tile rows"},
    {"tn", GO_U64, KO(tn), "elements", "matmul: tile columns"},
    {"tk", GO_U64, KO(tk), "elements", "matmul: tile depth"},
    {"seq-q", GO_U64, KO(seq_q), "tokens", "attention: rows of Q and O"},
    {"seq-kv", GO_U64, KO(seq_kv), "tokens", "attention: rows of K and V"},
    {"head-dim", GO_U64, KO(head_dim), "elements", "attention: d, columns of Q, K, V, O"},
    {"block-q", GO_U64, KO(block_q), "tokens", "attention: Q block rows (divides --seq-q)"},
    {"block-kv", GO_U64, KO(block_kv), "tokens", "attention: K/V block rows (divides --seq-kv)"},
    {"dkv-block-q", GO_U64, KO(dkv_block_q), "tokens", "attention-bwd: dkv kernel's Q block, 0: --block-q"},
    {"dkv-block-kv", GO_U64, KO(dkv_block_kv), "tokens", "attention-bwd: dkv's K/V block, 0: --block-kv"},
    {"dq-block-q", GO_U64, KO(dq_block_q), "tokens", "attention-bwd: dq kernel's Q block, 0: --block-q"},
    {"dq-block-kv", GO_U64, KO(dq_block_kv), "tokens", "attention-bwd: dq's K/V block, 0: --block-kv"},
    {"heads", GO_U64, KO(heads), "", "attention: heads, one after the other"},
    {"batch", GO_U64, KO(batch), "", "attention: batch elements, one after the other"},
    {"block-b", GO_U64, KO(block_b), "", "attention: batch elements a tile (divides --batch)"},
    {"causal", GO_FLAG, KO(causal), "", "attention: causal mask, K/V blocks above it skipped"},
    {"vpu-tflops", GO_DBL, KO(vpu_tflops), "TFLOP/s", "attention: softmax's VPU rate (0: not charged)"},
    {"dtype", GO_STR, KO(dtype), "", "fp32 | bf16 | fp16 (A, B, C or Q, K, V, O; acc. fp32)"},
    {"tflops", GO_DBL, KO(tflops), "TFLOP/s", "peak: 4 MXU x 128x128 x 2 x 1.5 GHz (TPU v5e)"},
    {"mfu", GO_DBL, KO(mfu), "fraction", "achieved fraction of the peak"},
    {"jitter", GO_DBL, KO(jitter), "fraction", "std deviation of compute durations (seeded)"},
    {"seed", GO_U64, KO(seed), "", "gsl_rng_mt19937 seed, 0 to 4294967295"},
    {NULL, 0, 0, NULL, NULL}};
#undef KO

/* The kernel options of one --op: given with the other op they are a usage error, not options
 * silently ignored. The others (--op, --dtype, --tflops, ...) belong to both. "attention"
 * names both attention ops, forward and backward (op_family), unless only is set: then the
 * forward alone (--block-b: Pallas's backward kernels take one batch element a step);
 * "attention-bwd" the backward alone (each of its kernels' own block sizes). */
static const struct op_opt {
    const char *name, *op;
    int only; /* op exactly, not its family */
} op_opts[] = {{"m", "matmul", 0},          {"n", "matmul", 0},
               {"k", "matmul", 0},          {"tm", "matmul", 0},
               {"tn", "matmul", 0},         {"tk", "matmul", 0},
               {"seq-q", "attention", 0},   {"seq-kv", "attention", 0},
               {"head-dim", "attention", 0}, {"block-q", "attention", 0},
               {"block-kv", "attention", 0}, {"heads", "attention", 0},
               {"causal", "attention", 0},  {"vpu-tflops", "attention", 0},
               {"batch", "attention", 0},   {"block-b", "attention", 1},
               {"dkv-block-q", "attention-bwd", 0}, {"dkv-block-kv", "attention-bwd", 0},
               {"dq-block-q", "attention-bwd", 0},  {"dq-block-kv", "attention-bwd", 0}};

/* The family of options --op OP takes: attention-bwd takes the forward's. */
static const char *op_family(const char *op)
{
    return strcmp(op, "attention-bwd") ? op : "attention";
}

/* The --op option NAME of kind KIND belongs to, or NULL for every op (and other kinds); *only
 * set when it is that op's alone, not its family's. */
static const char *op_of(const char *kind, const char *name, int *only)
{
    *only = 0;
    if (strcmp(kind, "kernel"))
        return NULL;
    for (size_t k = 0; k < AM_ARRAY_LEN(op_opts); k++)
        if (!strcmp(op_opts[k].name, name)) {
            *only = op_opts[k].only;
            return op_opts[k].op;
        }
    return NULL;
}

/* Whether --op OP is one the table knows (its family owns options there). */
static int op_known(const char *op)
{
    for (size_t k = 0; k < AM_ARRAY_LEN(op_opts); k++)
        if (!strcmp(op_opts[k].op, op_family(op)))
            return 1;
    return 0;
}

/* The kinds amsim gen runs, in its usage's order: a sweep's generate.kind is checked against
 * them when the sweep is read. */
static const char *const kind_names[] = {"train", "serve", "kernel", NULL};
/* each kind's options, parallel to kind_names */
static const gen_opt *const kind_opts[] = {train_opts, serve_opts, kernel_opts, NULL};

const char *const *gen_kinds(void) { return kind_names; }

/* The number rule (cfg_number_form: no '+', no leading zero before another digit) for value v
 * of numeric option t: -1 with msg "--NAME takes ..., not 'V': WHY" when v is a number the
 * option reads (digits for an integer, units_real for a real) written in a form every other
 * number refuses, else 0 (other refusals are gen_parse's own messages). Until 2026-11-27 the
 * real options took '--tflops 0197' and '--mfu +0.8'. */
static int value_form(const gen_opt *t, const char *v, char *msg, size_t n)
{
    const char *form = cfg_number_form(v);
    char shown[CLI_SHOWN];
    double x;
    if (!form)
        return 0;
    if (t->type == GO_U64 && strspn(v, "0123456789") == strlen(v))
        snprintf(msg, n, "--%s takes an unsigned integer, not '%s': %s", t->name,
                 am_escape_name(shown, sizeof shown, v), form);
    else if (t->type == GO_DBL && units_real(v, &x, NULL) != -1)
        snprintf(msg, n, "--%s takes a number, not '%s': %s", t->name,
                 am_escape_name(shown, sizeof shown, v), form);
    else
        return 0;
    return -1;
}

int gen_value_form(const char *kind, const char *name, const char *v, char *msg, size_t n)
{
    for (int k = 0; kind_names[k]; k++)
        if (!strcmp(kind, kind_names[k]))
            for (const gen_opt *t = kind_opts[k]; t->name; t++)
                if (!strcmp(t->name, name))
                    return value_form(t, v, msg, n);
    return 0;
}

int gen_option_kind(const char *kind, const char *name)
{
    const gen_opt *t = NULL;
    for (int k = 0; kind_names[k] && !t; k++)
        if (!strcmp(kind, kind_names[k]))
            t = kind_opts[k];
    if (!t)
        return -2;
    if (!strcmp(name, "out"))
        return 1;
    if (!strcmp(name, "help"))
        return 0;
    for (; t->name; t++)
        if (!strcmp(t->name, name))
            return t->type != GO_FLAG;
    return -1;
}

static void gen_usage_main(FILE *f)
{
    fprintf(f, "usage: amsim gen KIND [options] -o OUT\n"
               "kinds:\n"
               "  train    training steps of a decoder-only transformer (Adam, data parallel)\n"
               "  serve    LLM inference: Poisson arrivals, growing KV caches\n"
               "  kernel   tiled TPU matmul or (--op attention, attention-bwd) FlashAttention\n"
               "           forward or backward, HBM -> VMEM -> accumulator, double-buffered\n"
               "  -o, --out OUT   the trace written (\"-\": standard output; required)\n"
               "options: amsim gen KIND --help\n");
}

/* The ranges gen.c checks (input errors naming the option), printed under each table. */
static const char *gen_limits(const char *kind)
{
    if (!strcmp(kind, "train"))
        return "ranges: --layers 1 to 2^20; --hidden, --heads, --seq, --micro-batch,\n"
               "  --micro-batches, --steps, --dp 1 to 2^24; --vocab 1 to 2^32; --tflops and the\n"
               "  bandwidths above 0; --mfu above 0, at most 1; --jitter 0 to 0.5; --steps x\n"
               "  --micro-batches x --layers at most 2 x 10^6; --seq^2 x --micro-batch x --heads\n"
               "  + --hidden^2 x --layers + --seq x --micro-batch x --vocab at most 1.5625 x\n"
               "  10^16 (a bound on the model's scale, before the sizes are computed); every\n"
               "  buffer and the peak on hbm at most 4 EiB (2^62 bytes); every duration and their\n"
               "  sum below 2^63 ps (about 107 days)";
    if (!strcmp(kind, "serve"))
        return "ranges: --layers 1 to 2^20; --hidden, --kv-heads, --head-dim 1 to 2^24; --vocab\n"
               "  1 to 2^32; --requests, --max-batch 1 to 10^7; --max-prompt 1 to 2^24 and\n"
               "  --max-output 1 to 2^20 (above every released model's 10M-token context and\n"
               "  128K-token output); --kv-block 0 to 2^30; --rate, --tflops, --hbm-gbps above\n"
               "  0; sigmas 0 or above; --mfu above 0, at most 1; --layers x --hidden^2 at most\n"
               "  10^15 (a bound on the model's scale); the weights, a KV block (or a\n"
               "  request's cache with --kv-block 0) and a workspace at most 4 EiB (2^62\n"
               "  bytes); the requests drawn at most 10^8 trace events (about 3 GB: 4 per output\n"
               "  token, 2 per KV block or with --kv-block 0 per output token); every duration,\n"
               "  arrival and the clock (an iteration's at=) below 2^63 ps (about 107 days)";
    return "ranges: dimensions and tiles 1 or more; --tflops above 0; --mfu above 0, at most\n"
           "  1; --jitter 0 to 0.5; at most 10^7 tile steps; A, B, C and an accumulator tile\n"
           "  at most 4 EiB (2^62 bytes); every duration and their sum below 2^63 ps (about\n"
           "  107 days). attention: --heads, --batch 1 to 2^24; --block-q at most --seq-q and\n"
           "  dividing it, --block-kv the same for --seq-kv, --block-b for --batch (no ragged\n"
           "  last block); at most 10^7 steps (--batch x --heads x Q blocks x K/V blocks, each\n"
           "  batch element's counted; with --causal those computed); Q, K, V, O, their sum\n"
           "  (hbm's peak) and the tiles at most 4 EiB; --vpu-tflops 0 (softmax not charged)\n"
           "  or above; --causal not with --block-q 1. attention-bwd: the same, its\n"
           "  two kernels' steps together at most 10^7, Q, K, V, O, dO, dQ, dK, dV, l, m, di\n"
           "  together (hbm's peak) at most 4 EiB; --causal not with --seq-kv at least --seq-q\n"
           "  + --block-kv - 1 (a K/V block with no row below the diagonal). Its kernels' own\n"
           "  blocks (--dkv-block-q ... --dq-block-kv; 0: --block-q or --block-kv, as until\n"
           "  2026-11-28) are checked as --block-q and --block-kv, each in its kernel.\n"
           "  The matmul's options (--m ... --tk) are refused with --op attention and\n"
           "  attention-bwd, the attention's (--seq-q ... --vpu-tflops) with --op matmul,\n"
           "  --block-b with attention-bwd (Pallas's backward kernels take one batch element\n"
           "  a step), and the backward's own blocks with --op matmul and attention";
}

static void gen_usage(FILE *f, const char *kind, const gen_opt *t, const void *defs)
{
    fprintf(f, "usage: amsim gen %s [options] -o OUT   (OUT \"-\": standard output)\n", kind);
    for (; t->name; t++) {
        const char *p = (const char *)defs + t->off;
        char def[64];
        switch (t->type) {
        case GO_U64: {
            uint64_t v;
            memcpy(&v, p, sizeof v);
            snprintf(def, sizeof def, "%llu", (unsigned long long)v);
            break;
        }
        case GO_DBL: {
            double v;
            memcpy(&v, p, sizeof v);
            snprintf(def, sizeof def, "%g", v);
            break;
        }
        case GO_STR: {
            const char *v;
            memcpy(&v, p, sizeof v);
            snprintf(def, sizeof def, "%s", v);
            break;
        }
        default:
            snprintf(def, sizeof def, "off");
        }
        char opt[48];
        snprintf(opt, sizeof opt, "--%s%s", t->name, t->type == GO_FLAG ? "" : " X");
        fprintf(f, "  %-22s %-9s default %-8s %s\n", opt, t->unit, def, t->help);
    }
    fprintf(f, "  %-22s %-9s %-16s %s\n", "-o, --out OUT", "", "(required)",
            "the trace written, atomically (\"-\": standard output)");
    fprintf(f, "numbers: integer options take decimal digits only; the others a decimal number\n"
               "  (1e-3 works), not hex, inf or nan\n");
    fprintf(f, "%s\n", gen_limits(kind));
}

/* Parse argv into opts; 0 ok, 1 usage error, -1 help printed. */
static int gen_parse(int argc, char **argv, const char *kind, const gen_opt *table,
                     void *opts_struct, const void *defs, const char **out)
{
    const char *given[64] = {0}; /* each table option's value as given (tables hold < 64) */
    char prog[64];
    snprintf(prog, sizeof prog, "amsim gen %s", kind);
    /* the kind's table, then -o and -h, read by cli_next */
    cli_opt opts[64 + 3];
    int n = 0;
    for (; table[n].name && n < 64; n++) /* the tables hold fewer */
        opts[n] = (cli_opt){table[n].name, 0, table[n].type != GO_FLAG ? CLI_VALUE : CLI_FLAG};
    const int o_out = n, o_help = n + 1;
    opts[o_out] = (cli_opt){"out", 'o', CLI_PATH};
    opts[o_help] = (cli_opt){"help", 'h', 0};
    opts[n + 2] = (cli_opt){NULL, 0, 0};
    cli cl;
    cli_init(&cl, prog, argc, argv);
    const char *opt, *v;
    /* a value as its message quotes it, through am_escape_name: an escape or a newline in it
     * shows as \xHH (until 2026-11-27 it was echoed raw) */
    char shown[CLI_SHOWN];
    for (int k; (k = cli_next(&cl, opts, &opt, &v)) != CLI_END;) {
        if (k == CLI_ERROR)
            return 1;
        if (k == CLI_OPERAND) /* KIND came first */
            return cli_unexpected(&cl, v), 1;
        if (k == o_help) {
            gen_usage(stdout, kind, table, defs);
            return -1;
        }
        if (k == o_out) {
            if (cli_once(prog, opt, out, v, NULL) != 0)
                return 1;
            continue;
        }
        const gen_opt *t = &table[k];
        char *p = (char *)opts_struct + t->off;
        if (t->type == GO_FLAG) {
            int one = 1;
            memcpy(p, &one, sizeof one);
            given[k] = ""; /* for the check of the other --op's options below (given twice is
                            * still given once) */
            continue;
        }
        if (cli_once(prog, opt, &given[k], v, NULL) != 0)
            return 1;
        if (t->type == GO_U64) {
            /* decimal digits only: strtoull also skipped leading blanks and negated a minus
             * sign (' -18446744073709551615' was read as 1) */
            uint64_t u;
            /* in a config number's form (cfg_number_form): until 2026-11-27 '--seed 01' was
             * seed 1, where a sweep's seeds: refuse 01 (YAML 1.1 reads it as octal) */
            char msg[256];
            if (value_form(t, v, msg, sizeof msg) != 0) {
                am_msg("amsim gen %s: %s\n", kind, msg);
                return 1;
            }
            if (units_u64(v, strlen(v), &u) != 0) {
                /* digits past 2^64 - 1: out of the option's range, as 2^64 - 1 itself is (until
                 * 2026-11-27 "takes an unsigned integer") */
                am_error big = {0};
                if (v[0] && strspn(v, "0123456789") == strlen(v) &&
                    gen_u64_too_large(&big, kind, t->name, v) != 0)
                    am_msg("amsim %s\n", big.msg);
                else
                    am_msg("amsim gen %s: --%s takes an unsigned integer, not '%s'\n", kind,
                           t->name, am_escape_name(shown, sizeof shown, v));
                return 1;
            }
            memcpy(p, &u, sizeof u);
        } else if (t->type == GO_DBL) {
            /* a plain decimal, optionally signed, with an exponent: strtod also took leading
             * blanks, hex ('0x10' was 16), inf and nan */
            double x;
            const char *why = NULL;
            int rc = units_real(v, &x, &why);
            /* a nonzero value too small for a double would be 0, which it is not, in any form:
             * until 2026-11-27 --jitter 1e-400 was taken for 0 (while --tflops 1e400 was
             * refused), and later that day still the plain decimal 0.000...0001 with 400 zeros
             * (gen serve --rate called it "--rate 0 is out of range") */
            if (rc == -2) {
                am_msg("amsim gen %s: --%s %s is " UNITS_REAL_TINY_WHY "\n", kind, t->name,
                       am_escape_name(shown, sizeof shown, v));
                return 1;
            }
            if (rc != 0) { /* with why: until 2026-11-28 1.8e308 was "not a number" alone */
                am_msg("amsim gen %s: --%s takes a number, not '%s' (%s)\n", kind, t->name,
                       am_escape_name(shown, sizeof shown, v), why);
                return 1;
            }
            char msg[256];
            if (value_form(t, v, msg, sizeof msg) != 0) { /* as an integer option's '05' */
                am_msg("amsim gen %s: %s\n", kind, msg);
                return 1;
            }
            memcpy(p, &x, sizeof x);
        } else {
            memcpy(p, &v, sizeof v);
        }
    }
    /* an option of the other --op (kernel): the table says which op it belongs to */
    const char *op = NULL;
    for (int k = 0; table[k].name; k++)
        if (!strcmp(table[k].name, "op"))
            memcpy(&op, (const char *)opts_struct + table[k].off, sizeof op);
    if (op && !op_known(op))
        op = NULL; /* an unknown op is the generator's error ("expected matmul, attention ..."),
                    * not the options' */
    for (int k = 0; op && table[k].name; k++) {
        int only;
        const char *of = op_of(kind, table[k].name, &only);
        if (given[k] && of && (only || strcmp(of, op_family(op))) && strcmp(of, op)) {
            am_msg("amsim gen %s: --%s is an option of --op %s, not of --op %s\n", kind,
                   table[k].name, of, op);
            return 1;
        }
    }
    if (!*out) {
        am_msg("amsim gen %s: -o OUT is required (see amsim gen %s --help)\n", kind, kind);
        return 1;
    }
    return 0;
}

int cmd_gen(int argc, char **argv)
{
    if (argc < 1 || !strcmp(argv[0], "-h") || !strcmp(argv[0], "--help")) {
        gen_usage_main(argc ? stdout : stderr);
        return argc ? 0 : 1;
    }
    const char *kind = argv[0], *out = NULL;
    gen_train_opts to, tdef;
    gen_serve_opts so, sdef;
    gen_kernel_opts ko, kdef;
    gen_train_defaults(&to);
    gen_train_defaults(&tdef);
    gen_serve_defaults(&so);
    gen_serve_defaults(&sdef);
    gen_kernel_defaults(&ko);
    gen_kernel_defaults(&kdef);
    int pr;
    if (!strcmp(kind, "train"))
        pr = gen_parse(argc - 1, argv + 1, kind, train_opts, &to, &tdef, &out);
    else if (!strcmp(kind, "serve"))
        pr = gen_parse(argc - 1, argv + 1, kind, serve_opts, &so, &sdef, &out);
    else if (!strcmp(kind, "kernel"))
        pr = gen_parse(argc - 1, argv + 1, kind, kernel_opts, &ko, &kdef, &out);
    else {
        char shown[CLI_SHOWN];
        am_msg("amsim gen: unknown kind '%s'\n", am_escape_name(shown, sizeof shown, kind));
        gen_usage_main(stderr);
        return 1;
    }
    if (pr)
        return pr < 0 ? 0 : 1;
    am_error err = {0};
    outfile *o = NULL;
    int rc = out_open(&o, out, &err);
    if (rc == 0) {
        FILE *f = out_fp(o);
        rc = !strcmp(kind, "train") ? gen_train(&to, f, &err)
           : !strcmp(kind, "serve") ? gen_serve(&so, f, &err)
                                    : gen_kernel(&ko, f, &err);
    }
    if (rc == 0) {
        rc = out_commit(o, &err);
        o = NULL;
    }
    out_abort(o);
    if (rc) {
        /* the generators' errors ("gen KIND: ...") get the option errors' prefix, "amsim gen
         * KIND: " (until 2026-11-27 "amsim: gen KIND: "); an output file's, as every command
         * gives it, "amsim: " */
        char pre[64];
        size_t pl = (size_t)snprintf(pre, sizeof pre, "gen %s: ", kind);
        const char *msg = err.msg[0] ? err.msg : "gen failed";
        am_msg("amsim%s%s\n", strncmp(msg, pre, pl) == 0 ? " " : ": ", msg);
        return err.status ? err.status : AM_EINTERNAL;
    }
    return 0;
}
