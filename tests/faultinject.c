/*
 * libfaultinject.so: a test-only preload library that makes writes to
 * chosen files fail the way a full or broken disk, a signal or a slow
 * device makes them fail.
 *
 *   LD_PRELOAD="build/libhprofstrip.so build/libfaultinject.so" CMD ...
 *   LD_PRELOAD=build/libfaultinject.so CMD ...        (no shim: reference)
 *
 * Layered under the shim, the shim's dlsym(RTLD_NEXT, "pwrite64") etc.
 * resolve here, so the faults hit the shim's own output writes; alone, they
 * hit the runtime's writes. Either way the runtime's behaviour can be
 * compared.
 *
 * Which files: those whose path (readlink /proc/self/fd/N) or basename
 * matches FAULT_PATTERN (fnmatch, default "*.hprof"). The decision is
 * cached per open file (device and inode, checked with fstat on each call,
 * so a reused fd number is looked up again). Counters are per file, shared
 * by every fd that refers to it (dup, F_DUPFD_CLOEXEC).
 *
 * FAULT:
 *   enospc:N  the file cannot grow past N bytes, as on a full disk: a
 *             write that would cross offset N is cut short at N, one that
 *             starts at or after N fails with ENOSPC. Rewrites below N
 *             (a length patched in place) succeed. Zero-length writes
 *             succeed.
 *   eio[:N]   the same with EIO (N defaults to 0: every write fails).
 *   edquot:N  the same with EDQUOT, as a disk quota does.
 *   edquot-once:N
 *             the first write that would cross offset N fails with EDQUOT
 *             and writes nothing; every later one succeeds, as when the
 *             writer made room (removed another file) within its quota.
 *   eintr     every other call (the 1st, 3rd, ...) fails with EINTR and
 *             writes nothing.
 *   short     every call writes at most 1 byte.
 *   nomap     every anonymous mmap or mmap64 made through the PLT fails
 *             with ENOMEM (the shim maps its tables so; the C library's
 *             own malloc does not come here); writes are left alone.
 *   slowunlock
 *             every pthread_mutex_unlock made through the PLT (the
 *             shim's locks) sleeps 20 ms after the mutex is let go of, so
 *             a thread that waited for it runs before the unlocker's next
 *             step; writes are left alone.
 *   (unset or anything else: no faults)
 *
 * FAULT_LOG=FILE: the first injected fault of each kind in a process
 * appends a line "enospc", "eio", "edquot", "eintr", "short" or "nomap" to FILE (for the
 * tests to see that faults happened).
 *
 * Wrapped: write, pwrite, pwrite64, writev, pwritev, pwritev64, sendfile,
 * sendfile64, copy_file_range. Not for production use.
 */
#define _GNU_SOURCE 1
#undef _FORTIFY_SOURCE
#undef _FILE_OFFSET_BITS

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#undef pwrite64
#undef pwritev64
#undef sendfile64

#define EXPORT __attribute__((visibility("default")))

typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef ssize_t (*pwrite64_fn)(int, const void *, size_t, int64_t);
typedef ssize_t (*writev_fn)(int, const struct iovec *, int);
typedef ssize_t (*pwritev_fn)(int, const struct iovec *, int, off_t);
typedef ssize_t (*pwritev64_fn)(int, const struct iovec *, int, int64_t);
typedef ssize_t (*sendfile_fn)(int, int, off_t *, size_t);
typedef ssize_t (*sendfile64_fn)(int, int, int64_t *, size_t);
typedef ssize_t (*cfr_fn)(int, int64_t *, int, int64_t *, size_t, unsigned);

static struct {
	write_fn write;
	pwrite_fn pwrite;
	pwrite64_fn pwrite64;
	writev_fn writev;
	pwritev_fn pwritev;
	pwritev64_fn pwritev64;
	sendfile_fn sendfile;
	sendfile64_fn sendfile64;
	cfr_fn copy_file_range;
} real;

enum { F_NONE, F_ENOSPC, F_EIO, F_EDQUOT, F_EINTR, F_SHORT, F_NOMAP,
       F_SLOWUNLOCK };

static int mode = F_NONE;
static uint64_t limit;
/* edquot-once: 1 until the fault is injected, then 2 (no more faults) */
static int once;
static char pattern[512] = "*.hprof";
static char logpath[PATH_MAX];

#define MAX_FILES 64
static struct file {
	int used, match;
	dev_t dev;
	ino_t ino;
	uint64_t calls;
} files[MAX_FILES];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);
static mmap_fn real_mmap;
typedef int (*unlock_fn)(pthread_mutex_t *);
static unlock_fn real_unlock;

static void prepare(void) { pthread_mutex_lock(&lock); }
static void parent(void) { real_unlock(&lock); }

__attribute__((constructor)) static void fi_init(void)
{
	const char *s = getenv("FAULT");
	int saved = errno;

	real.write = (write_fn)dlsym(RTLD_NEXT, "write");
	real.pwrite = (pwrite_fn)dlsym(RTLD_NEXT, "pwrite");
	real.pwrite64 = (pwrite64_fn)dlsym(RTLD_NEXT, "pwrite64");
	real.writev = (writev_fn)dlsym(RTLD_NEXT, "writev");
	real.pwritev = (pwritev_fn)dlsym(RTLD_NEXT, "pwritev");
	real.pwritev64 = (pwritev64_fn)dlsym(RTLD_NEXT, "pwritev64");
	real.sendfile = (sendfile_fn)dlsym(RTLD_NEXT, "sendfile");
	real.sendfile64 = (sendfile64_fn)dlsym(RTLD_NEXT, "sendfile64");
	real.copy_file_range = (cfr_fn)dlsym(RTLD_NEXT, "copy_file_range");
	real_mmap = (mmap_fn)dlsym(RTLD_NEXT, "mmap");
	real_unlock = (unlock_fn)dlsym(RTLD_NEXT, "pthread_mutex_unlock");
	if (s && !strncmp(s, "enospc:", 7)) {
		mode = F_ENOSPC;
		limit = strtoull(s + 7, NULL, 0);
	} else if (s && !strncmp(s, "edquot:", 7)) {
		mode = F_EDQUOT;
		limit = strtoull(s + 7, NULL, 0);
	} else if (s && !strncmp(s, "edquot-once:", 12)) {
		mode = F_EDQUOT;
		once = 1;
		limit = strtoull(s + 12, NULL, 0);
	} else if (s && !strncmp(s, "eio", 3)) {
		mode = F_EIO;
		limit = s[3] == ':' ? strtoull(s + 4, NULL, 0) : 0;
	} else if (s && !strcmp(s, "eintr")) {
		mode = F_EINTR;
	} else if (s && !strcmp(s, "short")) {
		mode = F_SHORT;
	} else if (s && !strcmp(s, "nomap")) {
		mode = F_NOMAP;
	} else if (s && !strcmp(s, "slowunlock")) {
		mode = F_SLOWUNLOCK;
	}
	s = getenv("FAULT_PATTERN");
	if (s && *s)
		snprintf(pattern, sizeof pattern, "%s", s);
	s = getenv("FAULT_LOG");
	if (s)
		snprintf(logpath, sizeof logpath, "%s", s);
	pthread_atfork(prepare, parent, parent);
	errno = saved;
}

static void note(const char *what)
{
	static char seen[F_SLOWUNLOCK + 1];  /* one line per kind and process */
	int fd;
	size_t n = strlen(what);
	char line[16];

	if (!logpath[0] || n + 1 > sizeof line || seen[mode])
		return;
	seen[mode] = 1;
	memcpy(line, what, n);
	line[n++] = '\n';
	fd = (int)syscall(SYS_openat, AT_FDCWD, logpath,
	                  O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (syscall(SYS_write, fd, line, n) < 0) {
		/* nothing to do */
	}
	syscall(SYS_close, fd);
}

/* The file behind fd, when it matches the pattern; NULL otherwise.
 * Called with the lock held. */
static struct file *target(int fd)
{
	struct stat sb;
	char link[64], path[PATH_MAX];
	const char *base;
	ssize_t n;
	unsigned i, free_slot = MAX_FILES;

	if (mode == F_NONE || fd < 0 || fstat(fd, &sb))
		return NULL;
	for (i = 0; i < MAX_FILES; i++) {
		if (files[i].used && files[i].dev == sb.st_dev &&
		    files[i].ino == sb.st_ino)
			return files[i].match ? &files[i] : NULL;
		if (!files[i].used && free_slot == MAX_FILES)
			free_slot = i;
	}
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof path - 1);
	if (n < 0)
		return NULL;
	path[n] = 0;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (free_slot == MAX_FILES)  /* full: forget everything */
		memset(files, 0, sizeof files), free_slot = 0;
	files[free_slot].used = 1;
	files[free_slot].dev = sb.st_dev;
	files[free_slot].ino = sb.st_ino;
	files[free_slot].calls = 0;
	files[free_slot].match = !fnmatch(pattern, path, 0) ||
	                         !fnmatch(pattern, base, 0);
	return files[free_slot].match ? &files[free_slot] : NULL;
}

/* Decides a call of len bytes on f at file offset off (-1: fd's file
 * position): returns how many bytes may be written (<= len), or -1 with
 * errno set for an injected failure. */
static ssize_t allow(struct file *f, int fd, size_t len, int64_t off)
{
	f->calls++;
	switch (mode) {
	case F_ENOSPC:
	case F_EIO:
	case F_EDQUOT:
		if (!len || once > 1)
			return (ssize_t)len;
		if (off < 0)  /* raw: the shim above would answer virtually */
			off = (int64_t)syscall(SYS_lseek, fd, 0L, SEEK_CUR);
		if (off < 0)
			return (ssize_t)len;  /* let the real call answer */
		if ((uint64_t)off >= limit ||
		    (once && len > limit - (uint64_t)off)) {
			note(mode == F_EIO ? "eio" : mode == F_EDQUOT ? "edquot"
			                                           : "enospc");
			errno = mode == F_EIO ? EIO : mode == F_EDQUOT ? EDQUOT
			                                              : ENOSPC;
			once += once;  /* once: the next calls all succeed */
			return -1;
		}
		if (len > limit - (uint64_t)off)
			len = (size_t)(limit - (uint64_t)off);
		return (ssize_t)len;
	case F_EINTR:
		if (f->calls % 2) {
			note("eintr");
			errno = EINTR;
			return -1;
		}
		return (ssize_t)len;
	case F_SHORT:
		if (len > 1) {
			note("short");
			len = 1;
		}
		return (ssize_t)len;
	default:
		return (ssize_t)len;
	}
}

/* Each wrapper: find the file; unmatched calls go straight through. */
#define BEGIN(fd)                                                      \
	struct file *f;                                                \
	ssize_t r;                                                     \
	pthread_mutex_lock(&lock);                                     \
	f = target(fd);                                                \
	if (!f)                                                        \
		pthread_mutex_unlock(&lock);

EXPORT ssize_t write(int fd, const void *buf, size_t len)
{
	BEGIN(fd)
	if (!f)
		return real.write(fd, buf, len);
	r = allow(f, fd, len, -1);
	if (r >= 0 && (r > 0 || !len))
		r = real.write(fd, buf, (size_t)r);
	pthread_mutex_unlock(&lock);
	return r;
}

static ssize_t do_pwrite(int fd, const void *buf, size_t len, int64_t off)
{
	BEGIN(fd)
	if (!f)
		return real.pwrite64 ? real.pwrite64(fd, buf, len, off)
		                     : real.pwrite(fd, buf, len, (off_t)off);
	r = allow(f, fd, len, off);
	if (r >= 0 && (r > 0 || !len))
		r = real.pwrite64 ? real.pwrite64(fd, buf, (size_t)r, off)
		                  : real.pwrite(fd, buf, (size_t)r, (off_t)off);
	pthread_mutex_unlock(&lock);
	return r;
}

EXPORT ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	return do_pwrite(fd, buf, len, (int64_t)off);
}

EXPORT ssize_t pwrite64(int fd, const void *buf, size_t len, int64_t off)
{
	return do_pwrite(fd, buf, len, off);
}

/* The first iovecs covering at most max bytes (the last one cut). */
static int cut_iov(const struct iovec *iov, int cnt, size_t max,
                   struct iovec *out)
{
	int i, n = 0;

	for (i = 0; i < cnt && n < IOV_MAX && max; i++) {
		out[n] = iov[i];
		if (out[n].iov_len > max)
			out[n].iov_len = max;
		max -= out[n].iov_len;
		n++;
	}
	return n;
}

static ssize_t real_writev(int fd, const struct iovec *iov, int cnt,
                           int64_t off, int positional)
{
	if (!positional)
		return real.writev(fd, iov, cnt);
	return real.pwritev64 ? real.pwritev64(fd, iov, cnt, off)
	                      : real.pwritev(fd, iov, cnt, (off_t)off);
}

static ssize_t do_writev(int fd, const struct iovec *iov, int cnt,
                         int64_t off, int positional)
{
	static struct iovec cut[IOV_MAX];  /* under the lock */
	size_t total = 0;
	int i, n;

	if (cnt <= 0 || cnt > IOV_MAX)  /* the kernel's answer, no fault */
		return real_writev(fd, iov, cnt, off, positional);
	BEGIN(fd)
	if (!f)
		return real_writev(fd, iov, cnt, off, positional);
	for (i = 0; i < cnt; i++)
		total += iov[i].iov_len;
	r = allow(f, fd, total, positional ? off : -1);
	if (r >= 0) {
		n = cut_iov(iov, cnt, (size_t)r, cut);
		r = real_writev(fd, n ? cut : iov, n ? n : cnt, off, positional);
	}
	pthread_mutex_unlock(&lock);
	return r;
}

EXPORT ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	return do_writev(fd, iov, cnt, 0, 0);
}

EXPORT ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
	return do_writev(fd, iov, cnt, (int64_t)off, 1);
}

EXPORT ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, int64_t off)
{
	return do_writev(fd, iov, cnt, off, 1);
}

EXPORT ssize_t sendfile(int out_fd, int in_fd, off_t *off, size_t count)
{
	BEGIN(out_fd)
	if (!f)
		return real.sendfile(out_fd, in_fd, off, count);
	r = allow(f, out_fd, count, -1);
	if (r >= 0 && (r > 0 || !count))
		r = real.sendfile(out_fd, in_fd, off, (size_t)r);
	pthread_mutex_unlock(&lock);
	return r;
}

EXPORT ssize_t sendfile64(int out_fd, int in_fd, int64_t *off, size_t count)
{
	BEGIN(out_fd)
	if (!f)
		return real.sendfile64 ? real.sendfile64(out_fd, in_fd, off, count)
		                       : real.sendfile(out_fd, in_fd, (off_t *)off,
		                                       count);
	r = allow(f, out_fd, count, -1);
	if (r >= 0 && (r > 0 || !count))
		r = real.sendfile64 ? real.sendfile64(out_fd, in_fd, off, (size_t)r)
		                    : real.sendfile(out_fd, in_fd, (off_t *)off,
		                                    (size_t)r);
	pthread_mutex_unlock(&lock);
	return r;
}

EXPORT ssize_t copy_file_range(int in_fd, int64_t *in_off, int out_fd,
                               int64_t *out_off, size_t len, unsigned flags)
{
	BEGIN(out_fd)
	if (!f) {
		if (!real.copy_file_range) {
			errno = ENOSYS;
			return -1;
		}
		return real.copy_file_range(in_fd, in_off, out_fd, out_off, len,
		                            flags);
	}
	r = allow(f, out_fd, len, out_off ? (int64_t)*out_off : -1);
	if (r >= 0 && (r > 0 || !len)) {
		if (real.copy_file_range)
			r = real.copy_file_range(in_fd, in_off, out_fd, out_off,
			                         (size_t)r, flags);
		else
			errno = ENOSYS, r = -1;
	}
	pthread_mutex_unlock(&lock);
	return r;
}

/* FAULT=nomap: no anonymous memory to be had (the shim's tables). */
EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd,
                  off_t off)
{
	if (mode == F_NOMAP && (flags & MAP_ANONYMOUS)) {
		note("nomap");
		errno = ENOMEM;
		return MAP_FAILED;
	}
	return real_mmap(addr, len, prot, flags, fd, off);
}

/* (what a caller built with _FILE_OFFSET_BITS=64 calls: the shim) */
EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd,
                    int64_t off)
{
	typedef void *(*mmap64_fn)(void *, size_t, int, int, int, int64_t);
	mmap64_fn real = (mmap64_fn)dlsym(RTLD_NEXT, "mmap64");

	if (mode == F_NOMAP && (flags & MAP_ANONYMOUS)) {
		note("nomap");
		errno = ENOMEM;
		return MAP_FAILED;
	}
	return real ? real(addr, len, prot, flags, fd, off)
	            : real_mmap(addr, len, prot, flags, fd, (off_t)off);
}

EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
	struct timespec ms20 = { 0, 20000000 };
	int r, saved;

	if (!real_unlock)  /* (before the constructor: a loader's call) */
		real_unlock = (unlock_fn)dlsym(RTLD_NEXT, "pthread_mutex_unlock");
	r = real_unlock(m);
	if (mode == F_SLOWUNLOCK && m != &lock) {
		saved = errno;
		nanosleep(&ms20, NULL);
		errno = saved;
	}
	return r;
}
