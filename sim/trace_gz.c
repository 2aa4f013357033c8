/* trace_gz.c - a FILE* yielding the decompressed bytes of a gzip file (see trace_gz.h).
 *
 * fopencookie (glibc) turns four callbacks into a stdio stream: read -> gzread, seek ->
 * gzseek (zlib emulates seeking in a compressed stream: forwards by decompressing and skipping,
 * backwards by rewinding to the start), close -> gzclose. Writes are refused. */
#define _GNU_SOURCE
#include "trace_gz.h"

#include <errno.h>
#include <limits.h>
#include <zlib.h>

int trace_gz_magic(const unsigned char *buf, size_t n)
{
    return n >= 2 && buf[0] == 0x1f && buf[1] == 0x8b;
}

static ssize_t gz_read(void *c, char *buf, size_t n)
{
    if (n > INT_MAX)
        n = INT_MAX;
    int r = gzread((gzFile)c, buf, (unsigned)n), e = Z_OK;
    if (r == 0)
        gzerror((gzFile)c, &e); /* Z_BUF_ERROR at the end: the stream was cut short */
    if (r < 0 || e != Z_OK) {
        errno = EIO; /* corrupt or truncated compressed data */
        return -1;
    }
    return r;
}

static int gz_seek(void *c, off64_t *pos, int whence)
{
    if (whence != SEEK_SET && whence != SEEK_CUR) {
        errno = EINVAL; /* the decompressed length is unknown */
        return -1;
    }
    z_off_t r = gzseek((gzFile)c, (z_off_t)*pos, whence);
    if (r < 0) {
        errno = EIO;
        return -1;
    }
    *pos = r;
    return 0;
}

static int gz_close(void *c)
{
    return gzclose((gzFile)c) == Z_OK ? 0 : EOF;
}

FILE *trace_gz_open(const char *path)
{
    gzFile g = gzopen(path, "rb");
    if (!g) {
        if (!errno)
            errno = ENOMEM;
        return NULL;
    }
    gzbuffer(g, 1u << 17);
    cookie_io_functions_t io = {gz_read, NULL, gz_seek, gz_close};
    FILE *f = fopencookie(g, "rb", io);
    if (!f) {
        int e = errno;
        gzclose(g);
        errno = e;
    }
    return f;
}
