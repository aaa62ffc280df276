/*
 * Output for the offline tools: a 1 MiB buffer in front of a file, with
 * in-place patches of bytes already written. A named output is written to
 * a temporary file beside it and renamed only on success; stdout that is a
 * regular file is written in place (and truncated back on failure); a pipe
 * is spooled to an unlinked temporary file, because record lengths are
 * patched after the fact, and copied out only once the run succeeded.
 */
#ifndef HPROFSTRIP_OUT_H
#define HPROFSTRIP_OUT_H

#include <stddef.h>
#include <stdint.h>

struct out {
	int fd;            /* where bytes go */
	int spool;         /* fd is a spool to copy to stdout at commit */
	const char *path;  /* final name, or NULL for stdout */
	const char *name;  /* for messages */
	const char *prog;  /* program name for messages */
	char tmp[4096];    /* temporary name while writing a named output */
	uint64_t base;     /* file offset of output byte 0 */
	uint64_t flushed;  /* output bytes already in the file */
	size_t len;        /* bytes in the buffer */
	int err;           /* errno of the first failure */
};

int out_open(struct out *o, const char *path, const char *prog);
int out_write(void *user, const void *buf, size_t len);
int out_patch(void *user, uint64_t off, const void *buf, size_t len);
int out_flush(struct out *o);
int out_commit(struct out *o);   /* 0 on success, message printed if not */
void out_abort(struct out *o);

/* write()/pwrite() until done, retrying short writes and EINTR. */
int write_full(int fd, const void *buf, size_t len);
int pwrite_full(int fd, const void *buf, size_t len, uint64_t off);

#endif
