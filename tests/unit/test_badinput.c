/* test_badinput.c - the bad-input catalogue: every way a trace or config can be wrong, run
 * through the built binary (tu_amsim, $AMSIM), each asserting exit status 1 and the exact
 * message with FILE:LINE:COLUMN (text formats), FILE: byte N (pickles) or PATH: reason (paths).
 * Also: --lenient turning an unknown free into a counted warning, failing runs leaving no output
 * or temporary behind, --check on the shipped traces and on a deliberately broken policy, an
 * interrupted run (SIGTERM) removing its temporaries, and the fuzzers' regression inputs
 * (tests/fuzz/regress/) replayed through the readers, or a whole run, in-process.
 *
 * Trace cases run with the small config BI_CFG_TEXT (levels hbm and host, one link host <-> hbm).
 * In the expected messages "@" stands for the path of the file the case wrote. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../models/alloc.h"
#include "../../sim/config.h"
#include "../../sim/engine.h"
#include "../../sim/run.h"
#include "../../sim/trace.h"
#include "../fuzz/fuzz_run_configs.h"
#include "testutil.h"

/* ---- helpers ------------------------------------------------------------------------------ */

/* Write len bytes (binary safe) to TMP/name; returns the path (static rotation of 8). */
static const char *bi_write(const char *name, const void *data, size_t len)
{
    static char buf[8][512];
    static int k;
    char *p = buf[k++ % 8];
    snprintf(p, sizeof buf[0], "%s/%s", tu_tmpdir(), name);
    FILE *f = fopen(p, "wb");
    CU_ASSERT_FATAL(f != NULL);
    if (len)
        CU_ASSERT_FATAL(fwrite(data, 1, len, f) == len);
    CU_ASSERT_FATAL(fclose(f) == 0);
    return p;
}

static const char *cfg_default(void)
{
    static char p[1024];
    snprintf(p, sizeof p, "%s/configs/default.yaml", tu_top());
    return p;
}

static const char *trace_gpu(void)
{
    static char p[1024];
    snprintf(p, sizeof p, "%s/traces/gpu_train_step.trace", tu_top());
    return p;
}

/* Replace every '@' of pat by path. */
static char *bi_expand(const char *pat, const char *path)
{
    size_t n = strlen(pat), pl = strlen(path), k = 0;
    char *s = malloc(n * (pl + 1) + 1);
    for (const char *p = pat; *p; p++) {
        if (*p == '@') {
            memcpy(s + k, path, pl);
            k += pl;
        } else {
            s[k++] = *p;
        }
    }
    s[k] = 0;
    return s;
}

/* pat with each "{X}" replaced by val[X - 'A'] (upper-case letters), into buf. */
static void bi_subst(char *buf, size_t n, const char *pat, const char *const *val)
{
    size_t k = 0;
    for (const char *p = pat; *p && k + 1 < n; p++) {
        if (p[0] == '{' && p[1] >= 'A' && p[1] <= 'Z' && p[2] == '}') {
            k += (size_t)snprintf(buf + k, n - k, "%s", val[p[1] - 'A']);
            k = AM_MIN(k, n - 1);
            p += 2;
        } else
            buf[k++] = *p;
    }
    buf[k] = 0;
}

/* Run amsim with args, assert status want and that stderr contains expect. */
static void bi_expect(const char *args, int want, const char *expect)
{
    char *out = NULL, *err = NULL;
    int st = tu_amsim(args, &out, &err);
    CU_ASSERT_EQUAL(st, want);
    int found = err && strstr(err, expect) != NULL;
    CU_ASSERT(found);
    if (st != want || !found)
        fprintf(stderr, "\n  amsim %s\n  status %d (want %d)\n  stderr: %s  expected: %s\n", args,
                st, want, err ? err : "(none)", expect);
    free(out);
    free(err);
}

typedef enum { BI_TRACE, BI_CONFIG } bi_what;

/* The config trace cases run with (not a shipped one: device presets change). */
#define BI_CFG_TEXT "version: 1\ndefault_memory: hbm\nmemories:\n" \
                  "  hbm: {kind: hbm, capacity: 16GiB, allocator: {policy: bfc}}\n" \
                  "  host: {kind: host_pinned, capacity: 64GiB}\n" \
                  "links:\n  pcie: {from: host, to: hbm, bandwidth: 32GB/s}\n"

typedef struct bi_case {
    bi_what what;       /* which file the content is */
    const char *name;   /* temp file name */
    const char *text;   /* content (NUL-terminated unless len) */
    size_t len;         /* bytes of text, 0 = strlen */
    const char *expect; /* stderr must contain this ('@' = the file's path) */
    const char *args;   /* extra options, or NULL */
    const char *config; /* for traces: a config text to use instead of configs/default.yaml */
} bi_case;

static void bi_run(const bi_case *c)
{
    const char *path = bi_write(c->name, c->text, c->len ? c->len : strlen(c->text));
    char cfgpath[1024], args[4096];
    const char *cfg = c->config ? c->config : BI_CFG_TEXT;
    snprintf(cfgpath, sizeof cfgpath, "%s", bi_write("bi-config.yaml", cfg, strlen(cfg)));
    if (c->what == BI_TRACE)
        snprintf(args, sizeof args, "run -q -c '%s' -t '%s' %s", cfgpath, path,
                 c->args ? c->args : "");
    else
        snprintf(args, sizeof args, "run -q -c '%s' -t '%s' %s", path, trace_gpu(),
                 c->args ? c->args : "");
    char *want = bi_expand(c->expect, path);
    bi_expect(args, 1, want);
    free(want);
}

#define BI_T(fn, name_, text_, expect_) \
    static void fn(void) { bi_run(&(bi_case){BI_TRACE, name_, text_, 0, expect_, NULL, NULL}); }
#define BI_TB(fn, name_, text_, expect_) /* binary: text_ is a string literal with NULs */ \
    static void fn(void) \
    { bi_run(&(bi_case){BI_TRACE, name_, text_, sizeof text_ - 1, expect_, NULL, NULL}); }
#define BI_C(fn, name_, text_, expect_) \
    static void fn(void) { bi_run(&(bi_case){BI_CONFIG, name_, text_, 0, expect_, NULL, NULL}); }

/* ---- native traces: files, headers, fields -------------------------------------------------- */

#define H "amsim-trace v1\n"
BI_T(t_empty, "empty.trace", "",
     "amsim: @: empty file (expected 'amsim-trace v1'")
BI_T(t_blank, "blank.trace", "\n   \n# just a comment\n",
     "amsim: @: no trace content (only blank lines and comments;")
BI_TB(t_garbage, "garbage.trace", "\x01\x02\xff\xfe\x00\x00\x7f" "ELF\x00\x00",
      "amsim: @: unrecognised trace format (expected 'amsim-trace v1'")
BI_TB(t_gzip_garbage, "broken.trace.gz", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xff\xff",
      "amsim: @: ")
/* The first half of a gzip-compressed native trace whose header follows 40 comment lines: the
 * stream breaks while the format is being detected, after 16 whole lines. The error is the
 * native reader's, at the line after the last one read whole (until 2026-11-27 it was "@: read
 * error: ..." without a line or "gzip-compressed trace:"). */
BI_TB(t_gzip_cut_detect, "gcutd.trace.gz",
      "\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03\x5d\x94\x4b\x8a\xc3\x30\x10\x05"
      "\xf7\x3e\x85\x20\xeb\x81\xfe\x48\xb2\x75\x1c\x49\x96\x20\x60\x27\x30\x13"
      "\xe6\xfc\x13\x08\x52\x8f\xdf\xd6\x05\x6e\x52\xf5\x9c\x9b\x3b\xee\x8f\xe6"
      "\xc8\x3d\xbb\xcb\xae\x3e\xcf\xb3\x3d\x5e\x8e\x96\xdb\xe7\x39\x5f\x9f\xb3"
      "\x68\xd1\xc1\xe4\xca\x2a\xd5\x3e\x90\x5e\x51\xd8\x5b\x19\xc8\xc3\x1b\x37"
      "\x4e\x6d\xb0\x00\x8c\x5b\xc9\x83\xc5\x2b\x2b\x65\x8f\x03\xad\x70\x6d\xeb"
      "\x32\xd0\x06\x6f\x5c\x6b\x0e\x83\x25\xbc\x96\x2a\xcf\xdf\x0d\x42\x4a\xdc"
      "\xf7\xc9\x40\x4a\xd0\x9e\x26\x13\x3c\xb8\xe6\x3a\xa1\xe2\x45\x5f\xb7\x09"
      "\x41\x4c\xe1\xe6\x27\x03\x31\xbe\x93\x15\x8a",
      "amsim: @:17: read error: corrupt or truncated gzip data")
BI_T(t_version, "v2.trace", "amsim-trace v2\nalloc 1 1\n",
     "amsim: @:1:13: unsupported trace version 'v2' (this amsim reads v1)")
BI_T(t_noversion, "nov.trace", "amsim-trace\n",
     "amsim: @:1:12: missing version after 'amsim-trace' (expected v1)")
BI_T(t_header_field, "hf.trace", "amsim-trace v1 clock=1\n",
     "amsim: @:1:16: unknown header field 'clock' (allowed: time_unit, skipped, validated)")
/* skipped=N: the rows the source of an `amsim convert` skipped (a count, once) */
BI_T(t_header_skipped, "hs.trace", "amsim-trace v1 skipped=2x\n",
     "amsim: @:1:24: bad skipped '2x': not an unsigned integer")
BI_T(t_header_skipped_dup, "hs2.trace", "amsim-trace v1 skipped=2 skipped=2\n",
     "amsim: @:1:26: duplicate header field 'skipped'")
/* validated=0|1: the source of an `amsim convert` was validated from its start (a snapshot) */
BI_T(t_header_validated, "hv.trace", "amsim-trace v1 validated=yes\n",
     "amsim: @:1:26: bad validated 'yes': expected 0 or 1")
BI_T(t_header_unit, "hu.trace", "amsim-trace v1 time_unit=10\n",
     "amsim: @:1:26: time_unit '10' needs a unit (ps, ns, us, ms or s)")
BI_T(t_truncated, "trunc.trace", H "alloc 1 64MiB\nalloc 2", /* no newline at the end */
     "amsim: @:3:8: missing BYTES (usage: alloc ID BYTES")
BI_T(t_missing_bytes, "miss.trace", H "alloc 1\n",
     "amsim: @:2:8: missing BYTES (usage: alloc ID BYTES")
BI_T(t_unknown_op, "op.trace", H "malloc 1 1\n",
     "amsim: @:2:1: unknown op 'malloc' (expected alloc, free,")
BI_T(t_extra_field, "extra.trace", H "free 1 2\n",
     "amsim: @:2:8: unexpected field '2' (usage: free ID [stream=S] [at=TIME] [prologue=0|1])")
BI_T(t_unknown_key, "key.trace", H "alloc 1 1 colour=red\n",
     "amsim: @:2:11: unknown field 'colour' for alloc (allowed: level, stream, name, at, addr")
BI_T(t_dup_key, "dupkey.trace", H "alloc 1 1 stream=1 stream=2\n",
     "amsim: @:2:20: duplicate field 'stream'")
BI_T(t_empty_value, "ev.trace", H "alloc 1 1 level=\n",
     "amsim: @:2:17: missing value after 'level='")
BI_T(t_size_negative, "neg.trace", H "alloc 1 -5\n",
     "amsim: @:2:9: bad BYTES '-5': negative values are not allowed")
BI_T(t_size_nan, "nan.trace", H "alloc 1 lots\n",
     "amsim: @:2:9: bad BYTES 'lots': not a number")
/* A NUL byte ends a C string: "4\0999MiB" once read as 4 bytes, a line starting with one as
 * blank, the rest of a header after one as absent. Refused wherever it is. */
BI_TB(t_nul_size, "nul.trace", H "alloc 1 4\0" "999MiB\nfree 1\n",
      "amsim: @:2:10: NUL byte (a text trace has none: is the file binary or damaged?)")
BI_TB(t_nul_line, "nulline.trace", H "alloc 1 4\n\0" "alloc 2 4\n",
      "amsim: @:3:1: NUL byte (a text trace has none: is the file binary or damaged?)")
BI_TB(t_nul_comment, "nulcom.trace", H "alloc 1 4 # a \0 b\n",
      "amsim: @:2:15: NUL byte (a text trace has none: is the file binary or damaged?)")
BI_TB(t_nul_header, "nulhdr.trace", "amsim-trace\0 v1\nalloc 1 4\n",
      "amsim: @:1:12: NUL byte (a text trace has none: is the file binary or damaged?)")
/* ... and before the header too: format detection once read a line starting with a NUL byte as
 * blank, so these were "no trace content" (until 2026-11-27). */
BI_TB(t_nul_first, "nulfirst.trace", "\0amsim-trace v1\nalloc 1 4\n",
      "amsim: @:1:1: NUL byte (a text trace has none: is the file binary or damaged?)")
BI_TB(t_nul_blank, "nulblank.trace", "\n\0\n",
      "amsim: @:2:1: NUL byte (a text trace has none: is the file binary or damaged?)")
BI_TB(c_nul_header, "nulhdr.csv", "  \0id,lower,upper,size\n1,0,5,10\n",
      "amsim: @:1:3: NUL byte (a text trace has none: is the file binary or damaged?)")
BI_T(t_size_overflow, "ovf.trace", H "alloc 1 18446744073709551616\n",
     "amsim: @:2:9: bad BYTES '18446744073709551616': out of range (max 18446744073709551615)")
BI_T(t_size_overflow_unit, "ovfu.trace", H "alloc 1 99999999TiB\n",
     "amsim: @:2:9: bad BYTES '99999999TiB': value too large (does not fit in 64 bits)")
BI_T(t_size_unit, "unit.trace", H "alloc 1 12XB\n",
     "amsim: @:2:9: bad BYTES '12XB': unknown unit (sizes: B, KiB,")
/* a request is a whole number of bytes: a fraction is refused, not rounded away */
BI_T(t_size_fraction, "frac.trace", H "alloc 1 1.5B\n",
     "amsim: @:2:9: bad BYTES '1.5B': not a whole number of bytes")
BI_T(t_size_fraction_tiny, "fract.trace", H "alloc 1 0.0001KB\n",
     "amsim: @:2:9: bad BYTES '0.0001KB': not a whole number of bytes")
BI_T(t_id_nan, "idnan.trace", H "free x1\n",
     "amsim: @:2:6: bad ID 'x1': not an unsigned integer")
BI_T(t_id_negative, "idneg.trace", H "free -1\n",
     "amsim: @:2:6: bad ID '-1': negative")
BI_T(t_id_overflow, "idovf.trace", H "free 18446744073709551616\n",
     "amsim: @:2:6: bad ID '18446744073709551616': out of range (max 18446744073709551615)")
BI_T(t_time_negative, "tneg.trace", H "compute -3us\n",
     "amsim: @:2:9: bad DURATION '-3us': negative values are not allowed")
BI_T(t_time_nan, "tnan.trace", H "compute soon\n",
     "amsim: @:2:9: bad DURATION 'soon': not a number")
BI_T(t_time_overflow, "tovf.trace", H "compute 99999999999999999999\n",
     "amsim: @:2:9: bad DURATION '99999999999999999999': out of range (more than 2^64 ps)")
BI_T(t_at_overflow, "atovf.trace", H "alloc 1 1 at=99999999s\n",
     "amsim: @:2:14: bad at '99999999s': value too large (does not fit in 64 bits)")
BI_T(t_time_backwards, "back.trace", H "compute 1us at=10us\ncompute 1us at=9us\n",
     "amsim: @:3:16: time goes backwards: 9000000 ps < previous 10000000 ps")
/* A binary trace (amsim convert of "compute 5 at=18446744073709551614ps" with this suite's
 * config) whose time delta was raised by one to reach exactly 2^64 - 1 ps, the value that
 * means "no time": refused, where it used to run as an event without a time. */
BI_TB(b_time_reserved, "tres.amsb",
      "\x41\x4d\x53\x42\x01\x00\x00\x00\x02\x03\x68\x62\x6d\x04\x68\x6f\x73\x74\x26\xff"
      "\xff\xff\xff\xff\xff\xff\xff\xff\x01\x88\x27\x00\x01",
      "amsim: @:1: time out of range (at most 2^64 - 3 ps)")
/* Binary records hold what a text line may hold and no more, so that every binary trace
 * converts to text that reads back the same: a name with a space (which text would split into
 * a second field), an extension the kind does not take (addr on a compute), an empty level
 * name in the header. */
#define BIN_HDR "\x41\x4d\x53\x42\x01\x00\x00\x00\x02\x03" "hbm" "\x04" "host"
BI_TB(b_name_space, "nsp.amsb", BIN_HDR "\xc1\x00\x02\x80\x20\x01\x03" "a b" "\x00\x01",
      "amsim: @:1: name contains a space or a control character")
/* a C1 control (U+0085) in a name, as text refuses it (until 2026-11-27 it passed) */
BI_TB(b_name_c1, "nc1.amsb",
      BIN_HDR "\xc1\x00\x02\x80\x20\x01\x03" "a\xc2\x85" "\x00\x01",
      "amsim: @:1: name contains a space or a control character")
BI_TB(b_ext_kind, "ext.amsb", BIN_HDR "\x46\x05\x02\x07\x00\x01",
      "amsim: @:1: extension bits 0x2 do not apply to this record's kind 6 (it takes 0x1)")
/* a defrag record (kind 14) with a STREAM part: its native line takes no stream= */
BI_TB(b_defrag_stream, "dstr.amsb", BIN_HDR "\x9e\x00\x01\x00\x01",
      "amsim: @:1: a defrag record takes no stream")
BI_TB(b_level_empty, "lv0.amsb", "\x41\x4d\x53\x42\x01\x00\x00\x00\x01\x00\x00\x00",
      "amsim: @: binary trace header: bad level name (1 to 255 bytes)")
/* A level index past a one-level table: "1 level" (until 2026-11-27 "1 levels"). */
BI_TB(b_level_index1, "lvi1.amsb",
      "\x41\x4d\x53\x42\x01\x00\x00\x00\x01\x03" "hbm" "\x86\x01\x05" "\x00\x01",
      "amsim: @:1: bad level index 1 (the file names 1 level)\n")
/* A header cut inside a level name is truncated (it used to be "bad level name"); a level name
 * with a NUL is refused in the header (it used to be read as far as the NUL: "unknown level
 * 'hbm'"). */
BI_TB(b_header_cut, "hcut.amsb", "\x41\x4d\x53\x42\x01\x00\x00\x00\x02\x03" "hb",
      "amsim: @: truncated binary trace header")
BI_TB(b_level_nul, "lvnul.amsb",
      "\x41\x4d\x53\x42\x01\x00\x00\x00\x01\x06" "hbm\x00zz" "\x81\x00\x02\x05\x00\x01",
      "amsim: @: binary trace header: level name contains a NUL or control byte")
/* a C1 control (U+0085) in a level name too (until 2026-11-27 it passed) */
BI_TB(b_level_c1, "lvc1.amsb",
      "\x41\x4d\x53\x42\x01\x00\x00\x00\x01\x04" "h\xc2\x85" "m" "\x81\x00\x02\x05\x00\x01",
      "amsim: @: binary trace header: level name contains a NUL or control byte")
/* Header flag 1: a varint count of skipped rows after the level table; one of 11 bytes */
BI_TB(b_skipped_count, "skc.amsb",
      "\x41\x4d\x53\x42\x01\x01\x00\x00\x02\x03" "hbm" "\x04" "host"
      "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01" "\x00\x00",
      "amsim: @: binary trace header: bad count of skipped rows")
/* End-record problems name the end record's own number (they named the last data record, or
 * record 0 in a file without data records). */
BI_TB(b_end_count0, "endc0.amsb", BIN_HDR "\x00\x05",
      "amsim: @:1: end record counts 5 records, the file holds 0")
BI_TB(b_end_count, "endc.amsb", BIN_HDR "\x06\x05\x06\x05\x00\x03",
      "amsim: @:3: end record counts 3 records, the file holds 2")
/* A count of one is singular (until 2026-11-27 "1 records"). */
BI_TB(b_end_count1, "endc1.amsb", BIN_HDR "\x06\x05\x06\x05\x00\x01",
      "amsim: @:3: end record counts 1 record, the file holds 2")
BI_TB(b_no_end1, "noend1.amsb", BIN_HDR "\x06\x05",
      "amsim: @:2: truncated binary trace: no end record after 1 record")
/* Level index 4096 (the reading config's default memory) stands for an event that named none; a
 * transfer names its source, so one after LEVEL 4096 is refused (until 2026-11-28 accepted, and
 * its native conversion named the converting config's default as the source) */
BI_TB(b_transfer_src_default, "tsd.amsb",
      BIN_HDR "\x81\x80\x20\x02\x80\x20\x05\x01\x80\x20\x00\x02",
      "amsim: @:2: a transfer's source is level index 4096, which stands only for an event that "
      "named no level: a transfer names its source")
/* A transfer's DST of 4096 (BIN_LEVEL_DEFAULT) is named as the source's is (until 2026-11-28
 * "bad level index 4096 (the file names 2 levels)") */
BI_TB(b_transfer_dst_default, "tdd.amsb",
      BIN_HDR "\x81\x00\x02\x80\x08\x05\x80\x20\x80\x08\x00\x02",
      "amsim: @:2: a transfer's destination is level index 4096, which stands only for an event "
      "that named no level: a transfer names its destination")
/* Header flags 1 (skipped count) and 2 (validated, added 2026-11-27) are known; 4 is not */
BI_TB(b_flags, "flg.amsb",
      "\x41\x4d\x53\x42\x01\x04\x00\x00\x02\x03" "hbm" "\x04" "host" "\x00\x00",
      "amsim: @: binary trace header: unknown flags")
/* The header's reserved bytes are named as such (until 2026-11-27 "unknown flags", though the
 * flags byte was 0). */
BI_TB(b_reserved, "rsv.amsb",
      "\x41\x4d\x53\x42\x01\x00\x01\x00\x02\x03" "hbm" "\x04" "host" "\x00\x00",
      "amsim: @: binary trace header: reserved bytes 6 and 7 are not 0")
/* A gzip-compressed binary trace (3 computes and the end record) without its 8-byte gzip
 * trailer: the read error names the record after the last one read, as the native reader names
 * the line after its last (it named record 1: the reader decompresses ahead). */
BI_TB(b_gzip_cut, "gcut.amsb.gz",
      "\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03\x73\xf4\x0d\x76\x62\x64\x60\x60\x60"
      "\x62\xce\x48\xca\x65\xc9\xc8\x2f\x2e\x61\x63\x05\x41\x06\x66\x00",
      "amsim: @:5: read error: corrupt or truncated gzip data")
/* The first half of a gzip-compressed binary trace with 8 levels: the stream breaks inside the
 * level table, and the read error says the file is compressed, as FORMAT.md gives it (until
 * 2026-11-27 "@: read error: ..." alone). */
BI_TB(b_gzip_cut_header, "gcuth.amsb.gz",
      "\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03\x73\xf4\x0d\x76\x62\x64\x60\x60\xe0\x60"
      "\xcb\x49\x2d\x4b\xcd\x31\x80\x50",
      "amsim: @: gzip-compressed trace: read error: corrupt or truncated gzip data")
/* 2^64 - 1 means "no address" / "no id" inside: a file that gives it is refused in every form,
 * where it used to be read as giving nothing (the recorded address or transfer id lost). */
BI_T(t_addr_none, "addrnone.trace", H "alloc 1 4096 addr=18446744073709551615\n",
     "amsim: @:2:19: bad addr '18446744073709551615': out of range (at most "
     "18446744073709551614; 2^64 - 1 means none)")
BI_T(t_id_none, "idnone.trace", H "transfer host hbm 4 id=18446744073709551615\n",
     "amsim: @:2:24: bad id '18446744073709551615': out of range (at most")
BI_T(c_offset_none, "offnone.csv", "id,lower,upper,size,offset\n1,0,5,10, 18446744073709551615\n",
     "amsim: @:2:11: bad offset '18446744073709551615': out of range (at most "
     "18446744073709551614; 2^64 - 1 means no offset)")
BI_TB(b_addr_none, "addrnone.amsb",
      BIN_HDR "\xc1\x00\x02\x80\x20\x02\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x00\x01",
      "amsim: @:1: recorded address out of range (at most 2^64 - 2)")
/* A recorded range (an alloc's addr= + BYTES, a segment's ADDR + BYTES, a CSV row's offset +
 * size) must end by 2^64 - 1, as in a snapshot: refused at the address, in the snapshot reader's
 * words (until 2026-11-27 accepted, amsim check said ok and a run reported a mismatch). */
BI_T(t_alloc_range_wraps, "awrap.trace", H "alloc 1 4096 addr=18446744073709551000\nfree 1\n",
     "amsim: @:2:19: 'addr' 18446744073709551000 + 'BYTES' 4096 ends at 18446744073709555096, "
     "past 2^64 - 1 (18446744073709551615, the end of the address space)")
BI_T(t_segment_range_wraps, "swrap.trace", H "segment_alloc 18446744073709551000 1MiB\n",
     "amsim: @:2:15: 'ADDR' 18446744073709551000 + 'BYTES' 1048576 ends at "
     "18446744073710599576, past 2^64 - 1 (18446744073709551615, the end of the address space)")
BI_T(c_offset_range_wraps, "owrap.csv",
     "id,lower,upper,size,offset\n1,0,5,4096,18446744073709551000\n",
     "amsim: @:2:12: 'offset' 18446744073709551000 + 'size' 4096 ends at "
     "18446744073709555096, past 2^64 - 1 (18446744073709551615, the end of the address space)")
BI_TB(b_alloc_range_wraps, "awrap.amsb",
      BIN_HDR "\xc1\x00\x02\x80\x20\x02\x80\xf0\xff\xff\xff\xff\xff\xff\xff\x01\x00\x01",
      "amsim: @:1: 'addr' 18446744073709549568 + 'BYTES' 4096 ends at 18446744073709553664, "
      "past 2^64 - 1 (18446744073709551615, the end of the address space)")
BI_TB(b_segment_range_wraps, "swrap.amsb",
      BIN_HDR "\x8b\x00\x80\xf0\xff\xff\xff\xff\xff\xff\xff\x01\x80\x80\x40\x00\x01",
      "amsim: @:1: 'ADDR' 18446744073709549568 + 'BYTES' 1048576 ends at "
      "18446744073710598144, past 2^64 - 1 (18446744073709551615, the end of the address space)")
/* A time unit or a time that is not a whole number of picoseconds is refused (a unit of 1.5 ps
 * was rounded to 2 before it multiplied every time); so is a repeated time_unit, a sign on a
 * size or time (as on an ID), and a carriage return inside a line (it was read into a field and
 * echoed raw). */
BI_T(t_unit_frac, "ufrac.trace", "amsim-trace v1 time_unit=1.5ps\ncompute 1000\n",
     "amsim: @:1:26: bad time_unit '1.5ps': not a whole number of picoseconds")
BI_T(t_unit_dup, "udup.trace", "amsim-trace v1 time_unit=ns time_unit=us\ncompute 3\n",
     "amsim: @:1:29: duplicate header field 'time_unit'")
BI_T(t_time_subps, "subps.trace", H "compute 0.5ps\n",
     "amsim: @:2:9: bad DURATION '0.5ps': not a whole number of picoseconds")
BI_T(t_size_plus, "plus.trace", H "alloc 8 +5\n",
     "amsim: @:2:9: bad BYTES '+5': a sign is not allowed")
/* A minus sign on a zero size or time is refused too, as on any other value and as the integer
 * fields refuse "-0" (until 2026-11-27 "-0", "-0KiB", "-0.0", "-0ns" and at=-0 were read as 0). */
static void t_minus_zero(void)
{
    static const char *const c[][2] = {
        {H "alloc 8 -0\n", "amsim: @:2:9: bad BYTES '-0': negative values are not allowed"},
        {H "alloc 8 -0KiB\n", "amsim: @:2:9: bad BYTES '-0KiB': negative values are not allowed"},
        {H "alloc 8 -0.0\n", "amsim: @:2:9: bad BYTES '-0.0': negative values are not allowed"},
        {H "compute -0ns\n",
         "amsim: @:2:9: bad DURATION '-0ns': negative values are not allowed"},
        {H "alloc 8 5 at=-0\n", "amsim: @:2:14: bad at '-0': negative values are not allowed"}};
    for (size_t k = 0; k < AM_ARRAY_LEN(c); k++)
        bi_run(&(bi_case){BI_TRACE, "minus0.trace", c[k][0], 0, c[k][1], NULL, NULL});
}
BI_T(t_cr_inside, "cr.trace", H "alloc 1 4096\rfree 1\n",
     "amsim: @:2:13: carriage return inside a line (line endings are LF or CRLF;")
BI_C(y_time_unit_frac, "tufrac.yaml", BI_CFG_TEXT "trace: {time_unit: 1.5ps}\n",
     "amsim: @:8:9: trace.time_unit: bad time '1.5ps': not a whole number of picoseconds")
/* A lifetime CSV time of exactly 2^64 - 1 ps (the value that means "no time") is refused, and
 * so is 2^64 - 2 ps, where a run's clock stops (until 2026-11-27 read, then every run failed). */
static void c_time_reserved(void)
{
    bi_run(&(bi_case){BI_TRACE, "tres2.csv", "id,lower,upper,size\n0,0,18446744073709551614,64\n",
                      0, "amsim: @:2:5: time out of range: upper tick 18446744073709551614 at "
                      "1 ps per tick is above 2^64 - 3 ps (the most a run can time)",
                      "--set trace.time_unit=1ps", NULL});
    bi_run(&(bi_case){BI_TRACE, "tres.csv", "id,lower,upper,size\n0,0,18446744073709551615,64\n",
                      0, "amsim: @:2:5: time out of range: upper tick 18446744073709551615 at "
                      "1 ps per tick is above 2^64 - 3 ps (the most a run can time)",
                      "--set trace.time_unit=1ps", NULL});
}
/* A skipped row's ticks are times too: a 0-byte row's upper and an empty lifetime's lower out of
 * range are refused as a kept row's are (until 2026-11-27 a skipped row was not checked, but
 * for the inclusive upper + 1 overflow). */
static void c_time_skipped_row(void)
{
    bi_run(&(bi_case){BI_TRACE, "tz0.csv", "id,lower,upper,size\n0,5,18446744073709553,0\n", 0,
                      "amsim: @:2:5: time out of range: upper tick 18446744073709553 at 1000 ps "
                      "per tick exceeds 2^64 ps", NULL, NULL});
    bi_run(&(bi_case){BI_TRACE, "tzlo.csv", "id,lower,upper,size\n0, 18446744073709553,5,4\n",
                      0, "amsim: @:2:4: time out of range: lower tick 18446744073709553 at 1000 "
                      "ps per tick exceeds 2^64 ps", NULL, NULL});
    bi_run(&(bi_case){BI_TRACE, "tzlo2.csv", "id,lower,upper,size\n0,18446744073709551614,0,4\n",
                      0, "amsim: @:2:3: time out of range: lower tick 18446744073709551614 at 1 ps "
                      "per tick is above 2^64 - 3 ps (the most a run can time)",
                      "--set trace.time_unit=1ps", NULL});
}
/* Inclusive lifetimes: upper + 1 must fit too; the column is upper's, past the spaces before it
 * (until 2026-11-27 a CSV time error pointed at column 1). */
static void c_time_inclusive(void)
{
    bi_run(&(bi_case){BI_TRACE, "tincl.csv",
                      "id,lower,upper,size\n0, 0,  18446744073709551615,64\n", 0,
                      "amsim: @:2:8: upper 18446744073709551615 + 1 (inclusive lifetimes) is "
                      "out of range", "--set trace.lifetimes=inclusive", NULL});
    /* upper + 1 fits but is past the clock: the upper as written is named, then the tick
     * (until 2026-11-27 "upper tick 18446744073709552", N + 1, as if written) */
    bi_run(&(bi_case){BI_TRACE, "tincl2.csv", "id,lower,upper,size\n1,0,18446744073709551,1\n",
                      0, "amsim: @:2:5: upper 18446744073709551 + 1 (inclusive lifetimes) is "
                      "out of range: tick 18446744073709552 at 1000 ps per tick exceeds 2^64 ps",
                      "--set trace.lifetimes=inclusive", NULL});
    bi_run(&(bi_case){BI_TRACE, "tincl3.csv",
                      "id,lower,upper,size\n1,0,18446744073709551614,1\n", 0,
                      "amsim: @:2:5: upper 18446744073709551614 + 1 (inclusive lifetimes) is "
                      "out of range: tick 18446744073709551615 at 1 ps per tick is above "
                      "2^64 - 3 ps (the most a run can time)",
                      "--set trace.lifetimes=inclusive --set trace.time_unit=1ps", NULL});
}
/* Times that are each in range but add up past the clock: an error where a clock gets there,
 * not a wrapped time (two such computes once gave a makespan of 0 ps). */
BI_T(t_clock_compute, "clk1.trace",
     H "compute 18446744073709551615ps\ncompute 18446744073709551615ps\nsync\n",
     "amsim: @:4:1: simulated time reaches 2^64 - 2 ps (about 213 days) by this event: a "
     "duration, transfer or latency too long for the clock")
BI_T(t_clock_transfer, "clk2.trace", H "transfer host hbm 18446744073709551615\nsync\n",
     "amsim: @:3:1: simulated time reaches 2^64 - 2 ps")
BI_T(t_clock_drain, "clk3.trace", H "compute 10000000s\ncompute 10000000s\n",
     "amsim: @: simulated time reaches 2^64 - 2 ps (about 213 days) while the streams drain at "
     "the end of the trace")
/* Defragmentation's copies add up past the clock: refused at the event that defragments, as a
 * spill is (until 2026-11-27 their sum wrapped: two 10000000 s copies gave a makespan of
 * 1553255.927 s, and two saturated ones 18446744.073709551612 s). */
#define BI_DEFRAG_CFG \
    "version: 1\ndefault_memory: hbm\nmemories:\n" \
    "  hbm: {kind: hbm, capacity: 4MiB, allocator: {policy: first_fit, alignment: 1, " \
    "commit_granularity: 4MiB}, defrag: {mode: compact}}\n" \
    "  host: {kind: host, capacity: 1GiB}\n" \
    "links:\n  pcie: {from: host, to: hbm, bandwidth: 1GB/s, duplex: true}\n" \
    "  hbm_copy: {from: hbm, to: hbm, bandwidth: 2GB/s}\n"
#define BI_DEFRAG_TRACE \
    H "alloc 1 1MiB\nalloc 2 1MiB\nalloc 3 1MiB\nalloc 4 1MiB\nfree 1\nfree 3\nalloc 5 2MiB\n"
static void t_clock_defrag(void)
{
    static const char *const args[] = {
        "--set links.hbm_copy.latency=10000000s", /* two copies of 10^7 s each */
        "--set links.hbm_copy.latency=18446744s --set links.hbm_copy.bandwidth=1B/s", /* saturated */
        "--set memories.hbm.defrag.mode=host_roundtrip --set links.pcie.latency=5000000s"};
    for (size_t k = 0; k < AM_ARRAY_LEN(args); k++)
        bi_run(&(bi_case){BI_TRACE, "clkd.trace", BI_DEFRAG_TRACE, 0,
                          "amsim: @:8:1: simulated time reaches 2^64 - 2 ps (about 213 days) by "
                          "this event", args[k], BI_DEFRAG_CFG});
    /* an explicit `defrag` line: its copies are charged as a triggered run's (trigger on_oom:
     * nothing else defragments this trace) */
    bi_run(&(bi_case){BI_TRACE, "clkd3.trace", H "alloc 1 1MiB\nalloc 2 1MiB\nalloc 3 1MiB\n"
                      "alloc 4 1MiB\nfree 1\nfree 3\ndefrag\n", 0,
                      "amsim: @:8:1: simulated time reaches 2^64 - 2 ps (about 213 days) by "
                      "this event", args[0], BI_DEFRAG_CFG});
    /* trigger every: the run after an allocation that succeeded */
    bi_run(&(bi_case){BI_TRACE, "clkd2.trace", H "alloc 1 1MiB\nalloc 2 1MiB\nfree 1\n"
                      "alloc 3 2MiB\n", 0, "amsim: @:5:1: simulated time reaches 2^64 - 2 ps",
                      "--set memories.hbm.defrag.trigger=every --set memories.hbm.defrag.every=1 "
                      "--set links.hbm_copy.latency=9300000s", BI_DEFRAG_CFG});
}
BI_T(t_stream_nan, "snan.trace", H "alloc 1 1KiB stream=x\n",
     "amsim: @:2:21: bad stream 'x': not an unsigned integer")
BI_T(t_stream_overflow, "sovf.trace", H "alloc 1 1KiB stream=4294967295\n",
     "amsim: @:2:21: bad stream '4294967295': out of range (max 4294967294)")
BI_T(t_unknown_level, "lvl.trace", H "alloc 1 1KiB level=dram\n",
     "amsim: @:2:20: unknown level 'dram' (configured: hbm, host)")
BI_T(t_unknown_level_transfer, "tlvl.trace", H "transfer dram hbm 1KiB\n",
     "amsim: @:2:10: unknown level 'dram' (configured: hbm, host)")
/* An explicit defragmentation (`defrag`): a level the config does not have, and fields the op
 * does not take (it has no positional field and no stream=: a host action on one level) */
BI_T(t_defrag_unknown_level, "dlvl.trace", H "alloc 1 1KiB\ndefrag level=dram\n",
     "amsim: @:3:14: unknown level 'dram' (configured: hbm, host)")
BI_T(t_defrag_extra_field, "dxtra.trace", H "defrag hbm\n",
     "amsim: @:2:8: unexpected field 'hbm' (usage: defrag [level=NAME] [at=TIME])")
BI_T(t_defrag_stream, "dstr.trace", H "defrag stream=1\n",
     "amsim: @:2:8: unknown field 'stream' for defrag (allowed: level, at)")
BI_T(t_name_control, "ctl.trace", H "alloc 1 1 name=a\x01" "b\n",
     "amsim: @:2:17: name contains a control character")
/* A C1 control (U+009B, a terminal's CSI) as a C0 one, at its first byte's column (until
 * 2026-11-27 "trace ok", and convert copied it into its output) */
BI_T(t_name_c1, "c1.trace", H "alloc 1 1 name=a\xc2\x9b" "31mb\n",
     "amsim: @:2:17: name contains a control character (U+009B)")

/* ---- native traces: rules the engine checks ------------------------------------------------- */

BI_T(t_duplicate_id, "dupid.trace", H "alloc 1 1KiB\nalloc 1 1KiB\n",
     "amsim: @:3:1: duplicate id 1: still allocated (line 2)")
BI_T(t_free_unknown, "unkfree.trace", H "alloc 1 1KiB\nfree 2\n",
     "amsim: @:3:1: free of unknown id 2 (use --lenient to count and skip such events)")
BI_T(t_double_free, "dblfree.trace", H "alloc 1 1KiB\nfree 1\nfree 1\n",
     "amsim: @:4:1: free of unknown id 1 (use --lenient")
BI_T(t_free_completed_unknown, "fc.trace", H "free_completed 5\n",
     "amsim: @:2:1: free of unknown id 5")
/* a completion needs its request (until 2026-11-27 it was taken as a plain free) */
BI_T(t_free_completed_unrequested, "fcu.trace", H "alloc 1 1KiB\nfree_completed 1\n",
     "amsim: @:3:1: free_completed without a free_requested of id 1 (use --lenient")
/* ... whatever became of the buffer, so that a trace valid at one capacity is valid at all (until
 * 2026-11-27 a failed, waiting or spilled buffer's completion was accepted, and a failed one's
 * second request) */
#define BI_4MIB "--set memories.hbm.capacity=4MiB "
static void t_free_completed_unrequested_oom(void)
{
    bi_run(&(bi_case){BI_TRACE, "fcuo.trace", H "alloc 1 3MiB\nalloc 2 2MiB\nfree_completed 2\n",
                      0, "amsim: @:4:1: free_completed without a free_requested of id 2 (use "
                      "--lenient", BI_4MIB, NULL});
}
static void t_free_completed_unrequested_waiting(void)
{
    bi_run(&(bi_case){BI_TRACE, "fcuw.trace", H "alloc 1 3MiB\nalloc 2 2MiB\nfree_completed 2\n",
                      0, "amsim: @:4:1: free_completed without a free_requested of id 2 (use "
                      "--lenient", BI_4MIB "--set memories.hbm.allocator.retry_after_free=true",
                      NULL});
}
static void t_free_completed_unrequested_spilled(void)
{
    bi_run(&(bi_case){BI_TRACE, "fcus.trace", H "alloc 1 3MiB\nalloc 2 3MiB\nfree_completed 1\n",
                      0, "amsim: @:4:1: free_completed without a free_requested of id 1 (use "
                      "--lenient", BI_4MIB "--set memories.hbm.on_oom=spill_to_host "
                      "--set memories.hbm.spill_host=host", NULL});
}
static void t_free_requested_twice_oom(void)
{
    bi_run(&(bi_case){BI_TRACE, "frto.trace",
                      H "alloc 1 3MiB\nalloc 2 2MiB\nfree_requested 2\nfree_requested 2\n", 0,
                      "amsim: @:5:1: second free request of id 2 (use --lenient", BI_4MIB, NULL});
}
/* An id whose allocation failed stays taken until its free, at every capacity, as amsim check
 * sees it (until 2026-11-27 a failed or expired one could be allocated again before its free:
 * these ran at 4 MiB and failed at 1 GiB) */
static void t_duplicate_id_oom(void)
{
    bi_run(&(bi_case){BI_TRACE, "dupo.trace", H "alloc 1 5MiB\nalloc 1 100\nfree 1\n", 0,
                      "amsim: @:3:1: duplicate id 1: still allocated (line 2)", BI_4MIB, NULL});
}
static void t_duplicate_id_expired(void)
{
    bi_run(&(bi_case){BI_TRACE, "dupw.trace",
                      H "alloc 1 5MiB\nfree_requested 1\nalloc 1 100\nfree_requested 1\n"
                        "free_completed 1\n", 0,
                      "amsim: @:4:1: duplicate id 1: still allocated (line 2)",
                      BI_4MIB "--set memories.hbm.allocator.retry_after_free=true", NULL});
}
BI_T(t_zero_bytes, "zero.trace", H "alloc 1 0\n",
     "amsim: @:2:1: allocation of 0 bytes for id 1 (use --lenient")
/* a recorded oom of 0 bytes is refused as a 0-byte alloc is (until 2026-11-27 counted as a
 * served recorded oom, with no placements row or log line) */
BI_T(t_oom_zero_bytes, "oomzero.trace", H "oom 0\n",
     "amsim: @:2:1: oom of 0 bytes (use --lenient to count and skip such events)")
BI_T(t_transfer_unknown_id, "xfid.trace", H "alloc 1 1KiB\ntransfer host hbm 1KiB id=9\n",
     "amsim: @:3:1: use of unknown id 9 (use --lenient to count and skip such events)")
/* a transfer's to= (the existing buffer it writes) is a use too, and names the one destination
 * into= would allocate: not both (to= added 2026-11-27) */
BI_T(t_transfer_unknown_to, "xfto.trace", H "alloc 1 1KiB\ntransfer host hbm 1KiB to=9\n",
     "amsim: @:3:1: use of unknown id 9 (use --lenient to count and skip such events)")
/* to= names the copy's destination on DST: a buffer on another level is refused whatever became
 * of its memory (an out-of-memory one too), so a trace valid at one capacity is valid at every
 * one (until 2026-11-27 it was accepted, and the copy wrote a host buffer as if on hbm) */
BI_T(t_transfer_to_other_level, "xftolvl.trace",
     H "alloc 1 8MiB level=host\nalloc 2 1KiB level=host\ntransfer host hbm 8MiB id=1 to=2\n",
     "amsim: @:4:1: transfer to= buffer 2 is on level 'host' (allocated at line 3), not on the "
     "transfer's destination level 'hbm' (use --lenient to count and skip such events)")
BI_T(t_transfer_to_other_level_oom, "xftolvloom.trace",
     H "alloc 2 100GiB level=host\ntransfer host hbm 1KiB to=2\n",
     "amsim: @:3:1: transfer to= buffer 2 is on level 'host' (allocated at line 2), not on the "
     "transfer's destination level 'hbm'")
BI_T(t_transfer_into_and_to, "xfintoto.trace", H "transfer host hbm 1KiB into=2 to=3\n",
     "amsim: @:2:31: a transfer names one destination buffer: into=ID (allocated by the copy) "
     "or to=ID (already allocated), not both")
BI_T(t_wait_unrecorded, "wait.trace", H "record 1 stream=1\nwait 7 stream=1\n",
     "amsim: @:3:1: wait on event 7, which was never recorded")
BI_T(t_stream_limit, "slimit.trace", H "compute 1us stream=4294967294\n",
     "amsim: @:2:1: stream 4294967294 out of range for a queued operation (streams 0 to "
     "65535)")
/* A trace names at most 1024 distinct streams (streamset.h): each can cost a policy memory of
 * its own (caching: a pool per stream), and until 2026-11-27 200,000 of them took caching 17 GB.
 * Streams 0 to 1023 and a sync on every stream (which names none) pass; one more stream is
 * refused at its event, by run and check, with --lenient too (a limit, not a trace problem), and
 * by convert, writing nothing. */
static void t_distinct_streams(void)
{
    size_t cap = 64 * 1024, k = 0;
    char *text = malloc(cap);
    CU_ASSERT_FATAL(text != NULL);
    k += (size_t)snprintf(text + k, cap - k, H);
    for (int i = 0; i < 1024; i++) /* lines 2 .. 1025 */
        k += (size_t)snprintf(text + k, cap - k, "alloc %d 1KiB stream=%d\n", i, i);
    k += (size_t)snprintf(text + k, cap - k, "sync\nfree 7 stream=7\n"); /* lines 1026, 1027 */
    char cfg[1024], args[4096], want[2048];
    snprintf(cfg, sizeof cfg, "%s", bi_write("bi-config.yaml", BI_CFG_TEXT, strlen(BI_CFG_TEXT)));
    const char *ok = bi_write("streams1024.trace", text, k);
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s'", cfg, ok);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
    snprintf(args, sizeof args, "check -c '%s' '%s'", cfg, ok);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
    k += (size_t)snprintf(text + k, cap - k, "alloc 5000 1KiB stream=4294967294\n");
    const char *bad = bi_write("streams1025.trace", text, k);
    free(text);
    snprintf(want, sizeof want, "amsim: %s:1028:1: more than 1024 distinct streams: stream "
             "4294967294 would be the 1025th (a trace names at most 1024 stream numbers; "
             "traces/FORMAT.md, Limits)\n", bad);
    char csv[1024], convert[1200];
    snprintf(csv, sizeof csv, "%s/streams1025.csv", tu_tmpdir());
    snprintf(convert, sizeof convert, "convert --to csv -o '%s'", csv);
    const char *const cmds[][2] = {{"run -q", "-t "}, {"run -q --lenient", "-t "},
                                   {"check", ""}, {"check --lenient", ""}, {convert, ""}};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char *err = NULL;
        snprintf(args, sizeof args, "%s -c '%s' %s'%s'", cmds[i][0], cfg, cmds[i][1], bad);
        CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 1);
        CU_ASSERT(err && strcmp(err, want) == 0);
        if (!err || strcmp(err, want) != 0)
            fprintf(stderr, "\n  amsim %s\n  stderr: %s  expected: %s", args, err ? err : "",
                    want);
        free(err);
    }
    CU_ASSERT(access(csv, F_OK) != 0); /* convert wrote nothing */
}

/* a transfer whose bytes rounded up to the granule reach 2^64 is refused (until 2026-11-27 they
 * saturated at 2^64 - 1, not a whole number of granules) */
static void t_transfer_granule_overflow(void)
{
    bi_run(&(bi_case){BI_TRACE, "tgover.trace", H "transfer host hbm 18446744073709551000\n", 0,
                      "amsim: @:2:1: transfer of 18446744073709551000 bytes from 'host' to 'hbm': "
                      "rounded up to the 4.00 KiB transfer_granule it is 2^64 bytes or more, "
                      "beyond the 2^64 - 1 bytes a transfer carries",
                      "--set memories.hbm.transfer_granule=4KiB", NULL});
}
static void t_no_link(void)
{
    bi_run(&(bi_case){BI_TRACE, "nolink.trace", H "alloc 1 1KiB\ntransfer hbm host 1KiB\n", 0,
                      "amsim: @:3:1: no link from 'hbm' to 'host' in the config", NULL,
                      "version: 1\nmemories:\n  hbm: {capacity: 1GiB}\n  host: {capacity: 1GiB}\n"});
}

/* ---- lifetime CSV ---------------------------------------------------------------------------- */

#define CH "id,lower,upper,size\n"
BI_T(c_header, "hdr.csv", "id,lower,upper,size,offset,x\n0,0,1,1,1,1\n",
     "amsim: @:1:1: bad lifetime CSV header 'id,lower,upper,size,offset,x' (expected "
     "'id,lower,upper,size' or 'id,lower,upper,size,offset')")
/* "# amsim skipped=N" before the header: the rows the source of an `amsim convert` skipped */
BI_T(c_skipped, "sk.csv", "# amsim skipped=-1\n" CH "1,0,10,4096\n",
     "amsim: @:1:17: bad skipped '-1': not an unsigned integer (a count of rows)")
BI_T(c_skipped_twice, "sk2.csv", "# amsim skipped=1\n# amsim skipped=1\n" CH "1,0,10,4096\n",
     "amsim: @:2:3: second 'amsim skipped=' comment (the first on line 1)")
/* ... and with the rows the file skips it must stay a count of 64 bits, streamed or read whole
 * (rows out of order); until 2026-11-27 the total stopped at 2^64 - 1 without a word */
static void c_skipped_total(void)
{
    bi_run(&(bi_case){BI_TRACE, "skt.csv", "# amsim skipped=18446744073709551615\n" CH
                      "0,0,0,1\n1,0,0,1\n2,0,5,1\n", 0, "amsim: @:1:17: skipped count "
                      "18446744073709551615 plus the 2 rows this file skips is more than 2^64 - 1 "
                      "(a count of rows)", NULL, NULL});
    bi_run(&(bi_case){BI_TRACE, "skt2.csv", "# amsim skipped=18446744073709551615\n" CH
                      "1,3,5,1\n2,0,2,1\n0,0,0,1\n", 0, "amsim: @:1:17: skipped count "
                      "18446744073709551615 plus the 1 row this file skips is more than 2^64 - 1 "
                      "(a count of rows)", NULL, NULL});
}
BI_TB(c_nul_row, "nulrow.csv", CH "1,0,10,4096\n\0" "2,0,10,4096\n",
      "amsim: @:3:1: NUL byte (a text trace has none: is the file binary or damaged?)")
BI_TB(c_nul_field, "nulfield.csv", CH "1,0,10,4\0" "999\n",
      "amsim: @:2:9: NUL byte (a text trace has none: is the file binary or damaged?)")
BI_T(c_missing_column, "miss.csv", CH "0,0,10\n",
     "amsim: @:2:7: missing column 'size' (expected 4 columns: id,lower,upper,size)")
BI_T(c_truncated, "trunc.csv", CH "0,0,10,5\n1,0,1",
     "amsim: @:3:6: missing column 'size' (expected 4 columns: id,lower,upper,size)")
BI_T(c_extra_column, "extra.csv", CH "0,0,10,5,6\n",
     "amsim: @:2:10: extra column 5 (expected 4 columns: id,lower,upper,size)")
BI_T(c_empty_value, "emptyv.csv", CH "0,,10,5\n",
     "amsim: @:2:3: empty lower")
BI_T(c_nan, "nan.csv", CH "0,x2,10,5\n",
     "amsim: @:2:3: bad lower 'x2': not an unsigned integer")
BI_T(c_negative, "neg.csv", CH "-1,0,10,5\n",
     "amsim: @:2:1: bad id '-1': negative")
BI_T(c_overflow, "ovf.csv", CH "0,0,10,18446744073709551616\n",
     "amsim: @:2:8: bad size '18446744073709551616': out of range (max 18446744073709551615)")
/* A long bad value is echoed by its start and "...", cut between UTF-8 characters and escapes
 * (CSV_ECHO_MAX, 64 bytes; until 2026-11-27 its first 64 bytes raw: the 40 two-byte characters
 * after the 'a' were cut inside one, and nothing said the value went on). */
#define E10 "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
BI_T(c_echo_utf8, "echo8.csv", CH "0,0,10,a" E10 E10 E10 E10 "\n",
     "amsim: @:2:8: bad size 'a" E10 E10 E10 "...': not an unsigned integer\n")
#undef E10
BI_T(c_echo_escape, "echoesc.csv",
     CH "0,0,10," "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" "\x01\x01zz\n",
     "amsim: @:2:8: bad size '" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" "...': "
     "not an unsigned integer\n")
#define U10 "\xc3\xbc\xc3\xbc\xc3\xbc\xc3\xbc\xc3\xbc\xc3\xbc\xc3\xbc\xc3\xbc\xc3\xbc\xc3\xbc"
BI_T(c_echo_skipped, "echosk.csv", "# amsim skipped=x" U10 U10 U10 U10 "\n" CH "1,0,10,4096\n",
     "amsim: @:1:17: bad skipped 'x" U10 U10 U10 "...': not an unsigned integer (a count of "
     "rows)\n")
#undef U10
BI_T(c_time_overflow, "tovf.csv", CH "0,0,18446744073709551615,5\n",
     "amsim: @:2:5: time out of range: upper tick 18446744073709551615 at 1000 ps per tick "
     "exceeds 2^64 ps")
BI_T(c_duplicate_id, "dup.csv", CH "6,0,10,5\n7,0,10,5\n6,1,2,3\n",
     "amsim: @:4:1: duplicate id 6 (first used on line 2)")
/* The first error in file order: the duplicate on line 4 before the bad upper on line 5, on
 * the streamed path's ordered and unordered ids alike (until 2026-11-27 every syntax error came
 * before every duplicate id); a syntax error before the duplicate is still reported first. */
BI_T(c_duplicate_before_bad, "dupbad.csv", CH "5,0,2,5\n3,1,4,5\n5,2,4,5\n9,3,x,5\n",
     "amsim: @:4:1: duplicate id 5 (first used on line 2)")
BI_T(c_duplicate_ordered_before_bad, "dupbad2.csv", CH "1,0,2,5\n2,1,4,5\n2,2,4,5\n3,3,x,5\n",
     "amsim: @:4:1: duplicate id 2 (first used on line 3)")
BI_T(c_bad_before_duplicate, "baddup.csv", CH "5,0,2,5\n9,3,x,5\n5,2,4,5\n",
     "amsim: @:3:5: bad upper 'x': not an unsigned integer")
/* A bare carriage return inside a row or a comment is the native reader's error at its column
 * (until 2026-11-27 a row's was read into a field: "bad size '5\x0d2'"). */
BI_T(c_cr_inside, "cr.csv", CH "5,0,2,5\n3,1,4,5\r2\n",
     "amsim: @:3:8: carriage return inside a line (line endings are LF or CRLF;")
BI_T(c_cr_comment, "crc.csv", CH "# a\rb\n5,0,2,5\n",
     "amsim: @:2:4: carriage return inside a line (line endings are LF or CRLF;")
BI_T(c_text_id, "textid.csv", CH "b1,0,1,1\n",
     "amsim: @:2:1: bad id 'b1': not an unsigned integer")

/* ---- PyTorch snapshot pickles ---------------------------------------------------------------- */

BI_TB(p_global, "global.pickle", "\x80\x02" "cos\nsystem\nX\x02\x00\x00\x00ls\x85R.",
      "amsim: @: byte 2: pickle opcode GLOBAL loads a class; a memory snapshot holds only plain "
      "data, refusing to read it")
BI_TB(p_stack_global, "sglobal.pickle",
      "\x80\x04\x8c\x02os\x94\x8c\x06system\x94\x93\x94.",
      "amsim: @: byte 16: pickle opcode STACK_GLOBAL loads a class")
BI_TB(p_reduce, "reduce.pickle", "\x80\x02]\x94)R.",
      "amsim: @: byte 5: pickle opcode REDUCE calls a function")
/* pickle.dumps([1, 2, 3], protocol=2) */
BI_TB(p_toplevel_list, "list.pickle", "\x80\x02]q\x00(K\x01K\x02K\x03" "e.",
      "amsim: @: not a PyTorch memory snapshot: the top-level value is a list, expected a dict "
      "with lists 'segments' and 'device_traces'")
/* pickle.dumps({"segments": []}, protocol=2) */
BI_TB(p_no_traces, "nodt.pickle", "\x80\x02}q\x00X\x08\x00\x00\x00segmentsq\x01]q\x02s.",
      "amsim: @: not a PyTorch memory snapshot:")
/* pickle.dumps({"segments": [], "device_traces": [[]], "amsim_start_traces": 5}, protocol=2):
 * the key amsim's export writes a replayed run's start-state prologue under (export_snapshot.c) */
BI_TB(p_start_traces, "start.pickle",
      "\x80\x02}q\x00(X\x08\x00\x00\x00segmentsq\x01]q\x02"
      "X\r\x00\x00\x00" "device_tracesq\x03]q\x04]q\x05" "aX\x12\x00\x00\x00"
      "amsim_start_tracesq\x06K\x05u.", /* split where a hex escape would run on */
      "amsim: @: 'amsim_start_traces' is an int, expected a list")
/* pickle.dumps({"segments": [], "device_traces": [[alloc at time_us 0, free_completed at
 * time_us 2 * 10**13]]}, protocol=2): 2 * 10**19 ps does not fit 64 bits (until 2026-11-27 it
 * wrapped around and was clamped to the next entry's order) */
BI_TB(p_time_overflow, "timeover.pickle",
      "\x80\x02}q\x00(X\x08\x00\x00\x00segmentsq\x01]q\x02X\x0d\x00\x00\x00" "device_tracesq\x03]"
      "q\x04]q\x05(}q\x06(X\x06\x00\x00\x00" "actionq\x07X\x05\x00\x00\x00" "allocq\x08"
      "X\x04\x00\x00\x00" "addrq\x09K\x00X\x04\x00\x00\x00sizeq\x0aM\x00\x04X\x07\x00\x00\x00"
      "time_usq\x0bK\x00u}q\x0c(h\x07X\x0e\x00\x00\x00" "free_completedq\x0dh\x09K\x00h\x0a"
      "M\x00\x04h\x0b\x8a\x06\x00@\xe5\x9c" "0\x12ueau.",
      "amsim: @: device_traces[0][1]: 'time_us' 20000000000000 is 20000000000000 us after the "
      "first entry's: out of range (at most 2^64 - 3 ps)")
/* pickle.dumps({"segments": [], "device_traces": [[{"action": "alloc", "addr": 0, "size": 1024,
 * "time_us": -3}]]}, protocol=2): PyTorch counts microseconds from the epoch (until 2026-11-28 a
 * negative time was read as one) */
BI_TB(p_time_negative, "timeneg.pickle",
      "\x80\x02}q\x00(X\x08\x00\x00\x00segmentsq\x01]q\x02X\x0d\x00\x00\x00"
      "device_tracesq\x03]q\x04]q\x05}q\x06(X\x06\x00\x00\x00"
      "actionq\x07X\x05\x00\x00\x00"
      "allocq\x08X\x04\x00\x00\x00"
      "addrq\x09K\x00X\x04\x00\x00\x00sizeq\x0aM\x00\x04X\x07\x00\x00\x00time_"
      "usq\x0bJ\xfd\xff\xff\xffuaau.",
      "amsim: @: device_traces[0][0]: 'time_us' -3 is negative (PyTorch writes microseconds since "
      "the epoch)")
/* pickle.dumps({"segments": [], "device_traces": [[alloc at time_us 0 with amsim_sub_us_ps
 * 10**6]]}, protocol=2): the picoseconds past time_us that amsim's export writes
 * (export_snapshot.c) are less than a microsecond */
BI_TB(p_sub_us_range, "subus.pickle",
      "\x80\x02}q\x00(X\x08\x00\x00\x00segmentsq\x01]q\x02X\x0d\x00\x00\x00" "device_tracesq\x03]"
      "q\x04]q\x05}q\x06(X\x06\x00\x00\x00" "actionq\x07X\x05\x00\x00\x00" "allocq\x08"
      "X\x04\x00\x00\x00" "addrq\x09K\x00X\x04\x00\x00\x00sizeq\x0aM\x00\x04X\x07\x00\x00\x00"
      "time_usq\x0bK\x00X\x0f\x00\x00\x00" "amsim_sub_us_psq\x0cJ@B\x0f\x00uaau.",
      "amsim: @: device_traces[0][0]: 'amsim_sub_us_ps' must be an integer from 0 to 999999 "
      "(picoseconds past 'time_us')")
/* the same entry with amsim_sub_us_ps 500 and no time_us: nothing to add it to */
BI_TB(p_sub_us_alone, "subus1.pickle",
      "\x80\x02}q\x00(X\x08\x00\x00\x00segmentsq\x01]q\x02X\x0d\x00\x00\x00" "device_tracesq\x03]"
      "q\x04]q\x05}q\x06(X\x06\x00\x00\x00" "actionq\x07X\x05\x00\x00\x00" "allocq\x08"
      "X\x04\x00\x00\x00" "addrq\x09K\x00X\x04\x00\x00\x00sizeq\x0aM\x00\x04X\x0f\x00\x00\x00"
      "amsim_sub_us_psq\x0bM\xf4\x01uaau.",
      "amsim: @: device_traces[0][0]: 'amsim_sub_us_ps' without a 'time_us' to add it to")
/* pickle.dumps({"segments": [], "device_traces": [[]], "amsim_end_ps": -1}, protocol=2): when
 * the run amsim exported ended (export_snapshot.c) is picoseconds after the origin */
BI_TB(p_end_negative, "endneg.pickle",
      "\x80\x02}q\x00(X\x08\x00\x00\x00segmentsq\x01]q\x02X\x0d\x00\x00\x00" "device_tracesq\x03]"
      "q\x04]q\x05" "aX\x0c\x00\x00\x00" "amsim_end_psq\x06J\xff\xff\xff\xffu.",
      "amsim: @: 'amsim_end_ps' must be an integer from 0 to 2^64 - 3 (picoseconds after the "
      "time origin)")
/* pickle.dumps({"segments": [], "device_traces": [[]], "amsim_start_traces": [[{"action":
 * "amsim_recovery_alloc", "addr": 0, "size": 1024, "from": "x"}]]}, protocol=2): where a
 * prologue recovery moved a buffer from (export_snapshot.c) is an address */
BI_TB(p_recovery_from, "recfrom.pickle",
      "\x80\x02}q\x00(X\x08\x00\x00\x00segmentsq\x01]q\x02X\x0d\x00\x00\x00"
      "device_tracesq\x03]q\x04]q\x05" "aX\x12\x00\x00\x00"
      "amsim_start_tracesq\x06]q\x07]q\x08}q\x09(X\x06\x00\x00\x00"
      "actionq\x0aX\x14\x00\x00\x00" "amsim_recovery_allocq\x0bX\x04\x00\x00\x00"
      "addrq\x0cK\x00X\x04\x00\x00\x00sizeq\x0dM\x00\x04X\x04\x00\x00\x00"
      "fromq\x0eX\x01\x00\x00\x00xq\x0fuaau.",
      "amsim: @: amsim_start_traces[0][0]: 'amsim_recovery_alloc' entry's 'from' is not a "
      "non-negative integer (an address)")
/* pickle.dumps({"segments": [], "device_traces": [[]], "amsim_start_traces": [[{"action":
 * "amsim_recovery_free", "addr": 2**64 - 1, "size": 1024}]]}, protocol=2): a recovery's entry
 * has an address as an alloc's (until 2026-11-27 its range went unchecked: "trace ok") */
BI_TB(p_recovery_free_none, "recnone.pickle",
      "\x80\x02}q\x00(X\x08\x00\x00\x00segmentsq\x01]q\x02X\x0d\x00\x00\x00"
      "device_tracesq\x03]q\x04]q\x05"
      "aX\x12\x00\x00\x00"
      "amsim_start_tracesq\x06]q\x07]q\x08}q\x09(X\x06\x00\x00\x00"
      "actionq\x0aX\x13\x00\x00\x00"
      "amsim_recovery_freeq\x0bX\x04\x00\x00\x00"
      "addrq\x0c\x8a\x09\xff\xff\xff\xff\xff\xff\xff\xff\x00X\x04\x00\x00\x00sizeq\x0dM\x00\x04"
      "uaau.",
      "amsim: @: amsim_start_traces[0][0]: 'addr' 18446744073709551615 is out of range (at most "
      "18446744073709551614; 2^64 - 1 means none)")
/* the same with {"action": "amsim_recovery_alloc", "addr": 2**64 - 4096, "size": 8192} */
BI_TB(p_recovery_alloc_past_end, "recpast.pickle",
      "\x80\x02}q\x00(X\x08\x00\x00\x00segmentsq\x01]q\x02X\x0d\x00\x00\x00"
      "device_tracesq\x03]q\x04]q\x05"
      "aX\x12\x00\x00\x00"
      "amsim_start_tracesq\x06]q\x07]q\x08}q\x09(X\x06\x00\x00\x00"
      "actionq\x0aX\x14\x00\x00\x00"
      "amsim_recovery_allocq\x0bX\x04\x00\x00\x00"
      "addrq\x0c\x8a\x09\x00\xf0\xff\xff\xff\xff\xff\xff\x00X\x04\x00\x00\x00sizeq\x0dM\x00 uaa"
      "u.",
      "amsim: @: amsim_start_traces[0][0]: 'addr' 18446744073709547520 + 'size' 8192 ends at "
      "18446744073709555712, past 2^64 - 1 (18446744073709551615, the end of the address space)")
/* an alloc at 0 of 8192 bytes, its recovery_free, and its recovery_alloc at 8192 whose 'from'
 * is 2**64 - 4096: where the buffer was is a range of its size too */
BI_TB(p_recovery_from_past_end, "recfrompast.pickle",
      "\x80\x02}q\x00(X\x08\x00\x00\x00segmentsq\x01]q\x02X\x0d\x00\x00\x00"
      "device_tracesq\x03]q\x04]q\x05"
      "aX\x12\x00\x00\x00"
      "amsim_start_tracesq\x06]q\x07]q\x08(}q\x09(X\x06\x00\x00\x00"
      "actionq\x0aX\x05\x00\x00\x00"
      "allocq\x0bX\x04\x00\x00\x00"
      "addrq\x0cK\x00X\x04\x00\x00\x00sizeq\x0dM\x00 u}q\x0e(h\x0aX\x13\x00\x00\x00"
      "amsim_recovery_freeq\x0fh\x0cK\x00h\x0dM\x00 u}q\x10(h\x0aX\x14\x00\x00\x00"
      "amsim_recovery_allocq\x11h\x0cM\x00 h\x0dM\x00 X\x04\x00\x00\x00"
      "fromq\x12\x8a\x09\x00\xf0\xff\xff\xff\xff\xff\xff\x00ueau.",
      "amsim: @: amsim_start_traces[0][2]: 'from' 18446744073709547520 + 'size' 8192 ends at "
      "18446744073709555712, past 2^64 - 1 (18446744073709551615, the end of the address space)")
/* an alloc at 0, then an amsim_recovery_free at 4096, where the prologue holds nothing (until
 * 2026-11-27 followed silently) */
BI_TB(p_recovery_free_nothing, "recfree0.pickle",
      "\x80\x02}q\x00(X\x08\x00\x00\x00segmentsq\x01]q\x02X\x0d\x00\x00\x00"
      "device_tracesq\x03]q\x04]q\x05"
      "aX\x12\x00\x00\x00"
      "amsim_start_tracesq\x06]q\x07]q\x08(}q\x09(X\x06\x00\x00\x00"
      "actionq\x0aX\x05\x00\x00\x00"
      "allocq\x0bX\x04\x00\x00\x00"
      "addrq\x0cK\x00X\x04\x00\x00\x00sizeq\x0dM\x00\x04u}q\x0e(h\x0aX\x13\x00\x00\x00"
      "amsim_recovery_freeq\x0fh\x0cM\x00\x10h\x0dM\x00\x04ueau.",
      "amsim: @: amsim_start_traces[0][1]: 'amsim_recovery_free' at address 4096, where the "
      "prologue holds no live buffer (a recovery moves live buffers only)")
/* allocs at 0 and 1024; the one at 0 recovery-freed and placed at 1024, over the live one
 * (until 2026-11-27 the trace's free at 1024 then named the moved buffer) */
BI_TB(p_recovery_alloc_over_live, "recover.pickle",
      "\x80\x02}q\x00(X\x08\x00\x00\x00segmentsq\x01]q\x02X\x0d\x00\x00\x00"
      "device_tracesq\x03]q\x04]q\x05"
      "aX\x12\x00\x00\x00"
      "amsim_start_tracesq\x06]q\x07]q\x08(}q\x09(X\x06\x00\x00\x00"
      "actionq\x0aX\x05\x00\x00\x00"
      "allocq\x0bX\x04\x00\x00\x00"
      "addrq\x0cK\x00X\x04\x00\x00\x00sizeq\x0dM\x00\x04u}q\x0e(h\x0ah\x0bh\x0cM\x00\x04h\x0dM\x00"
      "\x04u}q\x0f(h\x0aX\x13\x00\x00\x00"
      "amsim_recovery_freeq\x10h\x0cK\x00h\x0dM\x00\x04u}q\x11(h\x0aX\x14\x00\x00\x00"
      "amsim_recovery_allocq\x12h\x0cM\x00\x04h\x0dM\x00\x04X\x04\x00\x00\x00"
      "fromq\x13K\x00ueau.",
      "amsim: @: amsim_start_traces[0][3]: 'amsim_recovery_alloc' at address 1024, where a "
      "buffer of the prologue is still live (a recovery places a buffer in free space only)")
/* allocs at 0 of 8192 bytes and at 1024 of 1024 in amsim_start_traces: refused as the trace's
 * alloc is (until 2026-11-28 accepted, and the overlapping ranges then hid a later trace alloc's
 * overlap of the first, at 4096, from the check) */
BI_TB(p_start_alloc_overlap, "startover.pickle",
      "\x80\x02}q\x00(X\x08\x00\x00\x00segmentsq\x01]q\x02X\x0d\x00\x00\x00"
      "device_tracesq\x03]q\x04]q\x05" "aX\x12\x00\x00\x00"
      "amsim_start_tracesq\x06]q\x07]q\x08(}q\x09(X\x06\x00\x00\x00"
      "actionq\x0aX\x05\x00\x00\x00" "allocq\x0bX\x04\x00\x00\x00"
      "addrq\x0cK\x00X\x04\x00\x00\x00sizeq\x0dM\x00 u}q\x0e(h\x0ah\x0bh\x0cM\x00\x04h\x0d"
      "M\x00\x04ueau.",
      "amsim: @: amsim_start_traces[0][1]: 'alloc' of 1024 bytes at address 1024 overlaps the "
      "block at address 0, not yet freed (no free_completed): a caching allocator never hands "
      "out such an address")
/* pickle.dumps({"segments": [], "device_traces": [[]], "allocator_settings": [1]}, protocol=2): a
 * setting of another type than PyTorch writes (until 2026-11-28 left out without a word) */
BI_TB(p_settings_list, "setlist.pickle",
      "\x80\x02}q\x00(X\x08\x00\x00\x00segmentsq\x01]q\x02X\x0d\x00\x00\x00"
      "device_tracesq\x03]q\x04]q\x05"
      "aX\x12\x00\x00\x00"
      "allocator_settingsq\x06]q\x07K\x01"
      "au.",
      "amsim: @: 'allocator_settings' is a list, expected a dict")
/* pickle.dumps({"segments": [], "device_traces": [[]], "allocator_settings": {"expandable_segments": 1}}, protocol=2) */
BI_TB(p_settings_expandable_int, "setexp.pickle",
      "\x80\x02}q\x00(X\x08\x00\x00\x00segmentsq\x01]q\x02X\x0d\x00\x00\x00"
      "device_tracesq\x03]q\x04]q\x05"
      "aX\x12\x00\x00\x00"
      "allocator_settingsq\x06}q\x07X\x13\x00\x00\x00"
      "expandable_segmentsq\x08K\x01su.",
      "amsim: @: allocator_settings: 'expandable_segments' is an int, expected a bool")
/* pickle.dumps({"segments": [], "device_traces": [[]], "allocator_settings": {"max_split_size": None}}, protocol=2) */
BI_TB(p_settings_max_split_none, "setmss.pickle",
      "\x80\x02}q\x00(X\x08\x00\x00\x00segmentsq\x01]q\x02X\x0d\x00\x00\x00"
      "device_tracesq\x03]q\x04]q\x05"
      "aX\x12\x00\x00\x00"
      "allocator_settingsq\x06}q\x07X\x0e\x00\x00\x00max_split_sizeq\x08Nsu.",
      "amsim: @: allocator_settings: 'max_split_size' is None, expected an integer (bytes; -1: "
      "unlimited)")
/* pickle.dumps({"segments": [], "device_traces": [[]], "allocator_settings": {"roundup_power2_divisions": [4, 0]}}, protocol=2) */
BI_TB(p_settings_divisions_list, "setdivl.pickle",
      "\x80\x02}q\x00(X\x08\x00\x00\x00segmentsq\x01]q\x02X\x0d\x00\x00\x00"
      "device_tracesq\x03]q\x04]q\x05"
      "aX\x12\x00\x00\x00"
      "allocator_settingsq\x06}q\x07X\x18\x00\x00\x00roundup_power2_divisionsq"
      "\x08]q\x09(K\x04K\x00"
      "esu.",
      "amsim: @: allocator_settings: 'roundup_power2_divisions' is a list, expected a dict "
      "(interval start in MiB: divisions) or an integer")
/* pickle.dumps({"segments": [], "device_traces": [[]], "allocator_settings": {"roundup_power2_divisions": {"1": "x"}}}, protocol=2) */
BI_TB(p_settings_divisions_str, "setdivs.pickle",
      "\x80\x02}q\x00(X\x08\x00\x00\x00segmentsq\x01]q\x02X\x0d\x00\x00\x00"
      "device_tracesq\x03]q\x04]q\x05"
      "aX\x12\x00\x00\x00"
      "allocator_settingsq\x06}q\x07X\x18\x00\x00\x00roundup_power2_divisionsq"
      "\x08}q\x09X\x01\x00\x00\x00"
      "1q\x0aX\x01\x00\x00\x00xq\x0bssu.",
      "amsim: @: allocator_settings: 'roundup_power2_divisions'['1'] is a str, expected an "
      "integer (divisions)")
/* pickle.dumps({"segments": [], "device_traces": [[]], "allocator_settings": {"garbage_collection_threshold": "0.8"}}, protocol=2) */
BI_TB(p_settings_gc_str, "setgc.pickle",
      "\x80\x02}q\x00(X\x08\x00\x00\x00segmentsq\x01]q\x02X\x0d\x00\x00\x00"
      "device_tracesq\x03]q\x04]q\x05"
      "aX\x12\x00\x00\x00"
      "allocator_settingsq\x06}q\x07X\x1c\x00\x00\x00garbage_collection_thresh"
      "oldq\x08X\x03\x00\x00\x00"
      "0.8q\x09su.",
      "amsim: @: allocator_settings: 'garbage_collection_threshold' is a str, expected a float")
/* pickle.dumps({"segments": [], "device_traces": [[]], "allocator_settings": {"garbage_collection_threshold": 2.0}}, protocol=2):
 * no threshold PyTorch takes (0 < threshold < 1, or 0: off; until 2026-11-28 a run left it out
 * without a word, while convert named it) */
BI_TB(p_settings_gc_range, "setgcr.pickle",
      "\x80\x02}q\x00(X\x08\x00\x00\x00segmentsq\x01]q\x02X\x0d\x00\x00\x00"
      "device_tracesq\x03]q\x04]q\x05"
      "aX\x12\x00\x00\x00"
      "allocator_settingsq\x06}q\x07X\x1c\x00\x00\x00garbage_collection_thresh"
      "oldq\x08G@\x00\x00\x00\x00\x00\x00\x00su.",
      "amsim: @: allocator_settings: 'garbage_collection_threshold' 2 is out of range (0: off, "
      "or above 0 and below 1)")
/* the same with float("nan") */
BI_TB(p_settings_gc_nan, "setgcn.pickle",
      "\x80\x02}q\x00(X\x08\x00\x00\x00segmentsq\x01]q\x02X\x0d\x00\x00\x00"
      "device_tracesq\x03]q\x04]q\x05"
      "aX\x12\x00\x00\x00"
      "allocator_settingsq\x06}q\x07X\x1c\x00\x00\x00garbage_collection_thresh"
      "oldq\x08G\x7f\xf8\x00\x00\x00\x00\x00\x00su.",
      "amsim: @: allocator_settings: 'garbage_collection_threshold' nan is out of range (0: "
      "off, or above 0 and below 1)")
/* pickle.dumps({"segments": [], "device_traces": [[{"action": "alloc", "addr": 0, "size": 1024},
 * {"action": "alloc", "addr": 512, "size": 1024}]]}, protocol=2): the second request overlaps the
 * first, still live (until 2026-11-28 accepted, both later frees going to the second) */
BI_TB(p_alloc_over_live, "allocover.pickle",
      "\x80\x02}q\x00(X\x08\x00\x00\x00segmentsq\x01]q\x02X\x0d\x00\x00\x00"
      "device_tracesq\x03]q\x04]q\x05(}q\x06(X\x06\x00\x00\x00"
      "actionq\x07X\x05\x00\x00\x00"
      "allocq\x08X\x04\x00\x00\x00"
      "addrq\x09K\x00X\x04\x00\x00\x00sizeq\x0aM\x00\x04u}q\x0b(h\x07h\x08h\x09"
      "M\x00\x02h\x0aM\x00\x04ueau.",
      "amsim: @: device_traces[0][1]: 'alloc' of 1024 bytes at address 512 overlaps the block at "
      "address 0, not yet freed (no free_completed): a caching allocator never hands out such an "
      "address")
/* pickle.dumps({"segments": [], "device_traces": [[{"action": "alloc", "addr": 0, "size": 1024,
 * "stream": True}]]}, protocol=2): a bool is no stream handle (until 2026-11-27 read as 1) */
BI_TB(p_bool_stream, "boolstream.pickle",
      "\x80\x02}q\x00(X\x08\x00\x00\x00segmentsq\x01]q\x02X\x0d\x00\x00\x00"
      "device_tracesq\x03]q\x04]q\x05}q\x06(X\x06\x00\x00\x00"
      "actionq\x07X\x05\x00\x00\x00"
      "allocq\x08X\x04\x00\x00\x00"
      "addrq\x09K\x00X\x04\x00\x00\x00sizeq\x0aM\x00\x04X\x06\x00\x00\x00streamq\x0b\x88uaau.",
      "amsim: @: device_traces[0][0]: 'stream' is a bool, expected an integer")
/* a segment whose 'device' is True (until 2026-11-27 read as device 1) */
BI_TB(p_bool_device, "booldev.pickle",
      "\x80\x02}q\x00(X\x08\x00\x00\x00segmentsq\x01]q\x02}q\x03(X\x07\x00\x00\x00"
      "addressq\x04K\x00X\x0a\x00\x00\x00total_sizeq\x05J\x00\x00 \x00X\x06\x00\x00\x00"
      "deviceq\x06\x88X\x06\x00\x00\x00"
      "blocksq\x07]q\x08uaX\x0d\x00\x00\x00"
      "device_tracesq\x09]q\x0a]q\x0b"
      "au.",
      "amsim: @: segments[0]: 'device' is a bool, expected an integer")
/* pickle.dumps({"segments": [{"device": D, "address": 0, "total_size": 2097152, "blocks": []}],
 * "device_traces": [[]]}, protocol=2): a segment on a device --device cannot take is refused by
 * its value (until 2026-11-27 device -1 was left out, "trace ok, 0 events", and device 1025
 * was suggested as "--device 1025", which --device refuses) */
#define PSEG_HEAD "\x80\x02}q\x00(X\x08\x00\x00\x00segmentsq\x01]q\x02}q\x03(X\x06\x00\x00\x00" \
                  "deviceq\x04"
#define PSEG_TAIL "X\x07\x00\x00\x00" "addressq\x05K\x00X\x0a\x00\x00\x00" "total_sizeq\x06" \
                  "J\x00\x00\x20\x00X\x06\x00\x00\x00" "blocksq\x07]q\x08uaX\x0d\x00\x00\x00" \
                  "device_tracesq\x09]q\x0a]q\x0b" "au."
BI_TB(p_seg_device_negative, "segneg.pickle", PSEG_HEAD "J\xff\xff\xff\xff" PSEG_TAIL,
      "amsim: @: segments[0]: 'device' -1 is out of range (a device number is 0..1024)")
BI_TB(p_seg_device_1025, "seg1025.pickle", PSEG_HEAD "M\x01\x04" PSEG_TAIL,
      "amsim: @: segments[0]: 'device' 1025 is out of range (a device number is 0..1024)")
#undef PSEG_HEAD
#undef PSEG_TAIL
/* pickle.dumps({"segments": [{"address": 0, "total_size": 2097152, "blocks": [{"address": 0,
 * "size": 2097152, "state": STATE}], "segment_type": TYPE}], "device_traces": [[]]},
 * protocol=2), optimized: a block state or segment type PyTorch does not write is refused by
 * its field (until 2026-11-27 state "allocated" was read as free, a type "medium" as large,
 * status 0) */
BI_TB(p_block_state, "bstate.pickle",
      "\x80\x02}(X\x08\x00\x00\x00segments]}(X\x07\x00\x00\x00" "addressq\x00K\x00X\x0a\x00\x00"
      "\x00total_sizeJ\x00\x00 \x00X\x06\x00\x00\x00" "blocks]}(h\x00K\x00X\x04\x00\x00\x00"
      "sizeJ\x00\x00 \x00X\x05\x00\x00\x00stateX\x09\x00\x00\x00" "allocateduaX\x0c\x00\x00"
      "\x00segment_typeX\x05\x00\x00\x00largeuaX\x0d\x00\x00\x00" "device_traces]]au.",
      "amsim: @: segments[0].blocks[0].state: 'allocated' is not a block state (inactive, "
      "active_allocated or active_pending_free)")
BI_TB(p_segment_type, "stype.pickle",
      "\x80\x02}(X\x08\x00\x00\x00segments]}(X\x07\x00\x00\x00" "addressq\x00K\x00X\x0a\x00\x00"
      "\x00total_sizeJ\x00\x00 \x00X\x06\x00\x00\x00" "blocks]}(h\x00K\x00X\x04\x00\x00\x00"
      "sizeJ\x00\x00 \x00X\x05\x00\x00\x00stateX\x10\x00\x00\x00" "active_allocatedua"
      "X\x0c\x00\x00\x00segment_typeX\x06\x00\x00\x00mediumuaX\x0d\x00\x00\x00"
      "device_traces]]au.",
      "amsim: @: segments[0].segment_type: 'medium' is not a segment type (small or large)")
/* pickle.dumps({"segments": [], "device_traces": [[{"action": "alloc", "addr": 2**64 - 1,
 * "size": 512}]]}, protocol=2), optimized: addresses and sizes are read up to 2^64 - 1 since
 * 2026-11-27 (amsim's export writes them; before, any from 2^63 was refused as wider than 64
 * bits), but 2^64 - 1 means "no address", as in a native trace */
BI_TB(p_addr_none, "addrnone.pickle",
      "\x80\x02}(X\x08\x00\x00\x00segments]X\x0d\x00\x00\x00" "device_traces]]}(X\x06\x00\x00"
      "\x00" "actionX\x05\x00\x00\x00" "allocX\x04\x00\x00\x00" "addr\x8a\x09\xff\xff\xff\xff"
      "\xff\xff\xff\xff\x00X\x04\x00\x00\x00sizeM\x00\x02uaau.",
      "amsim: @: device_traces[0][0]: 'addr' 18446744073709551615 is out of range (at most "
      "18446744073709551614; 2^64 - 1 means none)")
/* two blocks of 2^63 + 1 MiB: their sum wrapped to 2 MiB in 64 bits and tiled a 2 MiB segment
 * (until 2026-11-27, status 0); summed in 128 bits it is refused as any overrun is */
BI_TB(p_block_sum_wraps, "blksum.pickle",
      "\x80\x02}(X\x08\x00\x00\x00segments]}(X\x07\x00\x00\x00" "addressq\x00K\x00X\x0a\x00\x00"
      "\x00total_sizeJ\x00\x00 \x00X\x06\x00\x00\x00" "blocks](}(h\x00K\x00X\x04\x00\x00\x00"
      "sizeq\x01\x8a\x09\x00\x00\x10\x00\x00\x00\x00\x80\x00X\x05\x00\x00\x00stateq\x02X\x08"
      "\x00\x00\x00inactiveq\x03u}(h\x00\x8a\x09\x00\x00\x10\x00\x00\x00\x00\x80\x00h\x01\x8a"
      "\x09\x00\x00\x10\x00\x00\x00\x00\x80\x00h\x02h\x03ueuaX\x0d\x00\x00\x00" "device_traces]]au.",
      "amsim: @: segments[0]: blocks cover 18446744073711648768 of 2097152 bytes")
/* a segment at 2^64 - 1 MiB of 2 MiB: its end passes 2^64 (until 2026-11-27 it wrapped) */
BI_TB(p_segment_end_wraps, "segwrap.pickle",
      "\x80\x02}(X\x08\x00\x00\x00segments]}(X\x07\x00\x00\x00" "addressq\x00\x8a\x09\x00\x00"
      "\xf0\xff\xff\xff\xff\xff\x00X\x0a\x00\x00\x00total_sizeJ\x00\x00 \x00X\x06\x00\x00\x00"
      "blocks]}(h\x00\x8a\x09\x00\x00\xf0\xff\xff\xff\xff\xff\x00X\x04\x00\x00\x00sizeJ\x00\x00 "
      "\x00X\x05\x00\x00\x00stateX\x08\x00\x00\x00inactiveuauaX\x0d\x00\x00\x00" "device_traces]]au.",
      "amsim: @: segments[0]: 'address' 18446744073708503040 + 'total_size' 2097152 ends at "
      "18446744073710600192, past 2^64 - 1 (18446744073709551615, the end of the address space)")
/* pickle.dumps({"segments": [{"address": 0, "total_size": 4 MiB, "blocks": [one inactive]},
 * {"address": 2 MiB, "total_size": 2 MiB, "blocks": [one inactive]}], "device_traces": [[]]},
 * protocol=2), optimized: one device's segments are distinct device allocations; until
 * 2026-11-27 overlapping ones were read and the prologue tiled both (status 0), and the reader,
 * which keeps every block in one tree by address since then, cannot hold them */
BI_TB(p_segments_overlap, "segov.pickle",
      "\x80\x02}(X\x08\x00\x00\x00segments](}(X\x07\x00\x00\x00" "addressq\x00K\x00X\x0a\x00\x00"
      "\x00total_sizeq\x01J\x00\x00@\x00X\x06\x00\x00\x00" "blocksq\x02]}(h\x00K\x00X\x04\x00\x00"
      "\x00sizeq\x03J\x00\x00@\x00X\x05\x00\x00\x00stateq\x04X\x08\x00\x00\x00inactiveq\x05uau}"
      "(h\x00J\x00\x00 \x00h\x01J\x00\x00 \x00h\x02]}(h\x00J\x00\x00 \x00h\x03J\x00\x00 \x00h\x04"
      "h\x05uaueX\x0d\x00\x00\x00" "device_traces]]au.",
      "amsim: @: segments[1]: address 2097152 + 2097152 bytes overlaps the segment at address 0 "
      "(4194304 bytes): one device's segments never overlap")
BI_TB(p_huge_length, "huge.pickle", "\x80\x04\x8d\x00\x00\x00\x00\x00\x00\x00\x40" "abc.",
      "amsim: @: byte 2: pickle opcode BINUNICODE8 declares 4611686018427387904 bytes but only 4 "
      "remain")
BI_TB(p_huge_length32, "huge32.pickle", "\x80\x02X\xff\xff\xff\x7f" "ab.",
      "amsim: @: byte 2: pickle opcode BINUNICODE declares 2147483647 bytes but only 3 remain")
BI_TB(p_truncated, "trunc.pickle", "\x80",
      "amsim: @: byte 0: pickle opcode PROTO: the file ends inside its operand (truncated)")
BI_TB(p_protocol, "proto.pickle", "\x80\x09}.",
      "amsim: @: byte 0: pickle protocol 9 is not supported (2 to 5 are)")

static char *gen_repeat(const char *head, const char *unit, int n, const char *mid,
                        const char *unit2, int n2, const char *tail, size_t *len)
{
    size_t hl = strlen(head), ul = strlen(unit), ml = strlen(mid), u2 = strlen(unit2),
           tl = strlen(tail);
    size_t total = hl + ul * (size_t)n + ml + u2 * (size_t)n2 + tl;
    char *s = malloc(total + 1), *p = s;
    memcpy(p, head, hl), p += hl;
    for (int i = 0; i < n; i++)
        memcpy(p, unit, ul), p += ul;
    memcpy(p, mid, ml), p += ml;
    for (int i = 0; i < n2; i++)
        memcpy(p, unit2, u2), p += u2;
    memcpy(p, tail, tl), p += tl;
    *p = 0;
    *len = total;
    return s;
}

/* A recursion bomb: 1500 lists, each appended into the one below (nesting 1500 > 1000). */
static void p_nesting(void)
{
    size_t len;
    char *s = gen_repeat("\x80\x02", "]", 1500, "", "a", 1499, ".", &len);
    bi_run(&(bi_case){BI_TRACE, "deep.pickle", s, len,
                      "amsim: @: byte 2501: containers nested more than 1000 deep (at a list)",
                      NULL, NULL});
    free(s);
}

/* The same depth built the other way round: each new list is appended into the previous one
 * after that one already sits inside its parent (fetched back through the memo), 1005 deep.
 * Until 2026-11-27 only the direct order above was refused. */
static void p_nesting_chain(void)
{
    size_t len = 4 + 9 * 1004 + 1, n = 0;
    char *s = malloc(len);
    memcpy(s, "\x80\x04]\x94", 4), n = 4;
    for (unsigned i = 1; i < 1005; i++) {
        s[n++] = 'j'; /* LONG_BINGET i - 1 */
        for (int b = 0; b < 4; b++)
            s[n++] = (char)((i - 1) >> (8 * b) & 0xff);
        memcpy(s + n, "]\x94" "a0", 4), n += 4; /* new list, MEMOIZE, APPEND, POP */
    }
    s[n++] = '.';
    bi_run(&(bi_case){BI_TRACE, "chain.pickle", s, len,
                      "amsim: @: byte 9040: containers nested more than 1000 deep (at a list)",
                      NULL, NULL});
    free(s);
}

/* 1500 open MARKs */
static void p_marks(void)
{
    size_t len;
    char *s = gen_repeat("\x80\x02", "(", 1500, "", "", 0, ".", &len);
    bi_run(&(bi_case){BI_TRACE, "marks.pickle", s, len,
                      "amsim: @: byte 1002: more than 1000 open MARKs (nesting too deep)", NULL,
                      NULL});
    free(s);
}

/* ---- limits: line too long ------------------------------------------------------------------- */

static void t_line_too_long(void)
{
    size_t len;
    char *s = gen_repeat(H "alloc 1 1 name=", "x", 70000, "\n", "", 0, "", &len);
    bi_run(&(bi_case){BI_TRACE, "long.trace", s, len,
                      "amsim: @:2:65537: line too long (limit 65536 bytes)", NULL, NULL});
    free(s);
}

/* Before or at the header, a line too long is the same error, not an "unrecognised trace
 * format" (until 2026-11-27): a comment, a blank line and the header itself. A binary file
 * without a newline stays unrecognised (t_garbage_long). */
static void t_line_too_long_first(void)
{
    static const char *const first[] = {"# ", "  ", "amsim-trace v1 time_unit="};
    for (size_t k = 0; k < 3; k++) {
        size_t len;
        char *s = gen_repeat(first[k], k == 1 ? " " : "x", 70000, "\n", "", 0, H, &len);
        bi_run(&(bi_case){BI_TRACE, "longfirst.trace", s, len,
                          "amsim: @:1:65537: line too long (limit 65536 bytes)", NULL, NULL});
        free(s);
    }
}

static void t_garbage_long(void)
{
    size_t len;
    char *s = gen_repeat("\x01\x02" "ELF", "\xfe", 70000, "", "", 0, "", &len);
    bi_run(&(bi_case){BI_TRACE, "garbagelong.trace", s, len,
                      "amsim: @: unrecognised trace format (expected 'amsim-trace v1'", NULL,
                      NULL});
    free(s);
}

static void c_line_too_long(void)
{
    size_t len;
    char *s = gen_repeat(CH "1,2,3,", "4", 70000, "\n", "", 0, "", &len);
    bi_run(&(bi_case){BI_TRACE, "long.csv", s, len,
                      "amsim: @:2:65537: line too long (limit 65536 bytes)", NULL, NULL});
    free(s);
}

static void t_name_too_long(void)
{
    size_t len;
    char *s = gen_repeat(H "alloc 1 1 name=", "n", 256, "\n", "", 0, "", &len);
    bi_run(&(bi_case){BI_TRACE, "lname.trace", s, len,
                      "amsim: @:2:16: name too long (256 bytes, limit 255)", NULL, NULL});
    free(s);
}

/* ---- YAML configs ------------------------------------------------------------------------- */

#define V "version: 1\n"
BI_C(y_syntax, "syntax.yaml", V "memories:\n  hbm: {capacity: 1GiB\n",
     "amsim: @:4:1: did not find expected ',' or '}' (while parsing a flow mapping at line 3, "
     "column 8)")
BI_C(y_indent, "indent.yaml", V "memories:\n  hbm:\n    capacity: 1GiB\n   kind: hbm\n",
     "amsim: @:5:4: did not find expected key (while parsing a block mapping at line 3, column 3)")
/* A quoted "~" or 'null' where a map goes is a string, refused as `allocator: none` is; a
 * plain ~ and '' stay null (until 2026-11-28 the quoted ones were null too). In a file, by
 * --set, and in a sweep's set:, whose value is passed on with its quotes. */
static void bi_sweep(const char *name, const char *text, const char *want);
static void y_quoted_null(void)
{
    bi_run(&(bi_case){BI_CONFIG, "qnull.yaml",
                      V "device: h100\nmemories: {hbm: {allocator: \"~\"}}\n", 0,
                      "amsim: @:3:18: memories.hbm.allocator: expected a map, not a scalar",
                      NULL, NULL});
    bi_run(&(bi_case){BI_CONFIG, "qnull2.yaml", V "device: h100\nlinks: 'null'\n", 0,
                      "amsim: @:3:1: links: expected a map, not a scalar", NULL, NULL});
    bi_run(&(bi_case){BI_CONFIG, "qnull3.yaml", V "device: h100\n", 0,
                      "amsim: --set 'memories.hbm.allocator=\"~\"': memories.hbm.allocator: "
                      "expected a map, not a scalar",
                      "--set 'memories.hbm.allocator=\"~\"'", NULL});
    bi_sweep("qnull-sweep.yaml", "set: {memories.hbm.allocator: 'null'}\n",
             "@:3:31: memories.hbm.allocator: expected a map, not a scalar");
}
/* Only a plain scalar is null: a block scalar (|- or >-) holding ~ or null is a string too,
 * in a file and in a sweep's set: (until 2026-11-28 both were null, an empty map, and set: said
 * "memories.host is a map, merged key by key: an empty value would set nothing"). */
static void y_block_null(void)
{
    bi_run(&(bi_case){BI_CONFIG, "bnull.yaml",
                      V "device: h100\nmemories:\n  hbm:\n    allocator: |-\n      ~\n", 0,
                      "amsim: @:5:5: memories.hbm.allocator: expected a map, not a scalar",
                      NULL, NULL});
    bi_run(&(bi_case){BI_CONFIG, "bnull2.yaml", V "device: h100\nlinks: >-\n  null\n", 0,
                      "amsim: @:3:1: links: expected a map, not a scalar", NULL, NULL});
    bi_sweep("bnull-sweep.yaml", "set:\n  memories.host: |-\n    ~\n",
             "@:4:18: memories.host: expected a map, not a scalar");
}
/* An axis value reaches the run as written, as a set: value does: a plain ~ or null is null
 * (an empty value), a quoted or block one a string (until 2026-11-28 axis values had the two
 * turned around: [~] was "expected a map" and ["null"] "would set nothing"). */
static void y_axis_null(void)
{
    static const char *const c[][2] = {
        {"axes: {memories.host: [~]}\n", "@:3:24: memories.host is a map, merged key by key: an "
                                         "empty value would set nothing; set its keys "
                                         "(memories.host.KEY=VALUE)"},
        {"axes: {memories.host: [null]}\n", "@:3:24: memories.host is a map, merged key by key: "
                                            "an empty value would set nothing; set its keys "
                                            "(memories.host.KEY=VALUE)"},
        {"axes: {memories.host: [\"null\"]}\n", "@:3:24: memories.host: expected a map, not a "
                                                "scalar"},
        {"axes: {memories.host: '~'}\n", "@:3:23: memories.host: expected a map, not a scalar"},
        {"axes:\n  memories.host:\n    - |-\n      null\n",
         "@:5:7: memories.host: expected a map, not a scalar"},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++)
        bi_sweep("axnull.yaml", c[i][0], c[i][1]);
}
/* preset_merged (what an effective config writes beside its device: the preset is in the
 * file, nothing is looked up) takes a boolean and a device to label. */
BI_C(y_preset_merged_value, "pmerged.yaml", V "device: h100\npreset_merged: maybe\n",
     "amsim: @:3:1: preset_merged: expected true or false, got 'maybe'")
BI_C(y_preset_merged_no_device, "pmerged2.yaml",
     V "preset_merged: true\nmemories: {hbm: {capacity: 1GiB}}\n",
     "amsim: @:2:1: preset_merged: true, but the config names no device")
/* Over preset_merged: true the device is only the merged preset's name: an override naming
 * another device is refused where it is written, a --set or a sweep's set: or axis value
 * (until 2026-11-28 it relabelled the run, the hardware staying the file's). */
#define BI_MERGED V "device: h100\npreset_merged: true\nmemories: {hbm: {capacity: 1GiB}}\n"
static void y_preset_merged_other_device(void)
{
    bi_run(&(bi_case){BI_CONFIG, "pmdev.yaml", BI_MERGED, 0,
                      "amsim: --set 'device=h1000': device: cannot change 'h100' to 'h1000': the "
                      "preset of 'h100' is already merged into this config (preset_merged: "
                      "true), another name would only relabel its hardware; start from a config "
                      "without preset_merged (e.g. version: 1 and device: h1000) to run another "
                      "device",
                      "--set device=h1000", NULL});
    char sw[4096], args[1200];
    const char *cfg = bi_write("pmdev-base.yaml", BI_MERGED, strlen(BI_MERGED));
    snprintf(sw, sizeof sw, "base: %s\ntraces: [%s]\naxes: {device: [h100, a100-80gb]}\n", cfg,
             trace_gpu());
    const char *p = bi_write("pmdev-sweep.yaml", sw, strlen(sw));
    char *w = bi_expand("amsim: @:3:23: device: cannot change 'h100' to 'a100-80gb'", p);
    snprintf(args, sizeof args, "check '%s'", p);
    bi_expect(args, 1, w);
    free(w);
}
/* preset_merged: true given by an override over a file that does not say it is refused at the
 * override, a --set or a sweep's set: (until 2026-11-28 the load went on without the preset
 * and failed on the file: "FILE:1:1: missing required key 'memories' ...", naming no --set). */
static void y_preset_merged_by_set(void)
{
#define BI_PM_WHY "preset_merged: true over a file that does not say so: only a file holding " \
                  "its device's preset (an effective config) can; drop this override to load " \
                  "the preset"
    bi_run(&(bi_case){BI_CONFIG, "pmset.yaml", V "device: h100\npreset_merged: false\n", 0,
                      "amsim: --set 'preset_merged=on': " BI_PM_WHY, "--set preset_merged=on",
                      NULL});
    bi_run(&(bi_case){BI_CONFIG, "pmset2.yaml", V "device: h100\n", 0,
                      "amsim: --set 'preset_merged=true': " BI_PM_WHY,
                      "--set preset_merged=true", NULL});
    char sw[4096], args[1200];
    const char *cfg = bi_write("pmset-base.yaml", V "device: h100\n", strlen(V "device: h100\n"));
    snprintf(sw, sizeof sw, "base: %s\ntraces: [%s]\nset: {preset_merged: true}\n", cfg,
             trace_gpu());
    const char *p = bi_write("pmset-sweep.yaml", sw, strlen(sw));
    char *w = bi_expand("amsim: @:3:22: " BI_PM_WHY, p);
    snprintf(args, sizeof args, "check '%s'", p);
    bi_expect(args, 1, w);
    free(w);
#undef BI_PM_WHY
}
/* A device preset copied from an effective config, preset_merged kept: refused at the key, as
 * a device in a preset is (until 2026-11-28 the effective config said it twice, unreadable). */
static void y_preset_says_merged(void)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/devices", tu_tmpdir());
    mkdir(dir, 0777);
    const char *pre = "version: 1\npreset_merged: true\nmemories: {hbm: {capacity: 1GiB}}\n";
    const char *pp = bi_write("devices/pmcopy.yaml", pre, strlen(pre));
    char *w = bi_expand("amsim: @:2:1: a device preset cannot say preset_merged (an effective "
                        "config's key: leave it out of the preset)", pp);
    bi_run(&(bi_case){BI_CONFIG, "pmcopy.yaml", V "device: pmcopy\n", 0, w, NULL, NULL});
    free(w);
}
/* preset_merged: true without the preset's keys (typed by hand): no preset is loaded, and the
 * missing memories say so (until 2026-11-28 the plain "missing required key" beside a device). */
BI_C(y_preset_merged_no_memories, "pmnomem.yaml", V "device: h100\npreset_merged: true\n",
     "amsim: @:1:1: missing required key 'memories' (at least one memory): preset_merged: true "
     "says the preset of 'h100' is already in this file, so no preset is loaded; drop "
     "preset_merged to load it")
/* A minus sign on a zero config number is refused as on any other negative value, with the
 * same message (until 2026-11-27 memory_limit: -0, timeline_interval: -0, a latency of -0ps and
 * energy_per_byte: -0 were read as 0, though a trace refused "-0"). */
static void y_minus_zero(void)
{
    static const struct {
        const char *args, *want;
    } cases[] = {
        {"--set memories.hbm.allocator.memory_limit=-0",
         "amsim: --set 'memories.hbm.allocator.memory_limit=-0': "
         "memories.hbm.allocator.memory_limit: bad size '-0': negative values are not allowed"},
        {"--set report.timeline_interval=-0",
         "amsim: --set 'report.timeline_interval=-0': report.timeline_interval: bad time '-0': "
         "negative values are not allowed"},
        {"--set links.pcie.latency=-0ps",
         "amsim: --set 'links.pcie.latency=-0ps': links.pcie.latency: bad time '-0ps': negative "
         "values are not allowed"},
        {"--set links.pcie.energy_per_byte=-0",
         "amsim: --set 'links.pcie.energy_per_byte=-0': links.pcie.energy_per_byte: must be between "
         "0 and 1e12 picojoules per byte (1 J), not -0"},
        {"--set links.pcie.energy_per_byte=-0.0e3",
         "amsim: --set 'links.pcie.energy_per_byte=-0.0e3': links.pcie.energy_per_byte: must be "
         "between 0 and 1e12 picojoules per byte (1 J), not -0"},
        {"--set links.pcie.efficiency=-0",
         "amsim: --set 'links.pcie.efficiency=-0': links.pcie.efficiency: expected a fraction "
         "between 0 and 1, got '-0'"},
        {"--set memories.hbm.capacity=-0KiB",
         "amsim: --set 'memories.hbm.capacity=-0KiB': memories.hbm.capacity: bad size '-0KiB': "
         "negative values are not allowed"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *cp = bi_write("minus0.yaml", BI_CFG_TEXT, strlen(BI_CFG_TEXT));
        char args[4096];
        snprintf(args, sizeof args, "run -q -c '%s' -t '%s' %s", cp, trace_gpu(), cases[i].args);
        bi_expect(args, 1, cases[i].want);
    }
    /* in a YAML file, at the value */
    static const char cfg[] = BI_CFG_TEXT "report: {timeline_interval: -0}\n";
    const char *cp = bi_write("minus0y.yaml", cfg, strlen(cfg));
    char args[4096];
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s'", cp, trace_gpu());
    char *want = bi_expand("amsim: @:8:10: report.timeline_interval: bad time '-0': negative "
                           "values are not allowed", cp);
    bi_expect(args, 1, want);
    free(want);
}

/* "0." followed by 400 zeros and a 1 (with a sign when neg): a nonzero number below the
 * smallest double, written without an exponent. The caller frees it. */
static char *tiny_decimal(int neg)
{
    char *s = malloc(408);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    snprintf(s, 408, "%s0.%0400d", neg ? "-" : "", 1);
    return s;
}

/* A nonzero real that underflows to 0 is refused as too small in every form, a plain decimal
 * too: until 2026-11-27 the config took 1e-400 (and 0.000...0001) for 0, and gen caught only
 * the forms with an exponent (gen kernel --jitter 0.000...0001 was 0, gen serve --rate the
 * same "--rate 0 is out of range"). */
static void y_real_underflow(void)
{
    char *tiny = tiny_decimal(0), *ntiny = tiny_decimal(1);
    const char *forms[] = {"1e-400", tiny, ntiny};
    char text[2048], args[4096], want[2048];
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
        /* the link's map in block style, its last key the value; a long value is quoted cut
         * short ("..."), so the message is matched up to its first 20 characters */
        snprintf(text, sizeof text, "version: 1\ndefault_memory: hbm\nmemories:\n"
                 "  hbm: {kind: hbm, capacity: 16GiB, allocator: {policy: bfc}}\n"
                 "  host: {kind: host_pinned, capacity: 64GiB}\nlinks:\n  pcie:\n"
                 "    from: host\n    to: hbm\n    bandwidth: 32GB/s\n"
                 "    energy_per_byte: %s\n", forms[i]);
        const char *cp = bi_write("tiny.yaml", text, strlen(text));
        snprintf(args, sizeof args, "check '%s'", cp);
        snprintf(want, sizeof want, "amsim: %s:11:5: links.pcie.energy_per_byte: bad number "
                 "'%.20s", cp, forms[i]);
        bi_expect(args, 1, want);
        bi_expect(args, 1, "': too small to represent (a nonzero number below about 4.9e-324 "
                           "reads as 0)\n");
        /* the same by --set */
        const char *cd = bi_write("tinyset.yaml", BI_CFG_TEXT, strlen(BI_CFG_TEXT));
        snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --set links.pcie.efficiency=%s", cd,
                 trace_gpu(), forms[i]);
        snprintf(want, sizeof want, "links.pcie.efficiency: bad number '%.20s", forms[i]);
        bi_expect(args, 1, want);
        bi_expect(args, 1, "': too small to represent");
    }
    free(tiny);
    free(ntiny);
}

/* The same for amsim gen's real options, with nothing written. */
static void gen_real_underflow(void)
{
    char *tiny = tiny_decimal(0);
    static const char *const opts[] = {"kernel --jitter", "train --jitter", "serve --rate",
                                       "serve --prompt-sigma", "kernel --tflops"};
    char out[700], args[4096], want[2048];
    snprintf(out, sizeof out, "%s/tiny-gen.trace", tu_tmpdir());
    for (size_t i = 0; i < sizeof opts / sizeof *opts; i++) {
        snprintf(args, sizeof args, "gen %s %s -o '%s'", opts[i], tiny, out);
        snprintf(want, sizeof want, "amsim gen %.*s: %s %s is too small to represent (a nonzero "
                 "number below about 4.9e-324 reads as 0)\n", (int)strcspn(opts[i], " "),
                 opts[i], strchr(opts[i], ' ') + 1, tiny);
        bi_expect(args, 1, want);
        CU_ASSERT_NOT_EQUAL(access(out, F_OK), 0); /* nothing written */
    }
    free(tiny);
}

/* A device granularity (platform, cuda_async) or cuda_async's pool_granularity above the
 * capacity is refused at load, at the value the user gave (until 2026-11-27 the config passed
 * and every request ran out of memory). */
static void y_granularity_above_capacity(void)
{
    static const struct {
        const char *args, *want;
    } cases[] = {
        {"--policy platform --set memories.hbm.capacity=1MiB --set memories.hbm.granularity=2MiB",
         "amsim: --set 'memories.hbm.granularity=2MiB': memories.hbm.granularity: platform: "
         "granularity of 2097152 bytes is above the capacity (1048576 bytes): no device "
         "allocation fits"},
        {"--policy cuda_async --set memories.hbm.capacity=1MiB --set memories.hbm.granularity=2MiB "
         "--set memories.hbm.allocator.pool_granularity=512KiB",
         "amsim: --set 'memories.hbm.granularity=2MiB': memories.hbm.granularity: cuda_async: "
         "granularity of 2097152 bytes is above the capacity (1048576 bytes): no chunk fits"},
        {"--policy cuda_async --set memories.hbm.allocator.pool_granularity=32GiB",
         "amsim: --set 'memories.hbm.allocator.pool_granularity=32GiB': "
         "memories.hbm.allocator.pool_granularity: cuda_async: pool_granularity of 34359738368 "
         "bytes is above the capacity (17179869184 bytes): no chunk fits"},
        /* the default pool_granularity (2 MiB): at the capacity the user gave */
        {"--policy cuda_async --set memories.hbm.capacity=1MiB",
         "amsim: --set 'memories.hbm.capacity=1MiB': memories.hbm.capacity: cuda_async: "
         "pool_granularity of 2097152 bytes is above the capacity (1048576 bytes): no chunk "
         "fits"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *cp = bi_write("gran.yaml", BI_CFG_TEXT, strlen(BI_CFG_TEXT));
        char args[4096];
        snprintf(args, sizeof args, "run -q -c '%s' -t '%s' %s", cp, trace_gpu(), cases[i].args);
        bi_expect(args, 1, cases[i].want);
    }
}

/* a policy that refuses its options points at the value the user wrote that makes it so (the
 * capacity here: the limit is the default memory_fraction of it), else at the allocator map;
 * at load, with the key's path (until 2026-11-27 when the run started, "memory level 'hbm'") */
BI_C(y_policy_refuses, "tiny.yaml", V "memories:\n  hbm:\n    capacity: 255\n    allocator:\n"
     "      policy: bfc\n",
     "amsim: @:4:5: memories.hbm.capacity: bfc: memory limit of 191 bytes (memory_fraction 0.75 "
     "of a 255-byte capacity) is below 256 bytes")
/* A transfer_guard direction that no memory's kind can trigger is refused where it is set: a
 * memory named host without `kind` is `other`, a device (until 2026-11-27 host_to_device=
 * disallow then never applied, status 0, and the transfer counted as device-to-device). */
BI_C(y_guard_no_host_kind, "guardkind.yaml", V "default_memory: hbm\nmemories:\n"
     "  hbm: {capacity: 1MiB}\n  host: {capacity: 1MiB}\n"
     "transfer_guard: {device_to_host: log}\n",
     "amsim: @:6:18: transfer_guard.device_to_host: set, but no memory is host memory (kind: "
     "host or host_pinned), so it would never apply; give each memory its `kind` (a memory "
     "without one is `other`, a device memory, whatever its name)")
static void y_guard_no_host_kind_set(void)
{
    static const char text[] = V "default_memory: hbm\nmemories:\n  hbm: {capacity: 1GiB}\n"
                               "  host: {capacity: 1GiB}\n"
                               "links:\n  pcie: {from: host, to: hbm, bandwidth: 32GB/s}\n";
    const char *cp = bi_write("guardkind2.yaml", text, strlen(text));
    char args[2048];
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --set "
             "transfer_guard.host_to_device=disallow", cp, trace_gpu());
    bi_expect(args, 1, "amsim: --set 'transfer_guard.host_to_device=disallow': "
              "transfer_guard.host_to_device: set, but no memory is host memory (kind: host or "
              "host_pinned), so it would never apply");
    /* with the kind given, the guard applies */
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --set "
             "transfer_guard.host_to_device=disallow --set memories.host.kind=host", cp,
             trace_gpu());
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
}
/* an energy_per_byte whose energy could be non-finite (bytes x it) is refused (until 2026-11-27
 * 1e308 was accepted: the text report said "inf mJ", the JSON null) */
BI_C(y_energy_too_large, "energy.yaml", V "default_memory: hbm\nmemories:\n"
     "  hbm: {kind: hbm, capacity: 1MiB}\n  host: {kind: host, capacity: 1MiB}\n"
     "links:\n  pcie: {from: host, to: hbm, bandwidth: 1GB/s, energy_per_byte: 1e308}\n",
     "amsim: @:7:49: links.pcie.energy_per_byte: must be between 0 and 1e12 picojoules per byte "
     "(1 J), not 1e+308")
/* the refused value as written, not %g's 6 digits (until 2026-11-28 "not 1e+12", which is
 * accepted) */
BI_C(y_energy_as_written, "energy2.yaml", V "default_memory: hbm\nmemories:\n"
     "  hbm: {kind: hbm, capacity: 1MiB}\n  host: {kind: host, capacity: 1MiB}\n"
     "links:\n  pcie: {from: host, to: hbm, bandwidth: 1GB/s, energy_per_byte: "
     "1000000000000.001}\n",
     "amsim: @:7:49: links.pcie.energy_per_byte: must be between 0 and 1e12 picojoules per byte "
     "(1 J), not 1000000000000.001\n")
/* A value a policy refuses when it is created (not by its option table) is reported where the
 * user wrote it: a --set names the --set argument (it named the config's allocator map, a
 * position the user never wrote), a YAML value its own line and column; nothing is written. */
static void y_policy_refuses_set(void)
{
    static const struct {
        const char *args, *config, *want;
    } cases[] = {
        {"--set memories.hbm.allocator.memory_limit=100", NULL,
         "amsim: --set 'memories.hbm.allocator.memory_limit=100': "
         "memories.hbm.allocator.memory_limit: bfc: memory limit of 100 bytes is below 256 "
         "bytes"},
        /* --policy is named as the user gave it (until 2026-11-27: as a --set they never
         * wrote, "--set 'memories.hbm.allocator.policy=bfcc'") */
        {"--policy bfcc", NULL,
         "amsim: --policy 'bfcc': memories.hbm.allocator.policy: unknown allocator policy 'bfcc' "
         "(registered: bfc, "},
        {"--set memories.hbm.capacity=300", NULL,
         "amsim: --set 'memories.hbm.capacity=300': memories.hbm.capacity: bfc: memory limit of "
         "225 bytes (memory_fraction 0.75 of a 300-byte capacity) is below 256 bytes"},
        /* rules on an option's value alone are the config's (checked at load, so amsim check
         * reports them too; until 2026-11-25 only when the run started) */
        {"--policy buddy --set memories.hbm.allocator.min_block=3", NULL,
         "amsim: --set 'memories.hbm.allocator.min_block=3': memories.hbm.allocator.min_block: "
         "buddy: min_block of 3 bytes is not a power of two from 1 byte to 4 EiB"},
        {"--policy caching --set memories.hbm.allocator.roundup_power2_divisions=[1,3]", NULL,
         "amsim: --set 'memories.hbm.allocator.roundup_power2_divisions=[1,3]': "
         "memories.hbm.allocator.roundup_power2_divisions: caching: roundup_power2_divisions "
         "must be powers of two (got 3)"},
        {"--policy caching --set memories.hbm.allocator.max_split_size=20MiB", NULL,
         "amsim: --set 'memories.hbm.allocator.max_split_size=20MiB': "
         "memories.hbm.allocator.max_split_size: caching: max_split_size of 20971520 bytes is not "
         "above 20 MiB (PyTorch refuses max_split_size_mb <= 20; `unlimited` leaves it unset)"},
        {"--policy caching --set memories.hbm.allocator.max_split_size=0", NULL,
         "amsim: --set 'memories.hbm.allocator.max_split_size=0': "
         "memories.hbm.allocator.max_split_size: caching: max_split_size of 0 bytes is not above "
         "20 MiB (PyTorch refuses max_split_size_mb <= 20; `unlimited` leaves it unset)"},
        {"--policy caching --set memories.hbm.allocator.memory_fraction=0.5 "
         "--set memories.hbm.allocator.garbage_collection_threshold=1.0", NULL,
         "amsim: --set 'memories.hbm.allocator.garbage_collection_threshold=1.0': "
         "memories.hbm.allocator.garbage_collection_threshold: caching: "
         "garbage_collection_threshold of 1 is not below 1 (PyTorch takes 0 < threshold < 1; 0 "
         "leaves it off)"},
        /* of two keys, the one the user gave: pool_granularity is the default here */
        {"--policy cuda_async --set memories.hbm.allocator.alignment=4MiB", NULL,
         "amsim: --set 'memories.hbm.allocator.alignment=4MiB': memories.hbm.allocator.alignment: "
         "cuda_async: pool_granularity (2097152 bytes) must be a non-zero multiple of alignment "
         "(4194304 bytes)"},
        /* written in the YAML: at the key, as config errors are, not at the allocator map (5:5) */
        {"--policy tlsf", "version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n"
         "    allocator: {policy: bfc, alignment: 3}\n",
         "amsim: @:5:30: memories.hbm.allocator.alignment: tlsf: alignment of 3 bytes is not a "
         "power of two from 1 byte to 1 TiB"},
        /* alignment 0 and non-powers of two: until 2026-11-25 best_fit took 0 as 256 and 3 as
         * it is (100-byte requests at 0, 102, 204); and so did the others */
        {"--policy best_fit --set memories.hbm.allocator.alignment=0", NULL,
         "amsim: --set 'memories.hbm.allocator.alignment=0': memories.hbm.allocator.alignment: "
         "best_fit: alignment of 0 bytes is not a power of two from 1 byte to 4 EiB"},
        {"--policy first_fit --set memories.hbm.allocator.alignment=3", NULL,
         "amsim: --set 'memories.hbm.allocator.alignment=3': memories.hbm.allocator.alignment: "
         "first_fit: alignment of 3 bytes is not a power of two from 1 byte to 4 EiB"},
        {"--policy best_fit --set memories.hbm.allocator.commit_granularity=0", NULL,
         "amsim: --set 'memories.hbm.allocator.commit_granularity=0': "
         "memories.hbm.allocator.commit_granularity: best_fit: commit_granularity must be above "
         "0 bytes"},
        {"--policy cuda_async --set memories.hbm.allocator.alignment=3", NULL,
         "amsim: --set 'memories.hbm.allocator.alignment=3': memories.hbm.allocator.alignment: "
         "cuda_async: alignment of 3 bytes is not a power of two from 1 byte to 4 EiB"},
        {"--policy prealloc --set memories.hbm.allocator.alignment=0", NULL,
         "amsim: --set 'memories.hbm.allocator.alignment=0': memories.hbm.allocator.alignment: "
         "prealloc: alignment of 0 bytes is not a power of two from 1 byte to 4 EiB"},
        {"--policy tlsf --set memories.hbm.allocator.alignment=0", NULL,
         "amsim: --set 'memories.hbm.allocator.alignment=0': memories.hbm.allocator.alignment: "
         "tlsf: alignment of 0 bytes is not a power of two from 1 byte to 1 TiB"},
        {"--policy buddy --set memories.hbm.allocator.min_block=0", NULL,
         "amsim: --set 'memories.hbm.allocator.min_block=0': memories.hbm.allocator.min_block: "
         "buddy: min_block of 0 bytes is not a power of two from 1 byte to 4 EiB"},
        {"--policy offline --set memories.hbm.allocator.alignment=24", NULL,
         "amsim: --set 'memories.hbm.allocator.alignment=24': memories.hbm.allocator.alignment: "
         "offline: alignment of 24 bytes is not a power of two from 1 byte to 4 EiB"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *cfg = cases[i].config ? cases[i].config : BI_CFG_TEXT;
        const char *cp = bi_write("refuses.yaml", cfg, strlen(cfg));
        const char *json = bi_write("refuses.json", "", 0);
        unlink(json);
        char args[4096];
        snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --json '%s' %s", cp, trace_gpu(),
                 json, cases[i].args);
        char *want = bi_expand(cases[i].want, cp);
        bi_expect(args, 1, want);
        free(want);
        CU_ASSERT_NOT_EQUAL(access(json, F_OK), 0);
    }
}
/* A --set path through a memory or link the config lacks is a misspelt name, refused with
 * "did you mean" (until 2026-11-27 `memories.hmb.capacity=1GiB` added a level hmb, status 0,
 * and `links.pcei.bandwidth=...` failed on a missing 'from' with no hint); a new one is given
 * whole, as a map. */
static void y_set_unknown_name(void)
{
    const char *cp = bi_write("setname.yaml", BI_CFG_TEXT, strlen(BI_CFG_TEXT));
    static const struct {
        const char *args, *want;
    } cases[] = {
        {"--set memories.hmb.capacity=1GiB",
         "amsim: --set 'memories.hmb.capacity=1GiB': unknown memory 'hmb' (did you mean 'hbm'?): "
         "--set changes the memories the config defines; give a new one whole, e.g. --set "
         "'memories.hmb={capacity: 1GiB}'"},
        {"--set links.pcei.bandwidth=1GB/s",
         "amsim: --set 'links.pcei.bandwidth=1GB/s': unknown link 'pcei' (did you mean 'pcie'?): "
         "--set changes the links the config defines; give a new one whole, e.g. --set "
         "'links.pcei={from: host, to: hbm, bandwidth: 64GB/s}'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char args[2048];
        snprintf(args, sizeof args, "run -q -c '%s' -t '%s' %s", cp, trace_gpu(), cases[i].args);
        bi_expect(args, 1, cases[i].want);
    }
    /* given whole, a new level is a level */
    char args[2048];
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --set 'memories.scratch={capacity: 1MiB}'",
             cp, trace_gpu());
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
}
/* libyaml gives a byte offset for what its reader refuses: reported as line and column, with
 * the byte's value and its offset (until 2026-11-27 "(byte 46)", the offset alone, which read
 * like the byte's value). A message never echoes a control byte raw: a --set's key or value is
 * quoted with its control bytes as \xHH (until 2026-11-27 they reached the terminal raw). */
static void y_control(void)
{
    static const char text[] = V "memories:\n  hbm:\n    capacity: 1GiB\0\n";
    bi_run(&(bi_case){BI_CONFIG, "ctrl.yaml", text, sizeof text - 1,
                      "amsim: @:4:19: control characters are not allowed (byte 0x00 at offset 46)",
                      NULL, NULL});
    bi_run(&(bi_case){BI_CONFIG, "ctrl2.yaml", V "device: h100\x7fjunk\n", 0,
                      "amsim: @:2:13: control characters are not allowed (byte 0x7f at offset 23)",
                      NULL, NULL});
    const char *cp = bi_write("ctrl3.yaml", BI_CFG_TEXT, strlen(BI_CFG_TEXT));
    char args[2048];
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --set 'dev\x01ice=h100'", cp,
             trace_gpu());
    bi_expect(args, 1, "amsim: --set 'dev\\x01ice=h100': unknown key 'dev\\x01ice'");
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --set 'device=h1\x1b" "00'", cp,
             trace_gpu());
    bi_expect(args, 1, "amsim: --set 'device=h1\\x1b00': bad value: control characters are not "
              "allowed (byte 0x1b at offset 2)");
    /* a --policy is a --set of the default level's policy: the same words (until 2026-11-27
     * "bad value:c':1:3: control...", the prefix cut at the raw name's length) */
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --policy 'bf\x01" "c'", cp, trace_gpu());
    bi_expect(args, 1, "amsim: --policy 'bf\\x01c': bad value: control characters are not "
              "allowed (byte 0x01 at offset 2)");
}
/* A byte libyaml's reader refuses is placed as libyaml places everything else: columns in
 * characters, a byte-order mark skipped, a lone CR breaking lines; until 2026-11-27 only '\n'
 * broke lines and the column was a byte difference (3:9, 1:14 and 1:22 below). A raw U+0085
 * (NEL), which libyaml alone takes as a line break, is refused as a control character. Configs
 * and sweeps alike. */
static void y_control_position(void)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {V "device: h100\n# caf\xc3\xa9 \xff\n",
         "@:3:8: invalid leading UTF-8 octet (byte 0xff at offset 32)"},
        {"\xef\xbb\xbfversion: 1\xff\n",
         "@:1:11: invalid leading UTF-8 octet (byte 0xff at offset 13)"},
        {"version: 1\rdevice: h1\xff" "00\r",
         "@:2:11: invalid leading UTF-8 octet (byte 0xff at offset 21)"},
        {"version: 1\r\ndevice: h1\xff" "00\r\n",
         "@:2:11: invalid leading UTF-8 octet (byte 0xff at offset 22)"},
        {V "device: \xc3\xa9\xc2\x85x\n",
         "@:2:10: control characters are not allowed (character U+0085 at byte offset 21; "
         "YAML would read it as a line break)"},
    };
    for (size_t i = 0; i < AM_ARRAY_LEN(cases); i++) {
        bi_run(&(bi_case){BI_CONFIG, "ctrlpos.yaml", cases[i].text, 0, cases[i].want, NULL,
                          NULL});
        const char *p = bi_write("ctrlpos-sweep.yaml", cases[i].text, strlen(cases[i].text));
        char args[2048], *want = bi_expand(cases[i].want, p);
        snprintf(args, sizeof args, "batch '%s' --list", p);
        bi_expect(args, 1, want);
        free(want);
    }
}
/* A study folder's matrix.tsv whose run count is no whole number (2junk, one past 64 bits'
 * int) or that has a line past the runs it counts is refused at its line and column by
 * --merge (until 2026-11-27 sscanf took 2junk as 2 and 99999999999 as 1215752191, and a line
 * past the count was dropped: a smaller count lost runs, status 0). */
static void matrix_count_damaged(void)
{
    static const char head[] = "run_id\trun\tpolicy\ttrace\tkey\n"
                               "1\t0001-t-bfc\tbfc\tt.trace\ttrace=t.trace;policy=bfc\n";
    static const struct {
        const char *first, *tail, *want;
    } cases[] = {
        {"#amsim-matrix v1\t1junk\n", "", ":1:18: bad run count '1junk' (a whole number "
         "0..10000000)"},
        {"#amsim-matrix v1\t99999999999\n", "", ":1:18: bad run count '99999999999'"},
        {"#amsim-matrix v1\t0\n", "", ":3:1: a line past the 0 runs the first line counts"},
        {"#amsim-matrix v1\t1\n", "garbage\n", ":4:1: a line past the 1 run the first line "
         "counts"},
    };
    char dir[1100], mt[1200], args[2600], want[1400];
    snprintf(dir, sizeof dir, "%s/mx-study", tu_tmpdir());
    mkdir(dir, 0777);
    snprintf(mt, sizeof mt, "%s/matrix.tsv", dir);
    for (size_t i = 0; i < AM_ARRAY_LEN(cases); i++) {
        FILE *f = fopen(mt, "w");
        CU_ASSERT_FATAL(f != NULL);
        fprintf(f, "%s%s%s", cases[i].first, head, cases[i].tail);
        CU_ASSERT_FATAL(fclose(f) == 0);
        snprintf(args, sizeof args, "batch --merge '%s' -o '%s/mx-out'", dir, tu_tmpdir());
        snprintf(want, sizeof want, "amsim batch: %s%s", mt, cases[i].want);
        bi_expect(args, 1, want);
    }
}

static const char *fresh_dir(const char *name);

/* A control byte in a matrix.tsv line (a carriage return from a CRLF line end, at a run line's
 * end or the header's; any other) is refused at its line and column, and a count the lines
 * fall short of by one says "1 run listed". Until 2026-11-27 the carriage return became part of
 * the run's key: --merge marked the finished run 'missing' and copied the damaged file into
 * OUT, and a rerun said the sweep had changed, running nothing. */
static void matrix_line_control(void)
{
    static const char first[] = "#amsim-matrix v1\t2\n", head[] = "run_id\trun\tpolicy\ttrace\tkey";
    static const char r1[] = "1\t0001-t-bfc\tbfc\tt.trace\ttrace=t.trace;policy=bfc";
    static const struct {
        const char *head_end, *r1_end, *r2, *want;
    } cases[] = {
        {"", "\r", "2\t0002-t-c\tcaching\tt.trace\tk2\n",
         ":3:50: control byte 0x0d (a carriage return: a CRLF line end?) in the line"},
        {"\r", "", "2\t0002-t-c\tcaching\tt.trace\tk2\n", ":2:28: control byte 0x0d"},
        {"", "", "2\t0002-t-c\tcach\001ing\tt.trace\tk2\n", ":4:16: control byte 0x01 in the "
         "line"},
        {"", "", "", ":4:1: 1 run listed, 2 expected"},
    };
    char dir[1100], mt[1200], out[1200], args[2600], want[1400];
    snprintf(dir, sizeof dir, "%s/mc-study", tu_tmpdir());
    mkdir(dir, 0777);
    snprintf(mt, sizeof mt, "%s/matrix.tsv", dir);
    snprintf(out, sizeof out, "%s/mc-out", tu_tmpdir());
    for (size_t i = 0; i < AM_ARRAY_LEN(cases); i++) {
        FILE *f = fopen(mt, "w");
        CU_ASSERT_FATAL(f != NULL);
        fprintf(f, "%s%s%s\n%s%s\n%s", first, head, cases[i].head_end, r1, cases[i].r1_end,
                cases[i].r2);
        CU_ASSERT_FATAL(fclose(f) == 0);
        snprintf(args, sizeof args, "batch --merge '%s' -o '%s'", dir, out);
        snprintf(want, sizeof want, "amsim batch: %s%s", mt, cases[i].want);
        bi_expect(args, 1, want);
        CU_ASSERT_NOT_EQUAL(access(out, F_OK), 0); /* nothing made, nothing copied */
    }
    /* a study run for real, then a CRLF line end at its first run's line: a rerun says the
     * file is damaged, writes it again and runs nothing */
    const char *d2 = fresh_dir("mc-real");
    char sw[2400], st[1300];
    snprintf(sw, sizeof sw, "base: '%s'\ntraces: ['%s']\npolicies: [bfc]\n", cfg_default(),
             trace_gpu());
    snprintf(st, sizeof st, "%s", bi_write("mc-real.yaml", sw, strlen(sw)));
    snprintf(args, sizeof args, "batch -q -j 1 '%s' -o '%s'", st, d2);
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
    snprintf(mt, sizeof mt, "%s/matrix.tsv", d2);
    char *text = tu_slurp(mt, NULL);
    CU_ASSERT_FATAL(text && strlen(text) > 2 && text[strlen(text) - 1] == '\n');
    FILE *f = fopen(mt, "w");
    CU_ASSERT_FATAL(f && fprintf(f, "%.*s\r\n", (int)strlen(text) - 1, text) > 0 &&
                    fclose(f) == 0);
    snprintf(args, sizeof args, "batch --merge '%s' -o '%s'", d2, out);
    snprintf(want, sizeof want, "amsim batch: %s:3:", mt);
    bi_expect(args, 1, want);
    CU_ASSERT_NOT_EQUAL(access(out, F_OK), 0);
    snprintf(args, sizeof args, "batch -j 1 '%s' -o '%s'", st, d2);
    bi_expect(args, 0, "control byte 0x0d (a carriage return: a CRLF line end?) in the line (a "
              "matrix.tsv line is tab-separated fields ended by a newline alone); written again");
    bi_expect(args, 0, "1 run: 0 run now, 1 finished before");
    char *again = tu_slurp(mt, NULL);
    CU_ASSERT(again && strcmp(again, text) == 0);
    free(text);
    free(again);
}

/* A study of one run written by hand (matrix.tsv, runs/0001-t-bfc/result.txt = result) given
 * to `batch --merge`: refused, status 1, with want after the result's path. */
static void merge_result_expect(const char *result, const char *want)
{
    char dir[1100], p[1300], args[2600], full[1600];
    snprintf(dir, sizeof dir, "%s/rs-study", tu_tmpdir());
    snprintf(p, sizeof p, "%s/runs/0001-t-bfc", dir);
    snprintf(args, sizeof args, "mkdir -p '%s'", p);
    CU_ASSERT_FATAL(system(args) == 0);
    static const char mt[] = "#amsim-matrix v1\t1\nrun_id\trun\tpolicy\ttrace\tkey\n"
                             "1\t0001-t-bfc\tbfc\tt.trace\tK\n";
    snprintf(p, sizeof p, "%s/matrix.tsv", dir);
    FILE *f = fopen(p, "w");
    CU_ASSERT_FATAL(f && fputs(mt, f) >= 0 && fclose(f) == 0);
    snprintf(p, sizeof p, "%s/runs/0001-t-bfc/result.txt", dir);
    f = fopen(p, "w");
    CU_ASSERT_FATAL(f && fputs(result, f) >= 0 && fclose(f) == 0);
    snprintf(args, sizeof args, "batch --merge '%s' -o '%s/rs-out'", dir, tu_tmpdir());
    snprintf(full, sizeof full, "amsim batch: %s%s", p, want);
    bi_expect(args, 1, full);
}

/* A result.txt that gives a key twice is refused at the second (until 2026-11-27 a metric kept
 * its first value, an identity key its last, status 0). */
static void result_duplicate_key(void)
{
    merge_result_expect("amsim-result v2\nid=1\nkey=K\nstatus=failed\nerror=x\npolicy=bfc\n"
                        "levels=hbm\noutputs=\nstatus=ok\nend\n",
                        ":9:1: a second 'status=' line (the first is line 4)");
}

/* A result.txt cut inside its first line is a cut line, as one cut in any other line
 * (until 2026-11-27 "not an amsim result (its first line is 'amsim-result v2')"); another
 * first line is still no amsim result. */
static void result_first_line_cut(void)
{
    merge_result_expect("amsim-result v2", ":1:16: the line is cut (no newline ends it: the "
                        "file was not written whole)");
    merge_result_expect("amsim-res", ":1:10: the line is cut");
    merge_result_expect("garbage", ":1:1: not an amsim result");
}

/* A quote that never closes in a results table is refused at the quote, by stats, report and
 * regress alike (one reader: results.c); until 2026-11-27 the field took the rest of the file,
 * status 0. */
static void results_table_open_quote(void)
{
    static const char text[] = "x,policy\n1,bfc\n2,bfc\n3,\"caching\n";
    const char *csv = bi_write("q3.csv", text, sizeof text - 1);
    char args[2048], want[1200];
    snprintf(args, sizeof args, "stats '%s' --metric x --by policy", csv);
    snprintf(want, sizeof want, "amsim stats: %s:4:3: a quote that never closes (the file ends "
             "inside the quoted field)", csv);
    bi_expect(args, 1, want);
}

/* A results table is text: a NUL byte in it is refused at its line and column, a read error
 * said as one (until 2026-11-27 both ended the table there: stats counted the rows before a NUL
 * byte, status 0, and /proc/self/mem was an "empty file (no header line)"). */
static void results_table_unreadable(void)
{
    static const char nul[] = "policy,m\nbfc,1\nbfc,2\nbfc,3\0junk\nbfc,100\nbfc,200\n";
    const char *csv = bi_write("nul.csv", nul, sizeof nul - 1);
    char args[2048], want[1200];
    snprintf(args, sizeof args, "stats '%s' --metric m", csv);
    snprintf(want, sizeof want, "amsim stats: %s:4:6: NUL byte (a results table is text)", csv);
    bi_expect(args, 1, want);
    bi_expect("stats /proc/self/mem --metric x", 1,
              "amsim stats: /proc/self/mem: read error: Input/output error");
    /* report reads DIR/results.csv the same way */
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/nul-study", tu_tmpdir());
    mkdir(dir, 0777);
    static const char head[] = "run_id,run,policy,trace,status,error,hbm.peak_reserved_bytes\n"
                               "1,0001-a,bfc,a.trace,ok,,1\0\n";
    snprintf(args, sizeof args, "nul-study/results.csv");
    const char *rcsv = bi_write(args, head, sizeof head - 1);
    snprintf(args, sizeof args, "report '%s'", dir);
    snprintf(want, sizeof want, "amsim report: %s:2:27: NUL byte (a results table is text)", rcsv);
    bi_expect(args, 1, want);
}

/* A name the user gave, quoted in a message (a policy, a level, a column, a group of a
 * table), has its control bytes as \xHH, tab and newline too (until 2026-11-27 "unknown
 * policy" and "no column" echoed an escape sequence raw, a group name its newline). */
static void names_escaped(void)
{
    const char *cp = bi_write("names.yaml", BI_CFG_TEXT, strlen(BI_CFG_TEXT));
    static const char table[] = "policy,seed,status,peak\n\"x\ny\",1,ok,1\nb\x01,1,ok,2\n";
    const char *csv = bi_write("names.csv", table, sizeof table - 1);
    char args[2048];
    static const struct {
        const char *cmd, *opt, *want;
    } cases[] = {
        {"compare -q --json -", "--policies 'bfc,\x1b[31mcaching'",
         "amsim compare: unknown policy '\\x1b[31mcaching' (policies: bfc,"},
        {"compare -q --json -", "--policies 'bf\x01" "c'",
         "amsim compare: unknown policy 'bf\\x01c' (did you mean 'bfc'? policies:"},
        {"mincap", "--level 'hb\x01m'", "no memory level 'hb\\x01m' in "},
        {"mincap", "--policies 'bf\tc'",
         "amsim mincap: --policies 'bf\\x09c': policy name 'bf\\x09c' has a blank"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(args, sizeof args, "%s -c '%s' -t '%s' %s", cases[i].cmd, cp, trace_gpu(),
                 cases[i].opt);
        bi_expect(args, 1, cases[i].want);
    }
    snprintf(args, sizeof args, "stats '%s' --metric 'pe\x1b" "ak'", csv);
    bi_expect(args, 1, "no column 'pe\\x1bak' (did you mean 'peak'?)");
    snprintf(args, sizeof args, "stats '%s' --metric peak --by 'po\x01licy'", csv);
    bi_expect(args, 1, "no column 'po\\x01licy' (did you mean 'policy'?)");
    snprintf(args, sizeof args, "stats '%s' --metric peak --paired 'a\x01,b'", csv);
    bi_expect(args, 1, "--paired: no groups 'a\\x01' and 'b' in column 'policy' of");
    bi_expect(args, 1, "(groups: 'x\\x0ay', 'b\\x01')\n");
}
/* What a user typed, echoed by the option parser (cli.c), by run, check and the command word
 * (main.c), by gen (cmd_gen.c) and by batch (batch.c), has its control bytes as \xHH, tab and
 * newline too: an escape sequence cannot redraw the terminal, nor a newline forge a line (until
 * 2026-11-27 these messages echoed every byte raw). */
static void command_messages_escaped(void)
{
    static const struct {
        const char *args, *want;
    } cases[] = {
        /* cli.c: an unknown option, a repeated one, a short option in a group */
        {"run '--fo\x1b[2Jo'",
         "amsim run: unknown option '--fo\\x1b[2Jo' (see amsim run --help)\n"},
        {"run --device 1 --device '2\n'",
         "amsim run: --device given twice ('1', then '2\\x0a'): it takes one value\n"},
        {"stats -q\x1b", "amsim stats: unknown option '-\\x1b' in '-q\\x1b'"},
        {"policies 'x\ny'", "amsim policies: unexpected argument 'x\\x0ay' (see amsim policies"},
        /* main.c: the command word, a word after --version */
        {"'ru\nn'", "amsim: unknown command 'ru\\x0an'\n"},
        {"--version '\x1b[2J'", "amsim --version: unexpected argument '\\x1b[2J' (it takes none)"},
        /* cmd_gen.c: the kind, an option's value */
        {"gen 'tr\x1b" "ain'", "amsim gen: unknown kind 'tr\\x1bain'\n"},
        {"gen train --steps '1\n' -o -",
         "amsim gen train: --steps takes an unsigned integer, not '1\\x0a'\n"},
        /* batch.c: an option's value, a second sweep file */
        {"batch s.yaml -o out -j '4\x1b[31m'",
         "amsim batch: -j takes a number of workers 1..4096, not '4\\x1b[31m'\n"},
        {"batch s.yaml 'b\nc' -o out", "amsim batch: one sweep file only ('b\\x0ac')\n"},
        /* an am_fail message: a newline or tab in a quoted file name is escaped too (until
         * 2026-11-27 kept raw: "amsim: /nonexist" and ".yaml: No such file..." on two lines) */
        {"check '/nonexist\n.yaml'", "amsim: /nonexist\\x0a.yaml: "},
        {"check '/nonexist\t.yaml'", "amsim: /nonexist\\x09.yaml: "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        bi_expect(cases[i].args, 1, cases[i].want);
    /* check's "ok" line on standard output names the file as the messages do */
    const char *cp = bi_write("ok\x1b[2J\n.yaml", BI_CFG_TEXT, strlen(BI_CFG_TEXT));
    char args[2048], *out = NULL;
    snprintf(args, sizeof args, "check '%s'", cp);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    CU_ASSERT(out && strstr(out, "/ok\\x1b[2J\\x0a.yaml: config ok (2 memory levels, 1 link)\n"));
    free(out);
}
/* a quoted scalar's escape giving a control character is refused as a raw one is, at the
 * scalar (until 2026-11-27 "\0" cut the value short: device h100, capacity 2GiB, policy bfc);
 * a --set value is YAML too */
static void y_control_escape(void)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {V "device: \"h100\\0junk\"\n",
         "amsim: @:2:9: control characters are not allowed (byte 0x00, from an escape, in the "
         "quoted value at character 5)"},
        {V "memories:\n  hbm: {capacity: \"2GiB\\0 and more\"}\n",
         "amsim: @:3:19: control characters are not allowed (byte 0x00, from an escape, in the "
         "quoted value at character 5)"},
        {V "memories:\n  hbm: {capacity: 1GiB, allocator: {policy: 'bfc', x: \"\\x1b\"}}\n",
         "amsim: @:3:55: control characters are not allowed (byte 0x1b, from an escape, in the "
         "quoted value at character 1)"},
        /* C1 controls as C0 ones (until 2026-11-27 accepted, and echoed raw in messages) */
        {V "device: \"h100\\u0085\"\n",
         "amsim: @:2:9: control characters are not allowed (U+0085, from an escape, in the "
         "quoted value at character 5)"},
        {V "memories:\n  hbm: {capacity: \"1GiB\\u009b31m\"}\n",
         "amsim: @:3:19: control characters are not allowed (U+009B, from an escape, in the "
         "quoted value at character 5)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        bi_run(&(bi_case){BI_CONFIG, "esc.yaml", cases[i].text, 0, cases[i].want, NULL, NULL});
    const char *cp = bi_write("esc.yaml", BI_CFG_TEXT, strlen(BI_CFG_TEXT));
    char args[2048];
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --set 'memories.hbm.allocator.policy="
             "\"bfc\\0xyz\"'", cp, trace_gpu());
    bi_expect(args, 1, "amsim: --set 'memories.hbm.allocator.policy=\"bfc\\0xyz\"': bad value: "
              "control characters are not allowed (byte 0x00, from an escape, in the quoted value "
              "at character 4)");
    /* a raw C1 control (U+009B, a terminal's CSI) in a --set is echoed as its bytes \xHH */
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --set 'dev\xc2\x9bice=h100'", cp,
             trace_gpu());
    bi_expect(args, 1, "amsim: --set 'dev\\xc2\\x9bice=h100': unknown key 'dev\\xc2\\x9bice'");
}
BI_C(y_tab, "tab.yaml", V "memories:\n\thbm: {capacity: 1GiB}\n",
     "amsim: @:3:1: found character that cannot start any token")
BI_C(y_unknown_key, "ukey.yaml", V "memories:\n  hbm: {capacity: 1GiB, colour: red}\n",
     "amsim: @:3:25: unknown key 'memories.hbm.colour'")
BI_C(y_unknown_top, "utop.yaml", V "foo: 1\nmemories:\n  hbm: {capacity: 1GiB}\n",
     "amsim: @:2:1: unknown key 'foo'")
BI_C(y_type_list, "tlist.yaml", V "memories:\n  hbm: {capacity: [1]}\n",
     "amsim: @:3:9: memories.hbm.capacity: expected a single value, not a list")
BI_C(y_type_int, "tint.yaml", V "engine: {queue_depth: lots}\nmemories:\n  hbm: {capacity: 1GiB}\n",
     "amsim: @:2:10: engine.queue_depth: expected a non-negative integer, got 'lots'")
BI_C(y_type_bool, "tbool.yaml",
     V "memories:\n  hbm: {capacity: 1GiB, allocator: {policy: bfc, allow_growth: maybe}}\n",
     "amsim: @:3:50: memories.hbm.allocator.allow_growth: expected true or false, got 'maybe'")
/* a key of another policy is ignored for the run, but its value is checked as that policy's */
BI_C(y_other_policy_type, "otype.yaml",
     V "memories:\n  hbm: {capacity: 1GiB, allocator: {policy: bfc, max_split_size: abc}}\n",
     "amsim: @:3:50: memories.hbm.allocator.max_split_size: bad size 'abc': not a number "
     "(max_split_size belongs to policy caching: bfc ignores it, but it must be valid for a "
     "switch to caching)")
BI_C(y_other_policy_range, "orange.yaml",
     V "memories:\n  hbm: {capacity: 1GiB, allocator: {policy: caching, "
     "fragmentation_fraction: 2}}\n",
     "amsim: @:3:54: memories.hbm.allocator.fragmentation_fraction: expected a fraction between "
     "0 and 1, got '2' (fragmentation_fraction belongs to policy bfc: caching ignores it, but it "
     "must be valid for a switch to bfc)")
/* a policy's rule on a value alone at load, at its line:column (until 2026-11-25 best_fit took
 * alignment 3 as it is and 0 as 256; buddy's, tlsf's and caching's rules came at run start) */
BI_C(y_policy_rule, "prule.yaml",
     V "memories:\n  hbm: {capacity: 1GiB, allocator: {policy: best_fit, alignment: 3}}\n",
     "amsim: @:3:55: memories.hbm.allocator.alignment: best_fit: alignment of 3 bytes is not a "
     "power of two from 1 byte to 4 EiB")
/* --policy: the rules checked, and the limit named, are those of the policy that runs, at the
 * value (until 2026-11-27 the config was loaded as written first, so this was first_fit's rule:
 * "first_fit: alignment of 0 bytes is not a power of two from 1 byte to 4 EiB") */
static void y_switched_policy_rule(void)
{
    bi_run(&(bi_case){BI_CONFIG, "switched.yaml",
                      V "memories:\n  hbm: {capacity: 1GiB, allocator: {policy: first_fit, "
                      "alignment: 0}}\n", 0,
                      "amsim: @:3:56: memories.hbm.allocator.alignment: tlsf: alignment of 0 "
                      "bytes is not a power of two from 1 byte to 1 TiB", "--policy tlsf", NULL});
}
/* What every run refuses before it reads an event, `amsim check` refuses too, with the same
 * message, at the option the user wrote (h100's 80 GiB HBM, a device preset: the preset's
 * capacity line is not where the user can fix it). Until 2026-11-27 the rules on the capacity
 * ran only when a run started: check said "config ok", and the run's message pointed at
 * h100.yaml:28:5 (buddy, tlsf) when the user's min_block or alignment was the cause. */
static void y_check_agrees_with_run(void)
{
    static const struct {
        const char *policy, *key, *value, *want;
    } cases[] = {
        {"bfc", "memory_limit", "100B", "bfc: memory limit of 100 bytes is below 256 bytes"},
        {"bfc", "memory_limit", "1.5", "bfc: memory limit of 2 bytes is below 256 bytes"},
        {"bfc", "memory_fraction", "0", "bfc: memory limit of 0 bytes (memory_fraction 0 of a "
         "85899345920-byte capacity) is below 256 bytes"},
        {"bfc", "memory_fraction", "1e-300", "bfc: memory limit of 0 bytes (memory_fraction "
         "1e-300 of a 85899345920-byte capacity) is below 256 bytes"},
        /* the fraction as written: until 2026-11-28 %g's 2.98023e-09, which passes */
        {"bfc", "memory_fraction", "0.0000000029802319", "bfc: memory limit of 255 bytes "
         "(memory_fraction 2.9802319e-09 of a 85899345920-byte capacity) is below 256 bytes"},
        {"prealloc", "memory_fraction", "0.0000000000000001234567", "prealloc: arena of 0 bytes "
         "(memory_fraction 1.234567e-16 of a 85899345920-byte capacity, 0 bytes)"},
        {"prealloc", "memory_limit", "255B", "prealloc: arena of 0 bytes: the alignment of 256 "
         "bytes is above the arena's memory_limit of 255 bytes (the arena is rounded down to a "
         "multiple of the alignment)"},
        {"prealloc", "memory_fraction", "0", "prealloc: arena of 0 bytes (memory_fraction 0 of a "
         "85899345920-byte capacity, 0 bytes)"},
        {"prealloc", "alignment", "4EiB", "prealloc: arena of 0 bytes: the alignment of "
         "4611686018427387904 bytes is above the arena's memory_fraction 0.75 of a "
         "85899345920-byte capacity, 64424509440 bytes (the arena is rounded down to a multiple "
         "of the alignment)"},
        {"buddy", "min_block", "128GiB", "buddy: capacity of 85899345920 bytes is below "
         "min_block (137438953472 bytes)"},
        {"buddy", "min_block", "4EiB", "buddy: capacity of 85899345920 bytes is below min_block "
         "(4611686018427387904 bytes)"},
        {"tlsf", "alignment", "1TiB", "tlsf: capacity of 85899345920 bytes is below the "
         "alignment (1099511627776 bytes)"},
    };
    const char *tr = bi_write("agree.trace", "amsim-trace v1\n", 15);
    for (size_t i = 0; i < AM_ARRAY_LEN(cases); i++) {
        char text[512], args[4096], want[1024];
        snprintf(text, sizeof text, "version: 1\ndevice: h100\nmemories:\n  hbm:\n"
                 "    allocator:\n      policy: %s\n      %s: %s\n", cases[i].policy,
                 cases[i].key, cases[i].value);
        const char *cp = bi_write("agree.yaml", text, strlen(text));
        snprintf(want, sizeof want, "amsim: %s:7:7: memories.hbm.allocator.%s: %s", cp,
                 cases[i].key, cases[i].want);
        snprintf(args, sizeof args, "check '%s'", cp);
        bi_expect(args, 1, want);
        snprintf(args, sizeof args, "check -c '%s' '%s'", cp, tr);
        bi_expect(args, 1, want);
        snprintf(args, sizeof args, "run -q -c '%s' -t '%s'", cp, tr);
        bi_expect(args, 1, want);
    }
}
/* A rule that only a device preset's value and the policy break: at the policy, as the user
 * chose it (--policy here: until 2026-11-27 a policy's error under --policy named the config
 * file, or the preset's line), not at the preset's capacity, which the user did not write. */
static void y_policy_refuses_preset(void)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/devices", tu_tmpdir());
    mkdir(dir, 0777);
    const char *pre = "version: 1\nmemories:\n  hbm: {kind: hbm, capacity: 100}\n";
    bi_write("devices/tinydev.yaml", pre, strlen(pre));
    const char *cfg = "version: 1\ndevice: tinydev\n";
    const char *cp = bi_write("tinydev.yaml", cfg, strlen(cfg));
    char args[2048];
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --policy bfc", cp, trace_gpu());
    bi_expect(args, 1, "amsim: --policy 'bfc': memories.hbm.allocator: bfc: memory limit of 75 "
              "bytes (memory_fraction 0.75 of a 100-byte capacity) is below 256 bytes");
    /* the user's own value wins over --policy */
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --policy bfc --set "
             "memories.hbm.allocator.memory_fraction=0.5", cp, trace_gpu());
    bi_expect(args, 1, "amsim: --set 'memories.hbm.allocator.memory_fraction=0.5': "
              "memories.hbm.allocator.memory_fraction: bfc: memory limit of 50 bytes");
}
/* planner: optimal without a proof within its search_budget: at the budget as written, the
 * option that ran out (until 2026-11-27 the message had no position) */
static void y_offline_unproven(void)
{
    bi_run(&(bi_case){BI_TRACE, "unproven.csv",
                      "id,lower,upper,size\n0,1,6,2048\n1,4,10,3072\n2,4,10,1024\n3,7,10,4096\n"
                      "4,6,10,1024\n5,4,6,3072\n6,5,8,3072\n7,2,4,3072\n", 0,
                      "bi-config.yaml:3:72: memory level 'hbm': offline: planner optimal: no "
                      "proof of optimality within search_budget 1 (best height 13312 bytes, lower "
                      "bound 12288 bytes)", NULL,
                      V "memories:\n  hbm: {capacity: 1MiB, allocator: {policy: offline, planner: "
                      "optimal, search_budget: 1}}\n"});
}
/* ... and without one within its time_limit: at the time limit, naming it and not the budget of
 * 0 (no limit; until 2026-11-28 "within search_budget 0 and time_limit 1.000 ns" at the budget,
 * which had not run out). A limit under a millisecond ends the search before it starts. */
static void y_offline_unproven_time(void)
{
    bi_run(&(bi_case){BI_TRACE, "unproven.csv",
                      "id,lower,upper,size\n0,1,6,2048\n1,4,10,3072\n2,4,10,1024\n3,7,10,4096\n"
                      "4,6,10,1024\n5,4,6,3072\n6,5,8,3072\n7,2,4,3072\n", 0,
                      "bi-config.yaml:3:90: memory level 'hbm': offline: planner optimal: no "
                      "proof of optimality within time_limit 1.000 ns (best height 13312 bytes, "
                      "lower bound 12288 bytes); raise the time limit or use planner: auto", NULL,
                      V "memories:\n  hbm: {capacity: 1MiB, allocator: {policy: offline, planner: "
                      "optimal, search_budget: 0, time_limit: 1ns}}\n"});
}
/* An integer past 2^64 - 1 is too large, not "expected a non-negative integer" (until
 * 2026-11-28, as if 1e30 were no number) */
BI_C(y_uint_too_large, "big.yaml",
     V "memories:\n  hbm: {capacity: 1MiB, allocator: {policy: offline, search_budget: 1e30}}\n",
     "amsim: @:3:54: memories.hbm.allocator.search_budget: '1e30' is too large (at most 2^64 - "
     "1)")
/* caching's values PyTorch's parser refuses (until 2026-11-27 amsim ran with them):
 * max_split_size at or below 20 MiB (max_split_size_mb must be > 20), a
 * garbage_collection_threshold of 1 (it must be below 1); `unlimited` and 0 stay "unset" */
BI_C(y_caching_max_split, "mss.yaml",
     V "memories:\n  hbm: {capacity: 1GiB, allocator: {policy: caching, max_split_size: 16MiB}}\n",
     "amsim: @:3:54: memories.hbm.allocator.max_split_size: caching: max_split_size of 16777216 "
     "bytes is not above 20 MiB (PyTorch refuses max_split_size_mb <= 20; `unlimited` leaves it "
     "unset)")
/* max_non_split_rounding below 20 MiB (PyTorch's parser requires max_non_split_rounding_mb
 * >= 20; until 2026-11-27 amsim ran with 0, which refused a cached block of the request's
 * exact size) */
BI_C(y_caching_non_split, "mnsr.yaml",
     V "memories:\n  hbm: {capacity: 1GiB, allocator: {policy: caching, max_non_split_rounding: "
     "0}}\n",
     "amsim: @:3:54: memories.hbm.allocator.max_non_split_rounding: caching: "
     "max_non_split_rounding of 0 bytes is below 20 MiB (PyTorch refuses "
     "max_non_split_rounding_mb < 20)")
BI_C(y_caching_gc_threshold, "gct.yaml",
     V "memories:\n  hbm:\n    capacity: 1GiB\n    allocator:\n      policy: caching\n"
     "      memory_fraction: 0.8\n      garbage_collection_threshold: 1\n",
     "amsim: @:8:7: memories.hbm.allocator.garbage_collection_threshold: caching: "
     "garbage_collection_threshold of 1 is not below 1 (PyTorch takes 0 < threshold < 1; 0 "
     "leaves it off)")
/* roundup_power2_divisions above 2^30, which PyTorch's parser (std::stoi) refuses, at the item:
 * until 2026-11-27 any power of two up to 2^63 ran, and from 2^55 the rounding test overflowed;
 * until 2026-11-27 too the refusal was placed at the key (3:54) */
BI_C(y_caching_divisions, "div.yaml",
     V "memories:\n  hbm: {capacity: 1GiB, allocator: {policy: caching, "
     "roundup_power2_divisions: [1, 2147483648]}}\n",
     "amsim: @:3:84: memories.hbm.allocator.roundup_power2_divisions: item 2: caching: "
     "roundup_power2_divisions of 2147483648 is above 2^30 = 1073741824 (PyTorch's parser reads "
     "each value as an int)")
/* A block list's item that is no power of two is refused at the item, with its number (until
 * 2026-11-27 at the key, 7:7, as a flow list's item above 2^30 was). */
BI_C(y_caching_divisions_item, "li.yaml",
     V "memories:\n  hbm:\n    capacity: 1GiB\n    allocator:\n      policy: caching\n"
     "      roundup_power2_divisions:\n        - 2\n        - 4\n        - 3\n        - 8\n",
     "amsim: @:10:11: memories.hbm.allocator.roundup_power2_divisions: item 3: caching: "
     "roundup_power2_divisions must be powers of two (got 3)")
BI_C(y_bad_unit, "unit.yaml", V "memories:\n  hbm: {capacity: 12XB}\n",
     "amsim: @:3:9: memories.hbm.capacity: bad size '12XB': unknown unit (sizes: B, KiB,")
BI_C(y_bad_bandwidth, "bw.yaml",
     V "memories:\n  hbm: {capacity: 1GiB}\n  host: {capacity: 1GiB}\n"
     "links:\n  l: {from: host, to: hbm, bandwidth: 5 parsecs}\n",
     "amsim: @:6:28: links.l.bandwidth: bad bandwidth '5 parsecs': unknown unit")
/* A time or bandwidth that is not 0 but rounds to 0 ps or 0 B/s, as a size rounding to 0 bytes:
 * 0 is "no limit" for time_limit and "every event" for timeline_interval (until 2026-11-27 they
 * quietly became that), and a bandwidth of 0.4B/s said "must be > 0". */
BI_C(y_time_rounds_to_zero, "t0.yaml",
     V "memories:\n  hbm:\n    capacity: 1GiB\n"
     "    allocator: {policy: offline, time_limit: 1e-13s}\n",
     "amsim: @:5:34: memories.hbm.allocator.time_limit '1e-13s' rounds to 0 ps; give at least 1 ps "
     "or leave it out")
BI_C(y_interval_rounds_to_zero, "i0.yaml",
     V "memories:\n  hbm: {capacity: 1GiB}\nreport: {timeline_interval: 0.4ps}\n",
     "amsim: @:4:10: report.timeline_interval '0.4ps' rounds to 0 ps; give at least 1 ps or leave "
     "it out")
BI_C(y_bandwidth_rounds_to_zero, "bw0.yaml",
     V "memories:\n  hbm: {capacity: 1GiB}\n  host: {capacity: 1GiB}\n"
     "links:\n  l: {from: host, to: hbm, bandwidth: 0.4B/s}\n",
     "amsim: @:6:28: links.l.bandwidth '0.4B/s' rounds to 0 B/s; give at least 1 B/s")
/* An effective link bandwidth (bandwidth x efficiency) below the micro-byte per second the
 * engine keeps: until 2026-11-27 silently raised to 1e-6 B/s (3 bytes at 1B/s x 1e-7 took
 * 3,000,000 s, not 30,000,000 s). */
BI_C(y_link_rate_too_low, "rate.yaml",
     V "memories:\n  hbm: {capacity: 1GiB}\n  host: {capacity: 1GiB}\n"
     "links:\n  l: {from: host, to: hbm, bandwidth: 1B/s, efficiency: 0.0000001}\n",
     "amsim: @:6:45: links.l: bandwidth x efficiency is 1e-07 B/s (1 B/s x 1e-07), below the "
     "smallest rate kept, 1e-06 B/s; raise efficiency or bandwidth")
/* A transfer granule is a power of two (DMA granules are; a transfer rounds up to it): until
 * 2026-11-27 there was no transfer_granule key (`unknown key`). */
BI_C(y_transfer_granule, "tgran.yaml",
     V "memories:\n  hbm: {capacity: 1GiB, transfer_granule: 3KiB}\n",
     "amsim: @:3:25: memories.hbm.transfer_granule: 3072 bytes is not a power of two from 1 byte "
     "to 4 EiB")
BI_C(y_negative_size, "neg.yaml", V "memories:\n  hbm: {capacity: -1GiB}\n",
     "amsim: @:3:9: memories.hbm.capacity: bad size '-1GiB': negative values are not allowed")
BI_C(y_overflow_size, "ovf.yaml", V "memories:\n  hbm: {capacity: 99999999999TiB}\n",
     "amsim: @:3:9: memories.hbm.capacity: bad size '99999999999TiB': value too large")
BI_C(y_fraction, "eff.yaml",
     V "memories:\n  hbm: {capacity: 1GiB}\n  host: {capacity: 1GiB}\n"
     "links:\n  l: {from: host, to: hbm, bandwidth: 1GB/s, efficiency: 1.5}\n",
     "amsim: @:6:46: links.l.efficiency: expected a fraction between 0 and 1, got '1.5'")
BI_C(y_alias_bomb, "bomb.yaml",
     "a: &a [\"lol\",\"lol\"]\nb: &b [*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b]\n" V,
     "amsim: @:1:4: YAML anchors (&a) are not supported in amsim configs; write the value out")
/* A tag: until 2026-11-27 ignored (`!!str true` read as true), now refused as anchors are. */
BI_C(y_tag, "tag.yaml",
     V "memories:\n  hbm: {capacity: 1GiB, allocator: {allow_growth: !!str true}}\n",
     "amsim: @:3:51: YAML tags (!!str) are not supported in amsim configs; write the value "
     "without it")
BI_C(y_unknown_device, "dev.yaml", V "device: nosuch\n",
     "amsim: @:2:1: unknown device 'nosuch' (available: ")
BI_C(y_unknown_policy, "pol.yaml", V "memories:\n  hbm: {capacity: 1GiB, allocator: {policy: nosuch}}\n",
     "amsim: @:3:37: memories.hbm.allocator.policy: unknown allocator policy 'nosuch' (registered: ")
BI_C(y_unknown_memory, "mem.yaml",
     V "memories:\n  hbm: {capacity: 1GiB}\nlinks:\n  l: {from: dram, to: hbm, bandwidth: 1GB/s}\n",
     "amsim: @:5:7: links.l.from: unknown memory 'dram' (memories: hbm)")
/* spill_host (or defrag.host) naming no memory is an unknown memory, with the closest name;
 * until 2026-11-27 "'nohost' is not another memory", as if it named the level itself */
BI_C(y_unknown_spill_host, "sph.yaml",
     V "memories:\n  hbm:\n    capacity: 6MiB\n    on_oom: spill_to_host\n"
     "    spill_host: nohost\n  host: {capacity: 1GiB}\n",
     "amsim: @:6:5: memories.hbm.spill_host: unknown memory 'nohost' (did you mean 'host'?)")
/* defrag.every: 0 is refused under every trigger (until 2026-11-27 only under trigger: every;
 * on_oom and threshold accepted it) */
BI_C(y_defrag_every_zero, "ev0.yaml",
     V "memories:\n  hbm:\n    capacity: 6MiB\n    defrag: {mode: compact, every: 0}\n",
     "amsim: @:5:29: memories.hbm.defrag.every: must be > 0")
BI_C(y_default_memory, "dflt.yaml", V "default_memory: dram\nmemories:\n  hbm: {capacity: 1GiB}\n",
     "amsim: @:2:1: default_memory: unknown memory 'dram' (memories: hbm)")
BI_C(y_version, "ver.yaml", "version: 2\nmemories:\n  hbm: {capacity: 1GiB}\n",
     "amsim: @:1:1: unsupported config version '2' (supported versions: 1)")
/* a list or a map as version is said as other keys say it, in a file and through --set (until
 * 2026-11-27 "unsupported config version 'list'", as if 'list' had been typed) */
static void y_version_not_scalar(void)
{
    static const char *const files[][2] = {
        {"version: [1]\nmemories:\n  hbm: {capacity: 1GiB}\n", "list"},
        {"version: {a: 1}\nmemories:\n  hbm: {capacity: 1GiB}\n", "map"},
    };
    char args[4096], want[256];
    for (size_t i = 0; i < AM_ARRAY_LEN(files); i++) {
        const char *p = bi_write("verl.yaml", files[i][0], strlen(files[i][0]));
        snprintf(want, sizeof want, "amsim: @:1:1: version: expected a single value, not a %s "
                 "(supported versions: 1)", files[i][1]);
        char *w = bi_expand(want, p);
        snprintf(args, sizeof args, "check '%s'", p);
        bi_expect(args, 1, w);
        free(w);
    }
    static const char *const sets[][2] = {{"[1]", "list"}, {"{a: 1}", "map"}};
    for (size_t i = 0; i < AM_ARRAY_LEN(sets); i++) {
        snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --set 'version=%s'", cfg_default(),
                 trace_gpu(), sets[i][0]);
        snprintf(want, sizeof want, "amsim: --set 'version=%s': version: expected a single value, "
                 "not a %s (supported versions: 1)", sets[i][0], sets[i][1]);
        bi_expect(args, 1, want);
    }
}
BI_C(y_no_version, "nover.yaml", "memories:\n  hbm: {capacity: 1GiB}\n",
     "amsim: @:1:1: missing required key 'version' (supported versions: 1)")
/* version is the user's to write even when a device preset (which has its own) is named:
 * until 2026-11-27 the preset's `version: 1` counted as the user's and this was "config ok" */
BI_C(y_no_version_device, "noverdev.yaml",
     "device: h100\nmemories:\n  hbm:\n    allocator: {policy: caching}\n",
     "amsim: @:1:1: missing required key 'version' (supported versions: 1)")
BI_C(y_no_memories, "nomem.yaml", V,
     "amsim: @:1:1: missing required key 'memories' (at least one memory)")
BI_C(y_duplicate_key, "dupk.yaml", V "memories:\n  hbm: {capacity: 1GiB}\n  hbm: {capacity: 2GiB}\n",
     "amsim: @:4:3: duplicate key 'hbm' (first at line 3, column 3)")
BI_C(y_two_documents, "docs.yaml", V "---\n" V,
     "amsim: @:2:1: a config holds one YAML document; found a second one")
/* at 1:1, as a map without version is (until 2026-11-27 "@: missing..." with no position);
 * blank lines or comments alone, and a sweep's base: so, too */
BI_C(y_empty, "empty.yaml", "",
     "amsim: @:1:1: missing required key 'version' (supported versions: 1)")
static void y_blank(void)
{
    static const char *const texts[] = {"  \n\n", "# only a comment\n"};
    for (size_t i = 0; i < AM_ARRAY_LEN(texts); i++)
        bi_run(&(bi_case){BI_CONFIG, "blank.yaml", texts[i], 0,
                          "amsim: @:1:1: missing required key 'version' (supported versions: 1)",
                          NULL, NULL});
    const char *base = bi_write("blank-base.yaml", "# nothing yet\n", 14);
    char sw[1200], args[1400], want[1200];
    snprintf(sw, sizeof sw, "base: %s\ntraces: [%s]\n", base, trace_gpu());
    const char *p = bi_write("blank-sweep.yaml", sw, strlen(sw));
    snprintf(args, sizeof args, "batch '%s' --list", p);
    snprintf(want, sizeof want, "%s:1:1: missing required key 'version'", base);
    bi_expect(args, 1, want);
}
/* A message always carries FILE:LINE:COL and its reason. A value echoed in it is cut as a
 * --set is, to its first 117 characters and "..."; a message still too long loses its middle,
 * a path of more than 240 bytes first. Until 2026-11-27 a 1000-digit capacity gave "bad size
 * '1111..." with no closing quote and no reason, and a path of about 1010 characters lost its
 * position altogether. */
static void y_long_message(void)
{
    char text[2048], want[1024];
    char digits[1001];
    memset(digits, '1', 1000);
    digits[1000] = 0;
    snprintf(text, sizeof text, V "memories: {hbm: {capacity: %s}}\n", digits);
    snprintf(want, sizeof want, "amsim: @:2:18: memories.hbm.capacity: bad size '%.117s...': "
             "value too large (does not fit in 64 bits)\n", digits);
    bi_run(&(bi_case){BI_CONFIG, "longval.yaml", text, 0, want, NULL, NULL});
    /* a device name of 1100 characters: the message keeps its first 117 bytes (the name's
     * first 96 characters), "..." and its end */
    char name[1101];
    memset(name, 'x', 1100);
    name[1100] = 0;
    snprintf(text, sizeof text, V "device: %s\n", name);
    snprintf(want, sizeof want, "amsim: @:2:1: invalid device name '%.96s...x", name);
    bi_run(&(bi_case){BI_CONFIG, "longname.yaml", text, 0, want, NULL, NULL});
    bi_run(&(bi_case){BI_CONFIG, "longname.yaml", text, 0,
                      "xxx' (1 to 63 characters of A-Z a-z 0-9 _ -)\n", NULL, NULL});
    /* a path of about 1100 characters: its first 60 bytes, "...", its last 177 */
    char dir[1400], path[1500], args[1600], part[201];
    memset(part, 'd', 200);
    part[200] = 0;
    snprintf(dir, sizeof dir, "%s", tu_tmpdir());
    for (int i = 0; i < 5; i++) {
        size_t k = strlen(dir);
        snprintf(dir + k, sizeof dir - k, "/%s", part);
        CU_ASSERT_FATAL(mkdir(dir, 0777) == 0);
    }
    snprintf(path, sizeof path, "%s/badbyte.yaml", dir);
    FILE *f = fopen(path, "wb");
    CU_ASSERT_FATAL(f && fputs(V "device: h1\xff" "00\n", f) >= 0 && fclose(f) == 0);
    size_t n = strlen(path);
    snprintf(args, sizeof args, "check '%s'", path);
    snprintf(want, sizeof want, "amsim: %.60s...%s:2:11: invalid leading UTF-8 octet (byte 0xff "
             "at offset 21)\n", path, path + n - 177);
    bi_expect(args, 1, want);
}
/* A long path cut in its middle keeps its escapes whole: a directory named by 100 newlines is
 * "\x0a" 100 times in a message too long to show whole, and neither its first 60 bytes nor its end may end or start
 * inside one (until 2026-11-27 the cut fell where the byte counts put it: "\x...a"). */
static void t_path_escape_cut(void)
{
    char dir[512], path[640], args[800], shown[1024], nl[101];
    memset(nl, '\n', 100);
    nl[100] = 0;
    snprintf(dir, sizeof dir, "%s/nl", tu_tmpdir());
    CU_ASSERT_FATAL(mkdir(dir, 0777) == 0 || access(dir, F_OK) == 0);
    size_t k = strlen(dir);
    snprintf(dir + k, sizeof dir - k, "/%s", nl);
    CU_ASSERT_FATAL(mkdir(dir, 0777) == 0 || access(dir, F_OK) == 0);
    snprintf(path, sizeof path, "%s/f.trace", dir);
    FILE *f = fopen(path, "wb");
    /* a bad line long enough that the message does not fit whole: the path is cut */
    char bad[720];
    memset(bad, 'y', 700);
    bad[700] = 0;
    CU_ASSERT_FATAL(f && fprintf(f, "amsim-trace v1\nbogus%s\n", bad) > 0 && fclose(f) == 0);
    snprintf(args, sizeof args, "check '%s'", path);
    char *out = NULL, *err = NULL;
    CU_ASSERT(tu_amsim(args, &out, &err) == 1);
    /* the path as messages show it: every newline "\x0a" */
    size_t pre = k + 1, o = (size_t)snprintf(shown, sizeof shown, "%.*s", (int)pre, path);
    for (int i = 0; i < 100; i++)
        o += (size_t)snprintf(shown + o, sizeof shown - o, "\\x0a");
    snprintf(shown + o, sizeof shown - o, "/f.trace");
    const char *msg = err && strncmp(err, "amsim: ", 7) == 0 ? err + 7 : NULL;
    const char *dots = msg ? strstr(msg, "...") : NULL, *pos = msg ? strstr(msg, ":2:1: ") : NULL;
    CU_ASSERT_FATAL(dots && pos && dots < pos);
    size_t head = (size_t)(dots - msg), tail = (size_t)(pos - dots - 3), n = strlen(shown);
    /* the start and the end of the shown path, each cut between whole escapes */
    CU_ASSERT(head <= 60 && strncmp(msg, shown, head) == 0);
    CU_ASSERT(head <= pre || (head - pre) % 4 == 0);
    CU_ASSERT(tail < n && strncmp(dots + 3, shown + n - tail, tail) == 0);
    CU_ASSERT(tail >= 8 && (tail - 8) % 4 == 0);
    CU_ASSERT(strncmp(pos, ":2:1: unknown op 'bogusyyy", 26) == 0);
    if (!(head <= pre || (head - pre) % 4 == 0) || (tail - 8) % 4 != 0)
        fprintf(stderr, "\n  amsim %s\n  stderr: %s", args, err);
    free(out);
    free(err);
}
BI_C(y_scalar, "scalar.yaml", "\xff\xfe garbage",
     "amsim: @:1:1: a config must be a map of keys (version, memories, ...), not a scalar")

static void y_deep_flow(void)
{
    size_t len;
    char *s = gen_repeat(V "memories:\n  hbm: {capacity: 1GiB}\nx: ", "[", 5000, "", "]", 5000,
                         "\n", &len);
    bi_run(&(bi_case){BI_CONFIG, "deep.yaml", s, len,
                      "amsim: @:4:67: nesting deeper than 64 levels", NULL, NULL});
    free(s);
}

static void y_deep_block(void)
{
    char *s = malloc(200000), *p = s;
    p += sprintf(p, V "x:\n");
    for (int i = 0; i < 300; i++)
        p += sprintf(p, "%*sk%d:\n", 2 * (i + 1), "", i);
    p += sprintf(p, "%*sv: 1\n", 2 * 301, "");
    bi_run(&(bi_case){BI_CONFIG, "deepb.yaml", s, (size_t)(p - s),
                      "amsim: @:66:129: nesting deeper than 64 levels", NULL, NULL});
    free(s);
}

/* ---- paths: directories and unreadable files ------------------------------------------------ */

static void path_config_dir(void)
{
    char args[2048];
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s'", tu_tmpdir(), trace_gpu());
    char want[1024];
    snprintf(want, sizeof want, "amsim: %s: read error: Is a directory", tu_tmpdir());
    bi_expect(args, 1, want);
}

static void path_trace_dir(void)
{
    char args[2048], want[1024];
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s'", cfg_default(), tu_tmpdir());
    snprintf(want, sizeof want, "amsim: %s: Is a directory", tu_tmpdir());
    bi_expect(args, 1, want);
}

/* A path through a regular file (ENOTDIR) is unreadable even for root; a mode-000 file is
 * unreadable only for other users, so that case runs only when not root. */
static void path_config_unreadable(void)
{
    const char *f = bi_write("plainfile", "x", 1);
    char args[2048], want[1024];
    snprintf(args, sizeof args, "run -q -c '%s/c.yaml' -t '%s'", f, trace_gpu());
    snprintf(want, sizeof want, "amsim: %s/c.yaml: cannot open: Not a directory", f);
    bi_expect(args, 1, want);
    snprintf(args, sizeof args, "run -q -c '%s/missing.yaml' -t '%s'", tu_tmpdir(), trace_gpu());
    snprintf(want, sizeof want, "amsim: %s/missing.yaml: cannot open: No such file or directory",
             tu_tmpdir());
    bi_expect(args, 1, want);
    if (geteuid() != 0) {
        const char *p = bi_write("mode000.yaml", V, strlen(V));
        chmod(p, 0);
        snprintf(args, sizeof args, "run -q -c '%s' -t '%s'", p, trace_gpu());
        snprintf(want, sizeof want, "amsim: %s: cannot open: Permission denied", p);
        bi_expect(args, 1, want);
    }
}

static void path_trace_unreadable(void)
{
    const char *f = bi_write("plainfile2", "x", 1);
    char args[2048], want[1024];
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s/t.trace'", cfg_default(), f);
    snprintf(want, sizeof want, "amsim: %s/t.trace: Not a directory", f);
    bi_expect(args, 1, want);
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s/missing.trace'", cfg_default(), tu_tmpdir());
    snprintf(want, sizeof want, "amsim: %s/missing.trace: No such file or directory", tu_tmpdir());
    bi_expect(args, 1, want);
    if (geteuid() != 0) {
        const char *p = bi_write("mode000.trace", H, strlen(H));
        chmod(p, 0);
        snprintf(args, sizeof args, "run -q -c '%s' -t '%s'", cfg_default(), p);
        snprintf(want, sizeof want, "amsim: %s: Permission denied", p);
        bi_expect(args, 1, want);
    }
}

/* A trace must be a file: standard input ("-"), a pipe, a FIFO or a device is refused at once,
 * before anything is read (a FIFO with no writer would otherwise block the open). */
static void path_trace_stream(void)
{
    static const char why[] = "a trace is read from a file, not a stream (its start is read "
                              "twice to detect its format): save the stream to a file first";
    char fifo[1024], args[2048], want[2048];
    snprintf(fifo, sizeof fifo, "%s/stream.fifo", tu_tmpdir());
    unlink(fifo);
    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
    const char *paths[] = {"-", fifo, "/dev/null"};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        snprintf(args, sizeof args, "run -q -c '%s' -t '%s' < /dev/null", cfg_default(), paths[i]);
        snprintf(want, sizeof want, "amsim: %s: not a regular file (a pipe or a device); %s",
                 paths[i], why);
        bi_expect(args, 1, want);
    }
    unlink(fifo);
}

/* An input "-" is standard input wherever a command takes one (-t, check, stats, convert,
 * compare and mincap's -t), never a file named '-' in the current folder: with such a file
 * there and /dev/null on standard input, `-t -` is refused as any stream is, and the file keeps
 * its bytes; a regular file on standard input is read. Until 2026-11-27 ./- was read: `run -t -
 * --placements - < /dev/null >> ./-` appended the placements to the trace it read, status 0,
 * and `convert - < t.trace` said a trace is read from a file, not a stream. */
static void bi_copy(const char *from, const char *to);

static void path_dash_is_stdin(void)
{
    const char *bin = getenv("AMSIM") ? getenv("AMSIM") : "../../build/amsim";
    const char *dir = fresh_dir("dashin");
    char dash[700], errf[700], cmd[4096];
    snprintf(dash, sizeof dash, "%s/-", dir);
    snprintf(errf, sizeof errf, "%s/dash.err", dir);
    bi_copy(trace_gpu(), dash);
    char *t0 = tu_slurp(dash, NULL);
    CU_ASSERT_FATAL(t0 != NULL);
    static const struct {
        const char *args; /* {C} the config, {T} a trace, {R} a results table */
        int want;
        const char *err; /* in standard error */
    } cases[] = {
        {"run -c '{C}' -t - -q --placements - < /dev/null >> ./-", 1,
         "amsim: -: not a regular file (a pipe or a device)"},
        {"check - < /dev/null", 1, "amsim: -: not a regular file (a pipe or a device)"},
        {"compare -c '{C}' -t - --policies bfc < /dev/null", 1, "-: not a regular file"},
        {"mincap -c '{C}' -t - < /dev/null", 1, "-: not a regular file"},
        {"stats - --metric x < /dev/null", 1, "-: empty file"},
        {"convert - -o - < /dev/null", 1, "-: not a regular file"},
        {"check - < '{T}'", 0, ""},
        {"check - < '{C}'", 0, ""},
        {"convert - --to csv -o out.csv < '{T}'", 0, ""},
        {"stats - --metric x < '{R}'", 0, ""},
    };
    char res[700];
    snprintf(res, sizeof res, "%s/r.csv", dir);
    FILE *f = fopen(res, "w");
    CU_ASSERT_FATAL(f && fputs("policy,x\nbfc,1\nbfc,2\n", f) >= 0 && fclose(f) == 0);
    const char *val[26] = {0};
    val['C' - 'A'] = cfg_default(), val['T' - 'A'] = trace_gpu(), val['R' - 'A'] = res;
    for (size_t i = 0; i < AM_ARRAY_LEN(cases); i++) {
        char a[2048];
        bi_subst(a, sizeof a, cases[i].args, val);
        snprintf(cmd, sizeof cmd, "cd '%s' && %s %s 2>'%s' >/dev/null", dir, bin, a, errf);
        int st = system(cmd);
        st = st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        char *err = tu_slurp(errf, NULL);
        int found = err && strstr(err, cases[i].err) != NULL;
        CU_ASSERT_EQUAL(st, cases[i].want);
        CU_ASSERT(found);
        if (st != cases[i].want || !found)
            fprintf(stderr, "\n  %s\n  status %d (want %d)\n  stderr: %s  expected: %s\n", cmd,
                    st, cases[i].want, err ? err : "(none)", cases[i].err);
        free(err);
    }
    char *t1 = tu_slurp(dash, NULL);
    CU_ASSERT(t1 && strcmp(t0, t1) == 0);
    free(t0);
    free(t1);
}

/* convert's own refusals quote what was typed as every message does, a control byte as \xHH:
 * --to, a second input and --device. Until 2026-11-27 they echoed it raw, so an escape sequence
 * in an argument reached the terminal. */
static void convert_args_escaped(void)
{
    static const char *const cases[][2] = {
        {"convert x -o y --to 'a\x1b[31mb'",
         "amsim convert: --to takes native, csv or binary, not 'a\\x1b[31mb'\n"},
        {"convert a 'b\x1b[2J' -o y", "amsim convert: one input only ('a' and 'b\\x1b[2J')\n"},
        {"convert a -o y --device '1\x01'",
         "amsim convert: --device takes a device number 0..1024, not '1\\x01'\n"},
        /* the number rule of every --device (cli_device; until 2026-11-27 convert took 01) */
        {"convert a -o y --device 01", "amsim convert: --device takes a device number 0..1024, "
         "not '01': leading zeros are not allowed (YAML 1.1 reads 010 as octal 8)\n"},
    };
    for (size_t i = 0; i < AM_ARRAY_LEN(cases); i++) {
        char *err = NULL;
        CU_ASSERT_EQUAL(tu_amsim(cases[i][0], NULL, &err), 1);
        CU_ASSERT(err && strcmp(err, cases[i][1]) == 0);
        if (!err || strcmp(err, cases[i][1]) != 0)
            fprintf(stderr, "\n  amsim %s\n  stderr: %s  expected: %s", cases[i][0],
                    err ? err : "(none)", cases[i][1]);
        free(err);
    }
}

/* An expectation and a results table are read a line at a time up to 1 MiB a line (and an
 * expectation up to 64 MiB in all), refused at FILE:LINE:COL past it, a NUL byte first: a
 * stream that never ends a line is not held whole. Until 2026-11-27 getline read it all:
 * `--expect - < /dev/zero` grew to gigabytes. Under timeout(1) and a memory limit, so that a
 * regression fails instead of stopping the suite. */
/* The memory limit the line-limit cases run under, so a reader that grows without bound
 * fails them; none under AddressSanitizer, which reserves terabytes of shadow memory at start
 * and cannot run under ulimit -v (as test_batch.c's AS_LIMIT). */
#if defined(__SANITIZE_ADDRESS__)
#define LL_VLIMIT ""
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LL_VLIMIT ""
#endif
#endif
#ifndef LL_VLIMIT
#define LL_VLIMIT "ulimit -v 1000000; "
#endif

static void text_line_limits(void)
{
    const char *bin = getenv("AMSIM") ? getenv("AMSIM") : "../../build/amsim";
    const char *dir = fresh_dir("linelimit");
    char lng[700], exp[700], res[700], big[700], errf[700], cmd[8192];
    snprintf(lng, sizeof lng, "%s/long.txt", dir);
    snprintf(exp, sizeof exp, "%s/long.expect", dir);
    snprintf(res, sizeof res, "%s/long.csv", dir);
    snprintf(big, sizeof big, "%s/big.expect", dir);
    snprintf(errf, sizeof errf, "%s/limit.err", dir);
    FILE *f = fopen(lng, "w"), *e = fopen(exp, "w"), *r = fopen(res, "w"), *b = fopen(big, "w");
    CU_ASSERT_FATAL(f && e && r && b);
    fputs("amsim-expect v1\n", e);
    fputs("policy,x\n", r);
    fputs("amsim-expect v1\n", b);
    for (int i = 0; i < (1 << 20) + 10; i++)
        putc('a', f), putc('a', e), putc('a', r);
    for (int i = 0; i < (64 << 20) / 32 + 10; i++) /* 32-byte comment lines past 64 MiB */
        fputs("# a comment line of 32 bytes...\n", b);
    CU_ASSERT_FATAL(fclose(f) == 0 && fclose(e) == 0 && fclose(r) == 0 && fclose(b) == 0);
    static const struct {
        const char *args; /* {C} config, {T} trace, {E} long expect, {R} long table, {B} big */
        const char *err;
    } cases[] = {
        {"run -q -c '{C}' -t '{T}' --expect - < /dev/zero", "amsim: -:1:1: NUL byte"},
        {"run -q -c '{C}' -t '{T}' --expect - < '{E}'",
         "amsim: -:2:1048577: line longer than 1048576 bytes"},
        {"run -q -c '{C}' -t '{T}' --expect '{B}'",
         "amsim: {B}:2097153:17: larger than 67108864 bytes"},
        {"stats /dev/stdin --metric x < /dev/zero", "amsim stats: /dev/stdin:1:1: NUL byte"},
        {"stats - --metric x < '{R}'", "amsim stats: -:2:1048577: line longer than 1048576 bytes"},
    };
    const char *val[26] = {0};
    val['C' - 'A'] = cfg_default(), val['T' - 'A'] = trace_gpu(), val['E' - 'A'] = exp;
    val['R' - 'A'] = res, val['B' - 'A'] = big;
    for (size_t i = 0; i < AM_ARRAY_LEN(cases); i++) {
        char a[2048], w[2048];
        bi_subst(a, sizeof a, cases[i].args, val);
        bi_subst(w, sizeof w, cases[i].err, val);
        snprintf(cmd, sizeof cmd, "%stimeout 30 %s %s 2>'%s' >/dev/null", LL_VLIMIT, bin, a,
                 errf);
        int st = system(cmd);
        st = st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        char *err = tu_slurp(errf, NULL);
        int found = err && strstr(err, w) != NULL;
        CU_ASSERT_EQUAL(st, 1);
        CU_ASSERT(found);
        if (st != 1 || !found)
            fprintf(stderr, "\n  %s\n  status %d (want 1)\n  stderr: %s  expected: %s\n", cmd,
                    st, err ? err : "(none)", w);
        free(err);
    }
    unlink(big);
}

/* batch -o - and batch --merge ... -o - are refused as run -o - is: -o names a folder, and
 * standard output is none. Until 2026-11-27 both made a folder named '-' in the current one. */
static void batch_out_dash(void)
{
    const char *bin = getenv("AMSIM") ? getenv("AMSIM") : "../../build/amsim";
    const char *dir = fresh_dir("batchdash");
    char sw[700], errf[700], cmd[4096], dash[700];
    snprintf(sw, sizeof sw, "%s/s.yaml", dir);
    snprintf(errf, sizeof errf, "%s/b.err", dir);
    snprintf(dash, sizeof dash, "%s/-", dir);
    FILE *f = fopen(sw, "w");
    CU_ASSERT_FATAL(f != NULL);
    fprintf(f, "base: %s\ntraces: [%s]\npolicies: [bfc]\n", cfg_default(), trace_gpu());
    CU_ASSERT_FATAL(fclose(f) == 0);
    static const char *const args[] = {"batch s.yaml -o -", "batch --merge . -o -"};
    for (size_t i = 0; i < AM_ARRAY_LEN(args); i++) {
        snprintf(cmd, sizeof cmd, "cd '%s' && %s %s 2>'%s' >/dev/null", dir, bin, args[i], errf);
        int st = system(cmd);
        char *err = tu_slurp(errf, NULL);
        CU_ASSERT(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 1);
        CU_ASSERT(err && strcmp(err, "amsim batch: -o -: -o names a folder (the study's, or the "
                                     "merged one; --merge also takes a file OUT.csv); standard "
                                     "output is no folder\n") == 0);
        if (!err || !strstr(err, "standard output is no folder"))
            fprintf(stderr, "\n  %s\n  stderr: %s\n", cmd, err ? err : "(none)");
        free(err);
        CU_ASSERT_NOT_EQUAL(access(dash, F_OK), 0); /* no folder '-' made */
        rmdir(dash);
    }
}

/* amsim check refuses a FIFO, a device and a pipe as run and convert do, at once and before
 * reading a byte. Until 2026-11-27 it read the file's first line to tell a config from a trace
 * first: it hung on a FIFO with no writer (the open blocks) and on /dev/zero (a line that never
 * ends), and on a pipe it checked the config without its first line ("missing required key
 * 'version'"). Run under timeout(1) so that a regression fails instead of stopping the suite. */
static void path_check_stream(void)
{
    static const char why[] = "not a regular file (a pipe or a device); a trace is read from a "
                              "file, not a stream";
    const char *bin = getenv("AMSIM") ? getenv("AMSIM") : "../../build/amsim";
    char fifo[1024], errf[1024], cmd[4096], want[2048];
    snprintf(fifo, sizeof fifo, "%s/check.fifo", tu_tmpdir());
    snprintf(errf, sizeof errf, "%s/check.err", tu_tmpdir());
    unlink(fifo);
    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
    const char *paths[] = {fifo, "/dev/zero", "/dev/null", "/dev/stdin"};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        snprintf(cmd, sizeof cmd, "timeout 20 %s check '%s' 2>'%s' </dev/null", bin, paths[i],
                 errf);
        int st = system(cmd);
        char *err = tu_slurp(errf, NULL);
        snprintf(want, sizeof want, "amsim: %s: %s", paths[i], why);
        CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 1);
        CU_ASSERT(err && strstr(err, want) != NULL);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 1 || !err || !strstr(err, want))
            fprintf(stderr, "\n  %s\n  status %d\n  stderr: %s  expected: %s\n", cmd,
                    WIFEXITED(st) ? WEXITSTATUS(st) : -1, err ? err : "(none)", want);
        free(err);
    }
    unlink(fifo);
    /* a config written into a pipe: refused whole, not checked from its second line */
    snprintf(cmd, sizeof cmd, "timeout 20 %s check /dev/stdin 2>'%s' >/dev/null", bin, errf);
    FILE *p = popen(cmd, "w");
    CU_ASSERT_FATAL(p != NULL);
    fputs("version: 1\ndevice: h100\n", p);
    int st = pclose(p);
    char *err = tu_slurp(errf, NULL);
    snprintf(want, sizeof want, "amsim: /dev/stdin: %s", why);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 1);
    CU_ASSERT(err && strstr(err, want) != NULL);
    free(err);
}

/* ---- sweeps ------------------------------------------------------------------------------- */

/* The product is refused as soon as the axes are read, whatever their kind: 100,000 fractions
 * x 2 policies x 100 queue depths x 2 (40M runs) at the queue depths. Until 2026-11-27 each
 * fraction was compared with every earlier one for repeats (n^2/2 comparisons, each reading
 * both values: 8,000 values took `check` 10 s), so this was not refused after 10 minutes.
 * Under timeout(1), so that a regression fails instead of stopping the suite. */
static void sweep_product_refused_at_read(const char *cfg)
{
    const char *bin = getenv("AMSIM") ? getenv("AMSIM") : "../../build/amsim";
    char sw[4096], want[2048], cmd[4096], errf[1024];
    snprintf(sw, sizeof sw, "base: %s\ntraces: [%s]\npolicies: [bfc, caching]\naxes:\n"
             "  memories.hbm.allocator.memory_fraction: {from: 0.00001, to: 1, step: 0.00001}\n"
             "  engine.queue_depth: {from: 1, to: 100, step: 1}\n"
             "  report.max_oom_events: [1, 2]\n", cfg, trace_gpu());
    const char *path = bi_write("cap-frac.yaml", sw, strlen(sw));
    snprintf(want, sizeof want, "amsim: %s:6:3: axes: engine.queue_depth: its 100 values take "
             "the matrix to 20000000 runs before exclusions (200000 before it x 100), over the "
             "limit of 10000000 runs", path);
    snprintf(errf, sizeof errf, "%s/cap-frac.err", tu_tmpdir());
    snprintf(cmd, sizeof cmd, "timeout 20 %s check '%s' 2>'%s' >/dev/null </dev/null", bin, path,
             errf);
    int st = system(cmd);
    char *err = tu_slurp(errf, NULL);
    int ok = st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 1 && err && strstr(err, want);
    CU_ASSERT(ok);
    if (!ok)
        fprintf(stderr, "\n  %s\n  status %d (124: timed out)\n  stderr: %s  expected: %s\n", cmd,
                st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1, err ? err : "(none)", want);
    free(err);
}

/* A sweep whose matrix has more than 10 million runs before exclusions is refused when it is
 * read, at the axis whose values take it past the limit, by check, batch --list and a batch
 * run alike (until 2026-11-27 with no position, and only after planning every run below the
 * limit in memory: about 590 bytes a run). Here 1 trace x 4000 x 4000 values. */
static void sweep_matrix_too_large(void)
{
    char cfg[1024], sw[8192], want[2048], args[4096];
    snprintf(cfg, sizeof cfg, "%s", bi_write("cap-base.yaml", BI_CFG_TEXT, strlen(BI_CFG_TEXT)));
    snprintf(sw, sizeof sw, "name: cap\nbase: %s\ntraces: [%s]\naxes:\n"
             "  memories.hbm.capacity: {from: 1GiB, to: 4000GiB, step: 1GiB}\n"
             "  memories.host.capacity: {from: 1GiB, to: 4000GiB, step: 1GiB}\n", cfg, trace_gpu());
    const char *path = bi_write("cap.yaml", sw, strlen(sw));
    snprintf(want, sizeof want, "amsim: %s:6:3: axes: memories.host.capacity: its 4000 values "
             "take the matrix to 16000000 runs before exclusions (4000 before it x 4000), over "
             "the limit of 10000000 runs", path);
    snprintf(args, sizeof args, "check '%s'", path);
    bi_expect(args, 1, want);
    snprintf(args, sizeof args, "batch '%s' --list", path);
    bi_expect(args, 1, want);
    snprintf(args, sizeof args, "batch '%s' -o '%s.d'", path, path);
    bi_expect(args, 1, want);
    sweep_product_refused_at_read(cfg);
    /* a list of values has a range's limit too, at its 100,001st value (QA 114: until
     * 2026-11-28 100,001 and 200,001 values passed `check`, against README's "one axis at most
     * 100,000 values"); line 5 holds the list, each value "NNNNNNN, " from column 27 */
    size_t cap = 1 << 21, at = 0;
    char *big = am_malloc(cap);
    at += (size_t)snprintf(big, cap, "name: cap\nbase: %s\ntraces: [%s]\naxes:\n"
                           "  memories.hbm.capacity: [", cfg, trace_gpu());
    for (int i = 0; i <= 100000; i++)
        at += (size_t)snprintf(big + at, cap - at, "%s%d", i ? ", " : "", 1000000 + i);
    snprintf(big + at, cap - at, "]\n");
    path = bi_write("cap-list.yaml", big, strlen(big));
    free(big);
    snprintf(want, sizeof want, "amsim: %s:5:%d: axes: memories.hbm.capacity: more than 100000 "
             "values", path, 27 + 100000 * 9);
    snprintf(args, sizeof args, "check '%s'", path);
    bi_expect(args, 1, want);
}

/* A sweep refused at its line and column: text follows a base: line naming BI_CFG_TEXT and a
 * traces: line (the shipped trace); in want, "@" is the sweep's path. By batch --list. */
static void bi_sweep(const char *name, const char *text, const char *want)
{
    char sw[4096], args[1200];
    const char *cfg = bi_write("sw-base.yaml", BI_CFG_TEXT, strlen(BI_CFG_TEXT));
    snprintf(sw, sizeof sw, "base: %s\ntraces: [%s]\n%s", cfg, trace_gpu(), text);
    const char *p = bi_write(name, sw, strlen(sw));
    char *w = bi_expand(want, p);
    snprintf(args, sizeof args, "batch '%s' --list", p);
    bi_expect(args, 1, w);
    free(w);
}

/* A value or key of a sweep that is a list or a map is named as such, in the config's words
 * (until 2026-11-27 it showed as '?': "kind: '?' (matrix or regress)"); an empty PATH of set:
 * or axes: names no setting (until 2026-11-27 it got --set's "expected PATH=VALUE"). */
static void sweep_not_scalar(void)
{
    static const char *const c[][2] = {
        {"kind: [matrix]\n",
         "@:3:7: kind: expected a single value, not a list (matrix or regress)"},
        {"device: [1]\n", "@:3:9: device: expected a single value, not a list (a device number "
                          "0..1024)"},
        {"outputs: {[timeline]: true}\n",
         "@:3:11: outputs: map keys must be plain scalars, not a list"},
        {"seeds: [1]\ngenerate: {kind: train, args: [], [x]: 1}\n",
         "@:4:35: generate: map keys must be plain scalars, not a list"},
        {"{[a]: 1}: 2\n", "@:3:1: map keys must be plain scalars, not a map"},
        {"name: {a: 1}\n", "@:3:7: name: expected a single value, not a map"},
        {"policies: [[bfc]]\n", "@:3:12: policies: list items must be single values, not a list"},
        {"axes: {memories.hbm.capacity: {from: [1GiB], to: 2GiB, step: 1GiB}}\n",
         "@:3:38: axis: 'from': expected a single value, not a list"},
        {"axes: {memories.hbm.capacity: {[from]: 1GiB}}\n",
         "@:3:32: axis: map keys must be plain scalars, not a list"},
        {"axes: {\"\": [1]}\n",
         "@:3:8: axes: an empty PATH names no setting (e.g. memories.hbm.capacity)"},
        {"set: {\"\": 1}\n", "@:3:7: set: an empty PATH names no setting (e.g. "
                             "memories.hbm.capacity)"},
        {"set: {[a]: 1}\n", "@:3:7: set: map keys must be plain scalars, not a list"},
    };
    for (size_t i = 0; i < AM_ARRAY_LEN(c); i++)
        bi_sweep("notscalar.yaml", c[i][0], c[i][1]);
}

/* bi_sweep, then the same refusal by check, which reads the sweep as batch does. */
static void bi_sweep_both(const char *name, const char *text, const char *want)
{
    bi_sweep(name, text, want);
    char sw[4096], args[1200];
    const char *cfg = bi_write("sw-base.yaml", BI_CFG_TEXT, strlen(BI_CFG_TEXT));
    snprintf(sw, sizeof sw, "base: %s\ntraces: [%s]\n%s", cfg, trace_gpu(), text);
    const char *p = bi_write(name, sw, strlen(sw));
    char *w = bi_expand(want, p);
    snprintf(args, sizeof args, "check '%s'", p);
    bi_expect(args, 1, w);
    free(w);
}

/* An unknown policy of policies: is refused at its item, as a traces: or seeds: item is, in a
 * flow or a block list (until 2026-11-28 at the list's '[' or its first '-'). */
static void sweep_policy_at_item(void)
{
    static const char *const c[][2] = {
        {"policies: [bfc, bogus]\n", "@:3:17: policies: unknown policy 'bogus'"},
        {"policies:\n  - bfc\n  - bogus\n", "@:5:5: policies: unknown policy 'bogus'"},
        {"policies: bogus\n", "@:3:11: policies: unknown policy 'bogus'"},
    };
    for (size_t i = 0; i < AM_ARRAY_LEN(c); i++)
        bi_sweep_both("polpos.yaml", c[i][0], c[i][1]);
}

/* An unknown key or memory in a set: or axes: PATH is refused at the PATH, as a config refuses
 * one at its key, whatever the value's form: flow or block, a list, a range or a scalar (until
 * 2026-11-28 at the first value: 4:26 for the first case, 5:7 for the block list). A value's
 * own errors stay at the value; inside a map value, at the entry's key, as in a config. */
static void sweep_key_at_key(void)
{
    static const char *const c[][2] = {
        {"axes:\n  memories.hbm.capcity: [1GiB]\n",
         "@:4:3: unknown key 'memories.hbm.capcity' (did you mean 'capacity'?)"},
        {"axes:\n  memories.hbm.capcity:\n    - 1GiB\n",
         "@:4:3: unknown key 'memories.hbm.capcity' (did you mean 'capacity'?)"},
        {"axes: {memories.hbm.capcity: {from: 1GiB, to: 2GiB, step: 1GiB}}\n",
         "@:3:8: unknown key 'memories.hbm.capcity' (did you mean 'capacity'?)"},
        {"axes: {memories.hbm.allocatr.policy: [bfc]}\n",
         "@:3:8: unknown key 'memories.hbm.allocatr' (did you mean 'allocator'?)"},
        {"set: {memories.hbm.capcity: 1GiB}\n",
         "@:3:7: unknown key 'memories.hbm.capcity' (did you mean 'capacity'?)"},
        {"set:\n  memories.hbm.capcity:\n    1GiB\n",
         "@:4:3: unknown key 'memories.hbm.capcity' (did you mean 'capacity'?)"},
        {"set:\n  memories.hbbm.capacity: 1GiB\n", "@:4:3: unknown memory 'hbbm' (did you mean "
                                                  "'hbm'?)"},
        {"axes:\n  memories.hbm.capacity: [1GiB, 2XB]\n",
         "@:4:33: memories.hbm.capacity: bad size '2XB'"},
        /* inside a map value, at the key as a config places it (until 2026-11-28 at the
         * map's '{': 3:20, 4:16, 3:20, 5:5) */
        {"set: {memories.hbm: {capcity: 1GiB}}\n",
         "@:3:22: unknown key 'memories.hbm.capcity' (did you mean 'capacity'?)"},
        {"set:\n  memories.hbm:\n    capacity: 1GiB\n    allocator: {policy: bfc, memory_limt: "
         "1GiB}\n",
         "@:6:30: unknown key 'memories.hbm.allocator.memory_limt' (did you mean 'memory_limit'?)"},
        {"set: {memories.hbm: {capacity: 1XB}}\n", "@:3:22: memories.hbm.capacity: bad size '1XB'"},
        {"set:\n  memories.hbm:\n    allocator:\n      policy: bfc\n      memory_limit: [1]\n",
         "@:7:7: memories.hbm.allocator.memory_limit: expected a single value, not a list"},
    };
    for (size_t i = 0; i < AM_ARRAY_LEN(c); i++)
        bi_sweep_both("keypos.yaml", c[i][0], c[i][1]);
}

/* A set: or axes: key holding '=' names no setting: until 2026-11-28 the key was split at its
 * '=' when passed on as PATH=VALUE, so "memories.hbm.capacity=2GiB #" ran with 2 GiB and the
 * axis below ran caching under each of its values' names. Other bytes are kept as written. */
static void sweep_path_with_eq(void)
{
    static const char *const c[][2] = {
        {"set:\n  \"memories.hbm.capacity=2GiB #\": 1GiB\n",
         "@:4:3: set: 'memories.hbm.capacity=2GiB #' names no setting: a PATH has no '=' (write "
         "PATH: VALUE, e.g. memories.hbm.capacity: 1GiB)"},
        {"axes: {\"memories.hbm.allocator.policy=caching #\": [bfc, best_fit]}\n",
         "@:3:8: axes: 'memories.hbm.allocator.policy=caching #' names no setting: a PATH has no "
         "'=' (write PATH: VALUE, e.g. memories.hbm.capacity: 1GiB)"},
        {"set: {\"memories.hbm.capacity #\": 1GiB}\n",
         "@:3:7: unknown key 'memories.hbm.capacity #' (did you mean 'capacity'?)"},
        {"set: {\"-memories.hbm.capacity\": 1GiB}\n", "@:3:7: unknown key '-memories' (did "
                                                       "you mean 'memories'?)"},
    };
    for (size_t i = 0; i < AM_ARRAY_LEN(c); i++)
        bi_sweep("patheq.yaml", c[i][0], c[i][1]);
}

/* A sweep's own numbers have a config number's form: no '+', no leading zero (YAML 1.1 reads
 * 010 as octal 8). Until 2026-11-27 seed 010 ran as seed 10, device +1 and 01 as device 1, and
 * a range from 010 started at 10. */
static void sweep_number_form(void)
{
    static const char *const c[][2] = {
        {"device: +1\n", "@:3:9: device: bad number '+1': a '+' sign is not allowed"},
        {"device: 01\n", "@:3:9: device: bad number '01': leading zeros are not allowed (YAML "
                         "1.1 reads 010 as octal 8)"},
        {"axes: {engine.queue_depth: {from: 010, to: 20, step: 5}}\n",
         "@:3:35: range: 'from': bad number '010': leading zeros are not allowed"},
        {"axes: {memories.hbm.capacity: {from: 1GiB, to: 4GiB, factor: +2}}\n",
         "@:3:62: range: 'factor': bad number '+2': a '+' sign is not allowed"},
    };
    for (size_t i = 0; i < AM_ARRAY_LEN(c); i++)
        bi_sweep("numform.yaml", c[i][0], c[i][1]);
    /* seeds go with generate: instead of traces: */
    const char *cfg = bi_write("sw-base.yaml", BI_CFG_TEXT, strlen(BI_CFG_TEXT));
    char sw[1200], args[1400];
    snprintf(sw, sizeof sw, "base: %s\nseeds: [1, 010]\ngenerate: {kind: train, args: []}\n",
             cfg);
    const char *p = bi_write("numform-seeds.yaml", sw, strlen(sw));
    char *want = bi_expand("@:2:12: seeds: bad number '010': leading zeros are not allowed", p);
    snprintf(args, sizeof args, "batch '%s' --list", p);
    bi_expect(args, 1, want);
    free(want);
}

/* Seeds are read as a config's integers: 1e0 and 2.0 are seeds 1 and 2 (until 2026-11-28
 * refused, "is not an unsigned integer"), 1.5 is no seed; a config integer with a fraction is
 * not whole, not too large, even where its double is 2^64 (until 2026-11-28 "too large"). */
static void sweep_seeds_as_integers(void)
{
    const char *cfg = bi_write("sw-base.yaml", BI_CFG_TEXT, strlen(BI_CFG_TEXT));
    char sw[1200], args[1400];
    snprintf(sw, sizeof sw, "base: %s\nseeds: [1e0, 2.0]\ngenerate: {kind: train, args: []}\n",
             cfg);
    const char *p = bi_write("seedint.yaml", sw, strlen(sw));
    snprintf(args, sizeof args, "batch '%s' --list", p);
    char *out = NULL; /* refused before: status 1; the seeds in digits, in names and keys */
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    CU_ASSERT(out && strstr(out, "\t0001-s1\t") && strstr(out, ";seed=1;") &&
              strstr(out, "\t0002-s2\t") && strstr(out, ";seed=2;") && !strstr(out, "1e0"));
    free(out);
    snprintf(sw, sizeof sw, "base: %s\nseeds: [1, 1.5]\ngenerate: {kind: train, args: []}\n",
             cfg);
    p = bi_write("seedint2.yaml", sw, strlen(sw));
    char *want = bi_expand("@:2:12: seeds: '1.5' is not an unsigned integer", p);
    snprintf(args, sizeof args, "batch '%s' --list", p);
    bi_expect(args, 1, want);
    free(want);
    bi_run(&(bi_case){BI_CONFIG, "qdfrac.yaml",
                      BI_CFG_TEXT "engine: {queue_depth: 18446744073709551614.9}\n", 0,
                      "amsim: @:8:10: engine.queue_depth: expected a non-negative integer, got "
                      "'18446744073709551614.9': not a whole number", NULL, NULL});
}

/* An axis value is held to the config's number form before it is compared with the others for
 * repeats: until 2026-11-27 `[1, 01]` was refused as "'01' repeats '1'", though `[8, 010]` was
 * a bad number, and so were `[1GiB, 01GiB]` and `[0.5, 00.5]`. */
static void sweep_axis_number_form(void)
{
    static const char *const c[][2] = {
        {"axes: {engine.queue_depth: [1, 01]}\n",
         "@:3:32: engine.queue_depth: bad number '01': leading zeros are not allowed (YAML 1.1 "
         "reads 010 as octal 8)"},
        {"axes: {engine.queue_depth: [10, 010]}\n",
         "@:3:33: engine.queue_depth: bad number '010': leading zeros are not allowed"},
        {"axes: {memories.hbm.capacity: [1GiB, 01GiB]}\n",
         "@:3:38: memories.hbm.capacity: bad number '01GiB': leading zeros are not allowed"},
        {"axes: {links.pcie.efficiency: [0.5, 00.5]}\n",
         "@:3:37: links.pcie.efficiency: bad number '00.5': leading zeros are not allowed"},
        {"axes: {engine.queue_depth: [8, +8]}\n",
         "@:3:32: engine.queue_depth: bad number '+8': a '+' sign is not allowed"},
    };
    for (size_t i = 0; i < AM_ARRAY_LEN(c); i++)
        bi_sweep("axnumform.yaml", c[i][0], c[i][1]);
}

/* An exclusion's value is read by the rules of the values it matches: a number of an axis whose
 * option takes one in the config's form, a seed as seeds: reads one. Until 2026-11-27 `{seed:
 * 010}` excluded seed 10, `{seed: 2e0}` seed 2, and `010GiB`, `+8GiB`, `010`, `+8` the axis
 * values 10GiB, 8GiB, 10 and 8, all forms that seeds: and the axes refuse. */
static void sweep_exclusion_number_form(void)
{
    static const char *const c[][2] = {
        {"axes: {memories.hbm.capacity: [8GiB, 10GiB]}\nexclude: [{memories.hbm.capacity: "
         "010GiB}]\n", "@:4:35: exclude: memories.hbm.capacity: bad number '010GiB': leading "
         "zeros are not allowed (YAML 1.1 reads 010 as octal 8)"},
        {"axes: {memories.hbm.capacity: [8GiB, 10GiB]}\nexclude: [{memories.hbm.capacity: "
         "+8GiB}]\n", "@:4:35: exclude: memories.hbm.capacity: bad number '+8GiB': a '+' sign "
         "is not allowed"},
        {"axes: {engine.queue_depth: [8, 10]}\nexclude: [{engine.queue_depth: 010}]\n",
         "@:4:32: exclude: engine.queue_depth: bad number '010': leading zeros are not allowed"},
        {"axes: {engine.queue_depth: [8, 10]}\nexclude: [{engine.queue_depth: +8}]\n",
         "@:4:32: exclude: engine.queue_depth: bad number '+8': a '+' sign is not allowed"},
    };
    for (size_t i = 0; i < AM_ARRAY_LEN(c); i++)
        bi_sweep("exnumform.yaml", c[i][0], c[i][1]);
    static const char *const seeds[][2] = {
        {"010", "@:5:12: exclude: seed: bad number '010': leading zeros are not allowed"},
        {"2.5e0", "@:5:12: exclude: seed: '2.5e0' is not an unsigned integer"}, /* 2e0 is seed 2 */
    };
    const char *cfg = bi_write("sw-base.yaml", BI_CFG_TEXT, strlen(BI_CFG_TEXT));
    for (size_t i = 0; i < AM_ARRAY_LEN(seeds); i++) {
        char sw[1400], args[1600];
        snprintf(sw, sizeof sw, "base: %s\nseeds: [2, 10]\ngenerate: {kind: train, args: []}\n"
                 "exclude:\n  - {seed: %s}\n", cfg, seeds[i][0]);
        const char *p = bi_write("exnumform-seeds.yaml", sw, strlen(sw));
        char *want = bi_expand(seeds[i][1], p);
        snprintf(args, sizeof args, "batch '%s' --list", p);
        bi_expect(args, 1, want);
        free(want);
    }
}

/* With policies:, the policy of every default level a run has is policies:'s to give, the one
 * an axis chooses included: until 2026-11-27 only the level after set: was checked, and
 * `default_memory: [hbm, host]` beside an axis of host's policy ran mislabelled duplicates. */
static void sweep_chosen_level_policy(void)
{
    bi_sweep("chosenlevel.yaml", "policies: [bfc, caching]\naxes: {default_memory: [hbm, host], "
             "memories.host.allocator.policy: [best_fit, first_fit]}\n",
             "@:4:37: axes: memories.host.allocator.policy is the default level's policy in the "
             "runs of default_memory=host (line 4, column 30), which 'policies:' sets in every "
             "run");
}

/* Two set: entries giving one setting (a path and a map holding it): until 2026-11-27 the later
 * silently won. */
static void sweep_set_twice(void)
{
    bi_sweep("settwice.yaml", "set: {memories.hbm.capacity: 1GiB, memories.hbm: {capacity: "
             "2GiB}}\n", "@:3:36: set: memories.hbm.capacity is also given by set: "
             "memories.hbm.capacity (line 3, column 7): the later entry would replace the earlier "
             "one in every run; give it once");
}

/* --device N keeps the number rule of a sweep's device: and of --set (until 2026-11-27 strtol
 * read '+1', '01' and ' 1' as device 1, though '1 ' was refused), in every command that takes it. */
static void cli_device_number_form(void)
{
    static const char *const c[][2] = {
        {"+1", "--device takes a device number 0..1024, not '+1': a '+' sign is not allowed"},
        {"01", "--device takes a device number 0..1024, not '01': leading zeros are not allowed"},
        {" 1", "--device takes a device number 0..1024, not ' 1': blanks before or after a "
               "number are not allowed"},
        {"1 ", "--device takes a device number 0..1024, not '1 ': blanks before or after a "
               "number are not allowed"},
        {"-1", "--device takes a device number 0..1024, not '-1'"},
        {"1025", "--device takes a device number 0..1024, not '1025'"},
    };
    static const char *const cmds[] = {"run -q -c x -t x", "compare -c x -t x --policies bfc",
                                       "mincap -c x -t x", "check x"};
    for (size_t i = 0; i < AM_ARRAY_LEN(c); i++)
        for (size_t k = 0; k < AM_ARRAY_LEN(cmds); k++) {
            char args[512], want[512];
            snprintf(args, sizeof args, "%s --device '%s'", cmds[k], c[i][0]);
            snprintf(want, sizeof want, "amsim %.*s: %s", (int)strcspn(cmds[k], " "), cmds[k],
                     c[i][1]);
            bi_expect(args, 1, want);
        }
}

/* mincap --granularity keeps the form of a config's sizes, as --set does (until 2026-11-27
 * '+1MiB', '01MiB' and ' 1MiB' were read as 1 MiB). */
/* batch -j and gen's integer options in a config number's form too (until 2026-11-27 '-j 01'
 * was 1 worker and '--seed 01' seed 1, where a sweep's seeds: refuse 01) */
static void cli_jobs_seed_number_form(void)
{
    char args[4096];
    const char *sw = bi_write("jobs-form.yaml", "base: x.yaml\ntraces: [x.trace]\n", 31);
    snprintf(args, sizeof args, "batch '%s' -j 01 -o '%s/jobs-out'", sw, tu_tmpdir());
    bi_expect(args, 1, "amsim batch: -j takes a number of workers 1..4096, not '01': leading "
              "zeros are not allowed");
    bi_expect("gen train --seed 01 -o -", 1, "amsim gen train: --seed takes an unsigned integer, "
              "not '01': leading zeros are not allowed");
    bi_expect("gen serve --requests 007 -o -", 1, "amsim gen serve: --requests takes an unsigned "
              "integer, not '007': leading zeros are not allowed");
}

static void cli_granularity_number_form(void)
{
    static const char *const c[][2] = {
        {"+1MiB", "amsim mincap: --granularity: bad number '+1MiB': a '+' sign is not allowed"},
        {"01MiB", "amsim mincap: --granularity: bad number '01MiB': leading zeros are not allowed"},
        {" 1MiB", "amsim mincap: --granularity: bad number ' 1MiB': blanks before or after a "
                  "number are not allowed"},
    };
    for (size_t i = 0; i < AM_ARRAY_LEN(c); i++) {
        char args[4096];
        snprintf(args, sizeof args, "mincap -q -c '%s' -t '%s' --json - --granularity '%s'",
                 cfg_default(), trace_gpu(), c[i][0]);
        bi_expect(args, 1, c[i][1]);
    }
}

/* A base: that does not exist or is a folder is refused at its value, as a trace that matches
 * no file is (until 2026-11-27 "amsim: nope.yaml: cannot open: ..." and "amsim: .: read error:
 * Is a directory", with no position in the sweep); by check too. */
static void sweep_base_unreadable(void)
{
    static const char *const c[][2] = {
        {"base: nope.yaml\n", "@:1:7: base: cannot open 'nope.yaml': No such file or directory"},
        {"base: .\n", "@:1:7: base: '.' is a folder, not a config"},
    };
    for (size_t i = 0; i < AM_ARRAY_LEN(c); i++) {
        char sw[1200], args[1400];
        snprintf(sw, sizeof sw, "%straces: [%s]\n", c[i][0], trace_gpu());
        const char *p = bi_write("basebad.yaml", sw, strlen(sw));
        char *want = bi_expand(c[i][1], p);
        snprintf(args, sizeof args, "batch '%s' --list", p);
        bi_expect(args, 1, want);
        snprintf(args, sizeof args, "check '%s'", p);
        bi_expect(args, 1, want);
        free(want);
    }
}

/* A base: naming a sweep (another, the sweep itself, one of a cycle) is refused at its value,
 * and run, mincap, compare and check -c say a sweep given as -c is a sweep, a file or standard
 * input: until 2026-11-28 both got the config loader's "SW.yaml:1:1: unknown key 'base'". */
static void bi_expect_sh(const char *args, int want, const char *expect);
static void sweep_base_is_sweep(void)
{
    char sw[1200], args[1400], want[1400];
    const char *cfg = bi_write("sw-base.yaml", BI_CFG_TEXT, strlen(BI_CFG_TEXT));
    snprintf(sw, sizeof sw, "base: %s\ntraces: [%s]\n", cfg, trace_gpu());
    char *sw2 = strdup(bi_write("basesw2.yaml", sw, strlen(sw)));
    static const char *const c[][2] = {
        {"basesw3.yaml", "basesw2.yaml"},  /* another sweep */
        {"baseself.yaml", "baseself.yaml"}, /* itself */
        {"basecyc1.yaml", "basecyc2.yaml"}, /* a cycle: 1 -> 2 -> 1 */
        {"basecyc2.yaml", "basecyc1.yaml"},
    };
    char *path[AM_ARRAY_LEN(c)];
    for (size_t i = 0; i < AM_ARRAY_LEN(c); i++) {
        snprintf(sw, sizeof sw, "base: %s\ntraces: [%s]\n", c[i][1], trace_gpu());
        path[i] = strdup(bi_write(c[i][0], sw, strlen(sw)));
    }
    for (size_t i = 0; i < AM_ARRAY_LEN(c); i++) {
        snprintf(want, sizeof want, "%s:1:7: base: '%s' is a sweep, not a config", path[i],
                 c[i][1]);
        snprintf(args, sizeof args, "batch '%s' --list", path[i]);
        bi_expect(args, 1, want);
        snprintf(args, sizeof args, "check '%s'", path[i]);
        bi_expect(args, 1, want);
        free(path[i]);
    }
    snprintf(want, sizeof want, "amsim: %s is a sweep, not a config: run it with amsim batch %s",
             sw2, sw2);
    snprintf(args, sizeof args, "run -c '%s' -t '%s'", sw2, trace_gpu());
    bi_expect(args, 1, want);
    snprintf(args, sizeof args, "mincap -c '%s' -t '%s'", sw2, trace_gpu());
    bi_expect(args, 1, want);
    snprintf(args, sizeof args, "check -c '%s' '%s'", sw2, trace_gpu());
    bi_expect(args, 1, want);
    /* on standard input and through a pipe too: the loader tells it from the text it read
     * (until 2026-11-28 only a regular file was sniffed, and -c - said "-:1:1: unknown key
     * 'base'") */
    static const char *const stdin_cmds[][2] = {{"run -c - -t", " -q"}, {"mincap -c - -t", ""},
                                                {"compare -c - -t", " --policies bfc,caching"},
                                                {"check -c -", ""}};
    for (size_t i = 0; i < AM_ARRAY_LEN(stdin_cmds); i++) {
        snprintf(args, sizeof args, "%s '%s'%s < '%s'", stdin_cmds[i][0], trace_gpu(),
                 stdin_cmds[i][1], sw2);
        bi_expect_sh(args, 1, "amsim: - is a sweep, not a config: run it with amsim batch -");
    }
    snprintf(args, sizeof args, "run -c /dev/stdin -t '%s' -q --set engine.seed=1 < '%s'",
             trace_gpu(), sw2);
    bi_expect_sh(args, 1, "amsim: /dev/stdin is a sweep, not a config: run it with amsim batch "
                          "/dev/stdin");
    free(sw2);
}

/* An expectations: that names a file, not a folder, is refused at its value, as base: '.' is
 * (until 2026-11-27 check and batch --list passed it, and every run then failed with "Not a
 * directory"); by check too. The sweep file itself is such a file. */
static void sweep_expect_not_folder(void)
{
    char sw[2600], args[2600];
    snprintf(sw, sizeof sw, "kind: regress\nbase: %s\ntraces: [%s]\nexpectations: "
             "expfile.yaml\n", cfg_default(), trace_gpu());
    const char *p = bi_write("expfile.yaml", sw, strlen(sw));
    char *want = bi_expand("@:4:15: expectations: 'expfile.yaml' is a file, not a folder", p);
    snprintf(args, sizeof args, "batch '%s' --list", p);
    bi_expect(args, 1, want);
    snprintf(args, sizeof args, "check '%s'", p);
    bi_expect(args, 1, want);
    free(want);
}

/* A tolerance's number takes no sign, as an expectation's values and a config's numbers take
 * none (until 2026-11-27 'abs:+5' and 'abs:-0' passed while a value '+5' was refused). */
static void expect_tolerance_sign(void)
{
    static const char *const tol[] = {"abs:+5", "rel:+0.5", "abs:-0"};
    for (size_t i = 0; i < AM_ARRAY_LEN(tol); i++) {
        char text[256], args[3200], pat[256];
        snprintf(text, sizeof text, "amsim-expect v1\nplacements.rows=57\n"
                 "placements.rows.tolerance=%s\n", tol[i]);
        const char *p = bi_write("tolsign.expect", text, strlen(text));
        snprintf(pat, sizeof pat, "amsim: @:3:27: tolerance '%s': exact, abs:X or rel:X (X a "
                 "number, 0 or more, no sign)\n", tol[i]);
        char *want = bi_expand(pat, p);
        snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --expect '%s'", cfg_default(),
                 trace_gpu(), p);
        bi_expect(args, 1, want);
        free(want);
    }
}

/* A FIFO or a device named as a sweep's trace is refused at its traces: item, by check, batch
 * --list and batch alike, and a glob skips it as a directory's listing does (until 2026-11-27
 * the trace digest read it first: all three hung on a FIFO with no writer or on /dev/zero).
 * Run under timeout(1) so that a regression fails instead of stopping the suite. */
static void sweep_trace_stream(void)
{
    const char *bin = getenv("AMSIM") ? getenv("AMSIM") : "../../build/amsim";
    char dir[1024], fifo[1100], cfg[1024], text[4096], errf[1100], cmd[8192], want[4096];
    snprintf(dir, sizeof dir, "%s/swfifo", tu_tmpdir());
    mkdir(dir, 0777);
    snprintf(fifo, sizeof fifo, "%s/pipe.trace", dir);
    snprintf(errf, sizeof errf, "%s/swfifo.err", tu_tmpdir());
    unlink(fifo);
    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
    snprintf(cfg, sizeof cfg, "%s", bi_write("swfifo-base.yaml", BI_CFG_TEXT,
                                             strlen(BI_CFG_TEXT)));
    static const struct {
        const char *item, *why; /* @: the FIFO's folder */
    } c[] = {
        {"@/pipe.trace", "traces: '@/pipe.trace' is not a regular file (a pipe or a device); "
                           "a trace is read from a file, not a stream: save it to a file first"},
        {"/dev/zero", "traces: '/dev/zero' is not a regular file (a pipe or a device); a trace "
                      "is read from a file, not a stream: save it to a file first"},
        {"@/*.trace", "traces: no regular file matches '@/*.trace' (a pipe, a device or a "
                        "directory is no trace)"},
    };
    static const char *const verbs[] = {"check", "batch --list", "batch -o out.d"};
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        char item[1200], why[2400];
        char *t = bi_expand(c[i].item, dir), *w = bi_expand(c[i].why, dir);
        snprintf(item, sizeof item, "%s", t);
        snprintf(why, sizeof why, "%s", w);
        free(t);
        free(w);
        snprintf(text, sizeof text, "base: %s\ntraces: ['%s']\n", cfg, item);
        const char *sw = bi_write("swfifo.yaml", text, strlen(text));
        snprintf(want, sizeof want, "amsim: %s:2:10: %s\n", sw, why);
        for (size_t v = 0; v < sizeof verbs / sizeof *verbs; v++) {
            snprintf(cmd, sizeof cmd, "cd '%s' && timeout 20 %s %s '%s' 2>'%s' </dev/null "
                     ">/dev/null", tu_tmpdir(), bin, verbs[v], sw, errf);
            int st = system(cmd);
            char *err = tu_slurp(errf, NULL);
            CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 1);
            CU_ASSERT(err && strcmp(err, want) == 0);
            if (!WIFEXITED(st) || WEXITSTATUS(st) != 1 || !err || strcmp(err, want))
                fprintf(stderr, "\n  %s\n  status %d\n  stderr: %s  expected: %s\n", cmd,
                        WIFEXITED(st) ? WEXITSTATUS(st) : -1, err ? err : "(none)", want);
            free(err);
        }
    }
    unlink(fifo);
}

/* A trace whose file name has a control byte (a tab, a newline, any other C0 control or DEL:
 * what a matrix.tsv line cannot hold) is refused at its traces: item, by check, batch --list
 * and batch alike, named alone or through a directory (until 2026-11-27 the runs ran, then
 * matrix.tsv could not be read back: "bad line for run 1", status 1, no results.csv; until
 * 2026-11-28 the same for an ESC, a carriage return or a DEL: "control byte 0x1b in the line"). */
static void sweep_trace_name_tab(void)
{
    char dir[1024], tr[1100], cfg[1024], text[4096], want[4096], args[8192];
    snprintf(dir, sizeof dir, "%s/swtab", tu_tmpdir());
    mkdir(dir, 0777);
    snprintf(cfg, sizeof cfg, "%s", bi_write("swtab-base.yaml", BI_CFG_TEXT,
                                             strlen(BI_CFG_TEXT)));
    static const struct {
        const char *file, *item, *shown, *named; /* item, shown: @ is the folder */
        int byte;
    } c[] = {
        {"x\ty.trace", "\"@/x\\ty.trace\"", "@/x\\x09y.trace", "@/x\\x09y.trace", 0x09},
        {"n\nl.trace", "@", "@", "@/n\\x0al.trace", 0x0a},
        {"e\x1b.trace", "@", "@", "@/e\\x1b.trace", 0x1b},
        {"c\r.trace", "@/*.trace", "@/*.trace", "@/c\\x0d.trace", 0x0d},
        {"d\x7f.trace", "@", "@", "@/d\\x7f.trace", 0x7f}, /* YAML holds no DEL */
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        snprintf(tr, sizeof tr, "%s/%s", dir, c[i].file);
        FILE *f = fopen(tr, "w");
        CU_ASSERT_FATAL(f && fputs("amsim-trace v1\nalloc 1 1MiB\nfree 1\n", f) >= 0 &&
                        fclose(f) == 0);
        char *item = bi_expand(c[i].item, dir), *shown = bi_expand(c[i].shown, dir),
             *named = bi_expand(c[i].named, dir);
        snprintf(text, sizeof text, "base: %s\ntraces: [%s]\n", cfg, item);
        const char *sw = bi_write("swtab.yaml", text, strlen(text));
        snprintf(want, sizeof want, "amsim: %s:2:10: traces: '%s' names %s, whose name has a "
                 "control byte (0x%02x): rename the file (a study's matrix.tsv is "
                 "tab-separated lines of plain text)\n", sw, shown, named, c[i].byte);
        snprintf(args, sizeof args, "check '%s'", sw);
        bi_expect(args, 1, want);
        snprintf(args, sizeof args, "batch '%s' --list", sw);
        bi_expect(args, 1, want);
        snprintf(args, sizeof args, "batch '%s' -o '%s/swtab-out' -q", sw, tu_tmpdir());
        bi_expect(args, 1, want);
        snprintf(args, sizeof args, "%s/swtab-out", tu_tmpdir());
        CU_ASSERT_NOT_EQUAL(access(args, F_OK), 0); /* refused before -o was made */
        free(item);
        free(shown);
        free(named);
        unlink(tr);
    }
}

/* An unknown generate.kind is refused at its value's line:column, with a "did you mean" when a
 * kind of amsim gen is close, by check, batch --list and batch alike (until 2026-11-27 check
 * said "sweep ok" and every run failed with gen's whole usage). */
static void sweep_gen_kind_unknown(void)
{
    static const struct {
        const char *kind, *hint;
    } c[] = {{"bogus", ""}, {"serv", "did you mean 'serve'? "}};
    char cfg[1024], text[2048], want[4096], args[4096];
    snprintf(cfg, sizeof cfg, "%s", bi_write("genk-base.yaml", BI_CFG_TEXT, strlen(BI_CFG_TEXT)));
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        snprintf(text, sizeof text, "base: %s\ngenerate: {kind: %s, args: []}\nseeds: [1]\n", cfg,
                 c[i].kind);
        const char *sw = bi_write("genk.yaml", text, strlen(text));
        snprintf(want, sizeof want, "amsim: %s:2:18: generate.kind: unknown generator '%s' (%samsim "
                 "gen KIND: train, serve, kernel)\n", sw, c[i].kind, c[i].hint);
        snprintf(args, sizeof args, "check '%s'", sw);
        bi_expect(args, 1, want);
        snprintf(args, sizeof args, "batch '%s' --list", sw);
        bi_expect(args, 1, want);
        snprintf(args, sizeof args, "batch '%s' -o '%s/genk-out' -q", sw, tu_tmpdir());
        bi_expect(args, 1, want);
    }
}

/* --help or -h in generate.args is refused at the item's line:column, by check and batch alike:
 * amsim gen would print its usage and exit 0 without writing the trace (until 2026-11-27 check
 * passed the sweep and every run failed with "gen.trace: No such file or directory"). */
static void sweep_gen_args_help(void)
{
    static const struct {
        const char *args, *item;
        int col;
    } c[] = {{"[--help]", "--help", 32},
             {"[--requests, 3, -h]", "-h", 47},
             {"[--rate=2, -ho]", "-ho", 42}};
    char cfg[1024], text[2048], want[4096], args[4096];
    snprintf(cfg, sizeof cfg, "%s", bi_write("genh-base.yaml", BI_CFG_TEXT, strlen(BI_CFG_TEXT)));
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        snprintf(text, sizeof text, "base: %s\ngenerate: {kind: serve, args: %s}\nseeds: [1]\n",
                 cfg, c[i].args);
        const char *sw = bi_write("genh.yaml", text, strlen(text));
        snprintf(want, sizeof want, "amsim: %s:2:%d: generate.args: '%s' would print amsim gen "
                 "serve's usage instead of writing the trace (every run would fail); remove it\n",
                 sw, c[i].col, c[i].item);
        snprintf(args, sizeof args, "check '%s'", sw);
        bi_expect(args, 1, want);
        snprintf(args, sizeof args, "batch '%s' -o '%s/genh-out' -q", sw, tu_tmpdir());
        bi_expect(args, 1, want);
    }
}

/* A generator's clock at 2^63 ps or more is refused, nothing written: serve's at= (until
 * 2026-11-27 written past 2^63 and wrapped past 2^64, status 0) and the sum of train's compute
 * durations (the run stopped at "simulated time reaches 2^64 - 2 ps"). */
static void gen_clock_past_2_63(void)
{
    static const struct {
        const char *args, *want;
    } c[] = {{"serve --requests 1 --layers 1 --hidden 64 --vocab 100 --tflops 3e-13 --mfu 1 "
              "--max-prompt 1 --output-mu 3 --output-sigma 0",
              "amsim gen serve: the generator's clock (an iteration's at=: the arrivals and the "
              "compute durations) comes to 2^63 ps (about 107 days) or more: raise --tflops"},
             {"train --layers 1 --hidden 8 --heads 1 --seq 8 --vocab 8 --micro-batch 1 --tflops "
              "1e-14 --mfu 1 --jitter 0 --steps 5",
              "amsim gen train: the compute durations add up to 2^63 ps (about 107 days) or "
              "more, past what a run can simulate: raise --tflops"}};
    char out[700], args[4096];
    snprintf(out, sizeof out, "%s/clock-gen.trace", tu_tmpdir());
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        snprintf(args, sizeof args, "gen %s -o '%s'", c[i].args, out);
        bi_expect(args, 1, c[i].want);
        CU_ASSERT_NOT_EQUAL(access(out, F_OK), 0); /* nothing written */
    }
}

/* check SWEEP reads each trace of its runs as check -c BASE TRACE does: one the runs cannot
 * read is refused with its own FILE:LINE:COL, noted with the traces: item; an error run
 * --lenient would skip does not suggest --lenient, which a sweep has not (until 2026-11-27
 * the traces were only digested: "sweep ok", and every run failed). */
static void sweep_check_reads_traces(void)
{
    static const struct {
        const char *trace, *want;
    } c[] = {{H "alloc 1 1KiB level=vmem\n", "@:2:20: unknown level 'vmem' (configured: hbm, host)"},
             {H "alloc 1 1KiB\nfree 2\n", "@:3:1: free of unknown id 2 (named by the traces: "
                                          "item at "}};
    char cfg[1024], text[4096], args[4200];
    snprintf(cfg, sizeof cfg, "%s", bi_write("swtr-base.yaml", BI_CFG_TEXT, strlen(BI_CFG_TEXT)));
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        char tp[1024];
        snprintf(tp, sizeof tp, "%s", bi_write("swtr.trace", c[i].trace, strlen(c[i].trace)));
        snprintf(text, sizeof text, "base: %s\ntraces: [%s]\n", cfg, tp);
        const char *sw = bi_write("swtr.yaml", text, strlen(text));
        char *want = bi_expand(c[i].want, tp);
        snprintf(args, sizeof args, "check '%s'", sw);
        bi_expect(args, 1, want);
        free(want);
    }
}

/* ---- --lenient --------------------------------------------------------------------------- */

static void lenient_unknown_free(void)
{
    const char *t = bi_write("lenient.trace", H "alloc 1 1KiB\nfree 2\nfree 1\n",
                             strlen(H "alloc 1 1KiB\nfree 2\nfree 1\n"));
    char json[600], args[2048];
    snprintf(json, sizeof json, "%s/lenient.json", tu_tmpdir());
    snprintf(args, sizeof args, "run -q --lenient -c '%s' -t '%s' --json '%s'", cfg_default(), t,
             json);
    char *err = NULL;
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 0);
    free(err);
    char *j = tu_slurp(json, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    CU_ASSERT_PTR_NOT_NULL(strstr(j, "\"warnings\": 1,"));
    free(j);
    /* without --lenient the same trace is an error */
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s'", cfg_default(), t);
    char want[1024];
    snprintf(want, sizeof want, "amsim: %s:3:1: free of unknown id 2", t);
    bi_expect(args, 1, want);
}

/* amsim check counts a lifetime CSV's skipped rows (empty lifetime or size 0) in its line, in
 * the singular for one, and its events likewise (the report's header line says the same). */
static void check_counts_skipped_rows(void)
{
    static const struct {
        const char *name, *text, *counts;
    } c[] = {
        {"skip1.csv", "id,lower,upper,size\n1,0,10,256\n2,5,5,512\n3,2,8,1024\n",
         "lifetime_csv, 4 events, 1 row skipped"},
        {"skip2.csv", "id,lower,upper,size\n1,0,10,256\n2,5,5,512\n3,2,8,0\n",
         "lifetime_csv, 2 events, 2 rows skipped"},
        {"one.trace", H "compute 5us\n", "native, 1 event, 0 rows skipped"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        const char *p = bi_write(c[i].name, c[i].text, strlen(c[i].text));
        char args[2048], want[1200];
        char *out = NULL;
        snprintf(args, sizeof args, "check '%s'", p);
        CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
        snprintf(want, sizeof want, "%s: trace ok (%s)\n", p, c[i].counts);
        CU_ASSERT(out && strcmp(out, want) == 0);
        free(out);
    }
}

/* amsim check keeps the rules on ids and events that run enforces (convert's cv_rules), with
 * run's messages; --lenient counts and skips what run --lenient does, and still refuses the
 * rest. Until 2026-11-27 check passed all of these. */
static void check_applies_run_rules(void)
{
    static const struct {
        const char *name, *text, *msg;
        int lenient_ok;
    } c[] = {
        {"ckz.trace", H "alloc 1 0\n",
         ":2:1: allocation of 0 bytes for id 1 (use --lenient to count and skip such events)\n", 1},
        {"ckd.trace", H "alloc 1 1KiB\nalloc 1 1KiB\n",
         ":3:1: duplicate id 1: still allocated (line 2)\n", 0},
        {"cks.trace", H "compute 1us stream=65536\n",
         ":2:1: stream 65536 out of range for a queued operation (streams 0 to 65535)\n", 0},
        {"ckf.trace", H "alloc 1 1KiB\nfree_completed 1\n",
         ":3:1: free_completed without a free_requested of id 1 (use --lenient to count and "
         "skip such events)\n", 1},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        const char *p = bi_write(c[i].name, c[i].text, strlen(c[i].text));
        char args[2048], want[1200];
        char *out = NULL, *err = NULL;
        snprintf(args, sizeof args, "check '%s'", p);
        CU_ASSERT_EQUAL(tu_amsim(args, &out, &err), 1);
        snprintf(want, sizeof want, "amsim: %s%s", p, c[i].msg);
        CU_ASSERT(err && strcmp(err, want) == 0);
        free(out);
        free(err);
        snprintf(args, sizeof args, "check --lenient '%s'", p);
        CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), c[i].lenient_ok ? 0 : 1);
        CU_ASSERT(!c[i].lenient_ok ||
                  (out && strstr(out, "; 1 trace problem counted and skipped (--lenient)\n")));
        free(out);
    }
}

/* amsim check -c CONFIG reads a trace as amsim run -c CONFIG reads it: with the config's
 * trace.time_unit and trace.lifetimes. Until 2026-11-25 check read 1 ns ticks and half-open
 * lifetimes whatever the config said, so it passed a CSV whose times the run refused (20000000
 * ticks of 1 s pass 2^64 ps) and counted another's events and skipped rows differently. */
static void check_reads_as_run(void)
{
    static const char ctext[] = BI_CFG_TEXT "trace: {time_unit: 1s, lifetimes: inclusive}\n";
    static const char btext[] = "id,lower,upper,size\n1,0,20000000,256\n";
    static const char itext[] = "id,lower,upper,size\n1,0,10,256\n2,5,5,512\n";
    const char *cfg = bi_write("tu1s.yaml", ctext, strlen(ctext));
    const char *big = bi_write("tu_big.csv", btext, strlen(btext));
    const char *incl = bi_write("tu_incl.csv", itext, strlen(itext));
    char args[2048], want[1200];
    char *out = NULL, *err = NULL;
    /* without -c: 1 ns ticks, half-open */
    snprintf(args, sizeof args, "check '%s' '%s'", big, incl);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    snprintf(want, sizeof want, "%s: trace ok (lifetime_csv, 2 events, 0 rows skipped)\n"
             "%s: trace ok (lifetime_csv, 2 events, 1 row skipped)\n", big, incl);
    CU_ASSERT(out && strcmp(out, want) == 0);
    free(out);
    /* with -c: the config's 1 s ticks and inclusive lifetimes, the run's error and counts */
    snprintf(want, sizeof want, "amsim: %s:2:5: upper 20000000 + 1 (inclusive lifetimes) is out "
             "of range: tick 20000001 at 1000000000000 ps per tick exceeds 2^64 ps\n", big);
    snprintf(args, sizeof args, "check -c '%s' '%s'", cfg, big);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 1);
    CU_ASSERT(err && strcmp(err, want) == 0);
    free(err);
    err = NULL;
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s'", cfg, big);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 1);
    CU_ASSERT(err && strcmp(err, want) == 0);
    free(err);
    out = NULL;
    snprintf(args, sizeof args, "check -c '%s' '%s'", cfg, incl);
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    snprintf(want, sizeof want, "%s: trace ok (lifetime_csv, 4 events, 0 rows skipped)\n", incl);
    CU_ASSERT(out && strcmp(out, want) == 0);
    free(out);
}

/* amsim check tells a config from a trace by content: a trace format's signature first, then a
 * YAML map at the top, whatever its layout (names end in .conf here so that no file is taken for
 * a config by its name); a file named .yaml, .yml or .json that is no trace is a config. Until
 * 2026-11-27 a config had to start (after blank and comment lines, read 255 bytes at a time)
 * with "version:": every config below was an "unrecognised trace format", and so was a
 * config's real error when another key came first. */
static void check_tells_configs_from_traces(void)
{
#define MEM "memories: {hbm: {capacity: 1GiB}}\n"
    static char longc[512];
    memset(longc, 0, sizeof longc);
    strcat(longc, "# ");
    memset(longc + 2, 'a', 300);
    strcat(longc, "\nversion: 1\n" MEM);
    /* over 1 MiB of leading comments, blank lines and a "---", which the sniffer does not count
     * (until 2026-11-27 it stopped at 1 MiB and answered "a trace") */
    static char hugec[(5u << 18) + 256], hugedoc[(6u << 18) + 256];
    const char *line = "# a comment line of seventy characters, repeated to pass 1 MiB ......\n";
    size_t ll = strlen(line), n = 0, m = 0;
    m += (size_t)sprintf(hugedoc, "\xef\xbb\xbf---\n");
    for (; n + ll < (5u << 18); n += ll, m += ll + 2) {
        memcpy(hugec + n, line, ll);
        memcpy(hugedoc + m, "\n ", 2);
        memcpy(hugedoc + m + 2, line, ll);
    }
    strcpy(hugec + n, "version: 1\n" MEM);
    strcpy(hugedoc + m, "version: 1\n" MEM);
    /* a first line over the 64 KiB line limit, a comment or blanks: a config by its map, a
     * trace's "line too long" when a trace header follows (until 2026-11-27 the trace sniff
     * took the overlong line for a trace's, and a config was refused with its error) */
    static char overc[70100], overb[70100], overt[70100];
    memset(overc, '#', 70000);
    strcpy(overc + 70000, "\nversion: 1\n" MEM);
    memset(overb, ' ', 70000);
    strcpy(overb + 70000, "\nversion: 1\n" MEM);
    memset(overt, '#', 70000);
    strcpy(overt + 70000, "\n" H "compute 5us\n");
    static const struct {
        const char *name, *text;
        size_t len;            /* bytes of text, 0 = strlen */
        const char *out, *err; /* out: stdout starts "@: out"; err: in stderr */
    } c[] = {
        {"doc.conf", "---\nversion: 1\n" MEM, 0, "config ok (1 memory level, 0 links)", NULL},
        {"order.conf", "default_memory: hbm\nversion: 1\n" MEM, 0, "config ok (", NULL},
        {"bom.conf", "\xef\xbb\xbfversion: 1\r\ndefault_memory: hbm\r\n" MEM, 0, "config ok (",
         NULL},
        {"quoted.conf", "\"version\": 1\n" MEM, 0, "config ok (", NULL},
        {"space.conf", "version : 1\n" MEM, 0, "config ok (", NULL},
        {"flow.conf", "{version: 1, memories: {hbm: {capacity: 1GiB}}}\n", 0, "config ok (", NULL},
        {"json.conf", "{\"version\": 1, \"memories\": {\"hbm\": {\"capacity\": \"1GiB\"}}}\n",
         0, "config ok (", NULL},
        {"longc.conf", longc, 0, "config ok (", NULL},
        {"hugec.conf", hugec, 0, "config ok (", NULL},
        {"hugedoc.conf", hugedoc, 0, "config ok (", NULL},
        {"overc.conf", overc, 0, "config ok (", NULL},
        {"overb.conf", overb, 0, "config ok (", NULL},
        {"overt.conf", overt, 0, NULL, "amsim: @:1:65537: line too long (limit 65536 bytes)"},
        {"err.conf", "default_memory: hbm\nversion: 1\nmemories:\n  hbm:\n    capacity: 8XB\n", 0,
         NULL, "amsim: @:5:5: memories.hbm.capacity: bad size '8XB': unknown unit"},
        /* broken before its first key: still a config, by its first line or by its name */
        {"tab.conf", "\tversion: 1\n", 0, NULL,
         "amsim: @:1:1: found character that cannot start"},
        {"latin1.conf", "# caf\xe9\nversion: 1\n" MEM, 0, NULL,
         "amsim: @:1:7: invalid trailing UTF-8 octet"},
        /* UTF-16 with a byte-order mark, as the loader decodes it: "version: 1\nx: " and a lone
         * low surrogate (LE), the same under a comment (BE); until 2026-11-27 the first line test
         * read UTF-16 as bytes and called them an "unrecognised trace format" */
        {"u16le.conf",
         "\xff\xfe\x76\x00\x65\x00\x72\x00\x73\x00\x69\x00\x6f\x00\x6e\x00\x3a\x00\x20\x00"
         "\x31\x00\x0a\x00\x78\x00\x3a\x00\x20\x00\x00\xdc\x0a\x00",
         34, NULL,
         "amsim: @:2:4: unexpected low surrogate area (UTF-16 unit 0xDC00 at byte offset 30)"},
        {"u16be.conf",
         "\xfe\xff\x00\x23\x00\x20\x00\x63\x00\x0a\x00\x76\x00\x65\x00\x72\x00\x73\x00\x69"
         "\x00\x6f\x00\x6e\x00\x3a\x00\x20\x00\x31\x00\x0a\x00\x78\x00\x3a\x00\x20\xdc\x00"
         "\x00\x0a",
         42, NULL,
         "amsim: @:3:4: unexpected low surrogate area (UTF-16 unit 0xDC00 at byte offset 38)"},
        {"list.yml", "- version\n", 0, NULL, "amsim: @:1:1: a config must be a map of keys"},
        {"empty.json", "", 0, NULL, "amsim: @:1:1: missing required key 'version'"},
        /* traces stay traces, whatever their name */
        {"native.yaml", "# a comment: with a colon\n" H "compute 5us\n", 0,
         "trace ok (native, 1 event, 0 rows skipped)", NULL},
        {"csv.json", "id,lower,upper,size\n1,0,5,10\n", 0,
         "trace ok (lifetime_csv, 2 events, 0 rows skipped)", NULL},
        {"nul.yaml", "\0version: 1\n", 12, NULL, "amsim: @:1:1: NUL byte"},
        {"plain.conf", "alloc 1 4\nfree 1\n", 0, NULL, "amsim: @: unrecognised trace format"},
        {"empty.conf", "", 0, NULL, "amsim: @: empty file ("},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        const char *p = bi_write(c[i].name, c[i].text, c[i].len ? c[i].len : strlen(c[i].text));
        char args[2048];
        char *out = NULL, *err = NULL;
        snprintf(args, sizeof args, "check '%s'", p);
        int st = tu_amsim(args, &out, &err);
        char *want = bi_expand(c[i].out ? "@: " : c[i].err, p);
        size_t wl = strlen(want);
        int ok = c[i].out ? st == 0 && out && strncmp(out, want, wl) == 0 &&
                                strncmp(out + wl, c[i].out, strlen(c[i].out)) == 0
                          : st == 1 && err && strstr(err, want) != NULL;
        CU_ASSERT(ok);
        if (!ok)
            fprintf(stderr, "\n  amsim %s\n  status %d\n  stdout: %s  stderr: %s  expected: %s%s\n",
                    args, st, out ? out : "", err ? err : "", want, c[i].out ? c[i].out : "");
        free(want);
        free(out);
        free(err);
    }
#undef MEM
}

/* ---- nothing half-written ------------------------------------------------------------------ */

/* Entries of dir other than . and .. whose name contains sub (NULL: any). */
static int dir_count(const char *dir, const char *sub)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (!sub || strstr(e->d_name, sub))
            n++;
    }
    closedir(d);
    return n;
}

static const char *fresh_dir(const char *name)
{
    static char p[4][600];
    static int k;
    char *s = p[k++ % 4];
    snprintf(s, sizeof p[0], "%s/%s", tu_tmpdir(), name);
    mkdir(s, 0700);
    return s;
}

static void failing_run_leaves_nothing(const char *cfg, const char *tr, const char *want_sub)
{
    const char *out = fresh_dir(want_sub[0] == 'c' ? "out-cfg" : "out-trace");
    char args[4096];
    snprintf(args, sizeof args,
             "run -q -c '%s' -t '%s' --json '%s/s.json' --placements '%s/p.csv' "
             "--timeline '%s/t.csv' --log '%s/a.log'", cfg, tr, out, out, out, out);
    char *err = NULL;
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 1);
    CU_ASSERT(err && strstr(err, "amsim: ") != NULL);
    free(err);
    CU_ASSERT_EQUAL(dir_count(out, ".tmp."), 0);
    CU_ASSERT_EQUAL(dir_count(out, NULL), 0);
    /* an -o directory gets nothing either */
    char odir[700];
    snprintf(odir, sizeof odir, "%s/o", out);
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' -o '%s'", cfg, tr, odir);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 1);
    int n = dir_count(odir, NULL);
    CU_ASSERT_EQUAL(n, -1); /* not there: it was made for the run and removed again */
    if (n >= 0)
        fprintf(stderr, "\n  -o %s exists (%d entries) after a failed run\n", odir, n);
}

/* A command refused before it writes leaves no -o directory it made: run with two outputs on
 * one file, a bad --set or a bad option; batch --merge of a folder that is no study (OUT and
 * the parents it made). A directory that was there stays. */
/* Standard output that cannot be written (a full disk: /dev/full) is status 1 with a message,
 * in every command that writes a report there; until 2026-11-27 run, compare, mincap, stats and
 * policies exited 0 with the report lost, and convert and gen -o - gave no reason. */
static void stdout_write_failure(void)
{
    if (access("/dev/full", W_OK) != 0)
        return; /* no /dev/full on this system */
    const char *cp = bi_write("full.yaml", BI_CFG_TEXT, strlen(BI_CFG_TEXT));
    static const char trace_text[] = "amsim-trace v1\nalloc 1 1000\n",
                      csv_text[] = "policy,peak\nbfc,1\ncaching,2\n";
    const char *tr = bi_write("full.trace", trace_text, sizeof trace_text - 1);
    const char *csv = bi_write("full.csv", csv_text, sizeof csv_text - 1);
    const char *bin = getenv("AMSIM") ? getenv("AMSIM") : "../../build/amsim";
    char cmds[10][1024];
    snprintf(cmds[0], sizeof cmds[0], "run -c '%s' -t '%s'", cp, tr);
    snprintf(cmds[1], sizeof cmds[1], "compare -c '%s' -t '%s' --policies bfc,caching", cp, tr);
    snprintf(cmds[2], sizeof cmds[2], "mincap -c '%s' -t '%s'", cp, tr);
    snprintf(cmds[3], sizeof cmds[3], "stats '%s' --metric peak", csv);
    snprintf(cmds[4], sizeof cmds[4], "policies");
    snprintf(cmds[5], sizeof cmds[5], "--version");
    snprintf(cmds[6], sizeof cmds[6], "convert '%s' -o -", tr);
    snprintf(cmds[7], sizeof cmds[7], "gen train -o -");
    /* said whatever the command's own status (until 2026-11-27 not after a failed row's 1),
     * and status 1 over a status 3 (until 2026-11-27 3 was kept, where a --json FILE that
     * cannot be written gave 1) */
    snprintf(cmds[8], sizeof cmds[8], "compare -c '%s/configs/default.yaml' -t '%s' --policies "
             "bfc,caching --set memories.hbm.allocator.memory_limit=100B", tu_top(), tr);
    snprintf(cmds[9], sizeof cmds[9], "run -c '%s/configs/default.yaml' -t '%s' --fail-on-oom "
             "--set memories.hbm.allocator.memory_limit=512B", tu_top(), tr);
    for (int i = 0; i < 10; i++) {
        char cmd[11264], errp[512];
        snprintf(errp, sizeof errp, "%s/.fullerr", tu_tmpdir());
        snprintf(cmd, sizeof cmd, "%s %s >/dev/full 2>'%s' </dev/null", bin, cmds[i], errp);
        int st = system(cmd);
        char *err = tu_slurp(errp, NULL);
        int ok = st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 1 && err &&
                 strstr(err, "amsim: standard output: write failed: No space left on device");
        CU_ASSERT(ok);
        if (!ok)
            fprintf(stderr, "\n  amsim %s >/dev/full: status %d, stderr %s", cmds[i],
                    WIFEXITED(st) ? WEXITSTATUS(st) : -1, err ? err : "(none)");
        free(err);
    }
}

static void refused_outdir_not_created(void)
{
    const char *dir = fresh_dir("refused");
    char args[4096];
    const char *val[26] = {0}; /* {C} config, {T} trace, {D} dir */
    val['C' - 'A'] = cfg_default(), val['T' - 'A'] = trace_gpu(), val['D' - 'A'] = dir;
    static const char *const runs[] = {
        "run -q -c '{C}' -t '{T}' -o '{D}/o' --json '{D}/x' --placements '{D}/x'",
        "run -q -c '{C}' -t '{T}' -o '{D}/o' --set 'nosuchkey=1'",
        "run -q -c '{C}' -t '{T}' -o '{D}/o' --bogus"};
    for (size_t i = 0; i < AM_ARRAY_LEN(runs); i++) {
        bi_subst(args, sizeof args, runs[i], val);
        CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 1);
        CU_ASSERT_EQUAL(dir_count(dir, NULL), 0);
    }
    snprintf(args, sizeof args, "batch -q --merge '%s/nostudy' -o '%s/a/b/out'", dir, dir);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 1);
    CU_ASSERT_EQUAL(dir_count(dir, NULL), 0);
    char keep[700];
    snprintf(keep, sizeof keep, "%s/keep", dir);
    CU_ASSERT_FATAL(mkdir(keep, 0700) == 0);
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s/none.trace' -o '%s'", cfg_default(), dir,
             keep);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 1);
    CU_ASSERT_EQUAL(dir_count(keep, NULL), 0);
    rmdir(keep);
}

static void no_partial_outputs(void)
{
    /* fails in the middle of the run: outputs were being written */
    char *t = NULL;
    size_t len;
    t = gen_repeat(H, "alloc 1 1KiB\nfree 1\n", 2000, "free 77\n", "", 0, "", &len);
    const char *tp = bi_write("midfail.trace", t, len);
    free(t);
    failing_run_leaves_nothing(cfg_default(), tp, "trace");
    /* fails before the run: bad config */
    const char *cp = bi_write("badcfg.yaml", "version: 7\n", strlen("version: 7\n"));
    failing_run_leaves_nothing(cp, trace_gpu(), "config");
}

/* ---- --check -------------------------------------------------------------------------------- */

static void check_shipped_traces(void)
{
    char args[4096];
    snprintf(args, sizeof args, "run -q --check -c '%s' -t '%s'", cfg_default(), trace_gpu());
    char *err = NULL;
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 0);
    free(err);
    snprintf(args, sizeof args, "run -q --check -c '%s/configs/devices/tpu-v5e.yaml' "
             "-t '%s/traces/tpu_step.trace'", tu_top(), tu_top());
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
}

/* A policy whose check() reports a broken invariant from its Nth call on: best_fit with a
 * sabotaged checker. --check must stop at the event after which the check first fails and name
 * that event's line; without --check the run goes on. */
static struct alloc_ops bi_broken_ops;
static int bi_check_calls, bi_check_fail_at;

static int bi_broken_check(void *st, am_error *err)
{
    if (++bi_check_calls >= bi_check_fail_at) {
        am_fail(err, AM_EINTERNAL, "sabotaged: free + used != reserved");
        return 1;
    }
    return alloc_find("best_fit")->check(st, err);
}

static int bi_replay(int check, am_error *err, unsigned long *stopped_line)
{
    const char *yaml = "version: 1\nmemories:\n  hbm:\n    capacity: 1GiB\n"
                       "    allocator: {policy: best_fit}\n";
    am_config *cfg = NULL;
    CU_ASSERT_FATAL(cfg_load_string(&cfg, "broken.yaml", yaml, NULL, 0, err) == 0);
    bi_broken_ops = *alloc_find("best_fit");
    bi_broken_ops.check = bi_broken_check;
    cfg->levels[0].policy = &bi_broken_ops;
    sim *s = NULL;
    sim_opts o = {.check = check};
    CU_ASSERT_FATAL(sim_create(&s, cfg, &o, err) == 0);
    static const struct { tr_kind k; uint64_t id, bytes; } evs[] = {
        {TR_ALLOC, 1, 4096}, {TR_ALLOC, 2, 8192}, {TR_FREE, 1, 0}, {TR_ALLOC, 3, 512},
        {TR_FREE, 2, 0}, {TR_FREE, 3, 0},
    };
    int rc = 0;
    *stopped_line = 0;
    for (size_t i = 0; i < AM_ARRAY_LEN(evs) && rc == 0; i++) {
        tr_event ev = {.kind = evs[i].k, .id = evs[i].id, .bytes = evs[i].bytes, .level = 0,
                       .dst_level = -1, .time = AM_TIME_NONE, .addr = TR_NO_ADDR,
                       .line = i + 2, .col = 1};
        rc = sim_event(s, &ev, "broken.trace", err);
        if (rc)
            *stopped_line = ev.line;
    }
    if (rc == 0)
        rc = sim_finish(s, err);
    sim_destroy(s);
    cfg_free(cfg);
    return rc;
}

static void check_stops_at_first_violation(void)
{
    am_error err = {0};
    unsigned long line;
    bi_check_calls = 0;
    bi_check_fail_at = 1000000;
    CU_ASSERT_EQUAL(bi_replay(1, &err, &line), 0); /* the sabotage is off: all consistent */
    int calls = bi_check_calls;
    CU_ASSERT(calls >= 6);                         /* at least once per event */

    /* checks run per level and per event; fail at the first check after the third event */
    bi_check_calls = 0;
    bi_check_fail_at = calls / 6 * 3 + 1;
    memset(&err, 0, sizeof err);
    CU_ASSERT_EQUAL(bi_replay(1, &err, &line), -1);
    CU_ASSERT_EQUAL(line, 5); /* the 4th event (line 5) is the first one checked broken */
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "broken.trace:5: invariant broken after this event"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "sabotaged"));
    CU_ASSERT_EQUAL(bi_check_calls, bi_check_fail_at); /* stopped at once, no more checks */

    /* without --check nothing looks */
    bi_check_calls = 0;
    bi_check_fail_at = 1;
    memset(&err, 0, sizeof err);
    CU_ASSERT_EQUAL(bi_replay(0, &err, &line), 0);
}

/* ---- signals --------------------------------------------------------------------------------- */

static void sigterm_removes_temporaries(void)
{
    const char *bin = getenv("AMSIM");
    if (!bin)
        bin = "../../build/amsim";
    const char *dir = fresh_dir("sig");
    char tpath[700], ppath[700], epath[700], opath[700];
    snprintf(tpath, sizeof tpath, "%s/big.trace", tu_tmpdir());
    snprintf(ppath, sizeof ppath, "%s/placements.csv", dir);
    /* an -o directory the run makes goes too (until 2026-11-27 it stayed, empty) */
    snprintf(opath, sizeof opath, "%s/out", dir);
    snprintf(epath, sizeof epath, "%s/../sig.stderr", dir);
    /* ~4M lines: 2M alloc/free pairs (a replay long enough to be caught writing) */
    FILE *f = fopen(tpath, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs(H, f);
    for (unsigned i = 0; i < 2000000; i++)
        fprintf(f, "alloc %u %uKiB\nfree %u\n", i, 1 + i % 64, i);
    CU_ASSERT_FATAL(fclose(f) == 0);

    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        int fd = open(epath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int nul = open("/dev/null", O_RDWR);
        if (fd < 0 || nul < 0)
            _exit(127);
        dup2(fd, 2);
        dup2(nul, 1);
        dup2(nul, 0);
        execl(bin, bin, "run", "-q", "-c", cfg_default(), "-t", tpath, "--placements", ppath,
              "-o", opath, (char *)NULL);
        _exit(127);
    }
    /* The signal comes once the temporary exists, not after a delay: until 2026-11-28 it came
     * at 0.3 s, which a fast machine could reach after the commit and a slow one before the
     * temporary was opened. The run is stopped while it is counted, so that it cannot commit
     * between the count and the signal. */
    int st = 0;
    pid_t done = 0;
    for (int i = 0; i < 2000 && dir_count(dir, ".tmp.") < 1; i++) {
        done = waitpid(pid, &st, WNOHANG);
        if (done != 0)
            break;
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    if (done == 0) {
        /* kill() may return before the child has stopped: WUNTRACED waits until it has */
        kill(pid, SIGSTOP);
        done = waitpid(pid, &st, WUNTRACED);
        if (done == pid && WIFSTOPPED(st))
            done = 0;
    }
    if (done == 0) {
        CU_ASSERT_EQUAL(dir_count(dir, ".tmp."), 1); /* the run is writing its temporary */
        kill(pid, SIGTERM);
        kill(pid, SIGCONT);
        CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
        CU_ASSERT_EQUAL(dir_count(dir, ".tmp."), 0);
        if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
            /* the run was stopped with its temporary open, so this is not expected; until
             * 2026-11-28 it could finish between the check and the signal: complete output */
            printf("\nnote: the SIGTERM test run finished just before the signal\n");
            CU_ASSERT_EQUAL(dir_count(dir, NULL), 2);
        } else {
            CU_ASSERT(WIFSIGNALED(st) ? WTERMSIG(st) == SIGTERM : WEXITSTATUS(st) != 0);
            char *err = tu_slurp(epath, NULL);
            CU_ASSERT(err && strstr(err, "amsim: interrupted; partial outputs removed") != NULL);
            free(err);
            CU_ASSERT_EQUAL(dir_count(dir, NULL), 0); /* no temporary, no -o directory */
        }
    } else {
        /* the run ended before its temporary was seen: nothing to interrupt, but nothing
         * half-done */
        printf("\nnote: the SIGTERM test run finished before the signal (status %d)\n", st);
        CU_ASSERT_EQUAL(dir_count(dir, ".tmp."), 0);
    }
    unlink(tpath);
}

/* On a terminal the progress line ("amsim: 1048576 events", no newline) is cleared before the
 * error that stops the run: until 2026-11-27 the message was glued to it ("amsim: 1048576
 * eventsamsim: FILE:LINE:COL: ..."). Standard error is a pseudo-terminal here. */
static void progress_cleared_before_error(void)
{
    const char *bin = getenv("AMSIM");
    if (!bin)
        bin = "../../build/amsim";
    char tpath[700];
    snprintf(tpath, sizeof tpath, "%s/progress_bad.trace", tu_tmpdir());
    FILE *f = fopen(tpath, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs(H, f);
    for (unsigned i = 0; i < 524289; i++) /* past 1048576 events: one progress line */
        fputs("alloc 1 4KiB\nfree 1\n", f);
    fputs("free 1\n", f);
    CU_ASSERT_FATAL(fclose(f) == 0);
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    if (m < 0 || grantpt(m) != 0 || unlockpt(m) != 0 || !ptsname(m)) {
        printf("\nnote: no pseudo-terminal here: progress line test skipped\n");
        if (m >= 0)
            close(m);
        unlink(tpath);
        return;
    }
    /* opened before the fork: the terminal has a slave from the start (a read of a master
     * without one fails), and once the child is gone, reads end (EIO) */
    int sfd = open(ptsname(m), O_RDWR | O_NOCTTY);
    CU_ASSERT_FATAL(sfd >= 0);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        int nul = open("/dev/null", O_RDWR);
        if (nul < 0)
            _exit(127);
        dup2(sfd, 2);
        dup2(nul, 1);
        dup2(nul, 0);
        execl(bin, bin, "run", "-c", cfg_default(), "-t", tpath, "--json", "/dev/null",
              (char *)NULL);
        _exit(127);
    }
    close(sfd);
    char buf[8192];
    size_t n = 0;
    for (;;) { /* read until the child is gone and the terminal has nothing more (EIO) */
        ssize_t r = read(m, buf + n, sizeof buf - 1 - n);
        if (r <= 0)
            break;
        n += (size_t)r;
        if (n == sizeof buf - 1)
            break;
    }
    buf[n] = 0;
    int st = 0;
    CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
    close(m);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 1);
    CU_ASSERT(strstr(buf, "amsim: 1048576 events") != NULL);
    CU_ASSERT(strstr(buf, "events\r\033[Kamsim: ") != NULL);
    CU_ASSERT(strstr(buf, "eventsamsim") == NULL);
    CU_ASSERT(strstr(buf, "free of unknown id 1") != NULL);
    unlink(tpath);
}

/* A batch folder whose lock file (.amsim-lock) is a FIFO or a directory: report, --merge from
 * it and a batch into it are refused at once, naming the file and its type, with status 1.
 * Until 2026-11-27 report and --merge opened a FIFO lock to look at it and waited for a writer
 * for good, and a batch took a FIFO as its lock. Run under timeout(1) so that a regression
 * fails instead of stopping the suite. */
static void path_batch_lock_stream(void)
{
    const char *bin = getenv("AMSIM") ? getenv("AMSIM") : "../../build/amsim";
    const char *dir = fresh_dir("lockfifo");
    char text[4096], out[1200], lock[1300], errf[1024], cmd[6000], want[1600];
    snprintf(text, sizeof text, "base: '%s'\ntraces: ['%s']\npolicies: [bfc]\n", cfg_default(),
             trace_gpu());
    const char *sw = bi_write("lockfifo.yaml", text, strlen(text));
    snprintf(out, sizeof out, "%s/study", dir);
    snprintf(cmd, sizeof cmd, "%s batch '%s' -o '%s' -q 2>/dev/null </dev/null", bin, sw, out);
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    snprintf(lock, sizeof lock, "%s/.amsim-lock", out);
    snprintf(errf, sizeof errf, "%s/lockfifo.err", tu_tmpdir());
    static const char *const kinds[] = {"a FIFO", "a directory"};
    for (int k = 0; k < 2; k++) {
        unlink(lock);
        rmdir(lock);
        CU_ASSERT_EQUAL_FATAL(k ? mkdir(lock, 0700) : mkfifo(lock, 0600), 0);
        for (int c = 0; c < 3; c++) {
            char args[3000];
            if (c == 0)
                snprintf(args, sizeof args, "report '%s'", out);
            else if (c == 1)
                snprintf(args, sizeof args, "batch --merge '%s' -o '%s.m'", out, out);
            else
                snprintf(args, sizeof args, "batch '%s' -o '%s' -q", sw, out);
            snprintf(cmd, sizeof cmd, "timeout 20 %s %s 2>'%s' >/dev/null </dev/null", bin, args,
                     errf);
            int st = system(cmd);
            char *err = tu_slurp(errf, NULL);
            snprintf(want, sizeof want, ": %s: not a regular file (%s); remove it to use the "
                     "folder\n", lock, kinds[k]);
            CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 1);
            CU_ASSERT(err && strstr(err, want) != NULL);
            if (!WIFEXITED(st) || WEXITSTATUS(st) != 1 || !err || !strstr(err, want))
                fprintf(stderr, "\n  %s\n  status %d\n  stderr: %s  expected: %s\n", cmd,
                        WIFEXITED(st) ? WEXITSTATUS(st) : -1, err ? err : "(none)", want);
            free(err);
        }
    }
    rmdir(lock);
}

/* A study folder with one successful run r1 (no gnuplot needed to refuse it): its results.csv,
 * and runs/r1 for the run's timeline.csv. The folder's path. */
static const char *timeline_study(const char *name)
{
    const char *dir = fresh_dir(name);
    char p[1200];
    snprintf(p, sizeof p, "%s/runs", dir);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/runs/r1", dir);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/results.csv", dir);
    FILE *f = fopen(p, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs("run_id,run,policy,trace,status,hbm.peak_live_bytes,hbm.peak_reserved_bytes\n"
          "1,r1,bfc,t,ok,1,2\n", f);
    fclose(f);
    return dir;
}

/* A run's timeline.csv that is a FIFO: report refuses it by its type, status 1, nothing
 * written. Until 2026-11-27 report opened it and waited for a writer for good. Run under
 * timeout(1) so that a regression fails instead of stopping the suite. */
static void path_report_timeline_fifo(void)
{
    const char *bin = getenv("AMSIM") ? getenv("AMSIM") : "../../build/amsim";
    const char *dir = timeline_study("tlfifo");
    char tl[1300], errf[1024], cmd[4000], want[1600], html[1300];
    snprintf(tl, sizeof tl, "%s/runs/r1/timeline.csv", dir);
    CU_ASSERT_EQUAL_FATAL(mkfifo(tl, 0600), 0);
    snprintf(errf, sizeof errf, "%s/tlfifo.err", tu_tmpdir());
    snprintf(cmd, sizeof cmd, "timeout 20 %s report '%s' 2>'%s' >/dev/null </dev/null", bin, dir,
             errf);
    int st = system(cmd);
    char *err = tu_slurp(errf, NULL);
    snprintf(want, sizeof want, "amsim report: %s: not a regular file (a FIFO); a run's "
             "timeline.csv is the file amsim batch --timeline writes\n", tl);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 1);
    CU_ASSERT(err && strstr(err, want) != NULL);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 1 || !err || !strstr(err, want))
        fprintf(stderr, "\n  %s\n  status %d\n  stderr: %s  expected: %s\n", cmd,
                WIFEXITED(st) ? WEXITSTATUS(st) : -1, err ? err : "(none)", want);
    free(err);
    snprintf(html, sizeof html, "%s/report.html", dir);
    CU_ASSERT(access(html, F_OK) != 0);
    unlink(tl);
}

/* A run's timeline.csv is read by the results.csv rule: every number cell empty or a finite
 * decimal, rows of 6 cells, each ending in a newline, under timeline.csv's header; anything
 * else is refused at its line and column, status 1, nothing written. Until 2026-11-27 a cell
 * `abc` was drawn as 0, a short row skipped and a row cut mid-number drawn as written, status
 * 0. */
static void report_timeline_damaged(void)
{
    static const struct {
        const char *text, *where, *why;
    } cases[] = {
        {"0,0,hbm,abc,1,2\n", "2:9", "live_bytes is not a finite number: 'abc' (decimal numbers "
                                     "only)"},
        {"0,0,hbm,1,1,inf\n", "2:13", "reserved_bytes is not a finite number: 'inf'"},
        {"0,0,hbm,1\n", "2:10", "a timeline.csv row has 6 cells, this one 4"},
        {"0,0,hbm,1,1,2,7\n", "2:15", "a timeline.csv row has 6 cells, this one more"},
        {"0,0,hbm,1,1,2\n1000,1,hbm,1,1,20", "3:18", "the row has no line end (the file was cut "
                                                     "short)"},
    };
    const char *dir = timeline_study("tldamaged");
    char tl[1300], html[1300], args[1400], want[2000];
    snprintf(tl, sizeof tl, "%s/runs/r1/timeline.csv", dir);
    snprintf(html, sizeof html, "%s/report.html", dir);
    snprintf(args, sizeof args, "report '%s'", dir);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        FILE *f = fopen(tl, "w");
        CU_ASSERT_FATAL(f != NULL);
        fprintf(f, "time_ps,seq,level,live_bytes,allocated_bytes,reserved_bytes\n%s",
                cases[k].text);
        fclose(f);
        snprintf(want, sizeof want, "amsim report: %s:%s: %s", tl, cases[k].where, cases[k].why);
        bi_expect(args, 1, want);
        CU_ASSERT(access(html, F_OK) != 0);
    }
    /* a header that is not timeline.csv's */
    FILE *f = fopen(tl, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs("time,live\n0,1\n", f);
    fclose(f);
    snprintf(want, sizeof want, "amsim report: %s:1:1: not a timeline.csv header (expected "
             "time_ps,seq,level,live_bytes,allocated_bytes,reserved_bytes)", tl);
    bi_expect(args, 1, want);
    unlink(tl);
}

/* A batch folder (or a merge's OUT) whose runs is a regular file, or a symbolic link to
 * nothing: refused before anything is written, naming it, with status 1; the folder keeps only
 * what was there. Until 2026-11-28 mkdir took a file for a folder: the batch recorded every run
 * `missing`, said "0 failed" and that the same command again runs them, and --merge ended with
 * status 0 and linked no run; until 2026-11-28 the link was "cannot create: File exists". */
static void path_batch_runs_file(void)
{
    const char *dir = fresh_dir("runsfile");
    char text[4096], out[1200], src[1200], runs[1300], args[4000], want[1600], *err = NULL;
    snprintf(text, sizeof text, "base: '%s'\ntraces: ['%s']\npolicies: [bfc]\n", cfg_default(),
             trace_gpu());
    const char *sw = bi_write("runsfile.yaml", text, strlen(text));
    snprintf(src, sizeof src, "%s/study", dir);
    snprintf(args, sizeof args, "batch '%s' -o '%s' -q", sw, src);
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
    snprintf(out, sizeof out, "%s/out", dir);
    CU_ASSERT_FATAL(mkdir(out, 0700) == 0);
    snprintf(runs, sizeof runs, "%s/runs", out);
    for (int c = 0; c < 4; c++) {
        if (c == 0)
            bi_write("runsfile/out/runs", "", 0);
        else if (c == 2)
            CU_ASSERT_FATAL(unlink(runs) == 0 && symlink("nowhere", runs) == 0);
        if (c % 2 == 0)
            snprintf(args, sizeof args, "batch '%s' -o '%s' -q", sw, out);
        else
            snprintf(args, sizeof args, "batch --merge '%s' -o '%s'", src, out);
        snprintf(want, sizeof want, "amsim batch: %s: not a directory (%s); remove it to %s\n",
                 runs, c < 2 ? "a regular file" : "a symbolic link to nothing",
                 c % 2 ? "merge here" : "run the study here");
        CU_ASSERT_EQUAL(tu_amsim(args, NULL, &err), 1);
        CU_ASSERT(err && strcmp(err, want) == 0);
        if (!err || strcmp(err, want) != 0)
            fprintf(stderr, "\n  amsim %s\n  stderr: %s  expected: %s\n", args,
                    err ? err : "(none)", want);
        free(err);
        err = NULL;
        char p[1400];
        snprintf(p, sizeof p, "%s/matrix.tsv", out);
        CU_ASSERT_NOT_EQUAL(access(p, F_OK), 0); /* nothing written */
        snprintf(p, sizeof p, "%s/results.csv", out);
        CU_ASSERT_NOT_EQUAL(access(p, F_OK), 0);
    }
}

/* A run's expectation must be a regular file: a FIFO (a run's --expect, a regress sweep's
 * expectation) or a directory is refused naming the path, at once. Until 2026-11-27 it was
 * opened as it was: a FIFO with no writer blocked the run, and in a batch its worker, for
 * good. Run under timeout(1) so that a regression fails instead of stopping the suite. */
static void path_expect_stream(void)
{
    static const char why[] = "cannot read expectation: not a regular file (%s); an "
                              "expectation is the file amsim run --save-expect writes";
    const char *bin = getenv("AMSIM") ? getenv("AMSIM") : "../../build/amsim";
    const char *dir = fresh_dir("expfifo");
    char fifo[1024], errf[1024], cmd[4096], want[2048], reason[256];
    snprintf(fifo, sizeof fifo, "%s/gpu_train_step.trace.expect", dir);
    snprintf(errf, sizeof errf, "%s/expect.err", tu_tmpdir());
    unlink(fifo);
    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
    const char *paths[] = {fifo, dir}, *kinds[] = {"a FIFO", "a directory"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(cmd, sizeof cmd, "timeout 20 %s run -q -c '%s' -t '%s' --expect '%s' 2>'%s' "
                 "</dev/null", bin, cfg_default(), trace_gpu(), paths[i], errf);
        int st = system(cmd);
        char *err = tu_slurp(errf, NULL);
        snprintf(reason, sizeof reason, why, kinds[i]);
        snprintf(want, sizeof want, "amsim: %s: %s\n", paths[i], reason);
        CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 1);
        CU_ASSERT(err && strstr(err, want) != NULL);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 1 || !err || !strstr(err, want))
            fprintf(stderr, "\n  %s\n  status %d\n  stderr: %s  expected: %s\n", cmd,
                    WIFEXITED(st) ? WEXITSTATUS(st) : -1, err ? err : "(none)", want);
        free(err);
    }
    /* a regress sweep's: the run fails with that message, the batch ends */
    char text[4096], out[1200], csvp[1300];
    snprintf(text, sizeof text, "kind: regress\nbase: '%s'\ntraces: ['%s']\nexpectations: '%s'\n",
             cfg_default(), trace_gpu(), dir);
    const char *sw = bi_write("expfifo.yaml", text, strlen(text));
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(cmd, sizeof cmd, "timeout 20 %s batch '%s' -o '%s' -q -j 1 2>/dev/null </dev/null",
             bin, sw, out);
    int st = system(cmd);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 1);
    snprintf(csvp, sizeof csvp, "%s/results.csv", out);
    char *csv = tu_slurp(csvp, NULL);
    snprintf(reason, sizeof reason, why, "a FIFO");
    snprintf(want, sizeof want, ",failed,%s: %s,", fifo, reason);
    CU_ASSERT(csv && strstr(csv, want) != NULL);
    free(csv);
    unlink(fifo);
}

/* An output path that is not a regular file is written through, never renamed over: as root,
 * `--placements /dev/null` once replaced /dev/null with a regular file. A FIFO (opened here
 * for reading too, so that neither side blocks; the summary fits the pipe's buffer) stays a
 * FIFO and carries the summary; a symbolic link stays a link and its target gets the file. */
static void outputs_written_through(void)
{
    const char *dir = fresh_dir("through");
    char fifo[700], link[700], target[700], args[4096];
    snprintf(fifo, sizeof fifo, "%s/s.fifo", dir);
    snprintf(link, sizeof link, "%s/link.json", dir);
    snprintf(target, sizeof target, "%s/target.json", dir);
    unlink(fifo);
    unlink(link);
    CU_ASSERT_FATAL(mkfifo(fifo, 0600) == 0);
    CU_ASSERT_FATAL(symlink("target.json", link) == 0);
    int fd = open(fifo, O_RDWR | O_NONBLOCK);
    CU_ASSERT_FATAL(fd >= 0);
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --json '%s' --placements '%s'",
             cfg_default(), trace_gpu(), fifo, link);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
    char head[32] = {0};
    CU_ASSERT(read(fd, head, sizeof head - 1) > 0);
    CU_ASSERT(strncmp(head, "{\n  \"amsim_version\"", 19) == 0);
    close(fd);
    struct stat st;
    CU_ASSERT(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
    CU_ASSERT(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    char *csv = tu_slurp(target, NULL);
    CU_ASSERT(csv && strncmp(csv, "seq,id,level,address,", 21) == 0);
    free(csv);
    CU_ASSERT_EQUAL(dir_count(dir, ".tmp."), 0);
    unlink(fifo);
    unlink(link);
    unlink(target);
}

/* A symbolic link that loops (ln -s loop loop) as an output is an error, ELOOP's words, and
 * stays a link: the temporary was made next to it and renamed over it, leaving a regular file.
 * A dangling link, and a chain of them, creates the file the last link names; the links stay
 * (renaming onto the chain's first target replaced the second link with the file). */
static void outputs_symlink_loop_and_dangling(void)
{
    const char *dir = fresh_dir("loops");
    char loop[700], a[700], b[700], c[700], args[4096], want[1200];
    snprintf(loop, sizeof loop, "%s/loop", dir);
    snprintf(a, sizeof a, "%s/a.json", dir);
    snprintf(b, sizeof b, "%s/b.json", dir);
    snprintf(c, sizeof c, "%s/c.json", dir);
    unlink(loop), unlink(a), unlink(b), unlink(c);
    CU_ASSERT_FATAL(symlink("loop", loop) == 0);
    const char *val[26] = {0}; /* {C} config, {T} trace, {L} the loop */
    val['C' - 'A'] = cfg_default(), val['T' - 'A'] = trace_gpu(), val['L' - 'A'] = loop;
    static const char *const cmds[] = {"run -q -c '{C}' -t '{T}' --json '{L}'",
                                       "run -q -c '{C}' -t '{T}' --placements '{L}'",
                                       "compare -c '{C}' -t '{T}' --policies bfc --json '{L}'"};
    for (size_t i = 0; i < AM_ARRAY_LEN(cmds); i++) {
        bi_subst(args, sizeof args, cmds[i], val);
        snprintf(want, sizeof want, "amsim: %s: cannot write: Too many levels of symbolic "
                 "links\n", loop);
        bi_expect(args, 1, want);
    }
    snprintf(args, sizeof args, "gen kernel -o '%s'", loop);
    bi_expect(args, 1, want);
    struct stat st;
    char txt[16] = {0};
    CU_ASSERT(lstat(loop, &st) == 0 && S_ISLNK(st.st_mode));
    CU_ASSERT(readlink(loop, txt, sizeof txt - 1) == 4 && strcmp(txt, "loop") == 0);
    /* a.json -> b.json -> c.json (missing): c.json is written, both links stay */
    CU_ASSERT_FATAL(symlink("b.json", a) == 0 && symlink("c.json", b) == 0);
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --json '%s'", cfg_default(), trace_gpu(),
             a);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
    CU_ASSERT(lstat(a, &st) == 0 && S_ISLNK(st.st_mode));
    CU_ASSERT(lstat(b, &st) == 0 && S_ISLNK(st.st_mode));
    char *j = tu_slurp(c, NULL);
    CU_ASSERT(j && strstr(j, "\"amsim_version\"") != NULL);
    free(j);
    CU_ASSERT_EQUAL(dir_count(dir, ".tmp."), 0);
    CU_ASSERT_EQUAL(dir_count(dir, NULL), 4);
}

/* Whether files a and b hold the same bytes (both must exist). */
static int same_bytes(const char *a, const char *b)
{
    size_t na = 0, nb = 0;
    char *x = tu_slurp(a, &na), *y = tu_slurp(b, &nb);
    int same = x && y && na == nb && na > 0 && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return same;
}

/* -o DIR gets its whole set (report, summary, placements, timeline, effective config) when
 * --json, --placements or --timeline name a file as well, and that file holds the same bytes
 * (until 2026-11-25 the named path replaced DIR's file); naming DIR's own file writes it once;
 * with standard output as the named path DIR's file is still written. */
static void outputs_dir_and_paths(void)
{
    const char *dir = fresh_dir("odir");
    static const char *const set[] = {"report.txt", "summary.json", "placements.csv",
                                      "timeline.csv", "effective_config.yaml"};
    char args[4096], od[700], a[800], b[800];
    snprintf(od, sizeof od, "%s/o", dir);
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' -o '%s' --json '%s/x.json' "
             "--placements '%s/x.csv' --timeline '%s/t.csv'", cfg_default(), trace_gpu(), od,
             dir, dir, dir);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
    for (size_t i = 0; i < AM_ARRAY_LEN(set); i++) {
        snprintf(a, sizeof a, "%s/%s", od, set[i]);
        CU_ASSERT(access(a, R_OK) == 0);
    }
    static const char *const pair[][2] = {{"x.json", "summary.json"},
                                          {"x.csv", "placements.csv"},
                                          {"t.csv", "timeline.csv"}};
    for (size_t i = 0; i < AM_ARRAY_LEN(pair); i++) {
        snprintf(a, sizeof a, "%s/%s", dir, pair[i][0]);
        snprintf(b, sizeof b, "%s/%s", od, pair[i][1]);
        CU_ASSERT(same_bytes(a, b));
    }
    CU_ASSERT_EQUAL(dir_count(od, NULL), 5);
    CU_ASSERT_EQUAL(dir_count(dir, ".tmp."), 0);
    /* DIR's own file under another spelling: written once, complete, no temporary left */
    snprintf(b, sizeof b, "%s/o2", dir);
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' -o '%s' --json '%s/../o2/summary.json'",
             cfg_default(), trace_gpu(), b, b);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
    CU_ASSERT_EQUAL(dir_count(b, NULL), 5);
    snprintf(a, sizeof a, "%s/o/summary.json", dir);
    snprintf(b, sizeof b, "%s/o2/summary.json", dir);
    char *j = tu_slurp(b, NULL);
    CU_ASSERT(j && strstr(j, "\"makespan_seconds\"") != NULL);
    free(j);
    /* standard output as the named path: the rows go there and into DIR */
    snprintf(b, sizeof b, "%s/o3", dir);
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' -o '%s' --placements -", cfg_default(),
             trace_gpu(), b);
    char *out = NULL;
    CU_ASSERT_EQUAL(tu_amsim(args, &out, NULL), 0);
    snprintf(a, sizeof a, "%s/o/placements.csv", dir);
    char *csv = tu_slurp(a, NULL);
    CU_ASSERT(out && csv && strcmp(out, csv) == 0);
    free(out);
    free(csv);
    CU_ASSERT_EQUAL(dir_count(b, NULL), 5);
}

/* Two outputs naming one regular file (any spelling) are refused before the run, status 1: they
 * shared a temporary, the second commit failed with "No such file or directory" and the file
 * held the first. /dev/null and standard output may take several. */
static void outputs_same_file(void)
{
    const char *dir = fresh_dir("samefile");
    char args[4096], want[1200];
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --json '%s/x' --placements '%s/./x'",
             cfg_default(), trace_gpu(), dir, dir);
    snprintf(want, sizeof want, "amsim: --json writes %s/x and --placements writes %s/./x: "
             "they are one file; give each output its own file\n", dir, dir);
    bi_expect(args, 1, want);
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' -o '%s/o' --timeline '%s/o/report.txt'",
             cfg_default(), trace_gpu(), dir, dir);
    snprintf(want, sizeof want, "amsim: --timeline and -o's report.txt both name "
             "%s/o/report.txt: give each output its own file\n", dir);
    bi_expect(args, 1, want);
    CU_ASSERT_EQUAL(dir_count(dir, "x"), 0);
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --json /dev/null --placements /dev/null "
             "--timeline -", cfg_default(), trace_gpu());
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
}

/* A file named by --json or --placements that is a hard link of -o DIR's own file is refused as
 * two outputs on one file are, the link and both files left as they were: written "once" (as
 * DIR's own file is when named by its path), the rename broke the link and left DIR's name with
 * the old bytes, status 0 (until 2026-11-27). The error names both paths, hard links (until
 * 2026-11-28 it named DIR's twice: "--json and -o's summary.json both name DIR/summary.json").
 * A symbolic link to DIR's file is its own name still: written once, through it. */
static void outputs_dir_hard_link(void)
{
    const char *dir = fresh_dir("odir_hl");
    static const char *const opt[][3] = {{"--json", "summary.json", "-o's summary.json"},
                                         {"--placements", "placements.csv",
                                          "-o's placements.csv"}};
    char args[4096], want[2048], od[700], mine[800], theirs[800];
    snprintf(od, sizeof od, "%s/hd", dir);
    CU_ASSERT_FATAL(mkdir(od, 0700) == 0);
    for (size_t i = 0; i < AM_ARRAY_LEN(opt); i++) {
        snprintf(mine, sizeof mine, "%s/mine%zu", dir, i);
        snprintf(theirs, sizeof theirs, "%s/%s", od, opt[i][1]);
        FILE *f = fopen(mine, "w");
        CU_ASSERT_FATAL(f != NULL);
        fputs("stale\n", f);
        fclose(f);
        CU_ASSERT_FATAL(link(mine, theirs) == 0);
        snprintf(args, sizeof args, "run -q -c '%s' -t '%s' -o '%s' %s '%s'", cfg_default(),
                 trace_gpu(), od, opt[i][0], mine);
        snprintf(want, sizeof want, "amsim: %s writes %s and %s writes %s: they are one file "
                 "(hard links); give each output its own file\n", opt[i][0], mine, opt[i][2],
                 theirs);
        bi_expect(args, 1, want);
        char *a = tu_slurp(mine, NULL), *b = tu_slurp(theirs, NULL);
        CU_ASSERT(a && b && strcmp(a, "stale\n") == 0 && strcmp(b, "stale\n") == 0);
        free(a);
        free(b);
        unlink(theirs);
    }
    CU_ASSERT_EQUAL(dir_count(od, NULL), 0);
    /* a symbolic link to DIR's file: one file, one name in DIR, written once */
    snprintf(mine, sizeof mine, "%s/sym.json", dir);
    CU_ASSERT_FATAL(symlink("hd/summary.json", mine) == 0);
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' -o '%s' --json '%s'", cfg_default(),
             trace_gpu(), od, mine);
    CU_ASSERT_EQUAL(tu_amsim(args, NULL, NULL), 0);
    snprintf(theirs, sizeof theirs, "%s/summary.json", od);
    char *j = tu_slurp(theirs, NULL);
    CU_ASSERT(j && strstr(j, "\"makespan_seconds\"") != NULL);
    free(j);
    struct stat st;
    CU_ASSERT(lstat(mine, &st) == 0 && S_ISLNK(st.st_mode));
    CU_ASSERT_EQUAL(dir_count(od, NULL), 5);
}

/* An output naming an input (the config, the trace, an expectation, a results table, a sweep)
 * is refused before anything is read or written, naming both options, and the input keeps its
 * bytes: `--json X --expect X` replaced the expectation with the run's summary. Any spelling
 * counts (./X, a symbolic link to X), as for two outputs. */
static void outputs_naming_an_input(void)
{
    const char *dir = fresh_dir("outin");
    char args[4096], want[1200], cfg[700], tr[700], exp[700], link[700], res[700];
    snprintf(cfg, sizeof cfg, "%s/c.yaml", dir);
    snprintf(tr, sizeof tr, "%s/t.trace", dir);
    snprintf(exp, sizeof exp, "%s/e.expect", dir);
    snprintf(link, sizeof link, "%s/t.link", dir);
    snprintf(res, sizeof res, "%s/r.csv", dir);
    char *c0 = tu_slurp(cfg_default(), NULL), *t0 = tu_slurp(trace_gpu(), NULL);
    CU_ASSERT_FATAL(c0 && t0);
    FILE *f = fopen(cfg, "w");
    CU_ASSERT_FATAL(f && fputs(c0, f) >= 0 && fclose(f) == 0);
    f = fopen(tr, "w");
    CU_ASSERT_FATAL(f && fputs(t0, f) >= 0 && fclose(f) == 0);
    unlink(link);
    CU_ASSERT_FATAL(symlink("t.trace", link) == 0);
    f = fopen(res, "w");
    CU_ASSERT_FATAL(f && fputs("policy,x\nbfc,1\nbfc,2\n", f) >= 0 && fclose(f) == 0);
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --save-expect '%s'", cfg, tr, exp);
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
    char *e0 = tu_slurp(exp, NULL);
    CU_ASSERT_FATAL(e0 != NULL);
    /* {C} config, {T} trace, {E} expectation, {L} link to the trace, {R} results, {D} dir */
    const char *val[26] = {0};
    val['C' - 'A'] = cfg, val['T' - 'A'] = tr, val['E' - 'A'] = exp, val['L' - 'A'] = link;
    val['R' - 'A'] = res, val['D' - 'A'] = dir;
    static const char *const cases[][2] = {
        {"run -q -c '{C}' -t '{T}' --expect '{E}' --json '{E}'",
         "amsim: --json and --expect both name {E}: the output would overwrite its own input; "
         "write it to another file\n"},
        {"run -q -c '{C}' -t '{T}' --expect '{E}' --save-expect '{D}/./e.expect'",
         "amsim: --save-expect and --expect both name {D}/./e.expect: the output"},
        {"run -q -c '{C}' -t '{L}' --placements '{T}'",
         "amsim: --placements and -t both name {T}: the output"},
        {"run -q -c '{C}' -t '{T}' --chrome-trace '{C}'",
         "amsim: --chrome-trace and -c both name {C}: the output"},
        {"compare -c '{C}' -t '{T}' --policies bfc,caching --json '{L}'",
         "amsim: --json and -t both name {L}: the output"},
        {"mincap -q -c '{C}' -t '{T}' --json '{C}'",
         "amsim: --json and -c both name {C}: the output"},
        {"convert '{L}' -o '{T}'", "amsim: -o and IN both name {T}: the output"},
        {"stats '{R}' --metric x --json '{R}'",
         "amsim: --json and RESULTS.csv both name {R}: the output"},
    };
    for (size_t i = 0; i < AM_ARRAY_LEN(cases); i++) {
        bi_subst(args, sizeof args, cases[i][0], val);
        bi_subst(want, sizeof want, cases[i][1], val);
        bi_expect(args, 1, want);
    }
    char *c1 = tu_slurp(cfg, NULL), *t1 = tu_slurp(tr, NULL), *e1 = tu_slurp(exp, NULL);
    char *r1 = tu_slurp(res, NULL);
    CU_ASSERT(c1 && strcmp(c0, c1) == 0);
    CU_ASSERT(t1 && strcmp(t0, t1) == 0);
    CU_ASSERT(e1 && strcmp(e0, e1) == 0);
    CU_ASSERT(r1 && strcmp(r1, "policy,x\nbfc,1\nbfc,2\n") == 0);
    CU_ASSERT_EQUAL(dir_count(dir, ".tmp."), 0);
    CU_ASSERT_EQUAL(dir_count(dir, NULL), 5); /* nothing new */
    /* a sweep file that is one of -o DIR's own files (DIR/matrix.tsv) */
    char sw[700];
    snprintf(sw, sizeof sw, "%s/matrix.tsv", dir);
    f = fopen(sw, "w");
    CU_ASSERT_FATAL(f && fprintf(f, "base: '%s'\ntraces: ['%s']\n", cfg, tr) > 0 &&
                    fclose(f) == 0);
    snprintf(args, sizeof args, "batch -q '%s' -o '%s'", sw, dir);
    snprintf(want, sizeof want, "amsim: -o's matrix.tsv and SWEEP.yaml both name %s/matrix.tsv: "
             "the output would overwrite its own input", dir);
    bi_expect(args, 1, want);
    CU_ASSERT_EQUAL(dir_count(dir, "runs"), 0);
    free(c0), free(t0), free(e0), free(c1), free(t1), free(e1), free(r1);
}

/* Copy file from to to (the test fails here if it cannot). */
static void bi_copy(const char *from, const char *to)
{
    char *t = tu_slurp(from, NULL);
    CU_ASSERT_FATAL(t != NULL);
    FILE *f = fopen(to, "w");
    CU_ASSERT_FATAL(f && fputs(t, f) >= 0 && fclose(f) == 0);
    free(t);
}

/* Run "amsim ARGS" through the shell with its own redirections (tu_amsim gives standard input
 * /dev/null and standard output a file of its own); assert status want and that stderr holds
 * expect. */
static void bi_expect_sh(const char *args, int want, const char *expect)
{
    const char *bin = getenv("AMSIM") ? getenv("AMSIM") : "../../build/amsim";
    char cmd[8192], errf[1024];
    snprintf(errf, sizeof errf, "%s/sh.err", tu_tmpdir());
    snprintf(cmd, sizeof cmd, "%s %s 2>'%s'", bin, args, errf);
    int st = system(cmd);
    st = st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    char *err = tu_slurp(errf, NULL);
    int found = err && strstr(err, expect) != NULL;
    CU_ASSERT_EQUAL(st, want);
    CU_ASSERT(found);
    if (st != want || !found)
        fprintf(stderr, "\n  %s\n  status %d (want %d)\n  stderr: %s  expected: %s\n", cmd, st,
                want, err ? err : "(none)", expect);
    free(err);
}

/* A "-" is the file its standard stream holds when that is a regular file: an input "-" the
 * file on standard input, an output "-" (or /dev/stdout) the file on standard output. Each is
 * refused on an input as that file's own name is, naming both as written, and the input keeps
 * its bytes. Until 2026-11-27 "-" was never compared (`--expect - --json E < E` replaced the
 * expectation, `-t T --placements - >> T` grew the trace, status 0), and `--json /dev/stdout
 * >> R` was refused naming /dev/stdout twice. A pipe holds no file: never refused. */
static void outputs_stream_on_an_input(void)
{
    const char *dir = fresh_dir("streamin");
    char tr[700], exp[700], res[700], args[4096], want[1200];
    snprintf(tr, sizeof tr, "%s/t.trace", dir);
    snprintf(exp, sizeof exp, "%s/e.expect", dir);
    snprintf(res, sizeof res, "%s/r.csv", dir);
    bi_copy(trace_gpu(), tr);
    FILE *f = fopen(res, "w");
    CU_ASSERT_FATAL(f && fputs("policy,x\nbfc,1\nbfc,2\n", f) >= 0 && fclose(f) == 0);
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --save-expect '%s'", cfg_default(), tr,
             exp);
    CU_ASSERT_EQUAL_FATAL(tu_amsim(args, NULL, NULL), 0);
    char *t0 = tu_slurp(tr, NULL), *e0 = tu_slurp(exp, NULL);
    CU_ASSERT_FATAL(t0 && e0);
    const char *val[26] = {0};
    val['C' - 'A'] = cfg_default(), val['T' - 'A'] = tr, val['E' - 'A'] = exp;
    val['R' - 'A'] = res;
    static const char *const cases[][2] = {
        {"run -q -c '{C}' -t '{T}' --expect - --json '{E}' < '{E}'",
         "amsim: --json writes {E} and --expect reads '-' (standard input): they are one "
         "file, the output would overwrite its own input; write it to another file\n"},
        {"run -q -c '{C}' -t '{T}' --expect - --save-expect '{E}' < '{E}'",
         "amsim: --save-expect writes {E} and --expect reads '-' (standard input)"},
        {"run -q -c '{C}' -t - --placements '{T}' < '{T}'",
         "amsim: --placements writes {T} and -t reads '-' (standard input)"},
        {"run -q -c '{C}' -t '{T}' --placements - >> '{T}'",
         "amsim: --placements writes '-' (standard output) and -t reads {T}: they are one "
         "file"},
        {"run -c '{C}' -t '{T}' >> '{T}'",
         "amsim: the report (-q leaves it out) writes '-' (standard output) and -t reads {T}"},
        {"convert '{T}' --to csv -o - >> '{T}'",
         "amsim: -o writes '-' (standard output) and IN reads {T}"},
        {"stats '{R}' --metric x -q --json - >> '{R}'",
         "amsim: --json writes '-' (standard output) and RESULTS.csv reads {R}"},
        {"stats '{R}' --metric x -q --json /dev/stdout >> '{R}'",
         "amsim: --json writes /dev/stdout and RESULTS.csv reads {R}: they are one file"},
        {"stats - --metric x -q --json '{R}' < '{R}'",
         "amsim: --json writes {R} and RESULTS.csv reads '-' (standard input)"},
    };
    for (size_t i = 0; i < AM_ARRAY_LEN(cases); i++) {
        char a[4096], w[1200];
        bi_subst(a, sizeof a, cases[i][0], val);
        bi_subst(w, sizeof w, cases[i][1], val);
        bi_expect_sh(a, 1, w);
    }
    char *t1 = tu_slurp(tr, NULL), *e1 = tu_slurp(exp, NULL), *r1 = tu_slurp(res, NULL);
    CU_ASSERT(t1 && strcmp(t0, t1) == 0);
    CU_ASSERT(e1 && strcmp(e0, e1) == 0);
    CU_ASSERT(r1 && strcmp(r1, "policy,x\nbfc,1\nbfc,2\n") == 0);
    CU_ASSERT_EQUAL(dir_count(dir, ".tmp."), 0);
    /* from a pipe, or into another file: as before */
    snprintf(args, sizeof args, "run -q -c '%s' -t '%s' --expect - --json '%s/j.json' < '%s' "
             "--placements - > '%s/p.csv'", cfg_default(), tr, dir, exp, dir);
    bi_expect_sh(args, 0, "");
    snprintf(want, sizeof want, "%s/p.csv", dir);
    char *p = tu_slurp(want, NULL);
    CU_ASSERT(p && strlen(p) > 0);
    free(p);
    free(t0), free(e0), free(t1), free(e1), free(r1);
}

/* Every file a command reads counts as its input, not only those named on its command line,
 * until 2026-11-25 replaced with an exit status 0: the device preset a config loads (`device:
 * h100` read DIR_OF_CONFIG/devices/h100.yaml; `run --json` on it replaced it), batch's base
 * config and traces (DIR/results.csv and DIR/matrix.tsv as links to them), and report's
 * results.csv and timelines (DIR/report.html as a link to one). Each is refused before
 * anything is written, naming both, and the file keeps its bytes. */
static void outputs_naming_a_read_file(void)
{
    const char *dir = fresh_dir("readin");
    char p[8][700], args[4096], want[1200];
    /* {C} a copy of the default config next to {P}, its own devices/h100.yaml; {T} a trace,
     * {S} a sweep on them with the study folder {O}; {D} the folder */
    snprintf(p[0], sizeof p[0], "%s/devices", dir);
    mkdir(p[0], 0700);
    snprintf(p[0], sizeof p[0], "%s/c.yaml", dir);
    snprintf(p[1], sizeof p[1], "%s/devices/h100.yaml", dir);
    snprintf(p[2], sizeof p[2], "%s/t.trace", dir);
    snprintf(p[3], sizeof p[3], "%s/s.yaml", dir);
    char od[620]; /* {O} */
    snprintf(od, sizeof od, "%s/out", dir);
    bi_copy(cfg_default(), p[0]);
    snprintf(args, sizeof args, "%s/configs/devices/h100.yaml", tu_top());
    bi_copy(args, p[1]);
    bi_copy(trace_gpu(), p[2]);
    FILE *f = fopen(p[3], "w");
    CU_ASSERT_FATAL(f && fputs("base: c.yaml\ntraces: [t.trace]\npolicies: [bfc]\n", f) >= 0 &&
                    fclose(f) == 0);
    mkdir(od, 0700);
    char *c0 = tu_slurp(p[0], NULL), *p0 = tu_slurp(p[1], NULL), *t0 = tu_slurp(p[2], NULL);
    const char *val[26] = {0};
    val['C' - 'A'] = p[0], val['P' - 'A'] = p[1], val['T' - 'A'] = p[2], val['S' - 'A'] = p[3];
    val['O' - 'A'] = od, val['D' - 'A'] = dir;
    static const char *const cases[][2] = {
        {"run -q -c '{C}' -t '{T}' --json '{P}'",
         "amsim: --json and the config's device preset both name {P}: the output would "
         "overwrite its own input; write it to another file\n"},
        {"run -q -c '{C}' -t '{T}' --set device=h100 --chrome-trace '{D}/devices/../devices/"
         "h100.yaml'", "amsim: --chrome-trace and the config's device preset both name"},
        {"run -q -c '{C}' -t '{T}' -o '{D}/devices'", "amsim: -o's summary.json"},
        {"compare -c '{C}' -t '{T}' --policies bfc,caching --json '{P}'",
         "amsim: --json and the config's device preset both name {P}: the output"},
        {"mincap -q -c '{C}' -t '{T}' --granularity 64MiB --json '{P}'",
         "amsim: --json and the config's device preset both name {P}: the output"},
        {"convert '{T}' -c '{C}' -o '{P}'",
         "amsim: -o and the config's device preset both name {P}: the output"},
    };
    for (size_t i = 0; i < AM_ARRAY_LEN(cases); i++) {
        char a[4096], w[1200];
        bi_subst(a, sizeof a, cases[i][0], val);
        bi_subst(w, sizeof w, cases[i][1], val);
        if (strstr(a, "-o '") && strstr(a, "/devices'")) {
            /* -o DIR whose summary.json is a link to the preset */
            snprintf(want, sizeof want, "%s/devices/summary.json", dir);
            unlink(want);
            CU_ASSERT_FATAL(symlink("h100.yaml", want) == 0);
        }
        bi_expect(a, 1, w);
    }
    snprintf(want, sizeof want, "%s/devices/summary.json", dir);
    unlink(want);
    /* batch: DIR/results.csv and DIR/matrix.tsv linking to the base config, its preset, a
     * trace */
    static const char *const links[][3] = {
        {"results.csv", "../c.yaml", "-o's results.csv and the sweep's base config"},
        {"matrix.tsv", "../t.trace", "-o's matrix.tsv and a trace of the sweep"},
        {"results.csv", "../devices/h100.yaml",
         "-o's results.csv and the base config's device preset"},
    };
    for (size_t i = 0; i < AM_ARRAY_LEN(links); i++) {
        char l[800];
        snprintf(l, sizeof l, "%s/%s", od, links[i][0]);
        unlink(l);
        CU_ASSERT_FATAL(symlink(links[i][1], l) == 0);
        snprintf(args, sizeof args, "batch -q '%s' -o '%s'", p[3], od);
        snprintf(want, sizeof want, "amsim: %s both name %s: the output would overwrite its "
                 "own input", links[i][2], l);
        bi_expect(args, 1, want);
        unlink(l);
    }
    CU_ASSERT_EQUAL(dir_count(od, NULL), 0); /* no runs/, nothing written */
    /* report: DIR/report.html linking to DIR/results.csv or a run's timeline.csv */
    snprintf(args, sizeof args, "%s/runs/0001-a", od);
    snprintf(want, sizeof want, "%s/runs", od);
    mkdir(want, 0700);
    mkdir(args, 0700);
    snprintf(p[5], sizeof p[5], "%s/results.csv", od);
    snprintf(p[6], sizeof p[6], "%s/runs/0001-a/timeline.csv", od);
    snprintf(p[7], sizeof p[7], "%s/report.html", od);
    static const char res[] = "run,policy,trace,status\n0001-a,bfc,t,ok\n";
    static const char tl[] = "time_ps,seq,level,live_bytes,allocated_bytes,reserved_bytes\n";
    f = fopen(p[5], "w");
    CU_ASSERT_FATAL(f && fputs(res, f) >= 0 && fclose(f) == 0);
    f = fopen(p[6], "w");
    CU_ASSERT_FATAL(f && fputs(tl, f) >= 0 && fclose(f) == 0);
    static const char *const targets[][2] = {{"results.csv", "DIR/results.csv"},
                                             {"runs/0001-a/timeline.csv", "a run's timeline.csv"},
                                             {"matrix.tsv", "DIR/matrix.tsv"}};
    for (size_t i = 0; i < AM_ARRAY_LEN(targets); i++) {
        unlink(p[7]);
        CU_ASSERT_FATAL(symlink(targets[i][0], p[7]) == 0);
        snprintf(args, sizeof args, "report '%s'", od);
        snprintf(want, sizeof want, "amsim: report.html and %s both name %s: the output would "
                 "overwrite its own input", targets[i][1], p[7]);
        bi_expect(args, 1, want);
    }
    unlink(p[7]);
    char *c1 = tu_slurp(p[0], NULL), *p1 = tu_slurp(p[1], NULL), *t1 = tu_slurp(p[2], NULL);
    char *r1 = tu_slurp(p[5], NULL), *l1 = tu_slurp(p[6], NULL);
    CU_ASSERT(c0 && c1 && strcmp(c0, c1) == 0);
    CU_ASSERT(p0 && p1 && strcmp(p0, p1) == 0);
    CU_ASSERT(t0 && t1 && strcmp(t0, t1) == 0);
    CU_ASSERT(r1 && strcmp(r1, res) == 0);
    CU_ASSERT(l1 && strcmp(l1, tl) == 0);
    snprintf(want, sizeof want, "%s/matrix.tsv", od);
    CU_ASSERT_NOT_EQUAL(access(want, F_OK), 0);
    CU_ASSERT_EQUAL(dir_count(dir, ".tmp."), 0);
    snprintf(want, sizeof want, "%s/devices", dir);
    CU_ASSERT_EQUAL(dir_count(want, NULL), 1); /* h100.yaml alone */
    free(c0), free(p0), free(t0), free(c1), free(p1), free(t1), free(r1), free(l1);
}

/* `amsim report` on a results.csv that is not a batch's: no run/policy/trace/status column, no
 * LEVEL.peak_reserved_bytes, or a metric cell that is not a number, each refused before anything
 * is written (a header `a,b` gave a page, status 0; a cell `abc` made gnuplot fail, status 2). */
static void report_bad_table(void)
{
    static const char *const cases[][2] = {
        {"a,b\n1,2\n", "amsim report: {A}: no column 'run' (a results.csv of amsim batch has"},
        {"run,policy,trace,status\nr1,bfc,t,ok\n",
         "amsim report: {A}: no column LEVEL.peak_reserved_bytes"},
        {"run,policy,trace,status,error,hbm.peak_reserved_bytes\nr1,bfc,t,ok,,abc\n",
         "amsim report: {A}:2:14: hbm.peak_reserved_bytes is not a finite number: 'abc'"},
    };
    char dir[600], csv[700], html[700], args[800], want[1200];
    snprintf(dir, sizeof dir, "%s/badtable", tu_tmpdir());
    mkdir(dir, 0777);
    snprintf(csv, sizeof csv, "%s/results.csv", dir);
    snprintf(html, sizeof html, "%s/report.html", dir);
    for (size_t i = 0; i < AM_ARRAY_LEN(cases); i++) {
        FILE *f = fopen(csv, "w");
        CU_ASSERT_FATAL(f && fputs(cases[i][0], f) >= 0 && fclose(f) == 0);
        const char *const val[] = {csv};
        bi_subst(want, sizeof want, cases[i][1], val);
        snprintf(args, sizeof args, "report '%s'", dir);
        bi_expect(args, 1, want);
        CU_ASSERT_NOT_EQUAL(access(html, F_OK), 0);
    }
}

/* ---- fuzzer regressions ---------------------------------------------------------------------- */

/* A run-* input of fuzz_run (tests/fuzz/fuzz_run.c): its config and trace (fz_split) run
 * through run_once as the harness runs them, --check and every output on /dev/null; the run
 * must end cleanly or with an input error, never an internal one (a broken invariant). */
static void fuzz_replay_run(const char *path)
{
    FILE *f = fopen(path, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    static uint8_t data[1 << 16];
    size_t size = fread(data, 1, sizeof data, f);
    fclose(f);
    CU_ASSERT_FATAL(size >= 1);
    size_t ci, nbody;
    int lenient;
    const char *head, *body;
    fz_split(data, size, &ci, &lenient, &head, &body, &nbody);
    const char *cfg = tu_write("fuzz_run.yaml", fz_configs[ci]);
    static char text[(1 << 16) + 32];
    size_t nh = strlen(head);
    memcpy(text, head, nh);
    memcpy(text + nh, body, nbody);
    const char *tr = bi_write("fuzz_run.trace", text, nh + nbody);
    FILE *devnull = fopen("/dev/null", "w");
    run_spec sp = {.config = cfg, .trace = tr, .check = 1, .lenient = lenient,
                   .json = "/dev/null", .placements = "/dev/null", .log = "/dev/null",
                   .text = devnull, .chrome_trace = "/dev/null",
                   .pytorch_snapshot = "/dev/null"};
    am_error err = {0};
    if (run_once(&sp, NULL, NULL, NULL, &err) != 0) {
        if (err.status == AM_EINTERNAL)
            fprintf(stderr, "%s: %s\n", path, err.msg);
        CU_ASSERT(err.msg[0] != 0 && err.status != AM_OK && err.status != AM_EINTERNAL);
    }
    fclose(devnull);
}

/* Every file under tests/fuzz/regress/ went through a reader or a run once and crashed it.
 * Replay each in-process (so `make asan` checks memory): a config (*.yaml) through cfg_load,
 * a run-* input of fuzz_run through run_once (fuzz_replay_run), anything else through
 * trace_open + trace_next to the end; each must end cleanly or with a message. */
static void fuzz_regressions(void)
{
    char dirpath[1024];
    snprintf(dirpath, sizeof dirpath, "%s/tests/fuzz/regress", tu_top());
    DIR *d = opendir(dirpath);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    static const char *const levels[] = {"hbm", "host", "vmem", "smem", "accumulator"};
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dirpath, e->d_name);
        am_error err = {0};
        size_t nl = strlen(e->d_name);
        if (strncmp(e->d_name, "run-", 4) == 0) {
            fuzz_replay_run(path);
        } else if (nl > 5 && strcmp(e->d_name + nl - 5, ".yaml") == 0) {
            am_config *cfg = NULL;
            if (cfg_load(&cfg, path, NULL, 0, &err) == 0) {
                FILE *devnull = fopen("/dev/null", "w");
                cfg_write_yaml(cfg, devnull);
                fclose(devnull);
                cfg_free(cfg);
            } else {
                CU_ASSERT(err.msg[0] != 0);
            }
        } else {
            trace_opts o = {.level_names = levels, .nlevels = 5};
            trace *t = NULL;
            if (trace_open(&t, path, &o, &err) == 0) {
                tr_event ev;
                int r;
                while ((r = trace_next(t, &ev, &err)) == 1)
                    ;
                if (r < 0)
                    CU_ASSERT(err.msg[0] != 0 && strstr(err.msg, e->d_name) != NULL);
                trace_close(t);
            } else {
                CU_ASSERT(err.msg[0] != 0);
            }
        }
        n++;
    }
    closedir(d);
    CU_ASSERT(n > 0);
}

/* ---- the suite ------------------------------------------------------------------------------ */

void suite_badinput(void)
{
    TU_SUITE("badinput",
             /* native trace: files and headers */
             {"trace: empty file", t_empty},
             {"trace: only blank lines and comments", t_blank},
             {"trace: binary garbage", t_garbage},
             {"trace: broken gzip", t_gzip_garbage},
             {"trace: gzip breaking while the format is detected", t_gzip_cut_detect},
             {"trace: unsupported version", t_version},
             {"trace: missing version", t_noversion},
             {"trace: unknown header field", t_header_field},
             {"trace: header skipped not a count", t_header_skipped},
             {"trace: header skipped twice", t_header_skipped_dup},
             {"trace: header validated not 0 or 1", t_header_validated},
             {"trace: header time_unit without unit", t_header_unit},
             /* native trace: fields */
             {"trace: truncated last line", t_truncated},
             {"trace: missing BYTES", t_missing_bytes},
             {"trace: unknown op", t_unknown_op},
             {"trace: extra positional field", t_extra_field},
             {"trace: unknown key", t_unknown_key},
             {"trace: duplicate key", t_dup_key},
             {"trace: empty value", t_empty_value},
             {"trace: negative size", t_size_negative},
             {"trace: non-numeric size", t_size_nan},
             {"trace: NUL byte in a size", t_nul_size},
             {"trace: line starting with a NUL byte", t_nul_line},
             {"trace: NUL byte in a comment", t_nul_comment},
             {"trace: NUL byte in the header", t_nul_header},
             {"trace: NUL byte starting the first line", t_nul_first},
             {"trace: NUL byte alone after a blank line", t_nul_blank},
             {"trace: size overflows 64 bits", t_size_overflow},
             {"trace: size with unit overflows", t_size_overflow_unit},
             {"trace: unknown size unit", t_size_unit},
             {"trace: a fraction of a byte", t_size_fraction},
             {"trace: a tiny fraction of a byte", t_size_fraction_tiny},
             {"trace: non-numeric id", t_id_nan},
             {"trace: negative id", t_id_negative},
             {"trace: id overflows 64 bits", t_id_overflow},
             {"trace: negative time", t_time_negative},
             {"trace: non-numeric time", t_time_nan},
             {"trace: time overflows 2^64 ps", t_time_overflow},
             {"trace: at= overflows", t_at_overflow},
             {"trace: time going backwards", t_time_backwards},
             {"csv: a time of exactly 2^64 - 1 ps", c_time_reserved},
             {"csv: inclusive upper + 1 overflows", c_time_inclusive},
             {"csv: a skipped row's ticks out of range", c_time_skipped_row},
             {"binary: a time of exactly 2^64 - 1 ps", b_time_reserved},
             {"binary: a name with a space", b_name_space},
             {"binary: a C1 control character in a name", b_name_c1},
             {"binary: an extension the kind does not take", b_ext_kind},
             {"binary: an empty level name", b_level_empty},
             {"binary: a header cut inside a level name", b_header_cut},
             {"binary: a level name with a NUL byte", b_level_nul},
             {"binary: a C1 control character in a level name", b_level_c1},
             {"binary: header's count of skipped rows overlong", b_skipped_count},
             {"binary: end record count, no data records", b_end_count0},
             {"binary: end record count too large", b_end_count},
             {"binary: end record count of one, singular", b_end_count1},
             {"binary: no end record after one record, singular", b_no_end1},
             {"binary: a transfer after LEVEL 4096", b_transfer_src_default},
             {"binary: a transfer's DST of 4096", b_transfer_dst_default},
             {"binary: unknown header flag", b_flags},
             {"binary: reserved header bytes not 0", b_reserved},
             {"binary: gzip data cut after the end record", b_gzip_cut},
             {"binary: gzip data cut inside the header", b_gzip_cut_header},
             {"binary: a bad level index names one level in the singular", b_level_index1},
             {"trace: addr= of 2^64 - 1 (means none)", t_addr_none},
             {"trace: transfer id= of 2^64 - 1 (means none)", t_id_none},
             {"csv: offset of 2^64 - 1 (means none)", c_offset_none},
             {"binary: recorded address of 2^64 - 1 (means none)", b_addr_none},
             {"trace: alloc addr= + BYTES past 2^64 - 1", t_alloc_range_wraps},
             {"trace: segment_alloc ADDR + BYTES past 2^64 - 1", t_segment_range_wraps},
             {"csv: offset + size past 2^64 - 1", c_offset_range_wraps},
             {"binary: alloc addr= + BYTES past 2^64 - 1", b_alloc_range_wraps},
             {"binary: segment_free ADDR + BYTES past 2^64 - 1", b_segment_range_wraps},
             {"trace: time_unit of a fraction of a picosecond", t_unit_frac},
             {"trace: time_unit twice", t_unit_dup},
             {"trace: a time of a fraction of a picosecond", t_time_subps},
             {"trace: a sign on a size", t_size_plus},
             {"trace: a carriage return inside a line", t_cr_inside},
             {"yaml: trace.time_unit of a fraction of a picosecond", y_time_unit_frac},
             {"engine: times adding up past the clock (computes)", t_clock_compute},
             {"engine: times adding up past the clock (a transfer)", t_clock_transfer},
             {"engine: times adding up past the clock (at the end)", t_clock_drain},
             {"engine: defragmentation copies adding up past the clock", t_clock_defrag},
             {"trace: non-numeric stream", t_stream_nan},
             {"trace: stream out of range", t_stream_overflow},
             {"trace: unknown memory level", t_unknown_level},
             {"trace: unknown level in transfer", t_unknown_level_transfer},
             {"trace: defrag of an unknown level", t_defrag_unknown_level},
             {"trace: defrag with a positional field", t_defrag_extra_field},
             {"trace: defrag with a stream", t_defrag_stream},
             {"binary: a defrag record with a stream", b_defrag_stream},
             {"trace: control character in name", t_name_control},
             {"trace: C1 control character in name", t_name_c1},
             {"trace: name too long", t_name_too_long},
             {"trace: a minus sign on a zero size or time", t_minus_zero},
             {"trace: line too long", t_line_too_long},
             {"trace: line too long before or at the header", t_line_too_long_first},
             {"trace: long binary garbage without a newline", t_garbage_long},
             /* native trace: engine rules */
             {"engine: duplicate live id", t_duplicate_id},
             {"engine: free of unknown id", t_free_unknown},
             {"engine: double free", t_double_free},
             {"engine: free_completed of unknown id", t_free_completed_unknown},
             {"engine: free_completed without free_requested", t_free_completed_unrequested},
             {"engine: free_completed without free_requested, out of memory",
              t_free_completed_unrequested_oom},
             {"engine: free_completed without free_requested, waiting for frees",
              t_free_completed_unrequested_waiting},
             {"engine: free_completed without free_requested, spilled",
              t_free_completed_unrequested_spilled},
             {"engine: second free_requested of an out-of-memory id", t_free_requested_twice_oom},
             {"engine: duplicate id whose allocation failed, before its free", t_duplicate_id_oom},
             {"engine: duplicate id whose wait for frees expired, before its free",
              t_duplicate_id_expired},
             {"engine: allocation of 0 bytes", t_zero_bytes},
             {"engine: oom of 0 bytes", t_oom_zero_bytes},
             {"engine: transfer of an unknown id", t_transfer_unknown_id},
             {"engine: transfer to= an unknown id", t_transfer_unknown_to},
             {"engine: transfer to= a buffer on another level than DST", t_transfer_to_other_level},
             {"engine: transfer to= an out-of-memory buffer on another level",
              t_transfer_to_other_level_oom},
             {"trace: transfer with into= and to=", t_transfer_into_and_to},
             {"engine: wait on unrecorded event", t_wait_unrecorded},
             {"engine: transfer without link", t_no_link},
             {"engine: transfer of 2^64 bytes or more after its granule",
              t_transfer_granule_overflow},
             {"engine: stream above the engine's limit", t_stream_limit},
             {"engine: more than 1024 distinct streams", t_distinct_streams},
             /* lifetime CSV */
             {"csv: bad header", c_header},
             {"csv: 'amsim skipped=' not a count", c_skipped},
             {"csv: 'amsim skipped=' twice", c_skipped_twice},
             {"csv: 'amsim skipped=' plus the rows skipped past 2^64 - 1", c_skipped_total},
             {"csv: row starting with a NUL byte", c_nul_row},
             {"csv: header starting with a NUL byte", c_nul_header},
             {"csv: NUL byte in a field", c_nul_field},
             {"csv: missing column", c_missing_column},
             {"csv: truncated row", c_truncated},
             {"csv: extra column", c_extra_column},
             {"csv: empty value", c_empty_value},
             {"csv: non-numeric value", c_nan},
             {"csv: negative id", c_negative},
             {"csv: size overflows 64 bits", c_overflow},
             {"csv: a long bad value echoed by its start, whole characters, and '...'", c_echo_utf8},
             {"csv: a long bad value cut before an escape, not inside it", c_echo_escape},
             {"csv: a long bad skipped count echoed by its start and '...'", c_echo_skipped},
             {"trace: a long path cut between whole escapes", t_path_escape_cut},
             {"csv: time overflows 2^64 ps", c_time_overflow},
             {"csv: duplicate id", c_duplicate_id},
             {"csv: a duplicate id before a bad value is reported first", c_duplicate_before_bad},
             {"csv: ... with ids in order up to it", c_duplicate_ordered_before_bad},
             {"csv: a bad value before a duplicate id is reported first", c_bad_before_duplicate},
             {"csv: carriage return inside a row", c_cr_inside},
             {"csv: carriage return inside a comment", c_cr_comment},
             {"csv: text id", c_text_id},
             {"csv: line too long", c_line_too_long},
             /* pickles */
             {"pickle: GLOBAL", p_global},
             {"pickle: STACK_GLOBAL", p_stack_global},
             {"pickle: REDUCE", p_reduce},
             {"pickle: top level is a list", p_toplevel_list},
             {"pickle: no device_traces", p_no_traces},
             {"pickle: amsim_start_traces not a list", p_start_traces},
             {"pickle: time_us more than 2^64 ps after the first", p_time_overflow},
             {"pickle: a negative time_us", p_time_negative},
             {"pickle: amsim_sub_us_ps of a microsecond or more", p_sub_us_range},
             {"pickle: amsim_sub_us_ps without time_us", p_sub_us_alone},
             {"pickle: amsim_end_ps below 0", p_end_negative},
             {"pickle: amsim_recovery_alloc whose from is no address", p_recovery_from},
             {"pickle: amsim_recovery_free at the address of none", p_recovery_free_none},
             {"pickle: amsim_recovery_alloc past 2^64 - 1", p_recovery_alloc_past_end},
             {"pickle: amsim_recovery_alloc from a range past 2^64 - 1", p_recovery_from_past_end},
             {"pickle: amsim_recovery_free where no buffer is", p_recovery_free_nothing},
             {"pickle: amsim_recovery_alloc over a live buffer", p_recovery_alloc_over_live},
             {"pickle: amsim_start_traces allocs that overlap", p_start_alloc_overlap},
             {"pickle: an alloc over a live buffer", p_alloc_over_live},
             {"pickle: allocator_settings not a dict", p_settings_list},
             {"pickle: allocator_settings expandable_segments an int", p_settings_expandable_int},
             {"pickle: allocator_settings max_split_size None", p_settings_max_split_none},
             {"pickle: allocator_settings roundup_power2_divisions a list",
              p_settings_divisions_list},
             {"pickle: allocator_settings roundup_power2_divisions value a str",
              p_settings_divisions_str},
             {"pickle: allocator_settings garbage_collection_threshold a str", p_settings_gc_str},
             {"pickle: allocator_settings garbage_collection_threshold 2", p_settings_gc_range},
             {"pickle: allocator_settings garbage_collection_threshold nan", p_settings_gc_nan},
             {"pickle: a bool stream", p_bool_stream},
             {"pickle: a bool device", p_bool_device},
             {"pickle: a segment on device -1", p_seg_device_negative},
             {"pickle: a segment on device 1025, past --device's 1024", p_seg_device_1025},
             {"pickle: a block state PyTorch does not write", p_block_state},
             {"pickle: a segment type PyTorch does not write", p_segment_type},
             {"pickle: an address of 2^64 - 1 (none)", p_addr_none},
             {"pickle: block sizes whose sum wraps past 2^64", p_block_sum_wraps},
             {"pickle: a segment whose address + total_size passes 2^64", p_segment_end_wraps},
             {"pickle: segments of one device that overlap", p_segments_overlap},
             {"pickle: huge declared length (64-bit)", p_huge_length},
             {"pickle: huge declared length (32-bit)", p_huge_length32},
             {"pickle: truncated", p_truncated},
             {"pickle: unsupported protocol", p_protocol},
             {"pickle: recursion bomb (nesting)", p_nesting},
             {"pickle: nesting built through the memo", p_nesting_chain},
             {"pickle: too many open MARKs", p_marks},
             /* YAML */
             {"yaml: syntax error", y_syntax},
             {"yaml: a quoted ~ or null where a map goes", y_quoted_null},
             {"yaml: a block scalar ~ or null where a map goes", y_block_null},
             {"yaml: a sweep's axis value ~ or null keeps its reading", y_axis_null},
             {"yaml: preset_merged not a boolean", y_preset_merged_value},
             {"yaml: preset_merged without a device", y_preset_merged_no_device},
             {"yaml: another device over preset_merged: true, by --set or a sweep's axis",
              y_preset_merged_other_device},
             {"yaml: preset_merged: true by --set or set: over a file without it",
              y_preset_merged_by_set},
             {"yaml: preset_merged inside a device preset", y_preset_says_merged},
             {"yaml: preset_merged: true without memories", y_preset_merged_no_memories},
             {"yaml: a policy refusing its options, at the value", y_policy_refuses},
             {"yaml: a transfer guard no memory kind triggers", y_guard_no_host_kind},
             {"yaml: a link energy_per_byte above 1e12 pJ", y_energy_too_large},
             {"yaml: a refused energy_per_byte as written", y_energy_as_written},
             {"yaml: the same guard given by --set", y_guard_no_host_kind_set},
             {"yaml: a policy refusing a --set value names the --set", y_policy_refuses_set},
             {"yaml: a minus sign on a zero number (-0)", y_minus_zero},
             {"yaml: a nonzero real below the smallest double, 1e-400 or a plain decimal",
              y_real_underflow},
             {"gen: a nonzero real below the smallest double as a plain decimal",
              gen_real_underflow},
             {"gen: a clock or a sum of durations at 2^63 ps or more", gen_clock_past_2_63},
             {"yaml: a granularity above the capacity (platform, cuda_async)",
              y_granularity_above_capacity},
             {"yaml: --policy checks the rules of the policy that runs", y_switched_policy_rule},
             {"yaml: check refuses what every run refuses (capacity rules)",
              y_check_agrees_with_run},
             {"yaml: a preset's value a policy refuses, at the --policy", y_policy_refuses_preset},
             {"yaml: offline planner optimal without a proof in its budget", y_offline_unproven},
             {"yaml: offline planner optimal without a proof in its time limit",
              y_offline_unproven_time},
             {"yaml: an integer option past 2^64 - 1", y_uint_too_large},
             {"yaml: control character (line and column from libyaml's offset)", y_control},
             {"yaml: a refused byte's column in characters, after a BOM, CR line breaks; a raw "
              "U+0085", y_control_position},
             {"a name quoted in a message: control bytes as \\xHH, tab and newline too",
              names_escaped},
             {"stats, report: a NUL byte or a read error in a results table",
              results_table_unreadable},
             {"batch --merge: a matrix.tsv's run count, a line past its runs",
              matrix_count_damaged},
             {"batch: a control byte (a CRLF line end) in a matrix.tsv line",
              matrix_line_control},
             {"stats: a quote that never closes in a results table", results_table_open_quote},
             {"batch --merge: a result.txt that gives a key twice", result_duplicate_key},
             {"batch --merge: a result.txt cut inside its first line", result_first_line_cut},
             {"a word typed on the command line, echoed: control bytes as \\xHH, newline too",
              command_messages_escaped},
             {"yaml: control character from a quoted scalar's escape", y_control_escape},
             {"yaml: bad indentation", y_indent},
             {"yaml: tab", y_tab},
             {"yaml: unknown key", y_unknown_key},
             {"yaml: unknown top-level key", y_unknown_top},
             {"yaml: list for a scalar", y_type_list},
             {"yaml: text for an integer", y_type_int},
             {"yaml: text for a boolean", y_type_bool},
             {"yaml: another policy's key with a bad type", y_other_policy_type},
             {"yaml: another policy's key out of range", y_other_policy_range},
             {"yaml: a policy's rule on a value (power-of-two alignment)", y_policy_rule},
             {"yaml: caching's max_split_size at or below 20 MiB", y_caching_max_split},
             {"yaml: caching's max_non_split_rounding below 20 MiB", y_caching_non_split},
             {"yaml: caching's garbage_collection_threshold of 1", y_caching_gc_threshold},
             {"yaml: caching's roundup_power2_divisions above 2^30", y_caching_divisions},
             {"yaml: caching's roundup_power2_divisions item no power of two",
              y_caching_divisions_item},
             {"yaml: bad size unit", y_bad_unit},
             {"yaml: bad bandwidth unit", y_bad_bandwidth},
             {"yaml: a time that rounds to 0 ps", y_time_rounds_to_zero},
             {"yaml: a timeline interval that rounds to 0 ps", y_interval_rounds_to_zero},
             {"yaml: a bandwidth that rounds to 0 B/s", y_bandwidth_rounds_to_zero},
             {"yaml: bandwidth x efficiency below 1e-6 B/s", y_link_rate_too_low},
             {"yaml: transfer_granule not a power of two", y_transfer_granule},
             {"yaml: negative size", y_negative_size},
             {"yaml: size overflows", y_overflow_size},
             {"yaml: fraction out of range", y_fraction},
             {"yaml: alias bomb", y_alias_bomb},
             {"yaml: a tag", y_tag},
             {"yaml: deep flow nesting", y_deep_flow},
             {"yaml: deep block nesting", y_deep_block},
             {"yaml: unknown device", y_unknown_device},
             {"yaml: unknown policy", y_unknown_policy},
             {"yaml: unknown memory in link", y_unknown_memory},
             {"yaml: a --set through a misspelt memory or link", y_set_unknown_name},
             {"yaml: unknown spill host, with the closest memory", y_unknown_spill_host},
             {"yaml: defrag.every of 0 under any trigger", y_defrag_every_zero},
             {"yaml: unknown default memory", y_default_memory},
             {"yaml: unsupported version", y_version},
             {"yaml: version a list or a map, in a file and by --set", y_version_not_scalar},
             {"yaml: missing version", y_no_version},
             {"yaml: missing version beside a device preset", y_no_version_device},
             {"yaml: missing memories", y_no_memories},
             {"yaml: duplicate key", y_duplicate_key},
             {"yaml: two documents", y_two_documents},
             {"yaml: empty file", y_empty},
             {"yaml: blank or comment-only file, also as a sweep's base", y_blank},
             {"yaml: binary garbage", y_scalar},
             {"a message too long keeps its position and reason (long value, name, path)",
              y_long_message},
             /* paths */
             {"path: config is a directory", path_config_dir},
             {"path: trace is a directory", path_trace_dir},
             {"path: config unreadable", path_config_unreadable},
             {"path: trace unreadable", path_trace_unreadable},
             {"path: trace from a stream", path_trace_stream},
             {"path: an input '-' is standard input, not a file named '-'", path_dash_is_stdin},
             {"convert: a control byte in --to, a second input or --device is escaped",
              convert_args_escaped},
             {"text: an expectation's or a results table's line over 1 MiB, an expectation "
              "over 64 MiB", text_line_limits},
             {"path: check of a FIFO, a device or a pipe", path_check_stream},
             {"path: an expectation that is a FIFO or a directory", path_expect_stream},
             {"path: a batch folder's lock file a FIFO or a directory", path_batch_lock_stream},
             {"path: report of a run's timeline.csv that is a FIFO", path_report_timeline_fifo},
             {"report: a damaged run timeline.csv refused at its line and column",
              report_timeline_damaged},
             {"path: a batch folder's runs a regular file (batch, --merge)", path_batch_runs_file},
             {"path: batch -o - and batch --merge -o - (no folder '-')", batch_out_dash},
             /* sweeps */
             {"sweep: a matrix over 10 million runs, at the axis", sweep_matrix_too_large},
             {"sweep: a list or map where a value or key goes; an empty PATH", sweep_not_scalar},
             {"sweep: a set: or axes: PATH holding '='", sweep_path_with_eq},
             {"sweep: an unknown policy at its item of policies:", sweep_policy_at_item},
             {"sweep: an unknown key of set: or axes: at the key", sweep_key_at_key},
             {"sweep: seeds, device and range bounds in a config number's form",
              sweep_number_form},
             {"sweep: seeds read as config integers; a config integer not whole",
              sweep_seeds_as_integers},
             {"sweep: an exclusion value in a number form the sweep refuses",
              sweep_exclusion_number_form},
             {"sweep: an axis value in a number form the config refuses, before repeats",
              sweep_axis_number_form},
             {"sweep: policies: with an axis of the policy of a level an axis makes default",
              sweep_chosen_level_policy},
             {"sweep: two set: entries giving one setting", sweep_set_twice},
             {"cli: --device in a config number's form", cli_device_number_form},
             {"cli: mincap --granularity in a config size's form", cli_granularity_number_form},
             {"cli: batch -j and gen's integers in a config number's form",
              cli_jobs_seed_number_form},
             {"sweep: a base: missing or a folder, at its value", sweep_base_unreadable},
             {"sweep: a base: that is a sweep, at its value; run -c SWEEP", sweep_base_is_sweep},
             {"sweep: an expectations: that is a file, at its value", sweep_expect_not_folder},
             {"expectation: a signed tolerance", expect_tolerance_sign},
             {"sweep: a FIFO or a device as a trace, named or by glob", sweep_trace_stream},
             {"sweep: a trace name with a control byte", sweep_trace_name_tab},
             {"sweep: an unknown generate.kind, at its line:column", sweep_gen_kind_unknown},
             {"sweep: --help or -h in generate.args, at the item", sweep_gen_args_help},
             {"sweep: check reads its traces as the runs do", sweep_check_reads_traces},
             {"outputs: a FIFO and a symbolic link are written through", outputs_written_through},
             {"outputs: a looping symbolic link is an error, a dangling chain creates its end",
              outputs_symlink_loop_and_dangling},
             {"outputs: -o DIR gets its whole set next to named files", outputs_dir_and_paths},
             {"outputs: two naming one file", outputs_same_file},
             {"outputs: -o DIR's file hard-linked to a named output", outputs_dir_hard_link},
             {"outputs: one naming an input", outputs_naming_an_input},
             {"outputs: '-' on an input (the file a standard stream holds)",
              outputs_stream_on_an_input},
             {"outputs: one naming a file read (preset, base, trace, table)",
              outputs_naming_a_read_file},
             {"report: results.csv without the batch's columns, or a metric not a number",
              report_bad_table},
             /* behaviour */
             {"--lenient counts an unknown free", lenient_unknown_free},
             {"check counts skipped rows", check_counts_skipped_rows},
             {"check reads a trace as the run does", check_reads_as_run},
             {"check applies the rules run enforces on ids", check_applies_run_rules},
             {"check tells configs from traces by content", check_tells_configs_from_traces},
             {"failing runs leave no outputs or temporaries", no_partial_outputs},
             {"a refused -o DIR is not left behind", refused_outdir_not_created},
             {"outputs: standard output that cannot be written", stdout_write_failure},
             {"--check passes on the shipped traces", check_shipped_traces},
             {"--check stops at the first violation", check_stops_at_first_violation},
             {"SIGTERM removes temporaries", sigterm_removes_temporaries},
             {"the progress line is cleared before an error", progress_cleared_before_error},
             {"fuzz regressions replay cleanly", fuzz_regressions});
}
