/* linebuf.c - chunked line reader for the trace readers (see linebuf.h).
 *
 * The buffer holds buf[pos, end) unread bytes. A line is found with linebuf_find_nl (a word-wise
 * search, linebuf.h; the common case is inlined there as linebuf_next); when the rest of the
 * buffer holds no newline the unread tail is moved to the front and the buffer refilled with
 * one fread. Since a line may not exceed max_line bytes, a tail longer than that without a
 * newline is reported as too long before any refill, so the buffer never grows. */
#include "linebuf.h"

#include <stdlib.h>
#include <string.h>

#include "common.h"

void linebuf_init(linebuf *lb, FILE *f, size_t max_line)
{
    memset(lb, 0, sizeof *lb);
    lb->f = f;
    /* zeroed: the word-wise newline search may read bytes past the data (never using them),
       and they must be defined for valgrind */
    lb->buf = am_calloc(1, (size_t)LINEBUF_CHUNK + 1 + LINEBUF_PAD);
    lb->max_line = max_line < LINEBUF_CHUNK - 2 ? max_line : LINEBUF_CHUNK - 2;
}

void linebuf_free(linebuf *lb)
{
    free(lb->buf);
    lb->buf = NULL;
}

/* Move the unread tail to the front and read more; 0, or LINEBUF_EREAD. */
static int linebuf_fill(linebuf *lb)
{
    size_t avail = lb->end - lb->pos;
    if (lb->pos) {
        memmove(lb->buf, lb->buf + lb->pos, avail);
        lb->pos = 0;
        lb->end = avail;
    }
    /* At most LINEBUF_STEP per read: a small window that stays in the processor's caches (a
     * whole-buffer read would push the simulator's own data out of them); the full buffer is for
     * long lines. */
    size_t want = LINEBUF_CHUNK - lb->end;
    if (want > LINEBUF_STEP && lb->end < LINEBUF_STEP)
        want = LINEBUF_STEP;
    size_t r = fread(lb->buf + lb->end, 1, want, lb->f);
    lb->end += r;
    if (r == 0) {
        if (ferror(lb->f))
            return LINEBUF_EREAD;
        lb->eof = 1;
    }
    return 0;
}

int linebuf_next_slow(linebuf *lb, char **line, size_t *len)
{
    if (!lb->started) {
        lb->started = 1;
        while (!lb->eof && lb->end < 3)
            if (linebuf_fill(lb))
                return LINEBUF_EREAD;
        if (lb->end >= 3 && memcmp(lb->buf, "\xEF\xBB\xBF", 3) == 0)
            lb->pos = 3;
    }
    for (;;) {
        char *s = lb->buf + lb->pos;
        size_t avail = lb->end - lb->pos;
        char *nl = avail ? linebuf_find_nl(s, avail) : NULL;
        if (nl || (lb->eof && avail)) {
            size_t n = nl ? (size_t)(nl - s) : avail;
            lb->pos += nl ? n + 1 : n;
            lb->line++;
            if (n && s[n - 1] == '\r')
                n--;
            if (n > lb->max_line) {
                *line = s; /* its start, for a caller that classifies it (trace.c) */
                *len = lb->max_line;
                return LINEBUF_TOOLONG;
            }
            s[n] = 0; /* the '\n', the '\r', or the spare byte after the data */
            *line = s;
            *len = n;
            return 1;
        }
        if (lb->eof)
            return 0;
        if (avail > lb->max_line + 1) { /* + 1: a '\r' may still come */
            lb->line++;
            *line = s;
            *len = lb->max_line;
            return LINEBUF_TOOLONG;
        }
        if (linebuf_fill(lb))
            return LINEBUF_EREAD;
    }
}
