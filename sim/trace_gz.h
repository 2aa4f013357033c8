/* trace_gz.h - gzip-compressed traces read through an ordinary FILE* (internal).
 *
 * The trace readers read t->f with fread/fseek (and sim/linebuf.c); a gzip file (first bytes
 * 1f 8b) is given to them as a FILE* that yields the decompressed bytes, so no reader knows
 * about compression. Built on zlib's inflate, member after member, behind glibc's
 * fopencookie. */
#ifndef AM_TRACE_GZ_H
#define AM_TRACE_GZ_H

#include <stdio.h>

/* 1 when the first bytes of buf (n bytes) are the gzip magic 1f 8b. */
int trace_gz_magic(const unsigned char *buf, size_t n);
/* Open path (a gzip file) for reading its decompressed bytes: a FILE* that supports fread,
 * fseek(SEEK_SET/SEEK_CUR; backwards by re-reading from the start) and fclose; NULL with errno
 * set on failure. Members follow one another as one stream, and zero bytes after the last are
 * padding. A corrupt or truncated member, and bytes after a member that neither start another
 * nor are padding, are a read error (ferror, errno EIO; trace_read_why says which), after
 * the bytes decompressed before it have been read. */
FILE *trace_gz_open(const char *path);
/* The reason for a read error: what the last failed read of a trace_gz_open stream on this
 * thread found (corrupt or truncated data, bytes after a member), else strerror(errnum). */
const char *trace_read_why(int errnum);

#endif
