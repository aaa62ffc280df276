/*
 * An app's own PLT hook on libart.so's open, dup, write and close, with
 * bytehook, calling libhprofstrip.a (hprofstrip.h): ART's heap dumps
 * (Debug.dumpHprofData) are stripped as ART writes them, in the app's
 * process, with no wrap.sh. See README.md, "3. In the app, from your own
 * PLT hook".
 *
 * ILLUSTRATIVE: not built with the NDK or run on a device here (there is
 * no NDK on the build machine). What is checked: this file compiles on the
 * host, and tests/embedtest.c runs it with a stand-in for bytehook (it
 * defines HOST_TEST) over real dumps, in ART's and JDK 17's write
 * patterns: the output equals `hprofstrip` of the dump (bats/embed.bats).
 *
 * In the app: call bytehook_init() first, then hook_example_install()
 * (from JNI_OnLoad, say), and hook_example_expect(path) right before
 * Debug.dumpHprofData(path) if the path does not end in .hprof.
 */
#define _FILE_OFFSET_BITS 64  /* 64-bit offsets on 32-bit Android too */

#include "hprofstrip.h"

#ifdef HOST_TEST
#include "../../tests/bytehook-host.h"
#else
#include "bytehook.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

typedef int (*open_t)(const char *, int, ...);
typedef int (*dup_t)(int);
typedef ssize_t (*write_t)(int, const void *, size_t);
typedef int (*close_t)(int);

/* A path the app is about to dump to (hook_example_expect), or "". */
static char expected[4096];
static pthread_mutex_t expected_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- the hooks: the API first, the previous function otherwise ---------- */

static int my_open(const char *path, int flags, ...)
{
	int fd, mode = 0, mine;
	va_list ap;

	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = va_arg(ap, int);
		va_end(ap);
	}
	fd = BYTEHOOK_CALL_PREV(my_open, open_t, path, flags, mode);
	pthread_mutex_lock(&expected_lock);
	mine = path && expected[0] && !strcmp(path, expected);
	if (mine && fd >= 0)
		expected[0] = 0;
	pthread_mutex_unlock(&expected_lock);
	if (mine)
		hst_begin(fd, path);  /* the dump the app asked for */
	else
		hst_opened(fd, AT_FDCWD, path, flags);  /* *.hprof */
	BYTEHOOK_POP_STACK();
	return fd;
}

static int my_dup(int oldfd)
{
	int fd = BYTEHOOK_CALL_PREV(my_dup, dup_t, oldfd);

	if (fd >= 0)
		hst_dup(oldfd, fd);
	BYTEHOOK_POP_STACK();
	return fd;
}

static ssize_t my_write(int fd, const void *buf, size_t len)
{
	ssize_t r;

	if (!hst_write(fd, buf, len, -1, &r))
		r = BYTEHOOK_CALL_PREV(my_write, write_t, fd, buf, len);
	BYTEHOOK_POP_STACK();
	return r;
}

static int my_close(int fd)
{
	int e = hst_close(fd);
	int r = BYTEHOOK_CALL_PREV(my_close, close_t, fd);

	if (r == 0 && e) {
		/* closed, but the dump's last bytes did not reach the file */
		errno = e;
		r = -1;
	}
	BYTEHOOK_POP_STACK();
	return r;
}

/* ---- the real I/O the library writes the dump with ----------------------
 * libc's own functions: only libart.so's calls are hooked. */

static ssize_t io_pwrite(int fd, const void *buf, size_t len, int64_t off)
{
	return pwrite(fd, buf, len, (off_t)off);
}

static ssize_t io_pread(int fd, void *buf, size_t len, int64_t off)
{
	return pread(fd, buf, len, (off_t)off);
}

static int64_t io_lseek(int fd, int64_t off, int whence)
{
	return lseek(fd, (off_t)off, whence);
}

static int io_ftruncate(int fd, int64_t len)
{
	return ftruncate(fd, (off_t)len);
}

static int io_fcntl(int fd, int cmd, unsigned long arg)
{
	return fcntl(fd, cmd, arg);
}

static int io_open(const char *path, int flags, int mode)
{
	return open(path, flags, mode);
}

/* ---- set-up ------------------------------------------------------------- */

/* Before Debug.dumpHprofData(path) of a path not matching *.hprof. */
void hook_example_expect(const char *path)
{
	pthread_mutex_lock(&expected_lock);
	strncpy(expected, path, sizeof expected - 1);
	pthread_mutex_unlock(&expected_lock);
}

/* Once, after bytehook_init(). 0, or -1 (an older library). */
int hook_example_install(void)
{
	static const struct hst_io io = {
		io_pwrite, io_pread, read, io_lseek, io_ftruncate, io_fcntl,
		io_open, close,
	};

	if (hst_api_version() < HPROFSTRIP_API_VERSION)
		return -1;
	hst_setup(&io);
	pthread_atfork(hst_fork_prepare, hst_fork_parent, hst_fork_child);
	bytehook_hook_single("libart.so", NULL, "open", (void *)my_open, NULL, NULL);
	bytehook_hook_single("libart.so", NULL, "dup", (void *)my_dup, NULL, NULL);
	bytehook_hook_single("libart.so", NULL, "write", (void *)my_write, NULL, NULL);
	bytehook_hook_single("libart.so", NULL, "close", (void *)my_close, NULL, NULL);
	return 0;
}
