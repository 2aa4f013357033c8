/* config.h - YAML configs -> validated config structs.
 *
 * Loading: the YAML file (libyaml) becomes a tree of nodes that remember file:line:column;
 * `device: NAME` merges configs/devices/NAME.yaml underneath it key by key (the user's keys win);
 * `--set PATH=VALUE` overrides are applied on top; then the tree is validated against the
 * schema (unknown keys and wrong types are errors naming file:line:column and the key path) and
 * converted into the structs below. The effective config (merged tree with defaults filled in)
 * can be written back as YAML.
 *
 * Schema (version 1):
 *   version: 1                       required
 *   device: NAME                     optional preset from configs/devices/
 *   preset_merged: true|false        true: the preset is already in the file (an effective
 *                                    config's), device only names it: nothing is looked up,
 *                                    an override cannot name another device, and a memory
 *                                    switched to another policy drops the file's allocator keys
 *   default_memory: NAME             level that traces use when they name none (default: first)
 *   memories:                        map name -> level (at least one)
 *     NAME:
 *       kind: hbm|host|host_pinned|vmem|smem|cmem|accumulator|shared|other   (default other)
 *       capacity: SIZE               required
 *       granularity: SIZE            device allocation granularity (default 1B)
 *       pad_requests_to: SIZE        every request's bytes rounded up to a multiple of this (a
 *                                    power of two) before the allocator sees it: arrays padded
 *                                    to whole tiles, as TPU VMEM pads them (default 1B: none)
 *       transfer_granule: SIZE       a transfer to or from this level moves whole multiples of
 *                                    this (a power of two): charged for its bytes rounded up,
 *                                    as TPU VMEM DMA is 4 KiB granular (default 1B: as written)
 *       allocator:                   (default policy best_fit)
 *         policy: NAME               any registered policy (models/policies.c)
 *         ...                        that policy's keys (models/alloc_*.c option tables); keys of
 *                                    other registered policies are accepted and ignored, so that
 *                                    `--policy` and `compare` can switch policies (their values
 *                                    are still checked as those policies read them)
 *       on_oom: fail|spill_to_host   spill_to_host evicts buffers to a host level (default fail);
 *                                    it, compact and host_roundtrip need the link their copies
 *                                    take (memory <-> host, memory -> itself), else refused
 *       spill_victim: lru|largest    which buffers go first (default lru)
 *       spill_host: LEVEL            default: the first host or host_pinned memory
 *       defrag:
 *         mode: none|compact|host_roundtrip   (default none)
 *         trigger: on_oom|threshold|every      (default on_oom; a failed request
 *                                    defragments under every trigger, threshold and every
 *                                    also run after allocations that succeed)
 *         threshold: FRACTION        external fragmentation that triggers (default 0.5)
 *         every: N                   allocations between runs (EVERY; default 1000)
 *         host: LEVEL                host_roundtrip: host memory (default: the first host one)
 *   links:                           map name -> link
 *     NAME:
 *       from: LEVEL, to: LEVEL       required
 *       bandwidth: BANDWIDTH         peak, required
 *       efficiency: FRACTION         achieved / peak (default 1)
 *       latency: TIME                per transfer (default 0)
 *       concurrency: N               transfers in flight at once, others queue (default 0 = no limit)
 *       duplex: BOOL                 true: each direction has the full bandwidth (default true);
 *                                    false: both directions share one channel (reported per
 *                                    direction, and as FROM<>TO for the channel)
 *       energy_per_byte: REAL        picojoules per byte moved, 0 to 1e12 (default 0: unknown)
 *   transfer_guard:                  jax.transfer_guard per direction, for implicit transfers:
 *     host_to_device: allow|log|disallow|log_explicit|disallow_explicit   (default allow)
 *     device_to_host: ...            device_to_device: ...
 *   trace:
 *     lifetimes: half_open|inclusive (lifetime CSVs; default half_open)
 *     time_unit: TIME                one tick of lifetime CSV time and unitless trace times (default 1ns)
 *   engine:
 *     queue_depth: N                 operations a stream holds before the host blocks (default 1024)
 *   report:
 *     timeline_interval: TIME        sampling period for --timeline (default 0 = every event);
 *                                    T > 0: per level, its last row in each period of T
 *     max_oom_events: N              OOM events listed in the JSON (default 16)
 */
#ifndef AM_CONFIG_H
#define AM_CONFIG_H

#include <stdint.h>
#include <stdio.h>

#include "../models/alloc.h"
#include "common.h"

#define CFG_MAX_LEVELS 16
#define CFG_MAX_LINKS 32
#define CFG_NAME_MAX 64
/* The longest list of level names "hbm, host, ..." with its NUL: every level (CFG_MAX_LEVELS),
 * each name of up to CFG_NAME_MAX - 1 characters with its ", " (the first's two spare bytes
 * hold the NUL). Lists of levels are sized so and never cut (until 2026-11-27 mincap's and the
 * reference run's held 256 bytes: six 63-character names lost the last two and cut a third). */
#define CFG_LEVEL_LIST_MAX (CFG_MAX_LEVELS * (CFG_NAME_MAX + 1))

/* A node of the YAML tree. */
typedef enum { CFG_SCALAR, CFG_MAP, CFG_SEQ } cfg_kind;
typedef struct cfg_node cfg_node;
struct cfg_node {
    cfg_kind kind;
    char *value;          /* CFG_SCALAR: text */
    char *key;            /* key in the parent map, or NULL */
    const char *file;     /* where it was written (interned, lives as long as the tree) */
    unsigned long line, col; /* 1-based; 0 for nodes made by --set or defaults */
    cfg_node *child;      /* first child (MAP/SEQ) */
    cfg_node *next;       /* next sibling */
    /* 1: a map made by walking a --set path through a key nobody wrote (memories.X.capacity=V
     * with no memory X in the config or its preset); a memory or link that is only this is a
     * typo, refused with "did you mean" (see build_levels); CFG_MADE_BY_SET for a --set,
     * CFG_MADE_BY_PLACED_SET for an override with a file (a sweep's set: or axes), whose
     * message gives the sweep's form */
    int by_set_path;
    /* CFG_SCALAR written in any style but plain (quoted '~' or "null", a block |- or >-): a
     * string to YAML, never its null (as_map); until 2026-11-28 a block scalar was null */
    int nonplain;
    /* where its key is written when not at line:col: a placed override's value (a sweep's
     * set: or axes value) is placed at the value, its PATH's last key elsewhere; 0 otherwise */
    unsigned long kline, kcol;
};

enum { CFG_MADE_BY_SET = 1, CFG_MADE_BY_PLACED_SET = 2 };

typedef struct cfg_level {
    char name[CFG_NAME_MAX];
    char kind[CFG_NAME_MAX];
    uint64_t capacity;    /* bytes */
    uint64_t granularity; /* bytes */
    uint64_t pad_requests_to; /* bytes, a power of two (1: requests as written) */
    uint64_t transfer_granule; /* bytes, a power of two (1: transfers as written) */
    const struct alloc_ops *policy;
    void *policy_opts;    /* the policy's options struct (policy->opts_size bytes) */
    const cfg_node *node; /* the level's map, for positions in messages */
    int on_oom;           /* CFG_ON_OOM_FAIL or CFG_ON_OOM_SPILL */
    int spill_victim;     /* CFG_VICTIM_LRU or CFG_VICTIM_LARGEST */
    int spill_host;       /* level that takes spilled buffers, -1 = none */
    struct {
        int mode;         /* CFG_DEFRAG_NONE, _COMPACT, _HOST_ROUNDTRIP */
        int trigger;      /* CFG_TRIGGER_ON_OOM, _THRESHOLD, _EVERY */
        double threshold; /* external fragmentation that triggers (THRESHOLD) */
        uint64_t every;   /* allocations between runs (EVERY) */
        int host;         /* host level for host_roundtrip, -1 = none */
    } defrag;
} cfg_level;

enum { CFG_ON_OOM_FAIL, CFG_ON_OOM_SPILL };
enum { CFG_VICTIM_LRU, CFG_VICTIM_LARGEST };
enum { CFG_DEFRAG_NONE, CFG_DEFRAG_COMPACT, CFG_DEFRAG_HOST_ROUNDTRIP };
enum { CFG_TRIGGER_ON_OOM, CFG_TRIGGER_THRESHOLD, CFG_TRIGGER_EVERY };
/* transfer guard levels (jax.transfer_guard) and directions */
enum { CFG_GUARD_ALLOW, CFG_GUARD_LOG, CFG_GUARD_DISALLOW, CFG_GUARD_LOG_EXPLICIT,
       CFG_GUARD_DISALLOW_EXPLICIT };
enum { CFG_DIR_H2D, CFG_DIR_D2H, CFG_DIR_D2D };

/* The smallest effective link bandwidth (bandwidth x efficiency) the engine keeps, in bytes per
 * second: it holds rates to the micro-byte per second (link_rate in engine.c). A link whose
 * product is below it is refused at load (until 2026-11-27 it was silently raised to it). */
#define CFG_LINK_RATE_MIN 1e-6

typedef struct cfg_link {
    char name[CFG_NAME_MAX];
    int from, to;         /* level indices */
    uint64_t bandwidth;   /* peak, bytes per second */
    double efficiency;    /* 0 < e <= 1 */
    am_ps latency;
    uint32_t concurrency; /* 0 = unlimited */
    int duplex;
    double energy_pj_per_byte; /* 0 = not given */
} cfg_link;

typedef struct am_config {
    cfg_node *root;       /* the effective tree */
    char path[1024];      /* config file */
    char device[CFG_NAME_MAX];
    /* The device preset file merged (configs/devices/NAME.yaml as found), "" for none: with
     * path, every file the config read, which a command's outputs must not name. */
    char preset[1200];
    int nlevels;
    cfg_level levels[CFG_MAX_LEVELS];
    int default_level;
    int nlinks;
    cfg_link links[CFG_MAX_LINKS];
    struct {
        int lifetimes_inclusive;
        am_ps time_unit;
    } trace;
    struct {
        uint32_t queue_depth;
    } engine;
    int guard[3];         /* transfer guard level per direction (CFG_DIR_*) */
    struct {
        am_ps timeline_interval;
        uint32_t max_oom_events;
    } report;
    /* What the config says that has no effect, one "file:line:col: warning: ..." line each
     * (callers print it to stderr), or NULL. */
    char *warnings;
    /* Line for line with warnings: the path of the setting that keeps the warned key unread
     * (memories.hbm.allocator.policy for another policy's option, memories.hbm.defrag.trigger
     * for a threshold under trigger: on_oom), or an empty line when none does. A sweep that
     * varies that setting in an axis does not warn: some of its runs read the key. */
    char *warning_deciders;
} am_config;

/* Load, merge the device preset, apply overrides ("PATH=VALUE" strings) and validate.
 * On error returns -1 with "file:line:col: message" in err; *cfg is untouched. */
int cfg_load(am_config **cfg, const char *path, const char *const *sets, int nsets,
             am_error *err);
/* What the YAML at path is at its top, for `amsim check` telling a config from a trace:
 * CFG_SNIFF_MAP when its (first) document is a map, as every config is (block or flow style,
 * after comments, a "---" or a byte-order mark, whatever key comes first); CFG_SNIFF_ERROR when
 * the text is not YAML up to its top-level node (a syntax or encoding error first: a binary
 * file, or a config broken before its first key); CFG_SNIFF_OTHER for anything else (a scalar,
 * a list, an empty file, a file that cannot be opened). Reads the leading blank, comment and
 * "---" lines, whatever their length, then at most CFG_SNIFF_BYTES (parsing stops at the
 * top-level node's first event: a map's first key); until 2026-11-27 the leading lines counted
 * against those bytes, and a config below 1 MiB of comments was "other". */
enum { CFG_SNIFF_OTHER, CFG_SNIFF_MAP, CFG_SNIFF_ERROR };
/* The byte-order mark at the start of b (n bytes) as libyaml reads it: its length (3 for UTF-8,
 * 2 for UTF-16, 0 without one; a file without a mark is UTF-8), and in *utf16 the encoding it
 * names (0 UTF-8, 1 UTF-16LE, 2 UTF-16BE). */
size_t cfg_bom(const unsigned char *b, size_t n, int *utf16);
#define CFG_SNIFF_BYTES (1u << 20)
int cfg_sniff(const char *path);
/* Check YAML text against the subset amsim reads, event by event, before anything is built:
 * one document, no anchors, aliases or tags, at most 64 levels of nesting, no control
 * characters from escapes (the rules configs are parsed with). `what` names the file kind in
 * messages ("sweep": "YAML anchors (&a) are not supported in amsim sweeps"). A sweep is checked
 * so before libyaml's document loader, which would expand aliases. -1 with FILE:LINE:COL. */
int cfg_yaml_screen(const char *file, const char *buf, size_t len, const char *what,
                    am_error *e);
/* A place in a file: line and column, 1-based. */
typedef struct cfg_pos {
    unsigned long line, col;
} cfg_pos;
/* An override written somewhere else than on the command line (a sweep's set: and axes):
 * "PATH=VALUE" and where VALUE is written, so that an error about it points there, and where
 * PATH is (kline, kcol; 0: at VALUE), so that an unknown key or memory in it points at the key
 * as in a config. With file NULL it is a --set: messages name "--set 'PATH=VALUE'".
 * inner: where each node inside a map or list VALUE is written, in the order a walk meets them
 * (a node, then what it holds; a map entry's node at its key, as a config places one), so that
 * an unknown key inside {capacity: 1GiB, capcity: 2GiB} points at capcity, not at the map's
 * '{' (until 2026-11-28); NULL, or a VALUE read into another shape: every node at VALUE. */
typedef struct cfg_set {
    const char *text;
    const char *file;
    unsigned long line, col;
    unsigned long kline, kcol;
    cfg_pos *inner;       /* owned by whoever made it (a sweep: until it is freed) */
    size_t ninner;
} cfg_set;
/* A YAML scalar as the config writes it: plain when unambiguous (names, numbers with units:
 * letters, digits and "_./+-"), double-quoted otherwise, with '"' and '\\' escaped and control
 * bytes as \xHH (which the loader refuses at the value). Also the text of a sweep's map value
 * passed on as an --set value (batch.c). */
void cfg_write_scalar(FILE *f, const char *s);
/* cfg_write_scalar for a scalar written in a style (nonplain: quoted or a block) the reader must
 * see again: a plain null word stays plain (null), and a nonplain scalar that plain would read
 * as a number, a boolean or null is written quoted (a string), as the effective config does.
 * A sweep's set: entries and axis values go to their --set re-read this way (until 2026-11-28
 * null was written plain and ~ quoted, turning both around, for an axis value, and a quoted
 * "0.5" was written 0.5, so the run's config echo gave the number where the same value in a
 * config file or a --set gave the string). */
void cfg_write_scalar_as(FILE *f, const char *s, int nonplain);
/* How summary.json's `config` echoes a scalar (report.c): as YAML types a plain one. */
typedef enum cfg_typed {
    CFG_TYPED_STRING, /* names, sizes with units ("80GiB"), any quoted or block scalar */
    CFG_TYPED_NUMBER, /* an integer or decimal in JSON's own form: echoed as written */
    CFG_TYPED_TRUE,   /* true, yes, on in any case (the YAML 1.1 words amsim reads) */
    CFG_TYPED_FALSE,  /* false, no, off */
    CFG_TYPED_NULL    /* YAML's null: nothing, ~, null, Null, NULL (as the loader reads it) */
} cfg_typed;
cfg_typed cfg_scalar_typed(const cfg_node *n);
/* cfg_load with positioned overrides. */
int cfg_load_sets(am_config **cfg, const char *path, const cfg_set *sets, int nsets,
                  am_error *err);
/* cfg_load(_sets) for a run whose policy on one level is switched (--policy, compare's,
 * mincap's and a sweep's policies:): the level named `level` (NULL: the default level, as the
 * overrides leave it) runs `policy`, set as the override "memories.LEVEL.allocator.policy=
 * POLICY" after the others. With policy NULL the policy to run is not known yet (the config
 * loaded for what every switch shares: levels, trace options): that level's own policy's rules
 * on option values are not checked, nor its keys warned about, each switched load checking the
 * rules of the policy it runs; every key's type and range still are. Until 2026-11-27 --policy
 * and compare loaded the config as written first, so the configured policy's rules refused a
 * value that the policy run ignores (buddy's min_block: 3 under --policy first_fit). */
int cfg_load_switched(am_config **cfg, const char *path, const char *const *sets, int nsets,
                      const char *level, const char *policy, am_error *err);
/* cfg_load_switched with the switched level's allocator options left out (every key but
 * policy, from the file, a preset or a --set): `policy` runs with its defaults. The reference
 * run of compare and mincap (best_fit, for the trace's peak live bytes), beside policies whose
 * options those are: until 2026-11-27 it took them (caching's `alignment: 3`, refused by
 * best_fit, stopped compare and mincap). */
int cfg_load_reference(am_config **cfg, const char *path, const char *const *sets, int nsets,
                       const char *level, const char *policy, am_error *err);
int cfg_load_sets_switched(am_config **cfg, const char *path, const cfg_set *sets, int nsets,
                           const char *level, const char *policy, am_error *err);
/* Same from a YAML string (name is used in messages). */
int cfg_load_string(am_config **cfg, const char *name, const char *yaml,
                    const char *const *sets, int nsets, am_error *err);
/* jax.transfer_guard for a transfer from level src to level dst (implicit: marked implicit=1):
 * 1 when the config's guard rejects it, else 0. *dir gets its direction (CFG_DIR_*), or -1 for a
 * copy between two host levels, which no guard covers. The engine's rule, and convert's for a
 * transfer's into= allocation (which a rejected transfer does not make). */
int cfg_guard_rejects(const am_config *c, int src, int dst, int implicit, int *dir);
/* Whether guard level `guard` (CFG_GUARD_*) covers a transfer: every implicit one, and with
 * log_explicit or disallow_explicit the explicit ones too. The one rule cfg_guard_rejects and
 * the engine's logging use. */
int cfg_guard_applies(int guard, int implicit);
/* The config `amsim check` and `amsim convert` read traces against when no -c is given (named
 * "<builtin>"): every memory level name the shipped device presets use, hbm (the default),
 * host, vmem, smem, accumulator, host_pageable and cmem, 1 TiB each, no links; each of the
 * kind its name says, host_pageable of kind host (host memory, for the transfer guard). */
int cfg_load_builtin(am_config **cfg, const char *const *sets, int nsets, am_error *err);
void cfg_free(am_config *cfg);
/* Print cfg->warnings to f, each line after "prog: ". */
void cfg_print_warnings(const am_config *cfg, FILE *f, const char *prog);
/* The line at *p of a text of lines (am_config.warnings, warning_deciders): its length, without
 * its '\n'; *p moves past it. NULL or an empty text gives empty lines (0, *p unmoved), so a
 * shorter text read beside a longer one line for line runs out quietly. */
int cfg_text_line(const char **p);
/* Write the effective config as YAML: a complete config that reads back to the same run without
 * warnings, so each level's allocator map holds only its policy's keys (the preset's or the
 * user's keys of other policies, which the run ignores, are left out). */
int cfg_write_yaml(const am_config *cfg, FILE *f);
/* Whether key k of map (a map of cfg's tree) is one the run does not read, so that
 * cfg_write_yaml leaves it out: in a level's allocator map a key of another policy than the one
 * in effect, in its defrag map a key its mode and trigger never read. summary.json's echo of
 * the config leaves out the same keys (report.c). */
int cfg_key_unread(const am_config *cfg, const cfg_node *map, const cfg_node *k);
/* The whole tree as YAML, other policies' keys included: what a sweep digests, so an edit of
 * any key the sweep's runs may read (under a policies: switch) reruns them. Each map's keys
 * are in one canonical order (by name; memories' and links' entries in their own order, the
 * top level in schema order), so the text does not depend on the order keys were written in
 * or on which of them the schema filled in (until 2026-11-27 it was the tree's order). */
int cfg_write_yaml_all(const am_config *cfg, FILE *f);
/* The effective config's keys that were written (in the config, its device preset or an
 * override), one "PATH: VALUE" line each in cfg_write_yaml_all's order (not the order they were
 * written in; until 2026-11-27 the tree's), without those the schema filled
 * in (defaults) or the amsim version: what a sweep digests apart from cfg_write_yaml_all, so
 * that a changed digest can be told to be the study's (these lines changed) or amsim's (only
 * its keys, defaults or version did). */
int cfg_write_written(const am_config *cfg, FILE *f);
/* For "did you mean": the candidate closest to name (at most 1 edit for names of up to 4
 * characters, 2 for longer ones; names over CFG_NAME_MAX characters are not compared), or NULL.
 * cands ends with NULL. */
const char *cfg_suggest(const char *name, const char *const *cands);
/* Whether k is a top-level key of a config (version, device, memories, ...). */
int cfg_is_top_key(const char *k);
/* Whether k is a top-level key of a sweep's that no config has (base, traces, axes, ...). */
int cfg_is_sweep_key(const char *k);
/* Whether k is a top-level key of a config's that no sweep has (all but device, which both
 * have): with cfg_is_sweep_key, what tells a sweep's text from a config's. */
int cfg_is_config_only_key(const char *k);
/* Whether v is one of YAML's null words (~, null, Null, NULL): null when written plain, a
 * string in any other style. One list for the loader, the summary's config echo and the
 * overrides a sweep writes. */
int cfg_null_word(const char *v);
/* Index of a level by name, or -1. */
int cfg_level_index(const am_config *cfg, const char *name, size_t len);
/* The level names, comma-separated ("hbm, host"), into buf (cut to n). */
void cfg_level_names(const am_config *cfg, char *buf, size_t n);
/* The names of the levels in mask (bit i: level i), in level order, into buf (cut to n): ", "
 * between them, last_sep before the last ("hbm, host and vmem" with " and "); "" when none. */
void cfg_level_list(const am_config *cfg, uint64_t mask, const char *last_sep, char *buf,
                    size_t n);
/* The node at a dotted path ("memories.hbm.capacity") under root, or NULL. */
const cfg_node *cfg_get(const cfg_node *root, const char *path);

/* Validate a map against an option table and fill dst (used for policy options). Keys in
 * `also_ok` (NULL-terminated, may be NULL) are accepted and ignored. */
int cfg_apply_opts(const cfg_node *map, const char *path, const opt_desc *opts, void *dst,
                   const char *const *also_ok, am_error *err);

/* Whether the option `key` of level `level`'s policy, configured as it is, differs from
 * `value` (config syntax, e.g. a recording's setting): 1 with the configured value's text in
 * configured[n], 0 when the same, -1 when the policy has no such option or value does not
 * parse as one. */
int cfg_setting_differs(const am_config *cfg, int level, const char *key, const char *value,
                        char *configured, size_t n);

/* The option a dotted config path names in the schema ("memories.hbm.capacity",
 * "links.pcie.latency", "trace.time_unit"; "memories.hbm.allocator.KEY": KEY of the policies
 * that have it, when they all give it the same type), or NULL (another path, a policy's
 * "policy", a key of no table). Level and link names are not looked up: any name will do. */
const opt_desc *cfg_path_opt(const char *path);
/* text as option o reads it in a config, for the types held in a uint64_t (sizes in bytes,
 * "unlimited" as UINT64_MAX; bandwidths in bytes/s; times in ps; integers; booleans as 0 or 1,
 * so True, true, yes and on are one value; an enum's word as its index): 0 and *v, or -1
 * (o NULL or of another type, text not a valid value of it, or a size or time the config would
 * round to a whole byte or picosecond: 0.8 and 1.2 both read as 1 byte). So 1ms and 1000us, or
 * 1GiB and 1024MiB, give the same *v. */
int cfg_opt_u64(const opt_desc *o, const char *text, uint64_t *v);
/* NULL when text has the form every number a config writes must have (no blank around it, no
 * '+', no leading zero before a digit, which YAML 1.1 reads as octal), else why not. Sweeps
 * hold their own numbers (seeds, device, range bounds) to it too. */
const char *cfg_number_form(const char *text);
/* cfg_number_form for a value of option o, as the loader checks it: NULL when o reads text as a
 * word (a bool, an enum, a string, -1 for an unlimited size) or o is NULL. */
const char *cfg_opt_number_form(const opt_desc *o, const char *text);

/* Whether a config node's origin (cfg_node.file) is an override from the command line: a
 * --set ("--set 'PATH=VALUE'") or a --policy ("--policy 'NAME'"), which have no line. The one
 * test the loader and the engine's messages share (until 2026-11-27 the engine knew only
 * --set, and an error under --policy named the config file). */
int cfg_is_override_origin(const char *file);
/* Where a policy's input error about the keys `opts` (am_error.opts: "a,b", most likely first)
 * points on level L: the first of them the user gave (in the config, a sweep's file, --set;
 * in the level's allocator map or, for capacity and granularity, the level's map), else the
 * level's policy when the user gave it (in the config, --set or --policy), else the first of
 * them a device preset gives, else the allocator map as written, else the level's map. Until
 * 2026-11-27 a preset's capacity came before the user's min_block or alignment. */
const cfg_node *cfg_setting_at(const am_config *cfg, const cfg_level *L, const char *opts);

/* Where device presets are searched, in order: $AMSIM_DEVICES, DIR_OF_CONFIG/devices,
 * DIR_OF_CONFIG/../configs/devices, the source tree's configs/devices (compile-time). */

/* The whole file into *buf (caller frees), at most 64 MiB (a config's or a sweep's YAML): 0, or
 * -1 with an input error naming the file ("cannot open", "read error", "larger than"). */
int cfg_read_file(const char *path, char **buf, size_t *len, am_error *e);

#endif
