/*
 * libhprofstrip.so: strips heap dumps while the runtime writes them.
 *
 *   LD_PRELOAD=libhprofstrip.so java -XX:+HeapDumpOnOutOfMemoryError ...
 *
 * The exported wrappers, each a few lines: pass the call through, or let
 * dump tracking (hprofstrip.h) handle it, or make the real call and tell dump
 * tracking what came of it. Which files are dumps: policy.h. The real
 * functions: libc.h. Every fd that is not a dump sees exactly the calls
 * it would see without the shim.
 */
#undef _FORTIFY_SOURCE
#undef _FILE_OFFSET_BITS  /* the names with and without 64: both */
#include "fdtable.h"
#include "libc.h"
#include "hprofstrip.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>

#define EXPORT __attribute__((visibility("default")))

/* Whether a call goes straight to the real function: in a process that
 * asked the shim to stand aside (hprofstrip and hprofrestore themselves,
 * whose output must never be stripped again), and for a call made while
 * this thread is already inside the shim. The latter is a library below
 * the shim in the preload list whose pwrite64 calls pwrite, or whose
 * writev calls write: the nested call must not take a session's lock
 * again, which would hang the process. */
static int standaside;
static __thread int busy __attribute__((tls_model("initial-exec")));

static int setup(void);

/* (also while dump tracking is being set up in this very thread: a
 * signal handler's call) */
static int passthrough(void)
{
	return !setup() || busy || __atomic_load_n(&standaside, __ATOMIC_RELAXED);
}

/* The body of every wrapper: the real call when passing through, else the
 * shim's version with this thread marked as inside. */
#define GUARDED(type, direct, shimmed)            \
	do {                                      \
		type r_;                          \
		if (passthrough())                \
			return direct;            \
		busy = 1;                         \
		r_ = shimmed;                     \
		busy = 0;                         \
		return r_;                        \
	} while (0)

/* The shim's own real call that writes to a dump (its output, through
 * hst): fd + 1 (0: none) and the bytes. A library below the shim that
 * makes that call with another one (its pwrite64 calling pwrite) comes
 * back into a wrapper with these very bytes. */
static __thread struct own {
	int fd1;
	const void *buf;
	size_t len;
} own __attribute__((tls_model("initial-exec")));

/* A call that writes to fd (buf: its first bytes, or NULL), made while
 * this thread is inside the shim: 1 (errno EDEADLK) if it is refused.
 * The shim's own write coming back from below goes straight on. Any
 * other write to a dump, such as a signal handler's that interrupted
 * this thread inside the shim (maybe holding that dump's lock), can be
 * neither fed to the dump (it would wait for this very thread) nor
 * written as it comes (unstripped, unredacted bytes at the wrong
 * offset): it fails and writes nothing. Writes to other files go on. */
static int nested(int fd, const void *buf)
{
	uintptr_t b = (uintptr_t)buf, o = (uintptr_t)own.buf;

	if (!busy || !table_session(fd))
		return 0;
	if (own.fd1 == fd + 1 && (buf ? b >= o && b - o < own.len : !own.buf))
		return 0;
	errno = EDEADLK;
	return 1;
}

/* (a vector's first bytes are looked at only when the shim's own write
 * to fd is under way: a library below it that made it a vector) */
static int nested_v(int fd, const struct iovec *iov, int cnt)
{
	if (!busy)
		return 0;
	return nested(fd, own.fd1 == fd + 1 && own.buf && iov && cnt > 0
	                  ? iov[0].iov_base : NULL);
}

/* The shim's own writes to its dumps (hst.pwrite, hst.ftruncate). */
static ssize_t own_pwrite(int fd, const void *buf, size_t len, int64_t off)
{
	struct own was = own;
	ssize_t r;

	own.fd1 = fd + 1;
	own.buf = buf;
	own.len = len;
	r = libc_pwrite(fd, buf, len, off);
	own = was;
	return r;
}

static int own_ftruncate(int fd, int64_t len)
{
	struct own was = own;
	int r;

	own.fd1 = fd + 1;
	own.buf = NULL;
	r = libc_ftruncate(fd, len);
	own = was;
	return r;
}

/* GUARDED for a call that writes to fd: nested() refuses it. */
#define GUARDED_W(type, check, direct, shimmed) \
	GUARDED(type, (check) ? -1 : (direct), shimmed)

/* Called by the project's own tools before main (strip/cli/standaside.c). */
EXPORT void hprofstrip_preload_standaside(void)
{
	__atomic_store_n(&standaside, 1, __ATOMIC_RELAXED);
}

/* ---- writes ------------------------------------------------------------ */

static ssize_t do_write(int fd, const void *buf, size_t len)
{
	ssize_t r;

	return hst_write(fd, buf, len, -1, &r) ? r : REAL(write)(fd, buf, len);
}

static ssize_t do_pwrite(int fd, const void *buf, size_t len, int64_t off)
{
	ssize_t r;

	if (off >= 0 && hst_write(fd, buf, len, off, &r))
		return r;
	return libc_pwrite(fd, buf, len, off);
}

static ssize_t do_writev(int fd, const struct iovec *iov, int cnt)
{
	ssize_t r;

	return hst_writev(fd, iov, cnt, -1, &r) ? r : REAL(writev)(fd, iov, cnt);
}

static ssize_t do_pwritev(int fd, const struct iovec *iov, int cnt,
                          int64_t off)
{
	ssize_t r;

	if (off >= 0 && hst_writev(fd, iov, cnt, off, &r))
		return r;
	return libc_pwritev(fd, iov, cnt, off);
}

/* A write that is none of dump tracking's goes straight on: a few loads
 * (fd_idle, fdstate.h), no lock, no call, nothing else. */
#define IDLE(fd, buf, len, direct)              \
	do {                                    \
		if (fd_idle(fd, buf, len))      \
			return direct;          \
	} while (0)

EXPORT ssize_t write(int fd, const void *buf, size_t len)
{
	IDLE(fd, buf, len, REAL(write)(fd, buf, len));
	GUARDED_W(ssize_t, nested(fd, buf), REAL(write)(fd, buf, len),
	          do_write(fd, buf, len));
}

EXPORT ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	IDLE(fd, buf, len, REAL(pwrite)(fd, buf, len, off));
	GUARDED_W(ssize_t, nested(fd, buf), REAL(pwrite)(fd, buf, len, off),
	          do_pwrite(fd, buf, len, (int64_t)off));
}

EXPORT ssize_t pwrite64(int fd, const void *buf, size_t len, int64_t off)
{
	IDLE(fd, buf, len, libc_pwrite(fd, buf, len, off));
	GUARDED_W(ssize_t, nested(fd, buf), libc_pwrite(fd, buf, len, off),
	          do_pwrite(fd, buf, len, off));
}

EXPORT ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	GUARDED_W(ssize_t, nested_v(fd, iov, cnt), REAL(writev)(fd, iov, cnt),
	          do_writev(fd, iov, cnt));
}

EXPORT ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
	GUARDED_W(ssize_t, nested_v(fd, iov, cnt), REAL(pwritev)(fd, iov, cnt, off),
	          do_pwritev(fd, iov, cnt, (int64_t)off));
}

EXPORT ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, int64_t off)
{
	GUARDED_W(ssize_t, nested_v(fd, iov, cnt), libc_pwritev(fd, iov, cnt, off),
	          do_pwritev(fd, iov, cnt, off));
}

/* ---- offsets and sizes -------------------------------------------------- */

static int64_t do_lseek(int fd, int64_t off, int whence)
{
	int64_t r;

	return hst_lseek(fd, off, whence, &r) ? r : libc_lseek(fd, off, whence);
}

/* lseek's off_t may be 32 bits: a position past it is EOVERFLOW */
/* The largest off_t: 2^31 - 1 where it is 32 bits (the kernel's
 * MAX_NON_LFS for the calls without 64 in their names) */
#define OFF_T_MAX ((int64_t)((~(uint64_t)0 >> 1) >> (64 - 8 * sizeof(off_t))))

static off_t do_lseek32(int fd, off_t off, int whence)
{
	int64_t r = do_lseek(fd, (int64_t)off, whence);

	if (r > OFF_T_MAX) {
		errno = EOVERFLOW;
		return -1;
	}
	return (off_t)r;
}

static int do_ftruncate(int fd, int64_t len)
{
	int r;

	return hst_ftruncate(fd, len, &r) ? r : libc_ftruncate(fd, len);
}

EXPORT off_t lseek(int fd, off_t off, int whence)
{
	GUARDED(off_t, REAL(lseek)(fd, off, whence), do_lseek32(fd, off, whence));
}

EXPORT int64_t lseek64(int fd, int64_t off, int whence)
{
	GUARDED(int64_t, libc_lseek(fd, off, whence), do_lseek(fd, off, whence));
}

/* ftruncate with a plain off_t: a file that is no dump gets that call
 * (on a 32-bit ABI, not ftruncate64) */
static int do_ftruncate32(int fd, off_t len)
{
	int r;

	return hst_ftruncate(fd, (int64_t)len, &r) ? r
	                                           : REAL(ftruncate)(fd, len);
}

EXPORT int ftruncate(int fd, off_t len)
{
	GUARDED_W(int, nested(fd, NULL), REAL(ftruncate)(fd, len),
	          do_ftruncate32(fd, len));
}

EXPORT int ftruncate64(int fd, int64_t len)
{
	GUARDED_W(int, nested(fd, NULL), libc_ftruncate(fd, len),
	          do_ftruncate(fd, len));
}

/* ---- copies into a file ------------------------------------------------- */

static ssize_t do_sendfile(int out, int in, int64_t *off, size_t n)
{
	ssize_t r;

	return hst_copy(out, in, off, NULL, n, &r) ? r
	                                           : libc_sendfile(out, in, off, n);
}

/* sendfile with a plain off_t (32 bits on some ABIs): as the kernel's, it
 * reads no byte past OFF_T_MAX, and fails with EOVERFLOW at it */
static ssize_t do_sendfile32(int out, int in, off_t *off, size_t n)
{
	int64_t o = off ? (int64_t)*off : 0;
	ssize_t r;

	if (off && o >= OFF_T_MAX && n) {
		errno = EOVERFLOW;
		return -1;
	}
	if (off && (uint64_t)n > (uint64_t)(OFF_T_MAX - o))
		n = (size_t)(OFF_T_MAX - o);
	if (!hst_copy(out, in, off ? &o : NULL, NULL, n, &r))
		return REAL(sendfile)(out, in, off, n);
	if (off)
		*off = (off_t)o;
	return r;
}

/* (its offsets are 64 bits on every ABI: the C library's loff_t) */
static ssize_t do_copy_file_range(int in, int64_t *in_off, int out,
                                  int64_t *out_off, size_t n, unsigned flags)
{
	ssize_t r;

	if (!hst_copy(out, in, in_off, out_off, n, &r))
		return REAL(copy_file_range)(in, in_off, out, out_off, n, flags);
	return r;
}

EXPORT ssize_t sendfile(int out, int in, off_t *off, size_t n)
{
	GUARDED_W(ssize_t, nested(out, NULL), REAL(sendfile)(out, in, off, n),
	          do_sendfile32(out, in, off, n));
}

EXPORT ssize_t sendfile64(int out, int in, int64_t *off, size_t n)
{
	GUARDED_W(ssize_t, nested(out, NULL), libc_sendfile(out, in, off, n),
	          do_sendfile(out, in, off, n));
}

EXPORT ssize_t copy_file_range(int in, int64_t *in_off, int out,
                               int64_t *out_off, size_t n, unsigned flags)
{
	GUARDED_W(ssize_t, nested(out, NULL),
	          REAL(copy_file_range)(in, in_off, out, out_off, n, flags),
	          do_copy_file_range(in, in_off, out, out_off, n, flags));
}

/* ---- fd lifetime -------------------------------------------------------- */

static int do_close(int fd)
{
	int e = hst_close(fd), r = REAL(close)(fd);

	if (r == 0 && e) {
		/* the fd is closed, but the dump's last bytes did not reach
		 * the disk: say so, as a network file system would */
		errno = e;
		r = -1;
	}
	return r;
}

/* A dup gave newfd (or failed): tell dump tracking. Returns newfd. */
static int after_dup(int oldfd, int newfd)
{
	if (newfd >= 0)
		hst_dup(oldfd, newfd);
	return newfd;
}

static int do_dup3(int oldfd, int newfd, int flags, int three)
{
	hst_replace(oldfd, newfd);
	return after_dup(oldfd, three ? REAL(dup3)(oldfd, newfd, flags)
	                              : REAL(dup2)(oldfd, newfd));
}

static int do_fcntl(int (*fn)(int, int, unsigned long), int fd, int cmd,
                    unsigned long arg)
{
	int r = fn(fd, cmd, arg);

	return cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC ? after_dup(fd, r) : r;
}

EXPORT int close(int fd)
{
	if (fd_idle_close(fd))
		return REAL(close)(fd);
	GUARDED(int, REAL(close)(fd), do_close(fd));
}

EXPORT int dup(int fd)
{
	GUARDED(int, REAL(dup)(fd), after_dup(fd, REAL(dup)(fd)));
}

EXPORT int dup2(int oldfd, int newfd)
{
	GUARDED(int, REAL(dup2)(oldfd, newfd), do_dup3(oldfd, newfd, 0, 0));
}

EXPORT int dup3(int oldfd, int newfd, int flags)
{
	GUARDED(int, REAL(dup3)(oldfd, newfd, flags),
	        do_dup3(oldfd, newfd, flags, 1));
}

#define VA_ARG(last, type, arg)                     \
	do {                                        \
		va_list ap_;                        \
		va_start(ap_, last);                \
		arg = va_arg(ap_, type);            \
		va_end(ap_);                        \
	} while (0)

EXPORT int fcntl(int fd, int cmd, ...)
{
	unsigned long arg;

	VA_ARG(cmd, unsigned long, arg);
	GUARDED(int, REAL(fcntl)(fd, cmd, arg), do_fcntl(libc_fcntl, fd, cmd, arg));
}

EXPORT int fcntl64(int fd, int cmd, ...)
{
	unsigned long arg;

	VA_ARG(cmd, unsigned long, arg);
	GUARDED(int, libc_fcntl64(fd, cmd, arg),
	        do_fcntl(libc_fcntl64, fd, cmd, arg));
}

/* ---- opens -------------------------------------------------------------- */

/* The mode argument exists only with O_CREAT or O_TMPFILE (musl reads it
 * so; reading it otherwise reads garbage). */
static int needs_mode(int flags)
{
#ifdef O_TMPFILE
	if ((flags & O_TMPFILE) == O_TMPFILE)
		return 1;
#endif
	return (flags & O_CREAT) != 0;
}

#define VA_MODE(flags, mode)                          \
	do {                                          \
		if (needs_mode(flags))                \
			VA_ARG(flags, int, mode);     \
	} while (0)

/* An open gave fd (or failed): tell dump tracking. Returns fd. */
static int opened(int dirfd, int fd, const char *path, int flags)
{
	hst_opened(fd, dirfd, path, flags);
	return fd;
}

#define CREAT_FLAGS (O_WRONLY | O_CREAT | O_TRUNC)

EXPORT int open(const char *path, int flags, ...)
{
	int mode = 0;

	VA_MODE(flags, mode);
	GUARDED(int, REAL(open)(path, flags, mode),
	        opened(AT_FDCWD, REAL(open)(path, flags, mode), path, flags));
}

EXPORT int open64(const char *path, int flags, ...)
{
	int mode = 0;

	VA_MODE(flags, mode);
	GUARDED(int, libc_open64(path, flags, mode),
	        opened(AT_FDCWD, libc_open64(path, flags, mode), path, flags));
}

EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	int mode = 0;

	VA_MODE(flags, mode);
	GUARDED(int, REAL(openat)(dirfd, path, flags, mode),
	        opened(dirfd, REAL(openat)(dirfd, path, flags, mode), path, flags));
}

EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	int mode = 0;

	VA_MODE(flags, mode);
	GUARDED(int, libc_openat64(dirfd, path, flags, mode),
	        opened(dirfd, libc_openat64(dirfd, path, flags, mode), path,
	               flags));
}

EXPORT int __open_2(const char *path, int flags)
{
	GUARDED(int, libc_open_2(path, flags, 0),
	        opened(AT_FDCWD, libc_open_2(path, flags, 0), path, flags));
}

EXPORT int __open64_2(const char *path, int flags)
{
	GUARDED(int, libc_open_2(path, flags, 1),
	        opened(AT_FDCWD, libc_open_2(path, flags, 1), path, flags));
}

EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	GUARDED(int, libc_openat_2(dirfd, path, flags, 0),
	        opened(dirfd, libc_openat_2(dirfd, path, flags, 0), path, flags));
}

EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	GUARDED(int, libc_openat_2(dirfd, path, flags, 1),
	        opened(dirfd, libc_openat_2(dirfd, path, flags, 1), path, flags));
}

EXPORT int creat(const char *path, mode_t mode)
{
	GUARDED(int, REAL(creat)(path, mode),
	        opened(AT_FDCWD, REAL(creat)(path, mode), path, CREAT_FLAGS));
}

EXPORT int creat64(const char *path, mode_t mode)
{
	GUARDED(int, libc_creat64(path, mode),
	        opened(AT_FDCWD, libc_creat64(path, mode), path, CREAT_FLAGS));
}

/* ---- start-up ----------------------------------------------------------- */

/* this thread runs setup_once */
static __thread int setting_up_here __attribute__((tls_model("initial-exec")));

static void setup_once(void)
{
	static const struct hst_io io = {
		own_pwrite, libc_pread, read, libc_lseek, own_ftruncate,
		libc_fcntl, libc_open64, libc_close,
	};

	setting_up_here = 1;
	hst_setup(&io);
	setting_up_here = 0;
}

/* Dump tracking set up once, from the constructor or from the first
 * wrapper called before it (by another library's constructor); a thread
 * that comes meanwhile waits for it (it takes no lock and calls nothing
 * wrapped). Returns 0 only to a call from inside the setup in this same
 * thread (a signal handler), which must not wait for itself. The real
 * functions are not looked up here: each is, the first time a call needs
 * it (libc.h), so a process that writes nothing asks dlsym nothing. */
static int setup(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	static int done;

	if (__atomic_load_n(&done, __ATOMIC_ACQUIRE))
		return 1;
	if (setting_up_here)
		return 0;
	pthread_once(&once, setup_once);
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	return 1;
}

/* The process exits (exit, a return from main) with dumps still open:
 * each gets the histogram of the bytes that came (fdtable.c's
 * table_exit). Not when the exit comes from inside the shim (a signal
 * handler's, in this thread), nor in a tool that stands aside. */
__attribute__((destructor)) static void shim_exit(void)
{
	int saved = errno;

	if (!busy && !__atomic_load_n(&standaside, __ATOMIC_RELAXED) &&
	    setup()) {
		busy = 1;
		table_exit();
		busy = 0;
	}
	errno = saved;
}

/* glibc's pthread_atfork is a stub linked into the library, at the far
 * end of its code: calling it at start would make a page there resident
 * in every process. The stub's own call, made here, keeps the start's
 * code in the pages around the wrappers. */
#ifdef __GLIBC__
extern void *__dso_handle;
int __register_atfork(void (*prepare)(void), void (*parent)(void),
                      void (*child)(void), void *dso);
#define ATFORK(p, a, c) __register_atfork(p, a, c, __dso_handle)
#else
#define ATFORK(p, a, c) pthread_atfork(p, a, c)
#endif

/* The constructor does what a process that never dumps must have done
 * before its first fork or write: the fork handlers (here, once, not in
 * setup: a thread in fork() holds the handlers' lock while they run),
 * and the start time a dump's stamp is set against (setup). Nothing else:
 * no file, no dlsym, no memory. */
__attribute__((constructor)) static void shim_init(void)
{
	int saved = errno;

	setup();
	ATFORK(hst_fork_prepare, hst_fork_parent, hst_fork_child);
	errno = saved;
}
