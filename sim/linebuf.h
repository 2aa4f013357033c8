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
#include <string.h>

#define LINEBUF_CHUNK (1u << 20)    /* bytes of the read buffer */
#define LINEBUF_STEP (1u << 16)     /* bytes asked of one read while the buffer holds little */
#define LINEBUF_MAX_LINE 65536u     /* default line limit (bytes, without the newline) */
#define LINEBUF_PAD 16u             /* readable bytes after the buffer's end (word-wise search) */

enum { LINEBUF_TOOLONG = -1, LINEBUF_EREAD = -2 };

typedef struct linebuf {
    FILE *f;
    char *buf;            /* LINEBUF_CHUNK + 1 bytes (room for a final NUL) + LINEBUF_PAD */
    size_t pos, end;      /* unread bytes are buf[pos, end) */
    size_t max_line;      /* bytes */
    unsigned long line;   /* 1-based number of the line last returned (or failed) */
    int eof, started;
} linebuf;

/* Start reading f from its current position; max_line < LINEBUF_CHUNK - 2. */
void linebuf_init(linebuf *lb, FILE *f, size_t max_line);
void linebuf_free(linebuf *lb);
/* 1: *line and *len set; 0: end of file; LINEBUF_TOOLONG: line lb->line exceeds the limit
 * (*line: its first *len = max_line bytes, not NUL-terminated, valid until the next call);
 * LINEBUF_EREAD: the read failed (errno set). linebuf_next is the inline fast path (a complete
 * line in the buffer); everything else (first call, refills, end of file, limits) is
 * linebuf_next_slow's, which gives the same results for any state. */
int linebuf_next_slow(linebuf *lb, char **line, size_t *len);

/* First '\n' in [s, s + n) or NULL. Lines are short: eight bytes at a time for the first 64
 * (the buffer's padding makes reading a word past n safe), then memchr. */
static inline char *linebuf_find_nl(char *s, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    size_t i = 0;
    for (; i < n && i < 64; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        w ^= 0x0a0a0a0a0a0a0a0aULL; /* '\n' bytes become zero */
        uint64_t z = (w - 0x0101010101010101ULL) & ~w & 0x8080808080808080ULL;
        if (z) { /* the lowest flagged byte is the first zero byte (no false positive below it) */
            size_t k = i + (size_t)(__builtin_ctzll(z) >> 3);
            return k < n ? s + k : NULL;
        }
    }
    return i < n ? memchr(s + i, '\n', n - i) : NULL;
#else
    return memchr(s, '\n', n);
#endif
}

static inline int linebuf_next(linebuf *lb, char **line, size_t *len)
{
    if (lb->started) {
        char *s = lb->buf + lb->pos;
        char *nl = linebuf_find_nl(s, lb->end - lb->pos);
        size_t n = nl ? (size_t)(nl - s) : 0;
        if (nl && n <= lb->max_line) {
            lb->pos += n + 1;
            lb->line++;
            if (n && s[n - 1] == '\r')
                n--;
            s[n] = 0;
            *line = s;
            *len = n;
            return 1;
        }
    }
    return linebuf_next_slow(lb, line, len);
}

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
        if (i >= 19 && x > (UINT64_MAX - d) / 10) { /* 19 digits cannot overflow */
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
