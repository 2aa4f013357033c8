/* trace_gz.c - a FILE* yielding the decompressed bytes of a gzip file (see trace_gz.h).
 *
 * fopencookie (glibc) turns callbacks into a stdio stream: read -> inflate over the file's
 * gzip members one after the other, seek -> forwards by decompressing and dropping, backwards
 * by starting again from the first byte, close -> the file and the inflate state. Writes are
 * refused. zlib's gzread would do the reading, but it ends quietly at bytes after a member
 * that do not start another one, so a member whose header was damaged, and everything after
 * it, would be lost without a word; here they are a read error, as a truncated or corrupt
 * member is. Zero bytes after the last member (padding some tools write) are accepted, as
 * gzip(1) accepts them. */
#define _GNU_SOURCE
#include "trace_gz.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define GZ_IN (1u << 17)  /* compressed bytes read at a time */
#define GZ_OUT (1u << 18) /* decompressed bytes made at a time for stdio's small reads */

typedef struct gz_cookie {
    FILE *raw;
    z_stream z;
    int member_done;      /* a member ended: what follows is another one, padding, or the end */
    int at_end;           /* the last member ended and the file with it */
    const char *pending;  /* a failure found after some bytes were handed out: the next read's */
    uint64_t pos;         /* decompressed bytes handed out since the start */
    size_t out_at, out_end; /* out[out_at, out_end): made, not handed out yet */
    unsigned char in[GZ_IN];
    unsigned char out[GZ_OUT];
} gz_cookie;

/* Why the last read through trace_gz_open failed on this thread (trace_read_why). */
static _Thread_local const char *gz_why;

const char *trace_read_why(int errnum)
{
    const char *w = gz_why;
    gz_why = NULL;
    return w ? w : strerror(errnum);
}

static ssize_t gz_fail(const char *why)
{
    gz_why = why;
    errno = EIO;
    return -1;
}

/* More compressed input, keeping the avail_in bytes not used yet: 1, or 0 at the end of the
 * file, or -1 on a read error. */
static int gz_fill(gz_cookie *k)
{
    memmove(k->in, k->z.next_in, k->z.avail_in);
    k->z.next_in = k->in;
    size_t r = fread(k->in + k->z.avail_in, 1, GZ_IN - k->z.avail_in, k->raw);
    k->z.avail_in += (uInt)r;
    if (r == 0)
        return ferror(k->raw) ? -1 : 0;
    return 1;
}

/* After a member's end: 0 when another member starts here (the inflate state reset for it), 1
 * when only zero bytes are left to the end of the file, -1 (gz_why set) otherwise. */
static int gz_next_member(gz_cookie *k)
{
    for (;;) {
        while (k->z.avail_in < 2) {
            int f = gz_fill(k);
            if (f < 0)
                return (int)gz_fail(strerror(errno));
            if (f == 0)
                break;
        }
        if (k->z.avail_in >= 2 && k->z.next_in[0] == 0x1f && k->z.next_in[1] == 0x8b) {
            inflateReset(&k->z);
            k->member_done = 0;
            return 0;
        }
        while (k->z.avail_in && k->z.next_in[0] == 0) { /* padding */
            k->z.next_in++;
            k->z.avail_in--;
        }
        if (k->z.avail_in)
            return (int)gz_fail("bytes after the end of the gzip data that do not start another "
                                "gzip member (a damaged or appended file)");
        int f = gz_fill(k);
        if (f < 0)
            return (int)gz_fail(strerror(errno));
        if (f == 0)
            return 1;
    }
}

/* Inflate into buf[0, n) until it is full or the data ends: the bytes made (also k->z.next_out
 * - buf), or -1 (gz_why set). */
static ssize_t gz_read_some(gz_cookie *k, char *buf, size_t n)
{
    k->z.next_out = (unsigned char *)buf;
    k->z.avail_out = n > (1u << 30) ? (1u << 30) : (uInt)n;
    uInt want = k->z.avail_out;
    while (k->z.avail_out && !k->at_end) {
        if (k->member_done) {
            int r = gz_next_member(k);
            if (r < 0)
                return -1;
            if (r > 0) {
                k->at_end = 1;
                break;
            }
        }
        if (k->z.avail_in == 0) {
            int f = gz_fill(k);
            if (f < 0)
                return gz_fail(strerror(errno));
            if (f == 0)
                return gz_fail("corrupt or truncated gzip data");
        }
        int r = inflate(&k->z, Z_NO_FLUSH);
        if (r == Z_STREAM_END)
            k->member_done = 1;
        else if (r != Z_OK && r != Z_BUF_ERROR)
            return gz_fail("corrupt or truncated gzip data");
    }
    return (ssize_t)(want - k->z.avail_out);
}

/* One read. stdio asks for 8 KiB at a time, and inflate is about 10% slower making so little
 * per call, so a short read is served from out, made GZ_OUT bytes at a time (a long one goes
 * straight to the caller's buffer). The bytes decompressed before a failure are handed out
 * first, so that a reader sees every line before the damage and names the line it stopped
 * at; the failure is the next read's. */
static ssize_t gz_read(void *c, char *buf, size_t n)
{
    gz_cookie *k = c;
    if (k->out_at == k->out_end && !k->pending) {
        char *to = n >= GZ_OUT ? buf : (char *)k->out;
        size_t want = n >= GZ_OUT ? n : GZ_OUT;
        ssize_t r = gz_read_some(k, to, want);
        size_t got = (size_t)(k->z.next_out - (unsigned char *)to);
        if (r < 0) {
            k->pending = gz_why;
            gz_why = NULL;
        }
        if (to == buf) {
            k->pos += got;
            return got || !k->pending ? (ssize_t)got : gz_fail(k->pending);
        }
        k->out_at = 0;
        k->out_end = got;
    }
    if (k->out_at == k->out_end)
        return k->pending ? gz_fail(k->pending) : 0;
    size_t m = k->out_end - k->out_at < n ? k->out_end - k->out_at : n;
    memcpy(buf, k->out + k->out_at, m);
    k->out_at += m;
    k->pos += m;
    return (ssize_t)m;
}

/* To the start of the file, as just opened: 0, or -1 with errno. */
static int gz_restart(gz_cookie *k)
{
    if (fseek(k->raw, 0, SEEK_SET) != 0)
        return -1;
    inflateReset(&k->z);
    k->z.next_in = k->in;
    k->z.avail_in = 0;
    k->member_done = k->at_end = 0;
    k->pending = NULL;
    k->out_at = k->out_end = 0;
    k->pos = 0;
    return 0;
}

static int gz_seek(void *c, off64_t *pos, int whence)
{
    gz_cookie *k = c;
    if (whence != SEEK_SET && whence != SEEK_CUR) {
        errno = EINVAL; /* the decompressed length is unknown */
        return -1;
    }
    int64_t to = whence == SEEK_SET ? *pos : (int64_t)k->pos + *pos;
    if (to < 0) {
        errno = EINVAL;
        return -1;
    }
    if ((uint64_t)to < k->pos && gz_restart(k) != 0)
        return -1;
    char skip[4096];
    while (k->pos < (uint64_t)to) {
        uint64_t left = (uint64_t)to - k->pos;
        ssize_t r = gz_read(k, skip, left < sizeof skip ? (size_t)left : sizeof skip);
        if (r < 0)
            return -1;
        if (r == 0)
            break; /* past the end: stays there, as a plain file's reads would return nothing */
    }
    *pos = (off64_t)k->pos;
    return 0;
}

static int gz_close(void *c)
{
    gz_cookie *k = c;
    inflateEnd(&k->z);
    int r = fclose(k->raw);
    free(k);
    return r;
}

int trace_gz_magic(const unsigned char *buf, size_t n)
{
    return n >= 2 && buf[0] == 0x1f && buf[1] == 0x8b;
}

FILE *trace_gz_open(const char *path)
{
    gz_cookie *k = calloc(1, sizeof *k);
    if (!k) {
        errno = ENOMEM;
        return NULL;
    }
    k->raw = fopen(path, "rb");
    if (!k->raw) {
        int e = errno;
        free(k);
        errno = e;
        return NULL;
    }
    if (inflateInit2(&k->z, 15 + 16) != Z_OK) { /* gzip wrapper only */
        fclose(k->raw);
        free(k);
        errno = ENOMEM;
        return NULL;
    }
    k->z.next_in = k->in;
    setvbuf(k->raw, NULL, _IONBF, 0); /* read in GZ_IN chunks already */
    cookie_io_functions_t io = {gz_read, NULL, gz_seek, gz_close};
    FILE *f = fopencookie(k, "rb", io);
    if (!f) {
        int e = errno;
        gz_close(k);
        errno = e;
        return NULL;
    }
    return f;
}
