/*
 * libhprofstrip.so: strips heap dumps while the runtime writes them.
 *
 *   LD_PRELOAD=libhprofstrip.so java -XX:+HeapDumpOnOutOfMemoryError ...
 *
 * Files whose path matches HPROFSTRIP_PATTERN (default *.hprof), JDK 22+
 * segment files <match>.p<N>, and (HPROFSTRIP_SNIFF, on by default) any
 * regular file whose first write at offset 0 starts with "JAVA PROFILE
 * 1.0." are tracked. The bytes the runtime writes to a tracked file go
 * through the strip engine, and only the stripped dump reaches the disk.
 * The runtime sees the return values, errno and offsets it would see
 * without the shim: its offsets are virtual (positions in the dump it
 * thinks it writes), and a seek-back-and-write of a heap record's length
 * (JDK 8) becomes a patch of the stripped record's length.
 *
 * Every other fd sees exactly the calls it would see without the shim.
 *
 * A pattern matches the path as the program passed it, its basename, and,
 * for a relative path when a pattern contains '/', the absolute path. A
 * file opened and closed without a write is left as it was. A forked child
 * forgets its parent's dumps (its close must not end them; its own dumps
 * are tracked afresh); a vfork child, which shares our memory, changes
 * nothing. An fd number handed out again (open, dup) after a close the
 * shim never saw (close_range, a raw syscall) is a new file.
 *
 * Memory: a fixed pool of trackers in .bss (pages are touched only when a
 * dump is written), no allocation at all. Output is written with pwrite at
 * the tracked file's own output offsets, flushed before each intercepted
 * call returns, so a crash loses nothing the runtime thinks it wrote.
 */
#undef _FORTIFY_SOURCE
#include "../strip/hprof.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

/* musl <= 1.2.3 maps the *64 names to the plain ones with macros. */
#undef open64
#undef openat64
#undef creat64
#undef lseek64
#undef pwrite64
#undef pwritev64
#undef ftruncate64
#undef sendfile64
#undef fcntl64

#define EXPORT __attribute__((visibility("default")))

#define MAX_TRACKERS 16
#define MAX_FD 65536
#define OUT_BUF (64u * 1024)
#define IN_BUF (64u * 1024)
#define MAGIC "JAVA PROFILE 1.0."
#define MAGIC_LEN 17

/* ---- real functions --------------------------------------------------- */

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);
typedef int (*open2_fn)(const char *, int);
typedef int (*openat2_fn)(int, const char *, int);
typedef int (*creat_fn)(const char *, mode_t);
typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*writev_fn)(int, const struct iovec *, int);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef ssize_t (*pwrite64_fn)(int, const void *, size_t, int64_t);
typedef ssize_t (*pwritev_fn)(int, const struct iovec *, int, off_t);
typedef ssize_t (*pwritev64_fn)(int, const struct iovec *, int, int64_t);
typedef off_t (*lseek_fn)(int, off_t, int);
typedef int64_t (*lseek64_fn)(int, int64_t, int);
typedef int (*close_fn)(int);
typedef int (*dup_fn)(int);
typedef int (*dup2_fn)(int, int);
typedef int (*dup3_fn)(int, int, int);
typedef int (*fcntl_fn)(int, int, ...);
typedef int (*ftruncate_fn)(int, off_t);
typedef int (*ftruncate64_fn)(int, int64_t);
typedef ssize_t (*sendfile_fn)(int, int, off_t *, size_t);
typedef ssize_t (*sendfile64_fn)(int, int, int64_t *, size_t);
typedef ssize_t (*cfr_fn)(int, off_t *, int, off_t *, size_t, unsigned);

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

static ssize_t raw_pwrite(int fd, const void *b, size_t n, off_t off)
{
	return syscall(SYS_pwrite64, fd, b, n, off);
}

static ssize_t raw_pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
	/* the kernel takes the offset as two longs, low then high */
	return syscall(SYS_pwritev, fd, iov, cnt, (long)off,
	               (long)((uint64_t)off >> 31 >> 1));
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

static ssize_t raw_copy_file_range(int in, off_t *in_off, int out,
                                   off_t *out_off, size_t n, unsigned flags)
{
#ifdef SYS_copy_file_range
	return syscall(SYS_copy_file_range, in, in_off, out, out_off, n, flags);
#else
	(void)in; (void)in_off; (void)out; (void)out_off; (void)n; (void)flags;
	errno = ENOSYS;
	return -1;
#endif
}

static struct {
	open_fn open, open64;
	openat_fn openat, openat64;
	open2_fn open_2, open64_2;
	openat2_fn openat_2, openat64_2;
	creat_fn creat, creat64;
	write_fn write;
	writev_fn writev;
	pwrite_fn pwrite;
	pwrite64_fn pwrite64;
	pwritev_fn pwritev;
	pwritev64_fn pwritev64;
	lseek_fn lseek;
	lseek64_fn lseek64;
	close_fn close;
	dup_fn dup;
	dup2_fn dup2;
	dup3_fn dup3;
	fcntl_fn fcntl, fcntl64;
	ftruncate_fn ftruncate;
	ftruncate64_fn ftruncate64;
	sendfile_fn sendfile;
	sendfile64_fn sendfile64;
	cfr_fn copy_file_range;
} real = {
	.open = raw_open, .openat = raw_openat, .creat = raw_creat,
	.write = raw_write, .writev = raw_writev, .pwrite = raw_pwrite,
	.pwritev = raw_pwritev, .lseek = raw_lseek, .close = raw_close,
	.dup = raw_dup, .dup2 = raw_dup2, .dup3 = raw_dup3, .fcntl = raw_fcntl,
	.ftruncate = raw_ftruncate, .sendfile = raw_sendfile,
	.copy_file_range = raw_copy_file_range,
};

static int resolved, resolving;

/* Replaces a pointer only with a symbol that exists. */
#define RESOLVE(field, name)                                        \
	do {                                                        \
		void *p_ = dlsym(RTLD_NEXT, name);                  \
		if (p_)                                             \
			real.field = (__typeof__(real.field))p_;    \
	} while (0)

static void resolve(void)
{
	if (__atomic_load_n(&resolved, __ATOMIC_ACQUIRE))
		return;
	/* re-entry from dlsym, or another thread while one resolves: the
	 * raw fallbacks serve meanwhile */
	if (__atomic_exchange_n(&resolving, 1, __ATOMIC_ACQ_REL))
		return;
	RESOLVE(open, "open");
	RESOLVE(openat, "openat");
	RESOLVE(creat, "creat");
	RESOLVE(write, "write");
	RESOLVE(writev, "writev");
	RESOLVE(pwrite, "pwrite");
	RESOLVE(pwritev, "pwritev");
	RESOLVE(lseek, "lseek");
	RESOLVE(close, "close");
	RESOLVE(dup, "dup");
	RESOLVE(dup2, "dup2");
	RESOLVE(dup3, "dup3");
	RESOLVE(fcntl, "fcntl");
	RESOLVE(ftruncate, "ftruncate");
	RESOLVE(sendfile, "sendfile");
	RESOLVE(copy_file_range, "copy_file_range");
	/* the *64 and fortified names, where this libc has them (musl >=
	 * 1.2.4 has no *64 symbols: its off_t is 64 bits, and its open
	 * always sets O_LARGEFILE) */
	RESOLVE(open64, "open64");
	RESOLVE(openat64, "openat64");
	RESOLVE(open_2, "__open_2");
	RESOLVE(open64_2, "__open64_2");
	RESOLVE(openat_2, "__openat_2");
	RESOLVE(openat64_2, "__openat64_2");
	RESOLVE(creat64, "creat64");
	RESOLVE(pwrite64, "pwrite64");
	RESOLVE(pwritev64, "pwritev64");
	RESOLVE(lseek64, "lseek64");
	RESOLVE(fcntl64, "fcntl64");
	RESOLVE(ftruncate64, "ftruncate64");
	RESOLVE(sendfile64, "sendfile64");
	__atomic_store_n(&resolved, 1, __ATOMIC_RELEASE);
}

/* Whether a call goes straight to the real function: in a process that
 * asked the shim to stand aside (hprofstrip and hprofrestore themselves,
 * whose output must never be stripped again), and for a call made while
 * this thread is already inside the shim. The latter is a library below
 * the shim in the preload list whose pwrite64 calls pwrite, or whose
 * writev calls write: the nested call must not take a tracker's lock
 * again, which would hang the process. */
static int standaside;
static __thread int busy __attribute__((tls_model("initial-exec")));

static int passthrough(void)
{
	resolve();
	return busy || __atomic_load_n(&standaside, __ATOMIC_RELAXED);
}

/* The body of every exported wrapper: the real call when passing through,
 * else the shim's own version with this thread marked as inside. */
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

/* Called by the project's own tools before main (strip/standaside.c). */
EXPORT void hprofstrip_preload_standaside(void)
{
	__atomic_store_n(&standaside, 1, __ATOMIC_RELAXED);
}

/* The real functions with one path each: a *64 or fortified name falls
 * back to the base name where this libc lacks it. */
static int real_open64(const char *path, int flags, int mode)
{
	return real.open64 ? real.open64(path, flags, mode)
	                   : real.open(path, flags | O_LARGEFILE, mode);
}

static int real_openat64(int dirfd, const char *path, int flags, int mode)
{
	return real.openat64 ? real.openat64(dirfd, path, flags, mode)
	                     : real.openat(dirfd, path, flags | O_LARGEFILE, mode);
}

static int real_open_2(const char *path, int flags, int large)
{
	if (large && real.open64_2)
		return real.open64_2(path, flags);
	if (!large && real.open_2)
		return real.open_2(path, flags);
	return real.open(path, flags | (large ? O_LARGEFILE : 0));
}

static int real_openat_2(int dirfd, const char *path, int flags, int large)
{
	if (large && real.openat64_2)
		return real.openat64_2(dirfd, path, flags);
	if (!large && real.openat_2)
		return real.openat_2(dirfd, path, flags);
	return real.openat(dirfd, path, flags | (large ? O_LARGEFILE : 0));
}

static int real_creat64(const char *path, mode_t mode)
{
	return real.creat64 ? real.creat64(path, mode) : real.creat(path, mode);
}

static ssize_t real_pwritev64(int fd, const struct iovec *iov, int cnt,
                              int64_t off)
{
	return real.pwritev64 ? real.pwritev64(fd, iov, cnt, off)
	                      : real.pwritev(fd, iov, cnt, (off_t)off);
}

static int64_t real_lseek64(int fd, int64_t off, int whence)
{
	return real.lseek64 ? real.lseek64(fd, off, whence)
	                    : (int64_t)real.lseek(fd, (off_t)off, whence);
}

static ssize_t real_sendfile64(int out, int in, int64_t *off, size_t n)
{
	return real.sendfile64 ? real.sendfile64(out, in, off, n)
	                       : real.sendfile(out, in, (off_t *)off, n);
}

static ssize_t sys_write(int fd, const void *b, size_t n)
{
	resolve();
	return real.write(fd, b, n);
}

static ssize_t sys_pwrite(int fd, const void *b, size_t n, int64_t off)
{
	resolve();
	if (real.pwrite64)
		return real.pwrite64(fd, b, n, off);
	return real.pwrite(fd, b, n, (off_t)off);
}

static int sys_fcntl(int fd, int cmd, unsigned long arg)
{
	resolve();
	return real.fcntl(fd, cmd, arg);
}

/* ---- configuration ---------------------------------------------------- */

static struct {
	int loaded;
	char pattern[1024];
	int sniff, quiet;
	int dirs;                /* a pattern names a directory ('/') */
	char log[PATH_MAX];
} cfg;

static void load_config(void)
{
	const char *s;

	if (__atomic_load_n(&cfg.loaded, __ATOMIC_ACQUIRE))
		return;
	s = getenv("HPROFSTRIP_PATTERN");
	snprintf(cfg.pattern, sizeof cfg.pattern, "%s", s && *s ? s : "*.hprof");
	s = getenv("HPROFSTRIP_SNIFF");
	cfg.sniff = !(s && !strcmp(s, "0"));
	cfg.dirs = strchr(cfg.pattern, '/') != NULL;
	s = getenv("HPROFSTRIP_QUIET");
	cfg.quiet = s && *s && strcmp(s, "0");
	s = getenv("HPROFSTRIP_LOG");
	snprintf(cfg.log, sizeof cfg.log, "%s", s ? s : "");
	__atomic_store_n(&cfg.loaded, 1, __ATOMIC_RELEASE);
}

/* One line to stderr or HPROFSTRIP_LOG, in a single write. */
static void say(const char *fmt, ...)
{
	char line[PATH_MAX + 256];
	int n, fd = 2, saved = errno;
	va_list ap;

	load_config();
	if (cfg.quiet)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof line - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		goto out;
	if ((size_t)n > sizeof line - 2)
		n = (int)sizeof line - 2;
	line[n++] = '\n';
	if (cfg.log[0]) {
		resolve();
		fd = real.open(cfg.log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
		               0644);
		if (fd < 0)
			fd = 2;
	}
	if (sys_write(fd, line, (size_t)n) < 0) {
		/* nowhere else to report it */
	}
	if (fd != 2)
		real.close(fd);
out:
	errno = saved;
}

/* ---- trackers --------------------------------------------------------- */

enum { T_FREE, T_MAIN, T_SEGMENT };

struct tracker {
	int kind;
	int refs;                /* fds that refer to it */
	pid_t pid;               /* the process that tracks it (vfork) */
	pthread_mutex_t lock;
	char path[256];          /* for messages (may be cut) */
	char base[PATH_MAX];     /* matched path (without .pN) */
	struct hs_state st;
	uint64_t voff;           /* the runtime's file position */
	uint64_t out_base;       /* file offset of output byte 0 */
	uint64_t flushed;        /* output bytes already in the file */
	int fd;                  /* the fd of the current call */
	int werr;                /* sticky errno of a failed real write */
	int warned;              /* a fallback was reported */
	int trunc_at_end;        /* file had old content: cut it at close */
	uint64_t ext;            /* ftruncate past the end: zeros up to here */
	uint64_t patch_off;      /* length patch being assembled */
	unsigned char patch[4];
	unsigned patch_mask;
	uint64_t seg_in, seg_out, seg_arrays; /* merged .pN segments */
	struct tracker *main;    /* segment: its main file, if open */
	size_t blen;
	unsigned char buf[OUT_BUF];
	unsigned char in[IN_BUF];  /* sendfile/copy_file_range staging */
};

static struct tracker pool[MAX_TRACKERS];
/* fd -> tracker index + 1, or FD_SEEN / FD_FRESH below; 0: not seen
 * opened (sniffed at any write at offset 0) */
static unsigned char fdmap[MAX_FD];
#define FD_SEEN 0xFF
/* FD_FRESH: opened in front of the shim for writing with O_CREAT or
 * O_TRUNC, not matched, not written yet (sniffed at its first write) */
#define FD_FRESH 0xFE
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static struct tracker *lookup(int fd)
{
	unsigned i;

	if (fd < 0 || fd >= MAX_FD)
		return NULL;
	i = __atomic_load_n(&fdmap[fd], __ATOMIC_ACQUIRE);
	return i && i <= MAX_TRACKERS ? &pool[i - 1] : NULL;
}

static unsigned char fd_state(int fd)
{
	return fd >= 0 && fd < MAX_FD
	           ? __atomic_load_n(&fdmap[fd], __ATOMIC_ACQUIRE) : 0;
}

static void set_fd_state(int fd, unsigned char v)
{
	if (fd >= 0 && fd < MAX_FD)
		__atomic_store_n(&fdmap[fd], v, __ATOMIC_RELEASE);
}

static void map_fd(int fd, struct tracker *t)
{
	__atomic_store_n(&fdmap[fd], (unsigned char)(t ? t - pool + 1 : 0),
	                 __ATOMIC_RELEASE);
}

/* Output sink: buffer, flushed with pwrite at the tracker's own offsets. */
static int flush_out(struct tracker *t)
{
	const unsigned char *p = t->buf;
	size_t n = t->blen;

	if (t->werr)
		return -1;
	while (n) {
		ssize_t k = sys_pwrite(t->fd, p, n, (int64_t)(t->out_base + t->flushed));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			t->werr = k < 0 ? errno : EIO;
			return -1;
		}
		p += k;
		n -= (size_t)k;
		t->flushed += (uint64_t)k;
	}
	t->blen = 0;
	return 0;
}

static int sink_write(void *user, const void *buf, size_t len)
{
	struct tracker *t = user;
	const unsigned char *p = buf;

	while (len) {
		size_t k = OUT_BUF - t->blen;
		if (k > len)
			k = len;
		memcpy(t->buf + t->blen, p, k);
		t->blen += k;
		p += k;
		len -= k;
		if (t->blen == OUT_BUF && flush_out(t))
			return -1;
	}
	return 0;
}

static int sink_patch(void *user, uint64_t off, const unsigned char be4[4])
{
	struct tracker *t = user;
	unsigned i;

	for (i = 0; i < 4; i++) {
		uint64_t at = off + i;
		if (at >= t->flushed) {
			t->buf[at - t->flushed] = be4[i];
		} else {
			ssize_t k;
			do
				k = sys_pwrite(t->fd, be4 + i, 1, t->out_base + at);
			while (k < 0 && errno == EINTR);
			if (k != 1) {
				t->werr = k < 0 ? errno : EIO;
				return -1;
			}
		}
	}
	return 0;
}

static void report_fallback(struct tracker *t)
{
	if (t->st.fallback && !t->warned) {
		t->warned = 1;
		if (t->st.fallback == HS_E_GZIP)
			say("hprofstrip: %s: gzip-compressed dump, written unchanged",
			    t->path);
		else
			say("hprofstrip: %s: offset %llu: %s; writing the rest "
			    "unchanged", t->path,
			    (unsigned long long)t->st.fallback_off,
			    hs_strerror(t->st.fallback));
	}
}

static void tracker_start(struct tracker *t, int kind, const char *path,
                          const char *base, unsigned idsize)
{
	struct hs_sink sink = { sink_write, sink_patch, NULL };
	unsigned flags = HS_OPEN_LEN | HS_FALLBACK;

	sink.user = t;
	t->kind = kind;
	t->refs = 1;
	t->pid = getpid();
	snprintf(t->path, sizeof t->path, "%s", path);
	snprintf(t->base, sizeof t->base, "%s", base);
	t->voff = t->out_base = t->flushed = 0;
	t->werr = t->warned = t->trunc_at_end = 0;
	t->ext = 0;
	t->patch_mask = 0;
	t->seg_in = t->seg_out = t->seg_arrays = 0;
	t->main = NULL;
	t->blen = 0;
	hs_init(&t->st, flags | (kind == T_SEGMENT ? HS_NO_HEADER : 0), &sink);
	if (kind == T_SEGMENT)
		t->st.idsize = idsize;
}

/* Takes a free tracker (table_lock held). */
static struct tracker *tracker_alloc(void)
{
	unsigned i;
	for (i = 0; i < MAX_TRACKERS; i++)
		if (pool[i].kind == T_FREE)
			return &pool[i];
	return NULL;
}

static void feed_gap(struct tracker *t, uint64_t at);

static void tracker_finish(struct tracker *t, int fd)
{
	t->fd = fd;
	if (!t->st.in_off && !t->seg_in && !t->blen && !t->ext) {
		/* nothing was written (touch, an open to check a name): the
		 * file stays as it was, old content and all */
		t->kind = T_FREE;
		return;
	}
	feed_gap(t, t->ext);
	hs_finish(&t->st);
	flush_out(t);
	report_fallback(t);
	if (t->trunc_at_end && !t->werr) {
		resolve();
		if (real.ftruncate &&
		    real.ftruncate(fd, (off_t)(t->out_base + t->st.out_off))) {
			/* the dump is still whole; old bytes remain after it */
		}
	}
	if (t->kind == T_SEGMENT && t->main && t->main->kind == T_MAIN) {
		t->main->seg_in += t->st.in_off;
		t->main->seg_out += t->st.out_off;
		t->main->seg_arrays += t->st.arrays;
	} else if (t->kind == T_MAIN) {
		uint64_t in = t->st.in_off - t->seg_out + t->seg_in;
		uint64_t out = t->st.out_off;
		if (t->werr)
			say("hprofstrip: %s: write failed: %s", t->path,
			    strerror(t->werr));
		else if (t->st.err)
			say("hprofstrip: %s: offset %llu: %s", t->path,
			    (unsigned long long)t->st.err_off,
			    hs_strerror(t->st.err));
		say("hprofstrip: %s: %llu bytes in, %llu bytes out (%.1f%%), "
		    "%llu arrays stripped", t->path, (unsigned long long)in,
		    (unsigned long long)out, in ? 100.0 * (double)out / (double)in
		                                : 100.0,
		    (unsigned long long)(t->st.arrays + t->seg_arrays));
	}
	t->kind = T_FREE;
}

/* ---- which files ------------------------------------------------------ */

static int matches(const char *path)
{
	const char *p, *colon, *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	char one[sizeof cfg.pattern];

	load_config();
	for (p = cfg.pattern; *p; p = *colon ? colon + 1 : colon) {
		size_t n;
		colon = strchr(p, ':');
		if (!colon)
			colon = p + strlen(p);
		n = (size_t)(colon - p);
		if (!n)
			continue;
		memcpy(one, p, n);
		one[n] = 0;
		if (!fnmatch(one, path, 0) || !fnmatch(one, base, 0))
			return 1;
	}
	return 0;
}

/* "<base>.<digits>" (prefix ""; HotSpot names its second and later dumps
 * so, dump_file_seq in heapDumper.cpp) or "<base>.p<digits>" (prefix "p";
 * JDK 22+ segment files): the length of <base>, or 0. */
static size_t numbered_base(const char *path, const char *prefix)
{
	size_t n = strlen(path), i = n, k = strlen(prefix);

	while (i > 0 && path[i - 1] >= '0' && path[i - 1] <= '9')
		i--;
	if (i == n || i < k + 2 || memcmp(path + i - k, prefix, k) ||
	    path[i - k - 1] != '.')
		return 0;
	return i - k - 1;
}

/* A path matched by the pattern, or such a path with a dump number. */
static int dump_name(const char *path)
{
	char base[PATH_MAX];
	size_t bl;

	if (matches(path))
		return 1;
	bl = numbered_base(path, "");
	if (!bl || bl >= sizeof base)
		return 0;
	memcpy(base, path, bl);
	base[bl] = 0;
	return matches(base);
}

/* A relative path made absolute against dirfd (AT_FDCWD: the working
 * directory), for patterns that name a directory: a program may open
 * "x.hprof" in /srv/dumps with HPROFSTRIP_PATTERN=/srv/dumps/\*.hprof.
 * Returns 0 if it cannot be. */
static int absolute(int dirfd, const char *path, char *out, size_t size)
{
	char link[64];
	size_t n;
	ssize_t k;

	while (path[0] == '.' && path[1] == '/')
		path += 2;
	if (dirfd == AT_FDCWD) {
		if (!getcwd(out, size))
			return 0;
	} else {
		snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
		k = readlink(link, out, size - 1);
		if (k <= 0)
			return 0;
		out[k] = 0;
	}
	n = strlen(out);
	if (n + 1 + strlen(path) >= size)
		return 0;
	snprintf(out + n, size - n, "%s%s", n && out[n - 1] == '/' ? "" : "/",
	         path);
	return 1;
}

/* Is path a dump (a match, or a numbered match), or a .pN segment of one
 * (its base put in base)? */
static int which_kind(const char *path, char *base, size_t size)
{
	size_t bl;

	if (dump_name(path)) {
		snprintf(base, size, "%s", path);
		return T_MAIN;
	}
	if ((bl = numbered_base(path, "p")) && bl < size) {
		memcpy(base, path, bl);
		base[bl] = 0;
		if (dump_name(base))
			return T_SEGMENT;
	}
	return T_FREE;
}

/* After a successful open: start tracking fd if its path matches. */
static void maybe_track(int fd, int dirfd, const char *path, int flags)
{
	struct stat sb;
	struct tracker *t, *main = NULL;
	char base[PATH_MAX], full[PATH_MAX];
	int kind, saved = errno;
	unsigned i, idsize = (unsigned)sizeof(void *);

	if (fd < 0 || !path || (flags & O_ACCMODE) == O_RDONLY ||
	    (flags & O_APPEND))
		return;
	kind = which_kind(path, base, sizeof base);
	if (kind == T_FREE && path[0] != '/' && cfg.dirs &&
	    absolute(dirfd, path, full, sizeof full))
		kind = which_kind(full, base, sizeof base);
	errno = saved;
	if (kind == T_FREE)
		return;
	if (fd >= MAX_FD) {
		say("hprofstrip: %s: fd %d is past the shim's table; written "
		    "unstripped", path, fd);
		return;
	}
	/* a file with content opened without O_TRUNC is being changed, not
	 * written afresh: not a dump being taken, so left alone */
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) ||
	    (!(flags & O_TRUNC) && sb.st_size > 0))
		goto out;
	pthread_mutex_lock(&table_lock);
	t = tracker_alloc();
	if (!t) {
		pthread_mutex_unlock(&table_lock);
		say("hprofstrip: %s: too many dumps open at once; written "
		    "unstripped", path);
		goto out;
	}
	if (kind == T_SEGMENT) {
		for (i = 0; i < MAX_TRACKERS; i++)
			if (pool[i].kind == T_MAIN && !strcmp(pool[i].base, base)) {
				main = &pool[i];
				if (main->st.idsize)
					idsize = main->st.idsize;
			}
	}
	tracker_start(t, kind, path, base, idsize);
	t->main = main;
	map_fd(fd, t);
	pthread_mutex_unlock(&table_lock);
out:
	errno = saved;
}

/* Does this process host a Java runtime: HotSpot's libjvm.so or ART's
 * libart.so? Only such a process writes heap dumps of its own, so only
 * there is a file sniffed: a cp or cat of a dump is left alone. Once
 * loaded, a runtime stays. */
static int runtime_lib(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *n = info->dlpi_name, *b;

	(void)size;
	(void)data;
	if (!n)
		return 0;
	b = strrchr(n, '/');
	b = b ? b + 1 : n;
	return !strcmp(b, "libjvm.so") || !strcmp(b, "libart.so");
}

static int hosts_runtime(void)
{
	static int yes;

	if (__atomic_load_n(&yes, __ATOMIC_RELAXED))
		return 1;
	if (!dl_iterate_phdr(runtime_lib, NULL))
		return 0;
	__atomic_store_n(&yes, 1, __ATOMIC_RELAXED);
	return 1;
}

/* The first write to an fd opened FD_FRESH decides: it is FD_SEEN now.
 * Returns whether this call was that first write. */
static int first_write(int fd)
{
	unsigned char fresh = FD_FRESH;

	return fd >= 0 && fd < MAX_FD &&
	       __atomic_compare_exchange_n(&fdmap[fd], &fresh, FD_SEEN, 0,
	                                   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/* A write of buf to an untracked fd, at offset at (-1: the fd's position).
 * In a process that hosts a runtime (HPROFSTRIP_SNIFF unless 0), it
 * starts a dump when it writes "JAVA PROFILE 1.0." at offset 0 of a
 * regular file that is either new (the first write to a file this process
 * created or truncated, whatever its name: jmap's heap.bin) or was opened
 * where the shim could not see (the fd that `am dumpheap` hands to ART).
 * Costs a memcmp and nothing else for any other write. */
static struct tracker *sniff(int fd, const void *buf, size_t len, int64_t at)
{
	struct stat sb;
	struct tracker *t;
	char path[PATH_MAX], link[64];
	unsigned char was = fd_state(fd);
	int fl, saved;
	ssize_t k;

	if (was == FD_SEEN || fd < 0 || fd >= MAX_FD)
		return NULL;
	if (was == FD_FRESH && !first_write(fd))
		return NULL;
	load_config();
	if (!cfg.sniff || !buf || len < MAGIC_LEN || memcmp(buf, MAGIC, MAGIC_LEN) ||
	    !hosts_runtime())
		return NULL;
	saved = errno;
	t = NULL;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) ||
	    (was == FD_FRESH && sb.st_size > 0))
		goto out;
	fl = sys_fcntl(fd, F_GETFL, 0);
	if (fl < 0 || (fl & O_APPEND))
		goto out;
	if (at < 0) {
		resolve();
		at = real.lseek64 ? real.lseek64(fd, 0, SEEK_CUR)
		                  : (int64_t)real.lseek(fd, 0, SEEK_CUR);
	}
	if (at != 0)
		goto out;
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	k = readlink(link, path, sizeof path - 1);
	if (k > 0)
		path[k] = 0;
	else
		snprintf(path, sizeof path, "fd %d", fd);
	pthread_mutex_lock(&table_lock);
	if (fd_state(fd) == (was == FD_FRESH ? FD_SEEN : 0) &&
	    (t = tracker_alloc()) != NULL) {
		tracker_start(t, T_MAIN, path, "", 0);
		t->trunc_at_end = sb.st_size > 0;
		map_fd(fd, t);
	} else if (!t) {
		t = lookup(fd);  /* another thread's write was first */
	}
	pthread_mutex_unlock(&table_lock);
out:
	errno = saved;
	return t;
}

/* ---- the write path --------------------------------------------------- */

/* Writes buf at output offset to, after the buffered output. */
static int write_at(struct tracker *t, int fd, const void *buf, size_t len,
                    uint64_t to)
{
	const unsigned char *p = buf;

	if (flush_out(t))
		return t->werr;
	while (len) {
		ssize_t k = sys_pwrite(fd, p, len, t->out_base + to);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return t->werr = k < 0 ? errno : EIO;
		p += k;
		len -= (size_t)k;
		to += (uint64_t)k;
	}
	return 0;
}

/* The runtime wrote past the end of what it had written: the gap reads
 * as zeros in its file, so the engine is fed zeros up to at. */
static void feed_gap(struct tracker *t, uint64_t at)
{
	static const unsigned char zeros[4096];

	while (t->st.in_off < at && !t->st.err) {
		uint64_t n = at - t->st.in_off;
		hs_feed(&t->st, zeros, n < sizeof zeros ? (size_t)n : sizeof zeros);
	}
}

/* A rewrite of bytes fed already: JDK 8's length patch of the open heap
 * record, or bytes that went out unchanged (everything before the first
 * heap record, or copied verbatim after a fallback), which are rewritten
 * where they are. Returns 0 or an errno. */
static int track_rewrite(struct tracker *t, int fd, const unsigned char *b,
                         size_t len, uint64_t at)
{
	uint64_t lo = hs_open_record(&t->st), i;
	uint64_t to = hs_map_verbatim(&t->st, at);
	uint64_t same = t->st.same_until < t->st.out_off ? t->st.same_until
	                                                 : t->st.out_off;

	if (at + len <= same)
		return write_at(t, fd, b, len, at);
	if (to != UINT64_MAX && at + len <= t->st.in_off)
		return write_at(t, fd, b, len, to);
	if (lo == UINT64_MAX || at < lo || at + len > lo + 4) {
		if (!t->warned) {
			t->warned = 1;
			say("hprofstrip: %s: a rewrite of %zu bytes at offset %llu "
			    "falls on data already stripped and cannot be applied; "
			    "the dump is damaged", t->path, len,
			    (unsigned long long)at);
		}
		return 0;
	}
	if (t->patch_off != lo)
		t->patch_mask = 0;
	t->patch_off = lo;
	for (i = 0; i < len; i++) {
		t->patch[at - lo + i] = b[i];
		t->patch_mask |= 1u << (at - lo + i);
	}
	if (t->patch_mask == 0xF) {
		t->patch_mask = 0;
		if (hs_close_record(&t->st, lo, hs_be32(t->patch)) && !t->werr &&
		    !t->warned) {
			t->warned = 1;
			say("hprofstrip: %s: length patch at offset %llu does not "
			    "fit the record", t->path, (unsigned long long)lo);
		}
	}
	return 0;
}

/* A write of len bytes at virtual offset at. Returns 0 or an errno. */
static int track_write(struct tracker *t, int fd, const void *buf, size_t len,
                       uint64_t at)
{
	int e;

	t->fd = fd;
	if (t->werr)
		return t->werr;
	if (at > t->st.in_off)
		feed_gap(t, at);
	if (at < t->st.in_off && at + len > t->st.in_off) {
		/* rewrites the last bytes and goes on past them */
		size_t old = (size_t)(t->st.in_off - at);
		if ((e = track_rewrite(t, fd, buf, old, at)) != 0)
			return e;
		buf = (const unsigned char *)buf + old;
		len -= old;
		at += old;
	}
	if (at == t->st.in_off) {
		hs_feed(&t->st, buf, len);
	} else if ((e = track_rewrite(t, fd, buf, len, at)) != 0) {
		return e;
	}
	report_fallback(t);
	if (flush_out(t))
		return t->werr;
	return 0;
}

static ssize_t do_write(int fd, const void *buf, size_t len)
{
	struct tracker *t = lookup(fd);
	int e, saved = errno;

	if (!buf && len)  /* the kernel's EFAULT, not a crash in here */
		return sys_write(fd, buf, len);
	if (!t && !(t = sniff(fd, buf, len, -1)))
		return sys_write(fd, buf, len);
	pthread_mutex_lock(&t->lock);
	e = track_write(t, fd, buf, len, t->voff);
	if (!e)
		t->voff += len;
	pthread_mutex_unlock(&t->lock);
	if (e) {
		errno = e;
		return -1;
	}
	errno = saved;
	return (ssize_t)len;
}

EXPORT ssize_t write(int fd, const void *buf, size_t len)
{
	GUARDED(ssize_t, real.write(fd, buf, len), do_write(fd, buf, len));
}

static ssize_t do_writev(int fd, const struct iovec *iov, int cnt,
                         int64_t at, int positional)
{
	struct tracker *t = lookup(fd);
	int i, e = 0, bad = 0, saved = errno;
	uint64_t pos;
	size_t total = 0;

	/* a NULL vector or buffer: the kernel's EFAULT, not a crash in here */
	if (cnt > 0 && cnt <= IOV_MAX) {
		for (i = 0; iov && i < cnt; i++)
			if (!iov[i].iov_base && iov[i].iov_len)
				break;
		bad = !iov || i < cnt;
	}
	if (bad)
		t = NULL;
	else if (!t && cnt > 0) {
		for (i = 0; i < cnt && !iov[i].iov_len; i++)
			;
		if (i < cnt && !(positional && at < 0))
			t = sniff(fd, iov[i].iov_base, iov[i].iov_len,
			          positional ? at : -1);
	}
	if (!t)
		return positional ? real_pwritev64(fd, iov, cnt, at)
		                  : real.writev(fd, iov, cnt);
	if (cnt < 0 || cnt > IOV_MAX || (positional && at < 0)) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&t->lock);
	pos = positional ? (uint64_t)at : t->voff;
	for (i = 0; i < cnt && !e; i++) {
		e = track_write(t, fd, iov[i].iov_base, iov[i].iov_len, pos);
		pos += iov[i].iov_len;
		total += iov[i].iov_len;
	}
	if (!e && !positional)
		t->voff = pos;
	pthread_mutex_unlock(&t->lock);
	if (e) {
		errno = e;
		return -1;
	}
	errno = saved;
	return (ssize_t)total;
}

EXPORT ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	GUARDED(ssize_t, real.writev(fd, iov, cnt), do_writev(fd, iov, cnt, 0, 0));
}

EXPORT ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
	GUARDED(ssize_t, real.pwritev(fd, iov, cnt, off),
	        do_writev(fd, iov, cnt, (int64_t)off, 1));
}

EXPORT ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, int64_t off)
{
	GUARDED(ssize_t, real_pwritev64(fd, iov, cnt, off),
	        do_writev(fd, iov, cnt, off, 1));
}


static ssize_t do_pwrite(int fd, const void *buf, size_t len, int64_t off)
{
	struct tracker *t = lookup(fd);
	int e, saved = errno;

	if ((!buf && len) ||
	    (!t && (off < 0 || !(t = sniff(fd, buf, len, off)))))
		return sys_pwrite(fd, buf, len, off);
	if (off < 0) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&t->lock);
	e = track_write(t, fd, buf, len, (uint64_t)off);
	pthread_mutex_unlock(&t->lock);
	if (e) {
		errno = e;
		return -1;
	}
	errno = saved;
	return (ssize_t)len;
}

EXPORT ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	GUARDED(ssize_t, real.pwrite(fd, buf, len, off),
	        do_pwrite(fd, buf, len, (int64_t)off));
}

EXPORT ssize_t pwrite64(int fd, const void *buf, size_t len, int64_t off)
{
	GUARDED(ssize_t, sys_pwrite(fd, buf, len, off),
	        do_pwrite(fd, buf, len, off));
}

/* ---- offsets ----------------------------------------------------------- */

static int64_t do_lseek(int fd, int64_t off, int whence)
{
	struct tracker *t = lookup(fd);
	int64_t pos;

	if (!t || (whence != SEEK_SET && whence != SEEK_CUR &&
	           whence != SEEK_END))
		return real_lseek64(fd, off, whence);
	pthread_mutex_lock(&t->lock);
	pos = whence == SEEK_SET ? off
	    : whence == SEEK_CUR ? (int64_t)t->voff + off
	                         : (int64_t)(t->ext > t->st.in_off ? t->ext
	                                                          : t->st.in_off) + off;
	if (pos < 0) {
		pthread_mutex_unlock(&t->lock);
		errno = EINVAL;
		return -1;
	}
	t->voff = (uint64_t)pos;
	pthread_mutex_unlock(&t->lock);
	return pos;
}

/* lseek's off_t may be 32 bits: a position past it is EOVERFLOW */
static off_t do_lseek32(int fd, off_t off, int whence)
{
	int64_t r = do_lseek(fd, (int64_t)off, whence);

	if (r > (int64_t)((~(uint64_t)0 >> 1) >> (64 - 8 * sizeof(off_t)))) {
		errno = EOVERFLOW;
		return -1;
	}
	return (off_t)r;
}

EXPORT off_t lseek(int fd, off_t off, int whence)
{
	GUARDED(off_t, real.lseek(fd, off, whence), do_lseek32(fd, off, whence));
}

EXPORT int64_t lseek64(int fd, int64_t off, int whence)
{
	GUARDED(int64_t, real_lseek64(fd, off, whence), do_lseek(fd, off, whence));
}

static int real_ftruncate(int fd, int64_t len)
{
	if (real.ftruncate64)
		return real.ftruncate64(fd, len);
	return real.ftruncate(fd, (off_t)len);
}

/* The dump starts over: ftruncate(fd, 0) empties the file (ART erases a
 * failed dump so; RandomAccessFile.setLength(0) before writing). The file
 * position is the runtime's, as ftruncate leaves it. */
static void tracker_restart(struct tracker *t)
{
	int refs = t->refs;
	uint64_t voff = t->voff;
	struct tracker *main = t->main;
	char path[sizeof t->path], base[sizeof t->base];

	memcpy(path, t->path, sizeof path);
	memcpy(base, t->base, sizeof base);
	tracker_start(t, t->kind, path, base, t->st.idsize);
	t->refs = refs;
	t->voff = voff;
	t->main = main;
}

/* ftruncate of a tracked file, in the runtime's offsets: to 0 the dump
 * starts over; to its end the stripped file is cut at its own end; past
 * its end the runtime's file grows by zeros, which are fed at the next
 * write past them or at close. A cut inside what was written cannot be
 * mapped onto the stripped file: said once, and the file is left whole. */
static int do_ftruncate(int fd, int64_t len)
{
	struct tracker *t = lookup(fd);
	int r = 0, saved = errno;

	if (!t || len < 0)
		return real_ftruncate(fd, len);
	pthread_mutex_lock(&t->lock);
	if (len == 0) {
		r = real_ftruncate(fd, 0);
		if (r == 0)
			tracker_restart(t);
	} else if ((uint64_t)len == t->st.in_off) {
		t->ext = 0;
		if (flush_out(t))
			r = (errno = t->werr, -1);
		else
			r = real_ftruncate(fd, (int64_t)(t->out_base +
			                                 t->st.out_off));
	} else if ((uint64_t)len > t->st.in_off) {
		t->ext = (uint64_t)len;
	} else if (!t->warned) {
		t->warned = 1;
		say("hprofstrip: %s: a truncation to %lld bytes falls on data "
		    "already stripped and cannot be applied", t->path,
		    (long long)len);
	}
	if (!r)
		errno = saved;
	pthread_mutex_unlock(&t->lock);
	return r;
}

EXPORT int ftruncate(int fd, off_t len)
{
	GUARDED(int, real.ftruncate(fd, len), do_ftruncate(fd, (int64_t)len));
}

EXPORT int ftruncate64(int fd, int64_t len)
{
	GUARDED(int, real_ftruncate(fd, len), do_ftruncate(fd, len));
}

/* ---- sendfile and copy_file_range into a tracked file ----------------- */

/* Reads up to count bytes of in_fd (at *off, or at its position) and
 * writes them through t as the runtime's next bytes. */
static ssize_t pump_into(struct tracker *t, int out_fd, int in_fd,
                         int64_t *off, size_t count)
{
	size_t done = 0;
	int e = 0, saved = errno;

	pthread_mutex_lock(&t->lock);
	while (done < count) {
		size_t want = count - done < IN_BUF ? count - done : IN_BUF;
		ssize_t n;
		if (off)
			n = pread(in_fd, t->in, want, (off_t)(*off));
		else
			n = read(in_fd, t->in, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			break;
		}
		if (n == 0)
			break;
		e = track_write(t, out_fd, t->in, (size_t)n, t->voff);
		if (e)
			break;
		t->voff += (uint64_t)n;
		done += (size_t)n;
		if (off)
			*off += n;
	}
	pthread_mutex_unlock(&t->lock);
	if (e && !done) {
		errno = e;
		return -1;
	}
	errno = saved;
	return (ssize_t)done;
}

static ssize_t do_sendfile(int out_fd, int in_fd, off_t *off, size_t count)
{
	struct tracker *t = lookup(out_fd);
	int64_t o;
	ssize_t r;

	if (!t) {
		first_write(out_fd);
		return real.sendfile(out_fd, in_fd, off, count);
	}
	if (!off)
		return pump_into(t, out_fd, in_fd, NULL, count);
	o = (int64_t)*off;
	r = pump_into(t, out_fd, in_fd, &o, count);
	*off = (off_t)o;
	return r;
}

EXPORT ssize_t sendfile(int out_fd, int in_fd, off_t *off, size_t count)
{
	GUARDED(ssize_t, real.sendfile(out_fd, in_fd, off, count),
	        do_sendfile(out_fd, in_fd, off, count));
}

static ssize_t do_sendfile64(int out_fd, int in_fd, int64_t *off,
                             size_t count)
{
	struct tracker *t = lookup(out_fd);

	if (!t) {
		first_write(out_fd);
		return real_sendfile64(out_fd, in_fd, off, count);
	}
	return pump_into(t, out_fd, in_fd, off, count);
}

EXPORT ssize_t sendfile64(int out_fd, int in_fd, int64_t *off, size_t count)
{
	GUARDED(ssize_t, real_sendfile64(out_fd, in_fd, off, count),
	        do_sendfile64(out_fd, in_fd, off, count));
}

static ssize_t do_copy_file_range(int in_fd, off_t *in_off, int out_fd,
                                  off_t *out_off, size_t len, unsigned flags)
{
	struct tracker *t = lookup(out_fd);
	int64_t o;
	ssize_t r;

	if (!t) {
		first_write(out_fd);
		return real.copy_file_range(in_fd, in_off, out_fd, out_off, len,
		                            flags);
	}
	if (out_off && (uint64_t)*out_off != t->voff) {
		/* positional writes elsewhere than the end are not dumps */
		errno = EINVAL;
		return -1;
	}
	if (!in_off)
		r = pump_into(t, out_fd, in_fd, NULL, len);
	else {
		o = (int64_t)*in_off;
		r = pump_into(t, out_fd, in_fd, &o, len);
		*in_off = (off_t)o;
	}
	if (r > 0 && out_off) {
		/* positional output leaves the file position where it was */
		pthread_mutex_lock(&t->lock);
		t->voff -= (uint64_t)r;
		pthread_mutex_unlock(&t->lock);
		*out_off += r;
	}
	return r;
}

EXPORT ssize_t copy_file_range(int in_fd, off_t *in_off, int out_fd,
                               off_t *out_off, size_t len, unsigned flags)
{
	GUARDED(ssize_t,
	        real.copy_file_range(in_fd, in_off, out_fd, out_off, len, flags),
	        do_copy_file_range(in_fd, in_off, out_fd, out_off, len, flags));
}

/* ---- fd lifetime ------------------------------------------------------- */

/* fd stops referring to its tracker; the last reference ends the dump.
 * Called before the real close so the last bytes can still be written.
 * Returns 0, or the errno of a write that failed while ending the dump. */
static int release_fd(int fd)
{
	struct tracker *t = lookup(fd);
	int e = 0;

	if (!t)
		return 0;
	/* a vfork child shares our memory but not our fds: hands off */
	if (t->pid != getpid())
		return 0;
	pthread_mutex_lock(&table_lock);
	if (lookup(fd) == t) {
		map_fd(fd, NULL);
		pthread_mutex_lock(&t->lock);
		if (--t->refs == 0) {
			int before = t->werr;
			tracker_finish(t, fd);
			if (t->werr && !before)
				e = t->werr;
		}
		pthread_mutex_unlock(&t->lock);
	}
	pthread_mutex_unlock(&table_lock);
	return e;
}

/* The kernel just handed out fd (open, dup...), so whatever fd referred
 * to before was closed without us seeing it (close_range, a raw syscall,
 * fclose of an fdopen'd stream). Forget that: if it was a dump's last fd,
 * the dump ends where the runtime's last write left it (each call's
 * output was flushed before the call returned). */
static void fresh_fd(int fd)
{
	struct tracker *t;

	if (!fd_state(fd))
		return;
	t = lookup(fd);
	if (!t) {
		set_fd_state(fd, 0);
		return;
	}
	if (t->pid != getpid())
		return;
	pthread_mutex_lock(&table_lock);
	if (lookup(fd) == t) {
		map_fd(fd, NULL);
		pthread_mutex_lock(&t->lock);
		if (--t->refs == 0) {
			say("hprofstrip: %s: closed behind the shim's back; the "
			    "dump ends at %llu bytes in", t->path,
			    (unsigned long long)t->st.in_off);
			t->kind = T_FREE;
		}
		pthread_mutex_unlock(&t->lock);
	}
	pthread_mutex_unlock(&table_lock);
}

/* newfd now refers to what oldfd refers to: the same tracker, or the same
 * seen-or-not state. */
static void alias_fd(int oldfd, int newfd)
{
	struct tracker *t = lookup(oldfd);

	if (newfd < 0 || newfd >= MAX_FD || newfd == oldfd)
		return;
	if (!t) {
		if (fd_state(newfd) != fd_state(oldfd))
			set_fd_state(newfd, fd_state(oldfd));
		return;
	}
	pthread_mutex_lock(&table_lock);
	if (lookup(oldfd) == t) {
		pthread_mutex_lock(&t->lock);
		t->refs++;
		pthread_mutex_unlock(&t->lock);
		map_fd(newfd, t);
	}
	pthread_mutex_unlock(&table_lock);
}

static int do_close(int fd)
{
	int saved = errno, e = 0, r;

	if (lookup(fd)) {
		e = release_fd(fd);
		errno = saved;
	} else if (fd_state(fd)) {
		set_fd_state(fd, 0);
	}
	r = real.close(fd);
	if (r == 0 && e) {
		/* the fd is closed, but the dump's last bytes did not reach
		 * the disk: say so, as a network file system would */
		errno = e;
		r = -1;
	}
	return r;
}

EXPORT int close(int fd)
{
	GUARDED(int, real.close(fd), do_close(fd));
}

/* A dup made newfd from oldfd: drop what newfd's number meant before,
 * then let it mean what oldfd means. errno is left as the dup set it.
 * Returns newfd. */
static int after_dup(int oldfd, int newfd)
{
	int saved = errno;

	if (newfd < 0 || newfd == oldfd)
		return newfd;
	fresh_fd(newfd);
	if (fd_state(oldfd) || fd_state(newfd))
		alias_fd(oldfd, newfd);
	errno = saved;
	return newfd;
}

EXPORT int dup(int fd)
{
	GUARDED(int, real.dup(fd), after_dup(fd, real.dup(fd)));
}

static int do_dup2(int oldfd, int newfd, int flags, int three)
{
	int saved = errno;

	/* dup2 onto a tracked fd closes it: end that dump first */
	if (oldfd != newfd && lookup(newfd) && sys_fcntl(oldfd, F_GETFD, 0) >= 0) {
		release_fd(newfd);
		errno = saved;
	}
	return after_dup(oldfd, three ? real.dup3(oldfd, newfd, flags)
	                              : real.dup2(oldfd, newfd));
}

EXPORT int dup2(int oldfd, int newfd)
{
	GUARDED(int, real.dup2(oldfd, newfd), do_dup2(oldfd, newfd, 0, 0));
}

EXPORT int dup3(int oldfd, int newfd, int flags)
{
	GUARDED(int, real.dup3(oldfd, newfd, flags),
	        do_dup2(oldfd, newfd, flags, 1));
}

static int do_fcntl(fcntl_fn fn, int fd, int cmd, unsigned long arg)
{
	int r = fn(fd, cmd, arg);

	if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)
		after_dup(fd, r);
	return r;
}

/* fcntl64 where this libc has it, else fcntl */
static fcntl_fn fcntl64_fn(void)
{
	return real.fcntl64 ? real.fcntl64 : real.fcntl;
}

#define VA_ARG_ULONG(last, arg)                     \
	do {                                        \
		va_list ap_;                        \
		va_start(ap_, last);                \
		arg = va_arg(ap_, unsigned long);   \
		va_end(ap_);                        \
	} while (0)

EXPORT int fcntl(int fd, int cmd, ...)
{
	unsigned long arg;

	VA_ARG_ULONG(cmd, arg);
	GUARDED(int, real.fcntl(fd, cmd, arg), do_fcntl(real.fcntl, fd, cmd, arg));
}

EXPORT int fcntl64(int fd, int cmd, ...)
{
	unsigned long arg;

	VA_ARG_ULONG(cmd, arg);
	GUARDED(int, fcntl64_fn()(fd, cmd, arg),
	        do_fcntl(fcntl64_fn(), fd, cmd, arg));
}

/* ---- opens ------------------------------------------------------------- */

static int needs_mode(int flags)
{
#ifdef O_TMPFILE
	if ((flags & O_TMPFILE) == O_TMPFILE)
		return 1;
#endif
	return (flags & O_CREAT) != 0;
}

#define VA_MODE(flags, mode)                         \
	do {                                         \
		if (needs_mode(flags)) {             \
			va_list ap_;                 \
			va_start(ap_, flags);        \
			mode = va_arg(ap_, int);     \
			va_end(ap_);                 \
		}                                    \
	} while (0)

static int after_open(int dirfd, int fd, const char *path, int flags)
{
	int fresh = (flags & O_ACCMODE) != O_RDONLY && !(flags & O_APPEND) &&
	            (flags & (O_CREAT | O_TRUNC));

	if (fd >= 0) {
		fresh_fd(fd);
		maybe_track(fd, dirfd, path, flags);
		if (!lookup(fd))
			set_fd_state(fd, fresh ? FD_FRESH : FD_SEEN);
	}
	return fd;
}

#define CREAT_FLAGS (O_WRONLY | O_CREAT | O_TRUNC)

EXPORT int open(const char *path, int flags, ...)
{
	int mode = 0;

	VA_MODE(flags, mode);
	GUARDED(int, real.open(path, flags, mode),
	        after_open(AT_FDCWD, real.open(path, flags, mode), path, flags));
}

EXPORT int open64(const char *path, int flags, ...)
{
	int mode = 0;

	VA_MODE(flags, mode);
	GUARDED(int, real_open64(path, flags, mode),
	        after_open(AT_FDCWD, real_open64(path, flags, mode), path, flags));
}

EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	int mode = 0;

	VA_MODE(flags, mode);
	GUARDED(int, real.openat(dirfd, path, flags, mode),
	        after_open(dirfd, real.openat(dirfd, path, flags, mode), path,
	                   flags));
}

EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	int mode = 0;

	VA_MODE(flags, mode);
	GUARDED(int, real_openat64(dirfd, path, flags, mode),
	        after_open(dirfd, real_openat64(dirfd, path, flags, mode), path,
	                   flags));
}

EXPORT int __open_2(const char *path, int flags)
{
	GUARDED(int, real_open_2(path, flags, 0),
	        after_open(AT_FDCWD, real_open_2(path, flags, 0), path, flags));
}

EXPORT int __open64_2(const char *path, int flags)
{
	GUARDED(int, real_open_2(path, flags, 1),
	        after_open(AT_FDCWD, real_open_2(path, flags, 1), path, flags));
}

EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	GUARDED(int, real_openat_2(dirfd, path, flags, 0),
	        after_open(dirfd, real_openat_2(dirfd, path, flags, 0), path,
	                   flags));
}

EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	GUARDED(int, real_openat_2(dirfd, path, flags, 1),
	        after_open(dirfd, real_openat_2(dirfd, path, flags, 1), path,
	                   flags));
}

EXPORT int creat(const char *path, mode_t mode)
{
	GUARDED(int, real.creat(path, mode),
	        after_open(AT_FDCWD, real.creat(path, mode), path, CREAT_FLAGS));
}

EXPORT int creat64(const char *path, mode_t mode)
{
	GUARDED(int, real_creat64(path, mode),
	        after_open(AT_FDCWD, real_creat64(path, mode), path,
	                   CREAT_FLAGS));
}

/* ---- fork and start-up --------------------------------------------------- */

static void fork_prepare(void)
{
	unsigned i;
	pthread_mutex_lock(&table_lock);
	for (i = 0; i < MAX_TRACKERS; i++)
		pthread_mutex_lock(&pool[i].lock);
}

static void fork_release(void)
{
	unsigned i;
	for (i = MAX_TRACKERS; i-- > 0;)
		pthread_mutex_unlock(&pool[i].lock);
	pthread_mutex_unlock(&table_lock);
}

/* The child of fork has a copy of the parent's trackers and the same
 * files open. Those dumps are the parent's: the child must never write
 * them through its copy (its close would end the parent's dump, with a
 * length patch and maybe a truncation), so it forgets them. Its own dumps
 * start afresh (KOOM forks and dumps in the child). */
static void fork_child(void)
{
	unsigned i;
	int fd;

	for (fd = 0; fd < MAX_FD; fd++)
		if (lookup(fd))
			map_fd(fd, NULL);
	for (i = 0; i < MAX_TRACKERS; i++)
		pool[i].kind = T_FREE;
	fork_release();
}

__attribute__((constructor)) static void shim_init(void)
{
	unsigned i;
	int saved = errno;

	for (i = 0; i < MAX_TRACKERS; i++)
		pthread_mutex_init(&pool[i].lock, NULL);
	resolve();
	load_config();
	pthread_atfork(fork_prepare, fork_release, fork_child);
	errno = saved;
}
