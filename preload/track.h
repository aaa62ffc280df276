/*
 * Dump tracking: which fds are dumps being written, and the path of their
 * bytes through the strip engine to the file. An fd and a path come in
 * (hst_opened), then writes, positional writes and rewrites, seeks,
 * truncations and copies, and the end (hst_close). The real I/O functions
 * are passed in (hst_setup), so this layer calls none by name: the shim's
 * wrappers are its first user, and an app's own PLT hook can be another.
 *
 * Each call that takes a result pointer returns 1 when fd is a dump and
 * the call was handled here (the result set, errno set on failure and
 * left alone on success), or 0 when it is not: the caller then makes the
 * real call. Memory: a fixed pool of trackers and an fd table, no
 * allocation. Each call's output is in the file before it returns.
 */
#ifndef HPROFSTRIP_TRACK_H
#define HPROFSTRIP_TRACK_H

#include "../strip/outbuf.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

struct hst_io {
	hs_pwrite_fn pwrite;                         /* the dumps' output */
	ssize_t (*pread)(int fd, void *buf, size_t len, int64_t off);
	ssize_t (*read)(int fd, void *buf, size_t len);
	int64_t (*lseek)(int fd, int64_t off, int whence);
	int (*ftruncate)(int fd, int64_t len);
	int (*fcntl)(int fd, int cmd, unsigned long arg);
	/* a compressor's output file (HPROFSTRIP_COMPRESS), its fds */
	int (*open)(const char *path, int flags, int mode);
	int (*close)(int fd);
};

/* Once, before any other call. */
void hst_setup(const struct hst_io *io);

/* A successful open of path (relative to dirfd) with flags gave fd. */
void hst_opened(int fd, int dirfd, const char *path, int flags);
/* write (at < 0: at fd's position, which moves) or pwrite (at >= 0). */
int hst_write(int fd, const void *buf, size_t len, int64_t at, ssize_t *ret);
/* writev or pwritev, likewise. */
int hst_writev(int fd, const struct iovec *iov, int cnt, int64_t at,
               ssize_t *ret);
int hst_lseek(int fd, int64_t off, int whence, int64_t *ret);
int hst_ftruncate(int fd, int64_t len, int *ret);
/* sendfile (out_off NULL) or copy_file_range into out_fd: in_fd's bytes
 * as the next ones written. in_off NULL: in_fd's position. */
int hst_copy(int out_fd, int in_fd, int64_t *in_off, int64_t *out_off,
             size_t len, ssize_t *ret);
/* Before the real close of fd: ends its dump if fd was the last one to
 * refer to it. 0, or the errno of a last write that failed. */
int hst_close(int fd);
/* A dup gave newfd from oldfd. */
void hst_dup(int oldfd, int newfd);
/* Before dup2/dup3 of oldfd onto newfd, which closes newfd. */
void hst_replace(int oldfd, int newfd);

/* pthread_atfork handlers: a forked child forgets its parent's dumps. */
void hst_fork_prepare(void);
void hst_fork_parent(void);
void hst_fork_child(void);

#endif
