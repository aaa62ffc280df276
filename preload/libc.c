/* The libc layer of libhprofstrip.so: see libc.h. */
#undef _FORTIFY_SOURCE
#undef _FILE_OFFSET_BITS  /* the names with and without 64: both */
#include "libc.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Raw system calls stand in for the base functions until dlsym has
 * answered (a call from another library's constructor, or from inside
 * dlsym itself), so no wrapper ever calls through a NULL pointer. The
 * *64 and fortified names start NULL: the wrappers fall back to the base
 * names when those are missing (musl >= 1.2.4 has no *64 symbols). */
static int raw_openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	int mode;

	va_start(ap, flags);
	mode = va_arg(ap, int);  /* the wrappers always pass one */
	va_end(ap);
	return (int)syscall(SYS_openat, dirfd, path, flags, mode);
}

static int raw_open(const char *path, int flags, ...)
{
	va_list ap;
	int mode;

	va_start(ap, flags);
	mode = va_arg(ap, int);
	va_end(ap);
	return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

static int raw_creat(const char *path, mode_t mode)
{
	return (int)syscall(SYS_openat, AT_FDCWD, path,
	                    O_WRONLY | O_CREAT | O_TRUNC, mode);
}

static ssize_t raw_write(int fd, const void *b, size_t n)
{
	return syscall(SYS_write, fd, b, n);
}

static ssize_t raw_writev(int fd, const struct iovec *iov, int cnt)
{
	return syscall(SYS_writev, fd, iov, cnt);
}

#if UINTPTR_MAX <= 0xffffffffu && !defined(__x86_64__)
/* 32 bits (not x32, whose system calls take 64-bit registers): a 64-bit
 * offset goes to the kernel as two longs, in the
 * machine's order (a, then b); on ARM EABI (and MIPS o32, PowerPC) from
 * an even register, after a pad (PAD) */
# define OFF_32 1
static void off_halves(int64_t off, long *a, long *b)
{
	uint64_t o = (uint64_t)off;
	long lo = (long)(uint32_t)o, hi = (long)(uint32_t)(o >> 32);
# if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	*a = hi, *b = lo;
# else
	*a = lo, *b = hi;
# endif
}
# if defined(__arm__) || defined(__mips__) || defined(__powerpc__)
#  define PAD 0L,
# else
#  define PAD
# endif
#endif

/* The 64-bit offsets' calls, raw: what the wrappers use where off_t has
 * 32 bits and the C library's *64 name is missing (or not looked up
 * yet), so an offset past 2 GiB is never cut to 32 bits. */
static ssize_t raw_pwrite64(int fd, const void *b, size_t n, int64_t off)
{
#ifdef OFF_32
	long x, y;
	off_halves(off, &x, &y);
	return syscall(SYS_pwrite64, fd, b, n, PAD x, y);
#else
	return syscall(SYS_pwrite64, fd, b, n, off);
#endif
}

static ssize_t raw_pwritev64(int fd, const struct iovec *iov, int cnt,
                             int64_t off)
{
	/* the kernel takes the offset as two longs, low then high */
	return syscall(SYS_pwritev, fd, iov, cnt, (long)off,
	               (long)((uint64_t)off >> 31 >> 1));
}

static int64_t raw_lseek64(int fd, int64_t off, int whence)
{
#ifdef OFF_32
	int64_t r;
	if (syscall(SYS__llseek, fd, (long)((uint64_t)off >> 32),
	            (long)(uint32_t)off, &r, whence) < 0)
		return -1;
	return r;
#else
	return syscall(SYS_lseek, fd, off, whence);
#endif
}

static int raw_ftruncate64(int fd, int64_t len)
{
#ifdef OFF_32
	long x, y;
	off_halves(len, &x, &y);
	return (int)syscall(SYS_ftruncate64, fd, PAD x, y);
#else
	return (int)syscall(SYS_ftruncate, fd, len);
#endif
}

static ssize_t raw_sendfile64(int out, int in, int64_t *off, size_t n)
{
#ifdef OFF_32
	return syscall(SYS_sendfile64, out, in, off, n);
#else
	return syscall(SYS_sendfile, out, in, off, n);
#endif
}

static ssize_t raw_pwrite(int fd, const void *b, size_t n, off_t off)
{
	return raw_pwrite64(fd, b, n, off);
}

static ssize_t raw_pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
	return raw_pwritev64(fd, iov, cnt, off);
}

static off_t raw_lseek(int fd, off_t off, int whence)
{
	return (off_t)syscall(SYS_lseek, fd, off, whence);
}

static int raw_close(int fd)
{
	return (int)syscall(SYS_close, fd);
}

static int raw_dup(int fd)
{
	return (int)syscall(SYS_dup, fd);
}

static int raw_dup3(int oldfd, int newfd, int flags)
{
	return (int)syscall(SYS_dup3, oldfd, newfd, flags);
}

static int raw_dup2(int oldfd, int newfd)
{
	/* dup3 refuses equal fds; dup2 returns the fd if it is open */
	if (oldfd == newfd)
		return syscall(SYS_fcntl, oldfd, F_GETFD) < 0 ? -1 : newfd;
	return raw_dup3(oldfd, newfd, 0);
}

static int raw_fcntl(int fd, int cmd, ...)
{
	va_list ap;
	unsigned long arg;

	va_start(ap, cmd);
	arg = va_arg(ap, unsigned long);
	va_end(ap);
	return (int)syscall(SYS_fcntl, fd, cmd, arg);
}

static int raw_ftruncate(int fd, off_t len)
{
	return (int)syscall(SYS_ftruncate, fd, len);
}

static ssize_t raw_sendfile(int out, int in, off_t *off, size_t n)
{
	return syscall(SYS_sendfile, out, in, off, n);
}

static ssize_t raw_copy_file_range(int in, int64_t *in_off, int out,
                                   int64_t *out_off, size_t n, unsigned flags)
{
#ifdef SYS_copy_file_range
	return syscall(SYS_copy_file_range, in, in_off, out, out_off, n, flags);
#else
	(void)in; (void)in_off; (void)out; (void)out_off; (void)n; (void)flags;
	errno = ENOSYS;
	return -1;
#endif
}

/* The raw system calls, the fallback of each base name; the *64 and
 * fortified names have none (NULL): their callers fall back to the base
 * name. */
const struct libc libc_raw = {
	.open = raw_open, .openat = raw_openat, .creat = raw_creat,
	.write = raw_write, .writev = raw_writev, .pwrite = raw_pwrite,
	.pwritev = raw_pwritev, .lseek = raw_lseek, .close = raw_close,
	.dup = raw_dup, .dup2 = raw_dup2, .dup3 = raw_dup3, .fcntl = raw_fcntl,
	.ftruncate = raw_ftruncate, .sendfile = raw_sendfile,
	.copy_file_range = raw_copy_file_range,
};

/* Each field: NULL until looked up, then the function, or libc_missing
 * (this libc has no such name). Each is looked up alone, the first time
 * a call needs it: a process that never calls a wrapped function (or
 * never passes one through) asks dlsym nothing. */
struct libc libc_found;
const char libc_missing[1];

struct hst_io hst;

/* this thread is inside dlsym: a wrapped call it makes (an allocator
 * below the shim that writes) gets the raw system call. (volatile: the C
 * library declares dlsym a leaf, one that never calls back in here, and
 * the compiler would drop the store before it) */
static __thread volatile int looking
	__attribute__((tls_model("initial-exec")));

void *libc_lookup(void **slot, const char *name, void *raw)
{
	void *p;

	if (looking)
		return raw;
	looking = 1;
	p = dlsym(RTLD_NEXT, name);
	looking = 0;
	/* (a base name dlsym cannot find: the raw call, every time) */
	if (!p)
		p = raw ? raw : (void *)libc_missing;
	/* threads that look up the same name at once store the same value */
	__atomic_store_n(slot, p, __ATOMIC_RELEASE);
	return p == libc_missing ? NULL : p;
}

int libc_open64(const char *path, int flags, int mode)
{
	return REAL(open64) ? REAL(open64)(path, flags, mode)
	                   : REAL(open)(path, flags | O_LARGEFILE, mode);
}

int libc_openat64(int dirfd, const char *path, int flags, int mode)
{
	return REAL(openat64) ? REAL(openat64)(dirfd, path, flags, mode)
	                     : REAL(openat)(dirfd, path, flags | O_LARGEFILE, mode);
}

int libc_open_2(const char *path, int flags, int large)
{
	if (large && REAL_AS(open64_2, "__open64_2"))
		return REAL_AS(open64_2, "__open64_2")(path, flags);
	if (!large && REAL_AS(open_2, "__open_2"))
		return REAL_AS(open_2, "__open_2")(path, flags);
	return REAL(open)(path, flags | (large ? O_LARGEFILE : 0));
}

int libc_openat_2(int dirfd, const char *path, int flags, int large)
{
	if (large && REAL_AS(openat64_2, "__openat64_2"))
		return REAL_AS(openat64_2, "__openat64_2")(dirfd, path, flags);
	if (!large && REAL_AS(openat_2, "__openat_2"))
		return REAL_AS(openat_2, "__openat_2")(dirfd, path, flags);
	return REAL(openat)(dirfd, path, flags | (large ? O_LARGEFILE : 0));
}

int libc_creat64(const char *path, mode_t mode)
{
	return REAL(creat64) ? REAL(creat64)(path, mode) : REAL(creat)(path, mode);
}

/* (a *64 name missing where off_t has 32 bits: the raw 64-bit call, not
 * the base name, which would cut the offset) */
ssize_t libc_pwritev(int fd, const struct iovec *iov, int cnt, int64_t off)
{
	if (REAL(pwritev64))
		return REAL(pwritev64)(fd, iov, cnt, off);
	if (sizeof(off_t) < sizeof off)
		return raw_pwritev64(fd, iov, cnt, off);
	return REAL(pwritev)(fd, iov, cnt, (off_t)off);
}

int64_t libc_lseek(int fd, int64_t off, int whence)
{
	if (REAL(lseek64))
		return REAL(lseek64)(fd, off, whence);
	if (sizeof(off_t) < sizeof off)
		return raw_lseek64(fd, off, whence);
	return (int64_t)REAL(lseek)(fd, (off_t)off, whence);
}

ssize_t libc_sendfile(int out, int in, int64_t *off, size_t n)
{
	if (REAL(sendfile64))
		return REAL(sendfile64)(out, in, off, n);
	if (sizeof(off_t) < sizeof *off)
		return raw_sendfile64(out, in, off, n);
	return REAL(sendfile)(out, in, (off_t *)off, n);
}

ssize_t libc_write(int fd, const void *buf, size_t len)
{
	return REAL(write)(fd, buf, len);
}

ssize_t libc_pwrite(int fd, const void *buf, size_t len, int64_t off)
{
	if (REAL(pwrite64))
		return REAL(pwrite64)(fd, buf, len, off);
	if (sizeof(off_t) < sizeof off)
		return raw_pwrite64(fd, buf, len, off);
	return REAL(pwrite)(fd, buf, len, (off_t)off);
}

/* (pread is not wrapped: libc's own, found as any other program finds
 * it) */
ssize_t libc_pread(int fd, void *buf, size_t len, int64_t off)
{
#ifdef __GLIBC__
	return pread64(fd, buf, len, off);
#else
	return pread(fd, buf, len, (off_t)off);  /* musl: off_t is 64 bits */
#endif
}

int libc_ftruncate(int fd, int64_t len)
{
	if (REAL(ftruncate64))
		return REAL(ftruncate64)(fd, len);
	if (sizeof(off_t) < sizeof len)
		return raw_ftruncate64(fd, len);
	return REAL(ftruncate)(fd, (off_t)len);
}

int libc_fcntl(int fd, int cmd, unsigned long arg)
{
	return REAL(fcntl)(fd, cmd, arg);
}

int libc_fcntl64(int fd, int cmd, unsigned long arg)
{
	return REAL(fcntl64) ? REAL(fcntl64)(fd, cmd, arg)
	                    : REAL(fcntl)(fd, cmd, arg);
}

int libc_open_log(const char *path)
{
	return REAL(open)(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

int libc_close(int fd)
{
	return REAL(close)(fd);
}

int io_create(const char *path, int mode)
{
	return hst.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	                O_CLOEXEC, mode);
}

int io_create_free(char *path, size_t size, int mode)
{
	size_t len = strnlen(path, size);
	int n, fd = io_create(path, mode);

	for (n = 1; fd < 0 && errno == EEXIST && n <= 999; n++) {
		if ((size_t)snprintf(path + len, size - len, ".%d", n) >=
		    size - len) {
			errno = ENAMETOOLONG;
			break;
		}
		fd = io_create(path, mode);
	}
	if (fd < 0)
		path[len] = 0;
	return fd;
}

int io_is_file(const char *path, dev_t dev, ino_t ino)
{
	struct stat sb;
	int saved = errno, r;

	r = ino && !lstat(path, &sb) && sb.st_dev == dev && sb.st_ino == ino;
	errno = saved;
	return r;
}

void io_unlink_made(const char *path, int fd)
{
	struct stat sb;
	int saved = errno;

	if (!fstat(fd, &sb) && io_is_file(path, sb.st_dev, sb.st_ino) &&
	    unlink(path)) {
		/* it stays: the caller's line says it is not whole */
	}
	errno = saved;
}

/* A file's writer: the real pwrite (the names map; the bytes held while
 * vetting). */
ssize_t plain_pwrite(void *user, int fd, const void *buf, size_t len,
                     int64_t off)
{
	(void)user;
	return hst.pwrite(fd, buf, len, off);
}
