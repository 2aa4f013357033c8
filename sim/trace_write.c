/* trace_write.c - native text trace writer (see trace_write.h). */
#include "trace_write.h"

#include <inttypes.h>
#include <string.h>

/* A control character as its C escape into out (room for 5 bytes): its length, or 0 when c is
 * written as it is. */
static size_t tw_escape_char(unsigned char c, char *out)
{
    static const char plain[] = {['\t'] = 't', ['\n'] = 'n', ['\r'] = 'r'};
    if (c < sizeof plain && plain[c]) {
        out[0] = '\\';
        out[1] = plain[c];
        return 2;
    }
    if (c < 0x20 || c == 0x7f)
        return (size_t)snprintf(out, 5, "\\x%02x", c);
    return 0;
}

size_t tw_escape(char *out, size_t cap, const char *s)
{
    size_t k = 0;
    for (; *s && cap; s++) {
        char e[5];
        size_t n = tw_escape_char((unsigned char)*s, e);
        if (!n) {
            e[0] = *s;
            n = 1;
        }
        if (k + n >= cap)
            break; /* cut before a character, never inside its escape */
        memcpy(out + k, e, n);
        k += n;
    }
    if (cap)
        out[k] = 0;
    return k;
}

void tw_init(tw_writer *w, FILE *f, const char *const *level_names, int nlevels,
             const char *comment, uint64_t skipped, int validated)
{
    memset(w, 0, sizeof *w);
    w->f = f;
    w->level_names = level_names;
    w->nlevels = nlevels;
    fputs("amsim-trace v1 time_unit=ps", f);
    if (skipped) /* only then: a trace that skipped nothing is written as before */
        fprintf(f, " skipped=%" PRIu64, skipped);
    if (validated) /* a snapshot's conversion: its run validates from the start, as the snapshot's */
        fputs(" validated=1", f);
    fputc('\n', f);
    /* One `#` line per line of comment. A control character inside a line is written as its
     * escape: the reader refuses a carriage return inside a line, so a raw one (from a file
     * name, say) made an output that did not read back (until 2026-11-27). */
    while (comment && *comment) {
        const char *nl = strchr(comment, '\n');
        size_t n = nl ? (size_t)(nl - comment) : strlen(comment);
        fputs("# ", f);
        for (size_t i = 0; i < n; i++) {
            char e[5];
            unsigned char c = (unsigned char)comment[i];
            size_t m = tw_escape_char(c, e);
            if (m)
                fwrite(e, 1, m, f);
            else
                fputc(c, f);
        }
        fputc('\n', f);
        comment += n + (nl != NULL);
    }
}

static const char *tw_level(tw_writer *w, int l)
{
    return l >= 0 && l < w->nlevels ? w->level_names[l] : NULL;
}

/* level=NAME, unless the event named none: it runs on the default memory of the config that
 * replays it, as its input's does (until 2026-11-28 the converting config's default was named,
 * level=hbm without -c, so a replay under default_memory: host ran on hbm). */
static void tw_level_field(FILE *f, const tr_event *ev, const char *lv)
{
    if (!ev->level_default)
        fprintf(f, " level=%s", lv);
}

const char *tw_op_name(int kind)
{
    static const char *const ops[] = {
        [TR_ALLOC] = "alloc", [TR_FREE] = "free", [TR_FREE_REQUESTED] = "free_requested",
        [TR_FREE_COMPLETED] = "free_completed", [TR_TRANSFER] = "transfer",
        [TR_COMPUTE] = "compute", [TR_RECORD] = "record", [TR_WAIT] = "wait", [TR_SYNC] = "sync",
        [TR_SEGMENT_ALLOC] = "segment_alloc", [TR_SEGMENT_FREE] = "segment_free",
        [TR_OOM_RECORDED] = "oom", [TR_USE] = "use", [TR_DEFRAG] = "defrag"};
    return kind >= TR_ALLOC && kind <= TR_KIND_LAST ? ops[kind] : NULL;
}

int tw_event(tw_writer *w, const tr_event *ev, am_error *err)
{
    FILE *f = w->f;
    const char *op = tw_op_name((int)ev->kind);
    if (!op)
        return am_fail(err, AM_EINTERNAL, "trace writer: unknown event kind %d", (int)ev->kind);
    const char *lv = tw_level(w, ev->level);
    if (tr_kind_has_level((int)ev->kind) && !lv)
        return am_fail(err, AM_EINTERNAL, "trace writer: event of line %lu names level %d, "
                       "which the config does not have", ev->line, (int)ev->level);
    fputs(op, f);
    switch (ev->kind) {
    case TR_ALLOC:
        fprintf(f, " %" PRIu64 " %" PRIu64, ev->id, ev->bytes);
        tw_level_field(f, ev, lv);
        if (ev->addr != TR_NO_ADDR)
            fprintf(f, " addr=%" PRIu64, ev->addr);
        if (ev->has_donate)
            fprintf(f, " donate=%" PRIu64, ev->donate);
        if (ev->line == 0)
            fputs(" prologue=1", f); /* start-state recovery (snapshot reader): not validated */
        break;
    case TR_FREE:
    case TR_FREE_REQUESTED:
        fprintf(f, " %" PRIu64, ev->id);
        if (ev->line == 0)
            fputs(" prologue=1", f); /* the start-state recovery's frees: the engine's metrics
                                        are taken once the prologue is over */
        break;
    case TR_USE:
    case TR_FREE_COMPLETED:
        fprintf(f, " %" PRIu64, ev->id);
        break;
    case TR_TRANSFER: {
        const char *dst = tw_level(w, ev->dst_level);
        if (!dst)
            return am_fail(err, AM_EINTERNAL, "trace writer: transfer of line %lu to level %d, "
                           "which the config does not have", ev->line, (int)ev->dst_level);
        fprintf(f, " %s %s %" PRIu64, lv, dst, ev->bytes);
        if (ev->id != TR_NO_ADDR)
            fprintf(f, " id=%" PRIu64, ev->id);
        if (ev->has_into)
            fprintf(f, " into=%" PRIu64, ev->into);
        if (ev->has_to)
            fprintf(f, " to=%" PRIu64, ev->to);
        if (ev->implicit)
            fputs(" implicit=1", f);
        break;
    }
    case TR_COMPUTE:
        fprintf(f, " %" PRIu64, ev->duration);
        break;
    case TR_RECORD:
    case TR_WAIT:
        fprintf(f, " %" PRIu64, ev->arg);
        break;
    case TR_SYNC:
        break;
    case TR_DEFRAG:
        tw_level_field(f, ev, lv);
        break;
    case TR_SEGMENT_ALLOC:
    case TR_SEGMENT_FREE:
        fprintf(f, " %" PRIu64 " %" PRIu64, ev->addr, ev->bytes);
        tw_level_field(f, ev, lv);
        if (ev->kind == TR_SEGMENT_ALLOC && ev->declared)
            fputs(" declared=1", f);
        break;
    default: /* TR_OOM_RECORDED */
        fprintf(f, " %" PRIu64, ev->bytes);
        tw_level_field(f, ev, lv);
        break;
    }
    /* a defrag takes no stream= (a host action on a level: its stream is TR_ALL) */
    if (!((ev->kind == TR_SYNC || ev->kind == TR_DEFRAG) && ev->stream == TR_ALL) &&
        ev->stream != 0)
        fprintf(f, " stream=%" PRIu32, ev->stream);
    if (ev->kind == TR_SYNC && ev->stream == 0)
        fputs(" stream=0", f);
    if (ev->name && tr_kind_named(ev->kind))
        fprintf(f, " name=%s", ev->name);
    if (ev->time != AM_TIME_NONE) {
        am_ps at = ev->time < w->last_at ? w->last_at : ev->time;
        fprintf(f, " at=%" PRIu64, at);
        w->last_at = at;
    }
    fputc('\n', f);
    return 0;
}
