/*
 * libcrace: the shim's libc layer (preload/libc.c, linked in), whose real
 * functions are each looked up the first time a call needs it, under
 * ThreadSanitizer (make check-tsan) and as the shim is built (make
 * check: an optimizer may drop a store the sanitizer keeps). This
 * program's own dlsym stands in for the C library's (both built with
 * -Ddlsym=libcrace_dlsym, so the sanitizer's own dlsym calls are left
 * alone): it answers "write" with fake_write after a pause, and nothing
 * else.
 *
 * - Two threads make their first write at once: both look "write" up
 *   (the slot is set twice, to the same value: no report), and both
 *   calls reach fake_write.
 * - A write made from inside dlsym (an allocator below the shim that
 *   writes) gets the raw system call, not a second lookup.
 * - Once looked up, a call asks dlsym nothing more.
 * - A name dlsym does not find is asked once: the *64 name's NULL sends
 *   the call to the base name, and a base name not found to the raw
 *   system call.
 * - A C library with none of the names (dlsym finds only write): every
 *   other function is the raw system call, and each does what the C
 *   library's does (the opens with a dirfd and the fortified names, the
 *   writes at offsets, lseek, ftruncate, dup at fds past 64, dup2 of an
 *   fd onto itself, fcntl, sendfile, copy_file_range, close twice), its
 *   effects read back through the C library.
 * Prints "libcrace: ok".
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "../preload/libc.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int fd;
static int faked;      /* calls that reached fake_write */
static int asked;      /* dlsym("write") calls */
static int asked_64;   /* dlsym("pwrite64") calls */
static int inner_ok;   /* the write from inside dlsym wrote its byte */

static ssize_t fake_write(int f, const void *buf, size_t len)
{
	__atomic_add_fetch(&faked, 1, __ATOMIC_RELAXED);
	return (ssize_t)syscall(SYS_write, f, buf, len);
}

void *dlsym(void *handle, const char *name)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };

	(void)handle;
	if (!strcmp(name, "pwrite64"))
		__atomic_add_fetch(&asked_64, 1, __ATOMIC_RELAXED);
	if (strcmp(name, "write"))
		return NULL;
	__atomic_add_fetch(&asked, 1, __ATOMIC_RELAXED);
	/* re-entry: this thread's own write, while it looks write up */
	if (libc_write(fd, "i", 1) == 1)
		__atomic_store_n(&inner_ok, 1, __ATOMIC_RELAXED);
	nanosleep(&ts, NULL);
	return (void *)fake_write;
}

static void *writer(void *arg)
{
	(void)arg;
	return libc_write(fd, "x", 1) == 1 ? NULL : (void *)1;
}

static int fail(const char *what)
{
	fprintf(stderr, "libcrace: %s\n", what);
	return 1;
}

/* the file at fd, read through the C library, is want */
static int holds(int f, const char *want)
{
	char got[64];
	size_t n = strlen(want);
	struct stat sb;

	return !fstat(f, &sb) && (size_t)sb.st_size == n &&
	       pread(f, got, sizeof got, 0) == (ssize_t)n && !memcmp(got, want, n);
}

#define RAW(cond, what) do { if (!(cond)) return fail("raw: " what); } while (0)

/* Every name but write missing: the raw system calls, each checked. */
static int raw_calls(void)
{
	char dir[] = "/tmp/libcrace.XXXXXX", path[64], log[64];
	struct iovec iov[2] = { { "ab", 2 }, { "cd", 2 } };
	struct stat sb;
	int64_t off, ioff, ooff;
	int d, f, g, h, l;
	mode_t old = umask(0);

	RAW(mkdtemp(dir), "mkdtemp");
	d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	snprintf(path, sizeof path, "%s/a", dir);
	/* open64 missing: open, missing: the raw openat, mode as given */
	f = libc_open64(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	RAW(f >= 0 && !fstat(f, &sb) && (sb.st_mode & 0777) == 0640, "open64");
	RAW(libc_write(f, "hello", 5) == 5, "write");
	RAW(libc_pwrite(f, "HE", 2, 0) == 2 && libc_pwrite(f, "LL", 2, 2) == 2 &&
	    holds(f, "HELLo"), "pwrite");
	RAW(libc_pwritev(f, iov, 2, 5) == 4 && holds(f, "HELLoabcd"), "pwritev");
	/* past 4 GiB (a sparse file): the offsets' high halves */
	{
		int64_t big = ((int64_t)1 << 32) + 1;
		char two[2];
		RAW(libc_pwritev(f, iov, 1, big) == 2 && !fstat(f, &sb) &&
		    sb.st_size == big + 2 && pread(f, two, 2, big) == 2 &&
		    !memcmp(two, "ab", 2), "pwritev past 4 GiB");
		RAW(libc_pwrite(f, "cd", 2, big) == 2 && pread(f, two, 2, big) == 2 &&
		    !memcmp(two, "cd", 2), "pwrite past 4 GiB");
		RAW(libc_lseek(f, big, SEEK_SET) == big, "lseek past 4 GiB");
		RAW(libc_ftruncate(f, big - 1) == 0 && !fstat(f, &sb) &&
		    sb.st_size == big - 1, "ftruncate past 4 GiB");
		RAW(libc_ftruncate(f, 9) == 0 && holds(f, "HELLoabcd"), "ftruncate back");
	}
	RAW(libc_lseek(f, 0, SEEK_END) == 9 && libc_lseek(f, 2, SEEK_SET) == 2 &&
	    libc_lseek(f, 0, SEEK_CUR) == 2, "lseek");
	RAW(REAL(writev)(f, iov, 2) == 4 && holds(f, "HEabcdbcd") &&
	    libc_lseek(f, 0, SEEK_CUR) == 6, "writev");
	errno = 0;
	RAW(libc_lseek(f, -1, SEEK_SET) == -1 && errno == EINVAL, "lseek before 0");
	RAW(libc_ftruncate(f, 3) == 0 && holds(f, "HEa"), "ftruncate");
	/* dup, dup2 (onto itself, open or not), dup3, fcntl: fds past 64 */
	g = REAL(dup)(f);
	RAW(g > f && libc_lseek(g, 0, SEEK_CUR) == 6, "dup");
	RAW(REAL(dup2)(f, f) == f, "dup2 onto itself");
	errno = 0;
	RAW(REAL(dup2)(999, 999) == -1 && errno == EBADF, "dup2 of a closed fd onto itself");
	RAW(REAL(dup2)(f, 200) == 200 && libc_fcntl(200, F_GETFD, 0) == 0, "dup2 past 64");
	RAW(REAL(dup3)(f, 201, O_CLOEXEC) == 201 &&
	    libc_fcntl64(201, F_GETFD, 0) == FD_CLOEXEC, "dup3 past 64, close-on-exec");
	h = libc_fcntl(f, F_DUPFD_CLOEXEC, 300);
	RAW(h >= 300 && fcntl(h, F_GETFD) == FD_CLOEXEC, "F_DUPFD_CLOEXEC");
	RAW(libc_close(200) == 0 && libc_close(201) == 0 && REAL(close)(h) == 0 &&
	    REAL(close)(g) == 0, "close");
	errno = 0;
	RAW(libc_close(200) == -1 && errno == EBADF, "close twice");
	/* openat64 with a dirfd, sendfile, copy_file_range into it */
	g = libc_openat64(d, "b", O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	RAW(g >= 0 && !fstat(g, &sb) && (sb.st_mode & 0777) == 0600, "openat64 with a dirfd");
	off = 1;
	RAW(libc_sendfile(g, f, &off, 2) == 2 && off == 3 && holds(g, "Ea") &&
	    libc_lseek(f, 0, SEEK_CUR) == 6, "sendfile at an offset");
	ioff = 0, ooff = 2;
	h = (int)copy_file_range(f, &ioff, g, &ooff, 1, 0);  /* the C library's */
	ioff = 0, ooff = 2;
	if (h == 1) {
		RAW(libc_pwrite(g, "Ea", 2, 0) == 2 && ftruncate(g, 2) == 0, "reset");
		RAW(REAL(copy_file_range)(f, &ioff, g, &ooff, 3, 0) == 3 &&
		    ioff == 3 && ooff == 5 && holds(g, "EaHEa"), "copy_file_range");
	}
	/* the fortified opens: their names missing, the raw openat */
	h = libc_open_2(path, O_RDONLY | O_CLOEXEC, 0);
	RAW(h >= 0 && holds(h, "HEa") && libc_close(h) == 0, "__open_2");
	h = libc_open_2(path, O_RDONLY | O_CLOEXEC, 1);
	RAW(h >= 0 && holds(h, "HEa") && libc_close(h) == 0, "__open64_2");
	h = libc_openat_2(d, "a", O_RDONLY | O_CLOEXEC, 1);
	RAW(h >= 0 && holds(h, "HEa") && libc_close(h) == 0, "__openat64_2 with a dirfd");
	h = libc_openat_2(d, "a", O_RDONLY | O_CLOEXEC, 0);
	RAW(h >= 0 && holds(h, "HEa") && libc_close(h) == 0, "__openat_2 with a dirfd");
	errno = 0;
	RAW(libc_openat_2(d, "none", O_RDONLY, 0) == -1 && errno == ENOENT, "openat of no file");
	/* creat64 missing: creat, missing: the raw creat, which truncates */
	h = libc_creat64(path, 0600);
	RAW(h >= 0 && holds(f, "") && libc_write(h, "x", 1) == 1 && holds(f, "x") &&
	    libc_close(h) == 0, "creat64 truncates");
	/* the log: appended to, whatever the offset */
	snprintf(log, sizeof log, "%s/log", dir);
	l = libc_open_log(log);
	RAW(l >= 0 && libc_write(l, "one\n", 4) == 4 && lseek(l, 0, SEEK_SET) == 0 &&
	    libc_write(l, "two\n", 4) == 4, "the log's writes");
	close(l);
	l = openat(d, "log", O_RDONLY | O_CLOEXEC);
	RAW(holds(l, "one\ntwo\n") && !fstat(l, &sb) && (sb.st_mode & 0777) == 0644,
	    "the log appends, mode 0644");
	close(l);
	close(g);
	close(f);
	unlinkat(d, "a", 0);
	unlinkat(d, "b", 0);
	unlinkat(d, "log", 0);
	close(d);
	rmdir(dir);
	umask(old);
	return 0;
}

int main(void)
{
	pthread_t t[2];
	void *r0, *r1;
	int i;

	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return 2;
	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, writer, NULL))
			return 2;
	if (pthread_join(t[0], &r0) || pthread_join(t[1], &r1))
		return 2;
	if (r0 || r1)
		return fail("a first write failed");
	if (!__atomic_load_n(&inner_ok, __ATOMIC_RELAXED) || faked != 2)
		return fail("the write from inside dlsym did not get the raw "
		            "system call, or a first write missed the function");
	if (asked < 1 || asked > 2)
		return fail("write was not looked up once per racing thread");
	i = asked;
	if (libc_write(fd, "y", 1) != 1 || faked != 3 || asked != i)
		return fail("a later write asked dlsym again");
	/* pwrite64 and pwrite not found: the raw pwrite, asked once */
	if (libc_pwrite(fd, "z", 1, 0) != 1 || libc_pwrite(fd, "z", 1, 0) != 1 ||
	    asked_64 != 1)
		return fail("a name not found was asked again, or its call "
		            "failed");
	if (raw_calls())
		return 1;
	close(fd);
	printf("libcrace: ok\n");
	return 0;
}
