/* config.c - YAML configs -> validated config structs (schema in config.h).
 *
 * Four passes, each leaving file:line:column on every node so that any later error can point at
 * the text that caused it:
 *   1. parse: libyaml events -> a tree of cfg_node (maps, sequences, scalars as text). Anchors
 *      and aliases (alias bombs), nesting deeper than CFG_MAX_DEPTH, duplicate or non-scalar
 *      keys and multiple documents are refused here;
 *   2. --set PATH=VALUE overrides are applied to the user's tree (so `--set device=X` works);
 *   3. `device: NAME` merges configs/devices/NAME.yaml underneath: the preset supplies the key
 *      order, the user's keys replace it key by key (maps recursively, scalars and sequences
 *      whole), user-only keys are appended; not under `preset_merged: true`, which an
 *      effective config writes, as it holds its preset already;
 *   4. validation walks the schema, converts values through units.c and option tables (opts.h),
 *      and appends every missing default to the tree in schema order, so that the tree is the
 *      full effective config that cfg_write_yaml prints.
 * Scalars are kept as text; nothing depends on YAML 1.1 typing or on the C locale. */
#include "config.h"

#include <dirent.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "units.h"

#ifndef AMSIM_SOURCE_DIR
#define AMSIM_SOURCE_DIR "."
#endif

#define CFG_MAX_DEPTH 64                /* nested maps/sequences accepted in a file */
#define CFG_MAX_FILE (64u << 20)        /* bytes of YAML read from one file */
#define CFG_PATH_MAX 512                /* key paths in messages */
#define CFG_DEFAULT_FILE "(default)"    /* file name of nodes added as defaults */

/* File names referenced by nodes ("interned": one copy each, freed with the config). */
typedef struct cfg_pool {
    char **s;
    size_t n, cap;
} cfg_pool;

/* What cfg_load hands out: the public struct first, so cfg_free can find the rest. */
/* One warning as node_warn makes it: the text, and where it points (file NULL when it points
 * at no line of a file: a --set's, or the config's own). Joined into pub.warnings, sorted,
 * once the config is built (see join_warnings). */
typedef struct cfg_warning {
    char *text; /* "FILE:LINE:COL: warning: ...", no newline */
    /* the path of the setting that keeps the warned key unread (memories.hbm.defrag.trigger),
     * NULL for none: a sweep may vary it in an axis (am_config.warning_deciders) */
    char *decider;
    const char *file;
    unsigned long line, col;
} cfg_warning;

typedef struct cfg_owner {
    am_config pub;
    cfg_pool pool;
    cfg_warning *warn; /* the warnings so far, in the order they were made */
    size_t nwarn, warn_cap;
    /* cfg_load_switched without a policy: the level whose policy the caller switches later
     * (each switched load checks its own policy's rules), "" for none */
    char switching[CFG_NAME_MAX];
    /* what the file itself says, before any override (strings in the pool): its device (NULL:
     * none) and each memory's policy (check_merged_device, drop_switched_keys) */
    const char *file_device;
    int nfile_levels;
    const char *file_level[CFG_MAX_LEVELS], *file_policy[CFG_MAX_LEVELS];
    int preset_merged; /* the config said preset_merged: true: no preset was loaded */
    int file_merged;   /* the file itself says preset_merged: true (take_preset_merged) */
} cfg_owner;

/* The pool's copy of s (made on first use). Linear search: a config has a handful of files. */
static const char *pool_intern(cfg_pool *p, const char *s)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->s[i], s) == 0)
            return p->s[i];
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 8;
        p->s = am_realloc(p->s, p->cap * sizeof *p->s);
    }
    return p->s[p->n++] = am_strdup(s);
}

/* Free every string; nodes pointing into the pool must be gone first. */
static void pool_free(cfg_pool *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->s[i]);
    free(p->s);
    p->s = NULL;
    p->n = p->cap = 0;
}

/* Free the warnings node_warn kept (join_warnings has copied them, or the load failed). */
static void free_warnings(cfg_owner *o)
{
    for (size_t i = 0; i < o->nwarn; i++) {
        free(o->warn[i].text);
        free(o->warn[i].decider);
    }
    free(o->warn);
    o->warn = NULL;
    o->nwarn = o->warn_cap = 0;
}

/* ---- nodes ---------------------------------------------------------------------------- */

/* A detached node with no key, value or children; file must be interned or static. */
static cfg_node *node_new(cfg_kind kind, const char *file, unsigned long line, unsigned long col)
{
    cfg_node *n = am_calloc(1, sizeof *n);
    n->kind = kind;
    n->file = file;
    n->line = line;
    n->col = col;
    return n;
}

/* A scalar made by amsim (default or --set): it has no position (line 0). */
static cfg_node *node_scalar(const char *value, const char *file)
{
    cfg_node *n = node_new(CFG_SCALAR, file, 0, 0);
    n->value = am_strdup(value);
    return n;
}

/* Free n and everything under it (not its siblings). */
static void node_free(cfg_node *n)
{
    if (!n)
        return;
    cfg_node *c = n->child;
    while (c) {
        cfg_node *next = c->next;
        node_free(c);
        c = next;
    }
    free(n->value);
    free(n->key);
    free(n);
}

/* The child of map with this key, or NULL (also when map is not a map). */
static cfg_node *map_get(const cfg_node *map, const char *key)
{
    if (!map || map->kind != CFG_MAP)
        return NULL;
    for (cfg_node *c = map->child; c; c = c->next)
        if (c->key && strcmp(c->key, key) == 0)
            return c;
    return NULL;
}

/* Children keep file order: append at the tail. Only for maps and lists amsim makes (a
 * schema's defaults, a default list): tree_parse and merge_maps keep their own tail pointers,
 * as a file's lists can be long. */
static void node_append(cfg_node *parent, cfg_node *child)
{
    cfg_node **pp = &parent->child;
    while (*pp)
        pp = &(*pp)->next;
    *pp = child;
}

/* Append `key: child` to map. */
static cfg_node *map_add(cfg_node *map, const char *key, cfg_node *child)
{
    child->key = am_strdup(key);
    node_append(map, child);
    return child;
}

/* Give n (and its subtree) a new origin: used for --set values (line 0: no position) and for
 * overrides written in another file (a sweep's set: and axes: the value's position). */
static void node_relocate(cfg_node *n, const char *file, unsigned long line, unsigned long col)
{
    for (; n; n = n->next) {
        n->file = file;
        n->line = line;
        n->col = col;
        node_relocate(n->child, file, line, col);
    }
}

/* The nodes under n (not n itself), in the order place_inner gives them positions. */
static size_t node_count_inner(const cfg_node *n)
{
    size_t k = 0;
    for (const cfg_node *c = n->child; c; c = c->next)
        k += 1 + node_count_inner(c);
    return k;
}

/* Place the nodes under n at pos[*i], pos[*i + 1], ... (node_count_inner's order). */
static void place_inner(cfg_node *n, const cfg_pos *pos, size_t *i)
{
    for (cfg_node *c = n->child; c; c = c->next) {
        c->line = pos[*i].line;
        c->col = pos[*i].col;
        ++*i;
        place_inner(c, pos, i);
    }
}

/* YAML's null: nothing, ~ or null (any of YAML's spellings), plain; and '' (the README's
 * rule: an empty value is null however written). Only a plain scalar can be null in YAML: a
 * quoted "~" or 'null', or a block scalar (|- or >-) holding one, is a string. Until 2026-11-28
 * `allocator: "~"` was read as null, an empty map, while `allocator: none` was refused
 * ("expected a map, not a scalar"); until 2026-11-28 (later) a block scalar still was. */
int cfg_null_word(const char *v)
{
    return !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") || !strcmp(v, "NULL");
}

static int null_scalar(const cfg_node *n)
{
    const char *v = n->value;
    return !v[0] || (!n->nonplain && cfg_null_word(v));
}

/* A null ("key:" with nothing after it, "key: ~", "key: null", "key: ''") where a map is
 * expected is an empty map (until 2026-11-27 `memories:` was one but `memories: ~` refused). */
static int as_map(cfg_node *n)
{
    if (n->kind == CFG_SCALAR && n->value && null_scalar(n)) {
        free(n->value);
        n->value = NULL;
        n->kind = CFG_MAP;
    }
    return n->kind == CFG_MAP;
}

/* The word messages use for a node kind ("expected a map, not a list"). */
static const char *kind_name(cfg_kind k)
{
    return k == CFG_MAP ? "map" : k == CFG_SEQ ? "list" : "scalar";
}

/* Entries of a map or items of a list. */
static size_t count_children(const cfg_node *n)
{
    size_t k = 0;
    for (const cfg_node *c = n->child; c; c = c->next)
        k++;
    return k;
}

/* Report an error at a node: "file:line:col: msg", or "ORIGIN: msg" for nodes made by --set
 * and defaults (line 0). */
__attribute__((format(printf, 3, 4)))
static int node_fail(am_error *e, const cfg_node *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (n && n->line) { /* whole: am_fail_at keeps the position and the end of a long one */
        am_vfail_at(e, n->file, n->line, n->col, fmt, ap);
        va_end(ap);
        return -1;
    }
    char msg[sizeof e->msg];
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n && n->file)
        return am_fail(e, AM_EINPUT, "%s: %s", n->file, msg);
    return am_fail(e, AM_EINPUT, "%s", msg);
}

/* Add a warning at a node, placed as node_fail places errors. It is kept with its position
 * so that join_warnings can sort without reading the position back out of the text. decider:
 * the path of the setting that makes the warned key unread (cfg_warning.decider), or NULL. */
__attribute__((format(printf, 4, 5)))
static void node_warn(am_config *c, const cfg_node *n, const char *decider, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    am_error w = {0};
    node_fail(&w, n, "warning: %s", msg);
    cfg_owner *o = (cfg_owner *)c;
    if (o->nwarn == o->warn_cap) {
        o->warn_cap = o->warn_cap ? 2 * o->warn_cap : 8;
        o->warn = am_realloc(o->warn, o->warn_cap * sizeof *o->warn);
    }
    /* only "FILE:LINE:COL:" text has a place in a file to sort by */
    int placed = n && n->line && n->col;
    o->warn[o->nwarn++] = (cfg_warning){.text = am_strdup(w.msg),
                                        .decider = decider ? am_strdup(decider) : NULL,
                                        .file = placed ? n->file : NULL,
                                        .line = placed ? n->line : 0,
                                        .col = placed ? n->col : 0};
}

/* "a.b" + "c" -> "a.b.c" (truncated silently: only used in messages). */
static void join_path(char *out, size_t n, const char *parent, const char *key)
{
    int r = parent && *parent ? snprintf(out, n, "%s.%s", parent, key)
                              : snprintf(out, n, "%s", key);
    if (r < 0)
        out[0] = 0;
}

/* ---- pass 1: YAML text -> tree ------------------------------------------------------- */

/* The entries of one open map by key, to find a duplicate in constant time (until 2026-11-27
 * each key was compared with every earlier one: 200,000 keys took 224 s). Open addressing over
 * the map's own entries, grown at half full; NULL slots are free. */
typedef struct keyset {
    cfg_node **slot;
    size_t cap, n;
} keyset;

/* FNV-1a: keys are short text; the table's size is a power of two. */
static uint64_t key_hash(const char *s)
{
    uint64_t h = 14695981039346656037u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return am_hash_u64(h);
}

/* The entry of ks with n's key, or NULL after adding n. */
static cfg_node *keyset_add(keyset *ks, cfg_node *n)
{
    if (2 * (ks->n + 1) > ks->cap) {
        keyset grown = {am_calloc(ks->cap ? ks->cap * 2 : 16, sizeof *grown.slot),
                        ks->cap ? ks->cap * 2 : 16, 0};
        for (size_t i = 0; i < ks->cap; i++)
            if (ks->slot[i])
                keyset_add(&grown, ks->slot[i]);
        free(ks->slot);
        *ks = grown;
    }
    size_t mask = ks->cap - 1, i = (size_t)key_hash(n->key) & mask;
    for (; ks->slot[i]; i = (i + 1) & mask)
        if (strcmp(ks->slot[i]->key, n->key) == 0)
            return ks->slot[i];
    ks->slot[i] = n;
    ks->n++;
    return NULL;
}

typedef struct frame {
    cfg_node *node;           /* open map or sequence */
    cfg_node *last;           /* its last child, where the next is appended (constant time) */
    keyset keys;              /* map: its entries by key */
    char *key;                /* map: key read, value pending */
    unsigned long kline, kcol;
} frame;

/* The input as libyaml's reader decodes it, one character at a time: UTF-16LE or UTF-16BE after
 * their byte-order mark, UTF-8 otherwise (its byte-order mark skipped too). Positions computed
 * from a byte offset (a reader error, a raw U+0085) then agree with libyaml's own marks. */
typedef struct yaml_text {
    const unsigned char *b;
    size_t len, at; /* at: byte offset of the next character */
    int utf16;      /* 0: UTF-8; 1: UTF-16LE; 2: UTF-16BE */
} yaml_text;

size_t cfg_bom(const unsigned char *b, size_t n, int *utf16)
{
    *utf16 = 0;
    if (n >= 2 && b[0] == 0xff && b[1] == 0xfe)
        return *utf16 = 1, 2;
    if (n >= 2 && b[0] == 0xfe && b[1] == 0xff)
        return *utf16 = 2, 2;
    return n >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf ? 3 : 0;
}

static void yt_open(yaml_text *t, const char *buf, size_t len)
{
    t->b = (const unsigned char *)buf;
    t->len = len;
    t->at = cfg_bom(t->b, len, &t->utf16);
}

/* One UTF-16 code unit at byte offset i (the caller checked that two bytes remain). */
static unsigned yt_unit(const yaml_text *t, size_t i)
{
    return t->utf16 == 1 ? t->b[i] | (unsigned)t->b[i + 1] << 8
                         : (unsigned)t->b[i] << 8 | t->b[i + 1];
}

/* The next character's code point, t->at moved past it; -1 at the end or at a malformed
 * sequence (libyaml's reader stops there with an error of its own). */
static long yt_next(yaml_text *t)
{
    const unsigned char *b = t->b + t->at;
    size_t left = t->len - t->at;
    if (t->utf16) {
        if (left < 2)
            return -1;
        unsigned u = yt_unit(t, t->at);
        if (u >= 0xd800 && u <= 0xdbff) { /* a surrogate pair: 4 bytes, one character */
            if (left < 4 || yt_unit(t, t->at + 2) < 0xdc00 || yt_unit(t, t->at + 2) > 0xdfff)
                return -1;
            t->at += 4;
            return 0x10000 + ((long)(u - 0xd800) << 10) + (yt_unit(t, t->at - 2) - 0xdc00);
        }
        if (u >= 0xdc00 && u <= 0xdfff)
            return -1;
        t->at += 2;
        return (long)u;
    }
    if (!left)
        return -1;
    size_t w = b[0] < 0x80 ? 1 : (b[0] & 0xe0) == 0xc0 ? 2 : (b[0] & 0xf0) == 0xe0 ? 3
             : (b[0] & 0xf8) == 0xf0 ? 4 : 0;
    if (!w || w > left)
        return -1;
    long c = w == 1 ? b[0] : b[0] & (0x7f >> w);
    for (size_t i = 1; i < w; i++) {
        if ((b[i] & 0xc0) != 0x80)
            return -1;
        c = c << 6 | (b[i] & 0x3f);
    }
    t->at += w;
    return c;
}

/* libyaml's line breaks: LF, CR, CR LF (one break), and U+0085, U+2028, U+2029. */
static int yt_break(long c)
{
    return c == '\n' || c == '\r' || c == 0x85 || c == 0x2028 || c == 0x2029;
}

/* The line and column (1-based; columns in characters) of byte offset off, counted as
 * libyaml counts its marks: the byte-order mark skipped, CR and CR LF line breaks. */
static void yaml_offset_pos(const char *buf, size_t len, size_t off, unsigned long *line,
                            unsigned long *col)
{
    yaml_text t;
    yt_open(&t, buf, len);
    *line = 1;
    *col = 1;
    while (t.at < off) {
        long c = yt_next(&t);
        if (c < 0) { /* a malformed sequence before off (a bad trailing byte is after its lead):
                      * a column per byte, or per UTF-16 unit */
            if (t.at >= len)
                break;
            t.at += t.utf16 ? 2 : 1;
            (*col)++;
            continue;
        }
        if (c == '\r' && t.at < off && t.at < len) { /* CR LF: one break */
            yaml_text peek = t;
            if (yt_next(&peek) == '\n')
                t = peek;
        }
        if (yt_break(c)) {
            (*line)++;
            *col = 1;
        } else
            (*col)++;
    }
}

/* A raw U+0085 (NEL, UTF-8 C2 85) is a C1 control character, refused as libyaml refuses every
 * other one; libyaml alone lets it through, as a line break that no editor shows (until
 * 2026-11-27 `device: h<NEL>100` read as two lines and errors after it named a line one too
 * far). Checked up to the first malformed sequence, which libyaml's reader refuses itself. */
static int raw_nel_refused(const char *file, const char *buf, size_t len, am_error *e)
{
    yaml_text t;
    yt_open(&t, buf, len);
    for (;;) {
        size_t at = t.at;
        long c = yt_next(&t);
        if (c < 0)
            return 0;
        if (c == 0x85) {
            unsigned long line, col;
            yaml_offset_pos(buf, len, at, &line, &col);
            return am_fail_at(e, file, line, col, "control characters are not allowed "
                              "(character U+0085 at byte offset %zu; YAML would read it as a "
                              "line break)", at);
        }
    }
}

/* libyaml's own words for a syntax error, at its (0-based, so +1) problem mark; the context
 * ("while parsing a block mapping") and where it started follow in parentheses. */
static int yaml_fail(am_error *e, const char *file, const char *buf, size_t len,
                     const yaml_parser_t *p)
{
    const char *prob = p->problem ? p->problem : "malformed YAML";
    if (p->error == YAML_MEMORY_ERROR)
        am_oom_exit("libyaml", file);
    if (p->error == YAML_READER_ERROR) {
        /* a byte offset only (the reader decodes ahead of the scanner, so no mark is there):
         * its line and column counted as the marks are, in characters, the byte-order mark
         * skipped, CR and CR LF breaking lines; until 2026-11-27 only '\n' broke lines and
         * the column was a byte difference (`# café \xff` was column 9, a BOM added 3) */
        size_t off = p->problem_offset < len ? p->problem_offset : len;
        unsigned long line, col;
        yaml_offset_pos(buf, len, off, &line, &col);
        /* the byte (or, past ASCII, the character) and where it is: until 2026-11-27 only the
         * offset, "(byte 23)", which read like the byte's value */
        int v = p->problem_value;
        if (v < 0)
            return am_fail_at(e, file, line, col, "%s (at byte offset %zu)", prob,
                              p->problem_offset);
        if (v >= 0x80 && strstr(prob, "character"))
            return am_fail_at(e, file, line, col, "%s (character U+%04X at byte offset %zu)", prob,
                              (unsigned)v, p->problem_offset);
        /* a surrogate error's value is a UTF-16 code unit, not a byte (until 2026-11-27
         * "(byte 0xdc00 at offset 62)") */
        if (strstr(prob, "surrogate"))
            return am_fail_at(e, file, line, col, "%s (UTF-16 unit 0x%04X at byte offset %zu)",
                              prob, (unsigned)v, p->problem_offset);
        return am_fail_at(e, file, line, col, "%s (byte 0x%02x at offset %zu)", prob,
                          (unsigned)v, p->problem_offset);
    }
    if (p->context)
        return am_fail_at(e, file, p->problem_mark.line + 1, p->problem_mark.column + 1,
                          "%s (%s at line %lu, column %lu)", prob, p->context,
                          (unsigned long)p->context_mark.line + 1,
                          (unsigned long)p->context_mark.column + 1);
    return am_fail_at(e, file, p->problem_mark.line + 1, p->problem_mark.column + 1, "%s",
                      prob);
}

/* Hang n under the innermost open collection (or make it the root). Frees n on error. */
static int attach(frame *st, int depth, cfg_node **root, cfg_node *n, am_error *e)
{
    if (depth == 0) {
        *root = n;
        return 0;
    }
    frame *f = &st[depth - 1];
    if (f->node->kind == CFG_MAP) {
        /* the value takes over the pending key and its position (errors point at keys) */
        n->key = f->key;
        n->line = f->kline;
        n->col = f->kcol;
        f->key = NULL;
        const cfg_node *dup = keyset_add(&f->keys, n);
        if (dup) { /* with the first's column too: a flow map puts both on one line */
            node_fail(e, n, "duplicate key '%s' (first at line %lu, column %lu)", n->key,
                      dup->line, dup->col);
            node_free(n);
            return -1;
        }
    }
    if (f->last)
        f->last->next = n;
    else
        f->node->child = n;
    f->last = n;
    return 0;
}

/* A quoted scalar's escapes (\0, \x00, \x1b) can give the control characters libyaml's reader
 * refuses when they are written raw; they are refused the same way, at the scalar. A NUL above
 * all: the value is a C string, so "h100\0junk" read as h100 (until 2026-11-27, silently).
 * Tab, newline and carriage return stay allowed, as they are raw. */
static int scalar_control(am_error *e, const char *file, unsigned long line, unsigned long col,
                          const yaml_event_t *ev)
{
    const unsigned char *v = ev->data.scalar.value;
    for (size_t i = 0; i < ev->data.scalar.length; i++) {
        if ((v[i] < 0x20 && v[i] != '\t' && v[i] != '\n' && v[i] != '\r') || v[i] == 0x7f)
            return am_fail_at(e, file, line, col, "control characters are not allowed (byte "
                              "0x%02x, from an escape, in the quoted value at character %zu)",
                              v[i], i + 1);
        /* C1 controls, U+0080..U+009F ("\u009b", a terminal's CSI), as C0 ones (until
         * 2026-11-27 they passed and reached messages raw) */
        int c1 = am_c1_at(v + i, ev->data.scalar.length - i);
        if (c1 >= 0)
            return am_fail_at(e, file, line, col, "control characters are not allowed "
                              "(U+%04X, from an escape, in the quoted value at character %zu)",
                              (unsigned)c1, i + 1);
    }
    return 0;
}

/* A tag as written: libyaml hands out the resolved form, "tag:yaml.org,2002:str" for "!!str". */
static const char *tag_shown(const yaml_char_t *tag, char *buf, size_t n)
{
    static const char std[] = "tag:yaml.org,2002:";
    const char *t = (const char *)tag;
    char raw[128];
    if (strncmp(t, std, sizeof std - 1) == 0)
        snprintf(raw, sizeof raw, "!!%s", t + sizeof std - 1);
    else
        snprintf(raw, sizeof raw, "%s", t);
    am_escape_controls(buf, n, raw);
    return buf;
}

/* The YAML subset amsim reads, checked on each event as it arrives (before any node is built,
 * so that no input costs more than its size): one document; no anchors, aliases (alias bombs,
 * self-references) or tags (until 2026-11-27 `allow_growth: !!str true` silently read as
 * true: a tag is refused rather than half honoured); nesting at most CFG_MAX_DEPTH deep; no
 * control characters from a quoted scalar's escapes. depth: collections open around ev; ndocs:
 * documents seen before it (updated). `what` names the kind of file in messages ("config",
 * "sweep"). Configs and sweeps share these rules. */
static int event_refused(const char *file, const yaml_event_t *ev, int depth, int *ndocs,
                         const char *what, am_error *e)
{
    unsigned long line = ev->start_mark.line + 1, col = ev->start_mark.column + 1;
    const yaml_char_t *anchor = NULL, *tag = NULL;
    char shown[128];
    switch (ev->type) {
    case YAML_DOCUMENT_START_EVENT:
        if ((*ndocs)++)
            return am_fail_at(e, file, line, col, "a %s holds one YAML document; found a second "
                              "one", what);
        return 0;
    case YAML_ALIAS_EVENT:
        snprintf(shown, sizeof shown, "%s", (const char *)ev->data.alias.anchor);
        return am_fail_at(e, file, line, col, "YAML aliases (*%s) are not supported in amsim %ss; "
                          "write the value out", shown, what);
    case YAML_SCALAR_EVENT:
        anchor = ev->data.scalar.anchor;
        tag = ev->data.scalar.tag;
        break;
    case YAML_MAPPING_START_EVENT:
        anchor = ev->data.mapping_start.anchor;
        tag = ev->data.mapping_start.tag;
        break;
    case YAML_SEQUENCE_START_EVENT:
        anchor = ev->data.sequence_start.anchor;
        tag = ev->data.sequence_start.tag;
        break;
    default:
        return 0;
    }
    /* Anchors are refused where they are defined, before any alias can expand them. */
    if (anchor) {
        snprintf(shown, sizeof shown, "%s", (const char *)anchor);
        return am_fail_at(e, file, line, col, "YAML anchors (&%s) are not supported in amsim %ss; "
                          "write the value out", shown, what);
    }
    if (tag)
        return am_fail_at(e, file, line, col, "YAML tags (%s) are not supported in amsim %ss; "
                          "write the value without it", tag_shown(tag, shown, sizeof shown), what);
    if (ev->type == YAML_SCALAR_EVENT)
        return scalar_control(e, file, line, col, ev);
    if (depth >= CFG_MAX_DEPTH)
        return am_fail_at(e, file, line, col, "nesting deeper than %d levels", CFG_MAX_DEPTH);
    return 0;
}

/* The depth of collections open after ev, given the depth before it. */
static int depth_after(const yaml_event_t *ev, int depth)
{
    if (ev->type == YAML_MAPPING_START_EVENT || ev->type == YAML_SEQUENCE_START_EVENT)
        return depth + 1;
    if (ev->type == YAML_MAPPING_END_EVENT || ev->type == YAML_SEQUENCE_END_EVENT)
        return depth - 1; /* libyaml guarantees balance */
    return depth;
}

int cfg_yaml_screen(const char *file, const char *buf, size_t len, const char *what,
                    am_error *e)
{
    yaml_parser_t p;
    yaml_event_t ev;
    int depth = 0, ndocs = 0, rc = 0;
    if (!yaml_parser_initialize(&p))
        am_oom_exit("libyaml cannot start a parser", file);
    if (raw_nel_refused(file, buf, len, e) < 0) {
        yaml_parser_delete(&p);
        return -1;
    }
    yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
    for (;;) {
        if (!yaml_parser_parse(&p, &ev)) {
            rc = yaml_fail(e, file, buf, len, &p);
            break;
        }
        int end = ev.type == YAML_STREAM_END_EVENT;
        rc = event_refused(file, &ev, depth, &ndocs, what, e);
        depth = depth_after(&ev, depth);
        yaml_event_delete(&ev);
        if (rc < 0 || end)
            break;
    }
    yaml_parser_delete(&p);
    return rc < 0 ? -1 : 0;
}

/* Parse buf as one YAML document; *out is NULL for an empty document. `file` must outlive the
 * tree (interned). */
static int tree_parse(const char *file, const char *buf, size_t len, cfg_node **out,
                      am_error *e)
{
    yaml_parser_t p;
    yaml_event_t ev;
    frame st[CFG_MAX_DEPTH];
    int depth = 0, ndocs = 0, done = 0, have_ev = 0;
    cfg_node *root = NULL;

    if (!yaml_parser_initialize(&p))
        am_oom_exit("libyaml cannot start a parser", file);
    if (raw_nel_refused(file, buf, len, e) < 0) {
        yaml_parser_delete(&p);
        return -1;
    }
    yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
    /* One event at a time; st[] holds the open maps and lists (bounded, so no recursion and no
     * unbounded memory on hostile input). Each event is deleted before the next is read. */
    while (!done) {
        if (!yaml_parser_parse(&p, &ev)) {
            yaml_fail(e, file, buf, len, &p);
            goto err;
        }
        have_ev = 1;
        if (event_refused(file, &ev, depth, &ndocs, "config", e) < 0)
            goto err;
        unsigned long line = ev.start_mark.line + 1, col = ev.start_mark.column + 1;
        frame *top = depth ? &st[depth - 1] : NULL;
        /* inside a map, events alternate key, value; want_key: this event is a key */
        int want_key = top && top->node->kind == CFG_MAP && !top->key;
        cfg_node *n = NULL;

        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = 1;
            break;
        case YAML_SCALAR_EVENT:
            /* text is kept as written; quoting style is not interpreted */
            if (want_key) {
                top->key = am_strndup((const char *)ev.data.scalar.value, ev.data.scalar.length);
                top->kline = line;
                top->kcol = col;
                break;
            }
            n = node_new(CFG_SCALAR, file, line, col);
            n->value = am_strndup((const char *)ev.data.scalar.value, ev.data.scalar.length);
            n->nonplain = ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
            if (attach(st, depth, &root, n, e) < 0)
                goto err;
            break;
        case YAML_MAPPING_START_EVENT:
        case YAML_SEQUENCE_START_EVENT:
            if (want_key) {
                am_fail_at(e, file, line, col, "map keys must be plain scalars, not a %s",
                           ev.type == YAML_MAPPING_START_EVENT ? "map" : "list");
                goto err;
            }
            n = node_new(ev.type == YAML_MAPPING_START_EVENT ? CFG_MAP : CFG_SEQ, file, line,
                         col);
            if (attach(st, depth, &root, n, e) < 0)
                goto err;
            st[depth] = (frame){.node = n};
            depth++;
            break;
        case YAML_MAPPING_END_EVENT:
        case YAML_SEQUENCE_END_EVENT:
            depth--; /* libyaml guarantees balance */
            free(st[depth].keys.slot);
            break;
        default: /* stream start, document start and end: nothing to build */
            break;
        }
        yaml_event_delete(&ev);
        have_ev = 0;
    }
    yaml_parser_delete(&p);
    *out = root;
    return 0;
err:
    /* open collections are already attached under root; only pending keys are loose */
    if (have_ev)
        yaml_event_delete(&ev);
    yaml_parser_delete(&p);
    for (int i = 0; i < depth; i++) {
        free(st[i].key);
        free(st[i].keys.slot);
    }
    node_free(root);
    return -1;
}

/* ---- pass 2 and 3: --set and preset merge -------------------------------------------- */

/* Move src's entries into dst (both maps): dst keeps its order, src's keys replace dst's key
 * by key (maps merged recursively), src-only keys are appended. src is left empty. dst's
 * entries are found by key in constant time (until 2026-11-27 each of src's keys was looked
 * for along dst, which grew as src-only keys were appended: quadratic in the user's map). */
static void merge_maps(cfg_node *dst, cfg_node *src)
{
    cfg_node *c = src->child, *last = NULL;
    src->child = NULL;
    dst->file = src->file; /* the user wrote this map: point messages there */
    dst->line = src->line;
    dst->col = src->col;
    keyset have = {0};
    for (cfg_node *d = dst->child; d; d = d->next) {
        keyset_add(&have, d);
        last = d;
    }
    while (c) {
        cfg_node *next = c->next, *d = keyset_add(&have, c);
        c->next = NULL;
        if (!d) { /* only the user has it: append */
            if (last)
                last->next = c;
            else
                dst->child = c;
            last = c;
        } else if (d->kind == CFG_MAP && as_map(c)) { /* both maps: key by key */
            merge_maps(d, c);
            node_free(c);
        } else { /* scalar or list: the user's node replaces the preset's in place */
            cfg_node *keep = d->next, *old_child = d->child;
            char *old_value = d->value, *old_key = d->key;
            *d = *c; /* same address: the table and the list still point at it */
            d->next = keep;
            c->child = old_child;
            c->value = old_value;
            c->key = old_key;
            node_free(c); /* the preset's old contents */
        }
        c = next;
    }
    free(have.slot);
}

/* A --set value that is empty: "PATH=", "PATH=''", "PATH=~" or "PATH={}". */
static int empty_value(const cfg_node *v)
{
    return (v->kind == CFG_SCALAR && null_scalar(v)) || (v->kind == CFG_MAP && !v->child);
}

/* Whether a dotted path names one of the schema's maps: a section (memories, links, trace,
 * engine, report, transfer_guard), a memory or link, or a memory's allocator or defrag. */
static int section_path(const char *path)
{
    static const char *const top[] = {"memories", "links", "trace", "engine", "report",
                                       "transfer_guard"};
    int dots = 0;
    for (const char *p = path; *p; p++)
        dots += *p == '.';
    size_t first = strcspn(path, ".");
    const char *last = strrchr(path, '.');
    int in_mem = first == 8 && strncmp(path, "memories", 8) == 0;
    int in_link = first == 5 && strncmp(path, "links", 5) == 0;
    if (dots == 0) {
        for (size_t i = 0; i < AM_ARRAY_LEN(top); i++)
            if (strcmp(path, top[i]) == 0)
                return 1;
        return 0;
    }
    if (dots == 1)
        return in_mem || in_link;
    return dots == 2 && in_mem && (!strcmp(last, ".allocator") || !strcmp(last, ".defrag"));
}

/* A --set's map value merged into the map the file (or an earlier --set) has at its path,
 * key by key as the file merges over its preset: `--set 'memories.hbm.allocator={gc: true}'`
 * keeps the file's other allocator keys (until 2026-11-27 it replaced the file's map, and
 * the preset's keys came back from underneath: a file's allow_growth: true became the preset's
 * false). The map keeps the file's position. */
static void merge_set_map(cfg_node *dst, cfg_node *src)
{
    const char *file = dst->file;
    unsigned long line = dst->line, col = dst->col;
    merge_maps(dst, src);
    if (line) {
        dst->file = file;
        dst->line = line;
        dst->col = col;
    }
}

#define CFG_ECHO_MAX 120 /* characters of a --set echoed in messages */

/* An escaped --set longer than CFG_ECHO_MAX is cut to its start and "..." (am_shorten_echo: at
 * a character boundary and not inside a \xHH): a message names the --set, it need not repeat a
 * long list (until 2026-11-27 a --set's first 500 characters preceded every message about it). */
static void shorten_echo(char *s) { am_shorten_echo(s, CFG_ECHO_MAX); }

/* A value quoted in a message, cut as a --set is (shorten_echo) into buf (n bytes, at least
 * CFG_ECHO_MAX + 2, so that a longer value is seen to be longer): a message about a 1000-digit
 * size names it by its start, and its reason follows (until 2026-11-27 the value filled the
 * message and the reason was cut off). */
static const char *echo_value(char *buf, size_t n, const char *v)
{
    /* escaped first, then cut (am_shorten_echo's rule is about escaped text) */
    return am_echo(buf, n, v, strlen(v), CFG_ECHO_MAX);
}

/* The reason in msg, a message tree_parse gave about a --set's value parsed as file (its
 * origin), into out: msg is "FILE:LINE:COL: why" with FILE escaped as am_fail_at escapes a path
 * (control bytes, newlines and tabs too). On the value's first line the position is dropped
 * (its column counts from the value, not from the --set's start): "why"; on a later line of a
 * multi-line value it is kept: "line 2, column 1: why" (one past a value's last line, where
 * libyaml places an unclosed `[1`, is dropped too). The --set is named once, by the caller.
 * Until 2026-11-27 FILE was looked for escaped with newlines and tabs kept, so a value holding
 * either named the --set twice: "bad value:--set '...':2:1: ..." (before that, until
 * 2026-11-27 too, strlen of the raw origin cut a --policy 'bf\x01c' message mid-word). */
static void set_value_why(char *out, size_t n, const char *msg, const char *file,
                          const char *value)
{
    char *shown = am_escape_dup(file);
    size_t skip = strlen(shown);
    const char *p = strncmp(msg, shown, skip) == 0 ? msg + skip : NULL;
    free(shown);
    if (!p) { /* not as expected (never seen): the whole message */
        snprintf(out, n, "%s", msg);
        return;
    }
    unsigned long line = 0, col = 0;
    char *end;
    if (p[0] == ':' && isdigit((unsigned char)p[1])) {
        line = strtoul(p + 1, &end, 10);
        p = end;
        if (p[0] == ':' && isdigit((unsigned char)p[1])) {
            col = strtoul(p + 1, &end, 10);
            p = end;
        }
    }
    if (*p == ':')
        p++;
    while (*p == ' ')
        p++;
    unsigned long lines = 1; /* the value's */
    for (const char *v = value; *v; v++)
        lines += *v == '\n' && v[1];
    if (line > lines)
        line = 0;
    if (line > 1 && col)
        snprintf(out, n, "line %lu, column %lu: %s", line, col, p);
    else if (line > 1)
        snprintf(out, n, "line %lu: %s", line, p);
    else
        snprintf(out, n, "%s", p);
}

/* A --set or --policy as its messages quote it: escaped as every message is (control bytes
 * as \xHH), and so is a byte that is not UTF-8, since the argument is echoed as given, not
 * as a decoder would read it; cut as shorten_echo cuts. */
static void echo_arg(char *out, size_t cap, const char *text)
{
    char *bytes = am_utf8_escape_dup(text);
    am_escape_controls(out, cap, bytes);
    free(bytes);
    shorten_echo(out);
}

/* Apply one "PATH=VALUE" to the (user's) tree; its nodes are placed at set->file, line and
 * column, or (no file) at the origin "--set 'PATH=VALUE'" with no position. */
static int apply_set(cfg_node *root, const cfg_set *set, cfg_pool *pool, am_error *e)
{
    char origin[CFG_PATH_MAX + 16];
    const char *text = set->text, *eq = strchr(text, '=');
    cfg_node *val = NULL;
    char *path = NULL;

    /* escaped as every message is, so the message's prefix is this origin (apply_set strips it) */
    char shown[CFG_PATH_MAX];
    echo_arg(shown, sizeof shown, text);
    snprintf(origin, sizeof origin, "--set '%s'", shown);
    const char *file = pool_intern(pool, set->file ? set->file : origin);
    unsigned long line = set->file ? set->line : 0, col = set->file ? set->col : 0;
    cfg_node here = {.file = file, .line = line, .col = col}; /* where messages point */
    /* where PATH is written: the maps its keys make are placed there, and the value's key */
    int placed_key = set->file && set->kline;
    unsigned long kline = placed_key ? set->kline : line, kcol = placed_key ? set->kcol : col;
    if (!eq || eq == text)
        return node_fail(e, &here, "expected PATH=VALUE (e.g. memories.hbm.capacity=40GiB)");
    /* Every dot-separated key must be non-empty ("a..b", ".a", "a." are refused), and UTF-8:
     * a key names a setting, and the messages that name an unknown one quoted it raw (until
     * 2026-11-28 `--set $'memories.hbm\xff.capacity=1GiB'` said "unknown memory 'hbm<FF>'"). */
    path = am_strndup(text, (size_t)(eq - text));
    long bad_key = am_utf8_bad_at(path);
    if (bad_key >= 0) {
        node_fail(e, &here, "bad PATH: not UTF-8 (byte 0x%02x at offset %ld)",
                  (unsigned char)path[bad_key], bad_key);
        goto err;
    }
    for (const char *s = path;; s++) {
        if (*s == '.' || !*s) {
            if (s == path || s[-1] == '.' || (*s == '.' && !s[1])) {
                node_fail(e, &here, "empty key in path '%s'", path);
                goto err;
            }
            if (!*s)
                break;
        }
    }
    /* UTF-8 only, and no byte-order mark first: libyaml takes a value starting FF FE or FE FF
     * for UTF-16 and reads the rest as such, and skips EF BB BF, so until 2026-11-28 `--policy
     * $'\xff\xfe\x80bad'` was "unknown allocator policy '技摡'" and `--policy $'\xef\xbb\xbfbfc'`
     * ran bfc. The origin quotes the argument escaped, as given. */
    long bad = am_utf8_bad_at(eq + 1);
    if (bad >= 0 || strncmp(eq + 1, "\xef\xbb\xbf", 3) == 0) {
        if (bad >= 0)
            node_fail(e, &here, "bad value: not UTF-8 (byte 0x%02x at offset %ld)",
                      (unsigned char)eq[1 + bad], bad);
        else
            node_fail(e, &here, "bad value: starts with a byte-order mark (EF BB BF)");
        goto err;
    }
    /* The value is YAML: "1GiB", "\"quoted\"", "[1, 2]" and "{a: 1}" all work. */
    am_error perr = {0};
    if (tree_parse(file, eq + 1, strlen(eq + 1), &val, &perr) < 0) {
        char why[sizeof perr.msg];
        set_value_why(why, sizeof why, perr.msg, file, eq + 1);
        node_fail(e, &here, "bad value: %s", why);
        e->status = perr.status;
        goto err;
    }
    if (!val) /* "key=" sets an empty value */
        val = node_scalar("", file);
    node_relocate(val, file, line, col); /* messages then name the --set, or its position */
    if (set->file && set->inner && node_count_inner(val) == set->ninner) {
        size_t at = 0;
        place_inner(val, set->inner, &at);
    }

    /* Walk PATH, creating maps as needed; the last key gets the value. */
    cfg_node *cur = root;
    char *seg = path;
    for (;;) {
        char *dot = strchr(seg, '.');
        if (dot)
            *dot = 0;
        cfg_node **pp = &cur->child;
        while (*pp && strcmp((*pp)->key, seg) != 0)
            pp = &(*pp)->next;
        if (!dot) { /* last key: merge into the file's map, replace in place, or append */
            if (empty_value(val) && ((*pp && (*pp)->kind == CFG_MAP) || section_path(path))) {
                node_fail(e, &here, "%s is a map, merged key by key: an empty value would set "
                          "nothing; set its keys (%s.KEY=VALUE)", path, path);
                goto err;
            }
            if (*pp && val->kind == CFG_MAP && as_map(*pp)) {
                merge_set_map(*pp, val);
                node_free(val);
                val = NULL;
                break;
            }
            val->key = am_strdup(seg);
            if (placed_key) { /* else 0: the key is where the value is */
                val->kline = kline;
                val->kcol = kcol;
            }
            if (*pp) {
                val->next = (*pp)->next;
                (*pp)->next = NULL;
                node_free(*pp);
            }
            *pp = val;
            val = NULL;
            break;
        }
        if (!*pp) {
            /* at PATH: an unknown memory or key it makes is the key's error (until
             * 2026-11-28 placed at a sweep's value, as the value's own key was) */
            *pp = node_new(CFG_MAP, file, kline, kcol);
            (*pp)->key = am_strdup(seg);
            (*pp)->by_set_path = set->file ? CFG_MADE_BY_PLACED_SET : CFG_MADE_BY_SET;
        } else if (!as_map(*pp)) {
            node_fail(e, &here, "'%.*s' is a %s, not a map", (int)(dot - path), text,
                     kind_name((*pp)->kind));
            goto err;
        }
        cur = *pp;
        *dot = '.';
        seg = dot + 1;
    }
    free(path);
    return 0;
err:
    free(path);
    node_free(val);
    return -1;
}

/* ---- option tables ------------------------------------------------------------------- */

/* a equals the lowercase word b, ignoring ASCII case in a (locale independent). */
static int lower_eq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char ca = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
        if (ca != *b)
            return 0;
    }
    return *a == *b;
}

/* YAML 1.1 booleans, any case: true/yes/on and false/no/off. */
static int parse_bool(const char *s, int *v)
{
    static const char *const yes[] = {"true", "yes", "on"}, *const no[] = {"false", "no", "off"};
    for (size_t i = 0; i < AM_ARRAY_LEN(yes); i++) {
        if (lower_eq(s, yes[i]))
            return *v = 1, 0;
        if (lower_eq(s, no[i]))
            return *v = 0, 0;
    }
    return -1;
}

/* Text in JSON's number form: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, which a JSON
 * reader takes as a number, so the echo can keep it as written, every digit. Anything else
 * (.5, 1., +1, 05, 0x10, .inf, 1_000, 1GiB) is not one. */
static int json_number_text(const char *s)
{
    s += *s == '-';
    if (*s == '0')
        s++;
    else if (*s >= '1' && *s <= '9')
        while (*s >= '0' && *s <= '9')
            s++;
    else
        return 0;
    if (*s == '.') {
        if (!(*++s >= '0' && *s <= '9'))
            return 0;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        s += *s == '+' || *s == '-';
        if (!(*s >= '0' && *s <= '9'))
            return 0;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return *s == 0;
}

/* The type a plain scalar of this text has (as YAML 1.1 reads the words amsim takes). */
static cfg_typed plain_typed(const char *v)
{
    int b;
    if (!v[0] || cfg_null_word(v))
        return CFG_TYPED_NULL;
    if (parse_bool(v, &b) == 0)
        return b ? CFG_TYPED_TRUE : CFG_TYPED_FALSE;
    return json_number_text(v) ? CFG_TYPED_NUMBER : CFG_TYPED_STRING;
}

cfg_typed cfg_scalar_typed(const cfg_node *n)
{
    if (null_scalar(n))
        return CFG_TYPED_NULL;
    return n->nonplain ? CFG_TYPED_STRING : plain_typed(n->value);
}

/* Edit distance for did-you-mean (keys are short; longer ones are not compared): insertions,
 * deletions, substitutions and swaps of two neighbours count one each (optimal string alignment),
 * so "hmb" is one from "hbm" and "pcei" one from "pcie" (until 2026-11-27 a swap counted two, and
 * a short name's swap got no suggestion). */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t rows[3][CFG_NAME_MAX + 1]; /* distances for a[0..i-2), a[0..i-1), a[0..i) */
    if (la > CFG_NAME_MAX || lb > CFG_NAME_MAX)
        return SIZE_MAX;
    size_t *prev2 = rows[0], *prev = rows[1], *row = rows[2];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t best = prev[j - 1] + (a[i - 1] != b[j - 1]);
            best = AM_MIN(best, prev[j] + 1);
            best = AM_MIN(best, row[j - 1] + 1);
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                best = AM_MIN(best, prev2[j - 2] + 1);
            row[j] = best;
        }
        size_t *t = prev2;
        prev2 = prev;
        prev = row;
        row = t;
    }
    return prev[lb];
}

/* Closest candidate to key among the option table's keys and the extra names, or NULL. */
static const char *suggest(const char *key, const opt_desc *opts, const char *const *extra)
{
    size_t limit = strlen(key) <= 4 ? 1 : 2, best = SIZE_MAX;
    const char *pick = NULL;
    for (const opt_desc *o = opts; o && o->key; o++) {
        size_t d = edit_distance(key, o->key);
        if (d <= limit && d < best)
            best = d, pick = o->key;
    }
    for (const char *const *x = extra; x && *x; x++) {
        size_t d = edit_distance(key, *x);
        if (d <= limit && d < best)
            best = d, pick = *x;
    }
    return pick;
}

const char *cfg_suggest(const char *name, const char *const *cands)
{
    return suggest(name, NULL, cands);
}

/* "unknown key 'a.b.c' (did you mean 'x'?)" at the key's position. */
/* Whether key is "policy" or an option of some allocator policy (a hint for a key written
 * directly under a memory; until 2026-11-27 `memories.hbm.policy=bfc` got no hint). */
static int allocator_key(const char *key)
{
    if (strcmp(key, "policy") == 0)
        return 1;
    for (const struct alloc_ops *const *p = alloc_all(); p && *p; p++)
        for (const opt_desc *o = (*p)->opts; o && o->key; o++)
            if (strcmp(o->key, key) == 0)
                return 1;
    return 0;
}

static int fail_unknown_key(am_error *e, const cfg_node *k, const char *path,
                            const opt_desc *opts, const char *const *extra)
{
    /* at the key, where a placed override's value is elsewhere (cfg_node.kline) */
    cfg_node at = *k;
    if (k->kline) {
        at.line = k->kline;
        at.col = k->kcol;
    }
    const cfg_node *n = &at;
    char full[CFG_PATH_MAX];
    join_path(full, sizeof full, path, n->key);
    /* memories.hbm.policy: one level too high (path is a memory's: memories.NAME) */
    int in_level = strncmp(path, "memories.", 9) == 0 && !strchr(path + 9, '.');
    if (in_level && allocator_key(n->key))
        return node_fail(e, n, "unknown key '%s' (did you mean '%s.allocator.%s'? allocator "
                         "options go under allocator:)", full, path, n->key);
    const char *s = suggest(n->key, opts, extra);
    if (s)
        return node_fail(e, n, "unknown key '%s' (did you mean '%s'?)", full, s);
    return node_fail(e, n, "unknown key '%s'", full);
}

/* Bytes an option occupies in its options struct (what a NULL default zeroes). */
static size_t opt_width(const opt_desc *o)
{
    switch (o->type) {
    case OPT_BOOL:
    case OPT_ENUM:
        return sizeof(int);
    case OPT_REAL:
    case OPT_FRACTION:
        return sizeof(double);
    case OPT_STRING:
        return OPT_STRING_MAX;
    case OPT_UINT_LIST:
        return o->list_max * sizeof(uint64_t);
    default:
        return sizeof(uint64_t);
    }
}

/* Parse node n as option o (path names it in messages) and store into dst (may be NULL). */
/* One rule for the form of every number a config writes (sizes, bandwidths, times, integers,
 * fractions and reals): no blank before or after it (only a quoted value has one), no '+' sign,
 * and no leading zero before another digit ("05", "007GiB"; "0.5" is fine), which YAML 1.1
 * would read as octal (010 is 8). NULL when s is fine, else why. Until 2026-11-27 '+' was
 * accepted for sizes and fractions but refused for integers, and leading zeros everywhere
 * (version: 01, queue_depth: 05); and only the first byte was looked at, so " 010GiB" and
 * " +2MiB" passed (the size reader skips blanks) while " 05" was "expected a non-negative
 * integer". */
static const char *number_form(const char *s)
{
    size_t n = strlen(s);
    if (n && (strchr(" \t\r\n", s[0]) || strchr(" \t\r\n", s[n - 1])))
        return "blanks before or after a number are not allowed";
    if (*s == '+')
        return "a '+' sign is not allowed";
    if (*s == '-')
        s++;
    if (s[0] == '0' && s[1] >= '0' && s[1] <= '9')
        return "leading zeros are not allowed (YAML 1.1 reads 010 as octal 8)";
    return NULL;
}

const char *cfg_number_form(const char *text) { return number_form(text); }

/* Whether option o reads its text as a number, so that number_form applies: not a word (bool,
 * enum, string) nor the -1 that an unlimited size takes. One rule for opt_parse and for a
 * sweep's axis values (cfg_opt_number_form). */
static int opt_reads_number(const opt_desc *o, const char *s)
{
    return o->type != OPT_BOOL && o->type != OPT_ENUM && o->type != OPT_STRING &&
           !(o->type == OPT_SIZE_OR_UNLIMITED && strcmp(s, "-1") == 0);
}

const char *cfg_opt_number_form(const opt_desc *o, const char *text)
{
    return o && opt_reads_number(o, text) ? number_form(text) : NULL;
}

/* A non-negative integer, plain ("1000") or with an exponent ("1e3", "1.5e3") when its value is
 * whole: sizes took 1e9 and integers did not until 2026-11-27. No unit. -2 when it is a number
 * of 2^64 or more, which no field holds (until 2026-11-28 "1e30" was "expected a non-negative
 * integer", as if it were not a number at all). */
static int parse_uint(const char *s, uint64_t *u)
{
    if (number_form(s) || !(s[0] >= '0' && s[0] <= '9'))
        return -1;
    if (units_u64(s, strlen(s), u) == 0)
        return 0;
    /* digits, '.', an exponent (with its sign): units_size_whole reads a plain number as that
     * many bytes, refusing fractions ("1.5", "1e-3") */
    if (strspn(s, "0123456789.eE+-") != strlen(s))
        return -1;
    const char *why = NULL;
    if (units_size_whole(s, u, &why) == 0)
        return 0;
    /* a fraction first: 18446744073709551614.9 is not whole, though as a double it is 2^64
     * (until 2026-11-28 it was "too large") */
    if (why && strstr(why, "not a whole number"))
        return -3;
    double r;
    return units_real(s, &r, NULL) == 0 && r >= 18446744073709551616.0 ? -2 : -1;
}

static int opt_parse(const cfg_node *n, const char *path, const opt_desc *o, void *dst,
                     am_error *e)
{
    uint64_t u = 0;
    double r = 0;
    int b = 0, rc;
    const char *why = NULL;

    char shown[CFG_ECHO_MAX + 2]; /* a value quoted in a message (echo_value) */
    /* Lists first: the only type that accepts a sequence (a scalar is a one-element list). */
    if (o->type == OPT_UINT_LIST) {
        size_t cnt = n->kind == CFG_SCALAR ? 1 : count_children(n);
        if (n->kind == CFG_MAP)
            return node_fail(e, n, "%s: expected a list of integers, not a map", path);
        if (cnt > o->list_max)
            return node_fail(e, n, "%s: at most %zu values, got %zu", path, o->list_max, cnt);
        const cfg_node *it = n->kind == CFG_SCALAR ? n : n->child;
        /* an item's error at the item, with the one-number rule's reason (until 2026-11-27
         * at the key, and "05" was only "expected a non-negative integer") */
        for (size_t i = 0; i < cnt; i++, it = it->next) {
            if (it->kind == CFG_SCALAR && number_form(it->value))
                return node_fail(e, it, "%s: item %zu: bad number '%s': %s", path, i + 1,
                                 echo_value(shown, sizeof shown, it->value),
                                 number_form(it->value));
            if (it->kind == CFG_SCALAR && (rc = parse_uint(it->value, &u)) == -2)
                return node_fail(e, it, "%s: item %zu: '%s' is too large (at most 2^64 - 1)",
                                 path, i + 1, echo_value(shown, sizeof shown, it->value));
            if (it->kind == CFG_SCALAR && rc == -3)
                return node_fail(e, it, "%s: item %zu: expected a non-negative integer, got "
                                 "'%s': not a whole number", path, i + 1,
                                 echo_value(shown, sizeof shown, it->value));
            if (it->kind != CFG_SCALAR || rc < 0)
                return node_fail(e, it, "%s: item %zu: expected a non-negative integer", path,
                                 i + 1);
            if (dst)
                memcpy((char *)dst + o->offset + i * sizeof u, &u, sizeof u);
        }
        if (dst)
            memcpy((char *)dst + o->count_offset, &cnt, sizeof cnt);
        return 0;
    }
    if (n->kind != CFG_SCALAR)
        return node_fail(e, n, "%s: expected a single value, not a %s", path,
                         kind_name(n->kind));
    /* Parse into u, r or b by type; stored below in the field's own width. */
    const char *s = n->value, *sv = echo_value(shown, sizeof shown, s);
    if (opt_reads_number(o, s) && number_form(s))
        return node_fail(e, n, "%s: bad number '%s': %s", path, sv, number_form(s));
    switch (o->type) {
    case OPT_SIZE:
    case OPT_SIZE_OR_UNLIMITED:
        if (o->type == OPT_SIZE_OR_UNLIMITED &&
            (lower_eq(s, "unlimited") || lower_eq(s, "none") || strcmp(s, "-1") == 0))
            u = UINT64_MAX;
        else if ((rc = units_size_nonzero(s, &u, &why)) == -2)
            /* sizes round to the nearest byte, and 0 is "unset" for several (memory_limit,
             * release_threshold, granularity): 0.4 must not quietly become the default */
            return node_fail(e, n, "%s '%s' rounds to 0 bytes; give at least 1 byte or leave it "
                             "out", path, sv);
        else if (rc < 0)
            return node_fail(e, n, "%s: bad size '%s': %s", path, sv, why);
        break;
    case OPT_BANDWIDTH:
        /* read to the nearest byte per second, as the link stores it (its rate x efficiency is
         * exact to a millionth, but the bandwidth itself is whole): 0.4B/s is not "0" */
        if ((rc = units_bandwidth_nonzero(s, &u, &why)) == -2)
            return node_fail(e, n, "%s '%s' rounds to 0 B/s; give at least 1 B/s", path, sv);
        else if (rc < 0)
            return node_fail(e, n, "%s: bad bandwidth '%s': %s", path, sv, why);
        break;
    case OPT_TIME:
        /* times round to the nearest picosecond, and 0 is "unset" for some (offline's
         * time_limit: no limit; report.timeline_interval: every event), the same rule as sizes.
         * Until 2026-11-27 0.4ps quietly became that. */
        if ((rc = units_time_nonzero(s, &u, &why)) == -2)
            return node_fail(e, n, "%s '%s' rounds to 0 ps; give at least 1 ps or leave it out",
                             path, sv);
        else if (rc < 0)
            return node_fail(e, n, "%s: bad time '%s': %s", path, sv, why);
        break;
    case OPT_TIME_UNIT:
        if ((rc = units_time_unit(s, &u, &why)) == -2)
            return node_fail(e, n, "%s: bad time '%s': %s (every tick is a multiple of it)",
                             path, sv, why);
        if (rc < 0)
            return node_fail(e, n, "%s: bad time '%s': %s", path, sv, why);
        if (u == 0)
            return node_fail(e, n, "%s: must be > 0", path);
        break;
    case OPT_UINT:
        if ((rc = parse_uint(s, &u)) == -2)
            return node_fail(e, n, "%s: '%s' is too large (at most 2^64 - 1)", path, sv);
        if (rc == -3)
            return node_fail(e, n, "%s: expected a non-negative integer, got '%s': not a whole "
                             "number", path, sv);
        if (rc < 0)
            return node_fail(e, n, "%s: expected a non-negative integer, got '%s'", path, sv);
        break;
    case OPT_BOOL:
        if (parse_bool(s, &b) < 0)
            return node_fail(e, n, "%s: expected true or false, got '%s'", path, sv);
        break;
    case OPT_REAL:
    case OPT_FRACTION:
        if (units_real(s, &r, &why) < 0)
            return node_fail(e, n, "%s: bad number '%s': %s", path, sv, why);
        /* "-0" is read as -0.0 and checked as a negative number (signbit): until 2026-11-27
         * it passed as 0 where -1 was refused */
        if (r == 0.0 && s[0] == '-')
            r = -0.0;
        if (o->type == OPT_FRACTION && !(r >= 0.0 && r <= 1.0 && !signbit(r)))
            return node_fail(e, n, "%s: expected a fraction between 0 and 1, got '%s'", path,
                             sv);
        break;
    case OPT_ENUM: {
        /* b ends as the index; the list of names is built for the message */
        char list[512] = "";
        for (b = 0; o->enum_values && o->enum_values[b]; b++) {
            if (strcmp(s, o->enum_values[b]) == 0)
                break;
            size_t k = strlen(list);
            snprintf(list + k, sizeof list - k, "%s%s", b ? ", " : "", o->enum_values[b]);
        }
        if (!o->enum_values || !o->enum_values[b]) {
            for (int j = b; o->enum_values && o->enum_values[j]; j++) {
                size_t k = strlen(list);
                snprintf(list + k, sizeof list - k, "%s%s", j ? ", " : "", o->enum_values[j]);
            }
            return node_fail(e, n, "%s: '%s' is not one of: %s", path, sv, list);
        }
        break;
    }
    case OPT_STRING:
        if (strlen(s) >= OPT_STRING_MAX)
            return node_fail(e, n, "%s: longer than %d characters", path, OPT_STRING_MAX - 1);
        if (dst) {
            memset((char *)dst + o->offset, 0, OPT_STRING_MAX);
            memcpy((char *)dst + o->offset, s, strlen(s));
        }
        return 0;
    case OPT_UINT_LIST:
        break;
    }
    if (!dst) /* validation only (a policy without options struct) */
        return 0;
    /* memcpy: the table gives offsets, not types the compiler can check */
    char *at = (char *)dst + o->offset;
    if (o->type == OPT_BOOL || o->type == OPT_ENUM)
        memcpy(at, &b, sizeof b);
    else if (o->type == OPT_REAL || o->type == OPT_FRACTION)
        memcpy(at, &r, sizeof r);
    else
        memcpy(at, &u, sizeof u);
    return 0;
}

/* A node from an option's default text: "[1, 2]" is a list, anything else a scalar. */
static cfg_node *node_from_text(const char *text, const char *file)
{
    size_t len = strlen(text);
    if (len < 2 || text[0] != '[' || text[len - 1] != ']')
        return node_scalar(text, file);
    /* split "[a, b]" at commas, trimming blanks; empty items are skipped */
    cfg_node *seq = node_new(CFG_SEQ, file, 0, 0);
    const char *p = text + 1, *end = text + len - 1;
    while (p < end) {
        const char *q = p;
        while (q < end && *q != ',')
            q++;
        const char *a = p, *z = q;
        while (a < z && *a == ' ')
            a++;
        while (z > a && z[-1] == ' ')
            z--;
        if (z > a) {
            cfg_node *it = node_new(CFG_SCALAR, file, 0, 0);
            it->value = am_strndup(a, (size_t)(z - a));
            node_append(seq, it);
        }
        p = q + 1;
    }
    return seq;
}

/* Text standing for "zero" when an option has no default (so the effective config lists it). */
static const char *zero_text(const opt_desc *o)
{
    switch (o->type) {
    case OPT_BOOL:
        return "false";
    case OPT_ENUM:
        return o->enum_values && o->enum_values[0] ? o->enum_values[0] : NULL;
    case OPT_STRING:
        return "";
    case OPT_UINT_LIST:
        return "[]";
    default:
        return "0";
    }
}

int cfg_apply_opts(const cfg_node *map, const char *path, const opt_desc *opts, void *dst,
                   const char *const *also_ok, am_error *err)
{
    char full[CFG_PATH_MAX];

    /* Defaults first (NULL default = zero), so the map only overrides. */
    for (const opt_desc *o = opts; o && o->key; o++) {
        if (dst) {
            memset((char *)dst + o->offset, 0, opt_width(o));
            if (o->type == OPT_UINT_LIST)
                memset((char *)dst + o->count_offset, 0, sizeof(size_t));
        }
        if (!o->def)
            continue;
        cfg_node *d = node_from_text(o->def, CFG_DEFAULT_FILE);
        join_path(full, sizeof full, path, o->key);
        am_error tmp = {0};
        int rc = opt_parse(d, full, o, dst, &tmp);
        node_free(d);
        if (rc < 0)
            return am_fail(err, AM_EINTERNAL, "option table: invalid default for %s (%s)", full,
                           tmp.msg);
    }
    if (!map)
        return 0;
    if (map->kind != CFG_MAP)
        return node_fail(err, map, "%s: expected a map, not a %s", path, kind_name(map->kind));
    /* Each key: an option (parsed), an accepted extra (ignored) or an error. */
    for (const cfg_node *c = map->child; c; c = c->next) {
        const opt_desc *o = opts;
        while (o && o->key && strcmp(o->key, c->key) != 0)
            o++;
        if (o && o->key) {
            join_path(full, sizeof full, path, c->key);
            if (opt_parse(c, full, o, dst, err) < 0)
                return -1;
            continue;
        }
        const char *const *x = also_ok;
        while (x && *x && strcmp(*x, c->key) != 0)
            x++;
        if (!x || !*x)
            return fail_unknown_key(err, c, path, opts, also_ok);
    }
    return 0;
}

/* Append a default node for every option missing from map (schema order). With zero_fill,
 * options without a default are listed with their zero value too. */
static void fill_defaults(cfg_node *map, const opt_desc *opts, int zero_fill)
{
    for (const opt_desc *o = opts; o && o->key; o++) {
        if (map_get(map, o->key))
            continue;
        const char *text = o->def ? o->def : zero_fill ? zero_text(o) : NULL;
        if (text)
            map_add(map, o->key, node_from_text(text, CFG_DEFAULT_FILE));
    }
}

/* ---- pass 4: schema ------------------------------------------------------------------ */

/* The schema's own sections are option tables too, so one validator serves them and the
 * policies. Keys whose default is NULL are required (checked by the builders below). */
#define OPTD(k, t, s, f, d, h) {k, t, offsetof(s, f), d, h, NULL, 0, 0}
#define OPTE(k, s, f, d, h, v) {k, OPT_ENUM, offsetof(s, f), d, h, v, 0, 0}
#define OPT_END {NULL, OPT_UINT, 0, NULL, NULL, NULL, 0, 0}

typedef struct level_opts {
    int kind;
    uint64_t capacity, granularity, pad_requests_to, transfer_granule;
    int on_oom, spill_victim;
    char spill_host[OPT_STRING_MAX];
} level_opts;

static const char *const on_oom_kinds[] = {"fail", "spill_to_host", NULL};
static const char *const victim_kinds[] = {"lru", "largest", NULL};

static const char *const level_kinds[] = {"hbm",  "host",        "host_pinned", "vmem",  "smem",
                                          "cmem", "accumulator", "shared",      "other", NULL};
static const opt_desc level_desc[] = {
    OPTE("kind", level_opts, kind, "other", "what the memory is", level_kinds),
    OPTD("capacity", OPT_SIZE, level_opts, capacity, NULL, "bytes (required)"),
    OPTD("granularity", OPT_SIZE, level_opts, granularity, "1B", "device allocation unit, bytes"),
    OPTD("pad_requests_to", OPT_SIZE, level_opts, pad_requests_to, "1B",
         "requests round up to a multiple of this (a power of two) before the allocator"),
    OPTD("transfer_granule", OPT_SIZE, level_opts, transfer_granule, "1B",
         "transfers to or from here are charged in whole multiples of this (a power of two)"),
    OPTE("on_oom", level_opts, on_oom, "fail", "fail, or spill_to_host", on_oom_kinds),
    OPTE("spill_victim", level_opts, spill_victim, "lru", "lru or largest first", victim_kinds),
    OPTD("spill_host", OPT_STRING, level_opts, spill_host, "", "host level for spills"),
    OPT_END,
};

typedef struct defrag_opts {
    int mode, trigger;
    double threshold;
    uint64_t every;
    char host[OPT_STRING_MAX];
} defrag_opts;

static const char *const defrag_modes[] = {"none", "compact", "host_roundtrip", NULL};
static const char *const defrag_triggers[] = {"on_oom", "threshold", "every", NULL};
static const opt_desc defrag_desc[] = {
    OPTE("mode", defrag_opts, mode, "none", "none, compact or host_roundtrip", defrag_modes),
    OPTE("trigger", defrag_opts, trigger, "on_oom", "on_oom, threshold or every", defrag_triggers),
    OPTD("threshold", OPT_FRACTION, defrag_opts, threshold, "0.5", "external fragmentation"),
    OPTD("every", OPT_UINT, defrag_opts, every, "1000", "allocations between runs"),
    OPTD("host", OPT_STRING, defrag_opts, host, "", "host level for host_roundtrip"),
    OPT_END,
};

typedef struct link_opts {
    char from[OPT_STRING_MAX], to[OPT_STRING_MAX];
    uint64_t bandwidth;
    double efficiency;
    am_ps latency;
    uint64_t concurrency;
    int duplex;
    double energy;
} link_opts;

static const opt_desc link_desc[] = {
    OPTD("from", OPT_STRING, link_opts, from, NULL, "source memory (required)"),
    OPTD("to", OPT_STRING, link_opts, to, NULL, "destination memory (required)"),
    OPTD("bandwidth", OPT_BANDWIDTH, link_opts, bandwidth, NULL, "peak, bytes/s (required)"),
    OPTD("efficiency", OPT_FRACTION, link_opts, efficiency, "1", "achieved / peak"),
    OPTD("latency", OPT_TIME, link_opts, latency, "0", "per transfer"),
    OPTD("concurrency", OPT_UINT, link_opts, concurrency, "0", "transfers in flight, 0 = any"),
    OPTD("duplex", OPT_BOOL, link_opts, duplex, "true", "full bandwidth each way (false: shared)"),
    OPTD("energy_per_byte", OPT_REAL, link_opts, energy, "0", "picojoules per byte moved, 0 = unknown"),
    OPT_END,
};

typedef struct misc_opts {
    int guard[3];
    int lifetimes;
    am_ps time_unit, timeline_interval;
    uint64_t queue_depth, max_oom_events;
} misc_opts;

static const char *const lifetime_kinds[] = {"half_open", "inclusive", NULL};
static const opt_desc trace_desc[] = {
    OPTE("lifetimes", misc_opts, lifetimes, "half_open", "lifetime CSV intervals",
         lifetime_kinds),
    OPTD("time_unit", OPT_TIME_UNIT, misc_opts, time_unit, "1ns", "one tick of trace time"),
    OPT_END,
};
static const char *const guard_kinds[] = {"allow", "log", "disallow", "log_explicit",
                                          "disallow_explicit", NULL};
static const opt_desc guard_desc[] = {
    OPTE("host_to_device", misc_opts, guard[0], "allow", "implicit host-to-device", guard_kinds),
    OPTE("device_to_host", misc_opts, guard[1], "allow", "implicit device-to-host", guard_kinds),
    OPTE("device_to_device", misc_opts, guard[2], "allow", "implicit device-to-device",
         guard_kinds),
    OPT_END,
};
static const opt_desc engine_desc[] = {
    OPTD("queue_depth", OPT_UINT, misc_opts, queue_depth, "1024", "operations per stream"),
    OPT_END,
};
static const opt_desc report_desc[] = {
    OPTD("timeline_interval", OPT_TIME, misc_opts, timeline_interval, "0",
         "0 = every event; T: each level's last row per period of T"),
    OPTD("max_oom_events", OPT_UINT, misc_opts, max_oom_events, "16", "listed in the JSON"),
    OPT_END,
};

static const char *const top_keys[] = {"version", "device", "preset_merged", "default_memory",
                                       "memories", "links", "trace", "engine", "report",
                                       "transfer_guard", NULL};

int cfg_is_top_key(const char *k)
{
    for (const char *const *t = top_keys; *t; t++)
        if (strcmp(k, *t) == 0)
            return 1;
    return 0;
}

int cfg_is_config_only_key(const char *k) { return cfg_is_top_key(k) && strcmp(k, "device"); }

int cfg_is_sweep_key(const char *k)
{
    static const char *const keys[] = {"base",     "traces",  "generate",     "axes",
                                       "seeds",    "policies", "exclude",     "expectations",
                                       "outputs",  NULL};
    for (const char *const *p = keys; *p; p++)
        if (strcmp(k, *p) == 0)
            return 1;
    return 0;
}

/* Memory, link and device names: 1..CFG_NAME_MAX-1 of [A-Za-z0-9_-] (also keeps device
 * names from walking out of the preset directory). */
static int valid_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= CFG_NAME_MAX)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '-'))
            return 0;
    return 1;
}

/* valid_name, or an error naming what kind of name it was. */
static int check_name(am_error *e, const cfg_node *n, const char *what, const char *name)
{
    if (valid_name(name))
        return 0;
    return node_fail(e, n, "invalid %s name '%s' (1 to %d characters of A-Z a-z 0-9 _ -)", what,
                     name, CFG_NAME_MAX - 1);
}

/* The section `key` of root as a map (an empty one is added when absent). */
static cfg_node *section(cfg_node *root, const char *key, am_error *e)
{
    cfg_node *n = map_get(root, key);
    if (!n)
        return map_add(root, key, node_new(CFG_MAP, CFG_DEFAULT_FILE, 0, 0));
    if (!as_map(n)) {
        node_fail(e, n, "%s: expected a map, not a %s", key, kind_name(n->kind));
        return NULL;
    }
    return n;
}

/* "a, b, c" of the registered policies. */
static void policy_list(char *buf, size_t n)
{
    buf[0] = 0;
    for (const struct alloc_ops *const *p = alloc_all(); p && *p; p++) {
        size_t k = strlen(buf);
        snprintf(buf + k, n - k, "%s%s", k ? ", " : "", (*p)->name);
    }
}

/* Whether the user wrote node k: in the config file or by a --set (or a sweep's set:), not in
 * the device preset nor as a default. */
static int user_written(const am_config *c, const cfg_node *k)
{
    if (strcmp(k->file, c->path) == 0 || strncmp(k->file, "--set ", 6) == 0)
        return 1;
    return strcmp(k->file, CFG_DEFAULT_FILE) != 0 && strcmp(k->file, c->preset) != 0;
}

/* The option `key` of table opts, or NULL. */
static const opt_desc *opt_find(const opt_desc *opts, const char *key)
{
    for (const opt_desc *o = opts; o && o->key; o++)
        if (strcmp(o->key, key) == 0)
            return o;
    return NULL;
}

/* Whether a memory whose policy is `policy` reads the allocator key `key`: `policy` and the
 * policy's own options. One rule for the loader's warning about another policy's key and for
 * the effective config, which leaves such keys out. */
static int allocator_key_read(const struct alloc_ops *policy, const char *key)
{
    return !strcmp(key, "policy") || opt_find(policy->opts, key) != NULL;
}

/* Keys of the allocator map a that belong to other policies than the level's: accepted (so
 * --policy and compare can switch policies on one config), but each one written in the user's
 * config gets a warning when the policy was not switched, since there it does nothing. A
 * policy set by --set or --policy (compare and batch use --set) is a switch: no warnings; nor
 * for a device preset's keys, which the user did not write. */
static void warn_other_policy_keys(am_config *c, const cfg_level *lv, const cfg_node *a,
                                   const cfg_node *pn, const char *apath)
{
    if (cfg_is_override_origin(pn->file))
        return;
    for (const cfg_node *k = a->child; k; k = k->next) {
        /* the user's keys: the config's and --set's (until 2026-11-27 a --set of another
         * policy's key was ignored without a word); not a preset's or a default */
        if (!k->key || !k->file || !user_written(c, k) || allocator_key_read(lv->policy, k->key))
            continue;
        char owners[512] = "";
        for (const struct alloc_ops *const *p = alloc_all(); p && *p; p++)
            for (const opt_desc *o = (*p)->opts; o && o->key; o++)
                if (strcmp(o->key, k->key) == 0) {
                    size_t n = strlen(owners);
                    snprintf(owners + n, sizeof owners - n, "%s%s", n ? ", " : "", (*p)->name);
                    break;
                }
        char decider[CFG_PATH_MAX];
        join_path(decider, sizeof decider, apath, "policy");
        node_warn(c, k, decider, "%s.%s is an option of %s, not of %s%s: ignored", apath, k->key,
                  owners, lv->policy->name, pn->line ? "" : " (the default policy)");
    }
}

/* Keys of the allocator map a that belong to other policies than own are ignored for the run,
 * but checked (type, units, range) as each policy that has the key reads it: the value is there
 * for a switch (--policy, compare, a sweep's policies:), where it would fail, so it fails now, at
 * its place (until 2026-11-25 `max_split_size: abc` under a bfc level passed amsim check).
 * The message names the key's policy and says own ignores it only when own is the policy run:
 * on a level whose policy the command switches (switching: --policies, a sweep's policies:)
 * the value is refused as a run of its policy refuses it, plainly (until 2026-11-27 `compare
 * --policies caching,cuda_async` said "bfc ignores it" though no bfc run was involved). */
static int check_other_policy_keys(const cfg_node *a, const char *apath,
                                   const struct alloc_ops *own, int switching, am_error *e)
{
    char full[CFG_PATH_MAX];
    for (const cfg_node *k = a->child; k; k = k->next) {
        if (!k->key || strcmp(k->key, "policy") == 0 || opt_find(own->opts, k->key))
            continue;
        join_path(full, sizeof full, apath, k->key);
        for (const struct alloc_ops *const *p = alloc_all(); p && *p; p++) {
            const opt_desc *o = opt_find((*p)->opts, k->key);
            if (!o)
                continue;
            /* the error where opt_parse puts it (at k, or at a list's item), then the policy it
             * belongs to (until 2026-11-27 k was parsed without a position and the message
             * placed at k, which put a list item's own position after k's) */
            if (opt_parse(k, full, o, NULL, e) < 0) {
                if (switching)
                    return -1;
                size_t n = strlen(e->msg);
                snprintf(e->msg + n, sizeof e->msg - n, " (%s belongs to policy %s: %s ignores "
                         "it, but it must be valid for a switch to %s)", k->key, (*p)->name,
                         own->name, (*p)->name);
                return -1;
            }
        }
    }
    return 0;
}

int cfg_is_override_origin(const char *file)
{
    return file && (strncmp(file, "--set ", 6) == 0 || strncmp(file, "--policy ", 9) == 0);
}

/* Whether the user gave node n: in the config (or a sweep's file) at a line, or by --set or
 * --policy; not a device preset's key, not a default. */
static int user_gave(const am_config *cfg, const cfg_node *n)
{
    if (!n || !n->file)
        return 0;
    if (cfg_is_override_origin(n->file))
        return 1;
    return n->line && !(cfg->preset[0] && strcmp(n->file, cfg->preset) == 0);
}

/* The first key of the list keys ("a,b") present in the level's allocator map a or, for the
 * level's own keys (capacity, granularity), in the level's map, that the user gave (user = 1)
 * or that has a position (user = 0: a device preset's too). */
static const cfg_node *first_key_at(const am_config *cfg, const cfg_level *L,
                                    const cfg_node *a, const char *keys, int user)
{
    for (const char *k = keys; k && *k;) {
        const char *end = strchr(k, ',');
        size_t n = end ? (size_t)(end - k) : strlen(k);
        char key[CFG_NAME_MAX];
        snprintf(key, sizeof key, "%.*s", (int)AM_MIN(n, sizeof key - 1), k);
        const cfg_node *v = a ? cfg_get(a, key) : NULL;
        if (!v)
            v = cfg_get(L->node, key);
        if (v && (user ? user_gave(cfg, v) : v->line != 0))
            return v;
        k = end ? end + 1 : NULL;
    }
    return NULL;
}

const cfg_node *cfg_setting_at(const am_config *cfg, const cfg_level *L, const char *opts)
{
    const cfg_node *a = cfg_get(L->node, "allocator");
    const cfg_node *pn = a ? cfg_get(a, "policy") : NULL;
    const cfg_node *at = first_key_at(cfg, L, a, opts, 1);
    if (!at && user_gave(cfg, pn))
        at = pn;
    if (!at)
        at = first_key_at(cfg, L, a, opts, 0);
    if (!at)
        at = a && a->line ? a : L->node;
    return at;
}

/* Item `item` (1-based) of the block or flow list n, as the user wrote it; NULL when n is no
 * list (a scalar is the whole one-item list: the key's position stays) or item is 0. A rule a
 * list's item breaks is then placed at the item, as opt_parse places a bad number (until
 * 2026-11-27 at the key). */
static const cfg_node *list_item(const cfg_node *n, size_t item)
{
    if (!n || n->kind != CFG_SEQ || item == 0)
        return NULL;
    const cfg_node *it = n->child;
    for (size_t i = 1; it && i < item; i++)
        it = it->next;
    return it && it->line ? it : NULL;
}

/* The rules a policy applies to its option values and the level's capacity (check_opts: a
 * power-of-two alignment, pool_granularity a multiple of alignment, bfc's limit of 256 bytes
 * or more), at load, placed where cfg_setting_at says. Until 2026-11-25 they were checked only
 * when a run started (so `amsim check` passed them), and `alignment: 0` of best_fit was quietly
 * 256; until 2026-11-27 those on the capacity still were (check_opts had no capacity). */
static int check_policy_rules(const am_config *c, const cfg_level *lv, const cfg_node *a,
                              const char *lpath, const char *apath, am_error *e)
{
    am_error tmp = {0};
    const struct alloc_ops *ops = lv->policy;
    alloc_env env = {.capacity = lv->capacity, .granularity = lv->granularity};
    if (!ops->check_opts || !lv->policy_opts || ops->check_opts(lv->policy_opts, &env, &tmp) == 0)
        return 0;
    /* "POLICY: " once: the rules on the capacity name it already, as create() reports them */
    char msg[sizeof tmp.msg + CFG_NAME_MAX];
    size_t n = strlen(ops->name);
    if (strncmp(tmp.msg, ops->name, n) == 0 && strncmp(tmp.msg + n, ": ", 2) == 0)
        snprintf(msg, sizeof msg, "%s", tmp.msg);
    else
        snprintf(msg, sizeof msg, "%s: %s", ops->name, tmp.msg);
    const cfg_node *at = cfg_setting_at(c, lv, tmp.opts);
    const cfg_node *item = list_item(at, tmp.item);
    if (item && at->key)
        node_fail(e, item, "%s.%s: item %zu: %s", cfg_get(a, at->key) == at ? apath : lpath,
                  at->key, tmp.item, msg);
    else if (at->key && strcmp(at->key, "policy") != 0 && at != lv->node)
        node_fail(e, at, "%s.%s: %s", cfg_get(a, at->key) == at ? apath : lpath, at->key, msg);
    else
        node_fail(e, at, "%s: %s", apath, msg);
    /* the rule's keys stay known, whatever setting the message names (mincap tells a
     * capacity too small for the options by them) */
    e->keys = tmp.opts;
    return -1;
}

/* The allocator section of one level: policy, its options struct, defaults in the tree. */
static int level_allocator(am_config *c, cfg_level *lv, cfg_node *lnode, const char *lpath,
                           am_error *e)
{
    char apath[CFG_PATH_MAX], list[1024];
    const char **also = NULL;
    int rc = -1;

    join_path(apath, sizeof apath, lpath, "allocator");
    cfg_node *a = map_get(lnode, "allocator");
    if (!a)
        a = map_add(lnode, "allocator", node_new(CFG_MAP, CFG_DEFAULT_FILE, 0, 0));
    else if (!as_map(a))
        return node_fail(e, a, "%s: expected a map, not a %s", apath, kind_name(a->kind));
    cfg_node *pn = map_get(a, "policy");
    if (!pn)
        pn = map_add(a, "policy", node_scalar("best_fit", CFG_DEFAULT_FILE));
    if (pn->kind != CFG_SCALAR)
        return node_fail(e, pn, "%s.policy: expected a policy name, not a %s", apath,
                         kind_name(pn->kind));
    lv->policy = alloc_find(pn->value);
    if (!lv->policy) {
        policy_list(list, sizeof list);
        return node_fail(e, pn, "%s.policy: unknown allocator policy '%s' (registered: %s)",
                         apath, pn->value, list);
    }
    /* Keys of the other policies are accepted and ignored (--policy, compare): also[] is
     * "policy" followed by every key of every registered table (duplicates are harmless). */
    size_t nalso = 1;
    for (const struct alloc_ops *const *p = alloc_all(); p && *p; p++)
        for (const opt_desc *o = (*p)->opts; o && o->key; o++)
            nalso++;
    also = am_calloc(nalso + 1, sizeof *also);
    nalso = 0;
    also[nalso++] = "policy";
    for (const struct alloc_ops *const *p = alloc_all(); p && *p; p++)
        for (const opt_desc *o = (*p)->opts; o && o->key; o++)
            also[nalso++] = o->key;
    /* zeroed so padding compares equal and a policy without options keeps NULL */
    if (lv->policy->opts_size)
        lv->policy_opts = am_calloc(1, lv->policy->opts_size);
    /* A level whose policy the caller switches (cfg_load_switched) runs some other policy: its
     * own policy's rules are not this config's to check, nor its keys to warn about. */
    int switching = strcmp(((const cfg_owner *)c)->switching, lv->name) == 0;
    if (cfg_apply_opts(a, apath, lv->policy->opts, lv->policy_opts, also, e) < 0 ||
        check_other_policy_keys(a, apath, lv->policy, switching, e) < 0 ||
        (!switching && check_policy_rules(c, lv, a, lpath, apath, e) < 0))
        goto err;
    if (!switching)
        warn_other_policy_keys(c, lv, a, pn, apath);
    fill_defaults(a, lv->policy->opts, 1);
    rc = 0;
err:
    free(also);
    return rc;
}

/* A memory or link that only a --set path made (memories.hmb.capacity=1GiB where the config
 * and its preset have no memory hmb) is refused: it is almost always a misspelt name, and
 * until 2026-11-27 it silently added a level (or failed on a missing key with no hint). A new
 * one is written whole, as a map value: --set 'memories.NAME={capacity: 1GiB}'. what is
 * "memory" or "link", sec the section map holding n. */
static int fail_set_made(am_error *e, const cfg_node *sec, const cfg_node *n, const char *what,
                         const char *example)
{
    const char *cands[CFG_MAX_LEVELS + CFG_MAX_LINKS + 1];
    char names[1024] = "", hint[1024];
    int nc = 0;
    for (const cfg_node *k = sec->child; k; k = k->next) {
        if (k->by_set_path || nc == (int)AM_ARRAY_LEN(cands) - 1)
            continue;
        size_t l = strlen(names);
        snprintf(names + l, sizeof names - l, "%s%s", nc ? ", " : "", k->key);
        cands[nc++] = k->key;
    }
    cands[nc] = NULL;
    const char *near = suggest(n->key, NULL, cands);
    if (near)
        snprintf(hint, sizeof hint, "did you mean '%s'?", near);
    else
        snprintf(hint, sizeof hint, "%s: %.900s", sec->key, nc ? names : "none");
    /* the advice in the form the override was written in: a sweep's set: takes a map value
     * (until 2026-11-27 a sweep was told the --set form, which it cannot write) */
    if (n->by_set_path == CFG_MADE_BY_PLACED_SET)
        return node_fail(e, n, "unknown %s '%s' (%s): a sweep's set: and axes change the %s "
                         "the config defines; give a new one whole in set:, e.g. set: "
                         "{%s.%s: {%s}}", what, n->key, hint, sec->key, sec->key, n->key,
                         example);
    return node_fail(e, n, "unknown %s '%s' (%s): --set changes the %s the config defines; "
                     "give a new one whole, e.g. --set '%s.%s={%s}'", what, n->key, hint,
                     sec->key, sec->key, n->key, example);
}

/* An effective bandwidth (bandwidth x efficiency, as the engine takes it, in double) below the
 * smallest rate the engine keeps is refused at the efficiency (the bandwidth is a whole
 * number of bytes per second, so only an efficiency below a millionth gets here): like a value
 * that is not 0 but rounds to 0, it would silently run at another rate (until 2026-11-27 at
 * CFG_LINK_RATE_MIN: 1B/s x 1e-7 moved 3 bytes in 3,000,000 s, not 30,000,000 s). */
static int link_rate_too_low(am_error *e, const cfg_node *kn, const char *path,
                             const link_opts *lo)
{
    double rate = (double)lo->bandwidth * lo->efficiency;
    if (rate >= CFG_LINK_RATE_MIN)
        return 0;
    const cfg_node *at = map_get(kn, "efficiency");
    char eff[40]; /* as written: until 2026-11-28 %g's 6 digits */
    units_fmt_real(eff, sizeof eff, lo->efficiency);
    return node_fail(e, at ? at : map_get(kn, "bandwidth"), "%s: bandwidth x efficiency is %g "
                     "B/s (%" PRIu64 " B/s x %s), below the smallest rate kept, %g B/s; raise "
                     "efficiency or bandwidth", path, rate, lo->bandwidth, eff,
                     CFG_LINK_RATE_MIN);
}

/* Whether k, a scalar option of `opts`, is written as its default's text: it changes nothing,
 * ignored or not, so it is not warned about (until 2026-11-27 the effective config that -o
 * writes listed every defrag key at its default, and reading it back warned for each; it now
 * leaves out the keys not read, see key_unread). */
static int says_default(const cfg_node *k, const opt_desc *opts)
{
    for (const opt_desc *o = opts; o->key; o++)
        if (!strcmp(o->key, k->key))
            return o->def && k->kind == CFG_SCALAR && k->value && !strcmp(k->value, o->def);
    return 0;
}

/* Whether the defrag option `key` is read under defrag mode `mode` and trigger `trigger`; when
 * not, why (the words of the warning) into why[n] and the defrag key that decides it ("mode" or
 * "trigger") into *by, unless by is NULL (*by is left alone when the key is read). One rule for the loader's warning and for the effective config, which
 * leaves such keys out so that reading it back says nothing (until 2026-11-27 it wrote them:
 * `every: 50` under `trigger: threshold` read back with a warning). */
static int defrag_key_read(const char *key, int mode, int trigger, char *why, size_t n,
                           const char **by)
{
    const char *decider = NULL; /* set with why, in the branch that decides */
    why[0] = 0;
    if (!strcmp(key, "mode"))
        return 1;
    if (mode == CFG_DEFRAG_NONE) {
        snprintf(why, n, "read only when defragmenting, and mode is none");
        decider = "mode";
    } else if (!strcmp(key, "threshold") && trigger != CFG_TRIGGER_THRESHOLD) {
        snprintf(why, n, "read only under trigger: threshold, not %s", defrag_triggers[trigger]);
        decider = "trigger";
    } else if (!strcmp(key, "every") && trigger != CFG_TRIGGER_EVERY) {
        snprintf(why, n, "read only under trigger: every, not %s", defrag_triggers[trigger]);
        decider = "trigger";
    } else if (!strcmp(key, "host") && mode != CFG_DEFRAG_HOST_ROUNDTRIP) {
        snprintf(why, n, "read only under mode: host_roundtrip, not %s", defrag_modes[mode]);
        decider = "mode";
    }
    if (decider && by)
        *by = decider;
    return decider == NULL;
}

/* A defrag option the user wrote that the mode or trigger never reads is ignored, said as
 * an allocator key of another policy is (until 2026-11-27 silently: `mode: none` with
 * `trigger: every` looked like defragmentation every 1000 allocations). */
static void warn_defrag_unused(am_config *c, const cfg_node *dn, const char *dpath,
                               const defrag_opts *d)
{
    for (const cfg_node *k = dn->child; k; k = k->next) {
        if (!k->key || !k->file || !user_written(c, k) || says_default(k, defrag_desc))
            continue;
        char why[96], decider[CFG_PATH_MAX];
        const char *by;
        if (defrag_key_read(k->key, d->mode, d->trigger, why, sizeof why, &by))
            continue;
        join_path(decider, sizeof decider, dpath, by);
        node_warn(c, k, decider, "%s.%s is %s: ignored", dpath, k->key, why);
    }
}

/* memories: one cfg_level per entry, in tree order (the preset's order after a merge). */
static int build_levels(am_config *c, cfg_node *root, am_error *e)
{
    cfg_node *mem = map_get(root, "memories");
    char path[CFG_PATH_MAX];
    /* under preset_merged: true the device's memories are not looked up: say so, as the
     * file names a device (until 2026-11-28 the message did not tell why) */
    if (!mem && ((const cfg_owner *)c)->preset_merged)
        return node_fail(e, root, "missing required key 'memories' (at least one memory): "
                         "preset_merged: true says the preset of '%s' is already in this file, "
                         "so no preset is loaded; drop preset_merged to load it", c->device);
    if (!mem)
        return node_fail(e, root, "missing required key 'memories' (at least one memory)");
    if (!as_map(mem) || !mem->child)
        return node_fail(e, mem, "memories: expected a map of at least one memory");
    for (cfg_node *ln = mem->child; ln; ln = ln->next) {
        if (c->nlevels == CFG_MAX_LEVELS)
            return node_fail(e, ln, "memories: more than %d memories", CFG_MAX_LEVELS);
        if (ln->by_set_path)
            return fail_set_made(e, mem, ln, "memory", "capacity: 1GiB");
        if (check_name(e, ln, "memory", ln->key) < 0)
            return -1;
        join_path(path, sizeof path, "memories", ln->key);
        if (!as_map(ln))
            return node_fail(e, ln, "%s: expected a map, not a %s", path, kind_name(ln->kind));
        cfg_level *lv = &c->levels[c->nlevels++];
        static const char *const also[] = {"allocator", "defrag", NULL};
        level_opts lo;
        strcpy(lv->name, ln->key);
        lv->node = ln;
        if (cfg_apply_opts(ln, path, level_desc, &lo, also, e) < 0)
            return -1;
        /* required and range checks the option table cannot express */
        if (!map_get(ln, "capacity"))
            return node_fail(e, ln, "%s: missing required key 'capacity'", path);
        if (lo.capacity == 0)
            return node_fail(e, map_get(ln, "capacity"), "%s.capacity: must be > 0", path);
        /* 0 is "unset", as for memory_limit and release_threshold (README, Configs): no
         * device granularity, the default 1 byte. Until 2026-11-27 the README said so and the
         * loader refused it ("must be > 0"). */
        if (lo.granularity == 0)
            lo.granularity = 1;
        if (lo.capacity > AM_MAX_BYTES)
            return node_fail(e, map_get(ln, "capacity"), "%s.capacity: at most 4 EiB (%llu "
                             "bytes)", path, (unsigned long long)AM_MAX_BYTES);
        if (lo.granularity > AM_MAX_BYTES)
            return node_fail(e, map_get(ln, "granularity"), "%s.granularity: at most 4 EiB "
                             "(%llu bytes)", path, (unsigned long long)AM_MAX_BYTES);
        /* a power of two (tile sizes are), at most 4 EiB: a padded request stays <= 4 EiB */
        if (lo.pad_requests_to == 0 || (lo.pad_requests_to & (lo.pad_requests_to - 1)) ||
            lo.pad_requests_to > AM_MAX_BYTES)
            return node_fail(e, map_get(ln, "pad_requests_to"), "%s.pad_requests_to: %llu "
                             "bytes is not a power of two from 1 byte to 4 EiB", path,
                             (unsigned long long)lo.pad_requests_to);
        /* a power of two (DMA granules are), at most 4 EiB, as pad_requests_to: a transfer
         * rounded up to it stays a whole number of granules below 2^64 (engine.c) */
        if (lo.transfer_granule == 0 || (lo.transfer_granule & (lo.transfer_granule - 1)) ||
            lo.transfer_granule > AM_MAX_BYTES)
            return node_fail(e, map_get(ln, "transfer_granule"), "%s.transfer_granule: %llu "
                             "bytes is not a power of two from 1 byte to 4 EiB", path,
                             (unsigned long long)lo.transfer_granule);
        snprintf(lv->kind, sizeof lv->kind, "%s", level_kinds[lo.kind]);
        lv->capacity = lo.capacity;
        lv->granularity = lo.granularity;
        lv->pad_requests_to = lo.pad_requests_to;
        lv->transfer_granule = lo.transfer_granule;
        lv->on_oom = lo.on_oom;
        lv->spill_victim = lo.spill_victim;
        lv->spill_host = -1;
        lv->defrag.host = -1;
        fill_defaults(ln, level_desc, 0);
        char dpath[CFG_PATH_MAX];
        join_path(dpath, sizeof dpath, path, "defrag");
        cfg_node *dn = map_get(ln, "defrag");
        if (!dn)
            dn = map_add(ln, "defrag", node_new(CFG_MAP, CFG_DEFAULT_FILE, 0, 0));
        else if (!as_map(dn))
            return node_fail(e, dn, "%s: expected a map, not a %s", dpath, kind_name(dn->kind));
        defrag_opts dopt;
        if (cfg_apply_opts(dn, dpath, defrag_desc, &dopt, NULL, e) < 0)
            return -1;
        fill_defaults(dn, defrag_desc, 0);
        lv->defrag.mode = dopt.mode;
        lv->defrag.trigger = dopt.trigger;
        lv->defrag.threshold = dopt.threshold;
        lv->defrag.every = dopt.every;
        /* refused whatever the trigger (until 2026-11-27 only under trigger: every, and
         * accepted, unused, under the others) */
        if (dopt.every == 0)
            return node_fail(e, map_get(dn, "every"), "%s.every: must be > 0", dpath);
        warn_defrag_unused(c, dn, dpath, &dopt);
        if (level_allocator(c, lv, ln, path, e) < 0)
            return -1;
    }
    return 0;
}

static int level_is_host(const am_config *c, int level)
{
    const char *k = c->levels[level].kind;
    return strcmp(k, "host") == 0 || strcmp(k, "host_pinned") == 0;
}

/* The host level a level spills to or round-trips through: named, or the first host memory. */
static int host_level(am_config *c, int self, const cfg_node *named, const char *path, am_error *e)
{
    if (named && named->kind == CFG_SCALAR && named->value[0]) {
        int i = cfg_level_index(c, named->value, strlen(named->value));
        if (i == self)
            return node_fail(e, named, "%s: '%s' is not another memory", path, named->value);
        if (i < 0) {
            /* an unknown name is said to be one, with the closest memory or all of them, as
             * a link's end is (until 2026-11-27: "'nohost' is not another memory") */
            const char *cands[CFG_MAX_LEVELS + 1];
            char names[CFG_LEVEL_LIST_MAX];
            for (int k = 0; k < c->nlevels; k++)
                cands[k] = c->levels[k].name;
            cands[c->nlevels] = NULL;
            const char *near = suggest(named->value, NULL, cands);
            if (near)
                return node_fail(e, named, "%s: unknown memory '%s' (did you mean '%s'?)", path,
                                 named->value, near);
            cfg_level_names(c, names, sizeof names);
            return node_fail(e, named, "%s: unknown memory '%s' (memories: %s)", path,
                             named->value, names);
        }
        return i;
    }
    for (int i = 0; i < c->nlevels; i++)
        if (i != self && level_is_host(c, i))
            return i;
    return -2; /* none */
}

/* Spill and defragmentation settings that name other memories. */
static int build_hierarchy(am_config *c, am_error *e)
{
    char path[CFG_PATH_MAX];
    for (int i = 0; i < c->nlevels; i++) {
        cfg_level *lv = &c->levels[i];
        cfg_node *ln = (cfg_node *)(uintptr_t)lv->node;
        join_path(path, sizeof path, "memories", lv->name);
        char p2[CFG_PATH_MAX];
        join_path(p2, sizeof p2, path, "spill_host");
        int h = host_level(c, i, map_get(ln, "spill_host"), p2, e);
        if (h == -1)
            return -1;
        lv->spill_host = h >= 0 ? h : -1;
        if (lv->on_oom == CFG_ON_OOM_SPILL && h < 0)
            return node_fail(e, map_get(ln, "on_oom"),
                             "%s.on_oom: spill_to_host needs a host memory (kind host or "
                             "host_pinned, or spill_host)", path);
        join_path(p2, sizeof p2, path, "defrag.host");
        h = host_level(c, i, map_get(map_get(ln, "defrag"), "host"), p2, e);
        if (h == -1)
            return -1;
        lv->defrag.host = h >= 0 ? h : -1;
        if (lv->defrag.mode == CFG_DEFRAG_HOST_ROUNDTRIP && h < 0)
            return node_fail(e, map_get(map_get(ln, "defrag"), "mode"),
                             "%s.defrag.mode: host_roundtrip needs a host memory (kind host or "
                             "host_pinned, or defrag.host)", path);
    }
    return 0;
}

/* The first of c's first n links between memories a and b, either way round, or -1. */
static int link_between(const am_config *c, int a, int b, int n)
{
    for (int i = 0; i < n; i++)
        if ((c->links[i].from == a && c->links[i].to == b) ||
            (c->links[i].from == b && c->links[i].to == a))
            return i;
    return -1;
}

/* A link between memories a and b, either way round (a == b: a copy link within one memory);
 * every link carries transfers both ways. */
static int have_link(const am_config *c, int a, int b) { return link_between(c, a, b, c->nlinks) >= 0; }

/* Runtime actions that copy buffers need the link their copies take: compaction copies within
 * the memory (allocators.md section 2: "device-to-device copies of the bytes moved"), a host
 * round trip and spilling copy to the host memory and back. Neither spec gives them a cost
 * without a link, so a config that enables one without its link is refused at the setting that
 * enables it. (Until 2026-11-25 such copies cost 0 s: compaction was free on every TPU preset.) */
static int check_copy_links(const am_config *c, am_error *e)
{
    char path[CFG_PATH_MAX];
    for (int i = 0; i < c->nlevels; i++) {
        const cfg_level *lv = &c->levels[i];
        const cfg_node *ln = lv->node;
        join_path(path, sizeof path, "memories", lv->name);
        const cfg_node *mode = cfg_get(cfg_get(ln, "defrag"), "mode");
        if (lv->defrag.mode == CFG_DEFRAG_COMPACT && !have_link(c, i, i))
            return node_fail(e, mode, "%s.defrag.mode: compact copies buffers within '%s' and "
                             "needs a link from %s to %s (a device-local copy link, as hbm_copy "
                             "in configs/devices/h100.yaml); the config has none",
                             path, lv->name, lv->name, lv->name);
        if (lv->defrag.mode == CFG_DEFRAG_HOST_ROUNDTRIP && !have_link(c, i, lv->defrag.host))
            return node_fail(e, mode, "%s.defrag.mode: host_roundtrip copies every live buffer to "
                             "'%s' and back and needs a link between %s and %s; the config has "
                             "none", path, c->levels[lv->defrag.host].name, lv->name,
                             c->levels[lv->defrag.host].name);
        if (lv->on_oom == CFG_ON_OOM_SPILL && !have_link(c, i, lv->spill_host))
            return node_fail(e, cfg_get(ln, "on_oom"), "%s.on_oom: spill_to_host copies buffers to "
                             "'%s' and back and needs a link between %s and %s; the config has "
                             "none", path, c->levels[lv->spill_host].name, lv->name,
                             c->levels[lv->spill_host].name);
    }
    return 0;
}

/* "hbm, host" for messages about unknown memory names. */
void cfg_level_names(const am_config *c, char *buf, size_t n)
{
    cfg_level_list(c, ((uint64_t)1 << c->nlevels) - 1, ", ", buf, n); /* nlevels <= 16 */
}

/* One loop for every list of level names: only the separator before the last name differs
 * (", " in a list, " and " in a sentence). Until 2026-11-27 the reference run's allocating
 * levels (run.c) and the summary's spill targets (report.c) each had a copy of it. */
void cfg_level_list(const am_config *c, uint64_t mask, const char *last_sep, char *buf,
                    size_t n)
{
    int total = 0, k = 0;
    for (int i = 0; i < c->nlevels; i++)
        total += (int)((mask >> i) & 1);
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < c->nlevels && len < n; i++) {
        if (!((mask >> i) & 1))
            continue;
        const char *sep = k == 0 ? "" : k == total - 1 ? last_sep : ", ";
        int w = snprintf(buf + len, n - len, "%s%s", sep, c->levels[i].name);
        len += w > 0 ? (size_t)w : 0;
        k++;
    }
}

/* The end (from, then to) of link node ln that the user gave, or NULL. */
static const cfg_node *user_link_end(const am_config *c, const cfg_node *ln)
{
    const cfg_node *from = map_get(ln, "from"), *to = map_get(ln, "to");
    return user_gave(c, from) ? from : user_gave(c, to) ? to : NULL;
}

/* Links a (earlier) and b join the same two memories: refused where the user made them meet.
 * At b's position unless only a's from or to is the user's (a preset link redirected onto
 * another preset link's memories): then at that value, naming b, so the error is not placed in
 * the read-only preset (until 2026-11-27 `links: {pcie: {from: hbm}}` on the h100 preset was
 * reported at configs/devices/h100.yaml:94:3, its hbm_copy). */
static int link_twice(const am_config *c, const cfg_node *a, const cfg_node *b, am_error *e)
{
    const cfg_node *at = b, *other = a, *a_end = a ? user_link_end(c, a) : NULL;
    char path[CFG_PATH_MAX], where[96] = "";
    join_path(path, sizeof path, "links", b->key);
    if (a_end && !user_link_end(c, b)) {
        at = a_end, other = b;
        snprintf(path, sizeof path, "links.%s.%s", a->key, a_end->key);
    }
    if (other && other->line)
        snprintf(where, sizeof where, " (%s line %lu)",
                 other->file && at->file && strcmp(other->file, at->file) ? other->file : "at",
                 other->line);
    const cfg_link *l = &c->links[c->nlinks - 1]; /* b's: both ends read and known */
    return node_fail(e, at, "%s: memories '%s' and '%s' already have link '%s'%s; a link carries "
                     "transfers both ways: set that link's values instead", path,
                     c->levels[l->from].name, c->levels[l->to].name,
                     other ? other->key : "?", where);
}

/* links: each names two existing memories (from == to is a copy within one memory). */
static int build_links(am_config *c, cfg_node *root, am_error *e)
{
    char path[CFG_PATH_MAX], names[CFG_LEVEL_LIST_MAX];
    cfg_node *links = section(root, "links", e);
    if (!links)
        return -1;
    for (cfg_node *kn = links->child; kn; kn = kn->next) {
        if (c->nlinks == CFG_MAX_LINKS)
            return node_fail(e, kn, "links: more than %d links", CFG_MAX_LINKS);
        if (kn->by_set_path)
            return fail_set_made(e, links, kn, "link", "from: host, to: hbm, bandwidth: 64GB/s");
        if (check_name(e, kn, "link", kn->key) < 0)
            return -1;
        join_path(path, sizeof path, "links", kn->key);
        if (!as_map(kn))
            return node_fail(e, kn, "%s: expected a map, not a %s", path, kind_name(kn->kind));
        link_opts lo;
        if (cfg_apply_opts(kn, path, link_desc, &lo, NULL, e) < 0)
            return -1;
        static const char *const required[] = {"from", "to", "bandwidth"};
        for (size_t i = 0; i < AM_ARRAY_LEN(required); i++)
            if (!map_get(kn, required[i]))
                return node_fail(e, kn, "%s: missing required key '%s'", path, required[i]);
        /* both ends must be memories built above */
        cfg_link *l = &c->links[c->nlinks++];
        strcpy(l->name, kn->key);
        l->from = cfg_level_index(c, lo.from, strlen(lo.from));
        l->to = cfg_level_index(c, lo.to, strlen(lo.to));
        if (l->from < 0 || l->to < 0) {
            const char *end = l->from < 0 ? "from" : "to";
            cfg_level_names(c, names, sizeof names);
            return node_fail(e, map_get(kn, end), "%s.%s: unknown memory '%s' (memories: %s)",
                             path, end, l->from < 0 ? lo.from : lo.to, names);
        }
        /* one link per pair of memories: it carries transfers both ways, and a transfer takes
         * the first link between its two memories, so a second one would never carry anything
         * (until 2026-11-27 it was accepted: a faster `d2h` beside a preset's `pcie` was never
         * used, silently) */
        int first = link_between(c, l->from, l->to, c->nlinks - 1);
        if (first >= 0)
            return link_twice(c, map_get(links, c->links[first].name), kn, e);
        if (lo.bandwidth == 0)
            return node_fail(e, map_get(kn, "bandwidth"), "%s.bandwidth: must be > 0", path);
        if (!(lo.efficiency > 0.0))
            return node_fail(e, map_get(kn, "efficiency"), "%s.efficiency: must be > 0", path);
        if (link_rate_too_low(e, kn, path, &lo) < 0)
            return -1;
        if (lo.concurrency > UINT32_MAX)
            return node_fail(e, map_get(kn, "concurrency"), "%s.concurrency: too large", path);
        l->bandwidth = lo.bandwidth;
        l->efficiency = lo.efficiency;
        l->latency = lo.latency;
        l->concurrency = (uint32_t)lo.concurrency;
        l->duplex = lo.duplex;
        /* at most 1e12 pJ (1 J) a byte: a link's energy, bytes (below 2^64) x this, stays
         * finite, so text and JSON give a number (until 2026-11-27 1e308 was accepted: the
         * text said "inf mJ", the JSON null); -0 too, as every negative */
        if (!(lo.energy >= 0) || signbit(lo.energy) || lo.energy > 1e12) {
            char en[40]; /* as written: until 2026-11-28 %g made 1000000000000.001 "1e+12" */
            units_fmt_real(en, sizeof en, lo.energy);
            return node_fail(e, map_get(kn, "energy_per_byte"), "%s.energy_per_byte: must be "
                             "between 0 and 1e12 picojoules per byte (1 J), not %s", path, en);
        }
        l->energy_pj_per_byte = lo.energy;
        fill_defaults(kn, link_desc, 0);
    }
    return 0;
}

/* A transfer_guard direction other than allow needs memories of the kinds it tells apart: a
 * host memory (`kind: host` or `host_pinned`) for host_to_device and device_to_host, a device
 * memory (any other kind) for every direction. Without them the direction never applies, so
 * it is refused where it is set (until 2026-11-27 a memory named `host` without a `kind` was
 * kind `other`, a device, and host_to_device=disallow silently never triggered). */
static int check_guard_kinds(const am_config *c, cfg_node *root, am_error *e)
{
    static const char *const dirs[3] = {"host_to_device", "device_to_host", "device_to_device"};
    int hosts = 0, devices = 0;
    for (int i = 0; i < c->nlevels; i++) {
        if (level_is_host(c, i))
            hosts++;
        else
            devices++;
    }
    for (int d = 0; d < 3; d++) {
        if (c->guard[d] == CFG_GUARD_ALLOW)
            continue;
        const char *missing = NULL;
        if (d != CFG_DIR_D2D && !hosts)
            missing = "no memory is host memory (kind: host or host_pinned)";
        else if (!devices)
            missing = "no memory is device memory (a kind other than host or host_pinned)";
        if (missing)
            return node_fail(e, map_get(map_get(root, "transfer_guard"), dirs[d]),
                             "transfer_guard.%s: set, but %s, so it would never apply; give "
                             "each memory its `kind` (a memory without one is `other`, a "
                             "device memory, whatever its name)", dirs[d], missing);
    }
    return 0;
}

/* trace:, engine:, report: sections. */
static int build_misc(am_config *c, cfg_node *root, am_error *e)
{
    static const struct {
        const char *key;
        const opt_desc *desc;
    } secs[] = {{"trace", trace_desc},
                {"engine", engine_desc},
                {"report", report_desc},
                {"transfer_guard", guard_desc}};
    misc_opts mo;
    memset(&mo, 0, sizeof mo);
    for (size_t i = 0; i < AM_ARRAY_LEN(secs); i++) {
        cfg_node *s = section(root, secs[i].key, e);
        if (!s || cfg_apply_opts(s, secs[i].key, secs[i].desc, &mo, NULL, e) < 0)
            return -1;
        fill_defaults(s, secs[i].desc, 0);
    }
    /* trace.time_unit is whole picoseconds and above 0 by its type (OPT_TIME_UNIT) */
    if (mo.queue_depth == 0 || mo.queue_depth > UINT32_MAX)
        return node_fail(e, map_get(map_get(root, "engine"), "queue_depth"),
                         "engine.queue_depth: must be between 1 and %u", UINT32_MAX);
    if (mo.max_oom_events > UINT32_MAX)
        return node_fail(e, map_get(map_get(root, "report"), "max_oom_events"),
                         "report.max_oom_events: too large");
    for (int i = 0; i < 3; i++)
        c->guard[i] = mo.guard[i];
    if (check_guard_kinds(c, root, e) < 0)
        return -1;
    c->trace.lifetimes_inclusive = mo.lifetimes == 1;
    c->trace.time_unit = mo.time_unit;
    c->engine.queue_depth = (uint32_t)mo.queue_depth;
    c->report.timeline_interval = mo.timeline_interval;
    c->report.max_oom_events = (uint32_t)mo.max_oom_events;
    return 0;
}

/* version must be 1; required in a config, optional in a preset. */
static int check_version(const cfg_node *root, am_error *e, int required)
{
    const cfg_node *v = map_get(root, "version");
    uint64_t n;
    if (!v)
        return required ? node_fail(e, root, "missing required key 'version' (supported "
                                    "versions: 1)") : 0;
    /* a list or a map is said as other keys say it (until 2026-11-27 "unsupported config
     * version 'list'", as if 'list' had been typed) */
    if (v->kind != CFG_SCALAR)
        return node_fail(e, v, "version: expected a single value, not a %s (supported "
                         "versions: 1)", kind_name(v->kind));
    /* written as the integer 1 (not 01, +1 or 1e0: a version is a name, not a quantity) */
    if (number_form(v->value) ||
        units_u64(v->value, strlen(v->value), &n) < 0 || n != 1)
        return node_fail(e, v, "unsupported config version '%s' (supported versions: 1)",
                         v->value);
    return 0;
}

/* Put the top-level keys in schema order (a preset merge would otherwise leave the user's
 * version and device after the preset's memories). Levels keep their order. */
static void sort_top(cfg_node *root)
{
    cfg_node *sorted = NULL, **tail = &sorted;
    for (const char *const *t = top_keys; *t; t++) {
        cfg_node **pp = &root->child;
        while (*pp && strcmp((*pp)->key, *t) != 0)
            pp = &(*pp)->next;
        if (*pp) {
            cfg_node *n = *pp;
            *pp = n->next;
            n->next = NULL;
            *tail = n;
            tail = &n->next;
        }
    }
    *tail = root->child; /* nothing is left after validation; kept for safety */
    root->child = sorted;
}

/* Unknown top-level keys are refused first: a typo there (verison: 1) explains a later
 * "missing" error. */
static int check_top_keys(const cfg_node *root, am_error *e)
{
    for (const cfg_node *k = root->child; k; k = k->next) {
        const char *const *t = top_keys;
        while (*t && strcmp(*t, k->key) != 0)
            t++;
        if (!*t)
            return fail_unknown_key(e, k, "", NULL, top_keys);
    }
    return 0;
}

/* Validate the merged tree and fill the structs (and the tree's defaults). */
static int build(am_config *c, cfg_node *root, am_error *e)
{
    if (check_top_keys(root, e) < 0 || check_version(root, e, 1) < 0)
        return -1;
    const cfg_node *dev = map_get(root, "device");
    if (dev) /* checked when the preset was merged */
        snprintf(c->device, sizeof c->device, "%s", dev->value);
    if (build_levels(c, root, e) < 0)
        return -1;
    /* default_memory: written or the first memory, and then in the tree either way */
    cfg_node *dm = map_get(root, "default_memory");
    if (!dm) {
        map_add(root, "default_memory", node_scalar(c->levels[0].name, CFG_DEFAULT_FILE));
        c->default_level = 0;
    } else {
        char names[CFG_LEVEL_LIST_MAX];
        if (dm->kind != CFG_SCALAR)
            return node_fail(e, dm, "default_memory: expected a memory name, not a %s",
                             kind_name(dm->kind));
        c->default_level = cfg_level_index(c, dm->value, strlen(dm->value));
        cfg_level_names(c, names, sizeof names);
        if (c->default_level < 0)
            return node_fail(e, dm, "default_memory: unknown memory '%s' (memories: %s)",
                             dm->value, names);
    }
    if (build_hierarchy(c, e) < 0 || build_links(c, root, e) < 0 || check_copy_links(c, e) < 0 ||
        build_misc(c, root, e) < 0)
        return -1;
    sort_top(root);
    return 0;
}

/* ---- device presets ------------------------------------------------------------------ */

#define CFG_MAX_DIRS 12

/* The preset directories in search order (config.h); returns how many. */
static int preset_dirs(const char *cfgdir, char dirs[][1024])
{
    int n = 0;
    const char *env = getenv("AMSIM_DEVICES");
    while (env && *env && n < CFG_MAX_DIRS - 3) {
        size_t len = strcspn(env, ":");
        if (len && len < 1024) {
            memcpy(dirs[n], env, len);
            dirs[n++][len] = 0;
        }
        env += len + (env[len] == ':');
    }
    if (cfgdir) {
        snprintf(dirs[n++], 1024, "%s/devices", cfgdir);
        snprintf(dirs[n++], 1024, "%s/../configs/devices", cfgdir);
    }
    snprintf(dirs[n++], 1024, "%s/configs/devices", AMSIM_SOURCE_DIR);
    return n;
}

/* qsort comparator for an array of C strings. */
static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "a, b" of the presets found in dirs (deduplicated, sorted). */
static void preset_list(char dirs[][1024], int ndirs, char *buf, size_t bufn)
{
    char *names[128];
    size_t n = 0;
    for (int i = 0; i < ndirs; i++) {
        DIR *d = opendir(dirs[i]);
        struct dirent *de;
        while (d && (de = readdir(d)) != NULL) {
            size_t len = strlen(de->d_name);
            if (len <= 5 || strcmp(de->d_name + len - 5, ".yaml") != 0 || n == 128)
                continue;
            char *name = am_strndup(de->d_name, len - 5);
            size_t j = 0;
            while (j < n && strcmp(names[j], name) != 0)
                j++;
            if (j < n || !valid_name(name))
                free(name);
            else
                names[n++] = name;
        }
        if (d)
            closedir(d);
    }
    qsort(names, n, sizeof names[0], cmp_str);
    buf[0] = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = strlen(buf);
        snprintf(buf + k, bufn - k, "%s%s", i ? ", " : "", names[i]);
        free(names[i]);
    }
    if (!n)
        snprintf(buf, bufn, "none found");
}

/* Standard input's text, once a config "-" read it whole: compare and mincap load the config
 * once per run, and a pipe gives its bytes only once (until 2026-11-27 every run after the
 * first read it empty: "missing required key 'version'"). Kept for the process's life. */
static char *stdin_text;
static size_t stdin_len; /* stdin_text is never NULL once read (read_file allocates) */

static void stdin_copy(char **buf, size_t *len)
{
    *buf = am_malloc(stdin_len ? stdin_len : 1);
    memcpy(*buf, stdin_text, stdin_len);
    *len = stdin_len;
}

static int read_file(const char *path, char **buf, size_t *len, am_error *e);

int cfg_read_file(const char *path, char **buf, size_t *len, am_error *e)
{
    int from_stdin = strcmp(path, "-") == 0;
    if (from_stdin && stdin_text) {
        stdin_copy(buf, len);
        return 0;
    }
    if (read_file(path, buf, len, e) < 0)
        return -1;
    if (from_stdin) {
        stdin_text = *buf;
        stdin_len = *len;
        stdin_copy(buf, len); /* the caller frees its own copy */
    }
    return 0;
}

static int read_file(const char *path, char **buf, size_t *len, am_error *e)
{
    FILE *f = fopen(am_input_name(path), "rb"); /* "-": standard input, as check - reads it */
    if (!f)
        return am_fail(e, AM_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 4096, n = 0, r;
    char *b = am_malloc(cap);
    while ((r = fread(b + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n > CFG_MAX_FILE) {
            fclose(f);
            free(b);
            return am_fail(e, AM_EINPUT, "%s: larger than %u bytes", path, CFG_MAX_FILE);
        }
        if (n == cap)
            b = am_realloc(b, cap *= 2);
    }
    int bad = ferror(f), saved = errno; /* a directory opens but fails to read: EISDIR */
    fclose(f);
    if (bad) {
        free(b);
        return am_fail(e, AM_EINPUT, "%s: read error: %s", path, strerror(saved));
    }
    *buf = b;
    *len = n;
    return 0;
}

/* libyaml's read handler for cfg_sniff: the file, cut off after CFG_SNIFF_BYTES (a text
 * trace without a header, one multi-line scalar to YAML, would otherwise be read whole). */
/* Where cfg_sniff is in the file's leading lines, which do not count against its budget:
 * blank lines, comment lines and "---" lines (with a comment after them or not), and a UTF-8
 * byte-order mark. */
enum { LEAD_LINE, LEAD_COMMENT, LEAD_DASH1, LEAD_DASH2, LEAD_DASH3, LEAD_DASH3_WS, LEAD_DONE };

typedef struct sniff_src {
    FILE *f;
    size_t left; /* bytes of content still allowed */
    int lead;    /* LEAD_*: LEAD_DONE from the first byte of content on */
    size_t pos;  /* bytes read */
} sniff_src;

/* The next state of the leading lines after byte c (at file offset pos). */
static int lead_step(int st, unsigned char c, size_t pos)
{
    int ws = c == ' ' || c == '\t' || c == '\r';
    switch (st) {
    case LEAD_LINE:
        if (ws || c == '\n' || (pos < 3 && c == (unsigned char)"\xef\xbb\xbf"[pos]))
            return LEAD_LINE;
        return c == '#' ? LEAD_COMMENT : c == '-' ? LEAD_DASH1 : LEAD_DONE;
    case LEAD_COMMENT:
        return c == '\n' ? LEAD_LINE : LEAD_COMMENT;
    case LEAD_DASH1:
    case LEAD_DASH2:
        return c == '-' ? st + 1 : LEAD_DONE;
    case LEAD_DASH3:
    case LEAD_DASH3_WS:
        if (c == '\n')
            return LEAD_LINE;
        if (ws)
            return LEAD_DASH3_WS;
        return st == LEAD_DASH3_WS && c == '#' ? LEAD_COMMENT : LEAD_DONE;
    default:
        return LEAD_DONE;
    }
}

/* libyaml's reader for cfg_sniff: the file, with at most CFG_SNIFF_BYTES after its leading
 * comment and blank lines (which any number may precede a config: until 2026-11-27 they
 * counted, and a config under over 1 MiB of comments was sniffed as a trace). */
static int sniff_read(void *data, unsigned char *buf, size_t size, size_t *got)
{
    sniff_src *s = data;
    size_t n = fread(buf, 1, s->lead == LEAD_DONE ? AM_MIN(size, s->left) : size, s->f);
    size_t i = 0;
    while (s->lead != LEAD_DONE && i < n)
        s->lead = lead_step(s->lead, buf[i], s->pos + i), i++;
    if (s->lead == LEAD_DONE) { /* content from byte i - 1 of this read (or before) on */
        size_t counted = n - (i ? i - 1 : 0);
        counted = AM_MIN(counted, s->left);
        n = (i ? i - 1 : 0) + counted; /* the bytes past the budget are not given */
        s->left -= counted;
    }
    s->pos += n;
    *got = n;
    return !ferror(s->f); /* 0: a read error, which libyaml reports as one */
}

int cfg_sniff(const char *path)
{
    sniff_src src = {fopen(am_input_name(path), "rb"), CFG_SNIFF_BYTES, LEAD_LINE, 0};
    if (!src.f)
        return CFG_SNIFF_OTHER;
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p)) /* not "other": the file was not looked at */
        am_oom_exit("libyaml cannot start a parser", path);
    yaml_parser_set_input(&p, sniff_read, &src);
    int what = CFG_SNIFF_OTHER;
    /* stream start, document start (explicit "---" or not), then the top-level node's event;
     * a stream without a document ends first */
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            if (p.error == YAML_MEMORY_ERROR)
                am_oom_exit("libyaml", path);
            what = CFG_SNIFF_ERROR;
            break;
        }
        yaml_event_type_t type = ev.type;
        yaml_event_delete(&ev);
        if (type == YAML_STREAM_START_EVENT || type == YAML_DOCUMENT_START_EVENT)
            continue;
        what = type == YAML_MAPPING_START_EVENT ? CFG_SNIFF_MAP : CFG_SNIFF_OTHER;
        break;
    }
    yaml_parser_delete(&p);
    fclose(src.f);
    return what;
}

/* Parse a file into a tree whose file names live in pool. */
static int parse_file(const char *path, cfg_pool *pool, cfg_node **out, am_error *e)
{
    char *buf;
    size_t len;
    if (cfg_read_file(path, &buf, &len, e) < 0)
        return -1;
    int rc = tree_parse(pool_intern(pool, path), buf, len, out, e);
    free(buf);
    return rc;
}

/* device: a scalar and a valid name (it names a file: no walking out of the folder). */
static int check_device(const cfg_node *dev, am_error *e)
{
    if (dev->kind != CFG_SCALAR)
        return node_fail(e, dev, "device: expected a preset name, not a %s",
                         kind_name(dev->kind));
    return check_name(e, dev, "device", dev->value);
}

/* Unlink the top-level key `key` from root and free it (absent: nothing). */
/* Unlink *pp from its list and free it; *pp becomes its successor. */
static void unlink_free(cfg_node **pp)
{
    cfg_node *n = *pp;
    *pp = n->next;
    n->next = NULL;
    node_free(n);
}

static void map_drop(cfg_node *root, const char *key)
{
    for (cfg_node **pp = &root->child; *pp; pp = &(*pp)->next)
        if ((*pp)->key && strcmp((*pp)->key, key) == 0) {
            unlink_free(pp);
            return;
        }
}

/* `preset_merged: true` (what an effective config writes beside its device) says the preset
 * is already in the file, key by key: device is then only the name reports give, and no
 * preset is looked up. Without it the file read back searched for the preset again from its
 * own folder: until 2026-11-28 a preset found beside the user's config or through
 * $AMSIM_DEVICES was `unknown device` there, and a local preset named as a shipped one was
 * silently replaced by it. The key is taken out of the tree (the summary's echo of the config
 * stays as for a plain `device:`); *merged gets its value, 0 when absent. file_merged: the
 * file itself says true. An override saying true over a file that does not is refused at the
 * override: the preset is not in that file, and until 2026-11-28 the load went on without it
 * and failed on the file ("pm2.yaml:1:1: missing required key 'memories' ..."), blaming the
 * file for what the --set said. */
static int take_preset_merged(cfg_node *root, int file_merged, int *merged, am_error *e)
{
    const cfg_node *m = map_get(root, "preset_merged"), *dev = map_get(root, "device");
    *merged = 0;
    if (!m)
        return 0;
    if (m->kind != CFG_SCALAR)
        return node_fail(e, m, "preset_merged: expected true or false, not a %s",
                         kind_name(m->kind));
    if (parse_bool(m->value, merged) < 0)
        return node_fail(e, m, "preset_merged: expected true or false, got '%s'", m->value);
    if (*merged && !file_merged)
        return node_fail(e, m, "preset_merged: true over a file that does not say so: only a "
                         "file holding its device's preset (an effective config) can; drop "
                         "this override to load the preset");
    if (*merged && !dev) /* false merges nothing: as if absent */
        return node_fail(e, m, "preset_merged: true, but the config names no device");
    if (*merged && check_device(dev, e) < 0)
        return -1;
    map_drop(root, "preset_merged");
    return 0;
}

/* Under preset_merged: true the file's device is only the name of the preset merged into it:
 * an override naming another device (--set, a sweep's set: or axis value) would relabel the
 * run and leave the hardware as it is, so it is refused at its position (until 2026-11-28
 * `--set device=a100-80gb` ran h100's memories and links under the name a100-80gb, and an
 * axis of devices made identical runs). The same name is no change. file_device: the file's
 * own device, NULL when it names none. */
static int check_merged_device(const cfg_node *root, const char *file_device, am_error *e)
{
    const cfg_node *dev = map_get(root, "device");
    if (!dev || (file_device && strcmp(dev->value, file_device) == 0))
        return 0;
    if (!file_device)
        return node_fail(e, dev, "device: '%s' over a config that says preset_merged: true and "
                         "names no device: start from a config without preset_merged to run a "
                         "device", dev->value);
    return node_fail(e, dev, "device: cannot change '%s' to '%s': the preset of '%s' is already "
                     "merged into this config (preset_merged: true), another name would only "
                     "relabel its hardware; start from a config without preset_merged (e.g. "
                     "version: 1 and device: %s) to run another device", file_device,
                     dev->value, file_device, dev->value);
}

/* Note what the file root says before the overrides change it: its device and each memory's
 * policy (best_fit, the default, when it names none). A memory or policy of the wrong type is
 * left to build's errors. */
static void note_file(cfg_owner *o, const cfg_node *root)
{
    const cfg_node *dev = map_get(root, "device"), *mem = map_get(root, "memories");
    const cfg_node *pm = map_get(root, "preset_merged");
    if (dev && dev->kind == CFG_SCALAR)
        o->file_device = pool_intern(&o->pool, dev->value);
    if (pm && pm->kind == CFG_SCALAR && parse_bool(pm->value, &o->file_merged) < 0)
        o->file_merged = 0; /* take_preset_merged refuses it */
    for (const cfg_node *ln = mem ? mem->child : NULL; ln; ln = ln->next) {
        const cfg_node *a = map_get(ln, "allocator"), *pn = map_get(a, "policy");
        if (!ln->key || o->nfile_levels == CFG_MAX_LEVELS || (pn && pn->kind != CFG_SCALAR))
            continue;
        o->file_level[o->nfile_levels] = pool_intern(&o->pool, ln->key);
        o->file_policy[o->nfile_levels++] = pool_intern(&o->pool, pn ? pn->value : "best_fit");
    }
}

/* Under preset_merged: true a memory's allocator keys in the file are its policy's complete
 * settings, defaults included, as the effective config writes them. When an override switches
 * the memory to another policy (--policy, a --set, a sweep's set:, axis or policies:, compare,
 * mincap), those keys are dropped, as a preset's unwritten defaults never reach another policy:
 * h100's preset leaves bfc's memory_fraction 0.75 out, but its effective config writes it, and
 * until 2026-11-28 `--policy caching` over it (caching reads memory_fraction too, default no
 * cap) ran capped at 0.75. The overrides' own keys (file: not the config's) stay. */
static void drop_switched_keys(cfg_owner *o, const char *file)
{
    cfg_node *mem = map_get(o->pub.root, "memories");
    for (int i = 0; i < o->nfile_levels; i++) {
        cfg_node *a = map_get(map_get(mem, o->file_level[i]), "allocator");
        const cfg_node *pn = map_get(a, "policy");
        if (!pn || pn->kind != CFG_SCALAR || strcmp(pn->value, o->file_policy[i]) == 0)
            continue;
        for (cfg_node **pp = &a->child; *pp;) {
            const cfg_node *k = *pp;
            if (k == pn || !k->file || strcmp(k->file, file) != 0)
                pp = &(*pp)->next;
            else
                unlink_free(pp);
        }
    }
}

/* If the user tree names a device, merge its preset underneath; *root may change. The
 * preset's file goes to found (room for 1200 bytes, am_config.preset), else it stays. */
static int merge_preset(cfg_node **root, const char *cfgdir, cfg_pool *pool, char *found,
                        am_error *e)
{
    char dirs[CFG_MAX_DIRS][1024], path[1200], list[2048];
    const cfg_node *dev = map_get(*root, "device");
    cfg_node *pre = NULL;
    if (!dev)
        return 0;
    if (check_device(dev, e) < 0)
        return -1;
    /* first readable NAME.yaml in search order wins */
    int ndirs = preset_dirs(cfgdir, dirs), i = 0;
    for (; i < ndirs; i++) {
        int w = snprintf(path, sizeof path, "%s/%s.yaml", dirs[i], dev->value);
        if (w > 0 && (size_t)w < sizeof path && access(path, R_OK) == 0)
            break;
    }
    if (i == ndirs) {
        preset_list(dirs, ndirs, list, sizeof list);
        return node_fail(e, dev, "unknown device '%s' (available: %s)", dev->value, list);
    }
    snprintf(found, sizeof path, "%s", path);
    if (parse_file(path, pool, &pre, e) < 0)
        return -1;
    if (!pre)
        pre = node_new(CFG_MAP, pool_intern(pool, path), 1, 1);
    if (!as_map(pre)) {
        node_fail(e, pre, "a device preset must be a map, not a %s", kind_name(pre->kind));
        goto err;
    }
    if (map_get(pre, "device")) {
        node_fail(e, map_get(pre, "device"), "a device preset cannot name another device");
        goto err;
    }
    /* an effective config's key (a preset copied from one): merged under the config, the
     * effective config would say it twice, unreadable (until 2026-11-28) */
    if (map_get(pre, "preset_merged")) {
        node_fail(e, map_get(pre, "preset_merged"), "a device preset cannot say preset_merged "
                  "(an effective config's key: leave it out of the preset)");
        goto err;
    }
    if (check_version(pre, e, 0) < 0)
        goto err;
    /* the preset becomes the root; the user's tree is folded into it and freed */
    merge_maps(pre, *root);
    node_free(*root);
    *root = pre;
    return 0;
err:
    node_free(pre);
    return -1;
}

/* ---- entry points -------------------------------------------------------------------- */

/* A policy switch (cfg_load_switched): on level (NULL: the default level), policy (NULL: not
 * known yet). */
typedef struct cfg_switch {
    const char *level, *policy;
    int bare; /* the level's allocator options but policy are left out (cfg_load_reference) */
} cfg_switch;

/* The name of the level that default_memory names in the merged tree, else of its first
 * memory, as build resolves it; NULL when the tree has no such memory (build reports why). */
static const char *tree_default_level(const cfg_node *root)
{
    const cfg_node *mem = map_get(root, "memories"), *dm = map_get(root, "default_memory");
    if (!mem || mem->kind != CFG_MAP || !mem->child)
        return NULL;
    if (!dm)
        return mem->child->key;
    if (dm->kind != CFG_SCALAR || !map_get(mem, dm->value))
        return NULL;
    return dm->value;
}

/* Remove every key of an allocator map but policy (cfg_load_reference): the options the
 * file, a preset or a --set gave belong to the policies the reference run stands beside. */
static void drop_allocator_options(cfg_node *a)
{
    if (!a || a->kind != CFG_MAP)
        return;
    cfg_node **pp = &a->child;
    while (*pp) {
        cfg_node *c = *pp;
        if (c->key && strcmp(c->key, "policy") == 0) {
            pp = &c->next;
            continue;
        }
        *pp = c->next;
        c->next = NULL;
        node_free(c);
    }
}

/* Apply sw to the merged tree: the policy as the override "memories.LEVEL.allocator.policy=
 * POLICY" after every other (messages about it name --policy), or, without a policy, the
 * level marked for level_allocator. A level that is not a memory of the tree is left to build's
 * errors. */
static int apply_switch(cfg_owner *o, const cfg_switch *sw, am_error *e)
{
    const char *level = sw->level ? sw->level : tree_default_level(o->pub.root);
    const cfg_node *mem = map_get(o->pub.root, "memories");
    if (!level || !mem || mem->kind != CFG_MAP || !map_get(mem, level))
        return 0;
    if (!sw->policy) {
        snprintf(o->switching, sizeof o->switching, "%s", level);
        return 0;
    }
    if (sw->bare)
        drop_allocator_options(map_get(map_get(mem, level), "allocator"));
    /* messages about it name --policy, not a --set the user never wrote (until 2026-11-27
     * "--set 'memories.hbm.allocator.policy=bfcc': ... unknown allocator policy") */
    char text[CFG_NAME_MAX + 300], origin[CFG_PATH_MAX + 16];
    snprintf(text, sizeof text, "memories.%s.allocator.policy=%s", level, sw->policy);
    char shown[CFG_PATH_MAX];
    echo_arg(shown, sizeof shown, sw->policy); /* escaped as given, as a --set is */
    snprintf(origin, sizeof origin, "--policy '%s'", shown);
    cfg_set set = {text, origin, 0, 0, 0, 0, NULL, 0};
    return apply_set(o->pub.root, &set, &o->pool, e);
}

/* The four passes on one YAML text. cfgdir: directory of the config file (NULL for strings),
 * for the preset search. sw: a policy switch, or NULL. Builds into a fresh owner; on error
 * everything is freed. */
/* One warning with its place in the sort: the order of the first warning in the same file
 * (its own without a file), then line, column and the order it was made in. */
typedef struct warn_key {
    const cfg_warning *w;
    size_t group, order;
} warn_key;

/* By file (in the order files first appear), then line, column and original order: a total
 * order, so qsort is deterministic. */
static int cmp_warn(const void *a, const void *b)
{
    const warn_key *x = a, *y = b;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    if (x->w->line != y->w->line)
        return x->w->line < y->w->line ? -1 : 1;
    if (x->w->col != y->w->col)
        return x->w->col < y->w->col ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* The order of the first warning in the same file as v[i] (i itself without a file). */
static size_t warn_group(const cfg_warning *v, size_t i)
{
    if (!v[i].file)
        return i;
    for (size_t j = 0; j < i; j++)
        if (v[j].file && strcmp(v[j].file, v[i].file) == 0)
            return j;
    return i;
}

/* The text (deciders 0) or the decider (1, "" for none) of each of the n sorted warnings k,
 * one a line. */
static char *warn_lines(const warn_key *k, size_t n, int deciders)
{
    size_t total = 1;
    for (size_t i = 0; i < n; i++) {
        const char *t = deciders ? k[i].w->decider : k[i].w->text;
        total += (t ? strlen(t) : 0) + 1;
    }
    char *out = am_malloc(total), *p = out;
    for (size_t i = 0; i < n; i++) {
        const char *t = deciders ? k[i].w->decider : k[i].w->text;
        size_t len = t ? strlen(t) : 0;
        memcpy(p, t ? t : "", len);
        p += len;
        *p++ = '\n';
    }
    *p = 0;
    return out;
}

/* Join o's warnings into pub.warnings, one a line, in the order of the text they point at
 * (within a file), not the order the schema and the preset's memories were walked in: until
 * 2026-11-27 an ignored key of hbm came before one written above it under host when the
 * preset lists hbm first; and their deciders into pub.warning_deciders, line for line. The
 * records are freed. */
static void join_warnings(cfg_owner *o)
{
    if (!o->nwarn)
        return;
    warn_key *k = am_calloc(o->nwarn, sizeof *k);
    for (size_t i = 0; i < o->nwarn; i++)
        k[i] = (warn_key){.w = &o->warn[i], .group = warn_group(o->warn, i), .order = i};
    qsort(k, o->nwarn, sizeof *k, cmp_warn);
    free(o->pub.warnings);
    free(o->pub.warning_deciders);
    o->pub.warnings = warn_lines(k, o->nwarn, 0);
    o->pub.warning_deciders = warn_lines(k, o->nwarn, 1);
    free(k);
    free_warnings(o);
}

static int load(am_config **out, const char *name, const char *yaml, size_t len,
                const char *cfgdir, const cfg_set *sets, int nsets, const cfg_switch *sw,
                am_error *err)
{
    cfg_owner *o = am_calloc(1, sizeof *o);
    am_config *c = &o->pub;
    cfg_node *root = NULL;
    const char *file = pool_intern(&o->pool, name);

    snprintf(c->path, sizeof c->path, "%s", name);
    if (tree_parse(file, yaml, len, &root, err) < 0)
        goto err;
    /* an empty file (or blank lines and comments only) is an empty map, and then misses
     * 'version': at 1:1, as a map without it is (until 2026-11-27 with no position) */
    if (!root)
        root = node_new(CFG_MAP, file, 1, 1);
    c->root = root; /* from here on cfg_free releases it */
    if (!as_map(root)) {
        node_fail(err, root, "a config must be a map of keys (version, memories, ...), not a %s",
                  kind_name(root->kind));
        goto err;
    }
    note_file(o, root);
    for (int i = 0; i < nsets; i++)
        if (apply_set(root, &sets[i], &o->pool, err) < 0)
            goto err;
    /* version is the user's to write (or --set's): checked before the preset merge, whose
     * own `version: 1` would otherwise count as the user's. Until 2026-11-27 a config without
     * version was accepted as soon as it named a device. */
    if (check_top_keys(root, err) < 0 || check_version(root, err, 1) < 0)
        goto err;
    int merged;
    if (take_preset_merged(root, o->file_merged, &merged, err) < 0 ||
        (merged && check_merged_device(root, o->file_device, err) < 0))
        goto err;
    o->preset_merged = merged;
    if (!merged && merge_preset(&c->root, cfgdir, &o->pool, c->preset, err) < 0)
        goto err;
    if (sw && apply_switch(o, sw, err) < 0)
        goto err;
    if (merged)
        drop_switched_keys(o, file);
    if (build(c, c->root, err) < 0)
        goto err;
    join_warnings(o);
    *out = c;
    return 0;
err:
    cfg_free(c);
    return -1;
}

/* Plain "PATH=VALUE" strings as overrides without a position (--set). */
static cfg_set *sets_of(const char *const *sets, int nsets)
{
    cfg_set *v = am_calloc((size_t)nsets + 1, sizeof *v);
    for (int i = 0; i < nsets; i++)
        v[i].text = sets[i];
    return v;
}

int cfg_load(am_config **cfg, const char *path, const char *const *sets, int nsets,
             am_error *err)
{
    cfg_set *v = sets_of(sets, nsets);
    int rc = cfg_load_sets(cfg, path, v, nsets, err);
    free(v);
    return rc;
}

/* Whether the text of a config that failed to load is a sweep: a map whose top-level keys
 * include a sweep's and none that only a config has (device is both's; a config with a
 * misspelt key such as traces: stays a config). Its own parse: the failed load's tree may have
 * --set's keys in it. */
static int sweep_text(const char *buf, size_t len)
{
    cfg_node *root = NULL;
    am_error e = {0};
    if (tree_parse("", buf, len, &root, &e) < 0 || !root)
        return 0;
    int sweep = 0, config = 0;
    if (root->kind == CFG_MAP)
        for (const cfg_node *c = root->child; c; c = c->next) {
            sweep |= cfg_is_sweep_key(c->key);
            config |= cfg_is_config_only_key(c->key);
        }
    node_free(root);
    return sweep && !config;
}

static int load_path(am_config **cfg, const char *path, const cfg_set *sets, int nsets,
                     const cfg_switch *sw, am_error *err)
{
    char *buf;
    size_t len;
    if (cfg_read_file(path, &buf, &len, err) < 0)
        return -1;
    /* the config's directory, for DIR/devices and DIR/../configs/devices: the current folder
     * for standard input by any name (until 2026-11-28 /dev for -c /dev/stdin) */
    char *dir = am_input_dir(path);
    int rc = load(cfg, path, buf, len, *dir ? dir : ".", sets, nsets, sw, err);
    free(dir);
    /* told from the text the loader has read, so that standard input (-c -) and a FIFO are
     * told too: until 2026-11-28 run, compare, mincap and check sniffed the path after the load
     * had read it, a regular file only, and `-c - < SW.yaml` said "-:1:1: unknown key 'base'" */
    if (rc < 0 && sweep_text(buf, len)) {
        memset(err, 0, sizeof *err);
        am_fail(err, AM_EINPUT, "%s is a sweep, not a config: run it with amsim batch %s", path,
                path);
    }
    free(buf);
    return rc;
}

int cfg_load_sets(am_config **cfg, const char *path, const cfg_set *sets, int nsets,
                  am_error *err)
{
    return load_path(cfg, path, sets, nsets, NULL, err);
}

int cfg_load_sets_switched(am_config **cfg, const char *path, const cfg_set *sets, int nsets,
                           const char *level, const char *policy, am_error *err)
{
    cfg_switch sw = {level, policy, 0};
    return load_path(cfg, path, sets, nsets, &sw, err);
}

int cfg_load_switched(am_config **cfg, const char *path, const char *const *sets, int nsets,
                      const char *level, const char *policy, am_error *err)
{
    cfg_set *v = sets_of(sets, nsets);
    int rc = cfg_load_sets_switched(cfg, path, v, nsets, level, policy, err);
    free(v);
    return rc;
}

int cfg_load_reference(am_config **cfg, const char *path, const char *const *sets, int nsets,
                       const char *level, const char *policy, am_error *err)
{
    cfg_set *v = sets_of(sets, nsets);
    cfg_switch sw = {level, policy, 1};
    int rc = load_path(cfg, path, v, nsets, &sw, err);
    free(v);
    return rc;
}

int cfg_load_string(am_config **cfg, const char *name, const char *yaml,
                    const char *const *sets, int nsets, am_error *err)
{
    cfg_set *v = sets_of(sets, nsets);
    int rc = load(cfg, name, yaml, strlen(yaml), NULL, v, nsets, NULL, err);
    free(v);
    return rc;
}

int cfg_guard_applies(int guard, int implicit)
{
    return implicit || guard == CFG_GUARD_LOG_EXPLICIT || guard == CFG_GUARD_DISALLOW_EXPLICIT;
}

int cfg_guard_rejects(const am_config *c, int src, int dst, int implicit, int *dir)
{
    int hs = level_is_host(c, src), hd = level_is_host(c, dst);
    if (hs && hd) {
        *dir = -1;
        return 0;
    }
    *dir = hs ? CFG_DIR_H2D : hd ? CFG_DIR_D2H : CFG_DIR_D2D;
    int g = c->guard[*dir];
    return cfg_guard_applies(g, implicit) &&
           (g == CFG_GUARD_DISALLOW || g == CFG_GUARD_DISALLOW_EXPLICIT);
}

/* Until 2026-11-25 check had its own (hbm and host) and convert its own (no host_pageable or
 * cmem), so check refused a `gen kernel` trace (level vmem) that convert read. */
int cfg_load_builtin(am_config **cfg, const char *const *sets, int nsets, am_error *err)
{
    /* each level of the kind the device presets give it (host_pageable is host memory, host
     * is host memory in every preset: host_pinned on GPUs, host on TPUs), so the transfer
     * guard tells host-to-device from device-to-device as it does with those presets (until
     * 2026-11-25 they had none, "other", and host -> hbm counted as device-to-device) */
    static const char yaml[] =
        "version: 1\ndefault_memory: hbm\nmemories:\n  hbm: {kind: hbm, capacity: 1TiB}\n"
        "  host: {kind: host, capacity: 1TiB}\n  vmem: {kind: vmem, capacity: 1TiB}\n"
        "  smem: {kind: smem, capacity: 1TiB}\n"
        "  accumulator: {kind: accumulator, capacity: 1TiB}\n"
        "  host_pageable: {kind: host, capacity: 1TiB}\n  cmem: {kind: cmem, capacity: 1TiB}\n";
    return cfg_load_string(cfg, "<builtin>", yaml, sets, nsets, err);
}

void cfg_free(am_config *cfg)
{
    if (!cfg)
        return;
    cfg_owner *o = (cfg_owner *)cfg;
    for (int i = 0; i < CFG_MAX_LEVELS; i++)
        free(cfg->levels[i].policy_opts);
    node_free(cfg->root);
    pool_free(&o->pool);
    free_warnings(o);
    free(cfg->warnings);
    free(cfg->warning_deciders);
    free(o);
}

int cfg_text_line(const char **p)
{
    if (!*p || !**p)
        return 0;
    const char *nl = strchr(*p, '\n');
    int n = nl ? (int)(nl - *p) : (int)strlen(*p);
    *p += n + (nl != NULL);
    return n;
}

void cfg_print_warnings(const am_config *cfg, FILE *f, const char *prog)
{
    for (const char *s = cfg->warnings; s && *s;) {
        const char *line = s;
        int n = cfg_text_line(&s);
        fprintf(f, "%s: %.*s\n", prog, n, line);
    }
}

int cfg_level_index(const am_config *cfg, const char *name, size_t len)
{
    for (int i = 0; i < cfg->nlevels; i++)
        if (strlen(cfg->levels[i].name) == len && memcmp(cfg->levels[i].name, name, len) == 0)
            return i;
    return -1;
}

const cfg_node *cfg_get(const cfg_node *root, const char *path)
{
    const cfg_node *n = root;
    while (n && *path) {
        size_t len = strcspn(path, ".");
        const cfg_node *c = n->kind == CFG_MAP ? n->child : NULL;
        while (c && !(strlen(c->key) == len && memcmp(c->key, path, len) == 0))
            c = c->next;
        n = c;
        path += len + (path[len] == '.');
    }
    return n;
}

/* ---- writing ------------------------------------------------------------------------- */

static void write_quoted(FILE *f, const char *s);

void cfg_write_scalar(FILE *f, const char *s)
{
    int plain = *s && strcmp(s, "-") != 0 && strncmp(s, "---", 3) != 0 &&
                strncmp(s, "...", 3) != 0;
    for (const char *p = s; plain && *p; p++)
        plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                (*p >= '0' && *p <= '9') || strchr("_./+-", *p);
    if (plain)
        fputs(s, f);
    else
        write_quoted(f, s);
}

void cfg_write_scalar_as(FILE *f, const char *s, int nonplain)
{
    if (!nonplain && cfg_null_word(s))
        fputs(s, f);
    else if (nonplain && s[0] && plain_typed(s) != CFG_TYPED_STRING)
        write_quoted(f, s);
    else
        cfg_write_scalar(f, s);
}

static void write_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\x%02x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

/* One node on one line: scalar, [a, b] or {k: v}. typed (the effective config): a quoted
 * scalar that plain would read as a number, a boolean or null stays quoted, so that the run of
 * the file echoes it as the string it was (cfg_scalar_typed); until 2026-11-28 `"0.85"` was
 * written 0.85, and `"null"` null. The digests (write_block_canon) keep the old text. */
static void write_flow_as(FILE *f, const cfg_node *n, int typed)
{
    if (n->kind == CFG_SCALAR) {
        if (typed && n->nonplain && n->value[0] && plain_typed(n->value) != CFG_TYPED_STRING)
            write_quoted(f, n->value);
        else
            cfg_write_scalar(f, n->value);
        return;
    }
    fputc(n->kind == CFG_MAP ? '{' : '[', f);
    for (const cfg_node *c = n->child; c; c = c->next) {
        if (c != n->child)
            fputs(", ", f);
        if (n->kind == CFG_MAP) {
            cfg_write_scalar(f, c->key);
            fputs(": ", f);
        }
        write_flow_as(f, c, typed);
    }
    fputc(n->kind == CFG_MAP ? '}' : ']', f);
}

static void write_flow(FILE *f, const cfg_node *n)
{
    write_flow_as(f, n, 0);
}

/* An OPT_UINT_LIST value at opts as the value of each of its list_max places: one value is
 * every place's, a longer list leaves the places after it 0 (opts.h). */
static void uint_list_expand(const opt_desc *o, const unsigned char *opts, uint64_t *out)
{
    size_t count;
    memcpy(&count, opts + o->count_offset, sizeof count);
    const unsigned char *v = opts + o->offset;
    for (size_t i = 0; i < o->list_max; i++) {
        out[i] = 0;
        if (count == 1 || i < count)
            memcpy(&out[i], v + (count == 1 ? 0 : i) * sizeof(uint64_t), sizeof(uint64_t));
    }
}

/* Whether two values of an option differ in what they mean: lists as every place's value, so
 * that trailing zeros, or a list of one value everywhere, are the same as the shorter form
 * (until 2026-11-27 a recording's [4, 0] and a configured [4, 0, 0] were said to differ), and
 * a place's 1 as its 0 (opts.h: both are off; until 2026-11-27 a recording's 0 and a
 * configured 1 were said to differ). */
static int opt_values_differ(const opt_desc *o, const unsigned char *a, const unsigned char *b)
{
    if (o->type != OPT_UINT_LIST)
        return memcmp(a + o->offset, b + o->offset, opt_width(o)) != 0;
    uint64_t *ea = am_calloc(2 * o->list_max + 1, sizeof *ea); /* + 1: never 0 bytes */
    uint64_t *eb = ea + o->list_max;
    uint_list_expand(o, a, ea);
    uint_list_expand(o, b, eb);
    int differs = 0;
    for (size_t i = 0; i < o->list_max; i++)
        differs |= (ea[i] > 1 ? ea[i] : 0) != (eb[i] > 1 ? eb[i] : 0);
    free(ea);
    return differs;
}

int cfg_setting_differs(const am_config *cfg, int level, const char *key, const char *value,
                        char *configured, size_t n)
{
    const cfg_level *L = &cfg->levels[level];
    const opt_desc *o = L->policy ? L->policy->opts : NULL;
    while (o && o->key && strcmp(o->key, key) != 0)
        o++;
    if (!o || !o->key || !L->policy_opts)
        return -1;
    unsigned char *rec = am_calloc(1, L->policy->opts_size);
    cfg_node *d = node_from_text(value, "(recording)");
    am_error tmp = {0};
    int rc = opt_parse(d, key, o, rec, &tmp);
    node_free(d);
    const unsigned char *have = L->policy_opts;
    int differs = rc == 0 ? opt_values_differ(o, rec, have) : -1;
    free(rec);
    if (differs == 1) { /* the configured value as the effective config writes it */
        char path[CFG_PATH_MAX];
        snprintf(path, sizeof path, "memories.%s.allocator.%s", L->name, key);
        const cfg_node *c = cfg_get(cfg->root, path);
        FILE *f = n ? fmemopen(configured, n, "w") : NULL;
        if (f) {
            if (c)
                write_flow(f, c);
            fclose(f);
            configured[n - 1] = 0; /* fmemopen ends the text only when there is room */
        }
    }
    return differs;
}

/* The table a dotted path's last key is looked up in, by the keys before it (level and link
 * names are not looked up: any name will do), and that last key; NULL for any other path.
 * Allocator keys are answered by cfg_path_opt itself (they have one table per policy). */
static const opt_desc *path_table(const char *path, const char **key, int *allocator)
{
    const char *part[5];
    size_t len[5], n = 0;
    for (const char *p = path; n < 5;) {
        const char *dot = strchr(p, '.');
        part[n] = p;
        len[n++] = dot ? (size_t)(dot - p) : strlen(p);
        if (!dot)
            break;
        p = dot + 1;
    }
#define PART_IS(i, s) (len[i] == strlen(s) && strncmp(part[i], s, len[i]) == 0)
    *key = part[n - 1];
    *allocator = 0;
    if (n == 2) {
        static const struct {
            const char *name;
            const opt_desc *desc;
        } top[] = {{"trace", trace_desc}, {"engine", engine_desc}, {"report", report_desc},
                   {"transfer_guard", guard_desc}};
        for (size_t i = 0; i < AM_ARRAY_LEN(top); i++)
            if (PART_IS(0, top[i].name))
                return top[i].desc;
    } else if (n == 3 && PART_IS(0, "memories")) {
        return level_desc;
    } else if (n == 3 && PART_IS(0, "links")) {
        return link_desc;
    } else if (n == 4 && PART_IS(0, "memories") && PART_IS(2, "defrag")) {
        return defrag_desc;
    } else if (n == 4 && PART_IS(0, "memories") && PART_IS(2, "allocator")) {
        *allocator = 1;
    }
#undef PART_IS
    return NULL;
}

const opt_desc *cfg_path_opt(const char *path)
{
    const char *key;
    int allocator;
    const opt_desc *t = path_table(path, &key, &allocator);
    if (!allocator)
        return opt_find(t, key);
    /* the key of every policy that has it, when they all read it as the same type */
    const opt_desc *first = NULL;
    for (const struct alloc_ops *const *p = alloc_all(); p && *p; p++) {
        const opt_desc *o = opt_find((*p)->opts, key);
        if (o && first && o->type != first->type)
            return NULL;
        if (o && !first)
            first = o;
    }
    return first;
}

int cfg_opt_u64(const opt_desc *o, const char *text, uint64_t *v)
{
    if (!o || !(o->type == OPT_SIZE || o->type == OPT_SIZE_OR_UNLIMITED ||
                o->type == OPT_BANDWIDTH || o->type == OPT_TIME || o->type == OPT_TIME_UNIT ||
                o->type == OPT_UINT || o->type == OPT_BOOL || o->type == OPT_ENUM))
        return -1;
    if (o->type == OPT_BOOL || o->type == OPT_ENUM) { /* read into an int: 0/1, the index */
        opt_desc one = *o;
        one.offset = 0;
        int b = 0;
        cfg_node *n = node_scalar(text, CFG_DEFAULT_FILE);
        am_error tmp = {0};
        int rc = opt_parse(n, o->key, &one, &b, &tmp);
        node_free(n);
        if (rc < 0)
            return -1;
        *v = (uint64_t)b;
        return 0;
    }
    opt_desc one = *o;
    one.offset = 0; /* into *v, whatever the option's own struct */
    cfg_node *n = node_scalar(text, CFG_DEFAULT_FILE);
    am_error tmp = {0};
    int rc = opt_parse(n, o->key, &one, v, &tmp);
    node_free(n);
    if (rc < 0)
        return -1;
    /* exact values only: 0.8 and 1.2 both read as 1 byte, but they are not one value */
    const char *why;
    uint64_t w;
    if ((o->type == OPT_SIZE || (o->type == OPT_SIZE_OR_UNLIMITED && *v != UINT64_MAX)) &&
        units_size_whole(text, &w, &why) != 0)
        return -1;
    if (o->type == OPT_TIME && units_time_whole(text, &w, &why) != 0)
        return -1;
    return 0;
}

typedef struct map_role {
    const cfg_level *lv; /* the level whose allocator or defrag map it is; NULL: neither */
    int defrag;          /* 1: its defrag map; 0: its allocator map */
} map_role;

/* Which level's allocator or defrag map `map` is, looked up once per map written. */
static map_role map_role_of(const am_config *cfg, const cfg_node *map)
{
    for (int i = 0; cfg && i < cfg->nlevels; i++) {
        const cfg_level *lv = &cfg->levels[i];
        if (!lv->node)
            continue;
        if (lv->policy && map_get(lv->node, "allocator") == map)
            return (map_role){lv, 0};
        if (map_get(lv->node, "defrag") == map)
            return (map_role){lv, 1};
    }
    return (map_role){NULL, 0};
}

/* Whether the effective config a run writes leaves key k of a map out (the map's role:
 * map_role_of): a key the run does not read, by the rules the loader warns with
 * (allocator_key_read, defrag_key_read). In a level's allocator map, a key of another policy
 * than the one in effect (a device preset's bfc allow_growth under --policy caching; until
 * 2026-11-27 written, and `run -c DIR/effective_config.yaml` warned
 * `memories.hbm.allocator.allow_growth is an option of bfc, not of caching: ignored` for a key
 * of the h100 preset); in its defrag map, a key its mode or trigger never reads (until
 * 2026-11-27 written, and `every: 50` under `trigger: threshold` read back with
 * `memories.hbm.defrag.every is read only under trigger: every, not threshold: ignored`). Left
 * out even at its default, so the file reads back to the same text. */
static int key_unread(map_role role, const cfg_node *k)
{
    if (!k->key || !role.lv)
        return 0;
    if (!role.defrag)
        return !allocator_key_read(role.lv->policy, k->key);
    char why[96];
    return !defrag_key_read(k->key, role.lv->defrag.mode, role.lv->defrag.trigger, why,
                            sizeof why, NULL);
}

int cfg_key_unread(const am_config *cfg, const cfg_node *map, const cfg_node *k)
{
    return key_unread(map_role_of(cfg, map), k);
}

/* Maps in block style; lists and anything inside them in flow style. With cfg (a run's
 * effective config) only the keys the run reads: each allocator map its policy's, each defrag
 * map those of its mode and trigger; without (a digest of everything written), every key. */
static void write_block(FILE *f, const am_config *cfg, const cfg_node *map, int indent)
{
    map_role role = map_role_of(cfg, map);
    for (const cfg_node *c = map->child; c; c = c->next) {
        if (key_unread(role, c))
            continue;
        fprintf(f, "%*s", indent, "");
        cfg_write_scalar(f, c->key);
        fputc(':', f);
        if (c->kind == CFG_MAP && c->child) {
            fputc('\n', f);
            write_block(f, cfg, c, indent + 2);
            continue;
        }
        fputc(' ', f);
        write_flow_as(f, c, 1);
        fputc('\n', f);
        /* the preset is in the file: read back, it is not looked up again (take_preset_merged) */
        if (cfg && map == cfg->root && !strcmp(c->key, "device"))
            fputs("preset_merged: true\n", f);
    }
}

int cfg_write_yaml(const am_config *cfg, FILE *f)
{
    fprintf(f, "# amsim %s effective config: preset merged, --set applied, defaults filled, "
            "only the keys the run reads\n", AM_VERSION);
    if (cfg->root && cfg->root->kind == CFG_MAP)
        write_block(f, cfg, cfg->root, 0);
    return ferror(f) ? -1 : 0;
}

static int node_top_cmp(const void *a, const void *b);
static int node_key_cmp(const void *a, const void *b);

/* map's children in the canonical order (malloc'd, *n of them): as written when keep_order,
 * else the top level (top) in the schema's order and any other map's keys by name. */
static const cfg_node **canon_kids(const cfg_node *map, int keep_order, int top, size_t *n)
{
    *n = 0;
    for (const cfg_node *c = map->child; c; c = c->next)
        (*n)++;
    const cfg_node **kids = am_calloc(*n + 1, sizeof *kids);
    size_t k = 0;
    for (const cfg_node *c = map->child; c; c = c->next)
        kids[k++] = c;
    if (!keep_order)
        qsort(kids, *n, sizeof *kids, top ? node_top_cmp : node_key_cmp);
    return kids;
}

/* The keys under map (path: its dotted path, "" at the root) that were written rather than
 * filled in by the schema, one "PATH: VALUE" line each (see cfg_write_written), in the order
 * write_block_canon writes them: the top level in the schema's order, the entries of memories
 * and links in their own (the levels' and the links' order, which a run follows), every other
 * map's keys by name. Until 2026-11-27 the tree's order: `{kind: hbm, capacity: 1GiB}` written
 * as `{capacity: 1GiB, kind: hbm}` in a sweep's base changed the study= digest, and a rerun ran
 * every run again saying the inputs had changed. */
static void write_written(FILE *f, const cfg_node *map, const char *path)
{
    size_t n;
    int keep_order = !strcmp(path, "memories") || !strcmp(path, "links");
    const cfg_node **kids = canon_kids(map, keep_order, !path[0], &n);
    for (size_t i = 0; i < n; i++) {
        const cfg_node *c = kids[i];
        int filled = c->file && !strcmp(c->file, CFG_DEFAULT_FILE);
        if (filled && !(c->kind == CFG_MAP && c->child))
            continue; /* a default value (a map the schema made is looked into all the same) */
        char *sub = am_malloc(strlen(path) + strlen(c->key) + 2);
        sprintf(sub, "%s%s%s", path, path[0] ? "." : "", c->key);
        if (c->kind == CFG_MAP && c->child)
            write_written(f, c, sub);
        else {
            fprintf(f, "%s: ", sub);
            write_flow(f, c);
            fputc('\n', f);
        }
        free(sub);
    }
    free(kids);
}

int cfg_write_written(const am_config *cfg, FILE *f)
{
    if (cfg->root && cfg->root->kind == CFG_MAP)
        write_written(f, cfg->root, "");
    return ferror(f) ? -1 : 0;
}

static int node_key_cmp(const void *a, const void *b)
{
    return strcmp((*(const cfg_node *const *)a)->key, (*(const cfg_node *const *)b)->key);
}

/* A top-level key's place in the schema (top_keys; past them all: unknown, never kept). */
static size_t top_rank(const char *k)
{
    size_t i = 0;
    while (top_keys[i] && strcmp(top_keys[i], k) != 0)
        i++;
    return i;
}

static int node_top_cmp(const void *a, const void *b)
{
    size_t ra = top_rank((*(const cfg_node *const *)a)->key);
    size_t rb = top_rank((*(const cfg_node *const *)b)->key);
    return ra < rb ? -1 : ra > rb ? 1 : node_key_cmp(a, b);
}

/* write_block without cfg (every key), each map's keys in one order whatever order they were
 * written in: the top level (indent 0) in the schema's order (top_keys), the entries of
 * memories and links in their own (keep_order: the levels' and the links' order, which a run
 * follows), every other map's by name. A key the schema fills in is appended after those
 * written, so in the tree's order `set: {memories.hbm.transfer_granule: 1B}` (its default
 * written explicitly) moved it before pad_requests_to and changed the digest of what is the
 * same config. */
static void write_block_canon(FILE *f, const cfg_node *map, int indent, int keep_order)
{
    size_t n;
    const cfg_node **kids = canon_kids(map, keep_order, indent == 0, &n);
    for (size_t i = 0; i < n; i++) {
        const cfg_node *c = kids[i];
        fprintf(f, "%*s", indent, "");
        cfg_write_scalar(f, c->key);
        fputc(':', f);
        if (c->kind == CFG_MAP && c->child) {
            fputc('\n', f);
            int named = indent == 0 && (!strcmp(c->key, "memories") || !strcmp(c->key, "links"));
            write_block_canon(f, c, indent + 2, named);
            continue;
        }
        fputc(' ', f);
        write_flow(f, c);
        fputc('\n', f);
    }
    free(kids);
}

int cfg_write_yaml_all(const am_config *cfg, FILE *f)
{
    /* the header the effective config had until 2026-11-27 */
    fprintf(f, "# amsim %s effective config: preset merged, --set applied, defaults filled\n",
            AM_VERSION);
    if (cfg->root && cfg->root->kind == CFG_MAP)
        write_block_canon(f, cfg->root, 0, 0);
    return ferror(f) ? -1 : 0;
}
