/* linebuf.h - a buffered line reader for the trace readers (internal).
 *
 * Reads a FILE in large chunks (LINEBUF_CHUNK bytes) into one buffer and hands out lines in
 * place: the returned line is NUL-terminated, has its '\n' and a trailing '\r' removed, and stays
 * valid (and writable, so a parser may cut it into tokens) until the next linebuf_next call.
 * Memory is bounded: one buffer of LINEBUF_CHUNK bytes whatever the file size. A line longer
 * than the limit given to linebuf_init is an error, never truncated. A UTF-8 byte-order mark at
 * the start of the file is skipped. The last line needs no final newline. */
#ifndef AM_LINEBUF_H
#define AM_LINEBUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define LINEBUF_CHUNK (1u << 20)    /* bytes of the read buffer */
#define LINEBUF_MAX_LINE 65536u     /* default line limit (bytes, without the newline) */

enum { LINEBUF_TOOLONG = -1, LINEBUF_EREAD = -2 };

typedef struct linebuf {
    FILE *f;
    char *buf;            /* LINEBUF_CHUNK + 1 bytes (room for a final NUL) */
    size_t pos, end;      /* unread bytes are buf[pos, end) */
    size_t max_line;      /* bytes */
    unsigned long line;   /* 1-based number of the line last returned (or failed) */
    int eof, started;
} linebuf;

/* Start reading f from its current position; max_line < LINEBUF_CHUNK - 2. */
void linebuf_init(linebuf *lb, FILE *f, size_t max_line);
void linebuf_free(linebuf *lb);
/* 1: *line and *len set; 0: end of file; LINEBUF_TOOLONG: line lb->line exceeds the limit;
 * LINEBUF_EREAD: the read failed (errno set). */
int linebuf_next(linebuf *lb, char **line, size_t *len);

/* A plain unsigned decimal integer of exactly n bytes (no sign, no spaces): 0 and *v, or
 * 1 not an unsigned integer, 2 too large for 64 bits. Locale independent. */
static inline int linebuf_u64(const char *s, size_t n, uint64_t *v)
{
    if (n == 0)
        return 1;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned d = (unsigned)(unsigned char)s[i] - '0';
        if (d > 9)
            return 1;
        if (x > (UINT64_MAX - d) / 10) {
            for (i++; i < n; i++) /* finish the digits: garbage beats overflow */
                if ((unsigned)(unsigned char)s[i] - '0' > 9)
                    return 1;
            return 2;
        }
        x = x * 10 + d;
    }
    *v = x;
    return 0;
}

#endif
