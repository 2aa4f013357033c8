/* trace_gz.h - gzip-compressed traces read through an ordinary FILE* (internal).
 *
 * The trace readers read t->f with fread/fseek (and sim/linebuf.c); a gzip file (first bytes
 * 1f 8b) is given to them as a FILE* that yields the decompressed bytes, so no reader knows
 * about compression. Built on zlib's gzread behind glibc's fopencookie. */
#ifndef AM_TRACE_GZ_H
#define AM_TRACE_GZ_H

#include <stdio.h>

/* 1 when the first bytes of buf (n bytes) are the gzip magic 1f 8b. */
int trace_gz_magic(const unsigned char *buf, size_t n);
/* Open path (a gzip file) for reading its decompressed bytes: a FILE* that supports fread,
 * fseek(SEEK_SET/SEEK_CUR; backwards by re-reading from the start) and fclose; NULL with errno
 * set on failure. A corrupt or truncated stream is a read error (ferror, errno EIO). */
FILE *trace_gz_open(const char *path);

#endif
